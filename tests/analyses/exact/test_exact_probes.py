"""Tests of the random-walk probes of the exact tests' ``auto`` search (analyses/exact/_state_space.py).

Note: papers/exact-search.md, "Probes" (issue #45, item 2). The probes only ever add a REJECT
that comes with a path; these tests check that such a path is a real miss (replayed in the
simulator, legal for the sporadic model), that the verdicts are those of the search without
probes, that the probes are deterministic, and — counting states and ticks, not seconds — that
they decide the issue's examples within a small budget where the search alone does not.
"""

from __future__ import annotations

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from rtsched import analyses
from rtsched.analyses.exact import _state_space as engine
from rtsched.analyses.exact import exact_gedf, exact_gfp
from rtsched.kernels import ACCEPT, REJECT, UNKNOWN
from rtsched.model import TaskSet
from rtsched.sim import simulate
from rtsched.testing import strategies as rst

RULES = ["every", "index", "fp"]

#: Issue #45's example (m = 4): Burmyakov's C++ test says "not schedulable" after 1,211 stored
#: states; the search without probes stores 1,000,000 states (index ties) without an answer.
ISSUE_45_SET = [(20, 33, 42), (3, 3, 5), (11, 17, 18), (19, 25, 48), (10, 25, 30), (5, 5, 11), (1, 3, 3)]
#: benchmarks/bench_exact_vs_cpp.py grid (m = 2, n = 7, T <= 50, seed 15, set 6): the C++ test
#: refutes it after 86,855 stored states (2.4 s); the search alone has no answer within
#: 1,000,000 states; the probe at the pause at 131,072 states finds a miss.
PAUSE_SET = [(5, 8, 14), (1, 22, 24), (3, 15, 23), (2, 14, 27), (1, 31, 36), (15, 23, 43), (4, 4, 23)]


def search(ts: TaskSet, m: int, rule: str, budget: int, probes: bool = True) -> engine.Exploration:
    """The ``auto`` search (no shortcuts: U > m and n <= m are explored too)."""
    cap = engine.TRANSITIONS_PER_STATE * budget
    return engine.search(ts.C, ts.D, ts.T, m, rule, budget, cap, shortcuts=False, probes=probes)


def assert_replays(ts: TaskSet, m: int, result: engine.Exploration) -> None:
    """``result``'s path is legal (releases T apart, tie choices among tied jobs) and misses in the simulator."""
    assert result.releases is not None
    for i, times in enumerate(result.releases):
        assert all(b - a >= int(ts.T[i]) for a, b in zip(times, times[1:], strict=False))
    for t, winners, losers in result.tie_choices or ():
        assert winners and losers and not set(winners) & set(losers)
        deadlines = {max(r for r in result.releases[i] if r <= t) + int(ts.D[i]) for i in winners + losers}
        assert len(deadlines) == 1
    engine.replay(ts, m, result)  # raises if the sequence does not miss


@pytest.mark.parametrize(
    ("ties", "states", "ticks"),
    [
        pytest.param("index", 0, 20_000, id="index-ties-before-the-search"),
        pytest.param("every", 2048, 50_000, id="every-tie"),
    ],
)
def test_issue_45_example_decided_within_a_small_budget(ties, states, ticks):
    """The issue's set is refuted by a probe within 5,000 states (index ties: before the search
    stores any state; every tie rule: at the first pause), counting ticks; the search alone does not
    decide it within that budget under index ties. The path replays to a miss."""
    ts = TaskSet.from_tasks(ISSUE_45_SET)
    found = exact_gedf.explore(ts, 4, ties=ties, budget=5_000)
    assert (found.code, found.reason) == (REJECT, "probe")
    assert found.states <= states and found.probed <= ticks
    assert_replays(ts, 4, found)
    if ties == "index":
        assert search(ts, 4, ties, 5_000, probes=False).code == UNKNOWN
    result = analyses.get("exact" if ties == "every" else "exact:index").explain(ts, 4, 5_000)
    assert result.verdict is False
    trace = simulate(
        ts,
        4,
        releases=[list(r) for r in result.evidence["releases"]],
        tie_choices=result.evidence["tie_choices"],
        ties="index",
    )
    assert (trace.miss.time, trace.miss.task) == (result.evidence["miss_time"], result.evidence["miss_task"])
    assert any("probes" in step.text for step in result.steps)


def test_probe_at_a_pause_decides_what_the_search_alone_does_not():
    """A set where no walk before the search misses: the probe at a pause (131,072 stored states)
    does, within 200,000 states; without probes the search runs out of that budget."""
    ts = TaskSet.from_tasks(PAUSE_SET)
    found = search(ts, 2, "index", 200_000)
    assert (found.code, found.reason) == (REJECT, "probe")
    assert found.states == 131_072
    assert_replays(ts, 2, found)
    assert search(ts, 2, "index", 200_000, probes=False).code == UNKNOWN


def test_exact_gfp_probe_counterexample_replays():
    """exact-gfp (deadline-monotonic order of the issue's set): a probe's path replays under G-FP."""
    rows = sorted(ISSUE_45_SET, key=lambda row: row[1])
    ts = TaskSet.from_tasks(rows)
    found = exact_gfp.explore(ts, 4, budget=5_000)
    assert (found.code, found.reason, found.tie_choices) == (REJECT, "probe", ())
    assert simulate(ts, 4, policy="gfp", releases=found.releases).miss is not None
    assert search(ts, 4, "fp", 5_000, probes=False).code == REJECT  # the verdict of the search alone


def test_probes_are_deterministic():
    ts = TaskSet.from_tasks(PAUSE_SET)
    assert search(ts, 2, "index", 140_000) == search(ts, 2, "index", 140_000)


@settings(max_examples=150, deadline=None)
@given(ts=rst.tasksets(min_size=2, max_size=6, max_period=10), m=st.integers(1, 3), rule=st.sampled_from(RULES))
def test_probes_keep_the_verdict_and_their_misses_replay(ts, m, rule):
    """With or without probes the decided verdict is the same; a probe's miss replays in the
    simulator; a set without a reachable miss never gets one from a probe."""
    with_probes = search(ts, m, rule, 200_000)
    without = search(ts, m, rule, 200_000, probes=False)
    event(f"reason {with_probes.reason}")
    if UNKNOWN not in (with_probes.code, without.code):
        assert with_probes.code == without.code
    if with_probes.code == REJECT and with_probes.releases is not None:
        assert_replays(ts, m, with_probes)
    if without.code == ACCEPT:
        assert with_probes.code == ACCEPT and with_probes.reason == "explored"


@settings(max_examples=60, deadline=None)
@given(ts=rst.tasksets(min_size=2, max_size=5, max_period=8), m=st.integers(1, 3), rule=st.sampled_from(RULES))
def test_walks_alone_never_miss_on_a_schedulable_set(ts, m, rule):
    """The probe kernel on its own, many walks: on a set the search proves schedulable no walk
    reaches a doomed job; any walk that does is a real miss (replayed)."""
    exhaustive = search(ts, m, rule, 200_000, probes=False)
    walks = engine._Walks(ts.C, ts.D, ts.T, m, rule)
    hit = walks.run(20_000)
    assert walks.used >= (1 if hit else 20_000)
    if exhaustive.code == ACCEPT:
        assert not hit
    if hit:
        assert exhaustive.code != ACCEPT
        assert_replays(ts, m, walks.found(0, 0))


def test_probe_ticks_stay_a_bounded_share():
    """The ticks of all probes of a search that stores S states and examines X transitions are at
    most PROBE_FIRST_TICKS per round plus X / PROBE_TRANSITIONS_PER_TICK per pause (one pause per
    PROBE_PAUSE_GROWTH-fold of the states); a walk is not cut, so a round may run over by one walk."""
    ts = TaskSet.from_tasks([(1, 4, 9), (1, 4, 20), (4, 12, 14), (1, 3, 20), (1, 7, 16), (2, 7, 13), (1, 8, 8)])
    result = search(ts, 2, "index", 300_000)
    assert result.code == ACCEPT and result.states > engine.PROBE_FIRST_PAUSE  # probes ran, found nothing
    pauses = 0
    at = engine.PROBE_FIRST_PAUSE
    while at <= result.states:
        pauses += 1
        at *= engine.PROBE_PAUSE_GROWTH
    horizon = engine.PROBE_HORIZON * (int(ts.T.max()) + int(ts.D.max()))
    bound = (pauses + 1) * (engine.PROBE_FIRST_TICKS + horizon) + pauses * (
        result.transitions // engine.PROBE_TRANSITIONS_PER_TICK
    )
    assert engine.PROBE_FIRST_TICKS * (pauses + 1) <= result.probed <= bound
