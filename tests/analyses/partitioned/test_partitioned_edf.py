"""Tests of the partitioned-EDF family (papers/partitioned-heuristics.md, papers/baruah-fisher2006.md)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from fractions import Fraction
from pathlib import Path
from unittest.mock import patch

import numpy as np
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from rtsched import analyses
from rtsched.analyses.partitioned import partitioned_edf
from rtsched.analyses.partitioned.partitioned_edf import (
    FAMILY_NAMES,
    PACKING_BUDGET,
    _parse,
    _run,
    assignments,
    pack,
    qpa_steps_for,
    task_order,
)
from rtsched.analyses.theory import edf_demand as dm
from rtsched.model import TaskSet, TaskSetBatch
from rtsched.result import exact_numbers
from rtsched.testing import strategies as rst

CASES = Path(__file__).parents[2] / "data" / "schedcat_cases.jsonl"  # see conftest.SCHEDCAT_CASES
FEATURED = ("p-edf", "baruah-fisher", "p:wf:density:qpa")


def _cases(kind: str) -> list[dict]:
    return [c for c in map(json.loads, CASES.read_text().splitlines()) if c["kind"] == kind]


def _bins(assignment: tuple[int | None, ...], k: int) -> list[list[int]]:
    bins: list[list[int]] = [[] for _ in range(k)]
    for i, b in enumerate(assignment):
        if b is not None:
            bins[b].append(i)
    return bins


# Periods with both ties (equal densities/utilizations) and boundary sums.
@st.composite
def tie_prone_sets(draw: st.DrawFn) -> TaskSet:
    rows = []
    for _ in range(draw(st.integers(1, 8))):
        T = draw(st.sampled_from([2, 3, 4, 5, 6, 8, 10, 12, 20]))
        C = draw(st.integers(1, max(1, T // 2)))
        D = draw(st.sampled_from([C, T, max(C, T // 2), draw(st.integers(C, T))]))
        rows.append((C, D, T))
    return TaskSet.from_tasks(rows)


@contextmanager
def qpa_routes() -> Iterator[list[str]]:
    """Record the route of every QPA admission the reference runs (papers/partitioned-heuristics.md).

    Its start (the relative deadline above the last one where Σ dbf* exceeds it, ⌈L_a⌉, or L_b)
    and its outcome; "above d_min" marks an acceptance by rtsched's exit h(t) ≤ e₁ where
    Zhang & Burns's h(t) ≤ d_min would have gone on.
    """
    seen: list[str] = []
    original = partitioned_edf.qpa_admission

    def recording(rows, first, last, steps, work=None):  # type: ignore[no-untyped-def]
        res = original(rows, first, last, steps, work)
        if any(d > last for _, d, _ in rows):
            start = "a relative deadline"
        else:
            start = "ceil(L_a)" if sum(Fraction(c, p) for c, _, p in rows) < 1 else "L_b"
        outcome = {True: "accepted", False: "refused"}.get(res[0], "unknown")  # type: ignore[call-overload]
        if res[0] is True and res[2] is not None and res[2] > min(d for _, d, _ in rows):
            outcome += " above d_min"
        seen.append(f"QPA admission from {start}: {outcome}")
        return res

    with patch.object(partitioned_edf, "qpa_admission", recording):
        yield seen


# -- worked cases ---------------------------------------------------------------------------


@pytest.mark.parametrize("case", _cases("binpack")[:4], ids=lambda c: c["case_id"])
def test_schedcat_binpack_known_example(case: dict) -> None:
    """Plain bin packing (capacity 10) as tasks (C = item, D = T = 10) with density admission.

    SchedCAT's best/worst fit measure remaining capacity exactly as ours (by size, ties to the
    lowest bin), so the assignments agree item for item.
    """
    fit = case["test"].split(".")[1].split("_")[0][0] + "f"  # next_fit -> nf, ...
    rows = [(x, case["capacity"], case["capacity"]) for x in case["items"]]
    res = pack(rows, case["bins"], fit, "input", "density")
    got = [[case["items"][i] for i in b] for b in _bins(res.assignment, res.processors)]
    got += [[]] * (case["bins"] - len(got))
    assert got == case["expected"]
    ts = TaskSet.from_tasks(rows)
    codes, assign = assignments(TaskSetBatch.from_tasksets([ts]), case["bins"], f"p:{fit}:input:density")
    assert assign.tolist() == [-1 if a is None else a for a in res.assignment]


_VERDICT_MAP = {"part:FFD-QPA": "p-edf", "part:FF-QPA": "p:ff:input:qpa", "part:FFD-DENSITY": "p:ff:density:density"}


def _schedcat_partitioned() -> list[object]:
    out = []
    for case in _cases("verdict"):
        for key, name in _VERDICT_MAP.items():
            if key in case.get("schedcat_computed", {}):
                out.append(
                    pytest.param(
                        case["tasks"], case["m"], name, case["schedcat_computed"][key], id=f"{case['case_id']}-{key}"
                    )
                )
    return out


@pytest.mark.parametrize(("tasks", "m", "name", "expected"), _schedcat_partitioned())
def test_schedcat_partitioned_verdicts(tasks: list[list[int]], m: int, name: str, expected: bool) -> None:
    """SchedCAT's first-fit(-decreasing) QPA/density verdicts (ties by input order there too)."""
    ts = TaskSet.from_tasks([tuple(t) for t in tasks], deadlines="arbitrary")
    entry = analyses.get(name)
    assert entry.reference(ts, m) is expected
    assert entry.status(TaskSetBatch.from_tasksets([ts]), m).tolist() == [int(expected)]
    assert entry.verdict(ts, m) is expected


def test_baruah_fisher_worked_example() -> None:
    """papers/baruah-fisher2006.md: τ = (2,4,6), (3,8,10), (4,9,12) on m = 2.

    On P0: τ0, τ1 pass (at t = 8: dbf*(τ0, 8) + dbf*(τ1, 8) = 2 + (4)/3 + 3 = 19/3 ≤ 8). Adding τ2
    at t = 9: 2 + 5/3 + 3 + 1/10·3 + 4 = 329/30 > 9, so τ2 goes to P1.
    """
    ts = TaskSet.from_tasks([(2, 4, 6), (3, 8, 10), (4, 9, 12)])
    res = analyses.get("baruah-fisher").explain(ts, 2)
    assert res.verdict is True
    assert res.evidence["assignment"] == (0, 0, 1)
    ok, why, t, value = dm.dbf_star_check([(2, 4, 6), (3, 8, 10), (4, 9, 12)])
    assert (ok, why, t, value) == (False, "dbf*", 9, Fraction(329, 30))
    with exact_numbers():  # the summary in exact fractions (--exact-numbers)
        fail = analyses.get("baruah-fisher").explain(ts, 1)
    assert fail.verdict is False
    assert "P0: dbf*(t=9) = 329/30" in fail.summary


@pytest.mark.parametrize(
    ("rows", "expected", "route"),
    [
        pytest.param([(1, 1, 10), (1, 2, 4), (2, 8, 12)], True, "a relative deadline: accepted above d_min", id="D-ok"),
        pytest.param([(4, 100, 100), (9, 13, 49), (4, 7, 7)], False, "a relative deadline: refused", id="D-miss"),
        pytest.param([(1, 13, 20), (12, 12, 15)], True, "ceil(L_a): accepted above d_min", id="La-ok"),
        pytest.param([(10, 10, 12), (3, 13, 23)], False, "ceil(L_a): refused", id="La-miss"),
        pytest.param([(4, 6, 6), (1, 2, 3)], True, "L_b: accepted", id="Lb-ok-d_min"),
        pytest.param([(4, 7, 10), (3, 5, 5)], True, "L_b: accepted above d_min", id="Lb-ok"),
        pytest.param([(3, 3, 4), (3, 6, 12)], False, "L_b: refused", id="Lb-miss"),
    ],
)
def test_qpa_admission_branches(rows: list[tuple[int, int, int]], expected: bool, route: str) -> None:
    """One set per start and exit of rtsched's QPA admission (papers/partitioned-heuristics.md):
    the exact uniprocessor verdict, and kernel == reference, budget left included, under every
    budget from 0 (all "unknown") to one that decides."""
    with qpa_routes() as seen:
        res = pack(rows, 1, "ff", "input", "qpa")
    assert f"QPA admission from {route}" in seen
    assert res.verdict is expected is dm.qpa_reference(rows)
    batch = TaskSetBatch.from_tasksets([TaskSet.from_tasks(rows)])
    steps = dm.DEFAULT_BUDGET
    for budget in range(80):
        codes, assign, left = _run(batch, 1, "ff", "input", "qpa", budget, steps)
        ref = pack(rows, 1, "ff", "input", "qpa", budget, qpa_steps=steps)
        assert codes[0] == (-1 if ref.verdict == "unknown" else int(ref.verdict)), budget
        assert assign.tolist() == [-1 if a is None else a for a in ref.assignment] and left[0] == ref.left, budget
    assert ref.verdict is expected


@pytest.mark.parametrize(
    ("rows", "m", "expected"),
    [
        pytest.param([(5, 5, 12), (1, 3, 4), (3, 4, 6)], 2, True, id="placed-elsewhere"),
        pytest.param([(7, 7, 20), (4, 8, 8), (5, 6, 8)], 2, False, id="fails"),
    ],
)
def test_refusal_cache(rows: list[tuple[int, int, int]], m: int, expected: bool) -> None:
    """papers/partitioned-heuristics.md, the refusal cache: τ1 misses on P0 at t = 8 (or 5), so
    τ2, which misses there too, is refused for free; kernel == reference, budget left included,
    under every budget from 0 up, and the explanation shows the reference's refusals."""
    log: list[tuple[int, tuple[tuple[int, str], ...], int | None]] = []
    res = pack(rows, m, "ff", "input", "qpa", placements=log)
    assert res.verdict is expected
    assert "where a task missed before" in log[2][1][0][1] and log[2][1][0][0] == 0
    ts = TaskSet.from_tasks(rows)
    batch = TaskSetBatch.from_tasksets([ts])
    for budget in range(40):
        codes, assign, left = _run(batch, m, "ff", "input", "qpa", budget, dm.DEFAULT_BUDGET)
        ref = pack(rows, m, "ff", "input", "qpa", budget, qpa_steps=dm.DEFAULT_BUDGET)
        assert codes[0] == (-1 if ref.verdict == "unknown" else int(ref.verdict)), budget
        assert assign.tolist() == [-1 if a is None else a for a in ref.assignment] and left[0] == ref.left, budget
    if not expected:
        refusals = analyses.get("p:ff:input:qpa").explain(ts, m).evidence["refusals"]
        assert refusals == tuple(f"P{b}: {why}" for b, why in res.refusals)


def test_explain_refusals_name_each_processor() -> None:
    ts = TaskSet.from_tasks([(3, 4, 4), (3, 4, 4), (3, 4, 4)])
    with exact_numbers():
        res = analyses.get("p-edf").explain(ts, 2)
    assert res.verdict is False
    assert res.evidence["failed_task"] == 2
    assert res.evidence["refusals"] == ("P0: U would be 3/2 (= 1.5) > 1", "P1: U would be 3/2 (= 1.5) > 1")
    ok = analyses.get("p-edf").explain(ts, 3)
    assert ok.verdict is True
    assert ok.evidence["assignment"] == (0, 1, 2)


def test_ties_are_broken_by_input_position() -> None:
    rows = [(1, 4, 4), (2, 8, 8), (1, 2, 8), (3, 12, 12)]  # densities 1/4, 1/4, 1/2, 1/4
    assert task_order(rows, "density") == [2, 0, 1, 3]
    assert task_order(rows, "utilization") == [0, 1, 3, 2]
    assert task_order(rows, "deadline") == [2, 0, 1, 3]
    # Equal loads: worst fit takes the lowest-index processor among the emptiest ones.
    res = pack([(1, 4, 4)] * 4, 3, "wf", "input", "qpa")
    assert res.assignment == (0, 1, 2, 0)
    res = pack([(1, 4, 4)] * 4, 3, "bf", "input", "qpa")
    assert res.assignment == (0, 0, 0, 0)


def test_registry_entries() -> None:
    names = analyses.names(featured_only=True)
    for name in FEATURED:
        assert name in names
        assert analyses.get(name).policy == "partitioned-edf"
        assert analyses.get(name).kind == "sufficient"
    member = analyses.get("p:nf:utilization:dbfstar")
    assert member.featured is False
    assert member.name == "p:nf:utilization:dbfstar"
    assert len(FAMILY_NAMES) == 48
    assert [analyses.get(name).order for name in FEATURED] == [0, 1, 2]


def test_one_budget_per_member() -> None:
    """The registry's one ``budget`` is the packing budget in demand terms; the QPA step cap of an
    admission is derived from it, and at the default it is the 10**6 steps it always was."""
    for name in (*FEATURED, "p:bf:input:density"):
        entry = analyses.get(name)
        assert entry.budget == PACKING_BUDGET == 10**8
        assert entry.budget_unit.startswith("demand terms per set")
    assert qpa_steps_for(PACKING_BUDGET) == dm.DEFAULT_BUDGET
    assert qpa_steps_for(1) == 1 and qpa_steps_for(250) == 2


def test_explanation_is_stamped_by_the_registry() -> None:
    ts = TaskSet.from_tasks([(3, 4, 4), (3, 4, 4), (3, 4, 4)])
    res = analyses.get("p:wf:density:qpa").explain(ts, 2, budget=5000)
    assert (res.analysis, res.m, res.kind, res.policy) == ("p:wf:density:qpa", 2, "sufficient", "partitioned-edf")
    assert res.verdict is False
    assert res.evidence["budget"] == 5000 and res.evidence["qpa_steps"] == 50


def test_no_other_analysis_is_imported() -> None:
    import ast

    from rtsched.analyses.partitioned import partitioned_edf

    tree = ast.parse(Path(partitioned_edf.__file__).read_text())
    imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    imported |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    analysis_modules = {m for m in imported if m.startswith("rtsched.analyses.")}
    # shared pieces only: private modules of its family, or the shared theory (analyses/theory/)
    shared = ("rtsched.analyses.theory", "rtsched.analyses.theory.")
    own = "rtsched.analyses.partitioned"  # its family package, for `from rtsched.analyses.partitioned import _packing`
    assert all(
        m.rsplit(".", 1)[1].startswith("_") or m.startswith(shared) or m == own for m in analysis_modules
    ), analysis_modules


# -- kernel == reference ------------------------------------------------------------------


def _check_kernel(name: str, sets: list[TaskSet], m: int, qpa_steps: int = dm.DEFAULT_BUDGET) -> None:
    fit, order, admission = _parse(name)
    batch = TaskSetBatch.from_tasksets(sets)
    codes, assign = assignments(batch, m, name, qpa_steps=qpa_steps)
    for s, ts in enumerate(sets):
        log: list[tuple[int, tuple[tuple[int, str], ...], int | None]] = []
        with qpa_routes() as seen:
            res = pack(ts.rows(), m, fit, order, admission, qpa_steps=qpa_steps, placements=log)
        for route in sorted(set(seen)):
            event(route)  # the QPA admission's starts and exits are reached (hypothesis statistics)
        if any("where a task missed before" in why for _, refusals, _ in log for _, why in refusals):
            event("refusal cache hit")
        lo, hi = int(batch.offsets[s]), int(batch.offsets[s + 1])
        assert codes[s] == (-1 if res.verdict == "unknown" else int(res.verdict)), (name, ts)
        assert assign[lo:hi].tolist() == [-1 if a is None else a for a in res.assignment], (name, ts)


@pytest.mark.parametrize("name", FAMILY_NAMES)
@settings(max_examples=6)
@given(
    sets=st.lists(st.one_of(tie_prone_sets(), rst.tasksets(max_size=8, max_period=1000)), min_size=1, max_size=8),
    m=st.integers(1, 4),
)
def test_kernel_equals_reference_every_member(name: str, sets: list[TaskSet], m: int) -> None:
    _check_kernel(name, sets, m)


@pytest.mark.parametrize("name", FEATURED)
@settings(max_examples=50)
@given(
    sets=st.lists(st.one_of(tie_prone_sets(), rst.tasksets(max_size=10, max_period=10**6)), min_size=1, max_size=10),
    m=st.integers(1, 5),
)
def test_kernel_equals_reference_featured(name: str, sets: list[TaskSet], m: int) -> None:
    _check_kernel(analyses.get(name).name, sets, m)


@pytest.mark.parametrize("name", [*FEATURED, "p:bf:utilization:qpa", "p:nf:input:dbfstar"])
@settings(max_examples=25)
@given(
    sets=st.lists(st.one_of(tie_prone_sets(), rst.tasksets(max_size=8, max_period=500)), min_size=1, max_size=5),
    m=st.integers(1, 3),
    budget=st.one_of(st.integers(1, 400), st.just(PACKING_BUDGET)),
)
def test_registry_paths_equal_the_reference(name: str, sets: list[TaskSet], m: int, budget: int) -> None:
    """The serial one-set kernel (``verdict``), the batch kernel (``status``) and the reference agree,
    also with registry budgets small enough to bind (a few QPA steps, a few hundred terms)."""
    entry = analyses.get(name)
    status = entry.status(TaskSetBatch.from_tasksets(sets), m, budget=budget).tolist()
    codes = {True: 1, False: 0, "unknown": -1}
    for s, ts in enumerate(sets):
        expected = entry.reference(ts, m, budget=budget)
        assert entry.verdict(ts, m, budget=budget) == expected, (name, ts, m, budget)
        assert status[s] == codes[expected], (name, ts, m, budget)


@settings(max_examples=20)
@given(sets=st.lists(tie_prone_sets(), min_size=1, max_size=6), qpa_steps=st.integers(0, 4))
def test_budget_unknown_agrees(sets: list[TaskSet], qpa_steps: int) -> None:
    """Tiny QPA step caps: "unknown" (never a False caused by the budget), same in kernel and reference."""
    _check_kernel("p:ff:input:qpa", sets, 2, qpa_steps)
    for ts in sets:
        verdict = pack(ts.rows(), 2, "ff", "input", "qpa", qpa_steps=qpa_steps).verdict
        if verdict is not True:
            full = pack(ts.rows(), 2, "ff", "input", "qpa").verdict
            assert verdict == "unknown" or full is False or full is True


# -- properties -----------------------------------------------------------------------------


@settings(max_examples=40)
@given(
    ts=st.one_of(tie_prone_sets(), rst.tasksets(max_size=8, max_period=200, deadlines="arbitrary")), m=st.integers(1, 4)
)
def test_every_bin_of_an_accepted_assignment_passes_qpa(ts: TaskSet, m: int) -> None:
    """Re-check each processor of every accepted packing independently with uni-qpa."""
    rows = ts.rows()
    for name in FAMILY_NAMES:
        fit, order, admission = _parse(name)
        res = pack(rows, m, fit, order, admission)
        if res.verdict is True:
            assert all(a is not None for a in res.assignment)
            for b in _bins(res.assignment, res.processors):
                assert dm.qpa_reference([rows[i] for i in b]) is True, (name, ts, b)


@settings(max_examples=40)
@given(ts=st.one_of(tie_prone_sets(), rst.tasksets(max_size=8, max_period=300)))
def test_on_one_processor_qpa_admission_equals_uni_qpa(ts: TaskSet) -> None:
    expected = dm.qpa_reference(ts.rows())
    for name in FAMILY_NAMES:
        fit, order, admission = _parse(name)
        if admission == "qpa":
            assert pack(ts.rows(), 1, fit, order, admission).verdict == expected, name


@settings(max_examples=30)
@given(ts=rst.tasksets(max_size=8, max_period=300), m=st.integers(1, 4))
def test_admission_strength(ts: TaskSet, m: int) -> None:
    """On one processor, density ⇒ dbf* ⇒ QPA (each admission test implies the next)."""
    rows = ts.rows()
    d = pack(rows, 1, "ff", "input", "density").verdict
    s = pack(rows, 1, "ff", "input", "dbfstar").verdict
    q = pack(rows, 1, "ff", "input", "qpa").verdict
    assert (not d or s) and (not s or q)


def test_check_shows_global_and_partitioned_side_by_side() -> None:
    import rtsched

    report = rtsched.check([(2, 3, 3), (2, 3, 3), (2, 3, 3)], m=3)
    verdicts = report.verdicts
    assert verdicts["p-edf"] is True
    assert verdicts["baruah-fisher"] is True
    assert "gfb" in verdicts
    assert "uni-qpa" not in verdicts  # m = 3


def test_many_processors_use_a_prefix() -> None:
    ts = TaskSet.from_tasks([(3, 4, 4)] * 3)
    codes, assign = assignments(TaskSetBatch.from_tasksets([ts]), 10**6, "p:wf:density:qpa")
    assert codes.tolist() == [1]
    assert assign.tolist() == [0, 1, 2]
    assert np.all(assign >= 0)


def _scratch(rows: list[tuple[int, int, int]]):
    """The packing kernel's workspace with ``rows`` (deadline order) in its scratch rows."""
    from rtsched.analyses.partitioned import _pedf_kernel as pk

    iw, fw = pk._workspace(len(rows))
    for j, (c, d, p) in enumerate(rows):
        iw[pk._I_SC, j], iw[pk._I_SD, j], iw[pk._I_ST, j] = c, d, p
        fw[pk._F_SINV, j] = 1.0 / p
    return iw, fw


def _dbfstar_excess(rows: list[tuple[int, int, int]], t: int) -> Fraction:
    return sum((c + Fraction(c * (t - d), p) for c, d, p in rows if d <= t), Fraction(0)) - t


@settings(max_examples=200)
@given(
    tasks=st.lists(
        st.tuples(st.integers(1, 12), st.integers(0, 12), st.sampled_from([2, 3, 4, 6, 8, 12, 24, 10**6 + 3])),
        min_size=1,
        max_size=6,
    ),
    pick=st.integers(0, 5),
    extra=st.integers(0, 30),
)
def test_dbfstar_point_is_the_exact_sign(tasks: list[tuple[int, int, int]], pick: int, extra: int) -> None:
    """The sweep's exact tie-break (_pedf_kernel._dbfstar_point, on the scratch rows in place) is
    the sign of Σ_{D_j ≤ t} dbf*(τ_j, t) − t computed in Fractions, at a deadline and past it."""
    from rtsched.analyses.partitioned import _pedf_kernel as pk

    rows = sorted(((min(c, p), min(c, p) + min(x, p - min(c, p)), p) for c, x, p in tasks), key=lambda r: r[1])
    t = rows[pick % len(rows)][1] + extra
    iw, fw = _scratch(rows)
    exact = _dbfstar_excess(rows, t)
    sign = pk._dbfstar_point(iw, fw, len(rows), t)
    assert (sign > 0) == (exact > 0), (rows, t, sign, exact)
    event("tie" if exact == 0 else "no tie")


@pytest.mark.parametrize(("rows", "t"), [([(1, 1, 2), (1, 2, 4)], 4), ([(1, 2, 2), (1, 2, 2)], 3)])
def test_dbfstar_point_rational_fallback(rows: list[tuple[int, int, int]], t: int) -> None:
    """Remainders summing to exactly t − S (an integer ≥ 1): the float sum cannot decide, so
    _dbfstar_point hands over to the exact rational sum (_dbfstar_exact). Both are exact ties
    (Σ dbf* = t), which the condition Σ dbf* ≤ t accepts."""
    from rtsched.analyses.partitioned import _pedf_kernel as pk
    from rtsched.kernels import SIGN_UNDECIDED

    S, F = 0, Fraction(0)
    for c, d, p in rows:
        q, r = divmod(t - d, p)
        qq, rr = divmod(c * r, p)
        S, F = S + c + c * q + qq, F + Fraction(rr, p)
    assert F == t - S >= 1 and dm.frac_vs_int(float(F), True, len(rows), t - S) == SIGN_UNDECIDED
    iw, fw = _scratch(rows)
    sign = pk._dbfstar_point(iw, fw, len(rows), t)
    assert sign == pk._dbfstar_exact(iw[pk._I_SC], iw[pk._I_SD], iw[pk._I_ST], len(rows), t, S)
    assert sign == 0 and _dbfstar_excess(rows, t) == 0
