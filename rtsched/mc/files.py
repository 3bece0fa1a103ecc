"""Mixed-criticality task-set files: YAML, JSON and CSV of rtsched's own.

Formats (examples in papers/mc-model.md)
-----------------------------------------
``yaml`` (``.yaml``, ``.yml``) and ``json`` (``.json``)
    One task set, written as a list of tasks or as ``{name: optional, tasks: [...]}``, or several:
    ``{tasksets: [...]}`` or a list whose first element is an object with ``tasks``. A task is
    ``{name: optional, level: LO | HI, C_LO, C_HI, T, D: optional}``. ``C_HI`` is required for a
    HI task; a LO task may leave it out or repeat its ``C_LO`` (it has no HI budget: a different
    value is an error). ``D`` defaults to ``T``. ``level`` is ``LO`` or ``HI`` in any case.
``csv`` (``.csv``)
    A header naming the columns ``level``, ``C_LO``, ``T`` and optionally ``C_HI``, ``D``,
    ``name`` and ``set`` (any order, any case), then one task per row. An empty ``C_HI`` cell
    (a LO task) or ``D`` cell (``D = T``) is as if the column were absent. Rows with the same
    integer ``set`` value form one task set, in order of first appearance.

``D > T`` is refused unless the reader is given ``deadlines="arbitrary"`` (every analysis of
issue #44 needs constrained deadlines).

The tasks' order is their fixed priority, first = highest; the writers keep it and always write
``D`` (and ``C_HI`` for HI tasks only). Values follow the number rule of :mod:`rtsched.io`
(integers written with the digits 0-9), and every error is one
:class:`~rtsched.errors.InputError` naming the file, the line, the task set (when the file holds
several), the task (its index in the set, and its name) and the field, e.g.
``tasks.yaml, line 7, task 1 (b), field C_HI: C_HI 3 < C_LO 5 (...)``.
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Iterable
from typing import Any

from rtsched.errors import InputError
from rtsched.io import (
    Node,
    Scalar,
    check_keys,
    describe_node,
    node_text,
    node_to_int,
    read_text,
    scalar_to_int,
)
from rtsched.io.lines import csv_columns, csv_group, csv_rows
from rtsched.io.numbers import clip
from rtsched.io.workload_files import (
    check_format,
    dump_sets,
    in_source,
    read_sets,
    sets_to_write,
    source_and_format,
    task_label,
    write_document,
    write_target,
)
from rtsched.mc.model import LEVELS, MCTask, MCTaskSet
from rtsched.model import DeadlineModel, check_model

__all__ = ["MC_FORMATS", "dumps_mc", "loads_mc", "read_mc_tasksets", "write_mc_tasksets"]

#: The formats :func:`~rtsched.mc.loads_mc` and :func:`~rtsched.mc.dumps_mc` understand.
MC_FORMATS = ("yaml", "json", "csv")
_EXTENSIONS = {"yaml": "yaml", "yml": "yaml", "json": "json", "csv": "csv"}
#: The keys of a task object, in the order they are written.
_TASK_KEYS = ("name", "level", "C_LO", "C_HI", "T", "D")
_REQUIRED = ("level", "C_LO", "T")
#: CSV header cells (lower case) and the column each one names.
_CSV_COLUMNS = {"name": "name", "level": "level", "c_lo": "C_LO", "c_hi": "C_HI", "t": "T", "d": "D", "set": "set"}


def _check_format(format: str) -> str:
    return check_format(format, _EXTENSIONS, "mixed-criticality", MC_FORMATS)


def _level_text(text: str, **where: Any) -> int:
    key = text.strip().upper()
    if key not in LEVELS:
        raise InputError(
            f"unknown criticality level {clip(text)!r} (one of {', '.join(LEVELS)})", field="level", **where
        )
    return LEVELS.index(key)


def _build(
    values: dict[str, Any],
    lines: dict[str, int | None],
    line: int | None,
    i: int,
    name: str | None,
    deadlines: DeadlineModel,
) -> MCTask:
    """The task of the read ``values`` (level index, ints; ``C_HI``/``D`` may be absent), errors at the field's line."""
    label = task_label(i, name)
    level = values["level"]
    wcets = (values["C_LO"],) if values.get("C_HI") is None else (values["C_LO"], values["C_HI"])
    T = values["T"]
    D = values.get("D")
    try:
        task = MCTask(wcets, T, T if D is None else D, level, name)
    except InputError as err:
        where = lines.get(err.field or "") or line
        raise type(err)(err.message, line=where, task=label, field=err.field) from None
    if deadlines == "constrained" and task.D > task.T:
        raise InputError(
            f"D = {task.D} exceeds T = {task.T}, which the constrained-deadline model forbids "
            "(the analyses of mixed-criticality sets need D <= T; deadlines='arbitrary' reads it)",
            line=lines.get("D") or line,
            task=label,
            field="D",
        )
    if deadlines == "implicit" and task.D != task.T:
        raise InputError(
            f"D = {task.D} differs from T = {task.T} under the implicit-deadline model",
            line=lines.get("D") or line,
            task=label,
            field="D",
        )
    return task


def _ticks(text: str, **where: Any) -> int:
    """A written integer number of ticks (the number rule of :mod:`rtsched.io`), or an InputError."""
    try:
        value = scalar_to_int(Scalar("num", text.strip()), None)
    except InputError as err:
        message = err.message
        if "time unit" in message:  # mixed-criticality files take no time unit
            message = f"{clip(text.strip())} is not an integer number of ticks"
        raise InputError(message).located(**where) from None
    assert isinstance(value, int)
    return value


# -- YAML and JSON --------------------------------------------------------------------------------


def _set_from_node(node: Node, deadlines: DeadlineModel) -> MCTaskSet:
    value, name = node.value, None
    if isinstance(value, dict):
        check_keys(node, ["name", "tasks"], ["tasks"])
        name = node_text(value.get("name"))
        tasks = value["tasks"]
        if not isinstance(tasks.value, list):
            raise InputError(f"'tasks' must be a list, got {describe_node(tasks)}", line=tasks.line, field="tasks")
        items, line = tasks.value, tasks.line
    elif isinstance(value, list):
        items, line = value, node.line
    else:
        raise InputError(
            f"expected a mixed-criticality task set, a list of tasks or {{name: .., tasks: [...]}}, got {describe_node(node)}",
            line=node.line,
        )
    if not items:
        raise InputError("a mixed-criticality task set needs at least one task", line=line, field="tasks")
    return MCTaskSet([_task_from_node(t, i, deadlines) for i, t in enumerate(items)], name=name)


def _task_from_node(node: Node, i: int, deadlines: DeadlineModel) -> MCTask:
    if not isinstance(node.value, dict):
        raise InputError(
            f"expected a task {{level: LO | HI, C_LO: .., C_HI: .., T: .., D: ..}}, got {describe_node(node)}",
            line=node.line,
            task=i,
        )
    v: dict[str, Node] = node.value
    name = node_text(v.get("name"), task=i)
    label = task_label(i, name)
    check_keys(node, _TASK_KEYS, _REQUIRED, task=label)
    values: dict[str, Any] = {}
    lines: dict[str, int | None] = {}
    for key in _TASK_KEYS[1:]:
        child = v.get(key)
        if child is None or (key in ("C_HI", "D") and isinstance(child.value, Scalar) and child.value.kind == "null"):
            continue
        lines[key] = child.line
        if key == "level":
            if not isinstance(child.value, Scalar) or child.value.kind not in ("str", "num"):
                raise InputError(
                    f"a level must be LO or HI, got {describe_node(child)}", line=child.line, task=label, field="level"
                )
            values[key] = _level_text(child.value.text, line=child.line, task=label)
        elif isinstance(child.value, Scalar) and child.value.kind == "num":
            values[key] = _ticks(child.value.text, line=child.line, task=label, field=key)
        else:
            values[key] = node_to_int(child, "", task=label, field=key)
    return _build(values, lines, node.line, i, name, deadlines)


def _read_document(text: str, fmt: str, deadlines: DeadlineModel) -> list[MCTaskSet]:
    return read_sets(text, fmt, lambda node: _set_from_node(node, deadlines))


def _task_doc(task: MCTask) -> dict[str, Any]:
    doc: dict[str, Any] = {} if task.name is None else {"name": task.name}
    doc["level"] = task.criticality
    doc["C_LO"] = task.C_lo
    if task.is_hi:
        doc["C_HI"] = task.C_hi
    doc["T"], doc["D"] = task.T, task.D
    return doc


def _set_doc(ts: MCTaskSet) -> dict[str, Any]:
    return ({} if ts.name is None else {"name": ts.name}) | {"tasks": [_task_doc(t) for t in ts]}


# -- CSV ------------------------------------------------------------------------------------------


def _read_csv(text: str, deadlines: DeadlineModel) -> list[MCTaskSet]:
    rows = csv_rows(text)
    if not rows:
        raise InputError("the file is empty")
    head_line, header = rows[0]
    cols = csv_columns(
        head_line, header, _CSV_COLUMNS, "name,level,C_LO,C_HI,T,D[,set]", _REQUIRED, "level, C_LO and T"
    )
    groups: dict[int, tuple[list[MCTask], int]] = {}
    for line, cells in rows[1:]:
        tasks, s = groups.setdefault(csv_group(cells, header, cols, line), ([], len(groups)))
        where: dict[str, Any] = {"line": line, "set_index": s if "set" in cols else None}
        i = len(tasks)
        name = cells[cols["name"]] if "name" in cols and cells[cols["name"]] != "" else None
        label = task_label(i, name)
        values: dict[str, Any] = {"level": _level_text(cells[cols["level"]], task=label, **where)}
        for key in ("C_LO", "C_HI", "T", "D"):
            if key not in cols or (key in ("C_HI", "D") and not cells[cols[key]].strip()):
                continue
            values[key] = _ticks(cells[cols[key]], task=label, field=key, **where)
        try:
            tasks.append(_build(values, {}, line, i, name, deadlines))
        except InputError as err:
            raise err.located(**where) from None
    return [MCTaskSet(tasks) for tasks, _ in groups.values()]


def _dump_csv(sets: list[MCTaskSet]) -> str:
    named = any(ts.names is not None for ts in sets)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    many = len(sets) > 1
    writer.writerow([*(["name"] if named else []), "level", "C_LO", "C_HI", "T", "D", *(["set"] if many else [])])
    for s, ts in enumerate(sets):
        for task in ts:
            if named and task.name == "":
                raise InputError("an empty task name cannot be written in CSV (it reads back as no name)", set_index=s)
            writer.writerow(
                [
                    *([task.name or ""] if named else []),
                    task.criticality,
                    task.C_lo,
                    task.C_hi if task.is_hi else "",
                    task.T,
                    task.D,
                    *([s] if many else []),
                ]
            )
    return out.getvalue()


# -- public functions -----------------------------------------------------------------------------


def loads_mc(
    text: str, format: str = "yaml", *, source: str = "<string>", deadlines: str = "constrained"
) -> list[MCTaskSet]:
    """Parse mixed-criticality task sets from text.

    Parameters
    ----------
    text:
        The document.
    format:
        ``"yaml"``, ``"json"`` or ``"csv"`` (or an extension such as ``"yml"``).
    source:
        The name errors give as the file.
    deadlines:
        ``"constrained"`` (the default: ``D > T`` is an error, as every analysis of issue #44
        needs ``D <= T``), ``"implicit"`` (``D = T`` required) or ``"arbitrary"`` (any ``D``).

    Returns
    -------
    list of MCTaskSet
        The sets, in the order of the document.

    Raises
    ------
    InputError
        One line naming the source, line, task set (when there are several), task and field of
        the first problem.
    """

    def parse() -> list[MCTaskSet]:
        fmt = _check_format(format)
        model = check_model(deadlines)
        if not text.strip():
            raise InputError("the file is empty")
        return _read_csv(text, model) if fmt == "csv" else _read_document(text, fmt, model)

    return in_source(source, parse)


def dumps_mc(sets: MCTaskSet | Iterable[MCTaskSet], format: str = "yaml") -> str:
    """Write mixed-criticality task sets as text that :func:`~rtsched.mc.loads_mc` reads back to equal sets.

    Parameters
    ----------
    sets:
        One :class:`MCTaskSet` or several.
    format:
        As for :func:`~rtsched.mc.loads_mc`. CSV does not keep the sets' names.

    Returns
    -------
    str
        The document.
    """
    items = sets_to_write(sets, MCTaskSet)
    fmt = _check_format(format)
    if fmt == "csv":
        return _dump_csv(items)
    return dump_sets(items, _set_doc, fmt)


def _format_of(path: str | os.PathLike[str], format: str | None) -> tuple[str, str]:
    return source_and_format(
        path, format, _check_format, _EXTENSIONS, "mixed-criticality task sets are .yaml, .yml, .json or .csv files"
    )


def read_mc_tasksets(
    path: str | os.PathLike[str], format: str | None = None, *, deadlines: str = "constrained"
) -> list[MCTaskSet]:
    """Read the mixed-criticality task sets of a file.

    Parameters
    ----------
    path:
        The file; ``"-"`` is standard input (then give ``format``).
    format:
        One of :data:`MC_FORMATS`; by default told by the extension (``.yaml``, ``.yml``,
        ``.json``, ``.csv``).
    deadlines:
        As for :func:`~rtsched.mc.loads_mc` (default ``"constrained"``).

    Returns
    -------
    list of MCTaskSet
        The sets of the file.

    Raises
    ------
    InputError
        One line naming the file, line, task set, task and field.
    """
    source, fmt = _format_of(path, format)
    return loads_mc(read_text(path, source), fmt, source=source, deadlines=deadlines)


def write_mc_tasksets(
    sets: MCTaskSet | Iterable[MCTaskSet] | str | os.PathLike[str],
    path: str | os.PathLike[str] | MCTaskSet | Iterable[MCTaskSet],
    format: str | None = None,
) -> None:
    """Write mixed-criticality task sets to a file (format as for :func:`read_mc_tasksets`).

    Parameters
    ----------
    sets:
        One :class:`MCTaskSet` or several.
    path:
        The file, replaced if it exists. The order ``(path, sets)`` of
        :func:`rtsched.dag.write_dag_tasksets` is accepted too.
    format:
        One of :data:`MC_FORMATS`; by default told by the extension.

    Raises
    ------
    InputError
        As :func:`~rtsched.mc.dumps_mc`, naming the file.
    """
    path, sets = write_target(sets, path)
    source, fmt = _format_of(path, format)
    write_document(path, source, lambda: dumps_mc(sets, fmt))  # type: ignore[arg-type]
