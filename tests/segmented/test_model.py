"""Tests of rtsched.segmented.model and the SEGMENTED_TASKSETS kind (papers/cpu-gpu-model.md).

A worked example computed by hand (totals and exact utilizations), one test per validation
error (a TaskError naming the task and the field), ``from_segments``, the batch's round trip
(``from_tasksets``, ``taskset``, ``concatenate`` with device remapping), pickling, immutability
and hashing, properties on sets drawn with rtsched.testing.strategies.segmented_tasksets, and the
workload kind's hooks (coerce, probe, describe, files, generator).
"""

from __future__ import annotations

import pickle
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from rtsched.errors import InputError, TaskError
from rtsched.model import MAX_TIME
from rtsched.platform import GPU, Identical, Typed
from rtsched.segmented import DEFAULT_DEVICE, MODES, GPUSegment, SegmentedBatch, SegmentedTask, SegmentedTaskSet
from rtsched.testing import strategies as rst
from rtsched.workloads import MC_TASKSETS, SEGMENTED_TASKSETS, TASKSETS, kind_named, kind_of, kinds

#: The worked example: a camera task (two GPU segments, one on a MIG partition), a CPU-only
#: task and a detector that starts with GPU work.
CAMERA = SegmentedTask(
    (2, 1, 3), (GPUSegment(1, 4), GPUSegment(2, 6, "mig0")), 40, 30, core=0, mode="busy", name="camera"
)
LOG = SegmentedTask((5,), (), 20, core=1, name="log")
DETECT = SegmentedTask.from_segments([(3, 9), 4], T=60, core=1, mode="suspend", name="detect")
EXAMPLE = SegmentedTaskSet([LOG, CAMERA, DETECT], name="example")


def test_worked_example():
    # By hand: camera C = 2 + 1 + 3 = 6, G_m = 1 + 2 = 3, G_e = 4 + 6 = 10, G = 13, η = 2;
    # utilization (6 + 13)/40 = 19/40, CPU share (6 + 3)/40 = 9/40, GPU share 10/40 = 1/4.
    assert (CAMERA.C, CAMERA.G_m, CAMERA.G_e, CAMERA.G, CAMERA.eta) == (6, 3, 10, 13, 2)
    assert CAMERA.utilization == Fraction(19, 40)
    assert CAMERA.cpu_utilization == Fraction(9, 40)
    assert CAMERA.gpu_utilization == Fraction(1, 4)
    assert CAMERA.devices() == ("gpu", "mig0") and CAMERA.uses_gpu and CAMERA.deadline_kind == "constrained"
    assert CAMERA.segments() == [2, GPUSegment(1, 4), 1, GPUSegment(2, 6, "mig0"), 3]
    # detect: [(3, 9), 4] is C_1 = 0, G_1 = (3, 9), C_2 = 4
    assert DETECT.cpu == (0, 4) and DETECT.gpu == (GPUSegment(3, 9),) and DETECT.D == 60
    assert (DETECT.C, DETECT.G, DETECT.utilization) == (4, 12, Fraction(16, 60))
    assert LOG.eta == 0 and not LOG.uses_gpu and LOG.utilization == Fraction(1, 4) and LOG.devices() == ()
    # the set: U = 5/20 + 19/40 + 16/60 = 119/120; CPU part 5/20 + 9/40 + 7/60 = 71/120
    assert EXAMPLE.utilization == Fraction(119, 120)
    assert EXAMPLE.cpu_utilization == Fraction(71, 120)
    assert EXAMPLE.gpu_utilization() == Fraction(1, 10) + Fraction(3, 20) + Fraction(9, 60)
    assert EXAMPLE.gpu_utilization("mig0") == Fraction(6, 40) and EXAMPLE.gpu_utilization("none") == 0
    assert EXAMPLE.devices == ("gpu", "mig0") and EXAMPLE.cores == (0, 1) and EXAMPLE.assigned
    assert EXAMPLE.on_core(1) == (0, 2) and EXAMPLE.on_core(5) == () and EXAMPLE.gpu_tasks() == (1, 2)
    assert [EXAMPLE.mode_of(i, "suspend") for i in range(3)] == ["suspend", "busy", "suspend"]
    assert EXAMPLE.mode_of(0, "busy") == "busy"
    assert EXAMPLE.deadline_model == "constrained" and EXAMPLE.names == ("log", "camera", "detect")
    assert EXAMPLE.label(1) == "τ1 (camera)" and EXAMPLE.n == len(EXAMPLE) == 3
    assert GPUSegment(1, 4).G == 5 and DEFAULT_DEVICE == "gpu" and MODES == ("busy", "suspend")


def test_defaults_and_normalisation():
    t = SegmentedTask([1, 2], [(1, 1)], np.int64(10))  # lists, pairs and numpy ints are accepted
    assert t.cpu == (1, 2) and t.gpu == (GPUSegment(1, 1),) and t.T == 10 and t.D == 10 and type(t.T) is int
    assert t.core is None and t.mode is None and t.name is None and t.deadline_kind == "implicit"
    assert SegmentedTask((1,), (), 10, mode=" Busy ").mode == "busy"  # type: ignore[arg-type]
    assert SegmentedTask((1, 0), ({"G_m": 2, "G_e": 3, "device": "tpc:1"},), 10).gpu[0] == GPUSegment(2, 3, "tpc:1")
    assert SegmentedTask((1,), (), 5, 9).deadline_kind == "arbitrary"
    assert CAMERA.replace(core=3).core == 3 and CAMERA.replace(core=3).gpu == CAMERA.gpu
    assert "core=0" in repr(CAMERA) and "mode='busy'" in repr(CAMERA) and "'mig0'" in repr(CAMERA)
    assert repr(GPUSegment(1, 2)) == "GPUSegment(1, 2)"


@pytest.mark.parametrize(
    ("build", "field", "message"),
    [
        pytest.param(lambda: SegmentedTask((1,), (), 0, name="a"), "T", "T must be positive", id="zero-period"),
        pytest.param(lambda: SegmentedTask((1,), (), 10, -2, name="a"), "D", "D must be positive", id="negative-d"),
        pytest.param(lambda: SegmentedTask((1,), (), 10.0, name="a"), "T", "integer number of ticks", id="float-t"),  # type: ignore[arg-type]
        pytest.param(lambda: SegmentedTask((1,), (), True, name="a"), "T", "integer number of ticks", id="bool-t"),  # type: ignore[arg-type]
        pytest.param(lambda: SegmentedTask((1,), (), MAX_TIME + 1, name="a"), "T", "too large", id="huge-t"),
        pytest.param(
            lambda: SegmentedTask((1, -1), ((1, 1),), 10, name="a"), "C_2", "C_2 must be non-negative", id="negative-c"
        ),
        pytest.param(
            lambda: SegmentedTask((1,), ((1, 1),), 10, name="a"),
            "C_1",
            "1 GPU segments need 2 CPU segments",
            id="count",
        ),
        pytest.param(
            lambda: SegmentedTask((0, 0), ((1, -1),), 10, name="a"),
            "segment 1 G_e",
            "G_e must be non-negative",
            id="negative-g-e",
        ),
        pytest.param(
            lambda: SegmentedTask((0, 0, 0), ((1, 1), (0, 0)), 10, name="a"),
            "segment 2 G_e",
            "G_m + G_e >= 1",
            id="empty-segment",
        ),
        pytest.param(
            lambda: SegmentedTask((0, 0), ((1, 1, "9x"),), 10, name="a"), "segment 1 device", "device name", id="device"
        ),
        pytest.param(
            lambda: SegmentedTask((0, 0), ((1,),), 10, name="a"), "segment 1", "(G_m, G_e[, device])", id="short-pair"
        ),
        pytest.param(
            lambda: SegmentedTask((0, 0), ({"G_x": 1},), 10, name="a"),
            "segment 1 G_e",
            "unknown GPU segment fields",
            id="dict-key",
        ),
        pytest.param(lambda: SegmentedTask((0,), (), 10, name="a"), "C_1", "a task needs some work", id="no-work"),
        pytest.param(lambda: SegmentedTask((MAX_TIME, 1), ((1, 1),), 10, name="a"), "C_1", "add up to", id="huge-work"),
        pytest.param(lambda: SegmentedTask((1,), (), 10, core=-1, name="a"), "core", "core index", id="negative-core"),
        pytest.param(lambda: SegmentedTask((1,), (), 10, core=1.0, name="a"), "core", "core index", id="float-core"),  # type: ignore[arg-type]
        pytest.param(lambda: SegmentedTask((1,), (), 10, mode="spin", name="a"), "mode", "busy or suspend", id="mode"),  # type: ignore[arg-type]
        pytest.param(lambda: SegmentedTask("12", (), 10, name="a"), "C_1", "sequence of integers", id="string-cpu"),  # type: ignore[arg-type]
        pytest.param(
            lambda: SegmentedTask((1,), 5, 10, name="a"), "segment 1", "sequence of GPU segments", id="int-gpu"
        ),  # type: ignore[arg-type]
        pytest.param(
            lambda: SegmentedTask.from_segments([1, 2], T=10, name="a"),
            "C_1",
            "two CPU segments in a row",
            id="two-cpu",
        ),
    ],
)
def test_validation_errors_name_task_and_field(build, field, message):
    with pytest.raises(TaskError) as info:
        build()
    assert info.value.field == field
    assert info.value.task == "a"
    assert message in str(info.value) and str(info.value).startswith(f"task a, field {field}: ")


def test_name_must_be_a_string():
    with pytest.raises(TaskError, match="task name must be a string"):
        SegmentedTask((1,), (), 10, name=3)  # type: ignore[arg-type]
    with pytest.raises(InputError, match="set name must be a string"):
        SegmentedTaskSet([LOG], name=3)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("segments", "cpu", "gpu"),
    [
        pytest.param([5], (5,), (), id="cpu-only"),
        pytest.param([1, (2, 3), 4], (1, 4), ((2, 3),), id="alternating"),
        pytest.param([(2, 3)], (0, 0), ((2, 3),), id="gpu-only"),
        pytest.param([(2, 3), (1, 1)], (0, 0, 0), ((2, 3), (1, 1)), id="two-gpu-in-a-row"),
        pytest.param([1, GPUSegment(0, 2, "b"), 0], (1, 0), ((0, 2, "b"),), id="objects"),
    ],
)
def test_from_segments(segments, cpu, gpu):
    t = SegmentedTask.from_segments(segments, 20, 15, core=2, mode="busy", name="x")
    assert t.cpu == cpu and t.gpu == tuple(GPUSegment(*g) for g in gpu)
    assert (t.T, t.D, t.core, t.mode, t.name) == (20, 15, 2, "busy", "x")
    assert SegmentedTask.from_segments(t.segments(), 20, 15, core=2, mode="busy", name="x") == t


def test_set_operations():
    assert EXAMPLE.with_cores([None, 0, 0]).cores == (0,) and not EXAMPLE.with_cores([None, 0, 0]).assigned
    assert EXAMPLE.with_mode("busy").mode_of(2, "suspend") == "busy"
    assert [t.mode for t in EXAMPLE.with_mode(None)] == [None] * 3
    swapped = EXAMPLE.permuted([2, 0, 1])
    assert [t.name for t in swapped] == ["detect", "log", "camera"] and swapped.name == "example"
    with pytest.raises(InputError, match="not a permutation"):
        EXAMPLE.permuted([0, 0, 1])
    with pytest.raises(InputError, match="2 cores given for 3 tasks"):
        EXAMPLE.with_cores([0, 1])
    EXAMPLE.check_cores(2)
    with pytest.raises(TaskError, match=r"task log, field core: core 1 does not exist on m = 1 cores"):
        EXAMPLE.check_cores(1)
    with pytest.raises(TaskError, match=r"task 0, field core: the task has no core"):
        SegmentedTaskSet([SegmentedTask((1,), (), 4)]).check_cores(2)
    with pytest.raises(InputError, match="needs at least one task"):
        SegmentedTaskSet([])
    with pytest.raises(TaskError, match="expected a SegmentedTask"):
        SegmentedTaskSet([LOG, (1, 2, 3)])  # type: ignore[list-item]
    assert EXAMPLE[1:].name == "example" and EXAMPLE[1:].tasks == (CAMERA, DETECT)


def test_immutability_hashing_and_pickling():
    with pytest.raises(AttributeError):
        CAMERA.T = 3  # type: ignore[misc]
    with pytest.raises(AttributeError):
        CAMERA.gpu[0].G_e = 3  # type: ignore[misc]
    with pytest.raises(AttributeError, match="immutable"):
        EXAMPLE.name = "other"  # type: ignore[misc]
    same = SegmentedTaskSet([LOG, CAMERA.replace(), DETECT], name="example")
    assert same == EXAMPLE and hash(same) == hash(EXAMPLE) and len({same, EXAMPLE}) == 1
    assert SegmentedTaskSet(EXAMPLE.tasks) != EXAMPLE  # the name counts
    assert EXAMPLE.permuted([1, 0, 2]) != EXAMPLE  # the order is the priority order
    assert hash(CAMERA) == hash(CAMERA.replace())
    for obj in (CAMERA, EXAMPLE, GPUSegment(1, 2, "x")):
        assert pickle.loads(pickle.dumps(obj)) == obj
    back = pickle.loads(pickle.dumps(EXAMPLE))
    assert back.devices == EXAMPLE.devices and back.name == "example"
    with pytest.raises(AttributeError, match="immutable"):
        back.name = "x"  # type: ignore[misc]


# -- batches ----------------------------------------------------------------------------------------


def test_batch_arrays_by_hand():
    batch = SegmentedBatch.from_tasksets([EXAMPLE, SegmentedTaskSet([DETECT])])
    assert batch.n_sets == 2 and batch.n_tasks == 4 and batch.n_gpu_segments == 4 and len(batch) == 2
    assert batch.device_names == ("gpu", "mig0")
    assert batch.cpu.tolist() == [5, 2, 1, 3, 0, 4, 0, 4]
    assert batch.G_m.tolist() == [1, 2, 3, 3] and batch.G_e.tolist() == [4, 6, 9, 9]
    assert batch.device.tolist() == [0, 1, 0, 0]
    assert batch.T.tolist() == [20, 40, 60, 60] and batch.D.tolist() == [20, 30, 60, 60]
    assert batch.core.tolist() == [1, 0, 1, 1] and batch.mode.tolist() == [0, 1, 2, 2] and batch.mode.dtype == np.int8
    assert batch.gpu_offsets.tolist() == [0, 0, 2, 3, 4] and batch.task_offsets.tolist() == [0, 3, 4]
    assert batch.C.tolist() == [5, 6, 4, 4] and batch.G_m_total.tolist() == [0, 3, 3, 3]
    assert batch.G_e_total.tolist() == [0, 10, 9, 9] and batch.eta.tolist() == [0, 2, 1, 1]
    for k in range(batch.n_tasks):  # the documented slices
        lo, hi = batch.gpu_offsets[k], batch.gpu_offsets[k + 1]
        assert batch.cpu[lo + k : hi + k + 1].sum() == batch.C[k]
    assert batch.deadlines == "constrained"
    arrays = (batch.cpu, batch.G_m, batch.G_e, batch.device, batch.T, batch.D, batch.core, batch.mode)
    assert all(a.flags.c_contiguous and not a.flags.writeable for a in arrays)
    with pytest.raises(ValueError, match="read-only"):
        batch.T[0] = 1
    with pytest.raises(AttributeError, match="immutable"):
        batch.x = 1  # type: ignore[attr-defined]
    assert "n_sets=2" in repr(batch)


def test_batch_round_trip_and_names():
    batch = SegmentedBatch.from_tasksets([EXAMPLE, SegmentedTaskSet([DETECT])])
    # names are not kept: the tasks come back unnamed, everything else equal
    assert batch.taskset(0) == SegmentedTaskSet(t.replace(name=None) for t in EXAMPLE)
    assert batch[-1] == SegmentedTaskSet([DETECT.replace(name=None)])
    assert batch.tasksets() == list(batch)
    with pytest.raises(IndexError, match="out of range"):
        batch.taskset(2)


def test_concatenate_remaps_devices():
    a = SegmentedBatch.from_tasksets([SegmentedTaskSet([SegmentedTask((0, 0), ((1, 2, "x"),), 9)])])
    b = SegmentedBatch.from_tasksets(
        [SegmentedTaskSet([SegmentedTask((0, 0, 1), ((1, 2, "y"), (3, 4, "x")), 20), SegmentedTask((2,), (), 5)])]
    )
    assert a.device_names == ("x",) and b.device_names == ("y", "x") and b.device.tolist() == [0, 1]
    both = SegmentedBatch.concatenate([a, b])
    assert both.device_names == ("x", "y") and both.device.tolist() == [0, 1, 0]
    assert both.tasksets() == a.tasksets() + b.tasksets()
    assert both.task_offsets.tolist() == [0, 1, 3] and both.gpu_offsets.tolist() == [0, 1, 3, 3]
    assert both == SegmentedBatch.from_tasksets(a.tasksets() + b.tasksets())
    empty = SegmentedBatch.concatenate([])
    assert empty.n_sets == 0 and empty.n_tasks == 0 and empty.device_names == (DEFAULT_DEVICE,)
    cpu_only = SegmentedBatch.from_tasksets([SegmentedTaskSet([LOG])])
    assert SegmentedBatch.concatenate([cpu_only, a]).tasksets() == cpu_only.tasksets() + a.tasksets()


def test_batch_pickling_equality_and_checks():
    batch = SegmentedBatch.from_tasksets([EXAMPLE])
    back = pickle.loads(pickle.dumps(batch))
    assert back == batch and back.tasksets() == batch.tasksets() and back.device_names == batch.device_names
    assert batch != SegmentedBatch.from_tasksets([EXAMPLE.permuted([1, 0, 2])])
    assert batch.__eq__(3) is NotImplemented
    with pytest.raises(TypeError):
        hash(batch)
    args = [
        batch.cpu,
        batch.G_m,
        batch.G_e,
        batch.device,
        batch.T,
        batch.D,
        batch.core,
        batch.mode,
        batch.gpu_offsets,
        batch.task_offsets,
    ]
    bad_e = list(args)
    bad_e[2] = np.array([4, -6, 9])
    with pytest.raises(TaskError, match=r"task set 0, task 1, field segment 2 G_e: G_e must be non-negative"):
        SegmentedBatch(*bad_e, device_names=batch.device_names)
    with pytest.raises(InputError, match="device indices"):
        SegmentedBatch(*args, device_names=("gpu",))
    short = list(args)
    short[0] = batch.cpu[:-1]
    with pytest.raises(InputError, match="cpu must have one entry per GPU segment plus one per task"):
        SegmentedBatch(*short, device_names=batch.device_names)
    zero_d = list(args)
    zero_d[5] = np.array([20, 0, 60])
    with pytest.raises(TaskError, match=r"task set 0, task 1, field D: D must be positive, got 0"):
        SegmentedBatch(*zero_d, device_names=batch.device_names)  # not read as D = T, as SegmentedTask's default
    assert SegmentedTask((1,), (), 10, 0).D == 10  # the constructor's D = 0 is "D = T" (its default)
    bad_core = list(args)
    bad_core[6] = np.array([1, -2, 1])
    with pytest.raises(TaskError, match=r"task set 0, task 1, field core: core must be a core index 0, 1, ... or -1"):
        SegmentedBatch(*bad_core, device_names=batch.device_names)
    codes = list(args)
    codes[7] = np.array([0, 3, 1])
    with pytest.raises(InputError, match="mode codes"):
        SegmentedBatch(*codes, device_names=batch.device_names)
    empty_set = list(args)
    empty_set[9] = np.array([0, 0, 3])
    with pytest.raises(InputError, match="task set 0: a segmented task set needs at least one task"):
        SegmentedBatch(*empty_set, device_names=batch.device_names)


@given(st.lists(rst.segmented_tasksets(devices=("gpu", "a", "b"), deadlines="arbitrary"), min_size=1, max_size=4))
def test_batch_round_trip_property(sets):
    batch = SegmentedBatch.from_tasksets(sets)
    assert batch.tasksets() == sets  # the strategy names nothing
    assert batch.C.tolist() == [t.C for ts in sets for t in ts]
    assert batch.G_m_total.tolist() == [t.G_m for ts in sets for t in ts]
    assert batch.G_e_total.tolist() == [t.G_e for ts in sets for t in ts]
    assert batch.eta.tolist() == [t.eta for ts in sets for t in ts]
    halves = (
        [SegmentedBatch.from_tasksets(sets[:1]), SegmentedBatch.from_tasksets(sets[1:])] if len(sets) > 1 else [batch]
    )
    assert SegmentedBatch.concatenate(halves).tasksets() == sets
    assert pickle.loads(pickle.dumps(batch)) == batch
    for ts in sets:
        assert ts.utilization == sum((Fraction(t.C + t.G, t.T) for t in ts), Fraction(0))
        assert ts.cpu_utilization + sum((t.gpu_utilization for t in ts), Fraction(0)) == ts.utilization
        assert ts.gpu_utilization() == sum((ts.gpu_utilization(d) for d in ts.devices), Fraction(0))


# -- the workload kind ---------------------------------------------------------------------------------


def test_kind_registered_and_coerced():
    assert kind_named("segmented") is SEGMENTED_TASKSETS and SEGMENTED_TASKSETS in kinds()
    assert SEGMENTED_TASKSETS.item_type() is SegmentedTaskSet and SEGMENTED_TASKSETS.batch_type() is SegmentedBatch
    assert SEGMENTED_TASKSETS.coerce(EXAMPLE) is EXAMPLE
    assert SEGMENTED_TASKSETS.coerce(CAMERA) == SegmentedTaskSet([CAMERA])
    assert SEGMENTED_TASKSETS.coerce([LOG, CAMERA]) == SegmentedTaskSet([LOG, CAMERA])
    assert SEGMENTED_TASKSETS.coerce((LOG,)) == SegmentedTaskSet([LOG])
    for other in ([], [(1, 4, 4)], [LOG, (1, 4, 4)], "abc", 3):
        assert SEGMENTED_TASKSETS.coerce(other) is None
    assert kind_of(EXAMPLE) == (SEGMENTED_TASKSETS, EXAMPLE)
    assert kind_of([(1, 4, 4)])[0] is TASKSETS and MC_TASKSETS.coerce(EXAMPLE) is None


def test_kind_batches_and_arguments():
    batch = SEGMENTED_TASKSETS.batch_of([EXAMPLE, EXAMPLE[:1]])
    assert SEGMENTED_TASKSETS.count(batch) == 2 and SEGMENTED_TASKSETS.task_count(batch) == 4
    arguments = SEGMENTED_TASKSETS.kernel_arguments(batch)
    assert len(arguments) == 10 and arguments[0] is batch.cpu and arguments[-1] is batch.task_offsets
    assert SEGMENTED_TASKSETS.deadline_model(EXAMPLE) == "constrained" == SEGMENTED_TASKSETS.deadline_model(batch)
    assert SEGMENTED_TASKSETS.deadline_model(EXAMPLE[:1]) == "implicit"
    assert SEGMENTED_TASKSETS.refuses_platform(Identical(4)) is None
    assert "GPU workloads" in SEGMENTED_TASKSETS.refuses_platform(GPU(2))
    assert "typed" in SEGMENTED_TASKSETS.refuses_platform(Typed({"cpu": 2, "gpu": 1}))


@pytest.mark.parametrize(
    ("deadlines", "model"), [(("implicit",), "implicit"), (("implicit", "constrained"), "constrained")]
)
@pytest.mark.parametrize(("platform_kind", "m"), [("uniprocessor", 1), ("identical", 2), ("partitioned", 2)])
def test_kind_probe(deadlines, model, platform_kind, m):
    batch, platform = SEGMENTED_TASKSETS.probe(deadlines, platform_kind)
    assert isinstance(batch, SegmentedBatch) and batch.n_sets == 2 and platform == m
    assert SEGMENTED_TASKSETS.deadline_model(batch) == model
    sets = batch.tasksets()
    assert all(ts.assigned for ts in sets) and all(ts.gpu_tasks() for ts in sets)
    # one set fits (each core's busy load at most 1), the other overloads both cores
    loads = [[sum(ts[i].utilization for i in ts.on_core(c)) for c in ts.cores] for ts in sets]
    assert max(loads[0]) <= 1 < min(loads[1])


def test_kind_describe_files_and_generator(tmp_path):
    text = SEGMENTED_TASKSETS.describe(EXAMPLE, Identical(2))
    assert text == "example: n=3 tasks (2 use a GPU), m=2, devices=gpu,mig0, U=0.9917"
    plain = SegmentedTaskSet([LOG])
    assert (
        SEGMENTED_TASKSETS.describe(plain, Identical(1))
        == "segmented task set: n=1 tasks (0 use a GPU), m=1, devices=-, U=0.25"
    )
    path = tmp_path / "sets.yaml"
    SEGMENTED_TASKSETS.write([EXAMPLE, plain], path)
    assert SEGMENTED_TASKSETS.read(path) == [EXAMPLE, plain]
    batch = SEGMENTED_TASKSETS.generate(np.random.default_rng(1), 3, m=2)
    assert isinstance(batch, SegmentedBatch) and batch.n_sets == 3
    assert all(ts.cores == (0, 1) for ts in batch.tasksets())
