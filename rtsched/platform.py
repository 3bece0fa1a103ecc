"""Platforms: what an analysis is asked about, as small typed values.

- :class:`Identical` ``(m)``: m identical processors (``check(ts, 4)`` means ``Identical(4)``).
- :class:`Clustered` ``(m, k)``: m identical processors grouped in clusters of k (m a multiple of k);
  the clustered analyses (``clustered:k=<k>``) decide task sets on it, and also on ``Identical(m)``,
  where the clusters are the scheduler's choice rather than the hardware's.
- :class:`GPU` ``(M)``: a GPU with M compute clusters, partitioned among real-time kernels; its
  analyses take GPU workloads, not task sets.

An analysis says which platforms it accepts (:meth:`rtsched.registry.Analysis.supports`), so nobody
probes support by building fake task sets and catching errors. ``size`` is the number an analysis
module receives as ``m``: processors, or the GPU's compute clusters.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rtsched.errors import InputError

__all__ = ["GPU", "Clustered", "Identical", "Platform", "as_platform", "parse_platform"]

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


Platform = Identical | Clustered | GPU


def as_platform(value: object) -> Platform:
    """``value`` as a platform: a platform stays itself, a positive integer m is ``Identical(m)``."""
    if isinstance(value, Identical | Clustered | GPU):
        return value
    if isinstance(value, str):
        return parse_platform(value)
    return Identical(value)  # type: ignore[arg-type]


def parse_platform(text: str, m: int | None = None) -> Platform:
    """Parse ``identical:<m>``, ``clustered:<m>:k=<k>`` or ``gpu:<M>`` (``m`` fills a missing size)."""
    spec = text.strip()
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
        f"unknown platform {text!r}; use identical[:<m>], clustered[:<m>]:k=<k> or gpu:<M>", field="platform"
    )
