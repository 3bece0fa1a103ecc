"""BCL test for global EDF (Bertogna, Cirinei, Lipari, ECRTS 2005); see papers/bcl2005.md.

M. Bertogna, M. Cirinei, G. Lipari, "Improved schedulability analysis of EDF on multiprocessor
platforms", ECRTS 2005, pp. 209–218 (also "Schedulability analysis of global scheduling
algorithms on multiprocessor platforms", IEEE TPDS 20(4), 2009). Constrained deadlines.

For every task τk, with λ_k = C_k/D_k and, for each other task τi,

    N_i = ⌊(D_k − D_i)/T_i⌋ + 1,
    β_i = (N_i C_i + min(C_i, max(0, D_k − N_i T_i))) / D_k,                    (β_i)

global EDF meets every deadline if, for every k, either

    Σ_{i≠k} min(β_i, 1 − λ_k) < m (1 − λ_k)                                    (BCL-a)

or

    Σ_{i≠k} min(β_i, 1 − λ_k) = m (1 − λ_k)  and  ∃ i ≠ k : 0 < β_i ≤ 1 − λ_k.   (BCL-b)

This is the computable form of ECRTS 2005 Thm. 6 (the interference condition, confirmed from
the Prosa formalisation of that theorem), with β_i D_k bounding the interference of τi in the
window of a job of τk (the number of the β-form theorem in the paper is unverified; see the
note). A task with C_k = D_k makes both sides 0 and (BCL-b) impossible (β_i > 0), so it is
rejected: the theorem assumes C_k < D_k.

Exactness: multiplying by D_k, every quantity is an integer (W_i = D_k β_i ≤ 2**32, sums of at
most 2**16 terms clipped to D_k − C_k < 2**31, m (D_k − C_k) < 2**51), so the kernel decides
exactly in int64 with no fallback.

Kernel shortcuts (neither changes a verdict): the task with the least slack D_k − C_k is checked
first, and before its β_i a division-free lower bound of its sum, Σ_{i≠k} min(C_i, D_k − C_k)
(W_i ≥ min(C_i, D_k)), rejects when it already exceeds m (D_k − C_k).

Layers: :func:`reference`/:func:`explain` (Fractions), ``_bcl_one`` (the serial one-set kernel,
int64), ``_bcl_kernel`` (prange over the sets of a batch).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from fractions import Fraction
from typing import Any

from rtsched.analyses.theory.workload import (
    bcl_workload,
    bcl_workload_nb,
    every_task_holds,
    scan_closing_steps,
    scan_tasks,
)
from rtsched.budget import REFERENCE_WORK, Work
from rtsched.kernels import ACCEPT, REJECT, kernel, sets_kernel
from rtsched.model import TaskSet
from rtsched.registry import closed_form_global_edf
from rtsched.result import Explanation, Step, Verdict, show_comparison

__all__ = ["ANALYSES", "betas", "explain", "reference", "steps", "task_condition"]

CITATION = (
    "Bertogna, Cirinei, Lipari, 'Improved schedulability analysis of EDF on multiprocessor "
    "platforms', ECRTS 2005 (Thm. 6 with the β_i workload bound); IEEE TPDS 20(4), 2009"
)


def betas(ts: TaskSet, k: int) -> list[Fraction | None]:
    """β_i for every i ≠ k (None at i = k), exactly  [ECRTS 2005, β_i]."""
    D_k = int(ts.D[k])
    return [
        None if i == k else Fraction(bcl_workload(int(c), int(d), int(t), D_k), D_k)
        for i, (c, d, t) in enumerate(ts.rows())
    ]


def task_condition(ts: TaskSet, k: int, m: int, work: Work | None = None) -> tuple[bool, Fraction, Fraction, bool]:
    """(holds, Σ_{i≠k} min(β_i, 1 − λ_k), m (1 − λ_k), ∃ i ≠ k: 0 < β_i ≤ 1 − λ_k)  [BCL-a/BCL-b].

    Every β_i = W_i/D_k and 1 − λ_k = (D_k − C_k)/D_k share the denominator D_k, so the sum is
    taken over the integer numerators W_i (:func:`betas` gives the β_i themselves). ``work``
    (optional) is charged n terms first (see :mod:`rtsched.budget`).
    """
    if work is not None:
        work.spend(ts.n)
    C_k, D_k = int(ts.C[k]), int(ts.D[k])
    cap = D_k - C_k  # D_k (1 − λ_k)
    W = [bcl_workload(c, d, t, D_k) for i, (c, d, t) in enumerate(ts.rows()) if i != k]
    lhs = Fraction(sum(min(w, cap) for w in W), D_k)
    rhs = m * Fraction(cap, D_k)
    small_beta = any(0 < w <= cap for w in W)
    return (lhs < rhs or (lhs == rhs and small_beta)), lhs, rhs, small_beta


def reference(ts: TaskSet, m: int, work_budget: int | None = REFERENCE_WORK) -> Verdict:
    """Exact BCL verdict: (BCL-a) or (BCL-b) for every task, in Fractions.

    "unknown" if the reference work budget (:mod:`rtsched.budget`) runs out before every task
    is checked and none failed.
    """
    work = Work(work_budget)
    return every_task_holds(ts.n, lambda k: task_condition(ts, k, m, work)[0])


def explain(ts: TaskSet, m: int, work_budget: int | None = REFERENCE_WORK) -> Explanation:
    """Per task both sides of the BCL inequality, exactly; the first failing task if any."""
    work = Work(work_budget)

    def row(k: int) -> dict[str, object]:
        holds, lhs, rhs, small = task_condition(ts, k, m, work)
        return {"task": k, "lhs": lhs, "rhs": rhs, "small_beta_exists": small, "holds": holds}

    scan = scan_tasks(ts.n, row)

    def passes(label: str, r: Mapping[str, Any]) -> str:
        rel = "<" if r["lhs"] < r["rhs"] else "= (and some β_i ≤ 1 − λ_k)"
        return f"every task passes; tightest {label}: " + show_comparison(
            "Σ min(β_i, 1 − λ_k)", r["lhs"], rel, "m(1 − λ_k)", r["rhs"]
        )

    def fails(label: str, r: Mapping[str, Any]) -> str:
        relation = ">" if r["lhs"] > r["rhs"] else "="
        return (
            f"{label} fails: "
            + show_comparison("Σ min(β_i, 1 − λ_k)", r["lhs"], relation, "m(1 − λ_k)", r["rhs"])
            + (" with no β_i ≤ 1 − λ_k" if r["lhs"] == r["rhs"] else "")
        )

    return scan.explanation(ts, work, work_budget, passes, fails, steps=lambda: steps(ts, m, scan.rows))


#: The β_i of every i ≠ k are written out for sets of at most this many tasks.
_TERMS_SHOWN = 8


def steps(ts: TaskSet, m: int, rows: list[dict[str, object]]) -> Iterator[Step]:
    """Per-task steps of the BCL check, from the ``rows`` :func:`explain` computed.

    For each task τk: 1 − λ_k, the β_i, both sides of (BCL-a) and, on equality, (BCL-b).
    """
    for row in rows:
        k = int(row["task"])  # type: ignore[call-overload]
        C_k, D_k = int(ts.C[k]), int(ts.D[k])
        cap = Fraction(D_k - C_k, D_k)
        yield Step(f"{ts.label(k)}: 1 − λ_k = 1 − {C_k}/{D_k} = " + "{cap}", {"cap": cap})
        if ts.n <= _TERMS_SHOWN:
            bs = betas(ts, k)
            terms = {f"b{i}": b for i, b in enumerate(bs) if b is not None}
            if terms:
                yield Step(
                    "  β_i: " + ", ".join(f"i = {i}: {{b{i}}}" for i, b in enumerate(bs) if b is not None), terms
                )
        lhs, rhs, holds = row["lhs"], row["rhs"], bool(row["holds"])
        values = {"lhs": lhs, "rhs": rhs, "cap": cap}
        head = "  Σ_{{i≠k}} min(β_i, 1 − λ_k) = {lhs} "
        tail = f" m(1 − λ_k) = {m}·" + "{cap} = {rhs}"
        if lhs < rhs:  # type: ignore[operator]
            yield Step(head + "<" + tail + ": (BCL-a) holds", values)
        elif lhs == rhs:
            small = "some 0 < β_i ≤ 1 − λ_k: (BCL-b) holds" if holds else "no 0 < β_i ≤ 1 − λ_k: fails, not proven"
            yield Step(head + "=" + tail + "; " + small, values)
        else:
            yield Step(head + ">" + tail + ": fails, not proven", values)
    yield from scan_closing_steps(ts.n, rows, "BCL")


@kernel(inline="always")
def _bcl_task_holds(C, D, T, m, k):
    # (BCL-a)/(BCL-b) for τk multiplied by D_k: Σ_{i≠k} min(W_i, D_k − C_k) vs m (D_k − C_k),
    # W_i = D_k β_i. Branch-free loop over every i (so LLVM can vectorise it), the i = k term
    # removed afterwards: W_k = C_k exactly (N_k = 1 and D_k − T_k ≤ 0).
    D_k = D[k]
    slack_k = D_k - C[k]
    total = 0
    small_betas = 0  # how many i have 0 < β_i ≤ 1 − λ_k (W_i > 0 always, as C_i > 0)
    for i in range(C.shape[0]):
        w = bcl_workload_nb(C[i], D[i], T[i], D_k)
        total += min(w, slack_k)
        small_betas += w <= slack_k
    total -= min(C[k], slack_k)
    small_betas -= C[k] <= slack_k
    cap = m * slack_k
    return total < cap or (total == cap and small_betas > 0)


@kernel
def _bcl_one(C, D, T, m):
    # The verdict is a conjunction over k, so the order of the checks cannot change it. The task
    # with the least slack D_k − C_k fails most often (every term is clipped to that slack), so
    # it goes first: on random sets it settles almost every rejection with one row.
    n = C.shape[0]
    first = 0
    for k in range(1, n):
        if D[k] - C[k] < D[first] - C[first]:
            first = k
    # A cheap test first (rtsched's; it only rejects where (BCL-a)/(BCL-b) fail for τ_first):
    # W_i ≥ min(C_i, D_k) (N_i = 0 gives min(C_i, D_k), N_i ≥ 1 gives ≥ C_i) and D_k > D_k − C_k,
    # so Σ_{i≠k} min(W_i, D_k − C_k) ≥ Σ_{i≠k} min(C_i, D_k − C_k); if that exceeds
    # m (D_k − C_k), both conditions fail for k. No division, and it settles most rejections.
    slack_first = D[first] - C[first]
    lower = 0
    for i in range(n):
        lower += min(C[i], slack_first)
    if lower - min(C[first], slack_first) > m * slack_first:
        return REJECT
    if not _bcl_task_holds(C, D, T, m, first):
        return REJECT
    for k in range(n):
        if k != first and not _bcl_task_holds(C, D, T, m, k):
            return REJECT
    return ACCEPT


_bcl_kernel = sets_kernel(_bcl_one)


#: Why this analysis refuses arbitrary deadlines (D > T): ``rtsched list`` and ``check`` show it
#: (issue #47; papers/arbitrary-deadlines-reductions.md, "Global EDF").
ARBITRARY_WHY = (
    "needs constrained deadlines (D <= T): Bertogna, Cirinei, Lipari (OPODIS 2005; TPDS 2009, whose "
    "abstract says \"constrained deadlines\") give no D > T form, and min(D, T) is unsound under EDF "
    "(priorities follow D); use gfb or load"
)


ANALYSES = (
    closed_form_global_edf(
        name="bcl", title="BCL interference test", order=2,
        citation=CITATION, note="papers/bcl2005.md",
        reference=reference, explain=explain, kernel=_bcl_kernel, one=_bcl_one,
        deadlines_note=ARBITRARY_WHY,
    ),
)
