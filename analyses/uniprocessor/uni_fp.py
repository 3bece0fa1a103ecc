"""Uniprocessor fixed-priority analyses: ``uni-rta`` (exact), ``rm-ll`` and ``rm-hb`` (bounds).

Priorities are the order of the tasks in the set, index 0 highest (``rtsched.priorities``
reorders a set by deadline-monotonic, rate-monotonic or Audsley's optimal assignment). Policy
``fp``: preemptive fixed priorities on one processor.

* ``uni-rta``: exact response-time analysis (Joseph & Pandya, "Finding response times in a
  real-time system", The Computer Journal 29(5), 1986; Audsley, Burns, Richardson, Tindell,
  Wellings, "Applying new scheduling theory to static priority pre-emptive scheduling", Software
  Engineering Journal 8(5), 1993: the response-time recurrence (RTA)); any priority order.
  Arbitrary deadlines (D > T; the jobs of a task run in release order): the level-k busy period
  with several jobs of τk (Lehoczky, RTSS 1990; Tindell, Burns, Wellings, Real-Time Systems 6(2),
  1994: w_k(q) = (q + 1)·C_k + Σ_{i<k} ⌈w_k(q)/T_i⌉·C_i, R_k = max_q w_k(q) − q·T_k over the jobs
  of the busy period), exact as well; on constrained sets it runs the very same evaluations as
  (RTA). See papers/joseph-pandya1986-rta.md, papers/tindell1994-arbitrary-deadlines.md and the
  shared machinery in ``analyses/theory/fp_rta.py``.
* ``rm-ll``: the Liu & Layland bound (Liu, Layland, "Scheduling algorithms for multiprogramming
  in a hard-real-time environment", JACM 20(1), 1973, Thm. 5): n tasks with implicit deadlines
  are schedulable by rate-monotonic priorities if U ≤ n(2^{1/n} − 1). See papers/liu-layland1973.md.
* ``rm-hb``: the hyperbolic bound (Bini, Buttazzo, Buttazzo, "Rate monotonic analysis: the
  hyperbolic bound", IEEE TC 52(7), 2003, Thm. 1): schedulable by RM if Π (U_i + 1) ≤ 2. See
  papers/bini-buttazzo-buttazzo2003-hyperbolic.md.

What the bounds mean for a set not in RM order (rtsched's choice): both theorems are about
rate-monotonic priorities, and a verdict here is always about the priorities the set gives. A set
whose periods are non-decreasing along the index is in RM order (ties between equal periods in
any order: tasks with equal periods are interchangeable in both proofs) and the bound decides. A
set in another order gets False ("not proven for these priorities"; the bound may fail for them:
τ0 = (C, T) = (2, 8) above τ1 = (1, 2) has U = 0.75 < 0.828, yet τ1's response time is 3 > 2), and the
summary says what the bound says under RM, with ``rtsched check --priorities rm`` as the way to
ask for RM priorities. So ``rm-ll``/``rm-hb`` never accept a set ``uni-rta`` rejects.

Exactness. ``uni-rta`` is in int64 (``_fp_rta``). ``rm-hb``: exact reference Π (C_i + T_i) ≤
2 Π T_i in Python ints; the kernel multiplies float factors (C_i + T_i)/T_i (one rounding each)
and returns UNDECIDED within 4(n + 2)·EPS of 2 (the product of n correctly rounded factors with n
− 1 rounded multiplications has relative error below 2n·EPS/(1 − 2n·EPS)). ``rm-ll``: the bound
is irrational for n ≥ 2, so the exact reference brackets it with decimal arithmetic of
increasing precision (an interval of proven width, never equal to the rational U); the kernel
sums U in float and returns UNDECIDED within 8(n + 8)·EPS·(U + B + 1) of the bound.
"""

from __future__ import annotations

import decimal
import functools
import math
from collections.abc import Callable, Generator, Iterator, Mapping, Sequence
from fractions import Fraction

import numpy as np

from rtsched.analyses.theory.fp_rta import (
    DEFAULT_BUDGET,
    RtaRun,
    busy_period,
    interference_terms,
    response_times,
    rta_from_nb,
)
from rtsched.analyses.theory.fp_rta import BudgetOut as _BudgetOut
from rtsched.budget import REFERENCE_WORK, Work, WorkExhausted
from rtsched.kernels import EPS, REJECT, kernel, margin_verdict, sets_kernel, workspace_kernels
from rtsched.model import TaskSet
from rtsched.registry import Analysis
from rtsched.result import UNKNOWN, Explanation, Step, Verdict, count, show_number

__all__ = [
    "ANALYSES",
    "CITATION_HB",
    "CITATION_LL",
    "CITATION_RTA",
    "DEFAULT_BUDGET",
    "explain_hb",
    "explain_ll",
    "explain_rta",
    "fits_lowest",
    "hb_reference",
    "in_rm_order",
    "liu_layland_bound",
    "ll_reference",
    "rta",
    "rta_fits_lowest",
    "rta_reference",
    "rta_steps",
]

CITATION_RTA = (
    "Joseph, Pandya, 'Finding response times in a real-time system', The Computer Journal 29(5), 1986; "
    "Audsley, Burns, Richardson, Tindell, Wellings, 'Applying new scheduling theory to static priority "
    "pre-emptive scheduling', Software Engineering Journal 8(5), 1993 (response-time recurrence); arbitrary "
    "deadlines: Lehoczky, 'Fixed priority scheduling of periodic task sets with arbitrary deadlines', RTSS 1990, and "
    "Tindell, Burns, Wellings, 'An extendible approach for analysing fixed priority hard real-time tasks', "
    "Real-Time Systems 6(2), 1994 (level-i busy period, w(q) and R = max_q w(q) - qT); start values of "
    "Davis, Zabos, Burns, IEEE TC 57(9), 2008"
)
CITATION_LL = (
    "Liu, Layland, 'Scheduling algorithms for multiprogramming in a hard-real-time environment', "
    "JACM 20(1), 1973, Thm. 5 (U ≤ n(2^(1/n) − 1) under rate-monotonic priorities)"
)
CITATION_HB = (
    "Bini, Buttazzo, Buttazzo, 'Rate monotonic analysis: the hyperbolic bound', IEEE Transactions "
    "on Computers 52(7), 2003, Thm. 1 (Π (U_i + 1) ≤ 2 under rate-monotonic priorities)"
)


# ---------------------------------------------------------------------------------------------
# uni-rta
# ---------------------------------------------------------------------------------------------


def rta(ts: TaskSet, budget: int = DEFAULT_BUDGET, work_budget: int | None = REFERENCE_WORK) -> RtaRun:
    """(RTA) for every task in priority order, stopping at the first miss (Python ints).

    The verdict is "unknown" if the (RTA) budget or the reference's work budget runs out.
    """
    try:
        return response_times(ts.rows(), budget=budget, work=Work(work_budget))
    except WorkExhausted:
        return RtaRun(UNKNOWN, (None,) * ts.n, None, 0)


def rta_reference(
    ts: TaskSet, m: int = 1, budget: int = DEFAULT_BUDGET, work_budget: int | None = REFERENCE_WORK
) -> Verdict:
    """Exact: every task's least fixed point of (RTA) is at most its deadline."""
    return rta(ts, budget, work_budget).verdict


def rta_fits_lowest(ts: TaskSet, k: int, higher: Sequence[int], budget: int = DEFAULT_BUDGET) -> bool:
    """Audsley's question for (RTA): whether τk meets its deadline below exactly the tasks ``higher``.

    The least fixed point of R = C_k + Σ_{i ∈ higher} ⌈R/T_i⌉ C_i (with D > T: every w_k(q) of
    the busy period, TBW-w) depends on the set ``higher``, not on its order (OPA-compatible:
    Audsley 1991/2001). A budget that runs out answers False (not proven at that level), which
    keeps an assignment found with it sound.
    """
    every = ts.rows()
    rows = [every[i] for i in higher] + [every[k]]
    start = sum(c for c, _, _ in rows)  # Σ C over the task and those above it
    try:
        it = busy_period(rows, len(rows) - 1, start, budget, None)
    except _BudgetOut:
        return False
    return it.response_time is not None


def fits_lowest(test: str, m: int) -> Callable[[TaskSet, int, Sequence[int]], bool]:
    """The OPA callback ``fits_lowest(ts, k, higher)`` of ``"uni-rta"`` (m must be 1).

    For ``rtsched.priorities.audsley`` (the convention ``rtsched.priorities.opa_test`` looks for).
    """
    if test != "uni-rta":
        raise KeyError(test)
    if m != 1:
        raise ValueError("uni-rta is a uniprocessor test (m = 1)")
    return rta_fits_lowest


def explain_rta(
    ts: TaskSet, m: int = 1, budget: int = DEFAULT_BUDGET, work_budget: int | None = REFERENCE_WORK
) -> Explanation:
    """Per-task response times, and the evidence for the first task that misses.

    For that task: the last iterate R ≤ D, the right side of (RTA) there and its interference
    terms ⌈R/T_i⌉ C_i.
    """
    rows = ts.rows()
    run = rta(ts, budget, work_budget)
    response: list[int | str | None] = list(run.response)  # _finish_rows adds "> D" below a miss
    evidence: dict[str, object] = {"evaluations": run.used, "budget": budget}
    if run.verdict is False:
        assert run.failing is not None and run.failed_search is not None
        k, it = run.failing, run.failed_search
        C_k, D_k, T_k = rows[k]
        terms = interference_terms(rows, k, it.last)
        shown = " + ".join(f"{-(-it.last // rows[i][2])}·{rows[i][0]}" for i in range(k))
        if it.job == 0:
            where = (
                f"at R = {it.last}"
                if it.last <= D_k
                else f"R ≥ {it.last} > D (R of the task above + C), and at R = {it.last}"
            )
            summary = (
                f"{ts.label(k)} misses: {where}, C + Σ⌈R/T_i⌉·C_i = {C_k}"
                + (f" + {shown}" if k else "")
                + f" = {it.value} > D = {D_k}"
            )
        else:
            q = it.job
            summary = (
                f"{ts.label(k)} misses with job q = {q} of its level-{k} busy period (released at {q * T_k}): "
                f"at w = {it.last}, (q+1)·C + Σ⌈w/T_i⌉·C_i = {(q + 1) * C_k}"
                + (f" + {shown}" if k else "")
                + f" = {it.value} > q·T + D = {q * T_k + D_k}, so R(q) = w(q) − q·T > D = {D_k}"
            )
        evidence.update(
            failing_task=k,
            last_iterate=it.last,
            demand=it.value,
            deadline=D_k,
            interference={ts.label(i): terms[i] for i in range(k)},
        )
        if it.job:
            evidence.update(failing_job=it.job, busy_period_jobs=[{"q": q, "w": w, "R": r} for q, (w, r) in enumerate(it.jobs)])
        _finish_rows(rows, response, k + 1, budget - run.used)  # best effort, for the table only
    elif run.verdict is True:
        # run.response: the same values as response, typed int | None
        worst = max(range(ts.n), key=lambda j: Fraction(run.response[j] or 0, rows[j][1]))
        summary = (
            f"R ≤ D for every task; tightest {ts.label(worst)}: R = {response[worst]} ≤ D = {rows[worst][1]}"
            f" ({count(run.used, 'evaluation')} of (RTA))"
        )
    else:
        summary = (
            f"unknown: the budget of {count(budget, 'evaluation')} of (RTA) or the reference's work budget ran out "
            f"(response times known for {sum(r is not None for r in response)} of {ts.n} tasks)"
        )
    per_task = []
    arbitrary = any(d > t for _, d, t in rows)
    for j, (c, d, t) in enumerate(rows):
        row: dict[str, object] = {"task": j, "C": c, "D": d, "T": t, "response_time": response[j]}
        if isinstance(response[j], int):
            row["slack"] = d - response[j]  # type: ignore[operator]
            row["interference"] = response[j] - c  # type: ignore[operator]
            if arbitrary:  # the jobs of the level-j busy period: w(q) and R(q) (TBW-w, TBW-R)
                jobs = _busy_jobs(rows, j)
                if jobs is not None:
                    row["jobs"] = len(jobs)
                    row["busy_period"] = "; ".join(f"w({q}) = {w}, R({q}) = {r}" for q, (w, r) in enumerate(jobs))
        elif run.failing == j:
            row["response_time"] = f"> {d}"
        elif response[j] is None:
            row["response_time"] = "-"
        per_task.append(row)
    return Explanation(
        verdict=run.verdict,
        summary=summary,
        evidence=evidence,
        per_task=per_task,
        steps=lambda: rta_steps(ts, run),
    )


def _busy_jobs(rows: list[tuple[int, int, int]], j: int) -> tuple[tuple[int, int], ...] | None:
    """(w_j(q), R_j(q)) of each job of τj's level-j busy period, from the textbook start (explanation table only)."""
    try:
        it = busy_period(rows, j, sum(c for c, _, _ in rows[: j + 1]), DEFAULT_BUDGET, Work(REFERENCE_WORK))
    except (_BudgetOut, WorkExhausted):
        return None
    return it.jobs


def rta_steps(ts: TaskSet, run: RtaRun) -> Iterator[Step]:
    """The (RTA) iterations of every task in priority order, as on the board, up to ``run``'s end.

    Each task starts from the textbook value R⁰ = Σ_{j ≤ k} C_j (Audsley et al. 1993) and iterates
    R^{n+1} = C_k + Σ_{i < k} ⌈R^n/T_i⌉·C_i until R^{n+1} = R^n (the response time) or R^{n+1} > D_k
    (a miss). The reference starts some tasks higher (from R_{k−1} + C_k, a lower bound of the same
    least fixed point; Davis, Zabos, Burns 2008), so its evaluation count may be smaller; the
    response times and the first task that misses are the same.
    """
    rows = ts.rows()
    last = ts.n if run.failing is None else run.failing + 1
    if run.verdict == UNKNOWN:
        last = sum(r is not None for r in run.response)
    for k in range(last):
        C_k, D_k, T_k = rows[k]
        R = sum(c for c, _, _ in rows[: k + 1])
        label = ts.label(k)
        if k == 0 and C_k <= T_k:  # nothing above it: R = C at once (the loop would print R¹ = C = C = R⁰)
            if C_k > D_k:
                yield Step(f"{label}: no task above it, R = C = {C_k} > D = {D_k}: {label} misses its deadline, NOT schedulable")
                return
            yield Step(f"{label}: no task above it, so R = " + "{value}" + f" = C ≤ D = {D_k}", {"value": C_k})
            continue
        yield Step(f"{label}: R⁰ = Σ C (this task and those above) = " + "{R}", {"R": R})
        if not (yield from _job_steps(rows, k, label, R)):
            return
    if run.verdict == UNKNOWN:
        yield Step("the budget ran out: unknown")
    elif run.verdict is True:
        yield Step("R ≤ D for every task: schedulable")


def _job_steps(rows: list[tuple[int, int, int]], k: int, label: str, R: int) -> Generator[Step, None, bool]:
    """The iterations of τk's jobs q = 0, 1, … of its level-k busy period (RTA; TBW-w, TBW-R) from R⁰ = ``R``.

    Returns (the generator's value) False if τk misses. A task whose first job completes by T_k
    (every task with D ≤ T that meets its deadline) has one job, shown exactly as (RTA).
    """
    C_k, D_k, T_k = rows[k]
    q = 0
    worst = 0
    while True:
        own = (q + 1) * C_k
        bound = q * T_k + D_k
        n = 0
        while True:
            n += 1
            terms = interference_terms(rows, k, R)
            value = own + sum(terms)
            shown = "".join(f" + ⌈{R}/{rows[i][2]}⌉·{rows[i][0]}" for i in range(k)) if k <= 8 else " + Σ⌈R/T_i⌉·C_i"
            if q == 0:
                head = f"  R{_superscript(n)} = {own}{shown} = " + "{value}"
            else:
                head = f"  w{_superscript(n)}({q}) = {q + 1}·{C_k}{shown.replace('R', 'w')} = " + "{value}"
            if value > bound:
                if q == 0:
                    yield Step(head + f" > D = {D_k}: {label} misses its deadline, NOT schedulable", {"value": value})
                else:
                    yield Step(
                        head + f" > q·T + D = {bound}: R({q}) = w({q}) − {q}·{T_k} > D = {D_k}: {label} misses its "
                        "deadline, NOT schedulable",
                        {"value": value},
                    )
                return False
            if value == R:
                break
            yield Step(head, {"value": value})
            R = value
        worst = max(worst, R - q * T_k)
        if q == 0 and R <= T_k:  # one job: (RTA) exactly
            yield Step(head + f" = R{_superscript(n - 1)}: R = " + "{value}" + f" ≤ D = {D_k}", {"value": value})
            return True
        done = R <= (q + 1) * T_k
        yield Step(
            head.replace("{value}", "{w}") + f": w({q}) = {R}, R({q}) = w({q}) − {q}·{T_k} = " + "{value}" + f" ≤ D = {D_k}; "
            + (
                f"w({q}) ≤ {q + 1}·T = {(q + 1) * T_k}: the busy period ends, R = max_q R(q) = {worst}"
                if done
                else f"w({q}) > {q + 1}·T = {(q + 1) * T_k}: job {q + 1} (released at {(q + 1) * T_k}) is in the busy "
                f"period, w⁰({q + 1}) = w({q}) + C = {R + C_k}"
            ),
            {"w": R, "value": R - q * T_k},
        )
        if done:
            return True
        q += 1
        R += C_k


def _superscript(n: int) -> str:
    """``n`` in superscript digits (R⁰, R¹, R¹²)."""
    return str(n).translate(str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹"))


def _finish_rows(rows: list[tuple[int, int, int]], response: list[int | str | None], first: int, left: int) -> None:
    """Response times of the tasks below a failing one, each from the textbook start Σ C.

    They are for the explanation's table; the verdict is already decided.
    """
    work = Work(REFERENCE_WORK)
    for j in range(first, len(rows)):
        try:
            it = busy_period(rows, j, sum(c for c, _, _ in rows[: j + 1]), max(0, left), work)
        except (_BudgetOut, WorkExhausted):
            return
        left -= it.evaluations
        response[j] = it.response_time if it.response_time is not None else f"> {rows[j][1]}"


@kernel(inline="always")
def _rta_set(C, D, T, m, budget, ints, floats):
    # One set on a caller's workspace (row 0: the response times, n ≥ 1 long): no allocation
    # per set, so the batch's chunk loop runs uncounted (rtsched.kernels.workspace_kernels).
    n = C.shape[0]
    R = ints[0]  # also the (zero) lower bounds: old[k] is read before R[k] is set
    for k in range(n):
        R[k] = 0
    code, _ = rta_from_nb(C, D, T, n, 0, R, R, budget)
    return code


_rta_kernel, _rta_one = workspace_kernels(_rta_set, ints=1)


# ---------------------------------------------------------------------------------------------
# RM order, Liu & Layland, hyperbolic bound
# ---------------------------------------------------------------------------------------------


def in_rm_order(ts: TaskSet) -> bool:
    """True if the periods never decrease along the priority order (a rate-monotonic order)."""
    return bool(np.all(ts.T[1:] >= ts.T[:-1]))


def _not_rm(ts: TaskSet) -> int | None:
    """The first index whose period is smaller than the one above it, or None (RM order)."""
    bad = np.flatnonzero(ts.T[1:] < ts.T[:-1])
    return int(bad[0]) + 1 if bad.size else None


def liu_layland_bound(n: int, digits: int = 30) -> tuple[Fraction, Fraction]:
    """An interval [lo, hi] of rationals containing n(2^{1/n} − 1) (Liu & Layland Thm. 5).

    Decimal arithmetic at p = ``digits`` + (digits of n) significant digits: ln 2 and exp are
    correctly rounded (Python's decimal), so with u = 10^{1−p} the computed 2^{1/n} − 1 is within
    10u of the true value and n times it within (10n + 1)u; the interval is that ± (10n + 2)u.
    """
    if n == 1:
        return Fraction(1), Fraction(1)
    p = digits + len(str(n))
    with decimal.localcontext() as ctx:
        ctx.prec = p
        x = decimal.Decimal(2).ln() / n
        value = (x.exp() - 1) * n
    u = Fraction(1, 10 ** (p - 1))
    err = (10 * n + 2) * u
    v = Fraction(value)
    return v - err, v + err


def ll_compare(U: Fraction, n: int) -> tuple[int, Fraction, Fraction]:
    """Exact sign of U − n(2^{1/n} − 1) (−1, 0 or 1) and the bracket used.

    The bracket is refined until it excludes U (it always does for n ≥ 2, where the bound is
    irrational).
    """
    digits = 30
    while True:
        lo, hi = liu_layland_bound(n, digits)
        if n == 1:
            return (U > 1) - (U < 1), lo, hi
        if U < lo:
            return -1, lo, hi
        if U > hi:
            return 1, lo, hi
        digits *= 2


def ll_reference(ts: TaskSet, m: int = 1) -> bool:
    """Exact: RM order and U ≤ n(2^{1/n} − 1) (Liu & Layland 1973, Thm. 5)."""
    if _not_rm(ts) is not None:
        return False
    return ll_compare(ts.utilization, ts.n)[0] <= 0


def explain_ll(ts: TaskSet, m: int = 1) -> Explanation:
    """Both sides of the Liu & Layland inequality, and the RM-order check."""
    U = ts.utilization
    n = ts.n
    sign, lo, hi = ll_compare(U, n)
    bound = (lo + hi) / 2
    rel = "≤" if sign <= 0 else ">"
    # irrational for n ≥ 2: its decimals, in either number style (its exact enclosure is in the evidence)
    shown = show_number(bound) if lo == hi else f"≈{float(bound):.6f}"
    text = f"U = {show_number(U)} {rel} n(2^(1/n) − 1) = {shown} (n = {n})"
    evidence = {"utilization": U, "bound_low": lo, "bound_high": hi, "n": n}
    last = Step(
        f"U = Σ U_i = {{U}} {rel} n(2^(1/n) − 1) = {shown} for n = {n} (Liu & Layland, Thm. 5)",
        {"U": U},
    )
    return _rm_bound_explanation(ts, sign <= 0, text, evidence, last)


def _rm_steps(ts: TaskSet, holds: bool, last: Step) -> Iterator[Step]:
    """An RM bound step by step: the order, each U_i, the comparison ``last``, the verdict."""
    bad = _not_rm(ts)
    if bad is None:
        yield Step("rate-monotonic order (T non-decreasing): the bound applies to these priorities")
    else:
        yield Step(
            f"not in rate-monotonic order (T of {ts.label(bad)} < T of {ts.label(bad - 1)}): the bound is for RM "
            "priorities only"
        )
    utilizations = {f"u{i}": Fraction(c, t) for i, (c, _, t) in enumerate(ts.rows())}
    yield Step("U_i = C_i/T_i: " + ", ".join(f"{ts.label(i)} {{u{i}}}" for i in range(ts.n)), utilizations)
    yield last
    if holds and bad is None:
        yield Step("the bound holds: schedulable by RM")
    elif holds:
        yield Step("the bound holds, but for RM priorities, not this order: not proven (use --priorities rm)")
    else:
        yield Step("the bound fails: not proven")


def _rm_bound_explanation(
    ts: TaskSet, holds: bool, text: str, evidence: Mapping[str, object], last: Step
) -> Explanation:
    """The explanation of an RM bound: ``text`` compares the set with it (``holds``), valid in RM order only.

    ``last`` is that comparison as the steps' last line before the verdict.
    """
    bad = _not_rm(ts)
    summary = text
    if bad is not None:
        summary = (
            f"not in rate-monotonic order (T of {ts.label(bad)} < T of {ts.label(bad - 1)}): the bound is for RM "
            f"priorities; under RM {text} (use --priorities rm)"
        )
    per_task = [{"task": i, "utilization": Fraction(c, t), "T": t} for i, (c, _, t) in enumerate(ts.rows())]
    return Explanation(
        verdict=holds and bad is None,
        summary=summary,
        evidence={**evidence, "rm_order": bad is None},
        per_task=per_task,
        steps=lambda: _rm_steps(ts, holds, last),
    )


def _product(values: list[int]) -> int:
    """Π values, multiplying in pairs (balanced: big products stay cheap)."""
    if not values:
        return 1
    while len(values) > 1:
        values = [values[j] * values[j + 1] for j in range(0, len(values) - 1, 2)] + (
            [values[-1]] if len(values) % 2 else []
        )
    return values[0]


def hb_reference(ts: TaskSet, m: int = 1) -> bool:
    """Exact: RM order and Π (U_i + 1) ≤ 2, i.e. Π (C_i + T_i) ≤ 2 Π T_i (Bini et al. 2003, Thm. 1)."""
    if _not_rm(ts) is not None:
        return False
    rows = ts.rows()
    return _product([c + t for c, _, t in rows]) <= 2 * _product([t for _, _, t in rows])


def explain_hb(ts: TaskSet, m: int = 1) -> Explanation:
    """The product Π (U_i + 1) against 2, and the RM-order check."""
    rows = ts.rows()
    product = Fraction(_product([c + t for c, _, t in rows]), _product([t for _, _, t in rows]))
    holds_bound = product <= 2
    rel = "≤" if holds_bound else ">"
    text = f"Π (U_i + 1) = {show_number(product, '.6f')} {rel} 2"
    last = Step(f"Π (U_i + 1) = {{product}} {rel} 2 (hyperbolic bound, Bini et al., Thm. 1)", {"product": product})
    return _rm_bound_explanation(ts, holds_bound, text, {"product": product, "utilization": ts.utilization}, last)


@kernel
def _rm_order_nb(T):
    for i in range(1, T.shape[0]):
        if T[i] < T[i - 1]:
            return False
    return True


@kernel(counted=False)
def _ll_one(C, D, T, m):
    if not _rm_order_nb(T):
        return REJECT
    n = C.shape[0]
    U = 0.0
    for i in range(n):
        U += C[i] / T[i]
    B = n * math.expm1(math.log(2.0) / n)
    # U: n correctly rounded terms and n − 1 rounded additions (relative error < 2n·EPS on
    # positive terms); B: log, division, expm1 and multiplication, a few ulps each; U − B one
    # more rounding. The margin is far larger than all three.
    return margin_verdict(U - B, 8.0 * (n + 8) * EPS * (U + B + 1.0))


_ll_kernel = sets_kernel(_ll_one)


@kernel(counted=False)
def _hb_one(C, D, T, m):
    if not _rm_order_nb(T):
        return REJECT
    n = C.shape[0]
    margin = 4.0 * (n + 2) * EPS
    stop = 2.0 * (1.0 + margin)
    P = 1.0
    for i in range(n):
        P *= (C[i] + T[i]) / T[i]  # exact numerator (< 2**33), one rounding
        if P > stop:  # every later factor is ≥ 1: the exact product exceeds 2 already
            return REJECT
    # here 1 ≤ P ≤ stop < 4, so P − 2 is exact (Sterbenz): ACCEPT iff P < 2(1 − margin)
    return margin_verdict(P - 2.0, 2.0 * margin)


_hb_kernel = sets_kernel(_hb_one)


ANALYSES = (
    Analysis(
        name="uni-rta", title="FP response-time analysis (uniprocessor, exact)", kind="exact", order=0,
        policy="fp", policy_order=7, platform="uniprocessor", deadlines=("implicit", "constrained", "arbitrary"),
        citation=CITATION_RTA, note="papers/joseph-pandya1986-rta.md",
        reference=rta_reference, explain=explain_rta, kernel=_rta_kernel, one=_rta_one,
        opa=functools.partial(fits_lowest, "uni-rta"),
        budget=DEFAULT_BUDGET, budget_unit="response-time evaluations",
    ),
    Analysis(
        name="rm-ll", title="Liu & Layland bound (RM, uniprocessor)", kind="sufficient", order=1,
        policy="fp", policy_order=7, platform="uniprocessor", deadlines=("implicit",),
        citation=CITATION_LL, note="papers/liu-layland1973.md",
        reference=ll_reference, explain=explain_ll, kernel=_ll_kernel, one=_ll_one,
    ),
    Analysis(
        name="rm-hb", title="Hyperbolic bound (RM, uniprocessor)", kind="sufficient", order=2,
        policy="fp", policy_order=7, platform="uniprocessor", deadlines=("implicit",),
        citation=CITATION_HB, note="papers/bini-buttazzo-buttazzo2003-hyperbolic.md",
        reference=hb_reference, explain=explain_hb, kernel=_hb_kernel, one=_hb_one,
    ),
)
