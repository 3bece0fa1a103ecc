"""gedf-upper on arbitrary deadlines (D > T, issue #47); papers/gedf-upper.md, analyses/global_edf/gedf_upper.py.

Step 2 (``exact``) decides D > T sets with the pending-jobs game; step 3 simulates the synchronous
periodic release with several pending jobs per task: the reference's own queued event simulation
(``_simulate_queued``) against :func:`rtsched.sim.simulate` (the batch's), and against the
one-job simulation on constrained sets.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, event, given, settings
from hypothesis import strategies as st

from rtsched import analyses
from rtsched.analyses.global_edf import gedf_upper
from rtsched.model import TaskSet, TaskSetBatch
from rtsched.sim import simulate

UPPER = analyses.get("gedf-upper")
EXACT = analyses.get("exact")


@st.composite
def arbitrary_sets(draw: st.DrawFn, max_n: int = 5, max_period: int = 12) -> TaskSet:
    rows = []
    for _ in range(draw(st.integers(1, max_n))):
        t = draw(st.integers(1, max_period))
        c = draw(st.integers(1, t))
        rows.append((c, draw(st.integers(c, 3 * t)), t))
    ts = TaskSet.from_tasks(rows, deadlines="arbitrary")
    assume(not ts.is_constrained)
    return ts


def test_takes_arbitrary_deadlines():
    assert "arbitrary" in UPPER.deadlines and not UPPER.deadlines_note


@pytest.mark.parametrize(
    ("rows", "m", "expected", "first_miss"),
    [
        # one task (3, 4, 2) on two processors: n <= m keeps the exact test, which rejects (the
        # jobs released at 0, 2, 4 finish at 3, 6, 9; the third's deadline is 8)
        pytest.param([(3, 4, 2)], 2, False, None, id="exact-rejects-C>T"),
        # Π T = 2·10^6 > 2^14·m²: no exact test; the synchronous release decides. τ0 (300, 400, 200)
        # always has the earliest head deadline and runs without a break: its jobs finish at
        # 300, 600, 900; the third's deadline is 2·200 + 400 = 800: a miss at t = 800
        pytest.param([(300, 400, 200), (1, 1000, 100), (1, 1000, 100)], 2, False, 800, id="simulation-misses"),
        # the same with τ0 = (200, 400, 200): every job runs [200k, 200k + 200), no miss
        pytest.param([(200, 400, 200), (1, 1000, 100), (1, 1000, 100)], 2, True, None, id="simulation-passes"),
    ],
)
def test_worked_examples(rows, m, expected, first_miss):
    ts = TaskSet.from_tasks(rows, deadlines="arbitrary")
    assert UPPER.verdict(ts, m) is expected
    assert gedf_upper.reference(ts, m) is expected
    result = UPPER.explain(ts, m)
    assert result.verdict is expected
    if first_miss is not None:
        assert result.evidence["first_miss"] == first_miss
        miss = simulate(ts, m, horizon=gedf_upper.simulated_window(ts), record=False).miss
        assert miss is not None and miss.time == first_miss


@settings(max_examples=60, deadline=None)
@given(ts=arbitrary_sets(), m=st.integers(1, 3), h=st.integers(1, 60))
def test_queued_simulation_is_the_simulator(ts, m, h):
    mine = gedf_upper._simulate_queued(ts, m, h)
    miss = simulate(ts, m, horizon=h, record=False).miss
    event("miss" if mine is not None else "no miss")
    assert mine == (None if miss is None else miss.time)


@settings(max_examples=60, deadline=None)
@given(
    rows=st.lists(
        st.integers(1, 12).flatmap(
            lambda t: st.tuples(st.integers(1, t), st.just(t)).flatmap(
                lambda ct: st.tuples(st.just(ct[0]), st.integers(ct[0], ct[1]), st.just(ct[1]))
            )
        ),
        min_size=1,
        max_size=5,
    ),
    m=st.integers(1, 3),
    h=st.integers(1, 60),
)
def test_queued_simulation_is_the_one_job_simulation_on_constrained_sets(rows, m, h):
    ts = TaskSet.from_tasks(rows)
    assert gedf_upper._simulate_queued(ts, m, h) == gedf_upper._simulate_reference(ts, m, h)


@settings(max_examples=30, deadline=None)
@given(sets=st.lists(arbitrary_sets(), min_size=1, max_size=6), m=st.integers(1, 3))
def test_batch_codes_are_the_reference(sets, m):
    batch = TaskSetBatch.from_tasksets(sets, deadlines="arbitrary")
    codes = UPPER.status(batch, m)
    assert [bool(c == 1) for c in np.asarray(codes).tolist()] == [gedf_upper.reference(ts, m) for ts in sets]


@settings(max_examples=40, deadline=None)
@given(ts=arbitrary_sets(max_n=4, max_period=8), m=st.integers(1, 3))
def test_a_necessary_analysis(ts, m):
    """gedf-upper rejects ⇒ the exact test does not accept; the exact test accepts ⇒ not refuted."""
    upper = UPPER.verdict(ts, m)
    exact = EXACT.verdict(ts, m, 200_000)
    event(f"upper {upper}, exact {exact}")
    if upper is False:
        assert exact is not True
    if exact is True:
        assert upper is True
