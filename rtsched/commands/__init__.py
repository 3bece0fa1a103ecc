"""CLI subcommands; each module exposes ``register(app)`` (see :mod:`rtsched.cli`)."""

from pathlib import Path
from typing import Annotated

import typer

#: The FILE argument of the commands that read task sets (check, plot-demand, simulate).
TaskSetFile = Annotated[
    str, typer.Argument(help="Task-set file (YAML, JSON, JSON lines, CSV, text, SimSo or SchedCAT XML) or - for stdin.")
]

#: ``--format`` of FILE (check, plot-demand, simulate): every format ``rtsched.io`` reads.
InputFormat = Annotated[
    str | None,
    typer.Option(
        "--format",
        help="yaml, json, jsonl, csv, txt, simso or schedcat (default: by extension; .xml by root element).",
    ),
]

#: ``--deadlines``: the deadline model the task sets read must follow (check, convert).
Deadlines = Annotated[str, typer.Option("--deadlines", help="constrained (default) or arbitrary (allows D > T).")]

#: ``--time-unit``: the tick of real-valued task-set files (check, convert, simulate, plot-demand).
TimeUnit = Annotated[
    str | None, typer.Option("--time-unit", help="Length of one tick in file units, for real-valued files.")
]


def check_image_path(path: str, option: str) -> None:
    """Refuse an image path whose extension is not .png, .pdf or .svg (plot-demand -o, simulate --gantt)."""
    from rtsched.errors import InputError

    if Path(path).suffix.lower() not in (".png", ".pdf", ".svg"):
        raise InputError(f"unknown image type {path!r}; use .png, .pdf or .svg", field=option)
