"""GPU workload files (YAML / JSON): :func:`~rtsched.gpu.loads_gpu`, :func:`~rtsched.gpu.read_gpu_workload`, :func:`~rtsched.gpu.dumps_gpu`.

The schema is in papers/zahaf2021-gpu-partitioning.md. Values follow the number rule of
:mod:`rtsched.io` (exact rationals for factors, integer ticks for times), and every error names
the file, line, kernel and field.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import yaml

from rtsched.errors import InputError
from rtsched.gpu.layouts import GPU_PRESETS, check_layout_spec
from rtsched.gpu.model import (
    CLASSES,
    INTERFERENCE_MODES,
    MAX_CLUSTERS,
    AmdahlWCET,
    GPUWorkload,
    Kernel,
    SaturatingWCET,
    Slowdown,
    TableWCET,
    WCETProfile,
    _frac_doc,
    _validate_kernel,
)
from rtsched.gpu.profiles import KernelSlowdowns, read_slowdown_csv, read_wcet_csv
from rtsched.io import (
    Node,
    Scalar,
    check_keys,
    describe_node,
    node_text,
    node_to_int,
    read_text,
    scalar_to_fraction,
)
from rtsched.io.workload_files import in_source, parse_document

__all__ = ["dumps_gpu", "loads_gpu", "read_gpu_workload", "slowdown_doc", "slowdown_from_node", "wcet_from_node"]


_TOP_KEYS = ["name", "clusters", "gpu", "layout", "interference", "classes", "blocking", "profiles", "kernels"]
_KERNEL_KEYS = ["name", "C", "D", "T", "preemptive", "slowdown", "class", "slowdown_by"]


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
        return TableWCET(tuple(node_to_int(v, field=f"C({s})", **where) for s, v in enumerate(value, 1)))
    if isinstance(value, dict):
        model = value.get("model")
        kind = node_text(model, field="C.model", **where) if model is not None else None
        if kind == "amdahl":
            check_keys(node, ["model", "C1", "parallel"], ["C1", "parallel"], **where)
            return AmdahlWCET(
                node_to_int(value["C1"], field="C.C1", **where),
                _fraction(value["parallel"], field="C.parallel", **where),
            )
        if kind == "saturating":
            check_keys(node, ["model", "C1", "saturation"], ["C1", "saturation"], **where)
            return SaturatingWCET(
                node_to_int(value["C1"], field="C.C1", **where),
                node_to_int(value["saturation"], field="C.saturation", **where),
            )
        raise InputError(
            f"unknown WCET model {kind!r}; give a list C(1), C(2), ... or {{model: amdahl, C1, parallel}} "
            "or {model: saturating, C1, saturation}",
            line=node.line,
            field="C.model",
            **where,
        )
    return TableWCET((node_to_int(node, field="C", **where),))


@dataclass(frozen=True)
class _Profiles:
    """Measured profiles a workload file references (rtsched.gpu.profiles), by kernel name."""

    wcet: dict[str, TableWCET]
    slowdown: dict[str, KernelSlowdowns]
    classes: tuple[str, ...] | None


def _profiles(node: Node | None, base: str | None) -> _Profiles:
    if node is None:
        return _Profiles({}, {}, None)
    v = node.value
    if not isinstance(v, dict):
        raise InputError(
            f"expected {{wcet: FILE.csv, slowdown: FILE.csv}}, got {describe_node(node)}",
            line=node.line,
            field="profiles",
        )
    check_keys(node, ["wcet", "slowdown"], [])

    def path(key: str) -> str:
        name = node_text(v[key], field=f"profiles.{key}") or ""
        return name if os.path.isabs(name) or base is None else os.path.join(base, name)

    wcet = read_wcet_csv(path("wcet")) if "wcet" in v else {}
    classes, slowdown = read_slowdown_csv(path("slowdown")) if "slowdown" in v else (None, {})
    return _Profiles(wcet, slowdown, classes)


def _kernel(node: Node, i: int, profiles: _Profiles) -> Kernel:
    if not isinstance(node.value, dict):
        raise InputError(
            f"expected a kernel object {{C: .., D: .., T: .., slowdown: ..}}, got {describe_node(node)}",
            line=node.line,
            task=i,
        )
    v = node.value
    name = node_text(v.get("name"), task=i)
    label: int | str = i if name is None else f"{i} ({name})"
    measured_c = profiles.wcet.get(name) if name is not None else None
    measured_f = profiles.slowdown.get(name) if name is not None else None
    required = ["D", "T", *([] if measured_c else ["C"]), *([] if measured_f else ["slowdown"])]
    check_keys(node, _KERNEL_KEYS, required, task=label)
    for key, measured in (("C", measured_c), ("slowdown", measured_f), ("slowdown_by", measured_f)):
        if measured is not None and key in v:
            raise InputError(
                f"{key} of kernel {name!r} is given both here and in the measured profile; keep one",
                line=v[key].line,
                task=label,
                field=key,
            )
    wcet = measured_c if measured_c is not None else _wcet(v["C"], task=label)
    worst = measured_f.worst if measured_f is not None else _slowdown(v["slowdown"], label, "slowdown")
    rows: list[tuple[str, Slowdown]] = list(measured_f.rows) if measured_f is not None else []
    if "slowdown_by" in v:
        by = v["slowdown_by"]
        if not isinstance(by.value, dict):
            raise InputError(
                f"expected co-runner rows {{class: factors, ...}}, got {describe_node(by)}",
                line=by.line,
                task=label,
                field="slowdown_by",
            )
        rows = [(c, _slowdown(x, label, f"slowdown_by.{c}")) for c, x in by.value.items()]
    kernel = Kernel(
        wcet=wcet,
        D=node_to_int(v["D"], task=label, field="D"),
        T=node_to_int(v["T"], task=label, field="T"),
        slowdown=worst.factors,
        slowdown_beyond=worst.beyond,
        preemptive=_boolean(v["preemptive"], task=label, field="preemptive") if "preemptive" in v else True,
        name=name,
        klass=node_text(v.get("class"), task=label, field="class"),
        slowdown_by=tuple(rows),
    )
    try:
        _validate_kernel(kernel, i, None)
    except InputError as err:
        field_node = v.get((err.field or "").split(".")[0].split("(")[0].split("[")[0])
        raise err.located(line=field_node.line if field_node is not None else node.line) from None
    return kernel


def _slowdown(node: Node, label: int | str, field: str) -> Slowdown:
    """A slowdown table [f(1), f(2), …] (unmeasured beyond) or one factor for every k ≥ 1."""
    if isinstance(node.value, list):
        return Slowdown(tuple(_fraction(x, task=label, field=f"{field}[{k}]") for k, x in enumerate(node.value, 1)))
    return Slowdown((), _fraction(node, task=label, field=field))


def _workload(root: Node, base: str | None) -> GPUWorkload:
    if not isinstance(root.value, dict):
        raise InputError(f"expected a GPU workload object with 'kernels', got {describe_node(root)}", line=root.line)
    check_keys(root, _TOP_KEYS, ["kernels"])
    v = root.value
    kernels_node = v["kernels"]
    if not isinstance(kernels_node.value, list) or not kernels_node.value:
        raise InputError("'kernels' must be a non-empty list", line=kernels_node.line, field="kernels")
    profiles = _profiles(v.get("profiles"), base)
    kernels = tuple(_kernel(k, i, profiles) for i, k in enumerate(kernels_node.value))
    clusters = None
    if "clusters" in v:
        clusters = node_to_int(v["clusters"], field="clusters")
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
    layout = "free"
    if "gpu" in v:
        clusters, layout = _preset(v["gpu"], clusters, v.get("clusters"))
    if "layout" in v:
        layout = node_text(v["layout"], field="layout") or "free"
        try:
            check_layout_spec(layout)
        except InputError as err:
            raise err.located(line=v["layout"].line) from None
    interference = "co-runner"
    if "interference" in v:
        interference = node_text(v["interference"], field="interference") or ""
        if interference not in INTERFERENCE_MODES:
            raise InputError(
                f"interference must be one of {', '.join(INTERFERENCE_MODES)}, got {interference!r}",
                line=v["interference"].line,
                field="interference",
            )
    classes: tuple[str, ...] = CLASSES
    if "classes" in v:
        node = v["classes"]
        if not isinstance(node.value, list) or not node.value:
            raise InputError(
                f"classes must be a list of names, least interfering first, got {describe_node(node)}",
                line=node.line,
                field="classes",
            )
        classes = tuple(node_text(x, field="classes") or "" for x in node.value)
        if profiles.classes is not None and classes != profiles.classes:
            raise InputError(
                f"classes {list(classes)} differ from the slowdown profile's columns {list(profiles.classes)}",
                line=node.line,
                field="classes",
            )
    elif profiles.classes is not None:
        classes = profiles.classes
    try:
        return GPUWorkload(
            kernels,
            clusters,
            node_text(v.get("name")),
            blocking,  # type: ignore[arg-type]
            layout,
            interference,
            classes,
        )
    except InputError as err:
        # The class checks need the workload's classes: they run here, so find the line here.
        raise err.located(line=_line_of(err, root, kernels_node)) from None


def _line_of(err: InputError, root: Node, kernels_node: Node) -> int | None:
    """The line of the node an error of the whole-workload checks names (kernel and field)."""
    node = root
    if err.task is not None:
        node = kernels_node.value[int(str(err.task).split(" ")[0])]
    for part in (err.field or "").split("."):
        child = node.value.get(part) if isinstance(node.value, dict) else None
        if child is None:
            break
        node = child
    return node.line


def _preset(node: Node, clusters: int | None, clusters_node: Node | None) -> tuple[int, str]:
    """``gpu: a100-mig``: the preset's (M, layout); a ``clusters`` that disagrees is an error."""
    name = node_text(node, field="gpu") or ""
    if name not in GPU_PRESETS:
        raise InputError(
            f"unknown GPU {name!r}; choose one of {', '.join(GPU_PRESETS)} (or give clusters and layout)",
            line=node.line,
            field="gpu",
        )
    M, layout = GPU_PRESETS[name]
    if clusters is not None and clusters != M:
        raise InputError(
            f"clusters: {clusters} disagrees with gpu: {name} ({M} compute slices)",
            line=clusters_node.line if clusters_node is not None else node.line,
            field="clusters",
        )
    return M, layout


def loads_gpu(text: str, format: str = "yaml", *, source: str = "<string>", base: str | None = None) -> GPUWorkload:
    """Parse a GPU workload from YAML or JSON text (schema: papers/zahaf2021-gpu-partitioning.md).

    ``base`` is the folder relative to which the ``profiles`` files are read (default: the
    current folder).

    Raises
    ------
    InputError
        Naming the source, line, kernel and field of the first problem.
    """
    fmt = format.lower().lstrip(".")

    def parse() -> GPUWorkload:
        if not text.strip():
            raise InputError("the file is empty")
        if fmt not in ("yaml", "yml", "json"):
            raise InputError(f"GPU workloads are read from YAML or JSON, not {format!r}")
        return _workload(parse_document(text, fmt), base)

    return in_source(source, parse)


def read_gpu_workload(path: str | os.PathLike[str], *, format: str | None = None) -> GPUWorkload:
    """Read a GPU workload file (``.yaml``/``.yml``/``.json``; ``-`` is standard input, YAML)."""
    name = os.fsdecode(path)
    source = "<stdin>" if name == "-" else name
    fmt = format or ("yaml" if name == "-" else os.path.splitext(name)[1].lstrip("."))
    if fmt.lower() not in ("yaml", "yml", "json"):
        raise InputError("cannot tell the format: GPU workloads are .yaml, .yml or .json files", file=source)
    base = None if name == "-" else os.path.dirname(os.path.abspath(name))
    return loads_gpu(read_text(path, source), fmt, source=source, base=base)


def _slowdown_doc(row: Slowdown) -> Any:
    if row.beyond is None:
        return [_frac_doc(f) for f in row.factors]
    if not row.factors:
        return _frac_doc(row.beyond)
    raise InputError("a slowdown table with a value beyond it cannot be written; give every factor")


#: The readers and writer of the GPU model's fields, for formats that embed them (rtsched.segmented.files).
wcet_from_node = _wcet
slowdown_from_node = _slowdown
slowdown_doc = _slowdown_doc


def dumps_gpu(workload: GPUWorkload, format: str = "yaml") -> str:
    """Write a workload as YAML or JSON text that :func:`~rtsched.gpu.loads_gpu` reads back to an equal workload."""
    kernels = []
    for k in workload.kernels:
        doc: dict[str, Any] = {} if k.name is None else {"name": k.name}
        doc["C"] = k.wcet.to_doc()
        doc["D"], doc["T"] = k.D, k.T
        if not k.preemptive:
            doc["preemptive"] = False
        doc["slowdown"] = _slowdown_doc(Slowdown(k.slowdown, k.slowdown_beyond))
        if k.klass is not None:
            doc["class"] = k.klass
        if k.slowdown_by:
            doc["slowdown_by"] = {c: _slowdown_doc(row) for c, row in k.slowdown_by}
        kernels.append(doc)
    top: dict[str, Any] = {} if workload.name is None else {"name": workload.name}
    if workload.clusters is not None:
        top["clusters"] = workload.clusters
    if workload.layout != "free":
        top["layout"] = workload.layout
    if workload.interference != "co-runner":
        top["interference"] = workload.interference
    if workload.classes != CLASSES:
        top["classes"] = list(workload.classes)
    if workload.blocking != "tick":
        top["blocking"] = workload.blocking
    top["kernels"] = kernels
    if format.lower() == "json":
        return json.dumps(top, indent=1, ensure_ascii=False) + "\n"
    return yaml.safe_dump(top, sort_keys=False, default_flow_style=None, allow_unicode=True, width=2**31 - 1)
