"""What a GPU's partition granularity and co-runner-aware interference cost or gain (issue 20).

Usage: ``python examples/gpu_granularity.py [OUT.png | OUT_DIR]`` (default: the current
directory). Seeded: the same command always draws the same workloads. ``RTSCHED_EXAMPLE_SMALL=1``
runs a reduced sweep (used by the test suite).

On M = 7 clusters (the compute slices of an A100 in MIG mode), for each point of the swept
one-cluster utilization U1 = Σ C_i(1)/T_i, workloads are drawn once with
:func:`rtsched.generators.gpu.generate_gpu_workloads` (Amdahl WCET tables, worst-case contention
f(k) = 1 + a·k, half the kernels memory-bound, and a synthetic milder row f(k | compute) =
1 + r·a·k against compute-bound co-runners) and the *same* workloads are allocated by the
exhaustive optimum (``gpu:exhaustive``) under each model:

* left, granularity: layout spaces ``free`` (any split of 7), ``tpc:2`` (whole TPCs of 2 SMs)
  and ``mig:a100`` (MIG instances at their placements), all with co-runner-aware factors;
* right, interference: ``count-only`` (f by the number of other partitions, the worst co-runner
  always assumed) vs ``co-runner`` (f by the most interfering class actually beside the
  kernel), on ``free`` and ``mig:a100``.

Each curve is an acceptance ratio of an optimum under its model, so on the same workloads a
coarser layout space never accepts more than ``free`` and ``co-runner`` never less than
``count-only`` (both checked below). Model: papers/zahaf2021-gpu-partitioning.md.
"""

from __future__ import annotations

import os
import sys
from dataclasses import replace
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

from rtsched.analyses.gpu.partitioning import allocate
from rtsched.generators.gpu import GPUWorkloadSpec, generate_gpu_workloads
from rtsched.sweep.units import unit_seed

SEED = 20260520
SMALL = os.environ.get("RTSCHED_EXAMPLE_SMALL") == "1"
M = 7
#: (layout, interference) of each curve.
GRANULARITY = (("free", "co-runner"), ("tpc:2", "co-runner"), ("mig:a100", "co-runner"))
INTERFERENCE = (("free", "count-only"), ("free", "co-runner"), ("mig:a100", "count-only"), ("mig:a100", "co-runner"))
MODELS = tuple(dict.fromkeys(GRANULARITY + INTERFERENCE))


def run_point(k: int, spec: GPUWorkloadSpec, sets: int) -> dict[tuple[str, str], float]:
    """Acceptance ratio of the exhaustive optimum under every model at one point (work unit ``k``)."""
    rng = np.random.default_rng(unit_seed(SEED, k))  # as the sweep engine seeds work unit k
    workloads = generate_gpu_workloads(rng, spec, sets)
    accepted = {
        model: [allocate(w, M, "exhaustive", layout=model[0], interference=model[1]).verdict is True for w in workloads]
        for model in MODELS
    }
    for i in range(sets):  # the orders the theory promises, workload by workload
        assert accepted[("free", "co-runner")][i] or not accepted[("mig:a100", "co-runner")][i]
        assert accepted[("free", "co-runner")][i] or not accepted[("tpc:2", "co-runner")][i]
        assert accepted[("free", "co-runner")][i] or not accepted[("free", "count-only")][i]
        assert accepted[("mig:a100", "co-runner")][i] or not accepted[("mig:a100", "count-only")][i]
    return {model: float(np.mean(values)) for model, values in accepted.items()}


def main(argv: list[str]) -> tuple[plt.Figure, Path]:
    """Run the sweep, print the table; return the figure and where to write it."""
    target = Path(argv[1]) if len(argv) > 1 else Path.cwd()
    out = target / "gpu_granularity.png" if target.suffix.lower() != ".png" else target
    base = GPUWorkloadSpec(
        n=4 if SMALL else 5,
        clusters=M,
        parallel=(0.3, 0.95),
        contention=(0.0, 0.3),
        memory_share=0.5,
        compute_relief=(0.2, 0.6),
    )
    sets = 6 if SMALL else 150
    points = np.linspace(0.2, 0.7, 3 if SMALL else 11) * M
    table: dict[tuple[str, str], list[float]] = {model: [] for model in MODELS}
    print(f"M = {M}, n = {base.n} kernels, {sets} workloads per point, seed {SEED}; gpu:exhaustive under each model")
    width = max(len(f"{layout}/{mode}") for layout, mode in MODELS)
    print("U1/M   " + "  ".join(f"{layout}/{mode}".rjust(width) for layout, mode in MODELS))
    for k, U1 in enumerate(points):
        ratios = run_point(k, replace(base, U1=float(U1)), sets)
        for model in MODELS:
            table[model].append(ratios[model])
        print(f"{U1 / M:5.2f}  " + "  ".join(f"{ratios[model]:{width}.3f}" for model in MODELS))
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4.2), sharey=True)
    for model, marker in zip(GRANULARITY, "osD", strict=True):
        left.plot(points / M, table[model], marker=marker, label=f"{model[0]}")
    left.set_title("granularity (co-runner-aware factors)", fontsize=9)
    for model, style in zip(INTERFERENCE, ("o--", "o-", "D--", "D-"), strict=True):
        right.plot(points / M, table[model], style, label=f"{model[0]}, {model[1]}")
    right.set_title("interference model", fontsize=9)
    for ax in (left, right):
        ax.set_xlabel("normalised one-cluster utilization  Σ C(1)/T / M")
        ax.set_ylim(-0.02, 1.02)
        ax.grid(alpha=0.3)
        ax.legend(loc="lower left", fontsize=8)
    left.set_ylabel("acceptance ratio of the exhaustive optimum")
    fig.suptitle(
        f"M = {M} clusters, n = {base.n}, {sets} workloads per point; f(k) = 1 + a·k, a ∈ {list(base.contention)}; "
        f"half memory-bound; beside compute-bound co-runners 1 + r·a·k, r ∈ {list(base.compute_relief)} (synthetic)",
        fontsize=8,
    )
    fig.tight_layout()
    return fig, out


if __name__ == "__main__":
    figure, path = main(sys.argv)
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=120)
    print(f"wrote {path}")
