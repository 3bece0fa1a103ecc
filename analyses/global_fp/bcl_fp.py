"""BCL interference test for global fixed priorities, ``gfp-bcl``: Bertogna, Cirinei, Lipari (OPODIS 2005).

M. Bertogna, M. Cirinei, G. Lipari, "New schedulability tests for real-time task sets scheduled by
deadline monotonic on multiprocessors", OPODIS 2005 (LNCS 3974), the interference test with the FP
workload bound; journal version IEEE TPDS 20(4), 2009. Note: papers/bcl2005-fp.md (the primary
text was not reachable; the formula is the one restated by Davis & Burns, RTS 2011, Eq. (1)–(2),
and used by SchedCAT's ``sched/fp``; the theorem number is unverified).

Model: sporadic tasks τi = (C_i, D_i, T_i), integer time, constrained deadlines (C ≤ D ≤ T), m
identical processors (arbitrary deadlines D > T: the set with D'_i = min(D_i, T_i) is decided,
rtsched's reduction, papers/arbitrary-deadlines-reductions.md, Theorem 1; ``_common.py``), preemptive global fixed priorities (work-conserving). **Priority is the
order of the tasks in the set: task 0 has the highest priority**; hp(k) = {0, …, k − 1}. With
s_k = D_k − C_k and W^D_i the workload bound of ``_workload.py`` (the carry-in job ends at its
deadline), every task τk must satisfy

    Σ_{i<k} min(W^D_i(D_k), s_k) < m · s_k                                         (BCL-FP)

i.e. Σ_{i<k} min(β_i, 1 − λ_k) < m (1 − λ_k) with β_i = W^D_i(D_k)/D_k, λ_k = C_k/D_k.

Dominance (proved in the notes, property-tested): ``gfp-da`` ⊇ ``gfp-bcl``
(``deadline_analysis.py``; ⊇: accepts every set the other accepts).

Exactness: every quantity is an integer below 2**51 (see ``_workload.py``); the kernel computes in
int64 exactly what the reference computes in Python ints, with no fallback.
"""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction
from typing import Any

from rtsched.analyses.global_fp._common import _global_fp, _rows, on_reduced_explain, on_reduced_reference
from rtsched.analyses.global_fp._workload import workload_deadline, workload_deadline_nb
from rtsched.analyses.theory.workload import every_task_holds, scan_tasks
from rtsched.budget import REFERENCE_WORK, Work
from rtsched.kernels import ACCEPT, REJECT, kernel, sets_kernel
from rtsched.model import TaskSet
from rtsched.result import UNKNOWN as UNKNOWN_VERDICT
from rtsched.result import Explanation, Step, Verdict, count, show_comparison

__all__ = ["ANALYSES", "bcl_explain", "bcl_reference", "bcl_steps", "bcl_task"]

CITE_BCL = (
    "Bertogna, Cirinei, Lipari, 'New schedulability tests for real-time task sets scheduled by deadline "
    "monotonic on multiprocessors', OPODIS 2005 (LNCS 3974), the interference test with the FP workload "
    "bound; IEEE TPDS 20(4), 2009"
)


def bcl_task(ts: TaskSet, k: int, m: int, work: Work | None = None) -> dict[str, Any]:
    """(BCL-FP) for τk: Σ_{i<k} min(W^D_i(D_k), D_k − C_k) < m (D_k − C_k), with the terms."""
    if work is not None:
        work.spend(k + 1)
    rows = _rows(ts)
    C_k, D_k, _ = rows[k]
    s = D_k - C_k
    workloads = [workload_deadline(c, d, t, D_k) for c, d, t in rows[:k]]  # D_k β_i
    total = sum(min(w, s) for w in workloads)
    return {
        "task": k,
        "holds": total < m * s,
        "lhs": Fraction(total, D_k),  # Σ min(β_i, 1 − λ_k)
        "rhs": Fraction(m * s, D_k),  # m (1 − λ_k)
        "workloads": workloads,
    }


@on_reduced_reference
def bcl_reference(ts: TaskSet, m: int, work_budget: int | None = REFERENCE_WORK) -> Verdict:
    """Exact gfp-bcl verdict: (BCL-FP) for every task (Python ints).

    "unknown" if the reference work budget runs out first.
    """
    work = Work(work_budget)
    return every_task_holds(ts.n, lambda k: bcl_task(ts, k, m, work)["holds"])


@on_reduced_explain
def bcl_explain(ts: TaskSet, m: int, work_budget: int | None = REFERENCE_WORK) -> Explanation:
    """Both sides of (BCL-FP) per task; the first failing task with its interference terms."""
    work = Work(work_budget)
    scan = scan_tasks(ts.n, lambda k: bcl_task(ts, k, m, work), stop_at_failure=True)
    rows = [{key: r[key] for key in ("task", "lhs", "rhs", "holds")} for r in scan.rows]
    if scan.failing is not None:
        f = scan.rows[scan.failing]
        summary = f"{ts.label(scan.failing)} fails: " + show_comparison(
            "Σ_(i<k) min(β_i, 1 − λ_k)", f["lhs"], "≥", "m(1 − λ_k)", f["rhs"]
        )
        evidence: dict[str, Any] = {
            "failing_task": scan.failing,
            "lhs": f["lhs"],
            "rhs": f["rhs"],
            "interference_terms": _terms(ts, f["workloads"]),
        }
        return Explanation(False, summary, evidence, rows, steps=lambda: bcl_steps(ts, m, scan.rows))
    if scan.exhausted:
        summary, evidence = scan.unknown(work, ts.n, work_budget)
        return Explanation(UNKNOWN_VERDICT, summary, evidence, rows, steps=lambda: bcl_steps(ts, m, scan.rows))
    tight = scan.tightest()
    summary = f"every task passes; tightest {ts.label(tight)}: " + show_comparison(
        "Σ min(β_i, 1 − λ_k)", rows[tight]["lhs"], "<", "m(1 − λ_k)", rows[tight]["rhs"]
    )
    return Explanation(True, summary, {"tightest_task": tight}, rows, steps=lambda: bcl_steps(ts, m, scan.rows))


def bcl_steps(ts: TaskSet, m: int, rows: list[Any]) -> Iterator[Step]:
    """(BCL-FP) task by task in priority order, from the rows :func:`bcl_explain` computed."""
    yield Step(
        f"(BCL-FP) on m = {m}, priority = task order: Σ_{{i<k}} min(β_i, 1 − λ_k) < m(1 − λ_k), "
        "β_i = W^D_i(D_k)/D_k, λ_k = C_k/D_k"
    )
    for row in rows:
        k = int(row["task"])
        betas = {f"b{i}": Fraction(w, int(ts.D[k])) for i, w in enumerate(row["workloads"])}
        terms = ", ".join(f"{{b{i}}}" for i in range(len(betas)))
        yield Step(
            f"{ts.label(k)}: β_i of the higher-priority tasks: {terms}"
            if k
            else f"{ts.label(k)}: no higher-priority task",
            betas,
        )
        values = {"lhs": row["lhs"], "rhs": row["rhs"]}
        if row["holds"]:
            yield Step("  Σ min(β_i, 1 − λ_k) = {lhs} < m(1 − λ_k) = {rhs}: holds", values)
        else:
            yield Step("  Σ min(β_i, 1 − λ_k) = {lhs} ≥ m(1 − λ_k) = {rhs}: fails, not proven", values)
    if len(rows) == ts.n and all(row["holds"] for row in rows):
        yield Step("every task holds: schedulable by G-FP in task order")
    elif all(row["holds"] for row in rows):
        yield Step(f"the reference's work budget ran out after {count(len(rows), 'task')}: unknown")


def _terms(ts: TaskSet, values: list[int], name: str = "workload") -> list[dict[str, Any]]:
    return [{"task": i, name: v} for i, v in enumerate(values)]


@kernel(counted=False)
def _bcl_one(C, D, T, m):
    # D > T: decide the set with D'_i = min(D_i, T_i), as the reference does (C_i > T_i: reject).
    for i in range(C.shape[0]):
        if C[i] > T[i]:
            return REJECT
    for k in range(C.shape[0]):
        D_k = min(D[k], T[k])
        s = D_k - C[k]
        total = 0
        for i in range(k):
            total += min(workload_deadline_nb(C[i], min(D[i], T[i]), T[i], D_k), s)
        if total >= m * s:  # m s < 2**51
            return REJECT
    return ACCEPT


_bcl_kernel = sets_kernel(_bcl_one)


ANALYSES = (
    _global_fp(
        name="gfp-bcl",
        title="BCL interference test (G-FP)",
        order=1,
        citation=CITE_BCL,
        note="papers/bcl2005-fp.md",
        reference=bcl_reference,
        explain=bcl_explain,
        kernel=_bcl_kernel,
        one=_bcl_one,
    ),
)
