"""Throughput of the mixed-criticality analyses: each batch kernel vs its exact reference, in one run.

Run: ``python benchmarks/bench_mc.py [--sets 20000] [--reference-sets 500] [--tasks 20] [--m 1]``.

The sample is the setup of Baruah, Burns, Davis (RTSS 2011) that examples/mc_experiment.toml
follows: ``--tasks`` dual-criticality tasks per set (rtsched.generators.mc, seeded), LO-mode
utilization uniform in [0.5, 0.9] per core, CP = 0.5, CF = 2, periods log-uniform in [10, 1000],
implicit deadlines. For every analysis of the MC workload kind in the registry (whatever is
registered when it runs) that takes ``--m`` processors (uniprocessor analyses on m = 1, the
partitioned and global ones on m > 1), the table prints its sets/s through ``status`` (the batch
kernel, all Numba threads, compiled beforehand), through ``reference`` (exact Python ints and
Fractions, on the first ``--reference-sets`` sets), their ratio, and whether the two agree on every
one of those sets. Also the generator's sets/s, which a sweep pays once per set. The host's ISA is
printed above the table.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from _common import arguments, host_line, print_header, rate

from rtsched import registry
from rtsched.generators.mc import mc_tasksets
from rtsched.mc import MCBatch
from rtsched.workloads import MC_TASKSETS


def sample(n_sets: int, n_tasks: int, m: int, seed: int) -> list:
    """``n_sets`` MC task sets, LO-mode utilization uniform in [0.5 m, 0.9 m] (one generator call per set)."""
    rng = np.random.default_rng(np.random.SeedSequence(seed))
    totals = rng.uniform(0.5 * m, 0.9 * m, size=n_sets)
    children = rng.spawn(n_sets)
    sets = []
    for child, u in zip(children, totals, strict=True):
        sets.extend(mc_tasksets(child, n=n_tasks, utilization=float(u), size=1, cp=0.5, cf=2.0))
    return sets


def main() -> None:
    """Print the host and the table."""
    parser = arguments(__doc__, sets=20_000, reference_sets=500, seed=1)
    parser.add_argument("--m", type=int, default=1, help="processors")
    parser.add_argument("--tasks", type=int, default=20, help="tasks per set")
    args = parser.parse_args()
    m = args.m
    print(host_line())
    start = time.perf_counter()
    sets = sample(args.sets, args.tasks, m, args.seed)
    generated = args.sets / (time.perf_counter() - start)
    batch = MCBatch.from_tasksets(sets)
    print(f"generator (Baruah-Burns-Davis 2011 setup, n = {args.tasks}, Python): {generated:,.0f} sets/s")
    print(f"{args.sets} sets, m = {m}; kernels on all threads vs references on {args.reference_sets} sets")
    entries = [e for e in registry.all_entries() if e.workload is MC_TASKSETS]
    print_header(f"{'analysis':<24} {'kernel sets/s':>14} {'reference sets/s':>17} {'ratio':>8}  agree")
    for entry in entries:
        if entry.supports(m, sets[0]) is not None:
            continue
        small = sets[: args.reference_sets]
        fast_small = entry.status(MCBatch.from_tasksets(small), m)  # compiles the kernel
        slow = [entry.reference(ts, m) for ts in small]
        codes = [1 if ref is True else 0 if ref is False else -1 for ref in slow]
        agree = [int(code) for code in fast_small] == codes
        fast_rate = rate(lambda e=entry: e.status(batch, m), args.sets)
        slow_rate = rate(lambda e=entry, s=small: [e.reference(ts, m) for ts in s], len(small), repeat=1)
        print(
            f"{entry.name:<24} {fast_rate:14,.0f} {slow_rate:17,.0f} {fast_rate / slow_rate:7,.0f}x  "
            f"{'yes' if agree else 'NO'}"
        )


if __name__ == "__main__":
    main()
