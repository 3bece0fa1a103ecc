"""SMC-no, SMC, AMC-rtb, AMC-max (Baruah, Burns, Davis, RTSS 2011): worked examples, kernel == reference, dominance, soundness.

The worked examples are computed by hand in papers/baruah-burns-davis2011-amc.md.
"""

from __future__ import annotations

import os
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rtsched.analyses.mixed_criticality import amc2011 as amc
from rtsched.mc.model import MCBatch, MCTask, MCTaskSet
from rtsched.testing.strategies import mc_tasksets

EXAMPLES = int(os.environ.get("RTSCHED_PROPERTY_EXAMPLES", "150"))

#: The note's example 1: SMC and AMC-rtb fail τ2, AMC-max passes it with R^* = D = 16.
EXAMPLE_1 = MCTaskSet([MCTask.hi(1, 2, T=4), MCTask.lo(1, T=4), MCTask.hi(5, 6, T=16)])
#: The note's example 2: DM (τ0 above τ1) fails, Audsley puts the HI task on top.
EXAMPLE_2 = MCTaskSet([MCTask.lo(1, T=2), MCTask.hi(1, 2, T=2)])

small_sets = mc_tasksets(min_size=1, max_size=5, max_period=30, deadlines="constrained")


@pytest.mark.parametrize(
    ("ts", "test", "priorities", "verdict"),
    [
        pytest.param(EXAMPLE_1, "smc-no", "dm", False, id="ex1-smc-no"),
        pytest.param(EXAMPLE_1, "smc", "dm", False, id="ex1-smc"),
        pytest.param(EXAMPLE_1, "amc-rtb", "dm", False, id="ex1-amc-rtb"),
        pytest.param(EXAMPLE_1, "amc-max", "dm", True, id="ex1-amc-max"),
        pytest.param(EXAMPLE_2, "amc-max", "dm", False, id="ex2-amc-max-dm"),
        pytest.param(EXAMPLE_2, "amc-max", "opa", True, id="ex2-amc-max-opa"),
        pytest.param(EXAMPLE_2, "smc", "opa", True, id="ex2-smc-opa"),
        pytest.param(EXAMPLE_2, "amc-rtb", "dm", False, id="ex2-amc-rtb-dm"),
    ],
)
def test_worked_verdicts(ts: MCTaskSet, test: str, priorities: str, verdict: bool) -> None:
    assert amc.reference(ts, test=test, priorities=priorities) is verdict
    assert amc.explain(ts, test=test, priorities=priorities).verdict is verdict
    batch = MCBatch.from_tasksets([ts])
    assert amc.codes(batch, test=test, priorities=priorities).tolist() == [int(verdict)]


def test_example_1_by_hand() -> None:
    """The note's hand computation of τ2 below τ0, τ1: (4) 11, (3) 18 > 16, (7) 17 > 16, AMC-max 15/16/16."""
    ts, hp = EXAMPLE_1, [0, 1]
    assert amc.lo_response(ts, 2, hp) == (11, True)  # 7 -> 9 -> 11 -> 11
    assert amc.smc_response(ts, 2, hp) == (18, False)  # 9 -> 15 -> 18 > 16
    assert amc.amc_rtb_response(ts, 2, hp, 11) == (17, False)  # 11 -> 15 -> 17 > 16
    assert amc.switch_instants(ts, hp, 11) == [0, 4, 8]
    assert [amc._amc_max_at(ts, 2, hp, s) for s in (0, 4, 8)] == [(15, True), (16, True), (16, True)]
    assert amc.amc_max_response(ts, 2, hp, 11) == (16, True, 4)
    assert amc.hi_response(ts, 2, hp) == (12, True)  # (5): 8 -> 10 -> 12 -> 12
    rows = amc.explain(ts, test="amc-max").per_task
    assert (rows[2]["R_LO"], rows[2]["R_HI"], rows[2]["R_switch"], rows[2]["worst_s"]) == (11, 12, 16, 4)
    assert amc.explain(ts, test="amc-rtb").per_task[2]["R_switch"] == "> 16"
    assert amc.explain(ts, test="smc").per_task[2]["R_HI"] == "> 16"
    failing = amc.explain(ts, test="amc-rtb").evidence
    assert failing["failing_task"] == 2
    assert "(7)" in str(failing["failing_term"])


def test_example_2_opa_order() -> None:
    assert amc.assign_opa(EXAMPLE_2, "amc-max") == [1, 0]
    assert amc.deadline_monotonic(EXAMPLE_2) == [0, 1]
    e = amc.explain(EXAMPLE_2, test="amc-max", priorities="dm")
    assert e.evidence["failing_task"] == 1
    assert "s = 0" in str(e.evidence["failing_term"])  # R(0) = C(HI) + I_L(0) = 2 + 1 = 3 > 2


@settings(max_examples=EXAMPLES, deadline=None)
@given(st.lists(small_sets, min_size=1, max_size=6))
def test_kernel_equals_reference(sets: list[MCTaskSet]) -> None:
    batch = MCBatch.from_tasksets(sets)
    for priorities in ("dm", "opa"):
        for test in amc.TESTS:
            got = amc.codes(batch, test=test, priorities=priorities).tolist()
            want = [int(amc.reference(ts, test=test, priorities=priorities)) for ts in sets]
            assert got == want, (test, priorities)


@settings(max_examples=max(10, EXAMPLES // 5), deadline=None)
@given(st.lists(mc_tasksets(min_size=1, max_size=5, min_period=10**6, max_period=2**31 - 1), min_size=1, max_size=4))
def test_kernel_equals_reference_on_large_times(sets: list[MCTaskSet]) -> None:
    """Times near MAX_TIME: the int64 terms ⌈R/T⌉·C reach 2**62 and stay exact."""
    batch = MCBatch.from_tasksets(sets)
    for priorities in ("dm", "opa"):
        for test in amc.TESTS:
            got = amc.codes(batch, test=test, priorities=priorities).tolist()
            assert got == [int(amc.reference(ts, test=test, priorities=priorities)) for ts in sets]


@settings(max_examples=EXAMPLES, deadline=None)
@given(small_sets)
def test_dominance_and_opa(ts: MCTaskSet) -> None:
    """SMC-no ⇒ SMC ⇒ AMC-rtb ⇒ AMC-max on the same priorities; OPA accepts what DM accepts."""
    for priorities in ("dm", "given"):
        verdicts = [amc.reference(ts, test=t, priorities=priorities) for t in amc.TESTS]
        for weaker, stronger in zip(verdicts, verdicts[1:], strict=False):
            assert stronger or not weaker, verdicts
    for test in amc.TESTS:
        dm = amc.reference(ts, test=test, priorities="dm")
        opa_order = amc.assign_opa(ts, test)
        assert (opa_order is not None) or not dm
        if opa_order is not None:  # the order Audsley returns passes the test as a given order
            assert amc.reference(ts.permuted(opa_order), test=test, priorities="given")


@settings(max_examples=EXAMPLES, deadline=None)
@given(small_sets)
def test_response_times_ordered(ts: MCTaskSet) -> None:
    """Per task on the given order: AMC-max's R^* ≤ AMC-rtb's R^* ≤ SMC's R whenever the weaker one is ≤ D."""
    for i in range(ts.n):
        if not ts[i].is_hi:
            continue
        hp = list(range(i))
        R_lo, lo_ok = amc.lo_response(ts, i, hp)
        smc, smc_ok = amc.smc_response(ts, i, hp)
        if smc_ok:
            assert lo_ok and R_lo <= smc
        if not lo_ok:
            continue
        rtb, rtb_ok = amc.amc_rtb_response(ts, i, hp, R_lo)
        if smc_ok:
            assert rtb_ok and rtb <= smc
        top, top_ok, _ = amc.amc_max_response(ts, i, hp, R_lo)
        if rtb_ok:
            assert top_ok and top <= rtb


@settings(max_examples=EXAMPLES, deadline=None)
@given(small_sets)
def test_smc_no_equals_smc_in_this_model(ts: MCTaskSet) -> None:
    """A LO task's C(HI) is its C(LO) here, so (2) and (3) have the same terms (see the note)."""
    assert amc.reference(ts, test="smc-no") == amc.reference(ts, test="smc")
    for i in range(ts.n):
        assert amc.smc_response(ts, i, range(i), monitored=False) == amc.smc_response(ts, i, range(i))


def test_registry_entries() -> None:
    from rtsched.registry import get

    batch = MCBatch.from_tasksets([EXAMPLE_1, EXAMPLE_2])
    expected = {
        "mc-smc-no-dm": [0, 0], "mc-smc-dm": [0, 0], "mc-amc-rtb-dm": [0, 0], "mc-amc-max-dm": [1, 0],
        "mc-smc-no-opa": [0, 1], "mc-smc-opa": [0, 1], "mc-amc-rtb-opa": [0, 1], "mc-amc-max-opa": [1, 1],
    }  # fmt: skip
    for name, codes in expected.items():
        entry = get(name)
        assert entry.status(batch, 1).tolist() == codes, name
        assert entry.explain(EXAMPLE_1, 1).verdict is bool(codes[0])
        assert entry.supports(2) is not None  # uniprocessor: m must be 1


# ---------------------------------------------------------------------------------------------
# soundness against the mode-switch simulator
# ---------------------------------------------------------------------------------------------


def _random_set(rng: random.Random) -> MCTaskSet:
    tasks = []
    for _ in range(rng.randint(2, 4)):
        T = rng.choice([3, 4, 5, 6, 8, 10, 12, 15, 20])
        D = rng.randint(max(1, T // 2), T)
        c = rng.randint(1, max(1, D // 2))
        tasks.append(MCTask.hi(c, rng.randint(c, D), T, D) if rng.random() < 0.5 else MCTask.lo(c, T, D))
    return MCTaskSet(tasks)


def _separating_set(rng: random.Random) -> MCTaskSet:
    """Implicit deadlines and C(HI) up to 4·C(LO): where AMC-max and AMC-rtb part (as the note's example 1)."""
    tasks = []
    for _ in range(3):
        T = rng.choice([4, 5, 6, 8, 10, 12, 15, 16, 20, 25, 30, 40])
        c = rng.randint(1, max(1, T // 3))
        tasks.append(MCTask.hi(c, rng.randint(c, min(T, 4 * c)), T) if rng.random() < 0.5 else MCTask.lo(c, T))
    return MCTaskSet(tasks)


def _accepted_sets(count: int, seed: int) -> list[tuple[MCTaskSet, str, list[int]]]:
    """Seeded sets with (test, priority order) pairs that the analyses accept, AMC-max-only ones first."""
    rng = random.Random(seed)
    out: list[tuple[MCTaskSet, str, list[int]]] = []
    tries = 0
    while len(out) < count and tries < 50 * count:
        tries += 1
        ts = _random_set(rng)
        for test in ("amc-max", "amc-rtb", "smc"):
            for priorities in ("dm", "opa"):
                order = amc.order_for(ts, priorities, test)
                if order is not None and amc.reference(ts, test=test, priorities=priorities):
                    out.append((ts, test, order))
    return out[:count]


def test_soundness_against_simulator() -> None:
    """No set an analysis accepts misses in simulation (FP, its policy; lo/hi/random; adversarial single overrun)."""
    from rtsched.mc.sim import simulate_mc, switch_search

    cases = _accepted_sets(120, seed=2011)
    assert len(cases) == 120
    rng = np.random.default_rng(44)
    for ts, test, order in cases:
        policy = "smc" if test == "smc" else "amc"
        for scenario in ("lo", "hi", "random"):
            for arrivals in ("periodic", "sporadic"):
                trace = simulate_mc(
                    ts, scheduler="fp", policy=policy, scenario=scenario, priorities=order,
                    arrivals=arrivals, seed=int(rng.integers(1 << 30)), horizon=400,
                )  # fmt: skip
                assert trace.miss is None, (test, ts, order, scenario, arrivals, str(trace))
        search = switch_search(ts, scheduler="fp", policy=policy, priorities=order)
        assert search.failure is None, (test, ts, order, search.summary())


def test_simulator_refutes_example_2_in_dm_order() -> None:
    """The soundness checks can fail: DM's order of example 2 misses at the first switch (τ1 needs 2 by t = 2 after τ0's 1)."""
    from rtsched.mc.sim import switch_search

    search = switch_search(EXAMPLE_2, scheduler="fp", policy="amc", priorities=[0, 1])
    assert search.failure is not None
    assert search.failure.miss is not None and search.failure.miss.task == 1


def test_soundness_where_only_amc_max_accepts() -> None:
    """The sets that separate AMC-max from AMC-rtb, under the adversarial switch search."""
    from rtsched.mc.sim import switch_search

    rng = random.Random(7)
    found = 0
    while found < 8:
        ts = _separating_set(rng)
        if amc.reference(ts, test="amc-max") and not amc.reference(ts, test="amc-rtb"):
            found += 1
            order = amc.deadline_monotonic(ts)
            for arrivals in ("periodic", "sporadic"):
                search = switch_search(
                    ts, scheduler="fp", policy="amc", priorities=order, arrivals=arrivals, seed=found
                )
                assert search.failure is None, (ts, search.summary())


@pytest.mark.slow
def test_soundness_on_generated_sets_slow() -> None:
    """Sets of the paper's generator (n = 6, short periods) that AMC-max accepts and AMC-rtb rejects: never refuted.

    Size: RTSCHED_PROPERTY_EXAMPLES × 10 generated sets per (U, CF) point (a development run of
    14,400 sets gave 75 separating cases, none refuted).
    """
    from rtsched.generators.mc import mc_tasksets as generate
    from rtsched.mc.sim import simulate_mc, switch_search

    rng = np.random.default_rng(7)
    separating = 0
    for utilization in (0.6, 0.7, 0.8, 0.9):
        for cf in (2.0, 3.0, 4.0):
            for ts in generate(
                rng, n=6, utilization=utilization, size=max(100, EXAMPLES * 10 // 12), cf=cf, periods="log-uniform:5:60"
            ):
                for priorities in ("dm", "opa"):
                    if not amc.reference(ts, test="amc-max", priorities=priorities):
                        continue
                    if amc.reference(ts, test="amc-rtb", priorities=priorities):
                        continue
                    separating += 1
                    order = amc.order_for(ts, priorities, "amc-max")
                    longest = max(t.T for t in ts)
                    search = switch_search(
                        ts, scheduler="fp", policy="amc", priorities=order,
                        window=3 * longest, horizon=6 * longest, max_candidates=20000,
                    )  # fmt: skip
                    assert search.failure is None, (ts, order, search.summary())
                    for seed in range(3):
                        trace = simulate_mc(
                            ts, scheduler="fp", policy="amc", scenario="random", random_lo=True, priorities=order,
                            arrivals="sporadic", seed=seed, horizon=20 * longest,
                        )  # fmt: skip
                        assert trace.miss is None, (ts, order, str(trace))
    assert separating > 0
