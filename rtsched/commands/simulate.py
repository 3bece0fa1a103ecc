"""``rtsched simulate FILE -m M``: run the G-EDF / P-EDF simulator, optionally draw a Gantt chart.

See papers/simulator.md for the semantics (integer ticks, the tie rule between equal deadlines —
``--ties index|fifo|random[:SEED]`` —, release models, what a miss proves).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from rtsched.errors import InputError
from rtsched.io import read_tasksets
from rtsched.model import TaskSet

__all__ = ["parse_policy", "register"]


def parse_policy(policy: str, taskset: TaskSet, m: int) -> tuple[str, list[int] | None]:
    """``gedf`` → global; ``pedf:<assignment>`` → the processor of each task.

    ``<assignment>`` is a comma-separated list of processor indices (one per task), or the
    registry name of a partitioned analysis whose explanation gives an assignment (e.g.
    ``p-edf`` or ``p:ff:density:qpa``); that analysis must place every task.
    """
    if policy == "gedf":
        return "gedf", None
    if not policy.startswith("pedf:") or policy == "pedf:":
        raise InputError(f"unknown policy {policy!r}; use gedf or pedf:<analysis name or processor list>", field="--policy")
    spec = policy[len("pedf:") :]
    cells = [c.strip() for c in spec.split(",")]
    if all(c.lstrip("-").isdigit() for c in cells):
        partition = [int(c) for c in cells]
        if len(partition) != taskset.n:
            raise InputError(f"{policy}: {len(partition)} processor indices for {taskset.n} tasks", field="--policy")
        return "pedf", partition
    from rtsched.registry import get

    entry = get(spec)
    if entry.policy != "partitioned-edf":
        raise InputError(f"{policy}: {spec!r} is not a partitioned EDF analysis", field="--policy")
    result = entry.explain(taskset, m)
    assignment = result.evidence.get("assignment")
    if assignment is None:
        raise InputError(f"{policy}: {spec!r} does not give an assignment", field="--policy")
    if any(a is None for a in assignment):
        unplaced = [i for i, a in enumerate(assignment) if a is None]
        raise InputError(f"{policy}: {spec!r} could not place task(s) {unplaced}: {result.summary}", field="--policy")
    return "pedf", [int(a) for a in assignment]


def simulate_command(
    file: Annotated[str, typer.Argument(help="Task-set file (YAML, JSON, JSON lines, CSV, text) or - for stdin.")],
    processors: Annotated[int, typer.Option("-m", "--processors", help="Number of identical processors.")],
    policy: Annotated[
        str, typer.Option("--policy", help="gedf, or pedf:<partitioned analysis name> / pedf:<cpu,cpu,...> (one per task).")
    ] = "gedf",
    horizon: Annotated[
        int | None, typer.Option("--horizon", help="Simulated ticks (default: hyperperiod if periodic, 200·max T if sporadic).")
    ] = None,
    arrivals: Annotated[str, typer.Option("--arrivals", help="periodic (synchronous) or sporadic (random delays).")] = "periodic",
    seed: Annotated[int, typer.Option("--seed", help="Seed of the sporadic arrivals.")] = 0,
    ties: Annotated[
        str,
        typer.Option(
            "--ties",
            help="Tie rule between equal deadlines: index (lowest task index), fifo (earlier release, then index) "
            "or random[:SEED] (a seeded random priority per job, then index; default seed 0).",
        ),
    ] = "index",
    gantt: Annotated[str | None, typer.Option("--gantt", help="Write a Gantt chart (PNG/PDF/SVG) to this path.")] = None,
    gantt_rows: Annotated[str, typer.Option("--gantt-rows", help="processors or tasks.")] = "processors",
    gantt_since: Annotated[
        int | None, typer.Option("--gantt-since", help="First tick drawn (default: 80 ticks before the end).")
    ] = None,
    gantt_until: Annotated[int | None, typer.Option("--gantt-until", help="Last tick drawn (default: the end of the run).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object per task set (with the event tables).")] = False,
    fmt: Annotated[str | None, typer.Option("--format", help="yaml, json, jsonl, csv or txt (default: by extension).")] = None,
) -> None:
    """Simulate task sets under global or partitioned EDF until the first deadline miss.

    Exit status: 0 if no set missed a deadline within the horizon, 1 if one did, 2 on bad input.
    A miss proves the set unschedulable under that policy and tie rule; no miss proves nothing
    beyond the simulated release pattern and tie rule (``rtsched check --tests exact`` decides
    small sets for every release pattern and every tie rule).
    """
    from rtsched.kernels import check_processors
    from rtsched.sim import parse_ties, simulate
    from rtsched.sim.gantt import save_gantt

    m = check_processors(processors)
    try:
        parse_ties(ties)
    except InputError as exc:
        raise InputError(exc.message, field="--ties") from exc
    if arrivals not in ("periodic", "sporadic"):
        raise InputError(f"--arrivals must be periodic or sporadic, got {arrivals!r}", field="--arrivals")
    if gantt_rows not in ("processors", "tasks"):
        raise InputError(f"--gantt-rows must be processors or tasks, got {gantt_rows!r}", field="--gantt-rows")
    sets = read_tasksets(file if file == "-" else Path(file), format=fmt)
    any_miss = False
    for index, ts in enumerate(sets):
        kind, partition = parse_policy(policy, ts, m)
        # the event tables are recorded only when something shows them (a long run stays cheap)
        record = gantt is not None or as_json
        trace = simulate(
            ts, m, policy=kind, partition=partition, arrivals=arrivals, seed=seed, horizon=horizon, record=record, ties=ties  # type: ignore[arg-type]
        )
        any_miss |= trace.miss is not None
        if gantt is not None:
            path = Path(gantt)
            if len(sets) > 1:
                path = path.with_name(f"{path.stem}-{index}{path.suffix}")
            save_gantt(trace, path, rows=gantt_rows, since=gantt_since, until=gantt_until)  # type: ignore[arg-type]
        if as_json:
            typer.echo(json.dumps({"index": index, **trace.to_dict()}))
        else:
            prefix = f"[{index}] " if len(sets) > 1 else ""
            typer.echo(prefix + trace.summary())
            if gantt is not None:
                typer.echo(f"{' ' * len(prefix)}Gantt chart: {path}")
    raise typer.Exit(1 if any_miss else 0)


def register(app: typer.Typer) -> None:
    """Add ``simulate`` to the CLI."""
    app.command("simulate")(simulate_command)
