"""Response-time analysis for global fixed priorities, ``gfp-rta``: Bertogna & Cirinei (RTSS 2007).

M. Bertogna, M. Cirinei, "Response-time analysis for globally scheduled symmetric multiprocessor
platforms", RTSS 2007, the fixed-priority form (workload Eq. (4)/(8) with the response-time bounds
R_i). Note: papers/bertogna-cirinei2007.md, section "Fixed priorities" (the primary text was not
reachable; the formulas are as SchedCAT's ``sched/fp/bertogna.py`` and the Prosa formalisation
state them; equation numbers unverified).

Model: sporadic tasks τi = (C_i, D_i, T_i), integer time, constrained deadlines (C ≤ D ≤ T), m
identical processors (arbitrary deadlines D > T: the set with D'_i = min(D_i, T_i) is decided,
rtsched's reduction, papers/arbitrary-deadlines-reductions.md, Theorem 1; ``_common.py``), preemptive global fixed priorities (work-conserving). **Priority is the
order of the tasks in the set: task 0 has the highest priority**; hp(k) = {0, …, k − 1}. In
priority order, R_k is the least fixed point, iterating from x = C_k, of

    x = C_k + ⌊(1/m) Σ_{i<k} min(W^R_i(x), x − C_k + 1)⌋                              (RTA-FP)

with W^R_i the workload bound of ``_workload.py`` with the response-time bounds R_i of the
higher-priority tasks; the set is accepted if every R_k ≤ D_k (one pass suffices under FP: τk
depends only on hp(k)).

The response-time pass (:func:`rta_iterate`, :class:`ResponseTimeRun`, :func:`rta_steps`, the
kernel ``_rta_set``) is shared with ``rta_lc.py`` (Guan et al.'s limited carry-in) and lives in
``_common.py``; this module runs it with ``limited=False``.

Dominance (proved in the notes, property-tested): gfp-rta ⊇ gfp-da (``deadline_analysis.py``)
⊇ gfp-bcl (``bcl_fp.py``), gfp-rta-lc ⊇ gfp-rta (``rta_lc.py``) (⊇: accepts every set the other
accepts, with the default budgets not running out).

Budget and exactness: those of the shared pass (``_common.py``): one unit is one evaluation of
the right side, and the kernel computes in int64 exactly what the reference computes.
"""

from __future__ import annotations

from rtsched.analyses.global_fp import _common
from rtsched.analyses.global_fp._common import DEFAULT_BUDGET, ResponseTimeRun, rta_iterate, rta_steps, rta_terms
from rtsched.budget import REFERENCE_WORK
from rtsched.kernels import REJECT, kernel, workspace_kernels
from rtsched.model import TaskSet
from rtsched.result import Explanation, Verdict

__all__ = [
    "ANALYSES",
    "DEFAULT_BUDGET",
    "ResponseTimeRun",
    "rta_explain",
    "rta_iterate",
    "rta_reference",
    "rta_steps",
    "rta_terms",
]

CITE_RTA = (
    "Bertogna, Cirinei, 'Response-time analysis for globally scheduled symmetric multiprocessor platforms', "
    "RTSS 2007 (FP response-time bound, workload Eq. (4)/(8) with R_i)"
)


@_common.on_reduced_reference
def rta_reference(
    ts: TaskSet, m: int, budget: int = DEFAULT_BUDGET, work_budget: int | None = REFERENCE_WORK
) -> Verdict:
    """Exact gfp-rta verdict (True, False, or "unknown" when a budget runs out)."""
    return rta_iterate(ts, m, budget, False, work_budget).verdict


@_common.on_reduced_explain
def rta_explain(
    ts: TaskSet, m: int, budget: int = DEFAULT_BUDGET, work_budget: int | None = REFERENCE_WORK
) -> Explanation:
    """Per-task response-time bounds; the failing task with its interference terms."""
    return _common._rta_explain(ts, m, budget, False, work_budget)


@kernel(inline="always")
def _rta_ws(C, D, T, m, budget, ints, floats):
    # D > T: decide the set with D'_i = min(D_i, T_i) (ints[3]), as the reference does.
    reduced = ints[3][: C.shape[0]]
    if not _common.reduced_deadlines_nb(C, D, T, reduced):
        return REJECT
    return _common._rta_set(C, reduced, T, m, budget, False, ints[0], ints[1], ints[2])


_rta_kernel, _rta_one = workspace_kernels(_rta_ws, ints=4)


ANALYSES = (
    _common.rta_entry(
        name="gfp-rta",
        title="Response-time analysis (G-FP)",
        order=4,
        citation=CITE_RTA,
        note="papers/bertogna-cirinei2007.md",
        reference=rta_reference,
        explain=rta_explain,
        kernel=_rta_kernel,
        one=_rta_one,
    ),
)
