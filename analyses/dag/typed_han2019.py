"""Response-time bound of one typed DAG task on a heterogeneous platform (Han et al., TPDS 2019).

Paper (note: papers/han2019-typed-dag.md): M. Han, N. Guan, J. Sun, Q. He, Q. Deng, W. Liu,
"Response time bounds for typed DAG parallel tasks on heterogeneous multi-cores", IEEE TPDS
30(11), 2019 (arXiv 1809.07689). Only the abstract of the paper could be read through the search
tools; the bound below is the paper's *first* new bound as rtsched reconstructs it (the
abstract: "the same time complexity as the existing bound", i.e. one longest-path pass), proved
in the note, cross-read against a public implementation (MIT, by a co-author of Lin et al. 2023)
and held to rtsched's typed simulator by the tests. The theorem and equation numbers of the paper
could not be checked; the tag (H1) is rtsched's. The paper's second, tighter bound (strongly
NP-hard when the number of types varies) is **not** implemented.

What the registered test assumes: **a set of one typed DAG task** (n = 1) with D ≤ T, alone on
the typed platform, under any scheduler that is work-conserving per type (rtsched's simulator:
global EDF or FP per type; with one task they coincide). With R ≤ D ≤ T a job completes before
the next release, so each job runs alone and (H1) bounds every job. A set of several tasks is
not proven here (False, and explain says so): use ``dag-typed-federated``, which gives each heavy
task its own units and sizes them with this bound.

    (H1)  R ≤ Σ_s vol_s / m_s + max over paths λ of Σ_{v ∈ λ} C_v · (1 − 1/m_{t(v)})  ≤  D

decided exactly (analyses/dag/_typed.py: L·(H1) ≤ L·D in integers, L = lcm of the m_s used).

Platform: ``Typed({type: units})`` (``typed:cpu=4,gpu=2``), or ``Identical(m)`` read as
``Typed({"cpu": m})`` (then (H1) is Graham's bound len + (vol − len)/m). A set that uses a type
the platform has no unit of is refused with one line (InputError).

Layers: :func:`reference` (Fractions), :func:`explain` (the task's row, per-type volumes, the
path, the failing term, steps) and :func:`codes` (the Numba longest-path kernel of
analyses/dag/_typed.py over the batch's tasks, int64; the reference where int64 could overflow).
"""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction
from typing import Any

import numpy as np
from numpy.typing import NDArray

from rtsched.analyses.dag._typed import han_bound, require_types, scaled_han_sets, task_scales, units_by_code
from rtsched.dag.model import DAGBatch, DAGTaskSet
from rtsched.kernels import ACCEPT, REJECT
from rtsched.platform import Typed
from rtsched.registry import Analysis
from rtsched.result import Explanation, Step, show_number
from rtsched.workloads import DAG_TASKSETS

__all__ = ["ANALYSES", "codes", "explain", "reference", "steps"]

NAME = "dag-typed-han2019"
CITATION = (
    "M. Han, N. Guan, J. Sun, Q. He, Q. Deng, W. Liu, 'Response time bounds for typed DAG parallel tasks on "
    "heterogeneous multi-cores', IEEE TPDS 30(11), 2019: first new bound, R <= sum_s vol_s/m_s + "
    "max_path sum C_v(1 - 1/m_t(v)) (rtsched's (H1); one typed DAG task alone, work-conserving per type)"
)
NOTE = "papers/han2019-typed-dag.md"


def _units(ts: DAGTaskSet | DAGBatch, platform: Typed) -> dict[str, int]:
    require_types(ts, platform)
    return platform.as_dict()


def reference(ts: DAGTaskSet, platform: Typed) -> bool:
    """One task (n = 1) with (H1) ≤ D, exactly; a set of several tasks is not proven."""
    units = _units(ts, platform)
    if ts.n != 1:
        return False
    task = ts[0]
    return han_bound(task, units).bound <= task.D


def explain(ts: DAGTaskSet, platform: Typed) -> Explanation:
    """The verdict, the task's row (volumes per type, the bound and its path), the failing term, steps."""
    units = _units(ts, platform)
    rows: list[dict[str, Any]] = []
    if ts.n != 1:
        return Explanation(
            verdict=False,
            summary=f"not proven: {NAME} bounds one typed DAG task alone on the platform; this set has {ts.n} "
            "tasks (use dag-typed-federated)",
            evidence={"failing": "n != 1", "tasks": ts.n, "platform": platform.spec},
            per_task=rows,
            steps=lambda: iter([Step(f"{ts.n} tasks: {NAME} applies to one task alone: not proven")]),
        )
    task = ts[0]
    h = han_bound(task, units)
    holds = h.bound <= task.D
    rows.append(
        {
            "task": ts.label(0),
            "vol": task.volume,
            "len": task.length,
            "D": task.D,
            "T": task.T,
            **{f"vol_{s}": vol for s, vol in sorted(h.volumes.items())},
            "Σ vol_s/m_s": h.spread,
            "path term": h.path_term,
            "R bound": h.bound,
            "R ≤ D": holds,
        }
    )
    rel = "≤" if holds else ">"
    summary = f"(H1) R ≤ {show_number(h.bound)} {rel} D = {task.D} on {platform.spec}"
    if not holds:
        summary = "not proven: " + summary
    evidence = {
        "bound": h.bound,
        "spread": h.spread,
        "path_term": h.path_term,
        "path": h.path,
        "volumes": dict(sorted(h.volumes.items())),
        "units": units,
        "slack": task.D - h.bound,
        "failing": None if holds else "(H1) R > D",
    }
    return Explanation(
        verdict=holds, summary=summary, evidence=evidence, per_task=rows, steps=lambda: steps(ts, platform)
    )


def steps(ts: DAGTaskSet, platform: Typed) -> Iterator[Step]:
    """The derivation of (H1) for the set's one task."""
    units = _units(ts, platform)
    task = ts[0]
    h = han_bound(task, units)
    yield Step(
        f"{ts.label(0)} alone on {platform.spec}: vertices run only on units of their type, work-conserving per type"
    )
    for s, vol in sorted(h.volumes.items()):
        yield Step(
            f"type {s}: vol_{s} = {vol}, m_{s} = {units[s]}: vol_{s}/m_{s} = " + "{q}", {"q": Fraction(vol, units[s])}
        )
    yield Step("Σ_s vol_s/m_s = {spread}", {"spread": h.spread})
    labels = " → ".join(task.vertex_label(v) for v in h.path)
    yield Step(f"longest path with vertex weight C_v·(1 − 1/m_t(v)): {labels}, weight " + "{p}", {"p": h.path_term})
    holds = h.bound <= task.D
    yield Step(
        "(H1) R ≤ {spread} + {p} = {r} "
        + ("≤" if holds else ">")
        + f" D = {task.D}"
        + (": schedulable" if holds else ": not proven"),
        {"spread": h.spread, "p": h.path_term, "r": h.bound},
    )


def codes(batch: DAGBatch, platform: Typed) -> NDArray[np.int8]:
    """Codes per set: the int64 kernel of (H1) per task; the reference where int64 might overflow."""
    require_types(batch, platform)
    m_of = units_by_code(batch, platform)
    L, safe = task_scales(batch, m_of)
    offsets = batch.task_offsets
    out = np.full(batch.n_sets, REJECT, dtype=np.int8)
    one = np.flatnonzero(np.diff(offsets) == 1)  # sets of one task; the others are not proven
    if one.size == 0:
        return out
    tasks = offsets[one]
    scaled = scaled_han_sets(batch, m_of, L)
    ok = safe[tasks]
    # L·(H1) ≤ L·D, exact in int64 for safe tasks (L·max(vol, D) < 2**62)
    fits = scaled[tasks] <= batch.D[tasks] * L[tasks]
    out[one[ok & fits]] = ACCEPT
    for s in one[~ok].tolist():
        out[s] = ACCEPT if reference(batch[s], platform) else REJECT
    return out


ANALYSES = (
    Analysis(
        name=NAME, title="Han et al. 2019: response-time bound of one typed DAG task on a typed platform", kind="sufficient",
        order=0, featured=False,
        policy="typed-global", platform="typed", deadlines=("implicit", "constrained"), workload=DAG_TASKSETS,
        citation=CITATION, note=NOTE,
        reference=reference, explain=explain, codes=codes,
    ),
)  # fmt: skip
