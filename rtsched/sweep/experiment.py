"""Experiment files: parse, validate and hash an acceptance-ratio experiment.

An experiment is a TOML file (read with the standard library's :mod:`tomllib`)::

    name = "global-vs-partitioned"     # optional
    seed = 20261129                    # root of every unit's random stream

    [platform]
    m = 4                              # or a list, e.g. [2, 4, 8] (a second swept variable)

    [generator]                        # parameters of rtsched.generators.generate_batch
    n = 10                             # tasks per set, or a range {min = 5, max = 20}
    utilizations = "uunifast-discard"  # the defaults (GENERATOR_DEFAULTS) are shown
    periods = "log-uniform:1000:100000"
    deadlines = "uniform"
    umax = 1.0
    # utilization = 2.0 or normalized_utilization = 0.5 when utilization is not swept

    [sweep]
    variable = "U/m"                   # utilization, U/m, n, m or generator.<parameter>
    points = {start = 0.05, stop = 1.0, step = 0.05}   # or a list, or {start, stop, num}
    sets_per_point = 1000
    sets_per_unit = 500                # fixed work-unit size (results depend on it, not on timing)
    # by = "n"; by_points = [5, 10, 20] # an optional second swept variable

    [analyses]
    names = "featured"                 # or a list of registry names
    policies = ["global-edf", "partitioned-edf"]   # filters for "featured"
    kinds = ["sufficient"]
    budget = {exact = 200000}          # work budgets of analyses that have one (rtsched list)

GPU experiments (papers/zahaf2021-gpu-partitioning.md) draw GPU workloads instead of
task sets (:mod:`rtsched.sweep.kinds`)::

    [platform]
    m = 4                              # M, the number of compute clusters

    [generator]
    kind = "gpu"                       # default "taskset" (the table above)
    n = 6                              # kernels per workload
    periods = "log-uniform:100:10000"
    deadlines = "implicit"
    parallel = [0.3, 0.95]             # Amdahl's parallel fraction p, uniform in this range
    contention = [0.0, 0.3]            # slowdown f(k) = 1 + a·k, a uniform in this range
    nonpreemptive = 0.0                # share of non-preemptive kernels

    [sweep]
    variable = "U/m"                   # here U1/M: one-cluster utilization Σ C(1)/T over M

    [analyses]
    names = ["gpu:single", "gpu:ffd", "gpu:bfd", "gpu:exhaustive"]

A GPU experiment takes only GPU analyses (platform ``gpu``), which run on the platform ``GPU(m)``
for every ``m`` the GPU model accepts (1..64); a task-set experiment takes no GPU analysis.

Every error is an :class:`~rtsched.errors.InputError` whose ``field`` is the dotted key
(``sweep.points``) and whose ``file``/``line`` say where, when they can be found.

The experiment's identity is :meth:`Experiment.fingerprint`: a SHA-256 of its canonical JSON
form (every default filled in, the analysis list resolved against the registry) together with
the rtsched version. A result directory remembers it, so results of two different experiments
are never mixed.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import math
import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rtsched.errors import InputError
from rtsched.sweep.kinds import (
    DEFAULT_KIND,
    GPU_GENERATOR_DEFAULTS,
    GPU_RANGE_KEYS,
    KINDS,
    gpu_generator_keys,
    gpu_refusal,
)

__all__ = [
    "DEFAULT_EXPERIMENT_TOML",
    "Axis",
    "Experiment",
    "caption",
    "default_experiment",
    "load_experiment",
    "parse_experiment",
]

#: The built-in experiment of ``rtsched sweep`` without a file (also examples/default_experiment.toml).
DEFAULT_EXPERIMENT_TOML = """\
# The default acceptance-ratio experiment of `rtsched sweep` (run without a file).
# Copy it with `rtsched sweep --print-default > my_experiment.toml`, edit, and run
# `rtsched sweep my_experiment.toml --out my-results`.
#
# Time resolution: periods of 1,000-100,000 ticks (e.g. 1 us ticks, 1-100 ms periods). C is
# rounded to whole ticks (at least 1), so coarser periods raise the realized utilization above
# the target at low U/m (periods of 10-1,000 ticks: +61 % at U/m = 0.05); at this resolution the
# mean realized U/m is within 0.03 % of the target at every point, each set's within about 1 %
# (papers/repro/default_resolution.py prints the table and the analyses' cost).
name = "default"
seed = 20261129

[platform]
m = 4                                   # identical processors; a list such as [2, 4, 8] adds a dimension

[generator]                             # parameters of rtsched.generators.generate_batch
n = 10                                  # tasks per set; or a range {min = 5, max = 20}
utilizations = "uunifast-discard"       # per-task utilizations with a fixed sum, each <= umax
periods = "log-uniform:1000:100000"     # integer periods (ticks), log-uniform in [1000, 100000]
deadlines = "uniform"                   # D uniform in [C, T] (constrained deadlines)
umax = 1.0                              # largest per-task utilization

[sweep]
variable = "U/m"                        # utilization, U/m, n, m or generator.<parameter>
points = {start = 0.05, stop = 1.0, step = 0.05}
sets_per_point = 250
sets_per_unit = 250                     # task sets per work unit (fixed: results depend on it)

[analyses]
names = "featured"                      # or a list of registry names, e.g. ["gfb", "p-edf"]
policies = ["global-edf", "partitioned-edf"]
kinds = ["sufficient", "necessary"]     # "necessary": gedf-upper, the dashed upper bound of G-EDF
"""

#: Canonical names of the swept variables (besides ``generator.<parameter>``) and their aliases.
_VARIABLES = {
    "utilization": "utilization",
    "u": "utilization",
    "u/m": "U/m",
    "normalized_utilization": "U/m",
    "n": "n",
    "m": "m",
}
_TOP_KEYS = ("name", "description", "seed", "platform", "generator", "sweep", "analyses")
_SWEEP_KEYS = ("variable", "points", "by", "by_points", "sets_per_point", "sets_per_unit")
_ANALYSES_KEYS = ("names", "policies", "kinds", "budget")
#: Keys of [generator] that are not passed to generate_batch as they are.
_UTILIZATION_KEYS = ("utilization", "normalized_utilization")
#: Defaults written into the canonical form (so the fingerprint does not depend on the
#: generator module's own defaults, which may change).
#: They are the default experiment's generator, and ``rtsched generate``'s option defaults
#: (rtsched/commands/generate.py reads them here), so that ``rtsched generate`` without options
#: draws what ``rtsched sweep`` plots.
GENERATOR_DEFAULTS: dict[str, Any] = {
    "utilizations": "uunifast-discard",
    "periods": "log-uniform:1000:100000",
    "deadlines": "uniform",
    "umax": 1.0,
}
_KNOWN_GENERATOR_KEYS = ("n", "utilizations", "periods", "deadlines", "umax")
MAX_SETS = 10**9
DEFAULT_SETS_PER_UNIT = 1000


@dataclass(frozen=True)
class Axis:
    """One swept variable: its canonical name and its points (floats, ints or strings)."""

    variable: str
    points: tuple[Any, ...]
    key: str  # dotted key of the points in the file, for error messages

    @property
    def is_utilization(self) -> bool:
        """True for ``utilization`` and ``U/m`` (the axes weighted schedulability collapses)."""
        return self.variable in ("utilization", "U/m")

    @property
    def is_numeric(self) -> bool:
        """True when every point is a number (plotted on a numeric axis)."""
        return all(isinstance(p, int | float) and not isinstance(p, bool) for p in self.points)

    def label(self, kind: str = DEFAULT_KIND) -> str:
        """Axis label with units, for plots (``kind``: the generator kind)."""
        return axis_label(self.variable, kind)


def axis_label(variable: str, kind: str = DEFAULT_KIND) -> str:
    """A plot label (with units) for a swept variable of an experiment of generator ``kind``."""
    if kind == "gpu":
        gpu_labels = {
            "utilization": "One-cluster utilization U1 = Σ C(1)/T (clusters' worth of work, dimensionless)",
            "U/m": "Normalized one-cluster utilization U1/M = Σ C(1)/T / M (dimensionless)",
            "n": "Number of kernels n (kernels per workload)",
            "m": "Number of compute clusters M",
            "generator.parallel": "Range of Amdahl's parallel fraction p",
            "generator.contention": "Range of the contention slope a in f(k) = 1 + a·k",
            "generator.nonpreemptive": "Share of non-preemptive kernels",
        }
        if variable in gpu_labels:
            return gpu_labels[variable]
    labels = {
        "utilization": "Total utilization U = Σ C/T (processors' worth of work, dimensionless)",
        "U/m": "Normalized utilization U/m (fraction of platform capacity, dimensionless)",
        "n": "Number of tasks n (tasks per set)",
        "m": "Number of processors m",
    }
    if variable in labels:
        return labels[variable]
    param = variable.removeprefix("generator.")
    return {"umax": "Largest task utilization umax (dimensionless)"}.get(param, f"Generator parameter {param}")


@dataclass(frozen=True)
class Experiment:
    """A parsed, validated experiment (immutable; build it with :func:`parse_experiment`).

    Attributes
    ----------
    name, description:
        Labels for people (part of the fingerprint, since they appear in outputs).
    seed:
        Root seed; unit ``k`` draws from ``SeedSequence(seed, spawn_key=(k,))``.
    processors:
        The platform's ``m`` values (one, unless ``m`` is swept).
    generator:
        Parameters passed to the generator (defaults filled in; ``n`` an int or ``(lo, hi)``;
        ranges of the GPU generator as ``(lo, hi)``).
    utilization, normalized_utilization:
        Fixed total or per-processor utilization when no utilization variable is swept.
    sweep, by:
        The swept variable and the optional second one.
    sets_per_point, sets_per_unit:
        Task sets per point, and per work unit.
    analyses:
        Registry names, resolved (``"featured"`` expanded at parse time).
    analyses_selection:
        ``"featured"`` or ``"list"``: how :attr:`analyses` was given (featured analyses that do
        not apply to a platform are skipped; named ones must apply).
    source, text:
        The file it came from and its text (not part of the fingerprint).
    generator_kind:
        ``taskset`` (``generate_batch``) or ``gpu`` (``generate_gpu_batch`` with ``clusters = m``;
        see :mod:`rtsched.sweep.kinds`). Part of the fingerprint (written as ``generator.kind``
        when it is not the default, so task-set experiments keep their fingerprints).
    """

    name: str
    description: str
    seed: int
    processors: tuple[int, ...]
    generator: tuple[tuple[str, Any], ...]
    utilization: float | None
    normalized_utilization: float | None
    sweep: Axis
    by: Axis | None
    sets_per_point: int
    sets_per_unit: int
    analyses: tuple[str, ...]
    analyses_selection: str
    analyses_filters: tuple[tuple[str, tuple[str, ...]], ...] = ()
    budgets: tuple[tuple[str, int], ...] = ()
    source: str | None = None
    text: str | None = None
    generator_kind: str = DEFAULT_KIND

    # -- identity -------------------------------------------------------------------------------
    def canonical(self) -> dict[str, Any]:
        """The experiment as plain JSON data, every default filled in (what the fingerprint hashes)."""
        gen: dict[str, Any] = {}
        if self.generator_kind != DEFAULT_KIND:
            gen["kind"] = self.generator_kind
        for key, value in self.generator:
            if key == "n" and isinstance(value, tuple):
                gen[key] = {"min": value[0], "max": value[1]}
            else:
                gen[key] = list(value) if isinstance(value, tuple) else value
        if self.utilization is not None:
            gen["utilization"] = self.utilization
        if self.normalized_utilization is not None:
            gen["normalized_utilization"] = self.normalized_utilization
        sweep: dict[str, Any] = {
            "variable": self.sweep.variable,
            "points": _plain(self.sweep.points),
            "sets_per_point": self.sets_per_point,
            "sets_per_unit": self.sets_per_unit,
        }
        if self.by is not None:
            sweep["by"] = self.by.variable
            sweep["by_points"] = _plain(self.by.points)
        analyses: dict[str, Any] = {"names": list(self.analyses), "selection": self.analyses_selection}
        for key, values in self.analyses_filters:
            analyses[key] = list(values)
        if self.budgets:
            analyses["budget"] = dict(self.budgets)
        return {
            "name": self.name,
            "description": self.description,
            "seed": self.seed,
            "platform": {"m": list(self.processors)},
            "generator": gen,
            "sweep": sweep,
            "analyses": analyses,
        }

    def fingerprint(self) -> str:
        """SHA-256 (hex) of the canonical experiment, the resolved analyses and the rtsched version."""
        from rtsched import __version__

        payload = {"experiment": self.canonical(), "rtsched": __version__, "format": 1}
        text = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
        return hashlib.sha256(text.encode()).hexdigest()

    def to_toml(self) -> str:
        """The canonical experiment as TOML text (parses back to an equal experiment)."""
        data = self.canonical()
        data["analyses"].pop("selection")
        if self.analyses_selection == "featured":
            data["analyses"]["names"] = "featured"
        data["platform"]["m"] = self.processors[0] if len(self.processors) == 1 else list(self.processors)
        if self.by is not None and self.by.variable == "m":
            data["platform"].pop("m")
        if self.sweep.variable == "m":
            data["platform"].pop("m", None)
        return _to_toml(data)

    def with_sizes(self, sets_per_point: int, sets_per_unit: int | None = None) -> Experiment:
        """The same experiment with other sizes (e.g. a quick version of a large study).

        The result is a different experiment (another fingerprint); its source text is dropped
        so that the result directory records the canonical form actually run.
        """
        from dataclasses import replace

        data = self.canonical()
        data["sweep"]["sets_per_point"] = sets_per_point
        data["sweep"]["sets_per_unit"] = min(sets_per_unit or self.sets_per_unit, sets_per_point)
        ctx = _Context(self.source, None)
        _positive_int(ctx, sets_per_point, "sweep.sets_per_point", "sets_per_point")
        _positive_int(ctx, data["sweep"]["sets_per_unit"], "sweep.sets_per_unit", "sets_per_unit")
        return replace(self, sets_per_point=sets_per_point, sets_per_unit=data["sweep"]["sets_per_unit"], text=None)

    # -- derived ------------------------------------------------------------------------------
    def generator_parameters(self) -> dict[str, Any]:
        """The generator parameters as a dict (defaults filled in)."""
        return dict(self.generator)

    @property
    def axes(self) -> tuple[Axis, ...]:
        """The swept variables: ``(sweep,)`` or ``(sweep, by)``."""
        return (self.sweep,) if self.by is None else (self.sweep, self.by)

    def caption(self) -> str:
        """One line naming the generator, periods, deadlines and sets per point (for plots)."""
        return caption(self.canonical())


def _plain(points: tuple[Any, ...]) -> list[Any]:
    """Points as plain JSON data (range points such as ``(0.0, 0.3)`` become lists)."""
    return [list(p) if isinstance(p, tuple) else p for p in points]


def caption(canonical: Mapping[str, Any]) -> str:
    """The plot caption of an experiment given in canonical form (:meth:`Experiment.canonical`)."""
    gen = dict(canonical.get("generator", {}))
    if gen.get("kind", DEFAULT_KIND) == "gpu":
        return _gpu_caption(canonical, gen)
    sweep = canonical.get("sweep", {})
    swept = {sweep.get("variable"), sweep.get("by")}
    for key in ("utilizations", "umax", "periods", "deadlines"):
        if f"generator.{key}" in swept:
            gen[key] = "swept"
    n_text, fixed_u, ms = _caption_parts(canonical, gen, unit="", u_name="U", norm_name="U/m")
    return (
        f"Generator: {gen.get('utilizations')} utilizations (umax = {gen.get('umax')}), {n_text}; {fixed_u}"
        f"periods {gen.get('periods')}; deadlines {gen.get('deadlines')}; m = {ms}; "
        f"{sweep.get('sets_per_point')} sets per point; seed {canonical.get('seed')}; "
        "bands: 95% Wilson score intervals."
    )


def _caption_parts(
    canonical: Mapping[str, Any], gen: Mapping[str, Any], *, unit: str, u_name: str, norm_name: str
) -> tuple[str, str, str]:
    """The task count, the fixed utilization (if any) and the processor counts, as caption text."""
    n = gen.get("n")
    if isinstance(n, Mapping):
        n_text = f"n = {n['min']}..{n['max']}{unit} (uniform)"
    else:
        n_text = f"n = {n}{unit}" if n is not None else "n swept"
    fixed_u = ""
    if gen.get("utilization") is not None:
        fixed_u = f"{u_name} = {gen['utilization']}; "
    elif gen.get("normalized_utilization") is not None:
        fixed_u = f"{norm_name} = {gen['normalized_utilization']}; "
    ms = ", ".join(str(m) for m in canonical.get("platform", {}).get("m", []))
    return n_text, fixed_u, ms


def _gpu_caption(canonical: Mapping[str, Any], gen: dict[str, Any]) -> str:
    """The caption of a GPU experiment (``[generator] kind = "gpu"``): what U means, the WCET model."""
    sweep = canonical.get("sweep", {})
    swept = {sweep.get("variable"), sweep.get("by")}

    def value(key: str) -> str:
        if f"generator.{key}" in swept:
            return "swept"
        raw = gen.get(key)
        return f"[{raw[0]}, {raw[1]}]" if isinstance(raw, list | tuple) and len(raw) == 2 else str(raw)

    n_text, fixed_u, ms = _caption_parts(canonical, gen, unit=" kernels", u_name="U1", norm_name="U1/M")
    return (
        f"Generator: GPU workloads, {n_text}, UUniFast one-cluster utilizations U1 = Σ C(1)/T (U/m = U1/M); "
        f"{fixed_u}Amdahl C(s), p in {value('parallel')}; contention f(k) = 1 + a·k, a in {value('contention')}; "
        f"non-preemptive share {value('nonpreemptive')}; periods {value('periods')}; deadlines {value('deadlines')}; "
        f"M = {ms} clusters; {sweep.get('sets_per_point')} workloads per point; seed {canonical.get('seed')}; "
        "bands: 95% Wilson score intervals."
    )


# ------------------------------------------------------------------------------------------------
# Parsing
# ------------------------------------------------------------------------------------------------
class _Context:
    """Where errors point: the file name and its text (for line numbers)."""

    def __init__(self, file: str | None, text: str | None) -> None:
        self.file = file
        self.text = text

    def error(self, message: str, key: str) -> InputError:
        return InputError(message, file=self.file, line=_line_of(self.text, key), field=key)


def _line_of(text: str | None, dotted: str) -> int | None:
    """Best-effort line number of a dotted key (``sweep.points``) in TOML text."""
    if not text:
        return None
    header = ""
    table_line: dict[str, int] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip() if not raw.lstrip().startswith(('"', "'")) else raw.strip()
        match = re.fullmatch(r"\[\s*([^\[\]]+?)\s*\]", line)
        if match:
            header = ".".join(part.strip().strip("\"'") for part in match.group(1).split("."))
            table_line.setdefault(header, number)
            continue
        match = re.match(r"([A-Za-z0-9_\-\"'./ ]+?)\s*=", line)
        if match:
            key = ".".join(part.strip().strip("\"'") for part in match.group(1).split("."))
            full = f"{header}.{key}" if header else key
            if full == dotted or dotted.startswith(full + "."):
                return number
    return table_line.get(dotted)


def load_experiment(path: str | Path, *, check_generator: bool = True) -> Experiment:
    """Read and validate an experiment file.

    Parameters
    ----------
    path:
        A TOML file.
    check_generator:
        Also draw one task set per configuration, so that parameters the generator refuses
        are reported now, naming the key, rather than in the middle of a sweep.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as err:
        raise InputError(f"cannot read the experiment file: {err.strerror or err}", file=str(path)) from None
    return parse_experiment(text, file=str(path), check_generator=check_generator)


def default_experiment(*, check_generator: bool = False) -> Experiment:
    """The built-in experiment of ``rtsched sweep`` without a file (:data:`DEFAULT_EXPERIMENT_TOML`)."""
    return parse_experiment(DEFAULT_EXPERIMENT_TOML, file="<default experiment>", check_generator=check_generator)


def parse_experiment(
    source: str | Mapping[str, Any],
    *,
    file: str | None = None,
    check_generator: bool = True,
) -> Experiment:
    """Validate an experiment given as TOML text or as already-parsed data.

    Raises
    ------
    InputError
        With ``field`` set to the dotted key at fault (and ``file``/``line`` when known).
    """
    text = source if isinstance(source, str) else None
    ctx = _Context(file, text)
    if isinstance(source, str):
        try:
            data: Mapping[str, Any] = tomllib.loads(source)
        except tomllib.TOMLDecodeError as err:
            match = re.search(r"\(at line (\d+), column \d+\)", str(err))
            raise InputError(
                f"not valid TOML: {err}", file=file, line=int(match.group(1)) if match else None
            ) from None
    elif isinstance(source, Mapping):
        data = source
    else:
        raise InputError(f"an experiment is TOML text or a mapping, got {type(source).__name__}", file=file)

    _no_unknown_keys(ctx, data, _TOP_KEYS, "")
    name = _string(ctx, data.get("name", "experiment"), "name")
    description = _string(ctx, data.get("description", ""), "description")
    seed = data.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ctx.error(f"the seed must be a non-negative integer, got {seed!r}", "seed")

    platform = _table(ctx, data.get("platform", {}), "platform")
    generator_table = _table(ctx, data.get("generator", {}), "generator")
    sweep_table = _table(ctx, data.get("sweep"), "sweep", required=True)
    analyses_table = _table(ctx, data.get("analyses", {}), "analyses")
    _no_unknown_keys(ctx, platform, ("m",), "platform")
    _no_unknown_keys(ctx, sweep_table, _SWEEP_KEYS, "sweep")
    _no_unknown_keys(ctx, analyses_table, _ANALYSES_KEYS, "analyses")
    kind = generator_table.get("kind", DEFAULT_KIND)
    if kind not in KINDS:
        raise ctx.error(f"unknown generator kind {kind!r}; choose one of: {', '.join(KINDS)}", "generator.kind")
    allowed_generator_keys = _generator_keys() if kind == "taskset" else gpu_generator_keys()
    _no_unknown_keys(ctx, generator_table, (*allowed_generator_keys, *_UTILIZATION_KEYS, "kind"), "generator")

    # -- swept variables -------------------------------------------------------------------------
    sweep_axis = _axis(ctx, sweep_table, "variable", "points", allowed_generator_keys, required=True)
    assert sweep_axis is not None
    by_axis = _axis(ctx, sweep_table, "by", "by_points", allowed_generator_keys, required=False)
    if by_axis is not None and by_axis.variable == sweep_axis.variable:
        raise ctx.error(f"the second swept variable repeats the first ({sweep_axis.variable})", "sweep.by")
    if by_axis is not None and by_axis.is_utilization and sweep_axis.is_utilization:
        raise ctx.error("utilization and U/m cannot both be swept (one determines the other)", "sweep.by")
    swept = {a.variable for a in (sweep_axis, by_axis) if a is not None}

    # -- platform ---------------------------------------------------------------------------------
    processors: tuple[int, ...]
    if "m" in swept:
        if "m" in platform:
            raise ctx.error("m is a swept variable; remove platform.m", "platform.m")
        processors = next(a.points for a in (sweep_axis, by_axis) if a is not None and a.variable == "m")
    else:
        raw_m = platform.get("m")
        if raw_m is None:
            what = "M, the number of compute clusters" if kind == "gpu" else "the number of identical processors"
            raise ctx.error(f"the platform needs m, {what}", "platform.m")
        values = raw_m if isinstance(raw_m, list) else [raw_m]
        if not values:
            raise ctx.error("the list of m values is empty", "platform.m")
        for value in values:
            _positive_int(ctx, value, "platform.m", "m")
        if len(set(values)) != len(values):
            raise ctx.error(f"m values repeat: {values}", "platform.m")
        processors = tuple(values)
        if len(processors) > 1:
            if by_axis is not None:
                raise ctx.error(
                    "a list of m values is a second swept variable, and sweep.by is already given; "
                    "sweep at most two variables",
                    "platform.m",
                )
            by_axis = Axis("m", processors, "platform.m")

    # -- generator --------------------------------------------------------------------------------
    generator: dict[str, Any] = dict(GENERATOR_DEFAULTS if kind == "taskset" else GPU_GENERATOR_DEFAULTS)
    for key, value in generator_table.items():
        if key in _UTILIZATION_KEYS or key == "kind":
            continue
        dotted = f"generator.{key}"
        if f"generator.{key}" in swept:
            raise ctx.error(f"{key} is a swept variable; remove {dotted}", dotted)
        if key == "n":
            value = _n_value(ctx, value, dotted)
        elif key == "umax":
            value = _positive_float(ctx, value, dotted, "umax")
        elif key in ("utilizations", "periods", "deadlines"):
            value = _string(ctx, value, dotted)
        elif kind == "gpu" and key in GPU_RANGE_KEYS:
            value = _range_value(ctx, value, dotted, key)
        elif kind == "gpu" and key == "nonpreemptive":
            value = _probability(ctx, value, dotted, key)
        generator[key] = value
    for variable in swept:
        # A swept parameter has no fixed value: drop its default, so that the canonical form
        # (and the TOML written from it) does not give it twice.
        if variable.startswith("generator."):
            generator.pop(variable.removeprefix("generator."), None)
    if "n" in swept:
        if "n" in generator_table:
            raise ctx.error("n is a swept variable; remove generator.n", "generator.n")
    elif "n" not in generator:
        raise ctx.error("the generator needs n, the number of tasks per set (or sweep n)", "generator.n")
    utilization = normalized = None
    given = [k for k in _UTILIZATION_KEYS if k in generator_table]
    if swept & {"utilization", "U/m"}:
        for key in given:
            raise ctx.error(f"the utilization is swept; remove generator.{key}", f"generator.{key}")
    else:
        if len(given) != 1:
            raise ctx.error(
                "give exactly one of generator.utilization (total U) or generator.normalized_utilization "
                "(U/m), or sweep utilization / U/m",
                "generator.utilization" if not given else f"generator.{given[1]}",
            )
        value = _positive_float(ctx, generator_table[given[0]], f"generator.{given[0]}", given[0])
        if given[0] == "utilization":
            utilization = value
        else:
            normalized = value

    # -- sizes -------------------------------------------------------------------------------------
    sets_per_point = _positive_int(ctx, sweep_table.get("sets_per_point"), "sweep.sets_per_point", "sets_per_point")
    if sets_per_point > MAX_SETS:
        raise ctx.error(f"at most {MAX_SETS} sets per point", "sweep.sets_per_point")
    sets_per_unit = _positive_int(
        ctx, sweep_table.get("sets_per_unit", min(DEFAULT_SETS_PER_UNIT, sets_per_point)), "sweep.sets_per_unit", "sets_per_unit"
    )
    if sets_per_unit > sets_per_point:
        raise ctx.error(
            f"sets_per_unit = {sets_per_unit} exceeds sets_per_point = {sets_per_point}", "sweep.sets_per_unit"
        )

    # -- analyses ----------------------------------------------------------------------------------
    names, selection, filters = _analyses(ctx, analyses_table, kind, processors)
    budgets = _budgets(ctx, analyses_table.get("budget"), names)

    experiment = Experiment(
        name=name,
        description=description,
        seed=seed,
        processors=processors,
        generator=tuple(sorted((k, v) for k, v in generator.items())),
        utilization=utilization,
        normalized_utilization=normalized,
        sweep=sweep_axis,
        by=by_axis,
        sets_per_point=sets_per_point,
        sets_per_unit=sets_per_unit,
        analyses=names,
        analyses_selection=selection,
        analyses_filters=filters,
        budgets=budgets,
        source=file,
        text=text,
        generator_kind=kind,
    )
    if check_generator:
        _check_generator(ctx, experiment)
    if kind == DEFAULT_KIND:
        _warn_uunifast(experiment)
    return experiment


def _warn_uunifast(experiment: Experiment) -> None:
    """Warn (once, at the largest U) when plain UUniFast task utilizations sum above 1 somewhere:
    tasks drawn above u = 1 are capped at C = T and the sets lose utilization
    (:func:`rtsched.generators.utilizations.warn_uunifast_loss`)."""
    from rtsched.generators.utilizations import warn_uunifast_loss
    from rtsched.sweep.units import configurations

    worst: tuple[int, float] | None = None
    for config in configurations(experiment):
        params = dict(config.generator)
        if params.get("utilizations") == "uunifast" and config.utilization > 1:
            n = params.get("n", 1)
            n = max(n) if isinstance(n, tuple) else n
            if worst is None or config.utilization > worst[1]:
                worst = (int(n), config.utilization)
    if worst is not None:
        warn_uunifast_loss(*worst, stacklevel=4)


def _budgets(ctx: _Context, raw: Any, names: tuple[str, ...]) -> tuple[tuple[str, int], ...]:
    """``[analyses] budget = {name = N, ...}``: work budgets of selected analyses that have one."""
    if raw is None:
        return ()
    if not isinstance(raw, dict) or not raw:
        raise ctx.error(f"expected a table of analysis = budget, e.g. {{exact = 200000}}, got {raw!r}", "analyses.budget")
    from rtsched import registry

    out = {}
    for name, value in raw.items():
        field = f"analyses.budget.{name}"
        try:
            entry = registry.get(name)
        except InputError as err:
            raise ctx.error(err.message, field) from None
        if entry.name not in names:
            raise ctx.error(f"{entry.name!r} is not among the experiment's analyses", field)
        if entry.budget is None:
            raise ctx.error(f"{entry.name} has no work budget (it always finishes)", field)
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ctx.error(f"a budget is a positive integer, got {value!r}", field)
        out[entry.name] = value
    return tuple(sorted(out.items()))


def _generator_keys() -> tuple[str, ...]:
    """Keyword parameters of ``generate_batch`` a file may set (all but rng, size, utilization)."""
    try:
        from rtsched.generators import generate_batch  # type: ignore[attr-defined]
    except ImportError:
        return _KNOWN_GENERATOR_KEYS
    params = inspect.signature(generate_batch).parameters
    keys = [
        name
        for name, p in params.items()
        if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD) and name not in ("rng", "size", "utilization")
    ]
    return tuple(dict.fromkeys([*_KNOWN_GENERATOR_KEYS, *keys]))


def _no_unknown_keys(ctx: _Context, table: Mapping[str, Any], allowed: Sequence[str], prefix: str) -> None:
    for key in table:
        if key not in allowed:
            dotted = f"{prefix}.{key}" if prefix else key
            hint = ", ".join(allowed)
            raise ctx.error(f"unknown key {key!r}; expected one of: {hint}", dotted)


def _table(ctx: _Context, value: Any, key: str, required: bool = False) -> Mapping[str, Any]:
    if value is None:
        if required:
            raise ctx.error(f"the experiment needs a [{key}] table", key)
        return {}
    if not isinstance(value, Mapping):
        raise ctx.error(f"[{key}] must be a table, got {type(value).__name__}", key)
    return value


def _string(ctx: _Context, value: Any, key: str) -> str:
    if not isinstance(value, str):
        raise ctx.error(f"expected a string, got {value!r}", key)
    return value


def _positive_int(ctx: _Context, value: Any, key: str, what: str) -> int:
    if value is None:
        raise ctx.error(f"{what} is required", key)
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ctx.error(f"{what} must be a positive integer, got {value!r}", key)
    return value


def _positive_float(ctx: _Context, value: Any, key: str, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value <= 0:
        raise ctx.error(f"{what} must be a positive number, got {value!r}", key)
    return float(value)


def _range_value(ctx: _Context, value: Any, key: str, what: str) -> tuple[float, float]:
    """A range ``[lo, hi]`` of non-negative numbers (a GPU generator parameter), as a tuple."""
    if (
        not isinstance(value, list | tuple)
        or len(value) != 2
        or not all(isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v) for v in value)
    ):
        raise ctx.error(f"{what} is a range [lo, hi] of two numbers, got {value!r}", key)
    lo, hi = float(value[0]), float(value[1])
    if not 0 <= lo <= hi:
        raise ctx.error(f"{what} must be a range [lo, hi] with 0 <= lo <= hi, got {list(value)}", key)
    return (lo, hi)


def _probability(ctx: _Context, value: Any, key: str, what: str) -> float:
    """A probability in [0, 1] (the GPU generator's share of non-preemptive kernels)."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        raise ctx.error(f"{what} must be a probability in [0, 1], got {value!r}", key)
    return float(value)


def _n_value(ctx: _Context, value: Any, key: str) -> int | tuple[int, int]:
    if isinstance(value, Mapping):
        if set(value) != {"min", "max"}:
            raise ctx.error(f"a range of n is {{min = ..., max = ...}}, got keys {sorted(value)}", key)
        lo = _positive_int(ctx, value["min"], f"{key}.min", "n")
        hi = _positive_int(ctx, value["max"], f"{key}.max", "n")
        if lo > hi:
            raise ctx.error(f"empty range of n: min = {lo} > max = {hi}", key)
        return (lo, hi) if lo != hi else lo
    return _positive_int(ctx, value, key, "n")


def _axis(
    ctx: _Context,
    table: Mapping[str, Any],
    variable_key: str,
    points_key: str,
    generator_keys: Sequence[str],
    required: bool,
) -> Axis | None:
    vkey, pkey = f"sweep.{variable_key}", f"sweep.{points_key}"
    raw = table.get(variable_key)
    if raw is None:
        if required:
            raise ctx.error("the swept variable is required (utilization, U/m, n, m or generator.<parameter>)", vkey)
        if points_key in table:
            raise ctx.error(f"{pkey} is given without {vkey}", pkey)
        return None
    if not isinstance(raw, str):
        raise ctx.error(f"expected a variable name, got {raw!r}", vkey)
    variable = _VARIABLES.get(raw.strip().lower()) if not raw.startswith("generator.") else raw.strip()
    if variable is None:
        raise ctx.error(
            f"unknown swept variable {raw!r}; choose utilization, U/m, n, m or generator.<parameter>", vkey
        )
    if variable.startswith("generator."):
        param = variable.removeprefix("generator.")
        if param == "n":
            variable = "n"
        elif param in _UTILIZATION_KEYS:
            variable = "utilization" if param == "utilization" else "U/m"
        elif param not in generator_keys:
            raise ctx.error(f"the generator has no parameter {param!r}; it has: {', '.join(generator_keys)}", vkey)
    if points_key not in table:
        raise ctx.error(f"the points of {variable} are required", pkey)
    points = _points(ctx, table[points_key], pkey, variable)
    return Axis(variable, points, pkey)


def _points(ctx: _Context, raw: Any, key: str, variable: str) -> tuple[Any, ...]:
    integer = variable in ("n", "m")
    textual = variable in ("generator.utilizations", "generator.periods", "generator.deadlines")
    ranges = variable in tuple(f"generator.{k}" for k in GPU_RANGE_KEYS)
    probability = variable == "generator.nonpreemptive"
    if isinstance(raw, Mapping):
        if textual or ranges:
            kind_of_list = "strings" if textual else "ranges [lo, hi]"
            raise ctx.error(f"{variable} takes a list of {kind_of_list}", key)
        keys = set(raw)
        if keys not in ({"start", "stop", "step"}, {"start", "stop", "num"}):
            raise ctx.error(
                f"points are a list or {{start, stop, step}} or {{start, stop, num}}; got keys {sorted(keys)}", key
            )
        start, stop = raw["start"], raw["stop"]
        for sub, val in (("start", start), ("stop", stop)):
            if isinstance(val, bool) or not isinstance(val, int | float) or not math.isfinite(val):
                raise ctx.error(f"{sub} must be a number, got {val!r}", f"{key}.{sub}")
        if stop < start:
            raise ctx.error(f"stop = {stop} is below start = {start}", key)
        if "step" in raw:
            step = raw["step"]
            if isinstance(step, bool) or not isinstance(step, int | float) or not step > 0:
                raise ctx.error(f"step must be a positive number, got {step!r}", f"{key}.step")
            count = int(math.floor((stop - start) / step + 1e-9)) + 1
            values = [start + i * step for i in range(count)]
        else:
            num = raw["num"]
            if isinstance(num, bool) or not isinstance(num, int) or num < 1:
                raise ctx.error(f"num must be a positive integer, got {num!r}", f"{key}.num")
            values = [start + (stop - start) * i / (num - 1) for i in range(num)] if num > 1 else [start]
        if integer:
            if not all(float(v).is_integer() for v in values):
                raise ctx.error(f"{variable} takes integer points; this range gives {values[:4]}...", key)
            values = [int(v) for v in values]
        else:
            # Decimal-looking points (0.05, 0.1, ...) rather than 0.15000000000000002.
            values = [float(round(v, 12)) for v in values]
    elif isinstance(raw, list):
        values = list(raw)
    else:
        raise ctx.error(f"points are a list or a range table, got {raw!r}", key)
    if not values:
        raise ctx.error("no points", key)
    if len(values) > 100_000:
        raise ctx.error(f"{len(values)} points is too many (at most 100000)", key)
    clean: list[Any] = []
    for i, value in enumerate(values):
        if textual:
            clean.append(_string(ctx, value, f"{key}[{i}]"))
        elif ranges:
            clean.append(_range_value(ctx, value, key, f"point {i} of {variable}"))
        elif probability:
            clean.append(_probability(ctx, value, key, f"point {i} of {variable}"))
        elif integer:
            clean.append(_positive_int(ctx, value, key, f"point {i} of {variable}"))
        else:
            clean.append(_positive_float(ctx, value, key, f"point {i} of {variable}"))
    if len(set(clean)) != len(clean):
        raise ctx.error(f"points repeat: {clean}", key)
    return tuple(clean)


def _analyses(
    ctx: _Context, table: Mapping[str, Any], kind: str, processors: tuple[int, ...]
) -> tuple[tuple[str, ...], str, tuple[tuple[str, tuple[str, ...]], ...]]:
    from rtsched import registry

    raw = table.get("names", "featured")
    if kind == "gpu" and raw == "featured":
        raise ctx.error(
            'a GPU experiment ([generator] kind = "gpu") names its analyses (the featured ones analyse task '
            'sets), e.g. names = ["gpu:single", "gpu:ffd"]',
            "analyses.names",
        )
    filters: list[tuple[str, tuple[str, ...]]] = []
    for key in ("policies", "kinds"):
        if key in table:
            values = table[key]
            if not isinstance(values, list) or not values or not all(isinstance(v, str) for v in values):
                raise ctx.error(f"expected a non-empty list of strings, got {values!r}", f"analyses.{key}")
            filters.append((key, tuple(values)))
    if raw == "featured":
        entries = registry.all_entries(featured_only=True)
        for key, values in filters:
            attr = "policy" if key == "policies" else "kind"
            entries = [e for e in entries if getattr(e, attr) in values]
        if not entries:
            raise ctx.error("no featured analysis passes the filters", "analyses")
        return tuple(e.name for e in entries), "featured", tuple(filters)
    if isinstance(raw, str):
        raw = [raw]
    if not isinstance(raw, list) or not raw or not all(isinstance(v, str) for v in raw):
        raise ctx.error(f'expected "featured" or a non-empty list of analysis names, got {raw!r}', "analyses.names")
    if filters:
        raise ctx.error("policies and kinds filter names = \"featured\"; with a list, name the analyses", f"analyses.{filters[0][0]}")
    resolved: list[str] = []
    for name in raw:
        try:
            entry = registry.get(name)
        except InputError as err:
            raise ctx.error(err.message, "analyses.names") from None
        if entry.name in resolved:
            raise ctx.error(f"analysis {entry.name!r} is listed twice", "analyses.names")
        _check_platform(ctx, entry, kind, processors)
        resolved.append(entry.name)
    return tuple(resolved), "list", ()


def _check_platform(ctx: _Context, entry: Any, kind: str, processors: tuple[int, ...]) -> None:
    """Refuse an analysis of the wrong platform for the generator kind, or a GPU analysis that
    accepts none of the platform's GPU(m) (``entry.supports``)."""
    if kind != "gpu":
        if entry.platform == "gpu":
            raise ctx.error(
                f'analysis {entry.name!r} analyses GPU workloads; set [generator] kind = "gpu" '
                "(and the GPU generator's parameters) to sweep it",
                "analyses.names",
            )
        return
    if entry.platform != "gpu":
        raise ctx.error(
            f"analysis {entry.name!r} analyses task sets (platform {entry.platform!r}), but this experiment "
            f'draws GPU workloads ([generator] kind = "gpu"); name GPU analyses such as gpu:ffd or gpu:exhaustive',
            "analyses.names",
        )
    refusals = [gpu_refusal(entry, m) for m in processors]
    if all(why is not None for why in refusals):
        ms = ", ".join(map(str, processors))
        raise ctx.error(
            f"analysis {entry.name!r} does not apply to platform.m = {ms} (M, the number of compute clusters): "
            f"{refusals[0]}; change m",
            "analyses.names",
        )


def _check_generator(ctx: _Context, experiment: Experiment) -> None:
    """Draw one set per configuration so the generator's refusals name the key now."""
    import numpy as np

    from rtsched.sweep.kinds import draw
    from rtsched.sweep.units import configurations

    rng = np.random.default_rng(0)
    for config in configurations(experiment):
        kwargs = dict(config.generator)
        n = kwargs.pop("n")
        for size in sorted(set(n)) if isinstance(n, tuple) else (n,):
            try:
                draw(config.kind, rng, n=size, utilization=config.utilization, size=1, m=config.m, params=kwargs)
            except InputError as err:
                where = config.describe() + (f", n = {size}" if isinstance(n, tuple) else "")
                raise ctx.error(f"{where}: {err.message}", config.blame_key(err.field)) from None


# ------------------------------------------------------------------------------------------------
# A tiny TOML writer for the canonical form (tables of scalars, lists and inline tables)
# ------------------------------------------------------------------------------------------------
def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{k} = {_toml_value(v)}" for k, v in value.items()) + "}"
    raise TypeError(f"cannot write {value!r} as TOML")


def _key(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z0-9_\-]+", key) else json.dumps(key)


def _to_toml(data: Mapping[str, Any]) -> str:
    lines = [f"{_key(k)} = {_toml_value(v)}" for k, v in data.items() if not isinstance(v, Mapping)]
    for key, value in data.items():
        if isinstance(value, Mapping):
            lines.append("")
            lines.append(f"[{_key(key)}]")
            lines.extend(f"{_key(k)} = {_toml_value(v)}" for k, v in value.items() if v is not None)
    return "\n".join(lines) + "\n"
