"""Each task-set analysis's serial twin against its ``prange`` driver, on the same sets (session 31).

Run (on demand; never part of the test suite)::

    python benchmarks/bench_serial_twins.py [--sets 10000] [--names bcl-iter,bar] [--seed 15]

Why: a sweep unit, and any batch smaller than the analysis's ``parallel_from``, runs the serial
twin (``rtsched.kernels.serial``), while ``bench_vs_schedcat.py`` and the other per-analysis
benchmarks time the ``prange`` driver. The two can differ by more than their drivers:

- the Python side of a twin runs once per call (bar's twin computed its workspace width with a
  Python loop over the sets: about 75 ns per set, more than deciding most of them);
- the twin calls the chunk loop as Numba compiled it on its own, while the driver's module links a
  copy of it that LLVM optimises once more, and the machine code can differ. BCL-iter's fixed
  point (session 30's first sweep by bits) ran 2.9x slower in the chunk compiled on its own, and a
  process that compiled the chunk first (or called the twin first) ran that copy in the driver
  as well; the benchmark tables, which load the driver from the cache, never showed it
  (papers/bcl2005.md, "One compiled copy, not two").

For every task-set analysis with a serial twin (or the ``--names`` given): 10,000 sets of
``bench_vs_schedcat.py``'s recipe (n = 10, m = 4, 1 for uniprocessor analyses; from about 8,000
distinct sets the branch predictor no longer learns them, so these time as fresh), the driver on
one Numba thread and the twin, each timed alternately, medians of CPU ns per set, and their
ratio; rows whose ratio is above 1.10 are marked. The driver is called first, so it runs its own
copy of the chunk; run with ``--twin-first`` to see what a process that calls the twin first
(a sweep, then a large batch) gets from the driver.
"""

from __future__ import annotations

import argparse
import functools
import sys
from pathlib import Path

import numba
import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from _common import host_line, print_header
from bench_vs_schedcat import draw_sets, median_us_per_set

from rtsched import analyses
from rtsched.kernels import serial

#: A twin this much slower than its driver is marked.
MARK = 1.10


def main() -> None:
    """Time every twin against its driver and print the table."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sets", type=int, default=10_000, help="distinct sets per analysis")
    parser.add_argument("--names", default="", help="analyses to time (comma-separated; default: every twin)")
    parser.add_argument("--rounds", type=int, default=5, help="alternating rounds (the median is reported)")
    parser.add_argument("--seed", type=int, default=15)
    parser.add_argument("--twin-first", action="store_true", help="call the twin before the driver")
    args = parser.parse_args()
    numba.set_num_threads(1)
    wanted = [x.strip() for x in args.names.split(",") if x.strip()]
    entries = [analyses.get(x) for x in wanted] if wanted else analyses.all_entries()
    print(host_line())
    print(
        f"Serial twin against the prange driver (one thread): {args.sets} distinct sets per analysis, n = 10, "
        f"m = 4 (uniprocessor: 1), median CPU ns per set over {args.rounds} alternating rounds"
    )
    print_header(f"{'analysis':16} {'driver ns':>10} {'twin ns':>10} {'twin/driver':>12}")
    marked = []
    for entry in entries:
        driver = entry._kernel
        twin = serial(driver) if driver is not None else None
        if twin is None or entry.workload.name != "taskset":
            continue
        m = 1 if entry.platform == "uniprocessor" else 4
        batch = draw_sets(np.random.default_rng([args.seed, 1]), args.sets, 10, m, "uniform")
        extra = () if entry.budget is None else (entry.budget,)
        args_of = (batch.C, batch.D, batch.T, batch.offsets, m, *extra, np.empty(batch.n_sets, dtype=np.int8))
        calls = {
            "driver": (functools.partial(driver, *args_of), batch.n_sets),
            "twin": (functools.partial(twin, *args_of), batch.n_sets),
        }
        if args.twin_first:
            calls = {"twin": calls["twin"], "driver": calls["driver"]}
        us = median_us_per_set(calls, args.rounds)
        ratio = us["twin"] / us["driver"]
        mark = "  <" if ratio > MARK else ""
        if mark:
            marked.append(entry.name)
        print(f"{entry.name:16} {1000 * us['driver']:10.1f} {1000 * us['twin']:10.1f} {ratio:11.2f}x{mark}", flush=True)
    print(f"twins more than {MARK:.2f}x their driver: {', '.join(marked) if marked else 'none'}")


if __name__ == "__main__":
    main()
