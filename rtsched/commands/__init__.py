"""CLI subcommands; each module exposes ``register(app)`` (see ``rtsched.cli``)."""

from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

#: The FILE argument of the commands that read task sets (check, plot-demand, simulate).
TaskSetFile = Annotated[
    str, typer.Argument(help="Task-set file (YAML, JSON, JSON lines, CSV, text, SimSo or SchedCAT XML) or - for stdin.")
]


def _checked_option(option: str, help: str, check: Callable[[str], object]) -> Any:
    """The typer option ``option``: ``check(value)`` at parse time, its error naming ``option`` (one line, exit 2)."""

    def callback(value: str | None) -> str | None:
        from rtsched.errors import InputError

        if value is not None:
            try:
                check(value)
            except InputError as err:
                raise err.located(field=option) from None
        return value

    return typer.Option(option, help=help, callback=callback)


def _check_format(value: str) -> object:
    from rtsched.io.stream import check_format

    return check_format(value)


def _check_deadlines(value: str) -> object:
    from rtsched.model import check_model

    return check_model(value)


def _check_time_unit(value: str) -> object:
    from rtsched.io.numbers import parse_unit

    return parse_unit(value)


#: ``--format`` of FILE (check, plot-demand, simulate): every format ``rtsched.io`` reads.
InputFormat = Annotated[
    str | None,
    _checked_option(
        "--format",
        "yaml, json, jsonl, csv, txt, simso or schedcat (default: by extension; .xml by root element).",
        _check_format,
    ),
]

#: ``--deadlines``: the deadline model the task sets read must follow (check, convert).
Deadlines = Annotated[
    str,
    _checked_option("--deadlines", "constrained (default) or arbitrary (allows D > T).", _check_deadlines),
]

#: ``--time-unit``: the tick of real-valued task-set files (check, convert, simulate, plot-demand).
TimeUnit = Annotated[
    str | None,
    _checked_option("--time-unit", "Length of one tick in file units, for real-valued files.", _check_time_unit),
]


def check_image_path(path: str, option: str) -> None:
    """Refuse an image path whose extension is not .png, .pdf or .svg (plot-demand -o, simulate --gantt)."""
    from rtsched.errors import InputError

    if Path(path).suffix.lower() not in (".png", ".pdf", ".svg"):
        raise InputError(f"unknown image type {path!r}; use .png, .pdf or .svg", field=option)
