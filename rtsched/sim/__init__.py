"""Global and partitioned EDF / fixed-priority simulator: integer time, event-driven Numba kernel, Gantt charts.

Policies ``gedf``, ``pedf``, ``gfp``, ``pfp``; fixed priorities are the task order.

See papers/simulator.md for the semantics (integer ticks, tie rules between equal deadlines:
lowest index, FIFO, seeded random or explicit choices; the release models; what a miss proves).
Execution times: every job its WCET (default) or, with ``execution="random"``, a seeded demand
uniform in ``[1, C]`` per job (:data:`EXECUTIONS`).

>>> from rtsched.model import TaskSet
>>> from rtsched.sim import simulate
>>> dhall = TaskSet.from_tasks([(1, 9, 9), (1, 9, 9), (10, 10, 10)])  # examples/tasksets/dhall.txt
>>> print(simulate(dhall, m=2))
deadline miss: τ2 job 0 at t=10 with 1 tick left (5 jobs, gedf on m=2, periodic arrivals, index ties)
"""

from rtsched.sim.run import EXECUTIONS, POLICIES, TIE_RULES, default_horizon, parse_ties, simulate, simulate_batch
from rtsched.sim.trace import DeadlineMiss, Trace

__all__ = [
    "EXECUTIONS",
    "POLICIES",
    "TIE_RULES",
    "DeadlineMiss",
    "Trace",
    "default_horizon",
    "parse_ties",
    "simulate",
    "simulate_batch",
]
