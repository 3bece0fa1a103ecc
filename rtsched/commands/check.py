"""``rtsched check FILE -m M``: verdicts of the analyses, with evidence, per task set."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from rtsched.check import check
from rtsched.io import read_tasksets
from rtsched.registry import resolve_list

__all__ = ["register"]


def check_command(
    file: Annotated[str, typer.Argument(help="Task-set file (YAML, JSON, JSON lines, CSV, text) or - for stdin.")],
    processors: Annotated[int, typer.Option("-m", "--processors", help="Number of identical processors.")],
    tests: Annotated[
        str | None, typer.Option("--tests", help="Comma-separated analyses (default: every one that applies).")
    ] = None,
    explain: Annotated[bool, typer.Option("--explain", help="Show each analysis's full evidence.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object per task set.")] = False,
    fmt: Annotated[str | None, typer.Option("--format", help="yaml, json, jsonl, csv or txt (default: by extension).")] = None,
    deadlines: Annotated[
        str, typer.Option("--deadlines", help="constrained (default) or arbitrary (allows D > T).")
    ] = "constrained",
    time_unit: Annotated[
        str | None, typer.Option("--time-unit", help="Length of one tick in file units, for real-valued files.")
    ] = None,
) -> int:
    """Check task sets: a verdict per analysis and why.

    Exit status: 0 if every task set is proven schedulable by some analysis, 1 otherwise,
    2 on bad input.
    """
    sets = read_tasksets(file if file == "-" else Path(file), format=fmt, deadlines=deadlines, time_unit=time_unit)  # type: ignore[arg-type]
    if tests is not None:
        resolve_list(tests)  # unknown names fail before any work
    all_proven = True
    for index, ts in enumerate(sets):
        report = check(ts, processors, tests)
        all_proven &= report.schedulable
        if as_json:
            typer.echo(report.to_json(index=index, explain=explain))
            continue
        if len(sets) > 1:
            typer.echo(f"[{index}] ", nl=False)
        typer.echo(str(report))
        if explain:
            for result in report.results:
                typer.echo("")
                typer.echo(str(result))
        if len(sets) > 1:
            typer.echo("")
    raise typer.Exit(0 if all_proven else 1)


def register(app: typer.Typer) -> None:
    """Add ``check`` to the CLI."""
    app.command("check")(check_command)
