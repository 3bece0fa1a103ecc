"""Priority orders shared by the fixed-priority mixed-criticality tests (private module).

Deadline-monotonic order, Audsley's optimal priority assignment over a per-task question, and
the ``given``/``dm``/``opa`` choice of :mod:`~rtsched.analyses.mixed_criticality.amc2011` and
:mod:`~rtsched.analyses.mixed_criticality.global_fp`.
"""

from __future__ import annotations

from collections.abc import Callable

from rtsched.mc.model import MCTaskSet

__all__ = ["deadline_monotonic", "opa_order", "priority_order"]


def deadline_monotonic(ts: MCTaskSet) -> list[int]:
    """Deadline-monotonic order of ``ts``'s task indices: increasing D, ties in the given order."""
    return sorted(range(ts.n), key=lambda i: (ts[i].D, i))


def opa_order(ts: MCTaskSet, fits: Callable[[int, list[int]], bool]) -> list[int] | None:
    """Audsley's optimal priority assignment (indices, highest priority first), or None.

    From the lowest level up, the first unassigned task (candidates by decreasing deadline, ties
    the later index first, as rtsched.priorities.audsley) for which ``fits(k, higher)`` holds with
    every other unassigned task above it takes the level (Audsley 2001).
    """
    unassigned = deadline_monotonic(ts)
    lowest_first: list[int] = []
    while unassigned:
        for k in reversed(unassigned):
            if fits(k, [i for i in unassigned if i != k]):
                lowest_first.append(k)
                unassigned.remove(k)
                break
        else:
            return None
    return lowest_first[::-1]


def priority_order(ts: MCTaskSet, priorities: str, opa: Callable[[], list[int] | None]) -> list[int] | None:
    """The order ``priorities`` gives: ``given``, ``dm`` or ``opa`` (``opa()``; None: none passes); else KeyError."""
    if priorities == "given":
        return list(range(ts.n))
    if priorities == "dm":
        return deadline_monotonic(ts)
    if priorities == "opa":
        return opa()
    raise KeyError(priorities)
