# %% [markdown]
# # Lab 8 — Mixed criticality: Vestal's model, SMC against AMC, EDF with virtual deadlines
#
# **Estimated time:** 90 minutes (45 for the worked examples, 45 for the four exercises).
# **Prerequisites:** Lab 1 (response-time analysis, EDF and utilization), Audsley's priority
# assignment (Lab 1's "things to try", or any RTA course).
#
# **Learning goals.** After this lab you can
# 1. state Vestal's model (a criticality level and one WCET per level) and what a mode switch is;
# 2. show on a small set that neither deadline-monotonic nor criticality-monotonic priorities are
#    optimal, and find a working order with Audsley's algorithm (Vestal's observation);
# 3. compute LO-mode and HI-mode response times under SMC, AMC-rtb and AMC-max by hand, and read
#    `rtsched`'s explanations of them;
# 4. explain with a schedule why AMC (LO jobs dropped at the switch) accepts sets that SMC (LO jobs
#    kept) cannot, and why AMC-max accepts sets that AMC-rtb cannot;
# 5. compute EDF-VD's virtual-deadline factor x and its condition by hand, and see the virtual
#    deadlines at work in the mode-switch simulator;
# 6. say which claims are *proven* (an analysis, or a deadline miss in a legal run) and which are
#    only *observed* (simulations without a miss).
#
# Run it in Jupyter, or as a script: `python examples/labs/lab8_mixed_criticality.py` (figures go
# to `$RTSCHED_LAB_OUT`, default `lab-figures/`). The sets are small and fixed; only the last
# worked example draws random sets (fewer with `RTSCHED_EXAMPLE_SMALL=1`). It runs in a few seconds.

# %%
from fractions import Fraction

import matplotlib.pyplot as plt
import numpy as np
from _labkit import SMALL, show  # build.py inlines the kit into the notebook

import rtsched
from rtsched import analyses
from rtsched.analyses.mixed_criticality import amc2011
from rtsched.generators.mc import mc_tasksets
from rtsched.mc import MCTask, MCTaskSet
from rtsched.mc.gantt import plot_mc_gantt
from rtsched.mc.sim import simulate_mc, switch_search

# %% [markdown]
# ## Background
#
# * **Vestal's model** (S. Vestal, "Preemptive scheduling of multi-criticality systems with
#   varying degrees of execution time assurance", RTSS 2007): a sporadic task τᵢ has a
#   criticality Lᵢ ∈ {LO, HI} and one WCET per level up to its own, Cᵢ(LO) ≤ Cᵢ(HI): the higher
#   the assurance a certification authority asks for, the more pessimistic the WCET. A LO task has
#   only Cᵢ(LO). Model and files: `rtsched.mc`, `papers/mc-model.md`.
# * **Mode switch** (Baruah, Burns & Davis, "Response-time analysis for mixed criticality
#   systems", RTSS 2011, Section II): the system starts in LO mode, where *every* task must meet its
#   deadlines with the LO budgets. When a job runs for its C(LO) without completing (only a HI job
#   can: LO jobs are stopped at C(LO)), the system switches to HI mode, where only the HI tasks
#   must meet their deadlines, with their C(HI).
# * **Fixed-priority analyses** (Baruah, Burns & Davis, RTSS 2011; equation numbers of that paper
#   as `papers/baruah-burns-davis2011-amc.md` records them — (4), (5), (7) checked against a
#   secondary source, (2), (3) not; hp(i) = the tasks above τᵢ, hpH(i) and hpL(i) its HI and LO
#   ones):
#   - **SMC** (static mixed criticality; LO tasks keep running after the switch, within C(LO)):
#     Rᵢ = Cᵢ(Lᵢ) + Σ_{j∈hp(i)} ⌈Rᵢ/Tⱼ⌉·Cⱼ(min(Lᵢ, Lⱼ)) ≤ Dᵢ (3). A HI task counts the HI budgets
#     of the HI tasks above it *and* all the LO jobs. **SMC-no** (2), Vestal's original test without
#     run-time monitoring, charges Cⱼ(Lᵢ) instead; in rtsched's model a LO task has no HI budget
#     (its C(HI) is its C(LO)), so SMC-no decides exactly as SMC.
#   - **AMC** (adaptive: LO jobs are *dropped* at the switch). LO mode, every task:
#     Rᵢ^LO = Cᵢ(LO) + Σ_{j∈hp(i)} ⌈Rᵢ^LO/Tⱼ⌉·Cⱼ(LO) ≤ Dᵢ (4). Across the switch, every HI task:
#     **AMC-rtb** Rᵢ* = Cᵢ(HI) + Σ_{j∈hpH(i)} ⌈Rᵢ*/Tⱼ⌉·Cⱼ(HI) + Σ_{k∈hpL(i)} ⌈Rᵢ^LO/Tₖ⌉·Cₖ(LO) ≤ Dᵢ (7):
#     LO jobs can only interfere *before* the switch, which happens before Rᵢ^LO;
#     **AMC-max** takes the maximum over the switch instants s of a bound Rᵢ(s) that counts the LO
#     jobs released up to s and the HI tasks' jobs at C(HI) only if they can run after s.
#   - **Dominance** on the same priority order (Baruah, Burns & Davis 2011, whose abstract states
#     that the new scheme formally dominates those previously published):
#     SMC-no ⇒ SMC ⇒ AMC-rtb ⇒ AMC-max (each accepts every set the one before it accepts). The
#     paper's full text could not be read for this lab; a proof of each implication, term by term,
#     is in `papers/baruah-burns-davis2011-amc.md`, and rtsched holds them as property tests.
#   - **Priorities**: these tests look only at the *set* of tasks above τᵢ (and are monotone in it),
#     so Audsley's algorithm (N. Audsley, "On priority assignment in fixed priority scheduling",
#     IPL 79(1), 2001) is optimal for each of them (Vestal 2007 for his test; Baruah, Burns & Davis
#     2011 for AMC). rtsched: `mc-smc-no-dm`, `mc-smc-dm`, `mc-amc-rtb-dm`, `mc-amc-max-dm`, and
#     `-opa` for Audsley's order.
# * **EDF-VD** (Baruah, Bonifaci, D'Angelo, Li, Marchetti-Spaccamela, van der Ster & Stougie, "The
#   preemptive uniprocessor scheduling of mixed-criticality implicit-deadline sporadic task
#   systems", ECRTS 2012), D = T: with U_LL = Σ_LO C(LO)/T, U_HL = Σ_HI C(LO)/T and
#   U_HH = Σ_HI C(HI)/T, plain EDF suffices if U_LL + U_HH ≤ 1; otherwise, in LO mode, each HI job
#   gets the *virtual deadline* r + x·T with
#   $$x = \frac{U_{HL}}{1 - U_{LL}},$$
#   the least x for which EDF meets every (virtual) deadline in LO mode (U_LL + U_HL/x ≤ 1), and the
#   set is schedulable if x·U_LL + U_HH ≤ 1 (after the switch, the HI jobs, whose virtual deadlines
#   left them ahead, meet their real deadlines). rtsched: `mc-edf-vd`, note
#   `papers/baruah2012-edf-vd.md`.
# * **The simulator** `rtsched.mc.sim.simulate_mc` runs FP, EDF or EDF-VD with mode switches,
#   `policy="amc"` (LO jobs dropped, no LO job released in HI mode) or `"smc"` (LO jobs kept,
#   within C(LO)). A *failure* is a miss in LO mode, or a miss of a HI job in any mode.
#   `switch_search` makes every HI job of the hyperperiod the overrunning one in turn (all HI jobs
#   at C(HI) after the switch, `escalate=True`). A failure in a run *proves* that the scheduler fails
#   the set; runs without a failure prove nothing about other release patterns (semantics:
#   `papers/mc-simulator.md`).
#
# A helper for the by-hand checks below: the library's per-task test (`amc2011.task_test`, the
# equations above for one task below a given set of higher-priority tasks) in a given order.


# %%
def per_task(ts, order, test):
    """{task: TaskResult} of ``test`` ("smc", "amc-rtb", "amc-max") for the priority ``order`` (highest first)."""
    return {i: amc2011.task_test(ts, i, order[:p], test) for p, i in enumerate(order)}


def passes(ts, order, test):
    return all(r.ok for r in per_task(ts, order, test).values())


# %% [markdown]
# ## Worked example 1: Vestal's example — neither deadlines nor criticalities give the priorities
#
# Vestal (RTSS 2007) showed that in the multi-criticality model neither deadline-monotonic (DM)
# nor criticality-monotonic priorities (HI tasks first) are optimal, and that Audsley's algorithm
# is. His paper's text could not be read for this lab, so the set below is our own, found by a
# small search over integer 3-task sets. Three tasks is the fewest: with two, if DM and
# criticality-monotonic differ, they are the only two orders, and Audsley has nothing else to find.
#
# | task | level | C(LO) | C(HI) | D | T |
# |---|---|---|---|---|---|
# | τ0 | LO | 1 | — | 2 | 4 |
# | τ1 | LO | 1 | — | 5 | 5 |
# | τ2 | HI | 2 | 4 | 6 | 6 |
#
# **By hand, SMC (3).** *DM* (τ0 > τ1 > τ2): τ0: R = 1 ≤ 2; τ1: R = 1 + 1 = 2 ≤ 5; τ2 (HI) counts
# its C(HI) and the LO jobs above it: R = 4 + ⌈R/4⌉·1 + ⌈R/5⌉·1 gives 4 + 1 + 1 = 6, then
# 4 + 2 + 2 = 8 > 6 — **fails**. *Criticality-monotonic* (τ2 > τ0 > τ1): τ0 now waits for τ2's
# C(LO) = 2 (a LO task only suffers LO budgets): R = 1 + 2 = 3 > D = 2 — **fails**. *Audsley*:
# from the lowest priority up — τ2 at the bottom fails (R = 8, as in DM); τ1 at the bottom:
# R = 1 + ⌈R/4⌉·1 + ⌈R/6⌉·2 gives 4, then 4 ≤ 5: it fits; then τ2 below τ0: R = 4 + ⌈R/4⌉·1
# gives 5, then 6, and 6 ≤ 6: it fits; τ0 on top.
# The order τ0 > τ2 > τ1 is neither by deadline nor by criticality.

# %%
V = MCTaskSet([MCTask.lo(1, T=4, D=2), MCTask.lo(1, T=5, D=5), MCTask.hi(2, 4, T=6, D=6)], name="Vestal-style set")
dm = amc2011.deadline_monotonic(V)
criticality_monotonic = sorted(range(V.n), key=lambda i: (-V[i].level, V[i].D, i))
assert (dm, criticality_monotonic) == ([0, 1, 2], [2, 0, 1])
smc_dm, smc_cm = per_task(V, dm, "smc"), per_task(V, criticality_monotonic, "smc")
assert smc_dm[2].R_hi == 8 and not smc_dm[2].ok  # (3) for τ2: first iterate above D = 6
assert smc_cm[0].R_lo == 3 and not smc_cm[0].ok  # τ0 below τ2's C(LO)
report_v = rtsched.check(V, 1, tests=["mc-smc-dm", "mc-smc-opa"])
print(report_v)
print(report_v["mc-smc-opa"].text(steps=True))
assert report_v["mc-smc-dm"].verdict is False and report_v["mc-smc-opa"].verdict is True
assert amc2011.assign_opa(V, "smc") == [0, 2, 1]
opa_rows = {row["task"]: row for row in report_v["mc-smc-opa"].per_task}
assert (opa_rows[2]["R_HI"], opa_rows[1]["R_LO"]) == (6, 4)  # the hand values above

# %% [markdown]
# The simulator agrees on the two failing orders and on Audsley's. Under SMC with DM priorities a
# switch at τ2's first job is a *proven* failure (the run is legal: periodic releases, one HI job
# overrunning); with Audsley's order, every switch instant of the hyperperiod passes (observed;
# the analysis is the proof).

# %%
by_order = {
    "DM": switch_search(V, policy="smc", priorities=dm),
    "criticality-monotonic": switch_search(V, policy="smc", priorities=criticality_monotonic),
    "Audsley": switch_search(V, policy="smc", priorities=[0, 2, 1]),
}
for name, search in by_order.items():
    print(f"SMC, {name:<22} {search}")
assert by_order["DM"].failure.miss.task == 2 and by_order["Audsley"].failure is None
assert by_order["criticality-monotonic"].failure.miss.task == 0  # τ0 misses in LO mode
assert by_order["criticality-monotonic"].failure.miss.mode == "LO"

# %% [markdown]
# ## Worked example 2: why AMC beats SMC — dropping the LO jobs at the switch
#
# Set A, DM priorities τ0 > τ1 > τ2 (τ1 and τ2 have the same deadline; ties by index):
#
# | task | level | C(LO) | C(HI) | D | T |
# |---|---|---|---|---|---|
# | τ0 | LO | 1 | — | 2 | 4 |
# | τ1 | HI | 2 | 5 | 6 | 8 |
# | τ2 | LO | 2 | — | 6 | 8 |
#
# **SMC (3)**: τ1 (HI) below τ0: R = 5 + ⌈R/4⌉·1 gives 6, then 7 > 6 — fails. No other order
# helps (Audsley: τ2 fits at the bottom, but then neither τ0 below τ1 (1 + 2 = 3 > 2) nor τ1 below
# τ0 (7 > 6) fits). **AMC**: LO mode (4): τ0: 1; τ1: 2 + ⌈R/4⌉·1 = 3; τ2: 2 + ⌈R/4⌉·1 + ⌈R/8⌉·2
# gives 5, then 6 ≤ 6. Across the switch, AMC-rtb (7) for τ1: the switch comes before
# R1^LO = 3, so τ0 interferes at most ⌈3/4⌉ = 1 time: R1* = 5 + 1 = 6 ≤ 6. **Accepted.**

# %%
A = MCTaskSet([MCTask.lo(1, T=4, D=2), MCTask.hi(2, 5, T=8, D=6), MCTask.lo(2, T=8, D=6)], name="set A")
report_a = rtsched.check(A, 1, tests=["mc-smc-dm", "mc-smc-opa", "mc-amc-rtb-dm", "mc-amc-max-dm"])
print(report_a)
print(report_a["mc-amc-rtb-dm"].text(steps=True))
assert [report_a[n].verdict for n in ("mc-smc-dm", "mc-smc-opa", "mc-amc-rtb-dm")] == [False, False, True]
rows_a = {row["task"]: row for row in report_a["mc-amc-rtb-dm"].per_task}
assert (rows_a[1]["R_LO"], rows_a[1]["R_switch"], rows_a[2]["R_LO"]) == (3, 6, 6)
assert report_a["mc-smc-dm"].evidence["failing_term"] == "(3): R ≥ 7 > D = 6"

# %% [markdown]
# The schedules, with τ1's first job overrunning (it runs its C(HI) = 5): τ0 runs [0, 1), τ1 from
# 1; at t = 3 τ1 has run its C(LO) = 2 without completing — **the switch**. Under SMC the LO jobs
# carry on: τ2's job waits (it is below τ1) but τ0's job released at 4 preempts τ1, which still has
# 1 tick to run at its deadline 6: **a proven miss**. Under AMC, τ2's pending job is *dropped* at
# the switch (grey cross) and τ0's arrival at 4 is skipped (grey hollow arrow): τ1 runs [3, 6) and
# completes exactly at its deadline — the value AMC-rtb computed, attained.

# %%
runs_a = {
    policy: simulate_mc(A, policy=policy, scenario="explicit", overruns=[(1, 0)], escalate=True, horizon=8, record=True)
    for policy in ("smc", "amc")
}
for policy, run in runs_a.items():
    print(policy.upper(), run)
smc_run, amc_run = runs_a["smc"], runs_a["amc"]
assert smc_run.switch_time == 3 == amc_run.switch_time
assert smc_run.miss is not None and (smc_run.miss.task, smc_run.miss.time, smc_run.miss.remaining) == (1, 6, 1)
assert amc_run.miss is None and amc_run.response_hi[1] == 6
assert [(d.task, d.time, d.remaining) for d in amc_run.dropped] == [(2, 3, 2)]
assert switch_search(A, policy="amc").failure is None  # every switch instant of the hyperperiod

fig, axes = plt.subplots(2, 1, figsize=(8, 5.2), sharex=True)
for ax, policy in zip(axes, ("smc", "amc"), strict=True):
    title = "SMC: LO jobs kept after the switch, τ1 misses at 6" if policy == "smc" else "AMC: τ2 dropped at the switch"
    plot_mc_gantt(runs_a[policy], ax=ax, until=8, title=title)
show(fig, "lab8_smc_vs_amc_gantt")

# %% [markdown]
# ## Worked example 3: AMC-max against AMC-rtb
#
# Set S, DM priorities τ0 > τ1 > τ2:
#
# | task | level | C(LO) | C(HI) | D | T |
# |---|---|---|---|---|---|
# | τ0 | HI | 1 | 2 | 4 | 4 |
# | τ1 | LO | 1 | — | 5 | 5 |
# | τ2 | HI | 6 | 8 | 20 | 20 |
#
# τ2 in LO mode (4): R = 6 + ⌈R/4⌉ + ⌈R/5⌉ gives 8, 10, 11, 12, 12: R2^LO = 12. **AMC-rtb** (7)
# charges *both* worst cases at once: the ⌈12/5⌉ = 3 jobs of τ1 that can arrive before the switch,
# and *every* job of τ0 at C(HI) = 2: R = 8 + 3 + ⌈R/4⌉·2 gives 13, 19, 21 > 20 — fails. But if the
# switch happens at s, the jobs of τ0 released well before s ran in LO mode (C(LO) = 1) and the LO
# jobs released after s never run. **AMC-max** bounds τ2's response for each s ∈ {0, 5, 10} (the
# releases of τ1 below R2^LO) with
# I_L(s) = (⌊s/5⌋ + 1)·1 and, for τ0 (T = D), M(s, t) = min(⌈(t − s)/4⌉ + 1, ⌈t/4⌉) jobs at C(HI),
# the others at C(LO): R(s) = 8 + I_L(s) + 2·M + 1·(⌈t/4⌉ − M). For s = 5: I_L = 2, and from t = 5 the
# iteration gives 13, 17, 19, 20, 20. For s = 0: 19; for s = 10: 20. R2* = 20 ≤ 20: **accepted**.

# %%
S = MCTaskSet([MCTask.hi(1, 2, T=4), MCTask.lo(1, T=5), MCTask.hi(6, 8, T=20)], name="set S")
report_s = rtsched.check(S, 1, tests=["mc-smc-dm", "mc-amc-rtb-dm", "mc-amc-max-dm", "mc-amc-rtb-opa"])
print(report_s)
print(report_s["mc-amc-max-dm"].text(steps=True))
assert [report_s[n].verdict for n in ("mc-smc-dm", "mc-amc-rtb-dm", "mc-amc-max-dm")] == [False, False, True]
rtb_s, max_s = per_task(S, [0, 1, 2], "amc-rtb")[2], per_task(S, [0, 1, 2], "amc-max")[2]
assert (rtb_s.R_lo, rtb_s.R_hi, max_s.R_hi, max_s.s) == (12, 21, 20, 5)
assert amc2011.switch_instants(S, [0, 1], 12) == [0, 5, 10]


def ceil_div(a, b):
    return -(-a // b)


def r_of_s(s):
    """AMC-max's R2(s) by hand: iterate t = 8 + I_L(s) + I_H(s, t) from t = s to its fixed point."""
    t = s
    while True:
        M = min(ceil_div(t - s, 4) + 1, ceil_div(t, 4))  # τ0's jobs that may run at C(HI)
        value = 8 + (s // 5 + 1) * 1 + 2 * M + 1 * (ceil_div(t, 4) - M)
        if value == t:
            return t
        t = value


by_s = {s: r_of_s(s) for s in (0, 5, 10)}
assert by_s == {0: 19, 5: 20, 10: 20}
assert amc2011.amc_max_response(S, 2, [0, 1], 12) == (max(by_s.values()), True, 5)  # the first worst s
search_s = switch_search(S, policy="amc", stop_at_failure=False)
print(search_s, "— largest HI-mode response of τ2 observed:", search_s.response_hi[2])
assert search_s.failure is None and search_s.response_hi[2] == 16 < 20

# %% [markdown]
# AMC-max is still a bound: the worst switch the simulator found gives τ2 a response of 16, not 20
# (AMC-max need not be attained; the analyses are sufficient). And Audsley's algorithm cannot
# rescue AMC-rtb here (`mc-amc-rtb-opa` is "not proven", exercise 2): a better *test* is what
# helps, not a better order.
#
# ## Worked example 4: EDF-VD's virtual deadlines by hand
#
# Set E, implicit deadlines: τ0 LO (C = 2, T = 10), τ1 HI (C(LO) = 4, C(HI) = 14, T = 15).
#
# U_LL = 2/10 = 1/5, U_HL = 4/15, U_HH = 14/15. Plain EDF is not proven: U_LL + U_HH = 17/15 > 1.
# EDF-VD: x = U_HL/(1 − U_LL) = (4/15)/(4/5) = **1/3**; τ1's virtual deadline is x·T = 5.
# LO mode: U_LL + U_HL/x = 1/5 + 4/5 = 1 ≤ 1; HI mode: x·U_LL + U_HH = 1/15 + 14/15 = 1 ≤ 1:
# **schedulable**, with no slack at all.

# %%
E = MCTaskSet([MCTask.lo(2, T=10), MCTask.hi(4, 14, T=15)], name="set E")
U_LL, U_HL, U_HH = E.U_LL, E.U_HL, E.U_HH
assert (U_LL, U_HL, U_HH) == (Fraction(1, 5), Fraction(4, 15), Fraction(14, 15))
x = U_HL / (1 - U_LL)
assert x == Fraction(1, 3) and U_LL + U_HH > 1
assert U_LL + U_HL / x == 1 and x * U_LL + U_HH == 1
virtual_deadline = x * E[1].T
assert virtual_deadline == 5
print(f"U_LL = {U_LL}, U_HL = {U_HL}, U_HH = {U_HH}; x = {x}; τ1's virtual deadline x·T = {virtual_deadline}")
edf_vd_e = rtsched.check(E, 1, tests=["mc-edf-vd"])["mc-edf-vd"]  # the library's EDF-VD, the same closed form
print(edf_vd_e.text(steps=True))
assert edf_vd_e.verdict is True and edf_vd_e.evidence["x"] == x
assert edf_vd_e.evidence["virtual_deadlines"] == (10, 5)  # LO tasks keep D = T

# %% [markdown]
# The simulator, with τ1's first job overrunning. **Plain EDF** (x = 1): τ0's deadline 10 comes
# before τ1's 15, τ0 runs [0, 2), τ1 reaches C(LO) at 6 and needs 10 more ticks: 16 > 15, a
# **proven** miss. **EDF-VD**: τ1's virtual deadline 5 puts it first, it overruns at 4 — τ0's
# pending job is dropped — and completes at 14 ≤ 15. Every switch instant passes (observed);
# the condition above is the proof.

# %%
runs_e = {
    "edf": simulate_mc(
        E, scheduler="edf", scenario="explicit", overruns=[(1, 0)], escalate=True, horizon=15, record=True
    ),
    "edf-vd": simulate_mc(
        E, scheduler="edf-vd", x=x, scenario="explicit", overruns=[(1, 0)], escalate=True, horizon=15, record=True
    ),
}
for name, run in runs_e.items():
    print(f"{name:<7}", run)
assert runs_e["edf"].miss is not None and (runs_e["edf"].miss.task, runs_e["edf"].miss.remaining) == (1, 1)
assert runs_e["edf-vd"].miss is None and runs_e["edf-vd"].response_hi[1] == 14
assert [(d.task, d.time) for d in runs_e["edf-vd"].dropped] == [(0, 4)]
assert switch_search(E, scheduler="edf-vd", x=x).failure is None
assert switch_search(E, scheduler="edf").failure is not None

fig, axes = plt.subplots(2, 1, figsize=(8, 4.4), sharex=True)
plot_mc_gantt(runs_e["edf"], ax=axes[0], until=15, title="plain EDF (x = 1): τ1 misses at 15")
plot_mc_gantt(runs_e["edf-vd"], ax=axes[1], until=15, title="EDF-VD, x = 1/3: τ1's LO-mode deadline is 5")
show(fig, "lab8_edf_vs_edfvd_gantt")

# %% [markdown]
# ## Worked example 5: the dominance chain on random sets
#
# The chain SMC-no ⇒ SMC ⇒ AMC-rtb ⇒ AMC-max (Baruah, Burns & Davis, RTSS 2011) on sets drawn as
# in that paper's experiments (`rtsched.generators.mc.mc_tasksets`: UUniFast, criticality
# probability CP = 0.5, criticality factor CF = 2; here 5 tasks, LO-mode utilization 0.8, periods
# 10–100 so that the numbers stay small). Every set a test accepts, the next one accepts too.

# %%
size = 50 if SMALL else 300
sets = mc_tasksets(
    np.random.default_rng(8), n=5, utilization=0.8, size=size, cp=0.5, cf=2.0, periods="log-uniform:10:100"
)
chain = ["mc-smc-no-dm", "mc-smc-dm", "mc-amc-rtb-dm", "mc-amc-max-dm"]
accepted = {name: {k for k, ts in enumerate(sets) if analyses.get(name).reference(ts, 1)} for name in chain}
for name in chain:
    print(f"{name:<14} accepts {len(accepted[name]):>3} of {size}")
for weaker, stronger in zip(chain, chain[1:], strict=False):
    assert accepted[weaker] <= accepted[stronger]
assert accepted["mc-smc-no-dm"] == accepted["mc-smc-dm"]  # no HI budget for LO tasks in rtsched's model
assert len(accepted["mc-amc-rtb-dm"]) > len(accepted["mc-smc-dm"])

# %% [markdown]
# ## Exercises
#
# **Exercise 1 (response times by hand).** Set X, DM priorities τ0 > τ1 > τ2: τ0 HI (C(LO) = 1,
# C(HI) = 2, D = T = 4), τ1 LO (C = 1, D = 4, T = 5), τ2 HI (C(LO) = 3, C(HI) = 5, D = T = 15).
# Compute τ2's LO-mode response time (4), its AMC-rtb bound (7) and its SMC response time (3).
# Which tests accept the set? Check with `rtsched.check` and with `switch_search` under SMC.

# %% tags=["solution"]
# Exercise 1: R_LO, AMC-rtb and SMC for τ2, checked
X = MCTaskSet([MCTask.hi(1, 2, T=4), MCTask.lo(1, T=5, D=4), MCTask.hi(3, 5, T=15)], name="set X")
rx = per_task(X, [0, 1, 2], "amc-rtb")[2]
sx = per_task(X, [0, 1, 2], "smc")[2]
assert (rx.R_lo, rx.R_hi, sx.R_hi) == (7, 15, 16)
report_x = rtsched.check(X, 1, tests=["mc-smc-dm", "mc-amc-rtb-dm", "mc-amc-max-dm"])
print(report_x)
assert [report_x[n].verdict for n in ("mc-smc-dm", "mc-amc-rtb-dm", "mc-amc-max-dm")] == [False, True, True]
smc_x = switch_search(X, policy="smc")
print("SMC:", smc_x)
assert smc_x.failure is not None and smc_x.failure.miss.task == 2

# %% [markdown] tags=["solution"]
# **Solution 1.** LO mode (4): R = 3 + ⌈R/4⌉·1 + ⌈R/5⌉·1: 3 + 1 + 1 = 5, then 3 + 2 + 1 = 6, then
# 3 + 2 + 2 = 7, then 7: R2^LO = 7 ≤ 15. AMC-rtb (7): the LO part is ⌈7/5⌉·1 = 2, so
# R = 5 + 2 + ⌈R/4⌉·2: 9, 13, 15, 15: R2* = 15 ≤ 15 (τ0 passes with R^LO = 1 and R* = 2, τ1 with
# R^LO = 2). SMC (3): R = 5 + ⌈R/5⌉·1 + ⌈R/4⌉·2: 8, 11, 14, 16 > 15 — fails. So AMC-rtb and AMC-max
# accept, SMC does not. Under SMC the simulator finds a switch after which τ2 misses: a proof that
# SMC's run-time behaviour (LO jobs kept) fails X, not only its test.

# %% [markdown]
# **Exercise 2 (Audsley's algorithm by hand).** Run Audsley's algorithm for AMC-rtb on set S of
# worked example 3: for each task, can it take the lowest priority? Is there *any* priority
# order under which AMC-rtb accepts S? What does this say about AMC-max's acceptance of S with DM?

# %% tags=["solution"]
# Exercise 2: who fits at the lowest priority under AMC-rtb?
for k in range(S.n):
    above = [i for i in range(S.n) if i != k]
    r = amc2011.task_test(S, k, above, "amc-rtb")
    print(f"{S.label(k)} lowest: R_LO = {r.R_lo}, R_HI = {r.R_hi}, fits = {r.ok}")
    assert not r.ok
assert amc2011.assign_opa(S, "amc-rtb") is None and report_s["mc-amc-rtb-opa"].verdict is False

# %% [markdown] tags=["solution"]
# **Solution 2.** τ2 at the bottom fails AMC-rtb (21 > 20, worked example 3). τ1 at the bottom
# (LO, only (4)): R = 1 + ⌈R/4⌉·1 + ⌈R/20⌉·6 starts at 1 + 1 + 6 = 8 > 5. τ0 at the bottom:
# R^LO = 1 + ⌈R/5⌉·1 + ⌈R/20⌉·6 starts at 8 > 4 (the library prints the next iterate, 9). No task fits at the lowest level, so Audsley's algorithm stops: **no** order
# passes AMC-rtb (Audsley's algorithm is optimal for it). AMC-max accepts S with DM: the
# improvement comes from the tighter analysis of the switch instant, not from the priorities.

# %% [markdown]
# **Exercise 3 (EDF-VD by hand).** Set F, implicit deadlines: τ0 LO (C = 4, T = 12), τ1 HI
# (C(LO) = 1, C(HI) = 3, T = 6), τ2 HI (C(LO) = 2, C(HI) = 4, T = 12). Compute U_LL, U_HL, U_HH,
# EDF-VD's x, both modes' conditions and the virtual deadlines. Which values of x would work at
# all? Does plain EDF fail in `switch_search`? What is proven?

# %% tags=["solution"]
# Exercise 3: EDF-VD's x and the virtual deadlines, checked by the simulator
F = MCTaskSet([MCTask.lo(4, T=12), MCTask.hi(1, 3, T=6), MCTask.hi(2, 4, T=12)], name="set F")
assert (F.U_LL, F.U_HL, F.U_HH) == (Fraction(1, 3), Fraction(1, 3), Fraction(5, 6))
x_f = F.U_HL / (1 - F.U_LL)
assert x_f == Fraction(1, 2) and x_f * F.U_LL + F.U_HH == 1
x_max = (1 - F.U_HH) / F.U_LL  # the largest x the HI-mode condition allows
assert x_max == x_f  # exactly one x works
print("x =", x_f, "virtual deadlines:", [x_f * t.T for t in F if t.is_hi])
assert [x_f * t.T for t in F if t.is_hi] == [3, 6]
edf_vd_f = rtsched.check(F, 1, tests=["mc-edf-vd"])["mc-edf-vd"]
print(edf_vd_f.text(steps=True))
assert edf_vd_f.verdict is True and edf_vd_f.evidence["x"] == x_f and edf_vd_f.evidence["hi_lhs"] == 1
assert switch_search(F, scheduler="edf-vd", x=x_f, stop_at_failure=False).failure is None
plain = switch_search(F, scheduler="edf", stop_at_failure=False)
print("plain EDF:", plain)
assert plain.failure is None  # observed only: no analysis here proves plain EDF

# %% [markdown] tags=["solution"]
# **Solution 3.** U_LL = 4/12 = 1/3, U_HL = 1/6 + 2/12 = 1/3, U_HH = 3/6 + 4/12 = 5/6;
# U_LL + U_HH = 7/6 > 1, so plain EDF is not proven. x = (1/3)/(1 − 1/3) = 1/2: virtual deadlines
# 3 for τ1 and 6 for τ2. LO mode: U_LL + U_HL/x = 1/3 + 2/3 = 1 ≤ 1; HI mode: x·U_LL + U_HH =
# 1/6 + 5/6 = 1 ≤ 1: schedulable by EDF-VD (proven). Any x ≥ U_HL/(1 − U_LL) = 1/2 satisfies the
# LO-mode condition and any x ≤ (1 − U_HH)/U_LL = 1/2 the HI-mode one: x = 1/2 is the only factor.
# Plain EDF passes every switch instant of the simulation too, but that is **observed, not
# proven**: one release pattern, one overrun per run.

# %% [markdown]
# **Exercise 4 (is the bound attained?).** Set V of worked example 1 under AMC with DM priorities:
# which of `mc-smc-dm`, `mc-amc-rtb-dm`, `mc-amc-max-dm` accept it? Compare τ2's AMC-rtb bound with
# the largest HI-mode response time `switch_search` observes. Then raise τ2's C(HI) to 5: is the
# DM verdict confirmed by a simulated miss? Does another priority order help, under SMC or AMC?

# %% tags=["solution"]
# Exercise 4: set V under AMC, and with C(HI) = 5
report_v_amc = rtsched.check(V, 1, tests=["mc-smc-dm", "mc-amc-rtb-dm", "mc-amc-max-dm"])
print(report_v_amc)
assert [report_v_amc[n].verdict for n in ("mc-smc-dm", "mc-amc-rtb-dm", "mc-amc-max-dm")] == [False, True, True]
rtb_v = per_task(V, dm, "amc-rtb")[2]
search_v = switch_search(V, policy="amc", stop_at_failure=False)
print(f"AMC-rtb R2* = {rtb_v.R_hi}; observed worst HI-mode response = {search_v.response_hi[2]}")
assert rtb_v.R_hi == search_v.response_hi[2] == 6
V5 = MCTaskSet([V[0], V[1], MCTask.hi(2, 5, T=6, D=6)], name="V with C2(HI) = 5")
report_v5 = rtsched.check(V5, 1, tests=["mc-smc-opa", "mc-amc-rtb-dm", "mc-amc-max-dm", "mc-amc-rtb-opa"])
print(report_v5)
verdicts_v5 = [report_v5[n].verdict for n in ("mc-smc-opa", "mc-amc-rtb-dm", "mc-amc-max-dm", "mc-amc-rtb-opa")]
assert verdicts_v5 == [False, False, False, True]
assert per_task(V5, dm, "amc-rtb")[2].R_hi == 7 and amc2011.assign_opa(V5, "amc-rtb") == [0, 2, 1]
miss_v5 = switch_search(V5, policy="amc")  # DM priorities
print("AMC, DM:", miss_v5)
assert miss_v5.failure is not None and miss_v5.failure.miss.task == 2 and miss_v5.failure.switch_time == 4
print("AMC, τ0 > τ2 > τ1:", switch_search(V5, policy="amc", priorities=[0, 2, 1]))

# %% [markdown] tags=["solution"]
# **Solution 4.** SMC rejects V with DM (worked example 1), AMC-rtb and AMC-max accept it: τ2's
# R^LO = 2 + ⌈R/4⌉ + ⌈R/5⌉ = 4, and AMC-rtb gives 4 + ⌈4/4⌉·1 + ⌈4/5⌉·1 = 6 ≤ 6. The simulator
# attains 6: a switch at τ2's first job, at t = 4 (after τ0 and τ1 ran once), and τ2 runs its two
# extra ticks to complete at 6 — here AMC-rtb is exact. With C(HI) = 5, AMC-rtb gives
# 5 + 1 + 1 = 7 > 6 in DM order (AMC-max too), and the same switch is a real miss (1 tick left
# at 6): **proven** unschedulable with DM priorities. SMC accepts no order, but AMC-rtb with
# Audsley's order τ0 > τ2 > τ1 does: τ2 below τ0 only, R^LO = 2 + 1 = 3 and R* = 5 + ⌈3/4⌉·1 = 6;
# τ1 at the bottom, R^LO = 1 + ⌈R/4⌉ + ⌈R/6⌉·2 = 4 ≤ 5. Under AMC too, the best order follows
# neither the deadlines nor the criticalities.

# %% [markdown]
# ## Things to try
#
# * `simulate_mc(A, policy="amc", scenario="explicit", overruns=[(1, 0)], escalate=True,
#   return_to_lo="idle", horizon=40, record=True)`: the system returns to LO mode at the first idle
#   instant. How many LO jobs are lost now, against `return_to_lo="never"` (the analyses' model)?
# * `scenario="random"` with `arrivals="sporadic"` and a few seeds on sets X and S: does any run
#   come closer to the bounds than `switch_search`?
# * Repeat worked example 5 with the `-opa` analyses and with `cf=1.5` and `cf=3`: how do the gaps
#   between SMC, AMC-rtb and AMC-max change with the criticality factor?
# * `rtsched exercise --topic mc --seed <your id>`: a mixed-criticality exercise sheet with its
#   answer key.
