"""FF-DBF: the forced-forward demand bound test for global EDF (BBMS, RTS 2010); see papers/bbmss2010-ffdbf.md.

S. Baruah, V. Bonifaci, A. Marchetti-Spaccamela, S. Stiller, "Improved multiprocessor global
schedulability analysis", Real-Time Systems 46(1), 2010 (ECRTS 2009 version: "Implementation of
a speedup-optimal global EDF schedulability test"). With q = ⌊t/Ti⌋, r = t mod Ti,

    ffdbf(τi, t, σ) = q·Ci + { Ci                   if r ≥ Di
                              { Ci − (Di − r)·σ      if Di > r ≥ Di − Ci/σ
                              { 0                    otherwise,

a constrained-deadline sporadic system is global-EDF schedulable on m processors if

    ∃ σ ∈ [λmax, (m − U)/(m − 1)] :  ∀ t ≥ 0 :  ffdbf(τ, t, σ) ≤ (m − (m − 1)·σ)·t.        (FF)

(Theorem numbering unverified; see the note.) We restrict σ ≤ 1 as SchedCAT does (σ is a speed);
that can only lose precision, never soundness.

Exact search instead of a grid of σ values (SchedCAT steps σ by 1/50 and stops t at ΣC/ε):

* For fixed σ, ffdbf(τ, t, σ) − (m − (m − 1)σ)·t is continuous and piecewise linear in t and its
  slope only *drops* at the ramp ends t = Di + k·Ti, so its maxima are at those points: the
  testing set is {Di + k·Ti}, independent of σ.
* For fixed t, g_t(σ) = ffdbf(τ, t, σ) − (m − (m − 1)σ)·t is convex and piecewise linear in σ
  (breakpoints σ = Ci/(Di − r)), so {σ : g_t(σ) ≤ 0} is an interval [lo_t, hi_t].
* The witnesses form the interval [λmax, min(1, σcap)] ∩ ⋂_t [lo_t, hi_t]. We scan t upwards
  keeping [L, R] = the intersection so far (exact rationals), and stop with witness σ = L once
  t·(m − (m − 1)L − U) ≥ ΣC (then ffdbf ≤ U·t + ΣC ≤ (m − (m − 1)L)·t for all later t), or
  reject when the interval empties. When L = σcap exactly the slack is 0 and
  g(t + H) = g(t) (H the hyperperiod), so t ≤ H suffices.

Work budget: at most ``budget`` testing points t per set (default :data:`DEFAULT_BUDGET`); when it
runs out the verdict is "unknown" (never False).

m = 1 is accepted too: ffdbf ≥ dbf, so (FF) implies the uniprocessor processor-demand criterion.

Layers: :func:`analyse`/:func:`reference` (Fractions), ``_ffdbf_one`` (int64 rationals with an
overflow guard; floats only for the comparisons with U, with a margin, UNDECIDED inside it),
``_ffdbf_ws`` (one set in scratch rows) with its serial ``_ffdbf_set`` and batch ``_ffdbf_kernel``
(:func:`rtsched.kernels.workspace_kernels`), declared to the registry.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from rtsched.analyses.global_edf._demand import ffdbf, search_evidence, step_points
from rtsched.budget import REFERENCE_WORK, Work, WorkExhausted
from rtsched.errors import InputError
from rtsched.kernels import (
    ACCEPT,
    EPS,
    REJECT,
    UNDECIDED,
    UNKNOWN,
    deadline_step,
    floor_divmod_branchy,
    gcd,
    kernel,
    workspace_kernels,
)
from rtsched.model import TaskSet, fraction_sum
from rtsched.registry import Analysis
from rtsched.result import UNKNOWN as UNKNOWN_VERDICT
from rtsched.result import Explanation, Step, Verdict, count, show_number

__all__ = [
    "ANALYSES",
    "DEFAULT_BUDGET",
    "FfdbfOutcome",
    "analyse",
    "explain",
    "g",
    "reference",
    "steps",
]

CITATION = (
    "S. Baruah, V. Bonifaci, A. Marchetti-Spaccamela, S. Stiller, 'Improved multiprocessor global "
    "schedulability analysis', Real-Time Systems 46(1), 2010: ∃σ ≥ λmax ∀t: ffdbf(τ, t, σ) ≤ "
    "(m − (m−1)σ)·t, searched exactly over σ"
)

#: Default maximum number of testing points t per task set.
DEFAULT_BUDGET = 100_000


@dataclass(frozen=True)
class FfdbfOutcome:
    """What the exact σ search found (evidence for :func:`explain`)."""

    verdict: Verdict
    reason: str
    points: int
    sigma_low: Fraction
    sigma_high: Fraction
    t: int | None = None


def g(ts: TaskSet, m: int, t: int, sigma: Fraction, work: Work | None = None) -> Fraction:
    """g_t(σ) = ffdbf(τ, t, σ) − (m − (m − 1)σ)·t; (FF) holds at (t, σ) iff g_t(σ) ≤ 0.

    ``work`` (optional) is charged three units per task (each ffdbf term costs several Fraction
    operations; :mod:`rtsched.budget`).
    """
    if work is not None:
        work.spend(3 * ts.n)
    return fraction_sum(ffdbf(c, d, p, t, sigma) for c, d, p in ts.rows()) - (m - (m - 1) * sigma) * t


def _pieces(ts: TaskSet, m: int, t: int) -> tuple[int, list[tuple[Fraction, int, int]]]:
    """g_t as base + Σ_active (C − w·σ) − m·t + (m − 1)·t·σ; returns (base, [(C/w, C, w)])."""
    base = 0
    ramps = []
    for c, d, p in ts.rows():
        q, r = divmod(t, p)
        base += q * c
        if r >= d:
            base += c
        else:
            ramps.append((Fraction(c, d - r), c, d - r))
    return base, ramps


def _root(
    ts: TaskSet, m: int, t: int, lo: Fraction, hi: Fraction, upward: bool, work: Work | None = None
) -> Fraction | None:
    """Smallest (upward) / largest σ in [lo, hi] with g_t(σ) ≤ 0, knowing g_t > 0 at the start.

    Walks the linear pieces of g_t between its breakpoints C/w; on a piece where g_t is
    A + B·σ the crossing is −A/B.
    """
    if work is not None:
        work.spend(ts.n)
    base, ramps = _pieces(ts, m, t)
    cuts = sorted({b for b, _, _ in ramps if lo < b < hi})
    edges = [lo, *cuts, hi]
    order = range(len(edges) - 1) if upward else range(len(edges) - 2, -1, -1)
    for j in order:
        if work is not None:
            work.spend(len(ramps))
        a, b = edges[j], edges[j + 1]
        active = [(c, w) for beta, c, w in ramps if beta >= b]  # active (C − wσ > 0) inside (a, b)
        A = base + sum(c for c, _ in active) - m * t
        B = (m - 1) * t - sum(w for _, w in active)
        end = b if upward else a
        if A + B * end <= 0:
            return Fraction(-A, B)
    return None


def analyse(
    ts: TaskSet,
    m: int,
    budget: int = DEFAULT_BUDGET,
    work_budget: int | None = REFERENCE_WORK,
    trace: list[tuple[int, str, Fraction | None]] | None = None,
) -> FfdbfOutcome:
    """Decide (FF) exactly: scan the testing points keeping the interval of witnesses σ.

    ``work_budget`` caps the Python work (:mod:`rtsched.budget`): "unknown" past it. ``trace``
    (for :func:`steps`) receives ``(t, "low" or "high", new end)`` each time a testing point
    narrows the interval, and ``(t, "empty", None)`` when one empties it.
    """
    if not ts.is_constrained:
        raise InputError("FF-DBF (BBMS 2010) needs constrained deadlines (D <= T)")
    U = ts.utilization
    L, R = ts.max_density, Fraction(1)
    if U > m:
        return FfdbfOutcome(False, f"U = {show_number(U)} > m", 0, L, R)
    cap = (m - U) / (m - 1) if m > 1 else None
    if cap is not None and L > cap:
        return FfdbfOutcome(
            False, f"λmax = {show_number(L)} > (m − U)/(m − 1) = {show_number(cap)}: no σ can work", 0, L, R
        )
    sum_c = sum(int(c) for c in ts.C)
    hyper = None
    points = 0
    work = Work(work_budget)
    stop_for: Fraction | None = None  # the L that ``stop`` was computed for
    stop: int | None = None  # ⌈ΣC/slack⌉: (FF) holds at σ = L for every integer t ≥ stop when slack > 0
    slack = Fraction(0)
    t = None
    try:
        work.spend_big(4, U)
        for t in step_points(ts):
            if stop_for != L:  # one integer division per new L keeps each test below linear
                work.spend_big(2, U)
                slack = m - (m - 1) * L - U
                stop = -(-(sum_c * slack.denominator) // slack.numerator) if slack > 0 else None
                stop_for = L
            if stop is not None and t >= stop:
                return FfdbfOutcome(
                    True,
                    f"σ = {show_number(L)} is a witness: (FF) holds up to t = {t} and beyond by the U·t + ΣC bound",
                    points,
                    L,
                    R,
                )
            if slack == 0:
                hyper = ts.hyperperiod if hyper is None else hyper
                if t > hyper:
                    return FfdbfOutcome(
                        True,
                        f"σ = {show_number(L)} is a witness: (FF) holds over one hyperperiod (periodic slack 0)",
                        points,
                        L,
                        R,
                    )
            if points >= budget:
                return FfdbfOutcome(
                    UNKNOWN_VERDICT, f"budget of {count(budget, 'testing point')} exhausted at t = {t}", points, L, R, t
                )
            points += 1
            if g(ts, m, t, L, work) > 0:
                new = _root(ts, m, t, L, R, True, work)
                if trace is not None:
                    trace.append((t, "low" if new is not None else "empty", new))
                if new is None:
                    return FfdbfOutcome(
                        False,
                        f"no σ in [{show_number(L)}, {show_number(R)}] satisfies (FF) at t = {t}",
                        points,
                        L,
                        R,
                        t,
                    )
                L = new
                if cap is not None and L > cap:
                    return FfdbfOutcome(
                        False, f"(FF) at t = {t} needs σ ≥ {show_number(L)} > (m − U)/(m − 1)", points, L, R, t
                    )
            if g(ts, m, t, R, work) > 0:
                new = _root(ts, m, t, L, R, False, work)
                assert new is not None  # g_t(L) ≤ 0
                R = new
                if trace is not None:
                    trace.append((t, "high", new))
    except WorkExhausted:
        return FfdbfOutcome(UNKNOWN_VERDICT, work.describe(), points, L, R, t)
    raise AssertionError("unreachable")


def reference(ts: TaskSet, m: int, budget: int = DEFAULT_BUDGET, work_budget: int | None = REFERENCE_WORK) -> Verdict:
    """Exact FF-DBF verdict: True, False (not proven) or "unknown" (a budget exhausted)."""
    return analyse(ts, m, budget, work_budget).verdict


def explain(ts: TaskSet, m: int, budget: int = DEFAULT_BUDGET, work_budget: int | None = REFERENCE_WORK) -> Explanation:
    """The witness σ (or the t where the interval of candidate σ emptied) and the work done."""
    out = analyse(ts, m, budget, work_budget)
    evidence = search_evidence(
        out.reason, out.points, ts, budget, work_budget,
        sigma_low=out.sigma_low, sigma_high=out.sigma_high, max_density=ts.max_density,
    )
    if out.t is not None:
        evidence["t"] = out.t
    if out.verdict is True:
        summary = f"witness σ = {show_number(out.sigma_low)}: ffdbf(τ, t, σ) ≤ (m − (m−1)σ)·t for all t"
        evidence["sigma"] = out.sigma_low
    elif out.verdict == UNKNOWN_VERDICT:
        summary = f"unknown: {out.reason}"
    else:
        summary = out.reason
    return Explanation(
        verdict=out.verdict, summary=summary, evidence=evidence, steps=lambda: steps(ts, m, budget, work_budget)
    )


def steps(ts: TaskSet, m: int, budget: int = DEFAULT_BUDGET, work_budget: int | None = REFERENCE_WORK) -> Iterator[Step]:
    """(FF) as a lecturer writes it: the interval of candidate σ and how each testing point narrows it."""
    events: list[tuple[int, str, Fraction | None]] = []
    out = analyse(ts, m, budget, work_budget, trace=events)
    U = ts.utilization
    yield Step(
        f"(FF) on m = {m}: find σ ∈ [λmax, 1], σ ≤ (m − U)/(m − 1), with ffdbf(τ, t, σ) ≤ (m − (m − 1)σ)·t at "
        "every testing point t = D_i + k·T_i"
    )
    start = {"lam": ts.max_density, "U": U}
    if m > 1:
        start["cap"] = (m - U) / (m - 1)
        yield Step("U = {U}; candidates σ ∈ [{lam}, 1], σ ≤ {cap}", start)
    else:
        yield Step("U = {U}; candidates σ ∈ [{lam}, 1]", start)
    for t, end, value in events:
        if end == "low":
            yield Step(f"t = {t}: (FF) fails below σ = {{v}}: lower end raised to {{v}}", {"v": value})
        elif end == "high":
            yield Step(f"t = {t}: (FF) fails above σ = {{v}}: upper end lowered to {{v}}", {"v": value})
        else:
            yield Step(f"t = {t}: (FF) fails for every σ left: no witness, not proven")
    if out.verdict is True:
        why = out.reason.split(": ", 1)[-1]
        yield Step(f"σ = {{sigma}} is a witness ({why}): schedulable by global EDF", {"sigma": out.sigma_low})
    elif out.verdict == UNKNOWN_VERDICT:
        yield Step(f"unknown: {out.reason}")
    elif not events or events[-1][1] != "empty":
        yield Step(f"{out.reason}: not proven")


# --- kernels ---------------------------------------------------------------------------------
# error_model="numpy" on _g_scaled and _ffdbf_one: no zero-division checks (each a branch that
# can raise). Their divisors are T_i ≥ 1, gcd(C_0, D_0) ≥ 1 and L_d ≥ 1 (D_i, or a root's
# reduced denominator); _root_kernel, whose gcd of a degenerate piece would be 0, keeps the
# checks. Measurements: papers/bbmss2010-ffdbf.md, "Performance".
@kernel(error_model="numpy", counted=False)
def _g_scaled(C, D, base, rem, n, m, t, num, den):
    """Den · g_t(num/den) in int64 (caller guards the magnitude)."""
    total = base * den - m * t * den + (m - 1) * t * num
    for i in range(n):
        if rem[i] < D[i]:
            v = C[i] * den - (D[i] - rem[i]) * num
            if v > 0:
                total += v
    return total


@kernel(counted=False)
def _root_kernel(C, D, base, rem, n, m, t, lo_n, lo_d, hi_n, hi_d, upward, out):
    """Kernel twin of :func:`_root`; writes (num, den) into ``out``; returns False if no root."""
    # Walk pieces between breakpoints C_i/w_i strictly inside (lo, hi).
    a_n, a_d = (lo_n, lo_d) if upward else (hi_n, hi_d)
    while True:
        # Next breakpoint beyond the current end in the walking direction.
        b_n, b_d = (hi_n, hi_d) if upward else (lo_n, lo_d)
        for i in range(n):
            if rem[i] < D[i]:
                c = C[i]
                w = D[i] - rem[i]
                if upward:
                    if c * a_d > a_n * w and c * b_d < b_n * w:  # a < C/w < b
                        b_n, b_d = c, w
                else:
                    if c * a_d < a_n * w and c * b_d > b_n * w:  # b < C/w < a
                        b_n, b_d = c, w
        # The piece is (a, b) upward or (b, a) downward; active tasks have C/w ≥ right end.
        r_n, r_d = (b_n, b_d) if upward else (a_n, a_d)
        A = base - m * t
        B = (m - 1) * t
        for i in range(n):
            if rem[i] < D[i]:
                c = C[i]
                w = D[i] - rem[i]
                if c * r_d >= r_n * w:
                    A += c
                    B -= w
        # g at the far end b of the piece is (A·b_d + B·b_n)/b_d.
        if A * b_d + B * b_n <= 0:
            num = -A
            den = B
            if den < 0:
                num = -num
                den = -den
            gg = gcd(num, den)
            out[0] = num // gg
            out[1] = den // gg
            return True
        if upward:
            if b_n * hi_d == hi_n * b_d:
                return False
        else:
            if b_n * lo_d == lo_n * b_d:
                return False
        a_n, a_d = b_n, b_d


@kernel(error_model="numpy", counted=False)
def _ffdbf_one(C, D, T, m, budget, rem, nxt, inv, root):
    n = C.shape[0]
    u = 0.0
    sum_c = 0
    sum_d = 0
    max_d = 0
    L_n = C[0]
    L_d = D[0]
    for i in range(n):
        u += C[i] / T[i]
        sum_c += C[i]
        sum_d += D[i]
        if D[i] > max_d:
            max_d = D[i]
        if C[i] * L_d > L_n * D[i]:
            L_n = C[i]
            L_d = D[i]
    gl = gcd(L_n, L_d)
    L_n //= gl
    L_d //= gl
    R_n = np.int64(1)  # int64, not literals: a literal argument compiles its callee once more (issue #46)
    R_d = np.int64(1)
    err = 4.0 * (n + 4) * EPS * (m + u)
    if u - m > err:
        return REJECT
    # λmax ≤ (m − U)/(m − 1)  ⇔  m − (m − 1)·λmax − U ≥ 0 (for m = 1 it reads 1 − U ≥ 0).
    slack = m - (m - 1) * (L_n / L_d) - u
    if slack < -err:
        return REJECT
    if slack <= err:
        return UNDECIDED  # on or near the boundary: exact reference
    points = 0
    maybe_stopped = False
    for i in range(n):
        nxt[i] = D[i]  # next ramp end of each task
        inv[i] = 1.0 / T[i]
    while True:
        t, _ = deadline_step(C, T, nxt)  # the next ramp end D_i + k·T_i
        slack = m - (m - 1) * (L_n / L_d) - u
        if t * (slack - err) >= sum_c * (1.0 + err):
            return ACCEPT
        if t * (slack + err) >= sum_c * (1.0 - err):
            maybe_stopped = True  # the exact reference may already have stopped (accepted)
        if points >= budget:
            return UNDECIDED if maybe_stopped else UNKNOWN
        points += 1
        # Magnitudes: base ≤ U·t + ΣC, every term of den·g ≤ den·((m + 1)·t + 2ΣC + ΣD), and
        # the piece coefficients A, B (≤ size) meet denominators ≤ max(den, max D) in _root_kernel.
        size = (m + 2.0) * t + 2.0 * sum_c + sum_d
        dmax = L_d if L_d > R_d else R_d
        if dmax < max_d:
            dmax = max_d
        if dmax * size > 2.0**59 or dmax > 2**31:
            return UNDECIDED
        base = np.int64(0)
        for i in range(n):
            q, r = floor_divmod_branchy(t, T[i], inv[i])  # a branch: see its docstring
            rem[i] = r
            base += q * C[i]
            if r >= D[i]:
                base += C[i]
        if _g_scaled(C, D, base, rem, n, m, t, L_n, L_d) > 0:
            if not _root_kernel(C, D, base, rem, n, m, t, L_n, L_d, R_n, R_d, np.bool_(True), root):
                return REJECT
            L_n = root[0]
            L_d = root[1]
            if L_d > 2**31 or L_d <= 0:  # (L_d ≥ 1 always; without the zero check, 0 must not divide)
                return UNDECIDED
            s2 = m - (m - 1) * (L_n / L_d) - u
            if s2 < -err:
                return REJECT
            if s2 <= err:
                return UNDECIDED
        if _g_scaled(C, D, base, rem, n, m, t, R_n, R_d) > 0:
            _root_kernel(C, D, base, rem, n, m, t, L_n, L_d, R_n, R_d, np.bool_(False), root)
            R_n = root[0]
            R_d = root[1]
            if R_d > 2**31:
                return UNDECIDED


@kernel(inline="always")
def _ffdbf_ws(C, D, T, m, budget, ints, floats):
    """``_ffdbf_one`` in scratch rows: ``rem``, ``nxt`` and the root pair in ``ints``, 1/T in ``floats``."""
    n = C.shape[0]
    return _ffdbf_one(C, D, T, m, budget, ints[0, :n], ints[1, :n], floats[0, :n], ints[2, :2])


_ffdbf_kernel, _ffdbf_set = workspace_kernels(_ffdbf_ws, ints=3, floats=1)


#: Why this analysis refuses arbitrary deadlines (D > T): ``rtsched list`` and ``check`` show it
#: (issue #47; papers/arbitrary-deadlines-reductions.md, "Global EDF").
ARBITRARY_WHY = (
    "needs constrained deadlines (D <= T): the FF-DBF paper (Baruah, Bonifaci, Marchetti-Spaccamela, "
    "Stiller, RTS 2010) could not be read to check whether or how it covers D > T; use gfb or load"
)


ANALYSES = (
    Analysis(
        name="ffdbf", title="Forced-forward dbf test (FF-DBF), exact σ search",
        kind="sufficient", order=7, policy="global-edf", policy_order=0,
        citation=CITATION, note="papers/bbmss2010-ffdbf.md",
        reference=reference, explain=explain, kernel=_ffdbf_kernel, one=_ffdbf_set,
        budget=DEFAULT_BUDGET, budget_unit="testing points", compile_seconds=5.9,
        deadlines_note=ARBITRARY_WHY,
    ),
)
