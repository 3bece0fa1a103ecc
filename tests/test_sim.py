"""Tests of the G-EDF / P-EDF / G-FP / P-FP simulator (rtsched.sim) against a tick-by-tick Python reference.

The tie rules (papers/simulator.md): ``index`` and ``fifo`` and explicit tie choices are checked
schedule-for-schedule against the reference; ``random:SEED`` for reproducibility and legality
(each tick runs a legal G-EDF set) since its draws are the kernel's own.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rtsched.errors import InputError
from rtsched.model import TaskSet
from rtsched.sim import DeadlineMiss, parse_ties, simulate
from rtsched.testing import strategies as rst


def tick_simulation(
    ts: TaskSet, m: int, releases: list[list[int]], horizon: int, partition=None, ties="index", choices=None, fixed=False
):
    """The simplest possible simulator: one tick at a time, same rules (papers/simulator.md).

    ``ties``: ``index`` or ``fifo``; ``choices``: ``{t: winners}`` (they win their ties during
    [t, t + 1)); ``fixed``: fixed priorities, the task index (then ties and choices are moot).
    Returns (schedule, miss): schedule[t] = set of tasks running in [t, t+1);
    miss = (time, task) of the first deadline miss or None.
    """
    n = ts.n
    C, D = [int(c) for c in ts.C], [int(d) for d in ts.D]
    rem, dl, rel = [0] * n, [0] * n, [0] * n
    choices = choices or {}
    schedule = []
    for t in range(horizon + 1):
        late = [i for i in range(n) if rem[i] > 0 and dl[i] <= t]
        if late:
            first = min(late, key=lambda i: (dl[i], i))
            return schedule, (dl[first], first)
        if t == horizon:
            break
        for i in range(n):
            if t in releases[i]:
                rem[i], dl[i], rel[i] = C[i], t + D[i], t
        winners = choices.get(t, ())
        if fixed:
            pending = [i for i in range(n) if rem[i] > 0]
        else:
            pending = sorted(
                (i for i in range(n) if rem[i] > 0),
                key=lambda i, won=winners: (dl[i], -1 if i in won else (rel[i] if ties == "fifo" else 0), i),
            )
        if partition is None:
            run = set(pending[:m])
        else:
            run = set()
            for p in range(m):
                mine = [i for i in pending if partition[i] == p]
                if mine:
                    run.add(mine[0])
        for i in run:
            rem[i] -= 1
        schedule.append(run)
    return schedule, None


def schedule_from_trace(trace, horizon):
    out = [set() for _ in range(horizon)]
    for _cpu, task, _job, start, end in trace.segments.tolist():
        for t in range(start, end):
            assert task not in out[t], "a job runs twice at once"
            out[t].add(task)
    return out


def periodic_releases(ts, horizon):
    return [list(range(0, horizon, int(t))) for t in ts.T]


DHALL = TaskSet.from_tasks([(2, 6, 6), (2, 6, 6), (6, 7, 7)])


def test_dhall_effect_misses():
    trace = simulate(DHALL, 2)
    assert trace.miss == DeadlineMiss(time=7, task=2, job=0, remaining=1)
    assert trace.miss.task == 2 and "miss" in str(trace)


def test_dhall_pedf_is_fine():
    assert simulate(DHALL, 2, policy="pedf", partition=[0, 0, 1]).miss is None


def test_tie_goes_to_lowest_index():
    # two equal-deadline jobs on one processor: task 0 runs first
    ts = TaskSet.from_tasks([(1, 2, 2), (1, 2, 2)])
    trace = simulate(ts, 1, horizon=2)
    assert trace.miss is None
    assert trace.segments[:, [1, 3, 4]].tolist() == [[0, 0, 1], [1, 1, 2]]


def test_preemption_and_migration_are_recorded():
    # τ2 starts on a processor, is preempted by two earlier-deadline jobs, resumes on another one
    ts = TaskSet.from_tasks([(2, 2, 10), (1, 1, 10), (3, 9, 10)])
    trace = simulate(ts, 2, releases=[[1], [2], [0]])
    assert trace.miss is None
    assert trace.preemptions[:, 1].tolist() == [2]
    assert trace.migrations.shape[0] in (0, 1)
    assert trace.executed(2, 0) == 3


@pytest.mark.parametrize("policy", ["gedf", "pedf", "gfp", "pfp"])
@settings(max_examples=60)
@given(ts=rst.tasksets(max_size=6, max_period=12), m=st.integers(1, 3), data=st.data())
def test_matches_tick_reference_periodic(policy, ts, m, data):
    horizon = min(int(ts.hyperperiod), 200)
    partition = None
    if policy in ("pedf", "pfp"):
        partition = data.draw(st.lists(st.integers(0, m - 1), min_size=ts.n, max_size=ts.n))
    trace = simulate(ts, m, policy=policy, partition=partition, horizon=horizon)
    fixed = policy in ("gfp", "pfp")
    schedule, miss = tick_simulation(ts, m, periodic_releases(ts, horizon), horizon, partition, fixed=fixed)
    got = None if trace.miss is None else (trace.miss.time, trace.miss.task)
    assert got == miss
    assert schedule_from_trace(trace, trace.end_time)[: len(schedule)] == schedule[: trace.end_time]
    fast = simulate(ts, m, policy=policy, partition=partition, horizon=horizon, record=False)
    assert (fast.miss is None) == (trace.miss is None) and fast.jobs == trace.jobs
    if fast.miss is not None:
        assert (fast.miss.time, fast.miss.task) == got


@settings(max_examples=60)
@given(ts=rst.tasksets(max_size=5, max_period=8), m=st.integers(1, 3), data=st.data())
def test_matches_tick_reference_explicit(ts, m, data):
    releases = []
    for t in ts.T:
        gaps = data.draw(st.lists(st.integers(int(t), int(t) + 3), max_size=5))
        first = data.draw(st.integers(0, 4))
        times = [first]
        for g in gaps:
            times.append(times[-1] + g)
        releases.append(times)
    trace = simulate(ts, m, releases=releases)
    schedule, miss = tick_simulation(ts, m, releases, trace.horizon)
    got = None if trace.miss is None else (trace.miss.time, trace.miss.task)
    assert got == miss
    assert schedule_from_trace(trace, trace.end_time) == schedule[: trace.end_time]


@settings(max_examples=40)
@given(ts=rst.tasksets(max_size=6, max_period=20), m=st.integers(1, 3), seed=st.integers(0, 2**32))
def test_sporadic_is_legal_reproducible_and_fast_path_agrees(ts, m, seed):
    trace = simulate(ts, m, arrivals="sporadic", seed=seed, horizon=300)
    for i, times in enumerate(trace.release_times()):
        assert all(b - a >= int(ts.T[i]) for a, b in zip(times, times[1:], strict=False))
        assert all(b - a <= 2 * int(ts.T[i]) for a, b in zip(times, times[1:], strict=False))
    again = simulate(ts, m, arrivals="sporadic", seed=seed, horizon=300)
    assert again.releases.tolist() == trace.releases.tolist()
    fast = simulate(ts, m, arrivals="sporadic", seed=seed, horizon=300, record=False)
    assert fast.jobs == trace.jobs
    assert (fast.miss is None) == (trace.miss is None)
    # replaying the recorded releases reproduces the run exactly
    replay = simulate(ts, m, releases=trace.release_times(), horizon=300)
    assert replay.segments.tolist() == trace.segments.tolist()


def test_sporadic_seeds_differ():
    ts = TaskSet.from_tasks([(1, 5, 5), (2, 7, 7)])
    a = simulate(ts, 1, arrivals="sporadic", seed=1, horizon=500)
    b = simulate(ts, 1, arrivals="sporadic", seed=2, horizon=500)
    assert a.releases.tolist() != b.releases.tolist()


@settings(max_examples=30)
@given(ts=rst.tasksets(max_size=6, max_period=15), m=st.integers(1, 3))
def test_segments_never_share_a_processor_and_work_is_conserved(ts, m):
    trace = simulate(ts, m, horizon=150)
    seg = trace.segments
    for p in range(m):
        rows = sorted(seg[seg[:, 0] == p][:, 3:5].tolist())
        assert all(a[1] <= b[0] for a, b in zip(rows, rows[1:], strict=False))
    finished = 0
    for task, job, _release, deadline in trace.releases.tolist():
        if deadline < trace.end_time or (trace.miss is None and deadline <= trace.end_time):
            assert trace.executed(task, job) == int(ts.C[task])
            finished += 1
    assert np.all(seg[:, 4] > seg[:, 3])


def test_periodic_default_horizon_is_hyperperiod():
    ts = TaskSet.from_tasks([(1, 4, 4), (1, 6, 6)])
    assert simulate(ts, 1).horizon == 12


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"releases": [[0, 1]]}, "closer than its period"),
        ({"policy": "pedf"}, "one processor index per task"),
        ({"policy": "pedf", "partition": [3]}, "0..1"),
        ({"policy": "pfp"}, "partitioned FP needs one processor index per task"),
        ({"policy": "pfp", "partition": [2]}, "0..1"),
        ({"policy": "fifo"}, "unknown policy"),
        ({"arrivals": "bursty"}, "unknown arrivals"),
    ],
)
def test_bad_input(kwargs, message):
    with pytest.raises(InputError, match=message):
        simulate(TaskSet.from_tasks([(1, 2, 2)]), 2, **kwargs)


def test_arbitrary_deadlines_accepted():
    # was test_arbitrary_deadlines_refused; D > T is simulated since issue #47 (tests/test_sim_arbitrary.py)
    ts = TaskSet.from_tasks([(1, 5, 2)], deadlines="arbitrary")
    trace = simulate(ts, 1)
    assert trace.miss is None and trace.repeats_at == 2


@pytest.mark.parametrize("rows", ["processors", "tasks"])
def test_gantt_draws_every_segment_in_the_window(rows, tmp_path):
    from rtsched.sim.gantt import gantt, save_gantt

    trace = simulate(DHALL, 2)
    fig = gantt(trace, rows=rows)
    bars = fig.axes[0].collections
    assert len(bars) == trace.segments.shape[0]
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert labels == (["P0", "P1"] if rows == "processors" else [DHALL.label(i) for i in range(3)])
    path = save_gantt(trace, tmp_path / "g.svg", rows=rows, since=2, until=7)
    assert path.read_text().startswith("<?xml")


def test_gantt_window_errors():
    from rtsched.sim.gantt import gantt

    with pytest.raises(InputError, match="empty Gantt window"):
        gantt(simulate(DHALL, 2), since=7, until=7)
    with pytest.raises(InputError, match="rows"):
        gantt(simulate(DHALL, 2), rows="cpus")  # type: ignore[arg-type]


def test_trace_is_immutable_and_serialisable():
    import json

    trace = simulate(DHALL, 2)
    with pytest.raises(ValueError, match="read-only"):
        trace.segments[0, 0] = 5
    data = json.loads(json.dumps(trace.to_dict()))
    assert data["miss"] == {"time": 7, "task": 2, "job": 0, "remaining": 1}


# -- tie rules ---------------------------------------------------------------------------------
SMALLEST = TaskSet.from_tasks([(2, 2, 2), (1, 2, 2), (1, 2, 2)])  # papers/gedf-ties.md


def releases_strategy(ts, data, max_jobs=5, max_first=4):
    releases = []
    for t in ts.T:
        gaps = data.draw(st.lists(st.integers(int(t), int(t) + 2), max_size=max_jobs))
        times = [data.draw(st.integers(0, max_first))]
        for g in gaps:
            times.append(times[-1] + g)
        releases.append(times)
    return releases


def assert_legal_gedf(trace, m):
    """Each tick runs min(m, pending) jobs and no waiting job has an earlier deadline than a running one."""
    end = trace.end_time
    schedule = schedule_from_trace(trace, end)
    segments = trace.segments.tolist()

    def executed_before(task, job, t):
        return sum(min(e, t) - s for _, i, j, s, e in segments if i == task and j == job and s < t)

    for t in range(end):
        pending = {}
        for task, job, release, deadline in trace.releases.tolist():
            if release <= t and executed_before(task, job, t) < int(trace.taskset.C[task]):
                pending[task] = deadline
        running = schedule[t]
        assert running <= set(pending), t
        assert len(running) == min(m, len(pending)), t
        if running and len(running) < len(pending):
            assert max(pending[i] for i in running) <= min(d for i, d in pending.items() if i not in running), t


@pytest.mark.parametrize("policy", ["gedf", "pedf"])
@pytest.mark.parametrize("ties", ["index", "fifo"])
@settings(max_examples=40)
@given(ts=rst.tasksets(max_size=5, max_period=6), m=st.integers(1, 3), data=st.data())
def test_tie_rules_match_tick_reference(policy, ties, ts, m, data):
    releases = releases_strategy(ts, data)
    partition = None
    if policy == "pedf":
        partition = data.draw(st.lists(st.integers(0, m - 1), min_size=ts.n, max_size=ts.n))
    trace = simulate(ts, m, policy=policy, partition=partition, releases=releases, ties=ties)
    schedule, miss = tick_simulation(ts, m, releases, trace.horizon, partition, ties=ties)
    assert (None if trace.miss is None else (trace.miss.time, trace.miss.task)) == miss
    assert schedule_from_trace(trace, trace.end_time) == schedule[: trace.end_time]
    fast = simulate(ts, m, policy=policy, partition=partition, releases=releases, ties=ties, record=False)
    assert (fast.miss is None) == (trace.miss is None) and fast.jobs == trace.jobs
    if fast.miss is not None:
        assert (fast.miss.time, fast.miss.task) == (trace.miss.time, trace.miss.task)


@pytest.mark.parametrize("policy", ["gfp", "pfp"])
@settings(max_examples=40)
@given(ts=rst.tasksets(max_size=5, max_period=6), m=st.integers(1, 3), data=st.data())
def test_fixed_priorities_match_tick_reference_sporadic(policy, ts, m, data):
    """Explicit (sporadic) releases under G-FP / P-FP: the same schedule and miss as the tick
    reference with the task index as the priority; the fast path finds the same miss."""
    releases = releases_strategy(ts, data)
    partition = None
    if policy == "pfp":
        partition = data.draw(st.lists(st.integers(0, m - 1), min_size=ts.n, max_size=ts.n))
    trace = simulate(ts, m, policy=policy, partition=partition, releases=releases)
    schedule, miss = tick_simulation(ts, m, releases, trace.horizon, partition, fixed=True)
    assert (None if trace.miss is None else (trace.miss.time, trace.miss.task)) == miss
    assert schedule_from_trace(trace, trace.end_time) == schedule[: trace.end_time]
    assert trace.tie_decisions.shape[0] == 0  # distinct priorities: never a tie
    fast = simulate(ts, m, policy=policy, partition=partition, releases=releases, record=False)
    assert (fast.miss is None) == (trace.miss is None) and fast.jobs == trace.jobs
    if fast.miss is not None:
        assert (fast.miss.time, fast.miss.task) == miss


def test_gfp_dhall_order_matters():
    assert simulate(DHALL, 2, policy="gfp").miss == DeadlineMiss(time=7, task=2, job=0, remaining=2)
    heavy_first = TaskSet.from_tasks([(6, 7, 7), (2, 6, 6), (2, 6, 6)])
    trace = simulate(heavy_first, 2, policy="gfp")
    assert trace.miss is None and "task-order priorities" in trace.summary()


def test_gfp_lower_priority_preempted_although_its_deadline_is_earlier():
    # τ1 (lower priority, deadline 3) waits for τ0 (deadline 10) on one processor: a G-FP miss
    # that G-EDF avoids
    ts = TaskSet.from_tasks([(3, 10, 10), (1, 3, 10)])
    assert simulate(ts, 1, policy="gfp").miss == DeadlineMiss(time=3, task=1, job=0, remaining=1)
    assert simulate(ts, 1).miss is None


def test_pfp_priorities_per_processor():
    ts = TaskSet.from_tasks([(2, 4, 4), (2, 4, 4), (3, 4, 4)])
    # τ0 and τ2 share P0 (τ2 waits for τ0 and misses), τ1 is alone on P1
    trace = simulate(ts, 2, policy="pfp", partition=[0, 1, 0])
    assert trace.miss == DeadlineMiss(time=4, task=2, job=0, remaining=1)
    assert set(trace.segments[trace.segments[:, 1] == 1][:, 0].tolist()) == {1}


@pytest.mark.parametrize("kwargs", [{"ties": "fifo"}, {"tie_choices": [(0, [1])]}])
def test_fixed_priorities_refuse_tie_settings(kwargs):
    with pytest.raises(InputError, match="no ties"):
        simulate(DHALL, 2, policy="gfp", **kwargs)


@settings(max_examples=60)
@given(ts=rst.tasksets(min_size=2, max_size=5, max_period=5), m=st.integers(1, 3), data=st.data())
def test_explicit_tie_choices_match_tick_reference(ts, m, data):
    releases = releases_strategy(ts, data, max_jobs=3, max_first=2)
    times = data.draw(st.lists(st.integers(0, 12), unique=True, max_size=6))
    choices = {t: data.draw(st.lists(st.integers(0, ts.n - 1), unique=True, max_size=ts.n)) for t in times}
    base = data.draw(st.sampled_from(["index", "fifo"]))
    trace = simulate(ts, m, releases=releases, ties=base, tie_choices=list(choices.items()))
    schedule, miss = tick_simulation(ts, m, releases, trace.horizon, ties=base, choices=choices)
    assert (None if trace.miss is None else (trace.miss.time, trace.miss.task)) == miss
    assert schedule_from_trace(trace, trace.end_time) == schedule[: trace.end_time]
    fast = simulate(ts, m, releases=releases, ties=base, tie_choices=list(choices.items()), record=False)
    assert (None if fast.miss is None else (fast.miss.time, fast.miss.task)) == miss


@settings(max_examples=40)
@given(ts=rst.tasksets(min_size=2, max_size=6, max_period=8), m=st.integers(1, 3), seed=st.integers(0, 2**20), data=st.data())
def test_random_ties_reproducible_legal_and_fast_path_agrees(ts, m, seed, data):
    releases = releases_strategy(ts, data)
    ties = f"random:{seed}"
    trace = simulate(ts, m, releases=releases, ties=ties)
    again = simulate(ts, m, releases=releases, ties=ties)
    assert again.segments.tolist() == trace.segments.tolist()
    assert again.tie_decisions.tolist() == trace.tie_decisions.tolist()
    assert trace.ties == ties
    assert_legal_gedf(trace, m)
    fast = simulate(ts, m, releases=releases, ties=ties, record=False)
    assert (None if fast.miss is None else (fast.miss.time, fast.miss.task)) == (
        None if trace.miss is None else (trace.miss.time, trace.miss.task)
    )


def test_random_ties_keep_sporadic_arrivals():
    """The tie generator is not the arrivals' generator: a tie seed never changes the releases."""
    ts = TaskSet.from_tasks([(1, 3, 3), (2, 3, 4), (1, 2, 5)])
    a = simulate(ts, 2, arrivals="sporadic", seed=5, horizon=200)
    b = simulate(ts, 2, arrivals="sporadic", seed=5, horizon=200, ties="random:9")
    assert a.releases.tolist() == b.releases.tolist()


def test_random_seeds_break_ties_differently():
    outcomes = {simulate(SMALLEST, 2, releases=[[0], [0], [0]], ties=f"random:{s}").miss is None for s in range(20)}
    assert outcomes == {True, False}
    assert simulate(SMALLEST, 2, releases=[[0], [0], [0]], ties="random").ties == "random:0"


def test_fifo_prefers_the_earlier_release():
    # m = 1: τ1 = (3, 4, 4) released at 0 and τ0 = (1, 2, 4) released at 2 both have deadline 4
    ts = TaskSet.from_tasks([(1, 2, 4), (3, 4, 4)])

    def runs(ties):
        trace = simulate(ts, 1, releases=[[2], [0]], ties=ties)
        assert trace.miss is None
        return sorted(trace.segments[:, [1, 3, 4]].tolist(), key=lambda row: row[1])

    assert runs("index") == [[1, 0, 2], [0, 2, 3], [1, 3, 4]]  # τ0 wins the tie at t = 2
    assert runs("fifo") == [[1, 0, 3], [0, 3, 4]]  # τ1, released first, keeps the processor


def test_tie_decisions_are_logged():
    trace = simulate(SMALLEST, 2, releases=[[0], [0], [0]])
    assert trace.tie_decisions.tolist() == [[0, 0, 0, 1], [0, 1, 0, 1], [0, 2, 0, 0]]
    replay = simulate(SMALLEST, 2, releases=[[0], [0], [0]], tie_choices=[(0, [1, 2])])
    assert replay.tie_decisions.tolist() == [[0, 0, 0, 0], [0, 1, 0, 1], [0, 2, 0, 1]]
    assert replay.miss == DeadlineMiss(time=2, task=0, job=0, remaining=1)
    assert "index ties + 1 explicit choice)" in str(replay)
    assert replay.to_dict()["tie_choices"] == [[0, [1, 2]]] and replay.to_dict()["ties"] == "index"
    # partitioned: two jobs with deadline 2 on one processor
    pedf = simulate(TaskSet.from_tasks([(1, 2, 2), (1, 2, 2)]), 2, policy="pedf", partition=[1, 1], horizon=2)
    assert pedf.tie_decisions.tolist() == [[0, 0, 0, 1], [0, 1, 0, 0]]
    assert simulate(TaskSet.from_tasks([(1, 2, 2), (1, 3, 3)]), 1, horizon=6).tie_decisions.shape == (0, 4)


def test_a_tie_choice_lasts_one_tick():
    # four jobs of (2, 4, 4) on m = 2, all released at 0: τ2, τ3 win the tie at t = 1 only
    ts = TaskSet.from_tasks([(2, 4, 4)] * 4)
    trace = simulate(ts, 2, releases=[[0]] * 4, tie_choices=[(1, [2, 3])])
    schedule = schedule_from_trace(trace, 4)
    assert schedule == [{0, 1}, {2, 3}, {0, 1}, {2, 3}]


@pytest.mark.parametrize(
    ("ties", "message"),
    [("lifo", "unknown tie rule"), ("fifo:3", "unknown tie rule"), ("random:x", "non-negative integer"), ("random:-1", "non-negative")],
)
def test_bad_tie_rule(ties, message):
    with pytest.raises(InputError, match=message):
        simulate(SMALLEST, 2, ties=ties)


@pytest.mark.parametrize(
    ("choices", "message"),
    [([(0, [5])], "no task 5"), ([(-1, [0])], "negative time"), ([(0, [0]), (0, [1])], "two tie choices"), ([(0,)], "expected")],
)
def test_bad_tie_choices(choices, message):
    with pytest.raises(InputError, match=message):
        simulate(SMALLEST, 2, tie_choices=choices)


def test_parse_ties():
    assert parse_ties("index") == ("index", 0)
    assert parse_ties(" random:12 ") == ("random", 12)
    assert parse_ties("random") == ("random", 0)


@pytest.mark.parametrize("rows", ["processors", "tasks"])
def test_gantt_marks_tie_decisions(rows):
    from rtsched.sim.gantt import gantt

    trace = simulate(SMALLEST, 2, releases=[[0], [0], [0]], tie_choices=[(0, [1, 2])])
    ax = gantt(trace, rows=rows).axes[0]
    markers = [line for line in ax.get_lines() if line.get_marker() == "D"]
    won = [line for line in markers if line.get_markerfacecolor() == "black"]
    assert len(won) == 2  # τ1 and τ2 won the tie at t = 0
    assert len(markers) == (3 if rows == "tasks" else 2)  # τ0's loss shows on its task row
    assert "tie" in ax.get_legend().get_texts()[0].get_text()
    assert "index ties + 1 explicit choice)" in ax.get_title()
    # Dhall's set ties at t = 6 (τ0 and τ1, deadline 12, for the processor τ2 leaves free)
    assert simulate(DHALL, 2, horizon=7).tie_decisions.tolist() == [[6, 0, 1, 1], [6, 1, 1, 0]]
    plain = gantt(simulate(TaskSet.from_tasks([(1, 3, 3), (2, 5, 5)]), 2), rows=rows).axes[0]
    assert plain.get_legend() is None


def test_gantt_starts_at_the_critical_instant_by_default() -> None:
    """The default window begins at 0 (synchronous release) for runs up to 400 ticks; longer runs
    show their last 400 ticks and the title says so."""
    from rtsched.sim.gantt import DEFAULT_WINDOW, gantt

    short = simulate(DHALL, 2)
    ax = gantt(short).axes[0]
    assert ax.get_xlim()[0] < 0.5 and ax.get_xlim()[1] >= short.end_time
    long = simulate(TaskSet.from_tasks([(1, 7, 7), (1, 9, 9)]), 2, horizon=1000)
    ax = gantt(long).axes[0]
    assert ax.get_xlim()[0] > long.end_time - DEFAULT_WINDOW - 1
    assert "--gantt-since 0" in ax.get_title()
