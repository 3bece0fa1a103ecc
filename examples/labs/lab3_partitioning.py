# %% [markdown]
# # Lab 3 — Partitioned scheduling: bin packing, Baruah–Fisher, global vs partitioned
#
# **Estimated time:** 90 minutes (40 for the worked examples, 50 for the four exercises).
# **Prerequisites:** Lab 1 (dbf, QPA, RTA) and Lab 2 (global EDF, Dhall's effect).
#
# **Learning goals.** After this lab you can
# 1. pack tasks onto processors with first, best, worst and next fit, in input or decreasing
#    order, by hand and with rtsched's `p:<fit>:<order>:<admission>` family;
# 2. choose a per-processor admission test (density, dbf*, exact QPA for EDF; RTA for fixed
#    priorities) and say what each costs and loses;
# 3. apply the Baruah–Fisher test (deadline-monotonic first fit with dbf*) step by step;
# 4. explain why neither global nor partitioned EDF dominates the other, with a set for each
#    direction, and run an acceptance-ratio experiment that compares them.
#
# Run it in Jupyter, or as a script: `python examples/labs/lab3_partitioning.py` (figures go to
# `$RTSCHED_LAB_OUT`, default `lab-figures/`; `RTSCHED_EXAMPLE_SMALL=1` makes the experiment
# tiny).

# %%
import itertools
from fractions import Fraction

import matplotlib.pyplot as plt
import numpy as np
from _labkit import SMALL, example_file, run_sweep, show

import rtsched
from rtsched import analyses, check_many, sweep
from rtsched.generators import generate_batch
from rtsched.io import read_taskset

# %% [markdown]
# ## Background
#
# **Partitioned scheduling** assigns every task to one processor once and for all; each
# processor then runs a uniprocessor scheduler (EDF or fixed priority), so lab 1's exact tests
# apply per processor. Finding an assignment is bin packing, which is NP-hard in the strong
# sense, so one uses heuristics (surveyed for EDF by López, Díaz & García, "Utilization bounds
# for EDF scheduling on real-time multiprocessor systems", Real-Time Systems 28(1), 2004).
# A heuristic is three choices:
#
# * **order** in which tasks are placed: `input`, or decreasing `density` Cᵢ/min(Dᵢ, Tᵢ),
#   decreasing `utilization` Cᵢ/Tᵢ, increasing `deadline` Dᵢ ("decreasing" orders give FFD,
#   BFD, …);
# * **fit**: first fit (`ff`, the lowest-index processor that admits the task), best fit (`bf`,
#   the admitting processor with the *largest* current utilization), worst fit (`wf`, the
#   *smallest*), next fit (`nf`, the processor that took the previous task or a later one, never
#   back); ties go to the lowest index;
# * **admission**: does processor P still pass a uniprocessor EDF test with the task added?
#   `density`: Σ Cⱼ/min(Dⱼ, Tⱼ) ≤ 1 (sufficient); `dbfstar` (below); `qpa`: the exact
#   processor-demand test, by QPA (Zhang & Burns, IEEE TC 58(9), 2009). For fixed priorities:
#   `rta`, the exact response-time analysis of Joseph & Pandya (1986) with priorities in the
#   set's order.
#
# rtsched names them `p:<fit>:<order>:<admission>` (48 EDF members, 16 FP members: `rtsched
# list`); `p-edf` is `p:ff:density:qpa`, `p-fp` is `p:ff:deadline:rta`. Definitions and every
# tie rule: `papers/partitioned-heuristics.md`. A packing that places every task *proves*
# partitioned schedulability; a failed packing proves nothing (another assignment may exist), so
# all of them are sufficient tests.
#
# **Baruah & Fisher** ("The partitioned multiprocessor scheduling of deadline-constrained
# sporadic task systems", IEEE TC 55(7), 2006) approximate the demand bound function of lab 1
# from above by a line after the first deadline:
# $$\mathrm{dbf}^*(\tau_i, t) = \begin{cases} 0 & t < D_i \\ C_i + U_i\,(t - D_i) & t \ge D_i
# \end{cases} \quad\ge\ \mathrm{dbf}(\tau_i, t).$$
# Tasks are taken in deadline order; τᵢ goes to the first processor P with
# $$D_i - \sum_{\tau_j \in P} \mathrm{dbf}^*(\tau_j, D_i) \ge C_i \quad\text{and}\quad
# 1 - \sum_{\tau_j \in P} U_j \ge U_i$$
# (labelled Eq. (5)–(6) in `papers/baruah-fisher2006.md`; the paper's numbering could not be
# checked). One check per placement instead of a QPA run: polynomial, and still sound.
# rtsched registers it as `baruah-fisher` (= `p:ff:deadline:dbfstar`).

# %% [markdown]
# ## Worked example 1: the four fits by hand
#
# The bin-packing classic: items 8, 5, 7, 6, 2, 4, 1 into bins of size 10, i.e. tasks
# (C, 10, 10) with those C, on m = 4 processors with the density admission (here density =
# utilization = C/10, so "fits" means the processor's sum stays ≤ 10). First by hand — a few
# lines of Python with exact fractions, following the rules above — then by rtsched.


# %%
def density(task):
    """C / min(D, T), exactly."""
    C, D, T = task
    return Fraction(C, min(D, T))


def placement_order(tasks, order):
    """Task indices in placement order (stable: equal keys keep the input order)."""
    keys = {
        "input": lambda i: 0,
        "density": lambda i: -density(tasks[i]),
        "utilization": lambda i: -Fraction(tasks[i][0], tasks[i][2]),
        "deadline": lambda i: tasks[i][1],
    }
    return sorted(range(len(tasks)), key=keys[order])


def pack_by_hand(tasks, m, fit, order):
    """Density-admission bin packing; returns (assignment, first task that did not fit or None)."""
    load = [Fraction(0)] * m  # density on each processor (the admission)
    util = [Fraction(0)] * m  # utilization on each processor (what bf and wf compare)
    assignment, current = [None] * len(tasks), 0
    for i in placement_order(tasks, order):
        admits = [p for p in range(m) if load[p] + density(tasks[i]) <= 1]
        if fit == "nf":
            admits = [p for p in admits if p >= current]
        if not admits:
            return assignment, i
        if fit == "bf":
            p = min(admits, key=lambda q: (-util[q], q))
        elif fit == "wf":
            p = min(admits, key=lambda q: (util[q], q))
        else:  # ff, nf: the first admitting processor
            p = admits[0]
        assignment[i], current = p, p
        load[p] += density(tasks[i])
        util[p] += Fraction(tasks[i][0], tasks[i][2])
    return assignment, None


items = [(c, 10, 10) for c in (8, 5, 7, 6, 2, 4, 1)]
bins = rtsched.TaskSet.from_tasks(items)
FITS = ["ff", "bf", "wf", "nf"]
names = [f"p:{fit}:input:density" for fit in FITS]
report = rtsched.check(bins, 4, tests=names)
print(report)
for fit, name in zip(FITS, names, strict=True):
    assignment, failed = pack_by_hand(items, 4, fit, "input")
    library = report[name].evidence
    print(f"{fit}: by hand {assignment}, library {list(library['assignment'])}   {report[name].summary}")
    assert tuple(assignment) == library["assignment"]  # the same processors, task by task
    assert (failed is None) == (report[name].verdict is True)

# %% [markdown]
# First, best and worst fit all pack the seven items into four bins; next fit does not: after
# 8 | 5 | 7 | 6 it keeps adding to the last bin (6 + 2 = 8), and 4 no longer fits there, while
# it never looks back at the bin holding 5. The figure shows each packing.


# %%
def draw_packing(ax, tasks, assignment, m, title):
    """Stacked bars: one column per processor, one block per task (height = its utilization)."""
    colours = plt.get_cmap("tab10")
    height = [0.0] * m
    for i, p in enumerate(assignment):
        if p is None:
            continue
        u = tasks[i][0] / tasks[i][2]
        ax.bar(p, u, bottom=height[p], color=colours(i % 10), edgecolor="black")
        ax.text(p, height[p] + u / 2, f"τ{i}", ha="center", va="center", fontsize=8)
        height[p] += u
    unplaced = [f"τ{i}" for i, p in enumerate(assignment) if p is None]
    ax.axhline(1.0, color="black", lw=1, ls="--")
    ax.set(title=title + (f"\nunplaced: {', '.join(unplaced)}" if unplaced else ""), ylim=(0, 1.25))
    ax.set_xticks(range(m), [f"P{p}" for p in range(m)])


def show_packings(tasks, m, report, names, label, figure):
    """One panel per analysis: the packing it reports for ``tasks`` on m processors."""
    fig, axes = plt.subplots(1, len(names), figsize=(3 * len(names), 3.4), sharey=True)
    for ax, name in zip(axes, names, strict=True):
        draw_packing(ax, tasks, report[name].evidence["assignment"], m, f"{name.split(':')[1]}, {label}")
    axes[0].set_ylabel("utilization")
    show(fig, figure)


show_packings(items, 4, report, names, "input order", "lab3_fits")

# %% [markdown]
# ## Worked example 2: heuristics disagree on a constrained-deadline set
#
# No heuristic is best on every set. rtsched finds a witness: random sets of n = 5 tasks on
# m = 2 (RandFixedSum utilizations with total 1.7, periods uniform in 4–20, deadlines uniform
# in [C, T]) from seed 3, each decided by first fit and worst fit (decreasing density, exact QPA
# admission); the first set where they differ, in each direction, is printed with both packings.


# %%
def random_sets(seed, size, **generator):
    """``size`` task sets with RandFixedSum utilizations, drawn from their own seed."""
    rng = np.random.default_rng(seed)
    return list(generate_batch(rng, size=size, utilizations="randfixedsum", **generator).batch)


candidates = random_sets(3, 40, n=5, utilization=1.7, periods="uniform:4:20", deadlines="uniform")
ff, wf = "p:ff:density:qpa", "p:wf:density:qpa"
found = {}
for r in check_many(candidates, 2, tests=[ff, wf]):
    if r[ff].verdict is not r[wf].verdict:
        found.setdefault("ff" if r[ff].verdict is True else "wf", r)
for winner, r in sorted(found.items()):
    print(f"{winner} packs, the other does not: {r.taskset.rows()}")
    for name in (ff, wf):
        print(f"  {name:<17} {r[name].summary}")
        for proc in r[name].evidence["processors"]:
            print(f"      {proc['processor']}: tasks {proc['tasks']}  {proc['witness']}")
assert set(found) == {"ff", "wf"}  # seed 3 has a witness for each direction

# %% [markdown]
# Read the refusals: first fit fills P0 early with the dense tasks and later finds a task that
# neither processor can take; worst fit balances the load, which helps here — and hurts when a
# large task comes late and no processor has room left for it. A refusal "h(t) = … > t" is a
# real deadline miss on that processor (the exact test); "U would be … > 1" needs no QPA at all.
#
# ## Worked example 3: Baruah–Fisher step by step
#
# τ₀ = (2, 4, 6), τ₁ = (3, 8, 10), τ₂ = (4, 9, 12) on m = 2, already in deadline order.

# %%
bf_tasks = [(2, 4, 6), (3, 8, 10), (4, 9, 12)]


def dbf_star(task, t):
    """Baruah & Fisher's linear upper bound of dbf (0 before the first deadline)."""
    C, D, T = task
    return Fraction(0) if t < D else C + Fraction(C, T) * (t - D)


def baruah_fisher_by_hand(tasks, m):
    """Deadline-order first fit with the two conditions; prints every check."""
    procs = [[] for _ in range(m)]
    assignment = [None] * len(tasks)
    for i in placement_order(tasks, "deadline"):
        C, D, T = tasks[i]
        for p in range(m):
            demand = sum((dbf_star(tasks[j], D) for j in procs[p]), Fraction(0))
            util = sum((Fraction(tasks[j][0], tasks[j][2]) for j in procs[p]), Fraction(0))
            ok = D - demand >= C and 1 - util >= Fraction(C, T)
            print(
                f"  τ{i} on P{p}: D - Σdbf* = {D} - {demand} = {D - demand} ≥ C = {C}? "
                f"1 - ΣU = {1 - util} ≥ U = {Fraction(C, T)}?  {'yes' if ok else 'no'}"
            )
            if ok:
                procs[p].append(i)
                assignment[i] = p
                break
        else:
            return assignment, i
    return assignment, None


for m in (2, 1):
    print(f"m = {m}:")
    assignment, failed = baruah_fisher_by_hand(bf_tasks, m)
    library = rtsched.check(rtsched.TaskSet.from_tasks(bf_tasks), m, tests=["baruah-fisher", "p-edf"])
    print(library)
    assert tuple(assignment) == library["baruah-fisher"].evidence["assignment"]
    assert (failed is None) == (library["baruah-fisher"].verdict is True)

# %% [markdown]
# On two processors τ₂ is refused on P0 — Σdbf*(9) + C₂ = 11/3 + 33/10 + 4 = 329/30 ≈ 10.97 > 9 —
# and goes to P1. On one processor the same refusal ends the packing; the exact test agrees
# here (h(10) = 11 > 10, lab 1's set C). dbf* can also refuse a task that QPA admits: that is
# the price of one check per placement (exercise 2).
#
# ## Worked example 4: Dhall's set, and the converse
#
# Lab 2's Dhall set (`examples/tasksets/dhall.txt`: two (1, 9, 9) and one (10, 10, 10), m = 2)
# defeats global EDF; partitioned, the heavy task gets a processor of its own.

# %%
dhall_file = example_file("tasksets/dhall.txt")
dhall = read_taskset(dhall_file) if dhall_file else rtsched.TaskSet.from_tasks([(1, 9, 9), (1, 9, 9), (10, 10, 10)])
dhall_report = rtsched.check(dhall, 2, tests=["exact", "p-edf", "p-fp", "baruah-fisher"])
print(dhall_report)
assert dhall_report["exact"].verdict is False and dhall_report["p-edf"].verdict is True

# %% [markdown]
# The converse: a set that global EDF schedules but *no* partition can. rtsched finds one from
# a seed (n = 3, m = 2, implicit deadlines): the exact global test accepts it, and trying all
# 2³ assignments with the exact uniprocessor test (`uni-qpa`) shows that none works.

# %%
qpa = analyses.get("uni-qpa")


def some_partition(ts, m):
    """An assignment that passes uni-qpa on every processor, or None (tries all mⁿ)."""
    for assignment in itertools.product(range(m), repeat=ts.n):
        groups = [[i for i in range(ts.n) if assignment[i] == p] for p in range(m)]
        if all(qpa.verdict(ts.subset(g), 1) is True for g in groups if g):
            return assignment
    return None


small_sets = random_sets(7, 60, n=3, utilization=1.6, periods="uniform:2:8", deadlines="implicit")
converse = next(
    r.taskset
    for r in check_many(small_sets, 2, tests=["exact"])
    if r["exact"].verdict is True and some_partition(r.taskset, 2) is None
)
print(converse.rows(), "U =", converse.utilization)
for i, j in itertools.combinations(range(converse.n), 2):
    print(f"  τ{i} + τ{j}: U = {converse.subset([i, j]).utilization}")
print(rtsched.check(converse, 2, tests=["exact", "p-edf"]))
assert all(converse.subset(pair).utilization > 1 for pair in itertools.combinations(range(converse.n), 2))

# %% [markdown]
# Every pair of tasks has utilization above 1, so two of the three tasks can never share a
# processor, and with three tasks on two processors two must. Global EDF lets the tasks
# migrate and uses the spare capacity of both processors. Neither approach dominates.
#
# ## Worked example 5: an acceptance experiment, global vs partitioned
#
# How often does each approach win on random sets? The sweep engine (`rtsched.sweep`, the same
# one as `rtsched sweep FILE`) draws sets per utilization point from an explicit seed, runs every
# analysis on every set and reports the acceptance ratio with its Wilson 95 % interval (lab 4).
# m = 2, n = 5, RandFixedSum utilizations, log-uniform periods, constrained deadlines, tasks in
# deadline-monotonic order (the priorities of `p-fp`).

# %%
SETS = 20 if SMALL else 300
spec = {
    "name": "lab3-global-vs-partitioned",
    "seed": 2005,
    "platform": {"m": 2},
    "generator": {
        "n": 5,
        "utilizations": "randfixedsum",
        "periods": "log-uniform:10:1000",
        "deadlines": "uniform",
        "order": "deadline-monotonic",
    },
    "sweep": {
        "variable": "U/m",
        "points": [0.3, 0.5, 0.7, 0.9] if SMALL else [x / 20 for x in range(5, 20)],
        "sets_per_point": SETS,
        "sets_per_unit": SETS,
    },
    "analyses": {
        "names": ["gfb", "bcl-iter", "rta", "ffdbf", "gedf-upper", "p-edf", "p:wf:density:qpa", "baruah-fisher", "p-fp"]
    },
}
experiment = sweep.parse_experiment(spec)
results = run_sweep(experiment)
print(experiment.caption())
print(f"{'analysis':<18} {'weighted':>9}")
for row in results.weighted:
    print(f"{row.analysis:<18} {row.weighted_schedulability:9.3f}")

fig, ax = plt.subplots(figsize=(7.5, 4.2))
for name in results.analyses:
    curve = [r for r in results.rows if r.analysis == name]
    x = [r.value for r in curve]
    style = (
        {"ls": "--", "color": "black"}
        if name == "gedf-upper"
        else {"ls": "-" if analyses.get(name).policy.startswith("partitioned") else ":", "marker": "o", "ms": 3}
    )
    ax.plot(x, [r.ratio for r in curve], label=name, **style)
    ax.fill_between(x, [r.ci_low for r in curve], [r.ci_high for r in curve], alpha=0.12)
ax.set(xlabel="U/m", ylabel="acceptance ratio", title=f"m = 2, n = 5, {SETS} sets per point (seed 2005)")
ax.legend(fontsize=7, ncol=2)
show(fig, "lab3_global_vs_partitioned")

# %% [markdown]
# Solid lines: partitioned tests; dotted: sufficient global EDF tests; dashed: `gedf-upper`,
# an *upper bound* of global EDF (U ≤ m and no miss in a synchronous simulation), not a test.
# With constrained deadlines and few tasks the partitioned tests accept far more than the
# global *tests*; where global EDF itself stands lies between its tests and the dashed line —
# and in the full run `p-edf` lies above that dashed upper bound at most points: on these sets
# partitioned EDF beats global EDF itself, not just its tests.
# The shaded bands are 95 % confidence intervals: with few sets per point, curves that differ
# by less than the bands are not shown to differ.
#
# ## Exercises
#
# **Exercise 1 (decreasing orders).** Pack the seven items of worked example 1 on m = 4 in
# decreasing-utilization order with each fit, by hand. Which fits succeed? Draw the packings and
# compare with input order.

# %% tags=["solution"]
# Exercise 1: FFD, BFD, WFD, NFD on the items
decreasing = [f"p:{fit}:utilization:density" for fit in FITS]
ex1 = rtsched.check(bins, 4, tests=decreasing)
print(ex1)
for fit, name in zip(FITS, decreasing, strict=True):
    assert tuple(pack_by_hand(items, 4, fit, "utilization")[0]) == ex1[name].evidence["assignment"]
show_packings(items, 4, ex1, decreasing, "decreasing", "lab3_ex1_decreasing")

# %% [markdown] tags=["solution"]
# **Solution 1.** Order 8, 7, 6, 5, 4, 2, 1; the first four open P0–P3 under every fit. FFD:
# 4 → P2 (6 + 4 = 10), 2 → P0 (10), 1 → P1 (8). BFD happens to place exactly as FFD (4: P2 holds
# more than P3; 2: P0 is the fullest that admits; 1: P1). WFD: 4 → P3 (5 → 9), 2 → P2 (6 → 8),
# 1 → P1 (7 → 8): loads 8, 8, 8, 9, the most balanced. NFD: 5 + 4 = 9 on P3, then 2 does not fit
# there and next fit cannot go back: it fails again. Decreasing order does not rescue next fit;
# for first fit it is what gives the classic guarantee (FFD uses at most 11/9·OPT + 6/9 bins:
# G. Dósa, "The tight bound of first fit decreasing bin-packing algorithm is FFD(I) ≤ 11/9 OPT(I)
# + 6/9", ESCAPE 2007), which is why `p-edf` sorts.

# %% [markdown]
# **Exercise 2 (dbf* against QPA).** Find, with rtsched, a set of n = 4 tasks on m = 2 that the
# exact-admission packing in deadline order (`p:ff:deadline:qpa`) accepts but Baruah–Fisher
# (`p:ff:deadline:dbfstar`) does not (draw random sets from a seed of your choice). Where does
# dbf* over-estimate the demand? Show dbf and dbf* of the refused processor in a plot.

# %% tags=["solution"]
# Exercise 2: search, then plot dbf and dbf* on the refused processor
pool = random_sets(11, 200, n=4, utilization=1.5, periods="uniform:3:15", deadlines="uniform")
exact_admission, star = "p:ff:deadline:qpa", "p:ff:deadline:dbfstar"
gap = next(
    r
    for r in check_many(pool, 2, tests=[exact_admission, star])
    if r[exact_admission].verdict is True and r[star].verdict is False
)
print(gap.taskset.rows())
print(gap)
assert gap.taskset.rows() == [(9, 11, 14), (2, 2, 11), (3, 4, 5), (3, 13, 15)]  # the set the solution discusses
evidence = gap[star].evidence
failed = evidence["failed_task"]
for refused_on in range(2):  # the processor where U still fits but Σdbf* does not
    on_processor = [i for i, p in enumerate(evidence["assignment"]) if p == refused_on] + [failed]
    rows = [gap.taskset.rows()[i] for i in on_processor]
    if sum(Fraction(C, T) for C, _D, T in rows) <= 1:
        break
D_f = gap.taskset.rows()[failed][1]
print(
    f"P{refused_on} + τ{failed} at t = D = {D_f}: Σdbf* = {sum(dbf_star(task, D_f) for task in rows)}, "
    f"Σdbf = {sum(max(0, (D_f - D) // T + 1) * C for C, D, T in rows)}"
)
ts_grid = range(0, 3 * max(T for _C, _D, T in rows))
fig, ax = plt.subplots(figsize=(6, 3.8))
ax.step(
    ts_grid, [sum(max(0, (t - D) // T + 1) * C for C, D, T in rows) for t in ts_grid], where="post", label="Σ dbf(t)"
)
ax.plot(ts_grid, [float(sum(dbf_star(task, t) for task in rows)) for t in ts_grid], label="Σ dbf*(t)")
ax.plot(ts_grid, ts_grid, "k--", lw=1, label="t")
ax.set(xlabel="t", ylabel="demand", title=f"P{refused_on} with τ{evidence['failed_task']} added")
ax.legend()
show(fig, "lab3_ex2_dbfstar")

# %% [markdown] tags=["solution"]
# **Solution 2.** Seed 11 gives such a set among its first draws: (9, 11, 14), (2, 2, 11),
# (3, 4, 5), (3, 13, 15). In deadline order τ₁ → P0, τ₂ → P1 (on P0, 4 − dbf*(τ₁, 4) = 18/11 <
# 3), then τ₀ = (9, 11, 14): on P0, dbf*(τ₁, 11) = 2 + (2/11)·9 = 40/11, and 11 − 40/11 = 81/11 <
# 9: refused; on P1, U = 3/5 + 9/14 > 1. Yet the real demand of τ₁ at t = 11 is one job, 2: the
# line counts 18/11 of a job whose deadline (13) lies after 11. QPA works on the staircase dbf
# (h(11) = 2 + 9 = 11 ≤ 11, and so on) and admits τ₀ on P0. One check per placement makes
# Baruah–Fisher polynomial; the exact admission costs a QPA run (pseudo-polynomial) each time.

# %% [markdown]
# **Exercise 3 (a dominance, and where it stops).** Argue that every set `p-fp`
# (= `p:ff:deadline:rta`, priorities in the set's order) accepts is schedulable by partitioned
# EDF. Check it on 100 random sets from a seed of your choice, using the assignment `p-fp`
# reports. Does `p:ff:deadline:qpa` — the same fit and order with EDF's exact admission — accept
# every one of them?

# %% tags=["solution"]
# Exercise 3: p-fp's assignment passes uni-qpa on every processor; compare the two packings
pool = random_sets(
    12, 100, n=6, utilization=1.4, periods="log-uniform:10:100", deadlines="uniform", order="deadline-monotonic"
)
reports = check_many(pool, 2, tests=["p-fp", "p:ff:deadline:qpa"])
fp_sets = [r for r in reports if r["p-fp"].verdict is True]
for r in fp_sets:
    where = r["p-fp"].evidence["assignment"]  # processor names, task by task
    for proc in set(where):
        assert qpa.verdict(r.taskset.subset([i for i, p in enumerate(where) if p == proc]), 1) is True
edf_too = sum(r["p:ff:deadline:qpa"].verdict is True for r in fp_sets)
edf_all = sum(r["p:ff:deadline:qpa"].verdict is True for r in reports)
print(f"p-fp accepts {len(fp_sets)}; p:ff:deadline:qpa accepts {edf_all}, {edf_too} of them among p-fp's")

# %% [markdown] tags=["solution"]
# **Solution 3.** Take the assignment `p-fp` found: on each processor some fixed-priority
# schedule meets every deadline, so EDF — optimal on one processor (Liu & Layland 1973 for
# implicit deadlines; Dertouzos, IFIP Congress 1974, in general) — does too: every processor
# passes `uni-qpa`, which the cell checks. That proves partitioned-EDF *schedulability*, not that
# the EDF *heuristic* finds a partition: `p:ff:deadline:qpa` may admit a task on an earlier
# processor than RTA did, after which the two packings differ and a later task may fit nowhere
# (a bin-packing anomaly). On seed 12's sets the EDF packing accepts every set `p-fp` accepts and
# more; "accepts more on average" is not "accepts a superset".

# %% [markdown]
# **Exercise 4 (the experiment).** Change worked example 5 in one way at a time and predict
# first: (a) implicit deadlines (`"deadlines": "implicit"`); (b) n = 10 tasks. Which curves
# move, and in which direction? Is the gap between `p-edf` and `p:wf:density:qpa` ever larger
# than the confidence bands?

# %% tags=["solution"]
# Exercise 4: rerun the sweep with implicit deadlines and with n = 10 (into their own folders)
for label, change in (("implicit", {"deadlines": "implicit"}), ("n10", {"n": 10})):
    variant = sweep.parse_experiment({**spec, "name": f"lab3-{label}", "generator": {**spec["generator"], **change}})
    res = run_sweep(variant)
    print(label, {row.analysis: round(row.weighted_schedulability, 3) for row in res.weighted})

# %% [markdown] tags=["solution"]
# **Solution 4.** (a) Implicit deadlines: every curve moves up (full-size run, weighted
# schedulability: `p-edf` 0.66 → 0.97, `gfb` 0.09 → 0.48). Density equals utilization, so the
# density and dbf* admissions lose little and U ≤ 1 per processor is exact. (b) n = 10: every
# curve moves *down* (`p-edf` 0.66 → 0.63, `bcl-iter` 0.21 → 0.13), which surprises most
# people. The cause is the deadline generator: with D uniform in [C, T], E[T/D] = ln(1/u)/(1 − u)
# grows as a task gets lighter, so ten light tasks have a larger total density than five heavier
# ones at the same U (at U = 1.4: about 3.0 against 2.3). The gap between `p-edf` and
# `p:wf:density:qpa` (at most 0.03 in the full run, `p-edf` never below) stays inside the bands
# at both sizes; since both ran on the same sets, counting the sets where exactly one of them
# accepts is the sharper comparison.

# %% [markdown]
# ## Things to try
#
# * Every fit × order × admission at once: `rtsched list` shows the family; put several
#   `p:*` names into worked example 5 and look at the weighted schedulability table.
# * The same experiment from the shell: `rtsched sweep examples/global_vs_partitioned.toml
#   --out gvp` (m = 4, n = 10, 2,000 sets per point; `examples/global_vs_partitioned.py` runs
#   it with fewer sets).
# * `rtsched check examples/tasksets/dhall.txt -m 2 --tests p-edf,baruah-fisher --explain`
#   prints each processor's witness.
# * Semi-partitioned and clustered scheduling sit between the two extremes: lab 5 groups
#   processors into clusters with global EDF inside each.
