"""Tests of rtsched.testing.soundness.check_sound: it finds a planted bug and passes GFB."""

from __future__ import annotations

import pytest

from rtsched import analyses
from rtsched.model import TaskSet
from rtsched.sim import simulate
from rtsched.testing.soundness import Counterexample, check_sound, refute


def u_at_most_m(taskset: TaskSet, m: int) -> bool:
    """The planted bug: 'U <= m is enough' (false for global EDF, and for D < T even on m = 1)."""
    return taskset.utilization <= m


def test_finds_the_planted_bug_and_shrinks_it():
    found = check_sound(u_at_most_m, max_examples=150, seed=0)
    assert isinstance(found, Counterexample)
    assert u_at_most_m(found.taskset, found.m)
    assert found.taskset.n <= 3  # shrunk
    replay = simulate(found.taskset, found.m, releases=found.releases)
    assert replay.miss == found.miss
    assert "misses its deadline" in str(found)


def test_finds_dhall_bug_with_implicit_deadlines_on_two_processors():
    """Only m = 2 and the bug needs Dhall's effect there (U <= m with D = T)."""

    def u_bound_implicit(taskset: TaskSet, m: int) -> bool:
        return taskset.is_implicit and taskset.utilization <= m

    found = check_sound(u_bound_implicit, processors=(2,), max_examples=300, seed=1)
    assert found is not None and found.m == 2 and found.taskset.is_implicit


def test_gfb_is_sound():
    gfb = analyses.get("gfb")
    assert check_sound(lambda ts, m: gfb.explain(ts, m).verdict is True, max_examples=100) is None


def test_reproducible():
    a = check_sound(u_at_most_m, max_examples=60, seed=3)
    b = check_sound(u_at_most_m, max_examples=60, seed=3)
    assert a == b


def test_refute_uses_exact_then_simulation():
    dhall = TaskSet.from_tasks([(2, 6, 6), (2, 6, 6), (6, 7, 7)])
    found = refute(dhall, 2)
    assert found is not None and found.oracle == "exact"
    assert refute(TaskSet.from_tasks([(1, 2, 2), (1, 2, 2), (1, 2, 2)]), 2) is None


def test_rejects_empty_processor_list():
    with pytest.raises(ValueError, match="processors"):
        check_sound(u_at_most_m, processors=())
