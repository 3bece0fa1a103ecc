"""Plots of a sweep directory: acceptance ratio per analysis with its confidence band.

:func:`plot_directory` reads ``results.csv`` (and ``weighted.csv``) and ``manifest.json`` of
an experiment directory and writes ``acceptance.{png,pdf,svg}``: one panel per value of the
second swept variable (if any), one curve per analysis with its 95% Wilson band, axis labels
with units (for GPU experiments the utilization axis is U1/M, the one-cluster utilization over
the number of clusters), and a caption naming the generator, periods, deadlines and sets per point. With
a second swept variable it also writes ``weighted.{png,pdf,svg}`` (weighted schedulability,
Bastoni et al. OSPERT 2010). Matplotlib is used through :class:`matplotlib.figure.Figure`
with the Agg canvas: no pyplot state, no display needed.
"""

from __future__ import annotations

import csv
import json
import math
import textwrap
from pathlib import Path
from typing import Any

from rtsched.errors import InputError
from rtsched.sweep.experiment import axis_label, caption

__all__ = ["FORMATS", "plot_directory"]

FORMATS = ("png", "pdf", "svg")


_MARKERS = ("o", "s", "^", "v", "D", "P", "X", "*", "h", "<", ">", "p")
_DASHES = ("-", "--", "-.", ":")
#: Height of one caption line (7 pt text, 1.2 line spacing) in inches.
_CAPTION_LINE_INCHES = 7 * 1.2 / 72


def _read_csv(path: Path) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def _number(text: str) -> float | str:
    try:
        return float(text)
    except ValueError:
        return text


def _ordered(values: list[Any]) -> list[Any]:
    return list(dict.fromkeys(values))


def plot_directory(directory: str | Path, formats: tuple[str, ...] = FORMATS) -> list[Path]:
    """Write the plots of an experiment directory; returns the files written.

    Raises
    ------
    InputError
        If the directory has no ``results.csv`` or ``manifest.json`` (run the sweep first).
    """
    import matplotlib
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    root = Path(directory)
    results_path, manifest_path = root / "results.csv", root / "manifest.json"
    for path in (results_path, manifest_path):
        if not path.is_file():
            raise InputError(f"no {path.name}: is this a sweep directory? (run `rtsched sweep --out {root}`)", file=str(root))
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    canonical = manifest["experiment"]
    kind = canonical.get("generator", {}).get("kind", "taskset")  # GPU sweeps label U as U1/M
    rows = _read_csv(results_path)
    if not rows:
        raise InputError("results.csv has no rows", file=str(results_path))
    variable = rows[0]["variable"]
    by_variable = rows[0]["by_variable"]
    analyses = _ordered([r["analysis"] for r in rows])
    panels = _ordered([r["by_value"] for r in rows])
    xs_all = _ordered([r["value"] for r in rows])
    numeric_x = all(isinstance(_number(x), float) for x in xs_all)
    caption_text = "\n".join(textwrap.wrap(caption(canonical), 110))
    name = canonical.get("name", "experiment")

    written: list[Path] = []
    cols = min(len(panels), 3)
    rows_of_panels = math.ceil(len(panels) / cols)
    fig = Figure(figsize=(5.2 * cols + 1.5, 3.9 * rows_of_panels + 1.0), layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(rows_of_panels, cols, squeeze=False, sharey=True)
    colors = matplotlib.colormaps["tab20" if len(analyses) > 10 else "tab10"]
    for index, panel in enumerate(panels):
        ax = axes[index // cols][index % cols]
        for a_index, analysis in enumerate(analyses):
            sel = [r for r in rows if r["by_value"] == panel and r["analysis"] == analysis]
            if not sel:
                continue
            x = [float(r["value"]) if numeric_x else xs_all.index(r["value"]) for r in sel]
            y = [float(r["ratio"]) for r in sel]
            low = [float(r["ci_low"]) for r in sel]
            high = [float(r["ci_high"]) for r in sel]
            color = colors(a_index % colors.N)
            # Distinct markers and dash patterns keep 10+ curves apart in print and in grayscale.
            ax.plot(
                x,
                y,
                marker=_MARKERS[a_index % len(_MARKERS)],
                linestyle=_DASHES[(a_index // 2) % len(_DASHES)],
                markersize=3.5,
                linewidth=1.4,
                color=color,
                label=analysis,
            )
            ax.fill_between(x, low, high, color=color, alpha=0.2, linewidth=0)
        if not numeric_x:
            ax.set_xticks(range(len(xs_all)), xs_all, rotation=30, ha="right")
        elif variable in ("n", "m"):
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_ylim(-0.02, 1.02)
        ax.grid(True, alpha=0.3)
        if by_variable:
            ax.set_title(f"{by_variable} = {panel}")
        ax.set_xlabel(axis_label(variable, kind))
        if index % cols == 0:
            ax.set_ylabel("Acceptance ratio (fraction proven schedulable)")
    for index in range(len(panels), rows_of_panels * cols):
        axes[index // cols][index % cols].set_visible(False)
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside right upper", title="analysis")
    fig.suptitle(f"Acceptance ratio — {name}", x=0.02, ha="left")
    fig.text(0.01, 0.005, caption_text, fontsize=7, ha="left", va="bottom")
    # Room for the caption: two lines fit in the usual 6%; longer captions (GPU models) get more.
    bottom = 0.06 + max(0, caption_text.count("\n") - 1) * _CAPTION_LINE_INCHES / fig.get_figheight()
    fig.get_layout_engine().set(rect=(0, bottom, 1, 1 - bottom))
    written += _save(fig, root / "acceptance", formats)

    weighted_path = root / "weighted.csv"
    if by_variable and weighted_path.is_file():
        wrows = _read_csv(weighted_path)
        wvar = wrows[0]["variable"] if wrows else ""
        if wrows and wvar:
            values = _ordered([r["value"] for r in wrows])
            numeric = all(isinstance(_number(v), float) for v in values)
            fig = Figure(figsize=(7.5, 4.8), layout="constrained")
            FigureCanvasAgg(fig)
            ax = fig.subplots()
            for a_index, analysis in enumerate(analyses):
                sel = [r for r in wrows if r["analysis"] == analysis]
                if not sel:
                    continue
                x = [float(r["value"]) if numeric else values.index(r["value"]) for r in sel]
                ax.plot(x, [float(r["weighted_schedulability"]) for r in sel], marker="o", markersize=3,
                        color=colors(a_index % colors.N), label=analysis)
            if not numeric:
                ax.set_xticks(range(len(values)), values, rotation=30, ha="right")
            elif wvar in ("n", "m"):
                ax.xaxis.set_major_locator(MaxNLocator(integer=True))
            ax.set_ylim(-0.02, 1.02)
            ax.grid(True, alpha=0.3)
            ax.set_xlabel(axis_label(wvar, kind))
            ax.set_ylabel("Weighted schedulability W (Bastoni et al. 2010)")
            ax.legend(title="analysis", fontsize=8)
            fig.suptitle(f"Weighted schedulability — {name}")
            fig.text(0.01, 0.005, caption_text, fontsize=6, ha="left", va="bottom")
            bottom = 0.08 + max(0, caption_text.count("\n") - 1) * _CAPTION_LINE_INCHES / fig.get_figheight()
            fig.get_layout_engine().set(rect=(0, bottom, 1, 1 - bottom))
            written += _save(fig, root / "weighted", formats)
    return written


def _save(fig: Any, stem: Path, formats: tuple[str, ...]) -> list[Path]:
    out = []
    for fmt in formats:
        path = stem.with_suffix(f".{fmt}")
        tmp = path.with_name(f".{path.name}.tmp")
        # Metadata without a date, so that a rerun writes the same PDF/SVG.
        metadata: dict[str, Any] | None = None
        if fmt == "pdf":
            metadata = {"Creator": "rtsched", "CreationDate": None}
        if fmt == "svg":
            metadata = {"Creator": "rtsched", "Date": None}
        fig.savefig(tmp, format=fmt, dpi=150, metadata=metadata)
        tmp.replace(path)
        out.append(path)
    return out
