"""Sufficient tests for global fixed-priority scheduling (G-FP) on identical multiprocessors.

Model: sporadic tasks τi = (C_i, D_i, T_i), integer time, constrained deadlines (C ≤ D ≤ T),
m identical processors, preemptive global fixed priorities (the m highest-priority pending jobs
run; work-conserving). **Priority is the order of the tasks in the set: task 0 has the highest
priority**; hp(k) = {0, …, k − 1}. ``rm-us`` is the exception: it prescribes its own priority
rule (below) and ignores the given order. Shared bounds: ``analyses/global_fp/_workload.py`` (W^D, W^R, W^NC,
W^CI, with equation numbers). Notes: papers/bcl2005-fp.md, papers/bertogna-cirinei2007.md (FP
section), papers/guan2009-rta-lc.md, papers/davis-burns2011-opa.md,
papers/andersson-baruah-jonsson2001-rmus.md. The primary texts were not reachable here; the
formulas are taken from secondary sources named in each note (SchedCAT's ``sched/fp``, the Prosa
formalisation of Bertogna & Cirinei's FP analysis, an implementation citing Davis & Burns's
equation numbers); equation numbers marked "as cited by" there are unverified against the papers.

``gfp-bcl`` (Bertogna, Cirinei, Lipari, OPODIS 2005; IEEE TPDS 20(4), 2009): with s_k = D_k − C_k,
every task τk must satisfy

    Σ_{i<k} min(W^D_i(D_k), s_k) < m · s_k                                         (BCL-FP)

i.e. Σ_{i<k} min(β_i, 1 − λ_k) < m (1 − λ_k) with β_i = W^D_i(D_k)/D_k, λ_k = C_k/D_k.

``gfp-da`` (Davis & Burns, RTS 47(1) 2011, Eq. (1)–(4), the "deadline analysis" form of the
BCL test): every τk must satisfy

    C_k + ⌊(1/m) Σ_{i<k} min(W^D_i(D_k), D_k − C_k + 1)⌋ ≤ D_k                      (DA)

``gfp-da-lc`` (Davis & Burns 2011, Eq. (9)–(15): DA with Guan et al.'s limited carry-in): with
I^NC_i = min(W^NC_i(D_k), D_k − C_k + 1), I^D_i = min(W^D_i(D_k), D_k − C_k + 1),

    C_k + ⌊(1/m)(Σ_{i<k} I^NC_i + Σ_{(m−1) largest} (I^D_i − I^NC_i))⌋ ≤ D_k          (DA-LC)

``gfp-rta`` (Bertogna & Cirinei, RTSS 2007, FP form): in priority order, R_k is the least fixed
point, iterating from x = C_k, of

    x = C_k + ⌊(1/m) Σ_{i<k} min(W^R_i(x), x − C_k + 1)⌋                              (RTA-FP)

with W^R_i the workload bound with the response-time bounds R_i of the higher-priority tasks;
the set is accepted if every R_k ≤ D_k (one pass suffices under FP: τk depends only on hp(k)).

``gfp-rta-lc`` (Guan, Stigge, Yi, Yu, RTSS 2009, Eq. (5)–(12)): the same iteration with

    Ω_k(x) = Σ_{i<k} I^NC_i(x) + Σ_{(m−1) largest} (I^CI_i(x) − I^NC_i(x)),
    x = C_k + ⌊Ω_k(x)/m⌋                                                              (RTA-LC)

where I^X_i(x) = min(W^X_i(x), x − C_k + 1) (Eq. (7)–(8)); at most m − 1 tasks carry in.

``rm-us`` (Andersson, Baruah, Jonsson, RTSS 2001): RM-US[m/(3m−2)] gives the tasks with
utilization above m/(3m−2) the highest priorities and orders the rest rate-monotonically; it
meets every deadline of an implicit-deadline set with U ≤ m²/(3m−2). **The verdict is for the
set under the RM-US priority rule, not under the given order.** rtsched applies it for m ≥ 2
only: for m = 1 the rule is plain RM and the bound would read U ≤ 1, which RM does not meet
(witness (2, 4, 4), (3, 6, 6); see the note).

Dominance (proved in the notes, property-tested): gfp-rta ⊇ gfp-da ⊇ gfp-bcl,
gfp-rta-lc ⊇ gfp-rta, gfp-rta-lc ⊇ gfp-da-lc ⊇ gfp-da (⊇: accepts every set the other accepts,
with the default budgets not running out).

Budgets: ``gfp-rta`` and ``gfp-rta-lc`` iterate; one unit is one evaluation of the right side of
(RTA-FP)/(RTA-LC) (k terms for τk), default :data:`DEFAULT_BUDGET`. The reference and the kernel
run the same evaluations in the same order, so they run out at the same point; running out is
"unknown", never a rejection. Each search is monotone (the right side is non-decreasing in x and
starts at ≥ C_k), so it ends within D_k − C_k + 2 evaluations.

Exactness: every quantity is an integer below 2**51 (see ``_gfp``), the kernels compute in int64
exactly what the references compute in Python ints; ``rm-us`` compares Σ C_i/T_i with a rational
bound in float64 with a proven margin (UNDECIDED inside it: the registry asks the Fraction
reference).

OPA: :func:`da_fits_lowest` and :func:`da_lc_fits_lowest` (re-exported from ``_gfp``) are the
OPA-compatible per-task conditions ``fits_lowest(ts, k, higher, *, m)``; bind m with
:func:`fits_lowest` for ``audsley``.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from rtsched.analyses.global_fp._workload import (
    da_fits_lowest,
    da_lc_fits_lowest,
    fits_lowest,
    top_sum,
    top_sum_nb,
    workload_ci,
    workload_ci_nb,
    workload_deadline,
    workload_deadline_nb,
    workload_nc,
    workload_nc_nb,
    workload_response,
    workload_response_nb,
)
from rtsched.analyses.theory.workload import every_task_holds, scan_tasks
from rtsched.budget import REFERENCE_WORK, Work, WorkExhausted
from rtsched.errors import InputError
from rtsched.kernels import ACCEPT, EPS, REJECT, UNKNOWN, kernel, margin_verdict, sets_kernel, workspace_kernels
from rtsched.model import TaskSet
from rtsched.platform import Identical, Platform
from rtsched.registry import Analysis
from rtsched.result import UNKNOWN as UNKNOWN_VERDICT
from rtsched.result import Explanation, Step, Verdict, count, iterates, show_comparison, show_number

__all__ = [
    "ANALYSES",
    "DEFAULT_BUDGET",
    "ResponseTimeRun",
    "bcl_explain",
    "bcl_reference",
    "da_explain",
    "da_fits_lowest",
    "da_lc_explain",
    "da_lc_fits_lowest",
    "da_lc_reference",
    "da_reference",
    "fits_lowest",
    "rmus_explain",
    "rmus_order",
    "rmus_reference",
    "rta_explain",
    "rta_iterate",
    "rta_lc_explain",
    "rta_lc_reference",
    "rta_reference",
]

#: Default work budget of gfp-rta and gfp-rta-lc: evaluations of the response-time recurrence per set.
DEFAULT_BUDGET = 200_000

CITE_BCL = (
    "Bertogna, Cirinei, Lipari, 'New schedulability tests for real-time task sets scheduled by deadline "
    "monotonic on multiprocessors', OPODIS 2005 (LNCS 3974), the interference test with the FP workload "
    "bound; IEEE TPDS 20(4), 2009"
)
CITE_RTA = (
    "Bertogna, Cirinei, 'Response-time analysis for globally scheduled symmetric multiprocessor platforms', "
    "RTSS 2007 (FP response-time bound, workload Eq. (4)/(8) with R_i)"
)
CITE_RTA_LC = (
    "Guan, Stigge, Yi, Yu, 'New response time bounds for fixed priority multiprocessor scheduling', "
    "RTSS 2009, Eq. (5)-(12) (limited carry-in: at most m - 1 tasks)"
)
CITE_DA = (
    "Davis, Burns, 'Improved priority assignment for global fixed priority pre-emptive scheduling in "
    "multiprocessor real-time systems', Real-Time Systems 47(1), 2011, DA test Eq. (1)-(4)"
)
CITE_DA_LC = (
    "Davis, Burns, Real-Time Systems 47(1), 2011, DA-LC test Eq. (9)-(15) (deadline analysis with "
    "Guan et al.'s limited carry-in, OPA-compatible)"
)
CITE_RMUS = (
    "Andersson, Baruah, Jonsson, 'Static-priority scheduling on multiprocessors', RTSS 2001: "
    "RM-US[m/(3m-2)], U <= m^2/(3m-2) (its own priority rule: heavy tasks first, then RM)"
)


def _rows(ts: TaskSet) -> list[tuple[int, int, int]]:
    return [(int(c), int(d), int(t)) for c, d, t in zip(ts.C, ts.D, ts.T, strict=True)]


# =================================================================================================
# gfp-bcl
# =================================================================================================
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


def bcl_reference(ts: TaskSet, m: int, work_budget: int | None = REFERENCE_WORK) -> Verdict:
    """Exact gfp-bcl verdict: (BCL-FP) for every task (Python ints).

    "unknown" if the reference work budget runs out first.
    """
    work = Work(work_budget)
    return every_task_holds(ts.n, lambda k: bcl_task(ts, k, m, work)["holds"])


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
    for k in range(C.shape[0]):
        D_k = D[k]
        s = D_k - C[k]
        total = 0
        for i in range(k):
            total += min(workload_deadline_nb(C[i], D[i], T[i], D_k), s)
        if total >= m * s:  # m s < 2**51
            return REJECT
    return ACCEPT


_bcl_kernel = sets_kernel(_bcl_one)


# =================================================================================================
# gfp-da and gfp-da-lc
# =================================================================================================
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


def da_reference(ts: TaskSet, m: int, work_budget: int | None = REFERENCE_WORK) -> Verdict:
    """Exact gfp-da verdict: (DA) for every task, in priority order."""
    return _da_reference(ts, m, False, work_budget)


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


def da_explain(ts: TaskSet, m: int, work_budget: int | None = REFERENCE_WORK) -> Explanation:
    """Per task the DA bound C_k + ⌊Σ I^D/m⌋; the failing task with its terms I^D_i."""
    return _da_explain(ts, m, False, work_budget)


def da_lc_explain(ts: TaskSet, m: int, work_budget: int | None = REFERENCE_WORK) -> Explanation:
    """Per task the DA-LC bound; the failing task with its terms I^NC_i, I^D_i, I^DIFF_i."""
    return _da_explain(ts, m, True, work_budget)


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


@kernel(counted=False)
def _da_set(C, D, T, m, limited, diff, buf):
    # (DA) / (DA-LC) for every task (W^D_i = W^R_i with R_i = D_i); diff and buf: scratch ≥ n.
    for k in range(C.shape[0]):
        if C[k] + _interference(C, T, D, k, D[k], m, limited, False, diff, buf) // m > D[k]:
            return REJECT
    return ACCEPT


@kernel(inline="always")
def _da_ws(C, D, T, m, ints, floats):
    return _da_set(C, D, T, m, False, ints[0], ints[1])


@kernel(inline="always")
def _da_lc_ws(C, D, T, m, ints, floats):
    return _da_set(C, D, T, m, True, ints[0], ints[1])


_da_kernel, _da_one = workspace_kernels(_da_ws, ints=2)
_da_lc_kernel, _da_lc_one = workspace_kernels(_da_lc_ws, ints=2)


# =================================================================================================
# gfp-rta and gfp-rta-lc
# =================================================================================================
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


def rta_reference(
    ts: TaskSet, m: int, budget: int = DEFAULT_BUDGET, work_budget: int | None = REFERENCE_WORK
) -> Verdict:
    """Exact gfp-rta verdict (True, False, or "unknown" when a budget runs out)."""
    return rta_iterate(ts, m, budget, False, work_budget).verdict


def rta_lc_reference(
    ts: TaskSet, m: int, budget: int = DEFAULT_BUDGET, work_budget: int | None = REFERENCE_WORK
) -> Verdict:
    """Exact gfp-rta-lc verdict (True, False, or "unknown" when a budget runs out)."""
    return rta_iterate(ts, m, budget, True, work_budget).verdict


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
        why = Work(work_budget).describe() if run.work_exhausted else f"the budget of {count(budget, 'evaluation')} ran out"
        yield Step(f"unknown: {why}")


def rta_explain(
    ts: TaskSet, m: int, budget: int = DEFAULT_BUDGET, work_budget: int | None = REFERENCE_WORK
) -> Explanation:
    """Per-task response-time bounds; the failing task with its interference terms."""
    return _rta_explain(ts, m, budget, False, work_budget)


def rta_lc_explain(
    ts: TaskSet, m: int, budget: int = DEFAULT_BUDGET, work_budget: int | None = REFERENCE_WORK
) -> Explanation:
    """Per-task response-time bounds (limited carry-in); the failing task with I^NC, I^CI terms."""
    return _rta_explain(ts, m, budget, True, work_budget)


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


@kernel(inline="always")
def _rta_ws(C, D, T, m, budget, ints, floats):
    return _rta_set(C, D, T, m, budget, False, ints[0], ints[1], ints[2])


@kernel(inline="always")
def _rta_lc_ws(C, D, T, m, budget, ints, floats):
    return _rta_set(C, D, T, m, budget, True, ints[0], ints[1], ints[2])


_rta_kernel, _rta_one = workspace_kernels(_rta_ws, ints=3)
_rta_lc_kernel, _rta_lc_one = workspace_kernels(_rta_lc_ws, ints=3)


# =================================================================================================
# rm-us
# =================================================================================================
def rmus_order(ts: TaskSet, m: int) -> list[int]:
    """The RM-US[m/(3m−2)] priority order (highest first).

    The heavy tasks (C_i/T_i > m/(3m−2)) in index order, then the others by period (ties by index).
    """
    threshold = Fraction(m, 3 * m - 2)
    heavy = [i for i in range(ts.n) if Fraction(int(ts.C[i]), int(ts.T[i])) > threshold]
    light = sorted((i for i in range(ts.n) if i not in set(heavy)), key=lambda i: (int(ts.T[i]), i))
    return heavy + light


def rmus_reference(ts: TaskSet, m: int) -> bool:
    """Exact: Σ C_i/T_i ≤ m²/(3m − 2) (ABJ 2001), for the set under the RM-US priority rule."""
    return ts.utilization <= Fraction(m * m, 3 * m - 2)


def rmus_explain(ts: TaskSet, m: int) -> Explanation:
    """U against m²/(3m−2), the heavy tasks and the RM-US priority order the verdict is about."""
    U = ts.utilization
    bound = Fraction(m * m, 3 * m - 2)
    order = rmus_order(ts, m)
    threshold = Fraction(m, 3 * m - 2)
    heavy = [i for i in order if Fraction(int(ts.C[i]), int(ts.T[i])) > threshold]
    holds = U <= bound
    summary = (
        show_comparison("U", U, "≤" if holds else ">", "m²/(3m−2)", bound)
        + f" under the RM-US priority rule (not the given order): {count(len(heavy), 'heavy task')} "
        f"(u > {show_number(threshold)}) first, then rate-monotonic"
    )
    evidence = {
        "utilization": U,
        "bound": bound,
        "heavy_threshold": threshold,
        "heavy_tasks": tuple(heavy),
        "priority_order": tuple(order),
        "slack": bound - U,
    }
    rank = {task: r for r, task in enumerate(order)}
    per_task = [
        {"task": i, "utilization": Fraction(int(ts.C[i]), int(ts.T[i])), "heavy": i in heavy, "rm_us_rank": rank[i]}
        for i in range(ts.n)
    ]
    return Explanation(holds, summary, evidence, per_task, steps=lambda: rmus_steps(ts, m))


def rmus_steps(ts: TaskSet, m: int) -> Iterator[Step]:
    """RM-US step by step: the heavy threshold, each u_i, the RM-US order, U against m²/(3m − 2)."""
    threshold, bound, U = Fraction(m, 3 * m - 2), Fraction(m * m, 3 * m - 2), ts.utilization
    utilizations = {f"u{i}": Fraction(int(ts.C[i]), int(ts.T[i])) for i in range(ts.n)}
    yield Step(f"heavy: u_i > m/(3m − 2) = {{h}} on m = {m}", {"h": threshold})
    yield Step("u_i = C_i/T_i: " + ", ".join(f"{ts.label(i)} {{u{i}}}" for i in range(ts.n)), utilizations)
    order = rmus_order(ts, m)
    heavy = [i for i in order if utilizations[f"u{i}"] > threshold]
    yield Step(
        "RM-US priorities (the rule's, not the given order): "
        + (f"heavy {', '.join(ts.label(i) for i in heavy)} first, then " if heavy else "no heavy task; ")
        + "by period: "
        + ", ".join(ts.label(i) for i in order)
    )
    if U <= bound:
        yield Step("U = {U} ≤ m²/(3m − 2) = {b}: schedulable by G-FP under RM-US", {"U": U, "b": bound})
    else:
        yield Step("U = {U} > m²/(3m − 2) = {b}: not proven", {"U": U, "b": bound})


@kernel(counted=False)
def _rmus_one(C, D, T, m):
    n = C.shape[0]
    total = 0.0
    for i in range(n):
        total += C[i] / T[i]
    bound = m * m / (3.0 * m - 2.0)
    # Each quotient is correctly rounded (relative error ≤ EPS), the n-term sum of non-negative
    # terms adds at most n·EPS relative error, the bound two roundings: 4(n + 4)·EPS·(total +
    # bound) exceeds the total error.
    return margin_verdict(total - bound, 4.0 * (n + 4) * EPS * (total + bound))


_rmus_kernel = sets_kernel(_rmus_one)


def _rmus_accepts(platform: Platform) -> str | None:
    if isinstance(platform, Identical) and platform.m < 2:
        return (
            "RM-US[m/(3m−2)] is applied for m ≥ 2 only (for m = 1 its bound would claim that RM meets "
            "every deadline up to U = 1, which it does not; use uni-rta)"
        )
    return None


# =================================================================================================
# registry entries
# =================================================================================================
#: Every analysis here is a sufficient test for global fixed priorities.
_global_fp = functools.partial(Analysis, kind="sufficient", policy="global-fp")
ANALYSES = (
    _global_fp(
        name="gfp-bcl", title="BCL interference test (G-FP)", order=1,
        citation=CITE_BCL, note="papers/bcl2005-fp.md",
        reference=bcl_reference, explain=bcl_explain, kernel=_bcl_kernel, one=_bcl_one,
    ),
    _global_fp(
        name="gfp-da", title="Deadline analysis DA (G-FP, OPA-compatible)", order=2, featured=False,
        citation=CITE_DA, note="papers/davis-burns2011-opa.md",
        reference=da_reference, explain=da_explain, kernel=_da_kernel, one=_da_one,
        opa=functools.partial(fits_lowest, "gfp-da"),
    ),
    _global_fp(
        name="gfp-da-lc", title="Deadline analysis with limited carry-in DA-LC (G-FP, OPA-compatible)", order=3,
        citation=CITE_DA_LC, note="papers/davis-burns2011-opa.md",
        reference=da_lc_reference, explain=da_lc_explain, kernel=_da_lc_kernel, one=_da_lc_one,
        opa=functools.partial(fits_lowest, "gfp-da-lc"),
    ),
    _global_fp(
        name="gfp-rta", title="Response-time analysis (G-FP)", order=4,
        citation=CITE_RTA, note="papers/bertogna-cirinei2007.md",
        reference=rta_reference, explain=rta_explain, kernel=_rta_kernel, one=_rta_one,
        budget=DEFAULT_BUDGET, budget_unit="response-time evaluations",
    ),
    _global_fp(
        name="gfp-rta-lc", title="Response-time analysis with limited carry-in (G-FP)", order=5,
        citation=CITE_RTA_LC, note="papers/guan2009-rta-lc.md",
        reference=rta_lc_reference, explain=rta_lc_explain, kernel=_rta_lc_kernel, one=_rta_lc_one,
        budget=DEFAULT_BUDGET, budget_unit="response-time evaluations",
    ),
    _global_fp(
        name="rm-us", title="RM-US[m/(3m−2)] utilization bound (G-FP, its own priority rule)", order=0,
        featured=False, deadlines=("implicit",), accepts=_rmus_accepts,
        citation=CITE_RMUS, note="papers/andersson-baruah-jonsson2001-rmus.md",
        reference=rmus_reference, explain=rmus_explain, kernel=_rmus_kernel, one=_rmus_one,
    ),
)
