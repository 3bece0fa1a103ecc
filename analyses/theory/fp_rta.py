"""Exact uniprocessor fixed-priority response-time analysis (private module; see papers/joseph-pandya1986-rta.md).

Shared by ``uni-rta`` and the partitioned FP family ``p:<fit>:<order>:rta``.

Model: sporadic tasks with arbitrary deadlines (C ≤ D; D may exceed T), preemptive fixed
priorities on one processor, priority = position in the given sequence (index 0 highest), the
jobs of one task executed in release order (FIFO). For constrained deadlines (D ≤ T) the worst-case
response time of τk is the least fixed point of

    R = C_k + Σ_{i<k} ⌈R / T_i⌉ · C_i                                                    (RTA)

(Joseph & Pandya, The Computer Journal 29(5), 1986; Audsley, Burns, Richardson, Tindell,
Wellings, Software Engineering Journal 8(5), 1993; the tag (RTA) is rtsched's, the papers'
equation numbers could not be checked here), found by iterating
R^(s+1) = C_k + Σ_{i<k} ⌈R^(s)/T_i⌉ C_i from a start value below it. τk meets its deadlines iff
that fixed point is at most D_k; the set is schedulable iff every task does (exact for constrained
deadlines: the synchronous release is a critical instant, Liu & Layland 1973, Thm. 1).

Arbitrary deadlines (Lehoczky, "Fixed priority scheduling of periodic task sets with arbitrary
deadlines", RTSS 1990; Tindell, Burns, Wellings, "An extendible approach for analysing fixed
priority hard real-time tasks", Real-Time Systems 6(2), 1994, §3; papers/tindell1994-arbitrary-deadlines.md):
the level-k busy period that starts with the synchronous release holds jobs q = 0, 1, … of τk;
job q completes at the least fixed point of

    w_k(q) = (q + 1)·C_k + Σ_{i<k} ⌈w_k(q) / T_i⌉ · C_i                                   (TBW-w)

and its response time is

    R_k(q) = w_k(q) − q·T_k,   R_k = max_q R_k(q),                                        (TBW-R)

over q = 0, 1, … up to the first q with w_k(q) ≤ (q + 1)·T_k (the busy period ends before job
q + 1 is released). τk meets its deadlines iff R_k(q) ≤ D_k for each of those q (exact: the
synchronous release starts the longest level-k busy period, Lehoczky 1990). With q = 0 (TBW-w)
is (RTA); when D_k ≤ T_k a job that meets its deadline has w_k(0) ≤ D_k ≤ T_k, so only q = 0 is
ever examined and the evaluations are those of (RTA). The iteration of job q starts from
w_k(q − 1) + C_k (≤ w_k(q): w_k(q − 1) + C_k is a fixed point of the right side minus the extra
C_k, whose least fixed point is below that of the right side) and is abandoned as soon as the
right side exceeds q·T_k + D_k (then R_k(q) > D_k: a miss). If the utilization of τ0..τk exceeds
1 the busy period never ends, but R_k(q) grows linearly in q and exceeds D_k after finitely many
jobs, so the search ends (possibly past the budget: "unknown").

Start values (no verdict and no response time depends on them, only the number of iterations):
the textbook start is R^(0) = Σ_{i≤k} C_i (Buttazzo, Hard Real-Time Computing Systems, §4.5.2).
Here τk starts from max(R_{k−1} + C_k, old_k), where R_{k−1} is the response time of the task just
above it (Davis, Zabos, Burns, "Efficient exact schedulability tests for fixed priority real-time
systems", IEEE TC 57(9), 2008, initial value R_{i−1} + C_i; proof in the paper note) and old_k is a
response time of τk computed earlier with a subset of its current higher-priority tasks (the
partitioned admission: adding a higher-priority task only raises the right side of (RTA), so the
least fixed point cannot decrease). Iterating a non-decreasing function from below its least fixed
point reaches that same least fixed point. With arbitrary deadlines R_{k−1} + C_k is still below
w_k(0): R_{k−1} is at most the level-(k−1) busy period L, the least fixed point of
f(w) = Σ_{i<k} ⌈w/T_i⌉ C_i, and w_k(0) = C_k + f(w_k(0)) ≥ f(w_k(0)) makes w_k(0) ≥ L, hence
w_k(0) = C_k + f(w_k(0)) ≥ C_k + f(L) = C_k + L (papers/tindell1994-arbitrary-deadlines.md). old_k is
used only for a task with D_k ≤ T_k, whose accepted response time is its w_k(0) (for D_k > T_k an
earlier R_k may come from a later job, above the new w_k(0)).

Budget: one unit is one evaluation of the right side of (RTA) (k terms for τk). The reference and
the kernel run the same evaluations in the same order, so they run out at the same point, and a
budget that runs out gives "unknown", never a rejection.

Exactness of the kernel: every value is an int64. For job q every iterate is below
B + 2**31, B = q·T_k + D_k (a start is R_{k−1} + C_k ≤ D_{k−1} + C_k, an earlier response time
≤ D_k, or w_k(q − 1) + C_k ≤ B − T_k + C_k; later iterates are right sides ≤ B), and the search stops with "unknown" (in
the reference and the kernel alike) before a job with B ≥ :data:`MAX_WINDOW` = 2**50. With
D > T a task may have C_i > T_i; for such a task a term ⌈R/T_i⌉·C_i is never formed when
⌈R/T_i⌉ > ⌊B/C_i⌋ (then the term alone exceeds B: a miss), otherwise it is at most B (with
C_i ≤ T_i a term is below R + T_i < 2**51 anyway). The own demand (q + 1)·C_k is below 2**51
since job q − 1 met its bound: q·C_k ≤ w_k(q − 1) ≤ (q − 1)·T_k + D_k. The sum
is abandoned as soon as it exceeds B, so it stays below 2B < 2**51. ⌈R/T_i⌉ = ⌊(R + T_i − 1)/T_i⌋
uses one float division, exact because R + 2 T_i < 2**53
(:func:`~rtsched.analyses.theory.workload.floor_div_nb`).
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
    "MAX_WINDOW",
    "Iteration",
    "RtaRun",
    "busy_period",
    "interference_terms",
    "response_times",
    "rta_from_nb",
]

#: Default work budget of ``uni-rta``: evaluations of (RTA) per task set.
DEFAULT_BUDGET = 1_000_000
#: A job q of the busy period with q·T_k + D_k at least this gives "unknown" (int64 exactness).
MAX_WINDOW = 2**50

Rows = Sequence[tuple[int, int, int]]


class BudgetOut(Exception):
    """The (RTA) evaluation budget ran out (or a busy period reached :data:`MAX_WINDOW`)."""


def interference_terms(rows: Rows, k: int, R: int) -> list[int]:
    """⌈R/T_i⌉ · C_i for each higher-priority task i < k (the terms of (RTA))."""
    return [-(-R // T_i) * C_i for C_i, _, T_i in rows[:k]]


@dataclass(frozen=True)
class Iteration:
    """The fixed-point search of one task.

    Its response time (None: above D_k), the last iterate R ≤ D_k and the value of the right side
    there (> D_k when the task fails). For the busy period of :func:`busy_period`: ``job`` is the
    q of the last search (``last`` and ``value`` are w_k(q) iterates, the bound q·T_k + D_k) and
    ``jobs`` holds (w_k(q), R_k(q)) of each job q that completed (TBW-w, TBW-R).
    """

    response_time: int | None
    last: int
    value: int
    evaluations: int
    job: int = 0
    jobs: tuple[tuple[int, int], ...] = ()


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


def least_fixed_point(rows: Rows, k: int, start: int, left: int, work: Work | None, q: int = 0) -> Iteration:
    """Iterate (TBW-w) for job ``q`` of position k from ``start`` (≤ its least fixed point), at most ``left`` evaluations.

    With q = 0 this is (RTA). The search fails (``response_time`` None) as soon as the right side
    exceeds q·T_k + D_k; otherwise ``response_time`` is w_k(q). Raises :class:`BudgetOut` (or the
    work budget's exception) when the evaluations run out.
    """
    C_k, D_k, T_k = rows[k]
    bound = q * T_k + D_k
    R = start
    used = 0
    while True:
        if used == left:
            raise BudgetOut(used)
        used += 1
        if work is not None:
            work.spend(k + 1)
        value = (q + 1) * C_k + sum(interference_terms(rows, k, R))  # (TBW-w) / (RTA), right side
        if value > bound:
            return Iteration(None, R, value, used, q)
        if value == R:
            return Iteration(R, R, value, used, q)
        R = value


def busy_period(rows: Rows, k: int, start: int, left: int, work: Work | None) -> Iteration:
    """The worst-case response time of position k over its level-k busy period (TBW-w, TBW-R).

    Jobs q = 0, 1, … until w_k(q) ≤ (q + 1)·T_k; job 0 starts from ``start`` (≤ w_k(0)), job q
    from w_k(q − 1) + C_k. Fails (``response_time`` None; ``job``, ``last``, ``value`` of the
    failing job) at the first job with R_k(q) > D_k. At most ``left`` evaluations over all jobs
    (:class:`BudgetOut` carries the number used); a job whose bound q·T_k + D_k reaches
    :data:`MAX_WINDOW` raises :class:`BudgetOut` too.
    """
    C_k, D_k, T_k = rows[k]
    jobs: list[tuple[int, int]] = []
    used = 0
    q = 0
    w_start = start
    while True:
        if q * T_k + D_k >= MAX_WINDOW:
            raise BudgetOut(used)
        try:
            it = least_fixed_point(rows, k, w_start, left - used, work, q)
        except BudgetOut as out:
            raise BudgetOut(used + int(out.args[0])) from None
        used += it.evaluations
        if it.response_time is None:
            return Iteration(None, it.last, it.value, used, q, tuple(jobs))
        w = it.response_time
        jobs.append((w, w - q * T_k))
        if w <= (q + 1) * T_k:
            worst = max(r for _, r in jobs)
            return Iteration(worst, it.last, it.value, used, q, tuple(jobs))
        q += 1
        w_start = w + C_k


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
    ``first``); ``old[j]`` a lower bound on position j's response time (0: none; used when
    D_j ≤ T_j only). Each start is max(R_{j−1} + C_j, old_j) (module docstring). ``budget``:
    evaluations of (TBW-w) allowed, over every job of every busy period.
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
        start = above + rows[j][0]
        if old is not None and rows[j][1] <= rows[j][2]:  # old_j is a w_j(0) only when D_j <= T_j
            start = max(start, old[j])
        try:
            it = busy_period(rows, j, start, budget - used, work)
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
    REJECT (some task's response time exceeds its deadline) or UNKNOWN (the budget ran out, or a
    busy period reached ``MAX_WINDOW``). Each task's busy period as in :func:`busy_period`.
    """
    used = 0
    for k in range(first, n):
        above = R[k - 1] if k > 0 else 0
        C_k = C[k]
        D_k = D[k]
        T_k = T[k]
        r = above + C_k
        if D_k <= T_k and old[k] > r:
            r = old[k]
        worst = 0
        q = 0
        while True:  # job q of the level-k busy period (TBW-w)
            bound = q * T_k + D_k
            if bound >= MAX_WINDOW:
                return UNKNOWN, used
            own = (q + 1) * C_k
            while True:
                if used == budget:
                    return UNKNOWN, used
                used += 1
                value = own
                for i in range(k):
                    jobs = floor_div_nb(r + T[i] - 1, T[i])
                    if C[i] > T[i] and jobs > bound // C[i]:  # the term alone exceeds the bound
                        value = bound + 1
                        break
                    value += jobs * C[i]
                    if value > bound:
                        break
                if value > bound:
                    return REJECT, used
                if value == r:
                    break
                r = value
            if r - q * T_k > worst:  # (TBW-R)
                worst = r - q * T_k
            if r <= (q + 1) * T_k:
                break
            q += 1
            r = r + C_k
        R[k] = worst
    return ACCEPT, used


def as_rows(C: np.ndarray, D: np.ndarray, T: np.ndarray) -> list[tuple[int, int, int]]:
    """Python-int rows of three arrays."""
    return [(int(c), int(d), int(t)) for c, d, t in zip(C, D, T, strict=True)]
