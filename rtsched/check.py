"""``rtsched.check``: run analyses on one task set and gather their verdicts and evidence."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from rtsched.kernels import check_processors
from rtsched.model import TaskSet, TaskSetBatch
from rtsched.registry import resolve_list
from rtsched.result import UNKNOWN, LazyResult, Report, Verdict

__all__ = ["check"]


def check(taskset: TaskSet | Sequence[Any], m: int, tests: str | Sequence[str] | None = None) -> Report:
    """Check ``taskset`` on ``m`` identical processors with the named analyses.

    Parameters
    ----------
    taskset:
        A :class:`~rtsched.TaskSet`, or ``[(C, D, T), ...]``.
    m:
        Number of processors.
    tests:
        Registry names (a list, or a comma-separated string). ``None`` runs every featured
        analysis that applies to the set and platform. A named analysis that does not apply
        (e.g. a uniprocessor test with m > 1) is listed in ``Report.skipped`` with the reason.

    Returns
    -------
    Report
        Verdicts with evidence; ``report.schedulable`` is True if some sufficient or exact
        analysis proves the set schedulable under some policy (``report.schedulable_under``
        asks for one). The verdicts come from the analyses' kernels; each result's evidence
        (``report["bak"].evidence``, printing the report) is computed when first read.

    Examples
    --------
    >>> import rtsched
    >>> rtsched.check([(2, 3, 3), (2, 3, 3), (2, 3, 3)], m=3, tests="gfb").verdicts
    {'gfb': False}
    """
    ts = taskset if isinstance(taskset, TaskSet) else TaskSet.from_tasks(taskset)
    m = check_processors(m)
    entries = []
    skipped: dict[str, str] = {}
    for entry in resolve_list(tests, ts, m):
        why = entry.supports(ts, m)
        if why is None:
            entries.append(entry)
        else:
            skipped[entry.name] = why
    results = []
    if entries:
        # The set is valid already and its arrays are read-only: share them (no copy, no checks).
        offsets = np.array([0, ts.n], dtype=np.int64)
        batch = TaskSetBatch.adopt(ts.C, ts.D, ts.T, offsets, deadlines=ts.deadlines, validate=False)
        for entry in entries:  # a one-set batch runs on this thread (registry.serial_if_single)
            code = int(entry.decide(batch, m)[0])
            results.append(LazyResult(entry.name, _VERDICT[code], m, entry.kind, entry.explain, ts))
    return Report(ts, m, tuple(results), skipped)


_VERDICT: dict[int, Verdict] = {1: True, 0: False, -1: UNKNOWN}
