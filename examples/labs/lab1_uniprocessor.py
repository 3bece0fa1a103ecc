# %% [markdown]
# # Lab 1 — Uniprocessor scheduling: utilization bounds, demand, QPA and response times
#
# **Estimated time:** 75 minutes (25 reading and running the worked example, 50 for the four
# exercises). **Prerequisites:** Python, the sporadic task model τᵢ = (Cᵢ, Dᵢ, Tᵢ).
#
# **Learning goals.** After this lab you can
# 1. apply the Liu & Layland and hyperbolic bounds and say why they are only *sufficient*;
# 2. compute a task's demand bound function and the processor demand h(t), and decide EDF
#    schedulability with the processor-demand criterion and with QPA, step by step;
# 3. compute fixed-priority response times with the RTA recurrence;
# 4. read rtsched's verdicts and evidence (`rtsched.check`, `report[name].evidence`) and check
#    a hand computation against them.
#
# Run it top to bottom in Jupyter, or as a script: `python examples/labs/lab1_uniprocessor.py`
# (figures go to `$RTSCHED_LAB_OUT`, default `lab-figures/`).

# %%
from fractions import Fraction
from math import ceil

import matplotlib.pyplot as plt
from _labkit import show  # figures to $RTSCHED_LAB_OUT (build.py inlines the kit into the notebook)

import rtsched
from rtsched import analyses

# %% [markdown]
# ## Background
#
# A task τᵢ = (Cᵢ, Dᵢ, Tᵢ) releases jobs at least Tᵢ apart; each job needs up to Cᵢ units of
# processor time within Dᵢ of its release. Utilization Uᵢ = Cᵢ/Tᵢ, U = Σ Uᵢ. Time is integer.
# Constrained deadlines: Cᵢ ≤ Dᵢ ≤ Tᵢ; implicit: Dᵢ = Tᵢ.
#
# **Utilization bounds for rate-monotonic priorities** (implicit deadlines, shorter period =
# higher priority). Liu & Layland (JACM 20(1), 1973, Thm. 5): schedulable if
# $$U \le n\,(2^{1/n} - 1).$$
# The hyperbolic bound (Bini, Buttazzo & Buttazzo, IEEE TC 52(7), 2003): schedulable if
# $$\prod_i (U_i + 1) \le 2.$$
# Both are sufficient, not necessary. For EDF with implicit deadlines, U ≤ 1 is exact
# (Liu & Layland 1973, Thm. 7).
#
# **Demand bound function and processor demand** (Baruah, Rosier & Howell, Real-Time Systems
# 2(4), 1990). The most execution that jobs of τᵢ with release *and* deadline inside any window
# of length t can require is
# $$\mathrm{dbf}_i(t) = \max\left(0, \left\lfloor \frac{t - D_i}{T_i} \right\rfloor + 1\right) C_i,
# \qquad h(t) = \sum_i \mathrm{dbf}_i(t).$$
# A set is EDF-schedulable on one processor **iff** U ≤ 1 and h(t) ≤ t for every t > 0. Only
# absolute deadlines t = kTᵢ + Dᵢ below a bound L need checking: L = min(Lₐ, L_b) with
# $$L_a = \max\left(\max_i (D_i - T_i),\ \frac{\sum_i (T_i - D_i) U_i}{1 - U}\right)\quad (U < 1)$$
# (George, Rivierre & Spuri 1996) and L_b the synchronous busy period, the least fixed point of
# $w = \sum_i \lceil w / T_i \rceil C_i$.
#
# **QPA** (Zhang & Burns, IEEE TC 58(9), 2009, Thm. 5) walks *down* from L instead of up:
#
# ```
# t ← the largest absolute deadline < L
# while h(t) ≤ t and h(t) > d_min:
#     if h(t) < t: t ← h(t)                  # no violation can lie in [h(t), t]
#     else:        t ← the largest deadline < t
# schedulable iff h(t) ≤ d_min                # d_min = min Dᵢ
# ```
#
# **Response-time analysis for fixed priorities** (Joseph & Pandya, The Computer Journal
# 29(5), 1986). With tasks in priority order (τ₀ highest), the worst-case response time of τᵢ is
# the least fixed point of
# $$R_i = C_i + \sum_{j < i} \left\lceil \frac{R_i}{T_j} \right\rceil C_j,$$
# iterated from Rᵢ = Cᵢ; the set is schedulable iff Rᵢ ≤ Dᵢ for all i (exact for constrained
# deadlines). In rtsched the priority order is the order of the tasks.
#
# rtsched's analyses: `rm-ll`, `rm-hb` (sufficient, fixed priority), `uni-rta` (exact, fixed
# priority), `uni-pda` and `uni-qpa` (exact, EDF). Each cites its paper: `rtsched list`, or
# `analyses.get(name).citation`; the notes are in `papers/` (`liu-layland1973.md`,
# `joseph-pandya1986-rta.md`, `zhang-burns2009-qpa.md`).

# %% [markdown]
# ## Worked example 1: utilization bounds are sufficient only
#
# Set A, implicit deadlines, rate-monotonic order: τ₀ = (1, 4, 4), τ₁ = (2, 6, 6), τ₂ = (3, 12, 12).

# %%
set_a = rtsched.TaskSet.from_tasks([(1, 4, 4), (2, 6, 6), (3, 12, 12)])
report_a = rtsched.check(set_a, 1, tests=["rm-ll", "rm-hb", "uni-rta"])
print(report_a)
n = set_a.n
print(f"\nU = {set_a.utilization} ≈ {float(set_a.utilization):.4f};  n(2^(1/n) - 1) ≈ {n * (2 ** (1 / n) - 1):.4f}")
product = 1
for C, _D, T in set_a.rows():
    product *= Fraction(C, T) + 1
print(f"Π(U_i + 1) = {product} ≈ {float(product):.4f} > 2")
assert report_a["rm-hb"].evidence["product"] == product  # the library's number, exactly

# %% [markdown]
# Both bounds say "not proven", yet RTA proves every deadline met. The recurrence by hand,
# checked against the library's per-task response times:


# %%
def response_time(tasks, i, verbose=False):
    """Least fixed point of R = C_i + Σ_{j<i} ⌈R/T_j⌉ C_j, or None once R exceeds D_i."""
    C, D, _T = tasks[i]
    R = C
    while True:
        nxt = C + sum(ceil(R / Tj) * Cj for Cj, _Dj, Tj in tasks[:i])
        if verbose:
            print(f"  R = {R:>3} -> {nxt}")
        if nxt == R:
            return R
        if nxt > D:
            return None
        R = nxt


rows = set_a.rows()
for i, library in enumerate(report_a["uni-rta"].per_task):
    print(f"τ{i}:")
    R = response_time(rows, i, verbose=True)
    print(f"  R_{i} = {R} ≤ D = {rows[i][1]};  library: {library['response_time']}")
    assert R == library["response_time"]

# %% [markdown]
# ## Worked example 2: EDF with constrained deadlines, QPA step by step
#
# Set B: τ₀ = (2, 3, 4), τ₁ = (2, 4, 6), τ₂ = (1, 6, 10). U = 14/15 < 1, but the density
# Σ Cᵢ/Dᵢ = 4/3 > 1, so the simple density test fails: we need the demand.

# %%
set_b = rtsched.TaskSet.from_tasks([(2, 3, 4), (2, 4, 6), (1, 6, 10)])


def dbf(C, D, T, t):
    """Demand bound function of one task (Baruah, Rosier & Howell 1990)."""
    return max(0, (t - D) // T + 1) * C


def h(tasks, t):
    """Processor demand h(t) = Σ dbf_i(t)."""
    return sum(dbf(C, D, T, t) for C, D, T in tasks)


def busy_period(tasks):
    """L_b: least fixed point of w = Σ ⌈w/T_i⌉ C_i, from w = Σ C_i (needs U ≤ 1)."""
    w = sum(C for C, _D, _T in tasks)
    while True:
        nxt = sum(ceil(w / T) * C for C, _D, T in tasks)
        if nxt == w:
            return w
        w = nxt


def bound_La(tasks):
    """L_a of George, Rivierre & Spuri (U < 1)."""
    U = sum(Fraction(C, T) for C, _D, T in tasks)
    slack = sum((T - D) * Fraction(C, T) for C, D, T in tasks)
    return max(max(D - T for _C, D, T in tasks), slack / (1 - U))


def deadlines_below(tasks, limit):
    """Every absolute deadline k·T_i + D_i < limit, increasing."""
    return sorted({D + k * T for _C, D, T in tasks for k in range(max(0, ceil((limit - D) / T)))})


def qpa_steps(tasks):
    """QPA's (t, h(t)) sequence and its verdict (Zhang & Burns 2009)."""
    L = min(bound_La(tasks), busy_period(tasks))
    deadlines = deadlines_below(tasks, L)
    d_min = min(D for _C, D, _T in tasks)
    t, steps = deadlines[-1], []
    while True:
        steps.append((t, h(tasks, t)))
        ht = steps[-1][1]
        if not (ht <= t and ht > d_min):
            return steps, ht <= d_min
        t = ht if ht < t else max(d for d in deadlines if d < t)


rows_b = set_b.rows()
La, Lb = bound_La(rows_b), busy_period(rows_b)
print(f"L_a = {La}, L_b = {Lb}, L = {min(La, Lb)}")
steps, verdict = qpa_steps(rows_b)
for k, (t, ht) in enumerate(steps, start=1):
    action = "h(t) ≤ d_min: stop" if ht <= min(D for _C, D, _T in rows_b) else ("h(t) < t: jump to h(t)" if ht < t else "h(t) = t: previous deadline")
    print(f"step {k}: t = {t:>2}, h(t) = {ht:>2}   {action}")
print("QPA (by hand):", "schedulable" if verdict else "NOT schedulable")

report_b = rtsched.check(set_b, 1, tests=["uni-pda", "uni-qpa", "uni-rta"])
print(report_b)
pda = report_b["uni-pda"].evidence
assert (pda["La"], pda["Lb"], pda["L"]) == (La, Lb, min(La, Lb))  # the library's bounds
assert verdict == report_b["uni-qpa"].verdict

# %% [markdown]
# QPA visited 8 points. Set B is tiny — only 6 absolute deadlines lie below L = 12, so walking
# up through all of them costs no more. QPA pays off when L is large: each jump t ← h(t) skips
# every deadline in between (see "Things to try"). Note the last line of the table: **EDF schedules set B but deadline-monotonic fixed priority does not** (τ₂'s response
# time is 11 > 6): EDF is optimal on one processor, fixed priority is not.
#
# The figure: h(t) (a staircase, one step per absolute deadline) against the line t, and the
# points QPA visited, in order.

# %%
fig, (ax_b, ax_c) = plt.subplots(1, 2, figsize=(11, 4.2))
ts_grid = range(0, 25)
ax_b.step(ts_grid, [h(rows_b, t) for t in ts_grid], where="post", label="h(t) = Σ dbf_i(t)")
ax_b.plot([0, 24], [0, 24], "k--", lw=1, label="t (supply of one processor)")
ax_b.axvline(float(min(La, Lb)), color="0.5", lw=1, ls=":", label=f"L = {min(La, Lb)}")
xs, ys = zip(*steps, strict=True)
ax_b.plot(xs, ys, "o-", color="tab:red", ms=5, lw=1, label="QPA steps")
for k, (t, ht) in enumerate(steps, start=1):
    ax_b.annotate(str(k), (t, ht), textcoords="offset points", xytext=(4, -11), fontsize=8, color="tab:red")
ax_b.set(title="Set B: EDF-schedulable, QPA walks down from L", xlabel="t", ylabel="demand")
ax_b.legend(fontsize=8)

set_c = [(2, 4, 6), (3, 8, 10), (4, 9, 12)]  # exercise 3's set: the figure shows where h(t) crosses t
ax_c.step(range(0, 40), [h(set_c, t) for t in range(0, 40)], where="post", label="h(t)")
ax_c.plot([0, 39], [0, 39], "k--", lw=1, label="t")
ax_c.set(title="Set C: h(t) > t somewhere (see exercise 3)", xlabel="t", ylabel="demand")
ax_c.legend(fontsize=8)
show(fig, "lab1_dbf_qpa")

# %% [markdown]
# ## Exercises
#
# **Exercise 1 (bounds).** τ₀ = (1, 2, 2), τ₁ = (1, 3, 3), rate-monotonic. By hand: U, the
# Liu & Layland bound, the hyperbolic product, the response times. Which of `rm-ll`, `rm-hb`,
# `uni-rta` accept? Check with `rtsched.check`.

# %% tags=["solution"]
# Exercise 1: check your hand computation
ex1 = rtsched.TaskSet.from_tasks([(1, 2, 2), (1, 3, 3)])
print(rtsched.check(ex1, 1, tests=["rm-ll", "rm-hb", "uni-rta"]))
print([response_time(ex1.rows(), i, verbose=True) for i in range(ex1.n)])

# %% [markdown] tags=["solution"]
# **Solution 1.** U = 1/2 + 1/3 = 5/6 ≈ 0.833 > 2(√2 − 1) ≈ 0.828: Liu & Layland fails.
# (1 + 1/2)(1 + 1/3) = 2 ≤ 2: the hyperbolic bound accepts — it dominates Liu & Layland.
# RTA: R₀ = 1; R₁: 1 → 1 + ⌈1/2⌉ = 2 → 1 + ⌈2/2⌉ = 2, fixed point 2 ≤ 3. Schedulable.

# %% [markdown]
# **Exercise 2 (RTA).** Set B in deadline-monotonic order (it already is). Iterate the
# recurrence for τ₂ by hand and find where it exceeds D₂ = 6. Compare with the `uni-rta`
# evidence.

# %% tags=["solution"]
# Exercise 2: the iterations for τ2 and the library's explanation
print(response_time(rows_b, 2, verbose=True))
print(report_b["uni-rta"])

# %% [markdown] tags=["solution"]
# **Solution 2.** R₂: 1 → 1 + ⌈1/4⌉·2 + ⌈1/6⌉·2 = 5 → 1 + 2·2 + 1·2 = 7 > 6: τ₂ misses under
# DM (iterating on, the fixed point is 11). rtsched stops at the same point: "τ2 misses: at
# R = 5, C + Σ⌈R/T_i⌉·C_i = 1 + 2·2 + 1·2 = 7 > D = 6".

# %% [markdown]
# **Exercise 3 (processor demand).** Set C: τ₀ = (2, 4, 6), τ₁ = (3, 8, 10), τ₂ = (4, 9, 12).
# Compute U, Lₐ, L_b, then h(t) at each absolute deadline below L in increasing order. What is
# the first t with h(t) > t? Compare with `uni-pda` and `uni-qpa`: do they report the same t,
# and why might they not in general?

# %% tags=["solution"]
# Exercise 3: the table, then the library
print("U =", sum(Fraction(C, T) for C, _D, T in set_c), " L_a =", bound_La(set_c), " L_b =", busy_period(set_c))
for t in deadlines_below(set_c, min(bound_La(set_c), busy_period(set_c))):
    print(f"t = {t:>2}: h(t) = {h(set_c, t):>2} {'> t  <- violation' if h(set_c, t) > t else ''}")
report_c = rtsched.check(rtsched.TaskSet.from_tasks(set_c), 1, tests=["uni-pda", "uni-qpa"])
print(report_c)
print(dict(report_c["uni-pda"].evidence))

# %% [markdown] tags=["solution"]
# **Solution 3.** U = 29/30, Lₐ = (34/15)/(1/30) = 68, L_b = 36 (9 → 11 → 14 → 20 → 22 → 25 → 31
# → 36), L = 36. h(4) = 2, h(8) = 5, h(9) = 9, h(10) = 11 > 10: not schedulable, first
# violation t = 10. `uni-pda` walks up and reports the *first* violation; QPA walks down and
# reports *a* violation — here the same t, in general not.

# %% [markdown]
# **Exercise 4 (design).** In set B, how short can τ₂'s deadline D₂ be (C₂ = 1, T₂ = 10) and
# the set stay schedulable under EDF? Under deadline-monotonic priorities? Use
# `analyses.get("uni-qpa").verdict(ts, 1)` and `analyses.get("uni-rta").verdict(ts, 1)` (with the
# tasks sorted by deadline for DM).

# %% tags=["solution"]
# Exercise 4: scan D2
qpa, rta = analyses.get("uni-qpa"), analyses.get("uni-rta")
for D2 in range(1, 11):
    ts = rtsched.TaskSet.from_tasks([(2, 3, 4), (2, 4, 6), (1, D2, 10)])
    dm = rtsched.TaskSet.from_tasks(sorted(ts.rows(), key=lambda task: task[1]))
    print(f"D2 = {D2:>2}: EDF {qpa.verdict(ts, 1)!s:<5}  DM {rta.verdict(dm, 1)}")

# %% [markdown] tags=["solution"]
# **Solution 4.** EDF: D₂ ≥ 5 (at D₂ = 4, h(4) = 2 + 2 + 1 = 5 > 4). DM: none. With D₂ ≥ 4, τ₂
# has the lowest priority and R₂ = 11 (1 → 5 → 7 → 9 → 11) > T₂ = 10 ≥ D₂; with D₂ < 4 it
# overtakes a task that then misses. EDF is optimal on one processor; no fixed priority order is.
#
# ## Things to try
#
# * Make set B implicit (D = T) and compare `rm-ll`, `rm-hb`, `uni-rta` with `uni-qpa`: which
#   utilization does each need?
# * Count QPA's points against the processor-demand test's on larger sets:
#   `report[name].evidence["steps"]` for `uni-qpa` and `uni-pda` (generate sets with
#   `rtsched generate --n 20 --deadlines uniform`).
# * Set U = 1 exactly (e.g. (1, 2, 2), (2, 4, 4)): Lₐ is undefined, only L_b bounds the search.
# * Arbitrary deadlines (D > T): `rtsched.TaskSet.from_tasks(..., deadlines="arbitrary")`; why
#   does Lₐ then need max(Dᵢ − Tᵢ)?
# * Reorder set A's tasks and rerun `uni-rta`: priority order matters (`rtsched.priorities`
#   has deadline-monotonic, rate-monotonic and Audsley's OPA).
