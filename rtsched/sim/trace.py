"""The :class:`Trace` of one simulation run (see papers/simulator.md).

A trace is immutable and holds plain read-only ``int64`` arrays, one row per event:

* ``releases``: ``(task, job, release, deadline)`` — job ``j`` of task ``i`` is its ``j``-th
  release, counted from 0;
* ``segments``: ``(processor, task, job, start, end)`` — the job ran on the processor during
  ``[start, end)``;
* ``preemptions``: ``(time, task, job, processor)`` — the job lost its processor at ``time`` with
  work left;
* ``migrations``: ``(time, task, job, from_processor, to_processor)`` — the job resumed on
  another processor than the one it last ran on;
* ``tie_decisions``: ``(time, task, job, won)`` — at the dispatch at ``time``, jobs with the same
  absolute deadline competed for the same processors: ``won = 1`` for those that ran, 0 for
  those that waited. One row per job involved, logged when the decision differs from the
  previous dispatch's (a tie that persists across events is logged once).

A run without recording (the fast path) has empty arrays and only counts jobs and finds the
first miss. Under random execution (``execution="random"``) a recorded run also lists each
job's demand, ``demands[r]`` for the job of ``releases[r]``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from rtsched.result import count

if TYPE_CHECKING:
    from rtsched.model import TaskSet

__all__ = ["DeadlineMiss", "Trace", "fast_trace"]


@dataclass(frozen=True)
class DeadlineMiss:
    """The first deadline miss: job ``job`` of ``task`` still had ``remaining`` work at ``time``.

    ``job`` and ``remaining`` are ``-1`` when the run did not record a trace.
    """

    time: int
    task: int
    job: int = -1
    remaining: int = -1


def _frozen(rows: NDArray[np.int64], width: int) -> NDArray[np.int64]:
    if rows is _EMPTY.get(width):  # the shared empty tables (immutable): no copy
        return rows
    out = np.array(rows, dtype=np.int64, copy=True).reshape(-1, width)
    out.setflags(write=False)
    return out


def _empty(width: int) -> NDArray[np.int64]:
    out = np.zeros((0, width), dtype=np.int64)
    out.setflags(write=False)
    return out


#: One read-only empty table per width, shared by the traces that have no rows (runs without a
#: trace make one Trace per call; copying five empty tables was a sizeable part of a short run).
_EMPTY = {4: _empty(4), 5: _empty(5)}


@dataclass(frozen=True)
class Trace:
    """What happened in one simulation run.

    Attributes
    ----------
    taskset, m:
        The simulated system.
    policy:
        ``"gedf"``, ``"pedf"``, ``"gfp"`` or ``"pfp"`` (fixed priorities: the task order).
    partition:
        Processor of each task under ``pedf``/``pfp``; ``None`` under ``gedf``/``gfp``.
    arrivals:
        ``"periodic"``, ``"sporadic"`` or ``"explicit"``.
    ties:
        Tie rule between equal absolute deadlines: ``"index"``, ``"fifo"`` or ``"random:SEED"``.
    tie_choices:
        Explicit tie decisions ``(time, winners)`` that overrode the rule for one tick each.
    horizon:
        Jobs were released at ``t < horizon`` and deadlines ``<= horizon`` checked.
    end_time:
        Where the run stopped (the miss time, or the horizon).
    jobs:
        Number of jobs released.
    miss:
        The first deadline miss, or ``None``.
    seed:
        Seed of the sporadic arrivals (``None`` otherwise).
    releases, segments, preemptions, migrations, tie_decisions:
        Event tables (see the module docstring); empty when the run did not record.
    execution:
        ``"wcet"`` (every job ran for its ``C``) or ``"random"`` (demands uniform in ``[1, C]``).
    demands:
        Random execution, recorded runs: the demand of each job, one per row of
        ``releases`` (read-only ``int64``); ``None`` otherwise (a job's demand is its ``C``).
    repeats_at:
        Periodic runs of sets with ``D > T`` (default horizon): the first multiple of the
        hyperperiod at which no job was pending, where the run stopped; the synchronous periodic
        schedule repeats from there, so no miss up to it proves that no job ever misses under
        this release pattern. ``None`` otherwise (for ``D <= T`` the hyperperiod itself plays
        this role; papers/simulator.md).
    tardiness:
        Runs with ``after_miss="continue"``: each task's observed maximum tardiness (finish −
        deadline over its jobs, 0 if none was late); every job released before the horizon ran
        to completion, and ``end_time`` is the last completion. ``None`` for runs that stop
        at the first miss.
    """

    taskset: TaskSet
    m: int
    policy: str
    partition: tuple[int, ...] | None
    arrivals: str
    horizon: int
    end_time: int
    jobs: int
    miss: DeadlineMiss | None
    seed: int | None = None
    releases: NDArray[np.int64] = field(default_factory=lambda: _EMPTY[4])
    segments: NDArray[np.int64] = field(default_factory=lambda: _EMPTY[5])
    preemptions: NDArray[np.int64] = field(default_factory=lambda: _EMPTY[4])
    migrations: NDArray[np.int64] = field(default_factory=lambda: _EMPTY[5])
    ties: str = "index"
    tie_choices: tuple[tuple[int, tuple[int, ...]], ...] = ()
    tie_decisions: NDArray[np.int64] = field(default_factory=lambda: _EMPTY[4])
    repeats_at: int | None = None
    tardiness: tuple[int, ...] | None = None
    execution: str = "wcet"
    demands: NDArray[np.int64] | None = None

    def __post_init__(self) -> None:
        for name, width in (
            ("releases", 4),
            ("segments", 5),
            ("preemptions", 4),
            ("migrations", 5),
            ("tie_decisions", 4),
        ):
            object.__setattr__(self, name, _frozen(getattr(self, name), width))
        if self.tie_choices or not isinstance(self.tie_choices, tuple):
            object.__setattr__(
                self, "tie_choices", tuple((int(t), tuple(int(i) for i in w)) for t, w in self.tie_choices)
            )
        if self.demands is not None:
            demands = np.array(self.demands, dtype=np.int64, copy=True).reshape(-1)
            demands.setflags(write=False)
            object.__setattr__(self, "demands", demands)
        if self.tardiness is not None:
            object.__setattr__(self, "tardiness", tuple(int(x) for x in self.tardiness))

    @property
    def schedulable_so_far(self) -> bool:
        """True if no deadline was missed up to ``end_time`` (a miss *proves* unschedulability)."""
        return self.miss is None

    @property
    def recorded(self) -> bool:
        """True if the event tables were recorded."""
        return self.releases.shape[0] > 0 or self.jobs == 0

    def release_times(self) -> list[list[int]]:
        """Release times per task (recorded runs only), e.g. to replay the run."""
        out: list[list[int]] = [[] for _ in range(self.taskset.n)]
        for task, _job, release, _deadline in self.releases.tolist():
            out[task].append(release)
        return out

    def executed(self, task: int, job: int) -> int:
        """Ticks executed by one job (recorded runs only)."""
        rows = self.segments[(self.segments[:, 1] == task) & (self.segments[:, 2] == job)]
        return int((rows[:, 4] - rows[:, 3]).sum())

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (event tables as lists of rows)."""
        return {
            "taskset": self.taskset.rows(),
            "m": self.m,
            "policy": self.policy,
            "partition": None if self.partition is None else list(self.partition),
            "arrivals": self.arrivals,
            "seed": self.seed,
            "ties": self.ties,
            "tie_choices": [[t, list(w)] for t, w in self.tie_choices],
            "horizon": self.horizon,
            "end_time": self.end_time,
            "jobs": self.jobs,
            "miss": None
            if self.miss is None
            else {
                "time": self.miss.time,
                "task": self.miss.task,
                "job": self.miss.job,
                "remaining": self.miss.remaining,
            },
            "releases": self.releases.tolist(),
            "segments": self.segments.tolist(),
            "preemptions": self.preemptions.tolist(),
            "migrations": self.migrations.tolist(),
            "tie_decisions": self.tie_decisions.tolist(),
            "repeats_at": self.repeats_at,
            **({} if self.tardiness is None else {"tardiness": list(self.tardiness)}),
            **({} if self.execution == "wcet" else {"execution": self.execution}),
            **({} if self.demands is None else {"demands": self.demands.tolist()}),
        }

    def summary(self) -> str:
        """One line: the outcome of the run."""
        if self.policy in ("gfp", "pfp"):
            ties = "task-order priorities"
        else:
            ties = f"{self.ties} ties" + (
                f" + {count(len(self.tie_choices), 'explicit choice')}" if self.tie_choices else ""
            )
        where = f"{self.policy} on m={self.m}, {self.arrivals} arrivals, {ties}"
        if self.execution != "wcet":
            where += f", {self.execution} execution"
        if self.tardiness is not None:
            return self._tardiness_summary(where)
        if self.miss is None:
            tail = ""
            if self.repeats_at is not None:
                tail = f"; no job pending at t={self.repeats_at}, the schedule repeats from there"
            elif self.arrivals == "periodic" and not self.taskset.is_constrained:
                tail = "; D > T: later hyperperiods not decided (no idle multiple of the hyperperiod seen)"
            return f"no deadline miss in [0, {self.end_time}] ({self.jobs} jobs, {where}{tail})"
        who = self.taskset.label(self.miss.task)
        job = f" job {self.miss.job}" if self.miss.job >= 0 else ""
        left = f" with {count(self.miss.remaining, 'tick')} left" if self.miss.remaining >= 0 else ""
        return f"deadline miss: {who}{job} at t={self.miss.time}{left} ({self.jobs} jobs, {where})"

    def _tardiness_summary(self, where: str) -> str:
        """The one line of a run that kept going after misses (``after_miss="continue"``)."""
        assert self.tardiness is not None
        head = (
            f"every job released before {self.horizon} completed by t={self.end_time} "
            f"({self.jobs} jobs, {where}, late jobs kept running)"
        )
        worst = max(self.tardiness, default=0)
        if worst == 0:
            return f"no deadline miss: {head}"
        who = self.taskset.label(self.tardiness.index(worst))
        first = f"; first miss at t={self.miss.time}" if self.miss is not None else ""
        return f"max tardiness {count(worst, 'tick')} ({who}){first}: {head}"

    def __str__(self) -> str:
        return self.summary()


#: Trace's default field values (for :func:`fast_trace`).
_DEFAULTS: dict[str, Any] = {
    "seed": None,
    "releases": _EMPTY[4],
    "segments": _EMPTY[5],
    "preemptions": _EMPTY[4],
    "migrations": _EMPTY[5],
    "ties": "index",
    "tie_choices": (),
    "tie_decisions": _EMPTY[4],
    "repeats_at": None,
    "tardiness": None,
    "execution": "wcet",
    "demands": None,
}


def fast_trace(**values: Any) -> Trace:
    """A :class:`Trace` without a trace's tables (a run without recording), built without ``__init__``.

    The simulator's fast path makes one per call; the frozen dataclass's ``__init__`` and
    ``__post_init__`` were a third of a short run's cost. ``values`` must be already normalised
    (ints, tuples): what ``Trace.__post_init__`` would make of them, as ``simulate`` passes.
    """
    trace = object.__new__(Trace)
    trace.__dict__.update(_DEFAULTS)
    trace.__dict__.update(values)
    return trace
