"""Plots of a sweep directory: acceptance ratio per analysis, in a style a venue accepts.

:func:`~rtsched.sweep.acceptance_figure` returns the acceptance-ratio figure of a sweep (a directory, or the
rows of its ``results.csv``) as a matplotlib :class:`~matplotlib.figure.Figure` to restyle or
save; :func:`~rtsched.sweep.plot_directory` (``rtsched plot DIR``, and the sweep itself) writes
``acceptance.{png,pdf,svg}`` and ``CAPTION.txt``. One panel per value of the second swept
variable (titled in words, :func:`panel_title`), one curve per analysis, optionally with its 95%
Wilson band (n = sets per point), axis labels with units (for GPU experiments the utilization
axis is U1/M). With a second swept variable it also writes ``weighted.{png,pdf,svg}`` (weighted
schedulability, Bastoni et al. OSPERT 2010, :func:`weighted_figure`). When a soft real-time
analysis ran (``tardiness-da``, ``tardiness-cva``, ``lateness-gfl``), it also writes ``tardiness.{png,pdf,svg}``: the mean and max of
its tardiness bound over the largest period (:mod:`rtsched.sweep.tardiness`).

Styles (:mod:`rtsched.sweep.style`): ``default`` (wide, caption drawn), ``paper`` (3.5 in),
``paper2`` (7.16 in), ``slides`` (10 in); all write Type 42 (TrueType) fonts in PDF/PS and SVG
text as text. Each analysis has the same colour and marker in every figure
(:func:`rtsched.sweep.style.analysis_look`). The experiment's name is never a title; a title is
drawn only when given. The caption (generator, periods, deadlines, sets per point, time
resolution, :func:`~rtsched.sweep.plot.caption_of`) is always in ``CAPTION.txt`` and drawn only in the default
style or on request. Matplotlib is used through Figure objects with the Agg canvas: no pyplot
state, no display needed.

Legends are in words, from each analysis's registry metadata (:func:`legend_label`: the policy
as ``G-EDF``/``P-EDF``/..., the title, the paper's authors), or the caller's labels; in the
default style grouped by policy under a heading. Analyses of kind ``necessary`` (``gedf-upper``)
are drawn as a black dashed *upper bound*, not as a test. When the generator (its rounding, or
the cap rule of Baker-style generation) moved
the mean realized utilization more than 1 % away from the target at some point, the utilization
axis shows the realized mean instead of the target; the caption says which, how far they
differ, and the periods (the time resolution).
"""

from __future__ import annotations

import csv
import functools
import json
import math
import re
import textwrap
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rtsched.errors import InputError
from rtsched.sweep.captions import BANDS_SENTENCE
from rtsched.sweep.experiment import axis_label, caption
from rtsched.sweep.stats import wilson_interval
from rtsched.sweep.style import FONT_RC, FigureStyle, analysis_look, get_style, rc_params

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = [
    "FORMATS",
    "LEGENDS",
    "acceptance_figure",
    "caption_of",
    "legend_label",
    "panel_title",
    "plot_directory",
    "realized_axis",
    "short_label",
    "weighted_figure",
]

FORMATS = ("png", "pdf", "svg")
#: Legend placements: right of the panels, under them, in the first panel, none.
LEGENDS = ("outside", "below", "inside", "off")


#: Words for the registry's policies (legend prefixes and group headings).
_POLICY_WORDS = {
    "global-edf": ("G-EDF", "Global EDF"),
    "global-edf:index": ("G-EDF (index ties)", "Global EDF, ties to the lowest index"),
    "global-edf:soft": ("G-EDF soft", "Global EDF, soft real-time (bounded tardiness)"),
    "global-fl:soft": ("G-FL soft", "Global fair lateness (G-FL), soft real-time (bounded lateness)"),
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


def short_label(label: str) -> str:
    """A legend label for narrow figures: without the parentheses at its end and what follows a colon.

    ``G-EDF · Response-time analysis (Bertogna–Cirinei)`` → ``G-EDF · Response-time analysis``;
    ``G-EDF · Upper bound (not a test): U ≤ m, ...`` → ``G-EDF · Upper bound``. The paper styles
    use it; ``labels=`` (``--label``) sets any text.
    """
    short = label.split(":", 1)[0]
    while True:
        trimmed = re.sub(r"\s*\([^()]*\)\s*$", "", short)
        if trimmed == short or not trimmed:
            break
        short = trimmed
    return short.rstrip(" ,") or label


def realized_axis(rows: list[dict[str, str]], variable: str) -> tuple[bool, float]:
    """Whether to plot against the realized utilization, and the largest relative difference.

    Only for the utilization axes (``utilization``, ``U/m``); True when the mean realized
    utilization of some point differs from its target by more than ``REALIZED_TOLERANCE``.
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
            f"the mean realized {what} differs from the target by up to {100 * worst:.3g} % ({_gap_cause(gen)}), "
            f"so the x-axis is the mean realized {what} of each point."
        )
    return text + f"mean realized {what} within {100 * worst:.2g} % of the target at every point (x = target)."


def _gap_cause(gen: Mapping[str, Any]) -> str:
    """Why the realized utilization moved from the target: rounding, or Baker-style generation's cap rule."""
    if gen.get("method") != "baker":
        return "rounding"
    if gen.get("cap", "discard") == "keep":
        return "the cap rule: tasks are added until U exceeds the target, the last one kept"
    return "the cap rule: tasks are added while U stays within the target"


def _rc_context(params: Mapping[str, Any]) -> Any:
    """``matplotlib.rc_context`` of these rcParams (typed loosely: the keys are checked by matplotlib)."""
    import matplotlib

    params_any: Any = dict(params)
    return matplotlib.rc_context(params_any)


@functools.cache
def _styled_figure_class() -> type[Figure]:
    """``StyledFigure``, made on first use (matplotlib is imported only when plotting)."""
    from matplotlib.figure import Figure

    class StyledFigure(Figure):
        """A :class:`matplotlib.figure.Figure` that saves with its style's rcParams.

        :meth:`savefig` applies :data:`rtsched.sweep.style.FONT_RC` (Type 42 fonts in PDF and PS,
        SVG text as ``<text>``) whatever the global rcParams are, so that a figure of
        :func:`~rtsched.sweep.acceptance_figure` saved by the caller is accepted where Type 3 fonts are not.
        """

        def __init__(self, *args: Any, rc: dict[str, Any] | None = None, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.rtsched_rc = {**FONT_RC, **(rc or {})}

        def savefig(self, *args: Any, **kwargs: Any) -> None:
            """Save as :meth:`matplotlib.figure.Figure.savefig` does, under the style's rcParams."""
            with _rc_context(self.rtsched_rc):
                super().savefig(*args, **kwargs)

    return StyledFigure


@dataclass
class _Sweep:
    """What the plots read: the rows of ``results.csv``, the canonical experiment, ``weighted.csv``."""

    rows: list[dict[str, str]]
    canonical: dict[str, Any]
    weighted: list[dict[str, str]] | None = None
    root: Path | None = None


def _text(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return str(value)


def _load(source: str | Path | Iterable[Mapping[str, Any]] | Any, experiment: Mapping[str, Any] | None) -> _Sweep:
    """Read a sweep directory, or take rows (a pandas DataFrame or mappings) in ``results.csv`` form."""
    if isinstance(source, str | Path):
        root = Path(source)
        results_path, manifest_path = root / "results.csv", root / "manifest.json"
        for path in (results_path, manifest_path):
            if not path.is_file():
                raise InputError(
                    f"no {path.name}: is this a sweep directory? (run `rtsched sweep --out {root}`)", file=str(root)
                )
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        rows = _read_csv(results_path)
        if not rows:
            raise InputError("results.csv has no rows", file=str(results_path))
        weighted_path = root / "weighted.csv"
        weighted = _read_csv(weighted_path) if weighted_path.is_file() else None
        return _Sweep(rows, dict(experiment or manifest["experiment"]), weighted, root)
    records = source.to_dict("records") if hasattr(source, "to_dict") else list(source)
    rows = [{str(k): _text(v) for k, v in r.items()} for r in records]
    if not rows:
        raise InputError("no rows to plot")
    return _Sweep(rows, dict(experiment or {}))


def panel_title(by_variable: str, value: str) -> str:
    """A panel title in words: the swept parameter without its table prefix, and its value.

    ``("generator.deadlines", "uniform")`` → ``"deadlines = uniform"``; ``("m", "4")`` →
    ``"m = 4"``; ``("generator.max_branches", "3")`` → ``"max branches = 3"``.
    """
    name = by_variable.rsplit(".", 1)[-1].replace("_", " ")
    name = {"umax": "u_max", "cp": "CP", "cf": "CF", "p par": "p_par", "p term": "p_term"}.get(name, name)
    return f"{name} = {value}"


def _short_label(label: str) -> str:
    """An axis label without its parenthesised explanation (``U/m (fraction ...)`` → ``U/m``)."""
    return re.sub(r"\s*\([^()]*\)\s*$", "", label) or label


def _choose(analyses: list[str], tests: Sequence[str] | str | None) -> list[str] | None:
    if tests is None:
        return None
    chosen = [t.strip() for t in tests.split(",")] if isinstance(tests, str) else [str(t).strip() for t in tests]
    chosen = [t for t in chosen if t]
    missing = [t for t in chosen if t not in analyses]
    if missing or not chosen:
        raise InputError(
            f"{', '.join(missing) or 'nothing'} not in this sweep; it has {', '.join(analyses)}", field="--tests"
        )
    if len(set(chosen)) != len(chosen):
        raise InputError(f"an analysis is named twice in {', '.join(chosen)}", field="--tests")
    return chosen


def _parse_labels(labels: Mapping[str, str] | Sequence[str] | None, analyses: list[str]) -> dict[str, str]:
    if labels is None:
        return {}
    if isinstance(labels, Mapping):
        pairs = dict(labels)
    else:
        pairs = {}
        for item in labels:
            name, sep, text = item.partition("=")
            if not sep or not name.strip() or not text.strip():
                raise InputError(f"{item!r} is not NAME=TEXT", field="--label")
            pairs[name.strip()] = text.strip()
    unknown = [name for name in pairs if name not in analyses]
    if unknown:
        raise InputError(f"{', '.join(unknown)} not in this sweep; it has {', '.join(analyses)}", field="--label")
    return pairs


@dataclass
class _Plan:
    """Everything that the figures of one sweep share: curves, their order, labels, looks, caption."""

    data: _Sweep
    style: FigureStyle
    analyses: list[str]
    meta: dict[str, tuple[str, str, str]]
    looks: dict[str, dict[str, Any]]
    headings: bool
    legend: str
    title: str | None
    caption: bool
    ci: bool
    caption_text: str
    kind: str


def _plan(
    source: Any,
    *,
    experiment: Mapping[str, Any] | None,
    style: str | FigureStyle,
    tests: Sequence[str] | str | None,
    labels: Mapping[str, str] | Sequence[str] | None,
    legend: str | None,
    title: str | None,
    caption: bool | None,
    ci: bool | None,
) -> _Plan:
    chosen_style = get_style(style)
    data = _load(source, experiment)
    legend = chosen_style.legend if legend is None else legend
    if legend not in LEGENDS:
        raise InputError(f"unknown legend placement {legend!r}; choose from {', '.join(LEGENDS)}", field="--legend")
    rows = data.rows
    everything = _ordered([r["analysis"] for r in rows])
    chosen = _choose(everything, tests)
    renamed = _parse_labels(labels, everything)
    meta = {a: legend_label(a) for a in everything}
    if chosen_style.name != "default":
        meta = {a: (short_label(label), policy, kind) for a, (label, policy, kind) in meta.items()}
    for a, text in renamed.items():
        meta[a] = (text, meta[a][1], meta[a][2])
    if chosen is None:
        # Curves grouped by policy (the order of the registry within a policy), upper bounds last.
        policy_rank = {p: i for i, p in enumerate(dict.fromkeys(meta[a][1] for a in everything))}
        analyses = sorted(
            everything, key=lambda a: (policy_rank[meta[a][1]], meta[a][2] == "necessary", everything.index(a))
        )
    else:
        analyses = chosen
    policies = [meta[a][1] for a in analyses]
    contiguous = all(policies.index(p) == i or policies[i - 1] == p for i, p in enumerate(policies))
    headings = legend == "outside" and contiguous and chosen_style.name == "default"
    looks = {a: {**analysis_look(a, meta[a][2]), "linewidth": chosen_style.linewidth, "markersize": chosen_style.markersize}
             for a in analyses}  # fmt: skip
    for a in analyses:
        if meta[a][2] == "necessary":
            looks[a]["linewidth"] = chosen_style.linewidth * 1.4
    ci_on = chosen_style.ci if ci is None else ci
    kind = data.canonical.get("generator", {}).get("kind", "taskset")
    text = caption_of(data.canonical, rows, ci=ci_on, analyses=analyses, meta=meta)
    return _Plan(data, chosen_style, analyses, meta, looks, headings, legend, title,
                 chosen_style.caption if caption is None else caption, ci_on, text, kind)  # fmt: skip


def caption_of(
    canonical: Mapping[str, Any],
    rows: list[dict[str, str]],
    *,
    ci: bool = True,
    analyses: Sequence[str] = (),
    meta: Mapping[str, tuple[str, str, str]] | None = None,
) -> str:
    """The caption of a sweep's figures as one paragraph (what ``CAPTION.txt`` holds).

    The generator, periods, deadlines and sets per point (:func:`rtsched.sweep.kinds.caption`),
    the time resolution and realized utilization, whether the bands are drawn, and what a dashed
    black curve is. Empty when the experiment is not known (rows given without ``experiment``).
    """
    if not canonical:
        return ""
    text = caption(canonical)
    if not ci:
        text = text.replace("; " + BANDS_SENTENCE, ".").replace(BANDS_SENTENCE, "")
    variable = rows[0].get("variable", "")
    realized, worst = realized_axis(rows, variable)
    resolution = _resolution_text(dict(canonical), variable, realized, worst)
    if resolution:
        text += " " + resolution
    meta = meta or {}
    for policy in dict.fromkeys(meta[a][1] for a in analyses if a in meta and meta[a][2] == "necessary"):
        words = _policy_words(policy)[0]
        text += f" Dashed black: an upper bound of {words} schedulability (not a test; no {words} test can exceed it)."
    return text.strip()


def _legend_entries(ax: Any, plan: _Plan) -> tuple[list[Any], list[str]]:
    """Handles and labels in the plan's order; with headings, grouped by policy under a heading."""
    from matplotlib.patches import Patch

    handles, labels = ax.get_legend_handles_labels()
    by_label = dict(zip(labels, handles, strict=False))
    out_h: list[Any] = []
    out_l: list[str] = []
    meta, analyses = plan.meta, plan.analyses
    policies = list(dict.fromkeys(meta[a][1] for a in analyses))
    groups = [[a for a in analyses if meta[a][1] == p] for p in policies] if plan.headings else [analyses]
    for policy, group in zip(policies, groups, strict=False):
        group = [a for a in group if meta[a][0] in by_label]
        if not group:
            continue
        if plan.headings and (len(policies) > 1 or policy):
            out_h.append(Patch(visible=False))
            out_l.append(_policy_words(policy)[1] if policy else "other")
        for a in group:
            out_h.append(by_label[meta[a][0]])
            out_l.append("\n".join(textwrap.wrap(meta[a][0], plan.style.wrap, subsequent_indent="   ")))
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


def _legend_columns(plan: _Plan, width: float) -> int:
    per_entry = plan.style.wrap * plan.style.legend_size * 0.5 / 72 + 0.45  # inches: text and handle
    return max(1, int(width // per_entry))


def _new_figure(plan: _Plan, panels: int, entries: int) -> tuple[Figure, list[list[Any]], int]:
    """A constrained-layout figure of the plan's style with room for legend and caption."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    s = plan.style
    cols = max(1, min(panels, s.columns))
    rows_of_panels = math.ceil(panels / cols)
    if s.width is None:
        width = 5.2 * cols + (3.6 if plan.legend == "outside" else 0.4)
        height = 3.9 * rows_of_panels + 1.3
        if plan.legend == "below":
            height += _legend_height(plan, width, entries)
    else:
        width = s.width
        height = s.panel_height * rows_of_panels + (0.3 if plan.title else 0)
        if plan.legend == "below":
            height += _legend_height(plan, width, entries)
        if plan.caption and plan.caption_text:
            height += len(_wrap_caption(plan, width).splitlines()) * s.caption_size * 1.25 / 72 + 0.1
    fig = _styled_figure_class()(figsize=(width, height), layout="constrained", rc=rc_params(s))
    FigureCanvasAgg(fig)
    axes = fig.subplots(rows_of_panels, cols, squeeze=False, sharey=True)
    for index in range(panels, rows_of_panels * cols):
        axes[index // cols][index % cols].set_visible(False)
    return fig, [list(row) for row in axes], cols


def _legend_height(plan: _Plan, width: float, entries: int) -> float:
    cols = _legend_columns(plan, width)
    lines = sum(len(textwrap.wrap(plan.meta[a][0], plan.style.wrap)) for a in plan.analyses)
    per_col = math.ceil(max(lines, entries) / cols)
    return per_col * plan.style.legend_size * 1.45 / 72 + 0.2


def _wrap_caption(plan: _Plan, width: float) -> str:
    # DejaVu Sans averages about 0.62 em per character; today's look wraps at 110.
    chars = 110 if plan.style.width is None else max(40, int(width * 72 / (plan.style.caption_size * 0.64)))
    return "\n".join(textwrap.wrap(plan.caption_text, chars))


def _decorate(
    fig: Figure, axes: list[list[Any]], plan: _Plan, legend_title: str | None, xlabel: str | None = None
) -> None:
    """Legend, title, caption and shared x label of a figure, as the plan says."""
    handles, labels = _legend_entries(axes[0][0], plan)
    _legend_title_caption(fig, axes[0][0], handles, labels, plan, legend_title, "lower left", xlabel)


def _legend_title_caption(
    fig: Figure,
    ax: Any,
    handles: list[Any],
    labels: list[str],
    plan: _Plan,
    legend_title: str | None,
    inside: str,
    xlabel: str | None = None,
) -> None:
    """Place the legend, the title, the caption and a shared x label.

    From the bottom up: the caption, a legend that is below, the x label shared by a row of
    panels (``xlabel``); each is placed by hand over the one under it, and the layout keeps the
    panels above all of them.
    """
    s = plan.style
    inches = fig.get_figheight()
    bottom = 0.0
    if plan.caption and plan.caption_text:
        text = _wrap_caption(plan, fig.get_figwidth())
        fig.text(0.01, 0.005, text, fontsize=s.caption_size, ha="left", va="bottom")
        bottom = (text.count("\n") + 1) * s.caption_size * 1.25 / 72 / inches + 0.01
        if s.width is None:  # today's look: two lines fit in the usual 6%
            bottom = max(bottom, 0.06)
    if plan.legend == "outside":
        fig.legend(handles, labels, loc="outside right upper", title=legend_title)
    elif plan.legend == "below":
        options: dict[str, Any] = {"ncols": _legend_columns(plan, fig.get_figwidth()), "title": legend_title,
                                   "frameon": False, "columnspacing": 1.0, "handlelength": 2.2}  # fmt: skip
        if not bottom and xlabel is None:
            fig.legend(handles, labels, loc="outside lower center", **options)
        else:  # placed by hand over the caption; the layout keeps it free
            legend = fig.legend(handles, labels, loc="lower center", bbox_to_anchor=(0.5, bottom), **options)
            box = legend.get_window_extent(fig.canvas.get_renderer())  # type: ignore[attr-defined]
            bottom += box.height / (inches * fig.dpi) + 4 / 72 / inches  # and a 4 pt gap
    elif plan.legend == "inside":
        ax.legend(handles, labels, loc=inside, title=legend_title, framealpha=0.85)
    if xlabel is not None:
        if bottom:
            bottom += 3 / 72 / inches  # a 3 pt gap over what is below
            fig.supxlabel(xlabel, fontsize=s.font_size, y=bottom, va="bottom")
            bottom += s.font_size * 1.6 / 72 / inches
        else:
            fig.supxlabel(xlabel, fontsize=s.font_size)
    if plan.title:
        fig.suptitle(plan.title, x=0.02, ha="left")
    if bottom:
        _reserve_bottom(fig, bottom)


def _x_label(plan: _Plan, variable: str, realized: bool) -> str:
    label = axis_label(variable, plan.kind)
    if realized:
        label = label.replace("Normalized utilization U/m", "Mean realized U/m").replace(
            "Total utilization U", "Mean realized utilization U"
        )
    return _styled(plan, label, _short_label(label))


def _legend_title(plan: _Plan) -> str | None:
    if plan.style.name != "default":
        return None
    title = "analysis (policy · test)"
    for policy in dict.fromkeys(plan.meta[a][1] for a in plan.analyses if plan.meta[a][2] == "necessary"):
        words = _policy_words(policy)[0]
        title += f"\ndashed: upper bound of {words} schedulability\n(not a test; no {words} test can exceed it)"
    return title


def _band(r: Mapping[str, str]) -> tuple[float, float]:
    """The 95 % Wilson interval of a point's acceptance ratio (n = the sets of the point)."""
    try:
        return wilson_interval(int(float(r["accepted"])), int(float(r["sets"])))
    except (KeyError, ValueError):
        return float(r["ci_low"]), float(r["ci_high"])


def acceptance_figure(
    source: str | Path | Iterable[Mapping[str, Any]] | Any,
    *,
    experiment: Mapping[str, Any] | None = None,
    style: str | FigureStyle = "default",
    tests: Sequence[str] | str | None = None,
    labels: Mapping[str, str] | Sequence[str] | None = None,
    legend: str | None = None,
    title: str | None = None,
    caption: bool | None = None,
    ci: bool | None = None,
) -> Figure:
    """The acceptance-ratio figure of a sweep, as a matplotlib :class:`~matplotlib.figure.Figure`.

    Parameters
    ----------
    source:
        A sweep directory (``results.csv`` and ``manifest.json``), or its rows: a pandas
        DataFrame read from ``results.csv`` or an iterable of mappings with its columns.
    experiment:
        The canonical experiment (``manifest.json``'s ``"experiment"``): for the caption and axis
        labels when ``source`` is rows; read from the directory otherwise.
    style:
        ``"default"`` (wide, caption drawn), ``"paper"`` (3.5 in, one column), ``"paper2"``
        (7.16 in, two columns), ``"slides"`` (10 in, large fonts), or a
        :class:`rtsched.sweep.style.FigureStyle`.
    tests:
        The analyses to draw, in legend order (a list or ``"a,b,c"``); default: all, grouped by
        policy.
    labels:
        Legend texts instead of the registry's words: ``{"rta": "RTA [3]"}`` or ``["rta=RTA [3]"]``.
    legend:
        ``"outside"`` (right), ``"below"``, ``"inside"`` (lower left of the first panel) or
        ``"off"``; default: the style's (``below`` for the paper styles).
    title:
        A title over the figure; default none (the experiment's name is never drawn).
    caption:
        Draw the caption under the plot; default: the style's (only ``default`` draws it).
        :func:`~rtsched.sweep.plot.caption_of` gives its text.
    ci:
        Draw each curve's 95 % Wilson band (n = sets per point); default: the style's (only
        ``default`` draws them).

    Returns
    -------
    matplotlib.figure.Figure
        A ``StyledFigure``: its ``savefig`` writes Type 42 fonts in PDF/PS and text in SVG.
        Restyle it as any Figure (``fig.axes[0].set_xlim(...)``).

    Examples
    --------
    >>> fig = acceptance_figure("gvp", style="paper", tests="rta,bar-int,p-edf")  # doctest: +SKIP
    >>> fig.savefig("gvp.pdf")  # doctest: +SKIP
    """
    plan = _plan(source, experiment=experiment, style=style, tests=tests, labels=labels, legend=legend,
                 title=title, caption=caption, ci=ci)  # fmt: skip
    return _acceptance(plan)


@dataclass(frozen=True)
class _Panels:
    """The x axis and panels of the per-point figures (acceptance, tardiness) from ``results.csv`` rows."""

    plan: _Plan
    variable: str
    by_variable: str
    panels: list[str]
    xs_all: list[str]
    numeric_x: bool
    realized: bool

    @classmethod
    def of(cls, plan: _Plan) -> _Panels:
        rows = plan.data.rows
        variable = rows[0]["variable"]
        xs_all = _ordered([r["value"] for r in rows])
        return cls(
            plan,
            variable,
            rows[0].get("by_variable", ""),
            _ordered([r.get("by_value", "") for r in rows]),
            xs_all,
            all(isinstance(_number(x), float) for x in xs_all),
            realized_axis(rows, variable)[0],
        )

    def x(self, sel: Sequence[dict[str, str]]) -> list[float]:
        """The x values of a curve's rows: realized or target utilization, or the index of a category."""
        if self.numeric_x:
            return [_x_value(r, self.variable, self.realized) for r in sel]
        return [float(self.xs_all.index(r["value"])) for r in sel]

    def label(self, ax: Any, index: int, panel: str, cols: int, ylabel: str) -> None:
        """Panel ``index``'s title in words, its own x label where it gets one, the y label in the first column."""
        if self.by_variable:
            ax.set_title(panel_title(self.by_variable, panel))
        if _per_panel_xlabel(self.plan, len(self.panels), index):
            ax.set_xlabel(_x_label(self.plan, self.variable, self.realized))
        if index % cols == 0:
            ax.set_ylabel(ylabel)

    def shared_xlabel(self) -> str | None:
        """The x label under a row of panels, or None where each panel has its own."""
        if _per_panel_xlabel(self.plan, len(self.panels)):
            return None
        return _x_label(self.plan, self.variable, self.realized)


def _styled(plan: _Plan, long: str, short: str) -> str:
    """An axis label: the long form in the default style, the short one in the paper styles."""
    return long if plan.style.long_axis_labels else short


def _acceptance(plan: _Plan) -> Figure:

    rows = plan.data.rows
    grid = _Panels.of(plan)
    with _rc_context(rc_params(plan.style)):
        fig, axes, cols = _new_figure(plan, len(grid.panels), len(plan.analyses))
        for index, panel in enumerate(grid.panels):
            ax = axes[index // cols][index % cols]
            for analysis in plan.analyses:
                sel = [r for r in rows if r.get("by_value", "") == panel and r["analysis"] == analysis]
                if not sel:
                    continue
                x = grid.x(sel)
                y = [float(r["ratio"]) for r in sel]
                look = plan.looks[analysis]
                ax.plot(x, y, label=plan.meta[analysis][0], **look)
                if plan.ci:
                    low, high = zip(*(_band(r) for r in sel), strict=True)
                    alpha = 0.12 if plan.meta[analysis][2] == "necessary" else 0.2
                    ax.fill_between(x, low, high, color=look["color"], alpha=alpha, linewidth=0)
            _format_axes(ax, grid.xs_all, grid.numeric_x, grid.variable)
            ylabel = _styled(plan, "Acceptance ratio (fraction proven schedulable)", "Acceptance ratio")
            grid.label(ax, index, panel, cols, ylabel)
        _decorate(fig, axes, plan, _legend_title(plan), grid.shared_xlabel())
    return fig


def _per_panel_xlabel(plan: _Plan, panels: int, index: int | None = None) -> bool:
    """Whether panel ``index`` gets its own x label (``index=None``: whether any panel does).

    Today's look labels every panel. The other styles label a single row of panels once under
    it (a shared label, placed over a legend or caption below); with several rows, only the
    lowest panel of each column has a label.
    """
    cols = max(1, min(panels, plan.style.columns))
    if plan.style.width is None or panels == 1:
        return True
    if panels <= cols:
        return False
    return index is None or index + cols >= panels


def weighted_figure(
    source: str | Path,
    *,
    style: str | FigureStyle = "default",
    tests: Sequence[str] | str | None = None,
    labels: Mapping[str, str] | Sequence[str] | None = None,
    legend: str | None = None,
    title: str | None = None,
    caption: bool | None = None,
) -> Figure:
    """The weighted-schedulability figure of a sweep directory (Bastoni et al., OSPERT 2010).

    ``W = Σ U·S(U) / Σ U`` per value of the second swept variable, from ``weighted.csv``; the
    options are those of :func:`~rtsched.sweep.acceptance_figure`. Raises :class:`rtsched.errors.InputError`
    when the sweep has no second variable (then W is one number per analysis, no curve).
    """
    plan = _plan(source, experiment=None, style=style, tests=tests, labels=labels, legend=legend,
                 title=title, caption=caption, ci=False)  # fmt: skip
    return _weighted(plan)


def _weighted(plan: _Plan) -> Figure:

    wrows = plan.data.weighted or []
    wvar = wrows[0]["variable"] if wrows else ""
    if not (plan.data.rows[0].get("by_variable") and wrows and wvar):
        raise InputError(
            "weighted schedulability is not available: it needs a second swept variable (sweep.by), and then "
            "weighted.csv holds one W = Σ U·S(U) / Σ U per analysis and value",
            field="--weighted",
        )
    # The weighted figure draws no band: its caption does not mention them.
    plan = replace(plan, caption_text=plan.caption_text.replace("; " + BANDS_SENTENCE, "."))
    values = _ordered([r["value"] for r in wrows])
    numeric = all(isinstance(_number(v), float) for v in values)
    with _rc_context(rc_params(plan.style)):
        fig, axes, _ = _new_figure(plan, 1, len(plan.analyses))
        ax = axes[0][0]
        for analysis in plan.analyses:
            sel = [r for r in wrows if r["analysis"] == analysis]
            if not sel:
                continue
            x = [float(r["value"]) if numeric else values.index(r["value"]) for r in sel]
            ax.plot(
                x,
                [float(r["weighted_schedulability"]) for r in sel],
                label=plan.meta[analysis][0],
                **plan.looks[analysis],
            )
        _format_axes(ax, values, numeric, wvar)
        label = axis_label(wvar, plan.kind)
        ax.set_xlabel(_styled(plan, label, _short_label(label)))
        ax.set_ylabel(_styled(plan, "Weighted schedulability W (Bastoni et al. 2010)", "Weighted schedulability"))
        _decorate(fig, axes, plan, _legend_title(plan))
    return fig


def plot_directory(
    directory: str | Path,
    formats: tuple[str, ...] = FORMATS,
    *,
    style: str | FigureStyle = "default",
    tests: Sequence[str] | str | None = None,
    labels: Mapping[str, str] | Sequence[str] | None = None,
    legend: str | None = None,
    title: str | None = None,
    caption: bool | None = None,
    ci: bool | None = None,
    weighted: bool | None = None,
) -> list[Path]:
    """Write the plots of an experiment directory and ``CAPTION.txt``; returns the files written.

    ``acceptance.*`` always; ``weighted.*`` when the sweep has a second variable (``weighted=True``
    requires it, ``False`` skips it); ``tardiness.*`` when a soft real-time analysis ran. The
    other options are those of :func:`~rtsched.sweep.acceptance_figure`. ``CAPTION.txt`` holds the caption
    whether or not it is drawn.

    Raises
    ------
    InputError
        If the directory has no ``results.csv`` or ``manifest.json`` (run the sweep first), an
        option names an analysis the sweep does not have, or ``weighted=True`` and there is no
        second variable.
    """
    root = Path(directory)
    plan = _plan(root, experiment=None, style=style, tests=tests, labels=labels, legend=legend,
                 title=title, caption=caption, ci=ci)  # fmt: skip
    has_weighted = bool(plan.data.rows[0].get("by_variable")) and bool(plan.data.weighted)
    if weighted and not has_weighted:
        _weighted(plan)  # raises the reason
    dpi = 150 if plan.style.width is None else 300
    written = _save(_acceptance(plan), root / "acceptance", formats, dpi)
    caption_path = root / "CAPTION.txt"
    caption_path.write_text(plan.caption_text + "\n", encoding="utf-8")
    written.append(caption_path)
    rows = plan.data.rows
    if any(r.get("tardiness_mean") for r in rows if r["analysis"] in plan.analyses):
        written += _save(_tardiness(plan), root / "tardiness", formats, dpi)
    if has_weighted and weighted is not False:
        written += _save(_weighted(plan), root / "weighted", formats, dpi)
    return written


def _tardiness(plan: _Plan) -> Figure:
    """``tardiness.*``: per soft real-time analysis, mean (solid) and max (dashed) of max_bound / T_max.

    Only the sets whose tardiness is bounded count (:mod:`rtsched.sweep.tardiness`); a point where
    none is bounded has no value.
    """
    rows = plan.data.rows
    grid = _Panels.of(plan)
    soft = [a for a in plan.analyses if any(r["analysis"] == a and r.get("tardiness_mean") for r in rows)]
    with _rc_context(rc_params(plan.style)):
        fig, axes, cols = _new_figure(plan, len(grid.panels), 2 * len(soft))
        for index, panel in enumerate(grid.panels):
            ax = axes[index // cols][index % cols]
            for analysis in soft:
                sel = [
                    r
                    for r in rows
                    if r.get("by_value", "") == panel and r["analysis"] == analysis and r.get("tardiness_mean")
                ]
                if not sel:
                    continue
                x = grid.x(sel)
                look = plan.looks[analysis]
                ax.plot(x, [float(r["tardiness_mean"]) for r in sel], label=f"{plan.meta[analysis][0]}: mean", **look)
                dashed = {**look, "linestyle": (0, (4, 2)), "marker": None}
                ax.plot(x, [float(r["tardiness_max"]) for r in sel], label=f"{plan.meta[analysis][0]}: max", **dashed)
            if not grid.numeric_x:
                ax.set_xticks(range(len(grid.xs_all)), grid.xs_all, rotation=30, ha="right")
            ax.set_ylim(bottom=0)
            ax.grid(True, alpha=0.3)
            grid.label(ax, index, panel, cols, "Tardiness bound / largest period T_max")
        shared = grid.shared_xlabel()
        handles, labels = axes[0][0].get_legend_handles_labels()
        labels = ["\n".join(textwrap.wrap(label, plan.style.wrap, subsequent_indent="   ")) for label in labels]
        legend_title = (
            "soft real-time analysis\n(over the sets with bounded tardiness)" if plan.style.width is None else None
        )
        _legend_title_caption(fig, axes[0][0], handles, labels, plan, legend_title, "upper left", shared)
    return fig


def _reserve_bottom(fig: Any, bottom: float) -> None:
    """Keep the lowest ``bottom`` fraction of a constrained-layout figure free for the caption."""
    from matplotlib.layout_engine import ConstrainedLayoutEngine

    engine = fig.get_layout_engine()
    assert isinstance(engine, ConstrainedLayoutEngine), "figures here are made with layout='constrained'"
    engine.set(rect=(0, bottom, 1, 1 - bottom))


def _save(fig: Any, stem: Path, formats: tuple[str, ...], dpi: int = 150) -> list[Path]:
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
        # The style's rcParams (Type 42 fonts, SVG text as text) apply whatever Figure this is.

        with _rc_context(getattr(fig, "rtsched_rc", FONT_RC)):
            fig.savefig(tmp, format=fmt, dpi=dpi, metadata=metadata)
        tmp.replace(path)
        out.append(path)
    return out
