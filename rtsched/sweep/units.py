"""Work units of a sweep: the unit list, their seeds, and :func:`run_unit`.

A sweep has configurations (one per point of the swept variable, times the points of the
optional second variable) and each configuration's ``sets_per_point`` task sets are cut into
chunks of ``sets_per_unit`` (the last one may be smaller). Unit ``k`` — numbered
configuration by configuration, chunk by chunk — draws its task sets from
``numpy.random.SeedSequence(seed, spawn_key=(s,))`` where ``s`` is its *stream*: ``k`` itself
without a second variable, else ``k``'s place within its panel of the second variable (the
same point and chunk in every panel). A unit's result is thus a function of the experiment and
``k`` only: not of the number of workers, their order or the executor. The unit size is fixed
by the experiment (never adapted to timing) for the same reason.

Every analysis sees the same task sets within a unit, and every panel of the second variable
draws from the same streams (paired comparisons): with ``by = "generator.layout"`` each layout
gets the same GPU workloads, so differences between panels are the layouts', not sampling noise
(before 2026-12-02 each panel drew its own; such experiments have a new fingerprint).

The experiment's generator kind (:mod:`rtsched.sweep.kinds`) says what a unit draws: task sets
(``taskset``, the default), GPU workloads on ``m`` compute clusters (``gpu``) or sets of DAG
tasks on ``m`` identical processors (``dag``).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from rtsched.errors import InputError
from rtsched.sweep.kinds import draw, gpu_refusal, platform
from rtsched.sweep.tardiness import is_soft, unit_tardiness

if TYPE_CHECKING:
    from rtsched.gpu import GPUWorkloadBatch
    from rtsched.model import TaskSetBatch
    from rtsched.sweep.identity import Experiment

__all__ = ["Configuration", "Plan", "UnitSpec", "configurations", "plan", "run_unit", "unit_seed"]

#: Numba's default (OpenMP/TBB) layers are thread-safe, but the ``workqueue`` fallback is not;
#: executors that run several units in threads of one process (Dask) serialise the kernels.
_KERNEL_LOCK = threading.Lock()


@dataclass(frozen=True)
class Configuration:
    """One point of the sweep (and of the second variable): a platform and generator parameters."""

    index: int
    point: int
    by: int
    m: int
    utilization: float
    generator: tuple[tuple[str, Any], ...]
    values: tuple[tuple[str, Any], ...]  # (variable, value) of each swept variable
    keys: tuple[tuple[str, str], ...]  # (variable, dotted key of its points)
    analyses: tuple[str, ...] = ()
    kind: str = "taskset"  # generator kind (rtsched.sweep.kinds)
    units: tuple[tuple[str, int], ...] = ()  # [platform] units of a typed DAG platform (besides m cpu units)

    def describe(self) -> str:
        """``U/m = 0.5, m = 4`` (the swept values and m, for messages; a typed platform's other units too)."""
        parts = [f"{variable} = {value}" for variable, value in self.values]
        if "m" not in dict(self.values):
            parts.append(f"m = {self.m}")
        parts.extend(f"{name} units = {count}" for name, count in self.units)
        return ", ".join(parts)

    def blame_key(self, field: str | None) -> str:
        """The dotted key of the file to blame for a generator error about ``field``."""
        by_variable = dict(self.keys)
        if field is not None:
            field = field.lstrip("-")  # the generators name CLI options (--umax)
        if field in ("clusters", "m"):  # the GPU generator's M is the platform's m
            return by_variable.get("m", "platform.m")
        if field in ("utilization", "total", "umax_total"):
            for variable in ("utilization", "U/m"):
                if variable in by_variable:
                    return by_variable[variable]
            return "generator.utilization"
        if field is None:
            return "generator"
        for candidate in (field, f"generator.{field}"):
            if candidate in by_variable:
                return by_variable[candidate]
        return f"generator.{field}"


@dataclass(frozen=True)
class UnitSpec:
    """Everything a worker needs to run one unit (plain data, cheap to pickle)."""

    index: int
    configuration: int
    chunk: int
    sets: int
    seed: int
    m: int
    utilization: float
    generator: tuple[tuple[str, Any], ...]
    analyses: tuple[str, ...]
    label: str = ""
    numba_threads: int | None = None
    kind: str = "taskset"  # generator kind (rtsched.sweep.kinds)
    budgets: tuple[tuple[str, int], ...] = ()  # work budgets by analysis ([analyses] budget)
    stream: int | None = None  # the random stream (module docstring); None: ``index``
    units: tuple[tuple[str, int], ...] = ()  # a typed DAG platform's units besides the m cpu units


@dataclass(frozen=True)
class Plan:
    """The configurations and units of an experiment, and which analyses apply where."""

    experiment: Experiment
    configurations: tuple[Configuration, ...]
    units: tuple[UnitSpec, ...]
    analyses: tuple[str, ...]
    skipped: tuple[tuple[str, str], ...]


def unit_seed(seed: int, k: int) -> np.random.SeedSequence:
    """The seed sequence of unit ``k``: ``SeedSequence(seed, spawn_key=(k,))``."""
    return np.random.SeedSequence(seed, spawn_key=(k,))


def configurations(experiment: Experiment) -> list[Configuration]:
    """Every configuration, in unit order: the second variable outermost, then the points."""
    configs: list[Configuration] = []
    by_points: tuple[Any, ...] = experiment.by.points if experiment.by is not None else (None,)
    base = experiment.generator_parameters()
    for j, by_value in enumerate(by_points):
        for i, value in enumerate(experiment.sweep.points):
            params = dict(base)
            m = experiment.processors[0]
            utilization = experiment.utilization
            normalized = experiment.normalized_utilization
            values = [(experiment.sweep.variable, value)]
            keys = [(experiment.sweep.variable, experiment.sweep.key)]
            assigned = [(experiment.sweep.variable, value)]
            if experiment.by is not None:
                values.append((experiment.by.variable, by_value))
                keys.append((experiment.by.variable, experiment.by.key))
                assigned.append((experiment.by.variable, by_value))
            for variable, val in assigned:
                if variable == "m":
                    m = val
                elif variable == "n":
                    params["n"] = val
                elif variable == "utilization":
                    utilization = val
                elif variable == "U/m":
                    normalized = val
                else:
                    params[variable.removeprefix("generator.")] = val
            if utilization is None:
                assert normalized is not None
                utilization = float(normalized) * m
            configs.append(
                Configuration(
                    index=len(configs),
                    point=i,
                    by=j,
                    m=int(m),
                    utilization=float(utilization),
                    generator=tuple(sorted(params.items())),
                    values=tuple(values),
                    keys=tuple(keys),
                    kind=experiment.generator_kind,
                    units=experiment.units,
                )
            )
    return configs


def plan(experiment: Experiment) -> Plan:
    """Cut the experiment into units and decide which analyses apply to each configuration.

    For task sets, an analysis applies when its ``supports`` accepts ``Identical(m)`` and the
    deadline model of the generated batches; for GPU workloads, when it is a GPU analysis
    that accepts ``m`` clusters (:func:`rtsched.sweep.kinds.gpu_refusal`). Featured analyses
    that never apply are skipped (listed in ``Plan.skipped``); an analysis the file names
    explicitly must apply somewhere.
    """
    from rtsched import registry

    entries = [registry.get(name) for name in experiment.analyses]
    configs = configurations(experiment)
    model_of: dict[tuple[tuple[str, Any], ...], str] = {}
    applied: list[Configuration] = []
    used: set[str] = set()
    reasons: dict[str, str] = {}

    def admit(refusals: list[str | None], context: str) -> tuple[str, ...]:
        """The entries without a refusal; the others' first reason is kept, with its context."""
        names = []
        for entry, why in zip(entries, refusals, strict=True):
            if why is None:
                names.append(entry.name)
                used.add(entry.name)
            else:
                reasons.setdefault(entry.name, f"{why} ({context})")
        return tuple(names)

    for config in configs:
        if config.kind == "gpu":
            names = admit([gpu_refusal(entry, config.m) for entry in entries], f"GPU workloads, M = {config.m}")
        else:
            key = config.generator
            if key not in model_of:
                model_of[key] = _generate(np.random.default_rng(0), config, 1)[0].deadlines
            target = platform(config.kind, config.m, config.units)
            where = f"m = {config.m}" if not config.units else f"platform {target.spec}"  # type: ignore[union-attr]
            names = admit(
                [entry.supports(target, model_of[key]) for entry in entries],
                f"{where}, {model_of[key]} deadlines",
            )
        applied.append(replace(config, analyses=names))
    skipped = tuple((e.name, reasons[e.name]) for e in entries if e.name not in used)
    if skipped and experiment.analyses_selection == "list":
        name, why = skipped[0]
        raise InputError(f"analysis {name!r} does not apply to any configuration: {why}", file=experiment.source, field="analyses.names")
    analyses = tuple(e.name for e in entries if e.name in used)
    if not analyses:
        raise InputError("no selected analysis applies to this platform and generator", file=experiment.source, field="analyses")
    units: list[UnitSpec] = []
    per_unit = experiment.sets_per_unit
    panel = len(experiment.sweep.points) * -(-experiment.sets_per_point // per_unit)  # units per panel
    for config in applied:
        for chunk, start in enumerate(range(0, experiment.sets_per_point, per_unit)):
            units.append(
                UnitSpec(
                    index=len(units),
                    stream=len(units) % panel,
                    configuration=config.index,
                    chunk=chunk,
                    sets=min(per_unit, experiment.sets_per_point - start),
                    seed=experiment.seed,
                    m=config.m,
                    utilization=config.utilization,
                    generator=config.generator,
                    analyses=config.analyses,
                    label=config.describe(),
                    kind=config.kind,
                    budgets=experiment.budgets,
                    units=config.units,
                )
            )
    return Plan(experiment, tuple(applied), tuple(units), analyses, skipped)


def _generate(rng: np.random.Generator, config: Configuration | UnitSpec, size: int) -> tuple[TaskSetBatch | GPUWorkloadBatch, float]:
    """Draw ``size`` sets (or GPU workloads) for a configuration; returns the batch and Σ realized U.

    See :func:`rtsched.sweep.kinds.draw` (a range of ``n`` draws each set's size first).
    """
    params = dict(config.generator)
    n = params.pop("n")
    return draw(config.kind, rng, n=n, utilization=config.utilization, size=size, m=config.m, params=params)


def run_unit(spec: UnitSpec) -> dict[str, Any]:
    """Generate the unit's task sets and run every applicable analysis on them.

    Returns
    -------
    dict
        ``unit``, ``configuration``, ``chunk``, ``sets``, ``accepted`` and ``unknown`` (per
        analysis), ``utilization_sum`` (sum of the realized utilizations), ``seconds``
        (wall time of generation and of each analysis's ``decide``; not part of the results)
        and, if a soft real-time analysis ran, ``tardiness`` (per such analysis, see
        :mod:`rtsched.sweep.tardiness`).
    """
    from rtsched import registry

    if spec.numba_threads is not None:
        import numba

        numba.set_num_threads(max(1, min(spec.numba_threads, numba.config.NUMBA_NUM_THREADS)))  # type: ignore[attr-defined]
    rng = np.random.default_rng(unit_seed(spec.seed, spec.index if spec.stream is None else spec.stream))
    seconds: dict[str, float] = {}
    start = time.perf_counter()
    try:
        batch, utilization_sum = _generate(rng, spec, spec.sets)
    except InputError as err:
        raise InputError(f"unit {spec.index} ({spec.label}): {err.message}", field=err.field) from None
    seconds["generate"] = time.perf_counter() - start
    accepted: dict[str, int] = {}
    unknown: dict[str, int] = {}
    tardiness: dict[str, dict[str, Any]] = {}
    with _KERNEL_LOCK:
        for name in spec.analyses:
            entry = registry.get(name)
            start = time.perf_counter()
            where = platform(spec.kind, spec.m, spec.units)
            codes = entry.status(batch, where, dict(spec.budgets).get(entry.name))
            if is_soft(entry):  # soft real-time: the tardiness bounds of the accepted sets (rtsched.sweep.tardiness)
                tardiness[name] = unit_tardiness(entry, batch, codes, where)
            seconds[name] = time.perf_counter() - start
            if codes.shape != (batch.n_sets,):
                raise RuntimeError(f"analysis {name!r} returned {codes.shape[0]} verdicts for {batch.n_sets} sets")
            accepted[name] = int(np.count_nonzero(codes == 1))
            unknown[name] = int(np.count_nonzero(codes == -1))
    record = {
        "unit": spec.index,
        "configuration": spec.configuration,
        "chunk": spec.chunk,
        "sets": int(batch.n_sets),
        "accepted": accepted,
        "unknown": unknown,
        "utilization_sum": utilization_sum,
        "seconds": seconds,
    }
    if tardiness:
        record["tardiness"] = tardiness
    return record
