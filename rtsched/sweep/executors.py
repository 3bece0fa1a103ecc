"""Executors that run sweep units: in-process, a local process pool, or Dask distributed.

All three call :func:`rtsched.sweep.units.run_unit` on the same unit specifications and hand
each result to a callback in the parent as soon as it is done (the parent commits it to the
store), so the results are identical whichever executor runs them.

- ``inline``: units one after the other in this process; Numba's ``prange`` spreads each
  unit's task sets over every core.
- ``pool`` (default): :class:`concurrent.futures.ProcessPoolExecutor` with the ``spawn``
  start method (forking a process whose Numba/OpenMP threads are running is unsafe). Each
  worker uses one Numba thread, so ``N`` workers keep ``N`` cores busy without
  oversubscription.
- ``dask``: a ``distributed.Client`` connected to ``tcp://HOST:PORT``; needs the optional
  extra ``rtsched[dask]``. Units run with one Numba thread each; start workers with one thread
  per process (``dask worker --nworkers N --nthreads 1``) for the best throughput.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import replace
from typing import Any

from rtsched.errors import InputError
from rtsched.pools import ignore_interrupts, stop_pool
from rtsched.sweep.units import UnitSpec, run_unit

__all__ = ["EXECUTORS", "choose_executor", "ignore_interrupts", "run_units", "start_pool", "stop_pool"]

EXECUTORS = ("inline", "pool", "dask")

OnResult = Callable[[dict[str, Any]], None]


def choose_executor(executor: str | None, workers: int | None, scheduler: str | None) -> tuple[str, int]:
    """Resolve ``--executor``/``--workers``/``--scheduler`` into ``(executor, workers)``."""
    if executor is not None and executor not in EXECUTORS:
        raise InputError(f"unknown executor {executor!r}; choose one of {', '.join(EXECUTORS)}", field="executor")
    if workers is not None and (isinstance(workers, bool) or workers < 0):
        raise InputError(f"--workers must be 0 (in-process) or a positive number, got {workers}", field="workers")
    if scheduler is not None:
        if executor not in (None, "dask"):
            raise InputError(f"--scheduler needs the dask executor, not {executor!r}", field="scheduler")
        return "dask", 0
    if executor == "dask":
        raise InputError("the dask executor needs --scheduler tcp://HOST:PORT", field="scheduler")
    if executor == "inline" or workers == 0:
        return "inline", 0
    return "pool", workers if workers is not None else (os.cpu_count() or 1)


def run_units(
    units: Sequence[UnitSpec],
    on_result: OnResult,
    *,
    executor: str = "pool",
    workers: int = 1,
    scheduler: str | None = None,
    pool: ProcessPoolExecutor | None = None,
) -> None:
    """Run ``units`` with the chosen executor, calling ``on_result`` in this process for each.

    A unit that raises stops the run (pending units are cancelled) and the error propagates;
    units already finished have been handed to ``on_result``. With ``executor="pool"``, ``pool``
    (from :func:`start_pool`) runs them and is left running; without it, a pool is started and
    shut down here.
    """
    if not units:
        return
    if executor == "inline":
        for spec in units:
            on_result(run_unit(spec))
    elif executor == "pool":
        _run_pool(units, on_result, workers, pool)
    elif executor == "dask":
        if scheduler is None:
            raise InputError("the dask executor needs --scheduler tcp://HOST:PORT", field="scheduler")
        _run_dask(units, on_result, scheduler)
    else:
        raise InputError(f"unknown executor {executor!r}", field="executor")


def _watch_parent(parent: int) -> None:
    """Exit when the parent process is gone (e.g. killed with SIGKILL): no orphans left behind."""
    while True:
        time.sleep(1.0)
        if os.getppid() != parent:
            os._exit(1)


def _init_worker(parent: int) -> None:
    """Pool worker start-up: one Numba thread per worker (the pool provides the parallelism).

    ``numba.set_num_threads`` rather than the ``NUMBA_NUM_THREADS`` variable: Numba rereads
    its environment when it compiles and refuses a changed thread count once threads run.
    Ctrl-C is left to the parent (:func:`ignore_interrupts`).
    """
    import numba

    ignore_interrupts()
    numba.set_num_threads(1)
    # A pool worker whose parent was killed would wait for work forever.
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True, name="rtsched-parent-watch").start()


def start_pool(workers: int) -> ProcessPoolExecutor:
    """A pool of ``workers`` spawned processes with one Numba thread each (``_init_worker``).

    The sweep starts one for its compile step and its units alike (:func:`rtsched.sweep.run`):
    a worker then runs units with the kernels it compiled already in memory, and the pool's
    processes start (and import rtsched) once.
    """
    context = multiprocessing.get_context("spawn")
    return ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=_init_worker, initargs=(os.getpid(),))


def _run_pool(units: Sequence[UnitSpec], on_result: OnResult, workers: int, shared: ProcessPoolExecutor | None) -> None:
    single = [replace(spec, numba_threads=1) for spec in units]
    pool = shared if shared is not None else start_pool(max(1, min(workers, len(units))))
    try:
        # Keep a bounded number of units in flight: a crash or Ctrl-C loses little work, and
        # results stream back (and are committed) in completion order.
        pending: set[Future[dict[str, Any]]] = set()
        queue = iter(single)
        for spec in queue:
            pending.add(pool.submit(run_unit, spec))
            if len(pending) >= 4 * workers:
                break
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                on_result(future.result())
            for spec in queue:
                pending.add(pool.submit(run_unit, spec))
                if len(pending) >= 4 * workers:
                    break
    except BaseException:
        stop_pool(pool)
        raise
    if shared is None:
        pool.shutdown(wait=True)


def _run_dask(units: Sequence[UnitSpec], on_result: OnResult, scheduler: str) -> None:
    try:
        from distributed import Client, as_completed
    except ImportError:
        raise InputError(
            "the Dask executor needs the optional extra: pip install 'rtsched[dask]'", field="scheduler"
        ) from None
    try:
        client = Client(scheduler, timeout=30, set_as_default=False)
    except OSError as err:
        raise InputError(f"cannot connect to the Dask scheduler at {scheduler}: {err}", field="scheduler") from None
    try:
        specs = [replace(spec, numba_threads=1) for spec in units]
        # pure=False: never let Dask deduplicate; keys name the unit for the dashboard.
        futures = [client.submit(run_unit, spec, pure=False, key=f"rtsched-unit-{spec.index}-{os.urandom(4).hex()}") for spec in specs]
        try:
            for future in as_completed(futures, loop=client.loop):
                on_result(future.result())
                future.release()
        except BaseException:
            client.cancel(futures)
            raise
    finally:
        client.close()
