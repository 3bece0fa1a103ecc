"""The GPU workload model: kernels with WCET tables and contention factors, layouts, files.

rtsched's model, after Zahaf et al. (RTNS 2021) (papers/zahaf2021-gpu-partitioning.md; only the
paper's abstract was reachable, so the model and its assumptions A1–A7 are rtsched's, not the
paper's), shared by the GPU analyses (:mod:`rtsched.analyses.gpu`, registry names
``gpu``, ``gpu:ffd``, ``gpu:bfd``, ``gpu:exhaustive``, ``gpu:single`` on the platform
:class:`~rtsched.platform.GPU` ``(M)``), the generator (:mod:`rtsched.generators.gpu`) and the CLI
(``rtsched gpu``, ``rtsched check --platform gpu:<M>``):

* :class:`GPUWorkload` of :class:`Kernel` s τ = (C(s), D, T): a WCET profile C(s) for a
  partition of s compute clusters (:class:`TableWCET`, :class:`AmdahlWCET`,
  :class:`SaturatingWCET`; non-increasing in s), a constrained deadline, the slowdown factors
  f(k) with k other active partitions (exact rationals), preemptive or not;
* :func:`inflate`, the sound inflation rule C' = ⌈C(s)·f(K − 1)⌉ (Eq. (I) of the note);
* :func:`layouts`, the integer partitions of the GPU's M clusters;
* reading and writing workload files (:func:`loads_gpu`, :func:`read_gpu_workload`,
  :func:`dumps_gpu`; schema in the note);
* :func:`format_gpu_report`, the terminal table of a GPU analysis's report (the ``report``
  evidence of the GPU analyses' explanations).
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal

import numpy as np
import yaml

from rtsched.errors import InputError
from rtsched.io import (
    LineLoader,
    Node,
    Scalar,
    check_keys,
    describe_node,
    node_from_json,
    node_from_yaml,
    node_text,
    read_text,
    scalar_to_fraction,
    scalar_to_int,
    yaml_error,
)
from rtsched.model import MAX_TIME
from rtsched.result import UNKNOWN, show_number

__all__ = [
    "MAX_CLUSTERS",
    "AmdahlWCET",
    "Blocking",
    "GPUWorkload",
    "Kernel",
    "SaturatingWCET",
    "TableWCET",
    "WCETProfile",
    "check_clusters",
    "dumps_gpu",
    "format_gpu_report",
    "inflate",
    "layouts",
    "loads_gpu",
    "read_gpu_workload",
]

#: Largest M accepted (layout enumeration grows like the partition numbers p(M)).
MAX_CLUSTERS = 64

Blocking = Literal["tick", "dense"]


def check_clusters(M: object) -> int:
    """M as an int, if it is an integer in 1..:data:`MAX_CLUSTERS`; else an InputError."""
    if isinstance(M, bool) or not isinstance(M, int | np.integer) or not 1 <= int(M) <= MAX_CLUSTERS:
        raise InputError(
            f"the number of clusters M must be an integer in 1..{MAX_CLUSTERS}, got {M!r}", field="clusters"
        )
    return int(M)


# ---------------------------------------------------------------------------------------------
# The model
# ---------------------------------------------------------------------------------------------


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
    """

    wcet: WCETProfile
    D: int
    T: int
    slowdown: tuple[Fraction, ...] = ()
    slowdown_beyond: Fraction | None = Fraction(1)
    preemptive: bool = True
    name: str | None = None

    def factor(self, others: int) -> Fraction | None:
        """f(others): the slowdown with ``others`` other active partitions (None: not measured)."""
        if others <= 0:
            return Fraction(1)
        if others <= len(self.slowdown):
            return self.slowdown[others - 1]
        return self.slowdown_beyond


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

    def __post_init__(self) -> None:
        object.__setattr__(self, "kernels", tuple(self.kernels))
        if not self.kernels:
            raise InputError("a GPU workload needs at least one kernel")
        if self.blocking not in ("tick", "dense"):
            raise InputError(f"blocking must be 'tick' or 'dense', got {self.blocking!r}", field="blocking")
        for i, k in enumerate(self.kernels):
            _validate_kernel(k, i, self.clusters)

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
    previous = Fraction(1)
    for k_others, f in enumerate(k.slowdown, 1):
        if f < previous:
            raise InputError(
                f"slowdown factors must be >= 1 and non-decreasing in the number of other partitions: "
                f"f({k_others}) = {_frac_text(f)} < {_frac_text(previous)}",
                task=label,
                field="slowdown",
            )
        previous = f
    if k.slowdown_beyond is not None and k.slowdown_beyond < previous:
        raise InputError(
            f"slowdown factor {_frac_text(k.slowdown_beyond)} is below {_frac_text(previous)}",
            task=label,
            field="slowdown",
        )


def inflate(kernel: Kernel, size: int, active: int) -> int | None:
    """C' = ⌈C(size) · f(active − 1)⌉, the inflated WCET  [note, Eq. (I)]; None if f is not measured.

    Exact: f = p/q is a Fraction, so C' = ⌈C·p / q⌉ in Python integers (rounded up: sound).
    """
    f = kernel.factor(active - 1)
    if f is None:
        return None
    c = kernel.wcet.at(size)
    return -(-(c * f.numerator) // f.denominator)


# ---------------------------------------------------------------------------------------------
# Layouts
# ---------------------------------------------------------------------------------------------


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


# ---------------------------------------------------------------------------------------------
# The report of a GPU analysis, as text
# ---------------------------------------------------------------------------------------------


def verdict_word(v: Any) -> str:
    """``SCHEDULABLE``, ``UNKNOWN`` or ``NOT PROVEN SCHEDULABLE``."""
    return "SCHEDULABLE" if v is True else ("UNKNOWN" if v == UNKNOWN else "NOT PROVEN SCHEDULABLE")


def format_gpu_report(report: Mapping[str, Any]) -> str:
    """The terminal table of a GPU analysis's report (``explain(...).evidence["report"]``).

    ``report`` has the keys of :meth:`rtsched.analyses.gpu.GPUReport.as_evidence` (exact numbers or
    their JSON form): the workload's name, the allocation (layout, partitions, reason), the
    per-kernel rows and the baseline's verdict.
    """
    kernels = list(report["kernels"])
    labels = [row["kernel"] for row in kernels]
    verdict = report["verdict"]
    title = report.get("name") or "GPU workload"
    M = report["clusters"]
    lines = [
        f"{title}: {len(kernels)} kernels, M = {M} clusters, heuristic {report['heuristic']}: {verdict_word(verdict)}"
    ]
    if verdict is True:
        idle = report["idle_clusters"]
        lines.append(
            f"layout {'+'.join(map(str, report['layout']))}"
            + (f" (+{idle} idle)" if idle else "")
            + f"; each kernel contends with {report['contention_others']} other partition(s)"
        )
        for p_index, p in enumerate(report["partitions"]):
            u = Fraction(p["utilization"]) if not isinstance(p["utilization"], Fraction) else p["utilization"]
            lines.append(
                f"  P{p_index} [{p['size']} cluster(s)] {p['test']}: {verdict_word(p['verdict'])}, "
                f"U' = {show_number(u, '.3f')}: " + ", ".join(labels[i] for i in p["kernels"])
            )
    else:
        lines.append(f"  {report['reason']}")
    columns = ("kernel", "D", "T", "preemptive", "partition", "C(s)", "f", "C'")
    lines.append("  " + " | ".join(columns))
    for row in kernels:
        lines.append("  " + " | ".join(str(row[k]) if row[k] is not None else "-" for k in columns))
    lines.append(
        f"baseline (GPU as one resource, {M} clusters, no contention): {verdict_word(report['baseline']['verdict'])}"
    )
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# Files: YAML / JSON
# ---------------------------------------------------------------------------------------------

_TOP_KEYS = ["name", "clusters", "blocking", "kernels"]
_KERNEL_KEYS = ["name", "C", "D", "T", "preemptive", "slowdown"]


def _fraction(node: Node, **where: Any) -> Fraction:
    """An exact rational from the text as written (``1.15`` is 23/20; ``23/20`` is accepted)."""
    value = node.value
    if not isinstance(value, Scalar) or value.kind in ("bool", "null"):
        raise InputError(f"expected a number, got {describe_node(node)}", line=node.line, **where)
    try:
        return scalar_to_fraction(value, max_chars=40)  # the project's number rule (rtsched.io)
    except InputError as err:
        raise InputError(err.message, line=node.line, **where) from None
    except ZeroDivisionError:
        raise InputError(f"{value.text.strip()!r} divides by zero", line=node.line, **where) from None


def _integer(node: Node, **where: Any) -> int:
    if not isinstance(node.value, Scalar):
        raise InputError(f"expected an integer, got {describe_node(node)}", line=node.line, **where)
    try:
        value = scalar_to_int(node.value, None)
    except InputError as err:
        raise err.located(line=node.line, **where) from None
    assert isinstance(value, int)
    return value


def _boolean(node: Node, **where: Any) -> bool:
    value = node.value
    if isinstance(value, Scalar) and value.kind == "bool":
        return value.text.strip().lower() in ("true", "yes", "on", "y")
    raise InputError(f"expected true or false, got {describe_node(node)}", line=node.line, **where)


def _wcet(node: Node, **where: Any) -> WCETProfile:
    value = node.value
    if isinstance(value, list):
        if not value:
            raise InputError("the WCET table is empty", line=node.line, field="C", **where)
        return TableWCET(tuple(_integer(v, field=f"C({s})", **where) for s, v in enumerate(value, 1)))
    if isinstance(value, dict):
        model = value.get("model")
        kind = node_text(model, field="C.model", **where) if model is not None else None
        if kind == "amdahl":
            check_keys(node, ["model", "C1", "parallel"], ["C1", "parallel"], **where)
            return AmdahlWCET(
                _integer(value["C1"], field="C.C1", **where), _fraction(value["parallel"], field="C.parallel", **where)
            )
        if kind == "saturating":
            check_keys(node, ["model", "C1", "saturation"], ["C1", "saturation"], **where)
            return SaturatingWCET(
                _integer(value["C1"], field="C.C1", **where),
                _integer(value["saturation"], field="C.saturation", **where),
            )
        raise InputError(
            f"unknown WCET model {kind!r}; give a list C(1), C(2), ... or {{model: amdahl, C1, parallel}} "
            "or {model: saturating, C1, saturation}",
            line=node.line,
            field="C.model",
            **where,
        )
    return TableWCET((_integer(node, field="C", **where),))


def _kernel(node: Node, i: int) -> Kernel:
    if not isinstance(node.value, dict):
        raise InputError(
            f"expected a kernel object {{C: .., D: .., T: .., slowdown: ..}}, got {describe_node(node)}",
            line=node.line,
            task=i,
        )
    v = node.value
    name = node_text(v.get("name"), task=i)
    label: int | str = i if name is None else f"{i} ({name})"
    check_keys(node, _KERNEL_KEYS, ["C", "D", "T", "slowdown"], task=label)
    wcet = _wcet(v["C"], task=label)
    slow = v["slowdown"]
    if isinstance(slow.value, list):
        factors = tuple(_fraction(x, task=label, field=f"slowdown[{k}]") for k, x in enumerate(slow.value, 1))
        beyond = None
    else:
        factors, beyond = (), _fraction(slow, task=label, field="slowdown")
    kernel = Kernel(
        wcet=wcet,
        D=_integer(v["D"], task=label, field="D"),
        T=_integer(v["T"], task=label, field="T"),
        slowdown=factors,
        slowdown_beyond=beyond,
        preemptive=_boolean(v["preemptive"], task=label, field="preemptive") if "preemptive" in v else True,
        name=name,
    )
    try:
        _validate_kernel(kernel, i, None)
    except InputError as err:
        field_node = v.get((err.field or "").split(".")[0].split("(")[0].split("[")[0])
        raise err.located(line=field_node.line if field_node is not None else node.line) from None
    return kernel


def _workload(root: Node) -> GPUWorkload:
    if not isinstance(root.value, dict):
        raise InputError(f"expected a GPU workload object with 'kernels', got {describe_node(root)}", line=root.line)
    check_keys(root, _TOP_KEYS, ["kernels"])
    v = root.value
    kernels_node = v["kernels"]
    if not isinstance(kernels_node.value, list) or not kernels_node.value:
        raise InputError("'kernels' must be a non-empty list", line=kernels_node.line, field="kernels")
    kernels = tuple(_kernel(k, i) for i, k in enumerate(kernels_node.value))
    clusters = None
    if "clusters" in v:
        clusters = _integer(v["clusters"], field="clusters")
        if not 1 <= clusters <= MAX_CLUSTERS:
            raise InputError(
                f"clusters must be in 1..{MAX_CLUSTERS}, got {clusters}", line=v["clusters"].line, field="clusters"
            )
    blocking = "tick"
    if "blocking" in v:
        blocking = node_text(v["blocking"], field="blocking") or "tick"
        if blocking not in ("tick", "dense"):
            raise InputError(
                f"blocking must be 'tick' or 'dense', got {blocking!r}", line=v["blocking"].line, field="blocking"
            )
    return GPUWorkload(kernels, clusters, node_text(v.get("name")), blocking)  # type: ignore[arg-type]


def loads_gpu(text: str, format: str = "yaml", *, source: str = "<string>") -> GPUWorkload:
    """Parse a GPU workload from YAML or JSON text (schema: papers/zahaf2021-gpu-partitioning.md).

    Raises
    ------
    InputError
        Naming the source, line, kernel and field of the first problem.
    """
    fmt = format.lower().lstrip(".")
    try:
        if not text.strip():
            raise InputError("the file is empty")
        if fmt in ("yaml", "yml"):
            try:
                composed = yaml.compose(text, Loader=LineLoader)
            except yaml.YAMLError as err:
                raise yaml_error(err, text) from None
            if composed is None:
                raise InputError("the file is empty")
            root = node_from_yaml(composed)
        elif fmt == "json":
            root = node_from_json(text)
        else:
            raise InputError(f"GPU workloads are read from YAML or JSON, not {format!r}")
        return _workload(root)
    except InputError as err:
        raise err.located(file=source) from None
    except RecursionError:
        raise InputError("the document is nested too deeply", file=source) from None


def read_gpu_workload(path: str | os.PathLike[str], *, format: str | None = None) -> GPUWorkload:
    """Read a GPU workload file (``.yaml``/``.yml``/``.json``; ``-`` is standard input, YAML)."""
    name = os.fsdecode(path)
    source = "<stdin>" if name == "-" else name
    fmt = format or ("yaml" if name == "-" else os.path.splitext(name)[1].lstrip("."))
    if fmt.lower() not in ("yaml", "yml", "json"):
        raise InputError("cannot tell the format: GPU workloads are .yaml, .yml or .json files", file=source)
    return loads_gpu(read_text(path, source), fmt, source=source)


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


def dumps_gpu(workload: GPUWorkload, format: str = "yaml") -> str:
    """Write a workload as YAML or JSON text that :func:`loads_gpu` reads back to an equal workload."""
    import json

    kernels = []
    for k in workload.kernels:
        doc: dict[str, Any] = {} if k.name is None else {"name": k.name}
        doc["C"] = k.wcet.to_doc()
        doc["D"], doc["T"] = k.D, k.T
        if not k.preemptive:
            doc["preemptive"] = False
        if k.slowdown_beyond is None:
            doc["slowdown"] = [_frac_doc(f) for f in k.slowdown]
        elif not k.slowdown:
            doc["slowdown"] = _frac_doc(k.slowdown_beyond)
        else:
            raise InputError("a slowdown table with a value beyond it cannot be written; give every factor")
        kernels.append(doc)
    top: dict[str, Any] = {} if workload.name is None else {"name": workload.name}
    if workload.clusters is not None:
        top["clusters"] = workload.clusters
    if workload.blocking != "tick":
        top["blocking"] = workload.blocking
    top["kernels"] = kernels
    if format.lower() == "json":
        return json.dumps(top, indent=1, ensure_ascii=False) + "\n"
    return yaml.safe_dump(top, sort_keys=False, default_flow_style=None, allow_unicode=True, width=2**31 - 1)
