"""dag-typed-federated (analyses/dag/typed_federated.py, rtsched's typed federated variant): the worked example
of papers/lin2023-typed-federated.md by hand, the allocation rule, codes == reference (hypothesis and
generated sets), soundness against the typed simulator (each task alone on its units), and the proved
relations to dag-typed-han2019 (one task) and dag-federated (one type)."""

import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rtsched import registry
from rtsched.analyses.dag._typed import allocation, han_bound
from rtsched.dag import DAGBatch, DAGTask, DAGTaskSet, simulate_dag
from rtsched.generators.dag import dag_tasksets
from rtsched.platform import Typed
from rtsched.testing import strategies as rst

NAME = "dag-typed-federated"
EXAMPLES = int(os.environ.get("RTSCHED_PROPERTY_EXAMPLES", "150"))

FORK = DAGTask(
    [1, 3, 2, 4, 1], [(0, 1), (0, 2), (0, 3), (1, 4), (2, 4), (3, 4)], T=20, D=10,
    types=["cpu", "gpu", "gpu", "cpu", "cpu"], name="fork",
)  # fmt: skip
CHAIN = DAGTask([2, 3], [(0, 1)], T=10, D=10, types=["gpu", "cpu"], name="chain")
EXAMPLE = DAGTaskSet([FORK, CHAIN])


def entry():
    return registry.get(NAME)


def verdict(ts, platform):
    e = entry()
    ref = e.reference(ts, platform)
    assert e.verdict(ts, platform) == ref
    assert e.explain(ts, platform).verdict == ref
    return ref


def test_entry_metadata():
    e = entry()
    assert (e.kind, e.policy, e.platform, e.input, e.featured) == (
        "sufficient",
        "typed-federated",
        "typed",
        "dag",
        False,
    )
    assert "NOT Lin" in e.citation and e.note == "papers/lin2023-typed-federated.md"


def test_worked_example_by_hand():
    # fork: vol 11 > D 10 (heavy). Candidates n_s ≥ max(1, ⌈vol_s/D⌉) = 1; total 2: (1, 1) gives 11 > 10;
    # total 3 in lexicographic (cpu, gpu) order: (1, 2) gives 10 ≤ 10 → cpu 1, gpu 2.
    assert han_bound(FORK, {"cpu": 1, "gpu": 1}).bound == 11 and han_bound(FORK, {"cpu": 1, "gpu": 2}).bound == 10
    assert allocation(FORK, {"cpu": 2, "gpu": 3}) == {"cpu": 1, "gpu": 2}
    # chain: vol 5 ≤ D 10 (light): one unit of each type, bound vol = 5
    assert allocation(CHAIN, {"cpu": 2, "gpu": 3}) == {"cpu": 1, "gpu": 1}
    platform = Typed({"cpu": 2, "gpu": 3})
    assert verdict(EXAMPLE, platform) is True
    r = entry().explain(EXAMPLE, platform)
    assert r.evidence["used"] == {"cpu": 2, "gpu": 3}
    assert [row["units"] for row in r.per_task] == ["cpu:U0, gpu:U2..U3", "cpu:U1, gpu:U4"]
    assert [row["class"] for row in r.per_task] == ["heavy", "light"]
    # gpu short by one: (TF2) fails; cpu short: likewise
    assert verdict(EXAMPLE, Typed({"cpu": 3, "gpu": 2})) is False
    assert (
        entry().explain(EXAMPLE, Typed({"cpu": 3, "gpu": 2})).evidence["failing"]
        == "(TF2) type gpu: Σ n_i,gpu = 3 > m_gpu = 2"
    )
    assert verdict(EXAMPLE, Typed({"cpu": 1, "gpu": 5})) is False


def test_a_task_no_allocation_saves():
    wide = DAGTask([1, 5, 5, 1], [(0, 1), (0, 2), (1, 3), (2, 3)], T=8, D=7, types=["cpu", "gpu", "gpu", "cpu"])
    assert wide.length == 7 and allocation(wide, {"cpu": 9, "gpu": 9}) is None  # len = D: (H1) > D always
    ts = DAGTaskSet([wide])
    assert verdict(ts, Typed({"cpu": 9, "gpu": 9})) is False
    assert entry().explain(ts, Typed({"cpu": 9, "gpu": 9})).evidence["failing"].startswith("(TF1) τ0")


def test_fewest_units_then_lexicographic():
    # independent vertices cpu 6, gpu 6, gpu 6, D = 12: (H1) = 6/a + 12/b + max(6(1 − 1/a), 6(1 − 1/b)).
    # total 2: (1, 1) = 18; total 3: (1, 2) = 15, (2, 1) = 18; total 4: (1, 3) = 14, (2, 2) = 12 ≤ 12.
    task = DAGTask([6, 6, 6], [], T=12, D=12, types=["cpu", "gpu", "gpu"])
    assert [han_bound(task, {"cpu": a, "gpu": b}).bound for a, b in ((1, 1), (1, 2), (2, 1), (1, 3), (2, 2))] == [
        18,
        15,
        18,
        14,
        12,
    ]
    assert allocation(task, {"cpu": 4, "gpu": 4}) == {"cpu": 2, "gpu": 2}
    # (H1) adds the types' spreads, so it never overlaps cpu and gpu work: even every unit leaves 9 > D = 6
    assert allocation(task.replace(D=6, T=6), {"cpu": 4, "gpu": 4}) is None
    # a tie: cpu 4, 4 and gpu 4, 4 independent, D = 14: (1, 1) = 16; (1, 2) = 14 = (2, 1): the lexicographically
    # smaller (cpu 1, gpu 2) is taken
    tie = DAGTask([4, 4, 4, 4], [], T=14, D=14, types=["cpu", "cpu", "gpu", "gpu"])
    assert han_bound(tie, {"cpu": 2, "gpu": 1}).bound == han_bound(tie, {"cpu": 1, "gpu": 2}).bound == 14
    assert allocation(tie, {"cpu": 3, "gpu": 3}) == {"cpu": 1, "gpu": 2}
    batch = DAGBatch.from_tasksets([DAGTaskSet([tie, tie]), DAGTaskSet([tie, tie, tie])])
    # two ties use cpu 2, gpu 4; three use cpu 3, gpu 6
    assert entry().status(batch, Typed({"cpu": 2, "gpu": 4})).tolist() == [1, 0]
    assert entry().status(batch, Typed({"cpu": 4, "gpu": 3})).tolist() == [0, 0]


@settings(max_examples=EXAMPLES, deadline=None)
@given(
    ts=rst.dag_tasksets(min_size=1, max_size=3, max_vertices=6, max_wcet=9, types=("cpu", "gpu", "dsp")),
    m=st.tuples(st.integers(1, 5), st.integers(1, 5), st.integers(1, 3)),
)
def test_codes_equal_the_reference_hypothesis(ts, m):
    platform = Typed(dict(zip(("cpu", "gpu", "dsp"), m, strict=True)))
    batch = DAGBatch.from_tasksets([ts, ts[:1]])
    assert entry().status(batch, platform).tolist() == [int(entry().reference(s, platform)) for s in (ts, ts[:1])]


def test_codes_equal_the_reference_on_generated_sets(typed_sets):
    sets = typed_sets(1, 60, n_tasks=3, utilization=2.7) + typed_sets(
        2, 40, n_tasks=3, utilization=2.7, types=("cpu", "gpu", "npu")
    )
    batch = DAGBatch.from_tasksets(sets)
    seen = set()
    for units in ({"cpu": 2, "gpu": 2, "npu": 1}, {"cpu": 4, "gpu": 3, "npu": 3}, {"cpu": 8, "gpu": 6, "npu": 6}):
        platform = Typed(units)
        codes = entry().status(batch, platform)
        assert codes.tolist() == [int(entry().reference(ts, platform)) for ts in sets]
        seen.update(codes.tolist())
    assert seen == {0, 1}


def test_codes_fall_back_to_the_reference_when_int64_could_overflow(typed_sets):
    # (a few one- and two-task sets: with a million units per type the reference's search enumerates
    # many vectors for a task that needs many units)
    platform = Typed({"cpu": 999983, "gpu": 999979, "npu": 999961})
    sets = typed_sets(3, 6, n_tasks=1, utilization=0.9, types=("cpu", "gpu", "npu")) + typed_sets(
        4, 4, n_tasks=2, utilization=1.8, types=("cpu", "gpu", "npu")
    )
    batch = DAGBatch.from_tasksets(sets)
    assert entry().status(batch, platform).tolist() == [int(entry().reference(ts, platform)) for ts in sets]


def test_accepted_sets_meet_every_deadline_in_simulation(typed_sets):
    """Accepted sets at the smallest (cpu = gpu) count in 2..16 that accepts them: each task alone on its
    allocation (a typed platform of its own), per-type G-EDF and G-FP, periodic/sporadic, WCET/random."""
    accepted = 0
    for k, ts in enumerate(typed_sets(11, 60, n_tasks=3, utilization=2.7)):
        platform = next(
            (Typed({"cpu": m, "gpu": m}) for m in range(2, 17) if entry().reference(ts, Typed({"cpu": m, "gpu": m}))),
            None,
        )
        if platform is None:
            continue
        accepted += 1
        for i, a in enumerate(entry().explain(ts, platform).evidence["allocation"]):
            alone = DAGTaskSet([ts[i]])
            for policy, arrivals, execution in (
                ("gedf", "periodic", "wcet"),
                ("gfp", "sporadic", "random"),
                ("gedf", "sporadic", "wcet"),
            ):
                trace = simulate_dag(
                    alone, platform=Typed(a), policy=policy, arrivals=arrivals, execution=execution, seed=k,
                    horizon=min(20 * ts[i].T, 4000),
                )  # fmt: skip
                assert trace.miss is None, (ts, i, a, policy, arrivals, execution)
    assert accepted >= 30


@settings(max_examples=EXAMPLES, deadline=None)
@given(task=rst.dag_tasks(max_vertices=6, types=("cpu", "gpu")), m=st.tuples(st.integers(1, 4), st.integers(1, 4)))
def test_one_task_is_exactly_han2019(task, m):
    """For one task, (TF1) finds an allocation iff (H1) holds on the whole platform (monotonicity): same verdicts."""
    used = {task.vertex_type(v) for v in range(task.n)}
    platform = Typed({s: n for s, n in zip(("cpu", "gpu"), m, strict=True) if s in used})
    ts = DAGTaskSet([task])
    assert entry().reference(ts, platform) == registry.get("dag-typed-han2019").reference(ts, platform)


@pytest.mark.parametrize("seed", [5, 6])
def test_on_one_type_dag_federated_dominates(seed):
    """Untyped sets on m cpu units: a heavy task's (TF1) count is Li et al.'s n = ⌈(vol − len)/(D − len)⌉ and a
    light task takes one processor, which dag-federated's p-edf can always give it; so accepted here ⇒
    accepted by dag-federated on Identical(m) (the converse fails: p-edf shares processors)."""
    rng = np.random.default_rng(seed)
    sets = dag_tasksets(
        rng, n_tasks=3, utilization=2.0, size=40, deadlines="constrained", shape_params={"wcet": (1, 10)}
    )
    strict = 0
    for ts in sets:
        for m in (2, 4, 6, 8):
            ours = entry().reference(ts, Typed({"cpu": m}))
            theirs = registry.get("dag-federated").reference(ts, m)
            assert not ours or theirs is True
            strict += theirs is True and not ours
    assert strict > 0


@settings(max_examples=EXAMPLES, deadline=None)
@given(
    ts=rst.dag_tasksets(
        min_size=1, max_size=3, max_vertices=6, max_wcet=6, min_period=8, max_period=30, types=("cpu", "gpu")
    ),
    m=st.tuples(st.integers(1, 4), st.integers(1, 4)),
    seed=st.integers(0, 2**16),
)
def test_soundness_hypothesis(ts, m, seed):
    """Small drawn typed sets: if accepted, every task alone on its allocation meets every deadline (per-type
    G-EDF, sporadic arrivals, random execution; and synchronous periodic WCET)."""
    platform = Typed(dict(zip(("cpu", "gpu"), m, strict=True)))
    if entry().reference(ts, platform) is not True:
        return
    for i, a in enumerate(entry().explain(ts, platform).evidence["allocation"]):
        alone = DAGTaskSet([ts[i]])
        for arrivals, execution in (("periodic", "wcet"), ("sporadic", "random")):
            trace = simulate_dag(
                alone, platform=Typed(a), arrivals=arrivals, execution=execution, seed=seed, horizon=8 * ts[i].T
            )
            assert trace.miss is None, (ts, i, a, arrivals, execution)


def test_the_kinds_simulate_hook_takes_a_typed_platform():
    from rtsched.workloads import DAG_TASKSETS

    trace = DAG_TASKSETS.simulate(EXAMPLE, Typed({"cpu": 2, "gpu": 3}), record=True)
    assert trace.platform == Typed({"cpu": 2, "gpu": 3}) and trace.miss is None
