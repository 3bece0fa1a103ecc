"""Throughput of uni-qpa, uni-pda and the partitioned-EDF family (kernels vs. references).

Run: ``python benchmarks/bench_partitioned.py [--sets N] [--reference-sets K] [--seed S]``.

Prints sets/s of each batch kernel (``registry.get(name).status``) with 1 thread (wall clock, and
µs per set of process CPU time, which is robust to a loaded machine) and with all threads, µs per
call of the single-set path (``.verdict(ts, m)``, the serial one-set kernel that ``check()`` uses)
on a sample of the sets, sets/s of the pure-Python reference on a smaller sample of the same
batch, and the ratio (1-thread wall clock / reference); for n = 10 and growing to 80.
Targets on one core: ``uni-qpa`` ≤ 0.5 µs per set (n = 10, U ≤ 1) and ``p:ff:density:qpa``
≤ 5 µs per set (n = 10, m = 4).

Task sets come from a small local generator (UUniFast utilizations, log-uniform integer periods
in [10, 10**5], constrained deadlines uniform in [C + (T − C)/2, T]) with an explicit seed.
"""

from __future__ import annotations

import os
import time

import numba
import numpy as np
from _common import arguments, batch_of_rows, uunifast_rows

from rtsched import analyses
from rtsched.model import TaskSetBatch

__all__ = ["generate", "main"]


def generate(rng: np.random.Generator, n_sets: int, n: int, u_low: float, u_high: float) -> TaskSetBatch:
    """UUniFast sets of n tasks with total utilization uniform in [u_low, u_high]."""
    u = uunifast_rows(rng, rng.uniform(u_low, u_high, n_sets), n)
    T = np.floor(np.exp(rng.uniform(np.log(10), np.log(10**5), (n_sets, n)))).astype(np.int64)
    C = np.clip(np.floor(u * T), 1, T).astype(np.int64)
    lo = C + (T - C) // 2
    D = lo + np.floor(rng.random((n_sets, n)) * (T - lo + 1)).astype(np.int64)
    return batch_of_rows(C, np.minimum(D, T), T)


def _rate(fn, batch: TaskSetBatch, m: int, repeat: int = 3) -> tuple[float, float]:
    """(sets/s by wall clock, sets/s by process CPU time), best of ``repeat`` runs.

    With one thread the CPU-time rate is robust to other processes sharing the machine; with
    several threads only the wall-clock rate means anything.
    """
    best_wall = best_cpu = float("inf")
    for _ in range(repeat):
        start, cpu = time.perf_counter(), time.process_time()
        fn(batch, m)
        best_wall = min(best_wall, time.perf_counter() - start)
        best_cpu = min(best_cpu, time.process_time() - cpu)
    return batch.n_sets / best_wall, batch.n_sets / max(best_cpu, 1e-9)


def _one_cost(entry: analyses.Analysis, batch: TaskSetBatch, m: int, k: int = 300, repeat: int = 3) -> float:
    """µs per ``entry.verdict(ts, m)`` call on the first ``k`` sets (best of ``repeat``)."""
    sample = [batch[i] for i in range(min(k, batch.n_sets))]
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for ts in sample:
            entry.verdict(ts, m)
        best = min(best, time.perf_counter() - start)
    return 1e6 * best / len(sample)


def _ref_rate(entry: analyses.Analysis, batch: TaskSetBatch, m: int, k: int) -> float:
    sample = [batch[i] for i in range(min(k, batch.n_sets))]
    start = time.perf_counter()
    for ts in sample:
        entry.reference(ts, m)
    return len(sample) / (time.perf_counter() - start)


def main() -> None:
    """Run the benchmark and print one line per (analysis, n)."""
    args = arguments(__doc__, sets=200_000, reference_sets=500, seed=20260101).parse_args()
    rng = np.random.default_rng(args.seed)
    threads = numba.config.NUMBA_NUM_THREADS
    cases = [
        ("uni-qpa", 1, 0.5, 1.0),
        ("uni-pda", 1, 0.5, 1.0),
        ("p:ff:density:qpa", 4, 1.0, 3.6),
        ("baruah-fisher", 4, 1.0, 3.6),
        ("p:wf:density:qpa", 4, 1.0, 3.6),
        ("p:bf:utilization:dbfstar", 4, 1.0, 3.6),
    ]
    print(
        f"load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs (wall-clock rates suffer when it exceeds them)"
    )
    print(
        f"{'analysis':26} {'n':>3} {'accept':>6} {'1 thread':>10} {'CPU µs/set':>10} {'wall µs/set':>11} "
        f"{f'{threads} threads':>10} {'µs/verdict':>10} {'reference':>9} {'ratio':>7}"
    )
    for name, m, u_low, u_high in cases:
        entry = analyses.get(name)
        for n in (10, 20, 40, 80):
            n_sets = max(1000, args.sets * 10 // n)
            batch = generate(rng, n_sets, n, u_low * (1 if m == 1 else m / 4), u_high * (1 if m == 1 else m / 4))
            entry.status(batch.select(np.arange(10)), m)  # compile / load the cache
            entry.verdict(batch[0], m)
            numba.set_num_threads(1)
            one, one_cpu = _rate(entry.status, batch, m)
            numba.set_num_threads(threads)
            many, _ = _rate(entry.status, batch, m)
            single = _one_cost(entry, batch, m)
            accept = float(np.mean(entry.status(batch, m) == 1))
            ref = _ref_rate(entry, batch, m, args.reference_sets if n <= 20 else max(10, args.reference_sets // 5))
            print(
                f"{name:26} {n:>3} {accept:>6.2f} {one:>10,.0f} {1e6 / one_cpu:>10.2f} {1e6 / one:>11.2f} "
                f"{many:>10,.0f} {single:>10.2f} {ref:>9,.0f} {one / ref:>6.0f}x"
            )


if __name__ == "__main__":
    main()
