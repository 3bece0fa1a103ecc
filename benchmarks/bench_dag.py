"""Throughput of the DAG analyses: each batch kernel vs its exact reference, in one run.

Run: ``python benchmarks/bench_dag.py [--sets 20000] [--reference-sets 300] [--m 8]``.

The sample is the Verucchi et al. (2023) setup of examples/dag_experiment.toml at one point:
nested fork-join DAGs (rtsched.generators.dag, seeded), ``--tasks`` tasks per set, total
utilization uniform in [m/4, 3m/4], constrained deadlines. For every analysis of the DAG
workload kind in the registry (whatever is registered when it runs), the table prints its
sets/s through ``status`` (the batch kernel, all Numba threads, compiled beforehand), through
``reference`` (exact Python ints/Fractions, on the first ``--reference-sets`` sets), their ratio,
and whether the two agree on every one of those sets. Also: the generator's sets/s (the Python
DAG construction that a sweep pays once per set), so the sweep's path is measured, not only the
kernels. The host's ISA is printed above the table.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from _common import arguments, host_line, print_header, rate

from rtsched import registry
from rtsched.dag import DAGBatch
from rtsched.generators.dag import dag_tasksets
from rtsched.workloads import DAG_TASKSETS

#: Nested fork-join parameters of the sample (examples/dag_experiment.toml's).
SHAPE = {"max_depth": 2, "max_branches": 5, "p_par": 0.8, "p_term": 0.2, "wcet": (1, 100)}


def sample(n_sets: int, n_tasks: int, m: int, seed: int, deadlines: str) -> list:
    """``n_sets`` DAG task sets, utilization uniform in [m/4, 3m/4] (one generator call per set)."""
    rng = np.random.default_rng(np.random.SeedSequence(seed))
    totals = rng.uniform(m / 4, 3 * m / 4, size=n_sets)
    children = rng.spawn(n_sets)
    sets = []
    for child, u in zip(children, totals, strict=True):
        sets.extend(
            dag_tasksets(
                child, n_tasks=n_tasks, utilization=float(u), size=1, shape="fork-join", shape_params=SHAPE,
                utilizations="uunifast-discard", umax=float(m) / 2, deadlines=deadlines,
            )
        )  # fmt: skip
    return sets


def main() -> None:
    """Print the host and the table."""
    parser = arguments(__doc__, sets=20_000, reference_sets=300, seed=1)
    parser.add_argument("--m", type=int, default=8, help="processors")
    parser.add_argument("--tasks", type=int, default=4, help="DAG tasks per set")
    args = parser.parse_args()
    m = args.m
    print(host_line())

    samples = {}
    for deadlines in ("constrained", "implicit"):
        start = time.perf_counter()
        sets = sample(args.sets, args.tasks, m, args.seed, deadlines)
        generated = args.sets / (time.perf_counter() - start)
        samples[deadlines] = (sets, DAGBatch.from_tasksets(sets))
        print(f"generator (nested fork-join, n = {args.tasks}, {deadlines} deadlines, Python): {generated:,.0f} sets/s")
    print(f"{args.sets} sets per sample, m = {m}; kernels on all threads vs references on {args.reference_sets} sets")
    entries = [e for e in registry.all_entries() if e.workload is DAG_TASKSETS]
    print_header(
        f"{'analysis':<32} {'deadlines':<12} {'kernel sets/s':>14} {'reference sets/s':>17} {'ratio':>8}  agree"
    )
    for entry in entries:
        deadlines = "constrained" if "constrained" in entry.deadlines else "implicit"
        sets, batch = samples[deadlines]
        small = sets[: args.reference_sets]
        small_batch = DAGBatch.from_tasksets(small)
        fast_small = entry.status(small_batch, m)  # compiles the kernel
        slow = [entry.reference(ts, m) for ts in small]
        codes = [1 if ref is True else 0 if ref is False else -1 for ref in slow]
        agree = [int(code) for code in fast_small] == codes
        fast_rate = rate(lambda e=entry, b=batch: e.status(b, m), args.sets)
        slow_rate = rate(lambda e=entry, s=small: [e.reference(ts, m) for ts in s], len(small), repeat=1)
        print(
            f"{entry.name:<32} {deadlines:<12} {fast_rate:14,.0f} {slow_rate:17,.0f} {fast_rate / slow_rate:7,.0f}x  "
            f"{'yes' if agree else 'NO'}"
        )


if __name__ == "__main__":
    main()
