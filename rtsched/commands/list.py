"""``rtsched list``: the catalogue of analyses (name, kind, policy, platform, deadlines, budget, paper)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Annotated

import typer

__all__ = ["register"]


def list_command(
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object per analysis.")] = False,
    featured: Annotated[bool, typer.Option("--featured", help="Only the analyses check() runs by default.")] = False,
) -> None:
    """List the registered analyses: name, kind, policy, platform, deadline models, budget, paper.

    Then why the analyses that refuse arbitrary deadlines (D > T) do so, and the families of
    parametrised names (e.g. p:<fit>:<order>:<admission>).
    """
    from rtsched import registry

    entries = registry.all_entries(featured_only=featured)
    if as_json:
        for e in entries:
            typer.echo(json.dumps(e.to_dict(), ensure_ascii=False))
        return
    rows = [("name", "kind", "policy", "platform", "deadlines", "budget", "paper (papers/)", "title")]
    rows += [
        (
            e.name, e.kind, e.policy, e.platform, ",".join(e.deadlines), _budget(e.budget, e.budget_unit),
            e.note.removeprefix("papers/") if e.note else "-", e.title,
        )
        for e in entries
    ]  # fmt: skip
    for line in _aligned(rows, _terminal_width()):
        typer.echo(line)
    refused = [e for e in entries if e.deadlines_note]
    if refused:
        typer.echo("\nwhy not arbitrary deadlines (D > T):")
        for e in refused:
            typer.echo(f"  {e.name}: {e.deadlines_note}")
    families = registry.families()
    if families and not featured:
        typer.echo("\nfamilies:")
        for description in families:
            typer.echo(f"  {description}")
    typer.echo("\nrtsched check FILE -m M --tests NAME[,NAME...] runs any of them; each paper note is in papers/.")


def _budget(value: int | None, unit: str) -> str:
    """``-`` (always finishes) or the default work budget with its unit, e.g. ``100000 states``.

    A unit's parenthesised explanation (``demand terms per set (k per dbf* sweep, ...)``) is left to
    ``--json`` and the catalogue, so that the column stays narrow.
    """
    return "-" if value is None else f"{value} {unit.split(' (')[0]}"


def _terminal_width() -> int | None:
    """The terminal's width when standard output is one, else None (pipes get one line per row)."""
    import shutil
    import sys

    return shutil.get_terminal_size().columns if sys.stdout.isatty() else None


def _aligned(rows: Sequence[tuple[str, ...]], width: int | None) -> list[str]:
    """The rows as lines.

    ``width`` None (a pipe or a file): aligned columns under a rule, one line per analysis, for grep
    and scripts. A terminal's ``width``: one block per analysis that fits it, the name with its
    kind, policy, platform, deadline models and budget, then the title and paper note indented.
    """
    import textwrap

    if width is None:
        widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
        lines = []
        for k, row in enumerate(rows):
            lines.append("  ".join(cell.ljust(w) for cell, w in zip(row[:-1], widths, strict=False)) + "  " + row[-1])
            if k == 0:
                lines.append("  ".join("-" * w for w in widths))
        return lines
    room = max(40, width)
    lines = []
    for name, kind, policy, platform, deadlines, budget, paper, title in rows[1:]:
        facts = f"{kind}, {policy}, {platform}; deadlines {deadlines}; budget {budget}"
        lines.extend(textwrap.wrap(f"{name}  ({facts})", room, subsequent_indent="    "))
        lines.extend(textwrap.wrap(f"{title} (papers/{paper})", room, initial_indent="    ", subsequent_indent="    "))
    return lines


def register(app: typer.Typer) -> None:
    """Add ``list`` to the CLI."""
    app.command("list")(list_command)
