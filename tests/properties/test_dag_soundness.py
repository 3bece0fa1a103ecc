"""Soundness of every registered global DAG analysis against the node-level simulator.

Every analysis of the DAG workload kind whose policy is global EDF or global fixed priorities
(taken from the registry, so analyses registered later are checked too) is run on small DAG
task sets drawn by :func:`rtsched.testing.strategies.dag_tasksets`; whenever it says
schedulable, :func:`rtsched.dag.simulate_dag` under the matching policy must find no miss:

* ``global-edf``: G-EDF with the index, FIFO and seeded random tie rules (a G-EDF test claims
  every tie rule);
* ``global-fp``: G-FP with the task order as the priority order (index 0 highest), which is the
  priority every DAG G-FP analysis here assumes; ``global-dm``: the set sorted by deadline
  (stable) first; ``global-fp-vertex``: G-FP in task order with the intra-task vertex priorities
  of ``dag-gfp-he2019`` (critical path first);

each with synchronous periodic releases and WCET execution, and with seeded sporadic releases
and random execution times (a node may take less than its WCET: the scheduling anomalies of
DAGs live there). Horizons are short (a few periods); a miss found in a short run is a real
miss, so this can only refute, never "prove". Federated and typed analyses have their own
soundness tests next to them (their schedules are not global ones).

Budget: RTSCHED_PROPERTY_EXAMPLES examples per analysis (default 150; the ``slow`` variant
runs five times more on larger sets). Each analysis must accept enough of the drawn sets that
the property means something (a reach count), else the test fails.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from rtsched import analyses
from rtsched.analyses.dag.he2019 import vertex_priorities
from rtsched.dag import DAGTaskSet, simulate_dag
from rtsched.testing import strategies as rst
from rtsched.workloads import DAG_TASKSETS

EXAMPLES = int(os.environ.get("RTSCHED_PROPERTY_EXAMPLES", "150"))
SIMULATED = {"global-edf": "gedf", "global-fp": "gfp", "global-dm": "gfp", "global-fp-vertex": "gfp"}
GLOBAL = [e for e in analyses.all_entries() if e.workload is DAG_TASKSETS and e.policy in SIMULATED]
#: Longest period of the drawn sets, by test. The reach count below is random under the ``dev``
#: profile (CI's ``ci`` profile is derandomized), so every analysis must accept well above 1 in
#: 20 sets. With periods ≤ 30, 25 unseeded runs of 150 examples each gave as few as 3 accepted
#: sets (dag-gedf-cab; 3 of the 25 runs below 7), 5 (dag-gedf-bonifaci2013) and 8
#: (dag-gedf-melani2015); with periods ≤ 60 the fewest were 13–21 for every analysis. Lighter
#: sets are accepted more often, and only accepted sets are simulated. dag-gdm-bonifaci2013
#: needs longer still (b = 3 − 1/m: load ≤ m²/(3m − 1), len ≤ D·m/(3m − 1)): 18–45 at 150.
MAX_PERIOD = {"dag-gdm-bonifaci2013": 150}
DEFAULT_MAX_PERIOD = 60
#: The larger sets of the ``slow`` variant (5× the examples; CI runs it derandomized).
SLOW_MAX_PERIOD = {"dag-gdm-bonifaci2013": 450}
SLOW_DEFAULT_MAX_PERIOD = 90


pytestmark = pytest.mark.usefixtures("one_numba_thread")  # tests/conftest.py


def in_priority_order(entry, ts: DAGTaskSet) -> DAGTaskSet:
    """The set as the simulator must see it: deadline order (stable) for DM, else unchanged."""
    if entry.policy == "global-dm":
        return DAGTaskSet(sorted(ts.tasks, key=lambda t: t.D))
    return ts


def assert_no_miss(entry, ts: DAGTaskSet, m: int, seed: int) -> None:
    policy = SIMULATED[entry.policy]
    simulated = in_priority_order(entry, ts)
    longest = max(max(t.T, t.D) for t in ts)
    runs = [dict(arrivals="periodic", execution="wcet", horizon=6 * longest)]
    runs.append(dict(arrivals="sporadic", execution="random", horizon=12 * longest, seed=seed))
    ties = ("index", "fifo", "random") if policy == "gedf" else ("index",)
    if entry.policy == "global-fp-vertex":
        for run in runs:
            run["vertex_priorities"] = [vertex_priorities(t) for t in simulated]
    for run in runs:
        for tie in ties:
            trace = simulate_dag(simulated, m, policy=policy, ties=tie, **run)
            assert trace.miss is None, (
                f"{entry.name} accepts {ts!r} on m = {m}, but {policy} ({tie}, {run}) misses: {trace.miss}"
            )


def check(entry, ts: DAGTaskSet, m: int, seed: int, reach: dict[str, int]) -> None:
    why = entry.supports(m, ts)
    if why is not None:
        event(f"not supported: {why}")
        return
    verdict = entry.verdict(ts, m)
    event(f"verdict {verdict}")
    if verdict is True:
        reach["accepted"] += 1
        assert_no_miss(entry, ts, m, seed)


def run_property(entry, examples: int, max_size: int, max_vertices: int, max_period: int) -> None:
    deadlines = "constrained" if "constrained" in entry.deadlines else "implicit"
    reach = {"accepted": 0}

    @settings(max_examples=examples, suppress_health_check=[HealthCheck.too_slow], deadline=None)
    @given(
        ts=rst.dag_tasksets(
            max_size=max_size, max_vertices=max_vertices, max_period=max_period, deadlines=deadlines
        ),
        m=st.integers(1, 4),
        seed=st.integers(0, 2**16),
    )
    def prop(ts, m, seed):
        check(entry, ts, m, seed, reach)

    prop()
    assert reach["accepted"] >= max(1, examples // 20), (
        f"{entry.name} accepted only {reach['accepted']} of {examples} sets"
    )


@pytest.mark.parametrize("entry", GLOBAL, ids=[e.name for e in GLOBAL])
def test_accepted_sets_meet_every_deadline_in_simulation(entry):
    run_property(entry, EXAMPLES, max_size=3, max_vertices=5, max_period=MAX_PERIOD.get(entry.name, DEFAULT_MAX_PERIOD))


@pytest.mark.slow
@pytest.mark.parametrize("entry", GLOBAL, ids=[e.name for e in GLOBAL])
def test_accepted_larger_sets_meet_every_deadline_in_simulation(entry):
    period = SLOW_MAX_PERIOD.get(entry.name, SLOW_DEFAULT_MAX_PERIOD)  # longer periods: lighter sets
    run_property(entry, 5 * EXAMPLES, max_size=5, max_vertices=8, max_period=period)


def test_every_global_dag_policy_is_simulated():
    """A DAG analysis of a global policy this file cannot simulate would silently go unchecked."""
    for entry in analyses.all_entries():
        if entry.workload is DAG_TASKSETS and entry.policy.startswith("global"):
            assert entry.policy in SIMULATED, f"{entry.name}: policy {entry.policy} has no simulator mapping here"
