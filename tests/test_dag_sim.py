"""The node-level DAG simulator (rtsched.dag.sim): worked examples by hand, Graham's bound as a
property, the schedule's invariants and its dispatch rule checked on recorded segments against a
reference, reproducibility, and agreement with the task simulator on one-vertex DAGs."""

import math
from collections import defaultdict

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rtsched.dag import DAGDeadlineMiss, DAGTask, DAGTaskSet, simulate_dag
from rtsched.errors import InputError
from rtsched.model import TaskSet
from rtsched.sim import simulate

FORK_JOIN = DAGTask([1, 3, 2, 4, 1], [(0, 1), (0, 2), (0, 3), (1, 4), (2, 4), (3, 4)], T=20, D=15)


# -- worked examples ------------------------------------------------------------------------------
def test_fork_join_alone_one_two_three_processors():
    ts = DAGTaskSet([FORK_JOIN])
    # m = 1: the volume, vertices in index order.
    one = simulate_dag(ts, 1, record=True, horizon=20)
    assert one.response_times == (11,) and one.miss is None
    assert one.segments.tolist() == [[0, 0, 1, 0, 0, 0], [0, 1, 4, 0, 0, 1], [0, 4, 6, 0, 0, 2],
                                     [0, 6, 10, 0, 0, 3], [0, 10, 11, 0, 0, 4]]
    # m = 2: v1 and v2 at 1 (lowest indices first), v3 at 3 when v2 completes, v4 at 7: R = 8,
    # within Graham's 6 + (11 - 6)/2 = 8.5.
    two = simulate_dag(ts, 2, record=True, horizon=20)
    assert two.response_times == (8,)
    assert sorted(two.segments.tolist()) == [[0, 0, 1, 0, 0, 0], [0, 1, 4, 0, 0, 1], [0, 7, 8, 0, 0, 4],
                                             [1, 1, 3, 0, 0, 2], [1, 3, 7, 0, 0, 3]]
    # m >= width 3: the length.
    for m in (3, 4, 8):
        assert simulate_dag(ts, m, horizon=20).response_times == (FORK_JOIN.length,) == (6,)


def test_chain_is_sequential_on_any_number_of_processors():
    chain = DAGTaskSet([DAGTask([2, 3, 1], [(0, 1), (1, 2)], T=10, D=10)])
    for m in (1, 2, 5):
        trace = simulate_dag(chain, m, record=True, horizon=10)
        assert trace.response_times == (6,)
        assert trace.segments.tolist() == [[0, 0, 2, 0, 0, 0], [0, 2, 5, 0, 0, 1], [0, 5, 6, 0, 0, 2]]


# τ0: two independent vertices (3, 3), T = D = 4; τ1: a chain (2, 2), T = D = 6; m = 2.
PAIR = DAGTaskSet([DAGTask([3, 3], [], T=4, D=4), DAGTask([2, 2], [(0, 1)], T=6, D=6)])


def test_two_tasks_gedf_miss():
    # [0, 3): τ0's two vertices (deadline 4) on both processors; [3, 5): τ1.v0 (deadline 6). At 4
    # τ0's job 1 (deadline 8) takes the other processor; τ1.v1 starts at 5 and has 1 of 2 ticks
    # left at its deadline 6.
    trace = simulate_dag(PAIR, 2)
    assert trace.miss == DAGDeadlineMiss(time=6, task=1, job=0, remaining=1, release=0, deadline=6)
    assert trace.end_time == 6 and trace.jobs == 3
    assert trace.response_times == (3, None)
    assert "deadline miss: τ1 job 0 (released at 0) at t=6 with 1 tick left (3 jobs, gedf on m=2" in str(trace)


def test_two_tasks_gfp_miss_and_the_other_priority_order():
    # τ0 first: τ1.v0 runs only during [3, 4), then τ0's job 1 takes both processors: at 6 τ1
    # still has 1 + 2 ticks.
    trace = simulate_dag(PAIR, 2, policy="gfp")
    assert trace.miss == DAGDeadlineMiss(time=6, task=1, job=0, remaining=3, release=0, deadline=6)
    # τ1 first: it runs on one processor during [0, 4); τ0's vertices share the other: the first
    # completes at 3, the second has 2 of 3 ticks left at 4.
    swapped = DAGTaskSet([PAIR[1], PAIR[0]])
    trace = simulate_dag(swapped, 2, policy="gfp", record=True, horizon=6)
    assert trace.miss == DAGDeadlineMiss(time=4, task=1, job=0, remaining=2, release=0, deadline=4)
    assert trace.misses[0] == trace.miss and len(trace.misses) >= 1


def test_arbitrary_deadline_jobs_overlap_and_miss():
    chain = DAGTaskSet([DAGTask([3, 3], [(0, 1)], T=4, D=8)])
    # m = 2: job 1's v0 runs beside job 0's v1 during [4, 6).
    two = simulate_dag(chain, 2, record=True, horizon=12)
    assert two.miss is None and two.response_times == (6,)
    rows = sorted(two.segments.tolist(), key=lambda r: (r[1], r[0]))
    assert [0, 3, 6, 0, 0, 1] in rows and [1, 4, 7, 0, 1, 0] in rows
    # m = 1: job 0 in [0, 6), job 1 in [6, 12) (R = 8 = D), job 2 (released 8) starts at 12 and
    # has 2 ticks left at its deadline 16.
    one = simulate_dag(chain, 1, horizon=20)
    assert one.miss == DAGDeadlineMiss(time=16, task=0, job=2, remaining=2, release=8, deadline=16)
    assert one.response_times == (8,)


def test_record_goes_on_after_a_miss_and_finds_the_same_first_miss():
    fast = simulate_dag(PAIR, 2, horizon=24)
    full = simulate_dag(PAIR, 2, horizon=24, record=True)
    assert fast.miss == full.miss and fast.misses == (fast.miss,)
    assert full.end_time == 24 and len(full.misses) > 1
    assert full.response_times[1] is not None and full.response_times[1] > PAIR[1].D


def test_input_errors():
    ts = DAGTaskSet([FORK_JOIN])
    with pytest.raises(InputError, match="unknown policy"):
        simulate_dag(ts, 2, policy="pedf")  # type: ignore[arg-type]
    with pytest.raises(InputError, match="gfp"):
        simulate_dag(ts, 2, policy="gfp", ties="fifo")
    with pytest.raises(InputError, match="closer than its period"):
        simulate_dag(ts, 2, releases=[[0, 5]])
    with pytest.raises(InputError, match="execution"):
        simulate_dag(ts, 2, execution="bcet")  # type: ignore[arg-type]
    with pytest.raises(InputError, match="processors"):
        simulate_dag(ts, 0)


def test_explicit_releases_and_default_horizons():
    ts = DAGTaskSet([FORK_JOIN, DAGTask([2], [], T=6, D=6)])
    trace = simulate_dag(ts, 2, releases=[[0, 25], [3]], record=True)
    assert trace.arrivals == "explicit" and trace.horizon == 25 + 15 + 1
    assert trace.release_times() == [[0, 25], [3]]
    assert simulate_dag(ts, 2).horizon == 60  # lcm(20, 6)
    assert simulate_dag(ts, 2, arrivals="sporadic").horizon == 200 * 20


# -- properties ---------------------------------------------------------------------------------
@st.composite
def dags(draw, max_vertices=8, max_wcet=9):
    """A DAG valid by construction: edges from lower to higher index."""
    n = draw(st.integers(1, max_vertices))
    wcets = draw(st.lists(st.integers(1, max_wcet), min_size=n, max_size=n))
    pairs = [(u, v) for u in range(n) for v in range(u + 1, n)]
    keep = draw(st.lists(st.booleans(), min_size=len(pairs), max_size=len(pairs)))
    return wcets, [e for e, k in zip(pairs, keep, strict=True) if k]


def _executed(segments):
    """Ticks executed per (task, job, vertex)."""
    out = defaultdict(int)
    for _p, start, end, task, job, v in segments.tolist():
        out[(task, job, v)] += end - start
    return out


def _length(wcets, edges):
    finish = list(wcets)
    for u, v in sorted(edges, key=lambda e: e[1]):  # u < v: by destination is a topological sweep
        finish[v] = max(finish[v], finish[u] + wcets[v])
    return max(finish)


@settings(max_examples=120, deadline=None)
@given(
    dags(),
    st.integers(1, 5),
    st.sampled_from(["gedf", "gfp"]),
    st.sampled_from(["wcet", "random"]),
    st.integers(0, 2**16),
)
def test_graham_bound_for_one_job_alone(dag, m, policy, execution, seed):
    wcets, edges = dag
    vol = sum(wcets)
    task = DAGTask(wcets, edges, T=vol, D=vol)
    trace = simulate_dag(DAGTaskSet([task]), m, policy=policy, execution=execution, seed=seed, record=True)
    assert trace.miss is None and trace.jobs == 1
    (R,) = trace.response_times
    # The execution times of this run (= the WCETs under "wcet").
    actual = [_executed(trace.segments)[(0, 0, v)] for v in range(task.n)]
    assert all(1 <= a <= c for a, c in zip(actual, wcets, strict=True))
    if execution == "wcet":
        assert actual == wcets
    vol_a, len_a = sum(actual), _length(actual, edges)
    assert max(len_a, math.ceil(vol_a / m)) <= R
    assert m * R <= (m - 1) * len_a + vol_a  # Graham 1969, for the times that ran
    assert m * R <= (m - 1) * task.length + task.volume  # hence for the WCETs: anomalies stay below it


def _check_schedule(trace, ts, m):
    """Processors, precedence and releases on the recorded segments of ``trace``."""
    segs = trace.segments.tolist()
    release = {(i, j): r for i, j, r, _d in trace.releases.tolist()}
    by_proc = defaultdict(list)
    by_vertex = defaultdict(list)
    for p, start, end, i, j, v in segs:
        assert 0 <= p < m and start < end <= trace.end_time
        assert start >= release[(i, j)]  # never before the job's release
        by_proc[p].append((start, end))
        by_vertex[(i, j, v)].append((start, end))
    for rows in (*by_proc.values(), *by_vertex.values()):  # one vertex per processor, one processor per vertex
        rows.sort()
        assert all(a[1] <= b[0] for a, b in zip(rows, rows[1:], strict=False))
    done = {}  # completion of vertices that ran their full execution time (known under "wcet")
    for (i, j, v), rows in by_vertex.items():
        assert sum(e - s for s, e in rows) <= ts[i].wcets[v]
        if trace.execution == "wcet" and sum(e - s for s, e in rows) == ts[i].wcets[v]:
            done[(i, j, v)] = rows[-1][1]
    for (i, j, v), rows in by_vertex.items():  # precedence: every predecessor completed before
        for u in ts[i].predecessors[v]:
            if trace.execution == "wcet":
                assert (i, j, u) in done and done[(i, j, u)] <= rows[0][0]
            else:
                assert max(e for _s, e in by_vertex[(i, j, u)]) <= rows[0][0]
    return by_vertex, done


def _reference_dispatch(trace, ts, m, by_vertex, done):
    """At every event, the running vertices are the m highest-priority ready ones (WCET runs)."""
    jobs = trace.releases.tolist()
    events = sorted({r for _i, _j, r, _d in jobs} | {x for rows in by_vertex.values() for s, e in rows for x in (s, e)})
    fifo = trace.ties == "fifo"
    for t in events:
        if t >= trace.end_time:
            break
        running = {key for key, rows in by_vertex.items() if any(s <= t < e for s, e in rows)}
        ready = []
        for i, j, r, d in jobs:
            if r > t:
                continue
            for v in range(ts[i].n):
                ran = sum(min(e, t) - s for s, e in by_vertex.get((i, j, v), []) if s < t)
                if ran == ts[i].wcets[v]:
                    continue
                if all(done.get((i, j, u), math.inf) <= t for u in ts[i].predecessors[v]):
                    prio = d if trace.policy == "gedf" else i
                    ready.append(((prio, r if fifo else 0, i, r, v), (i, j, v)))
        ready.sort()
        assert running == {key for _k, key in ready[:m]}, t


@st.composite
def dag_sets(draw):
    tasks = []
    for _ in range(draw(st.integers(1, 3))):
        wcets, edges = draw(dags(max_vertices=6, max_wcet=6))
        vol = sum(wcets)
        T = draw(st.integers(max(2, _length(wcets, edges)), 2 * vol))
        D = draw(st.integers(_length(wcets, edges), 2 * T))
        tasks.append(DAGTask(wcets, edges, T=T, D=D))
    return DAGTaskSet(tasks)


@settings(max_examples=80, deadline=None)
@given(
    dag_sets(),
    st.integers(1, 3),
    st.sampled_from(["gedf", "gfp"]),
    st.sampled_from(["periodic", "sporadic"]),
    st.sampled_from(["index", "fifo"]),
    st.sampled_from(["wcet", "random"]),
    st.integers(0, 1000),
)
def test_recorded_schedules_are_valid_and_follow_the_policy(ts, m, policy, arrivals, ties, execution, seed):
    ties = "index" if policy == "gfp" else ties
    horizon = 4 * max(t.T for t in ts)
    trace = simulate_dag(ts, m, policy=policy, arrivals=arrivals, ties=ties, execution=execution, seed=seed,
                         record=True, horizon=horizon)
    by_vertex, done = _check_schedule(trace, ts, m)
    if execution == "wcet":
        _reference_dispatch(trace, ts, m, by_vertex, done)
    fast = simulate_dag(ts, m, policy=policy, arrivals=arrivals, ties=ties, execution=execution, seed=seed,
                        horizon=horizon)
    assert fast.miss == trace.miss


def test_reproducible_with_a_seed():
    ts = DAGTaskSet([FORK_JOIN, DAGTask([2, 2, 2], [(0, 2)], T=7, D=9), DAGTask([5], [], T=11, D=11)])
    kwargs = dict(arrivals="sporadic", execution="random", ties="random:3", record=True, horizon=400)
    a = simulate_dag(ts, 2, seed=5, **kwargs)
    b = simulate_dag(ts, 2, seed=5, **kwargs)
    c = simulate_dag(ts, 2, seed=6, **kwargs)
    assert np.array_equal(a.segments, b.segments) and np.array_equal(a.releases, b.releases)
    assert a.misses == b.misses and a.response_times == b.response_times
    assert not np.array_equal(a.releases, c.releases)
    # The execution times come from their own stream: they do not change the releases.
    w = simulate_dag(ts, 2, seed=5, **{**kwargs, "execution": "wcet"})
    assert np.array_equal(a.releases, w.releases)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.tuples(st.integers(1, 6), st.integers(0, 6), st.integers(0, 8)), min_size=1, max_size=4),
    st.integers(1, 3),
    st.sampled_from(["gedf", "gfp"]),
    st.sampled_from(["periodic", "sporadic"]),
    st.sampled_from(["index", "fifo", "random:7"]),
    st.integers(0, 100),
)
def test_one_vertex_dags_agree_with_the_task_simulator(rows, m, policy, arrivals, ties, seed):
    ties = "index" if policy == "gfp" else ties
    tasks = [(c, c + dd, c + dd + dt) for c, dd, dt in rows]  # (C, D, T), D <= T
    horizon = 6 * max(t for *_x, t in tasks)
    expected = simulate(TaskSet.from_tasks(tasks), m, policy=policy, arrivals=arrivals, seed=seed, ties=ties,
                        horizon=horizon, record=False)
    ts = DAGTaskSet([DAGTask([c], [], T=t, D=d) for c, d, t in tasks])
    got = simulate_dag(ts, m, policy=policy, arrivals=arrivals, seed=seed, ties=ties, horizon=horizon)
    assert (got.miss is None) == (expected.miss is None)
    if got.miss is not None:
        assert (got.miss.time, got.miss.task) == (expected.miss.time, expected.miss.task)
    assert got.end_time == expected.end_time and got.jobs == expected.jobs
