"""Shared MPR machinery: the supply model, interfaces, G-EDF under MPR, servers (private module).

Used by the registered analyses ``gedf-mpr`` (:mod:`rtsched.analyses.hierarchical.mpr`, on m dedicated
processors ⟨1, m, m⟩) and ``clustered:k=<k>`` (:mod:`rtsched.analyses.hierarchical.clustered`), which must not
import each other. :mod:`rtsched.analyses.hierarchical.mpr` re-exports the public names below.

Papers (notes: papers/shin-easwaran-lee2008-mpr.md and papers/easwaran-shin-lee2009-virtual-clusters.md):

- I. Shin, A. Easwaran, I. Lee, "Hierarchical scheduling framework for virtual clustering of
  multiprocessors", ECRTS 2008 (the MPR model Γ = ⟨Π, Θ, m'⟩, its supply bound, the G-EDF test
  under MPR (Thm. 1) with its bound on A_k (Thm. 2), and the MPR-to-server transformation).
- A. Easwaran, I. Shin, I. Lee, "Optimal virtual cluster-based multiprocessor scheduling",
  Real-Time Systems 43(1), 2009 (corrected supply bound with α = ⌊Θ/m'⌋, β = Θ − m'α).

What this module provides
-------------------------
1. :class:`MPRInterface` with validation (0 < Θ ≤ m'Π), bandwidth Θ/Π, the exact worst-case supply
   :func:`sbf` in integer time and the linear lower bound :func:`lsbf`, vectorised over t.
   Our closed form (derived in the note, "sbf, exact integer form") equals a brute-force worst
   case on every integer Π ≤ 12, m' ≤ 5, Θ, t (tested exhaustively). The ECRTS 2008 closed form
   (Eq. (1) as transcribed) over-estimates the supply when m' does not divide Θ (unsound), and
   the journal's corrected form as transcribed, clipped at 0, is exact when α ≥ 1 and β ≥ 1 and
  pessimistic otherwise (β = 0, Θ < m'): see the note.
2. ``gedf-mpr``: Thm. 1 of ECRTS 2008 (Baruah's RTSS 2007 test with sbf in place of m·t) with the
   integer-time correction: a job that misses executes at most C_k − 1 ticks, so for all k and
   integer A_k ≥ 0 the set is schedulable if

       Σ_i Î_i + Σ_{m'−1 largest} (Ī_i − Î_i) + m'·(C_k − 1)  <  sbf(A_k + D_k)      (DEM < sbf)

   with the interference caps A_k + D_k − C_k + 1 (i ≠ k) and A_k (i = k). With ⟨1, m, m⟩
   (sbf(t) = m·t) it is Baruah's test in integer time. Only A_k ≤ A_max (Thm. 2, re-derived from
   our lsbf) need checking; every integer A_k up to the bound is checked, under a work budget
   whose exhaustion gives "unknown".
3. :func:`min_theta` (smallest Θ accepted for a given Π and m'; acceptance is monotone in Θ
   because sbf is) and :func:`best_interface` (smallest bandwidth over m').
4. :func:`server_tasks`: the m' periodic servers of period Π (β budgets α + 1, m' − β budgets α).

Layers: exact references in Python ints/Fractions (:func:`reference_interface`), a serial
``@njit`` kernel per set (``gedf_mpr_one``) and a ``prange`` batch kernel
(:func:`gedf_mpr_codes`); the A_k bound is computed in floats with a proven margin and sets near a
boundary are re-decided exactly. Work budget ``budget``: the number of (k, A_k) points the test
may check per set; more gives "unknown", never False.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
from numba import prange
from numpy.typing import ArrayLike, NDArray

from rtsched.errors import InputError
from rtsched.kernels import ACCEPT, EPS, REJECT, UNDECIDED, UNKNOWN, batch_kernel, check_processors, kernel, redecide_by
from rtsched.model import MAX_TIME, TaskSet, TaskSetBatch
from rtsched.result import UNKNOWN as UNKNOWN_VERDICT
from rtsched.result import Explanation, Verdict, show_number

__all__ = [
    "CITATION",
    "DEFAULT_BUDGET",
    "NOTE",
    "MPRInterface",
    "best_interface",
    "dedicated",
    "demand",
    "gedf_mpr",
    "gedf_mpr_codes",
    "gedf_mpr_one",
    "lsbf",
    "min_theta",
    "reference_interface",
    "sbf",
    "sbf_brute_force",
    "server_tasks",
]

CITATION = (
    "Shin, Easwaran, Lee, 'Hierarchical scheduling framework for virtual clustering of "
    "multiprocessors', ECRTS 2008, Thm. 1 and Thm. 2 (G-EDF under MPR, after Baruah RTSS 2007), "
    "with the corrected MPR supply bound of Easwaran, Shin, Lee, Real-Time Systems 43(1), 2009, "
    "and the integer-time correction (a missing job runs at most C_k - 1 ticks)"
)
NOTE = "papers/shin-easwaran-lee2008-mpr.md"

#: Default work budget: the number of (k, A_k) points the G-EDF-under-MPR test may check per set.
DEFAULT_BUDGET = 1_000_000
#: Largest concurrency accepted (as for m in :func:`rtsched.kernels.check_processors`).
MAX_CONCURRENCY = 1_000_000


# ------------------------------------------------------------------------------------------------
# The MPR model
# ------------------------------------------------------------------------------------------------
def _as_positive_int(value: Any, field: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise InputError(f"{field} must be a positive integer, got {value!r}", field=field)
    return int(value)


def validate_interface(Pi: Any, Theta: Any, m_prime: Any) -> tuple[int, int, int]:
    """Check ⟨Π, Θ, m'⟩: integers with Π ≥ 1, m' ≥ 1 and 0 < Θ ≤ m'·Π; return them as ints."""
    Pi = _as_positive_int(Pi, "Pi")
    Theta = _as_positive_int(Theta, "Theta")
    m_prime = _as_positive_int(m_prime, "m_prime")
    if not 1 <= Pi <= MAX_TIME:
        raise InputError(f"the period Π must be in [1, {MAX_TIME}], got {Pi}", field="Pi")
    if not 1 <= m_prime <= MAX_CONCURRENCY:
        raise InputError(f"the concurrency m' must be in [1, {MAX_CONCURRENCY}], got {m_prime}", field="m_prime")
    if not 0 < Theta <= m_prime * Pi:
        raise InputError(f"the budget Θ must satisfy 0 < Θ ≤ m'·Π = {m_prime * Pi}, got {Theta}", field="Theta")
    return Pi, Theta, m_prime


@dataclass(frozen=True)
class MPRInterface:
    """A multiprocessor periodic resource Γ = ⟨Π, Θ, m'⟩ (ECRTS 2008, §3).

    Θ units of supply every period Π (periods aligned at multiples of Π), at most m' units per
    time unit (m' virtual processors at a time).

    Examples
    --------
    >>> g = MPRInterface(5, 3, 2)
    >>> g.bandwidth, g.alpha, g.beta
    (Fraction(3, 5), 1, 1)
    >>> [g.sbf(t) for t in range(6, 11)]
    [0, 1, 2, 3, 3]
    """

    Pi: int
    Theta: int
    m_prime: int

    def __post_init__(self) -> None:
        Pi, Theta, m_prime = validate_interface(self.Pi, self.Theta, self.m_prime)
        object.__setattr__(self, "Pi", Pi)
        object.__setattr__(self, "Theta", Theta)
        object.__setattr__(self, "m_prime", m_prime)

    @property
    def bandwidth(self) -> Fraction:
        """Θ/Π, exactly."""
        return Fraction(self.Theta, self.Pi)

    @property
    def alpha(self) -> int:
        """α = ⌊Θ/m'⌋ (RTS 2009 notation)."""
        return self.Theta // self.m_prime

    @property
    def beta(self) -> int:
        """β = Θ − m'·α, the supply of the one partially used time unit."""
        return self.Theta - self.m_prime * self.alpha

    @property
    def blackout(self) -> int:
        """Longest interval with no supply: 2(Π − ⌈Θ/m'⌉)."""
        return 2 * (self.Pi - (-(-self.Theta // self.m_prime)))

    def sbf(self, t: ArrayLike) -> Any:
        """Exact worst-case supply in any interval of length t; see :func:`sbf`."""
        return sbf(self.Pi, self.Theta, self.m_prime, t)

    def lsbf(self, t: ArrayLike) -> Any:
        """Linear lower bound of :meth:`sbf`; see :func:`lsbf`."""
        return lsbf(self.Pi, self.Theta, self.m_prime, t)

    def servers(self, name: str | None = None) -> TaskSet:
        """The periodic server tasks of this interface; see :func:`server_tasks`."""
        return server_tasks(self, name=name)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: Π, Θ, m' and the bandwidth as a string ``p/q``."""
        bw = self.bandwidth
        return {
            "Pi": self.Pi,
            "Theta": self.Theta,
            "m_prime": self.m_prime,
            "bandwidth": str(bw.numerator) if bw.denominator == 1 else f"{bw.numerator}/{bw.denominator}",
        }

    def __str__(self) -> str:
        return f"⟨Π={self.Pi}, Θ={self.Theta}, m'={self.m_prime}⟩"


def dedicated(m: int) -> MPRInterface:
    """The interface of m dedicated processors, ⟨1, m, m⟩, whose sbf(t) = m·t."""
    m = check_processors(m)
    return MPRInterface(1, m, m)


def _sbf_python(Pi: int, Theta: int, m_prime: int, t: int) -> int:
    """Exact sbf for one Python int t (the closed form of the note; see :func:`sbf`)."""
    alpha, beta = divmod(Theta, m_prime)
    share = alpha + (1 if beta else 0)  # ⌈Θ/m'⌉
    shifted = t - 2 * (Pi - share)  # t' : time since the end of the worst blackout
    if shifted <= 0:
        return 0
    # y ∈ [1, Π]: position inside the supply pattern, counted so that an exact multiple of Π
    # is the END of a period (y = Π), not the start of the next one (the trap of the note).
    q, r = divmod(shifted - 1, Pi)
    return q * Theta + supply_in_period(Theta, m_prime, r + 1)


def supply_in_period(Theta: int, m_prime: int, y: int) -> int:
    """The supply of the worst window's last, partial period, at position ``y`` in it.

    The note's closed form: m'·min(y, α) if β = 0, else β + m'·min(y − 1, α), less m' − β when
    2 ≤ y ≤ ⌈Θ/m'⌉ (the window may start one tick earlier and catch β instead of a full m'
    tick). :func:`sbf` takes y ∈ [1, Π]; ``papers/repro/notes_errata.py`` feeds it the
    erroneous position t' mod Π to show what the note's "+1" prevents.
    """
    alpha, beta = divmod(Theta, m_prime)
    if beta == 0:
        return m_prime * min(y, alpha)
    value = beta + m_prime * min(y - 1, alpha)
    if 2 <= y <= alpha + 1:  # ⌈Θ/m'⌉ = α + 1 when β > 0
        value -= m_prime - beta
    return value


def sbf(Pi: int, Theta: int, m_prime: int, t: ArrayLike) -> Any:
    """Exact worst-case supply of ⟨Π, Θ, m'⟩ in an interval of integer length t.

    With α = ⌊Θ/m'⌋, β = Θ − m'α, s = ⌈Θ/m'⌉, t' = t − 2(Π − s) and, for t' > 0,
    q = ⌊(t' − 1)/Π⌋, y = t' − qΠ ∈ [1, Π]:

    - β = 0:  sbf(t) = qΘ + m'·min(y, α)
    - β > 0:  sbf(t) = qΘ + β + m'·min(y − 1, α) − [2 ≤ y ≤ s]·(m' − β)

    and sbf(t) = 0 for t' ≤ 0 (in particular for t ≤ 0). This is the corrected supply bound of
    Easwaran, Shin, Lee (RTS 2009, Def. 1 — numbering unverified) rewritten in a form that is
    exact in integer time; see the note for the derivation and the brute-force check.

    Parameters
    ----------
    Pi, Theta, m_prime:
        The interface (validated).
    t:
        An integer or an integer array (any shape).

    Returns
    -------
    int or numpy.ndarray
        A Python int for a scalar t; an int64 array of t's shape for an array (an object
        array of Python ints if int64 could overflow, i.e. when max|t|·m' ≥ 2**62).
    """
    Pi, Theta, m_prime = validate_interface(Pi, Theta, m_prime)
    if np.ndim(t) == 0:
        if isinstance(t, bool) or not isinstance(t, int | np.integer):
            raise InputError(f"t must be an integer, got {t!r}", field="t")
        return _sbf_python(Pi, Theta, m_prime, int(t))
    arr = np.asarray(t)
    if arr.dtype.kind not in "iu":
        raise InputError(f"t must be an integer array, got dtype {arr.dtype}", field="t")
    if arr.size and max(abs(int(arr.max())), abs(int(arr.min()))) * m_prime >= 2**62:
        flat = [_sbf_python(Pi, Theta, m_prime, int(v)) for v in arr.ravel().tolist()]
        return np.array(flat, dtype=object).reshape(arr.shape)
    tt = arr.astype(np.int64)
    alpha, beta = divmod(Theta, m_prime)
    share = alpha + (1 if beta else 0)
    shifted = tt - 2 * (Pi - share)
    positive = shifted > 0
    q, r = np.divmod(shifted - 1, Pi)
    y = r + 1
    if beta == 0:
        value = q * Theta + m_prime * np.minimum(y, alpha)
    else:
        value = q * Theta + beta + m_prime * np.minimum(y - 1, alpha)
        value = value - np.where((y >= 2) & (y <= share), m_prime - beta, 0)
    return np.where(positive, value, 0).astype(np.int64)


def lsbf(Pi: int, Theta: int, m_prime: int, t: ArrayLike) -> Any:
    """Linear lower bound lsbf(t) = (Θ/Π)·(t − 2(Π − Θ/m'))  (ECRTS 2008, Eq. (2)).

    lsbf(t) ≤ sbf(t) for every integer t (proved in the note for the exact sbf and checked
    exhaustively and symbolically in the tests). The variant with an extra "− 2" in the
    bracket, found in some transcriptions of the journal version, is also a lower bound, only
    looser; a "+ 2" variant is not (it exceeds sbf).

    Returns a Fraction for a scalar t, an object array of Fractions for an array.
    """
    Pi, Theta, m_prime = validate_interface(Pi, Theta, m_prime)
    bw = Fraction(Theta, Pi)
    offset = 2 * (Pi - Fraction(Theta, m_prime))
    if np.ndim(t) == 0:
        if isinstance(t, bool) or not isinstance(t, int | np.integer):
            raise InputError(f"t must be an integer, got {t!r}", field="t")
        return bw * (int(t) - offset)
    arr = np.asarray(t)
    if arr.dtype.kind not in "iu":
        raise InputError(f"t must be an integer array, got dtype {arr.dtype}", field="t")
    flat = [bw * (int(v) - offset) for v in arr.ravel().tolist()]
    return np.array(flat, dtype=object).reshape(arr.shape)


def lsbf_offset(Pi: int, Theta: int, m_prime: int) -> Fraction:
    """B with lsbf(t) = (Θ/Π)·t − B, i.e. B = 2Θ(m'Π − Θ)/(m'Π)."""
    return Fraction(2 * Theta * (m_prime * Pi - Theta), m_prime * Pi)


def sbf_brute_force(Pi: int, Theta: int, m_prime: int, t_max: int) -> NDArray[np.int64]:
    """Worst-case supply for t = 0..t_max by brute force (a test oracle, O(Π·t_max)).

    Minimum, over the integer offsets o ∈ [0, Π) of the window start inside its period, of the
    supply in [o, o + t) of the schedule that delivers period 0's Θ as early as possible (m' per
    tick, then β) and every later period's Θ as late as possible. Any other schedule delivers at
    least as much in every window (each period's share inside the window is minimised
    independently), so this is the exact worst case.
    """
    Pi, Theta, m_prime = validate_interface(Pi, Theta, m_prime)
    alpha, beta = divmod(Theta, m_prime)
    periods = (t_max + Pi) // Pi + 2
    supply = np.zeros(periods * Pi, dtype=np.int64)
    supply[:alpha] = m_prime
    if beta:
        supply[alpha] = beta
    for j in range(1, periods):
        end = (j + 1) * Pi
        supply[end - alpha : end] = m_prime
        if beta:
            supply[end - alpha - 1] = beta
    prefix = np.concatenate(([0], np.cumsum(supply)))
    starts = np.arange(Pi)
    lengths = np.arange(t_max + 1)
    windows = prefix[starts[:, None] + lengths[None, :]] - prefix[starts[:, None]]
    return windows.min(axis=0)


@kernel
def _sbf_one(Pi, Theta, mp, t):
    """Exact sbf for int64 scalars (the closed form of :func:`sbf`)."""
    alpha = Theta // mp
    beta = Theta - mp * alpha
    share = alpha + (1 if beta > 0 else 0)
    shifted = t - 2 * (Pi - share)
    if shifted <= 0:
        return 0
    q = (shifted - 1) // Pi
    y = shifted - q * Pi
    if beta == 0:
        return q * Theta + mp * (y if y < alpha else alpha)
    value = beta + mp * ((y - 1) if (y - 1) < alpha else alpha)
    if y >= 2 and y <= share:
        value -= mp - beta
    return q * Theta + value


# ------------------------------------------------------------------------------------------------
# Servers (ECRTS 2008, §5.2)
# ------------------------------------------------------------------------------------------------
def server_budgets(interface: MPRInterface) -> list[int]:
    """Budgets of the m' servers: β of them get α + 1, the other m' − β get α (sum Θ).

    This is the split of ECRTS 2008 §5.2 (Def. 1 there; numbering unverified) for integer Θ:
    its "k = ⌊ψ⌋ servers with ⌊Θ/m'⌋ + 1, one server with the fractional rest" has no
    fractional rest when Θ is an integer. Every budget is ≤ Π (α + 1 ≤ Π whenever β > 0).
    """
    alpha, beta = interface.alpha, interface.beta
    return [alpha + 1] * beta + [alpha] * (interface.m_prime - beta)


def server_tasks(interface: MPRInterface, name: str | None = None) -> TaskSet:
    """The interface as implicit-deadline periodic tasks (budget, Π, Π), released together.

    Servers with budget 0 (when Θ < m') are omitted: they supply nothing. Any schedule that
    gives every server its budget in every period [jΠ, (j+1)Π) delivers Θ per period with at
    most m' units per tick, i.e. a valid MPR supply, so the top level only has to schedule
    these tasks (e.g. with any global or partitioned EDF test).
    """
    budgets = [b for b in server_budgets(interface) if b > 0]
    label = name or "server"
    names = [f"{label}[{i}]" for i in range(len(budgets))]
    return TaskSet(
        [*budgets], [interface.Pi] * len(budgets), [interface.Pi] * len(budgets), names, deadlines="implicit"
    )


# ------------------------------------------------------------------------------------------------
# G-EDF under MPR: exact reference (ECRTS 2008, Thm. 1 and Thm. 2, integer-time form)
# ------------------------------------------------------------------------------------------------
def _workloads(C: int, D: int, T: int, t: int) -> tuple[int, int]:
    """(dbf, DBF') of one task in an interval of length t ≥ 0 (ECRTS 2008, Eq. (3)).

    dbf = N·C with N = ⌊(t + T − D)/T⌋ jobs inside; DBF' adds the carry-in job,
    min(C, max(0, t − N·T)). For C ≤ D ≤ T, DBF' equals Baruah's ⌊t/T⌋C + min(C, t mod T).
    """
    jobs = (t - D) // T + 1 if t >= D else 0
    dbf = jobs * C
    return dbf, dbf + min(C, max(0, t - jobs * T))


def demand(ts: TaskSet, k: int, A_k: int, m_prime: int) -> tuple[int, list[tuple[int, int]]]:
    """Left side of the test, DEM(A_k + D_k, m'), and the per-task (Î_i, Ī_i).

    DEM = Σ_i Î_i + Σ_{m'−1 largest}(Ī_i − Î_i) + m'·(C_k − 1)     (ECRTS 2008, Eq. (5), integer form)

    Î_i = min(dbf_i, A_k + D_k − C_k + 1), Ī_i = min(DBF'_i, A_k + D_k − C_k + 1) for i ≠ k;
    Î_k = min(dbf_k − C_k, A_k), Ī_k = min(DBF'_k − C_k, A_k).
    """
    C, D, T = (int(x) for x in (ts.C[k], ts.D[k], ts.T[k]))
    t = A_k + D
    cap = t - C + 1
    terms: list[tuple[int, int]] = []
    for i, (Ci, Di, Ti) in enumerate(ts.rows()):
        dbf, dbf_carry = _workloads(Ci, Di, Ti, t)
        if i == k:
            terms.append((min(dbf - C, A_k), min(dbf_carry - C, A_k)))
        else:
            terms.append((min(dbf, cap), min(dbf_carry, cap)))
    diffs = sorted((b - a for a, b in terms), reverse=True)
    total = sum(a for a, _ in terms) + sum(diffs[: m_prime - 1]) + m_prime * (C - 1)
    return total, terms


def a_k_bounds(ts: TaskSet, interface: MPRInterface) -> list[int] | None:
    """Largest A_k to check per task (ECRTS 2008, Thm. 2, re-derived for the integer form).

    With U_T = Σ C_i/T_i < Θ/Π, U = Σ (T_i − D_i)·C_i/T_i, C_Σ the sum of the m' − 1 largest C_i
    and B the lsbf offset (lsbf(t) = (Θ/Π)t − B):

        DEM ≤ U_T·t + U + C_Σ + (m' − 1)C_k − m'        (dbf_i(t) ≤ U_i(t + T_i − D_i), Ī − Î ≤ C_i)

    so DEM < lsbf(t) ≤ sbf(t) for every t > N_k/(Θ/Π − U_T) with
    N_k = U + C_Σ + (m' − 1)C_k − m' + B, i.e. only A_k ≤ ⌊N_k/(Θ/Π − U_T) − D_k⌋ need checking
    (−1: none). Returns None if U_T ≥ Θ/Π (no bound: the test does not accept).
    """
    rows = ts.rows()
    mp = interface.m_prime
    u_total = sum((Fraction(c, t) for c, _, t in rows), Fraction(0))
    gap = interface.bandwidth - u_total
    if gap <= 0:
        return None
    u_pad = sum((Fraction((t - d) * c, t) for c, d, t in rows), Fraction(0))
    c_sigma = sum(sorted((c for c, _, _ in rows), reverse=True)[: mp - 1])
    offset = lsbf_offset(interface.Pi, interface.Theta, mp)
    bounds = []
    for c, d, _ in rows:
        numerator = u_pad + c_sigma + (mp - 1) * c - mp + offset
        bounds.append(max(-1, math.floor(numerator / gap - d)))
    return bounds


def _skip(rows: list[tuple[int, int, int]], k: int, A_k: int, slack: int) -> int:
    """How many following values of A_k provably pass, given slack = sbf − DEM > 0 at A_k.

    Until the next breakpoint (a step of some dbf_i, or the start of a carry-in ramp of some
    DBF'_i) every term of DEM is constant except those that sit above their cap (they grow with
    the cap, one per tick) or on a carry-in ramp (slope one): say κ terms. As
    min(a', c') − min(a, c) ≤ max(a' − a, c' − c) and the m' − 1 largest differences are a maximum
    over subsets, DEM(A_k + j) ≤ DEM(A_k) + κ·j, while sbf is non-decreasing: the next
    ⌊(slack − 1)/κ⌋ values pass (all up to the breakpoint if κ = 0).
    """
    C_k, D_k, _ = rows[k]
    t = A_k + D_k
    cap = t - C_k + 1
    kappa = 0
    horizon = None
    for i, (c, d, p) in enumerate(rows):
        jobs = (t - d) // p + 1 if t >= d else 0
        step = d + jobs * p
        rest = t - jobs * p
        if rest < 0:
            step = min(step, jobs * p)  # the carry-in ramp starts there
        horizon = step if horizon is None else min(horizon, step)
        dbf = jobs * c
        dbf_carry = dbf + min(c, max(0, rest))
        if i == k:
            hat, bar, limit = dbf - c, dbf_carry - c, A_k
        else:
            hat, bar, limit = dbf, dbf_carry, cap
        if hat > limit or bar > limit or 0 <= rest < c:
            kappa += 1
    skip = horizon - t - 1  # type: ignore[operator]  # rows holds τk, so the loop set horizon
    if kappa:
        skip = min(skip, (slack - 1) // kappa)
    return skip


def _scan(
    ts: TaskSet, interface: MPRInterface, bounds: list[int], skip: bool = True
) -> tuple[int, int, int, int] | None:
    """First (k, A_k, DEM, sbf) with DEM ≥ sbf, scanning k then A_k upwards; None if none.

    With ``skip`` the values of A_k that provably pass after a point with slack are jumped over
    (same rule as the kernel); the verdict does not depend on it (tested).
    """
    rows = ts.rows()
    for k in range(ts.n):
        D_k = int(ts.D[k])
        A_k = 0
        while A_k <= bounds[k]:
            t = A_k + D_k
            dem, _ = demand(ts, k, A_k, interface.m_prime)
            supply = _sbf_python(interface.Pi, interface.Theta, interface.m_prime, t)
            if dem >= supply:
                return k, A_k, dem, supply
            A_k += 1 + (_skip(rows, k, A_k, supply - dem) if skip else 0)
    return None


def reference_interface(
    ts: TaskSet, interface: MPRInterface, budget: int = DEFAULT_BUDGET, skip: bool = True
) -> Verdict:
    """Exact verdict of G-EDF under MPR: True, False (not proven) or "unknown" (budget).

    "unknown" when the number of (k, A_k) points to check, Σ_k (A_max_k + 1), exceeds
    ``budget``; the kernel follows the same rule, so verdicts are equal.
    """
    _check_deadlines(ts)
    bounds = a_k_bounds(ts, interface)
    if bounds is None:
        return False
    if sum(b + 1 for b in bounds) > budget:
        return UNKNOWN_VERDICT
    return _scan(ts, interface, bounds, skip) is None


def _check_deadlines(ts: TaskSet) -> None:
    if not ts.is_constrained:
        raise InputError("G-EDF under MPR needs constrained deadlines (D <= T)")


def gedf_mpr(ts: TaskSet, interface: MPRInterface, budget: int = DEFAULT_BUDGET) -> Explanation:
    """The G-EDF-under-MPR verdict with its evidence (the failing (k, A_k) or the bounds checked)."""
    _check_deadlines(ts)
    mp = interface.m_prime
    evidence: dict[str, Any] = {
        "interface": str(interface),
        "Pi": interface.Pi,
        "Theta": interface.Theta,
        "m_prime": mp,
        "bandwidth": interface.bandwidth,
        "utilization": ts.utilization,
        "budget": budget,
    }
    bounds = a_k_bounds(ts, interface)
    if bounds is None:
        summary = f"U = {show_number(ts.utilization)} ≥ Θ/Π = {show_number(interface.bandwidth)}: Thm. 2 gives no bound on A_k"
        return Explanation(False, summary, evidence)
    evidence["A_k_bounds"] = tuple(bounds)
    points = sum(b + 1 for b in bounds)
    evidence["points"] = points
    per_task = [{"task": i, "A_max": b} for i, b in enumerate(bounds)]
    if points > budget:
        summary = f"work budget exhausted: {points} values of A_k to check > budget {budget}"
        return Explanation(UNKNOWN_VERDICT, summary, evidence, per_task)
    failure = _scan(ts, interface, bounds)
    if failure is None:
        if points == 0:
            summary = f"every task's bound on A_k (Thm. 2) is below 0: no point (k, A_k) to check on {interface}"
        else:
            every = "the only point" if points == 1 else f"all {points} points"
            summary = f"DEM(A_k + D_k) < sbf(A_k + D_k) on {interface} for {every} (k, A_k)"
        return Explanation(True, summary, evidence, per_task)
    k, A_k, dem, supply = failure
    evidence.update({"task": k, "A_k": A_k, "t": A_k + int(ts.D[k]), "demand": dem, "supply": supply})
    summary = f"{ts.label(k)}, A_k = {A_k}: DEM({A_k + int(ts.D[k])}) = {dem} ≥ sbf = {supply} on {interface}"
    return Explanation(False, summary, evidence, per_task)


# ------------------------------------------------------------------------------------------------
# Kernels
# ------------------------------------------------------------------------------------------------
@kernel
def _demand_one(C, D, T, k, A, mp, diffs):
    """DEM(A + D_k, m') of :func:`demand` in int64 (no overflow: dbf_i ≤ (t + T_i)·C_i/T_i)."""
    n = C.shape[0]
    Ck = C[k]
    t = A + D[k]
    cap = t - Ck + 1
    total = 0
    for i in range(n):
        jobs = (t - D[i]) // T[i] + 1 if t >= D[i] else 0
        dbf = jobs * C[i]
        rest = t - jobs * T[i]
        carry = C[i] if rest > C[i] else rest
        if carry < 0:
            carry = 0
        dbf_carry = dbf + carry
        if i == k:
            hat = dbf - Ck if dbf - Ck < A else A
            bar = dbf_carry - Ck if dbf_carry - Ck < A else A
        else:
            hat = dbf if dbf < cap else cap
            bar = dbf_carry if dbf_carry < cap else cap
        total += hat
        diffs[i] = bar - hat
    extra = mp - 1
    if extra >= n:
        for i in range(n):
            total += diffs[i]
    elif extra > 0:
        diffs.sort()
        for i in range(n - extra, n):
            total += diffs[i]
    return total + mp * (Ck - 1)


@kernel
def _safe_skip(C, D, T, k, A, slack):
    """The skip rule of :func:`_skip` in int64."""
    n = C.shape[0]
    t = A + D[k]
    cap = t - C[k] + 1
    kappa = 0
    horizon = np.int64(2**62)
    for i in range(n):
        jobs = (t - D[i]) // T[i] + 1 if t >= D[i] else 0
        step = D[i] + jobs * T[i]
        rest = t - jobs * T[i]
        if rest < 0 and jobs * T[i] < step:
            step = jobs * T[i]
        if step < horizon:
            horizon = step
        dbf = jobs * C[i]
        carry = C[i] if rest > C[i] else rest
        if carry < 0:
            carry = 0
        dbf_carry = dbf + carry
        if i == k:
            hat = dbf - C[k]
            bar = dbf_carry - C[k]
            limit = A
        else:
            hat = dbf
            bar = dbf_carry
            limit = cap
        if hat > limit or bar > limit or (rest >= 0 and rest < C[i]):
            kappa += 1
    skip = horizon - t - 1
    if kappa > 0:
        by_slack = (slack - 1) // kappa
        if by_slack < skip:
            skip = by_slack
    return skip


@kernel
def gedf_mpr_one(C, D, T, Pi, Theta, mp, budget):
    """Verdict code of the G-EDF test under the MPR interface ⟨Π, Θ, m'⟩ for one set (the kernel of ``gedf-mpr``)."""
    n = C.shape[0]
    u_total = 0.0
    u_pad = 0.0
    for i in range(n):
        u = C[i] / T[i]
        u_total += u
        u_pad += (T[i] - D[i]) * u
    bw = Theta / Pi
    gap = bw - u_total
    # Each quotient is correctly rounded and n + 2 non-negative terms are summed: the absolute
    # error of gap is below (n + 4)·EPS·(u_total + bw); we allow 8 times that.
    err_gap = 8.0 * (n + 4) * EPS * (u_total + bw)
    if gap < -err_gap:
        return REJECT
    if gap <= 1e6 * err_gap:
        # Too close to U_T = Θ/Π to bound A_k to relative 1e-6: let the reference decide.
        return UNDECIDED
    # C_Σ: the m' − 1 largest C (exact integers; < 2**53 so exact as floats too).
    sorted_C = np.sort(C)
    c_sigma = 0
    for i in range(max(0, n - (mp - 1)), n):
        c_sigma += sorted_C[i]
    offset = 2.0 * Theta * (1.0 - Theta / (mp * Pi))  # B of lsbf, ≥ 0
    a_max_float = np.empty(n, dtype=np.float64)
    total_lo = 0.0
    total_hi = 0.0
    for k in range(n):
        positive = u_pad + c_sigma + (mp - 1) * C[k] + offset
        numerator = positive - mp
        err_num = 8.0 * (n + 8) * EPS * (positive + mp)
        # Upper estimate of A_max_k (checking extra A_k is harmless: there DEM < lsbf ≤ sbf).
        hi = numerator + err_num
        a_hi = -1.0
        if hi > 0:
            a_hi = hi / (gap * (1.0 - 1e-6)) - D[k] + 1.0
        lo = numerator - err_num
        a_lo = -1.0
        if lo > 0:
            a_lo = lo / (gap * (1.0 + 1e-6)) - D[k] - 1.0
        # Σ_k (⌊A_max_k⌋ + 1) lies in [Σ a_lo, Σ (a_hi + 1)] (no floor: a_hi may be huge).
        if a_hi >= 0.0:
            total_hi += a_hi + 1.0
        if a_lo >= 0.0:
            total_lo += a_lo
        a_max_float[k] = a_hi
    if total_lo > budget:
        return UNKNOWN
    if total_hi > budget:
        return UNDECIDED
    a_max = np.empty(n, dtype=np.int64)
    for k in range(n):
        a_max[k] = int(math.floor(a_max_float[k])) if a_max_float[k] >= 0.0 else -1
    diffs = np.empty(n, dtype=np.int64)
    for k in range(n):
        A = 0
        while A <= a_max[k]:
            t = A + D[k]
            dem = _demand_one(C, D, T, k, A, mp, diffs)
            supply = _sbf_one(Pi, Theta, mp, t)
            if dem >= supply:
                return REJECT
            A += 1 + _safe_skip(C, D, T, k, A, supply - dem)
    return ACCEPT


@batch_kernel
def _gedf_mpr_kernel(C, D, T, offsets, Pi, Theta, mp, budget, out):
    for s in prange(out.shape[0]):
        lo, hi = offsets[s], offsets[s + 1]
        out[s] = gedf_mpr_one(C[lo:hi], D[lo:hi], T[lo:hi], Pi, Theta, mp, budget)


def gedf_mpr_codes(
    batch: TaskSetBatch, Pi: int, Theta: int, m_prime: int, budget: int = DEFAULT_BUDGET
) -> NDArray[np.int8]:
    """Verdict codes of G-EDF under ⟨Π, Θ, m'⟩ for every set: 1 accepted, 0 not proven, −1 unknown.

    Equal to :func:`reference_interface` on every input (sets the float bound cannot settle are
    re-decided by the reference).
    """
    interface = MPRInterface(Pi, Theta, m_prime)
    if isinstance(budget, bool) or not isinstance(budget, int) or budget < 0:
        raise InputError(f"budget must be a non-negative integer, got {budget!r}", field="budget")
    if batch.deadlines == "arbitrary" and batch.n_sets and bool(np.any(batch.D > batch.T)):
        raise InputError("G-EDF under MPR needs constrained deadlines (D <= T)")
    out = np.empty(batch.n_sets, dtype=np.int8)
    if batch.n_sets:
        _gedf_mpr_kernel(
            batch.C, batch.D, batch.T, batch.offsets, interface.Pi, interface.Theta, interface.m_prime, budget, out
        )
    return redecide_by(out, lambda s: reference_interface(batch[s], interface, budget))


# ------------------------------------------------------------------------------------------------
# Interface search (ECRTS 2008, §5.1)
# ------------------------------------------------------------------------------------------------
def _accepts(ts: TaskSet, Pi: int, Theta: int, m_prime: int, budget: int) -> bool:
    code = gedf_mpr_codes(TaskSetBatch.from_tasksets([ts]), Pi, Theta, m_prime, budget)[0]
    return bool(code == ACCEPT)


def min_theta(ts: TaskSet, Pi: int, m_prime: int, budget: int = DEFAULT_BUDGET) -> int | None:
    """Smallest integer Θ for which ``gedf-mpr`` accepts ``ts`` on ⟨Π, Θ, m'⟩, or None.

    Binary search on Θ ∈ (U_T·Π, m'Π]: acceptance is monotone in Θ because the exact sbf is
    non-decreasing in Θ (a schedule with Θ + 1 per period minus one unit per period is one with
    Θ) while DEM does not depend on Θ; the A_k bound is recomputed for each candidate Θ. A
    budget-"unknown" counts as not accepted; the result is checked (Θ accepted, Θ − 1 not).
    """
    _check_deadlines(ts)
    validate_interface(Pi, 1, m_prime)
    lo = math.floor(ts.utilization * Pi) + 1  # Θ/Π must exceed U_T
    hi = m_prime * Pi
    if lo > hi or not _accepts(ts, Pi, hi, m_prime, budget):
        return None
    while lo < hi:
        mid = (lo + hi) // 2
        if _accepts(ts, Pi, mid, m_prime, budget):
            hi = mid
        else:
            lo = mid + 1
    # Budget "unknown" could in principle break monotonicity; walk down if needed.
    while lo > 1 and _accepts(ts, Pi, lo - 1, m_prime, budget):
        lo -= 1
    return lo


def best_interface(ts: TaskSet, Pi: int, m_max: int | None = None, budget: int = DEFAULT_BUDGET) -> MPRInterface | None:
    """The interface of smallest bandwidth over m' ∈ [⌊U_T⌋ + 1, m_max] for period Π, or None.

    For a fixed Θ, acceptance can only be lost when m' grows (sbf is non-increasing in m': the
    adversary has more schedules; DEM is non-decreasing in m'), so the minimum Θ is
    non-decreasing in m' and the first m' with a feasible Θ is optimal; we still stop there.
    ``m_max`` defaults to n: on ⟨Π, nΠ, n⟩ every constrained set with U_T < n is accepted.
    """
    _check_deadlines(ts)
    m_lo = math.floor(ts.utilization) + 1
    m_hi = ts.n if m_max is None else int(m_max)
    for m_prime in range(m_lo, m_hi + 1):
        theta = min_theta(ts, Pi, m_prime, budget)
        if theta is not None:
            return MPRInterface(Pi, theta, m_prime)
    return None
