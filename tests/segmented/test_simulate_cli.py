"""``rtsched simulate`` on CPU–GPU segmented files: --protocol, --mode, --execution, --arrivals,
--gantt, --json, the exit status (1 on a miss) and bad input (one line, exit 2)."""

from __future__ import annotations

import json
import os

import pytest

os.environ.setdefault("MPLBACKEND", "Agg")

from rtsched.cli import main

# core 0: camera C 1, G (2, 2), C 1; core 1: detect C 2, G (0, 4), C 1, D = 7. Under MPCP and FMLP+
# camera holds the GPU [1, 5), detect waits from 2, runs G_e [5, 9) and C [9, 10): 10 > 7, a miss;
# without contention (none) its G_e runs [2, 6) and it completes at 7, on its deadline.
YAML = """\
name: demo
tasks:
  - {name: camera, T: 20, core: 0, segments: [1, {G_m: 2, G_e: 2}, 1]}
  - {name: detect, T: 20, D: 7, core: 1, segments: [2, [0, 4], 1]}
"""


@pytest.fixture
def file(tmp_path):
    path = tmp_path / "set.yaml"
    path.write_text(YAML)
    return str(path)


@pytest.mark.parametrize(
    ("protocol", "status", "line"),
    [
        pytest.param(
            "mpcp", 1,
            "deadline miss: τ1 (detect) job 0 (released at 0, due at 7, completed at 10) (mpcp on m=2, suspend mode, "
            "periodic arrivals, wcet execution, 2 jobs)",
            id="mpcp-miss",
        ),
        pytest.param(
            "fmlp+", 1,
            "deadline miss: τ1 (detect) job 0 (released at 0, due at 7, completed at 10) (fmlp+ on m=2, suspend mode, "
            "periodic arrivals, wcet execution, 2 jobs)",
            id="fmlp-miss",
        ),
        pytest.param(
            "none", 0,
            "no deadline miss in [0, 20] (none on m=2, suspend mode, periodic arrivals, wcet execution, 2 jobs)",
            id="none-meets",
        ),
    ],
)  # fmt: skip
def test_protocols_and_exit_status(file, capsys, protocol, status, line):
    assert main(["simulate", file, "-m", "2", "--protocol", protocol]) == status
    assert capsys.readouterr().out.strip() == line


def test_json_mode_and_gantt(file, tmp_path, capsys):
    png = tmp_path / "run.png"
    assert main(["simulate", file, "-m", "3", "--mode", "busy", "--json", "--gantt", str(png)]) == 1
    record = json.loads(capsys.readouterr().out)
    assert record["index"] == 0 and record["mode"] == "busy" and record["m"] == 3
    assert record["misses"] == [{"task": 1, "job": 0, "release": 0, "deadline": 7, "completion": 10}]
    assert {"resource": "core0", "task": 0, "job": 0, "start": 2, "end": 4, "what": "spin-gpu"} in record["intervals"]
    assert png.read_bytes()[:4] == b"\x89PNG"


def test_random_sporadic_runs_are_reproducible(file, capsys):
    args = ["simulate", file, "-m", "2", "--protocol", "none", "--arrivals", "sporadic", "--execution", "random"]
    assert main([*args, "--seed", "4", "--json"]) in (0, 1)
    first = capsys.readouterr().out
    assert main([*args, "--seed", "4", "--json"]) in (0, 1)
    assert capsys.readouterr().out == first
    assert json.loads(first)["horizon"] == 200 * 20


def test_gantt_line(file, tmp_path, capsys):
    png = tmp_path / "g.png"
    assert main(["simulate", file, "-m", "2", "--protocol", "none", "--gantt", str(png)]) == 0
    assert capsys.readouterr().out.splitlines()[1] == f"Gantt chart: {png}"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        pytest.param(["-m", "1"], "field core: core 1 does not exist on m = 1", id="core-beyond-m"),
        pytest.param(["-m", "2", "--protocol", "pcp"], "field --protocol: unknown protocol 'pcp'", id="protocol"),
        pytest.param(["-m", "2", "--mode", "spin"], "field --mode: unknown mode 'spin'", id="mode"),
        pytest.param(["-m", "2", "--execution", "bcet"], "field --execution: unknown execution", id="execution"),
        pytest.param(["-m", "2", "--policy", "gfp"], "field --policy: --policy applies to task-set files", id="policy"),
        pytest.param(["-m", "2", "--ties", "fifo"], "field --ties: --ties applies to task-set files", id="ties"),
    ],
)
def test_bad_input_is_one_line_exit_2(file, capsys, args, message):
    assert main(["simulate", file, *args]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and message in err
    if "core" in message:
        assert "set.yaml" in err and "detect" in err


def test_segmented_options_refused_for_other_files(tmp_path, capsys):
    path = tmp_path / "tasks.csv"
    path.write_text("C,D,T\n1,4,4\n")
    assert main(["simulate", str(path), "-m", "1", "--protocol", "fmlp+"]) == 2
    assert "--protocol applies to CPU–GPU segmented task sets" in capsys.readouterr().err
