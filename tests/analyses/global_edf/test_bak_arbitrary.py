"""BAK and arbitrary deadlines (D > T): refused, with the reason (papers/baker2003.md, "Arbitrary deadlines").

Baker's journal version (IEEE TPDS 16(8), 2005) is said to treat D > T, but its equations could not
be checked against the paper's text, so rtsched does not implement them from memory. These tests
hold 1) the refusal and its reason in the registry (``supports``, ``status``, ``verdict``) and in
the module's exact layers, and 2) why a refusal is needed rather than the constrained formula:
with T_i − D_i < 0 it accepts sets that miss in simulation, even sets with U > m.
"""

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rtsched import TaskSet, TaskSetBatch, analyses
from rtsched.analyses.global_edf import bak
from rtsched.errors import InputError
from rtsched.sim.run import simulate
from rtsched.testing import strategies as rst

BAK = analyses.get("bak")


def arbitrary(tasks):
    return TaskSet.from_tasks(tasks, deadlines="arbitrary")


def test_registry_refuses_arbitrary_and_names_the_reason():
    assert "arbitrary" not in BAK.deadlines
    assert BAK.to_dict()["deadlines"] == ["implicit", "constrained"]
    assert BAK.supports(2, "arbitrary") == bak.ARBITRARY_WHY
    assert "could not be verified" in bak.ARBITRARY_WHY
    assert BAK.supports(2, "constrained") is None
    assert BAK.supports(2, "implicit") is None
    ts = arbitrary([(1, 3, 2), (1, 4, 4)])
    assert BAK.supports(2, ts) == bak.ARBITRARY_WHY
    with pytest.raises(InputError, match="could not be verified"):
        BAK.status(TaskSetBatch.from_tasksets([ts]), 2)
    with pytest.raises(InputError, match="could not be verified"):
        BAK.verdict(ts, 2)


def test_module_layers_refuse_arbitrary_naming_the_task():
    ts = arbitrary([(1, 2, 2), (1, 5, 4)])
    for layer in (bak.reference, bak.explain):
        with pytest.raises(InputError, match="could not be verified") as info:
            layer(ts, 2)
        assert info.value.field == "deadlines"
        assert info.value.task == ts.label(1)
        assert "D = 5 > T = 4" in str(info.value)


@settings(max_examples=60, deadline=None)
@given(ts=rst.tasksets(max_size=5, max_period=20, deadlines="arbitrary"), m=st.integers(1, 4))
def test_refused_exactly_when_some_deadline_exceeds_its_period(ts, m):
    # Sets drawn with D up to beyond T: refused (everywhere, with the reason) iff some D_i > T_i;
    # otherwise the registry's verdict is the reference's, as for any constrained set.
    beyond = bool((ts.D > ts.T).any())
    assert (BAK.supports(m, ts) == bak.ARBITRARY_WHY) is beyond
    if beyond:
        with pytest.raises(InputError, match="could not be verified"):
            bak.reference(ts, m)
        with pytest.raises(InputError, match="could not be verified"):
            BAK.status(TaskSetBatch.from_tasksets([ts]), m)
    else:
        assert BAK.supports(m, ts) is None
        assert BAK.verdict(ts, m) == bak.reference(ts, m)


def test_constrained_sets_are_still_decided():
    # The refusal concerns D > T only: the worked example of papers/baker2003.md is unchanged.
    ts = TaskSet.from_tasks([(2, 3, 3), (1, 3, 3)])
    assert bak.reference(ts, 1) is False
    assert BAK.verdict(ts, 1) is False
    assert BAK.verdict(TaskSet.from_tasks([(1, 2, 2), (2, 4, 4)]), 1) is True


def constrained_formula_accepts(ts, m):
    """(BAK) evaluated with the constrained-deadline β_k(i) as if it applied to D > T (it does not)."""
    return all(bak.task_condition(ts, k, m)[0] for k in range(ts.n))


@pytest.mark.parametrize(
    ("tasks", "m", "utilization"),
    [
        # By hand (papers/baker2003.md): k = 0: λ = 1/3, β(0) = 1/3 + 2/9 = 5/9, β(1) = 11/36,
        # Σ = 31/36 ≤ 1; k = 1: λ = 1/4, β(0) = 1·(1 − 2) + 3/4 = −1/4, β(1) = 1/4 + 1/16 = 5/16,
        # Σ = 1/16 ≤ 1. Accepted, although U = 4/3 > m = 1.
        pytest.param([(4, 12, 4), (1, 4, 3)], 1, Fraction(4, 3), id="u-4/3-on-one-processor"),
        pytest.param([(3, 7, 8), (6, 15, 8)], 1, Fraction(9, 8), id="u-9/8-on-one-processor"),
        pytest.param([(2, 13, 7), (6, 18, 6), (6, 17, 7)], 2, Fraction(2, 7) + 1 + Fraction(6, 7), id="u-15/7-m2"),
    ],
)
def test_constrained_formula_is_unsound_for_arbitrary_deadlines(tasks, m, utilization):
    ts = arbitrary(tasks)
    assert ts.utilization == utilization > m
    assert constrained_formula_accepts(ts, m)
    trace = simulate(ts, m, policy="gedf", arrivals="periodic", record=False)
    assert trace.miss is not None
    with pytest.raises(InputError, match="could not be verified"):
        BAK.verdict(ts, m)


def test_worked_counterexample_terms():
    ts = arbitrary([(4, 12, 4), (1, 4, 3)])
    assert bak.beta(ts, 0, 0) == Fraction(5, 9)
    assert bak.beta(ts, 0, 1) == Fraction(11, 36)
    assert bak.beta(ts, 1, 0) == Fraction(-1, 4)
    assert bak.beta(ts, 1, 1) == Fraction(5, 16)
    assert bak.task_condition(ts, 0, 1)[1:] == (Fraction(31, 36), Fraction(1))
    assert bak.task_condition(ts, 1, 1)[1:] == (Fraction(1, 16), Fraction(1))
