"""Iterative slack-based BCL test for global EDF (Bertogna, Cirinei, Lipari, IEEE TPDS 2009).

M. Bertogna, M. Cirinei, G. Lipari, "Schedulability analysis of global scheduling algorithms on
multiprocessor platforms", IEEE TPDS 20(4):553–566, 2009 (the iterative test; also in
Bertogna's PhD thesis, Scuola Superiore Sant'Anna, 2008). See papers/bcl2005.md. Integer time,
constrained deadlines. Equation numbers as cited by SchedCAT's ``bcl_iterative.py`` (the paper
text was not available here to confirm them).

Every task τk carries a lower bound S_k ≥ 0 on the slack of its jobs (time between completion
and deadline), initially 0. With the EDF-specific bound on the interference of τi on τk

    J_i^k(S_i) = ⌊D_k/T_i⌋ C_i + min(C_i, max(0, D_k mod T_i − S_i))             (Eq. (17))

a round recomputes, task by task in index order and using the slacks already updated in the
same round (as SchedCAT does),

    S_k' = D_k − C_k − ⌊(1/m) Σ_{i≠k} min(J_i^k(S_i), D_k − C_k + 1)⌋            (Eq. (18))

and sets S_k ← max(S_k, S_k') when S_k' ≥ 0. The "+ 1" and the floor belong to integer time:
if a job of τk is kept from running for x ticks of its window, every one of those ticks has
all m processors busy with other tasks, so Σ_{i≠k} min(I_i^k, x) ≥ m x (TPDS 2009); a miss
needs x ≥ D_k − C_k + 1, and the floor turns "Σ < m (D_k − C_k + 1)" into S_k' ≥ 0.
The set is accepted after a round in which every S_k' ≥ 0, rejected after a round that
changes no slack. The slacks never decrease and are at most D_k − C_k, so at most
Σ_k (D_k − C_k) + 1 rounds are needed; a budget of ``budget`` rounds (default
:data:`DEFAULT_BUDGET`, unit "slack-update rounds") turns a longer run into "unknown", never
into a verdict.

Pre-check (an rtsched shortcut; it never changes a verdict of the unbounded iteration): before
the rounds, Eq. (18) is evaluated with every other slack at its largest possible value
D_i − C_i. Eq. (18) is monotone in the other slacks, so a negative value there can never become
non-negative and the set is rejected at once (about 3 in 4 rejections on typical random sets).
The pre-check counts as one round of the budget, in the kernel and in the reference alike.

Exactness: every quantity is an integer below 2**48 (see ``_gedf_common``); the kernel runs
the same rounds as :func:`reference` in int64, so verdicts (including "unknown") are equal.

Kernel shortcuts (none changes a value of Eq. (18) or the round count): the pre-check tries the
densest task first (it rejects if any task fails, so its order does not matter); the parts of
Eq. (17) that do not depend on the slacks, ⌊D_k/T_i⌋ C_i and D_k mod T_i, are computed once per
pair in the pre-check and kept in scratch for the rounds (when the largest set of the batch
has 8 to 512 tasks); Eq. (18) of a task whose other slacks did not change since its previous
evaluation is not recomputed.

Layers: :func:`iterate`/:func:`reference`/:func:`explain` (Python ints), ``_bcl_iter_set`` (one
set in int64, on caller-provided scratch), ``_bcl_iter_one`` (the serial one-set kernel: allocates
the scratch) and ``_bcl_iter_kernel`` (prange over chunks of sets, one scratch per chunk).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import prange

from rtsched.analyses._gedf_common import (
    chunk_count,
    edf_interference_bound,
    edf_interference_sum_nb,
    floor_div_nb,
    largest_set,
    task_labels,
)
from rtsched.budget import REFERENCE_WORK, Work, WorkExhausted
from rtsched.kernels import ACCEPT, REJECT, UNKNOWN, batch_kernel, kernel
from rtsched.model import TaskSet
from rtsched.registry import Analysis
from rtsched.result import Explanation, Verdict

__all__ = [
    "ANALYSES",
    "DEFAULT_BUDGET",
    "SlackIteration",
    "explain",
    "iterate",
    "reference",
    "slack_update",
]

CITATION = (
    "Bertogna, Cirinei, Lipari, 'Schedulability analysis of global scheduling algorithms on "
    "multiprocessor platforms', IEEE TPDS 20(4), 2009 (iterative slack test for EDF, Eq. (17)–(18))"
)

#: Default work budget: rounds of slack updates (each costs n² interference bounds).
DEFAULT_BUDGET = 10_000


@dataclass(frozen=True)
class SlackIteration:
    """Outcome of the slack iteration (:func:`iterate`).

    Verdict, final slack bounds, last Eq. (18) values, rounds (the pre-check counts as one) and
    whether the pre-check rejected (then ``last_update`` holds the pre-check values).
    ``work_exhausted``: the reference work budget ran out (``last_update`` may then be shorter
    than n: the pre-check values computed so far).
    """

    verdict: Verdict
    slack: tuple[int, ...]
    last_update: tuple[int, ...]
    rounds: int
    precheck: bool = False
    work_exhausted: bool = False


def slack_update(ts: TaskSet, k: int, slack: list[int], m: int, work: Work | None = None) -> int:
    """S_k' of Eq. (18) given the current slack bounds of the other tasks (may be negative).

    ``work`` (optional) is charged n terms first (see :mod:`rtsched.budget`).
    """
    if work is not None:
        work.spend(ts.n)
    C_k, D_k = int(ts.C[k]), int(ts.D[k])
    other_work = sum(
        min(edf_interference_bound(int(ts.C[i]), int(ts.T[i]), slack[i], D_k), D_k - C_k + 1)
        for i in range(ts.n)
        if i != k
    )
    return D_k - C_k - other_work // m


def iterate(
    ts: TaskSet, m: int, budget: int = DEFAULT_BUDGET, work_budget: int | None = REFERENCE_WORK
) -> SlackIteration:
    """Run the rounds of slack updates (Python ints) until accepted, stuck or out of budget.

    Round 1 is a pre-check (an rtsched shortcut that never changes a verdict): Eq. (18) with
    every other task at its largest possible slack D_i − C_i. Eq. (18) is monotone in the other
    slacks and no slack ever exceeds D_i − C_i, so a negative value there means the task can
    never obtain a valid bound: the set is rejected at once. Otherwise the rounds of the paper
    follow; every round, the pre-check included, counts against ``budget``. Besides, the
    Python work is capped by ``work_budget`` (:mod:`rtsched.budget`): when it runs out the
    verdict is "unknown", unless the pre-check already found a negative value.
    """
    n = ts.n
    slack = [0] * n
    if budget <= 0:
        return SlackIteration("unknown", tuple(slack), tuple(slack), 0)
    work = Work(work_budget)
    largest = [int(d) - int(c) for c, d in zip(ts.C, ts.D, strict=True)]
    last: list[int] = []
    try:
        for k in range(n):
            last.append(slack_update(ts, k, largest, m, work))
    except WorkExhausted:
        if min(last, default=0) < 0:
            return SlackIteration(False, tuple(slack), tuple(last), 1, precheck=True, work_exhausted=True)
        return SlackIteration("unknown", tuple(slack), tuple(last), 1, work_exhausted=True)
    rounds = 1
    if min(last) < 0:
        return SlackIteration(False, tuple(slack), tuple(last), rounds, precheck=True)
    try:
        while True:
            if rounds == budget:
                return SlackIteration("unknown", tuple(slack), tuple(last), rounds)
            rounds += 1
            feasible = True
            updated = False
            for k in range(n):
                new = slack_update(ts, k, slack, m, work)
                last[k] = new
                if new < 0:
                    feasible = False  # no valid bound this round; S_k keeps its previous value
                elif new > slack[k]:
                    slack[k] = new
                    updated = True
            if feasible:
                return SlackIteration(True, tuple(slack), tuple(last), rounds)
            if not updated:
                return SlackIteration(False, tuple(slack), tuple(last), rounds)
    except WorkExhausted:
        return SlackIteration("unknown", tuple(slack), tuple(last), rounds, work_exhausted=True)


def reference(ts: TaskSet, m: int, budget: int = DEFAULT_BUDGET, work_budget: int | None = REFERENCE_WORK) -> Verdict:
    """Exact BCL-iterative verdict (True, False or "unknown" when a budget runs out)."""
    return iterate(ts, m, budget, work_budget).verdict


def explain(ts: TaskSet, m: int, budget: int = DEFAULT_BUDGET, work_budget: int | None = REFERENCE_WORK) -> Explanation:
    """Per-task slack bounds and the last Eq. (18) value of each task."""
    it = iterate(ts, m, budget, work_budget)
    checked = len(it.last_update)
    rows = [
        {"task": k, "slack": it.slack[k], "last_update": it.last_update[k], "bound_ok": it.last_update[k] >= 0}
        for k in range(checked)
    ]
    failing = [k for k in range(checked) if it.last_update[k] < 0]
    coverage = f" (work budget: pre-check values for the first {checked} of {ts.n} tasks)" if checked < ts.n else ""
    if it.verdict is True:
        summary = f"all slack bounds ≥ 0 after the pre-check and {it.rounds - 1} round(s); min slack {min(it.slack)}"
    elif it.precheck:
        labels = task_labels(ts, failing)
        summary = f"negative Eq. (18) slack for {labels} even with every other slack at its maximum D_i − C_i{coverage}"
    elif it.verdict is False:
        labels = task_labels(ts, failing)
        summary = f"fixed point after the pre-check and {it.rounds - 1} round(s); negative slack for {labels}"
    elif it.work_exhausted:
        summary = f"unknown: {Work(work_budget).describe()} in round {it.rounds}{coverage}"
    else:
        summary = f"round budget of {budget} exhausted before a fixed point (unknown)"
    evidence = {
        "rounds": it.rounds,
        "precheck_rejected": it.precheck,
        "failing_tasks": tuple(failing),
        "budget": budget,
        "work_budget": work_budget,
    }
    return Explanation(verdict=it.verdict, summary=summary, evidence=evidence, per_task=rows)


#: Range of the largest set size of a batch for which the kernel keeps the per-pair parts of
#: Eq. (17) in scratch (two n × n int64 matrices per chunk of sets). Above it the memory would be
#: too large; below it storing them costs more than it saves (measured at n = 5). Outside it,
#: the kernel recomputes them with a division.
PAIR_MATRIX_MIN_N = 8
PAIR_MATRIX_MAX_N = 512


@kernel(inline="always")
def _clipped_term(base, rem, C_i, S_i, cap):
    # min(J_i^k(S_i), cap) with Eq. (17) split into the parts that do not depend on the slacks:
    # base = ⌊D_k/T_i⌋ C_i and rem = D_k mod T_i (computed once per pair and set).
    return min(base + min(C_i, max(rem - S_i, 0)), cap)


@kernel(inline="always")
def _other_work(C, S, k, cap, base, rem):
    # Σ_{i≠k} min(J_i^k(S_i), cap) from the stored parts: branch-free over every i (no
    # division, no branch to mispredict), the i = k term removed afterwards.
    total = 0
    for i in range(C.shape[0]):
        total += _clipped_term(base[k, i], rem[k, i], C[i], S[i], cap)
    return total - _clipped_term(base[k, k], rem[k, k], C[k], S[k], cap)


@kernel
def _keeps_pairs(max_n):
    # Whether a batch whose largest set has ``max_n`` tasks keeps the per-pair parts of Eq. (17).
    return PAIR_MATRIX_MIN_N <= max_n <= PAIR_MATRIX_MAX_N


@kernel
def _bcl_iter_set(C, D, T, m, budget, slack, largest, last, base, rem, keep_pairs):
    # Same rounds, same Eq. (18) values and same round count as ``iterate``. ``slack``,
    # ``largest`` and ``last`` are scratch of length ≥ n; ``base`` and ``rem`` n × n scratch if
    # ``keep_pairs`` (one set of buffers per chunk of sets: nothing is allocated per set).
    n = C.shape[0]
    if budget <= 0:
        return UNKNOWN
    S = slack[:n]
    S_max = largest[:n]
    for i in range(n):
        S_max[i] = D[i] - C[i]
        S[i] = 0
    # The pre-check (Eq. (18) with every other slack at D_i − C_i) rejects if ANY task is
    # negative, so the order of its tasks cannot change the verdict (it counts as one round
    # either way). The densest task fails it most often on random sets: try it alone first.
    densest = 0
    for k in range(1, n):
        if C[k] * D[densest] > C[densest] * D[k]:  # products < 2**62: exact
            densest = k
    X = S_max[densest]
    if X - floor_div_nb(edf_interference_sum_nb(C, T, S_max, densest, D[densest], X + 1), m) < 0:
        return REJECT
    for k in range(n):  # the rest of the pre-check, storing the per-pair parts on the way
        D_k = D[k]
        X = S_max[k]
        if keep_pairs:
            for i in range(n):
                jobs = floor_div_nb(D_k, T[i])
                base[k, i] = jobs * C[i]
                rem[k, i] = D_k - jobs * T[i]
            total = _other_work(C, S_max, k, X + 1, base, rem)
        else:
            total = edf_interference_sum_nb(C, T, S_max, k, D_k, X + 1)
        if X - floor_div_nb(total, m) < 0:
            return REJECT
    # The rounds. Eq. (18) for τk depends only on the other slacks: if none changed since τk's
    # previous evaluation (one round, i.e. n evaluations, earlier), its value is the same and is
    # reused. ``last_change`` is the index of the latest evaluation that raised a slack.
    rounds = 1
    evaluation = 0
    last_change = 0
    while True:
        if rounds == budget:
            return UNKNOWN
        rounds += 1
        feasible = True
        updated = False
        for k in range(n):
            if rounds == 2 or last_change > evaluation - n:
                X = S_max[k]
                if keep_pairs:
                    total = _other_work(C, S, k, X + 1, base, rem)
                else:
                    total = edf_interference_sum_nb(C, T, S, k, D[k], X + 1)
                last[k] = X - floor_div_nb(total, m)  # Eq. (18); 0 ≤ total < 2**48
            new = last[k]
            if new < 0:
                feasible = False
            elif new > S[k]:
                S[k] = new
                updated = True
                last_change = evaluation
            evaluation += 1
        if feasible:
            return ACCEPT
        if not updated:
            return REJECT


@kernel
def _bcl_iter_one(C, D, T, m, budget):
    # The serial one-set kernel (what rtsched.check() calls): scratch for this set only, as rows
    # of two allocations.
    n = C.shape[0]
    keep_pairs = _keeps_pairs(n)
    pair_n = n if keep_pairs else 0
    rows = np.empty((3, n), dtype=np.int64)
    pairs = np.empty((2, pair_n, pair_n), dtype=np.int64)
    return _bcl_iter_set(C, D, T, m, budget, rows[0], rows[1], rows[2], pairs[0], pairs[1], keep_pairs)


@batch_kernel
def _bcl_iter_kernel(C, D, T, offsets, m, budget, out):
    n_sets = out.shape[0]
    max_n = largest_set(offsets)
    keep_pairs = _keeps_pairs(max_n)
    pair_n = max_n if keep_pairs else 0
    n_chunks = chunk_count(offsets)
    for c in prange(n_chunks):
        # Scratch buffers, one set per chunk of sets (as rows of two allocations).
        rows = np.empty((3, max_n), dtype=np.int64)
        pairs = np.empty((2, pair_n, pair_n), dtype=np.int64)
        slack, largest, last = rows[0], rows[1], rows[2]
        base, rem = pairs[0], pairs[1]
        for s in range(c * n_sets // n_chunks, (c + 1) * n_sets // n_chunks):
            lo, hi = offsets[s], offsets[s + 1]
            out[s] = _bcl_iter_set(C[lo:hi], D[lo:hi], T[lo:hi], m, budget, slack, largest, last, base, rem, keep_pairs)


ANALYSES = (
    Analysis(
        name="bcl-iter",
        title="BCL iterative slack test",
        citation=CITATION,
        kind="sufficient",
        policy="global-edf",
        platform="identical",
        deadlines=("implicit", "constrained"),
        note="papers/bcl2005.md",
        reference=reference,
        explain=explain,
        kernel=_bcl_iter_kernel,
        one=_bcl_iter_one,
        budget=DEFAULT_BUDGET,
        budget_unit="slack-update rounds",
        order=3,
        featured=True,
    ),
)
