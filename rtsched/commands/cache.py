"""``rtsched cache``: where compiled kernels are cached, how much space they take, clearing them."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Annotated, Any

import typer

__all__ = ["probe_for", "register"]


def _size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) if folder.is_dir() else 0


def cache_command(
    clear: Annotated[
        bool, typer.Option("--clear", help="Delete rtsched's cache folder (kernels recompile on next use).")
    ] = False,
    compile_all: Annotated[
        bool, typer.Option("--compile", help="Compile every analysis now (e.g. when building an image).")
    ] = False,
) -> None:
    """Show rtsched's cache folder for compiled kernels, or clear it.

    Compiled Numba kernels are cached per user, outside the installed package: in
    $RTSCHED_CACHE_DIR if set, else the platform's user cache folder (~/.cache/rtsched on Linux).
    NUMBA_CACHE_DIR, if set, takes precedence for the kernels. `pip uninstall rtsched` does not
    touch this folder: run `rtsched cache --clear` first to remove it too.
    """
    from rtsched import _bootstrap

    folder = _bootstrap.cache_dir()
    in_use = _bootstrap.install_numba_cache()
    if clear:
        size = _size(folder)
        shutil.rmtree(folder, ignore_errors=True)
        typer.echo(f"removed {folder} ({size / 2**20:.1f} MiB)")
        if not compile_all:  # --clear --compile: a clean cache, then every kernel compiled afresh
            return
    if compile_all:
        _compile_all()
    typer.echo(f"cache folder: {folder} ({_size(folder) / 2**20:.1f} MiB)")
    if in_use is None:
        typer.echo("kernels: cached where NUMBA_CACHE_DIR says (it is set)")
    else:
        typer.echo(f"kernels of this version: {in_use}")


def probe_for(name: str) -> tuple[Any, Any]:
    """The probe input of analysis ``name`` and the platform to run it on (:mod:`rtsched.warmup`).

    Its workload kind's probe (:meth:`rtsched.workloads.WorkloadKind.probe`): for task sets,
    implicit deadlines where the analysis needs them, 1 processor for the uniprocessor analyses
    and 2 for the others; for GPU workloads, 2 compute clusters.
    """
    from rtsched import registry

    entry = registry.get(name)
    return entry.workload.probe(entry.deadlines, entry.platform)


def _compile_probe(name: str) -> None:
    """Run analysis ``name`` on its probe (:func:`probe_for`), and on one set of it, in this process.

    The one set exercises the serial kernel :func:`rtsched.check` calls. Module level: pool
    workers pickle it.
    """
    from rtsched import registry

    entry = registry.get(name)
    batch, platform = probe_for(name)
    entry.status(batch, platform)
    entry.verdict(batch[0], platform)


def _compile_all() -> None:
    import os

    from rtsched import registry
    from rtsched.result import count
    from rtsched.warmup import compile_analyses

    names = [e.name for e in registry.all_entries()]
    seconds = compile_analyses(names, _compile_probe, workers=os.cpu_count() or 1, force=True)
    typer.echo(f"compiled {count(len(names), 'analysis', 'analyses')} in {seconds:.1f} s")


def register(app: typer.Typer) -> None:
    """Add ``cache`` to the CLI."""
    app.command("cache")(cache_command)
