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
from typing import TextIO

__all__ = ["COMPILE_SECONDS", "compile_analyses", "is_compiled", "probe_batch"]

#: Seconds to compile each analysis's kernels from a cold cache, measured on a 2-core machine
#: (``benchmarks/bench_cold_start.py``); an analysis not listed counts as :data:`_DEFAULT_SECONDS`.
COMPILE_SECONDS: dict[str, float] = {
    "generate-taskset": 1.0,
    "gfb": 1.0,
    "bak": 1.1,
    "bcl": 1.3,
    "bcl-iter": 2.9,
    "rta": 3.7,
    "bar": 3.1,
    "load": 1.7,
    "ffdbf": 6.9,
    "exact": 6.4,
    "p-edf": 12.3,
    "baruah-fisher": 0.6,
    "p:wf:density:qpa": 0.6,
}
_DEFAULT_SECONDS = 3.0


def _marker_dir() -> Path | None:
    """Where compiled-markers live: beside rtsched's kernels, or in ``NUMBA_CACHE_DIR``."""
    from numba.core import config

    from rtsched import _bootstrap

    folder = _bootstrap.install_numba_cache()
    if folder is None and config.CACHE_DIR:
        folder = Path(config.CACHE_DIR) / "rtsched-compiled" / _bootstrap.kernel_cache_dir().name
    return None if folder is None else folder / "compiled"


def _marker(name: str) -> Path | None:
    folder = _marker_dir()
    return None if folder is None else folder / re.sub(r"[^A-Za-z0-9_.-]", "_", name)


def is_compiled(name: str) -> bool:
    """True if the kernels of analysis ``name`` (or ``"generate"``) are in the cache already."""
    marker = _marker(name)
    return marker is not None and marker.exists()


def _mark(name: str) -> None:
    marker = _marker(name)
    if marker is None:
        return
    try:
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.touch()
    except OSError:  # a read-only cache only loses the message, never the result
        pass


def probe_batch() -> object:
    """Three small constrained-deadline task sets: enough to make every kernel compile."""
    from rtsched.model import TaskSet, TaskSetBatch

    sets = [
        [(1, 4, 5), (2, 7, 9), (3, 10, 12), (2, 9, 15)],
        [(2, 3, 3), (2, 3, 3), (2, 3, 3)],
        [(1, 2, 2), (1, 3, 4), (4, 20, 20), (1, 9, 10), (3, 14, 16)],
    ]
    return TaskSetBatch.from_tasksets([TaskSet.from_tasks(s) for s in sets])


def compile_analyses(
    names: Sequence[str],
    run_one: Callable[[str], object],
    *,
    progress: str = "auto",
    stream: TextIO | None = None,
    force: bool = False,
) -> float:
    """Run ``run_one(name)`` for each analysis whose kernels are not compiled yet; show progress.

    Parameters
    ----------
    names:
        Analysis names (``"generate"`` stands for the generators' kernels).
    run_one:
        Runs one analysis on a tiny input (which compiles, or loads, its kernels).
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
    cold = [name for name in todo if not is_compiled(name)]
    estimate = sum(COMPILE_SECONDS.get(name, _DEFAULT_SECONDS) for name in cold)
    if progress != "none" and cold:
        print(
            f"rtsched: compiling analyses (first run only, about {estimate:.0f} s): {', '.join(cold)}",
            file=stream,
            flush=True,
        )
    bar = None
    if progress == "bar":
        from tqdm import tqdm

        bar = tqdm(total=len(todo), unit="analysis", desc="compiling", file=stream, dynamic_ncols=True, leave=False)
    started = time.perf_counter()
    try:
        for name in todo:
            if bar is not None:
                bar.set_postfix_str(name)
            start = time.perf_counter()
            run_one(name)
            _mark(name)
            if bar is not None:
                bar.update(1)
            elif progress == "log":
                print(f"rtsched: compiled {name} ({time.perf_counter() - start:.1f} s)", file=stream, flush=True)
    finally:
        if bar is not None:
            bar.close()
    return time.perf_counter() - started
