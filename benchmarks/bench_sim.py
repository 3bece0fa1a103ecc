"""Throughput of the simulator's fast path (no trace): simulated jobs per second on one core.

Target (issue "Validation"): at least 10**7 jobs/s for m = 4, n = 10, global EDF. The pure-Python
tick-by-tick reference of the tests (tests/test_sim.py) is timed on a shorter horizon for the ratio.
The tie rules (index, fifo, random:SEED) are timed on the same sets, with harmonic periods too
(where equal deadlines, hence ties, are frequent).

Short runs (issue #45 item 4): 200 G-EDF sets, n = 10, m = 4, horizon 2,000 through the public
``simulate`` (per-call overhead included), WCET and random execution. ``--old REV`` times the
simulator of an older commit (rtsched/sim/ of REV, loaded beside this one) on the same calls in
the same process, interleaved, and prints the ratio of CPU times; the load average is printed
with it (the machine may be shared). ``simulate_batch`` runs the same 200 sets in one call.
The "fresh seeds" rows give every call a seed not used before (no seeding cache helps).
With ``--old`` the long-horizon and recorded runs are also timed old against new (and the tie
rule and tick-reference rows are skipped).

    python benchmarks/bench_sim.py [--sets N] [--horizon H] [--old REV]
"""

from __future__ import annotations

import argparse
import functools
import importlib
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numba
import numpy as np

from rtsched.model import TaskSet
from rtsched.sim import simulate, simulate_batch


def random_sets(count: int, n: int, m: int, rng: np.random.Generator) -> list[TaskSet]:
    """Implicit-deadline sets with U ≈ 0.7·m (schedulable enough to run to the horizon)."""
    out = []
    for _ in range(count):
        T = rng.integers(10, 1000, size=n)
        u = rng.dirichlet(np.ones(n)) * 0.7 * m
        C = np.clip(np.floor(u * T), 1, T).astype(np.int64)
        out.append(TaskSet(C, T, T))
    return out


def harmonic_sets(count: int, n: int, m: int, rng: np.random.Generator) -> list[TaskSet]:
    """Implicit deadlines, periods in {100, 200, 400, 800}: many equal deadlines (ties)."""
    out = []
    for _ in range(count):
        T = rng.choice(np.array([100, 200, 400, 800]), size=n)
        u = rng.dirichlet(np.ones(n)) * 0.7 * m
        C = np.clip(np.floor(u * T), 1, T).astype(np.int64)
        out.append(TaskSet(C, T, T))
    return out


def tick_reference(ts: TaskSet, m: int, horizon: int) -> int:
    """Tick-by-tick Python G-EDF (the slow reference); returns the number of jobs released."""
    n = ts.n
    rem = [0] * n
    dl = [0] * n
    jobs = 0
    for t in range(horizon):
        for i in range(n):
            if t % int(ts.T[i]) == 0:
                rem[i], dl[i] = int(ts.C[i]), t + int(ts.D[i])
                jobs += 1
        for i in sorted((i for i in range(n) if rem[i] > 0), key=lambda i: (dl[i], i))[:m]:
            rem[i] -= 1
    return jobs


@functools.cache
def old_simulator(rev: str) -> Callable[..., Any]:
    """``simulate`` of commit ``rev``: its rtsched/sim/{engine,run,trace}.py as a package of its own."""
    root = Path(
        subprocess.run(
            ["git", "rev-parse", "--show-toplevel"], capture_output=True, text=True, check=True
        ).stdout.strip()
    )
    folder = Path(tempfile.mkdtemp(prefix="bench_sim_old_"))
    package = folder / "rtsched_sim_old"
    package.mkdir()
    (package / "__init__.py").write_text("")
    for name in ("engine", "run", "trace"):
        text = subprocess.run(
            ["git", "show", f"{rev}:rtsched/sim/{name}.py"], cwd=root, capture_output=True, text=True, check=True
        ).stdout
        (package / f"{name}.py").write_text(text.replace("rtsched.sim.", "rtsched_sim_old."))
    sys.path.insert(0, str(folder))
    return importlib.import_module("rtsched_sim_old.run").simulate  # type: ignore[no-any-return]


def short_runs(args: argparse.Namespace) -> None:
    """The issue's workload: many short runs through the public API, WCET and random execution."""
    rng = np.random.default_rng(45)
    sets = random_sets(200, args.n, args.m, rng)
    calls: list[tuple[str, Callable[..., Any], dict[str, Any]]] = [
        ("periodic, WCET", simulate, {}),
        ("sporadic, WCET", simulate, {"arrivals": "sporadic"}),
        ("periodic, random execution", simulate, {"execution": "random"}),
    ]
    if args.old:
        old = old_simulator(args.old)
        calls.insert(1, (f"periodic, WCET, {args.old}", old, {}))
        calls.insert(3, (f"sporadic, WCET, {args.old}", old, {"arrivals": "sporadic"}))
        calls.append((f"sporadic, WCET, fresh seeds, {args.old}", old, {"arrivals": "sporadic"}))
    calls.append(("sporadic, WCET, fresh seeds", simulate, {"arrivals": "sporadic"}))
    for _name, fn, options in calls:
        fn(sets[0], args.m, horizon=100, record=False, **options)  # compile or load
    cpu = dict.fromkeys([c[0] for c in calls], 0.0)
    jobs = dict.fromkeys(cpu, 0)
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    for _round in range(args.rounds):  # interleaved rounds: a change in load hits every row alike
        for name, fn, options in calls:
            start = time.process_time()
            base = 10**6 * (_round + 1) if "fresh" in name else 0  # fresh: seeds not seen before (no cache)
            for seed, ts in enumerate(sets):
                jobs[name] += fn(ts, args.m, horizon=args.short, record=False, seed=base + seed, **options).jobs
            cpu[name] += time.process_time() - start
    print(f"load average after:  {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    for kind, options in (("periodic", {}), ("sporadic", {"arrivals": "sporadic"})):
        name = f"{kind}, WCET, simulate_batch (one call for the {len(sets)} sets)"
        simulate_batch(sets[:2], args.m, horizon=100, **options)  # compile or load
        cpu[name], jobs[name] = 0.0, 0
        for _round in range(args.rounds):
            start = time.process_time()
            traces = simulate_batch(sets, args.m, seeds=range(len(sets)), horizon=args.short, **options)
            cpu[name] += time.process_time() - start
            jobs[name] += sum(t.jobs for t in traces)
    for name in cpu:
        calls_made = args.rounds * len(sets)
        print(
            f"short runs ({len(sets)} G-EDF sets, n={args.n}, m={args.m}, horizon {args.short}), {name}: "
            f"{jobs[name] / cpu[name]:,.0f} jobs per CPU-second, {1e6 * cpu[name] / calls_made:.1f} µs per set"
        )
    if args.old:
        fresh, fresh_old = "sporadic, WCET, fresh seeds", f"sporadic, WCET, fresh seeds, {args.old}"
        print(
            f"ratio old/new CPU time, sporadic, fresh seeds: {cpu[fresh_old] / cpu[fresh]:.2f}x (same jobs: {jobs[fresh_old] == jobs[fresh]})"
        )
        for kind in ("periodic", "sporadic"):
            new, old_name = f"{kind}, WCET", f"{kind}, WCET, {args.old}"
            print(
                f"ratio old/new CPU time, {kind}: {cpu[old_name] / cpu[new]:.2f}x (same calls, same jobs: {jobs[old_name] == jobs[new]})"
            )
            batch = f"{kind}, WCET, simulate_batch (one call for the {len(sets)} sets)"
            print(
                f"ratio old/new CPU time, {kind}, simulate_batch: {cpu[old_name] / cpu[batch]:.2f}x (same jobs: {jobs[old_name] == jobs[batch]})"
            )


def old_versus_new(args: argparse.Namespace, old: Callable[..., Any]) -> None:
    """Long horizons and recorded runs, the old and the new simulator interleaved: jobs per CPU-second and ratio."""
    rng = np.random.default_rng(2024)
    sets = random_sets(args.sets, args.n, args.m, rng)
    rows = [
        ("long horizon, periodic", sets, {"horizon": args.horizon, "record": False}),
        ("long horizon, sporadic", sets, {"horizon": args.horizon, "record": False, "arrivals": "sporadic"}),
        ("recorded, horizon 2,000", sets, {"horizon": 2_000, "record": True}),
        ("recorded, horizon 20,000", sets[:5], {"horizon": 20_000, "record": True}),
    ]
    for name, family, options in rows:
        for fn in (simulate, old):
            fn(family[0], args.m, **{**options, "horizon": 100})  # compile or load
        cpu = {"new": 0.0, "old": 0.0}
        jobs = {"new": 0, "old": 0}
        for _round in range(3):
            for label, fn in (("new", simulate), ("old", old)):
                start = time.process_time()
                jobs[label] += sum(fn(ts, args.m, seed=s, **options).jobs for s, ts in enumerate(family))
                cpu[label] += time.process_time() - start
        print(
            f"{name} ({len(family)} sets): new {jobs['new'] / cpu['new']:,.0f}, old {jobs['old'] / cpu['old']:,.0f} "
            f"jobs per CPU-second; ratio old/new CPU time {cpu['old'] / cpu['new']:.2f}x (same jobs: {jobs['old'] == jobs['new']})"
        )


def main() -> None:
    """Run the benchmark."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sets", type=int, default=20)
    parser.add_argument("--horizon", type=int, default=2_000_000)
    parser.add_argument("--short", type=int, default=2_000, help="horizon of the short runs (issue #45: 2,000)")
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds of the short runs")
    parser.add_argument("--old", default=None, help="also time the simulator of this git revision (same process)")
    parser.add_argument("--short-only", action="store_true", help="only the short runs")
    parser.add_argument("-m", type=int, default=4)
    parser.add_argument("-n", type=int, default=10)
    args = parser.parse_args()
    numba.set_num_threads(1)
    short_runs(args)
    if args.short_only:
        return
    if args.old:
        old_versus_new(args, old_simulator(args.old))
        print(f"load average after all:  {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        return
    rng = np.random.default_rng(2024)
    sets = random_sets(args.sets, args.n, args.m, rng)
    simulate(sets[0], args.m, horizon=1000, record=False)  # compile
    simulate(sets[0], args.m, horizon=1000, arrivals="sporadic", record=False)
    simulate(sets[0], args.m, horizon=1000, record=True)
    # CPU time of this process (one thread) as well as wall time: on a shared machine the wall
    # clock measures the other processes too.
    for arrivals in ("periodic", "sporadic"):
        jobs = 0
        start, cpu_start = time.perf_counter(), time.process_time()
        for ts in sets:
            jobs += simulate(ts, args.m, horizon=args.horizon, arrivals=arrivals, record=False).jobs
        elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu_start
        print(
            f"fast path, {arrivals:8s}: {jobs / cpu:,.0f} jobs per CPU-second ({jobs / elapsed:,.0f} jobs/s wall; "
            f"{jobs:,} jobs, n={args.n}, m={args.m}, 1 thread)"
        )
    harmonic = harmonic_sets(args.sets, args.n, args.m, rng)
    for ties in ("fifo", "random:1"):
        simulate(sets[0], args.m, horizon=1000, record=False, ties=ties)  # compile
    for name, family in (("random periods", sets), ("harmonic periods", harmonic)):
        rates = {}
        for ties in ("index", "fifo", "random:1"):
            jobs = 0
            cpu_start = time.process_time()
            for ts in family:
                jobs += simulate(ts, args.m, horizon=args.horizon, record=False, ties=ties).jobs
            rates[ties] = jobs / (time.process_time() - cpu_start)
        print(
            f"fast path, periodic, {name}, by tie rule: "
            + ", ".join(f"{ties} {rate:,.0f}" for ties, rate in rates.items())
            + " jobs per CPU-second"
        )
    jobs = 0
    cpu_start = time.process_time()
    for ts in sets[:5]:
        jobs += simulate(ts, args.m, horizon=args.horizon // 20, record=True).jobs
    print(f"with trace recording:  {jobs / (time.process_time() - cpu_start):,.0f} jobs per CPU-second")
    ref_jobs = 0
    short = 20_000
    cpu_start = time.process_time()
    for ts in sets[:3]:
        ref_jobs += tick_reference(ts, args.m, short)
    ref_rate = ref_jobs / (time.process_time() - cpu_start)
    cpu_start = time.process_time()
    fast_jobs = sum(simulate(ts, args.m, horizon=short, record=False).jobs for ts in sets[:3])
    fast_rate = fast_jobs / (time.process_time() - cpu_start)
    print(
        f"pure-Python tick-by-tick reference: {ref_rate:,.0f} jobs per CPU-second; ratio {fast_rate / ref_rate:,.0f}x "
        f"(on horizon {short}, call overhead included)"
    )


if __name__ == "__main__":
    main()
