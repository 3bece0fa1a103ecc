"""Bin-packing helpers shared by the partitioned analyses (EDF and FP).

The order in which bin packing places tasks, and the step-by-step account of a packing
(``rtsched check --explain --steps``).

See papers/partitioned-heuristics.md.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from fractions import Fraction
from typing import Any

from rtsched.kernels import EPS, kernel
from rtsched.result import Step

__all__ = ["FITS", "ORDERS", "load_sign_float", "placed_before", "placement_steps", "preference", "task_order"]

Rows = Sequence[tuple[int, int, int]]

#: Fit rules; a rule's index is its code in the kernels (``_pedf_kernel``, ``partitioned_fp``).
FITS = ("ff", "bf", "wf", "nf")
#: Placement orders; an order's index is its code in the kernels.
ORDERS = ("input", "density", "utilization", "deadline")

_ORDER_TEXT = {
    "input": "input order",
    "density": "decreasing density C/min(D, T)",
    "utilization": "decreasing utilization C/T",
    "deadline": "increasing deadline D",
}
_FIT_TEXT = {
    "ff": "first fit (the lowest-index processor that admits the task)",
    "nf": "next fit (the current processor, then the following ones, never back)",
    "bf": "best fit (the admitting processor with the largest utilization; ties to the lowest index)",
    "wf": "worst fit (the admitting processor with the smallest utilization; ties to the lowest index)",
}


def preference(fit: str, k: int, current: int, loads: Callable[[], Sequence[Fraction]]) -> list[int]:
    """The processors 0, …, k − 1 in the order the fit rule tries them (:data:`_FIT_TEXT`).

    ``current`` is the processor of the last placement (next fit); ``loads()`` gives each
    processor's utilization and is called by best and worst fit only.
    """
    if fit == "ff":
        return list(range(k))
    if fit == "nf":
        return list(range(current, k))
    if fit not in ("bf", "wf"):
        raise ValueError(f"unknown fit {fit!r}")
    load = loads()
    if fit == "bf":
        return sorted(range(k), key=lambda b: (-load[b], b))
    return sorted(range(k), key=lambda b: (load[b], b))


def task_order(rows: Rows, order: str) -> list[int]:
    """The order in which tasks are placed (stable: ties keep the input order)."""
    idx = range(len(rows))
    if order == "input":
        return list(idx)
    if order == "density":
        return sorted(idx, key=lambda i: (-Fraction(rows[i][0], min(rows[i][1], rows[i][2])), i))
    if order == "utilization":
        return sorted(idx, key=lambda i: (-Fraction(rows[i][0], rows[i][2]), i))
    if order == "deadline":
        return sorted(idx, key=lambda i: (rows[i][1], i))
    raise ValueError(f"unknown order {order!r}")


def placement_steps(
    ts: Any,
    fit: str,
    order: str,
    admission: str,
    placements: Sequence[tuple[Any, ...]],
    processors: int,
    placed_note: Callable[[tuple[Any, ...]], str] | None = None,
) -> Iterator[Step]:
    """The packing as a lecturer tells it, task by task.

    The order, then per task the processors tried (with their utilizations for bf/wf), each
    refusal and why, and where the task went.

    ``placements`` is what a partitioned analysis's ``pack(..., placements=...)`` recorded:
    ``(task, ((processor, why it refused), ...), processor or None, ...)`` in placement order;
    ``placed_note(entry)`` adds text after a placement (e.g. the new response times).
    """
    rows = ts.rows()
    seq = task_order(rows, order)
    yield Step(f"placement order ({_ORDER_TEXT[order]}): " + ", ".join(ts.label(i) for i in seq))
    yield Step(f"rule: {_FIT_TEXT[fit]}; a processor admits a task if {admission}")
    bins: list[list[int]] = [[] for _ in range(processors)]

    def load(b: int) -> Fraction:
        return sum((Fraction(rows[j][0], rows[j][2]) for j in bins[b]), Fraction(0))

    for entry in placements:
        i, refusals, b = entry[0], entry[1], entry[2]
        c, d, t = rows[i]
        values: dict[str, Any] = {"u": Fraction(c, t)}
        head = f"{ts.label(i)} (C = {c}, D = {d}, T = {t}, u = " + "{u})"
        if fit in ("bf", "wf"):
            loads = [load(p) for p in range(processors)]
            sign = -1 if fit == "bf" else 1
            ranked = sorted(range(processors), key=lambda p: (sign * loads[p], p))
            head += ": processors in the order tried " + ", ".join(f"P{p} (U = {{L{p}}})" for p in ranked)
            values.update({f"L{p}": loads[p] for p in ranked})
        yield Step(head, values)
        for p, why in refusals:
            yield Step(f"  P{p} refuses: {why}" if p >= 0 else f"  ({why})")
        if b is None:
            yield Step(f"  no processor admits {ts.label(i)}: the heuristic fails (not proven schedulable)")
            return
        bins[b].append(i)
        note = placed_note(entry) if placed_note is not None else ""
        yield Step(f"  → P{b}, now U(P{b}) = " + "{load}" + note, {"load": load(b)})
    if len(placements) == len(rows):
        used = sum(1 for tasks in bins if tasks)
        yield Step(f"every task placed, on {used} processor(s): schedulable")
    else:
        yield Step("the reference's work budget ran out here: the rest of the packing is not shown")


@kernel(inline="always")  # called in sorting loops: a call per comparison costs more than the comparison
def placed_before(C, D, T, a, b, order):
    """Whether task a is placed before task b in the packing order (strict, exact integer comparison).

    ``order``: 1 density decreasing (C/min(D, T)), 2 utilization decreasing, 3 deadline
    increasing, anything else the input order (never before). The kernels' twin of
    :func:`task_order`'s keys, shared by partitioned EDF and partitioned FP.
    """
    if order == 1:  # C_a/min(D_a, T_a) > C_b/min(D_b, T_b)
        return C[a] * min(D[b], T[b]) > C[b] * min(D[a], T[a])
    if order == 2:  # C_a/T_a > C_b/T_b
        return C[a] * T[b] > C[b] * T[a]
    if order == 3:
        return D[a] < D[b]
    return False


@kernel(inline="always")
def load_sign_float(loads, count, a, b):
    """Sign of U(P_a) − U(P_b) (1 or −1) from the float loads, or 0 where they cannot tell.

    Each float load is a sum of ``count`` correctly rounded terms (relative error below
    count·EPS/(1 − count·EPS)); outside 4(count_a + count_b + 2)·EPS·(U_a + U_b + 1) the float
    difference has the exact sign. Inside it (0 here) the caller sums the exact rationals.
    """
    diff = loads[a] - loads[b]
    margin = 4.0 * (count[a] + count[b] + 2) * EPS * (loads[a] + loads[b] + 1.0)
    if diff > margin:
        return 1
    if diff < -margin:
        return -1
    return 0
