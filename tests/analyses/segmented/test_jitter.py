"""seg-jitter-suspend / seg-jitter-busy (analyses/segmented/jitter.py): the worked examples of
papers/chen2019-self-suspension-review.md by hand, codes == reference == explain, the proved relations with seg-oblivious
(equal where every task is busy; neither dominates where tasks suspend), removing a task, and soundness against
simulate_segmented(protocol="none") in the analysis's default mode."""

from __future__ import annotations

import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rtsched.testing.strategies as rst
from rtsched import analyses
from rtsched.analyses.segmented import jitter
from rtsched.analyses.theory.jitter_rta import JitterRow, jitter_response
from rtsched.segmented import simulate_segmented
from rtsched.segmented.model import GPUSegment, SegmentedBatch, SegmentedTask, SegmentedTaskSet

OBL = analyses.get("seg-oblivious")
JIT = {"suspend": analyses.get("seg-jitter-suspend"), "busy": analyses.get("seg-jitter-busy")}
EXAMPLES = int(os.environ.get("RTSCHED_PROPERTY_EXAMPLES", "150"))

pytestmark = pytest.mark.usefixtures("one_numba_thread")  # tests/conftest.py

#: The note's example A (core 0): h = 1, (0, 6), 1, T = 10; k = 3, T = D = 10.
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


def small_sets(
    *, max_tasks: int = 5, max_m: int = 2, max_period: int = 40, load: int = 2, modes=(None, "busy", "suspend")
):
    """(set, m): up to ``max_tasks`` tasks on 1..max_m cores, work in 1..max(1, T // load) over the 3η + 1 parts
    (η ≤ 2; a GPU segment with no work gets G_e = 1), D in min(T, work)..T, modes from ``modes``, devices gpu/gpu2."""
    return rst.segmented_splits(
        max_tasks=max_tasks, max_cores=max_m, max_period=max_period, load=load, max_segments=2, modes=modes
    )


def code(verdict) -> int:
    return {True: 1, False: 0}.get(verdict, -1)


def test_example_a_jitter_proves_what_oblivious_cannot():
    """(JIT): h alone, R = 8, X = C + G_m = 2, J = 8 − 2 = 6. k: start 3 + 2 = 5, 3 + ⌈(5 + 6)/10⌉·2 = 7,
    3 + ⌈13/10⌉·2 = 7: R = 7 ≤ 10. (OBL) gives 3 + 8 = 11 > 10. The simulator's worst k is 4 ≤ 7."""
    out = JIT["suspend"].explain(EXAMPLE_A, 1)
    assert out.verdict is True
    assert [row["R"] for row in out.per_task] == [8, 7]
    assert (out.per_task[0]["X"], out.per_task[0]["J"]) == (2, 6)
    assert out.per_task[1]["terms"] == "3 + ⌈(7 + 6)/10⌉·2 = 7"
    assert OBL.reference(EXAMPLE_A, 1) is False
    assert JIT["busy"].reference(EXAMPLE_A, 1) is False  # h busy: its 8 ticks are CPU work, as in (OBL)
    trace = simulate_segmented(EXAMPLE_A, 1, protocol="none", mode="suspend", horizon=200)
    assert trace.schedulable_so_far and trace.response_times == (8, 4)


def test_example_b_oblivious_proves_what_jitter_cannot():
    """(JIT): a: R = 1 (X = 1, J = 0). h: own 5, R = 5 + ⌈6/10⌉·1 = 6, X = C + G_m = 4, J = 2. k: start 4 + 1 + 4 = 9,
    4 + ⌈9/10⌉·1 + ⌈(9 + 2)/10⌉·4 = 13 > D = 12: not proven. (OBL) gives R_k = 10 ≤ 12; the simulator 9."""
    out = JIT["suspend"].explain(EXAMPLE_B, 1)
    assert out.verdict is False
    assert [row["R"] for row in out.per_task] == [1, 6, "> 12"]
    assert (out.per_task[1]["X"], out.per_task[1]["J"]) == (4, 2)
    assert out.per_task[2]["terms"] == "4 + ⌈9/10⌉·1 + ⌈(9 + 2)/10⌉·4 = 13"
    assert out.evidence["failing_task"] == 2
    # the least fixed point (past D) is 14: ⌈(14 + 2)/10⌉ = 2 jobs of h
    rows = (JitterRow(1, 10, 0), JitterRow(4, 10, 2))
    assert jitter_response(4, 100, rows).response == 14
    assert OBL.reference(EXAMPLE_B, 1) is True
    trace = simulate_segmented(EXAMPLE_B, 1, protocol="none", mode="suspend", horizon=200)
    assert trace.schedulable_so_far and trace.response_times == (1, 6, 9)


def test_a_task_that_never_suspends_has_no_jitter():
    """(JIT-B) for a suspend-mode task with G_e = 0 and for a CPU-only one: X = C + G_m, J = 0."""
    ts = SegmentedTaskSet(
        [
            SegmentedTask((1,), (), T=10, core=0, mode="suspend"),
            SegmentedTask((1, 1), (GPUSegment(2, 0),), T=10, core=0, mode="suspend"),
            SegmentedTask((1,), (), T=10, core=0),
        ]
    )
    rows = JIT["suspend"].explain(ts, 1).per_task
    assert [(r["X"], r["J"]) for r in rows] == [(1, 0), (4, 0), (1, 0)]
    assert [r["R"] for r in rows] == [1, 5, 6]


@settings(max_examples=EXAMPLES, deadline=None)
@given(drawn=small_sets(), mode=st.sampled_from(("suspend", "busy")))
def test_codes_equal_reference_and_explain(drawn, mode):
    ts, m = drawn
    analysis = JIT[mode]
    ref = analysis.reference(ts, m)
    assert analysis.batch(SegmentedBatch.from_tasksets([ts]), m)[0] == code(ref)
    assert analysis.explain(ts, m).verdict is ref
    assert jitter.reference(ts, m, mode=mode) is ref


def test_codes_over_a_batch():
    import random

    rng = random.Random(11)
    sets = []
    for _ in range(200):
        tasks = []
        for _ in range(rng.randint(1, 6)):
            T = rng.randint(5, 60)
            gpu = [GPUSegment(rng.randint(0, 3), rng.randint(0, 8) or 1) for _ in range(rng.randint(0, 2))]
            cpu = [rng.randint(0, 4) for _ in range(len(gpu) + 1)]
            cpu[-1] += 1
            mode = rng.choice((None, "busy", "suspend"))
            tasks.append(
                SegmentedTask(tuple(cpu), tuple(gpu), T, rng.randint(max(1, T // 2), T), rng.randint(0, 2), mode)
            )
        sets.append(SegmentedTaskSet(tasks))
    batch = SegmentedBatch.from_tasksets(sets)
    for mode, analysis in JIT.items():
        got = analysis.batch(batch, 3)
        assert [int(c) for c in got] == [code(analysis.reference(ts, 3)) for ts in sets], mode
        assert 0 < sum(int(c) for c in got) < len(sets)


@settings(max_examples=EXAMPLES, deadline=None)
@given(drawn=small_sets(modes=(None, "busy")))
def test_equal_to_oblivious_where_every_task_is_busy(drawn):
    """Proved: with every task busy, (JIT-B) gives every higher-priority task X = C + G and J = 0: (JIT) is (OBL)."""
    ts, m = drawn
    ref = OBL.reference(ts, m)
    assert JIT["busy"].reference(ts, m) is ref
    assert JIT["suspend"].reference(ts.with_mode("busy"), m) is ref


def test_neither_dominates_where_tasks_suspend():
    """The note's examples: A is proven only by (JIT), B only by (OBL) (both sets suspend, one core)."""
    assert (JIT["suspend"].reference(EXAMPLE_A, 1), OBL.reference(EXAMPLE_A, 1)) == (True, False)
    assert (JIT["suspend"].reference(EXAMPLE_B, 1), OBL.reference(EXAMPLE_B, 1)) == (False, True)


@settings(max_examples=EXAMPLES, deadline=None)
@given(drawn=small_sets(modes=("suspend",)))
def test_jitter_dominates_oblivious_where_suspensions_are_long(drawn):
    """Proved (the note, "Relations"): if every suspending task has C + G_m ≤ G_e, then for R ≥ 1 each (JIT-S) term
    ⌈(R + J_h)/T_h⌉·X_h ≤ (⌈R/T_h⌉ + 1)·X_h ≤ ⌈R/T_h⌉·(X_h + G_e_h), the (OBL) term (J_h = R_h − X_h ≤ T_h − X_h),
    so every (JIT) bound is at most the (OBL) bound: seg-jitter-suspend accepts whatever seg-oblivious accepts.
    Tasks with C + G_m > G_e are made busy."""
    ts, m = drawn
    ts = SegmentedTaskSet([t if t.C + t.G_m <= t.G_e else t.replace(mode="busy") for t in ts])
    if OBL.reference(ts, m) is True:
        assert JIT["suspend"].reference(ts, m) is True
    obl = OBL.explain(ts, m).evidence["response_times"]
    jit = JIT["suspend"].explain(ts, m).evidence["response_times"]
    for a, b in zip(obl, jit, strict=True):
        if a is not None:
            assert b is not None and b <= a


@settings(max_examples=EXAMPLES, deadline=None)
@given(drawn=small_sets(), mode=st.sampled_from(("suspend", "busy")))
def test_devices_do_not_matter(drawn, mode):
    """Protocol none: every segment moved to one device gives the same verdict."""
    ts, m = drawn
    one = SegmentedTaskSet([t.replace(gpu=tuple(GPUSegment(g.G_m, g.G_e, "gpu") for g in t.gpu)) for t in ts])
    assert JIT[mode].reference(one, m) is JIT[mode].reference(ts, m)


@settings(max_examples=EXAMPLES, deadline=None)
@given(drawn=small_sets(), mode=st.sampled_from(("suspend", "busy")), data=st.data())
def test_removing_a_task_keeps_an_accepted_set_accepted(drawn, mode, data):
    """Removing a task removes terms from (JIT) and lowers the bounds R_h, hence the jitters J_h = R_h − X_h of the
    tasks below: no least fixed point rises."""
    ts, m = drawn
    analysis = JIT[mode]
    if ts.n < 2 or analysis.reference(ts, m) is not True:
        return
    gone = data.draw(st.integers(0, ts.n - 1))
    assert analysis.reference(SegmentedTaskSet([t for i, t in enumerate(ts) if i != gone]), m) is True


@pytest.mark.parametrize("mode", ["suspend", "busy"])
def test_accepted_sets_meet_every_deadline_without_contention(mode):
    """Whenever seg-jitter-<mode> accepts, simulate_segmented(protocol="none", mode=<mode>) misses nothing and no
    observed response time exceeds its bound R_i
    (periodic/WCET, sporadic/WCET, sporadic/random); derandomized, at least a fifth of the draws accepted."""
    analysis = JIT[mode]
    reach = {"accepted": 0}

    @settings(max_examples=150, deadline=None, derandomize=True)
    @given(drawn=small_sets(max_tasks=5, max_period=30), seed=st.integers(0, 2**16))
    def prop(drawn, seed):
        ts, m = drawn
        out = analysis.explain(ts, m)
        if out.verdict is not True:
            return
        reach["accepted"] += 1
        bounds = out.evidence["response_times"]
        longest = max(t.T for t in ts)
        for run in (
            dict(arrivals="periodic", execution="wcet", horizon=8 * longest),
            dict(arrivals="sporadic", execution="wcet", horizon=20 * longest, seed=seed),
            dict(arrivals="sporadic", execution="random", horizon=20 * longest, seed=seed + 1),
        ):
            trace = simulate_segmented(ts, m, protocol="none", mode=mode, **run)
            assert trace.schedulable_so_far, (ts, m, run, trace.misses[:1])
            assert all(r is None or r <= b for r, b in zip(trace.response_times, bounds, strict=True)), (ts, run)

    prop()
    assert reach["accepted"] >= 30, reach
