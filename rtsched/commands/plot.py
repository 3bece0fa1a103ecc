"""``rtsched plot DIR``: redraw the plots of a sweep directory."""

from __future__ import annotations

from typing import Annotated

import typer

__all__ = ["register"]


def plot_command(
    directory: Annotated[str, typer.Argument(help="A sweep directory (holding results.csv and manifest.json).")],
    formats: Annotated[str, typer.Option("--formats", help="Comma-separated file formats.")] = "png,pdf,svg",
) -> None:
    """Plot acceptance ratio (and weighted schedulability) of a finished sweep."""
    from rtsched.errors import InputError
    from rtsched.sweep.plot import FORMATS, plot_directory

    chosen = tuple(f.strip().lower() for f in formats.split(",") if f.strip())
    unknown = [f for f in chosen if f not in FORMATS]
    if unknown or not chosen:
        raise InputError(f"unknown format(s) {unknown}; choose from {', '.join(FORMATS)}", field="--formats")
    for path in plot_directory(directory, chosen):
        typer.echo(f"wrote {path}")


def register(app: typer.Typer) -> None:
    """Add ``plot`` to the CLI."""
    app.command("plot")(plot_command)
