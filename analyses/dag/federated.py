"""Federated scheduling of sporadic DAG tasks (Li et al., ECRTS 2014; Baruah, DATE 2015).

Papers (note: papers/li2014-federated.md): J. Li, J.-J. Chen, K. Agrawal, C. Lu, C. Gill,
A. Saifullah, "Analysis of federated and global scheduling for parallel real-time tasks", ECRTS 2014
(implicit deadlines); S. Baruah, "The federated scheduling of constrained-deadline sporadic DAG
task systems", DATE 2015, pp. 1323-1328 (constrained deadlines). The equation numbers of the
papers could not be checked against their text (see the note); the tags below are rtsched's.

On m identical processors, with D_i ≤ T_i:

* (F1) task τ_i is **heavy** if its density vol_i / D_i exceeds 1 (with D_i = T_i: its
  utilization vol_i / T_i, Li et al.'s definition; vol_i / D_i is Baruah's), else **light**;
* (F2) a heavy task needs len_i < D_i and gets n_i = ⌈(vol_i − len_i) / (D_i − len_i)⌉
  processors of its own, on which any work-conserving scheduler runs its jobs (Graham 1969:
  a job completes within len_i + (vol_i − len_i) / n_i ≤ D_i);
* (F3) Σ_heavy n_i ≤ m;
* (F4) the light tasks, each run sequentially as a sporadic task (C = vol_i, D_i, T_i), are
  partitioned on the remaining m − Σ n_i processors. **rtsched's choice of the light-task test**
  is its registered partitioned EDF ``p-edf`` (first fit, decreasing density, exact QPA
  admission per processor), called through the registry; no light task: nothing to check; light
  tasks and no processor left: not proven.

Schedulable (proven) iff (F2), (F3) and (F4) hold. The soundness argument, rtsched's, is in the
note. Heavy is strict (vol_i = D_i is light: one processor runs the task sequentially), so every
heavy task has vol_i > D_i > len_i and n_i ≥ 2.

Layers: :func:`reference` (Python ints, and ``p-edf``'s exact reference for the light part),
:func:`explain` (per-task rows, the allocation, the failing term, steps) and :func:`codes`
(integer arithmetic vectorised over a :class:`~rtsched.dag.DAGBatch`, then one ``p-edf`` batch call
per group of sets left with the same number of processors for their light tasks).

Work budget: the light tasks' ``p-edf`` packing has one (demand terms, see
analyses/partitioned/partitioned_edf.py); this analysis declares the same default and passes its
``budget`` on, so a packing that runs out makes the verdict "unknown", never False.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
from numpy.typing import NDArray

from rtsched import registry
from rtsched.dag.model import DAGBatch, DAGTaskSet
from rtsched.kernels import ACCEPT, REJECT
from rtsched.model import TaskSet, TaskSetBatch
from rtsched.registry import Analysis
from rtsched.result import Explanation, Step, Verdict, count
from rtsched.workloads import DAG_TASKSETS

__all__ = ["ANALYSES", "BUDGET", "LIGHT_TEST", "Plan", "heavy_processors", "is_heavy", "plan"]

CITATION = (
    "Li, Chen, Agrawal, Lu, Gill, Saifullah, 'Analysis of federated and global scheduling for parallel "
    "real-time tasks', ECRTS 2014 (implicit deadlines; heavy: vol/T > 1, n = ⌈(vol − len)/(D − len)⌉); "
    "Baruah, 'The federated scheduling of constrained-deadline sporadic DAG task systems', DATE 2015 "
    "(constrained deadlines; heavy: vol/D > 1); light tasks: rtsched's p-edf"
)
NOTE = "papers/li2014-federated.md"
#: The registry name of the light tasks' test (rtsched's choice).
LIGHT_TEST = "p-edf"
#: The default work budget, p-edf's (demand terms of its packing; a test checks they agree).
BUDGET = 10**8


def is_heavy(vol: int, D: int) -> bool:
    """(F1): density vol / D above 1 (D ≤ T; with D = T it is the utilization)."""
    return vol > D


def heavy_processors(vol: int, length: int, D: int) -> int | None:
    """(F2): n = ⌈(vol − len) / (D − len)⌉, or ``None`` when len ≥ D (Graham's bound then exceeds D for every n)."""
    if length >= D:
        return None
    return -((length - vol) // (D - length))


@dataclass(frozen=True)
class Plan:
    """The heavy part of federated scheduling for one set on m processors, exactly.

    ``heavy[i]`` says whether task i is heavy; ``n[i]`` its processors (0 for a light task and for
    a heavy one with len ≥ D); ``too_long`` the heavy tasks with len ≥ D; ``used`` Σ n_i;
    ``light`` the light tasks; ``left`` = m − used (negative when the heavy tasks do not fit).
    """

    heavy: tuple[bool, ...]
    n: tuple[int, ...]
    too_long: tuple[int, ...]
    used: int
    light: tuple[int, ...]
    left: int

    def light_taskset(self, ts: DAGTaskSet) -> TaskSet:
        """The light tasks as sequential sporadic tasks (C = vol, D, T), in task order."""
        return TaskSet.from_tasks([(ts[i].volume, ts[i].D, ts[i].T) for i in self.light])


def plan(ts: DAGTaskSet, m: int) -> Plan:
    """(F1)-(F3) for ``ts`` on ``m`` processors (Python ints)."""
    heavy = tuple(is_heavy(t.volume, t.D) for t in ts)
    n: list[int] = []
    too_long: list[int] = []
    for i, t in enumerate(ts):
        k = heavy_processors(t.volume, t.length, t.D) if heavy[i] else 0
        if k is None:
            too_long.append(i)
            k = 0
        n.append(k)
    used = sum(n)
    light = tuple(i for i in range(ts.n) if not heavy[i])
    return Plan(heavy, tuple(n), tuple(too_long), used, light, m - used)


def reference(ts: DAGTaskSet, m: int, budget: int = BUDGET) -> Verdict:
    """Federated schedulability of ``ts`` on ``m`` processors, exactly.

    (F2) len_i < D_i and n_i = ⌈(vol_i − len_i)/(D_i − len_i)⌉ per heavy task (F1: vol_i > D_i),
    (F3) Σ n_i ≤ m, (F4) the light tasks (vol_i, D_i, T_i) pass p-edf on m − Σ n_i processors
    (``p-edf``'s own Fraction reference).
    """
    p = plan(ts, m)
    if p.too_long or p.left < 0:
        return False
    if not p.light:
        return True
    if p.left == 0:
        return False
    return registry.get(LIGHT_TEST).reference(p.light_taskset(ts), p.left, budget)


def _processor_range(first: int, k: int) -> str:
    return f"P{first}" if k == 1 else f"P{first}..P{first + k - 1}"


def explain(ts: DAGTaskSet, m: int, budget: int = BUDGET) -> Explanation:
    """The verdict, each task's class and processors, the allocation, the failing term and the steps."""
    p = plan(ts, m)
    # Heavy tasks get consecutive processors from P0 in task order (when they fit at all).
    first: dict[int, int] = {}
    at = 0
    for i in range(ts.n):
        if p.heavy[i] and p.n[i]:
            first[i] = at
            at += p.n[i]
    allocation: list[tuple[int, ...]] = [
        tuple(range(first[i], first[i] + p.n[i])) if i in first and p.left >= 0 else () for i in range(ts.n)
    ]
    failing: str | None = None
    light_result = None
    verdict: Verdict
    if p.too_long:
        i = p.too_long[0]
        failing = f"heavy {ts.label(i)} has len = {ts[i].length} ≥ D = {ts[i].D}"
        verdict = False
    elif p.left < 0:
        failing = f"Σ n_i = {p.used} > m = {m}"
        verdict = False
    elif not p.light:
        verdict = True
    elif p.left == 0:
        failing = f"{count(len(p.light), 'light task')} and no processor left (Σ n_i = {p.used} = m)"
        verdict = False
    else:
        light_result = registry.get(LIGHT_TEST).explain(p.light_taskset(ts), p.left, budget)
        verdict = light_result.verdict
        for j, where in enumerate(light_result.evidence["assignment"]):
            if where is not None:
                allocation[p.light[j]] = (p.used + int(where),)
        if verdict is not True:
            failing = f"{LIGHT_TEST} on the {count(p.left, 'light processor')}: {light_result.summary}"

    per_task: list[dict[str, Any]] = []
    for i, t in enumerate(ts):
        per_task.append(
            {
                "task": ts.label(i),
                "vol": t.volume,
                "len": t.length,
                "D": t.D,
                "T": t.T,
                "density": Fraction(t.volume, t.D),
                "class": "heavy" if p.heavy[i] else "light",
                "n": p.n[i] if p.heavy[i] and i not in p.too_long else None,
                "processors": ", ".join(f"P{q}" for q in allocation[i]) or "-",
            }
        )
    heavy_count = sum(p.heavy)
    if verdict is True:
        summary = (
            f"{count(heavy_count, 'heavy task')} on {count(p.used, 'processor')}, "
            f"{count(len(p.light), 'light task')} on {count(max(p.left, 0), 'processor')} by {LIGHT_TEST}"
        )
    else:
        summary = f"not proven: {failing}"
    evidence: dict[str, Any] = {
        "heavy": tuple(i for i in range(ts.n) if p.heavy[i]),
        "light": p.light,
        "n": p.n,
        "heavy_processors": p.used,
        "light_processors": max(p.left, 0),
        "allocation": tuple(allocation),
        "failing": failing,
    }
    if light_result is not None:
        evidence["light_test"] = {
            "analysis": LIGHT_TEST,
            "verdict": light_result.verdict,
            "summary": light_result.summary,
        }

    def steps() -> list[Step | str]:
        out: list[Step | str] = [
            f"federated scheduling on m = {m} processors: a task is heavy if vol > D (density above 1; "
            "with D = T its utilization), and then gets n = ⌈(vol − len)/(D − len)⌉ processors of its own"
        ]
        for i, t in enumerate(ts):
            values = {"vol": t.volume, "len": t.length, "D": t.D, "T": t.T, "d": Fraction(t.volume, t.D)}
            head = f"{ts.label(i)}: vol = {{vol}}, len = {{len}}, D = {{D}}, T = {{T}}, density {{d}}"
            if not p.heavy[i]:
                out.append(Step(head + " ≤ 1: light", values))
            elif i in p.too_long:
                out.append(
                    Step(
                        head
                        + " > 1: heavy, but len = {len} ≥ D = {D}: Graham's bound len + (vol − len)/n exceeds D for every n",
                        values,
                    )
                )
            else:
                where = f" → {_processor_range(first[i], p.n[i])}" if p.left >= 0 else ""
                out.append(
                    Step(
                        head + " > 1: heavy, n = ⌈({vol} − {len})/({D} − {len})⌉ = {n}" + where,
                        {**values, "n": p.n[i]},
                    )
                )
        if p.too_long:
            out.append(f"{failing}: not proven")
            return out
        relation = "≤" if p.left >= 0 else ">"
        out.append(Step(f"Σ n_i = {{used}} {relation} m = {{m}}", {"used": p.used, "m": m}))
        if p.left < 0:
            out.append("the heavy tasks do not fit: not proven")
            return out
        if not p.light:
            out.append("no light task: schedulable")
            return out
        if p.left == 0:
            out.append(f"{failing}: not proven")
            return out
        out.append(
            f"light tasks {', '.join(ts.label(i) for i in p.light)} run sequentially as sporadic tasks "
            f"(C = vol, D, T) on the {count(p.left, 'remaining processor')} "
            f"{_processor_range(p.used, p.left)}: {LIGHT_TEST} (its P0 is P{p.used}, its τj the light task number j from 0)"
        )
        out.extend("  " + str(s) for s in (light_result.steps if light_result is not None else ()))
        if verdict is True:
            out.append("every heavy task has its processors and p-edf places every light task: schedulable")
        elif verdict is False:
            out.append("the light tasks are not placed: not proven")
        else:
            out.append("the light tasks' packing ran out of its work budget: unknown")
        return out

    return Explanation(verdict=verdict, summary=summary, evidence=evidence, per_task=per_task, steps=steps)


def codes(batch: DAGBatch, m: int, budget: int = BUDGET) -> NDArray[np.int8]:
    """Codes per set (1 accept, 0 reject, -1 unknown).

    (F1)-(F3) vectorised over the batch's tasks (int64), then (F4) with one ``p-edf`` batch call per
    number of processors left for the light tasks.
    """
    vol, length, D, T = batch.volume, batch.length, batch.D, batch.T
    offsets = batch.task_offsets
    n_sets = batch.n_sets
    starts = offsets[:-1]
    heavy = vol > D
    too_long = heavy & (length >= D)
    fine = heavy & ~too_long
    gap = np.where(fine, D - length, 1)
    n = np.where(fine, -((length - vol) // gap), 0)  # ⌈(vol − len)/(D − len)⌉, at most 2³¹ − 1 each
    any_too_long = np.add.reduceat(too_long.astype(np.int64), starts) > 0
    used = np.add.reduceat(n, starts)
    light = ~heavy
    light_count = np.add.reduceat(light.astype(np.int64), starts)
    out = np.full(n_sets, REJECT, dtype=np.int8)
    fits = ~any_too_long & (used <= m)
    out[fits & (light_count == 0)] = ACCEPT
    pending = fits & (light_count > 0) & (used < m)
    if not pending.any():
        return out
    left = m - used
    set_of_task = np.repeat(np.arange(n_sets), np.diff(offsets))
    light_test = registry.get(LIGHT_TEST)
    for k in np.unique(left[pending]):
        sets = np.flatnonzero(pending & (left == k))
        chosen = light & np.isin(set_of_task, sets)
        light_offsets = np.concatenate(([0], np.cumsum(light_count[sets])))
        light_batch = TaskSetBatch(vol[chosen], D[chosen], T[chosen], light_offsets, deadlines="constrained")
        out[sets] = light_test.status(light_batch, int(k), budget)
    return out


ANALYSES = (
    Analysis(
        name="dag-federated", title="federated scheduling of DAG tasks (heavy: own processors; light: p-edf)",
        kind="sufficient", order=0, featured=False,
        policy="federated", platform="identical", deadlines=("implicit", "constrained"), workload=DAG_TASKSETS,
        citation=CITATION, note=NOTE,
        reference=reference, explain=explain, codes=codes, calls=(LIGHT_TEST,),
        budget=BUDGET, budget_unit="demand terms of the light tasks' p-edf packing",
    ),
)  # fmt: skip
