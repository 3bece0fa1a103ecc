"""Acceptance ratio of partitioned-GPU allocation vs. the GPU as one resource (rtsched's model, after Zahaf et al., RTNS 2021).

Usage: ``python examples/gpu_partitioning.py [OUT.png | OUT_DIR]`` (default: the current
directory). Seeded: the same command always draws the same workloads. ``RTSCHED_EXAMPLE_SMALL=1``
runs a reduced sweep (used by the test suite).

For each point of the swept one-cluster utilization U1 = Σ C_i(1)/T_i (normalised by M in the
plot), workloads are drawn with :func:`rtsched.generators.gpu.generate_gpu_workloads` (Amdahl WCET
tables, linear contention, log-uniform periods, implicit deadlines) and checked with four
GPU analyses of the registry, ``gpu:single`` (the baseline), ``gpu:ffd``, ``gpu:bfd`` and
``gpu:exhaustive``, on the platform ``GPU(M)``; the legend shows their registry titles. Work unit
k (one sweep point) draws from :func:`rtsched.sweep.units.unit_seed` ``(SEED, k)``, as the sweep
engine does, so points do not depend on each other or on the order they run in.
"""

from __future__ import annotations

import os
import sys
from dataclasses import replace
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

from rtsched import registry
from rtsched.generators.gpu import GPUWorkloadSpec, generate_gpu_workloads
from rtsched.platform import GPU
from rtsched.sweep.units import unit_seed

SEED = 20210521
SMALL = os.environ.get("RTSCHED_EXAMPLE_SMALL") == "1"
STRATEGIES = ("single", "ffd", "bfd", "exhaustive")


def run_point(k: int, spec: GPUWorkloadSpec, sets: int) -> dict[str, float]:
    """Acceptance ratio of every strategy at one sweep point (work unit ``k``)."""
    rng = np.random.default_rng(unit_seed(SEED, k))
    workloads = generate_gpu_workloads(rng, spec, sets)
    gpu = GPU(spec.clusters)
    return {h: float(np.mean(registry.get(f"gpu:{h}").status(workloads, gpu) == 1)) for h in STRATEGIES}


def main(argv: list[str]) -> int:
    """Run the sweep, print the table and write the plot."""
    target = Path(argv[1]) if len(argv) > 1 else Path.cwd()
    out = target / "gpu_partitioning.png" if target.suffix.lower() != ".png" else target
    base = GPUWorkloadSpec(n=4 if SMALL else 6, clusters=4, contention=(0.0, 0.3), parallel=(0.3, 0.95))
    sets = 8 if SMALL else 200
    M = base.clusters
    points = np.linspace(0.2, 1.0, 5 if SMALL else 17) * M
    table = {h: [] for h in STRATEGIES}
    print(f"M = {M} clusters, n = {base.n} kernels, {sets} workloads per point, seed {SEED}")
    print("U1/M   " + "  ".join(f"{h:>10}" for h in STRATEGIES))
    for k, U1 in enumerate(points):
        ratios = run_point(k, replace(base, U1=float(U1)), sets)
        for h in STRATEGIES:
            table[h].append(ratios[h])
        print(f"{U1 / M:5.2f}  " + "  ".join(f"{ratios[h]:10.3f}" for h in STRATEGIES))
    fig, ax = plt.subplots(figsize=(7, 4.2))
    for h, marker in zip(STRATEGIES, "osD^", strict=True):
        ax.plot(points / M, table[h], marker=marker, label=registry.get(f"gpu:{h}").title)
    ax.set_xlabel("normalised one-cluster utilization  Σ C(1)/T / M")
    ax.set_ylabel("acceptance ratio")
    ax.set_ylim(-0.02, 1.02)
    ax.grid(alpha=0.3)
    ax.legend(loc="lower left", fontsize=8)
    ax.set_title(
        f"GPU with M = {M} clusters, n = {base.n} kernels; Amdahl p ∈ {list(base.parallel)}, "
        f"f(k) = 1 + a·k, a ∈ {list(base.contention)}",
        fontsize=8,
    )
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=120)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
