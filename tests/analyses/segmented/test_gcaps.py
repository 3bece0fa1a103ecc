"""seg-gcaps-busy / seg-gcaps-suspend: GCAPS preemptive priority-based GPU scheduling (papers/wang2024-gcaps.md).

Worked example by hand (the note's), hand-built schedules (a preemption costing two switches,
exactly the bound; an abandoned switch; GPU priorities other than the task order), kernel ==
reference (with ε and GPU priorities), soundness against
rtsched.segmented.sim.simulate_segmented(protocol="gcaps") with a reach count, and the proved
relations (no GPU: uniprocessor RTA per core; one GPU task per device: B = G^e + ε, the same as
TSG round robin; ε monotone; a task keeps its own mode).
"""

import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rtsched.testing.strategies as rst
from rtsched import registry
from rtsched.analyses.segmented import _preemptive, gcaps
from rtsched.errors import InputError, TaskError
from rtsched.segmented.model import GPUSegment, SegmentedBatch, SegmentedTask, SegmentedTaskSet
from rtsched.segmented.sim import simulate_segmented

BUSY = registry.get("seg-gcaps-busy")
SUSPEND = registry.get("seg-gcaps-suspend")
ENTRIES = {"busy": BUSY, "suspend": SUSPEND}

#: The note's worked example: two cores, one device, ε = 1 (task order = priority = GPU priority).
WORKED = SegmentedTaskSet(
    [
        SegmentedTask((1, 1), ((2, 4),), 30, core=0),
        SegmentedTask((2, 1), ((2, 3),), 40, core=1),
        SegmentedTask((1, 2), ((2, 5),), 50, core=0),
        SegmentedTask((4,), (), 60, core=1),
    ]
)


def _bounds(ts, m, mode="suspend", **kw):
    return gcaps.explain(ts, m, mode=mode, **kw).evidence["response_times"]


def _status(ts, m, mode="suspend", **kw):
    if "gpu_priorities" in kw and kw["gpu_priorities"] is not None:
        kw = dict(kw, gpu_priorities=np.asarray(kw["gpu_priorities"]))
    return int(gcaps.codes(SegmentedBatch.from_tasksets([ts]), m, mode=mode, **kw)[0])


@pytest.mark.parametrize(
    ("mode", "device", "own", "R", "window"),
    [
        pytest.param(
            "suspend", ((5,), (10,), (17,), ()), (9, 15, 22, 4), (9, 15, 30, 9), [9, 15, 41, "-"], id="suspend"
        ),
        pytest.param(
            "busy", ((5,), (10,), (17,), ()), (9, 15, 22, 4), (9, 15, 40, 19), [9, 15, "> 50", "-"], id="busy"
        ),
    ],
)
def test_worked_example_by_hand(mode, device, own, R, window):
    """The note's hand computation, ε = 1: (DEV-G) 5, 10, 17; own 9, 15, 22, 4; R = min((R-P), (W-G))."""
    result = gcaps.explain(WORKED, 2, mode=mode, epsilon=1)
    ev = result.evidence
    assert result.verdict is True
    assert [row["R_window"] for row in result.per_task] == window
    assert ev["device_bounds"] == device
    assert ev["own"] == own
    assert ev["response_times"] == R
    assert _status(WORKED, 2, mode, epsilon=1) == 1
    for run in (dict(arrivals="periodic", execution="wcet"), dict(arrivals="sporadic", execution="random", seed=3)):
        trace = simulate_segmented(WORKED, 2, protocol="gcaps", mode=mode, epsilon=1, horizon=1200, **run)
        assert trace.schedulable_so_far
        assert all(r is None or r <= b for r, b in zip(trace.response_times, R, strict=True))


def test_worked_example_registry_entries_use_epsilon_zero():
    """The registered entries are the ε = 0 analysis in the task order."""
    assert SUSPEND.explain(WORKED, 2).evidence["response_times"] == _bounds(WORKED, 2, "suspend", epsilon=0)
    assert SUSPEND.explain(WORKED, 2).evidence["device_bounds"] == ((4,), (7,), (12,), ())


def test_preemption_costs_two_switches_and_the_bound_is_reached():
    """τ1 (G^e 5) runs from 1 after its switch; τ0 (G^e 2) arrives at 2: switch, 2 ticks, switch back.

    τ1 completes at 10: 5 + ε (own first start) + 2 + 2ε (τ0's start and τ1's resumption) with
    ε = 1, which is (DEV-G) exactly.
    """
    ts = SegmentedTaskSet(
        [
            SegmentedTask((0, 0), (GPUSegment(0, 2),), 100, core=0),
            SegmentedTask((0, 0), (GPUSegment(0, 5),), 100, core=1),
        ]
    )
    trace = simulate_segmented(
        ts, 2, protocol="gcaps", epsilon=1, arrivals="explicit", releases=[[2], [0]], horizon=100, record=True
    )
    assert trace.response_times == (3, 10)
    assert sum(iv.end - iv.start for iv in trace.intervals if iv.what == "ctx") == 3
    assert _bounds(ts, 2, epsilon=1) == (3, 10)


def test_an_abandoned_switch_is_within_the_bound():
    """ε = 2: τ0 arrives during τ1's first switch, which is abandoned; τ1 completes at 12 ≤ (DEV-G) 13."""
    ts = SegmentedTaskSet(
        [
            SegmentedTask((0, 0), (GPUSegment(0, 2),), 100, core=0),
            SegmentedTask((0, 0), (GPUSegment(0, 5),), 100, core=1),
        ]
    )
    trace = simulate_segmented(
        ts, 2, protocol="gcaps", epsilon=2, arrivals="explicit", releases=[[1], [0]], horizon=100
    )
    assert trace.response_times == (4, 12)
    assert _bounds(ts, 2, epsilon=2) == (4, 13)


def test_gpu_priorities_reorder_the_device():
    """With τ1 given the higher GPU rank, τ0's part waits for τ1's instead (bounds and simulation agree)."""
    ts = SegmentedTaskSet(
        [
            SegmentedTask((0, 0), (GPUSegment(0, 2),), 100, core=0),
            SegmentedTask((0, 0), (GPUSegment(0, 5),), 100, core=1),
        ]
    )
    # τ0: B = 2 + ⌈(B + 100 − 5)/100⌉·5 = 12 (τ1 comes after τ0 in the task order: R̂_1 = D_1 = 100,
    # so two of its jobs may fall in the window); τ1: B = 5
    assert _bounds(ts, 2, gpu_priorities=(1, 0)) == (12, 5)
    trace = simulate_segmented(
        ts, 2, protocol="gcaps", gpu_priorities=(1, 0), arrivals="explicit", releases=[[1], [0]], horizon=100
    )
    assert trace.response_times == (6, 5)
    assert _status(ts, 2, gpu_priorities=(1, 0)) == 1


def test_bad_options_are_refused():
    with pytest.raises(InputError, match="gpu_priorities"):
        gcaps.reference(WORKED, 2, gpu_priorities=(0, 1, 1, 2))
    with pytest.raises(InputError, match="epsilon"):
        gcaps.reference(WORKED, 2, epsilon=-1)
    with pytest.raises(InputError, match="gpu_priorities"):
        gcaps.codes(SegmentedBatch.from_tasksets([WORKED]), 2, gpu_priorities=np.array([0, 1, 2]))
    with pytest.raises(TaskError, match="core"):
        SUSPEND.reference(SegmentedTaskSet([SegmentedTask((1,), (), 10)]), 1)


def test_failing_term_names_the_task_and_the_equation():
    ts = SegmentedTaskSet(
        [
            SegmentedTask((0, 1), (GPUSegment(0, 6),), 10, core=0),
            SegmentedTask((0, 0), (GPUSegment(0, 8),), 12, core=1),
        ]
    )
    result = SUSPEND.explain(ts, 2)
    assert result.verdict is False
    assert result.evidence["failing_task"] == 1
    assert result.evidence["failing_term"].startswith("τ1: (DEV-G) segment 1 on gpu")
    assert SUSPEND.status(SegmentedBatch.from_tasksets([ts]), 2).tolist() == [0]


def _sets():
    return rst.segmented_cases(max_size=5, max_utilization=0.6, max_period=40)


@settings(max_examples=200, deadline=None)
@given(case=_sets(), mode=st.sampled_from(["busy", "suspend"]), eps=st.integers(0, 3), data=st.data())
def test_codes_equal_reference(case, mode, eps, data):
    m, ts = case
    ranks = data.draw(st.none() | st.permutations(range(ts.n)).map(tuple))
    expected = gcaps.reference(ts, m, mode=mode, epsilon=eps, gpu_priorities=ranks)
    assert _status(ts, m, mode, epsilon=eps, gpu_priorities=ranks) == int(expected)
    assert gcaps.explain(ts, m, mode=mode, epsilon=eps, gpu_priorities=ranks).verdict == expected
    if ranks is None and eps == 0:
        assert ENTRIES[mode].reference(ts, m) == expected


def test_codes_over_one_batch_equal_reference():
    rng = np.random.default_rng(11)
    sets = []
    for _ in range(60):
        tasks = []
        for _ in range(int(rng.integers(1, 6))):
            T = int(rng.integers(10, 60))
            eta = int(rng.integers(0, 3))
            gpu = tuple(
                (int(rng.integers(0, 3)), int(rng.integers(0, 5)) + 1, f"g{int(rng.integers(0, 2))}")
                for _ in range(eta)
            )
            cpu = tuple(int(rng.integers(0, 4)) for _ in range(eta + 1))
            work = sum(cpu) + sum(a + b for a, b, _ in gpu)
            if work == 0:
                cpu = (1, *cpu[1:])
            tasks.append(SegmentedTask(cpu, gpu, T, core=int(rng.integers(0, 2))))
        sets.append(SegmentedTaskSet(tasks))
    batch = SegmentedBatch.from_tasksets(sets)
    for mode in ("busy", "suspend"):
        for eps in (0, 1):
            got = gcaps.codes(batch, 2, mode=mode, epsilon=eps).tolist()
            assert got == [int(gcaps.reference(ts, 2, mode=mode, epsilon=eps)) for ts in sets]
    flat = np.concatenate([np.arange(ts.n)[::-1] for ts in sets])
    got = gcaps.codes(batch, 2, gpu_priorities=flat).tolist()
    assert got == [int(gcaps.reference(ts, 2, gpu_priorities=tuple(range(ts.n))[::-1])) for ts in sets]


def _contended_sets():
    """Two to five tasks on 1..4 cores, per-core load at most 0.35: many accepted with a shared device."""
    return rst.segmented_cases(min_size=2, max_size=5, max_utilization=0.35, max_period=60)


def _shared(ts):
    return any(sum(1 for t in ts if d in t.devices()) >= 2 for d in ts.devices)


def _soundness(mode, examples, at_least):
    """Accepted sets never miss and never exceed a bound under GCAPS (ε 0..2, own GPU priorities or the task order)."""
    reach = {"accepted": 0, "shared": 0}

    @settings(max_examples=examples, deadline=None, derandomize=True)
    @given(case=_contended_sets(), seed=st.integers(0, 2**16), eps=st.integers(0, 2), data=st.data())
    def prop(case, seed, eps, data):
        m, ts = case
        ranks = data.draw(st.none() | st.permutations(range(ts.n)).map(tuple))
        result = gcaps.explain(ts, m, mode=mode, epsilon=eps, gpu_priorities=ranks)
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
                ts, m, protocol="gcaps", mode=mode, epsilon=eps, gpu_priorities=ranks, horizon=horizon, **run
            )
            assert trace.schedulable_so_far, (ts, m, eps, ranks, run, trace.misses[:1])
            for r, b in zip(trace.response_times, bounds, strict=True):
                assert r is None or r <= b, (ts, m, eps, ranks, run, trace.response_times, bounds)

    prop()
    assert reach["shared"] >= at_least, reach  # accepted sets where two tasks share a device


@pytest.mark.parametrize("mode", ["busy", "suspend"])
def test_accepted_sets_meet_every_deadline_in_simulation(mode):
    _soundness(mode, 120, 15)


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["busy", "suspend"])
def test_accepted_sets_meet_every_deadline_in_simulation_long(mode):
    n = int(os.environ.get("RTSCHED_PROPERTY_EXAMPLES", "150"))
    _soundness(mode, n, n // 8)


@settings(max_examples=100, deadline=None)
@given(case=_sets(), mode=st.sampled_from(["busy", "suspend"]))
def test_a_task_keeps_its_own_mode(case, mode):
    m, ts = case
    ts = ts.with_mode(mode)
    assert BUSY.reference(ts, m) == SUSPEND.reference(ts, m)
    assert _bounds(ts, m, "busy") == _bounds(ts, m, "suspend")


@settings(max_examples=100, deadline=None)
@given(case=_sets(), mode=st.sampled_from(["busy", "suspend"]), eps=st.integers(0, 3))
def test_larger_epsilon_never_turns_a_reject_into_an_accept(case, mode, eps):
    """Every term of (DEV-G), (OWN-P), (X-P), (R-P) is non-decreasing in ε (the note): bounds only grow."""
    m, ts = case
    low = _bounds(ts, m, mode, epsilon=eps)
    high = _bounds(ts, m, mode, epsilon=eps + 1)
    if gcaps.reference(ts, m, mode=mode, epsilon=eps + 1):
        assert gcaps.reference(ts, m, mode=mode, epsilon=eps)
        assert all(a <= b for a, b in zip(low, high, strict=True))


def _private_devices(ts):
    """Each GPU task's segments moved to a device of its own."""
    return SegmentedTaskSet(
        [
            t.replace(gpu=tuple(GPUSegment(g.G_m, g.G_e, f"own{i}") for g in t.gpu)) if t.gpu else t
            for i, t in enumerate(ts)
        ]
    )


@settings(max_examples=100, deadline=None)
@given(case=_sets(), mode=st.sampled_from(["busy", "suspend"]), eps=st.integers(0, 3), L=st.integers(1, 6))
def test_one_gpu_task_per_device_gcaps_equals_tsg_rr(case, mode, eps, L):
    """Alone on its device a part waits for nothing: (DEV-G) = (DEV-R) = G^e + ε (0 if G^e = 0), the same R."""
    m, ts = case
    ts = _private_devices(ts)
    g = _preemptive.analyse(ts, m, mode, "gcaps", epsilon=eps, stop=False)
    r = _preemptive.analyse(ts, m, mode, "tsg-rr", epsilon=eps, time_slice=L, stop=False)
    for a, b, t in zip(g.bounds, r.bounds, ts, strict=True):
        if a.computed:
            assert [d.B for d in a.devices] == [
                (x.G_e + eps if x.G_e + eps <= t.D else None) if x.G_e else 0 for x in t.gpu
            ]
            assert [d.B for d in a.devices] == [d.B for d in b.devices]
        assert a.R == b.R
    assert g.verdict == r.verdict


def test_without_gpu_segments_it_is_uniprocessor_rta_per_core(check_cpu_only_is_uni_rta):
    """No GPU segment: own = C, every row X = C, J = 0: uni-rta's verdicts and response times on each core."""
    check_cpu_only_is_uni_rta(ENTRIES)


def _paper_busy_bound_cpu_only(ts, i):
    """Our reading of the paper's busy-mode bound for a CPU-only task τ_i (ε = 0): Eq. (1), (2), (4) with
    Lemma 10 (needs η_i > 0: 0 here), Lemma 11 (other cores only), Lemma 12 (⌈R/T_h⌉·(C_h + G^m_h))."""
    t = ts[i]
    hpp = [h for h in range(i) if ts[h].core == t.core]
    hpo = [h for h in range(i) if ts[h].core != t.core and ts[h].gpu]
    R = t.C
    while True:
        value = t.C + sum(-(-R // ts[h].T) * (ts[h].C + ts[h].G_m) for h in hpp)
        value += sum(-(-(R + R - ts[h].G_e) // ts[h].T) * ts[h].G_e for h in hpo)  # none in the example
        if value == R:
            return R
        R = value


def test_paper_busy_bound_misses_a_same_core_task_spinning_on_its_gpu_part():
    """Eq. (10)-(12): a CPU-only τ_i is charged C_h + G^m_h for a busy same-core τ_h, never its spinning G^e_h.

    τ0 (busy, one GPU part of 4) and τ1 (CPU only, C = 2, D = 4) on one core, released together:
    τ0 spins 0..4, τ1 runs 4..6 and misses. The paper's bound for τ1 is 2 ≤ 4 (accepted); rtsched's
    (X-P) charges a busy τ0 its whole own work 4: R_1 = 6 > 4 (rejected).
    """
    ts = SegmentedTaskSet(
        [
            SegmentedTask((0, 0), (GPUSegment(0, 4),), 20, core=0, mode="busy"),
            SegmentedTask((2,), (), 20, D=4, core=0),
        ]
    )
    assert _paper_busy_bound_cpu_only(ts, 1) == 2 <= ts[1].D
    trace = simulate_segmented(ts, 1, protocol="gcaps", horizon=20)
    assert trace.response_times == (4, 6) and trace.misses[0].task == 1
    result = BUSY.explain(ts, 1)
    assert result.verdict is False
    assert result.evidence["failing_term"] == "τ1: (R-P) reaches 6 > D = 4"


# ---------------------------------------------------------------------------------------------
# GPU-priority assignment (seg-gcaps-*-gpa)
# ---------------------------------------------------------------------------------------------

#: The paper's Table 2 (Example 2, Fig. 5): cores 1, 1, 2, 1 of the paper are 0, 0, 1, 0 here.
TABLE2 = SegmentedTaskSet(
    [
        SegmentedTask((2, 4, 3), ((2, 4), (2, 2)), 80, core=0),
        SegmentedTask((40,), (), 150, core=0),
        SegmentedTask((4, 30), ((5, 80),), 190, core=1),
        SegmentedTask((16, 2), ((2, 10),), 200, core=0),
    ]
)


@pytest.mark.parametrize("mode", [pytest.param("suspend", id="paper-example-2-suspend"), "busy"])
def test_paper_example_2_gpu_priority_assignment(mode):
    """Example 2: with GPU priority = CPU priority the test fails; swapping τ3 and τ4 on the GPU passes.

    rtsched agrees (ε = 0): the task order fails at τ3 (the paper's τ4, R > 200); the search gives
    GPU ranks 0, 1, 3, 2 (the paper's Fig. 5b: τ1 > τ2 > τ4 > τ3) and the bounds 19, 53, 151, 102
    (suspend). The simulator, given those ranks, meets every deadline.
    """
    plain = registry.get(f"seg-gcaps-{mode}").explain(TABLE2, 2)
    assert plain.verdict is False and plain.evidence["failing_task"] == 3
    entry = registry.get(f"seg-gcaps-{mode}-gpa")
    result = entry.explain(TABLE2, 2)
    assert result.verdict is True
    assert result.evidence["gpu_priorities"] == (0, 1, 3, 2)
    if mode == "suspend":
        assert result.evidence["response_times"] == (19, 53, 151, 102)
    assert entry.status(SegmentedBatch.from_tasksets([TABLE2]), 2).tolist() == [1]
    for run in (dict(arrivals="periodic", execution="wcet"), dict(arrivals="sporadic", execution="random", seed=1)):
        trace = simulate_segmented(
            TABLE2, 2, protocol="gcaps", mode=mode, gpu_priorities=(0, 1, 3, 2), horizon=2400, **run
        )
        assert trace.schedulable_so_far
        bounds = result.evidence["response_times"]
        assert all(r is None or r <= b for r, b in zip(trace.response_times, bounds, strict=True))


@settings(max_examples=150, deadline=None)
@given(case=_sets(), mode=st.sampled_from(["busy", "suspend"]), eps=st.integers(0, 2))
def test_gpa_codes_equal_reference_and_keep_each_cores_order(case, mode, eps):
    m, ts = case
    expected = gcaps.gpa_reference(ts, m, mode=mode, epsilon=eps)
    got = gcaps.gpa_codes(SegmentedBatch.from_tasksets([ts]), m, mode=mode, epsilon=eps).tolist()
    assert got == [int(expected)]
    if gcaps.reference(ts, m, mode=mode, epsilon=eps):
        assert expected  # the task order is tried first
    result = gcaps.gpa_explain(ts, m, mode=mode, epsilon=eps)
    assert result.verdict == expected
    if expected:
        ranks = result.evidence["gpu_priorities"]
        assert gcaps.reference(ts, m, mode=mode, epsilon=eps, gpu_priorities=ranks)
        for i in range(ts.n):  # the CPU order is kept on each core
            for h in range(i):
                if ts[h].core == ts[i].core:
                    assert ranks[h] < ranks[i]


def _gpa_soundness(mode, examples, at_least):
    """Sets accepted only after the search never miss when simulated with the ranks found."""
    reach = {"searched": 0}

    @settings(max_examples=examples, deadline=None, derandomize=True)
    @given(case=_contended_sets(), seed=st.integers(0, 2**16), eps=st.integers(0, 1))
    def prop(case, seed, eps):
        m, ts = case
        result = gcaps.gpa_explain(ts, m, mode=mode, epsilon=eps)
        if result.verdict is not True:
            return
        reach["searched"] += result.evidence["gpa_searched"]
        ranks = result.evidence["gpu_priorities"]
        bounds = result.evidence["response_times"]
        for run in (
            dict(arrivals="periodic", execution="wcet"),
            dict(arrivals="sporadic", execution="random", seed=seed),
        ):
            trace = simulate_segmented(
                ts, m, protocol="gcaps", mode=mode, epsilon=eps, gpu_priorities=ranks,
                horizon=6 * max(t.T for t in ts), **run,
            )  # fmt: skip
            assert trace.schedulable_so_far, (ts, m, eps, ranks, run, trace.misses[:1])
            assert all(r is None or r <= b for r, b in zip(trace.response_times, bounds, strict=True))

    prop()
    assert reach["searched"] >= at_least, reach


@pytest.mark.parametrize("mode", ["busy", "suspend"])
def test_gpa_accepted_sets_meet_every_deadline_in_simulation(mode):
    _gpa_soundness(mode, 150, 3)


@pytest.mark.parametrize(("eps", "segments", "window"), [(0, 33, 13), (1, 42, 18)])
def test_whole_window_bound_counts_a_higher_priority_part_once(eps, segments, window):
    """τ1 has three parts of 1; τ0 (other core, higher priority) one part of 10 per 100 ticks.

    (DEV-G) charges τ0's part to each of τ1's segments: 3·(1 + ε + 10 + 2ε); (W-G) once over the
    window: 3 + 3ε + 10 + 2ε. R = min. The simulator (τ0 released at every instant 0..12 in turn)
    never exceeds it.
    """
    ts = SegmentedTaskSet(
        [
            SegmentedTask((0, 0), (GPUSegment(0, 10),), 100, core=0),
            SegmentedTask((0, 0, 0, 0), ((0, 1), (0, 1), (0, 1)), 100, core=1),
        ]
    )
    row = gcaps.explain(ts, 2, epsilon=eps).per_task[1]
    assert (row["R_segments"], row["R_window"], row["R"]) == (segments, window, window)
    worst = max(
        simulate_segmented(
            ts, 2, protocol="gcaps", epsilon=eps, arrivals="explicit", releases=[[x], [0]], horizon=100
        ).response_times[1]
        for x in range(13)
    )
    assert 3 + 10 <= worst <= window
