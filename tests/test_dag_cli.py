"""Tests of ``rtsched check`` and ``rtsched simulate`` on DAG task-set files (rtsched/commands/_dag.py)."""

from __future__ import annotations

import csv
import io
import json
import sys

import pytest

from rtsched.check import check_many
from rtsched.cli import main
from rtsched.commands._dag import dag_format
from rtsched.dag import read_dag_tasksets, simulate_dag
from rtsched.registry import all_entries
from rtsched.workloads import DAG_TASKSETS

OWN_YAML = """\
tasks:
  - name: fj
    T: 20
    D: 15
    vertices:
      - {id: a, C: 1}
      - {id: b, C: 3}
      - {id: c, C: 2}
      - {id: d, C: 4}
      - {id: e, C: 1}
    edges: [[a, b], [a, c], [a, d], [b, e], [c, e], [d, e]]
  - name: chain
    T: 30
    D: 30
    vertices:
      - {id: x, C: 5}
      - {id: y, C: 6}
    edges: [[x, y]]
"""

SURVEY_YAML = """\
tasks:
  - t: 100
    d: 100
    vertices:
      - {id: 0, c: 10}
      - {id: 1, c: 20}
      - {id: 2, c: 30}
      - {id: 3, c: 5}
    edges:
      - {from: 0, to: 1}
      - {from: 0, to: 2}
      - {from: 1, to: 3}
      - {from: 2, to: 3}
"""

#: Two fork-joins of volume 10 on two processors with T = D = 8 (U = 2.5 > 2) and a light task:
#: G-EDF misses (the first miss: τ1 (b) job 0 at t = 8, worked out in test_simulate_first_miss).
MISS_DOT = """\
digraph a { T=8; D=8; s [C=1]; x [C=4]; y [C=4]; t [C=1]; s -> x -> t; s -> y -> t; }
digraph b { T=8; D=8; s [C=1]; x [C=4]; y [C=4]; t [C=1]; s -> x -> t; s -> y -> t; }
digraph c { T=12; D=10; u [C=3]; v [C=3]; }
"""

TASKSET_YAML = "tasks:\n  - {C: 2, D: 5, T: 5}\n  - {C: 3, D: 10, T: 10}\n"


@pytest.fixture
def files(tmp_path):
    paths = {
        "own": tmp_path / "demo.yaml",
        "json": tmp_path / "demo.json",
        "survey": tmp_path / "survey.yaml",
        "dot": tmp_path / "miss.dot",
        "gv": tmp_path / "miss.gv",
        "tasks": tmp_path / "ts.yaml",
    }
    paths["own"].write_text(OWN_YAML)
    from rtsched.dag import write_dag_tasksets

    write_dag_tasksets(paths["json"], read_dag_tasksets(paths["own"]))
    paths["survey"].write_text(SURVEY_YAML)
    paths["dot"].write_text(MISS_DOT)
    paths["gv"].write_text(MISS_DOT)
    paths["tasks"].write_text(TASKSET_YAML)
    return paths


def _expected_reports(path, fmt=None, m=4):
    return check_many(read_dag_tasksets(path, format=fmt), m)


# -- detection --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        pytest.param("own", "yaml", id="own-yaml"),
        pytest.param("json", "json", id="own-json"),
        pytest.param("survey", "survey", id="survey-yaml"),
        pytest.param("dot", "dot", id="dot"),
        pytest.param("gv", "dot", id="gv"),
        pytest.param("tasks", None, id="task-set-yaml"),
    ],
)
def test_detection(files, name, expected):
    assert dag_format(str(files[name]), None, "auto") == expected


def test_detection_options(files):
    assert dag_format(str(files["tasks"]), None, "dag") == "sniff"  # forced: the DAG reader will complain
    assert dag_format(str(files["own"]), None, "tasks") is None
    assert dag_format("-", None, "auto") is None and dag_format("-", None, "dag") == "sniff"
    assert dag_format("-", "dot", "auto") == "dot" and dag_format("x.yaml", "survey", "auto") == "survey"
    assert dag_format(str(files["own"]), "json", "auto") == "json"  # JSON is YAML: --format decides the parser


# -- check ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["own", "json", "survey", "dot"])
def test_check_runs_every_applicable_dag_analysis(files, capsys, name):
    fmt = "survey" if name == "survey" else None
    expected = _expected_reports(files[name], fmt)
    status = main(["check", str(files[name]), "-m", "4", "--json"])
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == len(expected) == 1
    record = json.loads(lines[0])
    assert record["verdicts"] == expected[0].verdicts
    # selected by workload kind: every DAG analysis that applies, none of another kind
    dag_names = {e.name for e in all_entries() if e.workload is DAG_TASKSETS}
    assert set(record["verdicts"]) <= dag_names and "dag-federated" in record["verdicts"]
    model = read_dag_tasksets(files[name], format=fmt)[0].deadline_kind
    applicable = {e.name for e in all_entries() if e.workload is DAG_TASKSETS and not e.refuses_deadlines(model)}
    assert set(record["verdicts"]) == applicable
    assert status == (0 if expected[0].schedulable else 1)


def test_check_table_explain_and_csv(files, capsys):
    assert main(["check", str(files["own"]), "-m", "4"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("DAG task set: n=2 tasks, 7 vertices, m=4")
    assert "dag-federated" in out
    rows = [line for line in out.splitlines() if line.startswith("τ")]
    assert [r.split("|")[0].strip() for r in rows] == ["τ0 (fj)", "τ1 (chain)"]
    assert [int(c) for c in rows[0].split("|")[3:7]] == [11, 6, 15, 20]  # vol, len, D, T
    main(["check", str(files["own"]), "-m", "4", "--explain", "--tests", "dag-federated"])
    out = capsys.readouterr().out
    assert "class" in out and "processors" in out and "light" in out
    main(["check", str(files["dot"]), "-m", "2", "--csv"])
    records = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert {r["analysis"] for r in records} == set(_expected_reports(files["dot"], m=2)[0].verdicts)
    assert all(r["schedulable"] == "false" for r in records)  # U = 3 > m = 2


def test_check_tests_of_another_kind_refused(files, capsys):
    assert main(["check", str(files["own"]), "-m", "4", "--tests", "gfb"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "--tests" in err and "not DAG task sets" in err


@pytest.mark.parametrize(
    ("option", "value"),
    [("--deadlines", "arbitrary"), ("--time-unit", "1"), ("--priorities", "dm"), ("--platform", "clustered:k=2")],
)
def test_check_task_set_options_refused(files, capsys, option, value):
    assert main(["check", str(files["own"]), "-m", "4", option, value]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and option in err


def test_task_set_path_unchanged(files, capsys):
    assert main(["check", str(files["tasks"]), "-m", "2", "--tests", "gfb"]) == 0
    assert capsys.readouterr().out.startswith("task set: n=2")
    # forcing the task reader on a DAG file gives the task reader's complaint
    assert main(["check", str(files["own"]), "-m", "2", "--kind", "tasks"]) == 2
    assert "vertices" in capsys.readouterr().err


def test_check_stdin_with_kind_dag(files, capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(SURVEY_YAML.encode())))
    main(["check", "-", "-m", "4", "--kind", "dag", "--json"])
    record = json.loads(capsys.readouterr().out)
    assert record["verdicts"] == _expected_reports(files["survey"], "survey")[0].verdicts


BAD_YAML = {
    "cycle": (
        "tasks:\n  - name: loop\n    T: 10\n    D: 10\n    vertices:\n      - {id: a, C: 1}\n      - {id: b, C: 2}\n"
        "    edges: [[a, b], [b, a]]\n",
        8,
        "loop",
        "v0 (a) → v1 (b) → v0 (a)",
    ),
    "unknown-vertex": (
        "tasks:\n  - name: t\n    T: 10\n    D: 10\n    vertices:\n      - {id: a, C: 1}\n      - {id: b, C: 2}\n"
        "    edges: [[a, z]]\n",
        8,
        "t",
        "'z'",
    ),
    "zero-wcet": (
        "tasks:\n  - name: t\n    T: 10\n    D: 10\n    vertices:\n      - {id: a, C: 1}\n      - {id: b, C: 0}\n"
        "    edges: [[a, b]]\n",
        7,
        "t",
        "v1 (b)",
    ),
    "len-above-D": (
        "tasks:\n  - name: long\n    T: 10\n    D: 4\n    vertices:\n      - {id: a, C: 3}\n      - {id: b, C: 2}\n"
        "    edges: [[a, b]]\n",
        4,
        "long",
        "v0 (a) → v1 (b)",
    ),
}

BAD_DOT = {
    "cycle": ("digraph g {\n  T=10; D=10;\n  a [C=1];\n  b [C=2];\n  a -> b;\n  b -> a;\n}\n", 6, "g", "v0 (a)"),
    "zero-wcet": ("digraph g {\n  T=10; D=10;\n  a [C=1];\n  b [C=0];\n  a -> b;\n}\n", 4, "g", "v1 (b)"),
    "len-above-D": (
        "digraph ok { T=9; D=9; u [C=1]; }\ndigraph g {\n  T=10;\n  D=4;\n  a [C=3];\n  b [C=2];\n  a -> b;\n}\n",
        4,
        "1 (g)",
        "v0 (a) → v1 (b)",
    ),
}


@pytest.mark.parametrize("command", ["check", "simulate"])
@pytest.mark.parametrize(
    ("suffix", "text", "line", "task", "vertex"),
    [pytest.param(".yaml", *v, id=f"yaml-{k}") for k, v in BAD_YAML.items()]
    + [pytest.param(".dot", *v, id=f"dot-{k}") for k, v in BAD_DOT.items()],
)
def test_bad_dag_input_one_line_status_2(tmp_path, capsys, command, suffix, text, line, task, vertex):
    path = tmp_path / f"bad{suffix}"
    path.write_text(text)
    assert main([command, str(path), "-m", "2"]) == 2
    captured = capsys.readouterr()
    err = captured.err.strip()
    assert len(err.splitlines()) == 1, err
    assert str(path) in err and f"line {line}," in err and vertex in err
    assert f"task {task}" in err or f"task 0 ({task})" in err
    assert captured.out == ""


# -- simulate ---------------------------------------------------------------------------------------


def test_simulate_first_miss(files, capsys):
    ts = read_dag_tasksets(files["dot"])[0]
    assert main(["simulate", str(files["dot"]), "-m", "2"]) == 1
    out = capsys.readouterr().out.strip()
    trace = simulate_dag(ts, 2)
    assert out == trace.summary()
    # by hand: at 0, τ0 and τ1 (deadline 8, index order) run s; at 1, τ0's x and y take both
    # processors (τ0 first by index) until 5; τ1's x and y then run [5, 9): τ1 misses at 8.
    assert trace.miss is not None and (trace.miss.task, trace.miss.job, trace.miss.time) == (1, 0, 8)
    assert "deadline miss: τ1 (b) job 0 (released at 0) at t=8" in out


def test_simulate_no_miss_gfp(files, capsys):
    assert main(["simulate", str(files["own"]), "-m", "2", "--policy", "gfp"]) == 0
    assert capsys.readouterr().out.startswith("no deadline miss in [0, 60]")


def test_simulate_gantt_and_json(files, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("MPLBACKEND", "Agg")
    png = tmp_path / "g.png"
    assert main(["simulate", str(files["dot"]), "-m", "2", "--gantt", str(png)]) == 1
    assert f"Gantt chart: {png}" in capsys.readouterr().out
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    args = ["--arrivals", "sporadic", "--seed", "5", "--execution", "random", "--policy", "gfp", "--horizon", "600"]
    main(["simulate", str(files["own"]), "-m", "2", *args, "--json"])
    record = json.loads(capsys.readouterr().out)
    trace = simulate_dag(
        read_dag_tasksets(files["own"])[0],
        2,
        policy="gfp",
        arrivals="sporadic",
        seed=5,
        execution="random",
        horizon=600,
        record=True,
    )
    assert record["segments"] == trace.segments.tolist() and record["releases"] == trace.releases.tolist()
    assert record["summary"] == trace.summary() and record["miss"] is None


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["--policy", "pedf"], "--policy"),
        (["--gantt-rows", "tasks"], "--gantt-rows"),
        (["--execution", "always"], "--execution"),
    ],
)
def test_simulate_bad_options(files, capsys, args, option):
    assert main(["simulate", str(files["own"]), "-m", "2", *args]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and option in err


def test_simulate_task_sets_take_random_execution(files, capsys):
    """Sporadic task sets simulate with random execution too (#47); the summary says so."""
    assert main(["simulate", str(files["tasks"]), "-m", "2", "--execution", "random"]) in (0, 1)
    assert "random execution" in capsys.readouterr().out


def test_cold_check_answers_with_the_references(files, capsys, monkeypatch):
    """With no kernel compiled, a small DAG file is decided by the references (no compile wait), same verdicts."""
    import importlib

    from rtsched import warmup
    from rtsched.registry import Analysis

    check_module = importlib.import_module("rtsched.check")  # the module, not rtsched.check the function
    expected = _expected_reports(files["own"])[0].verdicts

    def no_kernel(self, *args, **kwargs):
        raise AssertionError(f"{self.name}: a kernel was used on a cold start")

    monkeypatch.setattr(warmup, "is_compiled", lambda name: False)
    monkeypatch.setattr(warmup, "mark", lambda name: None)
    monkeypatch.setattr(check_module, "_KERNEL_USED", set())
    monkeypatch.setattr(check_module, "_COLD_SECONDS", {})
    monkeypatch.setattr(Analysis, "_decide_batch", no_kernel)
    monkeypatch.setattr(Analysis, "_decide_one", no_kernel)
    assert main(["check", str(files["own"]), "-m", "4", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["verdicts"] == expected


def test_check_typed_platform(files, capsys):
    from rtsched.platform import Typed

    expected = check_many(read_dag_tasksets(files["own"]), Typed({"cpu": 4}))[0]
    status = main(["check", str(files["own"]), "--platform", "typed:cpu=4", "--json"])
    record = json.loads(capsys.readouterr().out)
    assert record["verdicts"] == expected.verdicts and record["verdicts"]
    assert status == (0 if expected.schedulable else 1)
    assert main(["check", str(files["own"]), "-m", "3", "--platform", "typed:cpu=4"]) == 2
    assert "-m 3 differs from the 4 units" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("name", "policy", "status"),
    [("own", "federated", 0), ("dot", "federated", 1), ("dot", "global-edf", 1), ("own", "no-such-policy", 2)],
)
def test_check_policy_decides_the_status(files, capsys, name, policy, status):
    assert main(["check", str(files[name]), "-m", "2", "--policy", policy]) == status
    if status < 2:
        expected = _expected_reports(files[name], m=2)[0].schedulable_under(policy)
        assert status == (0 if expected else 1)
