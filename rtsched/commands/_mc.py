"""Mixed-criticality task-set files in ``rtsched check``, ``simulate`` and ``generate`` (issue #44).

Which files are mixed-criticality task sets (``--kind auto``, the default): ``.yaml`` / ``.yml`` /
``.json`` files with a ``C_LO`` or ``C_HI`` key in their first :data:`SNIFF_BYTES` bytes, and
``.csv`` files whose header (first non-blank line) names a ``level``, ``C_LO`` or ``C_HI``
column. A task-set file never has those keys or columns (its readers refuse unknown ones), so the
sniff cannot take a valid task-set file for a mixed-criticality one; nor a DAG file (whose
reader refuses them too). Standard input and ``--kind tasks`` / ``--kind dag`` are never read as
mixed-criticality sets.

The file is read by :func:`rtsched.mc.read_mc_tasksets` (constrained deadlines: ``D > T`` is bad
input, as every analysis of issue #44 needs ``D <= T``), so bad input is one
:class:`~rtsched.errors.InputError` line naming the file, line, task and field (exit status 2).
The platform is ``-m`` identical processors, one when ``-m`` is not given.

``rtsched simulate`` runs :func:`rtsched.mc.sim.simulate_mc` (or
:func:`rtsched.mc.sim.switch_search`) on every set of the file: see :func:`simulate_mc_file`.
``rtsched generate --kind mc`` writes :func:`rtsched.generators.mc.mc_tasksets`' sets: see
:func:`generate_mc`.
"""

from __future__ import annotations

import csv
import json
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from rtsched.commands._dag import _head, echo_reports, kind_analyses, refuse_options_for
from rtsched.errors import InputError

if TYPE_CHECKING:
    from rtsched.mc.model import MCTaskSet

__all__ = ["SNIFF_BYTES", "check_mc_file", "generate_mc", "mc_format", "refuse_task_options", "simulate_mc_file"]

#: Bytes of a file looked at to tell a mixed-criticality file from a task-set file.
SNIFF_BYTES = 1 << 20

_MC_KEY = re.compile(r"""(?m)(^|[{,\[]|-\s)\s*["']?(C_LO|C_HI)["']?\s*:""")
_MC_COLUMNS = {"level", "c_lo", "c_hi"}


def mc_format(file: str, fmt: str | None, kind: str) -> str | None:
    """``"yaml"``, ``"json"`` or ``"csv"`` if ``file`` holds mixed-criticality task sets (see the module docstring), else None."""
    if kind != "auto" or file == "-":
        return None
    given = None if fmt is None else fmt.lower().lstrip(".")
    ext = os.path.splitext(file)[1].lower().lstrip(".")
    chosen = {"yml": "yaml"}.get(given or ext, given or ext)
    if chosen not in ("yaml", "json", "csv"):
        return None
    head = _head(file)
    if chosen == "csv":
        line = next((row for row in head.splitlines() if row.strip()), "")
        try:
            cells = next(csv.reader([line]))
        except (csv.Error, StopIteration):
            return None
        return "csv" if _MC_COLUMNS & {c.strip().lower() for c in cells} else None
    return chosen if _MC_KEY.search(head) else None


def refuse_task_options(options: dict[str, tuple[Any, Any]]) -> None:
    """Refuse options (name: (value, default)) of the task-set path that mean nothing for mixed-criticality sets."""
    refuse_options_for(options, "mixed-criticality task sets")


def _task_rows(ts: MCTaskSet) -> list[dict[str, Any]]:
    return [
        {
            "task": ts.label(i),
            "level": t.criticality,
            "C(LO)": t.C_lo,
            "C(HI)": t.C_hi if t.is_hi else "",
            "D": t.D,
            "T": t.T,
            "U(LO)": t.utilization("LO"),
            "U(HI)": t.utilization("HI") if t.is_hi else "",
        }
        for i, t in enumerate(ts.tasks)
    ]


def check_mc_file(
    file: str,
    fmt: str,
    processors: int | None,
    *,
    platform: str = "identical",
    tests: str | None,
    policy: str | None,
    explain: bool,
    steps: bool,
    as_json: bool,
    as_csv: bool,
    budgets: Any,
) -> int:
    """``rtsched check`` of a mixed-criticality file on ``processors`` identical processors (default 1).

    Without ``tests``, every registered analysis of mixed-criticality task sets that applies runs
    (selected by workload kind, so new ones join without a change here). Output as for DAG
    files: the report table and the tasks' level, C(LO), C(HI), D, T; ``--explain``, ``--json``,
    ``--csv``. Returns the exit status: 0 if every set is proven schedulable (under ``policy`` if
    given), else 1.
    """
    from rtsched.check import check_many
    from rtsched.mc.files import read_mc_tasksets
    from rtsched.platform import Identical
    from rtsched.workloads import MC_TASKSETS

    m = 1 if processors is None else processors
    if m < 1:
        raise InputError(f"must be a positive number of processors, got {m}", field="-m")
    if platform.strip() not in ("identical", f"identical:{m}"):
        raise InputError(
            f"mixed-criticality task sets run on identical processors (-m M, default 1), not {platform!r}",
            field="--platform",
        )
    selected = kind_analyses(MC_TASKSETS, tests, policy, "mixed-criticality", "an mc-* analysis")
    sets = read_mc_tasksets(file, fmt)
    reports = check_many(sets, Identical(m), selected if tests is not None else None, budgets)
    all_proven = echo_reports(
        sets, reports, policy, explain=explain, steps=steps, as_json=as_json, as_csv=as_csv, task_rows=_task_rows
    )
    return 0 if all_proven else 1


# -- rtsched simulate -------------------------------------------------------------------------------

#: The option of ``rtsched simulate`` that each parameter of :func:`rtsched.mc.sim.simulate_mc` comes from.
_SIM_OPTIONS = {
    "scheduler": "--scheduler",
    "core_scheduler": "--scheduler",
    "policy": "--policy",
    "scenario": "--scenario",
    "overruns": "--overrun",
    "priorities": "--priorities",
    "partition": "--partition",
    "x": "--x",
    "virtual_deadlines": "--x",
    "m": "-m",
    "ties": "--ties",
    "horizon": "--horizon",
    "seed": "--seed",
    "arrivals": "--arrivals",
    "max_candidates": "--switch-search",
}


def _scheduler(text: str | None, m: int) -> tuple[str, str | None]:
    """``--scheduler``: ``(scheduler, core scheduler or None)``; ``partitioned:edf-vd`` names what each core runs."""
    from rtsched.mc.sim import CORE_SCHEDULERS, MC_SCHEDULERS

    if text is None:
        if m != 1:
            raise InputError(
                f"give the scheduler on m = {m} processors: partitioned[:fp|edf|edf-vd], global-fp or global-edf-vd",
                field="--scheduler",
            )
        return "fp", None
    name, sep, core = text.strip().partition(":")
    if name not in MC_SCHEDULERS or (sep and (name != "partitioned" or core not in CORE_SCHEDULERS)):
        raise InputError(
            f"unknown scheduler {text!r}; choose fp, edf, edf-vd, partitioned[:fp|edf|edf-vd], global-fp or "
            "global-edf-vd",
            field="--scheduler",
        )
    return name, (core or None) if name == "partitioned" else None


def _indices(text: str, n: int, option: str, what: str) -> list[int]:
    """A comma-separated list of ``n`` integers (``what``: what they are, for the message)."""
    cells = [c.strip() for c in text.split(",")]
    try:
        values = [int(c) for c in cells]
    except ValueError:
        raise InputError(f"expected {what}, comma-separated, or an analysis name; got {text!r}", field=option) from None
    if len(values) != n:
        raise InputError(f"{len(values)} values for {n} tasks", field=option)
    return values


def _is_list(text: str) -> bool:
    return all(c.strip().lstrip("-").isdigit() for c in text.split(","))


def _analysis_evidence(name: str, ts: MCTaskSet, m: int, option: str) -> tuple[str, dict[str, Any]]:
    """The registry policy and the explanation's evidence of the mixed-criticality analysis ``name`` on ``ts``."""
    from rtsched.registry import get
    from rtsched.workloads import MC_TASKSETS

    try:
        entry = get(name)
    except InputError as err:
        raise InputError(err.message, field=option) from None
    if entry.workload is not MC_TASKSETS:
        raise InputError(f"{entry.name} is not an analysis of mixed-criticality task sets", field=option)
    return entry.policy, dict(entry.explain(ts, m).evidence)


def _priorities(text: str | None, ts: MCTaskSet, m: int) -> list[int] | None:
    """``--priorities``: task indices from the highest priority, or the ``order`` of an FP analysis."""
    if text is None:
        return None
    if _is_list(text):
        return _indices(text, ts.n, "--priorities", "task indices from the highest priority")
    _policy, evidence = _analysis_evidence(text.strip(), ts, m, "--priorities")
    order = evidence.get("order")
    if order is None:
        raise InputError(f"{text.strip()!r} gives no priority order (use an mc-* FP analysis)", field="--priorities")
    return [int(i) for i in order]


def _partition(
    text: str | None, ts: MCTaskSet, m: int, core: str | None
) -> tuple[list[int] | None, str | None, list[int] | None, list[str] | None]:
    """``--partition``: ``(core per task, core scheduler, priorities, x per core)``.

    A comma-separated list gives the cores alone. The name of a partitioned analysis gives its
    assignment, which must place every task: ``mc-pfp-*`` also gives the core scheduler ``fp`` and
    its per-core priority orders (Audsley's), ``mc-p-edf-vd`` the core scheduler ``edf-vd`` and
    each core's x (1 on an empty core).
    """
    if text is None:
        return None, core, None, None
    if _is_list(text):
        return _indices(text, ts.n, "--partition", "core indices"), core, None, None
    name = text.strip()
    policy, evidence = _analysis_evidence(name, ts, m, "--partition")
    cores: list[int | None] = [None] * ts.n
    order: list[int] | None = None
    factors: list[str] | None = None
    if policy == "mc-partitioned-fp":
        implied = "fp"
        order = []
        for c, row in evidence["cores"].items():
            for i in row["tasks"]:
                cores[i] = int(c)
                order.append(int(i))
    elif policy == "mc-partitioned-edf-vd":
        implied = "edf-vd"
        cores = [None if c is None else int(c) for c in evidence["assignment"]]
        factors = ["1" if f is None else str(f) for f in evidence["x"]]
    else:
        raise InputError(f"{name} is not a partitioned mixed-criticality analysis", field="--partition")
    unplaced = [ts.label(i) for i, c in enumerate(cores) if c is None]
    if unplaced:
        raise InputError(
            f"{name} could not place {', '.join(unplaced)} on m = {m} (give a core per task to simulate a placement "
            "of your own)",
            field="--partition",
        )
    if core is not None and core != implied:
        raise InputError(f"{name} places tasks for partitioned:{implied}, not partitioned:{core}", field="--partition")
    if order is not None:
        order += [i for i in range(ts.n) if i not in order]
    return [int(c) for c in cores], implied, order, factors  # type: ignore[arg-type]


def _overruns(items: list[str], ts: MCTaskSet) -> list[tuple[int, ...]]:
    """``--overrun TASK:JOB[:DEMAND]`` (TASK an index or a task's name)."""
    out = []
    for item in items:
        cells = [c.strip() for c in item.split(":")]
        if len(cells) not in (2, 3):
            raise InputError(f"expected TASK:JOB or TASK:JOB:DEMAND, got {item!r}", field="--overrun")
        names = [t.name for t in ts.tasks]
        if cells[0].isdigit():
            task = int(cells[0])
        elif cells[0] in names:
            task = names.index(cells[0])
        else:
            raise InputError(f"{item!r}: no task {cells[0]!r} (an index 0..{ts.n - 1} or a name)", field="--overrun")
        try:
            rest = [int(c) for c in cells[1:]]
        except ValueError:
            raise InputError(f"expected TASK:JOB or TASK:JOB:DEMAND, got {item!r}", field="--overrun") from None
        out.append((task, *rest))
    return out


def _x(text: str | None) -> str | list[str] | None:
    if text is None:
        return None
    cells = [c.strip() for c in text.split(",")]
    return cells if len(cells) > 1 else cells[0]


def _default_x(ts: MCTaskSet) -> str:
    """The x of ``mc-edf-vd`` (Baruah et al. 2012: 1 under (V1), else U_HL/(1 - U_LL)), for ``edf-vd`` without ``--x``."""
    _policy, evidence = _analysis_evidence("mc-edf-vd", ts, 1, "--x")
    x = evidence.get("x")
    if x is None or not 0 < x <= 1:
        raise InputError(
            f"mc-edf-vd gives no virtual-deadline factor in (0, 1] for this set (U_LL = {ts.U_LL}); give --x",
            field="--x",
        )
    return str(x)


def simulate_mc_file(
    file: str,
    fmt: str,
    m: int,
    *,
    scheduler: str | None,
    policy: str | None,
    scenario: str | None,
    overruns: list[str],
    switch_search: bool,
    priorities: str | None,
    partition: str | None,
    x: str | None,
    horizon: int | None,
    arrivals: str,
    seed: int,
    ties: str,
    execution: str,
    gantt: str | None,
    gantt_since: int | None,
    gantt_until: int | None,
    as_json: bool,
) -> int:
    """``rtsched simulate`` of a mixed-criticality file: :func:`~rtsched.mc.sim.simulate_mc` per set.

    * ``scheduler``: ``fp`` (the default on one processor; on more, it must be given), ``edf``,
      ``edf-vd``, ``partitioned[:fp|edf|edf-vd]``, ``global-fp`` or ``global-edf-vd``;
    * ``policy``: ``amc`` (default) or ``smc``; ``scenario``: ``hi`` (default), ``lo``, ``random``
      or ``explicit`` (what ``overruns``, ``TASK:JOB[:DEMAND]``, imply);
    * ``priorities`` (FP): indices from the highest priority or an mc-* FP analysis's ``order``
      (default: the file's order); ``partition``: a core per task or a partitioned mc-*
      analysis's assignment (no default: the simulator never invents a placement); ``x``
      (EDF-VD): a number in (0, 1] or one per core; for ``edf-vd`` alone the default is the
      x of ``mc-edf-vd``;
    * ``execution``: ``wcet`` or ``random`` (jobs that do not overrun run a seeded uniform
      integer in [1, C(LO)]);
    * ``switch_search``: :func:`~rtsched.mc.sim.switch_search` instead (every HI job of the
      hyperperiod overrunning in turn, escalated); ``--gantt`` and ``--json`` then show the
      first failing run, recorded, or the first candidate's run when none fails.

    Prints each set's outcome, writes a Gantt chart per set with ``gantt``
    (:func:`rtsched.mc.gantt.save_mc_gantt`) and returns the exit status: 1 if some set had a
    failure (a miss in LO mode or of a HI job), else 0. Errors of the simulator name the option.
    """
    from rtsched.mc.files import read_mc_tasksets
    from rtsched.mc.gantt import save_mc_gantt
    from rtsched.mc.sim import MC_POLICIES, simulate_mc
    from rtsched.mc.sim import switch_search as search

    name, core = _scheduler(scheduler, m)
    policy = "amc" if policy is None else policy
    if policy not in MC_POLICIES:
        raise InputError(f"mixed-criticality task sets: policy amc or smc, got {policy!r}", field="--policy")
    if switch_search and (scenario is not None or overruns):
        option = "--scenario" if scenario is not None else "--overrun"
        raise InputError("--switch-search chooses the overrunning jobs itself", field=option)
    if overruns and scenario not in (None, "explicit"):
        raise InputError(f"--overrun needs the explicit scenario, not {scenario}", field="--overrun")
    scenario = ("explicit" if overruns else "hi") if scenario is None else scenario
    if execution not in ("wcet", "random"):
        raise InputError(f"--execution must be wcet or random, got {execution!r}", field="--execution")
    if name != "partitioned" and partition is not None:
        raise InputError(f"--partition applies to --scheduler partitioned, not {name}", field="--partition")
    if name == "partitioned" and partition is None:
        raise InputError(
            "partitioned needs --partition: a core per task (0,1,0) or a partitioned mc-* analysis (mc-pfp-ff-amc-max, "
            "mc-p-edf-vd)",
            field="--partition",
        )
    sets = read_mc_tasksets(file, fmt)
    failed = False
    for index, ts in enumerate(sets):
        where = {"file": file, "set_index": index if len(sets) > 1 else None}
        try:
            cores, core_kind, order, factors = _partition(partition, ts, m, core)
            order = _priorities(priorities, ts, m) if priorities is not None else order
            options: dict[str, Any] = {
                "scheduler": name, "policy": policy, "priorities": order, "partition": cores,
                "x": _x(x) if x is not None else factors, "arrivals": arrivals, "seed": seed, "horizon": horizon,
                "ties": ties, "random_lo": execution == "random",
            }  # fmt: skip
            if name == "partitioned":
                options["core_scheduler"] = core_kind or "fp"
            if options["x"] is None and name == "edf-vd":
                options["x"] = _default_x(ts)
            record = gantt is not None or as_json
            if switch_search:
                result = search(ts, m, **options)
                trace = None
                if record:
                    failure = result.failure
                    if failure is not None and failure.scenario == "lo":
                        trace = simulate_mc(ts, m, scenario="lo", record=True, **options)
                    elif result.candidates:
                        cand = result.candidates[-1] if failure is not None else result.candidates[0]
                        trace = simulate_mc(
                            ts, m, scenario="explicit", overruns=[cand], escalate=True, record=True, **options
                        )
                    else:
                        trace = simulate_mc(ts, m, scenario="lo", record=True, **options)
                failed |= result.failure is not None
                summary = result.summary()
            else:
                trace = simulate_mc(
                    ts,
                    m,
                    scenario=scenario,  # type: ignore[arg-type]
                    overruns=_overruns(overruns, ts) or None,
                    record=record,
                    **options,
                )
                failed |= trace.miss is not None
                summary = trace.summary()
        except InputError as err:
            field = _SIM_OPTIONS.get(err.field or "", err.field)
            message = err.message
            if err.field == "max_candidates":  # the candidates are the HI jobs released before the horizon
                message = (
                    message.split(";")[0] + "; give a shorter --horizon (the HI jobs released before it are tried)"
                )
            raise InputError(message, task=err.task, field=field).located(**where) from None
        path = None
        if gantt is not None:
            assert trace is not None
            path = Path(gantt)
            if len(sets) > 1:
                path = path.with_name(f"{path.stem}-{index}{path.suffix}")
            save_mc_gantt(trace, path, since=gantt_since, until=gantt_until)
        if as_json:
            assert trace is not None
            doc: dict[str, Any] = {"index": index}
            if switch_search:
                doc["switch_search"] = {
                    "candidates": [list(c) for c in result.candidates],
                    "failures": len(result.failures),
                    "response_lo": list(result.response_lo),
                    "response_hi": list(result.response_hi),
                    "summary": summary,
                }
            typer.echo(json.dumps({**doc, **trace.to_dict()}))
        else:
            prefix = f"[{index}] " if len(sets) > 1 else ""
            typer.echo(prefix + summary)
            if path is not None:
                typer.echo(f"{' ' * len(prefix)}Gantt chart: {path}")
    return 1 if failed else 0


# -- rtsched generate --kind mc ---------------------------------------------------------------------

#: Parameters of :func:`rtsched.generators.mc.mc_tasksets` that ``--param KEY=VALUE`` sets.
MC_GENERATOR_PARAMS = ("cp", "cf", "ticks", "utilizations", "umax", "priorities", "max_tries")
#: The option each generator parameter comes from (the others: ``--param``).
_GENERATOR_FLAGS = {
    "n": "--n",
    "utilization": "--utilization",
    "size": "--count",
    "periods": "--periods",
    "deadlines": "--deadlines",
}


def generate_mc(
    *,
    n: int,
    utilization: float,
    periods: str | None,
    deadlines: str | None,
    params: list[str],
    count: int,
    seed: int,
    output: str,
    fmt: str | None,
    quiet: bool,
) -> int:
    """``rtsched generate --kind mc``: dual-criticality task sets after Baruah, Burns, Davis (RTSS 2011), as YAML, JSON or CSV.

    ``n`` tasks per set at LO-mode utilization ``utilization`` (``U_LL + U_HL``); ``periods`` and
    ``deadlines`` (``implicit`` or ``constrained``) when given, else the generator's defaults
    (``log-uniform:10:1000``, implicit); ``params``: ``KEY=VALUE`` for the other parameters of
    :func:`rtsched.generators.mc.mc_tasksets` (:data:`MC_GENERATOR_PARAMS`: ``cp=0.5``,
    ``cf=2``, ``ticks=1000``, ``utilizations=uunifast-discard``, ``umax=0.5``,
    ``priorities=deadline-monotonic``, ``max_tries``). Drawn from ``numpy.random.default_rng(seed)``:
    the same options give the same file. Prints the realised mean U_LL, U_HL and U_HH on
    standard error (unless ``quiet``). Returns the exit status (0).
    """
    import numpy as np

    from rtsched.commands._segmented import _param_value
    from rtsched.generators.mc import mc_tasksets
    from rtsched.mc.files import MC_FORMATS, dumps_mc, write_mc_tasksets

    options: dict[str, Any] = {}
    for item in params:
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise InputError(f"expected KEY=VALUE, got {item!r}", field="--param")
        if key in _GENERATOR_FLAGS:
            raise InputError(f"give {key} with {_GENERATOR_FLAGS[key]}, not --param", field="--param")
        if key not in MC_GENERATOR_PARAMS:
            raise InputError(
                f"unknown generator parameter {key!r}; one of {', '.join(MC_GENERATOR_PARAMS)}", field="--param"
            )
        if key in options:
            raise InputError(f"{key} is given twice", field="--param")
        options[key] = _param_value(value)
    if periods is not None:
        from rtsched.generators import parse_periods

        try:
            parse_periods(periods)
        except InputError as err:
            raise InputError(err.message, field="--periods") from None
        options["periods"] = periods
    if deadlines is not None:
        options["deadlines"] = deadlines
    if count < 1:
        raise InputError(f"must be a positive number of task sets, got {count}", field="--count")
    if seed < 0:
        raise InputError(f"must be a non-negative integer, got {seed}", field="--seed")
    given = None if fmt is None else {"yml": "yaml"}.get(fmt.lower().lstrip("."), fmt.lower().lstrip("."))
    if given is not None and given not in MC_FORMATS:
        raise InputError(f"mixed-criticality task sets are written as yaml, json or csv, not {fmt!r}", field="--format")
    try:
        sets = mc_tasksets(np.random.default_rng(seed), n=n, utilization=utilization, size=count, **options)
    except InputError as err:
        raise InputError(err.message, field=_GENERATOR_FLAGS.get(err.field or "", "--param")) from None
    if output == "-":
        typer.echo(dumps_mc(sets, given or "yaml"), nl=False)
    else:
        write_mc_tasksets(sets, output, given)
    if not quiet:
        lo_mode = [float(ts.U_LL + ts.U_HL) for ts in sets]
        means = {u: sum(float(getattr(ts, u)) for ts in sets) / len(sets) for u in ("U_LL", "U_HL", "U_HH")}
        typer.echo(
            f"rtsched: wrote {count} mixed-criticality task set(s) of {n} tasks to {output}; target U_LL + U_HL = "
            f"{utilization}, realised mean U_LL {means['U_LL']:.6g}, U_HL {means['U_HL']:.6g}, U_HH "
            f"{means['U_HH']:.6g} (U_LL + U_HL min {min(lo_mode):.6g}, max {max(lo_mode):.6g})",
            err=True,
        )
    return 0
