"""Gantt charts of CPU–GPU runs (:func:`rtsched.segmented.sim.simulate_segmented` with ``record=True``).

One row per CPU core (``core0``, ...) and one per device (``gpu:<name>``), bars in the task colours
of :mod:`rtsched.sim.gantt` with the job index in them. On a core a CPU segment is a plain bar, a
CPU-side part of a GPU segment (``G_m``: launch, copies) a bar with a thick edge, and spinning
(a busy job waiting for its device, or waiting for its ``G_e``) a pale dotted bar; parts run
**boosted** (``G_m`` and spinning on the GPU under MPCP or FMLP+) are hatched ``///``. On a device
a ``G_e`` is a plain bar, and a thin band along the bottom of the row shows who holds the device
(grant to release, which includes its ``G_m`` parts); under protocol ``none`` segments that
share a device at once are drawn in lanes of the row. Under the preemptive protocols ``gcaps`` and
``tsg-rr`` (no lock: no boosting, no holder band) a device row shows each ``G_e`` slice where it
ran and each context switch (``ctx``, ``epsilon`` ticks) as a black bar. Releases are solid up arrows and deadlines
dashed down arrows on the task's core row, as in the task chart; the first miss is a red cross
with a caption and the bars of every job that missed have red edges. The semantics:
papers/cpu-gpu-model.md and papers/cpu-gpu-simulator.md.
"""

from __future__ import annotations

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

    from rtsched.segmented.sim import Interval, SegmentedTrace

__all__ = [
    "BAR_HEIGHT",
    "BOOST_HATCH",
    "CTX_COLOUR",
    "MISS_EDGE",
    "SPIN_HATCH",
    "plot_segmented_gantt",
    "save_segmented_gantt",
]

#: Height of a bar (rows are 1 apart), as in the task Gantt chart.
BAR_HEIGHT = 0.7
#: Hatch of the parts that run boosted (G_m, spinning on the GPU) under MPCP and FMLP+.
BOOST_HATCH = "///"
#: Hatch of spinning (busy waiting).
SPIN_HATCH = "..."
#: Colour of a context switch on a device (protocols gcaps and tsg-rr).
CTX_COLOUR = "black"
#: Edge colour of the bars of a job that missed its deadline.
MISS_EDGE = "red"
#: Height of the band that shows a device's holder.
_HOLD_BAND = 0.12


def _lanes(intervals: list[Interval]) -> dict[Interval, tuple[int, int]]:
    """Per interval of one row, ``(lane, lanes)``: overlapping intervals (protocol none) side by side."""
    ends: list[int] = []  # end of the last interval in each lane
    lane_of: dict[Interval, int] = {}
    for iv in sorted(intervals, key=lambda iv: (iv.start, iv.end)):
        for k, end in enumerate(ends):
            if end <= iv.start:
                ends[k] = iv.end
                lane_of[iv] = k
                break
        else:
            lane_of[iv] = len(ends)
            ends.append(iv.end)
    lanes = max(1, len(ends))
    return {iv: (k, lanes) for iv, k in lane_of.items()}


def plot_segmented_gantt(
    trace: SegmentedTrace,
    *,
    ax: Axes | None = None,
    since: int | None = None,
    until: int | None = None,
    title: str | None = None,
    labels: bool = True,
) -> Axes:
    """Draw a recorded CPU–GPU run as a Gantt chart, a row per core and per device; return the axes.

    Parameters
    ----------
    trace:
        A run of :func:`rtsched.segmented.sim.simulate_segmented` with ``record=True``.
    ax:
        Axes to draw on (e.g. a subplot of a lab's figure). Default: a new figure of its own
        (``ax.figure``), made without pyplot so that it works with any backend.
    since, until:
        Ticks shown, as in :func:`rtsched.sim.gantt.gantt`: by default from 0 to the end of the
        run when that is at most 400 ticks, else its last 400 ticks. Bars are clipped to the window.
    title:
        The title; default: the run's summary and each task's segments, T, D, core and mode.
    labels:
        Write the job index in each bar wide enough to hold it.

    Returns
    -------
    matplotlib.axes.Axes
        The axes. Each interval is one :class:`~matplotlib.patches.Rectangle` in ``ax.patches``
        whose ``get_gid()`` is ``"task,job,resource,what"`` (``what`` as in
        :data:`rtsched.segmented.sim.WHATS`, ``ctx`` for a context switch towards that job's
        part, or ``hold`` for a device's holder band).

    Raises
    ------
    InputError
        For a run recorded without ``record=True``, or an empty window.

    Examples
    --------
    >>> from rtsched.segmented.model import GPUSegment, SegmentedTask, SegmentedTaskSet
    >>> from rtsched.segmented.sim import simulate_segmented
    >>> ts = SegmentedTaskSet([SegmentedTask((1, 1), (GPUSegment(2, 3),), T=10, core=0)])
    >>> ax = plot_segmented_gantt(simulate_segmented(ts, mode="busy", record=True))
    >>> [p.get_gid() for p in ax.patches]
    ['0,0,core0,cpu', '0,0,core0,G_m', '0,0,core0,spin-gpu', '0,0,core0,G_m', '0,0,core0,cpu', '0,0,gpu:gpu,G_e', '0,0,gpu:gpu,hold']
    """
    from matplotlib.colors import to_rgba

    require_recorded(trace)
    ts = trace.taskset
    start_at, end, window_note = gantt_window(trace.end_time, since, until)
    devices = ts.devices
    names = [f"core{k}" for k in range(trace.m)] + [f"gpu:{d}" for d in devices]
    row_of = {name: y for y, name in enumerate(names)}
    width = chart_width(start_at, end)
    if ax is None:
        ax = own_axes(width + 2.0, 1.4 + 0.75 * len(names))
    locking = trace.protocol in ("mpcp", "fmlp+")
    preemptive = trace.protocol in ("gcaps", "tsg-rr")
    missed = {(x.task, x.job) for x in trace.misses}
    min_label = max(1.0, (end - start_at) / 60)
    by_row: dict[str, list[Interval]] = {}
    for iv in trace.intervals:
        by_row.setdefault(iv.resource, []).append(iv)
    for resource, intervals in by_row.items():
        lanes = _lanes(intervals) if resource.startswith("gpu:") else {iv: (0, 1) for iv in intervals}
        y_row = row_of[resource]
        for iv in intervals:
            if iv.start >= end or iv.end <= start_at:
                continue
            lo, hi = max(iv.start, start_at), min(iv.end, end)
            lane, count = lanes[iv]
            height = BAR_HEIGHT / count
            y = y_row - BAR_HEIGHT / 2 + lane * height + height / 2
            switch = iv.what == "ctx"
            colour = CTX_COLOUR if switch else TASK_COLOURS[iv.task % len(TASK_COLOURS)]
            spinning = iv.what.startswith("spin")
            boosted = locking and iv.what in ("G_m", "spin-gpu")
            hatch = (BOOST_HATCH if boosted else "") + (SPIN_HATCH if spinning else "")
            miss = (iv.task, iv.job) in missed
            ax.barh(
                y,
                hi - lo,
                left=lo,
                height=height,
                color=to_rgba(colour, 0.35 if spinning else 1.0),
                hatch=hatch or None,
                edgecolor=MISS_EDGE if miss else "black",
                linewidth=2.0 if miss or iv.what == "G_m" else 0.6,
                gid=f"{iv.task},{iv.job},{iv.resource},{iv.what}",
                zorder=2,
            )
            if labels and not spinning and not switch and hi - lo >= min_label:
                ax.text(
                    (lo + hi) / 2, y, f"{iv.job}", ha="center", va="center", fontsize=8, color="white",
                    fontweight="bold", zorder=4,
                )  # fmt: skip
    for hold in trace.holds:
        if hold.start >= end or hold.end <= start_at or hold.end == hold.start:
            continue
        lo, hi = max(hold.start, start_at), min(hold.end, end)
        ax.barh(
            row_of[hold.resource] + BAR_HEIGHT / 2 + _HOLD_BAND / 2,
            hi - lo,
            left=lo,
            height=_HOLD_BAND,
            color=TASK_COLOURS[hold.task % len(TASK_COLOURS)],
            edgecolor="none",
            gid=f"{hold.task},{hold.job},{hold.resource},hold",
            zorder=1,
        )
    for task, _job, release, deadline, _done in trace.releases.tolist():
        colour = TASK_COLOURS[task % len(TASK_COLOURS)]
        y = row_of[f"core{ts[task].core}"]
        if start_at <= release <= end:
            mark_release(ax, release, y, colour)
        if start_at <= deadline <= end:
            mark_deadline(ax, deadline, y, colour)
    first = trace.miss
    if first is not None and start_at <= first.deadline <= end:
        text = f"{ts.label(first.task)} job {first.job} misses"
        mark_miss(ax, first.deadline, row_of[f"core{ts[first.task].core}"], text, start_at, end)
    time_axis(ax, names, start_at, end)
    _legend(ax, locking, preemptive)
    if title is None:
        tasks = ", ".join(
            f"{ts.label(i)}=({'/'.join(_segment_text(s) for s in t.segments())}, T={t.T}, D={t.D}, "
            f"core {t.core}, {trace.modes()[i]})"
            for i, t in enumerate(ts)
        )
        title = chart_title(trace.summary(), tasks, width, window_note)
    ax.set_title(title, fontsize=10)
    return ax


def _segment_text(segment: object) -> str:
    if isinstance(segment, int):
        return str(segment)
    return f"[{segment.G_m}+{segment.G_e}]"  # type: ignore[attr-defined]


def _legend(ax: Axes, locking: bool, preemptive: bool = False) -> None:
    """What the bar styles mean, outside the axes on the right (never over a bar)."""
    from matplotlib.patches import Patch

    grey = "#888888"
    handles = [
        Patch(facecolor=grey, edgecolor="black", linewidth=0.6, label="CPU segment / G_e"),
        Patch(
            facecolor=grey, edgecolor="black", linewidth=2.0, hatch=BOOST_HATCH if locking else None,
            label="G_m (boosted)" if locking else "G_m",
        ),
        Patch(facecolor=(0.53, 0.53, 0.53, 0.35), edgecolor="black", linewidth=0.6, hatch=SPIN_HATCH, label="spin-wait"),
        Patch(
            facecolor=(0.53, 0.53, 0.53, 0.35), edgecolor="black", linewidth=0.6,
            hatch=(BOOST_HATCH if locking else "") + SPIN_HATCH,
            label="spin while G_e submitted" if preemptive else "spin during G_e" + (" (boosted)" if locking else ""),
        ),
    ]  # fmt: skip
    if preemptive:  # no one waits for a lock: no spin-wait
        handles = [h for h in handles if h.get_label() != "spin-wait"]
        handles.append(Patch(facecolor=CTX_COLOUR, edgecolor="black", linewidth=0.6, label="context switch (ε)"))
    if locking:
        handles.append(Patch(facecolor=grey, edgecolor="none", label="device held (band)"))
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8)


def save_segmented_gantt(
    trace: SegmentedTrace, path: str | Path, *, since: int | None = None, until: int | None = None, dpi: int = 150
) -> Path:
    """Draw ``trace`` with :func:`plot_segmented_gantt` and write it to ``path`` (PNG, PDF or SVG by extension)."""
    return save_axes(plot_segmented_gantt(trace, since=since, until=until), path, dpi)
