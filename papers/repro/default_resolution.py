"""Realized against target utilization, and the analyses' cost, for candidate default periods.

Issue 19, item 4: the generator rounds C = max(1, rint(u·T)), so with short periods every small
task is rounded up to one tick and the realized utilization Σ C/T of low-utilization sets is far
above the target. This script draws the default sweep's task sets (m = 4, n = 10,
UUniFast-Discard, uniform constrained deadlines, U/m = 0.05 .. 1.0) at several period ranges
and prints, per range, the worst relative error of the mean realized U/m over the points, then
the full table for the chosen range, and the wall time of each default analysis per range.

Run: python papers/repro/default_resolution.py [--sets 250] [--no-timing]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from rtsched import registry
from rtsched.generators import generate_batch

M, N = 4, 10
POINTS = [0.025] + [round(0.05 * k, 2) for k in range(1, 21)]  # the default sweep, and 0.025 (global_vs_partitioned)
CANDIDATES = (
    "log-uniform:10:1000",
    "log-uniform:100:10000",
    "log-uniform:1000:100000",
    "log-uniform:10000:1000000",
)


def realized_table(periods: str, sets: int, seed: int = 1) -> list[tuple[float, float, float, float]]:
    """Per point: target U/m, mean realized U/m, relative error of the mean, worst set's error."""
    rows = []
    for k, point in enumerate(POINTS):
        rng = np.random.default_rng([seed, k])
        out = generate_batch(rng, n=N, utilization=point * M, size=sets, utilizations="uunifast-discard",
                             periods=periods, deadlines="uniform", umax=1.0)
        realized = out.realized_utilization / M
        rel = realized / point - 1
        rows.append((point, float(realized.mean()), float(realized.mean() / point - 1), float(np.abs(rel).max())))
    return rows


def timing(periods: str, sets: int, names: list[str], seed: int = 1) -> dict[str, tuple[float, int]]:
    """Seconds and unknown verdicts per analysis over every point (sets per point as given)."""
    total: dict[str, list[float]] = {name: [0.0, 0] for name in names}
    for k, point in enumerate(POINTS):
        rng = np.random.default_rng([seed, k])
        batch = generate_batch(rng, n=N, utilization=point * M, size=sets, utilizations="uunifast-discard",
                               periods=periods, deadlines="uniform", umax=1.0).batch
        for name in names:
            entry = registry.get(name)
            start = time.perf_counter()
            codes = entry.status(batch, M)
            total[name][0] += time.perf_counter() - start
            total[name][1] += int(np.count_nonzero(codes == -1))
    return {name: (v[0], int(v[1])) for name, v in total.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", type=int, default=250, help="sets per point (default 250, as the default sweep)")
    parser.add_argument("--no-timing", action="store_true")
    parser.add_argument("--chosen", default="log-uniform:1000:100000")
    parser.add_argument("--analyses", default="")
    args = parser.parse_args()

    print(f"m = {M}, n = {N}, uunifast-discard, deadlines uniform, {args.sets} sets per point")
    print(f"{'periods':28} {'worst |mean err|':>16} {'at U/m':>7} {'worst set err':>14}")
    for periods in CANDIDATES:
        rows = realized_table(periods, args.sets)
        worst = max(rows, key=lambda r: abs(r[2]))
        print(f"{periods:28} {abs(worst[2]):16.4%} {worst[0]:7.3f} {max(r[3] for r in rows):14.3%}")
    print(f"\nper point, periods {args.chosen} (and the old log-uniform:10:1000):")
    print(f"{'U/m':>6} {'realized':>9} {'error':>8} {'worst set':>9}   {'old realized':>12} {'old error':>9}")
    for new, old in zip(realized_table(args.chosen, args.sets), realized_table("log-uniform:10:1000", args.sets), strict=True):
        print(f"{new[0]:6.3f} {new[1]:9.4f} {new[2]:8.3%} {new[3]:9.3%}   {old[1]:12.4f} {old[2]:9.2%}")
    if args.no_timing:
        return
    names = args.analyses.split(",") if args.analyses else [
        e.name for e in registry.all_entries(featured_only=True)
        if e.policy in ("global-edf", "partitioned-edf") and e.kind in ("sufficient", "necessary")
        and e.platform == "identical"
    ]
    timing(CANDIDATES[0], 2, names)  # compile / warm
    print(f"\nwall time per analysis over the {len(POINTS)} points (seconds; unknown verdicts in brackets):")
    print(f"{'analysis':18}" + "".join(f"{p.removeprefix('log-uniform:'):>20}" for p in CANDIDATES))
    results = {p: timing(p, args.sets, names) for p in CANDIDATES}
    for name in names:
        print(f"{name:18}" + "".join(f"{results[p][name][0]:13.2f} [{results[p][name][1]:3d}]" for p in CANDIDATES))
    print(f"{'total':18}" + "".join(f"{sum(v[0] for v in results[p].values()):19.2f} " for p in CANDIDATES))


if __name__ == "__main__":
    main()
