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


def _sets():
    return rst.segmented_cases(
        devices=(("gpu",), ("g0", "g1"), ("g0", "g1", "g2")), max_size=5, max_utilization=0.6, max_period=40
    )


@settings(max_examples=200, deadline=None)
@given(case=_sets(), mode=st.sampled_from(["busy", "suspend"]))
def test_codes_equal_reference(case, mode):
    m, ts = case
    entry = ENTRIES[mode]
    expected = entry.reference(ts, m)
    assert entry.status(SegmentedBatch.from_tasksets([ts]), m).tolist() == [int(expected)]
    assert entry.explain(ts, m).verdict == expected


def test_codes_over_one_batch_equal_reference(check_batch_equals_reference):
    check_batch_equals_reference(ENTRIES)


@pytest.mark.parametrize("mode", ["busy", "suspend"])
def test_accepted_sets_meet_every_deadline_in_simulation(mode, check_lock_soundness):
    check_lock_soundness(ENTRIES[mode], "fmlp+", mode, 120, 15)


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["busy", "suspend"])
def test_accepted_sets_meet_every_deadline_in_simulation_long(mode, check_lock_soundness):
    """Ten times RTSCHED_PROPERTY_EXAMPLES (default 150) draws per mode (pyproject's rule for slow variants)."""
    n = 10 * int(os.environ.get("RTSCHED_PROPERTY_EXAMPLES", "150"))
    check_lock_soundness(ENTRIES[mode], "fmlp+", mode, n, n // 10)


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


def test_without_gpu_segments_it_is_uniprocessor_rta_per_core(check_cpu_only_is_uni_rta):
    """No GPU segment: uni-rta's verdicts and response times per core (through the registry)."""
    check_cpu_only_is_uni_rta(ENTRIES)
