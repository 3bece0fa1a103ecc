"""Fixed-priority response-time analyses of dual-criticality tasks on one processor (SMC-no, SMC, AMC-rtb, AMC-max).

S. Baruah, A. Burns, R. Davis, "Response-time analysis for mixed criticality systems", RTSS 2011,
pp. 34-43 (see papers/baruah-burns-davis2011-amc.md for the model, the equations, a worked
example by hand and what could and could not be checked against the paper's text).

Model: dual-criticality sporadic tasks (:class:`~rtsched.mc.MCTask`), constrained deadlines, one
processor, preemptive fixed priorities. hp(i) are the tasks above τi, hpH(i) / hpL(i) those of
them that are HI / LO. The system starts in LO mode; when a job executes for its C(LO) without
signalling completion the system switches to HI mode.

* **SMC-no** (static mixed criticality without run-time monitoring, Vestal RTSS 2007; the
  paper's Section III):  R_i = C_i(L_i) + Σ_{j∈hp(i)} ⌈R_i/T_j⌉ C_j(L_i)          (2)
  C_j(L_i) of a LO task j is its C(HI) estimate; this library's model gives a LO task no HI
  budget (its C(HI) is C(LO): rtsched.mc.model), so on every input of the model (2) equals (3)
  term by term and SMC-no decides exactly as SMC (held as a test; see the note).
* **SMC** (LO jobs monitored, never run beyond C(LO); no mode change):
  R_i = C_i(L_i) + Σ_{j∈hp(i)} ⌈R_i/T_j⌉ C_j(min(L_i, L_j))                          (3)
* **AMC** (adaptive: LO tasks are dropped at the switch). Every task must meet
  R_i^LO = C_i(LO) + Σ_{j∈hp(i)} ⌈R_i^LO/T_j⌉ C_j(LO) ≤ D_i                           (4)
  and every HI task the switch bound, one of:
  - **AMC-rtb**: R_i^* = C_i(HI) + Σ_{j∈hpH(i)} ⌈R_i^*/T_j⌉ C_j(HI) + Σ_{k∈hpL(i)} ⌈R_i^LO/T_k⌉ C_k(LO)   (7)
    (its stable HI-mode bound (5), R_i^HI = C_i(HI) + Σ_{hpH(i)} ⌈R_i^HI/T_j⌉ C_j(HI), is below R_i^*);
  - **AMC-max**: for a switch at time s (measured from the start of τi's busy period),
    I_L(s) = Σ_{j∈hpL(i)} (⌊s/T_j⌋ + 1) C_j(LO)                                     (AMC-max I_L)
    M(k, s, t) = min(⌈(t − s − (T_k − D_k))/T_k⌉ + 1, ⌈t/T_k⌉)                     (AMC-max M)
    I_H(s, t) = Σ_{k∈hpH(i)} [M(k,s,t) C_k(HI) + (⌈t/T_k⌉ − M(k,s,t)) C_k(LO)]     (AMC-max I_H)
    R_i(s) = C_i(HI) + I_L(s) + I_H(s, R_i(s)),  R_i^* = max_s R_i(s)               (AMC-max R)
    with s over {0} ∪ the release times a·T_k (a ≥ 1) of the tasks of hpL(i) below R_i^LO.

The tags (2)-(5), (7) are the paper's equation numbers as far as they could be checked (see the
note); the AMC-max formulas carry descriptive tags because their numbers could not be read.

R_i(s) here is the least fixed point of (AMC-max R) at or above s, found by iterating from t = s:
τi's job is pending at the switch, so it completes no earlier than s, and for t ≥ s every
M(k, s, t) ≥ 1 (t − s − (T_k − D_k) > −T_k), which is the range the paper's derivation bounds.
(A fixed point below s would be a scenario in which τi's job had finished before the switch.)

Dominance on the same priority order, proved in the paper and held here by property tests:
SMC-no ⇒ SMC ⇒ AMC-rtb ⇒ AMC-max. All four tests decide τi from the *set* hp(i) only, and are
monotone in it, so Audsley's optimal priority assignment (OPA) is optimal for each of them (the
paper's Section V for AMC; RTA-like for SMC): the ``-opa`` analyses accept a set iff some priority
order passes the test, hence whatever the ``-dm`` ones accept.

Registry names: ``mc-smc-no-dm``, ``mc-smc-dm``, ``mc-amc-rtb-dm``, ``mc-amc-max-dm`` (deadline-
monotonic priorities: increasing D, ties in the given order) and the same with ``-opa``.

Layers: :func:`task_test` (one task below a set of higher-priority tasks, Python ints, the
readable reference of each equation), :func:`reference` / :func:`explain` (whole sets), and the
Numba kernels ``_mc_fp_sets`` (``prange`` over the sets of an :class:`~rtsched.mc.MCBatch`). The
kernel's arithmetic is exact int64: every iterate is at most D ≤ MAX_TIME < 2**31 when a term is
added, each term ⌈R/T⌉·C < 2**31 · 2**31, and a sum is abandoned as soon as it exceeds D.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numba import prange
from numpy.typing import NDArray

from rtsched.analyses.mixed_criticality._orders import deadline_monotonic, opa_order, priority_order
from rtsched.kernels import ACCEPT, REJECT, batch_kernel, kernel
from rtsched.mc.model import HI, LO, MCBatch, MCTask, MCTaskSet
from rtsched.registry import Analysis
from rtsched.result import Explanation, Step
from rtsched.workloads import MC_TASKSETS

__all__ = [
    "ANALYSES",
    "CITATION",
    "TESTS",
    "TaskResult",
    "amc_max_response",
    "amc_rtb_response",
    "assign_opa",
    "codes",
    "deadline_monotonic",
    "explain",
    "fits_lowest",
    "hi_response",
    "lo_response",
    "order_for",
    "reference",
    "smc_response",
    "switch_instants",
    "task_test",
]

CITATION = (
    "S. Baruah, A. Burns, R. Davis, 'Response-time analysis for mixed criticality systems', RTSS 2011: "
    "SMC-no (2), SMC (3), AMC LO mode (4), AMC-rtb (7), AMC-max (max over switch instants s), "
    "Audsley's priority assignment optimal for these tests"
)

#: The four tests, weakest first (each dominates the one before it on the same priorities).
TESTS = ("smc-no", "smc", "amc-rtb", "amc-max")
_TEST_CODE = {name: i for i, name in enumerate(TESTS)}


def _ceil(a: int, b: int) -> int:
    """⌈a/b⌉ for b > 0 and any integer a (exact)."""
    return -((-a) // b)


# ---------------------------------------------------------------------------------------------
# the equations, one task below a set of higher-priority tasks (Python ints)
# ---------------------------------------------------------------------------------------------


def _least_fixed_point(f: Callable[[int], int], start: int, D: int) -> tuple[int, bool]:
    """The least fixed point of the non-decreasing f at or above ``start`` if it is ≤ D.

    Returns (R, True), or (the first iterate above D, False). ``start`` must not exceed that
    fixed point (then the iteration R ← f(R) climbs to it).
    """
    R = start
    while True:
        value = f(R)
        if value > D:
            return value, False
        if value <= R:  # f(R) ≤ R with R reached from below: R is the least fixed point ≥ start
            return R, True
        R = value


def lo_response(ts: MCTaskSet, i: int, higher: Sequence[int]) -> tuple[int, bool]:
    """(4): R_i^LO = C_i(LO) + Σ_{j∈hp(i)} ⌈R_i^LO/T_j⌉ C_j(LO); (R, R ≤ D_i) as in :func:`_least_fixed_point`."""
    task = ts[i]
    hp = [ts[j] for j in higher]

    def f(R: int) -> int:
        return task.C_lo + sum(_ceil(R, t.T) * t.C_lo for t in hp)  # (4)

    return _least_fixed_point(f, task.C_lo + sum(t.C_lo for t in hp), task.D)


def smc_response(ts: MCTaskSet, i: int, higher: Sequence[int], *, monitored: bool = True) -> tuple[int, bool]:
    """(3) (``monitored``, SMC) or (2) (SMC-no): τi's static response time below ``higher``.

    (3): R_i = C_i(L_i) + Σ_{j∈hp(i)} ⌈R_i/T_j⌉ C_j(min(L_i, L_j)); (2): the same with C_j(L_i),
    which is ``MCTask.C(L_i)`` (a LO task's C(HI) is its C(LO) in this model).
    """
    task = ts[i]
    L = task.level
    costs = [(ts[j].T, ts[j].C(min(L, ts[j].level)) if monitored else ts[j].C(L)) for j in higher]
    C_i = task.C(L)

    def f(R: int) -> int:
        return C_i + sum(_ceil(R, T) * c for T, c in costs)  # (3) / (2)

    return _least_fixed_point(f, C_i + sum(c for _, c in costs), task.D)


def hi_response(ts: MCTaskSet, i: int, higher: Sequence[int]) -> tuple[int, bool]:
    """(5) AMC, stable HI mode: R_i^HI = C_i(HI) + Σ_{j∈hpH(i)} ⌈R_i^HI/T_j⌉ C_j(HI) (shown; implied by (7))."""
    task = ts[i]
    hpH = [ts[j] for j in higher if ts[j].level == HI]

    def f(R: int) -> int:
        return task.C_hi + sum(_ceil(R, t.T) * t.C_hi for t in hpH)  # (5)

    return _least_fixed_point(f, task.C_hi + sum(t.C_hi for t in hpH), task.D)


def amc_rtb_response(ts: MCTaskSet, i: int, higher: Sequence[int], R_lo: int) -> tuple[int, bool]:
    """(7) AMC-rtb: R_i^* = C_i(HI) + Σ_{hpH(i)} ⌈R_i^*/T_j⌉ C_j(HI) + Σ_{hpL(i)} ⌈R_i^LO/T_k⌉ C_k(LO)."""
    task = ts[i]
    hpH = [ts[j] for j in higher if ts[j].level == HI]
    lo_part = sum(_ceil(R_lo, ts[k].T) * ts[k].C_lo for k in higher if ts[k].level == LO)

    def f(R: int) -> int:
        return task.C_hi + sum(_ceil(R, t.T) * t.C_hi for t in hpH) + lo_part  # (7)

    return _least_fixed_point(f, task.C_hi + lo_part + sum(t.C_hi for t in hpH), task.D)


def switch_instants(ts: MCTaskSet, higher: Sequence[int], R_lo: int) -> list[int]:
    """The switch instants AMC-max checks: 0 and every release a·T_k (a ≥ 1) of hpL(i) below R_i^LO, increasing."""
    points = {0}
    for k in higher:
        if ts[k].level == LO:
            points.update(range(ts[k].T, R_lo, ts[k].T))
    return sorted(points)


def _amc_max_at(ts: MCTaskSet, i: int, higher: Sequence[int], s: int) -> tuple[int, bool]:
    """(AMC-max R) for one switch instant s: the least fixed point ≥ s of C_i(HI) + I_L(s) + I_H(s, t)."""
    task = ts[i]
    I_L = sum((s // ts[j].T + 1) * ts[j].C_lo for j in higher if ts[j].level == LO)  # (AMC-max I_L)
    hpH = [ts[k] for k in higher if ts[k].level == HI]

    def M(t_k: MCTask, t: int) -> int:  # (AMC-max M)
        T_k, D_k = t_k.T, t_k.D
        return min(_ceil(t - s - (T_k - D_k), T_k) + 1, _ceil(t, T_k))

    def f(t: int) -> int:
        I_H = sum(M(k, t) * k.C_hi + (_ceil(t, k.T) - M(k, t)) * k.C_lo for k in hpH)  # (AMC-max I_H)
        return task.C_hi + I_L + I_H  # (AMC-max R)

    return _least_fixed_point(f, s, task.D)


def amc_max_response(ts: MCTaskSet, i: int, higher: Sequence[int], R_lo: int) -> tuple[int, bool, int]:
    """AMC-max: R_i^* = max_s R_i(s) over :func:`switch_instants`; (R^*, R^* ≤ D_i, the worst s).

    Stops at the first s whose R_i(s) exceeds D_i (then R^* is that first iterate above D_i).
    """
    worst, worst_s = -1, 0
    for s in switch_instants(ts, higher, R_lo):
        R, ok = _amc_max_at(ts, i, higher, s)
        if not ok:
            return R, False, s
        if R > worst:
            worst, worst_s = R, s
    return worst, True, worst_s


@dataclass(frozen=True)
class TaskResult:
    """One task's verdict under one test: its response times and what failed.

    ``R_lo``: (4) (every task; for SMC also shown, though SMC's own test is (3)); ``R_hi``: the
    test's HI-criticality bound ((2), (3), (7) or AMC-max's R^*) for a HI task, None for a LO
    task under AMC; ``s``: AMC-max's worst switch instant. A value above D is the first iterate
    that exceeded D (the iteration stopped there). ``failing``: None, ``"LO"`` or ``"HI"``.
    """

    ok: bool
    R_lo: int
    R_hi: int | None
    s: int | None
    failing: str | None


def task_test(ts: MCTaskSet, i: int, higher: Sequence[int], test: str) -> TaskResult:
    """Whether τi meets its deadline(s) under ``test`` at a priority below exactly ``higher``."""
    task = ts[i]
    R_lo, lo_ok = lo_response(ts, i, higher)  # (4)
    if test in ("smc", "smc-no"):
        R, ok = smc_response(ts, i, higher, monitored=test == "smc")  # (3) / (2)
        if task.level == LO:  # (3) and (2) of a LO task are (4)
            return TaskResult(ok, R, None, None, None if ok else "LO")
        return TaskResult(ok, R_lo, R, None, None if ok else "HI")
    if test not in ("amc-rtb", "amc-max"):
        raise KeyError(test)
    if not lo_ok:
        return TaskResult(False, R_lo, None, None, "LO")
    if task.level == LO:  # dropped at the switch: (4) is its only condition
        return TaskResult(True, R_lo, None, None, None)
    if test == "amc-rtb":
        R, ok = amc_rtb_response(ts, i, higher, R_lo)  # (7)
        return TaskResult(ok, R_lo, R, None, None if ok else "HI")
    R, ok, s = amc_max_response(ts, i, higher, R_lo)
    return TaskResult(ok, R_lo, R, s, None if ok else "HI")


# ---------------------------------------------------------------------------------------------
# priorities
# ---------------------------------------------------------------------------------------------


def fits_lowest(test: str) -> Callable[[MCTaskSet, int, Sequence[int]], bool]:
    """Audsley's per-task question for ``test``: whether τk passes below exactly the tasks ``higher``."""
    if test not in TESTS:
        raise KeyError(test)
    return lambda ts, k, higher: task_test(ts, k, higher, test).ok


def assign_opa(ts: MCTaskSet, test: str) -> list[int] | None:
    """Audsley's optimal priority assignment for ``test`` (indices, highest priority first), or None.

    From the lowest level up, the first unassigned task (candidates by decreasing deadline, ties
    the later index first, as rtsched.priorities.audsley) that passes with every other unassigned
    task above it takes the level. The test depends only on the set above, and is monotone in it,
    so OPA finds an order whenever one exists (Audsley 2001; the paper's Section V for AMC).
    """
    fits = fits_lowest(test)
    return opa_order(ts, lambda k, higher: fits(ts, k, higher))


def order_for(ts: MCTaskSet, priorities: str, test: str) -> list[int] | None:
    """The priority order (indices, highest first) ``priorities`` gives: ``given``, ``dm`` or ``opa`` (None: none passes)."""
    return priority_order(ts, priorities, lambda: assign_opa(ts, test))


def _results(ts: MCTaskSet, order: Sequence[int], test: str, stop: bool) -> list[TaskResult | None]:
    """Every task's :class:`TaskResult` in ``order`` (indexed by task; None after a failure when ``stop``)."""
    out: list[TaskResult | None] = [None] * ts.n
    for pos, i in enumerate(order):
        out[i] = r = task_test(ts, i, order[:pos], test)
        if stop and not r.ok:
            break
    return out


def reference(ts: MCTaskSet, m: int = 1, *, test: str = "amc-max", priorities: str = "dm") -> bool:
    """Exact: every task passes ``test`` under the priorities ``priorities`` (``dm``, ``opa`` or ``given``)."""
    if priorities == "opa":
        return assign_opa(ts, test) is not None
    order = order_for(ts, priorities, test)
    assert order is not None
    return all(r is not None and r.ok for r in _results(ts, order, test, stop=True))


_EQUATION = {"smc-no": "(2)", "smc": "(3)", "amc-rtb": "(7)", "amc-max": "AMC-max"}


def _shown(R: int, D: int) -> int | str:
    """A response time for a table: the value if ≤ D, else "> D" (the iteration stopped above D)."""
    return R if R <= D else f"> {D}"


def explain(ts: MCTaskSet, m: int = 1, *, test: str = "amc-max", priorities: str = "dm") -> Explanation:
    """Per-task response times and the failing term.

    Rows: ``R_LO`` (4); ``R_HI``: SMC's (3) / SMC-no's (2) of a HI task, or under AMC the stable
    HI-mode (5); ``R_switch`` (AMC): the mode-switch bound (7) or AMC-max's R^* with ``worst_s``,
    its worst switch instant. A value above D shows as "> D".
    """
    order = order_for(ts, priorities, test)
    evidence: dict[str, object] = {"test": test, "priorities": priorities}
    if order is None:  # OPA found no order: show DM's rows and where OPA stuck
        order = deadline_monotonic(ts)
        evidence["opa_order"] = None
        verdict = False
    else:
        verdict = None
    results = _results(ts, order, test, stop=False)
    rank = {i: p for p, i in enumerate(order)}
    per_task: list[dict[str, object]] = []
    first_fail: int | None = None
    for i in order:
        r = results[i]
        assert r is not None
        if not r.ok and first_fail is None:
            first_fail = i
    for i, task in enumerate(ts):
        r = results[i]
        assert r is not None
        row: dict[str, object] = {
            "task": i,
            "level": task.criticality,
            "priority": rank[i],
            "C_LO": task.C_lo,
            "C_HI": task.C_hi,
            "T": task.T,
            "D": task.D,
            "R_LO": _shown(r.R_lo, task.D),
            "ok": r.ok,
        }
        if test in ("smc", "smc-no"):  # one static bound: (3) / (2) of a HI task
            row["R_HI"] = "-" if r.R_hi is None else _shown(r.R_hi, task.D)
        elif task.level == HI:  # AMC: stable HI mode (5) and the switch bound (7) / AMC-max
            row["R_HI"] = _shown(*hi_response(ts, i, order[: rank[i]])[:1], task.D)
            row["R_switch"] = "-" if r.R_hi is None else _shown(r.R_hi, task.D)
        else:
            row["R_HI"] = row["R_switch"] = "-"
        if test == "amc-max" and task.level == HI:
            row["worst_s"] = "-" if r.s is None else r.s
        row["ok"] = row.pop("ok")  # last column
        per_task.append(row)
    if verdict is None:
        verdict = first_fail is None
    evidence["order"] = tuple(order)
    what = {"smc-no": "SMC-no", "smc": "SMC", "amc-rtb": "AMC-rtb", "amc-max": "AMC-max"}[test]
    if first_fail is not None:
        r = results[first_fail]
        assert r is not None
        task = ts[first_fail]
        if r.failing == "LO":
            term = f"LO mode (4): R_LO ≥ {r.R_lo} > D = {task.D}"
        elif test == "amc-max":
            term = f"AMC-max switch at s = {r.s}: R(s) ≥ {r.R_hi} > D = {task.D}"
        else:
            term = f"{_EQUATION[test]}: R ≥ {r.R_hi} > D = {task.D}"
        evidence.update(failing_task=first_fail, failing_term=term)
        summary = f"{what} ({priorities}): {ts.label(first_fail)} misses: {term}"
        if priorities == "opa":
            summary = f"{what}: no priority order passes (Audsley's algorithm); in DM order {ts.label(first_fail)} misses: {term}"
    elif priorities == "opa" and evidence.get("opa_order", 0) is None:
        summary = f"{what}: no priority order passes (Audsley's algorithm)"
    else:
        evidence["failing_term"] = None
        summary = f"{what} ({priorities}): R ≤ D for every task in priority order " + " > ".join(
            ts.label(i) for i in order
        )
    return Explanation(
        verdict=verdict, summary=summary, evidence=evidence, per_task=per_task, steps=lambda: _steps(ts, order, test)
    )


def _steps(ts: MCTaskSet, order: Sequence[int], test: str) -> Iterator[Step]:
    """Each task in priority order: its equations' values and its verdict."""
    yield Step("priority order (highest first): " + " > ".join(ts.label(i) for i in order))
    for pos, i in enumerate(order):
        r = task_test(ts, i, order[:pos], test)
        task = ts[i]
        text = f"{ts.label(i)} ({task.criticality}, D = {task.D}): (4) R_LO = {r.R_lo}"
        if r.R_hi is not None:
            text += f", {_EQUATION[test]} R_HI = {r.R_hi}"
        if r.s is not None and test == "amc-max" and task.level == HI:
            text += f" (worst switch at s = {r.s} of {switch_instants(ts, order[:pos], r.R_lo)})"
        text += ": passes" if r.ok else f": misses in {r.failing}"
        yield Step(text)
        if not r.ok:
            yield Step("not schedulable under this test")
            return
    yield Step("every task passes: schedulable")


# ---------------------------------------------------------------------------------------------
# kernels (int64, exact)
# ---------------------------------------------------------------------------------------------


@kernel
def _lo_nb(C_lo, T, D, hp, nh, i):
    """(4) below hp[:nh]: the least fixed point, or a value above D[i]."""
    R = C_lo[i]
    for x in range(nh):
        R += C_lo[hp[x]]
    Dk = D[i]
    if R > Dk:
        return R
    while True:
        v = C_lo[i]
        for x in range(nh):
            j = hp[x]
            v += ((R + T[j] - 1) // T[j]) * C_lo[j]
            if v > Dk:
                return v
        if v <= R:
            return R
        R = v


@kernel
def _smc_nb(C_lo, C_hi, T, D, level, hp, nh, i, monitored):
    """(3) (monitored) or (2) below hp[:nh]."""
    Li = level[i]
    Ci = C_hi[i] if Li == 1 else C_lo[i]
    R = Ci
    for x in range(nh):
        j = hp[x]
        R += C_hi[j] if (Li == 1 and (level[j] == 1 or not monitored)) else C_lo[j]
    Dk = D[i]
    if R > Dk:
        return R
    while True:
        v = Ci
        for x in range(nh):
            j = hp[x]
            c = C_hi[j] if (Li == 1 and (level[j] == 1 or not monitored)) else C_lo[j]
            v += ((R + T[j] - 1) // T[j]) * c
            if v > Dk:
                return v
        if v <= R:
            return R
        R = v


@kernel
def _rtb_nb(C_lo, C_hi, T, D, level, hp, nh, i, R_lo):
    """(7) below hp[:nh]."""
    Dk = D[i]
    base = C_hi[i]
    for x in range(nh):
        j = hp[x]
        if level[j] == 0:
            base += ((R_lo + T[j] - 1) // T[j]) * C_lo[j]
            if base > Dk:
                return base
    R = base
    for x in range(nh):
        j = hp[x]
        if level[j] == 1:
            R += C_hi[j]
    if R > Dk:
        return R
    while True:
        v = base
        for x in range(nh):
            j = hp[x]
            if level[j] == 1:
                v += ((R + T[j] - 1) // T[j]) * C_hi[j]
                if v > Dk:
                    return v
        if v <= R:
            return R
        R = v


@kernel
def _max_at_nb(C_lo, C_hi, T, D, level, hp, nh, i, s):
    """(AMC-max R) at switch instant s: the least fixed point ≥ s, or a value above D[i]."""
    Dk = D[i]
    base = C_hi[i]
    for x in range(nh):
        j = hp[x]
        if level[j] == 0:
            base += (s // T[j] + 1) * C_lo[j]  # (AMC-max I_L)
            if base > Dk:
                return base
    t = s
    while True:
        v = base
        for x in range(nh):
            k = hp[x]
            if level[k] == 1:
                Tk = T[k]
                a = t - s - (Tk - D[k])
                first = -((-a) // Tk) + 1
                jobs = (t + Tk - 1) // Tk
                M = first if first < jobs else jobs  # (AMC-max M)
                v += M * C_hi[k] + (jobs - M) * C_lo[k]  # (AMC-max I_H)
                if v > Dk:
                    return v
        if v <= t:
            return t
        t = v


@kernel
def _task_ok_nb(C_lo, C_hi, T, D, level, hp, nh, i, test):
    """:func:`task_test`'s verdict for τi below hp[:nh] (test: 0 smc-no, 1 smc, 2 amc-rtb, 3 amc-max)."""
    Dk = D[i]
    if test <= 1:
        return _smc_nb(C_lo, C_hi, T, D, level, hp, nh, i, test == 1) <= Dk
    R_lo = _lo_nb(C_lo, T, D, hp, nh, i)
    if R_lo > Dk:
        return False
    if level[i] == 0:
        return True
    if test == 2:
        return _rtb_nb(C_lo, C_hi, T, D, level, hp, nh, i, R_lo) <= Dk
    if _max_at_nb(C_lo, C_hi, T, D, level, hp, nh, i, np.int64(0)) > Dk:
        return False
    for x in range(nh):
        j = hp[x]
        if level[j] == 0:
            s = T[j]
            while s < R_lo:  # (duplicate instants of two LO tasks are evaluated twice: same value)
                if _max_at_nb(C_lo, C_hi, T, D, level, hp, nh, i, s) > Dk:
                    return False
                s += T[j]
    return True


@kernel
def _dm_order_nb(D, order):
    """Deadline-monotonic order into ``order`` (insertion sort: increasing D, ties by index)."""
    n = D.shape[0]
    for i in range(n):
        x = i
        while x > 0 and D[order[x - 1]] > D[i]:
            order[x] = order[x - 1]
            x -= 1
        order[x] = i


@kernel
def _set_code(C_lo, C_hi, T, D, level, test, opa):
    """One set: ACCEPT or REJECT under ``test`` with DM priorities (opa False) or Audsley's OPA."""
    n = T.shape[0]
    order = np.empty(n, dtype=np.int64)
    _dm_order_nb(D, order)
    hp = np.empty(n, dtype=np.int64)
    if not opa:
        for p in range(n):
            i = order[p]
            if not _task_ok_nb(C_lo, C_hi, T, D, level, order, p, i, test):
                return REJECT
        return ACCEPT
    # Audsley: order[:left] are the unassigned tasks in DM order; candidates from the back
    left = n
    while left > 0:
        placed = -1
        for c in range(left - 1, -1, -1):
            k = order[c]
            nh = np.int64(0)  # int64, not the literal 0: a literal argument compiles the callee once more (issue #46)
            for x in range(left):
                if x != c:
                    hp[nh] = order[x]
                    nh += 1
            if _task_ok_nb(C_lo, C_hi, T, D, level, hp, nh, k, test):
                placed = c
                break
        if placed < 0:
            return REJECT
        for x in range(placed, left - 1):
            order[x] = order[x + 1]
        left -= 1
    return ACCEPT


@batch_kernel
def _mc_fp_sets(C_lo, C_hi, T, D, level, task_offsets, test, opa, out):
    """``out[s]`` = ``_set_code`` of set s, in ``prange`` over the sets."""
    for s in prange(out.shape[0]):
        lo, hi = task_offsets[s], task_offsets[s + 1]
        out[s] = _set_code(C_lo[lo:hi], C_hi[lo:hi], T[lo:hi], D[lo:hi], level[lo:hi], test, opa)


def codes(batch: MCBatch, m: int = 1, *, test: str = "amc-max", priorities: str = "dm") -> NDArray[np.int8]:
    """Verdict codes (1 accepted, 0 rejected) of every set of ``batch`` (the kernel layer)."""
    if priorities not in ("dm", "opa"):
        raise KeyError(priorities)
    out = np.empty(batch.n_sets, dtype=np.int8)
    _mc_fp_sets(
        batch.C_lo, batch.C_hi, batch.T, batch.D, batch.level, batch.task_offsets,
        _TEST_CODE[test], priorities == "opa", out,
    )  # fmt: skip
    return out


# ---------------------------------------------------------------------------------------------
# registry
# ---------------------------------------------------------------------------------------------

_TITLES = {
    "smc-no": "SMC-no: Vestal's static mixed-criticality RTA, no run-time monitoring",
    "smc": "SMC: static mixed-criticality RTA, LO budgets monitored",
    "amc-rtb": "AMC-rtb: adaptive mixed criticality, response-time bound",
    "amc-max": "AMC-max: adaptive mixed criticality, max over switch instants",
}


def _entry(test: str, priorities: str, order: float, workload: Any) -> Analysis:
    what = "deadline-monotonic priorities" if priorities == "dm" else "Audsley's optimal priority assignment"
    return Analysis(
        name=f"mc-{test}-{priorities}",
        title=f"{_TITLES[test]} ({what})",
        kind="sufficient",
        policy="mc-fp",
        platform="uniprocessor",
        deadlines=("implicit", "constrained"),
        citation=CITATION,
        note="papers/baruah-burns-davis2011-amc.md",
        reference=functools.partial(reference, test=test, priorities=priorities),
        explain=functools.partial(explain, test=test, priorities=priorities),
        codes=functools.partial(codes, test=test, priorities=priorities),
        workload=workload,
        featured=False,
        order=order,
        shares_kernels_with=None if (test, priorities) == ("smc-no", "dm") else "mc-smc-no-dm",
    )


def _analyses() -> tuple[Analysis, ...]:
    return tuple(
        _entry(test, priorities, 10 * p + t, MC_TASKSETS)
        for p, priorities in enumerate(("dm", "opa"))
        for t, test in enumerate(TESTS)
    )


ANALYSES = _analyses()
