"""Tests of rtsched.dag.gantt: the bars drawn are the trace's segments, colours by job, markers, the miss."""

from __future__ import annotations

import colorsys

import pytest
from matplotlib.colors import to_rgb
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle
from matplotlib.text import Annotation

from rtsched.dag import DAGTask, DAGTaskSet, plot_dag_gantt, simulate_dag
from rtsched.dag.gantt import BAR_HEIGHT, MISS_EDGE, job_colour, save_dag_gantt
from rtsched.errors import InputError
from rtsched.sim.gantt import TASK_COLOURS

FORK_JOIN = DAGTask([1, 3, 2, 4, 1], [(0, 1), (0, 2), (0, 3), (1, 4), (2, 4), (3, 4)], T=20, D=15)
CHAIN = DAGTask([5, 6], [(0, 1)], T=10, D=10, name="chain", vertex_names=["x", "y"])


def _bars(ax):
    return [p for p in ax.patches if isinstance(p, Rectangle)]


def _missing_run():
    """Two processors, the chain (len 11 > D 10) misses at 10; recorded on to the horizon 40."""
    return simulate_dag(DAGTaskSet([FORK_JOIN, CHAIN]), 2, horizon=40, record=True)


def test_one_rectangle_per_segment_at_its_place() -> None:
    trace = _missing_run()
    ax = plot_dag_gantt(trace)
    bars = _bars(ax)
    assert len(bars) == trace.segments.shape[0] == 18
    drawn = sorted((b.get_gid(), b.get_x(), b.get_width(), b.get_y()) for b in bars)
    expected = sorted(
        (f"{task},{job},{vertex}", float(start), float(end - start), cpu - BAR_HEIGHT / 2)
        for cpu, start, end, task, job, vertex in trace.segments.tolist()
    )
    assert drawn == expected
    assert all(b.get_height() == BAR_HEIGHT for b in bars)


def test_worked_fork_join_alone_on_two_processors() -> None:
    # v0 [0,1) on P0; v1, v2, v3 ready at 1: v1 and v2 first (index order), v3 when v2 ends at 3,
    # v4 after v3 (ends 7) and v1 (ends 4): [7, 8). Graham's bound len + (vol - len)/m = 8.5.
    trace = simulate_dag(DAGTaskSet([FORK_JOIN]), 2, horizon=20, record=True)
    ax = plot_dag_gantt(trace)
    by_vertex = {b.get_gid(): (b.get_x(), b.get_x() + b.get_width()) for b in _bars(ax)}
    assert by_vertex == {"0,0,0": (0, 1), "0,0,1": (1, 4), "0,0,2": (1, 3), "0,0,3": (3, 7), "0,0,4": (7, 8)}
    assert trace.response_times == (8,)


def test_one_colour_per_job_shades_of_the_task_hue() -> None:
    trace = _missing_run()
    bars = _bars(plot_dag_gantt(trace))
    colour_of: dict[tuple[int, int], tuple[float, ...]] = {}
    for b in bars:
        task, job, _vertex = map(int, b.get_gid().split(","))
        rgb = tuple(round(x, 6) for x in b.get_facecolor()[:3])
        assert colour_of.setdefault((task, job), rgb) == rgb  # every node of a job: one colour
    jobs = sorted(colour_of)
    assert len(jobs) == 6
    assert len(set(colour_of.values())) == len(jobs)  # distinct jobs, distinct colours
    for (task, _job), rgb in colour_of.items():
        hue = colorsys.rgb_to_hls(*rgb)[0]
        assert hue == pytest.approx(colorsys.rgb_to_hls(*to_rgb(TASK_COLOURS[task]))[0], abs=1e-6)
    for task in (0, 1):  # consecutive jobs of a task differ
        assert all(job_colour(task, j) != job_colour(task, j + 1) for j in range(8))


def test_the_missed_job_is_highlighted() -> None:
    trace = _missing_run()
    assert trace.miss is not None and (trace.miss.task, trace.miss.job, trace.miss.time) == (1, 0, 10)
    ax = plot_dag_gantt(trace)
    red = [b.get_gid() for b in _bars(ax) if b.get_edgecolor()[:3] == to_rgb(MISS_EDGE)]
    assert sorted(red) == ["1,0,0", "1,0,1"]
    assert any("τ1 (chain) job 0 misses" in t.get_text() for t in ax.texts)
    cross = [line for line in ax.lines if line.get_marker() == "X"]
    assert len(cross) == 1 and list(cross[0].get_xdata()) == [10]


def test_no_miss_no_highlight() -> None:
    trace = simulate_dag(DAGTaskSet([FORK_JOIN]), 2, horizon=40, record=True)
    ax = plot_dag_gantt(trace)
    assert trace.miss is None
    assert not [b for b in _bars(ax) if b.get_edgecolor()[:3] == to_rgb(MISS_EDGE)]
    assert not [line for line in ax.lines if line.get_marker() == "X"]


def test_release_and_deadline_markers() -> None:
    trace = _missing_run()
    ax = plot_dag_gantt(trace)
    arrows = [a for a in ax.texts if isinstance(a, Annotation)]
    solid = sorted(a.xy[0] for a in arrows if a.arrowprops.get("linestyle") is None)
    dashed = sorted(a.xy[0] for a in arrows if a.arrowprops.get("linestyle") == "--")
    releases = trace.releases.tolist()
    assert solid == sorted(r for _t, _j, r, _d in releases)
    assert dashed == sorted(d for _t, _j, _r, d in releases if d <= 40)


def test_window_clips_bars() -> None:
    trace = _missing_run()
    ax = plot_dag_gantt(trace, since=5, until=12)
    inside = [
        (max(s, 5), min(e, 12), f"{t},{j},{v}") for _c, s, e, t, j, v in trace.segments.tolist() if s < 12 and e > 5
    ]
    drawn = sorted((b.get_x(), b.get_x() + b.get_width(), b.get_gid()) for b in _bars(ax))
    assert drawn == sorted(inside)
    assert len(drawn) == 5  # τ0,0 v2, v3, v4; τ1,0 v1; τ1,1 v0 (τ1,0 v0 ends at 5)


def test_draws_on_given_axes_and_labels_vertices() -> None:
    fig = Figure()
    ax = fig.add_subplot()
    out = plot_dag_gantt(_missing_run(), ax=ax, title="mine")
    assert out is ax and ax.get_title() == "mine"
    texts = {t.get_text() for t in ax.texts}
    assert "τ1,0\nx" in texts and "τ0,0\nv3" in texts  # named vertices by name, others by index
    assert [t.get_text() for t in ax.get_yticklabels()] == ["P0", "P1"]
    bare = plot_dag_gantt(_missing_run(), labels=False)
    assert not [t for t in bare.texts if "\n" in t.get_text()]


def test_unrecorded_run_is_refused() -> None:
    trace = simulate_dag(DAGTaskSet([FORK_JOIN]), 2, horizon=40)
    with pytest.raises(InputError, match="record=True"):
        plot_dag_gantt(trace)


def test_save(tmp_path) -> None:
    path = save_dag_gantt(_missing_run(), tmp_path / "g.png")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
