"""Step-by-step derivations (Result.steps, ``rtsched check --explain --steps``): lazy, immutable,
and in agreement with each analysis's evidence."""

import json
import re
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rtsched import TaskSet, check
from rtsched.analyses.hierarchical.mpr import MPRInterface, sbf
from rtsched.cli import main
from rtsched.exercise import sbf_steps
from rtsched.registry import get
from rtsched.result import STEP_LIMIT, Result, Step, Steps, exact_numbers
from rtsched.testing.strategies import tasksets

small_sets = tasksets(max_size=5, max_period=20)


def test_step_shows_exact_values_in_both_styles():
    step = Step("x = {x}", {"x": Fraction(7, 12)})
    assert str(step) == "x = ≈0.5833"
    with exact_numbers():
        assert str(step) == "x = 7/12 (≈0.5833)"
    assert step.values["x"] == Fraction(7, 12)
    assert step.to_dict() == {"text": "x = ≈0.5833", "values": {"x": "7/12"}}
    assert str(Step("a set {1, 2}")) == "a set {1, 2}"  # no values: the text as is


def test_steps_are_lazy_immutable_and_bounded():
    calls = []

    def endless():
        calls.append(1)
        n = 0
        while True:
            yield Step("n = {n}", {"n": n})
            n += 1

    steps = Steps(endless)
    assert calls == [] and not steps.computed
    assert len(steps) == STEP_LIMIT + 1 and "left out" in str(steps[-1])
    assert calls == [1] and steps.computed
    list(steps)
    assert calls == [1]  # computed once
    with pytest.raises(TypeError):
        steps[0] = Step("x")  # type: ignore[index]


def test_check_does_not_compute_steps_until_read():
    ts = TaskSet.from_tasks([(1, 3, 3), (1, 4, 4)])
    result = check(ts, 2, tests=["gfb"])["gfb"]
    assert result.summary  # evidence computed ...
    assert not result.full().steps.computed  # ... steps not yet
    assert "Σ" in repr(result.full().steps) and result.full().steps.computed  # a REPL shows them
    assert len(result.steps) > 0


def _values(steps, key):
    return [s.values[key] for s in steps if key in s.values]


@settings(max_examples=40)
@given(small_sets)
def test_qpa_and_pda_steps_agree_with_evidence(ts):
    for name in ("uni-qpa", "uni-pda"):
        r = get(name).explain(ts, 1)
        last = str(r.steps[-1])
        if r.verdict is True:
            assert "schedulable" in last and "NOT" not in last
        elif r.verdict is False:
            assert "NOT schedulable" in last
            if "t" in r.evidence:  # a deadline miss (not U > 1): the witness of the evidence
                assert r.steps[-1].values["t"] == r.evidence["t"]
                assert r.steps[-1].values["h"] == r.evidence["h(t)"]
        if "L" in r.evidence:
            assert r.evidence["L"] in _values(r.steps, "L")


@settings(max_examples=40)
@given(tasksets(max_size=5, max_period=20, max_utilization=1.0))
def test_rta_steps_agree_with_response_times(ts):
    r = get("uni-rta").explain(ts, 1)
    found = [s.values["value"] for s in r.steps if "R = {value}" in s.text]
    known = [row["response_time"] for row in r.per_task if isinstance(row["response_time"], int)]
    if r.verdict is True:
        assert found == known
    elif r.verdict is False:
        assert found == known[: len(found)]
        assert f"{ts.label(r.evidence['failing_task'])} misses" in str(r.steps[-1])


@settings(max_examples=30)
@given(small_sets, st.integers(1, 4))
def test_gedf_steps_show_both_sides_of_the_evidence(ts, m):
    gfb = get("gfb").explain(ts, m)
    assert gfb.steps[-1].values == {"total": gfb.evidence["total_density"], "bound": gfb.evidence["bound"]}
    for name in ("bak", "bcl"):
        r = get(name).explain(ts, m)
        sides = [(s.values["lhs"], s.values["rhs"]) for s in r.steps if "lhs" in s.values]
        assert sides == [(row["lhs"], row["rhs"]) for row in r.per_task]
        holds = [": fails" not in str(s) for s in r.steps if "lhs" in s.values]
        assert holds == [row["holds"] for row in r.per_task]


def _text(steps):
    return "\n".join(str(s) for s in steps)


@settings(max_examples=25)
@given(
    small_sets, st.integers(1, 3), st.sampled_from(["p-edf", "p:wf:utilization:density", "p:bf:input:dbfstar", "p-fp"])
)
def test_packing_steps_give_the_evidence_assignment(ts, m, name):
    r = get(name).explain(ts, m)
    text = _text(r.steps)
    placed = {
        int(task): int(proc)
        for task, proc in re.findall(r"^τ(\d+) \(C[^\n]*\n(?:  P\d+ refuses[^\n]*\n)*  → P(\d+)", text, re.M)
    }
    assignment = r.evidence["assignment"]
    expected = {i: a for i, a in enumerate(assignment) if a is not None}
    assert placed == expected
    if r.verdict is True:
        assert text.endswith("schedulable")
    elif r.verdict is False:
        assert f"no processor admits {ts.label(r.evidence['failed_task'])}" in text


@pytest.mark.parametrize(("Pi", "Theta", "m_prime"), [(5, 3, 2), (6, 9, 3), (4, 8, 2), (7, 1, 1)])
def test_sbf_steps_end_with_the_library_values(Pi, Theta, m_prime):
    g = MPRInterface(Pi, Theta, m_prime)
    for t in range(0, 4 * Pi):
        steps = list(sbf_steps(g, t))
        assert steps[-2].values["sbf"] == sbf(Pi, Theta, m_prime, t)
        assert steps[-1].values["lsbf"] == g.lsbf(t)


def test_gedf_mpr_steps_reach_the_failing_point():
    ts = TaskSet.from_tasks([(2, 3, 3), (2, 3, 3), (2, 3, 3)])
    r = get("gedf-mpr").explain(ts, 2)
    if r.verdict is False and "demand" in r.evidence:
        assert r.steps[-2].values == {"dem": r.evidence["demand"], "sbf": r.evidence["supply"]}
    assert isinstance(r, Result) and len(r.steps) >= 2


def test_cli_explain_steps_text_and_json(capsys, tmp_path):
    f = tmp_path / "set.txt"
    f.write_text("2 3 6\n3 5 9\n2 6 15\n")
    assert main(["check", str(f), "-m", "1", "--tests", "uni-qpa", "--steps", "--exact-numbers"]) == 1
    out = capsys.readouterr().out
    assert "  steps:\n" in out and "t = 6: h(t) = 1·2 + 1·3 + 1·2 = 7 > t: deadline miss" in out
    assert main(["check", str(f), "-m", "1", "--tests", "uni-qpa", "--json", "--steps"]) == 1
    record = json.loads(capsys.readouterr().out)
    steps = record["results"][0]["steps"]
    assert steps[-1]["values"] == {"t": 6, "h": 7}
    assert main(["check", str(f), "-m", "1", "--tests", "uni-qpa", "--json"]) == 1
    assert "results" not in json.loads(capsys.readouterr().out)


@settings(max_examples=40)
@given(small_sets, st.integers(1, 4))
def test_bcl_iter_steps_raise_the_slacks_of_the_evidence(ts, m):
    """BCL-iter's steps (rtsched's derivation of its rounds): the raises they show end at the
    evidence's slacks, and the last step states the verdict."""
    r = get("bcl-iter").explain(ts, m)
    text = _text(r.steps)
    raised = {int(k): int(b) for k, _a, b in re.findall(r"τ(\d+) (\d+) → (\d+)", text)}
    assert raised == {row["task"]: row["slack"] for row in r.per_task if row["slack"] > 0}
    last = str(r.steps[-1])
    assert last.endswith({True: ": schedulable", False: "not proven"}.get(r.verdict, last)), text


@settings(max_examples=40)
@given(small_sets, st.integers(1, 4))
def test_gedf_rta_steps_end_at_the_response_times(ts, m):
    """RTA's steps: each task's last search ends at its response-time bound of the evidence (or
    above D_k where it has none); every search climbs from below."""
    r = get("rta").explain(ts, m)
    if r.verdict == "unknown":
        return
    last: dict[int, str] = {}
    for step in r.steps:
        found = re.match(r"\s+τ(\d+): R = ([\d → …]+)", str(step))
        if found:
            last[int(found[1])] = str(step)
            values = [int(v) for v in found[2].split(" → ") if v != "…"]
            assert values == sorted(values)
    if r.evidence["precheck_rejected"]:  # the pre-pass stops at the first task it cannot bound
        (k,) = r.evidence["failing_tasks"]
        assert "> D = " in last[k] and last[k].endswith("not proven") and max(last) == k
        return
    for row in r.per_task:
        line = last[row["task"]]
        if isinstance(row["response_time"], int):
            assert f"→ {row['response_time']} (fixed point" in line, line
        else:
            assert "> D = " in line, line
    assert str(r.steps[-1]).endswith(": schedulable" if r.verdict is True else "not proven")


@settings(max_examples=40)
@given(small_sets, st.integers(1, 4))
def test_gfp_steps_agree_with_the_evidence(ts, m):
    """Global FP (task order): gfp-bcl's steps give both sides of every row; gfp-da(-lc)'s give each
    task's bound; gfp-rta(-lc)'s searches end at the response times, or above D_k for the failing
    task; a proven set's last step says so."""
    r = get("gfp-bcl").explain(ts, m)
    sides = [(s.values["lhs"], s.values["rhs"]) for s in r.steps if "lhs" in s.values]
    assert sides == [(row["lhs"], row["rhs"]) for row in r.per_task]
    for name in ("gfp-da", "gfp-da-lc"):
        r = get(name).explain(ts, m)
        bounds = [int(b) for b in re.findall(r"⌋ = (\d+) [≤>] D_k", _text(r.steps))]
        assert bounds == [row["bound"] for row in r.per_task], name
    for name in ("gfp-rta", "gfp-rta-lc"):
        r = get(name).explain(ts, m)
        if r.verdict == "unknown":
            continue
        ends = {int(k): line for k, line in re.findall(r"τ(\d+): x = (.*)", _text(r.steps))}
        for row in r.per_task:
            if row["response_time"] is not None:
                assert ends[row["task"]].endswith(f"R_k = {row['response_time']} ≤ D_k = {row['deadline']}")
            else:
                assert "> D_k" in ends[row["task"]] and row["task"] == r.evidence["failing_task"]
    for name in ("gfp-bcl", "gfp-da", "gfp-da-lc", "gfp-rta", "gfp-rta-lc"):
        r = get(name).explain(ts, m)
        if r.verdict is True:
            assert str(r.steps[-1]).endswith("schedulable by G-FP in task order"), name
        elif r.verdict is False:
            assert "not proven" in str(r.steps[-1]), name


@settings(max_examples=40)
@given(tasksets(max_size=5, max_period=20, max_utilization=1.0))
def test_npedf_steps_check_the_deadlines_of_the_evidence(ts):
    """uni-npedf's steps: each deadline t < L with h(t) + B(t) against t; a failure is the
    evidence's t, h(t) and B(t); the last step states the verdict."""
    r = get("uni-npedf").explain(ts, 1)
    text = _text(r.steps)
    checks = [tuple(map(int, c)) for c in re.findall(r"t = (\d+): h = (\d+), B = (\d+)", text)]
    assert all(h + B <= t for t, h, B in checks[:-1])
    if r.verdict is False and "t" in r.evidence:
        assert checks[-1] == (r.evidence["t"], r.evidence["h(t)"], r.evidence["B(t)"])
        assert text.endswith("fails, not schedulable")
    elif r.verdict is True:
        assert text.endswith(": schedulable") and all(h + B <= t for t, h, B in checks)


@settings(max_examples=40)
@given(small_sets, st.integers(1, 4))
def test_load_steps_give_the_evidence_bound_and_outcome(ts, m):
    """LOAD's steps: λmax, μ and β equal the evidence's; a failure names its t and demand; a
    pass ends with the exact load ≤ β."""
    r = get("load").explain(ts, m)
    values = {key: value for step in r.steps for key, value in step.values.items()}
    evidence = r.evidence
    assert (values["lam"], values["mu"], values["beta"]) == (evidence["max_density"], evidence["mu"], evidence["bound"])
    last = str(r.steps[-1])
    if r.verdict is True:
        assert last.endswith("schedulable by global EDF")
        assert "load" not in evidence or values["load"] == evidence["load"]
    elif r.verdict is False and "t" in r.evidence:
        assert f"at t = {r.evidence['t']}: Σ dbf(t) = {r.evidence['demand']} >" in last
    elif r.verdict is False:
        assert last.endswith("not proven")


@settings(max_examples=40)
@given(small_sets, st.integers(1, 4))
def test_ffdbf_steps_narrow_to_the_evidence_interval(ts, m):
    """FF-DBF's steps: the lower and upper ends they raise and lower end at the evidence's σ
    interval; a proven set ends with its witness σ, a refused one with "not proven"."""
    r = get("ffdbf").explain(ts, m)
    if r.verdict == "unknown":
        return
    lows = [s.values["v"] for s in r.steps if "lower end raised" in s.text]
    highs = [s.values["v"] for s in r.steps if "upper end lowered" in s.text]
    assert lows == sorted(lows) and highs == sorted(highs, reverse=True)
    if lows:
        assert lows[-1] == r.evidence["sigma_low"]
    if highs:
        assert highs[-1] == r.evidence["sigma_high"]
    last = r.steps[-1]
    if r.verdict is True:
        assert last.values["sigma"] == r.evidence["sigma"] and str(last).endswith("schedulable by global EDF")
    else:
        assert str(last).endswith("not proven")


@settings(max_examples=40)
@given(tasksets(max_size=5, max_period=20, max_utilization=1.0, deadlines="implicit"), st.booleans())
def test_rm_bound_steps_end_with_the_verdict(ts, sort):
    """rm-ll, rm-hb (m = 1) and rm-us (m = 2): the steps give each U_i and end with the verdict;
    a set out of RM order is named as such by the uniprocessor bounds."""
    if sort:
        ts = TaskSet.from_tasks(sorted(ts.rows(), key=lambda row: row[2]))
    for name, m in (("rm-ll", 1), ("rm-hb", 1), ("rm-us", 2)):
        r = get(name).explain(ts, m)
        values = {key: value for step in r.steps for key, value in step.values.items()}
        assert [values[f"u{i}"] for i in range(ts.n)] == [Fraction(c, t) for c, _, t in ts.rows()]
        last = str(r.steps[-1])
        assert last.endswith("schedulable by RM" if m == 1 else "under RM-US") if r.verdict else "not proven" in last
        if m == 1 and not sort and r.evidence["rm_order"] is False:
            assert "not in rate-monotonic order" in str(r.steps[0])


@settings(max_examples=40)
@given(small_sets, st.integers(1, 4), st.sampled_from(["bar", "bar-int"]))
def test_bar_steps_give_the_bounds_and_the_failing_point(ts, m, name):
    """BAR and bar-int: the steps list every task's A_k bound as the evidence does, and a failure's
    (k, A_k) with both sides; the last step states the verdict."""
    r = get(name).explain(ts, m)
    values = {key: value for step in r.steps for key, value in step.values.items()}
    assert [values[f"b{i}"] for i in range(len(r.per_task))] == [row["A_k_bound"] for row in r.per_task]
    text = _text(r.steps)
    if r.verdict is False and "task" in r.evidence:
        e = r.evidence
        assert f"{ts.label(e['task'])} at A_k = {e['A_k']} " in text
        label = "(8)" if name == "bar" else "(8-int)"
        assert f" = {e['lhs']} > " in text and text.endswith(f" = {e['rhs']}: {label} fails, not proven")
    elif r.verdict is True:
        assert text.endswith("schedulable by global EDF")
    elif r.verdict is False:
        assert text.endswith("not proven")


@settings(max_examples=30, deadline=None)
@given(tasksets(max_size=4, max_period=12), st.integers(1, 3), st.sampled_from(["exact", "exact:index", "exact-gfp"]))
def test_exact_steps_replay_the_evidence_miss(ts, m, name):
    """The exact tests' steps: the search's size, and for a miss the evidence's release sequence
    replayed job by job up to the evidence's miss; the last step states the verdict."""
    r = get(name).explain(ts, m)
    last = str(r.steps[-1])
    if r.verdict is True:
        assert last.endswith(": schedulable")
    elif r.verdict is False and "miss_time" in r.evidence:
        assert last.startswith(f"t = {r.evidence['miss_time']}: {ts.label(r.evidence['miss_task'])} job ")
        assert last.endswith("not schedulable") and "the simulator replays it" in _text(r.steps)
    elif r.verdict is False:
        assert last.endswith("not schedulable")


@settings(max_examples=30, deadline=None)
@given(tasksets(max_size=4, max_period=30), st.integers(1, 3))
def test_gedf_upper_steps_say_which_test_decided(ts, m):
    """gedf-upper's steps: U against m, then the exact test or the simulated window, and a last
    step that agrees with the verdict (True is "not refuted", never "schedulable")."""
    r = get("gedf-upper").explain(ts, m)
    last = str(r.steps[-1])
    if r.verdict is False:
        assert last.endswith("not schedulable")
    elif r.evidence["exact"] is True:
        assert last == "exact: schedulable, so not refuted"
    else:
        assert last.startswith("no miss in the window: not refuted") and "first_miss" in r.evidence


def test_every_task_set_analysis_gives_steps():
    """Every registered task-set analysis explains itself step by step (`--steps`)."""
    from rtsched.platform import Identical
    from rtsched.registry import all_entries

    implicit = TaskSet.from_tasks([(1, 5, 5), (2, 9, 9), (3, 12, 12)])
    constrained = TaskSet.from_tasks([(1, 4, 5), (2, 7, 9), (3, 10, 12)])
    missing = []
    for entry in all_entries():
        if entry.input != "taskset":
            continue
        ran = False
        for m in (1, 2):
            for ts in (constrained, implicit):
                if entry.supports(Identical(m), ts.deadline_kind) is None and not ran:
                    ran = True
                    if len(entry.explain(ts, m).steps) == 0:
                        missing.append(entry.name)
        assert ran, entry.name
    assert missing == []


@settings(max_examples=30)
@given(small_sets, st.integers(1, 3), st.sampled_from(["p-edf", "p:wf:density:qpa", "p-fp"]), st.integers(1, 3))
def test_packing_steps_with_a_tiny_budget_end_with_the_verdict(ts, m, name, budget):
    """A packing that a work budget ends is "unknown" in its last step too (it read "not proven")."""
    r = get(name).explain(ts, m, budget=budget)
    last = str(r.steps[-1])
    if r.verdict == "unknown":
        assert last.endswith("unknown"), last
    elif r.verdict is False:
        assert last.endswith("(not proven schedulable)"), last
    else:
        assert last.endswith(": schedulable"), last
