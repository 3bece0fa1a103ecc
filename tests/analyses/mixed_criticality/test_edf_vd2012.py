"""EDF-VD (Baruah et al., ECRTS 2012): closed forms on worked sets, codes == reference, proved properties, soundness."""

from __future__ import annotations

import random
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rtsched import analyses
from rtsched.analyses.mixed_criticality import edf_vd2012 as vd
from rtsched.kernels import UNDECIDED
from rtsched.mc import MCBatch, MCTask, MCTaskSet
from rtsched.mc.sim import simulate_mc, switch_search
from rtsched.testing.strategies import mc_tasksets

VD = analyses.get("mc-edf-vd")

LO, HI = MCTask.lo, MCTask.hi

#: Hand-computed sets of papers/baruah2012-edf-vd.md ("Worked examples"): (set, case, x, x·U_LL + U_HH or U_LL + U_HH).
WORKED = [
    pytest.param(MCTaskSet([LO(1, 4), HI(1, 3, 5)]), "edf", Fraction(1), Fraction(17, 20), id="V1-plain-EDF"),
    pytest.param(
        MCTaskSet([LO(2, 5), HI(1, 4, 10), HI(1, 2, 6)]), "edf-vd", Fraction(4, 9), Fraction(41, 45), id="V3-x=4/9"
    ),
    pytest.param(MCTaskSet([LO(1, 2), HI(1, 3, 4)]), "edf-vd", Fraction(1, 2), Fraction(1), id="V3-on-the-boundary"),
    pytest.param(
        MCTaskSet([LO(2, 5), HI(1, 4, 10), HI(1, 3, 6)]), "hi-fails", Fraction(4, 9), Fraction(97, 90), id="V3-fails"
    ),
    pytest.param(MCTaskSet([LO(1, 2), LO(1, 2), HI(1, 1, 10)]), "lo-full", None, None, id="U_LL=1-no-x"),
    pytest.param(MCTaskSet([LO(1, 2), LO(1, 2)]), "edf", Fraction(1), Fraction(1), id="LO-only-U=1"),
]


def codes_redecided(sets: list[MCTaskSet]) -> list[bool]:
    """The kernel's codes with UNDECIDED re-decided by the reference (what the registry does)."""
    out = vd.codes(MCBatch.from_tasksets(sets))
    return [vd.reference(ts) if c == UNDECIDED else bool(c) for ts, c in zip(sets, out, strict=True)]


@pytest.mark.parametrize(("ts", "case", "x", "lhs"), WORKED)
def test_worked_examples(ts, case, x, lhs):
    p = vd.plan(ts)
    assert (p.case, p.x, p.hi_lhs) == (case, x, lhs)
    verdict = case in ("edf", "edf-vd")
    assert vd.reference(ts) is verdict
    assert codes_redecided([ts]) == [verdict]
    assert VD.verdict(ts, 1) is verdict
    assert bool(VD.batch(MCBatch.from_tasksets([ts]), 1)[0]) is verdict
    r = VD.explain(ts, 1)
    assert r.verdict is verdict
    assert r.evidence["x"] == x and r.evidence["case"] == case
    if verdict:
        vds = r.evidence["virtual_deadlines"]
        assert vds == tuple(x * t.T if t.is_hi else Fraction(t.T) for t in ts)
        assert [row["virtual_D"] for row in r.per_task] == list(vds)
    assert any("(V1)" in str(s) for s in r.steps)


def test_closed_forms_of_the_x_example():
    """U_LL = 2/5, U_HL = 1/10 + 1/6 = 4/15, U_HH = 2/5 + 1/3 = 11/15; x = (4/15)/(3/5) = 4/9."""
    ts = MCTaskSet([LO(2, 5), HI(1, 4, 10), HI(1, 2, 6)])
    assert (ts.U_LL, ts.U_HL, ts.U_HH) == (Fraction(2, 5), Fraction(4, 15), Fraction(11, 15))
    assert vd.virtual_deadlines(ts, Fraction(4, 9)) == (Fraction(5), Fraction(40, 9), Fraction(8, 3))
    # LO mode at x: U_LL + U_HL/x = 2/5 + 3/5 = 1 exactly (x is the least factor that fits).
    assert ts.U_LL + ts.U_HL / Fraction(4, 9) == 1


implicit_sets = mc_tasksets(min_size=1, max_size=7, max_period=30, deadlines="implicit", max_utilization=1.1)


@settings(max_examples=150)
@given(st.lists(implicit_sets, min_size=1, max_size=6))
def test_codes_equal_reference(sets):
    assert codes_redecided(sets) == [vd.reference(ts) for ts in sets]
    assert [bool(v) for v in VD.batch(MCBatch.from_tasksets(sets), 1)] == [vd.reference(ts) for ts in sets]


def test_codes_on_boundaries_are_exact():
    """Sets exactly on (V1) or (V3) (accepted: the conditions are non-strict) and one tick past them."""
    on = [
        MCTaskSet([LO(1, 2), HI(1, 3, 4)]),  # (V3) = 1
        MCTaskSet([LO(1, 4), HI(1, 3, 4)]),  # (V1) = 1
        MCTaskSet([LO(1, 3), HI(1, 2, 3)]),  # (V1) = 1
        MCTaskSet([LO(1, 4), LO(1, 4), HI(1, 2, 8), HI(1, 4, 8)]),  # (V3) = 1 with U_HL = 1/4
    ]
    past = [MCTaskSet([LO(1, 2), HI(1, 3, 4), LO(1, 1000)]), MCTaskSet([LO(1, 4), HI(3, 3, 4), LO(1, 997)])]
    assert codes_redecided(on) == [vd.reference(ts) for ts in on]
    assert all(vd.reference(ts) for ts in on)
    assert codes_redecided(past) == [vd.reference(ts) for ts in past] == [False, False]


@settings(max_examples=200)
@given(implicit_sets)
def test_utilization_bound_three_quarters(ts):
    """Proved (note, "Speedup"): max(U_LL + U_HL, U_HH) ≤ 3/4 implies acceptance (EDF-VD's bound behind speedup 4/3)."""
    if max(ts.U_LL + ts.U_HL, ts.U_HH) <= Fraction(3, 4):
        assert vd.reference(ts)


@settings(max_examples=200)
@given(implicit_sets, st.data())
def test_removing_a_task_keeps_acceptance(ts, data):
    """Proved (note): (V1) and (V3)'s form U_HL·U_LL ≤ (1 − U_LL)(1 − U_HH) only get easier as any U drops."""
    if ts.n < 2 or not vd.reference(ts):
        return
    i = data.draw(st.integers(0, ts.n - 1))
    assert vd.reference(MCTaskSet(t for j, t in enumerate(ts) if j != i))


def test_dominates_plain_edf_with_hi_budgets():
    """(V1) is EDF with C(HI) for HI tasks and C(LO) for LO tasks: accepted sets include every such one."""
    ts = MCTaskSet([LO(1, 4), HI(1, 3, 4)])
    assert ts.U_LL + ts.U_HH == 1 and vd.reference(ts)


# -- soundness against the mode-switch simulator -------------------------------------------------

#: Periods whose least common multiple is at most 24: the simulator's periodic run and its
#: single-overrun search then cover a whole hyperperiod quickly.
PERIODS = (2, 3, 4, 6, 8, 12, 24)


def small_hyperperiod_set(rng: random.Random, deadlines: str = "implicit") -> MCTaskSet:
    """2-5 tasks, periods in PERIODS; a HI task has a small C(LO) and C(HI) up to D (EDF-VD's case)."""
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


def _simulate_everything(ts: MCTaskSet, x: Fraction) -> None:
    for arrivals in ("periodic", "sporadic"):
        search = switch_search(ts, scheduler="edf-vd", x=x, arrivals=arrivals, seed=7)
        assert search.failure is None, (ts, x, search.summary())
    for scenario in ("lo", "hi", "random"):
        for random_lo in (False, True):
            trace = simulate_mc(ts, scheduler="edf-vd", x=x, scenario=scenario, random_lo=random_lo, seed=11)
            assert trace.miss is None, (ts, x, scenario, str(trace))


def test_sound_on_the_worked_examples():
    for param in WORKED:
        ts = param.values[0]
        p = vd.plan(ts)
        if p.schedulable:
            assert p.x is not None
            _simulate_everything(ts, p.x)


def test_sound_against_the_simulator():
    """Seeded sets until 40 are accepted by (V1) and 40 by (V3) alone; each run with its x under AMC."""
    rng = random.Random(2012)
    found = {"edf": 0, "edf-vd": 0}
    for _ in range(20000):
        if min(found.values()) >= 40:
            break
        ts = small_hyperperiod_set(rng)
        p = vd.plan(ts)
        if not p.schedulable or found[p.case] >= 40:
            continue
        found[p.case] += 1
        assert p.x is not None
        _simulate_everything(ts, p.x)
    assert min(found.values()) >= 40, found


def test_virtual_deadlines_are_needed():
    """Worked example "x = 1/3" of the note: accepted by (V3) on its boundary; plain EDF (x = 1) misses.

    U_LL = 1/2, U_HL = 1/6, U_HH = 5/6: (V1) 4/3 > 1; x = (1/6)/(1/2) = 1/3; (V3) 1/6 + 5/6 = 1.
    With x = 1 the LO job (deadline 4) runs first in [0, 2), the HI job overruns at 3 and needs 4
    more ticks by 6; with x = 1/3 its virtual deadline 2 puts it first, it switches at 1 and ends at 5.
    """
    ts = MCTaskSet([HI(1, 5, 6), LO(2, 4)])
    p = vd.plan(ts)
    assert (p.case, p.x, p.hi_lhs) == ("edf-vd", Fraction(1, 3), Fraction(1))
    plain = switch_search(ts, scheduler="edf-vd", x=1)
    assert plain.failure is not None and plain.failure.miss is not None
    assert (plain.failure.miss.task, plain.failure.miss.time, plain.failure.switch_time) == (0, 6, 3)
    assert switch_search(ts, scheduler="edf-vd", x=p.x).failure is None


def test_platform_is_one_processor():
    assert VD.platform == "uniprocessor" and VD.deadlines == ("implicit",)
    assert np.array_equal(vd.codes(MCBatch.from_tasksets([MCTaskSet([LO(1, 2)])])), [1])
