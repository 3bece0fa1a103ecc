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


@given(rst.dag_tasksets(max_size=3, max_vertices=5, max_wcet=4, max_period=20))
def test_dag_tasksets_valid_and_sized(ts):
    assert 1 <= ts.n <= 3
    for task in ts:
        assert 1 <= task.n <= 5 and all(1 <= c <= 4 for c in task.wcets)
        assert all(u < v for u, v in task.edges)  # acyclic by construction
        assert 1 <= task.D <= task.T <= 20
        assert task.length <= task.volume


@given(rst.dag_tasks(deadlines="implicit", types=("cpu", "gpu")))
def test_dag_implicit_and_typed(task):
    assert task.D == task.T
    assert all(task.vertex_type(v) in ("cpu", "gpu") for v in range(task.n))


@given(rst.dag_tasks(deadlines="arbitrary", max_period=10, max_deadline_factor=2))
def test_dag_arbitrary_deadlines_up_to_the_factor(task):
    assert 1 <= task.D <= 2 * task.T
