"""Shared EDF demand machinery: dbf, h(t), the L bounds, QPA, dbf* (private; see papers/).

Used by :mod:`rtsched.analyses.uniprocessor.uniprocessor_edf` (``uni-pda``, ``uni-qpa``), by
:mod:`rtsched.analyses.partitioned.partitioned_edf` (admission tests of the ``p:*`` family) and meant to be
reused by the GPU analysis on arbitrary ``C``/``D``/``T`` arrays. Sources:

* processor-demand criterion and the bounds L_a (George, Rivierre, Spuri 1996) and L_b
  (synchronous busy period), QPA: Zhang & Burns, "Schedulability analysis for real-time systems
  with EDF scheduling", IEEE TC 58(9), 2009 -- papers/zhang-burns2009-qpa.md;
* dbf* (the linear approximation of dbf): Baruah & Fisher, IEEE TC 55(7), 2006 --
  papers/baruah-fisher2006.md.

Public entry points
-------------------
``qpa_one(C, D, T, budget) -> int8`` (and ``qpa_one_ws`` with a caller's workspace)
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
the reference answers "unknown" (reason ``"work"``) and the kernel still decides. When the
reference provably finishes within ``budget``, ``qpa_one`` may decide a small set by rtsched's
exact shortcuts instead of the reference's steps (:func:`_qpa_shortcuts`; proofs in
papers/zhang-burns2009-qpa.md): the verdict is the same, only the route differs.

Exactness: every decision is made with integers. Floats serve only as a fast bracket: where a
float value lies within its proven rounding margin of a boundary, the exact integer/Fraction
decision is taken, and where that would overflow int64 the kernel answers UNDECIDED.
"""

# One piece (about 930 lines): the exact QPA/PDA reference, its trace and the Numba kernels follow the
# same steps of Zhang & Burns (2009) side by side, and the kernels are property-tested against the
# reference in the same terms; split, each half would need the other to be read.

from __future__ import annotations

import heapq
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from rtsched.analyses.theory._operands import NARROW, NARROW_MAX, f64, i32, trunc32
from rtsched.budget import Work, WorkExhausted
from rtsched.kernels import (
    ACCEPT,
    CONTINUE,
    EPS,
    NONE,
    RECIPROCAL_EXACT,
    RECIPROCAL_UP,
    REJECT,
    SIGN_UNDECIDED,
    UNDECIDED,
    UNKNOWN,
    deadline_step,
    floor_divmod,
    floor_divmod_any,
    gcd,
    insert_sorted,
    kernel,
    vectors_256,
)
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


def _integer_rows(rows: Rows, work: Work | None) -> tuple[list[tuple[int, int, int]], Work]:
    """The rows as Python ints, and the work budget (a fresh one by default).

    Python ints keep the arithmetic exact whatever integer type the input has.
    """
    return [(int(c), int(d), int(p)) for c, d, p in rows], Work() if work is None else work


def _prologue(
    rows: Rows, U: Fraction, budget: int, work: Work
) -> DemandTrace | tuple[Fraction, Fraction | None, int | None, Fraction | int, int, int]:
    """U > 1 check and the bound (U = Σ C_i/T_i given); a final trace or (U, La, Lb, L, t0, steps)."""
    if not rows:
        return DemandTrace(True, "no-deadline", U, None, None, None, None, None, 0)
    if U > 1:
        return DemandTrace(False, "U>1", U, None, None, None, None, None, 0)
    La, Lb, L, steps, exhausted = demand_bound(rows, budget, work)
    if exhausted:
        return DemandTrace(UNKNOWN_VERDICT, "budget", U, La, None, None, None, None, steps)
    assert L is not None
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
    rows, work = _integer_rows(rows, work)
    U: Fraction | None = None
    steps = 0
    try:
        U = _sum_u(rows, work)
        work.spend(len(rows))
        if rows and U <= 1 and fraction_sum(Fraction(c, min(d, p)) for c, d, p in rows) <= 1:
            # Density ≤ 1 is sufficient for EDF (each job gets its share by its deadline): no search.
            return DemandTrace(True, "density", U, None, None, None, None, None, 0)
        pro = _prologue(rows, U, budget, work)
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
                below = prev_deadline(rows, t)
                assert below is not None  # h(t) = t > d_min, so a deadline lies below t
                t = below
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
    rows, work = _integer_rows(rows, work)
    U: Fraction | None = None
    steps = 0
    try:
        U = _sum_u(rows, work)
        pro = _prologue(rows, U, budget, work)
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
#
# Every division by a period goes through a float reciprocal inv_T[i] = fl(1/T_i) and the exact
# correction of rtsched.kernels.floor_divmod (a multiplication instead of a division); the
# reciprocals live in a workspace the batch drivers allocate once per chunk of sets.
# ---------------------------------------------------------------------------------------------


@kernel(inline="always")
def frac_add(p, q, a, b):
    """p/q + a/b as a reduced fraction (q, b > 0): (p', q', True), or (p, q, False) on overflow.

    Denominators stay at most :data:`_FRAC_LIMIT` (the running lcm), numerators below 2**62.
    """
    g = gcd(q, b)
    qg = q // g
    if qg > _FRAC_LIMIT // b:
        return p, q, False
    lcm = qg * b
    f1 = lcm // q
    f2 = lcm // b
    ap = p if p >= 0 else -p
    aa = a if a >= 0 else -a
    if ap != 0 and ap > _FRAC_LIMIT // f1:
        return p, q, False
    if aa != 0 and aa > _FRAC_LIMIT // f2:
        return p, q, False
    p = p * f1 + a * f2
    g2 = gcd(p, lcm)
    return p // g2, lcm // g2, True


@kernel(counted=False)  # allocates nothing, returns a number
def frac_sum_sign(num, den, sgn, count, const):
    """Exact sign of Σ_{j<count} sgn[j]·num[j]/den[j] − const: −1, 0, 1, or SIGN_UNDECIDED.

    SIGN_UNDECIDED means an int64 overflow.

    ``num`` ≥ 0 and ``den`` > 0 are int64 time values (≤ 2**31 − 1); the sum is accumulated
    as a reduced fraction p/q with q the running lcm of the denominators.
    """
    p = -const
    q = np.int64(1)
    for j in range(count):
        p, q, ok = frac_add(p, q, sgn[j] * num[j], den[j])
        if not ok:
            return SIGN_UNDECIDED
    return (p > 0) - (p < 0)


@kernel
def frac_vs_int(frac_f, any_nonzero, count, k):
    """Sign of F − k, where F = Σ of ``count`` fractions r_j/T_j in [0, 1) and k an integer.

    ``frac_f`` is F summed in float64 (each term rounded at most twice: total error below
    (count + 1)·count·EPS); ``any_nonzero`` tells whether some r_j ≠ 0 (so F > 0 exactly).
    Returns −1, 0, 1, or SIGN_UNDECIDED when F lies within the rounding margin of k (k ≥ 1):
    the caller then sums the fractions exactly.
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
    return SIGN_UNDECIDED


@kernel(counted=False)
def _below_La(C, D, T, inv_T, n, d, max_lag):
    """Exactly decide d < L_a (U < 1 known): 1 yes, 0 no, SIGN_UNDECIDED (int64 overflow).

    d < L_a ⇔ d < max_lag = max(D_i − T_i) or d(1 − U) < Σ C_i(T_i − D_i)/T_i
    ⇔ d < Σ_i C_i(d + T_i − D_i)/T_i  [L_a of George, Rivierre, Spuri 1996; Zhang & Burns 2009,
    Thm. 2]; each term is split as integer + remainder/T_i and the remainders are compared in
    float outside a proven margin, exactly inside it.
    """
    if d < max_lag:
        return 1
    S = np.int64(0)
    frac = 0.0
    nonzero = np.bool_(False)  # not the literal False: frac_vs_int would be compiled for it too (issue #46)
    for i in range(n):
        q, r = floor_divmod_any(d + T[i] - D[i], T[i], inv_T[i])  # ≥ 0 because d ≥ max_lag
        qq, rr = floor_divmod_any(C[i] * r, T[i], inv_T[i])
        S += C[i] * q + qq  # C_i·q ≤ d + T_i since C_i ≤ T_i when U ≤ 1
        if rr != 0:
            nonzero = True
            frac += rr * inv_T[i]
    s = frac_vs_int(frac, nonzero, n, d - S)
    if s == SIGN_UNDECIDED:  # F within the float margin of d − S: sum the remainders exactly
        p = -(d - S)
        q = np.int64(1)
        for i in range(n):
            qi, r = floor_divmod_any(d + T[i] - D[i], T[i], inv_T[i])
            rr = (C[i] * r) % T[i]
            if rr != 0:
                p, q, ok = frac_add(p, q, rr, T[i])
                if not ok:
                    return SIGN_UNDECIDED
        s = (p > 0) - (p < 0)
    return 1 if s > 0 else 0


@kernel(counted=False)
def _sum_sign(C, den, n, approx, size):
    """Exact sign of Σ C_i/den_i − 1 given its float value ``approx``.

    The terms are rounded at most twice and ``size`` = Σ|terms|: the float decides outside the
    margin, the exact rational sum inside it.
    """
    margin = 4.0 * (n + 2) * EPS * (size + 1.0)
    if approx > 1.0 + margin:
        return 1
    if approx < 1.0 - margin:
        return -1
    p = np.int64(-1)
    q = np.int64(1)
    for i in range(n):
        p, q, ok = frac_add(p, q, C[i], den[i])
        if not ok:
            return SIGN_UNDECIDED
    return (p > 0) - (p < 0)


@kernel(inline="always")
def _utilization_sign(C, T, n, u):
    """:func:`_sum_sign` of U = Σ C_i/T_i given its float value ``u``.

    The float's margin is checked here, so that only a set on the boundary pays for the call.
    """
    if abs(u - 1.0) > 4.0 * (n + 2) * EPS * (u + 1.0):  # _sum_sign's margin, with size = u
        return 1 if u > 1.0 else -1
    return _sum_sign(C, T, n, u, u)


@kernel(counted=False)  # allocates nothing, returns a number
def utilization_vs_one(C, T, n):
    """Exact sign of U − 1 (−1, 0, 1) or SIGN_UNDECIDED if the exact sum overflows; float first."""
    u = 0.0
    for i in range(n):
        u += C[i] / T[i]
    return _sum_sign(C, T, n, u, u)


@kernel
def _density_vs_one(C, D, T, n):
    """Exact sign of Σ C_i/min(D_i, T_i) − 1, or SIGN_UNDECIDED if the exact sum overflows."""
    lam = 0.0
    for i in range(n):
        lam += C[i] / min(D[i], T[i])
    if abs(lam - 1.0) > 4.0 * (n + 2) * EPS * (lam + 1.0):
        return 1 if lam > 1.0 else -1
    den = np.empty(n, dtype=np.int64)  # rare: on the boundary
    for i in range(n):
        den[i] = min(D[i], T[i])
    return _sum_sign(C, den, n, lam, lam)


@kernel(inline="always")
def _la_bracket(C, D, T, inv_T, n, max_lag):
    """A float bracket [lo, hi] ∋ L_a = max(max_lag, Σ C_i(T_i − D_i)/T_i / (1 − U)), U < 1.

    L_a of George, Rivierre, Spuri (1996) as stated by Zhang & Burns (2009), Thm. 2; the sums as
    :func:`la_bracket_from_sums` takes them.
    """
    u = 0.0
    N = 0.0
    absN = 0.0
    for i in range(n):
        u += C[i] * inv_T[i]
        term = np.float64(C[i] * (T[i] - D[i])) * inv_T[i]
        N += term
        absN += abs(term)
    return la_bracket_from_sums(u, N, absN, n, max_lag)


@kernel(inline="always")
def la_bracket_from_sums(u, N, absN, n, max_lag):
    """The bracket of :func:`_la_bracket` from its float sums over the n tasks (in any order).

    ``u`` = Σ fl(C_i·fl(1/T_i)), ``N`` = Σ fl(fl(C_i(T_i − D_i))·fl(1/T_i)) and ``absN`` the sum
    of the terms' magnitudes. u and N are sums of n terms each rounded at most three times:
    errors below (n + 2)·EPS·Σ|terms| (a 4× margin is used); 1 − u is exact (Sterbenz) or has
    error EPS; hi may be +inf.
    """
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
    return max(float(max_lag), q_lo), max(float(max_lag), q_hi)


@kernel(counted=False)
def la_ceiling(C, D, T, inv_T, n, max_lag, lo, hi):
    """⌈L_a⌉ exactly from a bracket lo ≤ L_a ≤ hi ≤ 2**62: (CONTINUE, ⌈L_a⌉) or (UNDECIDED, 0).

    For an integer w, w ≥ L_a ⇔ w ≥ ⌈L_a⌉, and max{d < L_a} = max{d < ⌈L_a⌉}, so this one
    integer stands for L_a in both uses (the stop of the busy-period iteration and QPA's start).
    ⌈lo⌉ ≤ ⌈L_a⌉ ≤ ⌈hi⌉; when they differ, a bisection with the exact test d < L_a
    (:func:`_below_La`) finds it in log2(hi − lo) tests.
    """
    if hi > 2.0**62:
        return UNDECIDED, np.int64(0)
    a = np.int64(np.ceil(lo))
    b = np.int64(np.ceil(hi))
    while a < b:  # invariant: ⌈L_a⌉ ∈ [a, b]
        mid = a + (b - a) // 2
        below = _below_La(C, D, T, inv_T, n, mid, max_lag)
        if below == SIGN_UNDECIDED:
            return UNDECIDED, np.int64(0)
        if below == 1:
            a = mid + 1
        else:
            b = mid
    return CONTINUE, a


@kernel(inline="always")  # in loops: a call costs as much as its body
def _busy_period_step(C, T, inv_T, n, w, narrow):
    """W(w) = Σ_i ⌈w/T_i⌉·C_i  [the synchronous busy period L_b is its least fixed point].

    ⌈w/T_i⌉·C_i ≤ w·U_i + C_i: no overflow for w ≤ 2**62 since U ≤ 1. Branch-free below 2**50.
    With ``narrow`` (:func:`fit32`: the 32-bit operand form, every C_i, T_i ≤ 2**31 − 1) and
    0 ≤ w ≤ 2**31 − 2: a = w + T_i − 1 < 2**32 is exact in float64 (w − 1 and T_i converted
    apart), and trunc(fl(a · fl(fl(1/T_i)·(1 + 2**−50)))) = ⌊a/T_i⌋ exactly for a ≤ 2**48
    (``rtsched.kernels.floor_divmod_up``'s proof); ⌊a/T_i⌋ ≤ max(w, 0) < 2**31 (for w ≥ 1,
    (w + T_i − 1)/T_i ≤ w), so the quotient and C_i are 32-bit operands of an int64 product.
    """
    total = np.int64(0)
    if NARROW and narrow and w <= NARROW_MAX - 1:
        wm1 = np.float64(w) - 1.0
        for i in range(n):
            q = trunc32((wm1 + f64(T[i])) * (inv_T[i] * RECIPROCAL_UP))
            total += q * i32(C[i])
        return total
    if w < RECIPROCAL_EXACT // 2:  # w + T_i − 1 < 2**51
        for i in range(n):
            total += floor_divmod(w + T[i] - 1, T[i], inv_T[i])[0] * C[i]
        return total
    for i in range(n):
        q, _ = floor_divmod_any(w + T[i] - 1, T[i], inv_T[i])
        total += q * C[i]
    return total


@kernel(inline="always")
def fit32(C, D, T, n):
    """Whether the 32-bit operand forms apply to this set: :data:`NARROW` and 0 ≤ C_i, D_i and T_i ≤ 2**31 − 1.

    The model's time values are at most ``rtsched.model.MAX_TIME`` = 2**31 − 1, but ``qpa_one``
    is also called on scaled rows (DAG tasks, ``analyses/dag/bonifaci2013.py``), so it is checked.
    """
    if not NARROW:
        return False
    top = np.int64(0)
    low = np.int64(0)
    for i in range(n):
        top = max(top, max(C[i], max(D[i], T[i])))
        low = min(low, min(C[i], D[i]))
    return top <= NARROW_MAX and low >= 0


@kernel(inline="always")
def _deadline_below(D, T, inv_T, n, t):
    """max{D_i + k·T_i < t : k ≥ 0}, or NONE if no absolute deadline lies below t."""
    best = np.int64(NONE)
    for i in range(n):
        if D[i] < t:
            q, _ = floor_divmod_any(t - 1 - D[i], T[i], inv_T[i])
            cand = D[i] + q * T[i]
            if cand > best:
                best = cand
    return best


@kernel(counted=False)
def start_point(C, D, T, inv_T, n, budget, u_below_one):
    """The common prologue of QPA and the PDA: the bound L = min(L_a, L_b) and t0 = max{d < L}.

    Zhang & Burns (2009), Thm. 2-3: L_a (George, Rivierre, Spuri) exists when U < 1
    (``u_below_one``); L_b is the least fixed point of W(w) = Σ⌈w/T_i⌉C_i from w = ΣC_i,
    iterated (one *step* each) only until w ≥ L_a, as :func:`demand_bound` does.

    Returns ``(code, t0, steps)``: code CONTINUE ("check the deadlines up to t0"), ACCEPT (no
    deadline below L), UNKNOWN (budget) or UNDECIDED (int64 range).
    """
    sum_c = np.int64(0)
    max_lag = D[0] - T[0]
    for i in range(n):
        sum_c += C[i]
        max_lag = max(max_lag, D[i] - T[i])
    narrow = fit32(C, D, T, n)
    la_lo = np.inf
    la_hi = np.inf
    if u_below_one:
        la_lo, la_hi = _la_bracket(C, D, T, inv_T, n, max_lag)
    la_ceil = np.int64(-1)  # ⌈L_a⌉ once computed
    steps = np.int64(0)
    w = sum_c
    while True:  # L_b, stopped at L_a  [Zhang & Burns, Thm. 3]
        if w >= la_lo and la_ceil < 0:  # w may have reached L_a: find ⌈L_a⌉ exactly
            top = la_hi
            if w < la_hi:
                below = _below_La(C, D, T, inv_T, n, w, max_lag)
                if below == SIGN_UNDECIDED:
                    return UNDECIDED, np.int64(0), steps
                top = np.inf if below == 1 else float(w)  # w ≥ L_a: ⌈L_a⌉ ≤ w
            if top < np.inf:
                code, la_ceil = la_ceiling(C, D, T, inv_T, n, max_lag, la_lo, top)
                if code != CONTINUE:
                    return code, np.int64(0), steps
        if 0 <= la_ceil <= w:
            bound = la_ceil  # L = L_a ≤ L_b
            break
        if steps >= budget:
            return UNKNOWN, np.int64(0), steps
        if w > _LIMIT:
            return UNDECIDED, np.int64(0), steps
        steps += 1
        w2 = _busy_period_step(C, T, inv_T, n, w, narrow)
        if w2 == w:
            bound = w  # L = L_b
            break
        w = w2
    t0 = _deadline_below(D, T, inv_T, n, bound)
    if t0 == NONE:
        return ACCEPT, np.int64(0), steps
    return CONTINUE, t0, steps


@kernel(inline="always")  # in loops: a call costs as much as its body
def _h_prev(C, D, T, inv_T, n, t, narrow):
    """(h(t), max{d < t}) in one pass  [h(t) = Σ_i dbf_i(t), Zhang & Burns, Eq. (1)].

    The previous deadline of task i is D_i + (q − [r = 0])·T_i with (q, r) = divmod(t − D_i, T_i).
    With U ≤ 1, h(t) ≤ t + ΣC: no overflow for t < 2**62. Below 2**51 the loop is branch-free
    (the compiler vectorises it); above, integer divisions.

    With ``narrow`` (:func:`fit32`: the 32-bit operand form, every C_i, D_i, T_i ≤ 2**31 − 1)
    and t ≤ 2**31 − 1, the same values from 32-bit operands (AVX2 hosts, issue #45):
    a = max(t − D_i, 0) ≤ 2**31 − 1 is exact through int32, q = trunc(fl(a ·
    fl(fl(1/T_i)·(1 + 2**−50)))) = ⌊a/T_i⌋ with no correction step (``rtsched.kernels.
    floor_divmod_up``'s proof, a ≤ 2**48) and q ≤ a, q − [r = 0] ≥ −1: every product has two
    32-bit operands and is taken in int64; dbf_i(t) = q·C_i + C_i when t ≥ D_i.
    """
    total = np.int64(0)
    best = np.int64(NONE)
    if NARROW and narrow and t <= NARROW_MAX:
        for i in range(n):
            x = t - D[i]
            a = max(x, 0)
            q = trunc32(f64(a) * (inv_T[i] * RECIPROCAL_UP))
            Ti = i32(T[i])
            r = a - q * Ti
            total += q * i32(C[i]) + C[i] if x >= 0 else 0
            best = max(best, D[i] + i32(q - (r == 0)) * Ti if x > 0 else NONE)
        return total, best
    if t < RECIPROCAL_EXACT:
        for i in range(n):
            x = t - D[i]
            q, r = floor_divmod(max(x, 0), T[i], inv_T[i])
            total += (q + 1) * C[i] * (x >= 0)
            best = max(best, D[i] + (q - (r == 0)) * T[i] if x > 0 else NONE)
        return total, best
    for i in range(n):
        if t >= D[i]:
            q, r = floor_divmod_any(t - D[i], T[i], inv_T[i])
            total += (q + 1) * C[i]
            if t > D[i]:
                best = max(best, D[i] + (q - (r == 0)) * T[i])
    return total, best


@kernel
def _h(C, D, T, n, t):
    """h(t) = Σ dbf_i(t) (no workspace: one integer division per task)."""
    total = np.int64(0)
    for i in range(n):
        if t >= D[i]:
            total += ((t - D[i]) // T[i] + 1) * C[i]
    return total


@kernel(counted=False)
def _qpa_search(C, D, T, inv_T, n, t, steps, budget, floor):
    """QPA's loop from t = max{d < L} (Zhang & Burns 2009, Thm. 5 and its algorithm).

    While h(t) ≤ t and h(t) > d_min: t ← h(t) if h(t) < t, else max{d < t}. Returns (code, steps).
    ``floor``: ACCEPT as soon as t < floor, for a caller that has proven that no deadline below
    ``floor`` misses (:func:`_qpa_shortcuts`); 0 for QPA itself (t ≥ 0 always).
    """
    d_min = D[0]
    for i in range(n):
        d_min = min(d_min, D[i])
    narrow = fit32(C, D, T, n)
    while True:
        if t < floor:
            return ACCEPT, steps
        if steps >= budget:
            return UNKNOWN, steps
        steps += 1
        h, prev = _h_prev(C, D, T, inv_T, n, t, narrow)
        if h > t:
            return REJECT, steps
        if h <= d_min:
            return ACCEPT, steps
        t = h if h < t else prev


@kernel
def qpa_one(C, D, T, budget):
    """QPA on one task set (int64 arrays C, D, T; arbitrary deadlines allowed) -> verdict code.

    ACCEPT/REJECT exactly as :func:`qpa_reference`; UNKNOWN when the work budget is exhausted;
    UNDECIDED when an int64 bound prevents an exact decision in the kernel.
    Zhang & Burns 2009, Thm. 5 (QPA); see papers/zhang-burns2009-qpa.md.
    """
    return qpa_one_ws(C, D, T, budget, np.empty(C.shape[0]), np.empty(C.shape[0], dtype=np.int64))[0]


@kernel
def qpa_one_steps(C, D, T, budget):
    """:func:`qpa_one` and the steps it spent, ``(code, steps)``.

    The steps are those of :func:`qpa_trace` on the same set (0 when U > 1 or density ≤ 1
    decide at once), or −1 when one of rtsched's shortcuts (:func:`_qpa_shortcuts`) decided: its
    verdict is the reference's, its step count is not.
    """
    return qpa_one_ws(C, D, T, budget, np.empty(C.shape[0]), np.empty(C.shape[0], dtype=np.int64))


@kernel(inline="always")
def qpa_one_ws(C, D, T, budget, inv_T, order):
    """:func:`qpa_one_steps` with a caller's workspaces: float64 ``inv_T`` and int64 ``order`` (at least n long)."""
    # 256-bit vectors (rtsched.kernels.vectors_256): this function's loops run over a set's n
    # tasks, typically 5-20; on an AVX-512 host (Zen 4) uni-qpa measured 0.120 -> 0.110 us per
    # set (fresh sets 0.151 -> 0.139) with them, the other users of QPA unchanged (issue #45).
    vectors_256()
    n = C.shape[0]
    if n == 0:
        return ACCEPT, np.int64(0)
    # U and the density (density ≤ 1 accepts: no search). The quotients first, in loops with no
    # sum (np.divide: no zero-division branch; T_i, D_i ≥ 1), so that the divisions vectorise;
    # then the sums, in index order as before (the same float values).
    for i in range(n):
        inv_T[i] = np.divide(C[i], min(D[i], T[i]))
    lam = 0.0
    for i in range(n):
        lam += inv_T[i]
    for i in range(n):
        inv_T[i] = np.divide(1.0, T[i])
    u = 0.0
    for i in range(n):
        u += C[i] * inv_T[i]
    ucmp = _utilization_sign(C, T, n, u)
    if ucmp == SIGN_UNDECIDED:
        return UNDECIDED, np.int64(0)
    if ucmp > 0:
        return REJECT, np.int64(0)
    # The float density decides outside its margin (as _density_vs_one's), without a second pass.
    lam_margin = 4.0 * (n + 2) * EPS * (lam + 1.0)
    if abs(lam - 1.0) > lam_margin:
        dens = 1 if lam > 1.0 else -1
    else:
        dens = _density_vs_one(C, D, T, n)  # rare: on the boundary, exactly
    if dens == SIGN_UNDECIDED:
        return UNDECIDED, np.int64(0)
    if dens <= 0:
        return ACCEPT, np.int64(0)
    if ucmp < 0 and n <= _SHORTCUT_TASKS:
        lag_sum = 0.0  # Σ C_i(T_i − D_i)/T_i, the numerator of L_a
        lag_abs = 0.0
        inv_sum = 0.0
        max_lag = D[0] - T[0]
        for i in range(n):
            lag = np.float64(C[i] * (T[i] - D[i])) * inv_T[i]
            lag_sum += lag
            lag_abs += abs(lag)
            inv_sum += inv_T[i]
            max_lag = max(max_lag, D[i] - T[i])
        # The reference's steps are at most 2 + 3n + 4·L_a·Σ 1/T_i (_qpa_shortcuts), with L_a
        # bounded above as in _la_bracket: max(max_lag, (N + e_N)/(1 − U − e_U)).
        e_u = 4.0 * (n + 2) * EPS
        den = (1.0 - u) - e_u
        la_hi = float(max_lag)
        if lag_sum + e_u * lag_abs > 0.0:
            la_hi = max(la_hi, (lag_sum + e_u * lag_abs) / den * (1.0 + 8.0 * EPS) if den > 0.0 else np.inf)
        if (2.0 + 3.0 * n + 4.0 * la_hi * inv_sum) * (1.0 + 1e-9) + 2.0 <= budget:
            code = _qpa_shortcuts(C, D, T, inv_T, order, n, budget, la_hi)
            if code != CONTINUE:
                return code, np.int64(-1)
    return qpa_search_ws(C, D, T, budget, inv_T, ucmp < 0)


#: Largest set for which :func:`_qpa_shortcuts` runs (its sort costs O(n²); :func:`_rank_order`'s keys need n ≤ 64).
_SHORTCUT_TASKS = 32


@kernel(inline="always")
def _rank_order(order, keys, n):
    """``order[:n]``: the indices 0..n−1 by increasing ``keys``, equal keys by index (a stable sort).

    Each index goes to its rank, the number of keys before it in that order (smaller ones, and
    equal ones of a lower index): n² comparisons without a data-dependent branch, where an
    insertion sort's shifts stop at places that no branch predictor learns on fresh sets.
    Keys of 2**56 or more in magnitude (``qpa_one`` on scaled rows) take the insertion sort, so
    that key·64 + index fits in int64.
    """
    top = np.int64(0)
    for i in range(n):
        top = max(top, abs(keys[i]))
    if top >= np.int64(1) << 56:
        for p in range(n):
            insert_sorted(order, p, keys, p)
        return
    for i in range(n):
        key = keys[i] * 64 + i  # (n ≤ _SHORTCUT_TASKS = 32: distinct keys in deadline, then index order)
        rank = np.int64(0)
        for j in range(n):
            rank += keys[j] * 64 + j < key
        order[np.uint64(rank)] = i


@kernel(counted=False)
def _qpa_shortcuts(C, D, T, inv_T, order, n, budget, la_hi):
    """Exact shortcuts of QPA (rtsched's) for a small set with U < 1 and density > 1; papers/zhang-burns2009-qpa.md.

    The caller runs it only when the reference provably finishes within its budget (then its
    verdict is the exact one, whatever the route): the reference spends at most 2 + Σ L_a/T_i
    busy-period steps and 3·Σ (L_a/T_i + 1) QPA steps. Then, at every relative deadline D_i in
    increasing order (k_i the first-job demand Σ_{D_j ≤ D_i} C_j ≤ h(D_i) ≤ Σ_{D_j ≤ D_i} dbf*(τj, D_i)):

    * k_i > D_i: a deadline miss (REJECT);
    * where the dbf* sum may exceed D_i, h(D_i) exactly: h(D_i) > D_i is a miss (REJECT);
    * Σ dbf* ≤ D_i at every D_i: h(t) ≤ t everywhere (dbf* has slope U < 1 between them; ACCEPT);
    * else QPA from max{d < L'} with L' the first relative deadline above the last D_i whose
      dbf* sum may exceed it, or ⌈la_hi⌉ ≥ L_a (``la_hi``, the caller's float bound) if that D_i
      is the largest: no miss lies at t ≥ L', so this is exact like QPA from max{d < L};
    * that QPA stops (ACCEPT) once t falls below D_f, the least D_i whose dbf* sum may exceed it:
      for t in [D_p, D_{p+1}) with D_{p+1} ≤ D_f (consecutive relative deadlines), h(t) ≤ Σ dbf* =
      (the sum at D_p) + (t − D_p)·Σ_{D_j ≤ D_p} U_j ≤ D_p + (t − D_p) = t, so no deadline below D_f
      misses (session 36; papers/zhang-burns2009-qpa.md, shortcut 5).

    Returns ACCEPT, REJECT, or CONTINUE (no shortcut applies: run QPA as the reference does).
    """
    vectors_256()  # (short loops over the tasks: 256-bit vectors, as in qpa_one_ws)
    # The relative deadlines in increasing order (_rank_order: no data-dependent branch; n is small),
    # then every D_i in one sweep: Σ_{D_j ≤ t} dbf*(τj, t) = Σ a_j + t·Σ U_j with
    # a_j = C_j(T_j − D_j)/T_j, in float with its error margin (as in the dbf* admission of
    # partitioned EDF: below 4(n + 4)·EPS·size, size = Σ|a_j| + t·ΣU_j + t; twice that is used).
    _rank_order(order, D, n)
    narrow = fit32(C, D, T, n)
    first_jobs = np.int64(0)
    a_sum = 0.0
    a_abs = 0.0
    u_sum = 0.0
    above = np.int64(NONE)  # the first relative deadline above the last one that may miss
    lowest = np.int64(0)  # D_f, the first relative deadline that may miss (the search's floor)
    for p in range(n):
        j = np.uint64(order[p])  # (an unsigned index: no negative-index wraparound code)
        first_jobs += C[j]
        a = np.float64(C[j] * (T[j] - D[j])) * inv_T[j]
        a_sum += a
        a_abs += abs(a)
        u_sum += C[j] * inv_T[j]
        d = D[j]
        if p + 1 < n and D[np.uint64(order[p + 1])] == d:
            continue  # the whole group of equal deadlines first
        if first_jobs > d:
            return REJECT
        star = a_sum + d * u_sum
        if star > d - 8.0 * (n + 4) * EPS * (a_abs + d * u_sum + d):
            if _h_prev(C, D, T, inv_T, n, d, narrow)[0] > d:
                return REJECT  # a deadline miss at the relative deadline d
            if above == NONE:
                lowest = d
            above = D[np.uint64(order[p + 1])] if p + 1 < n else np.int64(-2)
    if above == NONE:
        return ACCEPT
    if above == -2:
        # The last relative deadline may miss: beyond it Σ dbf* is the line that defines L_a, so
        # start from la_hi ≥ L_a (no miss at t ≥ L_a), skipping the busy period.
        if not la_hi < 2.0**50:
            return CONTINUE
        above = np.int64(np.ceil(la_hi))
    t0 = _deadline_below(D, T, inv_T, n, above)
    if t0 == NONE:
        return ACCEPT  # no deadline below L' and no miss at or above it
    code, _ = _qpa_search(C, D, T, inv_T, n, t0, np.int64(0), budget, lowest)
    return code if code != UNKNOWN else CONTINUE


@kernel(counted=False)
def qpa_search_ws(C, D, T, budget, inv_T, u_below_one):
    """QPA past its two quick exits (U ≤ 1 and density > 1 known; ``inv_T`` filled).

    Returns ``(code, steps)`` as :func:`qpa_one_steps`. For callers that know U and the density.
    """
    n = C.shape[0]
    code, t, steps = start_point(C, D, T, inv_T, n, budget, u_below_one)
    if code != CONTINUE:
        return code, steps
    return _qpa_search(C, D, T, inv_T, n, t, steps, budget, np.int64(0))


@kernel
def pda_one(C, D, T, budget):
    """Processor-demand criterion on one task set -> verdict code (as :func:`pda_trace`)."""
    n = C.shape[0]
    return pda_one_ws(C, D, T, budget, np.empty(n), np.empty(n, dtype=np.int64))


@kernel(inline="always")
def pda_one_ws(C, D, T, budget, inv_T, nxt):
    """:func:`pda_one` with caller's workspaces (float64 ``inv_T``, int64 ``nxt``, at least n long)."""
    n = C.shape[0]
    if n == 0:
        return ACCEPT
    u = 0.0
    for i in range(n):
        inv_T[i] = 1.0 / T[i]
        u += C[i] * inv_T[i]
    ucmp = _utilization_sign(C, T, n, u)
    if ucmp == SIGN_UNDECIDED:
        return UNDECIDED
    if ucmp > 0:
        return REJECT
    code, t0, steps = start_point(C, D, T, inv_T, n, budget, ucmp < 0)
    if code != CONTINUE:
        return code
    nxt = nxt[:n]  # the workspace may be wider than this set
    for i in range(n):
        nxt[i] = D[i]
    h = np.int64(0)
    while True:  # every absolute deadline t ≤ t0 in increasing order
        t, demand = deadline_step(C, T, nxt)
        if t > t0:
            return ACCEPT
        if steps >= budget:
            return UNKNOWN
        steps += 1
        h += demand
        if h > t:
            return REJECT
