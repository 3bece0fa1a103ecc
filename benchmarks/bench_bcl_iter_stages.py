"""What each step of the BCL-iter kernel costs, path by path (not a test; issue #45).

Run (on demand; never part of the test suite)::

    python benchmarks/bench_bcl_iter_stages.py [--sets 40000] [--rounds 7] [--seed 15]
    NUMBA_CPU_NAME=haswell NUMBA_CPU_FEATURES="" python benchmarks/bench_bcl_iter_stages.py   # AVX2 code

``bench_bcl_iter_paths.py`` times each kernel path as a whole; this one splits a path into the
kernel's steps, so that a change can be aimed at the step that costs. It draws the sets of
``bench_vs_schedcat.py``'s per-set recipe (n = 10, m = 4), classifies each by the path the kernel
takes (:func:`rtsched.analyses.global_edf.bcl_iter.kernel_path`), and, on the sets of each path,
times loops over the sets that run the kernel's steps (the helpers of
``analyses/global_edf/_slack.py``, compiled here with the kernel's options) cumulatively, each
loop stopping after one more step:

1. τh's pre-check row (``_precheck_row``; every set runs it), then, when the row is heavy, the
   rejection from above (``slack_rejects_from_above``);
2. S^lb alone (``slack_lower_bounds``), then S^lb with the certificate's rows
   (``slack_certificate``), so that the rows' cost is the difference;
3. the column pass (``slack_columns``);
4. the step certificate (``slack_step_certificate``, when at most two rows fail, as the kernel
   runs it);
5. the least fixed point (``slack_fixed_point``).

A loop runs every step up to its own on every set, whatever the earlier steps returned, so on a
path's own sets (where the kernel runs them all) each difference between consecutive columns is
what that step adds. Medians of alternating rounds of process CPU time, ns per set, one thread
(``bench_vs_schedcat.median_us_per_set``).
The loops are not the kernel: the two passes per block of ``_bcl_iter_chunk`` and the mixing of
paths in one batch (branches the predictor cannot learn) are left out, so a path's last column is
below its ``bench_bcl_iter_paths.py`` figure. Each loop is compiled in this process, on its own:
between two runs the same step has measured up to 25 % apart (the Haswell build's fixed point on
rejecting sets 183 and 243 ns; papers/bcl2005.md, "Where the time goes, step by step"), so read
the columns as where the time goes, never as an A/B of two kernels (``bench_vs_schedcat.py`` and
``bench_bcl_iter_paths.py`` time the kernel itself).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numba
import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from _common import host_line
from bench_vs_schedcat import M, draw_sets, median_us_per_set

from rtsched.analyses.global_edf import _slack as slack
from rtsched.analyses.global_edf import bcl_iter
from rtsched.kernels import kernel, largest_set_size

#: The steps, cumulative: a loop with step s runs steps 0..s (step 2 is S^lb alone, which step 3
#: runs again inside the certificate; step 1, the rejection from above, runs on heavy rows only).
STEPS = ("pre-check row", "from above", "S^lb", "S^lb + rows", "columns", "step certificate", "fixed point")
#: The steps each path's kernel runs, by the path's name in ``bcl_iter.kernel_path``.
PATH_STEPS = {
    "one-row pre-check rejects": 1,
    "rejection from above": 2,
    "certificate accepts (rows)": 4,
    "certificate accepts (columns)": 5,
    "step certificate accepts": 6,
    "fixed point decides": 7,
    "fixed point accepts early": 7,
    "fixed point rejects, pre-check fails": 7,
}


def stage_loop(stage: int):
    """A compiled loop over a batch's sets running the kernel's steps 0..``stage``."""

    @kernel(counted=False, cache=False)
    def run(C, D, T, offsets, m, work, fwork):
        acc = 0
        for s in range(offsets.shape[0] - 1):
            lo = offsets[np.uint64(s)]
            n = offsets[np.uint64(s + 1)] - lo
            row = bcl_iter._precheck_row(C, D, T, lo, n, m)
            acc += row
            if stage >= 1 and row & bcl_iter.ROW_HEAVY:
                acc += slack.slack_rejects_from_above(C, D, T, lo, n, m, bcl_iter.DEFAULT_BUDGET, work, fwork)
            if stage == 2:
                acc += slack.slack_lower_bounds(C, D, T, lo, n, m, work, fwork, True)[1]  # (as slack_certificate)
            if stage >= 3:
                acc += slack.slack_certificate(C, D, T, lo, n, m, work, fwork)
            if stage >= 4:
                failing = slack.slack_columns(C, T, lo, n, m, work, fwork)
                acc += failing
                if stage >= 5 and failing <= 2:
                    acc += slack.slack_step_certificate(C, T, lo, n, m, work, fwork)
                if stage >= 6:
                    acc += slack.slack_fixed_point(C, D, T, lo, n, m, work, fwork)[0]
        return acc

    return run


def main() -> None:
    """Classify the sets, time the cumulative steps on each path's sets, print the table."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sets", type=int, default=40_000)
    parser.add_argument("--rounds", type=int, default=7, help="alternating rounds (the median is reported)")
    parser.add_argument("--seed", type=int, default=15)
    args = parser.parse_args()
    numba.set_num_threads(1)
    batch = draw_sets(np.random.default_rng(args.seed), args.sets, 10, M, "uniform")
    paths = np.array([bcl_iter.kernel_path(batch[s], M, bcl_iter.DEFAULT_BUDGET)[0] for s in range(batch.n_sets)])
    width = slack.padded_width.py_func(largest_set_size(batch.offsets))
    work = np.empty((slack.SLACK_ROWS, width), dtype=np.int64)
    fwork = np.empty((slack.SLACK_FLOAT_ROWS, width), dtype=np.float64)
    loops = [stage_loop(stage) for stage in range(len(STEPS))]
    print(host_line())
    print(f"bcl-iter steps: {args.sets} sets, n = 10, m = {M}, bench_vs_schedcat's per-set recipe (seed {args.seed})")
    print("ns per set on each path's sets, cumulative: each column runs every step up to its own")
    print(f"{'path':38} {'share':>6}" + "".join(f" {name:>17}" for name in STEPS))
    for name in sorted(PATH_STEPS, key=lambda p: -np.sum(paths == p)):
        keep = np.flatnonzero(paths == name)
        if keep.size == 0:
            continue
        sub = batch.select(keep)
        calls = {
            step: ((lambda loop=loop, sub=sub: loop(sub.C, sub.D, sub.T, sub.offsets, M, work, fwork)), sub.n_sets)
            for step, loop in zip(STEPS, loops[: PATH_STEPS[name]], strict=False)
        }
        us = median_us_per_set(calls, args.rounds)  # (compiles each loop first)
        cells = [f" {1000 * us[step]:17.1f}" for step in calls]
        cells += [f" {'':>17}"] * (len(STEPS) - len(cells))
        print(f"{name:38} {keep.size / batch.n_sets:6.3f}" + "".join(cells))


if __name__ == "__main__":
    main()
