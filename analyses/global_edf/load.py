"""LOAD: the load-based global EDF test of Baker and Baruah (RTS 2009); see papers/baker-baruah2009-load.md.

T. P. Baker and S. Baruah, "An analysis of global EDF schedulability for arbitrary-deadline
sporadic task systems", Real-Time Systems 43(1), 2009 (building on Baruah and Baker, ECRTS
2008). With the load

    load(τ) = max_{t > 0} Σ_i dbf(τi, t) / t,     dbf(τi, t) = max(0, (⌊(t − Di)/Ti⌋ + 1)·Ci),

the densities λi = Ci / min(Di, Ti), λmax = max λi and μ = m − (m − 1)·λmax, a sporadic task
system with *arbitrary* deadlines is global-EDF schedulable on m processors if

    load(τ) ≤ max( μ − (⌈μ⌉ − 1)·λmax ,  (⌈μ⌉ − 1) − (⌈μ⌉ − 2)·λmax ).                   (LOAD)

(The corollary number is given as "Corollary 2" in SchedCAT's ``load.cpp``; numbering
unverified against the paper, see the note.)

Deciding (LOAD) exactly: call the right-hand side β. The maximum of Σ dbf(t)/t is attained at
a step point t = Di + k·Ti. Since dbf(τi, t) ≤ Ui·t + Ui·max(0, Ti − Di), the condition
Σ dbf(t) ≤ β·t holds for every t ≥ X / (β − U) with X = Σ Ui·max(0, Ti − Di), so when U < β
only the finitely many step points below that bound are tested. When U > β the test fails
(load ≥ U). When U = β exactly, Σ dbf(t + H) = Σ dbf(t) + U·H for t ≥ max D (H the
hyperperiod), so the step points up to max D + H suffice. Every demand comparison is
Σ dbf(t)·den(β) ≤ num(β)·t in integers; floats appear only for "U vs β" and the stopping
rule, with a margin (inside it the reference decides).

OVERLOAD (rtsched's guard): a set with λmax > 1 is "not proven" whatever its load. In this
library's task model a task's jobs run one at a time (in release order), so with D > T a task
with C > T (the only way to get λ_i = C_i / min(D_i, T_i) > 1, as C ≤ D) has U_i > 1 and falls
behind by C_i − T_i every period: no scheduler meets its deadlines. (LOAD) itself does not
exclude it: for the single task (3, 4, 2) on m = 2, λmax = 3/2, μ = 1/2, β = 3/2 = load(τ) and
(LOAD) holds, yet the third job of releases 0, 2, 4 finishes at 9, after its deadline 8 (found
by the exact test with D > T, issue #47; tests/analyses/exact/test_exact_arbitrary.py). Baker
and Baruah's abstract says they consider D > T "with and without an implicit intra-task job
precedence constraint"; the right side of (LOAD) grows with λmax when ⌈μ⌉ = 1, which no
derivation for densities above 1 with precedence supports. Whether their text assumes
λmax ≤ 1 could not be checked (papers/baker-baruah2009-load.md).

Work budget: at most ``budget`` step points per set (default :data:`DEFAULT_BUDGET`); when it runs
out the verdict is "unknown" (never False). SchedCAT's C++ LA instead gives up after a CPU-time
limit and answers False.

Layers: :func:`analyse`/:func:`reference` (Python ints and Fractions), ``_load_one`` (int64 with
an overflow guard; floats only to decide when to stop, with a margin), ``_load_set`` (one set,
serial) and ``_load_kernel`` (prange), both made from ``_load_one`` by
:func:`rtsched.kernels.workspace_kernels`, declared to the registry (:mod:`rtsched.registry`).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction

from rtsched.analyses.global_edf._demand import INT64_SAFE, dbf, search_evidence, step_points
from rtsched.budget import REFERENCE_WORK, Work, WorkExhausted
from rtsched.kernels import ACCEPT, EPS, REJECT, UNDECIDED, UNKNOWN, deadline_step, kernel, workspace_kernels
from rtsched.model import TaskSet, fraction_sum
from rtsched.registry import Analysis
from rtsched.result import UNKNOWN as UNKNOWN_VERDICT
from rtsched.result import Explanation, Step, Verdict, count, show_number

__all__ = [
    "ANALYSES",
    "DEFAULT_BUDGET",
    "LoadOutcome",
    "analyse",
    "explain",
    "load",
    "load_bound",
    "reference",
    "steps",
]

CITATION = (
    "T. P. Baker, S. Baruah, 'An analysis of global EDF schedulability for arbitrary-deadline "
    "sporadic task systems', Real-Time Systems 43(1), 2009: load(τ) ≤ max(μ − (⌈μ⌉−1)λmax, "
    "⌈μ⌉ − 1 − (⌈μ⌉−2)λmax), μ = m − (m−1)λmax"
)

#: Default maximum number of step points t examined per task set.
DEFAULT_BUDGET = 100_000


@dataclass(frozen=True)
class LoadOutcome:
    """What the exact LOAD decision found (evidence for :func:`explain`)."""

    verdict: Verdict
    reason: str
    points: int
    bound: Fraction
    mu: Fraction
    lambda_max: Fraction
    t: int | None = None
    demand: int | None = None


def load_bound(ts: TaskSet, m: int) -> tuple[Fraction, Fraction, Fraction]:
    """(β, μ, λmax): the right-hand side of (LOAD), μ = m − (m − 1)·λmax, and λmax."""
    lam = ts.max_density
    mu = m - (m - 1) * lam
    c = math.ceil(mu)
    beta = max(mu - (c - 1) * lam, (c - 1) - (c - 2) * lam)
    return beta, mu, lam


def _total_dbf(ts: TaskSet, t: int, work: Work | None = None) -> int:
    if work is not None:
        work.spend(ts.n)
    return sum(dbf(c, d, p, t) for c, d, p in ts.rows())


def _ceil_ratio(x: Fraction, y: Fraction) -> int:
    """⌈x / y⌉ for y > 0, without reducing the quotient."""
    return -(-(x.numerator * y.denominator) // (x.denominator * y.numerator))


def _excess(ts: TaskSet) -> Fraction:
    """X = Σ U_i·max(0, T_i − D_i): Σ dbf(t) ≤ U·t + X for every t."""
    return fraction_sum(Fraction(int(c) * max(0, int(p - d)), int(p)) for c, d, p in zip(ts.C, ts.D, ts.T, strict=True))


def analyse(ts: TaskSet, m: int, budget: int = DEFAULT_BUDGET, work_budget: int | None = REFERENCE_WORK) -> LoadOutcome:
    """Decide load(τ) ≤ β exactly (see the module docstring for the finite set of t).

    ``work_budget`` caps the Python work (:mod:`rtsched.budget`): "unknown" past it.
    """
    beta, mu, lam = load_bound(ts, m)
    U = ts.utilization
    if lam > 1:  # rtsched's guard (OVERLOAD in the module docstring)
        return LoadOutcome(
            False,
            f"λmax = {show_number(lam)} > 1: a task with C > T has U_i > 1, and its jobs, run one at a time, fall "
            "ever further behind (the bound is not applied)",
            0, beta, mu, lam,
        )  # fmt: skip
    if U > beta:
        return LoadOutcome(False, f"U = {show_number(U)} > β = {show_number(beta)}, and load(τ) ≥ U", 0, beta, mu, lam)
    work = Work(work_budget)
    points = 0
    try:
        work.spend_big(4, U)
        excess = _excess(ts)
        # Past t ≥ X/(β − U) no point can fail; for integer t that is t ≥ ⌈X/(β − U)⌉, one integer
        # division (a Fraction quotient would reduce numbers of thousands of digits by their gcd).
        stop = _ceil_ratio(excess, beta - U) if U < beta else None
        horizon = None if U < beta else int(max(ts.D)) + ts.hyperperiod  # U = β exactly: rare
        for t in step_points(ts):
            if (stop is not None and t >= stop) or (horizon is not None and t > horizon):
                return LoadOutcome(True, "Σ dbf(t) ≤ β·t at every step point that matters", points, beta, mu, lam)
            if points >= budget:
                return LoadOutcome(
                    UNKNOWN_VERDICT, f"budget of {count(budget, 'step point')} exhausted at t = {t}", points, beta, mu, lam, t
                )
            demand = _total_dbf(ts, t, work)
            points += 1
            if demand > beta * t:
                return LoadOutcome(False, "Σ dbf(t) > β·t, so load(τ) > β", points, beta, mu, lam, t, demand)
    except WorkExhausted:
        return LoadOutcome(UNKNOWN_VERDICT, work.describe(), points, beta, mu, lam)
    raise AssertionError("unreachable: step points never end")


def load(
    ts: TaskSet, budget: int = DEFAULT_BUDGET, work_budget: int | None = REFERENCE_WORK
) -> tuple[Fraction, int | None] | None:
    """load(τ) exactly, with a t attaining it (None when the sup is U, reached only in the limit).

    Scans step points until no later point can beat the best value found (t ≥ X/(best − U)), or
    one hyperperiod past max D when nothing beats U. Returns None if a budget runs out.
    """
    work = Work(work_budget)
    try:
        U = ts.utilization
        work.spend_big(4, U)
        excess = _excess(ts)
        # max D + H ≥ max D + max T: the hyperperiod (an lcm as long as U's denominator) is
        # computed only if a step point gets that far.
        below_horizon = int(max(ts.D)) + int(max(ts.T))
        horizon: int | None = None
        best, where = U, None
        stop: int | None = None  # ⌈X/(best − U)⌉, recomputed when best grows
        for points, t in enumerate(step_points(ts)):
            if stop is not None and t >= stop:
                return best, where
            if t > below_horizon:
                horizon = int(max(ts.D)) + ts.hyperperiod if horizon is None else horizon
                if t > horizon:
                    return best, where
            if points >= budget:
                return None
            value = Fraction(_total_dbf(ts, t, work), t)
            if value > best:
                work.spend_big(1, U)
                best, where = value, t
                stop = _ceil_ratio(excess, best - U)
    except WorkExhausted:
        return None
    raise AssertionError("unreachable")


def reference(ts: TaskSet, m: int, budget: int = DEFAULT_BUDGET, work_budget: int | None = REFERENCE_WORK) -> Verdict:
    """Exact LOAD verdict: True, False (not proven) or "unknown" (a budget exhausted)."""
    return analyse(ts, m, budget, work_budget).verdict


def explain(ts: TaskSet, m: int, budget: int = DEFAULT_BUDGET, work_budget: int | None = REFERENCE_WORK) -> Explanation:
    """β, μ, λmax, the exact load when it fits in the budget, and the violating t if any."""
    out = analyse(ts, m, budget, work_budget)
    evidence = search_evidence(
        out.reason, out.points, ts, budget, work_budget, bound=out.bound, mu=out.mu, max_density=out.lambda_max
    )
    exact = load(ts, budget, work_budget)
    if exact is not None:
        evidence["load"] = exact[0]
        evidence["load_at_t"] = exact[1]
    if out.verdict is False and out.t is not None:
        summary = (
            f"Σdbf({out.t}) = {out.demand} > β·t = {show_number(out.bound * out.t)} (β = {show_number(out.bound)})"
        )
        evidence.update(t=out.t, demand=out.demand)
    elif out.verdict is False:
        summary = out.reason
    elif out.verdict == UNKNOWN_VERDICT:
        summary = f"unknown: {out.reason}"
    else:
        shown = f"load = {show_number(exact[0])}" if exact is not None else "load"
        summary = (
            f"{shown} ≤ β = {show_number(out.bound)} (μ = {show_number(out.mu)}, λmax = {show_number(out.lambda_max)})"
        )
    return Explanation(verdict=out.verdict, summary=summary, evidence=evidence, steps=lambda: steps(ts, m, out, exact))


def steps(ts: TaskSet, m: int, out: LoadOutcome, exact: tuple[Fraction, int | None] | None) -> Iterator[Step]:
    """(LOAD) as a lecturer writes it: λmax, μ, β, then Σ dbf(t) against β·t (from :func:`explain`'s results)."""
    lam, mu, beta = out.lambda_max, out.mu, out.bound
    densest = max(range(ts.n), key=lambda i: Fraction(int(ts.C[i]), int(min(ts.D[i], ts.T[i]))))
    yield Step(f"λmax = max C_i/min(D_i, T_i) = {{lam}} ({ts.label(densest)})", {"lam": lam})
    yield Step(f"μ = m − (m − 1)·λmax = {m} − {m - 1}·{{lam}} = {{mu}}", {"lam": lam, "mu": mu})
    c = math.ceil(mu)
    a, b = mu - (c - 1) * lam, (c - 1) - (c - 2) * lam
    yield Step(
        f"β = max(μ − (⌈μ⌉ − 1)·λmax, (⌈μ⌉ − 1) − (⌈μ⌉ − 2)·λmax), ⌈μ⌉ = {c}: max({{a}}, {{b}}) = {{beta}}",
        {"a": a, "b": b, "beta": beta},
    )
    U = ts.utilization
    if U > beta:
        yield Step("U = {U} > β = {beta}, and load(τ) ≥ U: not proven", {"U": U, "beta": beta})
        return
    if out.verdict is False and out.t is not None:
        yield Step(
            f"at t = {out.t}: Σ dbf(t) = {out.demand} > β·t = {{bt}}: load(τ) > β, not proven",
            {"bt": beta * out.t},
        )
        return
    if out.verdict is True:
        bound = "X/(β − U), X = Σ U_i·max(0, T_i − D_i); past it Σ dbf(t) ≤ U·t + X ≤ β·t"
        if out.points == 0 and U < beta:
            yield Step(f"no step point t = D_i + k·T_i lies below {bound}: Σ dbf(t) ≤ β·t for every t")
        else:
            where = "the only step point" if out.points == 1 else f"the {out.points} step points"
            where += " t = D_i + k·T_i that matter"
            if U < beta:
                where += f" (below {bound})"
            yield Step(f"Σ dbf(t) ≤ β·t at {where}")
        if exact is not None:
            at = "" if exact[1] is None else f" at t = {exact[1]}"
            yield Step(
                f"load(τ) = {{load}}{at} ≤ β = {{beta}}: schedulable by global EDF", {"load": exact[0], "beta": beta}
            )
        else:
            yield Step("load(τ) ≤ β: schedulable by global EDF")
    else:
        yield Step(f"unknown: {out.reason}")


# --- kernels ---------------------------------------------------------------------------------
@kernel(inline="always")
def _load_one(C, D, T, m, budget, ints, floats):
    """One set in scratch rows (``ints[0]``: each task's next absolute deadline; ``floats`` unused)."""
    n = C.shape[0]
    nxt = ints[0, :n]
    # λmax = C_j / d_j exactly (integer cross-multiplication), d = min(D, T).
    cj = C[0]
    dj = D[0] if D[0] < T[0] else T[0]
    u = 0.0
    excess = 0.0
    sum_c = 0
    for i in range(n):
        d = D[i] if D[i] < T[i] else T[i]
        if C[i] * dj > cj * d:
            cj = C[i]
            dj = d
        u += C[i] / T[i]
        if T[i] > D[i]:
            excess += (T[i] - D[i]) * (C[i] / T[i])
        sum_c += C[i]
        nxt[i] = D[i]
    if cj > dj:
        return REJECT  # λmax > 1: some U_i > 1, never schedulable (OVERLOAD in the module docstring)
    # β = beta_num / dj with μ = mu_num / dj.
    mu_num = m * dj - (m - 1) * cj
    c = -((-mu_num) // dj)
    b1 = mu_num - (c - 1) * cj
    b2 = (c - 1) * dj - (c - 2) * cj
    beta_num = b1 if b1 > b2 else b2
    beta = beta_num / dj
    err = 4.0 * (n + 4) * EPS * (beta + u)
    gap = beta - u
    if gap < -err:
        return REJECT  # U > β, so load ≥ U > β
    if gap <= err:
        return UNDECIDED  # U = β possibly: the reference scans one hyperperiod exactly
    # demand·dj ≤ (m·t + X + ΣC)·dj must stay below 2^61.
    t_limit = (INT64_SAFE / dj - excess - sum_c) / (m + 1)
    stop_factor = gap - err
    excess_hi = excess * (1.0 + 4.0 * (n + 4) * EPS) + 1e-300
    excess_lo = excess * (1.0 - 4.0 * (n + 4) * EPS)
    demand = 0
    points = 0
    while True:
        t, at_t = deadline_step(C, T, nxt)  # the next step point and the demand added there
        if t * stop_factor >= excess_hi:
            return ACCEPT  # t·(β − U) ≥ X for sure: no later step point can fail
        if points >= budget:
            # The reference stops at the first t with t·(β − U) ≥ X; if that surely has not
            # happened yet it runs out of budget here too.
            return UNKNOWN if t * (gap + err) < excess_lo else UNDECIDED
        if t > t_limit:
            return UNDECIDED
        points += 1
        demand += at_t
        if demand * dj > beta_num * t:
            return REJECT


_load_kernel, _load_set = workspace_kernels(_load_one, ints=1)


ANALYSES = (
    Analysis(
        name="load", title="Baker–Baruah 2009 load test (LOAD)", kind="sufficient", order=6,
        policy="global-edf", policy_order=0, deadlines=("implicit", "constrained", "arbitrary"),
        citation=CITATION, note="papers/baker-baruah2009-load.md",
        reference=reference, explain=explain, kernel=_load_kernel, one=_load_set,
        budget=DEFAULT_BUDGET, budget_unit="step points", compile_seconds=2.0,
    ),
)
