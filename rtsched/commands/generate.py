"""``rtsched generate``: write random integer task sets to a file (see :mod:`rtsched.generators`).

The generators and their sources are documented in ``papers/`` (UUniFast, UUniFast-Discard,
RandFixedSum, ConvolutionalFixedSum, the automotive period shares). The output is a function of
the options only: the same ``--seed`` gives a byte-identical file.
"""

from __future__ import annotations

from typing import Annotated

import numpy as np
import typer

from rtsched.errors import InputError
from rtsched.generators import (
    BAKER_CAP_RULES,
    GENERATION_METHODS,
    generate_batch,
    parse_deadlines,
    parse_named_utilizations,
    parse_periods,
    parse_utilizations,
)
from rtsched.generators.named import named_utilization
from rtsched.generators.utilizations import warn_uunifast_loss
from rtsched.io import FORMATS, write_tasksets
from rtsched.sweep.experiment import GENERATOR_DEFAULTS

# The same defaults as `rtsched sweep`'s default experiment (and experiment files that leave a
# generator key out): `rtsched generate` without options draws what the default sweep plots.
_DEFAULT = GENERATOR_DEFAULTS

__all__ = ["register"]


def generate_command(
    n: Annotated[int, typer.Option("--n", help="Tasks per set.")],
    utilization: Annotated[float, typer.Option("--utilization", help="Target total utilization U (before rounding).")],
    utilizations: Annotated[
        str,
        typer.Option(
            "--utilizations",
            help="uunifast, uunifast-discard, randfixedsum or cfs; with --method baker a named per-task "
            "distribution: uni-light, uni-medium, uni-heavy, bimod-light, bimod-medium, bimod-heavy, exp-light, "
            "exp-medium or exp-heavy.",
        ),
    ] = _DEFAULT["utilizations"],
    periods: Annotated[
        str,
        typer.Option(
            "--periods",
            help="log-uniform:LO:HI[:G], uniform:LO:HI, choice:V1,V2,...[:W1,W2,...], automotive[:TICKS_PER_MS] "
            "or uni-short, uni-moderate, uni-long[:TICKS_PER_MS] (SchedCAT's 3-33, 10-100, 50-250 ms).",
        ),
    ] = _DEFAULT["periods"],
    deadlines: Annotated[
        str, typer.Option("--deadlines", help="implicit, uniform or uniform:X (D in [C+X(T-C), T]).")
    ] = _DEFAULT["deadlines"],
    umax: Annotated[float, typer.Option("--umax", help="Largest task utilization (not for uunifast).")] = _DEFAULT[
        "umax"
    ],
    method: Annotated[
        str,
        typer.Option(
            "--method",
            help="fixed (--n tasks splitting --utilization) or baker (tasks drawn one at a time from a named "
            "--utilizations distribution while the total stays within --utilization; --n is the maximum).",
        ),
    ] = "fixed",
    cap: Annotated[
        str,
        typer.Option(
            "--cap", help="--method baker: discard (drop the task that exceeds --utilization) or keep (keep it)."
        ),
    ] = "discard",
    count: Annotated[int, typer.Option("--count", help="Number of task sets.")] = 1,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the random generator (numpy default_rng).")] = 0,
    output: Annotated[str, typer.Option("-o", "--output", help="Output file, or - for standard output.")] = "-",
    fmt: Annotated[
        str | None,
        typer.Option("--format", help="yaml, json, jsonl, csv or txt (default: by extension; jsonl on stdout)."),
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Do not print the utilization summary.")] = False,
    kind: Annotated[
        str,
        typer.Option(
            "--kind",
            help="taskset (default) or segmented: CPU–GPU segmented task sets after the GCAPS setup "
            "(--n tasks per CPU, --utilization per CPU, -m CPUs, --periods in ms; papers/cpu-gpu-generators.md), "
            "or mc: dual-criticality task sets after Baruah, Burns, Davis 2011 (--utilization is U_LL + U_HL; "
            "papers/mc-model.md).",
        ),
    ] = "taskset",
    cpus: Annotated[int, typer.Option("-m", "--cpus", help="--kind segmented: number of CPUs.")] = 4,
    param: Annotated[
        list[str] | None,
        typer.Option(
            "--param",
            help="--kind segmented: another generator parameter KEY=VALUE, repeatable (gpu_tasks=0.4:0.6, "
            "gpu_segments=1:3, gpu_ratio=0.2:2, copy_share=0.1:0.3, ticks=10, devices=mig0,mig1, "
            "device_assignment=random, mode=busy). --kind mc: cp=0.5 (probability of HI), cf=2 (C(HI)/C(LO)), "
            "ticks=1000 (ticks per period unit), utilizations=uunifast|uunifast-discard|randfixedsum, umax=1, "
            "priorities=drawn|deadline-monotonic, max_tries=1000.",
        ),
    ] = None,
) -> int:
    """Generate random integer task sets (C, D, T), or CPU–GPU segmented task sets, and write them to a file.

    C = round(u * T) (half to even), at least 1 and at most T; D is drawn after rounding, so
    C <= D <= T. The realised utilization of the sets is printed on standard error. The defaults
    are those of `rtsched sweep` (UUniFast-Discard, periods of 1,000-100,000 ticks, D uniform in
    [C, T]). Plain uunifast with --utilization above 1 draws task utilizations above 1, which the
    rounding caps at C = T: a warning says so.

    --method baker draws each task's utilization from a named distribution (--utilizations
    uni-light ... exp-heavy, SchedCAT's values) and adds tasks while the set's utilization stays
    within --utilization (--cap keep: until it exceeds it); --n is the largest number of tasks
    (papers/named-generators.md).

    --kind segmented draws CPU–GPU segmented task sets after the GCAPS experiment (ECRTS 2024):
    --n tasks on each of -m CPUs (default 4), each CPU's utilization --utilization split by
    UUniFast, 40-60 % GPU tasks, periods uniform in 30-500 ms (--periods, in ms) times 10 ticks
    per ms, rate-monotonic priorities, every task on its CPU; --param KEY=VALUE sets the other
    parameters (papers/cpu-gpu-generators.md). Written as YAML (default, also on stdout) or JSON.

    --kind mc draws dual-criticality task sets after Baruah, Burns, Davis (RTSS 2011): --n tasks,
    UUniFast utilizations summing to --utilization (the LO-mode utilization U_LL + U_HL), periods
    log-uniform in 10-1000 (--periods) times ticks, each task HI with probability cp and
    C(HI) = cf·C(LO), implicit deadlines (--deadlines constrained: D uniform in [C, T]); --param
    KEY=VALUE sets cp, cf, ticks and the others (papers/mc-model.md). Written as YAML (default,
    also on stdout), JSON or CSV; the realised mean U_LL, U_HL, U_HH go to standard error.
    """
    if kind != "taskset":
        for flag, value_given, usual in (("--method", method, "fixed"), ("--cap", cap, "discard")):
            if value_given != usual:
                raise InputError("applies to --kind taskset only", field=flag)
    if kind == "segmented":
        from rtsched.commands._segmented import generate_segmented

        for option, value, default in (
            ("--utilizations", utilizations, _DEFAULT["utilizations"]),
            ("--umax", umax, _DEFAULT["umax"]),
        ):
            if value != default:
                raise InputError("applies to --kind taskset, not to segmented task sets", field=option)
        raise typer.Exit(
            generate_segmented(
                n=n, utilization=utilization, m=cpus,
                periods=None if periods == _DEFAULT["periods"] else periods,
                deadlines=None if deadlines == _DEFAULT["deadlines"] else deadlines,
                params=list(param or ()), count=count, seed=seed, output=output, fmt=fmt, quiet=quiet,
            )
        )  # fmt: skip
    if kind == "mc":  # dual-criticality task sets (issue #44): rtsched.commands._mc
        from rtsched.commands._mc import generate_mc

        for option, value, default in (
            ("--utilizations", utilizations, _DEFAULT["utilizations"]),
            ("--umax", umax, _DEFAULT["umax"]),
            ("-m", cpus, 4),
        ):
            if value != default and option == "-m":
                raise InputError("applies to --kind segmented only", field=option)
            if value != default:
                raise InputError(
                    "applies to --kind taskset; for mixed-criticality task sets give utilizations=... / umax=... "
                    "with --param",
                    field=option,
                )
        raise typer.Exit(
            generate_mc(
                n=n, utilization=utilization,
                periods=None if periods == _DEFAULT["periods"] else periods,
                deadlines=None if deadlines == _DEFAULT["deadlines"] else deadlines,
                params=list(param or ()), count=count, seed=seed, output=output, fmt=fmt, quiet=quiet,
            )
        )  # fmt: skip
    if kind != "taskset":
        raise InputError(
            f"unknown kind {kind!r}; choose taskset or segmented (CPU–GPU) or mc (mixed criticality)", field="--kind"
        )
    for option, given in (("-m", cpus != 4), ("--param", bool(param))):
        if given:
            raise InputError("applies to --kind segmented only", field=option)
    # Check every option before drawing anything, so that errors name the option.
    if method not in GENERATION_METHODS:
        raise InputError(
            f"unknown generation method {method!r}; choose one of {', '.join(GENERATION_METHODS)}", field="--method"
        )
    if method == "baker" or cap != "discard":
        if cap not in BAKER_CAP_RULES:
            raise InputError(f"unknown cap rule {cap!r}; choose one of {', '.join(BAKER_CAP_RULES)}", field="--cap")
        if method != "baker":
            raise InputError("applies to --method baker only", field="--cap")
        parse_named_utilizations(utilizations)
    elif named_utilization(utilizations) is not None:
        raise InputError(
            f"{utilizations!r} draws each task's utilization on its own: add --method baker", field="--utilizations"
        )
    else:
        parse_utilizations(utilizations)
    parse_periods(periods)
    parse_deadlines(deadlines)
    if n < 1:
        raise InputError(f"must be a positive number of tasks, got {n}", field="--n")
    if count < 1:
        raise InputError(f"must be a positive number of task sets, got {count}", field="--count")
    if seed < 0:
        raise InputError(f"must be a non-negative integer, got {seed}", field="--seed")
    if fmt is not None and fmt not in FORMATS:
        raise InputError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}", field="--format")
    if utilizations.strip() == "uunifast" and utilization > 1:
        import warnings

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            message = warn_uunifast_loss(n, utilization)
        if message and caught:
            typer.echo(f"rtsched: warning: {message}", err=True)
    rng = np.random.default_rng(seed)
    generated = generate_batch(
        rng,
        n=n,
        utilization=utilization,
        size=count,
        utilizations=utilizations,
        periods=periods,
        deadlines=deadlines,
        umax=umax,
        method=method,
        cap=cap,
    )
    if fmt is None and output == "-":
        fmt = "jsonl"
    write_tasksets(output, list(generated.batch), format=fmt)
    if not quiet:
        realized = generated.realized_utilization
        sizes = generated.batch.sizes
        tasks = f"{n} tasks" if method == "fixed" else f"at most {n} tasks (mean {sizes.mean():.4g})"
        bound = "target U" if method == "fixed" else "bound U"
        typer.echo(
            f"rtsched: wrote {count} task set(s) of {tasks} to {output}; {bound} = {utilization}, "
            f"realised U mean {realized.mean():.6g} (min {realized.min():.6g}, max {realized.max():.6g})",
            err=True,
        )
    raise typer.Exit(0)


def register(app: typer.Typer) -> None:
    """Add ``generate`` to the CLI."""
    app.command("generate")(generate_command)
