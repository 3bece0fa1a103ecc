"""Plot captions and axis labels of acceptance-ratio experiments, from their canonical form.

Each generator kind (:mod:`rtsched.sweep.kinds`) picks its caption and its labels here:
:func:`taskset_caption` and :data:`TASKSET_LABELS` for task sets, :func:`gpu_caption` and
:data:`GPU_LABELS` for GPU workloads (papers/zahaf2021-gpu-partitioning.md), where the swept
utilization is the one-cluster utilization U1. The text depends only on the canonical form
(:meth:`rtsched.sweep.experiment.Experiment.canonical`), so a result directory can be captioned
from its manifest alone.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["GPU_LABELS", "TASKSET_LABELS", "gpu_caption", "parameter_label", "taskset_caption"]

#: Axis labels (with units) of the swept variables of task-set experiments.
TASKSET_LABELS = {
    "utilization": "Total utilization U = Σ C/T (processors' worth of work, dimensionless)",
    "U/m": "Normalized utilization U/m (fraction of platform capacity, dimensionless)",
    "n": "Number of tasks n (tasks per set)",
    "m": "Number of processors m",
}
#: Axis labels of GPU experiments; a variable not listed takes its task-set label.
GPU_LABELS = {
    "utilization": "One-cluster utilization U1 = Σ C(1)/T (clusters' worth of work, dimensionless)",
    "U/m": "Normalized one-cluster utilization U1/M = Σ C(1)/T / M (dimensionless)",
    "n": "Number of kernels n (kernels per workload)",
    "m": "Number of compute clusters M",
    "generator.parallel": "Range of Amdahl's parallel fraction p",
    "generator.contention": "Range of the contention slope a in f(k) = 1 + a·k",
    "generator.nonpreemptive": "Share of non-preemptive kernels",
}
_WILSON = "bands: 95% Wilson score intervals."


def parameter_label(variable: str) -> str:
    """The label of a swept variable no table names (a ``generator.<parameter>``)."""
    param = variable.removeprefix("generator.")
    return {"umax": "Largest task utilization umax (dimensionless)"}.get(param, f"Generator parameter {param}")


def _swept(canonical: Mapping[str, Any]) -> set[Any]:
    sweep = canonical.get("sweep", {})
    return {sweep.get("variable"), sweep.get("by")}


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


def taskset_caption(canonical: Mapping[str, Any]) -> str:
    """The caption of a task-set experiment: generator, periods, deadlines, m, sets per point."""
    gen = dict(canonical.get("generator", {}))
    swept = _swept(canonical)
    for key in ("utilizations", "umax", "periods", "deadlines"):
        if f"generator.{key}" in swept:
            gen[key] = "swept"
    n_text, fixed_u, ms = _caption_parts(canonical, gen, unit="", u_name="U", norm_name="U/m")
    return (
        f"Generator: {gen.get('utilizations')} utilizations (umax = {gen.get('umax')}), {n_text}; {fixed_u}"
        f"periods {gen.get('periods')}; deadlines {gen.get('deadlines')}; m = {ms}; "
        f"{canonical.get('sweep', {}).get('sets_per_point')} sets per point; seed {canonical.get('seed')}; " + _WILSON
    )


def gpu_caption(canonical: Mapping[str, Any]) -> str:
    """The caption of a GPU experiment (``[generator] kind = "gpu"``): what U means, the WCET model."""
    gen = dict(canonical.get("generator", {}))
    swept = _swept(canonical)

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
        f"M = {ms} clusters; {canonical.get('sweep', {}).get('sets_per_point')} workloads per point; "
        f"seed {canonical.get('seed')}; " + _WILSON
    )
