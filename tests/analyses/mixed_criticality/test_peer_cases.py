"""The worked sets of the comparison with the Java library mceval (papers/mc-peer-comparison.md).

Each set in tests/data/mc_peer/ is where rtsched and mceval (github.com/dumpram/mceval, an
oracle run outside this repository; none of its code is here) disagreed, or shows a definition
the two read differently. Each file's header gives both sides' numbers. These tests hold
rtsched's side of each explanation: its verdict and the numbers behind it, and the simulator's
run that shows which side is right.
"""

from __future__ import annotations

import math
from fractions import Fraction
from pathlib import Path

import pytest

from rtsched import analyses
from rtsched.analyses.mixed_criticality import amc2011, edf_vd2012, ekberg_yi2012
from rtsched.cli import main
from rtsched.errors import InputError
from rtsched.mc import MCTaskSet, read_mc_tasksets, simulate_mc, switch_search

DATA = Path(__file__).parents[2] / "data" / "mc_peer"


def load(name: str) -> MCTaskSet:
    sets = read_mc_tasksets(DATA / name)
    assert len(sets) == 1
    return sets[0]


def _dbf(C: int, D: int, T: int, ell: int) -> int:
    return max(0, (ell - D) // T + 1) * C


def _demand_conditions(ts: MCTaskSet, D_lo: list[int]) -> tuple[int | None, int | None]:
    """The least ℓ ≤ H + max D at which (E1) or (E4) fails with the virtual deadlines ``D_lo`` (None: holds).

    Brute force over every integer ℓ up to the hyperperiod plus the largest deadline, which
    covers every ℓ when U ≤ 1 in that mode (the demand grows by H·U ≤ H per hyperperiod).
    """
    H = math.lcm(*(t.T for t in ts))
    top = H + max(t.D for t in ts)
    lo_fail = next(
        (ell for ell in range(top + 1) if sum(_dbf(t.C_lo, D_lo[i], t.T, ell) for i, t in enumerate(ts)) > ell),
        None,
    )
    hi_fail = next(
        (
            ell
            for ell in range(top + 1)
            if sum(ekberg_yi2012.dbf_hi(t.C_lo, t.C_hi, t.D, D_lo[i], t.T, ell) for i, t in enumerate(ts) if t.is_hi)
            > ell
        ),
        None,
    )
    return lo_fail, hi_fail


# ---------------------------------------------------------------------------------------------
# EDF-VD
# ---------------------------------------------------------------------------------------------


def test_edf_vd_rejects_lo_overload_that_a_negative_x_would_pass():
    """U_LL = 5/4: mceval's x = U_HL/(1 − U_LL) = −1/2 passes x·U_LL + U_HH ≤ 1; no x exists, a LO job misses."""
    ts = load("edf_vd_lo_overload.yaml")
    plan = edf_vd2012.plan(ts)
    assert (plan.U_LL, plan.U_HL, plan.U_HH) == (Fraction(5, 4), Fraction(1, 8), Fraction(1, 4))
    assert plan.case == "lo-full"
    assert plan.U_HL / (1 - plan.U_LL) * plan.U_LL + plan.U_HH == Fraction(-3, 8)  # mceval's sum
    assert analyses.get("mc-edf-vd").verdict(ts, 1) is False
    miss = simulate_mc(ts, scheduler="edf", scenario="lo").miss
    assert miss is not None
    assert (miss.time, miss.mode) == (4, "LO")


def test_edf_vd_accepts_utilization_one_without_hi_tasks():
    """U_LL = 1, no HI task: (V1) with x = 1 (mceval's 0/0 is NaN and rejects); EDF meets every deadline."""
    ts = load("edf_vd_all_lo_full.yaml")
    plan = edf_vd2012.plan(ts)
    assert (plan.case, plan.x, plan.hi_lhs) == ("edf", 1, 1)
    assert analyses.get("mc-edf-vd").verdict(ts, 1) is True
    assert simulate_mc(ts, scheduler="edf", scenario="lo").miss is None
    assert simulate_mc(ts, scheduler="edf", scenario="lo", arrivals="sporadic", seed=3).miss is None


def test_edf_vd_accepts_a_set_exactly_on_its_bound():
    """x = 3/10 and x·U_LL + U_HH = 1 exactly (mceval's doubles give 1.0000000000000002 and reject)."""
    ts = load("edf_vd_on_the_bound.yaml")
    plan = edf_vd2012.plan(ts)
    assert (plan.case, plan.x, plan.hi_lhs) == ("edf-vd", Fraction(3, 10), 1)
    assert analyses.get("mc-edf-vd").verdict(ts, 1) is True
    u_ll, u_hl, u_hh = 4 / 15 + 2 / 5, 1 / 10, 8 / 10
    assert u_hl / (1 - u_ll) * u_ll + u_hh > 1  # mceval's float evaluation of the same sum
    for arrivals, seed in (("periodic", 0), ("sporadic", 1), ("sporadic", 2)):
        search = switch_search(ts, scheduler="edf-vd", x="3/10", arrivals=arrivals, seed=seed)
        assert search.failures == ()


def test_edf_vd_refuses_constrained_deadlines_that_mceval_ignores():
    """mceval's EDF-VD reads only utilizations and accepts; with x = 1/9 the LO job misses at t = 1."""
    ts = load("edf_vd_constrained.yaml")
    entry = analyses.get("mc-edf-vd")
    assert entry.supports(1, ts.deadline_model) == "needs implicit deadlines (D = T)"
    with pytest.raises(InputError, match="needs implicit deadlines"):
        entry.verdict(ts, 1)
    plan = edf_vd2012.plan(ts)  # the utilization conditions alone pass: (V1) U_LL + U_HH = 3/10
    assert (plan.case, plan.x) == ("edf", 1)
    miss = simulate_mc(ts, scheduler="edf-vd", x=Fraction(1, 9), scenario="lo").miss  # mceval's x
    assert miss is not None
    assert (miss.time, miss.task) == (1, 1)
    miss = simulate_mc(ts, scheduler="edf-vd", x=1, scenario="hi").miss  # plain EDF: the HI job misses
    assert miss is not None
    assert (miss.time, miss.task) == (2, 0)


# ---------------------------------------------------------------------------------------------
# Ekberg & Yi
# ---------------------------------------------------------------------------------------------


def test_ekberg_yi_u_hh_one_is_not_proven_though_schedulable():
    """U_HH = 1: rtsched says not proven (hi-full); mceval's D' = 1 passes both modes; no run misses."""
    ts = load("ey_u_hh_one.yaml")
    tuning = ekberg_yi2012.tune(ts)
    assert (tuning.verdict, tuning.reason, tuning.U_HH) == (False, "hi-full", 1)
    assert analyses.get("mc-edf-ey").verdict(ts, 1) is False
    assert _demand_conditions(ts, [1, 2]) == (None, None)  # mceval's deadlines: both modes hold
    assert _demand_conditions(ts, [2, 2]) == (None, 0)  # D' = D: dbf_HI(0) = 2 − 1 > 0
    assert switch_search(ts, scheduler="edf-vd", virtual_deadlines=[1, None]).failures == ()


def test_ekberg_yi_plain_edf_step_accepts_what_the_greedy_alone_rejects():
    """(E0) accepts (U_HH = 37/38, plain EDF on C(HI) fits); the greedy alone ends stuck at ℓ = 16, as mceval's."""
    ts = load("ey_plain_edf.yaml")
    tuning = ekberg_yi2012.tune(ts)
    assert (tuning.verdict, tuning.reason) == (True, "edf")
    greedy = ekberg_yi2012.tune(ts, plain_edf=False)
    assert (greedy.verdict, greedy.reason, greedy.ell, greedy.D_lo) == (False, "stuck", 16, (1, 11))
    assert _demand_conditions(ts, [1, 10])[0] == 10  # mceval's last step breaks LO mode at ℓ = 10
    assert switch_search(ts, scheduler="edf").failures == ()
    assert switch_search(ts, scheduler="edf", arrivals="sporadic", seed=4).failures == ()


def test_ekberg_yi_stuck_where_zero_drop_steps_would_have_helped():
    """rtsched stops at ℓ = 14 (no one-tick drop of dbf_HI(14)); mceval's D' = (8, 1) pass rtsched's own checks."""
    ts = load("ey_zero_drop.yaml")
    tuning = ekberg_yi2012.tune(ts)
    assert (tuning.verdict, tuning.reason, tuning.ell, tuning.demand, tuning.D_lo) == (
        False,
        "stuck",
        14,
        18,
        (6, 19, 1),
    )
    t1 = ts[1]
    # dbf_HI(14) of τ1 stays 10 for D' = 19 .. 15, then falls: the done() term needs ℓ − (D − D') < C(LO)
    assert [ekberg_yi2012.dbf_hi(t1.C_lo, t1.C_hi, t1.D, d, t1.T, 14) for d in range(19, 11, -1)] == [
        10, 10, 10, 10, 10, 9, 8, 7,
    ]  # fmt: skip
    peer = [6, 8, 1]
    assert _demand_conditions(ts, peer) == (None, None)
    assert switch_search(ts, scheduler="edf-vd", virtual_deadlines=[None, 8, 1], max_candidates=10_000).failures == ()


def test_ekberg_yi_checks_lo_mode_after_every_decrement():
    """rtsched freezes τ0 at D' = 6 (5 breaks LO mode at ℓ = 13) and accepts with D' = (6, 5); mceval kept D'0 = 5."""
    ts = load("ey_hidden_lo_failure.yaml")
    tuning = ekberg_yi2012.tune(ts)
    assert (tuning.verdict, tuning.reason, tuning.D_lo) == (True, "ok", (6, 5, 12))
    assert (2, 0) in tuning.frozen
    assert _demand_conditions(ts, [6, 5, 12]) == (None, None)
    assert _demand_conditions(ts, [5, 11, 12])[0] == 13  # the state mceval moved on from
    assert _demand_conditions(ts, [5, 6, 12])[0] == 13  # mceval's final deadlines
    assert switch_search(ts, scheduler="edf-vd", virtual_deadlines=[6, 5, None]).failures == ()


# ---------------------------------------------------------------------------------------------
# Fixed priorities (no verdict differed; definitions)
# ---------------------------------------------------------------------------------------------


def test_dm_keeps_equal_deadlines_in_the_given_order():
    """LO task first among equal deadlines: every -dm test rejects, every -opa test accepts (as mceval)."""
    ts = load("fp_dm_equal_deadlines.yaml")
    assert amc2011.deadline_monotonic(ts) == [0, 1]
    for test in amc2011.TESTS:
        assert amc2011.reference(ts, test=test, priorities="dm") is False
        assert amc2011.reference(ts, test=test, priorities="opa") is True
        swapped = ts.permuted([1, 0])
        assert amc2011.reference(swapped, test=test, priorities="dm") is True
    miss = simulate_mc(ts, scheduler="fp", policy="amc", scenario="hi").miss  # the DM order misses
    assert miss is not None
    assert miss.task == 1


def test_amc_max_iterates_from_the_switch_instant():
    """At s = 78 mceval's iteration from C(HI) = 33 falls without bound (M < 0 far below s); rtsched's starts at s."""
    ts = load("amc_max_peer_iteration_diverges.yaml")
    r2 = amc2011.task_test(ts, 2, [0, 1], "amc-max")
    assert (r2.ok, r2.R_hi, r2.failing) == (False, 14, "HI")
    higher = [0, 1, 2]
    R_lo, lo_ok = amc2011.lo_response(ts, 3, higher)
    assert (R_lo, lo_ok) == (82, True)
    assert 78 in amc2011.switch_instants(ts, higher, R_lo)
    assert amc2011.hi_response(ts, 3, higher)[1] is False  # (5): U_HH above τ3 is 4/5 + 5/7 > 1
    R78, ok78 = amc2011._amc_max_at(ts, 3, higher, 78)
    assert R78 > ts[3].D
    assert ok78 is False
    assert amc2011.reference(ts, test="amc-max", priorities="dm") is False


def test_smc_no_lo_task_with_a_hi_estimate_is_refused(capsys):
    """mceval's SMC-no reads a LO task's C(HI); rtsched's model has none: one line naming task 0 and C_HI, exit 2."""
    path = DATA / "smc_no_lo_task_c_hi.yaml"
    with pytest.raises(InputError, match=r"task 0.*C_HI.*a LO task has no C_HI budget"):
        read_mc_tasksets(path)
    assert main(["check", str(path), "--tests", "mc-smc-no-dm"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "field C_HI" in err
