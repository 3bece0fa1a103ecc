"""Capacity augmentation bound of global EDF for DAG tasks (Li et al. 2013); see papers/li2013-gedf-dag.md.

J. Li, K. Agrawal, C. Lu, C. Gill, "Analysis of global EDF for parallel tasks", ECRTS 2013 (journal
version: J. Li, Z. Luo, D. Ferry, K. Agrawal, C. Gill, C. Lu, "Global EDF scheduling for parallel
real-time tasks", Real-Time Systems 51(4), 2015), prove that global EDF has a capacity augmentation
bound of b = 4 − 2/m for implicit-deadline sporadic DAG tasks on m identical processors. Read as a
test on unit-speed processors: a task set is schedulable by (node-level, work-conserving) G-EDF if

    (1)  Σ_i vol_i / T_i ≤ m / b                       (total utilization)
    (2)  len_i ≤ D_i / b          for every task i      (critical-path length)

With b = (4m − 2)/m both are exact integer comparisons: (1) ⇔ (4m − 2)·Σ vol_i/T_i ≤ m² and
(2) ⇔ len_i·(4m − 2) ≤ D_i·m. A set exactly on either bound is accepted (the theorem says "at
most"). The theorem is stated for implicit deadlines (D_i = T_i) only.

Layers: :func:`reference` (Python ints and Fractions, the conditions tagged (1) and (2)),
:func:`explain`, and the kernels: ``_cab_one`` (one set's per-task volume, length, D and T; (2)
in exact int64, (1) in float64 with a proven error margin, UNDECIDED inside it) and
``_cab_sets`` (``prange`` over the sets of a :class:`~rtsched.dag.DAGBatch`). The registry calls
them through ``codes=`` (:func:`codes`) rather than ``kernel=``: the test needs only each task's
volume and length, which a DAGBatch already holds exactly (``batch.volume``, ``batch.length``,
taken from the model's DAGTask.volume and .length), whereas the ``kernel=`` arguments
(``C, T, D, vertex_offsets, edge_offsets, src, dst, task_offsets``) would make the kernel compute
the critical path a second time (a Kahn pass per task; vertex indices need not be in topological
order), a second implementation of the model's ``length`` to keep in step with it.
"""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction

import numpy as np
from numba import prange
from numpy.typing import NDArray

from rtsched.dag.model import DAGBatch, DAGTaskSet
from rtsched.kernels import EPS, REJECT, batch_kernel, kernel, margin_verdict
from rtsched.model import fraction_sum
from rtsched.registry import closed_form_global_edf
from rtsched.result import Explanation, Step, show_number
from rtsched.workloads import DAG_TASKSETS

__all__ = ["ANALYSES", "bound", "codes", "explain", "reference", "steps"]

CITATION = (
    "J. Li, K. Agrawal, C. Lu, C. Gill, 'Analysis of global EDF for parallel tasks', ECRTS 2013: "
    "capacity augmentation bound 4 - 2/m of global EDF for implicit-deadline DAG tasks "
    "(sum vol_i/T_i <= m/b and len_i <= D_i/b)"
)


def bound(m: int) -> Fraction:
    """The capacity augmentation bound b = 4 − 2/m = (4m − 2)/m, exactly."""
    return Fraction(4 * m - 2, m)


def reference(ts: DAGTaskSet, m: int) -> bool:
    """Exact: (1) Σ vol_i/T_i ≤ m/b and (2) len_i ≤ D_i/b for every task, with b = 4 − 2/m."""
    b = bound(m)
    total = fraction_sum(Fraction(vol, t) for vol, _length, _d, t in ts.rows())
    utilization_ok = total <= m / b  # (1)
    length_ok = all(length * b <= d for _vol, length, d, _t in ts.rows())  # (2)
    return utilization_ok and length_ok


def _rows(ts: DAGTaskSet, m: int) -> list[dict[str, object]]:
    b = bound(m)
    return [
        {
            "task": i,
            "vol": vol,
            "len": length,
            "D": d,
            "T": t,
            "u": Fraction(vol, t),
            "len*b": length * b,
            "len*b <= D": length * b <= d,
        }
        for i, (vol, length, d, t) in enumerate(ts.rows())
    ]


def explain(ts: DAGTaskSet, m: int) -> Explanation:
    """Both conditions with both sides, each task's row, and the first failing term."""
    b = bound(m)
    rows = _rows(ts, m)
    total = fraction_sum(Fraction(vol, t) for vol, _length, _d, t in ts.rows())
    capacity = m / b
    utilization_ok = total <= capacity
    failing = [i for i, row in enumerate(rows) if not row["len*b <= D"]]
    holds = utilization_ok and not failing
    # the failing term: (1) when the total is over m/b, else the first task failing (2); when
    # everything holds, the tightest ratio len_i·b/D_i (how close (2) came)
    tight = max(range(len(rows)), key=lambda i: Fraction(ts[i].length, ts[i].D))
    if not utilization_ok:
        failing_term = "(1) total utilization"
    elif failing:
        failing_term = f"(2) critical path of {ts.label(failing[0])}"
    else:
        failing_term = None
    rel1 = "≤" if utilization_ok else ">"
    if failing:
        cond2 = f"(2) fails for {len(failing)} of {len(rows)} tasks (first {ts.label(failing[0])})"
    else:
        cond2 = f"(2) len_i·b ≤ D_i for all {len(rows)} tasks"
    summary = (
        f"b = 4 − 2/m = {show_number(b)}: (1) ΣU = {show_number(total)} {rel1} m/b = {show_number(capacity)}; {cond2}"
    )
    return Explanation(
        verdict=holds,
        summary=summary,
        evidence={
            "b": b,
            "total_utilization": total,
            "capacity": capacity,
            "utilization_slack": capacity - total,
            "utilization_holds": utilization_ok,
            "length_holds": not failing,
            "length_failing_tasks": tuple(failing),
            "tightest_length_task": tight,
            "tightest_length_ratio": Fraction(ts[tight].length, ts[tight].D) * b,
            "failing_term": failing_term,
        },
        per_task=rows,
        steps=lambda: steps(ts, m),
    )


def steps(ts: DAGTaskSet, m: int) -> Iterator[Step]:
    """The derivation: b, each task's utilization and its (2), the sum against m/b, the verdict."""
    b = bound(m)
    yield Step(f"b = 4 − 2/m = (4·{m} − 2)/{m} = " + "{b}", {"b": b})
    total = Fraction(0)
    length_ok = True
    for i, (vol, length, d, t) in enumerate(ts.rows()):
        u = Fraction(vol, t)
        total += u
        ok = length * b <= d
        length_ok = length_ok and ok
        yield Step(
            f"{ts.label(i)}: u = vol/T = {vol}/{t} = "
            + "{u}; (2) len·b = "
            + f"{length}·"
            + "{b} = {lb} "
            + ("≤" if ok else ">")
            + f" D = {d}"
            + ("" if ok else ": fails"),
            {"u": u, "b": b, "lb": length * b},
        )
    capacity = m / b
    ok1 = total <= capacity
    yield Step(
        "(1) Σ u_i = {total} "
        + ("≤" if ok1 else ">")
        + f" m/b = {m}/("
        + "{b}) = {capacity}"
        + ("" if ok1 else ": fails"),
        {"total": total, "b": b, "capacity": capacity},
    )
    if ok1 and length_ok:
        yield Step("(1) and (2) hold: schedulable by global EDF (capacity augmentation bound 4 − 2/m)")
    else:
        failed = " and ".join(c for c, ok in (("(1)", ok1), ("(2)", length_ok)) if not ok)
        yield Step(f"{failed} fails: not proven")


@kernel
def _cab_one(vol, length, D, T, m):
    """One set: ACCEPT, REJECT or UNDECIDED (inside the float margin of (1))."""
    n = vol.shape[0]
    q = 4 * m - 2  # b = q/m
    # (2) exactly in int64: len ≤ MAX_TIME < 2**31 and q < 4·10**6 < 2**22 (m ≤ 10**6), so both
    # products are below 2**53.
    for i in range(n):
        if length[i] * q > D[i] * m:
            return REJECT
    # (1) as q·Σ vol_i/T_i ≤ m². Each vol_i/T_i is correctly rounded (relative error ≤ EPS), the
    # running sum of n non-negative terms adds at most (n − 1)·EPS relative error (to first
    # order), the product by q (exact as a float) one more, and m² is exact (≤ 10**12 < 2**53);
    # the subtraction errs by at most EPS·|diff|. A margin of 4·(n + 2)·EPS·(lhs + m²) is
    # therefore larger than the total rounding error of diff.
    total = 0.0
    for i in range(n):
        total += vol[i] / T[i]
    lhs = total * q
    rhs = float(m) * float(m)
    return margin_verdict(lhs - rhs, 4.0 * (n + 2) * EPS * (lhs + rhs))


@batch_kernel
def _cab_sets(vol, length, D, T, task_offsets, m, out):
    """``out[s]`` = ``_cab_one`` of set ``s`` of a DAG batch, in ``prange`` over the sets."""
    for s in prange(out.shape[0]):
        lo, hi = task_offsets[s], task_offsets[s + 1]
        out[s] = _cab_one(vol[lo:hi], length[lo:hi], D[lo:hi], T[lo:hi], m)


def codes(batch: DAGBatch, m: int) -> NDArray[np.int8]:
    """Codes for every set of ``batch`` (UNDECIDED ones are re-decided by the registry with :func:`reference`)."""
    out = np.empty(batch.n_sets, dtype=np.int8)
    _cab_sets(batch.volume, batch.length, batch.D, batch.T, batch.task_offsets, m, out)
    return out


ANALYSES = (
    closed_form_global_edf(
        name="dag-gedf-cab",
        title="Li et al. 2013: global EDF capacity augmentation bound 4 − 2/m (DAG tasks)",
        order=10,
        featured=False,
        deadlines=("implicit",),
        workload=DAG_TASKSETS,
        citation=CITATION,
        note="papers/li2013-gedf-dag.md",
        reference=reference,
        explain=explain,
        codes=codes,
        compile_seconds=2.0,
    ),
)
