"""The sweep's tardiness metric (issue #47; rtsched/sweep/tardiness.py).

For a soft real-time analysis (``tardiness-da``) ``results.csv`` carries, next to the acceptance
ratio, the number of sets with bounded tardiness and the mean and max of max_bound / T_max over
them; the values equal a direct computation from the drawn sets with the paper's formula
(``tardiness_bounds``); hard analyses leave the cells empty; a resumed sweep (and one resumed from
units stored before the metric existed) writes the same ``results.csv`` byte for byte; ``rtsched
plot`` writes ``tardiness.png`` only when a soft analysis ran.
"""

from __future__ import annotations

import csv
import json
import math
from fractions import Fraction
from pathlib import Path

import numpy as np

from rtsched.analyses.global_edf.tardiness_da import tardiness_bounds
from rtsched.sweep import parse_experiment, plot_directory, run
from rtsched.sweep.store import checksum
from rtsched.sweep.units import _generate, plan, unit_seed
from rtsched.testing.experiments import experiment_toml


def soft(names: str = '["tardiness-da", "gfb"]', points: str = "[0.3, 0.7, 1.0]") -> str:
    generator = {"n": "5", "utilizations": '"randfixedsum"', "periods": '"uniform:4:30"', "deadlines": '"implicit"'}
    return experiment_toml(
        name="soft", seed=47, m="3", generator=generator, points=points,
        sets_per_point=24, sets_per_unit=8, names=names,
    )  # fmt: skip


def rows_of(path: Path) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def direct(exp) -> dict[object, list[float]]:
    """Per swept value: max_bound / T_max of every set with bounded tardiness, from the drawn sets."""
    out: dict[object, list[float]] = {}
    the_plan = plan(exp)
    for spec in the_plan.units:
        rng = np.random.default_rng(unit_seed(spec.seed, spec.index if spec.stream is None else spec.stream))
        batch, _ = _generate(rng, spec, spec.sets)
        config = the_plan.configurations[spec.configuration]
        value = dict(config.values)[exp.sweep.variable]
        for s in range(batch.n_sets):
            ts = batch[s]
            if sum(Fraction(int(c), int(t)) for c, t in zip(ts.C, ts.T, strict=True)) <= spec.m:
                bound = max(tardiness_bounds(ts, spec.m))
                out.setdefault(value, []).append(float(bound / max(int(t) for t in ts.T)))
    return out


def test_results_carry_the_tardiness_next_to_the_ratio(tmp_path: Path) -> None:
    exp = parse_experiment(soft())
    results = run(exp, tmp_path / "out", workers=0, progress="none", plot=False)
    rows = rows_of(tmp_path / "out" / "results.csv")
    assert list(rows[0])[-3:] == ["tardiness_sets", "tardiness_mean", "tardiness_max"]
    expected = direct(exp)
    soft_rows = [r for r in rows if r["analysis"] == "tardiness-da"]
    assert len(soft_rows) == 3
    for row in soft_rows:
        values = expected.get(float(row["value"]), [])
        assert int(row["tardiness_sets"]) == len(values) == int(row["accepted"])
        assert math.isclose(float(row["tardiness_mean"]), sum(values) / len(values), abs_tol=1e-6)
        assert math.isclose(float(row["tardiness_max"]), max(values), abs_tol=1e-6)
    assert any(int(r["tardiness_sets"]) < int(r["sets"]) for r in soft_rows), "U/m = 1.0 has unbounded sets too"
    for row in (r for r in rows if r["analysis"] == "gfb"):
        assert row["tardiness_sets"] == row["tardiness_mean"] == row["tardiness_max"] == ""
    record = next(r for r in results.to_records() if r["analysis"] == "tardiness-da")
    assert record["tardiness_sets"] == int(soft_rows[0]["tardiness_sets"])


def test_resume_writes_the_same_results(tmp_path: Path) -> None:
    exp = parse_experiment(soft())
    out = tmp_path / "out"
    run(exp, out, workers=0, progress="none", plot=False)
    first = (out / "results.csv").read_bytes()
    units = sorted((out / "units").glob("*.json"))
    units[1].unlink()  # a lost unit
    # a unit stored before the metric existed: no "tardiness" in it
    old = json.loads(units[4].read_text())
    del old["tardiness"]
    old.pop("checksum")
    old["checksum"] = checksum(old)
    units[4].write_text(json.dumps(old, sort_keys=True) + "\n")
    again = run(exp, out, workers=0, progress="none", plot=False)
    assert again.units_run == 2 and again.recomputed.get("tardiness-da") == 1
    assert (out / "results.csv").read_bytes() == first
    assert "tardiness" in json.loads(units[4].read_text())


def test_plot_draws_tardiness_only_for_soft_analyses(tmp_path: Path) -> None:
    run(parse_experiment(soft()), tmp_path / "soft", workers=0, progress="none", plot=False)
    written = {p.name for p in plot_directory(tmp_path / "soft", formats=("png",))}
    assert written == {"acceptance.png", "tardiness.png", "CAPTION.txt"}
    run(parse_experiment(soft(names='["gfb"]')), tmp_path / "hard", workers=0, progress="none", plot=False)
    assert {p.name for p in plot_directory(tmp_path / "hard", formats=("png",))} == {"acceptance.png", "CAPTION.txt"}


def test_example_experiment_parses() -> None:
    from rtsched.sweep import load_experiment

    exp = load_experiment(Path(__file__).resolve().parents[1] / "examples" / "soft_tardiness.toml")
    the_plan = plan(exp)
    assert "tardiness-da" in the_plan.analyses and dict(exp.generator)["deadlines"] == "implicit"
