"""Parse and validate experiment files (the format is described in :mod:`rtsched.sweep.experiment`).

Every error is an :class:`~rtsched.errors.InputError` whose ``field`` is the dotted key
(``sweep.points``) and whose ``file``/``line`` say where, when they can be found. What depends on
the generator kind (its parameters, defaults, value types, analyses, what ``m`` means) is asked
of the kind object (:mod:`rtsched.sweep.kinds`).
"""

from __future__ import annotations

import math
import re
import tomllib
from collections.abc import Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from rtsched.errors import InputError
from rtsched.sweep.identity import Axis, Experiment
from rtsched.sweep.kinds import DEFAULT_KIND, KINDS, GeneratorKind, draw, kind_named
from rtsched.sweep.units import configurations
from rtsched.sweep.values import (
    Context,
    generator_value,
    integer_range_value,
    integer_value,
    no_unknown_keys,
    positive_float,
    positive_int,
    probability_value,
    range_value,
    string_value,
    table_value,
)

__all__ = [
    "DEFAULT_EXPERIMENT_TOML",
    "DEFAULT_SETS_PER_UNIT",
    "MAX_SETS",
    "default_experiment",
    "load_experiment",
    "parse_experiment",
]

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
#: Most task sets per point.
MAX_SETS = 10**9
#: ``sets_per_unit`` when the file leaves it out (or ``sets_per_point``, if smaller).
DEFAULT_SETS_PER_UNIT = 1000
#: The built-in experiment of ``rtsched sweep`` without a file: rtsched/data/default_experiment.toml,
#: package data (``rtsched sweep --print-default`` prints it).
DEFAULT_EXPERIMENT_TOML = (
    resources.files("rtsched").joinpath("data", "default_experiment.toml").read_text(encoding="utf-8")
)


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
    """The built-in experiment of ``rtsched sweep`` without a file (:data:`DEFAULT_EXPERIMENT_TOML`).

    It is read from rtsched/data/default_experiment.toml.
    """
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
    ctx = Context(file, text)
    if isinstance(source, str):
        try:
            data: Mapping[str, Any] = tomllib.loads(source)
        except tomllib.TOMLDecodeError as err:
            match = re.search(r"\(at line (\d+), column \d+\)", str(err))
            raise InputError(f"not valid TOML: {err}", file=file, line=int(match.group(1)) if match else None) from None
    elif isinstance(source, Mapping):
        data = source
    else:
        raise InputError(f"an experiment is TOML text or a mapping, got {type(source).__name__}", file=file)

    no_unknown_keys(ctx, data, _TOP_KEYS, "")
    name = string_value(ctx, data.get("name", "experiment"), "name")
    description = string_value(ctx, data.get("description", ""), "description")
    seed = data.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ctx.error(f"the seed must be a non-negative integer, got {seed!r}", "seed")

    platform = table_value(ctx, data.get("platform", {}), "platform")
    generator_table = table_value(ctx, data.get("generator", {}), "generator")
    sweep_table = table_value(ctx, data.get("sweep"), "sweep", required=True)
    analyses_table = table_value(ctx, data.get("analyses", {}), "analyses")
    no_unknown_keys(ctx, platform, ("m", "units"), "platform")
    no_unknown_keys(ctx, sweep_table, _SWEEP_KEYS, "sweep")
    no_unknown_keys(ctx, analyses_table, _ANALYSES_KEYS, "analyses")
    kind_name = generator_table.get("kind", DEFAULT_KIND)
    if kind_name not in KINDS:
        raise ctx.error(f"unknown generator kind {kind_name!r}; choose one of: {', '.join(KINDS)}", "generator.kind")
    kind = kind_named(kind_name)
    allowed_generator_keys = kind.keys()
    no_unknown_keys(ctx, generator_table, (*allowed_generator_keys, *_UTILIZATION_KEYS, "kind"), "generator")

    # -- swept variables -------------------------------------------------------------------------
    sweep_axis = _axis(ctx, sweep_table, "variable", "points", kind, allowed_generator_keys, required=True)
    assert sweep_axis is not None
    by_axis = _axis(ctx, sweep_table, "by", "by_points", kind, allowed_generator_keys, required=False)
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
            raise ctx.error(f"the platform needs m, {kind.m_means}", "platform.m")
        values = raw_m if isinstance(raw_m, list) else [raw_m]
        if not values:
            raise ctx.error("the list of m values is empty", "platform.m")
        for value in values:
            positive_int(ctx, value, "platform.m", "m")
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

    units = _units(ctx, platform.get("units"), kind)
    if units and ("U/m" in swept or "normalized_utilization" in generator_table):
        raise ctx.error(
            "U/m is not defined on a typed platform (platform.units): sweep or give the total utilization",
            next((a.key for a in (sweep_axis, by_axis) if a is not None and a.variable == "U/m"),
                 "generator.normalized_utilization"),
        )  # fmt: skip

    # -- generator --------------------------------------------------------------------------------
    generator: dict[str, Any] = dict(kind.defaults)
    for key, value in generator_table.items():
        if key in _UTILIZATION_KEYS or key == "kind":
            continue
        dotted = f"generator.{key}"
        if f"generator.{key}" in swept:
            raise ctx.error(f"{key} is a swept variable; remove {dotted}", dotted)
        generator[key] = generator_value(ctx, kind.value_type(key), value, dotted, key)
    for variable in swept:
        # A swept parameter has no fixed value: drop its default, so that the canonical form
        # (and the TOML written from it) does not give it twice.
        if variable.startswith("generator."):
            generator.pop(variable.removeprefix("generator."), None)
    kind.complete(ctx, generator, generator_table, {a.variable: a for a in (sweep_axis, by_axis) if a is not None})
    _types_on_platform(ctx, generator.get("types"), units)
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
        value = positive_float(ctx, generator_table[given[0]], f"generator.{given[0]}", given[0])
        if given[0] == "utilization":
            utilization = value
        else:
            normalized = value

    # -- sizes -------------------------------------------------------------------------------------
    sets_per_point = positive_int(ctx, sweep_table.get("sets_per_point"), "sweep.sets_per_point", "sets_per_point")
    if sets_per_point > MAX_SETS:
        raise ctx.error(f"at most {MAX_SETS} sets per point", "sweep.sets_per_point")
    sets_per_unit = positive_int(
        ctx,
        sweep_table.get("sets_per_unit", min(DEFAULT_SETS_PER_UNIT, sets_per_point)),
        "sweep.sets_per_unit",
        "sets_per_unit",
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
        generator_kind=kind.name,
        units=units,
    )
    if check_generator:
        _check_generator(ctx, experiment)
    kind.checked([(dict(config.generator), config.utilization) for config in configurations(experiment)])
    return experiment


def _units(ctx: Context, raw: Any, kind: GeneratorKind) -> tuple[tuple[str, int], ...]:
    """``[platform] units = {gpu = 2, ...}``: the units of the types besides cpu (whose count is ``m``)."""
    if raw is None:
        return ()
    key = "platform.units"
    if kind.name != "dag":
        raise ctx.error(
            f'a typed platform (units) is for DAG experiments ([generator] kind = "dag"), not {kind.inputs}', key
        )
    if not isinstance(raw, Mapping) or not raw:
        raise ctx.error(
            f"expected a table {{type = units, ...}} of the types besides cpu, e.g. {{gpu = 2}}, got {raw!r}", key
        )
    from rtsched.platform import Typed

    out = []
    for name, count in raw.items():
        if name == "cpu":
            raise ctx.error("the cpu units are platform.m; units gives the other types (e.g. {gpu = 2})", f"{key}.cpu")
        positive_int(ctx, count, f"{key}.{name}", f"the number of {name} units")
        try:
            Typed({name: count})
        except InputError as err:
            raise ctx.error(err.message, f"{key}.{name}") from None
        out.append((name, count))
    return tuple(sorted(out))


def _types_on_platform(ctx: Context, types: Any, units: tuple[tuple[str, int], ...]) -> None:
    """Every vertex type the generator can draw (and cpu, of sources and sinks) must have units."""
    if types is None:
        return
    have = {"cpu", *(name for name, _ in units)}
    missing = [name for name, weight in types if weight > 0 and name not in have]
    if missing:
        hint = ", ".join(f"{name} = 1" for name in missing)
        raise ctx.error(
            f"the generator draws vertices of type {', '.join(missing)}, which the platform has no units of "
            f"(m counts the cpu units); add them: [platform] units = {{{hint}}}",
            "generator.types",
        )


def _budgets(ctx: Context, raw: Any, names: tuple[str, ...]) -> tuple[tuple[str, int], ...]:
    """``[analyses] budget = {name = N, ...}``: work budgets of selected analyses that have one."""
    if raw is None:
        return ()
    if not isinstance(raw, dict) or not raw:
        raise ctx.error(
            f"expected a table of analysis = budget, e.g. {{exact = 200000}}, got {raw!r}", "analyses.budget"
        )
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


def _axis(
    ctx: Context,
    table: Mapping[str, Any],
    variable_key: str,
    points_key: str,
    kind: GeneratorKind,
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
        raise ctx.error(f"unknown swept variable {raw!r}; choose utilization, U/m, n, m or generator.<parameter>", vkey)
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
    value_type = kind.value_type(variable.removeprefix("generator.")) if variable.startswith("generator.") else None
    points = _points(ctx, table[points_key], pkey, variable, value_type)
    return Axis(variable, points, pkey)


def _points(ctx: Context, raw: Any, key: str, variable: str, value_type: str | None) -> tuple[Any, ...]:
    """The points of ``variable``.

    Integers for n and m, else as the parameter's type says (strings, ranges, probabilities), else
    positive numbers.
    """
    if value_type == "weights":
        raise ctx.error(f"{variable} is a table and cannot be swept; give it in [generator]", key)
    integer = variable in ("n", "m") or value_type == "integer"
    textual = value_type == "text"
    ranges = value_type in ("range", "integer-range")
    probability = value_type == "probability"
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
            clean.append(string_value(ctx, value, f"{key}[{i}]"))
        elif value_type == "integer-range":
            clean.append(integer_range_value(ctx, value, key, f"point {i} of {variable}"))
        elif ranges:
            clean.append(range_value(ctx, value, key, f"point {i} of {variable}"))
        elif probability:
            clean.append(probability_value(ctx, value, key, f"point {i} of {variable}"))
        elif value_type == "integer":
            clean.append(integer_value(ctx, value, key, f"point {i} of {variable}"))
        elif integer:
            clean.append(positive_int(ctx, value, key, f"point {i} of {variable}"))
        else:
            clean.append(positive_float(ctx, value, key, f"point {i} of {variable}"))
    if len(set(clean)) != len(clean):
        raise ctx.error(f"points repeat: {clean}", key)
    return tuple(clean)


def _analyses(
    ctx: Context, table: Mapping[str, Any], kind: GeneratorKind, processors: tuple[int, ...]
) -> tuple[tuple[str, ...], str, tuple[tuple[str, tuple[str, ...]], ...]]:
    from rtsched import registry

    raw = table.get("names", kind.default_names)
    refusal = kind.featured_refusal() if raw == "featured" else None
    if refusal is not None:
        raise ctx.error(refusal, "analyses.names")
    filters: list[tuple[str, tuple[str, ...]]] = []
    for key in ("policies", "kinds"):
        if key in table:
            values = table[key]
            if not isinstance(values, list) or not values or not all(isinstance(v, str) for v in values):
                raise ctx.error(f"expected a non-empty list of strings, got {values!r}", f"analyses.{key}")
            filters.append((key, tuple(values)))
    if raw in ("featured", "all"):
        # The analyses of the kind's workload only: "all" of a DAG experiment is every analysis of
        # DAG task sets, whatever its name (new ones join when they are registered).
        entries = [e for e in registry.all_entries(featured_only=raw == "featured") if e.workload is kind.workload]
        if not entries:
            raise ctx.error(
                f"no {'featured ' if raw == 'featured' else ''}analysis of {kind.workload.title} is registered"
                + ('; use names = "all" or name the analyses' if raw == "featured" else ""),
                "analyses.names",
            )
        for key, values in filters:
            attr = "policy" if key == "policies" else "kind"
            entries = [e for e in entries if getattr(e, attr) in values]
        if not entries:
            raise ctx.error(f"no {'featured ' if raw == 'featured' else ''}analysis passes the filters", "analyses")
        return tuple(e.name for e in entries), raw, tuple(filters)
    if isinstance(raw, str):
        raw = [raw]
    if not isinstance(raw, list) or not raw or not all(isinstance(v, str) for v in raw):
        raise ctx.error(
            f'expected "featured", "all" or a non-empty list of analysis names, got {raw!r}', "analyses.names"
        )
    if filters:
        raise ctx.error(
            'policies and kinds filter names = "featured" or "all"; with a list, name the analyses',
            f"analyses.{filters[0][0]}",
        )
    resolved: list[str] = []
    for name in raw:
        try:
            entry = registry.get(name)
        except InputError as err:
            raise ctx.error(err.message, "analyses.names") from None
        if entry.name in resolved:
            raise ctx.error(f"analysis {entry.name!r} is listed twice", "analyses.names")
        refusal = kind.analysis_refusal(entry, processors)
        if refusal is not None:
            raise ctx.error(refusal, "analyses.names")
        resolved.append(entry.name)
    return tuple(resolved), "list", ()


def _check_generator(ctx: Context, experiment: Experiment) -> None:
    """Draw one set per configuration so the generator's refusals name the key now."""
    import numpy as np

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
