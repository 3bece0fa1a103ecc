"""Tests of the exact global fixed-priority test ``exact-gfp`` (analyses/exact/exact_gfp.py, engine in
analyses/exact/_state_space.py; note papers/exact-gfp.md).

Independent checks:

* the engine's pure-Python BFS ``reference`` (explicit (remaining, time-to-deadline,
  time-to-release) triples, no pruning) against the pruned Numba kernel;
* :func:`brute_force_miss` below, written for these tests only: every sporadic release sequence
  within a horizon, the G-FP schedule tick by tick, no state-space machinery;
* the simulator under ``policy="gfp"``: the counterexamples replay to a miss, and a miss of the
  synchronous periodic pattern is a rejection;
* on one processor, the exact uniprocessor FP test ``uni-rta``.

Then soundness: every registered G-FP test of kind "sufficient" accepts no set that
``exact-gfp`` refutes. Long runs are ``slow``; their size follows RTSCHED_PROPERTY_EXAMPLES.
"""

from __future__ import annotations

import itertools
import os
from functools import cache

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rtsched import analyses
from rtsched.analyses.exact import exact_gfp
from rtsched.kernels import ACCEPT, REJECT, UNKNOWN
from rtsched.model import TaskSet
from rtsched.sim import simulate
from rtsched.testing import strategies as rst

EXAMPLES = int(os.environ.get("RTSCHED_PROPERTY_EXAMPLES", "150"))
VERDICT = {int(ACCEPT): True, int(REJECT): False, int(UNKNOWN): "unknown"}
EXACT = analyses.get("exact-gfp")
KERNEL_BUDGET = 1_000_000
REFERENCE_BUDGET = 200_000
DHALL = [(2, 6, 6), (2, 6, 6), (6, 7, 7)]


def quick(examples: int = EXAMPLES // 2) -> settings:
    return settings(max_examples=max(10, examples), deadline=None, suppress_health_check=[HealthCheck.too_slow])


def slow(examples: int = EXAMPLES * 10) -> settings:
    return settings(max_examples=examples, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def kernel_verdict(ts, m, budget=KERNEL_BUDGET):
    return VERDICT[exact_gfp.explore(ts, m, budget=budget, shortcuts=False).code]


def brute_force_miss(rows, m, horizon):
    """Can global FP (task order) miss a deadline by ``horizon``? Tiny, slow, independent.

    Every sporadic release sequence with releases at ticks 0..horizon-1 (a task releases at least
    T ticks after its previous release); at each tick the m pending jobs of the lowest indices run
    for one tick; a job with work left at its deadline is a miss.
    """
    n = len(rows)

    @cache
    def reach(t, state):
        # state[i] = (remaining, ticks to deadline, ticks until a release is allowed)
        if t >= horizon:
            return False
        free = [i for i in range(n) if state[i][2] == 0]
        for size in range(len(free) + 1):
            for released in itertools.combinations(free, size):
                jobs = [list(x) for x in state]
                for i in released:
                    jobs[i] = [rows[i][0], rows[i][1], rows[i][2]]
                pending = [i for i in range(n) if jobs[i][0] > 0]
                for i in pending[:m]:
                    jobs[i][0] -= 1
                missed = False
                for job in jobs:
                    job[2] = max(job[2] - 1, 0)
                    if job[0] > 0:
                        job[1] -= 1
                        missed |= job[1] <= 0
                    else:
                        job[1] = 0
                if missed or reach(t + 1, tuple(tuple(j) for j in jobs)):
                    return True
        return False

    return reach(0, tuple((0, 0, 0) for _ in range(n)))


# -- registration and worked examples ----------------------------------------------------------
def test_registered():
    assert EXACT.kind == "exact"
    assert EXACT.policy == "global-fp"
    assert EXACT.budget == exact_gfp.DEFAULT_BUDGET
    assert EXACT.budget_unit == "explored states"
    assert EXACT.note == "papers/exact-gfp.md"
    for source in ("Baker", "Bonifaci", "Geeraerts", "Burmyakov"):
        assert source in EXACT.citation


@pytest.mark.parametrize(
    ("rows", "m", "expected"),
    [
        (DHALL, 2, False),  # Dhall's effect: the heavy task last misses at t = 7
        (DHALL[::-1], 2, True),  # the heavy task first: schedulable
        (DHALL, 3, True),  # n <= m
        ([(1, 1, 2), (1, 1, 2)], 1, False),  # both released at 0: the second misses at 1
        ([(1, 2, 2), (1, 2, 2)], 1, True),  # U = 1, both fit in [0, 2)
        ([(2, 2, 2), (2, 2, 2), (1, 3, 3)], 2, False),  # U > m
        ([(1, 2, 2), (1, 3, 3), (1, 6, 6)], 1, True),  # RM harmonic-ish, U = 1
        ([(1, 3, 3), (1, 2, 2), (1, 6, 6)], 1, True),  # same tasks, not RM order, still fits
        ([(3, 6, 6), (2, 4, 4)], 1, False),  # non-RM order: the period-4 task misses at 4
    ],
)
def test_worked_cases(rows, m, expected):
    ts = TaskSet.from_tasks(rows)
    assert EXACT.verdict(ts, m) is expected
    assert EXACT.reference(ts, m) is expected
    assert EXACT.explain(ts, m).verdict is expected


def test_dhall_counterexample_replays():
    ts = TaskSet.from_tasks(DHALL)
    result = EXACT.explain(ts, 2)
    assert result.verdict is False
    assert result.evidence["releases"] == ((0,), (0,), (0,))
    assert (result.evidence["miss_time"], result.evidence["miss_task"]) == (7, 2)
    trace = simulate(ts, 2, policy="gfp", releases=result.evidence["releases"])
    assert (trace.miss.time, trace.miss.task, trace.miss.remaining) == (7, 2, 1)
    assert "τ2" in result.summary and "t=7" in result.summary


def test_priority_order_matters_where_edf_ties_do_not():
    """G-FP depends on the order; G-EDF's exact test (index ties) is order-free on this set."""
    light_first, heavy_first = TaskSet.from_tasks(DHALL), TaskSet.from_tasks(DHALL[::-1])
    assert EXACT.verdict(light_first, 2) is False and EXACT.verdict(heavy_first, 2) is True
    gedf = analyses.get("exact:index")
    assert gedf.verdict(light_first, 2) is False and gedf.verdict(heavy_first, 2) is False


def test_arbitrary_deadlines_go_to_the_pending_jobs_game():
    """D > T: several pending jobs per task (analyses/exact/_pending.py; tests/analyses/exact/test_exact_arbitrary.py).

    τ0 = (1, 3, 2) has the highest priority and runs at each release; τ1 = (1, 1, 2) must run in
    its release tick, which it cannot when τ0 is released with it: not schedulable on m = 1.
    """
    ts = TaskSet.from_tasks([(1, 3, 2), (1, 1, 2)], deadlines="arbitrary")
    result = exact_gfp.explore(ts, 1)
    assert result.code == REJECT and exact_gfp.reference(ts, 1) is False
    assert simulate(ts, 1, policy="gfp", releases=result.releases).miss is not None


def test_u_above_m_explained_with_a_sequence():
    ts = TaskSet.from_tasks([(2, 2, 2), (2, 2, 2), (1, 3, 3)])
    result = EXACT.explain(ts, 2)
    assert result.verdict is False
    assert result.evidence["reason"] == "utilization"
    assert "releases" in result.evidence
    assert simulate(ts, 2, policy="gfp", releases=result.evidence["releases"]).miss is not None


def test_budget_gives_unknown_never_false():
    ts = TaskSet.from_tasks([(2, 5, 7), (3, 9, 11), (4, 12, 13), (2, 8, 9)])
    small = exact_gfp.explore(ts, 2, budget=50)
    assert small.code == UNKNOWN
    assert EXACT.verdict(ts, 2, 50) == "unknown"
    assert EXACT.explain(ts, 2, 50).verdict == "unknown"
    assert EXACT.verdict(ts, 2) in (True, False)


def test_default_skip_like_exact():
    big = TaskSet.from_tasks([(1, 97, 97), (1, 89, 89), (1, 83, 83), (1, 79, 79), (1, 73, 73)])
    assert "exact-gfp" in EXACT.default_skip(big, 2)
    assert EXACT.default_skip(TaskSet.from_tasks(DHALL), 2) is None


# -- kernel == reference == brute force --------------------------------------------------------
def test_brute_force_sanity():
    assert brute_force_miss(DHALL, 2, 8) is True
    assert brute_force_miss(DHALL[::-1], 2, 14) is False


def test_exhaustive_three_tasks_periods_up_to_three_against_brute_force():
    rows_all = [(c, d, t) for t in range(1, 4) for d in range(1, t + 1) for c in range(1, d + 1)]
    for rows in itertools.product(rows_all, repeat=3):
        ts = TaskSet.from_tasks(list(rows))
        for m in (1, 2):
            expected = not brute_force_miss(list(rows), m, 8)
            assert kernel_verdict(ts, m) is expected, (rows, m)


@quick()
@given(ts=rst.tasksets(min_size=2, max_size=4, max_period=4), m=st.integers(1, 3))
def test_against_brute_force(ts, m):
    # a miss of a set with periods <= 4 and n <= 4 shows within 2 * max states... horizon 16
    assert kernel_verdict(ts, m) is (not brute_force_miss(ts.rows(), m, 16))


@quick(EXAMPLES * 2)
@given(ts=rst.tasksets(max_size=4, max_period=5), m=st.integers(1, 3))
def test_kernel_equals_reference(ts, m):
    assert kernel_verdict(ts, m) == exact_gfp.reference(ts, m, REFERENCE_BUDGET)
    assert EXACT.verdict(ts, m, KERNEL_BUDGET) == EXACT.reference(ts, m, REFERENCE_BUDGET)


@pytest.mark.slow
@slow()
@given(ts=rst.tasksets(max_size=5, max_period=6), m=st.integers(1, 3))
def test_kernel_equals_reference_long(ts, m):
    ref = exact_gfp.reference(ts, m, REFERENCE_BUDGET)
    if ref != "unknown":
        assert kernel_verdict(ts, m) == ref


@quick()
@given(ts=rst.tasksets(max_size=5, max_period=8))
def test_m1_equals_uniprocessor_rta(ts):
    """On one processor G-FP is uniprocessor FP, which ``uni-rta`` decides exactly."""
    assert EXACT.verdict(ts, 1, KERNEL_BUDGET) == analyses.get("uni-rta").verdict(ts, 1)


# -- counterexamples and the simulator ---------------------------------------------------------
@quick()
@given(ts=rst.tasksets(min_size=2, max_size=5, max_period=8), m=st.integers(1, 3))
def test_counterexample_replays_to_the_same_miss(ts, m):
    result = EXACT.explain(ts, m, KERNEL_BUDGET)
    if result.verdict is not False or "releases" not in result.evidence:
        return
    releases = result.evidence["releases"]
    for record in (True, False):
        miss = simulate(ts, m, policy="gfp", releases=releases, record=record).miss
        assert miss is not None
        assert (miss.time, miss.task) == (result.evidence["miss_time"], result.evidence["miss_task"])


def _periodic_miss(ts, m):
    return simulate(ts, m, policy="gfp", horizon=ts.hyperperiod, record=False).miss


@quick()
@given(ts=rst.tasksets(min_size=2, max_size=5, max_period=8), m=st.integers(1, 3))
def test_agrees_with_the_simulator_on_synchronous_release(ts, m):
    """A miss of the synchronous periodic pattern is a legal sporadic behaviour: exact-gfp rejects."""
    if _periodic_miss(ts, m) is not None:
        assert EXACT.verdict(ts, m, KERNEL_BUDGET) is False


@pytest.mark.slow
@slow()
@given(ts=rst.tasksets(min_size=2, max_size=6, max_period=10), m=st.integers(1, 4))
def test_agrees_with_the_simulator_long(ts, m):
    if _periodic_miss(ts, m) is not None:
        assert EXACT.verdict(ts, m, KERNEL_BUDGET) is False


def test_synchronous_release_is_not_the_worst_case_for_gfp():
    """A witness found by search: G-FP meets every deadline of the synchronous periodic pattern
    but misses under another sporadic pattern, which only the exact test finds."""
    rows = _sync_not_worst()
    assert rows is not None
    ts = TaskSet.from_tasks(rows)
    assert _periodic_miss(ts, 2) is None
    result = EXACT.explain(ts, 2)
    assert result.verdict is False
    assert simulate(ts, 2, policy="gfp", releases=result.evidence["releases"]).miss is not None


@cache
def _sync_not_worst():
    rows_all = [(c, d, t) for t in range(2, 6) for d in range(2, t + 1) for c in range(1, d + 1)]
    for rows in itertools.product(rows_all, repeat=3):
        ts = TaskSet.from_tasks(list(rows))
        if _periodic_miss(ts, 2) is None and EXACT.verdict(ts, 2) is False:
            return list(rows)
    return None


# -- soundness of the sufficient G-FP tests ------------------------------------------------------
def _sufficient_gfp():
    return [e for e in analyses.all_entries() if e.policy == "global-fp" and e.kind == "sufficient"]


def _as_scheduled(entry, ts, m):
    """The set in the priority order the test's verdict is about: ``rm-us`` prescribes its own
    rule (RM-US[m/(3m-2)]); every other G-FP test takes the given order."""
    if entry.name == "rm-us":
        from rtsched.analyses.global_fp import rm_us

        return ts.subset(rm_us.rmus_order(ts, m))
    return ts


def _check_sound(ts, m):
    for entry in _sufficient_gfp():
        if entry.supports(m, ts) is not None:
            continue
        if entry.verdict(ts, m) is True:
            ordered = _as_scheduled(entry, ts, m)
            assert EXACT.verdict(ordered, m, KERNEL_BUDGET) is not False, (entry.name, ordered.rows(), m)


def test_sufficient_gfp_tests_are_registered():
    names = {e.name for e in _sufficient_gfp()}
    assert {"gfp-bcl", "gfp-rta", "gfp-rta-lc"} <= names


# (task set, m) drawn per deadline model; each variant keeps its own example budget.
SOUND_CASES = [
    pytest.param(st.tuples(rst.tasksets(min_size=2, max_size=5, max_period=10), st.integers(1, 3)), id="constrained"),
    pytest.param(
        st.tuples(rst.tasksets(min_size=2, max_size=5, max_period=10, deadlines="implicit"), st.integers(2, 3)),
        id="implicit",
    ),
]
SOUND_CASES_LONG = [
    pytest.param(st.tuples(rst.tasksets(min_size=2, max_size=6, max_period=12), st.integers(1, 4)), id="constrained"),
    pytest.param(
        st.tuples(rst.tasksets(min_size=3, max_size=6, max_period=12, deadlines="implicit"), st.integers(2, 4)),
        id="implicit",
    ),
]


@pytest.mark.parametrize("cases", SOUND_CASES)
@quick()
@given(data=st.data())
def test_sufficient_gfp_tests_sound(cases, data):
    _check_sound(*data.draw(cases))


@pytest.mark.slow
@pytest.mark.parametrize("cases", SOUND_CASES_LONG)
@slow()
@given(data=st.data())
def test_sufficient_gfp_tests_sound_long(cases, data):
    _check_sound(*data.draw(cases))
