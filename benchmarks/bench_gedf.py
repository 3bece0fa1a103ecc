"""Global EDF sufficient tests: batch-kernel throughput (1 thread, all threads) vs the references.

Run: ``python benchmarks/bench_gedf.py [--sets 200000] [--reference-sets 300] [--one-sets 2000]
[--names bak,rta]``.

Distribution: n tasks, m = 4, U uniform in [1, 3] (UUniFast split), periods log-uniform integers
in [10, 1000], D uniform in [C, T] (``_common.sample_batch``, seeded ``numpy.random.default_rng``).
For every registered analysis among gfb, bak, bcl, bcl-iter, rta, bar, load, ffdbf it prints, for
n = 10, sets/s of the batch kernel on one thread and on all threads, sets/s of the exact
reference on a smaller sample, their ratio, and then µs per set (one thread) for
n = 5, 10, 20, 40, 80, and last µs per set of ``verdict()`` one set at a time (n = 10): the
serial one-set kernel (``one``) that :func:`rtsched.check` calls, with the registry's checks.
Targets per set on one core (n = 10): BAK, BCL, BCL-iter ≤ 0.2 µs; RTA ≤ 2 µs. The "CPU µs/set"
columns (process CPU time, one thread) are the figures to trust on a shared machine, where
wall-clock rates drop with the load.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numba

sys.path.insert(0, str(Path(__file__).parent))
from _common import arguments, print_header, rate, sample_batch

from rtsched import analyses
from rtsched.errors import InputError

NAMES = ("gfb", "bak", "bcl", "bcl-iter", "rta", "bar", "load", "ffdbf")
SIZES = (5, 10, 20, 40, 80)
M = 4


def cpu_seconds_per_set(entry: object, batch: object, repeat: int = 3) -> float:
    """Best-of-``repeat`` process CPU time per set (one thread): robust to a busy machine."""
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        entry.decide(batch, M)  # type: ignore[attr-defined]
        best = min(best, time.process_time() - start)
    return best / batch.n_sets  # type: ignore[attr-defined]


def cpu_seconds_per_verdict(entry: object, sets: list, repeat: int = 3) -> float:
    """Best-of-``repeat`` process CPU time per ``verdict()`` call, one set at a time."""
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        for ts in sets:
            entry.verdict(ts, M)  # type: ignore[attr-defined]
        best = min(best, time.process_time() - start)
    return best / len(sets)


def main() -> None:
    parser = arguments(__doc__, sets=200_000, reference_sets=300, seed=1)
    parser.add_argument("--one-sets", type=int, default=2000, help="sets for the one-set verdict() timing")
    parser.add_argument("--names", default=",".join(NAMES), help="analyses to measure (comma-separated)")
    args = parser.parse_args()

    entries = []
    for name in [x.strip() for x in args.names.split(",") if x.strip()]:
        try:
            entries.append(analyses.get(name))
        except InputError:
            print(f"({name}: not registered, skipped)")
    threads = numba.get_num_threads()
    batches = {n: sample_batch(max(1000, args.sets * 10 // n), n=n, m=M, seed=args.seed) for n in SIZES}
    batch = batches[10]
    small = batch.select(range(min(args.reference_sets, batch.n_sets)))

    print(f"n = 10, m = {M}, {batch.n_sets} sets; reference on {small.n_sets} sets; {threads} threads available")
    print_header(
        f"{'analysis':10} {'1 thread sets/s':>16} {'µs/set':>8} {'CPU µs/set':>11} "
        f"{f'{threads} threads sets/s':>18} {'reference sets/s':>17} {'ratio':>9}"
    )
    for entry in entries:
        entry.decide(small, M)  # compile (cached afterwards)
        numba.set_num_threads(1)
        one = rate(lambda e=entry: e.decide(batch, M), batch.n_sets)
        cpu = cpu_seconds_per_set(entry, batch)
        numba.set_num_threads(threads)
        many = rate(lambda e=entry: e.decide(batch, M), batch.n_sets)
        ref = rate(lambda e=entry: [e.reference(ts, M) for ts in small], small.n_sets, repeat=1)
        print(
            f"{entry.name:10} {one:16,.0f} {1e6 / one:8.3f} {1e6 * cpu:11.3f} "
            f"{many:18,.0f} {ref:17,.0f} {one / ref:8,.0f}x"
        )

    print()
    print("CPU µs per set, batch kernel on one thread, by number of tasks n")
    print(f"{'analysis':10} " + " ".join(f"{f'n={n}':>9}" for n in SIZES))
    numba.set_num_threads(1)
    for entry in entries:
        cells = []
        for n in SIZES:
            b = batches[n]
            cells.append(f"{1e6 * cpu_seconds_per_set(entry, b):9.3f}")
        print(f"{entry.name:10} " + " ".join(cells))
    numba.set_num_threads(threads)

    sets = list(batch.select(range(min(args.one_sets, batch.n_sets))))
    print()
    print(f"CPU µs per set, verdict() one set at a time (n = 10, {len(sets)} sets)")
    for entry in entries:
        entry.verdict(sets[0], M)  # compile the one-set kernel
        print(f"{entry.name:10} {1e6 * cpu_seconds_per_verdict(entry, sets):9.2f}")


if __name__ == "__main__":
    main()
