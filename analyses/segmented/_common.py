"""What the contention-free analyses of CPU–GPU segmented tasks share (private module of the family).

Partitioned preemptive fixed priority on the CPU cores, protocol ``none`` (papers/cpu-gpu-model.md:
the device never makes a job wait, no boosting). Every such analysis here bounds each task's
response time by the least fixed point of (JRTA) of :mod:`rtsched.analyses.theory.jitter_rta`,

    R_i = own_i + Σ_{h ∈ hp(i), P_h = P_i} ⌈(R_i + J_h) / T_h⌉ · X_h,

in priority order on each core, and differs only in what a higher-priority task contributes
(``X_h``, ``J_h``, which may depend on ``R_h``): each module passes its rule as ``row``. Tasks on
other cores never interfere (no GPU contention, no boosting).

This module holds the per-core loop (:func:`core_bounds`), the waiting mode a task runs in
(:func:`effective_modes`), the core check, the explanation's rows, failing term and steps
(:func:`explain_bounds`), and the batch kernel (:func:`contention_free_codes`: ``prange`` over the
sets of a :class:`~rtsched.segmented.SegmentedBatch`, the rule chosen by a flag).

Stable API (the lock-based analyses of the family may import it): :data:`MODE_CODE`,
:func:`effective_modes`, :func:`check_cores`, :func:`check_batch_cores`, :class:`TaskBound`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
from numba import prange
from numpy.typing import NDArray

from rtsched.analyses.theory.jitter_rta import JitterRow, JitterSearch, jitter_response, jitter_response_nb
from rtsched.errors import InputError
from rtsched.kernels import ACCEPT, REJECT, batch_kernel
from rtsched.registry import Analysis
from rtsched.result import Explanation, Step, Verdict
from rtsched.segmented.model import SegmentedBatch, SegmentedTaskSet, WaitMode
from rtsched.workloads import SEGMENTED_TASKSETS

__all__ = [
    "mode_entry",
    "MODE_CODE",
    "RULE_BUSY",
    "RULE_JITTER",
    "RowRule",
    "TaskBound",
    "check_batch_cores",
    "check_cores",
    "contention_free_codes",
    "core_bounds",
    "effective_modes",
    "explain_bounds",
    "task_columns",
]

#: Waiting-mode codes of :attr:`SegmentedBatch.mode` (0: the task names none).
MODE_CODE: dict[str, int] = {"busy": 1, "suspend": 2}
#: Kernel rule codes: every higher-priority task as CPU work (X = C + G, J = 0) ...
RULE_BUSY = 0
#: ... or suspending ones (G_e > 0) as jitter (X = C + G_m, J = R − X), the others as CPU work.
RULE_JITTER = 1

#: A module's rule: (the set, the higher-priority task h, its mode, its bound R_h) -> h's (JRTA) row.
RowRule = Callable[[SegmentedTaskSet, int, str, int], JitterRow]


def task_columns(ts: SegmentedTaskSet, b: Any) -> dict[str, Any]:
    """The first columns of a per-task row of an explanation: task, core, mode and its times.

    ``b`` is the task's bound (any object with ``task``, ``core`` and ``mode``).
    """
    t = ts[b.task]
    return {
        "task": ts.label(b.task),
        "core": b.core,
        "mode": b.mode,
        "C": t.C,
        "G_m": t.G_m,
        "G_e": t.G_e,
        "T": t.T,
        "D": t.D,
    }


def effective_modes(ts: SegmentedTaskSet, mode: WaitMode) -> tuple[str, ...]:
    """Each task's waiting mode: its own, else ``mode`` (papers/cpu-gpu-model.md)."""
    if mode not in MODE_CODE:
        raise InputError(f"mode must be busy or suspend, got {mode!r}", field="mode")
    return tuple(ts.mode_of(i, mode) for i in range(ts.n))


def check_cores(ts: SegmentedTaskSet, m: int) -> None:
    """Every task names a core in 0..m−1 (else a TaskError naming the task and ``core``)."""
    ts.check_cores(m)


def check_batch_cores(batch: SegmentedBatch, m: int) -> None:
    """:func:`check_cores` for every set of a batch (an InputError naming the set and the task)."""
    bad = np.flatnonzero((batch.core < 0) | (batch.core >= m))
    if bad.shape[0]:
        k = int(bad[0])
        s = int(np.searchsorted(batch.task_offsets, k, side="right") - 1)
        core = int(batch.core[k])
        what = (
            "the task has no core (assign one, or use an assignment heuristic)"
            if core < 0
            else (f"core {core} does not exist on m = {m} cores (0..{m - 1})")
        )
        raise InputError(what, set_index=s, task=k - int(batch.task_offsets[s]), field="core")


@dataclass(frozen=True)
class TaskBound:
    """One task's bound: its core, mode, (JRTA) inputs and search (None: not computed, a task above it failed)."""

    task: int
    core: int
    mode: str
    own: int
    hp: tuple[int, ...]
    rows: tuple[JitterRow, ...] | None
    search: JitterSearch | None

    @property
    def R(self) -> int | None:
        """The response-time bound (None: above D, or not computed)."""
        return None if self.search is None else self.search.response

    @property
    def ok(self) -> bool:
        """Whether the bound is computed and at most D."""
        return self.R is not None


def core_bounds(ts: SegmentedTaskSet, m: int, mode: WaitMode, row: RowRule, *, stop: bool) -> list[TaskBound]:
    """Every task's :class:`TaskBound` (task order): (JRTA) with own_i = C_i + G_i and ``row`` for each h ∈ hp(i) on P_i.

    A task below a failed task on its core is not computed when ``row`` needs R_h (always here:
    the rows are built only from computed bounds). ``stop``: return at the first failure (the
    verdict needs no more).
    """
    check_cores(ts, m)
    modes = effective_modes(ts, mode)
    out: list[TaskBound] = []
    for i, t in enumerate(ts):
        assert t.core is not None
        hp = tuple(h for h in range(i) if ts[h].core == t.core)
        own = t.C + t.G
        if any(not out[h].ok for h in hp):
            out.append(TaskBound(i, t.core, modes[i], own, hp, None, None))
            continue
        rows = tuple(row(ts, h, modes[h], out[h].R) for h in hp)  # type: ignore[arg-type]
        search = jitter_response(own, t.D, rows)
        out.append(TaskBound(i, t.core, modes[i], own, hp, rows, search))
        if stop and search.response is None:
            break
    return out


def _shown(b: TaskBound, D: int) -> int | str:
    if b.search is None:
        return "-"
    return b.search.response if b.search.response is not None else f"> {D}"


def explain_bounds(
    ts: SegmentedTaskSet,
    m: int,
    mode: WaitMode,
    row: RowRule,
    *,
    what: str,
    equation: str,
    rule_text: str,
) -> Explanation:
    """Verdict, per-task rows (core, mode, own work, X, J, R and its terms), the failing term and the steps."""
    bounds = core_bounds(ts, m, mode, row, stop=False)
    first_fail = next((b for b in bounds if b.search is not None and not b.ok), None)
    verdict: Verdict = first_fail is None
    per_task: list[dict[str, Any]] = []
    # what each task contributes to the tasks below it (X, J), once its bound is known
    contrib: dict[int, JitterRow] = {}
    for b in bounds:
        if b.ok:
            contrib[b.task] = row(ts, b.task, b.mode, b.R)  # type: ignore[arg-type]
    for b in bounds:
        t = ts[b.task]
        terms = "-"
        if b.search is not None and b.rows is not None:
            R = b.search.last
            parts = [f"⌈({R} + {h.J})/{h.T}⌉·{h.X}" if h.J else f"⌈{R}/{h.T}⌉·{h.X}" for h in b.rows]
            terms = " + ".join([str(b.own), *parts]) + f" = {b.search.value}"
        c = contrib.get(b.task)
        per_task.append(
            {
                **task_columns(ts, b),
                "own": b.own,
                "hp": ", ".join(ts.label(h) for h in b.hp) or "-",
                "R": _shown(b, t.D),
                "terms": terms,
                "X": "-" if c is None else c.X,
                "J": "-" if c is None else c.J,
                "ok": b.ok,
            }
        )
    evidence: dict[str, Any] = {
        "mode": mode,
        "response_times": tuple(b.R for b in bounds),
        "failing_task": None if first_fail is None else first_fail.task,
        "failing_term": None,
    }
    if first_fail is not None:
        t = ts[first_fail.task]
        assert first_fail.search is not None
        term = (
            f"{ts.label(first_fail.task)} on core {first_fail.core}: {equation} reaches "
            f"{first_fail.search.value} > D = {t.D}"
        )
        evidence["failing_term"] = term
        summary = f"{what}: not proven: {term}"
    else:
        summary = f"{what}: R ≤ D for every task on {len({b.core for b in bounds})} core(s)"

    def steps() -> Iterator[Step | str]:
        yield Step(f"{what}, protocol none (no GPU contention), default mode {mode}; {rule_text}")
        yield Step(
            f"each task: R = own + Σ_hp ⌈(R + J_h)/T_h⌉·X_h {equation}, own = C + G_m + G_e, iterated from own + Σ X_h"
        )
        for core in sorted({b.core for b in bounds}):
            on = [b for b in bounds if b.core == core]
            yield Step(f"core {core}: " + " > ".join(ts.label(b.task) for b in on))
            for b in on:
                t = ts[b.task]
                head = f"  {ts.label(b.task)} ({b.mode}, own = {b.own}, D = {t.D})"
                if b.search is None:
                    yield Step(head + ": not computed (a task above it has no bound)")
                elif b.ok:
                    yield Step(head + f": R = {per_task[b.task]['terms']} ≤ D: passes")
                else:
                    yield Step(head + f": {per_task[b.task]['terms']} > D: fails")
                c = contrib.get(b.task)
                if c is not None and any(b.task in x.hp for x in on):
                    yield Step(f"    for the tasks below: X = {c.X}, J = {c.J}")
        yield Step("every task passes: schedulable" if verdict else "not proven schedulable")

    return Explanation(verdict=verdict, summary=summary, evidence=evidence, per_task=per_task, steps=steps)


# ---------------------------------------------------------------------------------------------
# kernel (int64, the reference's evaluations in the same order)
# ---------------------------------------------------------------------------------------------


@batch_kernel
def _contention_free_sets(C, G_m, G_e, T, D, core, mode, task_offsets, default_mode, rule, X, J, hp, out):
    """``out[s]``: ACCEPT iff every task of set s meets (JRTA) under ``rule``; X, J, hp are per-task scratch."""
    for s in prange(out.shape[0]):
        lo, hi = task_offsets[s], task_offsets[s + 1]
        code = ACCEPT
        for k in range(lo, hi):
            nh = 0
            for h in range(lo, k):
                if core[h] == core[k]:
                    hp[lo + nh] = h
                    nh += 1
            own = C[k] + G_m[k] + G_e[k]
            R = jitter_response_nb(own, D[k], X, T, J, hp[lo:], nh)
            if R > D[k]:
                code = REJECT
                break
            md = mode[k] if mode[k] != 0 else default_mode
            if rule == RULE_JITTER and md == 2 and G_e[k] > 0:  # suspending: X = C + G_m, J = R − X
                X[k] = C[k] + G_m[k]
                J[k] = R - X[k]
            else:  # busy (or every task as CPU work): X = C + G, J = 0
                X[k] = own
                J[k] = 0
        out[s] = code


def contention_free_codes(batch: SegmentedBatch, m: int, mode: WaitMode, rule: int) -> NDArray[np.int8]:
    """Codes per set (1 accept, 0 reject): :func:`core_bounds` with rule :data:`RULE_BUSY` or :data:`RULE_JITTER`."""
    if mode not in MODE_CODE:
        raise InputError(f"mode must be busy or suspend, got {mode!r}", field="mode")
    check_batch_cores(batch, m)
    n = batch.n_tasks
    out = np.empty(batch.n_sets, dtype=np.int8)
    scratch = [np.zeros(n, dtype=np.int64) for _ in range(3)]
    _contention_free_sets(
        batch.C, batch.G_m_total, batch.G_e_total, batch.T, batch.D, batch.core, batch.mode,
        batch.task_offsets, MODE_CODE[mode], rule, *scratch, out,
    )  # fmt: skip
    return out


def mode_entry(
    mode: WaitMode,
    order: float,
    *,
    name: str,
    title: str,
    policy: str,
    citation: str,
    note: str,
    reference: Callable[..., bool],
    explain: Callable[..., Explanation],
    codes: Callable[..., NDArray[np.int8]],
    shares_kernels_with: str | None,
) -> Analysis:
    """The registry entry of a segmented analysis under one waiting ``mode`` (of the tasks that name none).

    Sufficient, identical CPUs, implicit or constrained deadlines, segmented task sets, not featured;
    ``reference``, ``explain`` and ``codes`` are called with ``mode=mode``.
    """
    return Analysis(
        name=name,
        title=title,
        kind="sufficient",
        policy=policy,
        platform="identical",
        deadlines=("implicit", "constrained"),
        workload=SEGMENTED_TASKSETS,
        citation=citation,
        note=note,
        reference=functools.partial(reference, mode=mode),
        explain=functools.partial(explain, mode=mode),
        codes=functools.partial(codes, mode=mode),
        featured=False,
        order=order,
        shares_kernels_with=shares_kernels_with,
    )
