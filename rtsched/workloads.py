"""Workload kinds: what analyses take as input, each one object registered once.

A *workload kind* says everything the core needs to know about one kind of input so that
:func:`rtsched.check`, :func:`rtsched.check_many`, the registry, ``rtsched cache``/warm-up, sweeps
and the CLI can hand it to analyses without knowing what it is:

* its model and batch types (:meth:`WorkloadKind.item_type`, :meth:`WorkloadKind.batch_type`),
  how many items a batch holds, a batch of given items, and the flat ``int64`` arrays a ``prange``
  kernel reads (:meth:`WorkloadKind.kernel_arguments`);
* its deadline models, if it has any (:meth:`WorkloadKind.deadline_model`), and the platforms it
  runs on (:meth:`WorkloadKind.refuses_platform`);
* its files (:meth:`WorkloadKind.read`, :meth:`WorkloadKind.write`, with the readers' file / line /
  task / field errors), its seeded generator (:meth:`WorkloadKind.generate`) and its simulator
  where one exists (:meth:`WorkloadKind.simulate`);
* a probe input that compiles every kernel of an analysis (:meth:`WorkloadKind.probe`), and
  whether :func:`rtsched.check` may answer with a sufficient test's exact reference while that
  test's kernels are not compiled (:attr:`WorkloadKind.cold_references`);
* how a report prints one item (:meth:`WorkloadKind.describe`);
* which subpackages of ``rtsched.analyses`` hold its built-in analyses
  (:attr:`WorkloadKind.families`), so that checking a file of this kind imports only those
  (:func:`rtsched.registry.entries_of`; a kind without the attribute is looked up in all of them).

An analysis names its kind (``Analysis(..., workload=GPU_WORKLOADS)``; the default is
:data:`TASKSETS`); the core dispatches on that object, never on a string. Four kinds are built
in: :data:`TASKSETS` (sporadic task sets, :class:`~rtsched.model.TaskSet`), :data:`GPU_WORKLOADS`
(real-time kernels on a GPU's compute clusters, :class:`~rtsched.gpu.GPUWorkload`),
:data:`DAG_TASKSETS` (sporadic parallel DAG tasks, :class:`~rtsched.dag.DAGTaskSet`),
:data:`MC_TASKSETS` (dual-criticality sporadic tasks, :class:`~rtsched.mc.MCTaskSet`) and
:data:`SEGMENTED_TASKSETS` (CPU–GPU segmented tasks, :class:`~rtsched.segmented.SegmentedTaskSet`). A new kind
subclasses :class:`WorkloadKind` and calls :func:`register` once; the README's "Adding a workload
kind" shows a whole one.
"""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from collections.abc import Sequence
from fractions import Fraction
from typing import Any, ClassVar

import numpy as np

from rtsched.dag.model import DAGBatch, DAGTask, DAGTaskSet
from rtsched.errors import InputError
from rtsched.gpu.model import GPUWorkload, GPUWorkloadBatch, Kernel, TableWCET
from rtsched.mc.model import MCBatch, MCTask, MCTaskSet
from rtsched.model import TaskSet, TaskSetBatch, tightest_model
from rtsched.platform import GPU, Platform, Typed, as_platform
from rtsched.segmented.model import GPUSegment, SegmentedBatch, SegmentedTask, SegmentedTaskSet

__all__ = [
    "DAG_TASKSETS",
    "GPU_WORKLOADS",
    "MC_TASKSETS",
    "SEGMENTED_TASKSETS",
    "TASKSETS",
    "DAGTaskSets",
    "GPUWorkloads",
    "MCTaskSets",
    "SegmentedTaskSets",
    "TaskSets",
    "WorkloadKind",
    "kind_named",
    "kind_of",
    "kinds",
    "probe_batch",
    "probe_workloads",
    "register",
]

_MODEL_RANK = {"implicit": 0, "constrained": 1, "arbitrary": 2}


class WorkloadKind(ABC):
    """One kind of workload that analyses take (the base class; subclass it for a new kind).

    Class attributes a subclass sets: ``name`` (the catalogue's ``input`` column and the files'
    ``kind``), ``title`` (plural, for messages: ``sporadic task sets``), ``noun`` (one item: ``task
    set``) and ``cold_references`` (see the module docstring). The methods below are the hooks;
    those that have no meaning for a kind raise :class:`~rtsched.errors.InputError` saying so.
    """

    name: ClassVar[str] = ""
    title: ClassVar[str] = ""
    noun: ClassVar[str] = ""
    #: True if :func:`rtsched.check` may decide small inputs of this kind with a sufficient
    #: analysis's exact reference while its kernels are not compiled (:mod:`rtsched.check`).
    cold_references: ClassVar[bool] = False
    #: The subpackages of ``rtsched.analyses`` that hold every built-in analysis of this kind and
    #: the analyses they call by registry name, or ``None`` (look in all of them). With it,
    #: ``rtsched check`` of a file of this kind imports only those
    #: (:func:`rtsched.registry.entries_of`); a test holds it to a full discovery.
    families: ClassVar[tuple[str, ...] | None] = None

    def __repr__(self) -> str:
        return f"<workload kind {self.name!r}>"

    # -- model and batches --------------------------------------------------------------------------
    @abstractmethod
    def item_type(self) -> type:
        """The class of one item (a task set, a GPU workload, ...)."""

    @abstractmethod
    def batch_type(self) -> type:
        """The class of a batch of items, what kernels and sweeps take."""

    def coerce(self, value: Any) -> Any:
        """``value`` as one item of this kind, or ``None`` if it is not one."""
        return value if isinstance(value, self.item_type()) else None

    def count(self, batch: Any) -> int:
        """Number of items in ``batch``."""
        return len(batch)

    def batch_of(self, items: Sequence[Any]) -> Any:
        """A batch holding ``items`` (one item each)."""
        return self.batch_type()(items)

    def task_count(self, batch: Any) -> int | None:
        """Tasks in ``batch`` over all items, for the choice of threads; ``None``: unknown (use the pool)."""
        return None

    def kernel_arguments(self, batch: Any) -> tuple[Any, ...]:
        """The arrays a ``prange`` kernel (``Analysis(kernel=...)``) reads from ``batch``, in order."""
        raise InputError(f"{self.title} have no flat kernel arrays: declare the analysis with codes=")

    # -- deadlines and platforms --------------------------------------------------------------------
    def deadline_model(self, item: Any) -> str | None:
        """``implicit``, ``constrained`` or ``arbitrary`` for an item or batch; ``None``: the kind has none."""
        return None

    def refuses_deadlines(self, accepted: Sequence[str], model: str | None) -> str | None:
        """Why an analysis accepting the deadline models ``accepted`` refuses ``model``, or ``None``."""
        if model is None:
            return None
        widest = max(_MODEL_RANK[d] for d in accepted)
        if _MODEL_RANK[model] <= widest:
            return None
        return "needs implicit deadlines (D = T)" if widest == 0 else "needs constrained deadlines (D <= T)"

    def refuses_platform(self, platform: Platform) -> str | None:
        """Why this kind cannot run on ``platform``, or ``None``."""
        return None

    @abstractmethod
    def probe(self, accepted_deadlines: Sequence[str], platform_kind: str) -> tuple[Any, Platform | int]:
        """A small batch that makes every kernel of an analysis compile, and the platform to run it on."""

    # -- files, generation, simulation, printing ----------------------------------------------------
    def read(self, path: str | os.PathLike[str], **options: Any) -> list[Any]:
        """The items in the file at ``path`` (errors name the file, line, task and field)."""
        raise InputError(f"rtsched reads no files of {self.title}")

    def write(self, items: Sequence[Any], path: str | os.PathLike[str], **options: Any) -> None:
        """Write ``items`` to ``path`` in a format :meth:`read` reads back."""
        raise InputError(f"rtsched writes no files of {self.title}")

    def generate(self, rng: np.random.Generator, size: int, **parameters: Any) -> Any:
        """A batch of ``size`` random items drawn from ``rng`` (same generator state, same batch)."""
        raise InputError(f"rtsched has no generator of {self.title}")

    def simulate(self, item: Any, platform: Platform | int, **options: Any) -> Any:
        """A simulation of ``item`` on ``platform`` that tries to refute the analyses of this kind."""
        raise InputError(f"rtsched has no simulator of {self.title}")

    def describe(self, item: Any, platform: Platform) -> str:
        """The first line of a report on ``item`` (before its verdicts): ``name: sizes``."""
        return f"{getattr(item, 'name', None) or self.noun}: n={getattr(item, 'n', '?')}, {platform}"


class TaskSets(WorkloadKind):
    """Sporadic task sets τi = (C_i, D_i, T_i): :class:`~rtsched.model.TaskSet`, :class:`~rtsched.model.TaskSetBatch`."""

    name = "taskset"
    title = "task sets"
    noun = "task set"
    cold_references = True
    # Every family but the other kinds' (dag, gpu, mixed_criticality, segmented): a task-set check
    # then skips importing their modules (about 0.1 s of a one-set check).
    families = ("exact", "global_edf", "global_fp", "hierarchical", "partitioned", "uniprocessor")

    def item_type(self) -> type:
        """:class:`~rtsched.model.TaskSet`."""
        return TaskSet

    def batch_type(self) -> type:
        """:class:`~rtsched.model.TaskSetBatch`."""
        return TaskSetBatch

    def coerce(self, value: Any) -> TaskSet | None:
        """A task set, or ``[(C, D, T), ...]`` read as one."""
        if isinstance(value, TaskSet):
            return value
        if isinstance(value, Sequence) and not isinstance(value, str | bytes):
            return TaskSet.from_tasks(value)
        return None

    def count(self, batch: TaskSetBatch) -> int:
        """``batch.n_sets``."""
        return batch.n_sets

    def batch_of(self, items: Sequence[TaskSet]) -> TaskSetBatch:
        """:meth:`~rtsched.model.TaskSetBatch.from_tasksets`; one set is adopted without copying or validating again."""
        if len(items) == 1:
            ts = items[0]
            offsets = np.array([0, ts.n], dtype=np.int64)
            return TaskSetBatch.adopt(ts.C, ts.D, ts.T, offsets, deadlines=ts.deadlines, validate=False)
        return TaskSetBatch.from_tasksets(items)

    def task_count(self, batch: TaskSetBatch) -> int:
        """Tasks over all sets (``offsets[-1]``)."""
        return int(batch.offsets[-1])

    def kernel_arguments(self, batch: TaskSetBatch) -> tuple[Any, ...]:
        """``C, D, T, offsets``."""
        return batch.C, batch.D, batch.T, batch.offsets

    def deadline_model(self, item: Any) -> str:
        """The tightest model the set or batch meets."""
        kind = getattr(item, "deadline_kind", None)
        if kind is not None:
            return str(kind)
        return tightest_model(item.D, item.T)

    def refuses_platform(self, platform: Platform) -> str | None:
        """GPU platforms take GPU workloads, typed platforms typed DAG task sets; not task sets."""
        if isinstance(platform, GPU):
            return "analyses task sets, not GPU workloads"
        return "analyses task sets, not typed DAG task sets (a typed platform)" if isinstance(platform, Typed) else None

    def probe(self, accepted_deadlines: Sequence[str], platform_kind: str) -> tuple[TaskSetBatch, int]:
        """:func:`~rtsched.workloads.probe_batch` (implicit deadlines where needed) on 1 or 2 processors."""
        implicit = max(_MODEL_RANK[d] for d in accepted_deadlines) == 0
        return probe_batch("implicit" if implicit else "constrained"), 1 if platform_kind == "uniprocessor" else 2

    def read(self, path: str | os.PathLike[str], **options: Any) -> list[TaskSet]:
        """:func:`rtsched.io.read_tasksets` (YAML, JSON, JSON lines, CSV, ``C D T`` lines, SchedCAT/SimSo XML)."""
        from rtsched.io.tasksets import read_tasksets

        return list(read_tasksets(path, **options))

    def write(self, items: Sequence[TaskSet], path: str | os.PathLike[str], **options: Any) -> None:
        """:func:`rtsched.io.write_tasksets`."""
        from rtsched.io.tasksets import write_tasksets

        write_tasksets(path, list(items), **options)

    def generate(self, rng: np.random.Generator, size: int, **parameters: Any) -> TaskSetBatch:
        """:func:`rtsched.generators.generate_batch` (``n``, ``utilization``, ``periods``, ``deadlines``, ...)."""
        from rtsched.generators import generate_batch

        return generate_batch(rng, size=size, **parameters).batch

    def simulate(self, item: TaskSet, platform: Platform | int, **options: Any) -> Any:
        """:func:`rtsched.sim.simulate` (global EDF or FP on identical processors)."""
        from rtsched.sim import simulate

        return simulate(item, as_platform(platform).size, **options)

    def describe(self, item: TaskSet, platform: Platform) -> str:
        """``task set: n=…, m=…, U=…`` (:class:`~rtsched.result.Report`'s own form, so empty)."""
        return ""


class GPUWorkloads(WorkloadKind):
    """Real-time kernels on a GPU's compute clusters: :class:`~rtsched.gpu.GPUWorkload` (see papers/zahaf2021-gpu-partitioning.md)."""

    name = "gpu-workload"
    families = ("gpu",)
    title = "GPU workloads"
    noun = "GPU workload"

    def item_type(self) -> type:
        """:class:`~rtsched.gpu.GPUWorkload`."""
        return GPUWorkload

    def batch_type(self) -> type:
        """:class:`~rtsched.gpu.GPUWorkloadBatch`."""
        return GPUWorkloadBatch

    def batch_of(self, items: Sequence[GPUWorkload]) -> GPUWorkloadBatch:
        """A :class:`~rtsched.gpu.GPUWorkloadBatch` of ``items``."""
        return GPUWorkloadBatch(tuple(items))

    def refuses_platform(self, platform: Platform) -> str | None:
        """Only a GPU platform (``GPU(M)``) runs GPU workloads."""
        return None if isinstance(platform, GPU) else f"needs a GPU platform (GPU(M)), not {platform}"

    def probe(self, accepted_deadlines: Sequence[str], platform_kind: str) -> tuple[GPUWorkloadBatch, GPU]:
        """:func:`~rtsched.workloads.probe_workloads` on 2 compute clusters."""
        return probe_workloads(), GPU(2)

    def read(self, path: str | os.PathLike[str], **options: Any) -> list[GPUWorkload]:
        """:func:`rtsched.gpu.read_gpu_workload` (one workload per YAML/JSON file)."""
        from rtsched.gpu.files import read_gpu_workload

        return [read_gpu_workload(path, **options)]

    def write(self, items: Sequence[GPUWorkload], path: str | os.PathLike[str], **options: Any) -> None:
        """One workload per file (:func:`rtsched.gpu.dumps_gpu`)."""
        from rtsched.gpu.files import dumps_gpu

        if len(items) != 1:
            raise InputError(f"a GPU workload file holds one workload, not {len(items)}", file=str(path))
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(dumps_gpu(items[0], **options))

    def generate(self, rng: np.random.Generator, size: int, **parameters: Any) -> GPUWorkloadBatch:
        """:func:`~rtsched.generators.gpu.generate_gpu_batch` (``n``, ``utilization`` U1, ``clusters``, ...)."""
        from rtsched.generators.gpu import generate_gpu_batch

        return generate_gpu_batch(rng, size=size, **parameters).batch

    def describe(self, item: GPUWorkload, platform: Platform) -> str:
        """``GPU workload: n=… kernels, M=… compute clusters``."""
        return f"{item.name or 'GPU workload'}: n={item.n} kernels, M={platform.size} compute clusters"


def probe_batch(deadlines: str = "constrained") -> TaskSetBatch:
    """Four small task sets: enough to make every kernel of a task-set analysis compile.

    Numba compiles a whole kernel whichever path a set takes, but an analysis may route a set in
    Python before any kernel runs: the fourth set (n = 3, Π T_i = 540,000) is outside ``exact``'s
    default-list rule on 2 processors, so ``gedf-upper`` decides it with its simulation kernel
    (the first three go to ``exact``). ``deadlines="implicit"``: the same sets with D = T, for
    the analyses that need implicit deadlines (rm-us, rm-ll, rm-hb).
    """
    sets = [
        [(1, 4, 5), (2, 7, 9), (3, 10, 12), (2, 9, 15)],
        [(2, 3, 3), (2, 3, 3), (2, 3, 3)],
        [(1, 2, 2), (1, 3, 4), (4, 20, 20), (1, 9, 10), (3, 14, 16)],
        [(3, 40, 50), (5, 70, 90), (9, 100, 120)],
    ]
    if deadlines == "implicit":
        sets = [[(c, t, t) for c, _, t in s] for s in sets]
    elif deadlines != "constrained":
        raise ValueError(f"deadlines must be 'constrained' or 'implicit', not {deadlines!r}")
    return TaskSetBatch.from_tasksets([TaskSet.from_tasks(s) for s in sets])


def probe_workloads() -> GPUWorkloadBatch:
    """Two small GPU workloads (for 2 compute clusters) for the GPU analyses: one fits, one does not."""

    def workload(first_cluster_wcets: list[int]) -> GPUWorkload:
        one = (Fraction(1), Fraction(1))
        kernels = tuple(
            Kernel(TableWCET((c, -(-c // 2), -(-c // 3))), 4, 4, one, None, True) for c in first_cluster_wcets
        )
        return GPUWorkload(kernels, 2)

    return GPUWorkloadBatch((workload([4, 4]), workload([4, 4, 4])))


class DAGTaskSets(WorkloadKind):
    """Sets of sporadic parallel DAG tasks: :class:`~rtsched.dag.DAGTaskSet`, :class:`~rtsched.dag.DAGBatch` (papers/dag-model.md)."""

    name = "dag"
    families = ("dag", "partitioned")  # federated scheduling packs light tasks with p-edf
    title = "DAG task sets"
    noun = "DAG task set"
    #: The DAG analyses' references decide a small set at once, where compiling their kernels
    #: first would make the first ``rtsched check`` of a small DAG file wait for the compiler.
    cold_references = True

    def item_type(self) -> type:
        """:class:`~rtsched.dag.DAGTaskSet`."""
        return DAGTaskSet

    def batch_type(self) -> type:
        """:class:`~rtsched.dag.DAGBatch`."""
        return DAGBatch

    def coerce(self, value: Any) -> DAGTaskSet | None:
        """A DAG task set; one :class:`~rtsched.dag.DAGTask`, or a list of them, read as one."""
        if isinstance(value, DAGTaskSet):
            return value
        if isinstance(value, DAGTask):
            return DAGTaskSet([value])
        if isinstance(value, list | tuple) and value and all(isinstance(v, DAGTask) for v in value):
            return DAGTaskSet(value)
        return None

    def count(self, batch: DAGBatch) -> int:
        """``batch.n_sets``."""
        return batch.n_sets

    def batch_of(self, items: Sequence[DAGTaskSet]) -> DAGBatch:
        """:meth:`~rtsched.dag.DAGBatch.from_tasksets`."""
        return DAGBatch.from_tasksets(items)

    def task_count(self, batch: DAGBatch) -> int:
        """Vertices over all sets (a kernel's work grows with them)."""
        return int(batch.C.shape[0])

    def kernel_arguments(self, batch: DAGBatch) -> tuple[Any, ...]:
        """``C, T, D, vertex_offsets, edge_offsets, src, dst, task_offsets`` (:class:`~rtsched.dag.DAGBatch`)."""
        return (
            batch.C, batch.T, batch.D, batch.vertex_offsets, batch.edge_offsets, batch.src, batch.dst, batch.task_offsets
        )

    def deadline_model(self, item: Any) -> str:
        """``implicit``, ``constrained`` or ``arbitrary``: the tightest model a set (or a batch) meets."""
        return str(item.deadline_kind if isinstance(item, DAGTaskSet) else item.deadlines)

    def refuses_platform(self, platform: Platform) -> str | None:
        """GPU platforms take GPU workloads; identical and typed platforms (:class:`~rtsched.platform.Typed`) run DAG sets."""
        return "analyses GPU workloads, not DAG task sets" if isinstance(platform, GPU) else None

    def refuses_types(self, item: DAGTaskSet | DAGBatch, platform: Platform) -> str | None:
        """``None`` if ``platform`` has a unit of every vertex type ``item`` uses, else why not (one line).

        Only a :class:`~rtsched.platform.Typed` platform can lack a type; on identical processors every
        vertex runs anywhere (types are ignored).
        """
        if not isinstance(platform, Typed):
            return None
        if isinstance(item, DAGBatch):
            used = {item.type_names[int(c)] for c in np.unique(item.vertex_type)}
        else:
            used = {task.vertex_type(v) for task in item for v in range(task.n)}
        missing = sorted(used - set(platform.types))
        if not missing:
            return None
        return (
            f"the DAG tasks use vertex type{'s' if len(missing) > 1 else ''} {', '.join(missing)} "
            f"that the platform ({platform.spec}) has no unit of"
        )

    def probe(self, accepted_deadlines: Sequence[str], platform_kind: str) -> tuple[DAGBatch, int]:
        """A fork-join and a chain, with implicit or constrained deadlines, on 1 or 2 processors."""
        implicit = max(_MODEL_RANK[d] for d in accepted_deadlines) == 0
        fork_join = DAGTask((1, 2, 3, 1), ((0, 1), (0, 2), (1, 3), (2, 3)), 10, 10 if implicit else 8)
        chain = DAGTask((2, 2), ((0, 1),), 12, 12 if implicit else 9)
        sets = [DAGTaskSet([fork_join]), DAGTaskSet([fork_join, chain])]
        return DAGBatch.from_tasksets(sets), 1 if platform_kind == "uniprocessor" else 2

    def read(self, path: str | os.PathLike[str], **options: Any) -> list[DAGTaskSet]:
        """:func:`rtsched.dag.read_dag_tasksets` (YAML, JSON, DOT, the DAG survey library's YAML)."""
        from rtsched.dag.files import read_dag_tasksets

        return read_dag_tasksets(path, **options)

    def write(self, items: Sequence[DAGTaskSet], path: str | os.PathLike[str], **options: Any) -> None:
        """:func:`rtsched.dag.write_dag_tasksets`."""
        from rtsched.dag.files import write_dag_tasksets

        write_dag_tasksets(path, list(items), **options)

    def generate(self, rng: np.random.Generator, size: int, **parameters: Any) -> DAGBatch:
        """:func:`~rtsched.generators.dag.dag_tasksets` (``n_tasks``, ``utilization``, ``shape``, ...), as a batch."""
        from rtsched.generators.dag import dag_tasksets

        return DAGBatch.from_tasksets(dag_tasksets(rng, size=size, **parameters))

    def simulate(self, item: DAGTaskSet, platform: Platform | int, **options: Any) -> Any:
        """:func:`rtsched.dag.simulate_dag` (node-level global EDF or FP, per type on a typed platform)."""
        from rtsched.dag.sim import simulate_dag

        p = as_platform(platform)
        if isinstance(p, Typed):
            return simulate_dag(item, platform=p, **options)
        return simulate_dag(item, p.size, **options)

    def describe(self, item: DAGTaskSet, platform: Platform) -> str:
        """``DAG task set: n=… tasks, … vertices, m=…, U=…``."""
        vertices = sum(task.n for task in item.tasks)
        u = item.utilization
        on = platform.spec if isinstance(platform, Typed) else f"m={platform.size}"
        return f"{item.name or 'DAG task set'}: n={item.n} tasks, {vertices} vertices, {on}, U={float(u):.4g}"


class MCTaskSets(WorkloadKind):
    """Sets of dual-criticality sporadic tasks (Vestal's model): :class:`~rtsched.mc.MCTaskSet`, :class:`~rtsched.mc.MCBatch` (papers/mc-model.md)."""

    name = "mc"
    families = ("mixed_criticality",)
    title = "mixed-criticality task sets"
    noun = "mixed-criticality task set"
    #: Like the DAG kind: the references decide a small set at once, without compiling kernels.
    cold_references = True

    def item_type(self) -> type:
        """:class:`~rtsched.mc.MCTaskSet`."""
        return MCTaskSet

    def batch_type(self) -> type:
        """:class:`~rtsched.mc.MCBatch`."""
        return MCBatch

    def coerce(self, value: Any) -> MCTaskSet | None:
        """A mixed-criticality task set; one :class:`~rtsched.mc.MCTask`, or a list of them, read as one."""
        if isinstance(value, MCTaskSet):
            return value
        if isinstance(value, MCTask):
            return MCTaskSet([value])
        if isinstance(value, list | tuple) and value and all(isinstance(v, MCTask) for v in value):
            return MCTaskSet(value)
        return None

    def count(self, batch: MCBatch) -> int:
        """``batch.n_sets``."""
        return batch.n_sets

    def batch_of(self, items: Sequence[MCTaskSet]) -> MCBatch:
        """:meth:`~rtsched.mc.MCBatch.from_tasksets`."""
        return MCBatch.from_tasksets(items)

    def task_count(self, batch: MCBatch) -> int:
        """Tasks over all sets."""
        return batch.n_tasks

    def kernel_arguments(self, batch: MCBatch) -> tuple[Any, ...]:
        """``C_lo, C_hi, T, D, level, task_offsets`` (:class:`~rtsched.mc.MCBatch`; ``level`` is ``int8``)."""
        return batch.C_lo, batch.C_hi, batch.T, batch.D, batch.level, batch.task_offsets

    def deadline_model(self, item: Any) -> str:
        """``implicit``, ``constrained`` or ``arbitrary``: the tightest model a set (or a batch) meets."""
        return str(item.deadline_model if isinstance(item, MCTaskSet) else item.deadlines)

    def refuses_platform(self, platform: Platform) -> str | None:
        """Identical processors (one core included) run mixed-criticality sets; GPU and typed platforms do not."""
        if isinstance(platform, GPU):
            return "analyses GPU workloads, not mixed-criticality task sets"
        return "analyses typed DAG task sets, not mixed-criticality task sets" if isinstance(platform, Typed) else None

    def probe(self, accepted_deadlines: Sequence[str], platform_kind: str) -> tuple[MCBatch, int]:
        """Two small dual-criticality sets (one fits one core, one overloads it in HI mode), on 1 or 2 processors."""
        implicit = max(_MODEL_RANK[d] for d in accepted_deadlines) == 0
        fits = MCTaskSet(
            [MCTask.lo(1, 4), MCTask.hi(1, 2, 8, 8 if implicit else 6), MCTask.lo(2, 12, 12 if implicit else 10)]
        )
        heavy = MCTaskSet([MCTask.hi(2, 4, 5), MCTask.hi(1, 3, 6, 6 if implicit else 5), MCTask.lo(3, 10)])
        return MCBatch.from_tasksets([fits, heavy]), 1 if platform_kind == "uniprocessor" else 2

    def read(self, path: str | os.PathLike[str], **options: Any) -> list[MCTaskSet]:
        """:func:`rtsched.mc.read_mc_tasksets` (YAML, JSON, CSV)."""
        from rtsched.mc.files import read_mc_tasksets

        return read_mc_tasksets(path, **options)

    def write(self, items: Sequence[MCTaskSet], path: str | os.PathLike[str], **options: Any) -> None:
        """:func:`rtsched.mc.write_mc_tasksets`."""
        from rtsched.mc.files import write_mc_tasksets

        write_mc_tasksets(list(items), path, **options)

    def generate(self, rng: np.random.Generator, size: int, **parameters: Any) -> MCBatch:
        """:func:`~rtsched.generators.mc.mc_tasksets` (``n``, ``utilization``, ``cp``, ``cf``, ``periods``, ...), as a batch."""
        from rtsched.generators.mc import mc_batch

        return mc_batch(rng, size=size, **parameters)

    def simulate(self, item: MCTaskSet, platform: Platform | int, **options: Any) -> Any:
        """:func:`~rtsched.mc.simulate_mc` (mode switches; FP, EDF or EDF-VD, on one core or many)."""
        try:
            from rtsched.mc.sim import simulate_mc
        except ImportError as err:
            raise InputError(
                f"the mixed-criticality simulator (rtsched.mc.sim.simulate_mc) is not available: {err}"
            ) from None
        return simulate_mc(item, as_platform(platform).size, **options)

    def describe(self, item: MCTaskSet, platform: Platform) -> str:
        """``mixed-criticality task set: n=… tasks (… HI), m=…, U_LL=…, U_HL=…, U_HH=…``."""
        return (
            f"{item.name or 'mixed-criticality task set'}: n={item.n} tasks ({len(item.hi_tasks())} HI), "
            f"m={platform.size}, U_LL={float(item.U_LL):.4g}, U_HL={float(item.U_HL):.4g}, U_HH={float(item.U_HH):.4g}"
        )


class SegmentedTaskSets(WorkloadKind):
    """Sets of CPU–GPU segmented tasks: :class:`~rtsched.segmented.SegmentedTaskSet`, :class:`~rtsched.segmented.SegmentedBatch` (papers/cpu-gpu-model.md).

    The platform's size is the number of CPU cores; the devices are the names the GPU segments
    give (each its own mutually exclusive resource, papers/cpu-gpu-model.md).
    """

    name = "segmented"
    families = ("segmented",)
    title = "CPU–GPU segmented task sets"
    noun = "segmented task set"
    #: Like the DAG and MC kinds: the references decide a small set at once, without compiling kernels.
    cold_references = True

    def item_type(self) -> type:
        """:class:`~rtsched.segmented.SegmentedTaskSet`."""
        return SegmentedTaskSet

    def batch_type(self) -> type:
        """:class:`~rtsched.segmented.SegmentedBatch`."""
        return SegmentedBatch

    def coerce(self, value: Any) -> SegmentedTaskSet | None:
        """A segmented task set; one :class:`~rtsched.segmented.SegmentedTask`, or a list of them, read as one."""
        if isinstance(value, SegmentedTaskSet):
            return value
        if isinstance(value, SegmentedTask):
            return SegmentedTaskSet([value])
        if isinstance(value, list | tuple) and value and all(isinstance(v, SegmentedTask) for v in value):
            return SegmentedTaskSet(value)
        return None

    def count(self, batch: SegmentedBatch) -> int:
        """``batch.n_sets``."""
        return batch.n_sets

    def batch_of(self, items: Sequence[SegmentedTaskSet]) -> SegmentedBatch:
        """:meth:`~rtsched.segmented.SegmentedBatch.from_tasksets`."""
        return SegmentedBatch.from_tasksets(items)

    def task_count(self, batch: SegmentedBatch) -> int:
        """Tasks over all sets."""
        return batch.n_tasks

    def kernel_arguments(self, batch: SegmentedBatch) -> tuple[Any, ...]:
        """``cpu, G_m, G_e, device, T, D, core, mode, gpu_offsets, task_offsets`` (:class:`~rtsched.segmented.SegmentedBatch`)."""
        return (
            batch.cpu,
            batch.G_m,
            batch.G_e,
            batch.device,
            batch.T,
            batch.D,
            batch.core,
            batch.mode,
            batch.gpu_offsets,
            batch.task_offsets,
        )

    def deadline_model(self, item: Any) -> str:
        """``implicit``, ``constrained`` or ``arbitrary``: the tightest model a set (or a batch) meets."""
        return str(item.deadline_model if isinstance(item, SegmentedTaskSet) else item.deadlines)

    def refuses_platform(self, platform: Platform) -> str | None:
        """Identical CPU cores (the devices are named by the tasks); GPU-cluster and typed platforms do not run them."""
        if isinstance(platform, GPU):
            return "analyses GPU workloads, not CPU–GPU segmented task sets"
        return "analyses typed DAG task sets, not CPU–GPU segmented task sets" if isinstance(platform, Typed) else None

    def probe(self, accepted_deadlines: Sequence[str], platform_kind: str) -> tuple[SegmentedBatch, int]:
        """Two small sets on two cores sharing one GPU (one fits, one does not)."""
        implicit = max(_MODEL_RANK[d] for d in accepted_deadlines) == 0
        fits = SegmentedTaskSet(
            [
                SegmentedTask((1, 1), (GPUSegment(1, 2),), 20, 20 if implicit else 18, core=0),
                SegmentedTask((2,), (), 10, 10, core=0),
                SegmentedTask((1, 2), (GPUSegment(1, 3),), 30, 30 if implicit else 25, core=1),
            ]
        )
        heavy = SegmentedTaskSet(
            [
                SegmentedTask((3, 3), (GPUSegment(2, 6),), 12, 12 if implicit else 11, core=0),
                SegmentedTask((4, 2), (GPUSegment(2, 8),), 14, 14, core=1),
            ]
        )
        return SegmentedBatch.from_tasksets([fits, heavy]), 1 if platform_kind == "uniprocessor" else 2

    def read(self, path: str | os.PathLike[str], **options: Any) -> list[SegmentedTaskSet]:
        """:func:`~rtsched.segmented.read_segmented_tasksets` (YAML, JSON)."""
        from rtsched.segmented.files import read_segmented_tasksets

        return read_segmented_tasksets(path, **options)

    def write(self, items: Sequence[SegmentedTaskSet], path: str | os.PathLike[str], **options: Any) -> None:
        """:func:`~rtsched.segmented.write_segmented_tasksets`."""
        from rtsched.segmented.files import write_segmented_tasksets

        write_segmented_tasksets(list(items), path, **options)

    def generate(self, rng: np.random.Generator, size: int, **parameters: Any) -> SegmentedBatch:
        """:func:`~rtsched.generators.segmented.segmented_batch` (the GCAPS experiment's setup), as a batch."""
        from rtsched.generators.segmented import segmented_batch

        return segmented_batch(rng, size=size, **parameters)

    def simulate(self, item: SegmentedTaskSet, platform: Platform | int, **options: Any) -> Any:
        """:func:`~rtsched.segmented.simulate_segmented` (partitioned FP cores, GPU devices under a protocol)."""
        try:
            from rtsched.segmented.sim import simulate_segmented
        except ImportError as err:
            raise InputError(f"the CPU–GPU simulator (rtsched.segmented.sim) is not available: {err}") from None
        return simulate_segmented(item, as_platform(platform).size, **options)

    def describe(self, item: SegmentedTaskSet, platform: Platform) -> str:
        """``segmented task set: n=… tasks (… use a GPU), m=…, devices=…, U=…``."""
        return (
            f"{item.name or 'segmented task set'}: n={item.n} tasks ({len(item.gpu_tasks())} use a GPU), "
            f"m={platform.size}, devices={','.join(item.devices) or '-'}, U={float(item.utilization):.4g}"
        )


#: Sporadic task sets (the default kind of an analysis).
TASKSETS = TaskSets()
#: Real-time kernels on a GPU's compute clusters.
GPU_WORKLOADS = GPUWorkloads()
#: Sets of sporadic parallel DAG tasks (the analyses of the family rtsched.analyses.dag).
DAG_TASKSETS = DAGTaskSets()
#: Sets of dual-criticality sporadic tasks (the analyses of the family rtsched.analyses.mixed_criticality).
MC_TASKSETS = MCTaskSets()
#: Sets of CPU–GPU segmented tasks (the analyses of the family rtsched.analyses.segmented).
SEGMENTED_TASKSETS = SegmentedTaskSets()

_KINDS: dict[str, WorkloadKind] = {}


def register(kind: WorkloadKind) -> WorkloadKind:
    """Register ``kind`` under its name (once; registering the same object again is a no-op)."""
    if not kind.name:
        raise TypeError(f"{type(kind).__name__} has no name")
    known = _KINDS.get(kind.name)
    if known is not None and known is not kind:
        raise ValueError(f"a workload kind named {kind.name!r} is registered already")
    _KINDS[kind.name] = kind
    return kind


register(TASKSETS)
register(GPU_WORKLOADS)
register(DAG_TASKSETS)
register(MC_TASKSETS)
register(SEGMENTED_TASKSETS)


def kinds() -> list[WorkloadKind]:
    """The registered workload kinds, built-in ones first."""
    return list(_KINDS.values())


def kind_named(name: str) -> WorkloadKind:
    """The kind registered under ``name`` (``taskset``, ``gpu-workload``, ...)."""
    try:
        return _KINDS[name]
    except KeyError:
        raise InputError(f"unknown workload kind {name!r}; the kinds are {', '.join(_KINDS)}", field="kind") from None


def kind_of(value: Any) -> tuple[WorkloadKind, Any]:
    """The kind of ``value`` and ``value`` as an item of it (a list of ``(C, D, T)`` is a task set).

    Every other kind is asked first (``coerce``: its items, or what it reads as one); task sets,
    whose ``coerce`` reads any sequence, come last.
    """
    for kind in reversed(list(_KINDS.values())):  # later kinds are the more specific ones
        found = None if kind is TASKSETS else kind.coerce(value)
        if found is not None:
            return kind, found
    if isinstance(value, TaskSet):
        return TASKSETS, value
    item = TASKSETS.coerce(value)
    if item is None:
        raise InputError(f"cannot analyse a {type(value).__name__}: expected one of {', '.join(k.noun for k in _KINDS.values())}")
    return TASKSETS, item
