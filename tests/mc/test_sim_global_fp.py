"""The ``global-fp`` scheduler of the mode-switch simulator: schedules worked by hand, a naive
tick-by-tick oracle on generated sets, and the scenario "lo" against the task simulator's global FP."""

from collections import defaultdict

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rtsched.errors import InputError
from rtsched.mc.model import MCTask, MCTaskSet
from rtsched.mc.sim import MC_SCHEDULERS, DroppedJob, ModeSwitch, simulate_mc
from rtsched.model import TaskSet
from rtsched.sim import simulate

# τ0 LO (2, T = D = 5), τ1 HI (1, 3, 10), τ2 LO (4, 10), τ3 HI (2, 4, 10) on m = 2, job 0 of τ3 overrunning.
HAND = MCTaskSet([MCTask.lo(2, T=5), MCTask.hi(1, 3, T=10), MCTask.lo(4, T=10), MCTask.hi(2, 4, T=10)])


def per_processor(trace):
    """Per processor, the sorted rows (task, job, start, end) it ran."""
    out = defaultdict(list)
    for p, task, job, start, end in trace.segments.tolist():
        out[p].append((task, job, start, end))
    return {p: sorted(rows, key=lambda r: r[2]) for p, rows in out.items()}


def test_scheduler_is_listed():
    assert "global-fp" in MC_SCHEDULERS


@pytest.mark.parametrize(
    ("priorities", "processors", "switch", "dropped", "response_lo", "response_hi"),
    [
        # Task order: τ0, τ1 start; τ1 ends at 1 (τ2 takes processor 1), τ0 at 2 (τ3 takes
        # processor 0). τ3 has run C(LO) = 2 at t = 4 without completing: switch; τ2 (started at
        # 1, 3 of 4 ticks done) is dropped, τ0's arrival at 5 skipped; τ3 ends at 6.
        pytest.param(
            None,
            {0: [(0, 0, 0, 2), (3, 0, 2, 6)], 1: [(1, 0, 0, 1), (2, 0, 1, 4)]},
            ModeSwitch(4, 0, 3, 0),
            DroppedJob(4, 2, 0, 0, 10, 1),
            (2, 1, None, None),
            (None, None, None, 6),
            id="task-order",
        ),
        # τ3 highest: τ3 and τ0 start; at t = 2 τ0 completes, then τ3 (C(LO) = 2 done) switches:
        # τ2, never started, is dropped with 4 ticks left; τ1 runs [2, 3), τ3 ends at 4.
        pytest.param(
            [3, 0, 1, 2],
            {0: [(3, 0, 0, 4)], 1: [(0, 0, 0, 2), (1, 0, 2, 3)]},
            ModeSwitch(2, 0, 3, 0),
            DroppedJob(2, 2, 0, 0, 10, 4),
            (2, None, None, None),
            (None, 3, None, 4),
            id="tau3-highest",
        ),
    ],
)
def test_hand_checked_amc(priorities, processors, switch, dropped, response_lo, response_hi):
    trace = simulate_mc(
        HAND, 2, scheduler="global-fp", scenario="explicit", overruns=[(3, 0)], priorities=priorities,
        record=True, horizon=10,
    )  # fmt: skip
    assert per_processor(trace) == processors
    assert trace.switches == (switch,)
    assert trace.dropped == (dropped,)
    assert trace.skipped == 1  # τ0 at 5
    assert (trace.response_lo, trace.response_hi) == (response_lo, response_hi)
    assert trace.miss is None
    assert trace.priorities == (tuple(priorities) if priorities else (0, 1, 2, 3))
    assert trace.core_scheduler == "fp" and trace.scheduler == "global-fp"


def test_hand_checked_smc():
    """SMC keeps τ2 (it ends at 5, within its C(LO)) and τ0's job at 5 (runs [5, 7) on processor 1)."""
    trace = simulate_mc(
        HAND, 2, scheduler="global-fp", policy="smc", scenario="explicit", overruns=[(3, 0)], record=True, horizon=10
    )
    assert per_processor(trace) == {0: [(0, 0, 0, 2), (3, 0, 2, 6)], 1: [(1, 0, 0, 1), (2, 0, 1, 5), (0, 1, 5, 7)]}
    assert trace.switches == (ModeSwitch(4, 0, 3, 0),)
    assert trace.dropped == () and trace.skipped == 0
    assert trace.response_hi == (2, None, 5, 6)


def test_one_processor_is_uniprocessor_fp():
    for scenario in ("lo", "hi"):
        a = simulate_mc(HAND, 1, scheduler="global-fp", scenario=scenario, record=True, horizon=40)
        b = simulate_mc(HAND, 1, scheduler="fp", scenario=scenario, record=True, horizon=40)
        assert a.segments.tolist() == b.segments.tolist()
        assert (a.misses, a.switches, a.dropped) == (b.misses, b.switches, b.dropped)


def test_bad_input():
    with pytest.raises(InputError, match="global-fp"):
        simulate_mc(HAND, 2, scheduler="fp")
    with pytest.raises(InputError, match="x and virtual_deadlines apply to edf-vd"):
        simulate_mc(HAND, 2, scheduler="global-fp", x="1/2")
    with pytest.raises(InputError, match="permutation"):
        simulate_mc(HAND, 2, scheduler="global-fp", priorities=[0, 1, 2])
    with pytest.raises(InputError, match="top_priority"):
        simulate_mc(HAND, 2, scheduler="global-fp", top_priority=[0])


# -- a naive tick-by-tick oracle: global FP, one system-wide mode ------------------------------------
@st.composite
def mc_sets(draw, max_n=6):
    tasks = []
    for _ in range(draw(st.integers(1, max_n))):
        T = draw(st.sampled_from([2, 3, 4, 5, 6, 8, 10, 12]))
        c_lo = draw(st.integers(1, max(1, T // 2)))
        D = draw(st.integers(c_lo, T))
        if draw(st.booleans()):
            tasks.append(MCTask.hi(c_lo, draw(st.integers(c_lo, T)), T=T, D=D))
        else:
            tasks.append(MCTask.lo(c_lo, T=T, D=D))
    return MCTaskSet(tasks)


def naive_gfp(ts, m, *, rank, policy, demands, horizon, releases):
    """Per tick, the sorted (task, job) pairs that ran on the m processors, the failures and the switch times."""
    mode, trigger, switches, failures, run, pending = "LO", False, [], [], [], []
    arrivals = {(r, i): j for i, times in enumerate(releases) for j, r in enumerate(times)}
    for t in range(horizon + 1):
        for job in sorted(pending, key=lambda job: (job["deadline"], job["task"])):
            if job["deadline"] <= t and not job["missed"]:
                job["missed"] = True
                if ts[job["task"]].is_hi or mode == "LO":
                    failures.append((t, job["task"], job["job"]))
        if trigger:
            trigger, mode = False, "HI"
            switches.append(t)
            if policy == "amc":
                pending = [job for job in pending if ts[job["task"]].is_hi]
        if t == horizon:
            break
        for i, task in enumerate(ts):
            if (t, i) in arrivals and not (policy == "amc" and mode == "HI" and not task.is_hi):
                j = arrivals[t, i]
                left = demands.get((i, j), task.C_lo)
                pending.append({"task": i, "job": j, "deadline": t + task.D, "left": left, "done": 0, "missed": False})
        chosen = sorted(pending, key=lambda job: (rank[job["task"]], job["job"]))[:m]
        run.append(tuple(sorted((job["task"], job["job"]) for job in chosen)))
        for job in chosen:
            job["left"] -= 1
            job["done"] += 1
            if job["left"] == 0:
                pending.remove(job)
            elif ts[job["task"]].is_hi and job["done"] == ts[job["task"]].C_lo and mode == "LO":
                trigger = True
    return run, failures, switches


def running_sets(trace, until):
    per = [[] for _ in range(until)]
    for _p, task, job, start, end in trace.segments.tolist():
        for k in range(start, min(end, until)):
            per[k].append((task, job))
    return [tuple(sorted(cell)) for cell in per]


@settings(max_examples=120, deadline=None)
@given(ts=mc_sets(), m=st.integers(2, 4), smc=st.booleans(), sporadic=st.booleans(), data=st.data())
def test_against_the_naive_oracle(ts, m, smc, sporadic, data):
    horizon = 40
    order = data.draw(st.permutations(range(ts.n)))
    rank = {i: r for r, i in enumerate(order)}
    overruns = {}
    for i in ts.hi_tasks():
        for j in range(horizon // ts[i].T + 1):
            if ts[i].C_hi > ts[i].C_lo and data.draw(st.integers(0, 3)) == 0:
                overruns[(i, j)] = data.draw(st.integers(ts[i].C_lo + 1, ts[i].C_hi))
    scenario = {"scenario": "explicit", "overruns": overruns} if overruns else {"scenario": "lo"}
    policy = "smc" if smc else "amc"
    trace = simulate_mc(
        ts, m, scheduler="global-fp", policy=policy, priorities=order, horizon=horizon, record=True,
        arrivals="sporadic" if sporadic else "periodic", seed=m, **scenario,
    )  # fmt: skip
    run, failures, switches = naive_gfp(
        ts, m, rank=rank, policy=policy, demands=overruns, horizon=horizon, releases=trace.release_times()
    )
    assert running_sets(trace, horizon) == run
    assert [(miss.time, miss.task, miss.job) for miss in trace.misses] == failures
    assert [s.time for s in trace.switches] == switches


@settings(max_examples=50, deadline=None)
@given(ts=mc_sets(), m=st.integers(2, 3), sporadic=st.booleans(), seed=st.integers(0, 2**32))
def test_lo_scenario_equals_the_task_simulator(ts, m, sporadic, seed):
    """Scenario "lo" never switches: global-fp is the task simulator's gfp on the LO budgets (same jobs, same ticks)."""
    arrivals = "sporadic" if sporadic else "periodic"
    mine = simulate_mc(
        ts, m, scheduler="global-fp", scenario="lo", arrivals=arrivals, seed=seed, horizon=120, record=True
    )
    theirs = simulate(
        TaskSet.from_tasks([(t.C_lo, t.D, t.T) for t in ts]), m, policy="gfp", arrivals=arrivals, seed=seed,
        horizon=120,
    )  # fmt: skip
    assert (mine.miss is None) == (theirs.miss is None)
    if theirs.miss is not None:
        assert (mine.miss.time, mine.miss.task) == (theirs.miss.time, theirs.miss.task)
    end = theirs.end_time
    assert running_sets(mine, end) == running_sets(theirs, end)
