"""Every runnable example in examples/ runs (MPLBACKEND=Agg, small sizes) and writes its output."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = sorted((Path(__file__).resolve().parents[1] / "examples").glob("*.py"))


@pytest.mark.parametrize("script", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_example_runs(script, tmp_path):
    env = dict(os.environ, MPLBACKEND="Agg", RTSCHED_EXAMPLE_SMALL="1")
    out = tmp_path / f"{script.stem}.png"
    proc = subprocess.run(
        [sys.executable, str(script), str(out)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-4000:]
    written = [p for p in tmp_path.rglob("*") if p.is_file() and p.stat().st_size > 0]
    assert written, f"{script.name} wrote nothing"


TOMLS = sorted((Path(__file__).resolve().parents[1] / "examples").glob("*.toml"))


@pytest.mark.parametrize("path", TOMLS, ids=[p.stem for p in TOMLS])
def test_example_experiment_parses_and_plans(path):
    from rtsched.sweep import load_experiment
    from rtsched.sweep.units import plan

    experiment = load_experiment(path)
    the_plan = plan(experiment)
    assert the_plan.units and the_plan.analyses
    named = experiment.analyses_selection == "list"
    assert not named or set(the_plan.analyses) == set(experiment.analyses)  # every named analysis applies
