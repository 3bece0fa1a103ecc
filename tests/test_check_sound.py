"""Tests of rtsched.testing.soundness.check_sound: it finds a planted bug and passes GFB.

The oracle is the exact test under every tie-breaking rule (papers/gedf-ties.md): a test that is
sound only for lowest-index ties is unsound.
"""

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
    replay = simulate(found.taskset, found.m, releases=found.releases, ties=found.ties, tie_choices=found.tie_choices)
    assert replay.miss == found.miss
    assert found.replay().miss == found.miss
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


def test_refute_judges_against_every_tie_rule():
    """papers/gedf-ties.md: schedulable with lowest-index ties, not if τ1 and τ2 win the tie at t = 0."""
    smallest = TaskSet.from_tasks([(2, 2, 2), (1, 2, 2), (1, 2, 2)])
    found = refute(smallest, 2)
    assert found is not None and found.oracle == "exact"
    assert found.releases == ((0,), (0,), (0,)) and found.tie_choices == ((0, (1, 2)),)
    assert found.replay().miss == found.miss and found.miss.task == 0
    assert "t=0: τ1, τ2 win" in str(found)
    # only lowest-index ties: no miss on the same releases
    assert simulate(smallest, 2, releases=found.releases).miss is None


def test_refute_falls_back_to_simulated_tie_rules(monkeypatch):
    """When the exact test cannot decide, the simulator's seeded random ties find the miss.

    The exact test's probes (papers/exact-search.md, "Probes") refute this set even on a budget of
    one state, so the exact test is made to answer "unknown" here to reach the fallback.
    """
    from types import SimpleNamespace

    from rtsched import registry

    smallest = TaskSet.from_tasks([(2, 2, 2), (1, 2, 2), (1, 2, 2)])
    found = refute(smallest, 2, budget=1)
    assert found is not None and found.oracle == "exact" and found.replay().miss == found.miss  # a probe's path

    real_get = registry.get
    undecided = SimpleNamespace(explain=lambda taskset, m, budget=None: SimpleNamespace(verdict=None, evidence={}))
    monkeypatch.setattr(registry, "get", lambda name: undecided if name == "exact" else real_get(name))
    found = refute(smallest, 2, budget=1)
    assert found is not None and found.oracle == "simulation" and found.ties.startswith("random:")
    assert found.replay().miss == found.miss


def test_index_only_test_is_caught():
    """A 'test' that is exactly the lowest-index exact test is unsound for G-EDF in general."""
    index = analyses.get("exact:index")
    found = check_sound(
        lambda ts, m: index.explain(ts, m).verdict is True,
        processors=(2,),
        max_examples=300,
        seed=0,
        max_tasks=4,
        max_period=4,
    )
    assert found is not None and found.oracle == "exact" and found.tie_choices
    assert found.taskset.n == 3 and max(found.taskset.T) == 2  # shrunk to a smallest such set
    assert index.explain(found.taskset, found.m).verdict is True
    assert found.replay().miss is not None


def test_rejects_empty_processor_list():
    with pytest.raises(ValueError, match="processors"):
        check_sound(u_at_most_m, processors=())
