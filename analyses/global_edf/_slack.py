"""BCL-iter's slack iteration in Numba, shared by ``bcl_iter.py`` and ``rta.py`` (private module).

The slack update of the iterative BCL test for global EDF (M. Bertogna, M. Cirinei, G. Lipari,
"Schedulability analysis of global scheduling algorithms on multiprocessor platforms", IEEE TPDS
20(4), 2009, Eq. (17)–(18); papers/bcl2005.md, "rtsched's shortcuts in the BCL-iter kernel"),
which the response-time analysis of Bertogna & Cirinei (RTSS 2007; ``rta.py``,
papers/bertogna-cirinei2007.md) also runs: the workspace layout (:data:`SLACK_ROWS`,
:data:`SLACK_FLOAT_ROWS`, :func:`padded_width`), the sums of Eq. (18) without divisions
(:func:`slack_sum_nb`), rtsched's slack lower bounds, pre-check and acceptance certificates
(:func:`slack_lower_bounds`, :func:`slack_scan`, :func:`slack_certificate`,
:func:`slack_columns`, :func:`slack_step_certificate`, :func:`slack_precheck_fails`), the least
fixed point (:func:`slack_fixed_point`) and the reference's rounds (:func:`slack_rounds`). The
interference bound J_i^k of Eq. (17) itself, the exact divisions and ``task_at`` are the shared
theory's (``rtsched.analyses.theory.workload``); the proofs are in papers/bcl2005.md.

Overflow: every time value is ≤ 2**31 − 1, each term is clipped to ≤ 2**31 and a set has at most
2**16 tasks, so every sum stays below 2**47 (int64 exact).

rtsched's kernel cache folder is keyed by a digest of every kernel source file
(``rtsched/_bootstrap.py``), so edits here start a fresh cache by themselves (unless
``NUMBA_CACHE_DIR`` is set: then clear it after editing this file).
"""

from __future__ import annotations

import numpy as np

from rtsched.analyses.theory.workload import floor_div_nb, task_at
from rtsched.kernels import (
    ACCEPT,
    CONTINUE,
    RECIPROCAL_UP,
    REJECT,
    floor_divmod_up,
    kernel,
    vectors_256,
    wide_vectors,
)
from rtsched.kernels import UNKNOWN as UNKNOWN_CODE

__all__ = [
    "F_INV_T",
    "F_OFFSET",
    "F_SLOPE",
    "ROW_CERTIFICATE_ROWS",
    "SLACK_FLOAT_ROWS",
    "SLACK_ROWS",
    "W_CAP",
    "W_DEADLINE",
    "W_INFO",
    "W_NARROW",
    "W_ROUND_LAST",
    "W_ROUND_SLACK",
    "W_SLACK",
    "W_TOTAL",
    "W_TOTAL_MAX",
    "f64",
    "floor_divmod_up32",
    "i32",
    "interference_term_nb",
    "min_nb",
    "row_min",
    "padded_width",
    "slack_certificate",
    "slack_columns",
    "slack_fixed_point",
    "slack_lower_bounds",
    "slack_precheck_fails",
    "slack_rounds",
    "slack_scan",
    "slack_step_certificate",
    "slack_sum_nb",
]


# --- BCL-iter's slack iteration (TPDS 2009, Eq. (17)–(18)), shared by bcl_iter.py and rta.py ----
# One set is tasks lo, …, lo + n − 1 of the batch arrays C, D, T (no slices: a slice of a batch
# array passed on costs reference counting, measurable per set), indexed through ``task_at``
# (unsigned: no wrap-around select, so the loops over a set's tasks vectorise). ``work`` is an int64 workspace
# of SLACK_ROWS rows and ``fwork`` a float64 one of SLACK_FLOAT_ROWS rows, each of length
# ≥ padded_width(n), one per chunk of sets; the rows are named below. The sums of Eq. (18) of
# all tasks are kept side by side and updated a column (one interfering task τi) at a time: a
# loop over k without a horizontal sum, which the compiler vectorises; the rows are padded to a
# multiple of 4 int64 lanes, one 256-bit vector (:func:`padded_width`), with D_k = cap_k = 0,
# whose terms are 0.

#: Integer workspace rows: slack bounds S, deadlines D_k and caps D_k − C_k + 1 (padded), the
#: sums Σ_{i≠k} min(J_i^k(S_i), cap_k) at S and at the pre-check's slacks D_i − C_i, and the
#: slack bounds and latest Eq. (18) values of the rounds (W_ROUND_LAST, until the rounds run:
#: the indices of the rows the certificates sum).
W_SLACK, W_DEADLINE, W_CAP, W_TOTAL, W_TOTAL_MAX, W_ROUND_SLACK, W_ROUND_LAST = 0, 1, 2, 3, 4, 5, 6
#: Row W_INFO: [0] the task :func:`slack_scan` found failing the pre-check when it returned REJECT.
W_INFO = 7
#: Row W_NARROW, read as int32 (:func:`column_rows`, targets without AVX-512DQ): D_k in its
#: first ``width`` entries and D_k − C_k + 1 in the next ``width`` (padded with 0).
W_NARROW = 8
SLACK_ROWS = 9
#: Float workspace rows: fl(1/T_i), and the terms of the slope and offset sums of
#: :func:`slack_lower_bounds`.
F_INV_T, F_SLOPE, F_OFFSET = 0, 1, 2
SLACK_FLOAT_ROWS = 3
#: Safety factors of :func:`slack_scan`'s float upper bounds (see there).
_UP = 1.0 + 2.0**-30
_DOWN = 1.0 - 2.0**-30


@kernel(inline="always")
def padded_width(n):
    """N rounded up to a multiple of 4: the int64 lanes of a 256-bit vector (n = 10: 12, not 16).

    Every kernel whose loops run over padded rows asks LLVM for 256-bit vectors
    (``rtsched.kernels.vectors_256``, called by the column helpers below), so those loops have
    no scalar remainder on AVX2 and AVX-512 targets alike (issue #45; papers/bcl2005.md,
    "Vectors of 256 bits").
    """
    return (n + 3) & ~3


# The operand width follows the target ISA (rtsched.kernels.wide_vectors): on an AVX-512 host,
# which converts and multiplies int64 lanes natively, the 32-bit forms cost bcl-iter 12 % when
# they came (f7672eb) and about 2 % in today's chunked kernel (within the noise of a quiet A/B of
# four alternated pairs; papers/bcl2005.md, "Operand width and the host's ISA").
if wide_vectors():

    @kernel(inline="always")
    def i32(x):
        """``x`` as int64 (a float truncated, as through int32): int64 operands on an AVX-512DQ target."""
        return np.int64(x)

    @kernel(inline="always")
    def f64(x):
        """float64 of an int64 |x| ≤ 2**31 − 1 (exact), converted from int64 (:func:`wide_vectors`)."""
        return np.float64(x)

    @kernel(inline="always")
    def floor_divmod_up32(a, b, inv_up):
        """``rtsched.kernels.floor_divmod_up`` itself on an AVX-512DQ target (:func:`wide_vectors`)."""
        return floor_divmod_up(a, b, inv_up)

    @kernel(inline="always")
    def quotient_for_slack(x):
        """trunc(x) as int64 for S^lb (the float x ≥ 0): converted from float64 on an AVX-512DQ target."""
        return np.int64(x)

else:

    @kernel(inline="always")
    def i32(x):
        """An int64 0 ≤ x ≤ 2**31 − 1 passed through int32: the same value (issue #45, AVX2 hosts).

        Every time value is ≤ :data:`rtsched.model.MAX_TIME` = 2**31 − 1 and m ≤ 10**6
        (``rtsched.kernels.check_processors``), and so is every quotient ⌊D_k/T_i⌋ and remainder.
        The round trip tells LLVM that the upper half is a sign extension, so that a conversion
        to float64 and a product of two such values compile to 32-bit vector instructions
        (vcvtdq2pd, vpmuldq), which AVX2 has; without it AVX2 code converts int64 ↔ float64 one
        lane at a time (vcvtsi2sd, vcvttsd2si) and emulates 64-bit products (vpmullq is
        AVX-512DQ only). Products are still taken in int64: only the operands are 32-bit.
        """
        return np.int64(np.int32(x))

    @kernel(inline="always")
    def f64(x):
        """float64 of an int64 |x| ≤ 2**31 − 1, through int32 (exact; see :func:`i32`)."""
        return np.float64(np.int32(x))

    @kernel(inline="always")
    def floor_divmod_up32(a, b, inv_up):
        """``rtsched.kernels.floor_divmod_up`` for 0 ≤ a, b ≤ 2**31 − 1, in 32-bit conversions.

        Same values: trunc(fl(a · inv_up)) = ⌊a/b⌋ ≤ a < 2**31 (the proof there), so the float →
        int32 conversion is exact, and the remainder a − q b is taken in int64 from 32-bit
        operands.
        """
        q = np.int64(np.int32(f64(a) * inv_up))
        # a + q·(−b), with −b through int32 (1 ≤ b ≤ 2**31 − 1, so −b fits): written a − q·b,
        # LLVM folds the negation into the hoisted b where a caller subtracts from the remainder
        # (slack_columns), and −b, no longer a sign-extended int32, takes an emulated 64-bit product.
        return q, a + q * i32(-b)

    @kernel(inline="always")
    def quotient_for_slack(x):
        """min(trunc(x), 2**31 − 1) for S^lb (the float x ≥ 0), through int32: vector code on AVX2.

        S^lb_k = max(0, X_k − Q_k) with X_k = D_k − C_k ≤ 2**31 − 2: a quotient Q_k ≥ 2**31 − 1
        gives 0 either way (and a value ≤ 0 before the clamp, which ``open_rows`` counts), so
        clamping it changes neither; below the clamp the value is trunc(x) exactly. AVX2 has no
        float64 → int64 vector conversion (4 scalar ones per vector), but has float64 → int32.
        """
        return np.int64(np.int32(min(x, 2147483647.0)))


@kernel(inline="always")
def min_nb(a, b):
    """min(a, b) of two int64 values with |a − b| < 2**63, without a compare and select.

    a − b in uint64 (wrapping) has its top bit set exactly when a < b, so b + ((a − b) & mask)
    with mask = −(top bit) is a when a < b, else b. Why not ``min``: in a scalar loop whose sum
    carries from one iteration to the next (a row of Eq. (18), or the scalar remainder LLVM
    adds after a vectorised one), LLVM's x86 cmov conversion turns the compare-and-select into
    a branch, which mispredicts on sets the predictor has not seen (papers/bcl2005.md,
    "Fresh sets"). The unsigned subtraction carries no "no signed wrap" flag, so LLVM cannot
    fold this back into a minimum: it compiles to sub, sar, and, add (vector code alike).
    """
    d = np.uint64(a) - np.uint64(b)
    return np.int64(np.uint64(b) + (d & (np.uint64(0) - (d >> np.uint64(63)))))


# The certificate rows' minimums (_row_at_lower_bounds, interference_term_nb): on an AVX-512DQ
# target LLVM vectorises those rows and only their scalar remainder has branches, where min_nb's
# extra instructions measured 2–3 % slower on repeated sets and no faster on fresh ones; on AVX2
# targets the rows stay scalar and every min became a branch (papers/bcl2005.md, "Fresh sets").
if wide_vectors():

    @kernel(inline="always")
    def row_min(a, b):
        """``min`` in the rows of Eq. (18) on an AVX-512DQ target (:func:`wide_vectors`)."""
        return min(a, b)

else:

    @kernel(inline="always")
    def row_min(a, b):
        """:func:`min_nb` in the rows of Eq. (18) on other targets (no branch per term)."""
        return min_nb(a, b)


@kernel(inline="always")
def interference_term_nb(C_i, T_i, inv_T_i, S_i, D_k, cap):
    """min(J_i^k(S_i), cap) (TPDS 2009 Eq. (17)) without a division (inv_T_i = fl(1/T_i)).

    D_k ≤ 2**31 − 1 (a time value), so ``floor_divmod_up`` is exact with the reciprocal rounded up,
    in 32-bit operands (:func:`floor_divmod_up32`, :func:`i32`: the same values; vector code on AVX2).
    """
    jobs, rest = floor_divmod_up32(D_k, T_i, inv_T_i * RECIPROCAL_UP)
    C_i = i32(C_i)
    return row_min(jobs * C_i + row_min(C_i, max(rest - S_i, 0)), cap)


@kernel(inline="always")
def slack_sum_nb(C, D, T, inv_T, lo, n, k, S):
    """Σ_{i≠k} min(J_i^k(S_i), D_k − C_k + 1), the sum of Eq. (18) of BCL-iter (TPDS 2009).

    Branch-free over every i, the k term removed afterwards: J_k^k(S_k) = C_k for any
    0 ≤ S_k ≤ D_k − C_k, since C_k ≤ D_k ≤ T_k. ``inv_T[i]`` = fl(1/T_i).
    """
    D_k = D[task_at(lo, k)]
    cap = D_k - C[task_at(lo, k)] + 1
    total = 0
    for i in range(n):
        total += interference_term_nb(C[task_at(lo, i)], T[task_at(lo, i)], inv_T[i], S[i], D_k, cap)
    return total - min(C[task_at(lo, k)], cap)


# The column loops' term min(J_i^k(S_i), cap_k) in the operand form of the target ISA
# (rtsched.kernels.wide_vectors): int64 lanes on an AVX-512DQ target; 32-bit lanes on others, read
# from row W_NARROW (issue #45; papers/bcl2005.md, "32-bit lanes"). ``column_rows(work, width)``
# gives the two int32 rows those loops read (deadlines, caps; on AVX-512DQ targets two unused
# zeros: the loops read rows W_DEADLINE and W_CAP of ``work`` in place, as before), ``lane(x)``
# the lane type of C_i, T_i and S_i, and
# ``column_term(work, deadline, cap, k, T_i, inv_up, C_i, S_i)`` the term of lane k (and, on
# targets without AVX-512DQ, ``column_change``: its change from S_i = old to new, one quotient).
if wide_vectors():

    @kernel(inline="always")
    def column_rows(work, width):
        """Nothing on an AVX-512DQ target: the column loops read W_DEADLINE and W_CAP of ``work`` in place."""
        return 0, 0

    @kernel(inline="always")
    def fill_column_rows(work, width):
        """Nothing to fill on an AVX-512DQ target: the column loops read W_DEADLINE and W_CAP."""
        return None

    @kernel(inline="always")
    def lane(x):
        """An int64 lane value on an AVX-512DQ target."""
        return np.int64(x)

    @kernel(inline="always")
    def column_term(work, deadline, cap, k, T_i, inv_up, C_i, S_i):
        """min(J_i^k(S_i), cap_k) (TPDS 2009 Eq. (17)) in int64 lanes (``inv_up``: fl(1/T_i)·(1 + 2**−50))."""
        jobs, rest = floor_divmod_up32(work[W_DEADLINE, k], T_i, inv_up)
        return min(jobs * C_i + min(C_i, max(rest - S_i, 0)), work[W_CAP, k])

else:

    @kernel(inline="always")
    def column_rows(work, width):
        """Row W_NARROW read as int32 (2 entries per int64): the deadlines, then the caps."""
        row = work[W_NARROW].view(np.int32)
        return row[:width], row[width : 2 * width]

    @kernel(inline="always")
    def fill_column_rows(work, width):
        """Copy the padded rows W_DEADLINE and W_CAP into row W_NARROW as int32 (:func:`column_rows`)."""
        deadline32, cap32 = column_rows(work, width)
        for k in range(width):
            deadline32[k] = np.int32(work[W_DEADLINE, k])
            cap32[k] = np.int32(work[W_CAP, k])

    @kernel(inline="always")
    def lane(x):
        """An int32 lane value (0 ≤ x ≤ 2**31 − 1: a time value or a slack) on other targets."""
        return np.int32(x)

    @kernel(inline="always")
    def column_term(work, deadline, cap, k, T_i, inv_up, C_i, S_i):
        """min(J_i^k(S_i), cap_k) (TPDS 2009 Eq. (17)) in int32 lanes: the int64 form's value.

        ``deadline`` and ``cap`` hold D_k and cap_k = D_k − C_k + 1 as int32 (:func:`column_rows`);
        ``T_i``, ``C_i`` and ``S_i`` are int32, ``inv_up`` = fl(1/T_i)·(1 + 2**−50). Every value
        fits in int32: D_k ≤ 2**31 − 1 (a time value) and q = ⌊D_k/T_i⌋ is exact
        (``rtsched.kernels.floor_divmod_up``; the operand converts from int32 exactly);
        q T_i ≤ D_k; the remainder r = D_k − q T_i is in [0, T_i); r − S_i ≥ −(2**31 − 1)
        (0 ≤ S_i ≤ D_i − C_i); and with 0 < C_i ≤ D_i ≤ T_i (constrained deadlines, the model's),
        J = q C_i + min(C_i, max(r − S_i, 0)) ≤ q T_i + r = D_k, and cap_k ≤ D_k. On AVX2, whose
        64-bit lanes have no minimum, maximum or product instruction, a column's 4 lanes take 15
        instructions instead of 21.
        """
        D_k = deadline[k]
        q = np.int32(np.float64(D_k) * inv_up)
        r = np.int32(D_k - np.int32(q * T_i))
        part = np.int32(min(C_i, max(np.int32(r - S_i), np.int32(0))))
        return np.int32(min(np.int32(np.int32(q * C_i) + part), cap[k]))

    @kernel(inline="always")
    def column_change(work, deadline, cap, k, T_i, inv_up, C_i, old, new):
        """The term of :func:`column_term` at S_i = ``new`` minus the one at ``old`` (one quotient), int64.

        Both terms in the raise form (the comment above ``_raise_slack``), min(max(top − S, base), hi),
        so that the new slack reaches the result through three operations. In int32: top = q C_i + r
        ≤ q T_i + r = D_k ≤ 2**31 − 1, base + min(C_i, r) ≤ top, and top − S ≥ −(2**31 − 1).
        """
        D_k = deadline[k]
        q = np.int32(np.float64(D_k) * inv_up)
        r = np.int32(D_k - np.int32(q * T_i))
        base = np.int32(q * C_i)
        top = np.int32(base + r)
        hi = np.int32(min(np.int32(base + np.int32(min(C_i, r))), cap[k]))
        up = np.int32(min(max(np.int32(top - new), base), hi))
        down = np.int32(min(max(np.int32(top - old), base), hi))
        return np.int64(up) - np.int64(down)


# The raise form of a column term (rtsched's, issue #45, session 33; proof here): with
# q = ⌊D_k/T_i⌋, r = D_k mod T_i, base = q C_i, top = base + r and hi = min(base + min(C_i, r), cap_k),
# for every slack S ≥ 0
#     min(base + min(C_i, max(r − S, 0)), cap_k) = min(max(top − S, base), hi).
# Proof: base + min(C_i, max(r − S, 0)) = min(base + C_i, max(top − S, base)) (add base inside
# the min and the max), and max(top − S, base) ≤ top = base + r as S ≥ 0, so the bound
# base + C_i may be lowered to base + min(C_i, r); the min with cap_k is then taken once into hi.
# A raise computes the term at the old and at the new slack of the same column: top, base and
# hi do not depend on the slack, so the new slack, which comes out of the previous raise's
# sums, reaches the updated sum through sub, max, min and one add instead of sub, max, min,
# add, min and two adds (the fixed point's raises form a chain; papers/bcl2005.md, "The raise's
# chain"). Checked on edge operands in both operand widths (tests/analyses/global_edf/test_slack_narrow.py).
#
# τi's slack bound goes from ``old`` to ``new``: its term in every sum (a column). Returns how
# many lanes then have a sum ≥ m · cap (Eq. (18) < 0); each padding lane counts (0 ≥ 0). (The
# rows are indexed in place: a row view costs reference counting per call.) Two forms, as the
# column term: on an AVX-512DQ target the int64 lanes written out (through column_change the
# host's fixed point measured 1.6x slower on rejecting sets, for reasons not found), on others
# the 32-bit lanes of column_change.
if wide_vectors():

    @kernel(inline="always")
    def _raise_slack(work, C_i, T_i, inv_T_i, old, new, width, m):
        vectors_256()  # (the rows are padded to 4 int64 lanes: padded_width)
        inv_up = inv_T_i * RECIPROCAL_UP
        C_i = i32(C_i)
        m = i32(m)
        bad = 0
        for k in range(width):
            jobs, rest = floor_divmod_up32(work[W_DEADLINE, k], T_i, inv_up)
            base = jobs * C_i
            cap_k = work[W_CAP, k]
            top = base + rest  # (the raise form, above: the new slack enters through sub, max, min)
            hi = min(base + min(C_i, rest), cap_k)
            t = (work[W_TOTAL, k] - min(max(top - old, base), hi)) + min(max(top - new, base), hi)
            work[W_TOTAL, k] = t
            bad += np.int64(t >= m * i32(cap_k))
        return bad

else:

    @kernel(inline="always")
    def _raise_slack(work, C_i, T_i, inv_T_i, old, new, width, m):
        vectors_256()  # (the rows are padded to 4 int64 lanes: padded_width)
        inv_up = inv_T_i * RECIPROCAL_UP
        C_i = lane(C_i)
        T_i = lane(T_i)
        old = lane(old)
        new = lane(new)
        m = i32(m)
        deadline, cap = column_rows(work, width)
        bad = 0
        for k in range(width):
            t = work[W_TOTAL, k] + column_change(work, deadline, cap, k, T_i, inv_up, C_i, old, new)
            work[W_TOTAL, k] = t
            bad += np.int64(t >= m * i32(work[W_CAP, k]))
        return bad


@kernel(inline="always")
def slack_lower_bounds(C, D, T, lo, n, m, work, fwork, clamped=False):
    """Rtsched's slack lower bounds S^lb of BCL-iter, O(1) per task (proof: papers/bcl2005.md).

    Fills row W_SLACK with S^lb, F_INV_T with fl(1/T_i), W_DEADLINE and W_CAP with the padded
    D_k and D_k − C_k + 1, and W_TOTAL with −min(C_k, D_k − C_k + 1) (τk's own term, which the
    column passes add back), the padding lanes with 0 (W_TOTAL_MAX's too). Returns a task with
    the least bound (before the clamp at 0), the likeliest to fail the pre-check, and how many
    tasks have a bound ≤ 0 before the clamp (those with S^lb_k = 0). With ``clamped`` (BCL-iter's
    certificate) Q_k is taken by :func:`quotient_for_slack`, which may cap it at 2**31 − 1: the same
    S^lb and count, but the returned task then has the least bound computed with the capped
    quotients (RTA's ``slack_scan``, which uses that task, passes False; BCL-iter does not use it).

    With q = ⌊D_k/T_i⌋, r = D_k mod T_i, J_i^k(S) ≤ J_i^k(0) = q C_i + min(C_i, r) ≤ ub_i(D_k) =
    U_i D_k + C_i (1 − U_i) (U_i = C_i/T_i; the difference is (C_i − r)(1 − U_i) ≥ 0 for r < C_i
    and (r − C_i) U_i ≥ 0 for r ≥ C_i). So Q_k ≥ ⌊Σ_{i≠k} ub_i(D_k)/m⌋, computed from the sums of
    the slopes and offsets in float scaled up by 1 + 2**−30 (at most n + 8 roundings of 2**−53
    each: covered for n < 2**20), gives S^lb_k = max(0, D_k − C_k − Q_k) ≤ max(0, Eq. (18) of τk
    at slacks 0) ≤ S_k after BCL-iter's first round.
    """
    # (The rows are indexed in place: a row view costs reference counting per call.)
    vectors_256()  # (the rows are padded to 4 int64 lanes: padded_width)
    width = padded_width(n)
    for i in range(n):  # no sum here, so that the divisions vectorise
        C_i = C[task_at(lo, i)]
        T_i = T[task_at(lo, i)]
        inv = np.divide(1.0, f64(T_i))  # (np.divide: no zero-division branch; T_i ≥ 1)
        fwork[F_INV_T, i] = inv
        fwork[F_SLOPE, i] = (f64(C_i) * inv) * _UP
        # fl(C_i (T_i − C_i)) as one float product: the same rounding of the same exact product
        fwork[F_OFFSET, i] = ((f64(C_i) * f64(T_i - C_i)) * inv) * _UP
    slope_sum = 0.0
    offset_sum = 0.0
    for i in range(n):
        slope_sum += fwork[F_SLOPE, i]
        offset_sum += fwork[F_OFFSET, i]
    up_per_m = _UP / m  # ≥ (1 + 2**−30)(1 − 2**−53) / m
    worst = 0
    worst_value = np.int64(1) << 62
    open_rows = 0
    for k in range(n):
        C_k = C[task_at(lo, k)]
        D_k = D[task_at(lo, k)]
        T_k = T[task_at(lo, k)]
        inv = fwork[F_INV_T, k] * _DOWN
        own = (f64(C_k) * inv) * f64(D_k) + (f64(C_k) * f64(T_k - C_k)) * inv  # ≤ ub_k(D_k)
        others = (slope_sum * f64(D_k) + offset_sum - own) * up_per_m  # ≥ Σ_{i≠k} ub_i(D_k) / m
        s = D_k - C_k - (quotient_for_slack(others) if clamped else np.int64(others))
        work[W_SLACK, k] = max(s, 0)
        open_rows += np.int64(s <= 0)
        worse = s < worst_value
        worst = k if worse else worst
        worst_value = s if worse else worst_value
        work[W_DEADLINE, k] = D_k
        work[W_CAP, k] = D_k - C_k + 1
        work[W_TOTAL, k] = -min(C_k, D_k - C_k + 1)  # τk's own term, added back by the columns
    for k in range(n, width):
        work[W_DEADLINE, k] = 0
        work[W_CAP, k] = 0
        work[W_TOTAL, k] = 0
        work[W_TOTAL_MAX, k] = 0
    fill_column_rows(work, width)
    return worst, open_rows


@kernel(inline="always")
def fill_rows(C, D, lo, n, work):
    """The rows of :func:`slack_lower_bounds` that do not depend on S^lb, for :func:`slack_rejects_from_above`.

    W_DEADLINE and W_CAP with the padded D_k and D_k − C_k + 1, W_TOTAL with −min(C_k, D_k − C_k + 1)
    (τk's own term, which the column passes add back), the padding lanes with 0 (W_TOTAL_MAX's too),
    and the int32 copy where the target takes one (:func:`fill_column_rows`). :func:`slack_lower_bounds`
    writes the same rows inside its own loop over the tasks rather than calling this (called at its
    end, the Haswell build measured about 1 % slower; session 34), so the two must change together:
    ``test_fill_rows_are_the_lower_bounds_rows`` holds them equal.
    """
    vectors_256()  # (the rows are padded to 4 int64 lanes: padded_width)
    width = padded_width(n)
    for k in range(n):
        C_k = C[task_at(lo, k)]
        D_k = D[task_at(lo, k)]
        work[W_DEADLINE, k] = D_k
        work[W_CAP, k] = D_k - C_k + 1
        work[W_TOTAL, k] = -min(C_k, D_k - C_k + 1)  # τk's own term, added back by the columns
    for k in range(n, width):
        work[W_DEADLINE, k] = 0
        work[W_CAP, k] = 0
        work[W_TOTAL, k] = 0
        work[W_TOTAL_MAX, k] = 0
    fill_column_rows(work, width)


@kernel(inline="always")
def slack_scan(C, D, T, lo, n, m, work, fwork):
    """Rtsched's pre-check and acceptance certificate for BCL-iter (proof: papers/bcl2005.md).

    Returns ACCEPT if the certificate holds: BCL-iter's pre-check passes and its first round
    leaves every Eq. (18) value ≥ 0 for the second (TPDS 2009, Eq. (17)–(18)); REJECT if the
    pre-check (Eq. (18) with every other slack at D_i − C_i) fails for some task; CONTINUE
    otherwise (the pre-check passes). After REJECT, ``work[W_INFO, 0]`` is a task whose
    pre-check fails. On return, the rows are those of :func:`slack_lower_bounds`, with W_TOTAL
    the sums of Eq. (18) at S^lb (each with its own term C_k removed). The certificate: Eq. (18)
    at S^lb ≥ 0 for every task; the pre-check and the sums at S^lb are exact (int64), column by
    column.
    """
    inv_T = fwork[F_INV_T]
    S = work[W_SLACK]
    deadline = work[W_DEADLINE]
    cap = work[W_CAP]
    total = work[W_TOTAL]
    total_max = work[W_TOTAL_MAX]
    width = padded_width(n)
    worst, _ = slack_lower_bounds(C, D, T, lo, n, m, work, fwork)
    # The pre-check of that task alone first: on random sets it settles most rejections.
    largest = work[W_TOTAL_MAX]  # the slacks D_i − C_i (the row is overwritten below)
    for i in range(n):
        largest[i] = D[task_at(lo, i)] - C[task_at(lo, i)]
    work[W_INFO, 0] = worst
    if slack_sum_nb(C, D, T, inv_T, lo, n, worst, largest) >= m * cap[worst]:
        return REJECT
    for k in range(n):
        total_max[k] = total[k]
    for i in range(n):  # the columns: τi's terms in every sum, at S^lb_i and at D_i − C_i
        C_i = i32(C[task_at(lo, i)])  # (32-bit operands: the same values, vector code on AVX2; slack_columns)
        T_i = T[task_at(lo, i)]
        inv_up = inv_T[i] * RECIPROCAL_UP  # D_k ≤ 2**31 − 1: floor_divmod_up is exact
        S_i = S[i]
        S_max_i = D[task_at(lo, i)] - C_i
        for k in range(width):
            jobs, rest = floor_divmod_up32(deadline[k], T_i, inv_up)
            base = jobs * C_i
            total[k] += min(base + min(C_i, max(rest - S_i, 0)), cap[k])
            total_max[k] += min(base + min(C_i, max(rest - S_max_i, 0)), cap[k])
    fails_precheck = False
    certified = True
    for k in range(n):  # Eq. (18) ≥ 0 ⇔ sum < m · cap (no division)
        fails = total_max[k] >= m * cap[k]
        work[W_INFO, 0] = k if fails else work[W_INFO, 0]
        fails_precheck |= fails
        certified &= total[k] < m * cap[k]
    if fails_precheck:
        return REJECT
    return ACCEPT if certified else CONTINUE


@kernel(inline="always")
def _row_at_lower_bounds(C, T, lo, n, k, work, fwork, row):
    # Σ_i min(J_i^k(S_i), cap_k) over every i at the slacks S of row ``row`` (W_SLACK: S^lb),
    # τk's own term included (the rows of
    # slack_lower_bounds, indexed in place: a row view costs reference counting). D_k ≤ 2**31 − 1,
    # so floor_divmod_up is exact; each term ≤ cap_k ≤ 2**31, the sum < 2**47.
    D_k = work[W_DEADLINE, k]
    cap_k = work[W_CAP, k]
    total = 0
    for i in range(n):
        C_i = i32(C[task_at(lo, i)])
        jobs, rest = floor_divmod_up32(D_k, T[task_at(lo, i)], fwork[F_INV_T, i] * RECIPROCAL_UP)
        total += row_min(jobs * C_i + row_min(C_i, max(rest - work[row, i], 0)), cap_k)
    return total


#: Most rows with S^lb_k = 0 that :func:`slack_certificate` sums one by one; with more, the
#: certificate seldom holds on random sets and the column pass is as cheap.
ROW_CERTIFICATE_ROWS = 5


@kernel(inline="always")
def slack_certificate(C, D, T, lo, n, m, work, fwork):
    """Rtsched's acceptance certificate for BCL-iter, row by row, without the pre-check (papers/bcl2005.md).

    Fills the rows of :func:`slack_lower_bounds` (S^lb), then returns ACCEPT if Eq. (18) at S^lb
    is ≥ 0 for every task (then BCL-iter's pre-check passes and its rounds accept by the third);
    CONTINUE if not, and also, without deciding, when more than :data:`ROW_CERTIFICATE_ROWS`
    rows would need summing: :func:`slack_columns` then decides the certificate. A task τk with
    S^lb_k > 0 has Eq. (18) ≥ S^lb_k > 0 at S = 0 already (shortcut 2), hence at S^lb ≥ 0, so
    only the rows with S^lb_k = 0 are summed, in index order, stopping at the first that fails.
    The sums of every row, which the fixed point needs, are left to :func:`slack_columns`.
    """
    _, open_rows = slack_lower_bounds(C, D, T, lo, n, m, work, fwork, True)
    holds = open_rows <= ROW_CERTIFICATE_ROWS
    # The open rows' indices gathered first without a branch (row W_ROUND_LAST is free until
    # slack_rounds): a test per task mispredicts on sets the predictor has not seen.
    rows = 0
    for k in range(n if holds else 0):
        work[W_ROUND_LAST, rows] = k
        rows += np.int64(work[W_SLACK, k] == 0)
    for j in range(rows):  # W_TOTAL holds −min(C_k, cap_k): τk's own term J_k^k(0) = C_k
        k = work[W_ROUND_LAST, j]
        if _row_at_lower_bounds(C, T, lo, n, k, work, fwork, W_SLACK) + work[W_TOTAL, k] >= m * work[W_CAP, k]:
            holds = False
            break
    return ACCEPT if holds else CONTINUE


@kernel(inline="always")
def slack_columns(C, T, lo, n, m, work, fwork):
    """The sums of Eq. (18) at S^lb of every task into row W_TOTAL, column by column.

    Returns how many tasks have Eq. (18) < 0 at S^lb: 0 exactly when the certificate of
    :func:`slack_certificate` holds (:func:`slack_step_certificate` uses the count). (At any
    slacks 0 ≤ S ≤ S^max in row W_SLACK: :func:`slack_rejects_from_above` passes S^max, after
    :func:`fill_rows`.) Needs the rows of :func:`slack_lower_bounds`;
    afterwards the rows are those :func:`slack_scan` leaves, except W_TOTAL_MAX and W_INFO (not
    computed).
    """
    vectors_256()  # (the rows are padded to 4 int64 lanes: padded_width)
    width = padded_width(n)
    deadline, cap = column_rows(work, width)
    for i in range(n):  # the columns: τi's terms in every sum, at S^lb_i (column_term)
        C_i = lane(C[task_at(lo, i)])
        T_i = lane(T[task_at(lo, i)])
        inv_up = fwork[F_INV_T, i] * RECIPROCAL_UP  # D_k ≤ 2**31 − 1: floor_divmod_up is exact
        S_i = lane(work[W_SLACK, i])
        for k in range(width):
            work[W_TOTAL, k] += column_term(work, deadline, cap, k, T_i, inv_up, C_i, S_i)
    failing = 0
    m32 = i32(m)
    for k in range(n):  # Eq. (18) < 0 ⇔ sum ≥ m · cap (no division)
        failing += np.int64(work[W_TOTAL, k] >= m32 * i32(work[W_CAP, k]))
    return failing


@kernel(inline="always")
def slack_step_certificate(C, T, lo, n, m, work, fwork):
    """Rtsched's certificate one Jacobi step above S^lb (shortcut 10, proof in papers/bcl2005.md).

    Needs the sums of Eq. (18) at S^lb of every row (:func:`slack_columns`). Puts
    S' = max(S^lb, Eq. (18) at S^lb) into row W_ROUND_SLACK and returns ACCEPT if Eq. (18) at
    S' is ≥ 0 for every task (then BCL-iter's rounds accept by the fourth), else CONTINUE. A row
    with Eq. (18) ≥ 0 at S^lb stays so at S' ≥ S^lb (its sum does not grow), so only the failing
    rows are summed, in index order, stopping at the first that still fails. Leaves every other
    row as it was (the fixed point starts from them), except W_ROUND_LAST (scratch until
    :func:`slack_rounds`: the failing rows' indices).
    """
    inv_m_up = np.divide(1.0, np.float64(m)) * RECIPROCAL_UP  # ⌊total/m⌋ by floor_divmod_up (total < 2**48)
    for k in range(n):
        value = work[W_CAP, k] - 1 - floor_divmod_up(work[W_TOTAL, k], m, inv_m_up)[0]  # Eq. (18) at S^lb
        work[W_ROUND_SLACK, k] = max(work[W_SLACK, k], value)
    holds = True
    rows = 0  # the failing rows' indices, gathered without a branch (as in slack_certificate)
    for k in range(n):
        work[W_ROUND_LAST, rows] = k
        rows += np.int64(work[W_TOTAL, k] >= m * work[W_CAP, k])
    for j in range(rows):  # τk's own term J_k^k = C_k, min(C_k, cap_k) in the row
        k = work[W_ROUND_LAST, j]
        cap_k = work[W_CAP, k]
        if _row_at_lower_bounds(C, T, lo, n, k, work, fwork, W_ROUND_SLACK) - min(C[task_at(lo, k)], cap_k) >= m * cap_k:
            holds = False
            break
    return ACCEPT if holds else CONTINUE


@kernel(inline="always")
def slack_precheck_fails(C, D, T, lo, n, m, work, fwork):
    """Whether BCL-iter's pre-check fails: Eq. (18) < 0 for some task at slacks D_i − C_i.

    Row by row, stopping at the first failing task; needs fl(1/T_i) in row F_INV_T and
    overwrites row W_TOTAL_MAX (the slacks D_i − C_i).
    """
    largest = work[W_TOTAL_MAX]
    for i in range(n):
        largest[i] = D[task_at(lo, i)] - C[task_at(lo, i)]
    for k in range(n):
        if slack_sum_nb(C, D, T, fwork[F_INV_T], lo, n, k, largest) >= m * (D[task_at(lo, k)] - C[task_at(lo, k)] + 1):
            return True
    return False


@kernel(inline="always")
def _raise_row(C, T, lo, k, n, m, inv_m_up, width, work, fwork):
    # S_k ← Eq. (18) of τk (which exceeds S_k), its term in every sum updated (a column; in its
    # own sum J_k^k = C_k, unchanged). True if then every Eq. (18) value is ≥ 0.
    S_k = work[W_SLACK, k]
    value = work[W_CAP, k] - 1 - floor_divmod_up(work[W_TOTAL, k], m, inv_m_up)[0]  # Eq. (18) of τk
    bad = _raise_slack(work, C[task_at(lo, k)], T[task_at(lo, k)], fwork[F_INV_T, k], S_k, value, width, m)
    work[W_SLACK, k] = value
    return bad == width - n  # only the padding lanes count


@kernel(inline="always")
def slack_fixed_point(C, D, T, lo, n, m, work, fwork):
    """BCL-iter's verdict from its least fixed point (rtsched's, proof in papers/bcl2005.md).

    Returns (ACCEPT or REJECT, a bound on the rounds ``bcl_iter.iterate`` needs to reach that
    verdict, the pre-check counted). Needs the rows :func:`slack_scan` or
    :func:`slack_certificate` leaves; the pre-check need not have passed (if it fails, the
    verdict is REJECT and ``iterate`` stops in round 1, within the bound). The rounds reach
    S* = the least fixed point of S ↦ max(0, Eq. (18)(S)); any order of updates from
    S^lb ≤ S* reaches it as well, here sweeps in index order with the sums kept up to date: a
    raised S_k changes one term of each sum (a column). The first sweep visits only the rows that
    improve at S^lb (gathered first without a branch per row; its result is ≤ a full sweep's,
    papers/bcl2005.md, shortcut 7). The verdict is ACCEPT iff every
    Eq. (18) value at S* is ≥ 0. Sweep t leaves S ≤ the slacks of ``iterate`` after its round
    t + 2, so: as soon as every Eq. (18) value is ≥ 0 during sweep t, ``iterate`` accepts by
    round t + 3 (early acceptance: the sweeps stop there); at the fixed point after T sweeps
    (the last changes nothing), ``iterate`` ends by round T + 2, and by round
    3 + Σ (S*_k − S^lb_k) (its rounds raise Σ S by ≥ 1 each from the third on and leave it
    ≥ Σ S^lb after the second); the smaller bound is returned. ⌊total/m⌋ of Eq. (18) is taken
    with a reciprocal of m rounded up (:func:`floor_divmod_up`; total < 2**47), not a division.
    """
    width = padded_width(n)
    inv_m_up = np.divide(1.0, np.float64(m)) * RECIPROCAL_UP  # ⌊total/m⌋ by floor_divmod_up (total < 2**48)
    start = 0
    for i in range(n):
        start += work[W_SLACK, i]
    # Sweep 1 over the rows that improve at S^lb, their indices gathered first (into row
    # W_ROUND_LAST, scratch until slack_rounds) without a branch per row: on fresh sets each
    # row's test is a coin toss. A row is raised with the sums as the earlier raises of the sweep
    # left them (Eq. (18) only grows with S, so it still improves). Not the bits of one word,
    # raised by trailing_zeros (session 30): compiled on its own, as the serial twin and a
    # compiling process run it, that form left the raise loop scalar on AVX-512 targets and the
    # fixed point 2.9x slower (papers/bcl2005.md, "One compiled copy, not two").
    rows = 0
    for k in range(n):
        # Eq. (18) of τk exceeds S_k ⇔ ⌊total/m⌋ < cap − 1 − S_k ⇔ total < m (cap − 1 − S_k)
        improves = work[W_TOTAL, k] < m * (work[W_CAP, k] - 1 - work[W_SLACK, k])
        work[W_ROUND_LAST, rows] = k
        rows += np.int64(improves)
    for j in range(rows):
        if _raise_row(C, T, lo, work[W_ROUND_LAST, j], n, m, inv_m_up, width, work, fwork):
            return ACCEPT, 4  # (sweep 1: sweeps + 3, as below)
    sweeps = 1
    changed = rows != 0
    while changed:  # (then) sweeps in index order until one changes nothing
        changed = False
        sweeps += 1
        for k in range(n):
            if work[W_TOTAL, k] < m * (work[W_CAP, k] - 1 - work[W_SLACK, k]):
                changed = True
                if _raise_row(C, T, lo, k, n, m, inv_m_up, width, work, fwork):
                    return ACCEPT, sweeps + 3
    accept = True
    rounds = 3 - start
    for k in range(n):
        rounds += work[W_SLACK, k]
        accept &= work[W_TOTAL, k] < m * work[W_CAP, k]
    return (ACCEPT if accept else REJECT), min(rounds, sweeps + 2)


@kernel(inline="always")
def slack_rounds(C, D, T, lo, n, m, budget, work, fwork):
    """BCL-iter's rounds after a passed pre-check, exactly as ``bcl_iter.iterate`` runs them.

    Returns (verdict code, rounds counted as ``iterate`` counts them, the pre-check included).
    Needs fl(1/T_i) in row F_INV_T (from :func:`slack_scan`). Eq. (18) of τk depends only on the
    other slacks: if none changed since τk's previous evaluation (n evaluations earlier), its
    value is reused.
    """
    inv_T = fwork[F_INV_T]
    S = work[W_ROUND_SLACK]
    last = work[W_ROUND_LAST]
    for i in range(n):
        S[i] = 0
    rounds = 1
    evaluation = 0
    last_change = 0
    while True:
        if rounds == budget:
            return UNKNOWN_CODE, rounds
        rounds += 1
        feasible = True
        updated = False
        for k in range(n):
            if rounds == 2 or last_change > evaluation - n:
                X = D[task_at(lo, k)] - C[task_at(lo, k)]
                last[k] = X - floor_div_nb(slack_sum_nb(C, D, T, inv_T, lo, n, k, S), m)  # Eq. (18)
            new = last[k]
            if new < 0:
                feasible = False
            elif new > S[k]:
                S[k] = new
                updated = True
                last_change = evaluation
            evaluation += 1
        if feasible:
            return ACCEPT, rounds
        if not updated:
            return REJECT, rounds


@kernel(inline="always")
def precheck_task(C, D, lo, n):
    """τh of BCL-iter's one-row pre-check: the first task with the largest C_h − (D_h − C_h).

    Its row fails most often on random sets (papers/bcl2005.md, shortcut 5). One maximum, no
    chain of selects, so it vectorises: key = score · 2**17 + (2**17 − 1 − h) orders by the score
    2 C_h − D_h, then by lower index (n ≤ 2**16; |score| < 2**31 as 1 ≤ C ≤ D ≤ 2**31 − 1, so
    |key| < 2**49).
    """
    best = np.int64(-(1 << 62))
    for k in range(n):
        best = max(best, (2 * C[task_at(lo, k)] - D[task_at(lo, k)]) * 131072 + (131071 - k))
    return 131071 - (best & 131071)


@kernel(inline="always")
def slack_rejects_from_above(C, D, T, lo, n, m, budget, work, fwork):
    """Rtsched's rejection from above for BCL-iter (shortcut 11, proof in papers/bcl2005.md): True if it proves REJECT.

    S^max = (D_i − C_i)_i bounds the least fixed point S* from above, and so does
    U = max(0, Eq. (18) at S^max) (Eq. (18) is monotone and S* is its fixed point). If Eq. (18)
    is < 0 at S^max for some task (the pre-check fails) or at U for τh (:func:`precheck_task`),
    it is < 0 at S* too: the verdict is REJECT, and BCL-iter's rounds reach it by round
    3 + Σ_k (D_k − C_k), so True only when that bound is within ``budget``. The sums of every row
    at S^max are taken column by column (:func:`slack_columns`' loop), U from them into row
    W_SLACK, then τh's row at U alone (on the benchmark's sets it settles 84 % of those U
    settles). False: nothing is decided, and the rows are left as :func:`slack_lower_bounds`
    finds them (it rewrites every row the later steps read).
    """
    bound = 3
    for i in range(n):
        fwork[F_INV_T, i] = np.divide(1.0, f64(T[task_at(lo, i)]))  # (np.divide: no zero-division branch)
        largest = D[task_at(lo, i)] - C[task_at(lo, i)]
        work[W_SLACK, i] = largest
        bound += largest
    if bound > budget:
        return False
    fill_rows(C, D, lo, n, work)
    if slack_columns(C, T, lo, n, m, work, fwork) != 0:  # the sums at S^max (row W_SLACK)
        return True  # the pre-check fails: the rounds reject in round 1
    inv_m_up = np.divide(1.0, np.float64(m)) * RECIPROCAL_UP  # ⌊total/m⌋ by floor_divmod_up (total < 2**48)
    for k in range(n):  # U = Eq. (18) at S^max, ≥ 0 here (no row fails)
        work[W_SLACK, k] = work[W_CAP, k] - 1 - floor_divmod_up(work[W_TOTAL, k], m, inv_m_up)[0]
    h = precheck_task(C, D, lo, n)
    cap_h = work[W_CAP, h]  # τh's own term J_h^h = C_h, min(C_h, cap_h) in the row
    return _row_at_lower_bounds(C, T, lo, n, h, work, fwork, W_SLACK) - min(C[task_at(lo, h)], cap_h) >= m * cap_h
