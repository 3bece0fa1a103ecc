"""Non-preemptive EDF test (George, Rivierre, Spuri 1996): worked cases, kernel == reference, properties.

Independent checks: (a) every rejection comes with a witness (blocker released one tick early, the
others synchronously) that a tick-by-tick non-preemptive EDF simulation below turns into a real
deadline miss; (b) random sporadic simulations never miss when the test accepts; (c) the PROSA-
derived RTA for fully non-preemptive EDF (``response-time-analysis``, a sound peer) never accepts
what this exact test rejects.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rtsched import analyses
from rtsched.analyses.theory.edf_demand import pda_trace
from rtsched.analyses.theory.np_demand import blocking_term, npedf_codes, npedf_one, npedf_trace
from rtsched.errors import InputError
from rtsched.model import TaskSet, TaskSetBatch
from rtsched.testing import strategies as rst

BUDGET = 10**6


# -- a tiny integer-time EDF simulator (non-preemptive jobs run to completion) -------------------
def simulate(rows, nonpreemptive, releases, horizon):
    """Non-idling EDF, ties by (deadline, task index); returns the first missed (task, deadline) or None.

    ``releases[i]`` is the list of release times of task i (any integers, possibly negative).
    """
    jobs = sorted((r, r + rows[i][1], i) for i, rel in enumerate(releases) for r in rel)
    t0 = min(j[0] for j in jobs)
    remaining = {k: rows[j[2]][0] for k, j in enumerate(jobs)}
    running = None
    for x in range(t0, horizon):
        ready = [k for k, j in enumerate(jobs) if j[0] <= x and remaining[k] > 0]
        for k in ready:
            if jobs[k][1] <= x:
                return jobs[k][2], jobs[k][1]
        if (
            running is not None
            and remaining[running] > 0
            and nonpreemptive[jobs[running][2]]
            and remaining[running] < rows[jobs[running][2]][0]
        ):
            pick = running  # a started non-preemptive job keeps the processor
        elif ready:
            pick = min(ready, key=lambda k: (jobs[k][1], jobs[k][2]))
        else:
            pick = None
        running = pick
        if pick is not None:
            remaining[pick] -= 1
    for k, j in enumerate(jobs):
        if remaining[k] > 0 and j[1] <= horizon:
            return j[2], j[1]
    return None


def witness_releases(rows, blocker, t):
    """Blocker (if any) released at −1, every other task synchronously at 0, then periodically."""
    rel = []
    for i, (_, _, p) in enumerate(rows):
        start = -1 if i == blocker else 0
        rel.append(list(range(start, t + 1, p)))
    return rel


# -- worked cases ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("rows", "np_flags", "blocking", "expected", "t"),
    [
        # t = 2: h = 1, B = C2 − 1 = 2 (D2 = 12 > 2): 3 > 2. Blocked τ1 misses its deadline.
        pytest.param([(1, 2, 4), (3, 12, 12)], [True, True], "tick", False, 2, id="note-example-1-reject"),
        # Same set, τ2 preemptive: no blocking, the preemptive processor demand holds.
        pytest.param(
            [(1, 2, 4), (3, 12, 12)], [True, False], "tick", True, None, id="note-example-1-preemptive-blocker"
        ),
        # t = 4: h = 2, B = 2: exactly 4 ≤ 4 (on the boundary). L = 7, only t = 4 < L.
        pytest.param([(2, 4, 4), (3, 12, 12)], [True, True], "tick", True, None, id="note-example-2-boundary"),
        # Dense time: B = C2 = 3, 2 + 3 > 4.
        pytest.param([(2, 4, 4), (3, 12, 12)], [True, True], "dense", False, 4, id="note-example-2-dense"),
        # U > 1 rejected at once.
        pytest.param([(3, 4, 4), (2, 5, 5)], [True, True], "tick", False, None, id="u-above-1"),
    ],
)
def test_worked_cases(rows, np_flags, blocking, expected, t):
    tr = npedf_trace(rows, np_flags, BUDGET, blocking)
    assert tr.verdict is expected
    if t is not None and tr.reason == "violation":
        assert tr.t == t
    C, D, T = (np.array(c, dtype=np.int64) for c in zip(*rows, strict=True))
    code = npedf_one(C, D, T, np.array(np_flags), np.int64(1 if blocking == "tick" else 0), np.int64(BUDGET))
    assert code == int(expected)


def test_worked_example_witness_simulates_a_miss():
    rows = [(1, 2, 4), (3, 12, 12)]
    tr = npedf_trace(rows)
    assert (tr.t, tr.h, tr.B, tr.blocker) == (2, 1, 2, 1)
    assert simulate(rows, [True, True], witness_releases(rows, 1, 30), 40) == (0, 2)


def test_blocking_term_ties_and_strictness():
    rows = [(5, 10, 10), (5, 12, 12), (9, 10, 20)]
    assert blocking_term(rows, [True, True, True], 10) == (4, 1)  # D = 10 is not > 10
    assert blocking_term(rows, [True, True, True], 9) == (8, 2)
    assert blocking_term(rows, [False, False, False], 9) == (0, None)


def test_registry_entry_and_explain():
    entry = analyses.get("uni-npedf")
    assert entry.kind == "exact"
    assert entry.platform == "uniprocessor"
    ts = TaskSet.from_tasks([(1, 2, 4), (3, 12, 12)])
    res = entry.explain(ts, 1)
    assert res.verdict is False
    assert res.evidence["blocker"] == 1
    assert "blocked by τ1" in res.summary
    assert entry.budget == BUDGET and entry.budget_unit
    with pytest.raises(InputError):
        entry.explain(ts, 2)
    with pytest.raises(InputError):
        entry.verdict(ts, 2)


def test_unknown_when_budget_runs_out():
    rows = [(1, 2, 4), (3, 12, 12)]
    assert npedf_trace(rows, None, 1).verdict == "unknown"
    C, D, T = (np.array(c, dtype=np.int64) for c in zip(*rows, strict=True))
    assert npedf_one(C, D, T, np.array([True, True]), np.int64(1), np.int64(1)) == -1
    entry = analyses.get("uni-npedf")
    ts = TaskSet.from_tasks(rows)
    assert entry.verdict(ts, 1, budget=1) == entry.reference(ts, 1, budget=1) == "unknown"
    res = entry.explain(ts, 1, budget=1)
    assert res.verdict == "unknown" and "budget" in res.summary
    assert entry.status(TaskSetBatch.from_tasksets([ts]), 1, budget=1).tolist() == [-1]


# -- kernel == reference ---------------------------------------------------------------------------
@st.composite
def np_sets(draw, max_size=6, max_period=40):
    ts = draw(rst.tasksets(max_size=max_size, max_period=max_period, max_utilization=1.0))
    flags = draw(st.lists(st.booleans(), min_size=ts.n, max_size=ts.n))
    return ts.rows(), flags


@st.composite
def boundary_np_sets(draw):
    """Sets with h(t) + B(t) = t (or t + 1) at the first deadline t: a blocker is sized to hit it."""
    rows, flags = draw(np_sets(max_size=4))
    t = min(d for _, d, _ in rows)
    h = sum(c for c, d, _ in rows if d == t)
    extra = draw(st.integers(0, 1))
    c_block = t - h + 1 + extra  # B = c_block − 1 = t − h + extra
    if c_block < 1:
        c_block = 1
    D = draw(st.integers(max(t + 1, c_block), max(t + 1, c_block) + 30))
    T = draw(st.integers(D, D + 30))
    return [*rows, (c_block, D, T)], [*flags, True]


def _kernel_code(rows, flags, blocking="tick", budget=BUDGET):
    C, D, T = (np.array(c, dtype=np.int64) for c in zip(*rows, strict=True))
    return int(
        npedf_one(C, D, T, np.array(flags, dtype=np.bool_), np.int64(1 if blocking == "tick" else 0), np.int64(budget))
    )


def _code(verdict):
    return -1 if verdict == "unknown" else int(verdict)


@given(np_sets(), st.sampled_from(["tick", "dense"]), st.sampled_from([3, 20, BUDGET]))
def test_kernel_equals_reference(case, blocking, budget):
    rows, flags = case
    assert _kernel_code(rows, flags, blocking, budget) == _code(npedf_trace(rows, flags, budget, blocking).verdict)


@given(boundary_np_sets())
def test_kernel_equals_reference_on_the_boundary(case):
    rows, flags = case
    tr = npedf_trace(rows, flags)
    assert _kernel_code(rows, flags) == _code(tr.verdict)


@settings(max_examples=30)
@given(st.lists(np_sets(max_size=5), min_size=1, max_size=8))
def test_batch_status_equals_reference(cases):
    sets = [TaskSet.from_tasks(rows) for rows, _ in cases]
    flags = np.concatenate([np.array(f, dtype=np.bool_) for _, f in cases])
    codes = npedf_codes(TaskSetBatch.from_tasksets(sets), flags)
    assert codes.tolist() == [_code(npedf_trace(rows, f).verdict) for rows, f in cases]


@settings(max_examples=30)
@given(st.lists(np_sets(max_size=5), min_size=1, max_size=8), st.sampled_from([3, 20, BUDGET]))
def test_registry_kernel_one_and_reference_agree(cases, budget):
    """uni-npedf (every task non-preemptive): batch kernel, serial one-set kernel and reference."""
    entry = analyses.get("uni-npedf")
    sets = [TaskSet.from_tasks(rows) for rows, _ in cases]
    expected = [_code(npedf_trace(ts.rows(), None, budget).verdict) for ts in sets]
    assert entry.status(TaskSetBatch.from_tasksets(sets), 1, budget=budget).tolist() == expected
    assert [_code(entry.verdict(ts, 1, budget=budget)) for ts in sets] == expected
    assert [_code(entry.reference(ts, 1, budget=budget)) for ts in sets] == expected


# -- properties ------------------------------------------------------------------------------------
@given(np_sets())
def test_without_nonpreemptive_tasks_it_is_the_processor_demand_criterion(case):
    rows, _ = case
    assert npedf_trace(rows, [False] * len(rows)).verdict == pda_trace(rows).verdict


@given(np_sets())
def test_blocking_only_hurts(case):
    rows, flags = case
    if npedf_trace(rows, flags).verdict is True:
        assert npedf_trace(rows, [False] * len(rows)).verdict is True
    if npedf_trace(rows, flags, blocking="dense").verdict is True:
        assert npedf_trace(rows, flags, blocking="tick").verdict is True


@settings(max_examples=60)
@given(np_sets(max_size=4, max_period=20))
def test_every_rejection_has_a_simulated_deadline_miss(case):
    """Necessity: the witness of a violation (blocker at −1, others at 0) misses a deadline."""
    rows, flags = case
    tr = npedf_trace(rows, flags)
    if tr.reason != "violation":
        return
    rel = witness_releases(rows, tr.blocker, tr.t)
    assert simulate(rows, flags, rel, tr.t + 1) is not None


@settings(max_examples=60)
@given(np_sets(max_size=4, max_period=15), st.data())
def test_accepted_sets_never_miss_in_random_sporadic_runs(case, data):
    """Sufficiency, sampled: sporadic releases (random offsets and gaps) of an accepted set never miss."""
    rows, flags = case
    if npedf_trace(rows, flags).verdict is not True:
        return
    horizon = 4 * max(p for _, _, p in rows) + 10
    rel = []
    for _, _, p in rows:
        r = data.draw(st.integers(-2, p))
        times = []
        while r < horizon:
            times.append(r)
            r += p + data.draw(st.integers(0, 2))
        rel.append(times)
    assert simulate(rows, flags, rel, horizon + max(d for _, d, _ in rows)) is None


@settings(max_examples=60)
@given(np_sets(max_size=5))
def test_prosa_rta_for_nonpreemptive_edf_never_accepts_a_rejected_set(case):
    """Peer check: the PROSA-verified RTA (sufficient) accepting implies this exact test accepts."""
    rta = pytest.importorskip("response_time_analysis")
    from response_time_analysis.model import WCET, Deadline, FullyNonPreemptive, IdealProcessor, Sporadic, Task, taskset

    rows, _ = case
    if len(set(rows)) < len(rows):
        return  # the package identifies tasks by value: equal tasks would be excluded together
    tasks = [Task(Sporadic(p), FullyNonPreemptive(WCET(c)), Deadline(d)) for c, d, p in rows]
    ts = taskset(tasks)
    ok = True
    for task, (_, d, _) in zip(tasks, rows, strict=True):
        sol = rta.edf.rta(ts, task, IdealProcessor(), horizon=10_000)
        bound = getattr(sol, "response_time_bound", None)
        if bound is None or bound > d:
            ok = False
            break
    if ok:
        assert npedf_trace(rows, [True] * len(rows)).verdict is True
