"""``rtsched plot-demand FILE -m M -o dbf.png``: a task set's demand against a supply, for a lecture slide.

The total demand bound function h(t) = Σ_i dbf_i(t), dbf_i(t) = max(0, ⌊(t − D_i)/T_i⌋ + 1)·C_i
(Baruah, Rosier, Howell, Real-Time Systems 2(4), 1990), drawn as a step function against the
supply m·t of m dedicated processors (h(t) ≤ m·t at every t is necessary on m processors) and,
with ``--mpr Π,Θ,m'``, against the worst-case supply sbf(t) of that MPR interface and its linear
bound lsbf(t) (Shin, Easwaran, Lee, ECRTS 2008; sbf as corrected by Easwaran, Shin, Lee, RTS 2009:
:func:`rtsched.analyses.hierarchical.mpr.sbf`). Points where h(t) exceeds a supply are marked.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import numpy as np
import typer

from rtsched.commands import InputFormat, TaskSetFile, TimeUnit, check_image_path
from rtsched.errors import InputError
from rtsched.result import count

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from rtsched.model import TaskSet

__all__ = ["demand_figure", "register", "total_demand"]

#: Default horizon: this many times the largest D_i + T_i (at least 20 ticks), at most MAX_HORIZON.
_HORIZON_FACTOR = 2
MAX_HORIZON = 100_000


def total_demand(ts: TaskSet, t: np.ndarray) -> np.ndarray:
    """h(t) = Σ_i max(0, ⌊(t − D_i)/T_i⌋ + 1)·C_i for every integer t in ``t`` (int64)."""
    t = np.asarray(t, dtype=np.int64)[:, None]
    jobs = np.maximum(0, np.floor_divide(t - ts.D[None, :], ts.T[None, :]) + 1)
    return (jobs * ts.C[None, :]).sum(axis=1)


def demand_figure(
    ts: TaskSet, m: int | None = None, mpr: tuple[int, int, int] | None = None, horizon: int | None = None
) -> Figure:
    """The figure: h(t) against m·t (if ``m``) and against the sbf and lsbf of ``mpr`` = (Π, Θ, m')."""
    from matplotlib.figure import Figure  # no pyplot: no global state, works with any backend

    from rtsched.analyses.theory.supply import MPRInterface

    if m is None and mpr is None:
        raise InputError("give a supply: -m M and/or --mpr Π,Θ,m'", field="-m")
    if horizon is None:
        horizon = max(20, _HORIZON_FACTOR * int(max(ts.D + ts.T)))
        if mpr is not None:
            horizon = max(horizon, 4 * mpr[0])
        horizon = min(horizon, MAX_HORIZON)
    t = np.arange(0, horizon + 1, dtype=np.int64)
    h = total_demand(ts, t)
    fig = Figure(figsize=(8, 4.5), layout="constrained")
    ax = fig.add_subplot()
    ax.step(t, h, where="post", color="black", linewidth=1.8, label="demand h(t) = Σ dbf_i(t)")
    over: list[np.ndarray] = []
    if m is not None:
        ax.plot(t, m * t, color="tab:blue", linewidth=1.2, label=f"m·t (m = {m})")
        over.append(h > m * t)
    if mpr is not None:
        g = MPRInterface(*mpr)
        supply = g.sbf(t)
        ax.step(t, supply, where="post", color="tab:green", linewidth=1.4, label=f"sbf(t) of {g}")
        line = np.array([float(x) for x in g.lsbf(t)])
        ax.plot(
            t, np.maximum(line, 0), color="tab:green", linestyle="--", linewidth=1.0, label="lsbf(t) (clipped at 0)"
        )
        over.append(h > supply)
    if over:
        bad = np.logical_or.reduce(over)
        if bad.any():
            ax.plot(t[bad], h[bad], "x", color="firebrick", markersize=6, label="demand exceeds a supply")
    ax.set_xlim(0, horizon)
    ax.set_ylim(0, max(int(h.max()), 1) * 1.15)
    ax.set_xlabel("interval length t (ticks)")
    ax.set_ylabel("processor time")
    name = ts.name or "task set"
    ax.set_title(f"{name}: demand bound vs supply (n = {ts.n}, U = {float(ts.utilization):.3g})")
    ax.grid(True, alpha=0.3)
    ax.legend(loc="upper left", fontsize=9)
    return fig


def _parse_mpr(text: str) -> tuple[int, int, int]:
    from rtsched.analyses.theory.supply import validate_interface

    parts = [p.strip() for p in text.replace("⟨", "").replace("⟩", "").split(",")]
    if len(parts) != 3 or not all(p.isdigit() for p in parts):
        raise InputError(f"bad --mpr {text!r}: expected Π,Θ,m' as three positive integers, e.g. 5,3,2", field="--mpr")
    try:
        return validate_interface(int(parts[0]), int(parts[1]), int(parts[2]))
    except InputError as err:
        raise InputError(f"bad --mpr {text!r}: {err.message}", field="--mpr") from None


def plot_demand_command(
    file: TaskSetFile,
    processors: Annotated[
        int | None, typer.Option("-m", "--processors", help="Draw the supply m·t of m processors.")
    ] = None,
    mpr: Annotated[
        str | None, typer.Option("--mpr", help="Draw the sbf and lsbf of the MPR interface Π,Θ,m' (e.g. 5,3,2).")
    ] = None,
    output: Annotated[str, typer.Option("-o", "--output", help="Image file (PNG, PDF or SVG by extension).")] = (
        "demand.png"
    ),
    horizon: Annotated[
        int | None, typer.Option("--horizon", help="Largest t shown (default: 2·max(D + T), at least 20).")
    ] = None,
    index: Annotated[int, typer.Option("--index", help="Which set of a many-set file (0 = first).")] = 0,
    fmt: InputFormat = None,
    time_unit: TimeUnit = None,
) -> None:
    """Plot a task set's demand bound function against m·t and/or an MPR interface's sbf and lsbf."""
    from rtsched.io import read_tasksets
    from rtsched.kernels import check_processors

    if processors is not None:
        try:
            check_processors(processors)
        except InputError as err:
            raise InputError(err.message, field="-m") from None
        except ValueError as err:
            raise InputError(str(err), field="-m") from None
    interface = _parse_mpr(mpr) if mpr is not None else None
    if processors is None and interface is None:
        raise InputError("give a supply to draw: -m M and/or --mpr Π,Θ,m'", field="-m")
    if horizon is not None and not 1 <= horizon <= MAX_HORIZON:
        raise InputError(f"--horizon must be between 1 and {MAX_HORIZON}, got {horizon}", field="--horizon")
    check_image_path(output, "--output")
    sets = read_tasksets(file if file == "-" else Path(file), format=fmt, time_unit=time_unit)
    if not 0 <= index < len(sets):
        raise InputError(f"--index {index} is out of range: the file holds {count(len(sets), 'set')}", field="--index")
    fig = demand_figure(sets[index], processors, interface, horizon)
    try:
        fig.savefig(output, dpi=150)
    except OSError as err:
        raise InputError(f"cannot write {output}: {err.strerror}", field="--output") from None
    typer.echo(f"wrote {output}")


def register(app: typer.Typer) -> None:
    """Add ``plot-demand`` to the CLI."""
    app.command("plot-demand")(plot_demand_command)
