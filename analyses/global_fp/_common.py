"""Code shared by the global fixed-priority (G-FP) tests of this family (private module).

Model of every test here: sporadic tasks τi = (C_i, D_i, T_i), integer time, constrained deadlines
(C ≤ D ≤ T) in the formulas, arbitrary deadlines (D > T allowed) through the reduction below, m
identical processors, preemptive global fixed priorities (the m highest-priority
pending jobs run; work-conserving). **Priority is the order of the tasks in the set: task 0 has
the highest priority**; hp(k) = {0, …, k − 1} (``rm-us`` is the exception: it prescribes its own
priority rule). The workload bounds are in ``_workload.py``.

Arbitrary deadlines (rtsched's own reduction, papers/arbitrary-deadlines-reductions.md, Theorem 1):
gfp-bcl, gfp-da, gfp-da-lc, gfp-rta and gfp-rta-lc decide a set with some D_i > T_i by deciding
the constrained set with D'_i = min(D_i, T_i) in the same task order (:func:`reduce_deadlines`,
the decorators :func:`on_reduced_reference` and :func:`on_reduced_explain`, and in the kernels
:func:`reduced_deadlines_nb`). If the test accepts that set, every job of τi ends within D'_i ≤ T_i
of its release, so no job of τi is pending when the next one is released; the schedule of the
original set (same releases, same execution times, same task-order priorities, which do not
depend on D) is then the same schedule, and each job ends by D'_i ≤ D_i. A set with some C_i > T_i
(a task with utilization above 1, whose backlog grows without bound) is rejected outright.

Shared here:

- :data:`DEFAULT_BUDGET`, :class:`ResponseTimeRun`, :func:`rta_terms`, :func:`rta_iterate`,
  :func:`rta_steps`, ``_rta_explain`` and the kernel ``_rta_set``: the response-time pass in
  priority order, with ``limited=False`` the (RTA-FP) recurrence of Bertogna & Cirinei (RTSS 2007;
  ``rta_fp.py``, papers/bertogna-cirinei2007.md) and with ``limited=True`` the (RTA-LC) recurrence
  of Guan, Stigge, Yi, Yu (RTSS 2009, Eq. (5)–(12); ``rta_lc.py``, papers/guan2009-rta-lc.md);
- ``_interference``: the Numba sum of the clipped interference terms, used by the response-time
  kernel and by the deadline-analysis kernel of Davis & Burns (RTS 2011; ``deadline_analysis.py``,
  papers/davis-burns2011-opa.md);
- ``_rows`` and ``_global_fp``, the registry entry factory of the family.

Budgets: ``gfp-rta`` and ``gfp-rta-lc`` iterate; one unit is one evaluation of the right side of
(RTA-FP)/(RTA-LC) (k terms for τk), default :data:`DEFAULT_BUDGET`. The reference and the kernel
run the same evaluations in the same order, so they run out at the same point; running out is
"unknown", never a rejection. Each search is monotone (the right side is non-decreasing in x and
starts at ≥ C_k), so it ends within D_k − C_k + 2 evaluations.

Exactness: every quantity is an integer below 2**51 (see ``_workload.py``); the kernels compute in
int64 exactly what the references compute in Python ints.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from rtsched.analyses.global_fp._workload import (
    top_sum,
    top_sum_nb,
    workload_ci,
    workload_ci_nb,
    workload_nc,
    workload_nc_nb,
    workload_response,
    workload_response_nb,
)
from rtsched.budget import REFERENCE_WORK, Work, WorkExhausted
from rtsched.errors import InputError
from rtsched.kernels import ACCEPT, REJECT, UNKNOWN, kernel
from rtsched.model import TaskSet
from rtsched.registry import Analysis
from rtsched.result import UNKNOWN as UNKNOWN_VERDICT
from rtsched.result import Explanation, Step, Verdict, as_steps, count, iterates

__all__ = [
    "ARBITRARY",
    "DEFAULT_BUDGET",
    "ResponseTimeRun",
    "on_reduced_explain",
    "on_reduced_reference",
    "reduce_deadlines",
    "reduced_deadlines_nb",
    "rta_entry",
    "rta_iterate",
    "rta_steps",
    "rta_terms",
]

#: Default work budget of gfp-rta and gfp-rta-lc: evaluations of the response-time recurrence per set.
DEFAULT_BUDGET = 200_000

#: The deadline models of the tests that take arbitrary deadlines through :func:`reduce_deadlines`.
ARBITRARY = ("implicit", "constrained", "arbitrary")
#: Every analysis of the family is a sufficient test for global fixed priorities; all but rm-us
#: take arbitrary deadlines through the reduction D'_i = min(D_i, T_i).
_global_fp = functools.partial(Analysis, kind="sufficient", policy="global-fp", policy_order=4, deadlines=ARBITRARY)
#: The entries of the response-time analyses (gfp-rta, gfp-rta-lc): iterative, with the budget of
#: :func:`rta_iterate` (one unit: one evaluation of the right side of the fixed-point equation).
rta_entry = functools.partial(_global_fp, budget=DEFAULT_BUDGET, budget_unit="response-time evaluations")


@dataclass(frozen=True)
class Reduction:
    """The constrained set a G-FP test decides for ``ts`` (papers/arbitrary-deadlines-reductions.md).

    ``taskset`` has D'_i = min(D_i, T_i), the order, names and name of ``ts`` (``None`` if some
    C_i > T_i: no constrained set exists and the verdict is False); ``reduced`` lists (i, D_i, D'_i)
    for the tasks with D_i > T_i; ``overloaded`` the tasks with C_i > T_i.
    """

    taskset: TaskSet | None
    reduced: tuple[tuple[int, int, int], ...]
    overloaded: tuple[int, ...]


def reduce_deadlines(ts: TaskSet) -> Reduction:
    """The reduction of Theorem 1 (papers/arbitrary-deadlines-reductions.md): D'_i = min(D_i, T_i).

    A set with constrained deadlines is returned as it is (``reduced`` empty).
    """
    rows = [(int(c), int(d), int(t)) for c, d, t in zip(ts.C, ts.D, ts.T, strict=True)]
    reduced = tuple((i, d, t) for i, (_, d, t) in enumerate(rows) if d > t)
    overloaded = tuple(i for i, (c, _, t) in enumerate(rows) if c > t)
    if overloaded:
        return Reduction(None, reduced, overloaded)
    if not reduced:
        return Reduction(ts, (), ())
    constrained = TaskSet(
        [c for c, _, _ in rows], [min(d, t) for _, d, t in rows], [t for _, _, t in rows], ts.names, name=ts.name
    )
    return Reduction(constrained, reduced, ())


def on_reduced_reference(reference: Callable[..., Verdict]) -> Callable[..., Verdict]:
    """``reference`` applied to the reduced set (False if some C_i > T_i); constrained sets unchanged."""

    @functools.wraps(reference)
    def wrapped(ts: TaskSet, m: int, *args: Any, **kwargs: Any) -> Verdict:
        reduction = reduce_deadlines(ts)
        if reduction.taskset is None:
            return False
        return reference(reduction.taskset, m, *args, **kwargs)

    return wrapped


def on_reduced_explain(explain: Callable[..., Explanation]) -> Callable[..., Explanation]:
    """``explain`` applied to the reduced set, saying that the reduction was applied (and to which tasks)."""

    @functools.wraps(explain)
    def wrapped(ts: TaskSet, m: int, *args: Any, **kwargs: Any) -> Explanation:
        reduction = reduce_deadlines(ts)
        if reduction.taskset is None:
            i = reduction.overloaded[0]
            summary = (
                f"{ts.label(i)} has C = {int(ts.C[i])} > T = {int(ts.T[i])}: utilization above 1, its jobs run one "
                "at a time, so its backlog grows without bound and it misses (not schedulable on any m)"
            )
            rows = [
                {"task": j, "C": int(ts.C[j]), "T": int(ts.T[j]), "overloaded": j in reduction.overloaded}
                for j in range(ts.n)
            ]
            return Explanation(False, summary, {"overloaded_tasks": reduction.overloaded}, rows, steps=[summary])
        inner = explain(reduction.taskset, m, *args, **kwargs)
        if not reduction.reduced:
            return inner
        listed = ", ".join(f"{ts.label(i)} D = {d} → {dp}" for i, d, dp in reduction.reduced)
        note = (
            f"arbitrary deadlines: analysed with D'_i = min(D_i, T_i) ({listed}); accepted with D' means every job "
            "ends within its period, so the schedule is the same and every D_i ≥ D'_i is met "
            "(papers/arbitrary-deadlines-reductions.md, Theorem 1)"
        )
        evidence = {
            **inner.evidence,
            "deadline_reduction": [{"task": i, "D": d, "D_reduced": dp} for i, d, dp in reduction.reduced],
        }
        inner_steps = inner.steps

        def steps() -> Iterator[Step | str]:
            yield Step(note)
            yield from as_steps(inner_steps)

        short = f"[D > T: analysed with D' = min(D_i, T_i) ({listed}); papers/arbitrary-deadlines-reductions.md]"
        return Explanation(inner.verdict, f"{inner.summary} {short}", evidence, inner.per_task, steps=steps)

    return wrapped


@kernel(inline="always")
def reduced_deadlines_nb(C, D, T, out):
    """Numba twin of :func:`reduce_deadlines`: out[i] = min(D_i, T_i); False if some C_i > T_i."""
    for i in range(C.shape[0]):
        if C[i] > T[i]:
            return False
        out[i] = min(D[i], T[i])
    return True


def _rows(ts: TaskSet) -> list[tuple[int, int, int]]:
    return [(int(c), int(d), int(t)) for c, d, t in zip(ts.C, ts.D, ts.T, strict=True)]


@kernel(inline="always")
def _interference(C, T, R, k, x, m, limited, guan_ci, diff, buf):
    """Σ_{i<k} of the interference terms on τk at x, each clipped to x − C_k + 1.

    W^R_i(x) with the bounds ``R`` (W^D_i with R = D: (DA), Eq. (3)); with ``limited``,
    Σ I^NC_i plus the m − 1 largest I^X_i − I^NC_i, where I^X_i is W^CI_i(x) if ``guan_ci``
    (RTA-LC, Guan et al. Eq. (9)–(11)) else W^R_i(x) (DA-LC, Davis & Burns Eq. (14)–(15)).
    ``diff``, ``buf``: scratch of length ≥ k (unused without ``limited``).
    """
    cap = x - C[k] + 1
    total = 0
    if limited:
        for i in range(k):
            nc = min(workload_nc_nb(C[i], T[i], x), cap)
            total += nc
            if guan_ci:
                carry = workload_ci_nb(C[i], T[i], R[i], x)
            else:
                carry = workload_response_nb(C[i], T[i], R[i], x)
            diff[i] = min(carry, cap) - nc
        total += top_sum_nb(diff[:k], m - 1, buf)
    else:
        for i in range(k):
            total += min(workload_response_nb(C[i], T[i], R[i], x), cap)
    return total


class _BudgetExhausted(Exception):
    pass


@dataclass(frozen=True)
class ResponseTimeRun:
    """Outcome of the response-time pass.

    The verdict, bounds R_k of the tasks analysed (None for the failing task and below), evaluations
    used, the failing task, and the last point x evaluated for it with the right side found there
    and its per-task interference terms.
    """

    verdict: Verdict
    response_times: tuple[int | None, ...]
    steps: int
    failing: int | None = None
    last_x: int | None = None
    last_value: int | None = None
    terms: tuple[dict[str, Any], ...] = ()
    work_exhausted: bool = False


def rta_terms(ts: TaskSet, k: int, R: list[int], m: int, x: int, limited: bool) -> tuple[int, list[dict[str, Any]]]:
    """The right side of (RTA-FP) (``limited=False``) or (RTA-LC) for τk at x, and its per-task interference terms.

    ``R`` gives the bounds R_i of hp(k).
    """
    rows = _rows(ts)
    C_k = rows[k][0]
    cap = x - C_k + 1
    terms: list[dict[str, Any]] = []
    if limited:
        for i, (c, _, t) in enumerate(rows[:k]):
            nc = min(workload_nc(c, t, x), cap)  # I^NC_i(x), Eq. (5), (7)
            ci = min(workload_ci(c, t, R[i], x), cap)  # I^CI_i(x), Eq. (6), (8)
            terms.append({"task": i, "I_NC": nc, "I_CI": ci, "I_DIFF": ci - nc})
        total = sum(x_["I_NC"] for x_ in terms) + top_sum([x_["I_DIFF"] for x_ in terms], m - 1)  # Ω_k, Eq. (9)-(11)
    else:
        for i, (c, d, t) in enumerate(rows[:k]):
            terms.append({"task": i, "I": min(workload_response(c, d, t, R[i], x), cap)})  # Eq. (8), clipped
        total = sum(x_["I"] for x_ in terms)
    return C_k + total // m, terms


def rta_iterate(
    ts: TaskSet,
    m: int,
    budget: int = DEFAULT_BUDGET,
    limited: bool = False,
    work_budget: int | None = REFERENCE_WORK,
    trace: list[list[int]] | None = None,
) -> ResponseTimeRun:
    """The response-time pass in priority order (Python ints).

    For each τk the least fixed point of (RTA-FP) or (RTA-LC) from x = C_k; the pass stops at the
    first task whose iterate exceeds D_k (reject), or when ``budget`` evaluations (or the reference
    work budget) are spent ("unknown"). ``trace`` (for :func:`rta_steps`) receives, per task
    searched, the values x = C_k, … up to the last evaluation.
    """
    if budget < 0:
        raise InputError(f"budget must be >= 0, got {budget}", field="budget")
    n = ts.n
    R: list[int] = []
    steps = 0
    work = Work(work_budget)
    try:
        for k in range(n):
            C_k, D_k = int(ts.C[k]), int(ts.D[k])
            x = C_k
            if trace is not None:
                trace.append([x])
            while True:
                if steps == budget:
                    raise _BudgetExhausted
                work.spend(k + 1)
                steps += 1
                value, terms = rta_terms(ts, k, R, m, x, limited)
                if trace is not None:
                    trace[-1].append(value)
                if value > D_k:
                    padded = tuple(R) + (None,) * (n - k)
                    return ResponseTimeRun(False, padded, steps, k, x, value, tuple(terms))
                if value == x:
                    break
                x = value
            R.append(x)
    except _BudgetExhausted:
        return ResponseTimeRun(UNKNOWN_VERDICT, tuple(R) + (None,) * (n - len(R)), steps)
    except WorkExhausted:
        return ResponseTimeRun(UNKNOWN_VERDICT, tuple(R) + (None,) * (n - len(R)), steps, work_exhausted=True)
    return ResponseTimeRun(True, tuple(R), steps)


def _rta_explain(ts: TaskSet, m: int, budget: int, limited: bool, work_budget: int | None) -> Explanation:
    run = rta_iterate(ts, m, budget, limited, work_budget)
    name = "RTA-LC" if limited else "RTA"
    rows = [
        {"task": k, "response_time": run.response_times[k], "deadline": int(ts.D[k])}
        for k in range(ts.n)
        if run.response_times[k] is not None or k == run.failing
    ]
    evidence: dict[str, Any] = {"steps": run.steps, "budget": budget, "work_budget": work_budget}
    if run.verdict is True:
        worst = max(range(ts.n), key=lambda k: Fraction(run.response_times[k] or 0, int(ts.D[k])))
        summary = (
            f"R_k ≤ D_k for every task ({name}); tightest {ts.label(worst)}: "
            f"R = {run.response_times[worst]} ≤ D = {int(ts.D[worst])}"
        )
    elif run.verdict is False:
        k = run.failing
        assert k is not None
        summary = (
            f"{ts.label(k)} has no response-time bound ≤ D_k = {int(ts.D[k])} ({name}): at x = {run.last_x} "
            f"the right side is {run.last_value}; bounds of the {count(k, 'higher-priority task')}: "
            + (", ".join(str(r) for r in run.response_times[:k]) or "none")
        )
        evidence.update(
            failing_task=k, last_x=run.last_x, last_value=run.last_value, interference_terms=list(run.terms)
        )
    elif run.work_exhausted:
        summary = f"unknown: {Work(work_budget).describe()} after {count(run.steps, 'response-time evaluation')}"
    else:
        summary = f"budget of {count(budget, 'response-time evaluation')} exhausted (unknown)"
    return Explanation(
        run.verdict, summary, evidence, rows, steps=lambda: rta_steps(ts, m, budget, limited, work_budget)
    )


def rta_steps(
    ts: TaskSet, m: int, budget: int = DEFAULT_BUDGET, limited: bool = False, work_budget: int | None = REFERENCE_WORK
) -> Iterator[Step]:
    """The searches of :func:`rta_iterate` in priority order: x = C_k → … → R_k (or > D_k)."""
    chains: list[list[int]] = []
    run = rta_iterate(ts, m, budget, limited, work_budget, trace=chains)
    if limited:
        yield Step(
            f"(RTA-LC) on m = {m}, priority = task order: x ← C_k + ⌊Ω_k(x)/m⌋, Ω_k(x) = Σ_{{i<k}} I^NC_i(x) + the "
            f"{m - 1} largest I^CI_i(x) − I^NC_i(x), from x = C_k to its least fixed point R_k"
        )
    else:
        yield Step(
            f"(RTA-FP) on m = {m}, priority = task order: x ← C_k + ⌊(1/m) Σ_{{i<k}} min(W^R_i(x), x − C_k + 1)⌋ "
            "from x = C_k to its least fixed point R_k (W^R_i uses R_i)"
        )
    for k, chain in enumerate(chains):
        D_k = int(ts.D[k])
        path = iterates(chain)
        evaluations = f" ({len(chain) - 1} evaluations)" if len(chain) > 12 else ""
        if len(chain) > 1 and chain[-1] > D_k:
            yield Step(f"{ts.label(k)}: x = {path}{evaluations} > D_k = {D_k}: no bound, not proven")
        elif len(chain) > 1 and chain[-1] == chain[-2]:
            yield Step(f"{ts.label(k)}: x = {path}{evaluations}: R_k = {chain[-1]} ≤ D_k = {D_k}")
    if run.verdict is True:
        yield Step("R_k ≤ D_k for every task: schedulable by G-FP in task order")
    elif run.verdict == UNKNOWN_VERDICT:
        why = (
            Work(work_budget).describe()
            if run.work_exhausted
            else f"the budget of {count(budget, 'evaluation')} ran out"
        )
        yield Step(f"unknown: {why}")


@kernel(counted=False)
def _rta_set(C, D, T, m, budget, limited, R, diff, buf):
    # Same evaluations, in the same order, as ``rta_iterate``: R, diff, buf are scratch ≥ n.
    steps = 0
    for k in range(C.shape[0]):
        C_k = C[k]
        D_k = D[k]
        x = C_k
        while True:
            if steps == budget:
                return UNKNOWN
            steps += 1
            value = C_k + _interference(C, T, R, k, x, m, limited, limited, diff, buf) // m
            if value > D_k:
                return REJECT
            if value == x:
                break
            x = value
        R[k] = x
    return ACCEPT
