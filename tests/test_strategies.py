"""The public hypothesis strategies are valid by construction and respect their options."""

from hypothesis import given

from rtsched import TaskSetBatch
from rtsched.testing import strategies as rst


@given(rst.tasksets(min_size=2, max_size=5, max_period=20))
def test_tasksets_valid_and_sized(ts):
    assert 2 <= ts.n <= 5
    assert all(1 <= c <= d <= t <= 20 for c, d, t in ts.rows())


@given(rst.tasksets(deadlines="implicit"))
def test_implicit(ts):
    assert ts.is_implicit


@given(rst.tasksets(deadlines="arbitrary", max_period=10))
def test_arbitrary_allows_large_deadlines(ts):
    assert ts.deadlines == "arbitrary"
    assert all(c <= d and c <= t for c, d, t in ts.rows())


@given(rst.tasksets(max_size=8, max_utilization=1.0, min_period=10))
def test_max_utilization(ts):
    # With T >= 10 and at most 8 tasks, Σ 1/T <= 0.8, so the cap is always reachable.
    assert ts.utilization <= 1


@given(rst.batches(min_sets=1, max_sets=5))
def test_batches(batch):
    assert isinstance(batch, TaskSetBatch)
    assert 1 <= batch.n_sets <= 5


def test_shrinks_to_smallest():
    from hypothesis import find

    smallest = find(rst.tasksets(), lambda ts: ts.utilization >= 1)
    assert smallest.rows() == [(1, 1, 1)]
