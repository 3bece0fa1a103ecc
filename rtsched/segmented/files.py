"""CPU–GPU segmented task-set files: YAML and JSON of rtsched's own (issue #43).

Format (papers/cpu-gpu-model.md)
--------------------------------
``yaml`` (``.yaml``, ``.yml``) and ``json`` (``.json``)
    One task set, written as a list of tasks or as ``{name: optional, tasks: [...]}``, or several:
    ``{tasksets: [...]}`` or a list whose first element is an object with ``tasks``. A task is::

        {name: optional, T, D: optional, core: optional, mode: optional,
         segments: [C_1, {G_m, G_e, device: optional}, C_2, ...]}

    ``segments`` lists the task's segments in execution order: an integer is a CPU segment, a GPU
    segment is ``{G_m: .., G_e: .., device: ..}`` or the list ``[G_m, G_e]`` or
    ``[G_m, G_e, device]`` (``device`` defaults to ``gpu``). A GPU segment first, last or right
    after another GPU segment has a zero CPU segment beside it
    (:meth:`~rtsched.segmented.SegmentedTask.from_segments`); two CPU segments in a row are an
    error (write their sum). ``D`` defaults to ``T``; ``core`` is a core index ``0, 1, ...`` (or
    absent/null: not assigned); ``mode`` is ``busy`` or ``suspend`` (or absent/null: the
    analysis's or simulator's mode applies).

GPU partitions (papers/cpu-gpu-partitions.md): a set object may carry a ``gpu`` section, the GPU
its segments on ``device`` run on, which the ``seg-*-part`` analyses split into partitions::

    gpu: {clusters: 4, slowdown: 1.2, layout: free, device: gpu, interference: co-runner,
          classes: [compute, memory], slowdown_by: {compute: [1.05, 1.1]}}

(``clusters`` and ``slowdown`` required; the fields and rules of :mod:`rtsched.gpu`'s workload
files), and a GPU segment may carry ``profile`` (its WCET over partition sizes: a list
``[C(1), C(2), ...]`` or ``{model: amdahl, C1, parallel}`` / ``{model: saturating, C1,
saturation}``; with a ``gpu`` section ``C(M)`` must equal ``G_e``) and ``class`` (its co-runner
memory class). Errors name ``gpu <key>``, ``segment j profile`` and ``segment j class``.

GPU driver (the preemptive protocols ``gcaps`` and ``tsg-rr``): a set object may carry a
``driver`` section, the set's context-switch cost ε and round-robin time slice L in ticks
(``rtsched.segmented.GPUDriver``; both optional, ``epsilon`` default 0, ``time_slice`` a
positive number or null)::

    driver: {epsilon: 10, time_slice: 10}

The ``seg-gcaps-*`` and ``seg-tsg-*`` analyses and the simulator use them unless their keywords
say otherwise. Errors name ``driver epsilon`` and ``driver time_slice``; the writers write the
section only when the set has a driver, and ``time_slice`` only when it is set.

``D > T`` is refused unless the reader is given ``deadlines="arbitrary"`` (the analyses of issue
#43 need constrained deadlines). Unknown keys are refused.

The tasks' order is their fixed priority, first = highest; the writers keep it, always write
``D``, write every CPU segment (zeros included) so that a file reads back to an equal set, and
write ``core``, ``mode`` and ``device`` only when they are set (``device`` when it is not ``gpu``).
Values follow the number rule of :mod:`rtsched.io` (integers written with the digits 0-9), and every
error is one :class:`~rtsched.errors.InputError` naming the file, the line, the task set (when the
file holds several), the task (its index in the set, and its name) and the field, e.g.
``set.yaml, line 7, task 1 (camera), field segment 2 G_e: G_e must be non-negative, got -3``.
Fields: ``T``, ``D``, ``core``, ``mode``, ``name``, ``segments``, ``C_j`` (the j-th CPU segment)
and ``segment j``, ``segment j G_m``, ``segment j G_e``, ``segment j device`` (the j-th GPU
segment), numbered from 1 as in the model.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any

from rtsched.errors import InputError
from rtsched.gpu.files import slowdown_doc, slowdown_from_node, wcet_from_node
from rtsched.gpu.model import CLASSES
from rtsched.io import Node, Scalar, check_keys, describe_node, node_text, node_to_int, read_text
from rtsched.io.numbers import clip
from rtsched.io.workload_files import (
    check_format,
    dump_sets,
    in_source,
    read_sets,
    sets_to_write,
    source_and_format,
    task_label,
    write_document,
    write_target,
)
from rtsched.model import DeadlineModel, check_model
from rtsched.segmented.model import (
    DEFAULT_DEVICE,
    MODES,
    GPUDescription,
    GPUDriver,
    GPUSegment,
    SegmentedTask,
    SegmentedTaskSet,
)

__all__ = [
    "SEGMENTED_FORMATS",
    "dumps_segmented",
    "loads_segmented",
    "read_segmented_tasksets",
    "write_segmented_tasksets",
]

#: The formats :func:`~rtsched.segmented.loads_segmented` and :func:`~rtsched.segmented.dumps_segmented` understand.
SEGMENTED_FORMATS = ("yaml", "json")
_EXTENSIONS = {"yaml": "yaml", "yml": "yaml", "json": "json"}
#: The keys of a task object, in the order they are written.
_TASK_KEYS = ("name", "T", "D", "core", "mode", "segments")
_REQUIRED = ("T", "segments")
_SEGMENT_KEYS = ("G_m", "G_e", "device", "profile", "class")
#: The keys of a set's ``gpu`` section (the GPU partition model, papers/cpu-gpu-partitions.md).
_GPU_KEYS = ("clusters", "layout", "device", "slowdown", "slowdown_by", "classes", "interference")
#: The keys of a set's ``driver`` section (GPUDriver).
_DRIVER_KEYS = ("epsilon", "time_slice")


def _check_format(format: str) -> str:
    return check_format(format, _EXTENSIONS, "segmented task set", SEGMENTED_FORMATS)


def _is_null(node: Node | None) -> bool:
    return node is None or (isinstance(node.value, Scalar) and node.value.kind == "null")


def _int(node: Node, **where: Any) -> int:
    """The integer number of ticks a node holds (the number rule of :mod:`rtsched.io`), or an InputError."""
    try:
        return node_to_int(node, "", **where)
    except InputError as err:
        if "time unit" not in err.message:
            raise
        text = node.value.text.strip() if isinstance(node.value, Scalar) else "the value"
        raise InputError(f"{clip(text)} is not an integer number of ticks").located(line=node.line, **where) from None


def _text(node: Node, what: str, **where: Any) -> str:
    if not isinstance(node.value, Scalar) or node.value.kind != "str":
        raise InputError(f"{what}, got {describe_node(node)}", line=node.line, **where)
    return str(node.value.text)


def _gpu_segment(node: Node, j: int, label: int | str) -> tuple[GPUSegment, dict[str, int | None]]:
    """GPU segment ``j`` (from 1) of a task, from ``{G_m, G_e, device}`` or ``[G_m, G_e(, device)]``, and its lines."""
    field = f"segment {j}"
    parts: dict[str, Node] = {}
    if isinstance(node.value, dict):
        try:
            check_keys(node, _SEGMENT_KEYS, ("G_m", "G_e"), task=label)
        except InputError as err:  # name the segment as well as the key
            raise InputError(
                err.message, line=err.line, task=label, field=f"{field} {err.field or ''}".strip()
            ) from None
        parts = node.value
    elif isinstance(node.value, list):
        items = node.value
        if len(items) not in (2, 3):
            raise InputError(
                f"a GPU segment is [G_m, G_e] or [G_m, G_e, device], got a list of {len(items)} items",
                line=node.line,
                task=label,
                field=field,
            )
        parts = dict(zip(_SEGMENT_KEYS[:3], items, strict=False))
    lines: dict[str, int | None] = {field: node.line}
    values: dict[str, Any] = {}
    for key in ("G_m", "G_e"):
        child = parts[key]
        lines[f"{field} {key}"] = child.line
        values[key] = _int(child, task=label, field=f"{field} {key}")
    device = DEFAULT_DEVICE
    if "device" in parts and not _is_null(parts["device"]):
        child = parts["device"]
        lines[f"{field} device"] = child.line
        device = _text(child, "a device name is a word such as gpu or mig0", task=label, field=f"{field} device")
    profile = None
    if "profile" in parts and not _is_null(parts["profile"]):
        child = parts["profile"]
        lines[f"{field} profile"] = child.line
        try:
            profile = wcet_from_node(child, task=label)
        except InputError as err:  # rtsched.gpu names the WCET field C, C(2), C.C1 ...
            inner = err.field or "C"
            sub = f"{field} profile" + (inner[1:] if inner.startswith("C") else f".{inner}")
            raise InputError(err.message, line=err.line or child.line, task=label, field=sub) from None
    klass = None
    if "class" in parts and not _is_null(parts["class"]):
        child = parts["class"]
        lines[f"{field} class"] = child.line
        klass = _text(child, "a co-runner class is a name such as memory", task=label, field=f"{field} class")
    try:
        segment = GPUSegment(values["G_m"], values["G_e"], device, profile, klass)
    except InputError as err:
        sub = f"{field} {err.field}" if err.field else field
        raise InputError(err.message, line=lines.get(sub) or node.line, task=label, field=sub) from None
    return segment, lines


def _segments(node: Node, label: int | str) -> tuple[list[int], list[GPUSegment], dict[str, int | None]]:
    """The CPU and GPU segments of a ``segments`` list (the rule of ``SegmentedTask.from_segments``), and their lines."""
    if not isinstance(node.value, list):
        raise InputError(
            f"'segments' must be a list [C_1, {{G_m, G_e}}, C_2, ...], got {describe_node(node)}",
            line=node.line,
            task=label,
            field="segments",
        )
    if not node.value:
        raise InputError("'segments' is empty: a task needs some work", line=node.line, task=label, field="segments")
    cpu: list[int] = []
    gpu: list[GPUSegment] = []
    lines: dict[str, int | None] = {}
    expect_cpu = True
    for item in node.value:
        if isinstance(item.value, Scalar):
            field = f"C_{len(cpu) + 1}"
            if not expect_cpu:
                raise InputError(
                    f"two CPU segments in a row ({cpu[-1]} and then {clip(str(item.value.text))}): write their sum",
                    line=item.line,
                    task=label,
                    field=field,
                )
            lines[field] = item.line
            cpu.append(_int(item, task=label, field=field))
            expect_cpu = False
        elif isinstance(item.value, dict | list):
            if expect_cpu:
                lines[f"C_{len(cpu) + 1}"] = item.line
                cpu.append(0)
            segment, where = _gpu_segment(item, len(gpu) + 1, label)
            gpu.append(segment)
            lines.update(where)
            expect_cpu = True
    if expect_cpu:
        lines[f"C_{len(cpu) + 1}"] = node.value[-1].line
        cpu.append(0)
    return cpu, gpu, lines


def _task_from_node(node: Node, i: int, deadlines: DeadlineModel) -> SegmentedTask:
    if not isinstance(node.value, dict):
        raise InputError(
            f"expected a task {{T: .., D: .., core: .., mode: .., segments: [C_1, {{G_m: .., G_e: ..}}, C_2]}}, "
            f"got {describe_node(node)}",
            line=node.line,
            task=i,
        )
    v: dict[str, Node] = node.value
    name = node_text(v.get("name"), task=i)
    label = task_label(i, name)
    check_keys(node, _TASK_KEYS, _REQUIRED, task=label)
    lines: dict[str, int | None] = {key: v[key].line for key in _TASK_KEYS if key in v}
    T = _int(v["T"], task=label, field="T")
    D = None if _is_null(v.get("D")) else _int(v["D"], task=label, field="D")
    if D is not None and D < 1:  # the model reads D = 0 as "D = T": a file's 0 is an error
        raise InputError(f"D must be positive, got {D}", line=v["D"].line, task=label, field="D")
    core = None if _is_null(v.get("core")) else _int(v["core"], task=label, field="core")
    mode = None
    if not _is_null(v.get("mode")):
        mode = _text(v["mode"], f"mode must be {' or '.join(MODES)}", task=label, field="mode")
    cpu, gpu, segment_lines = _segments(v["segments"], label)
    lines.update(segment_lines)
    try:
        task = SegmentedTask(tuple(cpu), tuple(gpu), T, T if D is None else D, core, mode, name)  # type: ignore[arg-type]
    except InputError as err:
        field = err.field or ""
        where = lines.get(field) or lines.get(" ".join(field.split()[:2])) or node.line
        raise type(err)(err.message, line=where, task=label, field=err.field) from None
    if deadlines == "constrained" and task.D > task.T:
        raise InputError(
            f"D = {task.D} exceeds T = {task.T}, which the constrained-deadline model forbids "
            "(the analyses of segmented task sets need D <= T; deadlines='arbitrary' reads it)",
            line=lines.get("D") or node.line,
            task=label,
            field="D",
        )
    if deadlines == "implicit" and task.D != task.T:
        raise InputError(
            f"D = {task.D} differs from T = {task.T} under the implicit-deadline model",
            line=lines.get("D") or node.line,
            task=label,
            field="D",
        )
    return task


def _gpu_from_node(node: Node) -> GPUDescription:
    """A set's ``gpu`` section: the partitionable GPU (rtsched.gpu's fields and rules; errors name ``gpu <key>``)."""
    if not isinstance(node.value, dict):
        raise InputError(
            f"'gpu' must be {{clusters: .., slowdown: .., layout: ..}}, got {describe_node(node)}",
            line=node.line,
            field="gpu",
        )
    v: dict[str, Node] = node.value
    try:
        check_keys(node, _GPU_KEYS, ("clusters", "slowdown"))
    except InputError as err:
        raise InputError(err.message, line=err.line, field=f"gpu {err.field or ''}".strip()) from None
    lines = {key: v[key].line for key in v}
    clusters = _int(v["clusters"], field="gpu clusters")
    slowdown = slowdown_from_node(v["slowdown"], None, "gpu slowdown")  # type: ignore[arg-type]
    options: dict[str, Any] = {}
    for key in ("layout", "device", "interference"):
        if key in v and not _is_null(v[key]):
            options[key] = _text(v[key], f"{key} must be a word", field=f"gpu {key}")
    if "classes" in v:
        if not isinstance(v["classes"].value, list):
            raise InputError("classes must be a list of names", line=v["classes"].line, field="gpu classes")
        options["classes"] = tuple(_text(c, "a class is a name", field="gpu classes") for c in v["classes"].value)
    if "slowdown_by" in v:
        rows = v["slowdown_by"]
        if not isinstance(rows.value, dict):
            raise InputError("slowdown_by must map classes to slowdown rows", line=rows.line, field="gpu slowdown_by")
        options["slowdown_by"] = tuple(
            (c, slowdown_from_node(row, None, f"gpu slowdown_by.{c}"))  # type: ignore[arg-type]
            for c, row in rows.value.items()
        )
    try:
        return GPUDescription(clusters, slowdown, **options)
    except InputError as err:
        key = (err.field or "gpu").removeprefix("gpu ").split(".")[0].split("[")[0]
        raise InputError(err.message, line=lines.get(key) or node.line, field=err.field or "gpu") from None


def _driver_from_node(node: Node) -> GPUDriver:
    """A set's ``driver`` section (errors name ``driver <key>`` and its line)."""
    if not isinstance(node.value, dict):
        raise InputError(
            f"'driver' must be {{epsilon: .., time_slice: ..}}, got {describe_node(node)}",
            line=node.line,
            field="driver",
        )
    v: dict[str, Node] = node.value
    try:
        check_keys(node, _DRIVER_KEYS, ())
    except InputError as err:
        raise InputError(err.message, line=err.line, field=f"driver {err.field or ''}".strip()) from None
    options: dict[str, int] = {}
    for key in _DRIVER_KEYS:
        if key in v and not _is_null(v[key]):
            options[key] = _int(v[key], field=f"driver {key}")
    try:
        return GPUDriver(**options)
    except InputError as err:
        key = (err.field or "").removeprefix("driver ")
        raise InputError(err.message, line=v[key].line if key in v else node.line, field=err.field) from None


def _segment_line(task: Node, field: str | None) -> int | None:
    """The line of ``segment j <key>`` in a task node (else the segment's, else the task's)."""
    words = (field or "").split()
    segments = task.value.get("segments") if isinstance(task.value, dict) else None
    if len(words) < 2 or words[0] != "segment" or not words[1].isdigit() or segments is None:
        return task.line
    gpu = [item for item in segments.value if not isinstance(item.value, Scalar)]
    j = int(words[1])
    if not 1 <= j <= len(gpu):
        return task.line
    seg = gpu[j - 1]
    key = words[2] if len(words) > 2 else None
    if isinstance(seg.value, dict) and key in seg.value:
        return seg.value[key].line
    return seg.line


def _set_from_node(node: Node, deadlines: DeadlineModel) -> SegmentedTaskSet:
    value, name = node.value, None
    gpu = None
    driver = None
    if isinstance(value, dict):
        check_keys(node, ["name", "gpu", "driver", "tasks"], ["tasks"])
        name = node_text(value.get("name"))
        if "gpu" in value and not _is_null(value["gpu"]):
            gpu = _gpu_from_node(value["gpu"])
        if "driver" in value and not _is_null(value["driver"]):
            driver = _driver_from_node(value["driver"])
        tasks = value["tasks"]
        if not isinstance(tasks.value, list):
            raise InputError(f"'tasks' must be a list, got {describe_node(tasks)}", line=tasks.line, field="tasks")
        items, line = tasks.value, tasks.line
    elif isinstance(value, list):
        items, line = value, node.line
    else:
        raise InputError(
            f"expected a segmented task set, a list of tasks or {{name: .., tasks: [...]}}, got {describe_node(node)}",
            line=node.line,
        )
    if not items:
        raise InputError("a segmented task set needs at least one task", line=line, field="tasks")
    tasks = [_task_from_node(t, i, deadlines) for i, t in enumerate(items)]
    try:
        return SegmentedTaskSet(tasks, name=name, gpu=gpu, driver=driver)
    except InputError as err:  # a profile or class the GPU description refuses: the segment's line
        names = [t.name for t in tasks]
        i = err.task if isinstance(err.task, int) else names.index(err.task) if err.task in names else None
        if i is None:
            raise err.located(line=node.line) from None
        raise InputError(
            err.message, line=_segment_line(items[i], err.field), task=task_label(i, tasks[i].name), field=err.field
        ) from None


def _read_document(text: str, fmt: str, deadlines: DeadlineModel) -> list[SegmentedTaskSet]:
    return read_sets(text, fmt, lambda node: _set_from_node(node, deadlines))


def _segment_doc(g: GPUSegment) -> dict[str, Any]:
    doc: dict[str, Any] = {"G_m": g.G_m, "G_e": g.G_e}
    if g.device != DEFAULT_DEVICE:
        doc["device"] = g.device
    if g.profile is not None:
        doc["profile"] = g.profile.to_doc()
    if g.klass is not None:
        doc["class"] = g.klass
    return doc


def _gpu_doc(gpu: GPUDescription) -> dict[str, Any]:
    doc: dict[str, Any] = {"clusters": gpu.clusters}
    if gpu.layout != "free":
        doc["layout"] = gpu.layout
    if gpu.device != DEFAULT_DEVICE:
        doc["device"] = gpu.device
    doc["slowdown"] = slowdown_doc(gpu.slowdown)
    if gpu.slowdown_by:
        doc["slowdown_by"] = {c: slowdown_doc(row) for c, row in gpu.slowdown_by}
    if gpu.classes != CLASSES:
        doc["classes"] = list(gpu.classes)
    if gpu.interference != "co-runner":
        doc["interference"] = gpu.interference
    return doc


def _driver_doc(driver: GPUDriver) -> dict[str, Any]:
    doc: dict[str, Any] = {"epsilon": driver.epsilon}
    if driver.time_slice is not None:
        doc["time_slice"] = driver.time_slice
    return doc


def _task_doc(task: SegmentedTask) -> dict[str, Any]:
    doc: dict[str, Any] = {} if task.name is None else {"name": task.name}
    doc["T"], doc["D"] = task.T, task.D
    if task.core is not None:
        doc["core"] = task.core
    if task.mode is not None:
        doc["mode"] = task.mode
    doc["segments"] = [_segment_doc(s) if isinstance(s, GPUSegment) else s for s in task.segments()]
    return doc


def _set_doc(ts: SegmentedTaskSet) -> dict[str, Any]:
    gpu = {} if ts.gpu is None else {"gpu": _gpu_doc(ts.gpu)}
    driver = {} if ts.driver is None else {"driver": _driver_doc(ts.driver)}
    return ({} if ts.name is None else {"name": ts.name}) | gpu | driver | {"tasks": [_task_doc(t) for t in ts]}


# -- public functions -----------------------------------------------------------------------------


def loads_segmented(
    text: str, format: str = "yaml", *, source: str = "<string>", deadlines: str = "constrained"
) -> list[SegmentedTaskSet]:
    """Parse CPU–GPU segmented task sets from text.

    Parameters
    ----------
    text:
        The document.
    format:
        ``"yaml"`` or ``"json"`` (or an extension such as ``"yml"``).
    source:
        The name errors give as the file.
    deadlines:
        ``"constrained"`` (the default: ``D > T`` is an error, as the analyses of issue #43 need
        ``D <= T``), ``"implicit"`` (``D = T`` required) or ``"arbitrary"`` (any ``D``).

    Returns
    -------
    list of SegmentedTaskSet
        The sets, in the order of the document.

    Raises
    ------
    InputError
        One line naming the source, line, task set (when there are several), task and field of
        the first problem.

    Examples
    --------
    >>> (ts,) = loads_segmented("- {T: 20, core: 0, segments: [2, {G_m: 1, G_e: 4}, 3]}")
    >>> ts[0].cpu, ts[0].gpu
    ((2, 3), (GPUSegment(1, 4),))
    """

    def parse() -> list[SegmentedTaskSet]:
        fmt = _check_format(format)
        model = check_model(deadlines)
        if not text.strip():
            raise InputError("the file is empty")
        return _read_document(text, fmt, model)

    return in_source(source, parse)


def dumps_segmented(sets: SegmentedTaskSet | Iterable[SegmentedTaskSet], format: str = "yaml") -> str:
    """Write segmented task sets as text that :func:`~rtsched.segmented.loads_segmented` reads back to equal sets.

    Parameters
    ----------
    sets:
        One :class:`~rtsched.segmented.SegmentedTaskSet` or several.
    format:
        As for :func:`~rtsched.segmented.loads_segmented`.

    Returns
    -------
    str
        The document: one set as ``{name, tasks}`` (``tasks`` alone without a name), several as
        ``{tasksets: [...]}``.
    """
    items = sets_to_write(sets, SegmentedTaskSet)
    fmt = _check_format(format)
    return dump_sets(items, _set_doc, fmt)


def _format_of(path: str | os.PathLike[str], format: str | None) -> tuple[str, str]:
    return source_and_format(
        path, format, _check_format, _EXTENSIONS, "segmented task sets are .yaml, .yml or .json files"
    )


def read_segmented_tasksets(
    path: str | os.PathLike[str], format: str | None = None, *, deadlines: str = "constrained"
) -> list[SegmentedTaskSet]:
    """Read the CPU–GPU segmented task sets of a file.

    Parameters
    ----------
    path:
        The file; ``"-"`` is standard input (then give ``format``).
    format:
        One of :data:`SEGMENTED_FORMATS`; by default told by the extension (``.yaml``, ``.yml``,
        ``.json``).
    deadlines:
        As for :func:`~rtsched.segmented.loads_segmented` (default ``"constrained"``).

    Returns
    -------
    list of SegmentedTaskSet
        The sets of the file.

    Raises
    ------
    InputError
        One line naming the file, line, task set, task and field.
    """
    source, fmt = _format_of(path, format)
    return loads_segmented(read_text(path, source), fmt, source=source, deadlines=deadlines)


def write_segmented_tasksets(
    sets: SegmentedTaskSet | Iterable[SegmentedTaskSet] | str | os.PathLike[str],
    path: str | os.PathLike[str] | SegmentedTaskSet | Iterable[SegmentedTaskSet],
    format: str | None = None,
) -> None:
    """Write segmented task sets to a file (format as for :func:`read_segmented_tasksets`).

    Parameters
    ----------
    sets:
        One :class:`~rtsched.segmented.SegmentedTaskSet` or several.
    path:
        The file, replaced if it exists. The order ``(path, sets)`` of
        :func:`rtsched.dag.write_dag_tasksets` is accepted too.
    format:
        One of :data:`SEGMENTED_FORMATS`; by default told by the extension.

    Raises
    ------
    InputError
        As :func:`~rtsched.segmented.dumps_segmented`, naming the file.
    """
    path, sets = write_target(sets, path)
    source, fmt = _format_of(path, format)
    write_document(path, source, lambda: dumps_segmented(sets, fmt))  # type: ignore[arg-type]
