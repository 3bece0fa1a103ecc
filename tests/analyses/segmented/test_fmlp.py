"""seg-fmlp-busy / seg-fmlp-suspend: FMLP+ for GPU access (papers/brandenburg2014-fmlp-plus.md).

Worked example by hand (the note's), FIFO order against priority order (a schedule where FMLP+'s
bound is below MPCP's and one where it is above), kernel == reference, soundness against
rtsched.segmented.sim.simulate_segmented(protocol="fmlp+") with a reach count, and the proved
relations (one task per device: FMLP+ and MPCP give the same bounds; no GPU: uni-rta per core;
a task's own mode beats the default). The zero-length chain schedule is in test_mpcp.py (both
protocols).
"""

import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rtsched.testing.strategies as rst
from rtsched import registry
from rtsched.model import TaskSet
from rtsched.segmented.model import GPUSegment, SegmentedBatch, SegmentedTask, SegmentedTaskSet
from rtsched.segmented.sim import simulate_segmented

BUSY = registry.get("seg-fmlp-busy")
SUSPEND = registry.get("seg-fmlp-suspend")
ENTRIES = {"busy": BUSY, "suspend": SUSPEND}
MPCP = {"busy": registry.get("seg-mpcp-busy"), "suspend": registry.get("seg-mpcp-suspend")}

#: The note's worked example (the same set as papers/patel2018-mpcp-gpu.md's).
WORKED = SegmentedTaskSet(
    [
        SegmentedTask((1, 1), ((2, 4, "g0"),), 30, core=0),
        SegmentedTask((2, 1), ((2, 3, "g1"),), 40, core=1),
        SegmentedTask((1, 2), ((2, 5, "g1"),), 50, core=0),
        SegmentedTask((1, 1), ((2, 6, "g0"),), 60, core=1),
        SegmentedTask((4,), (), 60, core=0),
    ]
)


def _bounds(entry, ts, m):
    return entry.explain(ts, m).evidence["response_times"]


def test_worked_example_by_hand():
    """The note's hand computation: (H-FMLP) 8, 7, 9, 10; (W-FMLP) 10, 9, 7, 8; R = 22, 21, 25, 23, 17."""
    result = SUSPEND.explain(WORKED, 2)
    ev = result.evidence
    assert result.verdict is True
    assert [h[3] for h in ev["holding"]] == [8, 7, 9, 10]
    assert ev["waiting"] == ((("g0", 10),), (("g1", 9),), (("g1", 7),), (("g0", 8),), ())
    assert [row["own"] for row in result.per_task] == [18, 17, 17, 18, 4]
    assert ev["response_times"] == (22, 21, 25, 23, 17)
    assert SUSPEND.status(SegmentedBatch.from_tasksets([WORKED]), 2).tolist() == [1]
    for run in (dict(arrivals="periodic", execution="wcet"), dict(arrivals="sporadic", execution="random", seed=3)):
        trace = simulate_segmented(WORKED, 2, protocol="fmlp+", mode="suspend", horizon=600, **run)
        assert trace.schedulable_so_far
        assert all(r <= b for r, b in zip(trace.response_times, ev["response_times"], strict=True) if r is not None)


def test_fifo_against_priority_order():
    """Three tasks on three cores share one GPU (G_e 3, 3, 4; each has C = 1 after its segment).

    FMLP+: each waits for one request of each other task, W = 7, 7, 6 and R = 11, 11, 11.
    MPCP: τ0 waits for one lower-priority holding (4, R = 8); τ1 for 4 plus ⌈(W + 8)/12⌉·3 (W = 10,
    R = 14); τ2 for ⌈(W + 8)/12⌉·3 + ⌈(W + 14)/40⌉·3 (W = 9, R = 14). Priority order favours τ0, FIFO
    the others. The simulator stays within both.
    """
    ts = SegmentedTaskSet(
        [
            SegmentedTask((0, 1), (GPUSegment(0, 3),), 12, core=0),
            SegmentedTask((0, 1), (GPUSegment(0, 3),), 40, 20, core=1),
            SegmentedTask((0, 1), (GPUSegment(0, 4),), 40, core=2),
        ]
    )
    fifo = SUSPEND.explain(ts, 3).evidence
    assert fifo["waiting"] == ((("gpu", 7),), (("gpu", 7),), (("gpu", 6),))
    assert fifo["response_times"] == (11, 11, 11)
    prio = MPCP["suspend"].explain(ts, 3).evidence
    assert prio["waiting"] == ((("gpu", 4),), (("gpu", 10),), (("gpu", 9),))
    assert prio["response_times"] == (8, 14, 14)
    for protocol, bounds in (("fmlp+", fifo["response_times"]), ("mpcp", prio["response_times"])):
        for run in (dict(arrivals="periodic"), dict(releases=[[2, 14, 26], [1], [0]])):
            trace = simulate_segmented(ts, 3, protocol=protocol, horizon=40, **run)
            assert all(r is None or r <= b for r, b in zip(trace.response_times, bounds, strict=True)), protocol


def test_earlier_grant_delays_a_holder_on_the_same_core():
    """(H-FMLP): τ1 (g1) granted before τ0 (g0) on the same core runs its boosted copy first."""
    ts = SegmentedTaskSet(
        [
            SegmentedTask((1, 0), (GPUSegment(2, 2, "g0"),), 40, core=0),
            SegmentedTask((0, 0), (GPUSegment(4, 3, "g1"),), 40, core=0),
            SegmentedTask((0, 0), (GPUSegment(0, 9, "g0"),), 40, core=1),
        ]
    )
    holding = SUSPEND.explain(ts, 2).evidence["holding"]
    assert holding[0][3] == 4 + 4  # G + b of τ1's segment on g1
    for releases in ([[0], [0], [0]], [[1], [0], [0]], [[2], [0], [1]]):
        trace = simulate_segmented(ts, 2, protocol="fmlp+", releases=releases, horizon=40)
        R = _bounds(SUSPEND, ts, 2)
        assert all(r is None or b is None or r <= b for r, b in zip(trace.response_times, R, strict=True))


def _sets(m_max=4):
    return st.integers(1, m_max).flatmap(
        lambda m: st.tuples(
            st.just(m),
            st.sampled_from([("gpu",), ("g0", "g1"), ("g0", "g1", "g2")]).flatmap(
                lambda devs: rst.segmented_tasksets(max_size=5, max_utilization=0.6, m=m, max_period=40, devices=devs)
            ),
        )
    )


@settings(max_examples=200, deadline=None)
@given(case=_sets(), mode=st.sampled_from(["busy", "suspend"]))
def test_codes_equal_reference(case, mode):
    m, ts = case
    entry = ENTRIES[mode]
    expected = entry.reference(ts, m)
    assert entry.status(SegmentedBatch.from_tasksets([ts]), m).tolist() == [int(expected)]
    assert entry.explain(ts, m).verdict == expected


def test_codes_over_one_batch_equal_reference():
    import numpy as np

    rng = np.random.default_rng(7)
    sets = []
    for _ in range(60):
        m = int(rng.integers(1, 4))
        tasks = []
        for _ in range(int(rng.integers(1, 6))):
            T = int(rng.integers(10, 50))
            eta = int(rng.integers(0, 3))
            gpu = tuple(
                (int(rng.integers(0, 3)), int(rng.integers(1, 5)), f"g{int(rng.integers(0, 2))}") for _ in range(eta)
            )
            cpu = tuple(int(rng.integers(0, 4)) for _ in range(eta + 1))
            work = sum(cpu) + sum(a + b for a, b, _ in gpu)
            if work == 0:
                cpu = (1, *cpu[1:])
                work = 1
            tasks.append(
                SegmentedTask(cpu, gpu, T, min(T, max(work, T - int(rng.integers(0, 5)))), core=int(rng.integers(0, m)))
            )
        sets.append((SegmentedTaskSet(tasks), m))
    for mode, entry in ENTRIES.items():
        for m in (1, 2, 3):
            chosen = [ts for ts, mm in sets if mm <= m]
            got = entry.status(SegmentedBatch.from_tasksets(chosen), m).tolist()
            assert got == [int(entry.reference(ts, m)) for ts in chosen], mode


def _contended_sets():
    """Two to five tasks on 1..4 cores, per-core load at most 0.3: about a fifth accepted with a shared device."""
    return st.integers(1, 4).flatmap(
        lambda m: st.tuples(
            st.just(m),
            st.sampled_from([("gpu",), ("g0", "g1")]).flatmap(
                lambda devs: rst.segmented_tasksets(
                    min_size=2, max_size=5, max_utilization=0.3, m=m, max_period=60, devices=devs
                )
            ),
        )
    )


def _shared(ts):
    return any(sum(1 for t in ts if d in t.devices()) >= 2 for d in ts.devices)


def _soundness(mode, examples, at_least):
    """Accepted sets never miss and never exceed a bound under FMLP+ (periodic/WCET, sporadic/random, seeds)."""
    entry = ENTRIES[mode]
    reach = {"accepted": 0, "shared": 0}

    @settings(max_examples=examples, deadline=None, derandomize=True)
    @given(case=_contended_sets(), seed=st.integers(0, 2**16))
    def prop(case, seed):
        m, ts = case
        if entry.reference(ts, m) is not True:
            return
        reach["accepted"] += 1
        reach["shared"] += _shared(ts)
        bounds = _bounds(entry, ts, m)
        horizon = 6 * max(t.T for t in ts)
        for run in (
            dict(arrivals="periodic", execution="wcet"),
            dict(arrivals="sporadic", execution="random", seed=seed),
            dict(arrivals="sporadic", execution="random", seed=seed + 1),
            dict(arrivals="periodic", execution="random", seed=seed + 2),
        ):
            trace = simulate_segmented(ts, m, protocol="fmlp+", mode=mode, horizon=horizon, **run)
            assert trace.schedulable_so_far, (ts, m, run, trace.misses[:1])
            for r, b in zip(trace.response_times, bounds, strict=True):
                assert r is None or r <= b, (ts, m, run, trace.response_times, bounds)

    prop()
    assert reach["shared"] >= at_least, reach  # accepted sets where two tasks share a device


@pytest.mark.parametrize("mode", ["busy", "suspend"])
def test_accepted_sets_meet_every_deadline_in_simulation(mode):
    _soundness(mode, 120, 15)


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["busy", "suspend"])
def test_accepted_sets_meet_every_deadline_in_simulation_long(mode):
    """Ten times RTSCHED_PROPERTY_EXAMPLES (default 150) draws per mode (pyproject's rule for slow variants)."""
    n = 10 * int(os.environ.get("RTSCHED_PROPERTY_EXAMPLES", "150"))
    _soundness(mode, n, n // 10)


@settings(max_examples=100, deadline=None)
@given(case=_sets(), mode=st.sampled_from(["busy", "suspend"]))
def test_a_task_keeps_its_own_mode(case, mode):
    """Every task naming ``mode`` makes the default irrelevant: -busy and -suspend agree on ts.with_mode(mode)."""
    m, ts = case
    ts = ts.with_mode(mode)
    assert BUSY.reference(ts, m) == SUSPEND.reference(ts, m)
    assert _bounds(BUSY, ts, m) == _bounds(SUSPEND, ts, m)


@settings(max_examples=150, deadline=None)
@given(case=_sets(), mode=st.sampled_from(["busy", "suspend"]))
def test_one_task_per_device_fmlp_equals_mpcp(case, mode):
    """When no two tasks share a device nobody waits ((W) = 0 under both) and the holding times are used
    nowhere, so (OWN), (RJ), (RQ) and every bound coincide (proved in the note)."""
    m, ts = case
    ts = SegmentedTaskSet(
        [t.replace(gpu=tuple(GPUSegment(g.G_m, g.G_e, f"own{i}") for g in t.gpu)) for i, t in enumerate(ts)]
    )
    assert ENTRIES[mode].reference(ts, m) == MPCP[mode].reference(ts, m)
    assert _bounds(ENTRIES[mode], ts, m) == _bounds(MPCP[mode], ts, m)


@settings(max_examples=100, deadline=None)
@given(
    case=st.integers(1, 3).flatmap(
        lambda m: st.tuples(st.just(m), rst.segmented_tasksets(max_size=6, m=m, max_period=40, max_gpu_segments=0))
    ),
    mode=st.sampled_from(["busy", "suspend"]),
)
def test_without_gpu_segments_it_is_uniprocessor_rta_per_core(case, mode):
    """No GPU segment: uni-rta's verdicts and response times per core (through the registry)."""
    m, ts = case
    uni = registry.get("uni-rta")
    ok = True
    expected = [None] * ts.n
    for core in range(m):
        on = ts.on_core(core)
        if not on:
            continue
        result = uni.explain(TaskSet.from_tasks([(ts[i].C, ts[i].D, ts[i].T) for i in on]), 1)
        ok = ok and result.verdict is True
        for i, row in zip(on, result.per_task, strict=True):
            expected[i] = row["response_time"] if isinstance(row["response_time"], int) else None
    entry = ENTRIES[mode]
    assert entry.reference(ts, m) == ok
    if ok:
        assert list(_bounds(entry, ts, m)) == expected
