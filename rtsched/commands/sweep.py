"""``rtsched sweep [EXPERIMENT.toml]``: run (or resume) an acceptance-ratio experiment."""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Iterator
from typing import Annotated, Any

import typer

__all__ = ["register"]


def sweep_command(
    experiment: Annotated[
        str | None,
        typer.Argument(help="Experiment file (TOML). Without it, the built-in default experiment runs."),
    ] = None,
    out: Annotated[
        str, typer.Option("--out", "-o", help="Experiment directory (results, plots, resume state).")
    ] = "rtsched-sweep",
    workers: Annotated[
        int | None,
        typer.Option("--workers", "-j", help="Worker processes (default: one per CPU); 0 runs in this process."),
    ] = None,
    executor: Annotated[
        str | None, typer.Option("--executor", help="inline, pool or dask (normally implied by --workers/--scheduler).")
    ] = None,
    scheduler: Annotated[
        str | None, typer.Option("--scheduler", help="Dask scheduler address tcp://HOST:PORT (needs rtsched[dask]).")
    ] = None,
    plot: Annotated[bool, typer.Option("--plot/--no-plot", help="Write acceptance.{png,pdf,svg} at the end.")] = True,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress output.")] = False,
    print_default: Annotated[
        bool, typer.Option("--print-default", help="Print the default experiment (TOML) and exit.")
    ] = False,
) -> None:
    """Run an acceptance-ratio experiment; rerunning the same command resumes it.

    Writes results.csv (acceptance ratio with 95% Wilson intervals per point, analysis and m),
    weighted.csv (weighted schedulability) and the plots into --out. A directory holding a
    different experiment is refused.
    """
    from rtsched.result import count
    from rtsched.sweep import DEFAULT_EXPERIMENT_TOML, run
    from rtsched.sweep.kinds import kind_named

    if print_default:
        typer.echo(DEFAULT_EXPERIMENT_TOML, nl=False)
        return
    try:
        with _terminate_as_interrupt():
            results = run(
                experiment,
                out,
                workers=workers,
                scheduler=scheduler,
                executor=executor,
                progress="none" if quiet else "auto",
                plot=plot,
            )
    except KeyboardInterrupt:  # the finished units are in the store: say how to go on (issue #46)
        typer.echo(
            f"rtsched sweep: interrupted; the finished units are kept in {out}: rerun the same command to resume",
            err=True,
        )
        raise
    for name, why in results.skipped:
        typer.echo(f"rtsched sweep: skipped {name}: {why}", err=True)
    if not quiet:
        reused = f" ({results.units_reused} found finished)" if results.units_reused else ""
        typer.echo(
            f"{count(results.units_total, 'unit')}{reused}, {results.sets} "
            f"{kind_named(results.experiment.generator_kind).inputs}, "
            f"{count(len(results.analyses), 'analysis', 'analyses')}, {results.elapsed:.1f} s"
        )
        for name in ("results.csv", "weighted.csv", "acceptance.png"):
            if name in results.files:
                typer.echo(f"wrote {results.files[name]}")


@contextlib.contextmanager
def _terminate_as_interrupt() -> Iterator[None]:
    """Within the block, SIGTERM (``kill``) stops the sweep as Ctrl-C does.

    Python's default SIGTERM ends the process at once: the pool workers were left to the
    multiprocessing resource tracker ("There appear to be 5 leaked semaphore objects") and no
    resume hint was printed (issue #46). Raised as KeyboardInterrupt in this process, it stops
    the pool (:func:`rtsched.pools.stop_pool`) and says how to resume; a forked worker that
    inherited the handler ends as before.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    owner = os.getpid()

    def handler(signum: int, frame: Any) -> None:
        if os.getpid() != owner:  # a forked worker: the default action
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGTERM)
            return
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def register(app: typer.Typer) -> None:
    """Add ``sweep`` to the CLI."""
    app.command("sweep")(sweep_command)
