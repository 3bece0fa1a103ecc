"""Exact G-EDF: rtsched's ``exact:index`` against Burmyakov's C++ state-space test, on the same sets.

Issue 15, item 3: on m = 2, n = 9–10, periods ≤ 20, decide at least as many sets as the C++ test
within 10 s CPU each, with less CPU on the sets both decide; then m = 4.

The C++ test (not part of rtsched, never vendored): Burmyakov, Bini, Tovar's exact G-EDF test,
https://github.com/burmyakov/exact-sched-test-gedf. Lowest-index ties (``prefer`` in
algorithm_move.cpp), so it decides the question of ``exact:index``. To build it::

    git clone https://github.com/burmyakov/exact-sched-test-gedf /tmp/burmyakov
    cd /tmp/burmyakov
    # schedtst.cpp: un-comment the includes and the ``case 9`` / ``case 10`` branches of
    # tasks/test_9_tasks.h and test_10_tasks.h; makefile: add tasks/test_9_tasks.cpp and
    # tasks/test_10_tasks.cpp to AUX, drop custom_types/ts.cpp (not in the repository; TS::read
    # is never called), and build with g++ instead of clang++ if clang is missing
    # (custom_types/my_types.h may need ``#include <bitset>``)
    make            # -Ofast -std=c++17; gives ./gedf_test

It takes the set on the command line, ``gedf_test m n C1 D1 T1 ... Cn Dn Tn results-file``,
appends ``verdict, clock ticks, stored states`` to the results file (``/dev/null`` here) and prints
``... sec, S stored / V visited / SCHED`` (or ``UNSCHED``). It has no time limit of its own and
handles n = 3..10 (its state keys are ``bitset<10>``). Then pass ``--cpp /tmp/burmyakov/gedf_test``.
Without ``--cpp`` only rtsched's figures are printed.

Sets (seeded with ``numpy.random.default_rng([seed, m, n, Tmax])``; the generator of
benchmarks/bench_exact_search.py, :func:`issue_shape_set`): n tasks, T uniform in [2, Tmax];
set k of N draws its total utilization uniformly in (k, k + 1]·m/N, so the totals spread evenly
over (0, m] and both schedulable (low U) and unschedulable (high U) sets occur, the hard ones in
between; the total is split by a flat Dirichlet (UUniFast), C = max(1, round(u·T)), D uniform in
[C, T] (constrained); a draw whose rounded U exceeds m is redrawn.

Per set and tool: the verdict (schedulable, not, or no answer) and the CPU time, with a CPU cap
per set (``--cap``, 10 s). rtsched runs in a worker process (bench_exact_search's ``Worker``)
under ``RLIMIT_CPU``, the search of ``exact:index`` as the registry runs it (``auto`` order, no
counterexample shortening), its budget raised (``--budget`` states) so that the cap, not the
budget, stops it (the table counts sets stopped by the budget); its CPU is the search's own
(``time.process_time``, compiled code loaded before the clock starts). The C++ runs as a
subprocess with ``RLIMIT_CPU`` and ``RLIMIT_AS`` (``--memory`` GB); the cap applies to the whole
process (``RUSAGE_CHILDREN``), the CPU reported is its own ``clock()`` around the search (the
process start, about 4 ms here, is left out as rtsched's import and compilation are). The two tools alternate which runs first from
set to set (the machine may be shared).

Columns per cell: decided (accept/reject) by each; on the sets both decide, their count and the
summed CPU of each, with C++ / rtsched (above 1: rtsched is faster); the sets only one tool
decides; verdicts that disagree (must be 0: both are exact). Below each cell, the one-sided sets
are listed with U, the verdict, both CPU times and the states each explored.

    python benchmarks/bench_exact_vs_cpp.py --cpp /tmp/burmyakov/gedf_test [--sets 12] [--cap 10] [--cells m2|m4|all] [--tmax 20 50] [--verbose]

Output on this machine (2 cores shared with other jobs; the C++ built with g++ 12 -Ofast; rtsched
at 8b9459c, whose ``auto`` is a depth-first pass of 16,384 states, then breadth-first; defaults;
one-sided sets listed below their cell, shortened here):

     m   n  Tmax  sets   rtsched (a/r)       C++ (a/r)  both     C++ s rtsched s   C++/rt  only C++  only rt disagree
     2   9    20    12        10 (5/5)        10 (5/5)    10     6.028     4.805    1.25x         0        0        0
     2   9    50    12         7 (3/4)         7 (3/4)     7     0.525     0.378    1.39x         0        0        0
     2  10    20    12        11 (3/8)        11 (2/9)    10     1.862     2.468    0.75x         1        1        0
          only C++ decides: set 6 U=1.556 (NOT schedulable: C++ 0.143 s, 8,009 states; rtsched no answer)
          only rtsched decides: set 4 U=1.439 (schedulable: rtsched 7.742 s, 1,282,414 states; C++ no answer)
     2  10    50    12         7 (2/5)         7 (2/5)     7     2.129     3.319    0.64x         0        0        0
     4   9    20    12        10 (5/5)        10 (5/5)    10     0.192     0.046    4.20x         0        0        0
     4   9    50    12         7 (4/3)         6 (3/3)     6     0.824     0.220    3.74x         0        1        0
          only rtsched decides: set 2 U=1.070 (schedulable: rtsched 9.948 s, 3,701,501 states; C++ no answer)
     4  10    20    12        12 (6/6)        12 (6/6)    12     9.484     4.508    2.10x         0        0        0
     4  10    50    12         7 (2/5)         7 (2/5)     6     0.639     0.371    1.72x         1        1        0
          only C++ decides: set 9 U=3.141 (NOT schedulable: C++ 0.000 s, 6 states; rtsched no answer)
          only rtsched decides: set 6 U=2.509 (NOT schedulable: rtsched 0.000 s, 1,191 states; C++ no answer)
    decided in all cells: rtsched 71, C++ 70 (of 96); verdicts never disagree

With ``auto``'s best-first pass (32,768 states between the depth-first and breadth-first passes)
and the chain comparison's early exit (branch exact-search; same sets, another run, less load):

     m   n  Tmax  sets   rtsched (a/r)       C++ (a/r)  both     C++ s rtsched s   C++/rt  only C++  only rt disagree
     2   9    20    12        10 (5/5)        10 (5/5)    10     5.118     3.204    1.60x         0        0        0
     2   9    50    12         7 (3/4)         7 (3/4)     7     0.497     0.340    1.46x         0        0        0
     2  10    20    12        12 (3/9)        11 (2/9)    11     1.422     1.493    0.95x         0        1        0
          only rtsched decides: set 4 U=1.439 (schedulable: rtsched 4.456 s, 1,315,182 states; C++ no answer)
     2  10    50    12         7 (2/5)         7 (2/5)     7     1.660     1.162    1.43x         0        0        0
     4   9    20    12        10 (5/5)        10 (5/5)    10     0.196     0.040    4.87x         0        0        0
     4   9    50    12         6 (3/3)         6 (3/3)     6     0.849     0.237    3.58x         0        0        0
     4  10    20    12        12 (6/6)        12 (6/6)    12     8.326     3.125    2.66x         0        0        0
     4  10    50    12         8 (2/6)         7 (2/5)     7     0.525     0.303    1.73x         0        1        0
          only rtsched decides: set 6 U=2.509 (NOT schedulable: rtsched 0.001 s, 1,191 states; C++ no answer)
    decided in all cells: rtsched 72, C++ 70 (of 96); no set only the C++ decides

The two sets only the C++ decided before are found by the best-first pass (35,289 and 918
states). m = 4, n = 9, T ≤ 50, set 2 (schedulable, 3.7 M states), decided at 9.95 s before, now
runs past the cap. On m = 2, n = 10, T ≤ 20 one schedulable set makes rtsched slower on the
sets both decide (C++ 0.94 s, 24,056 stored states; rtsched 1.38 s, 408,863 states).

Before the benchmark, the two tools were run on 1,000 small random sets (m = 2–4, n = 3–8,
T ≤ 15): both decided every set, with the same verdict.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import resource
import subprocess
import sys
from fractions import Fraction

import numpy as np
from bench_exact_search import Worker, issue_shape_set

CELLS = {"m2": [(2, 9), (2, 10)], "m4": [(4, 9), (4, 10)]}
_CPP_LINE = re.compile(r"([0-9.e+-]+) sec,\s*/\s*(\d+) stored\s*/\s*(\d+) visited\s*/\s*(UNSCHED|SCHED)")


def run_cpp(path: str, rows: list[list[int]], m: int, cap: float, memory_gb: float) -> dict | None:
    """The C++ test on one set: ``{"code", "states", "cpu"}``, or None when it gave no answer."""
    seconds = math.ceil(cap)
    limit = int(memory_gb * 2**30)

    def limits() -> None:
        resource.setrlimit(resource.RLIMIT_CPU, (seconds, seconds + 1))
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    args = [path, str(m), str(len(rows)), *(str(x) for row in rows for x in row), os.devnull]
    # the children's CPU counts waited-for children only: the rtsched worker (alive) is not in it
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(args, capture_output=True, text=True, preexec_fn=limits, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    found = _CPP_LINE.search(done.stdout)
    if found is None or cpu > cap:
        return None
    search_cpu = float(found.group(1))  # its own clock() around the search, as rtsched's figure
    return {"code": 0 if found.group(4) == "UNSCHED" else 1, "states": int(found.group(2)), "cpu": search_cpu}


def decided(answer: dict | None) -> bool:
    """The tool answered schedulable (1) or not (0) within the cap."""
    return answer is not None and answer["code"] in (0, 1)


def shown(answer: dict | None) -> str:
    """One tool's answer in a listing."""
    if answer is None:
        return "no answer (cap)"
    verdict = {1: "schedulable", 0: "NOT schedulable", -1: "no answer (budget)"}[answer["code"]]
    return f"{verdict} {answer['cpu']:.3f} s, {answer['states']:,} states"


def run_cell(cell: tuple[int, int, int], args: argparse.Namespace, pool: Worker) -> list[dict]:
    """Both tools on every set of one cell: a list of ``{"rows", "U", "cpp", "rtsched"}``."""
    m, n, t_max = cell
    rng = np.random.default_rng([args.seed, m, n, t_max])
    out = []
    for k in range(args.sets):
        rows = issue_shape_set(n, m, t_max, k, args.sets, rng)
        job = {"rows": rows, "m": m, "ties": "index", "budget": args.budget, "frontier": "auto", "cap": args.cap}
        tools = ["rtsched", "cpp"] if k % 2 == 0 else ["cpp", "rtsched"]  # alternate who runs first
        answers: dict[str, dict | None] = {}
        for tool in tools:
            if tool == "rtsched":
                answers[tool] = pool.run(job)
            elif args.cpp:
                answers[tool] = run_cpp(args.cpp, rows, m, args.cap, args.memory)
        u = float(sum((Fraction(c, t) for c, _, t in rows), Fraction(0)))
        out.append({"k": k, "rows": rows, "U": u, **answers})
        if args.verbose:
            parts = "; ".join(f"{tool}: {shown(answers[tool])}" for tool in ("cpp", "rtsched") if tool in answers)
            print(f"  m={m} n={n} T<={t_max} set {k} U={u:.3f} {rows}\n    {parts}", flush=True)
    return out


def summarise(cell: tuple[int, int, int], results: list[dict], with_cpp: bool) -> list[str]:
    """The table row of one cell and the listing of its one-sided and disagreeing sets."""
    m, n, t_max = cell

    def counts(tool: str) -> str:
        got = [r.get(tool) for r in results]
        acc = sum(1 for a in got if decided(a) and a["code"] == 1)
        rej = sum(1 for a in got if decided(a) and a["code"] == 0)
        budget = sum(1 for a in got if a is not None and a["code"] == -1)
        return f"{acc + rej:>2} ({acc}/{rej}{f'; {budget} budget' if budget else ''})"

    head = f"{m:>2} {n:>3} {t_max:>5} {len(results):>5}  {counts('rtsched'):>14}"
    if not with_cpp:
        cpu = sum(r["rtsched"]["cpu"] for r in results if decided(r["rtsched"]))
        return [f"{head}  {cpu:9.3f}"]
    both = [r for r in results if decided(r["cpp"]) and decided(r["rtsched"])]
    only_cpp = [r for r in results if decided(r["cpp"]) and not decided(r["rtsched"])]
    only_rt = [r for r in results if decided(r["rtsched"]) and not decided(r["cpp"])]
    disagree = [r for r in both if r["cpp"]["code"] != r["rtsched"]["code"]]
    cpp_s = sum(r["cpp"]["cpu"] for r in both)
    rt_s = sum(r["rtsched"]["cpu"] for r in both)
    ratio = f"{cpp_s / rt_s:7.2f}x" if rt_s > 0 else "       -"
    lines = [
        f"{head}  {counts('cpp'):>14}  {len(both):>4} {cpp_s:9.3f} {rt_s:9.3f} {ratio}  "
        f"{len(only_cpp):>8} {len(only_rt):>8} {len(disagree):>8}"
    ]
    for label, group in (("only C++ decides", only_cpp), ("only rtsched decides", only_rt), ("DISAGREE", disagree)):
        for r in group:
            lines.append(f"      {label}: set {r['k']} U={r['U']:.3f} {r['rows']}")
            lines.append(f"        C++: {shown(r['cpp'])}; rtsched: {shown(r['rtsched'])}")
    return lines


def main() -> None:
    """Run the benchmark and print the table."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cpp", help="path of the built C++ test (gedf_test); without it only rtsched runs")
    parser.add_argument("--sets", type=int, default=12, help="sets per cell")
    parser.add_argument("--cap", type=float, default=10.0, help="CPU seconds per set and tool")
    parser.add_argument(
        "--budget", type=int, default=20_000_000, help="rtsched's explored states (high: the cap decides)"
    )
    parser.add_argument("--memory", type=float, default=4.0, help="address-space limit of the C++ process, GB")
    parser.add_argument("--cells", choices=("m2", "m4", "all"), default="all")
    parser.add_argument("--tmax", type=int, nargs="+", default=[20, 50], help="period bounds (one cell each)")
    parser.add_argument("--seed", type=int, default=15)
    parser.add_argument("--verbose", action="store_true", help="print every set and both answers")
    args = parser.parse_args()
    if args.cpp and not os.access(args.cpp, os.X_OK):
        sys.exit(f"--cpp {args.cpp}: not an executable file (see the module docstring to build it)")
    pairs = CELLS["m2"] + CELLS["m4"] if args.cells == "all" else CELLS[args.cells]
    cells = [(m, n, t_max) for m, n in pairs for t_max in args.tmax]
    print(
        f"exact G-EDF, lowest-index ties: rtsched exact:index (auto search) vs "
        f"{'the C++ test ' + args.cpp if args.cpp else 'no C++ (pass --cpp)'}; {args.sets} sets per cell, "
        f"{args.cap:g} s CPU cap per set and tool, rtsched budget {args.budget:,} states; CPU s, one thread"
    )
    head = f"{'m':>2} {'n':>3} {'Tmax':>5} {'sets':>5}  {'rtsched (a/r)':>14}"
    if args.cpp:
        print(
            f"{head}  {'C++ (a/r)':>14}  {'both':>4} {'C++ s':>9} {'rtsched s':>9} {'C++/rt':>8}  "
            f"{'only C++':>8} {'only rt':>8} {'disagree':>8}"
        )
    else:
        print(f"{head}  {'CPU s':>9}")
    pool = Worker()
    totals = {"cpp": 0, "rtsched": 0}
    try:
        for cell in cells:
            results = run_cell(cell, args, pool)
            for tool in totals:
                totals[tool] += sum(1 for r in results if decided(r.get(tool)))
            print("\n".join(summarise(cell, results, bool(args.cpp))), flush=True)
    finally:
        pool.close()
    print(f"decided in all cells: rtsched {totals['rtsched']}" + (f", C++ {totals['cpp']}" if args.cpp else ""))


if __name__ == "__main__":
    main()
