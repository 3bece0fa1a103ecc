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
The registry applies these analyses only when m == 1.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

import numpy as np
from numba import njit, prange
from numpy.typing import NDArray

from rtsched.analyses._edf_demand import (
    DEFAULT_BUDGET,
    DemandTrace,
    pda_one,
    pda_trace,
    qpa_one,
    qpa_trace,
)
from rtsched.budget import REFERENCE_WORK, Work
from rtsched.kernels import ACCEPT, check_processors
from rtsched.model import TaskSet, TaskSetBatch
from rtsched.registry import Analysis
from rtsched.result import Result, Verdict, show_number

__all__ = [
    "ANALYSES",
    "explain_pda",
    "explain_qpa",
    "pda_batch",
    "pda_reference",
    "pda_status",
    "qpa_batch",
    "qpa_reference",
    "qpa_status",
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


def _check_uni(m: int) -> int:
    m = check_processors(m)
    if m != 1:
        from rtsched.errors import InputError

        raise InputError(f"uniprocessor analysis: m must be 1, got {m}", field="m")
    return m


def pda_reference(ts: TaskSet, m: int = 1, budget: int = DEFAULT_BUDGET, work_budget: int | None = REFERENCE_WORK) -> Verdict:
    """Exact processor-demand verdict (Python ints/Fractions; "unknown" past a budget)."""
    _check_uni(m)
    return pda_trace(ts.rows(), budget, Work(work_budget)).verdict


def qpa_reference(ts: TaskSet, m: int = 1, budget: int = DEFAULT_BUDGET, work_budget: int | None = REFERENCE_WORK) -> Verdict:
    """Exact QPA verdict (Python ints/Fractions; "unknown" past a budget)."""
    _check_uni(m)
    return qpa_trace(ts.rows(), budget, Work(work_budget)).verdict


@njit(parallel=True, cache=True)
def _qpa_kernel(C, D, T, offsets, budget, out):  # noqa: ANN001, ANN202 - numba
    for s in prange(out.shape[0]):
        lo, hi = offsets[s], offsets[s + 1]
        out[s] = qpa_one(C[lo:hi], D[lo:hi], T[lo:hi], budget)


@njit(parallel=True, cache=True)
def _pda_kernel(C, D, T, offsets, budget, out):  # noqa: ANN001, ANN202 - numba
    for s in prange(out.shape[0]):
        lo, hi = offsets[s], offsets[s + 1]
        out[s] = pda_one(C[lo:hi], D[lo:hi], T[lo:hi], budget)


def _status(kernel: Callable[..., None], reference: Callable[..., Verdict], batch: TaskSetBatch, m: int, budget: int) -> NDArray[np.int8]:
    _check_uni(m)
    out = np.empty(batch.n_sets, dtype=np.int8)
    if batch.n_sets:
        kernel(batch.C, batch.D, batch.T, batch.offsets, np.int64(budget), out)
    # UNDECIDED (int64 bound or float margin) -> the exact reference in Python ints.
    for s in np.flatnonzero(out == 2):
        verdict = reference(batch[int(s)], 1, budget)
        out[s] = -1 if verdict == "unknown" else int(bool(verdict))
    return out


def qpa_status(batch: TaskSetBatch, m: int = 1, budget: int = DEFAULT_BUDGET) -> NDArray[np.int8]:
    """QPA verdict codes (1 schedulable, 0 not, −1 unknown) for every set of the batch."""
    return _status(_qpa_kernel, qpa_reference, batch, m, budget)


def pda_status(batch: TaskSetBatch, m: int = 1, budget: int = DEFAULT_BUDGET) -> NDArray[np.int8]:
    """Processor-demand verdict codes (1 schedulable, 0 not, −1 unknown) for every set."""
    return _status(_pda_kernel, pda_reference, batch, m, budget)


def qpa_batch(batch: TaskSetBatch, m: int = 1) -> NDArray[np.bool_]:
    """True where QPA proves the set EDF-schedulable on one processor."""
    return qpa_status(batch, m) == ACCEPT


def pda_batch(batch: TaskSetBatch, m: int = 1) -> NDArray[np.bool_]:
    """True where the processor-demand criterion proves the set EDF-schedulable."""
    return pda_status(batch, m) == ACCEPT


def show(x: Fraction | int | None) -> str:
    """An exact value for a person: ``7``, ``37/3 (≈12.33)`` or ``-``."""
    if x is None:
        return "-"
    return show_number(x)


def trace_summary(tr: DemandTrace, budget: int) -> str:
    """One line explaining a QPA/PDA trace."""
    if tr.reason == "work":
        return f"unknown: the reference work budget ran out (rtsched.budget) after {tr.steps} steps"
    if tr.reason == "U>1":
        return f"U = {show(tr.utilization)} > 1"
    bound = f"L = {show(tr.L)} (L_a = {show(tr.La)}, L_b = {show(tr.Lb) if tr.Lb is not None else 'not needed'})"
    if tr.reason == "budget":
        return f"unknown: work budget of {budget} steps exhausted (U = {show(tr.utilization)}, L_a = {show(tr.La)})"
    if tr.reason == "violation":
        return f"h({show(tr.t)}) = {show(tr.h)} > {show(tr.t)}; U = {show(tr.utilization)}, {bound}"
    if tr.reason == "no-deadline":
        return f"no absolute deadline below {bound}; U = {show(tr.utilization)}"
    if tr.reason == "qpa-exit":
        return f"h(t) ≤ t on every deadline < {bound}; QPA ended at h({show(tr.t)}) = {show(tr.h)} ≤ d_min; {tr.steps} steps"
    return f"h(t) ≤ t on every deadline < {bound} (last checked t = {show(tr.t)}); {tr.steps} steps"


def _explain(name: str, trace: Callable[..., DemandTrace], ts: TaskSet, m: int, budget: int, work_budget: int | None) -> Result:
    _check_uni(m)
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
    return Result(
        analysis=name,
        verdict=tr.verdict,
        m=1,
        kind="exact",
        summary=trace_summary(tr, budget),
        evidence={k: v for k, v in evidence.items() if v is not None},
    )


def explain_qpa(ts: TaskSet, m: int = 1, budget: int = DEFAULT_BUDGET, work_budget: int | None = REFERENCE_WORK) -> Result:
    """QPA verdict with the bound L used, the steps and, on failure, a t with h(t) > t."""
    return _explain("uni-qpa", qpa_trace, ts, m, budget, work_budget)


def explain_pda(ts: TaskSet, m: int = 1, budget: int = DEFAULT_BUDGET, work_budget: int | None = REFERENCE_WORK) -> Result:
    """Processor-demand verdict with L and, on failure, the first t with h(t) > t."""
    return _explain("uni-pda", pda_trace, ts, m, budget, work_budget)


ANALYSES = (
    Analysis(
        name="uni-pda",
        title="EDF processor demand (uniprocessor, exact)",
        citation=CITATION_PDA,
        kind="exact",
        policy="edf",
        platform="uniprocessor",
        batch=pda_batch,
        explain=explain_pda,
        reference=pda_reference,
        note="papers/zhang-burns2009-qpa.md",
        deadlines=("implicit", "constrained", "arbitrary"),
        status=pda_status,
    ),
    Analysis(
        name="uni-qpa",
        title="EDF QPA (uniprocessor, exact)",
        citation=CITATION_QPA,
        kind="exact",
        policy="edf",
        platform="uniprocessor",
        batch=qpa_batch,
        explain=explain_qpa,
        reference=qpa_reference,
        note="papers/zhang-burns2009-qpa.md",
        deadlines=("implicit", "constrained", "arbitrary"),
        status=qpa_status,
    ),
)
