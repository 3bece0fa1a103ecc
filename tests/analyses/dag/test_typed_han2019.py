"""dag-typed-han2019 (analyses/dag/typed_han2019.py): the worked example of papers/han2019-typed-dag.md by
hand, the bound on one type (Graham's), codes == reference (hypothesis and generated sets, including
the int64-overflow fallback), soundness against the typed simulator, and monotonicity in the units."""

import os
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rtsched import registry
from rtsched.analyses.dag._typed import han_bound
from rtsched.dag import DAGBatch, DAGTask, DAGTaskSet, simulate_dag
from rtsched.platform import Typed
from rtsched.testing import strategies as rst

NAME = "dag-typed-han2019"
EXAMPLES = int(os.environ.get("RTSCHED_PROPERTY_EXAMPLES", "150"))

# The note's example: v0 (cpu 1) → v1 (gpu 3), v2 (gpu 2), v3 (cpu 4) → v4 (cpu 1); D = 10 ≤ T = 20.
FORK = DAGTask(
    [1, 3, 2, 4, 1], [(0, 1), (0, 2), (0, 3), (1, 4), (2, 4), (3, 4)], T=20, D=10,
    types=["cpu", "gpu", "gpu", "cpu", "cpu"], name="fork",
)  # fmt: skip


def entry():
    return registry.get(NAME)


def verdict(ts, platform):
    """reference, verdict (through codes) and explain agree; the common verdict."""
    e = entry()
    ref = e.reference(ts, platform)
    assert e.verdict(ts, platform) == ref
    assert e.explain(ts, platform).verdict == ref
    return ref


def test_entry_metadata():
    e = entry()
    assert (e.kind, e.policy, e.platform, e.input, e.featured) == ("sufficient", "typed-global", "typed", "dag", False)
    assert e.deadlines == ("implicit", "constrained") and e.note == "papers/han2019-typed-dag.md"


@pytest.mark.parametrize(
    ("units", "bound", "path"),
    [
        # Σ vol_s/m_s = 6/1 + 5/1 = 11; every weight C_v·(1 − 1/1) = 0
        pytest.param({"cpu": 1, "gpu": 1}, Fraction(11), None, id="cpu1-gpu1"),
        # 6/1 + 5/2 = 8.5; weights cpu 0, gpu C/2: v0 → v1 → v4 weighs 3/2: 10
        pytest.param({"cpu": 1, "gpu": 2}, Fraction(10), (0, 1, 4), id="cpu1-gpu2"),
        # 6/2 + 5/2 = 5.5; weights C/2: v0 → v3 → v4 weighs (1 + 4 + 1)/2 = 3: 8.5
        pytest.param({"cpu": 2, "gpu": 2}, Fraction(17, 2), (0, 3, 4), id="cpu2-gpu2"),
        # 6/3 + 5/2 = 4.5; v0 → v3 → v4 weighs 6·2/3 = 4: 8.5
        pytest.param({"cpu": 3, "gpu": 2}, Fraction(17, 2), (0, 3, 4), id="cpu3-gpu2"),
    ],
)
def test_worked_example_by_hand(units, bound, path):
    h = han_bound(FORK, units)
    assert (h.volumes, h.bound) == ({"cpu": 6, "gpu": 5}, bound)
    if path is not None:
        assert h.path == path
    ts, platform = DAGTaskSet([FORK]), Typed(units)
    assert verdict(ts, platform) is (bound <= 10)
    r = entry().explain(ts, platform)
    assert r.evidence["bound"] == bound and r.per_task[0]["R bound"] == bound


def test_the_bound_exactly_at_the_deadline_and_one_tick_under():
    platform = Typed({"cpu": 1, "gpu": 2})  # bound 10
    assert verdict(DAGTaskSet([FORK]), platform) is True
    assert verdict(DAGTaskSet([FORK.replace(D=9)]), platform) is False
    text = "\n".join(map(str, entry().explain(DAGTaskSet([FORK]), platform).steps))
    assert "(H1) R ≤ 8.5 + 1.5 = 10 ≤ D = 10: schedulable" in text


def test_several_tasks_are_not_proven_and_say_why():
    ts = DAGTaskSet([FORK, FORK])
    assert verdict(ts, Typed({"cpu": 50, "gpu": 50})) is False
    assert "dag-typed-federated" in entry().explain(ts, Typed({"cpu": 50, "gpu": 50})).summary


def test_identical_processors_give_grahams_bound():
    chain = DAGTask([2, 3, 4, 1], [(0, 1), (0, 2), (1, 3), (2, 3)], T=30, D=9)  # vol 10, len 7
    for m in (1, 2, 3):
        assert han_bound(chain, {"cpu": m}).bound == 7 + Fraction(10 - 7, m)
    assert verdict(DAGTaskSet([chain]), 1) is False  # 10 > 9
    assert verdict(DAGTaskSet([chain]), 2) is True  # 8.5 ≤ 9


@settings(max_examples=EXAMPLES, deadline=None)
@given(
    ts=rst.dag_tasksets(min_size=1, max_size=2, max_vertices=7, max_wcet=9, types=("cpu", "gpu", "dsp")),
    m=st.tuples(st.integers(1, 5), st.integers(1, 5), st.integers(1, 5)),
)
def test_codes_equal_the_reference_hypothesis(ts, m):
    platform = Typed(dict(zip(("cpu", "gpu", "dsp"), m, strict=True)))
    batch = DAGBatch.from_tasksets([ts, ts[:1]])
    assert entry().status(batch, platform).tolist() == [int(entry().reference(s, platform)) for s in (ts, ts[:1])]


def test_codes_equal_the_reference_on_generated_sets(typed_sets):
    sets = typed_sets(1, 80, n_tasks=1, utilization=1.2) + typed_sets(
        2, 40, n_tasks=1, utilization=1.2, types=("cpu", "gpu", "npu")
    )
    batch = DAGBatch.from_tasksets(sets)
    seen = set()
    for units in ({"cpu": 1, "gpu": 1, "npu": 1}, {"cpu": 2, "gpu": 3, "npu": 2}, {"cpu": 4, "gpu": 4, "npu": 5}):
        platform = Typed(units)
        codes = entry().status(batch, platform)
        assert codes.tolist() == [int(entry().reference(ts, platform)) for ts in sets]
        seen.update(codes.tolist())
    assert seen == {0, 1}


def test_codes_fall_back_to_the_reference_when_int64_could_overflow(typed_sets):
    # L = lcm of three primes near 10**6 (about 10**18): L·D would overflow int64
    platform = Typed({"cpu": 999983, "gpu": 999979, "npu": 999961})
    sets = typed_sets(3, 20, n_tasks=1, utilization=1.2, types=("cpu", "gpu", "npu"))
    batch = DAGBatch.from_tasksets(sets)
    assert entry().status(batch, platform).tolist() == [int(entry().reference(ts, platform)) for ts in sets]


def test_accepted_sets_meet_every_deadline_in_simulation(typed_sets):
    """Every accepted one-task set, at the smallest gpu count in 1..6 that accepts it (cpu fixed at 1..3),
    simulated alone under per-type G-EDF and G-FP, periodic and sporadic, WCET and random execution."""
    accepted = 0
    for k, ts in enumerate(typed_sets(7, 60, n_tasks=1, utilization=1.2)):
        for m_cpu in (1, 2, 3):
            platform = next(
                (
                    Typed({"cpu": m_cpu, "gpu": g})
                    for g in range(1, 7)
                    if entry().reference(ts, Typed({"cpu": m_cpu, "gpu": g}))
                ),
                None,
            )
            if platform is None:
                continue
            accepted += 1
            horizon = min(20 * ts[0].T, 4000)
            for policy in ("gedf", "gfp"):
                for arrivals in ("periodic", "sporadic"):
                    for execution in ("wcet", "random"):
                        trace = simulate_dag(
                            ts, platform=platform, policy=policy, arrivals=arrivals, execution=execution,
                            seed=k, horizon=horizon,
                        )  # fmt: skip
                        assert trace.miss is None, (ts, platform, policy, arrivals, execution)
    assert accepted >= 60


@settings(max_examples=EXAMPLES, deadline=None)
@given(task=rst.dag_tasks(max_vertices=7, types=("cpu", "gpu")), m=st.tuples(st.integers(1, 4), st.integers(1, 4)))
def test_monotone_in_the_units_of_each_type(task, m):
    """(H1) is non-increasing in each m_s (the note's lemma): accepted on m stays accepted with one more unit."""
    units = {"cpu": m[0], "gpu": m[1]}
    h = han_bound(task, units).bound
    for s in units:
        assert han_bound(task, {**units, s: units[s] + 1}).bound <= h
    # and it never goes below the critical path nor below Σ vol_s/m_s
    assert h >= task.length and h >= han_bound(task, units).spread
