# %% [markdown]
# # Lab 2 — Global scheduling: Dhall's effect, the global EDF tests, the exact test
#
# **Estimated time:** 90 minutes (35 for the worked examples, 55 for the four exercises).
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
# 4. contrast global fixed priority with global EDF on the same sets.
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
# * Soft real-time (next cell): global EDF misses on Dhall's set, but how late can a job be?

# %% [markdown]
# ### Soft real-time: the tardiness of Dhall's set against its bound
#
# When late jobs are tolerated, global EDF needs only U ≤ m and every uᵢ ≤ 1: then every job
# of τₖ finishes at most x + eₖ after its deadline (Devi and Anderson, Real-Time Systems 2008;
# `tardiness-da`, papers/devi-anderson2008-tardiness.md). `simulate(..., after_miss="continue")`
# keeps the late jobs running (one job of a task at a time) and reports how late each task got.
# Try sets with U close to m, or sporadic arrivals: how close does the simulation come to the
# bound? From the shell: `rtsched simulate examples/tasksets/dhall.txt -m 2 --tardiness`.

# %%
from rtsched.analyses.global_edf.tardiness_da import tardiness_bounds  # noqa: E402

late = simulate(dhall, 2, after_miss="continue", horizon=900, record=False)
print(analyses.get("tardiness-da").explain(dhall, 2).summary)
for i, (seen, bound) in enumerate(zip(late.tardiness, tardiness_bounds(dhall, 2), strict=True)):
    print(f"{dhall.label(i)}: observed tardiness {seen}, bound x + e = {bound} ({float(bound):.1f})")
