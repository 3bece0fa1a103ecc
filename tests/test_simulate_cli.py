"""Tests of ``rtsched simulate`` (rtsched/commands/simulate.py)."""

from __future__ import annotations

import json

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
    from rtsched import analyses

    if "p-edf" not in analyses.names():
        pytest.skip("p-edf not registered")
    assert main(["simulate", str(dhall_file), "-m", "2", "--policy", "pedf:p-edf"]) == 0


def test_json_sporadic(dhall_file, capsys):
    main(["simulate", str(dhall_file), "-m", "2", "--arrivals", "sporadic", "--seed", "3", "--json"])
    record = json.loads(capsys.readouterr().out.splitlines()[0])
    assert record["arrivals"] == "sporadic" and record["seed"] == 3
    assert record["miss"] is None or record["miss"]["task"] in (0, 1, 2)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--policy", "pedf:0,1"], "2 processor indices for 3 tasks"),
        (["--policy", "fifo"], "unknown policy"),
        (["--policy", "pedf:gfb"], "not a partitioned"),
        (["--arrivals", "bursty"], "periodic or sporadic"),
        (["--ties", "lifo"], "unknown tie rule"),
        (["--ties", "random:abc"], "non-negative integer"),
    ],
)
def test_bad_input_exits_2(dhall_file, capsys, args, message):
    assert main(["simulate", str(dhall_file), "-m", "2", *args]) == 2
    assert message in capsys.readouterr().err


def test_parse_policy():
    ts = TaskSet.from_tasks([(1, 2, 2), (1, 3, 3)])
    assert parse_policy("gedf", ts, 2) == ("gedf", None)
    assert parse_policy("pedf:1,0", ts, 2) == ("pedf", [1, 0])
    with pytest.raises(InputError):
        parse_policy("pedf:", ts, 2)


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
