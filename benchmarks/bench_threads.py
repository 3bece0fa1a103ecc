"""Small batches stay cheap on a busy machine, large batches still use every core (not a test).

    python benchmarks/bench_threads.py [--small 100] [--large 200000] [--tests gfb,bak,rta]

Numba's OpenMP threads spin between parallel regions; when every core is busy with other work, a
parallel call has to wait for its threads to be scheduled, which costs milliseconds however small
the batch. The registry therefore runs batches of fewer than ``parallel_from`` tasks (4,096 by
default) on the calling thread (:mod:`rtsched.registry`).

It prints, per analysis, the median wall time of ``status`` on a small batch (``--small`` sets of
n = 10) with the registry's rule and with the thread pool forced, both on an idle machine and
with one busy process per core; and the time on a large batch with one thread and with all,
so the speed-up of the parallel path is visible.
"""

from __future__ import annotations

import argparse
import multiprocessing
import statistics
import time

import numba
from _common import sample_batch

from rtsched import registry


def spin(stop) -> None:
    while not stop.is_set():
        pass


def median_ms(fn, repeat: int = 30) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def small_batch_times(entries, batch, m: int) -> dict[str, tuple[float, float]]:
    out = {}
    for entry in entries:
        rule = median_ms(lambda e=entry: e.status(batch, m))
        saved = entry.parallel_from
        entry.parallel_from = 0  # force the thread pool
        try:
            forced = median_ms(lambda e=entry: e.status(batch, m))
        finally:
            entry.parallel_from = saved
        out[entry.name] = (rule, forced)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--small", type=int, default=100)
    parser.add_argument("--large", type=int, default=200_000)
    parser.add_argument("--tests", default="gfb,bak,rta,load")
    parser.add_argument("--m", type=int, default=4)
    args = parser.parse_args()
    entries = [registry.get(name) for name in args.tests.split(",")]
    small = sample_batch(args.small, 10, args.m, seed=3)
    large = sample_batch(args.large, 10, args.m, seed=4)
    for entry in entries:
        entry.status(small, args.m)
    threads = numba.config.NUMBA_NUM_THREADS

    idle = small_batch_times(entries, small, args.m)
    stop = multiprocessing.Event()
    hogs = [multiprocessing.Process(target=spin, args=(stop,)) for _ in range(multiprocessing.cpu_count())]
    for hog in hogs:
        hog.start()
    try:
        time.sleep(0.5)
        busy = small_batch_times(entries, small, args.m)
    finally:
        stop.set()
        for hog in hogs:
            hog.join()

    print(f"small batch: {args.small} sets × 10 tasks ({args.small * 10} tasks), m = {args.m}; median ms per call")
    print(f"{'analysis':<10} {'idle rule':>10} {'idle pool':>10} {'busy rule':>10} {'busy pool':>10}")
    for name in idle:
        print(f"{name:<10} {idle[name][0]:10.3f} {idle[name][1]:10.3f} {busy[name][0]:10.3f} {busy[name][1]:10.3f}")

    print(f"\nlarge batch: {args.large} sets × 10 tasks; seconds per call, 1 thread vs {threads}")
    print(f"{'analysis':<10} {'1 thread':>10} {f'{threads} threads':>10} {'speed-up':>9}")
    for entry in entries:
        numba.set_num_threads(1)
        one = median_ms(lambda e=entry: e.status(large, args.m), repeat=3) / 1e3
        numba.set_num_threads(threads)
        every = median_ms(lambda e=entry: e.status(large, args.m), repeat=3) / 1e3
        print(f"{entry.name:<10} {one:10.3f} {every:10.3f} {one / every:9.2f}")


if __name__ == "__main__":
    main()
