"""A large sweep: peak memory and the accuracy of the progress ETA.

    python benchmarks/bench_sweep_scale.py [--sets 10000000] [--sets-per-unit 20000] [--workers 2]
                                           [--analyses gfb,bak]

One variable (U/m, 20 points), m = 4, n = 10, ``--sets`` task sets in all, every analysis named.
The sweep runs with log progress (a line every 5 s with the estimated time left); afterwards
each estimate is compared with the time that was actually left. Prints the wall time, sets/s,
the peak RSS of this process and of the pool workers (the largest one), the unit files'
size, and the ETA error after the first 10 % of the units (the issue's target: within 20 %).

The sweep's memory is bounded by design: a unit's sets live only while the unit runs, the
parent keeps one small record per unit, and at most 4 × workers units are in flight.
"""

from __future__ import annotations

import argparse
import io
import re
import resource
import tempfile
import time
from pathlib import Path

from _common import u_over_m_study

from rtsched.sweep import parse_experiment, run

LINE = re.compile(r"(\d+)/(\d+) units .*?, ([\d.]+) s elapsed, (?:about (\d+) s left|estimating)")


def experiment(sets: int, per_unit: int, names: list[str]) -> dict:
    """The study as parsed TOML data: 20 points of U/m, ``sets`` in all."""
    points = 20
    return u_over_m_study("scale", 7, (0.05, 1.0, 0.05), sets // points, per_unit, names)


class Tee(io.StringIO):
    """Keeps the progress lines and echoes them."""

    def write(self, text: str) -> int:
        print(text, end="", flush=True)
        return super().write(text)

    def isatty(self) -> bool:
        return False


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sets", type=int, default=10**7)
    parser.add_argument("--sets-per-unit", type=int, default=20_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--analyses", default="gfb")
    args = parser.parse_args()
    names = args.analyses.split(",")
    exp = parse_experiment(experiment(args.sets, args.sets_per_unit, names))
    with tempfile.TemporaryDirectory(prefix="rtsched-scale-") as folder:
        # Compile (and cache) the kernels first, so that the timed run measures the sweep.
        run(
            parse_experiment(experiment(2000, 100, names)),
            Path(folder) / "warm",
            workers=0,
            progress="none",
            plot=False,
        )
        stream = Tee()
        start = time.monotonic()
        results = run(exp, Path(folder) / "out", workers=args.workers, progress="log", plot=False, stream=stream)
        wall = time.monotonic() - start
        store_bytes = sum(p.stat().st_size for p in (Path(folder) / "out" / "units").iterdir())
    self_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    child_rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(
        f"\n{results.sets:,} task sets in {results.units_total} units, {args.workers} workers, analyses {', '.join(names)}"
    )
    print(f"wall {wall:.1f} s ({results.elapsed:.1f} s in run()), {results.sets / wall:,.0f} sets/s")
    print(
        f"peak RSS: this process {self_rss:.0f} MB, largest worker {child_rss:.0f} MB; unit files {store_bytes / 2**20:.1f} MB"
    )
    # ETA accuracy: each log line's estimate against the time actually left (run() ends at `wall`,
    # minus the time after the last unit: aggregation and writing, measured from the last line).
    estimates = []
    for match in LINE.finditer(stream.getvalue()):
        done, total, elapsed, left = int(match[1]), int(match[2]), float(match[3]), match[4]
        if left is not None and total // 10 <= done <= 9 * total // 10:
            estimates.append((done, elapsed, float(left)))
    last = [float(m[3]) for m in LINE.finditer(stream.getvalue())]
    finish = last[-1] if last else wall
    if not estimates:
        print("ETA: too few progress lines after the first 10 % of the units to judge (run a larger sweep)")
        return
    errors = [abs(left - (finish - elapsed)) / max(finish - elapsed, 1e-9) for _, elapsed, left in estimates]
    worst = max(errors)
    print(
        f"ETA from 10 % to 90 % of the units: {len(errors)} estimates, mean error {100 * sum(errors) / len(errors):.1f} %, "
        f"worst {100 * worst:.1f} % (the estimate at {estimates[errors.index(worst)][0]} units)"
    )


if __name__ == "__main__":
    main()
