"""The set-level GPU driver parameters (GPUDriver: ε and the round-robin time slice) in the model, batch and files."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from rtsched.errors import InputError
from rtsched.segmented.model import GPUDriver, GPUSegment, SegmentedBatch, SegmentedTask, SegmentedTaskSet

TASKS = (
    SegmentedTask((2, 2), (GPUSegment(1, 4),), T=20, core=0),
    SegmentedTask((6,), (), T=30, core=1),
    SegmentedTask((1, 1), (GPUSegment(2, 3),), T=40, core=0),
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


# -- files ------------------------------------------------------------------------------------

from rtsched.segmented.files import (  # noqa: E402
    dumps_segmented,
    loads_segmented,
    read_segmented_tasksets,
    write_segmented_tasksets,
)

TEXT = """\
name: a
driver: {{{driver}}}
tasks:
  - {{T: 20, core: 0, segments: [2, [1, 4], 2]}}
  - {{T: 30, core: 1, segments: [6]}}
"""


@pytest.mark.parametrize(
    ("driver", "expected"),
    [
        pytest.param("epsilon: 10, time_slice: 10", GPUDriver(10, 10), id="both"),
        pytest.param("epsilon: 3", GPUDriver(3, None), id="epsilon-only"),
        pytest.param("time_slice: 7", GPUDriver(0, 7), id="slice-only"),
        pytest.param("epsilon: 2, time_slice: null", GPUDriver(2, None), id="null-slice"),
    ],
)
def test_read_driver(driver: str, expected: GPUDriver) -> None:
    (ts,) = loads_segmented(TEXT.format(driver=driver))
    assert ts.driver == expected


def test_no_driver_section() -> None:
    text = TEXT.format(driver="epsilon: 0").replace("driver: {epsilon: 0}\n", "")
    (ts,) = loads_segmented(text)
    assert ts.driver is None and "driver" not in dumps_segmented(ts)
    (ts,) = loads_segmented(text.replace("name: a\n", "name: a\ndriver: null\n"))
    assert ts.driver is None


@pytest.mark.parametrize("fmt", ["yaml", "json"])
@pytest.mark.parametrize("driver", [GPUDriver(10, 10), GPUDriver(1, None), GPUDriver(0, 1)])
def test_round_trip(tmp_path: Path, fmt: str, driver: GPUDriver) -> None:
    sets = [SegmentedTaskSet(TASKS, name="x", driver=driver), SegmentedTaskSet(TASKS, name="y")]
    assert loads_segmented(dumps_segmented(sets, fmt), fmt) == sets
    path = tmp_path / f"sets.{fmt}"
    write_segmented_tasksets(path, sets)
    assert read_segmented_tasksets(path) == sets


@pytest.mark.parametrize(
    ("driver", "line", "field", "message"),
    [
        pytest.param("epsilon: -1", 2, "driver epsilon", "non-negative", id="negative-epsilon"),
        pytest.param("time_slice: 0", 2, "driver time_slice", "positive", id="zero-slice"),
        pytest.param("eps: 1", 2, "driver eps", "unknown key", id="unknown-key"),
        pytest.param("epsilon: 1.5", 2, "driver epsilon", "not an integer", id="fraction"),
    ],
)
def test_driver_errors(tmp_path: Path, driver: str, line: int, field: str, message: str) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(TEXT.format(driver=driver))
    with pytest.raises(InputError, match=message) as err:
        read_segmented_tasksets(path)
    assert err.value.line == line and err.value.field == field
    assert str(err.value).startswith(f"{path}, line {line}, field {field}:")


def test_driver_error_line_in_block_style() -> None:
    text = "name: a\ndriver:\n  epsilon: 1\n  time_slice: -4\ntasks:\n  - {T: 20, core: 0, segments: [2]}\n"
    with pytest.raises(InputError) as err:
        loads_segmented(text)
    assert err.value.line == 4 and err.value.field == "driver time_slice"
    with pytest.raises(InputError, match="'driver' must be") as err:
        loads_segmented(text.replace("driver:\n  epsilon: 1\n  time_slice: -4\n", "driver: 5\n"))
    assert err.value.field == "driver"


# -- simulator --------------------------------------------------------------------------------

from rtsched.segmented.sim import simulate_segmented  # noqa: E402

SIM_TASKS = SegmentedTaskSet(
    [
        SegmentedTask((1, 1), (GPUSegment(2, 4),), T=20, core=0),
        SegmentedTask((2, 0), (GPUSegment(0, 5),), T=20, core=1),
        SegmentedTask((1, 1), (GPUSegment(1, 7),), T=40, core=0),
    ]
)


@pytest.mark.parametrize("execution", ["wcet", "random"])
@pytest.mark.parametrize("arrivals", ["periodic", "sporadic"])
def test_simulator_takes_the_sets_driver(arrivals: str, execution: str) -> None:
    run = {"arrivals": arrivals, "execution": execution, "seed": 5, "horizon": 400, "record": True}
    driven = SIM_TASKS.with_driver(GPUDriver(epsilon=2, time_slice=3))
    for protocol, keywords in (("gcaps", {"epsilon": 2}), ("tsg-rr", {"epsilon": 2, "time_slice": 3})):
        by_driver = simulate_segmented(driven, protocol=protocol, **run)  # type: ignore[arg-type]
        by_keyword = simulate_segmented(SIM_TASKS, protocol=protocol, **run, **keywords)  # type: ignore[arg-type]
        assert by_driver.to_dict() == by_keyword.to_dict()
        assert by_driver.epsilon == 2
    plain = simulate_segmented(SIM_TASKS, protocol="gcaps", horizon=400)
    assert plain.epsilon == 0  # the default when neither keyword nor driver says otherwise
    if (arrivals, execution) == ("periodic", "wcet"):  # the driver's ε shows: (10, 15, 40) against (8, 11, 19)
        assert simulate_segmented(driven, protocol="gcaps", horizon=400).response_times == (10, 15, 40)
        assert plain.response_times == (8, 11, 19)


def test_simulator_keyword_beats_driver_and_other_protocols_ignore_it() -> None:
    driven = SIM_TASKS.with_driver(GPUDriver(epsilon=2, time_slice=3))
    assert (
        simulate_segmented(driven, protocol="gcaps", epsilon=0, horizon=200).to_dict()
        == simulate_segmented(SIM_TASKS, protocol="gcaps", horizon=200).to_dict()
    )
    trace = simulate_segmented(driven, protocol="tsg-rr", time_slice=1, horizon=200)
    assert (trace.time_slice, trace.epsilon) == (1, 2)
    for protocol in ("mpcp", "fmlp+", "none"):  # the lock-based protocols and none: ε and L do not apply
        assert (
            simulate_segmented(driven, protocol=protocol, horizon=200).response_times
            == simulate_segmented(SIM_TASKS, protocol=protocol, horizon=200).response_times
        )
    with pytest.raises(InputError, match="needs time_slice"):  # a driver without a slice gives none
        simulate_segmented(SIM_TASKS.with_driver(GPUDriver(epsilon=1)), protocol="tsg-rr")
    with pytest.raises(InputError, match="applies to protocols gcaps"):  # an explicit keyword is still checked
        simulate_segmented(driven, protocol="mpcp", epsilon=1)


# -- generator and sweeps ---------------------------------------------------------------------

import numpy as np  # noqa: E402

from rtsched.generators.segmented import driver_ticks, segmented_batch, segmented_tasksets  # noqa: E402


@pytest.mark.parametrize(
    ("epsilon_ms", "time_slice_ms", "ticks", "expected"),
    [
        pytest.param(1, 1.024, 10, (10, 10), id="gcaps-paper-eps-and-slice"),
        pytest.param(0.2, 1.024, 10, (2, 10), id="tsg-paper-theta"),
        pytest.param(0.2, 1.024, 1000, (200, 1024), id="microsecond-ticks"),
        pytest.param(0.01, 0.05, 10, (1, 1), id="eps-up-slice-half-up"),
        pytest.param(0.1, None, 10, (1, None), id="decimal-not-binary"),  # 0.1 ms x 10 is 1, not 2
        pytest.param(0, 1.04, 10, (0, 10), id="slice-to-nearest"),
        pytest.param(None, None, 10, (None, None), id="none"),
    ],
)
def test_driver_ticks(epsilon_ms: float | None, time_slice_ms: float | None, ticks: int, expected: tuple) -> None:
    assert driver_ticks(epsilon_ms, time_slice_ms, ticks) == expected


def test_generator_writes_the_driver_into_every_set() -> None:
    options = {"m": 2, "tasks_per_cpu": 3, "utilization": 0.5}
    plain = segmented_tasksets(np.random.default_rng(7), 5, **options)
    driven = segmented_tasksets(np.random.default_rng(7), 5, epsilon_ms=1, time_slice_ms=1.024, **options)
    assert all(ts.driver is None for ts in plain)
    assert all(ts.driver == GPUDriver(10, 10) for ts in driven)
    assert [ts.with_driver(None) for ts in driven] == plain  # the same draws
    batch = segmented_batch(np.random.default_rng(7), 5, epsilon_ms=1, time_slice_ms=1.024, **options)
    assert batch.tasksets() == driven and batch.drivers() == (GPUDriver(10, 10),) * 5
    assert segmented_batch(np.random.default_rng(7), 5, **options).extras is None
    only_eps = segmented_tasksets(np.random.default_rng(7), 1, epsilon_ms=0.2, **options)
    assert only_eps[0].driver == GPUDriver(2, None)


@pytest.mark.parametrize(
    ("options", "field", "message"),
    [
        pytest.param({"epsilon_ms": -1}, "epsilon_ms", "non-negative", id="negative"),
        pytest.param({"time_slice_ms": 0}, "time_slice_ms", "positive", id="zero-slice"),
        pytest.param({"time_slice_ms": 0.01}, "time_slice_ms", "less than half a tick", id="below-a-tick"),
        pytest.param({"epsilon_ms": "1"}, "epsilon_ms", "number of milliseconds", id="text"),
        pytest.param({"epsilon_ms": float("inf")}, "epsilon_ms", "finite", id="infinite"),
    ],
)
def test_generator_driver_errors(options: dict, field: str, message: str) -> None:
    with pytest.raises(InputError, match=message) as err:
        segmented_tasksets(np.random.default_rng(0), 1, **options)
    assert err.value.field == field


SWEEP = """\
name = "tiny-driver"
seed = 43
[platform]
m = 2
[generator]
kind = "segmented"
n = 2
ticks = 10
{extra}
[sweep]
variable = "utilization"
points = [0.3, 0.6]
sets_per_point = 4
sets_per_unit = 2
[analyses]
names = ["seg-gcaps-suspend", "seg-tsg-suspend"]
"""


def test_sweep_passes_the_driver_keys_and_keeps_old_fingerprints() -> None:
    from rtsched.sweep import parse_experiment
    from rtsched.sweep.units import plan, run_unit

    old = parse_experiment(SWEEP.format(extra=""))
    assert "epsilon_ms" not in old.canonical()["generator"]  # left out: no driver, fingerprint as before
    assert parse_experiment(old.to_toml()).fingerprint() == old.fingerprint()
    new = parse_experiment(SWEEP.format(extra="epsilon_ms = 1\ntime_slice_ms = 1.024"))
    gen = new.canonical()["generator"]
    assert (gen["epsilon_ms"], gen["time_slice_ms"]) == (1, 1.024)
    assert new.fingerprint() != old.fingerprint()
    assert parse_experiment(new.to_toml()).fingerprint() == new.fingerprint()
    assert all(dict(c.generator)["epsilon_ms"] == 1 for c in plan(new).configurations)
    result = run_unit(plan(new).units[0])  # the analyses run on sets with a driver
    assert result["sets"] == 2 and set(result["accepted"]) == {"seg-gcaps-suspend", "seg-tsg-suspend"}
    with pytest.raises(InputError, match="time_slice_ms"):
        parse_experiment(SWEEP.format(extra="time_slice_ms = 0"))


def test_sweep_draws_carry_the_driver() -> None:
    from rtsched.sweep.kinds import draw

    params = {"periods": "uniform:30:500", "ticks": 10, "epsilon_ms": 1, "time_slice_ms": 1.024}
    batch, _ = draw("segmented", np.random.default_rng(3), n=3, utilization=0.5, size=3, m=2, params=params)
    assert batch.drivers() == (GPUDriver(10, 10),) * 3


# -- rtsched check FILE -----------------------------------------------------------------------

CHECKED = """\
name: worked
driver: {{{driver}}}
tasks:
  - {{T: 30, core: 0, segments: [1, [2, 4], 1]}}
  - {{T: 40, core: 1, segments: [2, [2, 3], 1]}}
  - {{T: 50, core: 0, segments: [1, [2, 5], 2]}}
  - {{T: 60, core: 1, segments: [4]}}
"""


def test_check_uses_the_files_driver(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from rtsched.cli import main

    path = tmp_path / "set.yaml"
    path.write_text(CHECKED.format(driver="epsilon: 1"))
    assert main(["check", str(path), "-m", "2", "--tests", "seg-gcaps-suspend,seg-tsg-suspend", "--explain"]) == 0
    out = capsys.readouterr().out
    assert "ε = 1 (the set's driver))" in out
    assert "ε = 1 (the set's driver), time slice 10 (default)" in out
    path.write_text(CHECKED.format(driver="epsilon: -1"))
    assert main(["check", str(path), "-m", "2"]) == 2
    err = capsys.readouterr().err
    assert f"{path}, line 2, field driver epsilon: driver epsilon must be non-negative, got -1" in err
