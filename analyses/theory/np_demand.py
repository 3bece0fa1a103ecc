"""Shared non-preemptive EDF machinery (George, Rivierre, Spuri 1996); see papers/george-rivierre-spuri1996-npedf.md.

Private module (not an analysis): the exact reference :func:`npedf_trace`, the serial int64 kernel
:func:`npedf_one` for one set with per-task non-preemptive flags and a blocking model, and
:func:`npedf_codes` (a ``prange`` batch over sets with such flags). The registered analysis
``uni-npedf`` (:mod:`rtsched.analyses.uniprocessor.np_edf`, every task non-preemptive, tick blocking) and the GPU
model's per-partition test (:mod:`rtsched.analyses.gpu.partitioning`, mixed sets) both build on it.

Condition (NP-EDF): U ≤ 1 and, at every absolute deadline t of the synchronous pattern with
t < L (L the synchronous busy period),

    h(t) + B(t) ≤ t,      B(t) = max{C_j − δ : D_j > t, j non-preemptive}   (0 if no such task)

with h(t) = Σ_i max(0, ⌊(t − D_i)/T_i⌋ + 1)·C_i; δ = 1 in integer time (``blocking="tick"``, a
blocking job started one tick before the interval), δ = 0 in dense time (``blocking="dense"``,
sound and exact in dense time). With no non-preemptive task the condition is the preemptive
processor-demand criterion (Baruah, Rosier, Howell 1990), exact as well.

Work budget (``budget``): one step is one iteration of the busy-period function or one checked
deadline; when ``budget`` steps are spent the verdict is "unknown", never False, in both layers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal

import numpy as np
from numba import prange
from numpy.typing import NDArray

from rtsched.analyses.theory.edf_demand import deadline_steps, utilization_vs_one
from rtsched.budget import REFERENCE_WORK, Work, WorkExhausted
from rtsched.errors import InputError
from rtsched.kernels import (
    ACCEPT,
    REJECT,
    UNDECIDED,
    UNKNOWN,
    batch_kernel,
    deadline_step,
    kernel,
    redecide_by,
)
from rtsched.model import TaskSetBatch, fraction_sum
from rtsched.result import UNKNOWN as UNKNOWN_VERDICT
from rtsched.result import Verdict

__all__ = [
    "DEFAULT_BUDGET",
    "Blocking",
    "NPTrace",
    "blocking_delta",
    "blocking_term",
    "npedf_codes",
    "npedf_one",
    "npedf_trace",
]

#: Default work budget (busy-period iterations plus checked deadlines).
DEFAULT_BUDGET = 10**6
#: Busy-period values at or above this are not handled in int64 (kernel answers UNDECIDED).
_LIMIT = 2**62

Blocking = Literal["tick", "dense"]
Rows = Sequence[tuple[int, int, int]]


def blocking_delta(blocking: str) -> int:
    """δ of the blocking model: 1 for ``"tick"``, 0 for ``"dense"``."""
    if blocking == "tick":
        return 1
    if blocking == "dense":
        return 0
    raise InputError(f"unknown blocking model {blocking!r}; choose 'tick' or 'dense'", field="blocking")


# ---------------------------------------------------------------------------------------------
# Reference: Python ints, mirroring the condition (NP-EDF) above.
# ---------------------------------------------------------------------------------------------


def blocking_term(rows: Rows, nonpreemptive: Sequence[bool], t: int, delta: int = 1) -> tuple[int, int | None]:
    """B(t) = max{C_j − δ : D_j > t, j non-preemptive} and its task (or (0, None)) [GRS 1996, NP-EDF].

    δ = 1 in integer time (``blocking="tick"``), 0 in dense time. Ties go to the lowest index.
    """
    best, who = 0, None
    for j, ((c, d, _), np_j) in enumerate(zip(rows, nonpreemptive, strict=True)):
        if np_j and d > t and c - delta > best:
            best, who = c - delta, j
    return best, who


@dataclass(frozen=True)
class NPTrace:
    """What the non-preemptive EDF test found on one task set.

    Attributes
    ----------
    verdict:
        True, False or "unknown" (work budget exhausted).
    reason:
        ``"U>1"``, ``"violation"``, ``"all-checked"``, ``"budget"`` or ``"work"`` (the reference's
        Python work budget, :mod:`rtsched.budget`, which binds only for large n).
    utilization:
        U, exactly.
    L:
        The synchronous busy period (None when not reached).
    t, h, B, blocker:
        On a violation: the first deadline t with h(t) + B(t) > t, the demand, the blocking and
        the blocking task (None if B = 0). On success: the last deadline checked.
    steps:
        Work spent (module docstring).
    """

    verdict: Verdict
    reason: str
    utilization: Fraction
    L: int | None
    t: int | None
    h: int | None
    B: int | None
    blocker: int | None
    steps: int


def npedf_trace(
    rows: Rows,
    nonpreemptive: Sequence[bool] | None = None,
    budget: int = DEFAULT_BUDGET,
    blocking: Blocking = "tick",
    work_budget: int | None = REFERENCE_WORK,
    trace: list[tuple[Any, ...]] | None = None,
) -> NPTrace:
    """Condition (NP-EDF) on ``[(C, D, T), ...]``; ``nonpreemptive[i]`` (default: all True).

    Steps: U > 1 rejects; L = least fixed point of W(w) = Σ⌈w/T_i⌉C_i from w = ΣC_i; then every
    absolute deadline t < L in increasing order is checked for h(t) + B(t) ≤ t. ``trace`` (for
    the steps of an explanation) receives ``("w", w)`` for each iterate of the busy period and
    ``("t", t, h, B, blocker)`` for each deadline checked.
    """
    rows = [(int(c), int(d), int(p)) for c, d, p in rows]
    flags = [True] * len(rows) if nonpreemptive is None else [bool(x) for x in nonpreemptive]
    delta = blocking_delta(blocking)
    U = fraction_sum(Fraction(c, p) for c, _, p in rows)
    if U > 1:
        return NPTrace(False, "U>1", U, None, None, None, None, None, 0)
    steps = 0
    w = sum(c for c, _, _ in rows)
    work = Work(work_budget)
    L = None
    if trace is not None:
        trace.append(("w", w))
    try:
        while True:
            if steps >= budget:
                return NPTrace(UNKNOWN_VERDICT, "budget", U, None, None, None, None, None, steps)
            work.spend(len(rows))
            steps += 1
            w2 = sum(-(-w // p) * c for c, _, p in rows)
            if trace is not None:
                trace.append(("w", w2))
            if w2 == w:
                break
            w = w2
        L = w
        t = None
        for t_next, h in deadline_steps(rows):
            if t_next >= L:
                break
            if steps >= budget:
                return NPTrace(UNKNOWN_VERDICT, "budget", U, L, t_next, None, None, None, steps)
            work.spend(len(rows))
            steps += 1
            t = t_next
            B, who = blocking_term(rows, flags, t, delta)
            if trace is not None:
                trace.append(("t", t, h, B, who))
            if h + B > t:
                return NPTrace(False, "violation", U, L, t, h, B, who, steps)
    except WorkExhausted:
        return NPTrace(UNKNOWN_VERDICT, "work", U, L, None, None, None, None, steps)
    return NPTrace(True, "all-checked", U, L, t, None, None, None, steps)


# ---------------------------------------------------------------------------------------------
# Kernels: int64, same steps and budget as the reference.
# ---------------------------------------------------------------------------------------------


@kernel
def npedf_one(C, D, T, NP, delta, budget):
    """Condition (NP-EDF) on one set: int64 C, D, T; bool NP; δ ∈ {0, 1} -> verdict code.

    ACCEPT/REJECT as :func:`npedf_trace`; UNKNOWN when the budget is spent; UNDECIDED when the
    busy period leaves the int64 range (the caller then asks the reference).
    """
    return npedf_ws(C, D, T, NP, delta, budget, np.empty(C.shape[0], dtype=np.int64))


@kernel(counted=False)
def npedf_ws(C, D, T, NP, delta, budget, scratch):
    """:func:`npedf_one` with the deadline walk's row in ``scratch`` (int64, ≥ n long, the caller's).

    It allocates nothing and returns a number, so it runs uncounted (:func:`rtsched.kernels.kernel`);
    ``NP`` may be any array whose entries are true for the non-preemptive tasks.
    """
    n = C.shape[0]
    ucmp = utilization_vs_one(C, T, n)
    if ucmp == 2:
        return UNDECIDED
    if ucmp == 1:
        return REJECT
    steps = np.int64(0)
    w = np.int64(0)
    for i in range(n):
        w += C[i]
    while True:
        if steps >= budget:
            return UNKNOWN
        if w > _LIMIT:
            return UNDECIDED
        steps += 1
        w2 = np.int64(0)
        for i in range(n):
            w2 += (w + T[i] - 1) // T[i] * C[i]  # ≤ w + C_i because U ≤ 1
        if w2 == w:
            break
        w = w2
    L = w
    nxt = scratch[:n]
    for i in range(n):
        nxt[i] = D[i]
    h = np.int64(0)
    while True:
        t, at_t = deadline_step(C, T, nxt)  # the next absolute deadline and the demand added there
        if t >= L:
            return ACCEPT
        if steps >= budget:
            return UNKNOWN
        steps += 1
        h += at_t
        B = np.int64(0)
        for j in range(n):
            if NP[j] and D[j] > t and C[j] - delta > B:
                B = C[j] - delta
        if h + B > t:
            return REJECT


@batch_kernel
def _npedf_flags_kernel(C, D, T, NP, offsets, delta, budget, out):
    for s in prange(out.shape[0]):
        lo, hi = offsets[s], offsets[s + 1]
        out[s] = npedf_one(C[lo:hi], D[lo:hi], T[lo:hi], NP[lo:hi], delta, budget)


def npedf_codes(
    batch: TaskSetBatch,
    nonpreemptive: NDArray[np.bool_] | None = None,
    budget: int = DEFAULT_BUDGET,
    blocking: Blocking = "tick",
) -> NDArray[np.int8]:
    """Codes (1 schedulable, 0 not, −1 unknown) of condition (NP-EDF) for every set of ``batch``.

    ``nonpreemptive`` is a flat bool array aligned with ``batch.C`` (default: every task), so
    sets may mix preemptive and non-preemptive tasks; the registered ``uni-npedf`` is the case
    "every task non-preemptive, tick blocking". Int64 overflows are re-decided by
    :func:`npedf_trace`.
    """
    delta = blocking_delta(blocking)
    flags = (
        np.ones(batch.C.shape[0], dtype=np.bool_)
        if nonpreemptive is None
        else np.ascontiguousarray(nonpreemptive, dtype=np.bool_)
    )
    if flags.shape != batch.C.shape:
        raise InputError("nonpreemptive must have one flag per task of the batch")
    out = np.empty(batch.n_sets, dtype=np.int8)
    if batch.n_sets:
        _npedf_flags_kernel(batch.C, batch.D, batch.T, flags, batch.offsets, np.int64(delta), np.int64(budget), out)

    def decide(s: int) -> Verdict:
        lo, hi = int(batch.offsets[s]), int(batch.offsets[s + 1])
        return npedf_trace(batch[s].rows(), flags[lo:hi].tolist(), budget, blocking).verdict

    return redecide_by(out, decide)
