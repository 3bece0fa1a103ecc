"""The optional per-task ``priority`` field of task-set files (issue 16, "Priorities").

Decisions tested here (see rtsched/io/__init__.py's module docstring): YAML/JSON/JSON lines task objects
take a ``priority`` key and CSV a ``priority`` column; text files have none (their fourth column
is the name) and use the order. A set with priorities is read reordered, highest priority
(smallest value) first, task names travelling with their tasks; writers never write the field.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rtsched import InputError, TaskSet
from rtsched.cli import main
from rtsched.io import FORMATS, dumps, loads, read_tasksets

#: File order: a (prio 3), b (prio 1), c (prio 2); priority order: b, c, a.
BY_PRIORITY = TaskSet.from_tasks([(1, 4, 4, "b"), (1, 6, 6, "c"), (1, 3, 4, "a")])

DOCS = {
    "yaml": (
        "tasks:\n"
        "  - {C: 1, D: 3, T: 4, name: a, priority: 3}\n"
        "  - {C: 1, D: 4, T: 4, name: b, priority: 1}\n"
        "  - C: 1\n    D: 6\n    T: 6\n    name: c\n    priority: 2\n"
    ),
    "json": (
        '{"tasks": [\n'
        '  {"C": 1, "D": 3, "T": 4, "name": "a", "priority": 3},\n'
        '  {"C": 1, "D": 4, "T": 4, "name": "b", "priority": 1},\n'
        '  {"C": 1, "D": 6, "T": 6, "name": "c", "priority": 2}\n'
        "]}\n"
    ),
    "jsonl": (
        '[{"C": 1, "D": 3, "T": 4, "name": "a", "priority": 3}, {"C": 1, "D": 4, "T": 4, "name": "b", '
        '"priority": 1}, {"C": 1, "D": 6, "T": 6, "name": "c", "priority": 2}]\n'
    ),
    "csv": "name,C,D,T,Priority\na,1,3,4,3\nb,1,4,4,1\nc,1,6,6,2\n",
}


@pytest.mark.parametrize("fmt", sorted(DOCS))
def test_each_format_reads_priorities_as_the_order(fmt: str) -> None:
    (ts,) = loads(DOCS[fmt], fmt)
    assert list(ts) == list(BY_PRIORITY)
    assert ts.names == ("b", "c", "a")
    assert ts.label(0) == "τ0 (b)"


def test_values_are_any_distinct_integers() -> None:
    doc = "[{C: 1, D: 5, T: 5, priority: +10}, {C: 1, D: 6, T: 6, priority: -3}, {C: 1, D: 7, T: 7, priority: 007}]"
    (ts,) = loads(doc, "yaml")
    assert ts.rows() == [(1, 6, 6), (1, 7, 7), (1, 5, 5)]
    (ts,) = loads('[{"C": 1, "D": 5, "T": 5, "priority": "2"}, {"C": 1, "D": 6, "T": 6, "priority": "1"}]', "json")
    assert ts.rows() == [(1, 6, 6), (1, 5, 5)]


def test_priorities_in_file_order_keep_the_set() -> None:
    (ts,) = loads("[{C: 1, D: 5, T: 5, name: x, priority: 1}, {C: 2, D: 6, T: 6, priority: 2}]", "yaml")
    assert ts == TaskSet.from_tasks([(1, 5, 5, "x"), (2, 6, 6)])


def test_priorities_are_per_set() -> None:
    doc = "tasksets:\n  - [[1, 5, 5], [1, 2, 2]]\n  - [{C: 1, D: 5, T: 5, priority: 2}, {C: 1, D: 2, T: 2, priority: 1}]\n"
    first, second = loads(doc, "yaml")
    assert first.rows() == [(1, 5, 5), (1, 2, 2)]
    assert second.rows() == [(1, 2, 2), (1, 5, 5)]
    csv = "set,C,D,T,priority\n0,1,5,5,2\n1,1,5,5,\n0,1,2,2,1\n1,1,2,2,\n"
    first, second = loads(csv, "csv")
    assert first.rows() == [(1, 2, 2), (1, 5, 5)]
    assert second.rows() == [(1, 5, 5), (1, 2, 2)]  # empty cells: no priorities, the order


def test_a_time_unit_scales_times_not_priorities() -> None:
    (ts,) = loads("[{C: 0.5, D: 2, T: 2, priority: 2}, {C: 0.5, D: 1, T: 1, priority: 1}]", "yaml", time_unit="0.5")
    assert ts.rows() == [(1, 2, 2), (1, 4, 4)]
    with pytest.raises(InputError, match="field priority: '1.5' is not an integer priority"):
        loads("[{C: 0.5, D: 2, T: 2, priority: 1.5}]", "yaml", time_unit="0.5")


def test_text_files_use_the_order_and_the_fourth_column_stays_the_name() -> None:
    (ts,) = loads("1 3 4 2\n1 4 4 1\n", "txt")
    assert ts.rows() == [(1, 3, 4), (1, 4, 4)]
    assert ts.names == ("2", "1")
    with pytest.raises(InputError, match="line 1, task 0: expected 'C D T' or 'C D T name', got 5 values"):
        loads("1 3 4 a 1\n", "txt")


# -- errors: file, line, task and field -----------------------------------------------------------
def error(text: str, fmt: str, **kw: str) -> InputError:
    with pytest.raises(InputError) as info:
        loads(text, fmt, source="f", **kw)
    return info.value


@pytest.mark.parametrize(
    ("fmt", "text", "line", "task"),
    [
        ("yaml", "- {C: 1, D: 3, T: 4, priority: 1}\n- [1, 4, 4]\n- {C: 1, D: 5, T: 5}\n", 2, 1),
        ("yaml", "- {C: 1, D: 3, T: 4}\n- {C: 1, D: 4, T: 4, priority: 1}\n", 1, 0),
        ("json", '[\n {"C": 1, "D": 3, "T": 4, "priority": 1},\n {"C": 1, "D": 4, "T": 4}\n]', 3, 1),
        ("jsonl", '[[1, 2, 3]]\n[{"C": 1, "D": 3, "T": 4, "priority": 1}, [1, 4, 4]]\n', 2, 1),
        ("csv", "C,D,T,priority\n1,3,4,1\n1,4,4,\n", 3, 1),
    ],
)
def test_mixing_is_an_error_naming_the_task(fmt: str, text: str, line: int, task: int) -> None:
    err = error(text, fmt)
    assert (err.file, err.line, err.task, err.field) == ("f", line, task, "priority")
    assert "has no priority but task" in str(err) and "\n" not in str(err)


@pytest.mark.parametrize(
    ("fmt", "text", "line", "other_line"),
    [
        (
            "yaml",
            "tasks:\n  - {C: 1, D: 3, T: 4, priority: 1}\n  - {C: 1, D: 4, T: 4, priority: 2}\n"
            "  - {C: 1, D: 5, T: 5,\n     priority: 1}\n",
            5,
            2,
        ),
        (
            "json",
            '[{"C": 1, "D": 3, "T": 4, "priority": 1},\n {"C": 1, "D": 4, "T": 4, "priority": 2},\n'
            ' {"C": 1, "D": 5, "T": 5, "priority": 01}]',
            3,
            1,
        ),
        ("csv", "C,D,T,priority\n1,3,4,1\n1,4,4,2\n1,5,5, +1\n", 4, 2),
    ],
)
def test_a_tie_is_an_error_naming_both_tasks(fmt: str, text: str, line: int, other_line: int) -> None:
    if fmt == "json":  # JSON has no leading zeros: write the tie as a string
        text = text.replace("01", '"01"')
    err = error(text, fmt)
    assert (err.file, err.line, err.task, err.field) == ("f", line, 2, "priority")
    assert f"priority 1 is also that of task 0 (line {other_line}); priorities must be distinct" in str(err)


def test_a_tie_in_a_many_set_file_names_the_set() -> None:
    err = error("set,C,D,T,priority\n0,1,2,2,1\n1,1,2,2,1\n1,1,3,3,1\n", "csv")
    assert (err.line, err.set_index, err.task, err.field) == (4, 1, 1, "priority")


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("1.5", "'1.5' is not an integer priority"),
        ("1e3", "'1e3' is not an integer priority"),
        ("true", "true is a boolean, not an integer priority"),
        ("null", "the value is missing"),
        ("'\u0661'", "write digits with the ASCII characters 0-9"),
        ("x", "'x' is not a number"),
        ("[1]", "expected an integer priority, got a list of 1 items"),
        ("'" + "9" * 101 + "'", "too long for a priority"),
    ],
)
def test_bad_values_are_located(value: str, message: str) -> None:
    text = f"- {{C: 1, D: 3, T: 4, priority: 1}}\n- {{C: 1, D: 4, T: 4,\n   priority: {value}}}\n"
    err = error(text, "yaml")
    assert (err.line, err.task, err.field) == (3, 1, "priority")
    assert message in str(err)


def test_list_tasks_with_a_fifth_value_get_a_hint() -> None:
    err = error("[[1, 2, 3, a, 1]]", "yaml")
    assert err.task == 0 and "priority: ..}" in str(err)


def test_model_errors_name_the_task_by_its_place_in_the_file() -> None:
    err = error("- {C: 1, D: 3, T: 4, priority: 2}\n- {C: 5, D: 4, T: 4, priority: 1}\n", "yaml")
    assert (err.line, err.task) == (2, 1) and err.field in ("C", "D")


def test_the_csv_header_names_the_column() -> None:
    assert "C,D,T[,name][,priority][,set]" in str(error("C,D,T,prio\n1,2,3,4\n", "csv"))


# -- writing: the order is the priority -----------------------------------------------------------
@pytest.mark.parametrize("source", sorted(DOCS))
@pytest.mark.parametrize("fmt", FORMATS)
def test_round_trip_keeps_the_priority_order(source: str, fmt: str) -> None:
    sets = loads(DOCS[source], source)
    text = dumps(sets, fmt)
    assert "priority" not in text.lower()
    back = loads(text, fmt)
    assert [list(ts) for ts in back] == [list(ts) for ts in sets] == [list(BY_PRIORITY)]


def test_read_from_files_with_the_streaming_counters(tmp_path: Path) -> None:
    for fmt, text in DOCS.items():
        path = tmp_path / f"p.{fmt}"
        path.write_text(text, encoding="utf-8")
        assert [list(ts) for ts in read_tasksets(path)] == [list(BY_PRIORITY)]


# -- the verdict follows the file's priorities ----------------------------------------------------
#: Schedulable by uni-rta only with "urgent" (D = 3) above "slow": DM order.
SLOW_FIRST_IN_FILE = [(3, 10, 10, "slow"), (2, 3, 10, "urgent")]


def write_with_priorities(path: Path, priorities: tuple[int, int]) -> None:
    fmt = path.suffix.lstrip(".")
    if fmt == "csv":
        rows = "".join(
            f"{c},{d},{t},{nm},{p}\n" for (c, d, t, nm), p in zip(SLOW_FIRST_IN_FILE, priorities, strict=True)
        )
        path.write_text("C,D,T,name,priority\n" + rows, encoding="utf-8")
        return
    tasks = [
        f'{{"C": {c}, "D": {d}, "T": {t}, "name": "{nm}", "priority": {p}}}'
        for (c, d, t, nm), p in zip(SLOW_FIRST_IN_FILE, priorities, strict=True)
    ]
    path.write_text("[" + ", ".join(tasks) + "]\n", encoding="utf-8")


def check(capsys: pytest.CaptureFixture[str], path: Path, *extra: str) -> tuple[int, str]:
    capsys.readouterr()
    status = main(["check", str(path), "-m", "1", "--tests", "uni-rta", *extra])
    return status, capsys.readouterr().out


@pytest.mark.parametrize("fmt", ["yaml", "json", "jsonl", "csv"])
def test_check_gives_the_verdict_of_the_file_priorities(capsys, tmp_path: Path, fmt: str) -> None:
    path = tmp_path / f"dm.{fmt}"
    write_with_priorities(path, (2, 1))  # urgent above slow: deadline-monotonic
    status, out = check(capsys, path)
    assert status == 0 and "schedulable" in out and "NOT" not in out
    write_with_priorities(path, (1, 2))  # slow above urgent: the reverse
    status, out = check(capsys, path)
    assert status == 1 and "NOT schedulable" in out and "τ1 (urgent) misses" in out
    status, out = check(capsys, path, "--priorities", "dm")  # an assignment overrides the file's
    assert status == 0


def test_check_reports_a_tie_with_status_2(capsys, tmp_path: Path) -> None:
    path = tmp_path / "tie.csv"
    write_with_priorities(path, (4, 4))
    capsys.readouterr()
    status = main(["check", str(path), "-m", "1", "--tests", "uni-rta"])
    err = capsys.readouterr().err
    assert status == 2 and "Traceback" not in err and err.count("\n") == 1
    assert f"{path}, line 3, task 1, field priority: priority 4 is also that of task 0 (line 2)" in err
