"""Large reports print in proportion (issue #46): the table computes evidence only where it is cheap.

A 2,000-task report took 5 s to check and 58 s to print, because the table's evidence column ran
every analysis's exact Python explanation (quadratic ones at seconds each). These tests count
the work printing does instead of timing it: the number of explanations run, and the terms the
references spend (:class:`rtsched.budget.Work`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from rtsched import TaskSet, budget, check
from rtsched.result import TABLE_EVIDENCE_SETS, TABLE_EVIDENCE_TASKS, LazyResult, Report, Result, table_evidence


def _taskset(n: int) -> TaskSet:
    rng = np.random.default_rng(n)
    T = rng.integers(1_000, 10_000, size=n)
    C = np.maximum(1, T // (4 * n))
    return TaskSet.from_tasks([(int(c), int(t), int(t)) for c, t in zip(C, T, strict=True)])


class _Counting:
    """An explain function that counts its calls (one per row whose evidence is computed)."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, ts: TaskSet, m: int) -> Result:
        self.calls += 1
        return Result("x", False, m, "sufficient", f"evidence over {ts.n} tasks")


def _report(n: int, explain: Callable[[TaskSet, int], Result], rows: int = 12) -> Report:
    ts = _taskset(n)
    results = [LazyResult(f"a{i}", False, 4, "sufficient", explain, ts, "global-edf") for i in range(rows)]
    return Report(ts, 4, tuple(results))


@pytest.mark.parametrize("n", [2, TABLE_EVIDENCE_TASKS])
def test_small_reports_print_every_rows_evidence(n: int) -> None:
    explain = _Counting()
    text = str(_report(n, explain))
    assert explain.calls == 12
    assert text.count(f"evidence over {n} tasks") == 12 and "not computed" not in text


@pytest.mark.parametrize("n", [TABLE_EVIDENCE_TASKS + 1, 2_000, 20_000])
def test_large_reports_print_without_running_explanations(n: int) -> None:
    """The work of printing does not grow with n: no explanation runs, and the text is as long."""
    explain = _Counting()
    report = _report(n, explain)
    text = str(report)
    assert explain.calls == 0
    assert "evidence of 12 analyses not computed" in text and f"n = {n} tasks" in text
    assert max(len(line) for line in text.splitlines()[1:]) <= 100  # the heading is as before
    assert len(text.splitlines()) == len(str(_report(TABLE_EVIDENCE_TASKS + 1, _Counting())).splitlines())
    html = report._repr_html_()  # a notebook's table: the same rule
    assert explain.calls == 0 and html.count("<tr>") == 1 + 12 and "not computed" in html


def test_evidence_on_request_and_already_computed_evidence_is_shown() -> None:
    explain = _Counting()
    report = _report(2_000, explain, rows=3)
    assert report["a1"].summary == "evidence over 2000 tasks"  # read by the caller: now free to show
    assert explain.calls == 1
    text = report.table()
    assert text.count("evidence over 2000 tasks") == 1 and "evidence of 2 analyses not computed" in text
    assert report.table(evidence=True).count("evidence over 2000 tasks") == 3 and explain.calls == 3
    again = _report(2_000, _Counting(), rows=2)
    with table_evidence(True):
        assert str(again).count("evidence over 2000 tasks") == 2
    assert "not computed" in str(_report(2_000, _Counting(), rows=2))
    assert "not computed" in _report(5, _Counting()).table(evidence=False)


def test_printing_a_real_large_report_spends_no_reference_work(monkeypatch: pytest.MonkeyPatch) -> None:
    """With real analyses: the verdicts come from the kernels; printing spends no Work term.

    Before the fix, printing this report ran bak's and bcl's exact explanations (1,000,000 terms
    each at n = 2,000, ~10 s of Python).
    """
    spent: list[int] = []
    original = budget.Work.spend

    def spend(self: Any, terms: int = 1) -> None:
        spent.append(terms)
        original(self, terms)

    ts = _taskset(2_000)
    report = check(ts, 8, tests="gfb,bak,bcl")
    monkeypatch.setattr(budget.Work, "spend", spend)
    text = str(report)
    assert spent == [] and "evidence of 3 analyses not computed" in text
    assert report.verdicts == {"gfb": True, "bak": report["bak"].verdict, "bcl": report["bcl"].verdict}


def test_cli_table_of_a_large_set_and_evidence_option(tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    from rtsched.cli import main

    path = tmp_path / "big.txt"
    ts = _taskset(500)
    path.write_text("".join(f"{int(c)} {int(d)} {int(t)}\n" for c, d, t in zip(ts.C, ts.D, ts.T, strict=True)))
    assert main(["check", str(path), "-m", "4", "--tests", "gfb"]) == 0
    out = capsys.readouterr().out
    assert "evidence of 1 analysis not computed: n = 500 tasks > 100" in out and "Σλ" not in out
    assert main(["check", str(path), "-m", "4", "--tests", "gfb", "--evidence"]) == 0
    out = capsys.readouterr().out
    assert "Σλ" in out and "not computed" not in out


@pytest.mark.parametrize("sets", [TABLE_EVIDENCE_SETS, TABLE_EVIDENCE_SETS + 1])
def test_cli_tables_of_a_large_file_and_evidence_option(
    sets: int, tmp_path: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue #45: a file of more than TABLE_EVIDENCE_SETS sets prints its tables' verdicts without
    computing one explanation (a 3,000-set file spent 33 s of 38 in them), then one line saying how
    to get the evidence; ``--evidence`` computes every row's."""
    import importlib

    from rtsched.cli import main

    checking = importlib.import_module("rtsched.check")  # the module (rtsched.check is also the function)
    path = tmp_path / "sets.jsonl"
    path.write_text("".join(f"[[1, {2 + i % 3}, 4], [2, 5, 6], [1, 7, 7]]\n" for i in range(sets)))
    explained: list[Any] = []
    real = checking._explain_on

    def counted(*args: Any) -> Any:
        explained.append(args)
        return real(*args)

    monkeypatch.setattr(checking, "_explain_on", counted)
    assert main(["check", str(path), "-m", "2", "--tests", "gfb,bcl"]) == 0
    out = capsys.readouterr().out
    many = sets > TABLE_EVIDENCE_SETS
    assert out.count("sufficient  schedulable") == 2 * sets  # every verdict is printed
    assert ("Σλ" in out) is not many and len(explained) == (0 if many else 2 * sets)
    note = f"(evidence not computed: {sets:,} task sets > {TABLE_EVIDENCE_SETS} in the file"
    assert (out.count(note) == 1 and out.rstrip().endswith("--explain shows it)")) if many else note not in out
    assert "evidence of" not in out  # no note per table
    explained.clear()
    assert main(["check", str(path), "-m", "2", "--tests", "gfb,bcl", "--evidence"]) == 0
    out = capsys.readouterr().out
    assert out.count("Σλ") == sets and len(explained) == 2 * sets and "not computed" not in out
    explain = _Counting()  # --evidence ended with main(): a large report's table is as before
    assert "not computed" in str(_report(TABLE_EVIDENCE_TASKS + 1, explain)) and explain.calls == 0


def test_a_report_table_says_why_its_evidence_is_missing() -> None:
    small, large = _report(5, _Counting()), _report(TABLE_EVIDENCE_TASKS + 1, _Counting())
    assert "not computed: not asked for;" in small.table(evidence=False)
    assert f"n = {TABLE_EVIDENCE_TASKS + 1} tasks > {TABLE_EVIDENCE_TASKS}" in large.table()
    assert "not computed" not in small.table(evidence=False, note=False)
    with table_evidence(False):
        assert "not computed: not asked for;" in str(small)


# -- the evidence of a verdict the explanation could not finish ------------------------------------


def _unknown_explanation(summary: str) -> Callable[[TaskSet, int], Result]:
    return lambda ts, m: Result("rta", "unknown", m, "sufficient", summary)


@pytest.mark.parametrize(
    ("summary", "reason"),
    [
        pytest.param(
            "unknown: reference work budget of 1000000 terms exhausted (rtsched.budget.REFERENCE_WORK) after 500 "
            "response-time evaluations",
            "reference work budget of 1000000 terms exhausted (rtsched.budget.REFERENCE_WORK) after 500 "
            "response-time evaluations",
            id="rta-work",
        ),
        pytest.param(
            "budget of 20 rounds exhausted before a fixed point (unknown)",
            "budget of 20 rounds exhausted before a fixed point",
            id="bcl-iter-rounds",
        ),
    ],
)
@pytest.mark.parametrize(
    ("verdict", "kind", "shown"),
    [(False, "sufficient", "not proven"), (True, "sufficient", "schedulable"), (False, "exact", "NOT schedulable")],
)
def test_an_explanation_that_ran_out_reads_as_the_kernels_verdict(
    summary: str, reason: str, verdict: bool, kind: str, shown: str
) -> None:
    """Issue #46: "unknown: budget exhausted…" stood beside the verdict "not proven"."""
    ts = _taskset(3)
    result = LazyResult("rta", verdict, 2, kind, _unknown_explanation(summary), ts, "global-edf")
    assert result.summary == f"{shown} (the kernel decided); evidence incomplete: the explanation stopped, {reason}"
    assert not result.summary.startswith("unknown") and "(unknown)" not in result.summary
    assert result.full().verdict is verdict


def test_rta_explanation_out_of_work_budget_agrees_with_the_verdict() -> None:
    """A real one: RTA's explanation with a tiny work budget on a set its kernel rejects."""
    from rtsched import analyses
    from rtsched.analyses.global_edf import rta

    ts = TaskSet.from_tasks([(2, 3, 3), (2, 3, 3), (2, 3, 3), (1, 7, 7), (3, 11, 11)])
    kernel = analyses.get("rta").verdict(ts, 2)
    assert kernel is False
    ran_out = rta.explain(ts, 2, work_budget=1)
    assert ran_out.verdict == "unknown" and ran_out.summary.startswith("unknown: ")

    def explain(t: TaskSet, m: int) -> Result:
        e = rta.explain(t, m, work_budget=1)
        return Result("rta", e.verdict, m, "sufficient", e.summary, e.evidence, e.per_task)

    text = str(Report(ts, 2, (LazyResult("rta", kernel, 2, "sufficient", explain, ts, "global-edf"),)))
    row = next(line for line in text.splitlines() if line.startswith("rta "))
    assert "not proven" in row and "not proven (the kernel decided); evidence incomplete" in row
    assert "unknown" not in row


# -- width: a terminal's table wraps its evidence (tables were up to 309 columns wide) --------------


@pytest.mark.parametrize("width", [60, 100, 140])
def test_table_wraps_evidence_to_a_width_without_losing_words(width: int) -> None:
    ts = TaskSet.from_tasks([(1, 4, 4, "sensor"), (2, 6, 6, "planner"), (3, 12, 12, "watchdog"), (2, 9, 10)])
    report = check(ts, 2)
    plain, wrapped = report.text(), report.text(width=width)
    assert max(len(line) for line in wrapped.splitlines()) <= max(width, 64 + 40)
    if width >= 100:
        assert max(len(line) for line in wrapped.splitlines()) <= width
    assert wrapped.split() == plain.split()  # the same words in the same order
    assert plain == str(report) and "\n " not in report.table()  # no width: one line per row


def test_cli_wraps_only_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    from rtsched.commands import _dag

    monkeypatch.setattr("sys.stdout", io.StringIO())
    assert _dag._terminal_width() is None  # a pipe or file: one line per row, for grep and scripts
