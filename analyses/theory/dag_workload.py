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
(int64, capped at ``cap`` so that sums of them cannot overflow), and :func:`gfp_fixed_points_nb`,
the G-FP response-time iteration both analyses share in their kernels:
R_k = ⌊(S_k + Σ_{i<k} W_i(R_k))/m⌋ from ⌊S_k/m⌋, where S_k is the analysis's own numerator of one
job's bound (Melani et al.'s Graham form m·len_k + vol_k − len_k; He et al.'s path bound).
"""

from __future__ import annotations

from rtsched.kernels import ACCEPT, REJECT, UNKNOWN, kernel

__all__ = ["capped_product_nb", "carry_in_workload", "carry_in_workload_nb", "gfp_fixed_points_nb"]


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


@kernel
def gfp_fixed_points_nb(S, vol, D, T, m, budget, R):
    """G-FP in task order on one set: ACCEPT, REJECT or UNKNOWN (after ``budget`` right-side evaluations).

    ``R`` (length n) receives each task's least fixed point of R = ⌊(S_k + Σ_{i<k} W_i(R))/m⌋,
    iterated from ⌊S_k/m⌋ (W_i: (M2) with the higher-priority task's R_i); a right-side numerator
    above m·(D_k + 1) − 1 means R_k > D_k (sums are capped there, so nothing overflows).
    """
    n = vol.shape[0]
    steps = 0
    for k in range(n):
        limit = m * (D[k] + 1) - 1
        if S[k] > limit:
            return REJECT
        x = S[k] // m
        while True:
            if steps == budget:
                return UNKNOWN
            steps += 1
            acc = S[k]
            for i in range(k):
                acc += carry_in_workload_nb(vol[i], T[i], R[i], x, m, limit - acc + 1)
                if acc > limit:
                    return REJECT
            nxt = acc // m
            if nxt == x:
                break
            x = nxt
        R[k] = x
    return ACCEPT
