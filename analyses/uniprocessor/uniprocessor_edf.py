"""Exact uniprocessor EDF tests: processor demand (``uni-pda``) and QPA (``uni-qpa``).

* ``uni-pda``: the processor-demand criterion (Baruah, Rosier, Howell, Real-Time Systems 2(4),
  1990): a sporadic set is EDF-schedulable on one processor iff U ≤ 1 and h(t) ≤ t at every
  absolute deadline t < L, with L = min(L_a, L_b): L_a the bound of George, Rivierre, Spuri
  (INRIA RR-2966, 1996) and L_b the synchronous busy period. Every deadline below L is checked
  in increasing order; ``explain`` gives the first t with h(t) > t.
* ``uni-qpa``: Quick Processor-demand Analysis, Zhang & Burns, "Schedulability analysis for
  real-time systems with EDF scheduling", IEEE TC 58(9), 2009, Thm. 5 and its algorithm.

Both accept constrained and arbitrary deadlines, answer at once when U > 1, terminate when U = 1
exactly (L = L_b then) and carry a work budget (``DEFAULT_BUDGET`` steps; exhaustion is
"unknown", never False). Equations, numbering and a worked example: papers/zhang-burns2009-qpa.md.
The shared machinery (reference and ``@njit`` kernels) is in ``analyses/theory/edf_demand.py``.
The registry applies these analyses only when m == 1 (platform ``uniprocessor``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from fractions import Fraction

from rtsched.analyses.theory.edf_demand import (
    DEFAULT_BUDGET,
    DemandTrace,
    deadline_steps,
    demand,
    pda_one_ws,
    pda_trace,
    prev_deadline,
    qpa_one_ws,
    qpa_trace,
)
from rtsched.budget import REFERENCE_WORK, Work
from rtsched.kernels import kernel, workspace_kernels
from rtsched.model import TaskSet, fraction_sum
from rtsched.registry import Analysis
from rtsched.result import Explanation, Step, Verdict, count, show_number

__all__ = [
    "ANALYSES",
    "explain_pda",
    "explain_qpa",
    "pda_reference",
    "pda_steps",
    "qpa_reference",
    "qpa_steps",
]

CITATION_PDA = (
    "Baruah, Rosier, Howell, 'Algorithms and complexity concerning the preemptive scheduling of "
    "periodic, real-time tasks on one processor', Real-Time Systems 2(4), 1990 (processor-demand "
    "criterion); bound L = min(L_a, L_b) with L_a of George, Rivierre, Spuri (INRIA RR-2966, 1996), "
    "as stated in Zhang & Burns, IEEE TC 58(9), 2009, Thm. 1-3"
)
CITATION_QPA = (
    "Zhang, Burns, 'Schedulability analysis for real-time systems with EDF scheduling', "
    "IEEE Transactions on Computers 58(9), 2009, Thm. 5 (QPA)"
)


def pda_reference(
    ts: TaskSet, m: int = 1, budget: int = DEFAULT_BUDGET, work_budget: int | None = REFERENCE_WORK
) -> Verdict:
    """Exact processor-demand verdict (Python ints/Fractions; "unknown" past a budget)."""
    return pda_trace(ts.rows(), budget, Work(work_budget)).verdict


def qpa_reference(
    ts: TaskSet, m: int = 1, budget: int = DEFAULT_BUDGET, work_budget: int | None = REFERENCE_WORK
) -> Verdict:
    """Exact QPA verdict (Python ints/Fractions; "unknown" past a budget)."""
    return qpa_trace(ts.rows(), budget, Work(work_budget)).verdict


@kernel(inline="always")
def _qpa_ws(C, D, T, m, budget, ints, floats):
    """QPA on one set in scratch rows (``m`` is 1: the registry admits only a uniprocessor)."""
    return qpa_one_ws(C, D, T, budget, floats[0], ints[0])[0]


@kernel(inline="always")
def _pda_ws(C, D, T, m, budget, ints, floats):
    """The processor-demand criterion on one set in scratch rows (``m`` is 1, as above)."""
    return pda_one_ws(C, D, T, budget, floats[0], ints[0])


_qpa_kernel, _qpa_set = workspace_kernels(_qpa_ws, ints=1, floats=1)
_pda_kernel, _pda_set = workspace_kernels(_pda_ws, ints=1, floats=1)


def _show(x: Fraction | int | None) -> str:
    """:func:`rtsched.result.show_number`, with ``-`` for a value the trace did not reach."""
    return "-" if x is None else show_number(x)


def trace_summary(tr: DemandTrace, budget: int) -> str:
    """One line explaining a QPA/PDA trace (one message per :attr:`DemandTrace.reason`)."""
    U = _show(tr.utilization)
    bound = f"L = {_show(tr.L)} (L_a = {_show(tr.La)}, L_b = {_show(tr.Lb) if tr.Lb is not None else 'not needed'})"
    checked = f"h(t) ≤ t on every deadline < {bound}"
    messages = {
        "work": f"unknown: the reference work budget ran out (rtsched.budget) after {tr.steps} steps",
        "U>1": f"U = {U} > 1",
        "density": f"density Σ C_i/min(D_i, T_i) ≤ 1 (U = {U}): schedulable without a demand search",
        "budget": f"unknown: work budget of {count(budget, 'step')} exhausted (U = {U}, L_a = {_show(tr.La)})",
        "violation": f"h({_show(tr.t)}) = {_show(tr.h)} > {_show(tr.t)}; U = {U}, {bound}",
        "no-deadline": f"no absolute deadline below {bound}; U = {U}",
        "qpa-exit": f"{checked}; QPA ended at h({_show(tr.t)}) = {_show(tr.h)} ≤ d_min; {count(tr.steps, 'step')}",
    }
    return messages.get(tr.reason, f"{checked} (last checked t = {_show(tr.t)}); {count(tr.steps, 'step')}")


#: The terms of h(t) are written out for sets of at most this many tasks.
_TERMS_SHOWN = 8


def _demand_terms(rows: list[tuple[int, int, int]], t: int) -> str:
    """``h(t) = 2·1 + 1·3 + 0·2`` (jobs with deadline ≤ t times C, per task) for a small set."""
    if len(rows) > _TERMS_SHOWN:
        return ""
    jobs = [(t - d) // p + 1 if t >= d else 0 for _, d, p in rows]
    return " = " + " + ".join(f"{j}·{c}" for j, (c, _, _) in zip(jobs, rows, strict=True))


def _prologue_steps(tr: DemandTrace, rows: list[tuple[int, int, int]]) -> Iterator[Step]:
    """U, and the bound L = min(L_a, L_b) when the trace computed it  [Zhang & Burns, Thm. 1-3]."""
    shown = " + ".join(f"{c}/{p}" for c, _, p in rows) if len(rows) <= _TERMS_SHOWN else "Σ C_i/T_i"
    yield Step("U = " + shown + " = {U}", {"U": tr.utilization})
    if tr.reason == "U>1":
        yield Step(
            "U = {U} > 1: NOT schedulable (the demand exceeds the supply in the long run)", {"U": tr.utilization}
        )
        return
    if tr.reason in ("density", "work"):
        return
    if tr.La is not None:
        yield Step(
            "L_a = max(max_i(D_i − T_i), Σ(T_i − D_i)·U_i / (1 − U)) = {La}  [George, Rivierre, Spuri 1996]",
            {"La": tr.La},
        )
    else:
        yield Step("U = 1: L_a does not exist; L = L_b")
    if tr.Lb is not None:
        yield Step("L_b = least w with w = Σ⌈w/T_i⌉·C_i (synchronous busy period) = {Lb}", {"Lb": tr.Lb})
    elif tr.L is not None:
        yield Step("L_b not needed: the busy-period iteration passed L_a first")
    if tr.L is not None:
        yield Step("L = min(L_a, L_b) = {L}: only deadlines t < L need checking", {"L": tr.L})


def _stopped_before_L(tr: DemandTrace) -> Iterator[Step]:
    """Why a trace that ran out of a budget before L was known is "unknown" (nothing otherwise)."""
    if tr.reason == "work":
        yield Step("the reference's work budget ran out: unknown")
    elif tr.reason == "budget":
        yield Step(
            f"the work budget of {{budget}} {'step' if tr.steps == 1 else 'steps'} ran out before L was known: unknown",
            {"budget": tr.steps},
        )


def qpa_steps(ts: TaskSet, tr: DemandTrace) -> Iterator[Step]:
    """The QPA iterations behind ``tr`` (a :func:`qpa_trace` of ``ts``): each t, h(t) and the next t.

    Replays the algorithm of Zhang & Burns (2009, Thm. 5): from t = max{d < L}, while
    d_min < h(t) ≤ t: t ← h(t) if h(t) < t, else t ← max{d < t}. t decreases strictly, so the
    replay ends where the trace ended (its t and h(t)); where the trace's budget ran out, at its t.
    """
    rows = ts.rows()
    yield from _prologue_steps(tr, rows)
    if tr.reason == "density":
        density = fraction_sum(Fraction(c, min(d, p)) for c, d, p in rows)
        yield Step(
            "Σ C_i/min(D_i, T_i) = {density} ≤ 1: schedulable (density test; no QPA search needed)",
            {"density": density},
        )
        return
    if tr.reason in ("U>1", "work") or tr.L is None:
        yield from _stopped_before_L(tr)
        return
    d_min = min(d for _, d, _ in rows)
    ceiling = -(-tr.L.numerator // tr.L.denominator) if isinstance(tr.L, Fraction) else int(tr.L)
    t = prev_deadline(rows, ceiling)  # max{d < L}: for integer d, d < L iff d < ⌈L⌉
    if t is None:
        yield Step("no absolute deadline below L: schedulable")
        return
    yield Step("d_min = {d_min}; start at t = max{{d < L}} = {t}", {"d_min": d_min, "t": t})
    while True:
        if tr.reason == "budget" and t == tr.t:
            yield Step(
                f"t = {{t}}: the work budget of {{budget}} {'step' if tr.steps == 1 else 'steps'} ran out: unknown",
                {"t": t, "budget": tr.steps},
            )
            return
        h = demand(rows, t)
        head = "t = {t}: h(t)" + _demand_terms(rows, t) + " = {h}"
        if h > t:
            yield Step(head + " > t: deadline miss, NOT schedulable", {"t": t, "h": h})
            return
        if h <= d_min:
            yield Step(head + " ≤ d_min = {d_min}: stop, schedulable", {"t": t, "h": h, "d_min": d_min})
            return
        if h < t:
            yield Step(head + " < t: next t = h(t) = {next}", {"t": t, "h": h, "next": h})
            t = h
        else:
            nxt = prev_deadline(rows, t)
            yield Step(head + " = t: next t = max{{d < t}} = {next}", {"t": t, "h": h, "next": nxt})
            assert nxt is not None
            t = nxt


def pda_steps(ts: TaskSet, tr: DemandTrace) -> Iterator[Step]:
    """The deadlines checked by the processor-demand criterion behind ``tr`` (a :func:`pda_trace`).

    h(t) ≤ t at every absolute deadline t < L of ``ts``, in increasing order (Baruah, Rosier,
    Howell 1990), up to the first miss or, where the budget ran out, the trace's t.
    """
    rows = ts.rows()
    yield from _prologue_steps(tr, rows)
    if tr.reason in ("U>1", "work", "no-deadline") or tr.L is None:
        if tr.reason == "no-deadline":
            yield Step("no absolute deadline below L: schedulable")
        yield from _stopped_before_L(tr)
        return
    for t, h in deadline_steps(rows):
        if t >= tr.L:
            break
        if tr.reason == "budget" and t == tr.t:
            yield Step(
                f"t = {{t}}: the work budget of {{budget}} {'step' if tr.steps == 1 else 'steps'} ran out: unknown",
                {"t": t, "budget": tr.steps},
            )
            return
        head = "t = {t}: h(t)" + _demand_terms(rows, t) + " = {h}"
        if h > t:
            yield Step(head + " > t: deadline miss, NOT schedulable", {"t": t, "h": h})
            return
        yield Step(head + " ≤ t", {"t": t, "h": h})
    yield Step("h(t) ≤ t at every deadline t < L = {L}: schedulable", {"L": tr.L})


def _explain(trace: Callable[..., DemandTrace], ts: TaskSet, budget: int, work_budget: int | None) -> Explanation:
    tr = trace(ts.rows(), budget, Work(work_budget))
    replay = qpa_steps if trace is qpa_trace else pda_steps
    evidence = {
        "utilization": tr.utilization,
        "La": tr.La,
        "Lb": tr.Lb,
        "L": tr.L,
        "steps": tr.steps,
        "budget": budget,
        "work_budget": work_budget,
        "reason": tr.reason,
    }
    if tr.reason == "violation":
        evidence["t"] = tr.t
        evidence["h(t)"] = tr.h
    return Explanation(
        verdict=tr.verdict,
        summary=trace_summary(tr, budget),
        evidence={k: v for k, v in evidence.items() if v is not None},
        steps=lambda: replay(ts, tr),
    )


def explain_qpa(
    ts: TaskSet, m: int = 1, budget: int = DEFAULT_BUDGET, work_budget: int | None = REFERENCE_WORK
) -> Explanation:
    """QPA verdict with the bound L used, the steps and, on failure, a t with h(t) > t."""
    return _explain(qpa_trace, ts, budget, work_budget)


def explain_pda(
    ts: TaskSet, m: int = 1, budget: int = DEFAULT_BUDGET, work_budget: int | None = REFERENCE_WORK
) -> Explanation:
    """Processor-demand verdict with L and, on failure, the first t with h(t) > t."""
    return _explain(pda_trace, ts, budget, work_budget)


#: The two exact uniprocessor EDF tests share their platform, models, note and budget.
_uniprocessor_edf = functools.partial(
    Analysis, kind="exact", platform="uniprocessor", deadlines=("implicit", "constrained", "arbitrary"),
    policy="edf", policy_order=6,
    note="papers/zhang-burns2009-qpa.md", budget=DEFAULT_BUDGET, budget_unit="steps",
)
ANALYSES = (
    _uniprocessor_edf(
        name="uni-qpa", title="EDF QPA (uniprocessor, exact)", order=0, citation=CITATION_QPA,
        reference=qpa_reference, explain=explain_qpa, kernel=_qpa_kernel, one=_qpa_set,
    ),
    _uniprocessor_edf(
        name="uni-pda", title="EDF processor demand (uniprocessor, exact)", order=1, citation=CITATION_PDA,
        reference=pda_reference, explain=explain_pda, kernel=_pda_kernel, one=_pda_set,
    ),
)
