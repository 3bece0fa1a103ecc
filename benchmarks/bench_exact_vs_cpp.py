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

Output on this machine (2 cores shared with other jobs; the C++ built with g++ 12 -Ofast;
defaults; one-sided sets listed below their cell, shortened here), with ``auto`` one search in
phases, the last breadth-first by depth, and tables that grow without rerunning the search
(papers/exact-search.md, item 5). The runs before (at d301e98: three searches from scratch, and
earlier) are in papers/exact-search.md, "Against Burmyakov's C++ test" and "One search in
phases":

     m   n  Tmax  sets   rtsched (a/r)       C++ (a/r)  both     C++ s rtsched s   C++/rt  only C++  only rt disagree
     2   9    20    12        10 (5/5)        10 (5/5)    10     4.430     2.009    2.20x         0        0        0
     2   9    50    12         7 (3/4)         7 (3/4)     7     0.485     0.114    4.24x         0        0        0
     2  10    20    12        12 (3/9)        12 (3/9)    12    11.002     4.281    2.57x         0        0        0
     2  10    50    12         7 (2/5)         7 (2/5)     7     1.522     0.548    2.78x         0        0        0
     4   9    20    12        11 (6/5)        10 (5/5)    10     0.183     0.029    6.36x         0        1        0
          only rtsched decides: set 6 U=2.287 (schedulable: rtsched 9.329 s, 2,551,349 states; C++ no answer)
     4   9    50    12         7 (4/3)         6 (3/3)     6     0.607     0.098    6.18x         0        1        0
          only rtsched decides: set 2 U=1.070 (schedulable: rtsched 8.131 s, 3,651,588 states; C++ no answer)
     4  10    20    12        12 (6/6)        12 (6/6)    12     7.189     2.243    3.21x         0        0        0
     4  10    50    12         8 (2/6)         7 (2/5)     7     0.512     0.126    4.05x         0        1        0
          only rtsched decides: set 6 U=2.509 (NOT schedulable: rtsched 0.000 s, 1,191 states; C++ no answer)
    decided in all cells: rtsched 74, C++ 71

In this run the C++ decided m = 2, n = 10, T ≤ 20, set 4 just under the cap (9.72 s, 263,603
stored states), so it counts among the sets both decide there (rtsched 3.61 s, 1,138,166
states). The set behind the 0.95x before (set 2: C++ 0.88 s, 24,056 stored states) now takes
rtsched 0.56 s with 155,064 states (1.44 s, 408,863 before).

Issue #45's grid with the probes of ``auto`` (papers/exact-search.md, "Probes"), ``--grid issue45
--before`` (10 s cap; "before" is the same search without probes, in the same worker; ">2x+" counts
the sets over the issue's bound, rtsched CPU > 2 x C++ + 50 ms; this machine shared, load average
7-10 during the run, so single timings vary by up to ~50 %)::

     m   n  Tmax  sets   rtsched (a/r)       C++ (a/r)  both     C++ s rtsched s   C++/rt  only C++  only rt disagree  >2x+    before (a/r)  before s     now s gain lost
     2   7    50    12        12 (5/7)        12 (5/7)    12     7.103     1.311    5.42x         0        0        0     0        12 (5/7)     9.591     1.311    0    0
     2   8    50    12         9 (5/4)         8 (4/4)     8     0.449     0.119    3.76x         0        1        0     0         9 (5/4)    10.955     4.402    0    0
     4   7    50    12        12 (6/6)        12 (6/6)    12     6.697     0.854    7.84x         0        0        0     0        11 (6/5)     0.606     0.854    1    0
     4   8    50    12        12 (4/8)        10 (2/8)    10     1.776     0.575    3.09x         0        2        0     0        12 (4/8)     1.692     2.673    0    0
    decided in all cells: rtsched 45, C++ 42

The issue's example (m = 4, n = 7, set 8) is refuted before the search stores a state (1,836
ticks of walks; C++ 0.013 s, 1,211 states); without probes no answer within the 10 s cap. Also
m = 2, n = 8, set 7: 0.000 s against 6.97 s without probes (C++ 0.004 s); m = 2, n = 7, set 6:
0.123 s (the probe at the 131,072-state pause) against 8.45 s (C++ 1.87 s).
On schedulable sets the probes cost about 10-20 % (in-process, three alternating repetitions of
the two m = 4, n = 8 sets near 0.6 s); the 4, 8 cell's larger difference is the shared machine.

The n = 9-10 grid in the same session, ``--grid n9-10 --before --cap 5`` (5 s cap to fit the
session; load average 7 at the start, 2.4 at the end)::

     m   n  Tmax  sets   rtsched (a/r)       C++ (a/r)  both     C++ s rtsched s   C++/rt  only C++  only rt disagree  >2x+    before (a/r)  before s     now s gain lost
     2   9    20    12        10 (5/5)         9 (4/5)     9     2.850     1.476    1.93x         0        1        0     0        10 (5/5)     3.942     3.775    0    0
     2   9    50    12         7 (3/4)         7 (3/4)     7     0.793     0.215    3.68x         0        0        0     0         7 (3/4)     0.249     0.215    0    0
     2  10    20    12        11 (2/9)        11 (2/9)    11     2.266     1.478    1.53x         0        0        0     0        11 (2/9)     1.229     1.478    0    0
     2  10    50    12         7 (2/5)         7 (2/5)     7     2.978     1.158    2.57x         0        0        0     0         7 (2/5)     1.108     1.158    0    0
     4   9    20    12        10 (5/5)        10 (5/5)    10     0.364     0.079    4.63x         0        0        0     0        10 (5/5)     0.087     0.079    0    0
     4   9    50    12         6 (3/3)         6 (3/3)     6     0.891     0.200    4.45x         0        0        0     0         6 (3/3)     0.209     0.200    0    0
     4  10    20    12        12 (6/6)        11 (5/6)    11     4.807     2.289    2.10x         0        1        0     0        12 (6/6)     3.518     4.206    0    0
     4  10    50    12         8 (2/6)         7 (2/5)     7     0.717     0.191    3.76x         0        1        0     0         8 (2/6)     0.217     0.191    0    0
    decided in all cells: rtsched 71, C++ 68

rtsched keeps its lead at n = 9-10 (1.5-4.6x less CPU per cell on the sets both decide, 3 more
sets decided, none only by the C++); the probes cost up to ~20 % on the cells of large
schedulable sets (2, 10, 20 and 4, 10, 20) and decide nothing new there at this cap.

Re-run on 2026-12-07 (session 35; ``analyses/exact`` unchanged since ce3f8ec; the C++ built from
the repository's HEAD with the edits above, g++ 12 -Ofast), a noisy day. ``--grid issue45``, two
runs: decided rtsched 45, C++ 44 in each; C++/rt per cell 3.28–10.19x and 2.87–11.48x. Over the
issue's bound: one set in the first run (m = 2, n = 7, set 3: C++ 0.049 s, rtsched 0.387 s for
9,012 states), none in the second. That set alone, after the worker's warm-up, took 0.012–0.029 s
with probes and 0.010 s without (two searches each), and 0.019–0.023 s as the fourth search of a
fresh worker. The 0.387 s was a one-off.
``--grid n9-10 --cap 5``: decided rtsched 71, C++ 70; C++/rt per cell 1.67–6.32x; none over the bound.

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
#: Issue #45's grid (item 2): n = 7 and 8, T <= 50 (``--grid issue45``).
ISSUE_45_CELLS = [(2, 7, 50), (2, 8, 50), (4, 7, 50), (4, 8, 50)]
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
        tools = ["rtsched", "cpp", "before"] if k % 2 == 0 else ["before", "cpp", "rtsched"]  # alternate the order
        answers: dict[str, dict | None] = {}
        for tool in tools:
            if tool == "rtsched":
                answers[tool] = pool.run(job)
            elif tool == "before":
                if args.before:  # the search without probes (the strategy before issue #45)
                    answers[tool] = pool.run({**job, "probes": False})
            elif args.cpp:
                answers[tool] = run_cpp(args.cpp, rows, m, args.cap, args.memory)
        u = float(sum((Fraction(c, t) for c, _, t in rows), Fraction(0)))
        out.append({"k": k, "rows": rows, "U": u, **answers})
        if args.verbose:
            parts = "; ".join(
                f"{tool}: {shown(answers[tool])}" for tool in ("cpp", "rtsched", "before") if tool in answers
            )
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
    # issue #45's bound, per set: rtsched's CPU <= 2 x the C++'s + 50 ms
    over = [r for r in both if r["rtsched"]["cpu"] > 2 * r["cpp"]["cpu"] + 0.05]
    before = ""
    if any("before" in r for r in results):
        pairs = [r for r in results if decided(r["rtsched"]) and decided(r.get("before"))]
        old_s = sum(r["before"]["cpu"] for r in pairs)
        new_s = sum(r["rtsched"]["cpu"] for r in pairs)
        gained = sum(1 for r in results if decided(r["rtsched"]) and not decided(r.get("before")))
        lost = sum(1 for r in results if decided(r.get("before")) and not decided(r["rtsched"]))
        before = f"  {counts('before'):>14} {old_s:9.3f} {new_s:9.3f} {gained:>4} {lost:>4}"
    lines = [
        f"{head}  {counts('cpp'):>14}  {len(both):>4} {cpp_s:9.3f} {rt_s:9.3f} {ratio}  "
        f"{len(only_cpp):>8} {len(only_rt):>8} {len(disagree):>8} {len(over):>5}{before}"
    ]
    groups = (
        ("only C++ decides", only_cpp),
        ("only rtsched decides", only_rt),
        ("DISAGREE", disagree),
        ("over 2 x C++ + 50 ms", over),
    )
    for label, group in groups:
        for r in group:
            lines.append(f"      {label}: set {r['k']} U={r['U']:.3f} {r['rows']}")
            extra = f"; before: {shown(r['before'])}" if "before" in r else ""
            lines.append(f"        C++: {shown(r['cpp'])}; rtsched: {shown(r['rtsched'])}{extra}")
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
    parser.add_argument(
        "--grid", choices=("n9-10", "issue45", "both"), default="n9-10",
        help="n = 9-10 (--cells, --tmax), issue #45's n = 7-8 at T <= 50, or both",
    )  # fmt: skip
    parser.add_argument(
        "--before", action="store_true", help="also the search without probes (the strategy before issue #45)"
    )
    args = parser.parse_args()
    if args.cpp and not os.access(args.cpp, os.X_OK):
        sys.exit(f"--cpp {args.cpp}: not an executable file (see the module docstring to build it)")
    pairs = CELLS["m2"] + CELLS["m4"] if args.cells == "all" else CELLS[args.cells]
    cells = [(m, n, t_max) for m, n in pairs for t_max in args.tmax] if args.grid != "issue45" else []
    if args.grid != "n9-10":
        cells = ISSUE_45_CELLS + cells
    print(f"load average at the start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(
        f"exact G-EDF, lowest-index ties: rtsched exact:index (auto search) vs "
        f"{'the C++ test ' + args.cpp if args.cpp else 'no C++ (pass --cpp)'}; {args.sets} sets per cell, "
        f"{args.cap:g} s CPU cap per set and tool, rtsched budget {args.budget:,} states; CPU s, one thread"
    )
    head = f"{'m':>2} {'n':>3} {'Tmax':>5} {'sets':>5}  {'rtsched (a/r)':>14}"
    if args.cpp:
        print(
            f"{head}  {'C++ (a/r)':>14}  {'both':>4} {'C++ s':>9} {'rtsched s':>9} {'C++/rt':>8}  "
            f"{'only C++':>8} {'only rt':>8} {'disagree':>8} {'>2x+':>5}"
            + (f"  {'before (a/r)':>14} {'before s':>9} {'now s':>9} {'gain':>4} {'lost':>4}" if args.before else "")
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
    print(f"load average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
