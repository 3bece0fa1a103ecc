"""Response-time analysis of sporadic DAG tasks under global FP (Fonseca, Nelissen, Nélis, RTNS 2017).

J. Fonseca, G. Nelissen, V. Nélis, "Improved response time analysis of sporadic DAG tasks for
global FP scheduling", RTNS 2017 (CISTER-TR-170901); note: papers/fonseca2017-sp-dag.md.

**Provenance of the equations.** The paper's text could not be read here (only its first page is
in the stored pages). The equation, theorem and algorithm numbers below are those that the C++
library of the 2023 DAG survey (Verucchi et al., github.com/mive93/DAG-scheduling,
``src/tests/Fonseca2017.cpp``, read, not copied) gives in its comments; the formulas are rtsched's
reading of that structure, each with its own soundness argument in the note. Where rtsched
deliberately differs from that library (exact integer maximum over the splits, the caps of
Theorems 2 and 4 used, the summation over the higher-priority tasks) the note says so.

Model: sporadic DAG tasks, constrained deadlines D_i ≤ T_i, global fixed priorities in task order
(task 0 highest, as :func:`rtsched.dag.simulate_dag` with ``policy="gfp"``), m identical cores,
preemptive node-level scheduling, integer time.

* **WD^UCI** (carry-in workload distribution): in the survey code, the ASAP schedule of one job
  on unlimited cores with WCETs (:func:`wd_asap`), read from its end. **rtsched does not use it**:
  neither it nor the ALAP schedule with WCETs (:func:`wd_alap`) bounds the work of a job's last y
  units once a vertex runs less than its WCET (note, "Carry-in"; test
  ``test_wcet_schedules_are_not_carry_in_bounds``). rtsched's carry-in steps (:func:`wd_uci`) put
  each vertex v in [L − h_v − C_v, L − h_v), h_v = the number of vertices on a longest chain of
  successors of v; their last y units hold Σ_v min(C_v, max(0, y − h_v)), and **rtsched's carry-in
  theorem** (proved in the note) bounds the work of any job in the last y units before its
  completion by min(m·y, that sum), for integer execution times 1 ≤ c_v ≤ C_v.
* **WD^UCO** (carry-out workload distribution, Algorithm 1): on the series-parallel decomposition
  tree, repeatedly take the largest set of vertices with work left that can run in parallel (a P
  node unites its children's sets, an S node keeps the larger one, the earlier part on a tie), run
  it for the smallest remaining WCET among them (width) with height = its size. A task whose DAG is
  not series-parallel (the paper first turns it into a nested fork-join DAG by removing
  "conflicting" edges) gets **rtsched's substitute** (:func:`wd_early`): v in [g_v, g_v + C_v),
  g_v = the number of vertices on a longest chain of predecessors; its first z units hold
  Σ_v min(C_v, max(0, z − g_v)), which bounds the work of any job in the first z units after its
  release vertex by vertex for execution times 1 ≤ c_v ≤ C_v (note; the ASAP schedule with WCETs,
  used here before, does not once a vertex runs shorter).
* (6) CI_i(x) = Σ_j h_j · max(0, min(w_j, x − T_i + R_i − Σ_{l>j} w_l)) on rtsched's carry-in
  steps (the carry-in job ends by its response-time bound R_i, T_i − R_i before the next release);
  Theorem 2 caps it:
  CI'_i(x) = min(CI_i(x), m · max(0, x − T_i + R_i)).
* (9) CO_i(x) = Σ_j h_j · max(0, min(w_j, x − Σ_{l<j} w_l)); Theorem 4 caps it:
  CO'_i(x) = min(CO_i(x), m · max(0, x), vol_i − max(0, len_i − x)) (0 for x ≤ 0).
* Algorithm 2: the carry workload of a carry window of length Δ^C,
  W^C_i(Δ^C) = max over integers 0 ≤ x ≤ Δ^C of CI'_i(x) + CO'_i(Δ^C − x) (rtsched takes the exact
  maximum over every integer split; the functions change only where x − T_i + R_i or Δ^C − x lies
  in [0, vol_i], so those points and the two ends suffice).
* (11) Δ^C = Δ − max(0, ⌊(Δ − len_i)/T_i⌋) · T_i and (10) W_i(Δ) = W^C_i(Δ^C) +
  max(0, ⌊(Δ − len_i)/T_i⌋) · vol_i (:func:`workload_eq11`) are **refuted** as a workload bound by
  the simulator (the note, "Refutation"; test ``test_eq_11_as_read_is_refuted_and_the_correction_is_not``):
  fixing the number of body jobs from len_i can leave the carry window shorter than T_i − R_i,
  where a late carry-in job still runs. **rtsched uses its correction** (:func:`workload`):
  W_i(Δ) = max over integers 0 ≤ x ≤ min(T_i, Δ) of CI'_i(x) + b·vol_i + CO'_i(Δ − x − b·T_i) with
  b = ⌊(Δ − x)/T_i⌋ (x: from the window's start to the first release of τ_i in it; the carry-in
  job released T_i earlier, b body jobs, then the carry-out job), and at least min(m·Δ, vol_i) (a
  window without a release of τ_i, which Eq. (11) as read also misses: refuted for short windows
  inside a job's parallel part). The maximum is exact: within each value of b the two terms
  change only on the ranges listed in ``_first_releases``.
* RTA: R_k = len_k + ⌊(vol_k − len_k + Σ_{i<k} W_i(R_k)) / m⌋, iterated from R_k = len_k; the
  iteration stops at the first R with f(R) ≤ R (then R bounds the response time: the critical-path
  argument holds for any such R, so a non-monotone W cannot make it unsound) and fails when
  R > D_k. Schedulable (proven) iff every task gets R_k ≤ D_k.

Layers: :func:`reference` (Python ints, the formulas literally), :func:`explain` (per-task R_k,
each higher-priority task's W_i(R_k), the failing task, steps) and :func:`codes` (the two
carry-in and carry-out steps per task in Python, turned into cumulative arrays; a Numba ``prange``
kernel over the sets does the RTA in int64).
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
from numba import prange
from numpy.typing import NDArray

from rtsched.dag.model import DAGBatch, DAGTask, DAGTaskSet, SPTree
from rtsched.kernels import ACCEPT, REJECT, batch_kernel, kernel
from rtsched.registry import Analysis
from rtsched.result import Explanation, Step
from rtsched.workloads import DAG_TASKSETS

__all__ = [
    "ANALYSES",
    "carry_in",
    "carry_out",
    "carry_workload",
    "codes",
    "explain",
    "hops_after",
    "hops_before",
    "reference",
    "response_times",
    "wd_alap",
    "wd_asap",
    "wd_early",
    "wd_uci",
    "wd_uco",
    "workload",
    "workload_eq11",
]

CITATION = (
    "J. Fonseca, G. Nelissen, V. Nélis, 'Improved response time analysis of sporadic DAG tasks for "
    "global FP scheduling', RTNS 2017: carry-in (Eq. 6, Thm 2; on rtsched's proven carry-in steps, not the "
    "ASAP schedule) and carry-out (Eq. 9, Thm 4, Alg. 1 on "
    "the series-parallel tree) workload distributions, carry workload (Alg. 2), W_i (Eqs. 10-11 refuted as "
    "read; rtsched's correction counts the body jobs from the first release in the window), "
    "R_k = len_k + floor((vol_k - len_k + sum W_i(R_k))/m); priorities in task order"
)
NOTE = "papers/fonseca2017-sp-dag.md"

Profile = list[tuple[int, int]]  # (width, height) steps


# -- workload distributions -----------------------------------------------------------------------
def _steps(spans: Sequence[tuple[int, int]]) -> Profile:
    """The (width, height) steps of intervals [a, b) from the earliest a: height = intervals covering."""
    points = sorted({a for a, _ in spans} | {b for _, b in spans})
    out: Profile = []
    for a, b in zip(points, points[1:], strict=False):
        height = sum(1 for s, e in spans if s <= a < e)
        if out and out[-1][1] == height:
            out[-1] = (out[-1][0] + b - a, height)  # one step per height change
        else:
            out.append((b - a, height))
    return out


def _est(task: DAGTask) -> list[int]:
    est = [0] * task.n
    for v in task.topological_order:
        for p in task.predecessors[v]:
            est[v] = max(est[v], est[p] + task.wcets[p])
    return est


def _tail(task: DAGTask) -> list[int]:
    """tail_v: the longest WCET path strictly after v."""
    tail = [0] * task.n
    for v in reversed(task.topological_order):
        for s in task.successors[v]:
            tail[v] = max(tail[v], tail[s] + task.wcets[s])
    return tail


def hops_after(task: DAGTask) -> list[int]:
    """h_v: the number of vertices on a longest chain of successors of v (0 for a sink)."""
    h = [0] * task.n
    for v in reversed(task.topological_order):
        for s in task.successors[v]:
            h[v] = max(h[v], h[s] + 1)
    return h


def hops_before(task: DAGTask) -> list[int]:
    """g_v: the number of vertices on a longest chain of predecessors of v (0 for a source)."""
    g = [0] * task.n
    for v in task.topological_order:
        for p in task.predecessors[v]:
            g[v] = max(g[v], g[p] + 1)
    return g


def wd_asap(task: DAGTask) -> Profile:
    """The ASAP schedule with WCETs on unlimited cores (the survey code's WD^UCI); Σ widths = len.

    Kept for the record and for the tests: read from its end it is **not** a bound on the carry-in
    job's last y units once a vertex runs less than its WCET (note, "Carry-in").
    """
    est = _est(task)
    return _steps([(est[v], est[v] + task.wcets[v]) for v in range(task.n)])


def wd_alap(task: DAGTask) -> Profile:
    """The ALAP schedule with WCETs on unlimited cores ending at len; kept for the tests (not a bound either)."""
    tail = _tail(task)
    return _steps([(task.length - tail[v] - task.wcets[v], task.length - tail[v]) for v in range(task.n)])


def wd_uci(task: DAGTask) -> Profile:
    """The carry-in steps (rtsched's), read from their end: v in [L − h_v − C_v, L − h_v), L = max_v(h_v + C_v).

    The work of the last y units of these steps is Σ_v min(C_v, max(0, y − h_v)), which bounds the
    work of any job of the task in the last y units before its completion, for any integer
    execution times 1 ≤ c_v ≤ C_v (rtsched's theorem, papers/fonseca2017-sp-dag.md, "Carry-in").
    Σ widths = L ≤ len, Σ width·height = vol.
    """
    h = hops_after(task)
    top = max(h[v] + task.wcets[v] for v in range(task.n))
    return _steps([(top - h[v] - task.wcets[v], top - h[v]) for v in range(task.n)])


def wd_early(task: DAGTask) -> Profile:
    """The carry-out substitute (rtsched's) for a DAG that is not series-parallel: v in [g_v, g_v + C_v).

    The work of the first z units is Σ_v min(C_v, max(0, z − g_v)), a bound on any job's work in the
    first z units after its release for integer execution times 1 ≤ c_v ≤ C_v (the note).
    """
    g = hops_before(task)
    return _steps([(g[v], g[v] + task.wcets[v]) for v in range(task.n)])


def _parallel(tree: SPTree, left: list[int]) -> list[int]:
    """Algorithm 1's largest parallel set among the vertices with work left (P: union; S: larger, earlier on ties)."""
    if isinstance(tree, int):
        return [tree] if left[tree] > 0 else []
    kind, a, b = tree
    first, then = _parallel(a, left), _parallel(b, left)
    if kind == "P":
        return first + then
    return then if len(then) > len(first) else first


def wd_uco(task: DAGTask) -> Profile:
    """WD^UCO (Algorithm 1) on the series-parallel tree; not series-parallel: rtsched's :func:`wd_early`."""
    tree = task.series_parallel()
    if tree is None:
        return wd_early(task)
    left = list(task.wcets)
    out: Profile = []
    while True:
        chosen = _parallel(tree, left)
        if not chosen:
            return out
        width = min(left[v] for v in chosen)
        for v in chosen:
            left[v] -= width
        out.append((width, len(chosen)))


# -- workload bounds --------------------------------------------------------------------------------
def carry_in(task: DAGTask, R: int, x: int, m: int, wd: Profile | None = None) -> int:
    """Eq. (6)'s shape on rtsched's steps with Theorem 2's cap: the carry-in job's work in the first x units.

    With y = x − T_i + R_i: min(m·y, Σ_v min(C_v, max(0, y − h_v))) for y > 0, else 0 (the note's
    carry-in theorem; Eq. (6) on :func:`wd_uci`).
    """
    wd = wd_uci(task) if wd is None else wd
    y = x - task.T + R  # the part of the window before the job's response-time bound
    total = 0
    later = 0  # Σ_{l>j} w_l: the steps are read from the last one back
    for w, h in reversed(wd):
        total += h * max(0, min(w, y - later))  # (6)
        later += w
    return min(total, m * max(0, y))  # Theorem 2


def carry_out(task: DAGTask, x: int, m: int, wd: Profile | None = None) -> int:
    """Eq. (9) with Theorem 4's caps: the carry-out job's work in the first x units after its release."""
    if x <= 0:
        return 0
    wd = wd_uco(task) if wd is None else wd
    total = 0
    earlier = 0  # Σ_{l<j} w_l
    for w, h in wd:
        total += h * max(0, min(w, x - earlier))  # (9)
        earlier += w
    return min(total, m * x, task.volume - max(0, task.length - x))  # Theorem 4


def _splits(task: DAGTask, R: int, delta: int) -> list[int]:
    """The carry-in lengths x where CI'(x) + CO'(Δ − x) can reach its maximum over 0 ≤ x ≤ Δ."""
    vol, gap = task.volume, task.T - R
    points = {0, delta}
    points.update(range(max(0, gap), min(delta, gap + vol) + 1))  # CI' varies there only
    points.update(range(max(0, delta - vol), delta + 1))  # CO'(Δ − x) varies there only
    return sorted(points)


@functools.lru_cache(maxsize=4096)
def _profiles(task: DAGTask) -> tuple[Profile, Profile]:
    return wd_uci(task), wd_uco(task)


def carry_workload(task: DAGTask, R: int, delta: int, m: int) -> int:
    """Algorithm 2: max over integer splits x of the carry window Δ^C of CI'(x) + CO'(Δ^C − x)."""
    ci, co = _profiles(task)  # read only
    return max(carry_in(task, R, x, m, ci) + carry_out(task, delta - x, m, co) for x in _splits(task, R, delta))


def workload_eq11(task: DAGTask, R: int, delta: int, m: int) -> int:
    """Eqs. (10)-(11) as read: W^C_i(Δ^C) + b·vol_i with b = max(0, ⌊(Δ − len_i)/T_i⌋), Δ^C = Δ − b·T_i.

    **Refuted** as a workload bound (papers/fonseca2017-sp-dag.md, "Refutation"): fixing b from len_i
    squeezes the carry window below T_i − R_i, where a late carry-in job still runs; the
    simulator shows more work in a window than this. Kept for the record; :func:`workload` is used.
    """
    body = max(0, (delta - task.length) // task.T)
    return carry_workload(task, R, delta - body * task.T, m) + body * task.volume


def _first_releases(task: DAGTask, R: int, delta: int) -> list[int]:
    """The x (window start to the first release in it) where :func:`workload`'s maximum can lie."""
    vol, T = task.volume, task.T
    top = min(T, delta)
    points = {0, top}
    points.update(range(max(0, T - R), min(top, T - R + vol) + 1))  # CI'(x) varies there only
    full = delta // T
    for b in (full, full - 1):  # the two values of ⌊(Δ − x)/T⌋ for 0 ≤ x ≤ min(T, Δ)
        end = delta - b * T  # the last x with this b; CO'(end − x) varies for end − vol ≤ x ≤ end
        points.update(range(max(0, end - vol), min(top, end) + 1))
        if 0 <= end + 1 <= top:
            points.add(end + 1)  # the first x of the next b
    return sorted(points)


def workload(task: DAGTask, R: int, delta: int, m: int) -> int:
    """The workload bound used: rtsched's correction of Eqs. (10)-(11).

    W_i(Δ) = max over integers 0 ≤ x ≤ min(T_i, Δ) of CI'_i(x) + b·vol_i + CO'_i(Δ − x − b·T_i) with
    b = ⌊(Δ − x)/T_i⌋: x is the distance from the window's start to the first release of τ_i in it; the carry-in job
    is released T_i before, b body jobs follow, the next job is the carry-out job (the note). A
    window without a release of τ_i meets one job only: min(m·Δ, vol_i), the first term.
    """
    ci, co = _profiles(task)  # read only
    # no release of τ_i in the window: only one job runs in it (R_i ≤ T_i), at most m·Δ and vol_i
    best = min(m * delta, task.volume)
    for x in _first_releases(task, R, delta):
        body = (delta - x) // task.T
        rest = delta - x - body * task.T
        best = max(best, carry_in(task, R, x, m, ci) + body * task.volume + carry_out(task, rest, m, co))
    return best


def response_times(ts: DAGTaskSet, m: int) -> list[int | None]:
    """R_k per task in priority (task) order; ``None`` from the first task whose bound exceeds D_k on.

    Remembered for the last few sets: ``rtsched check`` asks :func:`reference` for the verdict and
    then :func:`explain` for the evidence, and on a large DAG each costs a noticeable fraction of a second.
    """
    return list(_response_times(tuple(ts), m))


@functools.lru_cache(maxsize=64)
def _response_times(ts: tuple[DAGTask, ...], m: int) -> tuple[int | None, ...]:
    R: list[int | None] = []
    bounds: list[int] = []  # R_0 .. R_{k-1} while every one of them is within its deadline
    for k, task in enumerate(ts):
        if len(bounds) < k:
            R.append(None)
            continue
        r = task.length
        while True:
            if r > task.D:
                R.append(None)
                break
            interference = sum(workload(ts[i], bounds[i], r, m) for i in range(k))
            nxt = task.length + (task.volume - task.length + interference) // m
            if nxt <= r:
                R.append(r)
                bounds.append(r)
                break
            r = nxt
    return tuple(R)


def reference(ts: DAGTaskSet, m: int) -> bool:
    """Schedulable (proven) iff every task's R_k (task order = priority) is at most D_k."""
    return all(r is not None for r in response_times(ts, m))


def explain(ts: DAGTaskSet, m: int) -> Explanation:
    """Per-task R_k with each higher-priority task's W_i(R_k), the failing task and the steps."""
    R = response_times(ts, m)
    failing = next((k for k, r in enumerate(R) if r is None), None)
    R_known = [r for r in R if r is not None]  # a prefix: the bounds of the tasks before ``failing``
    rows: list[dict[str, Any]] = []
    for k, task in enumerate(ts):
        row: dict[str, Any] = {
            "task": ts.label(k),
            "vol": task.volume,
            "len": task.length,
            "D": task.D,
            "T": task.T,
            "series_parallel": task.series_parallel() is not None,
            "R": R[k],
        }
        rk = R[k]
        if rk is not None:
            row["interference"] = {ts.label(i): workload(ts[i], R_known[i], rk, m) for i in range(k)}
        rows.append(row)
    verdict = failing is None
    if verdict:
        summary = f"R_k ≤ D_k for all {ts.n} tasks (G-FP, task order, m = {m})"
        term = None
    else:
        assert failing is not None
        term = f"R of {ts.label(failing)} exceeds D = {ts[failing].D}"
        summary = f"not proven: {term}"
    return Explanation(
        verdict=verdict,
        summary=summary,
        evidence={"R": tuple(R), "failing_task": failing, "failing_term": term},
        per_task=rows,
        steps=lambda: steps(ts, m),
    )


def steps(ts: DAGTaskSet, m: int) -> Iterator[Step | str]:
    """The fixed-point iteration of every task, with each higher-priority W_i(R)."""
    R: list[int] = []
    for k, task in enumerate(ts):
        yield Step(
            f"{ts.label(k)}: vol = {{vol}}, len = {{len}}, D = {{D}}, T = {{T}}; carry-in steps = {wd_uci(task)}, "
            f"WD^UCO = {wd_uco(task)}"
            + ("" if task.series_parallel() is not None else " (not SP: rtsched's early steps)"),
            {"vol": task.volume, "len": task.length, "D": task.D, "T": task.T},
        )
        r = task.length
        while True:
            if r > task.D:
                yield Step("R = {r} > D = {D}: not proven", {"r": r, "D": task.D})
                return
            terms = [workload(ts[i], R[i], r, m) for i in range(k)]
            nxt = task.length + (task.volume - task.length + sum(terms)) // m
            yield Step(
                "R = {r}: W = " + (" + ".join(str(t) for t in terms) or "0") + ", len + ⌊(vol − len + ΣW)/m⌋ = {nxt}",
                {"r": r, "nxt": nxt},
            )
            if nxt <= r:
                R.append(r)
                yield Step(f"{ts.label(k)}: R = {{r}} ≤ D = {{D}}", {"r": r, "D": task.D})
                break
            r = nxt
    yield "every task meets R_k ≤ D_k: schedulable under G-FP"


# -- batch kernel -----------------------------------------------------------------------------------
def _head_curve(wd: Profile, vol: int) -> list[int]:
    """B[x] = Σ_j h_j · max(0, min(w_j, x − Σ_{l<j} w_l)) for x = 0..vol (Eq. 9 without caps)."""
    rates: list[int] = []
    for w, h in wd:
        rates.extend([h] * w)
    out = [0]
    for x in range(vol):
        out.append(out[-1] + (rates[x] if x < len(rates) else 0))
    return out


def _tail_curve(wd: Profile, vol: int) -> list[int]:
    """A[y] = the work of the last y units of the steps, y = 0..vol (Eq. 6 without caps)."""
    rates: list[int] = []
    for w, h in reversed(wd):
        rates.extend([h] * w)
    out = [0]
    for y in range(vol):
        out.append(out[-1] + (rates[y] if y < len(rates) else 0))
    return out


@kernel
def _ci_cap(ci, vol, y, m):
    """CI' from the cumulative tail curve: min(A[min(y, vol)], m·y), 0 for y ≤ 0."""
    if y <= 0:
        return 0
    v = ci[min(y, vol)]
    return min(v, m * y)


@kernel
def _co_cap(co, vol, length, z, m):
    """CO' from the cumulative head curve: min(B[min(z, vol)], m·z, vol − max(0, len − z)), 0 for z ≤ 0."""
    if z <= 0:
        return 0
    v = min(co[min(z, vol)], m * z)
    rest = length - z
    return min(v, vol - (rest if rest > 0 else 0))


@kernel
def _workload(ci, co, vol, length, T, R, delta, m):
    """:func:`workload` from the cumulative curves ci, co (index 0..vol): the same candidate x."""
    top = min(T, delta)
    full = delta // T
    best = min(m * delta, vol)  # no release in the window
    # the candidate ranges of ``_first_releases`` (a point in two ranges is evaluated twice)
    for part in range(6):
        if part == 0:
            a, b = 0, 0
        elif part == 1:
            a, b = top, top
        elif part == 2:
            a, b = max(0, T - R), min(top, T - R + vol)
        elif part == 3:  # b = full: CO' varies for end − vol ≤ x ≤ end
            end = delta - full * T
            a, b = max(0, end - vol), min(top, end)
        elif part == 4:  # b = full − 1
            end = delta - (full - 1) * T
            a, b = max(0, end - vol), min(top, end)
        else:  # the first x with b = full − 1
            a = b = delta - full * T + 1
            if a > top:
                continue
        for x in range(a, b + 1):
            body = (delta - x) // T
            rest = delta - x - body * T
            w = _ci_cap(ci, vol, x - T + R, m) + body * vol + _co_cap(co, vol, length, rest, m)
            if w > best:
                best = w
    return best


@kernel
def _rta_one(vol, length, D, T, ci, co, offs, m, R):
    """One set: ACCEPT iff every task's fixed point stays within its deadline."""
    n = vol.shape[0]
    for k in range(n):
        r = length[k]
        while True:
            if r > D[k]:
                return REJECT
            total = vol[k] - length[k]
            for i in range(k):
                total += _workload(
                    ci[offs[i] : offs[i + 1]], co[offs[i] : offs[i + 1]], vol[i], length[i], T[i], R[i], r, m
                )
            nxt = length[k] + total // m
            if nxt <= r:
                R[k] = r
                break
            r = nxt
    return ACCEPT


@batch_kernel
def _rta_sets(vol, length, D, T, ci, co, offs, task_offsets, m, out):
    """``out[s]`` = ``_rta_one`` of set ``s``, in ``prange`` over the sets."""
    for s in prange(out.shape[0]):
        lo, hi = task_offsets[s], task_offsets[s + 1]
        R = np.zeros(hi - lo, dtype=np.int64)
        local = offs[lo : hi + 1] - offs[lo]
        base = offs[lo]
        out[s] = _rta_one(vol[lo:hi], length[lo:hi], D[lo:hi], T[lo:hi], ci[base:], co[base:], local, m, R)


def curves(tasks: Sequence[DAGTask]) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
    """The cumulative carry-in (tail of :func:`wd_uci`) and carry-out (head of WD^UCO) curves, concatenated."""
    ci: list[int] = []
    co: list[int] = []
    offs = [0]
    for task in tasks:
        ci.extend(_tail_curve(wd_uci(task), task.volume))
        co.extend(_head_curve(wd_uco(task), task.volume))
        offs.append(len(ci))
    return np.array(ci, dtype=np.int64), np.array(co, dtype=np.int64), np.array(offs, dtype=np.int64)


def codes(batch: DAGBatch, m: int) -> NDArray[np.int8]:
    """ACCEPT/REJECT for every set of ``batch`` (exact int64; the curves are built per task in Python)."""
    tasks = [task for s in range(batch.n_sets) for task in batch[s]]
    ci, co, offs = curves(tasks)
    out = np.empty(batch.n_sets, dtype=np.int8)
    _rta_sets(batch.volume, batch.length, batch.D, batch.T, ci, co, offs, batch.task_offsets, m, out)
    return out


ANALYSES = (
    Analysis(
        name="dag-gfp-fonseca2017", title="Fonseca, Nelissen, Nélis 2017: G-FP response-time analysis of DAG tasks (carry-in/out distributions; rtsched's correction of Eq. 11)",
        citation=CITATION, note=NOTE,
        kind="sufficient", order=20, featured=False,
        policy="global-fp", policy_order=4, platform="identical", deadlines=("implicit", "constrained"), workload=DAG_TASKSETS,
        reference=reference, explain=explain, codes=codes,
        compile_seconds=3.0,
    ),
)  # fmt: skip
