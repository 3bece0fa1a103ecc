"""The ``rtsched`` command line (also ``python -m rtsched``).

Subcommands live in modules of :mod:`rtsched.commands`; each module exposes
``register(app: typer.Typer) -> None`` and is discovered, so adding a command touches one file.

Exit status: 0 success (for ``check``: every set proven schedulable), 1 only for "not proven
schedulable" (or a deadline miss found by ``simulate``), 2 for bad input
(:class:`~rtsched.errors.InputError`: one clear line naming file, line, task and field, never a
traceback), 3 for an internal error (a bug in rtsched: the traceback is printed, with a request
to report it), 130 when interrupted.
"""

from __future__ import annotations

import contextvars
import importlib
import inspect
import pkgutil
import signal
import sys
import threading
import traceback
from typing import Any

import typer

from rtsched import __version__
from rtsched.errors import InputError

__all__ = ["INTERNAL_ERROR", "app", "main"]

#: Exit status of an unexpected exception, distinct from 1 ("not proven schedulable").
INTERNAL_ERROR = 3

app = typer.Typer(
    name="rtsched",
    help="Schedulability analysis of sporadic real-time task sets on multiprocessors.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)

_registered = False

#: click's base of usage errors, whichever click typer uses (recent typer versions vendor their own
#: copy, so ``import click`` would name another class): found from typer's public BadParameter.
_CLICK_ERROR: Any = next(k for k in typer.BadParameter.__mro__ if k.__name__ == "ClickException")


def _register_commands() -> None:
    global _registered
    if _registered:
        return
    import rtsched.commands as package

    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda i: i.name):
        if not info.name.startswith("_"):
            importlib.import_module(f"rtsched.commands.{info.name}").register(app)
    for command in app.registered_commands:
        # Click cuts a command's first sentence at ~45 characters in the list of commands; an
        # explicit short help is shown whole (wrapped), so give it the docstring's first line.
        if command.short_help is None and command.callback is not None:
            command.short_help = (inspect.getdoc(command.callback) or "").partition("\n")[0]
    _registered = True


def fail(message: str, status: int = 2) -> typer.Exit:
    """Print ``rtsched: error: message`` on stderr; return the Exit to raise."""
    typer.echo(f"rtsched: error: {message}", err=True)
    return typer.Exit(status)


def _first_interrupt(signum: int, frame: Any) -> None:
    """SIGINT in the command line's own process: KeyboardInterrupt once, every later one ignored.

    A terminal signals the whole process group on each Ctrl-C, so two quick presses send two
    SIGINTs. The second used to land wherever the first one's unwinding had got to (click's
    Abort, the pool's shutdown, Numba's and the pools' atexit finalizers: "Exception ignored in
    atexit callback"); ignoring it from the first one on lets the exit finish as the first began
    it. Session 25 ignored SIGINT only once ``main`` caught the KeyboardInterrupt, which missed
    the second signal when it came earlier or when click had turned the first into Abort.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    """Console-script entry point; returns the exit status."""
    _register_commands()
    args = sys.argv[1:] if argv is None else list(argv)
    # Only the command line's own process (tests calling main([...]) keep their handlers).
    own = argv is None and threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGINT, _first_interrupt) if own else None
    try:
        # In a copy of the caller's context: a command's display settings (--exact-numbers,
        # --evidence: rtsched.result's context variables) end with it, also for main([...]) in a script.
        return contextvars.copy_context().run(_main, args)
    finally:
        if own and previous is not None and signal.getsignal(signal.SIGINT) is _first_interrupt:
            signal.signal(signal.SIGINT, previous)  # no Ctrl-C came: as it was


def _main(args: list[str]) -> int:
    """:func:`main`'s body: run the command line ``args``; every way it ends is one exit status."""
    try:
        status = app(args=args, prog_name="rtsched", standalone_mode=False)
    except InputError as err:
        typer.echo(f"rtsched: error: {err}", err=True)
        return 2
    except typer.BadParameter as err:  # a value click could not convert: one line, like ours
        if err.param is None or err.param.param_type_name != "option" or not err.message:  # e.g. missing
            err.show()
            return err.exit_code
        typer.echo(f"rtsched: error: {_bad_value(err, args)}", err=True)
        return 2
    except _CLICK_ERROR as err:  # usage errors (missing argument, unknown option): click's usage
        err.show()
        return err.exit_code
    except typer.Abort:  # end of input at a prompt
        typer.echo("rtsched: interrupted", err=True)
        return 130
    except SystemExit as ex:
        code = ex.code
        return code if isinstance(code, int) else (0 if code is None else 1)
    except KeyboardInterrupt:  # (in the command line's own process, later Ctrl-Cs are ignored: _first_interrupt)
        typer.echo("rtsched: interrupted", err=True)
        return 130
    except Exception:  # a bug of ours: never let it look like a verdict (status 1)
        traceback.print_exc()
        typer.echo(
            f"rtsched: internal error (rtsched {__version__}); please report it with the command and input above",
            err=True,
        )
        return INTERNAL_ERROR
    return status if isinstance(status, int) else 0  # typer.Exit(code) returns its code here


def _bad_value(err: typer.BadParameter, args: list[str]) -> str:
    """``field -m/--processors: 'abc' is not ...``: the option, the value given, click's reason."""
    opts = err.param.opts if err.param is not None else []
    given = None
    for i, arg in enumerate(args):
        name, eq, value = arg.partition("=")
        if name in opts and eq:
            given = value
        elif arg in opts and i + 1 < len(args):
            given = args[i + 1]
        elif len(arg) > 2 and arg[:2] in opts and not arg.startswith("--"):  # -mabc
            given = arg[2:]
    reason = err.message.rstrip(".")
    if "valid integer" in reason:  # click's or pydantic's words for an int option, in ours
        reason = "expected a whole number"
    elif "valid number" in reason or "valid float" in reason:
        reason = "expected a number"
    value = "" if given is None else f"bad value {given!r}: "
    return f"field {'/'.join(opts)}: {value}{reason}"


def _show_version(value: bool) -> None:
    if value:
        typer.echo(f"rtsched {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", "-V", callback=_show_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """Schedulability analysis of sporadic real-time task sets on multiprocessors."""


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
