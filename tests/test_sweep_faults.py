"""Sweeps that never reuse stale or damaged results, and survive a Dask worker dying mid-sweep.

- A resumed sweep recomputes exactly the analyses whose implementation digest changed (in every
  unit, and nothing else), and every unit when the generator code changed.
- A unit file truncated, emptied, overwritten or with a flipped byte is detected by its checksum,
  reported in one line and recomputed; the results equal an undisturbed run's.
- (``slow``) A Dask ``LocalCluster`` on 127.0.0.1 whose worker is killed mid-sweep still gives
  results identical to a single-process run.
"""

from __future__ import annotations

import io
import json
import os
import signal
import threading
import time
from pathlib import Path

import pytest

import rtsched.sweep.executors as executors
import rtsched.sweep.runner as runner
from rtsched.sweep import parse_experiment, run
from rtsched.sweep.units import run_unit
from rtsched.testing.experiments import experiment_toml

UNITS = 6


def experiment(sets: int = 40, per_unit: int = 20):
    generator = {
        "n": "5",
        "utilizations": '"randfixedsum"',
        "periods": '"log-uniform:10:1000"',
        "deadlines": '"implicit"',
    }
    return parse_experiment(
        experiment_toml(
            name="faults", seed=5, m="2", generator=generator, points="[0.3, 0.6, 0.9]",
            sets_per_point=sets, sets_per_unit=per_unit, names='["gfb", "bcl"]',
        )
    )


def sweep(out: Path, stream: io.StringIO | None = None, **kw):
    return run(experiment(), out, workers=0, progress="none", plot=False, stream=stream or io.StringIO(), **kw)


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, tuple[str, ...]]]:
    """(unit, analyses) of every unit the executors run."""
    seen: list[tuple[int, tuple[str, ...]]] = []

    def spy(spec):
        seen.append((spec.index, spec.analyses))
        return run_unit(spec)

    monkeypatch.setattr(executors, "run_unit", spy)
    return seen


@pytest.fixture
def clean(tmp_path_factory: pytest.TempPathFactory):
    """An undisturbed run: its results and unit files."""
    out = tmp_path_factory.mktemp("clean") / "out"
    return sweep(out), out


def copy_of(clean_out: Path, tmp_path: Path) -> Path:
    import shutil

    out = tmp_path / "out"
    shutil.copytree(clean_out, out)
    return out


# -- stale results -------------------------------------------------------------------------------
def test_unit_files_record_the_code_and_a_checksum(clean) -> None:
    from rtsched import registry
    from rtsched.sweep.store import checksum, generator_digest

    results, out = clean
    assert results.units_total == UNITS and results.recomputed == {} and results.damaged == ()
    record = json.loads((out / "units" / "000000.json").read_text())
    assert record["implementations"] == {name: registry.get(name).implementation for name in ("gfb", "bcl")}
    assert record["generator"] == generator_digest()
    assert record["checksum"] == checksum(record)


def test_changed_analysis_recomputes_that_analysis_only(clean, calls, monkeypatch, tmp_path) -> None:
    results, clean_out = clean
    out = copy_of(clean_out, tmp_path)
    real = runner.analysis_implementations

    def changed(names):
        return {name: ("fixed-" + digest if name == "bcl" else digest) for name, digest in real(names).items()}

    monkeypatch.setattr(runner, "analysis_implementations", changed)
    stream = io.StringIO()
    again = sweep(out, stream)
    assert sorted(calls) == [(k, ("bcl",)) for k in range(UNITS)]  # gfb's verdicts were reused
    assert again.recomputed == {"bcl": UNITS} and again.units_run == UNITS
    assert stream.getvalue() == (
        f"rtsched sweep: recomputing analyses whose code changed since their results were stored: bcl ({UNITS} units)\n"
    )
    assert again.rows == results.rows
    record = json.loads((out / "units" / "000003.json").read_text())
    assert record["implementations"]["bcl"].startswith("fixed-")
    assert record["seconds"]["gfb"] == json.loads((clean_out / "units" / "000003.json").read_text())["seconds"]["gfb"]
    calls.clear()
    assert sweep(out).units_run == 0 and calls == []  # now current: nothing to do


def test_changed_generator_recomputes_every_unit(clean, calls, monkeypatch, tmp_path) -> None:
    results, clean_out = clean
    out = copy_of(clean_out, tmp_path)
    monkeypatch.setattr(runner, "generator_digest", lambda: "another generator")
    stream = io.StringIO()
    again = sweep(out, stream)
    assert sorted(calls) == [(k, ("gfb", "bcl")) for k in range(UNITS)]
    assert again.recomputed == {"generator": UNITS}
    assert "the generator code changed since 6 units were stored; recomputing them" in stream.getvalue()
    assert again.rows == results.rows


def test_partial_rerun_that_draws_other_sets_redraws_the_unit(clean, calls, monkeypatch, tmp_path) -> None:
    results, clean_out = clean
    out = copy_of(clean_out, tmp_path)
    path = out / "units" / "000002.json"
    record = json.loads(path.read_text())
    record["utilization_sum"] += 1.0  # as if the stored sets were drawn by other code
    record["implementations"]["bcl"] = "old"
    from rtsched.sweep.store import checksum

    record["checksum"] = checksum(record)
    path.write_text(json.dumps(record))
    stream = io.StringIO()
    again = sweep(out, stream)
    assert calls == [(2, ("bcl",)), (2, ("gfb", "bcl"))]
    assert "1 unit drew other task sets than stored; recomputing them whole" in stream.getvalue()
    assert again.rows == results.rows


# -- integrity -----------------------------------------------------------------------------------
def damage(path: Path, how: str) -> None:
    data = path.read_bytes()
    if how == "truncate":
        path.write_bytes(data[: len(data) // 2])
    elif how == "empty":
        path.write_bytes(b"")
    elif how == "flip":  # a digit changed: still valid JSON, a different number
        i = data.index(b'"accepted": {"bcl": ') + len(b'"accepted": {"bcl": ')
        path.write_bytes(data[:i] + bytes([data[i] ^ 1]) + data[i + 1 :])
    elif how == "binary":
        path.write_bytes(data[:10] + b"\xff\xfe\x00" + data[13:])
    elif how == "old":  # a record of format 1: no checksum
        record = json.loads(data)
        for key in ("checksum", "implementations", "generator"):
            record.pop(key)
        path.write_text(json.dumps(record))


def test_corrupted_units_are_detected_reported_and_recomputed(clean, calls, tmp_path) -> None:
    results, clean_out = clean
    out = copy_of(clean_out, tmp_path)
    kinds = {0: "truncate", 1: "empty", 2: "flip", 4: "binary", 5: "old"}
    for k, how in kinds.items():
        damage(out / "units" / f"{k:06d}.json", how)
    stream = io.StringIO()
    again = sweep(out, stream)
    assert sorted(again.damaged) == sorted(kinds) and sorted(k for k, _ in calls) == sorted(kinds)
    lines = stream.getvalue().splitlines()
    assert len(lines) == len(kinds)
    reasons = {
        0: "truncated or corrupted (not JSON)",
        1: "empty",
        2: "corrupted (checksum mismatch)",
        4: "truncated or corrupted (not JSON)",
        5: "written without a checksum",
    }
    for k, why in reasons.items():
        assert f"rtsched sweep: unit file {out / 'units' / f'{k:06d}.json'} is {why}; recomputing unit {k}" in lines
    assert again.rows == results.rows
    assert (out / "results.csv").read_bytes() == (clean_out / "results.csv").read_bytes()
    calls.clear()
    again = sweep(out)
    assert again.damaged == () and calls == []


# -- a Dask worker killed mid-sweep --------------------------------------------------------------
@pytest.mark.slow
def test_dask_worker_killed_mid_sweep_gives_identical_results(tmp_path: Path) -> None:
    distributed = pytest.importorskip("distributed")
    exp = experiment(sets=600, per_unit=10)  # 180 units
    local = run(exp, tmp_path / "local", workers=0, progress="none", plot=False)
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None,
        # No dashboard, but the scheduler still serves HTTP (health, metrics) on 8787 unless told:
        # a free port, else a second cluster (pytest -n 2, another user) fails on "Port 8787 is in use".
        scheduler_kwargs={"dashboard_address": ":0"},
    ) as cluster:  # fmt: skip
        units = tmp_path / "dask" / "units"
        killed: list[int] = []

        def kill_one_worker() -> None:
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline:
                if units.is_dir() and sum(1 for _ in units.glob("0*.json")) >= 20:
                    with distributed.Client(cluster.scheduler_address, set_as_default=False) as client:
                        pids = client.run(os.getpid)
                    pid = next(iter(pids.values()))
                    os.kill(pid, signal.SIGKILL)  # the worker's process, started by this test
                    killed.append(pid)
                    return
                time.sleep(0.01)

        killer = threading.Thread(target=kill_one_worker, daemon=True)
        killer.start()
        remote = run(exp, tmp_path / "dask", scheduler=cluster.scheduler_address, progress="none", plot=False)
        killer.join(timeout=5)
    assert killed, "the sweep ended before a worker could be killed"
    assert remote.units_total == 180 and remote.units_run == 180
    assert remote.rows == local.rows
    assert (tmp_path / "local" / "results.csv").read_bytes() == (tmp_path / "dask" / "results.csv").read_bytes()
