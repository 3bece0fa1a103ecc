"""BAR-INT: rtsched's integer-time tightening of Baruah's BAR test (RTSS 2007); see papers/bar-int.md.

**This is rtsched's own result, not a published test.** The proof is in papers/bar-int.md; the
algebra is checked in papers/repro/bar_int_algebra.py; soundness is property-tested against the
exact global EDF test (``exact``, every tie-breaking rule) in tests/analyses/global_edf/test_bar_int.py.

Baruah's condition (S. Baruah, "Techniques for multiprocessor global schedulability analysis",
RTSS 2007, Condition (8), with his integer-time correction of the caps; papers/baruah2007.md)
compares the interference of a missed job with m·(A_k + D_k − C_k). In integer time the missed
job runs at most C_k − 1 whole ticks, and in each of the remaining A_k + D_k − (C_k − 1) ticks of
the window [t_0, d_k) all m processors run other jobs with deadlines ≤ d_k: the interference is at
least m·(A_k + D_k − C_k + 1) processor-ticks. Everything else of Baruah's argument carries over
(at most m − 1 tasks carry work into the window, because the tick before it has a processor not
running a job with deadline ≤ d_k). So a set is schedulable under global EDF on m identical
processors if, for every k and every integer A_k ≥ 0,

    Σ_i I1(τi) + Σ_{(m−1) largest} I_DIFF(τi) ≤ m·(A_k + D_k − C_k) + m − 1             (8-int)

with I1, I2, I_DIFF exactly as in ``bar`` (caps A_k + D_k − C_k + 1 for i ≠ k, A_k for i = k;
dbf for I1, Baruah's carry-in dbf' for I2). It is BAR with the right side raised by m − 1, so it
accepts every set BAR accepts (equal at m = 1). It is the condition behind ``gedf-mpr`` on m
dedicated processors ⟨1, m, m⟩ (DEM < m·t there; papers/shin-easwaran-lee2008-mpr.md).

Which A_k are tested: every integer A_k in [0, ⌊bound_k⌋] with the integer-time analogue of Eq. (9)
(derived in the note, checked with sympy)

    bound_k = (Y + C_Σ + (m − 1)·(C_k − 1)) / (m − U) − D_k,   Y = Σ_i (T_i − D_i)·U_i       (9-int)

(C_Σ = the m − 1 largest C_i); beyond it (8-int) holds. Like Eq. (9) it needs U < m: a set with
U ≥ m is "not proven". The skip rule, visiting order, budget and float margins are ``bar``'s
(:mod:`rtsched.analyses.global_edf.bar`); the shared code is :mod:`rtsched.analyses.global_edf._bar_common`, called here
with ``tight = 1``.

Work budget: at most ``budget`` work units per set (evaluations of (8-int) plus walked step
points, default 100,000); when it runs out the verdict is "unknown", never False. Constrained
deadlines only (D ≤ T).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from rtsched.analyses.global_edf._bar_common import (
    DEFAULT_BUDGET,
    BarOutcome,
    all_sets,
    explain_outcome,
    one_set,
    run_serial,
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
    "CITATION",
    "DEFAULT_BUDGET",
    "ak_bounds",
    "analyse",
    "condition",
    "explain",
    "reference",
]

CITATION = (
    "rtsched's integer-time tightening of Baruah, RTSS 2007 (BAR): Condition (8) with the "
    "integer-time caps A_k + D_k − C_k + 1 and the right side m·(A_k + D_k − C_k) + m − 1 "
    "(a missed job runs at most C_k − 1 ticks), for every A_k up to the integer analogue of "
    "Eq. (9); not a published test, proved in papers/bar-int.md"
)

#: The condition's name in explanations.
LABEL = "(8-int)"
_RHS_TEXT = "m·(A_k + D_k − C_k) + m − 1"
_BOUND = "(9-int)"


def ak_bounds(ts: TaskSet, m: int) -> list[Fraction]:
    """(9-int): the largest A_k that can violate (8-int), for each k (needs U < m).

    bound_k = (Y + C_Σ + (m − 1)(C_k − 1))/(m − U) − D_k, Y = Σ(T_i − D_i)U_i, C_Σ the m − 1
    largest C_i (papers/bar-int.md, "The range of A_k").
    """
    return _ak_bounds(ts, m, 1)


def condition(ts: TaskSet, m: int, k: int, A: int, work: Work | None = None) -> tuple[int, int, list[int], list[int]]:
    """Both sides of (8-int) for task k and A_k = A: (LHS, RHS, I1, I_DIFF).

    LHS = Σ_i I1(τi) + Σ_{m−1 largest} I_DIFF(τi) (Baruah 2007, Condition (8), integer caps);
    RHS = m·(A_k + D_k − C_k) + m − 1 (papers/bar-int.md, Theorem 1).
    """
    return _condition_8(ts, m, k, A, work, 1)


def analyse(ts: TaskSet, m: int, budget: int = DEFAULT_BUDGET, work_budget: int | None = REFERENCE_WORK) -> BarOutcome:
    """Run (8-int) exactly over every k and A_k ≤ (9-int); the failing (k, A_k) or the work done."""
    return _analyse(ts, m, budget, work_budget, tight=1, label=LABEL, name="bar-int")


def reference(ts: TaskSet, m: int, budget: int = DEFAULT_BUDGET, work_budget: int | None = REFERENCE_WORK) -> Verdict:
    """Exact verdict of (8-int): True, False (not proven) or "unknown" (a budget exhausted)."""
    return analyse(ts, m, budget, work_budget).verdict


def explain(ts: TaskSet, m: int, budget: int = DEFAULT_BUDGET, work_budget: int | None = REFERENCE_WORK) -> Explanation:
    """The failing (k, A_k) with both sides of (8-int), or the A_k bounds (9-int) and the work done."""
    out = analyse(ts, m, budget, work_budget)
    return explain_outcome(ts, out, budget, work_budget, LABEL, _RHS_TEXT, _BOUND, m)


# --- kernels ---------------------------------------------------------------------------------
@kernel
def _bar_int_one(C, D, T, m, budget):
    return one_set(C, D, T, m, budget, np.int64(1))  # int64, not a literal: one compilation for bar and bar-int


@kernel
def _bar_int_kernel(C, D, T, offsets, m, budget, out):
    all_sets(C, D, T, offsets, m, budget, np.int64(1), out)


def _bar_int_serial(C, D, T, offsets, m, budget, out):  # the serial twin
    run_serial(C, D, T, offsets, m, budget, 1, out)


_bar_int_kernel.serial = _bar_int_serial


#: Why this analysis refuses arbitrary deadlines (D > T): ``rtsched list`` and ``check`` show it
#: (issue #47; papers/arbitrary-deadlines-reductions.md, "Global EDF").
ARBITRARY_WHY = (
    "needs constrained deadlines (D <= T): BAR (Baruah, RTSS 2007) is for D <= T; its D > T extension "
    "(Baker & Baruah, Real-Time Systems 43(1), 2009) could not be read to check its equations; use gfb or"
    " load"
)


ANALYSES = (
    Analysis(
        name="bar-int",
        title="BAR in integer time (rtsched's tightening of Baruah 2007)",
        kind="sufficient",
        order=5.5,
        policy="global-edf",
        policy_order=0,
        citation=CITATION,
        note="papers/bar-int.md",
        reference=reference,
        explain=explain,
        kernel=_bar_int_kernel,
        one=_bar_int_one,
        budget=DEFAULT_BUDGET,
        budget_unit="work units (evaluations of Condition (8-int) and walked step points)",
        deadlines_note=ARBITRARY_WHY,
        shares_kernels_with="bar",  # one compilation of _bar_common's kernels serves both
    ),
)
