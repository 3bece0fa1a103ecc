"""Mixed-criticality task-set files in ``rtsched check`` (issue #44).

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
"""

from __future__ import annotations

import csv
import os
import re
from typing import TYPE_CHECKING, Any

from rtsched.commands._dag import _head, echo_reports, kind_analyses, refuse_options_for
from rtsched.errors import InputError

if TYPE_CHECKING:
    from rtsched.mc.model import MCTaskSet

__all__ = ["SNIFF_BYTES", "check_mc_file", "mc_format", "refuse_task_options"]

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
