"""Tests of the exact G-EDF test (analyses/exact_gedf.py; papers/baker-cirinei2007.md).

The pure-Python BFS ``reference`` is the independent brute force: it walks explicit
(remaining, time-to-deadline, time-to-release) triples with no pruning, while the kernel uses
the (rct, nat) encoding with antichain pruning and stops at doomed jobs.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rtsched import analyses
from rtsched.analyses import exact_gedf
from rtsched.kernels import ACCEPT, REJECT, UNKNOWN
from rtsched.model import TaskSet, TaskSetBatch
from rtsched.sim import simulate
from rtsched.testing import strategies as rst

VERDICT = {int(ACCEPT): True, int(REJECT): False, int(UNKNOWN): "unknown"}


def kernel_verdict(ts, m, **kw):
    return VERDICT[exact_gedf.explore(ts, m, shortcuts=False, **kw).code]


def uniprocessor_edf_exact(ts: TaskSet) -> bool:
    """Tiny brute-force processor-demand check: dbf(t) <= t for every t up to H + max D."""
    if ts.utilization > 1:
        return False
    rows = ts.rows()
    horizon = math.lcm(*(t for _, _, t in rows)) + max(d for _, d, _ in rows)
    for t in range(1, horizon + 1):
        demand = sum(max(0, (t - d) // p + 1) * c for c, d, p in rows)
        if demand > t:
            return False
    return True


# -- worked cases ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("rows", "m", "expected"),
    [
        pytest.param([(2, 6, 6), (2, 6, 6), (6, 7, 7)], 2, False, id="dhall-effect-m2"),
        pytest.param([(2, 6, 6), (2, 6, 6), (2, 6, 6), (6, 7, 7)], 3, False, id="dhall-effect-m3"),
        pytest.param([(1, 5, 5), (1, 5, 5), (1, 5, 5), (5, 6, 6)], 3, True, id="dhall-shape-but-heavy-fits"),
        pytest.param([(1, 2, 2), (1, 2, 2), (1, 2, 2)], 2, True, id="three-halves-on-two"),
        pytest.param([(1, 3, 3), (2, 4, 4), (3, 5, 5)], 2, True, id="note-example-schedulable"),
        pytest.param([(2, 3, 3), (2, 3, 3), (2, 3, 3)], 2, False, id="u-above-m"),
        pytest.param([(3, 4, 4), (3, 4, 4)], 2, True, id="n-le-m"),
    ],
)
def test_worked_cases(rows, m, expected):
    ts = TaskSet.from_tasks(rows)
    assert exact_gedf.explain(ts, m).verdict is expected
    assert exact_gedf.reference(ts, m) is expected
    assert kernel_verdict(ts, m) is expected


def test_registered():
    entry = analyses.get("exact")
    assert (entry.kind, entry.policy, entry.platform, entry.featured) == ("exact", "global-edf", "identical", True)
    assert entry.status is not None
    batch = TaskSetBatch.from_tasksets([TaskSet.from_tasks([(2, 6, 6), (2, 6, 6), (6, 7, 7)]), TaskSet.from_tasks([(1, 2, 2)])])
    assert entry.decide(batch, 2).tolist() == [0, 1]
    assert entry.batch(batch, 2).tolist() == [False, True]


def test_tie_rule_matters():
    """The verdict depends on the task order (ties go to the lowest index), as papers/simulator.md says.

    Ordered so, the heavy task τ0 = (2, 2, 3) wins every tie and meets its deadlines; reversed,
    it loses ties against the two lighter tasks with the same relative deadline and misses.
    """
    rows = [(2, 2, 3), (1, 2, 5), (1, 2, 2)]
    forward, backward = TaskSet.from_tasks(rows), TaskSet.from_tasks(rows[::-1])
    assert exact_gedf.reference(forward, 2) is True and kernel_verdict(forward, 2) is True
    assert exact_gedf.reference(backward, 2) is False and kernel_verdict(backward, 2) is False


# -- kernel == reference (the independent brute force) -----------------------------------------
@settings(max_examples=1000)
@given(ts=rst.tasksets(max_size=3, max_period=5), m=st.integers(1, 2))
def test_kernel_equals_reference_small(ts, m):
    assert kernel_verdict(ts, m) == exact_gedf.reference(ts, m)


@pytest.mark.slow
@settings(max_examples=5000)
@given(ts=rst.tasksets(max_size=4, max_period=6), m=st.integers(1, 3))
def test_kernel_equals_reference_long(ts, m):
    assert kernel_verdict(ts, m) == exact_gedf.reference(ts, m, max_states=400_000)


def test_kernel_equals_reference_exhaustive_pairs():
    """Every set of two tasks with periods <= 4, on m = 1 (all 400 sets: exhaustive)."""
    tasks = [(c, d, t) for t in range(1, 5) for c in range(1, t + 1) for d in range(c, t + 1)]
    count = 0
    for a, b in itertools.product(tasks, repeat=2):
        ts = TaskSet.from_tasks([a, b])
        assert kernel_verdict(ts, 1) == exact_gedf.reference(ts, 1), ts
        count += 1
    assert count == len(tasks) ** 2


@settings(max_examples=60)
@given(ts=rst.tasksets(min_size=3, max_size=4, max_period=6), m=st.integers(2, 3))
def test_kernel_equals_reference_boundary_utilization(ts, m):
    """Sets pushed to U close to m (the boundary where verdicts flip)."""
    rows = ts.rows()
    # raise C toward D while U stays <= m: sits at the edge of the necessary condition
    for i in range(len(rows)):
        c, d, t = rows[i]
        while c < d and sum(Fraction(x[0], x[2]) for x in rows) + Fraction(1, t) <= m:
            c += 1
            rows[i] = (c, d, t)
    ts = TaskSet.from_tasks(rows)
    assert kernel_verdict(ts, m, max_states=200_000) == exact_gedf.reference(ts, m)


# -- sanity anchors ----------------------------------------------------------------------------
@settings(max_examples=150)
@given(ts=rst.tasksets(max_size=4, max_period=8))
def test_m1_equals_uniprocessor_edf(ts):
    expected = uniprocessor_edf_exact(ts)
    assert exact_gedf.explain(ts, 1).verdict is expected
    if "uni-qpa" in analyses.names():
        assert analyses.get("uni-qpa").explain(ts, 1).verdict is expected


@pytest.mark.parametrize("m", [2, 3, 4])
def test_dhall_effect_rejected(m):
    """m light tasks (C=2, D=T=k) and one heavy task (C=k, D=T=k+1): U < 2 on m processors, rejected."""
    k = 2 * m + 2
    ts = TaskSet.from_tasks([(2, k, k)] * m + [(k, k + 1, k + 1)])
    assert ts.utilization < 2
    result = exact_gedf.explain(ts, m)
    assert result.verdict is False
    assert simulate(ts, m).miss is not None


def test_monotone_in_m():
    ts = TaskSet.from_tasks([(2, 6, 6), (2, 6, 6), (6, 7, 7)])
    assert exact_gedf.explain(ts, 2).verdict is False
    assert exact_gedf.explain(ts, 3).verdict is True


# -- counterexamples replay in the simulator ---------------------------------------------------
@settings(max_examples=150)
@given(ts=rst.tasksets(min_size=2, max_size=5, max_period=8), m=st.integers(1, 3))
def test_counterexample_replays_to_the_same_miss(ts, m):
    result = exact_gedf.explain(ts, m, max_states=100_000)
    if result.verdict is not False or "releases" not in result.evidence:
        return
    releases = [list(r) for r in result.evidence["releases"]]
    trace = simulate(ts, m, releases=releases)
    assert trace.miss is not None
    assert (trace.miss.time, trace.miss.task) == (result.evidence["miss_time"], result.evidence["miss_task"])
    # the sequence is legal for the sporadic model
    for i, times in enumerate(releases):
        assert all(b - a >= int(ts.T[i]) for a, b in zip(times, times[1:], strict=False))


def test_explain_gives_sequence_even_when_u_above_m():
    ts = TaskSet.from_tasks([(2, 3, 3), (2, 3, 3), (2, 3, 3)])
    result = exact_gedf.explain(ts, 2)
    assert result.verdict is False and "releases" in result.evidence
    assert simulate(ts, 2, releases=result.evidence["releases"]).miss is not None


# -- budgets -----------------------------------------------------------------------------------
def test_budget_gives_unknown_never_false():
    ts = TaskSet.from_tasks([(3, 9, 10), (4, 11, 12), (2, 13, 13), (5, 14, 15), (1, 7, 9)])
    small = exact_gedf.explore(ts, 2, max_states=50)
    assert small.code == UNKNOWN and small.reason == "budget"
    result = exact_gedf.explain(ts, 2, max_states=50)
    assert result.verdict == "unknown" and "budget" in result.summary
    assert exact_gedf.explore(ts, 2, max_transitions=10).code == UNKNOWN
    assert exact_gedf.exact_status(TaskSetBatch.from_tasksets([ts]), 2, max_states=50).tolist() == [-1]
    assert exact_gedf.reference(ts, 2, max_states=50) == "unknown"


def test_pruning_reduces_states():
    """The antichain never stores more states than the plain BFS visits (often far fewer)."""
    ts = TaskSet.from_tasks([(1, 4, 4), (2, 5, 5), (2, 6, 6), (3, 7, 7)])
    pruned = exact_gedf.explore(ts, 2, shortcuts=False)
    assert pruned.code == ACCEPT
    assert exact_gedf.reference(ts, 2) is True
    # count the plain BFS's states through its budget: it needs more than the pruned search
    assert exact_gedf.reference(ts, 2, max_states=pruned.states) == "unknown"


def test_inputs_untouched():
    ts = TaskSet.from_tasks([(1, 3, 3), (2, 4, 4), (3, 5, 5)])
    before = (ts.C.copy(), ts.D.copy(), ts.T.copy())
    exact_gedf.explain(ts, 2)
    assert all(np.array_equal(a, b) for a, b in zip(before, (ts.C, ts.D, ts.T), strict=True))


def test_antichain_worked_example():
    """papers/geeraerts2013-antichains.md: one task (1, 2, 2) on m = 1, state S1 pruned by S0."""
    ts = TaskSet.from_tasks([(1, 2, 2)])
    pruned = exact_gedf.explore(ts, 1, shortcuts=False)
    assert (pruned.code, pruned.states) == (ACCEPT, 1)
    assert exact_gedf.reference(ts, 1, max_states=1) == "unknown"  # the plain BFS needs 2 states
    assert exact_gedf.reference(ts, 1, max_states=2) is True


def test_worked_example_two_unit_tasks_on_one_processor():
    """papers/baker-cirinei2007.md: (1, 1, 2) twice on m = 1 fails after one step."""
    ts = TaskSet.from_tasks([(1, 1, 2), (1, 1, 2)])
    result = exact_gedf.explain(ts, 1)
    assert result.verdict is False
    assert result.evidence["releases"] == ((0,), (0,))
    assert (result.evidence["miss_time"], result.evidence["miss_task"]) == (1, 1)
