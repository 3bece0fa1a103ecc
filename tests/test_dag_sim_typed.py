"""The DAG simulator on typed platforms (simulate_dag(platform=Typed(...)) or units=): a worked example by
hand, schedule invariants (units of the vertex's type only, one vertex per unit, precedence, per-type
work conservation), agreement with identical processors when there is one type, and errors."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rtsched.dag import DAGTask, DAGTaskSet, simulate_dag
from rtsched.errors import InputError
from rtsched.platform import Typed
from rtsched.testing import strategies as rst

# v0 (cpu 1) → v1 (gpu 3), v2 (gpu 2), v3 (cpu 4) → v4 (cpu 1)
FORK = DAGTask(
    [1, 3, 2, 4, 1], [(0, 1), (0, 2), (0, 3), (1, 4), (2, 4), (3, 4)], T=20, D=15,
    types=["cpu", "gpu", "gpu", "cpu", "cpu"],
)  # fmt: skip


def test_worked_example_by_hand():
    # cpu=1, gpu=1: v0 on U0 [0,1); then v1 (gpu, index 1 before v2) on U1 [1,4) and v3 on U0 [1,5);
    # v2 on U1 [4,6); v4 on U0 [6,7): response time 7 (Graham on 2 identical processors could give 6).
    trace = simulate_dag(DAGTaskSet([FORK]), units={"cpu": 1, "gpu": 1}, record=True)
    assert trace.response_times == (7,)
    assert trace.segments.tolist() == [
        [0, 0, 1, 0, 0, 0],
        [1, 1, 4, 0, 0, 1],
        [0, 1, 5, 0, 0, 3],
        [1, 4, 6, 0, 0, 2],
        [0, 6, 7, 0, 0, 4],
    ]
    # two gpu units: v1 and v2 in parallel on U1, U2; cpu stays on U0; done at 6
    trace = simulate_dag(DAGTaskSet([FORK]), platform=Typed({"cpu": 1, "gpu": 2}), record=True)
    assert trace.response_times == (6,) and trace.m == 3 and trace.platform == Typed({"cpu": 1, "gpu": 2})
    assert "typed:cpu=1,gpu=2" in trace.summary()
    assert simulate_dag(DAGTaskSet([FORK]), Typed({"cpu": 2, "gpu": 1})).response_times == (7,)
    assert simulate_dag(DAGTaskSet([FORK]), {"cpu": 1, "gpu": 1}).response_times == (7,)


def test_bad_calls():
    ts = DAGTaskSet([FORK])
    with pytest.raises(InputError, match="vertex type gpu that the platform \\(typed:cpu=3\\) has no unit of"):
        simulate_dag(ts, units={"cpu": 3})
    with pytest.raises(InputError, match="not both"):
        simulate_dag(ts, 2, units={"cpu": 1, "gpu": 1})
    with pytest.raises(InputError, match="one typed platform"):
        simulate_dag(ts, platform=Typed({"cpu": 1, "gpu": 1}), units={"cpu": 1, "gpu": 1})
    with pytest.raises(InputError, match="number of processors"):
        simulate_dag(ts)


def check_schedule(ts, platform, trace):
    """Invariants of a recorded typed run."""
    names = platform.types
    first = {s: sum(platform.count(x) for x in names[: names.index(s)]) for s in names}
    seg = trace.segments.tolist()
    # each vertex on a unit of its type
    for p, _a, _b, i, _j, v in seg:
        s = ts[i].vertex_type(v)
        assert first[s] <= p < first[s] + platform.count(s)
    # one vertex per unit at a time; a vertex on one unit at a time
    by_unit, by_vertex = {}, {}
    for p, a, b, i, j, v in seg:
        by_unit.setdefault(p, []).append((a, b))
        by_vertex.setdefault((i, j, v), []).append((a, b))
    for spans in (*by_unit.values(), *by_vertex.values()):
        spans.sort()
        assert all(x[1] <= y[0] for x, y in zip(spans, spans[1:], strict=False))
    # precedence: a vertex starts after each predecessor's last segment ends
    for (i, j, v), spans in by_vertex.items():
        for u in ts[i].predecessors[v]:
            assert max(b for _a, b in by_vertex[(i, j, u)]) <= min(a for a, _b in spans)
    # per-type work conservation: at every segment boundary t, if a vertex of type s is ready (all its
    # predecessors done, released, not finished) and not running, every unit of type s is busy at t.
    times = sorted({a for _p, a, *_ in seg})
    release = {(i, j): r for i, j, r, _d in trace.releases.tolist()}
    for t in times:
        running = {(i, j, v) for _p, a, b, i, j, v in seg if a <= t < b}
        busy = {s: 0 for s in names}
        for i, _j, v in running:
            busy[ts[i].vertex_type(v)] += 1
        for (i, j, v), spans in by_vertex.items():
            done = max(b for _a, b in spans)
            if (i, j, v) in running or done <= t or release[(i, j)] > t:
                continue
            preds_done = all(max(b for _a, b in by_vertex[(i, j, u)]) <= t for u in ts[i].predecessors[v])
            if preds_done:
                s = ts[i].vertex_type(v)
                assert busy[s] == platform.count(s), (t, i, j, v)


@settings(max_examples=60, deadline=None)
@given(
    ts=rst.dag_tasksets(max_size=3, max_vertices=5, max_period=30, types=("cpu", "gpu")),
    m_cpu=st.integers(1, 3),
    m_gpu=st.integers(1, 2),
    policy=st.sampled_from(["gedf", "gfp"]),
    execution=st.sampled_from(["wcet", "random"]),
)
def test_schedule_invariants(ts, m_cpu, m_gpu, policy, execution):
    platform = Typed({"cpu": m_cpu, "gpu": m_gpu})
    used = {t.vertex_type(v) for t in ts for v in range(t.n)}
    platform = Typed({s: platform.count(s) for s in used})
    trace = simulate_dag(ts, platform=platform, policy=policy, execution=execution, record=True, horizon=90, seed=3)
    check_schedule(ts, platform, trace)


@settings(max_examples=40, deadline=None)
@given(
    ts=rst.dag_tasksets(max_size=3, max_vertices=5, max_period=30),
    m=st.integers(1, 4),
    policy=st.sampled_from(["gedf", "gfp"]),
    arrivals=st.sampled_from(["periodic", "sporadic"]),
)
def test_one_type_is_identical_processors(ts, m, policy, arrivals):
    """Typed({"cpu": m}) and m identical processors give the same run (untyped vertices are cpu)."""
    kw = {"policy": policy, "arrivals": arrivals, "record": True, "horizon": 120, "seed": 5, "execution": "random"}
    a = simulate_dag(ts, m, **kw)
    b = simulate_dag(ts, units={"cpu": m}, **kw)
    assert np.array_equal(a.segments, b.segments) and a.misses == b.misses and a.response_times == b.response_times


@settings(max_examples=60, deadline=None)
@given(task=rst.dag_tasks(max_vertices=7, types=("cpu", "gpu")), m_cpu=st.integers(1, 3), m_gpu=st.integers(1, 3))
def test_a_lone_job_meets_the_typed_graham_bound(task, m_cpu, m_gpu):
    """One job alone: completion ≤ Σ_s vol_s/m_s + max path Σ C_v (1 − 1/m_t(v)) (papers/han2019-typed-dag.md)."""
    units = {"cpu": m_cpu, "gpu": m_gpu}
    trace = simulate_dag(
        DAGTaskSet([task]), units=units, releases=[[0]], execution="wcet", record=True, horizon=task.volume + 1
    )
    vol = {s: 0 for s in units}
    for v in range(task.n):
        vol[task.vertex_type(v)] += task.wcets[v]
    best = [Fraction(0)] * task.n
    for v in task.topological_order:
        w = task.wcets[v] * Fraction(units[task.vertex_type(v)] - 1, units[task.vertex_type(v)])
        best[v] = max((best[u] for u in task.predecessors[v]), default=Fraction(0)) + w
    bound = sum(Fraction(vol[s], units[s]) for s in units) + max(best)
    (r,) = trace.response_times
    assert r is not None and r <= bound
