"""Suspension-aware jitter-based response-time analysis of CPU–GPU segmented tasks without GPU contention (``seg-jitter-*``).

Model and semantics: papers/cpu-gpu-model.md (issue #43), protocol ``none``: the device never
makes a job wait and nothing is boosted; partitioned preemptive fixed priority on the CPU cores
(task order = priority). Note: papers/chen2019-self-suspension-review.md.

A *suspending* task's GPU part ``G_e`` is a self-suspension: its job needs its core for
``X = C + G_m`` and is suspended for at most ``G_e``. The jitter-based analysis of dynamic
self-suspending tasks that the review of Chen et al. (Real-Time Systems 55(1), 2019) confirms as
sound models each higher-priority self-suspending task by release jitter equal to its
worst-case response time minus its worst-case execution time (the review's section on modelling
suspension as release jitter, after Chen, Nelissen, Huang, ECRTS 2016, who proved it; the
published analyses that took the suspension time as jitter are the flawed ones). The section,
theorem and equation numbers could not be read here (see the note). For this model:

    X_h = C_h + G_m_h,  J_h = R_h − X_h           (h suspending)                          (JIT-S)
    X_h = C_h + G_h,    J_h = 0                   (h busy, or G_e_h = 0: never suspends)   (JIT-B)
    R_i = (C_i + G_i) + Σ_{h ∈ hp(i), P_h = P_i} ⌈(R_i + J_h) / T_h⌉ · X_h                (JIT)

with G = G_m + G_e; the task under analysis counts its own suspension in C_i + G_i. Bounds are
computed in priority order on each core (R_h is known when τi needs it); schedulable (proven) iff
R_i ≤ D_i for every task (D_i ≤ T_i). (JIT-B) with J = 0 for a task that never suspends is
rtsched's refinement (no job of such a task is pending when the core stops running
higher-priority work): its proof, and the proof of (JIT-S) for this model, are in the note.

A task's waiting mode is its own, else the analysis's: ``seg-jitter-suspend`` (default
``suspend``) and ``seg-jitter-busy`` (default ``busy``). Where every task ends up busy, (JIT)
is (OBL) of ``seg-oblivious`` row by row, so the verdicts are equal (held as a test). Where tasks
suspend, neither analysis dominates the other (the note has a worked pair, held as tests), except
that (JIT) dominates (OBL) when every suspending task has C + G_m ≤ G_e (proved in the note, held
as a test).

Layers: :func:`reference` (Python ints, through
:func:`rtsched.analyses.theory.jitter_rta.jitter_response`), :func:`explain` (per-task rows:
core, mode, own work, R and its terms, the X and J a task imposes below it, the failing term;
steps per core) and :func:`codes` (the family's Numba kernel). No work budget: each fixed-point
search climbs to at most D.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from rtsched.analyses.segmented._common import (
    RULE_JITTER,
    contention_free_codes,
    core_bounds,
    explain_bounds,
    mode_entry,
)
from rtsched.analyses.theory.jitter_rta import JitterRow
from rtsched.registry import Analysis
from rtsched.result import Explanation
from rtsched.segmented.model import SegmentedBatch, SegmentedTaskSet, WaitMode

__all__ = ["ANALYSES", "CITATION", "NOTE", "codes", "explain", "jitter_row", "reference"]

CITATION = (
    "J.-J. Chen et al., 'Many suspensions, many problems: a review of self-suspending tasks in real-time systems', "
    "Real-Time Systems 55(1), 2019 (suspension as release jitter J = R − C, proved by Chen, Nelissen, Huang, "
    "ECRTS 2016): R = (C + G) + Σ_hp ⌈(R + J_h)/T_h⌉ X_h, X_h = C_h + G_m_h and J_h = R_h − X_h for suspending h, "
    "X_h = C_h + G_h and J_h = 0 for busy h"
)
NOTE = "papers/chen2019-self-suspension-review.md"


def jitter_row(ts: SegmentedTaskSet, h: int, mode: str, R_h: int) -> JitterRow:
    """(JIT-S) for a suspending h (X = C + G_m, J = R_h − X), (JIT-B) for a busy one (X = C + G, J = 0).

    A task in suspend mode with G_e = 0 never suspends (every GPU segment is CPU-side work): (JIT-B),
    which for it has the same X and J = 0.
    """
    t = ts[h]
    if mode == "suspend" and t.G_e > 0:
        X = t.C + t.G_m
        return JitterRow(X=X, T=t.T, J=R_h - X)  # (JIT-S)
    return JitterRow(X=t.C + t.G, T=t.T, J=0)  # (JIT-B)


def reference(ts: SegmentedTaskSet, m: int, *, mode: WaitMode = "suspend") -> bool:
    """(JIT) on every core in priority order: True iff every task's least fixed point is at most its deadline."""
    bounds = core_bounds(ts, m, mode, jitter_row, stop=True)
    return all(b.ok for b in bounds)


def explain(ts: SegmentedTaskSet, m: int, *, mode: WaitMode = "suspend") -> Explanation:
    """Per-task rows (core, mode, own = C + G, R and its terms, the X and J it imposes below), failing term, steps."""
    return explain_bounds(
        ts,
        m,
        mode,
        jitter_row,
        what=f"jitter-based suspension-aware RTA (default mode {mode})",
        equation="(JIT)",
        rule_text=(
            "a suspending higher-priority task counts X = C + G_m with jitter J = R − X (JIT-S), "
            "a busy one X = C + G_m + G_e with J = 0 (JIT-B)"
        ),
    )


def codes(batch: SegmentedBatch, m: int, *, mode: WaitMode = "suspend") -> NDArray[np.int8]:
    """Codes per set (1 accept, 0 reject): the family kernel with (JIT-S)/(JIT-B)."""
    return contention_free_codes(batch, m, mode, RULE_JITTER)


def _entry(mode: WaitMode, order: float) -> Analysis:
    return mode_entry(
        mode,
        order,
        name=f"seg-jitter-{mode}",
        title=(
            "jitter-based suspension-aware RTA of CPU–GPU segmented tasks, no GPU contention "
            f"(tasks without a mode: {mode})"
        ),
        policy="partitioned-fp-gpu-none",
        citation=CITATION,
        note=NOTE,
        reference=reference,
        explain=explain,
        codes=codes,
        shares_kernels_with="seg-oblivious",
    )


ANALYSES = (_entry("suspend", 1), _entry("busy", 2))
