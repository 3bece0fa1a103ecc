"""Acceptance of the G-FP DAG tests dag-gfp-melani2015, dag-gfp-he2019 and dag-gfp-fonseca2017 on the
setup of examples/dag_experiment.toml (papers/he2019-intra-task-priority.md, "How much it gains").

Run: python papers/repro/he2019_acceptance.py [--sets 100] [--seed 20261206] [--m 8]
(under a minute for 100 sets per point)

Sets: 12 nested fork-join DAG tasks (depth 2, 2..7 branches, p_par 0.8, p_term 0.2, WCETs 1..100,
every root forks), UUniFast utilizations summing to U, constrained deadlines, deadline-monotonic
task order; m = 8. One seeded stream for all points, so the same seed gives the same table.
"""

from __future__ import annotations

import argparse

import numpy as np

from rtsched import analyses
from rtsched.dag import DAGBatch
from rtsched.generators.dag import dag_tasksets

NAMES = ("dag-gfp-melani2015", "dag-gfp-he2019", "dag-gfp-fonseca2017")
SHAPE = {"max_depth": 2, "max_branches": 7, "p_par": 0.8, "p_term": 0.2, "wcet": (1, 100), "root_forks": True}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", type=int, default=100)
    parser.add_argument("--seed", type=int, default=20261206)
    parser.add_argument("--m", type=int, default=8)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    entries = [analyses.get(name) for name in NAMES]
    print("| U | " + " | ".join(NAMES) + " |")
    print("|---|" + "---|" * len(NAMES))
    for U in (1.0, 2.0, 3.0, 4.0, 5.0, 6.0):
        sets = dag_tasksets(
            rng, n_tasks=12, utilization=U, size=args.sets, shape="fork-join", shape_params=SHAPE,
            deadlines="constrained", priorities="deadline-monotonic",
        )  # fmt: skip
        batch = DAGBatch.from_tasksets(sets)
        ratios = [float(np.mean(np.asarray(e.batch(batch, args.m)) == 1)) for e in entries]
        print(f"| {U} | " + " | ".join(f"{r:.2f}" for r in ratios) + " |")


if __name__ == "__main__":
    main()
