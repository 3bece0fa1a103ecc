"""RM-US[m/(3m−2)] utilization bound for global fixed priorities, ``rm-us``: Andersson, Baruah, Jonsson (RTSS 2001).

B. Andersson, S. Baruah, J. Jonsson, "Static-priority scheduling on multiprocessors", RTSS 2001.
Note: papers/andersson-baruah-jonsson2001-rmus.md (the primary text was not reachable; the rule
and the bound are as the secondary literature restates them; the theorem number is unverified).

Model: implicit-deadline sporadic tasks τi = (C_i, T_i), m identical processors, preemptive
global fixed priorities. RM-US[m/(3m−2)] gives the tasks with utilization above m/(3m−2) the
highest priorities and orders the rest rate-monotonically; it meets every deadline of an
implicit-deadline set with

    U = Σ C_i/T_i ≤ m²/(3m−2)                                                        (RM-US)

**The verdict is for the set under the RM-US priority rule (:func:`rmus_order`), not under the
given order.** rtsched applies it for m ≥ 2 only: for m = 1 the rule is plain RM and the bound
would read U ≤ 1, which RM does not meet (witness (2, 4, 4), (3, 6, 6); see the note).

Exactness: the kernel compares Σ C_i/T_i with the rational bound in float64 with a proven margin
(UNDECIDED inside it: the registry asks the Fraction reference).
"""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction

from rtsched.analyses.global_fp._common import _global_fp
from rtsched.kernels import EPS, kernel, margin_verdict, sets_kernel
from rtsched.model import TaskSet
from rtsched.platform import Identical, Platform
from rtsched.result import Explanation, Step, count, show_comparison, show_number

__all__ = ["ANALYSES", "ARBITRARY_WHY", "rmus_explain", "rmus_order", "rmus_reference", "rmus_steps"]

CITE_RMUS = (
    "Andersson, Baruah, Jonsson, 'Static-priority scheduling on multiprocessors', RTSS 2001: "
    "RM-US[m/(3m-2)], U <= m^2/(3m-2) (its own priority rule: heavy tasks first, then RM)"
)


#: Why rm-us refuses D > T (papers/arbitrary-deadlines-reductions.md, "rm-us"): the reduction
#: D'_i = min(D_i, T_i) gives an implicit-deadline set only if every D_i >= T_i, and the bound is
#: for implicit deadlines only; a set mixing D < T and D > T has no RM-US bound to reduce to.
ARBITRARY_WHY = (
    "implicit deadlines only: the RM-US bound is proved for D = T, and min(D, T) is implicit only when every "
    "D >= T; use gfp-da-lc or gfp-rta-lc (they take D > T)"
)


def rmus_order(ts: TaskSet, m: int) -> list[int]:
    """The RM-US[m/(3m−2)] priority order (highest first).

    The heavy tasks (C_i/T_i > m/(3m−2)) in index order, then the others by period (ties by index).
    """
    threshold = Fraction(m, 3 * m - 2)
    heavy = [i for i in range(ts.n) if Fraction(int(ts.C[i]), int(ts.T[i])) > threshold]
    light = sorted((i for i in range(ts.n) if i not in set(heavy)), key=lambda i: (int(ts.T[i]), i))
    return heavy + light


def rmus_reference(ts: TaskSet, m: int) -> bool:
    """Exact: Σ C_i/T_i ≤ m²/(3m − 2) (ABJ 2001), for the set under the RM-US priority rule."""
    return ts.utilization <= Fraction(m * m, 3 * m - 2)


def rmus_explain(ts: TaskSet, m: int) -> Explanation:
    """U against m²/(3m−2), the heavy tasks and the RM-US priority order the verdict is about."""
    U = ts.utilization
    bound = Fraction(m * m, 3 * m - 2)
    order = rmus_order(ts, m)
    threshold = Fraction(m, 3 * m - 2)
    heavy = [i for i in order if Fraction(int(ts.C[i]), int(ts.T[i])) > threshold]
    holds = U <= bound
    summary = (
        show_comparison("U", U, "≤" if holds else ">", "m²/(3m−2)", bound)
        + f" under the RM-US priority rule (not the given order): {count(len(heavy), 'heavy task')} "
        f"(u > {show_number(threshold)}) first, then rate-monotonic"
    )
    evidence = {
        "utilization": U,
        "bound": bound,
        "heavy_threshold": threshold,
        "heavy_tasks": tuple(heavy),
        "priority_order": tuple(order),
        "slack": bound - U,
    }
    rank = {task: r for r, task in enumerate(order)}
    per_task = [
        {"task": i, "utilization": Fraction(int(ts.C[i]), int(ts.T[i])), "heavy": i in heavy, "rm_us_rank": rank[i]}
        for i in range(ts.n)
    ]
    return Explanation(holds, summary, evidence, per_task, steps=lambda: rmus_steps(ts, m))


def rmus_steps(ts: TaskSet, m: int) -> Iterator[Step]:
    """RM-US step by step: the heavy threshold, each u_i, the RM-US order, U against m²/(3m − 2)."""
    threshold, bound, U = Fraction(m, 3 * m - 2), Fraction(m * m, 3 * m - 2), ts.utilization
    utilizations = {f"u{i}": Fraction(int(ts.C[i]), int(ts.T[i])) for i in range(ts.n)}
    yield Step(f"heavy: u_i > m/(3m − 2) = {{h}} on m = {m}", {"h": threshold})
    yield Step("u_i = C_i/T_i: " + ", ".join(f"{ts.label(i)} {{u{i}}}" for i in range(ts.n)), utilizations)
    order = rmus_order(ts, m)
    heavy = [i for i in order if utilizations[f"u{i}"] > threshold]
    yield Step(
        "RM-US priorities (the rule's, not the given order): "
        + (f"heavy {', '.join(ts.label(i) for i in heavy)} first, then " if heavy else "no heavy task; ")
        + "by period: "
        + ", ".join(ts.label(i) for i in order)
    )
    if U <= bound:
        yield Step("U = {U} ≤ m²/(3m − 2) = {b}: schedulable by G-FP under RM-US", {"U": U, "b": bound})
    else:
        yield Step("U = {U} > m²/(3m − 2) = {b}: not proven", {"U": U, "b": bound})


@kernel(counted=False)
def _rmus_one(C, D, T, m):
    n = C.shape[0]
    total = 0.0
    for i in range(n):
        total += C[i] / T[i]
    bound = m * m / (3.0 * m - 2.0)
    # Each quotient is correctly rounded (relative error ≤ EPS), the n-term sum of non-negative
    # terms adds at most n·EPS relative error, the bound two roundings: 4(n + 4)·EPS·(total +
    # bound) exceeds the total error.
    return margin_verdict(total - bound, 4.0 * (n + 4) * EPS * (total + bound))


_rmus_kernel = sets_kernel(_rmus_one)


def _rmus_accepts(platform: Platform) -> str | None:
    if isinstance(platform, Identical) and platform.m < 2:
        return (
            "RM-US[m/(3m−2)] is applied for m ≥ 2 only (for m = 1 its bound would claim that RM meets "
            "every deadline up to U = 1, which it does not; use uni-rta)"
        )
    return None


ANALYSES = (
    _global_fp(
        name="rm-us",
        title="RM-US[m/(3m−2)] utilization bound (G-FP, its own priority rule)",
        order=0,
        featured=False,
        deadlines=("implicit",),
        accepts=_rmus_accepts,
        deadlines_note=ARBITRARY_WHY,
        citation=CITE_RMUS,
        note="papers/andersson-baruah-jonsson2001-rmus.md",
        reference=rmus_reference,
        explain=rmus_explain,
        kernel=_rmus_kernel,
        one=_rmus_one,
    ),
)
