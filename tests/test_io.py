"""Tests of rtsched.io: round trips, format detection, stdin, time units, atomic writes, errors."""

from __future__ import annotations

import io
import os
import string
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rtsched import InputError, TaskSet
from rtsched.io import FORMATS, detect_format, dumps, loads, read_taskset, read_tasksets, write_tasksets

NAMED = TaskSet.from_tasks([(1, 3, 4, "camera"), (2, 5, 5), (1, 10, 20, "brake")], name="car")
PLAIN = TaskSet.from_tasks([(1, 2, 3), (2, 7, 9)])
ARBITRARY = TaskSet.from_tasks([(2, 9, 4), (1, 3, 3)], deadlines="arbitrary")
KEEPS_SET_NAMES = ("yaml", "json", "jsonl")


def tasks_of(sets: list[TaskSet]) -> list[list[tuple[int, int, int, str | None]]]:
    """Rows and task names, what every format keeps."""
    return [[tuple(task) for task in ts] for ts in sets]


def assert_round_trip(sets: list[TaskSet], fmt: str, **kw: str) -> None:
    back = loads(dumps(sets, fmt), fmt, **kw)
    assert tasks_of(back) == tasks_of(sets)
    if fmt in KEEPS_SET_NAMES:
        assert back == sets


def read_error(tmp_path, filename: str, content: str | bytes, **kw) -> str:
    """Write ``content`` to ``filename``, read it and return the error message."""
    path = tmp_path / filename
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    with pytest.raises(InputError) as info:
        read_tasksets(path, **kw)
    message = str(info.value)
    assert filename in message
    return message


# -- round trips ---------------------------------------------------------------------------------
@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("sets", [[PLAIN], [NAMED], [NAMED, PLAIN, NAMED]], ids=["plain", "named", "many"])
def test_round_trip(fmt, sets):
    assert_round_trip(sets, fmt)


@pytest.mark.parametrize("fmt", FORMATS)
def test_round_trip_arbitrary_deadlines(fmt):
    assert_round_trip([ARBITRARY, ARBITRARY], fmt, deadlines="arbitrary")
    with pytest.raises(InputError, match="constrained-deadline"):
        loads(dumps(ARBITRARY, fmt), fmt)


@pytest.mark.parametrize("fmt", FORMATS)
def test_file_round_trip(tmp_path, fmt):
    path = tmp_path / f"sets.{fmt}"
    write_tasksets(path, [NAMED, PLAIN])
    assert tasks_of(read_tasksets(path)) == tasks_of([NAMED, PLAIN])
    write_tasksets(path, PLAIN)
    assert tasks_of([read_taskset(path)]) == tasks_of([PLAIN])


def test_dumps_layout():
    assert dumps(PLAIN, "txt") == "1 2 3\n2 7 9\n"
    assert dumps([PLAIN, PLAIN], "txt") == "1 2 3\n2 7 9\n---\n1 2 3\n2 7 9\n"
    assert dumps([PLAIN, NAMED], "csv").splitlines()[:2] == ["C,D,T,name,set", "1,2,3,,0"]
    assert dumps(PLAIN, "csv") == "C,D,T\n1,2,3\n2,7,9\n"
    assert dumps([PLAIN, PLAIN], "jsonl") == '{"tasks":[[1,2,3],[2,7,9]]}\n' * 2
    assert dumps(NAMED, "yaml").splitlines()[:3] == ["name: car", "tasks:", "- {C: 1, D: 3, T: 4, name: camera}"]
    assert dumps(NAMED, "json") == dumps([NAMED], "json")
    assert dumps([NAMED, PLAIN], "yaml") == dumps((NAMED, PLAIN), "yaml")  # deterministic, any sequence


def test_txt_cannot_write_names_with_whitespace():
    ts = TaskSet.from_tasks([(1, 2, 3), (1, 2, 3, "front camera")])
    with pytest.raises(InputError, match="txt format") as info:
        dumps([PLAIN, ts], "txt")
    assert (info.value.set_index, info.value.task, info.value.field) == (1, 1, "name")
    assert_round_trip([ts], "csv")


names = st.text(alphabet=string.ascii_letters + string.digits + "_-.", min_size=1, max_size=6)


@st.composite
def task_sets(draw):
    sets = []
    for _ in range(draw(st.integers(1, 4))):
        rows = []
        for _ in range(draw(st.integers(1, 8))):
            T = draw(st.integers(1, 1000))
            C = draw(st.integers(1, T))
            rows.append((C, draw(st.integers(C, T)), T, draw(st.none() | names)))
        sets.append(TaskSet.from_tasks(rows, name=draw(st.none() | names)))
    return sets


@settings(max_examples=60, deadline=None)
@given(task_sets())
def test_round_trip_property(sets):
    for fmt in FORMATS:
        back = loads(dumps(sets, fmt), fmt)
        assert [ts.rows() for ts in back] == [ts.rows() for ts in sets]
        assert tasks_of(back) == tasks_of(sets)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="0123456789 .,-#:[]{}\"'\n\tabCDTnametsk", max_size=60), st.sampled_from(FORMATS))
def test_garbage_raises_only_input_error(text, fmt):
    try:
        loads(text, fmt)
    except InputError:
        pass


# -- the one-set / many-sets rule ----------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "sizes"),
    [
        ("[[1, 2, 3], [1, 2, 3, 'x']]", [2]),  # a list of tasks: one set
        ("[{C: 1, D: 2, T: 3}]", [1]),
        ("[[[1, 2, 3]], [[1, 2, 3], [2, 3, 4]]]", [1, 2]),  # a list of lists of tasks: many sets
        ("[{tasks: [[1, 2, 3]]}, [[1, 2, 3]]]", [1, 1]),
        ("{tasksets: [[[1, 2, 3]], {name: b, tasks: [[1, 2, 3]]}]}", [1, 1]),
        ("{name: a, tasks: [[1, 2, 3], {C: 1, D: 2, T: 3}]}", [2]),
    ],
)
def test_one_set_or_many(text, sizes):
    assert [ts.n for ts in loads(text, "yaml")] == sizes


def test_names_and_numbers_are_kept_as_written():
    (ts,) = loads('{"name": "s", "tasks": [[3, 4, 5, "a"], {"C": "1000", "D": 1000, "T": +1000, "name": 7}]}', "yaml")
    assert ts.rows() == [(3, 4, 5), (1000, 1000, 1000)]
    assert (ts.name, ts.names) == ("s", ("a", "7"))
    assert loads("- [1, 2, 3, yes]\n", "yaml")[0].names == ("yes",)  # no YAML 1.1 surprise in names
    assert loads("[[3, 4, 5]]", "json")[0].rows() == [(3, 4, 5)]
    assert loads("3 4 5\n1000 +1000 01000 # comment\n", "txt")[0].rows() == [(3, 4, 5), (1000, 1000, 1000)]
    assert loads("c , T,D\n1,3,2\n", "csv")[0].rows() == [(1, 2, 3)]


# Integers are ASCII digits with an optional sign; every other spelling is refused, naming the field.
REFUSED_SPELLINGS = [
    ("1e3", "'1e3' is not an integer: .* \\(write 1000\\)"),
    ("1e1", "'1e1' is not an integer"),
    ("3.0", "'3.0' is not an integer: .* \\(write 3\\)"),
    ("1E+2", "'1E\\+2' is not an integer"),
    ("1e40010", "'1e40010' is not an integer"),
    ("1e99999999999", "'1e99999999999' is not an integer"),
    ("1_000", "'1_000' is not a number: write it without '_'"),
    ("\u0661\u0662", "'\u0661\u0662' is not a number: write digits with the ASCII characters 0-9"),
    ("\uff11\uff12", "'\uff11\uff12' is not a number: write digits with the ASCII characters 0-9"),
    ("1:30", "'1:30' is not a number"),
    ("0o17", "'0o17' is not a number"),
]


@pytest.mark.parametrize(
    ("fmt", "template"),
    [("txt", "{} 20 30"), ("csv", "C,D,T\n{},20,30"), ("yaml", "[[{}, 20, 30]]"), ("json", '[["{}", 20, 30]]')],
)
@pytest.mark.parametrize(("spelling", "message"), REFUSED_SPELLINGS, ids=[s for s, _ in REFUSED_SPELLINGS])
def test_integer_spellings_other_than_ascii_digits_are_refused(fmt, template, spelling, message):
    with pytest.raises(InputError, match=rf"^<string>, line \d, task 0, field C: {message}") as info:
        loads(template.format(spelling), fmt)
    assert "\n" not in str(info.value)


def test_json_exponents_and_fractions_are_refused_without_a_unit():
    with pytest.raises(InputError, match="field T: '1E5' is not an integer"):
        loads("[[1, 2, 1E5]]", "json")
    with pytest.raises(InputError, match="field D: '2.0' is not an integer"):
        loads("[[1, 2.0, 3]]", "json")


def test_real_spellings_with_a_unit():
    assert loads("1e-3 2.0e-3 3/1000\n", "txt", time_unit="0.001")[0].rows() == [(1, 2, 3)]
    assert loads("[[0.5, 1, 1.5]]", "json", time_unit="1/2")[0].rows() == [(1, 2, 3)]
    with pytest.raises(InputError, match="field C: '1e40010' has an exponent beyond"):
        loads("1e40010 2 3", "txt", time_unit="0.5")
    with pytest.raises(InputError, match="field T: 1e50 is too large: at most 2147483647 ticks of 0.5"):
        loads("1 2 1e50", "txt", time_unit="0.5")
    with pytest.raises(InputError, match="field C: '1_0' is not a number"):
        loads("1_0 20 30", "txt", time_unit="1")
    for bad in ("1e-999999999", "1" * 200, "\uff11", "1/0"):
        with pytest.raises(InputError, match="invalid time unit"):
            loads("1 2 3", "txt", time_unit=bad)


def test_csv_set_numbers_are_ascii_integers():
    with pytest.raises(InputError, match="line 2, field set: '\u0661' is not an integer set number"):
        loads("C,D,T,set\n1,2,3,\u0661\n", "csv")
    with pytest.raises(InputError, match="line 2, field set: '99999.*\\.\\.\\.' is not an integer set number"):
        loads("C,D,T,set\n1,2,3," + "9" * 5000 + "\n", "csv")


@pytest.mark.parametrize(
    ("fmt", "text"), [("yaml", "[[0x10, 20, 30]]"), ("txt", "0x10 20 30"), ("csv", "C,D,T\n0x10,20,30")]
)
def test_hex_is_refused_in_every_format(fmt, text):
    with pytest.raises(InputError, match="'0x10' is not a number"):
        loads(text, fmt)


def test_csv_set_column_and_txt_separator():
    sets = loads("set,C,D,T\n5,1,2,3\n2,1,2,3\n5,2,4,4\n", "csv")
    assert [ts.rows() for ts in sets] == [[(1, 2, 3), (2, 4, 4)], [(1, 2, 3)]]
    sets = loads("# two sets\n1 2 3\n--- # next\n\n2 3 4 b\n", "txt")
    assert tasks_of(sets) == [[(1, 2, 3, None)], [(2, 3, 4, "b")]]


def test_jsonl_skips_blank_lines():
    sets = loads('[[1, 2, 3]]\n\n  \n{"name": "b", "tasks": [[2, 3, 4]]}\n', "jsonl")
    assert [ts.name for ts in sets] == [None, "b"]


def test_crlf_and_bom(tmp_path):
    path = tmp_path / "w.csv"
    path.write_bytes(b"\xef\xbb\xbfC,D,T\r\n1,2,3\r\n2,1,3\r\n")
    with pytest.raises(InputError, match="line 3, task 1, field C"):
        read_tasksets(path)


# -- formats, stdin, time units, writing ---------------------------------------------------------
@pytest.mark.parametrize(
    ("name", "fmt"),
    [
        ("a.yaml", "yaml"),
        ("a.YML", "yaml"),
        ("x/a.json", "json"),
        ("a.jsonl", "jsonl"),
        ("a.ndjson", "jsonl"),
        ("a.csv", "csv"),
        ("a.txt", "txt"),
    ],
)
def test_detect_format(name, fmt):
    assert detect_format(name) == fmt


@pytest.mark.parametrize("name", ["tasks.dat", "tasks", "-"])
def test_detect_format_unknown(name):
    with pytest.raises(InputError, match="give the format") as info:
        detect_format(name)
    assert (name if name != "-" else "<stdin>") in str(info.value)


def test_unknown_format_name():
    with pytest.raises(InputError, match="unknown format 'xml'"):
        loads("1 2 3", "xml")


def test_stdin(monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO("1 2 3\n2 3 4\n"))
    assert read_taskset("-", format="txt").rows() == [(1, 2, 3), (2, 3, 4)]
    monkeypatch.setattr(sys, "stdin", io.StringIO("1 2 x\n"))
    with pytest.raises(InputError, match=r"<stdin>, line 1, task 0, field T"):
        read_tasksets("-", format="txt")
    with pytest.raises(InputError, match="format of standard input"):
        read_tasksets("-")


def test_stdout(capsys):
    write_tasksets("-", PLAIN, format="txt")
    assert capsys.readouterr().out == "1 2 3\n2 7 9\n"


def test_time_unit():
    assert loads("0.5 1.5 2\n", "txt", time_unit="0.5")[0].rows() == [(1, 3, 4)]
    assert loads("[[0.001, 0.002, 0.004]]", "json", time_unit=0.001)[0].rows() == [(1, 2, 4)]
    with pytest.raises(InputError, match=r"line 2, task 1, field D: 1.25 is not a whole number of ticks of 0.5"):
        loads("1 2 3\n1 1.25 3\n", "txt", time_unit="0.5")
    for bad in ("abc", 0, "-1", True):
        with pytest.raises(InputError, match="invalid time unit"):
            loads("1 2 3", "txt", time_unit=bad)


def test_atomic_write_leaves_no_temp_files(tmp_path):
    path = tmp_path / "out.json"
    path.write_text("old")
    os.chmod(path, 0o640)
    write_tasksets(path, [NAMED, PLAIN])
    assert os.listdir(tmp_path) == ["out.json"]
    assert os.stat(path).st_mode & 0o777 == 0o640
    assert read_tasksets(path) == [NAMED, PLAIN]
    (tmp_path / "dir.json").mkdir()
    with pytest.raises(InputError, match="cannot write"):
        write_tasksets(tmp_path / "dir.json", PLAIN)
    with pytest.raises(InputError, match="txt format"):
        write_tasksets(tmp_path / "n.txt", TaskSet.from_tasks([(1, 2, 3, "a b")]))
    assert sorted(os.listdir(tmp_path)) == ["dir.json", "out.json"]


# -- malformed input: one case per class --------------------------------------------------------
@pytest.mark.parametrize(
    ("filename", "text", "expected"),
    [
        pytest.param("m.csv", "C,D\n1,2\n", "line 1, field T: missing column T", id="csv-missing-column"),
        pytest.param(
            "u.csv", "C,D,T,prio\n1,2,3,4\n", "line 1, field prio: unknown column 'prio'", id="csv-unknown-column"
        ),
        pytest.param("n.txt", "1 2 3\nabc 4 5\n", "line 2, task 1, field C: 'abc' is not a number", id="non-numeric"),
        pytest.param(
            "z.csv", "C,D,T\n1,2,3\n1,2,0\n", "line 3, task 1, field T: must be a positive integer, got 0", id="zero"
        ),
        pytest.param(
            "neg.yaml",
            "tasks:\n  - [1, 2, 3]\n  - C: 1\n    D: -2\n    T: 3\n",
            "line 4, task 1, field D: must be a positive integer, got -2",
            id="negative",
        ),
        pytest.param(
            "cd.json",
            '{"tasks": [\n  [1, 2, 3],\n  [3, 2, 4]\n]}',
            "line 3, task 1, field C: C = 3 exceeds D = 2",
            id="c-exceeds-d",
        ),
        pytest.param(
            "m.jsonl",
            "[[1, 2, 3]]\n[[[1, 2, 3]], [[1, 2, 3]]]\n",
            "line 2, task set 1: each line must hold exactly one task set",
            id="jsonl-line-with-many-sets",
        ),
    ],
)
def test_malformed_value(tmp_path, filename, text, expected):
    assert expected in read_error(tmp_path, filename, text)


def test_csv_row_length_and_set_value(tmp_path):
    assert "line 3: expected 3 cells" in read_error(tmp_path, "r.csv", "C,D,T\n1,2,3\n1,2\n")
    assert "line 2, field set: 'x' is not an integer" in read_error(tmp_path, "s.csv", "C,D,T,set\n1,2,3,x\n")


@pytest.mark.parametrize("fmt", FORMATS)
def test_empty_file(tmp_path, fmt):
    assert "the file is empty" in read_error(tmp_path, f"e.{fmt}", " \n\n")


@pytest.mark.parametrize(
    ("fmt", "text"), [("txt", "# only\n  # comments\n\n"), ("yaml", "# only a comment\n"), ("csv", "C,D,T\n")]
)
def test_file_without_tasks(tmp_path, fmt, text):
    assert "found no tasks" in read_error(tmp_path, f"c.{fmt}", text)


def test_d_exceeds_t(tmp_path):
    message = read_error(tmp_path, "dt.txt", "1 5 4\n")
    assert "line 1, task 0, field D: D = 5 exceeds T = 4" in message
    assert read_tasksets(tmp_path / "dt.txt", deadlines="arbitrary")[0].rows() == [(1, 5, 4)]


def test_value_too_large(tmp_path):
    message = read_error(tmp_path, "big.json", "[\n\t[1, 2, 3],\n\t[1, 2, 99999999999999999999]\n]")
    assert "line 3, task 1, field T: 99999999999999999999 is too large" in message
    assert "field T: '99999999999999999999'... is too long" in read_error(tmp_path, "long.txt", "1 2 " + "9" * 5000)


def test_set_without_tasks(tmp_path):
    assert "line 1: a task set needs at least one task" in read_error(tmp_path, "e.json", '{"tasks": []}')
    message = read_error(tmp_path, "e.jsonl", "[[1, 2, 3]]\n\n[]\n")
    assert "line 3, task set 1: a task set needs at least one task" in message
    assert "line 2, task set 1: a task set needs" in read_error(tmp_path, "e.txt", "1 2 3\n---\n---\n1 2 3\n")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("42", "line 1: expected a task set or a list of task sets, got the number 42"),
        ('"tasks"', "got the string 'tasks'"),
        ("[[1, 2, 3],\n [1, 2]]", "line 2, task 1: expected [C, D, T] or [C, D, T, name], got 2 values"),
        ('{"tasks": [\n  {"C": 1, "T": 2}]}', "line 2, task 0, field D: missing key 'D'"),
        ('{"tasks": {"C": 1}}', "line 1, field tasks: 'tasks' must be a list"),
        ('[[[1, 2, 3]],\n {"tasks": [[1, 2, 3], "x"]}]', "line 2, task set 1, task 1: expected a task"),
        ('{"tasks": [[1, 2, 3]],\n "tasks": [[1, 2, 3]]}', "line 2, field tasks: duplicate key 'tasks'"),
        ('{"tasksets": [], "x": 1}', "field x: unknown key 'x'"),
    ],
)
def test_wrong_json_structure(tmp_path, text, expected):
    assert expected in read_error(tmp_path, "s.json", text)


def test_invalid_json_syntax(tmp_path):
    assert "line 3: invalid JSON" in read_error(tmp_path, "bad.json", '{"tasks": [\n  [1, 2, 3],\n  [1, 2 3]\n]}')
    assert "line 2, task set 1: invalid JSON" in read_error(tmp_path, "bad.jsonl", "[[1, 2, 3]]\n[[1, 2, 3]\n")


def test_invalid_yaml_syntax(tmp_path):
    assert "line 3: invalid YAML" in read_error(tmp_path, "bad.yaml", "tasks:\n  - [1, 2, 3]\n - [1, 2, 3]\n")
    assert "aliases" in read_error(tmp_path, "alias.yaml", "- &t [1, 2, 3]\n- *t\n")


@pytest.mark.parametrize(
    ("filename", "text"), [("b.json", "[[1, 2, 3],\n [1, true, 3]]"), ("b.yaml", "- [1, 2, 3]\n- [1, yes, 3]\n")]
)
def test_boolean_value(tmp_path, filename, text):
    assert "line 2, task 1, field D:" in read_error(tmp_path, filename, text)
    assert "is a boolean, not a number" in read_error(tmp_path, filename, text)


@pytest.mark.parametrize(
    ("filename", "text"),
    [
        ("f.json", "[[1, 2, 3],\n [NaN, 2, 3]]"),
        ("f.yaml", "- [1, 2, 3]\n- [.inf, 2, 3]\n"),
        ("f.txt", "1 2 3\ninf 2 3\n"),
    ],
)
def test_nan_and_inf(tmp_path, filename, text):
    assert "line 2, task 1, field C:" in read_error(tmp_path, filename, text)
    assert "is not a finite number" in read_error(tmp_path, filename, text)


def test_non_integer_without_time_unit(tmp_path):
    message = read_error(tmp_path, "r.txt", "1 2 3\n1 2.5 3\n")
    assert "line 2, task 1, field D: 2.5 is not a whole number of ticks" in message
    assert "--time-unit 0.5" in message


@pytest.mark.parametrize(("line", "count"), [("1 2", 2), ("1 2 3 a b", 5)])
def test_txt_wrong_token_count(tmp_path, line, count):
    message = read_error(tmp_path, "t.txt", f"1 2 3\n---\n1 2 3\n{line}\n")
    assert f"line 4, task set 1, task 1: expected 'C D T' or 'C D T name', got {count} values" in message


def test_non_utf8_file(tmp_path):
    assert "line 2: the file is not UTF-8 text" in read_error(tmp_path, "l.txt", b"1 2 3\n1 2 3 caf\xe9\n")


def test_missing_file(tmp_path):
    with pytest.raises(InputError, match=r"nope\.yaml: cannot read the file: No such file"):
        read_tasksets(tmp_path / "nope.yaml")


def test_directory(tmp_path):
    (tmp_path / "d.txt").mkdir()
    with pytest.raises(InputError, match=r"d\.txt: cannot read the file"):
        read_tasksets(tmp_path / "d.txt")


def test_read_taskset_needs_exactly_one(tmp_path):
    path = tmp_path / "two.txt"
    path.write_text("1 2 3\n---\n1 2 3\n")
    with pytest.raises(InputError, match=r"two\.txt: expected one task set, found 2"):
        read_taskset(path)


def test_error_naming_a_task_whose_name_spans_lines_stays_on_one_line() -> None:
    """Found by the slow fuzz run: a quoted CSV name with line breaks went into the message."""
    from rtsched.errors import InputError
    from rtsched.io import loads

    text = 'set,T,C,D,name\r\n0,4,1,3,a\r\n1,9,22,7,"b, c\r\n0,5,2,5,\r\n"\r\n'
    with pytest.raises(InputError) as info:
        loads(text, "csv", source="<f>")
    message = str(info.value)
    assert "\n" not in message and "\r" not in message
    assert "field C" in message and "\\n" in message
