"""Which path of the BCL-iter kernel settles each set, and what each path costs (issue 15).

Run (on demand; never part of the test suite)::

    python benchmarks/bench_bcl_iter_paths.py [--sets 2000] [--rounds 7] [--seed 15]

The sets are those of the per-set table of ``bench_vs_schedcat.py`` (n = 10, m = 4, U/m uniform
over (0, 1], periods log-uniform in [10, 1000], D uniform in [C, T], the same seed). Each set is
classified by re-running the steps of ``bcl_iter._bcl_iter_set`` one by one at the default
budget (the same helpers of ``analyses/_gedf_common.py``; the classification mirrors the one
the tests hold to the reference, ``tests/test_gedf_sufficient.py::bcl_iter_path``). Then the
batch kernel is timed on the sets of each path and on all sets, one thread, medians of
alternating rounds of process CPU time (``bench_vs_schedcat.median_us_per_set``). It prints per
path: its share of the sets, ns per set on that path, and its contribution to the mean
(share × ns).
"""

from __future__ import annotations

import argparse
import sys
from fractions import Fraction
from pathlib import Path

import numba
import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from bench_vs_schedcat import M, draw_sets, median_us_per_set, runner

from rtsched import analyses
from rtsched.analyses import _gedf_common as common
from rtsched.analyses import bcl_iter


def kernel_path(ts, m: int, budget: int) -> str:
    """The path ``_bcl_iter_set`` takes for ``ts`` (its steps re-run one by one)."""
    C, D, T = ts.C, ts.D, ts.T
    n = ts.n
    f = max(range(n), key=lambda k: Fraction(int(C[k]), int(D[k] - C[k]) + 1))
    cap = int(D[f] - C[f]) + 1
    lower = sum(
        min(int(C[i]) if D[f] >= T[i] else min(int(C[i]), max(int(D[f] - D[i] + C[i]), 0)), cap)
        for i in range(n)
        if i != f
    )
    if lower >= m * cap:
        return "division-free rejection"
    h = max(range(n), key=lambda k: 2 * int(C[k]) - int(D[k]))
    S_max = [int(d) - int(c) for c, d in zip(C, D, strict=True)]
    if bcl_iter.slack_update(ts, h, S_max, m) < 0:
        return "one-row pre-check rejects"
    width = common.padded_width(n)
    work = np.zeros((common.SLACK_ROWS, width), dtype=np.int64)
    fwork = np.zeros((common.SLACK_FLOAT_ROWS, width))
    if common.slack_certificate(C, D, T, 0, n, m, work, fwork) == 1 and budget >= 3:
        return "certificate accepts"
    verdict, rounds = common.slack_fixed_point(C, D, T, 0, n, m, work, fwork)
    if rounds > budget:
        return "pre-check or rounds (bound above budget)"
    if verdict != 1:
        precheck = any(bcl_iter.slack_update(ts, k, S_max, m) < 0 for k in range(n))
        return "fixed point rejects, pre-check fails" if precheck else "fixed point rejects"
    S = [int(x) for x in work[common.W_SLACK, :n]]
    at_fixed_point = all(bcl_iter.slack_update(ts, k, S, m) <= S[k] for k in range(n))
    return "fixed point accepts" if at_fixed_point else "fixed point accepts early"


def main() -> None:
    """Classify the sets, time every path, print the table."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sets", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=7, help="alternating rounds (the median is reported)")
    parser.add_argument("--seed", type=int, default=15)
    args = parser.parse_args()
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
    print(f"bcl-iter paths: {args.sets} sets, n = 10, m = {M}, bench_vs_schedcat's per-set recipe (seed {args.seed})")
    print(f"{'path':42} {'share':>6} {'ns/set':>8} {'share × ns':>11}")
    for name in names:
        share = float(np.mean(paths == name))
        print(f"{name:42} {share:6.3f} {1000 * us[name]:8.1f} {1000 * us[name] * share:11.1f}")
    print(f"{'all sets (one batch)':42} {1.0:6.3f} {1000 * us['all sets']:8.1f}")


if __name__ == "__main__":
    main()
