"""Lecture lab: partitioning a GPU's compute clusters among real-time kernels.

The GPU model and its assumptions: papers/zahaf2021-gpu-partitioning.md.

Usage: ``python examples/gpu_lab.py [OUT.png | OUT_DIR]`` (default: the current directory).

1. A workload of four kernels, written in the GPU workload file format (YAML).
2. The layouts of a GPU with M = 4 clusters: the integer partitions of 4.
3. What contention does: the inflated WCETs C' = ⌈C(s)·f(K − 1)⌉ of one kernel per layout.
4. The allocation chosen by each strategy (the registry's GPU analyses ``gpu:<strategy>`` on
   the platform ``GPU(M)``), with each partition's EDF verdict.
5. A figure: the WCET profiles C(s) and, per strategy, which kernels share which clusters.

Things to try: set every slowdown to 1 (partitioning then never loses to the baseline on
scalable kernels); make ``track`` non-preemptive and watch the blocking it causes; raise M.
"""

from __future__ import annotations

import sys
from pathlib import Path

import matplotlib.pyplot as plt

from rtsched import registry
from rtsched.gpu import format_gpu_report, inflate, layouts, loads_gpu
from rtsched.platform import GPU

WORKLOAD = """
name: lab
clusters: 4
kernels:
  - name: debayer              # poorly parallel: little gain beyond 2 clusters
    C: [30, 24, 22, 21]
    D: 40
    T: 40
    slowdown: [1.10, 1.20, 1.30]
  - name: detect               # Amdahl's law with 95 % parallel code
    C: {model: amdahl, C1: 60, parallel: 0.95}
    D: 100
    T: 100
    slowdown: [1.25, 1.50, 1.75]
  - name: track
    C: [12, 10, 9, 9]
    D: 25
    T: 25
    slowdown: [1.05, 1.10, 1.15]
  - name: dma-copy             # runs to completion once started
    C: {model: saturating, C1: 10, saturation: 2}
    D: 40
    T: 50
    preemptive: false
    slowdown: 1.5
"""

STRATEGIES = ("single", "ffd", "bfd", "exhaustive")


def main(argv: list[str]) -> int:
    """Print the lab's steps and write its figure."""
    target = Path(argv[1]) if len(argv) > 1 else Path.cwd()
    out = target / "gpu_lab.png" if target.suffix.lower() != ".png" else target
    w = loads_gpu(WORKLOAD, "yaml", source="lab workload")
    M = w.clusters or 4

    print(f"1. {w.n} kernels on a GPU of M = {M} clusters")
    print(f"2. layouts (integer partitions of {M}): {', '.join('+'.join(map(str, lay)) for lay in layouts(M))}")
    k = w.kernels[1]
    print("3. inflated WCET of 'detect' in the first partition of each layout:")
    for lay in layouts(M):
        c = inflate(k, lay[0], len(lay))
        print(
            f"   {'+'.join(map(str, lay)):>8}: C({lay[0]}) = {k.wcet.at(lay[0])}, f({len(lay) - 1}) = {k.factor(len(lay) - 1)}, C' = {c}"
        )
    print("4. allocations")
    reports = {}
    for h in STRATEGIES:
        result = registry.get(f"gpu:{h}").explain(w, GPU(M))
        reports[h] = result.evidence["report"]  # the allocation, exact numbers
        print(format_gpu_report(reports[h]))
        print()

    fig, (ax_c, ax_a) = plt.subplots(1, 2, figsize=(11, 4), gridspec_kw={"width_ratios": [1, 1.6]})
    sizes = list(range(1, M + 1))
    for i, kern in enumerate(w.kernels):
        ax_c.plot(sizes, [kern.wcet.at(s) for s in sizes], marker="o", label=w.label(i))
    ax_c.set_xlabel("partition size s (clusters)")
    ax_c.set_ylabel("WCET C(s) (ticks)")
    ax_c.set_xticks(sizes)
    ax_c.set_title("WCET profiles", fontsize=9)
    ax_c.legend(fontsize=7)
    colours = plt.get_cmap("tab10")
    for row, h in enumerate(STRATEGIES):
        a = reports[h]
        left = 0
        if a["verdict"] is not True:
            ax_a.barh(row, M, color="0.9", edgecolor="0.5")
            ax_a.text(M / 2, row, "no allocation proven", ha="center", va="center", fontsize=8)
            continue
        for p_index, part in enumerate(a["partitions"]):
            ax_a.barh(row, part["size"], left=left, color=colours(p_index), alpha=0.6, edgecolor="black")
            names = "\n".join(w.kernels[i].name or str(i) for i in part["kernels"])
            u = float(part["utilization"])
            ax_a.text(left + part["size"] / 2, row, f"{names}\nU'={u:.2f}", ha="center", va="center", fontsize=7)
            left += part["size"]
        if a["idle_clusters"]:
            ax_a.barh(row, a["idle_clusters"], left=left, color="white", hatch="//", edgecolor="0.5")
    ax_a.set_yticks(range(len(STRATEGIES)), STRATEGIES)
    ax_a.set_xlim(0, M)
    ax_a.set_xlabel("compute clusters")
    ax_a.invert_yaxis()
    ax_a.set_title("allocation per strategy (hatched: idle clusters)", fontsize=9)
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=120)
    print(f"5. wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
