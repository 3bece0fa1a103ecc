"""uni-rta on arbitrary deadlines (D > T): the level-k busy period of Lehoczky (1990) / Tindell et al. (1994).

papers/tindell1994-arbitrary-deadlines.md: worked examples by hand, kernel == reference on D > T
sets (also at small budgets), and the analysis against the simulator (rtsched.sim, FIFO within a
task): exact for synchronous periodic release on one processor (the verdicts agree, and every
accepted task's response time R_k is the largest response time the simulation observes), and sound
for sporadic releases.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rtsched import analyses
from rtsched.analyses.theory.fp_rta import busy_period, response_times
from rtsched.analyses.uniprocessor import uni_fp
from rtsched.model import TaskSet, TaskSetBatch
from rtsched.priorities import audsley
from rtsched.sim import simulate
from rtsched.testing import strategies as rst

EXAMPLES = int(os.environ.get("RTSCHED_PROPERTY_EXAMPLES", "150"))
RTA = analyses.get("uni-rta")


def code(verdict: object) -> int:
    return -1 if verdict == "unknown" else int(bool(verdict))


def arbitrary_sets(max_size: int = 4, max_period: int = 8):
    return rst.tasksets(min_size=1, max_size=max_size, max_period=max_period, deadlines="arbitrary")


@st.composite
def backlogged_sets(draw, max_size: int = 4, max_period: int = 10) -> TaskSet:
    """D > T sets with U <= 1 in reverse rate-monotonic order: short periods at low priority, so
    that their level-k busy periods often hold several jobs (w_k(0) > T_k)."""
    ts = draw(
        rst.tasksets(min_size=2, max_size=max_size, max_period=max_period, deadlines="arbitrary", max_utilization=1.0)
    )
    return TaskSet.from_tasks(sorted(ts.rows(), key=lambda r: -r[2]), deadlines="arbitrary")


def observed_response_times(trace) -> list[int]:
    """Largest response time of each task's completed jobs in a recorded run (0: none completed)."""
    release = {(t, j): r for t, j, r, _d in trace.releases.tolist()}
    done: dict[tuple[int, int], int] = {}
    for _cpu, t, j, _s, e in trace.segments.tolist():
        done[(t, j)] = e
    worst = [0] * trace.taskset.n
    ts = trace.taskset
    for (t, j), e in done.items():
        if trace.executed(t, j) == int(ts.C[t]):
            worst[t] = max(worst[t], e - release[(t, j)])
    return worst


# -- worked examples ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rows", "k", "jobs", "response"),
    [
        pytest.param([(3, 6, 6), (2, 6, 4)], 1, [(5, 5), (10, 6), (12, 4)], 6, id="note-example-three-jobs"),
        pytest.param(
            [(26, 200, 70), (62, 200, 100)],
            1,
            [(114, 114), (202, 102), (316, 116), (404, 104), (518, 118), (606, 106), (694, 94)],
            118,
            id="lehoczky1990-C26T70-C62T100-fifth-job",
        ),
        pytest.param([(3, 10, 6), (3, 12, 6)], 1, [(6, 6)], 6, id="one-job-when-w0-le-T"),
    ],
)
def test_worked_examples(rows, k, jobs, response) -> None:
    it = busy_period(rows, k, sum(c for c, _, _ in rows[: k + 1]), 1000, None)
    assert list(it.jobs) == jobs and it.response_time == response
    ts = TaskSet.from_tasks(rows, deadlines="arbitrary")
    assert RTA.verdict(ts, 1) is RTA.reference(ts, 1) is True
    assert RTA.explain(ts, 1).per_task[k]["response_time"] == response
    # the simulator sees the same jobs complete at the same times (synchronous release)
    assert observed_response_times(simulate(ts, 1, policy="gfp"))[k] == response


def test_explain_lists_each_job_of_the_busy_period() -> None:
    ts = TaskSet.from_tasks([(3, 6, 6), (2, 6, 4)], deadlines="arbitrary")
    res = RTA.explain(ts, 1)
    row = res.per_task[1]
    assert row["jobs"] == 3 and row["busy_period"] == "w(0) = 5, R(0) = 5; w(1) = 10, R(1) = 6; w(2) = 12, R(2) = 4"
    text = "\n".join(str(s) for s in res.steps)
    assert "w²(1) = 2·2 + ⌈10/6⌉·3 = 10: w(1) = 10, R(1) = w(1) − 1·4 = 6 ≤ D = 6" in text
    assert "R = max_q R(q) = 6" in text


def test_a_later_job_misses_and_explain_says_which() -> None:
    # D = 5: job 0 meets it (R = 5), job 1 (released at 4) needs w(1) = 10 > 1·4 + 5
    ts = TaskSet.from_tasks([(3, 6, 6), (2, 5, 4)], deadlines="arbitrary")
    assert RTA.verdict(ts, 1) is RTA.reference(ts, 1) is False
    res = RTA.explain(ts, 1)
    assert res.evidence["failing_job"] == 1 and res.evidence["failing_task"] == 1
    assert "job q = 1" in res.summary and "10 > q·T + D = 9" in res.summary
    miss = simulate(ts, 1, policy="gfp").miss
    assert miss is not None and (miss.task, miss.job, miss.time) == (1, 1, 9)


def test_overload_of_one_task_is_rejected() -> None:
    # C > T (allowed with D > T): w(q) = 3(q + 1), R(q) = q + 3 exceeds D = 10 at q = 8
    ts = TaskSet.from_tasks([(3, 10, 2)], deadlines="arbitrary")
    res = RTA.explain(ts, 1)
    assert res.verdict is False and res.evidence["failing_job"] == 8
    assert RTA.verdict(ts, 1) is False
    assert simulate(ts, 1, policy="gfp").miss is not None


def test_constrained_sets_run_the_same_evaluations() -> None:
    # D <= T: one job per task, (RTA) exactly (the evaluation counts of papers/joseph-pandya1986-rta.md)
    rows = [(1, 3, 4), (1, 4, 5), (2, 5, 6), (1, 10, 11)]
    run = response_times(rows)
    assert run.response == (1, 2, 4, 10)
    it = busy_period(rows, 3, 5, 100, None)
    assert (it.response_time, it.evaluations, it.jobs) == (10, 5, ((10, 10),))


def test_budget_gives_unknown_never_false() -> None:
    ts = TaskSet.from_tasks([(26, 200, 70), (62, 200, 100)], deadlines="arbitrary")
    full = uni_fp.rta(ts).used
    for budget in range(1, full):
        assert RTA.verdict(ts, 1, budget) == RTA.reference(ts, 1, budget) == "unknown"
    assert RTA.verdict(ts, 1, full) is True


# -- properties -------------------------------------------------------------------------------


@settings(max_examples=EXAMPLES, deadline=None)
@given(rst.tasksets(max_size=8, max_period=10**5, deadlines="arbitrary"), st.integers(1, 80))
def test_kernel_equals_reference_on_arbitrary_deadlines(ts: TaskSet, budget: int) -> None:
    for b in (budget, None):
        assert code(RTA.verdict(ts, 1, b)) == code(RTA.reference(ts, 1, b))
    batch = TaskSetBatch.from_tasksets([ts, ts])
    assert RTA.status(batch, 1, budget).tolist() == [code(RTA.reference(ts, 1, budget))] * 2


@settings(max_examples=EXAMPLES, deadline=None)
@given(st.one_of(arbitrary_sets(), backlogged_sets()))
def test_exact_against_synchronous_periodic_simulation(ts: TaskSet) -> None:
    """Same verdict as the simulator's decided periodic run, and R_k = the largest observed response."""
    verdict = RTA.verdict(ts, 1)
    if verdict == "unknown":
        return
    trace = simulate(ts, 1, policy="gfp")
    decided = trace.miss is not None or trace.repeats_at is not None or ts.is_constrained
    assert decided
    assert verdict is (trace.miss is None)
    if verdict is True:
        run = uni_fp.rta(ts)
        assert observed_response_times(trace) == list(run.response)


@settings(max_examples=EXAMPLES, deadline=None)
@given(st.one_of(arbitrary_sets(max_size=5, max_period=12), backlogged_sets(5, 12)), st.integers(0, 2**16))
def test_sound_for_sporadic_releases(ts: TaskSet, seed: int) -> None:
    if RTA.verdict(ts, 1) is not True:
        return
    for k in range(2):
        trace = simulate(ts, 1, policy="gfp", arrivals="sporadic", seed=seed + k, horizon=300, record=False)
        assert trace.miss is None


@settings(max_examples=60, deadline=None)
@given(arbitrary_sets(max_size=5, max_period=10))
def test_audsley_with_the_busy_period_analysis(ts: TaskSet) -> None:
    # OPA-compatible (a task's busy period depends on the set of higher-priority tasks, not their
    # order, and grows with it): Audsley's order passes, and it exists whenever the given order passes
    ordered = audsley(ts, uni_fp.rta_fits_lowest)
    if ordered is not None:
        assert RTA.verdict(ordered, 1) is True
    if RTA.verdict(ts, 1) is True:
        assert ordered is not None
