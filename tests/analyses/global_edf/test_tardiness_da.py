"""Devi–Anderson tardiness bound (tardiness-da): worked examples, kernel == reference, the bound against the simulator."""

from __future__ import annotations

import os
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rtsched import TaskSet, TaskSetBatch, analyses
from rtsched.analyses.global_edf import tardiness_da
from rtsched.analyses.global_edf.tardiness_da import tardiness_bounds, terms
from rtsched.errors import InputError
from rtsched.kernels import ACCEPT, REJECT
from rtsched.sim import simulate
from rtsched.testing import strategies as rst

DA = analyses.get("tardiness-da")
DHALL = [(1, 9, 9), (1, 9, 9), (10, 10, 10)]  # examples/tasksets/dhall.txt: G-EDF misses at t = 10 on m = 2


@pytest.mark.parametrize(
    ("tasks", "m", "expected"),
    [
        # RealTimeScheduling.jl's documented example (tasks (T=3, C=2), (3, 2), (6, 4) on m = 2):
        # U = 2, Λ = U − 1 = 1, E_L = 4, U_L = 0, e_min = 2, x = (4 − 2)/2 = 1 → 3, 3, 5.
        pytest.param([(2, 3, 3), (2, 3, 3), (4, 6, 6)], 2, [3, 3, 5], id="realtimescheduling-jl-doc"),
        # Dhall's set: U = 11/9, Λ = ⌊11/9⌋ = 1, E_L = 10, U_L = 0, e_min = 1, x = 9/2.
        pytest.param(DHALL, 2, [Fraction(11, 2), Fraction(11, 2), Fraction(29, 2)], id="dhall-m2"),
        # U = 5/2 on m = 3: Λ = 2, E_L = 5 + 4 = 9, U_L = 5/6 (largest u), e_min = 1,
        # x = 8/(3 − 5/6) = 48/13.
        pytest.param(
            [(5, 6, 6), (4, 6, 6), (3, 6, 6), (1, 6, 6), (1, 6, 6), (1, 6, 6)],
            3,
            [Fraction(48, 13) + c for c in (5, 4, 3, 1, 1, 1)],
            id="u-5/2-m3",
        ),  # fmt: skip
        # U = 1/2 ≤ 1: Λ = 0, x clipped at 0 (G-EDF meets every deadline), bound e_k.
        pytest.param([(1, 4, 4), (1, 4, 4)], 2, [1, 1], id="light-lambda-0"),
    ],
)
def test_worked_bounds(tasks, m, expected):
    ts = TaskSet.from_tasks(tasks)
    assert tardiness_bounds(ts, m) == expected
    assert DA.verdict(ts, m) is True and tardiness_da.reference(ts, m) is True
    rows = DA.explain(ts, m).per_task
    assert [r["bound"] for r in rows] == expected
    assert [r["bound_ticks"] for r in rows] == [int(Fraction(b)) for b in expected]


def test_dhall_terms_and_observed_tardiness():
    """The worked example of the note: G-EDF misses, the tardiness stays within the bound."""
    ts = TaskSet.from_tasks(DHALL)
    t = terms(ts, 2)
    assert (t["U"], t["Lambda"], t["E_L"], t["U_L"], t["e_min"], t["x"]) == (
        Fraction(11, 9),
        1,
        10,
        0,
        1,
        Fraction(9, 2),
    )
    assert simulate(ts, 2).miss is not None  # hard real-time: not schedulable
    trace = simulate(ts, 2, after_miss="continue", horizon=900)
    assert trace.tardiness == (
        0,
        0,
        2,
    )  # the heavy task is 2 ticks late at worst (papers/devi-anderson2008-tardiness.md)
    assert all(o <= b for o, b in zip(trace.tardiness, tardiness_bounds(ts, 2), strict=True))


@pytest.mark.parametrize(
    ("tasks", "m"),
    [
        pytest.param([(2, 3, 3)] * 4, 2, id="u-8/3-over-m2"),
        pytest.param([(1, 3, 3)] * 7, 2, id="u-7/3-just-over-m2"),
        pytest.param([(1, 1, 1)] * 2, 1, id="u-2-m1"),
    ],
)
def test_overloaded_is_not_bounded(tasks, m):
    ts = TaskSet.from_tasks(tasks)
    assert DA.verdict(ts, m) is False and DA.reference(ts, m) is False
    assert "not bounded" in DA.explain(ts, m).summary
    with pytest.raises(InputError, match="not bounded"):
        tardiness_bounds(ts, m)
    # and the simulator's tardiness grows with the horizon (the backlog of U > m)
    short, long = (max(simulate(ts, m, after_miss="continue", horizon=h, record=False).tardiness) for h in (30, 300))
    assert long > short


def test_utilization_above_one_is_refused_by_the_kernel():
    """u_i > 1 cannot be a TaskSet (C ≤ D = T); the kernel decides it on integers all the same."""
    C, T = np.array([3, 1], dtype=np.int64), np.array([2, 5], dtype=np.int64)
    assert tardiness_da._da_one(C, T, T, 4) == REJECT
    assert tardiness_da._da_one(np.array([2, 1], dtype=np.int64), T, T, 4) == ACCEPT


def test_exactly_on_the_bound_and_float_traps():
    for tasks, m in (([(1, 3, 3)] * 6, 2), ([(1, 10, 10), (2, 10, 10), (7, 10, 10)], 1), ([(1, 3, 3)] * 9, 3)):
        ts = TaskSet.from_tasks(tasks)
        assert DA.verdict(ts, m) is True
        assert DA.batch(TaskSetBatch.from_tasksets([ts]), m)[0]


def test_registry_entry_and_constrained_refused():
    assert (DA.kind, DA.policy, DA.deadlines, DA.featured) == ("exact", "global-edf:soft", ("implicit",), False)
    assert DA.supports(2, "constrained") is not None
    with pytest.raises(InputError, match="implicit"):
        tardiness_bounds(TaskSet.from_tasks([(1, 3, 4)]), 2)


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(rst.batches(max_sets=12, deadlines="implicit", max_period=30), st.integers(1, 4))
def test_kernel_equals_reference(batch, m):
    got = DA.status(batch, m)
    for s, ts in enumerate(batch):
        assert int(got[s]) == int(tardiness_da.reference(ts, m)), (ts.rows(), m)


# -- the bound against the simulator ------------------------------------------------------------
PERIODS = (2, 3, 4, 6, 8, 12)  # hyperperiod ≤ 24: long periodic horizons stay cheap


@st.composite
def loaded_sets(draw: st.DrawFn) -> tuple[TaskSet, int]:
    """An implicit-deadline set with U ≤ m on m = 2..4, most of them close to m (where G-EDF misses)."""
    m = draw(st.integers(2, 4))
    n = draw(st.integers(m + 1, 2 * m + 3))  # U drawn mostly above m, then shrunk to just below
    rows = []
    for _ in range(n):
        t = draw(st.sampled_from(PERIODS))
        rows.append([draw(st.integers(1, t)), t])
    # shrink C, largest utilization first, until U ≤ m exactly (never below 1)
    while sum(Fraction(c, t) for c, t in rows) > m:
        big = [i for i in range(len(rows)) if rows[i][0] > 1]
        if not big:  # every C is 1: drop a task instead
            rows.pop()
            continue
        k = max(big, key=lambda i: Fraction(rows[i][0], rows[i][1]))
        rows[k][0] -= 1
    return TaskSet.from_tasks([(c, t, t) for c, t in rows]), m


REACH: Counter[str] = Counter()


@settings(max_examples=120, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(loaded_sets(), st.integers(0, 2**16))
def test_observed_tardiness_never_exceeds_the_bound(case, seed):
    ts, m = case
    assert DA.verdict(ts, m) is True
    bounds = tardiness_bounds(ts, m)
    runs = [
        simulate(ts, m, after_miss="continue", horizon=20 * int(ts.hyperperiod), record=False),
        simulate(ts, m, after_miss="continue", arrivals="sporadic", seed=seed, p_delay=0.3, horizon=150 * int(ts.T.max()), record=False),
        simulate(ts, m, after_miss="continue", ties="fifo", arrivals="sporadic", seed=seed + 1, p_delay=0.1, max_extra=[1] * ts.n,
                 horizon=150 * int(ts.T.max()), record=False),
    ]  # fmt: skip
    for trace in runs:
        assert trace.tardiness is not None
        for i, (seen, bound) in enumerate(zip(trace.tardiness, bounds, strict=True)):
            assert seen <= bound, (ts.rows(), m, trace.arrivals, i, seen, bound)
        REACH["late"] += any(trace.tardiness)
        REACH["runs"] += 1


@pytest.mark.slow
@settings(
    max_examples=10 * int(os.environ.get("RTSCHED_PROPERTY_EXAMPLES", "150")),
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(loaded_sets(), st.integers(0, 2**16), st.integers(2, 6))
def test_observed_tardiness_never_exceeds_the_bound_slow(case, seed, factor):
    """Ten times the draws, longer sporadic runs, larger delays (``max_extra`` up to factor·T)."""
    ts, m = case
    bounds = tardiness_bounds(ts, m)
    for arrivals, horizon in (("periodic", 60 * int(ts.hyperperiod)), ("sporadic", 600 * int(ts.T.max()))):
        trace = simulate(ts, m, after_miss="continue", arrivals=arrivals, seed=seed, p_delay=0.2,
                         max_extra=[factor * int(t) for t in ts.T], horizon=horizon, record=False)  # fmt: skip
        assert all(seen <= bound for seen, bound in zip(trace.tardiness, bounds, strict=True)), (ts.rows(), m)


def test_the_property_reached_late_jobs():
    """The property above judged the bound on runs with deadline misses (else it proves nothing)."""
    if REACH["runs"] == 0:
        pytest.skip("run with test_observed_tardiness_never_exceeds_the_bound")
    assert REACH["late"] >= REACH["runs"] // 5, REACH  # 136 of 360 runs at 120 examples
