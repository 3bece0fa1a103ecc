"""``rtsched check`` on mixed-criticality files (rtsched/commands/_mc.py): the sniff, the verdicts' exit status, bad input.

The verdicts come from a stub analysis registered for the test (EDF with every task at its own-level
WCET: Σ C(L_i)/min(D, T) <= 1, sufficient on one core) (the MC analyses are tested in
tests/analyses/mixed_criticality/); what is tested is the dispatch, the reading and the output.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from rtsched import registry
from rtsched.cli import main
from rtsched.commands._mc import mc_format
from rtsched.registry import Analysis
from rtsched.result import Explanation
from rtsched.workloads import MC_TASKSETS

STUB = "mc-stub-cli"

YAML = """\
tasks:
  - {name: log, level: LO, C_LO: 2, T: 10}
  - {name: brake, level: HI, C_LO: 1, C_HI: 3, T: 6}
"""
HEAVY = """\
[{"level": "HI", "C_LO": 4, "C_HI": 8, "T": 10},
 {"level": "LO", "C_LO": 5, "T": 10}]
"""
CSV = "name,level,C_LO,C_HI,T,D\nlog,LO,2,,10,10\nbrake,HI,1,3,6,6\n"


def _fits(ts) -> bool:
    """Sufficient on one core: EDF with every task at its own-level WCET (a worst-case reservation)."""
    return sum(t.density("HI") for t in ts) <= 1


@pytest.fixture
def stub(monkeypatch):
    monkeypatch.setattr(registry, "_entries", dict(registry._discover()))
    monkeypatch.setattr(registry, "_aliases", dict(registry._aliases))
    registry.register(
        Analysis(
            name=STUB, title="stub", kind="sufficient", policy="mc-stub", note="test stub", citation="none",
            reference=lambda ts, m: _fits(ts), explain=lambda ts, m: Explanation(verdict=_fits(ts), summary="stub"),
            codes=lambda batch, m: np.array([int(_fits(ts)) for ts in batch.tasksets()], dtype=np.int8),
            platform="uniprocessor", featured=False, workload=MC_TASKSETS,
        )
    )  # fmt: skip


@pytest.fixture
def files(tmp_path):
    out = {}
    for name, text in {
        "set.yaml": YAML, "heavy.json": HEAVY, "set.csv": CSV,
        "tasks.yaml": "- [1, 4, 4]\n", "tasks.csv": "C,D,T\n1,4,4\n",
        "dag.yaml": "- {T: 10, D: 10, vertices: [{id: 0, C: 1}], edges: []}\n",
    }.items():  # fmt: skip
        (tmp_path / name).write_text(text)
        out[name] = str(tmp_path / name)
    return out


def test_sniff(files):
    assert mc_format(files["set.yaml"], None, "auto") == "yaml"
    assert mc_format(files["heavy.json"], None, "auto") == "json"
    assert mc_format(files["set.csv"], None, "auto") == "csv"
    assert mc_format(files["set.yaml"], "yml", "auto") == "yaml"
    for name in ("tasks.yaml", "tasks.csv", "dag.yaml"):
        assert mc_format(files[name], None, "auto") is None
    assert mc_format(files["set.yaml"], None, "tasks") is None and mc_format(files["set.yaml"], None, "dag") is None
    assert mc_format("-", "yaml", "auto") is None
    assert mc_format(files["set.yaml"], "txt", "auto") is None


def test_check_verdicts_and_exit_status(stub, files, capsys):
    assert main(["check", files["set.yaml"], "--tests", STUB]) == 0
    out = capsys.readouterr().out
    assert STUB in out and "τ1 (brake)" in out and "C(HI)" in out
    assert main(["check", files["heavy.json"], "--tests", STUB]) == 1  # 8/10 + 5/10 > 1: not proven
    capsys.readouterr()
    assert main(["check", files["set.csv"], "--tests", STUB, "--json"]) == 0
    record = json.loads(capsys.readouterr().out.splitlines()[0])
    assert record["schedulable"] is True
    assert main(["check", files["set.csv"], "--tests", STUB, "--csv", "-m", "1"]) == 0
    assert STUB in capsys.readouterr().out


@pytest.mark.parametrize(
    ("text", "suffix", "args", "message"),
    [
        ("- {level: HI, C_LO: 5, C_HI: 3, T: 9}\n", "yaml", [], "line 1, task 0, field C_HI: C_HI 3 < C_LO 5"),
        ("- {level: LO, C_LO: 1, C_HI: 2, T: 9}\n", "yaml", [], "field C_HI: a LO task has no C_HI budget"),
        ("- {level: MID, C_LO: 1, T: 9}\n", "yaml", [], "field level: unknown criticality level 'MID'"),
        ("level,C_LO,T,D\nLO,1,9,12\n", "csv", [], "line 2, task 0, field D: D = 12 exceeds T = 9"),
        (YAML, "yaml", ["--tests", "gfb"], "gfb analyses task sets, not mixed-criticality task sets"),
        (YAML, "yaml", ["--deadlines", "arbitrary"], "--deadlines applies to task-set files"),
        (YAML, "yaml", ["--platform", "clustered:k=2", "-m", "4"], "identical processors"),
        (YAML, "yaml", ["-m", "0"], "positive number of processors"),
    ],
)
def test_bad_input_is_one_line_exit_2(stub, tmp_path, capsys, text, suffix, args, message):
    path = tmp_path / f"bad.{suffix}"
    path.write_text(text)
    assert main(["check", str(path), *args]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err, err
