"""Platforms: what an analysis is asked about, as small typed values.

- :class:`Identical` ``(m)``: m identical processors (``check(ts, 4)`` means ``Identical(4)``).
- :class:`Clustered` ``(m, k)``: m identical processors grouped in clusters of k (m a multiple of k);
  the clustered analyses (``clustered:k=<k>``) decide task sets on it, and also on ``Identical(m)``,
  where the clusters are the scheduler's choice rather than the hardware's.
- :class:`GPU` ``(M)``: a GPU with M compute clusters, partitioned among real-time kernels; its
  analyses take GPU workloads, not task sets.
- :class:`Typed` ``({"cpu": 4, "gpu": 2})``: a heterogeneous platform, a number of units per
  vertex type (``typed:cpu=4,gpu=2``); a typed DAG vertex runs only on a unit of its type
  (:attr:`rtsched.dag.DAGTask.types`). Its analyses take DAG task sets.

An analysis says which platforms it accepts (:meth:`rtsched.registry.Analysis.supports`), so nobody
probes support by building fake task sets and catching errors. ``size`` is the number an analysis
module receives as ``m``: processors, or the GPU's compute clusters; an analysis written for typed
platforms (registry platform kind ``typed``) receives the :class:`Typed` value itself.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rtsched.errors import InputError

__all__ = ["GPU", "Clustered", "Identical", "Platform", "Typed", "as_platform", "parse_platform"]

#: Upper bound on processors (and GPU clusters) accepted anywhere.
MAX_PROCESSORS = 1_000_000


def _count(value: object, what: str, field: str) -> int:
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise InputError(f"{what} must be a positive integer, got {value!r}", field=field)
    number = int(value)
    if number < 1:
        raise InputError(f"{what} must be a positive integer, got {value!r}", field=field)
    if number > MAX_PROCESSORS:
        raise InputError(f"{what} = {number} is out of range (at most {MAX_PROCESSORS})", field=field)
    return number


@dataclass(frozen=True)
class Identical:
    """``m`` identical processors."""

    m: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "m", _count(self.m, "the number of processors m", "m"))

    @property
    def size(self) -> int:
        """The number of processors, ``m``."""
        return self.m

    def __str__(self) -> str:
        return f"{self.m} identical processor{'s' if self.m != 1 else ''}"


@dataclass(frozen=True)
class Clustered:
    """``m`` identical processors in clusters of ``k`` (``k`` divides ``m``)."""

    m: int
    k: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "m", _count(self.m, "the number of processors m", "m"))
        object.__setattr__(self, "k", _count(self.k, "the cluster size k", "k"))
        if self.m % self.k:
            raise InputError(f"clusters of k = {self.k} do not divide m = {self.m} processors", field="k")

    @property
    def size(self) -> int:
        """The number of processors, ``m`` (all clusters together)."""
        return self.m

    def __str__(self) -> str:
        return f"{self.m} processors in clusters of {self.k}"


@dataclass(frozen=True)
class GPU:
    """A GPU with ``M`` compute clusters (SMs or TPC groups), partitioned among kernels."""

    M: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "M", _count(self.M, "the number of GPU compute clusters M", "M"))

    @property
    def size(self) -> int:
        """The number of compute clusters, ``M``."""
        return self.M

    def __str__(self) -> str:
        return f"a GPU with {self.M} compute clusters"


#: A vertex type: a non-empty name of letters, digits, ``_`` or ``-`` (``cpu``, ``gpu``, ``dla0``).
_TYPE_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")


@dataclass(frozen=True)
class Typed:
    """A heterogeneous platform: ``units[s]`` units of each vertex type ``s`` (e.g. ``{"cpu": 4, "gpu": 2}``).

    A vertex of type ``s`` (:attr:`rtsched.dag.DAGTask.types`, default ``"cpu"``) runs only on a
    unit of type ``s``; units of one type are identical. ``units`` may be given as a mapping or as
    ``(type, count)`` pairs; it is stored as a tuple of pairs sorted by type name, so that equal
    platforms are equal and hash alike. Frozen and validated: every count is a positive integer,
    every type a name (letters, digits, ``_``, ``.``, ``-``).
    """

    units: tuple[tuple[str, int], ...]

    def __init__(self, units: object) -> None:
        pairs: Any = list(units.items()) if isinstance(units, Mapping) else units
        try:
            items = [(name, count) for name, count in pairs]
        except (TypeError, ValueError):
            raise InputError(
                f"a typed platform takes a mapping {{type: units}}, e.g. {{'cpu': 4, 'gpu': 2}}, got {units!r}",
                field="platform",
            ) from None
        if not items:
            raise InputError("a typed platform needs at least one type of unit", field="platform")
        clean: dict[str, int] = {}
        for name, count in items:
            if not isinstance(name, str) or not _TYPE_NAME.fullmatch(name):
                raise InputError(f"a unit type must be a name such as cpu or gpu, got {name!r}", field="platform")
            if name in clean:
                raise InputError(f"unit type {name!r} given twice", field="platform")
            clean[name] = _count(count, f"the number of {name} units", "platform")
        object.__setattr__(self, "units", tuple(sorted(clean.items())))

    @property
    def size(self) -> int:
        """The number of units of all types together."""
        return sum(count for _name, count in self.units)

    @property
    def types(self) -> tuple[str, ...]:
        """The unit types, sorted by name."""
        return tuple(name for name, _count in self.units)

    def count(self, kind: str) -> int:
        """The number of units of type ``kind`` (0 if the platform has none)."""
        return dict(self.units).get(kind, 0)

    def as_dict(self) -> dict[str, int]:
        """``{type: units}``, a new dict."""
        return dict(self.units)

    @property
    def spec(self) -> str:
        """The textual form ``parse_platform`` reads: ``typed:cpu=4,gpu=2``."""
        return "typed:" + ",".join(f"{name}={count}" for name, count in self.units)

    def __str__(self) -> str:
        parts = ", ".join(f"{count} {name} unit{'s' if count != 1 else ''}" for name, count in self.units)
        return f"a typed platform with {parts}"


Platform = Identical | Clustered | GPU | Typed


def as_platform(value: object) -> Platform:
    """``value`` as a platform: a platform stays itself, a positive integer m is ``Identical(m)``.

    A string is parsed (``parse_platform``); a mapping ``{type: units}`` is a :class:`Typed`.
    """
    if isinstance(value, Identical | Clustered | GPU | Typed):
        return value
    if isinstance(value, dict):
        return Typed(value)
    if isinstance(value, str):
        return parse_platform(value)
    return Identical(value)  # type: ignore[arg-type]


def parse_platform(text: str, m: int | None = None) -> Platform:
    """Parse ``identical:<m>``, ``clustered:<m>:k=<k>``, ``gpu:<M>`` or ``typed:<type>=<n>,...``.

    ``m`` fills a missing size (not of a typed platform, whose sizes are its counts).
    """
    spec = text.strip()
    if spec.startswith("typed"):
        match = re.fullmatch(r"typed:\s*(.+)", spec)
        pairs = [part.strip() for part in match.group(1).split(",")] if match else []
        counts: list[tuple[str, object]] = []
        for part in pairs:
            item = re.fullmatch(r"([^=\s]+)\s*=\s*(\d+)", part)
            if item is None:
                raise InputError(
                    f"bad typed platform {text!r}; expected typed:<type>=<units>,... such as typed:cpu=4,gpu=2",
                    field="platform",
                )
            counts.append((item.group(1), int(item.group(2))))
        if not counts:
            raise InputError(
                f"bad typed platform {text!r}; expected typed:<type>=<units>,... such as typed:cpu=4,gpu=2",
                field="platform",
            )
        return Typed(counts)
    if match := re.fullmatch(r"identical(?::(\d+))?", spec):
        size = match.group(1) or m
        if size is None:
            raise InputError("the platform needs a number of processors (identical:<m> or -m M)", field="platform")
        return Identical(int(size))
    if match := re.fullmatch(r"clustered(?::(\d+))?:k=(\d+)", spec):
        size = match.group(1) or m
        if size is None:
            raise InputError(
                "the platform needs a number of processors (clustered:<m>:k=<k> or -m M)", field="platform"
            )
        return Clustered(int(size), int(match.group(2)))
    if match := re.fullmatch(r"gpu(?::(\d+))?", spec):
        size = match.group(1) or m
        if size is None:
            raise InputError("the platform needs a number of compute clusters (gpu:<M>)", field="platform")
        return GPU(int(size))
    raise InputError(
        f"unknown platform {text!r}; use identical[:<m>], clustered[:<m>]:k=<k>, gpu:<M> or typed:<type>=<n>,...",
        field="platform",
    )
