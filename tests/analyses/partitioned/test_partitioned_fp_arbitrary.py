"""The partitioned FP family p:<fit>:<order>:rta on arbitrary deadlines (D > T; papers/tindell1994-arbitrary-deadlines.md).

The admission is the busy-period analysis of analyses/theory/fp_rta.py per processor: kernel ==
reference (verdicts, assignments, budgets) on D > T sets; every accepted assignment meets every
deadline in the simulator under partitioned FP (periodic, decided by the default horizon, and
sporadic); on one processor the family equals uni-rta.
"""

from __future__ import annotations

import os

from hypothesis import given, settings
from hypothesis import strategies as st

from rtsched import analyses
from rtsched.analyses.partitioned import partitioned_fp as pfp
from rtsched.model import TaskSet, TaskSetBatch
from rtsched.sim import simulate
from rtsched.testing import strategies as rst

EXAMPLES = int(os.environ.get("RTSCHED_PROPERTY_EXAMPLES", "150"))
MEMBERS = st.sampled_from(pfp.FAMILY_NAMES)


def code(verdict: object) -> int:
    return -1 if verdict == "unknown" else int(bool(verdict))


def arbitrary(max_size: int, max_period: int):
    return rst.tasksets(max_size=max_size, max_period=max_period, deadlines="arbitrary")


def test_a_later_job_refuses_the_processor() -> None:
    # τ0 = (3, 6, 6) and τ1 = (2, 5, 4) cannot share a processor (τ1's job 1 needs w(1) = 10 > 4 + 5)
    ts = TaskSet.from_tasks([(3, 6, 6), (2, 5, 4)], deadlines="arbitrary")
    entry = analyses.get("p:ff:input:rta")
    assert entry.verdict(ts, 1) is entry.reference(ts, 1) is False
    assert "job q = 1" in entry.explain(ts, 1).summary
    assert entry.verdict(ts, 2) is True
    assert pfp.pack(ts.rows(), 2, "ff", "input").assignment == (0, 1)
    # with D = 6 they share one: R(τ1) = max(5, 6, 4) = 6 (the note's worked example)
    ok = TaskSet.from_tasks([(3, 6, 6), (2, 6, 4)], deadlines="arbitrary")
    packing = pfp.pack(ok.rows(), 2, "ff", "input")
    assert packing.assignment == (0, 0) and packing.response == (3, 6)


@settings(max_examples=EXAMPLES, deadline=None)
@given(arbitrary(9, 200), st.integers(1, 4), MEMBERS, st.sampled_from([None, 3, 10, 30]))
def test_kernel_equals_reference(ts: TaskSet, m: int, name: str, budget: int | None) -> None:
    entry = analyses.get(name)
    ref = entry.reference(ts, m, budget)
    assert code(entry.verdict(ts, m, budget)) == code(ref)
    batch = TaskSetBatch.from_tasksets([ts, ts])
    assert entry.status(batch, m, budget).tolist() == [code(ref)] * 2
    _, fit, order, _ = name.split(":")
    _, assign = pfp.assignments(ts, m, fit, order, budget or pfp.PACKING_BUDGET)
    packing = pfp.pack(ts.rows(), m, fit, order, budget or pfp.PACKING_BUDGET)
    assert assign == [-1 if a is None else a for a in packing.assignment]


@settings(max_examples=EXAMPLES, deadline=None)
@given(arbitrary(7, 10), st.integers(1, 3), MEMBERS, st.integers(0, 2**16))
def test_accepted_assignments_pass_simulation(ts: TaskSet, m: int, name: str, seed: int) -> None:
    entry = analyses.get(name)
    if entry.verdict(ts, m) is not True:
        return
    _, fit, order, _ = name.split(":")
    _, assign = pfp.assignments(ts, m, fit, order)
    periodic = simulate(ts, m, policy="pfp", partition=assign, record=False)
    assert periodic.miss is None
    # one processor per core with U <= 1 (each core passed): the backlog clears at H (papers/simulator.md)
    assert ts.is_constrained or periodic.repeats_at == int(ts.hyperperiod)
    sporadic = simulate(
        ts, m, policy="pfp", partition=assign, arrivals="sporadic", seed=seed, horizon=300, record=False
    )
    assert sporadic.miss is None


@settings(max_examples=EXAMPLES, deadline=None)
@given(arbitrary(8, 100), MEMBERS)
def test_one_processor_equals_uni_rta(ts: TaskSet, name: str) -> None:
    assert analyses.get(name).verdict(ts, 1) is analyses.get("uni-rta").verdict(ts, 1)
