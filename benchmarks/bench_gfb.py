"""GFB throughput: batch kernel (1 thread, all threads) vs the exact Fraction reference.

Run: ``python benchmarks/bench_gfb.py [--sets 1000000]``. Target: >= 1e7 sets/s on one core (n = 10).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import arguments, rate, sample_batch, thread_rates

from rtsched import analyses


def main() -> None:
    parser = arguments(__doc__, sets=1_000_000, reference_sets=5_000)
    args = parser.parse_args()
    entry = analyses.get("gfb")
    batch = sample_batch(args.sets, n=10, m=4)
    small = batch.select(range(args.reference_sets))
    entry.batch(small, 4)  # compile
    one, many, threads = thread_rates(lambda: entry.batch(batch, 4), args.sets)
    ref = rate(lambda: [entry.reference(ts, 4) for ts in small], args.reference_sets, repeat=1)
    print(f"GFB, n = 10, m = 4, {args.sets} sets")
    print(f"  kernel, 1 thread : {one:14,.0f} sets/s  ({1e6 / one:.3f} µs/set)  target >= 10,000,000 sets/s")
    print(f"  kernel, {threads} threads: {many:14,.0f} sets/s  ({1e6 / many:.3f} µs/set)")
    print(f"  reference (Fractions): {ref:10,.0f} sets/s")
    print(f"  ratio kernel(1 thread)/reference: {one / ref:,.0f}x")


if __name__ == "__main__":
    main()
