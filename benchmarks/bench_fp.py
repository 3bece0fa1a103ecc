"""Uniprocessor and partitioned FP throughput: kernels (1 thread, all threads, the serial one-set
kernel through ``verdict``) against the exact Python references, n = 10.

Run: ``python benchmarks/bench_fp.py [--sets 200000]``. uni-rta, rm-ll and rm-hb on m = 1 (sets
in deadline-/rate-monotonic order, U in [0.6, 1.0]), p-fp on m = 4 (U in [1, 3]).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from _common import arguments, deadline_monotonic, rate, sample_batch, thread_rates

from rtsched import TaskSetBatch, analyses


def measure(name: str, batch: TaskSetBatch, m: int, reference_sets: int, serial_sets: int) -> None:
    entry = analyses.get(name)
    small = batch.select(range(reference_sets))
    entry.status(small, m)  # compile
    sets = list(batch.select(range(serial_sets)))
    entry.verdict(sets[0], m)
    one, many, threads = thread_rates(lambda: entry.status(batch, m), batch.n_sets)
    start = time.perf_counter()
    for ts in sets:
        entry.verdict(ts, m)
    serial = serial_sets / (time.perf_counter() - start)
    ref = rate(lambda: [entry.reference(ts, m) for ts in small], reference_sets, repeat=1)
    accepted = float(np.mean(entry.status(batch, m) == 1))
    print(f"{name}, n = 10, m = {m}, {batch.n_sets} sets ({accepted:.0%} accepted)")
    print(f"  kernel, 1 thread   : {one:14,.0f} sets/s  ({1e6 / one:.3f} µs/set)")
    print(f"  kernel, {threads} threads  : {many:14,.0f} sets/s  ({1e6 / many:.3f} µs/set)")
    print(f"  verdict() one set  : {serial:14,.0f} sets/s  ({1e6 / serial:.2f} µs/set)")
    print(f"  reference (Python) : {ref:14,.0f} sets/s")
    print(f"  ratio kernel(1 thread)/reference: {one / ref:,.0f}x")


def main() -> None:
    parser = arguments(__doc__, sets=200_000, reference_sets=2_000)
    parser.add_argument("--serial-sets", type=int, default=5_000)
    args = parser.parse_args()
    n = 10
    uni = sample_batch(args.sets, n=n, m=1, u_range=(0.6, 1.0))
    measure("uni-rta", deadline_monotonic(uni, n, implicit=False), 1, args.reference_sets, args.serial_sets)
    implicit = deadline_monotonic(uni, n, implicit=True)
    for name in ("rm-ll", "rm-hb"):
        measure(name, implicit, 1, args.reference_sets, args.serial_sets)
    multi = sample_batch(args.sets, n=n, m=4, u_range=(1.0, 3.0))
    measure("p-fp", deadline_monotonic(multi, n, implicit=False), 4, args.reference_sets // 2, args.serial_sets)


if __name__ == "__main__":
    main()
