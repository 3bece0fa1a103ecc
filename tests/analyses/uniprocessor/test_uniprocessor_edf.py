"""Tests of uni-pda and uni-qpa (papers/zhang-burns2009-qpa.md) and of analyses/theory/edf_demand.py."""

from __future__ import annotations

import json
import math
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from rtsched import analyses
from rtsched.analyses.theory import edf_demand as dm
from rtsched.errors import InputError
from rtsched.model import MAX_TIME, TaskSet, TaskSetBatch
from rtsched.testing import strategies as rst

CASES = Path(__file__).parents[2] / "data" / "schedcat_cases.jsonl"  # see conftest.SCHEDCAT_CASES


def brute_force(rows: list[tuple[int, int, int]]) -> bool:
    """h(t) ≤ t for every t up to hyperperiod + max D, and U ≤ 1 (Baruah, Rosier, Howell 1990)."""
    if sum(Fraction(c, p) for c, _, p in rows) > 1:
        return False
    horizon = math.lcm(*(p for _, _, p in rows)) + max(d for _, d, _ in rows)
    return all(dm.demand(rows, t) <= t for t in range(1, horizon + 1))


def verdict_code(v: object) -> int:
    return -1 if v == "unknown" else int(bool(v))


def _status(name: str, batch: TaskSetBatch, budget: int | None) -> np.ndarray:
    """The registry's codes for the batch; the serial one-set kernel (``verdict``) must agree."""
    entry = analyses.get(name)
    codes = entry.status(batch, 1, budget)
    assert [verdict_code(entry.verdict(ts, 1, budget)) for ts in batch] == codes.tolist()
    return codes


def qpa_status(batch: TaskSetBatch, m: int = 1, budget: int | None = None) -> np.ndarray:
    return _status("uni-qpa", batch, budget)


def pda_status(batch: TaskSetBatch, m: int = 1, budget: int | None = None) -> np.ndarray:
    return _status("uni-pda", batch, budget)


# Small periods keep the hyperperiod (and the brute force) small.
SMALL_PERIODS = st.sampled_from([1, 2, 3, 4, 5, 6, 8, 10, 12, 15])


@st.composite
def small_sets(draw: st.DrawFn, arbitrary: bool = False) -> list[tuple[int, int, int]]:
    rows = []
    for _ in range(draw(st.integers(1, 5))):
        T = draw(SMALL_PERIODS)
        C = draw(st.integers(1, T))
        D = draw(st.integers(C, 3 * T if arbitrary else T))
        rows.append((C, D, T))
    return rows


@st.composite
def utilization_one_sets(draw: st.DrawFn) -> list[tuple[int, int, int]]:
    """U = 1 exactly: k tasks of utilization 1/k (the boundary U ≤ 1 of the criterion)."""
    k = draw(st.integers(1, 4))
    rows = []
    for _ in range(k):
        c = draw(st.integers(1, 4))
        T = k * c
        rows.append((c, draw(st.integers(c, T)), T))
    return rows


@st.composite
def tight_sets(draw: st.DrawFn) -> list[tuple[int, int, int]]:
    """Sets on the boundary h(t*) = t*: a schedulable set plus one job eating the least slack."""
    rows = draw(small_sets())
    if not brute_force(rows):
        return rows
    horizon = math.lcm(*(p for _, _, p in rows)) + max(d for _, d, _ in rows)
    slack, t_star = min((t - dm.demand(rows, t), t) for t in range(1, horizon + 1))
    if slack == 0:
        return rows
    # One job of size `slack` due at t*, with a period long enough to add one job in the horizon.
    return [*rows, (slack, t_star, max(t_star, 2 * horizon))]


# -- worked cases -------------------------------------------------------------------------------


def test_worked_example_from_note() -> None:
    """papers/zhang-burns2009-qpa.md, worked example: L_a = 68, L_b = 36, first miss h(10) = 11."""
    rows = [(2, 4, 6), (3, 8, 10), (4, 9, 12)]
    pda = dm.pda_trace(rows)
    assert pda.La == 68
    assert pda.Lb == 36
    assert pda.L == 36
    assert (pda.verdict, pda.t, pda.h) == (False, 10, 11)
    qpa = dm.qpa_trace(rows)
    assert qpa.verdict is False
    assert qpa.h > qpa.t
    # Hand-computed busy-period iteration: 9, 11, 14, 20, 22, 25, 31, 36, 36.
    ws = [9]
    while True:
        w = dm.busy_period_function(rows, ws[-1])
        if w == ws[-1]:
            break
        ws.append(w)
    assert ws == [9, 11, 14, 20, 22, 25, 31, 36]


def test_worked_example_schedulable_busy_period_bound() -> None:
    """papers note: U = 5/6, L_a = 13/2 > L_b = 6, deadlines 2 and 5 checked, QPA exits at h(3) = 1."""
    rows = [(1, 2, 4), (2, 5, 6), (2, 7, 8)]
    tr = dm.qpa_trace(rows)
    assert (tr.verdict, tr.La, tr.Lb, tr.L, tr.t, tr.h) == (True, Fraction(13, 2), 6, 6, 3, 1)


def _schedcat_uni_cases() -> list[object]:
    out = []
    for line in CASES.read_text().splitlines():
        case = json.loads(line)
        computed = case.get("schedcat_computed", {})
        if case["kind"] == "verdict" and "uni:QPA" in computed:
            out.append(pytest.param([tuple(t) for t in case["tasks"]], computed["uni:QPA"], id=case["case_id"]))
    return out


@pytest.mark.parametrize(("rows", "expected"), _schedcat_uni_cases())
def test_schedcat_uni_qpa_cases(rows: list[tuple[int, int, int]], expected: bool) -> None:
    """SchedCAT's uni:QPA verdicts (its Test_QPA sets include a task with D > T, supported here)."""
    ts = TaskSet.from_tasks(rows, deadlines="arbitrary")
    batch = TaskSetBatch.from_tasksets([ts])
    for name in ("uni-qpa", "uni-pda"):
        entry = analyses.get(name)
        assert entry.reference(ts, 1) is expected
        assert entry.explain(ts, 1).verdict is expected
        assert entry.decide(batch, 1).tolist() == [int(expected)]


@pytest.mark.parametrize(
    ("rows", "expected"),
    [
        pytest.param([(1, 2, 2), (2, 4, 4)], True, id="implicit-U=1"),
        pytest.param([(1, 1, 2), (1, 1, 2)], False, id="U=1-constrained-miss-at-1"),
        pytest.param([(1, 1, 2), (1, 2, 2)], True, id="U=1-constrained-tight-at-2"),
        pytest.param([(1, 1, 2), (2, 4, 4)], True, id="U=1-constrained-ok"),
        pytest.param([(3, 3, 3)], True, id="single-C=D=T"),
        pytest.param([(2, 3, 3), (2, 3, 3)], False, id="U>1"),
        pytest.param([(1, 5, 2), (1, 5, 2)], True, id="arbitrary-U=1"),
        pytest.param([(2, 3, 2)], True, id="arbitrary-D>T-U=1"),
    ],
)
def test_boundary_cases(rows: list[tuple[int, int, int]], expected: bool) -> None:
    assert brute_force(rows) is expected
    assert dm.qpa_reference(rows) is expected
    assert dm.pda_trace(rows).verdict is expected
    ts = TaskSet.from_tasks(rows, deadlines="arbitrary")
    batch = TaskSetBatch.from_tasksets([ts])
    assert qpa_status(batch).tolist() == [int(expected)]
    assert pda_status(batch).tolist() == [int(expected)]


def test_explain_first_violation() -> None:
    ts = TaskSet.from_tasks([(2, 4, 6), (3, 8, 10), (4, 9, 12)])
    res = analyses.get("uni-pda").explain(ts, 1)
    assert res.verdict is False
    assert res.evidence["t"] == 10
    assert "h(10) = 11 > 10" in res.summary
    ok = analyses.get("uni-qpa").explain(TaskSet.from_tasks([(1, 2, 4), (2, 5, 6), (2, 7, 8)]), 1)
    assert ok.verdict is True
    assert "L = 6" in ok.summary


def test_registry_applies_only_on_one_processor() -> None:
    ts = TaskSet.from_tasks([(1, 2, 4)])
    for name in ("uni-qpa", "uni-pda"):
        entry = analyses.get(name)
        assert entry.featured
        assert entry.supports(1, ts) is None
        assert entry.supports(2, ts) is not None


# -- kernel == reference --------------------------------------------------------------------


@settings(max_examples=60)
@given(st.lists(st.one_of(small_sets(arbitrary=True), utilization_one_sets(), tight_sets()), min_size=1, max_size=12))
def test_kernel_equals_reference_and_brute_force(sets: list[list[tuple[int, int, int]]]) -> None:
    batch = TaskSetBatch.from_tasksets([TaskSet.from_tasks(r, deadlines="arbitrary") for r in sets])
    truth = [int(brute_force(r)) for r in sets]
    assert [verdict_code(dm.qpa_reference(r)) for r in sets] == truth
    assert [verdict_code(dm.pda_trace(r).verdict) for r in sets] == truth
    assert qpa_status(batch).tolist() == truth
    assert pda_status(batch).tolist() == truth


@settings(max_examples=40)
@given(rst.batches(max_sets=10, max_size=8, max_period=10**6, max_utilization=1.0))
def test_kernel_equals_reference_large_periods(batch: TaskSetBatch) -> None:
    ref = [verdict_code(dm.qpa_reference(ts.rows())) for ts in batch]
    assert qpa_status(batch).tolist() == ref
    assert pda_status(batch).tolist() == [verdict_code(dm.pda_trace(ts.rows()).verdict) for ts in batch]


@settings(max_examples=30)
@given(
    st.lists(
        st.tuples(st.integers(1, 1000), st.integers(0, 1000), st.integers(MAX_TIME - 10**6, MAX_TIME)),
        min_size=1,
        max_size=6,
    ),
    st.integers(1, 50),
)
def test_huge_values_and_budget(raw: list[tuple[int, int, int]], budget: int) -> None:
    """Near-2**31 periods (L_a huge) and tiny budgets: kernel == reference, "unknown" included."""
    rows = []
    for c, g, T in raw:
        C = max(1, c * (T // 1000) // len(raw))  # U up to 1
        rows.append((C, C + (T - C) * g // 1000, T))
    ts = TaskSet.from_tasks(rows)
    batch = TaskSetBatch.from_tasksets([ts])
    ref = verdict_code(dm.qpa_reference(rows, budget))
    assert qpa_status(batch, 1, budget).tolist() == [ref]
    assert pda_status(batch, 1, budget).tolist() == [verdict_code(dm.pda_trace(rows, budget).verdict)]
    if ref == 0:  # a rejection is a real deadline miss, whatever the budget
        assert dm.qpa_reference(rows) is False


def test_budget_exhaustion_is_unknown_never_false() -> None:
    rows = [(2, 4, 6), (3, 8, 10), (4, 9, 11)]  # schedulable? decide with a full budget first
    full = dm.qpa_reference(rows)
    batch = TaskSetBatch.from_tasksets([TaskSet.from_tasks(rows)])
    for budget in range(0, 5):
        tr = dm.qpa_trace(rows, budget)
        assert tr.verdict in (full, "unknown")
        if budget == 0:  # the registry takes positive budgets only; the kernel itself still answers
            C, D, T = (np.array(col, dtype=np.int64) for col in zip(*rows, strict=True))
            assert int(dm.qpa_one(C, D, T, np.int64(0))) == verdict_code(tr.verdict)
            with pytest.raises(InputError, match="budget"):
                qpa_status(batch, 1, budget)
            continue
        assert qpa_status(batch, 1, budget).tolist() == [verdict_code(tr.verdict)]
    res = analyses.get("uni-qpa").explain(TaskSet.from_tasks(rows), 1, budget=1)
    assert res.verdict == "unknown"
    assert "budget" in res.summary


def test_qpa_one_direct_on_arrays() -> None:
    """The public serial kernel works on plain arrays (for reuse by other analyses)."""
    C = np.array([2, 3, 4], dtype=np.int64)
    D = np.array([4, 8, 9], dtype=np.int64)
    T = np.array([6, 10, 12], dtype=np.int64)
    assert dm.qpa_one(C, D, T, np.int64(10**6)) == 0
    assert dm.qpa_one(C[:2], D[:2], T[:2], np.int64(10**6)) == 1


@settings(max_examples=60)
@given(
    st.lists(st.tuples(st.integers(0, MAX_TIME), st.integers(1, MAX_TIME), st.booleans()), min_size=1, max_size=6),
    st.integers(-3, 3),
)
def test_frac_sum_sign_is_exact_or_gives_up(terms: list[tuple[int, int, bool]], const: int) -> None:
    num = np.array([a for a, _, _ in terms], dtype=np.int64)
    den = np.array([b for _, b, _ in terms], dtype=np.int64)
    sgn = np.array([1 if s else -1 for _, _, s in terms], dtype=np.int64)
    got = dm.frac_sum_sign(num, den, sgn, len(terms), np.int64(const))
    exact = sum((Fraction(a, b) * (1 if s else -1) for a, b, s in terms), Fraction(0)) - const
    if got != 2:
        assert got == (exact > 0) - (exact < 0)


def test_frac_sum_sign_overflow_and_utilization_tie() -> None:
    big = np.array([2147483647, 2147483629, 2147483587], dtype=np.int64)  # pairwise coprime
    ones = np.ones(3, dtype=np.int64)
    assert dm.frac_sum_sign(ones, big, ones, 3, np.int64(0)) == 2
    # U = 1/2 + 1/3 + 1/6 = 1 exactly: the float sum is within its margin, the exact path decides.
    assert dm.utilization_vs_one(np.array([1, 1, 1]), np.array([2, 3, 6]), 3) == 0


# -- properties -----------------------------------------------------------------------------


@settings(max_examples=60)
@given(rst.tasksets(max_size=8, max_period=200, deadlines="implicit"))
def test_implicit_deadlines_exact_iff_u_at_most_one(ts: TaskSet) -> None:
    expected = ts.utilization <= 1
    assert dm.qpa_reference(ts.rows()) is expected
    assert dm.pda_trace(ts.rows()).verdict is expected


def _rta_verdict(rows: list[tuple[int, int, int]]) -> bool:
    """Uniprocessor EDF RTA from the PyPI package response-time-analysis (PROSA-derived).

    It bounds response times; the set is schedulable iff every bound is at most D. Tasks get
    distinct priorities because the package excludes "the task under analysis" by equality,
    which would also drop identical copies of it.
    """
    from response_time_analysis.analysis import edf
    from response_time_analysis.model import (
        WCET,
        Deadline,
        FullyPreemptive,
        IdealProcessor,
        Priority,
        Sporadic,
        taskset,
    )
    from response_time_analysis.model import Task as RtaTask

    tasks = [
        RtaTask(Sporadic(p), FullyPreemptive(WCET(c)), Deadline(d), Priority(i)) for i, (c, d, p) in enumerate(rows)
    ]
    ts = taskset(tasks)
    for task, (_, d, _) in zip(tasks, rows, strict=True):
        sol = edf.rta(ts, task, IdealProcessor(), horizon=10**6)
        if sol.response_time_bound is None or sol.response_time_bound > d:
            return False
    return True


@settings(max_examples=40)
@given(small_sets())
def test_cross_check_response_time_analysis(rows: list[tuple[int, int, int]]) -> None:
    if sum(Fraction(c, p) for c, _, p in rows) > 1:
        return  # the package's busy window does not converge for U > 1
    assert _rta_verdict(rows) is dm.qpa_reference(rows)


# -- rtsched's QPA shortcuts (papers/zhang-burns2009-qpa.md) -----------------------------------


def _shortcut_branch(rows: list[tuple[int, int, int]], budget: int) -> str:
    """Which of the kernel's QPA shortcuts decides ``rows`` (exact arithmetic; for the reach count)."""
    U = sum(Fraction(c, p) for c, _, p in rows)
    if U >= 1 or sum(Fraction(c, min(d, p)) for c, d, p in rows) <= 1 or len(rows) > 32:
        return "no shortcut (U ≥ 1, density ≤ 1 or large n)"
    La = dm.grs_bound(rows)
    assert La is not None
    if 2 + 3 * len(rows) + 4 * La * sum(Fraction(1, p) for _, _, p in rows) + 2 > budget:
        return "budget guard: the reference's QPA"
    flagged = None
    lowest = None  # D_f, the least relative deadline where dbf* may exceed (the search's floor)
    deadlines = sorted({d for _, d, _ in rows})
    for d in deadlines:
        if sum(c for c, dj, _ in rows if dj <= d) > d:
            return "first-job demand > D_i: reject"
        if sum(dm.dbf_star(c, dj, p, d) for c, dj, p in rows) > d:
            if dm.demand(rows, d) > d:
                return "h(D_i) > D_i: reject"
            flagged = d
            lowest = d if lowest is None else lowest
    if flagged is None:
        return "dbf* ≤ t at every D_i: accept"
    branch = "QPA from L_a" if flagged == deadlines[-1] else "QPA from L' below L"
    # The search from max{d < L'} (exact L_a here, ⌈a float bound⌉ in the kernel: the same
    # deadlines below it), until it ends or t falls below D_f (shortcut 5, the kernel's stop).
    start = La if flagged == deadlines[-1] else min(d for d in deadlines if d > flagged)
    t = dm._max_deadline_below(rows, start)
    d_min = deadlines[0]
    while t is not None:
        if t < lowest:
            return branch + ", stopped below D_f"
        h = dm.demand(rows, t)
        if h > t or h <= d_min:
            break
        t = h if h < t else dm.prev_deadline(rows, t)
    return branch


def test_qpa_shortcuts_match_reference(reach) -> None:
    """The kernel's shortcuts (rtsched's: first-job demand, h at the deadlines where dbf* may
    exceed, dbf* acceptance, QPA from a lower start) and its budget guard give the reference's
    verdict, "unknown" included; ``reach`` counts the branches the examples reached."""

    @settings(max_examples=60)
    @given(
        sets=st.lists(
            st.one_of(
                small_sets(arbitrary=True),
                tight_sets(),
                rst.tasksets(min_size=2, max_size=8, max_period=60, max_utilization=0.99).map(TaskSet.rows),
            ),
            min_size=1,
            max_size=12,
        ),
        budget=st.sampled_from([1, 5, 20, 10**6, 10**6, 10**6]),
    )
    def prop(sets: list[list[tuple[int, int, int]]], budget: int) -> None:
        batch = TaskSetBatch.from_tasksets([TaskSet.from_tasks(r, deadlines="arbitrary") for r in sets])
        assert qpa_status(batch, 1, budget).tolist() == [verdict_code(dm.qpa_reference(r, budget)) for r in sets]
        for r in sets:
            branch = _shortcut_branch(r, budget)
            event(branch)
            reach[branch] += 1

    prop()
    shortcuts = sum(n for branch, n in reach.items() if not branch.startswith(("no shortcut", "budget guard")))
    assert shortcuts > 0 and reach["budget guard: the reference's QPA"] > 0, dict(reach)
    assert any(branch.endswith("stopped below D_f") for branch in reach), dict(reach)  # shortcut 5


@pytest.mark.parametrize(
    ("rows", "branch"),
    [
        # The smallest sets found by a random search for each branch.
        pytest.param([(1, 1, 2), (1, 1, 3)], "first-job demand > D_i: reject", id="first-jobs"),
        pytest.param([(2, 3, 5), (1, 1, 2)], "h(D_i) > D_i: reject", id="h-at-deadline"),
        pytest.param([(1, 1, 2), (1, 3, 3)], "dbf* ≤ t at every D_i: accept", id="dbf-star"),
        pytest.param(
            [(1, 2, 3), (1, 5, 5), (1, 1, 4)], "QPA from L' below L, stopped below D_f", id="qpa-from-lower-start"
        ),
        pytest.param([(1, 1, 3), (1, 2, 2)], "QPA from L_a, stopped below D_f", id="qpa-from-La-stopped"),
        pytest.param([(2, 2, 3), (2, 4, 7)], "QPA from L_a", id="qpa-from-La"),
    ],
)
def test_qpa_shortcut_branches(rows: list[tuple[int, int, int]], branch: str) -> None:
    """One set per branch of the shortcuts: kernel == reference == brute force, at every budget."""
    assert _shortcut_branch(rows, 10**6) == branch
    batch = TaskSetBatch.from_tasksets([TaskSet.from_tasks(rows)])
    assert qpa_status(batch).tolist() == [int(brute_force(rows))]
    for budget in (1, 2, 3, 5, 10, 50):
        assert qpa_status(batch, 1, budget).tolist() == [verdict_code(dm.qpa_reference(rows, budget))]


@pytest.mark.parametrize(
    ("rows", "flagged", "miss"),
    [
        # Found by a random search for sets that a floor at the *last* flagged deadline accepts.
        pytest.param([(3, 3, 6), (1, 8, 21), (3, 7, 23), (2, 12, 13)], [7, 8, 12], 9, id="from-La"),
        pytest.param([(2, 13, 20), (5, 7, 23), (2, 2, 6), (1, 19, 25)], [7, 13], 8, id="from-lower-start"),
    ],
)
def test_qpa_search_floor_is_the_least_flagged_deadline(rows, flagged: list[int], miss: int) -> None:
    """Shortcut 5 stops the search below D_f, the *least* relative deadline where dbf* may exceed:
    these sets miss at an absolute deadline between two flagged ones, which a floor at any larger
    flagged deadline would skip (the kernel then accepted them)."""
    deadlines = sorted({d for _, d, _ in rows})
    assert [d for d in deadlines if sum(dm.dbf_star(c, dj, p, d) for c, dj, p in rows) > d] == flagged
    assert min(t for t in range(1, 10 * max(p for _, _, p in rows)) if dm.demand(rows, t) > t) == miss
    assert flagged[0] < miss < flagged[-1]
    batch = TaskSetBatch.from_tasksets([TaskSet.from_tasks(rows)])
    assert qpa_status(batch).tolist() == [int(brute_force(rows))] == [0]
    assert dm.qpa_reference(rows) is False


@given(
    st.lists(st.integers(1, 12), min_size=1, max_size=dm._SHORTCUT_TASKS),
    st.sampled_from([1, 1_000, 2**31 - 1, 2**56, 2**59]),
)
def test_deadline_order_of_the_shortcuts_is_a_stable_sort(small: list[int], scale: int) -> None:
    """``_rank_order`` (composite keys below 2**56, the insertion sort above) orders the indices by
    key, equal keys by index: the insertion sort's order, whatever the keys' size (ties are frequent)."""
    keys = np.array(small, dtype=np.int64) * np.int64(scale)
    order = np.full(len(small), -1, dtype=np.int64)
    dm._rank_order(order, keys, len(small))
    assert order.tolist() == np.argsort(keys, kind="stable").tolist()
