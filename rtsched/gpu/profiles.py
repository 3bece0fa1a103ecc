"""Measured GPU profiles from CSV: WCETs per partition size and slowdown matrices by co-runner class.

Two files, referenced from a workload file (``profiles: {wcet: w.csv, slowdown: s.csv}``, paths
relative to the workload file) or read with :func:`read_wcet_csv` / :func:`read_slowdown_csv`
(schema and what must be measured: papers/zahaf2021-gpu-partitioning.md, "Measured profiles"):

``wcet.csv``: one measured WCET per kernel and partition size, ``kernel,size,wcet``::

    kernel,size,wcet
    conv,1,40
    conv,2,21

Sizes are clusters (MIG: compute slices; TPC: SMs). Size 1 must be measured; a size between two
measured ones takes the WCET of the next smaller measured size and sizes beyond the largest take
its WCET (both upper bounds under A1, WCETs non-increasing in the size, which is checked).

``slowdown.csv``: the slowdown matrix, ``kernel,others,<class>,…``: one row per kernel and number
of other active partitions (1, 2, … without gaps), one column per co-runner class, least
interfering first (the column names are the workload's ``classes``)::

    kernel,others,compute,memory
    conv,1,1.05,1.30
    conv,2,1.10,1.55

The entry in column c is f(k | c): an upper bound on the kernel's slowdown beside k other
partitions running kernels of class c or less interfering ones. The last column is the worst
case over every co-runner (the count-only ``slowdown``); beyond the last ``others`` the factor is
not measured (the kernel cannot run beside more partitions). Factors are exact decimals (1.15 is
23/20). Every error names the file, line, kernel and column.
"""

from __future__ import annotations

import csv
import io
import os
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from rtsched.errors import InputError
from rtsched.gpu.model import Slowdown, TableWCET
from rtsched.io import read_text
from rtsched.model import MAX_TIME

__all__ = ["KernelSlowdowns", "loads_slowdown_csv", "loads_wcet_csv", "read_slowdown_csv", "read_wcet_csv"]


@dataclass(frozen=True)
class KernelSlowdowns:
    """One kernel's slowdown matrix: the worst-case table and the rows of the milder classes."""

    worst: Slowdown
    rows: tuple[tuple[str, Slowdown], ...]


def _rows(text: str, source: str, header: list[str] | None) -> tuple[list[str], list[tuple[int, list[str]]]]:
    """The header and the (line, cells) of the data rows; ``#`` lines and blank lines are skipped."""
    lines = [
        (n, line) for n, line in enumerate(text.splitlines(), 1) if line.strip() and not line.lstrip().startswith("#")
    ]
    if not lines:
        raise InputError("the file is empty", file=source)
    (head_line, head), *body = lines
    names = [c.strip() for c in next(csv.reader(io.StringIO(head)))]
    if header is not None and names != header:
        raise InputError(f"expected the header {','.join(header)}, got {head.strip()!r}", file=source, line=head_line)
    out = []
    for n, line in body:
        cells = [c.strip() for c in next(csv.reader(io.StringIO(line)))]
        if len(cells) != len(names):
            raise InputError(f"expected {len(names)} cells ({','.join(names)}), got {len(cells)}", file=source, line=n)
        if not cells[0]:
            raise InputError("the kernel name is empty", file=source, line=n, field=names[0])
        out.append((n, cells))
    return names, out


def _int(text: str, low: int, **where: Any) -> int:
    try:
        value = int(text)
    except ValueError:
        raise InputError(f"expected an integer, got {text!r}", **where) from None
    if not low <= value <= MAX_TIME:
        raise InputError(f"must be an integer in {low}..{MAX_TIME}, got {value}", **where)
    return value


def _factor(text: str, **where: Any) -> Fraction:
    try:
        value = Fraction(text)  # exact: the decimal text as written
    except (ValueError, ZeroDivisionError):
        raise InputError(f"expected a number such as 1.25, got {text!r}", **where) from None
    if value < 1:
        raise InputError(f"a slowdown factor must be >= 1, got {text}", **where)
    return value


def loads_wcet_csv(text: str, *, source: str = "<string>") -> dict[str, TableWCET]:
    """Parse a ``kernel,size,wcet`` file into one WCET table per kernel (module docstring)."""
    _, rows = _rows(text, source, ["kernel", "size", "wcet"])
    measured: dict[str, dict[int, tuple[int, int]]] = {}
    for n, (kernel, size_text, wcet_text) in rows:
        where: dict[str, Any] = {"file": source, "line": n, "task": kernel}
        size = _int(size_text, 1, field="size", **where)
        wcet = _int(wcet_text, 1, field="wcet", **where)
        seen = measured.setdefault(kernel, {})
        if size in seen:
            raise InputError(f"size {size} is measured twice (line {seen[size][1]})", field="size", **where)
        seen[size] = (wcet, n)
    tables = {}
    for kernel, by_size in measured.items():
        if 1 not in by_size:
            line = min(n for _, n in by_size.values())
            raise InputError(
                "size 1 is not measured (needed to bound smaller unmeasured sizes)",
                file=source,
                line=line,
                task=kernel,
                field="size",
            )
        values: list[int] = []
        previous = (MAX_TIME, 0, 0)
        for s in range(1, max(by_size) + 1):
            if s in by_size:
                wcet, n = by_size[s]
                if wcet > previous[0]:
                    raise InputError(
                        f"WCETs must be non-increasing in the partition size (A1): C({s}) = {wcet} > "
                        f"C({previous[1]}) = {previous[0]} (line {previous[2]})",
                        file=source,
                        line=n,
                        task=kernel,
                        field="wcet",
                    )
                previous = (wcet, s, n)
            values.append(previous[0])
        tables[kernel] = TableWCET(tuple(values))
    return tables


def loads_slowdown_csv(text: str, *, source: str = "<string>") -> tuple[tuple[str, ...], dict[str, KernelSlowdowns]]:
    """Parse a ``kernel,others,<class>,…`` slowdown matrix: the classes and each kernel's rows."""
    names, rows = _rows(text, source, None)
    if names[:2] != ["kernel", "others"] or len(names) < 3:
        raise InputError(
            f"expected the header kernel,others,<class>,... (co-runner classes, least interfering first), "
            f"got {','.join(names)!r}",
            file=source,
            line=1,
        )
    classes = tuple(names[2:])
    if len(set(classes)) != len(classes) or not all(classes):
        raise InputError(f"the co-runner classes must be distinct names, got {','.join(classes)}", file=source, line=1)
    tables: dict[str, list[list[Fraction]]] = {}
    for n, cells in rows:
        kernel = cells[0]
        where: dict[str, Any] = {"file": source, "line": n, "task": kernel}
        others = _int(cells[1], 1, field="others", **where)
        table = tables.setdefault(kernel, [])
        if others != len(table) + 1:
            raise InputError(
                f"expected others = {len(table) + 1} (rows of a kernel go 1, 2, ... without gaps), got {others}",
                field="others",
                **where,
            )
        table.append([_factor(x, field=c, **where) for c, x in zip(classes, cells[2:], strict=True)])
    out = {}
    for kernel, table in tables.items():
        columns = [Slowdown(tuple(row[j] for row in table)) for j in range(len(classes))]
        out[kernel] = KernelSlowdowns(columns[-1], tuple(zip(classes[:-1], columns[:-1], strict=True)))
    return classes, out


def read_wcet_csv(path: str | os.PathLike[str]) -> dict[str, TableWCET]:
    """Read a ``kernel,size,wcet`` file."""
    name = os.fsdecode(path)
    return loads_wcet_csv(read_text(path, name), source=name)


def read_slowdown_csv(path: str | os.PathLike[str]) -> tuple[tuple[str, ...], dict[str, KernelSlowdowns]]:
    """Read a ``kernel,others,<class>,…`` file."""
    name = os.fsdecode(path)
    return loads_slowdown_csv(read_text(path, name), source=name)
