"""`rtsched generate`: reproducible files, every format, and clear errors with exit status 2."""

import pytest

from rtsched.cli import main
from rtsched.io import read_tasksets

BASE = ["generate", "--n", "6", "--utilization", "2.5", "--count", "20"]


def run(capsys, *args):
    status = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return status, out, err


@pytest.mark.parametrize("fmt", ["yaml", "json", "jsonl", "csv", "txt"])
def test_same_seed_gives_byte_identical_file(capsys, tmp_path, fmt):
    options = [
        "--utilizations",
        "randfixedsum",
        "--periods",
        "log-uniform:10:1000:10",
        "--deadlines",
        "uniform:0.5",
        "--format",
        fmt,
    ]
    first, second, other = tmp_path / "a", tmp_path / "b", tmp_path / "c"
    assert run(capsys, *BASE, *options, "--seed", 7, "-o", first)[0] == 0
    assert run(capsys, *BASE, *options, "--seed", 7, "-o", second)[0] == 0
    assert run(capsys, *BASE, *options, "--seed", 8, "-o", other)[0] == 0
    assert first.read_bytes() == second.read_bytes()
    assert first.read_bytes() != other.read_bytes()
    sets = read_tasksets(first, format=fmt)
    assert len(sets) == 20
    for ts in sets:
        assert ts.n == 6
        assert all(1 <= c <= d <= t for c, d, t in ts.rows())
        assert all(t % 10 == 0 for t in ts.T)


def test_format_from_extension_and_stdout(capsys, tmp_path):
    target = tmp_path / "sets.yaml"
    assert run(capsys, *BASE, "--seed", 1, "-o", target)[0] == 0
    from_file = read_tasksets(target)
    status, out, err = run(capsys, *BASE, "--seed", 1)
    assert status == 0
    assert "realised U mean" in err  # the summary goes to stderr, never into the data
    assert len(out.splitlines()) == 20  # JSON lines on stdout by default
    stdout_file = tmp_path / "stdout.jsonl"
    stdout_file.write_text(out)
    assert read_tasksets(stdout_file) == from_file


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("--periods", "log-uniform:100:10"),
        ("--periods", "weibull:3"),
        ("--deadlines", "uniform:7"),
        ("--utilizations", "drs"),
        ("--count", "0"),
        ("--seed", "-1"),
        ("--format", "xml"),
    ],
)
def test_bad_option_exit_status_2_names_the_option(capsys, tmp_path, option, value):
    target = tmp_path / "never.jsonl"
    status, out, err = run(capsys, *BASE, option, value, "-o", target)
    assert status == 2
    assert option in err and "Traceback" not in err
    assert not target.exists()


def test_impossible_utilization_is_an_input_error(capsys):
    status, _, err = run(capsys, "generate", "--n", "3", "--utilization", "3.5", "--utilizations", "randfixedsum")
    assert status == 2
    assert "--utilization" in err


def test_uunifast_discard_points_to_randfixedsum(capsys):
    status, _, err = run(
        capsys, "generate", "--n", "10", "--utilization", "9", "--utilizations", "uunifast-discard", "--count", "50"
    )
    assert status == 2
    assert "RandFixedSum" in err


def test_non_integer_option_is_a_usage_error(capsys):
    status, _, err = run(capsys, "generate", "--n", "x", "--utilization", "1")
    assert status == 2
    assert "--n" in err


def test_defaults_are_the_sweeps_and_plain_uunifast_above_one_warns(capsys):
    from rtsched.sweep.experiment import GENERATOR_DEFAULTS

    status, out, err = run(capsys, "generate", "--n", "10", "--utilization", "2.5", "--count", "50", "--seed", 3)
    assert status == 0 and "warning" not in err
    sets = [line for line in out.splitlines() if line]
    assert len(sets) == 50
    assert GENERATOR_DEFAULTS["periods"] == "log-uniform:1000:100000"
    status, out, err = run(capsys, *BASE, "--utilizations", "uunifast", "--seed", 3)
    assert status == 0
    assert "rtsched: warning: plain UUniFast with U = 2.5 > 1" in err and "uunifast-discard" in err
    status, out, err = run(capsys, "generate", "--n", "6", "--utilization", "0.9", "--utilizations", "uunifast")
    assert status == 0 and "warning" not in err
