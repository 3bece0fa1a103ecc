"""The simulator on arbitrary deadlines (D > T; issue #47): several pending jobs per task, FIFO within a task.

Checked schedule-for-schedule against a tick-by-tick Python reference that keeps a queue of jobs
per task (only the oldest pending job of a task can run), for the four policies and periodic,
explicit and sporadic arrivals; the default periodic horizon (stop at the first multiple of the
hyperperiod where no job is pending, or a miss forced by overload) is checked against long
reference runs. papers/simulator.md, "Arbitrary deadlines".
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rtsched.model import TaskSet
from rtsched.sim import DeadlineMiss, simulate
from rtsched.sim.run import arbitrary_horizon
from rtsched.testing import strategies as rst

POLICIES = ["gedf", "pedf", "gfp", "pfp"]


def tick_queue_simulation(ts, m, releases, horizon, partition=None, fixed=False, ties="index"):
    """One tick at a time, a FIFO queue of jobs per task; only each queue's head can run.

    Returns ``(schedule, miss)``: ``schedule[t]`` maps each running task to the index of its
    running job during ``[t, t + 1)``; ``miss`` is ``(time, task, job)`` of the first miss or ``None``.
    """
    n = ts.n
    C, D = [int(c) for c in ts.C], [int(d) for d in ts.D]
    queues: list[list[list[int]]] = [[] for _ in range(n)]  # [release, remaining, job index]
    released = [0] * n
    schedule: list[dict[int, int]] = []
    for t in range(horizon + 1):
        late = [(q[0][0] + D[i], i) for i, q in enumerate(queues) if q and q[0][0] + D[i] <= t]
        if late:
            d, i = min(late)
            return schedule, (d, i, queues[i][0][2])
        if t == horizon:
            break
        for i in range(n):
            if t in releases[i]:
                queues[i].append([t, C[i], released[i]])
                released[i] += 1
        heads = [i for i in range(n) if queues[i]]
        if not fixed:
            heads.sort(key=lambda i: (queues[i][0][0] + D[i], queues[i][0][0] if ties == "fifo" else 0, i))
        if partition is None:
            run = heads[:m]
        else:
            run = []
            for p in range(m):
                mine = [i for i in heads if partition[i] == p]
                if mine:
                    run.append(mine[0])
        now = {}
        for i in run:
            job = queues[i][0]
            now[i] = job[2]
            job[1] -= 1
            if job[1] == 0:
                queues[i].pop(0)
        schedule.append(now)
    return schedule, None


def schedule_from_trace(trace, end):
    out: list[dict[int, int]] = [{} for _ in range(end)]
    for _cpu, task, job, start, stop in trace.segments.tolist():
        for t in range(start, stop):
            assert task not in out[t], "two jobs of one task run at once"
            out[t][task] = job
    return out


def periodic_releases(ts, horizon):
    return [list(range(0, horizon, int(t))) for t in ts.T]


def draw_partition(policy, ts, m, data):
    if policy in ("pedf", "pfp"):
        return data.draw(st.lists(st.integers(0, m - 1), min_size=ts.n, max_size=ts.n))
    return None


def check_against_reference(ts, m, policy, partition, releases, horizon, ties="index"):
    kwargs = {"policy": policy, "partition": partition, "releases": releases, "horizon": horizon}
    if policy in ("gedf", "pedf"):
        kwargs["ties"] = ties
    trace = simulate(ts, m, **kwargs)
    fast = simulate(ts, m, record=False, **kwargs)
    sched, miss = tick_queue_simulation(ts, m, releases, horizon, partition, policy in ("gfp", "pfp"), ties)
    end = trace.end_time
    assert schedule_from_trace(trace, end) == sched[:end]
    if miss is None:
        assert trace.miss is None and fast.miss is None
    else:
        assert (trace.miss.time, trace.miss.task, trace.miss.job) == miss
        assert (fast.miss.time, fast.miss.task) == miss[:2]
        assert trace.miss.remaining == int(ts.C[miss[1]]) - trace.executed(miss[1], miss[2])
    assert fast.jobs == trace.jobs == sum(1 for r in releases for x in r if x < end)


# -- worked examples ---------------------------------------------------------------------------


def test_backlog_runs_in_release_order():
    # τ0 = (3, 5, 2) alone on one processor: U = 3/2, jobs pile up and run FIFO;
    # job 0 [0,3), job 1 (released 2, deadline 7) [3,6), job 2 (released 4, deadline 9) [6,9)
    ts = TaskSet.from_tasks([(3, 5, 2)], deadlines="arbitrary")
    trace = simulate(ts, 1, horizon=8)
    assert [row[2:] for row in trace.segments.tolist()] == [[0, 0, 3], [1, 3, 6], [2, 6, 8]]
    assert trace.miss is None
    # the default horizon (overload U = 3/2 > 1) is long enough to show the miss:
    # job 3 (released 6, deadline 11) starts at 9, finishes at 12
    default = simulate(ts, 1)
    assert default.miss == DeadlineMiss(time=11, task=0, job=3, remaining=1)
    assert default.horizon == arbitrary_horizon(ts, 1)


def test_fp_level_busy_period_example():
    # τ0 = (3, 6, 6) over τ1 = (2, 6, 4) on one processor (papers/tindell1994-arbitrary-deadlines.md):
    # τ1's jobs released at 0, 4, 8 complete at 5, 10, 12 (responses 5, 6, 4); idle at H = 12
    ts = TaskSet.from_tasks([(3, 6, 6), (2, 6, 4)], deadlines="arbitrary")
    trace = simulate(ts, 1, policy="gfp")
    assert trace.miss is None and trace.repeats_at == 12
    finish = {job: end for _cpu, task, job, _start, end in trace.segments.tolist() if task == 1}
    assert finish == {0: 5, 1: 10, 2: 12}
    assert "the schedule repeats" in str(trace)


def test_miss_reports_the_oldest_pending_job():
    # τ1 = (3, 4, 2) under τ0 = (1, 1, 2) on one processor: U = 1/2 + 3/2 > 1
    ts = TaskSet.from_tasks([(1, 1, 2), (3, 4, 2)], deadlines="arbitrary")
    sched, miss = tick_queue_simulation(ts, 1, periodic_releases(ts, 40), 40, fixed=True)
    trace = simulate(ts, 1, policy="gfp", horizon=40)
    assert (trace.miss.time, trace.miss.task, trace.miss.job) == miss


# -- properties against the tick reference ------------------------------------------------------


@pytest.mark.parametrize("policy", POLICIES)
@settings(max_examples=40, deadline=None)
@given(ts=rst.tasksets(max_size=5, max_period=8, deadlines="arbitrary"), m=st.integers(1, 3), data=st.data())
def test_periodic_matches_tick_reference(policy, ts, m, data):
    partition = draw_partition(policy, ts, m, data)
    horizon = min(3 * int(ts.hyperperiod) + int(ts.D.max()), 150)
    check_against_reference(ts, m, policy, partition, periodic_releases(ts, horizon), horizon)


@pytest.mark.parametrize("policy", POLICIES)
@settings(max_examples=40, deadline=None)
@given(ts=rst.tasksets(max_size=4, max_period=6, deadlines="arbitrary"), m=st.integers(1, 2), data=st.data())
def test_explicit_matches_tick_reference(policy, ts, m, data):
    partition = draw_partition(policy, ts, m, data)
    releases = []
    for t in ts.T:
        first = data.draw(st.integers(0, 3))
        gaps = data.draw(st.lists(st.integers(int(t), int(t) + 2), max_size=6))
        times = [first]
        for g in gaps:
            times.append(times[-1] + g)
        releases.append(times)
    horizon = max(max(r) for r in releases) + int(ts.D.max()) + 1
    check_against_reference(ts, m, policy, partition, releases, horizon)


@pytest.mark.parametrize("ties", ["index", "fifo"])
@settings(max_examples=30, deadline=None)
@given(ts=rst.tasksets(max_size=4, max_period=5, deadlines="arbitrary"), m=st.integers(1, 2))
def test_gedf_tie_rules_with_backlog(ties, ts, m):
    horizon = min(2 * int(ts.hyperperiod) + int(ts.D.max()), 100)
    check_against_reference(ts, m, "gedf", None, periodic_releases(ts, horizon), horizon, ties)


@pytest.mark.parametrize("policy", POLICIES)
@settings(max_examples=25, deadline=None)
@given(
    ts=rst.tasksets(max_size=5, max_period=10, deadlines="arbitrary"),
    m=st.integers(1, 3),
    seed=st.integers(0, 2**20),
    data=st.data(),
)
def test_sporadic_fast_path_agrees_and_replays(policy, ts, m, seed, data):
    partition = draw_partition(policy, ts, m, data)
    trace = simulate(ts, m, policy=policy, partition=partition, arrivals="sporadic", seed=seed, horizon=120)
    fast = simulate(
        ts, m, policy=policy, partition=partition, arrivals="sporadic", seed=seed, horizon=120, record=False
    )
    assert fast.miss == (None if trace.miss is None else DeadlineMiss(trace.miss.time, trace.miss.task))
    assert fast.jobs == trace.jobs and fast.end_time == trace.end_time
    # the recorded releases replayed explicitly give the same schedule as the tick reference
    releases = trace.release_times()
    sched, miss = tick_queue_simulation(ts, m, releases, 120, partition, policy in ("gfp", "pfp"))
    assert schedule_from_trace(trace, trace.end_time) == sched[: trace.end_time]
    assert (miss is None) == (trace.miss is None)


# -- the default periodic horizon ---------------------------------------------------------------


@pytest.mark.parametrize("policy", POLICIES)
@settings(max_examples=40, deadline=None)
@given(ts=rst.tasksets(max_size=4, max_period=6, deadlines="arbitrary"), m=st.integers(1, 3), data=st.data())
def test_default_periodic_horizon_decides(policy, ts, m, data):
    """A run that stops at ``repeats_at`` without a miss never misses later; an overloaded one misses."""
    partition = draw_partition(policy, ts, m, data)
    trace = simulate(ts, m, policy=policy, partition=partition)
    fixed = policy in ("gfp", "pfp")
    H = int(ts.hyperperiod)
    if trace.repeats_at is not None:
        assert trace.miss is None and trace.repeats_at % H == 0
        # no job pending at repeats_at: a reference run of twice that long (plus D_max) never misses
        long = 2 * trace.repeats_at + int(ts.D.max())
        if long <= 400:
            _sched, miss = tick_queue_simulation(ts, m, periodic_releases(ts, long), long, partition, fixed)
            assert miss is None
    groups = (
        [list(range(ts.n))] if partition is None else [[i for i in range(ts.n) if partition[i] == p] for p in range(m)]
    )
    procs = m if partition is None else 1
    overloaded = any(sum((Fraction(int(ts.C[i]), int(ts.T[i])) for i in g), Fraction(0)) > procs for g in groups if g)
    if overloaded and arbitrary_horizon(ts, m, partition) < 10**9:
        assert trace.miss is not None  # the overload bound forces a miss within the horizon
    if not ts.is_constrained and (m == 1 or partition is not None):
        if not overloaded:  # one processor per group, U <= 1: idle at H (papers/simulator.md)
            assert trace.miss is not None or trace.repeats_at == H


def test_constrained_runs_keep_their_horizon():
    ts = TaskSet.from_tasks([(1, 2, 3), (2, 5, 6)])
    trace = simulate(ts, 1)
    assert trace.horizon == 6 and trace.repeats_at is None and trace.end_time == 6


def test_global_backlog_may_not_clear():
    """G-FP, m = 2: τ2 = (4, 8, 3) cannot run in parallel with itself (U_2 = 4/3 > 1): it falls behind.

    Total U = 1/2 + 1/2 + 4/3 <= 2, so the overload bound of the whole platform does not apply; the
    per-task overload still makes τ2 miss in the default run.
    """
    ts = TaskSet.from_tasks([(1, 2, 2), (1, 2, 2), (4, 8, 3)], deadlines="arbitrary")
    trace = simulate(ts, 2, policy="gfp")
    sched, miss = tick_queue_simulation(ts, 2, periodic_releases(ts, trace.horizon), trace.horizon, fixed=True)
    if miss is None:
        assert trace.miss is None and "not decided" in str(trace)
    else:
        assert (trace.miss.time, trace.miss.task) == miss[:2]


def test_gantt_draws_backlogged_jobs(tmp_path):
    from rtsched.sim.gantt import gantt, save_gantt

    ts = TaskSet.from_tasks([(3, 6, 6), (2, 6, 4)], deadlines="arbitrary")
    trace = simulate(ts, 1, policy="gfp")
    for rows in ("processors", "tasks"):
        fig = gantt(trace, rows=rows)
        labels = [t.get_text() for ax in fig.axes for t in ax.texts]
        if rows == "processors":  # job 1 of τ1 is drawn while job 2 is already released
            assert "τ1,1" in labels and "τ1,2" in labels
        save_gantt(trace, tmp_path / f"g-{rows}.png", rows=rows)
        assert (tmp_path / f"g-{rows}.png").stat().st_size > 1000


# -- check_sound / refute on D > T ---------------------------------------------------------------


def test_refute_simulates_arbitrary_deadline_sets():
    from rtsched.testing.soundness import refute

    ts = TaskSet.from_tasks([(3, 5, 2)], deadlines="arbitrary")
    found = refute(ts, 1)
    assert found is not None and found.oracle == "simulation"
    assert found.replay().miss == found.miss and found.miss.time == 11


def test_check_sound_searches_arbitrary_deadline_sets():
    from rtsched.testing.soundness import check_sound

    def u_at_most_m(taskset, m):  # wrong for global EDF (Dhall's effect survives D > T)
        return taskset.utilization <= m

    found = check_sound(u_at_most_m, max_examples=100, deadlines="arbitrary")
    assert found is not None and found.replay().miss is not None

    def uniprocessor_edf(taskset, m):  # EDF on one processor with D >= T and U <= 1 never misses
        return m == 1 and bool((taskset.D >= taskset.T).all()) and taskset.utilization <= 1

    assert check_sound(uniprocessor_edf, max_examples=60, deadlines="arbitrary", processors=(1,)) is None
