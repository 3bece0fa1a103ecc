"""Plots of a sweep directory: acceptance ratio per analysis with its confidence band.

:func:`plot_directory` reads ``results.csv`` (and ``weighted.csv``) and ``manifest.json`` of
an experiment directory and writes ``acceptance.{png,pdf,svg}``: one panel per value of the
second swept variable (if any), one curve per analysis with its 95% Wilson band, axis labels
with units (for GPU experiments the utilization axis is U1/M, the one-cluster utilization over
the number of clusters), and a caption naming the generator, periods, deadlines and sets per point. With
a second swept variable it also writes ``weighted.{png,pdf,svg}`` (weighted schedulability,
Bastoni et al. OSPERT 2010). When a soft real-time analysis ran (``tardiness-da``), it also writes
``tardiness.{png,pdf,svg}``: the mean and max of its tardiness bound over the largest period
(:mod:`rtsched.sweep.tardiness`). Matplotlib is used through :class:`matplotlib.figure.Figure`
with the Agg canvas: no pyplot state, no display needed.

Legends are in words, from each analysis's registry metadata (:func:`legend_label`: the policy
as ``G-EDF``/``P-EDF``/..., the title, the paper's authors), grouped by policy under a heading.
Analyses of kind ``necessary`` (``gedf-upper``) are drawn as a black dashed *upper bound*, not as
a test. When the generator's rounding moved the mean realized utilization more than 1 % away
from the target at some point, the utilization axis shows the realized mean instead of the
target; the caption says which, how far they differ, and the periods (the time resolution).
"""

from __future__ import annotations

import csv
import json
import math
import re
import textwrap
from pathlib import Path
from typing import Any

from rtsched.errors import InputError
from rtsched.sweep.experiment import axis_label, caption

__all__ = ["FORMATS", "legend_label", "plot_directory", "realized_axis"]

FORMATS = ("png", "pdf", "svg")


_MARKERS = ("o", "s", "^", "v", "D", "P", "X", "*", "h", "<", ">", "p", "d", "8")
#: Distinguishable colours (tab10, then darker ones), in the order curves are drawn.
_COLORS = (
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
    "#bcbd22", "#17becf", "#000080", "#808000", "#008080", "#800000", "#ff00ff", "#4b0082",
)
#: Words for the registry's policies (legend prefixes and group headings).
_POLICY_WORDS = {
    "global-edf": ("G-EDF", "Global EDF"),
    "global-edf:index": ("G-EDF (index ties)", "Global EDF, ties to the lowest index"),
    "global-edf:soft": ("G-EDF soft", "Global EDF, soft real-time (bounded tardiness)"),
    "partitioned-edf": ("P-EDF", "Partitioned EDF"),
    "global-fp": ("G-FP", "Global fixed priorities"),
    "partitioned-fp": ("P-FP", "Partitioned fixed priorities"),
    "edf": ("EDF", "Uniprocessor EDF"),
    "fp": ("FP", "Uniprocessor fixed priorities"),
    "np-edf": ("NP-EDF", "Non-preemptive EDF"),
    "global-dm": ("G-DM", "Global deadline-monotonic"),
    "global-fp-vertex": ("G-FP (vertex prio.)", "Global fixed priorities with intra-task vertex priorities"),
    "federated": ("Federated", "Federated scheduling"),
    "typed-global": ("Typed G", "Typed DAGs, global scheduling per processor type"),
    "typed-federated": ("Typed federated", "Typed DAGs, federated scheduling"),
    "mc-fp": ("MC FP", "Mixed criticality, fixed priorities on one processor"),
    "mc-edf-vd": ("MC EDF", "Mixed criticality, EDF with virtual deadlines on one processor"),
    "mc-partitioned-fp": ("MC P-FP", "Mixed criticality, partitioned fixed priorities"),
    "mc-partitioned-edf-vd": ("MC P-EDF-VD", "Mixed criticality, partitioned EDF with virtual deadlines"),
    "mc-global-fp": ("MC G-FP", "Mixed criticality, global fixed priorities"),
    "partitioned-fp-gpu-mpcp": ("P-FP MPCP", "CPU–GPU tasks, partitioned FP, GPU lock under MPCP"),
    "partitioned-fp-gpu-fmlp+": ("P-FP FMLP+", "CPU–GPU tasks, partitioned FP, GPU lock under FMLP+"),
    "partitioned-fp-gpu-gcaps": ("P-FP GCAPS", "CPU–GPU tasks, partitioned FP, preemptive priority GPU scheduling"),
    "partitioned-fp-gpu-tsg-rr": ("P-FP TSG RR", "CPU–GPU tasks, partitioned FP, driver's GPU round robin"),
    "partitioned-fp-gpu-none": (
        "P-FP no GPU contention",
        "CPU–GPU tasks, partitioned FP, NO GPU contention (not valid on a shared GPU)",
    ),
}


def _policy_words(policy: str) -> tuple[str, str]:
    """``(short, heading)`` words of a registry policy; a policy not listed is written out (``a-b`` → ``A b``)."""
    known = _POLICY_WORDS.get(policy)
    if known is not None:
        return known
    words = policy.replace("-", " ").replace(":", " ").strip().capitalize() or policy
    return words, words
#: Realized and target utilization differing by more than this (relative) switch the x-axis.
REALIZED_TOLERANCE = 0.01
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


def _authors(citation: str) -> list[str]:
    """Surnames that open a citation (``"Bertogna, Cirinei, 'Response-time ...'"``), or none."""
    head = re.split(r"['\"“‘]", citation, maxsplit=1)[0]
    if not head or head.strip().lower().startswith("rtsched") or len(head) > 120:
        return []
    names = [part.strip() for part in re.split(r",|\band\b|&", head) if part.strip()]
    surnames = [name.split()[-1] for name in names if re.fullmatch(r"(?:[A-Z]\.\s*)*[A-Z][\w\-]+", name)]
    return surnames if len(surnames) == len(names) else []


def _dag_title(title: str) -> str:
    """A DAG analysis's title without what a DAG plot says already (DAG tasks, the policy in words).

    ``Melani et al. 2015: response-time analysis of DAG tasks under global FP (task order)``
    becomes ``Melani et al. 2015: response-time analysis (task order)`` (the legend's prefix
    ``G-FP`` and the caption name the policy and the DAG task model).
    """
    title = re.sub(r"\s*\(DAG tasks\)", "", title)
    title = re.sub(r"\s+(?:of|for) DAG tasks\b", "", title)
    title = re.sub(r"\s+under global (?:EDF|FP|DM)\b", "", title)
    title = re.sub(r"\b(?:global (?:EDF|FP|DM)|G-(?:EDF|FP|DM)) ", "", title)
    return re.sub(r"\s{2,}", " ", title).strip()


def legend_label(name: str) -> tuple[str, str, str]:
    """``(label, policy, kind)`` of an analysis for legends, from its registry metadata.

    The label is the policy in short (``G-EDF``), the registry title without the words that
    repeat the policy, and the authors of the paper when the title does not name them:
    ``G-EDF · Response-time analysis (Bertogna–Cirinei)``, ``P-EDF · wf, density order, qpa
    admission (Zhang–Burns)``. A name the registry does not know is its own label.
    """
    from rtsched import registry
    from rtsched.errors import InputError as _InputError

    try:
        entry = registry.get(name)
    except _InputError:
        return name, "", "sufficient"
    title = re.sub(r"^(partitioned|global) (EDF|FP):\s*", "", entry.title)
    title = re.sub(r"\s*\((?:[GP]-)?(?:EDF|FP)\)", "", title)
    if entry.workload.name == "dag":
        title = _dag_title(title)
    authors = _authors(entry.citation)
    if authors and not any(a in title for a in authors):
        shown = "–".join(authors) if len(authors) <= 2 else f"{authors[0]} et al."
        title = f"{title} ({shown})"
    prefix = _policy_words(entry.policy)[0]
    return f"{prefix} · {title}", entry.policy, entry.kind


def realized_axis(rows: list[dict[str, str]], variable: str) -> tuple[bool, float]:
    """Whether to plot against the realized utilization, and the largest relative difference.

    Only for the utilization axes (``utilization``, ``U/m``); True when the mean realized
    utilization of some point differs from its target by more than :data:`REALIZED_TOLERANCE`.
    """
    if variable not in ("utilization", "U/m"):
        return False, 0.0
    worst = 0.0
    for r in rows:
        try:
            target, mean = float(r["target_utilization"]), float(r["mean_utilization"])
        except (KeyError, ValueError):
            return False, 0.0
        if target > 0 and math.isfinite(mean):
            worst = max(worst, abs(mean / target - 1))
    return worst > REALIZED_TOLERANCE, worst


def _x_value(r: dict[str, str], variable: str, realized: bool) -> float:
    if not realized:
        return float(r["value"])
    mean = float(r["mean_utilization"])
    return mean / float(r["m"]) if variable == "U/m" else mean


def _resolution_text(canonical: dict[str, Any], variable: str, realized: bool, worst: float) -> str:
    """A caption sentence: the time resolution and how realized and target utilization compare."""
    gen = canonical.get("generator", {})
    kind = gen.get("kind", "taskset")
    if variable not in ("utilization", "U/m") or kind not in ("taskset", "dag"):
        return ""
    if kind == "dag":
        wcet = gen.get("wcet", "swept")
        wcet_text = f"[{wcet[0]}, {wcet[1]}]" if isinstance(wcet, list | tuple) else str(wcet)
        text = f"Time resolution: integer ticks, vertex WCETs in {wcet_text} ticks, T = ceil(vol/u_i) ≥ vol/u_i; "
    else:
        periods = gen.get("periods", "swept")
        text = f"Time resolution: integer ticks, periods {periods} ticks, C = max(1, round(u·T)); "
    what = "U/m" if variable == "U/m" else "U"
    if realized:
        return text + (
            f"the mean realized {what} differs from the target by up to {100 * worst:.3g} % (rounding), "
            f"so the x-axis is the mean realized {what} of each point."
        )
    return text + f"mean realized {what} within {100 * worst:.2g} % of the target at every point (x = target)."


def _legend_entries(ax: Any, meta: dict[str, tuple[str, str, str]], analyses: list[str]) -> tuple[list[Any], list[str]]:
    """Handles and labels grouped by policy, each group under a heading (an empty handle)."""
    from matplotlib.patches import Patch

    handles, labels = ax.get_legend_handles_labels()
    by_label = dict(zip(labels, handles, strict=False))
    out_h: list[Any] = []
    out_l: list[str] = []
    policies = list(dict.fromkeys(meta[a][1] for a in analyses))
    for policy in policies:
        group = [a for a in analyses if meta[a][1] == policy and meta[a][0] in by_label]
        if not group:
            continue
        if len(policies) > 1 or policy:
            out_h.append(Patch(visible=False))
            out_l.append(_policy_words(policy)[1] if policy else "other")
        for a in group:
            out_h.append(by_label[meta[a][0]])
            out_l.append("\n".join(textwrap.wrap(meta[a][0], 48, subsequent_indent="   ")))
    return out_h, out_l


def _format_axes(ax: Any, values: list[Any], numeric: bool, variable: str) -> None:
    """Format the axes of a ratio plot.

    The swept values become tick labels when they are not numbers; n and m get integer ticks; the
    y range is [0, 1] with a margin, under a light grid.
    """
    from matplotlib.ticker import MaxNLocator

    if not numeric:
        ax.set_xticks(range(len(values)), values, rotation=30, ha="right")
    elif variable in ("n", "m"):
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_ylim(-0.02, 1.02)
    ax.grid(True, alpha=0.3)


def plot_directory(directory: str | Path, formats: tuple[str, ...] = FORMATS) -> list[Path]:
    """Write the plots of an experiment directory; returns the files written.

    Raises
    ------
    InputError
        If the directory has no ``results.csv`` or ``manifest.json`` (run the sweep first).
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

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

    realized, worst = realized_axis(rows, variable)
    resolution = _resolution_text(canonical, variable, realized, worst)
    if resolution:
        caption_text += "\n" + "\n".join(textwrap.wrap(resolution, 110))
    meta = {a: legend_label(a) for a in analyses}
    # Curves grouped by policy (the order of the registry within a policy), upper bounds last.
    policy_rank = {p: i for i, p in enumerate(dict.fromkeys(meta[a][1] for a in analyses))}
    analyses = sorted(analyses, key=lambda a: (policy_rank[meta[a][1]], meta[a][2] == "necessary", analyses.index(a)))

    written: list[Path] = []
    cols = min(len(panels), 3)
    rows_of_panels = math.ceil(len(panels) / cols)
    fig = Figure(figsize=(5.2 * cols + 3.6, 3.9 * rows_of_panels + 1.3), layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(rows_of_panels, cols, squeeze=False, sharey=True)
    style = _styles(analyses, meta)
    for index, panel in enumerate(panels):
        ax = axes[index // cols][index % cols]
        for analysis in analyses:
            sel = [r for r in rows if r["by_value"] == panel and r["analysis"] == analysis]
            if not sel:
                continue
            x = [_x_value(r, variable, realized) if numeric_x else xs_all.index(r["value"]) for r in sel]
            y = [float(r["ratio"]) for r in sel]
            low = [float(r["ci_low"]) for r in sel]
            high = [float(r["ci_high"]) for r in sel]
            kwargs = style[analysis]
            ax.plot(x, y, label=meta[analysis][0], **kwargs)
            ax.fill_between(x, low, high, color=kwargs["color"], alpha=0.12 if meta[analysis][2] == "necessary" else 0.2, linewidth=0)
        _format_axes(ax, xs_all, numeric_x, variable)
        if by_variable:
            ax.set_title(f"{by_variable} = {panel}")
        label = axis_label(variable, kind)
        if realized:
            label = label.replace("Normalized utilization U/m", "Mean realized U/m").replace(
                "Total utilization U", "Mean realized utilization U"
            )
        ax.set_xlabel(label)
        if index % cols == 0:
            ax.set_ylabel("Acceptance ratio (fraction proven schedulable)")
    for index in range(len(panels), rows_of_panels * cols):
        axes[index // cols][index % cols].set_visible(False)
    handles, labels = _legend_entries(axes[0][0], meta, analyses)
    legend_title = "analysis (policy · test)"
    for policy in dict.fromkeys(meta[a][1] for a in analyses if meta[a][2] == "necessary"):
        words = _policy_words(policy)[0]
        legend_title += f"\ndashed: upper bound of {words} schedulability\n(not a test; no {words} test can exceed it)"
    fig.legend(handles, labels, loc="outside right upper", title=legend_title, fontsize=7.5, title_fontsize=8)
    fig.suptitle(f"Acceptance ratio — {name}", x=0.02, ha="left")
    fig.text(0.01, 0.005, caption_text, fontsize=7, ha="left", va="bottom")
    # Room for the caption: two lines fit in the usual 6%; longer captions (GPU models) get more.
    bottom = 0.06 + max(0, caption_text.count("\n") - 1) * _CAPTION_LINE_INCHES / fig.get_figheight()
    _reserve_bottom(fig, bottom)
    written += _save(fig, root / "acceptance", formats)

    if any(r.get("tardiness_mean") for r in rows):
        written += _plot_tardiness(root, rows, analyses, meta, style, panels, variable, by_variable, realized, numeric_x,
                                   xs_all, kind, f"{caption_text}", name, formats)  # fmt: skip

    weighted_path = root / "weighted.csv"
    if by_variable and weighted_path.is_file():
        wrows = _read_csv(weighted_path)
        wvar = wrows[0]["variable"] if wrows else ""
        if wrows and wvar:
            values = _ordered([r["value"] for r in wrows])
            numeric = all(isinstance(_number(v), float) for v in values)
            fig = Figure(figsize=(10.5, 5.2), layout="constrained")
            FigureCanvasAgg(fig)
            ax = fig.subplots()
            for analysis in analyses:
                sel = [r for r in wrows if r["analysis"] == analysis]
                if not sel:
                    continue
                x = [float(r["value"]) if numeric else values.index(r["value"]) for r in sel]
                ax.plot(x, [float(r["weighted_schedulability"]) for r in sel], label=meta[analysis][0], **style[analysis])
            _format_axes(ax, values, numeric, wvar)
            ax.set_xlabel(axis_label(wvar, kind))
            ax.set_ylabel("Weighted schedulability W (Bastoni et al. 2010)")
            w_handles, w_labels = _legend_entries(ax, meta, analyses)
            ax.legend(w_handles, w_labels, title="analysis (policy · test)", fontsize=6.5, loc="center left", bbox_to_anchor=(1.01, 0.5))
            fig.suptitle(f"Weighted schedulability — {name}")
            fig.text(0.01, 0.005, caption_text, fontsize=6, ha="left", va="bottom")
            bottom = 0.08 + max(0, caption_text.count("\n") - 1) * _CAPTION_LINE_INCHES / fig.get_figheight()
            _reserve_bottom(fig, bottom)
            written += _save(fig, root / "weighted", formats)
    return written


def _plot_tardiness(
    root: Path,
    rows: list[dict[str, str]],
    analyses: list[str],
    meta: dict[str, tuple[str, str, str]],
    style: dict[str, dict[str, Any]],
    panels: list[str],
    variable: str,
    by_variable: str,
    realized: bool,
    numeric_x: bool,
    xs_all: list[str],
    kind: str,
    caption_text: str,
    name: str,
    formats: tuple[str, ...],
) -> list[Path]:
    """``tardiness.*``: per soft real-time analysis, mean (solid) and max (dashed) of max_bound / T_max.

    Only the sets whose tardiness is bounded count (:mod:`rtsched.sweep.tardiness`); a point where
    none is bounded has no value.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    soft = [a for a in analyses if any(r["analysis"] == a and r.get("tardiness_mean") for r in rows)]
    cols = min(len(panels), 3)
    rows_of_panels = math.ceil(len(panels) / cols)
    fig = Figure(figsize=(5.2 * cols + 3.6, 3.9 * rows_of_panels + 1.3), layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(rows_of_panels, cols, squeeze=False, sharey=True)
    for index, panel in enumerate(panels):
        ax = axes[index // cols][index % cols]
        for analysis in soft:
            sel = [r for r in rows if r["by_value"] == panel and r["analysis"] == analysis and r.get("tardiness_mean")]
            if not sel:
                continue
            x = [_x_value(r, variable, realized) if numeric_x else xs_all.index(r["value"]) for r in sel]
            kwargs = style[analysis]
            ax.plot(x, [float(r["tardiness_mean"]) for r in sel], label=f"{meta[analysis][0]}: mean", **kwargs)
            dashed = {**kwargs, "linestyle": (0, (4, 2)), "marker": None}
            ax.plot(x, [float(r["tardiness_max"]) for r in sel], label=f"{meta[analysis][0]}: max", **dashed)
        if not numeric_x:
            ax.set_xticks(range(len(xs_all)), xs_all, rotation=30, ha="right")
        ax.set_ylim(bottom=0)
        ax.grid(True, alpha=0.3)
        if by_variable:
            ax.set_title(f"{by_variable} = {panel}")
        ax.set_xlabel(axis_label(variable, kind))
        if index % cols == 0:
            ax.set_ylabel("Tardiness bound / largest period T_max")
    for index in range(len(panels), rows_of_panels * cols):
        axes[index // cols][index % cols].set_visible(False)
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(
        handles,
        ["\n".join(textwrap.wrap(label, 48, subsequent_indent="   ")) for label in labels],
        loc="outside right upper",
        title="soft real-time analysis\n(over the sets with bounded tardiness)",
        fontsize=7.5,
        title_fontsize=8,
    )
    fig.suptitle(f"Tardiness bound — {name}", x=0.02, ha="left")
    fig.text(0.01, 0.005, caption_text, fontsize=7, ha="left", va="bottom")
    bottom = 0.06 + max(0, caption_text.count("\n") - 1) * _CAPTION_LINE_INCHES / fig.get_figheight()
    _reserve_bottom(fig, bottom)
    return _save(fig, root / "tardiness", formats)


def _styles(analyses: list[str], meta: dict[str, tuple[str, str, str]]) -> dict[str, dict[str, Any]]:
    """Line style per analysis: distinct colour and marker per test, solid lines.

    Upper bounds (kind ``necessary``) are black and dashed, without markers.
    """
    out: dict[str, dict[str, Any]] = {}
    k = 0
    for analysis in analyses:
        if meta[analysis][2] == "necessary":
            out[analysis] = {"color": "black", "linestyle": (0, (5, 2.5)), "linewidth": 1.8, "marker": None}
            continue
        out[analysis] = {
            "color": _COLORS[k % len(_COLORS)],
            "marker": _MARKERS[k % len(_MARKERS)],
            "linestyle": "-" if k < len(_COLORS) else ":",
            "markersize": 3.8,
            "linewidth": 1.3,
        }
        k += 1
    return out


def _reserve_bottom(fig: Any, bottom: float) -> None:
    """Keep the lowest ``bottom`` fraction of a constrained-layout figure free for the caption."""
    from matplotlib.layout_engine import ConstrainedLayoutEngine

    engine = fig.get_layout_engine()
    assert isinstance(engine, ConstrainedLayoutEngine), "figures here are made with layout='constrained'"
    engine.set(rect=(0, bottom, 1, 1 - bottom))


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
