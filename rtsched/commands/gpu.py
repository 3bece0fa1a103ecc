"""``rtsched gpu FILE``: partition a GPU's compute clusters and allocate real-time kernels.

The model, the heuristics and the file schema are in :mod:`rtsched.analyses.gpu` and
papers/zahaf2021-gpu-partitioning.md.
"""

from __future__ import annotations

import json
from typing import Annotated

import typer

from rtsched.analyses.gpu import HEURISTICS, gpu_report, read_gpu_workload
from rtsched.errors import InputError

__all__ = ["register"]


def gpu_command(
    file: Annotated[str, typer.Argument(help="GPU workload file (.yaml, .yml or .json; - for YAML on stdin).")],
    clusters: Annotated[
        int | None, typer.Option("--clusters", "-M", help="Number of compute clusters M (default: the file's 'clusters').")
    ] = None,
    heuristic: Annotated[
        str, typer.Option("--heuristic", help="ffd, bfd, exhaustive (optimum, small workloads) or single (baseline).")
    ] = "ffd",
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object instead of the table.")] = False,
) -> None:
    """Choose a layout of the GPU's clusters and a kernel-to-partition allocation, and check it.

    Prints the layout, the allocation, each kernel's inflated WCET and each partition's verdict,
    and the verdict of the baseline that treats the GPU as one resource. Exit status: 0 if the
    allocation is proven schedulable, 1 otherwise, 2 on bad input.
    """
    if heuristic not in HEURISTICS:
        raise InputError(f"unknown heuristic {heuristic!r}; choose one of {', '.join(HEURISTICS)}", field="--heuristic")
    workload = read_gpu_workload(file)
    if clusters is None and workload.clusters is None:
        raise InputError("give the number of clusters: --clusters M, or 'clusters: M' in the file", file=file, field="clusters")
    report = gpu_report(workload, clusters, heuristic)
    if as_json:
        typer.echo(json.dumps(report.to_dict(), ensure_ascii=False))
    else:
        typer.echo(str(report))
    raise typer.Exit(0 if report.schedulable else 1)


def register(app: typer.Typer) -> None:
    """Add ``gpu`` to the CLI."""
    app.command("gpu")(gpu_command)
