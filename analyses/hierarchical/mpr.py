"""G-EDF on m dedicated processors as the MPR interface ⟨1, m, m⟩ (``gedf-mpr``), and the MPR API.

Papers: Shin, Easwaran, Lee (ECRTS 2008: the MPR model, the G-EDF test under MPR) and Easwaran,
Shin, Lee (Real-Time Systems 43(1), 2009: the corrected supply bound); the full references and
what each gives are in :mod:`rtsched.analyses.theory.supply`, the notes in
papers/shin-easwaran-lee2008-mpr.md and papers/easwaran-shin-lee2009-virtual-clusters.md.

The registered analysis ``gedf-mpr`` decides a task set on m processors (``Identical(m)``) with
the dedicated interface ⟨1, m, m⟩, whose sbf(t) = m·t: Baruah's RTSS 2007 test in integer time.
Its work budget ``budget`` is the number of (k, A_k) points it may check ("unknown" beyond).

The MPR model itself (:class:`MPRInterface`, the exact supply :func:`sbf` and its linear bound
:func:`lsbf`, the test on any interface :func:`reference_interface` / :func:`gedf_mpr` /
:func:`gedf_mpr_codes`, the interface search :func:`min_theta` / :func:`best_interface`, the
servers :func:`server_tasks`) lives in the private module :mod:`rtsched.analyses.theory.supply`,
shared with the clustered analyses (:mod:`rtsched.analyses.hierarchical.clustered`), and is re-exported here.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

from numba import prange

from rtsched.analyses.theory.supply import (
    CITATION,
    DEFAULT_BUDGET,
    NOTE,
    MPRInterface,
    a_k_bounds,
    best_interface,
    dedicated,
    demand,
    gedf_mpr,
    gedf_mpr_codes,
    gedf_mpr_one,
    lsbf,
    lsbf_offset,
    min_theta,
    reference_interface,
    sbf,
    sbf_brute_force,
    server_budgets,
    server_tasks,
    validate_interface,
)
from rtsched.kernels import batch_kernel, kernel
from rtsched.model import TaskSet
from rtsched.platform import Clustered, Platform
from rtsched.registry import Analysis
from rtsched.result import Explanation, Step, Verdict

__all__ = [
    "ANALYSES",
    "DEFAULT_BUDGET",
    "MPRInterface",
    "a_k_bounds",
    "best_interface",
    "dedicated",
    "demand",
    "explain",
    "gedf_mpr",
    "gedf_mpr_codes",
    "lsbf",
    "lsbf_offset",
    "min_theta",
    "reference",
    "reference_interface",
    "sbf",
    "sbf_brute_force",
    "server_budgets",
    "server_tasks",
    "steps",
    "validate_interface",
]


def reference(ts: TaskSet, m: int, budget: int = DEFAULT_BUDGET) -> Verdict:
    """Exact verdict on m dedicated processors, ⟨1, m, m⟩ (Baruah's test in integer time)."""
    return reference_interface(ts, dedicated(m), budget)


def explain(ts: TaskSet, m: int, budget: int = DEFAULT_BUDGET) -> Explanation:
    """:func:`gedf_mpr` on the dedicated interface ⟨1, m, m⟩, with its steps (:func:`steps`)."""
    interface = dedicated(m)
    e = gedf_mpr(ts, interface, budget)
    return replace(e, steps=lambda: steps(ts, interface, e))


def steps(ts: TaskSet, interface: MPRInterface, e: Explanation) -> Iterator[Step]:
    """The G-EDF-under-MPR check of ``e`` (:func:`gedf_mpr` of ``ts`` on ``interface``) point by point.

    For each task τk and A_k = 0, 1, … up to its bound (ECRTS 2008, Thm. 2): DEM(A_k + D_k)
    against sbf(A_k + D_k) (Thm. 1, integer form), up to the first failure.
    """
    Pi, Theta, mp = interface.Pi, interface.Theta, interface.m_prime
    yield Step(
        f"{interface}: α = {interface.alpha}, β = {interface.beta}, bandwidth Θ/Π = " + "{bw}, U = {U}",
        {"bw": interface.bandwidth, "U": ts.utilization},
    )
    bounds = e.evidence.get("A_k_bounds")
    if bounds is None:
        yield Step("U ≥ Θ/Π: Thm. 2 gives no bound on A_k; not proven")
        return
    if e.verdict not in (True, False):
        yield Step("more values of A_k to check than the work budget allows: unknown")
        return
    for k, bound in enumerate(bounds):
        D_k = int(ts.D[k])
        if bound < 0:
            yield Step(f"{ts.label(k)}: the Thm. 2 bound on A_k is negative: nothing to check")
            continue
        yield Step(f"{ts.label(k)}: check A_k = 0 … {bound} (Thm. 2 bound)")
        for A_k in range(bound + 1):
            t = A_k + D_k
            dem, _ = demand(ts, k, A_k, mp)
            supply = sbf(Pi, Theta, mp, t)
            rel = "<" if dem < supply else "≥"
            yield Step(
                f"  A_k = {A_k}, t = {t}: DEM = " + "{dem} " + rel + " sbf(t) = {sbf}", {"dem": dem, "sbf": supply}
            )
            if dem >= supply:
                yield Step("  DEM ≥ sbf: not proven schedulable")
                return
    yield Step("DEM < sbf at every point: schedulable")


@kernel
def _gedf_mpr_dedicated_set(C, D, T, m, budget):
    """One set on ⟨1, m, m⟩: Π = 1, Θ = m, m' = m."""
    return gedf_mpr_one(C, D, T, 1, m, m, budget)


@batch_kernel
def _gedf_mpr_dedicated_kernel(C, D, T, offsets, m, budget, out):
    for s in prange(out.shape[0]):
        lo, hi = offsets[s], offsets[s + 1]
        out[s] = gedf_mpr_one(C[lo:hi], D[lo:hi], T[lo:hi], 1, m, m, budget)


def _accepts(platform: Platform) -> str | None:
    """Identical(m) only: the interface of m dedicated processors (a cluster's is clustered:k=<k>'s)."""
    if isinstance(platform, Clustered):
        return (
            "gedf-mpr decides G-EDF on m dedicated processors (interface ⟨1, m, m⟩), not on "
            f"{platform}; use clustered:k={platform.k}"
        )
    return None


ANALYSES = (
    Analysis(
        name="gedf-mpr", title="G-EDF in a cluster under an MPR interface", kind="sufficient", order=20,
        featured=False,
        policy="global-edf", policy_order=0, platform="clustered", accepts=_accepts,
        citation=CITATION, note=NOTE,
        reference=reference, explain=explain, kernel=_gedf_mpr_dedicated_kernel, one=_gedf_mpr_dedicated_set,
        budget=DEFAULT_BUDGET, budget_unit="(k, A_k) points to check",
    ),
)
