"""Result and Report: immutability, JSON, table and HTML rendering."""

from fractions import Fraction

import pytest

from rtsched import Result, TaskSet, check


def test_result_rejects_bad_verdict():
    with pytest.raises(ValueError, match="verdict"):
        Result("x", "maybe", 1, "sufficient", "s")  # type: ignore[arg-type]


def test_result_is_deeply_immutable():
    r = Result("x", True, 2, "sufficient", "ok", {"a": [1, 2]}, [{"task": 0}])
    assert r.evidence["a"] == (1, 2)
    with pytest.raises(TypeError):
        r.per_task[0]["task"] = 1  # type: ignore[index]
    with pytest.raises(AttributeError):
        r.verdict = False  # type: ignore[misc]


def test_unknown_is_not_schedulable():
    r = Result("x", "unknown", 2, "sufficient", "budget exhausted")
    assert not r.schedulable
    assert r.to_dict()["verdict"] == "unknown"
    assert Result("y", True, 2, "necessary", "not refuted").schedulable is False


def test_report_table_html_json():
    ts = TaskSet.from_tasks([(1, 3, 3, "a"), (1, 3, 3, "b")], name="pair")
    report = check(ts, 2, tests=["gfb"])
    text = str(report)
    assert "pair" in text and "gfb" in text and "global-edf: schedulable" in text
    html = report._repr_html_()
    assert "<table>" in html and "gfb" in html
    d = report.to_dict(index=3, explain=True)
    assert d["index"] == 3 and d["verdicts"] == {"gfb": True}
    assert d["results"][0]["evidence"]["total_density"] == "2/3"
    assert report["gfb"].evidence["total_density"] == Fraction(2, 3)


def test_report_lists_skipped_analyses():
    ts = TaskSet.from_tasks([(1, 3, 3)])
    # Nothing is skipped when every named analysis applies ...
    assert dict(check(ts, 2, tests=["gfb"]).skipped) == {}
    # ... a named analysis that does not apply to the platform is listed with its reason, not run ...
    report = check(ts, 2, tests=["gfb", "uni-qpa"])
    assert dict(report.skipped) == {"uni-qpa": "uniprocessor analysis (m must be 1)"}
    assert list(report.verdicts) == ["gfb"]
    assert [r.analysis for r in report] == ["gfb"] and len(report) == 1
    assert "gfb" in report and "uni-qpa" not in report
    assert "uni-qpa" in str(report) and "m must be 1" in str(report)
    # ... and the default list skips exact on a set beyond its cheap-size rule, saying how to run it.
    big = TaskSet.from_tasks([(1, 3, 3), (2, 5, 40), (3, 17, 30), (4, 29, 31), (1, 7, 9), (2, 11, 13)])
    skipped = dict(check(big, 2).skipped)
    assert "exact" in skipped and "tests=" in skipped["exact"]
    assert "exact" not in check(big, 2).verdicts


def test_count_agrees_in_number():
    from rtsched.result import count

    assert [count(1, "unit"), count(0, "unit"), count(3, "unit")] == ["1 unit", "0 units", "3 units"]
    assert [count(1, "analysis", "analyses"), count(8, "analysis", "analyses")] == ["1 analysis", "8 analyses"]


def test_show_number_writes_an_exact_value_without_padding_zeros():
    """A fixed format (BAK's and BCL's summaries use .4f) writes an exact value as its shortest
    decimal: 2.05 > 1.75, not 2.0500 > 1.7500 beside ≈1.429; a rounded value keeps its digits."""
    from fractions import Fraction

    from rtsched.result import show_number

    assert [show_number(Fraction(41, 20), ".4f"), show_number(Fraction(3, 2), ".4f")] == ["2.05", "1.5"]
    assert show_number(Fraction(2), ".4f") == "2" and show_number(Fraction(9, 7), ".4f") == "≈1.2857"
    assert show_number(Fraction(10**12 + 1, 10**12), ".4f") == "≈1.0000"  # not exact: the digits stay


def test_exact_style_marks_an_exact_decimal_with_equals():
    """With exact numbers, 41/20 is exactly 2.05: ``41/20 (= 2.05)``, not ``(≈2.0500)``; a
    rounded decimal keeps its ``≈``; a step does not repeat a fraction already in lowest terms."""
    from rtsched.result import Step, exact_numbers, show_number

    with exact_numbers():
        assert show_number(Fraction(41, 20), ".4f") == "41/20 (= 2.05)"
        assert show_number(Fraction(9, 7), ".4f") == "9/7 (≈1.2857)"
        assert str(Step("λ = 1/4 = {lam}", {"lam": Fraction(1, 4)})) == "λ = 1/4 (= 0.25)"
        assert str(Step("λ = 2/8 = {lam}", {"lam": Fraction(1, 4)})) == "λ = 2/8 = 1/4 (= 0.25)"
        assert str(Step("x = 11/4 = {v}", {"v": Fraction(1, 4)})) == "x = 11/4 = 1/4 (= 0.25)"
    assert str(Step("λ = 1/4 = {lam}", {"lam": Fraction(1, 4)})) == "λ = 1/4 = 0.25"


def test_per_task_table_is_aligned_and_readable():
    """The per-task table of ``str(result)``: one width per column, numbers right-aligned, a
    missing bound as ``—`` and a flag as yes/no (not ``None``/``True``)."""
    r = Result(
        "x", False, 2, "sufficient", "s", {},
        [{"task": 0, "response_time": None, "ok": False}, {"task": 10, "response_time": 125, "ok": True}],
    )  # fmt: skip
    lines = str(r).splitlines()[2:]
    assert lines == [
        "  task | response_time | ok",
        "  -----+---------------+----",
        "     0 |             — | no",
        "    10 |           125 | yes",
    ]


def test_show_pair_tells_close_sides_apart():
    """The two sides of a summary's comparison: four digits as the tables show them, more where
    four would print different values alike; equal values stay equal."""
    from rtsched.result import show_pair

    assert show_pair(Fraction(9, 7), Fraction(8, 7)) == ("≈1.286", "≈1.143")
    assert show_pair(Fraction(10001, 10000), Fraction(1)) == ("1.0001", "1")
    lhs, rhs = show_pair(Fraction(10**9 + 1, 10**9), Fraction(10**9 + 2, 10**9))
    assert lhs != rhs and Fraction(lhs) < Fraction(rhs)
    assert show_pair(Fraction(3, 2), Fraction(3, 2)) == ("1.5", "1.5")
