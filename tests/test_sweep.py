"""Tests of the sweep engine: experiment files, seeding, store/resume, executors, outputs.

Tiny experiments with ``gfb`` only (the analyses of other modules are not needed): the whole
module runs in well under 90 s, the Dask test included.
"""

from __future__ import annotations

import io
import json
import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from rtsched import registry
from rtsched.errors import InputError
from rtsched.sweep import (
    DEFAULT_EXPERIMENT_TOML,
    default_experiment,
    load_experiment,
    parse_experiment,
    run,
    weighted_schedulability,
    wilson_interval,
)
from rtsched.sweep.executors import choose_executor
from rtsched.sweep.units import plan, run_unit, unit_seed
from rtsched.testing.experiments import experiment_toml

REPO = Path(__file__).resolve().parents[1]


def tiny(m: str = "[2, 4]", n: str = "6", points: str = "[0.2, 0.5, 0.8]", sets: int = 60, per_unit: int = 20) -> str:
    """A small experiment (two variables: U/m and m) as TOML text."""
    generator = {
        "n": n,
        "utilizations": '"randfixedsum"',
        "periods": '"log-uniform:10:1000"',
        "deadlines": '"implicit"',
    }
    return experiment_toml(
        name="tiny", seed=11, m=m, generator=generator, points=points,
        sets_per_point=sets, sets_per_unit=per_unit, names='["gfb"]',
    )


def write(tmp_path: Path, text: str, name: str = "exp.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# ---------------------------------------------------------------------------------------------
# Experiment files
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "field", "line"),
    [
        pytest.param(tiny().replace("points = [", "pointz = ["), "sweep.pointz", 15, id="unknown-key"),
        pytest.param(tiny(points="[]"), "sweep.points", 15, id="empty-points"),
        pytest.param(tiny(points="[0.2, 0.2]"), "sweep.points", 15, id="repeated-points"),
        pytest.param(tiny(points='["a"]'), "sweep.points", 15, id="text-point"),
        pytest.param(tiny(points="{start = 0.5, stop = 0.1, step = 0.1}"), "sweep.points", 15, id="backwards-range"),
        pytest.param(tiny(sets=0), "sweep.sets_per_point", 16, id="zero-sets"),
        pytest.param(tiny(sets=10, per_unit=20), "sweep.sets_per_unit", 17, id="unit-larger-than-point"),
        pytest.param(tiny(m="0"), "platform.m", 5, id="m-zero"),
        pytest.param(tiny(m="[2, 2]"), "platform.m", 5, id="m-repeated"),
        pytest.param(tiny(n="{min = 8, max = 3}"), "generator.n", 8, id="empty-n-range"),
        pytest.param(tiny().replace('variable = "U/m"', 'variable = "speed"'), "sweep.variable", 14, id="bad-variable"),
        pytest.param(tiny().replace('names = ["gfb"]', 'names = ["no-such-test"]'), "analyses.names", 20, id="bad-analysis"),
        pytest.param(tiny().replace("seed = 11", "seed = -1"), "seed", 2, id="negative-seed"),
        pytest.param(tiny().replace('periods = "log-uniform:10:1000"', "periods = 7"), "generator.periods", 10, id="periods-not-text"),
        pytest.param(tiny().replace('deadlines = "implicit"', 'deadlines = "sometimes"'), "generator.deadlines", 11, id="generator-refuses"),
        pytest.param(tiny(n="3", points="[0.5, 1.0]", m="4"), "sweep.points", 15, id="point-infeasible"),
        pytest.param(tiny().replace("[sweep]", "[sweep]\nby = \"m\"\nby_points = [1, 2]"), "platform.m", 5, id="m-twice"),
    ],
)
def test_validation_errors_name_the_key(tmp_path: Path, text: str, field: str, line: int) -> None:
    path = write(tmp_path, text)
    with pytest.raises(InputError) as info:
        load_experiment(path)
    assert info.value.field == field
    assert info.value.file == str(path)
    assert info.value.line == line
    assert field in str(info.value) and str(path) in str(info.value)


def test_invalid_toml_reports_the_line(tmp_path: Path) -> None:
    with pytest.raises(InputError) as info:
        load_experiment(write(tmp_path, tiny().replace("seed = 11", "seed = = 11")))
    assert info.value.line == 2
    assert "not valid TOML" in str(info.value)


def test_missing_sweep_table() -> None:
    with pytest.raises(InputError) as info:
        parse_experiment({"platform": {"m": 2}, "generator": {"n": 4}})
    assert info.value.field == "sweep"


def test_ranges_and_canonical_form_round_trip() -> None:
    exp = parse_experiment(tiny(points="{start = 0.05, stop = 1.0, step = 0.05}", n="{min = 4, max = 8}"))
    assert exp.sweep.points[:3] == (0.05, 0.1, 0.15) and exp.sweep.points[-1] == 1.0 and len(exp.sweep.points) == 20
    assert exp.by is not None and exp.by.variable == "m" and exp.by.points == (2, 4)
    again = parse_experiment(exp.to_toml())
    assert again.canonical() == exp.canonical()
    assert again.fingerprint() == exp.fingerprint()
    assert parse_experiment(tiny(sets=61)).fingerprint() != parse_experiment(tiny()).fingerprint()


def test_default_experiment_is_the_packaged_file() -> None:
    """One copy: rtsched/data/default_experiment.toml (package data); examples/README.md points to it."""
    assert (REPO / "rtsched" / "data" / "default_experiment.toml").read_text(encoding="utf-8") == DEFAULT_EXPERIMENT_TOML
    assert not (REPO / "examples" / "default_experiment.toml").exists()
    exp = default_experiment()
    assert exp.processors == (4,) and dict(exp.generator)["n"] == 10
    assert exp.sweep.variable == "U/m" and exp.sweep.points[0] == 0.05 and exp.sweep.points[-1] == 1.0
    featured = {
        e.name
        for e in registry.all_entries(featured_only=True)
        if e.policy in ("global-edf", "partitioned-edf") and e.kind in ("sufficient", "necessary")
    }
    assert set(exp.analyses) == featured
    assert "gfb" in exp.analyses and "gedf-upper" in exp.analyses  # the upper bound is drawn too
    assert 1000 <= exp.sets_per_point * len(exp.sweep.points) <= 10_000


def test_default_generator_is_the_file_default_and_generate_default() -> None:
    """`rtsched sweep`, a file that leaves generator keys out and `rtsched generate` share defaults."""
    import inspect

    from rtsched.commands.generate import generate_command
    from rtsched.sweep.experiment import GENERATOR_DEFAULTS

    generator = dict(default_experiment().generator)
    assert {k: generator[k] for k in GENERATOR_DEFAULTS} == GENERATOR_DEFAULTS
    bare = parse_experiment(
        "[generator]\nn = 4\n[sweep]\nvariable = 'U/m'\npoints = [0.5]\nsets_per_point = 2\n[platform]\nm = 2\n",
        check_generator=False,
    )
    assert {k: dict(bare.generator)[k] for k in GENERATOR_DEFAULTS} == GENERATOR_DEFAULTS
    params = inspect.signature(generate_command).parameters
    for key, value in GENERATOR_DEFAULTS.items():
        assert params[key].default == value, key


def test_default_resolution_keeps_realized_utilization_within_one_percent() -> None:
    """Issue 19: at the default periods, C rounded to ticks moves the mean realized U/m less than 1 %
    from the target at every point (it was +61 % at U/m = 0.05 with periods of 10..1000 ticks)."""
    import numpy as np

    from rtsched.sweep.kinds import draw
    from rtsched.sweep.units import configurations, unit_seed

    exp = default_experiment()
    for config in configurations(exp):
        params = dict(config.generator)
        n = params.pop("n")
        rng = np.random.default_rng(unit_seed(exp.seed, config.index))
        _, total = draw(config.kind, rng, n=n, utilization=config.utilization, size=exp.sets_per_point, m=config.m, params=params)
        assert abs(total / exp.sets_per_point / config.utilization - 1) < 0.01, config.describe()


def test_print_default_cli(capsys: pytest.CaptureFixture[str]) -> None:
    from rtsched.cli import main

    assert main(["sweep", "--print-default"]) == 0
    assert capsys.readouterr().out == DEFAULT_EXPERIMENT_TOML


# ---------------------------------------------------------------------------------------------
# Statistics
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("k", "n", "low", "high"),
    [
        # Newcombe, "Two-sided confidence intervals for the single proportion", Statistics in
        # Medicine 17, 1998, Table I, method 3 (Wilson score interval without correction).
        pytest.param(81, 263, 0.2553, 0.3662, id="newcombe-81/263"),
        pytest.param(15, 148, 0.0624, 0.1605, id="newcombe-15/148"),
        pytest.param(0, 20, 0.0, 0.1611, id="newcombe-0/20"),
        pytest.param(1, 29, 0.0061, 0.1718, id="newcombe-1/29"),
        pytest.param(8, 10, 0.4902, 0.9433, id="hand-8/10"),
        pytest.param(10, 10, 0.7225, 1.0, id="all-accepted"),
    ],
)
def test_wilson_known_values(k: int, n: int, low: float, high: float) -> None:
    got = wilson_interval(k, n)
    assert got == pytest.approx((low, high), abs=5e-5)


def test_wilson_properties() -> None:
    assert wilson_interval(0, 0) == (0.0, 1.0)
    for n in (1, 7, 100, 10_000):
        for k in sorted({0, 1, n // 3, n // 2, n - 1, n}):
            low, high = wilson_interval(k, n)
            assert 0.0 <= low <= k / n <= high <= 1.0
            assert wilson_interval(n - k, n) == pytest.approx((1 - high, 1 - low), abs=1e-12)  # symmetric
    assert wilson_interval(50, 100, 0.99)[0] < wilson_interval(50, 100, 0.95)[0]
    with pytest.raises(ValueError, match="successes"):
        wilson_interval(3, 2)


def test_weighted_schedulability_formula() -> None:
    # W = (1·1 + 2·0.5 + 3·0) / (1 + 2 + 3) = 2/6.
    assert weighted_schedulability([1.0, 2.0, 3.0], [1.0, 0.5, 0.0]) == pytest.approx(1 / 3)
    assert weighted_schedulability([1.0, 2.0], [1.0, 1.0]) == 1.0
    assert math.isnan(weighted_schedulability([0.0], [1.0]))


# ---------------------------------------------------------------------------------------------
# Units and seeding
# ---------------------------------------------------------------------------------------------
def test_units_tile_every_point_and_are_seeded_by_index() -> None:
    from rtsched.generators import generate_batch

    exp = parse_experiment(tiny(sets=50, per_unit=20))
    the_plan = plan(exp)
    assert [u.index for u in the_plan.units] == list(range(len(the_plan.units)))
    assert len(the_plan.units) == 2 * 3 * 3  # 2 m values x 3 points x ceil(50 / 20) chunks
    per_config: dict[int, int] = {}
    for unit in the_plan.units:
        per_config[unit.configuration] = per_config.get(unit.configuration, 0) + unit.sets
    assert set(per_config.values()) == {50}
    spec = the_plan.units[4]
    first, second = run_unit(spec), run_unit(spec)
    assert first["accepted"] == second["accepted"] and first["utilization_sum"] == second["utilization_sum"]
    # Unit k draws exactly from SeedSequence(seed, spawn_key=(k,)).
    rng = np.random.default_rng(np.random.SeedSequence(11, spawn_key=(4,)))
    direct = generate_batch(
        rng, n=6, utilization=spec.utilization, size=spec.sets, utilizations="randfixedsum",
        periods="log-uniform:10:1000", deadlines="implicit",  # tiny()'s generator (not generate_batch's defaults)
    )  # fmt: skip
    assert first["utilization_sum"] == float(np.sum(direct.realized_utilization))
    assert first["accepted"]["gfb"] == int(np.count_nonzero(registry.get("gfb").decide(direct.batch, spec.m) == 1))
    assert unit_seed(11, 4).spawn_key == (4,)


def test_inline_equals_process_pool(inline_and_pooled) -> None:
    inline, pooled = inline_and_pooled(parse_experiment(tiny()))
    assert inline.sets == pooled.sets == 2 * 3 * 60
    assert set(inline.seconds) == {"generate", "gfb"}


def test_compile_step_and_units_share_one_pool(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A first run starts one pool: the workers that compile run the units (issue #46), with the same results."""
    from concurrent.futures import ProcessPoolExecutor

    from rtsched import warmup
    from rtsched.sweep import executors

    pools: list[int] = []

    class Counted(ProcessPoolExecutor):
        def __init__(self, *args: object, **kwargs: object) -> None:
            pools.append(1)
            super().__init__(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(executors, "ProcessPoolExecutor", Counted)
    monkeypatch.setattr("concurrent.futures.ProcessPoolExecutor", Counted)
    compiled: list[str] = []
    monkeypatch.setattr(warmup, "is_compiled", lambda name: False)  # as on a cold cache
    monkeypatch.setattr(warmup, "mark", compiled.append)
    experiment = parse_experiment(tiny())
    pooled = run(experiment, tmp_path / "pool", workers=2, progress="none", plot=False)
    assert sorted(compiled) == ["generate-taskset", "gfb"]
    assert pools == [1]
    inline = run(experiment, tmp_path / "inline", workers=0, progress="none", plot=False)
    assert inline.rows == pooled.rows


def test_results_table_and_weighted(tmp_path: Path) -> None:
    results = run(parse_experiment(tiny()), tmp_path / "out", workers=0, progress="none", plot=False)
    assert len(results.rows) == 2 * 3  # (point, analysis, m)
    for row in results.rows:
        assert row.sets == 60 and 0 <= row.accepted <= 60 and row.unknown == 0
        assert row.ci_low <= row.ratio <= row.ci_high
        assert row.target_utilization == pytest.approx(row.value * row.m)
    by_m = {w.value: w for w in results.weighted}
    assert set(by_m) == {2, 4}
    rows_m2 = [r for r in results.rows if r.m == 2]
    expect = weighted_schedulability([r.target_utilization for r in rows_m2], [r.ratio for r in rows_m2])
    assert by_m[2].weighted_schedulability == pytest.approx(expect, abs=1e-12)
    text = (tmp_path / "out" / "weighted.csv").read_text()
    assert text.splitlines()[0] == "variable,value,m,analysis,weighted_schedulability,points,sets"
    # The same tables as plain records (for pandas or any data tool): columns as in the CSV files.
    records = results.to_records()
    header = (tmp_path / "out" / "results.csv").read_text().splitlines()[0].split(",")
    assert [list(r) for r in records] == [header] * len(results.rows)
    assert [(r["m"], r["analysis"], r["accepted"]) for r in records] == [(r.m, r.analysis, r.accepted) for r in results.rows]
    assert [r["n"] for r in records] == [int(r.n) for r in results.rows]  # numbers as numbers (text for a range)
    assert [list(r) for r in results.weighted_records()] == [text.splitlines()[0].split(",")] * len(results.weighted)
    with pytest.raises(ValueError, match="results"):
        results.to_dataframe("other")


# ---------------------------------------------------------------------------------------------
# Store: resume, kill -9, refusal of a changed experiment
# ---------------------------------------------------------------------------------------------
def test_resume_skips_finished_units(tmp_path: Path) -> None:
    exp = parse_experiment(tiny())
    first = run(exp, tmp_path / "out", workers=0, progress="none", plot=False)
    (tmp_path / "out" / "units" / ".000003.json.999.tmp").write_text("{torn")  # a killed writer's leftover
    second = run(exp, tmp_path / "out", workers=0, progress="none", plot=False)
    assert first.units_run == first.units_total and second.units_run == 0
    assert second.rows == first.rows
    assert not list((tmp_path / "out" / "units").glob(".*.tmp"))


def test_changed_experiment_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "out"
    run(parse_experiment(tiny()), out, workers=0, progress="none", plot=False)
    with pytest.raises(InputError) as info:
        run(parse_experiment(tiny(sets=80)), out, workers=0, progress="none", plot=False)
    message = str(info.value)
    assert "different experiment" in message and "sweep.sets_per_point" in message and "--out" in message
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("mine")
    with pytest.raises(InputError, match="not empty"):
        run(parse_experiment(tiny()), tmp_path / "other", workers=0, progress="none", plot=False)


def _wait_for_units(process: subprocess.Popen[bytes], units: Path, count: int) -> None:
    """Wait until a running sweep has committed ``count`` unit files (or ended, or 180 s passed)."""
    deadline = time.monotonic() + 180  # generous: the machine may be shared
    while time.monotonic() < deadline and process.poll() is None:
        if units.is_dir() and sum(1 for p in units.iterdir() if p.suffix == ".json") >= count:
            return
        time.sleep(0.005)


def test_kill_and_resume_equals_uninterrupted_run(tmp_path: Path) -> None:
    text = tiny(m="4", n="8", points="[0.1, 0.3, 0.5, 0.7]", sets=500, per_unit=10)  # 200 units
    path = write(tmp_path, text)
    out = tmp_path / "killed"
    command = [sys.executable, "-m", "rtsched.cli", "sweep", str(path), "--out", str(out), "--workers", "0", "-q", "--no-plot"]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    units = out / "units"
    try:
        _wait_for_units(process, units, 10)
        assert process.poll() is None, process.stderr.read().decode() if process.stderr else "sweep ended early"
        process.send_signal(signal.SIGKILL)
    finally:
        process.wait(timeout=30)
        if process.stderr:
            process.stderr.close()
    assert process.returncode == -signal.SIGKILL
    done = sum(1 for p in units.iterdir() if p.suffix == ".json" and not p.name.startswith("."))
    assert 10 <= done < 200, done
    resumed = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    assert resumed.returncode == 0, resumed.stderr
    clean = run(load_experiment(path), tmp_path / "clean", workers=0, progress="none", plot=False)
    assert clean.units_total == 200
    assert (out / "results.csv").read_bytes() == (tmp_path / "clean" / "results.csv").read_bytes()


def test_after_the_first_ctrl_c_the_command_line_ignores_the_next(monkeypatch) -> None:
    """The command line's own ``main()`` (no argv, main thread): the first SIGINT ends the command
    with 130, and every later one is ignored from then on, however early it comes (session 26: CI
    saw a second Ctrl-C land in an atexit finalizer after click had turned the first into Abort);
    a run without Ctrl-C leaves the handler as it was; ``main([...])`` does not touch it."""
    import threading

    from rtsched import cli

    assert threading.current_thread() is threading.main_thread()
    seen = []

    def interrupted(**_: object) -> int:
        try:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(5)  # the first Ctrl-C ends this at once
        finally:
            seen.append(signal.getsignal(signal.SIGINT))
            os.kill(os.getpid(), signal.SIGINT)  # a second Ctrl-C while the first unwinds
        return 0

    before = signal.getsignal(signal.SIGINT)
    monkeypatch.setattr(sys, "argv", ["rtsched", "list"])
    monkeypatch.setattr(cli, "_register_commands", lambda: None)
    monkeypatch.setattr(cli, "app", interrupted)
    try:
        assert cli.main() == 130
        assert seen == [signal.SIG_IGN]
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, before)
    monkeypatch.setattr(cli, "app", lambda **_: 0)
    assert cli.main() == 0
    assert signal.getsignal(signal.SIGINT) is before
    monkeypatch.setattr(cli, "app", interrupted)
    assert cli.main(["list"]) == 130  # main([...]) keeps the caller's handler (a KeyboardInterrupt each)
    assert seen[-1] is before and signal.getsignal(signal.SIGINT) is before


def test_two_ctrl_c_stop_a_pool_sweep_and_it_resumes(tmp_path: Path) -> None:
    """Ctrl-C twice in quick succession (a terminal signals the whole process group): the sweep and
    its pool workers end within seconds (it once left them all idle for good), and a rerun
    resumes to the uninterrupted results."""
    text = tiny(m="4", n="8", points="[0.1, 0.3, 0.5, 0.7]", sets=500, per_unit=10)  # 200 units
    path = write(tmp_path, text)
    out = tmp_path / "interrupted"
    command = [sys.executable, "-m", "rtsched.cli", "sweep", str(path), "--out", str(out), "--workers", "2", "-q", "--no-plot"]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    units = out / "units"
    try:
        _wait_for_units(process, units, 4)
        assert process.poll() is None, "sweep ended early"
        os.killpg(process.pid, signal.SIGINT)
        time.sleep(0.02)
        os.killpg(process.pid, signal.SIGINT)
        # Returns once every process holding the pipe (the workers too) has ended.
        _, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    assert process.returncode in (130, -signal.SIGINT), err.decode()[-2000:]
    assert b"Exception ignored" not in err, err.decode()[-2000:]
    resumed = subprocess.run(command, capture_output=True, text=True, timeout=180, check=False)
    assert resumed.returncode == 0, resumed.stderr
    run(load_experiment(path), tmp_path / "clean", workers=0, progress="none", plot=False)
    assert (out / "results.csv").read_bytes() == (tmp_path / "clean" / "results.csv").read_bytes()


# ---------------------------------------------------------------------------------------------
# Executors
# ---------------------------------------------------------------------------------------------
def test_executor_choice() -> None:
    assert choose_executor(None, 0, None) == ("inline", 0)
    assert choose_executor(None, 3, None) == ("pool", 3)
    assert choose_executor(None, None, None) == ("pool", os.cpu_count() or 1)
    assert choose_executor(None, None, "tcp://127.0.0.1:1")[0] == "dask"
    with pytest.raises(InputError, match="scheduler"):
        choose_executor("dask", None, None)
    with pytest.raises(InputError, match="workers"):
        choose_executor(None, -1, None)


def test_dask_missing_extra_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed -> ImportError
    with pytest.raises(InputError, match=r"rtsched\[dask\]"):
        run(parse_experiment(tiny()), tmp_path / "out", scheduler="tcp://127.0.0.1:9", progress="none", plot=False)


def test_dask_local_cluster_equals_local_run(tmp_path: Path) -> None:
    distributed = pytest.importorskip("distributed")
    exp = parse_experiment(tiny())
    local = run(exp, tmp_path / "local", workers=0, progress="none", plot=False)
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None,
        # No dashboard, but the scheduler still serves HTTP (health, metrics) on 8787 unless told:
        # a free port, else a second cluster (pytest -n 2, another user) fails on "Port 8787 is in use".
        scheduler_kwargs={"dashboard_address": ":0"},
    ) as cluster:  # fmt: skip
        remote = run(exp, tmp_path / "dask", scheduler=cluster.scheduler_address, progress="none", plot=False)
    assert remote.rows == local.rows
    assert (tmp_path / "local" / "results.csv").read_bytes() == (tmp_path / "dask" / "results.csv").read_bytes()


# ---------------------------------------------------------------------------------------------
# Outputs: plots, progress, CLI
# ---------------------------------------------------------------------------------------------
def test_plots_are_written(tmp_path: Path) -> None:
    out = tmp_path / "out"
    results = run(parse_experiment(tiny()), out, workers=0, progress="none", plot=True)
    for stem in ("acceptance", "weighted"):
        for fmt in ("png", "pdf", "svg"):
            path = out / f"{stem}.{fmt}"
            assert path.is_file() and path.stat().st_size > 1000, path
    assert results.files["acceptance.png"] == out / "acceptance.png"
    svg = (out / "acceptance.svg").read_text()
    assert "randfixedsum" in svg and "log-uniform:10:1000" in svg and "60 sets per point" in svg
    # `rtsched plot DIR` redraws them.
    from rtsched.cli import main

    (out / "acceptance.pdf").unlink()
    assert main(["plot", str(out), "--formats", "pdf"]) == 0
    assert (out / "acceptance.pdf").stat().st_size > 1000


def test_plot_legends_in_words_grouped_by_policy_with_a_dashed_upper_bound(tmp_path: Path) -> None:
    from rtsched.sweep.plot import legend_label

    assert legend_label("rta")[0] == "G-EDF · Response-time analysis (Bertogna–Cirinei)"
    assert legend_label("p:wf:density:qpa")[0].startswith("P-EDF · wf, density order, qpa admission")
    assert legend_label("gedf-upper")[1:] == ("global-edf", "necessary")
    assert legend_label("no-such-analysis") == ("no-such-analysis", "", "sufficient")
    text = tiny(m="4", sets=20).replace('names = ["gfb"]', 'names = ["gfb", "p-edf", "gedf-upper"]')
    out = tmp_path / "out"
    run(parse_experiment(text), out, workers=0, progress="none", plot=True)
    svg = (out / "acceptance.svg").read_text()
    for words in ("Global EDF", "Partitioned EDF", "G-EDF · GFB density bound", "upper bound of G-EDF schedulability", "Time resolution"):
        assert words in svg, words
    assert "stroke-dasharray" in svg  # the upper bound is dashed


def test_plot_switches_to_realized_utilization_when_rounding_moves_it(tmp_path: Path) -> None:
    from rtsched.sweep.plot import realized_axis

    row = {"target_utilization": "0.2", "mean_utilization": "0.3266", "m": "4", "value": "0.05"}
    assert realized_axis([row], "U/m")[0] is True
    assert realized_axis([{**row, "mean_utilization": "0.20002"}], "U/m")[0] is False
    assert realized_axis([row], "n") == (False, 0.0)
    coarse = tiny(m="4", points="[0.05, 0.5]", sets=20).replace('"log-uniform:10:1000"', '"log-uniform:3:30"')
    out = tmp_path / "coarse"
    run(parse_experiment(coarse), out, workers=0, progress="none", plot=True)
    svg = (out / "acceptance.svg").read_text()
    assert "Mean realized U/m" in svg and "x-axis is the mean realized U/m" in svg


def test_plot_of_a_directory_without_results(tmp_path: Path) -> None:
    from rtsched.sweep import plot_directory

    with pytest.raises(InputError, match="results.csv"):
        plot_directory(tmp_path)


def test_progress_lines_when_not_a_terminal(tmp_path: Path) -> None:
    stream = io.StringIO()
    run(parse_experiment(tiny(m="2", sets=20)), tmp_path / "out", workers=0, progress="auto", plot=False, stream=stream)
    lines = stream.getvalue().splitlines()
    assert lines and lines[-1].startswith("rtsched sweep: 3/3 units (100%)")
    assert "left" in lines[-1]


def test_progress_bar_on_request(tmp_path: Path) -> None:
    stream = io.StringIO()
    run(parse_experiment(tiny(m="2", sets=20)), tmp_path / "out", workers=0, progress="bar", plot=False, stream=stream)
    assert "3/3" in stream.getvalue()  # tqdm's "units done / total"


def test_cli_sweep_writes_results(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from rtsched.cli import main

    path = write(tmp_path, tiny(m="2", sets=20))
    assert main(["sweep", str(path), "--out", str(tmp_path / "out"), "--workers", "0", "--no-plot"]) == 0
    assert "wrote" in capsys.readouterr().out
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert manifest["experiment"]["sweep"]["points"] == [0.2, 0.5, 0.8]
    assert (tmp_path / "out" / "experiment.toml").read_text() == path.read_text()
    assert main(["sweep", str(tmp_path / "missing.toml"), "--out", str(tmp_path / "x")]) == 2


def test_swept_generator_parameter_has_no_default_in_the_canonical_form() -> None:
    text = tiny(m="2").replace("[sweep]", '[sweep]\nby = "generator.umax"\nby_points = [0.5, 1.0]')
    exp = parse_experiment(text)
    assert "umax" not in exp.canonical()["generator"]  # swept, so no fixed value (not the default 1.0)
    again = parse_experiment(exp.to_toml())  # used to fail: "umax is a swept variable"
    assert again.fingerprint() == exp.fingerprint()


# ---------------------------------------------------------------------------------------------
# Work budgets ([analyses] budget): one name, part of the experiment's identity
# ---------------------------------------------------------------------------------------------
def test_budget_table_enters_the_fingerprint_and_the_units(tmp_path: Path) -> None:
    text = tiny(m="2", n="5", points="[0.9]", sets=6, per_unit=6).replace('names = ["gfb"]', 'names = ["gfb", "exact"]')
    plain = parse_experiment(text)
    tight = parse_experiment(text + "budget = {exact = 1}\n")
    assert tight.budgets == (("exact", 1),)
    assert tight.fingerprint() != plain.fingerprint()
    assert parse_experiment(tight.to_toml()).budgets == (("exact", 1),)
    unit = next(u for u in plan(tight).units if "exact" in u.analyses)
    assert unit.budgets == (("exact", 1),)
    out = run_unit(unit)
    # One state of work proves nothing schedulable: each set is unknown, or refuted by the exact
    # test's probes (papers/exact-search.md, "Probes"), never accepted.
    assert out["accepted"]["exact"] == 0 and out["unknown"]["exact"] >= 1


@pytest.mark.parametrize(
    ("budget", "message"),
    [
        ("{gfb = 10}", "gfb has no work budget"),
        ("{exact = 0}", "positive integer"),
        ("{bar = 10}", "not among the experiment's analyses"),
        ("7", "expected a table"),
    ],
)
def test_budget_table_errors_name_the_key(budget: str, message: str) -> None:
    text = tiny().replace('names = ["gfb"]', 'names = ["gfb", "exact"]') + f"budget = {budget}\n"
    with pytest.raises(InputError, match=message) as info:
        parse_experiment(text)
    assert info.value.field.startswith("analyses.budget")
