"""Partitioned EDF-VD (criticality-aware first fit, EDF-VD admission): worked set, codes == reference, relations, soundness."""

from __future__ import annotations

import random
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from rtsched import analyses
from rtsched.analyses.mixed_criticality import edf_vd2012 as vd
from rtsched.analyses.mixed_criticality import partitioned_edf_vd as pvd
from rtsched.kernels import UNDECIDED
from rtsched.mc import MCBatch, MCTask, MCTaskSet
from rtsched.mc.sim import simulate_mc, switch_search
from rtsched.testing.strategies import mc_tasksets

PVD = analyses.get("mc-p-edf-vd")
LO, HI = MCTask.lo, MCTask.hi

#: papers/baruah2012-edf-vd.md, "Partitioned": two cores.
WORKED = MCTaskSet([LO(2, 5), HI(1, 4, 10), HI(1, 2, 6), LO(1, 2), HI(1, 5, 6)])


def test_worked_example():
    # Order: HI by C(HI)/T: τ4 (5/6), τ1 (2/5), τ2 (1/3); then LO: τ3 (1/2), τ0 (2/5).
    assert pvd.task_order(WORKED) == [4, 1, 2, 3, 0]
    pa = pvd.partition(WORKED, 2)
    # P0: τ4 alone; + τ1: U_HH = 5/6 + 2/5 > 1 fails (V1) and (V3) -> P1. τ2 on P0: U_HH = 7/6 no -> P1.
    # τ3 (LO 1/2) on P0 with τ4: U_LL = 1/2, U_HL = 1/6, U_HH = 5/6: x = 1/3, (V3) = 1: accepted.
    # τ0 (LO 2/5): P0 would give U_LL = 9/10 -> (V3) fails; P1 (τ1, τ2): U_LL = 2/5, U_HL = 4/15,
    # U_HH = 11/15: x = 4/9, (V3) = 41/45.
    assert pa.core == (1, 1, 1, 0, 0) and pa.failed is None
    assert [p.x for p in pa.plans] == [Fraction(1, 3), Fraction(4, 9)]
    r = PVD.explain(WORKED, 2)
    assert r.verdict is True and r.evidence["assignment"] == (1, 1, 1, 0, 0)
    assert [row["virtual_D"] for row in r.per_task] == [5, Fraction(40, 9), Fraction(8, 3), 2, 2]
    assert PVD.verdict(WORKED, 1) is False and PVD.verdict(WORKED, 2) is True


def codes_redecided(sets: list[MCTaskSet], m: int) -> list[bool]:
    out = pvd.codes(MCBatch.from_tasksets(sets), m)
    return [pvd.reference(ts, m) if c == UNDECIDED else bool(c) for ts, c in zip(sets, out, strict=True)]


implicit_sets = mc_tasksets(min_size=1, max_size=8, max_period=30, deadlines="implicit", max_utilization=2.2)


@settings(max_examples=200)
@given(st.lists(implicit_sets, min_size=1, max_size=4), st.integers(1, 4))
def test_codes_equal_reference(sets, m):
    assert codes_redecided(sets, m) == [pvd.reference(ts, m) for ts in sets]
    assert [bool(v) for v in PVD.batch(MCBatch.from_tasksets(sets), m)] == [pvd.reference(ts, m) for ts in sets]


@settings(max_examples=200)
@given(implicit_sets)
def test_one_core_is_edf_vd(ts):
    """On one core first fit places every task iff EDF-VD accepts the whole set (EDF-VD's test only gets harder as tasks are added)."""
    assert pvd.reference(ts, 1) is vd.reference(ts)


@settings(max_examples=200)
@given(implicit_sets, st.integers(1, 3))
def test_more_cores_keep_acceptance(ts, m):
    """First fit on m + 1 cores places each task on the core it had on m cores (the first m cores see the same tasks)."""
    if pvd.reference(ts, m):
        assert pvd.reference(ts, m + 1)


PERIODS = (2, 3, 4, 6, 8, 12, 24)


def loaded_set(rng: random.Random) -> MCTaskSet:
    """3-7 tasks, periods in PERIODS (hyperperiod ≤ 24), HI tasks with small C(LO): loads for two cores."""
    tasks = []
    for _ in range(rng.randint(3, 7)):
        T = rng.choice(PERIODS)
        if rng.random() < 0.5:
            c_lo = rng.randint(1, max(1, T // 4))
            tasks.append(HI(c_lo, rng.randint(max(c_lo, T // 3), T), T))
        else:
            tasks.append(LO(rng.randint(1, max(1, T // 2)), T))
    return MCTaskSet(tasks)


def test_sound_against_the_simulator():
    """Seeded sets accepted on m = 2 with both cores busy; each run partitioned, EDF-VD per core with its x, own modes."""
    rng = random.Random(2014)
    accepted = 0
    for _ in range(20000):
        if accepted >= 40:
            break
        ts = loaded_set(rng)
        pa = pvd.partition(ts, 2)
        if pa.failed is not None or not all(pa.cores) or vd.reference(ts):
            continue
        accepted += 1
        xs = [p.x for p in pa.plans]
        options = {"scheduler": "partitioned", "partition": list(pa.core), "core_scheduler": "edf-vd", "x": xs}
        for arrivals in ("periodic", "sporadic"):
            search = switch_search(ts, 2, arrivals=arrivals, seed=5, **options)
            assert search.failure is None, (ts, pa, search.summary())
        for scenario in ("lo", "hi", "random"):
            trace = simulate_mc(ts, 2, scenario=scenario, random_lo=True, seed=3, **options)
            assert trace.miss is None, (ts, pa, scenario, str(trace))
    assert accepted >= 40
