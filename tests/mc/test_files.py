"""Tests of rtsched.mc.files: YAML, JSON and CSV of mixed-criticality task sets (papers/mc-model.md).

Round trips on drawn sets (names included), the note's example files, and every refusal as one
InputError line naming file, line, task set, task and field.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rtsched.errors import InputError
from rtsched.mc import MCTask, MCTaskSet
from rtsched.mc.files import MC_FORMATS, dumps_mc, loads_mc, read_mc_tasksets, write_mc_tasksets
from rtsched.testing import strategies as rst

names = st.none() | st.text(st.characters(codec="utf-8", categories=["L", "N", "P", "Zs"]), min_size=1, max_size=8)


@st.composite
def named_sets(draw: st.DrawFn) -> MCTaskSet:
    ts = draw(rst.mc_tasksets(deadlines="arbitrary"))
    return MCTaskSet((t.replace(name=draw(names)) for t in ts), name=draw(names))


@pytest.mark.parametrize("fmt", MC_FORMATS)
@given(sets=st.lists(named_sets(), min_size=1, max_size=3))
def test_round_trip(fmt, sets):
    back = loads_mc(dumps_mc(sets, fmt), fmt, deadlines="arbitrary")
    if fmt == "csv":  # CSV keeps no set names
        sets = [MCTaskSet(ts.tasks) for ts in sets]
    assert back == sets


@pytest.mark.parametrize("fmt", MC_FORMATS)
def test_file_round_trip_and_argument_order(tmp_path, fmt):
    ts = MCTaskSet([MCTask.lo(2, T=10, name="log"), MCTask.hi(1, 3, T=6, D=5, name="brake")], name="x")
    path = tmp_path / f"set.{fmt}"
    write_mc_tasksets(ts, path)
    expected = [ts] if fmt != "csv" else [MCTaskSet(ts.tasks)]
    assert read_mc_tasksets(path) == expected
    write_mc_tasksets(str(path), [ts, ts])  # the DAG writers' order (path, sets)
    assert len(read_mc_tasksets(str(path))) == 2


YAML_EXAMPLE = """\
name: example
tasks:
  - {name: log, level: LO, C_LO: 2, T: 10}
  - {name: brake, level: HI, C_LO: 1, C_HI: 3, T: 6}
  - name: steer
    level: hi
    C_LO: 2
    C_HI: 4
    T: 12
    D: 10
  - {level: LO, C_LO: 1, C_HI: 1, T: 20, D: 15}
"""

CSV_EXAMPLE = """\
Name,Level,C_lo,C_hi,T,D
log,LO,2,,10,
brake,HI,1,3,6,6
steer,HI,2,4,12,10
,LO,1,1,20,15
"""


@pytest.mark.parametrize(("text", "fmt"), [(YAML_EXAMPLE, "yaml"), (CSV_EXAMPLE, "csv")], ids=["yaml", "csv"])
def test_note_example(text, fmt):
    (ts,) = loads_mc(text, fmt)
    assert [(t.name, t.criticality, t.wcets, t.T, t.D) for t in ts] == [
        ("log", "LO", (2,), 10, 10),
        ("brake", "HI", (1, 3), 6, 6),
        ("steer", "HI", (2, 4), 12, 10),
        (None, "LO", (1,), 20, 15),
    ]
    assert ts.name == ("example" if fmt == "yaml" else None)


def test_several_sets_forms():
    one = "[{level: LO, C_LO: 1, T: 4}]"
    assert loads_mc(f"tasksets:\n  - tasks: {one}\n  - tasks: {one}\n") == loads_mc(f"- tasks: {one}\n- tasks: {one}\n")
    assert len(loads_mc("level,C_LO,T,set\nLO,1,4,5\nLO,1,4,2\nLO,2,4,5\n", "csv")) == 2
    assert loads_mc('[{"level": "HI", "C_LO": 1, "C_HI": 2, "T": 4}]', "json") == [MCTaskSet([MCTask.hi(1, 2, T=4)])]


@pytest.mark.parametrize(
    ("text", "fmt", "where", "message"),
    [
        pytest.param(
            "tasks:\n  - {name: a, level: LO, C_LO: 5, T: 10}\n  - name: b\n    level: HI\n    C_LO: 5\n    C_HI: 3\n    T: 10\n",
            "yaml",
            "tasks.yaml, line 6, task 1 (b), field C_HI",
            "C_HI 3 < C_LO 5",
            id="c-hi-below-c-lo",
        ),
        pytest.param(
            "- {level: LO, C_LO: 5, T: 10}\n- {name: b, level: LO,\n   C_HI: 6, C_LO: 5, T: 10}\n",
            "yaml",
            "tasks.yaml, line 3, task 1 (b), field C_HI",
            "LO task has no C_HI budget",
            id="lo-with-hi",
        ),
        pytest.param(
            "- {level: MED, C_LO: 5, T: 10}\n",
            "yaml",
            "tasks.yaml, line 1, task 0, field level",
            "unknown criticality level 'MED'",
            id="unknown-level",
        ),
        pytest.param(
            "- {level: 1, C_LO: 5, T: 10}\n",
            "yaml",
            "tasks.yaml, line 1, task 0, field level",
            "unknown criticality level '1'",
            id="numeric-level",
        ),
        pytest.param(
            "- {level: [HI], C_LO: 5, T: 10}\n",
            "yaml",
            "tasks.yaml, line 1, task 0, field level",
            "a level must be LO or HI",
            id="list-level",
        ),
        pytest.param(
            "- {level: HI, C_LO: 1, T: 10}\n",
            "yaml",
            "tasks.yaml, line 1, task 0, field C_HI",
            "HI task needs C_HI",
            id="hi-without-c-hi",
        ),
        pytest.param(
            "- {level: LO, C_LO: 1,\n   T: 10, D: 12}\n",
            "yaml",
            "tasks.yaml, line 2, task 0, field D",
            "D = 12 exceeds T = 10",
            id="d-above-t",
        ),
        pytest.param(
            "- {level: LO, C_LO: 0, T: 10}\n",
            "yaml",
            "tasks.yaml, line 1, task 0, field C_LO",
            "positive integer",
            id="zero-c",
        ),
        pytest.param(
            "- {level: LO, C_LO: 1, T: -4}\n",
            "yaml",
            "tasks.yaml, line 1, task 0, field T",
            "positive integer",
            id="negative-t",
        ),
        pytest.param(
            "- {level: LO, C_LO: 1.5, T: 4}\n",
            "yaml",
            "tasks.yaml, line 1, task 0, field C_LO",
            "1.5 is not an integer number of ticks",
            id="fraction",
        ),
        pytest.param(
            "- {level: LO, C_LO: 1, T: 4, E: 3}\n",
            "yaml",
            "tasks.yaml, line 1, task 0, field E",
            "unknown key 'E'",
            id="unknown-key",
        ),
        pytest.param(
            "- {level: LO, T: 4}\n", "yaml", "tasks.yaml, line 1, task 0, field C_LO", "missing key", id="missing"
        ),
        pytest.param("tasks: []\n", "yaml", "tasks.yaml, line 1, field tasks", "at least one task", id="no-task"),
        pytest.param("- 3\n", "yaml", "tasks.yaml, line 1, task 0", "expected a task", id="scalar-task"),
        pytest.param("{a: 1}\n", "yaml", "tasks.yaml, line 1, field a", "unknown key 'a'", id="object"),
        pytest.param("3\n", "yaml", "tasks.yaml, line 1", "expected a mixed-criticality task set", id="scalar"),
        pytest.param("  \n", "yaml", "tasks.yaml", "the file is empty", id="empty"),
        pytest.param("tasksets: 3\n", "yaml", "tasks.yaml, line 1, field tasksets", "must be a list", id="tasksets"),
        pytest.param(
            "tasksets:\n- tasks:\n  - {level: LO, C_LO: 1, T: 4}\n- tasks:\n  - {level: LO, C_LO: 1, T: 4, D: 0}\n",
            "yaml",
            "tasks.yaml, line 5, task set 1, task 0, field D",
            "positive",
            id="second-set",
        ),
        pytest.param(
            '[{"level": "HI",\n "C_LO": 4,\n "C_HI": 2, "T": 9}]',
            "json",
            "tasks.json, line 3, task 0, field C_HI",
            "C_HI 2 < C_LO 4",
            id="json",
        ),
        pytest.param(
            "name,level,C_LO,C_HI,T\na,LO,1,,5\nb,HI,5,3,7\n",
            "csv",
            "tasks.csv, line 3, task 1 (b), field C_HI",
            "C_HI 3 < C_LO 5",
            id="csv-c-hi",
        ),
        pytest.param(
            "level,C_LO,C_HI,T\nLO,1,2,5\n", "csv", "tasks.csv, line 2, task 0, field C_HI", "no C_HI", id="csv-lo-hi"
        ),
        pytest.param(
            "level,C_LO,T\nmid,1,5\n",
            "csv",
            "tasks.csv, line 2, task 0, field level",
            "unknown criticality",
            id="csv-level",
        ),
        pytest.param(
            "level,C_LO,T,D\nLO,1,5,6\n", "csv", "tasks.csv, line 2, task 0, field D", "exceeds T", id="csv-d"
        ),
        pytest.param("level,C_LO,T\nLO,x,5\n", "csv", "tasks.csv, line 2, task 0, field C_LO", "", id="csv-text"),
        pytest.param("level,C_LO\nLO,1\n", "csv", "tasks.csv, line 1, field T", "missing column T", id="csv-missing"),
        pytest.param(
            "level,C_LO,T,W\nLO,1,5,1\n", "csv", "tasks.csv, line 1, field W", "unknown column", id="csv-column"
        ),
        pytest.param(
            "level,C_LO,T,T\nLO,1,5,5\n", "csv", "tasks.csv, line 1, field T", "duplicate column", id="csv-dup"
        ),
        pytest.param("level,C_LO,T\nLO,1\n", "csv", "tasks.csv, line 2", "expected 3 cells", id="csv-cells"),
        pytest.param("level,C_LO,T,set\nLO,1,5,x\n", "csv", "tasks.csv, line 2, field set", "set number", id="csv-set"),
        pytest.param(
            "level,C_LO,T,set\nLO,1,5,0\nLO,1,5,1\nLO,0,5,1\n",
            "csv",
            "tasks.csv, line 4, task set 1, task 1, field C_LO",
            "positive",
            id="csv-set-index",
        ),
    ],
)
def test_errors_are_one_located_line(text, fmt, where, message):
    with pytest.raises(InputError) as info:
        loads_mc(text, fmt, source=f"tasks.{fmt}")
    shown = str(info.value)
    assert "\n" not in shown
    assert shown.startswith(where + ":"), shown
    assert message in shown


def test_implicit_model_and_unknown_model():
    with pytest.raises(InputError, match="differs from T"):
        loads_mc("- {level: LO, C_LO: 1, T: 4, D: 3}", deadlines="implicit")
    with pytest.raises(InputError, match="unknown deadline model"):
        loads_mc("- {level: LO, C_LO: 1, T: 4}", deadlines="loose")


def test_format_refusals(tmp_path):
    with pytest.raises(InputError, match="cannot tell the format"):
        read_mc_tasksets(tmp_path / "set.txt")
    with pytest.raises(InputError, match="unknown mixed-criticality format"):
        loads_mc("", "dot")
    with pytest.raises(InputError, match="expected MCTaskSet"):
        dumps_mc([[1, 2]])  # type: ignore[list-item]
    with pytest.raises(InputError, match="no task set"):
        dumps_mc([])
    with pytest.raises(InputError, match="empty task name"):
        dumps_mc(MCTaskSet([MCTask.lo(1, 2, name=""), MCTask.lo(1, 2, name="a")]), "csv")
    with pytest.raises(InputError, match="expected a file path"):
        write_mc_tasksets(MCTaskSet([MCTask.lo(1, 2)]), 3)  # type: ignore[arg-type]
    with pytest.raises(InputError, match="No such file|not found|cannot"):
        read_mc_tasksets(tmp_path / "missing.yaml")


@pytest.mark.parametrize("fmt", ["yaml", "csv"])
@given(ts=rst.mc_tasksets(min_size=1, max_size=6), data=st.data())
def test_a_broken_budget_is_named_at_its_line(fmt, ts, data):
    """Lower one HI task's C_HI below its C_LO (or give one LO task a larger C_HI) in a written file:
    the reader names exactly that task, its line and the field C_HI."""
    i = data.draw(st.integers(0, ts.n - 1))
    task = ts[i]
    lines = dumps_mc(ts, fmt).splitlines()
    row = i + 1  # yaml: "tasks:" then one flow mapping per task; csv: the header then one row per task
    bad = task.C_lo - 1 if task.is_hi and task.C_lo > 1 else task.C_lo + 1
    if fmt == "yaml":
        assert f"C_LO: {task.C_lo}" in lines[row]
        if task.is_hi:
            lines[row] = lines[row].replace(f"C_HI: {task.C_hi}", f"C_HI: {bad}")
        else:
            lines[row] = lines[row].replace(f"C_LO: {task.C_lo}", f"C_LO: {task.C_lo}, C_HI: {bad}")
    else:
        cells = lines[row].split(",")
        cells[2] = str(bad)  # level, C_LO, C_HI, T, D (no name column: the drawn tasks are unnamed)
        lines[row] = ",".join(cells)
    text = "\n".join(lines) + "\n"
    if task.is_hi and bad >= task.C_lo:  # C_LO = 1: no lower budget exists; a larger one is valid
        assert loads_mc(text, fmt)[0][i].C_hi == bad
        return
    with pytest.raises(InputError) as info:
        loads_mc(text, fmt, source=f"f.{fmt}")
    assert str(info.value).startswith(f"f.{fmt}, line {row + 1}, task {i}, field C_HI: ")
