"""Partitioned fixed-priority mixed criticality: criticality-aware first fit / worst fit with AMC admission per core.

O. R. Kelly, H. Aydin, B. Zhao, "On partitioned scheduling of fixed-priority mixed-criticality
task sets", IEEE TrustCom 2011 (DOI 10.1109/TrustCom.2011.144): tasks are allocated offline, one
processor each, by bin-packing heuristics that order the tasks by utilization and criticality, and
each processor runs preemptive fixed priorities, assigned by Audsley's algorithm (their finding:
ordering by decreasing criticality matters, and Audsley's assignment beats rate-monotonic). See
papers/kelly-aydin-zhao2011-partitioned-mc.md (what could and could not be read of the paper).

rtsched's heuristic (``DC``, decreasing criticality): the HI tasks first, by decreasing C(HI)/T,
then the LO tasks by decreasing C(LO)/T (ties: the lower index first). Each task goes to

* ``ff`` (first fit): the lowest-numbered core on which the core's tasks plus this one pass the
  admission test;
* ``wf`` (worst fit): of the cores in increasing *load* (Σ over the core's tasks of their own-level
  utilization C(L_i)/T_i, exactly; ties: the lower core), the first on which they pass.

The admission test of a core is a uniprocessor test of Baruah, Burns, Davis (RTSS 2011;
``analyses/mixed_criticality/amc2011.py``), AMC-max or AMC-rtb, with Audsley's optimal priority
assignment on that core (``mc-amc-max-opa`` / ``mc-amc-rtb-opa``). The set is accepted iff every
task is placed. Each core switches mode on its own (an overrun on one core drops the LO tasks of
that core only), which is what the per-core uniprocessor analysis covers.

Registry names: ``mc-pfp-ff-amc-max``, ``mc-pfp-wf-amc-max``, ``mc-pfp-ff-amc-rtb``,
``mc-pfp-wf-amc-rtb`` (sufficient, any m ≥ 1).

Kernel: the same placement in Numba; the admission is amc2011's kernel (``_set_code`` with OPA)
on the core's gathered tasks. The task order compares C_a·T_b with C_b·T_a in int64 (exact:
C, T < 2**31). Worst fit compares float loads, and loads within the rounding margin of
each other exactly (each core's load kept as a reduced fraction num/den in int64 while both stay
below 2**31, so that the cross products stay below 2**62); a near tie without exact values gives
UNDECIDED, and :func:`codes` re-decides that set with the exact reference.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Sequence
from fractions import Fraction
from typing import Any

import numpy as np
from numba import prange
from numpy.typing import NDArray

from rtsched.analyses.mixed_criticality import amc2011
from rtsched.analyses.mixed_criticality.amc2011 import _TEST_CODE, _set_code
from rtsched.kernels import ACCEPT, EPS, REJECT, UNDECIDED, batch_kernel, gcd, kernel, redecide_by
from rtsched.mc.model import MCBatch, MCTaskSet
from rtsched.registry import Analysis
from rtsched.result import Explanation, Step
from rtsched.workloads import MC_TASKSETS

__all__ = ["ANALYSES", "CITATION", "FITS", "codes", "explain", "partition", "reference", "task_order"]

CITATION = (
    "O. R. Kelly, H. Aydin, B. Zhao, 'On partitioned scheduling of fixed-priority mixed-criticality task sets', "
    "IEEE TrustCom 2011 (criticality-aware bin packing, Audsley's priorities per processor); per-core admission "
    "AMC-max / AMC-rtb of Baruah, Burns, Davis, RTSS 2011"
)

FITS = ("ff", "wf")


def _own_utilization(ts: MCTaskSet, i: int) -> Fraction:
    """C(L_i)/T_i: a HI task's C(HI)/T, a LO task's C(LO)/T."""
    return Fraction(ts[i].C_hi, ts[i].T)


def task_order(ts: MCTaskSet) -> list[int]:
    """Decreasing criticality, then decreasing own-level utilization, then increasing index."""
    return sorted(range(ts.n), key=lambda i: (-ts[i].level, -_own_utilization(ts, i), i))


def _admits(ts: MCTaskSet, tasks: Sequence[int], test: str) -> list[int] | None:
    """Audsley's order of ``tasks`` (indices into ts, highest first) passing ``test`` on one core, or None."""
    core = MCTaskSet(ts[i] for i in tasks)
    order = amc2011.assign_opa(core, test)
    return None if order is None else [tasks[j] for j in order]


def partition(
    ts: MCTaskSet, m: int, fit: str = "ff", test: str = "amc-max"
) -> tuple[list[int | None], list[list[int]], int | None]:
    """Place the tasks: (core of each task or None, each core's OPA priority order, the first task placed nowhere or None)."""
    if fit not in FITS:
        raise KeyError(fit)
    core_of: list[int | None] = [None] * ts.n
    cores: list[list[int]] = [[] for _ in range(m)]
    orders: list[list[int]] = [[] for _ in range(m)]
    loads = [Fraction(0)] * m
    for i in task_order(ts):
        candidates = range(m) if fit == "ff" else sorted(range(m), key=lambda c: (loads[c], c))
        for c in candidates:
            order = _admits(ts, [*cores[c], i], test)
            if order is not None:
                cores[c].append(i)
                orders[c] = order
                loads[c] += _own_utilization(ts, i)
                core_of[i] = c
                break
        else:
            return core_of, orders, i
    return core_of, orders, None


def reference(ts: MCTaskSet, m: int, *, fit: str = "ff", test: str = "amc-max") -> bool:
    """Exact: every task is placed by ``fit`` with ``test`` (OPA per core) as the admission."""
    return partition(ts, m, fit, test)[2] is None


def explain(ts: MCTaskSet, m: int, *, fit: str = "ff", test: str = "amc-max") -> Explanation:
    """The assignment (core and priority of every task), each core's loads, and the task placed nowhere."""
    core_of, orders, failed = partition(ts, m, fit, test)
    rank = {i: p for order in orders for p, i in enumerate(order)}
    per_task = [
        {
            "task": i,
            "level": t.criticality,
            "C_LO": t.C_lo,
            "C_HI": t.C_hi,
            "T": t.T,
            "D": t.D,
            "utilization": _own_utilization(ts, i),
            "core": "-" if core_of[i] is None else core_of[i],
            "priority_on_core": rank.get(i, "-"),
        }
        for i, t in enumerate(ts)
    ]
    cores = {
        c: {
            "tasks": tuple(order),
            "U_LO": sum((Fraction(ts[i].C_lo, ts[i].T) for i in order), Fraction(0)),
            "U_HI": sum((Fraction(ts[i].C_hi, ts[i].T) for i in order if ts[i].is_hi), Fraction(0)),
        }
        for c, order in enumerate(orders)
    }
    evidence: dict[str, Any] = {"fit": fit, "test": test, "order": tuple(task_order(ts)), "cores": cores}
    what = {"amc-max": "AMC-max", "amc-rtb": "AMC-rtb"}[test]
    if failed is None:
        evidence["failing_task"] = None
        shown = "; ".join(f"core {c}: " + " > ".join(ts.label(i) for i in order) for c, order in enumerate(orders))
        summary = f"{fit.upper()} with {what}+OPA per core places every task ({shown})"
    else:
        reasons = {}
        for c in range(m):  # the core's tasks named by their index in ts (core labels read "τ0 (τ5)")
            core = MCTaskSet(ts[i].replace(name=ts[i].name or f"τ{i}") for i in [*orders[c], failed])
            reasons[c] = amc2011.explain(core, test=test, priorities="opa").summary
        evidence.update(failing_task=failed, failing_term=reasons)
        summary = f"{ts.label(failed)} fits no core under {what}+OPA ({fit.upper()}; core 0: {reasons[0]})"
    return Explanation(
        verdict=failed is None,
        summary=summary,
        evidence=evidence,
        per_task=per_task,
        steps=lambda: _steps(ts, m, fit, test),
    )


def _steps(ts: MCTaskSet, m: int, fit: str, test: str) -> Iterator[Step]:
    order = task_order(ts)
    yield Step("task order (HI first, decreasing C(L)/T): " + ", ".join(ts.label(i) for i in order))
    cores: list[list[int]] = [[] for _ in range(m)]
    loads = [Fraction(0)] * m
    for i in order:
        candidates = range(m) if fit == "ff" else sorted(range(m), key=lambda c: (loads[c], c))
        tried: list[int] = []
        for c in candidates:
            if _admits(ts, [*cores[c], i], test) is not None:
                cores[c].append(i)
                loads[c] += _own_utilization(ts, i)
                yield Step(f"{ts.label(i)} → core {c}" + (f" (fails on cores {tried})" if tried else ""))
                break
            tried.append(c)
        else:
            yield Step(f"{ts.label(i)} fits no core: not schedulable by this heuristic")
            return
    yield Step("every task placed: schedulable")


# ---------------------------------------------------------------------------------------------
# kernel
# ---------------------------------------------------------------------------------------------


_EXACT_LIMIT = 1 << 31


@kernel
def _add_exact(num, den, exact, c, C, T):
    """num[c]/den[c] += C/T, reduced; ``exact[c]`` turns False once a value reaches 2**31 (no overflow)."""
    if not exact[c]:
        return
    a = num[c] * T + C * den[c]  # < 2**62 + 2**62: every factor is below 2**31
    b = den[c] * T
    g = gcd(a, b)
    a //= g
    b //= g
    if a >= _EXACT_LIMIT or b >= _EXACT_LIMIT:
        exact[c] = False
    else:
        num[c] = a
        den[c] = b


@kernel
def _compare_loads(load, num, den, exact, a, b, n):
    """Sign of load[a] − load[b]: −1, 0 or 1, exactly; 2 if undecidable (near in floats, no exact value)."""
    x, y = load[a], load[b]
    margin = 4.0 * (n + 2) * EPS * (x + y)
    if x - y > margin:
        return 1
    if y - x > margin:
        return -1
    if exact[a] and exact[b]:
        left = num[a] * den[b]  # < 2**62
        right = num[b] * den[a]
        return 1 if left > right else (-1 if left < right else 0)
    return 2


@kernel
def _place_set(C_lo, C_hi, T, D, level, m, wf, test):
    """One set: ACCEPT, REJECT, or UNDECIDED (a worst-fit comparison inside the float margin)."""
    n = T.shape[0]
    order = np.empty(n, dtype=np.int64)
    for i in range(n):  # insertion sort: HI first, decreasing C_hi/T (exact cross products), index
        x = i
        while x > 0:
            j = order[x - 1]
            if level[j] > level[i]:
                break
            if level[j] == level[i] and C_hi[j] * T[i] >= C_hi[i] * T[j]:
                break
            order[x] = j
            x -= 1
        order[x] = i
    core_of = np.full(n, -1, dtype=np.int64)
    load = np.zeros(m, dtype=np.float64)
    num = np.zeros(m, dtype=np.int64)  # the exact load num/den while both stay below 2**31
    den = np.ones(m, dtype=np.int64)
    exact = np.ones(m, dtype=np.bool_)
    tried = np.empty(m, dtype=np.int64)
    gC_lo = np.empty(n, dtype=np.int64)
    gC_hi = np.empty(n, dtype=np.int64)
    gT = np.empty(n, dtype=np.int64)
    gD = np.empty(n, dtype=np.int64)
    glevel = np.empty(n, dtype=np.int8)
    for p in range(n):
        i = order[p]
        for c in range(m):
            tried[c] = c
        if wf:  # cores by increasing exact load, ties by index (insertion sort)
            for c in range(1, m):
                x = c
                while x > 0:
                    sign = _compare_loads(load, num, den, exact, tried[x - 1], c, n)
                    if sign == 2:
                        return UNDECIDED
                    if sign <= 0:  # tried[x − 1] < c by index, so equal loads keep it first
                        break
                    tried[x] = tried[x - 1]
                    x -= 1
                tried[x] = c
        placed = False
        for x in range(m):
            c = tried[x]
            k = 0
            for j in range(n):
                if core_of[j] == c:
                    gC_lo[k], gC_hi[k], gT[k], gD[k], glevel[k] = C_lo[j], C_hi[j], T[j], D[j], level[j]
                    k += 1
            gC_lo[k], gC_hi[k], gT[k], gD[k], glevel[k] = C_lo[i], C_hi[i], T[i], D[i], level[i]
            k += 1
            if _set_code(gC_lo[:k], gC_hi[:k], gT[:k], gD[:k], glevel[:k], test, True) == ACCEPT:
                core_of[i] = c
                load[c] += C_hi[i] / T[i]
                _add_exact(num, den, exact, c, C_hi[i], T[i])
                placed = True
                break
        if not placed:
            return REJECT
    return ACCEPT


@batch_kernel
def _place_sets(C_lo, C_hi, T, D, level, task_offsets, m, wf, test, out):
    """``out[s]`` = ``_place_set`` of set s, in ``prange`` over the sets."""
    for s in prange(out.shape[0]):
        lo, hi = task_offsets[s], task_offsets[s + 1]
        out[s] = _place_set(C_lo[lo:hi], C_hi[lo:hi], T[lo:hi], D[lo:hi], level[lo:hi], m, wf, test)


def raw_codes(batch: MCBatch, m: int, *, fit: str = "ff", test: str = "amc-max") -> NDArray[np.int8]:
    """The kernel's codes, UNDECIDED (2) left in (what the registry re-decides)."""
    if fit not in FITS:
        raise KeyError(fit)
    out = np.empty(batch.n_sets, dtype=np.int8)
    _place_sets(
        batch.C_lo, batch.C_hi, batch.T, batch.D, batch.level, batch.task_offsets,
        int(m), fit == "wf", _TEST_CODE[test], out,
    )  # fmt: skip
    return out


def codes(batch: MCBatch, m: int, *, fit: str = "ff", test: str = "amc-max") -> NDArray[np.int8]:
    """Verdict codes (1 accepted, 0 rejected) of every set: the kernel, near worst-fit ties re-decided exactly."""
    out = raw_codes(batch, m, fit=fit, test=test)
    return redecide_by(out, lambda s: reference(batch[s], m, fit=fit, test=test))


# ---------------------------------------------------------------------------------------------
# registry
# ---------------------------------------------------------------------------------------------


def _entry(fit: str, test: str, order: float, workload: Any) -> Analysis:
    what = {"amc-max": "AMC-max", "amc-rtb": "AMC-rtb"}[test]
    how = {"ff": "first fit", "wf": "worst fit"}[fit]
    return Analysis(
        name=f"mc-pfp-{fit}-{test}",
        title=f"Partitioned FP mixed criticality: HI-first {how}, {what} with Audsley's priorities per core",
        kind="sufficient",
        policy="mc-partitioned-fp",
        platform="identical",
        deadlines=("implicit", "constrained"),
        citation=CITATION,
        note="papers/kelly-aydin-zhao2011-partitioned-mc.md",
        reference=functools.partial(reference, fit=fit, test=test),
        explain=functools.partial(explain, fit=fit, test=test),
        codes=functools.partial(codes, fit=fit, test=test),
        workload=workload,
        featured=False,
        order=order,
        shares_kernels_with=None if (fit, test) == ("ff", "amc-max") else "mc-pfp-ff-amc-max",
    )


def _analyses() -> tuple[Analysis, ...]:
    return tuple(
        _entry(fit, test, 10 * t + f, MC_TASKSETS)
        for t, test in enumerate(("amc-max", "amc-rtb"))
        for f, fit in enumerate(FITS)
    )


ANALYSES = _analyses()
