"""Other tools' formats (SimSo, SchedCAT XML), `rtsched convert`, `check --csv` and plain records (issue 21)."""

import csv
import io
import itertools
import json
import random
import re
from pathlib import Path

import pytest
from hypothesis import given, settings

from rtsched import TaskSet, check
from rtsched.cli import main
from rtsched.errors import InputError
from rtsched.io import FORMATS, TOOL_FORMATS, dumps, loads, read_tasksets, simso_platform, sniff_xml
from rtsched.testing.strategies import tasksets

DATA = Path(__file__).resolve().parent / "data" / "interop"
SUFFIX = {"simso": ".simso.xml", "schedcat": ".schedcat.xml", "yaml": ".yaml", "txt": ".txt"}
SUFFIX.update({f: f".{f}" for f in ("json", "jsonl", "csv")})


def run(capsys, *args):
    status = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return status, out, err


# -- files written by hand from each tool's reader ----------------------------------------------


@pytest.mark.parametrize(
    ("name", "rows", "names"),
    [
        pytest.param(
            "gedf4.simso.xml",
            [(2, 8, 10), (5, 20, 20), (12, 30, 40)],
            ("TASK T1", "TASK T2", "TASK T3"),
            id="simso-gedf-ms-floats",
        ),
        # SimSo's FP runs the largest priority first: read highest priority first.
        pytest.param(
            "fp2.simso.xml", [(2, 10, 10), (10, 40, 50), (30, 100, 100)], ("high", "mid", "low"), id="simso-fp"
        ),
        # A SchedCAT task without deadline has D = T; ids are names; response_time and wss are ignored.
        pytest.param(
            "set.schedcat.xml", [(2, 8, 10), (5, 20, 20), (12, 30, 40)], ("1", "2", "3"), id="schedcat-taskset"
        ),
    ],
)
def test_hand_written_files(name, rows, names):
    (ts,) = read_tasksets(DATA / name)
    assert ts.rows() == rows
    assert ts.names == names


def test_schedcat_testpoint_is_several_sets():
    sets = read_tasksets(DATA / "testpoint.schedcat.xml")
    assert [ts.rows() for ts in sets] == [[(3, 10, 10), (5, 12, 15)], [(90, 100, 100)]]


def test_simso_platform_and_scheduler():
    text = (DATA / "gedf4.simso.xml").read_text()
    assert simso_platform(text)[:2] == (4, "global-edf")
    assert simso_platform((DATA / "fp2.simso.xml").read_text())[:2] == (2, "global-fp")


def test_plain_xml_is_told_by_its_root(tmp_path):
    for name, tool in [("gedf4.simso.xml", "simso"), ("set.schedcat.xml", "schedcat")]:
        text = (DATA / name).read_text()
        assert sniff_xml(text) == tool
        plain = tmp_path / f"{tool}.xml"
        plain.write_text(text)
        assert read_tasksets(plain) == read_tasksets(DATA / name)


def test_simso_rate_monotonic_orders_by_period():
    text = (DATA / "gedf4.simso.xml").read_text().replace("simso.schedulers.EDF", "simso.schedulers.RM")
    text = text.replace('period="10.0"', 'period="50"')  # T1 now has the longest period
    (ts,) = loads(text, "simso")
    assert [t.T for t in ts] == [20, 40, 50]


def test_simso_time_unit():
    text = (DATA / "gedf4.simso.xml").read_text()
    (ts,) = loads(text, "simso", time_unit="0.5")  # one tick = 0.5 ms
    assert ts.rows() == [(4, 16, 20), (10, 40, 40), (24, 60, 80)]
    with pytest.raises(InputError, match="0.3 ms is not a whole number of milliseconds"):
        loads(text.replace('WCET="2.0"', 'WCET="0.3"'), "simso")


# -- rtsched check on the tools' files ----------------------------------------------------------


@pytest.mark.parametrize("name", ["gedf4.simso.xml", "set.schedcat.xml"])
def test_check_with_m(capsys, name):
    status, out, _ = run(capsys, "check", DATA / name, "-m", 4, "--tests", "gfb,bcl,exact", "--json")
    (line,) = [json.loads(x) for x in out.splitlines()]
    assert line["m"] == 4
    assert line["verdicts"] == {"gfb": True, "bcl": True, "exact": True}
    assert status == 0


def test_check_simso_takes_m_from_the_file(capsys):
    status, out, _ = run(capsys, "check", DATA / "fp2.simso.xml", "--json")
    assert json.loads(out)["m"] == 2
    assert status == 0


def test_check_csv_parses_back(capsys):
    status, out, _ = run(capsys, "check", DATA / "testpoint.schedcat.xml", "-m", 2, "--tests", "gfb,bcl", "--csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [(r["set"], r["analysis"]) for r in rows] == [("0", "gfb"), ("0", "bcl"), ("1", "gfb"), ("1", "bcl")]
    _, out_json, _ = run(capsys, "check", DATA / "testpoint.schedcat.xml", "-m", 2, "--tests", "gfb,bcl", "--json")
    expected = [
        (str(i), a, str(v).lower())
        for i, x in enumerate(map(json.loads, out_json.splitlines()))
        for a, v in x["verdicts"].items()
    ]
    assert [(r["set"], r["analysis"], r["verdict"]) for r in rows] == expected
    assert {r["m"] for r in rows} == {"2"} and rows[2]["n"] == "1" and float(rows[2]["utilization"]) == 0.9
    assert status == (0 if all(v == "true" for *_, v in expected[::2]) else 1)


# -- round trips through rtsched convert ---------------------------------------------------------

ALL = FORMATS + TOOL_FORMATS
SET = TaskSet.from_tasks([(2, 8, 10, "a"), (5, 20, 20, "b"), (12, 30, 40, "c")])


@pytest.mark.parametrize(("src", "dst"), list(itertools.product(ALL, ALL)))
def test_convert_round_trip(capsys, tmp_path, src, dst):
    infile = tmp_path / f"in{SUFFIX[src]}"
    infile.write_text(dumps(SET, src, processors=3))
    out = tmp_path / f"out{SUFFIX[dst]}"
    status, _, err = run(capsys, "convert", infile, out, *(["-m", 3] if dst == "simso" else []))
    assert (status, err) == (0, "")
    (back,) = read_tasksets(out)
    assert back.rows() == SET.rows() and back.names == SET.names
    if dst == "simso":
        assert simso_platform(out.read_text())[:2] == (3, "global-edf")


def test_convert_refuses_to_overwrite_its_input(capsys, tmp_path):
    """The same file as input and output (here through another spelling of its path) is refused:
    writing would replace the input, comments and all."""
    infile = tmp_path / "set.yaml"
    text = "# my notes\n" + dumps(SET, "yaml")
    infile.write_text(text)
    (tmp_path / "sub").mkdir()
    status, _, err = run(capsys, "convert", infile, tmp_path / "sub" / ".." / "set.yaml")
    assert status == 2 and "is the input file itself" in err
    assert infile.read_text() == text


def test_convert_keeps_a_simso_platform(capsys, tmp_path):
    out = tmp_path / "copy.simso.xml"
    assert run(capsys, "convert", DATA / "fp2.simso.xml", out)[0] == 0
    assert simso_platform(out.read_text())[:2] == (2, "global-fp")
    assert read_tasksets(out) == read_tasksets(DATA / "fp2.simso.xml")  # FP priorities written, order kept


@settings(max_examples=40)
@given(tasksets(max_size=6))
def test_tool_formats_round_trip(ts):
    for fmt in TOOL_FORMATS:
        (back,) = loads(dumps(ts, fmt, processors=2), fmt)
        assert back.rows() == ts.rows()


# -- malformed files: one clear line, exit status 2 ----------------------------------------------

GOOD_SIMSO = (DATA / "gedf4.simso.xml").read_text()
GOOD_SCHEDCAT = (DATA / "set.schedcat.xml").read_text()


#: One edit of a hand-written file each: (file, text whose first occurrence is replaced, by what,
#: what the error line says).
EDITS = {
    "missing-wcet": ("set.schedcat.xml", ' wcet="5"', "", "line 7, task 1, field wcet: missing"),
    "non-integer": ("set.schedcat.xml", 'wcet="5"', 'wcet="5.5"', "task 1, field C: 5.5 is not a whole"),
    "partition": ("set.schedcat.xml", 'id="2"', 'id="2" partition="0"', "field partition: a fixed partition"),
    "resources": (
        "set.schedcat.xml",
        'wcet="5" />',
        'wcet="5"><resources><requirement res_id="0"/></resources></task>',
        "shared resources",
    ),
    "suspension": ("set.schedcat.xml", 'id="2"', 'id="2" suspension="3"', "attribute 'suspension'"),
    "unknown-scheduler": (
        "gedf4.simso.xml",
        "simso.schedulers.EDF",
        "simso.schedulers.LLF",
        "scheduler 'simso.schedulers.LLF' has no rtsched analysis",
    ),
    "non-integer-ms": ("gedf4.simso.xml", 'WCET="5.0"', 'WCET="5.25"', "task 1, field C"),
    "aperiodic": ("gedf4.simso.xml", 'task_type="Periodic"', 'task_type="APeriodic"', "task type 'APeriodic'"),
    "speed": ("gedf4.simso.xml", 'speed="1.0"', 'speed="2.0"', "field speed"),
    "sporadic-dates": ("gedf4.simso.xml", '"0, 40, 95.5"', '"0, 30"', "closer than the period"),
    "followed-by": ("gedf4.simso.xml", 'id="2" task_type', 'id="2" followed_by="3" task_type', "task chains"),
    "etm": ("gedf4.simso.xml", 'etm="wcet"', 'etm="cache"', "execution-time model"),
    "fp-without-priority": ("fp2.simso.xml", ' priority="2"', "", "needs an integer 'priority'"),
}


def edited(name: str, old: str, new: str) -> str:
    """The hand-written file ``name`` with the first ``old`` replaced by ``new`` (which must be there)."""
    text = (DATA / name).read_text()
    assert old in text, (name, old)
    return text.replace(old, new, 1)


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        pytest.param("gedf4.simso.xml", GOOD_SIMSO[:-30], "line 1[0-9]: invalid XML", id="truncated"),
        pytest.param(
            "set.schedcat.xml",
            '<?xml version="1.0"?>\n<!DOCTYPE t [<!ENTITY x "xxxxxxxx">]>\n<taskset><task wcet="&x;" period="1"/></taskset>',
            "DOCTYPE or entity",
            id="doctype",
        ),
        *(
            pytest.param(name, edited(name, old, new), message, id=case)
            for case, (name, old, new, message) in EDITS.items()
        ),
    ],
)
def test_malformed_gives_one_line_and_status_2(capsys, tmp_path, name, text, message):
    f = tmp_path / name
    f.write_text(text)
    status, out, err = run(capsys, "check", f, "-m", 2, "--tests", "gfb")
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and "Traceback" not in err
    assert str(f) in err
    assert re.search(message, err), err


def test_writing_simso_needs_processors_and_one_set():
    with pytest.raises(InputError, match="task 1, field name: task name '2' is not one SimSo accepts"):
        dumps(TaskSet.from_tasks([(1, 2, 2, "a"), (1, 2, 2, "2")]), "simso", processors=1)
    with pytest.raises(InputError, match="number of processors"):
        dumps(SET, "simso")
    with pytest.raises(InputError, match="one task set, not 2"):
        dumps([SET, SET], "simso", processors=2)


# -- records ------------------------------------------------------------------------------------


def test_report_records():
    report = check(SET, 2, tests="gfb,exact")
    records = report.to_records(index=5, summary=True)
    assert [r["analysis"] for r in records] == ["gfb", "exact"]
    for r in records:
        assert r["set"] == 5 and r["n"] == 3 and r["m"] == 2 and r["utilization"] == float(SET.utilization)
        assert r["verdict"] is report[r["analysis"]].verdict and isinstance(r["summary"], str)
        assert all(isinstance(v, str | int | float | bool | None) for v in r.values())


def test_dataframe_or_clear_error():
    report = check(SET, 2, tests="gfb")
    try:
        import pandas  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError, match=r"rtsched\[pandas\]"):
            report.to_dataframe()
    else:
        frame = report.to_dataframe()
        assert list(frame["analysis"]) == ["gfb"]


def test_declared_encoding_is_not_used():
    # rtsched reads files as UTF-8; an XML declaration naming another (or no known) encoding is ignored.
    for declared in ("latin-1", "no-such-encoding"):
        text = GOOD_SCHEDCAT.replace("encoding='utf-8'", f"encoding='{declared}'")
        assert loads(text, "schedcat") == read_tasksets(DATA / "set.schedcat.xml")


def test_mutated_files_give_input_errors_only():
    """Seeded random edits of the hand-written files: a task set or one InputError line, never another exception."""
    rng = random.Random(21)
    pieces = [
        *'<>/="& ;!-?x09.,e\n',
        "<!DOCTYPE a>",
        "&amp;",
        "1" * 5000,
        "simso.schedulers.RM",
        "task",
        'encoding="x"',
    ]
    for _ in range(400):
        fmt, text = rng.choice([("simso", GOOD_SIMSO), ("schedcat", GOOD_SCHEDCAT)])
        for _ in range(rng.randint(1, 4)):
            at = rng.randrange(len(text) + 1)
            cut = at + rng.randint(0, 8)
            text = text[:at] + "".join(rng.choice(pieces) for _ in range(rng.randint(0, 3))) + text[cut:]
        message = ""
        try:
            loads(text, fmt)
        except InputError as err:
            message = str(err)
        assert "\n" not in message
