"""Exact uniprocessor EDF tests: processor demand (``uni-pda``) and QPA (``uni-qpa``).

* ``uni-pda``: the processor-demand criterion (Baruah, Rosier, Howell, Real-Time Systems 2(4),
  1990): a sporadic set is EDF-schedulable on one processor iff U ≤ 1 and h(t) ≤ t at every
  absolute deadline t < L, with L = min(L_a, L_b): L_a the bound of George, Rivierre, Spuri
  (INRIA RR-2966, 1996) and L_b the synchronous busy period. Every deadline below L is checked
  in increasing order; ``explain`` gives the first t with h(t) > t.
* ``uni-qpa``: Quick Processor-demand Analysis, Zhang & Burns, "Schedulability analysis for
  real-time systems with EDF scheduling", IEEE TC 58(9), 2009, Thm. 5 and its algorithm.

Both accept constrained and arbitrary deadlines, answer at once when U > 1, terminate when U = 1
exactly (L = L_b then) and carry a work budget (``DEFAULT_BUDGET`` steps; exhaustion is
"unknown", never False). Equations, numbering and a worked example: papers/zhang-burns2009-qpa.md.
The shared machinery (reference and ``@njit`` kernels) is in ``analyses/_edf_demand.py``.
The registry applies these analyses only when m == 1 (platform ``uniprocessor``).
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

from numba import njit, prange

from rtsched.analyses._edf_demand import (
    DEFAULT_BUDGET,
    DemandTrace,
    pda_one,
    pda_trace,
    qpa_one,
    qpa_trace,
)
from rtsched.budget import REFERENCE_WORK, Work
from rtsched.model import TaskSet
from rtsched.registry import Analysis
from rtsched.result import Explanation, Verdict, show_number

__all__ = [
    "ANALYSES",
    "explain_pda",
    "explain_qpa",
    "pda_reference",
    "qpa_reference",
]

CITATION_PDA = (
    "Baruah, Rosier, Howell, 'Algorithms and complexity concerning the preemptive scheduling of "
    "periodic, real-time tasks on one processor', Real-Time Systems 2(4), 1990 (processor-demand "
    "criterion); bound L = min(L_a, L_b) with L_a of George, Rivierre, Spuri (INRIA RR-2966, 1996), "
    "as stated in Zhang & Burns, IEEE TC 58(9), 2009, Thm. 1-3"
)
CITATION_QPA = (
    "Zhang, Burns, 'Schedulability analysis for real-time systems with EDF scheduling', "
    "IEEE Transactions on Computers 58(9), 2009, Thm. 5 (QPA)"
)


def pda_reference(
    ts: TaskSet, m: int = 1, budget: int = DEFAULT_BUDGET, work_budget: int | None = REFERENCE_WORK
) -> Verdict:
    """Exact processor-demand verdict (Python ints/Fractions; "unknown" past a budget)."""
    return pda_trace(ts.rows(), budget, Work(work_budget)).verdict


def qpa_reference(
    ts: TaskSet, m: int = 1, budget: int = DEFAULT_BUDGET, work_budget: int | None = REFERENCE_WORK
) -> Verdict:
    """Exact QPA verdict (Python ints/Fractions; "unknown" past a budget)."""
    return qpa_trace(ts.rows(), budget, Work(work_budget)).verdict


@njit(cache=True)
def _qpa_set(C, D, T, m, budget):  # noqa: ANN001, ANN202 - numba
    """One set, serially (``m`` is 1: the registry admits only a uniprocessor)."""
    return qpa_one(C, D, T, budget)


@njit(cache=True)
def _pda_set(C, D, T, m, budget):  # noqa: ANN001, ANN202 - numba
    """One set, serially (``m`` is 1: the registry admits only a uniprocessor)."""
    return pda_one(C, D, T, budget)


@njit(parallel=True, cache=True)
def _qpa_kernel(C, D, T, offsets, m, budget, out):  # noqa: ANN001, ANN202 - numba
    for s in prange(out.shape[0]):
        lo, hi = offsets[s], offsets[s + 1]
        out[s] = qpa_one(C[lo:hi], D[lo:hi], T[lo:hi], budget)


@njit(parallel=True, cache=True)
def _pda_kernel(C, D, T, offsets, m, budget, out):  # noqa: ANN001, ANN202 - numba
    for s in prange(out.shape[0]):
        lo, hi = offsets[s], offsets[s + 1]
        out[s] = pda_one(C[lo:hi], D[lo:hi], T[lo:hi], budget)


def _show(x: Fraction | int | None) -> str:
    """:func:`rtsched.result.show_number`, with ``-`` for a value the trace did not reach."""
    return "-" if x is None else show_number(x)


def trace_summary(tr: DemandTrace, budget: int) -> str:
    """One line explaining a QPA/PDA trace."""
    if tr.reason == "work":
        return f"unknown: the reference work budget ran out (rtsched.budget) after {tr.steps} steps"
    if tr.reason == "U>1":
        return f"U = {_show(tr.utilization)} > 1"
    bound = f"L = {_show(tr.L)} (L_a = {_show(tr.La)}, L_b = {_show(tr.Lb) if tr.Lb is not None else 'not needed'})"
    if tr.reason == "budget":
        return f"unknown: work budget of {budget} steps exhausted (U = {_show(tr.utilization)}, L_a = {_show(tr.La)})"
    if tr.reason == "violation":
        return f"h({_show(tr.t)}) = {_show(tr.h)} > {_show(tr.t)}; U = {_show(tr.utilization)}, {bound}"
    if tr.reason == "no-deadline":
        return f"no absolute deadline below {bound}; U = {_show(tr.utilization)}"
    if tr.reason == "qpa-exit":
        return f"h(t) ≤ t on every deadline < {bound}; QPA ended at h({_show(tr.t)}) = {_show(tr.h)} ≤ d_min; {tr.steps} steps"
    return f"h(t) ≤ t on every deadline < {bound} (last checked t = {_show(tr.t)}); {tr.steps} steps"


def _explain(trace: Callable[..., DemandTrace], ts: TaskSet, budget: int, work_budget: int | None) -> Explanation:
    tr = trace(ts.rows(), budget, Work(work_budget))
    evidence = {
        "utilization": tr.utilization,
        "La": tr.La,
        "Lb": tr.Lb,
        "L": tr.L,
        "steps": tr.steps,
        "budget": budget,
        "work_budget": work_budget,
        "reason": tr.reason,
    }
    if tr.reason == "violation":
        evidence["t"] = tr.t
        evidence["h(t)"] = tr.h
    return Explanation(
        verdict=tr.verdict,
        summary=trace_summary(tr, budget),
        evidence={k: v for k, v in evidence.items() if v is not None},
    )


def explain_qpa(
    ts: TaskSet, m: int = 1, budget: int = DEFAULT_BUDGET, work_budget: int | None = REFERENCE_WORK
) -> Explanation:
    """QPA verdict with the bound L used, the steps and, on failure, a t with h(t) > t."""
    return _explain(qpa_trace, ts, budget, work_budget)


def explain_pda(
    ts: TaskSet, m: int = 1, budget: int = DEFAULT_BUDGET, work_budget: int | None = REFERENCE_WORK
) -> Explanation:
    """Processor-demand verdict with L and, on failure, the first t with h(t) > t."""
    return _explain(pda_trace, ts, budget, work_budget)


ANALYSES = (
    Analysis(
        name="uni-qpa",
        title="EDF QPA (uniprocessor, exact)",
        citation=CITATION_QPA,
        kind="exact",
        policy="edf",
        platform="uniprocessor",
        deadlines=("implicit", "constrained", "arbitrary"),
        note="papers/zhang-burns2009-qpa.md",
        reference=qpa_reference,
        explain=explain_qpa,
        kernel=_qpa_kernel,
        one=_qpa_set,
        budget=DEFAULT_BUDGET,
        budget_unit="steps",
        order=0,
    ),
    Analysis(
        name="uni-pda",
        title="EDF processor demand (uniprocessor, exact)",
        citation=CITATION_PDA,
        kind="exact",
        policy="edf",
        platform="uniprocessor",
        deadlines=("implicit", "constrained", "arbitrary"),
        note="papers/zhang-burns2009-qpa.md",
        reference=pda_reference,
        explain=explain_pda,
        kernel=_pda_kernel,
        one=_pda_set,
        budget=DEFAULT_BUDGET,
        budget_unit="steps",
        order=1,
    ),
)
