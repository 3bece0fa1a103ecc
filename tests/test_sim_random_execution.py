"""``simulate(..., execution="random")`` and the kernels' PCG64 streams (issues #47, #45 item 4).

* the kernels' generator (:func:`rtsched.sim.engine.pcg64_double`) gives NumPy's PCG64 doubles;
* each job's demand lies in ``[1, C]``, one draw per release in release order, from a stream
  independent of the arrivals: the same demands with and without a trace, under every policy,
  and in ``after_miss="continue"`` runs; a recorded run's executed ticks equal its demands;
* random execution never changes the arrivals, the WCET runs are unchanged (``execution="wcet"``).
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from rtsched.errors import InputError
from rtsched.model import TaskSet
from rtsched.sim import simulate
from rtsched.sim.engine import pcg64_double
from rtsched.sim.run import EXECUTION_STREAM, pcg64_state, random_execution_horizon, run_rngs
from rtsched.testing import strategies as rst

pytestmark = pytest.mark.usefixtures("one_numba_thread")  # tests/conftest.py

FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
DHALL = TaskSet.from_tasks([(1, 9, 9), (1, 9, 9), (10, 10, 10)])


# -- the generator ------------------------------------------------------------------------------
@FAST
@given(seed=st.integers(0, 2**64 - 1), spawn=st.lists(st.integers(0, 2**32), max_size=2))
def test_pcg64_equals_numpy(seed, spawn):
    seed_seq = np.random.SeedSequence(seed, spawn_key=tuple(spawn))
    ours = pcg64_state(seed_seq)
    theirs = np.random.default_rng(seed_seq)
    assert [pcg64_double(ours) for _ in range(300)] == theirs.random(300).tolist()
    # the execution stream is run_rngs' second generator (the DAG/MC/segmented simulators' rule)
    ours = pcg64_state(seed_seq, EXECUTION_STREAM)
    theirs = run_rngs(seed_seq, EXECUTION_STREAM)[1]
    assert [pcg64_double(ours) for _ in range(50)] == theirs.random(50).tolist()


def test_pcg64_state_is_fresh_and_cached_alike():
    a = pcg64_state(np.random.SeedSequence(7))
    pcg64_double(a)
    b = pcg64_state(np.random.SeedSequence(7))  # the cache hands out a new array each time
    assert not np.array_equal(a, b)
    assert pcg64_double(b) == np.random.default_rng(7).random()
    pooled = np.random.SeedSequence(7, pool_size=8)  # not cached, still NumPy's stream
    assert pcg64_double(pcg64_state(pooled)) == np.random.default_rng(pooled).random()


# -- demands -----------------------------------------------------------------------------------
def test_demands_by_hand():
    """Dhall's set, seed 1: the demands are 1 + floor(u·C) for the execution stream's doubles u."""
    trace = simulate(DHALL, 2, execution="random", seed=1, horizon=40)
    u = run_rngs(1, EXECUTION_STREAM)[1].random(trace.jobs)
    C = [int(DHALL.C[i]) for i in trace.releases[:, 0]]
    assert trace.demands is not None
    assert trace.demands.tolist() == [1 + int(x * c) for x, c in zip(u, C, strict=True)]
    assert trace.execution == "random" and "random execution" in trace.summary()
    assert trace.to_dict()["demands"] == trace.demands.tolist() and trace.to_dict()["execution"] == "random"


def test_wcet_runs_carry_no_demands():
    trace = simulate(DHALL, 2)
    assert trace.execution == "wcet" and trace.demands is None
    assert "execution" not in trace.to_dict() and "demands" not in trace.to_dict()
    assert "execution" not in trace.summary()


def test_demands_are_uniform_on_1_to_c():
    ts = TaskSet.from_tasks([(3, 4, 4), (5, 9, 9)])
    trace = simulate(ts, 2, execution="random", seed=3, horizon=40_000)
    assert trace.demands is not None
    for i, c in enumerate((3, 5)):
        drawn = Counter(trace.demands[trace.releases[:, 0] == i].tolist())
        assert sorted(drawn) == list(range(1, c + 1))
        share = [drawn[v] / sum(drawn.values()) for v in range(1, c + 1)]
        assert max(share) - min(share) < 0.05, share


def test_dhall_misses_exactly_when_the_heavy_job_needs_all_of_c():
    """Dhall's set on m = 2: the light jobs (C = 1) run in [0, 1), the heavy one from 1; it
    misses its deadline 10 exactly when its drawn demand is C = 10."""
    assert simulate(DHALL, 2).miss is not None
    outcomes = set()
    for seed in range(60):
        trace = simulate(DHALL, 2, execution="random", seed=seed, horizon=10)
        assert trace.demands is not None
        heavy = int(trace.demands[(trace.releases[:, 0] == 2) & (trace.releases[:, 1] == 0)][0])
        assert (trace.miss is not None) == (heavy == 10), (seed, heavy, trace)
        outcomes.add(trace.miss is None)
    assert outcomes == {True, False}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    ts=rst.tasksets(max_size=5, max_period=12, deadlines="arbitrary"),
    m=st.integers(1, 3),
    seed=st.integers(0, 2**16),
    arrivals=st.sampled_from(["periodic", "sporadic"]),
    policy=st.sampled_from(["gedf", "gfp", "pedf", "pfp"]),
    data=st.data(),
)
def test_the_same_run_with_and_without_a_trace(ts, m, seed, arrivals, policy, data):
    kw: dict = {"policy": policy, "arrivals": arrivals, "seed": seed, "execution": "random", "horizon": 300}
    if policy in ("pedf", "pfp"):
        kw["partition"] = data.draw(st.lists(st.integers(0, m - 1), min_size=ts.n, max_size=ts.n))
    fast = simulate(ts, m, record=False, **kw)
    full = simulate(ts, m, **kw)
    assert (fast.jobs, fast.end_time, fast.repeats_at) == (full.jobs, full.end_time, full.repeats_at)
    assert (fast.miss is None) == (full.miss is None)
    if full.miss is not None:
        assert (fast.miss.time, fast.miss.task) == (full.miss.time, full.miss.task)
        assert (
            0
            < full.miss.remaining
            <= int(full.demands[(full.releases[:, 0] == full.miss.task) & (full.releases[:, 1] == full.miss.job)][0])
        )
    demands = full.demands
    assert demands is not None and demands.shape == (full.releases.shape[0],)
    assert np.all(demands >= 1) and np.all(demands <= ts.C[full.releases[:, 0]])
    # every job that completed executed exactly its demand
    for (task, job, _r, _d), c in zip(full.releases.tolist(), demands.tolist(), strict=True):
        done = full.executed(task, job)
        assert done <= c
        if full.miss is None and _d <= full.end_time:
            assert done == c
    # the arrivals do not depend on the execution model (releases before both runs ended)
    wcet = simulate(ts, m, **{**kw, "execution": "wcet"})
    cut = min(wcet.end_time, full.end_time)
    mine = [(task, r) for task, _j, r, _d in full.releases.tolist() if r < cut]
    assert mine == [(task, r) for task, _j, r, _d in wcet.releases.tolist() if r < cut]
    # one draw per release in release order: the same releases replayed give the same demands
    replay = simulate(
        ts, m, **{**kw, "arrivals": "explicit", "horizon": full.end_time + 1}, releases=full.release_times()
    )
    assert replay.demands is not None
    k = min(replay.demands.shape[0], demands.shape[0])
    assert replay.demands[:k].tolist() == demands[:k].tolist()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    ts=rst.tasksets(max_size=5, max_period=12, deadlines="arbitrary"),
    m=st.integers(1, 3),
    seed=st.integers(0, 2**16),
    policy=st.sampled_from(["gedf", "gfp"]),
    ties=st.sampled_from(["index", "fifo"]),
)
@example(
    ts=TaskSet.from_tasks([(2, 5, 2), (1, 5, 4), (2, 6, 2), (3, 8, 4), (2, 6, 2)], deadlines="arbitrary"),
    m=3,
    seed=294,
    policy="gedf",
    ties="index",
)  # the stopping run ends at 200; the tardiness path finds τ0's job 98 (deadline 201) late
def test_after_miss_continue_draws_the_same_demands(ts, m, seed, policy, ties):
    """The tardiness path: same demands for the same releases, same first miss on periodic arrivals.

    A run that stops at the first miss ends at the horizon, so it sees the misses at deadlines up
    to it; the tardiness path runs every job released before the horizon to completion and also
    sees a miss after it (a randomized run found one: D > T, a job released at 196 missing at
    201 with horizon 200)."""
    ties = "index" if policy == "gfp" else ties
    stop = simulate(ts, m, policy=policy, ties=ties, seed=seed, execution="random", horizon=200)
    go = simulate(ts, m, policy=policy, ties=ties, seed=seed, execution="random", horizon=200, after_miss="continue")
    assert go.demands is not None and stop.demands is not None
    k = stop.demands.shape[0]
    assert go.demands[:k].tolist() == stop.demands.tolist()
    assert (go.miss is None or go.miss.time > 200) == (stop.miss is None)
    if stop.miss is not None:
        assert go.miss == stop.miss
    # every job ran exactly its demand
    for (task, job, _r, _d), c in zip(go.releases.tolist(), go.demands.tolist(), strict=True):
        assert go.executed(task, job) == c
    assert go.tardiness is not None
    fast = simulate(
        ts, m, policy=policy, ties=ties, seed=seed, execution="random", horizon=200, after_miss="continue", record=False
    )
    assert fast.tardiness == go.tardiness and fast.demands is None


def test_arrivals_do_not_depend_on_the_execution_model():
    ts = TaskSet.from_tasks([(2, 5, 5), (3, 7, 7), (1, 4, 4)])
    a = simulate(ts, 2, arrivals="sporadic", seed=9, horizon=500)
    b = simulate(ts, 2, arrivals="sporadic", seed=9, horizon=500, execution="random")
    assert a.miss is None and b.miss is None
    assert a.releases.tolist() == b.releases.tolist()


def test_default_horizons_under_random_execution():
    ts = TaskSet.from_tasks([(1, 4, 4), (2, 6, 6)])  # H = 12, 200·T_max = 1200
    assert random_execution_horizon(ts) == 1200
    assert simulate(ts, 1, execution="random").horizon == 1200
    arbitrary = TaskSet.from_tasks([(1, 8, 4), (2, 6, 6)], deadlines="arbitrary")
    trace = simulate(arbitrary, 1, execution="random", record=False)  # no probe: a random run never repeats
    assert trace.horizon == random_execution_horizon(arbitrary) and trace.repeats_at is None
    assert simulate(ts, 1, arrivals="sporadic", execution="random").horizon == 1200


@pytest.mark.parametrize(
    ("options", "field"),
    [
        pytest.param({"execution": "bcet"}, "execution", id="unknown-execution"),
        pytest.param({"seed": -1}, "seed", id="negative-seed"),
        pytest.param({"seed": 1.5}, "seed", id="float-seed"),
    ],
)
def test_bad_options_are_one_input_error(options, field):
    with pytest.raises(InputError) as err:
        simulate(DHALL, 2, **options)
    assert err.value.field == field


def test_a_random_execution_counterexample_replays_its_miss():
    """rtsched.testing: a miss found under random execution replays from its releases and seed."""
    from rtsched.testing.soundness import Counterexample

    seed = next(s for s in range(100) if simulate(DHALL, 2, execution="random", seed=s, horizon=50).miss is not None)
    trace = simulate(DHALL, 2, execution="random", seed=seed, horizon=50)
    assert trace.miss is not None
    found = Counterexample(
        DHALL, 2, tuple(map(tuple, trace.release_times())), trace.miss, "simulation", "index", (), "random", seed
    )
    again = found.replay()
    assert again.miss == trace.miss and again.demands is not None
    assert again.demands.tolist() == trace.demands.tolist()[: again.demands.shape[0]]
    assert f"random execution (seed {seed})" in str(found)
