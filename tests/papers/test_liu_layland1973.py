"""The Liu & Layland bound n(2^{1/n} − 1) and its limit ln 2, as `rm-ll` computes it.

Liu & Layland, JACM 20(1), 1973 (Theorem 5) — the paper itself was not reachable through the
search tool (only a publisher abstract). The values are the ones stated by two reachable
secondary sources:

* Buttazzo, *Hard Real-Time Computing Systems* (3rd ed.), §4.3.3–4.3.4, read at
  http://what-when-how.com/Tutorial/topic-424vv9g/Hard-Real-Time-Computing-Systems-Predictable-Scheduling-Algorithms-and-Applications-114.html
  ("lim_{n→∞} U_lub(n) = ln 2", end of §4.3.3; Theorem 4.1 of §4.4.4 is the hyperbolic bound);
* the rate-monotonic article mirrored at https://tickerdossier.com/wiki/deadline-monotonic-scheduling
  ("U ≤ n(2^{1/n} − 1)"; "this expression will tend towards ln 2 ≈ 0.693147").

Each test builds n tasks of tiny utilization (RM order) and reads the bound `rm-ll` reports.
"""

from decimal import Decimal, getcontext
from fractions import Fraction

import pytest

import rtsched
from rtsched import analyses

getcontext().prec = 60


def ll_bound(n: int) -> Fraction:
    """n(2^{1/n} − 1) to 50 digits (Decimal), as a Fraction."""
    two = Decimal(2)
    return Fraction(n * (two ** (Decimal(1) / Decimal(n)) - 1))


def tiny_set(n: int) -> rtsched.TaskSet:
    return rtsched.TaskSet.from_tasks([(1, 1000 + i, 1000 + i) for i in range(n)])


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 10])
def test_bound_brackets_formula(n):
    """U_lub(n) = n(2^{1/n} − 1): rtsched's bracket [bound_low, bound_high] contains it."""
    r = analyses.get("rm-ll").explain(tiny_set(n), 1)
    exact = ll_bound(n)
    assert r.evidence["bound_low"] <= exact + Fraction(1, 10**25)
    assert exact - Fraction(1, 10**25) <= r.evidence["bound_high"]
    assert r.evidence["bound_high"] - r.evidence["bound_low"] < Fraction(1, 10**20)


def test_two_tasks_bound_is_2_sqrt2_minus_2():
    """n = 2: 2(√2 − 1) ≈ 0.8284."""
    r = analyses.get("rm-ll").explain(tiny_set(2), 1)
    assert abs(float(r.evidence["bound_low"]) - 0.8284271247) < 1e-9


def test_limit_ln2():
    """The bound decreases towards ln 2 ≈ 0.693147 (both sources), from above."""
    bounds = [analyses.get("rm-ll").explain(tiny_set(n), 1).evidence["bound_low"] for n in (10, 50, 200)]
    assert bounds[0] > bounds[1] > bounds[2] > Fraction(693147, 10**6)
    assert bounds[2] - Fraction(693147, 10**6) < Fraction(2, 1000)
