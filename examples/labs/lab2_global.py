# %% [markdown]
# # Lab 2 — Global scheduling: Dhall's effect, the global EDF tests, the exact test
#
# **Estimated time:** 120 minutes (50 for the worked examples, 70 for the six exercises; the
# soft real-time part, worked examples 5–6 and exercises 5–6, can be a session of its own).
# **Prerequisites:** Lab 1 (demand, density, RTA); m identical processors, one job on at most
# one processor at a time, migration allowed.
#
# **Learning goals.** After this lab you can
# 1. explain Dhall's effect: why global EDF can miss deadlines at utilization barely above 1
#    on any number of processors;
# 2. run the sufficient global EDF tests side by side and read their evidence, and say why they
#    disagree;
# 3. use the exact test and replay its counterexample as a Gantt chart — and see that the
#    synchronous periodic release is *not* the worst case on a multiprocessor;
# 4. contrast global fixed priority with global EDF on the same sets;
# 5. compute Devi and Anderson's tardiness bound for global EDF (soft real-time: late jobs
#    tolerated, lateness bounded) and put it next to the tardiness the simulator observes.
#
# Run it in Jupyter, or as a script: `python examples/labs/lab2_global.py` (figures go to
# `$RTSCHED_LAB_OUT`, default `lab-figures/`; `RTSCHED_EXAMPLE_SMALL=1` uses fewer random sets).

# %%
import matplotlib.pyplot as plt
import numpy as np
from _labkit import SMALL, example_file, show  # build.py inlines the kit into the notebook

import rtsched
from rtsched import analyses, check_many
from rtsched.generators import generate_batch
from rtsched.io import read_taskset
from rtsched.sim import simulate
from rtsched.sim.gantt import gantt

SETS = 30 if SMALL else 200  # random sets per utilization


def find_dhall():
    """examples/tasksets/dhall.txt of the repository, or its three tasks outside a checkout."""
    path = example_file("tasksets/dhall.txt")
    return read_taskset(path) if path else rtsched.TaskSet.from_tasks([(1, 9, 9), (1, 9, 9), (10, 10, 10)])


# %% [markdown]
# ## Background
#
# **Global EDF** runs, at every instant, the m active jobs with the earliest absolute
# deadlines. On one processor EDF is optimal; on m > 1 it is not, and U ≤ m is far from
# sufficient. **Dhall's effect** (Dhall & Liu, Operations Research 26(1), 1978): m light tasks
# and one heavy task with a slightly later deadline; at t = 0 the light jobs take every
# processor, and the heavy job, which needs almost its whole period, starts too late. As the
# light tasks get lighter, U → 1 while m stays as large as you like.
#
# The sufficient tests for global EDF in rtsched, all for constrained-deadline sporadic tasks
# (density λᵢ = Cᵢ/Dᵢ, λmax the largest):
#
# * `gfb` — Goossens, Funk & Baruah (Real-Time Systems 25, 2003): Σ λᵢ ≤ m − (m − 1)·λmax.
# * `bak` — Baker (RTSS 2003): a per-task condition on the load in a "problem window".
# * `bcl`, `bcl-iter` — Bertogna, Cirinei & Lipari (ECRTS 2005; TPDS 2009): per-task bounds on
#   the interference, `bcl-iter` iterated with slack values.
# * `rta` — Bertogna & Cirinei (RTSS 2007): response-time bounds for global EDF.
# * `bar`, `bar-int` — Baruah (RTSS 2007) and rtsched's integer-time tightening.
# * `load` — Baker & Baruah (2009), from the maximum demand load.
# * `ffdbf` — Baruah, Bonifaci, Marchetti-Spaccamela & Stiller (2010), forced-forward demand.
#
# and the exact test `exact` (a state-space search over every release sequence of integer-time
# sporadic tasks, Baker & Cirinei 2007, with antichain pruning, Geeraerts et al. 2013): it
# proves schedulability, or returns a release sequence that misses. `analyses.get(name).citation`
# gives each paper and equation; each has a note in `papers/`.

# %% [markdown]
# ## Worked example 1: Dhall's effect
#
# The set used throughout (`examples/tasksets/dhall.txt`): τ₀ = τ₁ = (1, 9, 9), τ₂ = (10, 10, 10)
# on m = 2. U = 11/9 ≈ 1.22, far below 2.

# %%
dhall = find_dhall()
print(dhall.rows(), "U =", dhall.utilization)
GEDF_TESTS = ["gfb", "bak", "bcl", "bcl-iter", "rta", "bar", "bar-int", "load", "ffdbf", "exact"]
for name in GEDF_TESTS:
    print(f"{name:<9} {analyses.get(name).citation}")
report = rtsched.check(dhall, 2, tests=GEDF_TESTS + ["p-edf"])
print(report)

# %% [markdown]
# Every global EDF test fails, and the exact test says why: the synchronous release misses.
# Partitioned EDF (the heavy task alone on one processor) schedules the set: neither global nor
# partitioned scheduling dominates the other (more in lab 3). The counterexample, replayed by the
# simulator and drawn from t = 0:

# %%
evidence = report["exact"].evidence
print("releases:", evidence["releases"], f" miss of τ{evidence['miss_task']} at t = {evidence['miss_time']}")
trace = simulate(dhall, 2, releases=evidence["releases"], tie_choices=evidence["tie_choices"])
print(trace)
assert trace.miss is not None and trace.miss.time == evidence["miss_time"]
show(gantt(trace, rows="processors", since=0), "lab2_dhall_gantt")

# %% [markdown]
# The family: m light tasks (1, k, k) and a heavy (k + 1, k + 1, k + 1) on m processors has
# U = m/k + 1, and misses at t = k + 1 for every m and k. U/m tends to 1/m.

# %%
for m, k in ((2, 9), (4, 20), (8, 100)):
    family = rtsched.TaskSet.from_tasks([(1, k, k)] * m + [(k + 1, k + 1, k + 1)])
    miss = simulate(family, m, record=False).miss
    print(f"m = {m}, k = {k:>3}: U = {float(family.utilization):.3f}, U/m = {float(family.utilization) / m:.3f}, miss at t = {miss.time}")

# %% [markdown]
# ## Worked example 2: the exact test's counterexample is not the synchronous release
#
# On one processor the synchronous periodic release is the worst case (the critical instant of
# lab 1). Not on two: τ₀ = (1, 2, 3), τ₁ = (1, 3, 4), τ₂ = (7, 8, 8).

# %%
tricky = rtsched.TaskSet.from_tasks([(1, 2, 3), (1, 3, 4), (7, 8, 8)])
print("periodic, synchronous:", simulate(tricky, 2))
exact = rtsched.check(tricky, 2, tests=["exact"])["exact"]
print(exact)
counter = simulate(tricky, 2, releases=exact.evidence["releases"], tie_choices=exact.evidence["tie_choices"])
print("exact's release sequence:", counter)
show(gantt(counter, rows="processors", since=0), "lab2_exact_counterexample")

# %% [markdown]
# Periodically, τ₀ and τ₁ come back at t = 3 and t = 4, one at a time, and use the processor
# τ₂ does not need. Delaying τ₀'s second job to t = 4 (legal: sporadic tasks have *minimum*
# inter-arrival times) makes both light jobs arrive together with earlier deadlines than τ₂'s:
# they take both processors, τ₂ loses a tick and misses at t = 8. A simulation can refute
# schedulability, never prove it; the exact test explores every release sequence.
#
# ## Worked example 3: the tests side by side on random sets
#
# Random sets of n = 4 tasks on m = 2 (UUniFast-Discard utilizations, periods 5–20, deadlines
# uniform in [C, T]), each decided by every test; `check_many` runs each analysis once over all
# sets.

# %%
rng = np.random.default_rng(2024)
points = [0.6, 0.9, 1.2, 1.5, 1.8]
accepted = {name: [] for name in GEDF_TESTS}
all_reports = []
for U in points:
    sets = list(generate_batch(rng, n=4, utilization=U, size=SETS, utilizations="uunifast-discard",
                               periods="uniform:5:20", deadlines="uniform").batch)
    reports = check_many(sets, 2, tests=GEDF_TESTS)
    all_reports += reports
    for name in GEDF_TESTS:
        accepted[name].append(np.mean([r[name].verdict is True for r in reports]))
print(f"{'analysis':<10}" + "".join(f"  U={U:<4}" for U in points))
for name in GEDF_TESTS:
    print(f"{name:<10}" + "".join(f"  {a:6.2f}" for a in accepted[name]))

fig, ax = plt.subplots(figsize=(7, 4))
for name in GEDF_TESTS:
    style = {"color": "black", "lw": 2.5} if name == "exact" else {"marker": "o", "ms": 3}
    ax.plot(points, accepted[name], label=name, **style)
ax.set(xlabel="total utilization U (m = 2)", ylabel="share of sets proven schedulable",
       title=f"Global EDF tests on the same sets ({SETS} per point)")
ax.legend(fontsize=7, ncol=2)
show(fig, "lab2_gedf_tests")

# %% [markdown]
# No sufficient test ever accepts a set the exact test rejects (that would be a bug: rtsched
# checks it in its test suite); the gap between the best sufficient curve and `exact` is the
# price of a polynomial test.

# %%
assert all(r["exact"].verdict is True for r in all_reports for name in GEDF_TESTS if r[name].verdict is True)

# %% [markdown]
# ## Worked example 4: global fixed priority
#
# Global FP runs the m highest-priority active jobs; in rtsched the priority is the task order.
# `gfp-rta` is the response-time test of Bertogna & Cirinei (RTSS 2007), `exact-gfp` the exact
# state-space test. Dhall's set in file order has the heavy task last:

# %%
print(rtsched.check(dhall, 2, tests=["gfp-rta", "exact-gfp"]))
fp_trace = simulate(dhall, 2, policy="gfp")
print(fp_trace)

# %% [markdown]
# Global FP and global EDF on the random sets above, tasks in deadline-monotonic order:

# %%
dm_sets = [rtsched.TaskSet.from_tasks(sorted(r.taskset.rows(), key=lambda task: task[1])) for r in all_reports]
fp_reports = check_many(dm_sets, 2, tests=["gfp-rta", "exact-gfp"])
for name, reps in (("gfp-rta", fp_reports), ("exact-gfp", fp_reports), ("exact", all_reports)):
    print(f"{name:<10} accepts {sum(r[name].verdict is True for r in reps)} of {len(reps)} sets")

# %% [markdown]
# ## Worked example 5: soft real-time — Dhall's set is late, but boundedly
#
# Many systems tolerate late jobs if lateness stays bounded (video, telemetry, control loops with
# slack). The *tardiness* of a job is max(0, finish − deadline); a late job keeps running, and a
# task's jobs run one at a time in release order (a late job delays its successor). Devi and
# Anderson (RTSS 2005; Real-Time Systems 38(2), 2008; `tardiness-da`,
# `papers/devi-anderson2008-tardiness.md`) proved that under global EDF, with implicit deadlines,
#
#     U ≤ m  and  uᵢ ≤ 1 for every task                                       (DA-cond)
#
# suffice for bounded tardiness (and are necessary: above them a backlog grows every
# hyperperiod, exercise 6), and that every job of τₖ finishes at most x + eₖ after its deadline
# (the max(0, ·) in x is rtsched's: it matters only for U ≤ 1, where global EDF meets every
# deadline; the note explains):
#
#     Λ   = ⌈U⌉ − 1                                                          (DA-Λ)
#     E_L = the sum of the Λ largest costs Cᵢ                                (DA-E)
#     U_L = the sum of the Λ − 1 largest utilizations uᵢ                     (DA-U)
#     x   = max(0, (E_L − e_min)/(m − U_L))      (e_min: the smallest Cᵢ)    (DA-x)
#     tardiness(τₖ) ≤ x + eₖ                      (eₖ = Cₖ)                  (DA-bound)
#
# So global EDF, useless for Dhall's set as a hard real-time scheduler (worked example 1), is a
# perfectly good *soft* real-time scheduler for every set with U ≤ m — which partitioning cannot
# promise (a set with U ≤ m may not fit into m bins). The analysis's verdict "schedulable" means
# "tardiness bounded" (its policy is `global-edf:soft`), never "deadlines met".
#
# `simulate(..., after_miss="continue")` keeps late jobs running and reports each task's observed
# maximum tardiness (`trace.tardiness`). We run four kinds of behaviour: synchronous periodic
# releases and sporadic ones (random extra delays), each with every job at its WCET or with
# demands uniform in [1, C] — all legal behaviours of the sporadic model, so the bound must hold
# for each; the random ones on several seeds (keeping each task's largest value).

# %%
RUNS = [("periodic", "wcet"), ("sporadic", "wcet"), ("periodic", "random"), ("sporadic", "random")]
SIM_SEEDS = range(3 if SMALL else 20)  # seeds per random kind of run
SOFT = analyses.get("tardiness-da")


def observed_tardiness(ts, m, arrivals, execution, seeds=SIM_SEEDS, periods=200):
    """Each task's largest observed tardiness under global EDF over ``seeds`` (one run if nothing is
    random), every run `periods` times the largest period long."""
    seeds = [0] if (arrivals, execution) == ("periodic", "wcet") else seeds
    worst = [0] * ts.n
    for seed in seeds:
        run = simulate(ts, m, arrivals=arrivals, execution=execution, seed=seed, after_miss="continue",
                       horizon=periods * int(ts.T.max()), record=False)
        worst = [max(w, late) for w, late in zip(worst, run.tardiness, strict=True)]
    return worst


def tardiness_table(ts, m):
    """Print each task's Devi–Anderson bound next to its observed tardiness; return both."""
    soft = SOFT.explain(ts, m)
    bounds = [row["bound"] for row in soft.per_task]
    seen = {run: observed_tardiness(ts, m, *run) for run in RUNS}
    print(f"{'task':<5} {'C':>3} {'T':>3} {'bound x+e':>12}" + "".join(f" {a[:4]}/{e:<6}" for a, e in RUNS))
    for i, (c, _, t) in enumerate(ts.rows()):
        print(f"{ts.label(i):<5} {c:>3} {t:>3} {str(bounds[i]):>7} ≈{float(bounds[i]):4.1f}"
              + "".join(f" {seen[run][i]:>11}" for run in RUNS))
    return bounds, seen


soft = SOFT.explain(dhall, 2)
print(soft.summary)
for step in soft.steps:
    print("  ", step)
bounds, seen = tardiness_table(dhall, 2)
assert simulate(dhall, 2).miss is not None  # hard real-time: a miss (worked example 1)
assert all(late <= bound for run in RUNS for late, bound in zip(seen[run], bounds, strict=True))

fig, ax = plt.subplots(figsize=(7, 3.5))
width = 0.8 / (len(RUNS) + 1)
ax.bar(np.arange(dhall.n), [float(b) for b in bounds], width, label="bound x + e (DA)", color="lightgray",
       edgecolor="black")
for j, run in enumerate(RUNS, 1):
    ax.bar(np.arange(dhall.n) + j * width, seen[run], width, label=f"observed, {run[0]}, {run[1]}")
ax.set(xticks=np.arange(dhall.n) + width * len(RUNS) / 2, xticklabels=[dhall.label(i) for i in range(dhall.n)],
       ylabel="tardiness (ticks)", title="Dhall's set on m = 2 under global EDF: bound against simulation")
ax.legend(fontsize=7)
show(fig, "lab2_soft_dhall")

# %% [markdown]
# Λ = ⌈11/9⌉ − 1 = 1, E_L = 10 (the heavy task's cost), U_L = 0 (the sum of no utilization),
# e_min = 1, x = (10 − 1)/(2 − 0) = 9/2: the light tasks' bound is 9/2 + 1 = 11/2, the heavy
# task's 9/2 + 10 = 29/2. Observed: the heavy task is 2 ticks late at worst, the light tasks
# never. The bound holds, with a lot of room: it is a worst case over *every* sporadic behaviour,
# proved with a pessimistic accounting of the interference. The schedule from t = 0 with the late
# jobs kept running (the cross marks the first miss; the heavy task's next job starts only when its
# late predecessor completes):

# %%
late_run = simulate(dhall, 2, after_miss="continue", horizon=40)
print(late_run)
show(gantt(late_run, rows="tasks", since=0, until=45), "lab2_soft_dhall_gantt")

# %% [markdown]
# ## Worked example 6: the bound against U/m on random sets
#
# A small experiment in the style of a sweep (lab 4): random sets of n = 5 tasks with implicit
# deadlines on m = 2 (UUniFast-Discard, periods 5–20), at U/m from 0.5 to 1. For each set with
# bounded tardiness (rounding C to whole ticks can push the realised U above m at U/m = 1: those
# sets are left out, and the column "sets" counts the others), the largest bound max_k(x + eₖ) and
# the largest observed tardiness over the four kinds of run (two seeds each, runs 100 longest
# periods long), both divided by the set's largest period — the sweep's tardiness metric
# (`rtsched.sweep.tardiness`), a number of "longest periods" that does not depend on the time unit.

# %%
soft_rng = np.random.default_rng(47)
SOFT_SETS = 8 if SMALL else 40  # sets per point
shares = [0.5, 0.6, 0.7, 0.8, 0.9, 1.0]
curves = {"bound mean": [], "bound max": [], "observed mean": [], "observed max": []}
print(f"{'U/m':>4} {'sets':>4} {'hard misses':>11} {'bound mean/max':>15} {'observed mean/max':>18}")
for share in shares:
    drawn = generate_batch(soft_rng, n=5, utilization=2 * share, size=SOFT_SETS, utilizations="uunifast-discard",
                           periods="uniform:5:20", deadlines="implicit").batch
    sets = [ts for ts in drawn if SOFT.reference(ts, 2)]
    bound_ratio, seen_ratio, hard_misses = [], [], 0
    for ts in sets:
        t_max = int(ts.T.max())
        bound = [row["bound"] for row in SOFT.explain(ts, 2).per_task]
        runs = [observed_tardiness(ts, 2, *run, seeds=range(2), periods=100) for run in RUNS]
        worst = [max(col) for col in zip(*runs, strict=True)]
        assert all(late <= b for late, b in zip(worst, bound, strict=True))  # the theorem, on every set
        hard_misses += simulate(ts, 2, record=False).miss is not None
        bound_ratio.append(float(max(bound)) / t_max)
        seen_ratio.append(max(worst) / t_max)
    for name, values, f in (("bound mean", bound_ratio, np.mean), ("bound max", bound_ratio, np.max),
                            ("observed mean", seen_ratio, np.mean), ("observed max", seen_ratio, np.max)):
        curves[name].append(f(values) if values else np.nan)
    last = {name: values[-1] for name, values in curves.items()}
    print(f"{share:4.1f} {len(sets):>4} {hard_misses:>11} {last['bound mean']:7.2f}/{last['bound max']:<7.2f}"
          f" {last['observed mean']:9.2f}/{last['observed max']:<7.2f}")

fig, ax = plt.subplots(figsize=(7, 4))
for name, style in (("bound mean", "-o"), ("bound max", "--o"), ("observed mean", "-s"), ("observed max", "--s")):
    ax.plot(shares, curves[name], style, label=name, ms=4)
ax.set(xlabel="U/m (m = 2, n = 5, implicit deadlines)", ylabel="tardiness / largest period",
       title=f"Devi–Anderson bound against observed tardiness (up to {SOFT_SETS} sets per point)")
ax.legend(fontsize=8)
show(fig, "lab2_soft_bound_vs_u")

# %% [markdown]
# The bound grows with U/m: with m = 2, x = 0 while U ≤ 1 (the bound is then eₖ alone), and once
# U > 1, Λ = 1, E_L is the largest cost and x = (C_max − C_min)/2 — larger costs come with larger
# utilizations. The observed tardiness is zero at low utilization and appears only at high
# utilization (from about U/m = 0.7 in a full run), together with the hard misses ("hard misses":
# the sets whose synchronous periodic run misses a deadline, so that global EDF cannot schedule
# them as hard real-time and the soft guarantee is what is left) — and it stays far below the
# bound. The observed values are lower bounds on the worst case (a simulation sees a few
# behaviours), the bound an upper bound: the truth lies in between. Tighter analyses exist
# (compliant-vector analysis, Erickson, Devi and Baruah, ECRTS 2010; the G-EDF-like scheduler
# G-FL, Erickson and Anderson, ECRTS 2012, and with Ward, Real-Time Systems, 2014). At full size
# the same metric over many sets:
# `rtsched sweep examples/soft_tardiness.toml --out soft-tardiness` (tardiness.png).

# %% [markdown]
# ## Exercises
#
# **Exercise 1 (GFB by hand).** For the Dhall set compute the densities, Σλᵢ and the right side
# m − (m − 1)·λmax for m = 2, 3, 4. For which m does `gfb` accept? For which m does `exact`?

# %% tags=["solution"]
# Exercise 1: GFB against exact for growing m
for m in (2, 3, 4):
    r = rtsched.check(dhall, m, tests=["gfb", "exact"])
    print(f"m = {m}: gfb {r['gfb'].verdict!s:<5}  exact {r['exact'].verdict!s:<5}  {r['gfb'].summary}")

# %% [markdown] tags=["solution"]
# **Solution 1.** λ = 1/9, 1/9, 1; Σλ = 11/9; λmax = 1, so the right side is m − (m − 1) = 1 for
# every m: GFB never accepts a set with a task of density 1 unless Σλ ≤ 1. `exact` accepts from
# m = 3 (n ≤ m: every job has its own processor).

# %% [markdown]
# **Exercise 2 (where the tests disagree).** Shrink the heavy task of the Dhall set to
# (C, 10, 10). What is the largest C that global EDF schedules on m = 2 (use `exact`)? Which
# sufficient tests prove it? Read the evidence of one that does and one that does not.

# %% tags=["solution"]
# Exercise 2: scan C of the heavy task
for C in range(7, 11):
    ts = rtsched.TaskSet.from_tasks([(1, 9, 9), (1, 9, 9), (C, 10, 10)])
    r = rtsched.check(ts, 2, tests=GEDF_TESTS)
    print(f"C = {C:>2}: accepted by {[n for n in GEDF_TESTS if r[n].verdict is True]}")
r9 = rtsched.check(rtsched.TaskSet.from_tasks([(1, 9, 9), (1, 9, 9), (9, 10, 10)]), 2, tests=["bak", "rta"])
print(r9["bak"], r9["rta"], sep="\n")

# %% [markdown] tags=["solution"]
# **Solution 2.** C = 9 (at t = 0 the lights delay the heavy job by one tick, and 9 ticks remain).
# At C = 9 only `bcl-iter`, `rta` and `bar-int` prove it; `gfb`, `bak`, `bcl`, `bar`, `load`
# and `ffdbf` do not. At C = 8, `load` is the only one that fails. The iterative tests use the
# slack of the light tasks, which the one-shot bounds ignore.

# %% [markdown]
# **Exercise 3 (the exact test's adversary).** Change worked example 2's set in two ways and
# predict, then check with `exact`: (a) τ₂ = (6, 8, 8); (b) τ₁ = (1, 3, 5). Draw the
# counterexample's Gantt chart for each set that misses. In (b), what does the exact test
# assume about jobs with equal absolute deadlines? Compare with `exact:index`.

# %% tags=["solution"]
# Exercise 3: the exact verdicts and counterexamples
for label, rows in (("a", [(1, 2, 3), (1, 3, 4), (6, 8, 8)]), ("b", [(1, 2, 3), (1, 3, 5), (7, 8, 8)])):
    ts = rtsched.TaskSet.from_tasks(rows)
    r = rtsched.check(ts, 2, tests=["exact", "exact:index"])
    print(f"({label}) {rows}\n    exact: {r['exact'].summary}\n    exact:index: {r['exact:index'].summary}")
    if r["exact"].verdict is False:
        ev = r["exact"].evidence
        t = simulate(ts, 2, releases=ev["releases"], tie_choices=ev["tie_choices"])
        show(gantt(t, rows="tasks", since=0), f"lab2_ex3{label}")

# %% [markdown] tags=["solution"]
# **Solution 3.** (a) Schedulable: with C₂ = 6, τ₂ can lose the tick and still finish by 8.
# (b) With T₁ = 5 the light jobs can come back together only at t = 5; τ₁'s job then has
# deadline 8, *equal* to τ₂'s. `exact` lets an adversary break every tie ("tie choices t=5: τ1
# before τ2" — the diamonds on the chart) and finds a miss; the verdict holds for any G-EDF
# implementation. `exact:index` breaks ties by the lowest index, which here favours τ₁ (index
# 1 < 2) too, so it finds the same miss; with τ₁ and τ₂ swapped in the file it would not.

# %% [markdown]
# **Exercise 4 (priorities in global FP).** Reorder the Dhall set so that the heavy task has the
# highest priority. What do `gfp-rta` and `exact-gfp` say? Draw the G-FP schedule
# (`simulate(ts, 2, policy="gfp")`). Is there a task order for which global FP schedules the
# set but global EDF does not?

# %% tags=["solution"]
# Exercise 4: heavy task first
heavy_first = rtsched.TaskSet.from_tasks([(10, 10, 10), (1, 9, 9), (1, 9, 9)])
print(rtsched.check(heavy_first, 2, tests=["gfp-rta", "exact-gfp", "exact"]))
fp = simulate(heavy_first, 2, policy="gfp")
print(fp)
show(gantt(fp, rows="processors", since=0, until=30), "lab2_ex4_gfp_heavy_first")

# %% [markdown] tags=["solution"]
# **Solution 4.** With the heavy task first it owns one processor and the light tasks share the
# other (2 ticks every 9): `gfp-rta` and `exact-gfp` prove it, while global EDF (`exact`) still
# misses. Global FP with a good priority order beats global EDF here — the "EDF is optimal"
# intuition of one processor does not carry over.

# %% [markdown]
# **Exercise 5 (the bound by hand).** Add the task τ₃ = (4, 6, 6) to Dhall's set, on m = 2.
# Compute U, Λ, E_L, e_min, U_L, x and every task's bound. Which terms changed from worked example
# 5, which did not, and why? Then simulate (`tardiness_table`): did the observed tardiness change?
# Draw the schedule from t = 0 with the late jobs kept running and find the late jobs.

# %% tags=["solution"]
# Exercise 5: Dhall's set plus (4, 6, 6)
busier = rtsched.TaskSet.from_tasks([*dhall.rows(), (4, 6, 6)])
print("\n".join(str(step) for step in SOFT.explain(busier, 2).steps))
busier_bounds, busier_seen = tardiness_table(busier, 2)
show(gantt(simulate(busier, 2, after_miss="continue", horizon=36), rows="tasks", since=0, until=45), "lab2_ex5_busier")

# %% [markdown] tags=["solution"]
# **Solution 5.** U = 11/9 + 2/3 = 17/9 ≤ 2, so Λ = 1 as before, E_L = 10 (still the heavy task's
# cost), U_L = 0, e_min = 1, x = 9/2: the old tasks keep their bounds 11/2, 11/2 and 29/2, the new
# task gets 9/2 + 4 = 17/2. The bound depends on U only through Λ = ⌈U⌉ − 1, so it does not see the
# extra load. The simulation does: in the synchronous periodic run the heavy task is now 5 ticks
# late (2 before; its jobs wait for τ₃'s as well, and each late job delays the next one), still
# far below 29/2; the light tasks and τ₃ are never late.

# %% [markdown]
# **Exercise 6 (why U ≤ m).** The set τ₀ = τ₁ = (2, 3, 3), τ₂ = (4, 6, 6) on m = 2 has U = 2 = m.
# Compute the bounds and compare them with the simulation (`tardiness_table`). Then raise τ₂'s cost
# to 5 (U = 13/6 > 2): what does `tardiness-da` say, and what does the observed tardiness do over
# longer and longer runs (horizons 60, 600, 6000)?

# %% tags=["solution"]
# Exercise 6: U = m, then U > m
full = rtsched.TaskSet.from_tasks([(2, 3, 3), (2, 3, 3), (4, 6, 6)])
print(SOFT.explain(full, 2).summary)
tardiness_table(full, 2)
over = rtsched.TaskSet.from_tasks([(2, 3, 3), (2, 3, 3), (5, 6, 6)])
print(SOFT.explain(over, 2).summary)
for horizon in (60, 600, 6000):
    print(f"horizon {horizon:>5}: observed tardiness", simulate(over, 2, after_miss="continue", horizon=horizon,
                                                               record=False).tardiness)

# %% [markdown] tags=["solution"]
# **Solution 6.** With U = 2: Λ = ⌈2⌉ − 1 = 1, E_L = 4, e_min = 2, U_L = 0, x = (4 − 2)/2 = 1, bounds
# 3, 3 and 5; the simulations stay below (τ₂ at most 2 ticks late, τ₀ and τ₁ at most 1). With
# C₂ = 5, U = 13/6 > m: (DA-cond) fails and `tardiness-da` says tardiness is not bounded. The
# simulation agrees: the tasks bring 13/6 ticks of work per tick and two processors do 2, so the
# backlog grows by 1/6 tick of work per tick (about 1/12 tick of delay per tick on two
# processors), and τ₂'s tardiness grows with the horizon: 8, 53 and 503 ticks — no bound exists.

# %% [markdown]
# ## Things to try
#
# * Ties: `exact` assumes the worst tie-breaking between equal deadlines, `exact:index` the
#   lowest index; `simulate(..., ties="fifo")` and the diamonds on the Gantt chart.
# * Raise m to 4 and n to 8 in worked example 3: which test's curve moves most?
# * `rtsched.testing.check_sound(my_test)` (see `examples/check_my_test.py`): write GFB with a
#   mistake (e.g. `<` → `≤` on the wrong side, or λmax replaced by the mean) and let rtsched find
#   a counterexample.
# * Partitioned EDF (`p-edf`) on the random sets of worked example 3: where does it beat
#   `exact`? (Lab 3.)
# * From the shell: `rtsched check examples/tasksets/dhall.txt -m 2 --tests exact --explain`
#   and `rtsched simulate examples/tasksets/dhall.txt -m 2 --gantt dhall.png`.
# * Soft real-time: the tardiness bound of Dhall's family (m light tasks (1, k, k), one heavy
#   (k + 1, k + 1, k + 1)) as m and k grow; a sweep of the bound against U/m at m = 4:
#   `rtsched sweep examples/soft_tardiness.toml --out soft-tardiness`; and from the shell,
#   `rtsched simulate examples/tasksets/dhall.txt -m 2 --tardiness`.
