"""What a script pays per set: ``rtsched.check`` and ``rtsched check --json`` against the kernels (not a test).

    python benchmarks/bench_check.py [--sets 300] [--cli-sets 3000] [--n 10] [--m 4]

For the eight global EDF sufficient tests on the same seeded sets (n = 10, m = 4) it prints, in
µs per set:

- the kernels in a batch: each analysis's ``status`` on all the sets at once, one thread, summed
  over the analyses (the floor: what the machine must do);
- the 1-set kernels: each analysis's serial one-set kernel (``one``, what ``check()`` calls),
  called directly from Python on every set, summed over the analyses;
- ``check(ts, m, tests=...)`` one set at a time, reading only the verdicts;
- the same with the evidence read too (``str(report)``: the exact explanations run);
- ``rtsched check FILE --json`` on ``--cli-sets`` sets (a subprocess, so including start-up).

The target of the analysis contract (issue #13): check() within 3× the summed 1-set kernel cost
plus a fixed overhead of at most 20 µs per set; the CLI deciding 3,000 sets × 8 tests in seconds
with verdicts equal to the batch API. Both are printed and checked at the end.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numba
from _common import sample_batch

import rtsched
from rtsched import registry, warmup
from rtsched.io import write_tasksets

TESTS = ["gfb", "bak", "bcl", "bcl-iter", "rta", "bar", "load", "ffdbf"]
VERDICT = {1: True, 0: False, -1: "unknown"}


def best_of(fn, repeat: int = 5) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", type=int, default=300)
    parser.add_argument("--cli-sets", type=int, default=3000)
    parser.add_argument("--n", type=int, default=10)
    parser.add_argument("--m", type=int, default=4)
    args = parser.parse_args()
    batch = sample_batch(args.sets, args.n, args.m, seed=7)
    sets = [batch[i] for i in range(batch.n_sets)]
    entries = [registry.get(name) for name in TESTS]
    for entry in entries:  # compile and warm up
        entry.status(batch, args.m)
        entry.verdict(sets[0], args.m)
        # What `rtsched cache --compile` or a first sweep leaves: without the marker, check()
        # decides small sets with the references until their time reaches the compile time
        # (rtsched/check.py), and this would time that cold path instead.
        warmup.mark(entry.name)
    rtsched.check(sets[0], args.m, tests=TESTS)

    numba.set_num_threads(1)
    kernels = sum(best_of(lambda e=entry: e.status(batch, args.m)) for entry in entries)
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    per_set_kernels = kernels / args.sets * 1e6

    ones = 0.0
    for entry in entries:
        one = entry._one
        extra = () if entry.budget is None else (entry.budget,)
        if one is None:
            ones += best_of(lambda e=entry: [e.verdict(ts, args.m) for ts in sets])
            continue
        arrays = [(ts.C, ts.D, ts.T) for ts in sets]
        ones += best_of(lambda one=one, extra=extra, arrays=arrays: [one(C, D, T, args.m, *extra) for C, D, T in arrays])
    per_set_ones = ones / args.sets * 1e6

    per_set_check = best_of(lambda: [rtsched.check(ts, args.m, tests=TESTS).verdicts for ts in sets]) / args.sets * 1e6
    verdicts = [rtsched.check(ts, args.m, tests=TESTS).verdicts for ts in sets]

    few = sets[: max(1, args.sets // 10)]
    start = time.perf_counter()
    for ts in few:
        str(rtsched.check(ts, args.m, tests=TESTS))
    per_set_explained = (time.perf_counter() - start) / len(few) * 1e6

    codes = {e.name: e.status(batch, args.m) for e in entries}
    agree = all(verdicts[i][name] == VERDICT[int(codes[name][i])] for i in range(args.sets) for name in TESTS)

    cli_batch = sample_batch(args.cli_sets, args.n, args.m, seed=8)
    cli_sets = [cli_batch[i] for i in range(cli_batch.n_sets)]
    cli_codes = {e.name: e.status(cli_batch, args.m) for e in entries}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "sets.jsonl"
        write_tasksets(path, cli_sets)
        cmd = [sys.executable, "-m", "rtsched", "check", str(path), "-m", str(args.m), "--tests", ",".join(TESTS), "--json"]
        start = time.perf_counter()
        done = subprocess.run(cmd, capture_output=True, text=True)
        cli = time.perf_counter() - start
        assert done.returncode in (0, 1), done.stderr
        lines = [json.loads(line) for line in done.stdout.splitlines()]
    cli_agree = len(lines) == args.cli_sets and all(
        lines[i]["verdicts"][name] == VERDICT[int(cli_codes[name][i])] for i in range(args.cli_sets) for name in TESTS
    )

    print(f"{args.sets} sets, n = {args.n}, m = {args.m}, tests: {', '.join(TESTS)}")
    print(f"{'path':<46} {'µs/set':>10} {'× batch':>9}")
    rows = [
        ("kernels (batch, one thread, summed)", per_set_kernels),
        ("1-set kernels (serial `one`, summed)", per_set_ones),
        ("check(), verdicts only", per_set_check),
        ("check() + str(report) (evidence)", per_set_explained),
    ]
    for label, value in rows:
        print(f"{label:<46} {value:10.1f} {value / per_set_kernels:9.1f}")
    print(f"rtsched check --json, {args.cli_sets} sets (whole command): {cli:.2f} s ({cli / args.cli_sets * 1e6:.0f} µs/set)")
    overhead = per_set_check - 3 * per_set_ones
    print(f"check() beyond 3× the 1-set kernels: {overhead:.1f} µs/set (target ≤ 20): {'met' if overhead <= 20 else 'NOT met'}")
    print(f"check() verdicts equal to the batch API: {agree}; CLI verdicts equal to the batch API: {cli_agree}")


if __name__ == "__main__":
    main()
