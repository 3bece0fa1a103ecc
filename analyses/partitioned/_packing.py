"""Bin-packing helpers shared by the partitioned analyses (EDF and FP).

What the family ``p:<fit>:<order>:<admission>`` has in common whatever its admission test:
its names and registry pattern, the order in which bin packing places tasks, the reference's
packing loop (:class:`Packer`: a module supplies only its admission test), the explanation's
summary of a packing and the step-by-step account of it (``rtsched check --explain --steps``).

See papers/partitioned-heuristics.md.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Sequence
from fractions import Fraction
from typing import Any

from rtsched.budget import Work, WorkExhausted
from rtsched.kernels import EPS, kernel
from rtsched.model import TaskSet
from rtsched.registry import Analysis, Family
from rtsched.result import UNKNOWN, Step, Verdict, count

__all__ = [
    "FITS",
    "ORDERS",
    "Packer",
    "failure_summary",
    "family",
    "family_names",
    "family_pattern",
    "load_sign_float",
    "placed_before",
    "placed_summary",
    "placement_steps",
    "preference",
    "task_order",
]

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


def family_names(admissions: Sequence[str]) -> tuple[str, ...]:
    """Every member ``p:<fit>:<order>:<admission>`` of a family, in a stable order."""
    return tuple(f"p:{f}:{o}:{a}" for f in FITS for o in ORDERS for a in admissions)


def family_pattern(admissions: Sequence[str]) -> str:
    """The registry pattern of a family's names; its groups are the fit, order and admission."""
    return f"p:({'|'.join(FITS)}):({'|'.join(ORDERS)}):({'|'.join(admissions)})"


def family(admissions: Sequence[str], build: Callable[[str, str, str, str], Analysis], policy: str) -> Family:
    """The registry family over FITS × ORDERS × ``admissions``.

    ``build(name, fit, order, admission)`` makes a member; ``policy`` ends the description.
    """

    def member(match: re.Match[str]) -> Analysis:
        return build(match.group(0), match.group(1), match.group(2), match.group(3))

    if len(admissions) == 1:
        slot, listed = admissions[0], ""
    else:
        slot, listed = "<admission>", ", admission " + "|".join(admissions)
    return Family(
        pattern=family_pattern(admissions),
        build=member,
        description=f"p:<fit>:<order>:{slot} with fit {'|'.join(FITS)}, order {'|'.join(ORDERS)}{listed} ({policy})",
    )


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


class Packer(ABC):
    """The exact reference's packing loop, the same for every admission test.

    Places the tasks of ``rows`` in ``order`` (:func:`task_order`) on the processors
    0, …, min(m, n) − 1, trying them as ``fit`` says (:func:`preference`), until a task fits
    nowhere. A module's subclass supplies the admission test (:meth:`admit`, which also keeps
    whatever state the test carries from one admission to the next) and the processors'
    utilizations (:meth:`loads`, as its work budget counts them). An admission that answers
    "unknown" is a refusal; a set that then fails to pack is "unknown", never False.

    :meth:`run` leaves its outcome in the attributes: the processor of each task
    (``assignment``, None: not placed), the placement order (``sequence``), the task that could
    not be placed or, past the work budget, the task being placed (``failed_task``), why each
    processor refused it (``refusals``) and whether the work budget ran out
    (``work_exhausted``); each module's ``Packing`` adds what its admission counts.
    """

    def __init__(self, rows: Rows, m: int, fit: str, order: str, work: Work) -> None:
        self.rows = [(int(c), int(d), int(t)) for c, d, t in rows]
        self.fit = fit
        self.order = order
        self.work = work
        #: Processors considered: min(m, n) (an empty processor is never preferred to a lower empty one).
        self.processors = min(m, len(self.rows))
        #: The tasks on each processor, in the order they were placed.
        self.bins: list[list[int]] = [[] for _ in range(self.processors)]
        self.assignment: list[int | None] = [None] * len(self.rows)
        self.sequence: tuple[int, ...] = ()
        self.failed_task: int | None = None
        self.refusals: tuple[tuple[int, str], ...] = ()
        self.work_exhausted = False

    @abstractmethod
    def loads(self) -> list[Fraction]:
        """The utilization of each processor (best and worst fit compare them)."""

    def begin(self, i: int) -> None:  # noqa: B027 (an optional hook, empty unless a subclass needs it)
        """Called before task ``i`` is tried on any processor."""

    @abstractmethod
    def admit(self, i: int, b: int) -> tuple[Verdict, str]:
        """Whether processor ``b`` admits task ``i``, and why not; True places it there."""

    def note(self, i: int, b: int | None) -> tuple[Any, ...]:
        """What a placement's log entry adds after ``(task, refusals, processor or None)``."""
        return ()

    def run(self, placements: list[Any] | None = None) -> Verdict:
        """Pack and return the verdict; ``placements`` (optional) receives a log entry per task tried.

        An entry is ``(task, ((processor, why it refused), ...), processor or None)`` followed by
        :meth:`note`'s, in placement order.
        """
        current = 0
        unknown = False
        try:
            self.work.spend(len(self.rows))
            self.sequence = tuple(task_order(self.rows, self.order))
            for i in self.sequence:
                self.failed_task = i  # until it is placed
                self.begin(i)
                refusals: list[tuple[int, str]] = []
                for b in preference(self.fit, self.processors, current, self.loads):
                    verdict, why = self.admit(i, b)
                    if verdict is True:
                        self.bins[b].append(i)
                        self.assignment[i] = b
                        current = b
                        if placements is not None:
                            placements.append((i, tuple(refusals), b, *self.note(i, b)))
                        break
                    unknown |= verdict == UNKNOWN
                    refusals.append((b, why))
                else:
                    if placements is not None:
                        placements.append((i, tuple(refusals), None, *self.note(i, None)))
                    self.refusals = tuple(refusals)
                    return UNKNOWN if unknown else False
        except WorkExhausted:
            self.work_exhausted = True
            return UNKNOWN
        self.failed_task = None
        return True


def placed_summary(n: int, used: int, m: int, fit: str, order: str, admission: str) -> str:
    """The explanation's summary of a packing that placed every task."""
    placed = "the only task placed" if n == 1 else f"all {n} tasks placed"
    return f"{placed} on {used} of {count(m, 'processor')} ({fit}, {order} order, {admission} admission)"


def _refusal_text(b: int, why: str) -> str:
    """One refusal as the explanation shows it (``b`` < 0: a note, not a processor's refusal)."""
    return f"({why})" if b < 0 else f"P{b}: {why}"


def failure_summary(
    ts: TaskSet,
    m: int,
    processors: int,
    task: int,
    refusals: Sequence[tuple[int, str]],
    verdict: Verdict,
    evidence: dict[str, object],
) -> str:
    """The explanation's summary of a packing that could not place ``task``.

    Adds the task and its refusals to ``evidence``. Only the first ``processors`` processors are
    ever tried (the others are empty like the last of them).
    """
    why = "; ".join(_refusal_text(b, text) for b, text in refusals) or "no processor left to try (next fit)"
    rest = f"; P{processors}..P{m - 1} are empty like P{processors - 1}" if m > processors else ""
    evidence["failed_task"] = task
    evidence["refusals"] = tuple(_refusal_text(b, text) for b, text in refusals)
    summary = f"{ts.label(task)} could not be placed: {why}{rest}"
    return "unknown (the budget ran out): " + summary if verdict == UNKNOWN else summary


def placement_steps(
    ts: Any,
    fit: str,
    order: str,
    admission: str,
    placements: Sequence[tuple[Any, ...]],
    processors: int,
    placed_note: Callable[[tuple[Any, ...]], str] | None = None,
    verdict: Any = None,
) -> Iterator[Step]:
    """The packing as a lecturer tells it, task by task.

    The order, then per task the processors tried (with their utilizations for bf/wf), each
    refusal and why, and where the task went.

    ``placements`` is what a partitioned analysis's ``pack(..., placements=...)`` recorded:
    ``(task, ((processor, why it refused), ...), processor or None, ...)`` in placement order;
    ``placed_note(entry)`` adds text after a placement (e.g. the new response times); ``verdict``
    (the packing's) words a failed placement as "unknown" when a budget, not a refusal, ended it.
    """
    rows = ts.rows()
    seq = task_order(rows, order)
    yield Step(f"placement order ({_ORDER_TEXT[order]}): " + ", ".join(ts.label(i) for i in seq))
    yield Step(f"rule: {_FIT_TEXT[fit]}")
    yield Step(f"admission: a processor admits a task if {admission}")
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
            if verdict == "unknown":
                yield Step(f"  no processor admits {ts.label(i)} within the work budget: unknown")
            else:
                yield Step(f"  no processor admits {ts.label(i)}: the heuristic fails (not proven schedulable)")
            return
        bins[b].append(i)
        note = placed_note(entry) if placed_note is not None else ""
        yield Step(f"  → P{b}, now U(P{b}) = " + "{load}" + note, {"load": load(b)})
    if len(placements) == len(rows):
        used = sum(1 for tasks in bins if tasks)
        yield Step(f"every task placed, on {count(used, 'processor')}: schedulable")
    else:
        yield Step("the reference's work budget ran out here: the rest of the packing is not shown: unknown")


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
