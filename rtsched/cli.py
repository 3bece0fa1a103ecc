"""The ``rtsched`` command line.

Subcommands live in modules of :mod:`rtsched.commands`; each module exposes
``register(app: typer.Typer) -> None`` and is discovered, so adding a command touches one file.
Errors in user input (:class:`~rtsched.errors.InputError`) print one clear line naming file,
line, task and field, and exit with status 2, never with a traceback.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys

import typer

from rtsched.errors import InputError

__all__ = ["app", "main"]

app = typer.Typer(
    name="rtsched",
    help="Schedulability analysis of sporadic real-time task sets on multiprocessors.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)

_registered = False


def _register_commands() -> None:
    global _registered
    if _registered:
        return
    import rtsched.commands as package

    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda i: i.name):
        if not info.name.startswith("_"):
            importlib.import_module(f"rtsched.commands.{info.name}").register(app)
    _registered = True


def fail(message: str, status: int = 2) -> typer.Exit:
    """Print ``rtsched: error: message`` on stderr; return the Exit to raise."""
    typer.echo(f"rtsched: error: {message}", err=True)
    return typer.Exit(status)


def main(argv: list[str] | None = None) -> int:
    """Console-script entry point; returns the exit status."""
    _register_commands()
    try:
        app(args=argv, prog_name="rtsched")
    except InputError as err:
        typer.echo(f"rtsched: error: {err}", err=True)
        return 2
    except SystemExit as ex:  # click's standalone mode ends every run with SystemExit
        code = ex.code
        return code if isinstance(code, int) else (0 if code is None else 1)
    except KeyboardInterrupt:
        typer.echo("rtsched: interrupted", err=True)
        return 130
    return 0


@app.callback()
def _root() -> None:
    """Schedulability analysis of sporadic real-time task sets on multiprocessors."""


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
