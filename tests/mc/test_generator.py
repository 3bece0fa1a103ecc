"""Tests of generators/mc.py (rtsched.generators.mc; papers/mc-model.md, "Generator").

Exact invariants on every drawn set (the rounding rules of C(LO) and C(HI), the bound on the
realised utilization, WCETs within deadlines within periods), reproducibility, and the
probabilities (CP, log-uniform periods) tested statistically with fixed seeds at p > 1e-3.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from rtsched.errors import InputError
from rtsched.generators import parse_periods
from rtsched.generators.mc import mc_batch, mc_tasksets, round_half_up
from rtsched.mc import MCBatch

P_MIN = 1e-3


def test_round_half_up():
    assert [round_half_up(Fraction(k, 4)) for k in range(-3, 12)] == [-1, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3]
    assert round_half_up(Fraction(2.0) * 7) == 14
    assert round_half_up(Fraction(1.5) * 3) == 5  # 4.5 rounds up


parameters = st.fixed_dictionaries(
    {
        "n": st.integers(1, 12),
        "utilization": st.floats(0.05, 0.95),
        "cp": st.sampled_from([0.0, 0.2, 0.5, 1.0]),
        "cf": st.sampled_from([1.0, 1.5, 2.0, 3.0]),
        "deadlines": st.sampled_from(["implicit", "constrained"]),
        "priorities": st.sampled_from(["drawn", "deadline-monotonic"]),
    }
)


def _draw(seed, params, size):
    try:
        return mc_tasksets(np.random.default_rng(seed), size=size, max_tries=50, **params)
    except InputError as err:
        return err


@given(seed=st.integers(0, 2**32 - 1), params=parameters)
def test_invariants_and_reproducibility(seed, params):
    sets = _draw(seed, params, 3)
    if isinstance(sets, InputError):  # rule 5 gave up: only possible when some u_i · cf can reach 1
        assert "draws all had a task whose WCET exceeds its period" in str(sets)
        assert params["cf"] * params["utilization"] > 1 or params["utilization"] > 0.5
        return
    again = mc_tasksets(np.random.default_rng(seed), size=3, max_tries=50, **params)
    assert again == sets
    fewer = mc_tasksets(np.random.default_rng(seed), size=1, max_tries=50, **params)
    assert fewer == sets[:1]  # the first sets do not depend on size
    cf = Fraction(params["cf"])
    for ts in sets:
        assert ts.n == params["n"]
        # |C(LO)/T - u_i| <= 1/(2T), or C(LO) = 1 raised from below: the total is within Σ 1/T
        assert abs(ts.utilization_lo - Fraction(params["utilization"])) <= sum(Fraction(1, t.T) for t in ts)
        for t in ts:
            assert 10 <= t.T <= 1000
            assert t.C(t.level) <= t.D <= t.T
            if t.is_hi:
                assert t.C_hi == round_half_up(cf * t.C_lo)
            if params["deadlines"] == "implicit":
                assert t.D == t.T
        if params["cp"] in (0.0, 1.0):
            assert all(t.is_hi == (params["cp"] == 1.0) for t in ts)
        if params["priorities"] == "deadline-monotonic":
            assert [t.D for t in ts] == sorted(t.D for t in ts)


def test_constrained_and_implicit_share_wcets_and_periods():
    implicit = mc_tasksets(np.random.default_rng(7), n=10, utilization=0.7, size=5)
    constrained = mc_tasksets(np.random.default_rng(7), n=10, utilization=0.7, size=5, deadlines="constrained")
    for a, b in zip(implicit, constrained, strict=True):
        assert [(t.wcets, t.T, t.level) for t in a] == [(t.wcets, t.T, t.level) for t in b]
        assert any(t.D < t.T for t in b)
    ordered = mc_tasksets(np.random.default_rng(7), n=10, utilization=0.7, size=5, priorities="deadline-monotonic")
    for a, b in zip(implicit, ordered, strict=True):
        assert sorted(a.tasks, key=lambda t: t.D) == list(b.tasks)


def test_new_children_give_new_sets():
    rng = np.random.default_rng(3)
    first = mc_tasksets(rng, n=5, utilization=0.5, size=2)
    second = mc_tasksets(rng, n=5, utilization=0.5, size=2)
    assert first != second


def test_criticality_probability():
    """The share of HI tasks is binomial(n · sets, CP) (the redraw rule almost never fires at n = 20)."""
    for cp in (0.2, 0.5, 0.8):
        sets = mc_tasksets(np.random.default_rng(11), n=20, utilization=0.8, size=100, cp=cp)
        hi = sum(len(ts.hi_tasks()) for ts in sets)
        assert stats.binomtest(hi, 2000, cp).pvalue > P_MIN, (cp, hi)


def test_period_distribution():
    """Periods follow LogUniformPeriods(10, 1000) (rtsched.generators.periods), chi-square on deciles."""
    sets = mc_tasksets(np.random.default_rng(5), n=20, utilization=0.5, size=200)
    periods = np.array([t.T for ts in sets for t in ts])
    values, probs = parse_periods("log-uniform:10:1000").probabilities()
    edges = np.quantile(values, np.linspace(0, 1, 11))
    expected = np.array(
        [probs[(values >= lo) & (values < hi)].sum() for lo, hi in zip(edges[:-1], edges[1:], strict=True)]
    )
    expected[-1] += probs[values == values[-1]].sum()
    observed = np.array(
        [np.count_nonzero((periods >= lo) & (periods < hi)) for lo, hi in zip(edges[:-1], edges[1:], strict=True)]
    )
    observed[-1] += np.count_nonzero(periods == values[-1])
    assert observed.sum() == periods.size
    assert stats.chisquare(observed, expected / expected.sum() * periods.size).pvalue > P_MIN


def test_utilization_shift_of_integer_times():
    """Periods of 10..1000 ticks: the raise to C(LO) = 1 shifts U = 0.6 up by about 0.2 at n = 20
    (the number in the note); with ticks = 1000 the mean is within 0.001 of the target, and
    C(HI)/C(LO) within 0.001 of CF."""
    sets = mc_tasksets(np.random.default_rng(9), n=20, utilization=0.6, size=100)
    shifted = np.mean([float(ts.utilization_lo) for ts in sets])
    assert 0.15 < shifted - 0.6 < 0.25
    sets = mc_tasksets(np.random.default_rng(9), n=20, utilization=0.6, size=100, ticks=1000)
    assert all(t.T % 1000 == 0 and 10_000 <= t.T <= 1_000_000 for ts in sets for t in ts)
    mean = np.mean([float(ts.utilization_lo) for ts in sets])
    assert abs(mean - 0.6) < 0.001
    sets = mc_tasksets(np.random.default_rng(9), n=20, utilization=0.6, size=100, cp=1.0, ticks=1000)
    ratio = np.mean([float(ts.U_HH / ts.U_HL) for ts in sets])
    assert abs(ratio - 2.0) < 0.001


def test_bounded_samplers_for_multiprocessor_totals():
    for method in ("uunifast-discard", "randfixedsum"):
        sets = mc_tasksets(np.random.default_rng(1), n=8, utilization=2.5, size=5, utilizations=method, umax=0.45)
        for ts in sets:
            assert all(t.C_lo <= round_half_up(Fraction(0.45) * t.T) for t in ts)
            assert all(t.C_hi <= t.T for t in ts)


def test_batch():
    batch = mc_batch(np.random.default_rng(2), n=4, utilization=0.5, size=6)
    assert isinstance(batch, MCBatch) and batch.n_sets == 6
    assert batch.tasksets() == mc_tasksets(np.random.default_rng(2), n=4, utilization=0.5, size=6)
    assert mc_tasksets(np.random.default_rng(2), n=4, utilization=0.5, size=0) == []


def test_redraw_gives_up_with_a_clear_error():
    with pytest.raises(InputError, match="WCET exceeds its period") as info:
        mc_tasksets(np.random.default_rng(0), n=1, utilization=0.9, size=1, cp=1.0, cf=2.0, max_tries=20)
    assert info.value.field == "max_tries"


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"n": 0}, "n"),
        ({"size": -1}, "size"),
        ({"utilization": 0.0}, "utilization"),
        ({"utilization": float("nan")}, "utilization"),
        ({"cp": 1.5}, "cp"),
        ({"cf": 0.5}, "cf"),
        ({"cf": True}, "cf"),
        ({"deadlines": "arbitrary"}, "deadlines"),
        ({"utilizations": "beta"}, "utilizations"),
        ({"priorities": "rate"}, "priorities"),
        ({"max_tries": 0}, "max_tries"),
        ({"umax": 0}, "umax"),
        ({"ticks": 0}, "ticks"),
        ({"ticks": 2**31}, "ticks"),
        ({"ticks": 2**22}, "ticks"),
    ],
)
def test_bad_arguments(change, field):
    args = {"n": 3, "utilization": 0.5, "size": 1} | change
    with pytest.raises(InputError) as info:
        mc_tasksets(np.random.default_rng(0), **args)
    assert info.value.field == field


def test_bad_periods():
    with pytest.raises(InputError, match="period"):
        mc_tasksets(np.random.default_rng(0), n=3, utilization=0.5, size=1, periods="log-uniform:100:10")


@pytest.mark.parametrize(
    "options",
    [
        pytest.param({}, id="defaults"),
        pytest.param({"deadlines": "constrained", "priorities": "deadline-monotonic"}, id="constrained-dm"),
        pytest.param({"ticks": 1000, "cp": 0.8, "cf": 3.0}, id="ticks"),
        pytest.param({"utilizations": "randfixedsum", "umax": 0.3, "utilization": 1.5}, id="multiprocessor"),
    ],
)
def test_batch_path_draws_the_same_sets(options):
    """mc_batch builds its arrays from the drawn rows (no task objects): the same sets as mc_tasksets."""
    params = {"n": 6, "utilization": 0.7, "size": 25, **options}
    batch = mc_batch(np.random.default_rng(11), **params)
    sets = mc_tasksets(np.random.default_rng(11), **params)
    reference = MCBatch.from_tasksets(sets)
    for name in ("C_lo", "C_hi", "T", "D", "level", "task_offsets"):
        assert np.array_equal(getattr(batch, name), getattr(reference, name)), name
    assert batch.tasksets() == sets


def test_concatenate_joins_batches_in_order():
    a = mc_batch(np.random.default_rng(3), n=3, utilization=0.5, size=4)
    b = mc_batch(np.random.default_rng(4), n=5, utilization=0.6, size=2)
    joined = MCBatch.concatenate([a, b])
    assert joined.tasksets() == a.tasksets() + b.tasksets()
    assert MCBatch.concatenate([]).n_sets == 0
