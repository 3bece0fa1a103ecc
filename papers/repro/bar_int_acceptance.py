"""Acceptance counts of bar, bar-int and the exact G-EDF test (every tie rule) on small random sets
(papers/bar-int.md, "How much it gains").

Run: python papers/repro/bar_int_acceptance.py [--sets 4000] [--seed 19] [--max-period 12]
(about half a minute for 4,000 sets)

Sets: n uniform in 2..6, T uniform in 2..max-period (12 by default), D uniform in 1..T, C uniform in 1..D (constrained
deadlines, integer ticks), m uniform in 2..4, sets with U > m dropped and redrawn. Every set is
decided by ``bar``, ``bar-int`` and ``exact`` (budget 10**6 explored states; "unknown" counted
apart). An unsound acceptance is a set that bar-int accepts and exact rejects. "zero slack"
counts the bar-int acceptances where (8-int) holds with equality at some (k, A_k): the sets an
off-by-one in the theorem would turn unsound, so the ones that test it hardest.
"""

from __future__ import annotations

import argparse
from collections import Counter

import numpy as np

from rtsched import TaskSet, TaskSetBatch, registry
from rtsched.analyses.global_edf import bar_int as bar_int_module

EXACT_BUDGET = 10**6


def draw(rng: np.random.Generator, max_period: int) -> tuple[TaskSet, int]:
    while True:
        n = int(rng.integers(2, 7))
        T = [int(x) for x in rng.integers(2, max_period + 1, n)]
        D = [int(rng.integers(1, t + 1)) for t in T]
        C = [int(rng.integers(1, d + 1)) for d in D]
        m = int(rng.integers(2, 5))
        ts = TaskSet.from_tasks(list(zip(C, D, T, strict=True)))
        if ts.utilization <= m:
            return ts, m


def min_slack(ts: TaskSet, m: int) -> int:
    """Smallest RHS − LHS of (8-int) over every k and every integer A_k up to (9-int)."""
    slack = None
    for k, bound in enumerate(bar_int_module.ak_bounds(ts, m)):
        for A in range(0, bound.__floor__() + 1):
            lhs, rhs, _, _ = bar_int_module.condition(ts, m, k, A)
            slack = rhs - lhs if slack is None else min(slack, rhs - lhs)
    return -1 if slack is None else slack


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", type=int, default=4000)
    parser.add_argument("--seed", type=int, default=19)
    parser.add_argument("--max-period", type=int, default=12)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    sets = [draw(rng, args.max_period) for _ in range(args.sets)]
    bar, bar_int, exact = registry.get("bar"), registry.get("bar-int"), registry.get("exact")
    counts: Counter[tuple[int | str, str]] = Counter()
    unsound = []
    for ts, m in sets:
        b = bar.verdict(ts, m)
        bi = bar_int.verdict(ts, m)
        e = int(exact.status(TaskSetBatch.from_tasksets([ts]), m, EXACT_BUDGET)[0])
        for key in (m, "all"):
            counts[key, "sets"] += 1
            counts[key, "bar"] += b is True
            counts[key, "bar-int"] += bi is True
            counts[key, "bar-int only"] += bi is True and b is not True
            counts[key, "bar only"] += b is True and bi is not True
            counts[key, "exact: sched."] += e == 1
            counts[key, "exact: unknown"] += e == -1
            counts[key, "unsound"] += bi is True and e == 0
            counts[key, "zero slack"] += bi is True and min_slack(ts, m) == 0
        if bi is True and e == 0:
            unsound.append((ts, m))
    columns = [
        "sets",
        "bar",
        "bar-int",
        "bar-int only",
        "bar only",
        "exact: sched.",
        "exact: unknown",
        "zero slack",
        "unsound",
    ]
    print(f"seed {args.seed}, {args.sets} sets, T in 2..{args.max_period}, exact budget {EXACT_BUDGET} states")
    print(f"{'m':>4} " + " ".join(f"{c:>14}" for c in columns))
    for key in (2, 3, 4, "all"):
        print(f"{key!s:>4} " + " ".join(f"{counts[key, c]:>14}" for c in columns))
    for ts, m in unsound:
        print("UNSOUND:", ts, "m =", m)


if __name__ == "__main__":
    main()
