"""``rtsched convert IN OUT``: a task-set file in any supported format, written in any other."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from rtsched.commands import Deadlines, TaskSetFile, TimeUnit
from rtsched.errors import InputError
from rtsched.io import detect_format, read_tasksets, read_text, simso_platform, write_tasksets

__all__ = ["register"]


def convert_command(
    source: TaskSetFile,
    target: Annotated[str, typer.Argument(help="Output file, or - for stdout (then give --to).")],
    from_format: Annotated[
        str | None,
        typer.Option("--format", "--from", help="Input format (default: by extension; .xml by its root element)."),
    ] = None,
    to_format: Annotated[
        str | None,
        typer.Option(
            "--to", help="Output format: yaml, json, jsonl, csv, txt, simso or schedcat (default: by extension)."
        ),
    ] = None,
    processors: Annotated[
        int | None,
        typer.Option("-m", "--processors", help="Processors of a SimSo output (default: a SimSo input's)."),
    ] = None,
    policy: Annotated[
        str | None,
        typer.Option(
            "--policy",
            help="Scheduler of a SimSo output: global-edf (default), partitioned-edf, edf, global-fp or fp "
            "(default: a SimSo input's).",
        ),
    ] = None,
    deadlines: Deadlines = "constrained",
    time_unit: TimeUnit = None,
) -> None:
    """Convert task sets between formats: rtsched's (yaml, json, jsonl, csv, txt), SimSo's and SchedCAT's XML.

    What each format keeps: csv and txt keep no set names; SimSo and SchedCAT keep no set names,
    a SimSo file holds one set, and SimSo times are written with one tick = 1 ms. A SimSo
    output needs -m (or a SimSo input). What does not map between formats is refused with an
    error naming file, line, task and field (exit status 2); nothing is dropped silently except
    what the formats' documentation (rtsched.io.xml_formats) lists as ignored.
    """
    in_fmt = from_format or (None if source == "-" else detect_format(source))
    out_fmt = to_format or (None if target == "-" else detect_format(target))
    if out_fmt is None:
        raise InputError("give the output format of standard output with --to", field="--to")
    if source != "-" and target != "-" and Path(target).exists() and Path(target).resolve() == Path(source).resolve():
        # Writing would replace the input (and drop what its format keeps and the target's does not).
        raise InputError(f"{target} is the input file itself; write to another file", field="target")
    sets = read_tasksets(
        source if source == "-" else Path(source),
        format=in_fmt,
        deadlines=deadlines,  # type: ignore[arg-type]
        time_unit=time_unit,
    )
    if out_fmt.lower().removesuffix(".xml") == "simso" and (processors is None or policy is None):
        if in_fmt is not None and in_fmt.lower().removesuffix(".xml") == "simso" and source != "-":
            try:
                platform = simso_platform(read_text(source, source))
            except InputError as err:
                raise err.located(file=source) from None
            processors = platform.processors if processors is None else processors
            policy = policy or platform.policy
    try:
        write_tasksets(target, sets, format=out_fmt, processors=processors, policy=policy)
    except InputError as err:
        raise err.located(file="<stdout>" if target == "-" else target) from None


def register(app: typer.Typer) -> None:
    """Add ``convert`` to the CLI."""
    app.command("convert")(convert_command)
