"""``rtsched simulate FILE -m M``: run the G-EDF / P-EDF / G-FP / P-FP simulator, optionally draw a Gantt chart.

``--policy``: ``gedf`` (default), ``gfp`` (global fixed priorities), ``pedf`` / ``pfp``
(partitioned EDF / FP). Fixed priorities are the order of the tasks in the file (index 0
highest). A partitioned policy takes its processor assignment from

* ``pedf`` / ``pfp`` alone: the assignment of the featured partitioned analysis of that policy,
  ``p-edf`` (first fit, density order, QPA) or ``p-fp`` (first fit, deadline order, RTA
  admission; tasks keep their relative priority order on each processor);
* ``pedf:<name>`` / ``pfp:<name>``: the assignment of another registered partitioned analysis of
  the same policy (``p:wf:utilization:qpa``, ``p:bf:density:rta``, ...);
* ``pedf:<cpu,cpu,...>`` / ``pfp:<cpu,cpu,...>``: an explicit processor index per task.

An analysis that cannot place every task is an input error naming the unplaced tasks (simulate
them with an explicit list): the simulator never invents a placement the analysis refused.

See papers/simulator.md for the semantics (integer ticks, the tie rule between equal deadlines —
``--ties index|fifo|random[:SEED]``, EDF only —, release models, what a miss proves).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from rtsched.commands import Deadlines, TaskSetFile, TimeUnit, check_image_path
from rtsched.commands._dag import AnyFormat, Kind
from rtsched.errors import InputError
from rtsched.io import read_tasksets
from rtsched.model import TaskSet

if TYPE_CHECKING:
    from rtsched.sim.trace import Trace

__all__ = ["parse_policy", "register"]


#: Per partitioned policy: the registry policy of its analyses, their name in messages, and the
#: analysis whose assignment ``pedf`` / ``pfp`` alone uses.
_PARTITIONED = {
    "pedf": ("partitioned-edf", "partitioned EDF", "p-edf"),
    "pfp": ("partitioned-fp", "partitioned FP", "p-fp"),
}


def _processor(cell: object) -> int | None:
    """One cell of an analysis's assignment: an index, ``"P3"``, or ``None`` / ``"-"`` (unplaced)."""
    if cell is None:
        return None
    if isinstance(cell, str):
        text = cell.strip()
        if text in ("", "-"):
            return None
        return int(text[1:] if text[:1] in ("P", "p") else text)
    return int(cell)  # type: ignore[call-overload]


def parse_policy(policy: str, taskset: TaskSet, m: int) -> tuple[str, list[int] | None]:
    """``gedf`` / ``gfp`` → global; ``pedf`` / ``pfp`` (``[:<assignment>]``) → the processor of each task.

    ``<assignment>`` is a comma-separated list of processor indices (one per task), or the
    registry name of a partitioned analysis of the same policy whose explanation gives an
    assignment (e.g. ``p-edf``, ``p:ff:density:qpa``, ``p-fp``, ``p:wf:utilization:rta``); that
    analysis must place every task. Without ``:<assignment>``, ``pedf`` uses ``p-edf`` and
    ``pfp`` uses ``p-fp``.
    """
    if policy in ("gedf", "gfp"):
        return policy, None
    kind, sep, spec = policy.partition(":")
    if kind not in _PARTITIONED or (sep and not spec.strip()):
        raise InputError(
            f"unknown policy {policy!r}; use gedf, gfp, pedf[:<analysis name or processor list>] "
            "or pfp[:<analysis name or processor list>]",
            field="--policy",
        )
    registry_policy, title, default = _PARTITIONED[kind]
    spec = spec.strip() or default
    cells = [c.strip() for c in spec.split(",")]
    if all(c.lstrip("-").isdigit() for c in cells):
        partition = [int(c) for c in cells]
        if len(partition) != taskset.n:
            raise InputError(f"{policy}: {len(partition)} processor indices for {taskset.n} tasks", field="--policy")
        return kind, partition
    from rtsched.registry import get

    entry = get(spec)
    if entry.policy != registry_policy:
        raise InputError(f"{policy}: {spec!r} is not a {title} analysis", field="--policy")
    result = entry.explain(taskset, m)
    assignment = result.evidence.get("assignment")
    if assignment is None:
        raise InputError(f"{policy}: {spec!r} does not give an assignment", field="--policy")
    processors = [_processor(a) for a in assignment]
    if any(a is None for a in processors):
        unplaced = [i for i, a in enumerate(processors) if a is None]
        raise InputError(
            f"{policy}: {spec!r} could not place task(s) {unplaced}: {result.summary} "
            f"(give {kind}:<cpu,cpu,...> to simulate a placement of your own)",
            field="--policy",
        )
    return kind, [int(a) for a in processors]  # type: ignore[arg-type]


def simulate_command(
    file: TaskSetFile,
    processors: Annotated[int, typer.Option("-m", "--processors", help="Number of identical processors.")],
    policy: Annotated[
        str | None,
        typer.Option(
            "--policy",
            help="gedf (global EDF, the default), gfp (global fixed priorities: the task order, first highest), "
            "pedf / pfp (partitioned EDF / FP with p-edf's / p-fp's assignment), "
            "pedf:<analysis> / pfp:<analysis> (another partitioned analysis's assignment) or "
            "pedf:<cpu,cpu,...> / pfp:<cpu,cpu,...> (one processor per task). "
            "Mixed-criticality task sets: amc (LO jobs dropped at the mode switch, the default) or smc (kept).",
            show_default=False,
        ),
    ] = None,
    horizon: Annotated[
        int | None, typer.Option("--horizon", help="Simulated ticks (default: hyperperiod if periodic, 200·max T if sporadic).")
    ] = None,
    arrivals: Annotated[str, typer.Option("--arrivals", help="periodic (synchronous) or sporadic (random delays).")] = "periodic",
    seed: Annotated[int, typer.Option("--seed", help="Seed of the sporadic arrivals.")] = 0,
    ties: Annotated[
        str,
        typer.Option(
            "--ties",
            help="Tie rule between equal deadlines (EDF policies): index (lowest task index), fifo (earlier release, "
            "then index) or random[:SEED] (a seeded random priority per job, then index; default seed 0).",
        ),
    ] = "index",
    tardiness: Annotated[
        bool,
        typer.Option(
            "--tardiness",
            help="Sporadic task sets: keep running after deadline misses (late jobs keep executing, FIFO within a task) "
            "and print each task's observed maximum tardiness, next to Devi and Anderson's bound x + e_k (tardiness-da) "
            "for global EDF with implicit deadlines and U <= m. Ties index or fifo.",
        ),
    ] = False,
    gantt: Annotated[str | None, typer.Option("--gantt", help="Write a Gantt chart (PNG/PDF/SVG) to this path.")] = None,
    gantt_rows: Annotated[str, typer.Option("--gantt-rows", help="processors or tasks.")] = "processors",
    gantt_since: Annotated[
        int | None, typer.Option("--gantt-since", help="First tick drawn (default: 0, or 400 ticks before the end of a longer run).")
    ] = None,
    gantt_until: Annotated[int | None, typer.Option("--gantt-until", help="Last tick drawn (default: the end of the run).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object per task set (with the event tables).")] = False,
    execution: Annotated[
        str,
        typer.Option(
            "--execution",
            help="wcet (default, every job runs its WCET) or random (seeded by --seed): sporadic tasks and DAG vertices "
            "uniform in [1, WCET]; CPU–GPU segmented sets: each segment part uniform in [0, WCET].",
        ),
    ] = "wcet",
    protocol: Annotated[
        str,
        typer.Option(
            "--protocol",
            help="CPU–GPU segmented task sets: GPU access protocol mpcp (priority queue, default), fmlp+ (FIFO queue), "
            "none (no contention), gcaps (preemptive GPU priorities) or tsg-rr (the driver's round robin, needs "
            "--time-slice).",
        ),
    ] = "mpcp",
    time_slice: Annotated[
        int | None,
        typer.Option(
            "--time-slice",
            help="CPU–GPU segmented task sets, --protocol tsg-rr: the time slice in ticks (default: the file's driver "
            "section).",
        ),
    ] = None,
    epsilon: Annotated[
        int | None,
        typer.Option(
            "--epsilon",
            help="CPU–GPU segmented task sets, --protocol gcaps or tsg-rr: device ticks each GPU context switch costs "
            "(default: the file's driver section, else 0).",
        ),
    ] = None,
    gpu_priorities: Annotated[
        str | None,
        typer.Option(
            "--gpu-priorities",
            help="CPU–GPU segmented task sets, --protocol gcaps: each task's GPU rank, comma-separated in task order, "
            "0 highest (default: the task order).",
        ),
    ] = None,
    mode: Annotated[
        str,
        typer.Option(
            "--mode",
            help="CPU–GPU segmented task sets: how tasks that name no mode wait for the GPU, suspend (default) or busy.",
        ),
    ] = "suspend",
    scheduler: Annotated[
        str | None,
        typer.Option(
            "--scheduler",
            help="Mixed-criticality task sets: fp (default on -m 1; priorities --priorities), edf, edf-vd (--x), "
            "partitioned[:fp|edf|edf-vd] (--partition), global-fp or global-edf-vd (--x).",
        ),
    ] = None,
    scenario: Annotated[
        str | None,
        typer.Option(
            "--scenario",
            help="Mixed-criticality task sets: hi (every HI job runs C(HI), the default), lo (every job C(LO)), "
            "random (each HI job overruns with probability 1/2, seeded by --seed) or explicit (--overrun).",
        ),
    ] = None,
    overrun: Annotated[
        list[str] | None,
        typer.Option(
            "--overrun",
            help="Mixed-criticality task sets: TASK:JOB[:DEMAND], a HI job that overruns its C(LO) (demand C(HI) by "
            "default; job counts the task's arrivals from 0); repeatable; implies --scenario explicit.",
        ),
    ] = None,
    switch_search: Annotated[
        bool,
        typer.Option(
            "--switch-search",
            help="Mixed-criticality task sets: one run per HI job of the hyperperiod, that job overrunning to C(HI) "
            "(and every HI job pending at the switch or released after it); a failure in any run fails.",
        ),
    ] = False,
    priorities: Annotated[
        str | None,
        typer.Option(
            "--priorities",
            help="Mixed-criticality task sets, fixed priorities: task indices from the highest priority, "
            "comma-separated, or an mc-* fixed-priority analysis whose order to use (mc-amc-max-opa); "
            "default: the file's order.",
        ),
    ] = None,
    mc_partition: Annotated[
        str | None,
        typer.Option(
            "--partition",
            help="Mixed-criticality task sets, --scheduler partitioned: each task's core, comma-separated, or a "
            "partitioned mc-* analysis whose assignment to use (mc-pfp-ff-amc-max, mc-p-edf-vd, ...).",
        ),
    ] = None,
    x: Annotated[
        str | None,
        typer.Option(
            "--x",
            help="Mixed-criticality task sets, EDF-VD: the virtual-deadline factor in (0, 1] (3/4), one per core "
            "comma-separated for partitioned edf-vd; default for edf-vd: the x of mc-edf-vd.",
        ),
    ] = None,
    fmt: AnyFormat = None,
    kind: Kind = "auto",
    deadlines: Deadlines = "constrained",
    time_unit: TimeUnit = None,
) -> None:
    """Simulate task sets under global or partitioned EDF or fixed priorities until the first deadline miss.

    Exit status: 0 if no set missed a deadline within the horizon, 1 if one did, 2 on bad input.
    A miss proves the set unschedulable under that policy and tie rule; no miss proves nothing
    beyond the simulated release pattern and tie rule (``rtsched check --tests exact`` decides
    small sets for every release pattern and every tie rule under G-EDF, ``--tests exact-gfp``
    under global FP). Fixed priorities (gfp, pfp) are the task order in the file.

    DAG task sets (.dot/.gv files, YAML/JSON whose tasks have 'vertices', the DAG survey library's
    YAML; --kind dag for stdin) are simulated vertex by vertex under gedf or gfp
    (rtsched.dag.simulate_dag; default horizon: the hyperperiod if periodic, 200·max T if sporadic,
    at most 10^6 ticks), and --gantt draws one row per processor, the vertices of one job in one
    colour. See papers/dag-model.md, section "Simulator".

    CPU–GPU segmented task sets (YAML/JSON whose tasks have 'segments') are simulated on -m CPU
    cores, partitioned fixed priority (each task's core), the GPU devices under --protocol
    (mpcp, fmlp+, none, or the preemptive gcaps with --gpu-priorities and tsg-rr with
    --time-slice, both with --epsilon ticks per GPU context switch) and --mode for the tasks
    that name no mode
    (rtsched.segmented.simulate_segmented; default horizon: the hyperperiod if periodic, 200·max T
    if sporadic, at most 10^6 ticks); --gantt draws a row per core and per device. See
    papers/cpu-gpu-simulator.md.

    Mixed-criticality task sets (YAML/JSON with C_LO/C_HI keys, CSV with a level column) are
    simulated with mode switches (rtsched.mc.simulate_mc) under --scheduler and --policy amc|smc,
    the jobs' demands set by --scenario or --overrun, or, with --switch-search, once per HI job of
    the hyperperiod overrunning (rtsched.mc.switch_search); --execution random runs the jobs that do
    not overrun a seeded uniform [1, C(LO)]. Exit status 1 on a failure: a miss
    in LO mode or of a HI job (a LO job late in HI mode under SMC is not one). See
    papers/mc-simulator.md.
    """
    from rtsched.kernels import check_processors
    from rtsched.sim import parse_ties, simulate
    from rtsched.sim.gantt import save_gantt

    try:
        m = check_processors(processors)
    except InputError as err:
        raise InputError(err.message, field="-m") from None
    mc_policy, policy = policy, "gedf" if policy is None else policy
    try:
        parse_ties(ties)
    except InputError as exc:
        raise InputError(exc.message, field="--ties") from exc
    if arrivals not in ("periodic", "sporadic"):
        raise InputError(f"--arrivals must be periodic or sporadic, got {arrivals!r}", field="--arrivals")
    if ties != "index" and (policy.startswith("pfp") or policy == "gfp"):
        raise InputError(f"--ties {ties}: fixed priorities (gfp, pfp) never tie; --ties applies to gedf and pedf", field="--ties")
    if gantt_rows not in ("processors", "tasks"):
        raise InputError(f"--gantt-rows must be processors or tasks, got {gantt_rows!r}", field="--gantt-rows")
    if gantt is not None:
        check_image_path(gantt, "--gantt")
    from rtsched.commands._mc import mc_format

    mc = mc_format(file, fmt, kind)
    mc_options = {
        "--scheduler": scheduler, "--scenario": scenario, "--overrun": overrun or None,
        "--switch-search": switch_search or None, "--priorities": priorities, "--partition": mc_partition, "--x": x,
    }  # fmt: skip
    if mc is None:
        for option, given in mc_options.items():
            if given is not None:
                raise InputError(f"{option} applies to mixed-criticality task sets", field=option)
    from rtsched.commands._segmented import segmented_format

    segmented = segmented_format(file, fmt, kind)
    if segmented is not None:  # CPU–GPU segmented task sets (issue #43)
        _refuse_tardiness(tardiness)
        from rtsched.commands._segmented import refuse_task_options as refuse_for_segmented

        refuse_for_segmented(
            {
                "--policy": (policy, "gedf"),
                "--ties": (ties, "index"),
                "--time-unit": (time_unit, None),
                "--deadlines": (deadlines, "constrained"),
                "--gantt-rows": (gantt_rows, "processors"),
            }
        )
        status = _simulate_segmented_file(
            file, segmented, m, protocol=protocol, mode=mode, horizon=horizon, arrivals=arrivals, seed=seed,
            execution=execution, gantt=gantt, gantt_since=gantt_since, gantt_until=gantt_until, as_json=as_json,
            time_slice=time_slice, epsilon=epsilon, gpu_priorities=gpu_priorities,
        )  # fmt: skip
        raise typer.Exit(status)
    for option, value, default in (
        ("--protocol", protocol, "mpcp"),
        ("--mode", mode, "suspend"),
        ("--time-slice", time_slice, None),
        ("--epsilon", epsilon, None),
        ("--gpu-priorities", gpu_priorities, None),
    ):
        if value != default:
            raise InputError(f"{option} applies to CPU–GPU segmented task sets", field=option)
    if mc is not None:  # mixed-criticality task sets (issue #44): rtsched.commands._mc
        _refuse_tardiness(tardiness)
        from rtsched.commands._mc import refuse_task_options as refuse_for_mc
        from rtsched.commands._mc import simulate_mc_file

        refuse_for_mc(
            {
                "--time-unit": (time_unit, None),
                "--deadlines": (deadlines, "constrained"),
                "--gantt-rows": (gantt_rows, "processors"),
            }
        )
        status = simulate_mc_file(
            file, mc, m, scheduler=scheduler, policy=mc_policy, scenario=scenario, overruns=list(overrun or ()),
            switch_search=switch_search, priorities=priorities, partition=mc_partition, x=x, horizon=horizon,
            arrivals=arrivals, seed=seed, ties=ties, execution=execution, gantt=gantt, gantt_since=gantt_since,
            gantt_until=gantt_until, as_json=as_json,
        )  # fmt: skip
        raise typer.Exit(status)
    from rtsched.commands._dag import dag_format

    dag = dag_format(file, fmt, kind)
    if dag is not None:
        _refuse_tardiness(tardiness)
        from rtsched.commands._dag import refuse_task_options, simulate_dag_file

        refuse_task_options(
            {
                "--time-unit": (time_unit, None),
                "--deadlines": (deadlines, "constrained"),
                "--gantt-rows": (gantt_rows, "processors"),
            }
        )
        status = simulate_dag_file(
            file, dag, m, policy=policy, horizon=horizon, arrivals=arrivals, seed=seed, ties=ties, execution=execution,
            gantt=gantt, gantt_since=gantt_since, gantt_until=gantt_until, as_json=as_json,
        )  # fmt: skip
        raise typer.Exit(status)
    if execution not in ("wcet", "random"):
        raise InputError(f"unknown --execution {execution!r}; choose wcet or random", field="--execution")
    sets = read_tasksets(file if file == "-" else Path(file), format=fmt, deadlines=deadlines, time_unit=time_unit)  # type: ignore[arg-type]
    any_miss = False
    for index, ts in enumerate(sets):
        kind, partition = parse_policy(policy, ts, m)
        # the event tables are recorded only when something shows them (a long run stays cheap)
        record = gantt is not None or as_json
        if tardiness:
            trace = _tardiness_run(ts, m, kind, partition, arrivals, seed, horizon, record, ties, as_json, gantt, gantt_rows,
                                   gantt_since, gantt_until, index, len(sets), execution)  # fmt: skip
            any_miss |= trace.miss is not None
            continue
        trace = simulate(
            ts, m, policy=kind, partition=partition, arrivals=arrivals, seed=seed, horizon=horizon, record=record, ties=ties,  # type: ignore[arg-type]
            execution=execution,  # type: ignore[arg-type]
        )  # fmt: skip
        if trace.miss is not None and not record:
            # The cheap run finds the first miss; the same run recorded names its job and the work
            # left (it stops at that miss too), so the line is the one --gantt prints.
            try:
                trace = simulate(
                    ts, m, policy=kind, partition=partition, arrivals=arrivals, seed=seed, horizon=horizon, ties=ties,  # type: ignore[arg-type]
                    execution=execution,  # type: ignore[arg-type]
                )  # fmt: skip
            except InputError:  # a trace too long to record: the miss without its job
                pass
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


def _refuse_tardiness(tardiness: bool) -> None:
    if tardiness:
        raise InputError("--tardiness applies to sporadic task sets (the task simulator)", field="--tardiness")


def _tardiness_run(
    ts: TaskSet, m: int, kind: str, partition: list[int] | None, arrivals: str, seed: int, horizon: int | None,
    record: bool, ties: str, as_json: bool, gantt: str | None, gantt_rows: str, gantt_since: int | None,
    gantt_until: int | None, index: int, n_sets: int, execution: str = "wcet",
) -> Trace:  # fmt: skip
    """``--tardiness``: one set run with ``after_miss="continue"``; prints its summary and per-task tardiness."""
    from fractions import Fraction

    from rtsched.result import show_number
    from rtsched.sim import simulate
    from rtsched.sim.gantt import save_gantt

    trace = simulate(
        ts, m, policy=kind, partition=partition, arrivals=arrivals, seed=seed, horizon=horizon, record=record,  # type: ignore[arg-type]
        ties=ties, after_miss="continue", execution=execution,  # type: ignore[arg-type]
    )  # fmt: skip
    bounds: list[Fraction] | None = None
    if kind == "gedf" and ts.is_implicit:
        from rtsched.registry import get  # the registry: the core imports no analysis family (.importlinter)

        explained = get("tardiness-da").explain(ts, m)
        bounds = [Fraction(row["bound"]) for row in explained.per_task] if explained.verdict is True else None
    if gantt is not None:
        path = Path(gantt)
        if n_sets > 1:
            path = path.with_name(f"{path.stem}-{index}{path.suffix}")
        save_gantt(trace, path, rows=gantt_rows, since=gantt_since, until=gantt_until)  # type: ignore[arg-type]
    if as_json:
        extra = {} if bounds is None else {"tardiness_bounds": [str(b) for b in bounds]}
        typer.echo(json.dumps({"index": index, **trace.to_dict(), **extra}))
        return trace
    prefix = f"[{index}] " if n_sets > 1 else ""
    pad = " " * len(prefix)
    typer.echo(prefix + trace.summary())
    assert trace.tardiness is not None
    for i, seen in enumerate(trace.tardiness):
        bound = "" if bounds is None else f" (Devi–Anderson bound {show_number(bounds[i])})"
        typer.echo(f"{pad}  {ts.label(i)}: observed tardiness {seen}{bound}")
    if gantt is not None:
        typer.echo(f"{pad}Gantt chart: {path}")
    return trace


def _simulate_segmented_file(
    file: str,
    fmt: str,
    m: int,
    *,
    protocol: str,
    mode: str,
    horizon: int | None,
    arrivals: str,
    seed: int,
    execution: str,
    gantt: str | None,
    gantt_since: int | None,
    gantt_until: int | None,
    as_json: bool,
    time_slice: int | None = None,
    epsilon: int | None = None,
    gpu_priorities: str | None = None,
) -> int:
    """``rtsched simulate`` of a CPU–GPU segmented file (:func:`rtsched.segmented.simulate_segmented`).

    Prints each set's outcome (the first miss, or none), writes a Gantt chart per set with
    ``gantt`` (:func:`rtsched.segmented.gantt.save_segmented_gantt`) and returns the exit status:
    1 if a set missed a deadline, else 0. A task without a core, or with one beyond ``-m``, is
    bad input naming the file, the set and the task. ``gpu_priorities`` is the text of
    ``--gpu-priorities`` (comma-separated ranks in task order).
    """
    from rtsched.segmented.files import read_segmented_tasksets
    from rtsched.segmented.gantt import save_segmented_gantt
    from rtsched.segmented.sim import simulate_segmented

    ranks: list[int] | None = None
    if gpu_priorities is not None:
        try:
            ranks = [int(cell) for cell in gpu_priorities.split(",")]
        except ValueError:
            raise InputError(
                f"expected comma-separated integer ranks, got {gpu_priorities!r}", field="--gpu-priorities"
            ) from None
    sets = read_segmented_tasksets(file, fmt)
    any_miss = False
    for index, ts in enumerate(sets):
        try:
            ts.check_cores(m)
        except InputError as err:
            raise err.located(file=file, set_index=index if len(sets) > 1 else None) from None
        try:
            trace = simulate_segmented(
                ts, m, protocol=protocol, mode=mode, horizon=horizon, arrivals=arrivals, execution=execution,  # type: ignore[arg-type]
                seed=seed, record=gantt is not None or as_json, time_slice=time_slice, epsilon=epsilon,
                gpu_priorities=ranks,
            )  # fmt: skip
        except InputError as err:
            field = f"--{err.field.replace('_', '-')}" if err.field else None
            raise InputError(err.message, task=err.task, field=field) from None
        any_miss |= not trace.schedulable_so_far
        path = None
        if gantt is not None:
            path = Path(gantt)
            if len(sets) > 1:
                path = path.with_name(f"{path.stem}-{index}{path.suffix}")
            save_segmented_gantt(trace, path, since=gantt_since, until=gantt_until)
        if as_json:
            typer.echo(json.dumps({"index": index, **trace.to_dict()}))
        else:
            prefix = f"[{index}] " if len(sets) > 1 else ""
            typer.echo(prefix + trace.summary())
            if path is not None:
                typer.echo(f"{' ' * len(prefix)}Gantt chart: {path}")
    return 1 if any_miss else 0


def register(app: typer.Typer) -> None:
    """Add ``simulate`` to the CLI."""
    app.command("simulate")(simulate_command)
