"""CPU–GPU segmented experiments in the sweep engine (``[generator] kind = "segmented"``; papers/cpu-gpu-generators.md).

The engine is what is tested here (parsing, defaults, the canonical form, drawing, captions, a run
that resumes with identical results); the analyses of segmented task sets are tested in
tests/analyses/segmented/. The runs use a stub analysis registered for the test only (the
necessary condition that each core's busy-waiting load Σ (C + G_m + G_e)/T is at most 1), so
that these tests do not depend on which ``seg-`` analyses exist.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from rtsched import registry
from rtsched.errors import InputError
from rtsched.generators.segmented import per_cpu_utilization, segmented_tasksets
from rtsched.registry import Analysis
from rtsched.result import Explanation
from rtsched.segmented import SegmentedBatch
from rtsched.sweep import parse_experiment, run
from rtsched.sweep.kinds import SEGMENTED_GENERATOR_DEFAULTS, axis_label, caption, draw
from rtsched.sweep.units import plan, run_unit
from rtsched.testing.experiments import experiment_toml
from rtsched.workloads import SEGMENTED_TASKSETS

STUB = "seg-stub-core-load"


def _fits(ts, m) -> bool:
    return all(sum(ts[i].utilization for i in ts.on_core(c)) <= 1 for c in range(m))


def _reference(ts, m):
    return _fits(ts, m)


def _explain(ts, m):
    return Explanation(verdict=_fits(ts, m), summary="every core's busy load <= 1")


def _codes(batch, m):
    return np.array([1 if _fits(ts, m) else 0 for ts in batch.tasksets()], dtype=np.int8)


@pytest.fixture
def stub(monkeypatch):
    """A throw-away necessary test of segmented task sets, registered in a copy of the registry."""
    monkeypatch.setattr(registry, "_entries", dict(registry._discover()))
    monkeypatch.setattr(registry, "_aliases", dict(registry._aliases))
    registry.register(
        Analysis(
            name=STUB, title="stub", kind="necessary", policy="seg-stub", note="test stub", citation="none",
            reference=_reference, explain=_explain, codes=_codes, platform="identical", featured=False,
            workload=SEGMENTED_TASKSETS, deadlines=("implicit", "constrained"),
        )
    )  # fmt: skip
    return STUB


def tiny(
    generator: dict[str, str | None] | None = None,
    *,
    points: str = "[0.3, 0.9]",
    names: str = f'["{STUB}"]',
    variable: str = "utilization",
    m: str = "2",
) -> str:
    entries = {"kind": '"segmented"', "n": "{min = 2, max = 3}", "ticks": "1"} | (generator or {})
    clean = {k: v for k, v in entries.items() if v is not None}
    return experiment_toml(
        name="tiny-seg", seed=43, m=m, generator=clean, points=points,
        sets_per_point=6, sets_per_unit=3, names=names, variable=variable,
    )  # fmt: skip


def test_defaults_written_into_the_canonical_form(stub):
    exp = parse_experiment(tiny())
    gen = exp.canonical()["generator"]
    assert gen["kind"] == "segmented" and gen["n"] == {"min": 2, "max": 3} and gen["ticks"] == 1
    for key, value in SEGMENTED_GENERATOR_DEFAULTS.items():
        if key not in ("n", "ticks"):
            assert gen[key] == (list(value) if isinstance(value, tuple) else value), key
    assert parse_experiment(exp.to_toml()).fingerprint() == exp.fingerprint()
    assert parse_experiment(tiny({"gpu_ratio": "[0.5, 1.0]"})).fingerprint() != exp.fingerprint()
    text = caption(exp.canonical())
    assert "GCAPS" in text and "2..3 (uniform) tasks per CPU" in text and "m = 2 CPUs" in text
    assert "per-CPU utilization swept" in text and "G/C 0.2–2.0" in text
    assert axis_label("utilization", "segmented").startswith("Utilization per CPU")
    assert axis_label("n", "segmented") == "Number of tasks per CPU n"


def test_default_names_are_every_segmented_analysis(stub):
    exp = parse_experiment(tiny().replace(f'names = ["{STUB}"]\n', ""))
    assert exp.analyses_selection == "all"
    assert STUB in exp.analyses
    assert all(registry.get(name).workload is SEGMENTED_TASKSETS for name in exp.analyses)


def test_draw_is_the_generator():
    params = dict(SEGMENTED_GENERATOR_DEFAULTS)
    n = params.pop("n")
    spread = params.pop("utilization_spread")
    assert spread == 0.0
    batch, total = draw("segmented", np.random.default_rng(3), n=n, utilization=0.5, size=4, m=4, params=params)
    assert isinstance(batch, SegmentedBatch) and batch.n_sets == 4
    expected = segmented_tasksets(np.random.default_rng(3), 4, m=4, tasks_per_cpu=n, utilization=0.5, **params)
    assert batch.tasksets() == expected
    realized = per_cpu_utilization(SegmentedBatch.from_tasksets(expected), 4).mean(axis=1)
    assert total == pytest.approx(float(realized.sum()))
    assert total / 4 == pytest.approx(0.5, abs=0.01)  # per-CPU utilization: the target, up to rounding
    # n is tasks per CPU, a range drawn by each CPU (not one size per set)
    sizes = {ts.n for ts in expected}
    assert all(12 <= s <= 24 for s in sizes)
    spread, _ = draw(
        "segmented", np.random.default_rng(3), n=3, utilization=0.5, size=20, m=4,
        params=params | {"utilization_spread": 0.1},
    )  # fmt: skip
    per_cpu = per_cpu_utilization(spread, 4)
    assert per_cpu.min() < 0.45 and per_cpu.max() > 0.55 and per_cpu.max() < 0.61


def test_tasks_per_cpu_and_generator_keys_can_be_swept(stub):
    exp = parse_experiment(tiny({"n": None, "utilization": "0.5"}, variable="n", points="[2, 4]"))
    configs = plan(exp).configurations
    assert [dict(c.generator)["n"] for c in configs] == [2, 4]
    exp = parse_experiment(tiny({"utilization": "0.5"}, variable="generator.gpu_ratio", points="[0.5, 1.5]"))
    assert [dict(c.generator)["gpu_ratio"] for c in plan(exp).configurations] == [0.5, 1.5]
    exp = parse_experiment(tiny({"utilization": "0.5"}, variable="generator.gpu_segments", points="[1, 3]"))
    assert run_unit(plan(exp).units[-1])["sets"] == 3


@pytest.mark.parametrize(
    ("change", "variable", "field", "message"),
    [
        ({"gpu_ratio": "-1"}, "utilization", "generator.gpu_ratio", "gpu_ratio must be in (0.0, inf)"),
        ({"gpu_tasks": "[0.6, 0.4]"}, "utilization", "generator.gpu_tasks", "lo <= hi"),
        ({"copy_share": '"a lot"'}, "utilization", "generator.copy_share", "copy_share must be a number or a range"),
        ({"devices": "[]"}, "utilization", "generator.devices", "non-empty list"),
        ({"deadlines": '"arbitrary"'}, "utilization", "generator.deadlines", "unknown deadline model 'arbitrary'"),
        ({"device_assignment": '"hash"'}, "utilization", "generator.device_assignment", "unknown device assignment"),
        ({"mode": '"spin"'}, "utilization", "generator.mode", "mode must be busy or suspend"),
        ({"periods": '"uniform:500:30"'}, "utilization", "generator.periods", "LO = 500 exceeds HI = 30"),
        ({"ticks": "0"}, "utilization", "generator.ticks", "ticks"),
        ({"n": "0"}, "utilization", "generator.n", "n"),
        ({"cp": "0.5"}, "utilization", "generator.cp", "unknown key"),
        ({}, "U/m", "sweep.points", "U/m is not defined for segmented task sets"),
        ({"utilization_spread": "0.2"}, "utilization", "sweep.points", "utilization_spread"),
    ],
)
def test_bad_keys_are_one_clear_line(stub, change, variable, field, message):
    with pytest.raises(InputError) as info:
        parse_experiment(tiny(change, variable=variable, points="[0.1, 0.9]"), file="exp.toml")
    text = str(info.value)
    assert "\n" not in text and message in text, text
    assert info.value.field == field, text


def test_a_task_set_analysis_is_refused():
    with pytest.raises(InputError, match=r"analyses task sets, but this experiment draws CPU–GPU segmented"):
        parse_experiment(tiny(names='["gfb"]'))


def test_tiny_sweep_runs_and_resumes_with_identical_results(stub, tmp_path):
    exp = parse_experiment(tiny())
    unit = plan(exp).units[0]
    result = run_unit(unit)
    assert result == {**run_unit(unit), "seconds": result["seconds"]}  # same seed, same draws and verdicts
    out = tmp_path / "out"
    first = run(exp, out, workers=0, progress="none", plot=False)
    curve = dict(first.ratio(STUB))
    assert set(curve) == {0.3, 0.9}
    # each core's busy load is the per-CPU utilization (up to rounding), so the stub accepts every set at 0.3
    assert curve[0.3] == 1
    paths = sorted((out / "units").glob("*.json"))
    assert len(paths) == len(plan(exp).units) == 4

    def record(path):
        body = json.loads(path.read_text())
        body.pop("seconds", None)
        body.pop("checksum", None)  # covers the timings too
        return body

    before = {p.name: record(p) for p in paths}
    kept = {p.name: p.stat().st_mtime_ns for p in paths[1:]}
    paths[0].unlink()  # an interrupted run: one unit missing
    again = run(exp, out, workers=0, progress="none", plot=False)
    assert dict(again.ratio(STUB)) == curve
    after = {p.name: record(p) for p in sorted((out / "units").glob("*.json"))}
    assert after == before  # the missing unit is recomputed with identical draws and verdicts
    assert {p.name: p.stat().st_mtime_ns for p in paths[1:]} == kept  # the others are not rerun


def test_sweep_defaults_are_the_generators():
    """The frozen canonical defaults equal the generator's (the GCAPS setup); a change of either shows here."""
    from rtsched.generators.segmented import SEGMENTED_DEFAULTS

    frozen = dict(SEGMENTED_GENERATOR_DEFAULTS)
    assert frozen.pop("n") == SEGMENTED_DEFAULTS["tasks_per_cpu"]
    assert frozen.pop("utilization_spread") == 0.0
    assert frozen == {k: SEGMENTED_DEFAULTS[k] for k in frozen}
    assert set(SEGMENTED_DEFAULTS) - set(frozen) == {"m", "tasks_per_cpu", "utilization", "mode"}
