"""Load-based G-EDF and G-DM tests for sporadic DAG tasks (Bonifaci et al. 2013); see papers/bonifaci2013-dag.md.

V. Bonifaci, A. Marchetti-Spaccamela, S. Stiller, A. Wiese, "Feasibility analysis in the
sporadic DAG task model", ECRTS 2013, pp. 225-233 (preprint: arXiv 1212.2778, "Feasibility tests
for recurrent real-time tasks in the sporadic DAG model"). The abstract (checked) states that for
DAG tasks global EDF has a tight speedup bound of 2 − 1/m and DM a speedup bound of at most
3 − 1/m, and that the paper gives polynomial and pseudo-polynomial tests. **The theorem text
itself could not be read** (see the note): what is implemented here is rtsched's reading of the
speedup theorems as unit-speed tests, not a transcription of a numbered theorem.

Notation (m identical unit-speed processors): vol_i and len_i the volume and critical-path
length of task τ_i's DAG, D_i, T_i its deadline and period (any D_i for G-EDF),

    dbf(τ_i, t) = max(0, ⌊(t − D_i)/T_i⌋ + 1)·vol_i,     load(τ) = max_{t > 0} Σ_i dbf(τ_i, t)/t.

len_i ≤ D_i and load(τ) ≤ m are necessary for feasibility. A speedup bound b proven from these
two conditions alone (as the speedup arguments of this line of work do) reads, after dividing
every WCET by b, as a sufficient test on unit-speed processors:

    (L)  b·len_i ≤ D_i            for every task i            (critical paths)
    (Λ)  b·load(τ) ≤ m,  i.e.  b·Σ_i dbf(τ_i, t) ≤ m·t  for every t > 0   (load)

with b = 2 − 1/m = (2m − 1)/m for G-EDF (``dag-gedf-bonifaci2013``) and b = 3 − 1/m =
(3m − 1)/m for G-DM (``dag-gdm-bonifaci2013``, constrained deadlines; priorities by increasing
D_i, ties to the lower task index, i.e. a stable sort by D). With q = b·m both are exact integer
conditions: (L) q·len_i ≤ m·D_i; (Λ) q·Σ dbf(τ_i, t) ≤ m²·t for all t, which is the uniprocessor
processor-demand criterion of the scaled sequential set {(q·vol_i, m²·D_i, m²·T_i)} (at time
t' = m²·t the scaled demand is q·Σ dbf(τ_i, t)); it is decided exactly by rtsched's QPA
(:mod:`rtsched.analyses.theory.edf_demand`, Zhang & Burns 2009), pseudo-polynomially, within a
work budget of QPA steps: running out gives "unknown", never False.

Layers: :func:`reference` (Python ints and Fractions: (L), then ``qpa_reference`` on the scaled
rows), :func:`explain` (per-task rows, the load witness, the failing condition, the steps) and the
kernels ``_one`` (one set: (L) in int64, then ``qpa_one`` on the scaled rows; UNDECIDED when a
scaled value would leave the 31-bit time range, re-decided by the reference) and ``_sets``
(``prange`` over the sets of a :class:`~rtsched.dag.DAGBatch`), called through :func:`codes_gedf`
and :func:`codes_gdm`.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator
from fractions import Fraction
from typing import Any

import numpy as np
from numba import prange
from numpy.typing import NDArray

from rtsched.analyses.theory.edf_demand import DEFAULT_BUDGET, demand, qpa_one, qpa_trace
from rtsched.dag.model import DAGBatch, DAGTaskSet
from rtsched.kernels import REJECT, UNDECIDED, batch_kernel, kernel
from rtsched.model import fraction_sum
from rtsched.registry import Analysis
from rtsched.result import Explanation, Step, Verdict, show_number
from rtsched.workloads import DAG_TASKSETS

__all__ = [
    "ANALYSES",
    "BUDGET",
    "codes_gdm",
    "codes_gedf",
    "dbf",
    "explain_gdm",
    "explain_gedf",
    "first_violation",
    "reference",
    "reference_gdm",
    "reference_gedf",
    "scaled_rows",
    "speedup",
]

NOTE = "papers/bonifaci2013-dag.md"
CITATION = (
    "V. Bonifaci, A. Marchetti-Spaccamela, S. Stiller, A. Wiese, 'Feasibility analysis in the sporadic DAG "
    "task model', ECRTS 2013 (arXiv 1212.2778): speedup bounds 2 - 1/m (G-EDF) and 3 - 1/m (G-DM) read as "
    "unit-speed tests b*len_i <= D_i and b*load <= m (rtsched's reading; theorem text not checked)"
)
#: Default work budget: QPA steps on the scaled set (evaluations of its demand), QPA's own default.
BUDGET = DEFAULT_BUDGET
#: Scaled time values above this leave rtsched's 31-bit time range: the kernel defers to the reference.
_TIME_LIMIT = 2**31 - 1

#: The two variants: the speedup b = (k·m − 1)/m with k = 2 (G-EDF) or k = 3 (G-DM).
EDF, DM = 2, 3


def speedup(m: int, k: int) -> Fraction:
    """The speedup b = k − 1/m = (k·m − 1)/m, exactly (k = 2: G-EDF, k = 3: G-DM)."""
    return Fraction(k * m - 1, m)


def dbf(vol: int, D: int, T: int, t: int) -> int:
    """dbf(τ_i, t) = max(0, ⌊(t − D)/T⌋ + 1)·vol: the work of τ_i's jobs with release and deadline in a window of length t."""
    return max(0, (t - D) // T + 1) * vol


def scaled_rows(ts: DAGTaskSet, m: int, k: int) -> list[tuple[int, int, int]]:
    """(q·vol_i, m²·D_i, m²·T_i) with q = k·m − 1: (Λ) holds iff these pass the processor-demand criterion."""
    q, s = k * m - 1, m * m
    return [(q * vol, s * d, s * t) for vol, _length, d, t in ts.rows()]


def reference(ts: DAGTaskSet, m: int, k: int, budget: int = BUDGET) -> Verdict:
    """(L) q·len_i ≤ m·D_i for every task, then (Λ) q·Σ dbf(τ_i, t) ≤ m²·t for all t (q = k·m − 1)."""
    q = k * m - 1
    if any(q * length > m * d for _vol, length, d, _t in ts.rows()):  # (L)
        return False
    return qpa_trace(scaled_rows(ts, m, k), budget).verdict  # (Λ)


def reference_gedf(ts: DAGTaskSet, m: int, budget: int = BUDGET) -> Verdict:
    """G-EDF, b = 2 − 1/m: (L) (2m − 1)·len_i ≤ m·D_i and (Λ) (2m − 1)·load(τ) ≤ m² (any deadlines)."""
    return reference(ts, m, EDF, budget)


def reference_gdm(ts: DAGTaskSet, m: int, budget: int = BUDGET) -> Verdict:
    """G-DM, b = 3 − 1/m: (L) (3m − 1)·len_i ≤ m·D_i and (Λ) (3m − 1)·load(τ) ≤ m² (constrained deadlines)."""
    return reference(ts, m, DM, budget)


def _rows(ts: DAGTaskSet, m: int, k: int) -> list[dict[str, Any]]:
    q = k * m - 1
    return [
        {
            "task": ts.label(i),
            "vol": vol,
            "len": length,
            "D": d,
            "T": t,
            "u": Fraction(vol, t),
            "q*len": q * length,
            "m*D": m * d,
            "(L)": q * length <= m * d,
        }
        for i, (vol, length, d, t) in enumerate(ts.rows())
    ]


def first_violation(ts: DAGTaskSet, m: int, k: int, upto: int, budget: int = BUDGET) -> int | None:
    """The least step point t ≤ ``upto`` (t = D_i + j·T_i) with q·Σ dbf(τ_i, t) > m²·t, or None.

    For :func:`explain`: QPA walks down from its bound and reports *a* violation; this scan, in
    increasing order up to that point, reports the first one. At most ``budget`` points are
    visited (None past that: the caller keeps QPA's point).
    """
    q, s = k * m - 1, m * m
    heap = [(task.D, i) for i, task in enumerate(ts) if task.D <= upto]
    heapq.heapify(heap)
    visited = 0
    while heap:
        t = heap[0][0]
        while heap and heap[0][0] == t:
            _, i = heapq.heappop(heap)
            if t + ts[i].T <= upto:
                heapq.heappush(heap, (t + ts[i].T, i))
        visited += 1
        if visited > budget:
            return None
        if q * sum(dbf(x.volume, x.D, x.T, t) for x in ts) > s * t:
            return t
    return None


def explain(ts: DAGTaskSet, m: int, k: int, budget: int = BUDGET) -> Explanation:
    """The verdict, each task's (L), the load condition's witness (or last point checked), the failing term, the steps."""
    q, s = k * m - 1, m * m
    b = speedup(m, k)
    rows = _rows(ts, m, k)
    failing = [i for i, row in enumerate(rows) if not row["(L)"]]
    utilization = fraction_sum(Fraction(vol, t) for vol, _length, _d, t in ts.rows())
    evidence: dict[str, Any] = {
        "b": b,
        "q": q,
        "utilization": utilization,
        "load_capacity": Fraction(m) / b,
        "length_holds": not failing,
        "length_failing_tasks": tuple(failing),
        "load_holds": None,
        "load_reason": None,
        "witness_t": None,
        "witness_demand": None,
        "failing_term": None,
    }
    verdict: Verdict
    if failing:
        verdict = False
        i = failing[0]
        evidence["failing_term"] = f"(L) critical path of {ts.label(i)}"
        summary = (
            f"b = {k} − 1/m = {show_number(b)}: (L) fails for {ts.label(i)}: "
            f"b·len = {show_number(b * ts[i].length)} > D = {ts[i].D}"
        )
        trace = None
    else:
        trace = qpa_trace(scaled_rows(ts, m, k), budget)
        verdict = trace.verdict
        evidence["load_holds"] = verdict
        evidence["load_reason"] = trace.reason
        if verdict is False and trace.t is None:
            # QPA's first check: U > 1 for the scaled set, i.e. q·U > m²: load(τ) ≥ U > m/b
            evidence["failing_term"] = "(Λ) load: U > m/b"
            summary = (
                f"b = {k} − 1/m = {show_number(b)}: (L) holds; (Λ) fails: U = {show_number(utilization)} > "
                f"m/b = {show_number(Fraction(m) / b)} (and load ≥ U)"
            )
        elif verdict is False:
            assert trace.h is not None  # a violation names its point and demand
            t = Fraction(trace.t, s)
            work = Fraction(trace.h, q)
            if t.denominator == 1:  # QPA's violations are at scaled deadlines m²·(D_i + j·T_i)
                first = first_violation(ts, m, k, int(t), budget)
                if first is not None:
                    t = Fraction(first)
                    work = Fraction(sum(dbf(x.volume, x.D, x.T, first) for x in ts))
            evidence["witness_t"] = t
            evidence["witness_demand"] = work
            evidence["failing_term"] = "(Λ) load"
            summary = (
                f"b = {k} − 1/m = {show_number(b)}: (L) holds; (Λ) fails at t = {show_number(t)}: "
                f"Σ dbf = {show_number(work)} > (m/b)·t = {show_number(Fraction(m) / b * t)}"
            )
        elif verdict is True:
            summary = (
                f"b = {k} − 1/m = {show_number(b)}: (L) b·len_i ≤ D_i for all {len(rows)} tasks; "
                f"(Λ) b·load ≤ m (QPA on the scaled set: {trace.reason})"
            )
        else:
            evidence["failing_term"] = "(Λ) load: work budget exhausted"
            summary = (
                f"b = {k} − 1/m = {show_number(b)}: (L) holds; (Λ) undecided: the QPA work budget ran out (unknown)"
            )

    def steps() -> Iterator[Step | str]:
        yield Step(f"b = {k} − 1/m = ({k}·{m} − 1)/{m} = " + "{b}; q = b·m = " + f"{q}", {"b": b})
        for i, row in enumerate(rows):
            ok = row["(L)"]
            yield Step(
                f"{ts.label(i)}: vol = {row['vol']}, len = {row['len']}, D = {row['D']}, T = {row['T']}: "
                f"(L) q·len = {row['q*len']} "
                + ("≤" if ok else ">")
                + f" m·D = {row['m*D']}"
                + ("" if ok else ": fails"),
            )
        if failing:
            yield "(L) fails: not proven"
            return
        yield (
            "(Λ) q·Σ dbf(τ_i, t) ≤ m²·t for all t: the processor-demand criterion of the scaled set "
            + ", ".join(f"({c}, {d}, {p})" for c, d, p in scaled_rows(ts, m, k))
            + " (C = q·vol, D = m²·D, T = m²·T)"
        )
        assert trace is not None
        if verdict is True:
            yield f"QPA accepts the scaled set ({trace.reason}, {trace.steps} steps): (L) and (Λ) hold: schedulable"
        elif verdict is False and trace.t is None:
            yield Step(
                "U = Σ vol_i/T_i = {u} > m/b = {cap}, and load(τ) ≥ U: (Λ) fails: not proven",
                {"u": utilization, "cap": Fraction(m) / b},
            )
        elif verdict is False:
            yield Step(
                "QPA finds t' = {tp} with scaled demand {h} > t' (t'/m² = {tq}); the first violation is at "
                "t = {t}: Σ dbf = {w} > m·t/b = {cap}: (Λ) fails: not proven",
                {
                    "tp": trace.t,
                    "h": trace.h,
                    "tq": Fraction(trace.t, s),
                    "t": evidence["witness_t"],
                    "w": evidence["witness_demand"],
                    "cap": Fraction(m) / b * evidence["witness_t"],
                },
            )
        else:
            yield f"QPA ran out of its budget of {budget} steps: unknown"

    return Explanation(verdict=verdict, summary=summary, evidence=evidence, per_task=rows, steps=steps)


def explain_gedf(ts: DAGTaskSet, m: int, budget: int = BUDGET) -> Explanation:
    """:func:`explain` with b = 2 − 1/m (G-EDF)."""
    return explain(ts, m, EDF, budget)


def explain_gdm(ts: DAGTaskSet, m: int, budget: int = BUDGET) -> Explanation:
    """:func:`explain` with b = 3 − 1/m (G-DM, priorities by D, ties to the lower index)."""
    return explain(ts, m, DM, budget)


def load_at(ts: DAGTaskSet, t: int) -> Fraction:
    """Σ_i dbf(τ_i, t)/t at one point (for tests and the note's worked example)."""
    return Fraction(sum(dbf(vol, d, p, t) for vol, _length, d, p in ts.rows()), t)


def scaled_demand(ts: DAGTaskSet, m: int, k: int, t_scaled: int) -> int:
    """The scaled set's demand at t' (= q·Σ dbf(τ_i, t'/m²)); tests check it against :func:`dbf`."""
    return demand(scaled_rows(ts, m, k), t_scaled)


@kernel
def _one(vol, length, D, T, m, k, budget):
    """One set: REJECT on (L), else QPA's code on the scaled rows (UNDECIDED past the 31-bit range)."""
    n = vol.shape[0]
    q = k * m - 1
    s = m * m
    # (L) in int64: len, D < 2**31 and q, m ≤ 3·10**6, so the products stay below 2**53.
    for i in range(n):
        if q * length[i] > m * D[i]:
            return REJECT
    C2 = np.empty(n, dtype=np.int64)
    D2 = np.empty(n, dtype=np.int64)
    T2 = np.empty(n, dtype=np.int64)
    for i in range(n):
        C2[i] = q * vol[i]
        D2[i] = s * D[i]
        T2[i] = s * T[i]
        if C2[i] > _TIME_LIMIT or D2[i] > _TIME_LIMIT or T2[i] > _TIME_LIMIT:
            return UNDECIDED
    return qpa_one(C2, D2, T2, budget)


@batch_kernel
def _sets(vol, length, D, T, task_offsets, m, k, budget, out):
    """``out[s]`` = ``_one`` of set ``s`` of a DAG batch, in ``prange`` over the sets."""
    for s in prange(out.shape[0]):
        lo, hi = task_offsets[s], task_offsets[s + 1]
        out[s] = _one(vol[lo:hi], length[lo:hi], D[lo:hi], T[lo:hi], m, k, budget)


def _codes(batch: DAGBatch, m: int, k: int, budget: int) -> NDArray[np.int8]:
    out = np.empty(batch.n_sets, dtype=np.int8)
    _sets(
        batch.volume, batch.length, batch.D, batch.T, batch.task_offsets,
        np.int64(m), np.int64(k), np.int64(budget), out,
    )  # fmt: skip
    return out


def codes_gedf(batch: DAGBatch, m: int, budget: int = BUDGET) -> NDArray[np.int8]:
    """Codes of the G-EDF test for every set (UNDECIDED ones are re-decided by the registry with the reference)."""
    return _codes(batch, m, EDF, budget)


def codes_gdm(batch: DAGBatch, m: int, budget: int = BUDGET) -> NDArray[np.int8]:
    """Codes of the G-DM test for every set (UNDECIDED ones are re-decided by the registry with the reference)."""
    return _codes(batch, m, DM, budget)


ANALYSES = (
    Analysis(
        name="dag-gedf-bonifaci2013",
        title="Bonifaci et al. 2013: G-EDF load test of DAG tasks, speedup 2 − 1/m (b·len ≤ D, b·load ≤ m)",
        kind="sufficient", order=30, featured=False,
        policy="global-edf", policy_order=0, platform="identical",
        deadlines=("implicit", "constrained", "arbitrary"), workload=DAG_TASKSETS,
        citation=CITATION, note=NOTE,
        reference=reference_gedf, explain=explain_gedf, codes=codes_gedf,
        budget=BUDGET, budget_unit="QPA steps on the scaled set", compile_seconds=20.0,
    ),
    Analysis(
        name="dag-gdm-bonifaci2013",
        title="Bonifaci et al. 2013: G-DM load test of DAG tasks, speedup 3 − 1/m (deadline-monotonic, ties to the lower index)",
        kind="sufficient", order=31, featured=False,
        policy="global-dm", policy_order=5, platform="identical",
        deadlines=("implicit", "constrained"), workload=DAG_TASKSETS,
        citation=CITATION, note=NOTE,
        reference=reference_gdm, explain=explain_gdm, codes=codes_gdm,
        budget=BUDGET, budget_unit="QPA steps on the scaled set", shares_kernels_with="dag-gedf-bonifaci2013",
    ),
)  # fmt: skip
