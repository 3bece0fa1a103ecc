"""Devi and Anderson's tardiness bound for global EDF (soft real-time); see papers/devi-anderson2008-tardiness.md.

U. C. Devi and J. H. Anderson, "Tardiness bounds under global EDF scheduling on a
multiprocessor", RTSS 2005, and Real-Time Systems 38(2), 2008. Sporadic tasks with implicit
deadlines (D = T), costs e_i = C_i, utilizations u_i = C_i / T_i, on m identical processors under
preemptive global EDF; a task's jobs run one at a time in release order. If

    U_sum ≤ m  and  u_i ≤ 1 for every task                                    (DA-cond)

then every job of τ_k completes at most x + e_k after its deadline, with

    Λ   = U_sum − 1 if U_sum is integral, else ⌊U_sum⌋   ( = ⌈U_sum⌉ − 1 )      (DA-Λ)
    E_L = the sum of the Λ largest execution costs                             (DA-E)
    U_L = the sum of the Λ − 1 largest utilizations                            (DA-U)
    x   = (E_L − e_min) / (m − U_L)                                            (DA-x)
    tardiness(τ_k) ≤ x + e_k                                                   (DA-bound)

(the paper's E_max(Λ) and U_max(Λ − 1); the form of the theorem as quoted in Devi's thesis,
Corollary 4.11, and by SchedCAT; papers/devi-anderson2008-tardiness.md says what could be
checked in the text and what could not). rtsched takes x = max(0, ·): with U_sum ≤ 1, Λ = 0 and
(DA-x) is negative, while global EDF then meets every deadline (GFB: U ≤ 1 ≤ m − (m − 1)·u_max),
so the bound e_k holds. The denominator is never zero under (DA-cond): U_L ≤ Λ − 1 ≤ ⌈U_sum⌉ − 2
≤ m − 2, so m − U_L ≥ 2.

The verdict of the registered analysis ``tardiness-da`` is whether tardiness is bounded: True
iff (DA-cond). That is exact for global EDF on this model: (DA-cond) suffices by the theorem,
and it is necessary (U_sum > m: with periodic releases the backlog grows by (U_sum − m)·H every
hyperperiod H; u_i > 1: task i's own jobs, run one at a time, fall behind by (C_i − T_i) per
period). The per-task bounds are in :func:`tardiness_bounds` and in ``explain``'s rows.

The bound is exact rational arithmetic (Fractions), not rounded: with integer release times and
costs every finish time is an integer tick, so the observed tardiness is at most ⌊x + e_k⌋
(shown as ``bound_ticks``); rounding x up, as SchedCAT does, would only loosen the bound.

Layers: :func:`reference` (Fractions), ``_da_one`` (float with a proven error margin; sets
inside the margin are UNDECIDED and the registry re-decides them by the reference),
``_da_kernel`` (prange).
"""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction

from rtsched.errors import InputError
from rtsched.kernels import EPS, REJECT, kernel, margin_verdict, sets_kernel
from rtsched.model import TaskSet, fraction_sum
from rtsched.registry import Analysis
from rtsched.result import Explanation, Step, show_number

__all__ = ["ANALYSES", "bounded", "explain", "reference", "steps", "tardiness_bounds", "terms"]

CITATION = (
    "Devi, Anderson, 'Tardiness bounds under global EDF scheduling on a multiprocessor', RTSS 2005 "
    "and Real-Time Systems 38(2), 2008 (bounded tardiness iff U ≤ m and u_i ≤ 1; bound x + e_k, "
    "x = (E_max(Λ) − e_min)/(m − U_max(Λ − 1)))"
)


def utilizations(ts: TaskSet) -> list[Fraction]:
    """u_i = C_i / T_i, exactly."""
    return [Fraction(int(c), int(t)) for c, t in zip(ts.C, ts.T, strict=True)]


def bounded(ts: TaskSet, m: int) -> bool:
    """(DA-cond): U_sum ≤ m and every u_i ≤ 1, exactly."""
    return all(int(c) <= int(t) for c, t in zip(ts.C, ts.T, strict=True)) and fraction_sum(utilizations(ts)) <= m


def reference(ts: TaskSet, m: int) -> bool:
    """Exact: is the tardiness of every task bounded under global EDF?  (DA-cond)."""
    return bounded(ts, m)


def terms(ts: TaskSet, m: int) -> dict[str, Fraction | int]:
    """Λ, E_L, U_L, e_min and x of (DA-Λ)..(DA-x), exactly; the set must satisfy (DA-cond)."""
    if not bounded(ts, m):
        raise InputError(
            f"tardiness under global EDF is not bounded on m={m}: it needs U ≤ m and every u_i ≤ 1 (Devi and Anderson 2008)",
            field="taskset",
        )
    u = utilizations(ts)
    total = fraction_sum(u)
    lam = (total.numerator + total.denominator - 1) // total.denominator - 1  # ⌈U⌉ − 1   (DA-Λ)
    costs = sorted((int(c) for c in ts.C), reverse=True)
    e_l = sum(costs[:lam])  # (DA-E)
    u_l = fraction_sum(sorted(u, reverse=True)[: max(lam - 1, 0)])  # (DA-U)
    e_min = costs[-1]
    x = max(Fraction(0), Fraction(e_l - e_min) / (m - u_l))  # (DA-x), clipped at 0 (module docstring)
    return {"U": total, "Lambda": lam, "E_L": e_l, "U_L": u_l, "e_min": e_min, "x": x}


def tardiness_bounds(ts: TaskSet, m: int) -> list[Fraction]:
    """X + e_k for every task (DA-bound), exact; an InputError if tardiness is not bounded.

    >>> from rtsched.model import TaskSet
    >>> [str(b) for b in tardiness_bounds(TaskSet.from_tasks([(2, 3, 3), (2, 3, 3), (4, 6, 6)]), 2)]
    ['3', '3', '5']
    """
    if not isinstance(ts, TaskSet):
        ts = TaskSet.from_tasks(ts)
    if not ts.is_implicit:
        raise InputError("Devi and Anderson's tardiness bound is for implicit deadlines (D = T)", field="D")
    x = Fraction(terms(ts, m)["x"])
    return [x + int(c) for c in ts.C]


def explain(ts: TaskSet, m: int) -> Explanation:
    """(DA-cond) with U and u_max; if it holds, the terms Λ, E_L, U_L, e_min, x and each task's bound."""
    u = utilizations(ts)
    total = fraction_sum(u)
    u_max = max(u)
    heavy = u.index(u_max)
    if not bounded(ts, m):
        why = (
            f"u_max = {show_number(u_max)} > 1 ({ts.label(heavy)})"
            if u_max > 1
            else f"U = {show_number(total)} > m = {m}"
        )
        return Explanation(
            verdict=False,
            summary=f"tardiness not bounded under global EDF: {why}",
            evidence={"U": total, "u_max": u_max, "u_max_task": heavy},
            per_task=[{"task": i, "u": ui} for i, ui in enumerate(u)],
            steps=lambda: steps(ts, m),
        )
    t = terms(ts, m)
    x = Fraction(t["x"])
    bounds = [x + int(c) for c in ts.C]
    worst = max(bounds)
    summary = (
        f"tardiness bounded: U = {show_number(total)} ≤ m = {m}, u_max = {show_number(u_max)} ≤ 1; "
        f"x = {show_number(x)}, largest bound x + e_k = {show_number(worst)} ({ts.label(bounds.index(worst))})"
    )
    return Explanation(
        verdict=True,
        summary=summary,
        evidence={**t, "u_max": u_max, "max_bound": worst},
        per_task=[
            {"task": i, "u": ui, "e": int(c), "bound": b, "bound_ticks": b.numerator // b.denominator}
            for i, (ui, c, b) in enumerate(zip(u, ts.C, bounds, strict=True))
        ],
        steps=lambda: steps(ts, m),
    )


def steps(ts: TaskSet, m: int) -> Iterator[Step]:
    """The derivation: (DA-cond), then Λ, E_L, U_L, x and the per-task bounds."""
    u = utilizations(ts)
    total = fraction_sum(u)
    u_max = max(u)
    yield Step("U = Σ C_i/T_i = {U}, u_max = {u_max}", {"U": total, "u_max": u_max})
    if not bounded(ts, m):
        yield Step(f"(DA-cond) fails: U ≤ m = {m} and u_max ≤ 1 are both needed: tardiness grows without bound")
        return
    t = terms(ts, m)
    yield Step(f"(DA-cond) holds: U ≤ m = {m} and u_max ≤ 1: tardiness is bounded")
    yield Step(f"Λ = ⌈U⌉ − 1 = {t['Lambda']} (DA-Λ)")
    yield Step(f"E_L = sum of the {t['Lambda']} largest C_i = {t['E_L']} (DA-E); e_min = {t['e_min']}")
    yield Step(f"U_L = sum of the {max(int(t['Lambda']) - 1, 0)} largest u_i = " + "{U_L} (DA-U)", {"U_L": t["U_L"]})
    yield Step(f"x = max(0, (E_L − e_min)/(m − U_L)) = max(0, {int(t['E_L']) - int(t['e_min'])}/({m} − " + "{U_L})) = {x} (DA-x)",
               {"U_L": t["U_L"], "x": t["x"]})  # fmt: skip
    for i, c in enumerate(ts.C):
        yield Step(
            f"{ts.label(i)}: x + e = " + "{x}" + f" + {int(c)} = " + "{b} (DA-bound)",
            {"x": t["x"], "b": t["x"] + int(c)},
        )


@kernel
def _da_one(C, D, T, m):
    n = C.shape[0]
    total = 0.0
    for i in range(n):
        if C[i] > T[i]:
            return REJECT  # u_i > 1, decided on integers
        total += C[i] / T[i]
    # Each u_i is correctly rounded (rel. error ≤ EPS) and non-negative; the n − 1 additions add
    # at most n·EPS relative error in all: |total − U| ≤ 2·n·EPS·U. A margin of 4·(n + 2)·EPS·(total + m)
    # is safely larger, so a set outside it is decided exactly.
    return margin_verdict(total - m, 4.0 * (n + 2) * EPS * (total + m))


_da_kernel = sets_kernel(_da_one)


#: Why this analysis refuses arbitrary deadlines (D > T): ``rtsched list`` and ``check`` show it
#: (issue #47; papers/arbitrary-deadlines-reductions.md, "Global EDF").
ARBITRARY_WHY = (
    "needs implicit deadlines (D = T): the Devi-Anderson tardiness bound is proved for implicit deadlines"
    " only"
)


ANALYSES = (
    Analysis(
        name="tardiness-da", title="Bounded tardiness (soft real-time): Devi–Anderson bound x + e_k", kind="exact",
        policy="global-edf:soft", policy_order=0.5, order=0, featured=False, deadlines=("implicit",),
        citation=CITATION, note="papers/devi-anderson2008-tardiness.md",
        reference=reference, explain=explain, kernel=_da_kernel, one=_da_one,
        parallel_from=1 << 22, compile_seconds=1.2,
        deadlines_note=ARBITRARY_WHY,
    ),
)  # fmt: skip
