"""The plumbing of the readers and writers of the workload kinds' own files (DAG, mixed criticality, segmented).

Each kind (:mod:`rtsched.dag.files`, :mod:`rtsched.mc.files`, :mod:`rtsched.segmented.files`;
:mod:`rtsched.gpu.files` for the parsing and the file's name in errors) keeps its schema and its messages;
what they do alike is here once: telling the format from a name or an extension, parsing a YAML or
JSON document into line-keeping :class:`~rtsched.io.documents.Node` s, finding and reading the task
sets of a document, checking and dumping the sets to write, naming the file in every error, and
writing a file.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypeVar

import yaml

from rtsched.errors import InputError
from rtsched.io.documents import LineLoader, Node, check_keys, describe_node, node_from_json, node_from_yaml, yaml_error

__all__ = [
    "check_format",
    "doc_sets",
    "dump_sets",
    "in_source",
    "parse_document",
    "read_sets",
    "sets_to_write",
    "source_and_format",
    "task_label",
    "write_document",
    "write_target",
]

_T = TypeVar("_T")


def check_format(format: str, extensions: Mapping[str, str], what: str, formats: Sequence[str]) -> str:
    """The format ``format`` names (a format or an extension such as ``"yml"``), or an InputError.

    ``what`` names the kind in the error (``"unknown DAG format 'x'; choose one of ..."``).
    """
    fmt = extensions.get(str(format).lower().lstrip("."))
    if fmt is None:
        raise InputError(f"unknown {what} format {format!r}; choose one of {', '.join(formats)}")
    return fmt


def source_and_format(
    path: str | os.PathLike[str],
    format: str | None,
    check: Callable[[str], str],
    by_extension: Mapping[str, str],
    cannot_tell: str,
) -> tuple[str, str]:
    """The name errors give for ``path`` (``<stdin>`` for ``-``) and its format.

    The format is ``check(format)`` when given, else the one ``by_extension`` gives the file's
    extension; an extension it lacks is the InputError ``cannot tell the format: {cannot_tell}``.
    """
    name = os.fsdecode(path)
    source = "<stdin>" if name == "-" else name
    if format is not None:
        try:
            return source, check(format)
        except InputError as err:
            raise err.located(file=source) from None
    ext = os.path.splitext(name)[1].lstrip(".").lower()
    if ext not in by_extension:
        raise InputError(f"cannot tell the format: {cannot_tell}", file=source)
    return source, by_extension[ext]


def task_label(i: int, name: str | None) -> int | str:
    """How an error names task ``i``: its index, and its name when it has one (``3 (camera)``)."""
    return i if name is None else f"{i} ({name})"


def parse_document(text: str, fmt: str) -> Node:
    """The root node of a JSON (``fmt == "json"``) or else YAML document; an empty YAML one is an error."""
    if fmt == "json":
        return node_from_json(text)
    try:
        composed = yaml.compose(text, Loader=LineLoader)
    except yaml.YAMLError as err:
        raise yaml_error(err, text) from None
    if composed is None:
        raise InputError("the file is empty")
    return node_from_yaml(composed)


def doc_sets(root: Node, *, none_is_error: bool = False) -> tuple[list[Node], bool]:
    """The set nodes of a document and whether it holds several.

    Several sets are ``{tasksets: [...]}`` or a list whose first item is an object with ``tasks``;
    anything else is one set. ``none_is_error``: ``tasksets: []`` is an error, not no set.
    """
    value = root.value
    if isinstance(value, dict) and "tasksets" in value:
        check_keys(root, ["tasksets"], [])
        sets = value["tasksets"]
        if not isinstance(sets.value, list):
            raise InputError(f"'tasksets' must be a list, got {describe_node(sets)}", line=sets.line, field="tasksets")
        if none_is_error and not sets.value:
            raise InputError("'tasksets' holds no task set", line=sets.line, field="tasksets")
        return sets.value, True
    if isinstance(value, list) and value and isinstance(value[0].value, dict) and "tasks" in value[0].value:
        return value, True
    return [root], False


def read_sets(text: str, fmt: str, read_set: Callable[[Node], _T]) -> list[_T]:
    """The sets of a YAML or JSON document, ``read_set`` of each set node (``tasksets: []`` is an error).

    An error in one of several sets names the set's index.
    """
    nodes, many = doc_sets(parse_document(text, fmt), none_is_error=True)
    out = []
    for s, node in enumerate(nodes):
        try:
            out.append(read_set(node))
        except InputError as err:
            raise err.located(set_index=s) if many else err from None
    return out


def sets_to_write(sets: _T | Iterable[_T], cls: type[_T]) -> list[_T]:
    """The sets to write: ``sets`` as a list, at least one, each a ``cls`` (else an InputError)."""
    items: list[Any] = [sets] if isinstance(sets, cls) else list(sets)  # type: ignore[arg-type]
    if not items:
        raise InputError("no task set to write")
    for s, ts in enumerate(items):
        if not isinstance(ts, cls):
            raise InputError(f"expected {cls.__name__} objects, got {type(ts).__name__}", set_index=s)
    return items


def dump_sets(items: Sequence[_T], set_doc: Callable[[_T], dict[str, Any]], fmt: str) -> str:
    """The JSON (``fmt == "json"``) or else YAML document of ``items``: one set's object, or ``{tasksets: [...]}``."""
    doc: Any = {"tasksets": [set_doc(ts) for ts in items]} if len(items) != 1 else set_doc(items[0])
    if fmt == "json":
        return json.dumps(doc, indent=1, ensure_ascii=False) + "\n"
    return yaml.safe_dump(doc, sort_keys=False, default_flow_style=None, allow_unicode=True, width=2**31 - 1)


def write_target(sets: Any, path: Any) -> tuple[str | os.PathLike[str], Any]:
    """``(path, sets)`` of a writer called as ``(sets, path)`` or ``(path, sets)``; no path is an InputError."""
    if isinstance(sets, str | os.PathLike):
        sets, path = path, sets
    if not isinstance(path, str | os.PathLike):
        raise InputError(f"expected a file path, got {type(path).__name__}")
    return path, sets


def in_source(source: str, parse: Callable[[], _T]) -> _T:
    """``parse()``, with ``source`` named as the file of any InputError (a too deep nesting is one)."""
    try:
        return parse()
    except InputError as err:
        raise err.located(file=source) from None
    except RecursionError:
        raise InputError("the document is nested too deeply", file=source) from None


def write_document(path: str | os.PathLike[str], source: str, dump: Callable[[], str]) -> None:
    """Write the text ``dump()`` makes to ``path`` (UTF-8, LF line ends); its errors name ``source``."""
    try:
        text = dump()
    except InputError as err:
        raise err.located(file=source) from None
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)
