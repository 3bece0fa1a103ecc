"""Segment-level suspension-aware response-time analysis of CPU–GPU segmented tasks without GPU contention (``seg-segment-*``).

Model and semantics: papers/cpu-gpu-model.md (issue #43), protocol ``none``: the device never
makes a job wait and nothing is boosted; partitioned preemptive fixed priority on the CPU cores
(task order = priority). Note: papers/segment-level-suspension.md (proofs, worked examples).

``seg-jitter-*`` (jitter.py) bounds a suspending job as one busy window of length ``C + G``
(its own suspension counted as if it were work, every higher-priority task interfering across the
whole window). A segmented self-suspending job is known to alternate *computation* and
*suspension* in a fixed order; this analysis bounds each computation segment of the job under
analysis by its own busy window and adds the suspensions:

A job of a suspending τk (its mode, else the analysis's, and ``G_e_k > 0``) runs the parts
``C_1, ⌈G_m_1/2⌉, G_e_1, ⌊G_m_1/2⌋, C_2, …`` (papers/cpu-gpu-model.md). Its computation segments
are the maximal runs of CPU parts between GPU parts with ``G_e_j > 0`` (a GPU segment with
``G_e_j = 0`` never suspends the job: its CPU-side halves join the neighbouring runs):

    E_{k,1} = C_1 + ⌈G_m_1/2⌉,  E_{k,b} = ⌊G_m_{j−1}/2⌋ + C_j + ⌈G_m_j/2⌉, …,  E_{k,B} = ⌊G_m_η/2⌋ + C_{η+1}   (SEG-E)
    r_{k,b} = 0 if E_{k,b} = 0, else the least x = E_{k,b} + Σ_{h ∈ hp(k), P_h = P_k} ⌈(x + J_h)/T_h⌉ · X_h       (SEG-r)
    R_k^seg = Σ_b r_{k,b} + Σ_j G_e_{k,j}                                                                     (SEG)
    R_k^comb = the least x = (C_k + G_k) + Σ_h min(Σ_b ⌈(r_{k,b} + J_h)/T_h⌉ · X_h, ⌈(x + R_h − X_h)/T_h⌉ · X_h)  (SEG-C)
    R_k = min(R_k^jit, R_k^seg, R_k^comb)   (suspending k),   R_k = R_k^jit   (any other k)                      (MIN)

with ``R_k^jit`` the least fixed point of (JIT) of jitter.py (own work ``C_k + G_k``) and the rows
``X_h``, ``J_h`` of jitter.py's (JIT-S)/(JIT-B), built from the bounds ``R_h`` of (MIN):
``X_h = C_h + G_m_h``, ``J_h = R_h − X_h`` for a suspending h, ``X_h = C_h + G_h``, ``J_h = 0``
for any other. Each (SEG-r) search stops above D_k (then there is no (SEG) or (SEG-C) bound); in
(SEG-C) the sum over b runs over the non-empty segments, and each h's interference is the smaller
of what the segment windows allow it and what the whole job's window allows it (with the jitter
R_h − X_h for *every* h there, busy ones included). (SEG-C) ≤ (SEG) always. Schedulable (proven)
iff ``R_k ≤ D_k`` for every task (``D_k ≤ T_k``).

What is published and what is rtsched's. The review of Chen et al. (Real-Time Systems 55(1), 2019)
confirms the jitter rule J = R − C for higher-priority dynamic self-suspending tasks (after Chen,
Nelissen, Huang, ECRTS 2016; see papers/chen2019-self-suspension-review.md) — (JIT-S) here. The
segment-level decomposition (SEG-E)/(SEG-r)/(SEG) — a busy window per computation segment,
every higher-priority task with its full carry-in (J = R − X) in *each* window, suspensions added
— the per-task combination (SEG-C) and the minimum (MIN) are **rtsched's own**, with a proof in the note: the body of the review
(its section on segmented self-suspending tasks) and the segmented analyses it discusses (Nelissen
et al. ECRTS 2015; Huang & Chen 2015/2016; Peng & Fisher) could not be read with this project's
tools, so no section or equation number of theirs is claimed. The jitter rule is the one the
review confirms; the per-segment argument is the standard busy-window argument with a window that
starts when the segment becomes ready (the note). It avoids the flawed patterns the review
warns of (jitter set to the suspension length, critical instant at synchronous release).

Relations (proved in the note, held as tests): per task ``R_k ≤ R_k^{seg-jitter}`` (so
``seg-segment-*`` accepts every set ``seg-jitter-*`` accepts, same mode); equal verdicts where no
task suspends. (MIN) and ``seg-oblivious`` are incomparable (example B of
chen2019-self-suspension-review.md is accepted by ``seg-oblivious`` only, the note's example C by
(MIN) only); (SEG) alone does not dominate (JIT) (the note's example D), hence the minimum.

Layers: :func:`reference` (Python ints through
:func:`rtsched.analyses.theory.jitter_rta.jitter_response`), :func:`explain` (per-task rows with
both bounds, which one is used, the per-segment terms, the X and J imposed below, the failing
term; evidence ``per_segment`` rows; steps per core) and :func:`codes` (a Numba ``prange`` kernel
over the sets of a :class:`~rtsched.segmented.SegmentedBatch`, the same evaluations). No work
budget: each fixed-point search climbs to at most D.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numba import prange
from numpy.typing import NDArray

from rtsched.analyses.segmented._common import (
    MODE_CODE,
    check_batch_cores,
    check_cores,
    effective_modes,
    mode_entry,
    task_columns,
)
from rtsched.analyses.segmented.jitter import jitter_row
from rtsched.analyses.theory.jitter_rta import (
    JitterRow,
    JitterSearch,
    jitter_response,
    jitter_response_nb,
)
from rtsched.errors import InputError
from rtsched.kernels import ACCEPT, REJECT, batch_kernel
from rtsched.registry import Analysis
from rtsched.result import Explanation, Step, Verdict
from rtsched.segmented.model import SegmentedBatch, SegmentedTask, SegmentedTaskSet, WaitMode

__all__ = [
    "ANALYSES",
    "CITATION",
    "NOTE",
    "SegmentBound",
    "TaskBound",
    "codes",
    "computation_segments",
    "explain",
    "reference",
    "task_bounds",
]

CITATION = (
    "rtsched's segment-level analysis (papers/segment-level-suspension.md): per computation segment a busy window "
    "r = E + Σ_hp ⌈(r + J_h)/T_h⌉ X_h, R^seg = Σ r + Σ G_e, R = min(R^seg, R^jit); higher-priority suspending tasks "
    "with jitter J = R − (C + G_m) as confirmed by J.-J. Chen et al., 'Many suspensions, many problems: a review of "
    "self-suspending tasks in real-time systems', Real-Time Systems 55(1), 2019"
)
NOTE = "papers/segment-level-suspension.md"


def computation_segments(task: SegmentedTask) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(SEG-E): the computation segments ``E_1..E_B`` of a suspending job and the suspensions between them.

    Returns ``(E, S)`` with ``len(S) == len(E) − 1``: ``S[b]`` is the ``G_e`` after ``E[b]``. GPU
    segments with ``G_e = 0`` do not cut (their CPU-side halves join the runs around them).

    Examples
    --------
    >>> computation_segments(SegmentedTask((2, 3, 1), ((3, 5), (4, 0)), T=50))
    ((4, 9), (5,))
    """
    E: list[int] = []
    S: list[int] = []
    run = task.cpu[0]
    for g, c in zip(task.gpu, task.cpu[1:], strict=True):
        run += (g.G_m + 1) // 2
        if g.G_e > 0:
            E.append(run)
            S.append(g.G_e)
            run = 0
        run += g.G_m // 2 + c
    E.append(run)
    return tuple(E), tuple(S)


@dataclass(frozen=True)
class SegmentBound:
    """One computation segment's (SEG-r) search (``search`` None: ``E = 0``, r = 0; not reached: absent)."""

    E: int
    search: JitterSearch | None

    @property
    def r(self) -> int | None:
        """The segment's response-time bound (None: above D)."""
        return 0 if self.search is None else self.search.response


@dataclass(frozen=True)
class CombinedSearch:
    """(SEG-C) of a task whose every segment has a bound.

    ``caps[x]``: Σ_b ⌈(r_b + J_h)/T_h⌉·X_h over its non-empty segments, for the x-th task above it;
    ``window``: the rows ``X_h``, ``J'_h = R_h − X_h`` of those tasks over the whole job; ``response``:
    the least fixed point (None: above D); ``last``, ``value``: the last iterate and the right side there;
    ``evaluations``: right sides computed.
    """

    own: int
    caps: tuple[int, ...]
    window: tuple[JitterRow, ...]
    response: int | None
    last: int
    value: int
    evaluations: int

    def terms(self, x: int) -> list[int]:
        """min(cap_h, ⌈(x + J'_h)/T_h⌉·X_h) for each task above (the terms of (SEG-C) at x)."""
        return [min(c, -(-(x + h.J) // h.T) * h.X) for c, h in zip(self.caps, self.window, strict=True)]


@dataclass(frozen=True)
class TaskBound:
    """One task's bounds: (JIT) whole-job search, (SEG) per-segment searches (suspending tasks only), (MIN)."""

    task: int
    core: int
    mode: str
    hp: tuple[int, ...]
    rows: tuple[JitterRow, ...] | None
    whole: JitterSearch | None
    segments: tuple[SegmentBound, ...] | None
    suspension: int
    D: int
    combined: CombinedSearch | None = None

    @property
    def R_jit(self) -> int | None:
        """(JIT): the whole-job bound, None if above D or not computed."""
        return None if self.whole is None else self.whole.response

    @property
    def seg_sum(self) -> int | None:
        """Σ r + Σ G_e when every segment has a bound (each ≤ D), else None (may exceed D)."""
        if self.segments is None or any(s.r is None for s in self.segments):
            return None
        return sum(s.r for s in self.segments) + self.suspension  # type: ignore[misc]

    @property
    def R_seg(self) -> int | None:
        """(SEG): Σ r + Σ G_e, None if above D, not computed, or the task does not suspend."""
        total = self.seg_sum
        return total if total is not None and total <= self.D else None

    @property
    def R_comb(self) -> int | None:
        """(SEG-C): None where a segment has no bound ≤ D, or the fixed point exceeds D; else at most Σ r + Σ G_e."""
        return None if self.combined is None else self.combined.response

    @property
    def R(self) -> int | None:
        """(MIN): the smallest of the computed bounds at most D (None: none)."""
        found = [r for r in (self.R_jit, self.R_seg, self.R_comb) if r is not None]
        return min(found) if found else None

    @property
    def ok(self) -> bool:
        """Whether some bound is computed and at most D."""
        return self.R is not None


def _segment_searches(E: Sequence[int], D: int, rows: Sequence[JitterRow]) -> tuple[SegmentBound, ...]:
    """(SEG-r) in segment order, each search capped at D; stops at the first segment without a bound ≤ D."""
    out: list[SegmentBound] = []
    for e in E:
        if e == 0:
            out.append(SegmentBound(0, None))
            continue
        search = jitter_response(e, D, rows)  # (SEG-r)
        out.append(SegmentBound(e, search))
        if search.response is None:
            break
    return tuple(out)


def _combined(
    own: int, D: int, rows: Sequence[JitterRow], window: Sequence[JitterRow], segments: Sequence[SegmentBound]
) -> CombinedSearch:
    """(SEG-C): the least x = own + Σ_h min(cap_h, ⌈(x + J'_h)/T_h⌉·X_h) if ≤ D (every segment bounded).

    Every right side is at least ``own`` and at most Σ r + Σ G_e (each cap is h's share of Σ_b (r_b − E_b)), and
    it is non-decreasing in x: the iteration from own climbs to the least fixed point; it stops above D.
    """
    caps = tuple(sum(-(-(s.r + h.J) // h.T) * h.X for s in segments if s.search is not None) for h in rows)
    x = own
    evaluations = 0
    while True:
        evaluations += 1
        value = own + sum(min(c, -(-(x + w.J) // w.T) * w.X) for c, w in zip(caps, window, strict=True))
        if value > D:
            return CombinedSearch(own, caps, tuple(window), None, x, value, evaluations)
        if value == x:
            return CombinedSearch(own, caps, tuple(window), x, x, value, evaluations)
        x = value


def task_bounds(ts: SegmentedTaskSet, m: int, mode: WaitMode, *, stop: bool = False) -> list[TaskBound]:
    """Every task's :class:`TaskBound` in task order ((MIN) for the rows of the tasks below; ``stop``: at the first failure)."""
    check_cores(ts, m)
    modes = effective_modes(ts, mode)
    out: list[TaskBound] = []
    for i, t in enumerate(ts):
        assert t.core is not None
        hp = tuple(h for h in range(i) if ts[h].core == t.core)
        if any(not out[h].ok for h in hp):
            out.append(TaskBound(i, t.core, modes[i], hp, None, None, None, t.G_e, t.D))
            continue
        rows = tuple(jitter_row(ts, h, modes[h], out[h].R) for h in hp)
        whole = jitter_response(t.C + t.G, t.D, rows)  # (JIT)
        segments = None
        combined = None
        if modes[i] == "suspend" and t.G_e > 0:
            E, _ = computation_segments(t)
            segments = _segment_searches(E, t.D, rows)  # (SEG)
            if all(s.r is not None for s in segments):
                window = tuple(JitterRow(X=r.X, T=r.T, J=out[h].R - r.X) for h, r in zip(hp, rows, strict=True))
                combined = _combined(t.C + t.G, t.D, rows, window, segments)  # (SEG-C)
        bound = TaskBound(i, t.core, modes[i], hp, rows, whole, segments, t.G_e, t.D, combined)
        out.append(bound)
        if stop and not bound.ok:
            break
    return out


def reference(ts: SegmentedTaskSet, m: int, *, mode: WaitMode = "suspend") -> bool:
    """(MIN) on every core in priority order: True iff every task has a bound at most its deadline."""
    return all(b.ok for b in task_bounds(ts, m, mode, stop=True))


def _terms(E: int, rows: Sequence[JitterRow], search: JitterSearch) -> str:
    if search.evaluations == 0:  # the start E + Σ X_h already exceeds the cap
        return " + ".join([str(E), *(str(h.X) for h in rows)]) + f" = {search.value} (start)"
    R = search.last
    parts = [f"⌈({R} + {h.J})/{h.T}⌉·{h.X}" if h.J else f"⌈{R}/{h.T}⌉·{h.X}" for h in rows]
    return " + ".join([str(E), *parts]) + f" = {search.value}"


def _shown(value: int | None, D: int, computed: bool) -> int | str:
    if not computed:
        return "-"
    return value if value is not None else f"> {D}"


def explain(ts: SegmentedTaskSet, m: int, *, mode: WaitMode = "suspend") -> Explanation:
    """Per-task rows (both bounds, the one used, segment terms, X and J imposed below), per-segment evidence, steps."""
    bounds = task_bounds(ts, m, mode)
    first_fail = next((b for b in bounds if b.rows is not None and not b.ok), None)
    verdict: Verdict = first_fail is None
    per_task: list[dict[str, Any]] = []
    per_segment: list[dict[str, Any]] = []
    seg_text: dict[int, str] = {}
    for b in bounds:
        t = ts[b.task]
        computed = b.rows is not None
        contrib = jitter_row(ts, b.task, b.mode, b.R) if b.ok else None
        whole_terms = "-"
        if b.whole is not None and b.rows is not None:
            whole_terms = _terms(t.C + t.G, b.rows, b.whole)
        pieces: list[str] = []
        if b.segments is not None and b.rows is not None:
            E, S = computation_segments(t)
            for x, e in enumerate(E):
                seg = b.segments[x] if x < len(b.segments) else None
                if seg is None:
                    text = "not reached"
                elif seg.search is None:
                    text = "E = 0: r = 0"
                elif seg.r is None:
                    text = _terms(e, b.rows, seg.search) + f" > D = {t.D}: fails"
                else:
                    text = _terms(e, b.rows, seg.search) + f" → r = {seg.r}"
                per_segment.append(
                    {
                        "task": ts.label(b.task),
                        "segment": x + 1,
                        "E": e,
                        "r": "-" if seg is None else (seg.r if seg.r is not None else "fails"),
                        "terms": text,
                        "suspension_after": S[x] if x < len(S) else 0,
                    }
                )
                pieces.append(f"E{x + 1} = {e}: {text}")
                if x < len(S):
                    pieces.append(f"G_e = {S[x]}")
            seg_text[b.task] = "; ".join(pieces)
        used = "-"
        if b.ok:
            used = "whole-job" if b.R == b.R_jit else ("segment-level" if b.R == b.R_seg else "combined")
        comb_terms = "-"
        if b.combined is not None:
            c = b.combined
            mins = [
                f"min({cap}, ⌈({c.last} + {w.J})/{w.T}⌉·{w.X})" if w.J else f"min({cap}, ⌈{c.last}/{w.T}⌉·{w.X})"
                for cap, w in zip(c.caps, c.window, strict=True)
            ]
            comb_terms = " + ".join([str(c.own), *mins]) + f" = {c.value}" + ("" if c.response else f" > D = {t.D}")
        per_task.append(
            {
                **task_columns(ts, b),
                "hp": ", ".join(ts.label(h) for h in b.hp) or "-",
                "R_jit": _shown(b.R_jit, t.D, computed),
                "R_seg": _shown(b.R_seg, t.D, computed and b.segments is not None),
                "R_comb": "-" if b.combined is None else _shown(b.R_comb, t.D, True),
                "R": _shown(b.R, t.D, computed),
                "used": used,
                "terms": whole_terms,
                "segments": seg_text.get(b.task, "-"),
                "combined": comb_terms,
                "X": "-" if contrib is None else contrib.X,
                "J": "-" if contrib is None else contrib.J,
                "ok": b.ok,
            }
        )
    evidence: dict[str, Any] = {
        "mode": mode,
        "response_times": tuple(b.R for b in bounds),
        "whole_job_bounds": tuple(b.R_jit for b in bounds),
        "segment_bounds": tuple(b.R_seg for b in bounds),
        "combined_bounds": tuple(b.R_comb for b in bounds),
        "per_segment": tuple(per_segment),
        "failing_task": None if first_fail is None else first_fail.task,
        "failing_term": None,
    }
    what = f"segment-level suspension-aware RTA (default mode {mode})"
    if first_fail is not None:
        t = ts[first_fail.task]
        assert first_fail.whole is not None
        term = (
            f"{ts.label(first_fail.task)} on core {first_fail.core}: (JIT) reaches {first_fail.whole.value} > D = {t.D}"
        )
        if first_fail.combined is not None:
            term += f"; (SEG) Σ r + ΣG_e = {first_fail.seg_sum} > D; (SEG-C) reaches {first_fail.combined.value} > D"
        elif first_fail.segments is not None:
            last = first_fail.segments[-1]
            assert last.search is not None
            term += f"; (SEG) segment {len(first_fail.segments)} (E = {last.E}) reaches {last.search.value} > D"
        evidence["failing_term"] = term
        summary = f"{what}: not proven: {term}"
    else:
        summary = f"{what}: R ≤ D for every task on {len({b.core for b in bounds})} core(s)"

    def steps() -> Iterator[Step | str]:
        yield Step(
            f"{what}, protocol none (no GPU contention): suspending higher-priority tasks X = C + G_m, J = R − X "
            "(JIT-S), the others X = C + G, J = 0 (JIT-B), with R the (MIN) bound"
        )
        yield Step(
            "each task: (JIT) R = C + G + Σ_hp ⌈(R + J_h)/T_h⌉·X_h; a suspending task also (SEG): per computation "
            "segment r = E + Σ_hp ⌈(r + J_h)/T_h⌉·X_h, R^seg = Σ r + Σ G_e, and (SEG-C): x = C + G + "
            "Σ_hp min(Σ_b ⌈(r_b + J_h)/T_h⌉·X_h, ⌈(x + R_h − X_h)/T_h⌉·X_h); R = min (MIN)"
        )
        for core in sorted({b.core for b in bounds}):
            on = [b for b in bounds if b.core == core]
            yield Step(f"core {core}: " + " > ".join(ts.label(b.task) for b in on))
            for b in on:
                t = ts[b.task]
                row = per_task[b.task]
                head = f"  {ts.label(b.task)} ({b.mode}, D = {t.D})"
                if b.rows is None:
                    yield Step(head + ": not computed (a task above it has no bound)")
                    continue
                yield Step(head + f": (JIT) {row['terms']} → R^jit = {row['R_jit']}")
                if b.segments is not None:
                    total = "-" if b.seg_sum is None else b.seg_sum
                    yield Step(f"    (SEG) {row['segments']} → R^seg = Σ r + ΣG_e = {total}")
                if b.combined is not None:
                    yield Step(f"    (SEG-C) {row['combined']}")
                yield Step(f"    R = {row['R']}: " + ("passes" if b.ok else "fails"))
                if b.ok and any(b.task in x.hp for x in on):
                    yield Step(f"    for the tasks below: X = {row['X']}, J = {row['J']}")
        yield Step("every task passes: schedulable" if verdict else "not proven schedulable")

    return Explanation(verdict=verdict, summary=summary, evidence=evidence, per_task=per_task, steps=steps)


# ---------------------------------------------------------------------------------------------
# kernel (int64, the reference's evaluations in the same order)
# ---------------------------------------------------------------------------------------------


@batch_kernel
def _segment_level_sets(
    cpu,
    G_m,
    G_e,
    gpu_offsets,
    C,
    G_m_tot,
    G_e_tot,
    T,
    D,
    core,
    mode,
    task_offsets,
    default_mode,
    X,
    J,
    Rb,
    cap,
    hp,
    out,
):
    """``out[s]``: ACCEPT iff every task of set s has a (MIN) bound ≤ D; X, J, Rb (bounds), cap, hp: per-task scratch."""
    for s in prange(out.shape[0]):
        lo, hi = task_offsets[s], task_offsets[s + 1]
        code = ACCEPT
        for k in range(lo, hi):
            nh = 0
            for h in range(lo, k):
                if core[h] == core[k]:
                    hp[lo + nh] = h
                    nh += 1
            own = C[k] + G_m_tot[k] + G_e_tot[k]
            R = jitter_response_nb(own, D[k], X, T, J, hp[lo:], nh)  # (JIT); > D: fails
            md = mode[k] if mode[k] != 0 else default_mode
            suspending = md == 2 and G_e_tot[k] > 0
            if suspending:
                seg = G_e_tot[k]  # (SEG): Σ r + Σ G_e, each segment's search capped at D
                ok = True
                for x in range(nh):
                    cap[hp[lo + x]] = 0
                g_lo, g_hi = gpu_offsets[k], gpu_offsets[k + 1]
                run = cpu[g_lo + k]
                for j in range(g_lo, g_hi + 1):
                    if j < g_hi:
                        run += (G_m[j] + 1) // 2
                        if G_e[j] == 0:
                            run += G_m[j] // 2 + cpu[j + k + 1]
                            continue
                    if run > 0:
                        r = jitter_response_nb(run, D[k], X, T, J, hp[lo:], nh)  # (SEG-r)
                        if r > D[k]:
                            ok = False
                            break
                        seg += r
                        for x in range(nh):  # (SEG-C) caps: each task's interference over the segments
                            h = hp[lo + x]
                            cap[h] += ((r + J[h] + T[h] - 1) // T[h]) * X[h]
                    if j < g_hi:
                        run = G_m[j] // 2 + cpu[j + k + 1]
                if ok:
                    if seg < R:
                        R = seg  # (MIN)
                    xv = own  # (SEG-C) from own up to its least fixed point (≤ seg), or above D
                    while True:
                        value = own
                        for x in range(nh):
                            h = hp[lo + x]
                            w = ((xv + Rb[h] - X[h] + T[h] - 1) // T[h]) * X[h]
                            value += min(cap[h], w)
                        if value > D[k] or value == xv:
                            xv = value
                            break
                        xv = value
                    if xv < R:
                        R = xv  # (MIN)
            if R > D[k]:
                code = REJECT
                break
            Rb[k] = R
            if suspending:  # (JIT-S)
                X[k] = C[k] + G_m_tot[k]
                J[k] = R - X[k]
            else:  # (JIT-B)
                X[k] = own
                J[k] = 0
        out[s] = code


def codes(batch: SegmentedBatch, m: int, *, mode: WaitMode = "suspend") -> NDArray[np.int8]:
    """Codes per set (1 accept, 0 reject): (MIN) with (JIT-S)/(JIT-B) rows, the reference's evaluations."""
    if mode not in MODE_CODE:
        raise InputError(f"mode must be busy or suspend, got {mode!r}", field="mode")
    check_batch_cores(batch, m)
    n = batch.n_tasks
    out = np.empty(batch.n_sets, dtype=np.int8)
    scratch = [np.zeros(n, dtype=np.int64) for _ in range(5)]
    _segment_level_sets(
        batch.cpu, batch.G_m, batch.G_e, batch.gpu_offsets, batch.C, batch.G_m_total, batch.G_e_total,
        batch.T, batch.D, batch.core, batch.mode, batch.task_offsets, MODE_CODE[mode], *scratch, out,
    )  # fmt: skip
    return out


def _entry(mode: WaitMode, order: float) -> Analysis:
    return mode_entry(
        mode,
        order,
        name=f"seg-segment-{mode}",
        title=(
            "segment-level suspension-aware RTA of CPU–GPU segmented tasks (min with the jitter bound), "
            f"no GPU contention (tasks without a mode: {mode})"
        ),
        policy="partitioned-fp-gpu-none",
        citation=CITATION,
        note=NOTE,
        reference=reference,
        explain=explain,
        codes=codes,
        shares_kernels_with=None,
    )


ANALYSES = (_entry("suspend", 1.5), _entry("busy", 2.5))
