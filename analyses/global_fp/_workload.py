"""Workload and interference bounds of the global fixed-priority (G-FP) tests (private module).

Priority is the order of the tasks in the set: task 0 has the highest priority, and hp(k) =
{0, …, k − 1} are the tasks above τk. Constrained deadlines (C ≤ D ≤ T), integer time, m
identical processors, preemptive global FP (work-conserving). Each bound exists twice: a
readable Python-int version for the references and an ``@njit`` twin for the kernels. The
symbols follow the papers (see ``papers/bcl2005-fp.md``, ``papers/bertogna-cirinei2007.md``,
``papers/guan2009-rta-lc.md`` and ``papers/davis-burns2011-opa.md``):

- :func:`workload_deadline` — W^D_i(L): the workload of τi in any window of length L when no
  job of τi finishes later than its deadline (its carry-in job ends exactly at its deadline,
  the others run as late as possible),
  ``N C_i + min(C_i, L + D_i − C_i − N T_i)`` with ``N = ⌊(L + D_i − C_i)/T_i⌋``
  (Bertogna, Cirinei, Lipari, OPODIS 2005 / IEEE TPDS 2009, the FP workload bound; Davis &
  Burns, RTS 2011, Eq. (1)–(2));
- :func:`workload_response` — W^R_i(L): the same with τi's response-time bound R_i in place of
  D_i (Bertogna & Cirinei, RTSS 2007, Eq. (4)/(8) with slack S_i = D_i − R_i: it is
  ``theory.workload.carry_in_workload`` with that slack);
- :func:`workload_nc` — W^NC_i(L) = ⌊L/T_i⌋ C_i + min(C_i, L mod T_i): the workload of τi in a
  window in which it has no carry-in job (Guan, Stigge, Yi, Yu, RTSS 2009, Eq. (5); Davis &
  Burns Eq. (10)–(11));
- :func:`workload_ci` — W^CI_i(L) = ⌊[L − C_i]_0/T_i⌋ C_i + C_i + α with
  α = [[L − C_i]_0 mod T_i − (T_i − R_i)]_0^{C_i − 1}: the workload with one carry-in job
  (Guan et al., Eq. (6));
- :func:`top_sum` — the sum of the (m − 1) largest carry-in increments (Guan et al., Eq. (9)–(11);
  Davis & Burns Eq. (14)).

Every interference term is clipped to ``x − C_k + 1`` (the integer-time form: a job of τk
unfinished at x was kept from running for at least x − C_k + 1 ticks, at each of which all m
processors ran tasks of hp(k)), so with the floor the per-task condition reads
``C_k + ⌊Σ/m⌋ ≤ x``.

Relations used by the tests (proofs in the notes): W^NC ≤ W^CI ≤ W^R ≤ W^D for C_i ≤ R_i ≤ D_i
(W^CI differs from W^R by at most one tick, where Guan's α is capped at C_i − 1).

Overflow: every time value is ≤ 2**31 − 1 and x ≤ D_k, so each workload is at most
x + D_i ≤ 2**32; sums over at most 2**16 tasks of terms clipped to ≤ 2**31 stay below 2**47.

The OPA interface: :func:`da_fits_lowest` and :func:`da_lc_fits_lowest` answer whether τk meets
its deadline at a priority just below exactly the tasks ``higher`` (in any order), which is what
Audsley's algorithm asks; both tests are OPA-compatible in the sense of Davis & Burns (RTS 2011): the condition of τk
depends only on the set of higher-priority tasks, not on their order, and does not get harder
when a task moves from hp(k) to below τk (each term is ≥ 0). Bind the platform with
:func:`fits_lowest` (or ``functools.partial(..., m=m)``). With arbitrary deadlines they analyse
D'_i = min(D_i, T_i), as the tests do (papers/arbitrary-deadlines-reductions.md): still a condition
on the set of higher-priority tasks only, so still OPA-compatible.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

from rtsched.analyses.theory.workload import carry_in_workload
from rtsched.kernels import kernel
from rtsched.kernels import top_sum as top_sum_of

__all__ = [
    "da_fits_lowest",
    "da_lc_fits_lowest",
    "da_lc_terms",
    "fits_lowest",
    "da_terms",
    "top_sum",
    "top_sum_nb",
    "workload_ci",
    "workload_ci_nb",
    "workload_deadline",
    "workload_deadline_nb",
    "workload_nc",
    "workload_nc_nb",
    "workload_response",
    "workload_response_nb",
]


# -- Python-int bounds (the references) ----------------------------------------------------------
def workload_deadline(C_i: int, D_i: int, T_i: int, L: int) -> int:
    """W^D_i(L) (BCL OPODIS 2005 / TPDS 2009 FP workload; Davis & Burns 2011 Eq. (1)–(2))."""
    return carry_in_workload(C_i, D_i, T_i, 0, L)


def workload_response(C_i: int, D_i: int, T_i: int, R_i: int, L: int) -> int:
    """W^R_i(L): W^D with the response-time bound R_i for D_i (Bertogna & Cirinei 2007, Eq. (8))."""
    return carry_in_workload(C_i, D_i, T_i, D_i - R_i, L)


def workload_nc(C_i: int, T_i: int, L: int) -> int:
    """W^NC_i(L) = ⌊L/T_i⌋ C_i + min(C_i, L mod T_i)  (Guan et al. 2009, Eq. (5))."""
    jobs, rest = divmod(L, T_i)
    return jobs * C_i + min(C_i, rest)


def workload_ci(C_i: int, T_i: int, R_i: int, L: int) -> int:
    """W^CI_i(L) = ⌊[L − C_i]_0/T_i⌋ C_i + C_i + α  (Guan et al. 2009, Eq. (6))."""
    jobs, rest = divmod(max(L - C_i, 0), T_i)
    alpha = min(max(rest - (T_i - R_i), 0), C_i - 1)
    return jobs * C_i + C_i + alpha


def top_sum(values: Sequence[int], count: int) -> int:
    """The sum of the ``count`` largest of ``values`` (all of them if there are fewer)."""
    if count <= 0:
        return 0
    return sum(sorted(values, reverse=True)[:count])


def _reduced_deadline(ts: Any, i: int) -> int:
    """D'_i = min(D_i, T_i): the deadline the G-FP tests analyse (papers/arbitrary-deadlines-reductions.md).

    A task with C_i > T_i then has C_i > D'_i and never fits at any priority level.
    """
    return min(int(ts.D[i]), int(ts.T[i]))


def da_terms(ts: Any, k: int, higher: Sequence[int]) -> list[tuple[int, int]]:
    """The interference terms [(i, I^D_i)] of the tasks ``higher`` on τk at L = D_k.

    I^D_i = min(W^D_i(D_k), D_k − C_k + 1) (Davis & Burns 2011 Eq. (3)).
    """
    C_k, D_k = int(ts.C[k]), _reduced_deadline(ts, k)
    cap = D_k - C_k + 1
    return [(i, min(workload_deadline(int(ts.C[i]), _reduced_deadline(ts, i), int(ts.T[i]), D_k), cap)) for i in higher]


def da_lc_terms(ts: Any, k: int, higher: Sequence[int]) -> list[tuple[int, int, int]]:
    """The interference terms [(i, I^NC_i, I^D_i)] of the tasks ``higher`` on τk at L = D_k.

    Davis & Burns 2011 Eq. (3), (9); I^DIFF-D_i = I^D_i − I^NC_i (Eq. (15)) is ≥ 0.
    """
    C_k, D_k = int(ts.C[k]), _reduced_deadline(ts, k)
    cap = D_k - C_k + 1
    out = []
    for i in higher:
        c, d, t = int(ts.C[i]), _reduced_deadline(ts, i), int(ts.T[i])
        out.append((i, min(workload_nc(c, t, D_k), cap), min(workload_deadline(c, d, t, D_k), cap)))
    return out


def da_fits_lowest(ts: Any, k: int, higher: Sequence[int], *, m: int) -> bool:
    """DA (Davis & Burns 2011, Eq. (4)): whether τk meets its deadline below exactly ``higher``.

    C_k + ⌊(1/m) Σ_{i ∈ higher} min(W^D_i(D_k), D_k − C_k + 1)⌋ ≤ D_k. The OPA interface
    ``fits_lowest(ts, k, higher)`` with the platform bound: ``functools.partial(da_fits_lowest,
    m=4)`` (or :func:`fits_lowest`).
    """
    total = sum(term for _, term in da_terms(ts, k, higher))
    return int(ts.C[k]) + total // m <= _reduced_deadline(ts, k)


def da_lc_fits_lowest(ts: Any, k: int, higher: Sequence[int], *, m: int) -> bool:
    """DA-LC (Davis & Burns 2011, Eq. (14)–(15)): whether τk meets its deadline below exactly ``higher``.

    C_k + ⌊(1/m)(Σ_{i ∈ higher} I^NC_i + Σ_{m − 1 largest} (I^D_i − I^NC_i))⌋ ≤ D_k, every term at
    L = D_k. Bind the platform with ``functools.partial(da_lc_fits_lowest, m=4)``.
    """
    terms = da_lc_terms(ts, k, higher)
    total = sum(nc for _, nc, _ in terms) + top_sum([d - nc for _, nc, d in terms], m - 1)
    return int(ts.C[k]) + total // m <= _reduced_deadline(ts, k)


def fits_lowest(test: str, m: int) -> Callable[[Any, int, Sequence[int]], bool]:
    """The OPA callback ``fits_lowest(ts, k, higher)`` of ``"gfp-da"`` or ``"gfp-da-lc"`` on m processors.

    It is what ``rtsched.priorities.audsley`` takes.
    """
    fits = {"gfp-da": da_fits_lowest, "gfp-da-lc": da_lc_fits_lowest}[test]
    return functools.partial(fits, m=m)


# -- Numba twins (the kernels) -------------------------------------------------------------------
@kernel(inline="always")
def workload_deadline_nb(C_i, D_i, T_i, L):
    """Numba twin of :func:`workload_deadline`."""
    span = L + D_i - C_i
    jobs = span // T_i
    return jobs * C_i + min(C_i, span - jobs * T_i)


@kernel(inline="always")
def workload_response_nb(C_i, T_i, R_i, L):
    """Numba twin of :func:`workload_response` (R_i in place of D_i)."""
    span = L + R_i - C_i
    jobs = span // T_i
    return jobs * C_i + min(C_i, span - jobs * T_i)


@kernel(inline="always")
def workload_nc_nb(C_i, T_i, L):
    """Numba twin of :func:`workload_nc`."""
    jobs = L // T_i
    return jobs * C_i + min(C_i, L - jobs * T_i)


@kernel(inline="always")
def workload_ci_nb(C_i, T_i, R_i, L):
    """Numba twin of :func:`workload_ci`."""
    y = max(L - C_i, 0)
    jobs = y // T_i
    alpha = min(max(y - jobs * T_i - (T_i - R_i), 0), C_i - 1)
    return jobs * C_i + C_i + alpha


#: Numba twin of :func:`top_sum`: :func:`rtsched.kernels.top_sum`.
top_sum_nb = top_sum_of
