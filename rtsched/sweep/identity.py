"""What an experiment is: :class:`Experiment`, :class:`Axis`, the canonical form, the fingerprint, the TOML writer.

The experiment's identity is :meth:`~rtsched.sweep.Experiment.fingerprint`: a SHA-256 of its canonical JSON
form (every default filled in, the analysis list resolved against the registry) together with
the rtsched version. A result directory remembers it, so results of two different experiments
are never mixed. :meth:`~rtsched.sweep.Experiment.to_toml` writes the canonical form back as an experiment file
that parses to an equal experiment (:func:`~rtsched.sweep.parse_experiment`).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from rtsched._version import __version__
from rtsched.sweep.kinds import DEFAULT_KIND, axis_label, caption, kind_named
from rtsched.sweep.values import Context, positive_int

__all__ = ["Axis", "Experiment"]


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


@dataclass(frozen=True)
class Experiment:
    """A parsed, validated experiment (immutable; build it with :func:`parse_experiment`).

    Attributes
    ----------
    name, description:
        Labels for people (part of the fingerprint, since they appear in outputs).
    seed:
        Root seed; unit ``k`` draws from ``SeedSequence(seed, spawn_key=(s,))``, ``s`` its
        stream (``k``, or its place in its panel of the second variable: :mod:`rtsched.sweep.units`).
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
        ``"featured"``, ``"all"`` (every analysis of the generator kind's workload) or ``"list"``:
        how ``analyses`` was given (selected analyses that do not apply to a platform are
        skipped; named ones must apply).
    source, text:
        The file it came from and its text (not part of the fingerprint).
    generator_kind:
        ``taskset`` (``generate_batch``), ``gpu`` (``generate_gpu_batch`` with ``clusters = m``)
        or ``dag`` (``dag_tasksets``); see :mod:`rtsched.sweep.kinds`. Part of the fingerprint (written as ``generator.kind``
        when it is not the default, so task-set experiments keep their fingerprints).
    units:
        ``[platform] units`` of a DAG experiment, ``(type, count)`` pairs sorted by type (e.g.
        ``(("gpu", 2),)``): the platform is then ``Typed({"cpu": m, **units})``; empty (the
        default, left out of the canonical form) for identical processors.
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
    units: tuple[tuple[str, int], ...] = ()

    # -- identity -------------------------------------------------------------------------------
    def canonical(self) -> dict[str, Any]:
        """The experiment as plain JSON data, every default filled in (what the fingerprint hashes)."""
        gen: dict[str, Any] = {}
        if self.generator_kind != DEFAULT_KIND:
            gen["kind"] = self.generator_kind
        for key, value in self.generator:
            if key == "n" and isinstance(value, tuple):
                gen[key] = {"min": value[0], "max": value[1]}
            elif kind_named(self.generator_kind).value_type(key) == "weights":
                gen[key] = dict(value)  # (name, weight) pairs, sorted by name: a table
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
        platform: dict[str, Any] = {"m": list(self.processors)}
        if self.units:
            platform["units"] = dict(self.units)
        return {
            "name": self.name,
            "description": self.description,
            "seed": self.seed,
            "platform": platform,
            "generator": gen,
            "sweep": sweep,
            "analyses": analyses,
        }

    def fingerprint(self) -> str:
        """SHA-256 (hex) of the canonical experiment, the resolved analyses and the rtsched version."""
        payload: dict[str, Any] = {"experiment": self.canonical(), "rtsched": __version__, "format": 1}
        if self.by is not None:  # its panels share their random streams since 2026-12-02 (rtsched.sweep.units)
            payload["streams"] = "paired by panel"
        text = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
        return hashlib.sha256(text.encode()).hexdigest()

    def to_toml(self) -> str:
        """The canonical experiment as TOML text (parses back to an equal experiment)."""
        data = self.canonical()
        data["analyses"].pop("selection")
        if self.analyses_selection in ("featured", "all"):
            data["analyses"]["names"] = self.analyses_selection
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
        data = self.canonical()
        data["sweep"]["sets_per_point"] = sets_per_point
        data["sweep"]["sets_per_unit"] = min(sets_per_unit or self.sets_per_unit, sets_per_point)
        ctx = Context(self.source, None)
        positive_int(ctx, sets_per_point, "sweep.sets_per_point", "sets_per_point")
        positive_int(ctx, data["sweep"]["sets_per_unit"], "sweep.sets_per_unit", "sets_per_unit")
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
