"""Partitioned EDF-VD: criticality-aware first fit with EDF-VD's test as each core's admission.

After S. Baruah, V. Bonifaci, G. D'Angelo, H. Li, A. Marchetti-Spaccamela, N. Megow, L. Stougie,
"Mixed-criticality scheduling of sporadic task systems" (ESA 2011; the partitioned part of their
multiprocessor results) and S. Baruah, B. Chattopadhyay, H. Li, I. Shin, "Mixed-criticality
scheduling on multiprocessors", Real-Time Systems 50(1), 2014 (partitioned EDF-VD: the HI tasks
are placed first, then the LO tasks, each processor running EDF-VD). Their text could not be read
here (papers/baruah2012-edf-vd.md, "Partitioned"): the procedure below is rtsched's, in their spirit
and in Kelly, Aydin, Zhao's (TrustCom 2011) criticality-aware ordering.

rtsched's procedure, implicit deadlines, m identical processors:

* (P1) order: the HI tasks by decreasing C(HI)/T, then the LO tasks by decreasing C(LO)/T (ties:
  the lower index first);
* (P2) first fit: each task goes to the lowest-numbered core whose tasks plus this one pass EDF-VD's
  uniprocessor test (``mc-edf-vd``: (V1) or (V3), exact Fractions);
* accepted iff every task is placed. Each core then runs EDF-VD with its own factor x (1 where (V1)
  holds) and switches mode on its own (an overrun drops the LO tasks of its core only), which is
  what the per-core test covers; the simulator's ``partitioned`` scheduler with
  ``core_scheduler="edf-vd"`` runs exactly that.

Because EDF-VD accepts every core with max(U_LL + U_HL, U_HH) ≤ 3/4 (edf_vd2012), this admission
accepts at least what a 3/4-capacity first fit of the same order accepts.

Layers: :func:`reference` / :func:`partition` (Fractions), :func:`explain` (each task's core, each
core's U's, case and x) and :func:`codes` (the same first fit in Numba; the order by exact int64
cross products, each admission from float sums with edf_vd2012's margins; a set where an admission
falls inside a margin is UNDECIDED and re-decided by the registry with the reference).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
from numba import prange
from numpy.typing import NDArray

from rtsched.analyses.mixed_criticality.edf_vd2012 import EDFVDPlan, plan, sums_code
from rtsched.kernels import ACCEPT, REJECT, UNDECIDED, batch_kernel, kernel
from rtsched.mc.model import MCBatch, MCTaskSet
from rtsched.registry import Analysis
from rtsched.result import Explanation, Step, count
from rtsched.workloads import MC_TASKSETS

__all__ = ["ANALYSES", "CITATION", "Partition", "codes", "explain", "partition", "reference", "task_order"]

CITATION = (
    "after Baruah, Bonifaci, D'Angelo, Li, Marchetti-Spaccamela, Megow, Stougie, 'Mixed-criticality scheduling "
    "of sporadic task systems', ESA 2011, and Baruah, Chattopadhyay, Li, Shin, 'Mixed-criticality scheduling on "
    "multiprocessors', Real-Time Systems 50(1), 2014 (partitioned EDF-VD); rtsched's criticality-aware first fit "
    "with EDF-VD (Baruah et al., ECRTS 2012) as each core's admission"
)
NOTE = "papers/baruah2012-edf-vd.md"


def task_order(ts: MCTaskSet) -> list[int]:
    """(P1): HI tasks by decreasing C(HI)/T, then LO tasks by decreasing C(LO)/T; ties by index."""
    return sorted(range(ts.n), key=lambda i: (-ts[i].level, -Fraction(ts[i].C_hi, ts[i].T), i))


@dataclass(frozen=True)
class Partition:
    """The first fit's outcome.

    ``core[i]`` (None: not placed; the fit stops at the first such task), ``cores`` the task indices
    per core, ``plans`` EDF-VD's plan per core, ``failed`` the task not placed.
    """

    core: tuple[int | None, ...]
    cores: tuple[tuple[int, ...], ...]
    plans: tuple[EDFVDPlan | None, ...]
    failed: int | None


def partition(ts: MCTaskSet, m: int) -> Partition:
    """(P1)-(P2) on ``m`` cores with exact EDF-VD admission."""
    cores: list[list[int]] = [[] for _ in range(m)]
    plans: list[EDFVDPlan | None] = [None] * m
    core: list[int | None] = [None] * ts.n
    for i in task_order(ts):
        for k in range(m):
            candidate = sorted([*cores[k], i])
            p = plan(MCTaskSet(ts[j] for j in candidate))
            if p.schedulable:
                cores[k] = candidate
                plans[k] = p
                core[i] = k
                break
        else:
            return Partition(tuple(core), tuple(tuple(c) for c in cores), tuple(plans), i)
    return Partition(tuple(core), tuple(tuple(c) for c in cores), tuple(plans), None)


def reference(ts: MCTaskSet, m: int) -> bool:
    """Every task placed by criticality-aware first fit with EDF-VD admission (exact)."""
    return partition(ts, m).failed is None


def _steps(ts: MCTaskSet, m: int, pa: Partition) -> Iterator[Step | str]:
    yield "order: " + ", ".join(ts.label(i) for i in task_order(ts)) + " (HI by C(HI)/T, then LO by C(LO)/T)"
    for k in range(m):
        p = pa.plans[k]
        if p is None:
            continue
        tasks = ", ".join(ts.label(i) for i in pa.cores[k])
        values = {"ULL": p.U_LL, "UHL": p.U_HL, "UHH": p.U_HH}
        if p.case == "edf":
            yield Step(f"P{k}: {tasks}: U_LL + U_HH = {{s}} ≤ 1, plain EDF", {**values, "s": p.U_LL + p.U_HH})
        else:
            yield Step(f"P{k}: {tasks}: x = {{x}}, x·U_LL + U_HH = {{lhs}} ≤ 1", {"x": p.x, "lhs": p.hi_lhs})
    if pa.failed is not None:
        yield f"{ts.label(pa.failed)} fits on no core (EDF-VD's test fails on each of the {m}): not proven"
    else:
        yield "every task placed: schedulable by partitioned EDF-VD"


def explain(ts: MCTaskSet, m: int) -> Explanation:
    """The verdict, each task's core and virtual deadline, each core's U's, case and x."""
    pa = partition(ts, m)
    per_task: list[dict[str, Any]] = []
    for i, t in enumerate(ts):
        k = pa.core[i]
        p = pa.plans[k] if k is not None else None
        x = p.x if p is not None else None
        per_task.append(
            {
                "task": ts.label(i),
                "level": t.criticality,
                "C_LO": t.C_lo,
                "C_HI": t.C_hi if t.is_hi else None,
                "T": t.T,
                "core": f"P{k}" if k is not None else "-",
                "virtual_D": (x * t.T if t.is_hi else Fraction(t.T)) if x is not None else None,
            }
        )
    used = sum(1 for c in pa.cores if c)
    if pa.failed is None:
        summary = f"every task placed on {count(used, 'core')}; x per core: " + ", ".join(
            f"P{k}: {p.x}" for k, p in enumerate(pa.plans) if p is not None
        )
    else:
        summary = f"not proven: {ts.label(pa.failed)} fits on no core"
    evidence: dict[str, Any] = {
        "assignment": pa.core,
        "x": tuple(p.x if p is not None else None for p in pa.plans),
        "cores": pa.cores,
        "failed": pa.failed,
    }
    return Explanation(
        verdict=pa.failed is None,
        summary=summary,
        evidence=evidence,
        per_task=per_task,
        steps=lambda: list(_steps(ts, m, pa)),
    )


@kernel
def _p_edf_vd_one(C_lo, C_hi, T, level, m):
    """One set: ACCEPT (every task placed), REJECT, or UNDECIDED (an admission inside its float margin)."""
    n = T.shape[0]
    order = np.empty(n, dtype=np.int64)
    for i in range(n):  # insertion sort by (P1), exact: C·T' vs C'·T in int64 (C, T < 2**31)
        j = i
        while j > 0:
            a = order[j - 1]
            if level[a] > level[i] or (level[a] == level[i] and C_hi[a] * T[i] >= C_hi[i] * T[a]):
                break
            order[j] = a
            j -= 1
        order[j] = i
    ull = np.zeros(m)
    uhl = np.zeros(m)
    uhh = np.zeros(m)
    for q in range(n):
        i = order[q]
        placed = False
        for k in range(m):
            u_lo = C_lo[i] / T[i]
            u_hi = C_hi[i] / T[i]
            if level[i] == 0:
                code = sums_code(ull[k] + u_lo, uhl[k], uhh[k], n)
            else:
                code = sums_code(ull[k], uhl[k] + u_lo, uhh[k] + u_hi, n)
            if code == UNDECIDED:
                return UNDECIDED
            if code == ACCEPT:
                if level[i] == 0:
                    ull[k] += u_lo
                else:
                    uhl[k] += u_lo
                    uhh[k] += u_hi
                placed = True
                break
        if not placed:
            return REJECT
    return ACCEPT


@batch_kernel
def _p_edf_vd_sets(C_lo, C_hi, T, level, task_offsets, m, out):
    """``out[s]`` = ``_p_edf_vd_one`` of set ``s``, in ``prange`` over the sets."""
    for s in prange(out.shape[0]):
        lo, hi = task_offsets[s], task_offsets[s + 1]
        out[s] = _p_edf_vd_one(C_lo[lo:hi], C_hi[lo:hi], T[lo:hi], level[lo:hi], m)


def codes(batch: MCBatch, m: int) -> NDArray[np.int8]:
    """Codes for every set of ``batch`` (UNDECIDED ones are re-decided by the registry with :func:`reference`)."""
    out = np.empty(batch.n_sets, dtype=np.int8)
    _p_edf_vd_sets(batch.C_lo, batch.C_hi, batch.T, batch.level, batch.task_offsets, m, out)
    return out


ANALYSES = (
    Analysis(
        name="mc-p-edf-vd",
        title="Partitioned EDF-VD: criticality-aware first fit with EDF-VD's test per core (implicit deadlines)",
        citation=CITATION,
        kind="sufficient",
        policy="mc-partitioned-edf-vd",
        platform="identical",
        deadlines=("implicit",),
        workload=MC_TASKSETS,
        note=NOTE,
        reference=reference,
        explain=explain,
        codes=codes,
        featured=False,
        order=30,
    ),
)
