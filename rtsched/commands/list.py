"""``rtsched list``: the catalogue of analyses (name, kind, policy, platform, deadlines, budget, paper)."""

from __future__ import annotations

import json
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
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for k, row in enumerate(rows):
        typer.echo("  ".join(cell.ljust(w) for cell, w in zip(row[:-1], widths, strict=False)) + "  " + row[-1])
        if k == 0:
            typer.echo("  ".join("-" * w for w in widths))
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
    """``-`` (always finishes) or the default work budget with its unit, e.g. ``100000 states``."""
    return "-" if value is None else f"{value} {unit}"


def register(app: typer.Typer) -> None:
    """Add ``list`` to the CLI."""
    app.command("list")(list_command)
