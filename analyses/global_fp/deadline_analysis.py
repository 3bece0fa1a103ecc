"""Deadline analysis for global fixed priorities, ``gfp-da`` and ``gfp-da-lc``: Davis & Burns (RTS 2011).

R. I. Davis, A. Burns, "Improved priority assignment for global fixed priority pre-emptive
scheduling in multiprocessor real-time systems", Real-Time Systems 47(1), 2011: the DA test
(Eq. (1)–(4), the "deadline analysis" form of the BCL test) and the DA-LC test (Eq. (9)–(15), DA
with Guan et al.'s limited carry-in), both OPA-compatible. Note: papers/davis-burns2011-opa.md
(the primary text was not reachable; the equation numbers are as cited by a public DA-LC
implementation and unverified).

Model: sporadic tasks τi = (C_i, D_i, T_i), integer time, constrained deadlines (C ≤ D ≤ T), m
identical processors (arbitrary deadlines D > T: the set with D'_i = min(D_i, T_i) is decided,
rtsched's reduction, papers/arbitrary-deadlines-reductions.md, Theorem 1; ``_common.py``; the OPA
conditions use D' too), preemptive global fixed priorities (work-conserving). **Priority is the
order of the tasks in the set: task 0 has the highest priority**; hp(k) = {0, …, k − 1}. The
workload bounds W^D and W^NC are in ``_workload.py``.

``gfp-da``: every τk must satisfy

    C_k + ⌊(1/m) Σ_{i<k} min(W^D_i(D_k), D_k − C_k + 1)⌋ ≤ D_k                      (DA)

``gfp-da-lc``: with I^NC_i = min(W^NC_i(D_k), D_k − C_k + 1), I^D_i = min(W^D_i(D_k), D_k − C_k + 1),

    C_k + ⌊(1/m)(Σ_{i<k} I^NC_i + Σ_{(m−1) largest} (I^D_i − I^NC_i))⌋ ≤ D_k          (DA-LC)

Dominance (proved in the notes, property-tested): gfp-da ⊇ gfp-bcl (``bcl_fp.py``),
gfp-da-lc ⊇ gfp-da, gfp-rta ⊇ gfp-da (``rta_fp.py``), gfp-rta-lc ⊇ gfp-da-lc (``rta_lc.py``)
(⊇: accepts every set the other accepts, with the default budgets not running out).

Exactness: every quantity is an integer below 2**51 (see ``_workload.py``); the kernels compute in
int64 exactly what the references compute in Python ints.

OPA: :func:`da_fits_lowest` and :func:`da_lc_fits_lowest` (re-exported from ``_workload.py``) are
the OPA-compatible per-task conditions ``fits_lowest(ts, k, higher, *, m)``; bind m with
:func:`fits_lowest` for ``audsley``.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from fractions import Fraction
from typing import Any

from rtsched.analyses.global_fp._common import (
    _global_fp,
    _interference,
    _rows,
    on_reduced_explain,
    on_reduced_reference,
    reduced_deadlines_nb,
)
from rtsched.analyses.global_fp._workload import (
    da_fits_lowest,
    da_lc_fits_lowest,
    fits_lowest,
    top_sum,
    workload_deadline,
    workload_nc,
)
from rtsched.analyses.theory.workload import every_task_holds, scan_tasks
from rtsched.budget import REFERENCE_WORK, Work
from rtsched.kernels import ACCEPT, REJECT, kernel, workspace_kernels
from rtsched.model import TaskSet
from rtsched.result import UNKNOWN as UNKNOWN_VERDICT
from rtsched.result import Explanation, Step, Verdict, count

__all__ = [
    "ANALYSES",
    "da_explain",
    "da_fits_lowest",
    "da_lc_explain",
    "da_lc_fits_lowest",
    "da_lc_reference",
    "da_reference",
    "da_steps",
    "da_task",
    "fits_lowest",
]

CITE_DA = (
    "Davis, Burns, 'Improved priority assignment for global fixed priority pre-emptive scheduling in "
    "multiprocessor real-time systems', Real-Time Systems 47(1), 2011, DA test Eq. (1)-(4)"
)
CITE_DA_LC = (
    "Davis, Burns, Real-Time Systems 47(1), 2011, DA-LC test Eq. (9)-(15) (deadline analysis with "
    "Guan et al.'s limited carry-in, OPA-compatible)"
)


def da_task(ts: TaskSet, k: int, m: int, limited: bool, work: Work | None = None) -> dict[str, Any]:
    """(DA) or (DA-LC) for τk below hp(k): the bound C_k + ⌊Σ/m⌋ and its interference terms."""
    if work is not None:
        work.spend(k + 1)
    rows = _rows(ts)
    C_k, D_k, _ = rows[k]
    cap = D_k - C_k + 1
    terms: list[dict[str, Any]] = []
    if limited:
        for i, (c, d, t) in enumerate(rows[:k]):
            nc = min(workload_nc(c, t, D_k), cap)  # I^NC_i, Eq. (9)-(11)
            dd = min(workload_deadline(c, d, t, D_k), cap)  # I^D_i, Eq. (1)-(3)
            terms.append({"task": i, "I_NC": nc, "I_D": dd, "I_DIFF": dd - nc})  # Eq. (15)
        carry = top_sum([x["I_DIFF"] for x in terms], m - 1)
        total = sum(x["I_NC"] for x in terms) + carry  # Eq. (14)
    else:
        for i, (c, d, t) in enumerate(rows[:k]):
            terms.append({"task": i, "I_D": min(workload_deadline(c, d, t, D_k), cap)})  # Eq. (3)
        carry = None
        total = sum(x["I_D"] for x in terms)  # Eq. (4)
    bound = C_k + total // m
    row = {"task": k, "bound": bound, "deadline": D_k, "interference": total, "holds": bound <= D_k}
    if carry is not None:
        row["carry_in"] = carry
    return {"row": row, "terms": terms}


def _da_reference(ts: TaskSet, m: int, limited: bool, work_budget: int | None) -> Verdict:
    work = Work(work_budget)
    return every_task_holds(ts.n, lambda k: da_task(ts, k, m, limited, work)["row"]["holds"])


@on_reduced_reference
def da_reference(ts: TaskSet, m: int, work_budget: int | None = REFERENCE_WORK) -> Verdict:
    """Exact gfp-da verdict: (DA) for every task, in priority order."""
    return _da_reference(ts, m, False, work_budget)


@on_reduced_reference
def da_lc_reference(ts: TaskSet, m: int, work_budget: int | None = REFERENCE_WORK) -> Verdict:
    """Exact gfp-da-lc verdict: (DA-LC) for every task, in priority order."""
    return _da_reference(ts, m, True, work_budget)


def _da_explain(ts: TaskSet, m: int, limited: bool, work_budget: int | None) -> Explanation:
    work = Work(work_budget)
    name = "DA-LC" if limited else "DA"
    results: list[dict[str, Any]] = []

    def condition(k: int) -> dict[str, Any]:
        r = da_task(ts, k, m, limited, work)
        results.append(r)
        return r["row"]

    scan = scan_tasks(ts.n, condition, stop_at_failure=True)
    rows = list(scan.rows)
    if scan.failing is not None:
        f = results[scan.failing]
        row = f["row"]
        summary = (
            f"{ts.label(scan.failing)} fails ({name}): C_k + ⌊Σ I/m⌋ = {row['bound']} > D_k = {row['deadline']} "
            f"(interference {row['interference']} from {count(scan.failing, 'higher-priority task')})"
        )
        evidence: dict[str, Any] = {"failing_task": scan.failing, "interference_terms": f["terms"], **row}
        return Explanation(False, summary, evidence, rows, steps=lambda: da_steps(ts, m, limited, results))
    if scan.exhausted:
        summary, evidence = scan.unknown(work, ts.n, work_budget)
        return Explanation(UNKNOWN_VERDICT, summary, evidence, rows, steps=lambda: da_steps(ts, m, limited, results))
    tight = max(range(ts.n), key=lambda k: Fraction(rows[k]["bound"], rows[k]["deadline"]))
    summary = (
        f"every task passes ({name}); tightest {ts.label(tight)}: C_k + ⌊Σ I/m⌋ = {rows[tight]['bound']} ≤ "
        f"D_k = {rows[tight]['deadline']}"
    )
    return Explanation(True, summary, {"tightest_task": tight}, rows, steps=lambda: da_steps(ts, m, limited, results))


def da_steps(ts: TaskSet, m: int, limited: bool, results: list[dict[str, Any]]) -> Iterator[Step]:
    """(DA) or (DA-LC) task by task in priority order, from the terms :func:`_da_explain` computed."""
    if limited:
        yield Step(
            f"(DA-LC) on m = {m}, priority = task order: C_k + ⌊(Σ_{{i<k}} I^NC_i + the {m - 1} largest "
            "I^D_i − I^NC_i)/m⌋ ≤ D_k, each term capped at D_k − C_k + 1"
        )
    else:
        yield Step(
            f"(DA) on m = {m}, priority = task order: C_k + ⌊(1/m) Σ_{{i<k}} min(W^D_i(D_k), D_k − C_k + 1)⌋ ≤ D_k"
        )
    for r in results:
        row, k = r["row"], r["row"]["task"]
        if limited:
            parts = ", ".join(f"{ts.label(t['task'])}: {t['I_NC']} / {t['I_D']}" for t in r["terms"])
            yield Step(
                f"{ts.label(k)}: I^NC / I^D of the higher-priority tasks: {parts}"
                if k
                else f"{ts.label(k)}: no higher-priority task"
            )
            carry = row["carry_in"]
            total = f"Σ I^NC = {row['interference'] - carry}, carry-in {carry}, interference {row['interference']}"
        else:
            parts = ", ".join(f"{ts.label(t['task'])}: {t['I_D']}" for t in r["terms"])
            yield Step(
                f"{ts.label(k)}: I^D of the higher-priority tasks: {parts}"
                if k
                else f"{ts.label(k)}: no higher-priority task"
            )
            total = f"Σ I^D = {row['interference']}"
        C_k = int(ts.C[k])
        verdict = "holds" if row["holds"] else "fails, not proven"
        sign = "≤" if row["holds"] else ">"
        yield Step(
            f"  {total}; {C_k} + ⌊{row['interference']}/{m}⌋ = {row['bound']} {sign} D_k = {row['deadline']}: {verdict}"
        )
    if len(results) == ts.n and all(r["row"]["holds"] for r in results):
        yield Step("every task holds: schedulable by G-FP in task order")
    elif all(r["row"]["holds"] for r in results):
        yield Step(f"the reference's work budget ran out after {count(len(results), 'task')}: unknown")


@on_reduced_explain
def da_explain(ts: TaskSet, m: int, work_budget: int | None = REFERENCE_WORK) -> Explanation:
    """Per task the DA bound C_k + ⌊Σ I^D/m⌋; the failing task with its terms I^D_i."""
    return _da_explain(ts, m, False, work_budget)


@on_reduced_explain
def da_lc_explain(ts: TaskSet, m: int, work_budget: int | None = REFERENCE_WORK) -> Explanation:
    """Per task the DA-LC bound; the failing task with its terms I^NC_i, I^D_i, I^DIFF_i."""
    return _da_explain(ts, m, True, work_budget)


@kernel(counted=False)
def _da_set(C, D, T, m, limited, diff, buf):
    # (DA) / (DA-LC) for every task (W^D_i = W^R_i with R_i = D_i); diff and buf: scratch ≥ n.
    for k in range(C.shape[0]):
        if C[k] + _interference(C, T, D, k, D[k], m, limited, False, diff, buf) // m > D[k]:
            return REJECT
    return ACCEPT


@kernel(inline="always")
def _da_ws(C, D, T, m, ints, floats):
    # D > T: decide the set with D'_i = min(D_i, T_i) (ints[2]), as the reference does.
    reduced = ints[2][: C.shape[0]]
    if not reduced_deadlines_nb(C, D, T, reduced):
        return REJECT
    return _da_set(C, reduced, T, m, False, ints[0], ints[1])


@kernel(inline="always")
def _da_lc_ws(C, D, T, m, ints, floats):
    reduced = ints[2][: C.shape[0]]
    if not reduced_deadlines_nb(C, D, T, reduced):
        return REJECT
    return _da_set(C, reduced, T, m, True, ints[0], ints[1])


_da_kernel, _da_one = workspace_kernels(_da_ws, ints=3)
_da_lc_kernel, _da_lc_one = workspace_kernels(_da_lc_ws, ints=3)


ANALYSES = (
    _global_fp(
        name="gfp-da",
        title="Deadline analysis DA (G-FP, OPA-compatible)",
        order=2,
        featured=False,
        citation=CITE_DA,
        note="papers/davis-burns2011-opa.md",
        reference=da_reference,
        explain=da_explain,
        kernel=_da_kernel,
        one=_da_one,
        opa=functools.partial(fits_lowest, "gfp-da"),
    ),
    _global_fp(
        name="gfp-da-lc",
        title="Deadline analysis with limited carry-in DA-LC (G-FP, OPA-compatible)",
        order=3,
        citation=CITE_DA_LC,
        note="papers/davis-burns2011-opa.md",
        reference=da_lc_reference,
        explain=da_lc_explain,
        kernel=_da_lc_kernel,
        one=_da_lc_one,
        opa=functools.partial(fits_lowest, "gfp-da-lc"),
    ),
)
