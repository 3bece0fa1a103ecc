"""Global FP sufficient tests: batch kernels (1 thread, all threads), serial one-set kernels and the
exact Python-int references, n = 10, m = 4.

Run: ``python benchmarks/bench_gfp.py [--sets 200000] [--names gfp-rta,gfp-rta-lc]``. Priorities are
deadline-monotonic (each set of the benchmark distribution sorted by D, ties by index), since under
a random order almost every set is rejected at its first heavy task. rm-us gets the same sets with
implicit deadlines (D = T). Printed as sets/s and as ratios against the reference.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numba
import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from _common import arguments, deadline_monotonic, rate, sample_batch, thread_rates

from rtsched import analyses
from rtsched.model import TaskSetBatch

NAMES = ("gfp-bcl", "gfp-da", "gfp-da-lc", "gfp-rta", "gfp-rta-lc", "rm-us")


def measure(entry, batch: TaskSetBatch, m: int, n_sets: int, n_reference: int) -> dict[str, float]:
    """sets/s of the batch kernel (1 thread, all threads), the serial one-set path and the reference."""
    small = batch.select(range(n_reference))
    entry.status(small, m)  # compile
    one_thread, many, _ = thread_rates(lambda: entry.status(batch, m), n_sets)
    sets = [small[s] for s in range(small.n_sets)]
    serial = rate(lambda: [entry.verdict(ts, m) for ts in sets], len(sets))
    reference = rate(lambda: [entry.reference(ts, m) for ts in sets], len(sets), repeat=1)
    accepted = float(np.mean(entry.status(batch, m) == 1))
    return {"accepted": accepted, "one_thread": one_thread, "many": many, "serial": serial, "reference": reference}


def main() -> None:
    parser = arguments(__doc__, sets=200_000, reference_sets=2_000)
    parser.add_argument("--names", default=",".join(NAMES))
    args = parser.parse_args()
    n, m = 10, 4
    base = sample_batch(args.sets, n=n, m=m, u_range=(1.0, 3.0))
    batches = {False: deadline_monotonic(base, n), True: deadline_monotonic(base, n, implicit=True)}
    threads = numba.get_num_threads()
    print(f"global FP, n = {n}, m = {m}, {args.sets} sets (DM order; rm-us: D = T), {threads} threads")
    print(
        f"{'analysis':<12}{'accepted':>9}{'kernel 1 thr':>16}{'kernel all':>14}{'one-set':>12}{'reference':>12}{'ratio':>10}"
    )
    for name in args.names.split(","):
        row = measure(analyses.get(name), batches[name == "rm-us"], m, args.sets, args.reference_sets)
        print(
            f"{name:<12}{row['accepted']:>9.1%}{row['one_thread']:>13,.0f}/s{row['many']:>12,.0f}/s"
            f"{row['serial']:>10,.0f}/s{row['reference']:>10,.0f}/s{row['one_thread'] / row['reference']:>9,.0f}x"
        )
    print("ratio = batch kernel on one thread / Python-int reference (same sets)")


if __name__ == "__main__":
    main()
