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

Descent (rtsched's; proof and worked example in papers/bertogna-cirinei2007.md, "The descent";
it changes no verdict of the unbounded iteration and no bound): U_i = D_i − R_lo[i] bounds every
slack the rounds can reach, so up to :data:`DESCENT_ROUNDS` rounds over the tasks, in place,
search τk's least fixed point with the slacks U from R_lo[k]: a search above D_k rejects the
set (no round can bound τk; most sets that the rounds reject are rejected here), and otherwise
its result is a tighter start for the rounds and a tighter U_k. It runs when
(3 + DESCENT_ROUNDS)·P ≤ budget (P below), where the kernel searches only sets that BCL-iter does
not accept, so the rejections it saves outweigh its cost. Descent evaluations count against the
budget.

Exactness: every quantity is an integer below 2**49 (see ``theory.workload``); the kernel runs the
same evaluations as :func:`reference` in int64, so verdicts (including "unknown") are equal.

Kernel shortcuts (none changes a bound, a verdict or the count of evaluations charged to the
budget): ⌊x/T_i⌋ by a multiplication with 1/T_i and an exact one-step correction; when
P = Σ_k (D_k − C_k + 1), a bound on the evaluations of the pre-pass and of each round, is within
the budget (so the budget cannot run out in the pre-pass and the order of its independent
searches does not matter), rtsched's division-free rejection of the densest task's pre-pass
search, then (if 3P is within the budget) rtsched's acceptance through BCL-iter's certificate or
least fixed point, whose rounds bound RTA's evaluations (papers/bertogna-cirinei2007.md,
"rtsched's shortcuts before the searches"), and the pre-pass searches first the task whose
BCL-iter pre-check failed there, else the densest task; a round search whose inputs (the other slacks) did not
change since its previous run is not repeated: its result is reused and its evaluation count
charged again, as the reference would spend it; and (rtsched's, proof in ``_least_fixed_point``)
on a long climb the kernel finds the linear piece of the right side of (RTA-EDF) around R — each
term is non-decreasing and grows by at most 1 per tick, so its phase at R fixes it exactly up to
a horizon — and evaluates the points of that piece without a pass over the tasks, counting a run
of equal steps (slope m) in one division, each evaluation charged as the reference charges it.
It is what makes the one-tick-per-evaluation climbs cheap (sets with n − 1 = m tasks capped
at R − C_k + 1). The pieces are on a per-set credit (``_piece_credit``): at large n most pieces cover
a single evaluation (the horizon is a minimum over n terms) and cost more than a plain pass, so
once they stop repaying that cost the set's searches run plain passes only. Measurements:
papers/bertogna-cirinei2007.md, "Performance".

Layers: :func:`iterate`/:func:`reference`/:func:`explain` (Python ints), ``_rta_set`` (one set in
int64, on a caller-provided workspace), ``_rta_one`` (the serial one-set kernel: allocates the
scratch) and ``_rta_kernel`` (prange over chunks of sets, one scratch per chunk).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
from numba import prange

from rtsched.analyses.global_edf._slack import (
    SLACK_FLOAT_ROWS,
    SLACK_ROWS,
    W_INFO,
    floor_divmod_up32,
    i32,
    padded_width,
    slack_fixed_point,
    slack_rounds,
    slack_scan,
)
from rtsched.analyses.theory.workload import (
    carry_in_workload,
    chunk_count,
    divmod_reciprocal_nb,
    edf_interference_bound,
    edf_interference_bound_nb,
    floor_div_nb,
    iteration_explanation,
    largest_set,
    task_labels,
)
from rtsched.budget import REFERENCE_WORK, Work, WorkExhausted
from rtsched.errors import InputError
from rtsched.kernels import ACCEPT, CONTINUE, RECIPROCAL_UP, REJECT, UNKNOWN, batch_kernel, kernel, largest_set_size
from rtsched.model import TaskSet
from rtsched.registry import Analysis
from rtsched.result import Explanation, Step, Verdict, count, iterates

__all__ = [
    "ANALYSES",
    "DEFAULT_BUDGET",
    "ResponseTimeIteration",
    "explain",
    "iterate",
    "reference",
    "response_estimate",
    "steps",
]

CITATION = (
    "Bertogna, Cirinei, 'Response-time analysis for globally scheduled symmetric multiprocessor "
    "platforms', RTSS 2007 (EDF response-time bound with slack, Eq. (8)–(9))"
)

#: Default work budget: evaluations of the response-time recurrence per task set (each costs n
#: bounds).
DEFAULT_BUDGET = 200_000
#: Rounds of the descent at most (:func:`iterate`): the kernel's time hardly depends on it, and 2
#: takes the fewest evaluations of the reference (papers/bertogna-cirinei2007.md, "Performance").
DESCENT_ROUNDS = 2


class _BudgetExhausted(Exception):
    pass


@dataclass(frozen=True)
class ResponseTimeIteration:
    """Outcome of the response-time iteration (:func:`iterate`).

    Verdict, per-task response-time bounds of the last round (None: above D_k), final slack
    bounds, rounds (not counting the pre-pass and the descent), evaluations of (RTA-EDF) used to
    reach the verdict, the task the pre-pass rejected, if it did, and the task the descent
    rejected, if it did; ``descents``: the descent round that rejected or ran out of budget.
    """

    verdict: Verdict
    response_times: tuple[int | None, ...]
    slack: tuple[int, ...]
    rounds: int
    steps: int
    precheck_task: int | None = None
    work_exhausted: bool = False
    descent_task: int | None = None
    descents: int = 0


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
    ts: TaskSet,
    m: int,
    budget: int = DEFAULT_BUDGET,
    work_budget: int | None = REFERENCE_WORK,
    trace: list[tuple[int, int, tuple[int, ...]]] | None = None,
    bounds: bool = False,
) -> ResponseTimeIteration:
    """Run the fixed-point searches (Python ints) until accepted, stuck or out of budget.

    1. A pre-pass (an rtsched shortcut that never changes a verdict nor a bound): for each
       task, in index order, the least fixed point of (RTA-EDF) with every other slack at its
       largest possible value D_i − C_i. The right side of (RTA-EDF) only decreases when slacks
       grow and no slack exceeds D_i − C_i, so (a) if that search exceeds D_k, no round can ever
       bound τk and the set is rejected at once; (b) otherwise its result R_lo[k] is at most the
       least fixed point for any reachable slacks, and the searches of the rounds start there
       instead of at C_k: iterating a non-decreasing function from below its least fixed point
       reaches that same least fixed point.
    2. The descent (rtsched's; proof in papers/bertogna-cirinei2007.md, "The descent"), when
       (3 + DESCENT_ROUNDS)·P ≤ ``budget`` with P = Σ_k (D_k − C_k + 1): with
       U_i = D_i − R_lo[i], an upper bound of every slack the rounds can reach, up to
       :data:`DESCENT_ROUNDS` rounds in index order, in place: τk's least fixed point with the
       slacks U, searched from R_lo[k]; if it exceeds D_k the set is rejected (no round can
       bound τk), else it becomes R_lo[k] (still below every search of the rounds) and
       U_k = D_k − R (still an upper bound). A descent round that raises no R_lo ends it.
    3. The rounds, from S = 0, each search starting at R_lo[k]; accepted after a round in
       which every task has R_k ≤ D_k, rejected after a round that changes no slack.

    Every evaluation counts against ``budget``, and costs n terms of the reference work budget
    ``work_budget`` (:mod:`rtsched.budget`); when either runs out the verdict is "unknown".

    ``trace`` (for :func:`steps`) receives (phase, k, the values of R from the start to the last
    evaluation) for every search that ends (phase 0: the pre-pass, −j: descent round j, r ≥ 1:
    round r). ``bounds``: when the descent rejects, run the rounds anyway, from the descent's
    R_lo and with what is left of the budgets, for the per-task bounds (the verdict and
    ``steps`` stay the descent's; if a budget runs out there, no bounds: every row None).

    The descent changes neither the verdict nor the bounds, only the evaluations: it rejects
    early almost every set that the rounds would reject, and shortens the searches of the
    rounds, but costs up to DESCENT_ROUNDS rounds of searches where round 1 would accept. With
    (3 + DESCENT_ROUNDS)·P ≤ ``budget`` the kernel accepts every set that BCL-iter accepts
    without a search (see ``_rta_set``), so the sets it searches are those likely to need rounds;
    with long periods (larger P) it searches the sets that round 1 accepts, and there the descent
    only costs (papers/bertogna-cirinei2007.md, "The descent", for the measurements).
    """
    if budget < 0:
        raise InputError(f"budget must be >= 0, got {budget}", field="budget")
    n = ts.n
    slack = [0] * n
    response: list[int | None] = [None] * n
    steps = 0
    rounds = 0
    phase = 0
    work = Work(work_budget)

    def least_fixed_point(k: int, start: int, slacks: list[int]) -> int | None:
        nonlocal steps
        D_k = int(ts.D[k])
        R = start
        chain = [R] if trace is not None else None  # the values of R, only for the steps
        while True:
            if steps == budget:
                raise _BudgetExhausted
            work.spend(n)
            steps += 1
            new = response_estimate(ts, k, slacks, m, R)
            if chain is not None:
                chain.append(new)
            if new > D_k or new == R:
                if trace is not None and chain is not None:
                    trace.append((phase, k, tuple(chain)))
                return None if new > D_k else R
            R = new

    def the_rounds() -> bool:
        # Rounds until accepted (True) or stuck (False); response, slack and rounds as they go.
        nonlocal rounds, phase
        while True:
            rounds += 1
            phase = rounds
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
            if schedulable or not updated:
                return schedulable

    lowest: list[int] = []
    try:
        largest = [int(d) - int(c) for c, d in zip(ts.C, ts.D, strict=True)]
        for k in range(n):
            R = least_fixed_point(k, int(ts.C[k]), largest)
            if R is None:
                return ResponseTimeIteration(False, tuple(response), tuple(slack), rounds, steps, precheck_task=k)
            lowest.append(R)
        if (3 + DESCENT_ROUNDS) * sum(d - c + 1 for c, d in zip(ts.C.tolist(), ts.D.tolist(), strict=True)) > budget:
            return ResponseTimeIteration(the_rounds(), tuple(response), tuple(slack), rounds, steps)  # no descent
        upper = [int(ts.D[k]) - R for k, R in enumerate(lowest)]
        for descent in range(1, DESCENT_ROUNDS + 1):
            phase = -descent
            raised = False
            for k in range(n):
                R = least_fixed_point(k, lowest[k], upper)
                if R is None:
                    decided = steps
                    if bounds:
                        try:
                            the_rounds()
                        except (_BudgetExhausted, WorkExhausted):  # no bounds then, not half of them
                            response, slack, rounds = [None] * n, [0] * n, 0
                    return ResponseTimeIteration(
                        False, tuple(response), tuple(slack), rounds, decided, descent_task=k, descents=descent
                    )
                raised = raised or R != lowest[k]
                lowest[k] = R
                upper[k] = int(ts.D[k]) - R
            if not raised:
                break
        return ResponseTimeIteration(the_rounds(), tuple(response), tuple(slack), rounds, steps)
    except _BudgetExhausted:
        return ResponseTimeIteration("unknown", tuple(response), tuple(slack), rounds, steps, descents=max(-phase, 0))
    except WorkExhausted:
        return ResponseTimeIteration(
            "unknown", tuple(response), tuple(slack), rounds, steps, work_exhausted=True, descents=max(-phase, 0)
        )


def steps(
    ts: TaskSet, m: int, budget: int = DEFAULT_BUDGET, work_budget: int | None = REFERENCE_WORK
) -> Iterator[Step]:
    """The searches of :func:`iterate` as a lecturer writes them: R = C_k → … per task and round."""
    events: list[tuple[int, int, tuple[int, ...]]] = []
    it = iterate(ts, m, budget, work_budget, trace=events, bounds=True)
    yield Step(
        f"(RTA-EDF) on m = {m}: R ← C_k + ⌊(1/m) Σ_{{i≠k}} min(W_i(R), J_i^k, R − C_k + 1)⌋ from below to its least "
        "fixed point; R ≤ D_k gives the slack S_k = D_k − R (all S_k start at 0)"
    )
    shown = None
    decided = False  # whether the descent has just rejected: the rounds that follow are for the bounds
    for r, k, chain in events:
        if r != shown:
            shown = r
            if r == 0:
                yield Step("pre-pass (every other slack at its largest, D_i − C_i; each later search starts at its result)")
            elif r < -1:
                yield Step(f"descent {-r} (the same, from the R_k and U_k of descent {-r - 1})")
            elif r < 0:
                yield Step(
                    f"descent {-r} (every other slack at U_i = D_i − R_i, R_i τi's pre-pass or latest descent "
                    "result: no slack of the rounds exceeds U_i; each search starts at τk's R_k and updates R_k "
                    "and U_k; the rounds then start at R_k)"
                )
            elif decided:
                decided = False
                yield Step(
                    f"round {r}, for the per-task bounds only (the verdict is already decided): in index order, "
                    "with the slacks already updated"
                )
            else:
                yield Step(f"round {r} (in index order, with the slacks already updated)")
        D_k = int(ts.D[k])
        path = iterates(chain)
        evaluations = f" ({len(chain) - 1} evaluations)" if len(chain) > 12 else ""
        if chain[-1] > D_k:
            if r == 0:
                why = "no slack exceeds D_i − C_i, so no round can bound it: not proven"
            elif r < 0:
                why = "no slack of the rounds exceeds U_i, so no round can bound it: not proven"
                decided = True
            else:
                why = "no bound"
            end = f" > D = {D_k}: {why}"
        elif r == 0:
            end = f" (fixed point ≤ D = {D_k})"
        elif r < 0:
            end = f" (fixed point ≤ D = {D_k}), U = {D_k - chain[-1]}"
        else:
            end = f" (fixed point ≤ D = {D_k}), S = {D_k - chain[-1]}"
        yield Step(f"  {ts.label(k)}: R = {path}{evaluations}{end}")
    if it.verdict is True:
        yield Step(f"round {it.rounds}: R_k ≤ D_k for every task: schedulable")
    elif it.verdict is False and it.descent_task is not None:
        failing = [k for k in range(ts.n) if it.response_times[k] is None]
        yield Step(
            f"after round {it.rounds}: no bound for {task_labels(ts, failing)}; the descent showed that no round "
            f"can bound {ts.label(it.descent_task)}: not proven"
        )
    elif it.verdict is False and it.precheck_task is None:
        failing = [k for k in range(ts.n) if it.response_times[k] is None]
        yield Step(
            f"round {it.rounds} changed no slack: the fixed point, with no bound for {task_labels(ts, failing)}: "
            "not proven"
        )
    elif it.verdict == "unknown":
        why = Work(work_budget).describe() if it.work_exhausted else f"the budget of {count(budget, 'evaluation')} ran out"
        where = f"round {it.rounds}" if it.rounds else (f"in descent {it.descents}" if it.descents else "in the pre-pass")
        yield Step(f"unknown: {why} ({where})")


def reference(ts: TaskSet, m: int, budget: int = DEFAULT_BUDGET, work_budget: int | None = REFERENCE_WORK) -> Verdict:
    """Exact RTA verdict (True, False or "unknown" when a budget runs out)."""
    return iterate(ts, m, budget, work_budget).verdict


def explain(ts: TaskSet, m: int, budget: int = DEFAULT_BUDGET, work_budget: int | None = REFERENCE_WORK) -> Explanation:
    """Per-task response-time bounds (None where the last search exceeded D_k) and slacks.

    When the descent rejects, the rounds still run (with what is left of the budgets) for the
    per-task bounds; the verdict and the evaluation count are the descent's.
    """
    it = iterate(ts, m, budget, work_budget, bounds=True)
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
    elif it.descent_task is not None:
        summary = (
            f"{ts.label(it.descent_task)} has no bound ≤ D_k even with every other slack at an upper bound of "
            f"what the rounds can reach (descent {it.descents})"
        )
        summary += f"; after {count(it.rounds, 'round')}, no bound ≤ D_k for {task_labels(ts, failing)}"
    elif it.verdict is True:
        worst = max(range(ts.n), key=lambda k: (it.response_times[k] or 0) / int(ts.D[k]))
        summary = (
            f"R_k ≤ D_k for every task after {count(it.rounds, 'round')}; tightest {ts.label(worst)}: "
            f"R = {it.response_times[worst]} ≤ D = {int(ts.D[worst])}"
        )
    elif it.verdict is False:
        summary = f"fixed point after {count(it.rounds, 'round')}; no bound ≤ D_k for " + task_labels(ts, failing)
    elif it.work_exhausted:
        summary = f"unknown: {Work(work_budget).describe()} after {it.steps} response-time evaluations"
    else:
        summary = f"budget of {count(budget, 'response-time evaluation')} exhausted (unknown)"
    return iteration_explanation(
        it.verdict, summary, rows, rounds=it.rounds, steps=it.steps, failing=failing,
        precheck_rejected=it.precheck_task is not None, budget=budget, work_budget=work_budget,
        derivation=lambda: steps(ts, m, budget, work_budget),
        extra={"descent_rejected": it.descent_task is not None},
    )  # fmt: skip


#: A horizon longer than any window (every time value is < 2**33): "linear for good".
_FOREVER = 1 << 60
#: A search computes the linear piece (below) only when its last step was shorter than
#: 1/LONG_CLIMB of the distance left to D_k, i.e. when many more evaluations may follow.
LONG_CLIMB = 8
#: Twice the cost of a linear piece (``_linear_piece``) in plain passes over the tasks (about 2.5
#: passes, measured on the growth sets; papers/bertogna-cirinei2007.md, "Performance").
_PIECE_COST2 = 5
#: Credit of the linear pieces at the start of a set (see ``_piece_credit``), in task terms:
#: the set starts with _PIECE_CREDIT_TERMS // n (in half passes), so the trial costs the same
#: work at every n. At n = 10 that is 64: after about 20 pieces that covered one evaluation each,
#: and nothing that repaid them, the set goes on with plain passes only. A smaller credit stops
#: too early where the pieces pay; a fixed credit at every n wastes work at large n.
_PIECE_CREDIT_TERMS = 640
#: Rows of the integer workspace of ``_rta_set`` (each of length ≥ n).
_SLACK, _LARGEST, _LOWEST, _J, _E, _LAST_R, _LAST_USED = 0, 1, 2, 3, 4, 5, 6
_ROWS = 7
#: Results of ``_least_fixed_point`` besides a bound R ≥ C_k ≥ 1.
_OVER_DEADLINE = -1  # the search exceeded D_k
_OUT_OF_BUDGET = -2  # ``budget`` evaluations did not suffice


@kernel(counted=False)
def _linear_piece(C, T, inv_T, J, E, R, cap):
    # (Σ_{i≠k} t_i(R), slope b, horizon H) of the linear piece at R (see _least_fixed_point).
    n = C.shape[0]
    total = 0
    slope = 0
    horizon = _FOREVER
    for i in range(n):
        c = C[i]
        jobs, rest = divmod_reciprocal_nb(R + E[i], T[i], inv_T[i])  # R + E_i < 2**33
        rising = rest < c
        w = jobs * c + (rest if rising else c)
        j = J[i]
        v = min(w, j, cap)
        if v == j:
            h = _FOREVER
        elif v == w and not rising:
            h = T[i] - rest
        elif v == w:
            slope += 1
            h = min(c - rest, j - v)
        else:
            slope += 1
            h = min(w, j) - v
        total += v
        horizon = min(horizon, h)
    return total, slope, horizon


#: Largest R + E_i for :func:`_plain_sum`'s 32-bit form (``_slack.floor_divmod_up32``'s range).
_NARROW_WINDOW = 2**31 - 1


@kernel(inline="always")
def _plain_sum(C, T, inv_T, J, E, R, cap, n, e_max):
    """Σ_{i≠k} min(W_i(R), J_i^k, cap) of a plain pass, exact (τk's own term is 0: J_k = 0).

    W_i(R) = ⌊(R + E_i)/T_i⌋ C_i + min(C_i, (R + E_i) mod T_i) (Eq. (4)/(8)). When every window
    R + E_i ≤ R + ``e_max`` fits in 31 bits, the quotient and remainder come from a reciprocal
    rounded up without a correction step (``rtsched.kernels.floor_divmod_up``'s proof, 0 ≤ a ≤ 2**48)
    in 32-bit operands (``_slack.floor_divmod_up32``, ``i32``: the same values; vector code on
    AVX2 hosts, issue #45), else from ``floor_divmod`` in int64 as before. Either way the same sum.
    """
    total = 0
    if R + e_max <= _NARROW_WINDOW:
        for i in range(n):
            jobs, rest = floor_divmod_up32(R + E[i], T[i], inv_T[i] * RECIPROCAL_UP)
            c = i32(C[i])
            total += min(jobs * c + min(c, rest), min(J[i], cap))
        return total
    for i in range(n):
        jobs, rest = divmod_reciprocal_nb(R + E[i], T[i], inv_T[i])
        total += min(jobs * C[i] + min(C[i], rest), min(J[i], cap))
    return total


@kernel(inline="always")
def _piece_credit(credit, linear, evaluations):
    # The credit after a pass that covered ``evaluations`` evaluations: a linear piece costs
    # about _PIECE_COST2 / 2 plain passes (the horizon's extra work) and saves one per
    # evaluation it covers, so the credit changes by 2·evaluations − _PIECE_COST2 per piece;
    # plain passes leave it. Only the speed depends on it, never an evaluation or a count.
    return credit + (2 * evaluations - _PIECE_COST2 if linear else 0)


@kernel(counted=False)
def _least_fixed_point(C, D, T, inv_T, m, k, start, S, work, budget, credit):
    # The search of ``iterate`` with slack bounds S, returning (R, evaluations charged, credit);
    # R is _OVER_DEADLINE or _OUT_OF_BUDGET when the search ends that way. ``work`` is the
    # integer workspace (rows _J and _E are used here), inv_T[i] = 1.0 / T[i]. ``credit``: what
    # the linear pieces have earned so far in this set (see _piece_credit); none is computed
    # once it is ≤ 0.
    #
    # rtsched's shortcut (linear pieces; it changes neither an evaluated value nor the count of
    # evaluations): every term t_i(R) = min(W_i(R), J_i^k, R − C_k + 1) is non-decreasing and
    # grows by at most 1 per tick (W_i does: its window grows by one tick, and at a period
    # boundary it loses nothing), so one pass over the tasks at R gives, with the phase of each
    # term, a horizon H and a slope b = #terms of slope 1 such that
    #     Σ_{i≠k} t_i(R + x) = G + b·x   for 0 ≤ x ≤ H   (G = the sum at R).
    # The evaluations of (RTA-EDF) that the reference makes at points in [R, R + H] are then
    # C_k + ⌊(G + b·(R' − R))/m⌋, computed without a pass over the tasks; and when b = m each
    # of them adds the same step c to R', so a run of them is counted in one division. Only a
    # point past R + H needs a new pass. Each evaluation is charged to ``budget`` as the
    # reference charges it.
    #
    # Horizon of one term (W_i is linear between the phases of its window R + E_i = q T_i + r:
    # slope 1 for C_i − r more ticks if r < C_i, else slope 0 for T_i − r more ticks):
    #   - the minimum is J_i^k: constant for good (the other two never decrease);
    #   - the minimum is W_i in a flat phase: constant while the phase lasts;
    #   - the minimum is W_i rising (the cap may tie; both slope 1): slope 1 until the phase
    #     ends or the value reaches J_i^k;
    #   - the minimum is the cap alone: slope 1 until it reaches min(W_i(R), J_i^k) (W_i never
    #     decreases, so it stays at least its value at R).
    J = work[_J]
    E = work[_E]
    C_k = C[k]
    D_k = D[k]
    n = C.shape[0]
    e_max = np.int64(0)
    e_min = np.int64(0)
    for i in range(n):  # what depends on the slacks but not on R: once per search
        J[i] = edf_interference_bound_nb(C[i], T[i], S[i], D_k)  # J_i^k, Eq. (5)/(9)
        E[i] = D[i] - C[i] - S[i]  # W_i's window is R + E_i long, Eq. (4)/(8)
        e_max = max(e_max, E[i])
        e_min = min(e_min, E[i])
    if e_min < 0:  # (not for slacks ≤ D_i − C_i) the int64 form of _plain_sum
        e_max = np.int64(_NARROW_WINDOW) + 1
    # τk does not interfere with itself: with J_k = 0 its term min(W_k, 0, ·) is 0 for good, so
    # the sum needs no branch and no correction (every other term is ≥ 0 as well).
    J[k] = 0
    R = start
    used = 0
    if credit <= 0:  # plain passes only, without the bookkeeping of the pieces
        while True:
            if used == budget:
                return _OUT_OF_BUDGET, used, credit
            used += 1
            cap = R - C_k + 1
            total = _plain_sum(C, T, inv_T, J, E, R, cap, n, e_max)
            new = C_k + floor_div_nb(total, m)  # (RTA-EDF), as below
            if new > D_k:
                return _OVER_DEADLINE, used, credit
            if new == R:
                return R, used, credit
            R = new
    long_climb = False  # whether the last step suggests many more: then find the linear piece
    pieces = credit > 0  # whether linear pieces have repaid their cost in this set so far
    while True:
        if used == budget:
            return _OUT_OF_BUDGET, used, credit
        cap = R - C_k + 1
        total = 0  # Σ_{i≠k} min(W_i(R), J_i^k, R − C_k + 1), exact, < 2**47
        slope = 0
        horizon = 0
        linear = long_climb
        first = used
        if linear:
            total, slope, horizon = _linear_piece(C, T, inv_T, J, E, R, cap)
        else:  # the plain sum, branch-free (a short climb rarely repays the horizon's cost)
            total = _plain_sum(C, T, inv_T, J, E, R, cap, n, e_max)
        base = R
        top = R + horizon
        while True:  # the evaluations at points of [base, top]
            used += 1
            # (RTA-EDF). A float division (exact: the numerator + m < 2**53, see floor_div_nb)
            # because an int64 division is far slower; the numerator is < 2**48.
            new = C_k + floor_div_nb(total + slope * (R - base), m)
            if new > D_k:
                return _OVER_DEADLINE, used, _piece_credit(credit, linear, used - first)
            if new == R:
                return R, used, _piece_credit(credit, linear, used - first)
            if slope == m and new <= top:
                # Every evaluation at new, new + step, … ≤ top adds ``step``: count them at once.
                step = new - R
                inside = (top - new) // step + 1
                allowed = min(inside, budget - used)
                passing = (D_k - new) // step  # evaluations from ``new`` that stay ≤ D_k
                if passing < allowed:
                    used += passing + 1
                    return _OVER_DEADLINE, used, _piece_credit(credit, linear, used - first)
                used += allowed
                new += allowed * step
                if allowed < inside:
                    return _OUT_OF_BUDGET, used, credit
            long_climb = pieces and D_k - new > LONG_CLIMB * (new - R)
            R = new
            if R > top:
                break
            if used == budget:
                return _OUT_OF_BUDGET, used, credit
        credit = _piece_credit(credit, linear, used - first)
        pieces = credit > 0
        long_climb = long_climb and pieces


@kernel(counted=False)
def _descent(C, D, T, inv_T, m, R_lo, U, work, budget, credit):
    # The descent of ``iterate``: (CONTINUE, REJECT or UNKNOWN, evaluations charged, credit).
    # U_i = D_i − R_lo[i] bounds every slack the rounds can reach; in place, each search from
    # R_lo[k] with the slacks U raises R_lo[k] and lowers U_k. ``U``: a free row of length n.
    n = C.shape[0]
    for i in range(n):
        U[i] = D[i] - R_lo[i]
    steps = 0
    for _ in range(DESCENT_ROUNDS):
        raised = False
        for k in range(n):
            R, used, credit = _least_fixed_point(C, D, T, inv_T, m, k, R_lo[k], U, work, budget - steps, credit)
            steps += used
            if R == _OUT_OF_BUDGET:
                return UNKNOWN, steps, credit
            if R == _OVER_DEADLINE:
                return REJECT, steps, credit
            raised = raised or R != R_lo[k]
            R_lo[k] = R
            U[k] = D[k] - R
        if not raised:
            break
    return CONTINUE, steps, credit


@kernel(counted=False)
def _rta_set(C, D, T, m, budget, work, inv_T, slack_work, slack_fwork):
    # Same verdict as ``iterate``; where the searches run, the same searches, bounds and count of
    # (RTA-EDF) evaluations, so the budget runs out at the same point. ``work``: the integer
    # workspace (_ROWS rows of length ≥ n), ``inv_T``: float scratch of length ≥ n;
    # ``slack_work``/``slack_fwork``: the workspace of BCL-iter's slack iteration
    # (``_slack``, rows of length ≥ padded_width(n)).
    n = C.shape[0]
    # rtsched's acceptance through BCL-iter (papers/bertogna-cirinei2007.md): if BCL-iter
    # accepts after R rounds (its pre-check counted), RTA's descent (if it runs) does not
    # reject and RTA accepts within R − 1 rounds after it, and every search takes at most
    # D_k − C_k + 1 evaluations, so the reference accepts within (R + d) · Σ_k (D_k − C_k + 1)
    # evaluations (pre-pass, d descent rounds, rounds; d = DESCENT_ROUNDS if the descent runs,
    # else 0). Where that is within the budget, the
    # verdict is ACCEPT without a search. R ≤ 3 when slack_scan's certificate holds; otherwise
    # the least fixed point decides BCL-iter's verdict and its rounds are bounded or counted.
    per_round = 0
    C_f = C[0]
    D_f = D[0]
    for i in range(n):
        per_round += D[i] - C[i] + 1
        denser = C[i] * D_f > C_f * D[i]  # products < 2**62: exact
        C_f = C[i] if denser else C_f
        D_f = D[i] if denser else D_f
    if per_round > budget:
        per_round = budget + 1  # no shortcut below (and no overflow)
    else:
        # rtsched's division-free rejection (papers/bertogna-cirinei2007.md): in the pre-pass
        # search of the densest task τf, each term of (RTA-EDF) at R ∈ [C_f, D_f] is at least
        # min(a_i, x), x = R − C_f + 1, with a_i = C_i if D_f ≥ T_i, else
        # min(C_i, max(0, D_f − D_i + C_i)) (≤ W_i(R) and ≤ J_i^f at slack D_i − C_i). The sum
        # Σ_{i≠f} min(a_i, x) − m x is concave in x: if it is ≥ 0 at x = 1 and x = D_f − C_f + 1,
        # every R maps above itself and the search exceeds D_f; the budget cannot run out
        # within the pre-pass (Σ (D_k − C_k + 1) ≤ budget), so the reference rejects.
        cap = D_f - C_f + 1
        at_cap = 0
        at_one = 0
        for i in range(n):
            C_i = C[i]
            a = C_i if D_f >= T[i] else min(C_i, max(D_f - D[i] + C_i, 0))
            at_cap += min(a, cap)
            at_one += min(a, 1)
        # τf's own term: a_f = C_f ≥ 1 (D_f ≥ T_f only if D_f = T_f)
        if at_one - 1 >= m and at_cap - min(C_f, cap) >= m * cap:
            return REJECT
    first = -1  # the task the pre-pass searches first, if its order is free (see below)
    descent = (3 + DESCENT_ROUNDS) * per_round <= budget  # whether the descent runs (< 2**51: no overflow)
    if 3 * per_round <= budget:
        scan = slack_scan(C, D, T, 0, n, m, slack_work, slack_fwork)
        if scan == REJECT:
            # BCL-iter's pre-check fails for this task: a likely failure of RTA's pre-pass too.
            first = slack_work[W_INFO, 0]
        if scan == ACCEPT:
            return ACCEPT
        if scan == CONTINUE:
            verdict, rounds = slack_fixed_point(C, D, T, 0, n, m, slack_work, slack_fwork)
            if verdict == ACCEPT:
                most_rounds = budget // per_round - (DESCENT_ROUNDS if descent else 0)  # ≥ 3
                if rounds <= most_rounds:
                    return ACCEPT
                verdict, rounds = slack_rounds(C, D, T, 0, n, m, most_rounds, slack_work, slack_fwork)
                if verdict == ACCEPT:  # within most_rounds rounds
                    return ACCEPT
    S = work[_SLACK, :n]
    S_max = work[_LARGEST, :n]
    R_lo = work[_LOWEST, :n]
    last_R = work[_LAST_R]
    last_used = work[_LAST_USED]
    inv = inv_T[:n]
    pre_pass_bound = 0  # evaluations the whole pre-pass can take at most (< 2**48)
    for i in range(n):
        S[i] = 0
        S_max[i] = D[i] - C[i]
        inv[i] = 1.0 / np.float64(T[i])
        pre_pass_bound += D[i] - C[i] + 1  # a search from C_k climbs strictly until it stops
    steps = 0
    credit = _PIECE_CREDIT_TERMS // max(n, 1)  # linear pieces on trial for this set (see _piece_credit)
    # The pre-pass rejects if ANY search exceeds its deadline, and its searches are independent
    # (all use S_max), so their order changes neither the verdict nor the bounds, only where
    # the budget would run out. When the budget cannot run out within the pre-pass, search first
    # the task whose BCL-iter pre-check failed above, if any, else the densest task: on random
    # sets these are the ones that fail most often.
    if pre_pass_bound <= budget:
        if first < 0:
            first = 0
            for k in range(1, n):
                if C[k] * D[first] > C[first] * D[k]:  # products < 2**62: exact
                    first = k
        R, used, credit = _least_fixed_point(C, D, T, inv, m, first, C[first], S_max, work, budget, credit)
        steps += used
        if R == _OVER_DEADLINE:
            return REJECT
        R_lo[first] = R
    for k in range(n):  # the (rest of the) pre-pass, with every other slack at D_i − C_i
        if k == first:
            continue
        R, used, credit = _least_fixed_point(C, D, T, inv, m, k, C[k], S_max, work, budget - steps, credit)
        steps += used
        if R == _OUT_OF_BUDGET:
            return UNKNOWN
        if R == _OVER_DEADLINE:
            return REJECT
        R_lo[k] = R
    if descent:  # the descent (see ``iterate``)
        verdict, used, credit = _descent(C, D, T, inv, m, R_lo, S_max, work, budget - steps, credit)
        steps += used
        if verdict != CONTINUE:
            return verdict
    # The rounds. A search depends only on the other tasks' slacks and its start R_lo[k]: if
    # neither changed since τk's previous search, n searches earlier, it would repeat the same
    # evaluations, so its result and its evaluation count are reused, and the budget is charged
    # exactly as the reference is. ``last_change`` indexes the latest slack change; ``fresh``:
    # every search of the round runs (the first round).
    search = 0
    last_change = 0
    fresh = True
    while True:
        schedulable = True
        updated = False
        for k in range(n):
            if fresh or last_change > search - n:
                R, used, credit = _least_fixed_point(C, D, T, inv, m, k, R_lo[k], S, work, budget - steps, credit)
                if R == _OUT_OF_BUDGET:
                    return UNKNOWN
                last_R[k] = R
                last_used[k] = used
            elif last_used[k] > budget - steps:
                return UNKNOWN  # the repeated search would exhaust the budget
            R = last_R[k]
            steps += last_used[k]
            search += 1
            if R == _OVER_DEADLINE:
                schedulable = False
                continue
            if D[k] - R != S[k]:
                S[k] = D[k] - R
                updated = True
                last_change = search - 1
        fresh = False
        if schedulable:
            return ACCEPT
        if not updated:
            return REJECT


@kernel
def _rta_one(C, D, T, m, budget):
    # The serial one-set kernel (what rtsched.check() calls): a workspace for this set only.
    n = C.shape[0]
    width = padded_width(n)
    return _rta_set(
        C,
        D,
        T,
        m,
        budget,
        np.empty((_ROWS, n), dtype=np.int64),
        np.empty(n, dtype=np.float64),
        np.empty((SLACK_ROWS, width), dtype=np.int64),
        np.empty((SLACK_FLOAT_ROWS, width), dtype=np.float64),
    )


@batch_kernel
def _rta_kernel(C, D, T, offsets, m, budget, out):
    n_sets = out.shape[0]
    max_n = largest_set(offsets)
    n_chunks = chunk_count(offsets)
    for c in prange(n_chunks):
        work = np.empty((_ROWS, max_n), dtype=np.int64)  # one workspace per chunk of sets
        inv_T = np.empty(max_n, dtype=np.float64)
        slack_work = np.empty((SLACK_ROWS, padded_width(max_n)), dtype=np.int64)
        slack_fwork = np.empty((SLACK_FLOAT_ROWS, padded_width(max_n)), dtype=np.float64)
        first, last = c * n_sets // n_chunks, (c + 1) * n_sets // n_chunks
        _rta_sets(C, D, T, offsets, first, last, m, budget, out, work, inv_T, slack_work, slack_fwork)


@kernel(counted=False)
def _rta_sets(C, D, T, offsets, first, last, m, budget, out, work, inv_T, slack_work, slack_fwork):
    # Sets first, …, last − 1 on one workspace; uncounted, so the per-set slices cost no
    # reference counting (rtsched.kernels.kernel, counted=False).
    for s in range(first, last):
        lo, hi = offsets[s], offsets[s + 1]
        out[s] = _rta_set(C[lo:hi], D[lo:hi], T[lo:hi], m, budget, work, inv_T, slack_work, slack_fwork)


def _rta_serial(C, D, T, offsets, m, budget, out):  # the serial twin (rtsched.kernels.serial)
    max_n = largest_set_size(offsets)
    _rta_sets(
        C, D, T, offsets, 0, out.shape[0], m, budget, out,
        np.empty((_ROWS, max_n), dtype=np.int64), np.empty(max_n, dtype=np.float64),
        np.empty((SLACK_ROWS, padded_width.py_func(max_n)), dtype=np.int64),
        np.empty((SLACK_FLOAT_ROWS, padded_width.py_func(max_n)), dtype=np.float64),
    )  # fmt: skip


_rta_kernel.serial = _rta_serial


#: Why this analysis refuses arbitrary deadlines (D > T): ``rtsched list`` and ``check`` show it
#: (issue #47; papers/arbitrary-deadlines-reductions.md, "Global EDF").
ARBITRARY_WHY = (
    "needs constrained deadlines (D <= T): Bertogna & Cirinei (RTSS 2007) analyse constrained deadlines "
    "(one pending job per task); no D > T form was found, and min(D, T) is unsound under EDF; use gfb or "
    "load"
)


ANALYSES = (
    Analysis(
        name="rta", title="Response-time analysis (G-EDF)", kind="sufficient", order=4,
        policy="global-edf", policy_order=0,
        citation=CITATION, note="papers/bertogna-cirinei2007.md",
        reference=reference, explain=explain, kernel=_rta_kernel, one=_rta_one,
        budget=DEFAULT_BUDGET, budget_unit="response-time evaluations", compile_seconds=9.0,
        deadlines_note=ARBITRARY_WHY,
    ),
)
