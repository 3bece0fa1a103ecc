# %% [markdown]
# # Lab 7 — Parallel DAG tasks: Graham's bound, federated and global scheduling
#
# **Estimated time:** 90 minutes (40 for the worked examples, 50 for the four exercises).
# **Prerequisites:** Lab 2 (global EDF, what a simulation proves), Lab 3 (partitioned EDF, `p-edf`).
#
# **Learning goals.** After this lab you can
# 1. compute the volume and the length (critical path) of a DAG task, and Graham's bound on its
#    response time on m cores, by hand;
# 2. explain why a single DAG task can need more than one core (vol > D, len ≤ D) and why no number
#    of cores helps when len > D;
# 3. compute a federated allocation (heavy tasks' n_i, light tasks by partitioned EDF) and read
#    `dag-federated`'s explanation;
# 4. show on two concrete sets that neither federated nor global EDF scheduling dominates the
#    other, and say which claim is *proven* (an analysis, or a deadline miss in a simulation) and
#    which is only *observed* (a simulation without a miss).
#
# Run it in Jupyter, or as a script: `python examples/labs/lab7_dag.py` (figures go to
# `$RTSCHED_LAB_OUT`, default `lab-figures/`). Every set is small and fixed, so the run takes a few
# seconds.

# %%
from fractions import Fraction
from math import ceil

import matplotlib.pyplot as plt
from _labkit import show  # build.py inlines the kit into the notebook

import rtsched
from rtsched import analyses
from rtsched.dag import DAGTask, DAGTaskSet, plot_dag_gantt, simulate_dag

# %% [markdown]
# ## Background
#
# * **The sporadic DAG task** (Baruah, Bonifaci, Marchetti-Spaccamela, Stougie & Wiese, RTSS 2012):
#   a task τᵢ releases jobs at least Tᵢ apart; each job is a directed acyclic graph of vertices
#   (sequential pieces of code with WCETs) and edges u → v (v starts after u completes), and the
#   whole job must complete within Dᵢ of its release. Two numbers summarise a DAG:
#   the **volume** volᵢ = Σ_v C_v (its execution time on one core) and the **length** lenᵢ, the
#   WCET sum of its longest path, the *critical path* (its execution time on infinitely many
#   cores). Definitions and file formats: `papers/dag-model.md`.
# * **Graham's bound** (R. L. Graham, "Bounds on multiprocessing timing anomalies", SIAM J. Appl.
#   Math. 17(2), 1969): a job alone on m cores under *any* work-conserving scheduler (no core idles
#   while a vertex is ready) completes within
#   $$R \le \mathrm{len} + \frac{\mathrm{vol} - \mathrm{len}}{m}.$$
#   (At every instant either all m cores work on the job, or a vertex of the critical path is
#   running: the first kind of instant lasts at most (vol − len)/m in total, the second at most len.)
#   Lower bound: R ≥ max(len, vol/m).
# * **Federated scheduling** (Li, Chen, Agrawal, Lu, Gill & Saifullah, ECRTS 2014, implicit
#   deadlines; Baruah, DATE 2015, constrained deadlines; `dag-federated`, note
#   `papers/li2014-federated.md`, whose tags (F1)–(F4) we use): (F1) τᵢ is *heavy* if volᵢ > Dᵢ,
#   else *light*; (F2) a heavy task needs lenᵢ < Dᵢ and gets
#   $$n_i = \left\lceil \frac{\mathrm{vol}_i - \mathrm{len}_i}{D_i - \mathrm{len}_i} \right\rceil$$
#   cores of its own — the least n with Graham's bound len + (vol − len)/n ≤ D; (F3) Σ nᵢ ≤ m;
#   (F4) the light tasks run sequentially, as sporadic tasks (C = volᵢ, Dᵢ, Tᵢ), partitioned on the
#   remaining cores — rtsched's choice is its partitioned EDF `p-edf` (Lab 3).
# * **Global EDF** of DAG tasks: every vertex has its job's absolute deadline as priority; the m
#   ready vertices with the earliest deadlines run. `dag-gedf-cab` is the capacity augmentation
#   bound of Li, Agrawal, Lu & Gill (ECRTS 2013): with b = 4 − 2/m, Σ volᵢ/Tᵢ ≤ m/b and
#   lenᵢ ≤ Dᵢ/b for every task (implicit deadlines; `papers/li2013-gedf-dag.md`). It is far from
#   exact: global EDF often meets sets it cannot prove.
# * **The simulator** `rtsched.dag.simulate_dag` schedules vertices of released jobs (global EDF
#   or global fixed priorities; ties by task index, then vertex index). A deadline miss in a run
#   *proves* that the policy fails the set (the run is a legal behaviour); a run without a miss
#   proves nothing about the other release patterns and execution times.

# %% [markdown]
# ## Worked example 1: a perception pipeline by hand
#
# One camera frame every T = 11 ms, deadline D = 11: `grab` (2 ms), then `track` (3), `segment` (4)
# and `detect` (6) in parallel, then `fuse` (1). The vertex numbers matter for the simulator: among
# ready vertices of one job, the lowest number runs first.

# %%
NAMES = ["grab", "track", "segment", "detect", "fuse"]
pipeline = DAGTask(
    [2, 3, 4, 6, 1], [(0, 1), (0, 2), (0, 3), (1, 4), (2, 4), (3, 4)], T=11, D=11, name="pipeline", vertex_names=NAMES
)
# By hand: vol = 2 + 3 + 4 + 6 + 1 = 16; the longest path is grab → detect → fuse, 2 + 6 + 1 = 9.
vol, length = 16, 9
assert (pipeline.volume, pipeline.length) == (vol, length)
assert [NAMES[v] for v in pipeline.critical_path()] == ["grab", "detect", "fuse"]
print(
    f"vol = {pipeline.volume}, len = {pipeline.length}, critical path = {[NAMES[v] for v in pipeline.critical_path()]}"
)

# %% [markdown]
# ### Graham's bound by hand, against the simulator
#
# len + (vol − len)/m for m = 1..4: 9 + 7/1 = 16, 9 + 7/2 = 12.5, 9 + 7/3 ≈ 11.33, 9 + 7/4 = 10.75.
# The simulator runs one job alone on m cores (one release at 0, `releases=[[0]]`, and a horizon of
# 20 so that a late job still completes; with one job, global EDF is just a work-conserving
# schedule of it): the response time must lie between max(len, ⌈vol/m⌉) and the bound.

# %%
by_hand = {1: Fraction(16), 2: Fraction(25, 2), 3: Fraction(34, 3), 4: Fraction(43, 4)}
alone = DAGTaskSet([pipeline])


def one_job(ts, m):
    """One job of each task released at 0, simulated (recorded) until it completes."""
    return simulate_dag(ts, m, releases=[[0]] * ts.n, horizon=20, record=True)


simulated = {}
for m, bound in by_hand.items():
    assert bound == length + Fraction(vol - length, m)
    R = one_job(alone, m).response_times[0]
    simulated[m] = R
    assert max(length, ceil(Fraction(vol, m))) <= R <= bound
    print(f"m = {m}: Graham's bound {str(bound):>5} ≈ {float(bound):5.2f}, simulated R = {R:>2}, D = {pipeline.D}")
assert simulated == {1: 16, 2: 12, 3: 9, 4: 9}

# %% [markdown]
# On 2 cores the simulator starts `track` and `segment` first (lowest numbers) and `detect` only
# when `track` completes at 5: `detect` ends at 11, `fuse` at 12 > D. On 3 cores the three middle
# vertices run side by side, and R = len = 9: the DAG is only 3 vertices wide, so more cores
# cannot help. The Gantt charts (one row per core, one colour per job, the missed job edged red):

# %%
fig, axes = plt.subplots(3, 1, figsize=(9, 6.5), sharex=True)
for ax, m in zip(axes, (1, 2, 3), strict=True):
    plot_dag_gantt(
        one_job(alone, m), ax=ax, until=17, title=f"m = {m}: R = {simulated[m]}, Graham's bound {float(by_hand[m]):.2f}"
    )
show(fig, "lab7_pipeline_gantt")

# %% [markdown]
# ## Worked example 2: why one DAG needs more than one core
#
# vol = 16 > D = 11: on one core the job needs 16 ms, whatever the order — no uniprocessor test
# can accept it, its utilization 16/11 exceeds 1. But len = 9 ≤ D: with enough cores the critical
# path is all that is left, and it fits. The DAG *must* run in parallel. (If len > D, no number of
# cores helps: the critical path alone misses.)
#
# How many cores? The simulation met the deadline with 3 (one order of vertices); Graham's bound
# guarantees it for *every* order only from len + 7/m ≤ 11, i.e. m ≥ 7/2, m = 4 — exactly
# federated scheduling's (F2):
# n = ⌈(vol − len)/(D − len)⌉ = ⌈(16 − 9)/(11 − 9)⌉ = ⌈3.5⌉ = 4.

# %%
n_by_hand = ceil(Fraction(vol - length, pipeline.D - length))
alone_explained = analyses.get("dag-federated").explain(alone, 4)
assert n_by_hand == 4 == alone_explained.evidence["n"][0]
assert analyses.get("dag-federated").reference(alone, 3) is False
least_by_graham = next(m for m in range(1, 10) if length + Fraction(vol - length, m) <= pipeline.D)
assert least_by_graham == n_by_hand
print(alone_explained.text(steps=True))

# %% [markdown]
# n = 4 is a bound-based allocation, not the least number of cores that works: the DAG is 3 wide,
# so on 3 cores every work-conserving schedule gives R = len = 9. Graham's bound knows only vol
# and len, not the shape. (A remark on integer time: R is a whole number of ticks in the
# simulator, so R ≤ ⌊11.33⌋ = 11 on 3 cores even by Graham's bound; the papers' rule, which
# `dag-federated` implements, holds for execution times that are not whole ticks too.)
#
# ## Worked example 3: a federated allocation, by hand and by `rtsched.check`
#
# Five tasks on m = 8 cores: the pipeline, a second heavy task (a fork-join: 1, two branches of
# 5, then 1), and three light tasks (a chain, a small fork and a single vertex).

# %%
fork_join = DAGTask([1, 5, 5, 1], [(0, 1), (0, 2), (1, 3), (2, 3)], T=10, D=10, name="stereo")
chain = DAGTask([2, 2], [(0, 1)], T=10, D=10, name="log")
fork = DAGTask([1, 2, 2], [(0, 1), (0, 2)], T=8, D=8, name="control")
single = DAGTask([3], [], T=6, D=6, name="watchdog")
system = DAGTaskSet([pipeline, fork_join, chain, fork, single], name="lab7 system")
for i, t in enumerate(system):
    print(
        f"{system.label(i):<13} vol = {t.volume:>2}, len = {t.length:>2}, D = {t.D:>2}, vol/D = {Fraction(t.volume, t.D)}"
    )

# %% [markdown]
# By hand: **heavy** are the pipeline (16/11 > 1, n = 4, above) and `stereo` (vol = 12 > 10,
# len = 7, n = ⌈(12 − 7)/(10 − 7)⌉ = ⌈5/3⌉ = 2): Σ nᵢ = 6 ≤ 8, two cores left. **Light**: `log`
# (4/10), `control` (5/8), `watchdog` (3/6), run sequentially. p-edf places them in decreasing
# density: `control` on P6 (U = 0.625); `watchdog` does not fit there (0.625 + 0.5 = 1.125 > 1)
# and goes to P7 (0.5); `log` does not fit on P6 either (0.625 + 0.4 = 1.025) and joins P7 (0.9).
# The library agrees (the table of `rtsched.check`, then `dag-federated`'s explanation with its
# steps; `p-edf`'s steps number the light tasks and processors from 0):

# %%
report = rtsched.check(system, 8, tests=["dag-federated", "dag-gedf-cab"])
print(report, report["dag-federated"].text(steps=True), sep="\n\n")
fed = report["dag-federated"]
assert fed.verdict is True
assert fed.evidence["n"] == (4, 2, 0, 0, 0)
assert fed.evidence["allocation"] == ((0, 1, 2, 3), (4, 5), (7,), (6,), (7,))
assert report["dag-gedf-cab"].verdict is False  # ΣU = 16/11 + 12/10 + ... > 8/3.75: the bound fails
assert report["dag-gedf-cab"].evidence["failing_term"] == "(1) total utilization"

# %% [markdown]
# `dag-gedf-cab` fails: Σ U ≈ 4.18 > m/b = 8/3.75 ≈ 2.13, and len·b ≤ D fails for every task
# (`print(report["dag-gedf-cab"].text(steps=True))` shows both conditions task by task).
# A capacity augmentation bound trades precision for a one-line test.
#
# ## Worked example 4: global EDF meets a set that federated scheduling cannot allocate, and vice versa
#
# Two sets of fork-join DAG tasks on m = 3 cores, found by the seeded search in
# `examples/labs/_lab7_search.py` (seed 1: nested fork-join graphs after Melani et al., ECRTS 2015,
# WCETs 1–4, D = T from {6, 8, 10, 12, 15}; the first draw of each kind; run it to see the
# derivation). `tests/test_lab7_dag.py` re-runs the search and re-checks every claim below.
#
# **Set F (federated yes, global EDF no).**

# %%
SET_F = DAGTaskSet(
    [
        DAGTask([3], [], T=6, D=6),
        DAGTask([1], [], T=8, D=8),
        DAGTask([3], [], T=8, D=8),
        DAGTask([1, 2, 4, 4], [(0, 1), (0, 2), (1, 3), (2, 3)], T=10, D=10),
    ],
    name="set F (seed 1)",
)
M = 3
report_f = rtsched.check(SET_F, M, tests=["dag-federated", "dag-gedf-cab"])
print(report_f, report_f["dag-federated"].text(steps=True), sep="\n\n")
assert report_f["dag-federated"].verdict is True and report_f["dag-gedf-cab"].verdict is False
miss_f = simulate_dag(SET_F, M, policy="gedf", horizon=12, record=True)
print(miss_f)
assert miss_f.miss is not None and miss_f.miss.task == 3 and miss_f.miss.time == 10

# %% [markdown]
# Federated scheduling gives τ3 (vol = 11 > 10, len = 9) n = ⌈2/1⌉ = 2 cores and the three light
# tasks one core (U = 1/2 + 1/8 + 3/8 = 1: exactly full, EDF-schedulable): **proven**. Global EDF
# misses: at t = 0 the three light jobs (deadlines 6, 8, 8) take all three cores before τ3
# (deadline 10); τ3's source starts only at 1, its branch of 4 at 3 (a core frees up), its sink at
# 7 — and 7 + 4 = 11 > 10. The miss is **proven** by the run (a synchronous periodic release is a
# legal sporadic behaviour). In the federated schedule nothing steals τ3's cores: the heavy task
# alone on 2 cores, the light tasks as one EDF core, each checked by the simulator:

# %%
heavy_alone = simulate_dag(DAGTaskSet([SET_F[3]]), 2, horizon=120)
light_core = simulate_dag(SET_F[:3], 1, horizon=120)  # one core: EDF over the light tasks' vertices
print("heavy τ3 on P0, P1:", heavy_alone, "\nlight tasks on P2:", light_core)
assert heavy_alone.miss is None and light_core.miss is None
assert heavy_alone.response_times[0] <= 9 + Fraction(11 - 9, 2)  # Graham on its n = 2 cores

fig, ax = plt.subplots(figsize=(9, 3))
plot_dag_gantt(miss_f, ax=ax, until=12, title="set F under global EDF, m = 3: τ3 misses at t = 10")
show(fig, "lab7_set_f_gedf_miss")

# %% [markdown]
# **Set G (global EDF yes — observed; federated no).**

# %%
SET_G = DAGTaskSet(
    [
        DAGTask([3], [], T=15, D=15),
        DAGTask([2], [], T=6, D=6),
        DAGTask(
            [4, 2, 1, 3, 3, 1, 4, 2],
            [(0, 1), (0, 2), (1, 7), (2, 3), (2, 4), (2, 5), (3, 6), (4, 6), (5, 6), (6, 7)],
            T=15,
            D=15,
        ),
    ],
    name="set G (seed 1)",
)
report_g = rtsched.check(SET_G, M, tests=["dag-federated", "dag-gedf-cab"])
print(report_g, report_g["dag-federated"].text(steps=True), sep="\n\n")
assert report_g["dag-federated"].verdict is False and report_g["dag-gedf-cab"].verdict is False
assert report_g["dag-federated"].evidence["n"] == (0, 0, 6)

SCENARIOS = [
    {"arrivals": "periodic", "ties": "index"},
    {"arrivals": "periodic", "ties": "fifo"},
    *({"arrivals": "sporadic", "seed": s} for s in range(10)),
    *({"arrivals": "periodic", "execution": "random", "seed": s} for s in range(10)),
    *({"arrivals": "sporadic", "execution": "random", "seed": s} for s in range(10)),
]
runs_g = [simulate_dag(SET_G, M, policy="gedf", **scenario) for scenario in SCENARIOS]
assert all(run.miss is None for run in runs_g)
assert one_job(SET_G[2:], M).response_times == (14,)  # τ2 alone on 3 cores: 14, Graham says ≤ 16
assert runs_g[0].response_times[2] == 15  # with the light tasks, synchronous release: exactly D
print(f"global EDF on m = {M}: no miss in {len(runs_g)} runs ({sum(r.jobs for r in runs_g)} jobs), e.g.", runs_g[0])

# %% [markdown]
# τ2 has vol = 20 and len = 14 with D = 15: one tick of slack on the critical path, so federated
# scheduling asks for n = ⌈(20 − 14)/(15 − 14)⌉ = 6 cores for a task of utilization 4/3 — on 3 cores
# it cannot even be set up (Σ nᵢ = 6 > 3), and it would need m = 7 (exercise 4). Global EDF, which
# shares the cores, met every deadline in every run above, including sporadic arrivals and
# execution times shorter than the WCETs: τ2 alone on 3 cores finishes at 14, not at Graham's
# 14 + 6/3 = 16, and with the light tasks released with it at exactly 15 = D (the chart below: no
# slack at all). This is **observed, not proven**: neither `dag-gedf-cab` nor any other analysis
# in rtsched accepts set G on 3 cores, and simulations cover a few release patterns only.
# Neither approach dominates: federated isolation protects a heavy task from interference (set F),
# global sharing avoids the cores that (F2) over-provisions (set G).

# %%
fig, ax = plt.subplots(figsize=(9, 3))
plot_dag_gantt(
    simulate_dag(SET_G, M, policy="gedf", horizon=30, record=True), ax=ax, title="set G under global EDF, m = 3"
)
show(fig, "lab7_set_g_gedf")

# %% [markdown]
# ## Exercises
#
# **Exercise 1 (Graham's bound by hand).** A DAG with vertices a (C = 1), b (4), c (2), d (2),
# e (3), f (1) and edges a → b, a → c, c → d, c → e, b → f, d → f, e → f; D = T = 8. Compute vol,
# len and the critical path; Graham's bound on m = 1, 2, 3; federated's n. Check with the library
# and the simulator.

# %% tags=["solution"]
# Exercise 1: vol, len, Graham's bound and n, checked
ex1 = DAGTask(
    [1, 4, 2, 2, 3, 1],
    [(0, 1), (0, 2), (2, 3), (2, 4), (1, 5), (3, 5), (4, 5)],
    T=8,
    D=8,
    vertex_names=list("abcdef"),
)
assert (ex1.volume, ex1.length) == (13, 7)
assert ["abcdef"[v] for v in ex1.critical_path()] == ["a", "c", "e", "f"]
ex1_R = {}
for m in (1, 2, 3):
    bound = 7 + Fraction(13 - 7, m)
    ex1_R[m] = one_job(DAGTaskSet([ex1]), m).response_times[0]
    assert ex1_R[m] <= bound
    print(f"m = {m}: Graham {bound}, simulated {ex1_R[m]}")
assert ex1_R == {1: 13, 2: 9, 3: 7}
assert analyses.get("dag-federated").explain(DAGTaskSet([ex1]), 6).evidence["n"] == (6,)

# %% [markdown] tags=["solution"]
# **Solution 1.** vol = 1 + 4 + 2 + 2 + 3 + 1 = 13. Paths: a-b-f = 6, a-c-d-f = 6, a-c-e-f = 7,
# so len = 7 (a → c → e → f). Graham: m = 1: 13; m = 2: 7 + 6/2 = 10; m = 3: 7 + 2 = 9 — all
# above D = 8. The simulator gives 13, 9 (a miss) and 7 on 3 cores: the DAG is at most 3 wide
# (b, d, e), so 3 cores run it in len. Federated: n = ⌈6/1⌉ = 6, the price of one tick of slack:
# Graham's bound 7 + 6/n ≤ 8 needs n ≥ 6, twice the 3 cores that suffice.

# %% [markdown]
# **Exercise 2 (the order of vertices).** Renumber the pipeline so that `detect` is vertex 1 (it
# then starts first on 2 cores). What does the simulator give on 2 cores now? Did Graham's bound
# change? What does this say about n = 4?

# %% tags=["solution"]
# Exercise 2: detect first
renumbered = DAGTask(
    [2, 6, 3, 4, 1],
    [(0, 1), (0, 2), (0, 3), (1, 4), (2, 4), (3, 4)],
    T=11,
    D=11,
    vertex_names=["grab", "detect", "track", "segment", "fuse"],
)
assert (renumbered.volume, renumbered.length) == (vol, length)
R2 = one_job(DAGTaskSet([renumbered]), 2).response_times[0]
print("detect first, m = 2: R =", R2)
assert R2 == 10 < simulated[2] == 12

# %% [markdown] tags=["solution"]
# **Solution 2.** R = 10 ≤ 11: `detect` runs [2, 8) on one core, `track` and `segment` one after the
# other [2, 9) on the other, `fuse` [9, 10). Graham's bound is unchanged (12.5): it depends only on
# vol and len, and covers the worst order (`detect` last). A good intra-task order can save a
# core, but federated scheduling's n must hold for any work-conserving order, so it keeps n = 4
# (He, Guan et al., TPDS 2019, study such intra-task priorities).

# %% [markdown]
# **Exercise 3 (the fewest cores).** For the system of worked example 3, what is the least m on
# which `dag-federated` accepts it? Predict by hand (heavy cores plus the light tasks' packing),
# then check. What happens to the pipeline's n if its deadline (and period) grows to 12? To 16?

# %% tags=["solution"]
# Exercise 3: least m for the system; the pipeline's n against its deadline
federated = analyses.get("dag-federated")
least = next(m for m in range(1, 20) if federated.reference(system, m) is True)
print("least m:", least)
assert least == 8
for D in (11, 12, 16):
    relaxed = DAGTaskSet([pipeline.replace(T=D, D=D)])
    print(f"D = {D}: n = {federated.explain(relaxed, 8).evidence['n'][0]}")

# %% [markdown] tags=["solution"]
# **Solution 3.** The heavy tasks need 4 + 2 = 6 cores; the light densities 0.625 + 0.5 + 0.4 =
# 1.525 > 1 need two cores: m = 8, as the library says (m = 7 leaves one light core: p-edf fails).
# D = 12: n = ⌈7/3⌉ = 3; D = 16: vol = 16 = D, so the pipeline is *light* (it fits one core
# sequentially) and n = 0. Slack on the critical path, D − len, is what federated scheduling
# buys cores with.

# %% [markdown]
# **Exercise 4 (global vs federated).** (a) On how many cores does `dag-federated` accept set G?
# (b) Under global *fixed* priorities with τ3 first (`policy="gfp"`, task order = priority), does
# set F meet its deadlines on 3 cores in the synchronous periodic simulation? What is proven by
# your answer, and what is not?

# %% tags=["solution"]
# Exercise 4: set G's federated cores; set F under G-FP with the heavy task first
cores_g = next(m for m in range(1, 20) if federated.reference(SET_G, m) is True)
print("set G: federated from m =", cores_g)
assert cores_g == 7
heavy_first = DAGTaskSet([SET_F[3], SET_F[0], SET_F[1], SET_F[2]])
gfp_run = simulate_dag(heavy_first, M, policy="gfp")
print("set F, G-FP heavy first:", gfp_run)
assert gfp_run.miss is None

# %% [markdown] tags=["solution"]
# **Solution 4.** (a) m = 7: τ2's 6 cores plus one core for the light tasks (3/15 + 2/6 =
# 8/15 ≤ 1). Global EDF met set G on 3 cores in every simulated run — less than half. (b) Yes, no
# miss in the hyperperiod [0, 120]: with τ3 first, the light jobs can no longer delay its critical
# path. But this is one release pattern: it proves nothing for sporadic arrivals (a G-FP DAG
# analysis would have to, e.g. Melani et al., ECRTS 2015), whereas set F's global EDF miss is a
# proof that global EDF fails it.

# %% [markdown]
# ## Things to try
#
# * `python examples/labs/_lab7_search.py 2`: the same search from another seed. Which kind of
#   set is rarer, and why (think of what global EDF needs to miss)?
# * `rtsched.generators.dag.dag_tasksets` draws random DAG sets (fork-join, G(n, p), layered);
#   compare `dag-federated` and `dag-gedf-cab` on a few hundred of them with `rtsched.check_many`.
# * Give set F's light tasks longer deadlines (D = T = 12): does global EDF meet it now?
# * `rtsched exercise --topic dag --seed <your id>`: a DAG exercise sheet with its answer key.
