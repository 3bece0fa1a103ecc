"""Melani et al. 2015 response-time analyses of DAG tasks (G-FP and G-EDF): worked examples by hand, Graham's bound for one task, codes == reference, soundness."""

from __future__ import annotations

import math
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rtsched
from rtsched import analyses
from rtsched.analyses.dag import melani2015 as mel
from rtsched.analyses.theory.graham import graham_bound_int
from rtsched.dag import DAGBatch, DAGTask, DAGTaskSet, simulate_dag
from rtsched.generators.dag import dag_tasksets
from rtsched.testing import strategies as rst

FP = analyses.get("dag-gfp-melani2015")
EDF = analyses.get("dag-gedf-melani2015")

#: papers/melani2015-rta-dag.md, worked example (m = 2): a fork-join (vol 11, len 6) and a chain (vol = len = 4).
FORK_JOIN = DAGTask([1, 3, 2, 4, 1], [(0, 1), (0, 2), (0, 3), (1, 4), (2, 4), (3, 4)], T=20, D=15)
CHAIN = DAGTask([2, 2], [(0, 1)], T=12, D=9)
EXAMPLE = DAGTaskSet([FORK_JOIN, CHAIN])


def code(verdict) -> int:
    """A verdict as the registry's code: 1, 0, or -1 for "unknown"."""
    return {True: 1, False: 0}.get(verdict, -1)


def decide(entry, ts: DAGTaskSet, m: int) -> bool:
    """The batch kernel, the single-set path and explain, all equal to the reference."""
    ref = entry.reference(ts, m)
    assert bool(entry.batch(DAGBatch.from_tasksets([ts]), m)[0]) is ref
    assert entry.verdict(ts, m) is ref
    assert entry.explain(ts, m).verdict is ref
    return ref


# -- the bounds --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        # vol 11, T 20, R 8, L 4, m 2: (4 + 8 − 5.5) = 6.5 → 0 jobs, min(11, 2·6.5 = 13) = 11
        pytest.param((11, 20, 8, 4, 2), 11, id="carry-in-capped-at-vol"),
        # vol 4, T 12, R 4, L 8, m 2: (8 + 4 − 2) = 10 → 0 jobs, min(4, 20) = 4
        pytest.param((4, 12, 4, 8, 2), 4, id="one-job"),
        # vol 4, T 12, R 8, L 10, m 2: (10 + 8 − 2) = 16 → 1 job + min(4, 2·4 = 8) = 8
        pytest.param((4, 12, 8, 10, 2), 8, id="body-and-carry"),
        # vol 6, T 10, R 3, L 1, m 3: (1 + 3 − 2) = 2 → min(6, 3·2 = 6) = 6
        pytest.param((6, 10, 3, 1, 3), 6, id="exact-fit"),
        # vol 7, T 10, R 4, L 1, m 2: (1 + 4 − 3.5) = 1.5 → min(7, 3) = 3 (the fraction stays exact)
        pytest.param((7, 10, 4, 1, 2), 3, id="half-tick"),
    ],
)
def test_carry_in_workload_by_hand(args, expected):
    assert mel.carry_in_workload(*args) == expected


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        # vol 4, D 9, T 12, R 4 on D_k 15, m 2: ⌊6/12⌋ + 1 = 1 job, carry 15 mod 12 − 5 < 0: 4
        pytest.param((4, 9, 12, 4, 15, 2), 4, id="one-job-no-carry"),
        # vol 11, D 15, T 20, R 10 on D_k 9: ⌊−6/20⌋ + 1 = 0 jobs, carry 9 − 5 = 4: min(11, 8) = 8
        pytest.param((11, 15, 20, 10, 9, 2), 8, id="longer-deadline-carry-only"),
        # vol 4, D 9, T 12, R 8 on D_k 15: 1 job + min(4, 2·(3 − 1)) = 8
        pytest.param((4, 9, 12, 8, 15, 2), 8, id="job-and-carry"),
    ],
)
def test_edf_interference_by_hand(args, expected):
    assert mel.edf_interference(*args) == expected


# -- worked examples ----------------------------------------------------------------------------------


def test_worked_example_fp():
    run = mel.run_fp(EXAMPLE, 2)
    # τ0: 6 + ⌊5/2⌋ = 8; τ1: 4 → 4 + ⌊W_0(4) = 11 / 2⌋ = 9 → W_0(9) = 11: 9 = D
    assert run == mel.Run(R=(8, 9), failing=None, steps=3)
    r = FP.explain(EXAMPLE, 2)
    assert r.verdict is True and r.evidence["response_times"] == (8, 9) and r.evidence["min_slack"] == 0
    assert [row["R"] for row in r.per_task] == [8, 9]
    steps = [str(s) for s in r.steps]
    assert steps[0].startswith("G-FP on m = 2") and steps[-1].startswith("every R_k ≤ D_k")
    assert "  x = 4: W_0(4) = 11; len + ⌊(vol − len + ΣW)/m⌋ = 9" in steps
    assert decide(FP, EXAMPLE, 2)


def test_worked_example_fp_fails():
    tight = DAGTaskSet([FORK_JOIN, CHAIN.replace(D=8)])
    run = mel.run_fp(tight, 2)
    assert run.R == (8, 9) and run.failing == 1 and run.window == 4
    r = FP.explain(tight, 2)
    assert r.verdict is False
    assert r.evidence["failing_term"] == "R of τ1 = 9 > D = 8 (window x = 4)"
    assert r.evidence["interference"] == {"τ0": 11}
    assert decide(FP, tight, 2) is False
    # the other priority order: the chain first (R = 4), then the fork-join: 6 + ⌊(5 + W)/2⌋
    swapped = DAGTaskSet([CHAIN.replace(D=8), FORK_JOIN])
    assert mel.run_fp(swapped, 2).R == (4, 10)  # W_1(8) = min(4, 2·(8 + 4 − 2)) = 4 → 6 + ⌊9/2⌋ = 10
    assert decide(FP, swapped, 2)


def test_worked_example_edf():
    run = mel.run_edf(EXAMPLE, 2)
    # rounds (note): (8, 4) → (10, 8) → (12, 9) → no change
    assert run == mel.Run(R=(12, 9), failing=None, steps=6)
    r = EDF.explain(EXAMPLE, 2)
    assert r.verdict is True and r.evidence["response_times"] == (12, 9)
    steps = [str(s) for s in r.steps]
    assert steps[1] == "Graham's bounds len + ⌊(vol − len)/m⌋: R_0 = 8, R_1 = 4"
    assert steps[-1].startswith("no bound changed")
    assert decide(EDF, EXAMPLE, 2)


def test_worked_example_edf_fails():
    tight = DAGTaskSet([FORK_JOIN, CHAIN.replace(D=8)])
    # (8, 4) → (10, 7) → τ0: 12, τ1 at x = 7: min(W_0(7) = 11, I^EDF = 10) = 10 → 4 + 5 = 9 > 8
    run = mel.run_edf(tight, 2)
    assert run.R == (12, 9) and run.failing == 1 and run.window == 7
    r = EDF.explain(tight, 2)
    assert r.verdict is False and r.evidence["interference"] == {"τ0": (11, 10)}
    assert r.evidence["failing_term"] == "R of τ1 = 9 > D = 8 (window x = 7)"
    assert decide(EDF, tight, 2) is False


def test_graham_bound_alone_fails_first():
    # len 6 > D 5: no window at all
    ts = DAGTaskSet([FORK_JOIN.replace(D=5)])
    for entry in (FP, EDF):
        r = entry.explain(ts, 4)
        assert r.verdict is False and r.evidence["window"] is None
        assert r.evidence["failing_term"].startswith("Graham's bound of τ0: len + ⌊(vol − len)/m⌋ = 7 > D = 5")
        assert decide(entry, ts, 4) is False


@settings(max_examples=200, deadline=None)
@given(task=rst.dag_tasks(max_vertices=7, max_wcet=9, deadlines="constrained"), m=st.integers(1, 16))
def test_one_task_is_grahams_bound(task, m):
    """With no other task, (M1) is Graham's integer bound for both policies, and the verdict its check."""
    ts = DAGTaskSet([task])
    g = graham_bound_int(task.volume, task.length, m)
    assert mel.run_fp(ts, m).R == (g,)
    assert mel.run_edf(ts, m).R == (g,)
    assert mel.reference_fp(ts, m) is mel.reference_edf(ts, m) is (g <= task.D)


# -- codes == reference -----------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(
    sets=st.lists(
        rst.dag_tasksets(max_size=5, max_vertices=6, max_period=60, deadlines="constrained"), min_size=1, max_size=12
    ),
    m=st.one_of(st.integers(1, 8), st.integers(9, 10**6)),
)
def test_codes_equal_the_reference_on_drawn_sets(sets, m):
    batch = DAGBatch.from_tasksets(sets)
    assert FP.status(batch, m).tolist() == [code(mel.reference_fp(ts, m)) for ts in sets]
    assert EDF.status(batch, m).tolist() == [code(mel.reference_edf(ts, m)) for ts in sets]
    for budget in (1, 3):
        assert FP.status(batch, m, budget).tolist() == [code(mel.reference_fp(ts, m, budget)) for ts in sets]
        assert EDF.status(batch, m, budget).tolist() == [code(mel.reference_edf(ts, m, budget)) for ts in sets]


def random_sets(
    seed: int, count: int, n_tasks: int, utilization: float, shape: str, deadlines: str
) -> list[DAGTaskSet]:
    params = {
        "fork-join": {"max_depth": 2, "max_branches": 3, "p_par": 0.6, "p_term": 0.3, "wcet": (1, 12)},
        "gnp": {"n": 6, "p": 0.3, "wcet": (1, 12)},
        "layered": {"layers": 3, "width": (1, 3), "p": 0.5, "wcet": (1, 12)},
    }[shape]
    return dag_tasksets(
        np.random.default_rng(seed), n_tasks=n_tasks, utilization=utilization, size=count, shape=shape,
        shape_params=params, deadlines=deadlines, utilizations="uunifast-discard", umax=1.5,
    )  # fmt: skip


@pytest.mark.parametrize("shape", ["fork-join", "gnp", "layered"])
def test_codes_equal_the_reference_on_generated_sets(shape):
    seen: set[bool] = set()
    for seed, (n_tasks, utilization) in enumerate([(2, 0.6), (3, 1.2), (4, 2.0), (6, 3.0)]):
        for deadlines in ("implicit", "constrained"):
            sets = random_sets(10 * seed + (deadlines == "constrained"), 30, n_tasks, utilization, shape, deadlines)
            batch = DAGBatch.from_tasksets(sets)
            for m in (1, 2, 4, 8):
                for entry, ref in ((FP, mel.reference_fp), (EDF, mel.reference_edf)):
                    expected = [ref(ts, m) for ts in sets]
                    assert entry.status(batch, m).tolist() == [code(v) for v in expected], (shape, seed, m, entry.name)
                    seen.update(expected)
    assert seen == {True, False}


def test_codes_equal_the_reference_on_large_values():
    """Time values near 2**31 and m up to 10**6: the capped int64 sums never overflow."""
    big = 2**31 - 1  # the model caps every time value and each task's volume at MAX_TIME = 2**31 − 1
    sets = [
        DAGTaskSet([DAGTask([big // 4] * 3, [], T=big, D=big), DAGTask([big // 3, big // 3], [(0, 1)], T=big, D=big)]),
        DAGTaskSet([DAGTask([big // 8] * 8, [], T=big, D=big // 2 + 7), DAGTask([1], [], T=3, D=2)]),
        DAGTaskSet([DAGTask([big // 40] * 40, [], T=big, D=big)] * 3),
        DAGTaskSet([DAGTask([5], [], T=7, D=7), DAGTask([big // 40] * 40, [], T=big, D=big // 20)]),
        DAGTaskSet([DAGTask([1], [], T=1, D=1), DAGTask([1, 1], [], T=big, D=big)]),
        DAGTaskSet([DAGTask([1], [], T=2, D=1), DAGTask([big // 2, big // 2], [], T=big, D=big // 2 + 1)]),
    ]
    batch = DAGBatch.from_tasksets(sets)
    seen = set()
    for m in (1, 2, 3, 40, 1000, 10**6):
        for entry, ref in ((FP, mel.reference_fp), (EDF, mel.reference_edf)):
            expected = [ref(ts, m) for ts in sets]
            assert entry.status(batch, m).tolist() == [code(v) for v in expected], (m, entry.name)
            seen.update(expected)
    assert seen == {True, False, "unknown"}


def test_budget():
    """A unit task of period 1 beside a long one: the window grows one tick per evaluation up to D ≈ 2**31."""
    ts = DAGTaskSet([DAGTask([1], [], T=1, D=1), DAGTask([1, 1], [], T=2**31 - 1, D=2**31 - 1)])
    for entry, run in ((FP, mel.run_fp), (EDF, mel.run_edf)):
        full = run(ts, 1)
        assert full.exhausted and full.steps == mel.DEFAULT_BUDGET and full.verdict == "unknown"
        assert entry.verdict(ts, 1) == "unknown" == entry.reference(ts, 1, budget=50)
        assert entry.status(DAGBatch.from_tasksets([ts]), 1).tolist() == [-1]
        r = entry.explain(ts, 1, budget=5)
        assert r.verdict == "unknown" and "budget of 5 response-time evaluations" in r.summary
        assert str(r.steps[-1]) == "the budget of 5 response-time evaluations ran out: unknown"
        assert entry.verdict(EXAMPLE, 2, budget=10**6) is True
    with pytest.raises(rtsched.InputError, match="budget"):
        mel.run_fp(ts, 1, -1)


# -- soundness ------------------------------------------------------------------------------------------


def _horizon(ts: DAGTaskSet, arrivals: str) -> int:
    top = max(t.T for t in ts)
    if arrivals == "periodic":
        return min(math.lcm(*(t.T for t in ts)), 10 * top)
    return 10 * top


@pytest.mark.parametrize(("entry", "policy"), [(FP, "gfp"), (EDF, "gedf")], ids=["gfp", "gedf"])
def test_sound_against_the_simulator(entry, policy):
    """No accepted generated set misses a deadline under the matching node-level policy (task order for G-FP).

    The budget counts this process's CPU time after the kernels are loaded: with a cold cache, or
    under ``pytest -n 2`` (another worker compiling the same kernels, other work on the cores),
    wall time measured compiles and load, not this test."""
    entry.verdict(EXAMPLE, 2)
    for arrivals, execution in (("periodic", "wcet"), ("sporadic", "random")):
        simulate_dag(
            EXAMPLE,
            2,
            policy=policy,
            arrivals=arrivals,
            execution=execution,
            seed=0,
            horizon=_horizon(EXAMPLE, arrivals),
        )
    start = time.process_time()
    checked = accepted = 0
    for seed, (m, n_tasks, utilization, shape, deadlines) in enumerate(
        [(2, 2, 0.6, "fork-join", "constrained"), (4, 3, 1.2, "gnp", "implicit"), (4, 4, 1.4, "layered", "constrained")]
    ):
        for k, ts in enumerate(random_sets(500 + seed, 12, n_tasks, utilization, shape, deadlines)):
            checked += 1
            if not entry.verdict(ts, m):
                continue
            accepted += 1
            for arrivals, execution in (("periodic", "wcet"), ("sporadic", "random")):
                trace = simulate_dag(
                    ts, m, policy=policy, arrivals=arrivals, execution=execution, seed=k, horizon=_horizon(ts, arrivals)
                )  # fmt: skip
                assert trace.miss is None, (entry.name, seed, k, arrivals, execution, trace.miss)
    assert checked == 36 and accepted >= 12, accepted
    assert time.process_time() - start < 25


def test_the_simulator_check_is_not_vacuous():
    """Sets both analyses reject at high utilization do miss in simulation, some of them."""
    rejected = missed = 0
    for k, ts in enumerate(random_sets(999, 20, 3, 3.6, "gnp", "constrained")):
        if FP.verdict(ts, 4) or EDF.verdict(ts, 4):
            continue
        rejected += 1
        missed += simulate_dag(ts, 4, policy="gedf", seed=k, horizon=_horizon(ts, "periodic")).miss is not None
    assert rejected >= 15 and missed >= 5, (rejected, missed)


def test_registered_for_dag_sets():
    for entry, policy in ((FP, "global-fp"), (EDF, "global-edf")):
        assert entry.policy == policy and entry.kind == "sufficient" and not entry.featured
        assert entry.supports(4, EXAMPLE) is None
        assert entry.supports(4, DAGTaskSet([FORK_JOIN.replace(D=30)])) is not None  # D > T: not supported
    report = rtsched.check(EXAMPLE, 2, ["dag-gfp-melani2015", "dag-gedf-melani2015"])
    assert report.verdicts == {"dag-gfp-melani2015": True, "dag-gedf-melani2015": True}
