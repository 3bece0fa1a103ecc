"""Partitioned FP mixed criticality (Kelly, Aydin, Zhao 2011 heuristics; AMC admission per core): example, kernel, soundness.

The worked example is computed by hand in papers/kelly-aydin-zhao2011-partitioned-mc.md.
"""

from __future__ import annotations

import os
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rtsched.analyses.mixed_criticality import amc2011 as amc
from rtsched.analyses.mixed_criticality import partitioned_fp as pfp
from rtsched.mc.model import MCBatch, MCTask, MCTaskSet
from rtsched.testing.strategies import mc_tasksets

EXAMPLES = int(os.environ.get("RTSCHED_PROPERTY_EXAMPLES", "150"))

#: The note's example: τ0 = LO (3, 4), τ1 = HI (1, 3, 4), τ2 = HI (2, 5, 10), τ3 = LO (2, 5).
EXAMPLE = MCTaskSet([MCTask.lo(3, T=4), MCTask.hi(1, 3, T=4), MCTask.hi(2, 5, T=10), MCTask.lo(2, T=5)])

sets = mc_tasksets(min_size=1, max_size=7, max_period=20, deadlines="constrained")


@pytest.mark.parametrize(
    ("fit", "test", "m", "cores", "verdict"),
    [
        pytest.param("ff", "amc-max", 2, [0, 0, 1, 1], True, id="ff-amc-max-m2"),
        pytest.param("wf", "amc-max", 2, [0, 0, 1, 1], True, id="wf-amc-max-m2"),
        pytest.param("ff", "amc-rtb", 2, [0, 0, 1, 1], True, id="ff-amc-rtb-m2"),
        pytest.param("ff", "amc-max", 1, [None, 0, None, None], False, id="ff-amc-max-m1"),
    ],
)
def test_worked_example(fit: str, test: str, m: int, cores: list[int | None], verdict: bool) -> None:
    assert pfp.task_order(EXAMPLE) == [1, 2, 0, 3]  # HI by C(HI)/T: 3/4, 1/2; LO by C/T: 3/4, 2/5
    core_of, _orders, failed = pfp.partition(EXAMPLE, m, fit, test)
    assert core_of == cores
    assert (failed is None) is verdict
    assert pfp.reference(EXAMPLE, m, fit=fit, test=test) is verdict
    assert pfp.codes(MCBatch.from_tasksets([EXAMPLE]), m, fit=fit, test=test).tolist() == [int(verdict)]
    e = pfp.explain(EXAMPLE, m, fit=fit, test=test)
    assert e.verdict is verdict
    assert [row["core"] for row in e.per_task] == ["-" if c is None else c for c in cores]


def test_worst_fit_tries_the_lighter_core_first() -> None:
    """τ0 goes to core 1 first under WF (load 1/2 < 3/4) and fails there: AMC-max's switch at s = 4 gives τ2 R = 11 > 10."""
    steps = [s.text for s in pfp._steps(EXAMPLE, 2, "wf", "amc-max")]
    assert "τ0 → core 0 (fails on cores [1])" in steps
    core = MCTaskSet([EXAMPLE[2], EXAMPLE[0]])
    assert amc.assign_opa(core, "amc-max") is None
    assert amc.lo_response(core, 0, [1]) == (8, True)
    assert amc.switch_instants(core, [1], 8) == [0, 4]
    assert amc._amc_max_at(core, 0, [1], 4) == (11, False)  # C(HI) 5 + I_L(4) = 2·3: 11 > 10
    assert amc.lo_response(core, 1, [0]) == (5, False)  # τ0 below τ2: 3 + 2 = 5 > 4


@settings(max_examples=max(10, EXAMPLES // 3), deadline=None)
@given(st.lists(sets, min_size=1, max_size=5), st.integers(1, 3))
def test_kernel_equals_reference(batch_sets: list[MCTaskSet], m: int) -> None:
    batch = MCBatch.from_tasksets(batch_sets)
    for fit in pfp.FITS:
        for test in ("amc-max", "amc-rtb"):
            raw = pfp.raw_codes(batch, m, fit=fit, test=test).tolist()
            want = [int(pfp.reference(ts, m, fit=fit, test=test)) for ts in batch_sets]
            assert all(r == w for r, w in zip(raw, want, strict=True) if r != 2), (fit, test, raw, want)
            assert pfp.codes(batch, m, fit=fit, test=test).tolist() == want


@settings(max_examples=EXAMPLES, deadline=None)
@given(sets)
def test_one_core_is_the_uniprocessor_test(ts: MCTaskSet) -> None:
    """On m = 1 both fits accept iff the set passes the test with OPA (the heuristic adds nothing)."""
    for test in ("amc-max", "amc-rtb"):
        want = amc.reference(ts, test=test, priorities="opa")
        for fit in pfp.FITS:
            assert pfp.reference(ts, 1, fit=fit, test=test) == want


@settings(max_examples=EXAMPLES, deadline=None)
@given(sets, st.integers(1, 3))
def test_assignment_passes_per_core(ts: MCTaskSet, m: int) -> None:
    """Every core's tasks, in the priority order shown, pass the uniprocessor test; AMC-rtb placement implies AMC-max's."""
    for fit in pfp.FITS:
        core_of, orders, failed = pfp.partition(ts, m, fit, "amc-max")
        for c, order in enumerate(orders):
            assert sorted(order) == [i for i in range(ts.n) if core_of[i] == c]
            if order:
                core = MCTaskSet(ts[i] for i in order)
                assert amc.reference(core, test="amc-max", priorities="given")
        if failed is None:
            assert None not in core_of
    # first fit: a set AMC-rtb places, AMC-max places too (each admission is implied; same order of tries)
    if pfp.reference(ts, m, fit="ff", test="amc-rtb"):
        assert pfp.reference(ts, m, fit="ff", test="amc-max")


def _random_set(rng: random.Random) -> MCTaskSet:
    tasks = []
    for _ in range(rng.randint(2, 6)):
        T = rng.choice([3, 4, 5, 6, 8, 10, 12, 15, 20])
        D = rng.randint(max(1, T // 2), T)
        c = rng.randint(1, max(1, D // 2))
        tasks.append(MCTask.hi(c, rng.randint(c, D), T, D) if rng.random() < 0.5 else MCTask.lo(c, T, D))
    return MCTaskSet(tasks)


def test_soundness_against_simulator() -> None:
    """Accepted partitions never miss under the partitioned AMC simulator (own mode per core)."""
    from rtsched.mc.sim import simulate_mc, switch_search

    rng = random.Random(2011)
    checked = 0
    while checked < 60:
        ts = _random_set(rng)
        m = rng.randint(2, 3)
        fit = rng.choice(pfp.FITS)
        test = rng.choice(("amc-max", "amc-rtb"))
        core_of, orders, failed = pfp.partition(ts, m, fit, test)
        if failed is not None:
            continue
        checked += 1
        priorities = [i for order in orders for i in order]
        options = {
            "scheduler": "partitioned", "partition": core_of, "core_scheduler": "fp",
            "priorities": priorities, "policy": "amc",
        }  # fmt: skip
        for scenario in ("hi", "random"):
            for arrivals in ("periodic", "sporadic"):
                trace = simulate_mc(ts, m, scenario=scenario, arrivals=arrivals, seed=checked, horizon=300, **options)
                assert trace.miss is None, (ts, m, fit, test, str(trace))
        search = switch_search(ts, m, **options)
        assert search.failure is None, (ts, m, fit, test, search.summary())


def test_registry_entries() -> None:
    from rtsched.registry import get

    batch = MCBatch.from_tasksets([EXAMPLE])
    for name in ("mc-pfp-ff-amc-max", "mc-pfp-wf-amc-max", "mc-pfp-ff-amc-rtb", "mc-pfp-wf-amc-rtb"):
        entry = get(name)
        assert entry.status(batch, 2).tolist() == [1]
        assert entry.status(batch, 1).tolist() == [0]
        assert entry.explain(EXAMPLE, 2).verdict is True
