"""rtsched: exact and fast schedulability analysis of sporadic real-time task sets.

>>> import rtsched
>>> ts = rtsched.TaskSet.from_tasks([(2, 3, 3), (2, 3, 3), (2, 3, 3)])
>>> rtsched.check(ts, m=3, tests=["gfb"]).schedulable
False
"""

from rtsched import _bootstrap

_bootstrap.install_source_tree()  # before any subpackage import: see rtsched/_bootstrap.py
_bootstrap.install_numba_cache()  # before any kernel is defined

from rtsched._version import __version__  # noqa: E402
from rtsched.check import check, check_many  # noqa: E402 - after the bootstrap and the model
from rtsched.errors import InputError, RtschedError, TaskError, UnknownVerdictError  # noqa: E402
from rtsched.model import MAX_TIME, Task, TaskSet, TaskSetBatch  # noqa: E402
from rtsched.result import UNKNOWN, Report, Result  # noqa: E402

__all__ = [
    "MAX_TIME",
    "UNKNOWN",
    "InputError",
    "Report",
    "Result",
    "RtschedError",
    "Task",
    "TaskError",
    "TaskSet",
    "TaskSetBatch",
    "UnknownVerdictError",
    "__version__",
    "check",
    "check_many",
]
