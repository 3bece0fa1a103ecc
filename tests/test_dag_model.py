"""Tests of rtsched.dag.model: DAGTask, DAGTaskSet, DAGBatch (papers/dag-model.md).

Worked examples (volume, length, transitive reduction, series-parallel decomposition), one test
per validation error (a TaskError naming task, field and vertex), and properties on random DAGs
built valid by construction (edges only from a lower to a higher index).
"""

from __future__ import annotations

import itertools
import pickle
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rtsched.dag import DAGBatch, DAGTask, DAGTaskSet
from rtsched.errors import InputError, TaskError
from rtsched.model import MAX_TIME

# -- worked examples (papers/dag-model.md) ------------------------------------------------------

#: The note's fork-join: v0 forks into v1, v2, v3, which join in v4.
FORK_JOIN = DAGTask([1, 3, 2, 4, 1], [(0, 1), (0, 2), (0, 3), (1, 4), (2, 4), (3, 4)], T=20, D=15, name="fj")


def test_fork_join_worked_example():
    assert FORK_JOIN.n == 5
    assert FORK_JOIN.volume == 11
    assert FORK_JOIN.length == 6  # v0 → v3 → v4: 1 + 4 + 1
    assert FORK_JOIN.critical_path() == (0, 3, 4)
    assert FORK_JOIN.utilization == Fraction(11, 20)
    assert FORK_JOIN.density == Fraction(11, 15)
    assert FORK_JOIN.deadline_kind == "constrained"
    assert FORK_JOIN.topological_order == (0, 1, 2, 3, 4)
    assert FORK_JOIN.sources == (0,) and FORK_JOIN.sinks == (4,)
    assert FORK_JOIN.series_parallel() == ("S", 0, ("S", ("P", 1, ("P", 2, 3)), 4))
    assert FORK_JOIN.transitive_reduction() is FORK_JOIN


def test_transitive_reduction_drops_only_redundant_edges():
    redundant = FORK_JOIN.replace(edges=[*FORK_JOIN.edges, (0, 4)])
    assert (0, 4) in redundant.edges
    reduced = redundant.transitive_reduction()
    assert reduced == FORK_JOIN
    assert reduced.length == redundant.length == 6
    # A chain with every shortcut: only the chain remains.
    chain = DAGTask([1, 1, 1, 1], list(itertools.combinations(range(4), 2)), T=10, D=10)
    assert chain.transitive_reduction().edges == ((0, 1), (1, 2), (2, 3))
    assert chain.series_parallel() == ("S", 0, ("S", 1, ("S", 2, 3)))


def test_series_parallel_nested_fork_join():
    # v0 forks into v1 and v2; v1 forks into v3, v4, which join in v5; v5 and v2 join in v6.
    tau = DAGTask([1] * 7, [(0, 1), (0, 2), (1, 3), (1, 4), (3, 5), (4, 5), (5, 6), (2, 6)], T=10, D=10)
    assert tau.series_parallel() == ("S", 0, ("S", ("P", ("S", 1, ("S", ("P", 3, 4), 5)), 2), 6))
    # Redundant edges change nothing.
    assert tau.replace(edges=[*tau.edges, (0, 6), (1, 6)]).series_parallel() == tau.series_parallel()


def test_n_graph_is_not_series_parallel():
    n_graph = DAGTask([1, 1, 1, 1], [(0, 2), (1, 2), (1, 3)], T=10, D=10)
    assert n_graph.series_parallel() is None
    # A single source and sink around it do not help.
    closed = DAGTask([1] * 6, [(4, 0), (4, 1), (0, 2), (1, 2), (1, 3), (2, 5), (3, 5)], T=10, D=10)
    assert closed.series_parallel() is None
    # The N closed by its fourth edge (a → d) is series-parallel: P(a, b) then P(c, d).
    full = DAGTask([1, 1, 1, 1], [(0, 2), (1, 2), (1, 3), (0, 3)], T=10, D=10)
    assert full.series_parallel() == ("S", ("P", 0, 1), ("P", 2, 3))


def test_independent_vertices_and_single_vertex():
    assert DAGTask([5], [], T=10, D=10).series_parallel() == 0
    flat = DAGTask([2, 3, 4], [], T=10, D=12)
    assert flat.series_parallel() == ("P", 0, ("P", 1, 2))
    assert (flat.volume, flat.length, flat.deadline_kind) == (9, 4, "arbitrary")
    assert flat.density == Fraction(9, 10)


def test_edge_order_does_not_matter_and_types_default_to_cpu():
    a = DAGTask([1, 2, 3], [(1, 2), (0, 1)], T=5, D=5)
    b = DAGTask([1, 2, 3], [(0, 1), (1, 2)], T=5, D=5, types=["cpu", "cpu", "cpu"])
    assert a == b and hash(a) == hash(b) and b.types is None
    c = DAGTask([1, 2, 3], [(0, 1), (1, 2)], T=5, D=5, types=["cpu", "gpu", "cpu"])
    assert c != a and c.vertex_type(1) == "gpu" and c.deadline_kind == "implicit"


def test_immutable_and_picklable():
    with pytest.raises(AttributeError):
        FORK_JOIN.T = 3  # type: ignore[misc]
    with pytest.raises(AttributeError):
        del FORK_JOIN.wcets  # type: ignore[misc]
    assert pickle.loads(pickle.dumps(FORK_JOIN)) == FORK_JOIN
    named = DAGTask([1, 2], [(0, 1)], 4, 4, types=["gpu", "cpu"], vertex_names=["a", None], name="n")
    assert pickle.loads(pickle.dumps(named)) == named
    assert eval(repr(named), {"DAGTask": DAGTask}) == named


# -- validation: one clear error per problem ---------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "field", "words"),
    [
        ({"wcets": [1, 2.5, 1]}, "C", ["vertex v1", "positive integer", "2.5"]),
        ({"wcets": [1, 0, 1]}, "C", ["vertex v1", "positive integer, got 0"]),
        ({"wcets": [1, True, 1]}, "C", ["vertex v1", "True"]),
        ({"wcets": [1, "3", 1]}, "C", ["vertex v1", "'3'"]),
        ({"wcets": [1, MAX_TIME + 1, 1]}, "C", ["vertex v1", "too large"]),
        ({"wcets": [MAX_TIME, MAX_TIME, 1]}, "C", ["volume", "too large"]),
        ({"wcets": []}, "C", ["at least one vertex"]),
        ({"edges": [(0, 7)]}, "edges", ["unknown vertex v7", "3 vertices"]),
        ({"edges": [(0, -1)]}, "edges", ["unknown vertex v-1"]),
        ({"edges": [(0, 1.5)]}, "edges", ["1.5", "not a vertex index"]),
        ({"edges": [(0, 1, 2)]}, "edges", ["edge 0", "pair"]),
        ({"edges": [(1, 1)]}, "edges", ["v1 → v1", "self-loop"]),
        ({"edges": [(0, 1), (0, 1)]}, "edges", ["v0 → v1", "twice"]),
        ({"edges": [(0, 1), (1, 2), (2, 1)]}, "edges", ["cycle through v1 → v2 → v1"]),
        ({"T": 0}, "T", ["T must be a positive integer, got 0"]),
        ({"D": -3}, "D", ["D must be a positive integer, got -3"]),
        ({"D": 2.0}, "D", ["D must be a positive integer"]),
        ({"T": MAX_TIME + 1}, "T", ["too large"]),
        ({"types": ["cpu", "gpu"]}, "types", ["2 vertex types for 3 vertices"]),
        ({"types": ["cpu", "", "gpu"]}, "types", ["vertex v1", "type"]),
        ({"vertex_names": ["a", "b"]}, "vertex_names", ["2 vertex names"]),
        ({"vertex_names": ["a", "b", "a"]}, "vertex_names", ["v0 and v2", "'a'"]),
    ],
)
def test_each_validation_error_names_task_field_and_vertex(kwargs, field, words):
    args = {"wcets": [1, 2, 3], "edges": [(0, 1)], "T": 10, "D": 10} | kwargs
    with pytest.raises(TaskError) as info:
        DAGTask(args.pop("wcets"), args.pop("edges"), args.pop("T"), args.pop("D"), name="tau", **args)
    err = info.value
    assert err.task == "tau" and err.field == field
    text = str(err)
    assert text.startswith(f"task tau, field {field}: ")
    assert "\n" not in text
    for word in words:
        assert word in text


def test_cycle_message_names_vertices_by_name():
    with pytest.raises(TaskError, match=r"cycle through v1 \(b\) → v2 \(c\) → v1 \(b\)"):
        DAGTask([1, 1, 1], [(0, 1), (1, 2), (2, 1)], 9, 9, vertex_names=["a", "b", "c"])


def test_a_longer_cycle_is_named_whole():
    with pytest.raises(TaskError, match=r"cycle through v3 → v5 → v6 → v3"):
        DAGTask([1] * 7, [(0, 3), (3, 5), (5, 6), (6, 3), (1, 2)], 9, 9)


# -- DAGTaskSet -------------------------------------------------------------------------------


def test_taskset():
    other = DAGTask([2, 2], [(0, 1)], T=10, D=12, name="b")
    ts = DAGTaskSet([FORK_JOIN, other], name="demo")
    assert ts.n == len(ts) == 2 and ts[1] is other and list(ts) == [FORK_JOIN, other]
    assert ts.utilization == Fraction(11, 20) + Fraction(4, 10)
    assert ts.density == Fraction(11, 15) + Fraction(4, 10)
    assert ts.deadline_kind == "arbitrary"
    assert ts.rows() == [(11, 6, 15, 20), (4, 4, 12, 10)]
    assert ts.names == ("fj", "b") and ts.label(1) == "τ1 (b)"
    assert ts == DAGTaskSet([FORK_JOIN, other], name="demo") != DAGTaskSet([FORK_JOIN, other])
    assert len({ts, DAGTaskSet([FORK_JOIN, other], name="demo")}) == 1
    assert pickle.loads(pickle.dumps(ts)) == ts
    assert ts[:1] == DAGTaskSet([FORK_JOIN], name="demo")
    assert DAGTaskSet([FORK_JOIN.replace(D=20)]).deadline_kind == "implicit"
    with pytest.raises(InputError, match="at least one task"):
        DAGTaskSet([])
    with pytest.raises(TaskError, match="expected a DAGTask") as info:
        DAGTaskSet([FORK_JOIN, (1, 2, 3)])  # type: ignore[list-item]
    assert info.value.task == 1


# -- DAGBatch ---------------------------------------------------------------------------------


def test_batch_layout():
    typed = DAGTask([3, 4], [(0, 1)], T=8, D=8, types=["cpu", "gpu"])
    sets = [DAGTaskSet([FORK_JOIN, typed]), DAGTaskSet([typed])]
    b = DAGBatch.from_tasksets(sets)
    assert len(b) == b.n_sets == 2 and b.n_tasks == 3
    for name in ("C", "T", "D", "vertex_offsets", "edge_offsets", "src", "dst", "task_offsets", "vertex_type", "volume", "length"):
        arr = getattr(b, name)
        assert arr.dtype == np.int64 and arr.flags.c_contiguous and not arr.flags.writeable, name
    assert b.C.tolist() == [1, 3, 2, 4, 1, 3, 4, 3, 4]
    assert b.vertex_offsets.tolist() == [0, 5, 7, 9] and b.edge_offsets.tolist() == [0, 6, 7, 8]
    assert b.src.tolist()[6:] == [0, 0] and b.dst.tolist()[6:] == [1, 1]
    assert b.task_offsets.tolist() == [0, 2, 3]
    assert b.volume.tolist() == [11, 7, 7] and b.length.tolist() == [6, 7, 7]
    assert b.type_names == ("cpu", "gpu") and b.vertex_type.tolist() == [0, 0, 0, 0, 0, 0, 1, 0, 1]
    assert list(b) == [DAGTaskSet([t.replace(name=None) for t in ts]) for ts in sets]  # names are not kept
    assert b[-1] == DAGTaskSet([typed])
    assert b.deadlines == "constrained"
    assert pickle.loads(pickle.dumps(b)) == b and not pickle.loads(pickle.dumps(b)).C.flags.writeable
    with pytest.raises(IndexError):
        b[2]


def test_batch_constructor_validates():
    b = DAGBatch.from_tasksets([DAGTaskSet([FORK_JOIN])])
    arrays = [b.C, b.T, b.D, b.vertex_offsets, b.edge_offsets, b.src, b.dst, b.task_offsets]
    assert DAGBatch(*arrays) == b
    cyclic_dst = b.dst.copy()
    cyclic_dst[1] = 1  # 0 → 1 twice
    with pytest.raises(TaskError, match="twice") as info:
        DAGBatch(*arrays[:6], cyclic_dst, arrays[7])
    assert info.value.set_index == 0 and info.value.task == 0
    with pytest.raises(InputError, match="task_offsets"):
        DAGBatch(*arrays[:7], [0, 2])


# -- properties on random DAGs -----------------------------------------------------------------


@st.composite
def dag_tasks(draw, max_vertices: int = 9):
    """A DAG task valid by construction: edges only from a lower to a higher index."""
    n = draw(st.integers(1, max_vertices))
    wcets = draw(st.lists(st.integers(1, 50), min_size=n, max_size=n))
    pairs = list(itertools.combinations(range(n), 2))
    edges = draw(st.lists(st.sampled_from(pairs), unique=True)) if pairs else []
    T = draw(st.integers(1, 200))
    D = draw(st.integers(1, 200))
    types = draw(st.none() | st.lists(st.sampled_from(["cpu", "gpu", "dla"]), min_size=n, max_size=n))
    return DAGTask(wcets, edges, T, D, types=types)


def _closure(task: DAGTask) -> set[tuple[int, int]]:
    """Every (u, v) with a path u → ... → v, by brute force (Floyd-Warshall on booleans)."""
    reach = set(task.edges)
    for w in range(task.n):
        reach |= {(u, v) for (u, x) in reach if x == w for (y, v) in reach if y == w}
    return reach


def _longest(task: DAGTask) -> int:
    """The length by brute force over all paths (small DAGs only)."""
    succ = {v: [b for a, b in task.edges if a == v] for v in range(task.n)}

    def best(v: int) -> int:
        return task.wcets[v] + max((best(w) for w in succ[v]), default=0)

    return max(best(v) for v in range(task.n))


def _tree_order(tree) -> tuple[list[int], set[tuple[int, int]]]:
    """The leaves of an SP tree and the order it describes."""
    if isinstance(tree, int):
        return [tree], set()
    kind, a, b = tree
    la, ra = _tree_order(a)
    lb, rb = _tree_order(b)
    order = ra | rb | ({(u, v) for u in la for v in lb} if kind == "S" else set())
    return la + lb, order


def _has_induced_n(closure: set[tuple[int, int]], n: int) -> bool:
    for a, b, c, d in itertools.permutations(range(n), 4):
        if {(a, c), (b, c), (b, d)} <= closure and not {(a, d), (a, b), (b, a), (c, d), (d, c)} & closure:
            return True
    return False


@settings(max_examples=150)
@given(dag_tasks())
def test_length_volume_and_reduction_properties(task):
    assert max(task.wcets) <= task.length <= task.volume == sum(task.wcets)
    assert task.length == _longest(task)
    path = task.critical_path()
    assert sum(task.wcets[v] for v in path) == task.length
    assert all((u, v) in task.edges for u, v in itertools.pairwise(path))
    position = {v: k for k, v in enumerate(task.topological_order)}
    assert sorted(position) == list(range(task.n)) and all(position[u] < position[v] for u, v in task.edges)
    closure = _closure(task)
    assert {(u, v) for u in range(task.n) for v in task.descendants(u)} == closure
    assert {(u, v) for v in range(task.n) for u in task.ancestors(v)} == closure
    reduced = task.transitive_reduction()
    assert _closure(reduced) == closure
    assert reduced.length == task.length and reduced.volume == task.volume
    assert set(reduced.edges) <= set(task.edges)
    # Minimal: dropping any remaining edge changes the reachability.
    for e in reduced.edges:
        assert _closure(reduced.replace(edges=[x for x in reduced.edges if x != e])) != closure
    assert reduced.transitive_reduction() == reduced


@settings(max_examples=150)
@given(dag_tasks(max_vertices=7))
def test_series_parallel_tree_describes_the_order(task):
    tree = task.series_parallel()
    closure = _closure(task)
    if tree is None:
        assert _has_induced_n(closure, task.n)
        return
    leaves, order = _tree_order(tree)
    assert sorted(leaves) == list(range(task.n))
    assert order == closure
    assert task.transitive_reduction().series_parallel() == tree


@settings(max_examples=60)
@given(st.lists(st.lists(dag_tasks(max_vertices=6), min_size=1, max_size=4), max_size=4))
def test_batch_round_trip(sets):
    sets = [DAGTaskSet(tasks) for tasks in sets]
    batch = DAGBatch.from_tasksets(sets)
    assert list(batch) == sets
    assert batch.volume.tolist() == [t.volume for ts in sets for t in ts]
    assert batch.length.tolist() == [t.length for ts in sets for t in ts]
    assert pickle.loads(pickle.dumps(batch)) == batch
