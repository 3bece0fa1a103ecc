"""The CPU–GPU simulator (rtsched.segmented.sim): schedules worked by hand for each protocol and
mode (remote blocking, queue orders, boosting, busy vs suspend, protocol none, misses, late jobs),
reproducible random demands and sporadic arrivals, bad input, and properties on generated sets
(work conservation on each core, one holder per device, executed time = demand, the same demands
under every protocol, agreement with a naive tick-by-tick simulator of papers/cpu-gpu-model.md)."""

import math
import os
from collections import defaultdict

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rtsched.errors import InputError
from rtsched.model import TaskSet
from rtsched.segmented import (
    GPUSegment,
    SegmentedMiss,
    SegmentedTask,
    SegmentedTaskSet,
    SegmentedTrace,
    simulate_segmented,
)
from rtsched.segmented.sim import default_segmented_horizon
from rtsched.sim import simulate
from rtsched.testing.strategies import segmented_tasksets

PROTOCOLS = ("mpcp", "fmlp+", "none")
#: Budget of the slow variant (ten times this many examples).
EXAMPLES = int(os.environ.get("RTSCHED_PROPERTY_EXAMPLES", "150"))
MODES = ("busy", "suspend")


def task(segments, T, core, D=None, mode=None, name=None):
    """A task from its segments in execution order (ints CPU, pairs (G_m, G_e) GPU segments on 'gpu')."""
    segs = [s if isinstance(s, int) else GPUSegment(*s) for s in segments]
    return SegmentedTask.from_segments(segs, T, D, core=core, mode=mode, name=name)


def rows(trace, resource):
    """``(task, job, start, end, what)`` of the intervals on ``resource``, by start."""
    return [(iv.task, iv.job, iv.start, iv.end, iv.what) for iv in trace.intervals if iv.resource == resource]


# -- remote blocking: a lower-priority holder on another core delays a request --------------------
# τ0 (core 0): C 1, G (0, 2), C 1; τ1 (core 1, lower priority): G (0, 4) at once. τ1 holds the GPU
# [0, 4); τ0 requests at 1 and waits 3 ticks (remote blocking by a lower-priority job): G_e [4, 6),
# C [6, 7): R0 = 7. Without contention (none) τ0's G_e runs [1, 3) beside τ1's: R0 = 4.
REMOTE = SegmentedTaskSet([task([1, (0, 2), 1], 20, core=0), task([(0, 4)], 20, core=1)])


@pytest.mark.parametrize(
    ("protocol", "mode", "response", "core0", "gpu"),
    [
        pytest.param(
            "mpcp", "suspend", (7, 4),
            [(0, 0, 0, 1, "cpu"), (0, 0, 6, 7, "cpu")],
            [(1, 0, 0, 4, "G_e"), (0, 0, 4, 6, "G_e")],
            id="mpcp-suspend-remote-blocking",
        ),
        pytest.param(
            "fmlp+", "suspend", (7, 4),
            [(0, 0, 0, 1, "cpu"), (0, 0, 6, 7, "cpu")],
            [(1, 0, 0, 4, "G_e"), (0, 0, 4, 6, "G_e")],
            id="fmlp-suspend-remote-blocking",
        ),
        pytest.param(
            "mpcp", "busy", (7, 4),
            [(0, 0, 0, 1, "cpu"), (0, 0, 1, 4, "spin-wait"), (0, 0, 4, 6, "spin-gpu"), (0, 0, 6, 7, "cpu")],
            [(1, 0, 0, 4, "G_e"), (0, 0, 4, 6, "G_e")],
            id="mpcp-busy-spins-while-blocked",
        ),
        pytest.param(
            "fmlp+", "busy", (7, 4),
            [(0, 0, 0, 1, "cpu"), (0, 0, 1, 4, "spin-wait"), (0, 0, 4, 6, "spin-gpu"), (0, 0, 6, 7, "cpu")],
            [(1, 0, 0, 4, "G_e"), (0, 0, 4, 6, "G_e")],
            id="fmlp-busy-spins-while-blocked",
        ),
        pytest.param(
            "none", "suspend", (4, 4),
            [(0, 0, 0, 1, "cpu"), (0, 0, 3, 4, "cpu")],
            [(1, 0, 0, 4, "G_e"), (0, 0, 1, 3, "G_e")],
            id="none-two-segments-on-one-device-at-once",
        ),
        pytest.param(
            "none", "busy", (4, 4),
            [(0, 0, 0, 1, "cpu"), (0, 0, 1, 3, "spin-gpu"), (0, 0, 3, 4, "cpu")],
            [(1, 0, 0, 4, "G_e"), (0, 0, 1, 3, "G_e")],
            id="none-busy",
        ),
    ],
)  # fmt: skip
def test_remote_blocking(protocol, mode, response, core0, gpu):
    trace = simulate_segmented(REMOTE, protocol=protocol, mode=mode, record=True)
    assert trace.response_times == response
    assert rows(trace, "core0") == core0
    assert rows(trace, "gpu:gpu") == gpu
    assert trace.schedulable_so_far and trace.misses == ()
    assert trace.m == 2 and trace.horizon == 20 and trace.jobs == 2
    if protocol == "none":
        assert trace.holds == () and trace.waits == ()
    else:
        assert [(iv.task, iv.start, iv.end) for iv in trace.holds] == [(1, 0, 4), (0, 4, 6)]
        assert [(iv.task, iv.start, iv.end) for iv in trace.waits] == [(0, 1, 4)]


# -- queue order: priority (MPCP) vs FIFO (FMLP+) -------------------------------------------------
# Three cores, one GPU. τ2 requests at 0 and holds [0, 3); τ1 requests at 1, τ0 at 2. At 3 MPCP
# grants τ0 (higher priority): τ0 [3, 5), τ1 [5, 7); FMLP+ grants τ1 (earlier request): τ1 [3, 5),
# τ0 [5, 7).
QUEUE = SegmentedTaskSet([task([2, (0, 2)], 30, core=0), task([1, (0, 2)], 30, core=1), task([(0, 3)], 30, core=2)])


@pytest.mark.parametrize(
    ("protocol", "gpu", "response"),
    [
        pytest.param("mpcp", [(2, 0, 3), (0, 3, 5), (1, 5, 7)], (5, 7, 3), id="mpcp-priority-order"),
        pytest.param("fmlp+", [(2, 0, 3), (1, 3, 5), (0, 5, 7)], (7, 5, 3), id="fmlp-fifo-order"),
    ],
)
@pytest.mark.parametrize("mode", MODES)
def test_queue_order(protocol, gpu, response, mode):
    trace = simulate_segmented(QUEUE, protocol=protocol, mode=mode, record=True)
    assert [(t, s, e) for t, _j, s, e, _w in rows(trace, "gpu:gpu")] == gpu
    assert trace.response_times == response


def test_fifo_ties_go_by_priority():
    # τ1 and τ0 request at the same instant 1 while τ2 holds the GPU: FMLP+ orders them by priority.
    ts = SegmentedTaskSet([task([1, (0, 2)], 30, core=0), task([1, (0, 2)], 30, core=1), task([(0, 3)], 30, core=2)])
    trace = simulate_segmented(ts, protocol="fmlp+", record=True)
    assert [t for t, *_ in rows(trace, "gpu:gpu")] == [2, 0, 1]


# -- boosting: a granted lower-priority job preempts a higher-priority CPU segment ----------------
# Core 0: τ0 (C 5, released at 1), τ1 (C 1, G (2, 2) = ⌈1⌉ + G_e 2 + ⌊1⌋, released at 0); core 1:
# τ2 holds the GPU [0, 3). τ1 runs C [0, 1), requests at 1 and waits; τ0 runs [1, 3); at 3 τ1 is
# granted and boosted: it preempts τ0 for its copy-in [3, 4); during G_e [4, 6) suspend lets τ0
# run, busy spins (boosted); copy-out [6, 7) preempts τ0 again.
BOOST = SegmentedTaskSet([task([5], 20, core=0), task([1, (2, 2)], 20, core=0), task([(0, 3)], 20, core=1)])
BOOST_RELEASES = [[1], [0], [0]]


@pytest.mark.parametrize(
    ("protocol", "mode", "core0", "response"),
    [
        pytest.param(
            "mpcp", "suspend",
            [(1, 0, 0, 1, "cpu"), (0, 0, 1, 3, "cpu"), (1, 0, 3, 4, "G_m"), (0, 0, 4, 6, "cpu"),
             (1, 0, 6, 7, "G_m"), (0, 0, 7, 8, "cpu")],
            (7, 7, 3),
            id="mpcp-suspend-boost-preempts",
        ),
        pytest.param(
            "fmlp+", "suspend",
            [(1, 0, 0, 1, "cpu"), (0, 0, 1, 3, "cpu"), (1, 0, 3, 4, "G_m"), (0, 0, 4, 6, "cpu"),
             (1, 0, 6, 7, "G_m"), (0, 0, 7, 8, "cpu")],
            (7, 7, 3),
            id="fmlp-suspend-boost-preempts",
        ),
        pytest.param(
            "mpcp", "busy",
            [(1, 0, 0, 1, "cpu"), (0, 0, 1, 3, "cpu"), (1, 0, 3, 4, "G_m"), (1, 0, 4, 6, "spin-gpu"),
             (1, 0, 6, 7, "G_m"), (0, 0, 7, 10, "cpu")],
            (9, 7, 3),
            id="mpcp-busy-boosted-spin",
        ),
        pytest.param(
            "fmlp+", "busy",
            [(1, 0, 0, 1, "cpu"), (0, 0, 1, 3, "cpu"), (1, 0, 3, 4, "G_m"), (1, 0, 4, 6, "spin-gpu"),
             (1, 0, 6, 7, "G_m"), (0, 0, 7, 10, "cpu")],
            (9, 7, 3),
            id="fmlp-busy-boosted-spin",
        ),
        # none: no waiting, no boosting: τ1's copy-in waits for τ0 (base priority)
        pytest.param(
            "none", "suspend",
            [(1, 0, 0, 1, "cpu"), (0, 0, 1, 6, "cpu"), (1, 0, 6, 7, "G_m"), (1, 0, 9, 10, "G_m")],
            (5, 10, 3),
            id="none-no-boost",
        ),
    ],
)  # fmt: skip
def test_boosting(protocol, mode, core0, response):
    trace = simulate_segmented(BOOST, protocol=protocol, mode=mode, releases=BOOST_RELEASES, record=True)
    assert rows(trace, "core0") == core0
    assert trace.response_times == response
    assert trace.arrivals == "explicit" and trace.horizon == 1 + 20 + 1


def test_mpcp_and_fmlp_order_boosted_holders_differently():
    # Core 0 holds two devices at once: τ1 (lower) is granted g0 at 0, τ0 (higher) g1 at 1; both
    # copy in with G_m = 2·k. MPCP orders boosted holders by base priority (τ0 first), FMLP+ by
    # grant time (τ1 first, granted earlier).
    ts = SegmentedTaskSet(
        [
            SegmentedTask((1, 0), (GPUSegment(4, 1, "g1"),), 20, core=0),
            SegmentedTask((0, 0), (GPUSegment(6, 1, "g0"),), 20, core=0),
        ]
    )
    mpcp = simulate_segmented(ts, protocol="mpcp", record=True)
    fmlp = simulate_segmented(ts, protocol="fmlp+", record=True)
    # Both: τ1 requests g0 at 0, is granted and boosted: its copy-in (⌈6/2⌉ = 3) runs [0, 3) before
    # τ0's C; during τ1's G_e [3, 4) (suspended) τ0 runs C [3, 4) and is granted g1 at 4; both are
    # boosted holders at 4. MPCP (base priority): τ0's copy-in [4, 6), τ1's copy-out from 6 until
    # τ0's G_e ends at 7 and τ0's copy-out preempts it [7, 9), then τ1 [9, 11). FMLP+ (grant
    # time): τ1 (granted at 0) copies out [4, 7), then τ0 [7, 9), G_e [9, 10), [10, 12).
    assert rows(mpcp, "core0") == [
        (1, 0, 0, 3, "G_m"), (0, 0, 3, 4, "cpu"), (0, 0, 4, 6, "G_m"), (1, 0, 6, 7, "G_m"), (0, 0, 7, 9, "G_m"),
        (1, 0, 9, 11, "G_m"),
    ]  # fmt: skip
    assert rows(fmlp, "core0") == [
        (1, 0, 0, 3, "G_m"), (0, 0, 3, 4, "cpu"), (1, 0, 4, 7, "G_m"), (0, 0, 7, 9, "G_m"), (0, 0, 10, 12, "G_m"),
    ]  # fmt: skip
    assert mpcp.response_times == (9, 11) and fmlp.response_times == (12, 7)


# -- busy waiting occupies the core; suspension lets a lower-priority task run --------------------
# Core 0: τ0 C 1, G (0, 4), C 1; τ1 C 3 (lower). Suspend: τ1 runs [1, 4) during τ0's G_e: R1 = 4.
# Busy: τ0 spins [1, 5) and runs [5, 6); τ1 runs [6, 9): R1 = 9.
SPIN = SegmentedTaskSet([task([1, (0, 4), 1], 20, core=0), task([3], 20, core=0)])


@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize(
    ("mode", "response", "core0"),
    [
        pytest.param("suspend", (6, 4), [(0, 0, 0, 1, "cpu"), (1, 0, 1, 4, "cpu"), (0, 0, 5, 6, "cpu")], id="suspend"),
        pytest.param(
            "busy", (6, 9), [(0, 0, 0, 1, "cpu"), (0, 0, 1, 5, "spin-gpu"), (0, 0, 5, 6, "cpu"), (1, 0, 6, 9, "cpu")],
            id="busy",
        ),
    ],
)  # fmt: skip
def test_busy_occupies_suspend_frees(protocol, mode, response, core0):
    trace = simulate_segmented(SPIN, protocol=protocol, mode=mode, record=True)
    assert trace.response_times == response
    assert rows(trace, "core0") == core0


def test_task_mode_overrides_the_default():
    ts = SegmentedTaskSet([task([1, (0, 4), 1], 20, core=0, mode="busy"), task([3], 20, core=0)])
    assert simulate_segmented(ts, mode="suspend").response_times == (6, 9)
    ts = SegmentedTaskSet([task([1, (0, 4), 1], 20, core=0, mode="suspend"), task([3], 20, core=0)])
    trace = simulate_segmented(ts, mode="busy")
    assert trace.response_times == (6, 4) and trace.modes() == ("suspend", "busy")


# -- misses --------------------------------------------------------------------------------------
# Core 0: τ0 C 2, G (0, 4), C 1 (T = 20); τ1 C 5, D = 8 (T = 20). Suspend: τ1 runs [2, 6) and
# [7, 8): completes at 8 = D. Busy: τ0 occupies [0, 7); τ1 runs [7, 12): misses, completes at 12.
MISS = SegmentedTaskSet([task([2, (0, 4), 1], 20, core=0), task([5], 20, core=0, D=8)])


def test_miss_detected_busy_not_suspend():
    suspend = simulate_segmented(MISS, mode="suspend")
    assert suspend.schedulable_so_far and suspend.response_times == (7, 8)
    busy = simulate_segmented(MISS, mode="busy")
    assert not busy.schedulable_so_far
    assert busy.misses == (SegmentedMiss(task=1, job=0, release=0, deadline=8, completion=12),)
    assert busy.miss == busy.misses[0] and busy.response_times == (7, 12)
    assert str(busy) == (
        "deadline miss: τ1 job 0 (released at 0, due at 8, completed at 12) "
        "(mpcp on m=1, busy mode, periodic arrivals, wcet execution, 2 jobs)"
    )
    # a horizon before its completion: judged (deadline 8 <= 10) and not complete
    cut = simulate_segmented(MISS, mode="busy", horizon=10)
    assert cut.misses == (SegmentedMiss(1, 0, 0, 8, None),)
    assert "not complete by 10" in cut.summary()
    # a horizon before the deadline: not judged
    assert simulate_segmented(MISS, mode="busy", horizon=7).schedulable_so_far


def test_late_job_keeps_running_and_its_successor_waits():
    ts = SegmentedTaskSet([task([3], 2, core=0)])
    trace = simulate_segmented(ts, horizon=6, record=True)
    assert trace.misses == (SegmentedMiss(0, 0, 0, 2, 3), SegmentedMiss(0, 1, 2, 4, 6), SegmentedMiss(0, 2, 4, 6, None))
    assert rows(trace, "core0") == [(0, 0, 0, 3, "cpu"), (0, 1, 3, 6, "cpu")]
    assert trace.response_times == (4,)
    assert trace.releases.tolist() == [[0, 0, 0, 2, 3], [0, 1, 2, 4, 6], [0, 2, 4, 6, -1]]


def test_job_completing_at_the_horizon_on_its_deadline_meets_it():
    ts = SegmentedTaskSet([task([2, (0, 3)], 5, core=0)])
    trace = simulate_segmented(ts)
    assert trace.horizon == 5 and trace.response_times == (5,) and trace.schedulable_so_far


# -- random execution and sporadic arrivals -------------------------------------------------------
RANDOM_SET = SegmentedTaskSet(
    [
        task([2, (3, 4), 1], 12, core=0),
        task([1, (2, 5), 2, (1, 1)], 15, core=1),
        task([3, (2, 2)], 20, core=0),
    ]
)


def test_random_demands_reproducible_and_within_wcet():
    a = simulate_segmented(RANDOM_SET, execution="random", seed=7, record=True)
    b = simulate_segmented(RANDOM_SET, execution="random", seed=7, record=True)
    c = simulate_segmented(RANDOM_SET, execution="random", seed=8, record=True)
    assert a.to_dict() == b.to_dict()
    assert a.demands != c.demands
    wcet = {
        0: (2, 2, 4, 1, 1),
        1: (1, 1, 5, 1, 2, 1, 1, 0, 0),
        2: (3, 1, 2, 1, 0),
    }
    seen = defaultdict(set)
    for (i, _j, *_), demand in zip(a.releases.tolist(), a.demands, strict=True):
        assert len(demand) == len(wcet[i]) and all(0 <= d <= w for d, w in zip(demand, wcet[i], strict=True))
        for k, d in enumerate(demand):
            seen[(i, k)].add(d)
    # over 200·20 ticks every part with WCET >= 1 takes both its extremes at least once
    assert all({0, wcet[i][k]} <= seen[(i, k)] for (i, k) in seen if wcet[i][k] >= 1)
    assert a.horizon == default_segmented_horizon(RANDOM_SET, "periodic", execution="random") == 4020
    assert simulate_segmented(RANDOM_SET).demands == ()  # not recorded


def test_sporadic_arrivals_reproducible_and_those_of_the_task_simulator():
    a = simulate_segmented(RANDOM_SET, arrivals="sporadic", seed=3, record=True)
    b = simulate_segmented(RANDOM_SET, arrivals="sporadic", seed=3, record=True)
    assert a.to_dict() == b.to_dict()
    assert a.horizon == 200 * 20
    # the same law in the same draw order as rtsched.sim.simulate (a task set with the same T)
    plain = TaskSet.from_tasks([(1, t.T, t.T) for t in RANDOM_SET])
    ref = simulate(plain, 2, policy="gedf", arrivals="sporadic", seed=3, horizon=a.horizon, record=True)
    ours = sorted((int(i), int(r)) for i, _j, r, _d, _c in a.releases.tolist())
    theirs = sorted((int(i), int(r)) for i, _j, r, _d in ref.releases.tolist())
    assert ours == theirs
    gaps = [r2 - r1 for (i1, r1), (i2, r2) in zip(ours, ours[1:], strict=False) if i1 == i2]
    assert min(gaps) >= 12 and len(set(gaps)) > 3
    # and the demands of a random run do not depend on the protocol
    runs = [
        simulate_segmented(RANDOM_SET, protocol=p, arrivals="sporadic", execution="random", seed=5, record=True)
        for p in PROTOCOLS
    ]
    assert runs[0].demands == runs[1].demands == runs[2].demands


def test_explicit_releases():
    trace = simulate_segmented(SPIN, releases=[[0, 20], [5]], record=True)
    # τ1 released at 5 waits for τ0's last CPU segment [5, 6) and runs [6, 9)
    assert trace.releases.tolist() == [[0, 0, 0, 20, 6], [1, 0, 5, 25, 9], [0, 1, 20, 40, 26]]
    assert trace.horizon == 20 + 20 + 1 and trace.response_times == (6, 4)


# -- output ---------------------------------------------------------------------------------------
def test_to_dict_and_summary():
    trace = simulate_segmented(REMOTE, protocol="fmlp+", mode="busy", record=True)
    d = trace.to_dict()
    assert d["protocol"] == "fmlp+" and d["misses"] == [] and d["response_times"] == [7, 4]
    assert d["taskset"][0]["segments"] == [1, [0, 2, "gpu"], 1]
    assert d["intervals"][0] == {"resource": "core0", "task": 0, "job": 0, "start": 0, "end": 1, "what": "cpu"}
    assert (
        str(trace) == "no deadline miss in [0, 20] (fmlp+ on m=2, busy mode, periodic arrivals, wcet execution, 2 jobs)"
    )
    assert isinstance(trace, SegmentedTrace) and trace.end_time == 20


# -- bad input ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("taskset", "options", "field", "text"),
    [
        pytest.param(REMOTE, {"protocol": "pcp"}, "protocol", "unknown protocol", id="protocol"),
        pytest.param(REMOTE, {"mode": "spin"}, "mode", "unknown mode", id="mode"),
        pytest.param(REMOTE, {"execution": "bcet"}, "execution", "unknown execution", id="execution"),
        pytest.param(REMOTE, {"arrivals": "bursty"}, "arrivals", "unknown arrivals", id="arrivals"),
        pytest.param(REMOTE, {"arrivals": "explicit"}, "releases", "need a list", id="explicit-without-releases"),
        pytest.param(REMOTE, {"releases": [[0, 5], [0]]}, "releases", "closer than the period", id="releases-too-close"),
        pytest.param(REMOTE, {"releases": [[0]]}, "releases", "one list of release times per task", id="releases-count"),
        pytest.param(REMOTE, {"m": 1}, "core", "core 1 does not exist on m = 1", id="core-beyond-m"),
        pytest.param(REMOTE, {"m": 0}, "m", "positive", id="no-cores"),
        pytest.param(REMOTE, {"horizon": 0}, "horizon", "positive", id="horizon"),
        pytest.param(REMOTE, {"seed": -1}, "seed", "non-negative", id="seed"),
        pytest.param(
            SegmentedTaskSet([task([1], 5, core=0), task([1], 5, core=None, name="late")]), {}, "core", "has no core",
            id="missing-core",
        ),
    ],
)  # fmt: skip
def test_bad_input(taskset, options, field, text):
    with pytest.raises(InputError, match=text) as err:
        simulate_segmented(taskset, **options)
    assert err.value.field == field
    if field == "core":
        assert err.value.task in (1, "late")


# -- properties on generated sets -----------------------------------------------------------------
def executed(trace):
    """Per (task, job): (cpu, G_m, G_e) time executed, from the intervals."""
    out = defaultdict(lambda: [0, 0, 0])
    for iv in trace.intervals:
        slot = {"cpu": 0, "G_m": 1, "G_e": 2}.get(iv.what)
        if slot is not None:
            out[(iv.task, iv.job)][slot] += iv.end - iv.start
    return out


def check_invariants(trace):
    ts = trace.taskset
    modes = trace.modes()
    # each resource runs one thing at a time (cores; devices unless protocol none)
    by_resource = defaultdict(list)
    for iv in trace.intervals:
        assert iv.start < iv.end <= trace.horizon
        by_resource[iv.resource].append(iv)
    for resource, ivs in by_resource.items():
        if resource.startswith("gpu:") and trace.protocol == "none":
            continue
        ivs.sort(key=lambda iv: iv.start)
        for a, b in zip(ivs, ivs[1:], strict=False):
            assert a.end <= b.start, (resource, a, b)
    # at most one holder per device
    holds = defaultdict(list)
    for iv in trace.holds:
        holds[iv.resource].append(iv)
    for ivs in holds.values():
        for a, b in zip(ivs, ivs[1:], strict=False):
            assert a.end <= b.start, (a, b)
    # executed time = demand (completed jobs), at most the demand (the others), per kind of part
    done = executed(trace)
    for (i, j, _r, _d, completion), demand in zip(trace.releases.tolist(), trace.demands, strict=True):
        want = [sum(demand[0::4]), sum(demand[1::4]) + sum(demand[3::4]), sum(demand[2::4])]
        got = done.get((i, j), [0, 0, 0])
        if completion >= 0:
            assert got == want, (i, j)
        else:
            assert all(g <= w for g, w in zip(got, want, strict=True))
    # work conservation: a core is idle only when each active job on it (released, its task's
    # previous job complete, itself not complete) is suspended: suspend mode, waiting in a device
    # queue or running G_e
    suspended = defaultdict(set)
    for iv in (*trace.intervals, *trace.waits):
        if iv.what in ("G_e", "wait"):
            suspended[(iv.task, iv.job)].update(range(iv.start, iv.end))
    idle = {k: set(range(trace.horizon)) for k in range(trace.m)}
    for iv in trace.intervals:
        if iv.resource.startswith("core"):
            idle[int(iv.resource[4:])].difference_update(range(iv.start, iv.end))
    previous_end: dict[int, int] = defaultdict(int)
    for i, j, r, _d, c in sorted(trace.releases.tolist(), key=lambda row: (row[0], row[1])):
        begin, end = max(r, previous_end[i]), (trace.horizon if c < 0 else c)
        previous_end[i] = end
        stalled = {x for x in idle[ts[i].core] if begin <= x < end}
        if stalled:
            assert modes[i] == "suspend", (i, j, sorted(stalled))
            assert stalled <= suspended[(i, j)], (i, j, sorted(stalled - suspended[(i, j)]))


sets = segmented_tasksets(
    m=2, max_size=5, min_period=2, max_period=30, devices=("g0", "g1"), max_gpu_segments=2, max_utilization=0.9
)


@settings(max_examples=60)
@given(ts=sets, protocol=st.sampled_from(PROTOCOLS), mode=st.sampled_from(MODES), seed=st.integers(0, 2**16))
def test_invariants_on_generated_sets(ts, protocol, mode, seed):
    for arrivals, execution in (("periodic", "wcet"), ("sporadic", "random")):
        trace = simulate_segmented(
            ts, 2, protocol=protocol, mode=mode, arrivals=arrivals, execution=execution, seed=seed, horizon=150,
            record=True,
        )  # fmt: skip
        check_invariants(trace)


@settings(max_examples=30)
@given(ts=sets, mode=st.sampled_from(MODES), seed=st.integers(0, 2**16))
def test_same_demands_under_every_protocol(ts, mode, seed):
    runs = [
        simulate_segmented(
            ts, 2, protocol=p, mode=mode, arrivals="sporadic", execution="random", seed=seed, horizon=120, record=True
        )
        for p in PROTOCOLS
    ]
    keyed = [dict(zip(((i, j) for i, j, *_ in run.releases.tolist()), run.demands, strict=True)) for run in runs]
    assert keyed[0] == keyed[1] == keyed[2]
    # recording changes nothing
    plain = simulate_segmented(
        ts, 2, protocol="fmlp+", mode=mode, arrivals="sporadic", execution="random", seed=seed, horizon=120
    )
    assert plain.misses == runs[1].misses and plain.response_times == runs[1].response_times


@settings(max_examples=40)
@given(
    ts=segmented_tasksets(m=2, max_size=4, max_period=12, devices=("g0", "g1"), max_gpu_segments=2),
    protocol=st.sampled_from(PROTOCOLS),
    mode=st.sampled_from(MODES),
)
def test_one_hyperperiod_decides_the_periodic_wcet_run(ts, protocol, mode):
    # the default horizon's argument (papers/cpu-gpu-simulator.md): with D <= T, a run without a
    # miss in [0, H] is back in its initial state at H, so a second hyperperiod repeats the first
    hyper = math.lcm(*(t.T for t in ts))
    one = simulate_segmented(ts, 2, protocol=protocol, mode=mode)
    assert one.horizon == hyper
    two = simulate_segmented(ts, 2, protocol=protocol, mode=mode, horizon=2 * hyper)
    if one.schedulable_so_far:
        assert two.schedulable_so_far and two.response_times == one.response_times
    else:
        assert not two.schedulable_so_far


# -- a naive tick-by-tick simulator of papers/cpu-gpu-model.md as an oracle -----------------------
def naive(ts, m, protocol, mode, releases, horizon):
    """Tick by tick: WCET demands, explicit releases; returns the per-core, per-tick (task, job, what) and completions."""
    locking = protocol != "none"
    devices = ts.devices
    jobs = []  # dicts
    for i, times in enumerate(releases):
        t_ = ts[i]
        for j, r in enumerate(times):
            steps = [("cpu", t_.cpu[0])]
            for g, c in zip(t_.gpu, t_.cpu[1:], strict=True):
                steps += [
                    ("req", g.device),
                    ("gm", (g.G_m + 1) // 2),
                    ("ge", g.G_e),
                    ("gm", g.G_m // 2),
                    ("rel", g.device),
                    ("cpu", c),
                ]
            jobs.append({"task": i, "job": j, "release": r, "steps": steps, "pos": 0, "rem": steps[0][1], "done": None,
                         "req": None, "grant": None, "busy": ts.mode_of(i, mode) == "busy"})  # fmt: skip
    holder = dict.fromkeys(devices)
    queue = {d: [] for d in devices}
    timeline = {k: [None] * horizon for k in range(m)}

    def active(t):
        out = []
        for i in range(ts.n):
            mine = [jb for jb in jobs if jb["task"] == i and jb["release"] <= t and jb["done"] is None]
            if mine:
                out.append(min(mine, key=lambda jb: jb["job"]))
        return out

    def settle(jb, t):
        while jb["done"] is None:
            kind, value = jb["steps"][jb["pos"]]
            if kind == "req":
                if not locking:
                    jb["pos"] += 1
                    jb["rem"] = jb["steps"][jb["pos"]][1]
                    continue
                if jb["req"] is None:
                    jb["req"] = t
                    queue[value].append(jb)
                return
            if kind == "rel":
                if locking:
                    holder[value] = None
                jb["req"] = jb["grant"] = None
            elif jb["rem"] > 0:
                return
            jb["pos"] += 1
            if jb["pos"] == len(jb["steps"]):
                jb["done"] = t
                return
            jb["rem"] = jb["steps"][jb["pos"]][1]

    for t in range(horizon + 1):
        while True:  # ends of parts and releases first (to a fixed point), then grants; again until nothing changes
            before = [(jb["pos"], jb["done"], jb["req"], jb["grant"]) for jb in jobs]
            while True:
                settled = [(jb["pos"], jb["done"], jb["req"]) for jb in jobs]
                for jb in sorted(active(t), key=lambda jb: jb["task"]):
                    settle(jb, t)
                if settled == [(jb["pos"], jb["done"], jb["req"]) for jb in jobs]:
                    break
            for d in devices:
                if locking and holder[d] is None and queue[d]:
                    key = (lambda jb: (jb["req"], jb["task"])) if protocol == "fmlp+" else (lambda jb: jb["task"])
                    jb = min(queue[d], key=key)
                    queue[d].remove(jb)
                    holder[d] = jb
                    jb["grant"] = t
                    jb["pos"] += 1
                    jb["rem"] = jb["steps"][jb["pos"]][1]
            if before == [(jb["pos"], jb["done"], jb["req"], jb["grant"]) for jb in jobs]:
                break
        if t == horizon:
            break
        for k in range(m):
            best = None
            for jb in active(t):
                if ts[jb["task"]].core != k:
                    continue
                kind = jb["steps"][jb["pos"]][0]
                what = {"cpu": "cpu", "gm": "G_m"}.get(kind)
                if what is None and jb["busy"]:
                    what = {"req": "spin-wait", "ge": "spin-gpu"}.get(kind)
                if what is None:
                    continue
                boosted = locking and kind in ("gm", "ge")
                key = (0, jb["grant"] if protocol == "fmlp+" else 0, jb["task"]) if boosted else (1, 0, jb["task"])
                if best is None or key < best[0]:
                    best = (key, jb, what)
            if best is not None:
                _key, jb, what = best
                timeline[k][t] = (jb["task"], jb["job"], what)
                if what in ("cpu", "G_m"):
                    jb["rem"] -= 1
        for jb in active(t):
            if jb["steps"][jb["pos"]][0] == "ge" and jb["rem"] > 0:
                jb["rem"] -= 1
    return timeline, {(jb["task"], jb["job"]): jb["done"] for jb in jobs}


def ticks(trace):
    out = {k: [None] * trace.horizon for k in range(trace.m)}
    for iv in trace.intervals:
        if iv.resource.startswith("core"):
            for x in range(iv.start, iv.end):
                out[int(iv.resource[4:])][x] = (iv.task, iv.job, iv.what)
    return out


small_sets = segmented_tasksets(m=2, max_size=4, max_period=12, devices=("g0", "g1"), max_gpu_segments=2)


def check_against_naive(ts, protocol, mode, data):
    releases = []
    for t in ts:
        times = [data.draw(st.integers(0, 3))]
        for extra in data.draw(st.lists(st.integers(0, 3), max_size=2)):
            times.append(times[-1] + t.T + extra)
        releases.append(times)
    horizon = max(max(r) for r in releases) + 2 * max(t.T for t in ts) + 1
    trace = simulate_segmented(ts, 2, protocol=protocol, mode=mode, releases=releases, horizon=horizon, record=True)
    timeline, done = naive(ts, 2, protocol, mode, releases, horizon)
    assert ticks(trace) == timeline
    ours = {(i, j): (None if c < 0 else c) for i, j, _r, _d, c in trace.releases.tolist()}
    assert ours == done


@settings(max_examples=80)
@given(ts=small_sets, protocol=st.sampled_from(PROTOCOLS), mode=st.sampled_from(MODES), data=st.data())
def test_agrees_with_a_naive_tick_simulator(ts, protocol, mode, data):
    check_against_naive(ts, protocol, mode, data)


@pytest.mark.slow
@settings(max_examples=10 * EXAMPLES)
@given(ts=small_sets, protocol=st.sampled_from(PROTOCOLS), mode=st.sampled_from(MODES), data=st.data())
def test_agrees_with_a_naive_tick_simulator_long(ts, protocol, mode, data):
    check_against_naive(ts, protocol, mode, data)
