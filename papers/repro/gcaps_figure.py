"""Draw a GCAPS-setup sweep next to the published panel of Wang et al. (ECRTS 2024), Figure 8.

Run: python papers/repro/gcaps_figure.py SWEEP_DIR [--panel b|c|e] [OUT.png]
(SWEEP_DIR from ``rtsched sweep examples/segmented_experiment.toml --out SWEEP_DIR``, panel b, the
default; from examples/segmented_cpus_experiment.toml, panel c; from
examples/segmented_gpu_ratio_experiment.toml, panel e). Writes examples/
segmented_experiment.png's form: 1320 x 780 px, left the sweep's acceptance ratios with their 95 %
Wilson bands (results.csv), right the published curves.

Why not ``rtsched plot``: that plot's legend is built from the registry titles, which are long for
the seg-* analyses (ten of them do not fit the figure's height), and GCAPS with and without its
GPU-priority assignment overlap almost exactly on these sets; here the legend uses the paper's curve
names and the variants without the assignment are drawn thin with hollow markers under the others.

The published values were read off the vector figure of the paper's PDF (arXiv 2406.05221, p. 18,
rendered at 400 dpi; each marker's centre located by its colour between the axis grid lines),
to about ±2 percentage points, ±4 where a marker is partly hidden; None where a marker is hidden
under another curve's (e.g. fmlp+_suspend, drawn before fmlp+_busy and the MPCP curves).
papers/cpu-gpu-experiments.md lists them.
"""

from __future__ import annotations

import argparse
import csv
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from matplotlib.lines import Line2D

#: Wang et al., Fig. 8b (utilization per CPU 0.1..0.9), schedulability in %, read off the PDF.
PUBLISHED_B: dict[str, list[float | None]] = {
    "gcaps_suspend": [98, 92, 66, 33, 15, 10, None, None, None],
    "gcaps_busy": [99, 95, 69, 36, 17, 9, None, None, None],
    "tsg_rr_suspend": [95, 58, 25, 11, None, 0, None, None, None],
    "tsg_rr_busy": [72, 34, 14, 8, 5, None, None, 3, 3],
    "fmlp+_suspend": [None, None, None, None, 10, None, 5, None, None],
    "fmlp+_busy": [68, 38, 21, 13, 8, 6, 4, None, None],
    "mpcp_suspend": [50, 19, None, None, None, 5, None, None, None],
    "mpcp_busy": [48, 17, 8, 5, 3, 2, 1, 1, 1],
}
#: Wang et al., Fig. 8c (number of CPUs 1..10), schedulability in %, read off the PDF.
PUBLISHED_C: dict[str, list[float | None]] = {
    "gcaps_suspend": [97, 75, 40, 19, 8, 4, None, None, None, None],
    "gcaps_busy": [99, 81, 43, 16, 6, 3, None, None, None, None],
    "tsg_rr_suspend": [84, 45, 13, None, None, None, None, None, None, None],
    "tsg_rr_busy": [85, 43, 15, 5, None, None, None, None, None, None],
    "fmlp+_suspend": [None, 49, 21, 10, 6, None, None, None, None, None],
    "fmlp+_busy": [91, 48, 19, 7, 4, 2, None, None, None, None],
    "mpcp_suspend": [74, 34, 12, 5, None, None, None, None, None, None],
    "mpcp_busy": [69, 31, 10, 3, 2, 1, 1, 1, 1, 1],
}
#: Wang et al., Fig. 8e (G/C 0.2..2.0; the figure's point 0.0 is left out: G/C = 0 has no GPU time), in %.
PUBLISHED_E: dict[str, list[float | None]] = {
    "gcaps_suspend": [50, 40, 30, 26, 25, 24, 20, 17, 17, 17],
    "gcaps_busy": [61, 47, 38, 29, 23, 20, 18, 14, 14, 14],
    "tsg_rr_suspend": [54, 25, 15, 12, None, None, 7, 7, None, None],
    "tsg_rr_busy": [38, 19, 13, 10, 8, 6, 6, 6, 6, 5],
    "fmlp+_suspend": [68, 38, 26, 20, 14, 12, 12, None, 11, 10],
    "fmlp+_busy": [65, 36, 24, 18, 12, 10, 10, 9, 8, 7],
    "mpcp_suspend": [33, 16, 10, 8, 6, None, 6, 6, None, None],
    "mpcp_busy": [31, 14, 8, 6, 4, 3, 4, 4, 3, 3],
}
PANELS = {
    "b": (PUBLISHED_B, [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9], "Utilization per CPU U = Σ (C + G)/T"),
    "c": (PUBLISHED_C, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], "Number of CPUs m (per-CPU U in [0.4, 0.6])"),
    "e": (
        PUBLISHED_E,
        [0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0],
        "Ratio G/C of GPU to CPU time (per-CPU U in [0.4, 0.6])",
    ),
}
#: rtsched analysis -> (paper's curve it stands for, legend label). The paper's colours (tab10).
CURVES = {
    "seg-gcaps-suspend-gpa": ("gcaps_suspend", "GCAPS + GPU prio. assignment, suspend", "#1f77b4"),
    "seg-gcaps-busy-gpa": ("gcaps_busy", "GCAPS + GPU prio. assignment, busy", "#ff7f0e"),
    "seg-tsg-suspend": ("tsg_rr_suspend", "TSG round robin (driver), suspend", "#2ca02c"),
    "seg-tsg-busy": ("tsg_rr_busy", "TSG round robin (driver), busy", "#d62728"),
    "seg-fmlp-suspend": ("fmlp+_suspend", "FMLP+, suspend", "#9467bd"),
    "seg-fmlp-busy": ("fmlp+_busy", "FMLP+, busy", "#8c564b"),
    "seg-mpcp-suspend": ("mpcp_suspend", "MPCP, suspend", "#e377c2"),
    "seg-mpcp-busy": ("mpcp_busy", "MPCP, busy", "#7f7f7f"),
    "seg-gcaps-suspend": ("", "GCAPS, GPU prio. = task order, suspend", "#1f77b4"),
    "seg-gcaps-busy": ("", "GCAPS, GPU prio. = task order, busy", "#ff7f0e"),
}
MARKERS = {"gcaps": "o", "tsg": "^", "fmlp": "s", "mpcp": "D"}


def _style(name: str) -> dict[str, object]:
    family = name.split("-")[1]
    color = CURVES[name][2]
    busy = "-busy" in name
    if name in ("seg-gcaps-suspend", "seg-gcaps-busy"):  # without the assignment: thin, hollow, below
        return {
            "color": color, "marker": "o", "markersize": 9, "markerfacecolor": "none", "linewidth": 0.9,
            "linestyle": ":", "zorder": 2,
        }  # fmt: skip
    return {
        "color": color, "marker": MARKERS[family], "markersize": 4.5, "linewidth": 1.4,
        "linestyle": "--" if busy else "-", "zorder": 3,
    }  # fmt: skip


def _read(directory: Path) -> tuple[dict[str, list[tuple[float, float, float, float]]], int, str]:
    rows: dict[str, list[tuple[float, float, float, float]]] = {}
    sets = 0
    name = ""
    with (directory / "results.csv").open(newline="", encoding="utf-8") as fh:
        for r in csv.DictReader(fh):
            rows.setdefault(r["analysis"], []).append(
                (float(r["value"]), float(r["ratio"]), float(r["ci_low"]), float(r["ci_high"]))
            )
            sets = int(r["sets"])
            name = r["variable"]
    return rows, sets, name


def draw(directory: Path, panel: str, out: Path) -> None:
    """Write the two-panel figure of the sweep in ``directory`` against the paper's ``panel``."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    published, xs, xlabel = PANELS[panel]
    rows, sets, _variable = _read(directory)
    fig = Figure(figsize=(8.8, 5.2), dpi=150, layout="constrained")
    FigureCanvasAgg(fig)
    left, right = fig.subplots(1, 2, sharey=True)
    order = [a for a in ("seg-gcaps-suspend", "seg-gcaps-busy") if a in rows] + [
        a for a in CURVES if a in rows and a not in ("seg-gcaps-suspend", "seg-gcaps-busy")
    ]
    handles: dict[str, Line2D] = {}
    for name in order:
        pts = sorted(rows[name])
        x = [p[0] for p in pts]
        style = _style(name)
        (line,) = left.plot(x, [100 * p[1] for p in pts], **style)
        left.fill_between(
            x, [100 * p[2] for p in pts], [100 * p[3] for p in pts], color=CURVES[name][2], alpha=0.15, linewidth=0
        )
        handles[name] = line
        paper = CURVES[name][0]
        if paper:
            ys = published[paper]
            right.plot(xs, [float("nan") if y is None else y for y in ys], **style)
    left.set_title(f"rtsched: seg-* analyses, ε = 0, {sets} sets per point", fontsize=9)
    right.set_title(
        f"Published: Wang et al. (ECRTS 2024) Fig. 8{panel}, ε = 1 ms\n(read off the PDF, ±2 %; hidden markers are gaps)",
        fontsize=9,
    )
    for ax in (left, right):
        ax.set_xlabel(xlabel, fontsize=8.5)
        ax.set_ylim(-2, 102)
        ax.set_xticks(xs)
        ax.tick_params(labelsize=8)
        ax.grid(True, alpha=0.3)
    left.set_ylabel("Schedulable task sets (%)")
    labels = [CURVES[a][1] + f" ({a})" for a in handles]
    fig.legend(
        list(handles.values()), labels, loc="outside lower center", ncol=2, fontsize=7, frameon=False,
    )  # fmt: skip
    caption = (
        "Sets: rtsched.generators.segmented after the GCAPS setup (Table 3): 3-6 tasks per CPU, 40-60 % GPU tasks, "
        "1-3 GPU segments, G/C 0.2-2, G_m/G 0.1-0.3, T uniform 30-500 ms (10 ticks/ms), implicit D, RM, one GPU; "
        "bands: 95 % Wilson. Busy: dashed; suspend: solid; dotted hollow: GCAPS without GPU-priority assignment "
        "(under the curves with it). Comparison: papers/cpu-gpu-experiments.md."
    )
    title = f"CPU–GPU segmented tasks on one shared GPU: rtsched against the GCAPS paper's Figure 8{panel}"
    if panel == "e":
        caption = caption.replace("G/C 0.2-2, ", "")
    fig.suptitle(title + "\n" + "\n".join(textwrap.wrap(caption, 160)), fontsize=7, x=0.01, ha="left")
    fig.savefig(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directory", type=Path)
    parser.add_argument("out", type=Path, nargs="?", default=Path("examples/segmented_experiment.png"))
    parser.add_argument("--panel", choices=sorted(PANELS), default="b")
    args = parser.parse_intermixed_args()
    draw(args.directory, args.panel, args.out)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
