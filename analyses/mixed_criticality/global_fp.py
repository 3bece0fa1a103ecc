"""Global fixed-priority AMC on m identical processors: response-time tests after Pathan (ECRTS 2012).

R. M. Pathan, "Schedulability analysis of mixed-criticality systems on multiprocessors", ECRTS
2012: global preemptive fixed priorities for dual-criticality sporadic tasks, a sufficient test
built on the Bertogna–Cirinei response-time analysis, usable with Audsley's priority assignment.
Only the paper's abstract could be read; the equations below are rtsched's own, *after* Pathan,
each step proved in papers/pathan2012-global-mc.md (the note says what could not be compared).

Model: dual-criticality sporadic tasks (:class:`~rtsched.mc.MCTask`), constrained deadlines
(D ≤ T), integer time, m identical processors, preemptive global fixed priorities (the m
highest-priority pending jobs run). One system-wide mode: the system starts in LO mode and
switches to HI mode at the first instant a HI job has executed its C(LO) without completing; at
the switch every pending LO job is abandoned and no LO job is released afterwards (AMC). Every job
must meet its deadline while the system is in LO mode, HI jobs always. hp(k) are the tasks above
τk, hpH(k) / hpL(k) those of them that are HI / LO. W(C, T, R; L) is the work-conserving workload
bound of a task whose jobs (each executing at most C, released ≥ T apart) execute only within R
of their release, in any window of length L (Bertogna & Cirinei, RTSS 2007, Eq. (4)/(8)): the
shared theory's ``theory.workload.carry_in_workload`` with slack S = D − R (what the global FP
family's ``_workload.workload_response`` wraps; families do not import each other, see
``.importlinter``) and, in the kernel, ``theory.dag_workload.carry_in_workload_nb`` with m = 1
(the DAG form (M2) is this bound for vol = C, m = 1; it returns min(W, cap))::

    W(C, T, R; L) = N C + min(C, L + R − C − N T),   N = ⌊(L + R − C)/T⌋

Per task k, in priority order, with ρ^LO_i and ρ_i the carry-in bounds of the tasks above:

* (LO) every task, LO mode: R^LO_k is the least fixed point from x = C_k(LO) of
  ``x = C_k(LO) + ⌊(1/m) Σ_{i∈hp(k)} min(W(C_i(LO), T_i, ρ^LO_i; x), x − C_k(LO) + 1)⌋``;
  the task passes in LO mode if R^LO_k ≤ D_k (Bertogna–Cirinei's global FP RTA on the LO budgets).
* (HI) every HI task, HI mode: R^HI_k is the least fixed point from x = C_k(HI) of
  ``x = C_k(HI) + ⌊(1/m)(Σ_{i∈hpH(k)} min(W(C_i(HI), T_i, ρ_i; x), x − C_k(HI) + 1)
  + Σ_{i∈hpL(k)} min(W(C_i(LO), T_i, ρ^LO_i; min(R^LO_k, x)), x − C_k(HI) + 1))⌋``;
  the task passes if also R^HI_k ≤ D_k. A job of τk that is still pending at the switch was
  released at most R^LO_k before it, so LO tasks can run for at most min(R^LO_k, x) of the window
  (the AMC-rtb argument of Baruah, Burns, Davis, RTSS 2011, Eq. (7), made global).

Two carry-in bounds (``carry``):

* ``"rta"``: ρ^LO_i = R^LO_i and, for a HI task, ρ_i = max(R^LO_i, R^HI_i) (every job of τi
  completes within that bound, in either mode); deadline-monotonic priorities only (the bound of
  τk depends on the order of hp(k): not OPA-compatible);
* ``"da"``: ρ^LO_i = ρ_i = D_i (every job of a task that passes finishes, or is abandoned, by its
  deadline): the condition of τk depends only on the *set* hp(k) and does not get harder when a
  task leaves it, so Audsley's algorithm is optimal for it (Davis & Burns, RTS 2011, whose "DA"
  uses the same D_i carry-in; here iterated to a fixed point instead of evaluated at L = D_k).

Registry names: ``mc-gfp-amc-rta-dm``, ``mc-gfp-amc-da-dm``, ``mc-gfp-amc-da-opa`` (sufficient,
identical processors, implicit or constrained deadlines, policy ``mc-global-fp``). The matching
run-time behaviour is ``simulate_mc(..., scheduler="global-fp", policy="amc")`` with the
analysis's priority order.

Relations (proved in the note, held as tests): rta-dm accepts whatever da-dm accepts (ρ ≤ D and
every right side is monotone in the carry-in bounds); da-opa accepts whatever da-dm accepts; on
sets of LO tasks only, rta-dm decides exactly as ``gfp-rta`` on the tasks in DM order, and
``gfp-da`` ⇒ da-dm ⇒ ``gfp-rta`` there.

Layers: :func:`task_test` (one task below the set ``higher``, Python ints, the equation tags),
:func:`reference` / :func:`explain` (whole sets), and the Numba kernel ``_gfp_mc_sets``
(``prange`` over the sets of an :class:`~rtsched.mc.MCBatch`) through :func:`codes`. Exact int64:
every iterate is at most D ≤ MAX_TIME < 2**31 when evaluated, a workload at most x + ρ ≤ 2**32,
each term is capped at x + 1 and a sum over at most 2**16 tasks stays below 2**48. A set with a
WCET above its deadline is rejected up front (that task fails at any priority, in both layers),
so every workload is evaluated with ρ ≥ C (N ≥ 0). No work budget: each fixed-point search
climbs by at least one tick per evaluation, so it ends within D_k − C_k + 2 evaluations.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
from numba import prange
from numpy.typing import NDArray

from rtsched.analyses.mixed_criticality._orders import deadline_monotonic, opa_order, priority_order
from rtsched.analyses.mixed_criticality.amc2011 import _dm_order_nb
from rtsched.analyses.theory.dag_workload import carry_in_workload_nb
from rtsched.analyses.theory.workload import carry_in_workload
from rtsched.kernels import ACCEPT, REJECT, batch_kernel, kernel
from rtsched.mc.model import HI, LO, MCBatch, MCTaskSet
from rtsched.registry import Analysis
from rtsched.result import Explanation, Step
from rtsched.workloads import MC_TASKSETS

__all__ = [
    "ANALYSES",
    "CARRY",
    "CITATION",
    "TaskResult",
    "assign_opa",
    "codes",
    "explain",
    "fits_lowest",
    "hi_value",
    "lo_value",
    "order_for",
    "reference",
    "response_pass",
    "task_test",
]

CITATION = (
    "R. M. Pathan, 'Schedulability analysis of mixed-criticality systems on multiprocessors', ECRTS 2012 "
    "(global FP AMC, response-time test usable with Audsley's assignment; equations rtsched's own after it, "
    "proved in the note), on Bertogna & Cirinei's global FP RTA (RTSS 2007, workload Eq. (4)/(8))"
)

#: The carry-in bounds: the response-time bounds of the tasks above (``rta``) or their deadlines (``da``).
CARRY = ("rta", "da")


# ---------------------------------------------------------------------------------------------
# the equations, one task below a set of higher-priority tasks (Python ints)
# ---------------------------------------------------------------------------------------------


def _workload(C: int, D: int, T: int, rho: int, L: int) -> int:
    """(W): W(C, T, ρ; L), Bertogna & Cirinei's carry-in workload with slack D − ρ (RTSS 2007, Eq. (4)/(8))."""
    return carry_in_workload(C, D, T, D - rho, L)


def lo_value(
    ts: MCTaskSet, k: int, higher: Sequence[int], rho_lo: Sequence[int], m: int, x: int
) -> tuple[int, list[dict[str, int]]]:
    """The right side of (LO) for τk at x, and its capped terms [{task, I}] over ``higher``.

    ``rho_lo[i]``: the carry-in bound of τi in LO mode (R^LO_i or D_i).
    """
    C_k = ts[k].C_lo
    cap = x - C_k + 1
    terms = [
        {"task": i, "I": min(_workload(ts[i].C_lo, ts[i].D, ts[i].T, rho_lo[i], x), cap)}  # (LO)
        for i in higher
    ]
    return C_k + sum(t["I"] for t in terms) // m, terms


def hi_value(
    ts: MCTaskSet,
    k: int,
    higher: Sequence[int],
    rho_lo: Sequence[int],
    rho: Sequence[int],
    R_lo: int,
    m: int,
    x: int,
) -> tuple[int, list[dict[str, int]]]:
    """The right side of (HI) for the HI task τk at x, and its capped terms [{task, level, I}].

    A HI task τi above counts C_i(HI) over the whole window with carry-in ``rho[i]``; a LO task
    counts C_i(LO) over min(R^LO_k, x) with carry-in ``rho_lo[i]``.
    """
    C_k = ts[k].C_hi
    cap = x - C_k + 1
    lo_window = min(R_lo, x)
    terms: list[dict[str, Any]] = []
    for i in higher:
        t = ts[i]
        if t.level == HI:
            w = _workload(t.C_hi, t.D, t.T, rho[i], x)  # (HI), hpH term
        else:
            w = _workload(t.C_lo, t.D, t.T, rho_lo[i], lo_window)  # (HI), hpL term
        terms.append({"task": i, "level": "HI" if t.level == HI else "LO", "I": min(w, cap)})
    return C_k + sum(t["I"] for t in terms) // m, terms


@dataclass(frozen=True)
class _Search:
    """One fixed-point search: the iterates from the start, whether it stayed ≤ D, the last terms."""

    chain: tuple[int, ...]
    ok: bool
    terms: tuple[dict[str, Any], ...]

    @property
    def value(self) -> int:
        """The least fixed point (ok) or the first iterate above D."""
        return self.chain[-1]


def _search(f: Any, start: int, D: int) -> _Search:
    """Iterate x ← f(x) from ``start`` (f non-decreasing, f(start) ≥ start) to its least fixed point or above D."""
    x = start
    chain = [x]
    if x > D:  # a WCET above the deadline
        return _Search(tuple(chain), False, ())
    while True:
        value, terms = f(x)
        if value > D:
            chain.append(value)
            return _Search(tuple(chain), False, tuple(terms))
        if value == x:
            return _Search(tuple(chain), True, tuple(terms))
        chain.append(value)
        x = value


@dataclass(frozen=True)
class TaskResult:
    """One task's verdict below a set of higher-priority tasks.

    ``R_lo``: (LO)'s least fixed point (or its first iterate above D); ``R_hi``: (HI)'s for a HI
    task whose (LO) passed, else None; ``failing``: None, ``"LO"`` or ``"HI"``; ``chain_lo`` /
    ``chain_hi``: the iterates; ``x``, ``value``, ``terms``: the failing search's last point, the
    right side there and its interference terms.
    """

    ok: bool
    R_lo: int
    R_hi: int | None
    failing: str | None
    chain_lo: tuple[int, ...]
    chain_hi: tuple[int, ...] = ()
    x: int | None = None
    value: int | None = None
    terms: tuple[dict[str, Any], ...] = ()

    @property
    def bound(self) -> int:
        """ρ for the tasks below (carry ``rta``): R^LO, or max(R^LO, R^HI) of a HI task."""
        return self.R_lo if self.R_hi is None else max(self.R_lo, self.R_hi)


def _failed(s: _Search) -> dict[str, Any]:
    """The failing search's last point x, the right side there and its terms."""
    x = s.chain[-2] if len(s.chain) > 1 else s.chain[-1]
    return {"x": x, "value": s.value, "terms": s.terms}


def task_test(
    ts: MCTaskSet, k: int, higher: Sequence[int], m: int, rho_lo: Sequence[int], rho: Sequence[int]
) -> TaskResult:
    """(LO) and, for a HI task, (HI) for τk below exactly ``higher`` with the carry-in bounds given.

    ``rho_lo[i]`` / ``rho[i]``: τi's carry-in bound in LO mode / (HI task) in HI mode, for the
    tasks of ``higher`` (other entries unused).
    """
    task = ts[k]
    lo = _search(lambda x: lo_value(ts, k, higher, rho_lo, m, x), task.C_lo, task.D)  # (LO)
    if not lo.ok:
        return TaskResult(False, lo.value, None, "LO", lo.chain, **_failed(lo))
    if task.level == LO:  # abandoned at the switch: (LO) is its only condition
        return TaskResult(True, lo.value, None, None, lo.chain)
    R_lo = lo.value
    hi = _search(lambda x: hi_value(ts, k, higher, rho_lo, rho, R_lo, m, x), task.C_hi, task.D)  # (HI)
    if not hi.ok:
        return TaskResult(False, R_lo, hi.value, "HI", lo.chain, hi.chain, **_failed(hi))
    return TaskResult(True, R_lo, hi.value, None, lo.chain, hi.chain)


def _deadline_carry(ts: MCTaskSet) -> list[int]:
    return [t.D for t in ts]


def _wcet_above_deadline(ts: MCTaskSet) -> bool:
    """Some task's own-level WCET exceeds its deadline: it fails (LO) or (HI) at any priority."""
    return any(t.C_hi > t.D for t in ts)


def fits_lowest(ts: MCTaskSet, k: int, higher: Sequence[int], *, m: int) -> bool:
    """Audsley's question for carry ``da``: whether τk passes below exactly the tasks ``higher`` (any order)."""
    D = _deadline_carry(ts)
    return task_test(ts, k, higher, m, D, D).ok


def assign_opa(ts: MCTaskSet, m: int) -> list[int] | None:
    """Audsley's optimal priority assignment for carry ``da`` (indices, highest first), or None.

    From the lowest level up, the first unassigned task (candidates by decreasing deadline, ties
    the later index first, as ``rtsched.priorities.audsley`` and amc2011's ``assign_opa``) that
    passes with every other unassigned task above it takes the level. The condition of τk depends
    only on the set above and is monotone in it, so OPA finds an order whenever one exists
    (Audsley 2001; Davis & Burns, RTS 2011).
    """
    return opa_order(ts, lambda k, higher: fits_lowest(ts, k, higher, m=m))


def order_for(ts: MCTaskSet, m: int, priorities: str) -> list[int] | None:
    """The priority order ``priorities`` gives: ``given``, ``dm`` or ``opa`` (carry ``da``; None: none passes)."""
    return priority_order(ts, priorities, lambda: assign_opa(ts, m))


def response_pass(
    ts: MCTaskSet, m: int, order: Sequence[int], carry: str, *, stop: bool = True
) -> list[TaskResult | None]:
    """Every task's :class:`TaskResult` in ``order`` (indexed by task; None below the first failure).

    ``carry="rta"``: each task's carry-in bounds are the bounds found above it, so the pass stops
    at the first failure; ``"da"``: the deadlines (with ``stop=False`` every task is evaluated).
    """
    if carry not in CARRY:
        raise KeyError(carry)
    rho_lo = _deadline_carry(ts)
    rho = list(rho_lo)
    out: list[TaskResult | None] = [None] * ts.n
    for pos, k in enumerate(order):
        out[k] = r = task_test(ts, k, order[:pos], m, rho_lo, rho)
        if not r.ok and (stop or carry == "rta"):
            break
        if carry == "rta":
            rho_lo[k], rho[k] = r.R_lo, r.bound
    return out


def reference(ts: MCTaskSet, m: int, *, carry: str = "rta", priorities: str = "dm") -> bool:
    """Exact: every task passes (LO), and every HI task (HI), with ``carry`` and ``priorities`` (``dm``/``opa``/``given``)."""
    if carry not in CARRY:
        raise KeyError(carry)
    if priorities == "opa" and carry != "da":
        raise KeyError("opa needs carry='da' (the rta carry-in is not OPA-compatible)")
    if _wcet_above_deadline(ts):
        return False
    order = order_for(ts, m, priorities)
    if order is None:
        return False
    if priorities == "opa":
        return True
    return all(r is not None and r.ok for r in response_pass(ts, m, order, carry))


def _shown(R: int | None, D: int) -> int | str:
    if R is None:
        return "-"
    return R if R <= D else f"> {D}"


def _term_text(ts: MCTaskSet, r: TaskResult, k: int, m: int) -> str:
    task = ts[k]
    tag = "(LO)" if r.failing == "LO" else "(HI)"
    C = task.C_lo if r.failing == "LO" else task.C_hi
    total = sum(t["I"] for t in r.terms)
    return (
        f"{tag}: at x = {r.x} the right side {C} + ⌊{total}/{m}⌋ = {r.value} > D = {task.D}"
        if r.x is not None and r.value is not None and r.value != r.x
        else f"{tag}: C = {C} > D = {task.D}"
    )


def explain(ts: MCTaskSet, m: int, *, carry: str = "rta", priorities: str = "dm") -> Explanation:
    """Per task R_LO (LO) and R_HI (HI) ("-" for a LO task, or below the first failure), and the failing term."""
    if priorities == "opa" and carry != "da":
        raise KeyError("opa needs carry='da'")
    order = order_for(ts, m, priorities)
    evidence: dict[str, Any] = {"carry": carry, "priorities": priorities, "m": m}
    opa_failed = order is None
    if order is None:  # OPA found no order: show DM's rows
        order = deadline_monotonic(ts)
        evidence["opa_order"] = None
    results = response_pass(ts, m, order, carry)
    rank = {i: p for p, i in enumerate(order)}
    per_task: list[dict[str, Any]] = []
    for i, task in enumerate(ts):
        r = results[i]
        per_task.append(
            {
                "task": i,
                "level": task.criticality,
                "priority": rank[i],
                "C_LO": task.C_lo,
                "C_HI": task.C_hi,
                "T": task.T,
                "D": task.D,
                "R_LO": "-" if r is None else _shown(r.R_lo, task.D),
                "R_HI": "-" if r is None else _shown(r.R_hi, task.D),
                "ok": "-" if r is None else r.ok,
            }
        )
    first_fail = next((i for i in order if results[i] is not None and not results[i].ok), None)  # type: ignore[union-attr]
    evidence["order"] = tuple(order)
    what = f"G-FP AMC ({carry.upper()} carry-in, {priorities}, m = {m})"
    if first_fail is not None:
        r = results[first_fail]
        assert r is not None
        term = _term_text(ts, r, first_fail, m)
        evidence.update(
            failing_task=first_fail, failing_mode=r.failing, failing_term=term, interference_terms=list(r.terms)
        )
        summary = f"{what}: {ts.label(first_fail)} misses in {r.failing} mode: {term}"
        if opa_failed:
            summary = (
                f"G-FP AMC (DA carry-in, m = {m}): no priority order passes (Audsley's algorithm); in DM order "
                f"{ts.label(first_fail)} misses in {r.failing} mode: {term}"
            )
        verdict = False
    elif opa_failed:
        evidence["failing_term"] = None
        summary = f"G-FP AMC (DA carry-in, m = {m}): no priority order passes (Audsley's algorithm)"
        verdict = False
    else:
        evidence["failing_term"] = None
        tight = max(
            order,
            key=lambda i: Fraction(results[i].bound, ts[i].D),  # type: ignore[union-attr]
        )
        summary = (
            f"{what}: R ≤ D for every task in priority order "
            + " > ".join(ts.label(i) for i in order)
            + f"; tightest {ts.label(tight)}: R = {results[tight].bound} ≤ D = {ts[tight].D}"  # type: ignore[union-attr]
        )
        verdict = True
    return Explanation(
        verdict=verdict,
        summary=summary,
        evidence=evidence,
        per_task=per_task,
        steps=lambda: _steps(ts, m, order, carry, results),
    )


def _steps(
    ts: MCTaskSet, m: int, order: Sequence[int], carry: str, results: Sequence[TaskResult | None]
) -> Iterator[Step]:
    rho = "R^LO_i / max(R^LO_i, R^HI_i)" if carry == "rta" else "D_i"
    yield Step(
        f"priority order (highest first) on m = {m}: " + " > ".join(ts.label(i) for i in order) + f"; carry-in {rho}"
    )
    yield Step(
        "(LO): x ← C_k(LO) + ⌊(1/m) Σ_{hp} min(W(C_i(LO); x), x − C_k(LO) + 1)⌋; (HI): x ← C_k(HI) + "
        "⌊(1/m)(Σ_{hpH} min(W(C_i(HI); x), x − C_k(HI) + 1) + Σ_{hpL} min(W(C_i(LO); min(R^LO_k, x)), "
        "x − C_k(HI) + 1))⌋"
    )
    for k in order:
        r = results[k]
        if r is None:
            return
        task = ts[k]
        text = f"{ts.label(k)} ({task.criticality}, D = {task.D}): (LO) x = " + " → ".join(map(str, r.chain_lo))
        if r.chain_hi:
            text += "; (HI) x = " + " → ".join(map(str, r.chain_hi))
        yield Step(text + (": passes" if r.ok else f": misses in {r.failing} mode"))
        if not r.ok:
            yield Step("not schedulable under this test")
            return
    yield Step("every task passes: schedulable")


# ---------------------------------------------------------------------------------------------
# kernels (int64, exact)
# ---------------------------------------------------------------------------------------------


@kernel
def _lo_nb(C_lo, T, hp, nh, k, m, D_k, rho_lo):
    """(LO) below hp[:nh]: the least fixed point, or the first iterate above D_k."""
    C_k = C_lo[k]
    x = C_k
    if x > D_k:
        return x
    while True:
        cap = x - C_k + 1
        total = 0
        for a in range(nh):
            i = hp[a]
            total += carry_in_workload_nb(C_lo[i], T[i], rho_lo[i], x, 1, cap)
        value = C_k + total // m
        if value > D_k or value == x:
            return value
        x = value


@kernel
def _hi_nb(C_lo, C_hi, T, level, hp, nh, k, m, D_k, rho_lo, rho, R_lo):
    """(HI) below hp[:nh]: the least fixed point, or the first iterate above D_k."""
    C_k = C_hi[k]
    x = C_k
    if x > D_k:
        return x
    while True:
        cap = x - C_k + 1
        window = min(R_lo, x)
        total = 0
        for a in range(nh):
            i = hp[a]
            if level[i] == 1:
                total += carry_in_workload_nb(C_hi[i], T[i], rho[i], x, 1, cap)
            else:
                total += carry_in_workload_nb(C_lo[i], T[i], rho_lo[i], window, 1, cap)
        value = C_k + total // m
        if value > D_k or value == x:
            return value
        x = value


@kernel
def _task_nb(C_lo, C_hi, T, D, level, hp, nh, k, m, rho_lo, rho):
    """(ok, R_lo, bound) of τk below hp[:nh]; bound = max(R^LO, R^HI) of a HI task, R^LO of a LO task."""
    D_k = D[k]
    R_lo = _lo_nb(C_lo, T, hp, nh, k, m, D_k, rho_lo)
    if R_lo > D_k:
        return False, R_lo, R_lo
    if level[k] == 0:
        return True, R_lo, R_lo
    R_hi = _hi_nb(C_lo, C_hi, T, level, hp, nh, k, m, D_k, rho_lo, rho, R_lo)
    return R_hi <= D_k, R_lo, max(R_lo, R_hi)


@kernel
def _set_code(C_lo, C_hi, T, D, level, m, rta, opa):
    """One set: ACCEPT or REJECT; carry ``rta`` (True) or ``da``, DM priorities or (da only) Audsley's OPA."""
    n = T.shape[0]
    for i in range(n):
        if C_hi[i] > D[i]:
            return REJECT
    order = np.empty(n, dtype=np.int64)
    _dm_order_nb(D, order)
    rho_lo = D.copy()
    rho = D.copy()
    if not opa:
        for p in range(n):
            k = order[p]
            ok, R_lo, bound = _task_nb(C_lo, C_hi, T, D, level, order, p, k, m, rho_lo, rho)
            if not ok:
                return REJECT
            if rta:
                rho_lo[k] = R_lo
                rho[k] = bound
        return ACCEPT
    hp = np.empty(n, dtype=np.int64)
    left = n  # order[:left]: the unassigned tasks in DM order; candidates from the back
    while left > 0:
        placed = -1
        for c in range(left - 1, -1, -1):
            k = order[c]
            nh = np.int64(0)  # int64, not the literal 0: a literal argument compiles the callee once more (issue #46)
            for a in range(left):
                if a != c:
                    hp[nh] = order[a]
                    nh += 1
            ok, _r, _b = _task_nb(C_lo, C_hi, T, D, level, hp, nh, k, m, rho_lo, rho)
            if ok:
                placed = c
                break
        if placed < 0:
            return REJECT
        for a in range(placed, left - 1):
            order[a] = order[a + 1]
        left -= 1
    return ACCEPT


@batch_kernel
def _gfp_mc_sets(C_lo, C_hi, T, D, level, task_offsets, m, rta, opa, out):
    """``out[s]`` = ``_set_code`` of set s, in ``prange`` over the sets."""
    for s in prange(out.shape[0]):
        lo, hi = task_offsets[s], task_offsets[s + 1]
        out[s] = _set_code(C_lo[lo:hi], C_hi[lo:hi], T[lo:hi], D[lo:hi], level[lo:hi], m, rta, opa)


def codes(batch: MCBatch, m: int, *, carry: str = "rta", priorities: str = "dm") -> NDArray[np.int8]:
    """Verdict codes (1 accepted, 0 rejected) of every set of ``batch`` (the kernel layer)."""
    if carry not in CARRY or priorities not in ("dm", "opa") or (priorities == "opa" and carry != "da"):
        raise KeyError((carry, priorities))
    out = np.empty(batch.n_sets, dtype=np.int8)
    _gfp_mc_sets(
        batch.C_lo, batch.C_hi, batch.T, batch.D, batch.level, batch.task_offsets,
        int(m), carry == "rta", priorities == "opa", out,
    )  # fmt: skip
    return out


# ---------------------------------------------------------------------------------------------
# registry
# ---------------------------------------------------------------------------------------------

_VARIANTS = (("rta", "dm"), ("da", "dm"), ("da", "opa"))


def _entry(carry: str, priorities: str, order: float) -> Analysis:
    how = {
        "rta": "carry-in bounded by the response times",
        "da": "carry-in bounded by the deadlines",
    }[carry]
    prio = "deadline-monotonic priorities" if priorities == "dm" else "Audsley's optimal priority assignment"
    return Analysis(
        name=f"mc-gfp-amc-{carry}-{priorities}",
        title=f"Global FP mixed criticality (AMC, after Pathan 2012): response-time test, {how} ({prio})",
        kind="sufficient",
        policy="mc-global-fp",
        platform="identical",
        deadlines=("implicit", "constrained"),
        citation=CITATION,
        note="papers/pathan2012-global-mc.md",
        reference=functools.partial(reference, carry=carry, priorities=priorities),
        explain=functools.partial(explain, carry=carry, priorities=priorities),
        codes=functools.partial(codes, carry=carry, priorities=priorities),
        workload=MC_TASKSETS,
        featured=False,
        order=order,
        shares_kernels_with=None if (carry, priorities) == _VARIANTS[0] else "mc-gfp-amc-rta-dm",
    )


ANALYSES = tuple(_entry(carry, priorities, float(j)) for j, (carry, priorities) in enumerate(_VARIANTS))
