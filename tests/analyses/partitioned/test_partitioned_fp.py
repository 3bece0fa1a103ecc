"""Tests of the partitioned FP family p:<fit>:<order>:rta and p-fp (analyses/partitioned/partitioned_fp.py).

Kernel == reference (verdicts, assignments, budgets); every processor of an accepted assignment
passes a brute-force simulation; on one processor the family equals uni-rta; names do not
collide with the partitioned EDF family.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rtsched import analyses
from rtsched.analyses.partitioned import partitioned_fp as pfp
from rtsched.model import MAX_TIME, TaskSet, TaskSetBatch
from rtsched.testing import strategies as rst
from rtsched.testing.oracles import fp_synchronous_meets_deadlines

EXAMPLES = int(os.environ.get("RTSCHED_PROPERTY_EXAMPLES", "150"))
MEMBERS = st.sampled_from(pfp.FAMILY_NAMES)


def code(verdict: object) -> int:
    return -1 if verdict == "unknown" else int(bool(verdict))


def test_names_and_alias() -> None:
    assert len(pfp.FAMILY_NAMES) == 16
    assert analyses.get("p-fp").policy == "partitioned-fp"
    assert analyses.get("p:ff:deadline:rta").policy == "partitioned-fp"
    assert analyses.get("p:ff:deadline:qpa").policy == "partitioned-edf"  # no collision
    assert analyses.get("p:bf:utilization:rta").name == "p:bf:utilization:rta"


def test_worked_example_first_fit_deadline_order() -> None:
    # τ0..τ2 fill P0 (R = 1, 2, 4), τ4 goes to P1 (R = 3), τ5 (C = 5, D = 9) fits on neither:
    # on P0 its recurrence reaches 14 > 9 at R = 9, on P1 11 > 9 at R = 8.
    ts = TaskSet.from_tasks([(1, 3, 4), (1, 4, 5), (2, 5, 6), (1, 10, 11), (3, 7, 7), (5, 9, 9)])
    entry = analyses.get("p-fp")
    assert entry.verdict(ts, 2) is False and entry.reference(ts, 2) is False
    res = entry.explain(ts, 2)
    assert res.evidence["failed_task"] == 5
    assert res.evidence["assignment"] == (0, 0, 0, None, 1, None)
    assert "14 > D = 9" in res.summary and "11 > D = 9" in res.summary
    assert entry.verdict(ts, 3) is True
    assert pfp.assignments(ts, 3, "ff", "deadline")[1] == list(pfp.pack(ts.rows(), 3, "ff", "deadline").assignment)


def test_priorities_stay_in_the_set_order_on_each_processor() -> None:
    # τ0 = (3, 4, 4) above τ1 = (1, 2, 8) on one processor: τ1 has R = 4 > 2 there, so first fit
    # puts them apart; reversed (τ1 on top) they share P0.
    ts = TaskSet.from_tasks([(3, 4, 4), (1, 2, 8)])
    assert pfp.pack(ts.rows(), 2, "ff", "input").assignment == (0, 1)
    rev = TaskSet.from_tasks([(1, 2, 8), (3, 4, 4)])
    assert pfp.pack(rev.rows(), 2, "ff", "input").assignment == (0, 0)


def test_budget_gives_unknown_never_false() -> None:
    ts = TaskSet.from_tasks([(1, 3, 4), (1, 4, 5), (2, 5, 6), (1, 10, 11), (3, 7, 7), (5, 9, 9)])
    entry = analyses.get("p-fp")
    for budget in range(1, 8):
        v = entry.verdict(ts, 2, budget)
        assert v == entry.reference(ts, 2, budget)
        assert v == "unknown" or v is False
    assert entry.verdict(ts, 2, 2) == "unknown"


@settings(max_examples=EXAMPLES, deadline=None)
@given(rst.tasksets(max_size=9, max_period=200), st.integers(1, 4), MEMBERS, st.sampled_from([None, 3, 10, 30]))
def test_kernel_equals_reference(ts: TaskSet, m: int, name: str, budget: int | None) -> None:
    entry = analyses.get(name)
    ref = entry.reference(ts, m, budget)
    assert code(entry.verdict(ts, m, budget)) == code(ref)
    batch = TaskSetBatch.from_tasksets([ts, ts])
    assert entry.status(batch, m, budget).tolist() == [code(ref)] * 2
    _, fit, order, _ = name.split(":")
    kernel_code, assign = pfp.assignments(ts, m, fit, order, budget or pfp.PACKING_BUDGET)
    packing = pfp.pack(ts.rows(), m, fit, order, budget or pfp.PACKING_BUDGET)
    assert assign == [-1 if a is None else a for a in packing.assignment]


@settings(max_examples=EXAMPLES, deadline=None)
@given(rst.tasksets(max_size=7, max_period=12), st.integers(1, 3), MEMBERS)
def test_accepted_assignments_pass_simulation(ts: TaskSet, m: int, name: str) -> None:
    entry = analyses.get(name)
    if entry.verdict(ts, m) is not True:
        return
    _, fit, order, _ = name.split(":")
    _, assign = pfp.assignments(ts, m, fit, order)
    for b in set(assign):
        assert fp_synchronous_meets_deadlines([row for row, a in zip(ts.rows(), assign, strict=True) if a == b])


@settings(max_examples=EXAMPLES, deadline=None)
@given(rst.tasksets(max_size=8, max_period=100), MEMBERS)
def test_one_processor_equals_uni_rta(ts: TaskSet, name: str) -> None:
    # Response times only grow when tasks are added, so packing onto one processor admits every
    # task iff the whole set passes (RTA), whatever the placement order.
    assert analyses.get(name).verdict(ts, 1) is analyses.get("uni-rta").verdict(ts, 1)


@settings(max_examples=EXAMPLES, deadline=None)
@given(rst.tasksets(max_size=8, max_period=100), st.integers(1, 3))
def test_more_processors_never_hurt_first_fit(ts: TaskSet, m: int) -> None:
    entry = analyses.get("p-fp")
    if entry.verdict(ts, m) is True:
        assert entry.verdict(ts, m + 1) is True


def test_near_ties_in_best_and_worst_fit_are_exact() -> None:
    # τ1 (C = D) cannot run below τ0, so it opens P1; then P0 and P1 both carry U = 1/3 exactly
    # (1/3 and 333333333/999999999): the float margin hands the comparison to exact rationals and
    # the tie goes to the lower index under both best and worst fit.
    big = 999_999_999
    ts = TaskSet.from_tasks([(1, 1, 3), (333_333_333, 333_333_333, big), (1, 10**9, 10**9)])
    for fit, m in (("bf", 3), ("wf", 2)):  # (worst fit on 3 processors would take the empty P2)
        _, assign = pfp.assignments(ts, m, fit, "input")
        assert assign == [0, 1, 0] == list(pfp.pack(ts.rows(), m, fit, "input").assignment)
    big_ts = TaskSet.from_tasks([(1, MAX_TIME, MAX_TIME), (1, MAX_TIME - 1, MAX_TIME - 1), (1, 2, 2)])
    for fit in ("bf", "wf"):
        entry = analyses.get(f"p:{fit}:input:rta")
        assert entry.verdict(big_ts, 2) is entry.reference(big_ts, 2) is True


@pytest.mark.parametrize("name", ["p-fp", "p:wf:utilization:rta"])
def test_explain_has_the_assignment_and_response_times(name: str) -> None:
    ts = TaskSet.from_tasks([(1, 3, 4), (1, 4, 5), (2, 5, 6)])
    res = analyses.get(name).explain(ts, 2)
    assert res.verdict is True and res.policy == "partitioned-fp"
    assert all(row["processor"].startswith("P") and isinstance(row["response_time"], int) for row in res.per_task)


@pytest.mark.slow
@settings(max_examples=10 * EXAMPLES, deadline=None)
@given(rst.tasksets(min_size=5, max_size=30, max_period=10**6), st.integers(2, 8), MEMBERS)
def test_kernel_equals_reference_larger_sets(ts: TaskSet, m: int, name: str) -> None:
    entry = analyses.get(name)
    assert code(entry.verdict(ts, m)) == code(entry.reference(ts, m))
    _, fit, order, _ = name.split(":")
    packing = pfp.pack(ts.rows(), m, fit, order)
    assert pfp.assignments(ts, m, fit, order)[1] == [-1 if a is None else a for a in packing.assignment]
