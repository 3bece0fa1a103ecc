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

Exactness: every quantity is an integer below 2**48 (see ``_slack``); the kernel runs
the same rounds as :func:`reference` in int64, so verdicts (including "unknown") are equal.

Kernel shortcuts (none changes a verdict, "unknown" included; proofs in papers/bcl2005.md,
"rtsched's shortcuts in the BCL-iter kernel"): the pre-check tries first the exact row of one task
with the largest C − (D − C) (it rejects if any task fails, so its order does not matter); when that row
is heavy (≥ :data:`HEAVY_ROW_PERCENT` % of m · cap), rtsched's rejection from above
(``slack_rejects_from_above``: the pre-check's sums of every row, then τh's row at U = max(0, Eq. (18)
at S^max) ≥ the least fixed point; REJECT if either is negative, shortcut 11); then rtsched's acceptance
certificate (``_slack.slack_certificate``: slack lower bounds S^lb from a linear upper
bound of Eq. (17), then Eq. (18) at S^lb: if every value is ≥ 0 the rounds accept by the third,
budget permitting; only the rows with S^lb_k = 0 need summing, one by one when there are at most
five of them, else with the sums of every row, ``slack_columns``); then, with at most two rows failing there,
the certificate one Jacobi step above S^lb (``slack_step_certificate``: only the failing rows summed again; the
rounds then accept by the fourth, budget permitting); otherwise the least fixed point of the slack update decides
(``slack_fixed_point``: sums kept up to date column by column instead of rounds; a set failing
the pre-check gets REJECT there too), unless its bound on the rounds the reference needs exceeds
the budget, in which case the whole pre-check (``slack_precheck_fails``) and then the rounds run
as in :func:`iterate` (``slack_rounds``). ⌊D_k/T_i⌋ is taken with a reciprocal (in the
column loops one rounded up, which needs no correction step: ``rtsched.kernels.floor_divmod_up``),
and the sums of all tasks are updated side by side (vectorised).

Layers: :func:`iterate`/:func:`reference`/:func:`explain` (Python ints), ``_bcl_iter_set`` (one
set in int64, on a caller-provided workspace), ``_bcl_iter_one`` (the serial one-set kernel:
allocates the workspace), ``_bcl_iter_chunk`` (a run of sets on one workspace, serial and
uncounted, ``_bcl_iter_set``'s two parts inlined: τh's pre-check row for a block of
``PASS_BLOCK`` sets, then the rest for the sets it kept; papers/bcl2005.md, "Two passes per block") and ``_bcl_iter_kernel`` (prange over chunks of sets, one
workspace per chunk, each handed to ``_bcl_iter_chunk``). The chunk is a function of its own, not
the prange body, for compile time (issue #46): Numba's parfor passes (copy propagation, gufunc
outlining) ran over the whole inlined slack iteration and took most of bcl-iter's first-run
compilation; the prange body is outlined into a function anyway, so the machine code per set is
the same.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
from numba import prange

from rtsched.analyses.global_edf._slack import (
    SLACK_FLOAT_ROWS,
    SLACK_ROWS,
    W_SLACK,
    f64,
    i32,
    min_nb,
    padded_width,
    precheck_task,
    slack_certificate,
    slack_columns,
    slack_fixed_point,
    slack_precheck_fails,
    slack_rejects_from_above,
    slack_rounds,
    slack_step_certificate,
)
from rtsched.analyses.theory.workload import (
    chunk_count,
    edf_interference_bound,
    iteration_explanation,
    largest_set,
    task_at,
    task_labels,
)
from rtsched.budget import REFERENCE_WORK, Work, WorkExhausted
from rtsched.kernels import ACCEPT, REJECT, UNKNOWN, batch_kernel, kernel, largest_set_size
from rtsched.model import TaskSet
from rtsched.registry import Analysis
from rtsched.result import Explanation, Step, Verdict, count

__all__ = [
    "ANALYSES",
    "DEFAULT_BUDGET",
    "SlackIteration",
    "explain",
    "iterate",
    "kernel_path",
    "reference",
    "slack_update",
    "steps",
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
    ts: TaskSet,
    m: int,
    budget: int = DEFAULT_BUDGET,
    work_budget: int | None = REFERENCE_WORK,
    trace: list[tuple[int, int, int]] | None = None,
) -> SlackIteration:
    """Run the rounds of slack updates (Python ints) until accepted, stuck or out of budget.

    Round 1 is a pre-check (an rtsched shortcut that never changes a verdict): Eq. (18) with
    every other task at its largest possible slack D_i − C_i. Eq. (18) is monotone in the other
    slacks and no slack ever exceeds D_i − C_i, so a negative value there means the task can
    never obtain a valid bound: the set is rejected at once. Otherwise the rounds of the paper
    follow; every round, the pre-check included, counts against ``budget``. Besides, the
    Python work is capped by ``work_budget`` (:mod:`rtsched.budget`): when it runs out the
    verdict is "unknown", unless the pre-check already found a negative value.

    ``trace`` (for :func:`steps`) receives (round, k, Eq. (18) value) for every update made.
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
            if trace is not None:
                trace.append((1, k, last[k]))
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
                if trace is not None:
                    trace.append((rounds, k, new))
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


#: A round's line of :func:`steps` names at most this many tasks per kind of change.
_SHOWN = 10


def _listing(items: list[str]) -> str:
    return ", ".join(items[:_SHOWN]) + (f", … ({len(items)} in all)" if len(items) > _SHOWN else "")


def steps(
    ts: TaskSet, m: int, budget: int = DEFAULT_BUDGET, work_budget: int | None = REFERENCE_WORK
) -> Iterator[Step]:
    """The rounds of :func:`iterate` as a lecturer writes them: each round's Eq. (18) values and raises."""
    events: list[tuple[int, int, int]] = []
    it = iterate(ts, m, budget, work_budget, trace=events)
    yield Step(
        f"Eq. (18) on m = {m}: S'_k = D_k − C_k − ⌊(1/m) Σ_{{i≠k}} min(J_k^i(S_i), D_k − C_k + 1)⌋, "
        "J_k^i(S_i) = ⌊D_k/T_i⌋ C_i + min(C_i, max(0, D_k mod T_i − S_i)) (Eq. (17)); all S_k start at 0"
    )
    slack = [0] * ts.n
    by_round: dict[int, list[tuple[int, int]]] = {}
    for r, k, value in events:
        by_round.setdefault(r, []).append((k, value))
    for r, updates in sorted(by_round.items()):
        negative = [f"{ts.label(k)} = {v}" for k, v in updates if v < 0]
        if r == 1:
            values = _listing([f"{ts.label(k)} = {v}" for k, v in updates])
            yield Step(f"round 1, pre-check (every other slack at its largest, D_i − C_i): S': {values}")
            if negative:
                yield Step(
                    f"  S' < 0 even there for {_listing(negative)}: no slack can exceed D_i − C_i, "
                    "so no round can give a bound: not proven"
                )
            continue
        raised = []
        for k, v in updates:
            if v > slack[k]:
                raised.append(f"{ts.label(k)} {slack[k]} → {v}")
                slack[k] = v
        line = f"round {r} (in index order, each S' with the slacks already raised): "
        line += f"raised {_listing(raised)}" if raised else "no slack raised"
        if negative:
            line += f"; S' < 0 (slack kept): {_listing(negative)}"
        yield Step(line)
    if it.verdict is True:
        yield Step(f"round {it.rounds}: every S' ≥ 0, so every task has a valid slack bound: schedulable")
    elif it.verdict is False and not it.precheck:
        yield Step(
            f"round {it.rounds} raised no slack: the least fixed point, where S' < 0 remains for "
            f"{task_labels(ts, [k for k in range(ts.n) if it.last_update[k] < 0])}: not proven"
        )
    elif it.verdict == "unknown":
        why = Work(work_budget).describe() if it.work_exhausted else f"the budget of {count(budget, 'round')} ran out"
        yield Step(f"unknown: {why} in round {it.rounds}")


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
        summary = f"all slack bounds ≥ 0 after the pre-check and {count(it.rounds - 1, 'round')}; min slack {min(it.slack)}"
    elif it.precheck:
        labels = task_labels(ts, failing)
        summary = f"negative Eq. (18) slack for {labels} even with every other slack at its maximum D_i − C_i{coverage}"
    elif it.verdict is False:
        labels = task_labels(ts, failing)
        summary = f"fixed point after the pre-check and {count(it.rounds - 1, 'round')}; negative slack for {labels}"
    elif it.work_exhausted:
        summary = f"unknown: {Work(work_budget).describe()} in round {it.rounds}{coverage}"
    else:
        summary = f"budget of {count(budget, 'round')} exhausted before a fixed point (unknown)"
    return iteration_explanation(
        it.verdict, summary, rows, rounds=it.rounds, failing=failing, precheck_rejected=it.precheck,
        budget=budget, work_budget=work_budget, derivation=lambda: steps(ts, m, budget, work_budget),
    )  # fmt: skip


def is_heavy(ts: TaskSet, m: int) -> bool:
    """Whether τh's pre-check row marks ``ts`` heavy (``_precheck_row``: its sum ≥ HEAVY_ROW_PERCENT % of m · cap_h)."""
    C, D = ts.C, ts.D
    h = max(range(ts.n), key=lambda k: 2 * int(C[k]) - int(D[k]))
    S_max = [int(d) - int(c) for c, d in zip(C, D, strict=True)]
    cap = int(D[h]) - int(C[h]) + 1
    total = sum(
        min(edf_interference_bound(int(C[i]), int(ts.T[i]), S_max[i], int(D[h])), cap) for i in range(ts.n) if i != h
    )
    return 100 * total >= HEAVY_ROW_PERCENT * m * cap


def kernel_path(ts: TaskSet, m: int, budget: int) -> tuple[str, int | None]:
    """Which shortcut of the kernel settles ``ts`` (papers/bcl2005.md), and the fixed point's round bound.

    The kernel's steps (:func:`_bcl_iter_set`) re-run one by one in Python on the same helpers, so
    that the tests can hold every path to the reference and count that each is reached, and
    ``benchmarks/bench_bcl_iter_paths.py`` can time each path. The bound on the reference's
    rounds that the least fixed point gives is None on the paths that do not reach it.
    """
    C, D, T = ts.C, ts.D, ts.T
    n = ts.n
    h = max(range(n), key=lambda k: 2 * int(C[k]) - int(D[k]))  # the first with the largest C − (D − C)
    S_max = [int(d) - int(c) for c, d in zip(C, D, strict=True)]
    if slack_update(ts, h, S_max, m) < 0:
        return "one-row pre-check rejects", None
    width = padded_width(n)
    work = np.zeros((SLACK_ROWS, width), dtype=np.int64)
    fwork = np.zeros((SLACK_FLOAT_ROWS, width))
    if is_heavy(ts, m) and slack_rejects_from_above(C, D, T, 0, n, m, budget, work, fwork):
        return "rejection from above", None
    if slack_certificate(C, D, T, 0, n, m, work, fwork) == ACCEPT and budget >= 3:
        return "certificate accepts (rows)", None
    failing = slack_columns(C, T, 0, n, m, work, fwork)
    certified = failing == 0
    if certified and budget >= 3:
        return "certificate accepts (columns)", None
    if failing <= 2 and budget >= 4 and slack_step_certificate(C, T, 0, n, m, work, fwork) == ACCEPT:
        return "step certificate accepts", None
    verdict, rounds = slack_fixed_point(C, D, T, 0, n, m, work, fwork)
    if rounds <= budget:
        if any(slack_update(ts, k, S_max, m) < 0 for k in range(n)):
            return "fixed point rejects, pre-check fails", int(rounds)
        S = [int(x) for x in work[W_SLACK, :n]]
        at_fixed_point = all(slack_update(ts, k, S, m) <= S[k] for k in range(n))
        return ("fixed point decides" if at_fixed_point else "fixed point accepts early"), int(rounds)
    if slack_precheck_fails(C, D, T, 0, n, m, work, fwork):
        return "pre-check rejects (bound above budget)", int(rounds)
    return ("certificate, budget < 3" if certified else "rounds (bound above budget)"), int(rounds)


#: τh's pre-check row at or above this share of m · cap_h (in percent) sends a set that the row does not
#: reject to the rejection from above first (papers/bcl2005.md, shortcut 11): on the benchmark's sets
#: 61 % of those sets reject there, against 4 % of the lighter ones, which the certificates mostly settle.
HEAVY_ROW_PERCENT = 70

#: The outcome bits of ``_precheck_row``: the row rejects; the row is heavy (HEAVY_ROW_PERCENT).
ROW_REJECTS, ROW_HEAVY = 1, 2


@kernel(inline="always")
def _precheck_row(C, D, T, lo, n, m):
    # The pre-check (Eq. (18) with every other slack at D_i − C_i) rejects if ANY task is
    # negative, so the order of its tasks cannot change the verdict (it counts as one round
    # either way). This is the exact pre-check of one task τh with the largest C_h − (D_h − C_h)
    # (its row fails most often on random sets; papers/bcl2005.md, shortcut 5): one row, J_h^i at
    # S_i = D_i − C_i with one float division each (exact: floor_div_nb). Returns ROW_REJECTS when
    # the set is rejected in round 1 (the caller checks the budget ≥ 1), plus ROW_HEAVY when the
    # row's sum is at least HEAVY_ROW_PERCENT % of m · cap (a predictor only: any split is sound).
    h = precheck_task(C, D, lo, n)
    C_h = C[task_at(lo, h)]
    D_h = D[task_at(lo, h)]
    cap = D_h - C_h + 1
    row_sum = 0
    for i in range(n):  # (32-bit operands, _slack.i32/f64: the same values, vector code on AVX2)
        C_i = i32(C[task_at(lo, i)])
        T_i = i32(T[task_at(lo, i)])
        jobs = i32(np.divide(f64(D_h), f64(T_i)))  # ⌊D_h/T_i⌋ exactly (floor_div_nb's proof)
        row_sum += min_nb(jobs * C_i + min_nb(C_i, max(D_h - jobs * T_i - D[task_at(lo, i)] + C_i, 0)), cap)
    row = row_sum - min(C_h, cap)  # τh's own term J_h^h = C_h
    # (row < 2**47 and m · cap < 2**51: the products fit in int64)
    return ROW_REJECTS * np.int64(row >= m * cap) + ROW_HEAVY * np.int64(100 * row >= HEAVY_ROW_PERCENT * m * cap)


@kernel(inline="always")
def _bcl_iter_after_precheck(C, D, T, lo, n, m, budget, work, fwork, heavy):
    # The verdict of a set that τh's pre-check row did not reject, the budget ≥ 1. A heavy row
    # (``_precheck_row``) tries rtsched's rejection from above first (papers/bcl2005.md,
    # shortcut 11: the pre-check's sums of every row, then τh's row one Jacobi step below S^max).
    if heavy and slack_rejects_from_above(C, D, T, lo, n, m, budget, work, fwork):
        return REJECT
    # rtsched's acceptance certificate (papers/bcl2005.md): Eq. (18) at S^lb ≥ 0 for every
    # task; then the pre-check passes and the rounds accept by the third (3 rounds of the budget).
    # Row by row when few rows need summing; otherwise (or if it fails: the fixed point needs
    # them) the sums of every row, column by column, which decide the certificate too.
    if slack_certificate(C, D, T, lo, n, m, work, fwork) == ACCEPT and budget >= 3:
        return ACCEPT
    failing = slack_columns(C, T, lo, n, m, work, fwork)
    if failing == 0 and budget >= 3:
        return ACCEPT
    # rtsched's certificate one Jacobi step above S^lb (papers/bcl2005.md, shortcut 10): only the
    # rows failing at S^lb summed again; the rounds then accept by the fourth.
    if failing <= 2 and budget >= 4 and slack_step_certificate(C, T, lo, n, m, work, fwork) == ACCEPT:
        return ACCEPT
    # The verdict from the least fixed point (rtsched's, papers/bcl2005.md; it needs no passed
    # pre-check: a failing one makes it REJECT, the reference's verdict) when the rounds
    # provably end within the budget; otherwise the pre-check, then the rounds themselves.
    verdict, rounds = slack_fixed_point(C, D, T, lo, n, m, work, fwork)
    if rounds <= budget:
        return verdict
    if slack_precheck_fails(C, D, T, lo, n, m, work, fwork):
        return REJECT
    verdict, _ = slack_rounds(C, D, T, lo, n, m, budget, work, fwork)
    return verdict


@kernel(inline="always")
def _bcl_iter_set(C, D, T, lo, n, m, budget, work, fwork):
    # Same verdict as ``iterate`` for tasks lo, …, lo + n − 1, "unknown" included (the same
    # rounds wherever rounds run). ``work``/``fwork``: the workspace of the slack iteration
    # (``_slack``: SLACK_ROWS and SLACK_FLOAT_ROWS rows of length ≥ n).
    if budget <= 0:
        return UNKNOWN
    row = _precheck_row(C, D, T, lo, n, m)
    if row & ROW_REJECTS:
        return REJECT
    return _bcl_iter_after_precheck(C, D, T, lo, n, m, budget, work, fwork, row & ROW_HEAVY)


#: Sets per block of the batch kernel's two passes (``_bcl_iter_chunk``).
PASS_BLOCK = 64


@kernel
def _bcl_iter_one(C, D, T, m, budget):
    # The serial one-set kernel (what rtsched.check() calls): a workspace for this set only.
    n = C.shape[0]
    width = padded_width(n)
    work = np.empty((SLACK_ROWS, width), dtype=np.int64)
    fwork = np.empty((SLACK_FLOAT_ROWS, width), dtype=np.float64)
    return _bcl_iter_set(C, D, T, 0, n, m, budget, work, fwork)


@kernel(counted=False, noalias=True)
def _bcl_iter_chunk(C, D, T, offsets, first, last, m, budget, out, work, fwork, survivors):
    # Sets first, …, last − 1, in blocks of PASS_BLOCK sets and two passes per block: τh's
    # pre-check row for every set of the block (REJECT written, the set's index kept when the
    # row does not reject, without a branch), then the rest of ``_bcl_iter_set`` for the kept
    # sets. The same verdict per set as ``_bcl_iter_set``; only the order of the work differs.
    # ``survivors`` holds 2 s + the heavy bit of the row (``_precheck_row``) per kept set s.
    # Why (papers/bcl2005.md, "Two passes per block"): on fresh sets the pre-check's outcome is
    # a coin toss (half the sets) that the branch predictor cannot learn; ``survivors`` holds
    # PASS_BLOCK indices. noalias: its callers pass distinct arrays for out, work, fwork and
    # survivors, the arrays it writes (rtsched.kernels.kernel; no run-time overlap tests).
    if budget <= 0:
        for s in range(first, last):
            out[np.uint64(s)] = UNKNOWN
        return
    for b0 in range(first, last, PASS_BLOCK):
        b1 = min(b0 + PASS_BLOCK, last)
        kept = 0
        for s in range(b0, b1):
            lo = offsets[np.uint64(s)]  # (unsigned: no wrap-around select; task_at)
            row = _precheck_row(C, D, T, lo, offsets[np.uint64(s + 1)] - lo, m)
            out[np.uint64(s)] = REJECT
            survivors[np.uint64(kept)] = 2 * s + (row >> 1)  # the set's index and the heavy bit
            kept += np.int64(1) - (row & ROW_REJECTS)
        for j in range(kept):
            s = survivors[np.uint64(j)] >> 1
            lo = offsets[np.uint64(s)]
            n = offsets[np.uint64(s + 1)] - lo
            heavy = survivors[np.uint64(j)] & 1
            out[np.uint64(s)] = _bcl_iter_after_precheck(C, D, T, lo, n, m, budget, work, fwork, heavy)


@batch_kernel
def _bcl_iter_kernel(C, D, T, offsets, m, budget, out):
    n_sets = out.shape[0]
    width = padded_width(largest_set(offsets))
    n_chunks = chunk_count(offsets)
    for c in prange(n_chunks):
        work = np.empty((SLACK_ROWS, width), dtype=np.int64)  # one workspace per chunk of sets
        fwork = np.empty((SLACK_FLOAT_ROWS, width), dtype=np.float64)
        survivors = np.empty(PASS_BLOCK, dtype=np.int64)
        _bcl_iter_chunk(
            C, D, T, offsets, c * n_sets // n_chunks, (c + 1) * n_sets // n_chunks, m, budget, out, work, fwork, survivors
        )


def _bcl_iter_serial(C, D, T, offsets, m, budget, out):  # the serial twin (rtsched.kernels.serial)
    width = padded_width.py_func(largest_set_size(offsets))
    work = np.empty((SLACK_ROWS, width), dtype=np.int64)
    fwork = np.empty((SLACK_FLOAT_ROWS, width), dtype=np.float64)
    survivors = np.empty(PASS_BLOCK, dtype=np.int64)
    _bcl_iter_chunk(C, D, T, offsets, 0, out.shape[0], m, budget, out, work, fwork, survivors)


_bcl_iter_kernel.serial = _bcl_iter_serial


#: Why this analysis refuses arbitrary deadlines (D > T): ``rtsched list`` and ``check`` show it
#: (issue #47; papers/arbitrary-deadlines-reductions.md, "Global EDF").
ARBITRARY_WHY = (
    "needs constrained deadlines (D <= T): Bertogna, Cirinei, Lipari (TPDS 2009, whose abstract says "
    "\"constrained deadlines\") give no D > T form, and min(D, T) is unsound under EDF (priorities follow "
    "D); use gfb or load"
)


ANALYSES = (
    Analysis(
        name="bcl-iter", title="BCL iterative slack test", kind="sufficient", order=3,
        policy="global-edf", policy_order=0,
        citation=CITATION, note="papers/bcl2005.md",
        reference=reference, explain=explain, kernel=_bcl_iter_kernel, one=_bcl_iter_one,
        budget=DEFAULT_BUDGET, budget_unit="slack-update rounds", compile_seconds=5.5,
        deadlines_note=ARBITRARY_WHY,
    ),
)
