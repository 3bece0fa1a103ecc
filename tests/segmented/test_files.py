"""Tests of rtsched.segmented.files: YAML and JSON of CPU–GPU segmented task sets (papers/cpu-gpu-model.md).

Round trips on drawn sets (names, cores, modes and devices included), the forms a set and a GPU
segment may be written in, and every refusal as one InputError line naming file, line, task set,
task and field.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rtsched.errors import InputError
from rtsched.segmented import (
    SEGMENTED_FORMATS,
    GPUSegment,
    SegmentedTask,
    SegmentedTaskSet,
    dumps_segmented,
    loads_segmented,
    read_segmented_tasksets,
    write_segmented_tasksets,
)
from rtsched.testing import strategies as rst

names = st.none() | st.text(st.characters(codec="utf-8", categories=["L", "N", "P", "Zs"]), min_size=1, max_size=8)


@st.composite
def named_sets(draw: st.DrawFn) -> SegmentedTaskSet:
    ts = draw(rst.segmented_tasksets(deadlines="arbitrary", devices=("gpu", "mig0", "tpc:1"), m=3))
    cores = draw(st.lists(st.none() | st.integers(0, 5), min_size=ts.n, max_size=ts.n))
    return SegmentedTaskSet(
        (t.replace(name=draw(names), core=c) for t, c in zip(ts, cores, strict=True)), name=draw(names)
    )


@pytest.mark.parametrize("fmt", SEGMENTED_FORMATS)
@given(sets=st.lists(named_sets(), min_size=1, max_size=3))
def test_round_trip(fmt, sets):
    text = dumps_segmented(sets, fmt)
    assert loads_segmented(text, fmt, deadlines="arbitrary") == sets
    assert dumps_segmented(loads_segmented(text, fmt, deadlines="arbitrary"), fmt) == text


@pytest.mark.parametrize("fmt", SEGMENTED_FORMATS)
def test_file_round_trip_keeps_order_and_writes_d(tmp_path, fmt):
    ts = SegmentedTaskSet(
        [
            SegmentedTask((2, 3), (GPUSegment(1, 4),), 20, core=0, mode="busy", name="camera"),
            SegmentedTask((5,), (), 10, 8, core=1),
            SegmentedTask((0, 1, 0), (GPUSegment(0, 2, "mig0"), GPUSegment(3, 1)), 30, core=1),
        ],
        name="x",
    )
    path = tmp_path / f"set.{fmt}"
    write_segmented_tasksets(ts, path)
    assert read_segmented_tasksets(path) == [ts]
    text = path.read_text()
    assert text.count('"D"' if fmt == "json" else "D:") == 3  # D is always written
    assert text.index("camera") < text.index("mig0")  # the priority order is kept
    write_segmented_tasksets(str(path), [ts, ts])  # the DAG writers' order (path, sets)
    assert read_segmented_tasksets(str(path)) == [ts, ts]


YAML_EXAMPLE = """\
name: example
tasks:
  - {name: camera, T: 20, core: 0, mode: busy, segments: [2, {G_m: 1, G_e: 4}, 3]}
  - name: detect
    T: 50
    D: 40
    core: 1
    segments: [1, [2, 10], 1, [1, 3, mig0]]
  - {T: 12, core: 0, segments: [4]}
"""


def test_note_example():
    (ts,) = loads_segmented(YAML_EXAMPLE)
    assert ts.name == "example"
    assert [(t.name, t.cpu, t.gpu, t.T, t.D, t.core, t.mode) for t in ts] == [
        ("camera", (2, 3), (GPUSegment(1, 4),), 20, 20, 0, "busy"),
        ("detect", (1, 1, 0), (GPUSegment(2, 10), GPUSegment(1, 3, "mig0")), 50, 40, 1, None),
        (None, (4,), (), 12, 12, 0, None),
    ]
    assert ts.devices == ("gpu", "mig0")


def test_several_sets_and_segment_forms():
    one = "[{T: 4, segments: [1]}]"
    assert loads_segmented(f"tasksets:\n  - tasks: {one}\n  - tasks: {one}\n") == loads_segmented(
        f"- tasks: {one}\n- tasks: {one}\n"
    )
    forms = [
        "[{G_m: 1, G_e: 2}]",
        "[[1, 2]]",
        "[0, [1, 2, gpu], 0]",
        "[{G_m: 1, G_e: 2, device: gpu}, 0]",
        "[{G_m: 1, G_e: 2, device: null}]",
    ]
    sets = [loads_segmented(f"- {{T: 9, segments: {f}}}") for f in forms]
    assert all(s == sets[0] for s in sets)
    assert sets[0][0][0].cpu == (0, 0)
    as_json = '{"tasks": [{"T": 9, "D": null, "core": null, "mode": null, "segments": [[1, 2]]}]}'
    assert loads_segmented(as_json, "json") == sets[0]
    (mode,) = loads_segmented("- {T: 9, mode: SUSPEND, segments: [1]}")
    assert mode[0].mode == "suspend"


@pytest.mark.parametrize(
    ("text", "where", "message"),
    [
        pytest.param(
            "tasks:\n  - {name: a, T: 10, segments: [1]}\n  - name: b\n    T: 10\n    segments:\n      - 1\n      - {G_m: 1, G_e: -3}\n",
            "set.yaml, line 7, task 1 (b), field segment 1 G_e",
            "G_e must be non-negative, got -3",
            id="negative-g-e",
        ),
        pytest.param(
            "- {T: 10, segments: [1, [1, 2], [2, x]]}\n",
            "set.yaml, line 1, task 0, field segment 2 G_e",
            "'x' is not a number",
            id="word-g-e",
        ),
        pytest.param(
            "- {T: 10, segments: [1, 2]}\n",
            "set.yaml, line 1, task 0, field C_2",
            "two CPU segments in a row (1 and then 2): write their sum",
            id="two-cpu-segments",
        ),
        pytest.param(
            "- {T: 10, segments: [1, {G_m: 1, G_x: 3}]}\n",
            "set.yaml, line 1, task 0, field segment 1 G_x",
            "unknown key 'G_x'",
            id="unknown-segment-key",
        ),
        pytest.param(
            "- {T: 10, segments: [1, {G_m: 1}]}\n",
            "set.yaml, line 1, task 0, field segment 1 G_e",
            "missing key 'G_e'",
            id="missing-g-e",
        ),
        pytest.param(
            "- {T: 10, segments: [1, [1, 2, 3, 4]]}\n",
            "set.yaml, line 1, task 0, field segment 1",
            "a GPU segment is [G_m, G_e] or [G_m, G_e, device], got a list of 4 items",
            id="long-list",
        ),
        pytest.param(
            "- {T: 10, segments: [1, [0, 0]]}\n",
            "set.yaml, line 1, task 0, field segment 1 G_e",
            "a GPU segment needs G_m + G_e >= 1",
            id="empty-gpu-segment",
        ),
        pytest.param(
            "- {T: 10, segments: [1, [1, 1, 3x]]}\n",
            "set.yaml, line 1, task 0, field segment 1 device",
            "a GPU device name is a word",
            id="bad-device",
        ),
        pytest.param(
            "- {T: 10, segments: [1, [1, 1, 7]]}\n",
            "set.yaml, line 1, task 0, field segment 1 device",
            "a device name is a word such as gpu or mig0, got the number 7",
            id="number-device",
        ),
        pytest.param(
            "- {T: 10, D: 12, segments: [1]}\n",
            "set.yaml, line 1, task 0, field D",
            "D = 12 exceeds T = 10",
            id="d-above-t",
        ),
        pytest.param("- {T: 10, core: -1, segments: [1]}\n", "set.yaml, line 1, task 0, field core", "core", id="core"),
        pytest.param(
            "- {T: 10, core: true, segments: [1]}\n",
            "set.yaml, line 1, task 0, field core",
            "true is a boolean",
            id="core-bool",
        ),
        pytest.param(
            "- {T: 10, mode: spin, segments: [1]}\n",
            "set.yaml, line 1, task 0, field mode",
            "mode must be busy or suspend, got 'spin'",
            id="mode",
        ),
        pytest.param(
            "- {T: 2.5, segments: [1]}\n", "set.yaml, line 1, task 0, field T", "2.5 is not an integer", id="real-t"
        ),
        pytest.param(
            "- {T: 0, segments: [1]}\n", "set.yaml, line 1, task 0, field T", "T must be positive", id="zero-t"
        ),
        pytest.param(
            "- {T: 10,\n   D: 0, segments: [1]}\n",
            "set.yaml, line 2, task 0, field D",
            "D must be positive",
            id="zero-d",
        ),
        pytest.param(
            "- {T: 10, segments: [0]}\n",
            "set.yaml, line 1, task 0, field C_1",
            "a task needs some work",
            id="no-work",
        ),
        pytest.param(
            "- {T: 10, segments: []}\n", "set.yaml, line 1, task 0, field segments", "empty", id="no-segments"
        ),
        pytest.param("- {T: 10}\n", "set.yaml, line 1, task 0, field segments", "missing key 'segments'", id="missing"),
        pytest.param(
            "- {T: 10, segments: 3}\n",
            "set.yaml, line 1, task 0, field segments",
            "must be a list",
            id="scalar-segments",
        ),
        pytest.param(
            "- {T: 10, segments: [1], period: 3}\n",
            "set.yaml, line 1, task 0, field period",
            "unknown key 'period'",
            id="unknown-key",
        ),
        pytest.param(
            "tasksets:\n  - [{T: 10, segments: [1]}]\n  - - {T: 10, segments: [1]}\n    - {name: z, T: 5, segments: [-1]}\n",
            "set.yaml, line 4, task set 1, task 1 (z), field C_1",
            "C_1 must be non-negative",
            id="second-set",
        ),
        pytest.param("tasks: []\n", "set.yaml, line 1, field tasks", "at least one task", id="empty-set"),
        pytest.param("- 3\n", "set.yaml, line 1, task 0", "expected a task", id="scalar-task"),
        pytest.param("", "set.yaml", "the file is empty", id="empty-file"),
    ],
)
def test_errors_name_file_line_set_task_and_field(text, where, message):
    with pytest.raises(InputError) as info:
        loads_segmented(text, source="set.yaml")
    text_of = str(info.value)
    assert text_of.startswith(where + ":"), text_of
    assert message in text_of
    assert "\n" not in text_of


def test_json_errors_have_lines():
    text = '{"tasks": [\n {"T": 10, "segments": [1]},\n {"T": 10,\n  "segments": [1, [1, -2]]}\n]}\n'
    with pytest.raises(InputError, match=r"^s.json, line 4, task 1, field segment 1 G_e: G_e must be non-negative"):
        loads_segmented(text, "json", source="s.json")


def test_deadline_models():
    text = "- {T: 10, D: 12, segments: [1]}\n"
    (ts,) = loads_segmented(text, deadlines="arbitrary")
    assert ts.deadline_model == "arbitrary"
    with pytest.raises(InputError, match="differs from T = 10 under the implicit-deadline model"):
        loads_segmented("- {T: 10, D: 9, segments: [1]}\n", deadlines="implicit")
    with pytest.raises(InputError, match="deadline"):
        loads_segmented(text, deadlines="sometimes")


def test_formats_and_paths(tmp_path):
    with pytest.raises(InputError, match=r"^x.csv: cannot tell the format: segmented task sets are"):
        read_segmented_tasksets("x.csv")
    with pytest.raises(InputError, match="unknown segmented task set format 'csv'"):
        loads_segmented("[]", "csv")
    path = tmp_path / "s.txt"
    path.write_text("- {T: 4, segments: [1]}\n")
    assert read_segmented_tasksets(path, "yml")[0][0].C == 1
    with pytest.raises(InputError, match="no task set to write"):
        dumps_segmented([])
    with pytest.raises(InputError, match="expected SegmentedTaskSet objects"):
        dumps_segmented([[SegmentedTask((1,), (), 4)]])  # type: ignore[list-item]
    with pytest.raises(InputError, match=r"bad.csv: cannot tell the format"):
        write_segmented_tasksets(SegmentedTaskSet([SegmentedTask((1,), (), 4)]), tmp_path / "bad.csv")


@given(rst.segmented_tasksets(m=3, max_utilization=1.0))
def test_strategy_is_valid_by_construction(ts):
    for t in ts:
        assert 1 <= t.C + t.G <= t.D <= t.T
        assert t.core is not None and 0 <= t.core < 3
        assert all(g.G_e >= 1 for g in t.gpu)
        assert t.eta <= 3
    if all(t.C + t.G == 1 for t in ts):
        return  # nothing left to shrink
    for core in ts.cores:
        load = sum(ts[i].utilization for i in ts.on_core(core))
        shrinkable = any(ts[i].C + ts[i].G_m + ts[i].G_e - ts[i].eta > 1 for i in ts.on_core(core))
        assert load <= 1 or not shrinkable


@given(rst.segmented_tasksets(deadlines="implicit", modes=("busy",), m=0, devices=("a", "b")))
def test_strategy_options(ts):
    assert all(t.D == t.T and t.mode == "busy" and t.core is None for t in ts)
    assert set(ts.devices) <= {"a", "b"}
