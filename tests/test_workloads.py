"""Workload kinds (rtsched.workloads): the built-in kinds' hooks, and the core's dispatch on them."""

from pathlib import Path

import numpy as np
import pytest

import rtsched
from rtsched import TaskSet, TaskSetBatch, registry
from rtsched.errors import InputError
from rtsched.gpu import GPUWorkload, GPUWorkloadBatch
from rtsched.platform import GPU, Identical
from rtsched.workloads import (
    GPU_WORKLOADS,
    TASKSETS,
    WorkloadKind,
    kind_named,
    kind_of,
    kinds,
    probe_workloads,
    register,
)

ROOT = Path(__file__).resolve().parents[1]


def test_built_in_kinds_are_registered_once_by_name():
    assert kinds()[:2] == [TASKSETS, GPU_WORKLOADS]
    assert kind_named("taskset") is TASKSETS and kind_named("gpu-workload") is GPU_WORKLOADS
    assert register(TASKSETS) is TASKSETS  # the same object again: nothing happens
    with pytest.raises(InputError, match="unknown workload kind 'mixed-criticality'"):
        kind_named("mixed-criticality")


def test_a_second_kind_under_a_taken_name_is_refused():
    class Impostor(type(TASKSETS)):  # type: ignore[misc]
        pass

    with pytest.raises(ValueError, match="registered already"):
        register(Impostor())


def test_a_kind_must_define_its_model_batch_and_probe():
    class Half(WorkloadKind):
        name = "half"

        def item_type(self):
            return int

    with pytest.raises(TypeError, match="abstract"):
        Half()  # type: ignore[abstract]


def test_every_analysis_names_a_registered_kind():
    for entry in registry.all_entries():
        assert entry.workload in kinds(), entry.name
        assert entry.input == entry.workload.name
    from rtsched.workloads import DAG_TASKSETS, MC_TASKSETS, SEGMENTED_TASKSETS

    assert {e.workload for e in registry.all_entries()} == {
        TASKSETS,
        GPU_WORKLOADS,
        DAG_TASKSETS,
        MC_TASKSETS,
        SEGMENTED_TASKSETS,
    }
    assert registry.get("gpu:ffd").workload is GPU_WORKLOADS and registry.get("gfb").workload is TASKSETS


def test_kind_of_tells_items_apart():
    ts = TaskSet.from_tasks([(1, 4, 4)])
    assert kind_of(ts) == (TASKSETS, ts)
    kind, item = kind_of([(1, 4, 4), (2, 6, 8)])
    assert kind is TASKSETS and item == TaskSet.from_tasks([(1, 4, 4), (2, 6, 8)])
    workload = probe_workloads()[0]
    assert kind_of(workload) == (GPU_WORKLOADS, workload)
    with pytest.raises(InputError, match="cannot analyse a int"):
        kind_of(3)


def test_task_set_batches_through_the_kind():
    sets = [TaskSet.from_tasks([(1, 4, 4), (2, 6, 8)]), TaskSet.from_tasks([(3, 5, 5)])]
    batch = TASKSETS.batch_of(sets)
    assert isinstance(batch, TaskSetBatch) and TASKSETS.count(batch) == 2 and TASKSETS.task_count(batch) == 3
    C, D, T, offsets = TASKSETS.kernel_arguments(batch)
    assert offsets.tolist() == [0, 2, 3] and C.tolist() == [1, 2, 3]
    one = TASKSETS.batch_of(sets[:1])
    assert one.n_sets == 1 and one[0] == sets[0]
    assert [TASKSETS.deadline_model(s) for s in sets] == ["constrained", "implicit"]
    assert TASKSETS.refuses_deadlines(("implicit",), "constrained") == "needs implicit deadlines (D = T)"
    assert TASKSETS.refuses_deadlines(("implicit", "constrained"), "arbitrary") == "needs constrained deadlines (D <= T)"
    assert TASKSETS.refuses_platform(GPU(2)) and TASKSETS.refuses_platform(Identical(2)) is None


def test_gpu_workloads_have_no_deadline_models_or_flat_arrays():
    batch = probe_workloads()
    assert isinstance(batch, GPUWorkloadBatch) and GPU_WORKLOADS.count(batch) == 2
    assert GPU_WORKLOADS.deadline_model(batch[0]) is None and GPU_WORKLOADS.task_count(batch) is None
    assert GPU_WORKLOADS.refuses_platform(Identical(2)) and GPU_WORKLOADS.refuses_platform(GPU(2)) is None
    with pytest.raises(InputError, match="codes="):
        GPU_WORKLOADS.kernel_arguments(batch)


def test_files_round_trip_through_the_kinds(tmp_path):
    sets = [TaskSet.from_tasks([(1, 4, 4), (2, 6, 8)]), TaskSet.from_tasks([(3, 5, 5)])]
    path = tmp_path / "sets.jsonl"
    TASKSETS.write(sets, path)
    assert TASKSETS.read(path) == sets
    workload = GPU_WORKLOADS.read(ROOT / "examples" / "gpu" / "demo.yaml")[0]
    assert isinstance(workload, GPUWorkload)
    out = tmp_path / "w.yaml"
    GPU_WORKLOADS.write([workload], out)
    assert GPU_WORKLOADS.read(out)[0].n == workload.n
    with pytest.raises(InputError, match="one workload"):
        GPU_WORKLOADS.write([workload, workload], out)


def test_generators_through_the_kinds_are_seeded():
    def draw(kind, **params):
        return kind.generate(np.random.default_rng(7), 3, n=4, utilization=1.5, **params)

    a, b = draw(TASKSETS), draw(TASKSETS)
    assert TASKSETS.count(a) == 3 and a.C.tolist() == b.C.tolist() and a.T.tolist() == b.T.tolist()
    g1, g2 = draw(GPU_WORKLOADS, clusters=4), draw(GPU_WORKLOADS, clusters=4)
    assert GPU_WORKLOADS.count(g1) == 3 and g1 == g2


def test_the_task_set_simulator_through_the_kind():
    dhall = TaskSet.from_tasks([(2, 10, 10), (2, 10, 10), (11, 12, 12)])
    trace = TASKSETS.simulate(dhall, 2)
    assert trace.miss is not None  # Dhall's effect: G-EDF misses on 2 processors
    with pytest.raises(InputError, match="no simulator of GPU workloads"):
        GPU_WORKLOADS.simulate(probe_workloads()[0], GPU(2))


def test_check_runs_a_gpu_workload_through_its_kind():
    workload = probe_workloads()[0]
    report = rtsched.check(workload, GPU(2))
    gpu_names = [e.name for e in registry.all_entries() if e.workload is GPU_WORKLOADS]
    assert sorted(report.verdicts) == sorted(gpu_names) and not report.skipped
    assert str(report).startswith("GPU workload: n=2 kernels, M=2 compute clusters -- partitioned-edf: schedulable")
    many = rtsched.check_many(list(probe_workloads()), GPU(2))
    assert [r.verdicts for r in many] == [rtsched.check(w, GPU(2)).verdicts for w in probe_workloads()]


def test_an_analysis_of_another_kind_is_skipped_with_the_reason():
    ts = TaskSet.from_tasks([(1, 4, 4), (2, 6, 8)])
    report = rtsched.check(ts, GPU(2), tests=["gpu:ffd"])
    assert report.skipped == {"gpu:ffd": "analyses GPU workloads, not task sets"}
    report = rtsched.check(probe_workloads()[0], 2, tests=["gfb"])
    assert report.skipped == {"gfb": "analyses task sets, not GPU workloads"}
    with pytest.raises(InputError, match="check_many takes task sets only"):
        rtsched.check_many([ts, probe_workloads()[0]], 2)


def test_cache_probes_come_from_the_kinds():
    from rtsched.commands.cache import probe_for

    batch, platform = probe_for("gpu:ffd")
    assert isinstance(batch, GPUWorkloadBatch) and platform == GPU(2)
    batch, platform = probe_for("rm-ll")  # implicit deadlines only, one processor
    assert isinstance(batch, TaskSetBatch) and TASKSETS.deadline_model(batch) == "implicit" and platform == 1
    batch, platform = probe_for("gfb")
    assert TASKSETS.deadline_model(batch) == "constrained" and platform == 2


# -- DAG task sets (issue #42: model, files and generators; no analysis registered yet) -------------
def test_dag_task_sets_are_a_kind():
    from rtsched.dag import DAGBatch, DAGTask, DAGTaskSet
    from rtsched.workloads import DAG_TASKSETS

    assert kind_named("dag") is DAG_TASKSETS and DAG_TASKSETS in kinds()
    fork_join = DAGTask((1, 2, 3, 1), ((0, 1), (0, 2), (1, 3), (2, 3)), 10, 8)
    kind, item = kind_of([fork_join])
    assert kind is DAG_TASKSETS and item == DAGTaskSet([fork_join])
    assert kind_of(item) == (DAG_TASKSETS, item) and kind_of(fork_join)[1] == item
    batch = DAG_TASKSETS.batch_of([item, DAGTaskSet([fork_join, fork_join])])
    assert isinstance(batch, DAGBatch) and DAG_TASKSETS.count(batch) == 2 and DAG_TASKSETS.task_count(batch) == 12
    C, T, D, vertex_offsets, edge_offsets, src, dst, task_offsets = DAG_TASKSETS.kernel_arguments(batch)
    assert C.tolist()[:4] == [1, 2, 3, 1] and task_offsets.tolist() == [0, 1, 3] and T.tolist() == [10, 10, 10]
    assert DAG_TASKSETS.deadline_model(item) == "constrained" == DAG_TASKSETS.deadline_model(batch)
    assert DAG_TASKSETS.refuses_platform(GPU(2)) and DAG_TASKSETS.refuses_platform(Identical(2)) is None
    probe, platform = DAG_TASKSETS.probe(("implicit",), "identical")
    assert DAG_TASKSETS.deadline_model(probe) == "implicit" and platform == 2


def test_dag_files_and_generator_through_the_kind(tmp_path):
    from rtsched.dag import DAGTask, DAGTaskSet
    from rtsched.workloads import DAG_TASKSETS

    sets = [DAGTaskSet([DAGTask((1, 2, 3, 1), ((0, 1), (0, 2), (1, 3), (2, 3)), 10, 8)], name="fj")]
    for suffix in ("yaml", "json"):
        path = tmp_path / f"sets.{suffix}"
        DAG_TASKSETS.write(sets, path)
        assert [s.tasks for s in DAG_TASKSETS.read(path)] == [s.tasks for s in sets]

    def draw():
        return DAG_TASKSETS.generate(np.random.default_rng(11), 4, n_tasks=3, utilization=2.0)

    first, again = draw(), draw()
    assert DAG_TASKSETS.count(first) == 4 and [first[s] for s in range(4)] == [again[s] for s in range(4)]
    trace = DAG_TASKSETS.simulate(sets[0], 1)  # vol 7 ≤ D 8 on one processor: no miss
    assert trace.miss is None and trace.response_times == (7,)
    assert DAG_TASKSETS.simulate(sets[0], 1, execution="random", seed=3).miss is None


def test_check_runs_the_dag_analyses_on_a_dag_task_set():
    from rtsched.dag import DAGTask, DAGTaskSet

    dag_names = sorted(e.name for e in registry.all_entries() if e.input == "dag")
    assert {"dag-federated", "dag-gedf-cab"} <= set(dag_names)
    dag_set = DAGTaskSet([DAGTask((1, 2, 3, 1), ((0, 1), (0, 2), (1, 3), (2, 3)), 10, 8)])
    report = rtsched.check(dag_set, 2)  # no DAG analysis is featured: all of them, where they apply
    applicable = {name for name in dag_names if registry.get(name).supports(2, dag_set) is None}
    assert "dag-gedf-cab" not in applicable  # implicit deadlines only; this set's D = 8 < T = 10
    assert set(report.verdicts) == applicable
    assert report.verdicts == {name: registry.get(name).verdict(dag_set, 2) for name in applicable}
    assert report.verdicts["dag-federated"] is True and report.schedulable
    assert str(report).startswith("DAG task set: n=1 tasks, 4 vertices, m=2, U=0.7 -- ")
    assert "federated: schedulable" in str(report).splitlines()[0]
    report = rtsched.check(dag_set, 2, tests=["gfb"])
    assert report.skipped == {"gfb": "analyses task sets, not DAG task sets"}
