"""The mode-switch simulator (rtsched.mc.sim): schedules worked by hand tick by tick, a naive
tick-by-tick oracle on generated sets, the scenario "lo" against the task simulator on the LO
budgets, reproducibility, the arrival models, the adversarial switch search and bad input."""

from collections import defaultdict
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rtsched.errors import InputError
from rtsched.mc.model import MCTask, MCTaskSet
from rtsched.mc.sim import DroppedJob, MCDeadlineMiss, ModeSwitch, simulate_mc, switch_search
from rtsched.model import TaskSet
from rtsched.sim import simulate

# τ0 LO (C = 2, T = D = 4) above τ1 HI (C(LO) = 1, C(HI) = 3, T = D = 6) under FP: AMC-rtb gives
# R1(LO) = 1 + 2 = 3 and R1* = 3 + ceil(3/4)·2 = 5 <= 6; SMC's R1 = 3 + ceil(R1/4)·2 = 7 > 6.
AMC_BEATS_SMC = MCTaskSet([MCTask.lo(2, T=4), MCTask.hi(1, 3, T=6)])
# τ0 LO (2, 4), τ1 HI (1, 3, 4): U_LL = 1/2, U_HL = 1/4, U_HH = 3/4. EDF-VD's x = U_HL/(1 - U_LL)
# = 1/2 and x·U_LL + U_HH = 1 (Baruah et al. 2012, Thm. 1 condition): accepted; plain EDF misses.
EDF_VD_NEEDED = MCTaskSet([MCTask.lo(2, T=4), MCTask.hi(1, 3, T=4)])


def ticks(trace, until=None):
    """Per processor, per tick: the (task, job) that ran, from the recorded segments."""
    until = trace.end_time if until is None else until
    out = defaultdict(lambda: [None] * until)
    for p, task, job, start, end in trace.segments.tolist():
        for k in range(start, min(end, until)):
            assert out[p][k] is None, f"processor {p} runs two jobs at {k}"
            out[p][k] = (task, job)
    return dict(out)


# -- worked schedules -----------------------------------------------------------------------------
def test_fp_amc_drops_lo_and_meets_hi():
    trace = simulate_mc(AMC_BEATS_SMC, policy="amc", scenario="hi", record=True)
    # [0, 2) τ0; [2, 3) τ1 uses C(LO) = 1 and goes on: switch at 3; τ0's arrivals at 4 and 8 are
    # skipped; τ1 completes at 5 (R* = 5 as AMC-rtb) and its job 1 runs [6, 9).
    assert trace.segments.tolist() == [[0, 0, 0, 0, 2], [0, 1, 0, 2, 5], [0, 1, 1, 6, 9]]
    assert trace.switches == (ModeSwitch(time=3, core=0, task=1, job=0),)
    assert trace.switch_time == 3 and trace.skipped == 2 and trace.dropped == ()
    assert trace.miss is None and trace.late == ()
    assert trace.response_lo == (2, None) and trace.response_hi == (None, 5)
    assert trace.overruns.tolist() == [[1, 0, 3], [1, 1, 3]]
    assert trace.release_times() == [[0, 4, 8], [0, 6]]
    assert str(trace) == (
        "no failure in [0, 12] (fp AMC on m=1, periodic arrivals, hi scenario, 3 jobs; "
        "switch at t=3, 0 LO jobs dropped, 2 LO arrivals skipped)"
    )


def test_fp_smc_misses_the_hi_deadline():
    trace = simulate_mc(AMC_BEATS_SMC, policy="smc", scenario="hi")
    # τ0's job 1 (released at 4) keeps its priority over τ1: τ1 has 1 tick left at 6.
    assert trace.miss == MCDeadlineMiss(6, 1, 0, 1, release=0, deadline=6, mode="HI", core=0)
    assert trace.end_time == 6 and trace.jobs == 3
    assert str(trace).startswith("deadline miss: τ1 (HI) job 0 (released at 0) at t=6 in HI mode with 1 tick left")
    recorded = simulate_mc(AMC_BEATS_SMC, policy="smc", scenario="hi", record=True)
    # Recorded runs go on: τ1's late job 0 runs [6, 7) before job 1 (same task, release order).
    assert recorded.segments.tolist() == [
        [0, 0, 0, 0, 2], [0, 1, 0, 2, 4], [0, 0, 1, 4, 6], [0, 1, 0, 6, 7],
        [0, 1, 1, 7, 8], [0, 0, 2, 8, 10], [0, 1, 1, 10, 12],
    ]  # fmt: skip
    assert recorded.misses == (trace.miss,) and recorded.skipped == 0
    assert recorded.response_hi == (2, 7)


def test_lo_scenario_never_switches():
    for policy in ("amc", "smc"):
        trace = simulate_mc(AMC_BEATS_SMC, policy=policy, scenario="lo", record=True)
        assert trace.switches == () and trace.miss is None
        assert trace.response_lo == (2, 3) and trace.response_hi == (None, None)


def test_lo_job_due_at_the_switch_instant_is_a_lo_mode_failure():
    # τ0 HI (C(LO) = 2, C(HI) = 4, T = D = 10) above τ1 LO (C = 1, T = D = 2): τ0 runs [0, 2) and
    # switches at 2, when τ1's job 0 is due with its tick left: a miss in LO mode (checked first).
    ts = MCTaskSet([MCTask.hi(2, 4, T=10), MCTask.lo(1, T=2)])
    trace = simulate_mc(ts, scenario="hi")
    assert trace.miss == MCDeadlineMiss(2, 1, 0, 1, release=0, deadline=2, mode="LO", core=0)
    assert trace.switch_time is None  # the run stopped at the failure, before applying the switch
    recorded = simulate_mc(ts, scenario="hi", record=True)
    assert recorded.switch_time == 2 and recorded.dropped == (DroppedJob(2, 1, 0, 0, 2, 1),)


def test_edf_misses_where_edf_vd_meets():
    edf = simulate_mc(EDF_VD_NEEDED, scheduler="edf", scenario="hi", record=True, horizon=8)
    # Equal deadlines 4: τ0 first (index), τ1 [2, 3) switches at 3 with 2 of 3 ticks left.
    assert edf.miss == MCDeadlineMiss(4, 1, 0, 1, release=0, deadline=4, mode="HI", core=0)
    vd = simulate_mc(EDF_VD_NEEDED, scheduler="edf-vd", x=Fraction(1, 2), scenario="hi", record=True, horizon=8)
    # τ1's virtual deadline 0 + 4/2 = 2 < 4: it runs first, switches at 1 and completes at 3.
    assert vd.segments.tolist() == [[0, 1, 0, 0, 3], [0, 1, 1, 4, 7]]
    assert vd.miss is None and vd.switch_time == 1
    assert vd.dropped == (DroppedJob(time=1, task=0, job=0, release=0, deadline=4, remaining=2),)
    assert vd.virtual_deadlines == (Fraction(4), Fraction(2))
    # The same with Ekberg-Yi style per-task virtual deadlines.
    per_task = simulate_mc(
        EDF_VD_NEEDED, scheduler="edf-vd", virtual_deadlines=[None, 2], scenario="hi", record=True, horizon=8
    )
    assert per_task.segments.tolist() == vd.segments.tolist()
    # LO mode: τ1 [0, 1), τ0 [1, 3).
    lo = simulate_mc(EDF_VD_NEEDED, scheduler="edf-vd", x="1/2", scenario="lo", record=True)
    assert lo.segments.tolist() == [[0, 1, 0, 0, 1], [0, 0, 0, 1, 3]] and lo.response_lo == (3, 1)


def test_virtual_deadline_is_exact():
    # x = 2/3, D = 4: virtual deadline 8/3 < 3 (τ0's deadline), so τ1 runs first; with x = 3/4 it
    # is exactly 3 and the tie goes to the lower index τ0.
    ts = MCTaskSet([MCTask.lo(1, T=3), MCTask.hi(1, 2, T=4)])
    first = simulate_mc(ts, scheduler="edf-vd", x="2/3", scenario="lo", record=True, horizon=3)
    assert first.segments.tolist()[0] == [0, 1, 0, 0, 1]
    tie = simulate_mc(ts, scheduler="edf-vd", x="3/4", scenario="lo", record=True, horizon=3)
    assert tie.segments.tolist()[0] == [0, 0, 0, 0, 1]
    fifo = simulate_mc(ts, scheduler="edf-vd", x="3/4", scenario="lo", record=True, horizon=3, ties="fifo")
    assert fifo.segments.tolist()[0] == [0, 0, 0, 0, 1]


def test_return_to_lo_at_idle_instants():
    trace = simulate_mc(AMC_BEATS_SMC, scenario="hi", return_to_lo="idle", record=True)
    # Switch at 3, idle at 5 (back to LO); τ1's job 1 (released at 6, in LO mode) switches again
    # at 7 and completes at 9 (idle: LO again); τ0's arrivals at 4 and 8 fall in HI mode.
    assert [(s.time, s.task, s.job) for s in trace.switches] == [(3, 1, 0), (7, 1, 1)]
    assert trace.returns == ((5, 0), (9, 0))
    assert trace.skipped == 2 and trace.miss is None
    assert trace.segments.tolist() == [[0, 0, 0, 0, 2], [0, 1, 0, 2, 5], [0, 1, 1, 6, 9]]
    # Only τ1's job 0 overruns: back in LO mode at 5, so τ0's arrival at 8 releases a job.
    back = simulate_mc(
        AMC_BEATS_SMC, scenario="explicit", overruns=[(1, 0)], return_to_lo="idle", record=True, horizon=12
    )
    assert back.returns == ((5, 0),) and back.skipped == 1  # the arrival at 4; the one at 8 runs
    assert [0, 0, 2, 8, 10] in back.segments.tolist()


def test_escalate_raises_pending_and_later_hi_demands():
    ts = MCTaskSet([MCTask.hi(1, 2, T=4), MCTask.hi(1, 3, T=8)])
    plain = simulate_mc(ts, scenario="explicit", overruns=[(0, 0)], record=True)
    assert plain.switch_time == 1
    assert plain.segments.tolist() == [[0, 0, 0, 0, 2], [0, 1, 0, 2, 3], [0, 0, 1, 4, 5]]
    worst = simulate_mc(ts, scenario="explicit", overruns=[(0, 0)], escalate=True, record=True)
    # τ1's pending job 0 now needs C(HI) = 3, τ0's job 1 (HI mode) C(HI) = 2.
    assert worst.segments.tolist() == [[0, 0, 0, 0, 2], [0, 1, 0, 2, 4], [0, 0, 1, 4, 6], [0, 1, 0, 6, 7]]
    assert worst.response_hi == (2, 7)


def test_partitioned_cores_switch_on_their_own():
    ts = MCTaskSet([*AMC_BEATS_SMC, MCTask.lo(1, T=4), MCTask.hi(1, 2, T=4)])
    trace = simulate_mc(
        ts, 2, scheduler="partitioned", partition=[0, 0, 1, 1], scenario="explicit", overruns=[(1, 0)], record=True
    )
    assert trace.switches == (ModeSwitch(time=3, core=0, task=1, job=0),)
    assert trace.skipped == 2  # τ0 at 4 and 8, on core 0; τ2 on core 1 keeps every job
    per_tick = ticks(trace)
    assert per_tick[1] == [(2, 0), (3, 0), None, None, (2, 1), (3, 1), None, None, (2, 2), (3, 2), None, None]
    assert trace.partition == (0, 0, 1, 1) and trace.priorities == (0, 1, 2, 3)
    # Every core switches when its own HI jobs overrun.
    both = simulate_mc(ts, 2, scheduler="partitioned", partition=[0, 0, 1, 1], scenario="hi")
    assert [(s.time, s.core) for s in both.switches] == [(2, 1), (3, 0)]


def test_global_edf_vd_switches_every_processor():
    ts = MCTaskSet([MCTask.hi(1, 3, T=4), MCTask.lo(3, T=4), MCTask.lo(2, T=4)])
    trace = simulate_mc(ts, 2, scheduler="global-edf-vd", x="1/2", scenario="hi", record=True, horizon=4)
    # τ0 (virtual deadline 2) and τ1 (4, lower index than τ2) run; τ0 switches at 1: τ1 (running)
    # and τ2 (waiting) are dropped system-wide.
    assert trace.dropped == (DroppedJob(1, 1, 0, 0, 4, 2), DroppedJob(1, 2, 0, 0, 4, 2))
    assert sorted(trace.segments.tolist()) == [[0, 0, 0, 0, 3], [1, 1, 0, 0, 1]]


def test_explicit_priorities():
    # The LO task below the HI task: no interference left for τ1 (index 1), now highest.
    trace = simulate_mc(AMC_BEATS_SMC, policy="smc", scenario="hi", priorities=[1, 0], record=True, horizon=6)
    assert trace.segments.tolist()[:2] == [[0, 1, 0, 0, 3], [0, 0, 0, 3, 5]]
    assert trace.miss is None and trace.late == (MCDeadlineMiss(4, 0, 0, 1, release=0, deadline=4, mode="HI", core=0),)


# -- a naive tick-by-tick oracle ------------------------------------------------------------------
@st.composite
def mc_sets(draw, max_n=4):
    tasks = []
    for _ in range(draw(st.integers(1, max_n))):
        T = draw(st.sampled_from([2, 3, 4, 5, 6, 8, 10, 12]))
        c_lo = draw(st.integers(1, max(1, T // 2)))
        D = draw(st.integers(c_lo, T))  # C(LO) <= D: the task simulator's TaskSet asks for it
        if draw(st.booleans()):
            tasks.append(MCTask.hi(c_lo, draw(st.integers(c_lo, T)), T=T, D=D))
        else:
            tasks.append(MCTask.lo(c_lo, T=T, D=D))
    return MCTaskSet(tasks)


def naive(ts, *, scheduler, policy, demands, horizon, releases, x=None, m=1, escalate=False, back=False):
    """One tick at a time, global on m processors (m = 1: uniprocessor), the given release times,
    index ties; ``demands`` maps (task, arrival index) to the demand (default C(LO)). Returns
    (per tick the sorted (task, job) pairs that ran, failures, switch times, dropped jobs); ``back``:
    return to LO mode at an idle instant."""
    mode, switches, trigger = "LO", [], False
    pending, run, failures, dropped = [], [], [], []
    arrivals = {(r, i): j for i, times in enumerate(releases) for j, r in enumerate(times)}

    def key(job):
        i, j, r = job["task"], job["job"], job["release"]
        if scheduler == "fp":
            return (i, j)
        d = Fraction(ts[i].D)
        if scheduler in ("edf-vd", "global-edf-vd") and ts[i].is_hi and mode == "LO":
            d *= x
        return (r + d, i, j)

    for t in range(horizon + 1):
        for job in sorted(pending, key=lambda job: (job["release"] + ts[job["task"]].D, job["task"])):
            if job["release"] + ts[job["task"]].D <= t and not job["missed"]:
                job["missed"] = True
                if ts[job["task"]].is_hi or mode == "LO":
                    failures.append((t, job["task"], job["job"]))
        if trigger:
            trigger, mode = False, "HI"
            switches.append(t)
            if policy == "amc":
                dropped += [(job["task"], job["job"]) for job in pending if not ts[job["task"]].is_hi]
                pending = [job for job in pending if ts[job["task"]].is_hi]
            if escalate:
                for job in pending:
                    if ts[job["task"]].is_hi:
                        job["left"] = ts[job["task"]].C_hi - job["done"]
        if back and mode == "HI" and not pending:
            mode = "LO"
        if t == horizon:
            break
        for i, task in enumerate(ts):
            if (t, i) in arrivals and not (policy == "amc" and mode == "HI" and not task.is_hi):
                j = arrivals[t, i]
                demand = task.C_hi if escalate and mode == "HI" and task.is_hi else demands.get((i, j), task.C_lo)
                pending.append({"task": i, "job": j, "release": t, "left": demand, "done": 0, "missed": False})
        chosen = sorted(pending, key=key)[:m]
        run.append(tuple(sorted((job["task"], job["job"]) for job in chosen)))
        for job in chosen:
            job["left"] -= 1
            job["done"] += 1
            if job["left"] == 0:
                pending.remove(job)
            elif ts[job["task"]].is_hi and job["done"] == ts[job["task"]].C_lo and mode == "LO":
                trigger = True
    return run, failures, switches, dropped


def running_sets(trace, until):
    """Per tick, the sorted (task, job) pairs that ran on any processor."""
    per = [[] for _ in range(until)]
    for _p, task, job, start, end in trace.segments.tolist():
        for k in range(start, min(end, until)):
            per[k].append((task, job))
    return [tuple(sorted(cell)) for cell in per]


@settings(max_examples=150)
@given(
    ts=mc_sets(5),
    m=st.sampled_from([1, 1, 2, 3]),
    scheduler=st.sampled_from(["fp", "edf", "edf-vd"]),
    policy=st.sampled_from(["amc", "smc"]),
    x=st.sampled_from([Fraction(1, 2), Fraction(2, 3), Fraction(1)]),
    sporadic=st.booleans(),
    escalate=st.booleans(),
    back=st.booleans(),
    data=st.data(),
)
def test_against_the_naive_oracle(ts, m, scheduler, policy, x, sporadic, escalate, back, data):
    horizon = 40
    if m > 1:
        scheduler = "global-edf-vd"
    overruns = {}
    for i in ts.hi_tasks():
        for j in range(horizon // ts[i].T + 1):
            if ts[i].C_hi > ts[i].C_lo and data.draw(st.integers(0, 3)) == 0:
                overruns[(i, j)] = data.draw(st.integers(ts[i].C_lo + 1, ts[i].C_hi))
    xs = x if scheduler in ("edf-vd", "global-edf-vd") else None
    arrivals = "sporadic" if sporadic else "periodic"
    options = dict(scheduler=scheduler, policy=policy, x=xs, horizon=horizon, record=True, arrivals=arrivals, seed=m)
    scenario = dict(scenario="explicit", overruns=overruns) if overruns else dict(scenario="lo")
    trace = simulate_mc(ts, m, escalate=escalate, return_to_lo="idle" if back else "never", **scenario, **options)
    run, failures, switches, dropped = naive(
        ts, scheduler=scheduler, policy=policy, demands=overruns, horizon=horizon, x=x, m=m,
        releases=trace.release_times(), escalate=escalate, back=back,
    )  # fmt: skip
    assert running_sets(trace, horizon) == run
    assert [(miss.time, miss.task, miss.job) for miss in trace.misses] == failures
    assert [s.time for s in trace.switches] == switches
    assert sorted((d.task, d.job) for d in trace.dropped) == sorted(dropped)
    if not sporadic:
        assert trace.release_times() == [list(range(0, horizon, t.T)) for t in ts]


# -- the scenario "lo" is the task simulator on the LO budgets ------------------------------------
def plain(ts):
    return TaskSet.from_tasks([(t.C_lo, t.D, t.T) for t in ts])


@settings(max_examples=60)
@given(ts=mc_sets(5), scheduler=st.sampled_from(["fp", "edf"]), sporadic=st.booleans(), seed=st.integers(0, 2**32))
def test_lo_scenario_equals_the_task_simulator(ts, scheduler, sporadic, seed):
    arrivals = "sporadic" if sporadic else "periodic"
    horizon = 120
    mine = simulate_mc(ts, scheduler=scheduler, scenario="lo", arrivals=arrivals, seed=seed, horizon=horizon)
    theirs = simulate(
        plain(ts), 1, policy="gfp" if scheduler == "fp" else "gedf", arrivals=arrivals, seed=seed, horizon=horizon
    )
    assert (mine.end_time, mine.jobs) == (theirs.end_time, theirs.jobs)
    assert (mine.miss is None) == (theirs.miss is None)
    if theirs.miss is not None:
        assert (mine.miss.time, mine.miss.task) == (theirs.miss.time, theirs.miss.task)
    rec = simulate_mc(
        ts, scheduler=scheduler, scenario="lo", arrivals=arrivals, seed=seed, horizon=horizon, record=True
    )
    assert ticks(rec, theirs.end_time) == ticks(theirs, theirs.end_time)
    assert rec.releases[: theirs.releases.shape[0], :4].tolist() == theirs.releases.tolist()
    if theirs.miss is None:
        assert rec.segments.tolist() == theirs.segments.tolist()


@settings(max_examples=50)
@given(ts=mc_sets(6), m=st.integers(2, 3), edf=st.booleans(), data=st.data())
def test_lo_scenario_equals_the_task_simulator_partitioned(ts, m, edf, data):
    partition = data.draw(st.lists(st.integers(0, m - 1), min_size=ts.n, max_size=ts.n))
    horizon = 120
    mine = simulate_mc(
        ts, m, scheduler="partitioned", core_scheduler="edf" if edf else "fp", partition=partition,
        scenario="lo", horizon=horizon, record=True,
    )  # fmt: skip
    theirs = simulate(plain(ts), m, policy="pedf" if edf else "pfp", partition=partition, horizon=horizon)
    assert (mine.miss is None) == (theirs.miss is None)
    if theirs.miss is not None:
        assert (mine.miss.time, mine.miss.task) == (theirs.miss.time, theirs.miss.task)
    assert ticks(mine, theirs.end_time) == ticks(theirs, theirs.end_time)


@settings(max_examples=50)
@given(ts=mc_sets(6), m=st.integers(2, 3))
def test_global_edf_vd_with_x_one_is_global_edf(ts, m):
    horizon = 120
    mine = simulate_mc(ts, m, scheduler="global-edf-vd", x=1, scenario="lo", horizon=horizon, record=True)
    theirs = simulate(plain(ts), m, policy="gedf", horizon=horizon)
    assert (mine.miss is None) == (theirs.miss is None)
    end = theirs.end_time

    def running(trace):
        per = [set() for _ in range(end)]
        for _p, task, job, start, stop in trace.segments.tolist():
            for k in range(start, min(stop, end)):
                per[k].add((task, job))
        return per

    assert running(mine) == running(theirs)


# -- invariants on random runs --------------------------------------------------------------------
@settings(max_examples=60)
@given(ts=mc_sets(5), policy=st.sampled_from(["amc", "smc"]), seed=st.integers(0, 1000), random_lo=st.booleans())
def test_random_runs_respect_budgets(ts, policy, seed, random_lo):
    trace = simulate_mc(
        ts,
        scenario="random",
        policy=policy,
        seed=seed,
        random_lo=random_lo,
        record=True,
        horizon=200,
        arrivals="sporadic",
    )
    executed = defaultdict(int)
    for _p, task, job, start, end in trace.segments.tolist():
        executed[task, job] += end - start
        if policy == "amc" and not ts[task].is_hi and trace.switch_time is not None:
            assert end <= trace.switch_time  # no LO job runs in HI mode (no return)
    demand = {(i, j): c for i, j, _r, _d, c in trace.releases.tolist()}
    for (i, j), c in demand.items():
        assert 1 <= c <= ts[i].C_hi and (c <= ts[i].C_lo or ts[i].is_hi)
        assert executed[i, j] <= c
        if not random_lo:
            assert c >= ts[i].C_lo
    for i, _j, c in trace.overruns.tolist():
        assert ts[i].is_hi and ts[i].C_lo < c <= ts[i].C_hi
    if trace.switches:
        first = trace.switches[0]
        assert executed[first.task, first.job] >= ts[first.task].C_lo
        assert (first.task, first.job) in {(i, j) for i, j, _c in trace.overruns.tolist()}
    else:
        assert _unrun(trace, executed)


def _unrun(trace, executed):
    """Every overrunning job that never reached its C(LO) (released late in the run)."""
    return all(executed[i, j] < trace.taskset[i].C_lo for i, j, _c in trace.overruns.tolist())


def test_seeds_reproduce_and_differ():
    ts = MCTaskSet([MCTask.hi(2, 6, T=10), MCTask.lo(2, T=7), MCTask.hi(1, 3, T=13)])
    one = simulate_mc(ts, scenario="random", arrivals="sporadic", seed=7, random_lo=True, record=True, horizon=2000)
    two = simulate_mc(ts, scenario="random", arrivals="sporadic", seed=7, random_lo=True, record=True, horizon=2000)
    assert one.segments.tolist() == two.segments.tolist() and one.releases.tolist() == two.releases.tolist()
    assert (one.switches, one.misses, one.dropped) == (two.switches, two.misses, two.dropped)
    other = simulate_mc(ts, scenario="random", arrivals="sporadic", seed=8, random_lo=True, record=True, horizon=2000)
    assert other.releases.tolist() != one.releases.tolist()
    # One seed: the same arrivals and demands under AMC and SMC and under every scheduler.
    smc = simulate_mc(
        ts, scenario="random", arrivals="sporadic", seed=7, random_lo=True, policy="smc", record=True, horizon=2000
    )
    edf = simulate_mc(
        ts, scheduler="edf", scenario="random", arrivals="sporadic", seed=7, random_lo=True, record=True, horizon=2000
    )
    assert smc.release_times() == one.release_times() == edf.release_times()
    hi_rows = [row for row in smc.releases.tolist() if ts[row[0]].is_hi]
    assert hi_rows == [row for row in one.releases.tolist() if ts[row[0]].is_hi]


def test_p_overrun_extremes():
    ts = MCTaskSet([MCTask.hi(2, 6, T=10), MCTask.lo(2, T=7)])
    never = simulate_mc(ts, scenario="random", p_overrun=0.0, horizon=1000)
    assert never.switches == () and never.overruns.shape[0] == 0
    always = simulate_mc(ts, scenario="random", p_overrun=1.0, horizon=1000)
    assert always.switch_time == 2 and always.overruns.shape[0] == 100


def test_sporadic_arrivals_are_the_task_simulators():
    ts = MCTaskSet([MCTask.hi(1, 2, T=5), MCTask.lo(1, T=7), MCTask.hi(2, 2, T=11)])
    mine = simulate_mc(ts, scenario="lo", arrivals="sporadic", seed=3, record=True, horizon=500)
    theirs = simulate(plain(ts), 1, policy="gfp", arrivals="sporadic", seed=3, horizon=500)
    assert mine.release_times() == theirs.release_times()
    gaps = [np.diff(r) for r in mine.release_times()]
    assert all((g >= ts[i].T).all() for i, g in enumerate(gaps)) and any(
        (g > ts[i].T).any() for i, g in enumerate(gaps)
    )
    periodic = simulate_mc(ts, scenario="lo", record=True, horizon=77)
    assert periodic.release_times() == [list(range(0, 77, t.T)) for t in ts]
    # A recorded run replays through explicit releases, skipped LO arrivals included.
    hi = simulate_mc(ts, scenario="hi", arrivals="sporadic", seed=3, record=True, horizon=500)
    again = simulate_mc(ts, scenario="hi", releases=hi.release_times(), record=True, horizon=500)
    assert again.segments.tolist() == hi.segments.tolist() and again.arrivals == "explicit"


# -- adversarial search of the switch instant ----------------------------------------------------
def test_switch_search_finds_the_smc_failure_and_clears_amc():
    amc = switch_search(AMC_BEATS_SMC)
    assert amc.failure is None and amc.candidates == ((1, 0), (1, 1))
    assert amc.response_hi[1] == 5 and amc.response_lo == (2, 3)
    smc = switch_search(AMC_BEATS_SMC, policy="smc")
    assert smc.failure is not None and smc.failure.miss.task == 1
    assert str(smc).startswith("1 failure among 1 overrunning job; first: deadline miss: τ1 (HI)")


def test_switch_search_later_switch_is_worse():
    # Overrunning job 0 of τ1 is harmless under EDF-VD x = 1/2; escalation covers later jobs.
    result = switch_search(EDF_VD_NEEDED, scheduler="edf-vd", x="1/2", stop_at_failure=False)
    assert result.failures == ()
    plain_edf = switch_search(EDF_VD_NEEDED, scheduler="edf")
    assert plain_edf.failure is not None


# -- bad input ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        pytest.param({"scheduler": "rm"}, "unknown scheduler 'rm'", id="scheduler"),
        pytest.param({"policy": "drop"}, "unknown policy", id="policy"),
        pytest.param({"scenario": "worst"}, "unknown scenario", id="scenario"),
        pytest.param({"scheduler": "edf-vd"}, "edf-vd needs the factor x", id="edf-vd-no-x"),
        pytest.param({"scheduler": "edf-vd", "x": 0.5}, "exact number", id="x-float"),
        pytest.param({"scheduler": "edf-vd", "x": "3/2"}, "must lie in (0, 1]", id="x-above-one"),
        pytest.param({"scheduler": "edf-vd", "x": 0}, "must lie in (0, 1]", id="x-zero"),
        pytest.param(
            {"scheduler": "edf-vd", "virtual_deadlines": [3, 2]}, "LO task keeps its real deadline", id="vd-lo"
        ),
        pytest.param({"scheduler": "edf-vd", "virtual_deadlines": [None, 9]}, "must lie in [1, D = 6]", id="vd-range"),
        pytest.param({"scheduler": "edf", "x": "1/2"}, "apply to edf-vd", id="x-on-edf"),
        pytest.param({"priorities": [0, 0]}, "permutation", id="priorities"),
        pytest.param({"scheduler": "edf", "priorities": [1, 0]}, "fixed-priority", id="priorities-edf"),
        pytest.param({"scenario": "explicit"}, "needs overruns", id="no-overruns"),
        pytest.param({"scenario": "explicit", "overruns": [(0, 0)]}, "only a HI task", id="overrun-lo"),
        pytest.param(
            {"scenario": "explicit", "overruns": [(1, 0, 1)]}, "must lie in (C(LO), C(HI)]", id="overrun-demand"
        ),
        pytest.param({"scenario": "explicit", "overruns": [(5, 0)]}, "tasks are 0..1", id="overrun-task"),
        pytest.param({"overruns": [(1, 0)]}, "apply to the explicit scenario", id="overruns-hi"),
        pytest.param({"releases": [[0, 3], [0]]}, "closer than the period T = 4", id="releases"),
        pytest.param({"horizon": 0}, "horizon", id="horizon"),
        pytest.param({"ties": "fifo"}, "no ties", id="ties-fp"),
        pytest.param({"p_overrun": 2}, "probability", id="p_overrun"),
        pytest.param({"return_to_lo": "always"}, "return_to_lo", id="return"),
        pytest.param({"scheduler": "partitioned"}, "one core index per task", id="no-partition"),
        pytest.param({"partition": [0, 0]}, "partitioned scheduler", id="partition-fp"),
        pytest.param({"priorities": ["a", 0]}, "list of integers", id="priorities-type"),
        pytest.param({"p_delay": "x"}, "probability", id="p_delay-type"),
        pytest.param({"seed": -1}, "non-negative integer", id="seed"),
        pytest.param({"max_extra": [1.5, 1]}, "list of integers", id="max_extra-type"),
    ],
)
def test_bad_input_is_one_line(kwargs, message):
    with pytest.raises(InputError) as err:
        simulate_mc(AMC_BEATS_SMC, **kwargs)
    assert message in str(err.value) and "\n" not in str(err.value)


def test_bad_processor_counts():
    with pytest.raises(InputError, match="uniprocessor scheduler"):
        simulate_mc(AMC_BEATS_SMC, 2)
    with pytest.raises(InputError, match=r"core 2 is not in 0\.\.1"):
        simulate_mc(AMC_BEATS_SMC, 2, scheduler="partitioned", partition=[0, 2])
    with pytest.raises(InputError, match="one per core"):
        simulate_mc(AMC_BEATS_SMC, 2, scheduler="global-edf-vd", x=["1/2", "1/2"])


def test_top_priority_tasks_go_first():
    # fpEDF style: τ2 (deadline 8) goes before τ0 and τ1 (deadlines 4) on m = 2.
    ts = MCTaskSet([MCTask.lo(2, T=4), MCTask.lo(2, T=4), MCTask.hi(3, 4, T=8)])
    plain_run = simulate_mc(ts, 2, scheduler="global-edf-vd", x=1, scenario="lo", record=True, horizon=4)
    assert sorted(plain_run.segments.tolist())[:2] == [[0, 0, 0, 0, 2], [0, 2, 0, 2, 4]]
    top = simulate_mc(ts, 2, scheduler="global-edf-vd", x=1, top_priority=[2], scenario="lo", record=True, horizon=4)
    assert sorted(top.segments.tolist()) == [[0, 2, 0, 0, 3], [1, 0, 0, 0, 2], [1, 1, 0, 2, 4]]
    assert top.top_priority == (2,) and top.miss is None
    with pytest.raises(InputError, match="not fp"):
        simulate_mc(ts, top_priority=[2])
    with pytest.raises(InputError, match="not a task index"):
        simulate_mc(ts, scheduler="edf", top_priority=[3])


@settings(max_examples=60)
@given(
    ts=mc_sets(6),
    m=st.integers(2, 3),
    core_scheduler=st.sampled_from(["fp", "edf", "edf-vd"]),
    policy=st.sampled_from(["amc", "smc"]),
    data=st.data(),
)
def test_partitioned_is_independent_cores(ts, m, core_scheduler, policy, data):
    """Each core of a partitioned run is the uniprocessor run of its own tasks (own mode, own x)."""
    partition = data.draw(st.lists(st.integers(0, m - 1), min_size=ts.n, max_size=ts.n))
    xs = [data.draw(st.sampled_from(["1/3", "1/2", "3/4", "1"])) for _ in range(m)]
    overruns = {
        (i, j): ts[i].C_hi
        for i in ts.hi_tasks()
        for j in range(8)
        if ts[i].C_hi > ts[i].C_lo and data.draw(st.booleans())
    }
    horizon = 60
    options = dict(policy=policy, horizon=horizon, record=True)
    scenario = dict(scenario="explicit", overruns=overruns) if overruns else dict(scenario="lo")
    x = xs if core_scheduler == "edf-vd" else None
    whole = simulate_mc(
        ts, m, scheduler="partitioned", partition=partition, core_scheduler=core_scheduler, x=x, **scenario, **options
    )
    per_core = ticks(whole, horizon)
    for k in range(m):
        mine = [i for i in range(ts.n) if partition[i] == k]
        if not mine:
            assert k not in per_core
            continue
        sub = MCTaskSet([ts[i] for i in mine])
        sub_overruns = {(mine.index(i), j): c for (i, j), c in overruns.items() if i in mine}
        sub_scenario = dict(scenario="explicit", overruns=sub_overruns) if sub_overruns else dict(scenario="lo")
        alone = simulate_mc(
            sub, scheduler=core_scheduler, x=xs[k] if core_scheduler == "edf-vd" else None, **sub_scenario, **options
        )
        expected = [
            None if cell is None else (mine[cell[0]], cell[1])
            for cell in ticks(alone, horizon).get(0, [None] * horizon)
        ]
        assert per_core.get(k, [None] * horizon) == expected
        assert [s.time for s in whole.switches if s.core == k] == [s.time for s in alone.switches]
        assert sorted((mine[d.task], d.job) for d in alone.dropped) == sorted(
            (d.task, d.job) for d in whole.dropped if partition[d.task] == k
        )
        assert [(m_.time, mine[m_.task]) for m_ in alone.misses] == [
            (m_.time, m_.task) for m_ in whole.misses if m_.core == k
        ]


def test_amc_note_example_one_stays_within_amc_max():
    # Example 1 of tests/analyses/mixed_criticality/test_amc2011.py: AMC-max accepts τ2 with
    # R* = 16 (worst switch s = 4), AMC-rtb and SMC reject it. Every single-overrun switch of the
    # synchronous pattern (at 1, 5, 9, 11, 13) gives τ2 at most 12 in HI mode (AMC-max is an upper
    # bound), while SMC misses at 16: τ1's LO jobs keep interfering after the switch at 1.
    ts = MCTaskSet([MCTask.hi(1, 2, T=4), MCTask.lo(1, T=4), MCTask.hi(5, 6, T=16)])
    amc_search = switch_search(ts, stop_at_failure=False)
    assert amc_search.failures == () and amc_search.candidates == ((0, 0), (2, 0), (0, 1), (0, 2), (0, 3))
    assert amc_search.response_lo == (1, 2, 11) and amc_search.response_hi == (2, None, 12)
    smc = switch_search(ts, policy="smc").failure
    assert smc is not None and smc.miss == MCDeadlineMiss(16, 2, 0, 2, release=0, deadline=16, mode="HI", core=0)


def test_fp_amc_drops_a_pending_lo_job_where_smc_misses():
    # AMC_BEATS_SMC with a third, lowest-priority LO task τ2 (C = 1, T = D = 12): pending at the
    # switch at 3, AMC drops it (1 tick left); SMC still misses τ1 at 6.
    ts = MCTaskSet([*AMC_BEATS_SMC, MCTask.lo(1, T=12)])
    amc = simulate_mc(ts, scenario="hi", record=True)
    assert amc.dropped == (DroppedJob(time=3, task=2, job=0, release=0, deadline=12, remaining=1),)
    assert amc.segments.tolist() == [[0, 0, 0, 0, 2], [0, 1, 0, 2, 5], [0, 1, 1, 6, 9]]
    assert amc.miss is None and amc.skipped == 2 and amc.response_hi == (None, 5, None)
    smc = simulate_mc(ts, policy="smc", scenario="hi")
    assert smc.miss == MCDeadlineMiss(6, 1, 0, 1, release=0, deadline=6, mode="HI", core=0) and smc.dropped == ()


def test_to_dict_is_json_ready():
    import json

    trace = simulate_mc(EDF_VD_NEEDED, scheduler="edf-vd", x="1/2", scenario="hi", record=True, horizon=8)
    data = json.loads(json.dumps(trace.to_dict()))
    assert data["switches"] == [{"time": 1, "core": 0, "task": 1, "job": 0}]
    assert data["dropped"] == [{"time": 1, "task": 0, "job": 0, "release": 0, "deadline": 4, "remaining": 2}]
    assert data["virtual_deadlines"] == ["4", "2"] and data["segments"] == trace.segments.tolist()
    assert data["taskset"][1] == {"level": "HI", "C_LO": 1, "C_HI": 3, "T": 4, "D": 4, "name": None}
    missed = simulate_mc(AMC_BEATS_SMC, policy="smc", scenario="hi").to_dict()
    assert missed["miss"]["mode"] == "HI" and missed["misses"] == [missed["miss"]]
