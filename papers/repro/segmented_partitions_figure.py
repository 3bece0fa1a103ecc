"""Plot examples/segmented_partitions_experiment.toml's results: each whole-GPU analysis next to its partition search.

Usage: ``python papers/repro/segmented_partitions_figure.py seg-part examples/segmented_partitions_experiment.png``
after ``rtsched sweep examples/segmented_partitions_experiment.toml --out seg-part`` (``rtsched plot``
draws the same curves with the registry's long titles as legend). Solid: the whole GPU; dashed: the
heuristic partition search (``-part``) with the same inner analysis and colour; bands: 95 % Wilson
intervals from results.csv.
"""

import csv
import sys
from collections import defaultdict
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

PAIRS = (
    ("seg-mpcp-suspend", "MPCP"),
    ("seg-fmlp-suspend", "FMLP+"),
    ("seg-gcaps-suspend-gpa", "GCAPS (GPU-priority assignment)"),
    ("seg-tsg-suspend", "TSG round robin"),
)


def main(directory: str, out: str) -> None:
    """Read ``directory``/results.csv and write the figure to ``out``."""
    curves: dict[str, list[tuple[float, float, float, float]]] = defaultdict(list)
    with open(Path(directory) / "results.csv", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            point = (float(row["value"]), float(row["ratio"]), float(row["ci_low"]), float(row["ci_high"]))
            curves[row["analysis"]].append(point)
    fig, ax = plt.subplots(figsize=(8, 5))
    for k, (name, label) in enumerate(PAIRS):
        colour = f"C{k}"
        for suffix, style, text in (("", "-", "whole GPU"), ("-part", "--", "partitions (heuristic)")):
            points = sorted(curves[name + suffix])
            x = [p[0] for p in points]
            ax.plot(x, [p[1] for p in points], style, color=colour, marker="o", ms=3, label=f"{label}, {text}")
            ax.fill_between(x, [p[2] for p in points], [p[3] for p in points], color=colour, alpha=0.08)
    ax.set_xlabel("utilization per CPU U = Σ (C + G)/T")
    ax.set_ylabel("acceptance ratio (100 sets per point)")
    ax.set_title("CPU–GPU tasks, GCAPS setup (m = 4), one A100-like GPU (M = 7, MIG layouts), suspend")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="upper right")
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
