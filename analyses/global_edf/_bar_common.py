"""Shared BAR machinery for ``bar`` and ``bar-int`` (private module, not discovered).

Both analyses check, for every task τk and integer A_k ≥ 0 up to a bound, Baruah's Condition (8)
(RTSS 2007; papers/baruah2007.md) with the integer-time cap A_k + D_k − C_k + 1,

    Σ_i I1(τi) + Σ_{(m−1) largest} I_DIFF(τi) ≤ m · (A_k + D_k − C_k) + tight · (m − 1)

and differ only in the right side: ``tight = 0`` is BAR as published with Baruah's correction
(:mod:`rtsched.analyses.global_edf.bar`); ``tight = 1`` is rtsched's integer-time tightening
(:mod:`rtsched.analyses.global_edf.bar_int`, proved in papers/bar-int.md): a missed job runs at most C_k − 1
whole ticks, so the interference fills at least m·(A_k + D_k − C_k + 1) processor-ticks and the
test may accept whenever the left side is at most one less. The range of A_k comes from Eq. (9)
for ``tight = 0`` and from its integer-time analogue for ``tight = 1``

    A_k ≤ (C_Σ − D_k·(m − U) + Σ_i (T_i − D_i)·U_i + (m − tight)·C_k − tight·(m − 1)) / (m − U)

(C_Σ = the m − 1 largest C_i); both need U < m.

What is shared (everything but the registry entries and the ``prange``/serial drivers, which each
analysis module declares as literal module-level functions): the exact Python search
(:func:`analyse`, :func:`condition_8`, :func:`next_A`, :func:`visiting_order`,
:func:`ak_bounds`), the explanation (:func:`explain_outcome`) and the int64 one-set kernel
``_bar_set``. The skip rule, the round-robin order, the budget accounting and the float margins
are those documented in :mod:`rtsched.analyses.global_edf.bar`; none of them depends on the constant
``tight·(m − 1)`` on the right side (the rule bounds the growth of LHS − RHS, not its value).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
from numba import prange

from rtsched.analyses.global_edf._demand import INT64_SAFE, dbf, dbf_carry_in, divmod_fast, top_sum
from rtsched.analyses.theory.workload import largest_set
from rtsched.budget import REFERENCE_WORK, Work, WorkExhausted
from rtsched.errors import InputError
from rtsched.kernels import (
    ACCEPT,
    EPS,
    REJECT,
    UNDECIDED,
    UNKNOWN,
    batch_kernel,
    deadline_step,
    insert_sorted,
    kernel,
    largest_set_size,
)
from rtsched.model import TaskSet, fraction_sum
from rtsched.result import UNKNOWN as UNKNOWN_VERDICT
from rtsched.result import Explanation, Step, Verdict, show_number

__all__ = [
    "CHUNK",
    "FLOAT_ROWS",
    "INT_ROWS",
    "DEFAULT_BUDGET",
    "BarOutcome",
    "ak_bounds",
    "all_sets",
    "analyse",
    "condition_8",
    "explain_outcome",
    "next_A",
    "one_set",
    "run_serial",
    "sets_chunk",
    "visiting_order",
]

#: Default maximum number of work units (evaluations of the condition and walked step points).
DEFAULT_BUDGET = 100_000
#: Task sets per parallel work item (buffers are allocated once per item).
CHUNK = 64


@dataclass(frozen=True)
class BarOutcome:
    """What the exact BAR search found (the evidence behind the explanations).

    ``points`` is the work spent: evaluations of the condition plus step points walked by
    :func:`next_A`.
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


def ak_bounds(ts: TaskSet, m: int, tight: int = 0) -> list[Fraction]:
    """The largest A_k that can violate the condition, for each k (needs U < m).

    ``tight = 0``: Eq. (9) of Baruah 2007. ``tight = 1``: the integer-time bound of
    papers/bar-int.md, (Y + C_Σ + (m − 1)(C_k − 1))/(m − U) − D_k with Y = Σ(T_i − D_i)U_i.
    """
    U = ts.utilization
    costs = sorted((int(c) for c in ts.C), reverse=True)
    c_sigma = sum(costs[: m - 1])
    y = fraction_sum(Fraction(int(t - d) * int(c), int(t)) for c, d, t in zip(ts.C, ts.D, ts.T, strict=True))
    cm, c0 = m - tight, tight * (m - 1)
    return [(c_sigma - int(d) * (m - U) + y + cm * int(c) - c0) / (m - U) for c, d in zip(ts.C, ts.D, strict=True)]


def condition_8(
    ts: TaskSet, m: int, k: int, A: int, work: Work | None = None, tight: int = 0
) -> tuple[int, int, list[int], list[int]]:
    """Both sides of the condition for task k and interval A_k = A: (LHS, RHS, I1, I_DIFF).

    RHS = m·(A_k + D_k − C_k) + tight·(m − 1): Condition (8) for ``tight = 0``, (8-int) of
    papers/bar-int.md for ``tight = 1``.
    """
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
    return lhs, m * (A + Dk - Ck) + tight * (m - 1), I1, I_diff


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
    """The next A_k that can violate the condition after A_k = A passed with ``slack`` = RHS − LHS ≥ 0.

    From A to A + δ each I1 term at its cap (κ of them) grows by at most δ, every other I1 term
    by at most the dbf jumps in (t, t + δ] (t = A + D_k), and the m − 1 largest I_DIFF by at
    most (m − 1)·δ (dbf' is continuous). So f = LHS − RHS satisfies
    f(A + δ) ≤ f(A) + (κ − 1)·δ + J(δ), with J(δ) the sum of the dbf jumps of all tasks in
    (t, t + δ]. We walk the step points in order and return the first A + δ where that bound
    becomes positive (or the first one past ``limit``). Each walked step point costs one unit of
    ``work[0]``; the walk also stops when the budget is spent. ``python_work`` (optional) is
    charged n terms per step point (:mod:`rtsched.budget`). The constant part of RHS does not
    enter: the rule is the same for ``bar`` and ``bar-int``.
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


def analyse(
    ts: TaskSet,
    m: int,
    budget: int = DEFAULT_BUDGET,
    work_budget: int | None = REFERENCE_WORK,
    tight: int = 0,
    label: str = "(8)",
    name: str = "BAR (Baruah 2007)",
) -> BarOutcome:
    """Run the search exactly; the outcome carries the failing (k, A_k) or the work done.

    The points (k, A_k) are visited round-robin over k (one point of each task per round, as
    SchedCAT's C++ does) in :func:`visiting_order`, because violations are usually found at
    small A_k. ``work_budget`` caps the Python work (:mod:`rtsched.budget`): "unknown" past it.
    ``label`` names the condition in the reasons ("(8)" for ``bar``), ``name`` the test in
    input errors.
    """
    if not ts.is_constrained:
        raise InputError(f"{name} needs constrained deadlines (D <= T)")
    U = ts.utilization
    if U >= m:
        bound_name = "Eq. (9)" if tight == 0 else "(9-int)"
        return BarOutcome(
            False, f"U = {show_number(U)} ≥ m = {m}: {bound_name} needs U < m (precondition of the test)", 0
        )
    n = ts.n
    A_next = [0] * n
    work = [0]  # evaluations of the condition plus step points walked by next_A
    python_work = Work(work_budget)
    bounds: list[Fraction] = []
    limits: list[int] = []
    order: list[int] = []
    try:
        python_work.spend_big(4 * n, U)  # the bound for every k: operations on sums as large as U
        bounds = ak_bounds(ts, m, tight)
        limits = [b.__floor__() for b in bounds]
        order = visiting_order(ts)
        return _search(ts, m, budget, bounds, limits, A_next, work, python_work, order, tight, label)
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
    tight: int,
    label: str,
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
            lhs, rhs, I1, I_diff = condition_8(ts, m, k, A, python_work, tight)
            if lhs > rhs:
                return BarOutcome(
                    False, f"Condition {label} fails", work[0], tuple(bounds), k, A, lhs, rhs, tuple(I1), tuple(I_diff)
                )
            kappa = _growing_terms(ts, k, A, python_work)
            A_next[k] = next_A(ts, k, A, rhs - lhs, kappa, limits[k], work, budget, python_work)
    bound_name = "Eq. (9)" if tight == 0 else "(9-int)"
    return BarOutcome(
        True, f"Condition {label} holds for every k and every A_k up to {bound_name}", work[0], tuple(bounds)
    )


def explain_outcome(
    ts: TaskSet,
    out: BarOutcome,
    budget: int,
    work_budget: int | None,
    label: str,
    rhs_text: str,
    bound_name: str,
    m: int,
) -> Explanation:
    """The failing (k, A_k) with both sides of the condition, or the A_k bounds and the work done.

    ``label`` names the condition ("(8)"), ``rhs_text`` its right side ("m·(A_k + D_k − C_k)"),
    ``bound_name`` the bound on A_k ("Eq. (9)"); ``m`` the processors (for the steps).
    """
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
            f"{label} fails for {ts.label(out.task)} at A_k = {out.A}: "
            f"ΣI1 + top(m−1) I_DIFF = {out.lhs} > {rhs_text} = {out.rhs}"
        )
        evidence.update(task=out.task, A_k=out.A, lhs=out.lhs, rhs=out.rhs, I1=out.I1, I_diff=out.I_diff)
    elif out.verdict is False:
        summary = out.reason
    elif out.verdict == UNKNOWN_VERDICT:
        summary = f"unknown: {out.reason}"
        evidence.update(task=out.task, A_k=out.A)
    else:
        summary = f"{label} holds for all k and all A_k up to {bound_name} ({out.points} work units)"
    return Explanation(
        verdict=out.verdict,
        summary=summary,
        evidence=evidence,
        per_task=per_task,
        steps=lambda: outcome_steps(ts, m, out, label, rhs_text, bound_name),
    )


def outcome_steps(ts: TaskSet, m: int, out: BarOutcome, label: str, rhs_text: str, bound_name: str) -> Iterator[Step]:
    """The search as a lecturer writes it: the bounds on A_k, then the failing point term by term or the work done."""
    U = ts.utilization
    if not out.bounds:  # U ≥ m: the precondition fails before any bound
        yield Step(f"{out.reason}: not proven")
        return
    bounds = {f"b{i}": b for i, b in enumerate(out.bounds)}
    yield Step(f"U = {{U}} < m = {m}", {"U": U})
    yield Step(
        f"the largest A_k that can violate {label}, {bound_name}: "
        + ", ".join(f"{ts.label(i)} {{b{i}}}" for i in range(ts.n)),
        bounds,
    )
    yield Step(
        f"{label} at (k, A_k): Σ_i I1_i + the {m - 1} largest I_DIFF_i ≤ {rhs_text}, the points visited "
        "round-robin over k, skipping the A_k where neither side can change the outcome"
    )
    if out.verdict is False and out.task is not None:
        k, A = out.task, out.A
        assert A is not None and out.lhs is not None
        yield Step(f"{ts.label(k)} at A_k = {A} (window A_k + D_k = {A + int(ts.D[k])}):")
        yield Step("  I1: " + ", ".join(f"{ts.label(i)} {v}" for i, v in enumerate(out.I1)))
        yield Step("  I_DIFF (carry-in minus I1): " + ", ".join(f"{ts.label(i)} {v}" for i, v in enumerate(out.I_diff)))
        top = sum(sorted(out.I_diff, reverse=True)[: m - 1])
        yield Step(
            f"  Σ I1 + top {m - 1} I_DIFF = {sum(out.I1)} + {top} = {out.lhs} > {rhs_text} = {out.rhs}: "
            f"{label} fails, not proven"
        )
    elif out.verdict is True:
        yield Step(f"{label} holds at every point visited ({out.points} work units): schedulable by global EDF")
    else:
        yield Step(f"unknown: {out.reason}")


# --- the one-set kernel ------------------------------------------------------------------------
#: Rows of the integer workspace of ``_bar_set`` (each of length ≥ n + 1).
_IDIFF, _SCRATCH, _A_NEXT, _STEPS, _ORDER = 0, 1, 2, 3, 4
INT_ROWS = 5
#: Rows of its float workspace (each of length ≥ n).
_LIMIT, _SURE, _INV = 0, 1, 2
FLOAT_ROWS = 3


@kernel(inline="always")
def _task_terms(c, d, p, t, q, r, cap):
    # τi's terms at t = q·p + r (0 ≤ r < p) as a task i ≠ k, for _condition_at and _first_point:
    # I1 = min(dbf, cap), I2 = min(dbf', cap), whether dbf > cap (κ counts them), and τi's next
    # dbf step point after t. dbf comes from the same division as dbf':
    # (⌊(t − d)/p⌋ + 1)·c = (q + [r ≥ d])·c for d ≤ p; the step point is t + (d − r) + [r ≥ d]·p.
    ge = int(r >= d)
    dem = (q + ge) * c
    carry = q * c + (c if c < r else r)
    over = dem > cap
    i1 = cap if over else dem
    i2 = carry if carry < cap else cap
    return i1, i2, int(over), t + (d - r) + ge * p


# error_model="numpy" on this module's non-inlined kernels: no zero-division checks (each a branch
# that can raise, which keeps loops scalar and their min/max branchy). Every divisor here is
# non-zero: T_i ≥ 1, m + 1, slack_u ≥ 1e-4·m (smaller returns UNDECIDED first) and κ − 1 ≥ 1
# (guarded). Measurements: papers/baruah2007.md, "Performance".
@kernel(error_model="numpy", counted=False)
def _condition_at(C, D, T, inv, n, m, k, A, c0, idiff, scratch, steps):
    # Both sides of the condition at (k, A) and κ (the I1 terms at their cap); ``steps`` gets
    # each task's next dbf step point after t = A + D_k (for the skip rule). A call, not inlined:
    # it has two call sites, and inlining it doubled the kernel's compile time for no speed.
    Ck = C[k]
    Dk = D[k]
    t = A + Dk
    cap = A + Dk - Ck + 1
    lhs = 0
    kappa = 0
    # Every task first as i ≠ k, without branches on the data (the comparisons become selects).
    for i in range(n):
        p = T[i]
        q, r = divmod_fast(t, p, inv[i])
        i1, i2, over, step = _task_terms(C[i], D[i], p, t, q, r, cap)
        kappa += over
        lhs += i1
        idiff[i] = i2 - i1
        steps[i] = step
    # Then τk's own terms in place of its generic ones: I1 = min(dbf − C_k, A), I2 = min(dbf' − C_k, A).
    q, r = divmod_fast(t, T[k], inv[k])
    dem = (q + int(r >= Dk)) * Ck
    carry = q * Ck + (Ck if Ck < r else r)
    lhs -= cap if dem > cap else dem
    kappa -= int(dem > cap)
    if A < dem - Ck:
        i1 = A
        kappa += 1
    else:
        i1 = dem - Ck
    i2 = carry - Ck
    if A < i2:
        i2 = A
    lhs += i1
    idiff[k] = i2 - i1
    lhs += _top(idiff, n, m - 1, scratch)
    return lhs, m * (A + Dk - Ck) + c0, kappa


@kernel(inline="always")
def _top(values, n, count, scratch):
    # Sum of the ``count`` largest of values[:n] (non-negative): top_sum, but for count ≤ 3
    # (m ≤ 4) kept in registers with min/max only, no data-dependent branch (top_sum's insertion
    # branches mispredict on these values and cost more than the rest of an evaluation).
    if count >= n or count > 3:
        return top_sum(values, n, count, scratch)
    if count <= 0:
        return 0
    a = 0
    b = 0
    c = 0
    for i in range(n):
        v = values[i]
        lo = min(a, v)
        a = max(a, v)
        lo2 = min(b, lo)
        b = max(b, lo)
        c = max(c, lo2)
    if count == 1:
        return a
    if count == 2:
        return a + b
    return a + b + c


@kernel(inline="always")
def _first_point(C, D, T, n, m, k, c0, idiff, scratch, steps):
    # _condition_at(…, k, A_k = 0, …) without the float reciprocals, the same three values and
    # step points: t = D_k, and for every task with T_i > t the division is q = 0, r = t (the
    # common case), so only tasks with T_i ≤ t divide. τk itself contributes 0 to I1, I_DIFF and
    # κ (dbf(τk, D_k) = dbf'(τk, D_k) = C_k for D_k ≤ T_k) and its next step point is D_k + T_k.
    Dk = D[k]
    t = Dk
    cap = Dk - C[k] + 1
    lhs = 0
    kappa = 0
    for i in range(n):
        c = C[i]
        d = D[i]
        p = T[i]
        if i == k:
            idiff[i] = 0
            steps[i] = t + p
            continue
        if t < p:
            q = 0
            r = t
        else:
            q = t // p
            r = t - q * p
        i1, i2, over, step = _task_terms(c, d, p, t, q, r, cap)
        kappa += over
        lhs += i1
        idiff[i] = i2 - i1
        steps[i] = step
    lhs += _top(idiff, n, m - 1, scratch)
    return lhs, m * (Dk - C[k]) + c0, kappa


@kernel(inline="always")
def _skip_step(C, T, steps, t, kappa, slack, jumps):
    # One step of next_A's walk (the skip rule) in the kernel: ``steps`` holds each task's next
    # dbf step point after t (as _condition_at left it, one row of length n) and ``jumps`` the
    # dbf jumps J walked so far. Returns (δ, J, violated): δ the offset from t of the next step
    # point and J including its jumps, or, when the bound (κ − 1)·δ + J may exceed ``slack``
    # before that point (κ ≥ 2), the first such δ and violated = True. Advancing ``steps`` in
    # that case too is harmless: _condition_at rewrites them before the next walk.
    t_step, at_step = deadline_step(C, T, steps)
    delta = t_step - t
    if kappa >= 2:
        first_bad = (slack - jumps) // (kappa - 1) + 1
        if first_bad < delta:
            return first_bad, jumps, True
    return delta, jumps + at_step, False


@kernel(inline="always")
def _range_passes(C, inv, steps, n, t, span, kappa, slack, index):
    # Whether (κ − 1)·δ + J*(δ) ≤ slack for every δ in [0, span] (see the caller), decided in
    # float with a margin above its rounding error: False if unsure. The supremum is at a
    # g_i = steps[i] − t ≤ span or at span. The tasks with g_i ≤ span go into ``index`` in
    # increasing g_i (insertion sort), then one sweep keeps running sums, so that at x = g_j
    # J*(x) = Σ C_i + x·Σ C_i/T_i − Σ g_i·C_i/T_i over the g_i ≤ x, instead of J* summed afresh at
    # every point (n·(n + 1) terms). With tied g_i a point is also checked with only part of its
    # jumps: a smaller value, so never a false pass. Rounding: the three sums have at most n
    # non-negative terms of at most three rounded factors, then two products and three additions:
    # |error| ≤ (2n + 10)·EPS·size, below the tolerance's 8(n + 4)·EPS·size for every n.
    count = 0
    for i in range(n):
        g = steps[i]
        if g - t > span:
            continue
        insert_sorted(index, count, steps, i)
        count += 1
    tol = 1e-9 + 8.0 * (n + 4) * EPS
    slope = float(kappa - 1)
    jumps = 0.0  # Σ C_i over the g_i ≤ x
    rate = 0.0  # Σ C_i/T_i over the g_i ≤ x
    offset = 0.0  # Σ g_i·C_i/T_i over the g_i ≤ x
    for j in range(count + 1):
        if j < count:
            i = index[j]
            x = float(steps[i] - t)
            jumps += C[i]
            b = C[i] * inv[i]
            rate += b
            offset += b * x
        else:
            x = float(span)
        v = slope * x + jumps + rate * x - offset
        size = abs(slope * x) + jumps + rate * x + offset
        if v > slack - tol * (size + slack + 1.0):
            return False
    return True


@kernel(error_model="numpy", counted=False)
def _bar_set(C_all, D_all, T_all, lo, n, m, budget, tight, ints, floats):
    # Full arrays plus an offset: slicing per set costs reference-count traffic in the hot path.
    # ``tight`` = 0 (bar) or 1 (bar-int): RHS = m·(A + D_k − C_k) + tight·(m − 1), and the A_k
    # bound's numerator has (m − tight)·C_k − tight·(m − 1) in place of m·C_k. ``ints`` and
    # ``floats`` are the workspaces (INT_ROWS rows of length ≥ n + 1, FLOAT_ROWS of length ≥ n).
    C = C_all[lo:]
    D = D_all[lo:]
    T = T_all[lo:]
    idiff = ints[_IDIFF]
    scratch = ints[_SCRATCH]
    A_next = ints[_A_NEXT]
    steps = ints[_STEPS, :n]  # length n: the walk's deadline_step reads its length
    order = ints[_ORDER]
    limit = floats[_LIMIT]
    sure = floats[_SURE]
    inv = floats[_INV]
    cm = m - tight
    c0 = tight * (m - 1)
    # rtsched's first-point shortcut (papers/baruah2007.md, "first point"): a violation of the
    # condition at any (k, A_k) implies A_k < the bound of Eq. (9) (resp. (9-int)) when U < m, so
    # a violation at (densest task, A_k = 0) is met by the reference at its first point, after
    # one unit of work; with U ≥ m the reference rejects as well. Either way: REJECT, decided
    # before any division by a period (most rejected sets end here).
    first = 0
    sum_c = 0
    for k in range(n):
        sum_c += C[k]
        if C[k] * D[first] > C[first] * D[k]:  # decreasing density, ties by index (exact products)
            first = k
    # Overflow guard: every term is ≤ t + C_i, so |LHS| ≤ n·t + ΣC and RHS ≤ m·t + m.
    # A pass is kept (both sides, κ, and the step points in ``steps``): the whole-range skip
    # below starts with this point and uses it instead of evaluating it again.
    have_first = False
    first_lhs = first_rhs = first_kappa = 0
    if budget >= 1 and n > 0 and float(n + m + 1) * D[first] + float(sum_c + m) < 2.0**62:
        first_lhs, first_rhs, first_kappa = _first_point(C, D, T, n, m, first, c0, idiff, scratch, steps)
        if first_lhs > first_rhs:
            return REJECT
        have_first = True
    u = 0.0
    y = 0.0
    for i in range(n):
        inv[i] = 1.0 / T[i]
        ui = C[i] * inv[i]  # two roundings: relative error ≤ 2·EPS
        u += ui
        y += (T[i] - D[i]) * ui
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
    # Every term is at most dbf' ≤ t·C/T + C, so |LHS|, RHS ≤ (m + 1)·t + 2ΣC (+ m − 1 for
    # bar-int: far inside the factor 4 between INT64_SAFE = 2**61 and the int64 limit).
    t_limit = (INT64_SAFE - 2.0 * sum_c) / (m + 1)
    for k in range(n):
        bound = (base - D[k] * slack_u + cm * C[k] - c0) * inv_slack
        # Rounding error of the float bound (slack_u ≥ 1e-4·m keeps it well conditioned); the
        # integers cm·C_k and c0 are exact. Testing a few extra A_k is harmless: beyond the true
        # bound the condition holds.
        err = scale * (base + D[k] * (m + u) + cm * C[k] + c0) + 1e-7 * abs(bound)
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
    # rtsched's whole-range skip (papers/baruah2007.md, "Whole-range skip"): when the reference
    # provably finishes within the budget, its verdict is "some (k, A_k ≤ ⌊bound_k⌋) violates the
    # condition" (the skip rule never passes over a violation), so any exact search gives it. The
    # reference spends for task k at most ⌊bound_k⌋ + 1 evaluations and, walking distinct step
    # points up to D_k + ⌊bound_k⌋ and one beyond, at most n + 1 + bound_k·Σ 1/T_i walked points.
    sum_inv = 0.0
    for i in range(n):
        sum_inv += inv[i]
    total = 0.0
    for k in range(n):
        if limit[k] >= 0.0:
            total += limit[k] * (1.0 + sum_inv) + n + 2.0
    if total * (1.0 + 1e-9) + 4.0 <= budget:
        for j in range(n):
            k = order[j]
            top_f = limit[k] - 1.0  # bound_k + its error margin
            if top_f < 0.0:
                continue
            top = int(top_f)  # ≥ ⌊bound_k⌋: testing beyond the bound is harmless
            A = np.int64(0)  # not the literal 0: that would compile _condition_at a second time (issue #46)
            while A <= top:
                t = A + D[k]
                if t + (top - A) > t_limit:
                    return UNDECIDED
                if j == 0 and A == 0 and k == first and have_first:
                    # The first point, evaluated above (order[0] is the densest task, ties by
                    # index, as ``first``; ``steps`` untouched since).
                    lhs, rhs, kappa = first_lhs, first_rhs, first_kappa
                else:
                    lhs, rhs, kappa = _condition_at(C, D, T, inv, n, m, k, A, c0, idiff, scratch, steps)
                if lhs > rhs:
                    return REJECT
                slack = rhs - lhs
                # f(A + δ) ≤ f(A) + (κ − 1)·δ + J(δ) for every δ ≥ 0 (the skip rule): if it stays
                # ≤ 0 up to δ = top − A, with J the sum of all dbf jumps in (t, t + top − A], the
                # rest of the range passes.
                span = top - A
                end = t + span
                jumps = 0
                for i in range(n):
                    if steps[i] <= end:
                        jumps += (divmod_fast(end - steps[i], T[i], inv[i])[0] + 1) * C[i]
                if (kappa - 1 if kappa > 1 else 0) * span + jumps <= slack:
                    break
                # The same with J(δ) ≤ J*(δ) = Σ_{g_i ≤ δ} C_i·(1 + (δ − g_i)/T_i) (g_i = next step
                # of τi after t): piecewise linear with upward jumps, so its supremum over
                # [0, span] is at a g_i or at span; one sorted sweep in float with a margin (the
                # scratch row as the sort's index: _condition_at is done with it).
                if _range_passes(C, inv, steps, n, t, span, kappa, slack, scratch):
                    break
                # Otherwise walk the step points as the search below does.
                jumps = 0
                while True:
                    delta, jumps, violated = _skip_step(C, T, steps, t, kappa, slack, jumps)
                    if violated or (kappa - 1) * delta + jumps > slack or A + delta > top:
                        A = A + delta
                        break
        return ACCEPT
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
            t = A + D[k]
            if t > t_limit:
                return UNDECIDED
            lhs, rhs, kappa = _condition_at(C, D, T, inv, n, m, k, A, c0, idiff, scratch, steps)
            if lhs > rhs:
                return REJECT
            # Walk the step points as next_A does (same order, same work count).
            slack = rhs - lhs
            jumps = 0
            while True:
                delta, jumps, violated = _skip_step(C, T, steps, t, kappa, slack, jumps)
                if violated:
                    A_next[k] = A + delta
                    break
                points += 1
                if (kappa - 1) * delta + jumps > slack or A + delta > limit[k] or points >= budget:
                    A_next[k] = A + delta
                    break
                if A + delta > sure[k]:
                    extra = True  # the reference stops walking at ⌊exact bound⌋, maybe earlier
    return ACCEPT


@kernel(error_model="numpy")
def one_set(C, D, T, m, budget, tight):
    """The serial one-set kernel of bar (``tight`` 0) and bar-int (1): workspaces for this set only."""
    n = C.shape[0]
    ints = np.empty((INT_ROWS, n + 1), dtype=np.int64)
    floats = np.empty((FLOAT_ROWS, n), dtype=np.float64)
    return _bar_set(C, D, T, np.int64(0), n, m, budget, tight, ints, floats)  # lo as int64, as the batch passes it


@kernel(error_model="numpy", counted=False)
def sets_chunk(C, D, T, offsets, first, last, m, budget, tight, out, ints, floats):
    """Sets ``first, …, last − 1`` of a batch on one workspace: the serial loop of bar and bar-int.

    The ``prange`` body of :func:`all_sets` and the whole of the serial twin (:func:`run_serial`).
    A function of its own, not the ``prange`` body, for compile time (issue #46): Numba's parfor
    passes then see a call, not the loop, and a batch on one thread never compiles the driver.
    """
    for s in range(first, last):
        lo = offsets[s]
        out[s] = _bar_set(C, D, T, lo, offsets[s + 1] - lo, m, budget, tight, ints, floats)


@batch_kernel(error_model="numpy")
def all_sets(C, D, T, offsets, m, budget, tight, out):
    """The prange driver of bar (``tight`` 0) and bar-int (1): workspaces once per chunk of sets.

    ``tight`` must arrive as an int64, not a literal (``np.int64(0)``): a literal argument would
    make Numba compile this driver and everything it calls once per value.
    """
    n_sets = out.shape[0]
    width = largest_set(offsets)
    n_chunks = (n_sets + CHUNK - 1) // CHUNK
    for c in prange(n_chunks):
        ints = np.empty((INT_ROWS, width + 1), dtype=np.int64)
        floats = np.empty((FLOAT_ROWS, width), dtype=np.float64)
        sets_chunk(C, D, T, offsets, c * CHUNK, min(n_sets, (c + 1) * CHUNK), m, budget, tight, out, ints, floats)


def run_serial(C, D, T, offsets, m, budget, tight, out):
    """:func:`all_sets` on the calling thread (the serial twin, :func:`rtsched.kernels.serial`)."""
    width = largest_set_size(offsets)
    ints = np.empty((INT_ROWS, width + 1), dtype=np.int64)
    floats = np.empty((FLOAT_ROWS, width), dtype=np.float64)
    sets_chunk(C, D, T, offsets, 0, out.shape[0], m, budget, np.int64(tight), out, ints, floats)
