"""Partitioned EDF: bin-packing heuristics × task orders × per-processor admission tests.

One parametrised family ``p:<fit>:<order>:<admission>`` (48 members) plus featured entries:

* ``p-edf`` = ``p:ff:density:qpa`` (first fit, decreasing density, exact QPA admission);
* ``baruah-fisher`` = ``p:ff:deadline:dbfstar``: the deadline-monotonic first fit with the dbf*
  admission of Baruah & Fisher, "The partitioned multiprocessor scheduling of deadline-constrained
  sporadic task systems", IEEE TC 55(7), 2006 (RTSS 2005), Eq. (5)-(6): a task fits on a processor
  if D_i − Σ dbf*(τ_j, D_i) ≥ C_i and 1 − ΣU_j ≥ U_i (papers/baruah-fisher2006.md);
* ``p:wf:density:qpa`` (worst fit; used by the standard sweep).

Parameters (papers/partitioned-heuristics.md):

fit
    ``ff`` first fit (lowest-index processor that admits the task); ``nf`` next fit (the current
    processor, then the following ones, never back); ``bf`` best fit and ``wf`` worst fit, which
    measure remaining capacity by **utilization**: bf takes the admitting processor with the
    largest current utilization (least capacity left), wf the one with the smallest; ties go to
    the lowest processor index. Utilizations are compared exactly (Fractions in the reference;
    float with a proven margin and an exact rational tie-break in the kernel), so the kernel
    chooses the same processor as the reference, ties included.
order
    ``input``; ``density`` (C/min(D, T), decreasing); ``utilization`` (C/T, decreasing);
    ``deadline`` (D, increasing). Ties keep the input order, so results are deterministic.
admission
    ``density``: Σ C/min(D, T) ≤ 1 on the processor; ``dbfstar``: U ≤ 1 and Σ_j dbf*(τ_j, t) ≤ t
    at every deadline D_k on the processor (in deadline order this is exactly Baruah & Fisher's
    condition; in other orders the whole processor is rechecked, which keeps it sound);
    ``qpa``: U ≤ 1, then density ≤ 1 or the dbf* test accepts at once (both sufficient, so the
    outcome is that of the exact test), h(D_j) > D_j at some relative deadline refuses at once (a
    real miss), else exact QPA (Zhang & Burns, IEEE TC 58(9), 2009) with a work budget per
    admission.

Every admission test is a sufficient (density, dbf*) or exact (QPA) uniprocessor EDF test, so
an assignment that places every task proves the set schedulable under partitioned EDF: the
family is *sufficient*. A QPA admission that exhausts its budget counts as a refusal; if the set
then fails to pack, the verdict is "unknown" rather than False.

At most n processors can ever be used and they are always a prefix P0, P1, … (an empty
processor is never preferred to a lower-index empty one), so the kernel works on min(m, n)
processors; the verdicts are those of all m.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from numba import njit, prange
from numpy.typing import NDArray

from rtsched.analyses import _edf_demand as dm
from rtsched.analyses._edf_demand import (
    DEFAULT_BUDGET,
    _floordiv,
    _h,
    dbf_star_check,
    frac_sum_sign,
    frac_vs_int,
    qpa_one,
    qpa_trace,
    utilization_vs_one,
)
from rtsched.analyses.uniprocessor_edf import show
from rtsched.kernels import ACCEPT, EPS, REJECT, UNDECIDED, UNKNOWN, check_processors
from rtsched.model import TaskSet, TaskSetBatch
from rtsched.registry import Analysis, Family
from rtsched.result import UNKNOWN as UNKNOWN_VERDICT
from rtsched.result import Result, Verdict

__all__ = [
    "ADMISSIONS",
    "ANALYSES",
    "FAMILIES",
    "FAMILY_NAMES",
    "FITS",
    "ORDERS",
    "Packing",
    "assignments",
    "build",
    "pack",
    "task_order",
]

FITS = ("ff", "bf", "wf", "nf")
ORDERS = ("input", "density", "utilization", "deadline")
ADMISSIONS = ("density", "dbfstar", "qpa")
#: Every member of the family, in a stable order.
FAMILY_NAMES = tuple(f"p:{f}:{o}:{a}" for f in FITS for o in ORDERS for a in ADMISSIONS)
PATTERN = r"p:(ff|bf|wf|nf):(input|density|utilization|deadline):(density|dbfstar|qpa)"

CITATION_BF = (
    "Baruah, Fisher, 'The partitioned multiprocessor scheduling of deadline-constrained sporadic "
    "task systems', IEEE Transactions on Computers 55(7), 2006 (RTSS 2005), Eq. (5)-(6), dbf* Eq. (3)"
)
CITATION_QPA = "Zhang, Burns, 'Schedulability analysis for real-time systems with EDF scheduling', IEEE TC 58(9), 2009"
CITATION_PACKING = (
    "bin-packing heuristics for partitioned EDF (first/best/worst/next fit; e.g. Lopez, Diaz, "
    "Garcia, Real-Time Systems 28(1), 2004; Baruah & Fisher 2006) - see papers/partitioned-heuristics.md"
)

Rows = Sequence[tuple[int, int, int]]

# ---------------------------------------------------------------------------------------------
# Reference: exact Fractions.
# ---------------------------------------------------------------------------------------------


def task_order(rows: Rows, order: str) -> list[int]:
    """The order in which tasks are placed (stable: ties keep input order)."""
    idx = range(len(rows))
    if order == "input":
        return list(idx)
    if order == "density":
        return sorted(idx, key=lambda i: (-Fraction(rows[i][0], min(rows[i][1], rows[i][2])), i))
    if order == "utilization":
        return sorted(idx, key=lambda i: (-Fraction(rows[i][0], rows[i][2]), i))
    if order == "deadline":
        return sorted(idx, key=lambda i: (rows[i][1], i))
    raise ValueError(f"unknown order {order!r}")


def _utilization(rows: Rows) -> Fraction:
    return sum((Fraction(c, p) for c, _, p in rows), Fraction(0))


def _density(rows: Rows) -> Fraction:
    return sum((Fraction(c, min(d, p)) for c, d, p in rows), Fraction(0))


def admit(rows: Rows, admission: str, budget: int = DEFAULT_BUDGET) -> tuple[Verdict, str]:
    """May one EDF processor hold ``rows`` (its tasks plus the candidate)? (verdict, why not)."""
    U = _utilization(rows)
    if admission == "density":
        lam = _density(rows)
        return (True, "") if lam <= 1 else (False, f"density would be {show(lam)} > 1")
    if admission == "dbfstar":
        ok, why, t, value = dbf_star_check(rows)
        if ok:
            return True, ""
        if why == "U":
            return False, f"U would be {show(value)} > 1"
        return False, f"dbf*(t={t}) = {show(value)} > {t}"
    if admission == "qpa":
        if U > 1:
            return False, f"U would be {show(U)} > 1"
        if _density(rows) <= 1 or dbf_star_check(rows)[0]:
            return True, ""  # sufficient pre-checks (density ⇒ dbf* ⇒ exact): no QPA search
        for _, d, _ in rows:  # necessary pre-check: a miss at a first deadline D_j
            if dm.demand(rows, d) > d:
                return False, f"h({d}) = {dm.demand(rows, d)} > {d}"
        tr = qpa_trace(rows, budget)
        if tr.verdict is True:
            return True, ""
        if tr.verdict is False:
            return False, f"h({tr.t}) = {tr.h} > {tr.t} (QPA)"
        return UNKNOWN_VERDICT, f"QPA work budget of {budget} steps exhausted"
    raise ValueError(f"unknown admission {admission!r}")


@dataclass(frozen=True)
class Packing:
    """The outcome of one packing run.

    Attributes
    ----------
    verdict:
        True (every task placed), False, or "unknown" (failed after a QPA budget ran out).
    assignment:
        Processor of each task (input order), None for tasks not placed.
    order:
        The placement order (task indices).
    failed_task:
        The task that could not be placed, or None.
    refusals:
        For the failed task: ``(processor, why)`` for every processor tried.
    processors:
        Number of processors considered (min(m, n)).
    """

    verdict: Verdict
    assignment: tuple[int | None, ...]
    order: tuple[int, ...]
    failed_task: int | None
    refusals: tuple[tuple[int, str], ...]
    processors: int


def _preference(fit: str, bins: list[list[int]], rows: Rows, current: int) -> list[int]:
    """Processors in the order the fit rule tries them."""
    k = len(bins)
    if fit == "ff":
        return list(range(k))
    if fit == "nf":
        return list(range(current, k))
    loads = [_utilization([rows[i] for i in b]) for b in bins]
    if fit == "bf":
        return sorted(range(k), key=lambda b: (-loads[b], b))
    if fit == "wf":
        return sorted(range(k), key=lambda b: (loads[b], b))
    raise ValueError(f"unknown fit {fit!r}")


def pack(rows: Rows, m: int, fit: str, order: str, admission: str, budget: int = DEFAULT_BUDGET) -> Packing:
    """Run the heuristic on ``[(C, D, T), ...]`` with exact arithmetic (the reference)."""
    rows = [(int(c), int(d), int(p)) for c, d, p in rows]
    n = len(rows)
    k = min(m, n)
    bins: list[list[int]] = [[] for _ in range(k)]
    assignment: list[int | None] = [None] * n
    seq = task_order(rows, order)
    current = 0
    unknown = False
    for i in seq:
        refusals = []
        for b in _preference(fit, bins, rows, current):
            verdict, why = admit([rows[j] for j in bins[b]] + [rows[i]], admission, budget)
            if verdict is True:
                bins[b].append(i)
                assignment[i] = b
                current = b
                break
            unknown |= verdict == UNKNOWN_VERDICT
            refusals.append((b, why))
        else:
            verdict = UNKNOWN_VERDICT if unknown else False
            return Packing(verdict, tuple(assignment), tuple(seq), i, tuple(refusals), k)
    return Packing(True, tuple(assignment), tuple(seq), None, (), k)


# ---------------------------------------------------------------------------------------------
# Kernel.
# ---------------------------------------------------------------------------------------------


@njit(cache=True)
def _before(C, D, T, a, b, order):  # noqa: ANN001, ANN202 - numba
    """True if task a is placed before task b (strict key comparison, exact)."""
    if order == 1:  # density decreasing: C_a/min(D_a,T_a) > C_b/min(D_b,T_b)
        da = D[a] if D[a] < T[a] else T[a]
        db = D[b] if D[b] < T[b] else T[b]
        return C[a] * db > C[b] * da
    if order == 2:  # utilization decreasing
        return C[a] * T[b] > C[b] * T[a]
    if order == 3:  # deadline increasing
        return D[a] < D[b]
    return False


@njit(cache=True)
def _load_cmp(C, T, members, cnt, loads, a, b, sN, sDen, sSgn):  # noqa: ANN001, ANN202 - numba
    """Exact sign of U(P_a) − U(P_b): float first, exact rational sum near a tie; 2 on overflow."""
    diff = loads[a] - loads[b]
    n_terms = cnt[a] + cnt[b]
    margin = 4.0 * (n_terms + 2) * EPS * (loads[a] + loads[b] + 1.0)
    if diff > margin:
        return 1
    if diff < -margin:
        return -1
    k = 0
    for j in range(cnt[a]):
        sN[k] = C[members[a, j]]
        sDen[k] = T[members[a, j]]
        sSgn[k] = 1
        k += 1
    for j in range(cnt[b]):
        sN[k] = C[members[b, j]]
        sDen[k] = T[members[b, j]]
        sSgn[k] = -1
        k += 1
    return frac_sum_sign(sN, sDen, sSgn, k, np.int64(0))


@njit(cache=True)
def _dbfstar_ok(sC, sD, sT, k):  # noqa: ANN001, ANN202 - numba
    """Σ_j dbf*(τ_j, D_l) ≤ D_l for every l < k (U ≤ 1 already known): 1, 0 or 2 (undecided).

    dbf*(τ_j, t) = C_j + C_j(t − D_j)/T_j for t ≥ D_j; each term is split into an integer part
    and a remainder r/T_j, and the sum of remainders is compared exactly with the slack.
    """
    for point in range(k):
        t = sD[point]
        S = np.int64(0)
        frac = 0.0
        nonzero = False
        for j in range(k):
            if sD[j] <= t:
                q, r = _floordiv(t - sD[j], sT[j])
                qq, rr = _floordiv(sC[j] * r, sT[j])
                S += sC[j] + sC[j] * q + qq
                if rr != 0:
                    nonzero = True
                    frac += rr / sT[j]
        s = frac_vs_int(frac, nonzero, k, t - S)  # sign(F − (t − S)); need F ≤ t − S
        if s == 2:
            return 2
        if s > 0:
            return 0
    return 1


@njit(cache=True)
def _admit(sC, sD, sT, sDen, k, admission, budget):  # noqa: ANN001, ANN202 - numba
    """Admission of the k tasks in the scratch arrays: ACCEPT, REJECT, UNKNOWN or UNDECIDED."""
    if admission == 0:  # density
        s = utilization_vs_one(sC[:k], sDen[:k], k)
        if s == 2:
            return UNDECIDED
        return ACCEPT if s <= 0 else REJECT
    s = utilization_vs_one(sC[:k], sT[:k], k)
    if s == 2:
        return UNDECIDED
    if s > 0:
        return REJECT
    ok = _dbfstar_ok(sC, sD, sT, k)  # dbf* (also the cheap sufficient pre-check of QPA)
    if ok == 2:
        return UNDECIDED
    if ok == 1:
        return ACCEPT
    if admission == 1:
        return REJECT
    for j in range(k):  # a miss at some D_j (h(D_j) > D_j) refuses at once, as QPA would
        if _h(sC, sD, sT, k, sD[j]) > sD[j]:
            return REJECT
    return qpa_one(sC[:k], sD[:k], sT[:k], budget)  # exact; rejects U > 1, accepts density ≤ 1


@njit(cache=True)
def _pack_one(C, D, T, m, fit, order, admission, budget, assign):  # noqa: ANN001, ANN202 - numba
    """Pack one set; writes each task's processor (−1 if unplaced) into ``assign``; returns a code."""
    n = C.shape[0]
    k_bins = m if m < n else n
    seq = np.arange(n)
    if order != 0:  # stable insertion sort by the order's key
        for i in range(1, n):
            x = seq[i]
            j = i - 1
            while j >= 0 and _before(C, D, T, x, seq[j], order):
                seq[j + 1] = seq[j]
                j -= 1
            seq[j + 1] = x
    members = np.empty((k_bins, n), dtype=np.int64)
    cnt = np.zeros(k_bins, dtype=np.int64)
    loads = np.zeros(k_bins)
    dens = np.zeros(k_bins)
    pref = np.empty(k_bins, dtype=np.int64)
    sC = np.empty(2 * n, dtype=np.int64)
    sD = np.empty(2 * n, dtype=np.int64)
    sT = np.empty(2 * n, dtype=np.int64)
    sDen = np.empty(2 * n, dtype=np.int64)
    for i in range(n):
        assign[i] = -1
    current = 0
    unknown = False
    for pos in range(n):
        i = seq[pos]
        # Processors in the order the fit rule tries them.
        n_pref = 0
        if fit == 0:
            for b in range(k_bins):
                pref[n_pref] = b
                n_pref += 1
        elif fit == 3:
            for b in range(current, k_bins):
                pref[n_pref] = b
                n_pref += 1
        else:
            for b in range(k_bins):  # insertion sort: bf by load decreasing, wf increasing
                j = n_pref - 1
                while j >= 0:
                    c = _load_cmp(C, T, members, cnt, loads, b, pref[j], sC, sT, sDen)
                    if c == 2:
                        return UNDECIDED
                    if (fit == 1 and c > 0) or (fit == 2 and c < 0):
                        pref[j + 1] = pref[j]
                        j -= 1
                    else:
                        break
                pref[j + 1] = b
                n_pref += 1
        placed = False
        u_i = C[i] / T[i]
        den_i = D[i] if D[i] < T[i] else T[i]
        lam_i = C[i] / den_i
        for q in range(n_pref):
            b = pref[q]
            k = cnt[b]
            # Fast float decisions outside a proven margin (the bin sums are fresh sums of at most
            # n correctly rounded terms): U > 1 refuses under every admission test; density ≤ 1
            # accepts under every one (density ⇒ dbf* ⇒ QPA, see papers/partitioned-heuristics.md).
            margin = 4.0 * (n + 2) * EPS * (loads[b] + dens[b] + 2.0)
            if dens[b] + lam_i < 1.0 - margin:
                code = ACCEPT
            elif admission != 0 and loads[b] + u_i > 1.0 + margin:
                code = REJECT
            elif admission == 0 and dens[b] + lam_i > 1.0 + margin:
                code = REJECT
            else:
                code = np.int8(-3)
            if code == -3:
                code = _gather_admit(C, D, T, members, b, k, i, sC, sD, sT, sDen, admission, budget)
            if code == UNDECIDED:
                return UNDECIDED
            if code == ACCEPT:
                members[b, k] = i
                cnt[b] = k + 1
                load = 0.0
                lam = 0.0
                for j in range(k + 1):
                    t = members[b, j]
                    load += C[t] / T[t]
                    lam += C[t] / (D[t] if D[t] < T[t] else T[t])
                loads[b] = load
                dens[b] = lam
                assign[i] = b
                current = b
                placed = True
                break
            if code == UNKNOWN:
                unknown = True
        if not placed:
            return UNKNOWN if unknown else REJECT
    return ACCEPT


@njit(cache=True)
def _gather_admit(C, D, T, members, b, k, i, sC, sD, sT, sDen, admission, budget):  # noqa: ANN001, ANN202 - numba
    """Copy processor b's k tasks plus task i into the scratch arrays and run the admission test."""
    for j in range(k):
        t = members[b, j]
        sC[j] = C[t]
        sD[j] = D[t]
        sT[j] = T[t]
        sDen[j] = D[t] if D[t] < T[t] else T[t]
    sC[k] = C[i]
    sD[k] = D[i]
    sT[k] = T[i]
    sDen[k] = D[i] if D[i] < T[i] else T[i]
    return _admit(sC, sD, sT, sDen, k + 1, admission, budget)


@njit(parallel=True, cache=True)
def _pack_kernel(C, D, T, offsets, m, fit, order, admission, budget, out, assign):  # noqa: ANN001, ANN202 - numba
    for s in prange(out.shape[0]):
        lo, hi = offsets[s], offsets[s + 1]
        out[s] = _pack_one(C[lo:hi], D[lo:hi], T[lo:hi], m, fit, order, admission, budget, assign[lo:hi])


def _run(batch: TaskSetBatch, m: int, fit: str, order: str, admission: str, budget: int) -> tuple[NDArray[np.int8], NDArray[np.int64]]:
    m = check_processors(m)
    out = np.empty(batch.n_sets, dtype=np.int8)
    assign = np.empty(batch.C.shape[0], dtype=np.int64)
    if batch.n_sets:
        _pack_kernel(
            batch.C, batch.D, batch.T, batch.offsets, np.int64(m),
            np.int64(FITS.index(fit)), np.int64(ORDERS.index(order)), np.int64(ADMISSIONS.index(admission)),
            np.int64(budget), out, assign,
        )  # fmt: skip
    for s in np.flatnonzero(out == UNDECIDED):  # int64 overflow or float margin: exact reference
        lo, hi = int(batch.offsets[s]), int(batch.offsets[s + 1])
        res = pack(batch[int(s)].rows(), m, fit, order, admission, budget)
        out[s] = -1 if res.verdict == UNKNOWN_VERDICT else int(bool(res.verdict))
        assign[lo:hi] = [-1 if a is None else a for a in res.assignment]
    return out, assign


def assignments(batch: TaskSetBatch, m: int, name: str, budget: int = DEFAULT_BUDGET) -> tuple[NDArray[np.int8], NDArray[np.int64]]:
    """Verdict codes and the processor of every task (flat, −1 if unplaced) from the kernel.

    On a rejected set the assignment is the partial one at the moment of failure.
    """
    fit, order, admission = _parse(name)
    return _run(batch, m, fit, order, admission, budget)


def _parse(name: str) -> tuple[str, str, str]:
    name = {"p-edf": "p:ff:density:qpa", "baruah-fisher": "p:ff:deadline:dbfstar"}.get(name, name)
    match = re.fullmatch(PATTERN, name)
    if match is None:
        raise ValueError(f"not a partitioned-EDF family name: {name!r}")
    return match.group(1), match.group(2), match.group(3)


# ---------------------------------------------------------------------------------------------
# Explanation and registry entries.
# ---------------------------------------------------------------------------------------------


def _processor_witness(rows: Rows, admission: str, budget: int) -> str:
    """The evidence that one processor's final task set passes its admission test."""
    if not rows:
        return "empty"
    U = _utilization(rows)
    lam = _density(rows)
    if admission == "density":
        return f"U = {show(U)}, density = {show(lam)} ≤ 1"
    if admission == "dbfstar":
        slack = min(
            (t - sum((Fraction(c, p) * (t - d) + c for c, d, p in rows if d <= t), Fraction(0)), t)
            for t in {d for _, d, _ in rows}
        )
        value = slack[1] - slack[0]
        return f"U = {show(U)} ≤ 1, Σdbf* ≤ t at every deadline (tightest: dbf*(t={slack[1]}) = {show(value)} ≤ {slack[1]})"
    if lam <= 1:
        return f"U = {show(U)}, density = {show(lam)} ≤ 1 (QPA not needed)"
    if dbf_star_check(rows)[0]:
        return f"U = {show(U)}, Σdbf*(t) ≤ t at every deadline (QPA not needed)"
    tr = qpa_trace(rows, budget)
    return f"U = {show(U)}, QPA: h(t) ≤ t below L = {show(tr.L)} ({tr.steps} steps)"


def explain_family(name: str, fit: str, order: str, admission: str, ts: TaskSet, m: int, budget: int = DEFAULT_BUDGET) -> Result:
    """The packing with evidence: each task's processor, each processor's load and witness."""
    m = check_processors(m)
    rows = ts.rows()
    res = pack(rows, m, fit, order, admission, budget)
    bins: list[list[int]] = [[] for _ in range(res.processors)]
    for i, b in enumerate(res.assignment):
        if b is not None:
            bins[b].append(i)
    used = sum(1 for b in bins if b)
    evidence: dict[str, object] = {
        "assignment": tuple(res.assignment),
        "order": res.order,
        "processors": tuple(
            {
                "processor": f"P{b}",
                "tasks": tuple(bins[b]),
                "utilization": _utilization([rows[i] for i in bins[b]]),
                "witness": _processor_witness([rows[i] for i in bins[b]], admission, budget),
            }
            for b in range(res.processors)
            if bins[b]
        ),
        "budget": budget,
    }
    for b in range(res.processors):  # one printable line per used processor
        if bins[b]:
            tasks = ", ".join(f"τ{i}" for i in bins[b])
            evidence[f"P{b}"] = f"{tasks}: {_processor_witness([rows[i] for i in bins[b]], admission, budget)}"
    if res.failed_task is None:
        summary = f"all {ts.n} tasks placed on {used} of {m} processors ({fit}, {order} order, {admission} admission)"
    else:
        why = "; ".join(f"P{b}: {text}" for b, text in res.refusals)
        rest = f"; P{res.processors}..P{m - 1} are empty like P{res.processors - 1}" if m > res.processors else ""
        summary = f"{ts.label(res.failed_task)} could not be placed: {why}{rest}"
        evidence["failed_task"] = res.failed_task
        evidence["refusals"] = tuple(f"P{b}: {text}" for b, text in res.refusals)
        if res.verdict == UNKNOWN_VERDICT:
            summary = "unknown (a QPA work budget ran out): " + summary
    per_task = [
        {
            "task": i,
            "processor": "-" if res.assignment[i] is None else f"P{res.assignment[i]}",
            "utilization": Fraction(c, p),
            "density": Fraction(c, min(d, p)),
        }
        for i, (c, d, p) in enumerate(rows)
    ]
    return Result(analysis=name, verdict=res.verdict, m=m, kind="sufficient", summary=summary, evidence=evidence, per_task=per_task)


def build(name: str, fit: str, order: str, admission: str, featured: bool, title: str | None = None) -> Analysis:
    """The registry entry of one family member under ``name``."""

    def reference(ts: TaskSet, m: int, budget: int = DEFAULT_BUDGET) -> Verdict:
        return pack(ts.rows(), check_processors(m), fit, order, admission, budget).verdict

    def status(batch: TaskSetBatch, m: int, budget: int = DEFAULT_BUDGET) -> NDArray[np.int8]:
        return _run(batch, m, fit, order, admission, budget)[0]

    def batch_fn(batch: TaskSetBatch, m: int) -> NDArray[np.bool_]:
        return status(batch, m) == ACCEPT

    def explain(ts: TaskSet, m: int, budget: int = DEFAULT_BUDGET) -> Result:
        return explain_family(name, fit, order, admission, ts, m, budget)

    if admission == "dbfstar":
        citation = CITATION_BF + "; " + CITATION_PACKING
    elif admission == "qpa":
        citation = CITATION_QPA + " (admission); " + CITATION_PACKING
    else:
        citation = CITATION_PACKING
    return Analysis(
        name=name,
        title=title or f"partitioned EDF: {fit}, {order} order, {admission} admission",
        citation=citation,
        kind="sufficient",
        policy="partitioned-edf",
        platform="identical",
        batch=batch_fn,
        explain=explain,
        reference=reference,
        note="papers/partitioned-heuristics.md",
        deadlines=("implicit", "constrained", "arbitrary"),
        status=status,
        featured=featured,
    )


def _build_member(match: re.Match[str]) -> Analysis:
    return build(match.group(0), match.group(1), match.group(2), match.group(3), featured=False)


ANALYSES = (
    build("p-edf", "ff", "density", "qpa", True, "partitioned EDF: first fit, decreasing density, QPA"),
    build("baruah-fisher", "ff", "deadline", "dbfstar", True, "partitioned EDF: Baruah-Fisher DM first fit with dbf*"),
    build("p:wf:density:qpa", "wf", "density", "qpa", True),
)

FAMILIES = (
    Family(
        pattern=PATTERN,
        build=_build_member,
        description="p:<fit>:<order>:<admission> with fit ff|bf|wf|nf, order input|density|utilization|deadline, "
        "admission density|dbfstar|qpa (partitioned EDF)",
    ),
)
