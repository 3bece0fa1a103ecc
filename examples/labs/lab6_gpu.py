# %% [markdown]
# # Lab 6 — GPU partitioning: layouts, contention, allocation heuristics vs the optimum
#
# **Estimated time:** 75 minutes (30 for the worked examples, 45 for the four exercises).
# **Prerequisites:** Lab 1 (processor demand, QPA), Lab 3 (bin packing).
#
# **Learning goals.** After this lab you can
# 1. describe a GPU as M compute clusters split into partitions (a *layout*), and a kernel by
#    its WCET profile C(s) on s clusters;
# 2. compute contention-inflated WCETs C' = ⌈C(s)·f(K − 1)⌉ and decide a partition with the exact
#    uniprocessor EDF tests (preemptive and non-preemptive);
# 3. compare the GPU as one resource with partitioned allocations, by heuristics (first/best fit
#    decreasing over layouts) and by the optimum, on one workload and on random ones;
# 4. explain when partitioning wins (poor scaling) and when it loses (contention).
#
# The model is **rtsched's**, after Zahaf, Sañudo Olmedo, Singh, Capodieci & Faucou,
# "Contention-aware GPU partitioning and task-to-partition allocation for real-time workloads",
# RTNS 2021 (arXiv 2105.10312): only that paper's abstract could be checked, so every assumption
# below (A1–A7) is rtsched's and is listed in `papers/zahaf2021-gpu-partitioning.md`.
#
# Run it in Jupyter, or as a script: `python examples/labs/lab6_gpu.py` (figures go to
# `$RTSCHED_LAB_OUT`, default `lab-figures/`; `RTSCHED_EXAMPLE_SMALL=1` makes the experiment
# tiny).

# %%
import re
from fractions import Fraction
from math import ceil

import matplotlib.pyplot as plt
import numpy as np
from _labkit import SMALL, run_sweep, show

from rtsched import analyses, sweep
from rtsched.generators.gpu import GPUWorkloadSpec, generate_gpu_workloads
from rtsched.gpu import format_gpu_report, inflate, layouts, loads_gpu
from rtsched.platform import GPU

# %% [markdown]
# ## Background
#
# * **GPU and layouts.** A GPU has M compute clusters (groups of SMs/TPCs). A *layout* splits them
#   into K partitions of sizes s₁ + … + s_K ≤ M; partitions of equal size are interchangeable,
#   so the layouts of M clusters are the integer partitions of M (p(4) = 5, p(16) = 231).
# * **Kernels.** A real-time kernel τᵢ = (Cᵢ(s), Dᵢ, Tᵢ) has a WCET profile: measured values, or
#   Amdahl's law C(s) = ⌈C₁((1 − p) + p/s)⌉ with parallel fraction p, or a saturating profile
#   ⌈C₁/min(s, S)⌉ (A1: C non-increasing in s). Kernels of one partition run one at a time on the
#   whole partition under EDF, preemptive or not (A5).
# * **Contention.** Kernels in different partitions share memory bandwidth: with k *other*
#   active partitions a kernel's WCET grows by its measured slowdown fᵢ(k) ≥ 1 (A3: every kernel
#   may overlap with every other active partition; A4: f depends only on k). The sound inflation
#   (Eq. (I) of the note) is
#   $$C'_i = \left\lceil C_i(s) \cdot f_i(K - 1) \right\rceil .$$
# * **A partition's test.** With the inflated WCETs, a partition is one EDF processor: exact
#   processor demand / QPA (Zhang & Burns, IEEE TC 58(9), 2009) when all its kernels are
#   preemptive; otherwise the exact non-preemptive test of George, Rivierre & Spuri (INRIA
#   RR-2966, 1996), with blocking only by non-preemptive kernels: U ≤ 1 and
#   $$h(t) + \max\{C'_j - 1 : D_j > t,\ \tau_j \text{ non-preemptive}\} \le t$$
#   at every absolute deadline t below the synchronous busy period.
# * **Strategies** (`rtsched list`, platform `gpu`): `gpu:single`, the GPU as one resource
#   (K = 1, no contention, A7); `gpu:ffd` / `gpu:bfd`, layouts tried with K = 1, 2, … and first /
#   best fit of the kernels in decreasing inflated one-cluster utilization; `gpu:exhaustive`, the
#   optimum under the model (dynamic programming over subsets of kernels).

# %% [markdown]
# ## Worked example 1: a workload and the layouts of M = 4
#
# Four kernels of a camera pipeline, in the workload file format (`examples/gpu/demo.yaml` holds
# the same; `rtsched gpu FILE` reads it).

# %%
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
w = loads_gpu(WORKLOAD, "yaml", source="lab workload")
M = w.clusters
print(f"{w.n} kernels on M = {M} clusters")
print("layouts:", ", ".join("+".join(map(str, lay)) for lay in layouts(M)))
sizes = range(1, M + 1)
for i, kernel in enumerate(w.kernels):
    print(
        f"  {w.label(i):<16} C(s) = {[kernel.wcet.at(s) for s in sizes]}, D = {kernel.D}, T = {kernel.T}, "
        f"f(1..3) = {[str(kernel.factor(k)) for k in (1, 2, 3)]}, {'preemptive' if kernel.preemptive else 'non-preemptive'}"
    )
assert [w.kernels[1].wcet.at(s) for s in sizes] == [60, 32, 22, 18]  # ⌈60·(0.05 + 0.95/s)⌉

# %% [markdown]
# "detect" follows Amdahl: C(2) = ⌈60·(0.05 + 0.475)⌉ = ⌈31.5⌉ = 32. "debayer" hardly scales: two
# clusters save 6 ticks of 30, four save 9.
#
# ## Worked example 2: contention inflates the WCET
#
# "detect" in the first partition of each layout, by hand with exact fractions, against the
# library's `inflate`:


# %%
def inflated_by_hand(kernel, size, active):
    """⌈C(size) · f(active − 1)⌉ with exact fractions (None if f is not measured)."""
    f = kernel.factor(active - 1)
    return None if f is None else ceil(Fraction(kernel.wcet.at(size)) * f)


detect = w.kernels[1]
for lay in layouts(M):
    s, K = lay[0], len(lay)
    by_hand = inflated_by_hand(detect, s, K)
    print(
        f"  {'+'.join(map(str, lay)):>8}: C({s}) = {detect.wcet.at(s):>2}, f({K - 1}) = {str(detect.factor(K - 1)):>4}, C' = {by_hand}"
    )
    assert by_hand == inflate(detect, s, K)

# %% [markdown]
# Splitting the GPU costs twice: each partition is smaller (larger C(s)) *and* slower (f > 1). It
# pays off only when kernels scale poorly, so that several small partitions run in parallel what
# one large partition would run one kernel at a time.
#
# ## Worked example 3: each strategy's allocation, re-checked by hand
#
# The four strategies on this workload. Then every partition of every accepted allocation is
# re-decided by hand, with the inflated WCETs and the test of the background.


# %%
def partition_passes(rows, nonpreemptive):
    """U ≤ 1 and h(t) + B(t) ≤ t at every absolute deadline below the synchronous busy period."""
    if sum(Fraction(C, T) for C, _D, T in rows) > 1:
        return False
    busy = sum(C for C, _D, _T in rows)
    while (nxt := sum(ceil(busy / T) * C for C, _D, T in rows)) != busy:
        busy = nxt
    deadlines = sorted({D + k * T for _C, D, T in rows for k in range(busy // T + 1) if D + k * T < busy})
    for t in deadlines:
        demand = sum(max(0, (t - D) // T + 1) * C for C, D, T in rows)
        blocking = max([C - 1 for (C, D, _T), np_ in zip(rows, nonpreemptive, strict=True) if np_ and D > t], default=0)
        if demand + blocking > t:
            return False
    return True


STRATEGIES = ("single", "ffd", "bfd", "exhaustive")
reports = {}
for h in STRATEGIES:
    result = analyses.get(f"gpu:{h}").explain(w, GPU(M))
    reports[h] = report = result.evidence["report"]
    print(format_gpu_report(report), end="\n\n")
    if report["verdict"] is True:
        K = len(report["partitions"])
        for part in report["partitions"]:
            rows = [
                (inflated_by_hand(w.kernels[i], part["size"], K), w.kernels[i].D, w.kernels[i].T)
                for i in part["kernels"]
            ]
            assert [C for C, _D, _T in rows] == list(part["inflated_wcets"])
            assert partition_passes(rows, [not w.kernels[i].preemptive for i in part["kernels"]]) is True
assert reports["single"]["verdict"] is False and reports["exhaustive"]["verdict"] is True

# %% [markdown]
# The GPU as one resource fails: one kernel at a time on all four clusters, Σ C(4)/T =
# 21/40 + 18/100 + 9/25 + 5/50 = 1.165 > 1. Every partitioned strategy succeeds with two active
# partitions, each kernel paying f(1). The figure: the WCET profiles, and which kernels share
# which clusters under each strategy.

# %%
fig, (ax_c, ax_a) = plt.subplots(1, 2, figsize=(11, 4), gridspec_kw={"width_ratios": [1, 1.6]})
for i, kernel in enumerate(w.kernels):
    ax_c.plot(list(sizes), [kernel.wcet.at(s) for s in sizes], marker="o", label=w.label(i))
ax_c.set(xlabel="partition size s (clusters)", ylabel="WCET C(s) (ticks)", xticks=list(sizes), title="WCET profiles")
ax_c.legend(fontsize=7)
colours = plt.get_cmap("tab10")
for row, h in enumerate(STRATEGIES):
    a = reports[h]
    if a["verdict"] is not True:
        ax_a.barh(row, M, color="0.9", edgecolor="0.5")
        ax_a.text(M / 2, row, "no allocation proven", ha="center", va="center", fontsize=8)
        continue
    left = 0
    for p, part in enumerate(a["partitions"]):
        ax_a.barh(row, part["size"], left=left, color=colours(p), alpha=0.6, edgecolor="black")
        names = "\n".join(w.kernels[i].name for i in part["kernels"])
        ax_a.text(
            left + part["size"] / 2,
            row,
            f"{names}\nU'={float(part['utilization']):.2f}",
            ha="center",
            va="center",
            fontsize=7,
        )
        left += part["size"]
    if a["idle_clusters"]:
        ax_a.barh(row, a["idle_clusters"], left=left, color="white", hatch="//", edgecolor="0.5")
ax_a.set_yticks(range(len(STRATEGIES)), STRATEGIES)
ax_a.set(xlim=(0, M), xlabel="compute clusters", title="allocation per strategy (hatched: idle)")
ax_a.invert_yaxis()
show(fig, "lab6_allocations")

# %% [markdown]
# ## Worked example 4: heuristics against the optimum on random workloads
#
# The sweep engine draws GPU workloads (`[generator] kind = "gpu"`: UUniFast one-cluster
# utilizations, Amdahl profiles with p uniform in [0.3, 0.95], linear contention f(k) = 1 + a·k
# with a uniform in [0, 0.3], implicit deadlines) and runs the four strategies on each.

# %%
SETS = 20 if SMALL else 200
spec = {
    "name": "lab6",
    "seed": 2021,
    "platform": {"m": 4},
    "generator": {
        "kind": "gpu",
        "n": 5,
        "periods": "log-uniform:100:10000",
        "deadlines": "implicit",
        "parallel": [0.3, 0.95],
        "contention": [0.0, 0.3],
    },
    "sweep": {
        "variable": "U/m",
        "points": [0.3, 0.5, 0.6, 0.7, 0.9] if SMALL else [x / 20 for x in range(4, 20)],
        "sets_per_point": SETS,
        "sets_per_unit": SETS,
    },
    "analyses": {"names": [f"gpu:{h}" for h in STRATEGIES]},
}
experiment = sweep.parse_experiment(spec)
results = run_sweep(experiment)
fig, ax = plt.subplots(figsize=(7, 4))
for name in results.analyses:
    curve = [r for r in results.rows if r.analysis == name]
    xs = [r.value for r in curve]
    (line,) = ax.plot(xs, [r.ratio for r in curve], "o-", ms=3, label=name)
    ax.fill_between(xs, [r.ci_low for r in curve], [r.ci_high for r in curve], color=line.get_color(), alpha=0.12)
ax.set(
    xlabel="U₁/M (one-cluster utilization per cluster)",
    ylabel="acceptance ratio",
    title=f"M = 4, n = 5, {SETS} workloads per point",
)
ax.legend(fontsize=8)
show(fig, "lab6_strategies")
for row in results.weighted:
    print(f"{row.analysis:<16} weighted schedulability {row.weighted_schedulability:.3f}")

# %% [markdown]
# Partitioning beats the one-resource baseline by a wide margin on these poorly scaling
# kernels, and the heuristics come close to the optimum: the exhaustive curve is an upper bound
# of every allocation the model allows, so the gap between it and `gpu:ffd` is all a heuristic
# can lose. On a single workload, the gap can be total — a witness, found from a seed:

# %%
rng = np.random.default_rng(21)
pool = generate_gpu_workloads(
    rng, GPUWorkloadSpec(n=5, clusters=4, U1=2.4, contention=(0.0, 0.3), parallel=(0.3, 0.95)), 60
)
status = {h: analyses.get(f"gpu:{h}").status(pool, GPU(4)) for h in ("ffd", "exhaustive")}
witness = pool[next(i for i in range(len(pool)) if status["exhaustive"][i] == 1 and status["ffd"][i] != 1)]
for h in ("ffd", "exhaustive"):
    print(format_gpu_report(analyses.get(f"gpu:{h}").explain(witness, GPU(4)).evidence["report"]), end="\n\n")

# %% [markdown]
# ## Exercises
#
# **Exercise 1 (inflation by hand).** For "debayer" compute C(s), f(K − 1) and C' in each layout
# of M = 4 (first partition), by hand. In which layout is its C' smallest? Check with `inflate`.

# %% tags=["solution"]
# Exercise 1: debayer in every layout
debayer = w.kernels[0]
for parts in layouts(M):
    print(
        f"{'+'.join(map(str, parts)):>8}: C({parts[0]}) = {debayer.wcet.at(parts[0])}, f({len(parts) - 1}) = "
        f"{debayer.factor(len(parts) - 1)}, C' = {inflate(debayer, parts[0], len(parts))}"
    )

# %% [markdown] tags=["solution"]
# **Solution 1.** 4: C(4) = 21, f(0) = 1, C' = 21. 3+1: ⌈22·11/10⌉ = ⌈24.2⌉ = 25. 2+2 and 2+1+1
# (first partition of size 2): ⌈24·1.1⌉ = 27 and ⌈24·1.2⌉ = ⌈28.8⌉ = 29. 1+1+1+1: ⌈30·1.3⌉ = 39.
# Smallest alone on the whole GPU — but then every other kernel waits for it.

# %% [markdown]
# **Exercise 2 (no contention).** Set every slowdown of the workload to 1 (edit the YAML text)
# and rerun the four strategies. Which layout does `gpu:exhaustive` choose now? Then rerun
# worked example 4 with `contention = [0.0, 0.0]`: how do the curves move?

# %% tags=["solution"]
# Exercise 2: f ≡ 1
calm = loads_gpu(re.sub(r"slowdown: .*", "slowdown: 1.0", WORKLOAD), "yaml", source="no contention")
for strategy in STRATEGIES:
    print(f"{strategy:<11}", analyses.get(f"gpu:{strategy}").explain(calm, GPU(M)).summary)
calm_spec = {**spec, "name": "lab6-calm", "generator": {**spec["generator"], "contention": [0.0, 0.0]}}
calm_experiment = sweep.parse_experiment(calm_spec)
calm_results = run_sweep(calm_experiment)
for row in calm_results.weighted:
    print(
        f"{row.analysis:<16} weighted schedulability {row.weighted_schedulability:.3f} (with contention: "
        f"{next(r.weighted_schedulability for r in results.weighted if r.analysis == row.analysis):.3f})"
    )

# %% [markdown] tags=["solution"]
# **Solution 2.** On the lab workload the layouts change little: `gpu:ffd` now stops at 3+1
# (the first two-partition layout it tries) instead of 2+2, and `gpu:exhaustive` keeps 1+2 (it
# minimises the clusters used, and f(1) was not what limited it). On random workloads every
# partitioned curve moves right (weighted schedulability about 0.38 → 0.62 in the small run),
# while the baseline does not move at all: with K = 1 there is no contention to remove.
# `gpu:ffd` and `gpu:bfd` try K = 1 first, so they never accept less than the baseline.

# %% [markdown]
# **Exercise 3 (non-preemptive kernels).** Make "detect" non-preemptive as well
# (`preemptive: false`). Which layouts do the strategies choose now, and why? Look at the
# blocking term: which kernels can no longer share a partition with "detect"?

# %% tags=["solution"]
# Exercise 3: detect becomes non-preemptive
stiff = loads_gpu(WORKLOAD.replace("    T: 100\n", "    T: 100\n    preemptive: false\n"), "yaml", source="stiff")
assert not stiff.kernels[1].preemptive
for strategy in STRATEGIES:
    print(format_gpu_report(analyses.get(f"gpu:{strategy}").explain(stiff, GPU(M)).evidence["report"]), end="\n\n")

# %% [markdown] tags=["solution"]
# **Solution 3.** A started "detect" job blocks every kernel with an earlier deadline for
# C' − 1 ticks: at least ⌈22·5/4⌉ − 1 = 27 on three clusters, more than "track"'s deadline (25),
# and with "debayer" (D = 40, C' ≥ 25) the demand at t = 40 exceeds 40 as well. So "detect" ends
# up alone on one cluster (C' = ⌈60·3/2⌉ = 90 ≤ 100) and every strategy needs three active
# partitions (2+1+1), where each kernel pays f(2) instead of f(1). Blocking costs schedulability
# that utilization does not show.

# %% [markdown]
# **Exercise 4 (why the heuristic failed).** For the witness of worked example 4, take the
# layout `gpu:exhaustive` found and try first fit by hand in FFD's order (decreasing inflated
# one-cluster utilization ⌈C(1)·f(K − 1)⌉/T). Where does it go wrong?

# %% tags=["solution"]
# Exercise 4: first fit by hand on the optimum's layout
best = analyses.get("gpu:exhaustive").explain(witness, GPU(4)).evidence["report"]
layout = [part["size"] for part in best["partitions"]]
K = len(layout)
order = sorted(
    range(witness.n), key=lambda i: (-Fraction(inflated_by_hand(witness.kernels[i], 1, K), witness.kernels[i].T), i)
)
placed = [[] for _ in layout]
for i in order:
    for p, size in enumerate(layout):
        trial = placed[p] + [i]
        rows = [
            (inflated_by_hand(witness.kernels[j], size, K), witness.kernels[j].D, witness.kernels[j].T) for j in trial
        ]
        if partition_passes(rows, [not witness.kernels[j].preemptive for j in trial]):
            placed[p] = trial
            print(f"κ{i} → P{p} (size {size})")
            break
    else:
        print(f"κ{i}: no partition of {layout} admits it; first fit holds {placed}")
        break
print("the optimum:", [part["kernels"] for part in best["partitions"]])
assert any(i not in sum(placed, []) for i in order)  # first fit fails on this layout, as gpu:ffd does on all

# %% [markdown] tags=["solution"]
# **Solution 4.** With seed 21 the optimum gives κ4 the one-cluster partition alone and puts
# κ0–κ3 on three clusters. First fit takes κ4 first (largest one-cluster utilization) and puts
# it in the *large* partition; κ2 joins it, κ3 goes to the small one, and κ0 then fits nowhere.
# The other layouts fail similarly. The optimum decides which kernels go *together* (subsets),
# not kernel by kernel — the reason first fit decreasing is not optimal for bin packing either
# (lab 3). The heuristic's failure proves nothing about the workload.

# %% [markdown]
# ## Things to try
#
# * `rtsched gpu examples/gpu/demo.yaml --heuristic exhaustive`: the same reports from the shell.
# * `rtsched sweep examples/gpu_experiment.toml --out gpu-sweep`: a larger version of worked
#   example 4; `examples/gpu_partitioning.py` runs the same study as a script.
# * `blocking: dense` in the workload file: blocking C instead of C − 1 (kernels may end between
#   ticks). Which allocations of exercise 3 survive?
# * Raise M to 8 (`clusters: 8`): the number of layouts grows as the partition numbers (p(8) = 22);
#   does the gap between heuristics and optimum grow?
