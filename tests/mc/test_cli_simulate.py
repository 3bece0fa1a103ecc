"""``rtsched simulate`` on mixed-criticality files (rtsched/commands/_mc.py): runs worked by hand, options, bad input.

The simulator itself is tested in test_sim.py; here the routing, the options' mapping to
:func:`rtsched.mc.sim.simulate_mc` / :func:`rtsched.mc.sim.switch_search`, the output, the exit
status and the one-line errors.
"""

from __future__ import annotations

import json

import pytest

from rtsched.cli import main

# Vestal-style set (tests/mc/test_sim.py's AMC_BEATS_SMC): τ0 LO (C = 2, T = D = 4) above τ1 HI
# (C(LO) = 1, C(HI) = 3, T = D = 6), fixed priorities in the file's order (= deadline monotonic).
# AMC-rtb: R1(LO) = 1 + 2 = 3, R1* = 3 + ceil(3/4)·2 = 5 <= 6; SMC: R1 = 3 + ceil(R1/4)·2 = 7 > 6.
VESTAL = """\
tasks:
  - {name: log, level: LO, C_LO: 2, T: 4}
  - {name: brake, level: HI, C_LO: 1, C_HI: 3, T: 6}
"""
# τ0 LO (2, 4), τ1 HI (1, 3, 4): U_LL = 1/2, U_HL = 1/4, U_HH = 3/4; EDF-VD's x = U_HL/(1 - U_LL) = 1/2.
EDF_VD = "- {name: a, level: LO, C_LO: 2, T: 4}\n- {name: b, level: HI, C_LO: 1, C_HI: 3, T: 4}\n"
HEAVY = '[{"level": "HI", "C_LO": 4, "C_HI": 8, "T": 10}, {"level": "LO", "C_LO": 5, "T": 10}]\n'
TWO_SETS = "tasksets:\n  - tasks: [{level: HI, C_LO: 1, C_HI: 2, T: 5}]\n  - tasks: [{level: LO, C_LO: 1, T: 3}]\n"


@pytest.fixture
def files(tmp_path):
    out = {}
    for name, text in {
        "vestal.yaml": VESTAL, "vd.yaml": EDF_VD, "heavy.json": HEAVY, "two.yaml": TWO_SETS,
        "vestal.csv": "name,level,C_LO,C_HI,T\nlog,LO,2,,4\nbrake,HI,1,3,6\n",
        "tasks.yaml": "- [1, 4, 4]\n",
    }.items():  # fmt: skip
        (tmp_path / name).write_text(text)
        out[name] = str(tmp_path / name)
    return out


def run(capsys, *args):
    status = main(["simulate", *args])
    out, err = capsys.readouterr()
    return status, out, err


def test_amc_meets_where_smc_misses(files, capsys):
    # AMC: [0, 2) τ0; [2, 3) τ1 uses C(LO) = 1 and goes on: switch at 3, τ0's arrivals at 4 and 8
    # skipped; τ1 completes at 5 (R* = 5, AMC-rtb's bound); job 1 runs [6, 9).
    status, out, _ = run(capsys, files["vestal.yaml"], "-m", "1")
    assert status == 0
    assert out == (
        "no failure in [0, 12] (fp AMC on m=1, periodic arrivals, hi scenario, 3 jobs; "
        "switch at t=3, 0 LO jobs dropped, 2 LO arrivals skipped)\n"
    )
    # SMC: τ0's job 1 (released at 4) keeps running ahead of τ1, which has 1 tick left at t = 6.
    status, out, _ = run(capsys, files["vestal.yaml"], "-m", "1", "--policy", "smc")
    assert status == 1
    assert out.startswith("deadline miss: τ1 (brake) (HI) job 0 (released at 0) at t=6 in HI mode with 1 tick left")
    # the analyses agree: AMC-rtb proves it, SMC does not
    assert main(["check", files["vestal.yaml"], "--tests", "mc-amc-rtb-dm"]) == 0
    assert main(["check", files["vestal.yaml"], "--tests", "mc-smc-dm"]) == 1
    capsys.readouterr()
    # the CSV file of the same set, same outcome
    assert run(capsys, files["vestal.csv"], "-m", "1", "--policy", "smc")[0] == 1


def test_json_fields(files, capsys):
    status, out, _ = run(capsys, files["vestal.yaml"], "-m", "1", "--json")
    assert status == 0
    doc = json.loads(out)
    assert doc["index"] == 0
    assert (doc["scheduler"], doc["policy"], doc["scenario"], doc["arrivals"], doc["m"]) == (
        "fp",
        "amc",
        "hi",
        "periodic",
        1,
    )
    assert doc["switches"] == [{"time": 3, "core": 0, "task": 1, "job": 0}]
    assert doc["segments"] == [[0, 0, 0, 0, 2], [0, 1, 0, 2, 5], [0, 1, 1, 6, 9]]
    assert doc["skipped"] == 2 and doc["miss"] is None and doc["misses"] == []
    assert doc["response_lo"] == [2, None] and doc["response_hi"] == [None, 5]
    assert doc["priorities"] == [0, 1] and doc["taskset"][1]["name"] == "brake"
    status, out, _ = run(capsys, files["vestal.yaml"], "-m", "1", "--json", "--policy", "smc")
    doc = json.loads(out)
    assert status == 1
    assert doc["miss"] == {
        "time": 6,
        "task": 1,
        "job": 0,
        "remaining": 1,
        "release": 0,
        "deadline": 6,
        "mode": "HI",
        "core": 0,
    }


def test_scenarios_and_overruns(files, capsys):
    status, out, _ = run(capsys, files["vestal.yaml"], "-m", "1", "--policy", "smc", "--scenario", "lo")
    assert status == 0 and "lo scenario, 5 jobs; no mode switch" in out
    # only τ1's job 1 (released at 6) overruns: [6, 7) C(LO), switch at 7, τ0's arrival at 8 skipped
    status, out, _ = run(capsys, files["vestal.yaml"], "-m", "1", "--overrun", "brake:1", "--json")
    doc = json.loads(out)
    assert status == 0 and doc["scenario"] == "explicit"
    assert doc["switches"] == [{"time": 7, "core": 0, "task": 1, "job": 1}] and doc["overruns"] == [[1, 1, 3]]
    # an explicit demand, by index
    doc = json.loads(run(capsys, files["vestal.yaml"], "-m", "1", "--overrun", "1:0:2", "--json")[1])
    assert doc["overruns"] == [[1, 0, 2]] and doc["response_hi"] == [None, 4]
    # random: seeded, the same seed the same run
    first = run(
        capsys,
        files["vestal.yaml"],
        "-m",
        "1",
        "--scenario",
        "random",
        "--seed",
        "5",
        "--json",
        "--arrivals",
        "sporadic",
    )
    again = run(
        capsys,
        files["vestal.yaml"],
        "-m",
        "1",
        "--scenario",
        "random",
        "--seed",
        "5",
        "--json",
        "--arrivals",
        "sporadic",
    )
    assert first == again and json.loads(first[1])["arrivals"] == "sporadic"
    # --execution random: jobs that do not overrun run at most C(LO)
    doc = json.loads(
        run(capsys, files["vestal.yaml"], "-m", "1", "--scenario", "lo", "--execution", "random", "--json")[1]
    )
    assert all(1 <= demand <= (2, 1)[task] for task, _j, _r, _d, demand in doc["releases"])


def test_switch_search(files, capsys):
    # candidates: τ1's jobs released at 0 and 6 (the hyperperiod is 12); AMC survives both
    status, out, _ = run(capsys, files["vestal.yaml"], "-m", "1", "--switch-search")
    assert (status, out) == (0, "no failure with any of 2 overrunning jobs\n")
    status, out, _ = run(capsys, files["vestal.yaml"], "-m", "1", "--switch-search", "--policy", "smc")
    assert status == 1 and out.startswith("1 failure among 1 overrunning job; first: deadline miss: τ1 (brake)")
    status, out, _ = run(capsys, files["vestal.yaml"], "-m", "1", "--switch-search", "--policy", "smc", "--json")
    doc = json.loads(out)
    assert status == 1 and doc["switch_search"]["candidates"] == [[1, 0]] and doc["switch_search"]["failures"] == 1
    assert doc["miss"]["time"] == 6 and doc["segments"]  # the failing run, recorded


def test_edf_vd_default_x_and_other_schedulers(files, capsys):
    # EDF, tie by index: τ0 [0, 2), τ1 [2, 3) switch at 3, 2 ticks left for 1 tick: miss at 4.
    status, out, _ = run(capsys, files["vd.yaml"], "-m", "1", "--scheduler", "edf")
    assert status == 1 and "at t=4 in HI mode with 1 tick left" in out
    assert run(capsys, files["vd.yaml"], "-m", "1", "--scheduler", "edf-vd", "--x", "1")[0] == 1
    # x = 1/2 (mc-edf-vd's): τ1's virtual deadline 2 runs it first, [0, 3), switch at 1.
    status, out, _ = run(capsys, files["vd.yaml"], "-m", "1", "--scheduler", "edf-vd", "--json")
    doc = json.loads(out)
    assert status == 0 and doc["virtual_deadlines"] == ["4", "2"] and doc["segments"] == [[0, 1, 0, 0, 3]]
    assert (
        json.loads(run(capsys, files["vd.yaml"], "-m", "1", "--scheduler", "edf-vd", "--x", "1/2", "--json")[1]) == doc
    )
    # priorities: the reverse order makes τ0 (HI, 8 of 10 ticks) wait 5 ticks: miss
    assert run(capsys, files["heavy.json"], "-m", "1")[0] == 0
    assert run(capsys, files["heavy.json"], "-m", "1", "--priorities", "1,0")[0] == 1
    doc = json.loads(run(capsys, files["heavy.json"], "-m", "1", "--priorities", "mc-amc-max-opa", "--json")[1])
    assert doc["priorities"] == [0, 1]
    status, out, _ = run(capsys, files["heavy.json"], "-m", "2", "--scheduler", "global-fp")
    assert status == 0 and "global-fp AMC on m=2" in out
    assert run(capsys, files["heavy.json"], "-m", "2", "--scheduler", "global-edf-vd", "--x", "1")[0] == 0


def test_partitioned(files, capsys):
    doc = json.loads(
        run(capsys, files["heavy.json"], "-m", "2", "--scheduler", "partitioned", "--partition", "1,0", "--json")[1]
    )
    assert doc["partition"] == [1, 0] and doc["core_scheduler"] == "fp" and doc["miss"] is None
    doc = json.loads(
        run(capsys, files["heavy.json"], "-m", "2", "--scheduler", "partitioned:edf", "--partition", "0,0", "--json")[1]
    )
    assert doc["core_scheduler"] == "edf" and doc["partition"] == [0, 0]
    # an analysis's assignment: mc-pfp-* (FP, its per-core priorities), mc-p-edf-vd (EDF-VD, its x per core)
    doc = json.loads(
        run(
            capsys,
            files["heavy.json"],
            "-m",
            "2",
            "--scheduler",
            "partitioned",
            "--partition",
            "mc-pfp-ff-amc-max",
            "--json",
        )[1]
    )
    assert (doc["partition"], doc["priorities"], doc["core_scheduler"]) == ([0, 0], [0, 1], "fp")
    doc = json.loads(
        run(
            capsys, files["heavy.json"], "-m", "2", "--scheduler", "partitioned", "--partition", "mc-p-edf-vd", "--json"
        )[1]
    )
    assert (doc["partition"], doc["core_scheduler"], doc["virtual_deadlines"]) == ([0, 1], "edf-vd", ["10", "10"])


def test_gantt_written(files, capsys, tmp_path):
    path = tmp_path / "amc.png"
    status, out, _ = run(capsys, files["vestal.yaml"], "-m", "1", "--gantt", str(path))
    assert status == 0 and out.endswith(f"Gantt chart: {path}\n")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    status, out, _ = run(capsys, files["two.yaml"], "-m", "1", "--gantt", str(tmp_path / "two.svg"))
    assert status == 0 and out.startswith("[0] no failure") and "[1] no failure" in out
    assert (tmp_path / "two-0.svg").stat().st_size > 0 and (tmp_path / "two-1.svg").stat().st_size > 0
    search = tmp_path / "search.pdf"
    assert (
        run(capsys, files["vestal.yaml"], "-m", "1", "--switch-search", "--policy", "smc", "--gantt", str(search))[0]
        == 1
    )
    assert search.read_bytes()[:4] == b"%PDF"


def test_task_set_files_unchanged(files, capsys):
    status, out, _ = run(capsys, files["tasks.yaml"], "-m", "1")
    assert status == 0 and out.startswith("no deadline miss")
    assert run(capsys, files["tasks.yaml"], "-m", "1", "--policy", "gfp")[0] == 0


@pytest.mark.parametrize(
    ("name", "args", "message"),
    [
        ("vestal.yaml", ["--policy", "gedf"], "field --policy: mixed-criticality task sets: policy amc or smc"),
        ("vestal.yaml", ["--scheduler", "rm"], "field --scheduler: unknown scheduler 'rm'"),
        ("vestal.yaml", ["--scheduler", "fp:edf"], "field --scheduler: unknown scheduler 'fp:edf'"),
        ("heavy.json", ["-m", "2"], "field --scheduler: give the scheduler on m = 2 processors"),
        ("vestal.yaml", ["-m", "2", "--scheduler", "fp"], "field -m: fp is a uniprocessor scheduler"),
        ("heavy.json", ["-m", "2", "--scheduler", "partitioned"], "field --partition: partitioned needs --partition"),
        (
            "heavy.json",
            ["-m", "2", "--scheduler", "partitioned", "--partition", "0,5"],
            "task τ1, field --partition: core 5",
        ),
        (
            "heavy.json",
            ["-m", "2", "--scheduler", "partitioned", "--partition", "0"],
            "field --partition: 1 values for 2 tasks",
        ),
        ("heavy.json", ["-m", "1", "--scheduler", "partitioned", "--partition", "mc-edf-vd"], "not a partitioned"),
        (
            "heavy.json",
            ["-m", "2", "--scheduler", "partitioned:edf", "--partition", "mc-p-edf-vd"],
            "not partitioned:edf",
        ),
        ("heavy.json", ["--partition", "0,0"], "field --partition: --partition applies to --scheduler partitioned"),
        ("heavy.json", ["-m", "2", "--scheduler", "global-edf-vd"], "field --x: edf-vd needs the factor x"),
        ("vestal.yaml", ["--x", "1/2"], "field --x: x and virtual_deadlines apply to edf-vd, not fp"),
        ("vd.yaml", ["--scheduler", "edf-vd", "--x", "3/2"], "field --x: x must lie in (0, 1]"),
        ("vestal.yaml", ["--overrun", "log:0"], "task τ0 (log), field --overrun: only a HI task's job can overrun"),
        ("vestal.yaml", ["--overrun", "brake"], "field --overrun: expected TASK:JOB or TASK:JOB:DEMAND"),
        ("vestal.yaml", ["--overrun", "gear:0"], "field --overrun: 'gear:0': no task 'gear'"),
        (
            "vestal.yaml",
            ["--overrun", "1:0:9"],
            "field --overrun: overrun demand 9 of job 0 must lie in (C(LO), C(HI)]",
        ),
        ("vestal.yaml", ["--overrun", "1:0", "--scenario", "lo"], "field --overrun: --overrun needs the explicit"),
        ("vestal.yaml", ["--scenario", "explicit"], "field --overrun: the explicit scenario needs overruns"),
        ("vestal.yaml", ["--scenario", "worst"], "field --scenario: unknown scenario 'worst'"),
        ("vestal.yaml", ["--switch-search", "--scenario", "hi"], "field --scenario: --switch-search chooses"),
        ("vestal.yaml", ["--priorities", "0,0"], "field --priorities: priorities must be a permutation"),
        ("vestal.yaml", ["--priorities", "gfb"], "field --priorities: gfb is not an analysis of mixed-criticality"),
        ("vestal.yaml", ["--priorities", "mc-edf-vd"], "field --priorities: 'mc-edf-vd' gives no priority order"),
        ("vestal.yaml", ["--ties", "fifo"], "field --ties: fp: priorities are distinct"),
        ("vestal.yaml", ["--gantt-rows", "tasks"], "field --gantt-rows: --gantt-rows applies to task-set files"),
        ("vestal.yaml", ["--protocol", "fmlp+"], "field --protocol: --protocol applies to CPU–GPU segmented"),
        ("vestal.yaml", ["--execution", "bcet"], "field --execution: --execution must be wcet or random"),
        ("vestal.yaml", ["--horizon", "0"], "field --horizon: horizon must be a positive number of ticks"),
        ("tasks.yaml", ["--scheduler", "fp"], "field --scheduler: --scheduler applies to mixed-criticality task sets"),
        ("tasks.yaml", ["--switch-search"], "field --switch-search: --switch-search applies to mixed-criticality"),
        ("tasks.yaml", ["--policy", "amc"], "unknown policy 'amc'"),
    ],
)
def test_bad_options_one_line_exit_2(files, capsys, name, args, message):
    argv = [files[name], *args]
    if "-m" not in args:
        argv += ["-m", "1"]
    status, out, err = run(capsys, *argv)
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("rtsched: error: ") and message in err, err


def test_bad_file_names_file_line_task_field(tmp_path, capsys):
    path = tmp_path / "bad.yaml"
    path.write_text("- {level: LO, C_LO: 1, T: 9}\n- {level: HI, C_LO: 5, C_HI: 3, T: 9}\n")
    status, _, err = run(capsys, str(path), "-m", "1")
    assert status == 2 and err.count("\n") == 1
    assert f"{path}, line 2, task 1, field C_HI: C_HI 3 < C_LO 5" in err
    # a set's error names the set when the file holds several
    path.write_text(
        "tasksets:\n  - tasks: [{level: HI, C_LO: 1, C_HI: 2, T: 5}]\n  - tasks: [{level: LO, C_LO: 1, T: 3}]\n"
    )
    status, _, err = run(capsys, str(path), "-m", "1", "--overrun", "0:0")
    assert status == 2 and "task set 1, task τ0, field --overrun: only a HI task's job" in err, err
