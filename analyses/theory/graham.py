"""Graham's bound on the response time of one DAG job under any work-conserving scheduler; see papers/graham1969.md.

R. L. Graham, "Bounds on multiprocessing timing anomalies", SIAM J. Appl. Math. 17(2), 1969,
pp. 416-429: a list schedule (no processor idles while a vertex is ready) of a precedence graph of
total work ``vol`` whose longest chain has length ``len`` finishes within

    (G)   R ≤ len + (vol − len) / m                          on m identical processors.

The DAG literature (Melani et al. ECRTS 2015, Li et al. ECRTS 2014, ...) states it in this form for
one sporadic DAG job that runs alone; the general form with interference,

    (G+I) R ≤ len + (vol − len + I) / m,

holds when the job shares the processors and ``I`` bounds the work of other jobs executed while it
is pending (every instant at which no vertex of the job's critical chain runs has all m processors
busy, see the note).

**Integer time (rtsched's statement, proved in papers/graham1969.md, "Integer form")**: with
integer execution times and scheduling decisions at integer instants,

    (G-int)   R ≤ len + ⌊(vol − len + I) / m⌋,

because the instants at which all m processors are busy and no vertex of the chain runs form a
whole number of unit slots. Melani et al.'s response-time analyses take this floor too
(``analyses/dag/melani2015.py``).

Functions (Python ints and Fractions, exact): :func:`graham_bound` (G) as a Fraction,
:func:`graham_bound_int` (G-int), :func:`response_bound_int` (G-int with interference). Their Numba
twins for kernels: :func:`graham_bound_int_nb`, :func:`response_bound_int_nb` (int64; the caller
keeps ``vol − len + I`` below 2**62).
"""

from __future__ import annotations

from fractions import Fraction

from rtsched.kernels import kernel

__all__ = [
    "graham_bound",
    "graham_bound_int",
    "graham_bound_int_nb",
    "response_bound_int",
    "response_bound_int_nb",
]


def _check(volume: int, length: int, m: int, interference: int = 0) -> None:
    if m < 1:
        raise ValueError(f"m = {m}: at least one processor")
    if not 0 <= length <= volume:
        raise ValueError(f"need 0 ≤ len ≤ vol (len = {length}, vol = {volume})")
    if interference < 0:
        raise ValueError(f"interference = {interference} < 0")


def graham_bound(volume: int, length: int, m: int) -> Fraction:
    """(G): len + (vol − len)/m, exactly (Graham 1969; any work-conserving scheduler, one DAG job alone).

    >>> graham_bound(9, 6, 2)
    Fraction(15, 2)
    """
    _check(volume, length, m)
    return length + Fraction(volume - length, m)


def graham_bound_int(volume: int, length: int, m: int) -> int:
    """(G-int): len + ⌊(vol − len)/m⌋, the bound in integer time (rtsched's statement, proof in the note).

    >>> graham_bound_int(9, 6, 2)
    7
    """
    _check(volume, length, m)
    return length + (volume - length) // m


def response_bound_int(volume: int, length: int, m: int, interference: int) -> int:
    """(G-int) with interference: len + ⌊(vol − len + I)/m⌋ (integer time; I bounds the interfering work).

    >>> response_bound_int(9, 6, 2, 4)
    9
    """
    _check(volume, length, m, interference)
    return length + (volume - length + interference) // m


@kernel(inline="always")
def graham_bound_int_nb(volume, length, m):
    """:func:`graham_bound_int` in int64 (no checks: 0 ≤ len ≤ vol, m ≥ 1 are the caller's)."""
    return length + (volume - length) // m


@kernel(inline="always")
def response_bound_int_nb(volume, length, m, interference):
    """:func:`response_bound_int` in int64 (no checks; non-negative operands, sum below 2**62)."""
    return length + (volume - length + interference) // m
