"""The stranger's machine: source-tree imports, the per-user kernel cache, first-run compile, CLI basics."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import rtsched
from rtsched import _bootstrap, warmup
from rtsched.cli import INTERNAL_ERROR, main

ROOT = Path(__file__).resolve().parents[1]


def run_cli(capsys, *args):
    status = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return status, out, err


# --- CLI basics -------------------------------------------------------------------------------


def test_version_flags(capsys):
    for flag in ("--version", "-V"):
        status, out, _ = run_cli(capsys, flag)
        assert status == 0
        assert out.strip() == f"rtsched {rtsched.__version__}"


def test_short_help_equals_long_help(capsys):
    _, short, _ = run_cli(capsys, "-h")
    _, long, _ = run_cli(capsys, "--help")
    assert short == long and "Commands:" in short
    _, sub, _ = run_cli(capsys, "check", "-h")
    assert "--processors" in sub


def test_command_list_is_not_truncated(capsys):
    _, out, _ = run_cli(capsys, "--help")
    listing = out.split("Commands:", 1)[1]
    assert "..." not in listing
    assert "write them to a" in listing and "file." in listing  # generate's whole first line


def test_python_dash_m():
    done = subprocess.run([sys.executable, "-m", "rtsched", "--version"], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0 and done.stdout.strip() == f"rtsched {rtsched.__version__}"


def test_internal_error_is_not_a_verdict(capsys, monkeypatch):
    """A bug gives status 3 with a traceback, never 1 ("not proven schedulable")."""
    import rtsched.commands.check as check_command

    def broken(*args, **kwargs):
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr(check_command, "check_many", broken)
    status, _, err = run_cli(capsys, "check", ROOT / "examples" / "tasksets" / "demo.yaml", "-m", 2)
    assert status == INTERNAL_ERROR == 3
    assert "ZeroDivisionError: a bug" in err and "internal error" in err


def test_license_file_matches_pyproject():
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert meta["license"]["text"] == "MIT"
    assert (ROOT / "LICENSE").read_text().startswith("MIT License")


# --- source-tree imports ----------------------------------------------------------------------


def test_subpackages_come_from_the_same_tree_as_rtsched():
    import rtsched.analyses
    import rtsched.generators

    package = Path(rtsched.__file__).parent
    root = _bootstrap.source_root()
    if root is None:  # an installed wheel: the subpackages are inside the package
        assert Path(rtsched.analyses.__file__).parent == package / "analyses"
    else:
        assert root == package.parent
        assert Path(rtsched.analyses.__file__).parent == root / "analyses"
        assert Path(rtsched.generators.__file__).parent == root / "generators"


def test_source_tree_finder_maps_only_the_two_subpackages(tmp_path):
    for name in ("analyses", "generators", "tests"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "__init__.py").write_text("")
    finder = _bootstrap.SourceTreeFinder(tmp_path)
    spec = finder.find_spec("rtsched.analyses")
    assert spec is not None and spec.origin == str(tmp_path / "analyses" / "__init__.py")
    assert spec.submodule_search_locations == [str(tmp_path / "analyses")]
    assert finder.find_spec("rtsched.generators").origin == str(tmp_path / "generators" / "__init__.py")
    assert finder.find_spec("rtsched.tests") is None
    assert finder.find_spec("other.analyses") is None
    assert finder.find_spec("rtsched.analyses.global_edf.gfb") is None  # found through the package's __path__


def test_import_from_the_clone_root_without_install():
    """Python started in the clone's folder, with the clone's rtsched/ first on sys.path."""
    code = "import rtsched, rtsched.analyses, rtsched.generators; print(rtsched.analyses.__file__)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(ROOT / "analyses" / "__init__.py")


# --- the per-user kernel cache ----------------------------------------------------------------


@pytest.mark.skipif(sys.platform in ("win32", "darwin"), reason="the XDG convention is Linux's")
def test_cache_dir_precedence(monkeypatch, tmp_path):
    monkeypatch.setenv("RTSCHED_CACHE_DIR", str(tmp_path / "explicit"))
    assert _bootstrap.cache_dir() == tmp_path / "explicit"
    monkeypatch.delenv("RTSCHED_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert _bootstrap.cache_dir() == tmp_path / "xdg" / "rtsched"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/path")  # ignored, as the XDG spec says
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert _bootstrap.cache_dir() == tmp_path / "home" / ".cache" / "rtsched"


def test_kernel_digest_follows_kernel_sources_only(monkeypatch, tmp_path):
    (tmp_path / "pkg").mkdir()
    kernel = tmp_path / "pkg" / "k.py"
    other = tmp_path / "pkg" / "cli.py"
    kernel.write_text("from numba import njit\n@njit\ndef f(x):\n    return x\n")
    other.write_text("print('hello')\n")
    monkeypatch.setattr(_bootstrap, "_package_dirs", lambda: [tmp_path / "pkg"])
    first = _bootstrap._kernel_digest()
    other.write_text("print('changed')\n")
    assert _bootstrap._kernel_digest() == first  # editing a file without kernels keeps the cache
    kernel.write_text("from numba import njit\n@njit\ndef f(x):\n    return x + 1\n")
    assert _bootstrap._kernel_digest() != first  # editing any kernel (or helper) starts a new one
    # A module that writes its kernels with rtsched's decorators (no "njit" in its text) counts too:
    # a kernel elsewhere may call its helpers, and Numba only checks a kernel's own file.
    house = tmp_path / "pkg" / "house.py"
    house.write_text("from rtsched.kernels import kernel\n\n\n@kernel(inline='always')\ndef g(x):\n    return x\n")
    second = _bootstrap._kernel_digest()
    house.write_text("from rtsched.kernels import kernel\n\n\n@kernel(inline='always')\ndef g(x):\n    return -x\n")
    assert _bootstrap._kernel_digest() != second


KERNEL_RUN = (
    "import rtsched; from rtsched import analyses, TaskSetBatch, _bootstrap; "
    "b = TaskSetBatch.from_tasksets([rtsched.TaskSet.from_tasks([(1, 2, 4), (2, 5, 6)])]); "
    "assert analyses.get('gfb').batch(b, 2).tolist() == [True]; print(_bootstrap._installed)"
)


def _env(**extra):
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "RTSCHED_CACHE_DIR")}
    env.update(extra)
    return env


def test_kernels_are_cached_in_the_rtsched_cache_folder(tmp_path):
    done = subprocess.run(
        [sys.executable, "-c", KERNEL_RUN],
        capture_output=True,
        text=True,
        env=_env(RTSCHED_CACHE_DIR=str(tmp_path)),
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    folder = Path(done.stdout.strip())
    assert folder.parent == tmp_path / "numba"
    assert any(p.name.startswith("gfb.") and p.suffix == ".nbi" for p in folder.rglob("*.nbi"))
    package = Path(rtsched.__file__).parent
    assert not [p for p in package.parent.rglob("gfb.*.nbi")], "a kernel was cached beside the sources"


def test_a_sets_kernel_driver_loads_from_the_cache_in_a_new_process(tmp_path):
    """``sets_kernel`` drivers and their serial chunk loops are cached like any kernel (a closure
    would recompile each process). A small batch runs the chunk loop (``rtsched.kernels.serial``),
    so the driver is called here directly."""
    run = KERNEL_RUN + (
        "; import numpy as np; from rtsched.analyses.global_edf import gfb; out = np.empty(1, dtype=np.int8); "
        "gfb._gfb_kernel(b.C, b.D, b.T, b.offsets, 2, out); chunk = gfb._gfb_kernel.py_func.__globals__['_chunk']; "
        "print(sum(gfb._gfb_kernel.stats.cache_hits.values()), sum(chunk.stats.cache_hits.values()))"
    )
    hits = []
    for _ in range(2):
        done = subprocess.run(
            [sys.executable, "-c", run],
            capture_output=True,
            text=True,
            env=_env(RTSCHED_CACHE_DIR=str(tmp_path)),
            cwd=tmp_path,
        )
        assert done.returncode == 0, done.stderr
        hits.append([int(x) for x in done.stdout.split()[-2:]])
    assert hits == [[0, 0], [1, 1]]
    assert list(tmp_path.rglob("kernels.rtsched.analyses.global_edf.gfb._gfb_one.sets-*.nbi"))
    assert list(tmp_path.rglob("kernels.rtsched.analyses.global_edf.gfb._gfb_one.chunk-*.nbi"))


def test_numba_cache_dir_still_wins(tmp_path):
    done = subprocess.run(
        [sys.executable, "-c", KERNEL_RUN],
        capture_output=True,
        text=True,
        env=_env(NUMBA_CACHE_DIR=str(tmp_path / "numba"), RTSCHED_CACHE_DIR=str(tmp_path / "ours")),
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "None"
    assert list((tmp_path / "numba").rglob("gfb.*.nbi"))
    assert not (tmp_path / "ours").exists()


def test_cache_command_shows_and_clears(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("RTSCHED_CACHE_DIR", str(tmp_path / "c"))
    (tmp_path / "c" / "numba").mkdir(parents=True)
    (tmp_path / "c" / "numba" / "x.nbc").write_bytes(b"0" * 2048)
    status, out, _ = run_cli(capsys, "cache")
    assert status == 0 and f"cache folder: {tmp_path / 'c'}" in out
    status, out, _ = run_cli(capsys, "cache", "--clear")
    assert status == 0 and "removed" in out and not (tmp_path / "c").exists()


def test_cache_clear_then_compile(capsys, monkeypatch, tmp_path):
    """``--clear --compile`` clears, then compiles (``--compile`` was ignored after a clear)."""
    from rtsched.commands import cache

    monkeypatch.setenv("RTSCHED_CACHE_DIR", str(tmp_path / "c"))
    (tmp_path / "c" / "numba").mkdir(parents=True)
    compiled = []
    monkeypatch.setattr(cache, "_compile_all", lambda: compiled.append(True))
    status, out, _ = run_cli(capsys, "cache", "--clear", "--compile")
    assert status == 0 and "removed" in out and compiled == [True]


def test_every_analysis_has_a_probe_it_accepts():
    """``rtsched cache --compile`` runs every analysis on a probe that fits its model (it once
    stopped at rm-us, which needs implicit deadlines, with a bad-input error)."""
    from rtsched import registry
    from rtsched.commands.cache import probe_for

    for entry in registry.all_entries():
        batch, platform = probe_for(entry.name)
        assert entry.supports(platform, batch) is None, entry.name
        assert len(batch) >= 2


def test_the_probe_reaches_the_gedf_upper_simulation_kernel():
    """Some probe set is decided by gedf-upper's simulation kernel, not by ``exact`` (whose default
    list keeps small sets) nor by U > m: else ``cache --compile`` would leave that kernel to the
    first real set."""
    from rtsched.analyses.global_edf import gedf_upper

    batch = warmup.probe_batch()
    assert any(gedf_upper._exact_verdict(batch[s], 2) is None for s in range(batch.n_sets))
    assert all(batch[s].utilization <= 2 for s in range(batch.n_sets))
    implicit = warmup.probe_batch("implicit")
    assert all((implicit[s].D == implicit[s].T).all() for s in range(implicit.n_sets))
    with pytest.raises(ValueError, match="constrained"):
        warmup.probe_batch("arbitrary")


@pytest.mark.slow
def test_cache_compile_runs_every_analysis():
    """``rtsched cache --compile`` end to end (every analysis on its probe, in a pool of processes),
    on the session's kernel cache: mostly loads once the suite has compiled the kernels."""
    from rtsched import registry

    command = [sys.executable, "-m", "rtsched", "cache", "--compile"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=900, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    assert f"compiled {len(registry.all_entries())} analyses" in done.stdout


# --- first run: compile step with progress ----------------------------------------------------


@pytest.fixture
def fresh_markers(monkeypatch, tmp_path):
    """Markers and the remembered compile ratio in a temporary folder; calibration says 1.0."""
    monkeypatch.setattr(warmup, "_marker_dir", lambda: tmp_path / "compiled")
    monkeypatch.setattr(warmup, "_ratio_file", lambda: tmp_path / "compile-ratio")
    monkeypatch.setattr(warmup, "calibrate", lambda: 1.0)
    return tmp_path / "compiled"


def test_compile_step_announces_then_remembers(fresh_markers):
    ran = []
    stream = io.StringIO()
    warmup.compile_analyses(["gfb", "ffdbf"], ran.append, progress="log", stream=stream)
    lines = stream.getvalue().splitlines()
    expected = round(warmup.COMPILE_SECONDS["gfb"] + warmup.COMPILE_SECONDS["ffdbf"])
    assert lines[0] == f"rtsched: compiling analyses (first run only, about {expected} s on this machine): gfb, ffdbf"
    # Longest compilation first (so that a pool of processes finishes together).
    assert [line.split(" (")[0] for line in lines[1:]] == ["rtsched: compiled ffdbf", "rtsched: compiled gfb"]
    assert ran == ["ffdbf", "gfb"]
    assert warmup.is_compiled("gfb") and warmup.is_compiled("ffdbf")
    stream = io.StringIO()
    warmup.compile_analyses(["gfb", "ffdbf", "bak"], ran.append, progress="log", stream=stream)
    assert ran == ["ffdbf", "gfb", "bak"]  # only what was not compiled yet
    assert f"about {warmup.COMPILE_SECONDS['bak']:.0f} s on this machine): bak" in stream.getvalue()  # its own alone
    assert not (fresh_markers.parent / "compile-ratio").exists()  # instant "compiles" teach nothing about speed


def test_the_estimate_is_this_machines(fresh_markers, monkeypatch):
    """The first line scales the table by this machine's ratio; each step says elapsed and left,
    re-estimated from what compiled so far; the observed ratio is remembered for the next run."""
    ratio_file = fresh_markers.parent / "compile-ratio"
    ratio_file.write_text("2.5\n")  # a previous compilation here took 2.5 s per table second
    taken = {"ffdbf": 3 * warmup.COMPILE_SECONDS["ffdbf"], "gfb": 3 * warmup.COMPILE_SECONDS["gfb"]}
    monkeypatch.setattr(warmup, "_timed_group", lambda run_one, group: [taken[name] for name in group])
    stream = io.StringIO()
    warmup.compile_analyses(["gfb", "ffdbf"], len, progress="log", stream=stream)
    lines = stream.getvalue().splitlines()
    table = warmup.COMPILE_SECONDS["gfb"] + warmup.COMPILE_SECONDS["ffdbf"]
    assert f"about {2.5 * table:.0f} s on this machine" in lines[0]
    # After ffdbf took 3x its table time, gfb's remaining time is 3x its table time.
    assert lines[1].startswith(f"rtsched: compiled ffdbf ({taken['ffdbf']:.1f} s; ")
    assert lines[1].endswith(f"elapsed, about {3 * warmup.COMPILE_SECONDS['gfb']:.0f} s left)")
    assert lines[2].endswith("elapsed, about 0 s left)")
    assert float(ratio_file.read_text()) == pytest.approx(3.0, abs=1e-3)


def test_time_left_counts_shared_kernels_once():
    """The p-edf family compiles one kernel: its members neither inflate the table nor stay "left"."""
    p_edf = warmup.COMPILE_SECONDS["p-edf"]
    ratio, left = warmup.time_left(
        {"p-edf": 2 * p_edf, "baruah-fisher": 0.0}, ["p-edf", "baruah-fisher", "p:ff:density:qpa", "gfb"], 1, 1.0
    )
    assert ratio == pytest.approx(2.0)
    assert left == pytest.approx(2 * warmup.COMPILE_SECONDS["gfb"])
    assert warmup.time_left({}, ["gfb"], 1, 4.0) == (4.0, 4 * warmup.COMPILE_SECONDS["gfb"])  # the prior until then
    assert warmup.time_left({"gfb": 1e6}, ["gfb"], 1, 1.0)[0] == warmup.RATIO_BOUNDS[1]  # one odd sample is bounded


def test_calibration_scales_by_the_reference_kernel(monkeypatch, tmp_path):
    times = iter([5.0, 2 * warmup.CALIBRATION_SECONDS])  # the first compile pays Numba's set-up: ignored
    monkeypatch.setattr(warmup, "_compile_calibration_kernel", lambda: next(times))
    assert warmup.calibrate() == pytest.approx(2.0)
    monkeypatch.setattr(warmup, "_ratio_file", lambda: tmp_path / "absent")
    monkeypatch.setattr(warmup, "calibrate", lambda: 7.0)
    assert warmup.machine_ratio() == 7.0  # no remembered ratio: calibrate
    (tmp_path / "absent").write_text("not a number")
    assert warmup.machine_ratio() == 7.0


def test_the_calibration_kernel_compiles_and_runs():
    assert 0 < warmup._compile_calibration_kernel() < 60


def test_compile_step_in_a_pool_of_processes(fresh_markers):
    """Analyses compile in parallel processes; those sharing kernels (p-edf family) in one."""
    stream = io.StringIO()
    names = ["gfb", "p-edf", "baruah-fisher", "p:ff:density:qpa"]
    assert warmup._groups(names) == [["p-edf", "baruah-fisher", "p:ff:density:qpa"], ["gfb"]]
    expected = round(max(warmup.COMPILE_SECONDS["p-edf"], warmup.COMPILE_SECONDS["gfb"]))
    warmup.compile_analyses(names, len, workers=2, progress="log", stream=stream)  # len: a picklable stand-in
    lines = stream.getvalue().splitlines()
    assert lines[0].startswith(f"rtsched: compiling analyses (first run only, about {expected} s on this machine)")
    assert sorted(line.split(" (")[0].removeprefix("rtsched: compiled ") for line in lines[1:]) == sorted(names)
    assert all(warmup.is_compiled(name) for name in names)


def test_compile_step_is_silent_when_warm_and_quiet_when_asked(fresh_markers):
    ran = []
    stream = io.StringIO()
    warmup.compile_analyses(["gfb"], ran.append, progress="none", stream=stream)
    assert ran == ["gfb"] and stream.getvalue() == ""
    warmup.compile_analyses(["gfb"], ran.append, progress="log", stream=stream)
    assert ran == ["gfb"] and stream.getvalue() == ""


def test_a_failing_compile_is_not_remembered(fresh_markers):
    def boom(name):
        raise RuntimeError("compilation failed")

    with pytest.raises(RuntimeError):
        warmup.compile_analyses(["gfb"], boom, progress="none")
    assert not warmup.is_compiled("gfb")


def test_sweep_compiles_before_its_units_and_says_so(fresh_markers, tmp_path):
    from rtsched.sweep import parse_experiment, run

    experiment = parse_experiment(
        {
            "platform": {"m": 2},
            "generator": {"n": 4},
            "sweep": {"variable": "U/m", "points": [0.3, 0.6], "sets_per_point": 20, "sets_per_unit": 10},
            "analyses": {"names": ["gfb", "bak"]},
            "seed": 5,
        }
    )
    stream = io.StringIO()
    run(experiment, tmp_path / "out", workers=0, progress="log", plot=False, stream=stream)
    lines = stream.getvalue().splitlines()
    assert lines[0].startswith("rtsched: compiling analyses (first run only, about ")
    assert lines[0].endswith("generate-taskset, gfb, bak")
    compiled = [i for i, line in enumerate(lines) if line.startswith("rtsched: compiled ")]
    units = [i for i, line in enumerate(lines) if line.startswith("rtsched sweep: ")]
    assert len(compiled) == 3 and units and max(compiled) < min(units)
    stream = io.StringIO()
    run(experiment, tmp_path / "again", workers=0, progress="log", plot=False, stream=stream)
    assert "compiling" not in stream.getvalue()
