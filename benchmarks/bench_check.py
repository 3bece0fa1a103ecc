"""What a script pays per set: ``rtsched.check`` and ``rtsched check --json`` against the kernels (not a test).

    python benchmarks/bench_check.py [--sets 300] [--n 10] [--m 4]

For the eight global EDF sufficient tests on the same seeded sets (n = 10, m = 4) it prints,
in µs per set:

- the kernels: each analysis's batch call on all the sets at once, one thread, summed over the
  analyses (the floor: what the machine must do);
- ``check(ts, m, tests=...)`` one set at a time, reading only the verdicts (kernels behind it);
- the same with the evidence read too (``str(report)``: the exact explanations run);
- ``rtsched check FILE --json`` on the sets (a subprocess, so including start-up), per set.

Ratios are against the kernels. The target of the analysis contract: check() within 3× of the
summed kernels plus a fixed overhead of at most 20 µs per set.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numba
from _common import sample_batch

import rtsched
from rtsched import registry
from rtsched.io import write_tasksets

TESTS = ["gfb", "bak", "bcl", "bcl-iter", "rta", "bar", "load", "ffdbf"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", type=int, default=300)
    parser.add_argument("--n", type=int, default=10)
    parser.add_argument("--m", type=int, default=4)
    args = parser.parse_args()
    batch = sample_batch(args.sets, args.n, args.m, seed=7)
    sets = [batch[i] for i in range(batch.n_sets)]
    entries = [registry.get(name) for name in TESTS]
    for entry in entries:  # compile and warm up
        entry.decide(batch, args.m)
    rtsched.check(sets[0], args.m, tests=TESTS)

    numba.set_num_threads(1)
    kernels = 0.0
    for entry in entries:
        start = time.perf_counter()
        entry.decide(batch, args.m)
        kernels += time.perf_counter() - start
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    per_set_kernels = kernels / args.sets * 1e6

    start = time.perf_counter()
    verdicts = [rtsched.check(ts, args.m, tests=TESTS).verdicts for ts in sets]
    per_set_check = (time.perf_counter() - start) / args.sets * 1e6

    few = sets[: max(1, args.sets // 10)]
    start = time.perf_counter()
    for ts in few:
        str(rtsched.check(ts, args.m, tests=TESTS))
    per_set_explained = (time.perf_counter() - start) / len(few) * 1e6

    codes = {e.name: e.decide(batch, args.m) for e in entries}
    agree = all(
        verdicts[i][name] == {1: True, 0: False, -1: "unknown"}[int(codes[name][i])]
        for i in range(args.sets)
        for name in TESTS
    )

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "sets.jsonl"
        write_tasksets(path, sets)
        cmd = [
            sys.executable,
            "-m",
            "rtsched",
            "check",
            str(path),
            "-m",
            str(args.m),
            "--tests",
            ",".join(TESTS),
            "--json",
        ]
        start = time.perf_counter()
        done = subprocess.run(cmd, capture_output=True, text=True)
        cli = time.perf_counter() - start
        assert done.returncode in (0, 1), done.stderr
    print(f"{args.sets} sets, n = {args.n}, m = {args.m}, tests: {', '.join(TESTS)}")
    print(f"{'path':<44} {'µs/set':>10} {'× kernels':>10}")
    print(f"{'kernels (batch, one thread, summed)':<44} {per_set_kernels:10.1f} {1.0:10.1f}")
    print(f"{'check(), verdicts only':<44} {per_set_check:10.1f} {per_set_check / per_set_kernels:10.1f}")
    print(
        f"{'check() + str(report) (evidence)':<44} {per_set_explained:10.1f} {per_set_explained / per_set_kernels:10.1f}"
    )
    print(
        f"{'rtsched check --json (whole command)':<44} {cli / args.sets * 1e6:10.1f} {cli / args.sets * 1e6 / per_set_kernels:10.1f}"
    )
    print(f"check() overhead beyond 3× kernels: {per_set_check - 3 * per_set_kernels:.1f} µs/set (target ≤ 20)")
    print(f"verdicts equal to the batch API: {agree}")


if __name__ == "__main__":
    main()
