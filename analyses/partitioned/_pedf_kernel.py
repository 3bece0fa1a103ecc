"""The Numba packing kernel of partitioned EDF (``p:<fit>:<order>:<admission>``), one set at a time.

Private (not discovered as an analysis): ``analyses/partitioned/partitioned_edf.py`` holds the family's
exact reference (:func:`~rtsched.analyses.partitioned.partitioned_edf.pack`), explanations and registry
entries, and drives :func:`_pack_sets` over a batch. This module is the kernel layer alone:
:func:`_pack_set` packs one set with the same fits, orders and admission tests as ``pack`` and
returns the same verdict and assignment (property-tested against it), deciding every comparison
with integers or a float with a proven margin (UNDECIDED inside it, re-decided by the reference).
Sources: Baruah & Fisher (RTSS 2005/2006) for dbf*, Zhang & Burns (IEEE TC 2009) for QPA; see
``papers/`` and the docstring of ``partitioned_edf``.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from rtsched.analyses.partitioned._packing import load_sign_float, placed_before
from rtsched.analyses.theory.edf_demand import (
    frac_add,
    frac_sum_sign,
    frac_vs_int,
    la_bracket_from_sums,
    la_ceiling,
    start_point,
    utilization_vs_one,
)
from rtsched.analyses.theory.workload import task_at
from rtsched.kernels import (
    ACCEPT,
    CONTINUE,
    EPS,
    NONE,
    RECIPROCAL_EXACT,
    REJECT,
    SIGN_UNDECIDED,
    UNDECIDED,
    UNKNOWN,
    dbf,
    floor_divmod,
    floor_divmod_any,
    kernel,
)

# ---------------------------------------------------------------------------------------------
# Kernel.
#
# Workspace: every buffer of a packing lives in two arrays the batch driver allocates once per
# chunk of sets (``iw``: int64 rows, ``fw``: float64 rows, each at least n wide), so a set of ten
# tasks costs no allocation. Row indices below.
# ---------------------------------------------------------------------------------------------

_I_SEQ, _I_TMP, _I_FIRST, _I_NEXT, _I_COUNT, _I_PREF, _I_WHERE, _I_SC, _I_SD, _I_ST, _I_SDEN, _I_WT, _I_WH = range(13)
_INT_ROWS = 13
_F_LOAD, _F_DENS, _F_INV, _F_SINV, _F_LAM, _F_KEY = range(6)
_FLOAT_ROWS = 6


def _workspace(width: int) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
    """The two workspace arrays of a packing of sets of at most ``width`` tasks."""
    return np.empty((_INT_ROWS, width), dtype=np.int64), np.empty((_FLOAT_ROWS, width))


@kernel(counted=False)
def _load_cmp(C, T, lo, first, nxt, loads, a, b, cnt, sN, sDen, sSgn):
    """Exact sign of U(P_a) − U(P_b): float first, exact rational sum near a tie; 2 on overflow."""
    sign = load_sign_float(loads, cnt, a, b)
    if sign != 0:
        return sign
    k = np.int64(0)  # not the literal 0: frac_sum_sign would be compiled for it too (issue #46)
    for proc, sign in ((a, 1), (b, -1)):
        t = first[proc]
        while t >= 0:
            sN[k] = C[task_at(lo, t)]
            sDen[k] = T[task_at(lo, t)]
            sSgn[k] = sign
            k += 1
            t = nxt[np.uint64(t)]
    return frac_sum_sign(sN, sDen, sSgn, k, np.int64(0))


@kernel(counted=False)
def _dbfstar_point(iw, fw, k, t):
    """Exact sign of Σ_{D_j ≤ t} dbf*(τ_j, t) − t over the k scratch tasks [Baruah & Fisher 2006, Eq. (3)].

    ≤ 0: the condition holds; 1: it exceeds; SIGN_UNDECIDED on overflow.

    dbf*(τ_j, t) = C_j + C_j(t − D_j)/T_j for t ≥ D_j; each term is split into an integer part
    and a remainder r/T_j, and the sum of remainders is compared with the slack (float outside
    its margin, :func:`_dbfstar_exact` inside it). The scratch rows (``_I_SC``, ``_I_SD``,
    ``_I_ST``, ``_F_SINV``) are read in place and nothing is counted (``counted=False``): the
    sweep of :func:`_admit` lands here at every exact tie, e.g. after a task with C = D (its own
    point has Σ dbf* = t), which is common, and four row views passed to a counted call would
    cost sixteen atomic reference counts each time (papers/partitioned-heuristics.md,
    "Performance").
    """
    S = np.int64(0)
    frac = 0.0
    nonzero = np.bool_(False)  # not the literal False: frac_vs_int would be compiled for it too
    for j in range(np.uint64(k)):
        d_j = iw[_I_SD, j]
        if d_j <= t:
            c_j = iw[_I_SC, j]
            q, r = floor_divmod_any(t - d_j, iw[_I_ST, j], fw[_F_SINV, j])
            qq, rr = floor_divmod_any(c_j * r, iw[_I_ST, j], fw[_F_SINV, j])
            S += c_j + c_j * q + qq
            if rr != 0:
                nonzero = True
                frac += rr * fw[_F_SINV, j]
    s = frac_vs_int(frac, nonzero, k, t - S)  # sign(F − (t − S)); need F ≤ t − S
    if s != SIGN_UNDECIDED:
        return s
    return _dbfstar_exact(iw[_I_SC], iw[_I_SD], iw[_I_ST], k, t, S)  # (rare: row views)


@kernel
def _dbfstar_exact(sC, sD, sT, k, t, S):
    """Sign of Σ_{D_j ≤ t} (C_j (t − D_j) mod T_j)/T_j − (t − S) as an exact rational sum (SIGN_UNDECIDED on overflow).

    The remainder part of :func:`_dbfstar_point` when its float sum lies within its margin.
    """
    p = -(t - S)
    q = np.int64(1)
    for j in range(k):
        if sD[j] <= t:
            rr = (sC[j] * ((t - sD[j]) % sT[j])) % sT[j]
            if rr != 0:
                p, q, ok = frac_add(p, q, rr, sT[j])
                if not ok:
                    return SIGN_UNDECIDED
    return (p > 0) - (p < 0)


@kernel(inline="always")
def _witness_refuses(t, h_rest, c, d, p):
    """Whether the candidate (C, D, T) = (c, d, p) misses at t: h_rest + dbf(t) > t (t < 0: no witness).

    ``h_rest`` is the demand at t of the processor's tasks, ``t`` a deadline where an earlier
    candidate missed on it (rtsched's refusal cache; papers/partitioned-heuristics.md).
    """
    return t >= 0 and h_rest + dbf(c, d, p, t) > t


@kernel(inline="always")
def _h_in_place(iw, fw, k, t):
    """h(t) = Σ_i dbf_i(t) over the k scratch tasks [Zhang & Burns, Eq. (1)], read from the rows in place.

    The h(t) of :func:`~rtsched.analyses.theory.edf_demand._h_prev`, without max{d < t}: QPA needs
    that only when h(t) = t (about one step in fifteen on the benchmark's sets), and then takes
    it from :func:`_deadline_below_in_place`. Branch-free below 2**51 (as _h_prev).
    """
    total = np.int64(0)
    if t < RECIPROCAL_EXACT:
        for j in range(np.uint64(k)):
            x = t - iw[_I_SD, j]
            q, _ = floor_divmod(max(x, 0), iw[_I_ST, j], fw[_F_SINV, j])
            total += (q + 1) * iw[_I_SC, j] * (x >= 0)
        return total
    for j in range(np.uint64(k)):
        if t >= iw[_I_SD, j]:
            q, _ = floor_divmod_any(t - iw[_I_SD, j], iw[_I_ST, j], fw[_F_SINV, j])
            total += (q + 1) * iw[_I_SC, j]
    return total


@kernel(inline="always")
def _deadline_below_in_place(iw, fw, k, t):
    """max{D_i + k·T_i < t : k ≥ 0} over the k scratch tasks, or NONE (as :func:`~rtsched.analyses.theory.edf_demand._deadline_below`)."""
    best = np.int64(NONE)
    for j in range(np.uint64(k)):
        if iw[_I_SD, j] < t:
            q, _ = floor_divmod_any(t - 1 - iw[_I_SD, j], iw[_I_ST, j], fw[_F_SINV, j])
            best = max(best, iw[_I_SD, j] + q * iw[_I_ST, j])
    return best


@kernel(counted=False)
def _qpa_admission(iw, fw, k, first, q, steps, u_below_one, u, N, absN):
    """QPA as the admission runs it (rtsched's; :func:`~rtsched.analyses.partitioned.partitioned_edf.qpa_admission`).

    On the k scratch tasks (rows ``_I_SC``, ``_I_SD``, ``_I_ST``, ``_F_SINV``, read in place).
    ``first`` is the smallest relative deadline with Σ dbf* > D_i, ``q`` the index of the first
    scratch task whose deadline lies above the largest such one (k if none), ``steps`` the step
    cap; ``u``, ``N``, ``absN`` the float sums Σ C_i/T_i, Σ C_i(T_i − D_i)/T_i and its magnitude
    that the sweep has formed (:func:`~rtsched.analyses.theory.edf_demand.la_bracket_from_sums`).
    Returns (code, steps used, miss, demand): L' = D_q, or ⌈L_a⌉ (U < 1) or L_b (U = 1, its
    iterations counted) when q = k; QPA from max{d < L'}, accepting as soon as h(t) ≤
    ``first``. On a refusal ``miss`` is the missed deadline t and ``demand`` h(t) there (else
    NONE and 0).
    """
    used = np.int64(0)
    none = np.int64(NONE)
    zero = np.int64(0)
    if q < k:
        bound = iw[_I_SD, q]
    elif u_below_one:
        max_lag = iw[_I_SD, 0] - iw[_I_ST, 0]
        for j in range(k):
            max_lag = max(max_lag, iw[_I_SD, j] - iw[_I_ST, j])
        lo, hi = la_bracket_from_sums(u, N, absN, k, max_lag)
        if hi <= 2.0**62 and np.ceil(lo) == np.ceil(hi):  # ⌈lo⌉ ≤ ⌈L_a⌉ ≤ ⌈hi⌉: decided
            bound = np.int64(np.ceil(hi))
        else:  # the exact bisection (rare; row views)
            code, bound = la_ceiling(iw[_I_SC], iw[_I_SD], iw[_I_ST], fw[_F_SINV], k, max_lag, lo, hi)
            if code != CONTINUE:
                return code, used, none, zero
    else:  # U = 1: the synchronous busy period, as QPA's prologue iterates it (rare; row views)
        code, t, used = start_point(iw[_I_SC], iw[_I_SD], iw[_I_ST], fw[_F_SINV], k, steps, np.bool_(False))
        if code != CONTINUE:
            return code, used, none, zero
        bound = t + 1  # max{d < bound} = t
    t = _deadline_below_in_place(iw, fw, k, bound)  # max{d < L'}
    if t == NONE:
        return ACCEPT, used, none, zero
    while True:
        if used >= steps:
            return UNKNOWN, used, none, zero
        used += 1
        h = _h_in_place(iw, fw, k, t)
        if h > t:
            return REJECT, used, t, h
        if h <= first:
            return ACCEPT, used, none, zero
        # h(t) = t > first ≥ min D_i: a deadline lies below t
        t = h if h < t else _deadline_below_in_place(iw, fw, k, t)


@kernel(inline="always")
def _demand_in_place(iw, fw, r, t):
    """h(t) = Σ_j dbf_j(t) over the first r scratch tasks [Zhang & Burns, Eq. (1)], read from the rows in place.

    The caller passes the r tasks with D_j ≤ t (the scratch tasks are in deadline order; the
    others have dbf_j(t) = 0). Exactly the h(t) of :func:`~rtsched.analyses.theory.edf_demand._h_prev`.
    """
    total = np.int64(0)
    for j in range(np.uint64(r)):
        q, _ = floor_divmod_any(t - iw[_I_SD, j], iw[_I_ST, j], fw[_F_SINV, j])
        total += (q + 1) * iw[_I_SC, j]
    return total


@kernel(inline="always")
def _admit(iw, fw, k, admission, qpa_steps, left, u_sign, lam_sign, witness, cand):
    """Admission of the k tasks in the scratch rows: (code, demand terms spent, miss, demand), as :func:`admit`.

    ``code`` is ACCEPT, REJECT, UNKNOWN or UNDECIDED; ``miss`` the deadline t where a refusal
    found h(t) > t (else NONE) and ``demand`` that h(t) over the k tasks (else 0), so that the
    caller's refusal cache takes the processor's own demand there without a new pass; ``qpa_steps`` the QPA step cap of an
    admission, ``left`` what remains of the packing budget. ``u_sign`` and ``lam_sign`` are the
    signs of U − 1 and density − 1 when the caller's float sums decided them, else
    SIGN_UNDECIDED (then they are decided exactly here).

    The scratch tasks are the rows ``_I_SC``, ``_I_SD``, ``_I_ST`` of ``iw`` and ``_F_SINV`` of
    ``fw`` (``_I_SDEN``: min(D_j, T_j), filled only when the exact density is needed), indexed
    in place: a row view costs two reference counts per admission, the common paths take none
    (only the rare exact ones take views). One
    sweep over the deadlines in increasing order decides where Σ dbf* > t (float prefix sums outside their margin, :func:`_dbfstar_point`
    inside it) and there evaluates h(t), k terms each: h(t) > t is a real miss. dbfstar refuses
    at the first such t.

    ``witness`` (qpa only): the demand h_P(t_w) of the processor's own tasks at a deadline t_w
    that missed before on it (:func:`_witness_refuses`; t_w < 0: none), ``cand`` the index of
    the candidate in the scratch rows.
    """
    none = np.int64(0)
    no_miss = np.int64(NONE)
    if lam_sign == SIGN_UNDECIDED:  # rare: the exact density needs min(D_j, T_j)
        for j in range(k):
            iw[_I_SDEN, j] = min(iw[_I_SD, j], iw[_I_ST, j])
    if admission == 0:  # density
        s = lam_sign if lam_sign != SIGN_UNDECIDED else utilization_vs_one(iw[_I_SC, :k], iw[_I_SDEN, :k], k)
        if s == SIGN_UNDECIDED:
            return UNDECIDED, none, no_miss, none
        return (ACCEPT if s <= 0 else REJECT), none, no_miss, none
    s = u_sign if u_sign != SIGN_UNDECIDED else utilization_vs_one(iw[_I_SC, :k], iw[_I_ST, :k], k)
    if s == SIGN_UNDECIDED:
        return UNDECIDED, none, no_miss, none
    if s > 0:
        return REJECT, none, no_miss, none
    u_below_one = s < 0
    s = lam_sign if lam_sign != SIGN_UNDECIDED else utilization_vs_one(iw[_I_SC, :k], iw[_I_SDEN, :k], k)
    if s == SIGN_UNDECIDED:
        return UNDECIDED, none, no_miss, none
    if s <= 0:
        return ACCEPT, none, no_miss, none  # density ≤ 1 implies dbf* and the exact test
    # The caller tried the refusal cache already when its float sums decided both signs.
    tried = u_sign < 0 and lam_sign == 1
    if admission == 2 and not tried and _witness_refuses(witness[0], witness[1], iw[_I_SC, cand], iw[_I_SD, cand], iw[_I_ST, cand]):
        return REJECT, none, witness[0], none  # the caller keeps this witness: its demand is not needed
    if left < k:
        return UNKNOWN, none, no_miss, none
    spent = np.int64(k)
    # Σ_{D_j ≤ t} dbf*(τ_j, t) = Σ a_j + t·Σ U_j with a_j = C_j(T_j − D_j)/T_j (prefix sums over
    # the deadline order), in float: the error is below 4(k + 4)·EPS·size with
    # size = Σ|a_j| + t·ΣU_j + t (each term, computed with the reciprocal 1/T_j, has relative
    # error ≤ 3·EPS; a sum of k terms adds ≤ k·EPS of the sum of magnitudes, then the product
    # and the addition). Points within it are decided exactly by _dbfstar_point.
    A = 0.0
    absA = 0.0
    B = 0.0
    first = np.int64(-1)
    q = 0  # the first task whose deadline lies above the last one where Σ dbf* > t
    p = 0
    while p < k:
        t = iw[_I_SD, np.uint64(p)]
        r = p
        while r < k and iw[_I_SD, np.uint64(r)] == t:  # the whole group of equal deadlines
            ur = np.uint64(r)  # unsigned: no wrap-around select
            c = iw[_I_SC, ur]
            a = np.float64(c * (iw[_I_ST, ur] - t)) * fw[_F_SINV, ur]  # a_j = C_j(T_j − D_j)/T_j
            A += a
            absA += abs(a)
            B += c * fw[_F_SINV, ur]
            r += 1
        p = r
        value = A + t * B
        margin = 4.0 * (k + 4) * EPS * (absA + t * B + t)
        if value < t - margin:
            continue
        if value <= t + margin:
            s = _dbfstar_point(iw, fw, k, t)
            if s == SIGN_UNDECIDED:
                return UNDECIDED, spent, no_miss, none
            if s <= 0:
                continue
        if admission == 1:
            return REJECT, spent, no_miss, none
        if left - spent < k:
            return UNKNOWN, spent, no_miss, none
        spent += k
        h = _demand_in_place(iw, fw, r, t)  # the r tasks due by t
        if h > t:
            return REJECT, spent, t, h
        if first < 0:
            first = t
        q = r
    if first < 0:
        return ACCEPT, spent, no_miss, none  # Σ dbf*(t) ≤ t everywhere
    steps = qpa_allowance(qpa_steps, left - spent, k)
    if steps == 0:
        return UNKNOWN, spent, no_miss, none
    code, used, miss, h = _qpa_admission(iw, fw, k, first, q, steps, u_below_one, B, A, absA)
    return code, spent + used * k, miss, h


@kernel(inline="always")
def _gather_admit(C, D, T, lo, b, k, i, iw, fw, admission, qpa_steps, left, u_sign, lam_sign, witness):
    """:func:`_gather` processor b's k tasks and task i, then :func:`_admit` them: (code, spent, miss, demand).

    Inlined: a call would pass five arrays (and count their references) per admission.
    """
    cand = _gather(C, D, T, lo, b, k, i, iw, fw)
    return _admit(iw, fw, k + 1, admission, qpa_steps, left, u_sign, lam_sign, witness, cand)


@kernel(inline="always")
def _sign_near_one(value, terms):
    """Sign of a float sum of ``terms`` non-negative terms minus 1, or SIGN_UNDECIDED in its margin.

    The proven error margin: each term is rounded at most twice (C·fl(1/T) or C/min(D, T)) and
    the recursive sum adds at most (terms − 1)·EPS of the sum of the terms, below 4(terms + 2)·EPS.
    """
    margin = 4.0 * (terms + 2) * EPS * (value + 1.0)
    if value > 1.0 + margin:
        return 1
    if value < 1.0 - margin:
        return -1
    return SIGN_UNDECIDED


@kernel(counted=False)
def _pack_sets(C, D, T, offsets, first, last, m, fit, order, admission, qpa_steps, budget, out, assign, left_out, iw, fw):
    """Pack sets first, …, last − 1 of a batch (:func:`_pack_set` each) into ``out``, on one workspace.

    The serial kernel of a chunk of sets: the batch driver calls it once per chunk, the
    registry's ``one`` once for its set (offsets [0, n]). :func:`_pack_set` is inlined here, and
    it and the functions it calls per set or per admission (:func:`_stable_sort`,
    :func:`_qpa_admission`, :func:`_dbfstar_point`, and for bf/wf :func:`_load_cmp`,
    :func:`_reposition`) are uncounted (``counted=False``): a counted call with array arguments
    counts each argument's references (atomic operations) at entry and exit, a large share of
    the kernel's time (papers/partitioned-heuristics.md, "Performance").
    Compiled once, outside the ``prange`` driver (inlining it there tripled the compile time).
    """
    for s in range(first, last):
        lo = offsets[s]  # the whole arrays and the set's place, not slices (each would be counted)
        out[s] = _pack_set(C, D, T, lo, offsets[s + 1] - lo, m, fit, order, admission, qpa_steps, budget, assign, left_out, s, iw, fw)


@kernel(inline="always")
def _pack_set(C, D, T, lo, n, m, fit, order, admission, qpa_steps, budget, assign, left_out, s, iw, fw):
    """Pack the n tasks at ``lo`` of the batch arrays; writes each one's processor (−1 if unplaced) into ``assign``; returns a code.

    ``fit``, ``order``, ``admission`` are indices into :data:`FITS`, :data:`ORDERS`,
    :data:`ADMISSIONS`; ``budget`` the demand terms of the packing, ``qpa_steps`` the QPA step
    cap of one admission. ``left_out[s]`` receives what is left of ``budget`` when the last task
    tried was about to be placed (so that an explanation can replay that task's admissions).
    ``C``, ``D``, ``T`` and ``assign`` are the whole batch's arrays, indexed at ``lo + i``
    through :func:`~rtsched.analyses.theory.workload.task_at` (unsigned: no wrap-around select),
    not slices: a slice per array and set is reference counted.
    ``iw``/``fw``: the workspace (:func:`_workspace`), whose rows are indexed in place: a row
    view costs two reference counts (atomic operations), and views per set and per admission
    made those counts a fifth of the kernel's time.
    """
    k_bins = m if m < n else n
    # Row _F_LAM: the densities C/min(D, T), correctly rounded (the density order's key).
    for p in range(n):
        up = task_at(lo, p)
        iw[_I_SEQ, p] = p
        fw[_F_INV, p] = 1.0 / T[up]
        fw[_F_LAM, p] = C[up] / min(D[up], T[up])
    if order != 0:
        _stable_sort(C, D, T, lo, n, order, iw, fw)
    # Each processor's tasks as a linked list in deadline order (an n × m table would not fit in
    # memory for large n and m; the order spares the dbf* pre-check a sort): rows _I_FIRST,
    # _I_NEXT, _I_COUNT. bf/wf: the processors sorted by (load, index) (bf: load decreasing),
    # rows _I_PREF and _I_WHERE (its inverse), kept sorted as loads grow (only the receiving
    # processor moves), so each placement costs O(moves), not a sort. Rows _F_LOAD and _F_DENS:
    # each processor's utilization and density. The refusal cache (qpa), rows _I_WT and _I_WH:
    # per processor a deadline t_w where a candidate missed on it (−1: none) and the demand
    # h_P(t_w) of its own tasks, kept up to date as it grows.
    for b in range(k_bins):
        iw[_I_FIRST, b] = -1
        iw[_I_COUNT, b] = 0
        iw[_I_PREF, b] = b
        iw[_I_WHERE, b] = b
        fw[_F_LOAD, b] = 0.0
        fw[_F_DENS, b] = 0.0
        iw[_I_WT, b] = -1
        iw[_I_WH, b] = 0
    for i in range(n):
        assign[task_at(lo, i)] = -1
        iw[_I_NEXT, i] = -1
    current = 0
    unknown = False
    left = budget
    for pos in range(n):
        i = iw[_I_SEQ, pos]
        ui = np.uint64(i)  # row and task indices read from a row, unsigned: no wrap-around select
        ut = task_at(lo, i)
        C_i, D_i, T_i = C[ut], D[ut], T[ut]
        left_out[s] = left
        # Processors in the order the fit rule tries them: pref[skip:] (ff: all, in index order;
        # nf: from the current one on; bf/wf: by load).
        skip = current if fit == 3 else 0
        placed = False
        u_i = C_i * fw[_F_INV, ui]
        lam_i = fw[_F_LAM, ui]
        for q in range(skip, k_bins):
            b = iw[_I_PREF, np.uint64(q)]
            ub = np.uint64(b)
            k = iw[_I_COUNT, ub]
            wit = iw[_I_WT, ub]
            # Float decisions outside a proven margin: U > 1 refuses under every admission test;
            # density ≤ 1 accepts under every one (density ⇒ dbf* ⇒ QPA,
            # papers/partitioned-heuristics.md). Only what they leave open is gathered.
            lam_sign = _sign_near_one(fw[_F_DENS, ub] + lam_i, k + 1)
            if lam_sign == SIGN_UNDECIDED and k == 0:  # an empty processor: C vs min(D, T), exactly
                den = min(D_i, T_i)  # (a task of density 1, C = D, comes first in the density order)
                lam_sign = (C_i > den) - (C_i < den)
            if lam_sign <= 0:  # 0 only from the exact comparison: density = 1 accepts too
                code = ACCEPT
            elif admission == 0 and lam_sign == 1:
                code = REJECT
            else:
                u_sign = _sign_near_one(fw[_F_LOAD, ub] + u_i, k + 1)
                if admission != 0 and u_sign == 1:
                    code = REJECT
                elif (
                    admission == 2
                    and u_sign < 0
                    and lam_sign == 1
                    and _witness_refuses(wit, iw[_I_WH, ub], C_i, D_i, T_i)
                ):
                    code = REJECT  # surely U ≤ 1 < density, and a real miss at the cached deadline
                elif admission != 0 and left < k + 1 and u_sign < 0 and lam_sign == 1:
                    code = UNKNOWN  # surely U ≤ 1 < density: only the exact tests could decide, and the budget is spent
                else:
                    code, spent, miss, h_miss = _gather_admit(
                        C, D, T, lo, b, k, i, iw, fw, admission, qpa_steps, left, u_sign, lam_sign, (wit, iw[_I_WH, ub]),
                    )  # fmt: skip
                    left -= spent
                    if miss >= 0 and miss != wit:  # a new witness: the processor's own demand there,
                        wit = miss  # h over its tasks and task i at the miss, less task i's dbf
                        iw[_I_WT, ub] = miss
                        iw[_I_WH, ub] = h_miss - dbf(C_i, D_i, T_i, miss)
            if code == UNDECIDED:
                return UNDECIDED
            if code == ACCEPT:
                if wit >= 0:
                    iw[_I_WH, ub] += dbf(C_i, D_i, T_i, wit)
                _insert_by_deadline(D, lo, iw, b, i)
                iw[_I_COUNT, ub] = k + 1
                # Running sums: a recursive sum of k + 1 rounded terms, in whatever order, is
                # within the margin of _sign_near_one (it counts the terms, not their order).
                fw[_F_LOAD, ub] += u_i
                fw[_F_DENS, ub] += lam_i
                assign[ut] = b
                current = b
                placed = True
                if (fit == 1 or fit == 2) and _reposition(
                    C, T, lo, iw[_I_FIRST], iw[_I_NEXT], iw[_I_COUNT], fw[_F_LOAD], iw[_I_PREF, :k_bins], iw[_I_WHERE], b,
                    fit, iw[_I_SC], iw[_I_ST], iw[_I_SDEN],
                ):  # fmt: skip
                    return UNDECIDED
                break
            if code == UNKNOWN:
                unknown = True
        if not placed:
            return UNKNOWN if unknown else REJECT
    return ACCEPT


@kernel(counted=False)
def _stable_sort(C, D, T, lo, n, order, iw, fw):
    """Sort the task indices in row ``_I_SEQ`` of ``iw`` by the order's key, stably (ties keep input order).

    With the exact comparison :func:`~rtsched.analyses.partitioned._packing.placed_before`: up to 96 tasks
    each task's place counted (n² float comparisons, branch-free, exact only on equal floats;
    a comparison sort mispredicts a branch per comparison), else a bottom-up merge sort,
    O(n log n) (row ``_I_TMP`` is scratch).
    Row ``_F_LAM`` of ``fw`` holds the densities fl(C/min(D, T)), row ``_F_KEY`` is scratch. The
    rows are indexed in place: a row view passed to a call costs reference counting.
    """
    if n <= 96:  # rank by counting: n² comparisons, but branch-free outside exact float ties
        # (an insertion or merge sort mispredicts a branch per comparison).
        # Task x's place is the number of tasks placed before it: those with a strictly larger
        # float key (fl(x/y) is monotone in x/y: a strictly larger exact key), or an equal one
        # and a larger exact key, or an equal exact key and a smaller index (stability). This
        # is a strict total order, so the places are a permutation: the stable exact sort.
        for x in range(n):
            if order == 1:
                fw[_F_KEY, x] = fw[_F_LAM, x]
            elif order == 2:
                fw[_F_KEY, x] = C[task_at(lo, x)] / T[task_at(lo, x)]
            else:
                fw[_F_KEY, x] = -np.float64(D[task_at(lo, x)])
        for x in range(n):
            kx = fw[_F_KEY, x]
            place = 0
            ties = 0
            for y in range(np.uint64(n)):  # branch-free (the compiler vectorises it; unsigned: no wrap-around)
                ky = fw[_F_KEY, y]
                place += ky > kx
                ties += ky == kx
            if ties > 1:  # rare: equal float keys (x itself counts once), decided exactly
                for y in range(n):
                    if y != x and fw[_F_KEY, y] == kx:
                        ux, uy = task_at(lo, x), task_at(lo, y)
                        place += placed_before(C, D, T, uy, ux, order) or (
                            y < x and not placed_before(C, D, T, ux, uy, order)
                        )
            iw[_I_SEQ, place] = x
        return
    src = iw[_I_SEQ, :n]
    dst = iw[_I_TMP, :n]
    in_tmp = False
    width = 1
    while width < n:
        for start in range(0, n, 2 * width):
            mid = min(start + width, n)
            hi = min(start + 2 * width, n)
            a, b, out = start, mid, start
            while a < mid and b < hi:
                # strictly before: take the right one
                if placed_before(C, D, T, task_at(lo, src[b]), task_at(lo, src[a]), order):
                    dst[out] = src[b]
                    b += 1
                else:
                    dst[out] = src[a]
                    a += 1
                out += 1
            while a < mid:
                dst[out] = src[a]
                a += 1
                out += 1
            while b < hi:
                dst[out] = src[b]
                b += 1
                out += 1
        src, dst = dst, src
        in_tmp = not in_tmp
        width *= 2
    if in_tmp:  # an element loop: a slice assignment adds about 2 s of compilation
        for p in range(n):
            iw[_I_SEQ, p] = iw[_I_TMP, p]


@kernel(inline="always")
def _insert_by_deadline(D, lo, iw, b, i):
    """Link task i into processor b's list (rows ``_I_FIRST``, ``_I_NEXT``), kept in deadline order so an admission needs no sort.

    Ties keep the placement order.
    """
    prev = -1
    t = iw[_I_FIRST, np.uint64(b)]
    d_i = D[task_at(lo, i)]
    while t >= 0 and D[task_at(lo, t)] <= d_i:
        prev = t
        t = iw[_I_NEXT, np.uint64(t)]
    iw[_I_NEXT, np.uint64(i)] = t
    if prev < 0:
        iw[_I_FIRST, np.uint64(b)] = i
    else:
        iw[_I_NEXT, np.uint64(prev)] = i


@kernel(counted=False)
def _reposition(C, T, lo, first, nxt, cnt, loads, pref, where, b, fit, sN, sDen, sSgn):
    """Move processor b, whose load just grew, to its place in ``pref``.

    ``pref`` is sorted by (load, index); bf: load decreasing. True if an exact comparison
    overflowed (UNDECIDED).
    """
    p = where[b]
    if fit == 2:  # worst fit: increasing load, so b moves right
        while p + 1 < pref.shape[0]:
            o = pref[p + 1]
            c = _load_cmp(C, T, lo, first, nxt, loads, o, b, cnt, sN, sDen, sSgn)
            if c == SIGN_UNDECIDED:
                return True
            if c < 0 or (c == 0 and o < b):
                pref[p] = o
                where[o] = p
                p += 1
            else:
                break
    else:  # best fit: decreasing load, so b moves left
        while p > 0:
            o = pref[p - 1]
            c = _load_cmp(C, T, lo, first, nxt, loads, o, b, cnt, sN, sDen, sSgn)
            if c == SIGN_UNDECIDED:
                return True
            if c < 0 or (c == 0 and o > b):
                pref[p] = o
                where[o] = p
                p -= 1
            else:
                break
    pref[p] = b
    where[b] = p
    return False


@kernel(inline="always")
def _gather(C, D, T, lo, b, k, i, iw, fw):
    """Copy processor b's k tasks and task i into the scratch rows, sorted by deadline; returns i's index there.

    Processor b's tasks are kept in deadline order (its list in rows ``_I_FIRST``, ``_I_NEXT``),
    so task i only goes to its place; the admission test then runs on the k + 1 tasks. The rows
    are read and written in place (a row view would count references per admission).
    """
    t = iw[_I_FIRST, np.uint64(b)]
    j = np.uint64(0)
    ui = task_at(lo, i)
    d_i = D[ui]
    while t >= 0 and D[task_at(lo, t)] <= d_i:  # the tasks due no later than task i (ties: placed first)
        ut = task_at(lo, t)
        _copy_task(iw, fw, j, C[ut], D[ut], T[ut], t)
        j += np.uint64(1)
        t = iw[_I_NEXT, np.uint64(t)]
    cand = np.int64(j)
    _copy_task(iw, fw, j, C[ui], d_i, T[ui], i)
    j += np.uint64(1)
    while t >= 0:
        ut = task_at(lo, t)
        _copy_task(iw, fw, j, C[ut], D[ut], T[ut], t)
        j += np.uint64(1)
        t = iw[_I_NEXT, np.uint64(t)]
    return cand


@kernel(inline="always")
def _copy_task(iw, fw, j, c, d, p, t):
    """Write task t's (C, D, T) = (c, d, p) and its reciprocal row into column j of the scratch rows."""
    iw[_I_SC, j] = c
    iw[_I_SD, j] = d
    iw[_I_ST, j] = p
    fw[_F_SINV, j] = fw[_F_INV, np.uint64(t)]


@kernel(inline="always")
def qpa_allowance(qpa_steps, left, k):
    """QPA steps for an admission on a processor of k tasks: min(qpa_steps, ⌊left / k⌋).

    ``left`` is what remains of the packing budget (each step evaluates k demand terms).
    """
    share = left // k if left > 0 else 0
    return qpa_steps if share >= qpa_steps else share
