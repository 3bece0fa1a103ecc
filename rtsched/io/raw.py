"""Task sets as written (values as text, with their lines) and how they become :class:`~rtsched.TaskSet` s.

Every format's parser (:mod:`rtsched.io.documents`, :mod:`rtsched.io.lines`,
:mod:`rtsched.io.xml_formats`) produces :class:`RawSet` s; :func:`build_tasksets` turns them into
task sets, giving every error the line, set, task and field of the offending value, and orders
tasks that carry a ``priority`` by it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from rtsched.errors import InputError
from rtsched.io import stream
from rtsched.io.numbers import Scalar, scalar_to_int, scalar_to_priority
from rtsched.io.stream import too_many_sets
from rtsched.model import FIELDS, DeadlineModel, TaskSet

# For the parsers and rtsched.io.tasksets (not re-exported by rtsched.io).
__all__ = ["RawSet", "RawTask", "build_tasksets", "flat_task"]


_NO_TASKS = "found no tasks in the file"


class RawTask(NamedTuple):
    """A task as written: its values as text, its name and the lines of its values."""

    values: tuple[Scalar, ...]  # C, D, T as written
    name: str | None
    line: int | None
    lines: tuple[int | None, ...]  # line of C, D, T
    priority: Scalar | None = None  # as written; None: the task has no priority
    priority_line: int | None = None

    def line_of(self, field: str | None) -> int | None:
        """The line of ``field``'s value (``C``, ``D``, ``T`` or ``priority``), else the task's."""
        if field == "priority":
            line = self.priority_line
        else:
            line = self.lines[FIELDS.index(field)] if field in FIELDS else None
        return self.line if line is None else line


class RawSet(NamedTuple):
    """A task set as written: its tasks, its name and its line."""

    tasks: list[RawTask]
    name: str | None
    line: int | None


def _task_index(task: int | str | None) -> int | None:
    return None if task is None else int(str(task).split()[0])


def _priority_order(raw: RawSet) -> list[int] | None:
    """The file positions of the tasks of ``raw``, highest priority (smallest value) first.

    None when no task has a priority. Mixing tasks with and without one, and ties, are input errors.
    """
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
            value = scalar_to_priority(task.priority)  # type: ignore[arg-type]
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


def _make_taskset(raw: RawSet, deadlines: DeadlineModel, unit: str | None) -> TaskSet:
    """Build a TaskSet from written values; every error gets the line of the offending value.

    With priorities, the set is built (and its errors named) in file order, then reordered
    highest priority first.
    """
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
        bad = _task_index(err.task)
        raise err.located(line=raw.line if bad is None else raw.tasks[bad].line_of(err.field)) from None
    if order is None or order == sorted(order):
        return ts
    return ts.subset(order)


def flat_task(cells: Sequence[str], name: str | None, line: int, priority: str | None = None) -> RawTask:
    """A task of a line-based format (CSV, txt): all values on one line.

    An empty or missing priority cell means no priority.
    """
    prio = Scalar("str", priority) if priority is not None and priority.strip() else None
    return RawTask(tuple(Scalar("str", c) for c in cells), name or None, line, (line,) * 3, prio, line)


def build_tasksets(
    items: Sequence[Any], parse: Callable[[Any], RawSet], deadlines: DeadlineModel, unit: str | None
) -> list[TaskSet]:
    """Parse and build each task set, adding the set index to errors when there are several."""
    if not items:
        raise InputError(_NO_TASKS)
    if len(items) > stream.MAX_SETS:  # read now: one setting of the limit for every reader
        raise too_many_sets(None)
    out = []
    for s, item in enumerate(items):
        try:
            out.append(_make_taskset(parse(item), deadlines, unit))
        except InputError as err:
            raise err.located(set_index=s if len(items) > 1 else None) from None
    return out
