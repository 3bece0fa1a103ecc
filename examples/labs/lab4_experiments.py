# %% [markdown]
# # Lab 4 — Experiment design: generating task sets, confidence intervals, reading a plot
#
# **Estimated time:** 90 minutes (40 for the worked examples, 50 for the four exercises).
# **Prerequisites:** Labs 1–3 (the tests being compared); basic probability (binomial
# distribution, density, histogram).
#
# **Learning goals.** After this lab you can
# 1. explain why normalising independent uniform draws biases a task-set generator, and show it
#    with a histogram against UUniFast's exact distribution;
# 2. choose between UUniFast, UUniFast-Discard and RandFixedSum (total utilization above 1 with
#    a per-task cap);
# 3. put a confidence interval on an acceptance ratio (Wilson, Clopper–Pearson) and choose the
#    number of sets per point;
# 4. read an acceptance-ratio plot — what it claims and what it does not — and make an
#    experiment reproducible from its seed.
#
# Run it in Jupyter, or as a script: `python examples/labs/lab4_experiments.py` (figures go to
# `$RTSCHED_LAB_OUT`, default `lab-figures/`; `RTSCHED_EXAMPLE_SMALL=1` uses fewer samples).

# %%
import math
import tempfile

import matplotlib.pyplot as plt
import numpy as np
from _labkit import SMALL, run_sweep, show
from scipy import stats

import rtsched
from rtsched import check_many, sweep
from rtsched.generators import integer_tasks, randfixedsum, uunifast, uunifast_discard
from rtsched.generators.utilizations import uunifast_loss

SAMPLES = 4000 if SMALL else 40000  # utilization vectors per histogram

# %% [markdown]
# ## Background
#
# An **acceptance-ratio experiment** draws random task sets at each value of a parameter
# (usually the total utilization U, or U/m), runs each test on every set and plots the share of
# sets each test accepts. The curve describes the *test and the generator together*: change the
# distribution of the sets and the curve moves.
#
# **Utilizations with a fixed sum.** We want n task utilizations uᵢ ≥ 0 with Σuᵢ = U, drawn
# *uniformly* from that simplex, so that no region of the space of task sets is over-sampled.
#
# * **Naive:** draw xᵢ uniform in [0, 1] and set uᵢ = U·xᵢ/Σxⱼ. *Not* uniform: balanced vectors
#   are over-represented (Bini & Buttazzo, "Measuring the performance of schedulability tests",
#   Real-Time Systems 30(1–2), 2005).
# * **UUniFast** (same paper): s₀ = U; for i = 1 … n − 1, s_i = s_{i−1}·r_i^{1/(n−i)} with rᵢ
#   uniform in [0, 1], and u_i = s_{i−1} − s_i; u_n = s_{n−1}. Uniform on the simplex, and each
#   uᵢ/U has the Beta(1, n − 1) density
#   $$f(x) = (n-1)(1-x)^{n-2}, \qquad 0 \le x \le 1.$$
# * With U > 1 (multiprocessors), UUniFast may draw uᵢ > 1, which no task can have. The
#   probability that some uᵢ exceeds 1 is, by inclusion–exclusion over the k tasks that do,
#   $$P = \sum_{1 \le k < U} (-1)^{k+1}\binom{n}{k}\left(1-\frac{k}{U}\right)^{n-1}$$
#   (rtsched: `uunifast_loss`). **UUniFast-Discard** (Davis & Burns, RTSS 2009) redraws such
#   vectors: uniform on the simplex cut by the cube [0, 1]ⁿ, but the rejection rate grows fast
#   as U approaches n. **RandFixedSum** (Stafford's algorithm, used for task sets by Emberson,
#   Stafford & Davis, WATERS 2010) samples the same distribution directly, without rejection.
#
# **Confidence intervals.** If k of n sets are accepted, p̂ = k/n estimates the acceptance
# probability p. The Wald interval p̂ ± z·√(p̂(1 − p̂)/n) collapses to a point at k = 0 and k = n —
# the two ends of every curve. Better:
#
# * **Wilson** (E. B. Wilson, JASA 22(158), 1927), the score interval rtsched's sweeps report:
#   $$\frac{\hat p + \frac{z^2}{2n} \pm z\sqrt{\frac{\hat p(1-\hat p)}{n} + \frac{z^2}{4n^2}}}{1 + \frac{z^2}{n}};$$
# * **Clopper–Pearson** (C. J. Clopper & E. S. Pearson, Biometrika 26(4), 1934), "exact":
#   $$\left[B\!\left(\tfrac{\alpha}{2};\,k,\,n-k+1\right),\ B\!\left(1-\tfrac{\alpha}{2};\,k+1,\,n-k\right)\right]$$
#   with B(q; a, b) the q-quantile of the Beta(a, b) distribution (lower end 0 if k = 0, upper
#   1 if k = n). It never under-covers, and is wider than Wilson.
#
# z = 1.96 for 95 %. Notes: `papers/bini-buttazzo2005-uunifast.md`,
# `papers/davis-burns2009-uunifast-discard.md`, `papers/emberson2010-randfixedsum.md`,
# `papers/wilson1927.md`.

# %% [markdown]
# ## Worked example 1: the bias of naive generation
#
# n = 3 tasks, U = 1. A histogram of u₁ from each method against the exact Beta(1, 2) density
# 2(1 − x), and a Kolmogorov–Smirnov test of each sample against it.

# %%
rng = np.random.default_rng(2005)
n, U = 3, 1.0
x = rng.random((SAMPLES, n))
samples = {
    "naive (normalised uniforms)": U * x / x.sum(axis=1, keepdims=True),
    "UUniFast": uunifast(rng, n, U, SAMPLES),
}
exact = stats.beta(1, n - 1, scale=U)
fig, (ax_h, ax_s) = plt.subplots(1, 2, figsize=(11, 4))
grid = np.linspace(0, U, 200)
for label, u in samples.items():
    ax_h.hist(u[:, 0], bins=40, range=(0, U), density=True, histtype="step", lw=1.5, label=label)
    ks = stats.kstest(u[:, 0], exact.cdf)
    print(f"{label:<28} KS distance {ks.statistic:.4f}, p-value {ks.pvalue:.3g}")
ax_h.plot(grid, exact.pdf(grid), "k--", label="exact: 2(1 − x)")
ax_h.set(xlabel="u₁", ylabel="density", title=f"u₁ of n = {n} tasks, U = {U}")
ax_h.legend(fontsize=8)
for (label, u), colour in zip(samples.items(), ("tab:blue", "tab:orange"), strict=True):
    ax_s.scatter(u[:1500, 0], u[:1500, 1], s=2, alpha=0.4, color=colour, label=label)
ax_s.set(xlabel="u₁", ylabel="u₂", title="(u₁, u₂): naive crowds the centre", xlim=(0, 1), ylim=(0, 1))
ax_s.set_aspect("equal")
ax_s.legend(fontsize=8, markerscale=4)
show(fig, "lab4_naive_vs_uunifast")
assert stats.kstest(samples["UUniFast"][:, 0], exact.cdf).pvalue > 0.01
assert stats.kstest(samples["naive (normalised uniforms)"][:, 0], exact.cdf).pvalue < 1e-6

# %% [markdown]
# The naive sample has too few vectors with one large and two small utilizations (the corners
# of the triangle). Does that matter for a test? Same U, same periods, two generators, two
# tests, m = 2: GFB depends on the largest density, partitioned EDF on how well the tasks pack.

# %%
SETS = 100 if SMALL else 1000


def as_tasksets(rng, utilizations):
    """Integer task sets from utilization vectors (log-uniform periods 10–1000, implicit deadlines)."""
    C, D, T = integer_tasks(rng, utilizations, "log-uniform:10:1000", "implicit")
    return [rtsched.TaskSet.from_arrays(C[s], D[s], T[s], deadlines="implicit") for s in range(len(C))]


rng = np.random.default_rng(7)
n, m, U = 5, 2, 1.3
x = rng.random((SETS, n))
generated = {"naive": U * x / x.sum(axis=1, keepdims=True), "UUniFast-Discard": uunifast_discard(rng, n, U, SETS)}
for label, u in generated.items():
    reports = check_many(as_tasksets(rng, u), m, tests=["gfb", "p-edf"])
    ratios = {name: sum(r[name].verdict is True for r in reports) / SETS for name in ("gfb", "p-edf")}
    print(
        f"{label:<17} mean max uᵢ = {u.max(axis=1).mean():.3f};  acceptance gfb {ratios['gfb']:.3f}, p-edf {ratios['p-edf']:.3f}"
    )

# %% [markdown]
# The naive generator makes GFB look much better than it is: its sets rarely have a heavy task,
# and GFB's bound m − (m − 1)·λmax is loose exactly when λmax is large. A comparison of tests
# drawn with a biased generator can reverse their ranking.
#
# ## Worked example 2: U > 1 with a per-task cap
#
# How often does plain UUniFast draw an impossible task (uᵢ > 1)? The formula above against a
# simulation, and UUniFast-Discard's acceptance rate (the same event's complement).

# %%
rng = np.random.default_rng(3)
print(f"{'n':>3} {'U':>5} {'P(some u_i > 1)':>16} {'simulated':>10}")
for n, U in ((3, 1.5), (3, 2.0), (5, 2.0), (5, 3.0), (10, 3.0)):
    drawn = uunifast(rng, n, U, SAMPLES)
    simulated = float(np.mean(drawn.max(axis=1) > 1))
    print(f"{n:>3} {U:>5} {uunifast_loss(n, U):>16.4f} {simulated:>10.4f}")
    assert abs(simulated - uunifast_loss(n, U)) < 4 * math.sqrt(0.25 / SAMPLES)

n, U = 3, 2.2
rfs = randfixedsum(rng, n, U, SAMPLES)
discard = uunifast_discard(rng, n, U, SAMPLES)
print(
    f"n = {n}, U = {U}: UUniFast rejects a share P = {uunifast_loss(n, U):.4f}, i.e. "
    f"{1 / (1 - uunifast_loss(n, U)):.1f} candidates per accepted vector"
)
print(
    f"n = {n}, U = {U}: RandFixedSum vs UUniFast-Discard, two-sample KS p-value "
    f"{stats.ks_2samp(rfs[:, 0], discard[:, 0]).pvalue:.3f}; every u_i ≤ 1: {rfs.max() <= 1 and discard.max() <= 1}"
)

# %% [markdown]
# Both bounded generators sample the same distribution (the KS test finds no difference), but
# UUniFast-Discard draws 1/(1 − P) candidates per accepted vector: with n = 3 and U = 2.2,
# P = 0.868 and that is 7.6; near U = n it becomes impractical (with n = 10 and U = 9, P > 0.999;
# rtsched then stops with an error naming RandFixedSum). Use RandFixedSum (`utilizations =
# "randfixedsum"`) for heavily loaded multiprocessor sets; `examples/utilization_distribution.py`
# draws its marginal against the exact density.
#
# ## Worked example 3: confidence intervals
#
# k = 8 accepted of n = 10: Wilson by hand against `rtsched.sweep.wilson_interval`, and
# Clopper–Pearson from the Beta quantiles.


# %%
def wilson_by_hand(k, n, z=1.959963984540054):
    """Wilson's score interval, written out as in the background."""
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def clopper_pearson(k, n, confidence=0.95):
    """Clopper–Pearson interval from Beta quantiles."""
    alpha = 1 - confidence
    low = 0.0 if k == 0 else stats.beta.ppf(alpha / 2, k, n - k + 1)
    high = 1.0 if k == n else stats.beta.ppf(1 - alpha / 2, k + 1, n - k)
    return float(low), float(high)


def wald(k, n, z=1.959963984540054):
    """The textbook interval (for comparison only)."""
    p = k / n
    half = z * math.sqrt(p * (1 - p) / n)
    return max(0.0, p - half), min(1.0, p + half)


for k, n_sets in ((8, 10), (0, 20), (20, 20), (50, 100)):
    hand, library = wilson_by_hand(k, n_sets), sweep.wilson_interval(k, n_sets)
    assert all(abs(a - b) < 1e-12 for a, b in zip(hand, library, strict=True))
    print(
        f"{k:>3}/{n_sets:<4} Wald [{wald(k, n_sets)[0]:.4f}, {wald(k, n_sets)[1]:.4f}]  "
        f"Wilson [{library[0]:.4f}, {library[1]:.4f}]  Clopper–Pearson "
        f"[{clopper_pearson(k, n_sets)[0]:.4f}, {clopper_pearson(k, n_sets)[1]:.4f}]"
    )

# %% [markdown]
# What "95 %" means: over many repetitions of the experiment, the interval should contain the
# true p at least 95 % of the time. We can compute the coverage exactly for each p (sum the
# binomial probabilities of the k whose interval contains p):

# %%
n_sets = 30
ps = np.linspace(0.01, 0.99, 99 if SMALL else 393)
k_all = np.arange(n_sets + 1)
intervals = {
    name: [f(k, n_sets) for k in k_all]
    for name, f in (("Wald", wald), ("Wilson", wilson_by_hand), ("Clopper–Pearson", clopper_pearson))
}
fig, ax = plt.subplots(figsize=(7, 3.8))
for name, ivs in intervals.items():
    coverage = [
        sum(stats.binom.pmf(k, n_sets, p) for k, (lo, hi) in zip(k_all, ivs, strict=True) if lo <= p <= hi) for p in ps
    ]
    ax.plot(ps, coverage, label=f"{name} (mean {np.mean(coverage):.3f})", lw=1)
ax.axhline(0.95, color="black", ls="--", lw=1)
ax.set(
    xlabel="true acceptance probability p",
    ylabel="coverage",
    ylim=(0.6, 1.0),
    title=f"Coverage of 95 % intervals, n = {n_sets} sets per point",
)
ax.legend(fontsize=8)
show(fig, "lab4_coverage")

# %% [markdown]
# Wald falls far below 95 % near p = 0 and p = 1 — exactly where acceptance curves start and
# end. Clopper–Pearson never drops below 95 % (it is conservative); Wilson oscillates around 95 %
# with a short interval, which is why rtsched's sweeps report it.
#
# ## Worked example 4: reading an acceptance-ratio plot, and reproducibility
#
# An experiment through the sweep API: m = 2, n = 6, RandFixedSum utilizations, log-uniform
# periods 1,000–100,000 ticks, constrained deadlines, seed 1234.

# %%
SETS_PER_POINT = 20 if SMALL else 500
spec = {
    "name": "lab4",
    "seed": 1234,
    "platform": {"m": 2},
    "generator": {"n": 6, "utilizations": "randfixedsum", "periods": "log-uniform:1000:100000", "deadlines": "uniform"},
    "sweep": {
        "variable": "U/m",
        "points": [0.2, 0.4, 0.6, 0.8] if SMALL else [x / 20 for x in range(2, 20)],
        "sets_per_point": SETS_PER_POINT,
        "sets_per_unit": SETS_PER_POINT,
    },
    "analyses": {"names": ["gfb", "bcl-iter", "rta", "p-edf", "gedf-upper"]},
}
experiment = sweep.parse_experiment(spec)
results = run_sweep(experiment)
print(experiment.caption())
for row in results.rows:
    if row.analysis == "p-edf":
        print(
            f"U/m = {row.value:<5} target U = {row.target_utilization:<5} realised mean U = {row.mean_utilization:.4f}  "
            f"p-edf {row.accepted}/{row.sets} = {row.ratio:.2f} [{row.ci_low:.2f}, {row.ci_high:.2f}]"
        )
weighted = {row.analysis: row.weighted_schedulability for row in results.weighted}

fig, ax = plt.subplots(figsize=(7.5, 4.2))
for name in results.analyses:
    curve = [r for r in results.rows if r.analysis == name]
    xs = [r.value for r in curve]
    (line,) = ax.plot(
        xs,
        [r.ratio for r in curve],
        "--" if name == "gedf-upper" else "-o",
        ms=3,
        label=f"{name} (W = {weighted[name]:.2f})",
    )
    ax.fill_between(xs, [r.ci_low for r in curve], [r.ci_high for r in curve], color=line.get_color(), alpha=0.15)
ax.set(xlabel="U/m (target)", ylabel="acceptance ratio", title=f"{SETS_PER_POINT} sets per point, 95 % Wilson bands")
ax.legend(fontsize=8)
show(fig, "lab4_acceptance")

# %% [markdown]
# How to read it:
#
# * Each point is a *proportion of generated sets*, with its band; two curves whose bands overlap
#   at a point are not shown to differ there.
# * A sufficient test's curve is a lower bound of what the policy can schedule; `gedf-upper`
#   (dashed) is an upper bound of global EDF, not a test. The truth lies in between.
# * The x axis is the *target* U/m; rounding C to whole ticks moves the realised U (printed above:
#   with periods of 1,000+ ticks it is within a fraction of a percent). Coarse periods would
#   shift the curves to the right of where they belong.
# * W, the weighted schedulability (Bastoni, Brandenburg & Anderson, OSPERT 2010), Σ U·S(U) / Σ U,
#   summarises a curve in one number, weighting the hard high-utilization points more.
# * The curve holds for *this* generator (n, periods, deadlines): say so in the caption
#   (`experiment.caption()` writes it for you).
#
# **Reproducibility.** Work unit k of an experiment draws from `SeedSequence(seed,
# spawn_key=(k,))` (k counted within its panel of a second variable `by`: every panel draws the
# same sets), so the tables depend on the experiment file only — not on the number of
# workers, their order, or interruptions (a rerun in the same folder resumes). Check it:

# %%
again = run_sweep(experiment, tempfile.mkdtemp(prefix="lab4-again-"))
resumed = run_sweep(experiment)
print("same file, new folder: identical tables:", again.results_csv() == results.results_csv())
print(
    f"same folder: {resumed.units_reused} of {resumed.units_total} units reused, tables identical:",
    resumed.results_csv() == results.results_csv(),
)
assert again.results_csv() == results.results_csv() == resumed.results_csv()
assert resumed.units_run == 0

# %% [markdown]
# ## Exercises
#
# **Exercise 1 (k = 0).** A test accepts none of 20 sets at some point. Compute the Wilson and
# Clopper–Pearson upper ends by hand (for k = 0 the Clopper–Pearson upper end has a closed form).
# Compare with the "rule of three", 3/n.

# %% tags=["solution"]
# Exercise 1: the three numbers
z = 1.959963984540054
print("Wilson upper:", sweep.wilson_interval(0, 20)[1], "= z²/(n + z²) =", z * z / (20 + z * z))
print("Clopper–Pearson upper:", clopper_pearson(0, 20)[1], "= 1 − 0.025^(1/20) =", 1 - 0.025 ** (1 / 20))
print("rule of three: 3/20 =", 3 / 20)

# %% [markdown] tags=["solution"]
# **Solution 1.** With p̂ = 0 Wilson's interval is [0, z²/(n + z²)] = [0, 3.8415/23.8415] =
# [0, 0.1611]. Clopper–Pearson solves P(K = 0) = (1 − p)ⁿ = α/2: p = 1 − 0.025^{1/20} = 0.1684.
# The rule of three, 3/n = 0.15, is the one-sided 95 % version, 1 − 0.05^{1/n} ≈ −ln(0.05)/n ≈ 3/n.
# "Accepted 0 of 20" still allows an acceptance probability of 16 %.

# %% [markdown]
# **Exercise 2 (how many sets?).** How many sets per point do you need so that the 95 % Wilson
# interval is at most ±0.02 wide at p̂ = 0.5, the worst case? Check your number with
# `sweep.wilson_interval`.

# %% tags=["solution"]
# Exercise 2: the smallest n with half-width ≤ 0.02 at p̂ = 0.5
estimate = math.ceil(z * z * 0.25 / 0.02**2)
needed = next(
    n for n in range(2000, 3000, 2) if (lambda lo, hi: (hi - lo) / 2)(*sweep.wilson_interval(n // 2, n)) <= 0.02
)
print("normal approximation:", estimate, "; Wilson, smallest even n:", needed)

# %% [markdown] tags=["solution"]
# **Solution 2.** Half-width ≈ z·√(p(1 − p)/n) ≤ 0.02 gives n ≥ 1.96²·0.25/0.02² ≈ 2401; Wilson's
# half-width is slightly smaller (its denominator 1 + z²/n), so n = 2398 already suffices.
# `examples/global_vs_partitioned.toml` uses 2,000 sets per point: ±0.022 at worst. Near p = 0
# or 1 far fewer sets give the same width.

# %% [markdown]
# **Exercise 3 (the bias, in a sweep).** Repeat worked example 1's comparison of the two
# generators at U = 1.0, 1.3 and 1.6 (m = 2, n = 5) for `gfb`, `bcl-iter` and `p-edf`, with a
# confidence interval for each ratio. Which tests are affected, and in which direction?

# %% tags=["solution"]
# Exercise 3: naive vs UUniFast-Discard at three utilizations
rng = np.random.default_rng(8)
for U in (1.0, 1.3, 1.6):
    x = rng.random((SETS, 5))
    for label, u in (
        ("naive", U * x / x.sum(axis=1, keepdims=True)),
        ("UUniFast-Discard", uunifast_discard(rng, 5, U, SETS)),
    ):
        reports = check_many(as_tasksets(rng, u), 2, tests=["gfb", "bcl-iter", "p-edf"])
        cells = []
        for name in ("gfb", "bcl-iter", "p-edf"):
            k = sum(r[name].verdict is True for r in reports)
            lo, hi = sweep.wilson_interval(k, SETS)
            cells.append(f"{name} {k / SETS:.2f} [{lo:.2f}, {hi:.2f}]")
        print(f"U = {U}  {label:<17} " + "  ".join(cells))

# %% [markdown] tags=["solution"]
# **Solution 3.** At U = 1.0 every test accepts (nearly) everything and at 1.6 GFB and BCL
# accept almost nothing with either generator: the bias shows in the transition, U = 1.3, where
# GFB accepts nearly all the naive sets (0.97–0.99) and about three quarters of the uniform ones
# (0.75–0.76) — intervals far apart. GFB's bound depends on λmax, and the naive sets rarely have
# a heavy task. `bcl-iter` moves less (its intervals overlap); `p-edf` accepts everything here
# (five tasks, implicit deadlines, two processors). The bias is test-dependent, so a biased
# generator can change the ranking of tests, not just their level.

# %% [markdown]
# **Exercise 4 (what the seed fixes).** Run worked example 4's experiment (a) with another seed,
# (b) with `sets_per_unit` half of `sets_per_point`. Are the tables identical to the original?
# Are the differences larger than the bands?

# %% tags=["solution"]
# Exercise 4: another seed; another unit size
other = sweep.parse_experiment({**spec, "seed": 4321})
other_seed = run_sweep(other)
halved = experiment.with_sizes(SETS_PER_POINT, SETS_PER_POINT // 2)
halves = run_sweep(halved)
for label, res in (("seed 4321", other_seed), ("half-size units", halves)):
    outside = sum(not (a.ci_low <= b.ratio <= a.ci_high) for a, b in zip(results.rows, res.rows, strict=True))
    print(
        f"{label}: identical tables {res.results_csv() == results.results_csv()}; "
        f"{outside} of {len(res.rows)} ratios outside the original's bands"
    )

# %% [markdown] tags=["solution"]
# **Solution 4.** Both change the tables: the seed is the root of every unit's stream, and the
# unit size decides which sets unit k draws (that is why the unit size is part of the experiment
# and never chosen by timing or by the number of workers). Most new ratios fall inside the
# original's 95 % bands, but not 95 % of them: both estimates are noisy, their difference has
# twice the variance, and a new estimate falls outside the other's band with probability
# P(|Z| > 1.96/√2) ≈ 0.17 by chance alone. To compare two tests, run them on the *same* sets
# (one experiment), not in two experiments.

# %% [markdown]
# ## Things to try
#
# * `rtsched sweep --print-default > my.toml`, edit, `rtsched sweep my.toml --out my-results`:
#   the TOML file is the whole experiment; `results.csv` has `ci_low`, `ci_high` and
#   `mean_utilization` for every point.
# * Periods log-uniform in 10–100 ticks instead of 1,000–100,000: how far does the realised U
#   drift from the target at low U/m? (`papers/repro/default_resolution.py` measures it.)
# * `rtsched generate --n 5 --utilization 2.5 --utilizations uunifast`: rtsched warns that plain
#   UUniFast loses utilization above 1.
# * A second swept variable (`by = "n"`, `by_points = [4, 8, 16]`) gives one curve per n and a
#   weighted-schedulability plot against n.
