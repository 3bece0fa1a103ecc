"""CLI subcommands; each module exposes ``register(app)`` (see :mod:`rtsched.cli`)."""

from typing import Annotated

import typer

#: The FILE argument of the commands that read task sets (check, plot-demand, simulate).
TaskSetFile = Annotated[
    str, typer.Argument(help="Task-set file (YAML, JSON, JSON lines, CSV, text, SimSo or SchedCAT XML) or - for stdin.")
]
