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
    # Paired panels: every layout sees the same workloads, so the layout-free baseline accepts
    # the same number in each, and a coarser space never accepts more than free under the
    # exhaustive optimum (each panel drew its own workloads before: 0.51 / 0.59 / 0.49).
    accepted = {(r.by_value, r.value, r.analysis): r.accepted for r in results.rows}
    for x in (0.3, 0.5):
        assert len({accepted[(layout, x, "gpu:single")] for layout in ("free", "tpc:2", "mig:a100")}) == 1
        for coarse in ("tpc:2", "mig:a100"):
            assert accepted[(coarse, x, "gpu:exhaustive")] <= accepted[("free", x, "gpu:exhaustive")]


def test_panels_of_the_second_variable_share_their_random_streams() -> None:
    """Unit k draws from stream k without a second variable; with one, from its place in its
    panel, so the same point and chunk of every panel draw the same sets (rtsched.sweep.units)."""
    import hashlib
    import json

    from rtsched import __version__

    exp = parse_experiment(experiment().replace("sets_per_unit = 6", "sets_per_unit = 4"))
    units = plan(exp).units
    panel = len(units) // 3
    assert panel == 2 * 2  # two points, two chunks (4 + 2 sets)
    assert [u.stream for u in units] == list(range(panel)) * 3
    assert [(u.configuration % 2, u.chunk) for u in units[:panel]] == [
        (u.configuration % 2, u.chunk) for u in units[panel : 2 * panel]
    ]
    single = parse_experiment(
        experiment().replace('by = "generator.layout"\nby_points = ["free", "tpc:2", "mig:a100"]\n', "")
    )
    assert single.by is None and [u.stream for u in plan(single).units] == [u.index for u in plan(single).units]
    # Experiments without a second variable keep their fingerprint (their streams did not change).
    payload = {"experiment": single.canonical(), "rtsched": __version__, "format": 1}
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    assert single.fingerprint() == hashlib.sha256(text.encode()).hexdigest() != exp.fingerprint()


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


def test_a_store_of_unpaired_panels_is_refused_with_the_reason(tmp_path: Path) -> None:
    """Results written when each panel drew its own sets are not mixed with paired ones; the
    refusal says why (the experiment file itself did not change)."""
    import json

    exp = parse_experiment(experiment())
    run(exp, tmp_path / "out", workers=0, progress="none", plot=False)
    manifest = tmp_path / "out" / "manifest.json"
    data = json.loads(manifest.read_text())
    data["fingerprint"] = "0" * 64  # as an older rtsched computed it
    manifest.write_text(json.dumps(data))
    with pytest.raises(InputError, match="shared their random streams"):
        run(exp, tmp_path / "out", workers=0, progress="none", plot=False)
