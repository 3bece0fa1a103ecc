"""Bonifaci et al. 2013 load tests (G-EDF b = 2 − 1/m, G-DM b = 3 − 1/m): worked examples, exact bounds, kernel == reference, soundness."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rtsched import analyses
from rtsched.analyses.dag import bonifaci2013 as bon
from rtsched.dag import DAGBatch, DAGTask, DAGTaskSet, simulate_dag
from rtsched.testing import strategies as rst

GEDF = analyses.get("dag-gedf-bonifaci2013")
GDM = analyses.get("dag-gdm-bonifaci2013")

#: papers/bonifaci2013-dag.md, worked example.
FORK_JOIN = DAGTask([1, 2, 3, 1], [(0, 1), (0, 2), (1, 3), (2, 3)], T=18, D=18)  # vol 7, len 5
WIDE = DAGTask(
    [1, 6, 6, 6, 6, 1], [(0, 1), (0, 2), (0, 3), (0, 4), (1, 5), (2, 5), (3, 5), (4, 5)], T=40, D=40
)  # vol 26, len 8
IMPLICIT = DAGTaskSet([FORK_JOIN, WIDE])
TIGHT = DAGTaskSet([FORK_JOIN.replace(D=10), WIDE.replace(D=20)])


pytestmark = pytest.mark.usefixtures("one_numba_thread")  # tests/conftest.py


def decide(entry, ts: DAGTaskSet, m: int):
    """Reference, batch codes, single-set verdict and explain agree; returns the verdict."""
    k = bon.EDF if entry is GEDF else bon.DM
    ref = bon.reference(ts, m, k)
    assert entry.status(DAGBatch.from_tasksets([ts]), m).tolist() == [{True: 1, False: 0, "unknown": -1}[ref]]
    assert entry.verdict(ts, m) == ref
    assert entry.explain(ts, m).verdict == ref
    return ref


def brute_force_load_holds(ts: DAGTaskSet, m: int, k: int) -> bool:
    """(Λ) by scanning every integer t up to a horizon past which it cannot fail (small sets only)."""
    q = k * m - 1
    U = sum((Fraction(t.volume, t.T) for t in ts), Fraction(0))
    if q * U > m * m:
        return False
    # Σ dbf(t) ≤ U·t + Σ_{D<T} u_i·(T_i − D_i); past B/(m²/q − U) the condition holds; with
    # q·U = m², dbf(t + H) − U·(t + H) = dbf(t) − U·t for t ≥ max D (H = lcm of the periods).
    B = sum((Fraction(t.volume, t.T) * (t.T - t.D) for t in ts if t.D < t.T), Fraction(0))
    H = math.lcm(*(t.T for t in ts))
    if q * U < m * m:
        horizon = max(max(t.D for t in ts), math.ceil(B / (Fraction(m * m, q) - U))) + 1
    else:
        horizon = max(t.D for t in ts) + H + 1
    return all(q * sum(bon.dbf(t.volume, t.D, t.T, x) for t in ts) <= m * m * x for x in range(1, horizon + 1))


def test_worked_example_implicit_deadlines():
    """m = 2, b = 3/2: (L) 3·5 ≤ 2·18, 3·8 ≤ 2·40; load = U = 187/180 ≤ m/b = 4/3."""
    assert (FORK_JOIN.volume, FORK_JOIN.length, WIDE.volume, WIDE.length) == (7, 5, 26, 8)
    assert bon.speedup(2, bon.EDF) == Fraction(3, 2) and bon.speedup(2, bon.DM) == Fraction(5, 2)
    r = GEDF.explain(IMPLICIT, 2)
    assert r.verdict is True and r.evidence["length_holds"] and r.evidence["load_holds"] is True
    assert r.evidence["utilization"] == Fraction(187, 180) and r.evidence["load_capacity"] == Fraction(4, 3)
    assert [(row["q*len"], row["m*D"]) for row in r.per_task] == [(15, 36), (24, 80)]
    assert decide(GEDF, IMPLICIT, 2) is True
    # m = 1: b = 1, U = 187/180 > 1
    r = GEDF.explain(IMPLICIT, 1)
    assert r.verdict is False and r.evidence["failing_term"] == "(Λ) load: U > m/b"
    # G-DM: m = 2, m/b = 4/5 < U; m = 3, b = 8/3: 8·5 ≤ 3·18, 8·8 ≤ 3·40, U ≤ 9/8
    assert decide(GDM, IMPLICIT, 2) is False
    assert GDM.explain(IMPLICIT, 3).evidence["load_capacity"] == Fraction(9, 8)
    assert decide(GDM, IMPLICIT, 3) is True
    steps = [str(s) for s in GEDF.explain(IMPLICIT, 2).steps]
    assert steps[0].startswith("b = 2 − 1/m") and steps[-1].endswith("schedulable")


def test_worked_example_constrained_deadlines():
    """D = 10 and 20: on m = 2 the load 33/20 (at t = 20) exceeds 4/3; on m = 3 it is within 9/5."""
    assert bon.load_at(TIGHT, 20) == Fraction(33, 20)
    assert 3 * 33 > 4 * 20  # (Λ) fails at t = 20 on m = 2 (q = 3, m² = 4)
    r = GEDF.explain(TIGHT, 2)
    assert r.verdict is False and r.evidence["length_holds"] and r.evidence["failing_term"] == "(Λ) load"
    # QPA reports t = 28 (3·40 = 120 > 112); explain reports the first violation, t = 20
    assert (r.evidence["witness_t"], r.evidence["witness_demand"]) == (20, 33)
    assert bon.first_violation(TIGHT, 2, bon.EDF, 28) == 20
    assert bon.first_violation(TIGHT, 2, bon.EDF, 28, budget=1) is None  # t = 10 holds, the budget ends there
    assert bon.first_violation(TIGHT, 3, bon.EDF, 400) is None
    assert decide(GEDF, TIGHT, 2) is False
    # m = 3 (q = 5, m² = 9): the load's maximum is at t = 20, 5·33 = 165 ≤ 180
    assert max(bon.load_at(TIGHT, x) for x in range(1, 400)) == Fraction(33, 20)
    assert decide(GEDF, TIGHT, 3) is True
    assert brute_force_load_holds(TIGHT, 3, bon.EDF) and not brute_force_load_holds(TIGHT, 2, bon.EDF)


def test_arbitrary_deadline_on_both_bounds():
    """A chain of 4 with T = 3, D = 6 on m = 2: (L) 3·4 = 2·6 and U = 4/3 = m/b; accepted, and G-EDF meets it."""
    chain = DAGTask([2, 2], [(0, 1)], T=3, D=6)
    ts = DAGTaskSet([chain])
    assert 3 * chain.length == 2 * chain.D and chain.utilization == Fraction(4, 3)
    assert brute_force_load_holds(ts, 2, bon.EDF)
    assert decide(GEDF, ts, 2) is True
    assert simulate_dag(ts, 2, policy="gedf", horizon=60).miss is None
    # one tick more of period demand (T = 3, vol 5 on a wider DAG) puts U over m/b
    over = DAGTaskSet([DAGTask([2, 2, 1], [(0, 1)], T=3, D=6)])
    assert decide(GEDF, over, 2) is False
    # one tick less of deadline breaks (L)
    r = GEDF.explain(DAGTaskSet([chain.replace(D=5)]), 2)
    assert r.verdict is False and r.evidence["failing_term"] == "(L) critical path of τ0"


@pytest.mark.parametrize("m", [1, 2, 3, 5, 8])
@pytest.mark.parametrize("k", [bon.EDF, bon.DM])
def test_length_condition_exactly_at_the_bound_and_one_tick_over(m, k):
    """(L) (k·m − 1)·len ≤ m·D: a chain of m unit vertices with D = k·m − 1 is on it; T large keeps (Λ) slack."""
    entry = GEDF if k == bon.EDF else GDM
    q = k * m - 1
    on = DAGTaskSet([DAGTask([1] * m, [(i, i + 1) for i in range(m - 1)], T=100 * q, D=q)])
    assert on[0].length * q == on[0].D * m
    assert decide(entry, on, m) is True
    over = DAGTaskSet([DAGTask([1] * (m + 1), [(i, i + 1) for i in range(m)], T=100 * q, D=q)])
    r = entry.explain(over, m)
    assert r.verdict is False and r.evidence["length_failing_tasks"] == (0,)
    assert decide(entry, over, m) is False


@pytest.mark.parametrize("m", [1, 2, 3, 4, 6])
@pytest.mark.parametrize("k", [bon.EDF, bon.DM])
def test_load_condition_exactly_at_the_bound_and_one_tick_over(m, k):
    """(Λ) q·load ≤ m²: m² unit vertices in parallel (len 1), D = T = q: load = m²/q exactly; one more vertex fails."""
    entry = GEDF if k == bon.EDF else GDM
    q = k * m - 1
    on = DAGTaskSet([DAGTask([1] * (m * m), [], T=q, D=q)])
    assert decide(entry, on, m) is True
    over = DAGTaskSet([DAGTask([1] * (m * m + 1), [], T=q, D=q)])
    r = entry.explain(over, m)
    assert r.verdict is False and r.evidence["length_holds"]
    assert decide(entry, over, m) is False


def test_scaled_demand_is_the_scaled_dbf():
    """The reduction: the scaled set's demand at m²·t is q·Σ dbf(τ_i, t)."""
    for m in (1, 2, 3):
        for k in (bon.EDF, bon.DM):
            for t in range(1, 90):
                want = (k * m - 1) * sum(bon.dbf(x.volume, x.D, x.T, t) for x in TIGHT)
                assert bon.scaled_demand(TIGHT, m, k, m * m * t) == want


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    ts=rst.dag_tasksets(max_size=3, max_vertices=4, max_period=12, deadlines="arbitrary"),
    m=st.integers(1, 4),
    k=st.sampled_from([bon.EDF, bon.DM]),
)
def test_load_condition_equals_a_brute_force_scan(ts, m, k):
    """QPA on the scaled rows decides (Λ) exactly as scanning every t to the horizon does."""
    assert (bon.reference(ts, m, k) is True) == (
        all((k * m - 1) * t.length <= m * t.D for t in ts) and brute_force_load_holds(ts, m, k)
    )


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    sets=st.lists(
        rst.dag_tasksets(max_size=4, max_vertices=6, max_period=60, deadlines="arbitrary"), min_size=1, max_size=6
    ),
    m=st.integers(1, 8),
)
def test_codes_equal_the_reference(sets, m):
    """Kernel == reference on every generated integer input (both variants, one batch)."""
    batch = DAGBatch.from_tasksets(sets)
    for k, codes in ((bon.EDF, bon.codes_gedf), (bon.DM, bon.codes_gdm)):
        got = codes(batch, m).tolist()
        for code, ts in zip(got, sets, strict=True):
            ref = bon.reference(ts, m, k)
            assert code == {True: 1, False: 0, "unknown": -1}[ref], (k, m, ts)  # small values: never UNDECIDED
        entry = GEDF if k == bon.EDF else GDM
        if k == bon.DM:
            continue  # the registry's G-DM entry refuses arbitrary deadlines; the kernel is checked above
        assert entry.status(batch, m).tolist() == [
            {True: 1, False: 0, "unknown": -1}[bon.reference(ts, m, k)] for ts in sets
        ]


def test_scaled_values_past_31_bits_are_decided_by_the_reference():
    """m²·T ≥ 2³¹: the kernel answers UNDECIDED (2) and the registry re-decides with the reference."""
    big = DAGTaskSet([DAGTask([1, 2, 3], [(0, 2)], T=2**29, D=2**28), DAGTask([5], [], T=2**28, D=2**28)])
    batch = DAGBatch.from_tasksets([big])
    assert bon.codes_gedf(batch, 4).tolist() == [2]
    assert bon.reference(big, 4, bon.EDF) is True
    assert GEDF.status(batch, 4).tolist() == [1]


def test_budget_gives_unknown_never_false():
    """A set that needs QPA steps: budget 1 → "unknown"; the default decides it."""
    assert bon.reference(TIGHT, 3, bon.EDF) is True
    assert bon.reference(TIGHT, 3, bon.EDF, budget=1) == "unknown"
    assert bon.codes_gedf(DAGBatch.from_tasksets([TIGHT]), 3, budget=1).tolist() == [-1]
    r = GEDF.explain(TIGHT, 3, 1)
    assert r.verdict == "unknown" and "budget" in r.evidence["failing_term"]


def test_gdm_accepts_only_what_gedf_accepts():
    """b = 3 − 1/m > 2 − 1/m: both conditions of G-DM imply G-EDF's (a relation of the two tests as implemented)."""
    for ts in (IMPLICIT, TIGHT):
        for m in (1, 2, 3, 4, 6):
            if bon.reference(ts, m, bon.DM) is True:
                assert bon.reference(ts, m, bon.EDF) is True


def test_not_monotone_in_m():
    """(L) tightens with m (b grows): a chain with len = D = T passes on m = 1 and fails on m = 2."""
    ts = DAGTaskSet([DAGTask([2, 3], [(0, 1)], T=5, D=5)])
    assert decide(GEDF, ts, 1) is True and decide(GEDF, ts, 2) is False


def dm_order(ts: DAGTaskSet) -> DAGTaskSet:
    """Deadline-monotonic priority order, ties to the lower index (stable sort): simulate_dag's gfp order."""
    return DAGTaskSet(sorted(ts.tasks, key=lambda t: t.D))


def no_miss(ts: DAGTaskSet, m: int, policy: str, seed: int) -> None:
    longest = max(max(t.T, t.D) for t in ts)
    runs = [
        dict(arrivals="periodic", execution="wcet", horizon=8 * longest),
        dict(arrivals="sporadic", execution="random", horizon=16 * longest, seed=seed),
    ]
    ties = ("index", "fifo", f"random:{seed}") if policy == "gedf" else ("index",)
    for run in runs:
        for tie in ties:
            trace = simulate_dag(ts, m, policy=policy, ties=tie, **run)
            assert trace.miss is None, (repr(ts), m, policy, tie, run, trace.miss)


def run_soundness(k: int, deadlines: str, max_period: int, examples: int = 120) -> None:
    """Hypothesis sets on which the test runs; every accepted one is simulated; at least examples/10 must be accepted."""
    reach = {"accepted": 0}

    # derandomize: the reach count below must not depend on the run (the dev profile draws anew each
    # run, and G-DM accepted 10 of 120 sets once, under the count of 12)
    @settings(max_examples=examples, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
    @given(
        ts=rst.dag_tasksets(max_size=3, max_vertices=5, max_period=max_period, deadlines=deadlines),
        m=st.integers(1, 4),
        seed=st.integers(0, 2**16),
    )
    def prop(ts, m, seed):
        if bon.reference(ts, m, k) is True:
            reach["accepted"] += 1
            if k == bon.EDF:
                no_miss(ts, m, "gedf", seed)
            else:
                no_miss(dm_order(ts), m, "gfp", seed)

    prop()
    assert reach["accepted"] >= examples // 10, reach


def test_gedf_accepted_sets_meet_every_deadline_arbitrary():
    """Arbitrary deadlines (several pending jobs of a task): whenever G-EDF's test accepts, the simulator meets every deadline."""
    run_soundness(bon.EDF, "arbitrary", 30)


def test_gdm_accepted_sets_meet_every_deadline():
    """Constrained deadlines: whenever G-DM's test accepts, gfp in DM order (stable by D) meets every deadline."""
    run_soundness(bon.DM, "constrained", 150)


def test_seeded_sets_near_the_bounds_meet_every_deadline():
    """Reach: sets built on (L) and (Λ) with slack zero are accepted and simulated (both variants)."""
    accepted = 0
    for m in (2, 3, 4):
        for k, policy in ((bon.EDF, "gedf"), (bon.DM, "gfp")):
            q = k * m - 1
            ts = DAGTaskSet(
                [
                    DAGTask([1] * m, [(i, i + 1) for i in range(m - 1)], T=2 * q, D=q),  # on (L)
                    DAGTask([1] * (m * m), [], T=2 * q, D=2 * q),
                ]
            )
            if bon.reference(ts, m, k) is True:
                accepted += 1
                no_miss(ts if policy == "gedf" else dm_order(ts), m, policy, 7)
    assert accepted >= 4
