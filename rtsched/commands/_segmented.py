"""CPU–GPU segmented task-set files in ``rtsched check`` (issue #43).

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

__all__ = ["check_segmented_file", "refuse_task_options", "segmented_format"]

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
