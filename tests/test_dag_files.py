"""Tests of rtsched.dag.files: YAML, JSON, DOT and the survey library's YAML (papers/dag-model.md).

Round trips through every format, the examples of the note, and one error per kind of mistake,
each naming the file, the line, the task and the vertex.
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rtsched.dag import DAGTask, DAGTaskSet, dumps_dag, loads_dag, read_dag_tasksets, write_dag_tasksets
from rtsched.errors import InputError

FJ = DAGTask([1, 3, 2, 4, 1], [(0, 1), (0, 2), (0, 3), (1, 4), (2, 4), (3, 4)], T=20, D=15, name="fj")
TYPED = DAGTask([3, 4, 2], [(0, 1), (1, 2)], T=30, D=40, types=["cpu", "gpu", "cpu"], vertex_names=["in", "conv", "out"])
SET = DAGTaskSet([FJ, TYPED], name="demo")

# -- the examples of papers/dag-model.md -------------------------------------------------------

OWN_YAML = """\
name: demo
tasks:
  - name: fj
    T: 20
    D: 15
    vertices:
      - {id: 0, C: 1}
      - {id: 1, C: 3}
      - {id: 2, C: 2}
      - {id: 3, C: 4}
      - {id: 4, C: 1}
    edges: [[0, 1], [0, 2], [0, 3], [1, 4], [2, 4], [3, 4]]
  - T: 30
    D: 40
    vertices:
      - {id: in, C: 3}
      - {id: conv, C: 4, type: gpu}
      - {id: out, C: 2}
    edges: [[in, conv], [conv, out]]
"""

DOT = """\
// the note's fork-join and a GPU pipeline
digraph fj {
  T=20; D=15;
  0 [C=1]; 1 [C=3]; 2 [C=2]; 3 [C=4]; 4 [C=1];
  0 -> 1 -> 4;
  0 -> 2 -> 4;
  0 -> 3 -> 4;
}
digraph {
  graph [T=30, D=40]
  in [C=3]
  conv [C=4, type="gpu"]   /* runs on the GPU */
  out [C=2]
  in -> conv -> out
}
"""

SURVEY = """\
tasks:
- t: 20
  d: 15
  vertices:
    - {id: 10, c: 1, p: 0}
    - {id: 11, c: 3, p: 1}
    - {id: 12, c: 2, p: 0, s: 1}
  edges:
    - {from: 10, to: 11}
    - {from: 10, to: 12}
"""


def test_own_yaml_example():
    assert loads_dag(OWN_YAML) == [DAGTaskSet([FJ, TYPED.replace(name=None)], name="demo")]


def test_dot_example():
    (ts,) = loads_dag(DOT, "dot")
    assert ts == DAGTaskSet([FJ, TYPED.replace(name=None)])


def test_survey_example():
    (ts,) = loads_dag(SURVEY, "survey")
    (task,) = ts
    assert task == DAGTask([1, 3, 2], [(0, 1), (0, 2)], T=20, D=15, types=["cpu", "cpu", "s1"], vertex_names=["10", "11", "12"])
    # The library's earlier misspelt key is read too.
    assert loads_dag(SURVEY.replace("vertices", "vetices"), "survey") == [ts]


def test_bare_list_of_tasks_and_json():
    text = '[{"T": 5, "D": 5, "vertices": [{"id": "a", "C": 2}]}]'
    assert loads_dag(text, "json") == [DAGTaskSet([DAGTask([2], [], 5, 5, vertex_names=["a"])])]


# -- round trips -------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["yaml", "json"])
def test_round_trip_own_formats(fmt):
    other = DAGTaskSet([DAGTask([7], [], T=9, D=9)])
    for sets in ([SET], [SET, other], []):
        assert loads_dag(dumps_dag(sets, fmt), fmt) == sets
    assert loads_dag(dumps_dag(SET, fmt), fmt) == [SET]


def test_round_trip_dot_and_survey():
    assert loads_dag(dumps_dag(SET, "dot"), "dot") == [DAGTaskSet(list(SET))]  # DOT drops the set's name
    odd = DAGTask([1, 1], [(0, 1)], 3, 3, name="a b", vertex_names=['say "hi"', "node"])
    assert loads_dag(dumps_dag(DAGTaskSet([odd]), "dot"), "dot") == [DAGTaskSet([odd])]
    plain = DAGTaskSet([FJ.replace(name=None), TYPED.replace(name=None, vertex_names=None, types=["s2", "cpu", "s1"])])
    assert loads_dag(dumps_dag(plain, "survey"), "survey") == [plain]


def test_files_by_extension(tmp_path):
    for ext in ("yaml", "yml", "json", "dot", "gv"):
        path = tmp_path / f"sets.{ext}"
        write_dag_tasksets(path, [DAGTaskSet(list(SET))])
        assert read_dag_tasksets(path) == [DAGTaskSet(list(SET))]
    path = tmp_path / "survey.yaml"
    plain = DAGTaskSet([FJ.replace(name=None)])
    write_dag_tasksets(path, plain, format="survey")
    assert "vertices" in path.read_text() and read_dag_tasksets(path, format="survey") == [plain]
    with pytest.raises(InputError, match="cannot tell the format") as info:
        read_dag_tasksets(tmp_path / "sets.txt")
    assert info.value.file.endswith("sets.txt")
    with pytest.raises(InputError, match="unknown DAG format"):
        write_dag_tasksets(tmp_path / "x.yaml", SET, format="csv")


def test_what_a_format_cannot_hold():
    with pytest.raises(InputError, match="exactly one task set"):
        dumps_dag([SET, SET], "dot")
    with pytest.raises(InputError, match=r"vertex v1 \(conv\).*'gpu'") as info:
        dumps_dag(SET, "survey")
    assert info.value.task == "1" or info.value.task == 1
    with pytest.raises(InputError, match="cannot be written in DOT"):
        dumps_dag(DAGTaskSet([DAGTask([1], [], 2, 2, vertex_names=["a\\b"])]), "dot")


# -- errors: file, line, task, field, and the vertex in the message ----------------------------


def _error(text: str, fmt: str = "yaml") -> InputError:
    with pytest.raises(InputError) as info:
        loads_dag(text, fmt, source="f")
    err = info.value
    assert "\n" not in str(err) and str(err).startswith(("f, ", "f: "))
    return err


@pytest.mark.parametrize(
    ("old", "new", "line", "task", "field", "words"),
    [
        ("{id: 3, C: 4}", "{id: 3, C: 2.5}", 10, "0 (fj)", "C", ["vertex 3", "whole number of ticks"]),
        ("{id: 3, C: 4}", "{id: 3, C: 0}", 10, "0 (fj)", "C", ["vertex v3", "positive integer, got 0"]),
        ("{id: 3, C: 4}", "{id: 1, C: 4}", 10, "0 (fj)", "id", ["vertex 1", "used twice"]),
        ("{id: 3, C: 4}", "{id: 3, C: 4, core: 2}", 10, "0 (fj)", "core", ["unknown key 'core'"]),
        ("[[0, 1], [0, 2]", "[[0, 1], [0, 9]", 12, "0 (fj)", "edges", ["unknown vertex '9'"]),
        ("[[0, 1], [0, 2]", "[[0, 1], [0, 0]", 12, "0 (fj)", "edges", ["v0 → v0", "self-loop"]),
        ("[3, 4]]", "[3, 4], [4, 0]]", 12, "0 (fj)", "edges", ["cycle through v0 → v1 → v4 → v0"]),
        ("[3, 4]]", "[3, 4], [0, 1]]", 12, "0 (fj)", "edges", ["v0 → v1", "given twice"]),
        ("    T: 20", "    T: 1e3", 4, "0 (fj)", "T", ["'1e3' is not an integer"]),
        ("    D: 40", "    D: 0", 14, 1, "D", ["D must be a positive integer"]),
        ("{id: conv, C: 4, type: gpu}", "{id: conv, C: 4, type: [gpu]}", 17, 1, "type", ["vertex conv", "a type must be a name"]),
        ("    D: 40\n", "", 13, 1, "D", ["missing key 'D'"]),
        ("[[in, conv], [conv, out]]", "[[in, conv], [conv]]", 19, 1, "edges", ["edge 1", "expected [from, to]"]),
    ],
)
def test_own_format_errors(old, new, line, task, field, words):
    assert old in OWN_YAML
    err = _error(OWN_YAML.replace(old, new, 1))
    assert (err.line, str(err.task), err.field) == (line, str(task), field), str(err)
    for word in words:
        assert word in str(err)


def test_errors_in_a_file_of_several_sets_name_the_set(tmp_path):
    text = dumps_dag([SET, SET], "json").replace('"C": 4', '"C": -4', 2)
    path = tmp_path / "sets.json"
    path.write_text(text)
    with pytest.raises(InputError) as info:
        read_dag_tasksets(path)
    err = info.value
    assert err.file == str(path) and err.set_index == 0 and err.task == "0 (fj)" and err.field == "C"
    assert text.splitlines()[err.line - 1].strip().startswith('"C": -4')
    assert "vertex v3: C must be a positive integer, got -4" in str(err)


def test_empty_and_malformed_documents():
    assert "empty" in str(_error("   \n"))
    assert "invalid YAML" in str(_error("tasks: [\n"))
    assert "invalid JSON" in str(_error("[{", "json"))
    assert "at least one task" in str(_error("tasks: []"))
    assert "expected a DAG task" in str(_error("- 3\n"))


@pytest.mark.parametrize(
    ("old", "new", "line", "words"),
    [
        ("3 [C=4]", "3 [C=4.5]", 4, ["vertex 3", "whole number of ticks"]),
        ("3 [C=4]; ", "", 7, ["vertex 3 has no C"]),  # first seen in an edge
        ("2 [C=2]", "2 [C=2, color=red]", 4, ["unknown attribute 'color'"]),
        ("2 [C=2]", "2 [C=2, C=3]", 4, ["C is given twice"]),
        ("T=20; D=15;", "T=20;", 2, ["the graph has no D"]),
        ("T=20; D=15;", "T=20; D=0;", 3, ["D must be a positive integer"]),
        ("0 -> 3 -> 4;", "0 -> 3 -> 4 -> 0;", 7, ["cycle through v0 → v1 → v4 → v0"]),
        ("0 -> 3 -> 4;", "0 -- 3;", 7, ["undirected"]),
        ("0 -> 3 -> 4;", "0 -> 3 [weight=2];", 7, ["edges take no attributes"]),
        ("0 -> 3 -> 4;", "subgraph { 3 }", 7, ["subgraph"]),
        ("0 -> 3 -> 4;", "node [C=1]", 7, ["default attributes"]),
        ("digraph fj {", "graph fj {", 2, ["write 'digraph'"]),
        ("conv [C=4, type=\"gpu\"]", "conv [C=4, type=\"gpu]", 12, ["quoted string is not closed"]),
        ("/* runs on the GPU */", "/* runs on the GPU", 12, ["comment /* is not closed"]),
        ("  out [C=2]\n", "  out [C=2]\n  out -> @\n", 14, ["unexpected character '@'"]),
    ],
)
def test_dot_errors(old, new, line, words):
    assert old in DOT
    err = _error(DOT.replace(old, new, 1), "dot")
    assert err.line == line, str(err)
    for word in words:
        assert word in str(err)


def test_dot_errors_name_the_task():
    err = _error(DOT.replace("0 -> 1 -> 4;", "0 -> 1 -> 4; 1 -> 1;"), "dot")
    assert err.task == "0 (fj)" and err.field == "edges" and "v1 → v1" in str(err)
    err = _error(DOT.replace("in [C=3]", "in [C=x]"), "dot")
    assert err.task == 1 and err.field == "C" and "vertex in" in str(err)


def test_survey_errors():
    err = _error(SURVEY.replace("{from: 10, to: 12}", "{from: 10, to: 13}"), "survey")
    assert err.line == 10 and err.task == 0 and "unknown vertex '13'" in str(err)
    err = _error(SURVEY.replace("id: 11", "id: b"), "survey")
    assert err.line == 6 and err.field == "id" and "'b' is not a number" in str(err)
    err = _error(SURVEY.replace("s: 1", "s: -1"), "survey")
    assert err.field == "s" and "vertex 12" in str(err)
    err = _error(SURVEY.replace("tasks:", "taskz:"), "survey")
    assert "unknown key 'taskz'" in str(err)


# -- properties: random sets survive every format ----------------------------------------------


#: Printable names (PyYAML reads a written U+0085 back as a space, so line breaks are left out).
NAME_CHARS = st.characters(categories=("L", "N", "P", "S", "Zs"), exclude_characters="\\")


@st.composite
def dag_tasks(draw):
    n = draw(st.integers(1, 7))
    wcets = draw(st.lists(st.integers(1, 10**6), min_size=n, max_size=n))
    pairs = list(itertools.combinations(range(n), 2))
    edges = draw(st.lists(st.sampled_from(pairs), unique=True)) if pairs else []
    names = draw(
        st.none() | st.lists(st.text(NAME_CHARS, min_size=1, max_size=6), min_size=n, max_size=n, unique=True)
    )
    if names == [str(v) for v in range(n)]:
        names = None  # ids that are exactly the indices read back as unnamed vertices (the files' rule)
    types = draw(st.none() | st.lists(st.sampled_from(["cpu", "gpu", "s1"]), min_size=n, max_size=n))
    name = draw(st.none() | st.text(NAME_CHARS, min_size=1, max_size=8))
    return DAGTask(wcets, edges, draw(st.integers(1, 10**6)), draw(st.integers(1, 10**6)), types=types, name=name, vertex_names=names)


@settings(max_examples=60)
@given(st.lists(st.lists(dag_tasks(), min_size=1, max_size=3).map(DAGTaskSet), max_size=3))
def test_random_round_trips(sets):
    for fmt in ("yaml", "json"):
        assert loads_dag(dumps_dag(sets, fmt), fmt) == sets
    for ts in sets:
        assert loads_dag(dumps_dag(ts, "dot"), "dot") == [DAGTaskSet(list(ts))]


def test_the_note_examples_read():
    """papers/dag-model.md: each format's example is the fork-join of the worked example (vol 11, len 6)."""
    import re
    from pathlib import Path

    note = (Path(__file__).resolve().parents[1] / "papers" / "dag-model.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```(yaml|dot)\n(.*?)```", note, re.S)
    assert len(blocks) == 3
    for lang, body in blocks:
        fmt = "survey" if body.startswith("tasks:\n- t:") else lang
        ((task, *_),) = loads_dag(body, fmt)
        expected = (6, 4) if fmt == "survey" else (11, 6)
        assert (task.volume, task.length) == expected
