"""``rtsched plot DIR``: redraw the plots of a sweep directory, in a style a venue accepts."""

from __future__ import annotations

from typing import Annotated

import typer

__all__ = ["register"]


def plot_command(
    directory: Annotated[str, typer.Argument(help="A sweep directory (holding results.csv and manifest.json).")],
    formats: Annotated[str, typer.Option("--formats", help="Comma-separated file formats.")] = "png,pdf,svg",
    style: Annotated[
        str,
        typer.Option(
            "--style",
            help="default (wide, caption drawn), paper (one column, 3.5 in), paper2 (two columns, 7.16 in), "
            "slides (10 in, large fonts). Every style writes Type 42 fonts in PDF and SVG text as text.",
        ),
    ] = "default",
    tests: Annotated[
        str | None, typer.Option("--tests", help="Analyses to draw, in legend order: a,b,c (default: all).")
    ] = None,
    label: Annotated[
        list[str] | None, typer.Option("--label", help="Legend text of an analysis: NAME=TEXT (repeatable).")
    ] = None,
    legend: Annotated[
        str | None,
        typer.Option("--legend", help="outside (right), below, inside (first panel) or off; default: the style's."),
    ] = None,
    title: Annotated[
        str | None, typer.Option("--title", help="A title over the figure (default: none, never the experiment name).")
    ] = None,
    no_title: Annotated[bool, typer.Option("--no-title", help="No title (the default).")] = False,
    caption: Annotated[
        bool | None,
        typer.Option(
            "--caption/--no-caption",
            help="Draw the caption under the plot (default: only the default style). CAPTION.txt is always written.",
        ),
    ] = None,
    ci: Annotated[
        bool | None,
        typer.Option(
            "--ci/--no-ci",
            help="95% Wilson band of each acceptance ratio, n = sets per point (default: only the default style).",
        ),
    ] = None,
    weighted: Annotated[
        bool | None,
        typer.Option(
            "--weighted/--no-weighted",
            help="Weighted schedulability (weighted.*; needs a second swept variable). Default: when available.",
        ),
    ] = None,
) -> None:
    """Plot acceptance ratio (and weighted schedulability) of a finished sweep."""
    from rtsched.errors import InputError
    from rtsched.sweep.plot import FORMATS, plot_directory

    chosen = tuple(f.strip().lower() for f in formats.split(",") if f.strip())
    unknown = [f for f in chosen if f not in FORMATS]
    if unknown or not chosen:
        raise InputError(f"unknown format(s) {unknown}; choose from {', '.join(FORMATS)}", field="--formats")
    if no_title and title is not None:
        raise InputError("give --title TEXT or --no-title, not both", field="--title")
    written = plot_directory(
        directory,
        chosen,
        style=style,
        tests=tests,
        labels=label or None,
        legend=legend,
        title=title,
        caption=caption,
        ci=ci,
        weighted=weighted,
    )
    for path in written:
        typer.echo(f"wrote {path}")


def register(app: typer.Typer) -> None:
    """Add ``plot`` to the CLI."""
    app.command("plot")(plot_command)
