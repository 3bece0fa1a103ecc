"""Exact uniprocessor fixed-priority response-time analysis (private module; see papers/joseph-pandya1986-rta.md).

Shared by ``uni-rta`` and the partitioned FP family ``p:<fit>:<order>:rta``.

Model: sporadic tasks with constrained deadlines (C ≤ D ≤ T), preemptive fixed priorities on one
processor, priority = position in the given sequence (index 0 highest). The worst-case response
time of τk is the least fixed point of

    R = C_k + Σ_{i<k} ⌈R / T_i⌉ · C_i                                                    (RTA)

(Joseph & Pandya, The Computer Journal 29(5), 1986; Audsley, Burns, Richardson, Tindell,
Wellings, Software Engineering Journal 8(5), 1993; the tag (RTA) is rtsched's, the papers'
equation numbers could not be checked here), found by iterating
R^(s+1) = C_k + Σ_{i<k} ⌈R^(s)/T_i⌉ C_i from a start value below it. τk meets its deadlines iff
that fixed point is at most D_k; the set is schedulable iff every task does (exact for constrained
deadlines: the synchronous release is a critical instant, Liu & Layland 1973, Thm. 1).

Start values (no verdict and no response time depends on them, only the number of iterations):
the textbook start is R^(0) = Σ_{i≤k} C_i (Buttazzo, Hard Real-Time Computing Systems, §4.5.2).
Here τk starts from max(R_{k−1} + C_k, old_k), where R_{k−1} is the response time of the task just
above it (Davis, Zabos, Burns, "Efficient exact schedulability tests for fixed priority real-time
systems", IEEE TC 57(9), 2008, initial value R_{i−1} + C_i; proof in the paper note) and old_k is a
response time of τk computed earlier with a subset of its current higher-priority tasks (the
partitioned admission: adding a higher-priority task only raises the right side of (RTA), so the
least fixed point cannot decrease). Iterating a non-decreasing function from below its least fixed
point reaches that same least fixed point.

Budget: one unit is one evaluation of the right side of (RTA) (k terms for τk). The reference and
the kernel run the same evaluations in the same order, so they run out at the same point, and a
budget that runs out gives "unknown", never a rejection.

Exactness of the kernel: every value is an int64. An iterate R is below 2**32 (a start is at most
D_{k−1} + C_k or an earlier response time, later iterates at most D_k), and since C_i ≤ T_i each
term ⌈R/T_i⌉ C_i ≤ ⌈R/T_i⌉ T_i < R + T_i < 2**33; the sum is abandoned as soon as it exceeds D_k,
so it stays below 2**34. ⌈R/T_i⌉ = ⌊(R + T_i − 1)/T_i⌋ uses one float division, exact because
R + 2 T_i < 2**53 (:func:`~rtsched.analyses.theory.workload.floor_div_nb`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from rtsched.analyses.theory.workload import floor_div_nb
from rtsched.budget import Work
from rtsched.kernels import ACCEPT, REJECT, UNKNOWN, kernel

__all__ = [
    "DEFAULT_BUDGET",
    "Iteration",
    "RtaRun",
    "interference_terms",
    "response_times",
    "rta_from_nb",
]

#: Default work budget of ``uni-rta``: evaluations of (RTA) per task set.
DEFAULT_BUDGET = 1_000_000

Rows = Sequence[tuple[int, int, int]]


class BudgetOut(Exception):
    """The (RTA) evaluation budget ran out."""


def interference_terms(rows: Rows, k: int, R: int) -> list[int]:
    """⌈R/T_i⌉ · C_i for each higher-priority task i < k (the terms of (RTA))."""
    return [-(-R // T_i) * C_i for C_i, _, T_i in rows[:k]]


@dataclass(frozen=True)
class Iteration:
    """The fixed-point search of one task.

    Its response time (None: above D_k), the last iterate R ≤ D_k and the value of the right side
    there (> D_k when the task fails).
    """

    response_time: int | None
    last: int
    value: int
    evaluations: int


@dataclass(frozen=True)
class RtaRun:
    """Outcome of :func:`response_times` over positions ``first..``.

    The verdict (True, False or "unknown"), the response times (None where not computed or above D),
    the failing position, the evaluations used and the failing task's last iterate.
    """

    verdict: bool | str
    response: tuple[int | None, ...]
    failing: int | None
    used: int
    failed_search: Iteration | None = None


def least_fixed_point(rows: Rows, k: int, start: int, left: int, work: Work | None) -> Iteration:
    """Iterate (RTA) for position k from ``start`` (≤ its least fixed point) with at most ``left`` evaluations.

    Raises :class:`BudgetOut` (or the work budget's exception) when they run out.
    """
    C_k, D_k, _ = rows[k]
    R = start
    used = 0
    while True:
        if used == left:
            raise BudgetOut(used)
        used += 1
        if work is not None:
            work.spend(k + 1)
        value = C_k + sum(interference_terms(rows, k, R))  # (RTA), right side
        if value > D_k:
            return Iteration(None, R, value, used)
        if value == R:
            return Iteration(R, R, value, used)
        R = value


def response_times(
    rows: Rows,
    first: int = 0,
    old: Sequence[int] | None = None,
    known: Sequence[int] | None = None,
    budget: int = DEFAULT_BUDGET,
    work: Work | None = None,
) -> RtaRun:
    """Response times of positions ``first, first + 1, …`` of ``rows`` (highest priority first).

    The search stops at the first task whose least fixed point exceeds its deadline.

    ``known[j]`` for j < first are response times already known (needed for the start of position
    ``first``); ``old[j]`` a lower bound on position j's response time (0: none). Each start is
    max(R_{j−1} + C_j, old_j) (module docstring). ``budget``: evaluations of (RTA) allowed.
    """
    n = len(rows)
    response: list[int | None] = [None] * n
    if known is not None:
        for j in range(first):
            response[j] = known[j]
    used = 0
    for j in range(first, n):
        above = response[j - 1] if j > 0 else 0
        assert above is not None
        start = max(above + rows[j][0], old[j] if old is not None else 0)
        try:
            it = least_fixed_point(rows, j, start, budget - used, work)
        except BudgetOut as out:
            return RtaRun("unknown", tuple(response), None, used + int(out.args[0]))
        used += it.evaluations
        if it.response_time is None:
            return RtaRun(False, tuple(response), j, used, it)
        response[j] = it.response_time
    return RtaRun(True, tuple(response), None, used)


# ---------------------------------------------------------------------------------------------
# Kernel (int64; the same evaluations in the same order as the reference).
# ---------------------------------------------------------------------------------------------


@kernel(counted=False)
def rta_from_nb(C, D, T, n, first, old, R, budget):
    """:func:`response_times` on the first ``n`` entries of C, D, T (priority order) from position ``first``.

    ``R[:first]`` holds the known response times, ``old`` the lower bounds (0: none). Uncounted
    (:func:`rtsched.kernels.kernel`): it allocates nothing and returns numbers, and partitioned FP
    calls it once per admission with seven arrays.

    Writes R[first:n] (the prefix that was computed) and returns (code, evaluations used): ACCEPT,
    REJECT (some task's fixed point exceeds its deadline) or UNKNOWN (the budget ran out).
    """
    used = 0
    for k in range(first, n):
        above = R[k - 1] if k > 0 else 0
        r = above + C[k]
        if old[k] > r:
            r = old[k]
        C_k = C[k]
        D_k = D[k]
        while True:
            if used == budget:
                return UNKNOWN, used
            used += 1
            value = C_k
            for i in range(k):
                value += floor_div_nb(r + T[i] - 1, T[i]) * C[i]
                if value > D_k:
                    break
            if value > D_k:
                return REJECT, used
            if value == r:
                break
            r = value
        R[k] = r
    return ACCEPT, used


def as_rows(C: np.ndarray, D: np.ndarray, T: np.ndarray) -> list[tuple[int, int, int]]:
    """Python-int rows of three arrays."""
    return [(int(c), int(d), int(t)) for c, d, t in zip(C, D, T, strict=True)]
