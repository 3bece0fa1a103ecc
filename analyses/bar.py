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
visited round-robin over k, densest task first (:func:`visiting_order`). The reference and the
kernel visit the same points, so budgets and verdicts coincide.

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
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
from numba import njit, prange

from rtsched.analyses._demand import INT64_SAFE, dbf, dbf_carry_in, divmod_fast, top_sum
from rtsched.analyses._gedf_common import largest_set
from rtsched.budget import REFERENCE_WORK, Work, WorkExhausted
from rtsched.errors import InputError
from rtsched.kernels import ACCEPT, EPS, REJECT, UNDECIDED, UNKNOWN
from rtsched.model import TaskSet, fraction_sum
from rtsched.registry import Analysis
from rtsched.result import UNKNOWN as UNKNOWN_VERDICT
from rtsched.result import Explanation, Verdict, show_number

__all__ = [
    "ANALYSES",
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

#: Default maximum number of evaluations of Condition (8) per task set.
DEFAULT_BUDGET = 100_000
#: Task sets per parallel work item (buffers are allocated once per item).
CHUNK = 64


@dataclass(frozen=True)
class BarOutcome:
    """What the exact BAR search found (the evidence behind :func:`explain`).

    ``points`` is the work spent: evaluations of (8) plus step points walked by :func:`next_A`.
    """

    verdict: Verdict
    reason: str
    points: int
    bounds: tuple[Fraction, ...] = ()
    task: int | None = None
    A: int | None = None
    lhs: int | None = None
    rhs: int | None = None
    I1: tuple[int, ...] = field(default=())
    I_diff: tuple[int, ...] = field(default=())


def ak_bounds(ts: TaskSet, m: int) -> list[Fraction]:
    """Eq. (9): the largest A_k that can violate Condition (8), for each k (needs U < m)."""
    U = ts.utilization
    costs = sorted((int(c) for c in ts.C), reverse=True)
    c_sigma = sum(costs[: m - 1])
    y = fraction_sum(Fraction(int(t - d) * int(c), int(t)) for c, d, t in zip(ts.C, ts.D, ts.T, strict=True))
    return [(c_sigma - int(d) * (m - U) + y + m * int(c)) / (m - U) for c, d in zip(ts.C, ts.D, strict=True)]


def condition_8(ts: TaskSet, m: int, k: int, A: int, work: Work | None = None) -> tuple[int, int, list[int], list[int]]:
    """Both sides of Condition (8) for task k and interval A_k = A: (LHS, RHS, I1, I_DIFF)."""
    if work is not None:
        work.spend(ts.n)
    Ck, Dk = int(ts.C[k]), int(ts.D[k])
    t = A + Dk
    cap = A + Dk - Ck + 1  # integer-time correction: A_k + D_k − (C_k − 1)
    I1: list[int] = []
    I_diff: list[int] = []
    for i, (c, d, p) in enumerate(ts.rows()):
        if i == k:
            i1 = min(dbf(c, d, p, t) - Ck, A)
            i2 = min(dbf_carry_in(c, p, t) - Ck, A)
        else:
            i1 = min(dbf(c, d, p, t), cap)
            i2 = min(dbf_carry_in(c, p, t), cap)
        I1.append(i1)
        I_diff.append(i2 - i1)
    lhs = sum(I1) + sum(sorted(I_diff, reverse=True)[: m - 1])
    return lhs, m * (A + Dk - Ck), I1, I_diff


def _growing_terms(ts: TaskSet, k: int, A: int, work: Work | None = None) -> int:
    """κ: how many I1 terms sit at their cap (they grow with A_k until the next dbf step)."""
    if work is not None:
        work.spend(ts.n)
    Ck, Dk = int(ts.C[k]), int(ts.D[k])
    t = A + Dk
    cap = A + Dk - Ck + 1
    kappa = 0
    for i, (c, d, p) in enumerate(ts.rows()):
        demand = dbf(c, d, p, t)
        if (i == k and A < demand - Ck) or (i != k and demand > cap):
            kappa += 1
    return kappa


def next_A(
    ts: TaskSet,
    k: int,
    A: int,
    slack: int,
    kappa: int,
    limit: int,
    work: list[int],
    budget: int,
    python_work: Work | None = None,
) -> int:
    """The next A_k that can violate (8) after A_k = A passed with ``slack`` = RHS − LHS ≥ 0.

    From A to A + δ each I1 term at its cap (κ of them) grows by at most δ, every other I1 term
    by at most the dbf jumps in (t, t + δ] (t = A + D_k), and the m − 1 largest I_DIFF by at
    most (m − 1)·δ (dbf' is continuous). So f = LHS − RHS satisfies
    f(A + δ) ≤ f(A) + (κ − 1)·δ + J(δ), with J(δ) the sum of the dbf jumps of all tasks in
    (t, t + δ]. We walk the step points in order and return the first A + δ where that bound
    becomes positive (or the first one past ``limit``). Each walked step point costs one unit of
    ``work[0]``; the walk also stops when the budget is spent. ``python_work`` (optional) is
    charged n terms per step point (:mod:`rtsched.budget`).
    """
    Dk = int(ts.D[k])
    t = A + Dk
    rows = ts.rows()
    nxt = [d if t < d else d + ((t - d) // p + 1) * p for _c, d, p in rows]
    jumps = 0
    while True:
        t_step = min(nxt)
        delta = t_step - t
        if kappa >= 2:
            first_bad = (slack - jumps) // (kappa - 1) + 1
            if first_bad < delta:
                return A + first_bad
        if python_work is not None:
            python_work.spend(len(rows))
        for i, (c, _d, p) in enumerate(rows):
            if nxt[i] == t_step:
                jumps += c
                nxt[i] += p
        work[0] += 1
        if (kappa - 1) * delta + jumps > slack or A + delta > limit or work[0] >= budget:
            return A + delta


def visiting_order(ts: TaskSet) -> list[int]:
    """Tasks by decreasing density C_k/D_k (ties: lower index first).

    The order only changes how soon a violation is found (and so the work spent), never the
    verdict: on the benchmark distribution the densest task fails (8) at A_k = 0 in about 96%
    of the rejected sets.
    """
    return sorted(range(ts.n), key=lambda k: (-Fraction(int(ts.C[k]), int(ts.D[k])), k))


def analyse(ts: TaskSet, m: int, budget: int = DEFAULT_BUDGET, work_budget: int | None = REFERENCE_WORK) -> BarOutcome:
    """Run BAR exactly; the outcome carries the failing (k, A_k) or the work done.

    The points (k, A_k) are visited round-robin over k (one point of each task per round, as
    SchedCAT's C++ does) in :func:`visiting_order`, because violations are usually found at
    small A_k. ``work_budget`` caps the Python work (:mod:`rtsched.budget`): "unknown" past it.
    """
    if not ts.is_constrained:
        raise InputError("BAR (Baruah 2007) needs constrained deadlines (D <= T)")
    U = ts.utilization
    if U >= m:
        return BarOutcome(False, f"U = {show_number(U)} ≥ m = {m}: Eq. (9) needs U < m (precondition of the test)", 0)
    n = ts.n
    A_next = [0] * n
    work = [0]  # evaluations of (8) plus step points walked by next_A
    python_work = Work(work_budget)
    bounds: list[Fraction] = []
    limits: list[int] = []
    order: list[int] = []
    try:
        python_work.spend_big(4 * n, U)  # Eq. (9) for every k: operations on sums as large as U
        bounds = ak_bounds(ts, m)
        limits = [b.__floor__() for b in bounds]
        order = visiting_order(ts)
        return _search(ts, m, budget, bounds, limits, A_next, work, python_work, order)
    except WorkExhausted:
        k = next((k for k in order if A_next[k] <= limits[k]), None)
        return BarOutcome(
            UNKNOWN_VERDICT, python_work.describe(), work[0], tuple(bounds), k, None if k is None else A_next[k]
        )


def _search(
    ts: TaskSet,
    m: int,
    budget: int,
    bounds: list[Fraction],
    limits: list[int],
    A_next: list[int],
    work: list[int],
    python_work: Work,
    order: list[int],
) -> BarOutcome:
    """The round-robin search of :func:`analyse` (raises WorkExhausted past ``python_work``)."""
    active = True
    while active:
        active = False
        for k in order:
            A = A_next[k]
            if A > limits[k]:
                continue
            active = True
            if work[0] >= budget:
                return BarOutcome(
                    UNKNOWN_VERDICT,
                    f"work budget of {budget} exhausted at τ{k}, A_k = {A}",
                    work[0],
                    tuple(bounds),
                    k,
                    A,
                )
            work[0] += 1
            lhs, rhs, I1, I_diff = condition_8(ts, m, k, A, python_work)
            if lhs > rhs:
                return BarOutcome(
                    False, "Condition (8) fails", work[0], tuple(bounds), k, A, lhs, rhs, tuple(I1), tuple(I_diff)
                )
            kappa = _growing_terms(ts, k, A, python_work)
            A_next[k] = next_A(ts, k, A, rhs - lhs, kappa, limits[k], work, budget, python_work)
    return BarOutcome(True, "Condition (8) holds for every k and every A_k up to Eq. (9)", work[0], tuple(bounds))


def reference(ts: TaskSet, m: int, budget: int = DEFAULT_BUDGET, work_budget: int | None = REFERENCE_WORK) -> Verdict:
    """Exact BAR verdict: True, False (not proven) or "unknown" (a budget exhausted)."""
    return analyse(ts, m, budget, work_budget).verdict


def explain(ts: TaskSet, m: int, budget: int = DEFAULT_BUDGET, work_budget: int | None = REFERENCE_WORK) -> Explanation:
    """The failing (k, A_k) with both sides of (8), or the A_k bounds and the work done."""
    out = analyse(ts, m, budget, work_budget)
    evidence: dict[str, object] = {
        "reason": out.reason,
        "work": out.points,
        "budget": budget,
        "work_budget": work_budget,
    }
    per_task = []
    if out.bounds:
        per_task = [{"task": i, "A_k_bound": b} for i, b in enumerate(out.bounds)]
    if out.verdict is False and out.task is not None:
        summary = (
            f"(8) fails for {ts.label(out.task)} at A_k = {out.A}: "
            f"ΣI1 + top(m−1) I_DIFF = {out.lhs} > m·(A_k + D_k − C_k) = {out.rhs}"
        )
        evidence.update(task=out.task, A_k=out.A, lhs=out.lhs, rhs=out.rhs, I1=out.I1, I_diff=out.I_diff)
    elif out.verdict is False:
        summary = out.reason
    elif out.verdict == UNKNOWN_VERDICT:
        summary = f"unknown: {out.reason}"
        evidence.update(task=out.task, A_k=out.A)
    else:
        summary = f"(8) holds for all k and all A_k up to Eq. (9) ({out.points} work units)"
    return Explanation(verdict=out.verdict, summary=summary, evidence=evidence, per_task=per_task)


# --- kernels ---------------------------------------------------------------------------------
@njit(cache=True)
def _bar_set(C_all, D_all, T_all, lo, n, m, budget, idiff, scratch, A_next, limit, sure, inv, steps, order):  # noqa: ANN001, ANN202, C901 - numba
    # Full arrays plus an offset: slicing per set costs reference-count traffic in the hot path.
    C = C_all[lo:]
    D = D_all[lo:]
    T = T_all[lo:]
    u = 0.0
    y = 0.0
    sum_c = 0
    for i in range(n):
        inv[i] = 1.0 / T[i]
        ui = C[i] * inv[i]  # two roundings: relative error ≤ 2·EPS
        u += ui
        y += (T[i] - D[i]) * ui
        sum_c += C[i]
    slack_u = m - u
    # u carries at most (n + 2)·EPS·u relative error; decide U ≥ m only when clearly so.
    if slack_u < -8.0 * (n + 2) * EPS * m:
        return REJECT
    if slack_u <= 1e-4 * m:
        return UNDECIDED  # too close to U = m for a float bound on A_k: exact reference decides
    # C_Σ: sum of the m − 1 largest C (idiff as scratch input).
    for i in range(n):
        idiff[i] = C[i]
    c_sigma = top_sum(idiff, n, m - 1, scratch)
    inv_slack = 1.0 / slack_u
    base = c_sigma + y
    scale = 16.0 * (n + 8) * EPS * inv_slack
    for k in range(n):
        bound = (base - D[k] * slack_u + m * C[k]) * inv_slack
        # Rounding error of the float Eq. (9) (slack_u ≥ 1e-4·m keeps it well conditioned);
        # testing a few extra A_k is harmless: beyond the true bound (8) holds.
        err = scale * (base + D[k] * (m + u) + m * C[k]) + 1e-7 * abs(bound)
        limit[k] = bound + err + 1.0
        sure[k] = bound - err  # A ≤ sure ⇒ A ≤ ⌊exact bound⌋: the reference tests this point too
        A_next[k] = 0
    # Visiting order: decreasing density C/D, ties by index (insertion sort, exact products).
    for j in range(n):
        order[j] = j
        x = j
        while x > 0:
            a = order[x - 1]
            if C[j] * D[a] > C[a] * D[j]:
                order[x] = a
                x -= 1
            else:
                break
        order[x] = j
    # Every term of (8) is at most dbf' ≤ t·C/T + C, so |LHS|, RHS ≤ (m + 1)·t + 2ΣC.
    t_limit = (INT64_SAFE - 2.0 * sum_c) / (m + 1)
    points = 0
    extra = False  # evaluated a point the exact reference may skip?
    active = True
    while active:
        active = False
        for j in range(n):
            k = order[j]
            A = A_next[k]
            if A > limit[k]:
                continue
            active = True
            if points >= budget:
                # Same sequence and count as the reference unless we went past its limit.
                return UNKNOWN if (not extra and A <= sure[k]) else UNDECIDED
            points += 1
            if A > sure[k]:
                extra = True
            Ck = C[k]
            Dk = D[k]
            t = A + Dk
            if t > t_limit:
                return UNDECIDED
            cap = A + Dk - Ck + 1
            lhs = 0
            kappa = 0
            for i in range(n):
                c = C[i]
                d = D[i]
                p = T[i]
                q, r = divmod_fast(t, p, inv[i])
                carry = q * c + (c if c < r else r)
                # dbf from the same division: (⌊(t − d)/p⌋ + 1)·c = (q + [r ≥ d])·c for d ≤ p.
                if r >= d:
                    dem = (q + 1) * c
                    step = t + (p - r) + d
                else:
                    dem = q * c
                    step = t + (d - r)
                if i == k:
                    if A < dem - Ck:
                        i1 = A
                        kappa += 1
                    else:
                        i1 = dem - Ck
                    i2 = carry - Ck
                    if A < i2:
                        i2 = A
                else:
                    if dem > cap:
                        i1 = cap
                        kappa += 1
                    else:
                        i1 = dem
                    i2 = carry if carry < cap else cap
                lhs += i1
                idiff[i] = i2 - i1
                steps[i] = step
            lhs += top_sum(idiff, n, m - 1, scratch)
            rhs = m * (A + Dk - Ck)
            if lhs > rhs:
                return REJECT
            # Walk the step points as next_A does (same order, same work count).
            slack = rhs - lhs
            jumps = 0
            while True:
                t_step = steps[0]
                for i in range(1, n):
                    if steps[i] < t_step:
                        t_step = steps[i]
                delta = t_step - t
                if kappa >= 2:
                    first_bad = (slack - jumps) // (kappa - 1) + 1
                    if first_bad < delta:
                        A_next[k] = A + first_bad
                        break
                for i in range(n):
                    if steps[i] == t_step:
                        jumps += C[i]
                        steps[i] += T[i]
                points += 1
                if (kappa - 1) * delta + jumps > slack or A + delta > limit[k] or points >= budget:
                    A_next[k] = A + delta
                    break
                if A + delta > sure[k]:
                    extra = True  # the reference stops walking at ⌊exact bound⌋, maybe earlier
    return ACCEPT


@njit(cache=True)
def _bar_one(C, D, T, m, budget):  # noqa: ANN001, ANN202 - numba
    # The serial one-set kernel (what rtsched.check() calls): scratch for this set only, as rows
    # of two allocations.
    n = C.shape[0]
    ints = np.empty((5, n + 1), dtype=np.int64)
    floats = np.empty((3, n), dtype=np.float64)
    return _bar_set(
        C, D, T, 0, n, m, budget, ints[0], ints[1], ints[2], floats[0], floats[1], floats[2], ints[3], ints[4]
    )


@njit(parallel=True, cache=True)
def _bar_kernel(C, D, T, offsets, m, budget, out):  # noqa: ANN001, ANN202 - numba
    n_sets = out.shape[0]
    width = largest_set(offsets)
    n_chunks = (n_sets + CHUNK - 1) // CHUNK
    for c in prange(n_chunks):  # buffers once per chunk, not per set (as rows of two allocations)
        ints = np.empty((5, width + 1), dtype=np.int64)
        floats = np.empty((3, width), dtype=np.float64)
        idiff, scratch, A_next, steps, order = ints[0], ints[1], ints[2], ints[3], ints[4]
        limit, sure, inv = floats[0], floats[1], floats[2]
        for s in range(c * CHUNK, min(n_sets, (c + 1) * CHUNK)):
            lo = offsets[s]
            out[s] = _bar_set(
                C, D, T, lo, offsets[s + 1] - lo, m, budget, idiff, scratch, A_next, limit, sure, inv, steps, order
            )


ANALYSES = (
    Analysis(
        name="bar",
        title="Baruah 2007 (BAR), integer-time corrected",
        citation=CITATION,
        kind="sufficient",
        policy="global-edf",
        platform="identical",
        deadlines=("implicit", "constrained"),
        note="papers/baruah2007.md",
        reference=reference,
        explain=explain,
        kernel=_bar_kernel,
        one=_bar_one,
        budget=DEFAULT_BUDGET,
        budget_unit="work units (evaluations of Condition (8) and walked step points)",
        order=5,
        featured=True,
    ),
)
