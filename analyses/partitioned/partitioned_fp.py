"""Partitioned fixed priorities: bin-packing heuristics with exact response-time admission.

One parametrised family ``p:<fit>:<order>:rta`` (16 members) and the featured ``p-fp`` =
``p:ff:deadline:rta`` (first fit in deadline order, the deadline-monotonic variant of the RM-FF
heuristic of Dhall & Liu, "On a real-time scheduling problem", Operations Research 26(1), 1978).
The family shares ``p:<fit>:<order>`` with partitioned EDF (analyses/partitioned/partitioned_edf.py, whose
admissions are density|dbfstar|qpa); ``rta`` is the fixed-priority admission.

Priorities are the order of the tasks in the set (index 0 highest; ``rtsched.priorities``
reorders a set): the tasks on a processor keep their relative priority order, and each processor
is scheduled by preemptive fixed priorities. Parameters (papers/partitioned-heuristics.md):

fit
    ``ff`` first fit, ``nf`` next fit (the current processor, then the following ones, never
    back), ``bf`` best fit / ``wf`` worst fit by **utilization** (bf: the admitting processor with
    the largest utilization, wf the smallest; ties to the lowest index), compared exactly.
order
    the order in which tasks are *placed* (not their priorities): ``input``, ``density``
    (C/min(D, T) decreasing), ``utilization`` (C/T decreasing), ``deadline`` (D increasing);
    ties keep the input order.
admission ``rta``
    the task joins a processor iff every task on it then passes the exact uniprocessor
    response-time analysis (Joseph & Pandya 1986; Audsley et al. 1993; analyses/theory/fp_rta.py) with
    the processor's tasks in priority order. Only the new task and the tasks below it are
    re-analysed (those above it are unaffected), each starting from max(the response time of the
    task above it on the processor + its C, its previous response time) - both lower bounds of
    the new least fixed point (adding a higher-priority task only raises the right side of
    (RTA)), so the results equal a full analysis. Arbitrary deadlines (D > T): the admission is
    the busy-period analysis of Lehoczky (RTSS 1990) and Tindell, Burns, Wellings (Real-Time
    Systems 6(2), 1994) in ``fp_rta`` (jobs q = 0, 1, … of each task's level-i busy period; a
    previous response time is reused as a start only for a task with D ≤ T;
    papers/tindell1994-arbitrary-deadlines.md); each processor then runs its tasks' jobs in
    release order, so the family accepts arbitrary deadlines too.

Every admission is exact for its processor, so a complete assignment proves the set schedulable
under partitioned FP with these priorities: the family is *sufficient* (a heuristic may fail to
find an assignment that exists). Budget: evaluations of (RTA) per set over the whole packing
(default :data:`PACKING_BUDGET`); an admission the remaining budget cannot finish counts as a
refusal, and if the set then fails to pack the verdict is "unknown", never False. At most
min(m, n) processors are ever used (an empty processor is never preferred to a lower-index empty
one), so the kernel works on those.

Layers: :func:`pack` (the exact reference: Python ints and Fractions, with a work budget; the
packing loop is the family's :class:`~rtsched.analyses.partitioned._packing.Packer`, this module gives it
the RTA admission),
``_pack_set`` (the int64 kernel of one set on a caller's workspace, uncounted: same
admissions, same evaluation counts, same assignment; bf/wf compare utilizations in float with a
proven margin and exactly near ties, UNDECIDED if that exact sum overflows int64), ``_pack_one``
(it on a workspace of its own: the registry's ``one``) and ``_pack_kernel`` (its ``prange``
driver over chunks of a batch, one workspace per chunk: the family's ``codes``), so that no set
allocates or counts references (measurements: papers/joseph-pandya1986-rta.md, "Performance").
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
from numba import prange
from numpy.typing import NDArray

from rtsched.analyses.partitioned import _packing
from rtsched.analyses.partitioned._packing import FITS, ORDERS, Rows, load_sign_float, placed_before
from rtsched.analyses.partitioned._packing import task_order as placement_order
from rtsched.analyses.theory.edf_demand import frac_sum_sign
from rtsched.analyses.theory.fp_rta import response_times, rta_from_nb
from rtsched.budget import REFERENCE_WORK, Work
from rtsched.kernels import ACCEPT, REJECT, UNDECIDED, UNKNOWN, batch_kernel, chunk_count, kernel, largest_set
from rtsched.model import TaskSet, TaskSetBatch, fraction_sum
from rtsched.registry import Analysis
from rtsched.result import UNKNOWN as UNKNOWN_VERDICT
from rtsched.result import Explanation, Step, Verdict, show_number

__all__ = [
    "ANALYSES",
    "FAMILIES",
    "FAMILY_NAMES",
    "FITS",
    "ORDERS",
    "PACKING_BUDGET",
    "Packing",
    "build",
    "pack",
    "placement_order",
]

FAMILY_NAMES = _packing.family_names(("rta",))

#: Default budget of a whole packing: evaluations of the response-time recurrence.
PACKING_BUDGET = 10_000_000

CITATION = (
    "bin packing with exact uniprocessor FP response-time admission (Joseph & Pandya, The Computer "
    "Journal 29(5), 1986; Audsley et al., Software Engineering Journal 8(5), 1993); first/best/worst/"
    "next fit as for RM-FF (Dhall & Liu, Operations Research 26(1), 1978); arbitrary deadlines: Lehoczky, RTSS "
    "1990; Tindell, Burns, Wellings, Real-Time Systems 6(2), 1994 - see papers/partitioned-heuristics.md, "
    "papers/joseph-pandya1986-rta.md and papers/tindell1994-arbitrary-deadlines.md"
)

# ---------------------------------------------------------------------------------------------
# Reference.
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Packing:
    """Outcome of :func:`pack`.

    Verdict, processor of each task (None: not placed), response time of each placed task on its
    processor, the placement order, the task that could not be placed and why each processor
    refused it, the processors considered, evaluations used and whether the reference's work
    budget ran out.
    """

    verdict: Verdict
    assignment: tuple[int | None, ...]
    response: tuple[int | None, ...]
    sequence: tuple[int, ...]
    failed_task: int | None
    refusals: tuple[tuple[int, str], ...]
    processors: int
    used: int
    work_exhausted: bool = False


def admit(
    rows: Rows, tasks: list[int], i: int, response: list[int | None], left: int, work: Work
) -> tuple[Verdict, dict[int, int], int, str]:
    """Whether task i may join the processor holding ``tasks`` (in any order).

    Returns (verdict, the new response times of the processor's tasks, evaluations used, why
    not). ``response`` holds the current response times (lower bounds after the insertion).
    """
    on = sorted(tasks + [i])
    pos = on.index(i)
    sub = [rows[j] for j in on]
    old = [0 if j == i else int(response[j] or 0) for j in on]
    known = [int(response[j] or 0) for j in on[:pos]]
    run = response_times(sub, pos, old, known, left, work)
    new = {on[p]: int(r) for p, r in enumerate(run.response) if p >= pos and r is not None}
    if run.verdict is True:
        return True, new, run.used, ""
    if run.verdict == UNKNOWN_VERDICT:
        return UNKNOWN_VERDICT, new, run.used, "the budget ran out during the response-time analysis"
    assert run.failing is not None and run.failed_search is not None
    j = on[run.failing]
    it = run.failed_search
    who = "it" if j == i else f"τ{j}"
    if it.job:  # a later job of the busy period (D > T): (TBW-w) exceeds q·T + D
        q, (_, D_j, T_j) = it.job, rows[j]
        return False, new, run.used, (
            f"{who} would miss with job q = {q} of its busy period: at w = {it.last}, (q+1)·C + Σ⌈w/T⌉·C = "
            f"{it.value} > q·T + D = {q * T_j + D_j}"
        )
    return False, new, run.used, f"{who} would miss: at R = {it.last}, C + Σ⌈R/T⌉·C = {it.value} > D = {rows[j][1]}"


def pack(
    rows: Rows,
    m: int,
    fit: str,
    order: str,
    budget: int = PACKING_BUDGET,
    work_budget: int | None = REFERENCE_WORK,
    placements: list[tuple[int, tuple[tuple[int, str], ...], int | None, dict[int, int]]] | None = None,
) -> Packing:
    """Run the heuristic on ``[(C, D, T), ...]`` (priority order) exactly (the reference).

    ``placements`` (optional, for the step-by-step explanation) receives, per task tried in
    order, ``(task, ((processor, why it refused), ...), processor or None, {task: new response
    time on that processor})``.
    """
    p = _RTAPacker(rows, m, fit, order, Work(work_budget), budget)
    verdict = p.run(placements)
    return Packing(
        verdict, tuple(p.assignment), tuple(p.response), p.sequence, p.failed_task, p.refusals, p.processors, p.used,
        p.work_exhausted,
    )  # fmt: skip


class _RTAPacker(_packing.Packer):
    """The reference's packing with the RTA admission: the response times so far and the evaluations used."""

    def __init__(self, rows: Rows, m: int, fit: str, order: str, work: Work, budget: int) -> None:
        super().__init__(rows, m, fit, order, work)
        self.budget = budget
        self.used = 0
        self.response: list[int | None] = [None] * len(self.rows)
        self.new: dict[int, int] = {}  # the response times the last placement changed

    def loads(self) -> list[Fraction]:
        self.work.spend(sum(len(b) for b in self.bins))
        return [fraction_sum(Fraction(self.rows[i][0], self.rows[i][2]) for i in b) for b in self.bins]

    def admit(self, i: int, b: int) -> tuple[Verdict, str]:
        verdict, new, spent, why = admit(self.rows, self.bins[b], i, self.response, self.budget - self.used, self.work)
        self.used += spent
        if verdict is True:
            for j, r in new.items():
                self.response[j] = r
            self.new = new
        return verdict, why

    def note(self, i: int, b: int | None) -> tuple[Any, ...]:
        return (dict(self.new) if b is not None else {},)


def explain_family(fit: str, order: str, ts: TaskSet, m: int, budget: int, work_budget: int | None) -> Explanation:
    """The assignment and each processor's tasks with their response times.

    For a task that could not be placed: why each processor refused it.
    """
    p = pack(ts.rows(), m, fit, order, budget, work_budget)
    rows = ts.rows()
    evidence: dict[str, object] = {
        "fit": fit,
        "order": order,
        "evaluations": p.used,
        "budget": budget,
        "placement_order": p.sequence,
        "assignment": p.assignment,  # processor indices, None: not placed (as the p-edf family)
    }
    for b in range(p.processors):
        tasks = [j for j in range(ts.n) if p.assignment[j] == b]
        if tasks:
            U = fraction_sum(Fraction(rows[j][0], rows[j][2]) for j in tasks)
            shown = ", ".join(f"τ{j} (R = {p.response[j]} ≤ D = {rows[j][1]})" for j in tasks)
            evidence[f"P{b}"] = f"U = {show_number(U)}: {shown}"
    if p.work_exhausted:
        # The exact evidence is out of reach (rtsched.budget); the kernel still gives the packing.
        kernel_code, kernel_assign = assignments(ts, m, fit, order, budget)
        placed = sum(a >= 0 for a in kernel_assign)
        evidence["assignment"] = tuple(None if a < 0 else a for a in kernel_assign)
        evidence["kernel_verdict"] = {1: True, 0: False, -1: "unknown"}.get(kernel_code, "undecided")
        summary = (
            f"unknown: the reference's work budget ran out (rtsched.budget); the kernel placed {placed} of "
            f"{ts.n} tasks (assignment in the evidence, response times not shown)"
        )
    elif p.failed_task is None:
        used = len({a for a in p.assignment if a is not None})
        summary = _packing.placed_summary(ts.n, used, m, fit, order, "RTA")
    else:
        summary = _packing.failure_summary(ts, m, p.processors, p.failed_task, p.refusals, p.verdict, evidence)
    per_task = [
        {
            "task": j,
            "processor": "-" if p.assignment[j] is None else f"P{p.assignment[j]}",
            "response_time": "-" if p.response[j] is None else p.response[j],
            "D": d,
            "utilization": Fraction(c, t),
        }
        for j, (c, d, t) in enumerate(rows)
    ]
    return Explanation(p.verdict, summary, evidence, per_task, steps=lambda: packing_steps(fit, order, ts, m, budget))


def packing_steps(fit: str, order: str, ts: TaskSet, m: int, budget: int) -> Iterator[Step]:
    """Each placement of :func:`pack` and every refusal with its reason.

    After each placement: the new response times on that processor.
    """
    log: list[tuple[int, tuple[tuple[int, str], ...], int | None, dict[int, int]]] = []
    packing = pack(ts.rows(), m, fit, order, budget, placements=log)

    def note(entry: tuple[object, ...]) -> str:
        new = entry[3]
        assert isinstance(new, dict)
        return "; response times " + ", ".join(f"R({ts.label(j)}) = {r}" for j, r in sorted(new.items()))

    admission = "every task on it meets its deadline by response-time analysis (priorities: the set's order)"
    yield from _packing.placement_steps(ts, fit, order, admission, log, packing.processors, note, packing.verdict)


# ---------------------------------------------------------------------------------------------
# Kernel.
# ---------------------------------------------------------------------------------------------


@kernel(counted=False)
def _load_sign(C, T, assign, n, a, b, loads, count, num, den, sgn):
    """Exact sign of U(P_a) − U(P_b) (−1, 0, 1), or 2 if the exact sum overflows int64.

    The float loads decide outside their error margin (:func:`_packing.load_sign_float`), the
    rational sum inside it. Uncounted (:func:`rtsched.kernels.kernel`): it allocates nothing
    and returns a number.
    """
    sign = load_sign_float(loads, count, a, b)
    if sign != 0:
        return sign
    k = 0
    for j in range(n):
        if assign[j] == a or assign[j] == b:
            num[k] = C[j]
            den[k] = T[j]
            sgn[k] = 1 if assign[j] == a else -1
            k += 1
    return frac_sum_sign(num, den, sgn, k, np.int64(0))


#: Rows of the int64 workspace of :func:`_pack_set` (each at least n long): the placement
#: sequence; one processor's tasks in priority order (C, D, T, the response-time lower bounds and
#: results, their task indices); the exact load sum's numerators, denominators and signs; the
#: response time of every placed task; each processor's task count and whether the fit rule
#: tried it for the current task (the first min(m, n) entries); and, in the batch kernel, the
#: assignment.
_SEQ, _SC, _SD, _ST, _OLD, _SR, _ON, _NUM, _R, _DEN, _SGN, _COUNT, _TRIED, _ASSIGN = range(14)
_PACK_ROWS = 14


@kernel(counted=False)
def _pack_set(C, D, T, m, fit, order, budget, assign, ints, loads):
    """The code (ACCEPT / REJECT / UNKNOWN / UNDECIDED) of one set; ``assign`` gets the processors.

    ``assign`` holds −1 for a task not placed. Same placements, admissions and evaluation counts
    as :func:`pack`. ``ints`` (rows above) and ``loads`` (float64, ≥ min(m, n) long) are scratch
    owned by the caller: it allocates nothing and returns a number, so it runs uncounted
    (:func:`rtsched.kernels.kernel`), with its rows indexed as views at no cost.
    """
    n = C.shape[0]
    k = m if m < n else n
    seq, sC, sD, sT, old, sR, on, num = ints[_SEQ], ints[_SC], ints[_SD], ints[_ST], ints[_OLD], ints[_SR], ints[_ON], ints[_NUM]
    R, den, sgn, count, tried = ints[_R], ints[_DEN], ints[_SGN], ints[_COUNT], ints[_TRIED]
    for j in range(n):
        assign[j] = -1
        seq[j] = j
        R[j] = 0
    for b in range(k):
        loads[b] = 0.0
        count[b] = 0
    for a in range(1, n):  # stable insertion sort by the placement order's key
        x = seq[a]
        p = a
        while p > 0 and placed_before(C, D, T, x, seq[p - 1], order):
            seq[p] = seq[p - 1]
            p -= 1
        seq[p] = x
    used = 0
    current = 0
    unknown = False
    for s in range(n):
        i = seq[s]
        for b in range(k):
            tried[b] = 0
        placed = False
        attempt = 0
        while not placed:
            # The next processor the fit rule tries.
            b = -1
            if fit == 0:  # first fit
                b = attempt if attempt < k else -1
            elif fit == 3:  # next fit
                b = current + attempt if current + attempt < k else -1
            else:  # best fit (1) / worst fit (2): the untried processor with the extreme load
                for c in range(k):
                    if tried[c] != 0:
                        continue
                    if b < 0:
                        b = c
                        continue
                    sign = _load_sign(C, T, assign, n, c, b, loads, count, num, den, sgn)
                    if sign == 2:
                        return UNDECIDED
                    if (fit == 1 and sign > 0) or (fit == 2 and sign < 0):
                        b = c  # ties keep the lower index b
            if b < 0:
                break
            attempt += 1
            tried[b] = 1
            # The processor's tasks with i, in priority (index) order.
            size = 0
            pos = 0
            for j in range(n):
                if assign[j] == b or j == i:
                    if j == i:
                        pos = size
                    on[size] = j
                    sC[size] = C[j]
                    sD[size] = D[j]
                    sT[size] = T[j]
                    old[size] = 0 if j == i else R[j]
                    sR[size] = R[j]
                    size += 1
            code, spent = rta_from_nb(sC, sD, sT, size, pos, old, sR, budget - used)
            used += spent
            if code == ACCEPT:
                assign[i] = b
                for p in range(pos, size):
                    R[on[p]] = sR[p]
                loads[b] += C[i] / T[i]
                count[b] += 1
                current = b
                placed = True
            elif code == UNKNOWN:
                unknown = True
        if not placed:
            return UNKNOWN if unknown else REJECT
    return ACCEPT


@kernel
def _pack_one(C, D, T, m, fit, order, budget, assign):
    """:func:`_pack_set` on a workspace of its own (the serial one-set kernel)."""
    width = max(1, C.shape[0])
    ints = np.empty((_PACK_ROWS, width), dtype=np.int64)
    loads = np.empty(width, dtype=np.float64)
    return _pack_set(C, D, T, m, fit, order, budget, assign, ints, loads)


@kernel(counted=False)
def _pack_chunk(C, D, T, offsets, first, last, m, fit, order, budget, out, ints, loads):
    # Sets first … last − 1 on one workspace (uncounted: the per-set slices cost nothing).
    for s in range(first, last):
        lo, hi = offsets[s], offsets[s + 1]
        out[s] = _pack_set(C[lo:hi], D[lo:hi], T[lo:hi], m, fit, order, budget, ints[_ASSIGN], ints, loads)


@batch_kernel
def _pack_kernel(C, D, T, offsets, m, fit, order, budget, out):
    n_sets = out.shape[0]
    width = max(1, largest_set(offsets))
    n_chunks = chunk_count(offsets)
    for c in prange(n_chunks):  # one workspace per chunk of sets
        ints = np.empty((_PACK_ROWS, width), dtype=np.int64)
        loads = np.empty(width, dtype=np.float64)
        _pack_chunk(C, D, T, offsets, c * n_sets // n_chunks, (c + 1) * n_sets // n_chunks, m, fit, order, budget, out, ints, loads)


def assignments(ts: TaskSet, m: int, fit: str, order: str, budget: int = PACKING_BUDGET) -> tuple[int, list[int]]:
    """The kernel's code and processor assignment (−1: not placed) for one set."""
    assign = np.empty(ts.n, dtype=np.int64)
    code = int(_pack_one(ts.C, ts.D, ts.T, m, FITS.index(fit), ORDERS.index(order), budget, assign))
    return code, assign.tolist()


def build(name: str, fit: str, order: str, featured: bool, title: str | None = None, rank: float = 50) -> Analysis:
    """The registry entry of one family member under ``name`` (``rank``: its display order)."""
    f, o = FITS.index(fit), ORDERS.index(order)

    def reference(ts: TaskSet, m: int, budget: int = PACKING_BUDGET) -> Verdict:
        return pack(ts.rows(), m, fit, order, budget).verdict

    def explain(ts: TaskSet, m: int, budget: int = PACKING_BUDGET) -> Explanation:
        return explain_family(fit, order, ts, m, budget, REFERENCE_WORK)

    def batch_codes(batch: TaskSetBatch, m: int, budget: int = PACKING_BUDGET) -> NDArray[np.int8]:
        out = np.empty(batch.n_sets, dtype=np.int8)
        _pack_kernel(batch.C, batch.D, batch.T, batch.offsets, m, f, o, budget, out)
        return out

    def one(
        C: NDArray[np.int64], D: NDArray[np.int64], T: NDArray[np.int64], m: int, budget: int = PACKING_BUDGET
    ) -> int:
        return int(_pack_one(C, D, T, m, f, o, budget, np.empty(C.shape[0], dtype=np.int64)))

    return Analysis(
        name=name, title=title or f"partitioned FP: {fit}, {order} order, RTA admission", kind="sufficient",
        order=rank, featured=featured,
        policy="partitioned-fp", policy_order=5, deadlines=("implicit", "constrained", "arbitrary"),
        citation=CITATION, note="papers/joseph-pandya1986-rta.md",
        reference=reference, explain=explain, one=one, codes=batch_codes,
        budget=PACKING_BUDGET, budget_unit="response-time evaluations per set",
    )


ANALYSES = (build("p-fp", "ff", "deadline", True, "partitioned FP: first fit, deadline order, RTA admission", rank=0),)

FAMILIES = (
    _packing.family(
        ("rta",),
        lambda name, fit, order, _: build(name, fit, order, featured=False),
        "partitioned fixed priorities, priorities = the set's order",
    ),
)
