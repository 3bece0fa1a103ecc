"""GPU partitions under preemptive GPU scheduling: GCAPS (± GPU-priority assignment) and TSG round robin per partition (rtsched's own).

``seg-gcaps-busy-part``, ``seg-gcaps-suspend-part``, ``seg-gcaps-busy-gpa-part``,
``seg-gcaps-suspend-gpa-part``, ``seg-tsg-busy-part``, ``seg-tsg-suspend-part`` (heuristic search)
and the same names with ``-exhaustive``. **No published tool does this: rtsched's own**, proved in
papers/cpu-gpu-partitions.md ("Preemptive GPU scheduling on partitions").

The searches, the rule (P) and the derived sets are those of :mod:`.partitions` (the lock-based
entries): a candidate is a layout of the GPU description's space and a task-to-partition
assignment; its derived set has one device ``<device>.p<j>`` per partition with
G_e' = ⌈C(s_j)·f(K − 1 | c_j)⌉, and keeps the set's driver (ε, time slice). Only the inner
analysis differs: a candidate is accepted iff

* ``seg-gcaps-*-part``: rtsched's GCAPS analysis (:mod:`.gcaps`, after Wang, Liu, Wong, Kim,
  ECRTS 2024, Sec. 5, 6.1, 6.3; (DEV-G), (OWN-P), (R-P), (W-G) of
  :mod:`rtsched.analyses.segmented._preemptive`), GPU priority = the task order;
* ``seg-gcaps-*-gpa-part``: the same with the paper's GPU-priority assignment (Sec. 5.3, 6.4; the
  task order, else Audsley's search with rtsched's (OPA-D)), run on the derived set: the ranks
  it finds for the accepted candidate are the ones the system must use (``explain`` reports them,
  ``evidence["inner"]["gpu_priorities"]``);
* ``seg-tsg-*-part``: rtsched's analysis of the driver's TSG round robin (:mod:`.tsg`, after the
  same paper, Sec. 6.2; (DEV-R)), not a real-time protocol;

accepts the derived set on the same m cores. Every inner analysis bounds each GPU segment on its
own device, so a partition is a device of its own with its own preemptive scheduler, its own
context switches (ε each) and, under TSG, its own time slice L (assumption B4 of the note; the
simulator, :func:`rtsched.segmented.sim.simulate_segmented`, runs every device so). The
context-switch cost ε and the time slice are the set's driver's (``driver:`` in files), else the
inner analyses' defaults (ε = 0; L = 10 ticks), and are the same for every partition (B5).

Budgets, the heuristic and exhaustive searches and the layers are those of :mod:`.partitions`
(:func:`~.partitions.reference_with`, :func:`~.partitions.explain_with`,
:func:`~.partitions.codes_with`): the search in Python, its candidates decided :data:`~.partitions.CHUNK`
at a time by the inner analysis's Numba kernel (:func:`rtsched.analyses.segmented._preemptive.preemptive_codes`
or the GPU-priority assignment's :func:`~rtsched.analyses.segmented._preemptive.gpa_codes`).
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
from numpy.typing import NDArray

from rtsched.analyses.segmented import gcaps, partitions, tsg
from rtsched.registry import Analysis
from rtsched.result import Explanation, Verdict
from rtsched.segmented.model import SegmentedBatch, SegmentedTaskSet, WaitMode
from rtsched.workloads import SEGMENTED_TASKSETS

__all__ = ["ANALYSES", "CITATION", "INNERS", "NOTE", "codes", "explain", "inner", "reference"]

#: The inner analyses: ``gcaps`` (task order), ``gcaps-gpa`` (GPU-priority assignment), ``tsg``.
INNERS = ("gcaps", "gcaps-gpa", "tsg")
_MODES: tuple[WaitMode, ...] = ("busy", "suspend")

CITATION = (
    "rtsched's own (no published analysis or tool does this): rtsched's GCAPS and TSG round-robin analyses "
    "after Y. Wang, C. Liu, D. Wong, H. Kim, ECRTS 2024 (LIPIcs 298:14, Sec. 5, 6.1-6.4), one preemptive "
    "scheduler per partition, on the GPU partition model of rtsched after Zahaf et al., RTNS 2021; "
    "rule (P), theorem and searches proved in the note"
)
NOTE = "papers/cpu-gpu-partitions.md"


def inner(kind: str, mode: WaitMode) -> partitions.Inner:
    """The inner analysis ``kind`` (:data:`INNERS`) under ``mode``, its options bound (ε, L from the set's driver)."""
    if kind == "gcaps":
        return partitions.Inner(
            f"seg-gcaps-{mode}",
            "GCAPS",
            functools.partial(gcaps.reference, mode=mode),
            functools.partial(gcaps.explain, mode=mode),
            functools.partial(gcaps.codes, mode=mode),
        )
    if kind == "gcaps-gpa":
        return partitions.Inner(
            f"seg-gcaps-{mode}-gpa",
            "GCAPS with GPU-priority assignment",
            functools.partial(gcaps.gpa_reference, mode=mode),
            functools.partial(gcaps.gpa_explain, mode=mode),
            functools.partial(gcaps.gpa_codes, mode=mode),
        )
    if kind == "tsg":
        return partitions.Inner(
            f"seg-tsg-{mode}",
            "TSG round robin (the driver's, not a real-time protocol)",
            functools.partial(tsg.reference, mode=mode),
            functools.partial(tsg.explain, mode=mode),
            functools.partial(tsg.codes, mode=mode),
        )
    raise ValueError(f"inner must be one of {', '.join(INNERS)}, got {kind!r}")


def reference(
    ts: SegmentedTaskSet, m: int, budget: int | None = None, *, mode: WaitMode, kind: str, search_kind: str
) -> Verdict:
    """(S) with the preemptive inner analysis: some candidate within ``budget`` passes; "unknown" if it ran out."""
    return partitions.reference_with(ts, m, inner(kind, mode), budget, search_kind)


def explain(
    ts: SegmentedTaskSet, m: int, budget: int | None = None, *, mode: WaitMode, kind: str, search_kind: str
) -> Explanation:
    """The chosen layout and assignment, G_e' per segment, the inner per-task bounds (and GPU ranks) and steps."""
    return partitions.explain_with(ts, m, inner(kind, mode), budget, search_kind)


def codes(
    batch: SegmentedBatch, m: int, budget: int | None = None, *, mode: WaitMode, kind: str, search_kind: str
) -> NDArray[np.int8]:
    """Codes per set (1 accepted, 0 not proven, −1 budget ran out): the search in Python, candidates by the inner kernel."""
    return partitions.codes_with(batch, m, inner(kind, mode), budget, search_kind)


_TITLES = {
    "gcaps": "GCAPS preemptive GPU scheduling (GPU priority = task order)",
    "gcaps-gpa": "GCAPS preemptive GPU scheduling with GPU-priority assignment",
    "tsg": "the driver's TSG round robin (not a real-time protocol)",
}
_POLICY = {"gcaps": "gcaps", "gcaps-gpa": "gcaps", "tsg": "tsg-rr"}


def _entry(kind: str, mode: WaitMode, search_kind: str, order: float) -> Analysis:
    stem = {"gcaps": f"seg-gcaps-{mode}", "gcaps-gpa": f"seg-gcaps-{mode}-gpa", "tsg": f"seg-tsg-{mode}"}[kind]
    kw: dict[str, Any] = {"mode": mode, "kind": kind, "search_kind": search_kind}
    return Analysis(
        name=f"{stem}-{search_kind}",
        title=(
            f"{_TITLES[kind]} on GPU partitions, one scheduler per partition, "
            f"{'heuristic' if search_kind == 'part' else 'exhaustive'} layout and task-to-partition search "
            f"(rtsched's own; ε and time slice: the set's driver; tasks without a mode: {mode})"
        ),
        kind="sufficient",
        policy=f"partitioned-fp-gpu-{_POLICY[kind]}",
        platform="identical",
        deadlines=("implicit", "constrained"),
        workload=SEGMENTED_TASKSETS,
        citation=CITATION,
        note=NOTE,
        reference=functools.partial(reference, **kw),
        explain=functools.partial(explain, **kw),
        codes=functools.partial(codes, **kw),
        featured=False,
        order=order,
        budget=partitions.DEFAULT_BUDGETS[search_kind],
        budget_unit="candidates (layout and task-to-partition assignment) considered",
        shares_kernels_with="seg-gcaps-busy-gpa" if kind == "gcaps-gpa" else "seg-gcaps-busy",
    )


ANALYSES = tuple(
    _entry(kind, mode, search_kind, base + 0.1 * k + (0.05 if search_kind != "part" else 0))
    for base, kind in ((34, "gcaps"), (35, "gcaps-gpa"), (42, "tsg"))
    for k, mode in enumerate(_MODES)
    for search_kind in partitions.SEARCHES
)
