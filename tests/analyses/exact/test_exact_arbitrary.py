"""The exact tests with arbitrary deadlines (D > T): ``exact``, ``exact:index``, ``exact-gfp``.

The D > T game (several pending jobs per task, only the oldest eligible) lives in
analyses/exact/_pending.py; papers/exact-search.md, "Arbitrary deadlines". Checked here: the
kernel against the pure-Python reference on generated D > T sets; the new engine against the
D ≤ T engine on constrained sets; soundness against :func:`rtsched.sim.simulate`; m = 1 against
the exact uniprocessor tests (uni-pda / uni-qpa for EDF, uni-rta for FP in task order); the
proved dominances; hand-worked examples; counterexamples replayed in the simulator.
"""

from __future__ import annotations

import itertools
import os
from functools import cache

import numpy as np
import pytest
from hypothesis import assume, event, given, settings
from hypothesis import strategies as st

from rtsched import analyses
from rtsched.analyses.exact import _pending as pending
from rtsched.analyses.exact import _state_space as engine
from rtsched.analyses.exact import exact_gedf, exact_gfp
from rtsched.errors import InputError
from rtsched.kernels import ACCEPT, REJECT, UNKNOWN
from rtsched.model import TaskSet, TaskSetBatch
from rtsched.sim import simulate

SLOW_EXAMPLES = int(os.environ.get("RTSCHED_PROPERTY_EXAMPLES", "100"))
VERDICT = {int(ACCEPT): True, int(REJECT): False, int(UNKNOWN): "unknown"}
RULES = ("every", "index", "fp")
NAME = {"every": "exact", "index": "exact:index", "fp": "exact-gfp"}
KERNEL_BUDGET = 200_000
REFERENCE_BUDGET = 20_000


@st.composite
def small_sets(draw: st.DrawFn, *, max_n: int = 4, max_period: int = 8, arbitrary: bool = True) -> TaskSet:
    """n ≤ max_n tasks with T ≤ max_period, D in C..3T (some C > T too); at least one D > T if ``arbitrary``."""
    n = draw(st.integers(1, max_n))
    rows = []
    for _ in range(n):
        t = draw(st.integers(1, max_period))
        c = draw(st.integers(1, t + 1 if arbitrary else t))
        top = 3 * t if arbitrary else t
        d = draw(st.integers(c, max(c, top)))
        rows.append((c, d, t))
    ts = TaskSet.from_tasks(rows, deadlines="arbitrary" if arbitrary else "constrained")
    assume(ts.is_constrained != arbitrary)
    return ts


def kernel(ts: TaskSet, m: int, rule: str, frontier: str = "depth") -> object:
    """The search's verdict alone (no probes, no shortcuts)."""
    result = pending.explore(
        ts,
        m,
        rule=rule,  # type: ignore[arg-type]
        budget=KERNEL_BUDGET,
        shortcuts=False,
        frontier=frontier,
        probes=False,
    )
    return VERDICT[result.code]


# -- hand-worked examples -----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("rows", "m", "expected"),
    [
        # one task, jobs back to back: job k runs [2k, 2k + 2), deadline 2k + 5
        pytest.param([(2, 5, 2)], 1, {"every": True, "index": True, "fp": True}, id="one-task-D>T"),
        # C > T: one task on two processors still runs one job at a time; periodic releases at
        # 0, 2, 4: the jobs finish at 3, 6, 9 and the third misses its deadline 4 + 4 = 8
        pytest.param([(3, 4, 2)], 2, {"every": False, "index": False, "fp": False}, id="serial-C>T"),
        # m = 1, U = 1: EDF meets every deadline (h(3k + 1) = 3k + 1 ≤ 3k + 1 on every deadline of
        # τ1; dbf by hand); FP in task order runs τ0 = (2, 4, 3) over [0, 2) and τ1 = (1, 1, 3)
        # misses at t = 1
        pytest.param([(2, 4, 3), (1, 1, 3)], 1, {"every": True, "index": True, "fp": False}, id="edf-yes-fp-no"),
        # the same tasks with τ1 first: τ1 runs at each of its releases, τ0 gets the other ticks;
        # with synchronous periodic releases each τ0 job runs [3k + 1, 3k + 3) ≤ 3k + 4, and a later
        # τ1 release only delays τ0 by the same one tick (uni-rta agrees)
        pytest.param([(1, 1, 3), (2, 4, 3)], 1, {"every": True, "index": True, "fp": True}, id="fp-order-ok"),
        # two processors, U = 2 · 3/4 + 1/4 = 7/4. G-FP in task order gives τ2 = (1, 1, 4) the
        # lowest priority: released with τ0 and τ1 at 0 it waits [0, 1) and misses at 1 (by
        # hand). G-EDF: schedulable by the kernel and by the reference (not traced by hand: τ2's
        # deadline-1 job runs at once unless both other heads also have deadline 1)
        pytest.param(
            [(3, 5, 4), (3, 5, 4), (1, 1, 4)], 2, {"every": True, "index": True, "fp": False}, id="m2-edf-vs-fp"
        ),
    ],
)
def test_hand_worked_examples(rows, m, expected):
    ts = TaskSet.from_tasks(rows, deadlines="arbitrary")
    for rule, want in expected.items():
        assert VERDICT[pending.explore(ts, m, rule=rule).code] == want, rule
        assert analyses.get(NAME[rule]).verdict(ts, m) == want, rule
        assert pending.reference(ts, m, rule=rule) == want, rule


def test_worked_counterexample_sporadic_and_tied():
    """papers/exact-search.md, "Arbitrary deadlines", worked example (traced there by hand).

    τ0 = (1, 3, 2), τ1 = (2, 2, 5), τ2 = (2, 2, 2) on m = 2. τ2 releases at 0 and runs [0, 2);
    τ0 (deadline 4) and τ1 (deadline 3) release at 1; τ2 and τ1 run [1, 2). At 2 τ2 releases
    again (deadline 4): τ1 (deadline 3) runs, and τ0 and τ2 tie at deadline 4; the lower index
    τ0 wins, so τ2 has 2 units left and 2 ticks, of which it gets only [3, 4): it misses at 4.
    The synchronous periodic releases meet every deadline under G-EDF: only the sporadic
    delay of τ0 and τ1 by one tick reaches the miss.
    """
    ts = TaskSet.from_tasks([(1, 3, 2), (2, 2, 5), (2, 2, 2)], deadlines="arbitrary")
    for rule in ("every", "index"):
        result = pending.explore(ts, 2, rule=rule)  # type: ignore[arg-type]
        assert result.code == REJECT
        assert result.releases == ((1,), (1,), (0, 2))
        assert result.tie_choices == ((2, (0,), (2,)),)
        miss = engine.replay(ts, 2, result)
        assert (miss.time, miss.task, miss.job, miss.remaining) == (4, 2, 1, 1)
    assert simulate(ts, 2, record=False).miss is None  # synchronous periodic: no miss
    # G-FP in task order: all three at 0, τ2 (lowest priority) waits [0, 1) and misses at 2
    fp = pending.explore(ts, 2, rule="fp")
    assert fp.releases == ((0,), (0,), (0,)) and engine.replay(ts, 2, fp).time == 2


def test_serial_overload_misses_at_8_in_the_simulator():
    ts = TaskSet.from_tasks([(3, 4, 2)], deadlines="arbitrary")
    miss = simulate(ts, 2, releases=[[0, 2, 4]]).miss
    assert miss is not None and (miss.time, miss.task, miss.job) == (8, 0, 2)
    # n <= m is no shortcut when some C > T; the search finds the same job missing
    for probes in (True, False):
        result = pending.explore(ts, 2, rule="every", probes=probes)
        assert result.reason == ("probe" if probes else "explored")
        assert engine.replay(ts, 2, result).time == 8  # the shortest path: releases at 0, 2, 4


def test_max_pending_and_explain_evidence():
    ts = TaskSet.from_tasks([(2, 5, 2), (1, 7, 3), (1, 2, 2)], deadlines="arbitrary")
    assert pending.max_pending(ts.D, ts.T) == [3, 3, 1]
    result = analyses.get("exact").explain(ts, 1)
    assert result.evidence["max_pending"] == (3, 3, 1)


# -- registry -------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", list(NAME.values()))
def test_registry_takes_arbitrary_deadlines(name):
    entry = analyses.get(name)
    assert "arbitrary" in entry.deadlines and not entry.deadlines_note
    assert entry.supports(2, TaskSet.from_tasks([(1, 5, 2), (1, 3, 4)], deadlines="arbitrary")) is None


def test_bad_input_unchanged():
    ts = TaskSet.from_tasks([(1, 5, 2), (1, 3, 4)], deadlines="arbitrary")
    with pytest.raises(InputError, match="unknown tie semantics"):
        exact_gedf.explore(ts, 2, ties="fifo")  # type: ignore[arg-type]
    with pytest.raises(InputError):
        pending.explore(ts, 0)
    with pytest.raises(InputError, match="unknown search order"):
        pending.explore(ts, 2, frontier="best")


# -- counterexamples replay ----------------------------------------------------------------------
@pytest.mark.parametrize("rule", RULES)
@settings(max_examples=40, deadline=None)
@given(ts=small_sets(), m=st.integers(1, 3))
def test_rejections_replay_to_a_miss(rule, ts, m):
    result = pending.explore(ts, m, rule=rule, budget=KERNEL_BUDGET, shortcuts=False)
    event(VERDICT[result.code])
    if result.code == REJECT:
        miss = engine.replay(ts, m, result)  # raises if the simulator finds no miss
        assert miss.time <= result.doomed_at + int(ts.D.max())


@pytest.mark.parametrize("rule", RULES)
def test_explain_replays_the_counterexample(rule):
    ts = TaskSet.from_tasks([(2, 5, 3), (1, 4, 2), (2, 7, 4)], deadlines="arbitrary")
    result = analyses.get(NAME[rule]).explain(ts, 1)
    assert result.verdict is False
    releases = result.evidence["releases"]
    kwargs = {"policy": "gfp"} if rule == "fp" else {"tie_choices": result.evidence.get("tie_choices", ())}
    miss = simulate(ts, 1, releases=releases, **kwargs).miss
    assert miss is not None and miss.time == result.evidence["miss_time"]
    steps = [step.text for step in result.steps]
    assert any("release sequence that leads to a miss" in text for text in steps)


# -- kernel == reference -------------------------------------------------------------------------
def check_kernel_equals_reference(ts: TaskSet, m: int, rule: str) -> None:
    want = pending.reference(ts, m, REFERENCE_BUDGET, rule=rule)  # type: ignore[arg-type]
    assume(want != "unknown")
    event(f"{rule}: {want}")
    assert kernel(ts, m, rule, "depth") == want
    assert kernel(ts, m, rule, "breadth") == want
    probed = pending.explore(ts, m, rule=rule, budget=KERNEL_BUDGET, shortcuts=False)  # type: ignore[arg-type]
    assert VERDICT[probed.code] == want  # the probes add only rejections with a path
    if probed.reason == "probe":
        event("refuted by a probe")
        assert engine.replay(ts, m, probed).time >= 1


@pytest.mark.parametrize("rule", RULES)
@settings(max_examples=25, deadline=None)
@given(ts=small_sets(), m=st.integers(1, 3))
def test_kernel_equals_reference(rule, ts, m):
    check_kernel_equals_reference(ts, m, rule)


@pytest.mark.slow
@pytest.mark.parametrize("rule", RULES)
@settings(max_examples=SLOW_EXAMPLES, deadline=None)
@given(ts=small_sets(), m=st.integers(1, 3))
def test_kernel_equals_reference_long(rule, ts, m):
    check_kernel_equals_reference(ts, m, rule)


# -- an independent brute force ------------------------------------------------------------------
def brute_force_miss(rows: list[tuple[int, int, int]], m: int, horizon: int, rule: str) -> bool:
    """Can the rule miss a deadline by ``horizon``? Written for these tests only, from the definitions.

    Every sporadic release sequence with releases at ticks 0..horizon-1 (a task releases at
    least T after its previous release) and, each tick, every legal set of running jobs: each
    task's jobs in release order, only the oldest eligible; ``min(m, tasks with a job)`` of those
    oldest jobs run, under ``every`` none with a later absolute deadline than one left waiting,
    under ``index`` the first m by (deadline, index), under ``fp`` the first m by index. A job
    unfinished at its absolute deadline is a miss. No state-space machinery, absolute times.
    """
    n = len(rows)

    @cache
    def misses(t: int, jobs: tuple, last: tuple) -> bool:
        # jobs[i]: task i's pending jobs, oldest first, as (work left, absolute deadline)
        if any(deadline <= t for queue in jobs for _, deadline in queue):
            return True
        if t == horizon:
            return False
        free = [i for i in range(n) if last[i] is None or t - last[i] >= rows[i][2]]
        for size in range(len(free) + 1):
            for released in itertools.combinations(free, size):
                queues = [list(q) for q in jobs]
                stamps = list(last)
                for i in released:
                    queues[i].append((rows[i][0], t + rows[i][1]))
                    stamps[i] = t
                heads = [i for i in range(n) if queues[i]]
                k = min(m, len(heads))
                if rule == "fp":
                    choices = [tuple(heads[:k])]
                elif rule == "index":
                    choices = [tuple(sorted(heads, key=lambda i: (queues[i][0][1], i))[:k])]
                else:
                    choices = [
                        run
                        for run in itertools.combinations(heads, k)
                        if all(queues[r][0][1] <= queues[w][0][1] for r in run for w in heads if w not in run)
                    ]
                for run in choices:
                    after = [list(q) for q in queues]
                    for i in run:
                        work, deadline = after[i][0]
                        after[i] = after[i][1:] if work == 1 else [(work - 1, deadline), *after[i][1:]]
                    if misses(t + 1, tuple(map(tuple, after)), tuple(stamps)):
                        return True
        return False

    return misses(0, tuple(() for _ in range(n)), tuple(None for _ in range(n)))


def check_brute_force(rule: str, ts: TaskSet, m: int, horizon: int) -> None:
    """A miss within the horizon ⇒ the game rejects; a counterexample that fits in it ⇒ a miss there."""
    rows = [(int(c), int(d), int(t)) for c, d, t in zip(ts.C, ts.D, ts.T, strict=True)]
    brute = brute_force_miss(rows, m, horizon, rule)
    want = pending.reference(ts, m, REFERENCE_BUDGET, rule=rule)  # type: ignore[arg-type]
    assume(want != "unknown")
    event(f"{rule}: brute {brute}, reference {want}")
    if brute:
        assert want is False
    result = pending.explore(ts, m, rule=rule, budget=KERNEL_BUDGET, shortcuts=False)  # type: ignore[arg-type]
    assert VERDICT[result.code] == want
    if result.code == REJECT:
        miss = engine.replay(ts, m, result)
        if miss.time <= horizon and max(max(r) for r in result.releases if r) < horizon:  # type: ignore[union-attr]
            assert brute


@pytest.mark.parametrize("rule", RULES)
@settings(max_examples=60, deadline=None)
@given(ts=small_sets(max_n=3, max_period=3), m=st.integers(1, 2))
def test_reference_against_brute_force(rule, ts, m):
    check_brute_force(rule, ts, m, horizon=8)


@pytest.mark.slow
@pytest.mark.parametrize("rule", RULES)
@settings(max_examples=SLOW_EXAMPLES, deadline=None)
@given(ts=small_sets(max_n=3, max_period=4), m=st.integers(1, 3))
def test_reference_against_brute_force_long(rule, ts, m):
    check_brute_force(rule, ts, m, horizon=10)


# -- D ≤ T: the new engine decides as the D ≤ T engine -----------------------------------------------
@pytest.mark.parametrize("rule", RULES)
@settings(max_examples=40, deadline=None)
@given(ts=small_sets(arbitrary=False, max_period=10), m=st.integers(1, 3))
def test_constrained_sets_as_the_constrained_engine(rule, ts, m):
    old = engine.explore(ts, m, rule=rule, budget=KERNEL_BUDGET, shortcuts=False)  # type: ignore[arg-type]
    new = pending.explore(ts, m, rule=rule, budget=KERNEL_BUDGET, shortcuts=False)  # type: ignore[arg-type]
    assume(old.code != UNKNOWN and new.code != UNKNOWN)
    event(f"{rule}: {VERDICT[old.code]}")
    assert new.code == old.code
    if rule != "every":  # the references agree too (pending.reference reads D ≤ T sets as well)
        assert pending.reference(ts, m, REFERENCE_BUDGET, rule=rule) in (VERDICT[old.code], "unknown")  # type: ignore[arg-type]


# -- soundness against the simulator -------------------------------------------------------------
SIM_TIES = ("index", "fifo", "random:3")


def check_sound(ts: TaskSet, m: int, rule: str, seed: int) -> None:
    code = pending.explore(ts, m, rule=rule, budget=KERNEL_BUDGET).code  # type: ignore[arg-type]
    event(f"{rule}: {VERDICT[code]}")
    if code != ACCEPT:
        return
    policy = "gfp" if rule == "fp" else "gedf"
    ties = SIM_TIES if rule == "every" else ("index",)
    for tie in ties:
        for arrivals in ("periodic", "sporadic"):
            for execution in ("wcet", "random"):
                trace = simulate(
                    ts, m, policy=policy, ties=tie, arrivals=arrivals, execution=execution, seed=seed, record=False
                )
                assert trace.miss is None, (tie, arrivals, execution, trace.miss)


@pytest.mark.parametrize("rule", RULES)
@settings(max_examples=30, deadline=None)
@given(ts=small_sets(max_period=10), m=st.integers(1, 3), seed=st.integers(0, 2**16))
def test_accepted_sets_never_miss_in_simulation(rule, ts, m, seed):
    check_sound(ts, m, rule, seed)


@pytest.mark.slow
@pytest.mark.parametrize("rule", RULES)
@settings(max_examples=SLOW_EXAMPLES, deadline=None)
@given(ts=small_sets(max_n=5, max_period=12), m=st.integers(1, 4), seed=st.integers(0, 2**16))
def test_accepted_sets_never_miss_in_simulation_long(rule, ts, m, seed):
    check_sound(ts, m, rule, seed)


# -- m = 1: the exact uniprocessor tests -------------------------------------------------------------
@settings(max_examples=60, deadline=None)
@given(ts=small_sets(max_period=10))
def test_one_processor_equals_the_uniprocessor_tests(ts):
    assume(all(int(c) <= int(t) for c, t in zip(ts.C, ts.T, strict=True)) or ts.utilization > 1)
    for rule in ("every", "index"):
        code = pending.explore(ts, 1, rule=rule, budget=KERNEL_BUDGET).code  # type: ignore[arg-type]
        assume(code != UNKNOWN)
        assert VERDICT[code] == analyses.get("uni-pda").verdict(ts, 1) == analyses.get("uni-qpa").verdict(ts, 1)
    code = pending.explore(ts, 1, rule="fp", budget=KERNEL_BUDGET).code
    assume(code != UNKNOWN)
    event(f"fp: {VERDICT[code]}")
    assert VERDICT[code] == analyses.get("uni-rta").verdict(ts, 1)


# -- proved dominances ---------------------------------------------------------------------------
@settings(max_examples=60, deadline=None)
@given(ts=small_sets(max_period=10), m=st.integers(1, 3))
def test_dominances(ts, m):
    every = pending.explore(ts, m, rule="every", budget=KERNEL_BUDGET).code
    index = pending.explore(ts, m, rule="index", budget=KERNEL_BUDGET).code
    assume(UNKNOWN not in (every, index))
    if every == ACCEPT:
        assert index == ACCEPT  # the index rule is one of the rules the adversary may play
    if any(int(c) > int(t) for c, t in zip(ts.C, ts.T, strict=True)):
        event("C > T")  # gfb and load refuse it (test_load_refuses_an_overloaded_task)
    for name in ("gfb", "load"):
        if analyses.get(name).verdict(ts, m) is True:
            event(f"{name} accepts")
            assert every == ACCEPT, name


#: Every registered sufficient global test of sporadic task sets that takes D > T, with the exact
#: rule it must not contradict (global FP analyses in task order, as exact-gfp).
SUFFICIENT = [
    (e, "fp" if e.policy == "global-fp" else "every")
    for e in analyses.all_entries()
    if e.kind == "sufficient"
    and e.input == "taskset"
    and e.platform == "identical"
    and e.policy in ("global-edf", "global-fp")
    and "arbitrary" in e.deadlines
]


def check_sufficient_tests(ts: TaskSet, m: int) -> None:
    codes: dict[str, int] = {}
    for entry, rule in SUFFICIENT:
        if entry.verdict(ts, m) is not True:
            continue
        if rule not in codes:
            codes[rule] = pending.explore(ts, m, rule=rule, budget=KERNEL_BUDGET).code  # type: ignore[arg-type]
        event(f"{entry.name} accepts")
        assert codes[rule] != REJECT, f"{entry.name} accepts {ts!r} on m={m}; {NAME[rule]} rejects it"


def test_sufficient_tests_are_listed():
    names = {entry.name for entry, _ in SUFFICIENT}
    assert {"gfb", "load", "gfp-da", "gfp-rta"} <= names, names


@settings(max_examples=40, deadline=None)
@given(ts=small_sets(max_n=5, max_period=10), m=st.integers(2, 3))
def test_sufficient_tests_never_accept_what_the_exact_tests_reject(ts, m):
    assume(ts.utilization <= m)
    check_sufficient_tests(ts, m)


@pytest.mark.slow
@settings(max_examples=SLOW_EXAMPLES, deadline=None)
@given(ts=small_sets(max_n=6, max_period=12), m=st.integers(2, 4))
def test_sufficient_tests_never_accept_what_the_exact_tests_reject_long(ts, m):
    assume(ts.utilization <= m)
    check_sufficient_tests(ts, m)


def test_load_refuses_an_overloaded_task():
    """load accepted this task with C > T (U_i > 1), which misses; it now refuses λmax > 1 (issue #47)."""
    ts = TaskSet.from_tasks([(3, 4, 2)], deadlines="arbitrary")
    assert pending.explore(ts, 2).code == REJECT
    assert simulate(ts, 2, releases=[[0, 2, 4]]).miss is not None  # the third job misses at 8
    entry = analyses.get("load")
    assert entry.verdict(ts, 2) is False
    assert entry.decide(TaskSetBatch.from_tasksets([ts], deadlines="arbitrary"), 2).tolist() == [False]
    assert entry.explain(ts, 2).summary.startswith("λmax = 1.5 > 1: a task with C > T")


# -- batches -------------------------------------------------------------------------------------
def test_batch_codes_route_set_by_set():
    sets = [
        TaskSet.from_tasks([(2, 5, 3), (1, 4, 2), (2, 7, 4)], deadlines="arbitrary"),
        TaskSet.from_tasks([(1, 2, 2), (1, 3, 4)]),
        TaskSet.from_tasks([(3, 5, 4), (3, 5, 4), (1, 1, 4)], deadlines="arbitrary"),
    ]
    batch = TaskSetBatch.from_tasksets(sets, deadlines="arbitrary")
    for rule in RULES:
        got = pending.codes(batch, 2, 10_000, rule).tolist()
        want = [pending.one(ts.C, ts.D, ts.T, 2, 10_000, rule) for ts in sets]
        assert got == want
        entry = analyses.get(NAME[rule])
        assert [VERDICT[c] for c in want] == [entry.verdict(ts, 2) for ts in sets]
    constrained = TaskSetBatch.from_tasksets(sets[1:2])
    assert np.array_equal(pending.codes(constrained, 2, 10_000, "every"), engine.codes(constrained, 2, 10_000, "every"))


def test_too_many_pending_jobs_is_unknown_not_a_crash():
    ts = TaskSet.from_tasks([(1, 10**6, 2), (1, 3, 4)], deadlines="arbitrary")
    result = pending.explore(ts, 1)
    assert (result.code, result.reason) == (UNKNOWN, "too large")
    assert analyses.get("exact-gfp").verdict(ts, 1) == "unknown"


def test_budget_gives_unknown_never_a_verdict():
    ts = TaskSet.from_tasks([(2, 9, 4), (3, 10, 5), (2, 8, 3), (1, 6, 2)], deadlines="arbitrary")
    full = pending.explore(ts, 2, budget=KERNEL_BUDGET)
    assert full.code != UNKNOWN
    tiny = pending.explore(ts, 2, budget=2)
    assert tiny.code in (full.code, UNKNOWN)
    assert exact_gfp.explore(ts, 2, budget=2).code in (UNKNOWN, exact_gfp.explore(ts, 2).code)
