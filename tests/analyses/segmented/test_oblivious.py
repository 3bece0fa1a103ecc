"""seg-oblivious (analyses/segmented/oblivious.py): the worked examples of papers/chen2019-self-suspension-review.md by
hand, codes == reference == explain, bad input, proved properties (removing a task, devices and modes do not matter),
and soundness against simulate_segmented(protocol="none") in both waiting modes."""

from __future__ import annotations

import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rtsched.testing.strategies as rst
from rtsched import analyses
from rtsched.analyses.segmented import oblivious
from rtsched.errors import InputError, TaskError
from rtsched.segmented import simulate_segmented
from rtsched.segmented.model import GPUSegment, SegmentedBatch, SegmentedTask, SegmentedTaskSet

OBL = analyses.get("seg-oblivious")
EXAMPLES = int(os.environ.get("RTSCHED_PROPERTY_EXAMPLES", "150"))

pytestmark = pytest.mark.usefixtures("one_numba_thread")  # tests/conftest.py

#: The note's example A (core 0): h = 1, (0, 6), 1 suspending, T = 10; k = 3, T = D = 10.
EXAMPLE_A = SegmentedTaskSet(
    [
        SegmentedTask((1, 1), (GPUSegment(0, 6),), T=10, core=0, name="h"),
        SegmentedTask((3,), (), T=10, core=0, name="k"),
    ]
)
#: The note's example B (core 0): a = 1, T = 10; h = 2, (0, 1), 2, T = 10; k = 4, T = 20, D = 12.
EXAMPLE_B = SegmentedTaskSet(
    [
        SegmentedTask((1,), (), T=10, core=0, name="a"),
        SegmentedTask((2, 2), (GPUSegment(0, 1),), T=10, core=0, name="h"),
        SegmentedTask((4,), (), T=20, D=12, core=0, name="k"),
    ]
)


def small_sets(*, max_tasks: int = 5, max_m: int = 2, max_period: int = 40, load: int = 3):
    """(set, m): up to ``max_tasks`` tasks on 1..max_m cores, each with work in 1..max(1, T // load) split over
    its 3η + 1 parts (η ≤ 2; a GPU segment with no work gets G_e = 1), D in min(T, work)..T, modes none/busy/suspend,
    devices gpu or gpu2."""
    return rst.segmented_splits(max_tasks=max_tasks, max_cores=max_m, max_period=max_period, load=load)


def code(verdict) -> int:
    return {True: 1, False: 0}.get(verdict, -1)


def test_example_b_by_hand():
    """(OBL): a: R = 1; h: own 5, R = 5 + ⌈6/10⌉·1 = 6; k: own 4, start 4 + 1 + 5 = 10, 4 + ⌈10/10⌉·1 + ⌈10/10⌉·5 = 10
    ≤ D = 12. The simulator's worst k (periodic, WCET, suspending) is 9 ≤ 10."""
    out = OBL.explain(EXAMPLE_B, 1)
    assert out.verdict is True and OBL.reference(EXAMPLE_B, 1) is True
    assert [row["R"] for row in out.per_task] == [1, 6, 10]
    assert [row["X"] for row in out.per_task] == [1, 5, 4]
    assert out.per_task[2]["terms"] == "4 + ⌈10/10⌉·1 + ⌈10/10⌉·5 = 10"
    for mode in ("busy", "suspend"):
        trace = simulate_segmented(EXAMPLE_B, 1, protocol="none", mode=mode, horizon=200)
        assert trace.schedulable_so_far
        assert all(r <= b for r, b in zip(trace.response_times, (1, 6, 10), strict=True))


def test_example_a_by_hand_fails_k():
    """(OBL): h: R = 8; k: own 3, start 3 + 8 = 11 > D = 10: not proven (seg-jitter-suspend proves it: test_jitter)."""
    out = OBL.explain(EXAMPLE_A, 1)
    assert out.verdict is False
    assert out.evidence["failing_task"] == 1
    assert "11 > D = 10" in out.evidence["failing_term"]
    assert [row["R"] for row in out.per_task] == [8, "> 10"]
    assert OBL.batch(SegmentedBatch.from_tasksets([EXAMPLE_A]), 1)[0] == 0
    assert any("fails" in str(s) for s in out.steps)


def test_cores_are_separate():
    """Tasks on other cores never interfere (no GPU contention, no boosting): k alone on core 1 passes."""
    ts = SegmentedTaskSet([EXAMPLE_A[0], EXAMPLE_A[1].replace(core=1)])
    assert OBL.reference(ts, 2) is True
    assert [row["R"] for row in OBL.explain(ts, 2).per_task] == [8, 3]


def test_bad_input_names_the_task():
    ts = SegmentedTaskSet([EXAMPLE_A[0], EXAMPLE_A[1].replace(core=None)])
    with pytest.raises(TaskError, match="no core"):
        OBL.reference(ts, 1)
    with pytest.raises(TaskError, match="core 1 does not exist"):
        OBL.reference(SegmentedTaskSet([EXAMPLE_A[0].replace(core=1)]), 1)
    with pytest.raises(InputError, match="no core"):
        OBL.batch(SegmentedBatch.from_tasksets([EXAMPLE_B, ts]), 1)


@settings(max_examples=EXAMPLES, deadline=None)
@given(drawn=small_sets(load=2))
def test_codes_equal_reference_and_explain(drawn):
    ts, m = drawn
    ref = OBL.reference(ts, m)
    assert OBL.batch(SegmentedBatch.from_tasksets([ts]), m)[0] == code(ref)
    assert OBL.explain(ts, m).verdict is ref
    # the mode does not change (OBL)
    assert oblivious.reference(ts, m, mode="busy") is ref
    assert oblivious.reference(ts.with_mode("busy"), m) is ref


def test_codes_over_a_batch():
    import random

    rng = random.Random(5)
    sets = []
    for _ in range(200):
        tasks = []
        for _ in range(rng.randint(1, 6)):
            T = rng.randint(5, 60)
            gpu = [GPUSegment(rng.randint(0, 3), rng.randint(1, 6)) for _ in range(rng.randint(0, 2))]
            cpu = [rng.randint(0, 4) for _ in range(len(gpu) + 1)]
            cpu[-1] += 1
            tasks.append(SegmentedTask(tuple(cpu), tuple(gpu), T, rng.randint(max(1, T // 2), T), rng.randint(0, 2)))
        sets.append(SegmentedTaskSet(tasks))
    got = OBL.batch(SegmentedBatch.from_tasksets(sets), 3)
    assert [int(c) for c in got] == [code(OBL.reference(ts, 3)) for ts in sets]
    assert 0 < sum(int(c) for c in got) < len(sets)


@settings(max_examples=EXAMPLES, deadline=None)
@given(drawn=small_sets(load=2), data=st.data())
def test_removing_a_task_keeps_an_accepted_set_accepted(drawn, data):
    """(OBL)'s right side only loses terms when a task goes (its least fixed points cannot rise)."""
    ts, m = drawn
    if ts.n < 2 or OBL.reference(ts, m) is not True:
        return
    gone = data.draw(st.integers(0, ts.n - 1))
    assert OBL.reference(SegmentedTaskSet([t for i, t in enumerate(ts) if i != gone]), m) is True


@settings(max_examples=EXAMPLES, deadline=None)
@given(drawn=small_sets(load=2))
def test_devices_do_not_matter(drawn):
    """Protocol none: which device a segment names changes nothing (every segment on one device: same verdict)."""
    ts, m = drawn
    one = SegmentedTaskSet([t.replace(gpu=tuple(GPUSegment(g.G_m, g.G_e, "gpu") for g in t.gpu)) for t in ts])
    assert OBL.reference(one, m) is OBL.reference(ts, m)


def test_accepted_sets_meet_every_deadline_without_contention():
    """Whenever seg-oblivious accepts, simulate_segmented(protocol="none") misses nothing and no observed response
    time exceeds its bound R_i, in either default mode
    (periodic/WCET, sporadic/WCET, sporadic/random); derandomized, at least a fifth of the draws accepted."""
    reach = {"accepted": 0}

    @settings(max_examples=150, deadline=None, derandomize=True)
    @given(drawn=small_sets(max_tasks=5, max_period=30, load=2), seed=st.integers(0, 2**16))
    def prop(drawn, seed):
        ts, m = drawn
        out = OBL.explain(ts, m)
        if out.verdict is not True:
            return
        reach["accepted"] += 1
        bounds = out.evidence["response_times"]
        longest = max(t.T for t in ts)
        for mode in ("busy", "suspend"):
            for run in (
                dict(arrivals="periodic", execution="wcet", horizon=8 * longest),
                dict(arrivals="sporadic", execution="wcet", horizon=20 * longest, seed=seed),
                dict(arrivals="sporadic", execution="random", horizon=20 * longest, seed=seed + 1),
            ):
                trace = simulate_segmented(ts, m, protocol="none", mode=mode, **run)
                assert trace.schedulable_so_far, (ts, m, mode, run, trace.misses[:1])
                assert all(r is None or r <= b for r, b in zip(trace.response_times, bounds, strict=True)), (ts, run)

    prop()
    assert reach["accepted"] >= 30, reach
