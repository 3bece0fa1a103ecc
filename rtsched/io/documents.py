"""YAML, JSON and JSON lines: documents parsed into nodes that keep their line numbers, and written.

:class:`Node` and its helpers (:func:`~rtsched.io.node_from_yaml`, :func:`~rtsched.io.node_from_json`,
:func:`~rtsched.io.check_keys`, :func:`~rtsched.io.describe_node`, :func:`~rtsched.io.node_text`, :func:`~rtsched.io.yaml_error`,
:class:`LineLoader`) are the building blocks of readers of other document formats too (the GPU
workload files of :mod:`rtsched.gpu`). The one-set/many-sets rule is in the package docstring
(:mod:`rtsched.io`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import yaml

from rtsched.errors import InputError
from rtsched.io.numbers import Scalar, clip, field_name, scalar_to_int
from rtsched.io.raw import RawSet, RawTask
from rtsched.io.stream import too_many_tasks
from rtsched.model import FIELDS, MAX_TASKS, TaskSet

__all__ = [
    "LineLoader",
    "Node",
    "check_keys",
    "describe_node",
    "node_from_json",
    "node_from_yaml",
    "node_text",
    "yaml_error",
    # The readers and writers of these formats, for rtsched.io.tasksets (not re-exported by rtsched.io):
    "dump_json",
    "dump_jsonl",
    "dump_yaml",
    "parse_json",
    "parse_json_with_lines",
    "parse_jsonl",
    "parse_yaml",
]


_YAML_KINDS = {
    "tag:yaml.org,2002:bool": "bool",
    "tag:yaml.org,2002:null": "null",
    "tag:yaml.org,2002:int": "num",
    "tag:yaml.org,2002:float": "num",
}


class Node(NamedTuple):
    """A parsed JSON/YAML value: dict[str, Node], list[Node] or Scalar, with its line."""

    value: Any
    line: int | None


class _Num(str):
    """A JSON number, kept as its text."""


class _Pairs(list):
    """A JSON object, kept as its list of pairs so that duplicate keys can be reported."""


class LineLoader(yaml.SafeLoader):
    """The safe loader, refusing aliases (they allow cycles and exponential expansion)."""

    def compose_node(self, parent: Any, index: Any) -> Any:
        """Compose the next node as the safe loader does, refusing an alias (a ``ComposerError``)."""
        if self.check_event(yaml.AliasEvent):
            mark = self.peek_event().start_mark
            raise yaml.composer.ComposerError(None, None, "aliases (*name) are not supported", mark)
        return super().compose_node(parent, index)


def _put(out: dict[str, Node], key: str, value: Node, line: int | None) -> None:
    if key in out:
        raise InputError(f"duplicate key {clip(key)!r}", line=line, field=field_name(key))
    out[key] = value


def node_from_yaml(node: yaml.Node) -> Node:
    """The :class:`Node` tree of a composed YAML node, each value with its line (from 1).

    Keys must be plain strings and unique (an :class:`~rtsched.errors.InputError` otherwise); a
    scalar tagged bool, null, int or float keeps that kind (int and float as "num"), any other is a
    string.
    """
    line = node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        out: dict[str, Node] = {}
        for key, value in node.value:
            if not isinstance(key, yaml.ScalarNode):
                raise InputError("keys must be plain strings", line=key.start_mark.line + 1)
            _put(out, key.value, node_from_yaml(value), key.start_mark.line + 1)
        return Node(out, line)
    if isinstance(node, yaml.SequenceNode):
        return Node([node_from_yaml(item) for item in node.value], line)
    return Node(Scalar(_YAML_KINDS.get(node.tag, "str"), node.value), line)


class _Lines(NamedTuple):
    """Where the values of a JSON document are.

    The line of a value, and of its items (a list), or of each key with its value's lines (an
    object, in document order).
    """

    line: int
    items: list[Any] | None  # list[_Lines] or list[tuple[int, _Lines]] (key line, value)


#: One JSON token after optional whitespace: a string, punctuation, or a bare literal/number.
_JSON_TOKEN = re.compile(r'[ \t\r\n]*(?:("(?:[^"\\]|\\.)*")|([\[\]{},:])|([^ \t\r\n\[\]{},:"]+))', re.S)


def _json_lines(text: str) -> _Lines:
    """The lines of every value of ``text``, a document :func:`json.loads` accepted (so valid)."""
    tokens = _JSON_TOKEN.finditer(text)
    state = [1, 0]  # line, offset counted up to

    def advance() -> tuple[str, int]:
        match = next(tokens)
        start = match.start(match.lastindex or 0)
        state[0] += text.count("\n", state[1], start)
        state[1] = start
        return match.group(match.lastindex or 0), state[0]

    def value(token: str, line: int) -> _Lines:
        if token == "[":
            items: list[Any] = []
            token, at = advance()
            while token != "]":
                if token != ",":
                    items.append(value(token, at))
                token, at = advance()
            return _Lines(line, items)
        if token == "{":
            pairs: list[Any] = []
            token, at = advance()
            while token != "}":
                if token != ",":
                    advance()  # the colon
                    pairs.append((at, value(*advance())))
                token, at = advance()
            return _Lines(line, pairs)
        return _Lines(line, None)

    return value(*advance())


def _from_json(value: Any, where: _Lines | None, line: int | None) -> Node:
    """Convert a decoded JSON value; lines come from :func:`_json_lines`, else ``line``."""
    here = where.line if where is not None else line
    items = where.items if where is not None else None
    if isinstance(value, _Pairs):
        out: dict[str, Node] = {}
        ok = items is not None and len(items) == len(value)
        for j, (key, item) in enumerate(value):
            key_line, sub = items[j] if ok else (here, None)  # type: ignore[index]
            _put(out, key, _from_json(item, sub, line), key_line)
        return Node(out, here)
    if isinstance(value, list):
        ok = items is not None and len(items) == len(value)
        return Node([_from_json(v, items[j] if ok else None, line) for j, v in enumerate(value)], here)  # type: ignore[index]
    if isinstance(value, bool):
        return Node(Scalar("bool", "true" if value else "false"), here)
    if value is None:
        return Node(Scalar("null", "null"), here)
    return Node(Scalar("num" if isinstance(value, _Num) else "str", value), here)


def node_from_json(text: str, line: int | None = None, *, lines: bool = True) -> Node:
    """Decode JSON into a :class:`Node` tree.

    ``line`` is the line of a one-line document (JSON lines), else lines are found (unless ``lines``
    is False: then values have no line, only syntax errors do).
    """
    try:
        value = json.loads(text, parse_int=_Num, parse_float=_Num, parse_constant=_Num, object_pairs_hook=_Pairs)
    except json.JSONDecodeError as err:
        raise InputError(f"invalid JSON: {err.msg} (column {err.colno})", line=line or err.lineno) from None
    where = _json_lines(text) if line is None and lines else None
    return _from_json(value, where, line)


def describe_node(node: Node) -> str:
    """A node's value in a few words for an error message: "an object", "the number 3", ..."""
    if isinstance(node.value, dict):
        return "an object"
    if isinstance(node.value, list):
        return f"a list of {len(node.value)} items"
    kind, text = node.value
    return {"num": f"the number {clip(text)}", "str": f"the string {clip(text)!r}"}.get(kind, clip(text))


def node_to_int(node: Node, prefix: str = "", **where: Any) -> int:
    """The integer a scalar node holds (:func:`~rtsched.io.scalar_to_int`), or an InputError.

    The error names the node's line and ``where`` (e.g. ``task=3, field="T"``); ``prefix`` opens
    its message (e.g. ``"vertex v2: "``).
    """
    if not isinstance(node.value, Scalar):
        raise InputError(f"{prefix}expected an integer, got {describe_node(node)}", line=node.line, **where)
    try:
        value = scalar_to_int(node.value, None)
    except InputError as err:
        raise (InputError(prefix + err.message) if prefix else err).located(line=node.line, **where) from None
    assert isinstance(value, int)
    return value


def check_keys(node: Node, allowed: Sequence[str], required: Sequence[str], **where: Any) -> None:
    """Refuse a key of the object ``node`` not in ``allowed``, or a missing ``required`` key.

    The :class:`~rtsched.errors.InputError` names the key and the object's line, and ``where`` adds
    the place (e.g. ``task=3``).
    """
    for key in node.value:
        if key not in allowed:
            raise InputError(
                f"unknown key {clip(key)!r} (expected {', '.join(allowed)})",
                line=node.line,
                field=field_name(key),
                **where,
            )
    for key in required:
        if key not in node.value:
            raise InputError(f"missing key {key!r}", line=node.line, field=key, **where)


def _is_set_like(node: Node) -> bool:
    if isinstance(node.value, dict):
        return "tasks" in node.value
    return isinstance(node.value, list) and (
        not node.value or any(not isinstance(item.value, Scalar) for item in node.value)
    )


def _doc_sets(root: Node) -> list[Node]:
    """The task sets of a document (see the module docstring for the one-set/many-sets rule)."""
    value = root.value
    if isinstance(value, dict) and "tasksets" in value:
        check_keys(root, ["tasksets"], [])
        sets = value["tasksets"]
        if not isinstance(sets.value, list):
            raise InputError(f"'tasksets' must be a list, got {describe_node(sets)}", line=sets.line)
        return sets.value
    if isinstance(value, list) and value and _is_set_like(value[0]):
        return value
    if isinstance(value, dict | list):
        return [root]
    raise InputError(f"expected a task set or a list of task sets, got {describe_node(root)}", line=root.line)


def node_text(node: Node | None, **where: Any) -> str | None:
    """The text of a ``name`` node, or None when it is absent or null; a non-scalar is an input error."""
    if node is None or (isinstance(node.value, Scalar) and node.value.kind == "null"):
        return None
    if not isinstance(node.value, Scalar):
        raise InputError(f"a name must be a string, got {describe_node(node)}", line=node.line, field="name", **where)
    return node.value.text


def _upper_fields(node: Node, i: int) -> Node:
    """The task object ``node`` with ``c``, ``d``, ``t`` keys read as ``C``, ``D``, ``T``.

    A CSV header names its columns in any case (``c,d,t`` or ``C,D,T``), so a JSON/YAML task
    object may write the three fields in lower case too; one field written both ways is refused.
    """
    value = node.value
    if not any(key in ("c", "d", "t") for key in value):
        return node
    out: dict[str, Node] = {}
    for key, item in value.items():
        field = key.upper() if key in ("c", "d", "t") else key
        if field in out:
            raise InputError(
                f"{field} given twice (as {field!r} and {field.lower()!r})", line=node.line, field=field, task=i
            )
        out[field] = item
    return Node(out, node.line)


def _node_task(node: Node, i: int) -> RawTask:
    value = node.value
    priority: Node | None = None
    if isinstance(value, dict):
        node = _upper_fields(node, i)
        value = node.value
        check_keys(node, [*FIELDS, "name", "priority"], FIELDS, task=i)
        cells, name, priority = [value[f] for f in FIELDS], value.get("name"), value.get("priority")
        if priority is not None and not isinstance(priority.value, Scalar):
            raise InputError(
                f"expected an integer priority, got {describe_node(priority)}",
                line=priority.line,
                task=i,
                field="priority",
            )
    elif isinstance(value, list):
        if len(value) not in (3, 4):
            hint = " (a task with a priority is written {C: .., D: .., T: .., priority: ..})" if len(value) == 5 else ""
            raise InputError(
                f"expected [C, D, T] or [C, D, T, name], got {len(value)} values{hint}", line=node.line, task=i
            )
        cells, name = value[:3], value[3] if len(value) == 4 else None
    else:
        raise InputError(
            f"expected a task [C, D, T] or {{C: .., D: .., T: ..}}, got {describe_node(node)}", line=node.line, task=i
        )
    for field, cell in zip(FIELDS, cells, strict=True):
        if not isinstance(cell.value, Scalar):
            raise InputError(f"expected a number, got {describe_node(cell)}", line=cell.line, task=i, field=field)
    return RawTask(
        tuple(c.value for c in cells),
        node_text(name, task=i),
        node.line,
        tuple(c.line for c in cells),
        None if priority is None else priority.value,
        None if priority is None else priority.line,
    )


def _node_set(node: Node) -> RawSet:
    value, name = node.value, None
    if isinstance(value, dict):
        if "kernels" in value and "tasks" not in value:
            raise InputError(
                "this is a GPU workload (it has 'kernels'), not a task set: check it with "
                "`rtsched check FILE --platform gpu:M` or `rtsched gpu FILE` (rtsched.gpu.read_gpu_workload in Python)",
                line=node.line,
                field="kernels",
            )
        check_keys(node, ["name", "tasks"], ["tasks"])
        name, tasks = node_text(value.get("name")), value["tasks"]
        if not isinstance(tasks.value, list):
            raise InputError(f"'tasks' must be a list, got {describe_node(tasks)}", line=tasks.line, field="tasks")
        value = tasks.value
    elif not isinstance(value, list):
        raise InputError(
            f"expected a task set (a list of tasks or an object with 'tasks'), got {describe_node(node)}",
            line=node.line,
        )
    if len(value) > MAX_TASKS:
        raise too_many_tasks(node.line, None)
    return RawSet([_node_task(t, i) for i, t in enumerate(value)], name, node.line)


def _jsonl_set(item: tuple[int, str]) -> RawSet:
    line, text = item
    node = node_from_json(text, line)
    sets = _doc_sets(node)
    if len(sets) != 1 or sets[0] is not node:
        raise InputError("each line must hold exactly one task set", line=line)
    return _node_set(node)


def yaml_error(err: yaml.YAMLError, text: str) -> InputError:
    """An InputError of one line for a YAML syntax error, with its line (and column)."""
    if isinstance(err, yaml.reader.ReaderError):  # a character YAML does not allow; no mark
        start = min(max(err.position, 0), len(text))
        line = text.count("\n", 0, start) + 1
        column = start - (text.rfind("\n", 0, start) + 1) + 1
        char = err.character if isinstance(err.character, int) else ord(str(err.character)[:1] or "\0")
        return InputError(f"invalid YAML: the character U+{char:04X} is not allowed (column {column})", line=line)
    mark = getattr(err, "problem_mark", None)
    what = ", ".join(str(p) for p in (getattr(err, "context", None), getattr(err, "problem", None)) if p)
    where = f" (column {mark.column + 1})" if mark else ""
    message = " ".join(f"invalid YAML: {what or err}{where}".split())
    return InputError(message, line=mark.line + 1 if mark else None)


def parse_yaml(text: str) -> tuple[list[Any], Callable[[Any], RawSet]]:
    """A YAML document's task sets, unread: the items and the function that reads one into a raw set."""
    try:
        root = yaml.compose(text, Loader=LineLoader)
    except yaml.YAMLError as err:
        raise yaml_error(err, text) from None
    return ([] if root is None else _doc_sets(node_from_yaml(root))), _node_set


def parse_json(text: str) -> tuple[list[Any], Callable[[Any], RawSet]]:
    """A JSON document's task sets and their reader, without line numbers (the fast first reading)."""
    return _doc_sets(node_from_json(text, lines=False)), _node_set


def parse_json_with_lines(text: str) -> tuple[list[Any], Callable[[Any], RawSet]]:
    """As :func:`parse_json`, keeping every value's line (slower; read again to place an error)."""
    return _doc_sets(node_from_json(text)), _node_set


def parse_jsonl(text: str) -> tuple[list[Any], Callable[[Any], RawSet]]:
    """A JSON lines document's non-blank lines, with their numbers, and the reader of one line's set."""
    return [(n, line) for n, line in enumerate(text.split("\n"), 1) if line.strip()], _jsonl_set


def _task_docs(ts: TaskSet) -> list[Any]:
    return [[c, d, t] if nm is None else {"C": c, "D": d, "T": t, "name": nm} for c, d, t, nm in ts]


def _set_doc(ts: TaskSet) -> dict[str, Any]:
    return ({} if ts.name is None else {"name": ts.name}) | {"tasks": _task_docs(ts)}


def dump_yaml(sets: list[TaskSet]) -> str:
    """The sets as a YAML document: one set, or a list of sets."""
    doc = _set_doc(sets[0]) if len(sets) == 1 else [_set_doc(ts) for ts in sets]
    return yaml.safe_dump(doc, sort_keys=False, default_flow_style=None, allow_unicode=True, width=2**31 - 1)


def dump_json(sets: list[TaskSet]) -> str:
    """The sets as a JSON document, one task per line: one set, or a list of sets."""

    def one(ts: TaskSet, pad: str) -> str:
        head = "" if ts.name is None else f'"name": {json.dumps(ts.name, ensure_ascii=False)}, '
        rows = f",\n{pad}  ".join(json.dumps(t, ensure_ascii=False) for t in _task_docs(ts))
        return f'{{{head}"tasks": [\n{pad}  {rows}\n{pad}]}}'

    if len(sets) == 1:
        return one(sets[0], "") + "\n"
    return "[\n" + ",\n".join("  " + one(ts, "  ") for ts in sets) + "\n]\n"


def dump_jsonl(sets: list[TaskSet]) -> str:
    """The sets as JSON lines, one set per line."""
    return "".join(json.dumps(_set_doc(ts), ensure_ascii=False, separators=(",", ":")) + "\n" for ts in sets)
