"""Li et al. 2013 capacity augmentation bound of G-EDF for DAG tasks: worked example, bounds, codes == reference, soundness."""

from __future__ import annotations

import math
import time
from fractions import Fraction

import numpy as np
import pytest

import rtsched
from rtsched import analyses
from rtsched.analyses.dag import gedf_li2013 as cab
from rtsched.dag import DAGBatch, DAGTask, DAGTaskSet, simulate_dag
from rtsched.generators.dag import dag_tasksets

CAB = analyses.get("dag-gedf-cab")

#: papers/li2013-gedf-dag.md, worked example: m = 4, b = 7/2.
FORK_JOIN = DAGTask([1, 2, 3, 1], [(0, 1), (0, 2), (1, 3), (2, 3)], T=18, D=18)  # vol 7, len 5
WIDE = DAGTask(
    [1, 6, 6, 6, 6, 1], [(0, 1), (0, 2), (0, 3), (0, 4), (1, 5), (2, 5), (3, 5), (4, 5)], T=40, D=40
)  # vol 26, len 8


def chain(wcets: list[int], T: int) -> DAGTask:
    """A chain (vol = len = ΣC), implicit deadline T."""
    return DAGTask(wcets, [(i, i + 1) for i in range(len(wcets) - 1)], T=T, D=T)


def parallel(wcets: list[int], T: int) -> DAGTask:
    """Independent vertices (len = max C), implicit deadline T."""
    return DAGTask(wcets, [], T=T, D=T)


def decide(ts: DAGTaskSet, m: int) -> bool:
    """The codes path (batch) and the single-set path, checked equal to the reference."""
    ref = cab.reference(ts, m)
    assert bool(CAB.batch(DAGBatch.from_tasksets([ts]), m)[0]) is ref
    assert CAB.verdict(ts, m) is ref
    assert CAB.explain(ts, m).verdict is ref
    return ref


def test_worked_example():
    ts = DAGTaskSet([FORK_JOIN, WIDE])
    assert (FORK_JOIN.volume, FORK_JOIN.length, WIDE.volume, WIDE.length) == (7, 5, 26, 8)
    assert cab.bound(4) == Fraction(7, 2)
    r = CAB.explain(ts, 4)
    assert r.verdict is True
    assert r.evidence["total_utilization"] == Fraction(7, 18) + Fraction(13, 20) == Fraction(187, 180)
    assert r.evidence["capacity"] == Fraction(8, 7)
    assert [row["len*b"] for row in r.per_task] == [Fraction(35, 2), 28]
    assert r.evidence["failing_term"] is None
    assert decide(ts, 4)
    # (2) fails for the fork-join with D = T = 17 (5·7/2 = 17.5 > 17), (1) still holds
    tight = DAGTaskSet([FORK_JOIN.replace(T=17, D=17), WIDE])
    r = CAB.explain(tight, 4)
    assert r.verdict is False and r.evidence["utilization_holds"] and r.evidence["length_failing_tasks"] == (0,)
    assert r.evidence["failing_term"] == "(2) critical path of τ0"
    assert decide(tight, 4) is False
    # (1) fails with the wide task at T = D = 30 (7/18 + 13/15 = 113/90 > 8/7), (2) still holds
    heavy = DAGTaskSet([FORK_JOIN, WIDE.replace(T=30, D=30)])
    r = CAB.explain(heavy, 4)
    assert r.verdict is False and r.evidence["length_holds"] and r.evidence["failing_term"] == "(1) total utilization"
    assert decide(heavy, 4) is False
    steps = [str(s) for s in CAB.explain(ts, 4).steps]
    assert steps[0].startswith("b = 4 − 2/m") and steps[-1].startswith("(1) and (2) hold")


@pytest.mark.parametrize("m", [1, 2, 3, 4, 7, 16])
def test_length_condition_exactly_at_the_bound_and_one_tick_over(m):
    """(2) len·(4m − 2) ≤ D·m: a chain of m unit vertices with D = T = 4m − 2 is on it, m + 1 over."""
    on = DAGTaskSet([chain([1] * m, 4 * m - 2)])
    assert on[0].length * (4 * m - 2) == on[0].D * m
    r = CAB.explain(on, m)
    assert r.verdict is True and r.evidence["tightest_length_ratio"] == 1 and r.evidence["length_holds"]
    assert decide(on, m) is True
    over = DAGTaskSet([chain([1] * (m + 1), 4 * m - 2)])  # one tick more of critical path, same D
    r = CAB.explain(over, m)
    assert r.verdict is False and not r.evidence["length_holds"] and r.evidence["length_failing_tasks"] == (0,)
    if m >= 2:  # (m + 1)/(4m − 2) ≤ m²/(4m − 2): (1) still holds, (2) alone fails
        assert r.evidence["utilization_holds"] and r.evidence["failing_term"] == "(2) critical path of τ0"
    assert decide(over, m) is False
    # m independent vertices of WCET m: len = m, vol = m², D = T = 4m − 2: both on their bound
    both = DAGTaskSet([parallel([m] * m, 4 * m - 2)])
    assert both[0].length * (4 * m - 2) == both[0].D * m and both.utilization == Fraction(m * m, 4 * m - 2)
    assert decide(both, m) is True


@pytest.mark.parametrize("m", [1, 2, 3, 4, 5, 8, 13])
def test_utilization_condition_exactly_at_the_bound_and_one_tick_over(m):
    """(1) Σ vol_i/T_i ≤ m²/(4m − 2), with (2) slack: fully parallel unit vertices (len = 1)."""
    P, Q = 2 * (4 * m - 2), 4 * m - 2
    vol_2 = (m * m - 1) // 2
    vol_1 = 2 * m * m - 2 * vol_2  # vol_1/P + vol_2/Q = (vol_1 + 2·vol_2)/P = m²/(4m − 2)
    rest = [parallel([1] * vol_2, Q)] if vol_2 else []
    on = DAGTaskSet([parallel([1] * vol_1, P), *rest])
    assert on.utilization == Fraction(m * m, 4 * m - 2)
    assert all(t.length * (4 * m - 2) < t.D * m for t in on)  # (2) with slack
    r = CAB.explain(on, m)
    assert r.verdict is True and r.evidence["utilization_slack"] == 0
    assert decide(on, m) is True
    over = DAGTaskSet([parallel([1] * (vol_1 + 1), P), *rest])  # one more tick of work
    r = CAB.explain(over, m)
    assert r.verdict is False and r.evidence["failing_term"] == "(1) total utilization" and r.evidence["length_holds"]
    assert decide(over, m) is False


def test_on_the_bound_sets_with_many_tasks_are_decided_exactly():
    """Sums of many thirds, sevenths, ... hit (1) exactly: the float kernel must defer to the reference."""
    for m in (2, 3, 4, 6):
        q = 4 * m - 2
        # m² / q as a sum of k tasks of utilization m²/(k·q): vol = m², T = k·q (len 1: parallel units)
        for k in (3, 5, 7, 10):
            on = DAGTaskSet([parallel([1] * (m * m), k * q)] * k)
            assert on.utilization == Fraction(m * m, q)
            # exactly on (1), the float difference is inside its margin: the kernel defers
            assert cab.codes(DAGBatch.from_tasksets([on]), m).tolist() == [2]
            assert decide(on, m) is True
            over = DAGTaskSet([parallel([1] * (m * m + 1), k * q)] + [parallel([1] * (m * m), k * q)] * (k - 1))
            assert decide(over, m) is False


def random_sets(seed: int, count: int, n_tasks: int, utilization: float, shape: str = "fork-join") -> list[DAGTaskSet]:
    params = {
        "fork-join": {"max_depth": 2, "max_branches": 3, "p_par": 0.6, "p_term": 0.3, "wcet": (1, 12)},
        "gnp": {"n": 6, "p": 0.3, "wcet": (1, 12)},
        "layered": {"layers": 3, "width": (1, 3), "p": 0.5, "wcet": (1, 12)},
    }[shape]
    return dag_tasksets(
        np.random.default_rng(seed), n_tasks=n_tasks, utilization=utilization, size=count, shape=shape,
        shape_params=params, deadlines="implicit", utilizations="uunifast-discard", umax=1.5,
    )  # fmt: skip


@pytest.mark.parametrize("shape", ["fork-join", "gnp", "layered"])
def test_codes_equal_the_reference_on_random_sets(shape):
    seen = set()
    for seed, (n_tasks, utilization) in enumerate([(2, 0.4), (3, 0.9), (4, 1.5), (5, 2.5), (3, 3.5)]):
        sets = random_sets(100 + seed, 40, n_tasks, utilization, shape)
        batch = DAGBatch.from_tasksets(sets)
        for m in (1, 2, 3, 4, 8):
            codes = CAB.status(batch, m)
            ref = [cab.reference(ts, m) for ts in sets]
            assert codes.tolist() == [int(r) for r in ref], (shape, seed, m)
            seen.update(ref)
    assert seen == {True, False}


def test_monotone_in_m_where_the_theorem_is():
    """(1) is monotone in m; the verdict is monotone from m on once 4·len_i ≤ D_i for every task.

    m/b = m²/(4m − 2) grows with m, so (1) only gets easier; but b = 4 − 2/m grows too, so (2)
    len_i·b ≤ D_i gets harder (next test): the verdict is not monotone in m in general. Since
    b < 4 for every m, a set accepted on m whose tasks meet 4·len_i ≤ D_i is accepted on every
    m' > m.
    """
    sets = [ts for seed in range(4) for ts in random_sets(200 + seed, 30, 3, 0.5 + seed)]
    batch = DAGBatch.from_tasksets(sets)
    codes = {m: CAB.status(batch, m) for m in range(1, 13)}
    assert any(codes[m].any() for m in codes) and not all(codes[m].all() for m in codes)
    for m in range(1, 12):
        assert Fraction(m * m, 4 * m - 2) < Fraction((m + 1) ** 2, 4 * m + 2)
    for s, ts in enumerate(sets):
        short = all(4 * t.length <= t.D for t in ts)
        for m in range(1, 12):
            if ts.utilization <= Fraction(m * m, 4 * m - 2):
                assert cab.explain(ts, m + 1).evidence["utilization_holds"]
            if codes[m][s] == 1 and short:
                assert all(codes[k][s] == 1 for k in range(m + 1, 13))


def test_not_monotone_in_m_through_the_length_condition():
    """A chain with len·b(1) = 2·len ≤ D but len·b(2) = 3·len > D: accepted on 1, not on 2 processors."""
    ts = DAGTaskSet([chain([1, 1], 5)])  # len = 2, D = 5: 2·2 = 4 ≤ 5, 2·3 = 6 > 5; u = 2/5 ≤ 1/2
    assert decide(ts, 1) is True
    assert decide(ts, 2) is False


def test_check_lists_it_for_dag_sets():
    ts = DAGTaskSet([FORK_JOIN, WIDE])
    report = rtsched.check(ts, 4)
    assert report.verdicts["dag-gedf-cab"] is True
    assert CAB.supports(4, ts) is None
    constrained = DAGTaskSet([FORK_JOIN.replace(D=17)])
    assert CAB.supports(4, constrained) is not None  # implicit deadlines only


def _horizon(ts: DAGTaskSet, arrivals: str) -> int:
    top = max(t.T for t in ts)
    if arrivals == "periodic":
        return min(math.lcm(*(t.T for t in ts)), 30 * top)
    return 30 * top


def test_sound_against_the_simulator():
    """No accepted set misses a deadline under node-level G-EDF (periodic/sporadic, wcet/random).

    The budget counts this process's CPU time after the kernels are loaded: with a cold cache, or
    under ``pytest -n 2`` (another worker compiling the same kernels, other work on the cores),
    wall time measured compiles and load, not this test."""
    warm = DAGTaskSet([FORK_JOIN])
    CAB.verdict(warm, 2)
    for arrivals in ("periodic", "sporadic"):
        for execution in ("wcet", "random"):
            simulate_dag(warm, 2, policy="gedf", arrivals=arrivals, execution=execution, seed=0, horizon=36)
    start = time.process_time()
    checked = accepted = 0
    for seed, (m, n_tasks, utilization, shape) in enumerate(
        [(2, 2, 0.5, "fork-join"), (4, 4, 0.9, "gnp"), (4, 5, 1.0, "layered"), (8, 6, 1.6, "fork-join")]
    ):
        sets = random_sets(300 + seed, 25, n_tasks, utilization, shape)
        for k, ts in enumerate(sets):
            checked += 1
            if not CAB.verdict(ts, m):
                continue
            accepted += 1
            for arrivals in ("periodic", "sporadic"):
                for execution in ("wcet", "random"):
                    trace = simulate_dag(
                        ts, m, policy="gedf", arrivals=arrivals, execution=execution, seed=k,
                        horizon=_horizon(ts, arrivals),
                    )  # fmt: skip
                    assert trace.miss is None, (seed, k, arrivals, execution, trace.miss)
    assert checked == 100
    assert accepted >= 40, accepted  # 45 with these seeds
    assert time.process_time() - start < 20


def test_the_simulator_check_is_not_vacuous():
    """At high utilization the same simulation finds misses in sets the bound rejects."""
    rejected = missed = 0
    for k, ts in enumerate(random_sets(999, 30, 3, 3.6, "gnp")):
        if CAB.verdict(ts, 4):
            continue
        rejected += 1
        missed += simulate_dag(ts, 4, policy="gedf", seed=k, horizon=_horizon(ts, "periodic")).miss is not None
    assert rejected == 30 and missed >= 10
