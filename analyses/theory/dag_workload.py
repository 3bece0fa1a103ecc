"""The carry-in workload bound of a sporadic DAG task in a window (Melani et al. 2015); see papers/melani2015-rta-dag.md.

A. Melani, M. Bertogna, V. Bonifaci, A. Marchetti-Spaccamela, G. Buttazzo, "Response-Time Analysis
of Conditional DAG Tasks in Multiprocessor Systems", ECRTS 2015. The work of a sporadic DAG task
τ_i (volume vol_i, period T_i) whose jobs finish within R_i of their release, in any window of
length L on m processors (the carry-in job executes its whole volume on all m processors just
before its response time, the later jobs as early as possible)::

    (M2)  W_i(L) = ⌊(L + R_i − vol_i/m) / T_i⌋ · vol_i + min(vol_i, m · ((L + R_i − vol_i/m) mod T_i))

computed exactly as ``A = m·(L + R_i) − vol_i``: ``W_i = ⌊A/(m T_i)⌋·vol_i + min(vol_i, A mod (m T_i))``.
It depends only on (vol_i, T_i, R_i), not on how a job's vertices are ordered, so every global
fixed-priority analysis of DAG tasks that bounds each higher-priority task's response time by R_i
may use it (``dag-gfp-melani2015``, ``dag-gfp-he2019``). It needs R_i ≥ vol_i/m, which any sound
response-time bound satisfies (a job cannot finish its volume faster on m processors).

Functions: :func:`carry_in_workload` (Python ints) and its Numba twin :func:`carry_in_workload_nb`
(int64, capped at ``cap`` so that sums of them cannot overflow).
"""

from __future__ import annotations

from rtsched.kernels import kernel

__all__ = ["capped_product_nb", "carry_in_workload", "carry_in_workload_nb"]


def carry_in_workload(vol_i: int, T_i: int, R_i: int, L: int, m: int) -> int:
    """(M2) W_i(L): the work of τ_i in a window of length L, exactly.

    ⌊(L + R_i − vol_i/m)/T_i⌋·vol_i + min(vol_i, m·((L + R_i − vol_i/m) mod T_i)), with both sides
    of the floor and the modulo scaled by m: A = m·(L + R_i) − vol_i (≥ 0 whenever R_i ≥ vol_i/m).
    """
    a = m * (L + R_i) - vol_i
    q, r = divmod(a, m * T_i)
    return q * vol_i + min(vol_i, r)


@kernel(inline="always")
def capped_product_nb(q, vol, extra, cap):
    """min(q·vol + extra, cap) without overflow (q, vol, extra ≥ 0; cap ≤ 2**53)."""
    if q > 0 and vol > cap // q:
        return cap
    v = q * vol + extra
    return v if v < cap else cap


@kernel(inline="always")
def carry_in_workload_nb(vol_i, T_i, R_i, L, m, cap):
    """(M2) capped at ``cap`` (int64)."""
    a = m * (L + R_i) - vol_i
    mt = m * T_i
    q = a // mt
    r = a - q * mt
    return capped_product_nb(q, vol_i, min(vol_i, r), cap)
