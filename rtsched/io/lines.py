"""Line-based formats, CSV and plain text: readers and writers.

CSV has a header naming the columns and one task per row; plain text has ``C D T [name]`` per line
and ``---`` between sets.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Sequence
from typing import Any

from rtsched.errors import InputError
from rtsched.io.numbers import clip, field_name, set_number
from rtsched.io.raw import RawSet, RawTask, flat_task
from rtsched.model import FIELDS, TaskSet

# The readers and writers, for rtsched.io.tasksets, and the CSV pieces rtsched.mc.files shares
# (not re-exported by rtsched.io).
__all__ = ["csv_columns", "csv_group", "csv_rows", "dump_csv", "dump_txt", "parse_csv", "parse_txt"]


_CSV_COLUMNS = {"c": "C", "d": "D", "t": "T", "name": "name", "priority": "priority", "set": "set"}


def csv_rows(text: str) -> list[tuple[int, list[str]]]:
    """The rows of a CSV document that have a non-blank cell, each with the line it starts on."""
    reader = csv.reader(io.StringIO(text, newline=""))
    rows, start = [], 1
    try:
        for cells in reader:
            if any(c.strip() for c in cells):
                rows.append((start, cells))
            start = reader.line_num + 1
    except csv.Error as err:
        raise InputError(f"invalid CSV: {err}", line=reader.line_num) from None
    return rows


def csv_columns(
    head_line: int, header: list[str], columns: dict[str, str], example: str, required: Sequence[str], named: str
) -> dict[str, int]:
    """The index of each column a CSV header names (``columns``: lower-case cell to column).

    An unknown or repeated column, or a missing ``required`` one, is an InputError at
    ``head_line``; ``example`` is a header the error shows, ``named`` says what it must name.
    """
    cols: dict[str, int] = {}
    for j, cell in enumerate(header):
        key = columns.get(cell.strip().lower())
        if key is None:
            raise InputError(
                f"unknown column {clip(cell.strip())!r}; the first row must be a header such as {example}",
                line=head_line,
                field=field_name(cell.strip()),
            )
        if key in cols:
            raise InputError(f"duplicate column {key}", line=head_line, field=key)
        cols[key] = j
    for field in required:
        if field not in cols:
            raise InputError(f"missing column {field} (the header must name {named})", line=head_line, field=field)
    return cols


def csv_group(cells: list[str], header: list[str], cols: dict[str, int], line: int) -> int:
    """The set number of a row (its ``set`` cell, 0 without that column); a row of the wrong length is an error."""
    if len(cells) != len(header):
        raise InputError(f"expected {len(header)} cells as in the header, got {len(cells)}", line=line)
    if "set" not in cols:
        return 0
    number = set_number(cells[cols["set"]])
    if number is None:
        raise InputError(f"{clip(cells[cols['set']])!r} is not an integer set number", line=line, field="set")
    return number


def parse_csv(text: str) -> tuple[list[Any], Callable[[Any], RawSet]]:
    """A CSV document's task sets (rows grouped by the ``set`` column) and their reader."""
    rows = csv_rows(text)
    if not rows:
        return [], _identity
    head_line, header = rows[0]
    cols = csv_columns(head_line, header, _CSV_COLUMNS, "C,D,T[,name][,priority][,set]", FIELDS, "C, D and T")
    groups: dict[int, RawSet] = {}
    for line, cells in rows[1:]:
        group = csv_group(cells, header, cols, line)
        name = cells[cols["name"]] if "name" in cols else None
        priority = cells[cols["priority"]] if "priority" in cols else None
        groups.setdefault(group, RawSet([], None, line)).tasks.append(
            flat_task([cells[cols[f]] for f in FIELDS], name, line, priority)
        )
    return list(groups.values()), _identity


def _identity(raw: RawSet) -> RawSet:
    return raw


def parse_txt(text: str) -> tuple[list[Any], Callable[[Any], RawSet]]:
    """Find the sets (``---`` lines) in one pass.

    Each set's lines are split when it is built, so a file of many sets never holds the tokens of
    all of them at once.
    """
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

    def build(segment: tuple[int, int, int]) -> RawSet:
        first, lo, hi = segment
        tasks: list[RawTask] = []
        # The first line of a segment after a separator is the line after "---".
        number = first if lo == 0 else first + 1
        for line in text[lo:hi].split("\n"):
            tokens = line.split("#", 1)[0].split()
            if tokens:
                if len(tokens) not in (3, 4):
                    raise InputError(
                        f"expected 'C D T' or 'C D T name', got {len(tokens)} values", line=number, task=len(tasks)
                    )
                tasks.append(flat_task(tokens[:3], tokens[3] if len(tokens) == 4 else None, number))
            number += 1
        return RawSet(tasks, None, first)

    return (segments if any_task else []), build


def dump_csv(sets: list[TaskSet]) -> str:
    """The sets as CSV: a header, then one task per row (``name`` and ``set`` columns when needed)."""
    named = any(ts.names is not None for ts in sets)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([*FIELDS, *(["name"] if named else []), *(["set"] if len(sets) > 1 else [])])
    for s, ts in enumerate(sets):
        for c, d, t, nm in ts:
            writer.writerow([c, d, t, *([nm or ""] if named else []), *([s] if len(sets) > 1 else [])])
    return out.getvalue()


def dump_txt(sets: list[TaskSet]) -> str:
    """The sets as plain text, ``C D T [name]`` per line, sets separated by ``---`` lines."""
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
