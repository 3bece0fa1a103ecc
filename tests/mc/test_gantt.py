"""Tests of rtsched.mc.gantt: the bars are the trace's segments, the switch lines, HI shading, drops, the miss."""

from __future__ import annotations

import math

import pytest
from matplotlib.collections import PolyCollection
from matplotlib.colors import to_rgba
from matplotlib.patches import Rectangle

from rtsched.errors import InputError
from rtsched.mc.gantt import BAR_HEIGHT, HI_SHADE, plot_mc_gantt, save_mc_gantt
from rtsched.mc.model import MCTask, MCTaskSet
from rtsched.mc.sim import simulate_mc

AMC_BEATS_SMC = MCTaskSet([MCTask.lo(2, T=4), MCTask.hi(1, 3, T=6)])


def _bars(ax):
    return [p for p in ax.patches if isinstance(p, Rectangle)]


def _switch_lines(ax):
    return [line for line in ax.lines if (line.get_gid() or "").startswith("switch")]


def test_one_rectangle_per_segment_on_its_task_row():
    trace = simulate_mc(AMC_BEATS_SMC, policy="smc", scenario="hi", record=True)
    ax = plot_mc_gantt(trace)
    drawn = sorted((b.get_gid(), b.get_x(), b.get_width(), b.get_y()) for b in _bars(ax))
    expected = sorted(
        (f"{task},{job},{cpu}", float(start), float(end - start), task - BAR_HEIGHT / 2)
        for cpu, task, job, start, end in trace.segments.tolist()
    )
    assert drawn == expected and len(drawn) == 7
    # the job that missed has red edges, the others black
    red = [b.get_gid() for b in _bars(ax) if b.get_edgecolor()[:3] == (1.0, 0.0, 0.0)]
    assert red == ["1,0,0", "1,0,0"]
    assert [t.get_text() for t in ax.texts if "misses" in t.get_text()] == ["τ1 job 0 misses (HI mode)"]
    assert [tick.get_text() for tick in ax.get_yticklabels()] == ["τ0 LO", "τ1 HI"]


def test_switch_line_shading_and_caption():
    trace = simulate_mc(AMC_BEATS_SMC, scenario="hi", record=True)
    ax = plot_mc_gantt(trace)
    (line,) = _switch_lines(ax)
    xs = [x for x in line.get_xdata() if not math.isnan(x)]
    assert set(xs) == {3} and line.get_gid() == "switch,0"
    assert any("HI mode (τ1 job 0 > C(LO))" in t.get_text() for t in ax.texts)
    shades = [c for c in ax.collections if isinstance(c, PolyCollection)]
    assert len(shades) == 2  # one band per row, from the switch to the end
    for shade in shades:
        (x0, _y0), (x1, _y1) = shade.get_paths()[0].get_extents().get_points()
        assert (x0, x1) == (3, 12)
        assert tuple(shade.get_facecolor()[0]) == to_rgba(HI_SHADE)
    # two skipped LO arrivals (4 and 8) as hollow arrows, no drop
    grey = [
        a
        for a in ax.texts
        if getattr(a, "arrow_patch", None) is not None
        and a.arrow_patch.get_edgecolor()[:3] == (0.5019607843137255,) * 3
    ]
    assert len(grey) == 2


def test_dropped_jobs_and_global_rows():
    ts = MCTaskSet([MCTask.hi(1, 3, T=4), MCTask.lo(3, T=4), MCTask.lo(2, T=4)])
    trace = simulate_mc(ts, 2, scheduler="global-edf-vd", x="1/2", scenario="hi", record=True, horizon=8)
    ax = plot_mc_gantt(trace)
    crosses = [line for line in ax.lines if line.get_marker() == "x"]
    assert sorted((float(c.get_xdata()[0]), float(c.get_ydata()[0])) for c in crosses) == [(1.0, 1.0), (1.0, 2.0)]
    assert {b.get_gid() for b in _bars(ax)} == {"0,0,0", "1,0,1", "0,1,0"}
    assert any(t.get_text() == "0·P1" for t in ax.texts)


def test_partitioned_switches_only_their_core_rows():
    ts = MCTaskSet([MCTask.lo(2, T=4), MCTask.lo(1, T=4), MCTask.hi(1, 3, T=6), MCTask.hi(1, 2, T=4)])
    trace = simulate_mc(
        ts, 2, scheduler="partitioned", partition=[0, 1, 0, 1], scenario="explicit", overruns=[(2, 0)], record=True
    )
    ax = plot_mc_gantt(trace)
    (line,) = _switch_lines(ax)
    rows = sorted(int(y + 0.5) for y in line.get_ydata()[0::3])  # (row - 0.5, row + 0.5, nan) per row
    assert line.get_gid() == "switch,0" and rows == [0, 2]  # τ0 and τ2, not τ1 between them


def test_window_save_and_refusals(tmp_path):
    trace = simulate_mc(AMC_BEATS_SMC, scenario="hi", record=True, horizon=48)
    ax = plot_mc_gantt(trace, since=10, until=20, title="t")
    assert all(10 <= b.get_x() and b.get_x() + b.get_width() <= 20 for b in _bars(ax))
    assert ax.get_title() == "t"
    path = save_mc_gantt(trace, tmp_path / "mc.png")
    assert path.stat().st_size > 0
    with pytest.raises(InputError, match="record=True"):
        plot_mc_gantt(simulate_mc(AMC_BEATS_SMC, scenario="hi"))
    with pytest.raises(InputError, match="empty Gantt window"):
        plot_mc_gantt(trace, since=20, until=20)
