"""Exact G-EDF: the default search order ``auto`` against the breadth-first search it replaced.

Issue 15, item 3: on m = 2, n = 9–10, periods ≤ 20, decide at least as many sets as Burmyakov's
C++ state-space test (github.com/burmyakov/exact-sched-test-gedf; lowest-index ties, like
``exact:index``) within 10 s CPU each, with less CPU on the sets both decide; then m = 4.

Sets (seeded, :func:`issue_shape_set`): n tasks, T uniform in [2, Tmax], total utilization
spread over (0, m] (set k of N draws its total uniformly in (k, k + 1]·m/N), split by a flat
Dirichlet (the UUniFast distribution), C = max(1, round(u·T)), D uniform in [C, T]; a draw whose
rounded U exceeds m is redrawn. Each set runs in a worker process whose CPU time is capped
(``RLIMIT_CPU``; a set that uses more than ``--cap`` seconds, or kills the worker, gives no
answer) under both search orders, in alternating order from set to set (the machine may be
shared: both orders see the same load). The budget (explored states) is set high so that the CPU
cap, not the budget, stops a search; the table says how many stopped on the budget instead.
Orders (analyses/exact/_state_space.py, ``search``): ``breadth`` (the only order before), ``auto``
(now the default: one search, depth-first for 16,384 states, best-first for 32,768 more, then
breadth-first by depth; the table below predates the best-first phase) and ``depth``
(depth-first alone). benchmarks/bench_exact_vs_cpp.py measures the C++ test on the same sets.

Columns: decided (accept + reject) by each order, CPU seconds per set (median over all sets,
capped ones counted at the cap), and the summed CPU of breadth and auto over the sets both
decide, with its ratio. Verdicts of the orders are compared wherever two decide (they must
agree; "disagree" counts sets where they do not). The C++
figures are the issue's (measured on other sets of the same shape, with the C++ built from
source): printed as constants for comparison, not measured here.

    python benchmarks/bench_exact_search.py [--sets 10] [--cap 10] [--ties index|every] [--cells m2|m4|all] [--verbose]

Output on this machine (2 cores shared with other jobs; ``--ties index``, 10 sets per row,
10 s CPU cap, budget 8,000,000 states):

     m   n  Tmax  sets    C++  breadth: decided (a/r) med s   auto: decided (a/r) med s  depth: decided (a/r) med s  both breadth s    auto s  speedup  disagree
     2   9    20    10      7           8 (5/3)     1.021           8 (5/3)     1.190           7 (4/3)     0.304     8    12.354    12.070     1.0x         0
     2  10    20    10      4           7 (2/5)     0.564           9 (2/7)     0.000           9 (2/7)     0.000     7     3.178     2.306     1.4x         0
     4   9    20    10      -          10 (5/5)     0.009          10 (5/5)     0.000          10 (5/5)     0.000    10     4.746     0.084    56.6x         0
     4  10    20    10      -           8 (4/4)     0.048           8 (4/4)     0.015           8 (4/4)     0.015     8     0.563     0.262     2.2x         0
    decided in all rows: breadth-first 33, auto 35, depth-first 34
    C++ (the issue's figures): n = 9: 7 of 10; n = 10: 4 of 10; 91 of 100 over the issue's ten rows (n up to 10; rtsched's breadth-first search then: 88)

The C++ column is the issue's count on its own sets of this shape, not these ones.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import statistics
import subprocess
import sys
import time
from fractions import Fraction

import numpy as np

#: The issue's figures for Burmyakov's C++ test (m = 2, 10 sets per row, 10 s CPU cap): sets decided.
CPP_DECIDED = {(2, 9, 20): 7, (2, 10, 20): 4}
CPP_OVERALL = "91 of 100 over the issue's ten rows (n up to 10; rtsched's breadth-first search then: 88)"
CELLS = {"m2": [(2, 9, 20), (2, 10, 20)], "m4": [(4, 9, 20), (4, 10, 20)]}
ORDERS = ("breadth", "auto", "depth")


def issue_shape_set(n: int, m: int, t_max: int, k: int, count: int, rng: np.random.Generator) -> list[list[int]]:
    """Set ``k`` of ``count`` (see the module docstring): rows (C, D, T)."""
    while True:
        total = m * (k + rng.random()) / count
        u = rng.dirichlet(np.ones(n)) * total
        T = rng.integers(2, t_max + 1, size=n)
        C = np.clip(np.round(u * T), 1, T).astype(np.int64)
        D = np.array([rng.integers(c, t + 1) for c, t in zip(C.tolist(), T.tolist(), strict=True)])
        rows = [[int(c), int(d), int(t)] for c, d, t in zip(C, D, T, strict=True)]
        if sum((Fraction(c, t) for c, _, t in rows), Fraction(0)) <= m:
            return rows


# -- the worker: one process answering one search per input line, under a CPU limit ----------
def worker() -> None:
    """Read JSON requests from stdin, answer each on stdout (the parent restarts a killed worker)."""
    import numba

    from rtsched.analyses.exact import _state_space as engine

    numba.set_num_threads(1)
    warm = np.array([1, 1, 1], dtype=np.int64)
    first_table = engine.INITIAL_TABLE
    engine.INITIAL_TABLE = 2  # tiny first tables: the growth's kernels are compiled too
    for frontier in ORDERS:  # compile (or load from the cache) before any limit is set
        for probes in (True, False):
            engine.search(warm, warm + 1, warm + 1, 2, "index", 100, 1000, False, frontier, False, probes)
    engine.INITIAL_TABLE = first_table
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        job = json.loads(line)
        C, D, T = (np.array(x, dtype=np.int64) for x in zip(*job["rows"], strict=True))
        used = resource.getrusage(resource.RUSAGE_SELF)
        spent = used.ru_utime + used.ru_stime
        soft = math.ceil(spent + job["cap"]) + 1
        _, hard = resource.getrlimit(resource.RLIMIT_CPU)
        resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))
        start = time.process_time()
        result = engine.search(
            C, D, T, job["m"], job["ties"], job["budget"], engine.TRANSITIONS_PER_STATE * job["budget"],
            True, job["frontier"], False, job.get("probes", True),
        )  # fmt: skip
        cpu = time.process_time() - start
        print(
            json.dumps({"code": result.code, "states": result.states, "cpu": cpu, "reason": result.reason}), flush=True
        )


class Worker:
    """A worker subprocess; restarted when the CPU limit kills it."""

    def __init__(self) -> None:
        self.proc: subprocess.Popen[str] | None = None

    def start(self) -> subprocess.Popen[str]:
        if self.proc is None or self.proc.poll() is not None:
            self.proc = subprocess.Popen(
                [sys.executable, os.path.abspath(__file__), "--worker"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
            )
            assert self.proc.stdout is not None
            json.loads(self.proc.stdout.readline())  # ready
        return self.proc

    def run(self, job: dict) -> dict | None:
        """The worker's answer, or None when the CPU cap killed it."""
        proc = self.start()
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(json.dumps(job) + "\n")
        proc.stdin.flush()
        line = proc.stdout.readline()
        if not line:
            proc.wait()
            return None
        answer = json.loads(line)
        return answer if answer["cpu"] <= job["cap"] else None

    def close(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
            self.proc.wait()


def run_cell(cell: tuple[int, int, int], args: argparse.Namespace, pool: Worker) -> dict:
    m, n, t_max = cell
    rng = np.random.default_rng([args.seed, m, n, t_max])
    rows: list[dict[str, dict | None]] = []
    for k in range(args.sets):
        tasks = issue_shape_set(n, m, t_max, k, args.sets, rng)
        answers: dict[str, dict | None] = {}
        orders = ORDERS if k % 2 == 0 else ORDERS[::-1]  # alternate the order of the runs
        for frontier in orders:
            job = {"rows": tasks, "m": m, "ties": args.ties, "budget": args.budget, "frontier": frontier}
            job["cap"] = args.cap
            answers[frontier] = pool.run(job)
        rows.append(answers)
        if args.verbose:
            shown = "  ".join(
                f"{f}: {'-' if a is None else (a['code'], a['states'], round(a['cpu'], 3))}" for f, a in answers.items()
            )
            print(f"  m={m} n={n} set {k}: {tasks}\n    {shown}", flush=True)
    return {"cell": cell, "rows": rows}


def decided(answer: dict | None) -> bool:
    return answer is not None and answer["code"] in (0, 1)


def summarise(result: dict, cap: float) -> tuple[str, list[int]]:
    m, n, t_max = result["cell"]
    rows = result["rows"]
    counts = []
    parts = []
    for frontier in ORDERS:
        got = [r[frontier] for r in rows]
        acc = sum(1 for a in got if decided(a) and a["code"] == 1)
        rej = sum(1 for a in got if decided(a) and a["code"] == 0)
        on_budget = sum(1 for a in got if a is not None and a["code"] == -1)
        cpu = statistics.median(a["cpu"] if decided(a) else cap for a in got)
        counts.append(acc + rej)
        parts.append(
            f"{acc + rej:>2} ({acc}/{rej}{'; ' + str(on_budget) + ' budget' if on_budget else ''})  {cpu:8.3f}"
        )
    both = [r for r in rows if decided(r["breadth"]) and decided(r["auto"])]
    disagree = sum(1 for r in rows if len({a["code"] for a in r.values() if decided(a)}) > 1)
    old = sum(r["breadth"]["cpu"] for r in both)
    new = sum(r["auto"]["cpu"] for r in both)
    ratio = f"{old / new:7.1f}x" if new > 0 else "      -"
    cpp = CPP_DECIDED.get((m, n, t_max))
    line = (
        f"{m:>2} {n:>3} {t_max:>5} {len(rows):>5} {cpp if cpp is not None else '-':>6}  "
        f"{parts[0]:>26}  {parts[1]:>26}  {parts[2]:>26}  {len(both):>4} {old:9.3f} {new:9.3f} {ratio}  {disagree:>8}"
    )
    return line, counts


def main() -> None:
    """Run the benchmark and print the table."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sets", type=int, default=10, help="sets per row")
    parser.add_argument("--cap", type=float, default=10.0, help="CPU seconds per set and search order")
    parser.add_argument("--budget", type=int, default=8_000_000, help="explored states (high: the cap decides)")
    parser.add_argument("--ties", choices=("index", "every"), default="index")
    parser.add_argument("--cells", choices=("m2", "m4", "all"), default="all")
    parser.add_argument("--seed", type=int, default=15)
    parser.add_argument("--verbose", action="store_true", help="print every set and both answers")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker()
        return
    cells = CELLS["m2"] + CELLS["m4"] if args.cells == "all" else CELLS[args.cells]
    print(
        f"exact G-EDF, ties={args.ties}: breadth-first (before) vs auto (now: one search, depth-first, "
        "best-first, then breadth-first) "
        f"and depth-first alone; {args.sets} sets per row, "
        f"{args.cap:g} s CPU cap per set and order, budget {args.budget:,} states; CPU s per set (median, one thread)"
    )
    print(
        f"{'m':>2} {'n':>3} {'Tmax':>5} {'sets':>5} {'C++':>6}  {'breadth: decided (a/r) med s':>26}  "
        f"{'auto: decided (a/r) med s':>26}  {'depth: decided (a/r) med s':>26}  "
        f"{'both':>4} {'breadth s':>9} {'auto s':>9} {'speedup':>8}  {'disagree':>8}"
    )
    pool = Worker()
    totals = [0, 0, 0]
    try:
        for cell in cells:
            line, counts = summarise(run_cell(cell, args, pool), args.cap)
            totals = [a + b for a, b in zip(totals, counts, strict=True)]
            print(line, flush=True)
    finally:
        pool.close()
    print(f"decided in all rows: breadth-first {totals[0]}, auto {totals[1]}, depth-first {totals[2]}")
    print(
        f"C++ (the issue's figures): n = 9: {CPP_DECIDED[(2, 9, 20)]} of 10; n = 10: {CPP_DECIDED[(2, 10, 20)]} of 10; {CPP_OVERALL}"
    )


if __name__ == "__main__":
    main()
