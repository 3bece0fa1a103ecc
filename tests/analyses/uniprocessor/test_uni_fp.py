"""Tests of uni-rta, rm-ll and rm-hb (analyses/uniprocessor/uni_fp.py, analyses/theory/fp_rta.py).

Worked examples from the papers' notes (papers/joseph-pandya1986-rta.md, papers/liu-layland1973.md,
papers/bini-buttazzo-buttazzo2003-hyperbolic.md); kernel == reference; uni-rta against a
brute-force simulation of the synchronous periodic release written here; the bounds never accept
what uni-rta rejects; the hyperbolic bound dominates Liu & Layland.
"""

from __future__ import annotations

import math
import os
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rtsched import analyses
from rtsched.analyses.theory.fp_rta import least_fixed_point, rta_from_nb
from rtsched.analyses.uniprocessor import uni_fp
from rtsched.errors import InputError
from rtsched.model import MAX_TIME, TaskSet, TaskSetBatch
from rtsched.priorities import deadline_monotonic, rate_monotonic
from rtsched.testing import strategies as rst
from rtsched.testing.oracles import fp_synchronous_meets_deadlines

EXAMPLES = int(os.environ.get("RTSCHED_PROPERTY_EXAMPLES", "150"))
RTA, LL, HB = (analyses.get(name) for name in ("uni-rta", "rm-ll", "rm-hb"))


def code(verdict: object) -> int:
    return -1 if verdict == "unknown" else int(bool(verdict))


def test_brute_force_oracle_worked_cases():
    """The oracle the properties below use, on cases worked by hand."""
    assert fp_synchronous_meets_deadlines([(1, 2, 2), (1, 2, 2)]) is True  # U = 1, harmonic
    assert fp_synchronous_meets_deadlines([(1, 3, 4), (2, 5, 6)]) is True  # τ1 done at 3 ≤ 5, at 8 ≤ 11
    assert fp_synchronous_meets_deadlines([(1, 2, 2), (2, 3, 3)]) is False  # τ1 has 1 tick left at 3
    assert fp_synchronous_meets_deadlines([(2, 3, 3), (1, 2, 2)]) is False  # τ1 waits until 2 = D


def small_sets(deadlines: str = "constrained", max_size: int = 5):
    return rst.tasksets(min_size=1, max_size=max_size, min_period=1, max_period=12, deadlines=deadlines)


# -- worked examples ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rows", "response"),
    [
        pytest.param(
            [(1, 3, 4), (1, 4, 5), (2, 5, 6), (1, 10, 11)],
            [1, 2, 4, 10],
            id="buttazzo-hrtcs-sec4.5.2-four-tasks",
        ),
        pytest.param([(1, 4, 4), (2, 6, 6), (3, 12, 12)], [1, 3, 10], id="hand-computed-note-example"),
    ],
)
def test_worked_examples(rows: list[tuple[int, int, int]], response: list[int]) -> None:
    ts = TaskSet.from_tasks(rows)
    run = uni_fp.rta(ts)
    assert run.verdict is True
    assert list(run.response) == response
    rt = [row["response_time"] for row in RTA.explain(ts, 1).per_task]
    assert rt == response


def test_buttazzo_iterations_from_the_textbook_start() -> None:
    # R4 from R(0) = Σ C = 5: 6, 7, 9, 10, 10 (papers/joseph-pandya1986-rta.md).
    rows = [(1, 3, 4), (1, 4, 5), (2, 5, 6), (1, 10, 11)]
    R, seen = 5, [5]
    while True:
        value = rows[3][0] + sum(-(-R // t) * c for c, _, t in rows[:3])
        seen.append(value)
        if value == R:
            break
        R = value
    assert seen == [5, 6, 7, 9, 10, 10]
    it = least_fixed_point(rows, 3, 5, 100, None)
    assert (it.response_time, it.evaluations) == (10, 5)


def test_failing_task_and_its_interference_terms() -> None:
    ts = TaskSet.implicit([(1, 4), (2, 5), (2, 6), (1, 11)])
    res = RTA.explain(ts, 1)
    assert res.verdict is False
    ev = res.evidence
    assert ev["failing_task"] == 2 and ev["last_iterate"] == 6 and ev["demand"] == 8 and ev["deadline"] == 6
    assert list(ev["interference"].values()) == [2, 4]  # ⌈6/4⌉·1, ⌈6/5⌉·2
    assert "τ2 misses" in res.summary and "8 > D = 6" in res.summary
    assert RTA.verdict(ts, 1) is False


@pytest.mark.parametrize(
    ("n", "decimal"),
    [(1, "1"), (2, "0.828427124746"), (3, "0.779763149684"), (4, "0.756828460011"), (10, "0.717734625363")],
)
def test_liu_layland_bound_values(n: int, decimal: str) -> None:
    # n(2^{1/n} − 1): 1, 0.828, 0.780, 0.757, ..., → ln 2 (Liu & Layland 1973, Thm. 5).
    lo, hi = uni_fp.liu_layland_bound(n)
    assert hi - lo < Fraction(1, 10**25)
    assert abs(float(lo) - float(decimal)) < 1e-12


def test_liu_layland_bound_tends_to_ln2() -> None:
    lo, _ = uni_fp.liu_layland_bound(10**6)
    assert 0 < float(lo) - math.log(2) < 1e-6


def test_hyperbolic_bound_accepts_what_liu_layland_cannot() -> None:
    # U = 0.5 + 0.3 = 0.8 ≤ 0.828 both; U = 0.6 + 0.25 = 0.85 > 0.828 but (1.6)(1.25) = 2 ≤ 2.
    ts = TaskSet.implicit([(3, 5), (1, 4)])
    ts = rate_monotonic(ts)
    assert LL.verdict(ts, 1) is False and LL.reference(ts, 1) is False
    assert HB.verdict(ts, 1) is True and HB.reference(ts, 1) is True
    assert RTA.verdict(ts, 1) is True


def test_hyperbolic_bound_exactly_two_is_accepted() -> None:
    ts = TaskSet.implicit([(1, 3), (1, 2)])  # (4/3)(3/2) = 2 exactly
    ts = rate_monotonic(ts)
    assert HB.reference(ts, 1) is True
    assert HB.verdict(ts, 1) is True


def test_bounds_refuse_sets_not_in_rm_order_and_say_so() -> None:
    # U = 0.75 ≤ 0.828, but with τ0 = (2, 8) above τ1 = (1, 2), τ1 has R = 3 > 2.
    ts = TaskSet.implicit([(2, 8), (1, 2)])
    assert RTA.verdict(ts, 1) is False
    for entry in (LL, HB):
        assert entry.verdict(ts, 1) is False
        assert entry.reference(ts, 1) is False
        res = entry.explain(ts, 1)
        assert res.verdict is False and "not in rate-monotonic order" in res.summary
        assert entry.verdict(rate_monotonic(ts), 1) is True


def test_platform_and_deadline_model_checks() -> None:
    ts = TaskSet.from_tasks([(1, 2, 4)])
    with pytest.raises(InputError):
        RTA.verdict(ts, 2)
    with pytest.raises(InputError):
        LL.verdict(ts, 1)  # constrained deadlines: the bounds need D = T
    assert RTA.verdict(ts, 1) is True


def test_budget_gives_unknown_never_false() -> None:
    ts = TaskSet.implicit([(1, 4), (2, 5), (2, 6), (1, 11)])  # τ2 fails after 4 evaluations
    assert RTA.verdict(ts, 1, budget=3) == "unknown"
    assert RTA.reference(ts, 1, budget=3) == "unknown"
    assert RTA.verdict(ts, 1, budget=4) is False
    assert RTA.explain(ts, 1, budget=3).verdict == "unknown"


def test_large_values_are_exact() -> None:
    big = MAX_TIME
    ts = TaskSet.from_tasks([(big // 2, big - 1, big - 1), (big // 2, big, big)])
    assert RTA.verdict(ts, 1) == RTA.reference(ts, 1) is True  # R = 2⌊big/2⌋ = big − 1 ≤ big
    ts = TaskSet.from_tasks([(big // 2 + 1, big - 1, big - 1), (big // 2, big, big)])
    assert RTA.verdict(ts, 1) == RTA.reference(ts, 1) is False
    hb = TaskSet.implicit([(1, big), (1, big - 1)])
    assert HB.verdict(rate_monotonic(hb), 1) is True


# -- properties -------------------------------------------------------------------------------


@settings(max_examples=EXAMPLES, deadline=None)
@given(small_sets())
def test_rta_is_exact_against_simulation(ts: TaskSet) -> None:
    assert RTA.verdict(ts, 1) is fp_synchronous_meets_deadlines(ts.rows())


@settings(max_examples=EXAMPLES, deadline=None)
@given(rst.tasksets(max_size=10, max_period=10**6), st.integers(1, 60))
def test_rta_kernel_equals_reference_also_at_small_budgets(ts: TaskSet, budget: int) -> None:
    for b in (budget, None):
        assert code(RTA.verdict(ts, 1, b)) == code(RTA.reference(ts, 1, b))
    batch = TaskSetBatch.from_tasksets([ts, ts])
    assert RTA.status(batch, 1, budget).tolist() == [code(RTA.reference(ts, 1, budget))] * 2


@settings(max_examples=EXAMPLES, deadline=None)
@given(rst.tasksets(max_size=12, max_period=10**4, deadlines="implicit"))
def test_bound_kernels_equal_references(ts: TaskSet) -> None:
    for candidate in (ts, rate_monotonic(ts)):
        for entry in (LL, HB):
            assert entry.verdict(candidate, 1) is entry.reference(candidate, 1)


@settings(max_examples=EXAMPLES, deadline=None)
@given(rst.tasksets(max_size=8, max_period=50, deadlines="implicit"))
def test_bounds_never_accept_what_rta_rejects_and_hb_dominates_ll(ts: TaskSet) -> None:
    rm = rate_monotonic(ts)
    ll, hb, rta = LL.verdict(rm, 1), HB.verdict(rm, 1), RTA.verdict(rm, 1)
    assert not ll or hb  # Liu & Layland ⇒ hyperbolic (AM-GM; Bini et al. 2003)
    assert not hb or rta  # hyperbolic ⇒ exact
    for entry in (LL, HB):  # in the given order: never above the exact test either
        assert not entry.verdict(ts, 1) or RTA.verdict(ts, 1)


@settings(max_examples=EXAMPLES, deadline=None)
@given(small_sets(deadlines="implicit"))
def test_bounds_sound_against_simulation(ts: TaskSet) -> None:
    for entry in (LL, HB):
        if entry.verdict(ts, 1) is True:
            assert fp_synchronous_meets_deadlines(ts.rows())


def test_ll_near_the_bound_is_decided_exactly() -> None:
    # U within 1e-12 of 2(√2 − 1) on both sides: the float margin hands these to the reference.
    T = 10**9
    bound = 2 * (math.sqrt(2) - 1)
    for c_total in (int(bound * T) - 1, int(bound * T), int(bound * T) + 1):
        c1 = c_total // 2
        ts = TaskSet.implicit([(c1, T), (c_total - c1, T)])
        exact = (Fraction(c_total, 2 * T) + 1) ** 2 <= 2  # U ≤ 2(2^{1/2} − 1) ⟺ (U/2 + 1)² ≤ 2
        assert LL.verdict(ts, 1) is exact
        assert LL.reference(ts, 1) is exact


def test_kernel_helper_counts_like_the_reference() -> None:
    rows = [(1, 3, 4), (1, 4, 5), (2, 5, 6), (1, 10, 11)]
    C, D, T = (np.array(col, dtype=np.int64) for col in zip(*rows, strict=True))
    R = np.zeros(4, dtype=np.int64)
    code_, used = rta_from_nb(C, D, T, 4, 0, R, R, 1000)
    run = uni_fp.rta(TaskSet.from_tasks(rows))
    assert (int(code_), int(used)) == (1, run.used)
    assert R.tolist() == list(run.response)


def test_fits_lowest_matches_rta_in_the_given_order() -> None:
    ts = TaskSet.from_tasks([(1, 3, 4), (1, 4, 5), (2, 5, 6), (1, 10, 11)])
    assert all(uni_fp.rta_fits_lowest(ts, k, list(range(k))) for k in range(4))
    assert uni_fp.rta_fits_lowest(ts, 3, [2, 0, 1])  # any order of the higher tasks
    assert not uni_fp.rta_fits_lowest(ts, 0, [1, 2, 3])  # τ0 (D = 3) below all the others


PERIODS = st.sampled_from([2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 24, 30, 40, 60, 120])  # hyperperiod ≤ 120


@st.composite
def harmonic_friendly_sets(draw: st.DrawFn, max_size: int = 8) -> TaskSet:
    rows = []
    for _ in range(draw(st.integers(1, max_size))):
        T = draw(PERIODS)
        C = draw(st.integers(1, max(1, T // 3)))
        rows.append((C, draw(st.integers(C, T)), T))
    return TaskSet.from_tasks(rows)


@pytest.mark.slow
@settings(max_examples=10 * EXAMPLES, deadline=None)
@given(harmonic_friendly_sets())
def test_rta_is_exact_against_simulation_larger_sets(ts: TaskSet) -> None:
    for order in (ts, deadline_monotonic(ts)):
        assert RTA.verdict(order, 1) is fp_synchronous_meets_deadlines(order.rows())
