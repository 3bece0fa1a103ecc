"""CPU task-to-core assignment for CPU–GPU segmented tasks without GPU contention (``seg-<analysis>-ffd`` / ``-wfd``).

Issue #43 asks for task-to-core heuristics with the admission test of a chosen analysis. Here the
admission tests are the contention-free analyses of this family (protocol ``none``; note
papers/chen2019-self-suspension-review.md): (OBL) of ``seg-oblivious`` and (JIT) of
``seg-jitter-suspend``. The heuristics are the bin-packing rules of the partitioned family
(papers/partitioned-heuristics.md), restated here for this workload (the families may not import
each other):

* **placement order**: decreasing utilization (C + G_m + G_e)/T, exactly (Fractions), ties in
  task order;
* **first fit decreasing** (``ffd``): each task goes to the lowest-index core that admits it;
* **worst fit decreasing** (``wfd``): to the admitting core with the smallest utilization so
  far, ties to the lowest index. The loads are float sums of W/T in placement order, computed
  the same way in the reference and the kernel (Python's and Numba's IEEE double arithmetic,
  no fastmath); they only choose the order in which cores are tried, never a verdict.

A core *admits* a task when the analysis accepts the tasks already on it plus this one, in their
priority order (the set's task order; the new task may sit above tasks already placed, so the
whole core is checked again). Cores do not interact under protocol ``none``, so a core's verdict
depends on its own tasks only. Accepted iff every task is placed; the set with those cores then
passes the analysis (by construction: held as a test with the simulator). The tasks' own ``core``
fields are ignored (every task is placed); their ``mode`` fields are kept.

The packing loop itself is :func:`pack` (an admission test passed in): the heuristics under GPU
contention (:mod:`rtsched.analyses.segmented.assignment_contended`, ``seg-mpcp-*-ffd`` ...) use
it with the contended analysis on the whole partial set as the admission, since there cores
interact; :func:`placement_orders` is the placement order of every set of a batch (``prange``).

Layers: :func:`assign` / :func:`reference` (Python ints), :func:`explain` (the placement step by
step, per-task rows with core and R from the analysis on the assigned set) and :func:`codes`
(a ``prange`` kernel over the sets, the same placements in the same order).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numba import prange
from numpy.typing import NDArray

from rtsched.analyses.segmented._common import (
    MODE_CODE,
    RULE_BUSY,
    RULE_JITTER,
    RowRule,
    core_bounds,
)
from rtsched.analyses.segmented.jitter import jitter_row
from rtsched.analyses.segmented.oblivious import oblivious_row
from rtsched.analyses.theory.jitter_rta import jitter_response_nb
from rtsched.errors import InputError
from rtsched.kernels import ACCEPT, REJECT, batch_kernel, kernel
from rtsched.registry import Analysis
from rtsched.result import Explanation, Step, Verdict
from rtsched.segmented.model import SegmentedBatch, SegmentedTaskSet, WaitMode
from rtsched.workloads import SEGMENTED_TASKSETS

__all__ = [
    "ANALYSES",
    "BASES",
    "FITS",
    "FIT_TEXT",
    "Admission",
    "Placement",
    "assign",
    "check_fit",
    "codes",
    "explain",
    "pack",
    "placement_order",
    "placement_orders",
    "reference",
]

#: The admission analyses: name -> (registry name, its (JRTA) row rule, kernel rule, default mode).
BASES: dict[str, tuple[str, RowRule, int, WaitMode]] = {
    "oblivious": ("seg-oblivious", oblivious_row, RULE_BUSY, "suspend"),
    "jitter-suspend": ("seg-jitter-suspend", jitter_row, RULE_JITTER, "suspend"),
}
#: The fit rules (their index is the kernel's code).
FITS = ("ffd", "wfd")
FIT_TEXT = {
    "ffd": "first fit decreasing (the lowest-index core that admits the task)",
    "wfd": "worst fit decreasing (the admitting core with the smallest utilization; ties to the lowest index)",
}


def placement_order(ts: SegmentedTaskSet) -> list[int]:
    """Task indices by decreasing utilization (C + G)/T (exact), ties in task order."""
    return sorted(range(ts.n), key=lambda i: (-ts[i].utilization, i))


@dataclass(frozen=True)
class Placement:
    """The outcome of a packing: ``cores[i]`` (None: not placed), the failing task, and per placed task the cores tried."""

    cores: tuple[int | None, ...]
    failing: int | None
    tried: tuple[tuple[int, tuple[int, ...]], ...]


def _admits(ts: SegmentedTaskSet, cores: Sequence[int | None], c: int, row: RowRule, mode: WaitMode) -> bool:
    """Whether the analysis accepts the tasks with ``cores[i] == c`` alone on one core (task order kept)."""
    on = SegmentedTaskSet([ts[i].replace(core=0) for i in range(ts.n) if cores[i] == c])
    return all(b.ok for b in core_bounds(on, 1, mode, row, stop=True))


#: An admission test for :func:`pack`: (the cores so far with task ``i`` already on ``c``, ``i``, ``c``) -> admitted.
Admission = Callable[[Sequence[int | None], int, int], bool]


def check_fit(m: int, fit: str) -> None:
    """An InputError for m < 1 or an unknown fit rule."""
    if m < 1:
        raise InputError(f"need at least one core, got m = {m}", field="m")
    if fit not in FITS:
        raise InputError(f"fit must be one of {', '.join(FITS)}, got {fit!r}", field="fit")


def pack(ts: SegmentedTaskSet, m: int, fit: str, admits: Admission) -> Placement:
    """Place the tasks in :func:`placement_order` by ``fit``; a task goes to the first candidate core ``admits`` accepts.

    The candidates are cores 0..m−1 (ffd), or the cores by increasing float load Σ W/T so far,
    ties to the lowest index (wfd). ``admits(cores, i, c)`` sees ``cores`` with the task already on
    ``c``; a refused task is taken off again. Stops at the first task no core admits.
    """
    check_fit(m, fit)
    cores: list[int | None] = [None] * ts.n
    load = [0.0] * m
    tried: list[tuple[int, tuple[int, ...]]] = []
    for i in placement_order(ts):
        candidates = list(range(m)) if fit == "ffd" else sorted(range(m), key=lambda c: (load[c], c))
        attempts: list[int] = []
        for c in candidates:
            attempts.append(c)
            cores[i] = c
            if admits(cores, i, c):
                load[c] += (ts[i].C + ts[i].G) / ts[i].T
                break
            cores[i] = None
        tried.append((i, tuple(attempts)))
        if cores[i] is None:
            return Placement(tuple(cores), i, tuple(tried))
    return Placement(tuple(cores), None, tuple(tried))


def assign(ts: SegmentedTaskSet, m: int, *, base: str, fit: str) -> Placement:
    """Place the tasks in :func:`placement_order` by ``fit`` with ``base``'s admission (Python ints; float loads for wfd)."""
    _, row, _, mode = BASES[base]
    return pack(ts, m, fit, lambda cores, _, c: _admits(ts, cores, c, row, mode))


def reference(ts: SegmentedTaskSet, m: int, *, base: str, fit: str) -> bool:
    """True iff ``fit`` places every task with ``base``'s admission test."""
    return assign(ts, m, base=base, fit=fit).failing is None


def explain(ts: SegmentedTaskSet, m: int, *, base: str, fit: str) -> Explanation:
    """The placement (per-task core and utilization; R from the analysis on the assigned set), the failing task, the steps."""
    name, row, _, mode = BASES[base]
    p = assign(ts, m, base=base, fit=fit)
    verdict: Verdict = p.failing is None
    per_task: list[dict[str, Any]] = []
    R: tuple[int | None, ...] = (None,) * ts.n
    if verdict:
        assigned = ts.with_cores(list(p.cores))
        R = tuple(b.R for b in core_bounds(assigned, m, mode, row, stop=False))
    rank = {i: k for k, i in enumerate(placement_order(ts))}
    for i, t in enumerate(ts):
        per_task.append(
            {
                "task": ts.label(i),
                "U": t.utilization,
                "placed": rank[i] + 1,
                "core": "-" if p.cores[i] is None else p.cores[i],
                "mode": ts.mode_of(i, mode),
                "D": t.D,
                "R": "-" if R[i] is None else R[i],
            }
        )
    evidence: dict[str, Any] = {
        "assignment": p.cores,
        "admission": name,
        "fit": fit,
        "failing_task": p.failing,
        "failing_term": None,
    }
    if p.failing is not None:
        term = f"{ts.label(p.failing)} (U = {ts[p.failing].utilization}) fits no core under {name}"
        evidence["failing_term"] = term
        summary = f"{fit} with {name}: not proven: {term}"
    else:
        summary = f"{fit} with {name}: every task placed, cores " + ", ".join(str(c) for c in p.cores)

    def steps() -> Iterator[Step | str]:
        yield Step(
            f"{FIT_TEXT[fit]}, by decreasing utilization (C + G)/T; admission: {name} on each core (protocol none)"
        )
        for i, attempts in p.tried:
            outcome = f"core {p.cores[i]}" if p.cores[i] is not None else "no core"
            refused = [c for c in attempts if c != p.cores[i]]
            text = f"{ts.label(i)} (U = {{u}}): " + (
                f"refused by core(s) {', '.join(map(str, refused))}; " if refused else ""
            )
            yield Step(text + f"→ {outcome}", {"u": ts[i].utilization})
        yield Step("every task placed: schedulable" if verdict else "a task fits no core: not proven")

    return Explanation(verdict=verdict, summary=summary, evidence=evidence, per_task=per_task, steps=steps)


# ---------------------------------------------------------------------------------------------
# kernel
# ---------------------------------------------------------------------------------------------


@kernel
def _order_set(C, G_m, G_e, T, lo, hi, order):
    """``order[lo:hi]``: the tasks of [lo, hi) by decreasing (C + G)/T, exact (cross products < 2**62), ties by index."""
    for k in range(lo, hi):
        x = k
        W = C[k] + G_m[k] + G_e[k]
        while x > lo:
            p = order[x - 1]
            if (C[p] + G_m[p] + G_e[p]) * T[k] >= W * T[p]:
                break
            order[x] = p
            x -= 1
        order[x] = k


@batch_kernel
def _orders(C, G_m, G_e, T, task_offsets, order):
    """:func:`_order_set` for every set (``prange``)."""
    for s in prange(task_offsets.shape[0] - 1):
        _order_set(C, G_m, G_e, T, task_offsets[s], task_offsets[s + 1], order)


def placement_orders(batch: SegmentedBatch) -> NDArray[np.int64]:
    """Per set s, ``out[task_offsets[s]:task_offsets[s + 1]]``: its tasks (batch indices) in :func:`placement_order`."""
    order = np.empty(batch.n_tasks, dtype=np.int64)
    _orders(batch.C, batch.G_m_total, batch.G_e_total, batch.T, batch.task_offsets, order)
    return order


@kernel
def _core_admits(C, G_m, G_e, T, D, mode, lo, hi, where, c, default_mode, rule, X, J, hp):
    """Whether the tasks of set [lo, hi) with ``where[k] == c`` pass (JRTA) under ``rule`` on one core."""
    for k in range(lo, hi):
        if where[k] != c:
            continue
        nh = 0
        for h in range(lo, k):
            if where[h] == c:
                hp[lo + nh] = h
                nh += 1
        own = C[k] + G_m[k] + G_e[k]
        R = jitter_response_nb(own, D[k], X, T, J, hp[lo:], nh)
        if R > D[k]:
            return False
        md = mode[k] if mode[k] != 0 else default_mode
        if rule == RULE_JITTER and md == 2 and G_e[k] > 0:
            X[k] = C[k] + G_m[k]
            J[k] = R - X[k]
        else:
            X[k] = own
            J[k] = 0
    return True


@batch_kernel
def _assign_sets(C, G_m, G_e, T, D, mode, task_offsets, m, default_mode, rule, fit, X, J, hp, where, order, out):
    """``out[s]``: ACCEPT iff ``fit`` (0 ffd, 1 wfd) places every task of set s; the rest are per-task scratch."""
    for s in prange(out.shape[0]):
        lo, hi = task_offsets[s], task_offsets[s + 1]
        _order_set(C, G_m, G_e, T, lo, hi, order)
        for k in range(lo, hi):
            where[k] = -1
        load = np.zeros(m)
        tried = np.zeros(m, dtype=np.bool_)
        code = ACCEPT
        for x in range(lo, hi):
            k = order[x]
            tried[:] = False
            placed = False
            for attempt in range(m):
                if fit == 0:
                    c = attempt
                else:
                    c = -1
                    for q in range(m):
                        if not tried[q] and (c < 0 or load[q] < load[c]):
                            c = q
                    tried[c] = True
                where[k] = c
                if _core_admits(C, G_m, G_e, T, D, mode, lo, hi, where, c, default_mode, rule, X, J, hp):
                    load[c] += float(C[k] + G_m[k] + G_e[k]) / float(T[k])
                    placed = True
                    break
                where[k] = -1
            if not placed:
                code = REJECT
                break
        out[s] = code


def codes(batch: SegmentedBatch, m: int, *, base: str, fit: str) -> NDArray[np.int8]:
    """Codes per set (1 every task placed, 0 not)."""
    check_fit(m, fit)
    _, _, rule, mode = BASES[base]
    n = batch.n_tasks
    out = np.empty(batch.n_sets, dtype=np.int8)
    scratch = [np.zeros(n, dtype=np.int64) for _ in range(5)]
    _assign_sets(
        batch.C, batch.G_m_total, batch.G_e_total, batch.T, batch.D, batch.mode, batch.task_offsets,
        m, MODE_CODE[mode], rule, FITS.index(fit), *scratch, out,
    )  # fmt: skip
    return out


def _entry(base: str, fit: str, order: float) -> Analysis:
    name = BASES[base][0]
    return Analysis(
        name=f"{name}-{fit}",
        title=f"{FIT_TEXT[fit].split(' (')[0]} task-to-core assignment with {name} as admission test (no GPU contention)",
        kind="sufficient",
        policy="partitioned-fp-gpu-none",
        platform="identical",
        deadlines=("implicit", "constrained"),
        workload=SEGMENTED_TASKSETS,
        citation=(
            f"rtsched: bin packing by decreasing utilization ({fit}) with {name}'s admission per core "
            "(papers/chen2019-self-suspension-review.md; heuristics as papers/partitioned-heuristics.md)"
        ),
        note="papers/chen2019-self-suspension-review.md",
        reference=functools.partial(reference, base=base, fit=fit),
        explain=functools.partial(explain, base=base, fit=fit),
        codes=functools.partial(codes, base=base, fit=fit),
        featured=False,
        order=order,
    )


ANALYSES = tuple(_entry(base, fit, 10 + 2 * b + f) for b, base in enumerate(BASES) for f, fit in enumerate(FITS))
