"""Global FP tests on arbitrary deadlines (D > T, issue #47): the reduction D'_i = min(D_i, T_i).

papers/arbitrary-deadlines-reductions.md, Theorem 1: gfp-bcl, gfp-da, gfp-da-lc, gfp-rta and
gfp-rta-lc decide a set with D > T by deciding the constrained set with D' = min(D, T) in the same
task order. Checked here: 1) the registry (the five take D > T, rm-us refuses it with a reason,
exact-gfp takes it: analyses/exact/_pending.py), the worked example of the note (by hand there), the overloaded case C > T and a
witness that the constrained formulas applied to the raw D are unsound; 2) kernel == reference
on arbitrary-deadline batches (and at small budgets for the response-time tests); 3) soundness on
D > T sets against rtsched's simulator (global FP, FIFO within a task; periodic and seeded
sporadic arrivals, WCET) and against a tick simulator written here with random execution times;
4) OPA with DA / DA-LC on D > T sets.
"""

from __future__ import annotations

import functools
import os
import random
from math import lcm

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rtsched import TaskSet, TaskSetBatch, analyses
from rtsched.analyses.global_fp import _common, _workload, deadline_analysis, rta_fp, rta_lc
from rtsched.errors import InputError
from rtsched.priorities import audsley
from rtsched.sim import simulate
from rtsched.testing import strategies as rst

EXAMPLES = int(os.environ.get("RTSCHED_PROPERTY_EXAMPLES", "150"))
NAMES = ("gfp-bcl", "gfp-da", "gfp-da-lc", "gfp-rta", "gfp-rta-lc")
KERNELS = {"gfp-rta": (rta_fp._rta_kernel, rta_fp._rta_one), "gfp-rta-lc": (rta_lc._rta_lc_kernel, rta_lc._rta_lc_one)}
REFERENCES = {"gfp-rta": rta_fp.rta_reference, "gfp-rta-lc": rta_lc.rta_lc_reference}

#: The worked example of papers/arbitrary-deadlines-reductions.md: D' = (5, 7, 4); DA accepts
#: (τ1: 3 + ⌊4/2⌋ = 5 ≤ 7; τ2: 1 + ⌊(4 + 3)/2⌋ = 4 ≤ 4), BCL rejects (τ2: 4∧3 + 3∧3 = 6 ≥ 2·3).
WORKED = [(2, 15, 5), (3, 7, 10), (1, 20, 4)]
#: Overload on one processor (U = 13/12): the DA formula applied to the raw D accepts it (τ1:
#: W^D_0(8) with D_0 = 7 is 5, 3 + 5 = 8 ≤ 8), the simulator misses at t = 40.
RAW_D_WITNESS = [(1, 7, 3), (3, 8, 4)]


def code_of(verdict):
    return 1 if verdict is True else (0 if verdict is False else -1)


def quick(examples=EXAMPLES // 3):
    return settings(max_examples=max(10, examples), deadline=None, suppress_health_check=[HealthCheck.too_slow])


def arbitrary(rows):
    return TaskSet.from_tasks(rows, deadlines="arbitrary")


# --------------------------------------------------------------------------------------------
# 1) registry, worked example, edge cases
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", NAMES)
def test_the_five_take_arbitrary_deadlines(name):
    e = analyses.get(name)
    assert "arbitrary" in e.deadlines and e.supports(2, arbitrary(WORKED)) is None


def test_rm_us_and_exact_gfp_refuse_with_a_reason():
    ts = arbitrary(WORKED)
    why = analyses.get("rm-us").supports(2, ts)
    assert why is not None and "implicit deadlines only" in why and "D >= T" in why
    assert analyses.get("rm-us").to_dict()["deadlines_note"] == why
    with pytest.raises(InputError, match="implicit deadlines only"):
        analyses.get("rm-us").verdict(ts, 2)
    if "exact-gfp" in analyses.names():  # exact on raw D: several pending jobs per task (analyses/exact/_pending.py)
        assert analyses.get("exact-gfp").supports(2, ts) is None


def test_constrained_sets_are_not_changed():
    ts = TaskSet.from_tasks([(1, 3, 4), (2, 5, 5)])
    reduction = _common.reduce_deadlines(ts)
    assert reduction.taskset is ts and reduction.reduced == () and reduction.overloaded == ()


@pytest.mark.parametrize(
    ("name", "accepts"),
    [
        pytest.param("gfp-bcl", False, id="bcl-rejects"),
        pytest.param("gfp-da", True, id="da-accepts"),
        pytest.param("gfp-da-lc", True, id="da-lc-accepts"),
        pytest.param("gfp-rta", True, id="rta-accepts"),
        pytest.param("gfp-rta-lc", True, id="rta-lc-accepts"),
    ],
)
def test_worked_example_of_the_note(name, accepts):
    ts = arbitrary(WORKED)
    e = analyses.get(name)
    assert e.verdict(ts, 2) is accepts and e.reference(ts, 2) is accepts
    result = e.explain(ts, 2)
    assert result.verdict is accepts
    assert "min(D_i, T_i)" in result.summary and "τ0 D = 15 → 5" in result.summary and "τ2 D = 20 → 4" in result.summary
    assert result.evidence["deadline_reduction"] == (
        {"task": 0, "D": 15, "D_reduced": 5},
        {"task": 2, "D": 20, "D_reduced": 4},
    ) or list(result.evidence["deadline_reduction"]) == [
        {"task": 0, "D": 15, "D_reduced": 5},
        {"task": 2, "D": 20, "D_reduced": 4},
    ]
    assert "min(D_i, T_i)" in str(next(iter(result.steps)))
    assert simulate(ts, 2, policy="gfp").miss is None


def test_worked_example_da_bounds_by_hand():
    rows = deadline_analysis.da_explain(arbitrary(WORKED), 2).per_task
    assert [(r["bound"], r["deadline"]) for r in rows] == [(2, 5), (5, 7), (4, 4)]


def test_raw_deadlines_would_be_unsound():
    ts = arbitrary(RAW_D_WITNESS)
    raw = all(deadline_analysis.da_task(ts, k, 1, False)["row"]["holds"] for k in range(ts.n))
    assert raw, "the constrained DA formula on the raw D accepts the witness"
    assert simulate(ts, 1, policy="gfp").miss is not None
    for name in NAMES:
        assert analyses.get(name).verdict(ts, 1) is False


@pytest.mark.parametrize("name", NAMES)
def test_overloaded_task_is_rejected_with_its_reason(name):
    ts = arbitrary([(1, 4, 4), (6, 12, 5)])  # τ1: C = 6 > T = 5
    e = analyses.get(name)
    assert e.verdict(ts, 4) is False and e.reference(ts, 4) is False
    assert int(e.status(TaskSetBatch.from_tasksets([ts, arbitrary(WORKED)]), 4)[0]) == 0
    result = e.explain(ts, 4)
    assert result.verdict is False and "C = 6 > T = 5" in result.summary
    assert result.evidence["overloaded_tasks"] == (1,)


def test_overloaded_rejected_before_the_budget_runs_out():
    ts = arbitrary([(1, 2, 2)] * 6 + [(6, 12, 5)])
    for name, (batch_kernel, one) in KERNELS.items():
        assert REFERENCES[name](ts, 2, 0) is False
        assert int(one(ts.C, ts.D, ts.T, 2, 0)) == 0
        out = np.empty(1, dtype=np.int8)
        b = TaskSetBatch.from_tasksets([ts])
        batch_kernel(b.C, b.D, b.T, b.offsets, 2, 0, out)
        assert int(out[0]) == 0


# --------------------------------------------------------------------------------------------
# 2) kernel == reference on arbitrary deadlines
# --------------------------------------------------------------------------------------------
@quick()
@given(batch=rst.batches(max_sets=8, max_size=7, max_period=40, deadlines="arbitrary"), m=st.integers(1, 5))
def test_kernels_equal_references(batch, m):
    sets = [batch[s] for s in range(batch.n_sets)]
    for name in NAMES:
        e = analyses.get(name)
        expected = [code_of(e.reference(ts, m)) for ts in sets]
        assert list(e.status(batch, m)) == expected, name
        assert [code_of(e.verdict(ts, m)) for ts in sets] == expected, name


@quick()
@given(
    ts=rst.tasksets(max_size=7, max_period=60, deadlines="arbitrary"), m=st.integers(1, 4), budget=st.integers(0, 60)
)
def test_kernels_equal_references_at_small_budgets(ts, m, budget):
    batch = TaskSetBatch.from_tasksets([ts])
    for name, (batch_kernel, one) in KERNELS.items():
        out = np.empty(1, dtype=np.int8)
        batch_kernel(batch.C, batch.D, batch.T, batch.offsets, m, budget, out)
        expected = code_of(REFERENCES[name](ts, m, budget))
        assert int(out[0]) == expected, name
        assert int(one(ts.C, ts.D, ts.T, m, budget)) == expected, name


@quick()
@given(ts=rst.tasksets(max_size=6, max_period=40, deadlines="arbitrary"), m=st.integers(1, 4))
def test_verdict_is_the_verdict_on_min_d_t(ts, m):
    constrained = TaskSet.from_tasks([(c, min(d, t), t) for c, d, t in ts.rows()])
    for name in NAMES:
        e = analyses.get(name)
        assert e.verdict(ts, m) == e.verdict(constrained, m), name


# --------------------------------------------------------------------------------------------
# 3) soundness on D > T against the simulators
# --------------------------------------------------------------------------------------------
def tick_gfp_miss(rows, m, releases, executions, horizon):
    """Global FP in task order, FIFO within a task, one tick at a time; the first (time, task) miss or None.

    ``releases[i]`` and ``executions[i]`` give each job of τi its release and execution time.
    """
    n = len(rows)
    queues = [[] for _ in range(n)]  # [deadline, remaining]
    nxt = [0] * n
    for now in range(horizon + 1):
        for i in range(n):
            if queues[i] and queues[i][0][0] <= now:
                return (now, i)
        if now == horizon:
            return None
        for i, (_, d, _) in enumerate(rows):
            while nxt[i] < len(releases[i]) and releases[i][nxt[i]] == now:
                queues[i].append([now + d, executions[i][nxt[i]]])
                nxt[i] += 1
        running = 0
        for i in range(n):
            if running == m:
                break
            if queues[i]:
                running += 1
                queues[i][0][1] -= 1
                if queues[i][0][1] == 0:
                    queues[i].pop(0)
    return None


def random_execution_runs(ts, m, seed):
    """Periodic and sporadic releases with random execution times in [1, C_i]; the first miss or None."""
    rows = ts.rows()
    H = functools.reduce(lcm, (t for _, _, t in rows), 1)
    span = 3 * H + max(d for _, d, _ in rows)
    rng = random.Random(seed)
    for sporadic in (False, True):
        releases = []
        for _, _, t in rows:
            times, now = [], rng.randint(0, t) if sporadic else 0
            while now < 3 * H:
                times.append(now)
                now += t + (rng.randint(0, t) if sporadic and rng.random() < 0.4 else 0)
            releases.append(times)
        executions = [[rng.randint(1, c) for _ in r] for (c, _, _), r in zip(rows, releases, strict=True)]
        miss = tick_gfp_miss(rows, m, releases, executions, span)
        if miss is not None:
            return miss
    return None


def test_tick_simulator_agrees_with_rtsched_on_wcet_periodic():
    for rows, m in ((RAW_D_WITNESS, 1), (WORKED, 2), ([(2, 3, 2), (1, 5, 2)], 1), ([(2, 5, 3), (2, 7, 4)], 1)):
        ts = arbitrary(rows)
        H = functools.reduce(lcm, (t for _, _, t in rows), 1)
        releases = [list(range(0, 10 * H, t)) for _, _, t in rows]
        executions = [[c] * len(r) for (c, _, _), r in zip(rows, releases, strict=True)]
        ours = tick_gfp_miss(rows, m, releases, executions, 10 * H + max(d for _, d, _ in rows))
        theirs = simulate(ts, m, policy="gfp", record=False).miss
        assert (ours is None) == (theirs is None), rows
        if ours is not None:
            assert ours == (theirs.time, theirs.task), rows


def _check_sound(ts, m, seed):
    accepted = [name for name in NAMES if analyses.get(name).verdict(ts, m) is True]
    if not accepted:
        return False
    rows = ts.rows()
    runs = [simulate(ts, m, policy="gfp", record=False)]
    runs += [simulate(ts, m, policy="gfp", arrivals="sporadic", seed=seed + k, record=False) for k in range(2)]
    for trace in runs:
        assert trace.miss is None, f"{accepted} accept {rows} on m = {m}; the simulator misses: {trace.miss}"
    miss = random_execution_runs(ts, m, seed)
    assert miss is None, f"{accepted} accept {rows} on m = {m}; random execution times miss at {miss}"
    return True


@quick(EXAMPLES)
@given(
    ts=rst.tasksets(min_size=2, max_size=5, max_period=8, deadlines="arbitrary"),
    m=st.integers(1, 3),
    seed=st.integers(0, 2**16),
)
def test_sound_against_simulation(ts, m, seed):
    _check_sound(ts, m, seed)


@pytest.mark.parametrize("order", ["drawn", "deadline-monotonic", "rate-monotonic"])
def test_sound_on_seeded_generated_sets_beyond_t(order):
    """Sets from rtsched's generator with D drawn in [T/2, 3T] (``scaled:0.5:3``): many accepted, none misses.

    ``deadline-monotonic`` orders by the drawn D (not D'); the tests analyse whatever order the set has.
    """
    from rtsched.generators import generate_batch

    accepted = 0
    for m in (2, 3):
        batch = generate_batch(
            np.random.default_rng(47 + m), n=4, utilization=0.45 * m, size=25, periods="uniform:2:12",
            deadlines="scaled:0.5:3", order=order,
        ).batch  # fmt: skip
        assert batch.deadlines == "arbitrary"
        for s in range(batch.n_sets):
            accepted += _check_sound(batch[s], m, seed=s)
    assert accepted >= 10, f"only {accepted} generated sets accepted: the property was barely exercised"


@pytest.mark.slow
@settings(max_examples=EXAMPLES * 10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    ts=rst.tasksets(min_size=2, max_size=7, max_period=12, deadlines="arbitrary"),
    m=st.integers(1, 4),
    seed=st.integers(0, 2**16),
)
def test_sound_against_simulation_slow(ts, m, seed):
    _check_sound(ts, m, seed)


# --------------------------------------------------------------------------------------------
# 4) OPA on D > T: the order found passes the test, and the conditions use D'
# --------------------------------------------------------------------------------------------
@quick(EXAMPLES)
@given(ts=rst.tasksets(min_size=2, max_size=6, max_period=30, deadlines="arbitrary"), m=st.integers(1, 4))
def test_opa_orders_pass_the_test(ts, m):
    for name in ("gfp-da", "gfp-da-lc"):
        order = audsley(ts, _workload.fits_lowest(name, m))
        if order is not None:
            assert analyses.get(name).verdict(order, m) is True, name
        per_task = all(_workload.fits_lowest(name, m)(ts, k, range(k)) for k in range(ts.n))
        assert per_task == (analyses.get(name).verdict(ts, m) is True), name
