"""Segmented files with the GPU partition model: a set's ``gpu`` section and a segment's ``profile`` and ``class``.

Round trips (YAML, JSON, batches, pickling), files without the new fields unchanged, and one test
per error naming the file, line, task, and field (``gpu <key>``, ``segment j profile``,
``segment j class``).
"""

import pickle
from fractions import Fraction

import pytest

from rtsched.errors import InputError
from rtsched.gpu import AmdahlWCET, SaturatingWCET, Slowdown, TableWCET
from rtsched.segmented.files import dumps_segmented, loads_segmented, read_segmented_tasksets, write_segmented_tasksets
from rtsched.segmented.model import GPUDescription, GPUSegment, SegmentedBatch, SegmentedTask, SegmentedTaskSet

TEXT = """\
name: demo
gpu:
  clusters: 4
  layout: tpc:2
  slowdown: [1.1, 1.2, 1.3]
  slowdown_by: {compute: [1.05, 1.1, 1.15]}
tasks:
  - name: cam
    T: 20
    core: 0
    segments:
      - 1
      - {G_m: 2, G_e: 5, profile: [12, 8, 6, 5], class: compute}
      - 1
  - name: net
    T: 30
    core: 1
    segments:
      - 2
      - G_m: 1
        G_e: 10
        profile: {model: saturating, C1: 40, saturation: 4}
      - [1, 3, other]
      - 1
"""

EXPECTED = SegmentedTaskSet(
    [
        SegmentedTask((1, 1), (GPUSegment(2, 5, "gpu", TableWCET((12, 8, 6, 5)), "compute"),), 20, core=0, name="cam"),
        SegmentedTask(
            (2, 0, 1),
            (GPUSegment(1, 10, "gpu", SaturatingWCET(40, 4)), GPUSegment(1, 3, "other")),
            30,
            core=1,
            name="net",
        ),
    ],
    name="demo",
    gpu=GPUDescription(
        4,
        Slowdown((Fraction(11, 10), Fraction(6, 5), Fraction(13, 10))),
        layout="tpc:2",
        slowdown_by=(
            (
                "compute",
                Slowdown((Fraction(21, 20), Fraction(11, 10), Fraction(23, 20))),
            ),
        ),
    ),
)


def test_reads_the_gpu_section_profiles_and_classes():
    (ts,) = loads_segmented(TEXT)
    assert ts == EXPECTED
    assert ts.gpu.factor(2, 0) == Fraction(11, 10)  # f(2 | compute)
    assert ts.gpu.factor(2, 1) == Fraction(6, 5)  # the worst case
    assert ts[0].gpu[0].wcet_on(2, 4) == 8


@pytest.mark.parametrize("fmt", ["yaml", "json"])
def test_round_trip(fmt, tmp_path):
    text = dumps_segmented(EXPECTED, fmt)
    assert loads_segmented(text, fmt) == [EXPECTED]
    path = tmp_path / f"s.{fmt}"
    write_segmented_tasksets(EXPECTED, path)
    assert read_segmented_tasksets(path) == [EXPECTED]


def test_round_trip_of_every_profile_model_and_options():
    gpu = GPUDescription(
        7,
        Slowdown((), Fraction(5, 4)),
        layout="mig:a100",
        device="g",
        interference="count-only",
        classes=("a", "b", "c"),
    )
    ts = SegmentedTaskSet(
        [
            SegmentedTask((0, 0), (GPUSegment(0, 3, "g", AmdahlWCET(3, Fraction(0))),), 10, core=0),
            SegmentedTask((1, 0), (GPUSegment(1, 2, "g", TableWCET((2,)), "b"),), 10, core=0),
        ],
        gpu=gpu,
    )
    for fmt in ("yaml", "json"):
        assert loads_segmented(dumps_segmented([ts, ts.with_gpu(None)], fmt), fmt) == [ts, ts.with_gpu(None)]


def test_files_without_the_new_fields_are_unchanged():
    plain = SegmentedTaskSet([SegmentedTask((1, 1), ((2, 3),), 10, core=0)])
    text = dumps_segmented(plain)
    assert "gpu:" not in text and "profile" not in text and "class" not in text
    assert loads_segmented(text) == [plain]


def test_batches_and_pickles_keep_them():
    batch = SegmentedBatch.from_tasksets([EXPECTED, EXPECTED.with_gpu(None)])
    got = batch.taskset(0)  # batches keep no names
    assert got.gpu == EXPECTED.gpu and got.tasks == tuple(t.replace(name=None) for t in EXPECTED)
    assert batch.taskset(1).gpu is None
    assert pickle.loads(pickle.dumps(batch)) == batch
    assert pickle.loads(pickle.dumps(EXPECTED)) == EXPECTED
    both = SegmentedBatch.concatenate([batch, SegmentedBatch.from_tasksets([EXPECTED.with_gpu(None)])])
    assert [ts.gpu for ts in both.tasksets()] == [EXPECTED.gpu, None, None]
    assert SegmentedBatch.from_tasksets([EXPECTED.with_gpu(None).with_cores([0, 0])]).extras is not None  # profiles
    plain = SegmentedTaskSet([SegmentedTask((1, 1), ((2, 3),), 10, core=0)])
    assert SegmentedBatch.from_tasksets([plain]).extras is None


def _error(text):
    with pytest.raises(InputError) as info:
        loads_segmented(text, source="s.yaml")
    return str(info.value)


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        pytest.param(
            "G_e: 5, profile: [12, 8, 6, 5]",
            "G_e: 4, profile: [12, 8, 6, 5]",
            "s.yaml, line 13, task 0 (cam), field segment 1 profile: the profile gives C(4) = 5",
            id="profile-at-M-differs-from-G_e",
        ),
        pytest.param(
            "profile: [12, 8, 6, 5]",
            "profile: [12, 8, 9, 5]",
            "s.yaml, line 13, task 0 (cam), field segment 1 profile: the WCET table must be non-increasing",
            id="profile-increasing",
        ),
        pytest.param(
            "profile: [12, 8, 6, 5]",
            "profile: [12, x, 6, 5]",
            "s.yaml, line 13, task 0 (cam), field segment 1 profile(2)",
            id="profile-not-a-number",
        ),
        pytest.param(
            "{model: saturating, C1: 40, saturation: 4}",
            "{model: saturating, C1: 40}",
            "s.yaml, line 22, task 1 (net), field segment 1 profile.saturation: missing key 'saturation'",
            id="profile-missing-key",
        ),
        pytest.param(
            "{model: saturating, C1: 40, saturation: 4}",
            "{model: cubic, C1: 40}",
            "s.yaml, line 22, task 1 (net), field segment 1 profile.model: unknown WCET model 'cubic'",
            id="profile-unknown-model",
        ),
        pytest.param(
            "class: compute",
            "class: io",
            "s.yaml, line 13, task 0 (cam), field segment 1 class: unknown co-runner class 'io'",
            id="unknown-class",
        ),
        pytest.param(
            "class: compute",
            "class: 3",
            "s.yaml, line 13, task 0 (cam), field segment 1 class: a co-runner class is a name",
            id="class-not-a-name",
        ),
        pytest.param(
            "  clusters: 4\n", "", "s.yaml, line 3, field gpu clusters: missing key 'clusters'", id="no-clusters"
        ),
        pytest.param(
            "  slowdown: [1.1, 1.2, 1.3]\n",
            "",
            "s.yaml, line 3, field gpu slowdown: missing key 'slowdown'",
            id="no-slowdown",
        ),
        pytest.param(
            "clusters: 4",
            "clusters: 99",
            "s.yaml, line 3, field gpu clusters: the number of clusters M",
            id="clusters-range",
        ),
        pytest.param(
            "layout: tpc:2",
            "layout: mig:a100",
            "s.yaml, line 3, field gpu clusters: mig:a100 partitions 7",
            id="mig-needs-7",
        ),
        pytest.param("layout: tpc:2", "layout: wavy", "s.yaml, line 4, field gpu layout", id="unknown-layout"),
        pytest.param(
            "slowdown: [1.1, 1.2, 1.3]",
            "slowdown: [1.2, 1.1]",
            "s.yaml, line 5, field gpu slowdown: slowdown factors must be >= 1 and non-decreasing",
            id="slowdown-decreasing",
        ),
        pytest.param(
            "{compute: [1.05, 1.1, 1.15]}",
            "{compute: [1.5, 1.6, 1.7]}",
            "s.yaml, line 6, field gpu slowdown_by.compute: the co-runner row of class 'compute' must not exceed",
            id="row-above-the-cap",
        ),
        pytest.param(
            "{compute: [1.05, 1.1, 1.15]}",
            "{disk: [1.05, 1.1, 1.15]}",
            "s.yaml, line 6, field gpu slowdown_by.disk: unknown co-runner class 'disk'",
            id="row-unknown-class",
        ),
        pytest.param(
            "  layout: tpc:2\n",
            "  layout: tpc:2\n  colour: red\n",
            "s.yaml, line 3, field gpu colour: unknown key",
            id="unknown-key",
        ),
        pytest.param(
            "gpu:\n  clusters: 4\n",
            "gpu: 4\nx:\n  clusters: 4\n",
            "s.yaml, line 2, field gpu: 'gpu' must be",
            id="not-a-map",
        ),
    ],
)
def test_errors_name_file_line_task_and_field(old, new, expected):
    assert old in TEXT
    text = TEXT.replace(old, new)
    if "x:\n" in new:  # the rest of the old section is gone with it
        text = "name: demo\ngpu: 4\ntasks:\n" + TEXT.split("tasks:\n", 1)[1]
    assert _error(text).startswith(expected), _error(text)


def test_interference_and_classes_are_checked():
    assert "field gpu interference" in _error(TEXT.replace("layout: tpc:2", "layout: tpc:2\n  interference: magic"))
    assert "field gpu classes" in _error(TEXT.replace("layout: tpc:2", "layout: tpc:2\n  classes: [a, a]"))
