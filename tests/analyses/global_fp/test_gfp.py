"""Global fixed-priority sufficient tests: gfp-bcl, gfp-da, gfp-da-lc, gfp-rta, gfp-rta-lc, rm-us.

1) worked cases (hand computations in the notes, SchedCAT's BertognaRTA case), 2) kernel ==
exact reference (hypothesis, budgets small enough to run out), 3) soundness against a brute-force
global FP simulation written here, 4) dominance where the papers (and the notes) prove it, with
witnesses for the incomparable pairs, 5) OPA with DA-LC never loses to DM with DA-LC.

The simulation releases every task synchronously and periodically. That is *not* the worst case
of global scheduling (a sporadic release pattern can make a set miss that never misses under
synchronous periodic release), so the soundness check only catches the unsoundness that this
one release pattern exposes: a miss found here refutes any test accepting the set; no miss proves
nothing. (The exact G-FP test, ``exact-gfp``, is the stronger judge where registered.)
"""

from __future__ import annotations

import functools
import os
from math import lcm

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rtsched import TaskSet, TaskSetBatch, analyses
from rtsched.analyses.global_fp import _workload, bcl_fp, deadline_analysis, rm_us, rta_fp, rta_lc
from rtsched.errors import InputError
from rtsched.priorities import audsley
from rtsched.testing import strategies as rst

EXAMPLES = int(os.environ.get("RTSCHED_PROPERTY_EXAMPLES", "150"))
NAMES = ("gfp-bcl", "gfp-da", "gfp-da-lc", "gfp-rta", "gfp-rta-lc", "rm-us")
BUDGETED = ("gfp-rta", "gfp-rta-lc")
KERNELS = {"gfp-rta": rta_fp._rta_kernel, "gfp-rta-lc": rta_lc._rta_lc_kernel}
ONES = {"gfp-rta": rta_fp._rta_one, "gfp-rta-lc": rta_lc._rta_lc_one}
REFERENCES = {"gfp-rta": rta_fp.rta_reference, "gfp-rta-lc": rta_lc.rta_lc_reference}


def code_of(verdict):
    return 1 if verdict is True else (0 if verdict is False else -1)


def entry(name):
    return analyses.get(name)


def quick(examples=EXAMPLES // 3):
    return settings(max_examples=max(10, examples), deadline=None, suppress_health_check=[HealthCheck.too_slow])


def slow(examples=EXAMPLES * 10):
    return settings(max_examples=examples, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def applies(name, ts, m):
    return entry(name).supports(m, ts) is None


# --------------------------------------------------------------------------------------------
# brute-force global FP simulation (synchronous periodic release)
# --------------------------------------------------------------------------------------------
def fp_miss(rows, m, order=None):
    """First (time, task) at which a job misses its deadline when every task releases at 0 and
    then periodically, under global FP with priority list ``order`` (highest first; default the
    index order), integer ticks, over one hyperperiod; None if none misses. With constrained
    deadlines and no miss, every job ends by its period, so the schedule repeats from H on."""
    order = list(range(len(rows))) if order is None else list(order)
    H = functools.reduce(lcm, (t for _, _, t in rows), 1)
    rem = [0] * len(rows)
    due = [0] * len(rows)
    for now in range(H + 1):
        for i, (c, d, t) in enumerate(rows):
            if rem[i] > 0 and due[i] <= now:
                return (now, i)
            if now % t == 0:
                rem[i], due[i] = c, now + d
        if now == H:
            return None
        running = 0
        for i in order:
            if running == m:
                break
            if rem[i] > 0:
                rem[i] -= 1
                running += 1
    return None


def test_simulation_sees_the_classic_misses():
    # Two light tasks above a heavy one on m = 2: the heavy one misses (Dhall-style).
    assert fp_miss([(1, 2, 2), (1, 2, 2), (2, 3, 3)], 2) is not None
    assert fp_miss([(1, 2, 2), (1, 2, 2), (2, 3, 3)], 3) is None
    # RM on one processor at U = 1 (the rm-us m = 1 witness): misses at t = 6.
    assert fp_miss([(2, 4, 4), (3, 6, 6)], 1) == (6, 1)


# --------------------------------------------------------------------------------------------
# 1) worked cases (papers/*.md give the hand computations)
# --------------------------------------------------------------------------------------------
SCHEDCAT_BERTOGNA = [(1, 4, 4), (1, 5, 5), (3, 9, 9), (9, 18, 18)]


def test_rta_schedcat_bertogna_case():
    """SchedCAT tests/fp.py BertognaRTA.test_times4 (with slack, m = 2): bounds 1, 1, 4, 15."""
    ts = TaskSet.from_tasks(SCHEDCAT_BERTOGNA)
    run = rta_fp.rta_iterate(ts, 2)
    assert run.verdict is True
    assert run.response_times == (1, 1, 4, 15)
    assert rta_fp.rta_iterate(ts, 3).response_times == (1, 1, 3, 12)
    assert rta_fp.rta_iterate(ts, 1).verdict is False  # τ3 on one processor (U > 1)
    assert entry("gfp-rta").verdict(ts, 2) is True


def test_rta_worked_example_of_the_note():
    """papers/bertogna-cirinei2007.md, FP section: τ0 = τ1 = (1, 4, 4), τ2 = (3, 6, 6), m = 2.
    R0 = R1 = 1. τ2: x = 3: cap 1, W^R_i(3) = min(1, 3 + 1 − 1) = 1 → 3 + ⌊(1 + 1)/2⌋ = 4;
    x = 4: cap 2, W^R_i(4) = ⌊4/4⌋·1 + min(1, 0) = 1 → 3 + ⌊2/2⌋ = 4 (fixed point): R2 = 4."""
    ts = TaskSet.from_tasks([(1, 4, 4), (1, 4, 4), (3, 6, 6)])
    run = rta_fp.rta_iterate(ts, 2)
    assert run.response_times == (1, 1, 4) and run.verdict is True
    assert rta_fp.rta_terms(ts, 2, [1, 1], 2, 3, False)[0] == 4
    assert rta_fp.rta_terms(ts, 2, [1, 1], 2, 4, False)[0] == 4
    assert fp_miss(ts.rows(), 2) is None
    # τ0 = τ1 = (2, 4, 4) instead: x = 3 → 4 → 5 → 6 → 7 > 6, rejected; the simulation misses too.
    ts2 = TaskSet.from_tasks([(2, 4, 4), (2, 4, 4), (3, 6, 6)])
    run2 = rta_fp.rta_iterate(ts2, 2)
    assert run2.verdict is False and (run2.last_x, run2.last_value) == (6, 7)
    assert fp_miss(ts2.rows(), 2) == (6, 2)


def test_bcl_worked_example_of_the_note():
    """papers/bcl2005-fp.md: τ0 = τ1 = (1, 4, 4), τ2 = (3, 6, 6), m = 2. τ2: W^D_i(6) =
    ⌊(6 + 4 − 1)/4⌋·1 + min(1, 9 − 8) = 3; s = 3: Σ min(3, 3) = 6 = m·s, not < m·s: BCL fails.
    DA: 3 + ⌊(min(3, 4) + min(3, 4))/2⌋ = 6 ≤ 6 holds (the RTA's bound is 4)."""
    ts = TaskSet.from_tasks([(1, 4, 4), (1, 4, 4), (3, 6, 6)])
    row = bcl_fp.bcl_task(ts, 2, 2)
    assert row["workloads"] == [3, 3]
    assert row["holds"] is False
    assert bcl_fp.bcl_reference(ts, 2) is False
    assert deadline_analysis.da_task(ts, 2, 2, False)["row"]["bound"] == 6
    assert deadline_analysis.da_reference(ts, 2) is True
    assert bcl_fp.bcl_reference(ts, 3) is True  # m = 3: 6 < 9


def test_da_lc_worked_example_of_the_note():
    """papers/davis-burns2011-opa.md: τ0 = (1, 2, 4), τ1 = (6, 8, 9), m = 1.
    τ1: cap = 3; I^NC_0 = min(⌊8/4⌋·1 + min(1, 0), 3) = 2; I^D_0 = min(W^D_0(8), 3) = 3 with
    W^D_0(8) = ⌊9/4⌋·1 + min(1, 9 − 8) = 3. DA: 6 + 3 = 9 > 8 fails; DA-LC (no carry-in on m = 1):
    6 + 2 = 8 ≤ 8 holds."""
    ts = TaskSet.from_tasks([(1, 2, 4), (6, 8, 9)])
    assert _workload.da_lc_terms(ts, 1, [0]) == [(0, 2, 3)]
    assert deadline_analysis.da_reference(ts, 1) is False
    assert deadline_analysis.da_lc_reference(ts, 1) is True
    assert fp_miss(ts.rows(), 1) is None


def test_rta_lc_worked_example_of_the_note():
    """papers/guan2009-rta-lc.md: τ0 = (2, 2, 3), τ1 = (2, 3, 27), τ2 = (3, 10, 13),
    τ3 = (8, 15, 16), m = 2: RTA-LC accepts, RTA (every task may carry in) does not."""
    ts = TaskSet.from_tasks([(2, 2, 3), (2, 3, 27), (3, 10, 13), (8, 15, 16)])
    lc = rta_lc.rta_iterate(ts, 2, limited=True)
    plain = rta_fp.rta_iterate(ts, 2)
    assert lc.verdict is True and lc.response_times == (2, 2, 5, 15)
    assert plain.verdict is False and plain.failing == 3
    assert fp_miss(ts.rows(), 2) is None


def test_rmus_worked_examples():
    """papers/andersson-baruah-jonsson2001-rmus.md: m = 2, bound 4/4 = 1, heavy threshold 1/2."""
    ts = TaskSet.from_tasks([(3, 5, 5), (1, 4, 4), (1, 8, 8)])  # U = 3/5 + 1/4 + 1/8 = 39/40
    assert rm_us.rmus_reference(ts, 2) is True
    assert rm_us.rmus_order(ts, 2) == [0, 1, 2]  # τ0 heavy (3/5 > 1/2), then RM
    ts2 = TaskSet.from_tasks([(1, 8, 8), (1, 4, 4), (3, 5, 5)])
    assert rm_us.rmus_order(ts2, 2) == [2, 1, 0]
    e = entry("rm-us").explain(ts2, 2)
    assert e.verdict is True and e.evidence["priority_order"] == (2, 1, 0) and "not the given order" in e.summary
    assert entry("rm-us").reference(TaskSet.from_tasks([(3, 5, 5), (1, 2, 2)]), 2) is False  # U = 11/10
    # m = 1 refused: RM at U = 1 misses.
    with pytest.raises(InputError):
        entry("rm-us").verdict(TaskSet.from_tasks([(2, 4, 4), (3, 6, 6)]), 1)
    with pytest.raises(InputError):  # implicit deadlines only
        entry("rm-us").verdict(TaskSet.from_tasks([(1, 3, 4)]), 2)


def test_explain_names_failing_task_and_terms():
    ts = TaskSet.from_tasks([(2, 4, 4), (2, 4, 4), (3, 5, 6)])
    for name in NAMES[:5]:
        e = entry(name).explain(ts, 2)
        assert e.verdict is False, name
        assert e.evidence["failing_task"] == 2, name
        assert len(e.evidence["interference_terms"]) == 2, name
        assert "τ2" in e.summary, name
    ok = entry("gfp-rta-lc").explain(TaskSet.from_tasks(SCHEDCAT_BERTOGNA), 2)
    assert [r["response_time"] for r in ok.per_task] == [1, 1, 4, 15]


def test_budget_gives_unknown_never_false():
    slow_set = TaskSet.from_tasks([(2**29, 2**31 - 1, 2**31 - 1)] * 3)  # τ2 creeps one tick per step
    for name in BUDGETED:
        assert entry(name).reference(slow_set, 2, 1000) == "unknown"
        assert entry(name).verdict(slow_set, 2, 1000) == "unknown"
        assert entry(name).status(TaskSetBatch.from_tasksets([slow_set]), 2, 1000)[0] == -1
        assert entry(name).explain(slow_set, 2, 1000).verdict == "unknown"


# --------------------------------------------------------------------------------------------
# 2) kernel == reference
# --------------------------------------------------------------------------------------------
def _check_kernels(batch, m):
    for name in NAMES:
        e = entry(name)
        sets = [batch[s] for s in range(batch.n_sets)]
        if name == "rm-us":
            sets = [ts for ts in sets if applies(name, ts, m)]
            if not sets:
                continue
            sub = TaskSetBatch.from_tasksets(sets)
        else:
            sub = batch
        codes = e.status(sub, m)
        expected = [code_of(e.reference(ts, m)) for ts in sets]
        assert list(codes) == expected, name
        assert [code_of(e.verdict(ts, m)) for ts in sets] == expected, name


@pytest.mark.parametrize(
    "cases",  # (batch, m) drawn per deadline model; each variant keeps its own example budget
    [
        pytest.param(
            st.tuples(rst.batches(max_sets=8, max_size=8, max_period=40), st.integers(1, 5)), id="constrained"
        ),
        pytest.param(
            st.tuples(rst.batches(max_sets=6, max_size=6, max_period=30, deadlines="implicit"), st.integers(2, 4)),
            id="implicit",
        ),
    ],
)
@quick()
@given(data=st.data())
def test_kernels_equal_references(cases, data):
    _check_kernels(*data.draw(cases))


@quick()
@given(ts=rst.tasksets(max_size=7, max_period=60), m=st.integers(1, 4), budget=st.integers(0, 60))
def test_kernels_equal_references_at_small_budgets(ts, m, budget):
    batch = TaskSetBatch.from_tasksets([ts])
    for name in BUDGETED:
        out = np.empty(1, dtype=np.int8)
        KERNELS[name](batch.C, batch.D, batch.T, batch.offsets, m, budget, out)
        expected = code_of(REFERENCES[name](ts, m, budget))
        assert int(out[0]) == expected, name
        assert int(ONES[name](ts.C, ts.D, ts.T, m, budget)) == expected, name


@given(values=st.lists(st.integers(0, 50), max_size=12), count=st.integers(0, 14))
def test_top_sum_kernel(values, count):
    arr = np.array(values, dtype=np.int64)
    assert _workload.top_sum_nb(arr, count, np.empty(len(values), dtype=np.int64)) == _workload.top_sum(values, count)


@pytest.mark.slow
@slow()
@given(batch=rst.batches(max_sets=10, max_size=12, max_period=200), m=st.integers(1, 8))
def test_kernels_equal_references_slow(batch, m):
    _check_kernels(batch, m)


# --------------------------------------------------------------------------------------------
# 3) soundness against the synchronous periodic simulation
# --------------------------------------------------------------------------------------------
def _check_sound(ts, m):
    rows = ts.rows()
    miss = None
    for name in NAMES:
        if not applies(name, ts, m) or entry(name).verdict(ts, m) is not True:
            continue
        order = rm_us.rmus_order(ts, m) if name == "rm-us" else None
        miss = fp_miss(rows, m, order)
        assert miss is None, f"{name} accepts {rows} on m = {m} but the simulation misses at {miss}"


@quick(EXAMPLES)
@given(ts=rst.tasksets(min_size=2, max_size=6, max_period=8), m=st.integers(1, 3), implicit=st.booleans())
def test_sound_against_simulation(ts, m, implicit):
    if implicit:
        ts = TaskSet.from_tasks([(c, t, t) for c, _, t in ts.rows()])
    _check_sound(ts, m)


@pytest.mark.slow
@slow()
@given(ts=rst.tasksets(min_size=2, max_size=8, max_period=12), m=st.integers(1, 4), implicit=st.booleans())
def test_sound_against_simulation_slow(ts, m, implicit):
    if implicit:
        ts = TaskSet.from_tasks([(c, t, t) for c, _, t in ts.rows()])
    _check_sound(ts, m)


# --------------------------------------------------------------------------------------------
# 4) dominance and incomparability
# --------------------------------------------------------------------------------------------
DOMINATES = [  # (stronger, weaker): weaker accepts ⇒ stronger accepts (notes give the proofs)
    ("gfp-da", "gfp-bcl"),
    ("gfp-rta", "gfp-da"),
    ("gfp-rta-lc", "gfp-rta"),
    ("gfp-da-lc", "gfp-da"),
    ("gfp-rta-lc", "gfp-da-lc"),
]


def _check_dominance(ts, m):
    v = {name: entry(name).verdict(ts, m) for name in NAMES[:5]}
    for strong, weak in DOMINATES:
        if v[weak] is True:
            assert v[strong] is True, f"{weak} accepts {ts.rows()} on m = {m}, {strong} does not"


@quick(EXAMPLES)
@given(ts=rst.tasksets(min_size=2, max_size=8, max_period=40), m=st.integers(1, 5))
def test_dominance(ts, m):
    _check_dominance(ts, m)


@pytest.mark.slow
@slow()
@given(ts=rst.tasksets(min_size=2, max_size=16, max_period=500), m=st.integers(1, 8))
def test_dominance_slow(ts, m):
    _check_dominance(ts, m)


@given(T=st.integers(1, 40), data=st.data(), L=st.integers(0, 200))
def test_workload_chain(T, data, L):
    """W^NC ≤ W^CI ≤ W^R ≤ W^D after clipping at L (every term is clipped at x − C_k + 1 ≤ x)."""
    C = data.draw(st.integers(1, T))
    D = data.draw(st.integers(C, T))
    R = data.draw(st.integers(C, D))
    chain = [
        _workload.workload_nc(C, T, L),
        _workload.workload_ci(C, T, R, L),
        _workload.workload_response(C, D, T, R, L),
        _workload.workload_deadline(C, D, T, L),
    ]
    clipped = [min(w, L) for w in chain]
    assert clipped == sorted(clipped)
    assert chain[1] <= chain[2] or L < C  # unclipped too, once the window holds a whole job


@pytest.mark.parametrize(
    ("rows", "m", "accepts", "rejects"),
    [
        # DA-LC needs no carry-in on m = 1, RTA charges every task's carry-in.
        ([(1, 5, 19), (2, 7, 9), (4, 7, 16), (6, 18, 20)], 1, "gfp-da-lc", "gfp-rta"),
        # The RTA's response-time bounds R_i < D_i beat DA-LC's D_i.
        ([(1, 4, 4), (9, 11, 18), (4, 7, 7), (1, 3, 3), (1, 2, 3)], 4, "gfp-rta", "gfp-da-lc"),
    ],
)
def test_incomparable_witnesses(rows, m, accepts, rejects):
    ts = TaskSet.from_tasks(rows)
    assert entry(accepts).verdict(ts, m) is True
    assert entry(rejects).verdict(ts, m) is False
    assert fp_miss(rows, m) is None


def test_rmus_incomparable_with_rta():
    """rm-us judges its own priority order, so it and the tests of the given order are
    incomparable: (a) the given order is bad (heavy task last) but RM-US reorders it; (b) RM-US's
    utilization bound fails where the RTA proves the given order."""
    bad_order = TaskSet.from_tasks([(2, 20, 20), (2, 20, 20), (4, 5, 5)])  # U = 1 = m²/(3m−2) on m = 2
    assert entry("rm-us").verdict(bad_order, 2) is True
    assert rm_us.rmus_order(bad_order, 2) == [2, 0, 1]
    assert entry("gfp-rta-lc").verdict(bad_order, 2) is False
    assert fp_miss(bad_order.rows(), 2) == (5, 2)  # the given order does miss
    assert fp_miss(bad_order.rows(), 2, rm_us.rmus_order(bad_order, 2)) is None
    dense3 = TaskSet.from_tasks([(1, 2, 2)] * 3)
    assert entry("rm-us").verdict(dense3, 3) is False  # U = 3/2 > 9/7
    assert entry("gfp-rta").verdict(dense3, 3) is True  # three tasks on three processors


# --------------------------------------------------------------------------------------------
# 5) OPA with DA-LC never loses to DM with DA-LC
# --------------------------------------------------------------------------------------------
def _dm(ts):
    return TaskSet.from_tasks(sorted(ts.rows(), key=lambda r: r[1]))


def test_fits_lowest_matches_the_tests():
    ts = TaskSet.from_tasks(SCHEDCAT_BERTOGNA)
    for m in (1, 2, 3):
        for name, fits in (("gfp-da", _workload.da_fits_lowest), ("gfp-da-lc", _workload.da_lc_fits_lowest)):
            per_task = all(fits(ts, k, range(k), m=m) for k in range(ts.n))
            assert per_task == (entry(name).verdict(ts, m) is True)
            assert _workload.fits_lowest(name, m)(ts, 3, [0, 1, 2]) == fits(ts, 3, [2, 1, 0], m=m)
    assert deadline_analysis.da_lc_fits_lowest is _workload.da_lc_fits_lowest


@quick(EXAMPLES)
@given(ts=rst.tasksets(min_size=2, max_size=7, max_period=50), m=st.integers(1, 4))
def test_opa_da_lc_never_loses_to_dm(ts, m):
    dm_ok = entry("gfp-da-lc").verdict(_dm(ts), m) is True
    order = audsley(ts, _workload.fits_lowest("gfp-da-lc", m))
    if dm_ok:
        assert order is not None, f"DM + DA-LC accepts {ts.rows()} on m = {m}, OPA + DA-LC finds no order"
    if order is not None:
        assert entry("gfp-da-lc").verdict(order, m) is True
