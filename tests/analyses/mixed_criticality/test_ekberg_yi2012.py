"""Ekberg & Yi (ECRTS 2012) demand test with tuned virtual deadlines: dbf forms, check points, worked sets, codes == reference, soundness."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rtsched import analyses
from rtsched.analyses.mixed_criticality import edf_vd2012 as vd
from rtsched.analyses.mixed_criticality import ekberg_yi2012 as ey
from rtsched.analyses.theory.edf_demand import qpa_reference
from rtsched.kernels import UNDECIDED, UNKNOWN
from rtsched.mc import MCBatch, MCTask, MCTaskSet
from rtsched.mc.sim import simulate_mc, switch_search
from rtsched.testing.strategies import mc_tasksets

EY = analyses.get("mc-edf-ey")
LO, HI = MCTask.lo, MCTask.hi


def paper_dbf_hi(C_lo: int, C_hi: int, D: int, D_lo: int, T: int, ell: int) -> int:
    """(E2) as Ekberg & Yi write it: full − done with n = ℓ mod T (papers/ekberg-yi2012-mc-demand.md)."""
    a = D - D_lo
    full = max(0, ((ell - a) // T + 1) * C_hi) if ell >= a else 0
    n = ell % T
    done = max(0, C_lo - n + a) if a <= n < D else 0
    return full - done


@st.composite
def hi_task_with_virtual_deadline(draw: st.DrawFn) -> tuple[int, int, int, int, int]:
    T = draw(st.integers(1, 30))
    D = draw(st.integers(1, T))
    C_lo = draw(st.integers(1, D))
    return C_lo, draw(st.integers(C_lo, 3 * T)), D, draw(st.integers(C_lo, D)), T


@settings(max_examples=300)
@given(hi_task_with_virtual_deadline())
def test_dbf_hi_is_the_papers_full_minus_done(task):
    for ell in range(0, 4 * task[4] + 5):
        assert ey.dbf_hi(*task, ell) == paper_dbf_hi(*task, ell)


@settings(max_examples=200)
@given(st.lists(hi_task_with_virtual_deadline(), min_size=1, max_size=4))
def test_check_points_and_bound_cover_every_integer(rows):
    """The note's lemma: Σ dbf_HI(ℓ) − ℓ is at most 0 everywhere iff at every point a + kT, a + kT + C(LO) below L."""
    U_HH = sum(Fraction(c_hi, t) for _, c_hi, _, _, t in rows)
    if U_HH >= 1:
        return
    L = ey.hi_demand_bound(rows, U_HH)

    def excess(ell: int) -> int:
        return sum(ey.dbf_hi(*r, ell) for r in rows) - ell

    points = {
        a + k * t + off for c, _, d, dl, t in rows for a in [d - dl] for k in range(int(L) // t + 2) for off in (0, c)
    }
    by_points = all(excess(p) <= 0 for p in points if p < L)
    horizon = int(L) + 2 * max(r[4] for r in rows) + 2
    assert by_points == all(excess(ell) <= 0 for ell in range(horizon))
    assert all(excess(ell) <= 0 for ell in range(int(L) + 1, horizon))


#: Hand-worked in papers/ekberg-yi2012-mc-demand.md ("Worked example"): τ0 HI (1, 2, T = D = 4), τ1 LO (1, 4).
HAND = MCTaskSet([HI(1, 2, 4), LO(1, 4)])


def test_hand_worked_example():
    """The paper's steps alone (``plain_edf=False``); the registry's test accepts HAND at (E0) already."""
    tu = ey.tune(HAND, work=None, plain_edf=False)
    # D' = 4: a = 0, ℓ = 0 gives dbf_HI = 2 − 1 = 1 > 0; lowering D' to 3 drops it by 1.
    assert tu.decrements == ((0, 1, 0),)
    # D' = 3: a = 1, L = 2·(4 − 1)/4 / (1 − 1/2) = 3; points 1 (dbf 1 ≤ 1) and 2 (dbf 2 ≤ 2), next 5 ≥ L.
    assert tu.L == 3 and tu.D_lo == (3, 4) and tu.verdict is True and tu.reason == "ok"
    r = EY.explain(HAND, 1)  # (E0): own-level demand 2/4 + 1/4 ≤ 1 with D' = D
    assert r.verdict is True and r.evidence["reason"] == "edf" and r.evidence["virtual_deadlines"] == (4, None)
    assert any("(E0) plain EDF" in str(s) for s in r.steps)
    hard = MCTaskSet([HI(1, 3, 4), LO(2, 4)])  # own level 3/4 + 2/4 > 1: (E0) fails, the tuning runs
    r = EY.explain(hard, 1)
    assert r.evidence["reason"] != "edf"
    assert any("(E0) plain EDF" in str(s) and "does not hold" in str(s) for s in r.steps)


#: (set, the paper's steps' verdict, their D', the registry's verdict with rtsched's (E0) first).
WORKED = [
    pytest.param(HAND, True, (3, 4), True, id="hand-worked"),
    pytest.param(MCTaskSet([LO(2, 5), HI(1, 4, 10), HI(1, 2, 6)]), True, (5, 5, 5), True, id="EDF-VD-x=4/9-set"),
    pytest.param(MCTaskSet([LO(12, 24), HI(6, 21, 24)]), True, (24, 9), True, id="EY-only-not-EDF-VD"),
    pytest.param(MCTaskSet([HI(1, 1, 2), HI(6, 11, 24)]), False, None, True, id="EDF-VD-only-greedy-stuck-E0-accepts"),
    pytest.param(MCTaskSet([HI(1, 10, 10)]), False, None, True, id="U_HH=1-not-handled-E0-accepts"),
    pytest.param(MCTaskSet([LO(3, 4), HI(2, 2, 4, 3)]), False, None, False, id="LO-mode-fails"),
]


@pytest.mark.parametrize(("ts", "verdict", "D_lo", "registry"), WORKED)
def test_worked_examples(ts, verdict, D_lo, registry):
    tu = ey.tune(ts, work=None, plain_edf=False)
    assert tu.verdict is verdict
    if D_lo is not None:
        assert tu.D_lo == D_lo
    assert int(ey.codes(MCBatch.from_tasksets([ts]), plain_edf=False)[0]) in (int(verdict), UNDECIDED)
    assert ey.tune(ts, work=None).verdict is registry
    assert EY.verdict(ts, 1) is registry
    assert bool(EY.batch(MCBatch.from_tasksets([ts]), 1)[0]) is registry


def test_incomparable_with_edf_vd_on_implicit_sets():
    """The paper's steps alone and EDF-VD: no dominance either way (note, "Relations"); (E0) closes the EDF-VD-only witness."""
    ey_only = MCTaskSet([LO(12, 24), HI(6, 21, 24)])
    vd_only = MCTaskSet([HI(1, 1, 2), HI(6, 11, 24)])
    assert ey.reference(ey_only) is True and vd.reference(ey_only) is False
    assert ey.tune(vd_only, plain_edf=False).verdict is False and vd.reference(vd_only) is True
    assert ey.tune(vd_only, plain_edf=False).reason == "stuck"
    assert ey.tune(vd_only).reason == "edf"
    assert ey.tune(MCTaskSet([HI(1, 10, 10)]), plain_edf=False).reason == "hi-full"


@settings(max_examples=200)
@given(mc_tasksets(min_size=1, max_size=6, max_period=30, deadlines="implicit", max_utilization=1.05))
def test_accepts_every_set_of_edf_vds_plain_edf_branch(ts):
    """Proved in the note ("(E0)"): with implicit deadlines, U_LL + U_HH ≤ 1 gives (E1) (U_LL + U_HL ≤ 1) and (E0)."""
    if ts.U_LL + ts.U_HH <= 1:
        assert ey.reference(ts, work_budget=None) is True


def test_no_virtual_deadlines_pass_for_the_edf_vd_only_set():
    """The EDF-VD-only witness is the test's limit, not the greedy's: no D' passes (E1) and (E4)."""
    ts = MCTaskSet([HI(1, 1, 2), HI(6, 11, 24)])
    for d0 in (1, 2):
        for d1 in range(6, 25):
            D_lo = (d0, d1)
            lo = qpa_reference([(t.C_lo, D_lo[i], t.T) for i, t in enumerate(ts)])
            hi = all(
                sum(ey.dbf_hi(t.C_lo, t.C_hi, t.D, D_lo[i], t.T, ell) for i, t in enumerate(ts)) <= ell
                for ell in range(400)
            )
            assert not (lo and hi), D_lo


def test_freezing_saves_a_set():
    """rtsched's freezing (note, "Tuning"): lowering τ0's D' at ℓ = 21 breaks LO mode; undone, τ0 frozen, τ2 lowered instead."""
    ts = MCTaskSet([HI(1, 5, 12, 11), LO(1, 2), HI(1, 4, 8, 6)])
    tu = ey.tune(ts, work=None)
    assert tu.verdict is True and tu.frozen == ((21, 0),) and tu.D_lo == (3, 2, 1)
    assert ey.explain(ts).evidence["frozen"] == (0,)
    assert switch_search(ts, scheduler="edf-vd", virtual_deadlines=[3, None, 1]).failure is None


def test_budget_gives_unknown_never_false():
    ts = MCTaskSet([LO(2, 5), HI(1, 4, 10), HI(1, 2, 6)])
    assert ey.reference(ts, budget=1) == "unknown"
    assert int(ey.codes(MCBatch.from_tasksets([ts]), budget=1)[0]) == UNKNOWN
    assert ey.reference(ts, budget=6) is True


def codes_redecided(sets: list[MCTaskSet], plain_edf: bool = True) -> list[object]:
    out = ey.codes(MCBatch.from_tasksets(sets), plain_edf=plain_edf)
    return [
        ey.tune(ts, plain_edf=plain_edf).verdict if c == UNDECIDED else {1: True, 0: False, -1: "unknown"}[int(c)]
        for ts, c in zip(sets, out, strict=True)
    ]


constrained_sets = mc_tasksets(min_size=1, max_size=6, max_period=30, deadlines="constrained", max_utilization=1.05)


@settings(max_examples=200)
@given(st.lists(constrained_sets, min_size=1, max_size=4))
def test_codes_equal_reference(sets):
    assert codes_redecided(sets) == [ey.reference(ts, work_budget=None) for ts in sets]
    assert codes_redecided(sets, plain_edf=False) == [ey.tune(ts, plain_edf=False).verdict for ts in sets]


# -- soundness against the mode-switch simulator -------------------------------------------------

PERIODS = (2, 3, 4, 6, 8, 12, 24)


def small_hyperperiod_set(rng: random.Random, deadlines: str) -> MCTaskSet:
    """2-5 tasks, periods in PERIODS (hyperperiod ≤ 24); HI tasks with a small C(LO)."""
    tasks = []
    for _ in range(rng.randint(2, 5)):
        T = rng.choice(PERIODS)
        D = T if deadlines == "implicit" else rng.randint(max(1, T // 2), T)
        if rng.random() < 0.5:
            c_lo = rng.randint(1, max(1, D // 4))
            tasks.append(HI(c_lo, rng.randint(max(c_lo, D // 3), D), T, D))
        else:
            tasks.append(LO(rng.randint(1, max(1, D // 2)), T, D))
    return MCTaskSet(tasks)


@pytest.mark.parametrize("deadlines", ["implicit", "constrained"])
def test_sound_against_the_simulator(deadlines):
    """Seeded sets until 60 are accepted (at least 60 with a lowered virtual deadline); each run under AMC with its D'."""
    rng = random.Random(2012 + len(deadlines))
    accepted = 0
    for _ in range(20000):
        if accepted >= 60:
            break
        ts = small_hyperperiod_set(rng, deadlines)
        tu = ey.tune(ts, work=None, plain_edf=False)
        if tu.verdict is not True or not tu.decrements:
            continue
        accepted += 1
        vds = [tu.D_lo[i] if t.is_hi else None for i, t in enumerate(ts)]
        for arrivals in ("periodic", "sporadic"):
            search = switch_search(ts, scheduler="edf-vd", virtual_deadlines=vds, arrivals=arrivals, seed=5)
            assert search.failure is None, (ts, vds, search.summary())
        for scenario in ("lo", "hi", "random"):
            trace = simulate_mc(
                ts, scheduler="edf-vd", virtual_deadlines=vds, scenario=scenario, random_lo=True, seed=3
            )
            assert trace.miss is None, (ts, vds, scenario, str(trace))
    assert accepted >= 60


@pytest.mark.parametrize("deadlines", ["implicit", "constrained"])
def test_e0_acceptances_are_sound_against_the_simulator(deadlines):
    """Sets accepted at (E0) (plain EDF, D' = D) that the paper's steps alone reject: AMC runs with D' = D miss nothing."""
    rng = random.Random(1969 + len(deadlines))
    accepted = 0
    for _ in range(40000):
        if accepted >= 40:
            break
        ts = small_hyperperiod_set(rng, deadlines)
        tu = ey.tune(ts, work=None)
        if tu.reason != "edf" or ey.tune(ts, work=None, plain_edf=False).verdict is True:
            continue
        accepted += 1
        vds = [t.D if t.is_hi else None for t in ts]
        for arrivals in ("periodic", "sporadic"):
            search = switch_search(ts, scheduler="edf-vd", virtual_deadlines=vds, arrivals=arrivals, seed=7)
            assert search.failure is None, (ts, search.summary())
        for scenario in ("hi", "random"):
            trace = simulate_mc(
                ts, scheduler="edf-vd", virtual_deadlines=vds, scenario=scenario, random_lo=True, seed=4
            )
            assert trace.miss is None, (ts, scenario, str(trace))
    assert accepted >= 40
