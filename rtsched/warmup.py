"""Compile analyses' Numba kernels up front, one analysis at a time, with visible progress.

Numba compiles a kernel the first time it is called and caches the machine code per user (see
``rtsched/_bootstrap.py``); later runs load it in a fraction of a second. The first run of a
sweep therefore spends most of its time compiling. Rather than leave a progress bar at 0 % for
that time, :func:`compile_analyses` runs each analysis once on a tiny input *before* the real
work, in the parent process, and says so: ``compiling analyses (first run only, about N s)``, then
one step per analysis. Pool workers then load the cached code instead of compiling the same
kernels in parallel.

Whether an analysis is compiled is remembered by a marker file next to the cached kernels (so
clearing the cache clears the markers). The "about N s" figure comes from
:data:`COMPILE_SECONDS`, measured by ``benchmarks/bench_cold_start.py`` on a 2-core machine.
"""

from __future__ import annotations

import os
import re
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from rtsched.gpu.model import GPUWorkloadBatch
    from rtsched.model import TaskSetBatch

__all__ = [
    "COLD_MAX_SETS",
    "COLD_MAX_TASKS",
    "COMPILE_SECONDS",
    "compile_analyses",
    "compile_seconds",
    "is_compiled",
    "mark",
    "probe_batch",
    "probe_workloads",
]

#: Seconds to compile each analysis's kernels from a cold cache, measured on a 2-core machine
#: (``benchmarks/bench_cold_start.py``); an analysis not listed counts as :data:`_DEFAULT_SECONDS`.
COMPILE_SECONDS: dict[str, float] = {
    "generate-taskset": 0.1,
    "gfb": 1.2,
    "bak": 2.3,
    "bcl": 2.0,
    "bcl-iter": 13.5,
    "rta": 9.0,
    "bar": 10.6,
    "load": 2.0,
    "ffdbf": 5.9,
    "exact": 4.6,
    "p-edf": 15.6,
    "gedf-upper": 2.5,  # its batch simulation kernel (measured with the default sweep, 2 cores; 4.5 s for the
    # general simulator it used before, in the same hour)
}
#: Analyses that run another one's kernels (the partitioned EDF family shares one packing
#: kernel): compiled with it, counted once in the estimate.
SAME_KERNELS_AS = {"baruah-fisher": "p-edf", "exact:index": "exact"}
_DEFAULT_SECONDS = 3.0
#: While an analysis's kernels are not compiled, ``rtsched.check`` decides at most this many sets
#: of at most this many tasks with the analysis's exact reference instead (:mod:`rtsched.check`).
COLD_MAX_TASKS = 16
COLD_MAX_SETS = 32


def _kernels_of(name: str) -> str:
    """The analysis whose compile time ``name``'s first run pays (family members share kernels)."""
    return "p-edf" if name.startswith("p:") else SAME_KERNELS_AS.get(name, name)


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
    return COMPILE_SECONDS.get(_kernels_of(name), _DEFAULT_SECONDS)


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


def probe_batch(deadlines: str = "constrained") -> TaskSetBatch:
    """Four small task sets: enough to make every kernel of a task-set analysis compile.

    Numba compiles a whole kernel whichever path a set takes, but an analysis may route a set in
    Python before any kernel runs: the fourth set (n = 3, Π T_i = 540,000) is outside ``exact``'s
    default-list rule on 2 processors, so ``gedf-upper`` decides it with its simulation kernel
    (the first three go to ``exact``). ``deadlines="implicit"``: the same sets with D = T, for
    the analyses that need implicit deadlines (rm-us, rm-ll, rm-hb).
    """
    from rtsched.model import TaskSet, TaskSetBatch

    sets = [
        [(1, 4, 5), (2, 7, 9), (3, 10, 12), (2, 9, 15)],
        [(2, 3, 3), (2, 3, 3), (2, 3, 3)],
        [(1, 2, 2), (1, 3, 4), (4, 20, 20), (1, 9, 10), (3, 14, 16)],
        [(3, 40, 50), (5, 70, 90), (9, 100, 120)],
    ]
    if deadlines == "implicit":
        sets = [[(c, t, t) for c, _, t in s] for s in sets]
    elif deadlines != "constrained":
        raise ValueError(f"deadlines must be 'constrained' or 'implicit', not {deadlines!r}")
    return TaskSetBatch.from_tasksets([TaskSet.from_tasks(s) for s in sets])


def probe_workloads() -> GPUWorkloadBatch:
    """Two small GPU workloads (for 2 compute clusters) for the GPU analyses: one fits, one does not."""
    from fractions import Fraction

    from rtsched.gpu.model import GPUWorkload, GPUWorkloadBatch, Kernel, TableWCET

    def workload(first_cluster_wcets: list[int]) -> GPUWorkload:
        one = (Fraction(1), Fraction(1))
        kernels = tuple(
            Kernel(TableWCET((c, -(-c // 2), -(-c // 3))), 4, 4, one, None, True) for c in first_cluster_wcets
        )
        return GPUWorkload(kernels, 2)

    return GPUWorkloadBatch((workload([4, 4]), workload([4, 4, 4])))


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


def _estimate(names: Sequence[str], workers: int) -> float:
    """Expected wall time: longest-first greedy assignment of the groups to ``workers`` processes."""
    loads = [0.0] * max(1, workers)
    for group in _groups(names):
        loads[loads.index(min(loads))] += compile_seconds(group[0])
    return max(loads)


def compile_analyses(
    names: Sequence[str],
    run_one: Callable[[str], object],
    *,
    workers: int = 0,
    progress: str = "auto",
    stream: TextIO | None = None,
    force: bool = False,
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
    if progress != "none" and cold:
        print(
            f"rtsched: compiling analyses (first run only, about {_estimate(cold, workers):.0f} s): {', '.join(cold)}",
            file=stream,
            flush=True,
        )
    bar = None
    if progress == "bar":
        from tqdm import tqdm

        bar = tqdm(total=len(todo), unit="analysis", desc="compiling", file=stream, dynamic_ncols=True, leave=False)

    def done(group: Sequence[str], seconds: Sequence[float]) -> None:
        for name, spent in zip(group, seconds, strict=True):
            mark(name)
            if bar is not None:
                bar.set_postfix_str(name)
                bar.update(1)
            elif progress == "log":
                print(f"rtsched: compiled {name} ({spent:.1f} s)", file=stream, flush=True)

    started = time.perf_counter()
    try:
        if workers == 1:
            for group in groups:
                done(group, _timed_group(run_one, group))
        else:
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor, as_completed

            from rtsched.sweep.executors import ignore_interrupts, stop_pool

            context = multiprocessing.get_context("spawn")  # never fork a process with Numba threads
            with ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=ignore_interrupts) as pool:
                futures = {pool.submit(_timed_group, run_one, group): group for group in groups}
                try:
                    for future in as_completed(futures):
                        done(futures[future], future.result())
                except BaseException:
                    stop_pool(pool)
                    raise
    finally:
        if bar is not None:
            bar.close()
    return time.perf_counter() - started
