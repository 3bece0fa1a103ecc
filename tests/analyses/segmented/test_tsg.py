"""seg-tsg-busy / seg-tsg-suspend: the default driver's TSG round robin (papers/wang2024-gcaps.md).

Worked example by hand (the note's), the schedule that refutes the paper's interleaving bound
(Eq. (3) with Lemma 1: the segment's own context switches are not counted) and reaches (DEV-R),
kernel == reference over time slices and ε, soundness against
rtsched.segmented.sim.simulate_segmented(protocol="tsg-rr") with a reach count, ε monotone.
"""

import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rtsched.testing.strategies as rst
from rtsched import registry
from rtsched.analyses.segmented import tsg
from rtsched.errors import InputError
from rtsched.segmented.model import GPUSegment, SegmentedBatch, SegmentedTask, SegmentedTaskSet
from rtsched.segmented.sim import simulate_segmented

BUSY = registry.get("seg-tsg-busy")
SUSPEND = registry.get("seg-tsg-suspend")

#: The note's worked example (the same set as test_gcaps.WORKED): L = 2, ε = 1.
WORKED = SegmentedTaskSet(
    [
        SegmentedTask((1, 1), ((2, 4),), 30, core=0),
        SegmentedTask((2, 1), ((2, 3),), 40, core=1),
        SegmentedTask((1, 2), ((2, 5),), 50, core=0),
        SegmentedTask((4,), (), 60, core=1),
    ]
)


def _status(ts, m, mode="suspend", **kw):
    return int(tsg.codes(SegmentedBatch.from_tasksets([ts]), m, mode=mode, **kw)[0])


@pytest.mark.parametrize(
    ("mode", "R", "verdict"),
    [
        pytest.param("suspend", (22, 22, 39, 9), True, id="suspend"),
        pytest.param("busy", (22, 22, None, 26), False, id="busy"),
    ],
)
def test_worked_example_by_hand(mode, R, verdict):
    """(DEV-R) with L = 2, ε = 1: 18, 17, 26; own 22, 22, 31, 4; suspend R = 22, 22, 39, 9; busy: τ2 fails (53 > 50), τ3 = 26."""
    result = tsg.explain(WORKED, 2, mode=mode, time_slice=2, epsilon=1)
    ev = result.evidence
    assert ev["device_bounds"] == ((18,), (17,), (26,), ())
    assert ev["own"] == (22, 22, 31, 4)
    assert ev["response_times"] == R
    assert result.verdict is verdict
    assert _status(WORKED, 2, mode, time_slice=2, epsilon=1) == int(verdict)
    if verdict:
        for run in (dict(arrivals="periodic", execution="wcet"), dict(arrivals="sporadic", execution="random", seed=5)):
            trace = simulate_segmented(
                WORKED, 2, protocol="tsg-rr", mode=mode, time_slice=2, epsilon=1, horizon=1200, **run
            )
            assert trace.schedulable_so_far
            assert all(r is None or r <= b for r, b in zip(trace.response_times, R, strict=True))
    else:
        assert result.evidence["failing_term"] == "τ2: (R-P) reaches 53 > D = 50"


def test_busy_fails_in_simulation_too_where_the_bound_fails():
    """Not a proof obligation, a sanity check: the busy worked set's τ2 does need more than its own work."""
    trace = simulate_segmented(WORKED, 2, protocol="tsg-rr", mode="busy", time_slice=2, epsilon=1, horizon=1200)
    assert trace.response_times[2] > 22


def _paper_eq3_bound(ts, i, L, theta):
    """The paper's bound for a task without CPU work or same-core tasks (our reading of Lemma 1, Eq. (3), (5)):
    R_i = C_i + G_i + Σ_j (L + θ)·ν·⌈G^e_{i,j}/L⌉, ν = the other GPU-using tasks."""
    t = ts[i]
    nu = sum(1 for k, u in enumerate(ts) if k != i and u.gpu)
    return t.C + t.G + sum((L + theta) * nu * -(-g.G_e // L) for g in t.gpu)


def test_paper_interleaving_bound_is_refuted_by_the_simulator():
    """Eq. (3) counts ν slices of length L + θ per round but not the part's own switch back (θ per round).

    τ0 (G^e 10) and τ1 (G^e 2), own cores, released together, L = 1, θ = ε = 1: the device runs
    ctx τ0 | τ0 | ctx τ1 | τ1 | ctx τ0 | τ0 | ctx τ1 | τ1: τ1 completes at 8. The paper's bound is
    2 + (1 + 1)·1·⌈2/1⌉ = 6 < 8; (DEV-R) is 2 + 1 + 1 + 2·(1 + 1) = 8, reached.
    """
    ts = SegmentedTaskSet(
        [
            SegmentedTask((0, 0), (GPUSegment(0, 10),), 40, core=1),
            SegmentedTask((0, 0), (GPUSegment(0, 2),), 20, core=0),
        ]
    )
    trace = simulate_segmented(ts, 2, protocol="tsg-rr", time_slice=1, epsilon=1, horizon=20, record=True)
    assert trace.response_times[1] == 8
    assert [(iv.task, iv.what) for iv in trace.intervals if iv.end <= 8] == [
        (0, "ctx"),
        (0, "G_e"),
        (1, "ctx"),
        (1, "G_e"),
    ] * 2
    assert _paper_eq3_bound(ts, 1, 1, 1) == 6 < trace.response_times[1]
    result = tsg.explain(ts, 2, time_slice=1, epsilon=1)
    assert result.evidence["device_bounds"][1] == (8,)
    # with a deadline of 7 the paper's test would accept τ1 (6 ≤ 7) and the simulator shows the miss
    tight = SegmentedTaskSet([ts[0], ts[1].replace(D=7)])
    miss = simulate_segmented(tight, 2, protocol="tsg-rr", time_slice=1, epsilon=1, horizon=20)
    assert _paper_eq3_bound(tight, 1, 1, 1) <= 7 and not miss.schedulable_so_far
    assert miss.misses[0].task == 1
    assert tsg.reference(tight, 2, time_slice=1, epsilon=1) is False


def test_each_other_task_gets_one_slice_per_round():
    """Three other tasks with long parts: the part under analysis waits one slice of each per round.

    τ3 (G^e 3, L = 2, ε = 0) released last among equals: rounds 2, per round 3 slices of 2: B = 3 + 2·6 = 15.
    """
    others = [SegmentedTask((0, 0), (GPUSegment(0, 20),), 100, core=k) for k in range(3)]
    ts = SegmentedTaskSet([*others, SegmentedTask((0, 0), (GPUSegment(0, 3),), 100, core=3)])
    result = tsg.explain(ts, 4, time_slice=2)
    assert result.evidence["device_bounds"][3] == (15,)
    trace = simulate_segmented(ts, 4, protocol="tsg-rr", time_slice=2, horizon=100)
    assert trace.response_times[3] == 15


def test_time_slice_is_required_and_checked():
    with pytest.raises(InputError, match="time_slice"):
        tsg.reference(WORKED, 2, time_slice=0)
    with pytest.raises(InputError, match="epsilon"):
        tsg.codes(SegmentedBatch.from_tasksets([WORKED]), 2, epsilon=-2)
    assert tsg.DEFAULT_TIME_SLICE == 10
    assert SUSPEND.reference(WORKED, 2) == tsg.reference(WORKED, 2, time_slice=10, epsilon=0)


def _sets():
    return rst.segmented_cases(max_size=5, max_utilization=0.6, max_period=40)


@settings(max_examples=200, deadline=None)
@given(case=_sets(), mode=st.sampled_from(["busy", "suspend"]), eps=st.integers(0, 3), L=st.integers(1, 12))
def test_codes_equal_reference(case, mode, eps, L):
    m, ts = case
    expected = tsg.reference(ts, m, mode=mode, time_slice=L, epsilon=eps)
    assert _status(ts, m, mode, time_slice=L, epsilon=eps) == int(expected)
    assert tsg.explain(ts, m, mode=mode, time_slice=L, epsilon=eps).verdict == expected


def test_codes_over_one_batch_equal_reference():
    rng = np.random.default_rng(13)
    sets = []
    for _ in range(60):
        tasks = []
        for _ in range(int(rng.integers(1, 6))):
            T = int(rng.integers(20, 80))
            eta = int(rng.integers(0, 3))
            gpu = tuple((int(rng.integers(0, 3)), int(rng.integers(0, 6)), "gpu") for _ in range(eta))
            cpu = tuple(int(rng.integers(0, 4)) for _ in range(eta + 1))
            gpu = tuple((a, b if a + b else 1, d) for a, b, d in gpu)
            if sum(cpu) + sum(a + b for a, b, _ in gpu) == 0:
                cpu = (1, *cpu[1:])
            tasks.append(SegmentedTask(cpu, gpu, T, core=int(rng.integers(0, 3))))
        sets.append(SegmentedTaskSet(tasks))
    batch = SegmentedBatch.from_tasksets(sets)
    for mode in ("busy", "suspend"):
        for L, eps in ((1, 0), (3, 1), (10, 0)):
            got = tsg.codes(batch, 3, mode=mode, time_slice=L, epsilon=eps).tolist()
            assert got == [int(tsg.reference(ts, 3, mode=mode, time_slice=L, epsilon=eps)) for ts in sets]


def _contended_sets():
    return rst.segmented_cases(min_size=2, max_size=5, max_utilization=0.35, max_period=60)


def _shared(ts):
    return any(sum(1 for t in ts if d in t.devices()) >= 2 for d in ts.devices)


def _soundness(mode, examples, at_least):
    """Accepted sets never miss and never exceed a bound under TSG round robin (L 1..6, ε 0..2)."""
    reach = {"accepted": 0, "shared": 0}

    @settings(max_examples=examples, deadline=None, derandomize=True)
    @given(case=_contended_sets(), seed=st.integers(0, 2**16), eps=st.integers(0, 2), L=st.integers(1, 6))
    def prop(case, seed, eps, L):
        m, ts = case
        result = tsg.explain(ts, m, mode=mode, time_slice=L, epsilon=eps)
        if result.verdict is not True:
            return
        reach["accepted"] += 1
        reach["shared"] += _shared(ts)
        bounds = result.evidence["response_times"]
        horizon = 6 * max(t.T for t in ts)
        for run in (
            dict(arrivals="periodic", execution="wcet"),
            dict(arrivals="sporadic", execution="random", seed=seed),
            dict(arrivals="sporadic", execution="wcet", seed=seed + 1),
            dict(arrivals="periodic", execution="random", seed=seed + 2),
        ):
            trace = simulate_segmented(
                ts, m, protocol="tsg-rr", mode=mode, time_slice=L, epsilon=eps, horizon=horizon, **run
            )
            assert trace.schedulable_so_far, (ts, m, L, eps, run, trace.misses[:1])
            for r, b in zip(trace.response_times, bounds, strict=True):
                assert r is None or r <= b, (ts, m, L, eps, run, trace.response_times, bounds)

    prop()
    assert reach["shared"] >= at_least, reach


@pytest.mark.parametrize("mode", ["busy", "suspend"])
def test_accepted_sets_meet_every_deadline_in_simulation(mode):
    _soundness(mode, 120, 12)


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["busy", "suspend"])
def test_accepted_sets_meet_every_deadline_in_simulation_long(mode):
    n = int(os.environ.get("RTSCHED_PROPERTY_EXAMPLES", "150"))
    _soundness(mode, n, n // 10)


@settings(max_examples=100, deadline=None)
@given(case=_sets(), mode=st.sampled_from(["busy", "suspend"]), eps=st.integers(0, 3), L=st.integers(1, 8))
def test_larger_epsilon_never_turns_a_reject_into_an_accept(case, mode, eps, L):
    m, ts = case
    if tsg.reference(ts, m, mode=mode, time_slice=L, epsilon=eps + 1):
        assert tsg.reference(ts, m, mode=mode, time_slice=L, epsilon=eps)
