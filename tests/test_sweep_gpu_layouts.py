"""GPU sweeps with the partition mechanism and the interference model as swept variables (issue 20)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rtsched.errors import InputError
from rtsched.sweep import load_experiment, parse_experiment, run
from rtsched.sweep.units import plan

TOML = """\
name = "tiny-gpu-layouts"
seed = 11

[platform]
m = {m}

[generator]
kind = "gpu"
n = 4
periods = "log-uniform:100:1000"
memory_share = 0.5
{extra}
[sweep]
variable = "U/m"
points = [0.3, 0.5]
by = "{by}"
by_points = {by_points}
sets_per_point = 6
sets_per_unit = 6

[analyses]
names = ["gpu:single", "gpu:ffd", "gpu:exhaustive"]
"""


def experiment(m: int = 7, by: str = "generator.layout", by_points: str = '["free", "tpc:2", "mig:a100"]', extra=""):
    return TOML.format(m=m, by=by, by_points=by_points, extra=extra)


def test_layout_is_a_swept_variable(tmp_path: Path) -> None:
    exp = parse_experiment(experiment())
    assert [dict(c.generator)["layout"] for c in plan(exp).configurations][::2] == ["free", "tpc:2", "mig:a100"]
    assert parse_experiment(exp.to_toml()).fingerprint() == exp.fingerprint()
    results = run(exp, tmp_path / "out", workers=0, progress="none", plot=False)
    assert results.sets == 2 * 3 * 6
    for rows in results.rows_by_configuration().values():
        accepted = {row.analysis: row.accepted for row in rows}
        assert accepted["gpu:ffd"] <= accepted["gpu:exhaustive"]
    assert "mig:a100" in (tmp_path / "out" / "results.csv").read_text()


def test_interference_model_is_a_swept_variable() -> None:
    exp = parse_experiment(experiment(by="generator.interference", by_points='["count-only", "co-runner"]'))
    assert {dict(c.generator)["interference"] for c in plan(exp).configurations} == {"count-only", "co-runner"}


def test_older_gpu_experiments_keep_their_fingerprint() -> None:
    # The new generator parameters are not written into the canonical form unless set.
    text = experiment(by="generator.contention", by_points="[[0.0, 0.3]]").replace("memory_share = 0.5\n", "")
    assert "layout" not in parse_experiment(text).canonical()["generator"]


@pytest.mark.parametrize(
    ("text", "field", "words"),
    [
        (experiment(m=4), "platform.m", ("M must be 7",)),
        (experiment(by_points='["free", "mig:z9"]'), "sweep.by_points", ("unknown MIG profile table",)),
        (experiment(by="generator.interference", by_points='["pairwise"]'), "sweep.by_points", ("interference",)),
        (experiment(extra="compute_relief = [0.5, 2.0]\n"), "generator.compute_relief", ("at most 1",)),
    ],
)
def test_bad_layouts_and_models_name_the_key(tmp_path: Path, text: str, field: str, words: tuple[str, ...]) -> None:
    path = tmp_path / "gpu.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as info:
        load_experiment(path)
    assert info.value.field == field, str(info.value)
    for word in words:
        assert word in str(info.value)
