"""Checks of the algebra behind bar-int (papers/bar-int.md): sympy for the symbolic steps, exact
integer brute force for the per-task workload lemmas.

Run: python papers/repro/bar_int_algebra.py   (a few seconds; prints one line per check and
ends with "all checks passed"). Independent of rtsched's code: the formulas are written out here.
"""

from __future__ import annotations

import itertools
from fractions import Fraction
from functools import cache

import sympy as sp


def check(name: str, ok: bool) -> None:
    print(f"[{'ok' if ok else 'FAILED'}] {name}")
    if not ok:
        raise SystemExit(1)


# --- symbolic steps ------------------------------------------------------------------------------
m, U, Y, Cs, Ck, Dk, A, t, lhs = sp.symbols("m U Y C_Sigma C_k D_k A t LHS", real=True)
L = A + Dk - Ck

# (1) Theorem 1's condition is gedf-mpr's DEM < m·t on <1, m, m> for integer values:
#     LHS + m(C_k − 1) < m(A + D_k)  ⟺  LHS < m(L + 1)  ⟺  LHS ≤ m(L + 1) − 1 = m·L + (m − 1).
dem_gap = sp.expand(m * (A + Dk) - m * (Ck - 1) - (m * (L + 1)))
check("DEM < m·t  ⟺  LHS < m·(L + 1): the two right sides are identical", dem_gap == 0)
check(
    "m·(L + 1) − 1 = m·(A_k + D_k − C_k) + (m − 1): bar's right side plus m − 1",
    sp.expand(m * (L + 1) - 1 - (m * L + (m - 1))) == 0,
)

# (2) The range of A_k. Upper bound of the left side (proof, Lemma 4): LHS ≤ U·t + Y − C_k + C_Σ
#     with t = A_k + D_k. The condition holds wherever that bound is ≤ m(t − C_k) + m − 1.
upper = U * t + Y - Ck + Cs
rhs = m * (t - Ck) + m - 1
t_star = sp.solve(sp.Eq(upper, rhs), t)
check("U·t + Y − C_k + C_Σ = m(t − C_k) + m − 1 has one root in t", len(t_star) == 1)
t_star = t_star[0]
expected = (Y + Cs + (m - 1) * (Ck - 1)) / (m - U)
check("root t* = (Y + C_Σ + (m − 1)(C_k − 1)) / (m − U)", sp.simplify(t_star - expected) == 0)
check(
    "RHS − upper bound = (m − U)(t − t*): non-negative for t ≥ t* when U < m",
    sp.simplify((rhs - upper) - (m - U) * (t - t_star)) == 0,
)
eq9 = (Cs - Dk * (m - U) + Y + m * Ck) / (m - U)  # Baruah's Eq. (9), a bound on A_k
ours = expected - Dk
check(
    "Eq. (9) − (9-int) = (C_k + m − 1)/(m − U) > 0: bar-int checks fewer A_k",
    sp.simplify(eq9 - ours - (Ck + m - 1) / (m - U)) == 0,
)


# --- exact integer brute force of the per-task lemmas ---------------------------------------------
def dbf(C: int, D: int, T: int, t: int) -> int:
    return max(0, ((t - D) // T + 1) * C) if t >= D else 0


def dbf_carry(C: int, T: int, t: int) -> int:
    return (t // T) * C + min(C, t % T)


TASKS = [(C, D, T) for T in range(1, 9) for D in range(1, T + 1) for C in range(1, D + 1)]
HORIZON = 40

ok = True
for C, D, T in TASKS:
    for tt in range(HORIZON + 1):
        q, r = divmod(tt, T)
        a, b = dbf(C, D, T, tt), dbf_carry(C, T, tt)
        ok &= a == (q + (r >= D)) * C  # dbf from the same division (D ≤ T)
        ok &= 0 <= b - a <= C  # 0 ≤ I_DIFF before the caps, and ≤ C_i
        ok &= a <= Fraction(C, T) * (tt + T - D)  # dbf ≤ U_i (t + T_i − D_i)
check(f"dbf = (⌊t/T⌋ + [t mod T ≥ D])C, 0 ≤ dbf' − dbf ≤ C, dbf ≤ U(t + T − D) ({len(TASKS)} tasks, t ≤ {HORIZON})", ok)


def max_work(C: int, D: int, T: int, t: int, carry: bool, last_at_end: bool) -> int:
    """Most work that jobs of one sporadic task (integer releases ≥ T apart, each running at most C
    inside [r, r + D)) can execute in [0, t) among jobs with deadline ≤ t. ``carry``: a job may be
    released before 0; ``last_at_end``: the last job has deadline exactly t and is not counted
    (τ_k's earlier jobs beside the missed one)."""
    lo = -D + 1 if carry else 0  # earliest release whose window meets [0, t)

    @cache
    def best(earliest: int) -> int:
        # most work of jobs released at ≥ earliest with deadline ≤ t (or < the last one's release)
        top = 0
        # latest release of a counted job (with last_at_end the missed job is released at t − D)
        end = t - D if not last_at_end else t - D - T
        for r in range(max(earliest, lo), end + 1):
            inside = min(r + D, t) - max(r, 0)
            top = max(top, min(C, inside) + best(r + T))
        return top

    return best(lo)


ok_dbf = ok_carry = ok_k = True
for C, D, T in TASKS:
    for tt in range(0, 3 * T + 2):
        ok_dbf &= max_work(C, D, T, tt, carry=False, last_at_end=False) == dbf(C, D, T, tt)
        ok_carry &= max_work(C, D, T, tt, carry=True, last_at_end=False) == dbf_carry(C, T, tt)
        if tt >= D:
            ok_k &= max_work(C, D, T, tt, carry=False, last_at_end=True) == dbf(C, D, T, tt) - C
            ok_k &= max_work(C, D, T, tt, carry=True, last_at_end=True) == dbf_carry(C, T, tt) - C
check("no carry-in: most work of jobs inside [0, t) = dbf(t) (attained)", ok_dbf)
check("with carry-in: most work in [0, t) of jobs with deadline ≤ t = dbf'(t) (attained)", ok_carry)
check("τ_k's earlier jobs beside the missed one: dbf − C_k and dbf' − C_k (attained)", ok_k)

# (3) Σ over any ≤ m − 1 carry-in tasks of I_DIFF ≤ the m − 1 largest I_DIFF (they are ≥ 0).
ok = True
for values in itertools.product(range(0, 3), repeat=4):
    for size in range(0, 4):
        top = sum(sorted(values, reverse=True)[:size])
        ok &= all(sum(s) <= top for r in range(size + 1) for s in itertools.combinations(values, r))
check("a sum over ≤ m − 1 non-negative I_DIFF is at most the m − 1 largest", ok)
print("all checks passed")
