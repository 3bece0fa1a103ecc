"""Preemptive GPU scheduling in the CPU–GPU simulator (rtsched.segmented.sim, protocols gcaps and
tsg-rr of papers/cpu-gpu-model.md): schedules worked by hand (a higher GPU priority preempting a
running G_e, the context-switch cost ε at each switch, an abandoned switch, gpu_priorities
reversing the order, busy spinning at base priority while preempted on the GPU, suspension freeing
the core; round robin in slices, a lone part keeping the device, ties by priority, a slice ending
at a submission instant), bad input, and properties on generated sets (one part on a device at a
time, executed = demand, the same demands as the other protocols, work conservation on cores and
devices, the GPU-priority and time-slice rules, one hyperperiod deciding a periodic WCET run,
agreement with a naive tick-by-tick simulator of the model note written here)."""

import math
import os
from collections import defaultdict

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rtsched.errors import InputError
from rtsched.segmented import GPUSegment, SegmentedTask, SegmentedTaskSet, simulate_segmented
from rtsched.segmented.sim import PREEMPTIVE, PROTOCOLS
from rtsched.testing.strategies import segmented_tasksets

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


def gpu(trace):
    """``(task, start, end, what)`` on the device ``gpu``."""
    return [(i, s, e, w) for i, _j, s, e, w in rows(trace, "gpu:gpu")]


# -- gcaps: a higher GPU priority preempts a running G_e ------------------------------------------
# τ0 (core 0): C 2, G (0, 3), C 1; τ1 (core 1): G (0, 6), C 1. ε = 0: τ1 submits at 0 and runs
# [0, 2); τ0 submits at 2 and preempts it: [2, 5); τ0's C [5, 6): R0 = 6; τ1 resumes [5, 9),
# C [9, 10): R1 = 10. ε = 1: switch to τ1 [0, 1), τ1 [1, 2), switch to τ0 [2, 3), τ0 [3, 6),
# C [6, 7): R0 = 7; switch back [6, 7), τ1's 5 ticks left [7, 12), C [12, 13): R1 = 13 — three
# switches, each charged. With gpu_priorities=[1, 0] τ1 is the higher on the GPU: τ0 waits until
# τ1's G_e ends at 6: τ0 [6, 9), C [9, 10): R0 = 10, R1 = 7 (MPCP's order with a lock would be
# the same here; the preemption is what differs).
PREEMPT = SegmentedTaskSet([task([2, (0, 3), 1], 30, core=0), task([(0, 6), 1], 30, core=1)])


@pytest.mark.parametrize(
    ("options", "device", "response", "waits"),
    [
        pytest.param(
            {}, [(1, 0, 2, "G_e"), (0, 2, 5, "G_e"), (1, 5, 9, "G_e")], (6, 10), [(1, 2, 5)], id="preempts",
        ),
        pytest.param(
            {"epsilon": 1},
            [(1, 0, 1, "ctx"), (1, 1, 2, "G_e"), (0, 2, 3, "ctx"), (0, 3, 6, "G_e"), (1, 6, 7, "ctx"),
             (1, 7, 12, "G_e")],
            (7, 13), [(1, 0, 1), (0, 2, 3), (1, 2, 7)],
            id="epsilon-at-each-switch",
        ),
        pytest.param(
            {"gpu_priorities": [1, 0]}, [(1, 0, 6, "G_e"), (0, 6, 9, "G_e")], (10, 7), [(0, 2, 6)],
            id="gpu-priorities-reverse",
        ),
    ],
)  # fmt: skip
@pytest.mark.parametrize("mode", MODES)
def test_gcaps_preemption(options, device, response, waits, mode):
    trace = simulate_segmented(PREEMPT, protocol="gcaps", mode=mode, record=True, **options)
    assert gpu(trace) == device
    assert trace.response_times == response
    assert [(iv.task, iv.start, iv.end) for iv in trace.waits] == waits
    assert trace.holds == ()  # no lock
    assert trace.epsilon == options.get("epsilon", 0) and trace.time_slice is None
    if mode == "busy":  # τ0 spins from its submission to the end of its G_e, whatever the device does
        end = max(e for i, _s, e, w in device if i == 0 and w == "G_e")
        assert rows(trace, "core0") == [(0, 0, 0, 2, "cpu"), (0, 0, 2, end, "spin-gpu"), (0, 0, end, end + 1, "cpu")]


def test_gcaps_abandons_a_switch_for_a_higher_part():
    # ε = 2. τ2 submits at 0 (switch to it [0, 1)), τ1 at 1 (higher: that switch is abandoned and
    # one to τ1 starts [1, 2)), τ0 at 2 (higher again: [2, 4), runs [4, 6)); then τ1: switch
    # [6, 8), runs [8, 10); τ2: switch [10, 12), runs [12, 15). R = (6, 10, 15).
    ts = SegmentedTaskSet([task([2, (0, 2)], 40, core=0), task([1, (0, 2)], 40, core=1), task([(0, 3)], 40, core=2)])
    trace = simulate_segmented(ts, protocol="gcaps", epsilon=2, record=True)
    assert gpu(trace) == [
        (2, 0, 1, "ctx"), (1, 1, 2, "ctx"), (0, 2, 4, "ctx"), (0, 4, 6, "G_e"), (1, 6, 8, "ctx"), (1, 8, 10, "G_e"),
        (2, 10, 12, "ctx"), (2, 12, 15, "G_e"),
    ]  # fmt: skip
    assert trace.response_times == (6, 10, 15)


# -- gcaps: busy spinning at base priority while preempted; suspension frees the core -------------
# Core 0: τ0 C 1, G (0, 2), C 1 (the highest CPU priority) and τ2 C 2; core 1: τ1 G (0, 4), the
# highest GPU priority (gpu_priorities = [1, 0, 2]). τ1 runs on the GPU [0, 4); τ0 submits at 1
# and waits until 4, runs [4, 6), C [6, 7). Busy: τ0 spins on core 0 [1, 6) (its part preempted
# or waiting all the while), τ2 runs [7, 9): R2 = 9. Suspend: τ2 runs [1, 3): R2 = 3.
SPIN = SegmentedTaskSet([task([1, (0, 2), 1], 30, core=0), task([(0, 4)], 30, core=1), task([2], 30, core=0)])


@pytest.mark.parametrize(
    ("mode", "core0", "response"),
    [
        pytest.param(
            "busy", [(0, 0, 0, 1, "cpu"), (0, 0, 1, 6, "spin-gpu"), (0, 0, 6, 7, "cpu"), (2, 0, 7, 9, "cpu")], (7, 4, 9),
            id="busy-spins-while-preempted",
        ),
        pytest.param(
            "suspend", [(0, 0, 0, 1, "cpu"), (2, 0, 1, 3, "cpu"), (0, 0, 6, 7, "cpu")], (7, 4, 3),
            id="suspend-frees-the-core",
        ),
    ],
)  # fmt: skip
def test_gcaps_waiting_modes(mode, core0, response):
    trace = simulate_segmented(SPIN, protocol="gcaps", gpu_priorities=[1, 0, 2], mode=mode, record=True)
    assert rows(trace, "core0") == core0
    assert gpu(trace) == [(1, 0, 4, "G_e"), (0, 4, 6, "G_e")]
    assert trace.response_times == response


@pytest.mark.parametrize("protocol", ["gcaps", "tsg-rr"])
def test_spinning_is_not_boosted(protocol):
    # Core 0: τ0 C 2 released at 2; τ1 (lower, busy) C 1, G (2, 4), C 1 released at 0. No boosting:
    # τ0 preempts τ1's spinning [2, 4) and its copy-out waits for it; τ1's G_e [2, 6) goes on on the
    # device meanwhile. Under MPCP the holder's spinning and copy-out are boosted: τ0 runs [7, 9)
    # (R0 = 7) and τ1's last C [9, 10) (R1 = 10).
    ts = SegmentedTaskSet([task([2], 20, core=0), task([1, (2, 4), 1], 20, core=0, mode="busy")])
    options = {"time_slice": 3} if protocol == "tsg-rr" else {}
    trace = simulate_segmented(ts, protocol=protocol, releases=[[2], [0]], record=True, **options)
    assert rows(trace, "core0") == [
        (1, 0, 0, 1, "cpu"), (1, 0, 1, 2, "G_m"), (0, 0, 2, 4, "cpu"), (1, 0, 4, 6, "spin-gpu"), (1, 0, 6, 7, "G_m"),
        (1, 0, 7, 8, "cpu"),
    ]  # fmt: skip
    assert gpu(trace) == [(1, 2, 6, "G_e")]
    assert trace.response_times == (2, 8)
    mpcp = simulate_segmented(ts, protocol="mpcp", releases=[[2], [0]])
    assert mpcp.response_times == (7, 10)


# -- tsg-rr: round robin in slices ----------------------------------------------------------------
THREE = SegmentedTaskSet([task([(0, 3)], 40, core=0), task([(0, 3)], 40, core=1), task([(0, 3)], 40, core=2)])


@pytest.mark.parametrize(
    ("epsilon", "device", "response"),
    [
        pytest.param(
            0, [(0, 0, 2, "G_e"), (1, 2, 4, "G_e"), (2, 4, 6, "G_e"), (0, 6, 7, "G_e"), (1, 7, 8, "G_e"),
                (2, 8, 9, "G_e")],
            (7, 8, 9), id="three-parts-in-slices",
        ),
        pytest.param(
            1, [(0, 0, 1, "ctx"), (0, 1, 3, "G_e"), (1, 3, 4, "ctx"), (1, 4, 6, "G_e"), (2, 6, 7, "ctx"),
                (2, 7, 9, "G_e"), (0, 9, 10, "ctx"), (0, 10, 11, "G_e"), (1, 11, 12, "ctx"), (1, 12, 13, "G_e"),
                (2, 13, 14, "ctx"), (2, 14, 15, "G_e")],
            (11, 13, 15), id="epsilon-per-switch",
        ),
    ],
)  # fmt: skip
def test_round_robin_slices(epsilon, device, response):
    # Three parts of 3 submitted at 0 (ties by priority: τ0, τ1, τ2), time slice 2: each runs 2,
    # goes to the tail; every change of part is a switch (ε = 1: 6 switches, the first included).
    trace = simulate_segmented(THREE, protocol="tsg-rr", time_slice=2, epsilon=epsilon, record=True)
    assert gpu(trace) == device
    assert trace.response_times == response
    assert trace.summary().startswith(f"no deadline miss in [0, 40] (tsg-rr (time slice 2, ε = {epsilon}) on m=3")


def test_a_lone_part_keeps_the_device():
    # one part of 5, slice 2, ε = 1: one switch (the first), then it runs on alone: [1, 6)
    ts = SegmentedTaskSet([task([(0, 5), 1], 20, core=0)])
    trace = simulate_segmented(ts, protocol="tsg-rr", time_slice=2, epsilon=1, record=True)
    assert gpu(trace) == [(0, 0, 1, "ctx"), (0, 1, 6, "G_e")]
    assert trace.response_times == (7,)
    # τ0 G (0, 7) alone from 0 (slices [0, 2), [2, 4), ...); τ1 submits at 3: it waits for the end of
    # τ0's current slice at 4, runs [4, 6); τ0 finishes [6, 9)
    ts = SegmentedTaskSet([task([(0, 7)], 20, core=0), task([3, (0, 2)], 20, core=1)])
    trace = simulate_segmented(ts, protocol="tsg-rr", time_slice=2, record=True)
    assert gpu(trace) == [(0, 0, 4, "G_e"), (1, 4, 6, "G_e"), (0, 6, 9, "G_e")]
    assert trace.response_times == (9, 6)


def test_submission_order_ties_by_priority():
    # τ2 submits at 0 (slice 5: it runs [0, 2) to its end); τ0 and τ1 both at 1, queued by
    # priority: τ0 [2, 4), τ1 [4, 6). With τ1 submitting first (at 1, τ0 at 2): τ1 before τ0.
    ts = SegmentedTaskSet([task([1, (0, 2)], 30, core=0), task([1, (0, 2)], 30, core=1), task([(0, 2)], 30, core=2)])
    trace = simulate_segmented(ts, protocol="tsg-rr", time_slice=5, record=True)
    assert [i for i, *_ in gpu(trace)] == [2, 0, 1] and trace.response_times == (4, 6, 2)
    ts = SegmentedTaskSet([task([2, (0, 2)], 30, core=0), task([1, (0, 2)], 30, core=1), task([(0, 2)], 30, core=2)])
    trace = simulate_segmented(ts, protocol="tsg-rr", time_slice=5, record=True)
    assert [i for i, *_ in gpu(trace)] == [2, 1, 0] and trace.response_times == (6, 4, 2)


def test_a_slice_ending_at_a_submission_goes_behind_it():
    # τ0 and τ1 G (0, 5) at 0, slice 2: τ0 [0, 2), τ1 [2, 4). τ2 submits at 4, the instant τ1's
    # slice ends: the queue [τ1, τ0, τ2] becomes [τ0, τ2, τ1] (the part submitted at 4 is ahead
    # of the one whose slice ended at 4): τ0 [4, 6), τ2 [6, 7), τ1 [7, 9), τ0 [9, 10), τ1 [10, 11).
    ts = SegmentedTaskSet([task([(0, 5)], 30, core=0), task([(0, 5)], 30, core=1), task([4, (0, 1)], 30, core=2)])
    trace = simulate_segmented(ts, protocol="tsg-rr", time_slice=2, record=True)
    assert [(i, s, e) for i, s, e, _w in gpu(trace)] == [
        (0, 0, 2), (1, 2, 4), (0, 4, 6), (2, 6, 7), (1, 7, 9), (0, 9, 10), (1, 10, 11),
    ]  # fmt: skip
    assert trace.response_times == (10, 11, 7)


@pytest.mark.parametrize("protocol", PREEMPTIVE)
def test_a_completion_and_a_submission_at_one_instant(protocol):
    # τ1's G_e ends at 3, the instant τ0 submits: the device goes to τ0 at 3 (no idle tick) and,
    # with ε = 1, switches [3, 4) before τ0 runs [4, 6)
    ts = SegmentedTaskSet([task([3, (0, 2)], 30, core=0), task([(0, 2)], 30, core=1)])
    options = {"time_slice": 4} if protocol == "tsg-rr" else {}
    trace = simulate_segmented(ts, protocol=protocol, epsilon=1, record=True, **options)
    assert gpu(trace) == [(1, 0, 1, "ctx"), (1, 1, 3, "G_e"), (0, 3, 4, "ctx"), (0, 4, 6, "G_e")]
    assert trace.response_times == (6, 3)


def test_zero_length_g_e_is_not_submitted():
    # a G_e of 0 takes no device time and no switch (ε = 3)
    ts = SegmentedTaskSet([task([1, (2, 0), 1], 20, core=0)])
    for protocol, options in (("gcaps", {}), ("tsg-rr", {"time_slice": 1})):
        trace = simulate_segmented(ts, protocol=protocol, epsilon=3, record=True, **options)
        assert gpu(trace) == [] and trace.response_times == (4,)


def test_to_dict_and_summary():
    trace = simulate_segmented(PREEMPT, protocol="gcaps", gpu_priorities=(1, 0), epsilon=2, record=True)
    d = trace.to_dict()
    assert d["protocol"] == "gcaps" and d["epsilon"] == 2 and d["gpu_priorities"] == [1, 0]
    assert d["time_slice"] is None
    assert "gcaps (GPU priorities 1,0, ε = 2) on m=2" in trace.summary()
    assert {iv["what"] for iv in d["intervals"]} >= {"ctx", "G_e"}
    # the other protocols keep their dict and summary
    assert "epsilon" not in simulate_segmented(PREEMPT, protocol="mpcp").to_dict()


# -- bad input ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("options", "field", "text"),
    [
        pytest.param({"protocol": "tsg-rr"}, "time_slice", "tsg-rr needs time_slice=", id="tsg-rr-without-slice"),
        pytest.param({"protocol": "tsg-rr", "time_slice": 0}, "time_slice", "positive", id="slice-zero"),
        pytest.param({"protocol": "tsg-rr", "time_slice": 1.5}, "time_slice", "positive", id="slice-float"),
        pytest.param({"protocol": "tsg-rr", "time_slice": True}, "time_slice", "positive", id="slice-bool"),
        pytest.param({"protocol": "gcaps", "time_slice": 2}, "time_slice", "applies to protocol tsg-rr", id="slice-gcaps"),
        pytest.param({"protocol": "gcaps", "epsilon": -1}, "epsilon", "non-negative", id="epsilon-negative"),
        pytest.param({"protocol": "gcaps", "epsilon": "1"}, "epsilon", "non-negative", id="epsilon-text"),
        pytest.param({"protocol": "mpcp", "epsilon": 1}, "epsilon", "applies to protocols gcaps", id="epsilon-mpcp"),
        pytest.param({"protocol": "gcaps", "gpu_priorities": [0, 0]}, "gpu_priorities", "permutation", id="ranks-dup"),
        pytest.param({"protocol": "gcaps", "gpu_priorities": [1, 2]}, "gpu_priorities", "permutation", id="ranks-range"),
        pytest.param({"protocol": "gcaps", "gpu_priorities": [0]}, "gpu_priorities", "permutation", id="ranks-short"),
        pytest.param({"protocol": "gcaps", "gpu_priorities": "01"}, "gpu_priorities", "permutation", id="ranks-text"),
        pytest.param({"protocol": "gcaps", "gpu_priorities": [0.0, 1]}, "gpu_priorities", "permutation", id="ranks-float"),
        pytest.param(
            {"protocol": "tsg-rr", "time_slice": 2, "gpu_priorities": [0, 1]}, "gpu_priorities",
            "applies to protocol gcaps", id="ranks-tsg-rr",
        ),
    ],
)  # fmt: skip
def test_bad_input(options, field, text):
    with pytest.raises(InputError, match=text) as err:
        simulate_segmented(PREEMPT, **options)
    assert err.value.field == field
    assert "\n" not in str(err.value)


def test_options_accepted():
    assert simulate_segmented(PREEMPT, protocol="mpcp", epsilon=0).epsilon == 0
    import numpy as np

    trace = simulate_segmented(PREEMPT, protocol="gcaps", gpu_priorities=np.array([1, 0]))
    assert trace.gpu_priorities == (1, 0) and trace.response_times == (10, 7)
    assert simulate_segmented(PREEMPT, protocol="gcaps", gpu_priorities=[0, 1]).response_times == (6, 10)


# -- properties on generated sets -----------------------------------------------------------------
sets = segmented_tasksets(
    m=2, max_size=5, min_period=2, max_period=30, devices=("g0", "g1"), max_gpu_segments=2, max_utilization=0.9
)


def preemptive_options(protocol, data):
    """Draw ε, and the time slice (tsg-rr) or the GPU priorities (gcaps, sometimes)."""
    options = {"epsilon": data.draw(st.integers(0, 2), label="epsilon")}
    if protocol == "tsg-rr":
        options["time_slice"] = data.draw(st.integers(1, 4), label="time_slice")
    return options


def draw_ranks(n, data):
    return data.draw(st.one_of(st.none(), st.permutations(range(n)).map(list)), label="gpu_priorities")


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
    eps = trace.epsilon
    by_resource = defaultdict(list)
    for iv in trace.intervals:
        assert iv.start < iv.end <= trace.horizon
        assert iv.what != "ctx" or (iv.resource.startswith("gpu:") and iv.end - iv.start <= eps)
        by_resource[iv.resource].append(iv)
    # one thing at a time on each core and each device (one G_e part or one context switch)
    for resource, ivs in by_resource.items():
        ivs.sort(key=lambda iv: iv.start)
        for a, b in zip(ivs, ivs[1:], strict=False):
            assert a.end <= b.start, (resource, a, b)
    assert trace.holds == ()
    # executed time = demand (completed jobs), at most the demand (the others)
    done = executed(trace)
    for (i, j, _r, _d, completion), demand in zip(trace.releases.tolist(), trace.demands, strict=True):
        want = [sum(demand[0::4]), sum(demand[1::4]) + sum(demand[3::4]), sum(demand[2::4])]
        got = done.get((i, j), [0, 0, 0])
        if completion >= 0:
            assert got == want, (i, j)
        else:
            assert all(g <= w for g, w in zip(got, want, strict=True))
    # submitted: per device and tick, the jobs whose G_e is submitted (its G_e intervals and waits)
    submitted = defaultdict(lambda: defaultdict(set))
    on_device = defaultdict(dict)  # device -> tick -> (task, job, what)
    for iv in trace.intervals:
        if iv.resource.startswith("gpu:"):
            for x in range(iv.start, iv.end):
                on_device[iv.resource][x] = (iv.task, iv.job, iv.what)
                if iv.what == "G_e":
                    submitted[iv.resource][x].add((iv.task, iv.job))
    waiting = defaultdict(lambda: defaultdict(set))
    for iv in trace.waits:
        for x in range(iv.start, iv.end):
            submitted[iv.resource][x].add((iv.task, iv.job))
            waiting[iv.resource][x].add((iv.task, iv.job))
    # work conservation on devices: a device with a submitted part is never idle (it runs a G_e
    # or a context switch); a G_e runs only while submitted; a waiting part is not the running one
    for device, per_tick in submitted.items():
        for x, jobs in per_tick.items():
            assert x in on_device[device], (device, x, jobs)
    for device, per_tick in on_device.items():
        for x, (i, j, what) in per_tick.items():
            if what == "G_e":
                assert (i, j) not in waiting[device][x]
                if trace.protocol == "gcaps":  # the highest GPU priority among the submitted parts
                    rank = trace.gpu_priorities or tuple(range(ts.n))
                    assert all(rank[i] < rank[k] for k, _ in waiting[device][x]), (device, x)
    if eps == 0:
        assert not any(iv.what == "ctx" for iv in trace.intervals)
    # tsg-rr: a run of G_e that starts while another part waits lasts at most one slice
    if trace.protocol == "tsg-rr":
        for iv in trace.intervals:
            if iv.what == "G_e" and waiting[iv.resource][iv.start] - {(iv.task, iv.job)}:
                assert iv.end - iv.start <= trace.time_slice, iv
    # work conservation on cores: a core is idle only when each active job on it is suspended
    # (suspend mode, its G_e submitted)
    idle = {k: set(range(trace.horizon)) for k in range(trace.m)}
    for iv in trace.intervals:
        if iv.resource.startswith("core"):
            idle[int(iv.resource[4:])].difference_update(range(iv.start, iv.end))
    suspended = defaultdict(set)
    for per_tick in submitted.values():
        for x, jobs in per_tick.items():
            for key in jobs:
                suspended[key].add(x)
    previous_end: dict[int, int] = defaultdict(int)
    for i, j, r, _d, c in sorted(trace.releases.tolist(), key=lambda row: (row[0], row[1])):
        begin, end = max(r, previous_end[i]), (trace.horizon if c < 0 else c)
        previous_end[i] = end
        stalled = {x for x in idle[ts[i].core] if begin <= x < end}
        if stalled:
            assert modes[i] == "suspend", (i, j, sorted(stalled))
            assert stalled <= suspended[(i, j)], (i, j, sorted(stalled - suspended[(i, j)]))


@settings(max_examples=60)
@given(ts=sets, protocol=st.sampled_from(PREEMPTIVE), mode=st.sampled_from(MODES), seed=st.integers(0, 2**16),
       data=st.data())  # fmt: skip
def test_invariants_on_generated_sets(ts, protocol, mode, seed, data):
    options = preemptive_options(protocol, data)
    if protocol == "gcaps":
        options["gpu_priorities"] = draw_ranks(ts.n, data)
    for arrivals, execution in (("periodic", "wcet"), ("sporadic", "random")):
        trace = simulate_segmented(
            ts, 2, protocol=protocol, mode=mode, arrivals=arrivals, execution=execution, seed=seed, horizon=150,
            record=True, **options,
        )  # fmt: skip
        check_invariants(trace)


@settings(max_examples=30)
@given(ts=sets, mode=st.sampled_from(MODES), seed=st.integers(0, 2**16), eps=st.integers(0, 2))
def test_same_demands_as_the_other_protocols(ts, mode, seed, eps):
    runs = [
        simulate_segmented(
            ts, 2, protocol=p, mode=mode, arrivals="sporadic", execution="random", seed=seed, horizon=120, record=True,
            **({"time_slice": 2} if p == "tsg-rr" else {}), **({"epsilon": eps} if p in PREEMPTIVE else {}),
        )
        for p in PROTOCOLS
    ]  # fmt: skip
    keyed = [dict(zip(((i, j) for i, j, *_ in run.releases.tolist()), run.demands, strict=True)) for run in runs]
    assert all(k == keyed[0] for k in keyed)
    # recording changes nothing
    for p, run in zip(PROTOCOLS, runs, strict=True):
        if p in PREEMPTIVE:
            plain = simulate_segmented(
                ts, 2, protocol=p, mode=mode, arrivals="sporadic", execution="random", seed=seed, horizon=120,
                epsilon=eps, **({"time_slice": 2} if p == "tsg-rr" else {}),
            )  # fmt: skip
            assert plain.misses == run.misses and plain.response_times == run.response_times


@settings(max_examples=30)
@given(
    ts=segmented_tasksets(m=2, max_size=4, max_period=20, devices=("g0", "g1"), max_gpu_segments=2),
    mode=st.sampled_from(MODES),
    slice_=st.integers(1, 3),
)
def test_without_sharing_and_switches_every_protocol_is_none(ts, mode, slice_):
    # each task's GPU segments on a device of its own and ε = 0: no part ever waits for its
    # device, so gcaps, tsg-rr and none give the same schedule
    ts = SegmentedTaskSet(
        [
            SegmentedTask(t.cpu, tuple(GPUSegment(g.G_m, g.G_e, f"d{i}") for g in t.gpu), t.T, t.D, core=t.core)
            for i, t in enumerate(ts)
        ]
    )
    none = simulate_segmented(ts, 2, protocol="none", mode=mode, record=True)
    for protocol, options in (("gcaps", {}), ("tsg-rr", {"time_slice": slice_})):
        run = simulate_segmented(ts, 2, protocol=protocol, mode=mode, record=True, **options)
        assert run.response_times == none.response_times
        assert run.intervals == none.intervals
        assert run.waits == ()


@settings(max_examples=40)
@given(
    ts=segmented_tasksets(m=2, max_size=4, max_period=12, devices=("g0", "g1"), max_gpu_segments=2),
    protocol=st.sampled_from(PREEMPTIVE),
    mode=st.sampled_from(MODES),
    data=st.data(),
)
def test_one_hyperperiod_decides_the_periodic_wcet_run(ts, protocol, mode, data):
    # as for the other protocols (papers/cpu-gpu-simulator.md): with D <= T a run without a miss
    # in [0, H] is idle at H and every device's next part is a switch, as at 0
    options = preemptive_options(protocol, data)
    hyper = math.lcm(*(t.T for t in ts))
    one = simulate_segmented(ts, 2, protocol=protocol, mode=mode, **options)
    assert one.horizon == hyper
    two = simulate_segmented(ts, 2, protocol=protocol, mode=mode, horizon=2 * hyper, **options)
    if one.schedulable_so_far:
        assert two.schedulable_so_far and two.response_times == one.response_times
    else:
        assert not two.schedulable_so_far


# -- a naive tick-by-tick simulator of papers/cpu-gpu-model.md (gcaps, tsg-rr) as an oracle -------
def naive(ts, m, protocol, mode, releases, horizon, epsilon=0, time_slice=None, gpu_priorities=None):
    """Tick by tick, WCET demands, explicit releases: the per-core and per-device ticks and the completions.

    Written from the model note, independently of the simulator's events: at each tick every
    active job is settled to a fixed point (ends of parts, submissions, withdrawals), then each
    device chooses its part, then each core runs its highest-priority job that needs it for one
    tick, and each device one tick of its switch or of its part.
    """
    rank = gpu_priorities or list(range(ts.n))
    jobs = []
    for i, times in enumerate(releases):
        t_ = ts[i]
        for j, r in enumerate(times):
            steps = [("cpu", t_.cpu[0])]
            for g, c in zip(t_.gpu, t_.cpu[1:], strict=True):
                steps += [("gm", (g.G_m + 1) // 2), ("ge", g.G_e, g.device), ("gm", g.G_m // 2), ("cpu", c)]
            jobs.append({"task": i, "job": j, "release": r, "steps": steps, "pos": 0, "rem": steps[0][1], "done": None,
                         "sub": False, "busy": ts.mode_of(i, mode) == "busy"})  # fmt: skip
    # per device: the order keys of its submitted parts (tsg-rr), the part it serves, its switch
    # ticks left, the part it holds the context of, the progress in the current slice
    key = {}
    state = {d: {"serving": None, "ctx": 0, "loaded": None, "used": 0} for d in ts.devices}
    cores = {k: [None] * horizon for k in range(m)}
    devices = {d: [None] * horizon for d in ts.devices}

    def active(t):
        out = []
        for i in range(ts.n):
            mine = [jb for jb in jobs if jb["task"] == i and jb["release"] <= t and jb["done"] is None]
            if mine:
                out.append(min(mine, key=lambda jb: jb["job"]))
        return out

    def part(jb):
        return (jb["task"], jb["job"], jb["pos"])

    def settle(jb, t):
        while jb["done"] is None:
            step = jb["steps"][jb["pos"]]
            if jb["rem"] > 0:
                if step[0] == "ge" and not jb["sub"]:
                    jb["sub"] = True
                    key[part(jb)] = (t, 0, jb["task"])
                return
            if step[0] == "ge" and jb["sub"]:
                jb["sub"] = False
                if state[step[2]]["serving"] is jb:
                    state[step[2]]["serving"] = None
            jb["pos"] += 1
            if jb["pos"] == len(jb["steps"]):
                jb["done"] = t
                return
            jb["rem"] = jb["steps"][jb["pos"]][1]

    for t in range(horizon + 1):
        while True:
            before = [(jb["pos"], jb["done"], jb["sub"]) for jb in jobs]
            for jb in sorted(active(t), key=lambda jb: jb["task"]):
                settle(jb, t)
            if before == [(jb["pos"], jb["done"], jb["sub"]) for jb in jobs]:
                break
        if t == horizon:
            break
        for d, s in state.items():
            subs = [jb for jb in active(t) if jb["sub"] and jb["steps"][jb["pos"]][2] == d]
            if protocol == "gcaps":
                want = min(subs, key=lambda jb: rank[jb["task"]], default=None)
            else:
                cur = s["serving"]
                if cur is not None and s["ctx"] == 0 and s["used"] == time_slice:
                    if len(subs) > 1:
                        key[part(cur)] = (t, 1, 0)  # behind the parts submitted at t
                    s["used"] = 0
                want = min(subs, key=lambda jb: key[part(jb)], default=None)
            if want is not s["serving"]:
                s["serving"] = want
                s["used"] = 0
                if want is not None:
                    if part(want) == s["loaded"] or epsilon == 0:
                        s["ctx"], s["loaded"] = 0, part(want)
                    else:
                        s["ctx"], s["loaded"] = epsilon, None
        for k in range(m):
            best = None
            for jb in active(t):
                if ts[jb["task"]].core != k:
                    continue
                kind = jb["steps"][jb["pos"]][0]
                what = {"cpu": "cpu", "gm": "G_m"}.get(kind)
                if what is None and jb["busy"] and jb["sub"]:
                    what = "spin-gpu"
                if what is not None and (best is None or jb["task"] < best[0]["task"]):
                    best = (jb, what)
            if best is not None:
                jb, what = best
                cores[k][t] = (jb["task"], jb["job"], what)
                if what != "spin-gpu":
                    jb["rem"] -= 1
        for d, s in state.items():
            jb = s["serving"]
            if jb is None:
                continue
            if s["ctx"]:
                devices[d][t] = (jb["task"], jb["job"], "ctx")
                s["ctx"] -= 1
                if s["ctx"] == 0:
                    s["loaded"] = part(jb)
            else:
                devices[d][t] = (jb["task"], jb["job"], "G_e")
                jb["rem"] -= 1
                s["used"] += 1
    return cores, devices, {(jb["task"], jb["job"]): jb["done"] for jb in jobs}


def ticks(trace):
    out = {iv: [None] * trace.horizon for iv in [f"core{k}" for k in range(trace.m)]}
    out.update({f"gpu:{d}": [None] * trace.horizon for d in trace.taskset.devices})
    for iv in trace.intervals:
        for x in range(iv.start, iv.end):
            out[iv.resource][x] = (iv.task, iv.job, iv.what)
    return out


@st.composite
def contended_sets(draw):
    """2..5 tasks on 3 cores whose G_e parts (1..6) are long against the slices and overlap often."""
    devices = draw(st.sampled_from((("gpu",), ("g0", "g1"))))
    tasks = []
    for _ in range(draw(st.integers(2, 5))):
        eta = draw(st.integers(0, 2))
        cpu = [draw(st.integers(0, 3)) for _ in range(eta + 1)]
        gpu = [GPUSegment(draw(st.integers(0, 3)), draw(st.integers(1, 6)), draw(st.sampled_from(devices)))
               for _ in range(eta)]  # fmt: skip
        work = max(1, sum(cpu) + sum(g.G_m + g.G_e for g in gpu))
        if work == 1 and sum(cpu) == 0 and not gpu:
            cpu[0] = 1
        T = draw(st.integers(work, work + 15))
        tasks.append(
            SegmentedTask(cpu, gpu, T, draw(st.integers(work, T)), core=draw(st.integers(0, 2)),
                          mode=draw(st.sampled_from((None, "busy", "suspend"))))
        )  # fmt: skip
    return SegmentedTaskSet(tasks)


#: small generated sets on two devices, and contended ones
small_sets = st.one_of(
    segmented_tasksets(m=2, max_size=4, max_period=12, devices=("g0", "g1"), max_gpu_segments=2), contended_sets()
)


def check_against_naive(ts, protocol, mode, data):
    releases = []
    for t in ts:
        times = [data.draw(st.integers(0, 3))]
        for extra in data.draw(st.lists(st.integers(0, 3), max_size=2)):
            times.append(times[-1] + t.T + extra)
        releases.append(times)
    horizon = max(max(r) for r in releases) + 2 * max(t.T for t in ts) + 1
    options = preemptive_options(protocol, data)
    if protocol == "gcaps":
        options["gpu_priorities"] = draw_ranks(ts.n, data)
    trace = simulate_segmented(
        ts, 3, protocol=protocol, mode=mode, releases=releases, horizon=horizon, record=True, **options
    )
    cores, devices, done = naive(ts, 3, protocol, mode, releases, horizon, **options)
    got = ticks(trace)
    for k, timeline in cores.items():
        assert got[f"core{k}"] == timeline, f"core{k}"
    for d, timeline in devices.items():
        assert got[f"gpu:{d}"] == timeline, d
    ours = {(i, j): (None if c < 0 else c) for i, j, _r, _d, c in trace.releases.tolist()}
    assert ours == done


@settings(max_examples=200)  # a wrong tsg-rr tie rule (slice end vs submission) needs a few hundred
@given(ts=small_sets, protocol=st.sampled_from(PREEMPTIVE), mode=st.sampled_from(MODES), data=st.data())
def test_agrees_with_a_naive_tick_simulator(ts, protocol, mode, data):
    check_against_naive(ts, protocol, mode, data)


@pytest.mark.slow
@settings(max_examples=10 * EXAMPLES)
@given(ts=small_sets, protocol=st.sampled_from(PREEMPTIVE), mode=st.sampled_from(MODES), data=st.data())
def test_agrees_with_a_naive_tick_simulator_long(ts, protocol, mode, data):
    check_against_naive(ts, protocol, mode, data)


# -- the Gantt chart ------------------------------------------------------------------------------
def test_gantt_shows_context_switches(tmp_path):
    os.environ.setdefault("MPLBACKEND", "Agg")
    from matplotlib.colors import to_rgba

    from rtsched.segmented.gantt import CTX_COLOUR, SPIN_HATCH, plot_segmented_gantt, save_segmented_gantt

    trace = simulate_segmented(PREEMPT, protocol="gcaps", epsilon=1, mode="busy", record=True)
    ax = plot_segmented_gantt(trace)
    bars = {}
    for p in ax.patches:
        if p.get_gid():
            bars.setdefault(p.get_gid(), []).append(p)
    # the three switches, black, on the device row; no boosting (spinning only dotted), no holder band
    ctx = [(p.get_x(), p.get_width()) for gid, ps in bars.items() if gid.endswith(",ctx") for p in ps]
    assert sorted(ctx) == [(0, 1), (2, 1), (6, 1)]
    assert all(p.get_facecolor() == to_rgba(CTX_COLOUR) for gid, ps in bars.items() if gid.endswith(",ctx") for p in ps)
    assert bars["0,0,core0,spin-gpu"][0].get_hatch() == SPIN_HATCH
    assert bars["0,0,gpu:gpu,G_e"][0].get_x() == 3 and not any(gid.endswith("hold") for gid in bars)
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "context switch (ε)" in legend and "spin-wait" not in legend
    assert "gcaps (ε = 1)" in ax.get_title()
    path = save_segmented_gantt(
        simulate_segmented(THREE, protocol="tsg-rr", time_slice=2, epsilon=1, record=True), tmp_path / "rr.png"
    )
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


# -- the CLI: rtsched simulate --protocol gcaps|tsg-rr --time-slice --epsilon --gpu-priorities ----
# core 0: camera C 1, G (2, 2), C 1; core 1: detect C 2, G (0, 4), C 1, D = 7. Both submit at 2.
# gcaps: camera's G_e [2, 4) first, detect's [4, 8), C [8, 9): a miss. --gpu-priorities 1,0:
# detect [2, 6), C [6, 7): on its deadline; camera [6, 8), copy-out [8, 9), C [9, 10). tsg-rr,
# slice 1: camera [2, 3), detect [3, 4), camera [4, 5) (done), detect [5, 8), C [8, 9): a miss.
# gcaps with ε = 1: switch [2, 3), camera [3, 5), switch [5, 6), detect [6, 10), C [10, 11).
CLI_YAML = """\
name: demo
tasks:
  - {name: camera, T: 20, core: 0, segments: [1, {G_m: 2, G_e: 2}, 1]}
  - {name: detect, T: 20, D: 7, core: 1, segments: [2, [0, 4], 1]}
"""


@pytest.fixture
def cli_file(tmp_path):
    path = tmp_path / "set.yaml"
    path.write_text(CLI_YAML)
    return str(path)


@pytest.mark.parametrize(
    ("args", "status", "text"),
    [
        pytest.param(["--protocol", "gcaps"], 1, "completed at 9) (gcaps (ε = 0) on m=2", id="gcaps"),
        pytest.param(
            ["--protocol", "gcaps", "--gpu-priorities", "1,0"], 0,
            "no deadline miss in [0, 20] (gcaps (GPU priorities 1,0, ε = 0) on m=2", id="gcaps-gpu-priorities",
        ),
        pytest.param(
            ["--protocol", "tsg-rr", "--time-slice", "1"], 1, "completed at 9) (tsg-rr (time slice 1, ε = 0) on m=2",
            id="tsg-rr",
        ),
        pytest.param(
            ["--protocol", "gcaps", "--epsilon", "1"], 1, "completed at 11) (gcaps (ε = 1) on m=2", id="epsilon",
        ),
    ],
)  # fmt: skip
def test_cli(cli_file, capsys, args, status, text):
    from rtsched.cli import main

    assert main(["simulate", cli_file, "-m", "2", *args]) == status
    assert text in capsys.readouterr().out


def test_cli_json_and_gantt(cli_file, tmp_path, capsys):
    os.environ.setdefault("MPLBACKEND", "Agg")
    import json

    from rtsched.cli import main

    png = tmp_path / "rr.png"
    args = ["--protocol", "tsg-rr", "--time-slice", "1", "--epsilon", "1", "--json", "--gantt", str(png)]
    assert main(["simulate", cli_file, "-m", "2", *args]) == 1
    out = json.loads(capsys.readouterr().out.splitlines()[0])
    assert out["protocol"] == "tsg-rr" and out["time_slice"] == 1 and out["epsilon"] == 1
    assert "ctx" in {iv["what"] for iv in out["intervals"]}
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        pytest.param(["--protocol", "tsg-rr"], "field --time-slice: protocol tsg-rr needs", id="no-slice"),
        pytest.param(["--protocol", "tsg-rr", "--time-slice", "0"], "field --time-slice: time_slice must", id="slice-0"),
        pytest.param(["--protocol", "gcaps", "--gpu-priorities", "a,b"], "field --gpu-priorities: expected", id="text"),
        pytest.param(["--protocol", "gcaps", "--gpu-priorities", "0,0"], "field --gpu-priorities: gpu_priorities must",
                     id="not-a-permutation"),
        pytest.param(["--gpu-priorities", "1,0"], "field --gpu-priorities: gpu_priorities applies to protocol gcaps",
                     id="ranks-mpcp"),
        pytest.param(["--epsilon", "1"], "field --epsilon: epsilon applies to protocols gcaps and tsg-rr", id="eps-mpcp"),
        pytest.param(["--protocol", "gcaps", "--epsilon", "-1"], "field --epsilon: epsilon must", id="eps-negative"),
    ],
)  # fmt: skip
def test_cli_bad_input_is_one_line_exit_2(cli_file, capsys, args, message):
    from rtsched.cli import main

    assert main(["simulate", cli_file, "-m", "2", *args]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and message in err, err


@pytest.mark.parametrize("option", [["--time-slice", "2"], ["--epsilon", "1"], ["--gpu-priorities", "0"]])
def test_cli_options_refused_for_other_files(tmp_path, capsys, option):
    from rtsched.cli import main

    path = tmp_path / "tasks.csv"
    path.write_text("C,D,T\n1,4,4\n")
    assert main(["simulate", str(path), "-m", "1", *option]) == 2
    assert f"{option[0]} applies to CPU–GPU segmented task sets" in capsys.readouterr().err
