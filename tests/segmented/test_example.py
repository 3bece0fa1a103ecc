"""The CPU–GPU example sweeps (examples/segmented_*experiment.toml: Fig. 8b, 8c, 8e of the GCAPS paper) run end to end.

Each file is shrunk (two points, six sets; everything else the file's own: generator, ticks, the
analyses it names), swept through the command line (``rtsched sweep``), plotted by ``rtsched plot``
and by papers/repro/gcaps_figure.py (which draws the committed figures next to the published
panels), as papers/cpu-gpu-experiments.md says the figures were made. The counts must respect the
relation that holds by construction: seg-gcaps-*-gpa runs the task order first and accepts every
set seg-gcaps-* (task order) accepts (analyses/segmented/gcaps.py, papers/wang2024-gcaps.md).
The files must keep the paper's Table 3 setup and name only analyses that account for the shared
GPU (no partitioned-fp-gpu-none analysis: those assume no contention).
"""

from __future__ import annotations

import csv
import importlib.util
import re
from collections import defaultdict
from pathlib import Path

import pytest

from rtsched import registry
from rtsched.cli import main
from rtsched.sweep import load_experiment

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
FILES = {
    "segmented_experiment": ("[0.3, 0.5]", "b"),
    "segmented_cpus_experiment": ("[1, 2]", "c"),
    "segmented_gpu_ratio_experiment": ("[0.2, 2.0]", "e"),
}
PAPER_CURVES = {
    f"seg-{family}-{mode}{suffix}"
    for family, suffix in (("gcaps", "-gpa"), ("tsg", ""), ("fmlp", ""), ("mpcp", ""))
    for mode in ("busy", "suspend")
}


def _shrunk(name: str, points: str, tmp_path: Path) -> Path:
    text = (EXAMPLES / f"{name}.toml").read_text(encoding="utf-8")
    text, k1 = re.subn(r"(?m)^points = .*$", f"points = {points}", text)
    text, k2 = re.subn(r"(?m)^sets_per_point = \d+", "sets_per_point = 6", text)
    text, k3 = re.subn(r"(?m)^sets_per_unit = \d+", "sets_per_unit = 3", text)
    assert (k1, k2, k3) == (1, 1, 1)
    path = tmp_path / f"{name}.toml"
    path.write_text(text, encoding="utf-8")
    return path


def _figure_module():
    spec = importlib.util.spec_from_file_location("gcaps_figure", ROOT / "papers" / "repro" / "gcaps_figure.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name", sorted(FILES))
def test_example_keeps_the_papers_setup_and_curves(name: str) -> None:
    """Table 3 of Wang et al. (ECRTS 2024) and the curves of its Figure 8, on shared-GPU analyses only."""
    canonical = load_experiment(EXAMPLES / f"{name}.toml").canonical()
    gen = canonical["generator"]
    assert gen["kind"] == "segmented"
    assert gen["n"] == {"min": 3, "max": 6}
    assert (gen["gpu_tasks"], gen["gpu_segments"]) == ([0.4, 0.6], [1, 3])
    assert gen["copy_share"] == [0.1, 0.3]
    assert name == "segmented_gpu_ratio_experiment" or gen["gpu_ratio"] == [0.2, 2.0]
    assert (gen["periods"], gen["ticks"], gen["deadlines"], gen["devices"]) == (
        "uniform:30:500",
        10,
        "implicit",
        ["gpu"],
    )
    names = set(canonical["analyses"]["names"])
    assert PAPER_CURVES <= names
    assert {"seg-gcaps-busy", "seg-gcaps-suspend"} <= names
    assert all(registry.get(a).policy != "partitioned-fp-gpu-none" for a in names)
    if name == "segmented_experiment":
        assert canonical["platform"]["m"] == [4]
        assert canonical["sweep"]["points"] == pytest.approx([0.1 * k for k in range(1, 10)])
    else:
        assert (gen["utilization"], gen["utilization_spread"]) == (0.5, 0.1)
    if name == "segmented_cpus_experiment":
        assert canonical["sweep"]["points"] == list(range(1, 11))
    if name == "segmented_gpu_ratio_experiment":
        assert canonical["platform"]["m"] == [4]
        assert canonical["sweep"]["points"] == pytest.approx([0.2 * k for k in range(1, 11)])


@pytest.mark.parametrize("name", sorted(FILES))
def test_example_runs_plots_and_keeps_gpa_above_task_order(name: str, tmp_path: Path, capsys) -> None:
    points, panel = FILES[name]
    path = _shrunk(name, points, tmp_path)
    out = tmp_path / "out"
    assert main(["sweep", str(path), "--out", str(out), "--workers", "0"]) == 0
    assert main(["plot", str(out), "--formats", "png"]) == 0
    capsys.readouterr()
    counts: dict[str, dict[str, int]] = defaultdict(dict)
    with (out / "results.csv").open(newline="") as fh:
        for row in csv.DictReader(fh):
            assert int(row["sets"]) == 6
            counts[row["value"]][row["analysis"]] = int(row["accepted"])
    assert len(counts) == 2
    for row in counts.values():
        for mode in ("busy", "suspend"):
            assert row[f"seg-gcaps-{mode}"] <= row[f"seg-gcaps-{mode}-gpa"]
    figure = tmp_path / "figure.png"
    _figure_module().draw(out, panel, figure)
    assert figure.stat().st_size > 10_000


def test_published_values_are_percentages_on_the_panels_points() -> None:
    """The values read off the paper's PDF: one per x point (None where hidden), each in [0, 100]."""
    module = _figure_module()
    for published, xs, _label in module.PANELS.values():
        assert set(published) == {paper for paper, _l, _c in module.CURVES.values() if paper}
        for values in published.values():
            assert len(values) == len(xs)
            assert all(v is None or 0 <= v <= 100 for v in values)
