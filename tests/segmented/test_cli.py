"""``rtsched check`` on CPU–GPU segmented files (rtsched/commands/_segmented.py): the sniff, verdicts, exit status, bad input.

The verdicts come from a stub analysis registered for the test (each core's busy-waiting load
Σ (C + G_m + G_e)/T at most 1: a necessary condition, declared "sufficient" here only so that the
exit status can be tested); the analyses of segmented task sets are tested in
tests/analyses/segmented/. What is tested is the dispatch, the reading and the output. A last
test runs the registered seg-* analyses on a small file (whatever is registered).
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from rtsched import registry
from rtsched.cli import main
from rtsched.commands._segmented import segmented_format
from rtsched.registry import Analysis, all_entries
from rtsched.result import Explanation
from rtsched.segmented import read_segmented_tasksets
from rtsched.workloads import SEGMENTED_TASKSETS

STUB = "seg-stub-cli"

YAML = """\
name: demo
tasks:
  - {name: camera, T: 40, core: 0, segments: [2, {G_m: 1, G_e: 4}, 3]}
  - {name: log, T: 20, core: 1, segments: [5]}
  - {name: detect, T: 60, D: 50, core: 1, mode: busy, segments: [1, [2, 10], 1]}
"""
HEAVY = '{"tasks": [{"T": 10, "core": 0, "segments": [4, [1, 3], 2]}, {"T": 10, "core": 0, "segments": [3]}]}\n'


def _fits(ts, m) -> bool:
    return all(sum(ts[i].utilization for i in ts.on_core(c)) <= 1 for c in range(m))


@pytest.fixture
def stub(monkeypatch):
    monkeypatch.setattr(registry, "_entries", dict(registry._discover()))
    monkeypatch.setattr(registry, "_aliases", dict(registry._aliases))
    registry.register(
        Analysis(
            name=STUB, title="stub", kind="sufficient", policy="seg-stub", note="test stub", citation="none",
            reference=lambda ts, m: _fits(ts, m), explain=lambda ts, m: Explanation(verdict=_fits(ts, m), summary="stub"),
            codes=lambda batch, m: np.array([int(_fits(ts, m)) for ts in batch.tasksets()], dtype=np.int8),
            platform="identical", featured=False, workload=SEGMENTED_TASKSETS,
        )
    )  # fmt: skip


@pytest.fixture
def files(tmp_path):
    out = {}
    for name, text in {
        "set.yaml": YAML, "heavy.json": HEAVY, "tasks.yaml": "- [1, 4, 4]\n",
        "mc.yaml": "- {level: LO, C_LO: 1, T: 4}\n", "dag.yaml": "- {T: 10, D: 10, vertices: [{id: 0, C: 1}], edges: []}\n",
        "set.csv": "segments\n1\n",
    }.items():  # fmt: skip
        (tmp_path / name).write_text(text)
        out[name] = str(tmp_path / name)
    return out


def test_sniff(files):
    assert segmented_format(files["set.yaml"], None, "auto") == "yaml"
    assert segmented_format(files["heavy.json"], None, "auto") == "json"
    assert segmented_format(files["set.yaml"], "yml", "auto") == "yaml"
    for name in ("tasks.yaml", "mc.yaml", "dag.yaml", "set.csv"):
        assert segmented_format(files[name], None, "auto") is None
    assert segmented_format(files["set.yaml"], None, "tasks") is None
    assert segmented_format(files["set.yaml"], None, "dag") is None
    assert segmented_format("-", "yaml", "auto") is None


def test_check_verdicts_and_exit_status(stub, files, capsys):
    assert main(["check", files["set.yaml"], "--tests", STUB]) == 0
    out = capsys.readouterr().out
    assert STUB in out and "τ2 (detect)" in out and "G_e" in out and "m=2" in out  # m = largest core + 1
    assert main(["check", files["heavy.json"], "--tests", STUB]) == 1  # (6 + 4)/10 + 3/10 > 1 on core 0
    capsys.readouterr()
    assert main(["check", files["set.yaml"], "--tests", STUB, "--json", "-m", "3"]) == 0
    record = json.loads(capsys.readouterr().out.splitlines()[0])
    assert record["schedulable"] is True
    assert main(["check", files["set.yaml"], "--tests", STUB, "--csv"]) == 0
    assert STUB in capsys.readouterr().out


@pytest.mark.parametrize(
    ("text", "args", "message"),
    [
        (
            "- {T: 9, core: 0, segments: [1, {G_m: 1, G_e: -3}]}\n",
            [],
            "line 1, task 0, field segment 1 G_e: G_e must be non-negative",
        ),
        ("- {T: 9, core: 0, segments: [1, 2]}\n", [], "field C_2: two CPU segments in a row"),
        ("- {T: 9, D: 12, core: 0, segments: [1]}\n", [], "field D: D = 12 exceeds T = 9"),
        ("- {T: 9, segments: [1]}\n", [], "task 0, field core: the task has no core"),
        ("- {T: 9, core: 2, segments: [1]}\n", ["-m", "2"], "field core: core 2 does not exist on m = 2 cores"),
        (YAML, ["--tests", "gfb"], "gfb analyses task sets, not CPU–GPU segmented task sets"),
        (YAML, ["--deadlines", "arbitrary"], "--deadlines applies to task-set files"),
        (YAML, ["--platform", "clustered:k=2", "-m", "4"], "identical CPU cores"),
        (YAML, ["-m", "0"], "positive number of CPU cores"),
    ],
)
def test_bad_input_is_one_line_exit_2(stub, tmp_path, capsys, text, args, message):
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    assert main(["check", str(path), *args]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err, err
    if "field -" not in err and "--tests" not in args:  # errors about the file name it; those about options the option
        assert str(path) in err, err


def test_registered_analyses_run_on_a_small_file(files, capsys):
    names = [e.name for e in all_entries() if e.workload is SEGMENTED_TASKSETS]
    if not names:
        pytest.skip("no analysis of segmented task sets is registered yet")
    status = main(["check", files["set.yaml"]])
    out = capsys.readouterr().out
    assert status in (0, 1)
    assert all(name in out for name in names)
    # the demo set is light (each core's load at most 1/2): every seg-* test of this family accepts it
    (ts,) = read_segmented_tasksets(files["set.yaml"])
    assert ts.utilization < 1 and status == 0


def test_generate_segmented_is_reproducible_and_readable(tmp_path, capsys):
    first, second, other = tmp_path / "a.yaml", tmp_path / "b.yaml", tmp_path / "c.json"
    base = ["generate", "--kind", "segmented", "--n", "3", "--utilization", "0.5", "--count", "4"]
    extra = ["-m", "2", "--param", "gpu_ratio=0.5:1", "--param", "devices=a,b", "--deadlines", "constrained"]
    assert main([*base, *extra, "--seed", "5", "-o", str(first)]) == 0
    err = capsys.readouterr().err
    assert "4 segmented task set(s) of 3 tasks per CPU on m = 2 CPUs" in err and "realised mean" in err
    assert main([*base, *extra, "--seed", "5", "-o", str(second)]) == 0
    assert first.read_bytes() == second.read_bytes()
    assert main([*base, *extra, "--seed", "6", "-o", str(other)]) == 0
    sets = read_segmented_tasksets(first)
    assert len(sets) == 4 and all(ts.n == 6 and ts.cores == (0, 1) for ts in sets)
    assert {d for ts in sets for d in ts.devices} <= {"a", "b"}
    assert all(t.C + t.G <= t.D <= t.T for ts in sets for t in ts)
    assert read_segmented_tasksets(other) != sets
    capsys.readouterr()
    assert main([*base, "--seed", "5", "-q"]) == 0  # YAML on stdout, the GCAPS defaults (m = 4)
    out = capsys.readouterr().out
    (path := tmp_path / "stdout.yaml").write_text(out)
    assert all(ts.cores == (0, 1, 2, 3) for ts in read_segmented_tasksets(path))


@pytest.mark.parametrize(
    ("args", "field", "message"),
    [
        (["--param", "gpu_ratio=-1"], "--param", "gpu_ratio must be in (0.0, inf)"),
        (["--param", "foo=1"], "--param", "unknown generator parameter 'foo'"),
        (["--param", "m=3"], "--param", "give m with -m"),
        (["--param", "ticks"], "--param", "expected KEY=VALUE"),
        (["--utilizations", "randfixedsum"], "--utilizations", "applies to --kind taskset"),
        (["--periods", "uniform:500:30"], "--periods", "LO = 500 exceeds HI = 30"),
        (["--deadlines", "arbitrary"], "--deadlines", "unknown deadline model 'arbitrary'"),
        (["-m", "0"], "-m", "m must be an integer >= 1"),
        (["--format", "csv"], "--format", "yaml or json"),
    ],
)
def test_generate_segmented_bad_options(capsys, tmp_path, args, field, message):
    target = tmp_path / "never.yaml"
    status = main(["generate", "--kind", "segmented", "--n", "3", "--utilization", "0.5", *args, "-o", str(target)])
    err = capsys.readouterr().err
    assert status == 2 and f"field {field}: " in err and message in err and err.count("\n") == 1, err
    assert not target.exists()


def test_generate_task_sets_refuse_segmented_options(capsys):
    assert main(["generate", "--n", "3", "--utilization", "0.5", "-m", "2"]) == 2
    assert "field -m: applies to --kind segmented only" in capsys.readouterr().err
    assert main(["generate", "--kind", "dag", "--n", "3", "--utilization", "0.5"]) == 2
    assert "unknown kind 'dag'; choose taskset or segmented" in capsys.readouterr().err
