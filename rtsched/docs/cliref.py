"""The command-line reference: each ``rtsched`` command's own ``--help``, as the terminal prints it."""

from __future__ import annotations

from pathlib import Path

__all__ = ["cli_help", "cli_markdown", "command_names", "write_cli"]


def command_names() -> list[str]:
    """The names of the ``rtsched`` subcommands (those :mod:`rtsched.commands` registers), sorted."""
    from rtsched import cli

    cli._register_commands()  # the CLI registers its commands lazily
    names = [c.name or (c.callback.__name__ if c.callback else "") for c in cli.app.registered_commands]
    names += [g.name for g in cli.app.registered_groups if g.name]
    return sorted(set(names))


def cli_help(*args: str) -> str:
    """What ``rtsched ARGS --help`` prints (80 columns, no colours)."""
    from typer.testing import CliRunner

    from rtsched import cli

    cli._register_commands()
    runner = CliRunner()
    result = runner.invoke(
        cli.app, [*args, "--help"], prog_name="rtsched", env={"COLUMNS": "80", "NO_COLOR": "1", "TERM": "dumb"}
    )
    if result.exit_code != 0:
        raise RuntimeError(f"rtsched {' '.join(args)} --help failed: {result.output}")
    return result.output.rstrip() + "\n"


def cli_markdown() -> str:
    """The reference page (MyST Markdown): the top-level help, then one section per command."""
    lines = [
        "# Command-line reference",
        "",
        "Generated from the commands' own help when the site is built: what `rtsched --help` and",
        "`rtsched COMMAND --help` print. Exit status: 0 success (for `check`: every set proven",
        "schedulable), 1 not proven schedulable (or a deadline miss found by `simulate`), 2 bad input",
        "(one line naming file, line, task and field), 3 an internal error, 130 interrupted.",
        "",
        "```text",
        cli_help().rstrip(),
        "```",
        "",
    ]
    for name in command_names():
        lines += [f"(cli-{name})=", f"## `rtsched {name}`", "", "```text", cli_help(name).rstrip(), "```", ""]
    return "\n".join(lines)


def write_cli(path: Path) -> Path:
    """Write the reference page to ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(cli_markdown(), encoding="utf-8")
    return path
