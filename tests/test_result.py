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
    report = check(ts, 2, tests=["gfb"])
    assert dict(report.skipped) == {}
