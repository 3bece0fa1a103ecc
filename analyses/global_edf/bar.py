"""BAR: Baruah's pseudo-polynomial global EDF test (RTSS 2007), integer-time correction; see papers/baruah2007.md.

S. Baruah, "Techniques for multiprocessor global schedulability analysis", RTSS 2007. For a
task τk whose job misses its deadline, A_k is the length of the interval before the job's
release during which all m processors are busy. The test (Condition (8); numbers as cited by
SchedCAT, the theorem number is unverified, see the note) checks for every k and A_k ≥ 0

    Σ_i I1(τi) + Σ_{(m−1) largest} I_DIFF(τi) ≤ m · (A_k + D_k − C_k)                    (8)

with, for t = A_k + D_k,

    I1(τi) = min(dbf(τi, t), A_k + D_k − C_k + 1)   (i ≠ k);   min(dbf(τk, t) − C_k, A_k)  (i = k)
    I2(τi) = same with dbf'(τi, t) = ⌊t/Ti⌋·Ci + min(Ci, t mod Ti) (a carry-in job)
    I_DIFF(τi) = I2(τi) − I1(τi).

The "+ 1" is Baruah's integer-time correction (published after the paper, quoted in SchedCAT's
``bar.py``): the job that misses executes strictly less than C_k, so the cap is
A_k + D_k − (C_k − ε) with ε = 1 for integer parameters. Only A_k below the bound of Eq. (9)

    A_k ≤ (C_Σ − D_k·(m − U) + Σ_i (T_i − D_i)·U_i + m·C_k) / (m − U)                      (9)

(C_Σ = sum of the m − 1 largest C_i) can violate (8); Eq. (9) needs U < m, so a set with
U ≥ m is rejected ("not proven"), as the theorem's precondition demands.

Which A_k are tested: every integer A_k in [0, ⌊bound⌋] — not only the dbf step points as
SchedCAT does (between steps the left side can grow faster than m per tick when several
I1 terms sit at their cap, so step points alone are not enough; papers/baruah2007.md has a
set where that matters). To stay fast we skip points that provably pass (:func:`next_A`): an
I1 term at its cap (κ of them) grows by at most one per tick, any other by at most its dbf
jumps, and the m − 1 largest I_DIFF by at most m − 1 per tick, so f(A) = LHS − RHS satisfies
f(A + δ) ≤ f(A) + (κ − 1)·δ + J(δ) with J the dbf jumps in (A + D_k, A + δ + D_k]; from a passing
point we jump to the first A + δ where that bound turns positive. The points (k, A_k) are
visited round-robin over k, densest task first (:func:`visiting_order`). The kernel visits the
same points with the same work count whenever the budget could run out; when the reference
provably finishes within the budget, it rejects at the first point or skips a task's whole
range by a bound (rtsched's shortcuts, proved in papers/baruah2007.md), so budgets and verdicts
coincide.

Work budget: at most ``budget`` work units per set — evaluations of (8) plus step points walked
by the skip rule (default :data:`DEFAULT_BUDGET`); when it runs out the verdict is "unknown"
(never False). The Python reference also stops at its work budget (:mod:`rtsched.budget`, n terms
per evaluation of (8) or walked step point), which only binds for large n.

Layers: :func:`analyse`/:func:`reference`/:func:`explain` (Python ints and Fractions),
``_bar_set`` (one set in int64 with an overflow guard, on caller-provided scratch; float only to
bound the range of A_k, with a margin; UNDECIDED where that margin or the guard matters, and the
registry re-decides those sets by the reference), ``_bar_one`` (the serial one-set kernel:
allocates the scratch) and ``_bar_kernel`` (prange over chunks of :data:`CHUNK` sets). Constrained
deadlines only (D ≤ T), as in the paper.

The search, the condition and the one-set kernel live in :mod:`rtsched.analyses.global_edf._bar_common`,
shared with ``bar-int`` (rtsched's integer-time tightening, papers/bar-int.md); this module calls
them with ``tight = 0``, i.e. Condition (8) and Eq. (9) exactly as above.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from rtsched.analyses.global_edf._bar_common import (
    CHUNK,
    DEFAULT_BUDGET,
    BarOutcome,
    all_sets,
    explain_outcome,
    next_A,
    one_set,
    run_serial,
    visiting_order,
)
from rtsched.analyses.global_edf._bar_common import ak_bounds as _ak_bounds
from rtsched.analyses.global_edf._bar_common import analyse as _analyse
from rtsched.analyses.global_edf._bar_common import condition_8 as _condition_8
from rtsched.budget import REFERENCE_WORK, Work
from rtsched.kernels import kernel
from rtsched.model import TaskSet
from rtsched.registry import Analysis
from rtsched.result import Explanation, Verdict

__all__ = [
    "ANALYSES",
    "CHUNK",
    "DEFAULT_BUDGET",
    "BarOutcome",
    "ak_bounds",
    "analyse",
    "condition_8",
    "explain",
    "next_A",
    "reference",
    "visiting_order",
]

CITATION = (
    "S. Baruah, 'Techniques for multiprocessor global schedulability analysis', RTSS 2007, "
    "Condition (8) for every A_k up to the bound of Eq. (9), with Baruah's integer-time correction "
    "(interference capped at A_k + D_k − C_k + 1)"
)


def ak_bounds(ts: TaskSet, m: int) -> list[Fraction]:
    """Eq. (9): the largest A_k that can violate Condition (8), for each k (needs U < m)."""
    return _ak_bounds(ts, m, 0)


def condition_8(ts: TaskSet, m: int, k: int, A: int, work: Work | None = None) -> tuple[int, int, list[int], list[int]]:
    """Both sides of Condition (8) for task k and interval A_k = A: (LHS, RHS, I1, I_DIFF)."""
    return _condition_8(ts, m, k, A, work, 0)


def analyse(ts: TaskSet, m: int, budget: int = DEFAULT_BUDGET, work_budget: int | None = REFERENCE_WORK) -> BarOutcome:
    """Run BAR exactly; the outcome carries the failing (k, A_k) or the work done.

    The points (k, A_k) are visited round-robin over k (one point of each task per round, as
    SchedCAT's C++ does) in :func:`visiting_order`, because violations are usually found at
    small A_k. ``work_budget`` caps the Python work (:mod:`rtsched.budget`): "unknown" past it.
    """
    return _analyse(ts, m, budget, work_budget, tight=0, label="(8)", name="BAR (Baruah 2007)")


def reference(ts: TaskSet, m: int, budget: int = DEFAULT_BUDGET, work_budget: int | None = REFERENCE_WORK) -> Verdict:
    """Exact BAR verdict: True, False (not proven) or "unknown" (a budget exhausted)."""
    return analyse(ts, m, budget, work_budget).verdict


def explain(ts: TaskSet, m: int, budget: int = DEFAULT_BUDGET, work_budget: int | None = REFERENCE_WORK) -> Explanation:
    """The failing (k, A_k) with both sides of (8), or the A_k bounds and the work done."""
    out = analyse(ts, m, budget, work_budget)
    return explain_outcome(ts, out, budget, work_budget, "(8)", "m·(A_k + D_k − C_k)", "Eq. (9)", m)


# --- kernels ---------------------------------------------------------------------------------
@kernel
def _bar_one(C, D, T, m, budget):
    return one_set(C, D, T, m, budget, np.int64(0))  # int64, not a literal: one compilation for bar and bar-int


@kernel
def _bar_kernel(C, D, T, offsets, m, budget, out):
    all_sets(C, D, T, offsets, m, budget, np.int64(0), out)


def _bar_serial(C, D, T, offsets, m, budget, out):  # the serial twin
    run_serial(C, D, T, offsets, m, budget, 0, out)


_bar_kernel.serial = _bar_serial


#: Why this analysis refuses arbitrary deadlines (D > T): ``rtsched list`` and ``check`` show it
#: (issue #47; papers/arbitrary-deadlines-reductions.md, "Global EDF").
ARBITRARY_WHY = (
    "needs constrained deadlines (D <= T): Baruah (RTSS 2007) is for D <= T; its D > T extension (Baker &"
    " Baruah, ECRTS 2008 / Real-Time Systems 43(1), 2009) could not be read to check its equations; use "
    "gfb or load"
)


ANALYSES = (
    Analysis(
        name="bar",
        title="Baruah 2007 (BAR), integer-time corrected",
        kind="sufficient",
        order=5,
        policy="global-edf",
        policy_order=0,
        citation=CITATION,
        note="papers/baruah2007.md",
        reference=reference,
        explain=explain,
        kernel=_bar_kernel,
        one=_bar_one,
        budget=DEFAULT_BUDGET,
        budget_unit="work units (evaluations of Condition (8) and walked step points)",
        compile_seconds=5.2,  # with bar-int (shares_kernels_with), 10.6 s before issue #46
        deadlines_note=ARBITRARY_WHY,
    ),
)
