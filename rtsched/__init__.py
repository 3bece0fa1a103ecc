"""rtsched: exact and fast schedulability analysis of sporadic real-time task sets.

>>> import rtsched
>>> ts = rtsched.TaskSet.from_tasks([(2, 3, 3), (2, 3, 3), (2, 3, 3)])
>>> rtsched.check(ts, m=3, tests=["gfb"]).schedulable
False
"""

from rtsched.check import check  # noqa: I001 - after the model, which it imports
from rtsched.errors import InputError, RtschedError, TaskError
from rtsched.model import MAX_TIME, Task, TaskSet, TaskSetBatch
from rtsched.result import UNKNOWN, Report, Result

__version__ = "0.1.0"

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
    "__version__",
    "check",
]
