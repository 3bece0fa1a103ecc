"""Global FP of DAG tasks with intra-task (vertex) priorities, after He et al. 2019; see papers/he2019-intra-task-priority.md.

Q. He, N. Guan, Z. Guo et al., "Intra-Task Priority Assignment in Real-Time Scheduling of DAG Tasks
on Multi-Cores", IEEE Trans. Parallel and Distributed Systems 30(10), 2019, pp. 2283-2295. The
idea of the paper: inside a DAG job, ready vertices run in the order of fixed *vertex* priorities;
a vertex can then be delayed only by the vertices of its job that are neither its ancestors nor
its descendants *and* have a higher priority (its interference set, the paper's Definition 3), and
the bound on the job's response time counts along a path only the union of those sets instead of
the whole rest of the graph as Graham's bound does. The paper's own text could not be read (only
its abstract is reachable through the search tool; the abstract of He, Lv, Guan, ECRTS 2021, says
that its bound needs priorities that "comply with the topological order" so that it can be
computed in polynomial time). **The bound below is rtsched's statement of that idea, with
rtsched's proof** (papers/he2019-intra-task-priority.md, "Proof"); the intra-task priority rule
is rtsched's choice too (the paper's heuristic is not reproduced). So is the name: the registry
entry ``dag-gfp-he2019`` is *this* analysis, after the paper, not a transcription of it.

Model: sporadic DAG tasks, constrained deadlines D ≤ T, m identical processors, preemptive global
fixed priorities: a vertex's priority is (its task's priority, its vertex priority), the task
order is the task priority (τ_0 highest); integer time.

* (H0) Vertex priorities (rtsched's rule, "critical path first"): vertex v's priority is its
  bottom level bl(v) = C_v + max over successors s of bl(s) (the longest path from v to a sink),
  higher first, ties by lower vertex index. Every ancestor u of v has bl(u) ≥ C_u + bl(v) > bl(v),
  so the priorities comply with the topological order. :func:`vertex_priorities` gives the rank
  of each vertex (0 = highest), which ``rtsched.dag.simulate_dag(vertex_priorities=...)`` takes.
* (H1) Interference set (the paper's Definition 3): I(v) = {w ≠ v : w has a higher vertex
  priority than v, w ∉ anc(v) ∪ desc(v)}.
* (H2) Self bound of one job (rtsched's Theorem 1): the job of τ_k, alone or with interference
  I from other tasks, finishes within

      R ≤ max over paths λ of the DAG [ len(λ) + ⌊(vol(∪_{u ∈ λ} I(u)) + I) / m⌋ ],

  written with the numerator S_k = max_λ ( m·len(λ) + vol(∪_{u∈λ} I(u)) ) as
  R ≤ ⌊(S_k + I)/m⌋. S_k ≤ m·len_k + vol_k − len_k, so (H2) never exceeds Graham's bound.
* (H3) S_k in polynomial time (rtsched's Lemma 2, which needs the topological compliance of
  (H0)): for an edge (p, v), I(p) ⊆ I(v) ∪ anc(v), and

      G(v) = m·C_v + max over predecessors p of v of [ G(p) + vol(I(p) ∩ anc(v)) ]   (G = m·C_v at a source)
      S_k  = max over vertices v of [ G(v) + vol(I(v)) ].

* (H4) Response time of τ_k under G-FP: the least fixed point of
  R_k = ⌊(S_k + Σ_{i<k} W_i(R_k)) / m⌋ from ⌊S_k/m⌋, W_i Melani et al.'s carry-in workload
  ``theory.dag_workload`` (M2) with the higher-priority task's bound R_i; accepted if R_k ≤ D_k.
  Since S_k ≤ m·len_k + vol_k − len_k, every R_k is at most ``dag-gfp-melani2015``'s: this test
  accepts every set that one accepts (held as a property test).

Layers: :func:`reference` (Python ints: (H1) as sets, (H3) as written, (H4)), :func:`self_bound_by_paths`
(the definition (H2) over every path, exponential, for tests), :func:`explain` (each task's S_k/m,
Graham's bound, R_k, the vertex order, the failing task with its carry-in terms) and the kernel
``_set_codes`` (``prange`` over the sets of a :class:`~rtsched.dag.DAGBatch`; per task the ranks,
the ancestor matrix and (H3) in int64, then (H4) by ``theory.dag_workload.gfp_fixed_points_nb``, the
G-FP iteration melani2015's kernel runs too).

Exactness: all quantities are integers; the kernel computes in int64 what the reference computes
in Python ints (S_k ≤ m·vol_k, below 2**62 for times below 2**31 and m below 2**30; sums in (H4)
are capped as in melani2015). Work budget: one unit is one evaluation of (H4)'s right side, as
``dag-gfp-melani2015``'s (the graphs' own O(n²) work is not counted).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
from numba import prange
from numpy.typing import NDArray

from rtsched.analyses.theory.dag_workload import carry_in_workload, gfp_fixed_points_nb
from rtsched.analyses.theory.graham import graham_bound_int
from rtsched.dag.model import DAGBatch, DAGTask, DAGTaskSet
from rtsched.errors import InputError
from rtsched.kernels import batch_kernel, kernel
from rtsched.registry import Analysis
from rtsched.result import UNKNOWN as UNKNOWN_VERDICT
from rtsched.result import Explanation, Step, Verdict
from rtsched.workloads import DAG_TASKSETS

__all__ = [
    "ANALYSES",
    "DEFAULT_BUDGET",
    "Run",
    "codes",
    "explain",
    "interference_sets",
    "reference",
    "run",
    "self_bound",
    "self_bound_by_paths",
    "vertex_priorities",
]

PAPER = (
    "He, Guan, Guo et al., 'Intra-Task Priority Assignment in Real-Time Scheduling of DAG Tasks on Multi-Cores', "
    "IEEE TPDS 30(10), 2019"
)
CITE = (
    PAPER + " (interference sets, Def. 3): rtsched's statement and proof of the path bound with "
    "critical-path-first vertex priorities, under global FP with Melani et al.'s carry-in workload"
)
NOTE = "papers/he2019-intra-task-priority.md"
#: Default work budget: evaluations of the right side of (H4) per set (as dag-gfp-melani2015's).
DEFAULT_BUDGET = 200_000
BUDGET_UNIT = "response-time evaluations"


# -- the bounds (Python ints) -------------------------------------------------------------------


def _bottom_levels(task: DAGTask) -> list[int]:
    bl = [0] * task.n
    for v in reversed(task.topological_order):
        bl[v] = task.wcets[v] + max((bl[s] for s in task.successors[v]), default=0)
    return bl


def vertex_priorities(task: DAGTask) -> tuple[int, ...]:
    """(H0) Each vertex's rank (0 = highest): bottom level, higher first, then lower index."""
    bl = _bottom_levels(task)
    order = sorted(range(task.n), key=lambda v: (-bl[v], v))
    rank = [0] * task.n
    for r, v in enumerate(order):
        rank[v] = r
    return tuple(rank)


def interference_sets(task: DAGTask, rank: tuple[int, ...] | None = None) -> list[frozenset[int]]:
    """(H1) I(v): the higher-priority vertices that are neither ancestors nor descendants of v."""
    rank = vertex_priorities(task) if rank is None else rank
    out = []
    for v in range(task.n):
        related = task.ancestors(v) | task.descendants(v)
        out.append(frozenset(w for w in range(task.n) if w != v and rank[w] < rank[v] and w not in related))
    return out


def self_bound(task: DAGTask, m: int, rank: tuple[int, ...] | None = None) -> int:
    """(H3) S = max_λ (m·len(λ) + vol(∪_{u∈λ} I(u))), by the edge recursion G.

    ``rank``: the vertex priorities (default (H0)); they must comply with the topological order
    (every vertex ranked after its predecessors), which (H3) needs.
    """
    if rank is not None and any(rank[p] > rank[v] for p, v in task.edges):
        raise InputError("the edge recursion (H3) needs vertex priorities in a topological order", field="rank")
    sets = interference_sets(task, rank)
    C = task.wcets
    G = [0] * task.n
    best = 0
    for v in task.topological_order:
        anc = task.ancestors(v)
        G[v] = m * C[v] + max((G[p] + sum(C[w] for w in sets[p] & anc) for p in task.predecessors[v]), default=0)
        best = max(best, G[v] + sum(C[w] for w in sets[v]))
    return best


def self_bound_by_paths(task: DAGTask, m: int, rank: tuple[int, ...] | None = None) -> int:
    """(H2) S by its definition: every path from a source to a sink (exponential; for tests); any ``rank``."""
    sets = interference_sets(task, rank)
    C = task.wcets
    best = 0

    def walk(v: int, length: int, union: frozenset[int]) -> None:
        nonlocal best
        length += C[v]
        union = union | sets[v]
        if not task.successors[v]:
            best = max(best, m * length + sum(C[w] for w in union))
        for s in task.successors[v]:
            walk(s, length, union)

    for v in task.sources:
        walk(v, 0, frozenset())
    return best


@dataclass(frozen=True)
class Run:
    """The outcome on one set, exactly: ``S`` per task (H3), ``R`` per task (H4; ``None`` past the failing task).

    ``failing``: the first task whose bound exceeds its deadline; ``window``: the window length at
    which its right side went over D (``None`` when ⌊S_k/m⌋ alone does); ``steps``: evaluations of
    (H4); ``exhausted``: the budget ran out first.
    """

    S: tuple[int, ...]
    R: tuple[int | None, ...]
    failing: int | None
    steps: int
    window: int | None = None
    exhausted: bool = False

    @property
    def verdict(self) -> Verdict:
        """True if every R_k ≤ D_k, "unknown" if the budget ran out first."""
        if self.exhausted:
            return UNKNOWN_VERDICT
        return self.failing is None


def _check(m: int, budget: int) -> None:
    if budget < 0:
        raise InputError(f"budget must be >= 0, got {budget}", field="budget")
    if m < 1:
        raise InputError(f"m must be >= 1, got {m}", field="m")


def _interference(rows: list[tuple[int, int, int, int]], R: list[int], k: int, x: int, m: int) -> int:
    return sum(carry_in_workload(rows[i][0], rows[i][3], R[i], x, m) for i in range(k))


def run(ts: DAGTaskSet, m: int, budget: int = DEFAULT_BUDGET) -> Run:
    """(H3) and (H4) in priority order (task order): each task's S_k and R_k, the first failing task."""
    _check(m, budget)
    rows = ts.rows()
    S = tuple(self_bound(t, m) for t in ts)
    n = len(rows)
    R: list[int] = []
    steps = 0
    for k, (_vol, _length, D, _T) in enumerate(rows):
        x = S[k] // m  # (H4) starting point
        if x > D:
            return Run(S, (*R, x) + (None,) * (n - k - 1), k, steps)
        while True:
            if steps == budget:
                return Run(S, tuple(R) + (None,) * (n - k), None, steps, exhausted=True)
            steps += 1
            nxt = (S[k] + _interference(rows, R, k, x, m)) // m  # (H4)
            if nxt > D:
                return Run(S, (*R, nxt) + (None,) * (n - k - 1), k, steps, x)
            if nxt == x:
                break
            x = nxt
        R.append(x)
    return Run(S, tuple(R), None, steps)


def reference(ts: DAGTaskSet, m: int, budget: int = DEFAULT_BUDGET) -> Verdict:
    """Exact ``dag-gfp-he2019`` verdict: every R_k of (H4) at most D_k ("unknown": budget spent)."""
    return run(ts, m, budget).verdict


# -- explain ----------------------------------------------------------------------------------------


def _order(task: DAGTask) -> str:
    rank = vertex_priorities(task)
    return " > ".join(task.vertex_label(v) for v in sorted(range(task.n), key=rank.__getitem__))


def explain(ts: DAGTaskSet, m: int, budget: int = DEFAULT_BUDGET) -> Explanation:
    """Each task's self bound ⌊S_k/m⌋, Graham's bound, R_k and vertex order; the failing task with its terms."""
    out = run(ts, m, budget)
    rows = ts.rows()
    per_task = []
    for i, (vol, length, D, T) in enumerate(rows):
        r = out.R[i]
        per_task.append(
            {
                "task": ts.label(i),
                "vol": vol,
                "len": length,
                "D": D,
                "T": T,
                "graham_int": graham_bound_int(vol, length, m),
                "self_bound": out.S[i] // m,
                "R": r,
                "R <= D": None if r is None else r <= D,
                "vertex_order": _order(ts[i]),
            }
        )
    evidence: dict[str, Any] = {
        "response_times": out.R,
        "self_bound_numerators": out.S,
        "failing_task": out.failing,
        "iterations": out.steps,
    }
    if out.exhausted:
        evidence["failing_term"] = None
        summary = f"G-FP (vertex priorities): unknown: the budget of {out.steps} response-time evaluations ran out"
    elif out.failing is None:
        slack = min(t.D - (out.R[i] or 0) for i, t in enumerate(ts))
        evidence["failing_term"] = None
        evidence["min_slack"] = slack
        summary = f"G-FP (vertex priorities): every R_k ≤ D_k (least slack D_k − R_k = {slack})"
    else:
        k = out.failing
        t = ts[k]
        if out.window is None:
            term = f"self bound of {ts.label(k)}: ⌊S/m⌋ = ⌊{out.S[k]}/{m}⌋ = {out.S[k] // m} > D = {t.D}"
            evidence["interference"] = {}
        else:
            term = f"R of {ts.label(k)} = {out.R[k]} > D = {t.D} (window x = {out.window})"
            evidence["interference"] = {
                ts.label(i): carry_in_workload(rows[i][0], rows[i][3], out.R[i] or 0, out.window, m) for i in range(k)
            }
        evidence["window"] = out.window
        evidence["failing_term"] = term
        summary = f"G-FP (vertex priorities): not proven: {term}"
    return Explanation(
        verdict=out.verdict,
        summary=summary,
        evidence=evidence,
        per_task=per_task,
        steps=lambda: _steps(ts, m, out, budget),
    )


def _steps(ts: DAGTaskSet, m: int, out: Run, budget: int) -> Iterator[Step | str]:
    rows = ts.rows()
    yield (
        f"G-FP on m = {m}, task order ({ts.label(0)} highest), vertices by bottom level; "
        "R_k = ⌊(S_k + Σ_(i<k) W_i(R_k))/m⌋, S_k = max over paths of m·len + vol(∪ I)"
    )
    R: list[int] = []
    steps = 0
    for k, (vol, length, D, _T) in enumerate(rows):
        x = out.S[k] // m
        yield Step(
            f"{ts.label(k)}: vertex order {_order(ts[k])}; S = {out.S[k]} (Graham's numerator "
            f"{m * length + vol - length}); start at ⌊S/m⌋ = " + "{x}",
            {"x": x},
        )
        if x > D:
            yield f"{ts.label(k)}: {x} > D = {D}: not proven (lower-priority tasks are not analysed)"
            return
        while True:
            if steps == budget:
                yield f"the budget of {budget} response-time evaluations ran out: unknown"
                return
            steps += 1
            terms = [carry_in_workload(rows[i][0], rows[i][3], R[i], x, m) for i in range(k)]
            nxt = (out.S[k] + sum(terms)) // m
            shown = " + ".join(f"W_{i}({x}) = {w}" for i, w in enumerate(terms)) or "no higher-priority task"
            yield Step(f"  x = {x}: {shown}; ⌊(S + ΣW)/m⌋ = " + "{nxt}", {"nxt": nxt})
            if nxt > D:
                yield f"{ts.label(k)}: R = {nxt} > D = {D}: not proven (lower-priority tasks are not analysed)"
                return
            if nxt == x:
                break
            x = nxt
        R.append(x)
        yield f"{ts.label(k)}: R = {x} ≤ D = {D}"
    yield "every R_k ≤ D_k: schedulable by global FP with critical-path-first vertex priorities"


# -- kernels ---------------------------------------------------------------------------------------


@kernel
def _self_bound_nb(C, src, dst, m):
    """(H0)-(H3) for one task (task-local arrays): S in int64."""
    n = C.shape[0]
    e = src.shape[0]
    # successor lists (CSR) and in-degrees
    start = np.zeros(n + 1, dtype=np.int64)
    indeg = np.zeros(n, dtype=np.int64)
    for j in range(e):
        start[src[j] + 1] += 1
        indeg[dst[j]] += 1
    for v in range(n):
        start[v + 1] += start[v]
    succ = np.empty(e, dtype=np.int64)
    fill = start[:n].copy()
    for j in range(e):
        succ[fill[src[j]]] = dst[j]
        fill[src[j]] += 1
    # a topological order (Kahn)
    topo = np.empty(n, dtype=np.int64)
    head = 0
    tail = 0
    for v in range(n):
        if indeg[v] == 0:
            topo[tail] = v
            tail += 1
    while head < tail:
        v = topo[head]
        head += 1
        for j in range(start[v], start[v + 1]):
            w = succ[j]
            indeg[w] -= 1
            if indeg[w] == 0:
                topo[tail] = w
                tail += 1
    # (H0) bottom levels and ranks
    bl = np.zeros(n, dtype=np.int64)
    for idx in range(n - 1, -1, -1):
        v = topo[idx]
        best = 0
        for j in range(start[v], start[v + 1]):
            if bl[succ[j]] > best:
                best = bl[succ[j]]
        bl[v] = C[v] + best
    top = 0
    for v in range(n):
        if bl[v] > top:
            top = bl[v]
    key = np.empty(n, dtype=np.int64)
    for v in range(n):
        key[v] = (top - bl[v]) * n + v
    order = np.argsort(key)
    rank = np.empty(n, dtype=np.int64)
    for r in range(n):
        rank[order[r]] = r
    # ancestors: anc[v, w] = w is an ancestor of v
    anc = np.zeros((n, n), dtype=np.bool_)
    for idx in range(n):
        v = topo[idx]
        for j in range(start[v], start[v + 1]):
            w = succ[j]
            anc[w, v] = True
            for u in range(n):
                if anc[v, u]:
                    anc[w, u] = True
    # (H1) membership: inter[v, w] = w ∈ I(v); volI[v] = vol(I(v))
    inter = np.zeros((n, n), dtype=np.bool_)
    volI = np.zeros(n, dtype=np.int64)
    for v in range(n):
        for w in range(n):
            if w != v and rank[w] < rank[v] and not anc[v, w] and not anc[w, v]:
                inter[v, w] = True
                volI[v] += C[w]
    # (H3) G over the topological order; predecessors are the edges into v
    G = np.zeros(n, dtype=np.int64)
    S = 0
    for idx in range(n):
        v = topo[idx]
        best = 0
        for j in range(e):
            if dst[j] != v:
                continue
            p = src[j]
            acc = G[p]
            for w in range(n):
                if inter[p, w] and anc[v, w]:
                    acc += C[w]
            if acc > best:
                best = acc
        G[v] = m * C[v] + best
        if G[v] + volI[v] > S:
            S = G[v] + volI[v]
    return S


@batch_kernel
def _set_codes(C, vertex_offsets, edge_offsets, src, dst, vol, D, T, task_offsets, m, budget, S, R, out):
    """``out[s]``: (H3) for every task of set ``s``, then (H4) (``prange`` over the sets)."""
    for s in prange(out.shape[0]):
        lo, hi = task_offsets[s], task_offsets[s + 1]
        for k in range(lo, hi):
            a, b = vertex_offsets[k], vertex_offsets[k + 1]
            c, d = edge_offsets[k], edge_offsets[k + 1]
            S[k] = _self_bound_nb(C[a:b], src[c:d], dst[c:d], m)
        out[s] = gfp_fixed_points_nb(S[lo:hi], vol[lo:hi], D[lo:hi], T[lo:hi], m, budget, R[lo:hi])  # (H4)


def codes(batch: DAGBatch, m: int, budget: int = DEFAULT_BUDGET) -> NDArray[np.int8]:
    """``dag-gfp-he2019`` codes (1 accept, 0 reject, -1 budget spent) for every set of ``batch``."""
    _check(m, budget)
    out = np.empty(batch.n_sets, dtype=np.int8)
    tasks = batch.volume.shape[0]
    S = np.zeros(tasks, dtype=np.int64)
    R = np.zeros(tasks, dtype=np.int64)
    _set_codes(
        batch.C, batch.vertex_offsets, batch.edge_offsets, batch.src, batch.dst,
        batch.volume, batch.D, batch.T, batch.task_offsets, m, budget, S, R, out,
    )  # fmt: skip
    return out


ANALYSES = (
    Analysis(
        name="dag-gfp-he2019",
        title="After He et al. 2019: global FP of DAG tasks with critical-path-first vertex priorities (rtsched's bound)",
        kind="sufficient", order=21, featured=False,
        policy="global-fp-vertex", policy_order=5, platform="identical", deadlines=("implicit", "constrained"),
        workload=DAG_TASKSETS, citation=CITE, note=NOTE,
        reference=reference, explain=explain, codes=codes,
        budget=DEFAULT_BUDGET, budget_unit=BUDGET_UNIT, compile_seconds=4.0,
    ),
)  # fmt: skip
