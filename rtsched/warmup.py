"""Compile analyses' Numba kernels up front, one analysis at a time, with visible progress.

Numba compiles a kernel the first time it is called and caches the machine code per user (see
``rtsched/_bootstrap.py``); later runs load it in a fraction of a second. The first run of a
sweep therefore spends most of its time compiling. Rather than leave a progress bar at 0 % for
that time, :func:`compile_analyses` runs each analysis once on a tiny input *before* the real
work, in the parent process, and says so: ``compiling analyses (first run only, about N s)``, then
one step per analysis. Pool workers then load the cached code instead of compiling the same
kernels in parallel.

Whether an analysis is compiled is remembered by a marker file next to the cached kernels (so
clearing the cache clears the markers). The "about N s" figure is measured on the user's machine
(issue #46: a fixed table said "about 34 s" to a user who then waited 216 s on a loaded machine):
the compile times the analyses declare (``Analysis(compile_seconds=...)``, measured by
``benchmarks/bench_cold_start.py`` on a 2-core machine; :data:`COMPILE_SECONDS` reads them by name)
times this machine's speed ratio (:func:`machine_ratio`): the ratio the last compilation on this
machine observed, else a short calibration (:func:`calibrate`: one small kernel compiled now,
against :data:`CALIBRATION_SECONDS`). While compiling, each step line says the time elapsed and
the time left, re-estimated from the analyses compiled so far (:func:`time_left`).
"""

from __future__ import annotations

import os
import re
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from rtsched import registry
from rtsched.workloads import probe_batch, probe_workloads

if TYPE_CHECKING:
    from concurrent.futures import Executor

__all__ = [
    "COLD_MAX_SETS",
    "COLD_MAX_TASKS",
    "LOAD_SECONDS",
    "CALIBRATION_SECONDS",
    "COMPILE_SECONDS",
    "GENERATOR_COMPILE_SECONDS",
    "calibrate",
    "compile_analyses",
    "compile_seconds",
    "machine_ratio",
    "time_left",
    "is_compiled",
    "mark",
    "probe_batch",
    "probe_workloads",
]

#: Seconds to compile the generators' kernels of a sweep's generator kind (``generate-<kind>``).
GENERATOR_COMPILE_SECONDS: dict[str, float] = {"generate-taskset": 0.1}


class _CompileSeconds(Mapping[str, float]):
    """Seconds to compile each analysis's kernels from a cold cache, by name (read-only).

    An analysis declares its own (``Analysis(compile_seconds=...)``); one that shares another's
    kernels (``shares_kernels_with=``) counts that one's; one that declares none counts
    :data:`rtsched.registry.DEFAULT_COMPILE_SECONDS`. Generators: :data:`GENERATOR_COMPILE_SECONDS`.
    """

    def __getitem__(self, name: str) -> float:
        if name in GENERATOR_COMPILE_SECONDS:
            return GENERATOR_COMPILE_SECONDS[name]
        if name.startswith("generate-"):
            return registry.DEFAULT_COMPILE_SECONDS
        return registry.get(name).kernels_compile_seconds

    def __iter__(self) -> Iterator[str]:
        yield from GENERATOR_COMPILE_SECONDS
        yield from registry.names()

    def __len__(self) -> int:
        return len(GENERATOR_COMPILE_SECONDS) + len(registry.names())


#: Seconds to compile each analysis's kernels from a cold cache, measured on a 2-core machine
#: (``benchmarks/bench_cold_start.py``), as the analyses declare them.
COMPILE_SECONDS: Mapping[str, float] = _CompileSeconds()
#: While an analysis's kernels are not compiled, ``rtsched.check`` decides at most this many sets
#: of at most this many tasks with the analysis's exact reference instead (:mod:`rtsched.check`).
COLD_MAX_TASKS = 16
COLD_MAX_SETS = 32
#: Seconds to load one analysis's compiled kernels from the cache into a process: about 0.09 s
#: measured on a 2-core machine (issue #45: ``rtsched check`` of one 5-task set spent 2.2 of its
#: 2.65 s loading 25 cached kernels whose references decide it in under 1 ms each). Small inputs
#: are decided by the references until this process has spent this long in one (ski rental).
LOAD_SECONDS = 0.1


def _kernels_of(name: str) -> str:
    """The analysis whose compile time ``name``'s first run pays (``shares_kernels_with``)."""
    if name.startswith("generate-"):
        return name
    return registry.get(name).shares_kernels_with or name


def _marker_dir() -> Path | None:
    """Where compiled-markers live: beside rtsched's kernels, or in ``NUMBA_CACHE_DIR``."""
    from numba.core import config

    from rtsched import _bootstrap

    folder = _bootstrap.install_numba_cache()
    cache_dir = getattr(config, "CACHE_DIR", None)
    if folder is None and cache_dir:
        folder = Path(cache_dir) / "rtsched-compiled" / _bootstrap.kernel_cache_dir().name
    return None if folder is None else folder / "compiled"


def _marker(name: str) -> Path | None:
    folder = _marker_dir()
    return None if folder is None else folder / re.sub(r"[^A-Za-z0-9_.-]", "_", name)


def is_compiled(name: str) -> bool:
    """True if the kernels of analysis ``name`` (or ``"generate"``) are in the cache already."""
    marker = _marker(name)
    return marker is not None and marker.exists()


def compile_seconds(name: str) -> float:
    """Seconds to compile analysis ``name``'s kernels from a cold cache (:data:`COMPILE_SECONDS`)."""
    return COMPILE_SECONDS[name]


def mark(name: str) -> None:
    """Remember that ``name``'s kernels are compiled (:func:`is_compiled`); a read-only cache only forgets."""
    marker = _marker(name)
    if marker is None:
        return
    try:
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.touch()
    except OSError:  # a read-only cache only loses the message, never the result
        pass


def _timed_group(run_one: Callable[[str], object], names: Sequence[str]) -> list[float]:
    """Run a group of analyses that share kernels, one after the other; seconds of each."""
    seconds = []
    for name in names:
        start = time.perf_counter()
        run_one(name)
        seconds.append(time.perf_counter() - start)
    return seconds


def _groups(names: Sequence[str]) -> list[list[str]]:
    """Analyses grouped by shared kernels, longest compilation first (for a balanced pool)."""
    groups: dict[str, list[str]] = {}
    for name in names:
        groups.setdefault(_kernels_of(name), []).append(name)
    return sorted(groups.values(), key=lambda g: -compile_seconds(g[0]))


def _estimate(names: Sequence[str], workers: int, ratio: float = 1.0) -> float:
    """Expected wall time: longest-first greedy assignment of the groups to ``workers`` processes.

    ``ratio``: this machine's compile time per second of :data:`COMPILE_SECONDS` (:func:`machine_ratio`).
    """
    loads = [0.0] * max(1, workers)
    for group in _groups(names):
        loads[loads.index(min(loads))] += compile_seconds(group[0])
    return ratio * max(loads)


#: Seconds to compile :func:`calibrate`'s kernel (after Numba's one-time set-up) on the machine
#: that measured :data:`COMPILE_SECONDS`. Derived on 2026-12-06 from its ratio to gfb's compile in
#: the same process (0.31–0.63 s against 4.0–4.6 s on a loaded 2-core machine; gfb's entry is 1.2 s).
CALIBRATION_SECONDS = 0.13
#: The calibrated ratio is kept within these bounds (a stalled or oddly fast probe is one sample).
RATIO_BOUNDS = (0.5, 20.0)

_CALIBRATION_SOURCE = """
def calibration(C, D, T, m):
    total = 0
    for i in range(C.shape[0]):
        jobs = D[i] // T[i]
        total += min(jobs * C[i] + min(C[i], max(D[i] - jobs * T[i], 0)), D[i])
    return total <= m * D[0]
"""


def _compile_calibration_kernel() -> float:
    """Wall seconds to compile (uncached) and run a small kernel shaped like the analyses' loops."""
    import numpy as np
    from numba import njit

    namespace: dict[str, object] = {}
    exec(_CALIBRATION_SOURCE, {"min": min, "max": max}, namespace)  # a new function: compiled anew
    fn: Any = njit(cache=False, nogil=True)(namespace["calibration"])
    tasks = np.array([1, 2, 3], dtype=np.int64)
    start = time.perf_counter()
    fn(tasks, tasks + 1, tasks + 2, 2)
    return time.perf_counter() - start


def _bounded(ratio: float) -> float:
    return min(max(ratio, RATIO_BOUNDS[0]), RATIO_BOUNDS[1])


def calibrate() -> float:
    """The compile speed of this machine now, as a ratio to :data:`COMPILE_SECONDS`' machine (1.0: as fast).

    Compiles a small kernel twice (the first pays Numba's one-time set-up, which the real
    compilation would pay anyway in this process) and divides the second time by
    :data:`CALIBRATION_SECONDS`. Load on the machine shows up in it, as it will in the wait.
    """
    _compile_calibration_kernel()
    return _bounded(_compile_calibration_kernel() / CALIBRATION_SECONDS)


def _ratio_file() -> Path:
    from rtsched import _bootstrap

    return _bootstrap.cache_dir() / "compile-ratio"


def machine_ratio() -> float:
    """Compile time on this machine per table second: as last observed, else :func:`calibrate`'s.

    :func:`compile_analyses` keeps the ratio its last compilation observed in the cache folder.
    """
    try:
        return _bounded(float(_ratio_file().read_text().strip()))
    except (OSError, ValueError):
        return calibrate()


def _remember_ratio(ratio: float) -> None:
    try:
        path = _ratio_file()
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"{ratio:.3f}\n")
    except OSError:  # a read-only cache only loses the estimate
        pass


def time_left(done: Mapping[str, float], todo: Sequence[str], workers: int, prior: float) -> tuple[float, float]:
    """(ratio, seconds left) after the analyses in ``done`` compiled in the seconds given.

    The ratio is this machine's observed compile time per table second so far (``prior``, the
    first estimate's ratio, until something compiled); the time left is the rest of ``todo``'s
    table estimate (``_estimate``) at that ratio.
    """
    owners = {_kernels_of(name) for name in done}  # analyses sharing kernels compile them once
    table = sum(compile_seconds(owner) for owner in owners)
    spent = sum(done.values())
    ratio = _bounded(spent / table) if table > 0 and spent > 0 else prior
    rest = [name for name in todo if _kernels_of(name) not in owners]
    return ratio, (_estimate(rest, workers, ratio) if rest else 0.0)


def compile_analyses(
    names: Sequence[str],
    run_one: Callable[[str], object],
    *,
    workers: int = 0,
    progress: str = "auto",
    stream: TextIO | None = None,
    force: bool = False,
    pool: Executor | None = None,
) -> float:
    """Run ``run_one(name)`` for each analysis whose kernels are not compiled yet; show progress.

    Parameters
    ----------
    names:
        Analysis names (``"generate-<kind>"`` stands for the generators' kernels).
    run_one:
        Runs one analysis on a tiny input (which compiles, or loads, its kernels). With
        ``workers > 1`` it must be picklable (a module-level function or a ``functools.partial``
        of one).
    workers:
        ``0`` or ``1``: compile in this process. ``N``: compile in ``N`` fresh processes at once,
        analyses that share kernels in the same process; they write the shared cache, which this
        process and later ones then load. LLVM compiles on one core, so this divides the wait by
        up to ``N``.
    progress:
        ``auto`` (a bar on a terminal, lines otherwise), ``bar``, ``log`` or ``none``.
    stream:
        Where the messages go (default: standard error).
    force:
        Run every analysis even if marked compiled (``rtsched cache --compile``).
    pool:
        Compile in this process pool (of ``workers`` processes, started with the ``spawn``
        method) instead of a new one, and leave it running: the sweep then runs its units in
        the processes that already hold the kernels they compiled.

    Returns
    -------
    float
        Seconds spent.
    """
    todo = [name for name in names if force or not is_compiled(name)]
    if not todo:
        return 0.0
    stream = sys.stderr if stream is None else stream
    if progress == "auto":
        ci = os.environ.get("CI", "").lower() not in ("", "0", "false")
        progress = "bar" if (stream.isatty() and not ci) else "log"
    groups = _groups(todo)
    workers = max(1, min(workers, len(groups)))
    cold = [name for name in todo if not is_compiled(name)]
    ratio = machine_ratio() if cold else 1.0
    if progress != "none" and cold:
        print(
            f"rtsched: compiling analyses (first run only, about {_estimate(cold, workers, ratio):.0f} s on this "
            f"machine): {', '.join(cold)}",
            file=stream,
            flush=True,
        )
    bar = None
    if progress == "bar":
        from tqdm import tqdm

        bar = tqdm(total=len(todo), unit="analysis", desc="compiling", file=stream, dynamic_ncols=True, leave=False)

    compiled: dict[str, float] = {}

    def done(group: Sequence[str], seconds: Sequence[float]) -> None:
        for name, spent in zip(group, seconds, strict=True):
            mark(name)
            compiled[name] = spent
            _, left = time_left(compiled, todo, workers, ratio)
            elapsed = time.perf_counter() - started
            if bar is not None:
                bar.set_postfix_str(f"{name}, about {left:.0f} s left")
                bar.update(1)
            elif progress == "log":
                print(
                    f"rtsched: compiled {name} ({spent:.1f} s; {elapsed:.0f} s elapsed, about {left:.0f} s left)",
                    file=stream,
                    flush=True,
                )

    started = time.perf_counter()
    try:
        if workers == 1 and pool is None:
            for group in groups:
                done(group, _timed_group(run_one, group))
        elif pool is not None:
            _compile_in(pool, groups, run_one, done)
        else:
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor

            from rtsched.pools import ignore_interrupts

            context = multiprocessing.get_context("spawn")  # never fork a process with Numba threads
            with ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=ignore_interrupts) as own:
                _compile_in(own, groups, run_one, done)
    finally:
        if bar is not None:
            bar.close()
    if cold and set(cold) <= set(compiled) and sum(compiled.values()) >= 1.0:
        # What this machine took per table second, for the next estimate (a run that only loaded
        # cached kernels says nothing about compiling, hence the floor).
        _remember_ratio(time_left(compiled, todo, workers, ratio)[0])
    return time.perf_counter() - started


def _compile_in(
    pool: Executor,
    groups: Sequence[Sequence[str]],
    run_one: Callable[[str], object],
    done: Callable[[Sequence[str], Sequence[float]], None],
) -> None:
    """Compile ``groups`` in ``pool``, reporting each as it finishes; stop the pool on failure."""
    from concurrent.futures import ProcessPoolExecutor, as_completed

    from rtsched.pools import stop_pool

    futures = {pool.submit(_timed_group, run_one, group): group for group in groups}
    try:
        for future in as_completed(futures):
            done(futures[future], future.result())
    except BaseException:
        if isinstance(pool, ProcessPoolExecutor):
            stop_pool(pool)
        raise
