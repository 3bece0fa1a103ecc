"""Gantt charts of DAG simulator traces (:func:`rtsched.dag.simulate_dag` with ``record=True``).

One row per processor; each piece of a vertex's execution is a bar labelled ``τi,j`` (task
``i``, job ``j``) over the vertex's name, so the nodes of one job share one colour and the
jobs of a task are shades of that task's hue (the task colours of :mod:`rtsched.sim.gantt`).
Releases are solid up arrows and deadlines dashed down arrows on the row where the job first
ran, as in the task Gantt chart; the first deadline miss is a red cross with a caption and the
bars of the job that missed have red edges. The simulator's semantics: papers/dag-model.md,
section "Simulator".
"""

from __future__ import annotations

import colorsys
from pathlib import Path
from typing import TYPE_CHECKING

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

    from rtsched.dag.sim import DAGTrace

__all__ = ["BAR_HEIGHT", "MISS_EDGE", "job_colour", "plot_dag_gantt", "save_dag_gantt"]

#: Height of a bar (rows are 1 apart), as in the task Gantt chart.
BAR_HEIGHT = 0.7
#: Edge colour of the bars of the job that missed its deadline.
MISS_EDGE = "red"
#: Lightness offsets of successive jobs of one task (cycled): adjacent jobs always differ.
_SHADES = (0.0, 0.16, -0.14, 0.28)


def job_colour(task: int, job: int) -> tuple[float, float, float]:
    """The colour of job ``job`` of task ``task``: the task's hue, one of four shades by job index.

    The hue is the task colour of the task Gantt chart (``TASK_COLOURS[task % 10]``); job ``j``
    changes its lightness by ``_SHADES[j % 4]`` (clipped to [0.15, 0.88]), so two consecutive jobs
    of a task never share a colour and every job of a task stays recognisably that task's.
    """
    from matplotlib.colors import to_rgb

    hue, lightness, saturation = colorsys.rgb_to_hls(*to_rgb(TASK_COLOURS[task % len(TASK_COLOURS)]))
    lightness = min(0.88, max(0.15, lightness + _SHADES[job % len(_SHADES)]))
    return colorsys.hls_to_rgb(hue, lightness, saturation)


def _text_colour(rgb: tuple[float, float, float]) -> str:
    """Black on light bars, white on dark ones (relative luminance, ITU-R BT.709 weights)."""
    r, g, b = rgb
    return "black" if 0.2126 * r + 0.7152 * g + 0.0722 * b > 0.55 else "white"


def plot_dag_gantt(
    trace: DAGTrace,
    *,
    ax: Axes | None = None,
    since: int | None = None,
    until: int | None = None,
    title: str | None = None,
    labels: bool = True,
) -> Axes:
    """Draw a recorded DAG run as a Gantt chart, one row per processor; return the axes.

    Parameters
    ----------
    trace:
        A run of :func:`rtsched.dag.simulate_dag` with ``record=True`` (its ``segments`` and
        ``releases``).
    ax:
        Axes to draw on (e.g. a subplot of a lab's figure). Default: a new figure of its own
        (``ax.figure``), made without pyplot so that it works with any backend.
    since, until:
        Ticks shown, as in :func:`rtsched.sim.gantt.gantt`: by default from 0 to the end of the
        run when that is at most 400 ticks, else its last 400 ticks (the title then says so).
        Bars are clipped to the window.
    title:
        The title; default: the run's summary and each task's (vol, len, D, T).
    labels:
        Write ``τi,j`` and the vertex's name in each bar wide enough to hold them.

    Returns
    -------
    matplotlib.axes.Axes
        The axes. Each execution piece is one :class:`~matplotlib.patches.Rectangle` in
        ``ax.patches`` from ``(start, processor - BAR_HEIGHT / 2)``, ``end - start`` wide, whose
        ``get_gid()`` is ``"task,job,vertex"``; no other patch is added to the axes.

    Raises
    ------
    InputError
        For a run recorded without ``record=True``, or an empty window.

    Examples
    --------
    >>> from rtsched.dag import DAGTask, DAGTaskSet, simulate_dag
    >>> fj = DAGTask([1, 3, 2, 4, 1], [(0, 1), (0, 2), (0, 3), (1, 4), (2, 4), (3, 4)], T=20, D=15)
    >>> ax = plot_dag_gantt(simulate_dag(DAGTaskSet([fj]), 2, horizon=20, record=True))
    >>> len(ax.patches)  # v0, v1, v2, v3 and v4 once each: no preemption on 2 processors
    5
    """
    require_recorded(trace)
    ts = trace.taskset
    start_at, end, window_note = gantt_window(trace.end_time, since, until)
    width = chart_width(start_at, end)
    if ax is None:
        ax = own_axes(width, 1.2 + 0.8 * trace.m)
    missed = None if trace.miss is None else (trace.miss.task, trace.miss.job)
    job_row: dict[tuple[int, int], int] = {}
    last_row: dict[tuple[int, int], int] = {}
    for cpu, _start, _stop, task, job, _vertex in sorted(trace.segments.tolist(), key=lambda s: (s[1], s[0])):
        job_row.setdefault((task, job), cpu)
        last_row[(task, job)] = cpu
    min_label = max(1.0, (end - start_at) / 50)
    for cpu, start, stop, task, job, vertex in trace.segments.tolist():
        if start >= end or stop <= start_at:
            continue
        start, stop = max(start, start_at), min(stop, end)
        colour = job_colour(task, job)
        miss = (task, job) == missed
        ax.barh(
            cpu,
            stop - start,
            left=start,
            height=BAR_HEIGHT,
            color=colour,
            edgecolor=MISS_EDGE if miss else "black",
            linewidth=2.0 if miss else 0.6,
            gid=f"{task},{job},{vertex}",
        )
        if labels and stop - start >= min_label:
            name = ts[task].vertex_names
            vname = f"v{vertex}" if name is None or name[vertex] is None else str(name[vertex])
            ax.text(
                (start + stop) / 2, cpu, f"τ{task},{job}\n{vname}", ha="center", va="center", fontsize=8,
                color=_text_colour(colour), fontweight="bold", clip_on=True,
            )  # fmt: skip
    for task, job, release, deadline in trace.releases.tolist():
        y = job_row.get((task, job), 0)
        colour = job_colour(task, job)
        if start_at <= release <= end:
            mark_release(ax, release, y, colour)  # type: ignore[arg-type]
        if start_at <= deadline <= end:
            mark_deadline(ax, deadline, y, colour)  # type: ignore[arg-type]
    if trace.miss is not None and start_at <= trace.miss.time <= end:
        y = last_row.get((trace.miss.task, trace.miss.job), 0)
        text = f"{ts.label(trace.miss.task)} job {trace.miss.job} misses"
        mark_miss(ax, trace.miss.time, y, text, start_at, end)
    time_axis(ax, [f"P{p}" for p in range(trace.m)], start_at, end)
    if title is None:
        tasks = ", ".join(
            f"{ts.label(i)}=(vol={vol}, len={length}, D={d}, T={t})" for i, (vol, length, d, t) in enumerate(ts.rows())
        )
        title = chart_title(trace.summary(), tasks, width, window_note)
    ax.set_title(title, fontsize=10)
    return ax


def save_dag_gantt(
    trace: DAGTrace, path: str | Path, *, since: int | None = None, until: int | None = None, dpi: int = 150
) -> Path:
    """Draw ``trace`` with :func:`~rtsched.dag.plot_dag_gantt` and write it to ``path`` (PNG, PDF or SVG by extension)."""
    return save_axes(plot_dag_gantt(trace, since=since, until=until), path, dpi)
