"""Graham's bound (analyses/theory/graham.py): the worked example of papers/graham1969.md, the integer form, the Numba twins, and the simulator."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rtsched.analyses.theory.graham import (
    graham_bound,
    graham_bound_int,
    graham_bound_int_nb,
    response_bound_int,
    response_bound_int_nb,
)
from rtsched.dag import DAGTask, DAGTaskSet, simulate_dag
from rtsched.testing import strategies as rst

#: papers/graham1969.md, worked example: source 1, branches 3, 2, 4, sink 1 (vol 11, len 6).
FORK_JOIN = DAGTask([1, 3, 2, 4, 1], [(0, 1), (0, 2), (0, 3), (1, 4), (2, 4), (3, 4)], T=20, D=20)


@pytest.mark.parametrize(
    ("m", "exact", "integer", "simulated"),
    [
        pytest.param(1, Fraction(11), 11, 11, id="m1-volume"),
        pytest.param(2, Fraction(17, 2), 8, 8, id="m2-tight-in-integer-time"),
        pytest.param(3, Fraction(23, 3), 7, 6, id="m3"),
        pytest.param(4, Fraction(29, 4), 7, 6, id="m4"),
        pytest.param(8, Fraction(53, 8), 6, 6, id="m8-length"),
    ],
)
def test_worked_example(m, exact, integer, simulated):
    assert (FORK_JOIN.volume, FORK_JOIN.length) == (11, 6)
    assert graham_bound(11, 6, m) == exact
    assert graham_bound_int(11, 6, m) == integer
    assert graham_bound_int_nb(11, 6, m) == integer
    # index ties: on m = 2 the branches 3 and 2 start at 1, the branch 4 at 3 (when 2 completes),
    # so the sink runs in [7, 8): the integer bound 8 is reached (the Fraction 8.5 is not).
    assert simulate_dag(DAGTaskSet([FORK_JOIN]), m, horizon=20).response_times == (simulated,)


def test_interference_form():
    # 6 + ⌊(5 + 4)/2⌋ = 10: four ticks of other work add at most ⌊…⌋ two slots here
    assert response_bound_int(11, 6, 2, 4) == 10 == response_bound_int_nb(11, 6, 2, 4)
    assert response_bound_int(11, 6, 2, 0) == graham_bound_int(11, 6, 2)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        pytest.param((11, 6, 0), "at least one processor", id="m0"),
        pytest.param((5, 6, 2), "len ≤ vol", id="len-over-vol"),
        pytest.param((5, -1, 2), "len ≤ vol", id="negative-len"),
    ],
)
def test_bad_arguments(args, message):
    with pytest.raises(ValueError, match=message):
        graham_bound(*args)
    with pytest.raises(ValueError, match=message):
        graham_bound_int(*args)
    with pytest.raises(ValueError, match="interference"):
        response_bound_int(11, 6, 2, -1)


@given(
    length=st.integers(1, 2**31 - 1),
    extra=st.integers(0, 2**40),
    m=st.integers(1, 10**6),
    interference=st.integers(0, 2**50),
)
def test_integer_form_is_the_floor_and_the_twins_agree(length, extra, m, interference):
    vol = length + extra
    assert graham_bound_int(vol, length, m) == int(graham_bound(vol, length, m) // 1)
    assert graham_bound_int_nb(vol, length, m) == graham_bound_int(vol, length, m)
    r = response_bound_int(vol, length, m, interference)
    assert r == length + (Fraction(vol - length + interference, m)).__floor__()
    assert response_bound_int_nb(vol, length, m, interference) == r


@settings(max_examples=150, deadline=None)
@given(
    dag=rst.dag_tasks(max_vertices=7, max_wcet=6, deadlines="implicit"),
    m=st.integers(1, 4),
    policy=st.sampled_from(["gedf", "gfp"]),
    execution=st.sampled_from(["wcet", "random"]),
    arrivals=st.sampled_from(["periodic", "sporadic"]),
    seed=st.integers(0, 2**16),
)
def test_simulated_response_times_never_exceed_the_integer_bound(dag, m, policy, execution, arrivals, seed):
    """One DAG task alone, T = D = vol: each job runs alone (it ends within vol ≤ T), so (G-int) bounds it."""
    task = dag.replace(T=dag.volume, D=dag.volume)
    trace = simulate_dag(
        DAGTaskSet([task]), m, policy=policy, execution=execution, arrivals=arrivals, seed=seed, horizon=6 * task.T
    )  # fmt: skip
    assert trace.miss is None
    (worst,) = trace.response_times
    assert worst is not None
    assert worst <= graham_bound_int(task.volume, task.length, m) <= graham_bound(task.volume, task.length, m)
