"""LOAD (Baker & Baruah RTS 2009): worked cases, kernel == reference, properties."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rtsched import TaskSet, TaskSetBatch
from rtsched.analyses.global_edf import load
from rtsched.testing import strategies as rst

LOAD = load.ANALYSES[0]  # the registered entry (registry lookups are tested in test_gedf_pseudopoly_relations)
CODE = {True: 1, False: 0, "unknown": -1}


def one(ts: TaskSet, m: int, budget: int = load.DEFAULT_BUDGET) -> int:
    """The batch kernel's code for one set; the serial one-set kernel (``verdict``) must agree."""
    code = int(LOAD.status(TaskSetBatch.from_tasksets([ts], deadlines=ts.deadlines), m, budget)[0])
    assert CODE[LOAD.verdict(ts, m, budget)] == code
    return code


def test_worked_example_by_hand():
    """papers/baker-baruah2009-load.md: λmax = 1/4, μ = 7/4, ⌈μ⌉ = 2, β = max(3/2, 1) = 3/2, load = 9/20 at t = 20."""
    ts = TaskSet.from_tasks([(1, 5, 10), (2, 8, 12), (3, 20, 20)])
    assert load.load_bound(ts, 2) == (Fraction(3, 2), Fraction(7, 4), Fraction(1, 4))
    assert load.load(ts) == (Fraction(9, 20), 20)
    assert load.reference(ts, 2) is True and one(ts, 2) == 1
    res = LOAD.explain(ts, 2)
    assert res.evidence["load"] == Fraction(9, 20)


@pytest.mark.parametrize(
    ("tasks", "m", "expected"),
    [
        pytest.param([(2, 3, 3)] * 3, 3, False, id="schedcat-readme-m3-U-above-beta"),
        # m = 1: β = 1 and the test is the uniprocessor processor-demand criterion.
        pytest.param([(1, 3, 4), (1, 5, 7), (2, 10, 10)], 1, True, id="m1-uniprocessor-pdc"),
        pytest.param([(2, 3, 4), (2, 4, 5), (1, 4, 10)], 1, False, id="m1-demand-exceeds"),
        # U = β exactly (implicit deadlines, λmax = 1/2, m = 2: μ = 3/2, β = max(3/2 − 1/2, 1) = 1 = U):
        # decided over one hyperperiod.
        pytest.param([(1, 2, 2), (1, 4, 4), (1, 4, 4)], 2, True, id="U-equals-beta-periodic"),
        # Arbitrary deadlines (D > T) are in the model of the paper.
        pytest.param([(1, 6, 4), (2, 9, 5)], 1, True, id="arbitrary-deadlines"),
    ],
)
def test_worked_cases(tasks, m, expected):
    ts = TaskSet.from_tasks(tasks, deadlines="arbitrary")
    assert load.reference(ts, m) is expected
    assert one(ts, m) == int(expected)
    assert LOAD.explain(ts, m).verdict is expected


def test_schedcat_cases(schedcat_peer):
    """Agreement with SchedCAT's exact-rational C++ LOAD (cpp:LOAD) on every verdict case.

    SchedCAT's ``LA`` (cpp:LA) is a different routine and is not compared.
    """
    for case, ts, peer in schedcat_peer("cpp:LOAD", at_least=10):
        assert load.reference(ts, case["m"]) == peer["cpp:LOAD"], case["case_id"]


@settings(max_examples=60)
@given(rst.batches(max_sets=15, max_size=6, max_period=30), st.integers(1, 5))
def test_kernel_equals_reference(batch, m):
    np.testing.assert_array_equal(LOAD.status(batch, m), [CODE[load.reference(ts, m)] for ts in batch])


@settings(max_examples=30)
@given(rst.batches(max_sets=10, max_size=5, max_period=20, deadlines="arbitrary"), st.integers(1, 4))
def test_kernel_equals_reference_arbitrary(batch, m):
    np.testing.assert_array_equal(LOAD.status(batch, m), [CODE[load.reference(ts, m)] for ts in batch])


def on_beta():
    """Implicit-deadline sets with U = β exactly (and one tick more)."""
    return rst.on_a_bound(
        lambda heavy, m: load.load_bound(heavy, m)[0], processors=st.integers(1, 3), max_deadline=6, one_tick_more=True
    )


@given(on_beta())
def test_boundary_kernel_equals_reference(case):
    ts, m = case
    assert one(ts, m, 5_000) == CODE[load.reference(ts, m, 5_000)]


@given(rst.tasksets(max_size=6, max_period=30), st.integers(1, 4))
def test_monotone_in_m(ts, m):
    if load.reference(ts, m) is True:
        assert load.reference(ts, m + 1) is True


def test_budget_exhaustion_is_unknown():
    ts = TaskSet.from_tasks([(2, 3, 4), (2, 5, 6), (1, 9, 10)])
    full = load.analyse(ts, 1)
    assert full.verdict is True and full.points > 1
    assert load.reference(ts, 1, budget=1) == "unknown"
    assert one(ts, 1, budget=1) == -1
    res = load.explain(ts, 1, budget=1)
    assert res.verdict == "unknown" and "budget" in res.summary


@settings(max_examples=150)
@given(rst.tasksets(max_size=5, max_period=12, deadlines="arbitrary"), st.integers(1, 4))
def test_equals_brute_force_over_a_hyperperiod(ts, m):
    """Σ dbf(t) ≤ β·t at every integer t ≤ max D + 2H (H the hyperperiod) and U ≤ β."""
    from rtsched.analyses.global_edf._demand import dbf

    beta, _, _ = load.load_bound(ts, m)
    horizon = int(max(ts.D)) + 2 * ts.hyperperiod
    brute = ts.utilization <= beta and all(
        sum(dbf(c, d, p, t) for c, d, p in ts.rows()) <= beta * t for t in range(1, horizon + 1)
    )
    assert load.reference(ts, m) is brute
