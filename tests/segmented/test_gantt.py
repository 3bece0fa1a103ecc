"""The Gantt chart of CPU–GPU runs (rtsched.segmented.gantt): one bar per recorded interval on the
row of its core or device, boosted and spinning parts hatched, lanes for segments sharing a device
under protocol none, misses marked, a PNG written; refusals."""

import os

import pytest

os.environ.setdefault("MPLBACKEND", "Agg")

from rtsched.errors import InputError
from rtsched.segmented import GPUSegment, SegmentedTask, SegmentedTaskSet, simulate_segmented
from rtsched.segmented.gantt import BAR_HEIGHT, BOOST_HATCH, SPIN_HATCH, plot_segmented_gantt, save_segmented_gantt

# core 0: τ0 C 1, G (2, 2), C 1, busy; core 1: τ1 G (0, 4) then C 1, with D = 4 (it misses under
# MPCP: τ0 holds the GPU [1, 5), τ1 waits).
TS = SegmentedTaskSet(
    [
        SegmentedTask((1, 1), (GPUSegment(2, 2),), 20, core=0, mode="busy"),
        SegmentedTask((2, 1), (GPUSegment(0, 4),), 20, D=6, core=1),
    ]
)


def bars(ax):
    """``gid -> (x, y, width, height, hatch)`` of the first bar with that gid."""
    out = {}
    for p in ax.patches:
        if p.get_gid():
            out.setdefault(p.get_gid(), (p.get_x(), p.get_y(), p.get_width(), p.get_height(), p.get_hatch()))
    return out


def test_rows_hatching_and_miss():
    trace = simulate_segmented(TS, protocol="mpcp", record=True)
    # τ0: C [0, 1), G_m [1, 2), spin [2, 4) while G_e runs, G_m [4, 5), C [5, 6); τ1: C [0, 2),
    # waits [2, 5), G_e [5, 9), C [9, 10): misses its deadline 6
    assert [(x.task, x.deadline, x.completion) for x in trace.misses] == [(1, 6, 10)]
    ax = plot_segmented_gantt(trace)
    got = bars(ax)
    assert [tick.get_text() for tick in ax.get_yticklabels()] == ["core0", "core1", "gpu:gpu"]
    x, y, w, h, hatch = got["0,0,core0,G_m"]
    assert (x, w, h) == (1, 1, BAR_HEIGHT) and y == pytest.approx(-BAR_HEIGHT / 2) and hatch == BOOST_HATCH
    assert got["0,0,core0,spin-gpu"][4] == BOOST_HATCH + SPIN_HATCH
    assert got["0,0,core0,cpu"][4] is None
    x, y, w, _h, _ = got["1,0,gpu:gpu,G_e"]
    assert (x, w) == (5, 4) and y == pytest.approx(2 - BAR_HEIGHT / 2)
    assert "0,0,gpu:gpu,hold" in got and "1,0,gpu:gpu,hold" in got
    # the missing job's bars have red edges; the miss is captioned
    edges = {p.get_gid(): p.get_edgecolor() for p in ax.patches if p.get_gid()}
    assert edges["1,0,core1,cpu"][:3] == (1.0, 0.0, 0.0) and edges["0,0,core0,cpu"][:3] == (0.0, 0.0, 0.0)
    assert any(t.get_text() == "τ1 job 0 misses" for t in ax.texts)
    assert "deadline miss" in ax.get_title()


def test_protocol_none_draws_shared_device_in_lanes():
    trace = simulate_segmented(TS, protocol="none", record=True)
    got = bars(plot_segmented_gantt(trace))
    # G_e of τ0 [2, 4) and τ1 [2, 6) overlap: two lanes of half height; no boosting, no holds
    a, b = got["0,0,gpu:gpu,G_e"], got["1,0,gpu:gpu,G_e"]
    assert a[3] == pytest.approx(BAR_HEIGHT / 2) and b[3] == pytest.approx(BAR_HEIGHT / 2) and a[1] != b[1]
    assert got["0,0,core0,G_m"][4] is None and got["0,0,core0,spin-gpu"][4] == SPIN_HATCH
    assert not any(gid.endswith("hold") for gid in got)


def test_window_clips_bars():
    trace = simulate_segmented(TS, protocol="mpcp", record=True)
    got = bars(plot_segmented_gantt(trace, since=3, until=8, title="t"))
    assert got["1,0,gpu:gpu,G_e"][:3:2] == (5, 3)
    assert "0,0,core0,cpu" in got  # the C [5, 6)
    assert all(x >= 3 and x + w <= 8 for x, _y, w, _h, _ in got.values())


def test_writes_png(tmp_path):
    path = save_segmented_gantt(simulate_segmented(TS, protocol="fmlp+", record=True), tmp_path / "run.png")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_refuses_an_unrecorded_run():
    with pytest.raises(InputError, match="record=True"):
        plot_segmented_gantt(simulate_segmented(TS))
