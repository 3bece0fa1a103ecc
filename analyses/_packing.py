"""Shared by the partitioned analyses (EDF and FP): the order in which bin packing places tasks.

See papers/partitioned-heuristics.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

__all__ = ["task_order"]

Rows = Sequence[tuple[int, int, int]]


def task_order(rows: Rows, order: str) -> list[int]:
    """The order in which tasks are placed (stable: ties keep the input order)."""
    idx = range(len(rows))
    if order == "input":
        return list(idx)
    if order == "density":
        return sorted(idx, key=lambda i: (-Fraction(rows[i][0], min(rows[i][1], rows[i][2])), i))
    if order == "utilization":
        return sorted(idx, key=lambda i: (-Fraction(rows[i][0], rows[i][2]), i))
    if order == "deadline":
        return sorted(idx, key=lambda i: (rows[i][1], i))
    raise ValueError(f"unknown order {order!r}")
