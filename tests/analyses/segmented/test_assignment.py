"""seg-oblivious-ffd/-wfd, seg-jitter-suspend-ffd/-wfd (analyses/segmented/assignment.py): a placement by hand,
codes == reference == explain, an accepted placement passes its admission analysis, and soundness of the placed set
against simulate_segmented(protocol="none")."""

from __future__ import annotations

import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rtsched import analyses
from rtsched.analyses.segmented import assignment
from rtsched.segmented import simulate_segmented
from rtsched.segmented.model import GPUSegment, SegmentedBatch, SegmentedTask, SegmentedTaskSet

EXAMPLES = int(os.environ.get("RTSCHED_PROPERTY_EXAMPLES", "150"))
NAMES = ("seg-oblivious-ffd", "seg-oblivious-wfd", "seg-jitter-suspend-ffd", "seg-jitter-suspend-wfd")
BASE = {name: name.rsplit("-", 1)[0] for name in NAMES}

pytestmark = pytest.mark.usefixtures("one_numba_thread")  # tests/conftest.py

#: t0 = 4 (U 0.4), t1 = 1, (0, 4), 1 (U 0.6), t2 = 3 (U 0.3); T = D = 10; no cores given.
EXAMPLE = SegmentedTaskSet(
    [
        SegmentedTask((4,), (), T=10, name="t0"),
        SegmentedTask((1, 1), (GPUSegment(0, 4),), T=10, name="t1"),
        SegmentedTask((3,), (), T=10, name="t2"),
    ]
)


@st.composite
def unplaced_sets(draw, *, max_tasks: int = 6, max_period: int = 30):
    """(set, m): tasks without cores on m in 1..3, work in 1..T//2 over the 3η + 1 parts, modes none/busy/suspend."""
    m = draw(st.integers(1, 3))
    tasks = []
    for _ in range(draw(st.integers(1, max_tasks))):
        T = draw(st.integers(4, max_period))
        eta = draw(st.integers(0, 2))
        work = draw(st.integers(1, max(1, T // 2)))
        cuts = sorted(draw(st.lists(st.integers(0, work), min_size=3 * eta, max_size=3 * eta)))
        parts = [b - a for a, b in zip([0, *cuts], [*cuts, work], strict=True)]
        gpu = [GPUSegment(parts[3 * j + 1], parts[3 * j + 2] or (0 if parts[3 * j + 1] else 1)) for j in range(eta)]
        cpu = [parts[3 * j] for j in range(eta)] + [parts[-1]]
        total = sum(cpu) + sum(g.G for g in gpu)
        D = draw(st.integers(min(T, total), T))
        tasks.append(
            SegmentedTask(tuple(cpu), tuple(gpu), T, D, None, draw(st.sampled_from((None, "busy", "suspend"))))
        )
    return SegmentedTaskSet(tasks), m


def test_placement_by_hand():
    """Order t1 (0.6), t0 (0.4), t2 (0.3). FFD/(OBL): t1 → 0; t0 → 0 (t0 4, t1 6 + ⌈10/10⌉·4 = 10); t2: core 0 would
    give 3 + 4 + 6 = 13 > 10 → 1. WFD/(OBL): t1 → 0; t0 → 1 (load 0 < 0.6); t2 → 1 (0.4 < 0.6; 3 + 4 = 7).
    FFD/(JIT): t2 on core 0 gives 3 + ⌈9/10⌉·4 + ⌈(9 + 8)/10⌉·2 = 11 > 10 (t1: X = 2, J = 8) → core 1."""
    expected = {
        "seg-oblivious-ffd": (0, 0, 1),
        "seg-oblivious-wfd": (1, 0, 1),
        "seg-jitter-suspend-ffd": (0, 0, 1),
        "seg-jitter-suspend-wfd": (1, 0, 1),
    }
    for name, cores in expected.items():
        out = analyses.get(name).explain(EXAMPLE, 2)
        assert out.verdict is True, name
        assert out.evidence["assignment"] == cores, name
        assert [row["placed"] for row in out.per_task] == [2, 1, 3]
    out = analyses.get("seg-oblivious-ffd").explain(EXAMPLE, 2)
    assert [row["R"] for row in out.per_task] == [4, 10, 3]
    steps = [str(s) for s in out.steps]
    assert any("t2" in s and "refused by core(s) 0" in s for s in steps)
    assert analyses.get("seg-oblivious-ffd").reference(EXAMPLE, 1) is False
    out = analyses.get("seg-oblivious-ffd").explain(EXAMPLE, 1)
    assert out.evidence["failing_task"] == 2 and "fits no core" in out.summary


@settings(max_examples=EXAMPLES, deadline=None)
@given(drawn=unplaced_sets(), name=st.sampled_from(NAMES))
def test_codes_equal_reference_and_the_placement_passes(drawn, name):
    ts, m = drawn
    analysis = analyses.get(name)
    ref = analysis.reference(ts, m)
    assert analysis.batch(SegmentedBatch.from_tasksets([ts]), m)[0] == int(ref)
    out = analysis.explain(ts, m)
    assert out.verdict is ref
    if ref:
        placed = ts.with_cores(list(out.evidence["assignment"]))
        assert analyses.get(BASE[name]).reference(placed, m) is True


def test_codes_over_a_batch():
    import random

    rng = random.Random(3)
    sets = []
    for _ in range(150):
        tasks = []
        for _ in range(rng.randint(1, 8)):
            T = rng.randint(5, 60)
            gpu = [GPUSegment(rng.randint(0, 3), rng.randint(0, 12) or 1) for _ in range(rng.randint(0, 2))]
            cpu = [rng.randint(0, 6) for _ in range(len(gpu) + 1)]
            cpu[-1] += 1
            mode = rng.choice((None, "busy", "suspend"))
            tasks.append(SegmentedTask(tuple(cpu), tuple(gpu), T, rng.randint(max(1, T // 2), T), None, mode))
        sets.append(SegmentedTaskSet(tasks))
    batch = SegmentedBatch.from_tasksets(sets)
    for name in NAMES:
        for m in (1, 3):
            got = [int(c) for c in analyses.get(name).batch(batch, m)]
            assert got == [int(assignment.reference(ts, m, **_options(name))) for ts in sets], (name, m)


def _options(name: str) -> dict[str, str]:
    base, fit = BASE[name].removeprefix("seg-"), name.rsplit("-", 1)[1]
    return {"base": base, "fit": fit}


@pytest.mark.parametrize("name", ["seg-oblivious-wfd", "seg-jitter-suspend-ffd"])
def test_placed_sets_meet_every_deadline_without_contention(name):
    """Whenever the heuristic places every task, the placed set misses nothing in simulate_segmented(protocol="none",
    mode="suspend") (periodic/WCET, sporadic/random); derandomized, at least a fifth of the draws placed."""
    analysis = analyses.get(name)
    reach = {"accepted": 0}

    @settings(max_examples=100, deadline=None, derandomize=True)
    @given(drawn=unplaced_sets(max_tasks=6), seed=st.integers(0, 2**16))
    def prop(drawn, seed):
        ts, m = drawn
        out = analysis.explain(ts, m)
        if out.verdict is not True:
            return
        reach["accepted"] += 1
        placed = ts.with_cores(list(out.evidence["assignment"]))
        longest = max(t.T for t in ts)
        for run in (
            dict(arrivals="periodic", execution="wcet", horizon=8 * longest),
            dict(arrivals="sporadic", execution="random", horizon=20 * longest, seed=seed),
        ):
            trace = simulate_segmented(placed, m, protocol="none", mode="suspend", **run)
            assert trace.schedulable_so_far, (placed, m, run, trace.misses[:1])

    prop()
    assert reach["accepted"] >= 20, reach
