"""GCAPS: preemptive priority-based GPU scheduling, busy and suspend (``seg-gcaps-busy``, ``seg-gcaps-suspend``).

After Y. Wang, C. Liu, D. Wong, H. Kim, "GCAPS: GPU context-aware preemptive priority-based
scheduling for real-time tasks", ECRTS 2024, LIPIcs 298, 14 (arXiv 2406.05221), Sections 5 and
6.3. Note: papers/wang2024-gcaps.md. Semantics: papers/cpu-gpu-model.md, protocol ``"gcaps"``: a
job's ``G_e`` part is submitted to its device after ``⌈G_m/2⌉``; each device runs the submitted
part of highest GPU priority, preemptively; every context switch costs ``ε`` device ticks.

**rtsched's own analysis, "after" the paper**: the paper's equations (1), (2), (4), (9)–(15)
bound a different overhead model (a runlist update ε = α + θ with CPU-side IOCTL cost and
rt-mutex blocking) by summing every higher-priority task's GPU work over the whole response
window; rtsched bounds the semantics note's model per GPU segment on its device (DEV-G) and then
per core (R-P), with the proofs in the note and the equations in
:mod:`rtsched.analyses.segmented._preemptive`:

(DEV-G) B_{i,s} = g + ε + Σ_{h: ρ_h < ρ_i on d} ( ⌈(B + R̂_h − E^d_h)/T_h⌉·E^d_h + ⌈(B + R̂_h)/T_h⌉·2ε·η^d_h )
(OWN-P) own_i = C_i + G^m_i + Σ_s B_{i,s}
(R-P)   R = own_i + Σ_{h<i, P_h=P_i} ⌈(R + J_h)/T_h⌉·X_h, (X-P): suspending h
        X = C + G^m, J = R_h − X; busy h X = min(own_h, R_h), J = 0.
(W-G)   R = C_i + G_i + ε·η_i + (the same core rows) + Σ_{h: ρ_h < ρ_i} ( ⌈(R + R̂_h − E^I_h)/T_h⌉·E^I_h
        + ⌈(R + R̂_h)/T_h⌉·2ε·η^I_h ) over τ_i's devices I: the paper's whole-window shape;
        R_i = min((R-P), (W-G)) ≤ D_i.

Driver parameter ε (context-switch cost in ticks): the keyword ``epsilon`` if given, else the
set's driver (``SegmentedTaskSet(driver=GPUDriver(epsilon=...))``, a file's ``driver:
{epsilon: ..}`` section: this is how ``rtsched check FILE`` and sweeps reach it), else 0 (the
registered default); :func:`explain` reports the value and its source (``evidence["epsilon"]``,
``evidence["epsilon_source"]``). Python keyword only: ``gpu_priorities`` (each task's GPU rank, a
permutation of 0..n−1, 0 highest; default the task order). Both are keywords of
:func:`rtsched.segmented.sim.simulate_segmented`, which reads the set's driver the same way.

``seg-gcaps-busy-gpa``, ``seg-gcaps-suspend-gpa``: the paper's GPU-priority assignment
(Sections 5.3 and 6.4): the task order first; if it fails, Audsley's search from the lowest GPU
rank, candidates from the lowest CPU priority up, keeping each core's CPU order, with rtsched's
OPA-compatible test (OPA-D) (R̂ = D everywhere; a busy same-core task's device bounds with every
unassigned task above it); the set is accepted under the ranks found, which :func:`gpa_explain`
reports (``evidence["gpu_priorities"]``) and the simulator must be given.

Per-task modes: a task with its own mode keeps it; the registered mode applies to the others.

Layers: :func:`reference` (Python ints), :func:`explain` (per-task rows: core, mode, GPU rank,
per-segment device bounds, own work, R and its terms, X and J imposed below, the failing term;
steps) and :func:`codes` (Numba, ``prange`` over the sets of a
:class:`~rtsched.segmented.SegmentedBatch`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np
from numpy.typing import NDArray

from rtsched.analyses.segmented import _preemptive
from rtsched.analyses.segmented._common import mode_entry
from rtsched.registry import Analysis
from rtsched.result import Explanation, Step, as_steps
from rtsched.segmented.model import SegmentedBatch, SegmentedTaskSet, WaitMode

__all__ = ["ANALYSES", "CITATION", "NOTE", "codes", "explain", "gpa_codes", "gpa_explain", "gpa_reference", "reference"]

CITATION = (
    "rtsched's analysis after Y. Wang, C. Liu, D. Wong, H. Kim, 'GCAPS: GPU context-aware preemptive "
    "priority-based scheduling for real-time tasks', ECRTS 2024, LIPIcs 298:14, Sec. 6.1 and 6.3 "
    "(Eq. (1), (10)-(15)); per-segment device bound (DEV-G) and per-core (R-P) proved in the note"
)
NOTE = "papers/wang2024-gcaps.md"


def reference(
    ts: SegmentedTaskSet,
    m: int,
    *,
    mode: WaitMode = "suspend",
    epsilon: int | None = None,
    gpu_priorities: Sequence[int] | None = None,
) -> bool:
    """True iff (R-P) holds for every task under GCAPS (Python ints)."""
    a = _preemptive.analyse(ts, m, mode, "gcaps", epsilon=epsilon, gpu_priorities=gpu_priorities, stop=True)
    return a.verdict


def explain(
    ts: SegmentedTaskSet,
    m: int,
    *,
    mode: WaitMode = "suspend",
    epsilon: int | None = None,
    gpu_priorities: Sequence[int] | None = None,
) -> Explanation:
    """Per-task rows (device bounds, own work, R), the failing term and the steps (GCAPS)."""
    return _preemptive.explain(ts, m, mode=mode, protocol="gcaps", epsilon=epsilon, gpu_priorities=gpu_priorities)


def codes(
    batch: SegmentedBatch,
    m: int,
    *,
    mode: WaitMode = "suspend",
    epsilon: int | None = None,
    gpu_priorities: Sequence[int] | NDArray[np.int64] | None = None,
) -> NDArray[np.int8]:
    """Codes per set (1 accept, 0 reject); ``gpu_priorities`` flat over the batch (ranks within each set)."""
    return _preemptive.preemptive_codes(batch, m, mode, "gcaps", epsilon=epsilon, gpu_priorities=gpu_priorities)


def gpa_reference(ts: SegmentedTaskSet, m: int, *, mode: WaitMode = "suspend", epsilon: int | None = None) -> bool:
    """True iff the task order, or the GPU ranks Audsley's search finds, pass (R-P) under GCAPS."""
    return _preemptive.gpa_analyse(ts, m, mode, epsilon)[0].verdict


def gpa_explain(ts: SegmentedTaskSet, m: int, *, mode: WaitMode = "suspend", epsilon: int | None = None) -> Explanation:
    """:func:`explain` under the ranks chosen (the task order if it passes), with the search's levels as steps."""
    a, steps = _preemptive.gpa_analyse(ts, m, mode, epsilon)
    result = _preemptive.explain(ts, m, mode=mode, protocol="gcaps", epsilon=epsilon, gpu_priorities=a.ranks)
    searched = [
        f"GPU rank {st.rank}: "
        + ", ".join(f"{ts.label(c)} (OPA-D) {R if R is not None else '> D'}" for c, R in st.tried)
        + (f" → {ts.label(st.chosen)}" if st.chosen is not None else " → none passes: not schedulable")
        for st in steps
    ]
    evidence = dict(result.evidence, gpa_steps=tuple(searched), gpa_searched=bool(steps))
    if not steps:
        head = "the task order passes: no search"
    elif a.verdict:
        head = "the task order fails; Audsley's search gives GPU ranks " + ", ".join(map(str, a.ranks))
    else:
        head = "the task order fails and Audsley's search finds no GPU ranks"
    inner = as_steps(result.steps)

    def all_steps() -> Iterator[Step | str]:
        yield Step(head)
        yield from (Step(x) for x in searched)
        yield from inner

    return Explanation(
        verdict=result.verdict,
        summary=f"with GPU-priority assignment: {head}; {result.summary}",
        evidence=evidence,
        per_task=result.per_task,
        steps=all_steps,
    )


def gpa_codes(
    batch: SegmentedBatch, m: int, *, mode: WaitMode = "suspend", epsilon: int | None = None
) -> NDArray[np.int8]:
    """Codes per set (1 accept, 0 reject): the task order, else Audsley's search (Numba)."""
    return _preemptive.gpa_codes(batch, m, mode, epsilon=epsilon)


def _gpa_entry(mode: WaitMode, order: float) -> Analysis:
    return mode_entry(
        mode,
        order,
        name=f"seg-gcaps-{mode}-gpa",
        title=(
            "GCAPS preemptive GPU scheduling with GPU-priority assignment (task order, else Audsley's search), "
            f"response-time analysis (ε: the set's driver, else 0; tasks without a mode: {mode})"
        ),
        policy="partitioned-fp-gpu-gcaps",
        citation=CITATION + "; GPU-priority assignment after Sec. 5.3 and 6.4 with rtsched's test (OPA-D)",
        note=NOTE,
        reference=gpa_reference,
        explain=gpa_explain,
        codes=gpa_codes,
        shares_kernels_with=None if mode == "busy" else "seg-gcaps-busy-gpa",
    )


def _entry(mode: WaitMode, order: float) -> Analysis:
    return mode_entry(
        mode,
        order,
        name=f"seg-gcaps-{mode}",
        title=(
            "GCAPS preemptive priority-based GPU scheduling, response-time analysis "
            f"(GPU priority = task order, ε: the set's driver, else 0; tasks without a mode: {mode})"
        ),
        policy="partitioned-fp-gpu-gcaps",
        citation=CITATION,
        note=NOTE,
        reference=reference,
        explain=explain,
        codes=codes,
        shares_kernels_with=None if mode == "busy" else "seg-gcaps-busy",
    )


ANALYSES = (_entry("busy", 30), _entry("suspend", 31), _gpa_entry("busy", 32), _gpa_entry("suspend", 33))
