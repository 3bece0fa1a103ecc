"""DAG task-set files in ``rtsched check`` and ``rtsched simulate`` (issue #42).

Which files are DAG task sets (``--kind auto``, the default):

* ``.dot`` / ``.gv`` files, or ``--format dot`` / ``--format survey``;
* ``.yaml`` / ``.yml`` / ``.json`` files with a ``vertices`` key (or the survey library's old
  misspelling ``vetices``) in their first :data:`SNIFF_BYTES` bytes: a task-set file never has
  one (its reader refuses unknown keys), so the sniff cannot take a valid task-set file for a
  DAG file. Among those, a file whose keys include ``t``, ``d`` or ``c`` in lower case is the
  survey library's YAML (rtsched's own format spells them ``T``, ``D``, ``C``).

Standard input is a task-set file unless ``--kind dag`` says otherwise (then it is sniffed as
above, by content). ``--kind tasks`` / ``--kind dag`` force the reader. The content decides
rather than an option alone so that ``rtsched check dag.yaml -m 4`` needs nothing more; the
option exists for standard input and for the rare file the sniff cannot tell.

Bad input is one :class:`~rtsched.errors.InputError` (exit status 2) naming the file, line, task
and, in its message, the vertex: the readers of :mod:`rtsched.dag.files` do that for a cycle, an
edge to an unknown vertex or a zero WCET; a critical path longer than the deadline (len > D),
which the model allows, is refused here as the task reader refuses C > D: no scheduler on any
number of processors can meet such a deadline, so it is a mistake in the file, not a question
for the analyses.
"""

from __future__ import annotations

import csv
import os
import re
import sys
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Annotated, Any

import typer

from rtsched.commands import _checked_option
from rtsched.errors import InputError

if TYPE_CHECKING:
    from rtsched.dag.model import DAGTaskSet

__all__ = [
    "KINDS",
    "DAG_ONLY_FORMATS",
    "SNIFF_BYTES",
    "AnyFormat",
    "Kind",
    "check_dag_file",
    "dag_format",
    "read_dag_file",
    "refuse_task_options",
    "simulate_dag_file",
]

#: Values of ``--kind``.
KINDS = ("auto", "tasks", "dag")
#: Bytes of a YAML/JSON file looked at to tell a DAG file from a task-set file.
SNIFF_BYTES = 1 << 20
#: Formats only DAG files have (``--format``).
DAG_ONLY_FORMATS = ("dot", "gv", "survey")

_VERTICES_KEY = re.compile(r"""(?m)(^|[{,\[]|-\s)\s*["']?(vertices|vetices)["']?\s*:""")
_SURVEY_KEY = re.compile(r"""(?m)(^|[{,]|-\s)\s*["']?[tdc]["']?\s*:""")


#: Columns of ``rtsched check --csv`` (task sets and DAG task sets alike).
_CSV_COLUMNS = ("set", "name", "n", "m", "utilization", "analysis", "policy", "kind", "verdict", "schedulable")


def _csv_cell(value: object) -> object:
    """A record value as written in ``--csv``: booleans as true/false, None as an empty cell."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else value


def refuse_options_for(options: dict[str, tuple[Any, Any]], what: str) -> None:
    """Refuse options (name: (value, default)) of the task-set path that mean nothing for ``what`` (``"DAG task sets"``)."""
    for option, (value, default) in options.items():
        if value != default:
            raise InputError(f"{option} applies to task-set files, not to {what}", field=option)


def kind_analyses(workload: Any, tests: str | None, policy: str | None, what: str, fallback: str = "") -> list[str]:
    """The analyses ``rtsched check`` runs on a file of ``workload`` (``what``: ``"DAG"``): ``--tests``' or all.

    Every name in ``tests`` must analyse ``workload`` (else the error lists the registered ones, or
    ``fallback`` when there are none), one analysis at least must be registered, and ``policy``
    must be one an analysis decides.
    """
    from rtsched.registry import entries_of, resolve_list

    entries = entries_of(workload)
    if tests is not None:
        try:
            named = resolve_list(tests, workload=workload)
        except InputError as err:
            raise err.located(field="--tests") from None
        for entry in named:
            if entry.workload is not workload:
                raise InputError(
                    f"{entry.name} analyses {entry.workload.title}, not {what} task sets; for {what} files use "
                    + (", ".join(e.name for e in entries) or fallback),
                    field="--tests",
                )
        selected = [e.name for e in named]
    else:
        selected = [e.name for e in entries]
    if not selected:
        raise InputError(f"no analysis of {what} task sets is registered", field="--tests")
    if policy is not None and not any(e.policy == policy for e in resolve_list(selected)):
        known = sorted({e.policy for e in entries})
        raise InputError(f"no {what} analysis decides policy {policy!r}; known: {', '.join(known)}", field="--policy")
    return selected


def echo_reports(
    sets: Sequence[Any],
    reports: Iterable[Any],
    policy: str | None,
    *,
    explain: bool,
    steps: bool,
    as_json: bool,
    as_csv: bool,
    task_rows: Callable[[Any], list[dict[str, Any]]] | None = None,
) -> bool:
    """Print ``rtsched check``'s reports of ``sets`` (table, ``--explain``, ``--json`` or ``--csv``).

    ``reports`` may be computed as they are printed. ``task_rows``: the table of a set's tasks
    printed under its report (not with ``--explain``). Returns whether every set is proven
    schedulable (under ``policy`` if given).
    """
    from rtsched.result import file_evidence, file_evidence_note, table

    all_proven = True
    evidence = file_evidence(len(sets))  # a large file's tables: verdicts only (TABLE_EVIDENCE_SETS)
    if as_csv:
        writer = csv.writer(sys.stdout, lineterminator="\n")
        writer.writerow(_CSV_COLUMNS)
    for index, report in enumerate(reports):
        all_proven &= report.schedulable if policy is None else report.schedulable_under(policy)
        if as_csv:
            for record in report.to_records(index=index):
                writer.writerow([_csv_cell(record[key]) for key in _CSV_COLUMNS])
            continue
        if as_json:
            typer.echo(report.to_json(index=index, explain=explain or steps, steps=steps))
            continue
        if len(sets) > 1:
            typer.echo(f"[{index}] ", nl=False)
        if explain or steps:
            typer.echo(report.explain(steps))
        else:
            typer.echo(report.text(evidence, width=_terminal_width(), note=evidence is not False))
        if task_rows is not None and not (explain or steps):
            typer.echo("")
            typer.echo("\n".join(table(task_rows(sets[index]))))
        if len(sets) > 1:
            typer.echo("")
    if evidence is False and not (as_csv or as_json or explain or steps):
        typer.echo(file_evidence_note(len(sets)))
    return all_proven


def _terminal_width() -> int | None:
    """The terminal's width when standard output is one (the table wraps its evidence to it), else None."""
    if not sys.stdout.isatty():
        return None  # a file or a pipe: one line per row, for grep and scripts
    import shutil

    return max(60, shutil.get_terminal_size().columns)


def check_kind(value: str) -> str:
    """``--kind``: one of :data:`KINDS`."""
    if value not in KINDS:
        raise InputError(f"unknown kind {value!r}; use auto, tasks or dag", field="--kind")
    return value


def _check_any_format(value: str) -> str:
    """``--format``: a task-set format of :mod:`rtsched.io`, or a DAG-only one (dot, gv, survey)."""
    if value.lower().lstrip(".") in DAG_ONLY_FORMATS:
        return value
    from rtsched.io.stream import FORMATS, TOOL_FORMATS, check_format

    try:
        return check_format(value)
    except InputError:
        known = ", ".join((*FORMATS, *TOOL_FORMATS, "dot", "survey"))
        raise InputError(f"unknown format {value!r}; choose one of {known}") from None


#: ``--format`` of check and simulate: the task-set formats, and dot / survey for DAG task sets.
AnyFormat = Annotated[
    str | None,
    _checked_option(
        "--format",
        "yaml, json, jsonl, csv, txt, simso or schedcat (default: by extension; .xml by root element); "
        "for DAG task sets yaml, json, dot or survey (the DAG survey library's YAML).",
        _check_any_format,
    ),
]

#: ``--kind``: what FILE holds.
Kind = Annotated[
    str,
    _checked_option(
        "--kind",
        "auto (default: DAG task sets for .dot/.gv files and YAML/JSON with 'vertices', else task sets), "
        "tasks or dag (e.g. for a DAG file on stdin).",
        check_kind,
    ),
]


def _sniff(text: str) -> str | None:
    """``"yaml"`` (rtsched's own), ``"survey"`` or ``None`` (not a DAG document) for YAML/JSON text."""
    if not _VERTICES_KEY.search(text):
        return None
    return "survey" if _SURVEY_KEY.search(text) else "yaml"


def _head(path: str) -> str:
    try:
        with open(path, "rb") as f:
            return f.read(SNIFF_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return ""  # the reader names the problem


def dag_format(file: str, fmt: str | None, kind: str) -> str | None:
    """The DAG format of ``file`` (``yaml``, ``json``, ``dot``, ``survey``; ``"sniff"``: tell when read), or None.

    ``None`` means a task-set file (read by :func:`rtsched.io.read_tasksets`). See the module
    docstring for the rules.
    """
    check_kind(kind)
    given = None if fmt is None else fmt.lower().lstrip(".")
    if kind == "tasks":
        if given in DAG_ONLY_FORMATS:
            raise InputError(f"--format {fmt} is a DAG format, but --kind tasks was given", field="--format")
        return None
    if given in ("dot", "gv"):
        return "dot"
    if given == "survey":
        return "survey"
    if given is not None and given not in ("yaml", "yml", "json"):
        if kind == "dag":
            raise InputError(f"DAG task sets are yaml, json, dot or survey files, not {fmt}", field="--format")
        return None
    if file == "-":
        return "sniff" if kind == "dag" else None
    ext = os.path.splitext(file)[1].lower().lstrip(".")
    if given is None and ext in ("dot", "gv"):
        return "dot"
    if given is None and ext not in ("yaml", "yml", "json"):
        if kind == "dag":
            raise InputError(
                "cannot tell the format: DAG task sets are .yaml, .yml, .json, .dot or .gv files "
                "(or give --format yaml|json|dot|survey)",
                file=file,
            )
        return None
    if kind == "dag":
        return "sniff"
    sniffed = _sniff(_head(file))
    if sniffed == "yaml" and (given == "json" or (given is None and ext == "json")):
        return "json"
    return sniffed


def read_dag_file(file: str, fmt: str) -> list[DAGTaskSet]:
    """The DAG task sets of ``file`` in ``fmt`` (``"sniff"``: own YAML/JSON or survey, by content), len <= D checked."""
    from rtsched.dag.files import loads_dag
    from rtsched.io import read_text

    source = "<stdin>" if file == "-" else file
    text = read_text(file, source)
    if fmt == "sniff":
        fmt = _sniff(text) or "yaml"
        if fmt == "yaml" and file.lower().endswith(".json"):
            fmt = "json"
    sets = loads_dag(text, fmt, source=source)
    for s, ts in enumerate(sets):
        for i, task in enumerate(ts.tasks):
            if task.length > task.D:
                path = task.critical_path()
                shown = " → ".join(task.vertex_label(v) for v in path)
                raise InputError(
                    f"critical path longer than the deadline: len = {task.length} > D = {task.D} along {shown}; "
                    "no scheduler can meet it (lower the WCETs on this path or raise D)",
                    file=source,
                    line=_deadline_line(text, fmt, s, i),
                    set_index=s if len(sets) > 1 else None,
                    task=i if task.name is None else f"{i} ({task.name})",
                    field="D",
                )
    return sets


def _deadline_line(text: str, fmt: str, s: int, i: int) -> int | None:
    """The line of task ``i``'s deadline in set ``s`` of the document (None if not found)."""
    if fmt == "dot":
        starts = [m.start() for m in re.finditer(r"\bdigraph\b", text)]
        if i >= len(starts):
            return None
        end = starts[i + 1] if i + 1 < len(starts) else len(text)
        found = re.compile(r"""\b["']?D["']?\s*=""").search(text, starts[i], end)
        return text.count("\n", 0, found.start() if found else starts[i]) + 1
    from rtsched.io import Node, node_from_json, node_from_yaml

    try:
        if fmt == "json":
            root: Node = node_from_json(text)
        else:
            import yaml

            from rtsched.io import LineLoader

            root = node_from_yaml(yaml.compose(text, Loader=LineLoader))
    except (InputError, ValueError):  # the reader read it: this is not expected
        return None
    value = root.value
    if isinstance(value, dict) and "tasksets" in value:
        set_node = value["tasksets"].value[s]
    elif isinstance(value, list) and value and isinstance(value[0].value, dict) and "tasks" in value[0].value:
        set_node = value[s]
    else:
        set_node = root
    tasks = set_node.value["tasks"].value if isinstance(set_node.value, dict) else set_node.value
    task = tasks[i]
    key = "d" if fmt == "survey" else "D"
    child = task.value.get(key) if isinstance(task.value, dict) else None
    return child.line if child is not None else task.line


def refuse_task_options(options: dict[str, tuple[Any, Any]]) -> None:
    """Refuse options (name: (value, default)) of the task-set path that mean nothing for DAG task sets."""
    refuse_options_for(options, "DAG task sets")


def _task_rows(ts: DAGTaskSet) -> list[dict[str, Any]]:
    return [
        {
            "task": ts.label(i),
            "vertices": t.n,
            "edges": len(t.edges),
            "vol": t.volume,
            "len": t.length,
            "D": t.D,
            "T": t.T,
            "U": t.utilization,
            "vol/D": t.density,
        }
        for i, t in enumerate(ts.tasks)
    ]


def check_dag_file(
    file: str,
    fmt: str,
    platform: Any,
    *,
    tests: str | None,
    policy: str | None,
    explain: bool,
    steps: bool,
    as_json: bool,
    as_csv: bool,
    budgets: Any,
) -> int:
    """``rtsched check`` of a DAG file on ``platform`` (Identical or Typed): the registry's DAG analyses.

    Without ``tests``, every registered analysis of DAG task sets that applies to the set's
    deadline model runs (selected by workload kind, so new ones join without a change here).
    Output as for task sets: the report table (plus the tasks' vol, len, D, T), ``--explain``
    (each analysis's per-task rows: classes, processors, response-time bounds), ``--json``,
    ``--csv``. Returns the exit status: 0 if every set is proven schedulable (under ``policy``
    if given), else 1.
    """
    from rtsched.check import check_many
    from rtsched.workloads import DAG_TASKSETS

    selected = kind_analyses(DAG_TASKSETS, tests, policy, "DAG")
    sets = read_dag_file(file, fmt)
    # without --tests, check's default list: every DAG analysis that applies (the others silently)
    reports = check_many(sets, platform, selected if tests is not None else None, budgets)
    all_proven = echo_reports(
        sets, reports, policy, explain=explain, steps=steps, as_json=as_json, as_csv=as_csv, task_rows=_task_rows
    )
    return 0 if all_proven else 1


def simulate_dag_file(
    file: str,
    fmt: str,
    processors: int,
    *,
    policy: str,
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
    """``rtsched simulate`` of a DAG file: node-level G-EDF / G-FP (:func:`rtsched.dag.simulate_dag`).

    Prints each set's outcome (the first miss, or none), writes a Gantt chart per set with
    ``gantt`` (:func:`rtsched.dag.gantt.save_dag_gantt`) and returns the exit status: 1 if a set
    missed a deadline, else 0.
    """
    import json
    from dataclasses import asdict
    from pathlib import Path

    from rtsched.dag.gantt import save_dag_gantt
    from rtsched.dag.sim import DAG_POLICIES, simulate_dag
    from rtsched.result import jsonable

    if policy not in DAG_POLICIES:
        raise InputError(
            f"policy {policy!r} does not apply to DAG task sets; use gedf or gfp (node-level global scheduling)",
            field="--policy",
        )
    if execution not in ("wcet", "random"):
        raise InputError(f"--execution must be wcet or random, got {execution!r}", field="--execution")
    sets = read_dag_file(file, fmt)
    any_miss = False
    for index, ts in enumerate(sets):
        record = gantt is not None or as_json
        options: dict[str, Any] = {
            "policy": policy,
            "arrivals": arrivals,
            "seed": seed,
            "horizon": horizon,
            "ties": ties,
            "execution": execution,
        }
        try:
            trace = simulate_dag(ts, processors, record=record, **options)
        except InputError as err:
            raise InputError(err.message, field=f"--{err.field}" if err.field else None) from None
        any_miss |= trace.miss is not None
        path = None
        if gantt is not None:
            path = Path(gantt)
            if len(sets) > 1:
                path = path.with_name(f"{path.stem}-{index}{path.suffix}")
            save_dag_gantt(trace, path, since=gantt_since, until=gantt_until)
        if as_json:
            out = {
                "index": index,
                "summary": trace.summary(),
                "m": trace.m,
                "policy": trace.policy,
                "horizon": trace.horizon,
                "end_time": trace.end_time,
                "jobs": trace.jobs,
                "miss": None if trace.miss is None else jsonable(asdict(trace.miss)),
                "response_times": list(trace.response_times),
                "releases": trace.releases.tolist(),
                "segments": trace.segments.tolist(),
            }
            typer.echo(json.dumps(out, ensure_ascii=False))
        else:
            prefix = f"[{index}] " if len(sets) > 1 else ""
            typer.echo(prefix + trace.summary())
            if path is not None:
                typer.echo(f"{' ' * len(prefix)}Gantt chart: {path}")
    return 1 if any_miss else 0
