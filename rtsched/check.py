"""``rtsched.check``: run analyses on one task set and gather their verdicts and evidence."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rtsched.kernels import check_processors
from rtsched.model import TaskSet
from rtsched.registry import resolve_list
from rtsched.result import Report

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
        analysis proves the set schedulable.

    Examples
    --------
    >>> import rtsched
    >>> rtsched.check([(2, 3, 3), (2, 3, 3), (2, 3, 3)], m=3, tests="gfb").verdicts
    {'gfb': False}
    """
    ts = taskset if isinstance(taskset, TaskSet) else TaskSet.from_tasks(taskset)
    m = check_processors(m)
    results = []
    skipped: dict[str, str] = {}
    for entry in resolve_list(tests, ts, m):
        why = entry.supports(ts, m)
        if why is not None:
            skipped[entry.name] = why
            continue
        results.append(entry.explain(ts, m))
    return Report(ts, m, tuple(results), skipped)
