"""Gantt charts of simulator traces (matplotlib), sized and labelled for a lecture slide.

One row per processor (who runs where; colours are tasks) or one row per task (when each job
runs; the processor is written in the bar). Releases are solid up arrows, deadlines dashed down arrows,
preemptions small ticks, migrations are named in the bar, tie decisions small diamonds (filled:
the job that won a tie between equal deadlines; hollow, on task rows: the job that lost it), and
the first deadline miss is a red cross with a caption. The title names the tie rule. See
papers/simulator.md.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from rtsched.errors import InputError

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from rtsched.sim.trace import Trace

__all__ = [
    "DEFAULT_WINDOW",
    "TASK_COLOURS",
    "chart_title",
    "chart_width",
    "gantt",
    "gantt_window",
    "mark_deadline",
    "mark_miss",
    "mark_release",
    "own_axes",
    "require_recorded",
    "save_axes",
    "save_gantt",
    "time_axis",
]

Rows = Literal["processors", "tasks"]


#: Ticks shown by default: a slide stays readable with about this many.
DEFAULT_WINDOW = 400

#: Task colours (task i: ``TASK_COLOURS[i % 10]``), shared by the task and DAG Gantt charts.
TASK_COLOURS = (
    "#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2",
    "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac",
)


def gantt_window(end_time: int, since: int | None, until: int | None) -> tuple[int, int, str]:
    """The ticks ``[start, end]`` a chart shows, and a note for the title when the start is cut off.

    Default: from 0 to the end of the run when that is at most :data:`DEFAULT_WINDOW` ticks,
    else its last :data:`DEFAULT_WINDOW` ticks.
    """
    end = int(until if until is not None else max(end_time, 1))
    start_at = int(since if since is not None else max(0, end - DEFAULT_WINDOW))
    window_note = f"ticks {start_at}–{end} of the run (since=0 / --gantt-since 0 for the start)" if since is None and start_at > 0 else ""
    if start_at >= end:
        raise InputError(f"empty Gantt window [{start_at}, {end}]")
    return start_at, end, window_note


def chart_width(start: int, end: int) -> float:
    """The width in inches of a chart of the ticks ``[start, end]``: a quarter inch a tick, 8 to 16."""
    return min(16.0, max(8.0, 0.25 * (end - start) + 2.0))


def chart_title(summary: str, tasks: str, width: float, window_note: str) -> str:
    """The default title: the run's ``summary`` and the ``tasks``, wrapped to the width, then the window note."""
    chars = int(width * 11)  # about what fits on one line at fontsize 10
    lines = [*textwrap.wrap(summary, chars), *textwrap.wrap(tasks, chars)]
    return "\n".join([*lines, window_note] if window_note else lines)


def require_recorded(trace: Any) -> None:
    """Refuse a run that ran jobs but recorded nothing to draw (simulated without ``record=True``)."""
    if trace.jobs and not trace.releases.shape[0]:
        raise InputError("the run was not recorded: simulate with record=True to draw it", field="trace")


def own_axes(width: float, height: float) -> Axes:
    """The axes of a new figure of their own (made without pyplot: no global state, any backend)."""
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), layout="constrained").add_subplot()


def save_axes(ax: Axes, path: str | Path, dpi: int) -> Path:
    """Write the figure of ``ax`` (axes of a figure of their own) to ``path`` (PNG, PDF or SVG by extension)."""
    path = Path(path)
    figure = ax.get_figure(root=True)
    assert figure is not None  # the axes of a figure of their own
    figure.savefig(path, dpi=dpi)
    return path


def mark_release(ax: Axes, time: int, y: float, colour: str) -> None:
    """A release: a solid up arrow above the bar of row ``y`` (the y axis is inverted)."""
    ax.annotate("", xy=(time, y - 0.58), xytext=(time, y - 0.05), arrowprops={"arrowstyle": "->", "color": colour, "lw": 1.6})


def mark_deadline(ax: Axes, time: int, y: float, colour: str) -> None:
    """A deadline: a dashed down arrow above the bar of row ``y``."""
    ax.annotate("", xy=(time, y - 0.05), xytext=(time, y - 0.58), arrowprops={"arrowstyle": "->", "color": colour, "lw": 1.6, "linestyle": "--"})


def mark_miss(ax: Axes, time: int, y: float, text: str, start: int, end: int) -> None:
    """The deadline miss: a red cross on row ``y`` and ``text`` above it."""
    ax.plot([time], [y], marker="X", color="red", markersize=14, markeredgecolor="black")
    # near the right end, the label ends at the cross: centred, it ran past the axes into the legend
    align = "right" if time - start > 0.75 * (end - start) else "center"
    ax.text(
        time,
        y - 0.55,
        text,
        color="red",
        ha=align,
        va="top",
        fontsize=10,
        bbox={"facecolor": "white", "edgecolor": "none", "alpha": 0.85, "pad": 1},
    )


def time_axis(ax: Axes, labels: list[str], start: int, end: int) -> None:
    """Row labels (first row on top) and the time axis of ``[start, end]`` with about 20 ticks."""
    ax.set_yticks(range(len(labels)), labels, fontsize=11)
    ax.set_ylim(len(labels) - 0.4, -0.8)
    ax.set_xlim(start - 0.2, end + 0.5)
    step = max(1, (end - start) // 20)
    ax.set_xticks(range(start, end + 1, step))
    ax.grid(axis="x", linestyle=":", linewidth=0.6)
    ax.set_xlabel("time (ticks)", fontsize=11)


def gantt(
    trace: Trace,
    *,
    rows: Rows = "processors",
    since: int | None = None,
    until: int | None = None,
    title: str | None = None,
) -> Figure:
    """Draw ``trace`` (a recorded run) as a Gantt chart and return the figure.

    Parameters
    ----------
    trace:
        A run recorded with ``simulate(..., record=True)``.
    rows:
        ``"processors"`` (one row per processor) or ``"tasks"`` (one row per task).
    since, until:
        Window shown. Default: from 0 (the critical instant of a synchronous release) to the
        end of the run (the miss, if there is one) when that is at most ``DEFAULT_WINDOW`` = 400
        ticks; for a longer run, its last 400 ticks (which include the miss), and the title
        says which ticks are shown.
    title:
        Figure title (default: the run's summary).
    """
    from matplotlib.figure import Figure  # no pyplot: no global state, works with any backend

    if rows not in ("processors", "tasks"):
        raise InputError(f"rows must be 'processors' or 'tasks', got {rows!r}")
    ts = trace.taskset
    start_at, end, window_note = gantt_window(trace.end_time, since, until)
    n_rows = trace.m if rows == "processors" else ts.n
    width = chart_width(start_at, end)
    fig = Figure(figsize=(width, 1.0 + 0.75 * n_rows), layout="constrained")
    ax = fig.add_subplot()
    palette = TASK_COLOURS

    def row_of(cpu: int, task: int) -> int:
        return cpu if rows == "processors" else task

    for cpu, task, job, start, stop in trace.segments.tolist():
        if start >= end or stop <= start_at:
            continue
        start, stop = max(start, start_at), min(stop, end)
        y = row_of(cpu, task)
        ax.broken_barh([(start, stop - start)], (y - 0.35, 0.7), facecolors=palette[task % len(palette)], edgecolor="black", linewidth=0.6)
        label = f"τ{task},{job}" if rows == "processors" else f"P{cpu}"
        if stop - start >= max(1, (end - start_at) / 60):
            ax.text((start + stop) / 2, y, label, ha="center", va="center", fontsize=9, color="white", fontweight="bold")
    # releases (↑) and deadlines (↓) on the task's row, or on the row where the job ran
    job_row: dict[tuple[int, int], int] = {}
    for cpu, task, job, _s, _e in trace.segments.tolist():
        job_row.setdefault((task, job), row_of(cpu, task))
    for task, job, release, deadline in trace.releases.tolist():
        y = job_row.get((task, job), 0) if rows == "processors" else task
        colour = palette[task % len(palette)]
        if start_at <= release <= end:
            mark_release(ax, release, y, colour)
        if start_at <= deadline <= end:
            mark_deadline(ax, deadline, y, colour)
    for time, task, _job, cpu in trace.preemptions.tolist():
        if start_at <= time <= end:
            ax.plot([time], [row_of(cpu, task) + 0.38], marker="v", color="black", markersize=4)
    # tie decisions: a filled diamond over the winner's bar, a hollow one on a loser's task row
    shown_tie = False
    tie_label = "won a tie (equal deadlines)" if rows == "processors" else "tie broken (filled: won, hollow: lost)"
    for time, task, job, won in trace.tie_decisions.tolist():
        if not start_at <= time <= end:
            continue
        if rows == "processors":
            if not won:
                continue  # a waiting job has no processor row
            cpu = _cpu_at(trace, task, job, time)
            if cpu < 0:
                continue
            y = cpu
        else:
            y = task
        ax.plot(
            [time + 0.15], [y - 0.42], marker="D", markersize=5, linestyle="none", color="black",
            markerfacecolor="black" if won else "white", label=None if shown_tie else tie_label,
        )
        shown_tie = True
    if shown_tie:
        ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8)  # outside: never over a bar
    for time, task, job, src, dst in trace.migrations.tolist():
        if not start_at <= time <= end:
            continue
        if rows == "tasks":
            ax.text(time, task + 0.42, f"P{src}→P{dst}", fontsize=7, ha="left", va="bottom")
        else:
            ax.text(time, dst + 0.42, f"τ{task},{job} from P{src}", fontsize=7, ha="left", va="bottom")
    if trace.miss is not None and start_at <= trace.miss.time <= end:
        y = trace.miss.task if rows == "tasks" else job_row.get((trace.miss.task, trace.miss.job), 0)
        mark_miss(ax, trace.miss.time, y, f"{ts.label(trace.miss.task)} misses", start_at, end)
    labels = [f"P{p}" for p in range(trace.m)] if rows == "processors" else [ts.label(i) for i in range(ts.n)]
    time_axis(ax, labels, start_at, end)
    rows_text = ", ".join(f"{ts.label(i)}=(C={c}, D={d}, T={t})" for i, (c, d, t) in enumerate(ts.rows()))
    if title is None:
        title = chart_title(trace.summary(), rows_text, width, window_note)
    ax.set_title(title, fontsize=10)
    return fig


def _cpu_at(trace: Trace, task: int, job: int, time: int) -> int:
    """Processor on which ``task``'s job ``job`` runs during ``[time, time + 1)`` (-1: none)."""
    seg = trace.segments
    rows = seg[(seg[:, 1] == task) & (seg[:, 2] == job) & (seg[:, 3] <= time) & (seg[:, 4] > time)]
    return int(rows[0, 0]) if rows.shape[0] else -1


def save_gantt(
    trace: Trace,
    path: str | Path,
    *,
    rows: Rows = "processors",
    since: int | None = None,
    until: int | None = None,
    dpi: int = 150,
) -> Path:
    """Draw ``trace`` and write it to ``path`` (PNG, PDF or SVG by extension); return the path."""
    path = Path(path)
    fig = gantt(trace, rows=rows, since=since, until=until)
    fig.savefig(path, dpi=dpi)
    return path
