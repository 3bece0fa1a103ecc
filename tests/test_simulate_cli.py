"""Tests of ``rtsched simulate`` (rtsched/commands/simulate.py)."""

from __future__ import annotations

import json
import re

import pytest

from rtsched.cli import main
from rtsched.commands.simulate import parse_policy
from rtsched.errors import InputError
from rtsched.model import TaskSet

DHALL = "2 6 6\n2 6 6\n6 7 7\n"


@pytest.fixture
def dhall_file(tmp_path):
    path = tmp_path / "dhall.txt"
    path.write_text(DHALL)
    return path


def test_gedf_miss_exit_status_and_gantt(dhall_file, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("MPLBACKEND", "Agg")
    png = tmp_path / "g.png"
    assert main(["simulate", str(dhall_file), "-m", "2", "--gantt", str(png), "--gantt-rows", "tasks"]) == 1
    out = capsys.readouterr().out
    assert "deadline miss" in out and "t=7" in out
    assert png.stat().st_size > 1000


def test_pedf_explicit_partition(dhall_file, capsys):
    assert main(["simulate", str(dhall_file), "-m", "2", "--policy", "pedf:0,0,1"]) == 0
    assert "no deadline miss" in capsys.readouterr().out


def test_pedf_from_registry(dhall_file, capsys):
    assert main(["simulate", str(dhall_file), "-m", "2", "--policy", "pedf:p-edf"]) == 0


def test_json_sporadic(dhall_file, capsys):
    """--json prints the trace of the seeded sporadic run: the one the Python API gives for that seed."""
    from rtsched.sim import simulate

    main(["simulate", str(dhall_file), "-m", "2", "--arrivals", "sporadic", "--seed", "3", "--json"])
    record = json.loads(capsys.readouterr().out.splitlines()[0])
    trace = simulate(TaskSet.from_tasks([(2, 6, 6), (2, 6, 6), (6, 7, 7)]), 2, arrivals="sporadic", seed=3)
    assert record["arrivals"] == "sporadic" and record["seed"] == 3
    assert record["releases"] == trace.releases.tolist() and len(record["releases"]) > 3
    assert record["end_time"] == trace.end_time and record["jobs"] == trace.jobs
    if trace.miss is None:
        assert record["miss"] is None
    else:
        miss = trace.miss
        assert record["miss"] == {"time": miss.time, "task": miss.task, "job": miss.job, "remaining": miss.remaining}
    main(["simulate", str(dhall_file), "-m", "2", "--arrivals", "sporadic", "--seed", "4", "--json"])
    assert json.loads(capsys.readouterr().out.splitlines()[0])["releases"] != record["releases"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--policy", "pedf:0,1"], "2 processor indices for 3 tasks"),
        (["--policy", "fifo"], "unknown policy"),
        (["--policy", "pedf:gfb"], "not a partitioned"),
        (["--arrivals", "bursty"], "periodic or sporadic"),
        (["--ties", "lifo"], "unknown tie rule"),
        (["--ties", "random:abc"], "non-negative integer"),
        (["--policy", "pfp:0,1"], "2 processor indices for 3 tasks"),
        (["--policy", "pfp:p-edf"], "not a partitioned FP"),
        (["--policy", "pedf:p-fp"], "not a partitioned EDF"),
        (["--policy", "gfp", "--ties", "fifo"], "never tie"),
        (["--policy", "pfp:"], "unknown policy"),
        (["--gantt", "g.jpg"], "use .png, .pdf or .svg"),
        (["--execution", "bcet"], "choose wcet or random"),
    ],
)
def test_bad_input_exits_2(dhall_file, capsys, args, message):
    assert main(["simulate", str(dhall_file), "-m", "2", *args]) == 2
    assert message in capsys.readouterr().err


def test_zero_processors_named_once(dhall_file, capsys):
    assert main(["simulate", str(dhall_file), "-m", "0"]) == 2
    err = capsys.readouterr().err
    assert "field -m: " in err and err.count("field") == 1


def test_parse_policy():
    ts = TaskSet.from_tasks([(1, 2, 2), (1, 3, 3)])
    assert parse_policy("gedf", ts, 2) == ("gedf", None)
    assert parse_policy("pedf:1,0", ts, 2) == ("pedf", [1, 0])
    with pytest.raises(InputError):
        parse_policy("pedf:", ts, 2)
    assert parse_policy("gfp", ts, 2) == ("gfp", None)
    assert parse_policy("pfp:0,0", ts, 2) == ("pfp", [0, 0])


def _registered(name):
    from rtsched import analyses

    if name not in analyses.names():
        pytest.skip(f"{name} not registered")


def test_partitioned_defaults_take_the_featured_analysis():
    """``pedf`` alone is p-edf's assignment, ``pfp`` alone p-fp's (its "P<k>" cells parsed)."""
    _registered("p-fp")
    _registered("p-edf")
    ts = TaskSet.from_tasks([(2, 6, 6), (2, 6, 6), (6, 7, 7)])
    kind, partition = parse_policy("pfp", ts, 2)
    assert kind == "pfp" and len(partition) == 3 and set(partition) <= {0, 1}
    assert partition[2] != partition[0] and partition[2] != partition[1]  # the heavy task alone
    assert parse_policy("pfp:p-fp", ts, 2) == (kind, partition)
    kind, partition = parse_policy("pedf", ts, 2)
    assert kind == "pedf" and partition == parse_policy("pedf:p-edf", ts, 2)[1]


def test_partitioned_analysis_that_cannot_place_is_an_error():
    _registered("p-fp")
    ts = TaskSet.from_tasks([(3, 4, 4), (3, 4, 4), (3, 4, 4)])
    with pytest.raises(InputError, match="could not place"):
        parse_policy("pfp", ts, 2)


def test_fixed_priority_policies(dhall_file, tmp_path, capsys, monkeypatch):
    """G-FP in the file's order misses (Dhall's effect: the heavy task last); P-FP with p-fp's
    placement does not; the Gantt chart is drawn as for EDF."""
    monkeypatch.setenv("MPLBACKEND", "Agg")
    png = tmp_path / "gfp.png"
    assert main(["simulate", str(dhall_file), "-m", "2", "--policy", "gfp", "--gantt", str(png)]) == 1
    out = capsys.readouterr().out
    assert "deadline miss: τ2" in out and "gfp on m=2" in out and "task-order priorities" in out
    assert png.stat().st_size > 1000
    _registered("p-fp")
    assert main(["simulate", str(dhall_file), "-m", "2", "--policy", "pfp", "--json"]) == 0
    record = json.loads(capsys.readouterr().out.splitlines()[0])
    assert record["policy"] == "pfp" and record["miss"] is None and len(record["partition"]) == 3


SMALLEST = "2 2 2\n1 2 2\n1 2 2\n"  # papers/gedf-ties.md: schedulable with index ties only


@pytest.fixture
def smallest_file(tmp_path):
    path = tmp_path / "smallest.txt"
    path.write_text(SMALLEST)
    return path


def test_ties_option(smallest_file, capsys):
    """Synchronous periodic releases: index and FIFO ties meet every deadline; seed 0 of random does not."""
    assert main(["simulate", str(smallest_file), "-m", "2"]) == 0
    assert "index ties" in capsys.readouterr().out
    assert main(["simulate", str(smallest_file), "-m", "2", "--ties", "fifo"]) == 0
    assert "fifo ties" in capsys.readouterr().out
    assert main(["simulate", str(smallest_file), "-m", "2", "--ties", "random:0"]) == 1
    out = capsys.readouterr().out
    assert "deadline miss: τ0" in out and "random:0 ties" in out
    assert main(["simulate", str(smallest_file), "-m", "2", "--ties", "random"]) == 1  # seed 0 by default


def test_ties_in_json_and_gantt(smallest_file, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("MPLBACKEND", "Agg")
    svg = tmp_path / "ties.svg"
    main(["simulate", str(smallest_file), "-m", "2", "--ties", "random:0", "--json", "--gantt", str(svg), "--gantt-rows", "tasks"])
    record = json.loads(capsys.readouterr().out.splitlines()[0])
    assert record["ties"] == "random:0"
    assert [row[1:] for row in record["tie_decisions"] if row[0] == 0] == [[0, 0, 0], [1, 0, 1], [2, 0, 1]]
    assert "tie broken" in svg.read_text()


def test_real_valued_files_with_a_time_unit(tmp_path, capsys, monkeypatch):
    """``--time-unit`` reads real-valued files, as in ``check`` (the reader's error suggests it);
    the hints of the errors name only options that exist."""
    monkeypatch.setenv("MPLBACKEND", "Agg")
    path = tmp_path / "real.txt"
    path.write_text("0.5 2 2.5\n1 3 4\n")
    assert main(["simulate", str(path), "-m", "1"]) == 2
    assert "--time-unit 0.5" in capsys.readouterr().err
    assert main(["simulate", str(path), "-m", "1", "--time-unit", "0.5"]) == 0
    assert "no deadline miss" in capsys.readouterr().out
    assert main(["plot-demand", str(path), "-m", "1", "--time-unit", "0.5", "-o", str(tmp_path / "d.png")]) == 0
    assert (tmp_path / "d.png").stat().st_size > 1000
    assert main(["check", str(path), "-m", "1", "--time-unit", "0.2"]) == 2
    err = capsys.readouterr().err
    assert "shorter time unit" in err and "--rounding" not in err
    late = tmp_path / "late.txt"
    late.write_text("1 5 4\n")
    assert main(["simulate", str(late), "-m", "1"]) == 2
    assert "--deadlines arbitrary for rtsched check, convert and simulate" in capsys.readouterr().err
    assert main(["simulate", str(late), "-m", "1", "--deadlines", "arbitrary"]) == 0  # issue #47: D > T simulated
    assert "no deadline miss" in capsys.readouterr().out


@pytest.mark.parametrize("arrivals", [["--arrivals", "periodic"], ["--arrivals", "sporadic", "--seed", "3"]])
def test_the_miss_line_is_the_same_with_and_without_gantt(dhall_file, tmp_path, capsys, monkeypatch, arrivals):
    """Without --gantt the line names the missed job and the work left too (it said only the task
    and the time, the run being unrecorded)."""
    monkeypatch.setenv("MPLBACKEND", "Agg")
    assert main(["simulate", str(dhall_file), "-m", "2", *arrivals]) == 1
    plain = capsys.readouterr().out.splitlines()[0]
    assert main(["simulate", str(dhall_file), "-m", "2", *arrivals, "--gantt", str(tmp_path / "g.png")]) == 1
    assert capsys.readouterr().out.splitlines()[0] == plain and " job " in plain and re.search(r"\d+ ticks? left", plain)


def test_random_execution(dhall_file, capsys):
    """--execution random: seeded demands in [1, C]; --json lists them, one per release row."""
    base = ["simulate", str(dhall_file), "-m", "2", "--execution", "random", "--horizon", "42"]
    statuses = {main([*base, "--seed", str(seed)]) for seed in range(12)}
    out = capsys.readouterr().out
    assert "random execution" in out and statuses <= {0, 1}
    assert main([*base, "--seed", "3", "--json"]) in (0, 1)
    row = json.loads(capsys.readouterr().out)
    assert row["execution"] == "random" and len(row["demands"]) == len(row["releases"])
    assert all(1 <= d <= int(DHALL.split()[3 * task]) for (task, *_), d in zip(row["releases"], row["demands"], strict=True))
    assert main([*base, "--seed", "3", "--tardiness"]) in (0, 1)
    assert "random execution" in capsys.readouterr().out
