"""Throughput of the task-set generators (``rtsched.generators.generate_batch``).

Targets (issue "Task-set generators"): 10**6 integer task sets of n = 10 (UUniFast +
log-uniform periods + uniform deadlines) into a TaskSetBatch in at most 2 s on one core, and
RandFixedSum within 3x of UUniFast. A textbook per-set Python loop (UUniFast with the
``random`` module, as in Bini & Buttazzo's listing) runs on a smaller sample for the ratio.

Usage: ``python benchmarks/bench_generators.py [--sets N] [--n N] [--reference-sets N]``
"""

from __future__ import annotations

import argparse
import math
import os
import random
import time

import numba
import numpy as np

from rtsched.generators import generate_batch

__all__ = ["main"]


def reference_sets(count: int, n: int, total: float, seed: int) -> list[list[tuple[int, int, int]]]:
    """Per-set Python loop: UUniFast, log-uniform periods, C rounded, D uniform in [C, T]."""
    rnd = random.Random(seed)
    lo, hi = math.log(10), math.log(1001)
    out = []
    for _ in range(count):
        utils = []
        remaining = total
        for i in range(1, n):
            following = remaining * rnd.random() ** (1.0 / (n - i))
            utils.append(remaining - following)
            remaining = following
        utils.append(remaining)
        tasks = []
        for u in utils:
            period = min(max(int(math.exp(rnd.uniform(lo, hi))), 10), 1000)
            wcet = min(max(round(u * period), 1), period)
            tasks.append((wcet, rnd.randint(wcet, period), period))
        out.append(tasks)
    return out


def timed(label: str, sets: int, func) -> float:
    """Run ``func`` once; print wall and CPU time (user + system); return the CPU time.

    CPU time is what the one-core target is about; wall time is printed too, since on a shared
    machine it also counts time spent waiting for a core. System time is mostly page faults on
    the freshly allocated output arrays (and the copy the TaskSetBatch constructor makes).
    """
    wall, before = time.perf_counter(), os.times()
    func()
    wall, after = time.perf_counter() - wall, os.times()
    user, system = after.user - before.user, after.system - before.system
    cpu = user + system
    print(
        f"{label:<44} {sets:>8} sets  wall {wall:6.3f} s  cpu {cpu:6.3f} s "
        f"(user {user:5.2f}, sys {system:5.2f})  {sets / cpu:>10,.0f} sets/s"
    )
    return cpu


def main() -> None:
    """Run the benchmark and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", type=int, default=1_000_000, help="task sets per timed run (default 10**6)")
    parser.add_argument("--n", type=int, default=10, help="tasks per set (default 10)")
    parser.add_argument("--utilization", type=float, default=2.5, help="target utilization (default 2.5)")
    parser.add_argument("--reference-sets", type=int, default=20_000, help="sets for the pure-Python loop")
    parser.add_argument("--cfs-sets", type=int, default=2_000, help="sets for ConvolutionalFixedSum")
    args = parser.parse_args()
    numba.set_num_threads(1)  # generation is serial (reproducible); measured on one core
    common = dict(n=args.n, utilization=args.utilization, periods="log-uniform:10:1000", deadlines="uniform")
    # Warm-up: Numba compilation / cache load and first-touch page faults are not throughput.
    for method in ("uunifast", "randfixedsum"):
        generate_batch(np.random.default_rng(0), size=1000, utilizations=method, **common)

    print(f"n = {args.n}, U = {args.utilization}, periods log-uniform:10:1000, deadlines uniform, 1 thread")
    results = {}
    for method in ("uunifast", "uunifast-discard", "randfixedsum"):
        best = min(
            timed(
                f"generate_batch utilizations={method}",
                args.sets,
                lambda m=method: generate_batch(np.random.default_rng(1), size=args.sets, utilizations=m, **common),
            )
            for _ in range(2)
        )
        results[method] = best
    timed(
        "generate_batch utilizations=cfs",
        args.cfs_sets,
        lambda: generate_batch(np.random.default_rng(1), size=args.cfs_sets, utilizations="cfs", **common),
    )
    ref = timed(
        "pure-Python per-set loop (UUniFast)",
        args.reference_sets,
        lambda: reference_sets(args.reference_sets, args.n, args.utilization, 1),
    )
    per_set_ref = ref / args.reference_sets
    uuf = results["uunifast"]
    print()
    print(
        f"UUniFast batch: {uuf:.3f} s for {args.sets} sets (target <= 2 s for 10**6): "
        f"{'OK' if uuf * 1_000_000 / args.sets <= 2.0 else 'MISSED'}"
    )
    print(f"RandFixedSum / UUniFast time ratio: {results['randfixedsum'] / uuf:.2f} (target <= 3)")
    print(f"speed-up of the batch over the pure-Python loop: {per_set_ref * args.sets / uuf:.0f}x")


if __name__ == "__main__":
    main()
