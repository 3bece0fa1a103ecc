"""Read and write task sets: YAML, JSON, JSON lines, CSV and plain text.

Formats
-------
``yaml`` (``.yaml``, ``.yml``) and ``json`` (``.json``)
    The document is one task set or a list of task sets. A task set is an object
    ``{"name": optional, "tasks": [...]}`` or a bare list of tasks; a task is ``[C, D, T]``,
    ``[C, D, T, name]`` or ``{"C": .., "D": .., "T": .., "name": optional, "priority": optional}``.
    A top-level ``{"tasksets": [...]}`` is a list of task sets.

    *One set or many?* A top-level list is a list of task sets when its **first** element looks
    like a task set: an object with a ``"tasks"`` key, or a list that is empty or holds a list or
    an object. Otherwise (a list of scalars such as ``[1, 2, 3]``, an object without ``"tasks"``,
    a scalar) the first element is a task and the whole list is one task set. Every element is
    then read as that kind, so a stray element gets an error naming it.
``jsonl`` (``.jsonl``, ``.ndjson``)
    One task set per non-blank line, in any one-set JSON form.
``csv`` (``.csv``)
    A header naming the columns ``C``, ``D``, ``T`` and optionally ``name``, ``priority`` and
    ``set`` (any order, any case), then one task per row. Rows with the same integer ``set`` value
    form one task set, in order of first appearance; without a ``set`` column the file is one set.
    An empty ``priority`` cell means the task has none.
``txt`` (``.txt``)
    ``C D T [name]`` per line; ``#`` starts a comment; a line ``---`` separates task sets. A
    fourth column is the name, so text files have no priority column: their order is the
    priority order.

Numbers are read from their text, alike in every format. Without a time unit a value is an
integer number of ticks written with the ASCII digits ``0-9`` and an optional sign (``1000``,
``+7``); every other spelling is refused with an error naming the field and saying why: ``1e3``,
``3.0`` (write ``1000``, ``3``), ``1_000``, ``0x10``, YAML's ``1:30``, other scripts' digits
(``١``, ``１``), booleans, ``nan``/``inf``. With ``time_unit=u`` a value is a real number, an ASCII
decimal with optional fraction and exponent (``0.5``, ``2.5e-3``; exponent at most ±100) or ``p/q``;
``x`` means ``x / u`` ticks and must be exactly a whole number (:meth:`TaskSet.from_real`).

Every malformed input raises :class:`~rtsched.errors.InputError` whose message names the file,
the line, the task set (when the file holds several), the task and the field.

Priorities
----------
Fixed priority is the order of the tasks in a set, first = highest (:mod:`rtsched.priorities`).
In YAML, JSON, JSON lines and CSV a task may instead carry a ``priority``: an integer, smaller =
higher, any sign, spelled as ticks are without a time unit (whatever the time unit). Either every
task of a set has one or none does (a task without one in a set with priorities is an error
naming it), and two tasks with the same priority are an error naming both. The reader returns
such a set **reordered**, highest priority first, so that every analysis (which reads priority
from the order) applies unchanged; the ``priority`` values themselves are not kept. Task names
travel with their tasks, so name the tasks to recognise them in reports: there task ``τi`` is
the i-th in priority order, while errors found while reading (values, ``C > D``, ties) name
tasks by their position in the file. The writers never write ``priority``: a set's order is its
priority, and reading the output back gives the same set in the same order.

Limits
------
A task set has at most :data:`rtsched.model.MAX_TASKS` = 65,536 tasks, a file (or standard input)
at most :data:`MAX_SETS` = 1,048,576 task sets and :data:`MAX_FILE_BYTES` = 64 MiB. All three are
checked while the input is read, before it is parsed, in every format: a larger file is refused
at once (or, from a pipe, as soon as 64 MiB have arrived), and a set or file with too many items
at its first one too many, naming the line. The JSON and YAML documents are counted as they
stream in (a token scan; YAML events, by libyaml when PyYAML has it): a list at the top holds at
most MAX_SETS sets (or MAX_TASKS tasks in the one-set form), every other list at most MAX_TASKS
items. So an oversized input costs neither the time nor the memory of parsing it. Split larger
inputs into several files.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import stat
import sys
import tempfile
from collections.abc import Callable, Iterable, Sequence
from decimal import Decimal
from fractions import Fraction
from typing import Any, NamedTuple

import yaml

from rtsched.errors import InputError
from rtsched.model import FIELDS, MAX_TASKS, MAX_TIME, DeadlineModel, TaskSet, _check_model

__all__ = [
    "FORMATS",
    "MAX_FILE_BYTES",
    "MAX_SETS",
    # Building blocks for readers of other document formats (e.g. GPU workloads): parse YAML or
    # JSON into nodes that keep their line numbers, and convert scalars exactly.
    "LineLoader",
    "Node",
    "Scalar",
    "check_keys",
    "describe_node",
    "yaml_error",
    "node_from_json",
    "node_from_yaml",
    "node_text",
    "read_text",
    "scalar_to_fraction",
    "scalar_to_int",
    "detect_format",
    "dumps",
    "loads",
    "read_taskset",
    "read_tasksets",
    "write_tasksets",
]

#: The formats understood by :func:`loads` and :func:`dumps`.
FORMATS = ("yaml", "json", "jsonl", "csv", "txt")
#: Largest input read from a file or standard input: 64 MiB. A larger input is refused while it is
#: read (at once for a regular file), before it fills memory; split it into several files.
MAX_FILE_BYTES = 64 * 2**20
#: Most task sets in one file (or standard input): 2**20. Checked while reading, like the other limits.
MAX_SETS = 2**20
#: Bytes read at a time.
_CHUNK_BYTES = 2**20
#: A JSON document is first read without line numbers (finding them means composing the text
#: as YAML, which is slow); only when it holds an error is it read again with them, if it is at
#: most this long. Above it the error names the task set, task and field but not the line.
_JSON_LINES_CHARS = 16 * 2**20

_EXTENSIONS = {
    "yaml": "yaml",
    "yml": "yaml",
    "json": "json",
    "jsonl": "jsonl",
    "ndjson": "jsonl",
    "csv": "csv",
    "txt": "txt",
}
_CSV_COLUMNS = {"c": "C", "d": "D", "t": "T", "name": "name", "priority": "priority", "set": "set"}
_YAML_KINDS = {
    "tag:yaml.org,2002:bool": "bool",
    "tag:yaml.org,2002:null": "null",
    "tag:yaml.org,2002:int": "num",
    "tag:yaml.org,2002:float": "num",
}
_NO_TASKS = "found no tasks in the file"


# -- intermediate representation -----------------------------------------------------------------
class Scalar(NamedTuple):
    kind: str  # "num", "str", "bool" or "null"
    text: str


class Node(NamedTuple):
    """A parsed JSON/YAML value: dict[str, Node], list[Node] or Scalar, with its line."""

    value: Any
    line: int | None


class _RawTask(NamedTuple):
    values: tuple[Scalar, ...]  # C, D, T as written
    name: str | None
    line: int | None
    lines: tuple[int | None, ...]  # line of C, D, T
    priority: Scalar | None = None  # as written; None: the task has no priority
    priority_line: int | None = None

    def line_of(self, field: str | None) -> int | None:
        if field == "priority":
            line = self.priority_line
        else:
            line = self.lines[FIELDS.index(field)] if field in FIELDS else None
        return self.line if line is None else line


class _RawSet(NamedTuple):
    tasks: list[_RawTask]
    name: str | None
    line: int | None


class _Num(str):
    """A JSON number, kept as its text."""


class _Pairs(list):
    """A JSON object, kept as its list of pairs so that duplicate keys can be reported."""


# -- shared helpers ------------------------------------------------------------------------------
def _check_format(fmt: str) -> str:
    key = _EXTENSIONS.get(str(fmt).lower().lstrip("."))
    if key is None:
        raise InputError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    return key


#: An integer as rtsched reads it: ASCII digits with an optional sign, nothing else.
_INTEGER = re.compile(r"[+-]?[0-9]+")
#: A real number (with a time unit): ASCII decimal with optional fraction and exponent, or p/q.
_REAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE]([+-]?[0-9]+))?|[+-]?[0-9]+/[0-9]+")
#: Largest decimal exponent read (``1e40010`` would be a 40,011-digit number).
_MAX_EXPONENT = 100


def _real(text: str) -> Fraction | None:
    """The exact value of a real-number spelling (:data:`_REAL`), or None if it is not one.

    Raises InputError for an exponent beyond :data:`_MAX_EXPONENT` or a zero denominator."""
    match = _REAL.fullmatch(text)
    if match is None:
        return None
    exponent = match.group(1)
    if exponent is not None and (len(exponent.lstrip("+-")) > 4 or abs(int(exponent)) > _MAX_EXPONENT):
        raise InputError(f"{text!r} has an exponent beyond ±{_MAX_EXPONENT}; time values are at most {MAX_TIME}")
    try:
        return Fraction(text)
    except ZeroDivisionError:
        raise InputError(f"{text!r} divides by zero") from None


def _parse_unit(time_unit: Any) -> str | None:
    """Check a time unit; return it as text (as written, for messages) or None."""
    if time_unit is None:
        return None
    text = str(time_unit).strip()
    try:
        value = None if isinstance(time_unit, bool) or len(text) > 100 else _real(text)
    except InputError:
        value = None
    if value is None or value <= 0:
        raise InputError(f"invalid time unit {_clip(repr(time_unit))}; give a positive number such as 0.001")
    return text


def _unit_hint(denominator: int) -> str:
    exact = Decimal(1) / Decimal(denominator)
    return str(exact) if Fraction(exact) == Fraction(1, denominator) else f"1/{denominator}"


def _not_a_number(text: str) -> InputError:
    """The error for a value that is not a number rtsched reads, saying why when it can tell."""
    low = text.lower().lstrip("+-.")
    if low in ("nan", "inf", "infinity"):
        return InputError(f"{text!r} is not a finite number")
    if any(c.isdigit() for c in text) and not text.isascii():
        return InputError(f"{text!r} is not a number: write digits with the ASCII characters 0-9")
    if "_" in text and _REAL.fullmatch(text.replace("_", "")):
        return InputError(f"{text!r} is not a number: write it without '_'")
    return InputError(f"{text!r} is not a number")


def scalar_to_fraction(value: Scalar, max_chars: int = 100) -> Fraction:
    """Check one written real number (a factor, a fraction of work) and return it exactly.

    The spellings are those of values with a time unit (see :func:`scalar_to_int`): an ASCII
    decimal with optional fraction and exponent (at most ±100), or ``p/q``.
    """
    text = value.text.strip()
    if value.kind == "bool":
        raise InputError(f"{text} is a boolean, not a number")
    if value.kind == "null" or not text:
        raise InputError("the value is missing")
    if len(text) > max_chars:
        raise InputError(f"{text[:20]!r}... is too long for a number ({len(text)} characters)")
    number = _real(text)
    if number is None:
        raise _not_a_number(text)
    return number


def _not_an_integer(text: str, hint: str) -> InputError:
    return InputError(
        f"{text!r} is not an integer: without a time unit, a value is a number of ticks written "
        f"with the digits 0-9 and an optional sign{hint}"
    )


def scalar_to_int(value: Scalar, unit: str | None) -> int | str:
    """Check one written value; return it as an int (no unit) or as its text (unit given).

    Without a unit a value is an integer number of ticks, written with the ASCII digits 0-9 and
    an optional sign (``1000``, ``+7``); ``1e3``, ``1_000``, ``3.0``, ``0x10`` and other scripts'
    digits are refused, saying why. With a unit a value is a real number: an ASCII decimal with an
    optional fraction and exponent (``0.5``, ``2.5e-3``; exponent at most ±100) or ``p/q``.
    """
    text = value.text.strip()
    if value.kind == "bool":
        raise InputError(f"{text} is a boolean, not a number")
    if value.kind == "null" or not text:
        raise InputError("the value is missing")
    if len(text) > 100:
        raise InputError(f"{text[:20]!r}... is too long for a time value ({len(text)} characters)")
    if _INTEGER.fullmatch(text):  # the common case; int() is much faster than Fraction()
        if unit is None:
            return int(text)
        number: Fraction | None = Fraction(int(text))
    else:
        try:
            number = _real(text)
        except InputError:
            if unit is not None:
                raise
            number = None
            if _REAL.fullmatch(text):  # a huge exponent: a real number, but not written as an integer
                raise _not_an_integer(text, "") from None
        if number is None:
            raise _not_a_number(text)
        if unit is None:
            if number.denominator != 1:
                hint = _unit_hint(number.denominator)
                raise InputError(
                    f"{text} is not a whole number of ticks; give a time unit to convert real-valued times, "
                    f"e.g. --time-unit {hint} (time_unit={hint!r})"
                )
            raise _not_an_integer(text, f" (write {int(number)})" if abs(number) <= MAX_TIME else "")
    if abs(number) / Fraction(unit) > MAX_TIME:
        raise InputError(f"{text} is too large: at most {MAX_TIME} ticks of {unit}")
    return text


def _task_index(task: int | str | None) -> int | None:
    return None if task is None else int(str(task).split()[0])


def _priority(value: Scalar) -> int:
    """A written priority: an integer (any sign, any time unit), spelled as ticks are without a unit."""
    text = value.text.strip()
    if value.kind == "bool":
        raise InputError(f"{text} is a boolean, not an integer priority")
    if value.kind == "null" or not text:
        raise InputError("the value is missing")
    if len(text) > 100:
        raise InputError(f"{text[:20]!r}... is too long for a priority ({len(text)} characters)")
    if _INTEGER.fullmatch(text):
        return int(text)
    if _REAL.fullmatch(text):
        raise InputError(
            f"{text!r} is not an integer priority: write it with the digits 0-9 and an optional sign (smaller = higher)"
        )
    raise _not_a_number(text)


def _priority_order(raw: _RawSet) -> list[int] | None:
    """The file positions of the tasks of ``raw``, highest priority (smallest value) first; None
    when no task has a priority. Mixing tasks with and without one, and ties, are input errors."""
    given = [i for i, task in enumerate(raw.tasks) if task.priority is not None]
    if not given:
        return None
    if len(given) < len(raw.tasks):
        i = next(i for i, task in enumerate(raw.tasks) if task.priority is None)
        raise InputError(
            f"this task has no priority but task {given[0]} has one: give every task of the set a priority "
            "(an integer, smaller = higher), or none (then the order of the tasks is their priority)",
            line=raw.tasks[i].line,
            task=i,
            field="priority",
        )
    values: list[int] = []
    seen: dict[int, int] = {}
    for i, task in enumerate(raw.tasks):
        try:
            value = _priority(task.priority)  # type: ignore[arg-type]
        except InputError as err:
            raise err.located(line=task.line_of("priority"), task=i, field="priority") from None
        if value in seen:
            j = seen[value]
            where = raw.tasks[j].line_of("priority")
            raise InputError(
                f"priority {value} is also that of task {j}"
                + ("" if where is None else f" (line {where})")
                + "; priorities must be distinct",
                line=task.line_of("priority"),
                task=i,
                field="priority",
            )
        seen[value] = i
        values.append(value)
    return sorted(range(len(values)), key=values.__getitem__)


def _make_taskset(raw: _RawSet, deadlines: DeadlineModel, unit: str | None) -> TaskSet:
    """Build a TaskSet from written values; every error gets the line of the offending value.

    With priorities, the set is built (and its errors named) in file order, then reordered
    highest priority first."""
    rows = []
    for i, task in enumerate(raw.tasks):
        row: list[Any] = []
        for field, value in zip(FIELDS, task.values, strict=True):
            try:
                row.append(scalar_to_int(value, unit))
            except InputError as err:
                raise err.located(line=task.line_of(field), task=i, field=field) from None
        rows.append((*row, task.name))
    order = _priority_order(raw)
    try:
        if unit is None:
            ts = TaskSet.from_tasks(rows, name=raw.name, deadlines=deadlines)
        else:
            ts = TaskSet.from_real(rows, unit, rounding="exact", name=raw.name, deadlines=deadlines)
    except InputError as err:
        i = _task_index(err.task)
        raise err.located(line=raw.line if i is None else raw.tasks[i].line_of(err.field)) from None
    if order is None or order == sorted(order):
        return ts
    return ts.subset(order)


def _flat_task(cells: Sequence[str], name: str | None, line: int, priority: str | None = None) -> _RawTask:
    """A task of a line-based format (CSV, txt): all values on one line; an empty or missing
    priority cell means no priority."""
    prio = Scalar("str", priority) if priority is not None and priority.strip() else None
    return _RawTask(tuple(Scalar("str", c) for c in cells), name or None, line, (line,) * 3, prio, line)


def _build(
    items: Sequence[Any], parse: Callable[[Any], _RawSet], deadlines: DeadlineModel, unit: str | None
) -> list[TaskSet]:
    """Parse and build each task set, adding the set index to errors when there are several."""
    if not items:
        raise InputError(_NO_TASKS)
    if len(items) > MAX_SETS:
        raise _too_many_sets(None)
    out = []
    for s, item in enumerate(items):
        try:
            out.append(_make_taskset(parse(item), deadlines, unit))
        except InputError as err:
            raise err.located(set_index=s if len(items) > 1 else None) from None
    return out


# -- JSON and YAML -------------------------------------------------------------------------------
class LineLoader(yaml.SafeLoader):
    """The safe loader, refusing aliases (they allow cycles and exponential expansion)."""

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            mark = self.peek_event().start_mark
            raise yaml.composer.ComposerError(None, None, "aliases (*name) are not supported", mark)
        return super().compose_node(parent, index)


def _put(out: dict[str, Node], key: str, value: Node, line: int | None) -> None:
    if key in out:
        raise InputError(f"duplicate key {_clip(key)!r}", line=line, field=_field(key))
    out[key] = value


def node_from_yaml(node: yaml.Node) -> Node:
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
    """Where the values of a JSON document are: the line of a value, and of its items (a list),
    or of each key with its value's lines (an object, in document order)."""

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
    """Decode JSON; ``line`` is the line of a one-line document (JSON lines), else lines are found
    (unless ``lines`` is False: then values have no line, only syntax errors do)."""
    try:
        value = json.loads(text, parse_int=_Num, parse_float=_Num, parse_constant=_Num, object_pairs_hook=_Pairs)
    except json.JSONDecodeError as err:
        raise InputError(f"invalid JSON: {err.msg} (column {err.colno})", line=line or err.lineno) from None
    where = _json_lines(text) if line is None and lines else None
    return _from_json(value, where, line)


def describe_node(node: Node) -> str:
    if isinstance(node.value, dict):
        return "an object"
    if isinstance(node.value, list):
        return f"a list of {len(node.value)} items"
    kind, text = node.value
    return {"num": f"the number {_clip(text)}", "str": f"the string {_clip(text)!r}"}.get(kind, _clip(text))


def check_keys(node: Node, allowed: Sequence[str], required: Sequence[str], **where: Any) -> None:
    for key in node.value:
        if key not in allowed:
            raise InputError(
                f"unknown key {_clip(key)!r} (expected {', '.join(allowed)})",
                line=node.line,
                field=_field(key),
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
    if node is None or (isinstance(node.value, Scalar) and node.value.kind == "null"):
        return None
    if not isinstance(node.value, Scalar):
        raise InputError(f"a name must be a string, got {describe_node(node)}", line=node.line, field="name", **where)
    return node.value.text


def _node_task(node: Node, i: int) -> _RawTask:
    value = node.value
    priority: Node | None = None
    if isinstance(value, dict):
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
    return _RawTask(
        tuple(c.value for c in cells),
        node_text(name, task=i),
        node.line,
        tuple(c.line for c in cells),
        None if priority is None else priority.value,
        None if priority is None else priority.line,
    )


def _node_set(node: Node) -> _RawSet:
    value, name = node.value, None
    if isinstance(value, dict):
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
        raise _too_many_tasks(node.line, None)
    return _RawSet([_node_task(t, i) for i, t in enumerate(value)], name, node.line)


def _jsonl_set(item: tuple[int, str]) -> _RawSet:
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


# -- the formats: each returns the items to build and how to parse one item into a raw set ---------
def _parse_yaml(text: str) -> tuple[list[Any], Callable[[Any], _RawSet]]:
    try:
        root = yaml.compose(text, Loader=LineLoader)
    except yaml.YAMLError as err:
        raise yaml_error(err, text) from None
    return ([] if root is None else _doc_sets(node_from_yaml(root))), _node_set


def _parse_json(text: str) -> tuple[list[Any], Callable[[Any], _RawSet]]:
    return _doc_sets(node_from_json(text, lines=False)), _node_set


def _parse_json_with_lines(text: str) -> tuple[list[Any], Callable[[Any], _RawSet]]:
    return _doc_sets(node_from_json(text)), _node_set


def _parse_jsonl(text: str) -> tuple[list[Any], Callable[[Any], _RawSet]]:
    return [(n, line) for n, line in enumerate(text.split("\n"), 1) if line.strip()], _jsonl_set


def _parse_csv(text: str) -> tuple[list[Any], Callable[[Any], _RawSet]]:
    reader = csv.reader(io.StringIO(text, newline=""))
    rows, start = [], 1
    try:
        for cells in reader:
            if any(c.strip() for c in cells):
                rows.append((start, cells))
            start = reader.line_num + 1
    except csv.Error as err:
        raise InputError(f"invalid CSV: {err}", line=reader.line_num) from None
    if not rows:
        return [], _identity
    head_line, header = rows[0]
    cols: dict[str, int] = {}
    for j, cell in enumerate(header):
        key = _CSV_COLUMNS.get(cell.strip().lower())
        if key is None:
            raise InputError(
                f"unknown column {_clip(cell.strip())!r}; the first row must be a header such as "
                "C,D,T[,name][,priority][,set]",
                line=head_line,
                field=_field(cell.strip()),
            )
        if key in cols:
            raise InputError(f"duplicate column {key}", line=head_line, field=key)
        cols[key] = j
    for field in FIELDS:
        if field not in cols:
            raise InputError(f"missing column {field} (the header must name C, D and T)", line=head_line, field=field)
    groups: dict[int, _RawSet] = {}
    for line, cells in rows[1:]:
        if len(cells) != len(header):
            raise InputError(f"expected {len(header)} cells as in the header, got {len(cells)}", line=line)
        key = 0
        if "set" in cols:
            number = _set_number(cells[cols["set"]])
            if number is None:
                raise InputError(f"{_clip(cells[cols['set']])!r} is not an integer set number", line=line, field="set")
            key = number
        name = cells[cols["name"]] if "name" in cols else None
        priority = cells[cols["priority"]] if "priority" in cols else None
        groups.setdefault(key, _RawSet([], None, line)).tasks.append(
            _flat_task([cells[cols[f]] for f in FIELDS], name, line, priority)
        )
    return list(groups.values()), _identity


def _clip(text: str, size: int = 40) -> str:
    """``text``, cut to ``size`` characters for a message."""
    return text if len(text) <= size else text[:size] + "..."


def _field(name: str) -> str | None:
    """A key or column named in an error's location: as written if it prints on one short line."""
    return name if name.isprintable() and len(name) <= 40 else None


def _set_number(text: str) -> int | None:
    """The CSV ``set`` column's value: an integer written as for times (:data:`_INTEGER`), or None."""
    text = text.strip()
    return int(text) if len(text) <= 100 and _INTEGER.fullmatch(text) else None


def _identity(raw: _RawSet) -> _RawSet:
    return raw


def _parse_txt(text: str) -> tuple[list[Any], Callable[[Any], _RawSet]]:
    """Find the sets (``---`` lines) in one pass; each set's lines are split when it is built, so
    a file of many sets never holds the tokens of all of them at once."""
    segments: list[tuple[int, int, int]] = []  # (first line number, start offset, end offset)
    any_task = False
    line_no, start, seg_line, pos = 1, 0, 1, 0
    for line in text.split("\n"):
        content = line.split("#", 1)[0].strip()
        if content == "---":
            segments.append((seg_line, start, pos))
            seg_line, start = line_no, pos + len(line) + 1
        elif content:
            any_task = True
        pos += len(line) + 1
        line_no += 1
    segments.append((seg_line, start, len(text)))

    def build(segment: tuple[int, int, int]) -> _RawSet:
        first, lo, hi = segment
        tasks = []
        # The first line of a segment after a separator is the line after "---".
        number = first if lo == 0 else first + 1
        for line in text[lo:hi].split("\n"):
            tokens = line.split("#", 1)[0].split()
            if tokens:
                if len(tokens) not in (3, 4):
                    raise InputError(
                        f"expected 'C D T' or 'C D T name', got {len(tokens)} values", line=number, task=len(tasks)
                    )
                tasks.append(_flat_task(tokens[:3], tokens[3] if len(tokens) == 4 else None, number))
            number += 1
        return _RawSet(tasks, None, first)

    return (segments if any_task else []), build


_PARSERS = {"yaml": _parse_yaml, "json": _parse_json, "jsonl": _parse_jsonl, "csv": _parse_csv, "txt": _parse_txt}


# -- writers -------------------------------------------------------------------------------------
def _task_docs(ts: TaskSet) -> list[Any]:
    return [[c, d, t] if nm is None else {"C": c, "D": d, "T": t, "name": nm} for c, d, t, nm in ts]


def _set_doc(ts: TaskSet) -> dict[str, Any]:
    return ({} if ts.name is None else {"name": ts.name}) | {"tasks": _task_docs(ts)}


def _dump_yaml(sets: list[TaskSet]) -> str:
    doc = _set_doc(sets[0]) if len(sets) == 1 else [_set_doc(ts) for ts in sets]
    return yaml.safe_dump(doc, sort_keys=False, default_flow_style=None, allow_unicode=True, width=2**31 - 1)


def _dump_json(sets: list[TaskSet]) -> str:
    def one(ts: TaskSet, pad: str) -> str:
        head = "" if ts.name is None else f'"name": {json.dumps(ts.name, ensure_ascii=False)}, '
        rows = f",\n{pad}  ".join(json.dumps(t, ensure_ascii=False) for t in _task_docs(ts))
        return f'{{{head}"tasks": [\n{pad}  {rows}\n{pad}]}}'

    if len(sets) == 1:
        return one(sets[0], "") + "\n"
    return "[\n" + ",\n".join("  " + one(ts, "  ") for ts in sets) + "\n]\n"


def _dump_jsonl(sets: list[TaskSet]) -> str:
    return "".join(json.dumps(_set_doc(ts), ensure_ascii=False, separators=(",", ":")) + "\n" for ts in sets)


def _dump_csv(sets: list[TaskSet]) -> str:
    named = any(ts.names is not None for ts in sets)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([*FIELDS, *(["name"] if named else []), *(["set"] if len(sets) > 1 else [])])
    for s, ts in enumerate(sets):
        for c, d, t, nm in ts:
            writer.writerow([c, d, t, *([nm or ""] if named else []), *([s] if len(sets) > 1 else [])])
    return out.getvalue()


def _dump_txt(sets: list[TaskSet]) -> str:
    blocks = []
    for s, ts in enumerate(sets):
        lines = []
        for i, (c, d, t, nm) in enumerate(ts):
            if nm is not None and (nm.split() != [nm] or "#" in nm):
                raise InputError(
                    f"task name {nm!r} cannot be written in txt format (it holds whitespace or '#'); "
                    "use yaml, json or csv",
                    set_index=s if len(sets) > 1 else None,
                    task=i,
                    field="name",
                )
            lines.append(f"{c} {d} {t}" + ("" if nm is None else f" {nm}"))
        blocks.append("\n".join(lines) + "\n")
    return "---\n".join(blocks)


_WRITERS = {"yaml": _dump_yaml, "json": _dump_json, "jsonl": _dump_jsonl, "csv": _dump_csv, "txt": _dump_txt}


# -- public API ----------------------------------------------------------------------------------
def detect_format(path: str | os.PathLike[str]) -> str:
    """Tell the format of a file from its extension.

    Parameters
    ----------
    path:
        The file name; ``"-"`` (standard input) has no extension, so it is refused.

    Returns
    -------
    str
        One of :data:`FORMATS`.

    Raises
    ------
    InputError
        If the extension is not one of ``.yaml .yml .json .jsonl .ndjson .csv .txt``.
    """
    name = os.fsdecode(path)
    if name == "-":
        raise InputError(f"give the format of standard input (one of {', '.join(FORMATS)})", file="<stdin>")
    ext = os.path.splitext(name)[1].lower().lstrip(".")
    if ext not in _EXTENSIONS:
        raise InputError(
            f"cannot tell the format from the extension {('.' + ext) if ext else '(none)'}; "
            f"give the format (one of {', '.join(FORMATS)})",
            file=name,
        )
    return _EXTENSIONS[ext]


def loads(
    text: str,
    format: str,
    *,
    source: str = "<string>",
    deadlines: DeadlineModel = "constrained",
    time_unit: Any = None,
) -> list[TaskSet]:
    """Parse task sets from text.

    Parameters
    ----------
    text:
        The document.
    format:
        One of :data:`FORMATS` (``"yml"`` and ``"ndjson"`` are accepted as aliases).
    source:
        Name of the document, used in error messages.
    deadlines:
        Deadline model passed to :class:`~rtsched.TaskSet` (``"constrained"``, ``"implicit"``
        or ``"arbitrary"``).
    time_unit:
        ``None``: every value must be a whole number of ticks. A positive number or numeric string
        ``u``: one tick is ``u`` file units; values are converted exactly.

    Returns
    -------
    list of TaskSet
        At least one task set, in file order; a set whose tasks carry ``priority`` fields is
        ordered by them, highest priority (smallest value) first.

    Raises
    ------
    InputError
        For any malformed input; the message names the source, line, task set, task and field.
        A task set may hold at most :data:`rtsched.model.MAX_TASKS` = 65,536 tasks.
    """
    fmt = _check_format(format)
    _check_model(deadlines)
    unit = _parse_unit(time_unit)
    text = text.removeprefix("\ufeff")  # as read_tasksets does
    try:
        if not text.strip():
            raise InputError("the file is empty")
        try:
            items, parse = _PARSERS[fmt](text)
            return _build(items, parse, deadlines, unit)
        except InputError:
            if fmt != "json" or len(text) > _JSON_LINES_CHARS:
                raise
            items, parse = _parse_json_with_lines(text)  # again, to say on which line the error is
            return _build(items, parse, deadlines, unit)
    except InputError as err:
        raise err.located(file=source) from None
    except RecursionError:
        raise InputError("the document is nested too deeply", file=source) from None


class _LimitedReader(io.RawIOBase):
    """A binary stream that refuses to read past ``limit`` bytes and keeps what it read."""

    def __init__(self, stream: Any, source: str, limit: int) -> None:
        super().__init__()
        self._stream = stream
        self._source = source
        self._limit = limit
        self._pending = memoryview(b"")
        self.size = 0
        self.parts: list[bytes] = []

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if not self._pending:
            data = self._stream.read(min(len(buffer), _CHUNK_BYTES))
            if isinstance(data, str):  # a text stream without a buffer (e.g. io.StringIO as stdin)
                data = data.encode("utf-8", "surrogatepass")
            self.size += len(data)
            if self.size > self._limit:
                raise _too_large(self._source, self._limit)
            self.parts.append(data)
            self._pending = memoryview(data)
        n = min(len(buffer), len(self._pending))
        buffer[:n] = self._pending[:n]
        self._pending = self._pending[n:]
        return n

    def drain(self) -> None:
        while self.read(_CHUNK_BYTES):
            pass


def _too_large(source: str, limit: int) -> InputError:
    size = f"{limit // 2**20} MiB" if limit % 2**20 == 0 else f"{limit} bytes"
    return InputError(
        f"the input is larger than {size}, the limit (rtsched.io.MAX_FILE_BYTES); split it into several files",
        file=source,
    )


def _too_many_tasks(line: int | None, set_index: int | None) -> InputError:
    return InputError(
        f"a task set may have at most {MAX_TASKS} tasks (rtsched.model.MAX_TASKS); this one has more",
        line=line,
        set_index=set_index,
    )


def _too_many_sets(line: int | None) -> InputError:
    return InputError(
        f"a file may hold at most {MAX_SETS} task sets (rtsched.io.MAX_SETS); this one has more; split it", line=line
    )


class _Shape:
    """Counts the items of every list (and entries of every object) of a JSON or YAML document
    while it streams past, refusing a task set of more than MAX_TASKS tasks or a file of more
    than MAX_SETS sets at the item too many, in constant memory.

    The list at the top (the document, or its ``tasksets`` value) holds sets or, in the one-set
    form, tasks: which, is told from its first item as the readers do (:func:`_is_set_like`).
    Every other list or object may have at most MAX_TASKS items (a set's tasks, or a task).
    """

    def __init__(self) -> None:
        # A frame: [is_map, items, role ("top", "sets", "tasks" or "inner"), value_next, probe];
        # value_next: an object's last child was a key; probe: the top list's first item, which
        # tells what the top list holds.
        self.stack: list[list[Any]] = []
        self.key: str | None = None  # the last key seen

    def _count(self, line: int | None) -> list[Any] | None:
        """Count a child of the innermost collection; return that collection's frame."""
        if not self.stack:
            return None
        frame = self.stack[-1]
        if frame[0]:
            frame[3] = not frame[3]
            if not frame[3]:
                return frame  # a value: the entry was counted at its key
        frame[1] += 1
        if frame[2] in ("top", "sets"):
            if frame[1] > MAX_SETS:
                raise _too_many_sets(line)
        elif frame[1] > MAX_TASKS:
            sets = [f for f in self.stack[:2] if f[2] == "sets"]
            raise _too_many_tasks(line, sets[0][1] - 1 if sets else None)
        return frame

    def _decide(self, set_like: bool) -> None:
        for frame in self.stack[:2]:
            if frame[2] == "top":
                frame[2] = "sets" if set_like else "tasks"
                if frame[2] == "tasks" and frame[1] > MAX_TASKS:
                    raise _too_many_tasks(None, None)

    def start(self, is_map: bool, line: int | None, flat: str | None = None) -> None:
        """A list or object starts; ``flat`` is its whole text when it holds no collection."""
        parent = self._count(line)
        key = self.key if parent is not None and parent[0] and parent[3] is False else None
        probe = False
        if parent is not None:
            if parent[4] and not parent[0]:  # the top list's first item is a list holding a collection
                parent[4] = False
                self._decide(True)
            elif parent[2] == "top" and parent[1] == 1:  # the top list's first item
                if flat is None:
                    probe = True
                else:  # [] is a set, [scalars] a task; an object is a set if it has "tasks"
                    self._decide(flat.strip("[] \t\r\n") == "" if not is_map else '"tasks"' in flat)
        if flat is not None:
            return
        role = "inner"
        if parent is None and not is_map:
            role = "top"
        elif parent is not None and len(self.stack) == 1 and parent[0] and key == "tasksets":
            role = "top"
        self.stack.append([is_map, 0, role, False, probe])

    def scalar(self, text: str, line: int | None) -> None:
        frame = self._count(line)
        if frame is None:
            return
        if frame[0]:
            if frame[3]:  # a key
                self.key = text
                if frame[4] and text == "tasks":  # the top list's first item: an object with tasks
                    frame[4] = False
                    self._decide(True)
        elif frame[4]:  # the top list's first item is a list holding a scalar: a task
            frame[4] = False
            self._decide(False)
        elif frame[2] == "top" and frame[1] == 1:  # a scalar first item: a task
            self._decide(False)

    def end(self) -> None:
        if self.stack:
            frame = self.stack.pop()
            if frame[4]:  # an empty list (a set), or an object without tasks (a task)
                self._decide(not frame[0])


#: A JSON token: a string, a collection holding no collection (one token: a task), a bracket, a bare word.
_JSON_SCAN = re.compile(
    r'"(?:[^"\\]|\\.)*"'
    r'|\[(?:[^\[\]{}"]|"(?:[^"\\]|\\.)*")*\]'
    r'|\{(?:[^\[\]{}"]|"(?:[^"\\]|\\.)*")*\}'
    r"|[\[\]{}]"
    r'|[^\s\[\]{},:"]+'
    r'|"'
)


def _json_key(token: str) -> str:
    """The text of a JSON string token (decoded if it has escapes and they are valid)."""
    if token[0] == '"' and "\\" in token:
        try:
            return str(json.loads(token))
        except ValueError:
            pass
    return token.strip('"')


def _count_json(stream: Any) -> None:
    """The document counter (:class:`_Shape`) over JSON text read in pieces from ``stream``."""
    shape = _Shape()
    carry, line = "", 1
    while True:
        piece = stream.read(_CHUNK_BYTES)
        final = not piece
        text = carry + piece
        if not text:
            return
        pos = len(text)
        match = None
        try:
            for match in _JSON_SCAN.finditer(text):
                token = match.group()
                if not final and (token == '"' or match.end() == len(text)):  # may go on in the next piece
                    pos = match.start()
                    break
                first = token[0]
                if first in "[{":
                    shape.start(first == "{", None, token if len(token) > 1 else None)
                elif first in "]}":
                    shape.end()
                elif token != '"':
                    shape.scalar(_json_key(token), None)
        except InputError as err:  # the line is counted only now: for every token it would cost more than the rest
            raise err.located(line=line + text.count("\n", 0, match.start() if match else 0)) from None
        line += text.count("\n", 0, pos)
        carry = text[pos:]
        if final:
            return


def _count_yaml(stream: Any) -> None:
    """The document counter (:class:`_Shape`) over YAML events, parsed from the stream in pieces
    (by libyaml when PyYAML has it)."""
    shape = _Shape()
    loader = getattr(yaml, "CSafeLoader", None) or yaml.SafeLoader
    for event in yaml.parse(stream, Loader=loader):
        if isinstance(event, yaml.ScalarEvent | yaml.AliasEvent):
            shape.scalar(getattr(event, "value", ""), event.start_mark.line + 1)
        elif isinstance(event, yaml.SequenceStartEvent | yaml.MappingStartEvent):
            shape.start(isinstance(event, yaml.MappingStartEvent), event.start_mark.line + 1)
        elif isinstance(event, yaml.SequenceEndEvent | yaml.MappingEndEvent):
            shape.end()


def _count_txt(lines: Iterable[str]) -> None:
    """Refuse a txt task set with more than MAX_TASKS tasks at its first task too many."""
    count, set_index = 0, 0
    for number, line in enumerate(lines, 1):
        content = line.split("#", 1)[0].strip()
        if content == "---":
            count, set_index = 0, set_index + 1
            if set_index >= MAX_SETS:
                raise _too_many_sets(number + 1)
        elif content:
            count += 1
            if count > MAX_TASKS:
                raise _too_many_tasks(number, set_index if set_index else None)


def _count_csv(lines: Iterable[str]) -> None:
    """The same for CSV: rows per value of the ``set`` column (or per file without one)."""
    reader = csv.reader(lines)
    set_column: int | None = -1  # -1: header not seen yet
    counts: dict[object, int] = {}
    for cells in reader:
        if not any(c.strip() for c in cells):
            continue
        if set_column == -1:
            names = [c.strip().lstrip("\ufeff").lower() for c in cells]
            set_column = names.index("set") if "set" in names else None
            continue
        key: object = None
        if set_column is not None and set_column < len(cells):
            text = cells[set_column].strip()
            number = _set_number(text)
            key = text if number is None else number
        counts[key] = counts.get(key, 0) + 1
        if len(counts) > MAX_SETS:
            raise _too_many_sets(reader.line_num)
        if counts[key] > MAX_TASKS:
            raise _too_many_tasks(reader.line_num, list(counts).index(key) if set_column is not None else None)


_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
#: Fewest characters a JSON line holding MAX_TASKS + 1 tasks can have ("[1,1,1]," per task).
_JSONL_MIN_CHARS = 8 * (MAX_TASKS + 1) - 1


def _count_jsonl(lines: Iterable[str]) -> None:
    """The same for JSON lines: each task is one JSON array or object, and a set adds at most two
    (``{"tasks": [...]}``), so a line with more than MAX_TASKS + 2 of them (outside strings) holds
    too many tasks or is invalid. Only long lines are counted."""
    set_index = -1
    for number, line in enumerate(lines, 1):
        set_index += bool(line.strip())
        if set_index >= MAX_SETS:
            raise _too_many_sets(number)
        if len(line) < _JSONL_MIN_CHARS:
            continue
        bare = _JSON_STRING.sub("", line)
        if bare.count("[") + bare.count("{") > MAX_TASKS + 2:
            raise _too_many_tasks(number, set_index)


_COUNTERS: dict[str, Callable[[Any], None]] = {
    "txt": _count_txt,
    "csv": _count_csv,
    "jsonl": _count_jsonl,
    "json": _count_json,
    "yaml": _count_yaml,
}


def read_text(
    path: str | os.PathLike[str], source: str, format: str | None = None, max_bytes: int = MAX_FILE_BYTES
) -> str:
    """Read a file (or standard input when ``source`` is ``"<stdin>"``) as UTF-8 text, streaming.

    The input is read in chunks and refused with an :class:`InputError` as soon as it passes
    ``max_bytes`` (a regular file at once, from its size). For every format given as ``format``
    the tasks of each set and the sets of the file are counted while reading, and a set with more
    than :data:`rtsched.model.MAX_TASKS` tasks or a file with more than :data:`MAX_SETS` sets is
    refused at its first item too many, naming the line. So an oversized input costs neither the
    time nor the memory of parsing it.
    """
    try:
        if source == "<stdin>":
            stream = getattr(sys.stdin, "buffer", None) or sys.stdin
            data = _read_limited(stream, source, format, max_bytes)
        else:
            with open(path, "rb") as f:
                if stat.S_ISREG(os.fstat(f.fileno()).st_mode) and os.fstat(f.fileno()).st_size > max_bytes:
                    raise _too_large(source, max_bytes)
                data = _read_limited(f, source, format, max_bytes)
        return data.decode("utf-8").removeprefix("\ufeff")
    except InputError as err:
        raise err.located(file=source) from None
    except UnicodeDecodeError as err:
        line = err.object.count(b"\n", 0, err.start) + 1
        raise InputError(
            f"the file is not UTF-8 text (byte {err.object[err.start]:#04x} at offset {err.start})",
            file=source,
            line=line,
        ) from None
    except OSError as err:
        raise InputError(f"cannot read the file: {err.strerror or err}", file=source) from None


def _read_limited(stream: Any, source: str, format: str | None, max_bytes: int) -> bytes:
    raw = _LimitedReader(stream, source, max_bytes)
    counter = _COUNTERS.get(_EXTENSIONS.get(str(format).lower(), "")) if format else None
    if counter is not None:
        text = io.TextIOWrapper(
            io.BufferedReader(raw, _CHUNK_BYTES), encoding="utf-8-sig", newline="" if counter is _count_csv else "\n"
        )
        try:
            counter(text)
        except (UnicodeDecodeError, csv.Error, yaml.YAMLError, RecursionError):
            pass  # the parser reports these with their position
        raw.drain()
        text.detach()
    else:
        raw.drain()
    return b"".join(raw.parts)


def read_tasksets(
    path: str | os.PathLike[str],
    *,
    format: str | None = None,
    deadlines: DeadlineModel = "constrained",
    time_unit: Any = None,
) -> list[TaskSet]:
    """Read the task sets of a file.

    Parameters
    ----------
    path:
        The file, or ``"-"`` for standard input (then ``format`` is required).
    format:
        One of :data:`FORMATS`; by default told from the extension (:func:`detect_format`).
    deadlines, time_unit:
        As for :func:`loads`.

    Returns
    -------
    list of TaskSet

    Raises
    ------
    InputError
        If the file cannot be read or is malformed; the message says where. Also, while
        reading and before parsing, if the file is larger than :data:`MAX_FILE_BYTES` (64 MiB),
        holds more than :data:`MAX_SETS` (1,048,576) task sets, or a task set has more than
        :data:`rtsched.model.MAX_TASKS` (65,536) tasks.
    """
    stdin = isinstance(path, str) and path == "-"
    source = "<stdin>" if stdin else os.fsdecode(path)
    fmt = _check_format(format) if format else detect_format(path)
    return loads(read_text(path, source, fmt), fmt, source=source, deadlines=deadlines, time_unit=time_unit)


def read_taskset(path: str | os.PathLike[str], **kw: Any) -> TaskSet:
    """Read a file that holds exactly one task set.

    Parameters
    ----------
    path:
        As for :func:`read_tasksets`.
    **kw:
        ``format``, ``deadlines`` and ``time_unit``, as for :func:`read_tasksets`.

    Returns
    -------
    TaskSet

    Raises
    ------
    InputError
        If the file is malformed or holds more than one task set.
    """
    sets = read_tasksets(path, **kw)
    if len(sets) != 1:
        source = "<stdin>" if path == "-" else os.fsdecode(path)
        raise InputError(f"expected one task set, found {len(sets)}", file=source)
    return sets[0]


def dumps(tasksets: TaskSet | Sequence[TaskSet], format: str) -> str:
    """Write task sets as text that :func:`loads` reads back to equal sets.

    Parameters
    ----------
    tasksets:
        One task set or a sequence of them.
    format:
        One of :data:`FORMATS`. ``csv`` and ``txt`` do not keep set names; ``txt`` cannot hold
        task names with whitespace or ``#``. The tasks are written in the set's order, which is
        their priority order; no ``priority`` field is written (see the module docstring).

    Returns
    -------
    str
        The document (deterministic for given sets).

    Raises
    ------
    InputError
        If there is no task set or a task name cannot be written in the format.
    """
    fmt = _check_format(format)
    sets = [tasksets] if isinstance(tasksets, TaskSet) else list(tasksets)
    if not sets:
        raise InputError("no task sets to write")
    if not all(isinstance(ts, TaskSet) for ts in sets):
        raise TypeError("dumps() takes a TaskSet or a sequence of TaskSet")
    return _WRITERS[fmt](sets)


def write_tasksets(
    path: str | os.PathLike[str],
    tasksets: TaskSet | Sequence[TaskSet],
    *,
    format: str | None = None,
) -> None:
    """Write task sets to a file atomically (a temporary file in the same folder, then a rename).

    Parameters
    ----------
    path:
        The file, or ``"-"`` for standard output (then ``format`` is required).
    tasksets:
        One task set or a sequence of them.
    format:
        One of :data:`FORMATS`; by default told from the extension.

    Raises
    ------
    InputError
        If the format is unknown, a name cannot be written, or the file cannot be written.
    """
    stdout = isinstance(path, str) and path == "-"
    fmt = _check_format(format) if format else detect_format(path)
    text = dumps(tasksets, fmt)
    if stdout:
        sys.stdout.write(text)
        return
    target = os.fsdecode(path)
    tmp = None
    try:
        try:
            mode = stat.S_IMODE(os.stat(target).st_mode)
        except FileNotFoundError:
            mode = 0o644
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(target)), prefix=".rtsched-", suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except OSError as err:
        raise InputError(f"cannot write the file: {err.strerror or err}", file=target) from None
    finally:
        if tmp is not None and os.path.exists(tmp):
            os.unlink(tmp)
