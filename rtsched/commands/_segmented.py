"""CPU–GPU segmented task-set files in ``rtsched check``, and ``rtsched generate --kind segmented`` (issue #43).

Which files are segmented task sets (``--kind auto``, the default): ``.yaml`` / ``.yml`` /
``.json`` files with a ``segments`` key in their first :data:`SNIFF_BYTES` bytes. A task-set,
DAG or mixed-criticality file never has one (their readers refuse unknown keys), so the sniff
cannot take a valid file of another kind for a segmented one. Standard input and ``--kind tasks``
/ ``--kind dag`` are never read as segmented sets.

The file is read by :func:`rtsched.segmented.read_segmented_tasksets` (constrained deadlines:
``D > T`` is bad input, as the analyses of issue #43 need ``D <= T``), so bad input is one
:class:`~rtsched.errors.InputError` line naming the file, line, task and field, such as
``segment 2 G_e`` (exit status 2). The platform is ``-m`` identical CPU cores; without ``-m``,
one more than the largest core a task of the file names.
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING, Any

from rtsched.commands._dag import _head, echo_reports, kind_analyses, refuse_options_for
from rtsched.errors import InputError

if TYPE_CHECKING:
    from rtsched.segmented.model import SegmentedTaskSet

__all__ = ["check_segmented_file", "generate_segmented", "refuse_task_options", "segmented_format"]

_SEGMENTS_KEY = re.compile(r"""(?m)(^|[{,\[]|-\s)\s*["']?segments["']?\s*:""")


def segmented_format(file: str, fmt: str | None, kind: str) -> str | None:
    """``"yaml"`` or ``"json"`` if ``file`` holds segmented task sets (see the module docstring), else None."""
    if kind != "auto" or file == "-":
        return None
    given = None if fmt is None else fmt.lower().lstrip(".")
    ext = os.path.splitext(file)[1].lower().lstrip(".")
    chosen = {"yml": "yaml"}.get(given or ext, given or ext)
    if chosen not in ("yaml", "json"):
        return None
    return chosen if _SEGMENTS_KEY.search(_head(file)) else None


def refuse_task_options(options: dict[str, tuple[Any, Any]]) -> None:
    """Refuse options (name: (value, default)) of the task-set path that mean nothing for segmented sets."""
    refuse_options_for(options, "CPU–GPU segmented task sets")


def _task_rows(ts: SegmentedTaskSet) -> list[dict[str, Any]]:
    return [
        {
            "task": ts.label(i),
            "core": "" if t.core is None else t.core,
            "mode": t.mode or "",
            "η": t.eta,
            "C": t.C,
            "G_m": t.G_m,
            "G_e": t.G_e,
            "D": t.D,
            "T": t.T,
            "U": t.utilization,
        }
        for i, t in enumerate(ts.tasks)
    ]


def check_segmented_file(
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
    """``rtsched check`` of a segmented file on ``processors`` CPU cores (default: the largest core named + 1).

    Without ``tests``, every registered analysis of segmented task sets that applies runs
    (selected by workload kind, so new ones join without a change here). Output as for DAG and
    mixed-criticality files: the report table and the tasks' core, mode, η, C, G_m, G_e, D, T,
    U; ``--explain``, ``--json``, ``--csv``. Returns the exit status: 0 if every set is proven
    schedulable (under ``policy`` if given), else 1.
    """
    from rtsched.check import check_many
    from rtsched.platform import Identical
    from rtsched.segmented.files import read_segmented_tasksets
    from rtsched.workloads import SEGMENTED_TASKSETS

    selected = kind_analyses(SEGMENTED_TASKSETS, tests, policy, "CPU–GPU segmented", "a seg-* analysis")
    sets = read_segmented_tasksets(file, fmt)
    if processors is None:
        named = [c for ts in sets for c in ts.cores]
        m = max(named) + 1 if named else 1
    else:
        m = processors
    if m < 1:
        raise InputError(f"must be a positive number of CPU cores, got {m}", field="-m")
    if platform.strip() not in ("identical", f"identical:{m}"):
        raise InputError(
            f"segmented task sets run on identical CPU cores (-m M; the devices are named by the tasks), not {platform!r}",
            field="--platform",
        )
    for s, ts in enumerate(sets):
        try:
            ts.check_cores(m)
        except InputError as err:
            raise err.located(file=file, set_index=s if len(sets) > 1 else None) from None
    reports = check_many(sets, Identical(m), selected if tests is not None else None, budgets)
    all_proven = echo_reports(
        sets, reports, policy, explain=explain, steps=steps, as_json=as_json, as_csv=as_csv, task_rows=_task_rows
    )
    return 0 if all_proven else 1


def _param_value(text: str) -> Any:
    """A ``--param`` value: ``a:b`` a range, ``a,b,...`` a list of names, an integer, a number or a word."""

    def scalar(part: str) -> Any:
        part = part.strip()
        for cast in (int, float):
            try:
                return cast(part)
            except ValueError:
                pass
        return part

    if ":" in text and not any(c.isalpha() for c in text):
        return tuple(scalar(p) for p in text.split(":"))
    if "," in text:
        return tuple(p.strip() for p in text.split(","))
    value = scalar(text)
    return None if value == "none" else value


def generate_segmented(
    *,
    n: int,
    utilization: float,
    m: int,
    periods: str | None,
    deadlines: str | None,
    params: list[str],
    count: int,
    seed: int,
    output: str,
    fmt: str | None,
    quiet: bool,
) -> int:
    """``rtsched generate --kind segmented``: CPU–GPU segmented task sets (the GCAPS setup), written as YAML or JSON.

    ``n`` tasks per CPU on ``m`` CPUs at per-CPU utilization ``utilization``; ``periods`` (ms) and
    ``deadlines`` (``implicit`` or ``constrained``) when given, else the generator's defaults;
    ``params``: ``KEY=VALUE`` for the other parameters of
    :func:`rtsched.generators.segmented.segmented_tasksets` (``gpu_ratio=0.2:2``,
    ``devices=mig0,mig1``, ``ticks=100``, ...). Returns the exit status (0).
    """
    import numpy as np
    import typer

    from rtsched.generators.segmented import (
        SEGMENTED_DEFAULTS,
        SEGMENTED_OPTIONAL,
        per_cpu_utilization,
        segmented_batch,
    )
    from rtsched.segmented.files import SEGMENTED_FORMATS, dumps_segmented

    options: dict[str, Any] = {}
    for item in params:
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise InputError(f"expected KEY=VALUE, got {item!r}", field="--param")
        if key in ("m", "tasks_per_cpu", "utilization"):
            flag = {"m": "-m", "tasks_per_cpu": "--n", "utilization": "--utilization"}[key]
            raise InputError(f"give {key} with {flag}, not --param", field="--param")
        if key not in SEGMENTED_DEFAULTS and key not in SEGMENTED_OPTIONAL:
            known = ", ".join(
                k for k in (*SEGMENTED_DEFAULTS, *SEGMENTED_OPTIONAL) if k not in ("m", "tasks_per_cpu", "utilization")
            )
            raise InputError(f"unknown generator parameter {key!r}; one of {known}", field="--param")
        if key in options:
            raise InputError(f"{key} is given twice", field="--param")
        options[key] = _param_value(value)
    if periods is not None:
        options["periods"] = periods
    if deadlines is not None:
        options["deadlines"] = deadlines
    if count < 1:
        raise InputError(f"must be a positive number of task sets, got {count}", field="--count")
    if seed < 0:
        raise InputError(f"must be a non-negative integer, got {seed}", field="--seed")
    if fmt is not None and fmt.lower().lstrip(".") not in (*SEGMENTED_FORMATS, "yml"):
        raise InputError(f"segmented task sets are written as yaml or json, not {fmt!r}", field="--format")
    flags = {"m": "-m", "tasks_per_cpu": "--n", "utilization": "--utilization", "periods": "--periods"}
    flags["deadlines"] = "--deadlines"
    try:
        batch = segmented_batch(
            np.random.default_rng(seed), count, m=m, tasks_per_cpu=n, utilization=utilization, **options
        )
    except InputError as err:
        raise InputError(err.message, field=flags.get(err.field or "", "--param")) from None
    sets = batch.tasksets()
    if output == "-":
        typer.echo(dumps_segmented(sets, fmt or "yaml"), nl=False)
    else:
        from rtsched.segmented.files import write_segmented_tasksets

        write_segmented_tasksets(sets, output, fmt)
    if not quiet:
        per_cpu = per_cpu_utilization(batch, m)
        typer.echo(
            f"rtsched: wrote {count} segmented task set(s) of {n} tasks per CPU on m = {m} CPUs to {output}; "
            f"target utilization per CPU {utilization}, realised mean {per_cpu.mean():.6g} "
            f"(min {per_cpu.min():.6g}, max {per_cpu.max():.6g})",
            err=True,
        )
    return 0
