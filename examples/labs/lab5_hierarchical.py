# %% [markdown]
# # Lab 5 — Hierarchical scheduling: MPR interfaces, supply bounds, virtual clusters
#
# **Estimated time:** 90 minutes (40 for the worked examples, 50 for the four exercises).
# **Prerequisites:** Lab 1 (dbf), Lab 2 (global EDF), Lab 3 (partitioning).
#
# **Learning goals.** After this lab you can
# 1. describe a multiprocessor periodic resource (MPR) ⟨Π, Θ, m'⟩ and compute its worst-case
#    supply sbf(t) by hand, and its linear bound lsbf(t);
# 2. decide global EDF on an MPR interface by comparing the demand DEM with sbf, and read the
#    failing point when it does not hold;
# 3. find a minimum interface for a cluster of tasks, and explain how the period Π trades
#    bandwidth against overhead;
# 4. run the virtual-cluster pipeline (clusters → interfaces → servers → top level) and compare
#    cluster sizes.
#
# Run it in Jupyter, or as a script: `python examples/labs/lab5_hierarchical.py` (figures go to
# `$RTSCHED_LAB_OUT`, default `lab-figures/`; `RTSCHED_EXAMPLE_SMALL=1` uses fewer random sets).

# %%
from fractions import Fraction

import matplotlib.pyplot as plt
import numpy as np
import sympy
from _labkit import SMALL, show

import rtsched
from rtsched import check_many
from rtsched.analyses.hierarchical import mpr
from rtsched.analyses.hierarchical.clustered import platform_report
from rtsched.generators import generate_batch

# %% [markdown]
# ## Background
#
# **Hierarchical scheduling** gives a group of tasks (a *cluster*, an application, a virtual
# machine) a share of the platform described by an *interface*, checks the cluster against its
# interface alone, and then schedules the interfaces. Shin, Easwaran & Lee ("Hierarchical
# scheduling framework for virtual clustering of multiprocessors", ECRTS 2008) define the
# **multiprocessor periodic resource** Γ = ⟨Π, Θ, m'⟩: Θ units of processor time in every period
# of length Π, on at most m' processors at any instant (0 < Θ ≤ m'Π; bandwidth Θ/Π).
#
# **Supply bound.** sbf(t) is the least supply Γ guarantees in *any* window of length t. The
# worst case packs the supply of one period as early as possible and of the following ones as
# late as possible, and starts the window just after the early supply. With α = ⌊Θ/m'⌋,
# β = Θ − m'α, s = ⌈Θ/m'⌉, the longest gap without supply (the *blackout*) is 2(Π − s). The
# exact integer-time sbf is the corrected form of Easwaran, Shin & Lee ("Optimal virtual
# cluster-based multiprocessor scheduling", Real-Time Systems 43(1), 2009), written by rtsched
# as: t' = t − 2(Π − s), and for t' > 0 with q = ⌊(t' − 1)/Π⌋, y = t' − qΠ,
# $$\mathrm{sbf}(t) = \begin{cases} q\Theta + m'\min(y, \alpha) & \beta = 0\\
# q\Theta + \beta + m'\min(y-1, \alpha) - [2 \le y \le s]\,(m' - \beta) & \beta > 0 \end{cases}$$
# (0 for t' ≤ 0). Its linear lower bound (ECRTS 2008, Eq. (2)) is
# $$\mathrm{lsbf}(t) = \frac{\Theta}{\Pi}\left(t - 2\left(\Pi - \frac{\Theta}{m'}\right)\right).$$
#
# **Global EDF on an interface** (ECRTS 2008, Thm. 1, in rtsched's integer-time form, proved in
# `papers/shin-easwaran-lee2008-mpr.md`): the cluster is schedulable if for every task k and
# every integer A_k ≥ 0 (up to a bound, Thm. 2), with t = A_k + D_k,
# $$\mathrm{DEM}(t) = \sum_i \hat I_i + \sum_{m'-1\ \text{largest}} (\bar I_i - \hat I_i) + m'(C_k - 1)
# \ <\ \mathrm{sbf}(t),$$
# where Î_i = min(dbf_i(t), t − C_k + 1) and Ī_i = min(DBF'_i(t), t − C_k + 1) for i ≠ k
# (DBF' adds the carried-in job, min(C_i, t − N_iT_i) with N_i jobs inside), and for i = k the
# same with dbf_k − C_k, DBF'_k − C_k capped at A_k. On m dedicated processors ⟨1, m, m⟩,
# sbf(t) = m·t and this is Baruah's RTSS 2007 test in integer time.
#
# **Virtual clusters** (ECRTS 2008, §5; RTS 2009): (1) group the tasks into clusters of at
# most k processors; (2) give each cluster its minimum-bandwidth interface; (3) turn each
# interface into m' periodic servers (β servers of budget α + 1 and m' − β of budget α, period
# and deadline Π); (4) schedule the servers on the m physical processors. rtsched: the MPR API in
# `rtsched.analyses.hierarchical.mpr` (`sbf`, `lsbf`, `MPRInterface`, `gedf_mpr`, `min_theta`,
# `best_interface`), the analyses `gedf-mpr` and `clustered:k=<k>` (`rtsched list`), notes
# `papers/shin-easwaran-lee2008-mpr.md` and `papers/easwaran-shin-lee2009-virtual-clusters.md`.
# Equation and theorem numbers follow those notes, which say which ones could not be checked
# against the papers themselves.

# %% [markdown]
# ## Worked example 1: the supply of ⟨5, 3, 2⟩
#
# Π = 5, Θ = 3, m' = 2: α = 1, β = 1, s = 2, blackout 2(5 − 2) = 6. By hand: the worst-case
# supply pattern (first period early: 2, 1, 0, 0, 0; later periods late: 0, 0, 0, 1, 2), and the
# least supply over every window start in the first period, against `mpr.sbf`.


# %%
def worst_case_supply(Pi, Theta, m_prime, t):
    """Least supply in a window of length t: first period early, later ones late, every start."""
    alpha, beta = divmod(Theta, m_prime)
    early = [m_prime] * alpha + ([beta] if beta else [])
    early += [0] * (Pi - len(early))
    ticks = early + early[::-1] * (t // Pi + 2)
    return min(sum(ticks[start : start + t]) for start in range(Pi))


Pi, Theta, m_prime = 5, 3, 2
gamma = mpr.MPRInterface(Pi, Theta, m_prime)
t = np.arange(0, 31)
library = gamma.sbf(t)
by_hand = [worst_case_supply(Pi, Theta, m_prime, int(x)) for x in t]
print(f"{gamma}: α = {gamma.alpha}, β = {gamma.beta}, blackout = {gamma.blackout}")
print("t      ", " ".join(f"{x:>2}" for x in t[:16]))
print("sbf    ", " ".join(f"{x:>2}" for x in library[:16]))
print("lsbf   ", " ".join(f"{float(x):>4.1f}" for x in gamma.lsbf(t[:16])))
assert list(library) == by_hand  # every t up to 30
assert all(gamma.lsbf(x) <= gamma.sbf(x) for x in range(0, 200))  # lsbf is a lower bound

# %% [markdown]
# lsbf is a line with slope Θ/Π; sympy puts it in slope–intercept form, lsbf(t) = (Θ/Π)·t − B,
# and the offset B agrees with rtsched's `lsbf_offset` for every interface we try:

# %%
t_s, Pi_s, Theta_s, m_s = sympy.symbols("t Pi Theta m_prime", positive=True)
lsbf_symbolic = Theta_s / Pi_s * (t_s - 2 * (Pi_s - Theta_s / m_s))
offset = sympy.factor(sympy.expand(Theta_s / Pi_s * t_s - lsbf_symbolic))
print("B =", offset)
for interface in ((5, 3, 2), (4, 6, 2), (7, 5, 3), (10, 18, 2)):
    values = dict(zip((Pi_s, Theta_s, m_s), interface, strict=True))
    assert Fraction(str(offset.subs(values))) == mpr.lsbf_offset(*interface)

fig, (ax_p, ax_s) = plt.subplots(1, 2, figsize=(11, 4), gridspec_kw={"width_ratios": [1, 1.3]})
alpha, beta = gamma.alpha, gamma.beta
early = [m_prime] * alpha + ([beta] if beta else [])
pattern = (early + [0] * (Pi - len(early))) + (early + [0] * (Pi - len(early)))[::-1] * 3
ax_p.bar(range(len(pattern)), pattern, width=1.0, align="edge", color="tab:green", edgecolor="black")
ax_p.axvspan(len(early), len(early) + gamma.blackout, color="tab:red", alpha=0.15, label=f"blackout = {gamma.blackout}")
ax_p.set(xlabel="time", ylabel="processors supplied", title=f"worst-case supply of {gamma}")
ax_p.legend(fontsize=8)
ax_s.step(t, library, where="post", label="sbf(t) (exact)")
ax_s.plot(t, by_hand, "o", ms=3, label="by hand (worst pattern)")
ax_s.plot(t, [float(x) for x in gamma.lsbf(t)], "--", label="lsbf(t)")
ax_s.plot(t, m_prime * t, ":", color="0.5", label="m'·t (dedicated)")
ax_s.set(xlabel="window length t", ylabel="supply", ylim=(0, 20), title="supply bound")
ax_s.legend(fontsize=8)
show(fig, "lab5_sbf")

# %% [markdown]
# ## Worked example 2: a cluster's demand against an interface
#
# Six tasks (papers/shin-easwaran-lee2008-mpr.md): (2, 10, 10), (3, 12, 15), (4, 20, 20),
# (5, 16, 20), (6, 30, 30), (1, 5, 8), U = 47/40. For Π = 5 and m' = 2, the least Θ that global
# EDF passes (binary search on Θ, `min_theta`) and the failing point one below it.

# %%
cluster = rtsched.TaskSet.from_tasks([(2, 10, 10), (3, 12, 15), (4, 20, 20), (5, 16, 20), (6, 30, 30), (1, 5, 8)])
theta_min = mpr.min_theta(cluster, 5, 2)
passing = mpr.gedf_mpr(cluster, mpr.MPRInterface(5, theta_min, 2))
failing = mpr.gedf_mpr(cluster, mpr.MPRInterface(5, theta_min - 1, 2))
print("U =", cluster.utilization, "  minimum Θ =", theta_min)
print(passing.verdict, passing.summary)
print(failing.verdict, failing.summary)


def dbf_pair(C, D, T, t):
    """(dbf, DBF') of one task in a window of length t: jobs inside, plus the carried-in one."""
    jobs = (t - D) // T + 1 if t >= D else 0
    return jobs * C, jobs * C + min(C, max(0, t - jobs * T))


def dem_by_hand(tasks, k, A_k, m_prime):
    """DEM(A_k + D_k) of rtsched's integer form of ECRTS 2008 Thm. 1."""
    C_k, D_k, _T_k = tasks[k]
    t = A_k + D_k
    hats, bars = [], []
    for i, (C, D, T) in enumerate(tasks):
        dbf, carry = dbf_pair(C, D, T, t)
        cap = A_k if i == k else t - C_k + 1
        own = C if i == k else 0
        hats.append(min(dbf - own, cap))
        bars.append(min(carry - own, cap))
    extra = sorted((b - h for h, b in zip(hats, bars, strict=True)), reverse=True)[: m_prime - 1]
    return sum(hats) + sum(extra) + m_prime * (C_k - 1)


ev = failing.evidence
hand_dem = dem_by_hand(cluster.rows(), ev["task"], ev["A_k"], 2)
hand_sbf = worst_case_supply(5, theta_min - 1, 2, ev["t"])
print(f"by hand at τ{ev['task']}, A_k = {ev['A_k']}: DEM({ev['t']}) = {hand_dem}, sbf = {hand_sbf}")
assert (hand_dem, hand_sbf) == (ev["demand"], ev["supply"]) and hand_dem >= hand_sbf

fig, ax = plt.subplots(figsize=(7.5, 4.2))
horizon = 60
for k, (_C, D, _T) in enumerate(cluster.rows()):
    A = np.arange(0, horizon - D + 1)
    ax.plot(A + D, [dem_by_hand(cluster.rows(), k, int(a), 2) for a in A], ".", ms=4, label=f"DEM, k = {k}")
tt = np.arange(0, horizon + 1)
for theta, style in ((theta_min, "-"), (theta_min - 1, ":")):
    ax.step(tt, mpr.sbf(5, theta, 2, tt), style, color="black", where="post", label=f"sbf of ⟨5, {theta}, 2⟩")
ax.annotate(
    "fails here", (ev["t"], ev["supply"]), xytext=(ev["t"] + 6, ev["supply"] - 8), arrowprops={"arrowstyle": "->"}
)
ax.set(xlabel="t = A_k + D_k", ylabel="demand / supply", title="cluster demand against two interfaces")
ax.legend(fontsize=7, ncol=2)
show(fig, "lab5_demand_vs_supply")

# %% [markdown]
# Every DEM point lies strictly below the solid staircase (⟨5, 8, 2⟩: accepted); against
# ⟨5, 7, 2⟩ a point reaches the dotted one (the first found: τ₁, A_k = 8, DEM(20) = sbf(20) = 25). The interface needs bandwidth 8/5 = 1.6 for a
# utilization of 1.175: the price of not knowing *when* the supply comes.
#
# ## Worked example 3: choosing the period Π
#
# A short Π means a short blackout but many context switches of the servers; a long Π the
# opposite. The minimum bandwidth for each Π (`best_interface`: the least m', then the least Θ):

# %%
periods = range(1, 11)
best = [mpr.best_interface(cluster, p) for p in periods]
for p, iface in zip(periods, best, strict=True):
    print(f"Π = {p:>2}: {iface}, bandwidth {float(iface.bandwidth):.3f}")
fig, ax = plt.subplots(figsize=(6.5, 3.6))
ax.plot(list(periods), [float(i.bandwidth) for i in best], "o-", label="minimum bandwidth Θ/Π")
ax.axhline(float(cluster.utilization), color="black", ls="--", lw=1, label=f"U = {float(cluster.utilization):.3f}")
ax.set(xlabel="server period Π", ylabel="bandwidth", title="interface bandwidth against its period")
ax.legend(fontsize=8)
show(fig, "lab5_bandwidth_vs_period")

# %% [markdown]
# The trend is upward (longer blackouts), but not monotone: with integer Θ, Θ/Π can only take
# the values j/Π, so some periods round up less than others (Π = 2 needs 3/2, Π = 3 needs 5/3).
# Π = 1 gives ⟨1, 2, 2⟩: two dedicated processors, the bandwidth a global EDF test on m = 2
# needs without any hierarchy.
#
# ## Worked example 4: virtual clusters end to end
#
# The same six tasks on m = 2 as one virtual cluster of k = 2 processors, with Π = 5: the
# interface, its two servers and where the top level puts them.

# %%
report = platform_report(cluster, 2, "clustered:k=2:pi=5")
print(report)
assert report.clusters[0].interface == mpr.MPRInterface(5, theta_min, 2)
assert sorted(report.servers.rows()) == [(4, 5, 5), (4, 5, 5)]  # β = 0: m' servers of α = Θ/m' = 4

# %% [markdown]
# Random sets of n = 8 tasks on m = 4, implicit deadlines: one cluster of 4 (global EDF under an
# interface), clusters of 2 (virtual and physical), clusters of 1, and partitioned EDF.

# %%
SETS = 8 if SMALL else 100
tests = ["clustered:k=4", "clustered:k=2", "clustered:k=2:physical", "clustered:k=1", "p-edf"]
points = [1.6, 2.4, 3.0, 3.4]
accepted = {name: [] for name in tests}
drawn = {}  # the sets of each point, kept for exercise 4
rng = np.random.default_rng(2008)
for U in points:
    drawn[U] = batch = generate_batch(
        rng,
        n=8,
        utilization=U,
        size=SETS,
        utilizations="randfixedsum",
        periods="log-uniform:10:100",
        deadlines="implicit",
    ).batch
    reports = check_many(list(batch), 4, tests=tests)
    for name in tests:
        accepted[name].append(sum(r[name].verdict is True for r in reports) / SETS)
print(f"{'analysis':<24}" + "".join(f"  U={U:<4}" for U in points))
for name in tests:
    print(f"{name:<24}" + "".join(f"  {a:6.2f}" for a in accepted[name]))
fig, ax = plt.subplots(figsize=(7, 3.8))
for name in tests:
    ax.plot(points, accepted[name], "o-", ms=3, label=name)
ax.set(
    xlabel="total utilization U (m = 4, n = 8)", ylabel="share accepted", title=f"cluster size, {SETS} sets per point"
)
ax.legend(fontsize=7)
show(fig, "lab5_cluster_sizes")

# %% [markdown]
# With implicit deadlines and light tasks, small clusters (k = 1, 2) do much better than one
# global cluster (k = 4), whose global EDF test suffers from Dhall-like effects; partitioned EDF
# with exact admission is best here. Virtual clusters pay for their interface (bandwidth above
# the cluster's utilization) but let servers of different clusters share processors.
#
# ## Exercises
#
# **Exercise 1 (sbf by hand, β = 0).** For ⟨4, 6, 2⟩ compute α, β, the blackout and sbf(t) for
# t = 0 … 12, then lsbf(t). Where do sbf and lsbf touch?

# %% tags=["solution"]
# Exercise 1: the table from the library, and the hand pattern
ex1 = mpr.MPRInterface(4, 6, 2)
ts_ = np.arange(0, 13)
print(f"{ex1}: α = {ex1.alpha}, β = {ex1.beta}, blackout = {ex1.blackout}")
print("sbf ", list(map(int, ex1.sbf(ts_))))
print("hand", [worst_case_supply(4, 6, 2, int(x)) for x in ts_])
print("lsbf", [str(x) for x in ex1.lsbf(ts_)])
print("touch at t =", [int(x) for x in ts_ if ex1.lsbf(int(x)) == ex1.sbf(int(x))])

# %% [markdown] tags=["solution"]
# **Solution 1.** α = 3, β = 0, s = 3, blackout 2(4 − 3) = 2. sbf = 0, 0, 0, 2, 4, 6, 6, 8, 10,
# 12, 12, 14, 16 for t = 0 … 12: after the blackout, two processors for α = 3 ticks, then one tick
# without supply per period. lsbf(t) = (3/2)(t − 1): −3/2, 0, 3/2, 3, … It touches sbf at t = 2,
# 6 and 10 — the corners (qΠ + 2(Π − α), qΘ) — because with β = 0 the line passes through them;
# with β > 0 it stays strictly below at the corners.

# %% [markdown]
# **Exercise 2 (same bandwidth, different periods).** Plot sbf of ⟨2, 1, 1⟩, ⟨10, 5, 1⟩ and
# ⟨50, 25, 1⟩ (all bandwidth 1/2, one processor) for t ≤ 150. Which one would you give to a task
# (2, 20, 20)? And (30, 100, 100)? Check with `mpr.gedf_mpr`.

# %% tags=["solution"]
# Exercise 2: three periods, one bandwidth
fig, ax = plt.subplots(figsize=(7, 3.6))
tt = np.arange(0, 151)
for p in (2, 10, 50):
    ax.step(tt, mpr.sbf(p, p // 2, 1, tt), where="post", label=f"⟨{p}, {p // 2}, 1⟩")
ax.plot(tt, tt / 2, "k:", lw=1, label="t/2")
ax.set(xlabel="t", ylabel="sbf(t)", title="bandwidth 1/2, three periods")
ax.legend()
show(fig, "lab5_ex2_periods")
for task in ((2, 20, 20), (30, 100, 100)):
    one = rtsched.TaskSet.from_tasks([task])
    print(task, {p: mpr.gedf_mpr(one, mpr.MPRInterface(p, p // 2, 1)).verdict for p in (2, 10, 50)})

# %% [markdown] tags=["solution"]
# **Solution 2.** The blackouts are 2(Π − Θ) = 2, 10 and 50 ticks. (2, 20, 20) needs 2 units
# in every window of 20: sbf(20) = 9, 5 and 0 — the longest period fails. (30, 100, 100) needs
# 30 in 100: sbf(100) = 49, 45 and 25 — the longest period fails again, although its bandwidth
# is the same. Same bandwidth, longer period, later supply: choose Π well below the deadlines.
# Short periods have a cost the model leaves out (more server switches).

# %% [markdown]
# **Exercise 3 (more virtual processors).** For the six-task cluster and Π = 5, find by a scan
# over Θ the least Θ for m' = 2, 3 and 4, and compare with `mpr.min_theta`. Why does the
# bandwidth grow with m'? Which m' does `best_interface` choose?

# %% tags=["solution"]
# Exercise 3: scan Θ for each m'
for m_p in (2, 3, 4):
    scan = next(
        th for th in range(1, 5 * m_p + 1) if mpr.gedf_mpr(cluster, mpr.MPRInterface(5, th, m_p)).verdict is True
    )
    print(f"m' = {m_p}: least Θ = {scan} (min_theta {mpr.min_theta(cluster, 5, m_p)}), bandwidth {scan / 5}")
print("best_interface:", mpr.best_interface(cluster, 5))

# %% [markdown] tags=["solution"]
# **Solution 3.** Θ = 8, 13, 18 (bandwidth 1.6, 2.6, 3.6). For a fixed Θ, a larger m' lets the
# adversary concentrate the supply on more processors at once and leave longer gaps (sbf does
# not grow with m'), while DEM grows with m' (the m' − 1 carry-in terms and m'(C_k − 1)), so the
# least Θ grows. `best_interface` therefore stops at the first feasible m' = ⌊U⌋ + 1 = 2:
# ⟨5, 8, 2⟩.

# %% [markdown]
# **Exercise 4 (the price of the hierarchy).** For each set of worked example 4 at U = 3.0 that
# `clustered:k=2` accepts, sum the bandwidths of its clusters' interfaces (`platform_report`)
# and compare with U. What is the average overhead? Where does it come from?

# %% tags=["solution"]
# Exercise 4: interface bandwidth against utilization (the sets of worked example 4 at U = 3.0)
overhead = []
for ts in list(drawn[3.0])[: 3 if SMALL else None]:
    rep = platform_report(ts, 4, "clustered:k=2")
    if rep.verdict is True:
        overhead.append(sum(c.interface.bandwidth for c in rep.clusters) - ts.utilization)
print(
    f"{len(overhead)} sets accepted; mean bandwidth − U = {float(np.mean(overhead)):.3f}, max {float(max(overhead)):.3f}"
)

# %% [markdown] tags=["solution"]
# **Solution 4.** The interfaces ask for noticeably more than U (run the cell for the numbers):
# each cluster's interface must cover its worst-case window — a blackout of up to 2(Π − ⌈Θ/m'⌉)
# — and Θ is an integer. The period is the smallest deadline of the cluster by default
# (`clustered:k=2:pi=<Π>` fixes it), so clusters holding a short-deadline task pay more.
# Physical clusters avoid this overhead but cannot share processors between clusters.

# %% [markdown]
# ## Things to try
#
# * `examples/mpr_supply.py` draws sbf, lsbf and the brute-force supply in one figure.
# * `rtsched check FILE -m 4 --tests clustered:k=2,clustered:k=2:top=gfb --explain` prints
#   the clusters, interfaces and servers; `top=` schedules the servers globally instead of
#   partitioning them.
# * `mpr.sbf_brute_force(Π, Θ, m', t_max)` enumerates schedules: compare it with
#   `worst_case_supply` above on interfaces with β > 0 and Θ < m'.
# * Make one task's deadline short in worked example 2: how do Π (the default is the least
#   deadline) and the minimum bandwidth change?
