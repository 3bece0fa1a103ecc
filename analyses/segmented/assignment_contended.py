"""CPU task-to-core assignment under GPU contention (``seg-mpcp-*-ffd``, ``seg-fmlp-*-wfd``, ``seg-gcaps-*-ffd``, ...).

Issue #43 asks for task-to-core heuristics "with the admission test of the chosen analysis". For
the contention-free analyses (protocol ``none``) :mod:`rtsched.analyses.segmented.assignment`
admits a task per core, because cores do not interact there. Under a GPU protocol they do: a task
placed on core 0 changes the waiting of tasks on every other core that share its device (MPCP
and FMLP+ remote waiting through the holding times, GCAPS device bounds through R_h), and a
boosted GPU section changes the local blocking on its own core. So here the admission test of a
placement is **the chosen analysis on the whole partial set**: the tasks placed so far, with
their cores, plus the task being placed on the candidate core, in the set's priority order.

The heuristics are those of ``assignment.py`` (:func:`~rtsched.analyses.segmented.assignment.pack`,
the same code): placement by decreasing utilization (C + G_m + G_e)/T, exact, ties in task order;
first fit decreasing (``ffd``: the lowest-index core that admits the task) or worst fit
decreasing (``wfd``: the admitting core with the smallest float load Σ W/T so far, ties to the
lowest index; the loads only order the candidates, never decide). The tasks' own ``core`` fields
are ignored (every task is placed); their ``mode`` fields are kept. The inner analyses run through
the registry with their registered options (GCAPS: ε = 0, GPU priority = task order).

**Soundness (why the search needs no property of the analysis).** The heuristic accepts only when
every task is placed. The last placement's admission test is the inner analysis on the partial set
of *all* tasks with the cores the heuristic returns, i.e. on ``ts.with_cores(cores)``. So an
accepted set is, with those cores, accepted by the inner analysis itself, and the promise of the
inner analysis (papers/cpu-gpu-model.md, "What an analysis promises") holds for it: the heuristic
only searches for cores, it proves nothing of its own. The earlier partial-set tests only prune
the search: an analysis that is not monotone in the set (accepting a set but not a subset) would
make the heuristic give up on some placements, never accept a wrong one. (Every placed prefix
keeps its cores: cores are never changed once given, so every prefix of the placement is a set
the inner analysis accepted; the tests check this too.)

**Monotone in m (ffd only).** The inner analyses use m only to check that cores are in 0..m−1.
With m + 1 cores, first fit tries cores 0..m−1 in the same order on the same partial sets, so
every task placed on m cores is placed on the same core with m + 1: ffd accepting on m cores
accepts on m + 1, with the same cores. Worst fit has no such property (the empty core m changes
the load order), and neither heuristic is monotone in the tasks' parameters.

Layers: :func:`assign` / :func:`reference` (the inner analysis's exact reference on every trial),
:func:`explain` (the placement step by step, with the inner analysis's failing term for every
refused core, the final cores and per-task bounds from the inner analysis on the assigned set)
and :func:`codes`, the same trials in the same order:

* MPCP and FMLP+: one ``prange`` kernel over the sets; each trial compacts the partial set into
  scratch arrays and decides it with the set kernel of :mod:`rtsched.analyses.segmented._locking`
  (the kernel of ``seg-mpcp-*``/``seg-fmlp-*`` itself, so kernel == reference follows from theirs
  and is tested here again);
* GCAPS: **not one kernel** (its module is used only through its public entry points): a Python
  loop over placement steps and candidate rounds that, at each round, builds one batch of trial
  sets (one per set still placing; numpy gathers) and calls the inner analysis's batch kernel on
  it (``status``, ``prange`` over the sets): at most n·m kernel calls for sets of n tasks.

The placement orders come from a ``prange`` kernel of ``assignment.py``.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numba import prange
from numpy.typing import NDArray

from rtsched import registry
from rtsched.analyses.segmented._common import MODE_CODE
from rtsched.analyses.segmented._locking import PROTOCOLS
from rtsched.analyses.segmented._locking import _set_code as _lock_set_code
from rtsched.analyses.segmented.assignment import (
    FIT_TEXT,
    FITS,
    Placement,
    check_fit,
    pack,
    placement_order,
    placement_orders,
)
from rtsched.errors import InputError
from rtsched.kernels import ACCEPT, REJECT, batch_kernel, kernel
from rtsched.registry import Analysis
from rtsched.result import Explanation, Step, Verdict
from rtsched.segmented.model import SegmentedBatch, SegmentedTaskSet
from rtsched.workloads import SEGMENTED_TASKSETS

__all__ = ["ANALYSES", "INNER", "Trial", "assign", "codes", "explain", "partial_set", "reference"]

#: The admission analyses: registry name -> (policy, note, order of the first entry within the policy).
INNER: dict[str, tuple[str, str, float]] = {
    "seg-mpcp-busy": ("partitioned-fp-gpu-mpcp", "papers/patel2018-mpcp-gpu.md", 20),
    "seg-mpcp-suspend": ("partitioned-fp-gpu-mpcp", "papers/patel2018-mpcp-gpu.md", 22),
    "seg-fmlp-busy": ("partitioned-fp-gpu-fmlp+", "papers/brandenburg2014-fmlp-plus.md", 20),
    "seg-fmlp-suspend": ("partitioned-fp-gpu-fmlp+", "papers/brandenburg2014-fmlp-plus.md", 22),
    "seg-gcaps-busy": ("partitioned-fp-gpu-gcaps", "papers/wang2024-gcaps.md", 40),
    "seg-gcaps-suspend": ("partitioned-fp-gpu-gcaps", "papers/wang2024-gcaps.md", 42),
}


def _inner(inner: str) -> registry.Analysis:
    if inner not in INNER:
        raise InputError(f"admission analysis must be one of {', '.join(INNER)}, got {inner!r}", field="inner")
    return registry.get(inner)


def partial_set(ts: SegmentedTaskSet, cores: Sequence[int | None]) -> tuple[SegmentedTaskSet, tuple[int, ...]]:
    """The placed tasks (``cores[i]`` not None) on their cores, in task order, and their indices in ``ts``."""
    kept = tuple(i for i in range(ts.n) if cores[i] is not None)
    return SegmentedTaskSet([ts[i].replace(core=cores[i]) for i in kept]), kept


@dataclass(frozen=True)
class Trial:
    """One admission test: task ``task`` on ``core`` with the tasks placed before it; the inner verdict."""

    task: int
    core: int
    cores: tuple[int | None, ...]
    admitted: bool


def _run(ts: SegmentedTaskSet, m: int, inner: str, fit: str) -> tuple[Placement, list[Trial]]:
    entry = _inner(inner)
    check_fit(m, fit)
    trials: list[Trial] = []

    def admits(cores: Sequence[int | None], i: int, c: int) -> bool:
        part, _ = partial_set(ts, cores)
        ok = entry.reference(part, m) is True
        trials.append(Trial(i, c, tuple(cores), ok))
        return ok

    return pack(ts, m, fit, admits), trials


def assign(ts: SegmentedTaskSet, m: int, *, inner: str, fit: str) -> Placement:
    """Place the tasks by ``fit``; a placement is admitted iff ``inner``'s reference accepts the whole partial set."""
    return _run(ts, m, inner, fit)[0]


def reference(ts: SegmentedTaskSet, m: int, *, inner: str, fit: str) -> bool:
    """True iff ``fit`` places every task; then ``inner`` accepts ``ts.with_cores(cores)`` (its last admission)."""
    return assign(ts, m, inner=inner, fit=fit).failing is None


def _reason(ts: SegmentedTaskSet, m: int, entry: registry.Analysis, cores: Sequence[int | None]) -> str:
    """The inner analysis's failing term on the partial set ``cores``, naming tasks by their labels in ``ts``."""
    part, kept = partial_set(ts, cores)
    result = entry.explain(part, m)
    failing = result.evidence.get("failing_task")
    term = str(result.evidence.get("failing_term") or result.summary)
    if isinstance(failing, int):
        prefix = part.label(failing) + ": "
        term = ts.label(kept[failing]) + ": " + (term[len(prefix) :] if term.startswith(prefix) else term)
    return term


def explain(ts: SegmentedTaskSet, m: int, *, inner: str, fit: str) -> Explanation:
    """The placement steps (each refused core with the inner failing term), the final cores and per-task bounds."""
    entry = _inner(inner)
    p, trials = _run(ts, m, inner, fit)
    verdict: Verdict = p.failing is None
    R: tuple[Any, ...] = (None,) * ts.n
    inner_summary = None
    if verdict:
        final = entry.explain(ts.with_cores(list(p.cores)), m)
        assert final.verdict is True  # the last admission was this very set
        R = tuple(final.evidence["response_times"])
        inner_summary = final.summary
    reasons = {(t.task, t.core): _reason(ts, m, entry, t.cores) for t in trials if not t.admitted}
    rank = {i: k for k, i in enumerate(placement_order(ts))}
    mode = inner.rsplit("-", 1)[1]
    per_task = [
        {
            "task": ts.label(i),
            "U": t.utilization,
            "placed": rank[i] + 1,
            "core": "-" if p.cores[i] is None else p.cores[i],
            "mode": ts.mode_of(i, mode),  # type: ignore[arg-type]
            "D": t.D,
            "R": "-" if R[i] is None else R[i],
        }
        for i, t in enumerate(ts)
    ]
    evidence: dict[str, Any] = {
        "assignment": p.cores,
        "admission": inner,
        "fit": fit,
        "response_times": R,
        "trials": tuple((t.task, t.core, t.admitted) for t in trials),
        "failing_task": p.failing,
        "failing_term": None,
    }
    if p.failing is not None:
        last = {c: reasons[(p.failing, c)] for c in range(m) if (p.failing, c) in reasons}
        term = f"{ts.label(p.failing)} (U = {ts[p.failing].utilization}) fits no core under {inner}"
        if last:
            term += " (" + "; ".join(f"core {c}: {why}" for c, why in last.items()) + ")"
        evidence["failing_term"] = term
        summary = f"{fit} with {inner} on the partial sets: not proven: {term}"
    else:
        summary = f"{fit} with {inner} on the partial sets: every task placed, cores " + ", ".join(
            str(c) for c in p.cores
        )

    def steps() -> Iterator[Step | str]:
        yield Step(
            f"{FIT_TEXT[fit]}, by decreasing utilization (C + G)/T; admission: {inner} on the whole partial set "
            "(the tasks placed so far with their cores, and the candidate), in priority order"
        )
        for i, attempts in p.tried:
            for c in attempts:
                if c == p.cores[i]:
                    yield Step(
                        f"{ts.label(i)} (U = {{u}}) on core {c}: {inner} accepts the partial set → core {c}",
                        {"u": ts[i].utilization},
                    )
                else:
                    yield Step(
                        f"{ts.label(i)} (U = {{u}}) on core {c}: refused: {reasons[(i, c)]}", {"u": ts[i].utilization}
                    )
            if p.cores[i] is None:
                yield Step(f"{ts.label(i)}: no core admits it")
        if verdict:
            yield Step(f"every task placed; {inner} on the assigned set: {inner_summary}")
            for i in range(ts.n):
                yield Step(f"  {ts.label(i)}: core {p.cores[i]}, R = {R[i]} ≤ D = {ts[i].D}")
            yield Step("schedulable")
        else:
            yield Step("a task fits no core: not proven")

    return Explanation(verdict=verdict, summary=summary, evidence=evidence, per_task=per_task, steps=steps)


# ---------------------------------------------------------------------------------------------
# batch: a loop over placement steps and candidate rounds, one inner batch-kernel call per round
# ---------------------------------------------------------------------------------------------


def _trial_sets(batch: SegmentedBatch, where: NDArray[np.int64], in_trial: NDArray[np.bool_]) -> SegmentedBatch:
    """The sets with ``in_trial[s]``, each with only its placed tasks (``where >= 0``) on cores ``where``."""
    sizes = np.diff(batch.task_offsets)
    set_of = np.repeat(np.arange(batch.n_sets), sizes)
    mask = (where >= 0) & in_trial[set_of]
    eta = batch.eta
    seg = np.repeat(mask, eta)
    cpu = np.repeat(mask, eta + 1)
    counts = np.bincount(set_of[mask], minlength=batch.n_sets)[in_trial]
    return SegmentedBatch(
        batch.cpu[cpu], batch.G_m[seg], batch.G_e[seg], batch.device[seg], batch.T[mask], batch.D[mask],
        where[mask], batch.mode[mask], np.concatenate(([0], np.cumsum(eta[mask]))),
        np.concatenate(([0], np.cumsum(counts))), device_names=batch.device_names, validate=False,
    )  # fmt: skip


def codes(batch: SegmentedBatch, m: int, *, inner: str, fit: str) -> NDArray[np.int8]:
    """Codes per set (1 every task placed, 0 not): the reference's trials (MPCP, FMLP+: one kernel; GCAPS: rounds)."""
    entry = _inner(inner)
    check_fit(m, fit)
    if batch.n_sets == 0:
        return np.empty(0, dtype=np.int8)
    if inner.startswith(("seg-mpcp-", "seg-fmlp-")):
        return _locking_codes(batch, m, inner, fit)
    return _rounds_codes(batch, m, entry, fit)


def _rounds_codes(batch: SegmentedBatch, m: int, entry: registry.Analysis, fit: str) -> NDArray[np.int8]:
    """The loop over placement steps and candidate rounds, one inner ``status`` call per round."""
    n_sets = batch.n_sets
    offsets = batch.task_offsets
    sizes = np.diff(offsets)
    order = placement_orders(batch)
    where = np.full(batch.n_tasks, -1, dtype=np.int64)
    share = batch.C.astype(np.float64) + batch.G_m_total + batch.G_e_total  # exact below 2**53 (W ≤ 3·2**31)
    share /= batch.T.astype(np.float64)  # the reference's float (C + G)/T: correctly rounded both ways
    load = np.zeros((n_sets, m))
    alive = np.ones(n_sets, dtype=np.bool_)
    for x in range(int(sizes.max()) if n_sets else 0):
        S = np.flatnonzero(alive & (sizes > x))
        if S.size == 0:
            break
        task = order[offsets[S] + x]
        if fit == "ffd":
            candidates = np.broadcast_to(np.arange(m), (S.size, m))
        else:  # by (load, core): a stable sort keeps equal loads in core order
            candidates = np.argsort(load[S], axis=1, kind="stable")
        pending = np.ones(S.size, dtype=np.bool_)
        for r in range(m):
            P = np.flatnonzero(pending)
            if P.size == 0:
                break
            sets, tasks, cores = S[P], task[P], candidates[P, r]
            where[tasks] = cores
            in_trial = np.zeros(n_sets, dtype=np.bool_)
            in_trial[sets] = True
            ok = entry.status(_trial_sets(batch, where, in_trial), m) == 1
            load[sets[ok], cores[ok]] += share[tasks[ok]]
            where[tasks[~ok]] = -1
            pending[P[ok]] = False
        alive[S[pending]] = False
    return alive.astype(np.int8)


# ---------------------------------------------------------------------------------------------
# MPCP and FMLP+: one prange kernel, each trial compacted and decided by _locking's set kernel
# ---------------------------------------------------------------------------------------------


@kernel
def _locking_trial(C, G_m, G_e, T, D, mode, go, sG_m, sG_e, sdev, lo, hi, where, default_mode, proto, ti, ts_):
    """``_locking``'s set code on the placed tasks of set [lo, hi) (``where >= 0``) on cores ``where``, task order.

    ``ti`` (7 × n int64) and ``ts_`` (3 × segments int64) are the compacted set's scratch.
    """
    n = 0
    ns = 0
    ti[6, 0] = 0
    for k in range(lo, hi):
        if where[k] < 0:
            continue
        ti[0, n] = C[k]
        ti[1, n] = G_m[k]
        ti[2, n] = G_e[k]
        ti[3, n] = T[k]
        ti[4, n] = D[k]
        ti[5, n] = where[k]
        for y in range(go[k], go[k + 1]):
            ts_[0, ns] = sG_m[y]
            ts_[1, ns] = sG_e[y]
            ts_[2, ns] = sdev[y]
            ns += 1
        n += 1
        ti[6, n] = ns
    md = np.empty(n, dtype=np.int64)
    x = 0
    for k in range(lo, hi):
        if where[k] >= 0:
            md[x] = mode[k]
            x += 1
    return _lock_set_code(
        ti[0, :n], ti[1, :n], ti[2, :n], ti[3, :n], ti[4, :n], ti[5, :n], md, ti[6, : n + 1],
        ts_[0], ts_[1], ts_[2], default_mode, proto,
    )  # fmt: skip


@batch_kernel
def _locking_assign_sets(
    C, G_m, G_e, T, D, mode, go, sG_m, sG_e, sdev, task_offsets, order, m, default_mode, proto, fit, where, out
):
    """``out[s]``: ACCEPT iff ``fit`` (0 ffd, 1 wfd) places every task of set s, admission = ``_locking`` on the partial set."""
    for s in prange(out.shape[0]):
        lo, hi = task_offsets[s], task_offsets[s + 1]
        ti = np.empty((7, hi - lo + 1), dtype=np.int64)
        ts_ = np.empty((3, go[hi] - go[lo] + 1), dtype=np.int64)
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
                else:  # the untried core of least load, ties to the lowest index
                    c = -1
                    for q in range(m):
                        if not tried[q] and (c < 0 or load[q] < load[c]):
                            c = q
                    tried[c] = True
                where[k] = c
                if (
                    _locking_trial(
                        C, G_m, G_e, T, D, mode, go, sG_m, sG_e, sdev, lo, hi, where, default_mode, proto, ti, ts_
                    )
                    == ACCEPT
                ):
                    load[c] += float(C[k] + G_m[k] + G_e[k]) / float(T[k])
                    placed = True
                    break
                where[k] = -1
            if not placed:
                code = REJECT
                break
        out[s] = code


def _locking_codes(batch: SegmentedBatch, m: int, inner: str, fit: str) -> NDArray[np.int8]:
    """The kernel path of the MPCP and FMLP+ heuristics (the inner analysis's options: its registered mode)."""
    _, proto, mode = inner.split("-")
    out = np.empty(batch.n_sets, dtype=np.int8)
    where = np.empty(batch.n_tasks, dtype=np.int64)
    _locking_assign_sets(
        batch.C, batch.G_m_total, batch.G_e_total, batch.T, batch.D, batch.mode, batch.gpu_offsets, batch.G_m,
        batch.G_e, batch.device, batch.task_offsets, placement_orders(batch), m, MODE_CODE[mode],
        PROTOCOLS["fmlp+" if proto == "fmlp" else proto], FITS.index(fit), where, out,
    )  # fmt: skip
    return out


def _entry(inner: str, fit: str) -> Analysis:
    policy, note, first = INNER[inner]
    name = f"{inner}-{fit}"
    # one kernel for the eight MPCP/FMLP+ heuristics; the GCAPS ones run seg-gcaps-busy's kernels
    group = "seg-gcaps-busy-ffd" if inner.startswith("seg-gcaps-") else "seg-mpcp-busy-ffd"
    return Analysis(
        name=name,
        title=(
            f"{FIT_TEXT[fit].split(' (')[0]} task-to-core assignment with {inner} on the whole partial set as "
            "admission test (GPU contention)"
        ),
        kind="sufficient",
        policy=policy,
        platform="identical",
        deadlines=("implicit", "constrained"),
        workload=SEGMENTED_TASKSETS,
        citation=(
            f"rtsched: bin packing by decreasing utilization ({fit}) admitting a placement iff {inner} accepts the "
            "partial set; an accepted set is accepted by that analysis with the cores found "
            "(analyses/segmented/assignment_contended.py; heuristics as papers/partitioned-heuristics.md)"
        ),
        note=note,
        reference=functools.partial(reference, inner=inner, fit=fit),
        explain=functools.partial(explain, inner=inner, fit=fit),
        codes=functools.partial(codes, inner=inner, fit=fit),
        featured=False,
        order=first + FITS.index(fit),
        calls=(inner,),
        shares_kernels_with=None if name == group else group,
    )


ANALYSES = tuple(_entry(inner, fit) for inner in INNER for fit in FITS)
