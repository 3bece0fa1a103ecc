"""``rtsched generate --kind mc`` (rtsched/commands/_mc.py): the file equals the generator's sets, reads back in check and simulate.

The generator itself (the setup of Baruah, Burns, Davis, RTSS 2011) is tested in test_generator.py.
"""

from __future__ import annotations

import re
from fractions import Fraction

import numpy as np
import pytest

from rtsched.cli import main
from rtsched.generators.mc import mc_tasksets
from rtsched.mc.files import dumps_mc, loads_mc, read_mc_tasksets

# short periods: small hyperperiods, so that the simulations of the round trip stay short
SMALL = ["--periods", "choice:10,20,40"]


def generate(capsys, *args):
    status = main(["generate", "--kind", "mc", *args])
    out, err = capsys.readouterr()
    return status, out, err


def test_file_equals_the_generators_sets(tmp_path, capsys):
    path = tmp_path / "mc.yaml"
    args = [
        "--n",
        "6",
        "--utilization",
        "0.7",
        "--count",
        "3",
        "--seed",
        "11",
        "--param",
        "cp=0.4",
        "--param",
        "cf=1.5",
    ]
    status, out, err = generate(capsys, *args, "-o", str(path))
    assert status == 0 and out == ""
    expected = mc_tasksets(np.random.default_rng(11), n=6, utilization=0.7, size=3, cp=0.4, cf=1.5)
    assert read_mc_tasksets(path) == expected
    # the realised utilizations on stderr, one line
    means = {u: sum(getattr(ts, u) for ts in expected) / 3 for u in ("U_LL", "U_HL", "U_HH")}
    assert err.count("\n") == 1
    assert err.startswith(
        f"rtsched: wrote 3 mixed-criticality task set(s) of 6 tasks to {path}; target U_LL + U_HL = 0.7"
    )
    shown = dict(re.findall(r"(U_LL|U_HL|U_HH) ([0-9.]+)", err))
    for key, mean in means.items():
        assert float(shown[key]) == pytest.approx(float(mean), rel=1e-5)
    lo_mode = [float(ts.U_LL + ts.U_HL) for ts in expected]
    assert f"min {min(lo_mode):.6g}, max {max(lo_mode):.6g})" in err


def test_same_seed_same_file(tmp_path, capsys):
    args = ["--n", "5", "--utilization", "0.6", "--count", "2", "-q"]
    for name in ("a.yaml", "b.yaml"):
        assert generate(capsys, *args, "--seed", "4", "-o", str(tmp_path / name))[0] == 0
    assert generate(capsys, *args, "--seed", "5", "-o", str(tmp_path / "c.yaml"))[0] == 0
    assert (tmp_path / "a.yaml").read_bytes() == (tmp_path / "b.yaml").read_bytes()
    assert (tmp_path / "a.yaml").read_bytes() != (tmp_path / "c.yaml").read_bytes()
    # standard output: the same YAML
    status, out, _ = generate(capsys, *args, "--seed", "4")
    assert status == 0 and out == (tmp_path / "a.yaml").read_text()


@pytest.mark.parametrize("fmt", ["yaml", "json", "csv"])
def test_generate_check_simulate_round_trip(tmp_path, capsys, fmt):
    path = tmp_path / f"mc.{fmt}"
    args = ["--n", "4", "--utilization", "0.5", "--count", "2", "--seed", "2", *SMALL, "-q", "-o", str(path)]
    assert generate(capsys, *args)[0] == 0
    sets = read_mc_tasksets(path)
    assert len(sets) == 2 and all(ts.n == 4 and {t.T for t in ts} <= {10, 20, 40} for ts in sets)
    assert main(["check", str(path), "--tests", "mc-amc-max-dm", "--json"]) in (0, 1)
    out = capsys.readouterr().out
    assert len(out.splitlines()) == 2 and '"mc-amc-max-dm"' in out
    status = main(["simulate", str(path), "-m", "1"])
    out = capsys.readouterr().out
    assert status in (0, 1) and out.startswith("[0] ") and "\n[1] " in out
    assert main(["simulate", str(path), "-m", "1", "--switch-search"]) in (0, 1)
    assert capsys.readouterr().out.count("overrunning job") == 2


def test_generated_set_accepted_by_amc_survives_the_switch_search(tmp_path, capsys):
    # soundness seen through the CLI: every set AMC-max (dm) accepts meets every deadline in the
    # adversarial search of the switch instant under the file's (deadline-monotonic) order
    path = tmp_path / "mc.yaml"
    args = ["--n", "4", "--utilization", "0.6", "--count", "6", "--seed", "3", *SMALL, "-q", "-o", str(path)]
    assert generate(capsys, *args, "--param", "priorities=deadline-monotonic")[0] == 0
    accepted = 0
    for s, ts in enumerate(read_mc_tasksets(path)):
        one = tmp_path / f"set{s}.yaml"
        one.write_text(dumps_mc(ts, "yaml"))
        if main(["check", str(one), "--tests", "mc-amc-max-dm"]) == 0:
            accepted += 1
            assert main(["simulate", str(one), "-m", "1", "--switch-search"]) == 0
        capsys.readouterr()
    assert accepted == 5  # seed 3: 5 of the 6 sets (the loop is not vacuous)


def test_params(capsys):
    common = ["--n", "8", "--utilization", "0.5", "--count", "2", "-q"]
    out = generate(capsys, *common, "--param", "cp=0")[1]
    assert all(t.criticality == "LO" for ts in loads_mc(out) for t in ts)
    out = generate(capsys, *common, "--param", "cp=1", "--param", "cf=2")[1]
    assert all(t.is_hi and t.C_hi == 2 * t.C_lo for ts in loads_mc(out) for t in ts)
    out = generate(capsys, *common, "--param", "ticks=10", *SMALL)[1]
    assert {t.T for ts in loads_mc(out) for t in ts} <= {100, 200, 400}
    out = generate(capsys, *common, "--deadlines", "constrained")[1]
    assert all(t.C(t.level) <= t.D <= t.T for ts in loads_mc(out) for t in ts)
    assert any(t.D < t.T for ts in loads_mc(out) for t in ts)
    out = generate(capsys, *common, "--param", "priorities=deadline-monotonic", "--deadlines", "constrained")[1]
    assert all([t.D for t in ts] == sorted(t.D for t in ts) for ts in loads_mc(out))
    out = generate(capsys, *common, "--format", "csv")[1]
    assert out.startswith("level,C_LO,C_HI,T,D,set\n") and len(loads_mc(out, "csv")) == 2
    status, out, _ = generate(capsys, *common, "--param", "utilizations=uunifast-discard", "--param", "umax=0.2")
    assert status == 0
    assert all(Fraction(t.C_lo, t.T) <= Fraction(1, 5) + Fraction(1, 2 * t.T) for ts in loads_mc(out) for t in ts)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--param", "bogus=1"], "field --param: unknown generator parameter 'bogus'; one of cp, cf, ticks"),
        (["--param", "cp"], "field --param: expected KEY=VALUE, got 'cp'"),
        (["--param", "n=3"], "field --param: give n with --n, not --param"),
        (["--param", "cp=0.1", "--param", "cp=0.2"], "field --param: cp is given twice"),
        (["--param", "cf=0.5"], "field --param: cf must be a number >= 1.0"),
        (["--param", "cp=2"], "field --param: cp must be a number in [0.0, 1.0]"),
        (["--param", "ticks=0"], "field --param: ticks must be an integer >= 1"),
        (["--n", "0"], "field --n: n must be an integer >= 1"),
        (["--count", "0"], "field --count: must be a positive number of task sets"),
        (["--seed", "-1"], "field --seed: must be a non-negative integer"),
        (["--format", "txt"], "field --format: mixed-criticality task sets are written as yaml, json or csv"),
        (["--periods", "bogus"], "field --periods: bad period spec 'bogus'"),
        (["--deadlines", "arbitrary"], "field --deadlines: unknown deadlines 'arbitrary'"),
        (["--utilizations", "randfixedsum"], "field --utilizations: applies to --kind taskset"),
        (["--umax", "0.5"], "field --umax: applies to --kind taskset"),
        (["-m", "2"], "field -m: applies to --kind segmented only"),
        (
            ["--kind", "dual"],
            "field --kind: unknown kind 'dual'; choose taskset or segmented (CPU–GPU) or mc (mixed criticality)",
        ),
    ],
)
def test_bad_options_one_line_exit_2(capsys, args, message):
    argv = ["--utilization", "0.5", *args]
    if "--n" not in args:
        argv += ["--n", "3"]
    if "--kind" in args:
        status = main(["generate", *argv])
        out, err = capsys.readouterr()
    else:
        status, out, err = generate(capsys, *argv)
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and message in err, err
