"""G-FL's lateness bound (lateness-gfl): worked examples, the closed form, the bound against G-FL simulated
as G-EDF on scaled priority points (papers/erickson-anderson-ward2014-gfl.md)."""

from __future__ import annotations

import os
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rtsched import TaskSet, analyses
from rtsched.analyses.global_edf.tardiness_cva import (
    gel_as_gedf,
    gel_bounds,
    gfl_priority_points,
    lateness_bounds,
    observed_lateness,
    tardiness_bounds,
)
from rtsched.errors import InputError
from rtsched.sim import simulate

GFL = analyses.get("lateness-gfl")
F = Fraction
DHALL = [(1, 9, 9), (1, 9, 9), (10, 10, 10)]
MIXED = [(2, 6, 4), (3, 3, 6), (4, 8, 8)]


@pytest.mark.parametrize(
    ("tasks", "m", "lateness", "y_min", "s"),
    [
        # Y = D − C/2 = (17/2, 17/2, 5); Y − min Y = (7/2, 7/2, 0); S_i = (11/18, 11/18, 10), S = 101/9;
        # Newton 0 → 104/17 → 56/9 (the heavy task's line s − 5 on top); L = 56/9 − 5 = 11/9.
        pytest.param(DHALL, 2, F(11, 9), F(5), F(56, 9), id="dhall-m2"),
        # Y = (5, 3/2, 6); Y − min Y = (7/2, 0, 9/2); S_i = (1/4, 3, 7/4), S = 5; b = (5/4, −3/4, 5/4),
        # slopes 1/2: (3/2)s = 25/4, s = 25/6; L = 25/6 − 3/2 = 8/3 (G-EDF's largest: 10/3).
        pytest.param(MIXED, 2, F(8, 3), F(3, 2), F(25, 6), id="mixed-deadlines-m2"),
        # Y = (2, 2, 4); shifted (0, 0, 2); S_i = (2, 2, 8/3), S = 20/3; b = (−2/3, −2/3, 0): (4/3)s = 20/3,
        # s = 5; L = 5 − 2 = 3 (G-EDF: 3, 3, 4).
        pytest.param([(2, 3, 3), (2, 3, 3), (4, 6, 6)], 2, F(3), F(2), F(5), id="realtimescheduling-jl"),
        # m = 1: G-FL is EDF (Y = D); U = 1 implicit: lateness 0.
        pytest.param([(2, 4, 4), (3, 6, 6)], 1, F(0), F(4), F(4), id="uniprocessor-is-edf"),
    ],
)  # fmt: skip
def test_worked_examples(tasks, m, lateness, y_min, s):
    ts = TaskSet.from_tasks(tasks, deadlines="arbitrary")
    g = gel_bounds(ts, m, gfl_priority_points(ts, m))
    assert (g.Y_min, g.s) == (y_min, s)
    assert lateness_bounds(ts, m) == [lateness] * ts.n  # (GFL-L): the same bound for every task
    assert tardiness_bounds(ts, m, "gfl") == [max(F(0), lateness)] * ts.n
    ex = GFL.explain(ts, m)
    assert ex.verdict is True and ex.evidence["max_lateness"] == lateness
    assert [r["lateness"] for r in ex.per_task] == [lateness] * ts.n


def test_dhall_observed_under_gfl():
    """G-FL gives the heavy task the earlier priority point (r + 5): no job is late at all."""
    ts = TaskSet.from_tasks(DHALL)
    scaled, scale, deadlines = gel_as_gedf(ts, 2, gfl_priority_points(ts, 2))
    assert (scaled.rows(), scale, deadlines) == ([(2, 27, 18), (2, 27, 18), (20, 20, 20)], 2, [18, 18, 20])
    trace = simulate(scaled, 2, after_miss="continue", horizon=2 * 900)
    assert observed_lateness(trace, deadlines) == [-16, -14, 0]  # half ticks; the bound is 2·11/9 = 22/9


def test_registry_entry_and_not_bounded():
    assert (GFL.kind, GFL.policy, GFL.deadlines, GFL.featured) == (
        "exact",
        "global-fl:soft",
        ("implicit", "constrained", "arbitrary"),
        False,
    )
    ts = TaskSet.from_tasks([(2, 3, 3)] * 4)
    assert GFL.verdict(ts, 2) is False and "not bounded under G-FL" in GFL.explain(ts, 2).summary
    with pytest.raises(InputError, match="not bounded"):
        lateness_bounds(ts, 2)
    with pytest.raises(InputError, match="gedf or gfl"):
        lateness_bounds(TaskSet.from_tasks(DHALL), 2, "gfp")


# -- the bound against the simulator --------------------------------------------------------------
PERIODS = (2, 3, 4, 6, 8, 12)


@st.composite
def loaded_sets(draw: st.DrawFn) -> tuple[TaskSet, int]:
    """U ≤ m on m = 1..4, mostly close to m; D implicit, constrained or up to 3T."""
    m = draw(st.integers(1, 4))
    n = draw(st.integers(m + 1, 2 * m + 3))
    rows = []
    for _ in range(n):
        t = draw(st.sampled_from(PERIODS))
        rows.append([draw(st.integers(1, t)), t])
    while sum(F(c, t) for c, t in rows) > m:
        big = [i for i in range(len(rows)) if rows[i][0] > 1]
        if not big:
            rows.pop()
            continue
        rows[max(big, key=lambda i: F(rows[i][0], rows[i][1]))][0] -= 1
    out = []
    for c, t in rows:
        model = draw(st.sampled_from(("implicit", "constrained", "arbitrary")))
        d = t if model == "implicit" else draw(st.integers(c, t) if model == "constrained" else st.integers(c, 3 * t))
        out.append((c, d, t))
    return TaskSet.from_tasks(out, deadlines="arbitrary"), m


@settings(max_examples=150, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(loaded_sets(), st.lists(st.fractions(min_value=0, max_value=40, max_denominator=6), min_size=11, max_size=11))
def test_gfl_minimises_the_largest_lateness_bound(case, points):
    """rtsched's proof (papers/erickson-anderson-ward2014-gfl.md, "G-FL is optimal for the bound"): no GEL
    priority points give a smaller largest lateness bound than G-FL's, G-EDF's (Y = D) included."""
    ts, m = case
    gfl = max(gel_bounds(ts, m, gfl_priority_points(ts, m)).lateness)
    for Y in ([F(int(d)) for d in ts.D], points[: ts.n]):
        assert gfl <= max(gel_bounds(ts, m, Y).lateness), (ts.rows(), m, Y)


@settings(max_examples=100, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(loaded_sets())
def test_closed_form_is_one_bound_for_all(case):
    """(GFL-L): every task's lateness bound is s − min Y, and the explain rows say so."""
    ts, m = case
    g = gel_bounds(ts, m, gfl_priority_points(ts, m))
    assert set(g.lateness) == {g.s - g.Y_min}
    assert GFL.explain(ts, m).evidence["max_lateness"] == g.s - g.Y_min


REACH: Counter[str] = Counter()


def _runs(scaled: TaskSet, m: int, seed: int, long: int = 1):
    H, tmax = int(scaled.hyperperiod), int(scaled.T.max())
    yield simulate(scaled, m, after_miss="continue", horizon=8 * long * H)
    yield simulate(scaled, m, after_miss="continue", ties="fifo", execution="random", seed=seed, horizon=8 * long * H)
    yield simulate(
        scaled, m, after_miss="continue", arrivals="sporadic", seed=seed, p_delay=0.3, horizon=80 * long * tmax
    )
    yield simulate(scaled, m, after_miss="continue", arrivals="sporadic", ties="fifo", execution="random", seed=seed + 1,
                   p_delay=0.1, max_extra=[1] * scaled.n, horizon=80 * long * tmax)  # fmt: skip


@settings(max_examples=150, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(loaded_sets(), st.integers(0, 2**16))
def test_observed_lateness_never_exceeds_the_bound(case, seed):
    """G-FL = G-EDF on the scaled set (time × scale, deadlines scale·Y_i + K); lateness against scale·D_i."""
    ts, m = case
    bound = lateness_bounds(ts, m)[0]
    scaled, scale, deadlines = gel_as_gedf(ts, m, gfl_priority_points(ts, m))
    for trace in _runs(scaled, m, seed):
        seen = observed_lateness(trace, deadlines)
        for i, late in enumerate(seen):
            assert late is None or late <= scale * bound, (
                ts.rows(),
                m,
                trace.arrivals,
                trace.execution,
                i,
                late,
                bound,
            )
        REACH["late"] += any(x is not None and x > 0 for x in seen)
        REACH["runs"] += 1


def test_the_property_reached_late_jobs():
    if REACH["runs"] == 0:
        pytest.skip("run with test_observed_lateness_never_exceeds_the_bound")
    assert REACH["late"] >= REACH["runs"] // 20, REACH


@pytest.mark.slow
@settings(
    max_examples=5 * int(os.environ.get("RTSCHED_PROPERTY_EXAMPLES", "150")),
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(loaded_sets(), st.integers(0, 2**16))
def test_observed_lateness_never_exceeds_the_bound_slow(case, seed):
    ts, m = case
    bound = lateness_bounds(ts, m)[0]
    scaled, scale, deadlines = gel_as_gedf(ts, m, gfl_priority_points(ts, m))
    for trace in _runs(scaled, m, seed, long=4):
        assert all(x is None or x <= scale * bound for x in observed_lateness(trace, deadlines)), (ts.rows(), m)
