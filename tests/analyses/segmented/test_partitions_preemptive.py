"""seg-{gcaps,gcaps-gpa,tsg}-*-part[-exhaustive]: preemptive GPU scheduling on GPU partitions (papers/cpu-gpu-partitions.md).

The note's worked example with ε = 1 by hand and in simulation (the whole GPU misses under GCAPS;
two partitions of one cluster pass with R = 13 = D exactly, one context switch per partition),
the proved relations (one partition of the whole GPU is the inner analysis, the set's driver
carried into the derived set; the exhaustive search accepts what the heuristic accepts; no GPU
description: the inner verdict), kernel == reference, and soundness of accepted candidates
against simulate_segmented with one preemptive scheduler per partition (ε per context switch and
the time slice on every partition device), GCAPS under the GPU ranks the assignment found.
"""

import os
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rtsched import registry
from rtsched.analyses.segmented import partitions as P
from rtsched.gpu import Slowdown, TableWCET
from rtsched.segmented.model import (
    GPUDescription,
    GPUDriver,
    GPUSegment,
    SegmentedBatch,
    SegmentedTask,
    SegmentedTaskSet,
)
from rtsched.segmented.sim import simulate_segmented

KINDS = ("gcaps", "gcaps-gpa", "tsg")
MODES = ("busy", "suspend")
STEM = {"gcaps": "seg-gcaps-{}", "gcaps-gpa": "seg-gcaps-{}-gpa", "tsg": "seg-tsg-{}"}
KEYS = [(k, mode) for k in KINDS for mode in MODES]
INNER = {key: registry.get(STEM[key[0]].format(key[1])) for key in KEYS}
PART = {key: registry.get(STEM[key[0]].format(key[1]) + "-part") for key in KEYS}
EXH = {key: registry.get(STEM[key[0]].format(key[1]) + "-part-exhaustive") for key in KEYS}
PROTOCOL = {"gcaps": "gcaps", "gcaps-gpa": "gcaps", "tsg": "tsg-rr"}
#: The TSG analyses' registered time slice when the set's driver names none (tsg.DEFAULT_TIME_SLICE).
DEFAULT_L = 10


def _worked(T: int = 13, epsilon: int = 1) -> SegmentedTaskSet:
    gpu = GPUDescription(2, Slowdown((), Fraction(6, 5)))
    return SegmentedTaskSet(
        [
            SegmentedTask((1, 1), (GPUSegment(2, 5, profile=TableWCET((6, 5))),), T, core=0, name="a"),
            SegmentedTask((1, 1), (GPUSegment(2, 5, profile=TableWCET((6, 5))),), T, core=1, name="b"),
        ],
        gpu=gpu,
        driver=GPUDriver(epsilon=epsilon),
    )


def test_worked_example_by_hand():
    """ε = 1, T = D = 13. Whole GPU: b's (DEV-G) B = 5 + 1 + ⌈(B+5)/13⌉·5 + ⌈(B+10)/13⌉·2 = 20 > 13.

    Layout 1 + 1: G_e' = ⌈6·6/5⌉ = 8, alone on its partition: B = 8 + 1 = 9, R = 1 + 2 + 9 + 1 = 13 ≤ 13.
    """
    ts = _worked()
    for key in KEYS:
        assert INNER[key].reference(ts, 2) is False, key
        assert PART[key].reference(ts, 2) is True, key
        assert EXH[key].reference(ts, 2) is True, key
    whole = INNER["gcaps", "suspend"].explain(ts, 2)
    assert whole.per_task[1]["R"] == "> 13"
    assert "= 20 > D = 13" in str(whole.summary)
    result = PART["gcaps", "suspend"].explain(ts, 2)
    ev = result.evidence
    assert (ev["layout"], ev["candidates_considered"]) == ("1+1", 2)
    assert [x["G_e'"] for x in ev["inflated"]] == [8, 8]
    assert ev["inner"]["epsilon"] == 1  # the set's driver reaches the inner analysis of the derived set
    assert [row["R"] for row in result.per_task] == [13, 13]
    split = P.derive(ts, (1, 1), (0, 1)).derived
    assert split.driver == GPUDriver(epsilon=1)
    # with ε = 2 the split needs 14 > 13: ε counts on each partition
    assert PART["gcaps", "suspend"].reference(_worked(epsilon=2), 2) is False
    assert PART["tsg", "busy"].reference(_worked(epsilon=2), 2) is False


@pytest.mark.parametrize("protocol", ["gcaps", "tsg-rr"])
def test_worked_example_in_simulation(protocol):
    """The split's derived set runs with responses 13 = the bound (one ε per partition); the whole GPU misses."""
    ts = _worked()
    split = P.derive(ts, (1, 1), (0, 1)).derived
    whole = P.derive(ts, (2,), (0, 0)).derived
    kw = {"protocol": protocol, "mode": "suspend", "horizon": 130}
    if protocol == "tsg-rr":
        kw["time_slice"] = DEFAULT_L
    trace = simulate_segmented(split, 2, **kw)
    assert trace.schedulable_so_far
    assert trace.response_times == (13, 13)
    assert not simulate_segmented(whole, 2, **kw).schedulable_so_far


def test_without_a_gpu_description_the_inner_verdict():
    ts = _worked().with_gpu(None)
    relaxed = SegmentedTaskSet(list(_worked(T=30)), driver=GPUDriver(epsilon=1))
    for key in KEYS:
        assert PART[key].reference(ts, 2) is INNER[key].reference(ts, 2)
        assert PART[key].reference(relaxed, 2) is INNER[key].reference(relaxed, 2) is True
        assert "nothing to partition" in PART[key].explain(relaxed, 2).summary


def test_gpa_reports_the_ranks_of_the_accepted_candidate():
    ev = PART["gcaps-gpa", "suspend"].explain(_worked(), 2).evidence
    assert list(ev["inner"]["gpu_priorities"]) == [0, 1]


def test_budget_gives_unknown():
    for key in KEYS:
        assert PART[key].reference(_worked(), 2, budget=1) == "unknown"
        assert PART[key].status(SegmentedBatch.from_tasksets([_worked()]), 2, budget=1).tolist() == [-1]


# ---------------------------------------------------------------------------------------------
# generated sets
# ---------------------------------------------------------------------------------------------

_SPACES = [(1, "free"), (2, "free"), (3, "free"), (4, "tpc:2"), (7, "mig:a100")]


@st.composite
def gpu_sets(draw):
    """Two to four tasks on one or two cores, GPU segments on 'gpu' with profiles, a GPU description and a driver."""
    m = draw(st.integers(1, 2))
    M, layout = draw(st.sampled_from(_SPACES))
    tasks = []
    for _ in range(draw(st.integers(2, 4))):
        T = draw(st.integers(12, 50))
        eta = draw(st.sampled_from([0, 1, 1, 1, 2]))
        segs = []
        for _ in range(eta):
            G_e = draw(st.integers(0, 6))
            extra = sorted((draw(st.integers(0, 4)) for _ in range(M - 1)), reverse=True)
            profile = TableWCET((*(G_e + e for e in extra), G_e)) if G_e else None
            klass = draw(st.sampled_from([None, "compute", "memory"]))
            device = draw(st.sampled_from(["gpu", "gpu", "gpu", "g1"]))
            G_m = draw(st.integers(0 if G_e else 1, 3))
            segs.append(GPUSegment(G_m, G_e, device, profile if device == "gpu" else None, klass))
        cpu = [draw(st.integers(0, 3)) for _ in range(eta + 1)]
        if sum(cpu) + sum(g.G for g in segs) == 0:
            cpu[0] = 1
        work = sum(cpu) + sum(g.G for g in segs)
        mode = draw(st.sampled_from([None, None, "busy", "suspend"]))
        tasks.append(SegmentedTask(tuple(cpu), tuple(segs), max(T, work), core=draw(st.integers(0, m - 1)), mode=mode))
    cap = Fraction(draw(st.integers(10, 14)), 10)
    gpu = GPUDescription(
        M,
        Slowdown((), cap),
        layout=layout,
        slowdown_by=(("compute", Slowdown((), Fraction(draw(st.integers(10, int(cap * 10))), 10))),),
        interference=draw(st.sampled_from(["co-runner", "count-only"])),
    )
    driver = draw(
        st.sampled_from(
            [None, GPUDriver(epsilon=1), GPUDriver(epsilon=0, time_slice=2), GPUDriver(epsilon=1, time_slice=3)]
        )
    )
    return m, SegmentedTaskSet(tasks, gpu=gpu, driver=driver)


@settings(max_examples=40, deadline=None)
@given(case=gpu_sets(), key=st.sampled_from(KEYS), exhaustive=st.booleans())
def test_codes_equal_reference(case, key, exhaustive):
    m, ts = case
    entry = (EXH if exhaustive else PART)[key]
    expected = entry.reference(ts, m, budget=200)
    assert entry.status(SegmentedBatch.from_tasksets([ts]), m, budget=200).tolist() == [
        {True: 1, False: 0, "unknown": -1}[expected]
    ]
    assert entry.explain(ts, m, budget=200).verdict == expected


def test_codes_over_one_batch_equal_reference():
    sets = [_worked(), _worked(T=12), _worked(epsilon=0), _worked().with_gpu(None), _worked(T=30)]
    batch = SegmentedBatch.from_tasksets(sets)
    for key in KEYS:
        for table in (PART, EXH):
            assert table[key].status(batch, 2).tolist() == [int(table[key].reference(ts, 2)) for ts in sets], key


@settings(max_examples=30, deadline=None)
@given(case=gpu_sets(), key=st.sampled_from(KEYS))
def test_one_partition_of_the_whole_gpu_is_the_inner_analysis(case, key):
    """Layout (M) with every GPU task on it: G_e' = G_e, the driver kept, devices renamed: the inner verdict."""
    m, ts = case
    users = P.gpu_tasks(ts)
    if not users:
        return
    cand = P.derive(ts, (ts.gpu.clusters,), tuple(0 if i in users else None for i in range(ts.n)))
    assert cand.derived.driver == ts.driver
    assert INNER[key].reference(cand.derived, m) == INNER[key].reference(ts.with_gpu(None), m)
    if INNER[key].reference(ts.with_gpu(None), m):
        assert PART[key].reference(ts, m) is True


@settings(max_examples=25, deadline=None)
@given(case=gpu_sets(), key=st.sampled_from(KEYS))
def test_exhaustive_accepts_what_the_heuristic_accepts(case, key):
    m, ts = case
    exhaustive = sum(1 for _ in P.candidates(ts, "part-exhaustive"))
    if exhaustive <= 2000 and PART[key].reference(ts, m) is True:
        assert EXH[key].reference(ts, m, budget=exhaustive) is True


def _simulate_accepted(key, derived, m, seed):
    """An accepted derived set never misses, one preemptive scheduler per partition; responses within the bounds."""
    explained = INNER[key].explain(derived, m)
    assert explained.verdict is True
    bounds = explained.evidence["response_times"]
    ranks = explained.evidence.get("gpu_priorities") if key[0] == "gcaps-gpa" else None
    driver = derived.driver or GPUDriver()
    horizon = 6 * max(t.T for t in derived)
    for run in (
        {"arrivals": "periodic", "execution": "wcet"},
        {"arrivals": "sporadic", "execution": "random", "seed": seed},
    ):
        trace = simulate_segmented(
            derived,
            m,
            protocol=PROTOCOL[key[0]],
            mode=key[1],
            horizon=horizon,
            epsilon=driver.epsilon,
            time_slice=(driver.time_slice or DEFAULT_L) if key[0] == "tsg" else None,
            gpu_priorities=None if ranks is None else list(ranks),
            **run,
        )
        assert trace.schedulable_so_far, (derived, run)
        for r, b in zip(trace.response_times, bounds, strict=True):
            assert r is None or r <= b


def _soundness(examples, at_least):
    """The heuristic's accepted candidate and an accepted candidate of two or more partitions never miss."""
    reach = {"accepted": 0, "split": 0}

    @settings(max_examples=examples, deadline=None, derandomize=True)
    @given(case=gpu_sets(), key=st.sampled_from(KEYS), seed=st.integers(0, 2**16))
    def prop(case, key, seed):
        m, ts = case
        found = P.search_with(ts, m, PART_INNER[key], search="part", budget=P.DEFAULT_BUDGETS["part"])
        if found.verdict is True:
            reach["accepted"] += 1
            _simulate_accepted(key, found.chosen.derived, m, seed)
        for n, cand in enumerate(P.candidates(ts, "part-exhaustive")):
            if n >= 60:
                break
            if cand.derived is not None and len(cand.sizes) > 1 and INNER[key].reference(cand.derived, m):
                reach["split"] += 1
                _simulate_accepted(key, cand.derived, m, seed)
                break

    prop()
    assert reach["accepted"] >= at_least, reach
    assert reach["split"] >= at_least // 2, reach


def _inners():
    from rtsched.analyses.segmented import partitions_preemptive as PP

    return {key: PP.inner(key[0], key[1]) for key in KEYS}


PART_INNER = _inners()


def test_soundness_against_the_simulator():
    """120 draws: at least 15 accepted sets and 7 accepted multi-partition candidates simulated."""
    _soundness(120, 15)


@pytest.mark.slow
def test_soundness_against_the_simulator_long():
    """Ten times RTSCHED_PROPERTY_EXAMPLES (default 150) draws."""
    n = 10 * int(os.environ.get("RTSCHED_PROPERTY_EXAMPLES", "150"))
    _soundness(n, n // 20)
