"""GPU partitions for CPU–GPU segmented tasks: lock-based analyses on a partitioned GPU (rtsched's own).

``seg-mpcp-busy-part``, ``seg-mpcp-suspend-part``, ``seg-fmlp-busy-part``, ``seg-fmlp-suspend-part``
(heuristic search) and the same names with ``-exhaustive`` (every layout and assignment, for small
cases). **No published tool does this: the model, the rule and the searches are rtsched's**, proved
in papers/cpu-gpu-partitions.md; they join two models of this library:

* the CPU–GPU segmented tasks of :mod:`rtsched.segmented` (papers/cpu-gpu-model.md), analysed by
  the lock-based analyses of this family (:mod:`rtsched.analyses.segmented._locking`: MPCP after
  Patel et al., RTAS 2018; FMLP+ after Brandenburg, ECRTS 2014; each device a mutually exclusive
  resource);
* the GPU partition model of :mod:`rtsched.gpu` (papers/zahaf2021-gpu-partitioning.md, rtsched's
  model after Zahaf et al., RTNS 2021: WCET profiles C(s) over partition sizes, slowdown f(k) with
  k other active partitions or f(k | c) by co-runner class, layout spaces ``free``, ``tpc:<k>``,
  ``mig:a100``, ``mig:h100``; assumptions A1–A7).

Input: a :class:`~rtsched.segmented.SegmentedTaskSet` with a
:class:`~rtsched.segmented.GPUDescription` ``gpu`` (M clusters, layout space, slowdown rows,
classes, and the ``device`` its segments name). A *candidate* is a layout (partition sizes
s_1 ≥ … ≥ s_K, legal in the space) and an assignment of every task with a segment on that device
to one partition (all of a task's segments on that device go to the same partition: a CUDA
context, hence a process, runs in one MIG instance / one SM mask; one partition per task also
keeps the search to K^n). Every partition holds a task (K = the number of active partitions).

(P)  the derived set: each partition j is a device of its own, ``<device>.p<j>``; a segment of a
     task on partition j of size s_j gets

         G_e' = ⌈C(s_j) · f(K − 1 | c_j)⌉         [Eq. (I') of the GPU note; (I) when count-only]

     with C the segment's profile (no profile: G_e on the whole GPU only, ``s_j = M``; G_e = 0
     stays 0), c_j the most interfering class among the segments of the *other* partitions
     (a segment without a class counts as the worst one); G_m, CPU segments, T, D, cores, modes
     and segments on other devices are unchanged. A segment whose C(s_j) or factor is not
     measured makes the candidate fail.
(A)  a candidate is accepted iff the inner analysis (MPCP or FMLP+, busy or suspend, the
     registry's ``seg-mpcp-*`` / ``seg-fmlp-*``) accepts its derived set on the same m cores.
(S)  the set is accepted iff some candidate of the search is accepted.

Soundness (the note's theorem): under A1, A3, A4' (and A2 for short tables) every execution of the
partitioned system is an execution of the derived set with each GPU part at most its G_e', so the
inner analysis's promise (no miss for any execution time up to the WCET) carries over.

Searches:

``part`` (heuristic)
    K = 1, 2, …, min(#GPU tasks, M); for each K the maximal legal layouts of the space
    (:meth:`~rtsched.gpu.LayoutSpace.maximal`, decreasing lexicographic order); the tasks by
    decreasing whole-GPU utilization Σ G_e / T (ties: index) each onto the partition with the
    most slack 1 − Σ G_e'/T after placing it (G_e' with the worst-case factor f(K − 1); ties:
    lowest index), among those where every segment is measured; empty partitions are dropped.
    One candidate per layout; the first accepted wins.
``part-exhaustive``
    K = 1, 2, …; every legal layout of exactly K partitions (decreasing lexicographic order),
    every split of the GPU tasks into K non-empty blocks (restricted growth strings) and every
    distinct placement of the blocks onto the sizes. It contains every candidate of ``part``
    (whose layout, once empty partitions are dropped, is legal: the spaces are downward closed),
    so it accepts whatever ``part`` accepts when both finish within the budget.

Budget: the number of candidates considered (``budget=``; default 10 000 for ``part``, 20 000 for
``part-exhaustive``); running out before an accepted candidate gives "unknown", never False.

Without a ``gpu`` description there is nothing to partition: the verdict is the inner analysis's
on the set as it is (explain says so).

Layers: :func:`reference` (the search with the inner analysis's Python reference),
:func:`explain` (the chosen layout, assignment, inflated G_e per segment, the inner per-task
bounds and steps) and :func:`codes` (the same search in Python, its candidates decided in chunks
by the inner analysis's Numba ``prange`` kernel, :func:`rtsched.analyses.segmented._locking.locking_codes`;
the search itself is not a kernel: it enumerates layouts of the GPU model's layout spaces and
builds derived sets).
"""

from __future__ import annotations

import functools
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
from numpy.typing import NDArray

from rtsched.analyses.segmented import _locking
from rtsched.errors import InputError
from rtsched.gpu.layouts import LayoutSpace, layout_space
from rtsched.model import MAX_TIME
from rtsched.registry import Analysis
from rtsched.result import UNKNOWN as UNKNOWN_VERDICT
from rtsched.result import Explanation, Step, Verdict, as_steps, count
from rtsched.segmented.model import GPUDescription, GPUSegment, SegmentedBatch, SegmentedTaskSet, WaitMode
from rtsched.workloads import SEGMENTED_TASKSETS

__all__ = [
    "ANALYSES",
    "CITATION",
    "DEFAULT_BUDGETS",
    "NOTE",
    "SEARCHES",
    "Candidate",
    "Inflated",
    "Inner",
    "candidates",
    "codes",
    "codes_with",
    "derive",
    "explain",
    "explain_with",
    "gpu_tasks",
    "inflated_wcet",
    "legal_layouts",
    "locking_inner",
    "reference",
    "reference_with",
    "search",
    "search_with",
]

#: The searches: ``part`` (heuristic) and ``part-exhaustive``.
SEARCHES = ("part", "part-exhaustive")
#: Default budgets (candidates considered).
DEFAULT_BUDGETS = {"part": 10_000, "part-exhaustive": 20_000}
#: Candidates decided by one call of the inner kernel in :func:`codes`.
CHUNK = 256
GE = "G_e'"
_MODES: tuple[WaitMode, ...] = ("busy", "suspend")

CITATION = (
    "rtsched's own (no published analysis or tool does this): the lock-based analyses of this family "
    "(MPCP after Patel, Baek, Kim, Rajkumar, RTAS 2018; FMLP+ after Brandenburg, ECRTS 2014) on the GPU "
    "partition model of rtsched after Zahaf et al., RTNS 2021 (WCET profiles, slowdown rows, layout spaces: "
    "NVIDIA MIG User Guide, Bakita & Anderson RTAS 2023); rule (P), theorem and searches proved in the note"
)
NOTE = "papers/cpu-gpu-partitions.md"


# ---------------------------------------------------------------------------------------------
# The rule (P)
# ---------------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=4096)
def _factor(gpu: GPUDescription, others: int, worst: int | None) -> Fraction | None:
    """:meth:`GPUDescription.factor`, memoized (the searches ask for the same few factors many times)."""
    return gpu.factor(others, worst)


def inflated_wcet(segment: GPUSegment, size: int, others: int, worst: int | None, gpu: GPUDescription) -> int | None:
    """(P): G_e' = ⌈C(size) · f(others | worst)⌉ exactly; None if C(size) or the factor is not measured.

    ``C`` is :meth:`~rtsched.segmented.GPUSegment.wcet_on` (the profile; no profile: G_e on the
    whole GPU only); ``f`` is :meth:`~rtsched.segmented.GPUDescription.factor` (Eqs. (I), (I') of
    papers/zahaf2021-gpu-partitioning.md). Rounding up keeps it a bound.
    """
    c = segment.wcet_on(size, gpu.clusters)
    f = _factor(gpu, others, worst)
    if c is None or f is None:
        return None
    return -(-(c * f.numerator) // f.denominator)


def gpu_tasks(ts: SegmentedTaskSet) -> tuple[int, ...]:
    """Indices of the tasks with a segment on the set's partitionable device (none without ``gpu``)."""
    gpu = ts.gpu
    if gpu is None:
        return ()
    return tuple(i for i, t in enumerate(ts) if any(g.device == gpu.device for g in t.gpu))


@dataclass(frozen=True)
class Inflated:
    """One segment of the derived set: task, segment (from 1), partition, size, C(s), factor, G_e' (None: not measured)."""

    task: int
    segment: int
    partition: int
    size: int
    C: int | None
    f: Fraction | None
    G_e: int | None


@dataclass(frozen=True)
class Candidate:
    """A layout (sizes of the active partitions) and each task's partition (None: no segment on the GPU).

    ``derived`` is the derived set of (P) (None: a segment is not measured there, or a repeat of an
    earlier candidate of the heuristic); ``why`` says why it is None.
    """

    sizes: tuple[int, ...]
    assignment: tuple[int | None, ...]
    derived: SegmentedTaskSet | None
    inflated: tuple[Inflated, ...]
    why: str = ""


def _names(ts: SegmentedTaskSet, gpu: GPUDescription, K: int) -> list[str]:
    """Device names ``<device>.p<j>`` of the K partitions (a prefix ``_`` is added while they clash)."""
    taken = set(ts.devices)
    base = gpu.device
    while True:
        names = [f"{base}.p{j}" for j in range(K)]
        if not taken.intersection(names):
            return names
        base = "_" + base


def derive(ts: SegmentedTaskSet, sizes: Sequence[int], assignment: Sequence[int | None]) -> Candidate:
    """The derived set of (P) for a layout and an assignment (task -> partition index into ``sizes``).

    Every task with a segment on the GPU needs a partition, every partition a task.
    """
    gpu = ts.gpu
    if gpu is None:
        raise InputError("the set has no GPU description (gpu): nothing to partition", field="gpu")
    sizes, assignment = tuple(sizes), tuple(assignment)
    users = gpu_tasks(ts)
    if len(assignment) != ts.n or any((assignment[i] is None) != (i not in users) for i in range(ts.n)):
        raise InputError("the assignment must give a partition to exactly the tasks that use the GPU", field="gpu")
    K = len(sizes)
    if sorted({a for a in assignment if a is not None}) != list(range(K)):
        raise InputError(f"every one of the {K} partitions must hold a task", field="gpu")
    worst: list[int | None] = [None] * K
    for p in range(K):
        classes = [
            gpu.class_index(g.klass) for i in users if assignment[i] != p for g in ts[i].gpu if g.device == gpu.device
        ]
        worst[p] = max(classes, default=0)
    names = _names(ts, gpu, K)
    tasks = []
    rows: list[Inflated] = []
    why = ""
    for i, t in enumerate(ts):
        part = assignment[i]
        if part is None:
            tasks.append(t)
            continue
        segs = []
        for j, g in enumerate(t.gpu, 1):
            if g.device != gpu.device:
                segs.append(g)
                continue
            size = sizes[part]
            c = g.wcet_on(size, gpu.clusters)
            f = _factor(gpu, K - 1, worst[part])
            value = inflated_wcet(g, size, K - 1, worst[part], gpu)
            rows.append(Inflated(i, j, part, size, c, f, value))
            if value is None or g.G_m + value > MAX_TIME:
                why = why or (
                    f"{ts.label(i)} segment {j}: "
                    + (
                        f"C({size}) not measured"
                        if c is None
                        else f"f({K - 1}) not measured"
                        if f is None
                        else f"G_e' = {value} too large"
                    )
                )
                continue
            segs.append(GPUSegment(g.G_m, value, names[part]))
        tasks.append(t.replace(gpu=tuple(segs)) if not why else t)
    derived = None if why else SegmentedTaskSet(tasks, name=ts.name, driver=ts.driver)
    return Candidate(sizes, assignment, derived, tuple(rows), why)


# ---------------------------------------------------------------------------------------------
# Layouts and searches
# ---------------------------------------------------------------------------------------------


def legal_layouts(space: LayoutSpace, K: int) -> Iterator[tuple[int, ...]]:
    """Every legal layout of exactly K partitions, sizes decreasing, in decreasing lexicographic order (lazy)."""
    if not space.additive:
        yield from sorted((x for x in space.all_legal() if len(x) == K), reverse=True)
        return
    sizes = sorted(space.sizes, reverse=True)

    def grow(prefix: tuple[int, ...], total: int) -> Iterator[tuple[int, ...]]:
        if len(prefix) == K:
            if space.legal(prefix):
                yield prefix
            return
        for s in sizes:
            if prefix and s > prefix[-1]:
                continue
            if total + s * 1 + (K - len(prefix) - 1) * sizes[-1] > space.M:
                continue
            yield from grow((*prefix, s), total + s)

    yield from grow((), 0)


def _utilization(values: Sequence[int | None], T: int) -> Fraction | None:
    return None if any(v is None for v in values) else Fraction(sum(values), T)  # type: ignore[arg-type]


def _greedy(ts: SegmentedTaskSet, sizes: tuple[int, ...]) -> tuple[int | None, ...] | None:
    """The heuristic's assignment on ``sizes``: largest GPU utilization first, onto the most slack after it."""
    gpu = ts.gpu
    assert gpu is not None
    K = len(sizes)
    users = gpu_tasks(ts)
    order = sorted(
        users, key=lambda i: (-Fraction(sum(g.G_e for g in ts[i].gpu if g.device == gpu.device), ts[i].T), i)
    )
    load = [Fraction(0)] * K
    out: list[int | None] = [None] * ts.n
    for i in order:
        t = ts[i]
        best: tuple[Fraction, int, Fraction] | None = None
        for p, s in enumerate(sizes):
            # the worst-case factor f(K − 1) (any co-runner), only to rank the partitions
            u = _utilization([inflated_wcet(g, s, K - 1, None, gpu) for g in t.gpu if g.device == gpu.device], t.T)
            if u is None:
                continue
            slack = 1 - load[p] - u
            if best is None or slack > best[0]:
                best = (slack, p, u)
        if best is None:
            return None
        _, p, u = best
        out[i] = p
        load[p] += u
    return tuple(out)


def _compact(
    sizes: tuple[int, ...], assignment: tuple[int | None, ...]
) -> tuple[tuple[int, ...], tuple[int | None, ...]]:
    """Drop the empty partitions (their clusters become idle); number the others as the exhaustive search does.

    Partitions by decreasing size, ties by their first task: the canonical form of a candidate,
    so that the heuristic's candidates are literally among the exhaustive search's.
    """
    first = {}
    for i, a in enumerate(assignment):
        if a is not None and a not in first:
            first[a] = i
    used = sorted(first, key=lambda p: (-sizes[p], first[p]))
    index = {p: j for j, p in enumerate(used)}
    return tuple(sizes[p] for p in used), tuple(None if a is None else index[a] for a in assignment)


def _heuristic(ts: SegmentedTaskSet) -> Iterator[Candidate]:
    gpu = ts.gpu
    assert gpu is not None
    space = layout_space(gpu.layout, gpu.clusters)
    users = gpu_tasks(ts)
    seen: set[tuple[Any, ...]] = set()
    for K in range(1, min(len(users), gpu.clusters) + 1):
        for sizes in space.maximal(K):
            assignment = _greedy(ts, sizes)
            if assignment is None:
                yield Candidate(sizes, (None,) * ts.n, None, (), f"layout {_text(sizes)}: a task fits no partition")
                continue
            key = _compact(sizes, assignment)
            if key in seen:
                yield Candidate(*key, None, (), "the same as an earlier candidate")
                continue
            seen.add(key)
            yield derive(ts, *key)


def _set_partitions(items: Sequence[int], K: int) -> Iterator[tuple[int, ...]]:
    """Block index of each item, over every split into exactly K non-empty blocks (restricted growth strings)."""
    n = len(items)
    labels = [0] * n

    def rec(i: int, used: int) -> Iterator[tuple[int, ...]]:
        if n - i < K - used:
            return
        if i == n:
            if used == K:
                yield tuple(labels)
            return
        for b in range(min(used + 1, K)):
            labels[i] = b
            yield from rec(i + 1, max(used, b + 1))

    if n:
        yield from rec(0, 0)


def _placements(sizes: tuple[int, ...]) -> Iterator[tuple[int, ...]]:
    """Distinct orderings of the multiset ``sizes`` (the size of block 0, 1, …)."""
    if not sizes:
        yield ()
        return
    for s in sorted(set(sizes), reverse=True):
        rest = list(sizes)
        rest.remove(s)
        for tail in _placements(tuple(rest)):
            yield (s, *tail)


def _exhaustive(ts: SegmentedTaskSet) -> Iterator[Candidate]:
    gpu = ts.gpu
    assert gpu is not None
    space = layout_space(gpu.layout, gpu.clusters)
    users = gpu_tasks(ts)
    for K in range(1, min(len(users), gpu.clusters) + 1):
        for sizes in legal_layouts(space, K):
            for blocks in _set_partitions(users, K):
                for placed in _placements(sizes):
                    # partitions numbered by decreasing size (ties: block order)
                    order = sorted(range(K), key=lambda b: (-placed[b], b))
                    index = {b: j for j, b in enumerate(order)}
                    assignment: list[int | None] = [None] * ts.n
                    for i, b in zip(users, blocks, strict=True):
                        assignment[i] = index[b]
                    yield derive(ts, tuple(placed[b] for b in order), tuple(assignment))


def candidates(ts: SegmentedTaskSet, search: str) -> Iterator[Candidate]:
    """The candidates of ``search`` (``part`` or ``part-exhaustive``) in the order they are tried (lazy)."""
    if search not in SEARCHES:
        raise InputError(f"search must be one of {', '.join(SEARCHES)}, got {search!r}", field="search")
    if ts.gpu is None:
        raise InputError("the set has no GPU description (gpu): nothing to partition", field="gpu")
    if not gpu_tasks(ts):
        yield Candidate((), (None,) * ts.n, ts.with_gpu(None), ())
        return
    yield from _heuristic(ts) if search == "part" else _exhaustive(ts)


@dataclass(frozen=True)
class Search:
    """Outcome of a search: verdict, the accepted candidate (or the first analysed one), counts."""

    verdict: Verdict
    chosen: Candidate | None
    first: Candidate | None
    considered: int
    analysed: int
    exhausted: bool


@dataclass(frozen=True)
class Inner:
    """The inner analysis a search decides its derived sets with: its three layers with every option bound.

    ``name`` is the inner registry entry (e.g. ``seg-gcaps-suspend``), ``label`` the protocol as
    the explanations name it; ``reference(ts, m)``, ``explain(ts, m)`` and ``codes(batch, m)``
    are the entry's layers (:mod:`.partitions_preemptive` builds them for GCAPS and TSG).
    """

    name: str
    label: str
    reference: Callable[[SegmentedTaskSet, int], Verdict]
    explain: Callable[[SegmentedTaskSet, int], Explanation]
    codes: Callable[[SegmentedBatch, int], NDArray[np.int8]]


def locking_inner(mode: WaitMode, protocol: str) -> Inner:
    """The lock-based inner analysis (``seg-mpcp-*`` / ``seg-fmlp-*``) of ``protocol`` under ``mode``."""
    short = "mpcp" if protocol == "mpcp" else "fmlp"
    return Inner(
        f"seg-{short}-{mode}",
        _locking._NAMES[_locking.PROTOCOLS[protocol]],
        functools.partial(_locking.reference, mode=mode, protocol=protocol),
        functools.partial(_locking.explain, mode=mode, protocol=protocol),
        lambda batch, m: _locking.locking_codes(batch, m, mode, protocol),
    )


def _inner_key(inner: Inner) -> tuple[Any, ...]:
    # What the inner analysis computes: its name and its reference function with the options bound
    # (``functools.partial`` objects compare by identity, so their function and keywords are used).
    ref = inner.reference
    if isinstance(ref, functools.partial):
        return (inner.name, ref.func, ref.args, tuple(sorted(ref.keywords.items())))
    return (inner.name, ref)


#: The last searches (:func:`search_with`): ``rtsched check`` asks the reference for the verdict
#: and then :func:`explain_with` for the evidence, each running the same search (on the MIG
#: example, 0.15 s each for the 40 searches of a check). Keyed by the set (equal sets: equal
#: tasks, name, GPU and driver), m, the inner analysis, the search and its budget.
_SEARCHES: OrderedDict[tuple[Any, ...], Search] = OrderedDict()
_SEARCHES_KEPT = 256
_SEARCHES_LOCK = threading.Lock()


def search_with(ts: SegmentedTaskSet, m: int, inner: Inner, *, search: str, budget: int) -> Search:
    """The search with the inner analysis's reference: the first accepted candidate within ``budget``.

    Remembered for the last :data:`_SEARCHES_KEPT` searches (the verdict's search is the
    explanation's too).
    """
    ts.check_cores(m)  # as the inner analyses and codes do, whatever the candidates
    key = (ts, m, _inner_key(inner), search, budget)
    with _SEARCHES_LOCK:
        found = _SEARCHES.get(key)
        if found is not None:
            _SEARCHES.move_to_end(key)
            return found
    found = _search(ts, m, inner, search, budget)
    with _SEARCHES_LOCK:
        _SEARCHES[key] = found
        while len(_SEARCHES) > _SEARCHES_KEPT:
            _SEARCHES.popitem(last=False)
    return found


def _search(ts: SegmentedTaskSet, m: int, inner: Inner, search: str, budget: int) -> Search:
    considered = analysed = 0
    first = None
    for cand in candidates(ts, search):
        if considered >= budget:
            return Search(UNKNOWN_VERDICT, None, first, considered, analysed, False)
        considered += 1
        if cand.derived is None:
            continue
        first = first or cand
        analysed += 1
        if inner.reference(cand.derived, m) is True:
            return Search(True, cand, first, considered, analysed, False)
    return Search(False, None, first, considered, analysed, True)


def search(ts: SegmentedTaskSet, m: int, *, mode: WaitMode, protocol: str, search: str, budget: int) -> Search:
    """:func:`search_with` the lock-based inner analysis of ``protocol`` under ``mode``."""
    return search_with(ts, m, locking_inner(mode, protocol), search=search, budget=budget)


# ---------------------------------------------------------------------------------------------
# The three layers
# ---------------------------------------------------------------------------------------------


def reference_with(ts: SegmentedTaskSet, m: int, inner: Inner, budget: int | None, search_kind: str) -> Verdict:
    """(S) with any inner analysis: True iff some candidate within ``budget`` passes; "unknown" if it ran out."""
    if ts.gpu is None:
        return inner.reference(ts, m)
    budget = DEFAULT_BUDGETS[search_kind] if budget is None else budget
    return search_with(ts, m, inner, search=search_kind, budget=budget).verdict


def reference(
    ts: SegmentedTaskSet, m: int, budget: int | None = None, *, mode: WaitMode, protocol: str, search_kind: str
) -> Verdict:
    """(S): True iff some candidate within ``budget`` passes the inner reference; "unknown" if the budget ran out."""
    return reference_with(ts, m, locking_inner(mode, protocol), budget, search_kind)


def _text(sizes: Sequence[int]) -> str:
    return "+".join(map(str, sizes)) or "-"


def explain(
    ts: SegmentedTaskSet, m: int, budget: int | None = None, *, mode: WaitMode, protocol: str, search_kind: str
) -> Explanation:
    """The chosen layout and assignment, G_e' per segment, the inner analysis's per-task bounds and steps."""
    return explain_with(ts, m, locking_inner(mode, protocol), budget, search_kind)


def explain_with(
    ts: SegmentedTaskSet, m: int, inner_analysis: Inner, budget: int | None, search_kind: str
) -> Explanation:
    """:func:`explain` with any inner analysis (its explanation of the chosen derived set inside)."""
    what = f"{inner_analysis.label} on GPU partitions ({search_kind})"
    if ts.gpu is None:
        plain = inner_analysis.explain(ts, m)
        return Explanation(
            plain.verdict,
            f"{what}: no GPU description (gpu), nothing to partition: the inner analysis on the set as it is: "
            + plain.summary,
            {"partitioned": False, "inner": plain.evidence},
            plain.per_task,
            plain.steps,
        )
    gpu = ts.gpu
    budget = DEFAULT_BUDGETS[search_kind] if budget is None else budget
    found = search_with(ts, m, inner_analysis, search=search_kind, budget=budget)
    shown = found.chosen or found.first
    inner: Explanation | None = None
    if shown is not None and shown.derived is not None:
        inner = inner_analysis.explain(shown.derived, m)
    names = _names(ts, gpu, len(shown.sizes)) if shown is not None else []
    per_task: list[dict[str, Any]] = []
    for i, t in enumerate(ts):
        row: dict[str, Any] = {"task": ts.label(i)}
        p = None if shown is None else shown.assignment[i]
        row["partition"] = "-" if p is None else f"{names[p]} ({shown.sizes[p]} clusters)"  # type: ignore[union-attr]
        row["G_e"] = t.G_e
        if shown is not None and shown.derived is not None:
            row["G_e'"] = shown.derived[i].G_e
        if inner is not None:
            row.update({k: v for k, v in inner.per_task[i].items() if k not in row})
        per_task.append(row)
    inflated = [
        {
            "task": ts.label(x.task),
            "segment": x.segment,
            "partition": names[x.partition],
            "size": x.size,
            "C(s)": x.C,
            "f": None
            if x.f is None
            else (str(x.f.numerator) if x.f.denominator == 1 else f"{x.f.numerator}/{x.f.denominator}"),
            "G_e'": x.G_e,
        }
        for x in (shown.inflated if shown is not None else ())
    ]
    evidence: dict[str, Any] = {
        "partitioned": True,
        "clusters": gpu.clusters,
        "layout_space": gpu.layout,
        "interference": gpu.interference,
        "layout": None if shown is None else _text(shown.sizes),
        "sizes": None if shown is None else list(shown.sizes),
        "idle_clusters": None if shown is None else gpu.clusters - sum(shown.sizes),
        "assignment": None
        if shown is None
        else ", ".join(f"{ts.label(i)} → {names[a]}" for i, a in enumerate(shown.assignment) if a is not None),
        "inflated": inflated,
        "candidates_considered": found.considered,
        "candidates_analysed": found.analysed,
        "inner": None if inner is None else inner.evidence,
        # the inner bounds of the shown candidate (the accepted one, else the first analysed)
        "response_times": None if inner is None else inner.evidence.get("response_times"),
    }
    if found.verdict is True:
        assert shown is not None
        summary = (
            f"{what}: layout {_text(shown.sizes)} of {gpu.clusters} clusters "
            f"({count(len(shown.sizes), 'active partition')}), candidate {found.considered}: R ≤ D for every task"
        )
    elif found.verdict == UNKNOWN_VERDICT:
        summary = f"{what}: unknown: the budget of {count(budget, 'candidate')} ran out before a candidate passed"
    else:
        summary = (
            f"{what}: not proven: none of the {count(found.considered, 'candidate')} passes"
            + ("" if inner is None else f" (shown: the first analysed, layout {_text(shown.sizes)}: {inner.summary})")  # type: ignore[union-attr]
        )

    def steps() -> Iterator[Step | str]:
        yield Step(
            f"GPU {gpu.device}: {gpu.clusters} clusters, layout space {gpu.layout}, interference {gpu.interference}; "
            f"search {search_kind}, budget {count(budget, 'candidate')}"
        )
        yield Step(
            "(P): each partition a device; G_e' = ⌈C(s)·f(K − 1 | c)⌉, c the worst class on the other partitions"
        )
        yield Step(
            f"{count(found.considered, 'candidate')} considered, {found.analysed} analysed by the inner "
            f"analysis {inner_analysis.name}"
        )
        if shown is None:
            yield Step("no candidate could be analysed (a segment is not measured on any layout tried)")
            return
        label = "accepted candidate" if found.verdict is True else "first analysed candidate"
        yield Step(f"{label}: layout {_text(shown.sizes)}")
        for x in inflated:
            yield Step(
                f"  {x['task']} segment {x['segment']} on {x['partition']} ({x['size']} clusters): "
                f"G_e' = ⌈{x['C(s)']}·{x['f']}⌉ = {x[GE]}"
            )
        if inner is not None:
            yield Step("inner analysis of the derived set:")
            for step in as_steps(inner.steps):
                yield step if isinstance(step, Step) else Step(str(step))

    return Explanation(found.verdict, summary, evidence, per_task, steps)


def codes(
    batch: SegmentedBatch, m: int, budget: int | None = None, *, mode: WaitMode, protocol: str, search_kind: str
) -> NDArray[np.int8]:
    """Codes per set (1 accepted, 0 not proven, −1 budget ran out): the search in Python, candidates by the Numba kernel.

    Sets without a GPU description go to the inner kernel in one call; for the others the
    candidates are packed :data:`CHUNK` at a time into a batch for
    :func:`~rtsched.analyses.segmented._locking.locking_codes` (``prange``), stopping at the
    first accepted one: the same verdicts as :func:`reference`.
    """
    return codes_with(batch, m, locking_inner(mode, protocol), budget, search_kind)


def codes_with(batch: SegmentedBatch, m: int, inner: Inner, budget: int | None, search_kind: str) -> NDArray[np.int8]:
    """:func:`codes` with any inner analysis (its ``codes`` decides the candidates, :data:`CHUNK` at a time)."""
    budget = DEFAULT_BUDGETS[search_kind] if budget is None else budget
    out = np.empty(batch.n_sets, dtype=np.int8)
    sets = batch.tasksets()
    plain = [s for s, ts in enumerate(sets) if ts.gpu is None]
    if plain:
        sub = SegmentedBatch.from_tasksets([sets[s] for s in plain])
        out[plain] = inner.codes(sub, m)
    for s, ts in enumerate(sets):
        if ts.gpu is None:
            continue
        ts.check_cores(m)
        code = 0
        considered = 0
        pending: list[SegmentedTaskSet] = []
        source = candidates(ts, search_kind)
        done = False
        while not done:
            for cand in source:
                if considered >= budget:
                    code = -1
                    done = True
                    break
                considered += 1
                if cand.derived is not None:
                    pending.append(cand.derived)
                    if len(pending) == CHUNK:
                        break
            else:
                done = True
            if pending:
                got = inner.codes(SegmentedBatch.from_tasksets(pending), m)
                pending = []
                if np.any(got == 1):
                    code = 1
                    done = True
        out[s] = code
    return out


def _entry(protocol: str, mode: WaitMode, search_kind: str, order: float) -> Analysis:
    short = "mpcp" if protocol == "mpcp" else "fmlp"
    name = f"seg-{short}-{mode}-{search_kind}"
    heuristic = search_kind == "part"
    kw: dict[str, Any] = {"mode": mode, "protocol": protocol, "search_kind": search_kind}
    return Analysis(
        name=name,
        title=(
            f"{'MPCP' if protocol == 'mpcp' else 'FMLP+'} on GPU partitions, "
            f"{'heuristic' if heuristic else 'exhaustive'} layout and task-to-partition search "
            f"(rtsched's own; tasks without a mode: {mode})"
        ),
        kind="sufficient",
        policy=f"partitioned-fp-gpu-{protocol}",
        platform="identical",
        deadlines=("implicit", "constrained"),
        workload=SEGMENTED_TASKSETS,
        citation=CITATION,
        note=NOTE,
        reference=functools.partial(reference, **kw),
        explain=functools.partial(explain, **kw),
        codes=functools.partial(codes, **kw),
        featured=False,
        order=order,
        budget=DEFAULT_BUDGETS[search_kind],
        budget_unit="candidates (layout and task-to-partition assignment) considered",
        shares_kernels_with="seg-mpcp-busy",
    )


ANALYSES = tuple(
    _entry(protocol, mode, search_kind, base + 0.1 * k + (0.05 if search_kind != "part" else 0))
    for base, protocol in ((12, "mpcp"), (22, "fmlp+"))
    for k, mode in enumerate(_MODES)
    for search_kind in SEARCHES
)
