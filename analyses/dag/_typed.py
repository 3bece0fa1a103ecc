"""Shared pieces of the typed-DAG analyses: the typed Graham bound of Han et al. (TPDS 2019), exactly and in a kernel.

A typed DAG task (vertex v of type t(v), :attr:`rtsched.dag.DAGTask.types`) runs alone on a typed
platform with m_s units of each type s, under a scheduler that is work-conserving per type (a
unit of type s idles only when no vertex of type s is ready). Han, Guan, Sun, He, Deng, Liu,
"Response time bounds for typed DAG parallel tasks on heterogeneous multi-cores", IEEE TPDS
30(11), 2019, bound its response time by (rtsched's tag (H1); see papers/han2019-typed-dag.md for
what of the paper could and could not be checked)

    (H1)  R ≤ max over paths λ of [ len(λ) + Σ_s (vol_s − len_s(λ)) / m_s ]
            = Σ_s vol_s / m_s + max over paths λ of Σ_{v ∈ λ} C_v · (1 − 1/m_{t(v)})

where vol_s is the WCET sum of the vertices of type s and len_s(λ) that of the path's vertices of
type s. The second form is a longest-path computation with vertex weight C_v·(1 − 1/m_{t(v)}).

Exactness: with L = lcm of m_s over the types the task uses, L·(H1) is an integer,
``Σ_v C_v·(L/m_{t(v)}) + max_λ Σ_{v∈λ} C_v·(L − L/m_{t(v)})``, and R ≤ D is decided as
``L·(H1) ≤ L·D`` in integers (Python ints in the reference, int64 in the kernel when
L·max(vol, D) < 2**62, else the reference).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from numba import prange
from numpy.typing import NDArray

from rtsched.dag.model import DAGBatch, DAGTask, DAGTaskSet
from rtsched.errors import InputError
from rtsched.kernels import batch_kernel, kernel
from rtsched.platform import Typed
from rtsched.workloads import DAG_TASKSETS

__all__ = [
    "HanBound",
    "allocation",
    "allocations",
    "han_bound",
    "require_types",
    "scale",
    "scaled_han_sets",
    "units_by_code",
]

#: int64 headroom of the kernel: L·max(vol, D) must stay below it.
_INT64_SAFE = 2**62


def require_types(item: DAGTaskSet | DAGBatch, platform: Typed) -> None:
    """Raise :class:`InputError` (one line) if ``item`` uses a vertex type ``platform`` lacks."""
    why = DAG_TASKSETS.refuses_types(item, platform)
    if why is not None:
        raise InputError(why, field="platform")


def task_types(task: DAGTask) -> tuple[str, ...]:
    """The vertex types ``task`` uses, sorted."""
    return tuple(sorted({task.vertex_type(v) for v in range(task.n)}))


def scale(units: dict[str, int], types: tuple[str, ...] | list[str]) -> int:
    """L = lcm of m_s over ``types`` (1 for none)."""
    return math.lcm(*(units[s] for s in types)) if types else 1


@dataclass(frozen=True)
class HanBound:
    """(H1) for one task on ``units``: the bound, its parts and a path that attains it."""

    bound: Fraction
    spread: Fraction  # Σ_s vol_s / m_s
    path_term: Fraction  # max_λ Σ_{v∈λ} C_v (1 − 1/m_{t(v)})
    path: tuple[int, ...]  # a path attaining path_term (vertex indices, in order)
    volumes: dict[str, int]  # vol_s per type the task uses


def han_bound(task: DAGTask, units: dict[str, int]) -> HanBound:
    """(H1) of ``task`` alone on ``units`` ({type: m_s}), exactly (every type of the task must be there)."""
    volumes: dict[str, int] = {}
    for v in range(task.n):
        s = task.vertex_type(v)
        volumes[s] = volumes.get(s, 0) + task.wcets[v]
    spread = sum((Fraction(vol, units[s]) for s, vol in volumes.items()), Fraction(0))
    weight = [
        task.wcets[v] * Fraction(units[task.vertex_type(v)] - 1, units[task.vertex_type(v)]) for v in range(task.n)
    ]
    best: list[Fraction] = [Fraction(0)] * task.n
    back: list[int] = [-1] * task.n
    for v in task.topological_order:
        preds = task.predecessors[v]
        via = max(preds, key=lambda u: (best[u], -u)) if preds else -1
        best[v] = (best[via] if via >= 0 else Fraction(0)) + weight[v]
        back[v] = via
    end = max(task.sinks, key=lambda v: (best[v], -v))  # weights are ≥ 0: some sink ends a heaviest path
    path = [end]
    while back[path[-1]] >= 0:
        path.append(back[path[-1]])
    path_term = best[end]
    return HanBound(spread + path_term, spread, path_term, tuple(reversed(path)), volumes)


def units_by_code(batch: DAGBatch, platform: Typed) -> NDArray[np.int64]:
    """m_s per type code of ``batch`` (0 for a type the platform lacks)."""
    return np.array([platform.count(name) for name in batch.type_names], dtype=np.int64)


@kernel
def _scaled_han_one(C, vtype, src, dst, m_of, L):
    """L·(H1) of one task (int64): C, vtype local to the task, src/dst its task-local edges."""
    n = C.shape[0]
    w = np.empty(n, dtype=np.int64)
    total = 0
    for v in range(n):
        a = L // m_of[vtype[v]]
        total += C[v] * a
        w[v] = C[v] * (L - a)
    # Kahn's order over the task-local edges (CSR by source)
    e = src.shape[0]
    indeg = np.zeros(n, dtype=np.int64)
    count = np.zeros(n + 1, dtype=np.int64)
    for k in range(e):
        indeg[dst[k]] += 1
        count[src[k] + 1] += 1
    for v in range(n):
        count[v + 1] += count[v]
    fill = count[:n].copy()
    succ = np.empty(e, dtype=np.int64)
    for k in range(e):
        succ[fill[src[k]]] = dst[k]
        fill[src[k]] += 1
    dist = w.copy()
    queue = np.empty(n, dtype=np.int64)
    head = 0
    tail = 0
    for v in range(n):
        if indeg[v] == 0:
            queue[tail] = v
            tail += 1
    best = 0
    while head < tail:
        u = queue[head]
        head += 1
        if dist[u] > best:
            best = dist[u]
        for k in range(count[u], count[u + 1]):
            x = succ[k]
            if dist[u] + w[x] > dist[x]:
                dist[x] = dist[u] + w[x]
            indeg[x] -= 1
            if indeg[x] == 0:
                queue[tail] = x
                tail += 1
    return total + best


@batch_kernel
def _scaled_han_tasks(C, vtype, vertex_offsets, edge_offsets, src, dst, m_of, L, out):
    """``out[k]`` = L[k]·(H1) of task k of a DAG batch (``prange`` over the tasks)."""
    for k in prange(out.shape[0]):
        lo, hi = vertex_offsets[k], vertex_offsets[k + 1]
        elo, ehi = edge_offsets[k], edge_offsets[k + 1]
        out[k] = _scaled_han_one(C[lo:hi], vtype[lo:hi], src[elo:ehi], dst[elo:ehi], m_of, L[k])


def scaled_han_sets(batch: DAGBatch, m_of: NDArray[np.int64], L: NDArray[np.int64]) -> NDArray[np.int64]:
    """L[k]·(H1) of every task k of ``batch`` on the per-type-code counts ``m_of`` (L[k] a multiple of each m used)."""
    out = np.empty(batch.n_tasks, dtype=np.int64)
    _scaled_han_tasks(
        batch.C, batch.vertex_type, batch.vertex_offsets, batch.edge_offsets, batch.src, batch.dst, m_of, L, out
    )
    return out


def task_scales(batch: DAGBatch, m_of: NDArray[np.int64]) -> tuple[NDArray[np.int64], NDArray[np.bool_]]:
    """Per task: L = lcm of m_s over its types, and whether L·max(vol, D) fits the kernel's int64."""
    n_tasks = batch.n_tasks
    task_of_vertex = np.repeat(np.arange(n_tasks), np.diff(batch.vertex_offsets))
    L = np.ones(n_tasks, dtype=np.int64)
    safe = np.ones(n_tasks, dtype=bool)
    for code in np.unique(batch.vertex_type).tolist():
        m = int(m_of[code])
        if m == 0:
            continue
        uses = np.zeros(n_tasks, dtype=bool)
        uses[task_of_vertex[batch.vertex_type == code]] = True
        for k in np.flatnonzero(uses).tolist():
            big = math.lcm(int(L[k]), m)
            if big >= _INT64_SAFE:
                safe[k] = False
            else:
                L[k] = big
    top = np.maximum(batch.volume, batch.D)
    with np.errstate(over="ignore"):
        safe &= top < _INT64_SAFE // np.maximum(L, 1)
    return L, safe


# -- the per-type allocation of the typed federated variant ---------------------------------------
def allocation(task: DAGTask, units: dict[str, int]) -> dict[str, int] | None:
    """(TF1) The fewest units per type, n_s ≤ m_s, with (H1) ≤ D; ``None`` if even all units do not suffice.

    Among the vectors with the fewest units in total, the lexicographically smallest in type-name
    order. Candidates: n_s ≥ max(1, ⌈vol_s / D⌉) (each of the task's types needs a unit, and (H1)
    ≥ vol_s / n_s); (H1) is non-increasing in each n_s (papers/han2019-typed-dag.md), so if the
    whole platform fails every smaller vector fails too.
    """
    types = task_types(task)
    vol = {s: 0 for s in types}
    for v in range(task.n):
        vol[task.vertex_type(v)] += task.wcets[v]
    lower = [max(1, -(-vol[s] // task.D)) for s in types]
    caps = [units[s] for s in types]
    if any(lo > cap for lo, cap in zip(lower, caps, strict=True)):
        return None
    if han_bound(task, dict(zip(types, caps, strict=True))).bound > task.D:
        return None
    for total in range(sum(lower), sum(caps) + 1):
        for vector in _vectors(lower, caps, total):
            candidate = dict(zip(types, vector, strict=True))
            if han_bound(task, candidate).bound <= task.D:
                return candidate
    return None  # unreachable: the whole platform passed


def _vectors(lower: list[int], caps: list[int], total: int) -> Iterator[tuple[int, ...]]:
    """Vectors lower ≤ x ≤ caps with Σ x = total, in lexicographic order."""
    if len(lower) == 1:
        if lower[0] <= total <= caps[0]:
            yield (total,)
        return
    rest_lo, rest_hi = sum(lower[1:]), sum(caps[1:])
    for first in range(lower[0], caps[0] + 1):
        if total - first < rest_lo:
            break
        if total - first > rest_hi:
            continue
        for tail in _vectors(lower[1:], caps[1:], total - first):
            yield (first, *tail)


@kernel
def _gcd(a, b):
    while b:
        a, b = b, a % b
    return a


@kernel
def _allocation_one(C, vtype, src, dst, vol, D, codes, lower, caps, m_of, vector):
    """(TF1) in int64 for one task: returns the total units (vector filled), -1 if none, -2 on possible overflow.

    ``codes`` are the task's type codes in type-name order, ``lower``/``caps`` their bounds;
    ``m_of`` is scratch (per type code of the batch).
    """
    q = codes.shape[0]
    top = vol if vol > D else D
    # the whole platform first
    L = 1
    for j in range(q):
        L = L // _gcd(L, caps[j]) * caps[j]
        if L >= _INT64_SAFE // top:
            return -2
        m_of[codes[j]] = caps[j]
    if _scaled_han_one(C, vtype, src, dst, m_of, L) > D * L:
        return -1
    lo_total = 0
    hi_total = 0
    for j in range(q):
        lo_total += lower[j]
        hi_total += caps[j]
    cur = np.empty(q, dtype=np.int64)
    for total in range(lo_total, hi_total + 1):
        for j in range(q):
            cur[j] = lower[j]
        while True:
            head = 0
            for j in range(q - 1):
                head += cur[j]
            rest = total - head
            if lower[q - 1] <= rest <= caps[q - 1]:
                cur[q - 1] = rest
                L = 1
                for j in range(q):
                    L = L // _gcd(L, cur[j]) * cur[j]
                    m_of[codes[j]] = cur[j]
                if L >= _INT64_SAFE // top:
                    return -2
                if _scaled_han_one(C, vtype, src, dst, m_of, L) <= D * L:
                    for j in range(q):
                        vector[j] = cur[j]
                    return total
            # the next head (positions 0..q-2, the last fastest) with Σ head ≤ total − lower[q-1]
            j = q - 2
            while j >= 0:
                cur[j] += 1
                head = 0
                for i in range(q - 1):
                    head += cur[i]
                if cur[j] <= caps[j] and head <= total - lower[q - 1]:
                    break
                cur[j] = lower[j]
                j -= 1
            if j < 0:
                break
    return -1


@batch_kernel
def _allocation_tasks(
    C, vtype, vertex_offsets, edge_offsets, src, dst, vol, D, codes, code_offsets, lower, caps, n_codes, totals, vectors
):
    """Per task k (``prange``): ``totals[k]`` and ``vectors[code_offsets[k]:code_offsets[k+1]]`` of (TF1)."""
    for k in prange(totals.shape[0]):
        lo, hi = vertex_offsets[k], vertex_offsets[k + 1]
        elo, ehi = edge_offsets[k], edge_offsets[k + 1]
        clo, chi = code_offsets[k], code_offsets[k + 1]
        m_of = np.ones(n_codes, dtype=np.int64)
        totals[k] = _allocation_one(
            C[lo:hi], vtype[lo:hi], src[elo:ehi], dst[elo:ehi], vol[k], D[k],
            codes[clo:chi], lower[clo:chi], caps[clo:chi], m_of, vectors[clo:chi],
        )  # fmt: skip


def allocations(
    batch: DAGBatch, platform: Typed
) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
    """(TF1) for every task of ``batch``: ``totals`` (−1 none, −2 overflow), and per task its type codes and vector.

    Returns ``totals, code_offsets, codes, vectors``: task k uses the type codes
    ``codes[code_offsets[k]:code_offsets[k + 1]]`` (in type-name order) with units ``vectors[...]``.
    """
    names = batch.type_names
    by_name = sorted(range(len(names)), key=lambda c: names[c])
    n_tasks = batch.n_tasks
    task_of_vertex = np.repeat(np.arange(n_tasks), np.diff(batch.vertex_offsets))
    n_codes = len(names)
    used = np.zeros((n_tasks, n_codes), dtype=bool)
    used[task_of_vertex, batch.vertex_type] = True
    vol = np.zeros((n_tasks, n_codes), dtype=np.int64)
    np.add.at(vol, (task_of_vertex, batch.vertex_type), batch.C)
    ordered = used[:, by_name]  # columns in type-name order
    counts = ordered.sum(axis=1)
    code_offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
    rows, cols = np.nonzero(ordered)  # row-major: per task, codes in type-name order
    codes = np.asarray(by_name, dtype=np.int64)[cols]
    m_of = units_by_code(batch, platform)
    caps = m_of[codes]
    D = batch.D[rows]
    lower = np.maximum(1, -(-vol[rows, codes] // D))
    totals = np.empty(n_tasks, dtype=np.int64)
    vectors = np.zeros(codes.shape[0], dtype=np.int64)
    _allocation_tasks(
        batch.C, batch.vertex_type, batch.vertex_offsets, batch.edge_offsets, batch.src, batch.dst,
        batch.volume, batch.D, codes, code_offsets, lower, caps, n_codes, totals, vectors,
    )  # fmt: skip
    return totals, code_offsets, codes, vectors
