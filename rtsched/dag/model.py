"""The sporadic DAG task model: :class:`DAGTask`, :class:`DAGTaskSet` and :class:`DAGBatch`.

A DAG task (Baruah et al., "A generalized parallel task model for recurrent real-time processes",
RTSS 2012) releases a job at least ``T`` ticks apart; each job is a directed acyclic graph of
vertices (sequential pieces of code, WCET ``C_v``) whose edges ``u → v`` say that ``v`` may start
only once ``u`` has completed, and the whole job must complete within ``D`` ticks of its release.
Definitions (volume, length, the series-parallel decomposition) are in papers/dag-model.md.

Time is integer ticks, as in :mod:`rtsched.model`: every WCET, ``T``, ``D`` and the volume (the
sum of a task's WCETs) are at most :data:`rtsched.model.MAX_TIME`, so that the product of any two
fits in ``int64``. Every derived quantity is an exact Python ``int`` or ``Fraction``.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Iterator, Sequence
from fractions import Fraction
from numbers import Integral
from typing import Any, NoReturn, TypeAlias

import numpy as np
from numpy.typing import ArrayLike, NDArray

from rtsched._tasksets import ObjectBatch, ObjectTaskSet
from rtsched.errors import InputError, TaskError
from rtsched.model import MAX_TIME, DeadlineModel, fraction_sum

__all__ = [
    "DEFAULT_TYPE",
    "MAX_VERTICES",
    "DAGBatch",
    "DAGTask",
    "DAGTaskSet",
    "SPTree",
]

#: The type of a vertex whose type is not given.
DEFAULT_TYPE = "cpu"
#: Largest number of vertices of one DAG task.
MAX_VERTICES = 2**16

#: A series-parallel decomposition tree: a vertex index, ``("S", first, then)`` (every vertex of
#: ``first`` precedes every vertex of ``then``) or ``("P", a, b)`` (no vertex of ``a`` is ordered
#: with any vertex of ``b``).
SPTree: TypeAlias = int | tuple[str, "SPTree", "SPTree"]


class _VertexError(TaskError):
    """A :class:`TaskError` that also knows the vertex or the edge (index as given) it is about.

    The file readers use the indices to find the line; everything else sees a TaskError.
    """

    vertex: int | None = None
    edge: int | None = None

    def located(self, **where: object) -> InputError:
        """A copy with more location information, keeping the vertex and the edge."""
        out = super().located(**where)
        out.vertex, out.edge = self.vertex, self.edge  # type: ignore[attr-defined]
        return out


def _fail(message: str, task: str | None, field: str, vertex: int | None = None, edge: int | None = None) -> NoReturn:
    err = _VertexError(message, task=task, field=field)
    err.vertex, err.edge = vertex, edge
    raise err


def _time(value: Any, what: str, task: str | None, field: str, vertex: int | None = None) -> int:
    """``value`` as an int in 1..MAX_TIME, or a TaskError naming ``what`` (e.g. "vertex v3: C")."""
    if type(value) is int and 1 <= value <= MAX_TIME:  # the common case, without the ABC checks (generators)
        return value
    if isinstance(value, bool) or not isinstance(value, Integral | np.integer):
        _fail(f"{what} must be a positive integer number of ticks, got {value!r}", task, field, vertex)
    number = int(value)
    if number < 1:
        _fail(f"{what} must be a positive integer, got {number}", task, field, vertex)
    if number > MAX_TIME:
        _fail(
            f"{what} = {number} is too large: at most {MAX_TIME} (2**31 − 1, the largest time value); use a coarser time unit",
            task,
            field,
            vertex,
        )
    return number


def _popcount(x: int) -> int:
    return x.bit_count()


def _bits(x: int) -> Iterator[int]:
    """The indices of the set bits of ``x``, increasing."""
    while x:
        low = x & -x
        yield low.bit_length() - 1
        x ^= low


class DAGTask:
    """A sporadic DAG task: vertex WCETs, precedence edges, period ``T`` and relative deadline ``D``.

    Immutable and validated at construction. Edges are kept sorted (``edges`` is the set of edges;
    the order they were given in does not matter); derived quantities are computed once, exactly.

    Parameters
    ----------
    wcets:
        The WCET of each vertex, integers in 1..MAX_TIME; vertex ``i`` is ``wcets[i]``.
    edges:
        Pairs ``(u, v)`` of vertex indices: ``v`` starts only after ``u`` completes. No self-loop,
        no edge twice, no cycle.
    T, D:
        Minimum inter-arrival time and relative deadline, integers in 1..MAX_TIME (``D <= T``:
        constrained deadline; ``D > T``: arbitrary).
    types:
        The type of each vertex (e.g. ``"cpu"``, ``"gpu"``); ``None`` means every vertex is
        ``"cpu"`` (a tuple of only ``"cpu"`` is stored as ``None``).
    name:
        Optional task name.
    vertex_names:
        Optional vertex names (unique; ``None`` for an unnamed vertex), e.g. the ids of a file.

    Raises
    ------
    TaskError
        Naming the task (its name), the field and the vertex of the first problem.

    Notes
    -----
    A length above ``D`` is allowed (the task can then meet no deadline, which analyses report);
    the volume must be at most MAX_TIME.

    Examples
    --------
    >>> tau = DAGTask([1, 2, 3, 1], [(0, 1), (0, 2), (1, 3), (2, 3)], T=10, D=8)
    >>> tau.volume, tau.length, tau.utilization
    (7, 5, Fraction(7, 10))
    """

    __slots__ = ("_wcets", "_edges", "_T", "_D", "_types", "_name", "_vertex_names", "_cache")

    _wcets: tuple[int, ...]
    _edges: tuple[tuple[int, int], ...]
    _T: int
    _D: int
    _types: tuple[str, ...] | None
    _name: str | None
    _vertex_names: tuple[str | None, ...] | None
    _cache: dict[str, Any]

    def __init__(
        self,
        wcets: Iterable[int],
        edges: Iterable[Sequence[int]],
        T: int,
        D: int,
        *,
        types: Iterable[str] | None = None,
        name: str | None = None,
        vertex_names: Iterable[str | None] | None = None,
    ) -> None:
        if name is not None and not isinstance(name, str):
            raise TaskError(f"a task name must be a string, got {name!r}", field="name")
        task = name
        wc = list(wcets)
        n = len(wc)
        if n == 0:
            raise TaskError("a DAG task needs at least one vertex", task=task, field="C")
        if n > MAX_VERTICES:
            raise TaskError(f"a DAG task may have at most {MAX_VERTICES} vertices, got {n}", task=task, field="C")
        vnames = self._check_vertex_names(vertex_names, n, task)

        def label(i: int) -> str:
            return f"v{i}" if vnames is None or vnames[i] is None else f"v{i} ({vnames[i]})"

        clean_wcets = tuple(_time(c, f"vertex {label(i)}: C", task, "C", i) for i, c in enumerate(wc))
        clean_T = _time(T, "T", task, "T")
        clean_D = _time(D, "D", task, "D")
        volume = sum(clean_wcets)
        if volume > MAX_TIME:
            raise TaskError(
                f"the volume ΣC = {volume} is too large: at most {MAX_TIME} (2**31 − 1, the largest time value); "
                "use a coarser time unit",
                task=task,
                field="C",
            )
        clean_edges, given = self._check_edges(edges, n, task, label)
        clean_types = self._check_types(types, n, task, label)
        for attr, value in (
            ("_wcets", clean_wcets),
            ("_edges", clean_edges),
            ("_T", clean_T),
            ("_D", clean_D),
            ("_types", clean_types),
            ("_name", name),
            ("_vertex_names", vnames),
            ("_cache", {"volume": volume}),
        ):
            object.__setattr__(self, attr, value)
        self._check_acyclic(label, given)

    # -- validation ---------------------------------------------------------------------------
    @staticmethod
    def _check_vertex_names(
        vertex_names: Iterable[str | None] | None, n: int, task: str | None
    ) -> tuple[str | None, ...] | None:
        if vertex_names is None:
            return None
        names = tuple(vertex_names)
        if len(names) != n:
            raise TaskError(f"{len(names)} vertex names for {n} vertices", task=task, field="vertex_names")
        seen: dict[str, int] = {}
        for i, nm in enumerate(names):
            if nm is None:
                continue
            if not isinstance(nm, str) or not nm:
                _fail(f"vertex v{i}: a vertex name must be a non-empty string, got {nm!r}", task, "vertex_names", i)
            if nm in seen:
                _fail(f"vertices v{seen[nm]} and v{i} are both named {nm!r}", task, "vertex_names", i)
            seen[nm] = i
        return names if seen else None

    @staticmethod
    def _check_edges(
        edges: Iterable[Sequence[int]], n: int, task: str | None, label: Any
    ) -> tuple[tuple[tuple[int, int], ...], dict[tuple[int, int], int]]:
        """The edges, sorted, and the position each was given at."""
        given: dict[tuple[int, int], int] = {}
        for k, edge in enumerate(edges):
            if type(edge) is tuple and len(edge) == 2:  # the common case, without the ABC checks (generators)
                u, v = edge
                if type(u) is int and type(v) is int and 0 <= u < n and 0 <= v < n and u != v and (u, v) not in given:
                    given[(u, v)] = k
                    continue
            if isinstance(edge, str | bytes) or not isinstance(edge, Sequence) or len(edge) != 2:
                _fail(f"edge {k}: expected a pair (u, v) of vertex indices, got {edge!r}", task, "edges", edge=k)
            ends: list[int] = []
            for end in edge:
                if isinstance(end, bool) or not isinstance(end, Integral | np.integer):
                    _fail(f"edge {k}: {end!r} is not a vertex index", task, "edges", edge=k)
                if not 0 <= int(end) < n:
                    _fail(
                        f"edge {k} goes to the unknown vertex v{int(end)} (the task has {n} vertices, v0..v{n - 1})",
                        task,
                        "edges",
                        edge=k,
                    )
                ends.append(int(end))
            u, v = ends
            if u == v:
                _fail(f"edge {label(u)} → {label(u)} is a self-loop", task, "edges", u, k)
            if (u, v) in given:
                _fail(
                    f"edge {label(u)} → {label(v)} is given twice (edges {given[(u, v)]} and {k})", task, "edges", u, k
                )
            given[(u, v)] = k
        return tuple(sorted(given)), given

    @staticmethod
    def _check_types(types: Iterable[str] | None, n: int, task: str | None, label: Any) -> tuple[str, ...] | None:
        if types is None:
            return None
        out = tuple(types)
        if len(out) != n:
            raise TaskError(f"{len(out)} vertex types for {n} vertices", task=task, field="types")
        for i, t in enumerate(out):
            if not isinstance(t, str) or not t:
                _fail(f"vertex {label(i)}: a type must be a non-empty string, got {t!r}", task, "types", i)
        return None if all(t == DEFAULT_TYPE for t in out) else out

    def _check_acyclic(self, label: Any, given: dict[tuple[int, int], int]) -> None:
        """Compute the topological order (Kahn, smallest index first) or name a cycle."""
        n = self.n
        succ = self.successors
        indegree = [len(p) for p in self.predecessors]
        ready = [v for v in range(n) if indegree[v] == 0]
        order: list[int] = []
        heapq.heapify(ready)
        while ready:
            u = heapq.heappop(ready)
            order.append(u)
            for v in succ[u]:
                indegree[v] -= 1
                if indegree[v] == 0:
                    heapq.heappush(ready, v)
        if len(order) < n:
            # Every vertex left has a predecessor left: walk backwards until a vertex repeats.
            left = {v for v in range(n) if indegree[v] > 0}
            walk, seen = [min(left)], {min(left): 0}
            while True:
                u = next(p for p in self.predecessors[walk[-1]] if p in left)
                if u in seen:
                    cycle = walk[seen[u] :][::-1]
                    break
                seen[u] = len(walk)
                walk.append(u)
            start = cycle.index(min(cycle))
            cycle = cycle[start:] + cycle[:start]
            path = " → ".join(label(v) for v in [*cycle, cycle[0]])
            _fail(f"edges form a cycle through {path}", self._name, "edges", cycle[0], given[(cycle[-1], cycle[0])])
        self._cache["topological_order"] = tuple(order)

    # -- data ---------------------------------------------------------------------------------
    @property
    def wcets(self) -> tuple[int, ...]:
        """The WCET of each vertex."""
        return self._wcets

    @property
    def edges(self) -> tuple[tuple[int, int], ...]:
        """The precedence edges ``(u, v)``, sorted."""
        return self._edges

    @property
    def T(self) -> int:
        """Minimum inter-arrival time (period)."""
        return self._T

    @property
    def D(self) -> int:
        """Relative deadline."""
        return self._D

    @property
    def types(self) -> tuple[str, ...] | None:
        """The vertex types, or ``None`` when every vertex is ``"cpu"``."""
        return self._types

    @property
    def name(self) -> str | None:
        """The task name, or ``None``."""
        return self._name

    @property
    def vertex_names(self) -> tuple[str | None, ...] | None:
        """The vertex names, or ``None`` when no vertex is named."""
        return self._vertex_names

    def vertex_type(self, v: int) -> str:
        """The type of vertex ``v`` (``"cpu"`` unless :attr:`types` says otherwise)."""
        return DEFAULT_TYPE if self._types is None else self._types[v]

    def vertex_label(self, v: int) -> str:
        """How vertex ``v`` is shown to a person: ``v3`` or ``v3 (decode)``."""
        nm = None if self._vertex_names is None else self._vertex_names[v]
        return f"v{v}" if nm is None else f"v{v} ({nm})"

    # -- structure ----------------------------------------------------------------------------
    @property
    def n(self) -> int:
        """Number of vertices."""
        return len(self._wcets)

    @property
    def successors(self) -> tuple[tuple[int, ...], ...]:
        """The direct successors of each vertex, increasing."""
        if "successors" not in self._cache:
            out: list[list[int]] = [[] for _ in self._wcets]
            for u, v in self._edges:
                out[u].append(v)
            self._cache["successors"] = tuple(tuple(s) for s in out)
        return self._cache["successors"]

    @property
    def predecessors(self) -> tuple[tuple[int, ...], ...]:
        """The direct predecessors of each vertex, increasing."""
        if "predecessors" not in self._cache:
            out: list[list[int]] = [[] for _ in self._wcets]
            for u, v in sorted(self._edges, key=lambda e: (e[1], e[0])):
                out[v].append(u)
            self._cache["predecessors"] = tuple(tuple(p) for p in out)
        return self._cache["predecessors"]

    @property
    def topological_order(self) -> tuple[int, ...]:
        """The vertices in topological order; among the ready vertices the smallest index comes first."""
        return self._cache["topological_order"]

    @property
    def sources(self) -> tuple[int, ...]:
        """The vertices without predecessors."""
        return tuple(v for v, p in enumerate(self.predecessors) if not p)

    @property
    def sinks(self) -> tuple[int, ...]:
        """The vertices without successors."""
        return tuple(v for v, s in enumerate(self.successors) if not s)

    def _reach(self) -> list[int]:
        """Bit masks: bit ``w`` of ``reach[v]`` is set iff a path of one edge or more leads from v to w."""
        if "reach" not in self._cache:
            reach = [0] * self.n
            succ = self.successors
            for v in reversed(self.topological_order):
                mask = 0
                for w in succ[v]:
                    mask |= (1 << w) | reach[w]
                reach[v] = mask
            self._cache["reach"] = reach
        return self._cache["reach"]

    def _below(self) -> list[int]:
        """Bit masks of the ancestors of each vertex (the transpose of :meth:`_reach`)."""
        if "below" not in self._cache:
            below = [0] * self.n
            pred = self.predecessors
            for v in self.topological_order:
                mask = 0
                for u in pred[v]:
                    mask |= (1 << u) | below[u]
                below[v] = mask
            self._cache["below"] = below
        return self._cache["below"]

    def descendants(self, v: int) -> frozenset[int]:
        """The vertices reachable from ``v`` by a path of at least one edge."""
        return frozenset(_bits(self._reach()[v]))

    def ancestors(self, v: int) -> frozenset[int]:
        """The vertices from which ``v`` is reachable by a path of at least one edge."""
        return frozenset(_bits(self._below()[v]))

    # -- derived quantities (exact) -----------------------------------------------------------
    @property
    def volume(self) -> int:
        """The volume vol = Σ_v C_v: the work of one job (its WCET on one processor)."""
        return self._cache["volume"]

    @property
    def length(self) -> int:
        """The length len: the largest Σ C_v over the vertices of a path (the critical path)."""
        if "length" not in self._cache:
            finish = [0] * self.n
            pred = self.predecessors
            for v in self.topological_order:
                finish[v] = self._wcets[v] + max((finish[u] for u in pred[v]), default=0)
            self._cache["length"] = max(finish)
        return self._cache["length"]

    def critical_path(self) -> tuple[int, ...]:
        """One longest path (by WCETs), source to sink; ties go to the smallest vertex index."""
        finish = [0] * self.n
        best: list[int | None] = [None] * self.n
        pred = self.predecessors
        for v in self.topological_order:
            before = max(pred[v], key=lambda u: (finish[u], -u), default=None)
            best[v] = before
            finish[v] = self._wcets[v] + (0 if before is None else finish[before])
        end: int | None = max(range(self.n), key=lambda v: (finish[v], -v))
        path = []
        while end is not None:
            path.append(end)
            end = best[end]
        return tuple(reversed(path))

    @property
    def utilization(self) -> Fraction:
        """Vol / T, exactly."""
        return Fraction(self.volume, self._T)

    @property
    def density(self) -> Fraction:
        """Vol / min(D, T), exactly."""
        return Fraction(self.volume, min(self._D, self._T))

    @property
    def deadline_kind(self) -> DeadlineModel:
        """``"implicit"`` (D = T), ``"constrained"`` (D < T) or ``"arbitrary"`` (D > T)."""
        if self._D == self._T:
            return "implicit"
        return "constrained" if self._D < self._T else "arbitrary"

    def transitive_reduction(self) -> DAGTask:
        """The task without redundant edges: ``u → v`` is dropped when another path leads from u to v.

        The result has the same vertices, reachability, volume and length; it is the unique
        smallest DAG with this reachability (Aho, Garey, Ullman 1972). ``self`` if no edge is
        redundant.
        """
        if "reduction" not in self._cache:
            reach = self._reach()
            succ = self.successors
            keep: list[tuple[int, int]] = []
            for u in range(self.n):
                through = 0
                for w in succ[u]:
                    through |= reach[w]
                keep.extend((u, v) for v in succ[u] if not (through >> v) & 1)
            if len(keep) == len(self._edges):
                self._cache["reduction"] = self
            else:
                self._cache["reduction"] = self.replace(edges=keep)
        return self._cache["reduction"]

    def series_parallel(self) -> SPTree | None:
        """The series-parallel decomposition tree, or ``None`` if the task is not series-parallel.

        The definition is the *vertex series-parallel* DAG of Valdes, Tarjan and Lawler (SIAM J.
        Comput. 11(2), 1982): a single vertex is series-parallel; so are the parallel composition
        of two (their disjoint union) and their series composition (every vertex of the first
        before every vertex of the second). A DAG is series-parallel iff its reachability order is
        generated this way, i.e. iff its transitive reduction is *minimal* vertex series-parallel
        (equivalently iff that order has no induced "N": a → c, b → c, b → d without a → d). So
        redundant edges never matter, and adding a single source and sink (before and after every
        vertex) does not change the answer; the tree has the task's own vertices only.

        Returns
        -------
        SPTree or None
            Nested tuples: a vertex index, ``("S", first, then)`` or ``("P", a, b)``. Chains of one
            kind are nested to the right (``("S", a, ("S", b, c))``); parallel branches are in the
            order of their smallest vertex, series parts in precedence order.
        """
        if "sp" not in self._cache:
            self._cache["sp"] = self._decompose((1 << self.n) - 1)
        return self._cache["sp"]

    def _decompose(self, members: int) -> SPTree | None:
        reach, below = self._reach(), self._below()
        if members & (members - 1) == 0:
            return members.bit_length() - 1
        comparable = [0] * self.n
        for v in _bits(members):
            comparable[v] = (reach[v] | below[v]) & members
        parts = _components(members, lambda v: comparable[v])
        kind = "P"
        if len(parts) == 1:
            parts = _components(members, lambda v: members & ~comparable[v] & ~(1 << v))
            if len(parts) == 1:
                return None  # the order is connected and so is its complement: an N inside
            kind = "S"
            parts.sort(key=lambda part: _popcount(below[(part & -part).bit_length() - 1] & members))
        else:
            parts.sort(key=lambda part: part & -part)
        trees = []
        for part in parts:
            tree = self._decompose(part)
            if tree is None:
                return None
            trees.append(tree)
        out = trees[-1]
        for tree in reversed(trees[:-1]):
            out = (kind, tree, out)
        return out

    # -- derived tasks ------------------------------------------------------------------------
    def replace(self, **changes: Any) -> DAGTask:
        """A copy with the given constructor arguments replaced (validated again)."""
        args: dict[str, Any] = {
            "wcets": self._wcets,
            "edges": self._edges,
            "T": self._T,
            "D": self._D,
            "types": self._types,
            "name": self._name,
            "vertex_names": self._vertex_names,
        }
        unknown = set(changes) - set(args)
        if unknown:
            raise TypeError(f"unknown DAGTask arguments: {', '.join(sorted(unknown))}")
        args.update(changes)
        wcets, edges, T, D = args.pop("wcets"), args.pop("edges"), args.pop("T"), args.pop("D")
        return DAGTask(wcets, edges, T, D, **args)

    # -- comparisons, immutability, pickling --------------------------------------------------
    def _key(self) -> tuple[Any, ...]:
        return (self._wcets, self._edges, self._T, self._D, self._types, self._name, self._vertex_names)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, DAGTask):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        if "hash" not in self._cache:
            self._cache["hash"] = hash(self._key())
        return self._cache["hash"]

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"DAGTask is immutable (cannot set {name!r})")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"DAGTask is immutable (cannot delete {name!r})")

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild_task, self._key())

    def __repr__(self) -> str:
        extra = "".join(
            f", {k}={v!r}"
            for k, v in (("types", self._types), ("name", self._name), ("vertex_names", self._vertex_names))
            if v is not None
        )
        return f"DAGTask({list(self._wcets)!r}, {list(self._edges)!r}, T={self._T}, D={self._D}{extra})"


def _rebuild_task(wcets: Any, edges: Any, T: Any, D: Any, types: Any, name: Any, vertex_names: Any) -> DAGTask:
    return DAGTask(wcets, edges, T, D, types=types, name=name, vertex_names=vertex_names)


def _components(members: int, neighbours: Any) -> list[int]:
    """The connected components (bit masks) of the graph on ``members`` given by ``neighbours(v)``."""
    parts = []
    left = members
    while left:
        frontier = left & -left
        part = 0
        while frontier:
            part |= frontier
            grow = 0
            for v in _bits(frontier):
                grow |= neighbours(v)
            frontier = grow & ~part
        parts.append(part)
        left &= ~part
    return parts


class DAGTaskSet(ObjectTaskSet[DAGTask]):
    """An immutable, hashable set of DAG tasks (a sequence: the order is the tasks' order).

    Parameters
    ----------
    tasks:
        The :class:`DAGTask` s, at least one.
    name:
        Optional name of the set (kept by the file formats but DOT).

    Examples
    --------
    >>> chain = DAGTask([2, 3], [(0, 1)], T=10, D=10)
    >>> DAGTaskSet([chain, chain]).utilization
    Fraction(1, 1)
    """

    __slots__ = ()

    _TASK = DAGTask
    _WHAT = "a DAG task set"
    _EXPECTED = "a DAGTask"

    def rows(self) -> list[tuple[int, int, int, int]]:
        """The tasks as ``[(volume, length, D, T), ...]`` of Python ints."""
        return [(t.volume, t.length, t.D, t.T) for t in self._tasks]

    @property
    def volume(self) -> int:
        """Σ vol over the tasks."""
        return sum(t.volume for t in self._tasks)

    @property
    def utilization(self) -> Fraction:
        """Total utilization Σ vol/T, exactly."""
        return fraction_sum(t.utilization for t in self._tasks)

    @property
    def density(self) -> Fraction:
        """Total density Σ vol/min(D, T), exactly."""
        return fraction_sum(t.density for t in self._tasks)

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild_set, (self._tasks, self._name))


def _rebuild_set(tasks: Any, name: Any) -> DAGTaskSet:
    return DAGTaskSet(tasks, name=name)


def _readonly(values: ArrayLike) -> NDArray[np.int64]:
    out = np.array(values, dtype=np.int64, copy=True, order="C")
    out.setflags(write=False)
    return out


#: The arrays of a :class:`DAGBatch`, in the order of its constructor.
_ARRAYS = ("C", "T", "D", "vertex_offsets", "edge_offsets", "src", "dst", "task_offsets", "vertex_type")


class DAGBatch(ObjectBatch[DAGTaskSet]):
    """Many DAG task sets in flat, read-only, C-contiguous ``int64`` arrays (structure of arrays).

    Task ``k`` (over all sets) has vertices ``vertex_offsets[k]:vertex_offsets[k + 1]`` of ``C``
    and ``vertex_type``, edges ``edge_offsets[k]:edge_offsets[k + 1]`` of ``src`` and ``dst``
    (task-local vertex indices), and ``T[k]``, ``D[k]``, ``volume[k]``, ``length[k]``. Set ``s``
    holds tasks ``task_offsets[s]:task_offsets[s + 1]``. ``vertex_type`` indexes ``type_names``
    (``type_names[0]`` is ``"cpu"``). Names (of sets, tasks and vertices) are not kept.

    Build it with :meth:`from_tasksets`; the constructor takes the arrays (``validate=True``
    rebuilds and checks every task, as a generator's output should be checked in its tests).
    """

    __slots__ = (
        "_C",
        "_T",
        "_D",
        "_vertex_offsets",
        "_edge_offsets",
        "_src",
        "_dst",
        "_task_offsets",
        "_vertex_type",
        "_type_names",
        "_volume",
        "_length",
    )

    _SET = DAGTaskSet

    def __init__(
        self,
        C: ArrayLike,
        T: ArrayLike,
        D: ArrayLike,
        vertex_offsets: ArrayLike,
        edge_offsets: ArrayLike,
        src: ArrayLike,
        dst: ArrayLike,
        task_offsets: ArrayLike,
        vertex_type: ArrayLike | None = None,
        type_names: Sequence[str] = (DEFAULT_TYPE,),
        *,
        validate: bool = True,
        _derived: tuple[ArrayLike, ArrayLike] | None = None,
    ) -> None:
        self._C = _readonly(C)
        self._T = _readonly(T)
        self._D = _readonly(D)
        self._vertex_offsets = _readonly(vertex_offsets)
        self._edge_offsets = _readonly(edge_offsets)
        self._src = _readonly(src)
        self._dst = _readonly(dst)
        self._task_offsets = _readonly(task_offsets)
        self._vertex_type = _readonly(np.zeros(self._C.shape, dtype=np.int64) if vertex_type is None else vertex_type)
        self._type_names = tuple(type_names)
        self._check_shapes()
        if validate:
            tasks = [self._task(k) for k in range(self.n_tasks)]  # each DAGTask validates itself
            self._volume = _readonly([t.volume for t in tasks])
            self._length = _readonly([t.length for t in tasks])
            if _derived is not None and not (
                np.array_equal(self._volume, np.asarray(_derived[0])) and np.array_equal(self._length, _derived[1])
            ):
                raise InputError("the given volumes or lengths differ from the tasks'")
        elif _derived is not None:
            self._volume, self._length = _readonly(_derived[0]), _readonly(_derived[1])
        else:
            tasks = [self._task(k) for k in range(self.n_tasks)]
            self._volume = _readonly([t.volume for t in tasks])
            self._length = _readonly([t.length for t in tasks])

    def _check_shapes(self) -> None:
        def offsets(arr: NDArray[np.int64], end: int, what: str) -> None:
            if arr.ndim != 1 or arr.shape[0] < 1 or arr[0] != 0 or arr[-1] != end or np.any(np.diff(arr) < 0):
                raise InputError(f"{what} must rise from 0 to {end}")

        for name in _ARRAYS:
            if getattr(self, "_" + name).ndim != 1:
                raise InputError(f"{name} must be one-dimensional")
        n_tasks = self._T.shape[0]
        if self._D.shape[0] != n_tasks:
            raise InputError("T and D must have one entry per task")
        if self._src.shape != self._dst.shape:
            raise InputError("src and dst must have one entry per edge")
        if self._vertex_type.shape != self._C.shape:
            raise InputError("vertex_type must have one entry per vertex")
        offsets(self._task_offsets, n_tasks, "task_offsets")
        offsets(self._vertex_offsets, self._C.shape[0], "vertex_offsets")
        offsets(self._edge_offsets, self._src.shape[0], "edge_offsets")
        if self._vertex_offsets.shape[0] != n_tasks + 1 or self._edge_offsets.shape[0] != n_tasks + 1:
            raise InputError("vertex_offsets and edge_offsets must have one entry per task, plus one")
        if np.any(np.diff(self._task_offsets) == 0):
            raise InputError(
                "a DAG task set needs at least one task",
                set_index=int(np.flatnonzero(np.diff(self._task_offsets) == 0)[0]),
            )
        if not self._type_names or len(set(self._type_names)) != len(self._type_names):
            raise InputError("type_names must be distinct names")
        if self._vertex_type.size and (self._vertex_type.min() < 0 or self._vertex_type.max() >= len(self._type_names)):
            raise InputError(f"vertex_type must index type_names (0..{len(self._type_names) - 1})")

    def _task(self, k: int) -> DAGTask:
        lo, hi = int(self._vertex_offsets[k]), int(self._vertex_offsets[k + 1])
        elo, ehi = int(self._edge_offsets[k]), int(self._edge_offsets[k + 1])
        codes = self._vertex_type[lo:hi]
        types = None if not codes.any() else [self._type_names[int(c)] for c in codes]
        try:
            return DAGTask(
                self._C[lo:hi].tolist(),
                zip(self._src[elo:ehi].tolist(), self._dst[elo:ehi].tolist(), strict=True),
                int(self._T[k]),
                int(self._D[k]),
                types=types,
            )
        except InputError as err:
            s = int(np.searchsorted(self._task_offsets, k, side="right") - 1)
            raise type(err)(err.message, set_index=s, task=k - int(self._task_offsets[s]), field=err.field) from None

    # -- constructors -------------------------------------------------------------------------
    @classmethod
    def from_tasksets(cls, sets: Iterable[DAGTaskSet]) -> DAGBatch:
        """Pack DAG task sets into one batch (names are not kept; types are, as codes)."""
        sets = list(sets)
        tasks = [t for ts in sets for t in ts]
        type_names = [DEFAULT_TYPE]
        for t in tasks:
            for ty in t.types or ():
                if ty not in type_names:
                    type_names.append(ty)
        code = {ty: j for j, ty in enumerate(type_names)}
        C: list[int] = []
        vtype: list[int] = []
        src: list[int] = []
        dst: list[int] = []
        for t in tasks:
            C.extend(t.wcets)
            vtype.extend(code[t.vertex_type(v)] for v in range(t.n))
            src.extend(u for u, _ in t.edges)
            dst.extend(v for _, v in t.edges)
        return cls(
            C,
            [t.T for t in tasks],
            [t.D for t in tasks],
            np.cumsum([0, *(t.n for t in tasks)]),
            np.cumsum([0, *(len(t.edges) for t in tasks)]),
            src,
            dst,
            np.cumsum([0, *(ts.n for ts in sets)]),
            vtype,
            type_names,
            validate=False,
            _derived=([t.volume for t in tasks], [t.length for t in tasks]),
        )

    # -- data ---------------------------------------------------------------------------------
    @property
    def C(self) -> NDArray[np.int64]:
        """Vertex WCETs, every task's vertices one task after the other."""
        return self._C

    @property
    def vertex_offsets(self) -> NDArray[np.int64]:
        """Task ``k``'s vertices are ``vertex_offsets[k]:vertex_offsets[k + 1]``."""
        return self._vertex_offsets

    @property
    def edge_offsets(self) -> NDArray[np.int64]:
        """Task ``k``'s edges are ``edge_offsets[k]:edge_offsets[k + 1]``."""
        return self._edge_offsets

    @property
    def src(self) -> NDArray[np.int64]:
        """Edge sources, task-local vertex indices."""
        return self._src

    @property
    def dst(self) -> NDArray[np.int64]:
        """Edge destinations, task-local vertex indices."""
        return self._dst

    @property
    def vertex_type(self) -> NDArray[np.int64]:
        """Type code of each vertex, an index into :attr:`type_names`."""
        return self._vertex_type

    @property
    def type_names(self) -> tuple[str, ...]:
        """The vertex types; code 0 is ``"cpu"``."""
        return self._type_names

    @property
    def volume(self) -> NDArray[np.int64]:
        """Volume of each task."""
        return self._volume

    @property
    def length(self) -> NDArray[np.int64]:
        """Length (critical path) of each task."""
        return self._length

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, DAGBatch):
            return NotImplemented
        return self._type_names == other._type_names and all(
            np.array_equal(getattr(self, "_" + a), getattr(other, "_" + a)) for a in _ARRAYS
        )

    __hash__ = None  # type: ignore[assignment]

    def __reduce__(self) -> tuple[Any, ...]:
        return (
            _rebuild_batch,
            (*(getattr(self, "_" + a) for a in _ARRAYS), self._type_names, self._volume, self._length),
        )

    def __repr__(self) -> str:
        return f"DAGBatch(n_sets={self.n_sets}, tasks={self.n_tasks}, vertices={self._C.shape[0]}, edges={self._src.shape[0]})"


def _rebuild_batch(*args: Any) -> DAGBatch:
    C, T, D, vertex_offsets, edge_offsets, src, dst, task_offsets, vertex_type, type_names, volume, length = args
    return DAGBatch(
        C,
        T,
        D,
        vertex_offsets,
        edge_offsets,
        src,
        dst,
        task_offsets,
        vertex_type,
        type_names,
        validate=False,
        _derived=(volume, length),
    )
