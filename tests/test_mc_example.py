"""The mixed-criticality example sweeps (examples/mc_experiment.toml, examples/mc_weighted_*.toml) run end to end.

Each example is read from its file and shrunk (two utilization points, a few sets of a few
tasks); everything else is the file's own: generator, priorities, ticks, the analyses it
selects. The sweep runs through the command line (``rtsched sweep``), then ``rtsched plot``
draws the figure, as papers/mc-experiments.md says the published figure was made. The counts of
accepted sets must respect the proved dominance of Baruah, Burns, Davis (RTSS 2011): on the same
sets, SMC-no ⊆ SMC ⊆ AMC-rtb ⊆ AMC-max under one priority order, and Audsley's assignment accepts
every set deadline-monotonic priorities do (tests/analyses/mixed_criticality hold these per set).
"""

from __future__ import annotations

import csv
import tomllib
from collections import defaultdict
from pathlib import Path

import pytest

from rtsched.cli import main
from rtsched.sweep import load_experiment
from rtsched.testing.experiments import experiment_toml

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
CHAIN = ("smc-no", "smc", "amc-rtb", "amc-max")


def _shrunk(name: str, tmp_path: Path, *, by_points: str | None = None) -> Path:
    """``examples/<name>.toml`` with 2 points of 6 sets of 5 tasks (the rest of the file unchanged)."""
    data = tomllib.loads((EXAMPLES / f"{name}.toml").read_text())
    generator = {k: repr(v).replace("'", '"') for k, v in data["generator"].items()}
    if "n" in generator:
        generator["n"] = "5"
    sweep, analyses = data["sweep"], data["analyses"]
    names = analyses["names"]
    text = experiment_toml(
        name=data["name"], seed=data["seed"], m=str(data["platform"]["m"]), generator=generator,
        points="[0.55, 0.85]", sets_per_point=6, sets_per_unit=3, variable=sweep["variable"],
        names='"all"' if names == "all" else "[" + ", ".join(f'"{a}"' for a in names) + "]",
    )  # fmt: skip
    if "policies" in analyses:
        text += "policies = [" + ", ".join(f'"{p}"' for p in analyses["policies"]) + "]\n"
    if by_points is not None:
        text = text.replace("[sweep]\n", f'[sweep]\nby = "{sweep["by"]}"\nby_points = {by_points}\n')
    path = tmp_path / f"{name}.toml"
    path.write_text(text)
    return path


def _accepted(out: Path) -> dict[tuple[str, str], dict[str, int]]:
    counts: dict[tuple[str, str], dict[str, int]] = defaultdict(dict)
    with (out / "results.csv").open(newline="") as fh:
        for row in csv.DictReader(fh):
            counts[(row["value"], row["by_value"])][row["analysis"]] = int(row["accepted"])
    return counts


def _check_dominance(counts: dict[tuple[str, str], dict[str, int]]) -> None:
    for point, row in counts.items():
        for order in ("dm", "opa"):
            chain = [row[f"mc-{test}-{order}"] for test in CHAIN]
            assert chain == sorted(chain), (point, order, chain)
        for test in CHAIN:
            assert row[f"mc-{test}-dm"] <= row[f"mc-{test}-opa"], (point, test)


def test_examples_keep_the_published_setup() -> None:
    """The files say n = 20, CP = 0.5, CF = 2, periods 10..1000 (times 1000 ticks), implicit D, m = 1."""
    main_exp = load_experiment(EXAMPLES / "mc_experiment.toml").canonical()
    assert main_exp["platform"]["m"] == [1]
    gen = main_exp["generator"]
    assert (gen["kind"], gen["n"], gen["cp"], gen["cf"]) == ("mc", 20, 0.5, 2.0)
    assert (gen["periods"], gen["ticks"], gen["deadlines"]) == ("log-uniform:10:1000", 1000, "implicit")
    assert main_exp["sweep"]["points"][0] == 0.05 and main_exp["sweep"]["points"][-1] == 0.95
    for swept, key in (("cp", "generator.cp"), ("cf", "generator.cf"), ("n", "n")):
        canonical = load_experiment(EXAMPLES / f"mc_weighted_{swept}.toml").canonical()
        assert canonical["sweep"]["by"] == key
        assert {k: v for k, v in canonical["generator"].items() if k != swept} == {
            k: v for k, v in gen.items() if k != swept
        }


def test_mc_experiment_runs_and_plots(tmp_path: Path) -> None:
    path = _shrunk("mc_experiment", tmp_path)
    out = tmp_path / "out"
    assert main(["sweep", str(path), "--out", str(out), "--workers", "0", "-q", "--no-plot"]) == 0
    assert main(["plot", str(out), "--formats", "png"]) == 0
    assert (out / "acceptance.png").stat().st_size > 0
    counts = _accepted(out)
    assert set(counts) == {("0.55", ""), ("0.85", "")}
    _check_dominance(counts)


@pytest.mark.parametrize(("name", "by_points"), [("mc_weighted_n", "[3, 6]"), ("mc_weighted_cf", "[1.0, 3.0]")])
def test_weighted_example_runs_and_plots(tmp_path: Path, name: str, by_points: str) -> None:
    path = _shrunk(name, tmp_path, by_points=by_points)
    out = tmp_path / "out"
    assert main(["sweep", str(path), "--out", str(out), "--workers", "0", "-q", "--no-plot"]) == 0
    assert main(["plot", str(out), "--formats", "png"]) == 0
    assert (out / "weighted.png").stat().st_size > 0
    with (out / "weighted.csv").open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert {r["value"] for r in rows} == {str(v) for v in tomllib.loads(f"x = {by_points}")["x"]}
    assert all(0.0 <= float(r["weighted_schedulability"]) <= 1.0 for r in rows)
    _check_dominance(_accepted(out))
