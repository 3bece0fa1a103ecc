"""Random DAG tasks and DAG task sets, seeded (issue #42, part 2); see ``papers/dag-generators.md``.

Graph shapes (each returns ``(wcets, edges)``: a list of integer vertex WCETs and a list of
edges ``(u, v)``; the vertex indices are a topological order, every edge has ``u < v``, and every
graph has exactly one source and one sink):

- :func:`fork_join` -- nested fork-join graphs, the recursive generator of the evaluation of
  Melani, Bertogna, Bonifaci, Marchetti-Spaccamela & Buttazzo, "Response-time analysis of
  conditional DAG tasks in multiprocessor systems", ECRTS 2015, without its conditional
  branches;
- :func:`gnp` -- Erdős–Rényi ``G(n, p)`` on vertices ordered by index, edges only forwards,
  between a dummy source and a dummy sink;
- :func:`layered` -- layer-by-layer random DAGs between a dummy source and a dummy sink.

Task sets (:func:`dag_tasksets`): per set, per-task utilizations with a fixed sum, one graph per
task, then ``T = ceil(volume / u_i)`` and ``D`` from the critical-path length; a graph whose
critical path is longer than ``T`` is redrawn. The exact rules are in the docstring of
:func:`dag_tasksets`.

Vertex types (:func:`vertex_types`; ``types=`` of :func:`dag_tasksets`) make typed DAG tasks for
heterogeneous platforms (CPU cores plus accelerator units, :class:`rtsched.platform.Typed`): each
vertex draws its type with given probabilities, except the sources and sinks, which are ``"cpu"``.

Every function takes a :class:`numpy.random.Generator` and draws only from it (never from a
global state): the output is a function of the generator's state and the arguments.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from rtsched.errors import InputError
from rtsched.generators.utilizations import randfixedsum, uunifast, uunifast_discard
from rtsched.model import MAX_TIME

if TYPE_CHECKING:
    from rtsched.dag import DAGTaskSet

__all__ = [
    "DAG_DEADLINES",
    "DAG_PRIORITY_ORDERS",
    "DAG_SHAPES",
    "DAG_UTILIZATION_METHODS",
    "Graph",
    "critical_path_length",
    "dag_tasksets",
    "fork_join",
    "gnp",
    "layered",
    "type_weights",
    "vertex_types",
]

#: A generated graph: vertex WCETs and edges ``(u, v)`` with ``u < v``.
Graph = tuple[list[int], list[tuple[int, int]]]

#: Shapes accepted by :func:`dag_tasksets` (``shape=``).
DAG_SHAPES = ("fork-join", "gnp", "layered")
#: Utilization samplers accepted by :func:`dag_tasksets` (``utilizations=``).
DAG_UTILIZATION_METHODS = ("uunifast", "uunifast-discard", "randfixedsum")
#: Deadline models accepted by :func:`dag_tasksets` (``deadlines=``).
DAG_DEADLINES = ("implicit", "constrained")
#: Orders of the tasks in a generated set (their fixed priorities, index 0 highest): as drawn, or
#: deadline-monotonic (shorter D first, ties in drawn order).
DAG_PRIORITY_ORDERS = ("drawn", "deadline-monotonic")

#: Default ``shape_params`` of :func:`dag_tasksets`, per shape.
DEFAULT_SHAPE_PARAMS: dict[str, dict[str, Any]] = {
    "fork-join": {"max_depth": 3, "max_branches": 5, "p_par": 0.6, "p_term": 0.4},
    "gnp": {"n": 20, "p": 0.1},
    "layered": {"layers": 5, "width": (1, 5), "p": 0.2},
}

#: Largest ``max_depth`` of :func:`fork_join` (the recursion is a Python recursion; graphs
#: nested this deep are astronomically large unless ``p_par`` is tiny).
MAX_FORK_JOIN_DEPTH = 64

#: WCET of the dummy source and sink vertices that :func:`gnp` and :func:`layered` add.
DUMMY_WCET = 1

#: The type of every source and sink vertex of a typed graph (:func:`vertex_types`): the host
#: type, rtsched's default vertex type (:data:`rtsched.dag.model.DEFAULT_TYPE`).
HOST_TYPE = "cpu"


# --------------------------------------------------------------------------------------------
# Argument checks
# --------------------------------------------------------------------------------------------
def _int(value: object, name: str, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < low:
        raise InputError(f"{name} must be an integer >= {low}, got {value!r}", field=name)
    return int(value)


def _probability(value: object, name: str) -> float:
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float | np.integer | np.floating)
        or not (math.isfinite(value) and 0 <= value <= 1)
    ):
        raise InputError(f"{name} must be a probability in [0, 1], got {value!r}", field=name)
    return float(value)


def _range(value: object, name: str, low: int) -> tuple[int, int]:
    if not (isinstance(value, Sequence) and len(value) == 2):
        raise InputError(f"{name} must be a pair (low, high) of integers, got {value!r}", field=name)
    lo, hi = _int(value[0], name, low), _int(value[1], name, low)
    if lo > hi:
        raise InputError(f"{name} = {value!r}: low exceeds high", field=name)
    return lo, hi


def _wcets(rng: np.random.Generator, n: int, wcet: tuple[int, int]) -> list[int]:
    """``n`` WCETs uniform on the integers of ``[wcet[0], wcet[1]]``, in one call on ``rng``."""
    lo, hi = wcet
    if hi > MAX_TIME:
        raise InputError(f"wcet upper bound must be at most {MAX_TIME}, got {hi}", field="wcet")
    return [int(c) for c in rng.integers(lo, hi, size=n, endpoint=True, dtype=np.int64)]


# --------------------------------------------------------------------------------------------
# Graph measures
# --------------------------------------------------------------------------------------------
def critical_path_length(wcets: Sequence[int], edges: Sequence[tuple[int, int]]) -> int:
    """The largest sum of WCETs along a path (the DAG's *length*), for edges with ``u < v``.

    The generators here number vertices in a topological order, so one pass in index order
    computes the longest path ending at each vertex.
    """
    preds: list[list[int]] = [[] for _ in wcets]
    for u, v in edges:
        if not u < v:
            raise InputError(f"edge ({u}, {v}) does not go from a lower to a higher index", field="edges")
        preds[v].append(u)
    finish = [0] * len(wcets)
    for v, c in enumerate(wcets):
        finish[v] = c + max((finish[u] for u in preds[v]), default=0)
    return max(finish, default=0)


def _with_source_and_sink(inner_wcets: list[int], inner_edges: list[tuple[int, int]]) -> Graph:
    """Shift the inner vertices by one and add a dummy source 0 and a dummy sink ``n + 1``.

    The source precedes every inner vertex without a predecessor, the sink follows every inner
    vertex without a successor; both have WCET :data:`DUMMY_WCET`.
    """
    n = len(inner_wcets)
    has_pred = [False] * n
    has_succ = [False] * n
    for u, v in inner_edges:
        has_succ[u] = True
        has_pred[v] = True
    edges = [(0, v + 1) for v in range(n) if not has_pred[v]]
    edges += [(u + 1, v + 1) for u, v in inner_edges]
    edges += [(u + 1, n + 1) for u in range(n) if not has_succ[u]]
    edges.sort()
    return [DUMMY_WCET, *inner_wcets, DUMMY_WCET], edges


# --------------------------------------------------------------------------------------------
# Nested fork-join (Melani et al., ECRTS 2015)
# --------------------------------------------------------------------------------------------
def fork_join(
    rng: np.random.Generator,
    *,
    max_depth: int,
    max_branches: int,
    p_par: float,
    p_term: float,
    wcet: tuple[int, int] = (1, 100),
    root_forks: bool = False,
) -> Graph:
    """A nested fork-join DAG drawn by the recursive expansion of Melani et al. (ECRTS 2015).

    Source: A. Melani, M. Bertogna, V. Bonifaci, A. Marchetti-Spaccamela, G. Buttazzo,
    "Response-time analysis of conditional DAG tasks in multiprocessor systems", ECRTS 2015,
    the generator of its evaluation, without its conditional expansion (this model has no
    conditional vertices). The recursion implemented, from a single node at depth 0::

        expand(d):
            if d < max_depth and U < p_par / (p_par + p_term):     # U ~ U[0, 1)
                b ~ uniform integer in {2, ..., max_branches}
                fork vertex; then expand(d + 1) b times (the branches, in order); join vertex
                edges: fork -> entry of every branch, exit of every branch -> join
            else:
                one terminal vertex (it is its own entry and exit)

    In the paper a node is terminal with probability ``p_term``, a parallel fork-join with
    probability ``p_par`` and a conditional one otherwise; here the conditional case is left out
    and the two others renormalised, i.e. each node's choice is the paper's conditioned on "not
    conditional" (``p_par + p_term = 1`` is the usual choice). A node at depth ``max_depth`` is
    always terminal, so fork-joins nest at most ``max_depth`` deep and every path has at most
    ``2 max_depth + 1`` vertices. With probability ``p_term / (p_par + p_term)`` the whole graph
    is one vertex.

    Draws, in order: the expansion, depth first (one uniform per node at depth ``< max_depth``,
    one integer per fork), then all WCETs in one call, in vertex order.

    Parameters
    ----------
    rng:
        The only source of randomness.
    max_depth:
        Largest nesting depth of fork-joins (``>= 0``; 0 gives a single vertex).
    max_branches:
        Largest number of branches of a fork (``>= 2``); the number is uniform on ``2..max_branches``.
    p_par, p_term:
        Weights of "parallel" and "terminal" (probabilities in ``[0, 1]``, ``p_par + p_term`` in
        ``(0, 1]``).
    wcet:
        Vertex WCETs are uniform integers in ``[wcet[0], wcet[1]]`` (``1 <= wcet[0] <= wcet[1]``).
    root_forks:
        When true (and ``max_depth >= 1``), the node at depth 0 always forks, as in the DAG
        survey library's re-implementation of this generator (Verucchi et al. 2023: every graph
        is a fork-join with at least 2 branches, never one vertex). The root's uniform is still
        drawn (and ignored), so the draws after it are the same as without the option.

    Returns
    -------
    Graph
        ``(wcets, edges)``. Vertex indices are a topological order (the fork before its branches,
        the join after them), so ``u < v`` for every edge; vertex 0 is the only source and the
        last vertex the only sink.
    """
    depth_limit = _int(max_depth, "max_depth", 0)
    if depth_limit > MAX_FORK_JOIN_DEPTH:
        raise InputError(f"max_depth must be at most {MAX_FORK_JOIN_DEPTH}, got {max_depth!r}", field="max_depth")
    branches = _int(max_branches, "max_branches", 2)
    par, term = _probability(p_par, "p_par"), _probability(p_term, "p_term")
    if not 0 < par + term <= 1 + 1e-12:
        raise InputError(f"p_par + p_term must be in (0, 1], got {par + term!r}", field="p_par")
    bounds = _range(wcet, "wcet", 1)
    q_par = par / (par + term)
    edges: list[tuple[int, int]] = []
    count = 0

    def expand(depth: int) -> tuple[int, int]:
        nonlocal count
        if depth < depth_limit and (rng.random() < q_par or (depth == 0 and root_forks)):
            b = int(rng.integers(2, branches, endpoint=True))
            fork = count
            count += 1
            ends = [expand(depth + 1) for _ in range(b)]
            join = count
            count += 1
            for entry, exit_ in ends:
                edges.append((fork, entry))
                edges.append((exit_, join))
            return fork, join
        vertex = count
        count += 1
        return vertex, vertex

    expand(0)
    edges.sort()
    return _wcets(rng, count, bounds), edges


# --------------------------------------------------------------------------------------------
# Erdős–Rényi G(n, p), ordered
# --------------------------------------------------------------------------------------------
def gnp(rng: np.random.Generator, *, n: int, p: float, wcet: tuple[int, int] = (1, 100)) -> Graph:
    """An Erdős–Rényi ``G(n, p)`` DAG between a dummy source and a dummy sink.

    The ``n`` inner vertices are ordered; each of the ``n (n - 1) / 2`` pairs ``i < j`` gets the
    edge ``i -> j`` independently with probability ``p`` (Erdős & Rényi's ``G(n, p)`` with the
    edges oriented by the order, so the graph is acyclic by construction; the usual way to draw
    random DAGs for DAG-task evaluations). Then a dummy source precedes every inner vertex
    without a predecessor and a dummy sink follows every inner vertex without a successor; both
    dummies have WCET 1 (always added, even when the inner graph already has one source or
    sink), so the graph has ``n + 2`` vertices, one source and one sink.

    Draws, in order: ``n (n - 1) / 2`` uniforms (the pairs in row-major order of the upper
    triangle), then the ``n`` inner WCETs in one call.

    Parameters
    ----------
    rng:
        The only source of randomness.
    n:
        Number of inner vertices (``>= 1``).
    p:
        Edge probability.
    wcet:
        Inner vertex WCETs are uniform integers in ``[wcet[0], wcet[1]]``.

    Returns
    -------
    Graph
        ``(wcets, edges)`` on ``n + 2`` vertices: 0 is the source, ``1..n`` the inner vertices
        in their order, ``n + 1`` the sink; ``u < v`` for every edge. The edges between inner
        vertices are exactly the ``G(n, p)`` edges (their number is Binomial(n (n - 1) / 2, p)).
    """
    size = _int(n, "n", 1)
    prob = _probability(p, "p")
    bounds = _range(wcet, "wcet", 1)
    rows, cols = np.triu_indices(size, k=1)
    keep = rng.random(rows.size) < prob
    inner_edges = [(int(u), int(v)) for u, v in zip(rows[keep], cols[keep], strict=True)]
    return _with_source_and_sink(_wcets(rng, size, bounds), inner_edges)


# --------------------------------------------------------------------------------------------
# Layered DAGs
# --------------------------------------------------------------------------------------------
def layered(
    rng: np.random.Generator,
    *,
    layers: int,
    width: int | tuple[int, int],
    p: float,
    wcet: tuple[int, int] = (1, 100),
) -> Graph:
    """A layered random DAG between a dummy source and a dummy sink.

    The layer-by-layer construction: ``layers`` layers of inner vertices; each pair of inner
    vertices ``(u, v)`` with ``u`` in an earlier layer than ``v`` gets the edge ``u -> v``
    independently with probability ``p``. Then every vertex outside the first layer that drew no
    predecessor *in the layer just before its own* gets one edge from a vertex chosen uniformly in
    that layer. So every vertex outside the first layer has a predecessor, and the longest path
    (in edges) from the first layer to a vertex of layer ``k`` (counting from 0) has exactly
    ``k`` edges: the layers are the graph's depth levels and the graph has ``layers`` of them. Finally, as in :func:`gnp`, a dummy source (WCET 1) precedes every vertex of
    the first layer (the inner vertices without a predecessor) and a dummy sink (WCET 1) follows
    every inner vertex without a successor.

    Draws, in order: the layer sizes (one call, if ``width`` is a range), one uniform per pair
    of vertices in different layers (row-major over the inner vertices), one integer per vertex
    that needed a predecessor from the previous layer (in vertex order), then the inner WCETs in one call.

    Parameters
    ----------
    rng:
        The only source of randomness.
    layers:
        Number of layers (``>= 1``).
    width:
        Vertices per layer: an integer (every layer that wide) or a pair ``(low, high)`` (each
        layer's width uniform on ``low..high``, ``low >= 1``).
    p:
        Edge probability between vertices of different layers.
    wcet:
        Inner vertex WCETs are uniform integers in ``[wcet[0], wcet[1]]``.

    Returns
    -------
    Graph
        ``(wcets, edges)``: vertex 0 is the source, then the inner vertices layer by layer, then
        the sink; ``u < v`` for every edge.
    """
    n_layers = _int(layers, "layers", 1)
    if isinstance(width, Sequence):
        lo, hi = _range(width, "width", 1)
    else:
        lo = hi = _int(width, "width", 1)
    prob = _probability(p, "p")
    bounds = _range(wcet, "wcet", 1)
    if lo == hi:
        sizes = np.full(n_layers, lo, dtype=np.int64)
    else:
        sizes = rng.integers(lo, hi, size=n_layers, endpoint=True, dtype=np.int64)
    layer_of = np.repeat(np.arange(n_layers), sizes)
    starts = np.concatenate(([0], np.cumsum(sizes)))
    n = int(starts[-1])
    rows, cols = np.triu_indices(n, k=1)
    across = layer_of[rows] < layer_of[cols]
    rows, cols = rows[across], cols[across]
    keep = rng.random(rows.size) < prob
    inner_edges = [(int(u), int(v)) for u, v in zip(rows[keep], cols[keep], strict=True)]
    # Vertices with a drawn edge from the layer just before theirs.
    fed = np.zeros(n, dtype=bool)
    fed[cols[keep & (layer_of[rows] == layer_of[cols] - 1)]] = True
    for v in range(int(starts[1]), n):
        if not fed[v]:
            k = int(layer_of[v])
            u = int(rng.integers(starts[k - 1], starts[k]))
            inner_edges.append((u, v))
    inner_edges.sort()
    return _with_source_and_sink(_wcets(rng, n, bounds), inner_edges)


# --------------------------------------------------------------------------------------------
# Vertex types (typed DAGs on heterogeneous platforms)
# --------------------------------------------------------------------------------------------
_TYPE_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")


def type_weights(types: Mapping[str, float]) -> tuple[tuple[str, float], ...]:
    """Check a mapping ``{type: weight}`` and return its ``(type, probability)`` pairs sorted by type name.

    Weights are finite numbers ``>= 0`` with a positive sum; they are divided by their sum (so
    ``{"cpu": 0.8, "gpu": 0.2}`` and ``{"cpu": 4, "gpu": 1}`` are the same). Type names are
    non-empty strings of letters, digits, ``_``, ``.`` and ``-`` (the names of
    :class:`rtsched.platform.Typed`). The order of the mapping does not matter.
    """
    if not isinstance(types, Mapping) or not types:
        raise InputError(
            f"types must be a non-empty mapping {{type: probability}}, e.g. {{'cpu': 0.8, 'gpu': 0.2}}, got {types!r}",
            field="types",
        )
    clean: dict[str, float] = {}
    for name, weight in types.items():
        if not isinstance(name, str) or not name or not set(name) <= _TYPE_NAME_CHARS:
            raise InputError(f"a vertex type must be a name such as cpu or gpu, got {name!r}", field="types")
        if (
            isinstance(weight, bool)
            or not isinstance(weight, int | float | np.integer | np.floating)
            or not (math.isfinite(weight) and weight >= 0)
        ):
            raise InputError(
                f"the probability of type {name!r} must be a finite number >= 0, got {weight!r}", field="types"
            )
        clean[name] = float(weight)
    total = math.fsum(clean.values())
    if not total > 0:
        raise InputError(f"the probabilities of the types sum to 0: {types!r}", field="types")
    return tuple((name, clean[name] / total) for name in sorted(clean))


def vertex_types(
    rng: np.random.Generator, n_vertices: int, edges: Sequence[tuple[int, int]], types: Mapping[str, float]
) -> list[str]:
    """Seeded vertex types of a graph: sources and sinks are ``"cpu"``, every other vertex draws its type.

    The rule: a vertex without a predecessor (a source) or without a successor (a sink) is of
    type ``HOST_TYPE`` (``"cpu"``: the host releases the job and collects its results; the
    dummy source and sink of :func:`gnp` and :func:`layered` are bookkeeping, not accelerator
    work); every other vertex independently takes type ``s`` with probability
    ``types[s] / sum(types.values())``. So a one-vertex graph is all ``"cpu"``, a typed graph
    always uses the host type, and a type of ``types`` may be absent from a graph (nothing
    forces every type to appear). ``"cpu"`` need not be a key of ``types``
    (``{"gpu": 1}`` puts every inner vertex on the accelerator).

    Draws: ``n_vertices`` uniforms ``u_v`` in one call (sources and sinks draw theirs too, and
    ignore it); vertex ``v`` takes the first type ``s_k``, in the sorted order of type names, with
    ``u_v < p_1 + ... + p_k`` (the last bound taken as 1).

    Parameters
    ----------
    rng:
        The only source of randomness.
    n_vertices:
        The number of vertices (``>= 1``).
    edges:
        The graph's edges ``(u, v)`` (any order; only which vertices have a predecessor or a
        successor matters).
    types:
        ``{type: weight}`` (:func:`type_weights`).

    Returns
    -------
    list of str
        The type of each vertex, in vertex order.
    """
    return _draw_types(rng, _int(n_vertices, "n_vertices", 1), edges, type_weights(types))


def _draw_types(
    rng: np.random.Generator, n: int, edges: Sequence[tuple[int, int]], pairs: tuple[tuple[str, float], ...]
) -> list[str]:
    """:func:`vertex_types` on checked ``(type, probability)`` pairs (:func:`type_weights`)."""
    names = [name for name, _ in pairs]
    bounds = np.cumsum([p for _, p in pairs])
    bounds[-1] = 1.0
    u = rng.random(n)
    picks = np.searchsorted(bounds, u, side="right")
    out = [names[min(int(k), len(names) - 1)] for k in picks]
    has_pred = [False] * n
    has_succ = [False] * n
    for a, b in edges:
        if not (0 <= a < n and 0 <= b < n):
            raise InputError(f"edge ({a}, {b}) names a vertex outside 0..{n - 1}", field="edges")
        has_succ[a] = True
        has_pred[b] = True
    for v in range(n):
        if not has_pred[v] or not has_succ[v]:
            out[v] = HOST_TYPE
    return out


# --------------------------------------------------------------------------------------------
# Task sets
# --------------------------------------------------------------------------------------------
_SHAPES: dict[str, Callable[..., Graph]] = {"fork-join": fork_join, "gnp": gnp, "layered": layered}


def _period(volume: int, u: float) -> int | None:
    """``ceil(volume / u)`` exactly (``u`` taken as the exact rational value of the float), or ``None`` if above MAX_TIME."""
    if not u > 0:
        return None
    num, den = float(u).as_integer_ratio()  # u = num / den exactly, so volume / u = volume * den / num
    period = -(-volume * den // num)
    return period if period <= MAX_TIME else None


def _draw_utilizations(rng: np.random.Generator, method: str, n: int, total: float, umax: float) -> list[float]:
    if method == "uunifast":
        row = uunifast(rng, n, total, 1)
    elif method == "uunifast-discard":
        row = uunifast_discard(rng, n, total, 1, umax)
    else:
        row = randfixedsum(rng, n, total, 1, 0.0, umax)
    return [float(u) for u in row[0]]


def dag_tasksets(
    rng: np.random.Generator,
    *,
    n_tasks: int,
    utilization: float,
    size: int,
    shape: str = "fork-join",
    shape_params: Mapping[str, Any] | None = None,
    utilizations: str = "uunifast",
    deadlines: str = "implicit",
    priorities: str = "drawn",
    umax: float = 1.0,
    max_tries: int = 100,
    types: Mapping[str, float] | None = None,
) -> list[DAGTaskSet]:
    """Generate ``size`` sets of ``n_tasks`` DAG tasks with total utilization close to ``utilization``.

    Per set ``s``, everything is drawn from the set's own child generator, ``rng.spawn(size)[s]``
    (numpy's :meth:`~numpy.random.Generator.spawn`: ``SeedSequence`` children ``0, 1, ...`` of
    ``rng``'s seed sequence), so the first sets do not depend on ``size``, and ``rng``'s own
    stream is not advanced (a second call on the same ``rng`` spawns new children and gives new
    sets). Within a set, in order:

    1. the per-task utilizations ``u_1..u_n``, summing to ``utilization``:

       - ``"uunifast"`` (Bini & Buttazzo 2005): uniform on the simplex; each ``u_i`` may exceed 1
         (up to ``utilization``), which a DAG task can have (it runs on several processors);
         ``umax`` is ignored;
       - ``"uunifast-discard"`` (Davis & Burns 2009) or ``"randfixedsum"`` (Emberson et al. 2010):
         uniform on the simplex cut by ``u_i <= umax``; ``umax`` may exceed 1 for DAG tasks
         (default 1: no task heavier than one processor);

    2. per task ``i``, a graph of the given ``shape`` (:func:`fork_join`, :func:`gnp` or
       :func:`layered`, with ``shape_params``), its volume ``vol`` (sum of WCETs) and length
       ``len`` (critical path), and the period ``T = ceil(vol / u_i)`` (exact integer
       arithmetic on the float ``u_i``). So ``T >= vol / u_i``: the realised utilization
       ``vol / T`` is at most ``u_i`` and above ``u_i - u_i / T``; the set's realised total
       ``sum vol_i / T_i`` is at most ``utilization`` and above ``utilization - sum u_i / T_i``
       (``>= utilization (1 - 1 / min T_i)``). The loss is small for large volumes and not for
       tiny ones (a one-vertex graph of WCET 9 with ``u = 0.81`` gets ``T = 12``, ``vol / T = 0.75``);
    3. **redraw rule**: if ``len > T`` (no deadline ``D <= T`` could fit the critical path; only
       possible when ``u_i > 1``, since ``len <= vol <= T`` otherwise), the graph is redrawn,
       up to ``max_tries`` graphs per task; then an :class:`~rtsched.errors.InputError` is
       raised. This conditions each graph on ``len <= ceil(vol / u_i)``, i.e. on a parallelism
       ``vol / len`` of about ``u_i`` or more;
    4. the deadline: ``D = T`` (``"implicit"``) or ``D`` uniform on the integers of
       ``[len, T]`` (``"constrained"``), so ``len <= D <= T``.

    A set in which some ``T`` would exceed ``MAX_TIME`` (``2**31 - 1``; a tiny ``u_i``) is drawn
    again from step 1 with the same child generator, up to ``max_tries`` times.

    **Vertex types** (``types``, e.g. ``{"cpu": 0.8, "gpu": 0.2}``): each task's vertices get types
    by :func:`vertex_types` (sources and sinks ``"cpu"``, every other vertex a type drawn with the
    given probabilities), drawn from a stream of their own: the set's child generator spawns one
    grandchild (``child.spawn(1)[0]``, which does not advance the child's own stream) and each
    task, once its graph, period and deadline are final, draws its types from it, task after
    task. So a typed set has exactly the graphs, periods and deadlines of the untyped set of the
    same seed, only the types are added; and without ``types`` the draws are those of the
    generator before the option existed.

    Parameters
    ----------
    rng:
        The only source of randomness (it must have a seed sequence, as ``default_rng`` gives).
    n_tasks:
        Tasks per set.
    utilization:
        Target total utilization (a positive number; may exceed 1 and the number of tasks
        with ``"uunifast"``).
    size:
        Number of sets.
    shape:
        ``"fork-join"``, ``"gnp"`` or ``"layered"``.
    shape_params:
        Keyword arguments of the shape function (without ``rng``); the missing ones default to
        ``DEFAULT_SHAPE_PARAMS`` of the shape.
    utilizations:
        ``"uunifast"``, ``"uunifast-discard"`` or ``"randfixedsum"``.
    deadlines:
        ``"implicit"`` or ``"constrained"``.
    priorities:
        The order of the tasks in each set, which is their fixed priority (index 0 highest) for
        the global FP analyses and simulator: ``"drawn"`` (as drawn) or ``"deadline-monotonic"``
        (sorted by D, stable; as the DAG survey of Verucchi et al. orders tasks for its G-FP
        tests). The order takes no random draw, so both give the same tasks.
    umax:
        Per-task utilization bound of ``"uunifast-discard"`` and ``"randfixedsum"``.
    max_tries:
        Graph draws per task (and utilization draws per set) before giving up.
    types:
        ``{type: probability}`` of the vertices that are neither sources nor sinks (weights are
        normalised; :func:`type_weights`), or ``None`` (the default): no types, every vertex
        ``"cpu"`` (:attr:`rtsched.dag.DAGTask.types` is ``None``).

    Returns
    -------
    list of DAGTaskSet
        ``size`` sets of ``n_tasks`` :class:`~rtsched.dag.DAGTask` each.

    Raises
    ------
    InputError
        For a bad argument, or when ``max_tries`` draws did not give a graph whose critical path
        fits its period.
    """
    n = _int(n_tasks, "n_tasks", 1)
    count = _int(size, "size", 0)
    tries = _int(max_tries, "max_tries", 1)
    if shape not in _SHAPES:
        raise InputError(f"unknown DAG shape {shape!r}; choose one of {', '.join(DAG_SHAPES)}", field="shape")
    if utilizations not in DAG_UTILIZATION_METHODS:
        raise InputError(
            f"unknown utilization method {utilizations!r}; choose one of {', '.join(DAG_UTILIZATION_METHODS)}",
            field="utilizations",
        )
    if deadlines not in DAG_DEADLINES:
        raise InputError(
            f"unknown deadline model {deadlines!r}; choose one of {', '.join(DAG_DEADLINES)}", field="deadlines"
        )
    if priorities not in DAG_PRIORITY_ORDERS:
        raise InputError(
            f"unknown priority order {priorities!r}; choose one of {', '.join(DAG_PRIORITY_ORDERS)}", field="priorities"
        )
    for value, name in ((utilization, "utilization"), (umax, "umax")):
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float | np.integer | np.floating)
            or not (math.isfinite(value) and value > 0)
        ):
            raise InputError(f"{name} must be a positive finite number, got {value!r}", field=name)
    weights = None if types is None else type_weights(types)
    params = {**DEFAULT_SHAPE_PARAMS[shape], **(shape_params or {})}
    draw_graph = _SHAPES[shape]
    draw_graph(np.random.default_rng(0), **params)  # check the parameters once, before any set
    total = float(utilization)
    # Imported here, not at the top: the graph shapes above do not need the task model.
    from rtsched.dag import DAGTask, DAGTaskSet

    sets: list[DAGTaskSet] = []
    for s, child in enumerate(rng.spawn(count)):
        # The types' own stream: spawning does not advance ``child``, so the graphs, periods and
        # deadlines are the same with and without types.
        type_rng = child.spawn(1)[0] if weights is not None else None
        for _ in range(tries):
            us = _draw_utilizations(child, utilizations, n, total, float(umax))
            tasks = []
            for i, u in enumerate(us):
                for _ in range(tries):
                    wcets, edges = draw_graph(child, **params)
                    volume = sum(wcets)
                    period = _period(volume, u)
                    if period is None:
                        break
                    length = critical_path_length(wcets, edges)
                    if length <= period:
                        break
                else:
                    raise InputError(
                        f"set {s}, task {i}: {tries} {shape} graphs drawn for utilization u = {u:.6g}, and the "
                        f"critical path of every one exceeded its period ceil(volume / u) (the last: volume "
                        f"{volume}, length {length}, T = {period}); ask for less utilization per task "
                        "(more tasks, umax, a lower total) or more parallel graphs, or raise max_tries",
                        set_index=s,
                        task=i,
                        field="max_tries",
                    )
                if period is None:
                    break  # T above MAX_TIME: draw the set again
                deadline = period if deadlines == "implicit" else int(child.integers(length, period, endpoint=True))
                kinds = None
                if type_rng is not None and weights is not None:
                    kinds = _draw_types(type_rng, len(wcets), edges, weights)
                tasks.append(DAGTask(wcets, edges, period, deadline, types=kinds))
            else:
                if priorities == "deadline-monotonic":
                    tasks.sort(key=lambda task: task.D)  # stable: equal deadlines keep the drawn order
                sets.append(DAGTaskSet(tasks))
                break
        else:
            raise InputError(
                f"set {s}: {tries} utilization vectors drawn, each with a task whose period ceil(volume / u) "
                f"exceeds {MAX_TIME}; raise the utilization per task",
                set_index=s,
                field="utilization",
            )
    return sets
