"""Public hypothesis strategies for tasks, task sets and batches.

Valid by construction (draw T, then C in [1, T], then D in [C, T]; no filtering of whole sets),
and they shrink toward small simple sets: fewer tasks, then small periods, C = 1 and D = C.

>>> from hypothesis import given
>>> from rtsched.testing import strategies as rst
>>> @given(rst.tasksets(max_size=5))
... def test_u_positive(ts):
...     assert ts.utilization > 0
"""

from __future__ import annotations

from typing import Literal

from hypothesis import strategies as st

from rtsched.model import MAX_TIME, Task, TaskSet, TaskSetBatch

__all__ = ["batches", "tasks", "tasksets"]

Deadlines = Literal["implicit", "constrained", "arbitrary"]


@st.composite
def tasks(
    draw: st.DrawFn,
    *,
    min_period: int = 1,
    max_period: int = 100,
    deadlines: Deadlines = "constrained",
    max_deadline_factor: int = 3,
) -> Task:
    """One task (C, D, T) with ``min_period <= T <= max_period``.

    ``deadlines``: ``implicit`` (D = T), ``constrained`` (C <= D <= T) or ``arbitrary``
    (C <= D <= max_deadline_factor·T, with C <= T so that utilization stays at most 1).
    """
    if not 1 <= min_period <= max_period <= MAX_TIME:
        raise ValueError("need 1 <= min_period <= max_period <= MAX_TIME")
    T = draw(st.integers(min_period, max_period))
    C = draw(st.integers(1, T))
    if deadlines == "implicit":
        D = T
    elif deadlines == "constrained":
        D = draw(st.integers(C, T))
    elif deadlines == "arbitrary":
        D = draw(st.integers(C, min(MAX_TIME, max_deadline_factor * T)))
    else:
        raise ValueError(f"unknown deadline model {deadlines!r}")
    return Task(C, D, T)


@st.composite
def tasksets(
    draw: st.DrawFn,
    *,
    min_size: int = 1,
    max_size: int = 8,
    min_period: int = 1,
    max_period: int = 100,
    deadlines: Deadlines = "constrained",
    max_utilization: float | None = None,
) -> TaskSet:
    """A task set of ``min_size..max_size`` tasks.

    ``max_utilization`` caps the total utilization by shrinking execution times (never by
    filtering): tasks are drawn, then C values are reduced, largest utilization first, until the
    cap holds (C stays at least 1, so a cap below Σ 1/T cannot be met and is ignored there).
    """
    rows = draw(
        st.lists(
            tasks(min_period=min_period, max_period=max_period, deadlines=deadlines),
            min_size=min_size,
            max_size=max_size,
        )
    )
    if max_utilization is not None:
        rows = _cap_utilization(rows, max_utilization)
    model: Literal["arbitrary", "constrained"] = "arbitrary" if deadlines == "arbitrary" else "constrained"
    return TaskSet.from_tasks([(t.C, t.D, t.T) for t in rows], deadlines=model)


def _cap_utilization(rows: list[Task], cap: float) -> list[Task]:
    from fractions import Fraction

    limit = Fraction(cap).limit_denominator(10**6)
    rows = list(rows)
    while sum(Fraction(t.C, t.T) for t in rows) > limit:
        i = max(range(len(rows)), key=lambda j: (Fraction(rows[j].C, rows[j].T), -j))
        t = rows[i]
        if t.C == 1:
            break
        C = max(1, t.C // 2)
        rows[i] = Task(C, t.D, t.T)  # D >= old C >= new C
    return rows


@st.composite
def batches(draw: st.DrawFn, *, min_sets: int = 1, max_sets: int = 20, **taskset_options: object) -> TaskSetBatch:
    """A :class:`TaskSetBatch` of ``min_sets..max_sets`` sets drawn with :func:`tasksets`."""
    sets = draw(st.lists(tasksets(**taskset_options), min_size=min_sets, max_size=max_sets))  # type: ignore[arg-type]
    return TaskSetBatch.from_tasksets(sets)
