"""``rtsched check FILE -m M``: verdicts of the analyses, with evidence, per task set."""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any

import typer

from rtsched.check import check_many
from rtsched.commands import Deadlines, TaskSetFile, TimeUnit
from rtsched.commands._dag import AnyFormat, Kind, echo_reports
from rtsched.errors import InputError
from rtsched.io import read_tasksets
from rtsched.registry import resolve_list
from rtsched.workloads import TASKSETS

__all__ = ["register"]


def check_command(
    file: TaskSetFile,
    processors: Annotated[
        int | None, typer.Option("-m", "--processors", help="Number of processors (not needed with --platform gpu:M).")
    ] = None,
    tests: Annotated[
        str | None, typer.Option("--tests", help="Comma-separated analyses (default: every one that applies).")
    ] = None,
    explain: Annotated[bool, typer.Option("--explain", help="Show each analysis's full evidence.")] = False,
    evidence: Annotated[
        bool,
        typer.Option(
            "--evidence",
            help="Compute the table's evidence column at any size (by default only for sets of at most 100 "
            "tasks: each exact explanation can take seconds on thousands of tasks).",
        ),
    ] = False,
    steps: Annotated[
        bool,
        typer.Option(
            "--steps",
            help="With --explain (implied): each analysis's derivation step by step (QPA/RTA iterations, both "
            "sides of an inequality per task, each placement and refusal, sbf values).",
        ),
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object per task set.")] = False,
    as_csv: Annotated[
        bool,
        typer.Option(
            "--csv",
            help="CSV on stdout: a header, then one row per task set and analysis (set, name, n, m, utilization, "
            "analysis, policy, kind, verdict, schedulable).",
        ),
    ] = False,
    fmt: AnyFormat = None,
    kind: Kind = "auto",
    deadlines: Deadlines = "constrained",
    time_unit: TimeUnit = None,
    policy: Annotated[
        str | None,
        typer.Option(
            "--policy",
            help="Decide the exit status by this scheduling policy only (global-edf, partitioned-edf, edf, ...; "
            "see rtsched list). Default: proven under some policy.",
        ),
    ] = None,
    platform: Annotated[
        str,
        typer.Option(
            "--platform",
            help="identical (m processors, default), clustered:k=<k> (m processors in clusters of k; runs "
            "clustered:k=<k>, or the clustered analysis named with options such as clustered:k=2:physical), "
            "or gpu:<M>[:ffd|bfd|exhaustive|single] (FILE is then a GPU workload); for DAG task sets identical "
            "or typed:<type>=<units>,... (e.g. typed:cpu=4,gpu=1: typed DAGs on CPUs plus accelerators, no -m).",
        ),
    ] = "identical",
    budget: Annotated[
        str | None,
        typer.Option(
            "--budget",
            help="Work budget of the analyses that have one: one number for all (e.g. 1e6) or NAME=N,... "
            "(e.g. exact=1e6,bar=20000). A budget running out gives 'unknown', never 'not proven'.",
        ),
    ] = None,
    exact_numbers: Annotated[
        bool, typer.Option("--exact-numbers", help="Show exact fractions in tables (default: decimals).")
    ] = False,
    priorities: Annotated[
        str,
        typer.Option(
            "--priorities",
            help="Fixed priorities: given (the file's priority fields, else its order, first = highest; default), dm, rm, or opa "
            "(Audsley's algorithm with uni-rta on m = 1, gfp-da-lc on m > 1). Each set is reordered before checking.",
        ),
    ] = "given",
) -> int:
    """Check task sets: a verdict per analysis and why.

    Limits: at most 65,536 tasks per set, 1,048,576 sets and 64 MiB per file (refused while reading, with
    status 2). Verdicts come from the analyses' exact kernels, all sets of the file at once;
    the evidence shown comes from their exact explanations, computed only for what is printed
    (the table's evidence column, --explain; --json without --explain prints verdicts only).
    The table computes its evidence column for sets of at most 100 tasks, in files of at most 32
    sets (--evidence: always), so a large set's or a large file's tables print in the time their
    verdicts take. Explanations have a work budget
    of their own: on large sets (above about 1,000 tasks for the quadratic tests) the evidence
    may be incomplete rather than take minutes; the verdict is the kernel's either way.

    Without --tests, every featured analysis that applies runs, except the exact test on sets
    too large for its default budget (listed as skipped, with the reason).

    A SimSo configuration (.simso.xml) gives -m (its processors) and --policy (its scheduler's)
    when they are not given and --tests is not.

    DAG task sets (.dot/.gv files, YAML/JSON whose tasks have 'vertices', the DAG survey
    library's YAML; --kind dag for stdin): every analysis of DAG task sets that applies runs; the
    table is followed by the tasks' vol, len, D, T, and --explain shows each analysis's per-task
    rows (classes, processors, response-time bounds). A task whose critical path is longer than
    its deadline (len > D) is bad input, like C > D for a sequential task.

    Mixed-criticality task sets (YAML/JSON with C_LO/C_HI keys, CSV with a level column;
    papers/mc-model.md): every analysis of mixed-criticality sets that applies runs on -m
    identical processors (default 1), and the table is followed by the tasks' level, C(LO),
    C(HI), D, T. C_HI < C_LO, a LO task with a HI budget, an unknown level or D > T is bad input.

    CPU–GPU segmented task sets (YAML/JSON whose tasks have 'segments'; papers/cpu-gpu-model.md):
    every analysis of segmented task sets that applies runs on -m CPU cores (default: the largest
    core a task names, plus one), and the table is followed by the tasks' core, mode, η, C, G_m,
    G_e, D, T, U. A negative or non-integer segment, two CPU segments in a row, a task without a
    core or on a core >= m, or D > T is bad input.

    Exit status: 0 if every task set is proven schedulable by some analysis (of --policy, if
    given), 1 otherwise (including "unknown"), 2 on bad input.
    """
    from rtsched.platform import Clustered, Identical, parse_platform
    from rtsched.registry import parse_budgets
    from rtsched.result import set_exact_numbers, set_table_evidence

    set_exact_numbers(exact_numbers)
    set_table_evidence(True if evidence else None)
    try:
        budgets = parse_budgets(budget)
    except InputError as err:
        raise err.located(field="--budget") from None
    if platform.startswith("gpu"):
        from rtsched.commands.gpu import check_gpu_platform

        if as_csv:
            raise InputError("--csv is not available with --platform gpu (use --json)", field="--csv")

        raise typer.Exit(check_gpu_platform(file, platform, tests, as_json))
    if as_json and as_csv:
        raise InputError("give --json or --csv, not both", field="--csv")
    from rtsched.commands._mc import mc_format

    mc = mc_format(file, fmt, kind)
    if mc is not None:  # mixed-criticality task sets (issue #44): rtsched.commands._mc
        from rtsched.commands._mc import check_mc_file
        from rtsched.commands._mc import refuse_task_options as refuse_for_mc

        refuse_for_mc(
            {
                "--deadlines": (deadlines, "constrained"),
                "--time-unit": (time_unit, None),
                "--priorities": (priorities, "given"),
            }
        )
        raise typer.Exit(
            check_mc_file(
                file, mc, processors, platform=platform, tests=tests, policy=policy, explain=explain, steps=steps,
                as_json=as_json, as_csv=as_csv, budgets=budgets,
            )
        )  # fmt: skip
    from rtsched.commands._segmented import segmented_format

    segmented = segmented_format(file, fmt, kind)
    if segmented is not None:  # CPU–GPU segmented task sets (issue #43): rtsched.commands._segmented
        from rtsched.commands._segmented import check_segmented_file
        from rtsched.commands._segmented import refuse_task_options as refuse_for_segmented

        refuse_for_segmented(
            {
                "--deadlines": (deadlines, "constrained"),
                "--time-unit": (time_unit, None),
                "--priorities": (priorities, "given"),
            }
        )
        raise typer.Exit(
            check_segmented_file(
                file, segmented, processors, platform=platform, tests=tests, policy=policy, explain=explain,
                steps=steps, as_json=as_json, as_csv=as_csv, budgets=budgets,
            )
        )  # fmt: skip
    from rtsched.commands._dag import dag_format

    dag = dag_format(file, fmt, kind)
    if dag is not None:
        from rtsched.commands._dag import check_dag_file, refuse_task_options

        refuse_task_options(
            {
                "--deadlines": (deadlines, "constrained"),
                "--time-unit": (time_unit, None),
                "--priorities": (priorities, "given"),
            }
        )
        dag_platform = _dag_platform(platform, processors)
        raise typer.Exit(
            check_dag_file(
                file, dag, dag_platform, tests=tests, policy=policy, explain=explain, steps=steps, as_json=as_json,
                as_csv=as_csv, budgets=budgets,
            )
        )  # fmt: skip
    if processors is None or (policy is None and tests is None):
        processors, policy = _simso_defaults(file, fmt, processors, policy, tests)
    if processors is None:
        raise InputError("give the number of processors with -m M", field="-m")
    target: Identical | Clustered
    if platform.startswith("clustered"):
        match = re.fullmatch(r"clustered:k=(\d+)(:.*)?", platform.strip())
        if not match:
            raise InputError(
                f"bad clustered platform {platform!r}; expected clustered:k=<k>[:options]", field="--platform"
            )
        target = Clustered(processors, int(match.group(1)))
        if match.group(2) and tests is None:
            tests = platform.strip()  # the clustered analysis with its options
    else:
        if not re.fullmatch(r"identical(:\d+)?", platform.strip()):
            raise InputError(
                f"unknown platform {platform!r}; use identical, clustered:k=<k> or gpu:<M>", field="--platform"
            )
        target = parse_platform(platform, processors)  # type: ignore[assignment]
    sets = read_tasksets(file if file == "-" else Path(file), format=fmt, deadlines=deadlines, time_unit=time_unit)  # type: ignore[arg-type]
    if priorities != "given":
        from rtsched.priorities import reorder_all

        sets, notes = reorder_all(sets, priorities, processors)
        for note in notes:
            typer.echo(note, err=True)
    if tests is not None:
        try:
            named = resolve_list(tests, workload=TASKSETS)  # unknown names fail before any work
        except InputError as err:
            raise err.located(field="--tests") from None
        refusals = [(entry.name, entry.refuses_platform(target)) for entry in named]
        if all(why is not None for _, why in refusals):  # nothing named can run here: bad input, as in a sweep
            name, why = refusals[0]
            raise InputError(f"analysis {name!r} does not apply to this platform: {why}", field="--tests")
    if policy is not None:
        _check_policy(policy, tests)
    reports = _reports(sets, target, tests, budgets)  # decided as they are printed
    all_proven = echo_reports(sets, reports, policy, explain=explain, steps=steps, as_json=as_json, as_csv=as_csv)
    raise typer.Exit(0 if all_proven else 1)


#: Sets decided per batch call: the first batch, and the largest (a batch that took under
#: :data:`_BATCH_SECONDS` doubles the next one).
_FIRST_BATCH, _LARGEST_BATCH, _BATCH_SECONDS = 32, 4096, 1.0
#: Seconds after which a terminal shows the progress line.
_PROGRESS_AFTER = 2.0


def _reports(sets: list[Any], target: Any, tests: str | None, budgets: Any, stream: Any = None) -> Iterator[Any]:
    """``check_many``'s reports in order, decided in batches that grow while they take under a second.

    The output then starts with the first batch instead of after the last set, and on a terminal
    a line on stderr says how far a long run is (an exact test can take seconds per set). Each
    set's verdicts do not depend on the batch it is in.
    """
    import time

    from rtsched.warmup import COLD_MAX_SETS

    stream = sys.stderr if stream is None else stream
    start = time.monotonic()
    done, size = 0, _FIRST_BATCH
    if len(sets) > COLD_MAX_SETS:
        # A first batch within check_many's small-input size would be decided by the exact
        # references until each analysis had spent its kernels' load time in them (rtsched.check's
        # ski rental), which a file this large will pay anyway: its kernels decide from the start.
        size = max(size, COLD_MAX_SETS + 1)
    shown = False
    while done < len(sets):
        began = time.monotonic()
        yield from check_many(sets[done : done + size], target, tests, budgets)
        done += min(size, len(sets) - done)
        if time.monotonic() - began < _BATCH_SECONDS:
            size = min(2 * size, _LARGEST_BATCH)
        elapsed = time.monotonic() - start
        if elapsed > _PROGRESS_AFTER and done < len(sets) and stream.isatty():
            left = elapsed / done * (len(sets) - done)
            print(
                f"\rrtsched check: {done}/{len(sets)} sets, {elapsed:.0f} s, about {left:.0f} s left ",
                end="",
                file=stream,
                flush=True,
            )
            shown = True
    if shown:
        print(file=stream, flush=True)


def _simso_defaults(
    file: str, fmt: str | None, processors: int | None, policy: str | None, tests: str | None
) -> tuple[int | None, str | None]:
    """For a SimSo configuration: m from its processors and the policy of its scheduler, unless given."""
    from rtsched.io import detect_format, read_text, simso_platform

    if file == "-" and fmt is None:
        return processors, policy
    if (fmt or detect_format(file)).lower().lstrip(".") not in ("simso", "simso.xml"):
        return processors, policy
    source = "<stdin>" if file == "-" else file
    if file == "-":
        raise InputError("give -m: the processors of a SimSo configuration are read only from a file", field="-m")
    try:
        platform = simso_platform(read_text(file, source))
    except InputError as err:
        raise err.located(file=source) from None
    if policy is None and tests is None:
        policy = platform.policy
    return (platform.processors if processors is None else processors), policy


def _dag_platform(platform: str, processors: int | None) -> Any:
    """The platform of a DAG file: ``Identical(m)``, or ``typed:<type>=<units>,...`` (then -m, if given, is their sum)."""
    from rtsched.platform import Identical, Typed, parse_platform

    spec = platform.strip()
    if spec.startswith("typed"):
        try:
            typed = parse_platform(spec)
        except InputError as err:
            raise InputError(err.message, field="--platform") from None
        assert isinstance(typed, Typed)
        if processors is not None and processors != typed.size:
            raise InputError(f"-m {processors} differs from the {typed.size} units of --platform {spec}", field="-m")
        return typed
    if spec not in ("identical", f"identical:{processors}"):
        raise InputError(
            f"DAG task sets run on identical processors (-m M) or a typed platform (typed:cpu=4,gpu=1), "
            f"not --platform {platform}",
            field="--platform",
        )
    if processors is None:
        raise InputError("give the number of processors with -m M", field="-m")
    from rtsched.kernels import check_processors

    try:
        return Identical(check_processors(processors))
    except InputError as err:
        raise InputError(err.message, field="-m") from None


def _check_policy(policy: str, tests: str | None) -> None:
    """Refuse a policy no registered (or no selected) analysis decides."""
    from rtsched.registry import all_entries

    known = sorted({e.policy for e in all_entries()})
    if policy not in known:
        raise InputError(f"unknown policy {policy!r}; known: {', '.join(known)}", field="--policy")
    if tests is not None and not any(e.policy == policy for e in resolve_list(tests)):
        raise InputError(f"none of the analyses in --tests decides policy {policy!r}", field="--policy")


def register(app: typer.Typer) -> None:
    """Add ``check`` to the CLI."""
    app.command("check")(check_command)
