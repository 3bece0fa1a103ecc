"""The vendor driver's TSG round robin (NOT a real-time protocol), busy and suspend (``seg-tsg-busy``, ``seg-tsg-suspend``).

The default GPU scheduling of the Nvidia Tegra driver as Y. Wang, C. Liu, D. Wong, H. Kim
describe and analyse it ("GCAPS: GPU context-aware preemptive priority-based scheduling for
real-time tasks", ECRTS 2024, LIPIcs 298, 14, Sections 2 and 6.2): work-conserving time-sliced
round robin over the processes' channels (TSGs), blind to task priorities. Note:
papers/wang2024-gcaps.md. Semantics: papers/cpu-gpu-model.md, protocol ``"tsg-rr"``: submitted
parts queue in submission order; the head runs for at most ``L`` ticks of progress (one time
slice), then goes to the tail if another part waits; every context switch costs ``ε``.

**rtsched's own analysis, "after" the paper**: the paper's Eq. (3), (5)–(8) count ν·⌈G^e/L⌉
slices of every other GPU-using task (of length L + θ) per segment but not the segment's own
context switches; under the semantics note's model that published form is refuted by the
simulator (the note's counterexample, held as a test) and is not registered. rtsched's equations
(in :mod:`rtsched.analyses.segmented._preemptive`):

(DEV-R) B_{i,s} = g + ε + (r − 1)·ε·[K ≠ ∅] + r·Σ_{k ∈ K} (ε + min(L, M^d_k)),  r = ⌈g/L⌉
        (K: the other tasks with a part on the device; one pending part each, one slice per round)
(OWN-P) own_i = C_i + G^m_i + Σ_s B_{i,s}
(R-P)   R_i = own_i + Σ_{h<i, P_h=P_i} ⌈(R + J_h)/T_h⌉·X_h ≤ D_i  ((X-P) as for GCAPS)

Driver parameters: the time slice L and the context-switch cost ε (ticks) are, each, the keyword
(``time_slice``, ``epsilon``) if given, else the set's driver (``GPUDriver(epsilon, time_slice)``,
a file's ``driver`` section), else the registered default: :data:`DEFAULT_TIME_SLICE` = 10 ticks,
the driver's 1024 µs at the segmented generator's default of 10 ticks per ms (1.024 ms rounded to
whole ticks), and ε = 0. :func:`explain` reports the values and their sources. Both keywords are
those of :func:`rtsched.segmented.sim.simulate_segmented`, which reads the set's driver the same
way (but has no default time slice).

Layers: :func:`reference`, :func:`explain`, :func:`codes` as in :mod:`.gcaps`.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from rtsched.analyses.segmented import _preemptive
from rtsched.analyses.segmented._common import mode_entry
from rtsched.registry import Analysis
from rtsched.result import Explanation
from rtsched.segmented.model import SegmentedBatch, SegmentedTaskSet, WaitMode

__all__ = ["ANALYSES", "CITATION", "DEFAULT_TIME_SLICE", "NOTE", "codes", "explain", "reference"]

#: The registry's time slice in ticks: the driver's 1024 µs at 10 ticks per ms (the generator's default).
DEFAULT_TIME_SLICE = 10

CITATION = (
    "rtsched's analysis of the default driver's time-sliced round robin after Y. Wang, C. Liu, D. Wong, H. Kim, "
    "'GCAPS: GPU context-aware preemptive priority-based scheduling for real-time tasks', ECRTS 2024, "
    "LIPIcs 298:14, Sec. 6.2 (Eq. (3), (5)-(8)); (DEV-R) counts the segment's own context switches, "
    "which Eq. (3) omits (refuted under the semantics note, see the note)"
)
NOTE = "papers/wang2024-gcaps.md"


def reference(
    ts: SegmentedTaskSet,
    m: int,
    *,
    mode: WaitMode = "suspend",
    time_slice: int | None = None,
    epsilon: int | None = None,
) -> bool:
    """True iff (R-P) holds for every task under TSG round robin (Python ints)."""
    a = _preemptive.analyse(
        ts, m, mode, "tsg-rr", epsilon=epsilon, time_slice=time_slice, stop=True, default_time_slice=DEFAULT_TIME_SLICE
    )
    return a.verdict


def explain(
    ts: SegmentedTaskSet,
    m: int,
    *,
    mode: WaitMode = "suspend",
    time_slice: int | None = None,
    epsilon: int | None = None,
) -> Explanation:
    """Per-task rows (device bounds, own work, R), the failing term and the steps (TSG round robin)."""
    return _preemptive.explain(
        ts,
        m,
        mode=mode,
        protocol="tsg-rr",
        epsilon=epsilon,
        time_slice=time_slice,
        default_time_slice=DEFAULT_TIME_SLICE,
    )


def codes(
    batch: SegmentedBatch,
    m: int,
    *,
    mode: WaitMode = "suspend",
    time_slice: int | None = None,
    epsilon: int | None = None,
) -> NDArray[np.int8]:
    """Codes per set (1 accept, 0 reject): the family's preemptive kernel under ``tsg-rr``."""
    return _preemptive.preemptive_codes(
        batch, m, mode, "tsg-rr", epsilon=epsilon, time_slice=time_slice, default_time_slice=DEFAULT_TIME_SLICE
    )


def _entry(mode: WaitMode, order: float) -> Analysis:
    return mode_entry(
        mode,
        order,
        name=f"seg-tsg-{mode}",
        title=(
            "default GPU driver's time-sliced round robin (TSG RR, not a real-time protocol), response-time "
            f"analysis (time slice and ε: the set's driver, else {DEFAULT_TIME_SLICE} ticks and 0; "
            f"tasks without a mode: {mode})"
        ),
        policy="partitioned-fp-gpu-tsg-rr",
        citation=CITATION,
        note=NOTE,
        reference=reference,
        explain=explain,
        codes=codes,
        shares_kernels_with="seg-gcaps-busy",
    )


ANALYSES = (_entry("busy", 40), _entry("suspend", 41))
