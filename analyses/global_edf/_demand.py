"""Shared demand-bound helpers for the pseudo-polynomial global EDF tests (bar, load, ffdbf).

Two layers, kept side by side so that the readable references and the Numba kernels use the
same definitions:

* Python-int / Fraction functions (``dbf``, ``dbf_carry_in``, ``ffdbf``, ``step_points``) used
  by the exact references;
* ``@njit`` helpers used by the kernels (``top_sum``; the exact integer helpers ``dbf``,
  ``gcd``, ``floor_divmod_any`` and the deadline walk live in the core toolbox
  :mod:`rtsched.kernels`; ``divmod_fast`` is its ``floor_divmod_any`` under the name
  ``_bar_common`` still imports).

Sources: the demand bound function is the classic one of Baruah, Mok, Rosier (RTSS 1990),
``dbf(τi, t) = max(0, (⌊(t − Di)/Ti⌋ + 1)·Ci)``; the carry-in variant ``dbf'`` is Baruah, RTSS
2007 (see papers/baruah2007.md); the forced-forward demand bound function is Baruah, Bonifaci,
Marchetti-Spaccamela, Stiller, RTS 46(1), 2010 (see papers/bbmss2010-ffdbf.md).

The module name starts with ``_`` so the registry does not scan it for analyses (analyses do not
import each other; what they share lives here). rtsched's kernel cache folder is keyed by a digest
of every kernel source file, so editing an ``@njit`` helper here starts a fresh cache by itself.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator
from fractions import Fraction
from typing import TYPE_CHECKING

from rtsched.kernels import floor_divmod_any, kernel
from rtsched.kernels import top_sum as top_sum_of

if TYPE_CHECKING:
    from rtsched.model import TaskSet

__all__ = [
    "INT64_SAFE",
    "dbf",
    "dbf_carry_in",
    "divmod_fast",
    "ffdbf",
    "search_evidence",
    "step_points",
    "top_sum",
]

#: Magnitude below which a sum of a few int64 terms cannot overflow (kernels guard with it).
INT64_SAFE = float(2**61)


# --- exact Python versions (references) ------------------------------------------------------
def dbf(C: int, D: int, T: int, t: int) -> int:
    """Demand bound function: jobs with release and deadline inside an interval of length t."""
    if t < D:
        return 0
    return ((t - D) // T + 1) * C


def dbf_carry_in(C: int, T: int, t: int) -> int:
    """Baruah's dbf' (RTSS 2007): demand of a task with a carry-in job, ⌊t/T⌋·C + min(C, t mod T)."""
    return (t // T) * C + min(C, t % T)


def ffdbf(C: int, D: int, T: int, t: int, sigma: Fraction) -> Fraction:
    """Forced-forward demand bound function ffdbf(τi, t, σ) (BBMS 2010, Def. of ffdbf).

    With q = ⌊t/T⌋ and r = t mod T: q·C plus C if r ≥ D, plus C − (D − r)·σ if
    D > r ≥ D − C/σ, plus nothing otherwise; i.e. ``q·C + max(0, C − max(0, D − r)·σ)``.
    """
    q, r = divmod(t, T)
    return q * C + max(Fraction(0), C - max(0, D - r) * sigma)


def step_points(ts: TaskSet) -> Iterator[int]:
    """The distinct dbf step points t = Di + k·Ti (k ≥ 0) of the set, in increasing order (endless)."""
    heap = [(int(d), int(p)) for d, p in zip(ts.D, ts.T, strict=True)]
    heapq.heapify(heap)
    last = 0
    while True:
        t, p = heap[0]
        heapq.heapreplace(heap, (t + p, p))
        if t != last:
            last = t
            yield t


def search_evidence(
    reason: str, points: int, ts: TaskSet, budget: int, work_budget: int | None, **bounds: object
) -> dict[str, object]:
    """The evidence of a search over the step points (ffdbf's σ, load's β).

    The reason, the test's own ``bounds`` (in their order), U, the points tested and both budgets.
    """
    return {
        "reason": reason,
        **bounds,
        "utilization": ts.utilization,
        "points_tested": points,
        "budget": budget,
        "work_budget": work_budget,
    }


# --- Numba helpers (kernels) -----------------------------------------------------------------
#: (⌊t/p⌋, t mod p) for 0 ≤ t, 0 < p, given fl(1/p): :func:`rtsched.kernels.floor_divmod_any`.
divmod_fast = floor_divmod_any


@kernel(inline="always")
def top_sum(values, n, count, scratch):
    """Sum of the ``count`` largest of ``values[:n]``: :func:`rtsched.kernels.top_sum`."""
    return top_sum_of(values[:n], count, scratch)
