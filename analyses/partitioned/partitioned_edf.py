"""Partitioned EDF: bin-packing heuristics × task orders × per-processor admission tests.

One parametrised family ``p:<fit>:<order>:<admission>`` (48 members) plus featured entries:

* ``p-edf`` = ``p:ff:density:qpa`` (first fit, decreasing density, exact QPA admission);
* ``baruah-fisher`` = ``p:ff:deadline:dbfstar``: the deadline-monotonic first fit with the dbf*
  admission of Baruah & Fisher, "The partitioned multiprocessor scheduling of deadline-constrained
  sporadic task systems", IEEE TC 55(7), 2006 (RTSS 2005), Eq. (5)-(6): a task fits on a processor
  if D_i − Σ dbf*(τ_j, D_i) ≥ C_i and 1 − ΣU_j ≥ U_i (papers/baruah-fisher2006.md);
* ``p:wf:density:qpa`` (worst fit; used by the standard sweep).

Parameters (papers/partitioned-heuristics.md):

fit
    ``ff`` first fit (lowest-index processor that admits the task); ``nf`` next fit (the current
    processor, then the following ones, never back); ``bf`` best fit and ``wf`` worst fit, which
    measure remaining capacity by **utilization**: bf takes the admitting processor with the
    largest current utilization (least capacity left), wf the one with the smallest; ties go to
    the lowest processor index. Utilizations are compared exactly (Fractions in the reference;
    float with a proven margin and an exact rational tie-break in the kernel), so the kernel
    chooses the same processor as the reference, ties included.
order
    ``input``; ``density`` (C/min(D, T), decreasing); ``utilization`` (C/T, decreasing);
    ``deadline`` (D, increasing). Ties keep the input order, so results are deterministic.
admission
    ``density``: Σ C/min(D, T) ≤ 1 on the processor; ``dbfstar``: U ≤ 1 and Σ_j dbf*(τ_j, t) ≤ t
    at every deadline D_k on the processor (in deadline order this is exactly Baruah & Fisher's
    condition; in other orders the whole processor is rechecked, which keeps it sound);
    ``qpa``: the exact uniprocessor EDF test, in this order: U > 1 refuses; density ≤ 1
    accepts; the processor's *refusal cache* refuses a candidate that misses where an earlier
    candidate missed on it (h_P(t_w) + dbf(τ, t_w) > t_w, with t_w that deadline and h_P(t_w)
    the demand of the processor's own tasks, kept up to date as it grows); one sweep over the relative deadlines D_j in increasing order finds where
    Σ dbf*(D_j) > D_j and there evaluates h(D_j): h(D_j) > D_j refuses at once (a real miss);
    if Σ dbf* ≤ t at every deadline (the dbf* test), it accepts; else QPA (Zhang & Burns, IEEE
    TC 58(9), 2009) as rtsched runs it in an admission (:func:`qpa_admission`): from
    max{d < L'}, with L' the next relative deadline above the last D_j where Σ dbf* exceeds D_j
    (⌈L_a⌉ if there is none and U < 1, the busy period L_b if U = 1), stopping with "schedulable"
    as soon as h(t) ≤ the first such D_j; at most ``qpa_steps`` QPA steps per admission. The
    cache and both bounds are rtsched's, proved in papers/partitioned-heuristics.md; every
    decision is the exact test's.

Budget. Deciding an admission exactly costs time proportional to k, the tasks on the processor,
and first fit retries the same nearly full processors for every later task, so a set of 5,000
tasks took minutes (near U = 1 QPA may need millions of steps). Each set therefore has a
``budget`` of *demand terms* (default :data:`PACKING_BUDGET`; the registry's one ``budget``),
spent by the dbfstar and qpa admissions that U ≤ 1 and density ≤ 1 cannot decide, k terms per
evaluation over the processor's k tasks (the candidate included): k for the dbf* sweep, k for
each deadline D_j where Σ dbf*(D_j) > D_j and h(D_j) is evaluated (in increasing order, up to
the first miss), and k per QPA step of :func:`qpa_admission` (one h(t), or one iteration of the
busy period when U = 1), QPA getting min(qpa_steps, ⌊left/k⌋) steps and running only if that is
at least one. The U and density checks and the refusal cache are free. An admission the remaining budget cannot pay
is "unknown" (a refusal). The kernel and the reference count identically.

``qpa_steps``, the cap of one admission (so that one processor cannot spend the whole budget), is
derived from the budget: ``max(1, budget // QPA_SHARE)`` (:func:`qpa_steps_for`), 10**6 steps at
the default budget of 10**8 terms. Raising ``budget`` therefore raises both limits, and a verdict
that a budget made "unknown" can always be decided with a larger one. Tests and internal callers
may pass ``qpa_steps`` explicitly.

Every admission test is a sufficient (density, dbf*) or exact (QPA) uniprocessor EDF test, so
an assignment that places every task proves the set schedulable under partitioned EDF: the
family is *sufficient*. A QPA admission that exhausts its budget counts as a refusal; if the set
then fails to pack, the verdict is "unknown" rather than False.

At most n processors can ever be used and they are always a prefix P0, P1, … (an empty
processor is never preferred to a lower-index empty one), so the kernel works on min(m, n)
processors; the verdicts are those of all m.

Layers: :func:`pack` is the exact reference (Fractions), with a Python work budget
(:mod:`rtsched.budget`) that makes it answer "unknown" on large sets (the packing loop is the
family's :class:`~rtsched.analyses.partitioned._packing.Packer`, given this module's admission tests);
``_pack_set`` (in ``analyses/partitioned/_pedf_kernel.py``) is the kernel of one set, ``_pack_sets`` the
serial kernel of a run of sets that inlines it (the registry's ``one`` runs it on its set),
whose verdicts and assignments equal :func:`pack`'s (property-tested), and
``_pack_kernel`` its ``prange`` driver over a batch (the family's ``codes``: one shared kernel
with the fit, order and admission as arguments).
:func:`explain_family` takes the packing from the kernel, so it decides sets of thousands of
tasks in seconds, and computes the evidence of each processor exactly within the work budget.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction

import numba
import numpy as np
from numba import prange
from numpy.typing import NDArray

from rtsched.analyses.partitioned import _packing
from rtsched.analyses.partitioned._packing import FITS, ORDERS, Rows, preference, task_order
from rtsched.analyses.partitioned._pedf_kernel import _FLOAT_ROWS, _INT_ROWS, _pack_sets, _workspace
from rtsched.analyses.theory import edf_demand as dm
from rtsched.analyses.theory.edf_demand import (
    dbf_star_check,
    qpa_trace,
)
from rtsched.analyses.theory.workload import largest_set
from rtsched.budget import REFERENCE_WORK, Work, WorkExhausted
from rtsched.kernels import (
    ACCEPT,
    UNDECIDED,
    UNKNOWN,
    batch_kernel,
    verdict_code,
)
from rtsched.model import TaskSet, TaskSetBatch, fraction_sum
from rtsched.registry import Analysis
from rtsched.result import UNKNOWN as UNKNOWN_VERDICT
from rtsched.result import Explanation, Step, Verdict, count, show_number

__all__ = [
    "ADMISSIONS",
    "ANALYSES",
    "FAMILIES",
    "FAMILY_NAMES",
    "FITS",
    "ORDERS",
    "PACKING_BUDGET",
    "QPA_SHARE",
    "Packing",
    "assignments",
    "build",
    "pack",
    "qpa_steps_for",
    "task_order",
]

ADMISSIONS = ("density", "dbfstar", "qpa")
#: Every member of the family, in a stable order.
FAMILY_NAMES = _packing.family_names(ADMISSIONS)
PATTERN = _packing.family_pattern(ADMISSIONS)

CITATION_BF = (
    "Baruah, Fisher, 'The partitioned multiprocessor scheduling of deadline-constrained sporadic "
    "task systems', IEEE Transactions on Computers 55(7), 2006 (RTSS 2005), Eq. (5)-(6), dbf* Eq. (3)"
)
CITATION_QPA = "Zhang, Burns, 'Schedulability analysis for real-time systems with EDF scheduling', IEEE TC 58(9), 2009"
CITATION_PACKING = (
    "bin-packing heuristics for partitioned EDF (first/best/worst/next fit; e.g. Lopez, Diaz, "
    "Garcia, Real-Time Systems 28(1), 2004; Baruah & Fisher 2006) - see papers/partitioned-heuristics.md"
)

# ---------------------------------------------------------------------------------------------
# Reference: exact Fractions.
# ---------------------------------------------------------------------------------------------


def _utilization(rows: Rows, work: Work | None = None) -> Fraction:
    if work is not None:
        work.spend(len(rows))
    total = fraction_sum(Fraction(c, p) for c, _, p in rows)
    if work is not None:
        work.spend_size(len(rows), total)
    return total


def _loads(bins: list[list[int]], rows: Rows, work: Work | None) -> list[Fraction]:
    """The utilization of each processor (best and worst fit compare them)."""
    return [_utilization([rows[j] for j in b], work) for b in bins]


def _density(rows: Rows, work: Work | None = None) -> Fraction:
    if work is not None:
        work.spend(len(rows))
    total = fraction_sum(Fraction(c, min(d, p)) for c, d, p in rows)
    if work is not None:
        work.spend_size(len(rows), total)
    return total


#: Default budget of a whole packing, in demand terms (module docstring): about a second or two
#: of kernel time.
PACKING_BUDGET = 10**8
#: What the packing budget counts (module docstring, "Budget").
BUDGET_UNIT = "demand terms per set (k per dbf* sweep, h(t) or QPA step on a processor of k tasks)"
#: One admission may take at most ``budget // QPA_SHARE`` QPA steps (module docstring).
QPA_SHARE = 100


def _unpaid(left: int, k: int, what: str) -> str:
    """Why an admission stayed undecided: the budget left cannot pay its next evaluation."""
    return (
        f"undecided, {what} costs {count(k, 'demand term')} and the packing budget has {left} left "
        "(the free checks, U ≤ 1 and density ≤ 1, did not decide)"
    )


def qpa_steps_for(budget: int) -> int:
    """The QPA step cap of one admission under a packing ``budget``: max(1, budget // QPA_SHARE)."""
    return max(1, int(budget) // QPA_SHARE)


#: A deadline t where a candidate missed on a processor and the demand h_P(t) of the
#: processor's own tasks there (the refusal cache of the qpa admission; module docstring).
Witness = tuple[int, int]


def admit(
    rows: Rows,
    admission: str,
    qpa_steps: int = PACKING_BUDGET // QPA_SHARE,
    work: Work | None = None,
    left: int | None = None,
    witness: Witness | None = None,
) -> tuple[Verdict, str, int, tuple[int, int] | None]:
    """May one EDF processor hold ``rows`` (its tasks, then the candidate)? (verdict, why not, spent, miss).

    ``qpa_steps`` is the QPA step cap of an admission, ``left`` what remains of the packing
    budget (None: no limit) and ``spent`` the demand terms this admission took from it (module
    docstring). ``witness`` (qpa): the processor's cached miss, refusing for free a candidate
    that misses there too. ``miss`` is (t, h(t)) with h(t) > t when a refusal found a deadline
    miss, else None. ``work`` (optional) is the Python work budget; it may raise
    :class:`~rtsched.budget.WorkExhausted`.
    """
    k = len(rows)
    U = _utilization(rows, work)
    if admission == "density":
        lam = _density(rows, work)
        return (True, "", 0, None) if lam <= 1 else (False, f"density would be {show_number(lam)} > 1", 0, None)
    if U > 1:
        return False, f"U would be {show_number(U)} > 1", 0, None
    if _density(rows, work) <= 1:
        return True, "", 0, None  # density ≤ 1 implies the dbf* test and the exact test
    if admission == "qpa" and witness is not None:
        t, own = witness
        h = own + dm.dbf(*rows[-1], t)
        if h > t:
            return False, f"h({t}) = {h} > {t} (where a task missed before)", 0, (t, h)
    if left is not None and left < k:
        return UNKNOWN_VERDICT, _unpaid(left, k, "dbf*"), 0, None
    spent = k  # the dbf* test at every deadline
    ok, _, t, value = dbf_star_check(rows, work)
    if ok:
        return True, "", spent, None
    if admission == "dbfstar":
        return False, f"dbf*(t={t}) = {show_number(value)} > {t}", spent, None
    if admission != "qpa":
        raise ValueError(f"unknown admission {admission!r}")
    # A miss at a deadline refuses at once (as QPA would find it). h ≤ Σ dbf*, so only the
    # deadlines where Σ dbf*(t) > t are evaluated, in increasing order, k terms each.
    excess = dbf_star_excess(rows, work)
    for t in excess:
        if left is not None and left - spent < k:
            return UNKNOWN_VERDICT, _unpaid(left - spent, k, f"h({t})"), spent, None
        spent += k
        if work is not None:
            work.spend(k)
        h = dm.demand(rows, t)
        if h > t:
            return False, f"h({t}) = {h} > {t}", spent, (t, h)
    steps = qpa_steps if left is None else min(qpa_steps, max(left - spent, 0) // k)
    if steps == 0:
        return UNKNOWN_VERDICT, _unpaid(max(left - spent, 0) if left is not None else 0, k, "a QPA step"), spent, None
    verdict, qt, qh, used = qpa_admission(rows, excess[0], excess[-1], steps, work)
    spent += used * k
    if verdict is True:
        return True, "", spent, None
    if verdict is False:
        assert qt is not None and qh is not None
        return False, f"h({qt}) = {qh} > {qt} (QPA)", spent, (qt, qh)
    return UNKNOWN_VERDICT, f"QPA budget of {count(steps, 'step')} exhausted", spent, None


def qpa_admission(
    rows: Rows, first: int, last: int, steps: int, work: Work | None = None
) -> tuple[Verdict, int | None, int | None, int]:
    """QPA as the admission runs it (rtsched's; papers/partitioned-heuristics.md): (verdict, t, h(t), steps).

    ``first`` and ``last`` are the smallest and largest relative deadlines D_i of ``rows`` with
    Σ dbf*(D_i) > D_i (where h(D_i) ≤ D_i was already found), U ≤ 1 and ``steps`` the step cap.
    No deadline t ≥ L' can miss, with L' the next relative deadline above ``last``, or if there
    is none ⌈L_a⌉ (U < 1) or the busy period L_b (U = 1, its iterations count as steps), and
    none below ``first``: QPA (Zhang & Burns 2009) runs from max{d < L'} and accepts as soon as
    h(t) ≤ ``first``. On a miss, t and h(t) are the witness; "unknown" past ``steps`` steps.
    """
    used = 0
    above = [d for _, d, _ in rows if d > last]
    if above:
        bound: Fraction | int = min(above)
    else:
        La = dm.grs_bound(rows)
        if La is not None:  # U < 1
            bound = La
        else:  # U = 1: the synchronous busy period, iterated as QPA's prologue does
            _, _, L, used, exhausted = dm.demand_bound(rows, steps, work)
            if exhausted:
                return UNKNOWN_VERDICT, None, None, used
            assert L is not None
            bound = L
    ceiling = -(-Fraction(bound).numerator // Fraction(bound).denominator)
    t = dm.prev_deadline(rows, ceiling)  # max{d < L'}: for integer d, d < L' iff d < ⌈L'⌉
    if t is None:
        return True, None, None, used
    while True:
        if used >= steps:
            return UNKNOWN_VERDICT, None, None, used
        if work is not None:
            work.spend(2 * len(rows))
        used += 1
        h = dm.demand(rows, t)
        if h > t:
            return False, t, h, used
        if h <= first:
            return True, t, h, used
        if h < t:
            t = h
        else:
            below = dm.prev_deadline(rows, t)
            assert below is not None  # h(t) = t > first ≥ d_min, so a deadline lies below t
            t = below


def dbf_star_excess(rows: Rows, work: Work | None = None) -> list[int]:
    """The distinct deadlines t of ``rows`` with Σ_j dbf*(τ_j, t) > t, in increasing order."""
    out = []
    for t in sorted({d for _, d, _ in rows}):
        if work is not None:
            work.spend(len(rows))
        if fraction_sum(dm.dbf_star(c, d, p, t) for c, d, p in rows) > t:
            out.append(t)
    return out


@dataclass(frozen=True)
class Packing:
    """The outcome of one packing run.

    Attributes
    ----------
    verdict:
        True (every task placed), False, or "unknown" (failed after a QPA budget ran out, or the
        reference's Python work budget ran out).
    assignment:
        Processor of each task (input order), None for tasks not placed.
    order:
        The placement order (task indices).
    failed_task:
        The task that could not be placed, or None.
    refusals:
        For the failed task: ``(processor, why)`` for every processor tried.
    processors:
        Number of processors considered (min(m, n)).
    work_exhausted:
        True if the Python work budget ran out (then ``failed_task`` is the task being placed).
    left:
        What was left of the packing budget when the last task tried was about to be placed.
    """

    verdict: Verdict
    assignment: tuple[int | None, ...]
    order: tuple[int, ...]
    failed_task: int | None
    refusals: tuple[tuple[int, str], ...]
    processors: int
    work_exhausted: bool = False
    left: int = 0


def pack(
    rows: Rows,
    m: int,
    fit: str,
    order: str,
    admission: str,
    budget: int = PACKING_BUDGET,
    work_budget: int | None = REFERENCE_WORK,
    qpa_steps: int | None = None,
    placements: list[tuple[int, tuple[tuple[int, str], ...], int | None]] | None = None,
) -> Packing:
    """Run the heuristic on ``[(C, D, T), ...]`` with exact arithmetic (the reference).

    ``budget``: demand terms per packing; ``qpa_steps``: QPA steps per admission (None:
    :func:`qpa_steps_for` of the budget); module docstring. ``work_budget``: the Python work of
    the whole run (:mod:`rtsched.budget`); past it the verdict is "unknown". ``placements``
    (optional, for the step-by-step explanation) receives, per task tried in order,
    ``(task, ((processor, why it refused), ...), processor or None)``.
    """
    if qpa_steps is None:
        qpa_steps = qpa_steps_for(budget)
    p = _EDFPacker(rows, m, fit, order, Work(work_budget), admission, budget, qpa_steps)
    verdict = p.run(placements)
    # what was left when the last task tried was about to be placed (past the work budget: now)
    left = p.left if p.work_exhausted or not p.sequence else p.left_before
    return Packing(verdict, tuple(p.assignment), p.sequence, p.failed_task, p.refusals, p.processors, p.work_exhausted, left)


class _EDFPacker(_packing.Packer):
    """The reference's packing with an EDF admission: the packing budget left and the refusal cache."""

    def __init__(
        self, rows: Rows, m: int, fit: str, order: str, work: Work, admission: str, budget: int, qpa_steps: int
    ) -> None:
        super().__init__(rows, m, fit, order, work)
        self.admission = admission
        self.qpa_steps = qpa_steps
        self.left = budget
        self.left_before = budget  # what was left when the current task was about to be placed
        self.witness: list[Witness | None] = [None] * self.processors  # the refusal cache, per processor

    def loads(self) -> list[Fraction]:
        return _loads(self.bins, self.rows, self.work)

    def begin(self, i: int) -> None:
        self.left_before = self.left

    def admit(self, i: int, b: int) -> tuple[Verdict, str]:
        rows = self.rows
        verdict, why, spent, miss = admit(
            [rows[j] for j in self.bins[b]] + [rows[i]], self.admission, self.qpa_steps, self.work, self.left,
            self.witness[b],
        )  # fmt: skip
        self.left -= spent
        if miss is not None:  # the processor's own demand at the missed deadline
            self.witness[b] = (miss[0], miss[1] - dm.dbf(*rows[i], miss[0]))
        cached = self.witness[b]
        if verdict is True and cached is not None:  # it stays a miss as the processor grows
            self.witness[b] = (cached[0], cached[1] + dm.dbf(*rows[i], cached[0]))
        return verdict, why


#: Task sets per parallel work item of the batch kernel (one workspace per item).
CHUNK = 64


@batch_kernel
def _pack_kernel(C, D, T, offsets, m, fit, order, admission, qpa_steps, budget, out, assign, left):
    n_sets = out.shape[0]
    width = max(1, largest_set(offsets))
    for c in prange((n_sets + CHUNK - 1) // CHUNK):  # one workspace per chunk, not per set
        iw = np.empty((_INT_ROWS, width), dtype=np.int64)
        fw = np.empty((_FLOAT_ROWS, width))
        _pack_sets(
            C, D, T, offsets, c * CHUNK, min(n_sets, (c + 1) * CHUNK), m, fit, order, admission, qpa_steps, budget,
            out, assign, left, iw, fw,
        )  # fmt: skip


#: The kernels count in int64: a larger budget (never reached) is clamped to this.
_INT64_BUDGET = 2**62


def _kernel_limits(budget: int, qpa_steps: int | None) -> tuple[int, int]:
    """(qpa_steps, budget) as the kernels take them: derived cap, both clamped to int64."""
    steps = qpa_steps_for(budget) if qpa_steps is None else qpa_steps
    return min(int(steps), _INT64_BUDGET), min(int(budget), _INT64_BUDGET)


def _kernel_run(
    batch: TaskSetBatch, m: int, codes: tuple[int, int, int], budget: int, qpa_steps: int | None = None
) -> tuple[NDArray[np.int8], NDArray[np.int64], NDArray[np.int64]]:
    """The kernel's codes (UNDECIDED left as it is), assignments and budget left per set.

    ``codes``: the indices of the fit, order and admission (:data:`FITS`, ...).
    """
    steps, budget = _kernel_limits(budget, qpa_steps)
    out = np.empty(batch.n_sets, dtype=np.int8)
    assign = np.empty(batch.C.shape[0], dtype=np.int64)
    left = np.zeros(batch.n_sets, dtype=np.int64)
    if batch.n_sets:
        fit, order, admission = codes
        if numba.get_num_threads() == 1:
            # One thread (a small batch, a sweep's worker): the serial kernel itself, so the prange
            # driver compiles only when a batch needs it (rtsched.kernels.serial, issue #46).
            iw, fw = _workspace(max(1, int(np.diff(batch.offsets).max())))
            _pack_sets(
                batch.C, batch.D, batch.T, batch.offsets, 0, batch.n_sets, m, fit, order, admission, steps, budget,
                out, assign, left, iw, fw,
            )  # fmt: skip
        else:
            _pack_kernel(
                batch.C, batch.D, batch.T, batch.offsets, np.int64(m), np.int64(fit), np.int64(order),
                np.int64(admission), np.int64(steps), np.int64(budget), out, assign, left,
            )  # fmt: skip
    return out, assign, left


def _run(
    batch: TaskSetBatch,
    m: int,
    fit: str,
    order: str,
    admission: str,
    budget: int = PACKING_BUDGET,
    qpa_steps: int | None = None,
) -> tuple[NDArray[np.int8], NDArray[np.int64], NDArray[np.int64]]:
    """Verdict codes, assignments and, per set, the packing budget left after its last task.

    Sets the kernel leaves UNDECIDED are packed by the exact reference.
    """
    codes = (FITS.index(fit), ORDERS.index(order), ADMISSIONS.index(admission))
    out, assign, left = _kernel_run(batch, m, codes, budget, qpa_steps)
    for s in np.flatnonzero(out == UNDECIDED):  # int64 overflow or float margin: exact reference
        lo, hi = int(batch.offsets[s]), int(batch.offsets[s + 1])
        res = pack(batch[int(s)].rows(), m, fit, order, admission, budget, qpa_steps=qpa_steps)
        out[s] = verdict_code(res.verdict)
        assign[lo:hi] = [-1 if a is None else a for a in res.assignment]
        left[s] = res.left
    return out, assign, left


def assignments(
    batch: TaskSetBatch, m: int, name: str, budget: int = PACKING_BUDGET, qpa_steps: int | None = None
) -> tuple[NDArray[np.int8], NDArray[np.int64]]:
    """Verdict codes and the processor of every task (flat, −1 if unplaced) from the kernel.

    On a rejected set the assignment is the partial one at the moment of failure.
    """
    fit, order, admission = _parse(name)
    return _run(batch, m, fit, order, admission, budget, qpa_steps)[:2]


def _parse(name: str) -> tuple[str, str, str]:
    name = {"p-edf": "p:ff:density:qpa", "baruah-fisher": "p:ff:deadline:dbfstar"}.get(name, name)
    match = re.fullmatch(PATTERN, name)
    if match is None:
        raise ValueError(f"not a partitioned-EDF family name: {name!r}")
    return match.group(1), match.group(2), match.group(3)


# ---------------------------------------------------------------------------------------------
# Explanation and registry entries.
# ---------------------------------------------------------------------------------------------


def _processor_witness(rows: Rows, admission: str, qpa_steps: int, work: Work | None = None) -> str:
    """The evidence that one processor's final task set passes its admission test.

    With ``work``, past the budget the witness says so instead (the kernel's acceptance stands).
    """
    if not rows:
        return "empty"
    U = _utilization(rows)
    try:
        lam = _density(rows, work)
        if admission == "density":
            return f"U = {show_number(U)}, density = {show_number(lam)} ≤ 1"
        if admission == "dbfstar":
            points = sorted({d for _, d, _ in rows})
            if work is not None:
                work.spend(len(rows) * len(points))
            slack = min(
                (t - fraction_sum(Fraction(c, p) * (t - d) + c for c, d, p in rows if d <= t), t) for t in points
            )
            value = slack[1] - slack[0]
            return (
                f"U = {show_number(U)} ≤ 1, Σdbf* ≤ t at every deadline "
                f"(tightest: dbf*(t={slack[1]}) = {show_number(value)} ≤ {slack[1]})"
            )
        if lam <= 1:
            return f"U = {show_number(U)}, density = {show_number(lam)} ≤ 1 (QPA not needed)"
        if dbf_star_check(rows, work)[0]:
            return f"U = {show_number(U)}, Σdbf*(t) ≤ t at every deadline (QPA not needed)"
        tr = qpa_trace(rows, qpa_steps, Work(None) if work is None else work)
        if tr.reason != "work":
            bound = "-" if tr.L is None else show_number(tr.L)
            return f"U = {show_number(U)}, QPA: h(t) ≤ t below L = {bound} ({tr.steps} steps)"
    except WorkExhausted:
        pass
    return f"U = {show_number(U)}, accepted by the exact kernel (witness beyond the reference work budget)"


#: Seconds this process has spent packing small sets with the reference for their explanations.
_reference_seconds = [0.0]


def _reference_first(n: int) -> bool:
    """Pack with the reference: the set is small, and loading the packing kernel would cost more.

    The ski rental of :mod:`rtsched.check` ("First run"): the reference packs a small set in
    milliseconds, while the kernel costs its compile time if it is not in the cache and its load
    time (0.3–0.5 s for the prange driver) if it is. So the reference packs the small sets until
    this process has spent :data:`rtsched.warmup.LOAD_SECONDS` on it, and then as long as the
    kernel is not compiled; once the kernel is loaded here (a batch decided it), the kernel packs.
    """
    from rtsched import warmup

    if n > warmup.COLD_MAX_TASKS or _kernel_loaded():
        return False
    return _reference_seconds[0] < warmup.LOAD_SECONDS or not warmup.is_compiled("p-edf")


def _kernel_loaded() -> bool:
    """Whether this process has compiled or loaded a packing kernel (then it packs at once)."""
    return bool(_pack_kernel.signatures or _pack_sets.signatures)


def explain_family(
    fit: str,
    order: str,
    admission: str,
    ts: TaskSet,
    m: int,
    budget: int = PACKING_BUDGET,
    work_budget: int | None = REFERENCE_WORK,
    qpa_steps: int | None = None,
) -> Explanation:
    """The packing with evidence: each task's processor, each processor's load and witness.

    The packing (verdict and assignment) comes from the kernel, whose verdicts and assignments
    equal :func:`pack`'s on every input, so sets of thousands of tasks are decided in seconds.
    The refusals of a task that could not be placed and the witness of each processor are
    computed exactly in Python, within ``work_budget`` (:mod:`rtsched.budget`) shared by all of
    them; evidence past it says so. Under the qpa admission the refusals depend on the refusal
    cache, i.e. on the packing so far, so they are those of :func:`pack` itself (run within its
    own ``work_budget``), and only past that budget recomputed without the cache.
    """
    if qpa_steps is None:
        qpa_steps = qpa_steps_for(budget)
    rows = ts.rows()
    n = ts.n
    # Before the kernel is compiled, a small set is packed by the reference (rtsched.check's
    # "First run"): same verdict, assignment and budget left, in milliseconds instead of seconds.
    packed = None
    if _reference_first(n):
        start = time.perf_counter()
        packed = pack(rows, m, fit, order, admission, budget, work_budget, qpa_steps)
        _reference_seconds[0] += time.perf_counter() - start
    if packed is not None and not packed.work_exhausted:
        verdict: Verdict = packed.verdict
        assignment = packed.assignment
        left_before_failure = packed.left
    else:
        codes, assign, left_at = _run(TaskSetBatch.from_tasksets([ts]), m, fit, order, admission, budget, qpa_steps)
        verdict = UNKNOWN_VERDICT if codes[0] == UNKNOWN else bool(codes[0] == ACCEPT)
        assignment = tuple(None if a < 0 else int(a) for a in assign.tolist())
        left_before_failure = int(left_at[0])
    seq = task_order(rows, order)
    processors = min(m, n)
    work = Work(work_budget)
    bins: list[list[int]] = [[] for _ in range(processors)]
    failed_task = None
    current = 0
    for i in seq:  # the placements, in order, up to the first task not placed
        b = assignment[i]
        if b is None:
            failed_task = i
            break
        bins[b].append(i)
        current = b
    refusals: list[tuple[int, str]] = []
    # qpa: its refusals depend on the refusal cache, i.e. on the packing so far, so they come
    # from the reference's own packing when that fits in the work budget.
    replayed = None
    if failed_task is not None and admission == "qpa":  # the cold path's packing is that one already
        replayed = packed or pack(rows, m, fit, order, admission, budget, work_budget, qpa_steps)
    if replayed is not None and not replayed.work_exhausted and replayed.failed_task == failed_task:
        refusals = list(replayed.refusals)
    elif failed_task is not None:  # replay its admissions, with the packing budget it had
        left = left_before_failure
        if admission == "qpa":
            refusals.append((-1, "refusals recomputed without the refusal cache (beyond the reference work budget)"))
        try:
            for b in preference(fit, len(bins), current, lambda: _loads(bins, rows, work)):
                _, why, spent, _ = admit(
                    [rows[j] for j in bins[b]] + [rows[failed_task]], admission, qpa_steps, work, left
                )
                left -= spent
                refusals.append((b, why))
        except WorkExhausted:
            refusals.append((-1, "further refusals are beyond the reference work budget"))
    used = sum(1 for b in bins if b)
    witness = {
        b: _processor_witness([rows[i] for i in bins[b]], admission, qpa_steps, work)
        for b in range(processors)
        if bins[b]
    }
    evidence: dict[str, object] = {
        "assignment": assignment,
        "order": tuple(seq),
        "processors": tuple(
            {
                "processor": f"P{b}",
                "tasks": tuple(bins[b]),
                "utilization": _utilization([rows[i] for i in bins[b]]),
                "witness": witness[b],
            }
            for b in range(processors)
            if bins[b]
        ),
        "budget": budget,
        "qpa_steps": qpa_steps,
        "work_budget": work_budget,
    }
    for b in range(processors):  # one printable line per used processor
        if bins[b]:
            evidence[f"P{b}"] = f"{_task_list(bins[b])}: {witness[b]}"
    if failed_task is None:
        summary = _packing.placed_summary(n, used, m, fit, order, admission)
    else:
        summary = _packing.failure_summary(ts, m, processors, failed_task, refusals, verdict, evidence)
    per_task = [
        {
            "task": i,
            "processor": "-" if assignment[i] is None else f"P{assignment[i]}",
            "utilization": Fraction(c, p),
            "density": Fraction(c, min(d, p)),
        }
        for i, (c, d, p) in enumerate(rows)
    ]
    return Explanation(
        verdict, summary, evidence, per_task, steps=lambda: packing_steps(fit, order, admission, ts, m, budget)
    )


_ADMISSION_TEXT = {
    "density": "its density Σ C/min(D, T) stays ≤ 1",
    "dbfstar": "U ≤ 1 and Σ dbf*(τ_j, t) ≤ t at every deadline t on it (Baruah & Fisher 2006, Eq. (5)-(6))",
    "qpa": "U ≤ 1 and h(t) ≤ t at every deadline on it (exact: density, dbf*, then QPA; Zhang & Burns 2009)",
}


def packing_steps(fit: str, order: str, admission: str, ts: TaskSet, m: int, budget: int) -> Iterator[Step]:
    """Each placement of the exact reference :func:`pack`, every refusal with its reason.

    The reference's assignment equals the kernel's.
    """
    log: list[tuple[int, tuple[tuple[int, str], ...], int | None]] = []
    packing = pack(ts.rows(), m, fit, order, admission, budget, placements=log)
    yield from _packing.placement_steps(
        ts, fit, order, _ADMISSION_TEXT[admission], log, packing.processors, verdict=packing.verdict
    )


def _task_list(tasks: list[int], limit: int = 50) -> str:
    """``τ0, τ3, …`` for at most ``limit`` tasks, then how many there are."""
    shown = ", ".join(f"τ{i}" for i in tasks[:limit])
    return shown if len(tasks) <= limit else f"{shown}, … ({len(tasks)} tasks)"


def build(
    name: str, fit: str, order: str, admission: str, featured: bool, title: str | None = None, rank: float = 50
) -> Analysis:
    """The registry entry of one family member under ``name`` (``rank``: its display order)."""
    codes = (FITS.index(fit), ORDERS.index(order), ADMISSIONS.index(admission))
    f, o, a = codes

    def reference(ts: TaskSet, m: int, budget: int = PACKING_BUDGET) -> Verdict:
        return pack(ts.rows(), m, fit, order, admission, budget).verdict

    def explain(ts: TaskSet, m: int, budget: int = PACKING_BUDGET) -> Explanation:
        return explain_family(fit, order, admission, ts, m, budget)

    def batch_codes(batch: TaskSetBatch, m: int, budget: int = PACKING_BUDGET) -> NDArray[np.int8]:
        return _kernel_run(batch, m, codes, budget)[0]

    default_limits = _kernel_limits(PACKING_BUDGET, None)

    def one(
        C: NDArray[np.int64], D: NDArray[np.int64], T: NDArray[np.int64], m: int, budget: int = PACKING_BUDGET
    ) -> int:
        # The serial kernel itself (the kernel's own specialisation: nothing more to compile).
        steps, limit = default_limits if budget == PACKING_BUDGET else _kernel_limits(budget, None)
        n = C.shape[0]
        iw, fw = _workspace(max(n, 1))
        offsets = np.array([0, n], dtype=np.int64)
        offsets.setflags(write=False)  # read-only, as a batch's offsets: the same specialisation
        out = np.empty(1, dtype=np.int8)
        _pack_sets(
            C, D, T, offsets, 0, 1, m, f, o, a, steps, limit, out, np.empty(n, dtype=np.int64), np.empty(1, dtype=np.int64),
            iw, fw,
        )  # fmt: skip
        return int(out[0])

    if admission == "dbfstar":
        citation = CITATION_BF + "; " + CITATION_PACKING
    elif admission == "qpa":
        citation = CITATION_QPA + " (admission); " + CITATION_PACKING
    else:
        citation = CITATION_PACKING
    return Analysis(
        name=name, title=title or f"partitioned EDF: {fit}, {order} order, {admission} admission", kind="sufficient",
        order=rank, featured=featured,
        # every member runs one packing kernel: p-edf compiles it, the others share it
        compile_seconds=15.6 if name == "p-edf" else None, shares_kernels_with=None if name == "p-edf" else "p-edf",
        policy="partitioned-edf", policy_order=2, deadlines=("implicit", "constrained", "arbitrary"),
        citation=citation, note="papers/partitioned-heuristics.md",
        reference=reference, explain=explain, one=one, codes=batch_codes,
        budget=PACKING_BUDGET, budget_unit=BUDGET_UNIT,
    )


ANALYSES = (
    build("p-edf", "ff", "density", "qpa", True, "partitioned EDF: first fit, decreasing density, QPA", rank=0),
    build(
        "baruah-fisher",
        "ff",
        "deadline",
        "dbfstar",
        True,
        "partitioned EDF: Baruah-Fisher DM first fit with dbf*",
        rank=1,
    ),
    build("p:wf:density:qpa", "wf", "density", "qpa", True, rank=2),
)

FAMILIES = (
    _packing.family(
        ADMISSIONS, lambda name, fit, order, admission: build(name, fit, order, admission, False), "partitioned EDF"
    ),
)
