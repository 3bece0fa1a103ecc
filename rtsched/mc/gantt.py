"""Gantt charts of mode-switch runs (:func:`rtsched.mc.sim.simulate_mc` with ``record=True``).

One row per task, labelled with its criticality (``τ1 HI``), bars in the task colours of
:mod:`rtsched.sim.gantt` with ``j`` (the job) and, on more than one processor, ``Pp`` in them.
A mode switch is a red dashed line across the rows of the processor that switched (every row
unless partitioned), the first one of each processor captioned with the job that overran its
C(LO), and HI mode is
shaded until a return to LO mode (a green dotted line) or the end. Releases are solid up
arrows and deadlines dashed down arrows, as in the task chart; LO arrivals skipped in HI mode
are grey hollow up arrows, LO jobs dropped at the switch grey crosses, and the first failure a
red cross with a caption. The semantics: papers/mc-simulator.md.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from rtsched.mc.model import LEVELS
from rtsched.sim.gantt import (
    TASK_COLOURS,
    chart_title,
    chart_width,
    gantt_window,
    mark_deadline,
    mark_miss,
    mark_release,
    own_axes,
    require_recorded,
    save_axes,
    time_axis,
)

if TYPE_CHECKING:
    from matplotlib.axes import Axes

    from rtsched.mc.sim import MCTrace

__all__ = ["BAR_HEIGHT", "HI_SHADE", "SWITCH_COLOUR", "plot_mc_gantt", "save_mc_gantt"]

#: Height of a bar (rows are 1 apart), as in the task Gantt chart.
BAR_HEIGHT = 0.7
#: The colour of a switch line and its caption.
SWITCH_COLOUR = "red"
#: The background of HI mode.
HI_SHADE = "#f6d5d5"


def plot_mc_gantt(
    trace: MCTrace,
    *,
    ax: Axes | None = None,
    since: int | None = None,
    until: int | None = None,
    title: str | None = None,
    labels: bool = True,
) -> Axes:
    """Draw a recorded mode-switch run as a Gantt chart, one row per task; return the axes.

    Parameters
    ----------
    trace:
        A run of :func:`rtsched.mc.sim.simulate_mc` with ``record=True``.
    ax:
        Axes to draw on (e.g. a subplot of a lab's figure). Default: a new figure of its own
        (``ax.figure``), made without pyplot so that it works with any backend.
    since, until:
        Ticks shown, as in :func:`rtsched.sim.gantt.gantt`: by default from 0 to the end of the
        run when that is at most 400 ticks, else its last 400 ticks. Bars are clipped to the window.
    title:
        The title; default: the run's summary and each task's (level, C(LO), C(HI), D, T).
    labels:
        Write the job index (and the processor on m > 1) in each bar wide enough to hold it.

    Returns
    -------
    matplotlib.axes.Axes
        The axes. Each segment is one :class:`~matplotlib.patches.Rectangle` in ``ax.patches``
        from ``(start, task - BAR_HEIGHT / 2)``, ``end - start`` wide, whose ``get_gid()`` is
        ``"task,job,processor"``; no other patch is added (the HI-mode shading is a collection).
        Each switch line is a :class:`~matplotlib.lines.Line2D` with the gid ``"switch,core"``.

    Raises
    ------
    InputError
        For a run recorded without ``record=True``, or an empty window.

    Examples
    --------
    >>> from rtsched.mc.model import MCTask, MCTaskSet
    >>> from rtsched.mc.sim import simulate_mc
    >>> ts = MCTaskSet([MCTask.lo(2, T=4), MCTask.hi(1, 3, T=6)])
    >>> ax = plot_mc_gantt(simulate_mc(ts, scenario="hi", record=True))
    >>> len(ax.patches), [line.get_gid() for line in ax.lines if line.get_gid()]
    (3, ['switch,0'])
    """
    require_recorded(trace)
    ts = trace.taskset
    start_at, end, window_note = gantt_window(trace.end_time, since, until)
    width = chart_width(start_at, end)
    if ax is None:
        ax = own_axes(width, 1.4 + 0.75 * ts.n)
    partitioned = trace.partition is not None

    def rows_of(core: int) -> list[int]:
        """The rows (tasks) that a switch on ``core`` concerns."""
        if not partitioned:
            return list(range(ts.n))
        return [i for i in range(ts.n) if trace.partition[i] == core]  # type: ignore[index]

    # HI mode: shaded from each switch to the next return on that core (or the end)
    returns: dict[int, list[int]] = {}
    for time, core in trace.returns:
        returns.setdefault(core, []).append(time)
    captioned: set[int] = set()
    for switch in trace.switches:
        back = [t for t in returns.get(switch.core, []) if t >= switch.time]
        stop = min(back) if back else end
        lo, hi = max(switch.time, start_at), min(stop, end)
        if lo < hi:
            for y in rows_of(switch.core):
                ax.fill_between([lo, hi], y - 0.5, y + 0.5, color=HI_SHADE, linewidth=0, zorder=0)
        if start_at <= switch.time <= end:
            ys = rows_of(switch.core)
            xs: list[float] = []
            ys_line: list[float] = []
            for y in ys:  # a segment per row: under partitioning a core's rows need not be adjacent
                xs += [switch.time, switch.time, float("nan")]
                ys_line += [y - 0.5, y + 0.5, float("nan")]
            ax.plot(
                xs, ys_line, color=SWITCH_COLOUR, linewidth=2.0, linestyle="--", gid=f"switch,{switch.core}", zorder=3
            )
            if switch.core not in captioned:  # the first switch of each core in the window
                captioned.add(switch.core)
                where = f"P{switch.core}: " if partitioned else ""
                ax.text(
                    switch.time, min(ys) - 0.5, f"{where}HI mode ({ts.label(switch.task)} job {switch.job} > C(LO))",
                    color=SWITCH_COLOUR, fontsize=8, ha="left", va="bottom",
                    bbox={"facecolor": "white", "edgecolor": "none", "alpha": 0.8, "pad": 1},
                )  # fmt: skip
    for time, core in trace.returns:
        if start_at <= time <= end:
            for y in rows_of(core):
                ax.plot([time, time], [y - 0.5, y + 0.5], color="green", linewidth=1.6, linestyle=":")
    min_label = max(1.0, (end - start_at) / 60)
    missed = None if trace.miss is None else (trace.miss.task, trace.miss.job)
    for cpu, task, job, start, stop in trace.segments.tolist():
        if start >= end or stop <= start_at:
            continue
        start, stop = max(start, start_at), min(stop, end)
        miss = (task, job) == missed
        ax.barh(
            task,
            stop - start,
            left=start,
            height=BAR_HEIGHT,
            color=TASK_COLOURS[task % len(TASK_COLOURS)],
            edgecolor="red" if miss else "black",
            linewidth=2.0 if miss else 0.6,
            gid=f"{task},{job},{cpu}",
            zorder=2,
        )
        if labels and stop - start >= min_label:
            text = f"{job}" if trace.m == 1 else f"{job}·P{cpu}"
            ax.text(
                (start + stop) / 2,
                task,
                text,
                ha="center",
                va="center",
                fontsize=8,
                color="white",
                fontweight="bold",
                zorder=4,
            )
    for task, _job, release, deadline, _demand in trace.releases.tolist():
        colour = TASK_COLOURS[task % len(TASK_COLOURS)]
        if start_at <= release <= end:
            mark_release(ax, release, task, colour)
        if start_at <= deadline <= end:
            mark_deadline(ax, deadline, task, colour)
    for task, _job, release in trace.skipped_releases.tolist():
        if start_at <= release <= end:
            ax.annotate(
                "", xy=(release, task - 0.58), xytext=(release, task - 0.05),
                arrowprops={"arrowstyle": "-|>", "color": "grey", "lw": 1.0, "fill": False},
            )  # fmt: skip
    for drop in trace.dropped:
        if start_at <= drop.time <= end:
            ax.plot([drop.time], [drop.task], marker="x", color="grey", markersize=10, markeredgewidth=2.5, zorder=5)
    if trace.miss is not None and start_at <= trace.miss.time <= end:
        miss_text = f"{ts.label(trace.miss.task)} job {trace.miss.job} misses ({trace.miss.mode} mode)"
        mark_miss(ax, trace.miss.time, trace.miss.task, miss_text, start_at, end)
    time_axis(ax, [f"{ts.label(i)} {LEVELS[ts[i].level]}" for i in range(ts.n)], start_at, end)
    if title is None:
        tasks = ", ".join(
            f"{ts.label(i)}=({t.criticality}, C={'/'.join(map(str, t.wcets))}, D={t.D}, T={t.T})"
            for i, t in enumerate(ts)
        )
        title = chart_title(trace.summary(), tasks, width, window_note)
    ax.set_title(title, fontsize=10)
    return ax


def save_mc_gantt(
    trace: MCTrace, path: str | Path, *, since: int | None = None, until: int | None = None, dpi: int = 150
) -> Path:
    """Draw ``trace`` with :func:`plot_mc_gantt` and write it to ``path`` (PNG, PDF or SVG by extension)."""
    return save_axes(plot_mc_gantt(trace, since=since, until=until), path, dpi)
