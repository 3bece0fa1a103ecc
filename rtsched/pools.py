"""Process pools that Ctrl-C stops cleanly: what the sweep's executors and the kernels' warm-up share."""

from __future__ import annotations

import signal
import threading
from concurrent.futures import ProcessPoolExecutor

__all__ = ["ignore_interrupts", "stop_pool"]


def ignore_interrupts() -> None:
    """Pool worker start-up: leave Ctrl-C to the parent (:func:`stop_pool`).

    A terminal's Ctrl-C reaches every process of the foreground group. A worker that raised
    KeyboardInterrupt in the middle of a unit, while the parent was shutting the pool down, left
    the parent waiting for the pool's manager thread at exit; a second Ctrl-C then left every
    process idle for good. The parent alone decides: it stops the workers and exits with 130.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def stop_pool(pool: ProcessPoolExecutor) -> None:
    """Stop a process pool at once, after Ctrl-C or a failed unit: nothing pending runs, no process is left.

    The workers are terminated (their unfinished units were never committed, so a resumed
    sweep reruns them) and the pool is shut down; Ctrl-C is ignored for the fraction of a
    second this takes, so that a second one cannot interrupt the clean-up half way (which left
    the pool's manager thread waiting forever).
    """
    main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN) if main else None
    try:
        # ProcessPoolExecutor has no public way to stop its workers before Python 3.14
        # (terminate_workers); until then, its private process table.
        for process in list((getattr(pool, "_processes", None) or {}).values()):
            process.terminate()
        pool.shutdown(wait=True, cancel_futures=True)
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)
