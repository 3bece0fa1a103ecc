"""GFB density test for global EDF (Goossens, Funk, Baruah 2003); see papers/gfb2003.md.

Goossens, Funk and Baruah, "Priority-driven scheduling of periodic task systems on
multiprocessors", Real-Time Systems 25(2-3), 2003, prove for implicit deadlines that global EDF
meets every deadline on m identical processors if U ≤ m − (m − 1)·u_max. The density form used
here replaces utilizations by densities λ_i = C_i / min(D_i, T_i), which makes it a valid
sufficient test for constrained and arbitrary deadlines (Bertogna, Cirinei, Lipari, IEEE TPDS
20(4), 2009, §4; Baker 2005):

    Σ_i λ_i ≤ m − (m − 1) · λ_max                                            (GFB)

A set exactly on the bound is accepted, as the theorem says ("≤").

Layers: :func:`reference` (Fractions), ``_gfb_one`` (float with a proven error margin; sets
inside the margin are UNDECIDED and the registry re-decides them by the reference),
``_gfb_kernel`` (prange). This module is the smallest complete example of the analysis contract
(:mod:`rtsched.registry`).
"""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction

from rtsched.kernels import EPS, kernel, margin_verdict, sets_kernel
from rtsched.model import TaskSet, fraction_sum
from rtsched.registry import closed_form_global_edf
from rtsched.result import Explanation, Step, show_number

__all__ = ["ANALYSES", "explain", "reference", "steps"]

CITATION = (
    "Goossens, Funk, Baruah, 'Priority-driven scheduling of periodic task systems on "
    "multiprocessors', Real-Time Systems 25(2-3), 2003 (utilization bound); density form for "
    "constrained/arbitrary deadlines as in Bertogna, Cirinei, Lipari, IEEE TPDS 20(4), 2009"
)


def densities(ts: TaskSet) -> list[Fraction]:
    """λ_i = C_i / min(D_i, T_i), exactly."""
    return [Fraction(int(c), int(min(d, t))) for c, d, t in zip(ts.C, ts.D, ts.T, strict=True)]


def reference(ts: TaskSet, m: int) -> bool:
    """Exact: Σ λ_i ≤ m − (m − 1) · λ_max  (GFB, density form)."""
    lam = densities(ts)
    return fraction_sum(lam) <= m - (m - 1) * max(lam)


def explain(ts: TaskSet, m: int) -> Explanation:
    """Both sides of the GFB inequality, exactly, and each task's density."""
    lam = densities(ts)
    total = fraction_sum(lam)
    lam_max = max(lam)
    bound = m - (m - 1) * lam_max
    holds = total <= bound
    argmax = lam.index(lam_max)
    rel = "≤" if holds else ">"
    summary = f"Σλ = {show_number(total)} {rel} m − (m−1)·λmax = {show_number(bound)} (λmax = {show_number(lam_max)}, {ts.label(argmax)})"
    return Explanation(
        verdict=holds,
        summary=summary,
        evidence={
            "total_density": total,
            "max_density": lam_max,
            "max_density_task": argmax,
            "bound": bound,
            "slack": bound - total,
        },
        per_task=[{"task": i, "density": x} for i, x in enumerate(lam)],
        steps=lambda: steps(ts, m),
    )


def steps(ts: TaskSet, m: int) -> Iterator[Step]:
    """The derivation of (GFB): each density, both sides of the inequality, the comparison."""
    lam = densities(ts)
    for i, (c, d, t) in enumerate(ts.rows()):
        yield Step(f"λ{i} = C/min(D, T) = {c}/{min(d, t)} = " + "{lam}", {"lam": lam[i]})
    total = fraction_sum(lam)
    lam_max = max(lam)
    bound = m - (m - 1) * lam_max
    yield Step("left side: Σλ_i = {total}", {"total": total})
    yield Step(
        f"right side: m − (m − 1)·λmax = {m} − {m - 1}·"
        + "{lam_max} = {bound}"
        + f" (λmax of {ts.label(lam.index(lam_max))})",
        {"lam_max": lam_max, "bound": bound},
    )
    verdict = "holds: schedulable by global EDF" if total <= bound else "fails: not proven"
    yield Step(
        "{total} " + ("≤" if total <= bound else ">") + " {bound}: (GFB) " + verdict, {"total": total, "bound": bound}
    )


@kernel
def _gfb_one(C, D, T, m):
    n = C.shape[0]
    total = 0.0
    lam_max = 0.0
    for i in range(n):
        d = D[i] if D[i] < T[i] else T[i]
        lam = C[i] / d
        total += lam
        if lam > lam_max:
            lam_max = lam
    lhs = total + (m - 1) * lam_max
    # Each λ is correctly rounded (rel. error ≤ EPS); the sum of n terms and the final
    # multiply-add add at most (n + 2)·EPS relative error on non-negative terms. A margin of
    # 4·(n + m + 2)·EPS·(lhs + m) is therefore safely larger than the total rounding error.
    return margin_verdict(lhs - m, 4.0 * (n + m + 2) * EPS * (lhs + m))


_gfb_kernel = sets_kernel(_gfb_one)


ANALYSES = (
    closed_form_global_edf(
        name="gfb", title="GFB density bound", order=0,
        deadlines=("implicit", "constrained", "arbitrary"),
        citation=CITATION, note="papers/gfb2003.md",
        reference=reference, explain=explain, kernel=_gfb_kernel, one=_gfb_one,
        compile_seconds=1.2,
    ),
)
