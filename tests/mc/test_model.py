"""Tests of rtsched.mc.model: MCTask, MCTaskSet, MCBatch (papers/mc-model.md).

A worked example computed by hand (U_LL, U_HL, U_HH of Baruah et al., ECRTS 2012, Section 2),
one test per validation error (a TaskError naming the task and the field), and properties on
sets drawn with the public strategy rtsched.testing.strategies.mc_tasksets.
"""

from __future__ import annotations

import pickle
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from rtsched.errors import InputError, TaskError
from rtsched.mc import HI, LEVELS, LO, MCBatch, MCTask, MCTaskSet, level_index
from rtsched.model import MAX_TIME
from rtsched.testing import strategies as rst

# -- worked example (papers/mc-model.md) --------------------------------------------------------

#: The note's example: a LO task and two HI tasks, one with a constrained deadline.
EXAMPLE = MCTaskSet(
    [MCTask.lo(2, T=10, name="log"), MCTask.hi(1, 3, T=6, name="brake"), MCTask.hi(2, 4, T=12, D=10, name="steer")],
    name="example",
)


def test_worked_example():
    # By hand: U_LL = 2/10; U_HL = 1/6 + 2/12 = 1/3; U_HH = 3/6 + 4/12 = 5/6.
    assert EXAMPLE.U_LL == Fraction(1, 5)
    assert EXAMPLE.U_HL == Fraction(1, 3)
    assert EXAMPLE.U_HH == Fraction(5, 6)
    assert EXAMPLE.utilization_lo == Fraction(8, 15)
    assert EXAMPLE.U("LO", "HI") == Fraction(1, 5)  # a LO task's WCET at HI is its C(LO)
    assert EXAMPLE.lo_tasks() == (0,)
    assert EXAMPLE.hi_tasks() == (1, 2)
    assert EXAMPLE.deadline_model == EXAMPLE.deadline_kind == "constrained"
    assert EXAMPLE.n == len(EXAMPLE) == 3
    assert EXAMPLE.names == ("log", "brake", "steer")
    assert EXAMPLE.label(1) == "τ1 (brake)"
    steer = EXAMPLE[2]
    assert (steer.C_lo, steer.C_hi, steer.C("LO"), steer.C("HI"), steer.C(0), steer.C(1)) == (2, 4, 2, 4, 2, 4)
    assert steer.wcets == (2, 4) and steer.level == HI and steer.is_hi and steer.criticality == "HI"
    assert steer.utilization("HI") == Fraction(1, 3) and steer.density("HI") == Fraction(2, 5)
    log = EXAMPLE[0]
    assert (log.C_lo, log.C_hi, log.C("HI"), log.level, log.is_hi, log.criticality) == (2, 2, 2, LO, False, "LO")
    assert log.wcets == (2,)


def test_levels():
    assert LEVELS == ("LO", "HI") and (LO, HI) == (0, 1)
    assert [level_index(x) for x in ("LO", "hi", " Hi ", 0, 1, np.int8(1))] == [0, 1, 1, 0, 1, 1]
    for bad in ("MED", 2, -1, True, None, 1.0):
        with pytest.raises(TaskError, match="unknown criticality level"):
            level_index(bad)  # type: ignore[arg-type]


def test_constructors_and_defaults():
    assert MCTask.hi(1, 2, T=5) == MCTask((1, 2), 5, 5, 1) == MCTask([1, 2], 5, 5, "HI")
    assert MCTask.lo(1, T=5, D=3) == MCTask((1,), 5, 3, "lo")
    assert MCTask((np.int64(3), np.int32(3)), np.int64(9), 9, "LO") == MCTask.lo(3, 9)  # C_HI = C_LO dropped
    assert type(MCTask((np.int64(3),), np.int64(9), 9, 0).T) is int
    assert MCTask.hi(2, 2, T=4).C_hi == 2  # C(HI) = C(LO) is allowed
    assert MCTask.hi(1, 9, T=5, D=4).C_hi == 9  # a WCET above D is allowed (analyses reject it)
    assert MCTask.lo(1, T=5, D=7).deadline_kind == "arbitrary"
    assert MCTask.hi(1, 2, T=5).replace(D=4) == MCTask.hi(1, 2, T=5, D=4)


@pytest.mark.parametrize(
    ("build", "field", "message"),
    [
        pytest.param(lambda: MCTask.hi(5, 3, T=10, name="b"), "C_HI", "C_HI 3 < C_LO 5", id="c-hi-below-c-lo"),
        pytest.param(lambda: MCTask((3, 4), 10, 10, "LO", name="b"), "C_HI", "LO task has no C_HI", id="lo-with-hi"),
        pytest.param(lambda: MCTask((3,), 10, 10, "MED", name="b"), "level", "unknown criticality", id="level"),
        pytest.param(lambda: MCTask((3,), 10, 10, "HI", name="b"), "C_HI", "HI task needs C_HI", id="hi-no-c-hi"),
        pytest.param(lambda: MCTask.lo(0, T=10, name="b"), "C_LO", "positive integer", id="zero-c"),
        pytest.param(lambda: MCTask.hi(1, -2, T=10, name="b"), "C_HI", "positive integer", id="negative-c-hi"),
        pytest.param(lambda: MCTask.lo(1, T=0, name="b"), "T", "positive integer", id="zero-t"),
        pytest.param(lambda: MCTask.lo(1, T=5, D=0, name="b"), "D", "positive integer", id="zero-d"),
        pytest.param(lambda: MCTask.lo(1.5, T=5, name="b"), "C_LO", "integer number of ticks", id="float"),  # type: ignore[arg-type]
        pytest.param(lambda: MCTask.lo(True, T=5, name="b"), "C_LO", "integer number of ticks", id="bool"),
        pytest.param(lambda: MCTask.lo(1, T=MAX_TIME + 1, name="b"), "T", "too large", id="too-large"),
        pytest.param(lambda: MCTask((), 5, 5, 0, name="b"), "C_LO", "needs its C_LO", id="no-wcet"),
        pytest.param(lambda: MCTask((1, 2, 3), 5, 5, 1, name="b"), "C_LO", "at most one per level", id="3-wcets"),
        pytest.param(lambda: MCTask(5, 5, 5, 0, name="b"), "C_LO", "sequence of integers", id="scalar-wcets"),  # type: ignore[arg-type]
    ],
)
def test_validation_errors_name_task_and_field(build, field, message):
    with pytest.raises(TaskError, match=message) as info:
        build()
    err = info.value
    assert err.field == field
    assert err.task in ("b", None)
    assert "\n" not in str(err)


def test_set_validation():
    with pytest.raises(InputError, match="at least one task"):
        MCTaskSet([])
    with pytest.raises(TaskError, match="expected an MCTask"):
        MCTaskSet([(1, 2, 3)])  # type: ignore[list-item]
    with pytest.raises(InputError, match="name must be a string"):
        MCTaskSet([MCTask.lo(1, 2)], name=3)  # type: ignore[arg-type]
    with pytest.raises(TaskError, match="name must be a string"):
        MCTask.lo(1, 2, name=3)  # type: ignore[arg-type]


def test_immutable():
    task = MCTask.lo(1, 2)
    with pytest.raises(AttributeError):
        task.T = 3  # type: ignore[misc]
    with pytest.raises(AttributeError):
        EXAMPLE._tasks = ()  # type: ignore[misc]
    batch = MCBatch.from_tasksets([EXAMPLE])
    with pytest.raises(AttributeError):
        batch._T = None  # type: ignore[misc]
    with pytest.raises(ValueError, match="read-only"):
        batch.T[0] = 1


def test_permuted_and_slices():
    swapped = EXAMPLE.permuted([2, 0, 1])
    assert [t.name for t in swapped] == ["steer", "log", "brake"] and swapped.name == "example"
    assert swapped.U_HH == EXAMPLE.U_HH and swapped != EXAMPLE
    with pytest.raises(InputError, match="permutation"):
        EXAMPLE.permuted([0, 0, 1])
    assert EXAMPLE[1:].hi_tasks() == (0, 1)


def test_deadline_models():
    implicit = MCTaskSet([MCTask.lo(1, 4), MCTask.hi(1, 2, 4)])
    assert implicit.deadline_model == "implicit"
    assert MCTaskSet([*implicit, MCTask.lo(1, 4, D=9)]).deadline_model == "arbitrary"
    batch = MCBatch.from_tasksets([implicit])
    assert batch.deadlines == "implicit"
    assert MCBatch.from_tasksets([implicit, EXAMPLE]).deadlines == "constrained"


def test_batch_layout():
    batch = MCBatch.from_tasksets([EXAMPLE, EXAMPLE[:1]])
    assert batch.C_lo.tolist() == [2, 1, 2, 2]
    assert batch.C_hi.tolist() == [2, 3, 4, 2]
    assert batch.T.tolist() == [10, 6, 12, 10]
    assert batch.D.tolist() == [10, 6, 10, 10]
    assert batch.level.tolist() == [0, 1, 1, 0] and batch.level.dtype == np.int8
    assert batch.task_offsets.tolist() == [0, 3, 4]
    assert (len(batch), batch.n_sets, batch.n_tasks) == (2, 2, 4)
    unnamed = MCTaskSet(t.replace(name=None) for t in EXAMPLE)
    assert batch.taskset(0) == batch[0] == batch[-2] == unnamed  # names are not kept
    assert batch.tasksets() == list(batch)
    with pytest.raises(IndexError):
        batch.taskset(2)
    assert "MCBatch(n_sets=2" in repr(batch)


@pytest.mark.parametrize(
    ("arrays", "message"),
    [
        pytest.param(([1], [1], [2], [2], [0], [0, 2]), "rise from 0 to 1", id="offsets-end"),
        pytest.param(([1], [1], [2], [2, 3], [0], [0, 1]), "one entry per task", id="shape"),
        pytest.param(([1, 1], [1, 1], [2, 2], [2, 2], [0, 0], [0, 0, 2]), "needs at least one task", id="empty-set"),
        pytest.param(([[1]], [1], [2], [2], [0], [0, 1]), "one-dimensional", id="ndim"),
    ],
)
def test_batch_shapes_refused(arrays, message):
    with pytest.raises(InputError, match=message):
        MCBatch(*arrays)


def test_batch_validates_tasks_with_location():
    with pytest.raises(TaskError, match="C_HI 1 < C_LO 2") as info:
        MCBatch([1, 2], [1, 1], [5, 5], [5, 5], [0, 1], [0, 1, 2])
    assert (info.value.set_index, info.value.task, info.value.field) == (1, 0, "C_HI")
    with pytest.raises(TaskError, match="LO task has no C_HI"):
        MCBatch([1], [2], [5], [5], [0], [0, 1])


# -- properties ---------------------------------------------------------------------------------


@given(rst.mc_tasksets(deadlines="arbitrary"))
def test_hash_equality_and_pickle(ts):
    clone = MCTaskSet([MCTask(t.wcets, t.T, t.D, t.criticality, t.name) for t in ts])
    assert clone == ts and hash(clone) == hash(ts)
    assert pickle.loads(pickle.dumps(ts)) == ts
    assert {ts: 1}[clone] == 1
    batch = MCBatch.from_tasksets([ts, ts])
    again = pickle.loads(pickle.dumps(batch))
    assert again == batch and again.tasksets() == [ts, ts]
    assert MCBatch(batch.C_lo, batch.C_hi, batch.T, batch.D, batch.level, batch.task_offsets) == batch


@given(rst.mc_tasksets(deadlines="arbitrary"))
def test_utilization_identities(ts):
    assert ts.U_LL == sum((Fraction(t.C_lo, t.T) for t in ts if not t.is_hi), Fraction(0))
    assert ts.U_HL == sum((Fraction(t.C_lo, t.T) for t in ts if t.is_hi), Fraction(0))
    assert ts.U_HH == sum((Fraction(t.C_hi, t.T) for t in ts if t.is_hi), Fraction(0))
    assert ts.U_HL <= ts.U_HH
    assert set(ts.lo_tasks()) | set(ts.hi_tasks()) == set(range(ts.n))
    assert not set(ts.lo_tasks()) & set(ts.hi_tasks())
    for t in ts:
        assert t.C_lo <= t.C_hi and len(t.wcets) == t.level + 1
        assert t.C("LO") == t.C_lo and t.C("HI") == t.C_hi


@given(rst.mc_tasksets(deadlines="constrained"))
def test_strategy_constrained_sets_fit(ts):
    assert ts.deadline_model in ("implicit", "constrained")
    assert all(t.C_hi <= t.D <= t.T for t in ts)


@given(rst.mc_tasksets(max_size=8, max_utilization=0.9), st.data())
def test_strategy_caps_utilization(ts, data):
    if any(t.C_hi > 1 for t in ts):
        # the cap holds, unless every WCET already is 1 tick
        assert max(ts.utilization_lo, ts.U_HH) <= Fraction(9, 10) or all(t.C_hi == 1 for t in ts)
    hi = data.draw(rst.mc_tasks(hi=True))
    assert hi.is_hi


def test_strategy_shrinks_to_one_small_lo_task():
    from hypothesis import find

    smallest = find(rst.mc_tasksets(), lambda ts: True)
    assert smallest == MCTaskSet([MCTask.lo(1, T=1)])
    hi = find(rst.mc_tasksets(), lambda ts: bool(ts.hi_tasks()))
    assert hi == MCTaskSet([MCTask.hi(1, 1, T=1)])


@given(rst.mc_tasks(deadlines="arbitrary", max_deadline_factor=2, min_period=3, max_period=9))
def test_strategy_arbitrary_deadlines(task):
    assert 3 <= task.T <= 9 and 1 <= task.D <= 2 * task.T
    assert task.C(task.level) <= min(task.D, task.T)
