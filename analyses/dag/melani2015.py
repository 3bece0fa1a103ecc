"""Response-time analyses of DAG tasks under global FP and global EDF (Melani et al. 2015); see papers/melani2015-rta-dag.md.

A. Melani, M. Bertogna, V. Bonifaci, A. Marchetti-Spaccamela, G. Buttazzo, "Response-Time Analysis
of Conditional DAG Tasks in Multiprocessor Systems", ECRTS 2015, pp. 211-221 (journal version:
"Schedulability Analysis of Conditional Parallel Task Graphs in Multicore Systems", IEEE Trans.
Computers 66(2), 2017). rtsched implements the analyses for plain (non-conditional) DAG tasks, for
which the paper's worst-case workload of a cp-task is its volume vol_i and its longest path len_i.

Model: sporadic DAG tasks (vol_i, len_i, D_i, T_i), constrained deadlines D_i ≤ T_i, m identical
processors, preemptive node-level work-conserving global scheduling, integer time. The equation
tags below are rtsched's: the paper's own text could not be read (only its abstract is reachable
through the search tool); the formulas were checked against the authors' own MATLAB code
("cptasks", A. Melani 2015: getInterf_2, getInterf_est_EDF_2) and an independent C++
implementation (Verucchi et al.'s DAG survey library, tests/Melani2015.cpp), read and not copied.
See the note.

* (M1) Response-time bound (Graham's bound with interference, ``theory.graham``; integer time)::

      R_k = len_k + ⌊(vol_k − len_k + I_k(R_k)) / m⌋

  where I_k(x) bounds the work of the other tasks that interferes with a job of τ_k in a window
  of length x. R_k is the least fixed point, iterated from Graham's bound len_k + ⌊(vol_k − len_k)/m⌋;
  the task is accepted if R_k ≤ D_k.
* (M2) Carry-in workload of τ_i in any window of length L, its jobs finishing within R_i of
  their release (the carry-in job executes its whole volume on all m processors just before its
  response time, the later jobs as early as possible; ``theory.dag_workload``)::

      W_i(L) = ⌊(L + R_i − vol_i/m) / T_i⌋ · vol_i + min(vol_i, m · ((L + R_i − vol_i/m) mod T_i))

  computed exactly as ``A = m·(L + R_i) − vol_i``: ``W_i = ⌊A/(m T_i)⌋·vol_i + min(vol_i, A mod (m T_i))``.
* (M3) G-FP (``dag-gfp-melani2015``): priority is the task order (τ_0 highest), I_k(x) = Σ_{i<k} W_i(x);
  one pass in priority order (τ_k needs only the R_i of higher-priority tasks).
* (M4) EDF interference of τ_i on a job of τ_k, over its window of length D_k (jobs of τ_i with
  deadlines up to τ_k's, the last aligned with it; the one straddling the window's start runs at
  most until R_i after its release)::

      I^EDF_{i,k} = (⌊(D_k − D_i)/T_i⌋ + 1) · vol_i + min(vol_i, m · max(0, (D_k mod T_i) − (D_i − R_i)))

* (M5) G-EDF (``dag-gedf-melani2015``): I_k(x) = Σ_{i≠k} min(W_i(x), I^EDF_{i,k}); every R_k starts
  at Graham's bound and the bounds are recomputed in task order, each with the current others,
  until none changes (accept) or one exceeds its deadline (reject). The right side is monotone in
  every R, so the order of the updates does not change the result (the least fixed point).

Layers: :func:`reference_fp` / :func:`reference_edf` (Python ints; the equations tagged),
:func:`explain_fp` / :func:`explain_edf` (each task's R_k, the failing task with its interference
terms, the iteration steps) and the kernels (one set, int64: ``theory.dag_workload.gfp_fixed_points_nb``
with S_k = m·len_k + vol_k − len_k for G-FP, ``_edf_one``) driven by
``_fp_sets`` / ``_edf_sets`` (``prange`` over the sets of a :class:`~rtsched.dag.DAGBatch`) through
``codes=``: the analyses need only each task's volume and length, which a DAGBatch holds exactly.

Exactness: every quantity is an integer (the paper's vol_i/m and mod are scaled by m), so the
kernels compute in int64 exactly what the references compute in Python ints. Sums are checked
against the cap m·(D_k − len_k + 1) (a right side above it already gives R_k > D_k), so no
product overflows: time values are at most 2**31 − 1 and m at most 10**6.

Work budget: every right-side evaluation that does not end the iteration raises some R_k by at
least one and no R_k passes D_k, so a set needs at most about Σ_k (D_k − len_k) evaluations of
O(n) terms, which is 2**31 for large deadlines (a window growing by one tick per step). One unit
of the budget is one evaluation of (M1)'s right side (for one task); after ``budget`` of them
(default :data:`DEFAULT_BUDGET`, as gfp-rta's) the verdict is "unknown" (code −1). The kernels
count exactly as the references do, so the codes stay equal, "unknown" included.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
from numba import prange
from numpy.typing import NDArray

from rtsched.analyses.theory.dag_workload import (
    capped_product_nb,
    carry_in_workload,
    carry_in_workload_nb,
    gfp_fixed_points_nb,
)
from rtsched.analyses.theory.graham import graham_bound, graham_bound_int, response_bound_int
from rtsched.dag.model import DAGBatch, DAGTaskSet
from rtsched.errors import InputError
from rtsched.kernels import ACCEPT, REJECT, UNKNOWN, batch_kernel, kernel
from rtsched.registry import Analysis
from rtsched.result import UNKNOWN as UNKNOWN_VERDICT
from rtsched.result import Explanation, Step, Verdict
from rtsched.workloads import DAG_TASKSETS

__all__ = [
    "ANALYSES",
    "DEFAULT_BUDGET",
    "Run",
    "carry_in_workload",
    "codes_edf",
    "codes_fp",
    "edf_interference",
    "explain_edf",
    "explain_fp",
    "reference_edf",
    "reference_fp",
    "run_edf",
    "run_fp",
]

PAPER = (
    "Melani, Bertogna, Bonifaci, Marchetti-Spaccamela, Buttazzo, 'Response-Time Analysis of Conditional DAG "
    "Tasks in Multiprocessor Systems', ECRTS 2015"
)
CITE_FP = (
    PAPER + " (G-FP response-time analysis, non-conditional DAG tasks: carry-in workload of higher-priority tasks)"
)
CITE_EDF = PAPER + " (G-EDF response-time analysis, non-conditional DAG tasks: min of carry-in and EDF interference)"
NOTE = "papers/melani2015-rta-dag.md"
#: Default work budget: evaluations of the right side of (M1) per set (as gfp-rta's).
DEFAULT_BUDGET = 200_000
BUDGET_UNIT = "response-time evaluations"


# -- the bounds (Python ints) -------------------------------------------------------------------


def edf_interference(vol_i: int, D_i: int, T_i: int, R_i: int, D_k: int, m: int) -> int:
    """(M4) I^EDF_{i,k}: (⌊(D_k − D_i)/T_i⌋ + 1)·vol_i + min(vol_i, m·max(0, D_k mod T_i − (D_i − R_i)))."""
    jobs = (D_k - D_i) // T_i + 1  # ≥ 0 when D_i ≤ T_i
    return jobs * vol_i + min(vol_i, m * max(0, D_k % T_i - (D_i - R_i)))


# -- reference ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Run:
    """The outcome of one analysis on one set, exactly.

    ``R[k]``: task k's response-time bound (the fixed point, or the first value above D_k for the
    failing task; ``None`` for tasks never reached: FP stops at the first failing task).
    ``failing``: the first task whose bound exceeds its deadline, or ``None``; ``window``: the
    window length x ≤ D at which its right side went over D (``None`` when Graham's bound alone
    exceeds D, or nothing fails). ``steps``: the number of right-side evaluations;
    ``exhausted``: the budget of evaluations ran out before a verdict.
    """

    R: tuple[int | None, ...]
    failing: int | None
    steps: int
    window: int | None = None
    exhausted: bool = False

    @property
    def verdict(self) -> Verdict:
        """True if every task's bound is at most its deadline, "unknown" if the budget ran out first."""
        if self.exhausted:
            return UNKNOWN_VERDICT
        return self.failing is None


def _fp_interference(rows: list[tuple[int, int, int, int]], R: list[int], k: int, x: int, m: int) -> int:
    return sum(carry_in_workload(rows[i][0], rows[i][3], R[i], x, m) for i in range(k))  # (M3)


def _check_budget(budget: int) -> None:
    if budget < 0:
        raise InputError(f"budget must be >= 0, got {budget}", field="budget")


def run_fp(ts: DAGTaskSet, m: int, budget: int = DEFAULT_BUDGET) -> Run:
    """(M1)-(M3) in priority order (task order): each task's R_k, the first failing task.

    At most ``budget`` evaluations of the right side of (M1); then the run is ``exhausted``.
    """
    _check_budget(budget)
    rows = ts.rows()
    n = len(rows)
    R: list[int] = []
    steps = 0
    for k, (vol, length, D, _T) in enumerate(rows):
        x = graham_bound_int(vol, length, m)  # (M1) starting point, Graham's bound
        if x > D:
            return Run((*R, x) + (None,) * (n - k - 1), k, steps)
        while True:
            if steps == budget:
                return Run(tuple(R) + (None,) * (n - k), None, steps, exhausted=True)
            steps += 1
            nxt = response_bound_int(vol, length, m, _fp_interference(rows, R, k, x, m))  # (M1)
            if nxt > D:
                return Run((*R, nxt) + (None,) * (n - k - 1), k, steps, x)
            if nxt == x:
                break
            x = nxt
        R.append(x)
    return Run(tuple(R), None, steps)


def _edf_interference(rows: list[tuple[int, int, int, int]], R: list[int], k: int, x: int, m: int) -> int:
    D_k = rows[k][2]
    return sum(
        min(carry_in_workload(vol, T, R[i], x, m), edf_interference(vol, D, T, R[i], D_k, m))  # (M5)
        for i, (vol, _length, D, T) in enumerate(rows)
        if i != k
    )


def run_edf(ts: DAGTaskSet, m: int, budget: int = DEFAULT_BUDGET) -> Run:
    """(M1), (M2), (M4), (M5): all bounds from Graham's, updated in task order until none changes.

    At most ``budget`` evaluations of the right side of (M1) (one per task per round); then the run
    is ``exhausted``.
    """
    _check_budget(budget)
    rows = ts.rows()
    R = [graham_bound_int(vol, length, m) for vol, length, _D, _T in rows]
    for k, (_vol, _length, D, _T) in enumerate(rows):
        if R[k] > D:
            return Run(tuple(R), k, 0)
    steps = 0
    changed = True
    while changed:
        changed = False
        for k, (vol, length, D, _T) in enumerate(rows):
            if steps == budget:
                return Run(tuple(R), None, steps, exhausted=True)
            steps += 1
            nxt = response_bound_int(vol, length, m, _edf_interference(rows, R, k, R[k], m))  # (M1)
            if nxt != R[k]:
                window, R[k] = R[k], nxt
                changed = True
                if nxt > D:
                    return Run(tuple(R), k, steps, window)
    return Run(tuple(R), None, steps)


def reference_fp(ts: DAGTaskSet, m: int, budget: int = DEFAULT_BUDGET) -> Verdict:
    """Exact ``dag-gfp-melani2015`` verdict: every R_k of (M1)/(M3) at most D_k ("unknown": budget spent)."""
    return run_fp(ts, m, budget).verdict


def reference_edf(ts: DAGTaskSet, m: int, budget: int = DEFAULT_BUDGET) -> Verdict:
    """Exact ``dag-gedf-melani2015`` verdict: (M1)/(M5) settle with every R_k ≤ D_k ("unknown": budget spent)."""
    return run_edf(ts, m, budget).verdict


# -- explain ----------------------------------------------------------------------------------------


def _per_task(ts: DAGTaskSet, m: int, run: Run) -> list[dict[str, Any]]:
    out = []
    for i, (vol, length, D, T) in enumerate(ts.rows()):
        r = run.R[i]
        out.append(
            {
                "task": ts.label(i),
                "vol": vol,
                "len": length,
                "D": D,
                "T": T,
                "graham": graham_bound(vol, length, m),
                "graham_int": graham_bound_int(vol, length, m),
                "R": r,
                "R <= D": None if r is None else r <= D,
            }
        )
    return out


def _terms_fp(ts: DAGTaskSet, m: int, R: tuple[int | None, ...], k: int, x: int) -> dict[str, int]:
    rows = ts.rows()
    return {ts.label(i): carry_in_workload(rows[i][0], rows[i][3], R[i] or 0, x, m) for i in range(k)}


def _terms_edf(ts: DAGTaskSet, m: int, R: tuple[int | None, ...], k: int, x: int) -> dict[str, tuple[int, int]]:
    rows = ts.rows()
    D_k = rows[k][2]
    return {
        ts.label(i): (carry_in_workload(vol, T, R[i] or 0, x, m), edf_interference(vol, D, T, R[i] or 0, D_k, m))
        for i, (vol, _length, D, T) in enumerate(rows)
        if i != k
    }


def _explanation(ts: DAGTaskSet, m: int, run: Run, policy: str, steps: Any) -> Explanation:
    per_task = _per_task(ts, m, run)
    evidence: dict[str, Any] = {"response_times": run.R, "failing_task": run.failing, "iterations": run.steps}
    if run.exhausted:
        evidence["failing_term"] = None
        summary = f"{policy}: unknown: the budget of {run.steps} response-time evaluations ran out"
    elif run.failing is None:
        slack = min(t.D - (run.R[i] or 0) for i, t in enumerate(ts))
        evidence["failing_term"] = None
        evidence["min_slack"] = slack
        summary = f"{policy}: every R_k ≤ D_k (least slack D_k − R_k = {slack})"
    else:
        k = run.failing
        t = ts[k]
        if run.window is None:
            graham = graham_bound_int(t.volume, t.length, m)
            term = f"Graham's bound of {ts.label(k)}: len + ⌊(vol − len)/m⌋ = {graham} > D = {t.D}"
            evidence["interference"] = {}
        else:
            term = f"R of {ts.label(k)} = {run.R[k]} > D = {t.D} (window x = {run.window})"
            terms = _terms_fp if policy == "G-FP" else _terms_edf
            evidence["interference"] = terms(ts, m, run.R, k, run.window)
        evidence["window"] = run.window
        evidence["failing_term"] = term
        summary = f"{policy}: not proven: {term}"
    return Explanation(verdict=run.verdict, summary=summary, evidence=evidence, per_task=per_task, steps=steps)


def _fp_steps(ts: DAGTaskSet, m: int, budget: int) -> Iterator[Step | str]:
    rows = ts.rows()
    yield f"G-FP on m = {m}, priority = task order ({ts.label(0)} highest); R_k = len_k + ⌊(vol_k − len_k + Σ_(i<k) W_i(R_k))/m⌋"
    R: list[int] = []
    steps = 0
    for k, (vol, length, D, _T) in enumerate(rows):
        x = graham_bound_int(vol, length, m)
        yield Step(
            f"{ts.label(k)}: vol = {vol}, len = {length}, D = {D}; start at Graham's bound len + ⌊(vol − len)/m⌋ = "
            + "{x}",
            {"x": x},
        )
        if x > D:
            yield f"{ts.label(k)}: {x} > D = {D}: not proven (lower-priority tasks are not analysed)"
            return
        while True:
            if steps == budget:
                yield f"the budget of {budget} response-time evaluations ran out: unknown"
                return
            steps += 1
            terms = [carry_in_workload(rows[i][0], rows[i][3], R[i], x, m) for i in range(k)]
            nxt = response_bound_int(vol, length, m, sum(terms))
            shown = " + ".join(f"W_{i}({x}) = {w}" for i, w in enumerate(terms)) or "no higher-priority task"
            yield Step(f"  x = {x}: {shown}; len + ⌊(vol − len + ΣW)/m⌋ = " + "{nxt}", {"nxt": nxt})
            if nxt > D:
                yield f"{ts.label(k)}: R = {nxt} > D = {D}: not proven (lower-priority tasks are not analysed)"
                return
            if nxt == x:
                break
            x = nxt
        R.append(x)
        yield f"{ts.label(k)}: R = {x} ≤ D = {D}"
    yield "every R_k ≤ D_k: schedulable by global FP (task order)"


def _edf_steps(ts: DAGTaskSet, m: int, budget: int) -> Iterator[Step | str]:
    rows = ts.rows()
    yield (
        f"G-EDF on m = {m}: R_k = len_k + ⌊(vol_k − len_k + Σ_(i≠k) min(W_i(R_k), I^EDF_(i,k)))/m⌋, "
        "all R_k from Graham's bound, updated in task order until none changes"
    )
    R = [graham_bound_int(vol, length, m) for vol, length, _D, _T in rows]
    yield "Graham's bounds len + ⌊(vol − len)/m⌋: " + ", ".join(f"R_{k} = {r}" for k, r in enumerate(R))
    for k, (_vol, _length, D, _T) in enumerate(rows):
        if R[k] > D:
            yield f"{ts.label(k)}: {R[k]} > D = {D}: not proven"
            return
    changed = True
    round_ = steps = 0
    while changed:
        changed = False
        round_ += 1
        for k, (vol, length, D, _T) in enumerate(rows):
            if steps == budget:
                yield f"the budget of {budget} response-time evaluations ran out: unknown"
                return
            steps += 1
            parts = []
            total = 0
            for i, (vol_i, _len_i, D_i, T_i) in enumerate(rows):
                if i != k:
                    w = carry_in_workload(vol_i, T_i, R[i], R[k], m)
                    e = edf_interference(vol_i, D_i, T_i, R[i], D, m)
                    total += min(w, e)
                    parts.append(f"min(W_{i} = {w}, I^EDF_{i} = {e})")
            nxt = response_bound_int(vol, length, m, total)
            yield Step(
                f"round {round_}, {ts.label(k)}: x = {R[k]}: {' + '.join(parts) or 'no other task'} = {total}; "
                + "R = {nxt}",
                {"nxt": nxt},
            )
            if nxt != R[k]:
                R[k] = nxt
                changed = True
                if nxt > D:
                    yield f"{ts.label(k)}: R = {nxt} > D = {D}: not proven"
                    return
    yield "no bound changed and every R_k ≤ D_k: schedulable by global EDF"


def explain_fp(ts: DAGTaskSet, m: int, budget: int = DEFAULT_BUDGET) -> Explanation:
    """Each task's R_k (G-FP, task order), the failing task with its carry-in terms, the steps."""
    return _explanation(ts, m, run_fp(ts, m, budget), "G-FP", lambda: _fp_steps(ts, m, budget))


def explain_edf(ts: DAGTaskSet, m: int, budget: int = DEFAULT_BUDGET) -> Explanation:
    """Each task's R_k (G-EDF), the failing task with its min(W, I^EDF) terms, the rounds."""
    return _explanation(ts, m, run_edf(ts, m, budget), "G-EDF", lambda: _edf_steps(ts, m, budget))


# -- kernels ---------------------------------------------------------------------------------------


@kernel(inline="always")
def _edf_nb(vol_i, D_i, T_i, R_i, D_k, m, cap):
    """(M4) capped at ``cap``."""
    jobs = (D_k - D_i) // T_i + 1
    carry = D_k % T_i - (D_i - R_i)
    if carry < 0:
        carry = 0
    return capped_product_nb(jobs, vol_i, min(vol_i, m * carry), cap)


@kernel
def _edf_one(vol, length, D, T, m, budget, R):
    """One set under G-EDF: ACCEPT, REJECT or UNKNOWN (budget); ``R`` (length n) holds the bounds."""
    n = vol.shape[0]
    for k in range(n):
        if vol[k] - length[k] > m * (D[k] - length[k] + 1) - 1:
            return REJECT
        R[k] = length[k] + (vol[k] - length[k]) // m
    steps = 0
    changed = True
    while changed:
        changed = False
        for k in range(n):
            if steps == budget:
                return UNKNOWN
            steps += 1
            base = vol[k] - length[k]
            limit = m * (D[k] - length[k] + 1) - 1
            acc = base
            x = R[k]
            for i in range(n):
                if i == k:
                    continue
                cap = limit - acc + 1
                w = carry_in_workload_nb(vol[i], T[i], R[i], x, m, cap)
                e = _edf_nb(vol[i], D[i], T[i], R[i], D[k], m, cap)
                acc += w if w < e else e
                if acc > limit:
                    return REJECT
            nxt = length[k] + acc // m
            if nxt != x:
                R[k] = nxt
                changed = True
    return ACCEPT


@batch_kernel
def _fp_sets(vol, length, D, T, task_offsets, m, budget, R, out):
    """``out[s]``: (M1)/(M3) on set ``s`` by ``theory.dag_workload.gfp_fixed_points_nb`` (``prange`` over the sets)."""
    for s in prange(out.shape[0]):
        lo, hi = task_offsets[s], task_offsets[s + 1]
        S = m * length[lo:hi] + vol[lo:hi] - length[lo:hi]  # (M1) as ⌊(S_k + I_k)/m⌋: the Graham numerator
        out[s] = gfp_fixed_points_nb(S, vol[lo:hi], D[lo:hi], T[lo:hi], m, budget, R[lo:hi])


@batch_kernel
def _edf_sets(vol, length, D, T, task_offsets, m, budget, R, out):
    """``out[s]`` = ``_edf_one`` of set ``s`` (``prange`` over the sets; ``R`` a workspace per task)."""
    for s in prange(out.shape[0]):
        lo, hi = task_offsets[s], task_offsets[s + 1]
        out[s] = _edf_one(vol[lo:hi], length[lo:hi], D[lo:hi], T[lo:hi], m, budget, R[lo:hi])


def _codes(kernel, batch: DAGBatch, m: int, budget: int) -> NDArray[np.int8]:
    """Run one of the two set kernels over ``batch`` (one response-time workspace per task)."""
    _check_budget(budget)
    out = np.empty(batch.n_sets, dtype=np.int8)
    R = np.zeros(batch.volume.shape[0], dtype=np.int64)
    kernel(batch.volume, batch.length, batch.D, batch.T, batch.task_offsets, m, budget, R, out)
    return out


def codes_fp(batch: DAGBatch, m: int, budget: int = DEFAULT_BUDGET) -> NDArray[np.int8]:
    """``dag-gfp-melani2015`` codes (1 accept, 0 reject, -1 budget spent) for every set of ``batch``."""
    return _codes(_fp_sets, batch, m, budget)


def codes_edf(batch: DAGBatch, m: int, budget: int = DEFAULT_BUDGET) -> NDArray[np.int8]:
    """``dag-gedf-melani2015`` codes (1 accept, 0 reject, -1 budget spent) for every set of ``batch``."""
    return _codes(_edf_sets, batch, m, budget)


ANALYSES = (
    Analysis(
        name="dag-gfp-melani2015", title="Melani et al. 2015: response-time analysis of DAG tasks under global FP (task order)",
        kind="sufficient", order=20, featured=False,
        policy="global-fp", policy_order=4, platform="identical", deadlines=("implicit", "constrained"), workload=DAG_TASKSETS,
        citation=CITE_FP, note=NOTE,
        reference=reference_fp, explain=explain_fp, codes=codes_fp,
        budget=DEFAULT_BUDGET, budget_unit=BUDGET_UNIT, compile_seconds=3.0,
    ),
    Analysis(
        name="dag-gedf-melani2015", title="Melani et al. 2015: response-time analysis of DAG tasks under global EDF",
        kind="sufficient", order=20, featured=False,
        policy="global-edf", policy_order=0, platform="identical", deadlines=("implicit", "constrained"), workload=DAG_TASKSETS,
        citation=CITE_EDF, note=NOTE,
        reference=reference_edf, explain=explain_edf, codes=codes_edf,
        budget=DEFAULT_BUDGET, budget_unit=BUDGET_UNIT, compile_seconds=3.0,
    ),
)  # fmt: skip
