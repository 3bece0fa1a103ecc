"""Federated scheduling of DAG tasks (analyses/dag/federated.py, registry name ``dag-federated``):
the note's worked example by hand, the edge cases of (F1)-(F4), codes == reference on generated
sets, soundness against the node-level simulator, and monotonicity in m."""

import math

import numpy as np
import pytest

import rtsched
from rtsched import registry
from rtsched.analyses.dag import federated
from rtsched.dag import DAGBatch, DAGTask, DAGTaskSet, simulate_dag
from rtsched.generators.dag import dag_tasksets

NAME = "dag-federated"

# The worked example of papers/li2014-federated.md: a heavy fork-join and two light tasks, m = 4.
FORK_JOIN = DAGTask(
    [1, 4, 4, 4, 4, 1], [(0, 1), (0, 2), (0, 3), (0, 4), (1, 5), (2, 5), (3, 5), (4, 5)], T=12, D=11, name="fj"
)
CHAIN = DAGTask([2, 3], [(0, 1)], T=10, D=10, name="chain")
SMALL = DAGTask([1, 2, 1, 1], [(0, 1), (0, 2), (1, 3), (2, 3)], T=20, D=10, name="small")
EXAMPLE = DAGTaskSet([FORK_JOIN, CHAIN, SMALL])


def entry():
    return registry.get(NAME)


def verdicts(ts, m):
    """reference, verdict (through codes) and explain agree; the common verdict."""
    e = entry()
    ref = e.reference(ts, m)
    assert e.verdict(ts, m) == ref
    assert e.explain(ts, m).verdict == ref
    return ref


# -- metadata -----------------------------------------------------------------------------------
def test_entry_declares_what_the_brief_says():
    e = entry()
    assert (e.kind, e.policy, e.platform, e.input, e.featured) == ("sufficient", "federated", "identical", "dag", False)
    assert e.deadlines == ("implicit", "constrained") and e.calls == ("p-edf",)
    # The budget is p-edf's, passed on to it (a family may not import another to read it).
    assert e.budget == registry.get("p-edf").budget == federated.BUDGET


# -- the worked example -------------------------------------------------------------------------
def test_worked_example_by_hand():
    assert [(t.volume, t.length) for t in EXAMPLE] == [(18, 6), (5, 5), (5, 4)]
    # τ0: 18/11 > 1 heavy, n = ⌈(18 − 6)/(11 − 6)⌉ = ⌈12/5⌉ = 3; τ1, τ2: density 1/2, light.
    assert federated.heavy_processors(18, 6, 11) == 3
    r = entry().explain(EXAMPLE, 4)
    assert r.verdict is True and verdicts(EXAMPLE, 4) is True
    assert r.evidence["n"] == (3, 0, 0) and r.evidence["heavy"] == (0,) and r.evidence["light"] == (1, 2)
    assert (r.evidence["heavy_processors"], r.evidence["light_processors"]) == (3, 1)
    # Heavy τ0 on P0..P2; p-edf puts both light tasks (density 1/2 + 1/2 = 1) on P3.
    assert r.evidence["allocation"] == ((0, 1, 2), (3,), (3,))
    assert [row["processors"] for row in r.per_task] == ["P0, P1, P2", "P3", "P3"]
    assert [row["class"] for row in r.per_task] == ["heavy", "light", "light"]
    text = "\n".join(map(str, r.steps))
    assert "n = ⌈(18 − 6)/(11 − 6)⌉ = 3 → P0..P2" in text and text.endswith("schedulable")
    # m = 3: no processor is left for the light tasks; m = 2: the heavy task does not fit.
    assert verdicts(EXAMPLE, 3) is False and "no processor left" in entry().explain(EXAMPLE, 3).evidence["failing"]
    assert verdicts(EXAMPLE, 2) is False and entry().explain(EXAMPLE, 2).evidence["failing"] == "Σ n_i = 3 > m = 2"


def test_check_of_a_dag_set_runs_federated():
    report = rtsched.check(EXAMPLE, 4)
    assert report.verdicts[NAME] is True
    assert "3 processors" in report[NAME].summary


# -- edge cases ---------------------------------------------------------------------------------
def test_heavy_task_whose_length_reaches_the_deadline_is_refused():
    # vol = 12 > D = 6 (heavy), len = 6 = D: Graham's bound exceeds D for every n (the task may
    # still meet its deadlines on enough processors: not proven is all the test can say).
    wide = DAGTask([1, 5, 5, 1], [(0, 1), (0, 2), (1, 3), (2, 3)], T=8, D=7)
    assert (wide.volume, wide.length) == (12, 7)
    assert federated.heavy_processors(12, 7, 7) is None
    ts = DAGTaskSet([wide])
    for m in (1, 4, 100):
        assert verdicts(ts, m) is False
    r = entry().explain(ts, 100)
    assert r.evidence["failing"] == "heavy τ0 has len = 7 ≥ D = 7" and r.evidence["n"] == (0,)


def test_heavy_tasks_needing_more_than_m():
    # Two copies of the example's fork-join: 3 + 3 = 6 processors.
    ts = DAGTaskSet([FORK_JOIN, FORK_JOIN])
    assert verdicts(ts, 5) is False and verdicts(ts, 6) is True
    assert entry().explain(ts, 6).evidence["allocation"] == ((0, 1, 2), (3, 4, 5))


def test_no_light_task_and_all_light():
    only_heavy = DAGTaskSet([FORK_JOIN])
    assert verdicts(only_heavy, 3) is True and entry().explain(only_heavy, 3).evidence["light"] == ()
    # All light: exactly p-edf on the sequential tasks (vol, D, T) with all m processors.
    all_light = DAGTaskSet([CHAIN, SMALL, CHAIN])
    for m in (1, 2, 3):
        light = federated.plan(all_light, m).light_taskset(all_light)
        assert verdicts(all_light, m) == registry.get("p-edf").reference(light, m)
    assert verdicts(all_light, 1) is False and verdicts(all_light, 2) is True
    assert entry().explain(all_light, 2).evidence["allocation"] == ((0,), (0,), (1,))


def test_density_exactly_one_is_light():
    exact = DAGTask([3, 3, 4], [(0, 2), (1, 2)], T=10, D=10)  # vol = D = 10
    assert not federated.is_heavy(exact.volume, exact.D)
    assert verdicts(DAGTaskSet([exact]), 1) is True


def test_arbitrary_deadlines_are_refused():
    late = DAGTaskSet([DAGTask([2, 3], [(0, 1)], T=10, D=12)])
    assert entry().supports(4, late) is not None


# -- kernel == reference ------------------------------------------------------------------------
def generated(seed, size, deadlines, utilization, n_tasks=4, shape="fork-join"):
    params = {"wcet": (1, 10)} if shape == "fork-join" else {"n": 8, "p": 0.3, "wcet": (1, 10)}
    return dag_tasksets(
        np.random.default_rng(seed), n_tasks=n_tasks, utilization=utilization, size=size, shape=shape,
        shape_params=params, deadlines=deadlines,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("seed", "deadlines", "shape"),
    [(1, "implicit", "fork-join"), (2, "constrained", "fork-join"), (3, "constrained", "gnp")],
)
def test_codes_equal_the_reference(seed, deadlines, shape):
    sets = generated(seed, 40, deadlines, utilization=3.0, shape=shape)
    batch = DAGBatch.from_tasksets(sets)
    seen = set()
    for m in (2, 4, 6, 8):
        codes = entry().status(batch, m)
        assert codes.dtype == np.int8
        expected = [1 if entry().reference(ts, m) is True else 0 for ts in sets]
        assert codes.tolist() == expected, (m, deadlines)
        seen.update(codes.tolist())
    assert seen == {0, 1}  # both verdicts occur


def test_codes_on_hand_made_sets_in_one_batch():
    sets = [
        EXAMPLE,
        DAGTaskSet([FORK_JOIN]),
        DAGTaskSet([FORK_JOIN, FORK_JOIN]),
        DAGTaskSet([CHAIN, SMALL, CHAIN]),
        DAGTaskSet([DAGTask([1, 5, 5, 1], [(0, 1), (0, 2), (1, 3), (2, 3)], T=8, D=7), CHAIN]),
    ]
    batch = DAGBatch.from_tasksets(sets)
    for m in range(1, 8):
        assert entry().status(batch, m).tolist() == [int(entry().reference(ts, m)) for ts in sets]


# -- soundness against the simulator ------------------------------------------------------------
def as_chain(task):
    """The task run sequentially: its vertices in topological order, chained (same vol, T, D)."""
    order = task.topological_order
    return DAGTask([task.wcets[v] for v in order], [(k, k + 1) for k in range(task.n - 1)], T=task.T, D=task.D)


def horizon(ts):
    periods = [t.T for t in ts]
    return min(math.lcm(*periods), 30 * max(periods))


def assert_no_miss(ts, m, seed, counts):
    r = entry().explain(ts, m)
    assert r.verdict is True
    allocation = r.evidence["allocation"]
    per_processor = {}
    for i in r.evidence["light"]:
        (p,) = allocation[i]
        per_processor.setdefault(p, []).append(as_chain(ts[i]))
    systems = [(DAGTaskSet([ts[i]]), len(allocation[i])) for i in r.evidence["heavy"]]
    systems += [(DAGTaskSet(chains), 1) for chains in per_processor.values()]
    for system, processors in systems:
        if processors > 1:
            counts["heavy"] += 1
        for arrivals in ("periodic", "sporadic"):
            for execution in ("wcet", "random"):
                trace = simulate_dag(
                    system, processors, policy="gedf", arrivals=arrivals, execution=execution, seed=seed,
                    horizon=horizon(system),
                )  # fmt: skip
                assert trace.miss is None, (ts, m, arrivals, execution, trace.miss)


def test_accepted_sets_meet_every_deadline_in_simulation():
    """About 100 accepted sets (of 128) (fork-join and G(n, p); implicit and constrained), each at the smallest m in
    2..12 that accepts it: every heavy task alone on its n_i processors and every light
    processor's chains under G-EDF, periodic and sporadic, WCET and random execution times."""
    counts = {"sets": 0, "heavy": 0}
    for seed, (deadlines, shape) in enumerate(
        [("implicit", "fork-join"), ("constrained", "fork-join"), ("constrained", "gnp"), ("implicit", "gnp")]
    ):
        for k, ts in enumerate(generated(100 + seed, 32, deadlines, utilization=2.5, n_tasks=3, shape=shape)):
            m = next((m for m in range(2, 13) if entry().reference(ts, m) is True), None)
            if m is None:
                continue
            assert_no_miss(ts, m, k, counts)
            counts["sets"] += 1
    assert counts["sets"] >= 90 and counts["heavy"] >= 30, counts


# -- monotonicity -------------------------------------------------------------------------------
def test_more_processors_never_turn_accept_into_reject():
    sets = generated(7, 60, "constrained", utilization=3.5)
    batch = DAGBatch.from_tasksets(sets)
    previous = np.zeros(len(sets), dtype=np.int8)
    for m in range(1, 16):
        codes = entry().status(batch, m)
        assert np.all(codes >= previous), m
        previous = codes
    assert previous.any()
