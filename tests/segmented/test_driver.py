"""The set-level GPU driver parameters (GPUDriver: ε and the round-robin time slice) in the model, batch and files."""

from __future__ import annotations

import pickle

import pytest

from rtsched.errors import InputError
from rtsched.segmented.model import GPUDriver, SegmentedBatch, SegmentedTask, SegmentedTaskSet

TASKS = (
    SegmentedTask((2, 2), ((1, 4),), T=20, core=0),
    SegmentedTask((6,), (), T=30, core=1),
    SegmentedTask((1, 1), ((2, 3),), T=40, core=0),
)
DRIVER = GPUDriver(epsilon=3, time_slice=5)


def test_driver_defaults_and_validation() -> None:
    assert GPUDriver() == GPUDriver(0, None)
    assert GPUDriver(epsilon=2).time_slice is None
    for bad, field in (
        ({"epsilon": -1}, "driver epsilon"),
        ({"epsilon": 1.5}, "driver epsilon"),
        ({"epsilon": True}, "driver epsilon"),
        ({"time_slice": 0}, "driver time_slice"),
        ({"time_slice": "10"}, "driver time_slice"),
    ):
        with pytest.raises(InputError) as err:
            GPUDriver(**bad)
        assert err.value.field == field
    with pytest.raises(InputError, match="GPUDriver"):
        SegmentedTaskSet(TASKS, driver=(1, 2))  # type: ignore[arg-type]


def test_set_keeps_driver() -> None:
    ts = SegmentedTaskSet(TASKS, name="s", driver=DRIVER)
    plain = SegmentedTaskSet(TASKS, name="s")
    assert ts.driver == DRIVER and plain.driver is None
    assert ts != plain and ts.with_driver(None) == plain and plain.with_driver(DRIVER) == ts
    assert hash(ts) == hash(plain.with_driver(DRIVER))
    assert hash(plain) == hash((TASKS, "s", None))  # unchanged for sets without a driver
    assert pickle.loads(pickle.dumps(ts)) == ts
    assert "driver=GPUDriver(epsilon=3, time_slice=5)" in repr(ts)
    for derived in (
        ts.permuted([2, 1, 0]),
        ts.with_cores([1, 0, 1]),
        ts.with_mode("busy"),
        ts[:2],
        ts.with_gpu(None),
    ):
        assert derived.driver == DRIVER


def test_batch_carries_drivers() -> None:
    a = SegmentedTaskSet(TASKS, driver=DRIVER)
    b = SegmentedTaskSet(TASKS)
    batch = SegmentedBatch.from_tasksets([a, b, a])
    assert batch.drivers() == (DRIVER, None, DRIVER)
    assert batch.tasksets() == [a, b, a]
    assert pickle.loads(pickle.dumps(batch)) == batch
    both = SegmentedBatch.concatenate([batch, SegmentedBatch.from_tasksets([b])])
    assert both.drivers() == (DRIVER, None, DRIVER, None)
    assert both.taskset(2) == a
    plain = SegmentedBatch.from_tasksets([b, b])
    assert plain.extras is None and plain.drivers() == (None, None)  # as before the driver
    assert SegmentedBatch.concatenate([plain, plain]).extras is None
