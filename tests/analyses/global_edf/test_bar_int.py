"""bar-int (rtsched's integer-time tightening of BAR, papers/bar-int.md): evidence, bar-int ⊇ bar,
soundness against ``exact`` (every tie rule). Its worked cases, kernel == reference, budgets and the
skip rule are checked in tests/analyses/global_edf/test_bar.py, parametrized over BAR and bar-int."""

import os
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rtsched import TaskSet, TaskSetBatch, registry
from rtsched.analyses.global_edf import bar, bar_int
from rtsched.testing import strategies as rst

BAR_INT = registry.get("bar-int")
BAR = registry.get("bar")
EXAMPLES = int(os.environ.get("RTSCHED_PROPERTY_EXAMPLES", "150"))
#: States the exact test may explore per set in the soundness checks ("unknown" beyond: skipped).
EXACT_BUDGET = 200_000


def test_registered_as_rtscheds_result():
    assert BAR_INT.citation.startswith("rtsched's integer-time tightening of Baruah, RTSS 2007 (BAR)")
    assert BAR_INT.featured and BAR_INT.kind == "sufficient" and BAR_INT.policy == "global-edf"
    assert BAR_INT.order == 5.5 and BAR_INT.note == "papers/bar-int.md"
    assert BAR_INT.budget == BAR.budget


def test_worked_example_evidence():
    ts = TaskSet.from_tasks([(2, 3, 3)] * 3)
    lhs, rhs, I1, I_diff = bar_int.condition(ts, 3, 0, 0)
    assert (lhs, rhs, I1, I_diff) == (4, 5, [0, 2, 2], [0, 0, 0])
    assert bar.condition_8(ts, 3, 0, 0)[:2] == (4, 3)
    assert bar_int.ak_bounds(ts, 3) == [Fraction(3)] * 3  # (C_Σ + 2·(2 − 1))/(3 − 2) − 3
    res = BAR_INT.explain(ts, 3)
    assert res.verdict is True and "(8-int) holds" in res.summary


def test_worked_example_2_evidence():
    """Note, worked example 2: bar fails at (k = 0, A_k = 0) with 1 > 0; (8-int) holds there with
    equality (1 ≤ 0 + 1) and everywhere up to (9-int); exact confirms."""
    ts = TaskSet.from_tasks([(1, 1, 2), (1, 2, 2), (1, 2, 2)])
    out = bar.analyse(ts, 2)
    assert out.verdict is False and (out.task, out.A, out.lhs, out.rhs) == (0, 0, 1, 0)
    assert bar_int.condition(ts, 2, 0, 0) == (1, 1, [0, 0, 0], [0, 1, 1])
    assert bar_int.ak_bounds(ts, 2) == [2, 1, 1] and bar.ak_bounds(ts, 2) == [6, 5, 5]
    assert bar_int.analyse(ts, 2).points == 11
    assert _exact_code(ts, 2) == 1


def test_failure_evidence():
    ts = TaskSet.from_tasks([(2, 6, 6), (2, 6, 6), (6, 7, 7)])
    res = BAR_INT.explain(ts, 2)
    assert res.verdict is False
    ev = res.evidence
    assert ev["lhs"] > ev["rhs"]
    lhs, rhs, _, _ = bar_int.condition(ts, 2, ev["task"], ev["A_k"])
    assert (lhs, rhs) == (ev["lhs"], ev["rhs"])
    assert "(8-int) fails" in res.summary and "m·(A_k + D_k − C_k) + m − 1" in res.summary


def test_bound_by_hand():
    # (1,5,10), (2,8,12), (3,20,20), m = 2: U = 5/12, C_Σ = 3, Y = Σ(T−D)U = 1/2 + 2/3 = 7/6.
    ts = TaskSet.from_tasks([(1, 5, 10), (2, 8, 12), (3, 20, 20)])
    mu = 2 - Fraction(5, 12)
    b = bar_int.ak_bounds(ts, 2)
    for k, (c, d) in enumerate([(1, 5), (2, 8), (3, 20)]):
        assert b[k] == (Fraction(7, 6) + 3 + (c - 1)) / mu - d
        assert b[k] <= bar.ak_bounds(ts, 2)[k]  # never above Eq. (9): fewer points to check


@settings(max_examples=150)
@given(rst.tasksets(max_size=7, max_period=40), st.integers(1, 6))
def test_accepts_everything_bar_accepts(ts, m):
    """bar-int's right side is bar's plus m − 1 and its A_k range is no larger: bar ⇒ bar-int
    (equal verdicts at m = 1, where the two conditions coincide)."""
    theirs, ours = bar.reference(ts, m), bar_int.reference(ts, m)
    if theirs is True:
        assert ours is True
    if m == 1:
        assert ours == theirs


@settings(max_examples=100)
@given(rst.tasksets(max_size=6, max_period=20), st.integers(1, 4))
def test_bound_is_safe(ts, m):
    """Beyond (9-int), up to twice as far, (8-int) holds at every A_k (the bound's derivation)."""
    if ts.utilization >= m:
        return
    for k, bound in enumerate(bar_int.ak_bounds(ts, m)):
        start = max(0, bound.__floor__() + 1)
        for A in range(start, start + 2 * start + 10):
            lhs, rhs, _, _ = bar_int.condition(ts, m, k, A)
            assert lhs <= rhs, (k, A)


@settings(max_examples=100)
@given(rst.tasksets(max_size=6, max_period=20), st.integers(1, 4))
def test_same_condition_as_gedf_mpr_on_dedicated_processors(ts, m):
    """(8-int) is the condition DEM < m·t of gedf-mpr on ⟨1, m, m⟩ (papers/bar-int.md); only the A_k
    ranges and budgets differ, so decided verdicts coincide."""
    ours = BAR_INT.verdict(ts, m)
    theirs = registry.get("gedf-mpr").verdict(ts, m)
    if "unknown" not in (ours, theirs):
        assert ours == theirs


@given(rst.tasksets(max_size=6, max_period=25), st.integers(1, 5))
def test_utilization_at_least_m_not_proven(ts, m):
    if ts.utilization >= m:
        assert bar_int.reference(ts, m) is False
        assert BAR_INT.status(TaskSetBatch.from_tasksets([ts]), m)[0] == 0
        assert BAR_INT.verdict(ts, m) is False


# -- soundness against the exact G-EDF test (every tie-breaking rule) -----------------------------
def _small_sets(seed: int, count: int) -> list[tuple[TaskSet, int]]:
    """Seeded small sets (n = 2..5, T = 2..10, C ≤ D ≤ T) with m = 2..4: where exact is cheap and
    ties at equal deadlines are frequent."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        n = int(rng.integers(2, 6))
        T = rng.integers(2, 11, n)
        D = [int(rng.integers(1, t + 1)) for t in T]
        C = [int(rng.integers(1, d + 1)) for d in D]
        m = int(rng.integers(2, 5))
        out.append((TaskSet.from_tasks(list(zip(C, D, T.tolist(), strict=True))), m))
    return out


def _exact_code(ts: TaskSet, m: int) -> int:
    return int(registry.get("exact").status(TaskSetBatch.from_tasksets([ts]), m, EXACT_BUDGET)[0])


def _exact_code_of_accepted(ts: TaskSet, m: int) -> int:
    """``exact``'s code for a set bar-int accepts: 1 (confirmed) or -1 (beyond the budget), never 0."""
    code = _exact_code(ts, m)
    assert code != 0, f"bar-int accepts {ts!r} on m={m}, exact rejects it"
    return code


def test_sound_on_a_seeded_corpus():
    """300 small seeded sets: every bar-int acceptance is confirmed by ``exact`` (none unsound);
    bar-int accepts strictly more than bar there."""
    accepted = confirmed = bar_accepted = 0
    for ts, m in _small_sets(2024, 300):
        ours = BAR_INT.verdict(ts, m)
        if BAR.verdict(ts, m) is True:
            bar_accepted += 1
            assert ours is True
        if ours is not True:
            continue
        accepted += 1
        confirmed += _exact_code_of_accepted(ts, m) == 1
    assert accepted > bar_accepted and confirmed == accepted


@pytest.mark.slow
@pytest.mark.parametrize(
    "sets_and_m",
    [
        pytest.param(st.tuples(rst.tasksets(min_size=2, max_size=6, max_period=12), st.integers(1, 4)), id="general"),
        # Short periods: ties at the m-th deadline and zero-slack points of (8-int) are frequent.
        pytest.param(
            st.tuples(rst.tasksets(min_size=3, max_size=6, max_period=4), st.integers(2, 4)), id="short-periods"
        ),
    ],
)
@settings(max_examples=10 * EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_sound_against_exact(sets_and_m, data):
    ts, m = data.draw(sets_and_m)
    if BAR_INT.verdict(ts, m) is True:
        _exact_code_of_accepted(ts, m)
