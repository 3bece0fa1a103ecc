"""seg-segment-suspend / seg-segment-busy (analyses/segmented/segment_level.py): the worked examples of
papers/segment-level-suspension.md by hand, codes == reference == explain, the proved relations with seg-jitter-*
(per-task bounds never above, equal where nothing suspends), and soundness against
simulate_segmented(protocol="none") on hypothesis sets and on sets of generators/segmented.py."""

from __future__ import annotations

import os
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rtsched.testing.strategies as rst
from rtsched import analyses
from rtsched.analyses.segmented import segment_level
from rtsched.analyses.segmented.segment_level import computation_segments
from rtsched.generators.segmented import segmented_tasksets
from rtsched.segmented import simulate_segmented
from rtsched.segmented.model import GPUSegment, SegmentedBatch, SegmentedTask, SegmentedTaskSet

SEG = {"suspend": analyses.get("seg-segment-suspend"), "busy": analyses.get("seg-segment-busy")}
JIT = {"suspend": analyses.get("seg-jitter-suspend"), "busy": analyses.get("seg-jitter-busy")}
OBL = analyses.get("seg-oblivious")
EXAMPLES = int(os.environ.get("RTSCHED_PROPERTY_EXAMPLES", "150"))

pytestmark = pytest.mark.usefixtures("one_numba_thread")  # tests/conftest.py

#: The note's example C (core 0): h = C 2, T = D = 5; k = 1, (0, 10), 1, T = 30, D = 18 (suspending).
EXAMPLE_C = SegmentedTaskSet(
    [
        SegmentedTask((2,), (), T=5, core=0, name="h"),
        SegmentedTask((1, 1), (GPUSegment(0, 10),), T=30, D=18, core=0, name="k"),
    ]
)
#: The note's example D (core 0): h = C 1, T = D = 10; k = 1, (0, 1), 1, (0, 1), 1, T = D = 10 (suspending).
EXAMPLE_D = SegmentedTaskSet(
    [
        SegmentedTask((1,), (), T=10, core=0, name="h"),
        SegmentedTask((1, 1, 1), (GPUSegment(0, 1), GPUSegment(0, 1)), T=10, core=0, name="k"),
    ]
)
#: The note's example E (core 0): h1 = C 1, T = D = 5; h2 = C 2, T = D = 100; k = 1, (0, 10), 1, T = 100, D = 17.
EXAMPLE_E = SegmentedTaskSet(
    [
        SegmentedTask((1,), (), T=5, core=0, name="h1"),
        SegmentedTask((2,), (), T=100, core=0, name="h2"),
        SegmentedTask((1, 1), (GPUSegment(0, 10),), T=100, D=17, core=0, name="k"),
    ]
)
#: chen2019-self-suspension-review.md's example B: accepted by seg-oblivious only.
EXAMPLE_B = SegmentedTaskSet(
    [
        SegmentedTask((1,), (), T=10, core=0, name="a"),
        SegmentedTask((2, 2), (GPUSegment(0, 1),), T=10, core=0, name="h"),
        SegmentedTask((4,), (), T=20, D=12, core=0, name="k"),
    ]
)


def small_sets(
    *, max_tasks: int = 5, max_m: int = 2, max_period: int = 40, load: int = 2, modes=(None, "busy", "suspend")
):
    """(set, m): up to ``max_tasks`` tasks on 1..max_m cores, work in 1..max(1, T // load) over the 3η + 1 parts
    (η ≤ 3; a GPU segment with no work gets G_e = 1), D in min(T, work)..T, modes from ``modes``."""
    return rst.segmented_splits(
        max_tasks=max_tasks, max_cores=max_m, max_period=max_period, load=load, max_segments=3, modes=modes
    )


def code(verdict) -> int:
    return {True: 1, False: 0}.get(verdict, -1)


@pytest.mark.parametrize(
    ("task", "expected"),
    [
        pytest.param(SegmentedTask((2, 3, 1), ((3, 5), (4, 0)), T=50), ((4, 9), (5,)), id="G_e-0-merges"),
        pytest.param(SegmentedTask((0, 0), ((5, 7),), T=50), ((3, 2), (7,)), id="odd-G_m-split"),
        pytest.param(SegmentedTask((4,), (), T=50), ((4,), ()), id="cpu-only"),
        pytest.param(SegmentedTask((1, 0, 2), ((0, 3), (2, 4)), T=50), ((1, 1, 3), (3, 4)), id="two-suspensions"),
    ],
)
def test_computation_segments(task, expected):
    """(SEG-E): runs of CPU parts C_j, ⌈G_m/2⌉ before and ⌊G_m/2⌋ after each G_e; G_e = 0 does not cut."""
    assert computation_segments(task) == expected


def test_example_c_segment_level_proves_what_jitter_cannot():
    """(JIT) for k: own 12, start 14, 12 + ⌈14/5⌉·2 = 18, 12 + ⌈18/5⌉·2 = 20 > 18: not proven by seg-jitter.
    (SEG): E = (1, 1), each r = 1 + ⌈3/5⌉·2 = 3; R^seg = 3 + 3 + 10 = 16 ≤ 18. The bound is reached: k released at 0
    with h, h again at 13 when k's second segment becomes ready: k completes at 16."""
    out = SEG["suspend"].explain(EXAMPLE_C, 1)
    assert out.verdict is True
    k = out.per_task[1]
    assert (k["R_jit"], k["R_seg"], k["R"], k["used"]) == ("> 18", 16, 16, "segment-level")
    assert k["terms"] == "12 + ⌈18/5⌉·2 = 20"
    assert k["segments"] == "E1 = 1: 1 + ⌈3/5⌉·2 = 3 → r = 3; G_e = 10; E2 = 1: 1 + ⌈3/5⌉·2 = 3 → r = 3"
    assert [row["r"] for row in out.evidence["per_segment"] if row["task"] == k["task"]] == [3, 3]
    assert JIT["suspend"].reference(EXAMPLE_C, 1) is False
    assert OBL.reference(EXAMPLE_C, 1) is False
    assert SEG["suspend"].batch(SegmentedBatch.from_tasksets([EXAMPLE_C]), 1)[0] == 1
    trace = simulate_segmented(EXAMPLE_C, 1, protocol="none", mode="suspend", releases=[[0, 13, 18, 23], [0]])
    assert trace.schedulable_so_far and trace.response_times == (2, 16)
    # in busy mode k spins: 12 + interference, not proven (and seg-segment-busy is seg-jitter-busy here)
    assert SEG["busy"].reference(EXAMPLE_C, 1) is False


def test_example_d_whole_job_bound_wins():
    """(JIT) for k: own 5, 5 + ⌈6/10⌉·1 = 6. (SEG): three segments of 1, each r = 2, R^seg = 6 + 2 = 8.
    (SEG-C): cap = 3·⌈2/10⌉·1 = 3, 5 + min(3, ⌈6/10⌉·1) = 6. (MIN): 6."""
    out = SEG["suspend"].explain(EXAMPLE_D, 1)
    k = out.per_task[1]
    assert (k["R_jit"], k["R_seg"], k["R_comb"], k["R"], k["used"]) == (6, 8, 6, 6, "whole-job")
    assert k["combined"] == "5 + min(3, ⌈6/10⌉·1) = 6"
    assert out.verdict is True


def test_example_e_combined_bound_wins():
    """h1: R 1 (X 1, J 0); h2: 2 + ⌈3/5⌉·1 = 3 (X 2, J 0, J' = 3 − 2 = 1). k, (JIT): 12 + ⌈17/5⌉·1 + ⌈17/100⌉·2 = 18
    > 17. (SEG): each segment 1 + ⌈4/5⌉·1 + ⌈4/100⌉·2 = 4, R^seg = 4 + 4 + 10 = 18 > 17. (SEG-C): caps 2·⌈4/5⌉·1 = 2
    (h1) and 2·⌈4/100⌉·2 = 4 (h2); x = 12: 12 + min(2, 3) + min(4, 2) = 16; 12 + min(2, ⌈16/5⌉) + min(4, ⌈17/100⌉·2)
    = 16: R = 16 ≤ 17. Reached: h1, h2, k released at 0 (h1 [0, 1), h2 [1, 3), k [3, 4), G_e [4, 14)), h1 again at 14:
    k completes at 16."""
    out = SEG["suspend"].explain(EXAMPLE_E, 1)
    assert out.verdict is True
    k = out.per_task[2]
    assert (k["R_jit"], k["R_seg"], k["R_comb"], k["R"], k["used"]) == ("> 17", "> 17", 16, 16, "combined")
    assert k["combined"] == "12 + min(2, ⌈16/5⌉·1) + min(4, ⌈(16 + 1)/100⌉·2) = 16"
    assert out.evidence["combined_bounds"] == (None, None, 16)
    assert JIT["suspend"].reference(EXAMPLE_E, 1) is False
    assert SEG["suspend"].batch(SegmentedBatch.from_tasksets([EXAMPLE_E]), 1)[0] == 1
    trace = simulate_segmented(EXAMPLE_E, 1, protocol="none", mode="suspend", releases=[[0, 14], [0], [0]])
    assert trace.schedulable_so_far and trace.response_times == (1, 3, 16)


def test_example_b_oblivious_only():
    """h: (JIT) 6, (SEG) (2 + 1) + (2 + 1) + 1 = 7, R = 6, X = 4, J = 2; k (not suspending) fails as in seg-jitter:
    4 + ⌈9/10⌉·1 + ⌈(9 + 2)/10⌉·4 = 13 > 12. seg-oblivious accepts: (MIN) does not dominate it."""
    out = SEG["suspend"].explain(EXAMPLE_B, 1)
    assert out.verdict is False
    assert [row["R"] for row in out.per_task] == [1, 6, "> 12"]
    assert (out.per_task[1]["R_seg"], out.per_task[1]["X"], out.per_task[1]["J"]) == (7, 4, 2)
    assert out.evidence["failing_task"] == 2
    assert "(JIT) reaches 13 > D = 12" in out.evidence["failing_term"]
    assert OBL.reference(EXAMPLE_B, 1) is True


def test_failing_bounds_are_named():
    """Example C with D = 15: (JIT) 12 + ⌈14/5⌉·2 = 18 > 15; (SEG) 3 + 3 + 10 = 16 > 15; (SEG-C) 12 + min(4, ⌈12/5⌉·2)
    = 16 > 15. With k = 6, (0, 1), 1 and D = 7: (SEG) segment 1 starts at 6 + 2 = 8 > 7."""
    ts = SegmentedTaskSet([EXAMPLE_C[0], EXAMPLE_C[1].replace(D=15)])
    out = SEG["suspend"].explain(ts, 1)
    assert out.verdict is False
    term = out.evidence["failing_term"]
    assert "(JIT) reaches 18 > D = 15" in term and "(SEG) Σ r + ΣG_e = 16 > D; (SEG-C) reaches 16 > D" in term, term
    assert out.per_task[1]["combined"] == "12 + min(4, ⌈12/5⌉·2) = 16 > D = 15"
    ts = SegmentedTaskSet([EXAMPLE_C[0], SegmentedTask((6, 1), (GPUSegment(0, 1),), T=30, D=7, core=0)])
    out = SEG["suspend"].explain(ts, 1)
    assert "(SEG) segment 1 (E = 6) reaches 8 > D" in out.evidence["failing_term"]
    assert out.per_task[1]["segments"] == "E1 = 6: 6 + 2 = 8 (start) > D = 7: fails; G_e = 1; E2 = 1: not reached"


@settings(max_examples=EXAMPLES, deadline=None)
@given(drawn=small_sets(), mode=st.sampled_from(("suspend", "busy")))
def test_codes_equal_reference_and_explain(drawn, mode):
    ts, m = drawn
    analysis = SEG[mode]
    ref = analysis.reference(ts, m)
    assert analysis.batch(SegmentedBatch.from_tasksets([ts]), m)[0] == code(ref)
    assert analysis.explain(ts, m).verdict is ref
    assert segment_level.reference(ts, m, mode=mode) is ref


def test_codes_over_a_batch():
    rng = random.Random(43)
    sets = []
    for _ in range(200):
        tasks = []
        for _ in range(rng.randint(1, 6)):
            T = rng.randint(5, 60)
            G_m = [rng.randint(0, 3) for _ in range(rng.randint(0, 3))]
            gpu = [GPUSegment(g, rng.randint(0 if g else 1, 12)) for g in G_m]
            cpu = [rng.randint(0, 4) for _ in range(len(gpu) + 1)]
            cpu[-1] += 1
            mode = rng.choice((None, "busy", "suspend"))
            tasks.append(
                SegmentedTask(tuple(cpu), tuple(gpu), T, rng.randint(max(1, T // 2), T), rng.randint(0, 2), mode)
            )
        sets.append(SegmentedTaskSet(tasks))
    batch = SegmentedBatch.from_tasksets(sets)
    for mode, analysis in SEG.items():
        got = analysis.batch(batch, 3)
        assert [int(c) for c in got] == [code(analysis.reference(ts, 3)) for ts in sets], mode
        assert 0 < sum(int(c) for c in got) < len(sets)


@settings(max_examples=EXAMPLES, deadline=None)
@given(drawn=small_sets(), mode=st.sampled_from(("suspend", "busy")))
def test_bounds_never_above_the_jitter_bounds(drawn, mode):
    """Proved (the note): by induction on priority R_h ≤ R_h^{seg-jitter}, so J_h is not larger, every (JIT) fixed
    point is not larger, and (MIN) only lowers it: every bound seg-jitter computes is matched or beaten, and every set
    it accepts is accepted."""
    ts, m = drawn
    seg = SEG[mode].explain(ts, m).evidence["response_times"]
    jit = JIT[mode].explain(ts, m).evidence["response_times"]
    for a, b in zip(jit, seg, strict=True):
        if a is not None:
            assert b is not None and b <= a
    if JIT[mode].reference(ts, m) is True:
        assert SEG[mode].reference(ts, m) is True


@settings(max_examples=EXAMPLES, deadline=None)
@given(drawn=small_sets(modes=(None, "suspend")))
def test_combined_never_above_the_segment_sum(drawn):
    """Proved: each cap is h's share of Σ_b (r_b − E_b), so every right side of (SEG-C) is at most Σ r + Σ G_e."""
    ts, m = drawn
    for b in segment_level.task_bounds(ts, m, "suspend"):
        if b.seg_sum is not None:
            assert b.combined is not None
            if b.seg_sum <= b.D:
                assert b.R_comb is not None and b.R_comb <= b.seg_sum


@settings(max_examples=EXAMPLES, deadline=None)
@given(drawn=small_sets(modes=(None, "busy")))
def test_equal_to_jitter_where_nothing_suspends(drawn):
    """Proved: without suspending tasks there is no (SEG) bound and (MIN) is (JIT): the same verdicts."""
    ts, m = drawn
    assert SEG["busy"].reference(ts, m) is JIT["busy"].reference(ts, m)
    busy = ts.with_mode("busy")
    assert SEG["suspend"].reference(busy, m) is JIT["suspend"].reference(busy, m)


@settings(max_examples=EXAMPLES, deadline=None)
@given(drawn=small_sets(), mode=st.sampled_from(("suspend", "busy")), data=st.data())
def test_removing_a_task_keeps_an_accepted_set_accepted(drawn, mode, data):
    """Removing a task removes terms from every (JIT) and (SEG-r) sum and lowers the bounds R_h, hence J_h."""
    ts, m = drawn
    if ts.n < 2 or SEG[mode].reference(ts, m) is not True:
        return
    gone = data.draw(st.integers(0, ts.n - 1))
    assert SEG[mode].reference(SegmentedTaskSet([t for i, t in enumerate(ts) if i != gone]), m) is True


def _check_runs(ts, m, mode, bounds, seed):
    longest = max(t.T for t in ts)
    for run in (
        dict(arrivals="periodic", execution="wcet", horizon=8 * longest),
        dict(arrivals="sporadic", execution="wcet", horizon=20 * longest, seed=seed),
        dict(arrivals="sporadic", execution="random", horizon=20 * longest, seed=seed + 1),
    ):
        trace = simulate_segmented(ts, m, protocol="none", mode=mode, **run)
        assert trace.schedulable_so_far, (ts, m, run, trace.misses[:1])
        assert all(r is None or r <= b for r, b in zip(trace.response_times, bounds, strict=True)), (ts, run)


@pytest.mark.parametrize("mode", ["suspend", "busy"])
def test_accepted_sets_meet_every_deadline_without_contention(mode):
    """Whenever seg-segment-<mode> accepts, simulate_segmented(protocol="none", mode=<mode>) misses nothing and no
    observed response time exceeds its bound R_i (periodic/WCET, sporadic/WCET, sporadic/random); derandomized."""
    analysis = SEG[mode]
    reach = {"accepted": 0}

    @settings(max_examples=150, deadline=None, derandomize=True)
    @given(drawn=small_sets(max_tasks=5, max_period=30), seed=st.integers(0, 2**16))
    def prop(drawn, seed):
        ts, m = drawn
        out = analysis.explain(ts, m)
        if out.verdict is not True:
            return
        reach["accepted"] += 1
        _check_runs(ts, m, mode, out.evidence["response_times"], seed)

    prop()
    assert reach["accepted"] >= 30, reach


def _segment_only_sets(seed: int, wanted: int, tries: int):
    """One-core rate-monotonic suspending sets (2-4 tasks, η ≤ 3, G_e up to a third of T) that seg-jitter-suspend
    rejects and seg-segment-suspend accepts: (set, bounds), seeded, at most ``wanted``."""
    rng = random.Random(seed)
    out = []
    for _ in range(tries):
        tasks = []
        for _ in range(rng.randint(2, 4)):
            T = rng.randint(6, 40)
            eta = rng.randint(0, 3)
            gpu = [GPUSegment(rng.randint(0, 2), rng.randint(1, max(1, T // 3))) for _ in range(eta)]
            cpu = [rng.randint(0, 3) for _ in range(eta + 1)]
            cpu[0] += 1
            work = sum(cpu) + sum(g.G for g in gpu)
            if work > T:
                continue
            tasks.append(SegmentedTask(tuple(cpu), tuple(gpu), T, rng.randint(work, T), 0, "suspend"))
        if len(tasks) < 2:
            continue
        ts = SegmentedTaskSet(sorted(tasks, key=lambda t: t.T))  # rate monotonic
        if JIT["suspend"].reference(ts, 1) is not False:
            continue
        found = SEG["suspend"].explain(ts, 1)
        if found.verdict is True:
            out.append((ts, found.evidence["response_times"]))
            if len(out) >= wanted:
                break
    return out


def test_sets_only_the_segment_level_bound_proves_are_sound():
    """Sets where seg-jitter-suspend fails and seg-segment-suspend accepts (:func:`_segment_only_sets`): the simulator
    (periodic, sporadic, WCET and random) never misses nor beats a bound. Seeded; at least 30 such sets."""
    found = _segment_only_sets(2019, 40, 20000)
    for n, (ts, bounds) in enumerate(found):
        _check_runs(ts, 1, "suspend", bounds, n)
    assert len(found) >= 30, len(found)


@pytest.mark.slow
def test_sets_only_the_segment_level_bound_proves_are_sound_slow():
    """:func:`test_sets_only_the_segment_level_bound_proves_are_sound` with RTSCHED_PROPERTY_EXAMPLES sets (default
    150) from another seed, each with five sporadic seeds."""
    found = _segment_only_sets(43, EXAMPLES, 200 * EXAMPLES)
    for n, (ts, bounds) in enumerate(found):
        for seed in range(5):
            _check_runs(ts, 1, "suspend", bounds, 1000 * n + 7 * seed)
    assert len(found) >= EXAMPLES // 2, len(found)


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["suspend", "busy"])
def test_accepted_sets_meet_every_deadline_slow(mode):
    """The soundness property on ten times RTSCHED_PROPERTY_EXAMPLES draws, up to 6 tasks and 3 cores."""

    @settings(max_examples=10 * EXAMPLES, deadline=None)
    @given(drawn=small_sets(max_tasks=6, max_m=3, max_period=40), seed=st.integers(0, 2**16))
    def prop(drawn, seed):
        ts, m = drawn
        out = SEG[mode].explain(ts, m)
        if out.verdict is True:
            _check_runs(ts, m, mode, out.evidence["response_times"], seed)

    prop()


def test_generated_sets_are_sound():
    """Sets of generators/segmented.py (the GCAPS setup scaled down: 2 CPUs, 2-3 tasks per CPU, periods 30-150 ticks,
    utilization 0.3-0.6 per CPU, constrained deadlines, every task suspending): codes == reference, and every set
    seg-segment-suspend accepts passes the simulator's runs with no response time above its bound."""
    sets = segmented_tasksets(
        np.random.default_rng(np.random.SeedSequence(4343)),
        60,
        m=2,
        tasks_per_cpu=(2, 3),
        utilization=(0.3, 0.6),
        periods="uniform:30:150",
        ticks=1,
        deadlines="constrained",
        mode="suspend",
    )
    ref = [code(SEG["suspend"].reference(ts, 2)) for ts in sets]
    assert SEG["suspend"].batch(SegmentedBatch.from_tasksets(sets), 2).tolist() == ref
    accepted = 0
    for s, ts in enumerate(sets):
        if ref[s] != 1:
            continue
        accepted += 1
        _check_runs(ts, 2, "suspend", SEG["suspend"].explain(ts, 2).evidence["response_times"], s)
    assert 10 <= accepted < len(sets), accepted
