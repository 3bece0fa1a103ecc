"""seg-{mpcp,fmlp,gcaps}-{busy,suspend}-{ffd,wfd} (analyses/segmented/assignment_contended.py): task-to-core
assignment whose admission test is the contended analysis on the whole partial set.

Placements by hand (a placement refused because it breaks a task on *another* core; ffd against wfd), codes ==
reference == explain, every placed prefix and the final placed set accepted by the inner analysis, the placed sets
against simulate_segmented under the matching protocol, ffd monotone in m (proved in the module docstring; wfd is not),
bad input."""

from __future__ import annotations

import os
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rtsched.testing.strategies as rst
from rtsched import registry
from rtsched.analyses.segmented import assignment_contended as ac
from rtsched.errors import InputError
from rtsched.segmented.model import GPUSegment, SegmentedBatch, SegmentedTask, SegmentedTaskSet
from rtsched.segmented.sim import simulate_segmented

EXAMPLES = int(os.environ.get("RTSCHED_PROPERTY_EXAMPLES", "150"))
INNER = tuple(ac.INNER)
NAMES = tuple(f"{inner}-{fit}" for inner in INNER for fit in ("ffd", "wfd"))
PROTOCOL = {"mpcp": "mpcp", "fmlp": "fmlp+", "gcaps": "gcaps"}

pytestmark = pytest.mark.usefixtures("one_numba_thread")  # tests/conftest.py


def _split(name: str) -> tuple[str, str, str, str]:
    """'seg-mpcp-suspend-ffd' -> (inner 'seg-mpcp-suspend', protocol 'mpcp', mode 'suspend', fit 'ffd')."""
    inner, fit = name.rsplit("-", 1)
    _, proto, mode = inner.split("-")
    return inner, PROTOCOL[proto], mode, fit


#: T = D = 100, one GPU, no cores given; priority = task order.
#: t0: CPU only, C = 50 (U 0.5); t1: 1, (0, 20), 1 (U 0.22); t2: 1, (0, 30), 1 (U 0.32).
EXAMPLE = SegmentedTaskSet(
    [
        SegmentedTask((50,), (), T=100, name="t0"),
        SegmentedTask((1, 1), (GPUSegment(0, 20),), T=100, name="t1"),
        SegmentedTask((1, 1), (GPUSegment(0, 30),), T=100, name="t2"),
    ]
)


@pytest.mark.parametrize(
    ("inner", "bounds"),
    [
        pytest.param("seg-mpcp-suspend", (50, 52, 52), id="mpcp"),
        pytest.param("seg-fmlp-suspend", (50, 52, 52), id="fmlp"),
        pytest.param("seg-gcaps-suspend", (50, 22, 52), id="gcaps"),
    ],
)
def test_placement_by_hand(inner, bounds):
    """Placement order t0 (0.5), t2 (0.32), t1 (0.22); G_m = 0, so no boosting, H = G (one device); t0 never suspends.

    m = 2, ffd: t0 → 0. t2 → 0: R_2 = 32 + 50 = 82 (t1 not placed: no waiting). t1 on core 0 (above t2): MPCP and
    FMLP+ own_1 = 22 + W = 22 + (H_2 = G_2 = 30) = 52, R_1 = 52 + 50 = 102 > 100; GCAPS R_1 = 22 + 50 = 72 but t2's device bound
    B = 30 + ⌈(B + 72 − 20)/100⌉·20 = 70, R_2 ≥ 2 + 70 + 50 > 100. t1 on core 1: R_1 = 52 (GCAPS 22), but t2 on core 0
    now waits for t1's segment: MPCP W = ⌈(W + 52)/100⌉·20 = 20, FMLP+ W = H_1 = 20: own_2 = 32 + 20 = 52; GCAPS
    B = 30 + ⌈(B + 22 − 20)/100⌉·20 = 50, own_2 = 2 + 50 = 52; R_2 = own_2 + 50 > 100: refused because of t2, a task
    on another core. t1 fits no core. The contention-free admission (seg-jitter-suspend-ffd) puts all three on core 0
    (R_1 = 22 + 50 = 72, R_2 = 32 + 50 + ⌈(R + 70)/100⌉·2 = 86): it does not see the GPU waits.

    m = 3, wfd: t0 → 0, t2 → 1 (loads 0, 0: lowest index), t1 → 2: R = 50, 52, 52 (GCAPS 50, 22, 52).
    m = 3, ffd: t0, t2 → 0 and t1 refused by cores 0, 1 and 2 (t2 beside t0 fails once t1 is placed).
    m = 2, wfd: t0 → 0, t2 → 1, t1 → 1 (load 0.32 < 0.5), above t2: accepted where ffd is not."""
    out = registry.get(f"{inner}-ffd").explain(EXAMPLE, 2)
    assert out.verdict is False
    assert out.evidence["assignment"] == (0, None, 0)
    assert out.evidence["failing_task"] == 1
    assert out.evidence["trials"] == ((0, 0, True), (2, 0, True), (1, 0, False), (1, 1, False))
    steps = [str(s) for s in out.steps]
    refused_on_1 = next(s for s in steps if "τ1 (t1)" in s and "on core 1: refused" in s)
    assert "τ2 (t2)" in refused_on_1  # the failing task is t2 on core 0, not the task being placed
    assert "fits no core" in out.summary
    assert registry.get("seg-jitter-suspend-ffd").explain(EXAMPLE, 2).evidence["assignment"] == (0, 0, 0)

    out = registry.get(f"{inner}-wfd").explain(EXAMPLE, 3)
    assert out.verdict is True
    assert out.evidence["assignment"] == (0, 2, 1)
    assert out.evidence["response_times"] == bounds
    assert [row["R"] for row in out.per_task] == list(bounds)
    assert [row["placed"] for row in out.per_task] == [1, 3, 2]
    assert registry.get(inner).reference(EXAMPLE.with_cores([0, 2, 1]), 3) is True
    drawn = EXAMPLE.with_cores([7, 7, 7])  # the tasks' own cores are ignored, even outside 0..m-1
    assert registry.get(f"{inner}-wfd").explain(drawn, 3).evidence["assignment"] == (0, 2, 1)
    assert registry.get(f"{inner}-wfd").status(SegmentedBatch.from_tasksets([drawn]), 3).tolist() == [1]

    assert registry.get(f"{inner}-wfd").explain(EXAMPLE, 2).evidence["assignment"] == (0, 1, 1)
    out = registry.get(f"{inner}-ffd").explain(EXAMPLE, 3)
    assert out.verdict is False
    assert [t[1] for t in out.evidence["trials"] if t[0] == 1] == [0, 1, 2]
    batch = SegmentedBatch.from_tasksets([EXAMPLE])
    for fit, m, expected in (("ffd", 2, 0), ("wfd", 3, 1), ("ffd", 3, 0), ("wfd", 2, 1)):
        assert registry.get(f"{inner}-{fit}").status(batch, m).tolist() == [expected], (fit, m)


def test_the_registry_entries():
    """Policy, kinds and the call each entry declares are those of its admission analysis."""
    for name in NAMES:
        inner, _, _, fit = _split(name)
        entry, base = registry.get(name), registry.get(inner)
        assert entry.policy == base.policy and entry.workload is base.workload
        assert entry.calls == (inner,) and entry.kind == "sufficient" and entry.note == base.note


def _unplaced(cap: float = 0.3):
    """(set, m): two to six tasks, their drawn cores ignored, each drawn core's load at most ``cap``, one or two devices."""
    return st.integers(1, 3).flatmap(
        lambda m: st.tuples(
            st.sampled_from([("gpu",), ("g0", "g1")]).flatmap(
                lambda devs: rst.segmented_tasksets(
                    min_size=2, max_size=6, max_utilization=cap, m=m, max_period=60, devices=devs
                )
            ),
            st.just(m),
        )
    )


@settings(max_examples=max(20, EXAMPLES // 3), deadline=None)
@given(drawn=_unplaced(), name=st.sampled_from(NAMES))
def test_codes_equal_reference_and_every_prefix_passes(drawn, name):
    """Kernel path == reference == explain; each placed prefix (placement order, final cores) passes the inner
    analysis, and so does the whole placed set when accepted (the soundness argument of the module docstring)."""
    ts, m = drawn
    inner, _, _, fit = _split(name)
    entry, base = registry.get(name), registry.get(inner)
    ref = entry.reference(ts, m)
    assert entry.status(SegmentedBatch.from_tasksets([ts]), m).tolist() == [int(ref)]
    out = entry.explain(ts, m)
    assert out.verdict is ref
    cores = out.evidence["assignment"]
    placed = [i for i in ac.placement_order(ts) if cores[i] is not None]
    for k in range(1, len(placed) + 1):
        prefix = [cores[i] if i in placed[:k] else None for i in range(ts.n)]
        assert base.reference(ac.partial_set(ts, prefix)[0], m) is True
    if ref:
        assert len(placed) == ts.n
        assert base.reference(ts.with_cores(list(cores)), m) is True
        assert out.evidence["response_times"] == base.explain(ts.with_cores(list(cores)), m).evidence["response_times"]
    else:
        assert out.evidence["failing_task"] == ac.placement_order(ts)[len(placed)]


def _random_sets(seed: int, count: int) -> list[SegmentedTaskSet]:
    rng = random.Random(seed)
    sets = []
    for _ in range(count):
        tasks = []
        for _ in range(rng.randint(1, 7)):
            T = rng.randint(10, 80)
            gpu = [
                GPUSegment(rng.randint(0, 3), rng.randint(1, 10), rng.choice(("g0", "g1")))
                for _ in range(rng.randint(0, 2))
            ]
            cpu = [rng.randint(0, 5) for _ in range(len(gpu) + 1)]
            cpu[-1] += 1
            work = sum(cpu) + sum(g.G for g in gpu)
            if work > T:
                T = work + rng.randint(0, 10)
            mode = rng.choice((None, "busy", "suspend"))
            tasks.append(SegmentedTask(tuple(cpu), tuple(gpu), T, rng.randint(work, T), rng.randint(0, 3), mode))
        sets.append(SegmentedTaskSet(tasks))
    return sets


def test_codes_over_a_batch():
    """One batch of 80 sets (several set sizes, two devices, own modes): codes == reference per set, m = 1, 2, 4."""
    sets = _random_sets(11, 80)
    batch = SegmentedBatch.from_tasksets(sets)
    accepted = 0
    for name in NAMES:
        inner, _, _, fit = _split(name)
        for m in (1, 2, 4):
            ref = [int(ac.reference(ts, m, inner=inner, fit=fit)) for ts in sets]
            assert registry.get(name).status(batch, m).tolist() == ref, (name, m)
            accepted += sum(ref)
    assert accepted >= 200  # the comparison sees both verdicts


@pytest.mark.parametrize(
    "name", ["seg-mpcp-suspend-wfd", "seg-fmlp-busy-ffd", "seg-gcaps-suspend-ffd", "seg-gcaps-busy-wfd"]
)
def test_placed_sets_meet_every_deadline_in_simulation(name):
    """Whenever the heuristic places every task, the placed set misses nothing and no observed response exceeds its
    bound in simulate_segmented under the inner analysis's protocol and mode (periodic/WCET, sporadic/random);
    derandomized, with a reach count of accepted sets where two tasks share a device on different cores."""
    _soundness(name, 120, 15, 5)


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_placed_sets_meet_every_deadline_in_simulation_long(name):
    """Every heuristic, 4 x RTSCHED_PROPERTY_EXAMPLES (default 150) draws each."""
    n = 4 * EXAMPLES
    _soundness(name, n, n // 10, n // 40)


def _soundness(name: str, examples: int, accepted: int, remote: int) -> None:
    inner, protocol, mode, _ = _split(name)
    entry = registry.get(name)
    reach = {"accepted": 0, "remote": 0}

    @settings(max_examples=examples, deadline=None, derandomize=True)
    @given(drawn=_unplaced(0.6), seed=st.integers(0, 2**16))
    def prop(drawn, seed):
        ts, m = drawn
        out = entry.explain(ts, m)
        if out.verdict is not True:
            return
        reach["accepted"] += 1
        cores = out.evidence["assignment"]
        placed = ts.with_cores(list(cores))
        reach["remote"] += any(
            d in ts[a].devices() and d in ts[b].devices() and cores[a] != cores[b]
            for a in range(ts.n)
            for b in range(a)
            for d in ts.devices
        )
        bounds = out.evidence["response_times"]
        longest = max(t.T for t in ts)
        for run in (
            dict(arrivals="periodic", execution="wcet", horizon=6 * longest),
            dict(arrivals="sporadic", execution="random", horizon=12 * longest, seed=seed),
        ):
            trace = simulate_segmented(placed, m, protocol=protocol, mode=mode, **run)
            assert trace.schedulable_so_far, (placed, m, run, trace.misses[:1])
            for r, b in zip(trace.response_times, bounds, strict=True):
                assert r is None or r <= b, (placed, m, run, trace.response_times, bounds)

    prop()
    assert reach["accepted"] >= accepted and reach["remote"] >= remote, reach


@settings(max_examples=max(20, EXAMPLES // 3), deadline=None)
@given(drawn=_unplaced(), inner=st.sampled_from(INNER))
def test_ffd_monotone_in_m(drawn, inner):
    """Proved in the module docstring: ffd accepting on m cores accepts on m + 1 with the same cores."""
    ts, m = drawn
    entry = registry.get(f"{inner}-ffd")
    out = entry.explain(ts, m)
    if out.verdict is True:
        more = entry.explain(ts, m + 1)
        assert more.verdict is True
        assert more.evidence["assignment"] == out.evidence["assignment"]


def test_bad_input():
    with pytest.raises(InputError, match="at least one core"):
        ac.reference(EXAMPLE, 0, inner="seg-mpcp-suspend", fit="ffd")
    with pytest.raises(InputError, match="at least one core"):
        ac.codes(SegmentedBatch.from_tasksets([EXAMPLE]), 0, inner="seg-mpcp-suspend", fit="ffd")
    with pytest.raises(InputError, match="fit must be one of"):
        ac.reference(EXAMPLE, 2, inner="seg-mpcp-suspend", fit="bfd")
    with pytest.raises(InputError, match="admission analysis must be one of"):
        ac.explain(EXAMPLE, 2, inner="seg-oblivious", fit="ffd")
    with pytest.raises(InputError):
        registry.get("seg-fmlp-suspend-wfd").status(SegmentedBatch.from_tasksets([EXAMPLE]), 0)


def test_check_a_bad_file_names_the_task(tmp_path, capsys):
    """`rtsched check --tests seg-mpcp-suspend-ffd`: the heuristic's verdict (the file's cores are ignored) and the
    placement in --steps; a bad field is one line naming file, line, task and field, exit status 2."""
    from rtsched.cli import main

    good = tmp_path / "ok.yaml"
    good.write_text(
        "- {name: a, T: 20, core: 0, segments: [2, {G_m: 1, G_e: 3}, 1]}\n"
        "- {name: b, T: 10, core: 0, segments: [4]}\n"
        "- {name: c, T: 30, core: 0, segments: [1, {G_m: 2, G_e: 5}, 1]}\n",
        encoding="utf-8",
    )
    assert main(["check", str(good), "-m", "2", "--tests", "seg-mpcp-suspend-ffd,seg-gcaps-busy-wfd", "--steps"]) == 0
    out = capsys.readouterr().out
    assert "seg-mpcp-suspend-ffd" in out and "accepts the partial set" in out
    bad = tmp_path / "bad.yaml"
    bad.write_text(good.read_text(encoding="utf-8").replace("T: 10", "T: -10"), encoding="utf-8")
    assert main(["check", str(bad), "-m", "2", "--tests", "seg-mpcp-suspend-ffd"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(bad) in err and "line 2" in err and "field T" in err, err


def test_codes_equal_reference_on_the_gcaps_setup():
    """Six sets of the generator's GCAPS setup (12-24 tasks, 4 CPUs, one GPU; per-CPU utilization 0.2-0.4 so that
    the heuristics place some): codes == reference for every heuristic on m = 4."""
    import numpy as np

    from rtsched.generators.segmented import segmented_batch

    batch = segmented_batch(np.random.default_rng(np.random.SeedSequence(43)), 6, utilization=(0.2, 0.4))
    sets = batch.tasksets()
    accepted = 0
    for name in NAMES:
        ref = [int(registry.get(name).reference(ts, 4)) for ts in sets]
        assert registry.get(name).status(batch, 4).tolist() == ref, name
        accepted += sum(ref)
    assert 0 < accepted < 6 * len(NAMES)
