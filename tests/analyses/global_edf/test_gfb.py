"""GFB density test: paper cases, kernel == exact reference, properties."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from rtsched import TaskSet, TaskSetBatch, analyses, check
from rtsched.analyses.global_edf import gfb
from rtsched.testing import strategies as rst

GFB = analyses.get("gfb")


@pytest.mark.parametrize(
    ("tasks", "m", "expected"),
    [
        # SchedCAT README example: three (2, 3, 3) tasks; Σλ = 2, bound m − (m−1)·2/3.
        pytest.param([(2, 3, 3)] * 3, 2, False, id="schedcat-readme-m2"),
        pytest.param([(2, 3, 3)] * 3, 3, False, id="schedcat-readme-m3"),
        # Exactly on the bound: Σλ = 3·(1/3) + 1/3 = 4/3 ... m=2: bound = 2 − 1/3 = 5/3.
        pytest.param([(1, 3, 3)] * 5, 2, True, id="on-bound-m2-five-thirds"),
        pytest.param([(1, 3, 3)] * 6, 2, False, id="above-bound-m2"),
        # Implicit deadlines, the original GFB 2003 utilization bound U ≤ m − (m−1)·u_max.
        pytest.param([(1, 10, 10)] * 10 + [(5, 10, 10)], 2, True, id="gfb2003-implicit-u-1.5"),
        # Dhall-like: GFB rejects it although it is schedulable (heavy job ends exactly at 11).
        pytest.param([(1, 10, 10)] * 2 + [(10, 11, 11)], 2, False, id="dhall-m2"),
        # 0.1 + 0.2 style floats: λ = 1/10, 2/10, 7/10 on m = 1, Σλ = 1 exactly.
        pytest.param([(1, 10, 10), (2, 10, 10), (7, 10, 10)], 1, True, id="float-trap-sum-one"),
        pytest.param([(1, 3, 7), (1, 3, 7), (1, 3, 7)], 1, True, id="thirds-sum-one-m1"),
    ],
)
def test_worked_cases(tasks, m, expected):
    ts = TaskSet.from_tasks(tasks)
    assert gfb.reference(ts, m) is expected
    assert GFB.batch(TaskSetBatch.from_tasksets([ts]), m)[0] == expected
    assert GFB.explain(ts, m).verdict is expected


def test_schedcat_cases_gfb(schedcat_peer):
    """SchedCAT's Python GFB decides with floats; we record where it is wrong."""
    for case, ts, peers in schedcat_peer("GFB", verdicts_only=False, constrained=True, at_least=11):
        peer = peers["GFB"]
        ours = gfb.reference(ts, case["m"])
        lam = [Fraction(c, min(d, t)) for c, d, t in case["tasks"]]
        exact_on_bound = sum(lam) == case["m"] - (case["m"] - 1) * max(lam)
        if ours != peer:
            # The only admissible disagreement: a set exactly on the bound, which the theorem
            # accepts ("≤") and SchedCAT's float comparison may reject.
            assert exact_on_bound and ours, case["case_id"]


def on_the_bound():
    """A set with Σλ = m − (m−1)·λmax exactly (the GFB inequality holds with equality)."""
    return rst.on_a_bound(lambda heavy, m: m - (m - 1) * heavy.max_density, heavy_period_factor=3, scale_remainder=True)


@given(on_the_bound())
def test_exact_boundary_is_accepted(case):
    ts, m = case
    assert gfb.reference(ts, m)
    assert GFB.batch(TaskSetBatch.from_tasksets([ts]), m)[0]
    # One more tick of execution anywhere breaks it.
    bumped = [(c + 1, d, t) if c < d else (c, d, t) for c, d, t in ts.rows()]
    if bumped != ts.rows():
        worse = TaskSet.from_tasks(bumped)
        assert not gfb.reference(worse, m)
        assert not GFB.batch(TaskSetBatch.from_tasksets([worse]), m)[0]


@given(rst.batches(max_sets=30, max_period=50), st.integers(1, 8))
def test_kernel_equals_reference(batch, m):
    got = GFB.batch(batch, m)
    want = np.array([gfb.reference(ts, m) for ts in batch])
    np.testing.assert_array_equal(got, want)


@given(rst.batches(max_sets=10, deadlines="arbitrary", max_period=30), st.integers(1, 6))
def test_kernel_equals_reference_arbitrary_deadlines(batch, m):
    np.testing.assert_array_equal(GFB.batch(batch, m), [gfb.reference(ts, m) for ts in batch])


@given(rst.tasksets(max_size=10), st.integers(1, 8))
def test_utilization_above_m_is_rejected(ts, m):
    if ts.utilization > m:
        assert not gfb.reference(ts, m)


@given(rst.tasksets(max_size=10), st.integers(1, 8))
def test_monotone_in_m(ts, m):
    if gfb.reference(ts, m):
        assert gfb.reference(ts, m + 1)


@given(rst.tasksets(min_size=2, max_size=8), st.integers(1, 4), st.data())
def test_removing_a_task_keeps_acceptance(ts, m, data):
    if gfb.reference(ts, m):
        i = data.draw(st.integers(0, ts.n - 1))
        assert gfb.reference(ts.without(i), m)


def test_large_values_stay_exact():
    # λ = (2^31−2)/(2^31−1) twice on m = 2: Σλ = 2λ vs bound 2 − λ, i.e. 3λ ≤ 2: false.
    big = 2**31 - 1
    ts = TaskSet.from_tasks([(big - 1, big, big), (1, big, big)])
    assert GFB.batch(TaskSetBatch.from_tasksets([ts]), 2)[0] == gfb.reference(ts, 2)


def test_explain_evidence_is_exact_and_immutable():
    ts = TaskSet.from_tasks([(1, 3, 3)] * 5)
    res = check(ts, 2, tests="gfb")["gfb"]
    assert res.evidence["total_density"] == Fraction(5, 3)
    assert res.evidence["bound"] == Fraction(5, 3)
    assert res.evidence["slack"] == 0
    with pytest.raises(TypeError):
        res.evidence["bound"] = 0  # type: ignore[index]
    assert res.to_dict()["evidence"]["bound"] == "5/3"
