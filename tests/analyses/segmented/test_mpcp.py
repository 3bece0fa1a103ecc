"""seg-mpcp-busy / seg-mpcp-suspend: MPCP for GPU access (papers/patel2018-mpcp-gpu.md).

Worked example by hand (the note's), adversarial schedules built by hand (remote blocking by a
lower-priority holder, boosting on the same core, the zero-length chain that refutes the classic
"one boosted section per ready interval" count), kernel == reference, soundness against
rtsched.segmented.sim.simulate_segmented(protocol="mpcp") with a reach count, and the proved
relations (no GPU: uniprocessor FP RTA per core through the registry's uni-rta; a task's own mode
beats the default).
"""

import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rtsched.testing.strategies as rst
from rtsched import registry
from rtsched.errors import TaskError
from rtsched.segmented.model import GPUSegment, SegmentedBatch, SegmentedTask, SegmentedTaskSet
from rtsched.segmented.sim import simulate_segmented

BUSY = registry.get("seg-mpcp-busy")
SUSPEND = registry.get("seg-mpcp-suspend")
ENTRIES = {"busy": BUSY, "suspend": SUSPEND}

#: The note's worked example: two cores, two devices, one CPU-only task (task order = priority).
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
    """The note's hand computation: (H-MPCP) 6, 5, 11, 12; (W-MPCP) 12, 11, 5, 6; R = 24, 23, 23, 21, 17."""
    result = SUSPEND.explain(WORKED, 2)
    ev = result.evidence
    assert result.verdict is True
    assert [h[3] for h in ev["holding"]] == [6, 5, 11, 12]
    assert ev["waiting"] == ((("g0", 12),), (("g1", 11),), (("g1", 5),), (("g0", 6),), ())
    assert ev["response_times"] == (24, 23, 23, 21, 17)
    assert [row["own"] for row in result.per_task] == [20, 19, 15, 16, 4]
    assert [row["E"] for row in result.per_task] == [4, 5, 5, 4, 4]
    assert SUSPEND.status(SegmentedBatch.from_tasksets([WORKED]), 2).tolist() == [1]
    # the worked set never does worse in simulation than its bounds
    for run in (dict(arrivals="periodic", execution="wcet"), dict(arrivals="sporadic", execution="random", seed=3)):
        trace = simulate_segmented(WORKED, 2, protocol="mpcp", mode="suspend", horizon=600, **run)
        assert trace.schedulable_so_far
        assert all(r <= b for r, b in zip(trace.response_times, ev["response_times"], strict=True) if r is not None)


def test_worked_example_busy_spins_and_fails_where_it_must():
    """Busy: τ2 spins boosted through its G_e (b = 7) on τ0's core, τ3 holds g0 for (H-MPCP) 18: τ0's own
    work is 2 + 6 + 18 = 26, and (RJ) from C + G = 8 gives 8 + 18 + ⌈(8 + 43)/50⌉·7 = 40 > 30 (the note's
    busy paragraph): τ2's boosted sections alone push τ0 past its deadline."""
    result = BUSY.explain(WORKED, 2)
    assert result.verdict is False
    assert [h[3] for h in result.evidence["holding"]] == [6, 5, 19, 18]
    assert result.per_task[0]["own"] == 26
    assert result.evidence["failing_term"] == "τ0: (R) response time ≥ 40 > D = 30"
    assert result.per_task[0]["R_jitter"] == "> 30"
    assert BUSY.status(SegmentedBatch.from_tasksets([WORKED]), 2).tolist() == [0]


def test_lower_priority_holder_on_another_core_blocks_a_request():
    """τ1 (core 1, lower priority) holds the GPU for 10 when τ0 asks at t = 1: τ0 waits 9, completes at 13."""
    ts = SegmentedTaskSet(
        [
            SegmentedTask((0, 1), (GPUSegment(0, 2),), 20, core=0),
            SegmentedTask((0, 0), (GPUSegment(0, 10),), 40, core=1),
        ]
    )
    R = _bounds(SUSPEND, ts, 2)
    assert R[0] == 13  # own = C + G + W = 1 + 2 + 10
    trace = simulate_segmented(ts, 2, protocol="mpcp", releases=[[1, 21], [0]], horizon=41)
    assert trace.response_times[0] == 12
    assert trace.response_times[0] <= R[0]


def test_boosted_lower_priority_task_preempts_on_the_same_core():
    """τ1's copy-in and copy-out run boosted over τ0 (released at 1): τ0 completes at 9, response 8."""
    ts = SegmentedTaskSet(
        [
            SegmentedTask((5,), (), 20, core=0),
            SegmentedTask((0, 0), (GPUSegment(4, 1),), 40, core=0),
        ]
    )
    trace = simulate_segmented(ts, 1, protocol="mpcp", releases=[[1, 21], [0]], horizon=41)
    assert trace.response_times[0] == 8
    R = _bounds(SUSPEND, ts, 1)
    assert R[0] is not None and R[0] >= 8


def test_a_holders_copy_waits_for_a_boosted_holder_of_another_device_on_its_core():
    """τ2 (core 0) holds g0 from 0; τ0 (core 0, higher priority) is granted g1 at 1 and its boosted copy-in
    (5) runs before τ2's copy-out: g0 is released at 7, not 3, and τ1 (core 1), asking for g0 at 1, completes
    at 9 (response 8). A holding time of G = 3 would bound τ1 by 2 + 3 = 5: (H-MPCP) adds the delay (23)."""
    ts = SegmentedTaskSet(
        [
            SegmentedTask((0, 0), ((10, 1, "g1"),), 100, core=0),
            SegmentedTask((0, 0), ((0, 2, "g0"),), 100, core=1),
            SegmentedTask((0, 0), ((2, 1, "g0"),), 100, core=0),
        ]
    )
    trace = simulate_segmented(ts, 2, protocol="mpcp", releases=[[1], [1], [0]], horizon=100)
    assert trace.response_times[1] == 8 > 2 + ts[2].G
    result = SUSPEND.explain(ts, 2)
    assert result.evidence["holding"][2][3] == 23
    assert result.evidence["response_times"][1] >= 8


@pytest.mark.parametrize("protocol", ["mpcp", "fmlp+"])
def test_zero_length_chain_refutes_one_boosted_section_per_ready_interval(protocol):
    """A lower-priority task whose copy-out and next CPU segment take 0 goes from one grant to the next
    without being scheduled: three boosted sections while τ0 stays ready (the classic count allows one).

    τ0 (C = 6, never suspends: one ready interval) and τ1 (three segments G_m = 1, G_e = 1, CPU
    segments 0), both released at 0 on one core: τ1 is granted at 0, 2, 4 and each copy-in
    preempts τ0, which completes at 9 (6 + 3), not 7 (6 + one section). The analyses count
    boosted sections per window (papers/patel2018-mpcp-gpu.md) and bound it.
    """
    ts = SegmentedTaskSet(
        [
            SegmentedTask((6,), (), 30, core=0),
            SegmentedTask((0, 0, 0, 0), ((1, 1, "g0"), (1, 1, "g0"), (1, 1, "g0")), 30, core=0),
        ]
    )
    trace = simulate_segmented(ts, 1, protocol=protocol, mode="suspend", horizon=30, record=True)
    boosted = [iv for iv in trace.intervals if iv.task == 1 and iv.what == "G_m" and iv.start < 9]
    assert len(boosted) == 3
    assert trace.response_times[0] == 9 > 6 + 1  # the per-ready-interval count would give 7
    entry = registry.get(f"seg-{'mpcp' if protocol == 'mpcp' else 'fmlp'}-suspend")
    assert _bounds(entry, ts, 1)[0] >= 9


@pytest.mark.parametrize("protocol", ["mpcp", "fmlp+"])
def test_job_driven_waiting_counts_a_rare_request_once(protocol):
    """τ1 (three requests, T 40) and τ0 (one request of 4, T 100) share the GPU on two cores.

    Per request each of τ1's requests may wait for τ0's 4: ΣW = 12, R1 = 10 + 12 = 22. Per job only one
    τ0 request falls in τ1's window ((WJ): ⌈(R + 7)/100⌉·4 = 4 under MPCP, min(3, ⌈(R + 7)/100⌉)·4 = 4 under
    FMLP+): R1 = 10 + 4 = 14. τ0: own 1 + 4 + 2 (one holding of τ1) = 7.
    """
    ts = SegmentedTaskSet(
        [
            SegmentedTask((0, 1), ((0, 4),), 100, core=0),
            SegmentedTask((1, 1, 1, 1), ((0, 2), (0, 2), (0, 2)), 40, core=1),
        ]
    )
    entry = registry.get(f"seg-{'mpcp' if protocol == 'mpcp' else 'fmlp'}-suspend")
    result = entry.explain(ts, 2)
    assert result.evidence["response_times"] == (7, 14)
    assert result.per_task[1]["ΣW"] == 12 and result.per_task[1]["W_job(R)"] == 4
    for run in (dict(arrivals="periodic"), dict(releases=[[3, 103], [0, 40, 80]])):
        trace = simulate_segmented(ts, 2, protocol=protocol, horizon=120, **run)
        assert all(r is None or r <= b for r, b in zip(trace.response_times, (7, 14), strict=True))


def test_task_without_a_core_is_refused():
    ts = SegmentedTaskSet([SegmentedTask((1,), (), 10)])
    with pytest.raises(TaskError, match="core"):
        SUSPEND.reference(ts, 1)
    with pytest.raises(TaskError, match="core"):
        BUSY.explain(SegmentedTaskSet([SegmentedTask((1,), (), 10, core=3)]), 2)


def test_failing_term_names_the_task_and_the_equation():
    ts = SegmentedTaskSet(
        [
            SegmentedTask((0, 1), (GPUSegment(0, 5),), 10, core=0),
            SegmentedTask((0, 0), (GPUSegment(0, 8),), 40, core=1),
        ]
    )
    result = SUSPEND.explain(ts, 2)
    assert result.verdict is False
    assert result.evidence["failing_task"] == 0
    assert result.evidence["failing_term"] == "τ0: (R) response time ≥ 14 > D = 10"
    assert result.per_task[0]["ΣW"] == 8 and result.per_task[0]["own"] == 14
    assert SUSPEND.status(SegmentedBatch.from_tasksets([ts]), 2).tolist() == [0]


def test_holding_time_above_every_deadline_fails_the_waiting_tasks():
    """(H-MPCP) of τ2 (G = 30 on g0, τ0's boosted copies of 8 every 10 on its core) climbs past max D = 100:
    τ1, which may wait for it, fails; the kernel agrees."""
    ts = SegmentedTaskSet(
        [
            SegmentedTask((1, 0), ((8, 1, "g1"),), 10, core=0),
            SegmentedTask((1, 1), ((0, 2, "g0"),), 100, core=1),
            SegmentedTask((0, 0), ((0, 30, "g0"),), 100, core=0),
        ]
    )
    result = SUSPEND.explain(ts, 2)
    assert result.evidence["holding"][2][3] is None
    assert result.evidence["failing_task"] == 1
    assert "above max D" in result.evidence["failing_term"]
    assert SUSPEND.status(SegmentedBatch.from_tasksets([ts]), 2).tolist() == [0]


def test_work_above_the_deadline_fails_at_once():
    ts = SegmentedTaskSet([SegmentedTask((5, 0), ((3, 4),), 10, core=0)])
    result = BUSY.explain(ts, 1)
    assert result.verdict is False
    assert result.evidence["failing_term"] == "τ0: C + G = 12 > D = 10"
    assert BUSY.status(SegmentedBatch.from_tasksets([ts]), 1).tolist() == [0]


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
    check_lock_soundness(ENTRIES[mode], "mpcp", mode, 120, 15)


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["busy", "suspend"])
def test_accepted_sets_meet_every_deadline_in_simulation_long(mode, check_lock_soundness):
    """Ten times RTSCHED_PROPERTY_EXAMPLES (default 150) draws per mode (pyproject's rule for slow variants)."""
    n = 10 * int(os.environ.get("RTSCHED_PROPERTY_EXAMPLES", "150"))
    check_lock_soundness(ENTRIES[mode], "mpcp", mode, n, n // 10)


@settings(max_examples=100, deadline=None)
@given(case=_sets(), mode=st.sampled_from(["busy", "suspend"]))
def test_a_task_keeps_its_own_mode(case, mode):
    """Every task naming ``mode`` makes the default irrelevant: -busy and -suspend agree on ts.with_mode(mode)."""
    m, ts = case
    ts = ts.with_mode(mode)
    assert BUSY.reference(ts, m) == SUSPEND.reference(ts, m)
    assert _bounds(BUSY, ts, m) == _bounds(SUSPEND, ts, m)


def test_without_gpu_segments_it_is_uniprocessor_rta_per_core(check_cpu_only_is_uni_rta):
    """No GPU segment: no waiting, no boosting, (RQ) is the response-time equation per core: uni-rta's verdicts and R."""
    check_cpu_only_is_uni_rta(ENTRIES)
