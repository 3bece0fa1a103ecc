"""Response-time analysis for global EDF (Bertogna & Cirinei, RTSS 2007).

M. Bertogna, M. Cirinei, "Response-time analysis for globally scheduled symmetric
multiprocessor platforms", RTSS 2007, pp. 149–160. See papers/bertogna-cirinei2007.md.
Integer time, constrained deadlines. Equation numbers as cited by SchedCAT's ``rta.py`` (the
paper text was not available here); the workload bound is the paper's Thm. 4 (confirmed from
the Prosa formalisation of that theorem).

Each task τk carries a slack lower bound S_k (initially 0). With the workload bound of τi in a
window of length L (its jobs finish at least S_i before their deadlines)

    N_i(L) = ⌊(L + D_i − C_i − S_i)/T_i⌋,
    W_i(L) = N_i(L) C_i + min(C_i, L + D_i − C_i − S_i − N_i(L) T_i)           (Eq. (4)/(8))

and the EDF-specific interference bound

    J_i^k = ⌊D_k/T_i⌋ C_i + min(C_i, max(0, D_k mod T_i − S_i)),                (Eq. (5)/(9))

a response-time bound of τk is the least fixed point, reached by iterating from R = C_k, of

    R ← C_k + ⌊(1/m) Σ_{i≠k} min(W_i(R), J_i^k, R − C_k + 1)⌋                  (RTA-EDF)

if it is at most D_k; then S_k ← D_k − R. Rounds go over the tasks in index order, each using
the slacks already updated in the same round (as SchedCAT does). The set is accepted after a
round in which every task has R_k ≤ D_k, rejected after a round that changes no slack. The
right side is non-decreasing in R and starts at ≥ C_k, so each fixed-point search is monotone
and ends within D_k − C_k + 2 evaluations; slacks only grow, so the rounds end too. A work
budget of ``budget`` evaluations of (RTA-EDF) per set (default :data:`DEFAULT_BUDGET`, unit
"response-time evaluations") turns a longer run into "unknown", never into a verdict.

Pre-pass (an rtsched shortcut; it changes neither a verdict of the unbounded iteration nor any
bound): first, for each task, the least fixed point with every other slack at its largest
possible value D_i − C_i. Since the right side of (RTA-EDF) only decreases when slacks grow, a
task that fails there fails in every round (reject at once: about 4 in 5 rejections on typical
random sets), and its result is a lower bound from which the searches of the rounds start
(iterating a non-decreasing function from below its least fixed point reaches that same point,
so the bounds equal SchedCAT's). Pre-pass evaluations count against the budget.

Exactness: every quantity is an integer below 2**49 (see ``_gedf_common``); the kernel runs the
same evaluations as :func:`reference` in int64, so verdicts (including "unknown") are equal.

Kernel shortcuts (none changes a bound, a verdict or the count of evaluations charged to the
budget): ⌊x/T_i⌋ by a multiplication with 1/T_i and an exact one-step correction; the pre-pass
searches the densest task first when Σ_k (D_k − C_k + 1), a bound on the pre-pass's
evaluations, is within the budget (so the budget cannot run out there and the order of its
independent searches does not matter); a round search whose inputs (the other slacks) did not
change since its previous run is not repeated: its result is reused and its evaluation count
charged again, as the reference would spend it.

Layers: :func:`iterate`/:func:`reference`/:func:`explain` (Python ints), ``_rta_set`` (one set in
int64, on caller-provided scratch), ``_rta_one`` (the serial one-set kernel: allocates the
scratch) and ``_rta_kernel`` (prange over chunks of sets, one scratch per chunk).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit, prange

from rtsched.analyses._gedf_common import (
    carry_in_workload,
    chunk_count,
    divmod_reciprocal_nb,
    edf_interference_bound,
    edf_interference_bound_nb,
    floor_div_nb,
    largest_set,
    task_labels,
)
from rtsched.budget import REFERENCE_WORK, Work, WorkExhausted
from rtsched.errors import InputError
from rtsched.kernels import ACCEPT, REJECT, UNKNOWN
from rtsched.model import TaskSet
from rtsched.registry import Analysis
from rtsched.result import Explanation, Verdict

__all__ = [
    "ANALYSES",
    "DEFAULT_BUDGET",
    "ResponseTimeIteration",
    "explain",
    "iterate",
    "reference",
    "response_estimate",
]

CITATION = (
    "Bertogna, Cirinei, 'Response-time analysis for globally scheduled symmetric multiprocessor "
    "platforms', RTSS 2007 (EDF response-time bound with slack, Eq. (8)–(9))"
)

#: Default work budget: evaluations of the response-time recurrence per task set (each costs n
#: bounds).
DEFAULT_BUDGET = 200_000


class _BudgetExhausted(Exception):
    pass


@dataclass(frozen=True)
class ResponseTimeIteration:
    """Outcome: verdict, per-task response-time bounds of the last round (None: above D_k),
    final slack bounds, rounds (not counting the pre-pass), evaluations of (RTA-EDF) used and
    the task the pre-pass rejected, if it did."""

    verdict: Verdict
    response_times: tuple[int | None, ...]
    slack: tuple[int, ...]
    rounds: int
    steps: int
    precheck_task: int | None = None
    work_exhausted: bool = False


def response_estimate(ts: TaskSet, k: int, slack: list[int], m: int, R: int) -> int:
    """Right side of (RTA-EDF) for task k at R, given the slack bounds of the other tasks."""
    C_k, D_k = int(ts.C[k]), int(ts.D[k])
    total = 0
    for i, (C_i, D_i, T_i) in enumerate(ts.rows()):
        if i != k:
            total += min(
                carry_in_workload(C_i, D_i, T_i, slack[i], R),
                edf_interference_bound(C_i, T_i, slack[i], D_k),
                R - C_k + 1,
            )
    return C_k + total // m


def iterate(
    ts: TaskSet, m: int, budget: int = DEFAULT_BUDGET, work_budget: int | None = REFERENCE_WORK
) -> ResponseTimeIteration:
    """Run the fixed-point searches (Python ints) until accepted, stuck or out of budget.

    First a pre-pass (an rtsched shortcut that never changes a verdict nor a bound): for each
    task, in index order, the least fixed point of (RTA-EDF) with every other slack at its
    largest possible value D_i − C_i. The right side of (RTA-EDF) only decreases when slacks
    grow and no slack exceeds D_i − C_i, so (a) if that search exceeds D_k, no round can ever
    bound τk and the set is rejected at once; (b) otherwise its result R_lo[k] is at most the
    least fixed point for any reachable slacks, and the searches of the rounds start there
    instead of at C_k: iterating a non-decreasing function from below its least fixed point
    reaches that same least fixed point. Every evaluation counts against ``budget``, and
    costs n terms of the reference work budget ``work_budget`` (:mod:`rtsched.budget`); when
    either runs out the verdict is "unknown".
    """
    if budget < 0:
        raise InputError(f"budget must be >= 0, got {budget}", field="budget")
    n = ts.n
    slack = [0] * n
    response: list[int | None] = [None] * n
    steps = 0
    rounds = 0
    work = Work(work_budget)

    def least_fixed_point(k: int, start: int, slacks: list[int]) -> int | None:
        nonlocal steps
        D_k = int(ts.D[k])
        R = start
        while True:
            if steps == budget:
                raise _BudgetExhausted
            work.spend(n)
            steps += 1
            new = response_estimate(ts, k, slacks, m, R)
            if new > D_k:
                return None
            if new == R:
                return R
            R = new

    try:
        largest = [int(d) - int(c) for c, d in zip(ts.C, ts.D, strict=True)]
        lowest: list[int] = []
        for k in range(n):
            R = least_fixed_point(k, int(ts.C[k]), largest)
            if R is None:
                return ResponseTimeIteration(False, tuple(response), tuple(slack), rounds, steps, precheck_task=k)
            lowest.append(R)
        while True:
            rounds += 1
            schedulable = True
            updated = False
            for k in range(n):
                R = least_fixed_point(k, lowest[k], slack)
                response[k] = R
                if R is None:
                    schedulable = False
                    continue
                new_slack = int(ts.D[k]) - R
                if new_slack != slack[k]:
                    slack[k] = new_slack
                    updated = True
            if schedulable:
                return ResponseTimeIteration(True, tuple(response), tuple(slack), rounds, steps)
            if not updated:
                return ResponseTimeIteration(False, tuple(response), tuple(slack), rounds, steps)
    except _BudgetExhausted:
        return ResponseTimeIteration("unknown", tuple(response), tuple(slack), rounds, steps)
    except WorkExhausted:
        return ResponseTimeIteration("unknown", tuple(response), tuple(slack), rounds, steps, work_exhausted=True)


def reference(ts: TaskSet, m: int, budget: int = DEFAULT_BUDGET, work_budget: int | None = REFERENCE_WORK) -> Verdict:
    """Exact RTA verdict (True, False or "unknown" when a budget runs out)."""
    return iterate(ts, m, budget, work_budget).verdict


def explain(ts: TaskSet, m: int, budget: int = DEFAULT_BUDGET, work_budget: int | None = REFERENCE_WORK) -> Explanation:
    """Per-task response-time bounds (None where the last search exceeded D_k) and slacks."""
    it = iterate(ts, m, budget, work_budget)
    rows = [
        {"task": k, "response_time": it.response_times[k], "deadline": int(ts.D[k]), "slack": it.slack[k]}
        for k in range(ts.n)
    ]
    if it.precheck_task is not None:
        failing = [it.precheck_task]
    else:
        failing = [k for k in range(ts.n) if it.response_times[k] is None]
    if it.precheck_task is not None:
        summary = (
            f"{ts.label(it.precheck_task)} has no bound ≤ D_k even with every other slack at its "
            "maximum D_i − C_i (pre-pass)"
        )
    elif it.verdict is True:
        worst = max(range(ts.n), key=lambda k: (it.response_times[k] or 0) / int(ts.D[k]))
        summary = (
            f"R_k ≤ D_k for every task after {it.rounds} round(s); tightest {ts.label(worst)}: "
            f"R = {it.response_times[worst]} ≤ D = {int(ts.D[worst])}"
        )
    elif it.verdict is False:
        summary = f"fixed point after {it.rounds} round(s); no bound ≤ D_k for " + task_labels(ts, failing)
    elif it.work_exhausted:
        summary = f"unknown: {Work(work_budget).describe()} after {it.steps} response-time evaluations"
    else:
        summary = f"budget of {budget} response-time evaluations exhausted (unknown)"
    evidence = {
        "rounds": it.rounds,
        "steps": it.steps,
        "precheck_rejected": it.precheck_task is not None,
        "failing_tasks": tuple(failing),
        "budget": budget,
        "work_budget": work_budget,
    }
    return Explanation(verdict=it.verdict, summary=summary, evidence=evidence, per_task=rows)


@njit(cache=True)
def _least_fixed_point(C, D, T, inv_T, m, k, start, S, J, E, budget):  # noqa: ANN001, ANN202 - numba
    # The search of ``iterate`` with slack bounds S; J and E are scratch, inv_T[i] = 1.0 / T[i].
    # Returns (R, evaluations): R = −1 if the search exceeds D_k, −2 if ``budget`` evaluations
    # did not suffice.
    C_k = C[k]
    D_k = D[k]
    n = C.shape[0]
    for i in range(n):  # what depends on the slacks but not on R: once per search
        J[i] = edf_interference_bound_nb(C[i], T[i], S[i], D_k)  # J_i^k, Eq. (5)/(9)
        E[i] = D[i] - C[i] - S[i]  # W_i's window is R + E_i long, Eq. (4)/(8)
    # τk does not interfere with itself: with J_k = 0 its term min(W_k, 0, ·) is 0, so the sum
    # needs no branch and no correction (every other term is ≥ 0 as well).
    J[k] = 0
    R = start
    used = 0
    while True:
        if used == budget:
            return -2, used
        used += 1
        cap = R - C_k + 1
        total = 0
        for i in range(n):  # Σ_{i≠k} min(W_i(R), J_i^k, R − C_k + 1), exact, < 2**47
            jobs, rest = divmod_reciprocal_nb(R + E[i], T[i], inv_T[i])  # R + E_i < 2**33
            total += min(jobs * C[i] + min(C[i], rest), min(J[i], cap))
        # (RTA-EDF). A float division (exact: total + m < 2**53, see floor_div_nb) because this
        # quotient is on the critical path of the search and an int64 division is far slower.
        new = C_k + floor_div_nb(total, m)
        if new > D_k:
            return -1, used
        if new == R:
            return R, used
        R = new


@njit(cache=True)
def _rta_set(C, D, T, m, budget, slack, largest, lowest, J, E, inv_T, last_R, last_used):  # noqa: ANN001, ANN202 - numba
    # Same searches, same bounds and the same count of (RTA-EDF) evaluations as ``iterate``, so
    # the budget runs out at the same point; the scratch buffers have length ≥ n.
    n = C.shape[0]
    S = slack[:n]
    S_max = largest[:n]
    R_lo = lowest[:n]
    Jn = J[:n]
    En = E[:n]
    inv = inv_T[:n]
    pre_pass_bound = 0  # evaluations the whole pre-pass can take at most (< 2**48)
    for i in range(n):
        S[i] = 0
        S_max[i] = D[i] - C[i]
        inv[i] = 1.0 / np.float64(T[i])
        pre_pass_bound += D[i] - C[i] + 1  # a search from C_k climbs strictly until it stops
    steps = 0
    # The pre-pass rejects if ANY search exceeds its deadline, and its searches are independent
    # (all use S_max), so their order changes neither the verdict nor the bounds, only where
    # the budget would run out. When the budget cannot run out within the pre-pass, search the
    # densest task first: on random sets it is the one that fails most often.
    first = -1
    if pre_pass_bound <= budget:
        first = 0
        for k in range(1, n):
            if C[k] * D[first] > C[first] * D[k]:  # products < 2**62: exact
                first = k
        R, used = _least_fixed_point(C, D, T, inv, m, first, C[first], S_max, Jn, En, budget)
        steps += used
        if R == -1:
            return REJECT
        R_lo[first] = R
    for k in range(n):  # the (rest of the) pre-pass, with every other slack at D_i − C_i
        if k == first:
            continue
        R, used = _least_fixed_point(C, D, T, inv, m, k, C[k], S_max, Jn, En, budget - steps)
        steps += used
        if R == -2:
            return UNKNOWN
        if R == -1:
            return REJECT
        R_lo[k] = R
    # The rounds. A search depends only on the other tasks' slacks (its start R_lo[k] is
    # fixed): if none changed since τk's previous search, n searches earlier, it would repeat
    # the same evaluations, so its result and its evaluation count are reused, and the budget
    # is charged exactly as the reference is. ``last_change`` indexes the latest slack change.
    search = 0
    last_change = 0
    first_round = True
    while True:
        schedulable = True
        updated = False
        for k in range(n):
            if first_round or last_change > search - n:
                R, used = _least_fixed_point(C, D, T, inv, m, k, R_lo[k], S, Jn, En, budget - steps)
                if R == -2:
                    return UNKNOWN
                last_R[k] = R
                last_used[k] = used
            elif last_used[k] > budget - steps:
                return UNKNOWN  # the repeated search would exhaust the budget
            R = last_R[k]
            steps += last_used[k]
            search += 1
            if R == -1:
                schedulable = False
                continue
            if D[k] - R != S[k]:
                S[k] = D[k] - R
                updated = True
                last_change = search - 1
        first_round = False
        if schedulable:
            return ACCEPT
        if not updated:
            return REJECT


@njit(cache=True)
def _rta_one(C, D, T, m, budget):  # noqa: ANN001, ANN202 - numba
    # The serial one-set kernel (what rtsched.check() calls): scratch for this set only, as rows
    # of two allocations.
    n = C.shape[0]
    ints = np.empty((7, n), dtype=np.int64)
    inv_T = np.empty(n, dtype=np.float64)
    return _rta_set(C, D, T, m, budget, ints[0], ints[1], ints[2], ints[3], ints[4], inv_T, ints[5], ints[6])


@njit(parallel=True, cache=True)
def _rta_kernel(C, D, T, offsets, m, budget, out):  # noqa: ANN001, ANN202 - numba
    n_sets = out.shape[0]
    max_n = largest_set(offsets)
    n_chunks = chunk_count(offsets)
    for c in prange(n_chunks):
        # One set of scratch buffers per chunk of sets (as rows of two allocations).
        ints = np.empty((7, max_n), dtype=np.int64)
        inv_T = np.empty(max_n, dtype=np.float64)
        slack, largest, lowest, J, E, last_R, last_used = ints[0], ints[1], ints[2], ints[3], ints[4], ints[5], ints[6]
        for s in range(c * n_sets // n_chunks, (c + 1) * n_sets // n_chunks):
            lo, hi = offsets[s], offsets[s + 1]
            out[s] = _rta_set(
                C[lo:hi], D[lo:hi], T[lo:hi], m, budget, slack, largest, lowest, J, E, inv_T, last_R, last_used
            )


ANALYSES = (
    Analysis(
        name="rta",
        title="Response-time analysis (G-EDF)",
        citation=CITATION,
        kind="sufficient",
        policy="global-edf",
        platform="identical",
        deadlines=("implicit", "constrained"),
        note="papers/bertogna-cirinei2007.md",
        reference=reference,
        explain=explain,
        kernel=_rta_kernel,
        one=_rta_one,
        budget=DEFAULT_BUDGET,
        budget_unit="response-time evaluations",
        order=4,
        featured=True,
    ),
)
