"""Integer workload and interference bounds shared by the global EDF analyses (private module).

Each bound exists twice: a readable Python-int version for the exact references and an
``@njit`` version for the kernels (the RTA kernel evaluates the carry-in workload inline, with
:func:`divmod_reciprocal_nb`: a multiplication by 1/T_i instead of a division; see rta.py). Both are written for *integer time* and for constrained
deadlines (``C <= D <= T``). The symbols follow the papers (see ``papers/bcl2005.md`` and
``papers/bertogna-cirinei2007.md``):

- ``bcl_workload``: the BCL workload of τi in a window of length D_k whose last deadline
  coincides with the window end, ``N_i C_i + min(C_i, max(0, D_k − N_i T_i))`` with
  ``N_i = ⌊(D_k − D_i)/T_i⌋ + 1`` (Bertogna, Cirinei, Lipari, ECRTS 2005; the β_i of the BCL
  test is this workload divided by D_k);
- ``edf_interference_bound``: the EDF-specific bound on the interference of τi on a job of τk
  when τi's jobs finish at least S_i before their deadlines,
  ``⌊D_k/T_i⌋ C_i + min(C_i, max(0, D_k mod T_i − S_i))`` (BCL, IEEE TPDS 2009, Eq. (17);
  Bertogna & Cirinei, RTSS 2007, Eq. (5)/(9) — numbering as cited by SchedCAT);
- ``carry_in_workload``: the work-conserving workload bound of τi in a window of length L when
  its jobs finish at least S_i before their deadlines,
  ``N C_i + min(C_i, L + D_i − C_i − S_i − N T_i)`` with ``N = ⌊(L + D_i − C_i − S_i)/T_i⌋``
  (RTSS 2007, Eq. (4)/(8); TPDS 2009, Eq. (14)–(15)).

Overflow: with every time value ≤ 2**31 − 1 and 0 ≤ S_i ≤ D_i − C_i, each bound is at most
D_k + C_i ≤ 2**32 (respectively L + D_i ≤ 2**32), so one bound always fits in int64; sums over
at most 2**16 tasks of terms clipped to ≤ 2**31 stay below 2**47.

rtsched's kernel cache folder is keyed by a digest of every kernel source file
(``rtsched/_bootstrap.py``), so edits here start a fresh cache by themselves (unless
``NUMBA_CACHE_DIR`` is set: then clear it after editing this file).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from rtsched.budget import Work, WorkExhausted
from rtsched.kernels import (
    ACCEPT,
    CHUNK_TASKS,
    CONTINUE,
    MAX_CHUNKS,
    RECIPROCAL_UP,
    REJECT,
    chunk_count,
    floor_divmod,
    floor_divmod_up,
    kernel,
    largest_set,
)
from rtsched.kernels import UNKNOWN as UNKNOWN_CODE
from rtsched.result import UNKNOWN, Explanation, Step, Verdict

if TYPE_CHECKING:
    from rtsched.model import TaskSet

__all__ = [
    "TaskScan",
    "every_task_holds",
    "scan_closing_steps",
    "scan_tasks",
    "task_labels",
    "bcl_workload",
    "bcl_workload_nb",
    "carry_in_workload",
    "chunk_count",
    "divmod_reciprocal_nb",
    "edf_interference_bound",
    "edf_interference_bound_nb",
    "edf_interference_sum_nb",
    "floor_div_nb",
    "floor_divmod_up",
    "largest_set",
    "padded_width",
    "slack_certificate",
    "slack_columns",
    "slack_fixed_point",
    "slack_lower_bounds",
    "slack_precheck_fails",
    "slack_rounds",
    "slack_scan",
    "slack_step_certificate",
    "slack_sum_nb",
    "task_at",
    "CHUNK_TASKS",
    "MAX_CHUNKS",
]


def bcl_workload(C_i: int, D_i: int, T_i: int, D_k: int) -> int:
    """D_k · β_i: the BCL workload of τi in a window of length D_k (ECRTS 2005, β_i)."""
    N_i = (D_k - D_i) // T_i + 1  # ≥ 0 because D_i ≤ T_i (Python floor division)
    return N_i * C_i + min(C_i, max(0, D_k - N_i * T_i))


def edf_interference_bound(C_i: int, T_i: int, S_i: int, D_k: int) -> int:
    """EDF interference bound of τi on τk with slack S_i (TPDS 2009 Eq. (17), RTSS 2007 Eq. (5))."""
    jobs = D_k // T_i
    return jobs * C_i + min(C_i, max(0, D_k - jobs * T_i - S_i))


def carry_in_workload(C_i: int, D_i: int, T_i: int, S_i: int, L: int) -> int:
    """Workload of τi in a window of length L with slack S_i (RTSS 2007 Eq. (4), TPDS Eq. (14))."""
    span = L + D_i - C_i - S_i  # ≥ L ≥ 0 because S_i ≤ D_i − C_i
    jobs = span // T_i
    return jobs * C_i + min(C_i, span - jobs * T_i)


@kernel(inline="always")
def floor_div_nb(a, b):
    """⌊a / b⌋ for 0 ≤ a, 0 < b, a + b < 2**53, through one float division (exact).

    Why exact: a and b are exact doubles; if a = q b + r with 0 ≤ r < b, the gap between a/b
    and q + 1 is (b − r)/b ≥ 1/b, larger than the rounding error (q + 1)·2**−53 of the division
    whenever b (q + 1) ≤ a + b < 2**53, so the rounded quotient never reaches q + 1; and it never
    drops below q because q is representable. Integer division (idiv) is several times slower.
    ``np.divide``, not ``/``: Python's ``/`` checks b = 0 (a branch that raises), which keeps a
    loop of these divisions scalar, and LLVM then turns the loop's min/max into branches that
    mispredict on sets the predictor has not seen (BCL on fresh sets: 101 → 56 ns per set,
    benchmarks/bench_vs_schedcat.py's fresh column); every caller has b ≥ 1.
    """
    return np.int64(np.divide(np.float64(a), np.float64(b)))  # np.divide: no zero-division check


#: (⌊a/b⌋, a mod b) for 0 ≤ a < 2**51, 0 < b < 2**51 given fl(1/b): the core toolbox's
#: :func:`rtsched.kernels.floor_divmod` (one exact floor-divmod for every kernel).
divmod_reciprocal_nb = floor_divmod


@kernel(inline="always")
def bcl_workload_nb(C_i, D_i, T_i, D_k):
    """Numba twin of :func:`bcl_workload` (branch-free)."""
    # D_k − D_i > −T_i for constrained deadlines, so N_i = 0 exactly when D_k < D_i.
    N_i = floor_div_nb(max(D_k - D_i, 0), T_i) + 1
    N_i = N_i if D_k >= D_i else 0
    return N_i * C_i + min(C_i, max(D_k - N_i * T_i, 0))


@kernel(inline="always")
def edf_interference_bound_nb(C_i, T_i, S_i, D_k):
    """Numba twin of :func:`edf_interference_bound` (branch-free)."""
    jobs = floor_div_nb(D_k, T_i)
    return jobs * C_i + min(C_i, max(D_k - jobs * T_i - S_i, 0))


@kernel(inline="always")
def edf_interference_sum_nb(C, T, S, k, D_k, cap):
    """Σ_{i≠k} min(J_i^k(S_i), cap), J as in :func:`edf_interference_bound`.

    A branch-free loop over every i, the i = k term removed afterwards (measured faster than
    skipping i = k with a branch); all values are exact int64 (each term ≤ cap ≤ 2**31,
    n ≤ 2**16).
    """
    total = 0
    for i in range(C.shape[0]):
        total += min(edf_interference_bound_nb(C[i], T[i], S[i], D_k), cap)
    return total - min(edf_interference_bound_nb(C[k], T[k], S[k], D_k), cap)


# --- BCL-iter's slack iteration (TPDS 2009, Eq. (17)–(18)), shared by bcl_iter.py and rta.py --
# One set is tasks lo, …, lo + n − 1 of the batch arrays C, D, T (no slices: a slice of a batch
# array passed on costs reference counting, measurable per set), indexed through ``task_at``
# (unsigned: no wrap-around select, so the loops over a set's tasks vectorise). ``work`` is an int64 workspace
# of SLACK_ROWS rows and ``fwork`` a float64 one of SLACK_FLOAT_ROWS rows, each of length
# ≥ padded_width(n), one per chunk of sets; the rows are named below. The sums of Eq. (18) of
# all tasks are kept side by side and updated a column (one interfering task τi) at a time: a
# loop over k without a horizontal sum, which the compiler vectorises; the rows are padded to a
# multiple of 8 lanes with D_k = cap_k = 0, whose terms are 0.

#: Integer workspace rows: slack bounds S, deadlines D_k and caps D_k − C_k + 1 (padded), the
#: sums Σ_{i≠k} min(J_i^k(S_i), cap_k) at S and at the pre-check's slacks D_i − C_i, and the
#: slack bounds and latest Eq. (18) values of the rounds.
W_SLACK, W_DEADLINE, W_CAP, W_TOTAL, W_TOTAL_MAX, W_ROUND_SLACK, W_ROUND_LAST = 0, 1, 2, 3, 4, 5, 6
#: Row W_INFO: [0] the task :func:`slack_scan` found failing the pre-check when it returned REJECT.
W_INFO = 7
SLACK_ROWS = 8
#: Float workspace rows: fl(1/T_i), and the terms of the slope and offset sums of
#: :func:`slack_lower_bounds`.
F_INV_T, F_SLOPE, F_OFFSET = 0, 1, 2
SLACK_FLOAT_ROWS = 3
#: Safety factors of :func:`slack_scan`'s float upper bounds (see there).
_UP = 1.0 + 2.0**-30
_DOWN = 1.0 - 2.0**-30


@kernel(inline="always")
def task_at(lo, i):
    """The index lo + i of a set's task in the batch arrays, as an unsigned integer (it is ≥ 0).

    Numba wraps a negative signed index around (a compare and a select on every access) unless it
    can prove the index ≥ 0, which it cannot for lo + i; the select keeps the loops over a set's
    tasks from vectorising. An unsigned index has no wrap-around: the loops of BCL-iter's
    pre-checks and slack bounds ran 1.4–4× faster with it (papers/bcl2005.md).
    """
    return np.uint64(lo + i)


@kernel(inline="always")
def padded_width(n):
    """N rounded up to a multiple of 8 (the lanes of the column loops)."""
    return (n + 7) & ~7


# floor_divmod_up and RECIPROCAL_UP live in rtsched.kernels (the toolbox's exact divisions).


@kernel(inline="always")
def interference_term_nb(C_i, T_i, inv_T_i, S_i, D_k, cap):
    """min(J_i^k(S_i), cap) (TPDS 2009 Eq. (17)) without a division (inv_T_i = fl(1/T_i))."""
    jobs, rest = divmod_reciprocal_nb(D_k, T_i, inv_T_i)
    return min(jobs * C_i + min(C_i, max(rest - S_i, 0)), cap)


@kernel(inline="always")
def slack_sum_nb(C, D, T, inv_T, lo, n, k, S):
    """Σ_{i≠k} min(J_i^k(S_i), D_k − C_k + 1), the sum of Eq. (18) of BCL-iter (TPDS 2009).

    Branch-free over every i, the k term removed afterwards: J_k^k(S_k) = C_k for any
    0 ≤ S_k ≤ D_k − C_k, since C_k ≤ D_k ≤ T_k. ``inv_T[i]`` = fl(1/T_i).
    """
    D_k = D[task_at(lo, k)]
    cap = D_k - C[task_at(lo, k)] + 1
    total = 0
    for i in range(n):
        total += interference_term_nb(C[task_at(lo, i)], T[task_at(lo, i)], inv_T[i], S[i], D_k, cap)
    return total - min(C[task_at(lo, k)], cap)


@kernel(inline="always")
def _raise_slack(work, C_i, T_i, inv_T_i, old, new, width, m):
    # τi's slack bound goes from ``old`` to ``new``: its term in every sum (a column). Returns
    # how many lanes then have a sum ≥ m · cap (Eq. (18) < 0); each padding lane counts (0 ≥ 0).
    # (The rows are indexed in place: a row view costs reference counting per call.)
    inv_up = inv_T_i * RECIPROCAL_UP
    bad = 0
    for k in range(width):
        jobs, rest = floor_divmod_up(work[W_DEADLINE, k], T_i, inv_up)
        base = jobs * C_i
        cap_k = work[W_CAP, k]
        t = work[W_TOTAL, k] + min(base + min(C_i, max(rest - new, 0)), cap_k)
        t -= min(base + min(C_i, max(rest - old, 0)), cap_k)
        work[W_TOTAL, k] = t
        bad += np.int64(t >= m * cap_k)
    return bad


@kernel(inline="always")
def slack_lower_bounds(C, D, T, lo, n, m, work, fwork):
    """Rtsched's slack lower bounds S^lb of BCL-iter, O(1) per task (proof: papers/bcl2005.md).

    Fills row W_SLACK with S^lb, F_INV_T with fl(1/T_i), W_DEADLINE and W_CAP with the padded
    D_k and D_k − C_k + 1, and W_TOTAL with −min(C_k, D_k − C_k + 1) (τk's own term, which the
    column passes add back), the padding lanes with 0 (W_TOTAL_MAX's too). Returns a task with
    the least bound (before the clamp at 0), the likeliest to fail the pre-check, and how many
    tasks have a bound ≤ 0 before the clamp (those with S^lb_k = 0).

    With q = ⌊D_k/T_i⌋, r = D_k mod T_i, J_i^k(S) ≤ J_i^k(0) = q C_i + min(C_i, r) ≤ ub_i(D_k) =
    U_i D_k + C_i (1 − U_i) (U_i = C_i/T_i; the difference is (C_i − r)(1 − U_i) ≥ 0 for r < C_i
    and (r − C_i) U_i ≥ 0 for r ≥ C_i). So Q_k ≥ ⌊Σ_{i≠k} ub_i(D_k)/m⌋, computed from the sums of
    the slopes and offsets in float scaled up by 1 + 2**−30 (at most n + 8 roundings of 2**−53
    each: covered for n < 2**20), gives S^lb_k = max(0, D_k − C_k − Q_k) ≤ max(0, Eq. (18) of τk
    at slacks 0) ≤ S_k after BCL-iter's first round.
    """
    # (The rows are indexed in place: a row view costs reference counting per call.)
    width = padded_width(n)
    for i in range(n):  # no sum here, so that the divisions vectorise
        C_i = C[task_at(lo, i)]
        T_i = T[task_at(lo, i)]
        inv = np.divide(1.0, np.float64(T_i))  # (np.divide: no zero-division branch; T_i ≥ 1)
        fwork[F_INV_T, i] = inv
        fwork[F_SLOPE, i] = (np.float64(C_i) * inv) * _UP
        fwork[F_OFFSET, i] = (np.float64(C_i * (T_i - C_i)) * inv) * _UP  # C_i (T_i − C_i) < 2**62
    slope_sum = 0.0
    offset_sum = 0.0
    for i in range(n):
        slope_sum += fwork[F_SLOPE, i]
        offset_sum += fwork[F_OFFSET, i]
    up_per_m = _UP / m  # ≥ (1 + 2**−30)(1 − 2**−53) / m
    worst = 0
    worst_value = np.int64(1) << 62
    open_rows = 0
    for k in range(n):
        C_k = C[task_at(lo, k)]
        D_k = D[task_at(lo, k)]
        T_k = T[task_at(lo, k)]
        inv = fwork[F_INV_T, k] * _DOWN
        own = (np.float64(C_k) * inv) * np.float64(D_k) + np.float64(C_k * (T_k - C_k)) * inv  # ≤ ub_k(D_k)
        others = (slope_sum * np.float64(D_k) + offset_sum - own) * up_per_m  # ≥ Σ_{i≠k} ub_i(D_k) / m
        s = D_k - C_k - np.int64(others)
        work[W_SLACK, k] = max(s, 0)
        open_rows += np.int64(s <= 0)
        worse = s < worst_value
        worst = k if worse else worst
        worst_value = s if worse else worst_value
        work[W_DEADLINE, k] = D_k
        work[W_CAP, k] = D_k - C_k + 1
        work[W_TOTAL, k] = -min(C_k, D_k - C_k + 1)  # τk's own term, added back by the columns
    for k in range(n, width):
        work[W_DEADLINE, k] = 0
        work[W_CAP, k] = 0
        work[W_TOTAL, k] = 0
        work[W_TOTAL_MAX, k] = 0
    return worst, open_rows


@kernel(inline="always")
def slack_scan(C, D, T, lo, n, m, work, fwork):
    """Rtsched's pre-check and acceptance certificate for BCL-iter (proof: papers/bcl2005.md).

    Returns ACCEPT if the certificate holds: BCL-iter's pre-check passes and its first round
    leaves every Eq. (18) value ≥ 0 for the second (TPDS 2009, Eq. (17)–(18)); REJECT if the
    pre-check (Eq. (18) with every other slack at D_i − C_i) fails for some task; CONTINUE
    otherwise (the pre-check passes). After REJECT, ``work[W_INFO, 0]`` is a task whose
    pre-check fails. On return, the rows are those of :func:`slack_lower_bounds`, with W_TOTAL
    the sums of Eq. (18) at S^lb (each with its own term C_k removed). The certificate: Eq. (18)
    at S^lb ≥ 0 for every task; the pre-check and the sums at S^lb are exact (int64), column by
    column.
    """
    inv_T = fwork[F_INV_T]
    S = work[W_SLACK]
    deadline = work[W_DEADLINE]
    cap = work[W_CAP]
    total = work[W_TOTAL]
    total_max = work[W_TOTAL_MAX]
    width = padded_width(n)
    worst, _ = slack_lower_bounds(C, D, T, lo, n, m, work, fwork)
    # The pre-check of that task alone first: on random sets it settles most rejections.
    largest = work[W_TOTAL_MAX]  # the slacks D_i − C_i (the row is overwritten below)
    for i in range(n):
        largest[i] = D[task_at(lo, i)] - C[task_at(lo, i)]
    work[W_INFO, 0] = worst
    if slack_sum_nb(C, D, T, inv_T, lo, n, worst, largest) >= m * cap[worst]:
        return REJECT
    for k in range(n):
        total_max[k] = total[k]
    for i in range(n):  # the columns: τi's terms in every sum, at S^lb_i and at D_i − C_i
        C_i = C[task_at(lo, i)]
        T_i = T[task_at(lo, i)]
        inv = inv_T[i]
        S_i = S[i]
        S_max_i = D[task_at(lo, i)] - C_i
        for k in range(width):
            jobs, rest = divmod_reciprocal_nb(deadline[k], T_i, inv)
            base = jobs * C_i
            total[k] += min(base + min(C_i, max(rest - S_i, 0)), cap[k])
            total_max[k] += min(base + min(C_i, max(rest - S_max_i, 0)), cap[k])
    fails_precheck = False
    certified = True
    for k in range(n):  # Eq. (18) ≥ 0 ⇔ sum < m · cap (no division)
        fails = total_max[k] >= m * cap[k]
        work[W_INFO, 0] = k if fails else work[W_INFO, 0]
        fails_precheck |= fails
        certified &= total[k] < m * cap[k]
    if fails_precheck:
        return REJECT
    return ACCEPT if certified else CONTINUE


@kernel(inline="always")
def _row_at_lower_bounds(C, T, lo, n, k, work, fwork, row):
    # Σ_i min(J_i^k(S_i), cap_k) over every i at the slacks S of row ``row`` (W_SLACK: S^lb),
    # τk's own term included (the rows of
    # slack_lower_bounds, indexed in place: a row view costs reference counting). D_k ≤ 2**31 − 1,
    # so floor_divmod_up is exact; each term ≤ cap_k ≤ 2**31, the sum < 2**47.
    D_k = work[W_DEADLINE, k]
    cap_k = work[W_CAP, k]
    total = 0
    for i in range(n):
        C_i = C[task_at(lo, i)]
        jobs, rest = floor_divmod_up(D_k, T[task_at(lo, i)], fwork[F_INV_T, i] * RECIPROCAL_UP)
        total += min(jobs * C_i + min(C_i, max(rest - work[row, i], 0)), cap_k)
    return total


#: Most rows with S^lb_k = 0 that :func:`slack_certificate` sums one by one; with more, the
#: certificate seldom holds on random sets and the column pass is as cheap.
ROW_CERTIFICATE_ROWS = 5


@kernel(inline="always")
def slack_certificate(C, D, T, lo, n, m, work, fwork):
    """Rtsched's acceptance certificate for BCL-iter, row by row, without the pre-check (papers/bcl2005.md).

    Fills the rows of :func:`slack_lower_bounds` (S^lb), then returns ACCEPT if Eq. (18) at S^lb
    is ≥ 0 for every task (then BCL-iter's pre-check passes and its rounds accept by the third);
    CONTINUE if not, and also, without deciding, when more than :data:`ROW_CERTIFICATE_ROWS`
    rows would need summing: :func:`slack_columns` then decides the certificate. A task τk with
    S^lb_k > 0 has Eq. (18) ≥ S^lb_k > 0 at S = 0 already (shortcut 2), hence at S^lb ≥ 0, so
    only the rows with S^lb_k = 0 are summed, in index order, stopping at the first that fails.
    The sums of every row, which the fixed point needs, are left to :func:`slack_columns`.
    """
    _, open_rows = slack_lower_bounds(C, D, T, lo, n, m, work, fwork)
    holds = open_rows <= ROW_CERTIFICATE_ROWS
    for k in range(n if holds else 0):
        if work[W_SLACK, k] == 0:  # W_TOTAL holds −min(C_k, cap_k): τk's own term J_k^k(0) = C_k
            if _row_at_lower_bounds(C, T, lo, n, k, work, fwork, W_SLACK) + work[W_TOTAL, k] >= m * work[W_CAP, k]:
                holds = False
                break
    return ACCEPT if holds else CONTINUE


@kernel(inline="always")
def slack_columns(C, T, lo, n, m, work, fwork):
    """The sums of Eq. (18) at S^lb of every task into row W_TOTAL, column by column.

    Returns how many tasks have Eq. (18) < 0 at S^lb: 0 exactly when the certificate of
    :func:`slack_certificate` holds (:func:`slack_step_certificate` uses the count). Needs the rows of :func:`slack_lower_bounds`;
    afterwards the rows are those :func:`slack_scan` leaves, except W_TOTAL_MAX and W_INFO (not
    computed).
    """
    width = padded_width(n)
    for i in range(n):  # the columns: τi's terms in every sum, at S^lb_i
        C_i = C[task_at(lo, i)]
        T_i = T[task_at(lo, i)]
        inv_up = fwork[F_INV_T, i] * RECIPROCAL_UP  # D_k ≤ 2**31 − 1: floor_divmod_up is exact
        S_i = work[W_SLACK, i]
        for k in range(width):
            jobs, rest = floor_divmod_up(work[W_DEADLINE, k], T_i, inv_up)
            work[W_TOTAL, k] += min(jobs * C_i + min(C_i, max(rest - S_i, 0)), work[W_CAP, k])
    failing = 0
    for k in range(n):  # Eq. (18) < 0 ⇔ sum ≥ m · cap (no division)
        failing += np.int64(work[W_TOTAL, k] >= m * work[W_CAP, k])
    return failing


@kernel(inline="always")
def slack_step_certificate(C, T, lo, n, m, work, fwork):
    """Rtsched's certificate one Jacobi step above S^lb (shortcut 10, proof in papers/bcl2005.md).

    Needs the sums of Eq. (18) at S^lb of every row (:func:`slack_columns`). Puts
    S' = max(S^lb, Eq. (18) at S^lb) into row W_ROUND_SLACK and returns ACCEPT if Eq. (18) at
    S' is ≥ 0 for every task (then BCL-iter's rounds accept by the fourth), else CONTINUE. A row
    with Eq. (18) ≥ 0 at S^lb stays so at S' ≥ S^lb (its sum does not grow), so only the failing
    rows are summed, in index order, stopping at the first that still fails. Leaves every other
    row as it was (the fixed point starts from them).
    """
    inv_m_up = np.divide(1.0, np.float64(m)) * RECIPROCAL_UP  # ⌊total/m⌋ by floor_divmod_up (total < 2**48)
    for k in range(n):
        value = work[W_CAP, k] - 1 - floor_divmod_up(work[W_TOTAL, k], m, inv_m_up)[0]  # Eq. (18) at S^lb
        work[W_ROUND_SLACK, k] = max(work[W_SLACK, k], value)
    holds = True
    for k in range(n):
        cap_k = work[W_CAP, k]
        if work[W_TOTAL, k] >= m * cap_k:  # τk's own term J_k^k = C_k, min(C_k, cap_k) in the row
            if _row_at_lower_bounds(C, T, lo, n, k, work, fwork, W_ROUND_SLACK) - min(C[task_at(lo, k)], cap_k) >= m * cap_k:
                holds = False
                break
    return ACCEPT if holds else CONTINUE


@kernel(inline="always")
def slack_precheck_fails(C, D, T, lo, n, m, work, fwork):
    """Whether BCL-iter's pre-check fails: Eq. (18) < 0 for some task at slacks D_i − C_i.

    Row by row, stopping at the first failing task; needs fl(1/T_i) in row F_INV_T and
    overwrites row W_TOTAL_MAX (the slacks D_i − C_i).
    """
    largest = work[W_TOTAL_MAX]
    for i in range(n):
        largest[i] = D[task_at(lo, i)] - C[task_at(lo, i)]
    for k in range(n):
        if slack_sum_nb(C, D, T, fwork[F_INV_T], lo, n, k, largest) >= m * (D[task_at(lo, k)] - C[task_at(lo, k)] + 1):
            return True
    return False


@kernel(inline="always")
def slack_fixed_point(C, D, T, lo, n, m, work, fwork):
    """BCL-iter's verdict from its least fixed point (rtsched's, proof in papers/bcl2005.md).

    Returns (ACCEPT or REJECT, a bound on the rounds ``bcl_iter.iterate`` needs to reach that
    verdict, the pre-check counted). Needs the rows :func:`slack_scan` or
    :func:`slack_certificate` leaves; the pre-check need not have passed (if it fails, the
    verdict is REJECT and ``iterate`` stops in round 1, within the bound). The rounds reach
    S* = the least fixed point of S ↦ max(0, Eq. (18)(S)); any order of updates from
    S^lb ≤ S* reaches it as well, here sweeps in index order with the sums kept up to date: a
    raised S_k changes one term of each sum (a column). The verdict is ACCEPT iff every
    Eq. (18) value at S* is ≥ 0. Sweep t leaves S ≤ the slacks of ``iterate`` after its round
    t + 2, so: as soon as every Eq. (18) value is ≥ 0 during sweep t, ``iterate`` accepts by
    round t + 3 (early acceptance: the sweeps stop there); at the fixed point after T sweeps
    (the last changes nothing), ``iterate`` ends by round T + 2, and by round
    3 + Σ (S*_k − S^lb_k) (its rounds raise Σ S by ≥ 1 each from the third on and leave it
    ≥ Σ S^lb after the second); the smaller bound is returned. ⌊total/m⌋ of Eq. (18) is taken
    with a reciprocal of m rounded up (:func:`floor_divmod_up`; total < 2**47), not a division.
    """
    width = padded_width(n)
    inv_m_up = np.divide(1.0, np.float64(m)) * RECIPROCAL_UP  # ⌊total/m⌋ by floor_divmod_up (total < 2**48)
    start = 0
    for i in range(n):
        start += work[W_SLACK, i]
    sweeps = 0
    changed = True
    while changed:
        changed = False
        sweeps += 1
        for k in range(n):
            S_k = work[W_SLACK, k]
            total_k = work[W_TOTAL, k]
            cap_k = work[W_CAP, k]
            # Eq. (18) of τk exceeds S_k ⇔ ⌊total/m⌋ < cap − 1 − S_k ⇔ total < m (cap − 1 − S_k)
            if total_k < m * (cap_k - 1 - S_k):
                value = cap_k - 1 - floor_divmod_up(total_k, m, inv_m_up)[0]  # Eq. (18) of τk
                # τk's term in every sum (in its own: J_k^k = C_k, unchanged)
                bad = _raise_slack(work, C[task_at(lo, k)], T[task_at(lo, k)], fwork[F_INV_T, k], S_k, value, width, m)
                work[W_SLACK, k] = value
                changed = True
                if bad == width - n:  # every Eq. (18) value ≥ 0 (only the padding lanes count)
                    return ACCEPT, sweeps + 3
    accept = True
    rounds = 3 - start
    for k in range(n):
        rounds += work[W_SLACK, k]
        accept &= work[W_TOTAL, k] < m * work[W_CAP, k]
    return (ACCEPT if accept else REJECT), min(rounds, sweeps + 2)


@kernel(inline="always")
def slack_rounds(C, D, T, lo, n, m, budget, work, fwork):
    """BCL-iter's rounds after a passed pre-check, exactly as ``bcl_iter.iterate`` runs them.

    Returns (verdict code, rounds counted as ``iterate`` counts them, the pre-check included).
    Needs fl(1/T_i) in row F_INV_T (from :func:`slack_scan`). Eq. (18) of τk depends only on the
    other slacks: if none changed since τk's previous evaluation (n evaluations earlier), its
    value is reused.
    """
    inv_T = fwork[F_INV_T]
    S = work[W_ROUND_SLACK]
    last = work[W_ROUND_LAST]
    for i in range(n):
        S[i] = 0
    rounds = 1
    evaluation = 0
    last_change = 0
    while True:
        if rounds == budget:
            return UNKNOWN_CODE, rounds
        rounds += 1
        feasible = True
        updated = False
        for k in range(n):
            if rounds == 2 or last_change > evaluation - n:
                X = D[task_at(lo, k)] - C[task_at(lo, k)]
                last[k] = X - floor_div_nb(slack_sum_nb(C, D, T, inv_T, lo, n, k, S), m)  # Eq. (18)
            new = last[k]
            if new < 0:
                feasible = False
            elif new > S[k]:
                S[k] = new
                updated = True
                last_change = evaluation
            evaluation += 1
        if feasible:
            return ACCEPT, rounds
        if not updated:
            return REJECT, rounds


# chunk_count, largest_set, CHUNK_TASKS and MAX_CHUNKS live in rtsched.kernels (sets_kernel uses them).


class TaskScan:
    """Per-task rows of a "for every task τk" condition, as far as the work budget reached.

    Attributes
    ----------
    rows:
        One mapping per task evaluated (tasks 0, 1, … in order), each with a ``"holds"`` key.
    failing:
        The first task whose condition fails, or None.
    exhausted:
        True if the budget ran out before every task was evaluated.
    """

    __slots__ = ("exhausted", "failing", "rows")

    def __init__(self, rows: list[Mapping[str, Any]], failing: int | None, exhausted: bool) -> None:
        self.rows = rows
        self.failing = failing
        self.exhausted = exhausted

    def coverage(self, n: int) -> str:
        """``""``, or why only some tasks have rows (for summaries)."""
        return f" (work budget: rows for the first {len(self.rows)} of {n} tasks)" if self.exhausted else ""

    def unknown(self, work: Work, n: int, work_budget: int | None) -> tuple[str, dict[str, object]]:
        """(summary, evidence) of an "unknown": the budget ran out with every evaluated task passing."""
        summary = f"unknown: {work.describe()} after {len(self.rows)} of {n} tasks, all passing"
        return summary, {"tasks_checked": len(self.rows), "work_budget": work_budget}

    def tightest(self) -> int:
        """The task with the least slack rhs − lhs (its condition is closest to failing)."""
        return min(range(len(self.rows)), key=lambda k: self.rows[k]["rhs"] - self.rows[k]["lhs"])

    def explanation(
        self,
        ts: TaskSet,
        work: Work,
        work_budget: int | None,
        passes: Callable[[str, Mapping[str, Any]], str],
        fails: Callable[[str, Mapping[str, Any]], str],
        steps: Callable[[], Iterator[Step]],
    ) -> Explanation:
        """The explanation of a per-task condition lhs ≤ rhs whose rows have ``lhs`` and ``rhs``.

        The first failing task (summary ``fails(label, row)``), else "unknown" when the budget ran
        out with every evaluated task passing (:meth:`unknown`), else the tightest task (summary
        ``passes(label, row)``); the evidence names that task with both sides.
        """
        if self.failing is None and self.exhausted:
            summary, evidence = self.unknown(work, ts.n, work_budget)
            return Explanation(verdict=UNKNOWN, summary=summary, evidence=evidence, per_task=self.rows, steps=steps)
        if self.failing is None:
            k, key, verdict = self.tightest(), "tightest_task", True
            summary = passes(ts.label(k), self.rows[k])
        else:
            k, key, verdict = self.failing, "failing_task", False
            summary = fails(ts.label(k), self.rows[k]) + self.coverage(ts.n)
        evidence = {key: k, "lhs": self.rows[k]["lhs"], "rhs": self.rows[k]["rhs"]}
        return Explanation(verdict=verdict, summary=summary, evidence=evidence, per_task=self.rows, steps=steps)


def scan_closing_steps(n: int, rows: list[Mapping[str, Any]], condition: str) -> Iterator[Step]:
    """The last step of a per-task scan's derivation.

    "Unknown" when the budget ran out with every evaluated task passing, else ``(condition)``
    holding for every task; nothing when one failed (that task's own step says so).
    """
    if not all(row["holds"] for row in rows):
        return
    if len(rows) < n:
        yield Step(
            f"the reference's work budget ran out after {{done}} {'task' if len(rows) == 1 else 'tasks'}: unknown",
            {"done": len(rows)},
        )
    else:
        yield Step(f"({condition}) holds for every task: schedulable by global EDF")


def scan_tasks(n: int, condition: Callable[[int], Mapping[str, Any]], stop_at_failure: bool = False) -> TaskScan:
    """Evaluate ``condition(k)`` for k = 0, …, n − 1 until done, a failure or no budget.

    It stops at the first failure if asked, and when the budget the condition spends runs out
    (:class:`~rtsched.budget.WorkExhausted`).
    """
    rows: list[Mapping[str, Any]] = []
    failing = None
    try:
        for k in range(n):
            row = condition(k)
            rows.append(row)
            if not row["holds"] and failing is None:
                failing = k
                if stop_at_failure:
                    break
    except WorkExhausted:
        return TaskScan(rows, failing, True)
    return TaskScan(rows, failing, False)


def every_task_holds(n: int, holds: Callable[[int], bool]) -> Verdict:
    """The verdict of a per-task sufficient test: whether ``holds(k)`` for every task.

    True if it holds for every task, False at the first that fails, ``"unknown"`` if the work
    budget ``holds`` spends runs out first.
    """
    scan = scan_tasks(n, lambda k: {"holds": holds(k)}, stop_at_failure=True)
    if scan.failing is not None:
        return False
    return UNKNOWN if scan.exhausted else True


def task_labels(ts: Any, tasks: list[int], limit: int = 10) -> str:
    """``τ3, τ7, …`` for at most ``limit`` tasks, then how many there are in all."""
    shown = ", ".join(ts.label(k) for k in tasks[:limit])
    return shown if len(tasks) <= limit else f"{shown}, … ({len(tasks)} tasks)"


def iteration_explanation(
    verdict: Verdict,
    summary: str,
    rows: list[dict[str, Any]],
    *,
    rounds: int,
    failing: list[int],
    precheck_rejected: bool,
    budget: int,
    work_budget: int | None,
    steps: int | None = None,
    derivation: Callable[[], Iterator[Step | str]] | None = None,
    extra: dict[str, Any] | None = None,
) -> Explanation:
    """The explanation of a slack iteration (BCL-iter, RTA): its rows and the evidence both report.

    The evidence keys, in order: ``rounds``, ``steps`` (RTA's response-time evaluations, when
    given), ``precheck_rejected``, ``failing_tasks``, ``budget``, ``work_budget``, then those of
    ``extra`` (RTA's ``descent_rejected``). ``derivation`` gives the steps (``--steps``), run only
    when read.
    """
    evidence: dict[str, Any] = {"rounds": rounds}
    if steps is not None:
        evidence["steps"] = steps
    evidence.update(
        precheck_rejected=precheck_rejected, failing_tasks=tuple(failing), budget=budget, work_budget=work_budget
    )
    evidence.update(extra or {})
    return Explanation(verdict=verdict, summary=summary, evidence=evidence, per_task=rows, steps=derivation or ())
