"""Which path of the BCL-iter kernel settles each set, and what each path costs (issue 15).

Run (on demand; never part of the test suite)::

    python benchmarks/bench_bcl_iter_paths.py [--sets 2000] [--rounds 7] [--seed 15] [--twin]

``--twin`` times the serial twin, which sweep units run, instead of the ``prange`` driver: the two
run different compiled copies of the chunk loop (papers/bcl2005.md, "One compiled copy, not two";
``bench_serial_twins.py``), so judge a kernel change on both.

The sets are those of the per-set table of ``bench_vs_schedcat.py`` (n = 10, m = 4, U/m uniform
over (0, 1], periods log-uniform in [10, 1000], D uniform in [C, T], the same seed). Each set is
classified by re-running the steps of ``bcl_iter._bcl_iter_set`` one by one at the default
budget (the same helpers of ``analyses/global_edf/_slack.py``; the classification mirrors the one
the tests hold to the reference, :func:`rtsched.analyses.global_edf.bcl_iter.kernel_path`). Then the
batch kernel is timed on the sets of each path and on all sets, one thread, medians of
alternating rounds of process CPU time (``bench_vs_schedcat.median_us_per_set``). It prints per
path: its share of the sets, ns per set on that path, and its contribution to the mean
(share × ns).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numba
import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
import bench_vs_schedcat
from bench_vs_schedcat import M, draw_sets, median_us_per_set, runner

from rtsched import analyses
from rtsched.analyses.global_edf import bcl_iter


def kernel_path(ts, m: int, budget: int) -> str:
    """The path ``_bcl_iter_set`` takes for ``ts`` (:func:`bcl_iter.kernel_path`), the fixed point split by verdict."""
    path, _ = bcl_iter.kernel_path(ts, m, budget)
    if path == "fixed point decides":
        return "fixed point accepts" if bcl_iter.reference(ts, m, budget) is True else "fixed point rejects"
    return path


def main() -> None:
    """Classify the sets, time every path, print the table."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sets", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=7, help="alternating rounds (the median is reported)")
    parser.add_argument("--seed", type=int, default=15)
    parser.add_argument(
        "--twin", action="store_true", help="time the serial twin (what a sweep unit runs), not the prange driver"
    )
    args = parser.parse_args()
    bench_vs_schedcat.TWIN = args.twin
    numba.set_num_threads(1)
    entry = analyses.get("bcl-iter")
    batch = draw_sets(np.random.default_rng(args.seed), args.sets, 10, M, "uniform")
    paths = np.array([kernel_path(batch[s], M, bcl_iter.DEFAULT_BUDGET) for s in range(batch.n_sets)])
    names = sorted(set(paths), key=lambda p: -np.sum(paths == p))
    calls = {"all sets": (runner(entry, batch, M), batch.n_sets)}
    for name in names:
        keep = np.flatnonzero(paths == name)
        calls[name] = (runner(entry, batch.select(keep), M), int(keep.size))
    us = median_us_per_set(calls, args.rounds)
    kernel = "the serial twin" if args.twin else "the prange driver, one thread"
    print(f"bcl-iter paths: {args.sets} sets, n = 10, m = {M}, bench_vs_schedcat's per-set recipe (seed {args.seed}); {kernel}")
    print(f"{'path':42} {'share':>6} {'ns/set':>8} {'share × ns':>11}")
    for name in names:
        share = float(np.mean(paths == name))
        print(f"{name:42} {share:6.3f} {1000 * us[name]:8.1f} {1000 * us[name] * share:11.1f}")
    print(f"{'all sets (one batch)':42} {1.0:6.3f} {1000 * us['all sets']:8.1f}")


if __name__ == "__main__":
    main()
