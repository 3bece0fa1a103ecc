"""Cost of the exact G-EDF test under every tie rule (``exact``) against lowest-index ties (``exact:index``).

Both semantics explore the same sets with the same budget (states and transitions); a set that
exhausts it counts as "unknown" and its time is the time to exhaust it. Four parts:

1. small sets (m = 2–3, n = 3–5, periods 2…8): how often the verdict depends on the tie rule,
   and the cost of both searches;
2. reach: n = 4…12, m = 2 and 4, periods up to 10, 20, 50, total U = 0.6·m (the hard middle: U ≤ m
   so the necessary condition does not decide), constrained deadlines uniform in [C, T];
3. tie-heavy sets, where the every-rule search branches most: implicit deadlines with periods
   from {4, 8} or all equal to 6 (equal deadlines everywhere), U = 0.75·m, all tasks distinct
   (no symmetry to exploit), and sets of identical tasks (where the every-rule search merges
   permutations and the index rule cannot);
4. the Numba kernel against the pure-Python BFS reference, for both semantics.

Columns: CPU seconds per set (median, one thread) for the index rule and for every rule, the
ratio of the summed times (every / index), and the verdicts (accept/reject/unknown) of each.
The ratio over sets that both searches *accept* is the cost of proving schedulability (both
explore the whole pruned space); on rejected sets the every-rule search often stops earlier,
because it finds a miss the index rule never reaches.

    python benchmarks/bench_exact.py [--sets N] [--max-states S] [--quick]
"""

from __future__ import annotations

import argparse
import statistics
import time

import numba
import numpy as np

from rtsched.analyses import exact_gedf
from rtsched.kernels import ACCEPT, REJECT
from rtsched.model import TaskSet


def random_set(n: int, m: int, t_max: int, rng: np.random.Generator) -> TaskSet:
    """One constrained-deadline set with total utilization about 0.6·m and at most m.

    Rounding C up to 1 can push U above m for many tasks with short periods; such draws are
    redrawn (U > m is decided without exploring, which would flatter the timings).
    """
    while True:
        u = rng.dirichlet(np.ones(n)) * 0.6 * m
        T = rng.integers(2, t_max + 1, size=n)
        C = np.clip(np.round(u * T), 1, T).astype(np.int64)
        D = np.array([rng.integers(c, t + 1) for c, t in zip(C, T, strict=True)], dtype=np.int64)
        ts = TaskSet(C, D, T)
        if ts.utilization <= m:
            return ts


def small_set(rng: np.random.Generator) -> tuple[TaskSet, int]:
    """m in {2, 3}, n in 3..5, T uniform in [2, 8], C uniform in [1, T], D uniform in [C, T]."""
    m = int(rng.integers(2, 4))
    rows = []
    for _ in range(int(rng.integers(3, 6))):
        t = int(rng.integers(2, 9))
        c = int(rng.integers(1, t + 1))
        rows.append((c, int(rng.integers(c, t + 1)), t))
    return TaskSet.from_tasks(rows), m


def timed(ts: TaskSet, m: int, ties: str, args: argparse.Namespace) -> tuple[float, exact_gedf.Exploration]:
    start = time.process_time()  # CPU time: the machine may be shared
    res = exact_gedf.explore(ts, m, ties=ties, max_states=args.max_states, max_transitions=args.max_transitions)  # type: ignore[arg-type]
    return time.process_time() - start, res


def counts(codes: list[int]) -> str:
    acc, rej = codes.count(int(ACCEPT)), codes.count(int(REJECT))
    return f"{acc}/{rej}/{len(codes) - acc - rej}"


def ratio(a: float, b: float) -> str:
    return f"{a / b:.2f}" if b > 0 else "-"


def small_sets(args: argparse.Namespace, rng: np.random.Generator) -> None:
    n_sets = args.small_sets
    t_index = t_every = 0.0
    both_accept = [0.0, 0.0]
    codes: dict[str, list[int]] = {"index": [], "every": []}
    flipped = 0
    for _ in range(n_sets):
        ts, m = small_set(rng)
        ti, ri = timed(ts, m, "index", args)
        te, re = timed(ts, m, "every", args)
        t_index += ti
        t_every += te
        codes["index"].append(ri.code)
        codes["every"].append(re.code)
        flipped += ri.code == ACCEPT and re.code == REJECT
        if ri.code == ACCEPT and re.code == ACCEPT:
            both_accept[0] += ti
            both_accept[1] += te
    index_accepts = codes["index"].count(int(ACCEPT))
    print(f"small sets: {n_sets} sets, m = 2-3, n = 3-5, T in [2, 8]")
    print(f"  verdicts accept/reject/unknown: index {counts(codes['index'])}, every {counts(codes['every'])}")
    print(f"  schedulable with lowest-index ties but not under every tie rule: {flipped} of {index_accepts}")
    print(
        f"  CPU: index {t_index:.3f} s, every {t_every:.3f} s, ratio every/index {ratio(t_every, t_index)}; "
        f"on sets both accept: {ratio(both_accept[1], both_accept[0])}"
    )


def reach(args: argparse.Namespace, rng: np.random.Generator) -> None:
    sizes = [4, 6, 8] if args.quick else [4, 6, 8, 10, 12]
    periods = [10, 20] if args.quick else [10, 20, 50]
    print(f"reach: budget {args.max_states:,} states, {args.max_transitions:,} transitions; {args.sets} sets per row")
    print("times are CPU seconds per set (one thread); verdicts accept/reject/unknown")
    print(
        f"{'m':>2} {'n':>3} {'Tmax':>5} {'index med s':>11} {'every med s':>11} {'every/index':>11} "
        f"{'(both acc.)':>11} {'index a/r/u':>11} {'every a/r/u':>11} {'states i/e (med)':>17}"
    )
    grand = [0.0, 0.0, 0.0, 0.0]
    for m in (2, 4):
        for n in sizes:
            if n <= m:
                continue
            for t_max in periods:
                rows = []
                for _ in range(args.sets):
                    ts = random_set(n, m, t_max, rng)
                    rows.append((timed(ts, m, "index", args), timed(ts, m, "every", args)))
                ti = [r[0][0] for r in rows]
                te = [r[1][0] for r in rows]
                acc = [(a[0], b[0]) for a, b in rows if a[1].code == ACCEPT and b[1].code == ACCEPT]
                acc_i, acc_e = sum(a for a, _ in acc), sum(b for _, b in acc)
                grand[0] += sum(ti)
                grand[1] += sum(te)
                grand[2] += acc_i
                grand[3] += acc_e
                states = f"{int(statistics.median(r[0][1].states for r in rows)):,}/{int(statistics.median(r[1][1].states for r in rows)):,}"
                print(
                    f"{m:>2} {n:>3} {t_max:>5} {statistics.median(ti):>11.4f} {statistics.median(te):>11.4f} "
                    f"{ratio(sum(te), sum(ti)):>11} {ratio(acc_e, acc_i):>11} "
                    f"{counts([r[0][1].code for r in rows]):>11} {counts([r[1][1].code for r in rows]):>11} {states:>17}"
                )
    print(
        f"all reach rows: every/index CPU ratio {ratio(grand[1], grand[0])} "
        f"(index {grand[0]:.2f} s, every {grand[1]:.2f} s); on sets both accept {ratio(grand[3], grand[2])}"
    )


def distinct_tie_heavy(n: int, m: int, periods: tuple[int, ...], rng: np.random.Generator) -> TaskSet:
    """Implicit deadlines, periods drawn from ``periods``, U about 0.75·m (≤ m), no two tasks equal."""
    for _ in range(100_000):
        T = rng.choice(np.array(periods), size=n)
        u = rng.dirichlet(np.ones(n)) * 0.75 * m
        C = np.clip(np.round(u * T), 1, T).astype(np.int64)
        ts = TaskSet(C, T.astype(np.int64), T.astype(np.int64))
        if ts.utilization <= m and len(set(ts.rows())) == n:
            return ts
    raise ValueError(f"no set of {n} distinct tasks with periods {periods} and U <= {m} drawn")


def tie_heavy(args: argparse.Namespace, rng: np.random.Generator) -> None:
    print("tie-heavy sets: implicit deadlines, U = 0.75·m, all tasks distinct; then identical tasks")
    print(f"{'m':>2} {'n':>3} {'periods':>8} {'index s':>8} {'every s':>8} {'every/index':>11} {'transitions e/i (med)':>22} {'index a/r/u':>11} {'every a/r/u':>11}")
    grand = [0.0, 0.0]
    for m, n, periods in [(2, 5, (4, 8)), (2, 6, (4, 8)), (3, 6, (4, 8)), (4, 8, (4, 8)), (2, 4, (6,)), (3, 5, (6,))]:
        rows = []
        for _ in range(args.sets):
            ts = distinct_tie_heavy(n, m, periods, rng)
            rows.append((timed(ts, m, "index", args), timed(ts, m, "every", args)))
        ti, te = sum(r[0][0] for r in rows), sum(r[1][0] for r in rows)
        grand[0] += ti
        grand[1] += te
        trans = statistics.median(r[1][1].transitions / max(1, r[0][1].transitions) for r in rows)
        print(
            f"{m:>2} {n:>3} {'/'.join(map(str, periods)):>8} {ti:>8.3f} {te:>8.3f} {ratio(te, ti):>11} {trans:>22.2f} "
            f"{counts([r[0][1].code for r in rows]):>11} {counts([r[1][1].code for r in rows]):>11}"
        )
    print(f"all distinct tie-heavy rows: every/index CPU ratio {ratio(grand[1], grand[0])}")
    for task, k, m in [((2, 8, 8), 6, 2), ((2, 8, 8), 8, 3), ((3, 8, 8), 8, 4), ((2, 6, 6), 9, 3)]:
        ts = TaskSet.from_tasks([task] * k)
        (ti, ri), (te, re) = timed(ts, m, "index", args), timed(ts, m, "every", args)
        print(
            f"{k} x {task} on m = {m}: index {ti:.3f} s ({ri.states:,} states, code {ri.code}), "
            f"every {te:.3f} s ({re.states:,} states, code {re.code})"
        )


def kernel_vs_reference(rng: np.random.Generator) -> None:
    small = [random_set(4, 2, 6, rng) for _ in range(20)]
    for ties in ("index", "every"):
        start = time.process_time()
        for ts in small:
            exact_gedf.reference(ts, 2, ties=ties)  # type: ignore[arg-type]
        ref = (time.process_time() - start) / len(small)
        start = time.process_time()
        for ts in small:
            exact_gedf.explore(ts, 2, ties=ties, shortcuts=False)  # type: ignore[arg-type]
        ker = (time.process_time() - start) / len(small)
        print(f"n=4, m=2, T<=6, ties={ties}: reference {ref * 1e3:.2f} ms/set, kernel {ker * 1e3:.3f} ms/set, ratio {ref / ker:,.0f}x")


def main() -> None:
    """Run the benchmark and print the tables."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sets", type=int, default=10)
    parser.add_argument("--small-sets", type=int, default=4000)
    parser.add_argument("--max-states", type=int, default=500_000)
    parser.add_argument("--max-transitions", type=int, default=20_000_000)
    parser.add_argument("--quick", action="store_true", help="n = 4, 6, 8 and periods up to 10, 20 only")
    parser.add_argument("--parts", default="small,reach,ties,reference", help="comma-separated parts to run")
    args = parser.parse_args()
    parts = set(args.parts.split(","))
    numba.set_num_threads(1)
    for ties in ("index", "every"):  # compile
        exact_gedf.explore(TaskSet.from_tasks([(1, 2, 2), (1, 2, 2), (1, 2, 2)]), 2, ties=ties, shortcuts=False)  # type: ignore[arg-type]
    # each part draws from its own generator, so running some parts only gives the same sets
    seeds = np.random.SeedSequence(7).spawn(4)
    if "small" in parts:
        small_sets(args, np.random.default_rng(seeds[0]))
        print()
    if "reach" in parts:
        reach(args, np.random.default_rng(seeds[1]))
        print()
    if "ties" in parts:
        tie_heavy(args, np.random.default_rng(seeds[2]))
        print()
    if "reference" in parts:
        kernel_vs_reference(np.random.default_rng(seeds[3]))


if __name__ == "__main__":
    main()
