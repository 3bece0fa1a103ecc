"""TaskSet and TaskSetBatch: construction, validation errors, exact derived quantities."""

import pickle
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from rtsched import MAX_TIME, InputError, TaskError, TaskSet, TaskSetBatch
from rtsched.testing import strategies as rst


def test_constructors_agree():
    a = TaskSet.from_tasks([(1, 3, 4), (2, 5, 5)])
    b = TaskSet.from_arrays([1, 2], [3, 5], [4, 5])
    c = TaskSet(np.array([1, 2]), np.array([3, 5]), np.array([4, 5]))
    assert a == b == c
    assert a.utilization == Fraction(13, 20)
    assert a.density == Fraction(1, 3) + Fraction(2, 5)
    assert a.hyperperiod == 20
    assert a.n == len(a) == 2
    assert a[1].C == 2


def test_fractions_are_converted_exactly():
    """A Fraction is an integer number of ticks only if its denominator is 1: never judged through
    its nearest float (1 + 10**-20 rounds to 1.0), and huge integers stay exact."""
    assert TaskSet.from_tasks([(Fraction(6, 2), 3, 3)]).C[0] == 3
    with pytest.raises(TaskError, match="not an integer number of ticks"):
        TaskSet.from_tasks([(Fraction(1) + Fraction(1, 10**20), 3, 3)])
    with pytest.raises(TaskError, match="not an integer number of ticks"):
        TaskSet.from_tasks([(Fraction(10**400 + 1, 10**400), 3, 3)])
    with pytest.raises(TaskError, match="not an integer number of ticks"):
        TaskSet.from_tasks([(1.5, 3, 3)])
    assert TaskSet.from_tasks([(2.0, 3, 3)]).C[0] == 2


def test_immutable_and_copies_input():
    C = np.array([1, 2], dtype=np.int64)
    ts = TaskSet(C, [3, 5], [4, 5])
    C[0] = 99
    assert ts.C[0] == 1
    with pytest.raises(ValueError, match="read-only"):
        ts.C[0] = 5
    with pytest.raises(AttributeError):
        ts.foo = 1  # type: ignore[attr-defined]


def test_batch_arrays_are_read_only_copies():
    """No analysis can write its inputs: the batch's arrays are read-only, and Numba types a
    read-only array so that a kernel storing into it does not compile. The batch copies the
    arrays it is built from, so a caller's later writes do not reach it either."""
    C = np.array([1, 2, 1], dtype=np.int64)
    batch = TaskSetBatch(C, [3, 5, 4], [4, 5, 4], [0, 2, 3])
    C[0] = 99
    assert batch.C[0] == 1
    for name in ("C", "D", "T", "offsets"):
        array = getattr(batch, name)
        assert not array.flags.writeable, name
        with pytest.raises(ValueError, match="read-only"):
            array[0] = 7
    assert not TaskSetBatch.from_tasksets([TaskSet.from_tasks([(1, 3, 3)])]).C.flags.writeable


def test_names_and_labels():
    ts = TaskSet.from_tasks([(1, 3, 4, "camera"), (2, 5, 5)])
    assert ts.names == ("camera", "")
    assert ts.task_name(1) is None
    assert ts.label(0) == "τ0 (camera)"


@pytest.mark.parametrize(
    ("tasks", "field", "text"),
    [
        ([(0, 3, 4)], "C", "positive"),
        ([(-1, 3, 4)], "C", "positive"),
        ([(1, 3, 0)], "T", "positive"),
        ([(4, 3, 4)], "C", "exceeds D"),
        ([(1, 5, 4)], "D", "constrained"),
        ([(1, 3, MAX_TIME + 1)], "T", "too large"),
        ([(1, 3, 10**30)], "T", "too large"),
        ([(1.5, 3, 4)], "C", "time unit"),
        ([("abc", 3, 4)], "C", "not a number"),
        ([(True, 3, 4)], "C", "not a number"),
        ([(float("nan"), 3, 4)], "C", "finite"),
    ],
)
def test_invalid_tasks_name_task_and_field(tasks, field, text):
    with pytest.raises(TaskError, match=text) as info:
        TaskSet.from_tasks([(1, 2, 2), *tasks])
    assert info.value.task == 1
    assert info.value.field == field
    assert "task 1" in str(info.value) and f"field {field}" in str(info.value)


def test_empty_set_rejected():
    with pytest.raises(InputError, match="at least one task"):
        TaskSet.from_tasks([])


def test_arbitrary_deadlines_must_be_asked_for():
    ts = TaskSet.from_tasks([(1, 8, 4)], deadlines="arbitrary")
    assert not ts.is_constrained
    assert ts.density == Fraction(1, 4)


def test_integral_floats_accepted_real_values_need_a_unit():
    assert TaskSet.from_tasks([(1.0, 2.0, 3.0)]).rows() == [(1, 2, 3)]
    ts = TaskSet.from_real([(0.5, 1.5, 2.0)], unit="0.5")
    assert ts.rows() == [(1, 3, 4)]
    with pytest.raises(TaskError, match="whole number of ticks"):
        TaskSet.from_real([(0.3, 1, 2)], unit="0.5")
    safe = TaskSet.from_real([(0.3, 1.2, 2.2)], unit="0.5", rounding="safe")
    assert safe.rows() == [(1, 2, 4)]  # C up, D and T down: pessimistic


def test_hyperperiod_overflow_check():
    primes = [2147483647, 2147483629, 2147483587]
    ts = TaskSet.from_tasks([(1, p, p) for p in primes])
    assert ts.hyperperiod == primes[0] * primes[1] * primes[2]
    with pytest.raises(OverflowError):
        ts.hyperperiod_int64()


@given(st.lists(rst.tasksets(max_size=6), min_size=1, max_size=10))
def test_batch_round_trip(sets):
    batch = TaskSetBatch.from_tasksets(sets)
    assert batch.n_sets == len(sets)
    assert [b.rows() for b in batch] == [s.rows() for s in sets]
    assert batch[-1].rows() == sets[-1].rows()
    C, D, T, counts = batch.to_padded()
    again = TaskSetBatch.from_padded(C, D, T, counts)
    assert again == batch
    np.testing.assert_allclose(batch.utilizations(), [float(s.utilization) for s in sets])
    picked = batch.select([len(sets) - 1, 0])
    assert [s.rows() for s in picked] == [sets[-1].rows(), sets[0].rows()]
    assert pickle.loads(pickle.dumps(batch)) == batch


def test_batch_validation_names_set_and_task():
    with pytest.raises(TaskError) as info:
        TaskSetBatch([1, 2, 5], [2, 2, 3], [2, 2, 3], [0, 1, 3])
    assert info.value.set_index == 1 and info.value.task == 1 and info.value.field == "C"
    with pytest.raises(InputError, match="at least one task"):
        TaskSetBatch([1], [1], [1], [0, 0, 1])
    with pytest.raises(IndexError):
        TaskSetBatch.empty()[0]


def test_batch_concatenate():
    a = TaskSetBatch.from_tasksets([TaskSet.from_tasks([(1, 2, 2)])])
    b = TaskSetBatch.from_tasksets([TaskSet.from_tasks([(1, 3, 3), (1, 4, 4)])])
    both = TaskSetBatch.concatenate([a, b])
    assert both.n_sets == 2 and both[1].rows() == [(1, 3, 3), (1, 4, 4)]


def test_pickle_taskset():
    ts = TaskSet.from_tasks([(1, 3, 4, "x")], name="s")
    assert pickle.loads(pickle.dumps(ts)) == ts


@given(st.lists(st.tuples(st.integers(0, MAX_TIME), st.integers(1, MAX_TIME)), max_size=40))
def test_exact_sums_equal_the_left_to_right_fraction_sum(terms):
    """``ratio_sum`` (no Fraction per term, unreduced pairs) and ``fraction_sum`` give Σ a/b exactly."""
    from rtsched.model import fraction_sum, ratio_sum

    expected = sum((Fraction(a, b) for a, b in terms), Fraction(0))
    assert ratio_sum([a for a, _ in terms], [b for _, b in terms]) == expected
    assert fraction_sum(Fraction(a, b) for a, b in terms) == expected


@given(rst.tasksets(max_size=12))
def test_utilization_and_density_are_the_exact_sums(ts):
    assert ts.utilization == sum((Fraction(c, t) for c, _d, t in ts.rows()), Fraction(0))
    assert ts.density == sum((Fraction(c, min(d, t)) for c, d, t in ts.rows()), Fraction(0))


@given(rst.batches(max_sets=6, max_size=5, max_period=30))
def test_batch_deadline_kind_is_the_tightest_model_of_its_sets(batch):
    # Computed once per batch (every analysis's status reads it); the same as its sets' models.
    rank = {"implicit": 0, "constrained": 1, "arbitrary": 2}
    want = max((ts.deadline_kind for ts in batch), key=rank.__getitem__, default="implicit")
    assert batch.deadline_kind == want
    assert pickle.loads(pickle.dumps(batch)).deadline_kind == want


def test_batch_deadline_kind_of_each_model():
    assert TaskSetBatch([1, 2], [3, 5], [3, 5], [0, 1, 2]).deadline_kind == "implicit"
    assert TaskSetBatch([1, 2], [3, 4], [3, 5], [0, 1, 2]).deadline_kind == "constrained"
    batch = TaskSetBatch([1, 2], [3, 6], [3, 5], [0, 1, 2], deadlines="arbitrary")
    assert batch.deadline_kind == "arbitrary" and batch.select([0]).deadline_kind == "implicit"
