"""Plot captions and axis labels of acceptance-ratio experiments, from their canonical form.

Each generator kind (:mod:`rtsched.sweep.kinds`) picks its caption and its labels here:
:func:`taskset_caption` and :data:`TASKSET_LABELS` for task sets, :func:`gpu_caption` and
:data:`GPU_LABELS` for GPU workloads (papers/zahaf2021-gpu-partitioning.md), where the swept
utilization is the one-cluster utilization U1, :func:`dag_caption` and :data:`DAG_LABELS` for
DAG task sets (papers/dag-generators.md), where U = Σ vol/T. The text depends only on the canonical form
(:meth:`~rtsched.sweep.Experiment.canonical`), so a result directory can be captioned
from its manifest alone.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = [
    "BANDS_SENTENCE",
    "DAG_LABELS",
    "GPU_LABELS",
    "MC_LABELS",
    "TASKSET_LABELS",
    "dag_caption",
    "gpu_caption",
    "mc_caption",
    "parameter_label",
    "taskset_caption",
]

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
#: Axis labels of DAG experiments; a variable not listed takes its task-set label.
DAG_LABELS = {
    "utilization": "Total utilization U = Σ vol/T (processors' worth of work, dimensionless)",
    "U/m": "Normalized utilization U/m = Σ vol/T / m (fraction of platform capacity, dimensionless)",
    "n": "Number of DAG tasks n (tasks per set)",
    "m": "Number of processors m",
    "generator.shape": "DAG shape",
    "generator.max_depth": "Largest fork-join nesting depth",
    "generator.max_branches": "Largest number of branches of a fork",
    "generator.p_par": "Fork weight p_par of nested fork-join DAGs",
    "generator.p_term": "Terminal weight p_term of nested fork-join DAGs",
    "generator.vertices": "Inner vertices of G(n, p) DAGs",
    "generator.p": "Edge probability p",
    "generator.layers": "Layers of layered DAGs",
    "generator.width": "Vertices per layer of layered DAGs",
    "generator.wcet": "Range of vertex WCETs",
}
#: Axis labels of mixed-criticality experiments (issue #44); a variable not listed takes its task-set label.
MC_LABELS = {
    "utilization": "LO-mode utilization U = U_LL + U_HL = Σ C(LO)/T (dimensionless)",
    "U/m": "Normalized LO-mode utilization U/m = Σ C(LO)/T / m (dimensionless)",
    "n": "Number of tasks n (tasks per set)",
    "m": "Number of processors m",
    "generator.cp": "Probability CP that a task is HI-criticality",
    "generator.cf": "Criticality factor CF = C(HI)/C(LO) of HI tasks",
}
_WILSON = "bands: 95% Wilson score intervals."
#: The captions' sentence about the bands (the plots drop it when they draw no band).
BANDS_SENTENCE = _WILSON


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
    if gen.get("method") == "baker":  # issue #46: per-task named distributions, tasks added up to U
        keep = gen.get("cap", "discard") == "keep"
        rule = "until the total exceeds U, that task kept" if keep else "while the total stays <= U"
        source = f"Baker-style: tasks of {gen.get('utilizations')} utilization added {rule}, "
        n_text = n_text.replace("n = ", "at most ", 1) + " tasks"
    else:
        source = f"{gen.get('utilizations')} utilizations (umax = {gen.get('umax')}), "
    from rtsched.generators.periods import describe_periods

    return (
        f"Generator: {source}{n_text}; {fixed_u}"
        f"periods {describe_periods(gen.get('periods'))}; deadlines {gen.get('deadlines')}; m = {ms}; "
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


def _dag_shape_text(gen: Mapping[str, Any], swept: set[Any]) -> str:
    """The graph shape and its parameters, in words (``nested fork-join DAGs (Melani et al. ...)``)."""

    def value(key: str) -> str:
        if f"generator.{key}" in swept:
            return "swept"
        raw = gen.get(key)
        if isinstance(raw, list | tuple) and len(raw) == 2:
            return f"{raw[0]}" if raw[0] == raw[1] else f"{raw[0]}..{raw[1]}"
        return str(raw)

    shape = gen.get("shape")
    if "generator.shape" in swept:
        text = "DAG shape swept (each shape with its parameters)"
    elif shape == "fork-join":
        text = (
            f"nested fork-join DAGs (Melani et al. 2015 generator without conditional branches: depth ≤ "
            f"{value('max_depth')}, 2..{value('max_branches')} branches, p_par = {value('p_par')}, "
            f"p_term = {value('p_term')}"
            + ("; the root always forks" if gen.get("root") == "fork" else "")
            + ("; root rule swept" if "generator.root" in swept else "")
            + ")"
        )
    elif shape == "gnp":
        text = f"G(n, p) DAGs ({value('vertices')} inner vertices, p = {value('p')}, dummy source and sink)"
    elif shape == "layered":
        text = f"layered DAGs ({value('layers')} layers of {value('width')} vertices, p = {value('p')})"
    else:
        text = f"{shape} DAGs"
    return f"{text}, vertex WCETs uniform in {value('wcet')}"


def dag_caption(canonical: Mapping[str, Any]) -> str:
    """The caption of a DAG experiment (``[generator] kind = "dag"``): shape, utilizations, T and D rules."""
    gen = dict(canonical.get("generator", {}))
    swept = _swept(canonical)
    for key in ("utilizations", "umax", "deadlines"):
        if f"generator.{key}" in swept:
            gen[key] = "swept"
    n_text, fixed_u, ms = _caption_parts(canonical, gen, unit=" DAG tasks", u_name="U", norm_name="U/m")
    method = gen.get("utilizations")
    cap = "" if method == "uunifast" else f" (u_i ≤ {gen.get('umax')})"
    deadlines = gen.get("deadlines")
    d_text = {
        "implicit": "implicit deadlines D = T",
        "constrained": "constrained deadlines D uniform in [len, T]",
    }.get(str(deadlines), f"deadlines {deadlines}")
    if "generator.priorities" in swept:
        d_text += "; task order (G-FP priorities) swept"
    elif gen.get("priorities") == "deadline-monotonic":
        d_text += "; tasks in deadline-monotonic order (the G-FP priorities)"
    types = gen.get("types")
    if isinstance(types, Mapping):
        total = sum(types.values())
        shares = ", ".join(f"{name} {weight / total:.3g}" for name, weight in types.items())
        d_text += f"; vertex types {shares} (sources and sinks cpu)"
    units = canonical.get("platform", {}).get("units")
    if isinstance(units, Mapping) and units:
        others = ", ".join(f"{count} {name}" for name, count in units.items())
        platform_text = f"typed platform: m = {ms} cpu units and {others} units"
    else:
        platform_text = f"m = {ms} processors"
    return (
        f"Generator: DAG task sets, {n_text}, {_dag_shape_text(gen, swept)}; {method} task utilizations{cap}, "
        f"U = Σ vol/T; {fixed_u}T = ceil(vol/u_i) (graph redrawn if len > T); {d_text}; {platform_text}; "
        f"{canonical.get('sweep', {}).get('sets_per_point')} sets per point; seed {canonical.get('seed')}; " + _WILSON
    )



def mc_caption(canonical: Mapping[str, Any]) -> str:
    """The caption of a mixed-criticality experiment (``[generator] kind = "mc"``): CP, CF, U, T and D rules."""
    gen = dict(canonical.get("generator", {}))
    swept = _swept(canonical)
    for key in ("utilizations", "umax", "deadlines", "periods", "ticks", "cp", "cf", "priorities"):
        if f"generator.{key}" in swept:
            gen[key] = "swept"
    n_text, fixed_u, ms = _caption_parts(canonical, gen, unit=" tasks", u_name="U", norm_name="U/m")
    method = gen.get("utilizations")
    cap = "" if method == "uunifast" else f" (u_i ≤ {gen.get('umax')})"
    ticks = gen.get("ticks")
    periods = f"periods {gen.get('periods')}" + ("" if ticks == 1 else f" × {ticks} ticks")
    d_text = {
        "implicit": "implicit deadlines D = T",
        "constrained": "constrained deadlines D uniform in [C(own level), T]",
    }.get(str(gen.get("deadlines")), f"deadlines {gen.get('deadlines')}")
    if gen.get("priorities") == "deadline-monotonic":
        d_text += "; tasks in deadline-monotonic order"
    elif gen.get("priorities") == "swept":
        d_text += "; task order swept"
    return (
        f"Generator: dual-criticality task sets (Baruah, Burns, Davis 2011 setup), {n_text}; {method} "
        f"utilizations{cap} of LO-mode U = U_LL + U_HL; {fixed_u}HI with probability CP = {gen.get('cp')}, "
        f"C(LO) = max(1, round(u_i·T)), C(HI) = round(CF·C(LO)), CF = {gen.get('cf')} (set redrawn if a WCET "
        f"exceeds T); {periods}; {d_text}; m = {ms} processors; "
        f"{canonical.get('sweep', {}).get('sets_per_point')} sets per point; seed {canonical.get('seed')}; " + _WILSON
    )
