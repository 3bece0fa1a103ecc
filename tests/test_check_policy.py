"""`rtsched check --policy`: the exit status answers for one scheduling policy (Dhall's set)."""

from pathlib import Path

import pytest

import rtsched
from rtsched.cli import main

DHALL = Path(__file__).resolve().parents[1] / "examples" / "tasksets" / "dhall.txt"


@pytest.mark.parametrize(
    ("policy", "status"),
    [
        pytest.param(None, 0, id="some-policy"),  # partitioned EDF proves it
        pytest.param("partitioned-edf", 0, id="partitioned"),
        pytest.param("global-edf", 1, id="global"),  # Dhall's effect: no global EDF test proves it
    ],
)
def test_exit_status_by_policy(capsys, policy, status):
    args = ["check", str(DHALL), "-m", "2", "--tests", "gfb,bcl,p-edf"]
    assert main(args + (["--policy", policy] if policy else [])) == status
    assert "global-edf: not proven; partitioned-edf: schedulable" in capsys.readouterr().out


def test_report_answers_per_policy():
    report = rtsched.check(rtsched.io.read_taskset(DHALL), 2, tests=["gfb", "bcl", "p-edf"])
    assert report.schedulable  # some policy
    assert report.schedulable_under("partitioned-edf")
    assert not report.schedulable_under("global-edf")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        pytest.param(["--policy", "rm"], "unknown policy 'rm'", id="unknown"),
        pytest.param(["--policy", "global-edf", "--tests", "p-edf"], "none of the analyses", id="not-selected"),
    ],
)
def test_bad_policy_is_input_error(capsys, args, message):
    assert main(["check", str(DHALL), "-m", "2", *args]) == 2
    assert message in capsys.readouterr().err
