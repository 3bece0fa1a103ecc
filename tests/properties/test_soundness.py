"""Soundness of every registered analysis against the exact G-EDF test and the simulator.

A sufficient global EDF test claims that every G-EDF implementation meets every deadline,
whatever it does between equal deadlines; so it is judged against ``exact`` (every tie-breaking
rule, papers/gedf-ties.md), not ``exact:index`` (lowest-index ties only):

* every sufficient global EDF analysis ⇒ ``exact`` on small sets (n ≤ 6, periods ≤ 12); an
  "unknown" from the exact test is skipped, never counted; short periods are drawn often, since
  that is where ties at the m-th deadline (and the sets only they refute) are frequent;
* on larger sets no analysis accepts a set on which the simulator finds a miss (synchronous
  periodic and seeded sporadic releases, under the index, FIFO and seeded random tie rules, WCET
  and seeded random execution times; partitioned analyses are simulated on the assignment their
  explanation gives, index ties);
* on m = 1 every global EDF analysis ⇒ ``uni-qpa`` (when registered), and every uniprocessor
  analysis that claims schedulability agrees with ``exact``.

The analyses are taken from the registry (``all_entries()`` filtered by policy, kind and
platform), so analyses registered later are checked too. Budget: RTSCHED_PROPERTY_EXAMPLES
examples per property (default 150); the ``slow`` variants run ten times more on larger sets.
Each property counts the branches it reached (``reach``, printed at the end of the run, and
hypothesis ``event``s) and fails if too few examples reached the branch that can refute an
analysis (exact's rejections, simulated misses, simulated partitioned acceptances).
"""

from __future__ import annotations

import itertools
import os

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from rtsched import analyses
from rtsched.kernels import ACCEPT, REJECT
from rtsched.model import TaskSet, TaskSetBatch
from rtsched.sim import simulate
from rtsched.testing import strategies as rst

EXAMPLES = int(os.environ.get("RTSCHED_PROPERTY_EXAMPLES", "150"))
EXACT_BUDGET = 300_000  # explored states
EXACT = analyses.get("exact")
CODE = {True: int(ACCEPT), False: int(REJECT), "unknown": -1}


pytestmark = pytest.mark.usefixtures("one_numba_thread")  # tests/conftest.py


def _entries(policy: str, kind: str | None = None, platform: str = "identical") -> list:
    return [
        e
        for e in analyses.all_entries()
        if e.policy == policy and e.platform == platform and (kind is None or e.kind == kind)
    ]


GLOBAL_SUFFICIENT = _entries("global-edf", "sufficient")
PARTITIONED = _entries("partitioned-edf")
UNIPROCESSOR = [e for e in analyses.all_entries() if e.platform == "uniprocessor" and e.policy in ("edf", "np-edf")]


def accepted(entry, ts: TaskSet, m: int) -> bool:
    """Does the analysis (its batch path, as sweeps use it) prove the set schedulable?"""
    if entry.supports(m, ts) is not None:
        return False
    return int(entry.status(TaskSetBatch.from_tasksets([ts]), m)[0]) == int(ACCEPT)


def exact_code(ts: TaskSet, m: int) -> int:
    """The verdict under every tie-breaking rule (``exact``)."""
    return CODE[EXACT.verdict(ts, m, EXACT_BUDGET)]


def settings_for(examples: int):
    return settings(max_examples=examples, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# -- sufficient ⇒ exact on small sets ------------------------------------------------------------
def test_the_registry_has_what_these_properties_judge():
    assert len(GLOBAL_SUFFICIENT) >= 8 and PARTITIONED and UNIPROCESSOR


def _check_against_exact(ts: TaskSet, m: int) -> str:
    """Fail if a sufficient test accepts a set exact rejects; return the branch reached."""
    # The exact test is cheap on these sets: ask it first; only its rejections can refute.
    code = exact_code(ts, m)
    if code != REJECT:
        return "exact accepts" if code == ACCEPT else "exact unknown"
    accepting = [e.name for e in GLOBAL_SUFFICIENT if accepted(e, ts, m)]
    if accepting:
        result = EXACT.explain(ts, m, EXACT_BUDGET)
        pytest.fail(f"{accepting} accept {ts!r} on m={m} but exact rejects it: {result.summary}")
    return "exact rejects"


def _against_exact(reach, examples: int, tasksets, processors, min_rejected: float) -> None:
    """Run the property; then require that a share of the examples reached exact's rejections
    (the only branch that can refute a sufficient test)."""

    @settings_for(examples)
    @given(ts=tasksets, m=processors)
    def prop(ts, m):
        branch = _check_against_exact(ts, m)
        event(branch)
        reach[branch] += 1

    prop()
    assert reach["exact rejects"] >= min_rejected * examples, dict(reach)


def test_sufficient_implies_exact(reach):
    _against_exact(reach, EXAMPLES, rst.tasksets(max_size=6, max_period=12), st.integers(1, 3), 0.2)


def test_sufficient_implies_exact_short_periods(reach):
    """Short periods: ties at the boundary are common, and so are sets that only ties refute."""
    _against_exact(reach, EXAMPLES, rst.tasksets(min_size=3, max_size=5, max_period=4), st.integers(2, 3), 0.2)


@pytest.mark.parametrize(
    "rows",
    [
        pytest.param([(2, 2, 2), (1, 2, 2), (1, 2, 2)], id="gedf-ties-smallest"),
        pytest.param([(1, 1, 2), (2, 2, 3), (1, 2, 2)], id="gedf-ties-u-below-m"),
        pytest.param([(2, 2, 2), (2, 4, 4), (2, 4, 4)], id="gedf-ties-switching"),
    ],
)
def test_no_sufficient_test_accepts_a_tie_refuted_set(rows):
    """papers/gedf-ties.md: schedulable with lowest-index ties, not under every rule (m = 2)."""
    ts = TaskSet.from_tasks(rows)
    assert exact_code(ts, 2) == REJECT
    assert analyses.get("exact:index").verdict(ts, 2) is True
    assert [e.name for e in GLOBAL_SUFFICIENT if accepted(e, ts, 2)] == []


@pytest.mark.slow
def test_sufficient_implies_exact_long(reach):
    _against_exact(reach, 10 * EXAMPLES, rst.tasksets(max_size=6, max_period=12), st.integers(1, 4), 0.2)


def test_every_sufficient_test_rejects_dhall():
    """Dhall's effect: the exact test rejects it, so no sufficient test may accept it."""
    dhall = TaskSet.from_tasks([(2, 6, 6), (2, 6, 6), (6, 7, 7)])
    assert exact_code(dhall, 2) == REJECT
    assert [e.name for e in GLOBAL_SUFFICIENT if accepted(e, dhall, 2)] == []


# -- no analysis accepts a set the simulator refutes (larger sets) ---------------------------------
def _check_against_simulator(ts: TaskSet, m: int, seed: int, reach) -> None:
    # simulate first (cheap); only a miss can refute a global analysis, under any tie rule
    missed = False
    runs = itertools.product(("wcet", "random"), ("periodic", "sporadic"), ("index", "fifo", f"random:{seed}"))
    for execution, arrivals, ties in runs:
        trace = simulate(ts, m, arrivals=arrivals, seed=seed, horizon=20_000, record=False, ties=ties, execution=execution)
        if trace.miss is not None:
            accepting = [e.name for e in GLOBAL_SUFFICIENT if accepted(e, ts, m)]
            assert not accepting, f"{accepting} accept {ts!r} on m={m}; G-EDF misses: {trace}"
            missed = True
            break
    branch = "G-EDF misses" if missed else "no G-EDF miss found"
    event(branch)
    reach[branch] += 1
    for entry in PARTITIONED:
        if accepted(entry, ts, m):
            reach["partitioned accepts, simulated"] += 1
            assignment = entry.explain(ts, m).evidence.get("assignment")
            assert assignment is not None and None not in assignment, f"{entry.name} accepted without an assignment"
            for arrivals, execution in itertools.product(("periodic", "sporadic"), ("wcet", "random")):
                trace = simulate(
                    ts,
                    m,
                    policy="pedf",
                    partition=list(assignment),
                    arrivals=arrivals,
                    seed=seed,
                    horizon=20_000,
                    record=False,
                    execution=execution,
                )
                assert trace.miss is None, (
                    f"{entry.name} accepts {ts!r} on m={m} (assignment {assignment}); P-EDF misses: {trace}"
                )


def _against_simulator(reach, examples: int, tasksets, processors) -> None:
    """Run the property; then require that both refuting branches were reached: G-EDF misses
    (which judge the global tests) and partitioned acceptances (whose assignment is simulated)."""

    @settings_for(examples)
    @given(ts=tasksets, m=processors, seed=st.integers(0, 2**16))
    def prop(ts, m, seed):
        _check_against_simulator(ts, m, seed, reach)

    prop()
    assert reach["G-EDF misses"] >= 0.1 * examples, dict(reach)
    assert reach["partitioned accepts, simulated"] >= 0.1 * examples, dict(reach)


def test_no_analysis_accepts_a_simulated_miss(reach):
    _against_simulator(reach, EXAMPLES, rst.tasksets(min_size=4, max_size=14, max_period=60), st.integers(2, 6))


@pytest.mark.slow
def test_no_analysis_accepts_a_simulated_miss_long(reach):
    _against_simulator(reach, 10 * EXAMPLES, rst.tasksets(min_size=4, max_size=24, max_period=200), st.integers(2, 8))


# -- m = 1 ----------------------------------------------------------------------------------------
def test_m1_global_implies_uniprocessor_exact(reach):
    qpa = analyses.get("uni-qpa")

    @settings_for(EXAMPLES)
    @given(ts=rst.tasksets(max_size=6, max_period=12))
    def prop(ts):
        code = exact_code(ts, 1)
        branch = {ACCEPT: "exact accepts", REJECT: "exact rejects"}.get(code, "exact unknown")
        event(branch)
        reach[branch] += 1
        if code == ACCEPT:
            assert accepted(qpa, ts, 1), f"exact G-EDF on m=1 (= EDF) accepts {ts!r}, uni-qpa rejects it"
            return  # then every global test ⇒ uni-qpa holds on this set
        accepting = [e.name for e in GLOBAL_SUFFICIENT if accepted(e, ts, 1)]
        if accepting:
            assert accepted(qpa, ts, 1), f"{accepting} accept {ts!r} on m=1, uni-qpa rejects"
        if code == REJECT:
            claims = [e.name for e in UNIPROCESSOR if accepted(e, ts, 1)]
            assert not claims, f"{claims} accept {ts!r} but exact G-EDF on m=1 (= EDF) rejects it"
            assert not accepting, f"{accepting} accept {ts!r} on m=1 but exact rejects it"

    prop()
    assert reach["exact accepts"] >= 0.1 * EXAMPLES and reach["exact rejects"] >= 0.2 * EXAMPLES, dict(reach)
