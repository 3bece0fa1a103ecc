"""Response-time analysis with limited carry-in for global fixed priorities, ``gfp-rta-lc``: Guan et al. (RTSS 2009).

N. Guan, M. Stigge, W. Yi, G. Yu, "New response time bounds for fixed priority multiprocessor
scheduling", RTSS 2009, Eq. (5)–(12) (limited carry-in: at most m − 1 tasks). Note:
papers/guan2009-rta-lc.md (the primary text was not reachable; equations and their numbers as
cited by SchedCAT's ``sched/fp/guan.py`` and EVA-rt-Engine, unverified).

Model: sporadic tasks τi = (C_i, D_i, T_i), integer time, constrained deadlines (C ≤ D ≤ T), m
identical processors, preemptive global fixed priorities (work-conserving). **Priority is the
order of the tasks in the set: task 0 has the highest priority**; hp(k) = {0, …, k − 1}. In
priority order, R_k is the least fixed point, iterating from x = C_k, of

    Ω_k(x) = Σ_{i<k} I^NC_i(x) + Σ_{(m−1) largest} (I^CI_i(x) − I^NC_i(x)),
    x = C_k + ⌊Ω_k(x)/m⌋                                                              (RTA-LC)

where I^X_i(x) = min(W^X_i(x), x − C_k + 1) (Eq. (7)–(8)), W^NC and W^CI the workload bounds of
``_workload.py`` (Eq. (5)–(6)); at most m − 1 tasks carry in. The set is accepted if every
R_k ≤ D_k.

The response-time pass (:func:`rta_iterate`, :class:`ResponseTimeRun`, :func:`rta_steps`, the
kernel ``_rta_set``) is shared with ``rta_fp.py`` (Bertogna & Cirinei's RTA) and lives in
``_common.py``; this module runs it with ``limited=True``.

Dominance (proved in the notes, property-tested): gfp-rta-lc ⊇ gfp-rta (``rta_fp.py``),
gfp-rta-lc ⊇ gfp-da-lc (``deadline_analysis.py``) (⊇: accepts every set the other accepts, with
the default budgets not running out).

Budget and exactness: those of the shared pass (``_common.py``): one unit is one evaluation of
the right side, and the kernel computes in int64 exactly what the reference computes.
"""

from __future__ import annotations

from rtsched.analyses.global_fp import _common
from rtsched.analyses.global_fp._common import DEFAULT_BUDGET, ResponseTimeRun, rta_iterate
from rtsched.budget import REFERENCE_WORK
from rtsched.kernels import REJECT, kernel, workspace_kernels
from rtsched.model import TaskSet
from rtsched.result import Explanation, Verdict

__all__ = ["ANALYSES", "DEFAULT_BUDGET", "ResponseTimeRun", "rta_iterate", "rta_lc_explain", "rta_lc_reference"]

CITE_RTA_LC = (
    "Guan, Stigge, Yi, Yu, 'New response time bounds for fixed priority multiprocessor scheduling', "
    "RTSS 2009, Eq. (5)-(12) (limited carry-in: at most m - 1 tasks)"
)


@_common.on_reduced_reference
def rta_lc_reference(
    ts: TaskSet, m: int, budget: int = DEFAULT_BUDGET, work_budget: int | None = REFERENCE_WORK
) -> Verdict:
    """Exact gfp-rta-lc verdict (True, False, or "unknown" when a budget runs out)."""
    return rta_iterate(ts, m, budget, True, work_budget).verdict


@_common.on_reduced_explain
def rta_lc_explain(
    ts: TaskSet, m: int, budget: int = DEFAULT_BUDGET, work_budget: int | None = REFERENCE_WORK
) -> Explanation:
    """Per-task response-time bounds (limited carry-in); the failing task with I^NC, I^CI terms."""
    return _common._rta_explain(ts, m, budget, True, work_budget)


@kernel(inline="always")
def _rta_lc_ws(C, D, T, m, budget, ints, floats):
    # D > T: decide the set with D'_i = min(D_i, T_i) (ints[3]), as the reference does.
    reduced = ints[3][: C.shape[0]]
    if not _common.reduced_deadlines_nb(C, D, T, reduced):
        return REJECT
    return _common._rta_set(C, reduced, T, m, budget, True, ints[0], ints[1], ints[2])


_rta_lc_kernel, _rta_lc_one = workspace_kernels(_rta_lc_ws, ints=4)


ANALYSES = (
    _common.rta_entry(
        name="gfp-rta-lc",
        title="Response-time analysis with limited carry-in (G-FP)",
        order=5,
        citation=CITE_RTA_LC,
        note="papers/guan2009-rta-lc.md",
        reference=rta_lc_reference,
        explain=rta_lc_explain,
        kernel=_rta_lc_kernel,
        one=_rta_lc_one,
    ),
)
