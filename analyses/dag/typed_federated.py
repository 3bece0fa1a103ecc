"""Typed federated scheduling, **rtsched's variant** (not the algorithm of Lin et al., IEEE TC 2023).

Paper this stands in for (note: papers/lin2023-typed-federated.md): C.-C. Lin, J. Shi, N. Ueter,
M. Günzel, J. Reineke, J.-J. Chen, "Type-aware federated scheduling for typed DAG tasks on
heterogeneous multicore platforms", IEEE Transactions on Computers 72(5), 2023, pp. 1286-1300.
Its full text could not be read through the search tools (only its abstract: two core types;
Exclusive Allocation, Semi-Exclusive Allocation and Sequential-and-Share strategies; capacity
augmentation bound 7.25). Its conditions are therefore **not** implemented here; this module is a
clearly simpler, sound typed federated test of rtsched's own, registered as
``dag-typed-federated`` (not under Lin et al.'s name):

* (TF1) every task τ_i (vertex types S_i) gets n_{i,s} units of each type s ∈ S_i of its own: the
  fewest units in total, n_{i,s} ≤ m_s, such that Han et al.'s typed bound (H1) (TPDS 2019,
  analyses/dag/typed_han2019.py) on those units is ≤ D_i; among equally few, the
  lexicographically smallest vector in type-name order. A task with vol_i ≤ D_i ("light") gets
  one unit of each of its types ((H1) with every n_s = 1 is vol_i); a task for which even all m_s
  units give (H1) > D_i fails;
* (TF2) for every type s: Σ_i n_{i,s} ≤ m_s.

Schedulable (proven) iff (TF1) finds an allocation for every task and (TF2) holds. Each task
runs alone on its units under any scheduler that is work-conserving per type, with D_i ≤ T_i, so
(H1) ≤ D_i bounds each of its jobs. Light tasks are **not** shared (Lin et al.'s
Sequential-and-Share and Semi-Exclusive strategies would pack them; not implemented): this test
is sound but pessimistic for sets with many light tasks.

Layers: :func:`reference` (Python ints and Fractions: :func:`rtsched.analyses.dag._typed.allocation`),
:func:`explain` (per task: types, allocation, units, bound; the failing term; steps) and
:func:`codes` (the Numba search of analyses/dag/_typed.py over the batch's tasks in ``prange``,
then per-type sums vectorised; the reference where int64 could overflow).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from rtsched.analyses.dag._typed import allocation, allocations, han_bound, require_types, task_types
from rtsched.dag.model import DAGBatch, DAGTaskSet
from rtsched.kernels import ACCEPT, REJECT
from rtsched.platform import Typed
from rtsched.registry import Analysis
from rtsched.result import Explanation, Step
from rtsched.workloads import DAG_TASKSETS

__all__ = ["ANALYSES", "Plan", "codes", "explain", "plan", "reference"]

NAME = "dag-typed-federated"
CITATION = (
    "rtsched's typed federated variant (NOT Lin, Shi, Ueter, Günzel, Reineke, Chen, 'Type-aware federated scheduling "
    "for typed DAG tasks on heterogeneous multicore platforms', IEEE TC 72(5), 2023, whose text could not be "
    "checked): every task gets its own per-type units, the fewest with Han et al. (TPDS 2019) bound <= D"
)
NOTE = "papers/lin2023-typed-federated.md"


class Plan:
    """(TF1)-(TF2) for one set: ``alloc[i]`` ({type: units} or ``None``), ``used`` per type, ``fits``."""

    __slots__ = ("alloc", "failing", "fits", "units", "used")

    def __init__(self, ts: DAGTaskSet, platform: Typed) -> None:
        self.units = platform.as_dict()
        self.alloc = [allocation(task, self.units) for task in ts]
        self.used = {s: sum(a.get(s, 0) for a in self.alloc if a is not None) for s in platform.types}
        failed = [i for i, a in enumerate(self.alloc) if a is None]
        over = [s for s in platform.types if self.used[s] > self.units[s]]
        if failed:
            self.failing: str | None = f"(TF1) {ts.label(failed[0])}: (H1) > D even on every unit of its types"
        elif over:
            s = over[0]
            self.failing = f"(TF2) type {s}: Σ n_i,{s} = {self.used[s]} > m_{s} = {self.units[s]}"
        else:
            self.failing = None
        self.fits = self.failing is None


def plan(ts: DAGTaskSet, platform: Typed) -> Plan:
    """(TF1)-(TF2) for ``ts`` on ``platform`` (exact)."""
    require_types(ts, platform)
    return Plan(ts, platform)


def reference(ts: DAGTaskSet, platform: Typed) -> bool:
    """Every task has a (TF1) allocation and, per type, the allocations fit (TF2)."""
    return plan(ts, platform).fits


def _unit_ranges(p: Plan, ts: DAGTaskSet, platform: Typed) -> list[str]:
    """Units of each task, numbered as the simulator numbers them (per type in name order, tasks in order)."""
    first: dict[str, int] = {}
    at = 0
    for s in platform.types:
        first[s] = at
        at += p.units[s]
    cursor = dict(first)
    out = []
    for a in p.alloc:
        if a is None or not p.fits:
            out.append("-")
            continue
        parts = []
        for s in sorted(a):
            lo = cursor[s]
            cursor[s] += a[s]
            parts.append(f"{s}:U{lo}" if a[s] == 1 else f"{s}:U{lo}..U{lo + a[s] - 1}")
        out.append(", ".join(parts))
    return out


def explain(ts: DAGTaskSet, platform: Typed) -> Explanation:
    """The verdict, each task's allocation and bound, per-type sums, the failing term and the steps."""
    p = plan(ts, platform)
    where = _unit_ranges(p, ts, platform)
    rows: list[dict[str, Any]] = []
    for i, task in enumerate(ts):
        a = p.alloc[i]
        bound = han_bound(task, a).bound if a is not None else None
        rows.append(
            {
                "task": ts.label(i),
                "vol": task.volume,
                "len": task.length,
                "D": task.D,
                "T": task.T,
                "types": ",".join(task_types(task)),
                "class": "light" if task.volume <= task.D else "heavy",
                "allocation": ", ".join(f"{s}={n}" for s, n in sorted(a.items())) if a is not None else "none",
                "R bound": bound,
                "units": where[i],
            }
        )
    used = ", ".join(f"{s}: {p.used[s]}/{p.units[s]}" for s in platform.types)
    summary = f"every task on its own units ({used})" if p.fits else f"not proven: {p.failing}"
    evidence = {
        "allocation": tuple(None if a is None else dict(sorted(a.items())) for a in p.alloc),
        "used": dict(p.used),
        "units": dict(p.units),
        "failing": p.failing,
        "variant": "rtsched (not Lin et al. 2023)",
    }

    def steps() -> list[Step | str]:
        out: list[Step | str] = [
            f"typed federated scheduling (rtsched's variant) on {platform.spec}: each task gets the fewest units per "
            "type with Han et al.'s bound (H1) ≤ D, alone on them"
        ]
        for i, task in enumerate(ts):
            a = p.alloc[i]
            if a is None:
                out.append(f"{ts.label(i)}: even every unit of its types gives (H1) > D = {task.D}: fails (TF1)")
                continue
            h = han_bound(task, a)
            alloc = ", ".join(f"n_{s} = {n}" for s, n in sorted(a.items()))
            out.append(
                Step(f"{ts.label(i)}: vol = {task.volume}, D = {task.D}; {alloc}: (H1) = " + "{r} ≤ D", {"r": h.bound})
            )
        for s in platform.types:
            ok = p.used[s] <= p.units[s]
            out.append(f"(TF2) type {s}: Σ n = {p.used[s]} {'≤' if ok else '>'} m_{s} = {p.units[s]}")
        out.append("schedulable" if p.fits else f"{p.failing}: not proven")
        return out

    return Explanation(verdict=p.fits, summary=summary, evidence=evidence, per_task=rows, steps=steps)


def codes(batch: DAGBatch, platform: Typed) -> NDArray[np.int8]:
    """Codes per set: the Numba (TF1) search per task, (TF2) as per-type sums; the reference on int64 overflow."""
    require_types(batch, platform)
    n_sets = batch.n_sets
    totals, code_offsets, type_codes, vectors = allocations(batch, platform)
    offsets = batch.task_offsets
    starts = offsets[:-1]
    failed = np.add.reduceat((totals == -1).astype(np.int64), starts) > 0 if batch.n_tasks else np.zeros(0, bool)
    overflow = np.add.reduceat((totals == -2).astype(np.int64), starts) > 0 if batch.n_tasks else np.zeros(0, bool)
    # (TF2): per set and type code, Σ n over its tasks
    n_codes = len(batch.type_names)
    task_of_entry = np.repeat(np.arange(batch.n_tasks), np.diff(code_offsets))
    set_of_task = np.repeat(np.arange(n_sets), np.diff(offsets))
    sums = np.zeros((n_sets, n_codes), dtype=np.int64)
    ok_entry = totals[task_of_entry] > 0
    np.add.at(sums, (set_of_task[task_of_entry][ok_entry], type_codes[ok_entry]), vectors[ok_entry])
    m_of = np.array([platform.count(name) for name in batch.type_names], dtype=np.int64)
    fits = np.all(sums <= m_of[None, :], axis=1)
    out = np.where(~failed & fits, ACCEPT, REJECT).astype(np.int8)
    for s in np.flatnonzero(overflow & ~failed).tolist():
        out[s] = ACCEPT if reference(batch[s], platform) else REJECT
    return out


ANALYSES = (
    Analysis(
        name=NAME, title="typed federated scheduling, rtsched variant (own per-type units sized by Han et al.'s bound)",
        kind="sufficient", order=1, featured=False,
        policy="typed-federated", platform="typed", deadlines=("implicit", "constrained"), workload=DAG_TASKSETS,
        citation=CITATION, note=NOTE,
        reference=reference, explain=explain, codes=codes,
    ),
)  # fmt: skip
