"""``simulate_mc``: a mode-switch simulator of dual-criticality task sets (papers/mc-simulator.md).

Vestal's model (RTSS 2007) as the analyses of issue #44 read it (Baruah, Burns, Davis, RTSS 2011,
Section II; Baruah et al., ECRTS 2012, Section 2): every job of a HI task may run up to ``C(LO)``
or up to ``C(HI)``, every job of a LO task up to ``C(LO)``. The system starts in LO mode and
switches to HI mode at the instant a HI job has executed ``C(LO)`` without completing. Under
``policy="amc"`` the LO jobs are then dropped (the pending ones abandoned, no LO job released while
in HI mode); under ``policy="smc"`` they keep running, each within its ``C(LO)`` budget.

A *failure* is a deadline miss of any job while its processor is in LO mode (at or before the
switch instant), or of a HI job at any time: exactly what the MC analyses guarantee against. A
LO job that misses in HI mode (SMC only: AMC drops them) is recorded in ``MCTrace.late``,
not as a failure.

Schedulers: on one processor ``fp`` (the task order, index 0 highest, or ``priorities=``),
``edf`` and ``edf-vd`` (in LO mode a HI job's deadline is virtual, ``r + x·D`` with an exact
``Fraction`` x, or ``r + D'`` with per-task ``virtual_deadlines``; in HI mode and for LO jobs the
real ``r + D``); on ``m`` processors ``partitioned`` (``partition[i]`` is task i's core; every
core runs ``core_scheduler`` and has its *own* mode), ``global-edf-vd`` (global EDF on the
virtual deadlines, one system-wide mode) and ``global-fp`` (global fixed priorities, the task order
or ``priorities=``, one system-wide mode).

Time is integer ticks, the run is event-driven (releases, completions, deadlines and the
instants where a HI job exhausts ``C(LO)``), pure Python with heaps. The arrivals are the task
simulator's (:func:`rtsched.sim.simulate`): the same seeded sporadic law, drawn in the same
order, whatever the scheduler or the mode (a LO arrival skipped in HI mode still draws), and
execution demands come from an independent seeded stream, drawn per arrival, so that one seed
gives the same arrivals and demands under AMC and SMC and under every scheduler.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from numbers import Integral, Rational
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from rtsched.errors import InputError
from rtsched.kernels import check_processors
from rtsched.mc.model import HI, LEVELS, LO, MCTask, MCTaskSet
from rtsched.result import count
from rtsched.sim.run import (
    capped_horizon,
    check_release_gaps,
    checked_horizon,
    frozen_rows,
    parse_ties,
    probability,
    run_rngs,
)
from rtsched.sim.trace import DeadlineMiss

__all__ = [
    "CORE_SCHEDULERS",
    "MC_MAX_HORIZON",
    "MC_POLICIES",
    "MC_SCENARIOS",
    "MC_SCHEDULERS",
    "DroppedJob",
    "MCDeadlineMiss",
    "MCTrace",
    "ModeSwitch",
    "SwitchSearch",
    "default_mc_horizon",
    "simulate_mc",
    "switch_search",
]

Scheduler = Literal["fp", "edf", "edf-vd", "partitioned", "global-edf-vd", "global-fp"]
CoreScheduler = Literal["fp", "edf", "edf-vd"]
Policy = Literal["amc", "smc"]
Scenario = Literal["lo", "hi", "random", "explicit"]
Arrivals = Literal["periodic", "sporadic", "explicit"]

#: Schedulers: uniprocessor FP, EDF and EDF-VD; partitioned (one of those per core); global EDF-VD; global FP.
MC_SCHEDULERS: tuple[str, ...] = ("fp", "edf", "edf-vd", "partitioned", "global-edf-vd", "global-fp")
#: What each core of a ``partitioned`` system runs.
CORE_SCHEDULERS: tuple[str, ...] = ("fp", "edf", "edf-vd")
#: What happens to LO tasks at the switch: dropped (``amc``) or kept within C(LO) (``smc``).
MC_POLICIES: tuple[str, ...] = ("amc", "smc")
#: Execution scenarios (see :func:`~rtsched.mc.simulate_mc`).
MC_SCENARIOS: tuple[str, ...] = ("lo", "hi", "random", "explicit")
#: Cap on the default horizon (pure Python, as the DAG simulator).
MC_MAX_HORIZON = 10**6
#: Spawn key that separates the execution demands' generator from the arrivals' generator.
_EXECUTION_STREAM = 0x4D434558

_NEVER = 2**62
#: Subtracted from the keys of top-priority tasks (every scaled deadline is far smaller).
_TOP = 2**200


@dataclass(frozen=True)
class MCDeadlineMiss(DeadlineMiss):
    """A deadline miss of job ``job`` of ``task`` (released at ``release``, due at ``deadline``).

    ``time`` is the deadline; ``remaining`` the demand the job still had then; ``mode`` the mode
    of its processor at that instant (``"LO"`` or ``"HI"``; the check at an instant comes before
    a switch at that same instant); ``core`` its processor under ``partitioned``, else 0.
    """

    release: int = -1
    deadline: int = -1
    mode: str = "LO"
    core: int = 0


@dataclass(frozen=True)
class ModeSwitch:
    """A switch to HI mode at ``time`` on ``core`` (0 unless partitioned): job ``job`` of ``task`` ran C(LO) without completing."""

    time: int
    core: int
    task: int
    job: int


@dataclass(frozen=True)
class DroppedJob:
    """A LO job abandoned by AMC at a switch at ``time``, with ``remaining`` ticks of demand left."""

    time: int
    task: int
    job: int
    release: int
    deadline: int
    remaining: int


@dataclass(frozen=True)
class MCTrace:
    """What happened in one run of :func:`~rtsched.mc.simulate_mc`.

    Attributes
    ----------
    taskset, m:
        The simulated system.
    scheduler, core_scheduler:
        ``"fp"``, ``"edf"``, ``"edf-vd"``, ``"partitioned"``, ``"global-edf-vd"`` or ``"global-fp"``;
        what each core runs (the scheduler itself unless partitioned; ``"fp"`` for ``global-fp``).
    policy:
        ``"amc"`` (LO jobs dropped at the switch) or ``"smc"`` (kept within C(LO)).
    scenario:
        ``"lo"``, ``"hi"``, ``"random"`` or ``"explicit"``.
    arrivals, seed, horizon:
        The release model, the seed of the sporadic arrivals and of the random demands, and the
        horizon (releases at ``t < horizon``, deadlines ``<= horizon`` checked).
    partition, priorities, virtual_deadlines, top_priority:
        The core of each task (partitioned), the FP priority order (task indices, highest
        first; fp, global-fp and partitioned fp), each task's LO-mode relative deadline
        (EDF-VD; a ``Fraction``) and the tasks given top priority (fpEDF style).
    end_time:
        Where the run stopped: the first failure (unrecorded runs) or the horizon.
    jobs:
        Jobs released (LO arrivals skipped in HI mode by AMC are not jobs: ``skipped``).
    miss, misses:
        The first failure and every failure seen (LO-mode misses, HI misses at any time); an
        unrecorded run stops at the first.
    late:
        Misses of LO jobs in HI mode (SMC): not failures.
    switches, returns:
        Every switch to HI mode, and every return to LO mode ``(time, core)`` (``return_to_lo``).
    dropped:
        LO jobs abandoned by AMC at a switch (not misses).
    skipped:
        LO arrivals that released no job because their core was in HI mode (AMC).
    response_lo, response_hi:
        Per task, the largest response time among its jobs that completed in LO mode (their
        whole life in LO mode), resp. in HI mode (released before the switch or after it), or
        ``None``.
    overruns:
        Rows ``(task, job, demand)``: every HI job whose demand exceeded C(LO).
    releases:
        Recorded runs: rows ``(task, job, release, deadline, demand)`` of the released jobs.
    skipped_releases:
        Recorded runs: rows ``(task, job, release)`` of the skipped LO arrivals (the job index
        counts arrivals, so these indices are missing from ``releases``).
    segments:
        Recorded runs: rows ``(processor, task, job, start, end)`` as in :class:`rtsched.sim.Trace`:
        the job ran there during ``[start, end)``.
    """

    taskset: MCTaskSet
    m: int
    scheduler: str
    core_scheduler: str
    policy: str
    scenario: str
    arrivals: str
    seed: int | None
    horizon: int
    end_time: int
    jobs: int
    miss: MCDeadlineMiss | None
    misses: tuple[MCDeadlineMiss, ...]
    late: tuple[MCDeadlineMiss, ...]
    switches: tuple[ModeSwitch, ...]
    returns: tuple[tuple[int, int], ...]
    dropped: tuple[DroppedJob, ...]
    skipped: int
    response_lo: tuple[int | None, ...]
    response_hi: tuple[int | None, ...]
    partition: tuple[int, ...] | None = None
    priorities: tuple[int, ...] | None = None
    virtual_deadlines: tuple[Fraction, ...] | None = None
    top_priority: tuple[int, ...] = ()
    overruns: NDArray[np.int64] = field(default_factory=lambda: frozen_rows([], 3))
    releases: NDArray[np.int64] = field(default_factory=lambda: frozen_rows([], 5))
    skipped_releases: NDArray[np.int64] = field(default_factory=lambda: frozen_rows([], 3))
    segments: NDArray[np.int64] = field(default_factory=lambda: frozen_rows([], 5))

    def __post_init__(self) -> None:
        for name, width in (("overruns", 3), ("releases", 5), ("skipped_releases", 3), ("segments", 5)):
            object.__setattr__(self, name, frozen_rows(getattr(self, name), width))

    @property
    def schedulable_so_far(self) -> bool:
        """True if no failure happened up to ``end_time`` (a failure *proves* the set not MC-schedulable)."""
        return self.miss is None

    @property
    def switch_time(self) -> int | None:
        """The first switch to HI mode (any core), or ``None``."""
        return self.switches[0].time if self.switches else None

    def release_times(self) -> list[list[int]]:
        """Arrival times per task, skipped LO arrivals included (recorded runs): replay with ``releases=``."""
        rows = [(int(r[0]), int(r[1]), int(r[2])) for r in self.releases.tolist()]
        rows += [(int(r[0]), int(r[1]), int(r[2])) for r in self.skipped_releases.tolist()]
        out: list[list[int]] = [[] for _ in range(self.taskset.n)]
        for task, _job, release in sorted(rows, key=lambda row: (row[0], row[1])):
            out[task].append(release)
        return out

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (tables as lists of rows, Fractions as strings such as ``"8/3"``)."""

        def miss(m: MCDeadlineMiss) -> dict[str, Any]:
            return {
                "time": m.time, "task": m.task, "job": m.job, "remaining": m.remaining, "release": m.release,
                "deadline": m.deadline, "mode": m.mode, "core": m.core,
            }  # fmt: skip

        return {
            "taskset": [
                {"level": LEVELS[t.level], "C_LO": t.C_lo, "C_HI": t.C_hi, "T": t.T, "D": t.D, "name": t.name}
                for t in self.taskset
            ],
            "m": self.m,
            "scheduler": self.scheduler,
            "core_scheduler": self.core_scheduler,
            "policy": self.policy,
            "scenario": self.scenario,
            "arrivals": self.arrivals,
            "seed": self.seed,
            "horizon": self.horizon,
            "end_time": self.end_time,
            "jobs": self.jobs,
            "miss": None if self.miss is None else miss(self.miss),
            "misses": [miss(m) for m in self.misses],
            "late": [miss(m) for m in self.late],
            "switches": [{"time": s.time, "core": s.core, "task": s.task, "job": s.job} for s in self.switches],
            "returns": [list(r) for r in self.returns],
            "dropped": [
                {
                    "time": d.time,
                    "task": d.task,
                    "job": d.job,
                    "release": d.release,
                    "deadline": d.deadline,
                    "remaining": d.remaining,
                }
                for d in self.dropped
            ],  # fmt: skip
            "skipped": self.skipped,
            "response_lo": list(self.response_lo),
            "response_hi": list(self.response_hi),
            "partition": None if self.partition is None else list(self.partition),
            "priorities": None if self.priorities is None else list(self.priorities),
            "virtual_deadlines": None if self.virtual_deadlines is None else [str(d) for d in self.virtual_deadlines],
            "top_priority": list(self.top_priority),
            "overruns": self.overruns.tolist(),
            "releases": self.releases.tolist(),
            "skipped_releases": self.skipped_releases.tolist(),
            "segments": self.segments.tolist(),
        }

    def summary(self) -> str:
        """One line: the outcome of the run."""
        sched = self.scheduler if self.scheduler != "partitioned" else f"partitioned {self.core_scheduler}"
        where = (
            f"{sched} {self.policy.upper()} on m={self.m}, {self.arrivals} arrivals, {self.scenario} scenario"
            f", {count(self.jobs, 'job')}"
        )
        if self.switches:
            first = self.switches[0]
            more = f" (+{len(self.switches) - 1} more)" if len(self.switches) > 1 else ""
            mode = f"switch at t={first.time}{more}"
            if self.dropped or self.skipped:
                mode += f", {count(len(self.dropped), 'LO job')} dropped, {count(self.skipped, 'LO arrival')} skipped"
        else:
            mode = "no mode switch"
        if self.miss is None:
            return f"no failure in [0, {self.end_time}] ({where}; {mode})"
        miss = self.miss
        who = f"{self.taskset.label(miss.task)} ({LEVELS[self.taskset[miss.task].level]})"
        return (
            f"deadline miss: {who} job {miss.job} (released at {miss.release}) at t={miss.time} in "
            f"{miss.mode} mode with {count(miss.remaining, 'tick')} left ({where}; {mode})"
        )

    def __str__(self) -> str:
        return self.summary()


@dataclass(frozen=True)
class SwitchSearch:
    """The outcome of :func:`~rtsched.mc.switch_search`: one run per candidate overrunning job.

    Attributes
    ----------
    candidates:
        The ``(task, job)`` pairs tried, in release order (up to the first failure when the
        search stops there).
    failures:
        The failing runs (only the first unless ``stop_at_failure=False``).
    response_lo, response_hi:
        Per task, the largest LO-mode / HI-mode response time over every run.
    """

    candidates: tuple[tuple[int, int], ...]
    failures: tuple[MCTrace, ...]
    response_lo: tuple[int | None, ...]
    response_hi: tuple[int | None, ...]

    @property
    def failure(self) -> MCTrace | None:
        """The first failing run, or ``None``."""
        return self.failures[0] if self.failures else None

    def summary(self) -> str:
        """One line: how many switch instants were tried and what failed."""
        tried = count(len(self.candidates), "overrunning job")
        if not self.failures:
            return f"no failure with any of {tried}"
        first = self.failures[0]
        return f"{count(len(self.failures), 'failure')} among {tried}; first: {first.summary()}"

    def __str__(self) -> str:
        return self.summary()


def default_mc_horizon(taskset: MCTaskSet, arrivals: Arrivals, releases: Sequence[Sequence[int]] | None = None) -> int:
    """Horizon used when none is given: the DAG simulator's rules, capped at :data:`MC_MAX_HORIZON`.

    * periodic: the hyperperiod H (a switch can happen in any hyperperiod; [0, H] holds every
      relative switch instant of the synchronous pattern once);
    * sporadic: 200 times the largest period;
    * explicit: one tick after the last release plus the largest deadline (not capped).
    """
    return capped_horizon(taskset, arrivals, releases, MC_MAX_HORIZON)


def _explicit(taskset: MCTaskSet, releases: Sequence[Sequence[int]]) -> list[list[int]]:
    if len(releases) != taskset.n:
        raise InputError(f"explicit releases: {len(releases)} lists for {taskset.n} tasks", field="releases")
    out: list[list[int]] = []
    for i, times in enumerate(releases):
        clean = [int(x) for x in times]
        check_release_gaps(clean, taskset[i].T, i)
        out.append(clean)
    return out


def _overrun_table(taskset: MCTaskSet, overruns: Any) -> dict[tuple[int, int], int]:
    """``{(task, job): demand}`` from a mapping or pairs ``(task, job)`` / triples ``(task, job, demand)``."""
    items: Iterable[Any]
    if isinstance(overruns, Mapping):
        items = [(*key, value) for key, value in overruns.items()]
    else:
        items = overruns
    table: dict[tuple[int, int], int] = {}
    for row in items:
        try:
            values = [int(v) for v in row]
        except (TypeError, ValueError) as exc:
            raise InputError(f"overrun {row!r}: expected (task, job) or (task, job, demand)", field="overruns") from exc
        if len(values) not in (2, 3):
            raise InputError(f"overrun {row!r}: expected (task, job) or (task, job, demand)", field="overruns")
        i, j = values[0], values[1]
        if not 0 <= i < taskset.n:
            raise InputError(f"overrun of task {i}: tasks are 0..{taskset.n - 1}", field="overruns")
        task = taskset[i]
        if task.level != HI:
            raise InputError("only a HI task's job can overrun its C(LO)", task=taskset.label(i), field="overruns")
        if j < 0:
            raise InputError(f"overrun of job {j}: jobs are counted from 0", task=taskset.label(i), field="overruns")
        demand = values[2] if len(values) == 3 else task.C_hi
        if not task.C_lo < demand <= task.C_hi:
            raise InputError(
                f"overrun demand {demand} of job {j} must lie in (C(LO), C(HI)] = ({task.C_lo}, {task.C_hi}]",
                task=taskset.label(i),
                field="overruns",
            )
        table[(i, j)] = demand
    return table


def _ints(values: Any, field: str) -> list[int]:
    """``values`` as a list of ints, or one InputError line naming ``field``."""
    try:
        out = []
        for v in values:
            if isinstance(v, bool) or not isinstance(v, Integral | np.integer):
                raise TypeError(v)
            out.append(int(v))
    except TypeError as exc:
        raise InputError(f"expected a list of integers, got {values!r}", field=field) from exc
    return out


def _fraction(value: Any, what: str) -> Fraction:
    if isinstance(value, bool) or not isinstance(value, Rational | Integral | str):
        raise InputError(
            f"{what} must be an exact number (int, Fraction or a string such as '2/3'), got {value!r}", field="x"
        )
    try:
        x = Fraction(value)
    except (ValueError, ZeroDivisionError) as exc:
        raise InputError(f"{what}: {value!r} is not a number", field="x") from exc
    if not 0 < x <= 1:
        raise InputError(f"{what} must lie in (0, 1], got {x}", field="x")
    return x


class _Job:
    """One released job: remaining demand, ticks to its C(LO) point, and its state."""

    __slots__ = ("task", "job", "release", "deadline", "tie", "rem", "lo_left", "done", "core", "hi_task")

    def __init__(
        self,
        task: int,
        job: int,
        release: int,
        deadline: int,
        tie: int,
        demand: int,
        c_lo: int,
        core: int,
        hi_task: bool,
    ):
        self.task = task
        self.job = job
        self.release = release
        self.deadline = deadline
        self.tie = tie
        self.rem = demand
        self.lo_left = c_lo  # ticks of execution until C(LO) is used up
        self.done = False  # completed or dropped
        self.core = core
        self.hi_task = hi_task


def simulate_mc(
    taskset: MCTaskSet | Iterable[MCTask],
    m: int = 1,
    *,
    scheduler: Scheduler = "fp",
    policy: Policy = "amc",
    scenario: Scenario = "hi",
    priorities: Sequence[int] | None = None,
    x: Fraction | int | str | Sequence[Fraction | int | str] | None = None,
    virtual_deadlines: Sequence[int | None] | None = None,
    partition: Sequence[int] | None = None,
    core_scheduler: CoreScheduler = "fp",
    top_priority: Sequence[int] | None = None,
    p_overrun: float = 0.5,
    random_lo: bool = False,
    overruns: Mapping[tuple[int, int], int] | Iterable[Sequence[int]] | None = None,
    escalate: bool = False,
    return_to_lo: Literal["never", "idle"] = "never",
    arrivals: Arrivals = "periodic",
    releases: Sequence[Sequence[int]] | None = None,
    seed: int | np.random.SeedSequence = 0,
    p_delay: float = 0.5,
    max_extra: Sequence[int] | None = None,
    horizon: int | None = None,
    ties: str = "index",
    record: bool = False,
) -> MCTrace:
    """Simulate a dual-criticality task set with mode switches; see the module docstring.

    Parameters
    ----------
    taskset:
        The MC tasks (LO or HI; any deadlines, though the analyses assume D <= T).
    m:
        Number of processors: 1 for ``fp``, ``edf``, ``edf-vd``; any for ``partitioned``,
        ``global-edf-vd`` and ``global-fp``.
    scheduler:
        ``"fp"`` (priority: the task order, index 0 highest, or ``priorities``), ``"edf"``,
        ``"edf-vd"`` (needs ``x`` or ``virtual_deadlines``), ``"partitioned"`` (needs
        ``partition``; every core runs ``core_scheduler`` and switches on its own) or
        ``"global-edf-vd"`` (global EDF on the virtual deadlines, a system-wide switch) or
        ``"global-fp"`` (the m highest-priority pending jobs run, priority as for ``fp``; a
        system-wide switch: the first HI job to exhaust C(LO) on any processor switches all).
    policy:
        ``"amc"``: at a switch the pending LO jobs (of that core) are dropped and no LO job is
        released while in HI mode; ``"smc"``: LO jobs keep running, within their C(LO).
    scenario:
        The jobs' execution demands: ``"lo"`` (every job C(LO): never switches), ``"hi"`` (every
        HI job C(HI), every LO job C(LO)), ``"random"`` (each HI job overruns with probability
        ``p_overrun``, its demand then uniform in (C(LO), C(HI)]) or ``"explicit"`` (the jobs in
        ``overruns`` overrun, the others do not).
    priorities:
        FP (``fp``, ``global-fp``, partitioned ``fp``): the task indices from the highest
        priority to the lowest (default the task order).
    x:
        EDF-VD: the deadline scaling factor, an exact number in (0, 1] (``Fraction``, int or a
        string such as ``"3/4"``): a HI job released at r has the virtual deadline ``r + x·D``
        in LO mode. ``partitioned``: one value for every core or a sequence with one per core.
    virtual_deadlines:
        EDF-VD instead of ``x``: per task its LO-mode relative deadline ``D'_i`` (an int in
        ``[1, D_i]`` for a HI task, Ekberg & Yi's tuned deadlines; ``None`` or ``D_i`` for a LO task).
    partition:
        ``partitioned``: the core (0..m-1) of each task.
    core_scheduler:
        ``partitioned``: ``"fp"`` (the priorities restricted to the core), ``"edf"`` or ``"edf-vd"``.
    top_priority:
        EDF-based schedulers: tasks whose jobs go before every other job whatever their deadline
        (EDF among themselves), as fpEDF gives the heaviest tasks top priority (Baruah, IEEE TC
        2004); with ``global-edf-vd`` this is the fpEDF-based scheduler that Li and Baruah
        (ECRTS 2012) combine with virtual deadlines (see papers/mc-simulator.md).
    p_overrun:
        ``"random"``: the probability that a HI job overruns.
    random_lo:
        Jobs that do not overrun (LO jobs, and HI jobs that do not overrun) run an integer
        drawn uniformly in [1, C(LO)] instead of C(LO) (seeded).
    overruns:
        ``"explicit"``: the overrunning jobs, ``[(task, job), ...]`` (demand C(HI)) or with a
        demand ``[(task, job, demand), ...]`` or ``{(task, job): demand}``; ``job`` counts the
        task's arrivals from 0.
    escalate:
        At a switch, every pending HI job's demand becomes its C(HI), and so does every HI job
        released in HI mode: the worst case the analyses cover after the switch.
    return_to_lo:
        ``"never"`` (the analyses of #44 assume so) or ``"idle"``: a core in HI mode returns to
        LO mode at its first idle instant (no pending job after the completions at that instant,
        before the releases there).
    arrivals, releases, seed, p_delay, max_extra:
        As in :func:`rtsched.sim.simulate` (periodic, sporadic with the same seeded law, or
        explicit release times per task, gaps >= T). ``seed`` also seeds the demands (an
        independent stream).
    horizon:
        Releases at ``t < horizon``, deadlines ``<= horizon`` checked; default :func:`~rtsched.mc.sim.default_mc_horizon`.
    ties:
        EDF policies, equal (virtual) deadlines: ``"index"`` (lowest task index), ``"fifo"`` or
        ``"random:SEED"``, as in :func:`rtsched.sim.simulate`. FP: ``"index"`` only.
    record:
        Record releases and segments and go on after a failure (the job that missed keeps
        running) up to the horizon; ``False`` stops at the first failure.

    Returns
    -------
    MCTrace
        ``trace.miss`` is the first failure or ``None``; ``trace.switch_time`` the first switch.

    Raises
    ------
    InputError
        One line naming the parameter (and the task) for any bad argument.

    Examples
    --------
    >>> ts = MCTaskSet([MCTask.hi(2, 4, T=10), MCTask.lo(3, T=5)])
    >>> print(simulate_mc(ts, scenario="lo"))
    no failure in [0, 10] (fp AMC on m=1, periodic arrivals, lo scenario, 3 jobs; no mode switch)
    >>> trace = simulate_mc(ts, scenario="hi")
    >>> trace.switch_time, [(d.task, d.job) for d in trace.dropped], trace.response_hi
    (2, [(1, 0)], (4, None))
    """
    if not isinstance(taskset, MCTaskSet):
        taskset = MCTaskSet(taskset)
    n = taskset.n
    tasks = taskset.tasks
    for i, task in enumerate(tasks):
        if task.level > HI:  # pragma: no cover - the model has two levels today
            raise InputError(
                "the simulator handles two criticality levels (LO, HI)", task=taskset.label(i), field="level"
            )
    m = check_processors(m)
    if scheduler not in MC_SCHEDULERS:
        raise InputError(
            f"unknown scheduler {scheduler!r}; choose one of {', '.join(MC_SCHEDULERS)}", field="scheduler"
        )
    if policy not in MC_POLICIES:
        raise InputError(f"unknown policy {policy!r}; choose amc or smc", field="policy")
    if scenario not in MC_SCENARIOS:
        raise InputError(f"unknown scenario {scenario!r}; choose one of {', '.join(MC_SCENARIOS)}", field="scenario")
    if return_to_lo not in ("never", "idle"):
        raise InputError(f"unknown return_to_lo {return_to_lo!r}; choose never or idle", field="return_to_lo")
    if scheduler in CORE_SCHEDULERS and m != 1:
        raise InputError(
            f"{scheduler} is a uniprocessor scheduler (m = 1); on m = {m} use partitioned, global-edf-vd or global-fp",
            field="m",
        )
    # -- cores ("pools"): one per processor (partitioned), or one of m processors -------------
    if scheduler == "partitioned":
        if core_scheduler not in CORE_SCHEDULERS:
            raise InputError(
                f"unknown core_scheduler {core_scheduler!r}; choose one of {', '.join(CORE_SCHEDULERS)}",
                field="core_scheduler",
            )
        if partition is None or len(partition) != n:
            raise InputError(f"partitioned needs one core index per task ({n})", field="partition")
        core_of = _ints(partition, "partition")
        bad = [i for i, p in enumerate(core_of) if not 0 <= p < m]
        if bad:
            raise InputError(
                f"core {core_of[bad[0]]} is not in 0..{m - 1}", task=taskset.label(bad[0]), field="partition"
            )
        pools, caps, kind = m, [1] * m, core_scheduler
        part_tuple: tuple[int, ...] | None = tuple(core_of)
    else:
        if partition is not None:
            raise InputError(f"partition applies to the partitioned scheduler, not {scheduler}", field="partition")
        core_of = [0] * n
        pools, caps = 1, [m]
        if scheduler == "global-edf-vd":
            kind = "edf-vd"
        elif scheduler == "global-fp":
            kind = "fp"
        else:
            kind = scheduler
        part_tuple = None
    fixed = kind == "fp"
    # -- priorities (FP) ------------------------------------------------------------------
    rank = list(range(n))
    prio_tuple: tuple[int, ...] | None = None
    if priorities is not None:
        if not fixed:
            raise InputError("priorities apply to fixed-priority scheduling (fp)", field="priorities")
        order = _ints(priorities, "priorities")
        if sorted(order) != list(range(n)):
            raise InputError(
                f"priorities must be a permutation of the task indices 0..{n - 1}, got {order}", field="priorities"
            )
        for r, i in enumerate(order):
            rank[i] = r
    if fixed:
        prio_tuple = tuple(sorted(range(n), key=lambda i: rank[i]))
    # -- deadlines: per pool a scale q, per task the scaled LO- and HI-mode relative deadlines --
    scale = [1] * pools
    lo_rel = [t.D for t in tasks]
    hi_rel = [t.D for t in tasks]
    vd_tuple: tuple[Fraction, ...] | None = None
    if kind == "edf-vd":
        if (x is None) == (virtual_deadlines is None):
            raise InputError("edf-vd needs the factor x or the per-task virtual_deadlines (one of them)", field="x")
        if virtual_deadlines is not None:
            if len(virtual_deadlines) != n:
                raise InputError(f"virtual_deadlines needs one entry per task ({n})", field="virtual_deadlines")
            for i, (task, d) in enumerate(zip(tasks, virtual_deadlines, strict=True)):
                if d is None:
                    continue
                if isinstance(d, bool) or not isinstance(d, Integral | np.integer):
                    raise InputError(
                        f"a virtual deadline is an integer, got {d!r}", task=taskset.label(i), field="virtual_deadlines"
                    )
                d = int(d)
                if task.level == LO and d != task.D:
                    raise InputError(
                        f"a LO task keeps its real deadline D = {task.D} (got {d})",
                        task=taskset.label(i),
                        field="virtual_deadlines",
                    )
                if not 1 <= d <= task.D:
                    raise InputError(
                        f"virtual deadline {d} must lie in [1, D = {task.D}]",
                        task=taskset.label(i),
                        field="virtual_deadlines",
                    )
                lo_rel[i] = d
            vd_tuple = tuple(Fraction(d) for d in lo_rel)
        else:
            if isinstance(x, Sequence) and not isinstance(x, str):
                if scheduler != "partitioned" or len(x) != m:
                    raise InputError("x is one number, or one per core (partitioned, m values)", field="x")
                factors = [_fraction(v, f"x of core {k}") for k, v in enumerate(x)]
            else:
                factors = [_fraction(x, "x")] * pools
            scale = [f.denominator for f in factors]
            vd: list[Fraction] = []
            for i, task in enumerate(tasks):
                f = factors[core_of[i]]
                q = scale[core_of[i]]
                hi_rel[i] = q * task.D
                lo_rel[i] = f.numerator * task.D if task.level == HI else q * task.D
                vd.append(f * task.D if task.level == HI else Fraction(task.D))
            vd_tuple = tuple(vd)
    elif x is not None or virtual_deadlines is not None:
        raise InputError(f"x and virtual_deadlines apply to edf-vd, not {kind}", field="x")
    top = [False] * n
    if top_priority is not None:
        if fixed:
            raise InputError("top_priority applies to the EDF-based schedulers, not fp", field="top_priority")
        for i in top_priority:
            if isinstance(i, bool) or not isinstance(i, Integral | np.integer) or not 0 <= int(i) < n:
                raise InputError(f"top_priority: {i!r} is not a task index 0..{n - 1}", field="top_priority")
            top[int(i)] = True
    # -- scenario -------------------------------------------------------------------------
    if scenario == "explicit":
        if overruns is None:
            raise InputError("the explicit scenario needs overruns=[(task, job), ...]", field="overruns")
        table = _overrun_table(taskset, overruns)
    elif overruns is not None:
        raise InputError(f"overruns apply to the explicit scenario, not {scenario}", field="overruns")
    else:
        table = {}
    p_overrun = probability(p_overrun, "p_overrun")
    # -- arrivals -------------------------------------------------------------------------
    if releases is not None:
        arrivals = "explicit"
    if arrivals not in ("periodic", "sporadic", "explicit"):
        raise InputError(f"unknown arrivals {arrivals!r}; choose periodic, sporadic or explicit", field="arrivals")
    if arrivals == "explicit" and releases is None:
        raise InputError("explicit arrivals need a list of release times per task", field="releases")
    tie_rule, tie_seed = parse_ties(ties)
    if fixed and tie_rule != "index":
        raise InputError(
            "fp: priorities are distinct (the task order), so there are no ties; ties= applies to EDF", field="ties"
        )
    if horizon is None:
        horizon = default_mc_horizon(taskset, arrivals, releases)
    horizon = checked_horizon(horizon)
    explicit = _explicit(taskset, releases) if releases is not None else []
    extra = [t.T for t in tasks] if max_extra is None else _ints(max_extra, "max_extra")
    if len(extra) != n or any(v < 0 for v in extra):
        raise InputError("max_extra needs one non-negative value per task", field="max_extra")
    p_delay = probability(p_delay, "p_delay")
    arrival_rng, exec_rng = run_rngs(seed, _EXECUTION_STREAM)
    tie_rng = np.random.default_rng(tie_seed)
    draws = scenario == "random" or random_lo

    period = [t.T for t in tasks]
    rel_dead = [t.D for t in tasks]
    c_lo = [t.C_lo for t in tasks]
    c_hi = [t.C_hi for t in tasks]
    is_hi = [t.level == HI for t in tasks]
    amc = policy == "amc"

    def next_release(i: int, t: int) -> int:
        """Task ``i``'s arrival after one at ``t`` (the task simulator's draws, in its order)."""
        if arrivals == "periodic":
            return t + period[i]
        if arrivals == "sporadic":
            gap = period[i]
            if extra[i] > 0 and arrival_rng.random() < p_delay:
                gap += 1 + int(arrival_rng.random() * extra[i])
            return t + gap
        a = arrival_count[i]
        return explicit[i][a] if a < len(explicit[i]) else _NEVER

    def demand_of(i: int, a: int, hi_mode: bool) -> int:
        """The execution demand of arrival ``a`` of task ``i`` (three draws per arrival when random)."""
        u = exec_rng.random(3) if draws else None
        normal = c_lo[i] if not random_lo or u is None else 1 + int(u[2] * c_lo[i])
        if not is_hi[i]:
            return normal
        if escalate and hi_mode:
            return c_hi[i]
        if scenario == "hi":
            return c_hi[i]
        if scenario == "random" and u is not None and c_hi[i] > c_lo[i] and u[0] < p_overrun:
            return c_lo[i] + 1 + int(u[1] * (c_hi[i] - c_lo[i]))
        if scenario == "explicit":
            return table.get((i, a), normal)
        return normal

    arrival_count = [0] * n
    if arrivals == "periodic":
        nr = [0] * n
    elif arrivals == "sporadic":
        nr = [next_release(i, -period[i]) for i in range(n)]
    else:
        nr = [times[0] if times else _NEVER for times in explicit]
        arrival_count = [0] * n

    mode = [LO] * pools
    Entry = tuple[int, int, int, int, _Job]  # (key, tie, task, job index, job): unique before the job
    waiting: list[list[Entry]] = [[] for _ in range(pools)]
    running: list[list[Entry]] = [[] for _ in range(pools)]
    procs = [list(range(k, k + 1)) for k in range(pools)] if pools > 1 else [list(range(m))]
    free = [list(p) for p in procs]  # heaps of idle processors, lowest first
    on_cpu: dict[_Job, tuple[int, int]] = {}  # running job -> (processor, segment start)
    last_proc: dict[_Job, int] = {}
    deadlines: list[tuple[int, int, int, _Job]] = []  # (deadline, task, job index, job)
    pending = [0] * pools
    seg_rows: list[tuple[int, int, int, int, int]] = []
    rel_rows: list[tuple[int, int, int, int, int]] = []
    skip_rows: list[tuple[int, int, int]] = []
    over_rows: list[tuple[int, int, int]] = []
    resp_lo: list[int | None] = [None] * n
    resp_hi: list[int | None] = [None] * n
    misses: list[MCDeadlineMiss] = []
    late: list[MCDeadlineMiss] = []
    switches: list[ModeSwitch] = []
    returns: list[tuple[int, int]] = []
    dropped: list[DroppedJob] = []
    skipped = 0
    jobs = 0

    def key_of(job: _Job) -> int:
        if fixed:
            return rank[job.task]
        rel = lo_rel[job.task] if mode[job.core] == LO else hi_rel[job.task]
        key = scale[job.core] * job.release + rel
        return key - _TOP if top[job.task] else key

    def close(job: _Job, t: int) -> int:
        """End the running job's segment at ``t``, free its processor and return it."""
        p, start = on_cpu.pop(job)
        if record and t > start:
            seg_rows.append((p, job.task, job.job, start, t))
        heapq.heappush(free[job.core], p)
        return p

    t = 0
    next_rel = min(nr, default=_NEVER)
    while True:
        # -- releases at t --------------------------------------------------------------------
        if t < horizon and t == next_rel:
            for i in range(n):
                if nr[i] != t:
                    continue
                a = arrival_count[i]
                arrival_count[i] += 1
                k = core_of[i]
                demand = demand_of(i, a, mode[k] == HI)
                if amc and mode[k] == HI and not is_hi[i]:
                    skipped += 1
                    if record:
                        skip_rows.append((i, a, t))
                else:
                    tie = 0
                    if tie_rule == "fifo":
                        tie = t
                    elif tie_rule == "random":
                        tie = int(tie_rng.random() * 9007199254740992.0)
                    job = _Job(i, a, t, t + rel_dead[i], tie, demand, c_lo[i], k, is_hi[i])
                    jobs += 1
                    pending[k] += 1
                    if demand > c_lo[i]:
                        over_rows.append((i, a, demand))
                    if record:
                        rel_rows.append((i, a, t, job.deadline, demand))
                    heapq.heappush(deadlines, (job.deadline, i, a, job))
                    heapq.heappush(waiting[k], (key_of(job), tie, i, a, job))
                nr[i] = next_release(i, t)
            next_rel = min(nr)
        # -- dispatch: per core, the caps[k] highest-priority pending jobs --------------------
        for k in range(pools):
            ready, run, cap = waiting[k], running[k], caps[k]
            while ready and (len(run) < cap or ready[0][:4] < max(run)[:4]):
                if len(run) == cap:
                    worst = max(run, key=lambda e: e[:4])
                    run.remove(worst)
                    heapq.heappush(ready, worst)
                run.append(heapq.heappop(ready))
        if on_cpu:
            now = {e[4] for run in running for e in run}
            for job in [j for j in on_cpu if j not in now]:  # preempted
                last_proc[job] = close(job, t)
        for k in range(pools):
            idle = free[k]
            for entry in running[k]:
                job = entry[4]
                if job not in on_cpu:
                    p = last_proc.pop(job, -1)
                    if p >= 0 and p in idle:
                        idle.remove(p)
                        heapq.heapify(idle)
                    else:
                        p = heapq.heappop(idle)
                    on_cpu[job] = (p, t)
        # -- the next event -------------------------------------------------------------------
        t_next = horizon if horizon > t else t
        if next_rel < t_next:
            t_next = next_rel
        while deadlines and deadlines[0][3].done:
            heapq.heappop(deadlines)
        if deadlines and deadlines[0][0] < t_next:
            t_next = deadlines[0][0]
        for k in range(pools):
            lo_mode = mode[k] == LO
            for entry in running[k]:
                job = entry[4]
                if t + job.rem < t_next:
                    t_next = t + job.rem
                if lo_mode and job.hi_task and job.lo_left < job.rem and t + job.lo_left < t_next:
                    t_next = t + job.lo_left
        # -- advance to t_next: completions and exhausted C(LO) budgets ----------------------
        delta = t_next - t
        triggers: list[list[_Job]] = [[] for _ in range(pools)]
        for k in range(pools):
            still: list[Entry] = []
            for entry in running[k]:
                job = entry[4]
                job.rem -= delta
                job.lo_left -= delta
                if job.rem > 0:
                    still.append(entry)
                    if job.hi_task and job.lo_left == 0 and mode[k] == LO:
                        triggers[k].append(job)
                    continue
                job.done = True
                pending[k] -= 1
                close(job, t_next)
                r = t_next - job.release
                resp = resp_lo if mode[k] == LO else resp_hi
                best = resp[job.task]
                resp[job.task] = r if best is None or r > best else best
            running[k] = still
        t = t_next
        # -- deadline check (the mode before a switch at t) -----------------------------------
        stop = False
        while deadlines and deadlines[0][0] <= t:
            deadline, i, a, job = heapq.heappop(deadlines)
            if job.done:
                continue
            level = mode[job.core]
            miss = MCDeadlineMiss(deadline, i, a, job.rem, job.release, deadline, LEVELS[level], job.core)
            if is_hi[i] or level == LO:
                misses.append(miss)
                if not record:
                    stop = True
                    break
            else:
                late.append(miss)
        if stop:
            break
        # -- switches at t --------------------------------------------------------------------
        for k in range(pools):
            if not triggers[k]:
                continue
            first = min(triggers[k], key=lambda j: (j.task, j.job))
            switches.append(ModeSwitch(t, k if scheduler == "partitioned" else 0, first.task, first.job))
            mode[k] = HI
            wait = [e for e in waiting[k] if not e[4].done]
            run = [e for e in running[k] if not e[4].done]
            if amc:
                for entry in sorted(wait + run, key=lambda e: (e[2], e[3])):
                    job = entry[4]
                    if not job.hi_task:
                        job.done = True
                        pending[k] -= 1
                        dropped.append(DroppedJob(t, job.task, job.job, job.release, job.deadline, job.rem))
                        if job in on_cpu:
                            close(job, t)
                        last_proc.pop(job, None)
                wait = [e for e in wait if not e[4].done]
                run = [e for e in run if not e[4].done]
            if escalate:
                for entry in wait + run:
                    job = entry[4]
                    executed = c_lo[job.task] - job.lo_left
                    if job.hi_task and executed + job.rem < c_hi[job.task]:
                        job.rem = c_hi[job.task] - executed
            # new keys (EDF-VD: the real deadlines from now on); the dispatch re-sorts
            waiting[k] = [(key_of(e[4]), e[1], e[2], e[3], e[4]) for e in wait]
            heapq.heapify(waiting[k])
            running[k] = [(key_of(e[4]), e[1], e[2], e[3], e[4]) for e in run]
        # -- return to LO mode at an idle instant ---------------------------------------------
        if return_to_lo == "idle":
            for k in range(pools):
                if mode[k] == HI and pending[k] == 0:
                    mode[k] = LO
                    returns.append((t, k if scheduler == "partitioned" else 0))
        if t >= horizon:
            break
    for job in list(on_cpu):
        close(job, t)
    return MCTrace(
        taskset=taskset,
        m=m,
        scheduler=scheduler,
        core_scheduler=kind,
        policy=policy,
        scenario=scenario,
        arrivals=arrivals,
        seed=seed if isinstance(seed, int) else None,
        horizon=horizon,
        end_time=t,
        jobs=jobs,
        miss=misses[0] if misses else None,
        misses=tuple(misses),
        late=tuple(late),
        switches=tuple(switches),
        returns=tuple(returns),
        dropped=tuple(dropped),
        skipped=skipped,
        response_lo=tuple(resp_lo),
        response_hi=tuple(resp_hi),
        partition=part_tuple,
        priorities=prio_tuple,
        virtual_deadlines=vd_tuple,
        top_priority=tuple(i for i in range(n) if top[i]),
        overruns=frozen_rows(over_rows, 3),
        releases=frozen_rows(rel_rows, 5),
        skipped_releases=frozen_rows(skip_rows, 3),
        segments=frozen_rows(seg_rows, 5),
    )


def switch_search(
    taskset: MCTaskSet | Iterable[MCTask],
    m: int = 1,
    *,
    window: int | None = None,
    max_candidates: int = 5000,
    stop_at_failure: bool = True,
    escalate: bool = True,
    **options: Any,
) -> SwitchSearch:
    """Adversarial search of the switch instant: every HI job of the first hyperperiod overruns, one per run.

    One run of :func:`~rtsched.mc.simulate_mc` per candidate: scenario ``"explicit"`` with that job alone
    overrunning to its C(HI), and (``escalate=True``, the default) every HI job pending at the
    switch or released after it running its C(HI) too: the worst case after the switch that the
    analyses cover. The candidates are the HI jobs released in ``[0, window)`` (default: the
    hyperperiod) under the given arrivals (the scenario ``"lo"`` run's releases).

    Parameters
    ----------
    taskset, m:
        As in :func:`~rtsched.mc.simulate_mc`.
    window:
        Candidates are the HI jobs released before it; default the hyperperiod (capped by the horizon).
    max_candidates:
        Refuse (InputError) when there are more candidates: the helper is meant for small sets.
    stop_at_failure:
        Stop at the first failing run.
    escalate:
        Passed to :func:`~rtsched.mc.simulate_mc`.
    **options:
        Any other keyword of :func:`~rtsched.mc.simulate_mc` (scheduler, policy, x, arrivals, seed, ...),
        except ``scenario``, ``overruns`` and ``record`` (set here).

    Examples
    --------
    >>> ts = MCTaskSet([MCTask.lo(2, T=4), MCTask.hi(1, 4, T=8)])
    >>> print(switch_search(ts, scheduler="edf-vd", x="1/2"))
    no failure with any of 1 overrunning job
    """
    for name in ("scenario", "overruns", "record"):
        if name in options:
            raise InputError(f"switch_search sets {name} itself", field=name)
    if not isinstance(taskset, MCTaskSet):
        taskset = MCTaskSet(taskset)
    base = simulate_mc(taskset, m, scenario="lo", record=True, **options)
    if window is None:
        window = min(math.lcm(*(t.T for t in taskset)), base.horizon)
    candidates = tuple(
        (int(i), int(j))
        for i, j, r, _d, _c in sorted(base.releases.tolist(), key=lambda row: (row[2], row[0]))
        if taskset[int(i)].level == HI and taskset[int(i)].C_hi > taskset[int(i)].C_lo and r < window
    )
    if len(candidates) > max_candidates:
        raise InputError(
            f"{len(candidates)} candidate overrunning jobs (more than max_candidates = {max_candidates}); "
            "give a shorter window or a larger max_candidates",
            field="max_candidates",
        )
    n = taskset.n
    best_lo: list[int | None] = list(base.response_lo)
    best_hi: list[int | None] = [None] * n
    failures: list[MCTrace] = []
    if base.miss is not None:
        failures.append(base)
    tried: list[tuple[int, int]] = []
    for cand in candidates:
        if failures and stop_at_failure:
            break
        tried.append(cand)
        trace = simulate_mc(taskset, m, scenario="explicit", overruns=[cand], escalate=escalate, **options)
        for best, got in ((best_lo, trace.response_lo), (best_hi, trace.response_hi)):
            for i, r in enumerate(got):
                if r is not None and (best[i] is None or r > best[i]):  # type: ignore[operator]
                    best[i] = r
        if trace.miss is not None:
            failures.append(trace)
    return SwitchSearch(tuple(tried), tuple(failures), tuple(best_lo), tuple(best_hi))
