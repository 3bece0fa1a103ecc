"""Reading and writing task sets.

:func:`~rtsched.io.loads`, :func:`~rtsched.io.read_tasksets`, :func:`~rtsched.io.read_taskset`, :func:`~rtsched.io.dumps` and
:func:`~rtsched.io.write_tasksets`; the formats and rules are in the package docstring (:mod:`rtsched.io`).
"""

from __future__ import annotations

import os
import stat
import sys
import tempfile
from collections.abc import Sequence
from typing import Any

from rtsched.errors import InputError
from rtsched.io.documents import (
    dump_json,
    dump_jsonl,
    dump_yaml,
    parse_json,
    parse_json_with_lines,
    parse_jsonl,
    parse_yaml,
)
from rtsched.io.fast import fast_loads
from rtsched.io.lines import dump_csv, dump_txt, parse_csv, parse_txt
from rtsched.io.numbers import parse_unit
from rtsched.io.raw import build_tasksets
from rtsched.io.stream import check_format, detect_format, read_text
from rtsched.io.xml_formats import dump_schedcat, dump_simso, parse_schedcat, parse_simso
from rtsched.model import DeadlineModel, TaskSet, check_model

__all__ = ["dumps", "loads", "read_taskset", "read_tasksets", "write_tasksets"]


#: A JSON document is first read without line numbers (finding them means composing the text
#: as YAML, which is slow); only when it holds an error is it read again with them, if it is at
#: most this long. Above it the error names the task set, task and field but not the line.
_JSON_LINES_CHARS = 16 * 2**20
_PARSERS = {
    "yaml": parse_yaml,
    "json": parse_json,
    "jsonl": parse_jsonl,
    "csv": parse_csv,
    "txt": parse_txt,
    "simso": parse_simso,
    "schedcat": parse_schedcat,
}
_WRITERS = {
    "yaml": dump_yaml,
    "json": dump_json,
    "jsonl": dump_jsonl,
    "csv": dump_csv,
    "txt": dump_txt,
    "schedcat": dump_schedcat,
}


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
        One of :data:`FORMATS` or :data:`TOOL_FORMATS` (``"yml"`` and ``"ndjson"`` are accepted as
        aliases).
    source:
        Name of the document, used in error messages.
    deadlines:
        Deadline model passed to :class:`~rtsched.TaskSet` (``"constrained"``, ``"implicit"``
        or ``"arbitrary"``).
    time_unit:
        ``None``: every value must be a whole number of ticks (SimSo: of milliseconds). A positive
        number or numeric string ``u``: one tick is ``u`` file units; values are converted exactly.

    Returns
    -------
    list of TaskSet
        At least one task set, in file order; a set whose tasks carry ``priority`` fields is
        ordered by them, highest priority (smallest value) first.

    Raises
    ------
    InputError
        For any malformed input; the message names the source, line, task set, task and field.
        A task set may hold at most ``rtsched.model.MAX_TASKS`` = 65,536 tasks.
    """
    fmt = check_format(format)
    check_model(deadlines)
    unit = parse_unit(time_unit)
    text = text.removeprefix("\ufeff")  # as read_tasksets does
    try:
        if not text.strip():
            raise InputError("the file is empty")
        if fmt == "simso" and unit is None:
            return _simso_in_milliseconds(text, deadlines)
        if unit is None:
            fast = fast_loads(text, fmt, deadlines)  # None: outside its subset or wrong, read exactly below
            if fast is not None:
                return fast
        try:
            items, parse = _PARSERS[fmt](text)
            return build_tasksets(items, parse, deadlines, unit)
        except InputError:
            if fmt != "json" or len(text) > _JSON_LINES_CHARS:
                raise
            items, parse = parse_json_with_lines(text)  # again, to say on which line the error is
            return build_tasksets(items, parse, deadlines, unit)
    except InputError as err:
        raise err.located(file=source) from None
    except RecursionError:
        raise InputError("the document is nested too deeply", file=source) from None


def _simso_in_milliseconds(text: str, deadlines: DeadlineModel) -> list[TaskSet]:
    """Read a SimSo configuration with its default tick, one millisecond (SimSo's time unit)."""
    items, parse = parse_simso(text)
    try:
        return build_tasksets(items, parse, deadlines, "1")
    except InputError as err:
        if "not a whole number of ticks" not in err.message:
            raise
        value = err.message.split()[0]
        raise InputError(
            f"{value} ms is not a whole number of milliseconds, rtsched's default tick for SimSo; "
            "give a shorter tick in ms, e.g. --time-unit 0.001 (in Python: time_unit='0.001')",
            line=err.line,
            set_index=err.set_index,
            task=err.task,
            field=err.field,
        ) from None


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
        As for :func:`~rtsched.io.loads`.

    Returns
    -------
    list of TaskSet

    Raises
    ------
    InputError
        If the file cannot be read or is malformed; the message says where. Also, while
        reading and before parsing, if the file is larger than :data:`MAX_FILE_BYTES` (64 MiB),
        holds more than :data:`MAX_SETS` (1,048,576) task sets, or a task set has more than
        ``rtsched.model.MAX_TASKS`` (65,536) tasks.
    """
    stdin = isinstance(path, str) and path == "-"
    source = "<stdin>" if stdin else os.fsdecode(path)
    fmt = check_format(format) if format else detect_format(path)
    return loads(read_text(path, source, fmt), fmt, source=source, deadlines=deadlines, time_unit=time_unit)


def read_taskset(path: str | os.PathLike[str], **kw: Any) -> TaskSet:
    """Read a file that holds exactly one task set.

    Parameters
    ----------
    path:
        As for :func:`~rtsched.io.read_tasksets`.
    **kw:
        ``format``, ``deadlines`` and ``time_unit``, as for :func:`~rtsched.io.read_tasksets`.

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


def dumps(
    tasksets: TaskSet | Sequence[TaskSet], format: str, *, processors: int | None = None, policy: str | None = None
) -> str:
    """Write task sets as text that :func:`~rtsched.io.loads` reads back to equal sets.

    Parameters
    ----------
    tasksets:
        One task set or a sequence of them.
    format:
        One of :data:`FORMATS`. ``csv`` and ``txt`` do not keep set names; ``txt`` cannot hold
        task names with whitespace or ``#``. The tasks are written in the set's order, which is
        their priority order; no ``priority`` field is written (see the module docstring).
        ``simso`` writes one set; ``schedcat`` and ``simso`` keep no set names.
    processors, policy:
        Only for ``simso``: the number of processors (required) and the policy whose SimSo
        scheduler is written (``global-edf`` by default; see :mod:`rtsched.io.xml_formats`).

    Returns
    -------
    str
        The document (deterministic for given sets).

    Raises
    ------
    InputError
        If there is no task set or a task name cannot be written in the format.
    """
    fmt = check_format(format)
    sets = [tasksets] if isinstance(tasksets, TaskSet) else list(tasksets)
    if not sets:
        raise InputError("no task sets to write")
    if not all(isinstance(ts, TaskSet) for ts in sets):
        raise TypeError("dumps() takes a TaskSet or a sequence of TaskSet")
    if fmt == "simso":
        return dump_simso(sets, processors, policy)
    return _WRITERS[fmt](sets)


def write_tasksets(
    path: str | os.PathLike[str],
    tasksets: TaskSet | Sequence[TaskSet],
    *,
    format: str | None = None,
    processors: int | None = None,
    policy: str | None = None,
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
    processors, policy:
        As for :func:`~rtsched.io.dumps` (SimSo only).

    Raises
    ------
    InputError
        If the format is unknown, a name cannot be written, or the file cannot be written.
    """
    stdout = isinstance(path, str) and path == "-"
    fmt = check_format(format) if format else detect_format(path)
    text = dumps(tasksets, fmt, processors=processors, policy=policy)
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
