"""`rtsched check`: table, JSON, exit statuses and clear errors (no tracebacks)."""

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from rtsched.cli import main

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "tasksets"


def run(capsys, *args):
    status = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return status, out, err


def test_table_for_one_set(capsys):
    status, out, _ = run(capsys, "check", EXAMPLES / "demo.yaml", "-m", 2)
    assert status == 0
    assert "analysis" in out and "gfb" in out and "schedulable" in out


def test_json_one_object_per_set(capsys, tmp_path):
    f = tmp_path / "sets.jsonl"
    f.write_text('[[2, 3, 3], [2, 3, 3], [2, 3, 3]]\n[[1, 3, 3], [1, 3, 3]]\n')
    status, out, _ = run(capsys, "check", f, "-m", 2, "--tests", "gfb", "--json")
    lines = [json.loads(x) for x in out.splitlines()]
    assert [x["index"] for x in lines] == [0, 1]
    assert lines[0]["verdicts"] == {"gfb": False}
    assert lines[1]["verdicts"] == {"gfb": True}
    assert status == 1  # not every set is proven


def test_exit_status_zero_when_all_proven(capsys, tmp_path):
    f = tmp_path / "ok.txt"
    f.write_text("1 3 3\n1 3 3\n")
    assert run(capsys, "check", f, "-m", 2, "--tests", "gfb")[0] == 0


def test_explain_shows_evidence(capsys):
    status, out, _ = run(capsys, "check", EXAMPLES / "schedcat_readme.json", "-m", 3, "--tests", "gfb", "--explain")
    assert status == 1
    assert "total_density = 2" in out and "bound = ≈1.667" in out  # decimals for people by default
    assert "5/3" not in out
    status, out, _ = run(
        capsys, "check", EXAMPLES / "schedcat_readme.json", "-m", 3, "--tests", "gfb", "--explain", "--exact-numbers"
    )
    assert "bound = 5/3 (≈1.667)" in out


def test_no_line_grows_with_the_digits_of_a_fraction(capsys, tmp_path):
    # 200 tasks with pairwise different periods: U has a denominator of hundreds of digits
    rows = [f"1 {p} {p}" for p in range(1000, 1200)]
    f = tmp_path / "many.txt"
    f.write_text("\n".join(rows) + "\n")
    _, out, _ = run(capsys, "check", f, "-m", 4, "--tests", "gfb,load,p-edf")
    assert max(len(line) for line in out.splitlines()) < 200, max(out.splitlines(), key=len)


def test_budget_option_gives_unknown_not_false(capsys, tmp_path):
    f = tmp_path / "set.txt"
    f.write_text("2 9 16\n4 5 18\n4 12 20\n2 4 13\n1 5 6\n")
    status, out, _ = run(capsys, "check", f, "-m", 2, "--tests", "exact", "--budget", "exact=1", "--json")
    assert status == 1 and json.loads(out)["verdicts"]["exact"] == "unknown"
    status, _, err = run(capsys, "check", f, "-m", 2, "--tests", "gfb", "--budget", "gfb=10")
    assert status == 2 and "gfb has no work budget" in err
    status, _, err = run(capsys, "check", f, "-m", 2, "--tests", "exact", "--budget", "exact=lots")
    assert status == 2 and "bad budget" in err


def test_json_explain_contains_results(capsys):
    _, out, _ = run(capsys, "check", EXAMPLES / "dhall.txt", "-m", 2, "--tests", "gfb", "--json", "--explain")
    obj = json.loads(out)
    assert obj["results"][0]["analysis"] == "gfb"
    assert obj["results"][0]["evidence"]["max_density"] == 1
    assert obj["results"][0]["evidence"]["total_density"] == "11/9"


@pytest.mark.parametrize(
    ("content", "name", "expect"),
    [
        ("C,D\n1,2\n", "bad.csv", ["bad.csv", "T"]),
        ("", "empty.txt", ["empty.txt"]),
        ("1 2 abc\n", "nonnum.txt", ["nonnum.txt", "line 1", "T"]),
        ("1 2 3\n0 2 3\n", "zero.txt", ["zero.txt", "line 2", "C"]),
        ("1 2 3\n4 3 5\n", "cgtd.txt", ["cgtd.txt", "line 2", "C"]),
        ("1 9 5\n", "dgtt.txt", ["dgtt.txt", "line 1", "D"]),
        ("1 2 99999999999999999999\n", "big.txt", ["big.txt", "line 1", "T"]),
        ('{"tasks": []}', "none.json", ["none.json"]),
        ('{"tasks": 3}', "struct.json", ["struct.json"]),
    ],
)
def test_malformed_inputs_exit_2_with_location(capsys, tmp_path, content, name, expect):
    f = tmp_path / name
    f.write_text(content)
    status, out, err = run(capsys, "check", f, "-m", 2)
    assert status == 2
    assert "Traceback" not in err
    for word in expect:
        assert word in err, (word, err)


def test_unknown_analysis_and_bad_m(capsys):
    status, _, err = run(capsys, "check", EXAMPLES / "demo.yaml", "-m", 2, "--tests", "gfb,nope")
    assert status == 2 and "nope" in err
    status, _, err = run(capsys, "check", EXAMPLES / "demo.yaml", "-m", 0)
    assert status == 2 and "m" in err


def test_missing_file(capsys, tmp_path):
    status, _, err = run(capsys, "check", tmp_path / "nothere.yaml", "-m", 2)
    assert status == 2 and "nothere.yaml" in err


def test_console_script_runs_as_a_process():
    proc = subprocess.run(
        [sys.executable, "-m", "rtsched.cli", "check", str(EXAMPLES / "dhall.txt"), "-m", "2", "--tests", "gfb"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 1, proc.stderr
    assert "gfb" in proc.stdout


def test_platform_clustered(capsys):
    status, out, _ = run(capsys, "check", EXAMPLES / "demo.yaml", "-m", 4, "--platform", "clustered:k=2", "--json")
    obj = json.loads(out)
    assert status == 0
    assert obj["index"] == 0 and obj["verdicts"] == {"clustered:k=2": True}
    status, out, _ = run(
        capsys, "check", EXAMPLES / "demo.yaml", "-m", 4, "--platform", "clustered:k=2", "--json", "--explain"
    )
    assert "clusters" in json.dumps(json.loads(out))


def test_platform_gpu(capsys):
    gpu_file = EXAMPLES.parent / "gpu" / "demo.yaml"
    status, out, _ = run(capsys, "check", gpu_file, "--platform", "gpu:4")
    assert status in (0, 1)
    assert "layout" in out and "baseline" in out


@pytest.mark.parametrize("platform", ["gpu:x", "mesh", "gpu:4:magic"])
def test_bad_platform(capsys, platform):
    status, _, err = run(capsys, "check", EXAMPLES / "demo.yaml", "-m", 2, "--platform", platform)
    assert status == 2
    assert "--platform" in err


def test_named_analyses_that_cannot_run_on_the_platform_are_bad_input(capsys):
    """``--tests`` naming only analyses that refuse the platform is bad input (exit 2, as a sweep
    refuses it), not "not proven" (exit 1); one that applies among them runs, the others are
    listed as skipped."""
    status, _, err = run(capsys, "check", EXAMPLES / "demo.yaml", "-m", 2, "--tests", "uni-qpa")
    assert status == 2 and "'uni-qpa' does not apply" in err and "m must be 1" in err
    status, out, _ = run(capsys, "check", EXAMPLES / "demo.yaml", "-m", 2, "--tests", "uni-qpa,gfb")
    assert status == 0 and "skipped" in out


def test_clustered_explain_shows_interfaces_and_steps_show_servers(capsys):
    """``--explain`` on a clustered platform prints each task's cluster and MPR interface (they
    were only in the JSON); ``--steps`` prints the servers and their placement."""
    status, out, _ = run(capsys, "check", EXAMPLES / "demo.yaml", "-m", 4, "--platform", "clustered:k=2", "--explain")
    assert status == 0 and "interface" in out and "⟨Π=4, Θ=8, m'=2⟩" in out and "1 virtual cluster," in out
    status, out, _ = run(capsys, "check", EXAMPLES / "demo.yaml", "-m", 4, "--platform", "clustered:k=2", "--steps")
    assert status == 0 and "servers (C, D, T): (4, 4, 4), (4, 4, 4)" in out and "servers → processors" in out


@pytest.mark.parametrize(
    ("args", "field"),
    [
        (["--format", "xml"], "--format"),
        (["--deadlines", "foo"], "--deadlines"),
        (["--time-unit", "abc"], "--time-unit"),
        (["--budget", "nope=5"], "--budget"),
    ],
)
def test_bad_option_values_name_the_option(capsys, args, field):
    status, _, err = run(capsys, "check", EXAMPLES / "demo.yaml", "-m", 2, *args)
    assert status == 2 and err.startswith(f"rtsched: error: field {field}: ") and err.count("\n") == 1


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["-m", "abc"], "field -m/--processors: bad value 'abc': "),
        (["--processors=2.5"], "field -m/--processors: bad value '2.5': "),
        (["-mx"], "field -m/--processors: bad value 'x': "),
    ],
)
def test_an_option_value_click_cannot_convert_is_one_line(capsys, args, expected):
    """A value the option's type refuses (click's conversion, before rtsched sees it) gets the
    one-line error of every other bad input, naming the option and the value (it was click's
    three lines of usage, without the value)."""
    status, out, err = run(capsys, "check", EXAMPLES / "demo.yaml", *args)
    assert status == 2 and out == ""
    assert err.startswith(f"rtsched: error: {expected}expected a whole number") and err.count("\n") == 1, err


def test_usage_errors_keep_the_usage_and_exit_2(capsys):
    """A missing argument or an unknown option still shows the usage (what to type instead)."""
    for args in (["check"], ["check", "--nope", "x"], ["bogus"]):
        status, _, err = run(capsys, *args)
        assert status == 2 and "Usage:" in err and "Error:" in err, (args, err)
    assert run(capsys, "--version")[0] == 0


def test_a_gpu_workload_without_the_gpu_platform_says_how_to_check_it(capsys):
    """A GPU workload read as a task set is named as such, with the two ways to check it (it was
    "unknown key 'clusters'")."""
    status, _, err = run(capsys, "check", EXAMPLES.parent / "gpu" / "demo.yaml", "-m", 2)
    assert status == 2 and "this is a GPU workload" in err and "--platform gpu:M" in err and "line 2" in err


def test_many_sets_are_decided_in_growing_batches_with_progress_on_a_terminal(monkeypatch):
    """``rtsched check`` decides a long file batch by batch (its output starts with the first
    batch) and shows how far it is on a terminal; the reports equal one ``check_many`` call."""
    import io

    from rtsched.check import check_many
    from rtsched.commands import check as command
    from rtsched.model import TaskSet

    sets = [TaskSet.from_tasks([(1 + i % 3, 6, 7), (2, 5 + i % 4, 9), (1, 4, 4)]) for i in range(150)]
    calls: list[int] = []

    def counted(batch, *args):
        calls.append(len(batch))
        return check_many(batch, *args)

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    monkeypatch.setattr(command, "check_many", counted)
    monkeypatch.setattr(command, "_PROGRESS_AFTER", -1.0)
    # every batch counts as fast: with a cold kernel cache (CI's install modes) the first one
    # compiles the kernels and takes seconds, which would keep the next one the same size
    monkeypatch.setattr(command, "_BATCH_SECONDS", float("inf"))
    terminal = Terminal()
    reports = list(command._reports(sets, 2, "gfb,bcl-iter", {}, stream=terminal))
    # the batches double while fast; the first is larger than check_many's small input (32 sets):
    # a file this large is decided by the kernels from its first set on
    assert calls == [33, 66, 51]
    assert [r.verdicts for r in reports] == [r.verdicts for r in check_many(sets, 2, "gfb,bcl-iter")]
    assert "rtsched check: 33/150 sets" in terminal.getvalue() and terminal.getvalue().endswith("\n")
    quiet = io.StringIO()  # not a terminal: nothing
    list(command._reports(sets, 2, "gfb", {}, stream=quiet))
    assert quiet.getvalue() == ""
    calls.clear()  # a small file: one batch, which check_many may decide by the references
    list(command._reports(sets[:32], 2, "gfb", {}, stream=quiet))
    assert calls == [32]


def test_a_large_file_is_decided_by_the_kernels_from_its_first_batch(monkeypatch):
    """No exact reference runs for a file of more than warmup.COLD_MAX_SETS sets (rtsched.check's
    ski rental is for small inputs; a 3,000-set file spent 0.5 s in references before loading)."""
    import importlib

    from rtsched.commands import check as command
    from rtsched.model import TaskSet
    from rtsched.warmup import COLD_MAX_SETS

    checking = importlib.import_module("rtsched.check")  # the module (rtsched.check is also the function)

    def cold(*args):
        raise AssertionError("a reference decided a set of a large file")

    monkeypatch.setattr(checking, "_cold_reference", cold)
    monkeypatch.setattr(checking, "_COLD_SECONDS", {})
    monkeypatch.setattr(checking, "_KERNEL_USED", set())
    sets = [TaskSet.from_tasks([(1 + i % 3, 6, 7), (2, 5 + i % 4, 9)]) for i in range(COLD_MAX_SETS + 1)]
    reports = list(command._reports(sets, 2, "gfb,bcl", {}, stream=io.StringIO()))
    assert len(reports) == len(sets)
