"""BAR (Baruah RTSS 2007, integer-time corrected): worked cases, kernel == reference, properties.

The checks BAR and bar-int (rtsched's integer-time tightening, papers/bar-int.md) share are
parametrized here over both (``VARIANTS``); tests/analyses/global_edf/test_bar_int.py holds bar-int's own."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from rtsched import TaskSet, TaskSetBatch
from rtsched.analyses.global_edf import _bar_common, bar, bar_int
from rtsched.errors import InputError
from rtsched.testing import strategies as rst

# The registered entries (registry lookups are tested in test_gedf_pseudopoly_relations).
BAR = bar.ANALYSES[0]
BAR_INT = bar_int.ANALYSES[0]
#: (module, registered entry, the condition at one (k, A_k)): BAR's (8) and bar-int's (8-int).
VARIANTS = [
    pytest.param(bar, BAR, bar.condition_8, id="bar"),
    pytest.param(bar_int, BAR_INT, bar_int.condition, id="bar-int"),
]
MODULE_AND_ENTRY = [pytest.param(*p.values[:2], id=p.id) for p in VARIANTS]


CODE = {True: 1, False: 0, "unknown": -1}


def one(ts: TaskSet, m: int, budget: int = bar.DEFAULT_BUDGET, entry=BAR) -> int:
    """The batch kernel's code for one set; the serial one-set kernel (verdict) must agree."""
    code = int(entry.status(TaskSetBatch.from_tasksets([ts]), m, budget)[0])
    assert CODE[entry.verdict(ts, m, budget)] == code
    return code


@pytest.mark.parametrize(
    ("module", "entry", "tasks", "m", "expected"),
    [
        # papers/baruah2007.md worked example: k = 0, A_k = 0, t = 3, cap = 2:
        # ΣI1 = 2 + 2 + min(2 − 2, 0) = 4, I_DIFF = 0, RHS = 3·(0 + 3 − 2) = 3 → (8) fails.
        pytest.param(bar, BAR, [(2, 3, 3)] * 3, 3, False, id="bar-note-example-three-2-3-3-m3"),
        # U = m: Eq. (9) needs U < m (precondition), rejected.
        pytest.param(bar, BAR, [(2, 3, 3)] * 3, 2, False, id="bar-U-equals-m"),
        # Eq. (9) bound negative: no A_k can violate (8).
        pytest.param(bar, BAR, [(1, 10, 10)] * 5, 2, True, id="bar-bound-negative"),
        # Witness of BAR ⊄ GFB/LOAD/FF-DBF (random search, see test_incomparable_witnesses).
        pytest.param(bar, BAR, [(7, 10, 10), (5, 6, 6)], 2, True, id="bar-only"),
        # papers/bar-int.md worked example 1: three (2, 3, 3) on m = 3. k = 0, A_k = 0: LHS = 4,
        # RHS = 3·(0 + 3 − 2) + 2 = 5 → holds (bar: 4 > 3, not proven). Bound (9-int): (0 + 4 + 2)/1 − 3 = 3.
        pytest.param(bar_int, BAR_INT, [(2, 3, 3)] * 3, 3, True, id="bar-int-note-example-three-2-3-3-m3"),
        # The integer-time witness of the MPR note (misses at t = 3 on one processor): m = 1 is bar.
        pytest.param(bar_int, BAR_INT, [(2, 3, 11), (3, 3, 6)], 1, False, id="bar-int-integer-witness-m1"),
        # Dhall's effect: exact rejects, so must we.
        pytest.param(bar_int, BAR_INT, [(2, 6, 6), (2, 6, 6), (6, 7, 7)], 2, False, id="bar-int-dhall"),
        # U = m: the A_k bound needs U < m (precondition), not proven.
        pytest.param(bar_int, BAR_INT, [(2, 3, 3)] * 3, 2, False, id="bar-int-U-equals-m"),
        # papers/bar-int.md worked example 2 (bar-int accepts, bar does not, exact confirms).
        pytest.param(bar_int, BAR_INT, [(1, 1, 2), (1, 2, 2), (1, 2, 2)], 2, True, id="bar-int-note-example-2"),
    ],
)
def test_worked_cases(module, entry, tasks, m, expected):
    ts = TaskSet.from_tasks(tasks)
    assert module.reference(ts, m) is expected
    assert one(ts, m, module.DEFAULT_BUDGET, entry) == int(expected)
    assert entry.explain(ts, m).verdict is expected


def test_worked_example_evidence():
    ts = TaskSet.from_tasks([(2, 3, 3)] * 3)
    lhs, rhs, I1, I_diff = bar.condition_8(ts, 3, 0, 0)
    assert (lhs, rhs, I1, I_diff) == (4, 3, [0, 2, 2], [0, 0, 0])
    res = BAR.explain(ts, 3)
    assert res.evidence["A_k"] == 0 and res.evidence["task"] == 0
    assert res.evidence["lhs"] == 4 and res.evidence["rhs"] == 3


def test_eq9_bound_by_hand():
    # (1,5,10), (2,8,12), (3,20,20), m = 2: U = 5/12, C_Σ = 3, Σ(T−D)U = 1/2 + 2/3 = 7/6.
    ts = TaskSet.from_tasks([(1, 5, 10), (2, 8, 12), (3, 20, 20)])
    b = bar.ak_bounds(ts, 2)
    mu = 2 - Fraction(5, 12)
    assert b[0] == (3 - 5 * mu + Fraction(7, 6) + 2) / mu


def test_schedcat_cases(schedcat_peer):
    """SchedCAT's Python and C++ BAR agree with us on every constrained-deadline verdict case."""
    for case, ts, peer in schedcat_peer("BAR", constrained=True, at_least=8):  # BAR: constrained deadlines only
        ours = bar.reference(ts, case["m"])
        assert ours == peer["BAR"] == peer["cpp:BAR"], case["case_id"]


@pytest.mark.parametrize(("module", "entry"), MODULE_AND_ENTRY)
@settings(max_examples=60)
@given(batch=rst.batches(max_sets=15, max_size=6, max_period=25), m=st.integers(1, 5))
def test_kernel_equals_reference(module, entry, batch, m):
    got = entry.decide(batch, m)
    want = [module.reference(ts, m) for ts in batch]
    np.testing.assert_array_equal(got, [CODE[v] for v in want])
    assert [entry.verdict(ts, m) for ts in batch] == want  # the serial one-set kernel


@pytest.mark.parametrize(("module", "entry"), MODULE_AND_ENTRY)
@settings(max_examples=40)
@given(batch=rst.batches(max_sets=8, max_size=6, max_period=25), m=st.integers(1, 4), budget=st.integers(1, 12))
def test_small_budgets_match_reference(module, entry, batch, m, budget):
    want = [CODE[module.reference(ts, m, budget)] for ts in batch]
    np.testing.assert_array_equal(entry.status(batch, m, budget), want)
    assert [CODE[entry.verdict(ts, m, budget)] for ts in batch] == want


@pytest.mark.parametrize(("module", "entry"), MODULE_AND_ENTRY)
def test_arbitrary_deadlines_are_refused(module, entry):
    ts = TaskSet.from_tasks([(1, 5, 4), (1, 3, 3)], deadlines="arbitrary")
    with pytest.raises(InputError):
        entry.status(TaskSetBatch.from_tasksets([ts]), 2)
    with pytest.raises(InputError):
        entry.verdict(ts, 2)


@st.composite
def full_load(draw):
    """Sets with U = m exactly (the precondition boundary) or one tick below it."""
    m = draw(st.integers(1, 4))
    p = draw(st.integers(2, 9))
    tasks = [(p, p, p)] * (m - 1) + [(p - draw(st.integers(0, 1)), p, p)]
    return TaskSet.from_tasks(tasks + [(1, p, p)] * draw(st.integers(0, 1))), m


@given(full_load())
def test_boundary_U_equals_m(case):
    ts, m = case
    want = bar.reference(ts, m)
    assert one(ts, m) == int(want)
    if ts.utilization >= m:
        assert want is False


@given(rst.tasksets(max_size=6, max_period=25), st.integers(1, 5))
def test_utilization_above_m_rejected(ts, m):
    if ts.utilization > m:
        assert bar.reference(ts, m) is False


@pytest.mark.parametrize(
    ("module", "entry", "explain", "tasks"),
    [
        pytest.param(bar, BAR, bar.explain, [(1, 3, 4), (2, 5, 5), (1, 3, 3)], id="bar"),
        pytest.param(bar_int, BAR_INT, BAR_INT.explain, [(1, 1, 2), (1, 2, 2), (1, 2, 2)], id="bar-int"),
    ],
)
def test_budget_exhaustion_is_unknown(module, entry, explain, tasks):
    ts = TaskSet.from_tasks(tasks)
    full = module.analyse(ts, 2)
    assert full.verdict is True and full.points > 1
    assert module.reference(ts, 2, budget=1) == "unknown"
    assert one(ts, 2, 1, entry) == -1
    res = explain(ts, 2, budget=1)
    assert res.verdict == "unknown" and "budget" in res.summary


def test_step_points_alone_are_not_enough():
    """SchedCAT tests (8) only where some dbf(τi, A_k + D_k) steps; in integer time that misses this set.

    For τ3 = (19, 22, 22) the step points are A_k = 0, 11, 17, ...; (8) holds at all of them
    up to Eq. (9) but fails at A_k = 3: τ0 and τ1 sit at their cap (κ = 2) while the carry-in
    terms of τ3 and τ4 grow, so LHS − RHS rises between steps. SchedCAT's BAR would accept
    (the set happens to be schedulable per the exact test, so this is about faithfulness to
    Condition (8), not a demonstrated unsoundness).
    """
    ts = TaskSet.from_tasks([(8, 15, 24), (13, 16, 17), (1, 18, 24), (19, 22, 22), (3, 19, 22)])
    m = 4
    lhs, rhs, _, _ = bar.condition_8(ts, m, 3, 3)
    assert (lhs, rhs) == (25, 24)
    bounds = bar.ak_bounds(ts, m)
    for k in range(ts.n):
        dk = int(ts.D[k])
        steps = {d + j * p - dk for _, d, p in ts.rows() for j in range(60)}
        for A in sorted(a for a in steps if 0 <= a <= bounds[k]):
            step_lhs, step_rhs, _, _ = bar.condition_8(ts, m, k, A)
            assert step_lhs <= step_rhs
    assert bar.reference(ts, m) is False
    assert one(ts, m) == 0


def _naive(module, condition, ts: TaskSet, m: int) -> bool:
    """The condition at every integer A_k in [0, ⌊bound⌋] (Eq. (9), or (9-int)) for every k: no
    skip rule, no order."""
    if ts.utilization >= m:
        return False
    for k, bound in enumerate(module.ak_bounds(ts, m)):
        for A in range(0, bound.__floor__() + 1):
            lhs, rhs, _, _ = condition(ts, m, k, A)
            if lhs > rhs:
                return False
    return True


@pytest.mark.parametrize(("module", "entry", "condition"), VARIANTS)
@settings(max_examples=150)
@given(ts=rst.tasksets(max_size=6, max_period=20), m=st.integers(2, 5))
def test_skip_rule_equals_every_integer_A(module, entry, condition, ts, m):
    """The skip rule (our derivation, papers/baruah2007.md, papers/bar-int.md) never skips a
    violating A_k."""
    assert module.reference(ts, m) is _naive(module, condition, ts, m)


def _shortcut_branches(module, ts: TaskSet, m: int) -> set[str]:
    """Which of the kernel's shortcuts (papers/baruah2007.md, "rtsched's kernel shortcuts") a set
    reaches, recomputed in exact arithmetic: a first-point rejection, or per task k of an
    accepted set the whole-range skip by J, by J*, or the walk."""
    cond = bar.condition_8 if module is bar else bar_int.condition
    order = bar.visiting_order(ts)
    if cond(ts, m, order[0], 0)[0] > cond(ts, m, order[0], 0)[1]:
        return {"first-point reject"}
    if module.reference(ts, m) is not True:
        return {"other"}
    rows = ts.rows()
    out = set()
    for k, bound in enumerate(module.ak_bounds(ts, m)):
        top = bound.__floor__()
        if top < 0:
            continue
        lhs, rhs, _, _ = cond(ts, m, k, 0)
        slack, t = rhs - lhs, int(ts.D[k])
        cap = t - int(ts.C[k]) + 1
        kappa = sum(1 for i, (c, d, p) in enumerate(rows) if i != k and ((t - d) // p + 1) * c > cap)
        gaps = [(d if t < d else d + ((t - d) // p + 1) * p) - t for _, d, p in rows]
        jumps = sum(((top - g) // p + 1) * c for g, (c, _, p) in zip(gaps, rows, strict=True) if g <= top)
        if max(kappa - 1, 0) * top + jumps <= slack:
            out.add("range skip by J")
            continue

        terms = [(g, c, Fraction(c, p)) for g, (c, _, p) in zip(gaps, rows, strict=True)]
        sup = max(
            (kappa - 1) * x + sum((c + u * (x - g) for g, c, u in terms if g <= x), Fraction(0))
            for x in [top] + [g for g in gaps if g <= top]
        )
        out.add("range skip by J*" if sup <= slack else "walk")
    return out or {"no A_k to test"}


@pytest.mark.parametrize(("module", "entry"), MODULE_AND_ENTRY)
def test_kernel_shortcuts_match_reference(module, entry, reach):
    """The kernel's first-point rejection and whole-range skip (rtsched's, papers/baruah2007.md)
    give the reference's verdicts; every branch must be reached (counted in ``reach``)."""

    @settings(max_examples=60)
    @given(
        batch=rst.batches(max_sets=10, min_size=3, max_size=8, min_period=5, max_period=80, max_utilization=2.5),
        m=st.integers(2, 4),
    )
    def prop(batch, m):
        want = [CODE[module.reference(ts, m)] for ts in batch]
        np.testing.assert_array_equal(entry.status(batch, m), want)
        for ts in batch:
            for branch in _shortcut_branches(module, ts, m):
                event(branch)
                reach[branch] += 1

    prop()
    assert reach["first-point reject"] > 0 and reach["range skip by J"] + reach["range skip by J*"] > 0, dict(reach)


@settings(max_examples=200)
@given(
    rows=st.lists(st.tuples(st.integers(1, 40), st.integers(1, 40), st.integers(1, 40)), min_size=1, max_size=24),
    t=st.integers(0, 500),
    span=st.integers(0, 120),
    kappa=st.integers(0, 3),
    slack=st.integers(0, 400),
)
def test_range_passes_is_the_exact_supremum(rows, t, span, kappa, slack):
    """The whole-range skip's J* check (rtsched's, papers/baruah2007.md, step 2) in float: a pass
    means the exact supremum of (κ − 1)·δ + J*(δ) over [0, span] is ≤ slack, and a supremum clearly
    below slack passes. Few distinct gaps g_i (1..40), so ties are common; n up to 24."""
    T = [p for p, _, _ in rows]
    C = [min(c, p) for p, c, _ in rows]
    gaps = [min(g, p) for p, _, g in rows]
    points = [span] + [g for g in gaps if g <= span]
    sup = max(
        (kappa - 1) * x
        + sum((c + Fraction(c, p) * (x - g) for c, p, g in zip(C, T, gaps, strict=True) if g <= x), Fraction(0))
        for x in points
    )
    size = abs(kappa - 1) * span + sum(c + Fraction(c, p) * span for c, p in zip(C, T, strict=True)) + slack + 1
    n = len(rows)
    passes = _bar_common._range_passes(
        np.array(C, dtype=np.int64),
        1.0 / np.array(T, dtype=np.float64),
        np.array([t + g for g in gaps], dtype=np.int64),
        n,
        t,
        span,
        kappa,
        slack,
        np.empty(n + 1, dtype=np.int64),
    )
    event("passes" if passes else "exact pass, float unsure" if sup <= slack else "fails")
    if passes:
        assert sup <= slack
    if sup <= slack - size / 10**6:
        assert passes


@pytest.mark.parametrize(
    ("module", "entry", "tasks", "m", "branch"),
    [
        # Found by a random search: every task with A_k to test takes the named branch.
        pytest.param(bar, BAR, [(3, 10, 19), (4, 13, 19), (2, 6, 6), (1, 11, 11), (1, 11, 23), (7, 23, 37)], 4,
                     "range skip by J", id="bar-J"),
        pytest.param(bar, BAR, [(1, 17, 20), (5, 16, 17), (2, 17, 39), (8, 11, 30)], 3, "range skip by J*", id="bar-Jstar"),
        pytest.param(bar, BAR, [(2, 20, 23), (3, 7, 11), (2, 4, 6), (4, 11, 12), (5, 13, 23)], 2, "walk", id="bar-walk"),
        pytest.param(bar_int, BAR_INT, [(4, 24, 27), (5, 5, 18), (5, 26, 34), (8, 23, 34)], 3, "range skip by J",
                     id="bar-int-J"),
        pytest.param(bar_int, BAR_INT, [(1, 6, 29), (1, 1, 5), (2, 3, 8), (7, 30, 40)], 3, "range skip by J*",
                     id="bar-int-Jstar"),
        pytest.param(bar_int, BAR_INT, [(3, 8, 9), (5, 5, 32), (2, 8, 24)], 3, "walk", id="bar-int-walk"),
    ],
)  # fmt: skip
def test_kernel_shortcut_branches(module, entry, tasks, m, branch):
    """Each branch of the whole-range skip on a set that takes only that branch: kernel == reference."""
    ts = TaskSet.from_tasks(tasks)
    assert _shortcut_branches(module, ts, m) == {branch}
    assert module.reference(ts, m) is True
    assert one(ts, m, entry=entry) == 1
    for budget in (1, 3, 10):  # small budgets: the reference's own search and work count
        assert one(ts, m, budget, entry) == CODE[module.reference(ts, m, budget)]
