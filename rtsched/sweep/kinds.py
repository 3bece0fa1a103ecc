"""Generator kinds of a sweep: task sets (the default), GPU workloads or DAG task sets (``[generator] kind``).

``taskset``
    :func:`rtsched.generators.generate_batch` draws :class:`~rtsched.model.TaskSetBatch` es;
    ``m`` is the number of identical processors; the analyses are the task-set analyses of the
    registry (whose ``supports`` decides where they apply).
``gpu``
    :func:`~rtsched.generators.gpu.generate_gpu_batch` draws GPU workloads (kernels with WCET
    tables C(s) and slowdown factors; see papers/zahaf2021-gpu-partitioning.md) with
    ``clusters = m``: ``m`` is the number M of compute clusters and the swept utilization is the
    *one-cluster* utilization U1 = Σ C_i(1)/T_i (so ``U/m`` means U1/M). The analyses are the
    registry entries of the GPU workload kind (``gpu:ffd``, ``gpu:bfd``, ``gpu:exhaustive``,
    ``gpu:single``); each runs on the platform ``GPU(m)`` (:func:`platform`) where its
    ``supports`` accepts it (the GPU model takes M ≤ 64).
``dag``
    :func:`~rtsched.generators.dag.dag_tasksets` draws sets of ``n`` sporadic DAG tasks
    (:class:`~rtsched.dag.DAGBatch`; papers/dag-generators.md) of total utilization U = Σ vol/T on
    ``m`` identical processors. The graph shape (``shape = "fork-join"``, ``"gnp"`` or
    ``"layered"``) and its parameters are flat keys of ``[generator]`` (``max_depth``,
    ``max_branches``, ``p_par``, ``p_term``; ``vertices``, ``p``; ``layers``, ``width``, ``p``;
    ``wcet`` for every shape), so each can be swept (``by = "generator.p_par"``); a key of
    another shape is refused. The analyses are the registry entries of the DAG workload kind,
    whatever their names: ``names = "all"`` (the default of this kind) selects every one of
    them, ``"featured"`` the featured ones. **Typed DAGs**: ``types = {cpu = 0.8, gpu = 0.2}``
    gives the vertices seeded types (``dag_tasksets(types=...)``: sources and sinks on cpu), and
    ``[platform] units = {gpu = 2}`` makes the platform typed, ``Typed({"cpu": m, "gpu": 2})``
    (``m`` is then the number of cpu units); the analyses that accept the platform run
    (the typed ones, ``platform = "typed"``), the others are skipped.
``mc``
    :func:`~rtsched.generators.mc.mc_tasksets` draws sets of ``n`` dual-criticality tasks
    (:class:`~rtsched.mc.MCBatch`; papers/mc-model.md) after Baruah, Burns and Davis (RTSS 2011):
    the swept utilization is the LO-mode utilization U = U_LL + U_HL; ``cp`` (probability that a
    task is HI), ``cf`` (C(HI) = round(cf·C(LO))), ``periods``, ``ticks``, ``deadlines``,
    ``utilizations``, ``umax`` and ``priorities`` are keys of ``[generator]`` (each can be swept:
    ``variable = "generator.cp"``). ``m`` is the number of identical processors (1 for the
    uniprocessor tests). The analyses are the registry entries of the MC workload kind
    (``names = "all"``, the default of this kind).
``segmented``
    :func:`~rtsched.generators.segmented.segmented_batch` draws CPU–GPU segmented task sets
    (:class:`~rtsched.segmented.SegmentedBatch`; papers/cpu-gpu-generators.md) after the GCAPS
    experiment (Wang et al., ECRTS 2024): ``m`` is the number of CPUs, ``n`` the number of
    **tasks per CPU** (default ``{min = 3, max = 6}``, each CPU draws its own) and the swept
    ``utilization`` the **utilization per CPU** (each CPU's tasks share it by UUniFast;
    ``utilization_spread = s`` draws each CPU's in ``[U - s, U + s]``); ``U/m`` is refused.
    ``gpu_tasks``, ``gpu_segments``, ``gpu_ratio``, ``copy_share`` (a number or ``[lo, hi]``),
    ``periods`` (in ms), ``ticks`` (per ms), ``devices``, ``device_assignment``, ``deadlines`` and
    ``mode`` are keys of ``[generator]``. The analyses are the registry entries of the
    segmented workload kind (``names = "all"``, the default of this kind).

Each kind is one :class:`GeneratorKind` object (:func:`kind_named`) that supplies everything the
experiment parser, the canonical form, the captions and the work units need to know about it:
the generator parameters a file may set (:meth:`~GeneratorKind.keys`) with their defaults and
value types (which give the range keys), what ``m`` means, which analyses it takes, its
platform, its caption and axis labels, and the generator call (:meth:`~GeneratorKind.draw`).
Both kinds return the generated batch and the sum of the realized utilizations, so the rest of
the engine (units, store, tables, plots) does not depend on the kind.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any

import numpy as np

from rtsched.errors import InputError
from rtsched.platform import GPU, Identical, Platform, Typed
from rtsched.sweep.captions import (
    DAG_LABELS,
    GPU_LABELS,
    MC_LABELS,
    TASKSET_LABELS,
    dag_caption,
    gpu_caption,
    mc_caption,
    parameter_label,
    taskset_caption,
)
from rtsched.workloads import DAG_TASKSETS, GPU_WORKLOADS, MC_TASKSETS, SEGMENTED_TASKSETS, TASKSETS, WorkloadKind

if TYPE_CHECKING:
    from rtsched.registry import Analysis
    from rtsched.sweep.values import Context, SweptAxis

__all__ = [
    "DAG_GENERATOR_DEFAULTS",
    "DAG_SHAPE_DEFAULTS",
    "DAG_ROOT_CHOICES",
    "DAG_SHAPE_KEYS",
    "DAG_SHAPE_OPTIONAL_KEYS",
    "DEFAULT_KIND",
    "GENERATOR_DEFAULTS",
    "GPU_GENERATOR_DEFAULTS",
    "GPU_RANGE_KEYS",
    "KINDS",
    "MC_GENERATOR_DEFAULTS",
    "SEGMENTED_GENERATOR_DEFAULTS",
    "GeneratorKind",
    "axis_label",
    "caption",
    "draw",
    "gpu_generator_keys",
    "gpu_refusal",
    "kind_named",
    "platform",
]

#: Defaults of the task-set generator written into the canonical form (so the fingerprint does
#: not depend on the generator module's own defaults, which may change). They are the default
#: experiment's generator, and ``rtsched generate``'s option defaults (rtsched/commands/generate.py
#: reads them), so that ``rtsched generate`` without options draws what ``rtsched sweep`` plots.
GENERATOR_DEFAULTS: dict[str, Any] = {
    "utilizations": "uunifast-discard",
    "periods": "log-uniform:1000:100000",
    "deadlines": "uniform",
    "umax": 1.0,
}
#: Defaults of the GPU generator written into the canonical form (the fingerprint then does
#: not depend on :class:`~rtsched.generators.gpu.GPUWorkloadSpec`'s own defaults, which may change).
GPU_GENERATOR_DEFAULTS: dict[str, Any] = {
    "periods": "log-uniform:100:10000",
    "deadlines": "implicit",
    "parallel": (0.5, 0.99),
    "contention": (0.0, 0.3),
    "nonpreemptive": 0.0,
}

#: Value types of generator parameters (how the parser checks a value and the points of a swept
#: parameter): ``count`` (n: a positive integer or a range {min, max}), ``positive`` (a positive
#: number), ``text`` (a string), ``range`` (``[lo, hi]`` with 0 <= lo <= hi, a tuple inside the
#: engine) and ``probability`` (in [0, 1]). A parameter without a type is passed as written
#: (its swept points are positive numbers).
_COMMON_TYPES = {"n": "count", "umax": "positive", "utilizations": "text", "periods": "text", "deadlines": "text"}
_GPU_TYPES = {
    **_COMMON_TYPES,
    "parallel": "range",
    "contention": "range",
    "nonpreemptive": "probability",
    # Issue 20: the partition mechanism and the interference model, sweepable (``by =
    # "generator.layout"``); not in GPU_GENERATOR_DEFAULTS, so older experiments keep their fingerprint.
    "layout": "text",
    "interference": "text",
    "memory_share": "probability",
    "compute_relief": "range",
}
#: Defaults of the DAG generator written into the canonical form (with the defaults of the chosen
#: shape, :data:`DAG_SHAPE_DEFAULTS`), so that the fingerprint does not depend on
#: :func:`~rtsched.generators.dag.dag_tasksets`' own defaults, which may change.
DAG_GENERATOR_DEFAULTS: dict[str, Any] = {
    "shape": "fork-join",
    "utilizations": "uunifast",
    "deadlines": "implicit",
    "umax": 1.0,
    "wcet": (1, 100),
}
#: The ``[generator]`` keys of each DAG shape and their defaults (a copy of
#: ``rtsched.generators.dag.DEFAULT_SHAPE_PARAMS``, frozen here for the same reason; ``vertices``
#: is the ``n`` of :func:`~rtsched.generators.dag.gnp`, renamed because ``n`` is the number of tasks).
DAG_SHAPE_DEFAULTS: dict[str, dict[str, Any]] = {
    "fork-join": {"max_depth": 3, "max_branches": 5, "p_par": 0.6, "p_term": 0.4},
    "gnp": {"vertices": 20, "p": 0.1},
    "layered": {"layers": 5, "width": (1, 5), "p": 0.2},
}
#: Keys of each shape (``wcet`` belongs to every shape).
#: Optional shape keys, not in the defaults (an experiment that leaves them out keeps its canonical
#: form): fork-join's ``root = "fork"`` makes every graph fork at its root (``root_forks``).
DAG_SHAPE_OPTIONAL_KEYS: dict[str, tuple[str, ...]] = {"fork-join": ("root",)}
DAG_SHAPE_KEYS: dict[str, tuple[str, ...]] = {
    shape: (*d, *DAG_SHAPE_OPTIONAL_KEYS.get(shape, ())) for shape, d in DAG_SHAPE_DEFAULTS.items()
}
#: Values of fork-join's ``root`` key.
DAG_ROOT_CHOICES = ("drawn", "fork")
#: Modules besides the generators whose code decides what a DAG unit draws (:meth:`DAGKind.code_digest`).
_DAG_CODE_MODULES = ("rtsched.dag.model",)
#: Names of ``[generator]`` keys in the shape functions' signatures, where they differ.
_DAG_SHAPE_ARGUMENT = {"vertices": "n"}
_DAG_TYPES = {
    "n": "count",
    "shape": "text",
    "utilizations": "text",
    "deadlines": "text",
    "priorities": "text",
    "root": "text",
    "umax": "positive",
    "wcet": "integer-range",
    "max_depth": "integer",
    "max_branches": "integer",
    "p_par": "probability",
    "p_term": "probability",
    "vertices": "integer",
    "p": "probability",
    "layers": "integer",
    "width": "integer-range",
    "max_tries": "integer",
    # Issue 42: seeded vertex types {type: probability} (typed DAGs); not in DAG_GENERATOR_DEFAULTS,
    # so experiments without it keep their fingerprint.
    "types": "weights",
}

#: Defaults of the mixed-criticality generator written into the canonical form (issue #44), so that
#: the fingerprint does not depend on :func:`~rtsched.generators.mc.mc_tasksets`' own defaults.
MC_GENERATOR_DEFAULTS: dict[str, Any] = {
    "cp": 0.5,
    "cf": 2.0,
    "periods": "log-uniform:10:1000",
    "ticks": 1,
    "deadlines": "implicit",
    "utilizations": "uunifast",
    "umax": 1.0,
    "priorities": "drawn",
}
_MC_TYPES = {
    "n": "count",
    "cp": "probability",
    "cf": "positive",
    "periods": "text",
    "ticks": "integer",
    "deadlines": "text",
    "utilizations": "text",
    "umax": "positive",
    "priorities": "text",
    "max_tries": "integer",
}
#: Modules besides the generators whose code decides what an MC unit draws (:meth:`MCKind.code_digest`).
_MC_CODE_MODULES = ("rtsched.mc.model",)

#: Fields of GPUWorkloadSpec the engine sets itself (from m and the swept utilization).
_GPU_ENGINE_FIELDS = ("clusters", "U1")


@dataclass(frozen=True)
class GeneratorKind:
    """What a sweep needs to know about one kind of generated input (the base: task sets).

    Attributes
    ----------
    name:
        The ``[generator] kind`` value.
    inputs:
        What one generated item is, for messages (``task sets``).
    m_means:
        What ``platform.m`` is, for messages.
    defaults:
        Generator parameters written into the canonical form when the file does not set them.
    value_types:
        Type of each checked generator parameter (see ``_COMMON_TYPES`` above).
    known_keys:
        Parameters a file may always set, whether or not the generator's signature is found.
    workload:
        The :class:`~rtsched.workloads.WorkloadKind` the generator draws: the analyses of that
        kind are the ones a sweep of this generator runs.
    """

    name: str
    inputs: str
    m_means: str
    defaults: Mapping[str, Any]
    value_types: Mapping[str, str]
    known_keys: tuple[str, ...]
    labels: Mapping[str, str] = field(default_factory=dict)
    workload: WorkloadKind = TASKSETS
    #: ``[analyses] names`` when the file leaves it out: ``"featured"`` or ``"all"`` (every
    #: analysis of ``workload``).
    default_names: str = "featured"

    @property
    def range_keys(self) -> tuple[str, ...]:
        """Parameters that are ranges ``[lo, hi]``."""
        return tuple(k for k, kind in self.value_types.items() if kind == "range")

    def value_type(self, key: str) -> str | None:
        """The type of parameter ``key`` (None: passed as written)."""
        return self.value_types.get(key)

    def keys(self) -> tuple[str, ...]:
        """Keyword parameters of ``generate_batch`` a file may set (all but rng, size, utilization)."""
        try:
            from rtsched.generators import generate_batch
        except ImportError:
            return self.known_keys
        params = inspect.signature(generate_batch).parameters
        keys = [
            name
            for name, p in params.items()
            if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD) and name not in ("rng", "size", "utilization")
        ]
        return tuple(dict.fromkeys([*self.known_keys, *keys]))

    def platform(self, m: int, units: Sequence[tuple[str, int]] = ()) -> Platform:
        """The platform a unit's analyses run on (``units``: other unit types, DAG experiments only)."""
        if units:
            raise InputError(f"a typed platform (platform.units) is for DAG experiments, not {self.inputs}")
        return Identical(m)

    def featured_refusal(self) -> str | None:
        """Why ``names = "featured"`` does not apply to this kind (None: it does)."""
        return None

    def analysis_refusal(self, entry: Analysis, processors: tuple[int, ...]) -> str | None:
        """Why analysis ``entry``, named in the file, cannot run on this kind's inputs (None: it can)."""
        if entry.workload is not self.workload:
            other = next((k.name for k in _BY_NAME.values() if k.workload is entry.workload), None)
            return (
                f"analysis {entry.name!r} analyses {entry.workload.title}, but this experiment draws {self.inputs}; "
                f"set [generator] kind to a generator of {entry.workload.title} (and its parameters) to sweep it"
                + (f' ([generator] kind = "{other}")' if other is not None else "")
            )
        return None

    def code_digest(self, base: str) -> str:
        """The digest of the code a unit's inputs come from (:func:`rtsched.sweep.store.generator_digest`).

        ``base`` covers the generators, the task and GPU models and the sweep's own modules; a kind
        whose inputs also depend on other code adds it here (stored units of another digest are
        recomputed). Task sets and GPU workloads add nothing.
        """
        return base

    def complete(
        self, ctx: Context, generator: dict[str, Any], given: Mapping[str, Any], swept: Mapping[str, SweptAxis]
    ) -> None:
        """Check the generator parameters as a whole and fill in defaults that depend on others (in place).

        ``given`` is the file's ``[generator]`` table, ``swept`` the swept variables by name. The
        base kinds have nothing to do.
        """

    def caption(self, canonical: Mapping[str, Any]) -> str:
        """The plot caption of an experiment of this kind, given in canonical form."""
        return taskset_caption(canonical)

    def axis_label(self, variable: str) -> str:
        """A plot label (with units) for a swept variable."""
        return self.labels.get(variable) or TASKSET_LABELS.get(variable) or parameter_label(variable)

    def checked(self, draws: Sequence[tuple[Mapping[str, Any], float]]) -> None:
        """Warn (once, at the largest U) when plain UUniFast task utilizations sum above 1 somewhere.

        ``draws`` are the generator parameters and the total utilization of each configuration
        of an experiment (:func:`rtsched.sweep.units.configurations`). Tasks drawn above u = 1 are
        capped at C = T and the sets lose utilization
        (:func:`~rtsched.generators.utilizations.warn_uunifast_loss`).
        """
        from rtsched.generators.utilizations import warn_uunifast_loss

        worst: tuple[int, float] | None = None
        for params, utilization in draws:
            if params.get("utilizations") == "uunifast" and utilization > 1:
                n = params.get("n", 1)
                n = max(n) if isinstance(n, tuple) else n
                if worst is None or utilization > worst[1]:
                    worst = (int(n), utilization)
        if worst is not None:
            warn_uunifast_loss(*worst, stacklevel=4)

    def generate(
        self, rng: np.random.Generator, *, n: int, utilization: float, size: int, m: int, params: Mapping[str, Any]
    ) -> Any:
        """Draw ``size`` sets of ``n`` tasks; an object with ``batch`` and ``realized_utilization``."""
        try:
            from rtsched.generators import generate_batch
        except ImportError as err:  # pragma: no cover - the generators ship with rtsched
            raise InputError(f"rtsched.generators.generate_batch is not available ({err})") from None
        return generate_batch(rng, n=n, utilization=utilization, size=size, **params)

    def join(self, batches: list[Any]) -> Any:
        """One batch of the sets of ``batches``, in order."""
        from rtsched.model import TaskSetBatch

        return TaskSetBatch.concatenate(batches)

    def draw(
        self, rng: np.random.Generator, *, n: Any, utilization: float, size: int, m: int, params: Mapping[str, Any]
    ) -> tuple[Any, float]:
        """Draw ``size`` sets (or workloads) of one configuration; returns the batch and Σ realized U.

        A range ``n = (lo, hi)`` draws each set's size first, then generates the sets of each size in
        increasing order of size (deterministic given ``rng``) and joins them.
        """
        if not isinstance(n, tuple | list):
            out = self.generate(rng, n=int(n), utilization=utilization, size=size, m=m, params=params)
            return out.batch, float(np.sum(out.realized_utilization))
        sizes = rng.integers(int(n[0]), int(n[1]) + 1, size=size)
        batches = []
        total = 0.0
        for value, count in zip(*np.unique(sizes, return_counts=True), strict=True):
            out = self.generate(rng, n=int(value), utilization=utilization, size=int(count), m=m, params=params)
            batches.append(out.batch)
            total += float(np.sum(out.realized_utilization))
        return self.join(batches), total


@dataclass(frozen=True)
class GPUKind(GeneratorKind):
    """GPU workloads on ``m`` compute clusters (:func:`~rtsched.generators.gpu.generate_gpu_batch`)."""

    def keys(self) -> tuple[str, ...]:
        """Parameters of the GPU generator a file may set (``n`` and the GPUWorkloadSpec fields but M, U1)."""
        from rtsched.generators.gpu import GPUWorkloadSpec

        names = [f.name for f in fields(GPUWorkloadSpec) if f.name not in _GPU_ENGINE_FIELDS]
        return tuple(dict.fromkeys([*self.known_keys, *names]))

    def platform(self, m: int, units: Sequence[tuple[str, int]] = ()) -> Platform:
        """``GPU(m)``: a GPU analysis refuses a plain processor count."""
        if units:
            raise InputError("a typed platform (platform.units) is for DAG experiments, not GPU workloads")
        return GPU(m)

    def featured_refusal(self) -> str | None:
        """The featured analyses analyse task sets: a GPU experiment names its analyses."""
        return (
            'a GPU experiment ([generator] kind = "gpu") names its analyses (the featured ones analyse task '
            'sets), e.g. names = ["gpu:single", "gpu:ffd"]'
        )

    def analysis_refusal(self, entry: Analysis, processors: tuple[int, ...]) -> str | None:
        """A task-set analysis, or a GPU analysis that accepts none of the platform's ``GPU(m)``."""
        if entry.workload is not self.workload:
            return (
                f"analysis {entry.name!r} analyses {entry.workload.title} (platform {entry.platform!r}), but this experiment "
                f'draws GPU workloads ([generator] kind = "gpu"); name GPU analyses such as gpu:ffd or gpu:exhaustive'
            )
        refusals = [gpu_refusal(entry, m) for m in processors]
        if all(why is not None for why in refusals):
            ms = ", ".join(map(str, processors))
            return (
                f"analysis {entry.name!r} does not apply to platform.m = {ms} (M, the number of compute clusters): "
                f"{refusals[0]}; change m"
            )
        return None

    def caption(self, canonical: Mapping[str, Any]) -> str:
        """What U means for GPU workloads, and the WCET model."""
        return gpu_caption(canonical)

    def checked(self, draws: Sequence[tuple[Mapping[str, Any], float]]) -> None:
        """Nothing to warn about (the GPU generator draws UUniFast one-cluster utilizations without caps)."""

    def generate(
        self, rng: np.random.Generator, *, n: int, utilization: float, size: int, m: int, params: Mapping[str, Any]
    ) -> Any:
        """Draw ``size`` workloads of ``n`` kernels on ``m`` clusters."""
        from rtsched.generators.gpu import generate_gpu_batch

        return generate_gpu_batch(rng, n=n, utilization=utilization, size=size, clusters=m, **params)

    def join(self, batches: list[Any]) -> Any:
        """One batch of the workloads of ``batches``; implicit deadlines only if all are."""
        from rtsched.gpu import GPUWorkloadBatch

        models = {b.deadlines for b in batches}
        return GPUWorkloadBatch(
            [w for b in batches for w in b], "implicit" if models == {"implicit"} else "constrained"
        )


@dataclass(frozen=True)
class _DrawnDAGs:
    """A DAG batch and the realized utilization Σ vol/T of each of its sets."""

    batch: Any
    realized_utilization: np.ndarray


@dataclass(frozen=True)
class DAGKind(GeneratorKind):
    """Sets of sporadic DAG tasks on ``m`` identical processors (:func:`~rtsched.generators.dag.dag_tasksets`)."""

    def keys(self) -> tuple[str, ...]:
        """The ``[generator]`` keys of DAG experiments (``n``, the common keys, every shape's keys)."""
        return self.known_keys

    def platform(self, m: int, units: Sequence[tuple[str, int]] = ()) -> Platform:
        """``Identical(m)``, or with ``units`` (``[platform] units``) ``Typed({"cpu": m, **units})``."""
        if units:
            return Typed({"cpu": m, **dict(units)})
        return Identical(m)

    def featured_refusal(self) -> str | None:
        """None: ``"featured"`` selects the featured DAG analyses (an error names them if there are none)."""
        return None

    def code_digest(self, base: str) -> str:
        """``base`` and :mod:`rtsched.dag.model` (DAGTask, DAGBatch: the volumes, lengths and arrays analyses read)."""
        return _modules_digest(base, _DAG_CODE_MODULES)

    def complete(
        self, ctx: Context, generator: dict[str, Any], given: Mapping[str, Any], swept: Mapping[str, SweptAxis]
    ) -> None:
        """Refuse parameters of another shape than the experiment's; fill in the shape's defaults.

        With a fixed shape its missing parameters get :data:`DAG_SHAPE_DEFAULTS` (written into the
        canonical form); with the shape swept, each configuration takes the defaults of its shape
        for what the file leaves out, and the file may set the keys of any swept shape.
        """
        from rtsched.generators.dag import DAG_DEADLINES, DAG_PRIORITY_ORDERS, DAG_SHAPES, DAG_UTILIZATION_METHODS

        axis = swept.get("generator.shape")
        shapes: tuple[Any, ...] = axis.points if axis is not None else (generator.get("shape"),)
        where = axis.key if axis is not None else "generator.shape"
        for shape in shapes:
            if shape not in DAG_SHAPES:
                raise ctx.error(f"unknown DAG shape {shape!r}; choose one of {', '.join(DAG_SHAPES)}", where)
        choices_of = (
            ("utilizations", DAG_UTILIZATION_METHODS, "utilization method"),
            ("deadlines", DAG_DEADLINES, "deadline model"),
            ("priorities", DAG_PRIORITY_ORDERS, "priority order"),
            ("root", DAG_ROOT_CHOICES, "root rule"),
        )
        for key, choices, what in choices_of:
            variable = f"generator.{key}"
            values = swept[variable].points if variable in swept else (generator.get(key),)
            for value in values:
                if key in ("priorities", "root") and value is None:
                    continue  # not given: drawn order / drawn root (kept out of the canonical form)
                if value not in choices:
                    raise ctx.error(
                        f"unknown {what} {value!r} for DAG tasks; choose one of {', '.join(choices)}",
                        swept[variable].key if variable in swept else variable,
                    )
        allowed = {key for shape in shapes for key in DAG_SHAPE_KEYS[shape]}
        named = [(key, f"generator.{key}") for key in given] + [
            (variable.removeprefix("generator."), axis_.key)
            for variable, axis_ in swept.items()
            if variable.startswith("generator.")
        ]
        for key, where in named:
            owners = [shape for shape, keys in DAG_SHAPE_KEYS.items() if key in keys]
            if owners and key not in allowed:
                shape_text = ", ".join(f'"{s}"' for s in shapes)
                raise ctx.error(
                    f"{key} is a parameter of the {' and '.join(owners)} shape, not of shape = {shape_text}; "
                    f'remove it or set shape = "{owners[0]}"',
                    where,
                )
        if len(shapes) == 1:
            for key, value in DAG_SHAPE_DEFAULTS[shapes[0]].items():
                if key not in generator and f"generator.{key}" not in swept:
                    generator[key] = value

    def analysis_refusal(self, entry: Analysis, processors: tuple[int, ...]) -> str | None:
        """An analysis of another workload kind (task sets, GPU workloads)."""
        if entry.workload is not self.workload:
            return (
                f"analysis {entry.name!r} analyses {entry.workload.title}, but this experiment draws DAG task sets "
                '([generator] kind = "dag"); name analyses of DAG task sets, or leave names out (names = "all": '
                "every analysis of DAG task sets)"
            )
        return None

    def caption(self, canonical: Mapping[str, Any]) -> str:
        """The shape and its parameters, the utilization, period and deadline rules (U = Σ vol/T)."""
        return dag_caption(canonical)

    def checked(self, draws: Sequence[tuple[Mapping[str, Any], float]]) -> None:
        """Nothing to warn about: a DAG task may have u > 1 (its graph is redrawn when len > T)."""

    def generate(
        self, rng: np.random.Generator, *, n: int, utilization: float, size: int, m: int, params: Mapping[str, Any]
    ) -> Any:
        """Draw ``size`` sets of ``n`` DAG tasks of total utilization ``utilization`` (``m`` is not used)."""
        from rtsched.dag import DAGBatch
        from rtsched.generators.dag import dag_tasksets

        shape = params.get("shape", DAG_GENERATOR_DEFAULTS["shape"])
        shape_params = dict(DAG_SHAPE_DEFAULTS.get(shape, {}))
        shape_params.update({key: params[key] for key in DAG_SHAPE_KEYS.get(shape, ()) if key in params})
        if "root" in shape_params:
            shape_params["root_forks"] = shape_params.pop("root") == "fork"
        shape_params = {_DAG_SHAPE_ARGUMENT.get(key, key): value for key, value in shape_params.items()}
        shape_params["wcet"] = params.get("wcet", DAG_GENERATOR_DEFAULTS["wcet"])
        options = {
            key: params[key]
            for key in ("utilizations", "deadlines", "priorities", "umax", "max_tries")
            if key in params
        }
        if params.get("types") is not None:
            options["types"] = dict(params["types"])
        try:
            sets = dag_tasksets(
                rng, n_tasks=n, utilization=utilization, size=size, shape=shape, shape_params=shape_params, **options
            )
        except InputError as err:
            raise _dag_error(err, shape) from None
        batch = DAGBatch.from_tasksets(sets)
        per_task = batch.volume / batch.T
        realized = np.add.reduceat(per_task, batch.task_offsets[:-1]) if batch.n_sets else np.zeros(0)
        return _DrawnDAGs(batch, realized)

    def join(self, batches: list[Any]) -> Any:
        """One batch of the sets of ``batches``, in order."""
        from rtsched.dag import DAGBatch

        return DAGBatch.from_tasksets([s for b in batches for s in b])


def _dag_error(err: InputError, shape: str) -> InputError:
    """The generator's error with its field named as in the experiment file (``n_tasks`` is ``n``, gnp's ``n`` is ``vertices``)."""
    field_, message = err.field, err.message
    if field_ == "n_tasks":
        field_, message = "n", message.replace("n_tasks", "n (tasks per set)", 1)
    elif field_ == "n" and shape == "gnp":
        field_, message = "vertices", message.replace("n must", "vertices must", 1)
    elif field_ in ("max_tries", "utilization") and err.set_index is not None:
        message = f"{shape} DAGs: {message}"
    return InputError(message, field=field_)


def _modules_digest(base: str, modules: Sequence[str]) -> str:
    """``base`` and the source of each module of ``modules`` (by name), for a kind's ``code_digest``."""
    import hashlib
    import importlib.util
    from pathlib import Path

    digest = hashlib.sha256(base.encode())
    for name in modules:
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.origin is not None:
            digest.update(name.encode() + b"\0" + hashlib.sha256(Path(spec.origin).read_bytes()).digest())
    return digest.hexdigest()


def _values(generator: Mapping[str, Any], swept: Mapping[str, SweptAxis], key: str) -> tuple[tuple[Any, str], ...]:
    """The values ``generator.<key>`` takes (each swept point, or the one given) with where each is written."""
    variable = f"generator.{key}"
    if variable in swept:
        return tuple((v, swept[variable].key) for v in swept[variable].points)
    return ((generator.get(key), variable),)


def _check_choices(
    ctx: Context,
    generator: Mapping[str, Any],
    swept: Mapping[str, SweptAxis],
    choices_of: Sequence[tuple[str, Sequence[str], str]],
    sets: str,
) -> None:
    """Refuse a value of a key outside its choices: rows ``(key, choices, what)``; ``sets`` names the kind's sets."""
    for key, choices, what in choices_of:
        for value, where in _values(generator, swept, key):
            if value not in choices:
                raise ctx.error(f"unknown {what} {value!r} for {sets}; choose one of {', '.join(choices)}", where)


def _check_periods(ctx: Context, generator: Mapping[str, Any], swept: Mapping[str, SweptAxis]) -> None:
    """Refuse a period spec (``generator.periods``, each swept point) that the generators cannot parse."""
    from rtsched.generators import parse_periods

    for value, where in _values(generator, swept, "periods"):
        try:
            parse_periods(value)
        except InputError as err:
            raise ctx.error(err.message, where) from None


@dataclass(frozen=True)
class _DrawnMC:
    """An MC batch and the realized LO-mode utilization Σ C(LO)/T of each of its sets."""

    batch: Any
    realized_utilization: np.ndarray


@dataclass(frozen=True)
class MCKind(GeneratorKind):
    """Sets of dual-criticality tasks on ``m`` identical processors (:func:`~rtsched.generators.mc.mc_tasksets`)."""

    def keys(self) -> tuple[str, ...]:
        """The ``[generator]`` keys of MC experiments."""
        return self.known_keys

    def featured_refusal(self) -> str | None:
        """None: ``"featured"`` selects the featured MC analyses (an error names them if there are none)."""
        return None

    def code_digest(self, base: str) -> str:
        """``base`` and :mod:`rtsched.mc.model` (MCTask, MCBatch: the arrays analyses read)."""
        return _modules_digest(base, _MC_CODE_MODULES)

    def complete(
        self, ctx: Context, generator: dict[str, Any], given: Mapping[str, Any], swept: Mapping[str, SweptAxis]
    ) -> None:
        """Refuse unknown choices, a criticality factor below 1 and a bad period spec (swept points included)."""
        from rtsched.generators.mc import MC_DEADLINES, MC_PRIORITY_ORDERS, MC_UTILIZATION_METHODS

        def values(key: str) -> tuple[tuple[Any, str], ...]:
            return _values(generator, swept, key)

        choices_of = (
            ("utilizations", MC_UTILIZATION_METHODS, "utilization method"),
            ("deadlines", MC_DEADLINES, "deadline model"),
            ("priorities", MC_PRIORITY_ORDERS, "priority order"),
        )
        _check_choices(ctx, generator, swept, choices_of, "mixed-criticality tasks")
        for value, where in values("cf"):
            if value is None or value < 1:
                raise ctx.error(f"the criticality factor cf = C(HI)/C(LO) must be at least 1, got {value!r}", where)
        for value, where in values("ticks"):
            if value is None or value < 1:
                raise ctx.error(f"ticks must be a positive integer, got {value!r}", where)
        _check_periods(ctx, generator, swept)

    def analysis_refusal(self, entry: Analysis, processors: tuple[int, ...]) -> str | None:
        """An analysis of another workload kind (task sets, DAG task sets, GPU workloads)."""
        if entry.workload is not self.workload:
            return (
                f"analysis {entry.name!r} analyses {entry.workload.title}, but this experiment draws mixed-criticality "
                'task sets ([generator] kind = "mc"); name analyses of mixed-criticality task sets, or leave names out '
                '(names = "all": every analysis of mixed-criticality task sets)'
            )
        return None

    def caption(self, canonical: Mapping[str, Any]) -> str:
        """CP, CF, the utilization, period and deadline rules (U = U_LL + U_HL)."""
        return mc_caption(canonical)

    def checked(self, draws: Sequence[tuple[Mapping[str, Any], float]]) -> None:
        """Nothing to warn about: a set whose WCET exceeds its period is redrawn (generators/mc.py, rule 5)."""

    def generate(
        self, rng: np.random.Generator, *, n: int, utilization: float, size: int, m: int, params: Mapping[str, Any]
    ) -> Any:
        """Draw ``size`` sets of ``n`` dual-criticality tasks of LO-mode utilization ``utilization`` (``m`` is not used)."""
        from rtsched.generators.mc import mc_batch

        options = {key: params[key] for key in _MC_TYPES if key != "n" and key in params}
        try:
            batch = mc_batch(rng, n=n, utilization=utilization, size=size, **options)
        except InputError as err:
            raise InputError(f"mixed-criticality tasks: {err.message}", field=err.field) from None
        per_task = batch.C_lo / batch.T
        realized = np.add.reduceat(per_task, batch.task_offsets[:-1]) if batch.n_sets else np.zeros(0)
        return _DrawnMC(batch, realized)

    def join(self, batches: list[Any]) -> Any:
        """One batch of the sets of ``batches``, in order."""
        from rtsched.mc import MCBatch

        return MCBatch.concatenate(batches)


#: Defaults of the CPU–GPU segmented generator written into the canonical form (issue #43): the
#: GCAPS experiment's setup (rtsched.generators.segmented.SEGMENTED_DEFAULTS, frozen here so that
#: the fingerprint does not depend on the generator module's own defaults). ``n`` is the number
#: of tasks per CPU.
SEGMENTED_GENERATOR_DEFAULTS: dict[str, Any] = {
    "n": (3, 6),
    "utilization_spread": 0.0,
    "gpu_tasks": (0.4, 0.6),
    "periods": "uniform:30:500",
    "ticks": 10,
    "gpu_segments": (1, 3),
    "gpu_ratio": (0.2, 2.0),
    "copy_share": (0.1, 0.3),
    "devices": ("gpu",),
    "device_assignment": "round-robin",
    "deadlines": "implicit",
}
#: Value types of the segmented generator's keys; ``gpu_tasks``, ``gpu_segments``, ``gpu_ratio``,
#: ``copy_share`` (a number or ``[lo, hi]``) and ``devices`` (a list of names) have none: the
#: parser passes them as written, :meth:`SegmentedKind.complete` makes lists tuples, and the
#: generator checks them (one draw per configuration at parse time).
_SEGMENTED_TYPES = {
    "n": "count",
    "utilization_spread": "probability",
    "periods": "text",
    "ticks": "integer",
    "deadlines": "text",
    "device_assignment": "text",
    "mode": "text",
    "gpu_clusters": "integer",
    "gpu_layout": "text",
}
_SEGMENTED_UNTYPED = ("gpu_tasks", "gpu_segments", "gpu_ratio", "copy_share", "devices", "parallel", "slowdown_step")
#: Axis labels of segmented experiments; a variable not listed takes its task-set label.
SEGMENTED_LABELS = {
    "utilization": "Utilization per CPU U = Σ (C + G)/T (dimensionless)",
    "n": "Number of tasks per CPU n",
    "m": "Number of CPUs m",
    "generator.gpu_tasks": "Fraction of GPU-using tasks",
    "generator.gpu_ratio": "GPU/CPU time ratio G/C of GPU tasks",
    "generator.copy_share": "Copy share G_m/G of GPU segments",
    "generator.gpu_segments": "GPU segments per GPU task η",
    "generator.utilization_spread": "Spread s of the per-CPU utilization (U ± s)",
}


@dataclass(frozen=True)
class _DrawnSegmented:
    """A segmented batch and the realized mean per-CPU utilization of each of its sets."""

    batch: Any
    realized_utilization: np.ndarray


def _plain_text(value: Any) -> str:
    if isinstance(value, tuple | list) and len(value) == 2:
        return f"{value[0]}–{value[1]}"
    return str(value)


def segmented_caption(canonical: Mapping[str, Any]) -> str:
    """The caption of a segmented experiment: the GCAPS setup's parameters as the file gives them."""
    gen = dict(canonical.get("generator", {}))
    sweep = canonical.get("sweep", {})
    swept = {sweep.get("variable"), sweep.get("by")}
    for key in (*SEGMENTED_GENERATOR_DEFAULTS, "mode"):
        if f"generator.{key}" in swept:
            gen[key] = "swept"
    n = gen.get("n")
    n_text = f"{n['min']}..{n['max']} (uniform)" if isinstance(n, Mapping) else "swept" if n is None else str(n)
    u = gen.get("utilization")
    spread = gen.get("utilization_spread") or 0
    u_text = "swept" if u is None else (f"{u} ± {spread}" if spread else str(u))
    ms = ", ".join(str(m) for m in canonical.get("platform", {}).get("m", []))
    return (
        f"Generator: CPU–GPU segmented tasks after the GCAPS setup (Wang et al., ECRTS 2024); m = {ms} CPUs, "
        f"{n_text} tasks per CPU; per-CPU utilization {u_text} (UUniFast over the CPU's tasks, U = Σ (C + G)/T); "
        f"GPU tasks {_plain_text(gen.get('gpu_tasks'))}; periods {gen.get('periods')} ms x {gen.get('ticks')} "
        f"ticks/ms; {_plain_text(gen.get('gpu_segments'))} GPU segments; G/C {_plain_text(gen.get('gpu_ratio'))}; "
        f"G_m/G {_plain_text(gen.get('copy_share'))}; devices {', '.join(gen.get('devices') or ['gpu'])}; "
        f"deadlines {gen.get('deadlines')}; RM priorities; {sweep.get('sets_per_point')} sets per point; "
        f"seed {canonical.get('seed')}; bands: 95% Wilson score intervals."
    )


@dataclass(frozen=True)
class SegmentedKind(GeneratorKind):
    """CPU–GPU segmented task sets on ``m`` CPUs (:func:`~rtsched.generators.segmented.segmented_batch`)."""

    def keys(self) -> tuple[str, ...]:
        """The ``[generator]`` keys of segmented experiments."""
        return self.known_keys

    def featured_refusal(self) -> str | None:
        """None: ``"featured"`` selects the featured segmented analyses (an error names them if there are none)."""
        return None

    def code_digest(self, base: str) -> str:
        """``base`` and :mod:`rtsched.segmented.model` (SegmentedTask, SegmentedBatch: the arrays analyses read)."""
        return _modules_digest(base, ("rtsched.segmented.model",))

    def complete(
        self, ctx: Context, generator: dict[str, Any], given: Mapping[str, Any], swept: Mapping[str, SweptAxis]
    ) -> None:
        """Refuse U/m and unknown choices; make the untyped lists tuples; drop the default n when n is swept."""
        from rtsched.generators.segmented import SEGMENTED_DEADLINES, SEGMENTED_DEVICE_ASSIGNMENTS
        from rtsched.segmented.model import MODES

        if "U/m" in swept or "normalized_utilization" in given:
            where = swept["U/m"].key if "U/m" in swept else "generator.normalized_utilization"
            raise ctx.error(
                "U/m is not defined for segmented task sets: utilization is the utilization per CPU "
                "(sweep or give utilization)",
                where,
            )
        if "n" in swept:
            generator.pop("n", None)
        for key in _SEGMENTED_UNTYPED:
            if isinstance(generator.get(key), list):
                generator[key] = tuple(generator[key])

        def values(key: str) -> tuple[tuple[Any, str], ...]:
            return _values(generator, swept, key)

        choices_of = (
            ("deadlines", SEGMENTED_DEADLINES, "deadline model"),
            ("device_assignment", SEGMENTED_DEVICE_ASSIGNMENTS, "device assignment"),
        )
        _check_choices(ctx, generator, swept, choices_of, "segmented task sets")
        for value, where in values("mode"):
            if value is not None and value not in MODES:
                raise ctx.error(f"mode must be busy or suspend (or left out), got {value!r}", where)
        _check_periods(ctx, generator, swept)

    def analysis_refusal(self, entry: Analysis, processors: tuple[int, ...]) -> str | None:
        """An analysis of another workload kind."""
        if entry.workload is not self.workload:
            return (
                f"analysis {entry.name!r} analyses {entry.workload.title}, but this experiment draws CPU–GPU "
                'segmented task sets ([generator] kind = "segmented"); name analyses of segmented task sets, or leave '
                'names out (names = "all": every analysis of segmented task sets)'
            )
        return None

    def caption(self, canonical: Mapping[str, Any]) -> str:
        """The GCAPS setup's parameters (per-CPU utilization, tasks per CPU, GPU shares)."""
        return segmented_caption(canonical)

    def checked(self, draws: Sequence[tuple[Mapping[str, Any], float]]) -> None:
        """Nothing to warn about: per-CPU utilizations are at most 1 (the generator refuses more)."""

    def generate(
        self, rng: np.random.Generator, *, n: Any, utilization: float, size: int, m: int, params: Mapping[str, Any]
    ) -> Any:
        """Draw ``size`` sets on ``m`` CPUs with ``n`` tasks per CPU (a number or a range) at per-CPU ``utilization``."""
        from rtsched.generators.segmented import per_cpu_utilization, segmented_batch

        options = {key: value for key, value in params.items() if key != "utilization_spread"}
        if isinstance(options.get("gpu_segments"), float) and float(options["gpu_segments"]).is_integer():
            options["gpu_segments"] = int(options["gpu_segments"])  # a swept point (points are floats)
        spread = float(params.get("utilization_spread") or 0.0)
        target: Any = (utilization - spread, utilization + spread) if spread else utilization
        try:
            batch = segmented_batch(rng, size, m=m, tasks_per_cpu=n, utilization=target, **options)
        except InputError as err:
            field_ = {"tasks_per_cpu": "n"}.get(err.field or "", err.field)
            message = err.message.replace("tasks_per_cpu", "n (tasks per CPU)", 1)
            if err.field == "utilization" and spread:
                message += f" (utilization {utilization} ± utilization_spread {spread})"
            raise InputError(f"segmented task sets: {message}", field=field_) from None
        realized = per_cpu_utilization(batch, m).mean(axis=1) if batch.n_sets else np.zeros(0)
        return _DrawnSegmented(batch, realized)

    def draw(
        self, rng: np.random.Generator, *, n: Any, utilization: float, size: int, m: int, params: Mapping[str, Any]
    ) -> tuple[Any, float]:
        """Draw ``size`` sets; a range ``n = (lo, hi)`` is each CPU's own draw (not one size per set)."""
        out = self.generate(rng, n=n, utilization=utilization, size=size, m=m, params=params)
        return out.batch, float(np.sum(out.realized_utilization))

    def join(self, batches: list[Any]) -> Any:
        """One batch of the sets of ``batches``, in order."""
        from rtsched.segmented import SegmentedBatch

        return SegmentedBatch.concatenate(batches)


_TASKSET = GeneratorKind(
    name="taskset",
    inputs="task sets",
    m_means="the number of identical processors",
    defaults=GENERATOR_DEFAULTS,
    # issue #46: Baker-style generation's method and cap rule are text (sweepable: by = "generator.cap");
    # not in GENERATOR_DEFAULTS, so experiments without them keep their fingerprint.
    value_types={**_COMMON_TYPES, "method": "text", "cap": "text"},
    known_keys=("n", "utilizations", "periods", "deadlines", "umax"),
)
_GPU = GPUKind(
    name="gpu",
    inputs="GPU workloads",
    m_means="M, the number of compute clusters",
    defaults=GPU_GENERATOR_DEFAULTS,
    value_types=_GPU_TYPES,
    known_keys=("n", *GPU_GENERATOR_DEFAULTS),
    labels=GPU_LABELS,
    workload=GPU_WORKLOADS,
)
_DAG = DAGKind(
    name="dag",
    inputs="DAG task sets",
    m_means="the number of identical processors",
    defaults=DAG_GENERATOR_DEFAULTS,
    value_types=_DAG_TYPES,
    known_keys=tuple(_DAG_TYPES),
    labels=DAG_LABELS,
    workload=DAG_TASKSETS,
    default_names="all",
)
_MC = MCKind(
    name="mc",
    inputs="mixed-criticality task sets",
    m_means="the number of identical processors",
    defaults=MC_GENERATOR_DEFAULTS,
    value_types=_MC_TYPES,
    known_keys=tuple(_MC_TYPES),
    labels=MC_LABELS,
    workload=MC_TASKSETS,
    default_names="all",
)
_SEGMENTED = SegmentedKind(
    name="segmented",
    inputs="CPU–GPU segmented task sets",
    m_means="the number of CPUs",
    defaults=SEGMENTED_GENERATOR_DEFAULTS,
    value_types=_SEGMENTED_TYPES,
    # epsilon_ms, time_slice_ms: the GPU driver every drawn set carries (rtsched.generators.segmented,
    # step 9; checked by the generator); not in SEGMENTED_GENERATOR_DEFAULTS, so older experiments
    # keep their fingerprint. gpu_clusters, gpu_layout, parallel, slowdown_step: the partitionable GPU
    # description (step 10), likewise optional.
    known_keys=(
        *SEGMENTED_GENERATOR_DEFAULTS,
        "mode",
        "epsilon_ms",
        "time_slice_ms",
        "gpu_clusters",
        "gpu_layout",
        "parallel",
        "slowdown_step",
    ),
    labels=SEGMENTED_LABELS,
    workload=SEGMENTED_TASKSETS,
    default_names="all",
)
_BY_NAME = {kind.name: kind for kind in (_TASKSET, _GPU, _DAG, _MC, _SEGMENTED)}

#: The generator kinds (``[generator] kind``); the first is the default.
KINDS = tuple(_BY_NAME)
DEFAULT_KIND = _TASKSET.name
#: GPU generator parameters that are ranges ``[lo, hi]`` (tuples inside the engine).
GPU_RANGE_KEYS = _GPU.range_keys


def kind_named(name: str) -> GeneratorKind:
    """The generator kind called ``name``; an InputError (field ``generator.kind``) if there is none."""
    try:
        return _BY_NAME[name]
    except (KeyError, TypeError):
        raise InputError(
            f"unknown generator kind {name!r}; choose one of {', '.join(KINDS)}", field="generator.kind"
        ) from None


def gpu_generator_keys() -> tuple[str, ...]:
    """Parameters of the GPU generator a file may set (``n`` and the GPUWorkloadSpec fields but M, U1)."""
    return _GPU.keys()


def platform(kind: str, m: int, units: Sequence[tuple[str, int]] = ()) -> Platform:
    """The platform a unit's analyses run on: ``GPU(m)`` for GPU workloads, else ``Identical(m)``.

    The sweep passes it to the registry (``entry.status(batch, platform(kind, m))``): a GPU
    analysis refuses a plain processor count. A DAG experiment with ``[platform] units``
    (``units``, e.g. ``(("gpu", 2),)``) runs on ``Typed({"cpu": m, **units})``.
    """
    return kind_named(kind).platform(m, units) if units else kind_named(kind).platform(m)


def gpu_refusal(entry: Analysis, m: int) -> str | None:
    """``None`` if ``entry`` analyses GPU workloads on a GPU of ``m`` clusters, else why not.

    Asked of the registry entry's ``supports(GPU(m))`` (the GPU model takes M in 1..64); an
    analysis of task sets is refused whatever ``m``.
    """
    if entry.workload is not GPU_WORKLOADS:
        return f"an analysis of {entry.workload.title} (platform {entry.platform!r}), not of GPU workloads"
    try:
        gpu = GPU(m)
    except InputError as err:
        return err.message
    return entry.supports(gpu)


def caption(canonical: Mapping[str, Any]) -> str:
    """The plot caption of an experiment given in canonical form (:meth:`~rtsched.sweep.Experiment.canonical`)."""
    return kind_named(canonical.get("generator", {}).get("kind", DEFAULT_KIND)).caption(canonical)


def axis_label(variable: str, kind: str = DEFAULT_KIND) -> str:
    """A plot label (with units) for a swept variable of an experiment of generator ``kind``."""
    return kind_named(kind).axis_label(variable)


def draw(
    kind: str, rng: np.random.Generator, *, n: Any, utilization: float, size: int, m: int, params: Mapping[str, Any]
) -> tuple[Any, float]:
    """Draw ``size`` sets (or workloads) of one configuration; returns the batch and Σ realized U.

    See :meth:`GeneratorKind.draw`.
    """
    return kind_named(kind).draw(rng, n=n, utilization=utilization, size=size, m=m, params=params)
