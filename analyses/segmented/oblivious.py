"""Suspension-oblivious response-time analysis of CPU–GPU segmented tasks without GPU contention (``seg-oblivious``).

Model and semantics: papers/cpu-gpu-model.md (issue #43), protocol ``none``: the device never
makes a job wait and nothing is boosted; partitioned preemptive fixed priority on the CPU cores
(task order = priority). Note: papers/chen2019-self-suspension-review.md.

**Suspension-oblivious analysis** (the review by J.-J. Chen et al., "Many suspensions, many
problems: a review of self-suspending tasks in real-time systems", Real-Time Systems 55(1),
2019, pp. 144-207; its section on suspension-oblivious analysis — the section and equation
numbers could not be read here, see the note): every task's GPU segments (``G_m`` on the core and
``G_e`` on the device, spun or suspended) count as CPU work, and each core is analysed with the
uniprocessor response-time analysis of Joseph & Pandya (1986) and Audsley et al. (1993):

    R_i = (C_i + G_i) + Σ_{h ∈ hp(i), P_h = P_i} ⌈R_i / T_h⌉ · (C_h + G_h)              (OBL)

with G = G_m + G_e. Schedulable (proven) iff R_i ≤ D_i for every task (D_i ≤ T_i). It holds in
either waiting mode, per task: a busy task is ready from release to completion and occupies its
core at most C + G; a suspending one is bounded by treating its suspension as computation (the
review's argument; the note gives rtsched's proof for this model, where a suspending task's
carry-in cannot exceed a periodic task's with C + G). The verdict does not depend on the mode.

Layers: :func:`reference` (Python ints, (OBL) through
:func:`rtsched.analyses.theory.jitter_rta.jitter_response` with J = 0), :func:`explain` (per-task
rows: core, mode, own work C + G, R and its terms, the failing term; steps per core) and
:func:`codes` (the family's Numba kernel, ``prange`` over the sets of a
:class:`~rtsched.segmented.SegmentedBatch`, every task as CPU work). No work budget: each
fixed-point search climbs to at most D.
"""

from __future__ import annotations

import functools

import numpy as np
from numpy.typing import NDArray

from rtsched.analyses.segmented._common import (
    RULE_BUSY,
    contention_free_codes,
    core_bounds,
    explain_bounds,
)
from rtsched.analyses.theory.jitter_rta import JitterRow
from rtsched.registry import Analysis
from rtsched.result import Explanation
from rtsched.segmented.model import SegmentedBatch, SegmentedTaskSet, WaitMode
from rtsched.workloads import SEGMENTED_TASKSETS

__all__ = ["ANALYSES", "CITATION", "NOTE", "codes", "explain", "oblivious_row", "reference"]

CITATION = (
    "J.-J. Chen et al., 'Many suspensions, many problems: a review of self-suspending tasks in real-time systems', "
    "Real-Time Systems 55(1), 2019 (suspension-oblivious analysis); uniprocessor FP RTA per core (Joseph & Pandya "
    "1986; Audsley et al. 1993): R = (C + G) + Σ_hp ⌈R/T_h⌉ (C_h + G_h)"
)
NOTE = "papers/chen2019-self-suspension-review.md"


def oblivious_row(ts: SegmentedTaskSet, h: int, mode: str, R_h: int) -> JitterRow:
    """(OBL): a higher-priority task h is a periodic task of WCET C_h + G_h, no jitter (its mode and R_h unused)."""
    t = ts[h]
    return JitterRow(X=t.C + t.G, T=t.T, J=0)


def reference(ts: SegmentedTaskSet, m: int, *, mode: WaitMode = "suspend") -> bool:
    """(OBL) on every core: True iff every task's least fixed point is at most its deadline (Python ints)."""
    bounds = core_bounds(ts, m, mode, oblivious_row, stop=True)
    return all(b.ok for b in bounds)


def explain(ts: SegmentedTaskSet, m: int, *, mode: WaitMode = "suspend") -> Explanation:
    """Per-task rows (core, mode, C, G_m, G_e, own = C + G, R and its terms, X = C + G for the tasks below), failing term, steps."""
    return explain_bounds(
        ts,
        m,
        mode,
        oblivious_row,
        what="suspension-oblivious RTA",
        equation="(OBL)",
        rule_text="every higher-priority task on the core counts C + G_m + G_e as CPU work (X = C + G, J = 0)",
    )


def codes(batch: SegmentedBatch, m: int, *, mode: WaitMode = "suspend") -> NDArray[np.int8]:
    """Codes per set (1 accept, 0 reject): the family kernel with every task as CPU work."""
    return contention_free_codes(batch, m, mode, RULE_BUSY)


ANALYSES = (
    Analysis(
        name="seg-oblivious",
        title="suspension-oblivious RTA of CPU–GPU segmented tasks, no GPU contention (GPU time as CPU time)",
        kind="sufficient",
        policy="partitioned-fp-gpu-none",
        platform="identical",
        deadlines=("implicit", "constrained"),
        workload=SEGMENTED_TASKSETS,
        citation=CITATION,
        note=NOTE,
        reference=functools.partial(reference, mode="suspend"),
        explain=functools.partial(explain, mode="suspend"),
        codes=functools.partial(codes, mode="suspend"),
        featured=False,
        order=0,
    ),
)
