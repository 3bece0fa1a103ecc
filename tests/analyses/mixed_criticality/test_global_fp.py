"""Global FP mixed criticality (AMC, after Pathan, ECRTS 2012): worked example, kernel, relations, soundness.

The worked example is computed by hand in papers/pathan2012-global-mc.md. Soundness: every set an
analysis accepts runs under ``simulate_mc(scheduler="global-fp", policy="amc")`` with the
analysis's priority order (LO, HI and random scenarios, periodic and sporadic arrivals, and the
adversarial single-overrun search) without a failure.
"""

from __future__ import annotations

import os
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rtsched.analyses.mixed_criticality import global_fp as gfp
from rtsched.mc.model import MCBatch, MCTask, MCTaskSet
from rtsched.mc.sim import simulate_mc, switch_search
from rtsched.model import TaskSet
from rtsched.registry import get
from rtsched.testing.strategies import mc_tasksets

EXAMPLES = int(os.environ.get("RTSCHED_PROPERTY_EXAMPLES", "150"))
VARIANTS = gfp._VARIANTS  # (carry, priorities) of the three registered analyses
NAMES = tuple(f"mc-gfp-amc-{c}-{p}" for c, p in VARIANTS)

#: The note's example: τ0 = HI (3, 4, T = D = 4), τ1 = LO (1, 5), τ2 = LO (2, 6), τ3 = HI (1, 4, T = D = 8).
EXAMPLE = MCTaskSet([MCTask.hi(3, 4, T=4), MCTask.lo(1, T=5), MCTask.lo(2, T=6), MCTask.hi(1, 4, T=8)])

sets = mc_tasksets(min_size=1, max_size=7, max_period=20, deadlines="constrained")


def _rows(ts: MCTaskSet, m: int, carry: str, priorities: str) -> list[tuple[object, object]]:
    return [(r["R_LO"], r["R_HI"]) for r in gfp.explain(ts, m, carry=carry, priorities=priorities).per_task]


@pytest.mark.parametrize(
    ("m", "carry", "priorities", "order", "rows", "verdict"),
    [
        pytest.param(2, "rta", "dm", (0, 1, 2, 3), [(3, 4), (1, "-"), (3, "-"), (4, 7)], True, id="m2-rta-dm"),
        pytest.param(2, "da", "dm", (0, 1, 2, 3), [(3, 4), (1, "-"), (4, "-"), (7, "> 8")], False, id="m2-da-dm"),
        pytest.param(2, "da", "opa", (0, 1, 3, 2), [(3, 4), (1, "-"), (6, "-"), (3, 6)], True, id="m2-da-opa"),
        pytest.param(3, "rta", "dm", (0, 1, 2, 3), [(3, 4), (1, "-"), (2, "-"), (2, 5)], True, id="m3-rta-dm"),
        pytest.param(3, "da", "dm", (0, 1, 2, 3), [(3, 4), (1, "-"), (2, "-"), (3, 6)], True, id="m3-da-dm"),
        pytest.param(1, "rta", "dm", (0, 1, 2, 3), [(3, 4), (4, "-"), ("> 6", "-"), ("-", "-")], False, id="m1-rta-dm"),
    ],
)
def test_worked_example(m, carry, priorities, order, rows, verdict):
    assert gfp.reference(EXAMPLE, m, carry=carry, priorities=priorities) is verdict
    assert gfp.codes(MCBatch.from_tasksets([EXAMPLE]), m, carry=carry, priorities=priorities).tolist() == [int(verdict)]
    e = gfp.explain(EXAMPLE, m, carry=carry, priorities=priorities)
    assert e.verdict is verdict
    assert e.evidence["order"] == order
    assert _rows(EXAMPLE, m, carry, priorities) == rows


def test_worked_example_terms():
    """The note's hand computation of τ3 on m = 2 (RTA carry-in: ρ^LO = (3, 1, 3), ρ_0 = max(3, 4) = 4)."""
    rho_lo, rho = [3, 1, 3, 8], [4, 1, 3, 8]
    # (LO): x = 1 → 2 → 3 → 4; at x = 4: W_0 = 3 (N = 1, 3 + min(3, 0)), W_1 = 1, W_2 = 2; 1 + ⌊6/2⌋ = 4.
    assert gfp.lo_value(EXAMPLE, 3, [0, 1, 2], rho_lo, 2, 4) == (
        4,
        [{"task": 0, "I": 3}, {"task": 1, "I": 1}, {"task": 2, "I": 2}],
    )
    # (HI) with R^LO_3 = 4: at x = 7 (cap 4): τ0 HI W(4, 4, 4; 7) = 7 → 4; LO window min(4, 7) = 4: τ1 1, τ2 2.
    value, terms = gfp.hi_value(EXAMPLE, 3, [0, 1, 2], rho_lo, rho, 4, 2, 7)
    assert (value, [t["I"] for t in terms]) == (7, [4, 1, 2])
    r = gfp.task_test(EXAMPLE, 3, [0, 1, 2], 2, rho_lo, rho)
    assert (r.chain_lo, r.chain_hi, r.ok) == ((1, 2, 3, 4), (4, 5, 6, 7), True)
    # DA carry-in (ρ = D): R^LO_3 = 7, and at x = 7 the terms 4 + 3 + 4 = 11: 4 + ⌊11/2⌋ = 9 > 8.
    D = [4, 5, 6, 8]
    r = gfp.task_test(EXAMPLE, 3, [0, 1, 2], 2, D, D)
    assert (r.R_lo, r.failing, r.x, r.value, [t["I"] for t in r.terms]) == (7, "HI", 7, 9, [4, 3, 4])
    e = gfp.explain(EXAMPLE, 2, carry="da", priorities="dm")
    assert e.evidence["failing_term"] == "(HI): at x = 7 the right side 4 + ⌊11/2⌋ = 9 > D = 8"


def test_worked_example_in_the_simulator():
    """rta-dm's R^HI_3 = 7 is reached by the single-overrun search (the bound is tight here); nothing fails."""
    search = switch_search(EXAMPLE, 2, scheduler="global-fp", priorities=[0, 1, 2, 3])
    assert search.failure is None
    assert search.response_hi[3] == 7 and search.response_lo[3] <= 4
    assert switch_search(EXAMPLE, 2, scheduler="global-fp", priorities=[0, 1, 3, 2]).failure is None
    # on one processor the set misses (every test rejected it): τ2 at 6 in LO mode
    assert switch_search(EXAMPLE, 1, scheduler="global-fp").failure is not None


def test_wcet_above_deadline_is_rejected_by_both_layers():
    ts = MCTaskSet([MCTask.lo(1, T=10), MCTask.hi(2, 7, T=10, D=6)])
    for carry, priorities in VARIANTS:
        assert gfp.reference(ts, 4, carry=carry, priorities=priorities) is False
        assert gfp.codes(MCBatch.from_tasksets([ts]), 4, carry=carry, priorities=priorities).tolist() == [0]
        assert gfp.explain(ts, 4, carry=carry, priorities=priorities).verdict is False


def test_rta_carry_with_opa_is_refused():
    with pytest.raises(KeyError):
        gfp.reference(EXAMPLE, 2, carry="rta", priorities="opa")
    with pytest.raises(KeyError):
        gfp.codes(MCBatch.from_tasksets([EXAMPLE]), 2, carry="rta", priorities="opa")


@settings(max_examples=max(20, EXAMPLES // 2), deadline=None)
@given(st.lists(sets, min_size=1, max_size=6), st.integers(1, 4))
def test_kernel_equals_reference(batch_sets: list[MCTaskSet], m: int) -> None:
    batch = MCBatch.from_tasksets(batch_sets)
    for carry, priorities in VARIANTS:
        want = [int(gfp.reference(ts, m, carry=carry, priorities=priorities)) for ts in batch_sets]
        assert gfp.codes(batch, m, carry=carry, priorities=priorities).tolist() == want, (carry, priorities)


@settings(max_examples=EXAMPLES, deadline=None)
@given(sets, st.integers(1, 4))
def test_proved_relations(ts: MCTaskSet, m: int) -> None:
    """rta-dm ⊇ da-dm, da-opa ⊇ da-dm; each monotone in m; OPA's order passes da in that order."""
    v = {cp: gfp.reference(ts, m, carry=cp[0], priorities=cp[1]) for cp in VARIANTS}
    if v[("da", "dm")]:
        assert v[("rta", "dm")] and v[("da", "opa")]
    for cp, accepted in v.items():
        if accepted:
            assert gfp.reference(ts, m + 1, carry=cp[0], priorities=cp[1])
    order = gfp.assign_opa(ts, m)
    assert (order is not None) == v[("da", "opa")]
    if order is not None:
        assert all(r is not None and r.ok for r in gfp.response_pass(ts, m, order, "da"))


@settings(max_examples=EXAMPLES, deadline=None)
@given(mc_tasksets(min_size=1, max_size=7, max_period=20, deadlines="constrained", hi=False), st.integers(1, 4))
def test_lo_tasks_only_reduce_to_global_fp(ts: MCTaskSet, m: int) -> None:
    """All LO: rta-dm is gfp-rta on the tasks in DM order; gfp-da ⇒ da-dm ⇒ gfp-rta there."""
    order = gfp.deadline_monotonic(ts)
    plain = TaskSet.from_tasks([(ts[i].C_lo, ts[i].D, ts[i].T) for i in order])
    rta = get("gfp-rta").reference(plain, m)
    assert gfp.reference(ts, m, carry="rta", priorities="dm") is rta
    da_dm = gfp.reference(ts, m, carry="da", priorities="dm")
    if get("gfp-da").reference(plain, m):
        assert da_dm
    if da_dm:
        assert rta is True


# ---------------------------------------------------------------------------------------------
# soundness against the simulator
# ---------------------------------------------------------------------------------------------


def _within_bounds(run, bounds: list[gfp.TaskResult | None]) -> None:
    """Every job that completed in LO mode took at most R^LO, every one completed in HI mode at most R^HI (Lemmas 2, 3)."""
    for k, r in enumerate(bounds):
        assert r is not None
        lo, hi = run.response_lo[k], run.response_hi[k]
        assert lo is None or lo <= r.R_lo, (k, lo, r)
        assert hi is None or (r.R_hi is not None and hi <= r.R_hi), (k, hi, r)


def _simulate_every_way(ts: MCTaskSet, m: int, order: list[int], seed: int, horizon: int, carry: str) -> None:
    bounds = gfp.response_pass(ts, m, order, carry)
    options = {"scheduler": "global-fp", "priorities": order, "policy": "amc"}
    for scenario in ("lo", "hi", "random"):
        for arrivals in ("periodic", "sporadic"):
            for random_lo in (False, True) if scenario == "random" else (False,):
                trace = simulate_mc(
                    ts, m, scenario=scenario, arrivals=arrivals, seed=seed, horizon=horizon, random_lo=random_lo,
                    **options,
                )  # fmt: skip
                assert trace.miss is None, (ts, m, order, str(trace))
                _within_bounds(trace, bounds)
    search = switch_search(ts, m, **options)
    assert search.failure is None, (ts, m, order, search.summary())
    _within_bounds(search, bounds)


def _random_set(rng: random.Random, m: int) -> MCTaskSet:
    tasks = []
    for _ in range(rng.randint(m + 1, m + 4)):
        T = rng.choice([3, 4, 5, 6, 8, 10, 12, 15, 20])
        D = rng.randint(max(1, T // 2), T)
        c = rng.randint(1, max(1, D * rng.choice([1, 2, 3]) // 3))
        if rng.random() < 0.5:
            tasks.append(MCTask.hi(c, rng.randint(c, D), T, D))
        else:
            tasks.append(MCTask.lo(rng.randint(1, D), T, D))
    return MCTaskSet(tasks)


def test_soundness_seeded_sets(reach) -> None:
    """60 seeded sets on m = 2, 3, 4 that some variant accepts run without a failure in every scenario, and every
    observed response time is within the task's bound (R^LO in LO mode, R^HI in HI mode)."""
    rng = random.Random(2012)
    checked = 0
    while checked < 60:
        m = rng.randint(2, 4)
        ts = _random_set(rng, m)
        reach["drawn"] += 1
        for carry, priorities in VARIANTS:
            if not gfp.reference(ts, m, carry=carry, priorities=priorities):
                continue
            order = gfp.order_for(ts, m, priorities)
            assert order is not None
            reach[f"accepted {carry}-{priorities}"] += 1
            _simulate_every_way(ts, m, order, checked, 300, carry)
        if any(gfp.reference(ts, m, carry=c, priorities=p) for c, p in VARIANTS):
            checked += 1
    assert reach["accepted rta-dm"] >= 30 and reach["accepted da-opa"] >= 45, reach


def test_soundness_derandomized(reach) -> None:
    """Hypothesis sets (derandomized: the reach count is fixed): whenever a variant accepts, nothing fails."""

    @settings(max_examples=100, deadline=None, derandomize=True)
    @given(mc_tasksets(min_size=3, max_size=7, max_period=12, deadlines="constrained"), st.integers(2, 4))
    def prop(ts: MCTaskSet, m: int) -> None:
        for carry, priorities in VARIANTS:
            if gfp.reference(ts, m, carry=carry, priorities=priorities):
                reach[f"accepted {carry}-{priorities}"] += 1
                order = gfp.order_for(ts, m, priorities)
                assert order is not None
                _simulate_every_way(ts, m, order, 7, 200, carry)

    prop()
    assert reach["accepted rta-dm"] >= 25, reach


@pytest.mark.slow
def test_soundness_generator_sets(reach) -> None:
    """The MC generator (UUniFast, log-uniform periods 5–50, CF 2): m = 2, 3, 4, LO utilization 0.4m–0.7m."""
    from rtsched.generators.mc import mc_tasksets as generate

    size = max(10, EXAMPLES // 10)
    rng = np.random.default_rng(2012)
    for m in (2, 3, 4):
        for share in (0.4, 0.55, 0.7):
            for deadlines in ("implicit", "constrained"):
                for ts in generate(
                    rng, n=2 * m + 2, utilization=share * m, size=size, deadlines=deadlines,
                    utilizations="uunifast-discard", periods="log-uniform:5:50",
                ):  # fmt: skip
                    reach["drawn"] += 1
                    for carry, priorities in VARIANTS:
                        if not gfp.reference(ts, m, carry=carry, priorities=priorities):
                            continue
                        reach[f"accepted {carry}-{priorities}"] += 1
                        order = gfp.order_for(ts, m, priorities)
                        assert order is not None
                        options = {"scheduler": "global-fp", "priorities": order, "policy": "amc"}
                        for arrivals in ("periodic", "sporadic"):
                            search = switch_search(ts, m, arrivals=arrivals, window=300, horizon=800, seed=2, **options)
                            assert search.failure is None, (ts, m, carry, priorities, search.summary())
    assert reach["accepted rta-dm"] >= reach["drawn"] // 10, reach


# ---------------------------------------------------------------------------------------------
# registry and explain
# ---------------------------------------------------------------------------------------------


def test_registry_entries() -> None:
    batch = MCBatch.from_tasksets([EXAMPLE])
    want = {"mc-gfp-amc-rta-dm": True, "mc-gfp-amc-da-dm": False, "mc-gfp-amc-da-opa": True}
    for name in NAMES:
        entry = get(name)
        assert entry.policy == "mc-global-fp" and entry.platform == "identical" and entry.kind == "sufficient"
        assert entry.status(batch, 2).tolist() == [int(want[name])]
        assert entry.status(batch, 1).tolist() == [0]
        assert entry.explain(EXAMPLE, 2).verdict is want[name]


def test_explain_when_opa_finds_no_order() -> None:
    e = gfp.explain(EXAMPLE, 1, carry="da", priorities="opa")
    assert e.verdict is False and e.evidence["opa_order"] is None
    assert "no priority order passes" in e.summary and "τ1 misses in LO mode" in e.summary
    steps = [str(s) for s in e.steps()]  # type: ignore[operator]
    assert steps[-1] == "not schedulable under this test"
