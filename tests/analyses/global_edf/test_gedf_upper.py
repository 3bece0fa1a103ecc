"""gedf-upper: the upper bound of G-EDF schedulability drawn on sweep plots (papers/gedf-upper.md)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rtsched
from rtsched import registry
from rtsched.model import TaskSet, TaskSetBatch
from rtsched.sim import simulate
from rtsched.testing import strategies as rst

UPPER = "gedf-upper"
SUFFICIENT = ["gfb", "bak", "bcl", "bcl-iter", "rta", "bar", "bar-int", "load", "ffdbf"]


def random_sets(count: int, seed: int, m: int, t_max: int = 30) -> list[TaskSet]:
    rng = np.random.default_rng(seed)
    sets = []
    for _ in range(count):
        n = int(rng.integers(m + 1, m + 5))
        T = rng.integers(3, t_max + 1, size=n)
        D = np.array([rng.integers(max(1, t // 2), t + 1) for t in T])
        C = np.array([rng.integers(1, max(2, d // 2 + 1)) for d in D])
        sets.append(TaskSet(C, D, T))
    return sets


def test_registered_as_a_featured_necessary_global_edf_analysis() -> None:
    entry = registry.get(UPPER)
    assert (entry.kind, entry.policy, entry.featured, entry.budget) == ("necessary", "global-edf", True, None)


@pytest.mark.parametrize("m", [2, 3])
def test_above_every_sufficient_test_and_equal_to_exact_where_exact_decides(m: int) -> None:
    """A bound: every set a sufficient G-EDF test or `exact` proves is not refuted; a refuted set
    is refuted by a proof (U > m, exact, or a simulated miss that rtsched.sim reproduces)."""
    sets = random_sets(150, seed=m, m=m)
    batch = TaskSetBatch.from_tasksets(sets)
    upper = registry.get(UPPER).status(batch, m)
    for name in SUFFICIENT:
        proven = registry.get(name).status(batch, m)
        assert not np.any((proven == 1) & (upper == 0)), name
    exact = registry.get("exact").status(batch, m, budget=20_000)
    assert not np.any((exact == 1) & (upper == 0))
    for ts, code, ex in zip(sets, upper.tolist(), exact.tolist(), strict=True):
        if code == 0 and ts.utilization <= m and ex != 0:
            assert simulate(ts, m, record=False).miss is not None, ts.rows()


def test_refutations_say_why() -> None:
    dhall = TaskSet.from_tasks([(2, 6, 6), (2, 6, 6), (6, 7, 7)])
    assert registry.get(UPPER).verdict(dhall, 2) is False
    over = TaskSet.from_tasks([(3, 4, 4), (3, 4, 4), (3, 4, 4)])
    result = registry.get(UPPER).explain(over, 2)
    assert result.verdict is False and "U = " in result.summary and "> m" in result.summary
    report = rtsched.check(dhall, 2, tests=[UPPER])
    assert report.schedulable is False and report.policy_verdicts()["global-edf"] == "NOT schedulable"


def test_not_a_proof_of_schedulability() -> None:
    """Not refuted is not 'schedulable': Report.schedulable ignores the necessary kind."""
    ts = TaskSet.from_tasks([(1, 10, 10), (1, 10, 10), (1, 10, 10)])
    report = rtsched.check(ts, 2, tests=[UPPER])
    assert report.verdicts[UPPER] is True and report.schedulable is False


def test_simulated_window_is_bounded() -> None:
    from rtsched.analyses.global_edf.gedf_upper import HORIZON_PERIODS, MAX_JOBS, horizon

    assert horizon([6, 7]) == 42  # one hyperperiod
    assert horizon([1000, 99991]) == HORIZON_PERIODS * 99991
    many = [3] * 1000
    assert horizon(many) <= MAX_JOBS * 3 / 1000 + 1


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(1, 2**31 - 1) | st.integers(1, 60), min_size=1, max_size=12))
def test_the_kernel_horizon_is_horizon(periods: list[int]) -> None:
    """The batch kernel's window (``_horizon_nb``) is :func:`horizon`'s, to the tick."""
    from rtsched.analyses.global_edf.gedf_upper import _horizon_one, horizon

    assert _horizon_one(np.array(periods, dtype=np.int64)) == horizon(periods)


@settings(max_examples=300, deadline=None)
@given(rst.tasksets(max_size=9, max_period=40), st.integers(1, 4), st.integers(1, 400))
def test_the_kernel_simulation_is_the_reference(ts: TaskSet, m: int, h: int) -> None:
    """The batch kernel's synchronous-release G-EDF run finds the reference's first miss (or none),
    on the full window and on a short one, and agrees with rtsched.sim."""
    from rtsched.analyses.global_edf.gedf_upper import _first_miss_one, _simulate_reference, horizon

    for window in (horizon(ts.T), h):
        expected = _simulate_reference(ts, m, window)
        assert _first_miss_one(ts.C, ts.D, ts.T, m, window) == (-1 if expected is None else expected)
        found = simulate(ts, m, horizon=window, record=False).miss
        assert (found is None) == (expected is None)


@pytest.mark.parametrize("m", [1, 2, 4])
def test_batch_codes_are_the_reference(m: int) -> None:
    """The batch path (vectorised U, exact where small, the simulation kernel) gives the
    reference's verdict on every set, including sets near U = m and sets exact decides."""
    rng = np.random.default_rng(40 + m)
    sets = random_sets(60, seed=m, m=m)
    for _ in range(60):  # large periods: the simulation kernel's path
        n = int(rng.integers(m + 1, m + 8))
        T = rng.integers(200, 5000, size=n)
        D = np.array([rng.integers(max(1, t // 2), t + 1) for t in T])
        C = np.array([rng.integers(1, max(2, (d * 2 * m) // n)) for d in D])
        sets.append(TaskSet(np.minimum(C, D), D, T))
    sets.append(TaskSet.from_tasks([(1, 2, 2)] * (2 * m)))  # U = m exactly: the rational fallback
    sets.append(TaskSet.from_tasks([(1, 2, 2)] * (2 * m) + [(1, 1000, 1000)]))  # U just above m
    batch = TaskSetBatch.from_tasksets(sets)
    codes = registry.get(UPPER).status(batch, m)
    expected = [1 if registry.get(UPPER).reference(ts, m) else 0 for ts in sets]
    assert codes.tolist() == expected
