"""The GPU workload model: kernels with WCET profiles and contention factors, inflation, layouts.

rtsched's model, after Zahaf et al. (RTNS 2021); papers/zahaf2021-gpu-partitioning.md states
its assumptions A1–A7 and Eq. (I), the inflation rule. :class:`GPUWorkloadBatch` is what the
generator (:mod:`rtsched.generators.gpu`) draws and the GPU registry entries take.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal

import numpy as np

from rtsched.errors import InputError
from rtsched.gpu.mig import check_layout_spec
from rtsched.model import MAX_TIME

__all__ = [
    "MAX_CLUSTERS",
    "CLASSES",
    "INTERFERENCE_MODES",
    "AmdahlWCET",
    "Blocking",
    "GPUWorkload",
    "GPUWorkloadBatch",
    "Kernel",
    "SaturatingWCET",
    "Slowdown",
    "TableWCET",
    "WCETProfile",
    "check_clusters",
    "inflate",
    "inflate_by",
    "layouts",
]


#: Largest M accepted (layout enumeration grows like the partition numbers p(M)).
MAX_CLUSTERS = 64
Blocking = Literal["tick", "dense"]
#: Interference models: ``count-only`` (f(k) of the number of other active partitions, assumptions
#: A3, A4) and ``co-runner`` (f(k | c), c the most intense class among the co-runners; A4').
INTERFERENCE_MODES = ("co-runner", "count-only")
#: Default memory-intensity classes, from the least to the most interfering.
CLASSES = ("compute", "memory")


def check_clusters(M: object) -> int:
    """M as an int, if it is an integer in 1..:data:`MAX_CLUSTERS`; else an InputError."""
    if isinstance(M, bool) or not isinstance(M, int | np.integer) or not 1 <= int(M) <= MAX_CLUSTERS:
        raise InputError(
            f"the number of clusters M must be an integer in 1..{MAX_CLUSTERS}, got {M!r}", field="clusters"
        )
    return int(M)


@dataclass(frozen=True)
class TableWCET:
    """Measured WCETs C(1), …, C(len); beyond the table C(s) = C(len) (assumption A2)."""

    values: tuple[int, ...]

    def at(self, s: int) -> int:
        """C(s) for a partition of ``s`` ≥ 1 clusters."""
        return self.values[min(s, len(self.values)) - 1]

    def to_doc(self) -> Any:
        """The file form."""
        return list(self.values)


@dataclass(frozen=True)
class AmdahlWCET:
    """Amdahl's law: C(s) = ⌈C1 · ((1 − p) + p/s)⌉ with parallel fraction 0 ≤ p ≤ 1 (exact)."""

    C1: int
    parallel: Fraction

    def at(self, s: int) -> int:
        """C(s), rounded up."""
        value = self.C1 * ((1 - self.parallel) + self.parallel / s)
        return math.ceil(value)

    def to_doc(self) -> Any:
        """The file form."""
        return {"model": "amdahl", "C1": self.C1, "parallel": _frac_doc(self.parallel)}


@dataclass(frozen=True)
class SaturatingWCET:
    """Linear speed-up up to ``saturation`` clusters, flat beyond: C(s) = ⌈C1 / min(s, S)⌉."""

    C1: int
    saturation: int

    def at(self, s: int) -> int:
        """C(s), rounded up."""
        return -(-self.C1 // min(s, self.saturation))

    def to_doc(self) -> Any:
        """The file form."""
        return {"model": "saturating", "C1": self.C1, "saturation": self.saturation}


WCETProfile = TableWCET | AmdahlWCET | SaturatingWCET


@dataclass(frozen=True)
class Slowdown:
    """A slowdown table f(1), f(2), … with the value beyond it (None: not measured beyond)."""

    factors: tuple[Fraction, ...] = ()
    beyond: Fraction | None = None

    def factor(self, others: int) -> Fraction | None:
        """f(others) (1 for none; None where not measured)."""
        if others <= 0:
            return Fraction(1)
        if others <= len(self.factors):
            return self.factors[others - 1]
        return self.beyond


@dataclass(frozen=True)
class Kernel:
    """A real-time GPU kernel τ = (C(s), D, T) with its contention slowdown table.

    Attributes
    ----------
    wcet:
        The WCET profile C(s), non-increasing in s.
    D, T:
        Relative deadline and minimum inter-arrival time (ticks), D ≤ T.
    slowdown:
        f(1), f(2), …: the factor by which the WCET grows when 1, 2, … other partitions are
        active (f(0) = 1). Exact rationals, ≥ 1, non-decreasing.
    slowdown_beyond:
        f(k) for k > len(slowdown); ``None`` means "not measured": the kernel cannot be placed in
        a layout with more active partitions than the table covers. The default, 1 with an
        empty table, means *no contention* (files must always state the slowdown).
    preemptive:
        Whether jobs of the kernel can be preempted.
    name:
        Optional name.
    klass:
        Its memory-intensity class (one of the workload's ``classes``), what it does to the
        kernels beside it; ``None`` means the most interfering class (worst case).
    slowdown_by:
        Co-runner rows ``(class, Slowdown)``: f(k | c), the slowdown when k other partitions run,
        each running kernels of class c or a less interfering one (the ``co-runner`` model).
        A class without a row takes the row of the next more interfering class that has one,
        and ``slowdown`` above the last (the worst case over every co-runner).
    """

    wcet: WCETProfile
    D: int
    T: int
    slowdown: tuple[Fraction, ...] = ()
    slowdown_beyond: Fraction | None = Fraction(1)
    preemptive: bool = True
    name: str | None = None
    klass: str | None = None
    slowdown_by: tuple[tuple[str, Slowdown], ...] = ()

    def factor(self, others: int) -> Fraction | None:
        """f(others): the slowdown with ``others`` other active partitions (None: not measured)."""
        return Slowdown(self.slowdown, self.slowdown_beyond).factor(others)

    def corunner_factor(self, others: int, worst: int | None, classes: Sequence[str]) -> Fraction | None:
        """f(others | classes[worst]): the row of the least class ≥ ``worst`` that has one, else f(others).

        ``worst`` is the index in ``classes`` of the most interfering class among the co-runners
        (None: unknown, the worst case: :meth:`factor`).
        """
        if others > 0 and worst is not None:
            rows = dict(self.slowdown_by)
            for c in classes[worst:]:
                if c in rows:
                    return rows[c].factor(others)
        return self.factor(others)


@dataclass(frozen=True)
class GPUWorkload:
    """A set of GPU kernels, optionally with the GPU's number of clusters.

    ``blocking`` is the time model of the non-preemptive test: ``"tick"`` (every kernel start and
    end is on a tick: blocking C − 1) or ``"dense"`` (blocking C).
    """

    kernels: tuple[Kernel, ...]
    clusters: int | None = None
    name: str | None = None
    blocking: Blocking = "tick"
    layout: str = "free"
    interference: str = "co-runner"
    classes: tuple[str, ...] = CLASSES

    def __post_init__(self) -> None:
        object.__setattr__(self, "kernels", tuple(self.kernels))
        object.__setattr__(self, "classes", tuple(self.classes))
        if not self.kernels:
            raise InputError("a GPU workload needs at least one kernel")
        if self.blocking not in ("tick", "dense"):
            raise InputError(f"blocking must be 'tick' or 'dense', got {self.blocking!r}", field="blocking")
        if self.interference not in INTERFERENCE_MODES:
            raise InputError(
                f"interference must be one of {', '.join(INTERFERENCE_MODES)}, got {self.interference!r}",
                field="interference",
            )
        if not self.classes or len(set(self.classes)) != len(self.classes):
            raise InputError(f"classes must be distinct names, got {list(self.classes)!r}", field="classes")
        object.__setattr__(self, "layout", check_layout_spec(self.layout))
        for i, k in enumerate(self.kernels):
            _validate_kernel(k, i, self.clusters)
            _validate_classes(k, i, self.classes)

    def with_model(self, layout: str | None = None, interference: str | None = None) -> GPUWorkload:
        """The workload with its layout space and interference model replaced where given (validated)."""
        new_layout = self.layout if layout is None else layout
        new_mode = self.interference if interference is None else interference
        if (new_layout, new_mode) == (self.layout, self.interference):
            return self
        return GPUWorkload(self.kernels, self.clusters, self.name, self.blocking, new_layout, new_mode, self.classes)

    @property
    def co_runner_aware(self) -> bool:
        """Whether inflation depends on the co-runners (``co-runner`` mode and some row given)."""
        return self.interference == "co-runner" and any(k.slowdown_by for k in self.kernels)

    def class_index(self, i: int) -> int:
        """Index in ``classes`` of kernel ``i``'s class (its ``klass``; None: the last, the worst)."""
        c = self.kernels[i].klass
        return len(self.classes) - 1 if c is None else self.classes.index(c)

    def worst_outside(self, members: Sequence[int]) -> int | None:
        """The most interfering class index among the kernels *not* in ``members`` (None: count-only).

        Every kernel is placed somewhere, so in an allocation these are exactly the kernels of the
        other partitions, the co-runners of ``members`` (A3: all of them may overlap).
        """
        if not self.co_runner_aware:
            return None
        inside = set(members)
        outside = [self.class_index(j) for j in range(self.n) if j not in inside]
        return max(outside, default=0)

    def factor(self, i: int, others: int, worst: int | None) -> Fraction | None:
        """The slowdown of kernel ``i`` with ``others`` co-running partitions of worst class ``worst``."""
        return self.kernels[i].corunner_factor(others, worst, self.classes)

    @property
    def n(self) -> int:
        """Number of kernels."""
        return len(self.kernels)

    def label(self, i: int) -> str:
        """How kernel ``i`` is shown: ``κ2`` or ``κ2 (conv)``."""
        nm = self.kernels[i].name
        return f"κ{i}" if nm is None else f"κ{i} ({nm})"


def _validate_kernel(k: Kernel, i: int, clusters: int | None) -> None:
    label: int | str = i if k.name is None else f"{i} ({k.name})"
    for field_name, value in (("D", k.D), ("T", k.T)):
        if isinstance(value, bool) or not isinstance(value, int) or not 0 < value <= MAX_TIME:
            raise InputError(f"must be an integer in 1..{MAX_TIME}, got {value!r}", task=label, field=field_name)
    if k.D > k.T:
        raise InputError(f"D = {k.D} exceeds T = {k.T} (constrained deadlines only)", task=label, field="D")
    w = k.wcet
    if isinstance(w, TableWCET):
        if not w.values:
            raise InputError("the WCET table is empty", task=label, field="C")
        for s, c in enumerate(w.values, 1):
            if isinstance(c, bool) or not isinstance(c, int) or not 0 < c <= MAX_TIME:
                raise InputError(f"C({s}) must be an integer in 1..{MAX_TIME}, got {c!r}", task=label, field="C")
            if s > 1 and c > w.values[s - 2]:
                raise InputError(
                    f"the WCET table must be non-increasing in the partition size: C({s}) = {c} > C({s - 1}) = {w.values[s - 2]}",
                    task=label,
                    field="C",
                )
    elif isinstance(w, AmdahlWCET):
        if not 0 < w.C1 <= MAX_TIME:
            raise InputError(f"C1 must be in 1..{MAX_TIME}, got {w.C1}", task=label, field="C.C1")
        if not 0 <= w.parallel <= 1:
            raise InputError(
                f"the parallel fraction must be in [0, 1], got {w.parallel}", task=label, field="C.parallel"
            )
    elif isinstance(w, SaturatingWCET):
        if not 0 < w.C1 <= MAX_TIME:
            raise InputError(f"C1 must be in 1..{MAX_TIME}, got {w.C1}", task=label, field="C.C1")
        if w.saturation < 1:
            raise InputError(
                f"saturation must be a positive number of clusters, got {w.saturation}",
                task=label,
                field="C.saturation",
            )
    else:
        raise InputError(f"unknown WCET profile {w!r}", task=label, field="C")
    _validate_slowdown(Slowdown(k.slowdown, k.slowdown_beyond), label, "slowdown")


def _validate_slowdown(row: Slowdown, label: int | str, field: str) -> None:
    previous = Fraction(1)
    for k_others, f in enumerate(row.factors, 1):
        if f < previous:
            raise InputError(
                f"slowdown factors must be >= 1 and non-decreasing in the number of other partitions: "
                f"f({k_others}) = {_frac_text(f)} < {_frac_text(previous)}",
                task=label,
                field=field,
            )
        previous = f
    if row.beyond is not None and row.beyond < previous:
        raise InputError(
            f"slowdown factor {_frac_text(row.beyond)} is below {_frac_text(previous)}",
            task=label,
            field=field,
        )


def _validate_classes(k: Kernel, i: int, classes: tuple[str, ...]) -> None:
    """Known classes, and co-runner rows non-decreasing in the class, capped by ``slowdown``.

    A missing factor counts as +∞ (not measured), so a row may not be unmeasured where a more
    interfering class's row is measured: the worst class must bound every other (A4').
    """
    label: int | str = i if k.name is None else f"{i} ({k.name})"
    if k.klass is not None and k.klass not in classes:
        raise InputError(f"unknown class {k.klass!r}; the classes are {', '.join(classes)}", task=label, field="class")
    rows = dict(k.slowdown_by)
    for c, row in k.slowdown_by:
        if c not in classes:
            raise InputError(
                f"unknown co-runner class {c!r}; the classes are {', '.join(classes)}",
                task=label,
                field=f"slowdown_by.{c}",
            )
        _validate_slowdown(row, label, f"slowdown_by.{c}")
    if not rows:
        return
    horizon = 1 + max([len(k.slowdown), *(len(r.factors) for r in rows.values())])
    order = [c for c in classes if c in rows]
    for lower, upper in zip(order, [*order[1:], None], strict=True):
        high = Slowdown(k.slowdown, k.slowdown_beyond) if upper is None else rows[upper]
        for others in range(1, horizon + 1):
            a, b = rows[lower].factor(others), high.factor(others)
            if b is not None and (a is None or a > b):
                raise InputError(
                    f"the co-runner row of class {lower!r} must not exceed "
                    + (f"that of the more interfering class {upper!r}" if upper else "the worst case 'slowdown'")
                    + f" (f({others}): {'unmeasured' if a is None else _frac_text(a)} > {_frac_text(b)})",
                    task=label,
                    field=f"slowdown_by.{lower}",
                )


def inflate(kernel: Kernel, size: int, active: int) -> int | None:
    """C' = ⌈C(size) · f(active − 1)⌉, the inflated WCET  [note, Eq. (I)]; None if f is not measured.

    Exact: f = p/q is a Fraction, so C' = ⌈C·p / q⌉ in Python integers (rounded up: sound).
    """
    return inflate_by(kernel, size, kernel.factor(active - 1))


def inflate_by(kernel: Kernel, size: int, f: Fraction | None) -> int | None:
    """C' = ⌈C(size) · f⌉ exactly  [note, Eqs. (I) and (I')]; None if f is None (not measured)."""
    if f is None:
        return None
    c = kernel.wcet.at(size)
    return -(-(c * f.numerator) // f.denominator)


def layouts(M: int, parts: int | None = None, *, exact: bool = True) -> Iterator[tuple[int, ...]]:
    """Integer partitions of ``M`` (or of every m ≤ M when ``exact=False``), sizes decreasing.

    ``parts`` fixes the number of partitions K. Partitions of equal size are interchangeable, so
    each layout appears once (symmetry removed). Order: decreasing lexicographic.
    """
    totals = [M] if exact else range(M, 0, -1)
    for total in totals:
        yield from _integer_partitions(total, total, parts)


def _integer_partitions(total: int, largest: int, parts: int | None) -> Iterator[tuple[int, ...]]:
    if total == 0:
        if parts is None or parts == 0:
            yield ()
        return
    if parts is not None and (parts <= 0 or parts > total):
        return
    for first in range(min(total, largest), 0, -1):
        if parts is not None and first * parts < total:
            break  # the remaining parts (each ≤ first) cannot reach the total
        for rest in _integer_partitions(total - first, first, None if parts is None else parts - 1):
            yield (first, *rest)


def _frac_text(x: Fraction) -> str:
    return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


def _frac_doc(x: Fraction) -> Any:
    if x.denominator == 1:
        return x.numerator
    # A finite decimal is written as such (read back exactly); otherwise as the string "p/q".
    d = x.denominator
    for p in (2, 5):
        while d % p == 0:
            d //= p
    if d == 1:
        digits = 0
        while (x * 10**digits).denominator != 1:
            digits += 1
        return (
            float(f"{float(x):.{digits}f}")
            if digits <= 15 and Fraction(f"{float(x):.{digits}f}") == x
            else _frac_text(x)
        )
    return _frac_text(x)


class GPUWorkloadBatch(tuple):
    """An immutable sequence of GPU workloads with the two attributes a sweep unit reads.

    ``n_sets`` (number of workloads) and ``deadlines`` (``"implicit"`` or ``"constrained"``), as
    on :class:`rtsched.model.TaskSetBatch`; the GPU registry entries (``gpu:ffd``, ...) take it
    directly, on the platform ``GPU(M)``.
    """

    deadlines: str = "constrained"

    def __new__(cls, workloads: Sequence[GPUWorkload], deadlines: str = "constrained") -> GPUWorkloadBatch:
        """Wrap ``workloads``."""
        out = super().__new__(cls, workloads)
        out.deadlines = deadlines
        return out

    @property
    def n_sets(self) -> int:
        """Number of workloads."""
        return len(self)
