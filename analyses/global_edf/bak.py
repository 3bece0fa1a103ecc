"""BAK test for global EDF (Baker, RTSS 2003), BCL-simplified form; see papers/baker2003.md.

T. P. Baker, "Multiprocessor EDF and deadline monotonic schedulability analysis", RTSS 2003,
pp. 120–129. Baker's EDF theorem (Thm. 12 there; Cor. 13 simplifies it) lets λ range over a
set of candidate values. rtsched implements the *simplified form for constrained deadlines*
that Bertogna, Cirinei and Lipari restate in ECRTS 2005 (§3, "Baker's test") and that
SchedCAT's ``baker`` (``schedcat/sched/edf/bak.py``) computes: λ is fixed to the density of the
analysed task, λ_k = C_k/D_k, and for every task τi (including i = k)

    β_k(i) = u_i (1 + (T_i − D_i)/D_k)                          if λ_k ≥ u_i,
    β_k(i) = u_i (1 + (T_i − D_i)/D_k) + (C_i − λ_k T_i)/D_k    if λ_k < u_i,   (β_k(i))

with u_i = C_i/T_i. Global EDF meets every deadline if, for every task τk,

    Σ_i min(1, β_k(i)) ≤ m (1 − λ_k) + λ_k.                                     (BAK)

("≤": a set exactly on the bound is accepted.) For i = k, β_k(k) = λ_k. The theorem numbers
above come from course notes that follow the paper (unverified against the paper's text).

Exactness: the terms have different denominators (T_i D_k), so an exact integer sum does not
fit int64. The kernel evaluates D_k · Σ_i min(1, β_k(i)) in float64 from exactly computed
integer pieces, with a proven error margin (papers/baker2003.md, "Exactness"); sets inside the
margin are UNDECIDED and the registry re-decides them by :func:`reference` in Fractions.

Arbitrary deadlines (D > T) are refused with the reason :data:`ARBITRARY_WHY`: Baker's journal
version (IEEE TPDS 16(8), 2005) is said to cover them, but its D > T equations could not be checked
against the paper's text (papers/baker2003.md, "Arbitrary deadlines"), and the constrained formula
above is unsound there (T_i − D_i < 0 shrinks β_k(i); it accepts sets with U > m).

Layers: :func:`reference`/:func:`explain` (Fractions), ``_bak_ws`` (one set, float with a proven
margin, on a workspace row for the u_i), and from it (``workspace_kernels``) ``_bak_one`` (the serial
one-set kernel) and ``_bak_kernel`` (prange over the sets of a batch, one workspace per chunk).
"""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction

import numpy as np

from rtsched.analyses.theory.workload import every_task_holds, scan_closing_steps, scan_tasks
from rtsched.budget import REFERENCE_WORK, Work
from rtsched.errors import InputError
from rtsched.kernels import ACCEPT, EPS, REJECT, UNDECIDED, kernel, margin_verdict, workspace_kernels
from rtsched.model import TaskSet, fraction_sum
from rtsched.registry import closed_form_global_edf
from rtsched.result import Explanation, Step, Verdict, show_comparison

__all__ = ["ANALYSES", "ARBITRARY_WHY", "beta", "explain", "reference", "steps", "task_condition"]

CITATION = (
    "Baker, 'Multiprocessor EDF and deadline monotonic schedulability analysis', RTSS 2003 "
    "(EDF test with λ = C_k/D_k, in the constrained-deadline form restated by Bertogna, "
    "Cirinei, Lipari, ECRTS 2005, and used by SchedCAT)"
)


#: Why BAK refuses a set with some D_i > T_i (papers/baker2003.md, "Arbitrary deadlines (D > T)"):
#: Baker's journal version (IEEE TPDS 16(8), 2005) is said to cover D > T, but its equations could
#: not be checked against the paper's text, and the constrained formula below is not sound there
#: (T_i − D_i < 0 shrinks β_k(i)); SchedCAT's C++ BAK evaluates it anyway, with wrap-around.
ARBITRARY_WHY = (
    "needs constrained deadlines (D <= T): Baker 2005's D > T form could not be verified; "
    "use gfb or load (global EDF), p-fp or uni-rta"
)


def _refuse_arbitrary(ts: TaskSet) -> None:
    """Raise :class:`InputError` naming the first task with D_i > T_i (see :data:`ARBITRARY_WHY`)."""
    for i in range(ts.n):
        if int(ts.D[i]) > int(ts.T[i]):
            raise InputError(
                f"bak: D = {int(ts.D[i])} > T = {int(ts.T[i])}; {ARBITRARY_WHY}", task=ts.label(i), field="deadlines"
            )


def beta(ts: TaskSet, k: int, i: int) -> Fraction:
    """Baker's β_k(i) with λ = λ_k = C_k/D_k, exactly  [β_k(i)]."""
    C_i, D_i, T_i = (int(x) for x in (ts.C[i], ts.D[i], ts.T[i]))
    D_k = int(ts.D[k])
    lam_k = Fraction(int(ts.C[k]), D_k)
    u_i = Fraction(C_i, T_i)
    value = u_i * (1 + Fraction(T_i - D_i, D_k))
    if lam_k < u_i:
        value += (C_i - lam_k * T_i) / D_k
    return value


def task_condition(ts: TaskSet, k: int, m: int, work: Work | None = None) -> tuple[bool, Fraction, Fraction]:
    """(holds, Σ_i min(1, β_k(i)), m (1 − λ_k) + λ_k) for task k  [BAK].

    ``work`` (optional) is charged before the sum: two units per term (each builds several
    Fractions) and more as its denominator, at most the product of the T_i, grows beyond
    4096 bits (:mod:`rtsched.budget`).
    """
    if work is not None:
        bits = sum(int(t).bit_length() for t in ts.T)
        work.spend(ts.n * (2 + (bits >> 12)))
    lam_k = Fraction(int(ts.C[k]), int(ts.D[k]))
    lhs = fraction_sum(min(Fraction(1), beta(ts, k, i)) for i in range(ts.n))
    rhs = m * (1 - lam_k) + lam_k
    return lhs <= rhs, lhs, rhs


def reference(ts: TaskSet, m: int, work_budget: int | None = REFERENCE_WORK) -> Verdict:
    """Exact BAK verdict in Fractions ("unknown" if the reference work budget runs out first).

    Refuses a set with some D_i > T_i (:class:`InputError`, :data:`ARBITRARY_WHY`).
    """
    _refuse_arbitrary(ts)
    work = Work(work_budget)
    return every_task_holds(ts.n, lambda k: task_condition(ts, k, m, work)[0])


def explain(ts: TaskSet, m: int, work_budget: int | None = REFERENCE_WORK) -> Explanation:
    """Per task both sides of (BAK), exactly; the first failing task if any (D > T refused as in :func:`reference`)."""
    _refuse_arbitrary(ts)
    work = Work(work_budget)

    def row(k: int) -> dict[str, object]:
        holds, lhs, rhs = task_condition(ts, k, m, work)
        return {"task": k, "lhs": lhs, "rhs": rhs, "holds": holds}

    scan = scan_tasks(ts.n, row)
    return scan.explanation(
        ts,
        work,
        work_budget,
        passes=lambda label, r: (
            f"every task passes; tightest {label}: "
            + show_comparison("Σ min(1, β_k(i))", r["lhs"], "≤", "m(1 − λ_k) + λ_k", r["rhs"])
        ),
        fails=lambda label, r: (
            f"{label} fails: " + show_comparison("Σ min(1, β_k(i))", r["lhs"], ">", "m(1 − λ_k) + λ_k", r["rhs"])
        ),
        steps=lambda: steps(ts, m, scan.rows),
    )


#: β_k(i) of every i is written out for sets of at most this many tasks.
_TERMS_SHOWN = 8


def steps(ts: TaskSet, m: int, rows: list[dict[str, object]]) -> Iterator[Step]:
    """Per task τk (the ``rows`` :func:`explain` computed): λ_k, the β_k(i), both sides of (BAK)."""
    for row in rows:
        k = int(row["task"])  # type: ignore[call-overload]
        lam_k = Fraction(int(ts.C[k]), int(ts.D[k]))
        yield Step(f"{ts.label(k)}: λ_k = C_k/D_k = {int(ts.C[k])}/{int(ts.D[k])} = " + "{lam}", {"lam": lam_k})
        if ts.n <= _TERMS_SHOWN:
            terms = {f"b{i}": beta(ts, k, i) for i in range(ts.n)}
            yield Step("  β_k(i): " + ", ".join(f"i = {i}: {{b{i}}}" for i in range(ts.n)), terms)
        holds = bool(row["holds"])
        yield Step(
            "  Σ_i min(1, β_k(i)) = {lhs} "
            + ("≤" if holds else ">")
            + f" m(1 − λ_k) + λ_k = {m}·(1 − "
            + "{lam}) + {lam} = {rhs}"
            + (": holds" if holds else ": fails, not proven"),
            {"lhs": row["lhs"], "rhs": row["rhs"], "lam": lam_k},
        )
    yield from scan_closing_steps(ts.n, rows, "BAK")


@kernel(inline="always")
def _bak_row(C, D, T, floats, m, k):  # floats[0]: the u_i
    # D_k·(BAK) for τk: Σ_i min(D_k, y_i) ≤ m (D_k − C_k) + C_k with
    # y_i = D_k β_k(i) = u_i (T_i − D_i + D_k) + max(0, (C_i D_k − C_k T_i)/D_k).
    # Error budget (all terms ≥ 0): u_i has relative error ≤ ε and T_i − D_i + D_k < 2**33 is
    # exact, so the first product is within 2ε; C_i D_k − C_k T_i is an exact int64 (< 2**62)
    # whose conversion, the reciprocal of D_k and the product add ≤ 3ε; the sum of the two ≤ 4ε
    # more than ε; clamping at D_k never increases the absolute error; summing n terms adds
    # ≤ (n − 1)ε relative to the sum. Total ≤ (n + 5)·ε·1.01·lhs; we use 4·(n + 8)·ε·(lhs + rhs),
    # which also covers the final subtraction. The right side is an exact integer < 2**53.
    n = C.shape[0]
    C_k = C[k]
    D_k = D[k]
    D_k_f = np.float64(D_k)
    inv_D_k = 1.0 / D_k_f
    lhs = 0.0
    for i in range(n):
        y = floats[0, i] * np.float64(T[i] - D[i] + D_k)
        excess = C[i] * D_k - C_k * T[i]  # > 0 exactly when λ_k < u_i
        if excess > 0:
            y += np.float64(excess) * inv_D_k
        lhs += y if y < D_k_f else D_k_f
    rhs = np.float64(m * (D_k - C_k) + C_k)
    return margin_verdict(lhs - rhs, 4.0 * (n + 8) * EPS * (lhs + rhs))


@kernel(inline="always")
def _bak_ws(C, D, T, m, ints, floats):
    # The verdict is a conjunction over k (REJECT if some row fails outside its margin, else
    # UNDECIDED if some row is within it), so the order of the rows cannot change it. The task
    # with the least slack D_k − C_k goes first: on random sets its row is almost always the one
    # that fails (papers/baker2003.md), so a rejection costs one row.
    n = C.shape[0]
    for i in range(n):  # row 0 of the workspace (one per chunk of sets: no allocation per set)
        floats[0, i] = np.divide(C[i], T[i])  # np.divide: no zero-division check (T_i ≥ 1), so it vectorises
    first = 0
    for k in range(1, n):
        if D[k] - C[k] < D[first] - C[first]:
            first = k
    verdict = _bak_row(C, D, T, floats, m, first)
    if verdict == REJECT:
        return REJECT
    undecided = verdict == UNDECIDED
    for k in range(n):
        if k != first:
            verdict = _bak_row(C, D, T, floats, m, k)
            if verdict == REJECT:
                return REJECT
            undecided |= verdict == UNDECIDED
    return UNDECIDED if undecided else ACCEPT


_bak_kernel, _bak_one = workspace_kernels(_bak_ws, floats=1)


ANALYSES = (
    closed_form_global_edf(
        name="bak",
        title="Baker's test (BCL-simplified)",
        order=1,
        citation=CITATION,
        note="papers/baker2003.md",
        reference=reference,
        explain=explain,
        kernel=_bak_kernel,
        one=_bak_one,
        compile_seconds=2.3,
        deadlines_note=ARBITRARY_WHY,
    ),
)
