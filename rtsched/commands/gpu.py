"""``rtsched gpu FILE``: partition a GPU's compute clusters and allocate real-time kernels.

The model (rtsched's model, after Zahaf et al. (RTNS 2021); its assumptions are listed in
papers/zahaf2021-gpu-partitioning.md) and the file schema are in :mod:`rtsched.gpu`, the
heuristics in the GPU analyses of the registry (``gpu:ffd``, ``gpu:bfd``, ``gpu:exhaustive``,
``gpu:single``; platform ``GPU(M)``) and papers/zahaf2021-gpu-partitioning.md.
:func:`check_gpu_platform` is also what ``rtsched check FILE --platform gpu:<M>`` runs.
"""

from __future__ import annotations

import json
import re
from typing import Annotated

import typer

from rtsched import registry
from rtsched.errors import InputError
from rtsched.gpu import GPU_PRESETS, GPUWorkload, format_gpu_report, layout_space, read_gpu_workload
from rtsched.gpu.report import format_gpu_comparison
from rtsched.platform import GPU, parse_platform
from rtsched.result import jsonable
from rtsched.workloads import GPU_WORKLOADS

__all__ = ["check_gpu_platform", "gpu_platform", "register", "run_gpu_analyses"]


def _gpu_entries() -> list[registry.Analysis]:
    return registry.entries_of(GPU_WORKLOADS)


def _heuristics() -> list[str]:
    return [e.name.split(":", 1)[1] for e in _gpu_entries()]


def run_gpu_analyses(workload: GPUWorkload, platform: GPU, entries: list[registry.Analysis], as_json: bool) -> int:
    """Print each GPU analysis's report on ``workload`` (table or one JSON object per analysis).

    Returns the exit status: 0 if every analysis proves the workload schedulable, else 1.
    """
    proven = True
    for k, entry in enumerate(entries):
        result = entry.explain(workload, platform)
        proven &= result.verdict is True
        report = result.evidence["report"]
        if as_json:
            typer.echo(json.dumps({"analysis": entry.name, **jsonable(report)}, ensure_ascii=False))
        else:
            typer.echo(("\n" if k else "") + format_gpu_report(report))
    return 0 if proven else 1


def gpu_platform(spec: str, workload: GPUWorkload | None = None) -> GPU:
    """The platform of ``--platform gpu[:<M>]`` (M defaults to the workload's ``clusters``).

    The old spelling ``gpu:<M>:<heuristic>`` is refused with the new one.
    """
    parts = spec.strip().split(":")
    if len(parts) == 3 and parts[0] == "gpu" and parts[1].isdigit():
        raise InputError(
            f"--platform {spec} is now --platform gpu:{parts[1]} --tests gpu:{parts[2]} "
            f"(the heuristic is the analysis: {', '.join(f'gpu:{h}' for h in _heuristics())})",
            field="--platform",
        )
    clusters = workload.clusters if workload is not None else None
    try:
        platform = parse_platform(spec, clusters)
    except InputError as err:
        if err.message.startswith("the platform needs"):
            raise InputError(
                "give the number of clusters: --platform gpu:<M>, or 'clusters: M' in the file", field="--platform"
            ) from None
        raise InputError(f"bad GPU platform {spec!r}; expected gpu:<M> ({err.message})", field="--platform") from None
    if not isinstance(platform, GPU):
        raise InputError(f"bad GPU platform {spec!r}; expected gpu:<M>", field="--platform")
    return platform


def check_gpu_platform(file: str, platform: str, tests: str | None, as_json: bool) -> int:
    """``rtsched check FILE --platform gpu[:<M>] [--tests gpu:bfd,...]``: FILE is a GPU workload.

    The analyses are ``tests`` (GPU analyses only; default ``gpu``, i.e. ``gpu:ffd``), each run
    through the registry on ``GPU(M)``. Prints each report and returns the exit status (0 if
    every analysis proves the workload schedulable, 1 otherwise); bad input raises InputError.
    """
    if platform.strip() != "gpu":
        gpu_platform(platform)  # a bad spelling fails before the file is read
    entries = registry.resolve_list(tests if tests is not None else "gpu", workload=GPU_WORKLOADS)
    for entry in entries:
        if entry.workload is not GPU_WORKLOADS:
            raise InputError(
                f"{entry.name} analyses {entry.workload.title}, not GPU workloads; with --platform gpu:<M> use "
                + ", ".join(e.name for e in _gpu_entries()),
                field="--tests",
            )
    workload = read_gpu_workload(file)
    return run_gpu_analyses(workload, gpu_platform(platform, workload), entries, as_json)


def gpu_command(
    file: Annotated[str, typer.Argument(help="GPU workload file (.yaml, .yml or .json; - for YAML on stdin).")],
    clusters: Annotated[
        int | None,
        typer.Option("--clusters", "-M", help="Number of compute clusters M (default: the file's 'clusters')."),
    ] = None,
    heuristic: Annotated[
        str,
        typer.Option(
            "--heuristic",
            help="ffd, bfd, exhaustive (small workloads: accepts iff some legal layout and allocation passes; "
            "shows one with the fewest clusters in use, not the least loaded) or single (baseline).",
        ),
    ] = "ffd",
    gpu: Annotated[
        str | None,
        typer.Option(
            "--gpu", help=f"A GPU with its partition mechanism: {', '.join(GPU_PRESETS)} (sets M and --layout)."
        ),
    ] = None,
    layout: Annotated[
        list[str] | None,
        typer.Option(
            "--layout",
            help="Legal layouts: free (any split of M), tpc:<SMs per TPC>, mig:a100 or mig:h100 "
            "(default: the file's 'layout', else free); or one given layout to evaluate, e.g. 4+2+1 or "
            "4g.20gb+2g.10gb+1g.5gb (in the file's or --gpu's space; mig:a100=4+3 names the space). "
            "Repeat --layout to compare given layouts side by side.",
        ),
    ] = None,
    interference: Annotated[
        str | None,
        typer.Option(
            "--interference",
            help="co-runner (factors by the most interfering co-runner class) or count-only "
            "(factors by the number of other partitions); default: the file's, else co-runner.",
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object instead of the table.")] = False,
) -> None:
    """Choose a layout of the GPU's clusters and a kernel-to-partition allocation, and check it.

    Prints the layout, the allocation, each kernel's inflated WCET and each partition's verdict,
    and the verdict of the baseline that treats the GPU as one resource. With a given layout
    (``--layout 4+2+1``), the kernels are placed on its partitions only; with several, one row per
    layout compares verdicts and loads per partition. Exit status: 0 if the allocation (every
    given layout) is proven schedulable, 1 otherwise, 2 on bad input. (The same as
    ``rtsched check FILE --platform gpu:<M> --tests gpu:<heuristic>``.)
    """
    if heuristic not in _heuristics():
        raise InputError(
            f"unknown heuristic {heuristic!r}; choose one of {', '.join(_heuristics())}", field="--heuristic"
        )
    workload = read_gpu_workload(file)
    base = workload.layout.partition("=")[0]
    if gpu is not None:
        if gpu not in GPU_PRESETS:
            raise InputError(f"unknown GPU {gpu!r}; choose one of {', '.join(GPU_PRESETS)}", field="--gpu")
        preset_M, base = GPU_PRESETS[gpu]
        if clusters is not None and clusters != preset_M:
            raise InputError(f"--clusters {clusters} disagrees with --gpu {gpu} ({preset_M})", field="--clusters")
        clusters = preset_M
    specs = [_layout_spec(text, base) for text in layout] if layout else [base if gpu is not None else None]
    M = clusters if clusters is not None else workload.clusters
    if M is None:
        raise InputError(
            "give the number of clusters: --clusters M, or 'clusters: M' in the file", file=file, field="clusters"
        )
    workloads = []
    for spec in specs:
        try:
            chosen = workload.with_model(spec, interference)
            layout_space(chosen.layout, M)  # a layout that does not fit M fails here, naming it
        except InputError as err:
            raise InputError(err.message, field=f"--{err.field}") from None
        workloads.append(chosen)
    if interference == "co-runner" and not workloads[0].co_runner_aware:
        typer.echo(
            "rtsched: note: --interference co-runner, but no kernel has per-class slowdown rows (slowdown_by): "
            "the count-only factors f(K − 1) apply",
            err=True,
        )
    entry = registry.get(f"gpu:{heuristic}")
    if len(workloads) == 1:
        raise typer.Exit(run_gpu_analyses(workloads[0], GPU(M), [entry], as_json))
    reports = [entry.explain(w, GPU(M)).evidence["report"] for w in workloads]
    if as_json:
        for report in reports:
            typer.echo(json.dumps({"analysis": entry.name, **jsonable(report)}, ensure_ascii=False))
    else:
        typer.echo(format_gpu_comparison(reports))
    raise typer.Exit(0 if all(r["verdict"] is True for r in reports) else 1)


_SPACE = re.compile(r"free|tpc:[0-9]+|mig:[A-Za-z0-9_-]+")


def _layout_spec(text: str, base: str) -> str:
    """``--layout`` as a layout spec: a space, ``<space>=<layout>``, or a bare layout in ``base``'s space."""
    text = text.strip()
    if "=" in text or _SPACE.fullmatch(text):
        return text
    return f"{base}={text}"


def register(app: typer.Typer) -> None:
    """Add ``gpu`` to the CLI."""
    app.command("gpu")(gpu_command)
