"""Reach of the exact G-EDF test: time per set for n = 4…12, m = 2 and 4, periods up to 10, 20, 50.

Sets: UUniFast-like random utilizations with total U = 0.6·m (the hard middle: U ≤ m so the
necessary condition does not decide), periods uniform in [2, Tmax], constrained deadlines
uniform in [C, T]. Each set runs under a budget (states and transitions); a set that exhausts it
counts as "unknown" and its time is the time to exhaust it. The pure-Python BFS reference is
timed on the smallest configuration for the ratio.

    python benchmarks/bench_exact.py [--sets N] [--max-states S] [--quick]
"""

from __future__ import annotations

import argparse
import statistics
import time

import numba
import numpy as np

from rtsched.analyses import exact_gedf
from rtsched.kernels import ACCEPT, REJECT
from rtsched.model import TaskSet


def random_set(n: int, m: int, t_max: int, rng: np.random.Generator) -> TaskSet:
    """One constrained-deadline set with total utilization about 0.6·m and at most m.

    Rounding C up to 1 can push U above m for many tasks with short periods; such draws are
    redrawn (U > m is decided without exploring, which would flatter the timings).
    """
    while True:
        u = rng.dirichlet(np.ones(n)) * 0.6 * m
        T = rng.integers(2, t_max + 1, size=n)
        C = np.clip(np.round(u * T), 1, T).astype(np.int64)
        D = np.array([rng.integers(c, t + 1) for c, t in zip(C, T, strict=True)], dtype=np.int64)
        ts = TaskSet(C, D, T)
        if ts.utilization <= m:
            return ts


def main() -> None:
    """Run the benchmark and print one line per configuration."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sets", type=int, default=10)
    parser.add_argument("--max-states", type=int, default=500_000)
    parser.add_argument("--max-transitions", type=int, default=20_000_000)
    parser.add_argument("--quick", action="store_true", help="n = 4, 6, 8 and periods up to 10, 20 only")
    args = parser.parse_args()
    numba.set_num_threads(1)
    rng = np.random.default_rng(7)
    exact_gedf.explore(TaskSet.from_tasks([(1, 2, 2), (1, 2, 2), (1, 2, 2)]), 2)  # compile
    sizes = [4, 6, 8] if args.quick else [4, 6, 8, 10, 12]
    periods = [10, 20] if args.quick else [10, 20, 50]
    print(f"budget: {args.max_states:,} states, {args.max_transitions:,} transitions; {args.sets} sets per row")
    print("times are CPU seconds per set (one thread)")
    print(f"{'m':>2} {'n':>3} {'Tmax':>5} {'median s':>9} {'max s':>8} {'accept':>6} {'reject':>6} {'unknown':>7} {'states(med)':>12}")
    for m in (2, 4):
        for n in sizes:
            if n <= m:
                continue
            for t_max in periods:
                times, states, codes = [], [], []
                for _ in range(args.sets):
                    ts = random_set(n, m, t_max, rng)
                    start = time.process_time()  # CPU time: the machine may be shared
                    res = exact_gedf.explore(ts, m, max_states=args.max_states, max_transitions=args.max_transitions)
                    times.append(time.process_time() - start)
                    states.append(res.states)
                    codes.append(res.code)
                print(
                    f"{m:>2} {n:>3} {t_max:>5} {statistics.median(times):>9.4f} {max(times):>8.3f} "
                    f"{codes.count(int(ACCEPT)):>6} {codes.count(int(REJECT)):>6} "
                    f"{len(codes) - codes.count(int(ACCEPT)) - codes.count(int(REJECT)):>7} {int(statistics.median(states)):>12,}"
                )
    # kernel vs the pure-Python reference on small sets
    small = [random_set(4, 2, 6, rng) for _ in range(20)]
    start = time.process_time()
    for ts in small:
        exact_gedf.reference(ts, 2)
    ref = (time.process_time() - start) / len(small)
    start = time.process_time()
    for ts in small:
        exact_gedf.explore(ts, 2, shortcuts=False)
    ker = (time.process_time() - start) / len(small)
    print(f"n=4, m=2, T<=6: reference {ref * 1e3:.2f} ms/set, kernel {ker * 1e3:.3f} ms/set, ratio {ref / ker:,.0f}x")


if __name__ == "__main__":
    main()
