"""Benchmark of the sweep engine on the standard study (after compilation).

    python benchmarks/bench_sweep.py [--sets 10000] [--workers 2] [--scaling] [--sets-per-unit N]

The standard study: m = 4, n = 10, 39 points of U/m in [0.025, 0.975], 10,000 sets per point
(UUniFast-Discard utilizations, log-uniform periods in [10, 1000], implicit deadlines), with
the analyses gfb, bak, bcl, bcl-iter, rta, bar, load, ffdbf, p-edf, baruah-fisher and
p:wf:density:qpa (any not registered is skipped with a note). Target: at most 60 s wall on a
2-core machine with 2 workers, and near-linear scaling from 1 to 2 workers (``--scaling``).

A small warm-up sweep runs first so that every kernel is compiled into Numba's cache; the
timed runs then measure the engine (pool start-up, generation, analyses, store) as a user sees
it. Prints the wall time, sets/s and each analysis's share of the time spent in ``decide``.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from _common import u_over_m_study

from rtsched import registry
from rtsched.errors import InputError
from rtsched.sweep import parse_experiment, run

ANALYSES = ("gfb", "bak", "bcl", "bcl-iter", "rta", "bar", "load", "ffdbf", "p-edf", "baruah-fisher", "p:wf:density:qpa")


def available(names: tuple[str, ...]) -> list[str]:
    """The names the registry knows; print a note for the others."""
    found = []
    for name in names:
        try:
            registry.get(name)
        except InputError:
            print(f"note: analysis {name!r} is not registered; skipped")
            continue
        found.append(name)
    return found


def study(sets: int, sets_per_unit: int, names: list[str]) -> dict:
    """The standard study as parsed TOML data."""
    return u_over_m_study("standard-study", 2026, (0.025, 0.975, 0.025), sets, sets_per_unit, names)


def cpu_seconds() -> float:
    """User + system CPU time of this process and its finished children (the pool workers)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def timed_run(experiment: object, workers: int, root: Path) -> tuple[float, float, object]:
    """Run into a fresh directory; returns (wall seconds, CPU seconds, results)."""
    out = root / f"run-{workers}-{time.monotonic_ns()}"
    cpu = cpu_seconds()
    start = time.perf_counter()
    results = run(experiment, out, workers=workers, progress="none", plot=False)
    return time.perf_counter() - start, cpu_seconds() - cpu, results


def main() -> None:
    """Run the benchmark and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sets", type=int, default=10_000, help="task sets per point (default 10000)")
    parser.add_argument("--sets-per-unit", type=int, default=2_500, help="task sets per work unit (default 2500)")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="worker processes (default: CPUs)")
    parser.add_argument("--scaling", action="store_true", help="also run with 1 worker and report the speed-up")
    args = parser.parse_args()

    names = available(ANALYSES)
    experiment = parse_experiment(study(args.sets, args.sets_per_unit, names))
    total_sets = args.sets * len(experiment.sweep.points)
    print(f"standard study: m = 4, n = 10, {len(experiment.sweep.points)} points, {args.sets} sets per point "
          f"= {total_sets} sets, {len(names)} analyses, {args.sets_per_unit} sets per unit")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        warm = parse_experiment(study(20, 20, names))
        start = time.perf_counter()
        run(warm, root / "warm-up", workers=0, progress="none", plot=False)
        print(f"warm-up (compilation or cache load, in this process): {time.perf_counter() - start:.1f} s")

        worker_counts = sorted({1, args.workers}) if args.scaling else [args.workers]
        walls: dict[int, float] = {}
        last = None
        for workers in worker_counts:
            load = os.getloadavg()[0]
            wall, cpu, results = timed_run(experiment, workers, root)
            walls[workers] = wall
            last = results
            # CPU/wall near the worker count means the cores were ours; far below it, other
            # processes competed for them (the load average says how many).
            print(f"workers = {workers}: {wall:.1f} s wall, {total_sets / wall:,.0f} sets/s "
                  f"({results.units_total} units); CPU {cpu:.1f} s = {cpu / wall:.2f} cores busy; "
                  f"load average at start {load:.1f} on {os.cpu_count()} CPUs")
            print(f"    {total_sets / cpu:,.0f} sets per CPU-second; on {workers} idle core(s) the wall time "
                  f"would be about {cpu / workers:.1f} s (CPU / workers; an estimate, not a measurement)")
        if args.scaling and len(walls) > 1:
            speedup = walls[1] / walls[args.workers]
            print(f"speed-up 1 -> {args.workers} workers: {speedup:.2f}x "
                  f"(efficiency {100 * speedup / args.workers:.0f}%)")
        assert last is not None
        seconds = last.seconds
        busy = sum(seconds.values())
        print(f"time inside units (all workers): {busy:.1f} s; share per part:")
        for name, value in sorted(seconds.items(), key=lambda item: -item[1]):
            print(f"  {name:<20} {value:8.2f} s  {100 * value / busy:5.1f}%  "
                  f"{total_sets / value if value else float('inf'):>12,.0f} sets/s")


if __name__ == "__main__":
    main()
