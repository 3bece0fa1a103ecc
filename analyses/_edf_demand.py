"""Shared EDF demand machinery: dbf, h(t), the L bounds, QPA, dbf* (private; see papers/).

Used by :mod:`rtsched.analyses.uniprocessor_edf` (``uni-pda``, ``uni-qpa``), by
:mod:`rtsched.analyses.partitioned_edf` (admission tests of the ``p:*`` family) and meant to be
reused by the GPU analysis on arbitrary ``C``/``D``/``T`` arrays. Sources:

* processor-demand criterion and the bounds L_a (George, Rivierre, Spuri 1996) and L_b
  (synchronous busy period), QPA: Zhang & Burns, "Schedulability analysis for real-time systems
  with EDF scheduling", IEEE TC 58(9), 2009 -- papers/zhang-burns2009-qpa.md;
* dbf* (the linear approximation of dbf): Baruah & Fisher, IEEE TC 55(7), 2006 --
  papers/baruah-fisher2006.md.

Public entry points
-------------------
``qpa_one(C, D, T, budget) -> int8``
    Serial ``@njit`` QPA on one uniprocessor task set given as three int64 arrays (any length;
    constrained or arbitrary deadlines; time values at most 2**31 − 1 as in
    :mod:`rtsched.model`). U > 1 is rejected and total density ≤ 1 accepted before any search
    (both exact). Returns a verdict code of
    :mod:`rtsched.kernels`: ACCEPT, REJECT, UNKNOWN (work budget exhausted) or UNDECIDED (an
    int64 overflow or a float margin: decide with :func:`qpa_reference`).
``qpa_reference(rows, budget) -> bool | "unknown"``
    The same test in Python integers and Fractions; ``rows`` is ``[(C, D, T), ...]``.

Work budget (identical in the reference and the kernels, so their verdicts agree, "unknown"
included): one *step* is one evaluation of the busy-period function W(w) = Σ⌈w/T_i⌉C_i or of the
demand h(t) (one checked deadline for the PDA). Before each step, if ``budget`` steps were
already spent, the answer is "unknown". Computing the start point ``max{d < L}`` is not a step.
The Python references also spend a :class:`~rtsched.budget.Work` budget (n terms per step, more
for the exact sums U and L_a, whose denominators grow with n); it binds only for large n, where
the reference answers "unknown" (reason ``"work"``) and the kernel still decides.

Exactness: every decision is made with integers. Floats serve only as a fast bracket: where a
float value lies within its proven rounding margin of a boundary, the exact integer/Fraction
decision is taken, and where that would overflow int64 the kernel answers UNDECIDED.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from numba import njit

from rtsched.budget import Work, WorkExhausted
from rtsched.kernels import ACCEPT, EPS, REJECT, UNDECIDED, UNKNOWN
from rtsched.model import fraction_sum
from rtsched.result import UNKNOWN as UNKNOWN_VERDICT
from rtsched.result import Verdict

__all__ = [
    "DEFAULT_BUDGET",
    "DemandTrace",
    "busy_period_function",
    "dbf",
    "dbf_star",
    "dbf_star_check",
    "demand",
    "demand_bound",
    "grs_bound",
    "pda_one",
    "pda_trace",
    "prev_deadline",
    "qpa_one",
    "qpa_one_steps",
    "qpa_reference",
    "qpa_trace",
]

#: Default work budget (steps, see the module docstring) of QPA and the PDA.
DEFAULT_BUDGET = 10**6

#: Bounds at or above this value are not handled in int64 (the kernel answers UNDECIDED).
_LIMIT = 2**62
#: Exact rational accumulation keeps denominators at most this (so sums of two terms fit).
_FRAC_LIMIT = 2**60

Rows = Sequence[tuple[int, int, int]]

# ---------------------------------------------------------------------------------------------
# Reference layer: Python ints and Fractions, mirroring the papers' equations.
# ---------------------------------------------------------------------------------------------


def deadline_steps(rows: Rows) -> Iterator[tuple[int, int]]:
    """Yield ``(t, h(t))`` at every distinct absolute deadline t = D_i + k·T_i, in increasing order.

    h(t) is the synchronous processor demand Σ dbf(τi, t); the walk never ends (callers stop it).
    Shared by the exact processor-demand references (uni-pda here, non-preemptive EDF in np_edf).
    """
    heap = [(d, i) for i, (_, d, _) in enumerate(rows)]
    heapq.heapify(heap)
    h = 0
    while True:
        t = heap[0][0]
        while heap[0][0] == t:
            _, i = heapq.heappop(heap)
            h += rows[i][0]
            heapq.heappush(heap, (t + rows[i][2], i))
        yield t, h


def dbf(C: int, D: int, T: int, t: int) -> int:
    """Demand bound function of one task: max(0, ⌊(t − D)/T⌋ + 1)·C  [Zhang & Burns, Eq. (1)]."""
    if t < D:
        return 0
    return ((t - D) // T + 1) * C


def demand(rows: Rows, t: int) -> int:
    """Processor demand h(t) = Σ_i dbf_i(t)  [Zhang & Burns, Eq. (1)]."""
    return sum(dbf(c, d, p, t) for c, d, p in rows)


def busy_period_function(rows: Rows, w: int) -> int:
    """W(w) = Σ_i ⌈w/T_i⌉·C_i, whose least fixed point is the synchronous busy period L_b."""
    return sum(-(-w // p) * c for c, _, p in rows)


def prev_deadline(rows: Rows, t: int) -> int | None:
    """max{d : d an absolute deadline k·T_i + D_i (k ≥ 0), d < t}, or None if there is none."""
    best = None
    for _, d, p in rows:
        if d < t:
            cand = d + (t - 1 - d) // p * p
            if best is None or cand > best:
                best = cand
    return best


def grs_bound(rows: Rows) -> Fraction | None:
    """L_a = max{D_1 − T_1, …, D_n − T_n, Σ(T_i − D_i)U_i / (1 − U)} for U < 1, else None.

    George, Rivierre, Spuri (1996), as stated by Zhang & Burns (2009), Thm. 2 (numbering as in
    papers/zhang-burns2009-qpa.md). If h(t) > t then t < L_a.
    """
    U = fraction_sum(Fraction(c, p) for c, _, p in rows)
    if U >= 1:
        return None
    N = fraction_sum(Fraction(c * (p - d), p) for c, d, p in rows)
    return max(Fraction(max(d - p for _, d, p in rows)), N / (1 - U))


@dataclass(frozen=True)
class DemandTrace:
    """What a demand analysis (QPA or PDA) found on one uniprocessor task set.

    Attributes
    ----------
    verdict:
        True (schedulable), False, or "unknown" (work budget exhausted).
    reason:
        ``"U>1"``, ``"density"`` (density ≤ 1, QPA only), ``"violation"``, ``"no-deadline"``
        (no deadline below L), ``"qpa-exit"``
        (QPA reached h(t) ≤ d_min), ``"all-checked"`` (PDA checked every deadline), ``"budget"``,
        ``"work"`` (the reference's Python work budget, :mod:`rtsched.budget`).
    utilization:
        U, exactly (None if the work budget ran out before it was summed).
    La, Lb, L:
        The GRS bound (None when U ≥ 1), the busy period (None when it was not needed because
        the iteration passed L_a first, or when U > 1) and the bound used, min(L_a, L_b).
    t, h:
        The witness t with h(t) > t on failure; on success the last point checked.
    steps:
        Work spent (module docstring).
    """

    verdict: Verdict
    reason: str
    utilization: Fraction | None
    La: Fraction | None
    Lb: int | None
    L: Fraction | int | None
    t: int | None
    h: int | None
    steps: int


def demand_bound(
    rows: Rows, budget: int, work: Work | None = None
) -> tuple[Fraction | None, int | None, Fraction | int | None, int, bool]:
    """Compute (L_a, L_b, L, steps, exhausted) with L = min(L_a, L_b)  [Zhang & Burns, Thm. 2-3].

    L_b is the least fixed point of W, iterated from w = ΣC_i; while U < 1 the iteration stops
    as soon as w ≥ L_a (then L = L_a ≤ L_b and L_b is not needed). Requires U ≤ 1.
    """
    if work is not None:
        work.spend(2 * len(rows))
    La = grs_bound(rows)
    if work is not None and La is not None:
        work.spend_size(2 * len(rows), La)
    w = sum(c for c, _, _ in rows)
    steps = 0
    while True:
        if La is not None and w >= La:
            return La, None, La, steps, False
        if steps >= budget:
            return La, None, None, steps, True
        if work is not None:
            work.spend(len(rows))
        steps += 1
        w2 = busy_period_function(rows, w)
        if w2 == w:
            return La, w, w, steps, False
        w = w2


def _max_deadline_below(rows: Rows, L: Fraction | int) -> int | None:
    """max{d : d < L} over the absolute deadlines D_i + k·T_i."""
    best = None
    for _, d, p in rows:
        if d < L:
            k = -(-(Fraction(L) - d) // p) - 1  # largest k with d + k·p < L
            cand = d + int(k) * p
            if best is None or cand > best:
                best = cand
    return best


def _prologue(
    rows: Rows, budget: int, work: Work | None = None
) -> DemandTrace | tuple[Fraction, Fraction | None, int | None, Fraction | int, int, int]:
    """U > 1 check and the bound; returns a final trace or (U, La, Lb, L, t0, steps)."""
    U = fraction_sum(Fraction(c, p) for c, _, p in rows)
    if not rows:
        return DemandTrace(True, "no-deadline", U, None, None, None, None, None, 0)
    if U > 1:
        return DemandTrace(False, "U>1", U, None, None, None, None, None, 0)
    La, Lb, L, steps, exhausted = demand_bound(rows, budget, work)
    if exhausted:
        return DemandTrace(UNKNOWN_VERDICT, "budget", U, La, None, None, None, None, steps)
    assert L is not None
    if work is not None:
        work.spend_size(len(rows), Fraction(L))
    t0 = _max_deadline_below(rows, L)
    if t0 is None:
        return DemandTrace(True, "no-deadline", U, La, Lb, L, None, None, steps)
    return U, La, Lb, L, t0, steps


def _sum_u(rows: Rows, work: Work) -> Fraction:
    """U = Σ C_i/T_i, charged to ``work``."""
    work.spend(len(rows))
    U = fraction_sum(Fraction(c, p) for c, _, p in rows)
    work.spend_size(len(rows), U)
    return U


def qpa_trace(rows: Rows, budget: int = DEFAULT_BUDGET, work: Work | None = None) -> DemandTrace:
    """QPA (Zhang & Burns 2009, Thm. 5 and its algorithm) with the trace of its decision.

    U > 1 is rejected at once; a set of total density Σ C_i/min(D_i, T_i) ≤ 1 is accepted at once
    (a sufficient condition, so the verdict is unchanged; it saves the search); otherwise:

    ``t ← max{d < L}``; while h(t) ≤ t and h(t) > d_min: t ← h(t) if h(t) < t, else
    t ← max{d < t}. Schedulable iff the loop ends with h(t) ≤ d_min.

    ``work`` is the Python work budget (:mod:`rtsched.budget`; default: a fresh
    :data:`~rtsched.budget.REFERENCE_WORK`); when it runs out the trace says "unknown" (reason
    ``"work"``).
    """
    rows = [(int(c), int(d), int(p)) for c, d, p in rows]
    work = Work() if work is None else work
    U: Fraction | None = None
    steps = 0
    try:
        U = _sum_u(rows, work)
        work.spend(len(rows))
        if rows and U <= 1 and fraction_sum(Fraction(c, min(d, p)) for c, d, p in rows) <= 1:
            # Density ≤ 1 is sufficient for EDF (each job gets its share by its deadline): no search.
            return DemandTrace(True, "density", U, None, None, None, None, None, 0)
        pro = _prologue(rows, budget, work)
        if isinstance(pro, DemandTrace):
            return pro
        U, La, Lb, L, t, steps = pro
        d_min = min(d for _, d, _ in rows)
        while True:
            if steps >= budget:
                return DemandTrace(UNKNOWN_VERDICT, "budget", U, La, Lb, L, t, None, steps)
            work.spend(2 * len(rows))
            steps += 1
            h = demand(rows, t)
            if h > t:
                return DemandTrace(False, "violation", U, La, Lb, L, t, h, steps)
            if h <= d_min:
                return DemandTrace(True, "qpa-exit", U, La, Lb, L, t, h, steps)
            if h < t:
                t = h
            else:
                t = prev_deadline(rows, t)
                assert t is not None  # h(t) = t > d_min, so a deadline lies below t
    except WorkExhausted:
        return DemandTrace(UNKNOWN_VERDICT, "work", U, None, None, None, None, None, steps)


def qpa_reference(rows: Rows, budget: int = DEFAULT_BUDGET, work: Work | None = None) -> Verdict:
    """Exact QPA verdict on ``[(C, D, T), ...]``: True, False or "unknown" (a budget exhausted)."""
    return qpa_trace(rows, budget, work).verdict


def pda_trace(rows: Rows, budget: int = DEFAULT_BUDGET, work: Work | None = None) -> DemandTrace:
    """Processor-demand criterion: h(t) ≤ t at every absolute deadline t < L, in increasing order.

    Baruah, Rosier, Howell (1990); stated with L = min(L_a, L_b) by Zhang & Burns (2009),
    Thm. 1-3. On failure the witness is the *first* t with h(t) > t. ``work`` as for
    :func:`qpa_trace`.
    """
    rows = [(int(c), int(d), int(p)) for c, d, p in rows]
    work = Work() if work is None else work
    U: Fraction | None = None
    steps = 0
    try:
        U = _sum_u(rows, work)
        pro = _prologue(rows, budget, work)
        if isinstance(pro, DemandTrace):
            return pro
        U, La, Lb, L, t0, steps = pro
        h = 0
        t = None
        for t_next, h_next in deadline_steps(rows):
            if t_next > t0:
                break
            if steps >= budget:
                return DemandTrace(UNKNOWN_VERDICT, "budget", U, La, Lb, L, t_next, None, steps)
            work.spend(1)
            steps += 1
            t, h = t_next, h_next
            if h > t:
                return DemandTrace(False, "violation", U, La, Lb, L, t, h, steps)
        return DemandTrace(True, "all-checked", U, La, Lb, L, t, h, steps)
    except WorkExhausted:
        return DemandTrace(UNKNOWN_VERDICT, "work", U, None, None, None, None, None, steps)


def dbf_star(C: int, D: int, T: int, t: int) -> Fraction:
    """dbf*(τ, t) = 0 if t < D, else C + U·(t − D)  [Baruah & Fisher 2006, Eq. (3)]."""
    if t < D:
        return Fraction(0)
    return C + Fraction(C, T) * (t - D)


def dbf_star_check(rows: Rows, work: Work | None = None) -> tuple[bool, str, int | None, Fraction | None]:
    """Is Σ dbf* ≤ t for all t, on one processor holding ``rows``? Returns (ok, why, t, value).

    Σ_j dbf*(τ_j, t) is piecewise linear, jumps only at t = D_k and has slope U between jumps, so
    with U ≤ 1 it stays below t everywhere iff it does at every D_k. In deadline order this is
    exactly Baruah & Fisher's admission condition (their Eq. (5)-(6): D_i − Σ dbf*(τ_j, D_i) ≥ C_i
    and 1 − ΣU_j ≥ U_i); in any other order it is the same test on the whole processor.
    ``why`` is ``"U"`` or ``"dbf*"`` on failure; ``t``/``value`` give the violated point.
    ``work`` (optional) is charged n terms per point (it may raise
    :class:`~rtsched.budget.WorkExhausted`).
    """
    if work is not None:
        work.spend(len(rows))
    U = fraction_sum(Fraction(c, p) for c, _, p in rows)
    if U > 1:
        return False, "U", None, U
    for t in sorted({d for _, d, _ in rows}):
        if work is not None:
            work.spend(len(rows))
        value = fraction_sum(dbf_star(c, d, p, t) for c, d, p in rows)
        if work is not None:
            work.spend_size(len(rows), value)
        if value > t:
            return False, "dbf*", t, value
    return True, "", None, None


# ---------------------------------------------------------------------------------------------
# Kernel layer: serial @njit helpers (int64 in, verdict codes out).
# ---------------------------------------------------------------------------------------------


@njit(cache=True)
def _gcd(a, b):  # noqa: ANN001, ANN202 - numba
    while b != 0:
        a, b = b, a % b
    return a


@njit(cache=True)
def frac_sum_sign(num, den, sgn, count, const):  # noqa: ANN001, ANN201 - numba
    """Exact sign of Σ_{j<count} sgn[j]·num[j]/den[j] − const (−1, 0, 1), or 2 on int64 overflow.

    ``num`` ≥ 0 and ``den`` > 0 are int64 time values (≤ 2**31 − 1); the sum is accumulated
    as a reduced fraction p/q with q the running lcm of the denominators.
    """
    p = -const
    q = np.int64(1)
    for j in range(count):
        b = den[j]
        g = _gcd(q, b)
        qg = q // g
        if qg > _FRAC_LIMIT // b:
            return 2
        lcm = qg * b
        f1 = lcm // q
        f2 = lcm // b
        ap = p if p >= 0 else -p
        if ap != 0 and ap > _FRAC_LIMIT // f1:
            return 2
        if num[j] != 0 and num[j] > _FRAC_LIMIT // f2:
            return 2
        p = p * f1 + sgn[j] * num[j] * f2
        q = lcm
        g2 = _gcd(p if p >= 0 else -p, q)
        if g2 > 1:
            p //= g2
            q //= g2
    if p > 0:
        return 1
    if p < 0:
        return -1
    return 0


@njit(cache=True)
def frac_vs_int(frac_f, any_nonzero, count, k):  # noqa: ANN001, ANN201 - numba
    """Exact sign of F − k, where F = Σ of ``count`` fractions r_j/T_j in [0, 1) and k an integer.

    ``frac_f`` is F summed in float64 (each term correctly rounded: total error below
    (count + 1)·count·EPS); ``any_nonzero`` tells whether some r_j ≠ 0 (so F > 0 exactly).
    Returns −1, 0, 1, or 2 when F lies within the rounding margin of k (k ≥ 1).
    """
    if k < 0:
        return 1
    if k == 0:
        return 1 if any_nonzero else 0
    if k >= count:
        return -1  # F < count ≤ k
    margin = 4.0 * (count + 2) * count * EPS
    if frac_f > k + margin:
        return 1
    if frac_f < k - margin:
        return -1
    return 2


@njit(cache=True, inline="always")
def _floordiv(x, T):  # noqa: ANN001, ANN202 - numba
    """(⌊x/T⌋, x mod T) for 0 ≤ x, 0 < T: a float quotient corrected exactly in integers.

    For x < 2**52 the float quotient is within 1 of the true one (x and T are exact doubles and
    the division is correctly rounded), and one integer correction makes it exact; larger x
    use the integer division. Much faster than int64 division on common CPUs.
    """
    if x >= 4503599627370496:  # 2**52
        q = x // T
        return q, x - q * T
    q = np.int64(x / T)
    r = x - q * T
    if r < 0:
        q -= 1
        r += T
    elif r >= T:
        q += 1
        r -= T
    return q, r


@njit(cache=True)
def _h(C, D, T, n, t):  # noqa: ANN001, ANN202 - numba
    """h(t) = Σ dbf_i(t); with U ≤ 1 it is at most t + ΣC, so no overflow for t < 2**62."""
    total = np.int64(0)
    for i in range(n):
        if t >= D[i]:
            q, _ = _floordiv(t - D[i], T[i])
            total += (q + 1) * C[i]
    return total


@njit(cache=True)
def _h_prev(C, D, T, n, t):  # noqa: ANN001, ANN202 - numba
    """(h(t), max{d < t}) in one pass: the previous deadline of task i is D_i + (q − [r = 0])·T_i."""
    total = np.int64(0)
    best = np.int64(-1)
    for i in range(n):
        if t >= D[i]:
            q, r = _floordiv(t - D[i], T[i])
            total += (q + 1) * C[i]
            if t > D[i]:
                cand = D[i] + (q - 1 if r == 0 else q) * T[i]
                if cand > best:
                    best = cand
    return total, best


@njit(cache=True)
def _prev(D, T, n, t):  # noqa: ANN001, ANN202 - numba
    """max{D_i + k·T_i < t}, or −1 if no deadline lies below t."""
    best = np.int64(-1)
    for i in range(n):
        if D[i] < t:
            q, _ = _floordiv(t - 1 - D[i], T[i])
            cand = D[i] + q * T[i]
            if cand > best:
                best = cand
    return best


@njit(cache=True)
def _below_La(C, D, T, n, d, M):  # noqa: ANN001, ANN202 - numba
    """Exactly decide d < L_a (U < 1 known): 1 yes, 0 no, 2 undecided.

    d < L_a ⇔ d < M = max(D_i − T_i) or d(1 − U) < Σ C_i(T_i − D_i)/T_i
    ⇔ d < Σ_i C_i(d + T_i − D_i)/T_i; each term is split as integer + remainder/T_i.
    """
    if d < M:
        return 1
    S = np.int64(0)
    frac = 0.0
    nonzero = False
    for i in range(n):
        q, r = _floordiv(d + T[i] - D[i], T[i])  # d + T_i − D_i ≥ 0 because d ≥ M
        qq, rr = _floordiv(C[i] * r, T[i])
        S += C[i] * q + qq  # C_i·q ≤ x since C_i ≤ T_i when U ≤ 1
        if rr != 0:
            nonzero = True
            frac += rr / T[i]
    s = frac_vs_int(frac, nonzero, n, d - S)
    if s == 2:
        return 2
    return 1 if s > 0 else 0


@njit(cache=True)
def utilization_vs_one(C, T, n):  # noqa: ANN001, ANN201 - numba
    """Exact sign of U − 1 (−1, 0, 1) or 2 if the exact sum overflows; float bracket first."""
    u = 0.0
    for i in range(n):
        u += C[i] / T[i]
    margin = 4.0 * (n + 2) * EPS * (u + 1.0)
    if u > 1.0 + margin:
        return 1
    if u < 1.0 - margin:
        return -1
    sgn = np.ones(n, dtype=np.int64)
    return frac_sum_sign(C, T, sgn, n, np.int64(1))


@njit(cache=True)
def _density_vs_one(C, D, T, n):  # noqa: ANN001, ANN202 - numba
    """Exact sign of Σ C_i/min(D_i, T_i) − 1, or 2 if the exact sum overflows."""
    lam = 0.0
    for i in range(n):
        lam += C[i] / (D[i] if D[i] < T[i] else T[i])
    margin = 4.0 * (n + 2) * EPS * (lam + 1.0)
    if lam > 1.0 + margin:
        return 1
    if lam < 1.0 - margin:
        return -1
    den = np.empty(n, dtype=np.int64)
    for i in range(n):
        den[i] = D[i] if D[i] < T[i] else T[i]
    return frac_sum_sign(C, den, np.ones(n, dtype=np.int64), n, np.int64(1))


@njit(cache=True)
def _start_point(C, D, T, n, budget, ucmp):  # noqa: ANN001, ANN202 - numba
    """The common prologue of QPA and the PDA, given ucmp = sign(U − 1) ∈ {−1, 0}.

    Returns (code, t0, steps): code is ACCEPT (no deadline below L), UNKNOWN, UNDECIDED, or −2
    meaning "check deadlines up to t0 = max{d < L}".
    """
    sum_c = np.int64(0)
    M = D[0] - T[0]
    for i in range(n):
        sum_c += C[i]
        if D[i] - T[i] > M:
            M = D[i] - T[i]
    has_La = ucmp < 0
    La_lo = 0.0
    La_hi = 0.0
    if has_La:
        # Float bracket [La_lo, La_hi] ∋ L_a. u and N are sums of n correctly rounded terms;
        # errors below (n + 2)·EPS·Σ|terms|; 1 − u is exact (Sterbenz) or has error EPS.
        u = 0.0
        N = 0.0
        absN = 0.0
        for i in range(n):
            u += C[i] / T[i]
            term = (C[i] * (T[i] - D[i])) / T[i]
            N += term
            absN += abs(term)
        e_u = 4.0 * (n + 2) * EPS
        e_N = 4.0 * (n + 2) * EPS * absN
        den_lo = (1.0 - u) - e_u
        den_hi = (1.0 - u) + e_u
        if N + e_N <= 0.0:
            q_hi = 0.0
        elif den_lo <= 0.0:
            q_hi = np.inf
        else:
            q_hi = (N + e_N) / den_lo * (1.0 + 8.0 * EPS)
        q_lo = (N - e_N) / den_hi * (1.0 - 8.0 * EPS) if N - e_N > 0.0 else 0.0
        La_hi = max(float(M), q_hi)
        La_lo = max(float(M), q_lo)
    steps = np.int64(0)
    w = sum_c
    stop_at_La = False
    while True:
        if has_La:
            if w >= La_hi:
                stop_at_La = True
                break
            if w >= La_lo:
                below = _below_La(C, D, T, n, w, M)
                if below == 2:
                    return UNDECIDED, np.int64(0), steps
                if below == 0:
                    stop_at_La = True
                    break
        if steps >= budget:
            return UNKNOWN, np.int64(0), steps
        if w > _LIMIT:
            return UNDECIDED, np.int64(0), steps
        steps += 1
        w2 = np.int64(0)
        for i in range(n):
            q, _ = _floordiv(w + T[i] - 1, T[i])
            w2 += q * C[i]  # ⌈w/T_i⌉·C_i ≤ w·U_i + C_i: no overflow for w ≤ 2**62 since U ≤ 1
        if w2 == w:
            break
        w = w2
    if not stop_at_La:
        t0 = _prev(D, T, n, w)
    else:
        if La_hi >= 2.0**62:
            return UNDECIDED, np.int64(0), steps
        t0 = _prev(D, T, n, np.int64(np.floor(La_hi)) + 1)
        walk = np.int64(0)
        while t0 >= 0 and t0 >= La_lo:
            below = _below_La(C, D, T, n, t0, M)
            if below == 2:
                return UNDECIDED, np.int64(0), steps
            if below == 1:
                break
            walk += 1
            if walk > budget and walk > 100_000:  # a loose bracket: leave it to the reference
                return UNDECIDED, np.int64(0), steps
            t0 = _prev(D, T, n, t0)
    if t0 < 0:
        return ACCEPT, np.int64(0), steps
    return np.int8(-2), t0, steps


@njit(cache=True)
def qpa_one(C, D, T, budget):  # noqa: ANN001, ANN201 - numba
    """QPA on one task set (int64 arrays C, D, T; arbitrary deadlines allowed) -> verdict code.

    ACCEPT/REJECT exactly as :func:`qpa_reference`; UNKNOWN when the work budget is exhausted;
    UNDECIDED when an int64 bound or a float margin prevents an exact decision in the kernel.
    Zhang & Burns 2009, Thm. 5 (QPA); see papers/zhang-burns2009-qpa.md.
    """
    return qpa_one_steps(C, D, T, budget)[0]


@njit(cache=True)
def qpa_one_steps(C, D, T, budget):  # noqa: ANN001, ANN201 - numba
    """:func:`qpa_one` and the steps it spent, ``(code, steps)``: the ``steps`` of
    :func:`qpa_trace` on the same set (0 when U > 1 or density ≤ 1 decide at once)."""
    n = C.shape[0]
    if n == 0:
        return ACCEPT, np.int64(0)
    ucmp = utilization_vs_one(C, T, n)
    if ucmp == 2:
        return UNDECIDED, np.int64(0)
    if ucmp == 1:
        return REJECT, np.int64(0)
    dens = _density_vs_one(C, D, T, n)
    if dens == 2:
        return UNDECIDED, np.int64(0)
    if dens <= 0:
        return ACCEPT, np.int64(0)
    code, t, steps = _start_point(C, D, T, n, budget, ucmp)
    if code != -2:
        return code, steps
    d_min = D[0]
    for i in range(n):
        if D[i] < d_min:
            d_min = D[i]
    while True:
        if steps >= budget:
            return UNKNOWN, steps
        steps += 1
        h, prev = _h_prev(C, D, T, n, t)
        if h > t:
            return REJECT, steps
        if h <= d_min:
            return ACCEPT, steps
        if h < t:
            t = h
        else:
            t = prev


@njit(cache=True)
def pda_one(C, D, T, budget):  # noqa: ANN001, ANN201 - numba
    """Processor-demand criterion on one task set -> verdict code (as :func:`pda_trace`)."""
    n = C.shape[0]
    if n == 0:
        return ACCEPT
    ucmp = utilization_vs_one(C, T, n)
    if ucmp == 2:
        return UNDECIDED
    if ucmp == 1:
        return REJECT
    code, t0, steps = _start_point(C, D, T, n, budget, ucmp)
    if code != -2:
        return code
    nxt = D.copy()
    h = np.int64(0)
    while True:
        t = nxt[0]
        for i in range(1, n):
            if nxt[i] < t:
                t = nxt[i]
        if t > t0:
            return ACCEPT
        if steps >= budget:
            return UNKNOWN
        steps += 1
        for i in range(n):
            if nxt[i] == t:
                h += C[i]
                nxt[i] += T[i]
        if h > t:
            return REJECT
