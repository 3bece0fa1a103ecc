"""seg-{mpcp,fmlp}-{busy,suspend}-part[-exhaustive]: lock-based analyses on GPU partitions (papers/cpu-gpu-partitions.md).

The note's worked example by hand (the whole GPU fails, two partitions of one cluster pass with
G_e' = ⌈6·6/5⌉ = 8), co-runner and count-only factors, unmeasured sizes, the budget, the proved
relations (the exhaustive candidates contain the heuristic's, so it accepts whatever the
heuristic accepts; one partition of the whole GPU gives the inner verdict; G_e' never falls when
K grows, and co-runner factors never exceed count-only ones; without a GPU description the
verdict is the inner analysis's), kernel == reference, and soundness of accepted sets against
simulate_segmented on their derived sets.
"""

import os
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rtsched.testing.strategies as rst
from rtsched import registry
from rtsched.analyses.segmented import partitions as P
from rtsched.errors import InputError
from rtsched.gpu import AmdahlWCET, Slowdown, TableWCET, layout_space
from rtsched.segmented.model import GPUDescription, GPUSegment, SegmentedBatch, SegmentedTask, SegmentedTaskSet
from rtsched.segmented.sim import simulate_segmented

INNER = {(p, mode): registry.get(f"seg-{p}-{mode}") for p in ("mpcp", "fmlp") for mode in ("busy", "suspend")}
PART = {(p, mode): registry.get(f"seg-{p}-{mode}-part") for p in ("mpcp", "fmlp") for mode in ("busy", "suspend")}
EXH = {
    (p, mode): registry.get(f"seg-{p}-{mode}-part-exhaustive") for p in ("mpcp", "fmlp") for mode in ("busy", "suspend")
}
PROTOCOL = {"mpcp": "mpcp", "fmlp": "fmlp+"}

#: The note's worked example: M = 2 clusters, f(1) = 6/5, two tasks on two cores, C(1) = 6, C(2) = G_e = 5.
GPU2 = GPUDescription(2, Slowdown((), Fraction(6, 5)))
WORKED = SegmentedTaskSet(
    [
        SegmentedTask((1, 1), (GPUSegment(2, 5, profile=TableWCET((6, 5))),), 12, core=0, name="a"),
        SegmentedTask((1, 1), (GPUSegment(2, 5, profile=TableWCET((6, 5))),), 12, core=1, name="b"),
    ],
    gpu=GPU2,
)


def test_worked_example_by_hand():
    """Whole GPU: own 2 + 7 = 9, waiting for b's holding 7: 16 > 12. Layout 1+1: G_e' = ⌈6·6/5⌉ = 8, R = 2 + 2 + 8 = 12."""
    for key in INNER:
        assert INNER[key].reference(WORKED, 2) is False
        assert INNER[key].verdict(WORKED, 2) is False
    whole = P.derive(WORKED, (2,), (0, 0))
    assert [t.G_e for t in whole.derived] == [5, 5]
    inner = INNER["mpcp", "suspend"].explain(whole.derived, 2)
    assert inner.evidence["response_times"][0] is None
    assert (inner.per_task[0]["ΣW"], inner.per_task[0]["own"]) == (7, 16)  # b's holding 7: 9 + 7 = 16 > 12
    split = P.derive(WORKED, (1, 1), (0, 1))
    assert [(x.C, x.f, x.G_e) for x in split.inflated] == [(6, Fraction(6, 5), 8)] * 2
    assert [t.gpu[0].device for t in split.derived] == ["gpu.p0", "gpu.p1"]
    for key in PART:
        assert PART[key].reference(WORKED, 2) is True
        assert PART[key].verdict(WORKED, 2) is True
        assert EXH[key].reference(WORKED, 2) is True
        assert EXH[key].verdict(WORKED, 2) is True
    result = PART["mpcp", "suspend"].explain(WORKED, 2)
    assert result.verdict is True
    ev = result.evidence
    assert (ev["layout"], list(ev["sizes"]), ev["idle_clusters"]) == ("1+1", [1, 1], 0)
    assert ev["assignment"] == "τ0 (a) → gpu.p0, τ1 (b) → gpu.p1"
    assert [x["G_e'"] for x in ev["inflated"]] == [8, 8]
    assert ev["candidates_considered"] == 2  # the whole GPU first, then 1+1
    assert [row["R"] for row in result.per_task] == [12, 12]
    assert "G_e' = ⌈6·6/5⌉ = 8" in str(result.steps)


def test_worked_example_in_simulation():
    """The derived set of 1+1 runs with responses 12 (wcet, periodic): exactly the bound; the whole GPU misses."""
    split = P.derive(WORKED, (1, 1), (0, 1)).derived
    whole = P.derive(WORKED, (2,), (0, 0)).derived
    trace = simulate_segmented(split, 2, protocol="mpcp", mode="suspend", horizon=120)
    assert trace.schedulable_so_far
    assert trace.response_times == (12, 12)
    # on the whole GPU each job holds the one device for G_m + G_e = 7 ticks: 14 > 12 per period, a real miss
    trace = simulate_segmented(whole, 2, protocol="mpcp", mode="suspend", horizon=120)
    assert not trace.schedulable_so_far


def test_example_file():
    """examples/segmented_partitions.yaml: the whole A100 fails, MIG 4g + 3g passes with the G_e' its comment states."""
    from pathlib import Path

    from rtsched.segmented.files import read_segmented_tasksets

    (ts,) = read_segmented_tasksets(Path(__file__).resolve().parents[3] / "examples" / "segmented_partitions.yaml")
    assert INNER["mpcp", "suspend"].verdict(ts, 2) is False
    result = PART["mpcp", "suspend"].explain(ts, 2)
    assert result.verdict is True and result.evidence["layout"] == "4+3"
    assert result.evidence["candidates_considered"] == 2
    assert [x["G_e'"] for x in result.evidence["inflated"]] == [6, 9, 5]
    assert result.evidence["assignment"] == "τ0 (camera) → gpu.p0, τ1 (detect) → gpu.p1, τ2 (track) → gpu.p1"
    assert EXH["mpcp", "suspend"].verdict(ts, 2) is True


def test_co_runner_rows_and_count_only():
    """Both segments of class compute with f(1 | compute) = 11/10: G_e' = ⌈6·11/10⌉ = 7; count-only keeps 8."""
    rows = (("compute", Slowdown((), Fraction(11, 10))),)
    gpu = GPUDescription(2, Slowdown((), Fraction(6, 5)), slowdown_by=rows)
    tasks = [t.replace(gpu=(GPUSegment(2, 5, profile=TableWCET((6, 5)), klass="compute"),)) for t in WORKED]
    ts = SegmentedTaskSet(tasks, gpu=gpu)
    assert [x.G_e for x in P.derive(ts, (1, 1), (0, 1)).inflated] == [7, 7]
    counted = ts.with_gpu(GPUDescription(2, Slowdown((), Fraction(6, 5)), slowdown_by=rows, interference="count-only"))
    assert [x.G_e for x in P.derive(counted, (1, 1), (0, 1)).inflated] == [8, 8]
    # one co-runner without a class counts as the worst class (memory: the cap 6/5)
    mixed = SegmentedTaskSet([tasks[0], WORKED[1]], gpu=gpu)
    assert [x.G_e for x in P.derive(mixed, (1, 1), (0, 1)).inflated] == [8, 7]


def test_unprofiled_segment_runs_on_the_whole_gpu_only():
    ts = SegmentedTaskSet([WORKED[0], WORKED[1].replace(gpu=(GPUSegment(2, 5),))], gpu=GPU2)
    cand = P.derive(ts, (1, 1), (0, 1))
    assert cand.derived is None and "C(1) not measured" in cand.why
    assert P.derive(ts, (2,), (0, 0)).derived is not None
    assert PART["mpcp", "suspend"].reference(ts, 2) is False
    assert EXH["mpcp", "suspend"].reference(ts, 2) is False
    # G_e = 0 without a profile stays 0 on any partition
    assert GPUSegment(3, 0).wcet_on(1, 4) == 0


def test_unmeasured_factor_fails_the_candidate():
    gpu = GPUDescription(2, Slowdown((), None))  # f(k) not measured for any k >= 1
    ts = WORKED.with_gpu(gpu)
    assert P.derive(ts, (1, 1), (0, 1)).derived is None
    assert PART["mpcp", "suspend"].reference(ts, 2) is False


def test_budget_gives_unknown():
    """The heuristic tries (2) then 1+1; the exhaustive search (2), (1) (one idle cluster), then 1+1."""
    for entry, enough in ((PART["mpcp", "suspend"], 2), (EXH["mpcp", "suspend"], 3)):
        for budget in range(1, enough):
            assert entry.reference(WORKED, 2, budget=budget) == "unknown"
            assert entry.verdict(WORKED, 2, budget=budget) == "unknown"
            assert entry.explain(WORKED, 2, budget=budget).verdict == "unknown"
        assert entry.reference(WORKED, 2, budget=enough) is True
        assert entry.verdict(WORKED, 2, budget=enough) is True


def test_no_gpu_description_is_the_inner_analysis():
    ts = WORKED.with_gpu(None)
    for key in PART:
        assert PART[key].reference(ts, 2) == INNER[key].reference(ts, 2)
        assert EXH[key].verdict(ts, 2) == INNER[key].verdict(ts, 2)
        assert "nothing to partition" in PART[key].explain(ts, 2).summary


def test_set_without_gpu_tasks_is_its_own_candidate():
    ts = SegmentedTaskSet([SegmentedTask((3,), (), 10, core=0)], gpu=GPU2)
    (cand,) = list(P.candidates(ts, "part"))
    assert cand.sizes == () and cand.derived == ts.with_gpu(None)
    assert PART["mpcp", "busy"].reference(ts, 1) is True


def test_derive_refuses_bad_assignments():
    with pytest.raises(InputError, match="exactly the tasks"):
        P.derive(WORKED, (2,), (0, None))
    with pytest.raises(InputError, match="every one of the 2 partitions"):
        P.derive(WORKED, (1, 1), (0, 0))
    with pytest.raises(InputError, match="no GPU description"):
        P.derive(WORKED.with_gpu(None), (2,), (0, 0))


def test_cores_are_checked_by_every_layer():
    ts = SegmentedTaskSet([WORKED[0].replace(core=None), WORKED[1].replace(gpu=(GPUSegment(2, 5),))], gpu=GPU2)
    for entry in (PART["mpcp", "busy"], EXH["fmlp", "suspend"]):
        for call in (entry.reference, entry.verdict, entry.explain):
            with pytest.raises(InputError, match="has no core"):
                call(ts, 2)


def test_device_names_do_not_clash():
    ts = SegmentedTaskSet(
        [*WORKED, SegmentedTask((1, 1), ((1, 2, "gpu.p0"),), 40, core=0)],
        gpu=GPU2,
    )
    cand = P.derive(ts, (1, 1), (0, 1, None))
    assert [t.gpu[0].device for t in cand.derived] == ["_gpu.p0", "_gpu.p1", "gpu.p0"]


def test_exhaustive_candidates_are_every_layout_and_assignment():
    """For 3 GPU tasks on M = 3 (free): every legal layout and every surjective assignment, once each (brute force)."""
    gpu = GPUDescription(3, Slowdown((), Fraction(1)))
    seg = GPUSegment(1, 2, profile=TableWCET((4, 3, 2)))
    ts = SegmentedTaskSet([SegmentedTask((1, 1), (seg,), 50, core=0) for _ in range(3)], gpu=gpu)
    got = [(c.sizes, c.assignment) for c in P.candidates(ts, "part-exhaustive")]
    assert len(got) == len(set(got))
    space = layout_space("free", 3)
    import itertools

    expected = set()
    for sizes in space.all_legal():
        K = len(sizes)
        for assignment in itertools.product(range(K), repeat=3):
            if set(assignment) != set(range(K)):
                continue
            # canonical form: partitions by decreasing size, ties by first task
            order = sorted(range(K), key=lambda p: (-sizes[p], assignment.index(p)))
            index = {p: j for j, p in enumerate(order)}
            expected.add((tuple(sizes[p] for p in order), tuple(index[a] for a in assignment)))
    assert set(got) == expected


@pytest.mark.parametrize(
    ("M", "spec"), [(1, "free"), (5, "free"), (6, "tpc:2"), (7, "tpc:2"), (7, "mig:a100"), (7, "mig:h100")]
)
def test_legal_layouts_are_the_spaces_legal_layouts(M, spec):
    space = layout_space(spec, M)
    for K in range(1, M + 1):
        got = list(P.legal_layouts(space, K))
        assert got == sorted((x for x in space.all_legal() if len(x) == K), reverse=True)


# ---------------------------------------------------------------------------------------------
# generated sets with a GPU description
# ---------------------------------------------------------------------------------------------

_SPACES = [(1, "free"), (2, "free"), (3, "free"), (4, "free"), (4, "tpc:2"), (7, "mig:a100")]


@st.composite
def gpu_sets(draw, max_size=4, max_gpu_tasks=4, spaces=_SPACES):
    """A segmented set on 1..3 cores whose segments on 'gpu' carry profiles, with a GPUDescription."""
    m = draw(st.integers(1, 3))
    devices = draw(st.sampled_from([("gpu",), ("gpu", "g1")]))
    ts = draw(rst.segmented_tasksets(max_size=max_size, max_utilization=0.5, m=m, max_period=40, devices=devices))
    M, layout = draw(st.sampled_from(spaces))
    classes = ("compute", "memory")
    tasks = []
    users = 0
    for t in ts:
        segs = []
        uses = False
        for g in t.gpu:
            if g.device != "gpu":
                segs.append(g)
                continue
            if users >= max_gpu_tasks:
                segs.append(GPUSegment(g.G_m, g.G_e, "g1"))
                continue
            uses = True
            klass = draw(st.sampled_from([None, *classes]))
            profile = None
            if g.G_e > 0 and draw(st.integers(0, 5)) > 0:
                if draw(st.booleans()):
                    extra = sorted((draw(st.integers(0, 6)) for _ in range(M - 1)), reverse=True)
                    profile = TableWCET(tuple(g.G_e + e for e in extra) + (g.G_e,))
                else:  # Amdahl with C(M) = G_e when it matches, else a table
                    p = Fraction(draw(st.integers(0, 10)), 10)
                    cand = AmdahlWCET(g.G_e, p)
                    profile = cand if cand.at(M) == g.G_e else TableWCET((g.G_e,))
            segs.append(GPUSegment(g.G_m, g.G_e, "gpu", profile, klass))
        users += uses
        tasks.append(t.replace(gpu=tuple(segs)))
    cap = Fraction(draw(st.integers(10, 16)), 10)
    row = Fraction(draw(st.integers(10, int(cap * 10))), 10)
    gpu = GPUDescription(
        M,
        Slowdown((), cap),
        layout=layout,
        slowdown_by=(("compute", Slowdown((), row)),) if draw(st.booleans()) else (),
        interference=draw(st.sampled_from(["co-runner", "count-only"])),
    )
    return m, SegmentedTaskSet(tasks, gpu=gpu)


@st.composite
def gpu_heavy_sets(draw):
    """Two to four tasks on one or two cores, most with one or two GPU segments on 'gpu' with profiles.

    GPU-heavy enough that the whole GPU often fails and partitions are tried and accepted.
    """
    m = draw(st.integers(1, 2))
    M, layout = draw(st.sampled_from(_SPACES[1:5]))
    tasks = []
    for _ in range(draw(st.integers(2, 4))):
        T = draw(st.integers(12, 50))
        eta = draw(st.sampled_from([0, 1, 1, 1, 2]))
        segs = []
        for _ in range(eta):
            G_e = draw(st.integers(1, 6))
            extra = sorted((draw(st.integers(0, 4)) for _ in range(M - 1)), reverse=True)
            klass = draw(st.sampled_from([None, "compute", "memory"]))
            segs.append(
                GPUSegment(draw(st.integers(0, 3)), G_e, "gpu", TableWCET((*(G_e + e for e in extra), G_e)), klass)
            )
        cpu = [draw(st.integers(0, 3)) for _ in range(eta + 1)]
        if sum(cpu) + sum(g.G for g in segs) == 0:
            cpu[0] = 1
        work = sum(cpu) + sum(g.G for g in segs)
        tasks.append(SegmentedTask(tuple(cpu), tuple(segs), max(T, work), core=draw(st.integers(0, m - 1))))
    cap = Fraction(draw(st.integers(10, 14)), 10)
    gpu = GPUDescription(
        M,
        Slowdown((), cap),
        layout=layout,
        slowdown_by=(("compute", Slowdown((), Fraction(draw(st.integers(10, int(cap * 10))), 10))),),
    )
    return m, SegmentedTaskSet(tasks, gpu=gpu)


KEYS = sorted(PART)


@settings(max_examples=60, deadline=None)
@given(case=gpu_sets(), key=st.sampled_from(KEYS), exhaustive=st.booleans())
def test_codes_equal_reference(case, key, exhaustive):
    m, ts = case
    entry = (EXH if exhaustive else PART)[key]
    budget = 300
    expected = entry.reference(ts, m, budget=budget)
    assert entry.status(SegmentedBatch.from_tasksets([ts]), m, budget=budget).tolist() == [
        {True: 1, False: 0, "unknown": -1}[expected]
    ]
    assert entry.explain(ts, m, budget=budget).verdict == expected


def test_codes_over_one_batch_equal_reference():
    import numpy as np

    rng = np.random.default_rng(11)
    sets = []
    for _ in range(25):
        M = int(rng.integers(1, 4))
        tasks = []
        for _ in range(int(rng.integers(1, 4))):
            T = int(rng.integers(15, 60))
            G_e = int(rng.integers(1, 6))
            profile = TableWCET(
                tuple(sorted((G_e + int(rng.integers(0, 5)) for _ in range(M - 1)), reverse=True)) + (G_e,)
            )
            tasks.append(SegmentedTask((1, 1), ((1, G_e, "gpu", profile),), T, core=int(rng.integers(0, 2))))
        gpu = GPUDescription(M, Slowdown((), Fraction(int(rng.integers(10, 15)), 10)))
        sets.append(SegmentedTaskSet(tasks, gpu=gpu if rng.integers(0, 4) else None))
    batch = SegmentedBatch.from_tasksets(sets)
    for key in KEYS:
        for table in (PART, EXH):
            got = table[key].status(batch, 2).tolist()
            assert got == [int(table[key].reference(ts, 2)) for ts in sets], key


@settings(max_examples=30, deadline=None)
@given(case=gpu_sets(max_gpu_tasks=3, spaces=_SPACES[:4]), key=st.sampled_from(KEYS))
def test_exhaustive_accepts_what_the_heuristic_accepts(case, key):
    """Proved: every candidate of the heuristic is a candidate of the exhaustive search (legal after dropping empties)."""
    m, ts = case
    heuristic = {(c.sizes, c.assignment) for c in P.candidates(ts, "part") if c.derived is not None}
    exhaustive = {(c.sizes, c.assignment) for c in P.candidates(ts, "part-exhaustive")}
    assert heuristic <= exhaustive
    if PART[key].reference(ts, m, budget=10_000) is True:
        assert EXH[key].reference(ts, m, budget=len(exhaustive)) is True


@settings(max_examples=40, deadline=None)
@given(case=gpu_sets(), key=st.sampled_from(KEYS))
def test_one_partition_of_the_whole_gpu_is_the_inner_analysis(case, key):
    """Layout (M) with every GPU task on it: G_e' = C(M)·f(0) = G_e, devices renamed: the inner verdict."""
    m, ts = case
    users = P.gpu_tasks(ts)
    if not users:
        return
    M = ts.gpu.clusters
    cand = P.derive(ts, (M,), tuple(0 if i in users else None for i in range(ts.n)))
    assert [t.G_e for t in cand.derived] == [t.G_e for t in ts]
    assert INNER[key].reference(cand.derived, m) == INNER[key].reference(ts.with_gpu(None), m)
    if INNER[key].reference(ts.with_gpu(None), m):
        assert PART[key].reference(ts, m) is True  # the heuristic's first candidate is this one


@settings(max_examples=60, deadline=None)
@given(case=gpu_sets(), size=st.integers(1, 7), worst=st.sampled_from([None, 0, 1]))
def test_inflation_never_falls_as_partitions_are_added(case, size, worst):
    """f(k | c) is non-decreasing in k (validated rows), so G_e' is too; co-runner rows never exceed count-only."""
    _, ts = case
    gpu = ts.gpu
    size = min(size, gpu.clusters)
    inf = float("inf")
    for t in ts:
        for g in t.gpu:
            if g.device != gpu.device:
                continue
            values = [P.inflated_wcet(g, size, k, worst, gpu) for k in range(0, 7)]
            numbers = [inf if v is None else v for v in values]
            assert numbers == sorted(numbers)
            counted = [P.inflated_wcet(g, size, k, None, gpu) for k in range(0, 7)]
            assert all(
                (inf if a is None else a) <= (inf if b is None else b) for a, b in zip(values, counted, strict=True)
            )


def _simulate_accepted(key, cand, m, seed):
    """The derived set of an accepted candidate never misses; observed responses stay within the inner bounds."""
    bounds = INNER[key].explain(cand.derived, m).evidence["response_times"]
    horizon = 6 * max(t.T for t in cand.derived)
    for run in (
        {"arrivals": "periodic", "execution": "wcet"},
        {"arrivals": "sporadic", "execution": "random", "seed": seed},
    ):
        trace = simulate_segmented(cand.derived, m, protocol=PROTOCOL[key[0]], mode=key[1], horizon=horizon, **run)
        assert trace.schedulable_so_far, (cand, run)
        for r, b in zip(trace.response_times, bounds, strict=True):
            assert r is None or r <= b


def _soundness(examples, at_least):
    """Accepted sets: the chosen derived set, and an accepted candidate of two or more partitions, never miss.

    Periodic/WCET and sporadic/random runs of six longest periods; the reach counts make sure
    accepted multi-partition candidates (inflated G_e' on partition devices) are exercised.
    """
    reach = {"accepted": 0, "split": 0}

    @settings(max_examples=examples, deadline=None, derandomize=True)
    @given(
        case=st.one_of(gpu_sets(max_size=4), gpu_heavy_sets(), gpu_heavy_sets()),
        key=st.sampled_from(KEYS),
        seed=st.integers(0, 2**16),
    )
    def prop(case, key, seed):
        m, ts = case
        kw = {"mode": key[1], "protocol": PROTOCOL[key[0]]}
        found = P.search(ts, m, search="part", budget=P.DEFAULT_BUDGETS["part"], **kw)
        if found.verdict is True:
            reach["accepted"] += 1
            _simulate_accepted(key, found.chosen, m, seed)
        for n, cand in enumerate(P.candidates(ts, "part-exhaustive")):
            if n >= 60:
                break
            if cand.derived is not None and len(cand.sizes) > 1 and INNER[key].reference(cand.derived, m):
                reach["split"] += 1
                _simulate_accepted(key, cand, m, seed)
                break

    prop()
    assert reach["accepted"] >= at_least, reach
    assert reach["split"] >= 3 * at_least // 4, reach


def test_soundness_against_the_simulator():
    """200 draws: at least 20 accepted sets and 15 accepted multi-partition candidates simulated."""
    _soundness(200, 20)


@pytest.mark.slow
def test_soundness_against_the_simulator_long():
    """Ten times RTSCHED_PROPERTY_EXAMPLES (default 150) draws (pyproject's rule for slow variants)."""
    n = 10 * int(os.environ.get("RTSCHED_PROPERTY_EXAMPLES", "150"))
    _soundness(n, n // 20)
