"""``simulate_segmented``: an event-driven simulator of CPU–GPU segmented task sets (papers/cpu-gpu-simulator.md).

It implements the run-time semantics of papers/cpu-gpu-model.md, which every analysis of
``rtsched.analyses.segmented`` bounds:

* ``m`` CPU cores under partitioned preemptive fixed priority: task ``i`` runs on its ``core``;
  the task order is the priority order (index 0 highest); a *boosted* job beats every
  non-boosted one on its core;
* every device a GPU segment names is a mutually exclusive resource under a **protocol**:
  ``"mpcp"`` (the device's queue is ordered by base priority; boosted holders on a core are
  ordered by base priority), ``"fmlp+"`` (FIFO queue, requests at the same instant ordered by
  priority; boosted holders on a core are ordered by the time they were granted, earlier first,
  then by priority) or ``"none"`` (no queue and no boosting: a device runs any number of
  segments at once);
* a GPU segment ``(G_m, G_e)`` of a job: request the device (wait in its queue: a ``busy`` job
  spins on its core at its base priority, a ``suspend`` job is suspended), then, holding it and
  boosted, ``⌈G_m/2⌉`` on the core, ``G_e`` on the device (a ``busy`` job spins on its core,
  boosted; a ``suspend`` job is suspended), ``⌊G_m/2⌋`` on the core, and release the device to
  the head of its queue. Under ``"none"`` the CPU-side parts and the spinning run at the base
  priority and ``G_e`` starts at once;
* **preemptive GPU scheduling**, protocols ``"gcaps"`` and ``"tsg-rr"``: no lock and no boosting;
  a job's CPU-side parts run at its base priority and its ``G_e`` is *submitted* to the device
  once ``⌈G_m/2⌉`` is done (a ``busy`` job spins on its core at its base priority until the
  ``G_e`` is finished, a ``suspend`` job is suspended). A device runs at most one ``G_e`` at a
  time: under ``"gcaps"`` the submitted part of highest GPU priority (``gpu_priorities``, default
  the task order), preemptively; under ``"tsg-rr"`` round robin in submission order (ties by
  priority), each part for at most ``time_slice`` ticks of progress while another waits (a part
  alone keeps the device). Each context switch (the device starts a part other than the one it
  ran last) costs ``epsilon`` device ticks, recorded as ``ctx`` intervals on the device.

Time is integer ticks; the run jumps from event to event (releases, ends of segment parts) in
pure Python with small per-core lists (as :mod:`rtsched.mc.sim`). At one instant the events are
taken in this order: (1) the parts that end there (a CPU segment, a CPU-side part, a GPU part)
and the device releases they lead to; (2) the releases of new jobs; (3) the grants: every free
device goes to the head of its queue, among every request made up to and at that instant (a
grant that leads to a release at the same instant, all its parts being zero, frees the device for
the next one at once); under ``gcaps`` and ``tsg-rr`` each device instead chooses its part among
every part submitted up to and at that instant (a part finished at that instant is gone; a
``tsg-rr`` slice that ends there sends its part behind the parts submitted at that instant); (4) on
each core, the highest-priority job that needs the core runs until the next event. Zero-length
parts take no time and are passed at once (a zero-length ``G_e`` is not submitted).

A job of a task starts only when the task's previous job has completed (a late job keeps
running, its successor waits). A *miss* is a job not complete at ``release + D``; it is
recorded (:class:`SegmentedMiss`) and the late job keeps running to its end, so one miss is seen
with its consequences, and every miss up to the horizon is listed.

Arrivals are those of the task simulator (:func:`rtsched.sim.simulate`) and of
:func:`~rtsched.mc.simulate_mc`: synchronous periodic, sporadic with the same seeded law
drawn in the same order, or explicit release times. Execution times are the WCETs or, with
``execution="random"``, per job and per part an integer uniform in ``0..WCET`` from a stream
independent of the arrivals, drawn at each release (``4η + 1`` draws per job, in release order),
so one seed gives the same arrivals and the same demands under every protocol and mode.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from numbers import Integral
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from rtsched.errors import InputError
from rtsched.kernels import check_processors
from rtsched.result import count
from rtsched.segmented.model import MODES, SegmentedTask, SegmentedTaskSet
from rtsched.sim.run import (
    SPORADIC_PERIODS,
    capped_horizon,
    check_release_gaps,
    checked_horizon,
    frozen_rows,
    probability,
    run_rngs,
)

__all__ = [
    "ARRIVALS",
    "EXECUTIONS",
    "PREEMPTIVE",
    "PROTOCOLS",
    "SEGMENTED_MAX_HORIZON",
    "WHATS",
    "Interval",
    "SegmentedMiss",
    "SegmentedTrace",
    "default_segmented_horizon",
    "simulate_segmented",
]

Protocol = Literal["mpcp", "fmlp+", "none", "gcaps", "tsg-rr"]
Mode = Literal["busy", "suspend"]
Arrivals = Literal["periodic", "sporadic", "explicit"]
Execution = Literal["wcet", "random"]

#: Device access protocols: priority queue (MPCP), FIFO queue (FMLP+), no contention (none),
#: preemptive GPU priorities (GCAPS), the driver's time-sliced round robin (TSG RR).
PROTOCOLS: tuple[str, ...] = ("mpcp", "fmlp+", "none", "gcaps", "tsg-rr")
#: The protocols that schedule ``G_e`` parts preemptively on the device (no lock, no boosting).
PREEMPTIVE: tuple[str, ...] = ("gcaps", "tsg-rr")
#: Release models.
ARRIVALS: tuple[str, ...] = ("periodic", "sporadic", "explicit")
#: Execution-time models: every part its WCET, or each part uniform in 0..WCET (seeded).
EXECUTIONS: tuple[str, ...] = ("wcet", "random")
#: What an :class:`~rtsched.segmented.sim.Interval` shows: on a core ``cpu`` (a CPU segment), ``G_m`` (a CPU-side part of
#: a GPU segment), ``spin-wait`` (a busy job spinning while it waits for its device),
#: ``spin-gpu`` (a busy job spinning while its G_e runs, or, under ``gcaps`` and ``tsg-rr``, while
#: it is submitted and not finished); on a device ``G_e``, and ``ctx`` (a context switch of
#: ``gcaps`` / ``tsg-rr`` towards the interval's job: ``epsilon`` ticks of device time).
WHATS: tuple[str, ...] = ("cpu", "G_m", "spin-wait", "spin-gpu", "G_e", "ctx")
#: Cap on the default horizon (pure Python, as the DAG and MC simulators).
SEGMENTED_MAX_HORIZON = 10**6
#: Spawn key that separates the execution demands' generator from the arrivals' generator.
_EXECUTION_STREAM = 0x53454758

_NEVER = 2**62
# step kinds of a job
_CPU, _REQ, _GM1, _GE, _GM2, _REL = range(6)
_WORK_ON_CORE = (_CPU, _GM1, _GM2)
_HOLDING = (_GM1, _GE, _GM2)


@dataclass(frozen=True)
class Interval:
    """Job ``job`` of ``task`` on ``resource`` (``"core0"``, ... or ``"gpu:<device>"``) during ``[start, end)``, doing ``what`` (:data:`WHATS`).

    In ``SegmentedTrace.holds``, ``what`` is ``"hold"``: the job held the device from its
    grant (``start``) to its release (``end``; equal for a segment whose parts were all zero).
    In ``SegmentedTrace.waits``, ``what`` is ``"wait"``: the job waited in the device's
    queue from its request to its grant (or to the end of the run); under ``gcaps`` and
    ``tsg-rr``, its submitted ``G_e`` did not progress (another part or a context switch ran on
    the device) during ``[start, end)``.
    """

    resource: str
    task: int
    job: int
    start: int
    end: int
    what: str


@dataclass(frozen=True)
class SegmentedMiss:
    """Job ``job`` of ``task`` (released at ``release``) was not complete at its deadline.

    ``completion`` is when it completed (after the deadline: the late job kept running), or
    ``None`` when it had not completed by the end of the run.
    """

    task: int
    job: int
    release: int
    deadline: int
    completion: int | None = None


@dataclass(frozen=True)
class SegmentedTrace:
    """What happened in one run of :func:`simulate_segmented`.

    Attributes
    ----------
    taskset, m:
        The simulated system (task order = priority order).
    protocol, mode:
        The device protocol and the waiting mode of the tasks that name none.
    arrivals, execution, seed, horizon:
        The release model, the execution-time model, the seed and the horizon (releases at
        ``t < horizon``; jobs whose deadline is at most the horizon are judged).
    jobs:
        Jobs released.
    misses:
        Every miss, by deadline (then task, job).
    response_times:
        Per task the largest response time of its completed jobs (late ones included), or
        ``None`` if none completed.
    intervals:
        Recorded runs: what ran where (:class:`~rtsched.segmented.sim.Interval`), by resource then start.
    holds:
        Recorded runs (protocols ``mpcp`` and ``fmlp+``): each device hold, grant to release
        (one still held at the horizon ends there).
    waits:
        Recorded runs (``mpcp`` and ``fmlp+``): each wait in a device queue that took time,
        request to grant (one still waiting at the horizon ends there). Under ``gcaps`` and
        ``tsg-rr``: each stretch of time during which a submitted ``G_e`` did not progress (so
        a job's ``G_e`` intervals and waits cover its submission to its end).
    releases:
        Recorded runs: rows ``(task, job, release, deadline, completion)`` (completion ``-1``:
        not complete by the horizon), in release order.
    demands:
        Recorded runs: per row of ``releases``, the job's demand of each part in execution
        order: ``C_1, ⌈G_m/2⌉_1, G_e_1, ⌊G_m/2⌋_1, C_2, ...``.
    time_slice, epsilon, gpu_priorities:
        Protocol ``tsg-rr``: the time slice; ``gcaps`` and ``tsg-rr``: the context-switch cost
        (else 0); ``gcaps``: each task's GPU rank (0 highest; the task order when not given).
    """

    taskset: SegmentedTaskSet
    m: int
    protocol: str
    mode: str
    arrivals: str
    execution: str
    seed: int | None
    horizon: int
    jobs: int
    misses: tuple[SegmentedMiss, ...]
    response_times: tuple[int | None, ...]
    intervals: tuple[Interval, ...] = ()
    holds: tuple[Interval, ...] = ()
    waits: tuple[Interval, ...] = ()
    releases: NDArray[np.int64] = field(default_factory=lambda: frozen_rows([], 5))
    demands: tuple[tuple[int, ...], ...] = ()
    time_slice: int | None = None
    epsilon: int = 0
    gpu_priorities: tuple[int, ...] | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "releases", frozen_rows(self.releases, 5))

    @property
    def schedulable_so_far(self) -> bool:
        """True if no job missed its deadline up to the horizon (a miss *proves* the set unschedulable under the protocol)."""
        return not self.misses

    @property
    def miss(self) -> SegmentedMiss | None:
        """The first miss (earliest deadline), or ``None``."""
        return self.misses[0] if self.misses else None

    @property
    def end_time(self) -> int:
        """Where the run stopped: the horizon (a run always goes on to it)."""
        return self.horizon

    def modes(self) -> tuple[str, ...]:
        """Each task's waiting mode in this run: its own, or the run's ``mode``."""
        return tuple(self.taskset.mode_of(i, self.mode) for i in range(self.taskset.n))  # type: ignore[arg-type]

    def summary(self) -> str:
        """One line: the outcome of the run."""
        where = (
            f"{self.protocol_text()} on m={self.m}, {self.mode} mode, {self.arrivals} arrivals, "
            f"{self.execution} execution, {count(self.jobs, 'job')}"
        )
        if not self.misses:
            return f"no deadline miss in [0, {self.horizon}] ({where})"
        first = self.misses[0]
        done = f"completed at {first.completion}" if first.completion is not None else f"not complete by {self.horizon}"
        more = f"; {count(len(self.misses), 'miss', 'misses')} in all" if len(self.misses) > 1 else ""
        return (
            f"deadline miss: {self.taskset.label(first.task)} job {first.job} (released at {first.release}, "
            f"due at {first.deadline}, {done}){more} ({where})"
        )

    def __str__(self) -> str:
        return self.summary()

    def protocol_text(self) -> str:
        """The protocol with its parameters: ``mpcp``, ``tsg-rr (time slice 4, ε = 1)``, ``gcaps (ε = 0)``, ..."""
        if self.protocol not in PREEMPTIVE:
            return self.protocol
        parts = [] if self.time_slice is None else [f"time slice {self.time_slice}"]
        if self.gpu_priorities is not None:
            parts.append(f"GPU priorities {','.join(map(str, self.gpu_priorities))}")
        parts.append(f"ε = {self.epsilon}")
        return f"{self.protocol} ({', '.join(parts)})"

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (intervals as dicts, releases as rows)."""

        def interval(iv: Interval) -> dict[str, Any]:
            return {
                "resource": iv.resource, "task": iv.task, "job": iv.job, "start": iv.start, "end": iv.end,
                "what": iv.what,
            }  # fmt: skip

        out: dict[str, Any] = {
            "taskset": [
                {
                    "name": t.name,
                    "segments": [s if isinstance(s, int) else [s.G_m, s.G_e, s.device] for s in t.segments()],
                    "T": t.T,
                    "D": t.D,
                    "core": t.core,
                    "mode": t.mode,
                }
                for t in self.taskset
            ],
            "m": self.m,
            "protocol": self.protocol,
            "mode": self.mode,
            "arrivals": self.arrivals,
            "execution": self.execution,
            "seed": self.seed,
            "horizon": self.horizon,
            "jobs": self.jobs,
            "schedulable_so_far": self.schedulable_so_far,
            "misses": [
                {"task": x.task, "job": x.job, "release": x.release, "deadline": x.deadline, "completion": x.completion}
                for x in self.misses
            ],
            "response_times": list(self.response_times),
            "intervals": [interval(iv) for iv in self.intervals],
            "holds": [interval(iv) for iv in self.holds],
            "waits": [interval(iv) for iv in self.waits],
            "releases": self.releases.tolist(),
            "demands": [list(d) for d in self.demands],
        }
        if self.protocol in PREEMPTIVE:
            out["time_slice"] = self.time_slice
            out["epsilon"] = self.epsilon
            out["gpu_priorities"] = None if self.gpu_priorities is None else list(self.gpu_priorities)
        return out


def default_segmented_horizon(
    taskset: SegmentedTaskSet,
    arrivals: Arrivals,
    releases: Sequence[Sequence[int]] | None = None,
    execution: Execution = "wcet",
) -> int:
    """The horizon used when none is given, at most :data:`SEGMENTED_MAX_HORIZON` (explicit: not capped).

    * periodic, WCET execution: the hyperperiod ``H``. With synchronous releases and ``D <= T``,
      a run without a miss has completed every job released before ``H`` by ``H``: the cores are
      idle, the devices free and the queues empty, the state at 0; the run repeats itself, and
      ``[0, H]`` decides the synchronous periodic pattern (as for the task simulator);
    * periodic, random execution: the smallest multiple of ``H`` that is at least
      ``rtsched.sim.run.SPORADIC_PERIODS`` (200) times the largest period (whole
      hyperperiods, each a fresh sample of the demands);
    * sporadic: 200 times the largest period (:func:`rtsched.sim.run.capped_horizon`);
    * explicit: one tick after the last release plus the largest deadline.
    """
    tasks = taskset.tasks
    if arrivals == "periodic" and execution == "random":
        hyper = math.lcm(*(t.T for t in tasks))
        want = SPORADIC_PERIODS * max(t.T for t in tasks)
        return int(min(-(-want // hyper) * hyper, SEGMENTED_MAX_HORIZON))
    return capped_horizon(tasks, arrivals, releases, SEGMENTED_MAX_HORIZON)


class _Job:
    """A released job: its steps, where it is, and its state."""

    __slots__ = (
        "task",
        "job",
        "release",
        "deadline",
        "steps",
        "demands",
        "pos",
        "rem",
        "device",
        "granted",
        "requested",
        "busy",
        "core",
        "completion",
        "row",
        "submitted",
        "wait_from",
    )

    def __init__(self, task: int, job: int, release: int, deadline: int, core: int, busy: bool) -> None:
        self.task = task
        self.job = job
        self.release = release
        self.deadline = deadline
        self.steps: list[tuple[int, int]] = []
        self.demands: tuple[int, ...] = ()
        self.pos = 0
        self.rem = 0
        self.device = -1
        self.granted = -1
        self.requested = -1
        self.busy = busy
        self.core = core
        self.completion = -1
        self.row = -1
        self.submitted = -1  # gcaps / tsg-rr: when its current G_e was submitted (-1: none)
        self.wait_from = -1  # gcaps / tsg-rr, recorded runs: since when its submitted G_e has not progressed


def _explicit(taskset: SegmentedTaskSet, releases: Any) -> list[list[int]]:
    if isinstance(releases, str | bytes) or not isinstance(releases, Sequence) or len(releases) != taskset.n:
        raise InputError(f"explicit releases: give one list of release times per task ({taskset.n})", field="releases")
    out: list[list[int]] = []
    for i, times in enumerate(releases):
        label = taskset.label(i)
        if isinstance(times, str | bytes) or not isinstance(times, Iterable):
            raise InputError(
                f"explicit releases: expected a list of times, got {times!r}", task=label, field="releases"
            )
        clean: list[int] = []
        for x in times:
            if isinstance(x, bool) or not isinstance(x, Integral | np.integer):
                raise InputError(f"explicit releases: {x!r} is not an integer tick", task=label, field="releases")
            clean.append(int(x))
        check_release_gaps(clean, taskset[i].T, label)
        out.append(clean)
    return out


def _tick_count(value: Any) -> int | None:
    """``value`` as an int if it is an integer (not a bool), else None."""
    if isinstance(value, bool) or not isinstance(value, Integral | np.integer):
        return None
    return int(value)


def _preemptive_options(
    taskset: SegmentedTaskSet, protocol: str, time_slice: Any, epsilon: Any, gpu_priorities: Any
) -> tuple[int | None, int, tuple[int, ...] | None]:
    """Check ``time_slice``, ``epsilon`` and ``gpu_priorities`` against ``protocol``; return them clean."""
    if protocol == "tsg-rr":
        if time_slice is None:
            raise InputError("protocol tsg-rr needs time_slice=, a positive number of ticks", field="time_slice")
        slice_ = _tick_count(time_slice)
        if slice_ is None or slice_ <= 0:
            raise InputError(f"time_slice must be a positive number of ticks, got {time_slice!r}", field="time_slice")
    elif time_slice is not None:
        raise InputError(f"time_slice applies to protocol tsg-rr, not {protocol}", field="time_slice")
    else:
        slice_ = None
    eps = _tick_count(epsilon)
    if eps is None or eps < 0:
        raise InputError(f"epsilon must be a non-negative number of ticks, got {epsilon!r}", field="epsilon")
    if eps and protocol not in PREEMPTIVE:
        raise InputError(f"epsilon applies to protocols gcaps and tsg-rr, not {protocol}", field="epsilon")
    if gpu_priorities is None:
        return slice_, eps, None
    if protocol != "gcaps":
        raise InputError(f"gpu_priorities applies to protocol gcaps, not {protocol}", field="gpu_priorities")
    n = taskset.n
    ranks = (
        [_tick_count(r) for r in gpu_priorities]
        if isinstance(gpu_priorities, Sequence | np.ndarray) and not isinstance(gpu_priorities, str | bytes)
        else None
    )
    if ranks is None or sorted(r if r is not None else -1 for r in ranks) != list(range(n)):
        raise InputError(
            f"gpu_priorities must list each task's GPU rank, a permutation of 0..{n - 1} (0 highest), "
            f"got {gpu_priorities!r}",
            field="gpu_priorities",
        )
    return slice_, eps, tuple(int(r) for r in ranks)  # type: ignore[arg-type]


def simulate_segmented(
    taskset: SegmentedTaskSet | Iterable[SegmentedTask],
    m: int | None = None,
    *,
    protocol: Protocol = "mpcp",
    mode: Mode = "suspend",
    horizon: int | None = None,
    arrivals: Arrivals = "periodic",
    releases: Sequence[Sequence[int]] | None = None,
    execution: Execution = "wcet",
    seed: int | np.random.SeedSequence = 0,
    p_delay: float = 0.5,
    max_extra: Sequence[int] | None = None,
    record: bool = False,
    time_slice: int | None = None,
    epsilon: int | None = None,
    gpu_priorities: Sequence[int] | None = None,
) -> SegmentedTrace:
    """Simulate a CPU–GPU segmented task set up to the horizon; see the module docstring.

    Parameters
    ----------
    taskset:
        The tasks, highest priority first; every task names its core.
    m:
        Number of CPU cores (default: the largest core named plus one).
    protocol:
        ``"mpcp"``, ``"fmlp+"``, ``"none"``, ``"gcaps"`` or ``"tsg-rr"`` (:data:`~rtsched.segmented.sim.PROTOCOLS`).
    mode:
        ``"busy"`` or ``"suspend"``: the waiting mode of the tasks that name none.
    horizon:
        Releases at ``t < horizon``; jobs with a deadline at most the horizon are judged.
        Default :func:`~rtsched.segmented.sim.default_segmented_horizon`.
    arrivals, releases:
        ``"periodic"`` (synchronous, every ``T``), ``"sporadic"`` (seeded: each gap is ``T``
        plus, with probability ``p_delay``, an extra delay uniform in ``[1, max_extra_i]``
        (default ``T_i``); the first release at such a delay from 0; the law and the draw
        order of :func:`rtsched.sim.simulate`) or ``"explicit"`` (``releases``: a list of
        release times per task, gaps at least ``T``; giving ``releases`` implies it).
    execution:
        ``"wcet"`` (every part its WCET) or ``"random"`` (each part of each job an integer
        uniform in ``0..WCET``; the CPU-side parts' WCETs are ``⌈G_m/2⌉`` and ``⌊G_m/2⌋``).
    seed:
        Seeds the sporadic arrivals and, from an independent stream, the random demands.
    p_delay, max_extra:
        The sporadic law, as in :func:`rtsched.sim.simulate`.
    record:
        Record the intervals, holds, waits, releases and demands (for the Gantt chart and tests).
    time_slice:
        Protocol ``"tsg-rr"`` (required there, refused elsewhere): the time slice, a positive
        number of ticks of progress a part gets before the next queued part's turn. None: the
        set's driver's (``taskset.driver.time_slice``) under ``"tsg-rr"``.
    epsilon:
        Protocols ``"gcaps"`` and ``"tsg-rr"`` (elsewhere only 0): the device ticks each context
        switch costs (a non-negative integer). None: the set's driver's ``epsilon`` under those
        two protocols, else 0. The other protocols ignore the set's driver.
    gpu_priorities:
        Protocol ``"gcaps"`` (refused elsewhere): ``gpu_priorities[i]`` is task ``i``'s GPU rank,
        0 highest, a permutation of ``0..n-1``; default: the task order.

    Returns
    -------
    SegmentedTrace
        ``trace.schedulable_so_far``, ``trace.misses``, ``trace.response_times``, ...

    Raises
    ------
    InputError
        One line naming the parameter (and the task) for any bad argument: an unknown protocol,
        mode, arrival or execution model, a task without a core or with a core ``>= m``, a
        missing or bad time slice, a bad ``epsilon`` or ``gpu_priorities``, or one of them
        given for a protocol that has no use for it.

    Examples
    --------
    >>> from rtsched.segmented.model import GPUSegment
    >>> ts = SegmentedTaskSet([
    ...     SegmentedTask((1, 1), (GPUSegment(2, 4),), T=20, core=0),
    ...     SegmentedTask((2, 0), (GPUSegment(0, 5),), T=20, core=1),
    ... ])
    >>> trace = simulate_segmented(ts, protocol="mpcp")
    >>> trace.response_times, trace.schedulable_so_far
    ((8, 12), True)
    >>> simulate_segmented(ts, protocol="none").response_times
    (8, 7)
    >>> simulate_segmented(ts, protocol="gcaps", epsilon=1).response_times
    (9, 13)
    """
    if not isinstance(taskset, SegmentedTaskSet):
        taskset = SegmentedTaskSet(taskset)
    tasks = taskset.tasks
    n = taskset.n
    if m is None:
        m = max((t.core for t in tasks if t.core is not None), default=0) + 1
    try:
        m = check_processors(m)
    except InputError as err:
        raise InputError(err.message, field="m") from None
    taskset.check_cores(m)
    if protocol not in PROTOCOLS:
        raise InputError(f"unknown protocol {protocol!r}; choose one of {', '.join(PROTOCOLS)}", field="protocol")
    if mode not in MODES:
        raise InputError(f"unknown mode {mode!r}; choose busy or suspend", field="mode")
    driver = taskset.driver if protocol in PREEMPTIVE else None
    if time_slice is None and driver is not None and protocol == "tsg-rr":
        time_slice = driver.time_slice
    if epsilon is None:
        epsilon = driver.epsilon if driver is not None else 0
    slice_, eps, ranks = _preemptive_options(taskset, protocol, time_slice, epsilon, gpu_priorities)
    if execution not in EXECUTIONS:
        raise InputError(f"unknown execution {execution!r}; choose wcet or random", field="execution")
    if releases is not None:
        if arrivals == "sporadic":
            raise InputError("releases= gives explicit arrivals, not sporadic ones", field="releases")
        arrivals = "explicit"
    if arrivals not in ARRIVALS:
        raise InputError(f"unknown arrivals {arrivals!r}; choose periodic, sporadic or explicit", field="arrivals")
    if arrivals == "explicit" and releases is None:
        raise InputError("explicit arrivals need a list of release times per task", field="releases")
    explicit = _explicit(taskset, releases) if releases is not None else []
    if horizon is None:
        horizon = default_segmented_horizon(taskset, arrivals, releases, execution)
    horizon = checked_horizon(horizon)
    if max_extra is None:
        extra = [t.T for t in tasks]
    else:
        try:
            extra = [int(v) for v in max_extra]
        except (TypeError, ValueError):
            extra = []
        if len(extra) != n or any(v < 0 for v in extra):
            raise InputError("max_extra needs one non-negative integer per task", field="max_extra")
    p_delay = probability(p_delay, "p_delay")
    arrival_rng, exec_rng = run_rngs(seed, _EXECUTION_STREAM)
    return _run(
        taskset, m, protocol, mode, arrivals, explicit, execution, horizon, arrival_rng, exec_rng, p_delay, extra,
        record, seed if isinstance(seed, int) else None, slice_, eps, ranks,
    )  # fmt: skip


def _run(
    taskset: SegmentedTaskSet,
    m: int,
    protocol: str,
    mode: str,
    arrivals: str,
    explicit: list[list[int]],
    execution: str,
    horizon: int,
    arrival_rng: np.random.Generator,
    exec_rng: np.random.Generator,
    p_delay: float,
    extra: list[int],
    record: bool,
    seed: int | None,
    time_slice: int | None = None,
    epsilon: int = 0,
    gpu_priorities: tuple[int, ...] | None = None,
) -> SegmentedTrace:
    tasks = taskset.tasks
    n = taskset.n
    devices = taskset.devices
    device_index = {d: k for k, d in enumerate(devices)}
    preemptive = protocol in PREEMPTIVE
    locking = protocol in ("mpcp", "fmlp+")
    fifo = protocol == "fmlp+"
    round_robin = protocol == "tsg-rr"
    slice_length = time_slice or 0
    gpu_rank = list(gpu_priorities) if gpu_priorities is not None else list(range(n))
    period = [task.T for task in tasks]
    busy_of = [taskset.mode_of(i, mode) == "busy" for i in range(n)]  # type: ignore[arg-type]
    core_of = [int(task.core) for task in tasks]  # type: ignore[arg-type]
    # each task's part WCETs in execution order: C_1, ceil(G_m/2), G_e, floor(G_m/2), C_2, ...
    wcets: list[list[int]] = []
    seg_devices: list[list[int]] = []
    for task in tasks:
        parts = [task.cpu[0]]
        for g, c in zip(task.gpu, task.cpu[1:], strict=True):
            parts += [(g.G_m + 1) // 2, g.G_e, g.G_m // 2, c]
        wcets.append(parts)
        seg_devices.append([device_index[g.device] for g in task.gpu])
    random_exec = execution == "random"

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

    arrival_count = [0] * n
    if arrivals == "periodic":
        nr = [0] * n
    elif arrivals == "sporadic":
        nr = [next_release(i, -period[i]) for i in range(n)]
    else:
        nr = [times[0] if times else _NEVER for times in explicit]

    backlog: list[deque[_Job]] = [deque() for _ in range(n)]
    current: list[_Job | None] = [None] * n
    on_core: list[list[_Job]] = [[] for _ in range(m)]  # active jobs of each core
    running: list[_Job | None] = [None] * m
    in_gpu: list[_Job] = []  # jobs whose G_e runs
    holder: list[_Job | None] = [None] * len(devices)
    queue: list[list[_Job]] = [[] for _ in devices]
    resp: list[int | None] = [None] * n
    misses: list[SegmentedMiss] = []
    all_jobs: list[_Job] = []
    intervals: list[Interval] = []
    holds: list[Interval] = []
    waits: list[Interval] = []
    core_open: list[tuple[_Job, str, int] | None] = [None] * m
    gpu_open: dict[_Job, int] = {}
    core_names = [f"core{k}" for k in range(m)]
    gpu_names = [f"gpu:{d}" for d in devices]
    # gcaps / tsg-rr: per device the submitted parts (tsg-rr: in queue order), those submitted at
    # this instant, the job it works for (switching to it or running it), the ticks left of the
    # context switch in progress, the part whose context it holds ((task, job, step), or None
    # while it switches), the progress left in the running part's slice, and what it records
    submitted: list[list[_Job]] = [[] for _ in devices]
    fresh: list[list[_Job]] = [[] for _ in devices]
    serving: list[_Job | None] = [None] * len(devices)
    switching = [0] * len(devices)
    loaded: list[tuple[int, int, int] | None] = [None] * len(devices)
    slice_left = [0] * len(devices)
    device_open: list[tuple[_Job, int, str, int] | None] = [None] * len(devices)

    def make_job(i: int, a: int, t: int) -> _Job:
        job = _Job(i, a, t, t + tasks[i].D, core_of[i], busy_of[i])
        parts = wcets[i]
        if random_exec:
            u = exec_rng.random(len(parts))
            demands = tuple(int(x * (w + 1)) for x, w in zip(u.tolist(), parts, strict=True))
        else:
            demands = tuple(parts)
        job.demands = demands
        steps: list[tuple[int, int]] = [(_CPU, demands[0])]
        for j, d in enumerate(seg_devices[i]):
            base = 1 + 4 * j
            steps += [
                (_REQ, d),
                (_GM1, demands[base]),
                (_GE, demands[base + 1]),
                (_GM2, demands[base + 2]),
                (_REL, d),
                (_CPU, demands[base + 3]),
            ]
        job.steps = steps
        return job

    def close_gpu(job: _Job, t: int) -> None:
        start = gpu_open.pop(job)
        if record and t > start:
            intervals.append(Interval(gpu_names[job.device], job.task, job.job, start, t, "G_e"))

    def finish(job: _Job, t: int) -> None:
        """``job`` completed at ``t``: account for it and start its task's next job."""
        job.completion = t
        i = job.task
        on_core[job.core].remove(job)
        r = t - job.release
        best = resp[i]
        resp[i] = r if best is None or r > best else best
        if t > job.deadline:
            misses.append(SegmentedMiss(i, job.job, job.release, job.deadline, t))
        current[i] = None
        if backlog[i]:
            start(backlog[i].popleft(), t)

    def start(job: _Job, t: int) -> None:
        current[job.task] = job
        on_core[job.core].append(job)
        job.pos = 0
        job.rem = job.steps[0][1]
        settle(job, t)

    def settle(job: _Job, t: int) -> None:
        """Pass ``job``'s finished and zero-length steps at ``t``; stop at work left, a request, or the end."""
        steps = job.steps
        while True:
            kind, value = steps[job.pos]
            if kind == _REQ:
                if job.requested < 0:
                    job.device = value
                    if not locking:
                        job.pos += 1
                        job.rem = steps[job.pos][1]
                        continue
                    job.requested = t
                    queue[value].append(job)
                return  # waits for a grant (step 3 of the instant)
            if kind == _REL:
                if locking:
                    holder[value] = None
                    if record:
                        holds.append(Interval(gpu_names[value], job.task, job.job, job.granted, t, "hold"))
                job.granted = -1
                job.requested = -1
            elif job.rem > 0:
                if kind == _GE:
                    if preemptive:
                        if job.submitted < 0:
                            job.submitted = t
                            fresh[job.device].append(job)
                            if record:
                                job.wait_from = t
                    elif job not in gpu_open:
                        gpu_open[job] = t
                        in_gpu.append(job)
                return
            elif kind == _GE and preemptive:
                if job.submitted >= 0:  # its G_e ran to its end on the device
                    job.submitted = -1
                    d = job.device
                    submitted[d].remove(job)
                    serving[d] = None
            elif kind == _GE and job in gpu_open:
                close_gpu(job, t)
                in_gpu.remove(job)
            job.pos += 1
            if job.pos == len(steps):
                finish(job, t)
                return
            job.rem = steps[job.pos][1]

    def grants(t: int) -> None:
        """Give every free device to the head of its queue, until no free device has a queue."""
        changed = True
        while changed:
            changed = False
            for d in range(len(devices)):
                if holder[d] is not None or not queue[d]:
                    continue
                waiting = queue[d]
                if fifo:
                    job = min(waiting, key=lambda j: (j.requested, j.task, j.job))
                else:
                    job = min(waiting, key=lambda j: (j.task, j.job))
                waiting.remove(job)
                holder[d] = job
                job.granted = t
                if record and t > job.requested:
                    waits.append(Interval(gpu_names[d], job.task, job.job, job.requested, t, "wait"))
                job.pos += 1
                job.rem = job.steps[job.pos][1]
                settle(job, t)
                changed = True

    def device_dispatch(t: int) -> None:
        """Under gcaps / tsg-rr, each device chooses the part it works for from ``t`` among every part submitted by ``t``."""
        for d in range(len(devices)):
            queue_d = submitted[d]
            if fresh[d]:
                queue_d.extend(sorted(fresh[d], key=lambda j: (j.task, j.job)))  # same instant: by priority
                fresh[d].clear()
            current_part = serving[d]
            if not round_robin:
                want = min(queue_d, key=lambda j: gpu_rank[j.task]) if queue_d else None
            else:
                if current_part is not None and switching[d] == 0 and slice_left[d] == 0:
                    # its slice ends at t: behind every other queued part (those submitted at t
                    # included), or a new slice if it is alone
                    if len(queue_d) > 1:
                        queue_d.remove(current_part)
                        queue_d.append(current_part)
                    slice_left[d] = slice_length
                want = queue_d[0] if queue_d else None
            if want is not current_part:
                serving[d] = want
                if want is not None:
                    part = (want.task, want.job, want.pos)
                    if part == loaded[d] or epsilon == 0:
                        switching[d] = 0
                        loaded[d] = part
                    else:  # a context switch (an unfinished one towards another part is abandoned)
                        switching[d] = epsilon
                        loaded[d] = None
                    slice_left[d] = slice_length
            if record:
                runner = serving[d]
                what = "" if runner is None else ("ctx" if switching[d] else "G_e")
                opened = device_open[d]
                if opened is not None and (runner is None or opened[0] is not runner or opened[1] != runner.pos
                                           or opened[2] != what):  # fmt: skip
                    if t > opened[3]:
                        intervals.append(Interval(gpu_names[d], opened[0].task, opened[0].job, opened[3], t, opened[2]))
                    device_open[d] = None
                if runner is not None and device_open[d] is None:
                    device_open[d] = (runner, runner.pos, what, t)
                for job in queue_d:
                    progressing = job is runner and switching[d] == 0
                    if progressing and job.wait_from >= 0:
                        if t > job.wait_from:
                            waits.append(Interval(gpu_names[d], job.task, job.job, job.wait_from, t, "wait"))
                        job.wait_from = -1
                    elif not progressing and job.wait_from < 0:
                        job.wait_from = t

    def needs_core(job: _Job) -> str | None:
        kind = job.steps[job.pos][0]
        if kind == _CPU:
            return "cpu"
        if kind in (_GM1, _GM2):
            return "G_m"
        if not job.busy:
            return None
        if kind == _REQ:
            return "spin-wait"
        return "spin-gpu" if kind == _GE else None

    def key(job: _Job) -> tuple[int, int, int, int]:
        if locking and job.steps[job.pos][0] in _HOLDING:
            return (0, job.granted if fifo else 0, job.task, job.job)
        return (1, 0, job.task, job.job)

    jobs = 0
    t = 0
    next_rel = min(nr, default=_NEVER)
    while True:
        # (2) releases at t (the parts that ended at t were passed at the end of the last step)
        if t < horizon and t == next_rel:
            for i in range(n):
                if nr[i] != t:
                    continue
                job = make_job(i, arrival_count[i], t)
                arrival_count[i] += 1
                jobs += 1
                if record:
                    job.row = len(all_jobs)
                    all_jobs.append(job)
                elif t + tasks[i].D <= horizon:
                    all_jobs.append(job)  # judged at the end if it never completes
                if current[i] is None:
                    start(job, t)
                else:
                    backlog[i].append(job)
                nr[i] = next_release(i, t)
            next_rel = min(nr)
            if not record and len(all_jobs) > 4 * n:
                all_jobs = [j for j in all_jobs if j.completion < 0]
        # (3) grants (gcaps / tsg-rr: each device chooses its part)
        if locking:
            grants(t)
        elif preemptive:
            device_dispatch(t)
        # (4) dispatch, and the next event
        t_next = horizon
        if next_rel < t_next:
            t_next = next_rel
        for k in range(m):
            best: _Job | None = None
            best_key: tuple[int, int, int, int] | None = None
            what = ""
            for job in on_core[k]:
                w = needs_core(job)
                if w is None:
                    continue
                jk = key(job)
                if best_key is None or jk < best_key:
                    best, best_key, what = job, jk, w
            running[k] = best
            if record:
                opened = core_open[k]
                if opened is not None and (best is None or opened[0] is not best or opened[1] != what):
                    if t > opened[2]:
                        intervals.append(
                            Interval(core_names[k], opened[0].task, opened[0].job, opened[2], t, opened[1])
                        )
                    core_open[k] = None
                if best is not None and core_open[k] is None:
                    core_open[k] = (best, what, t)
            if best is not None and best.steps[best.pos][0] in _WORK_ON_CORE and t + best.rem < t_next:
                t_next = t + best.rem
        for job in in_gpu:
            if t + job.rem < t_next:
                t_next = t + job.rem
        if preemptive:
            for d, runner in enumerate(serving):
                if runner is None:
                    continue
                if switching[d]:
                    left = switching[d]
                else:
                    left = runner.rem if not round_robin or runner.rem < slice_left[d] else slice_left[d]
                if t + left < t_next:
                    t_next = t + left
        # advance to t_next
        delta = t_next - t
        ended: list[_Job] = []
        for k in range(m):
            runner = running[k]
            if runner is not None and runner.steps[runner.pos][0] in _WORK_ON_CORE:
                runner.rem -= delta
                if runner.rem == 0:
                    ended.append(runner)
        for job in in_gpu:
            job.rem -= delta
            if job.rem == 0:
                ended.append(job)
        if preemptive:
            for d, runner in enumerate(serving):
                if runner is None:
                    continue
                if switching[d]:
                    switching[d] -= delta
                    if switching[d] == 0:
                        loaded[d] = (runner.task, runner.job, runner.pos)
                        slice_left[d] = slice_length
                else:
                    runner.rem -= delta
                    slice_left[d] -= delta
                    if runner.rem == 0:
                        ended.append(runner)
        t = t_next
        # (1) the parts that end at t, and the device releases they lead to (at the horizon too:
        # a job completing exactly there, at its deadline, has not missed)
        for job in sorted(ended, key=lambda j: (j.task, j.job)):
            settle(job, t)
        if t >= horizon:
            if locking:
                grants(t)  # the instant is taken whole (a grant of zero parts can complete a job here)
            elif preemptive:
                device_dispatch(t)
            break
    # close what is open at the horizon; judge the jobs that did not complete
    if record:
        for k in range(m):
            opened = core_open[k]
            if opened is not None and t > opened[2]:
                intervals.append(Interval(core_names[k], opened[0].task, opened[0].job, opened[2], t, opened[1]))
        for job in list(gpu_open):
            close_gpu(job, t)
        for d, on_device in enumerate(device_open):
            if on_device is not None and t > on_device[3]:
                runner, _, what, since = on_device
                intervals.append(Interval(gpu_names[d], runner.task, runner.job, since, t, what))
        for d, queue_d in enumerate(submitted):
            for job in queue_d:
                if job.wait_from >= 0 and t > job.wait_from:
                    waits.append(Interval(gpu_names[d], job.task, job.job, job.wait_from, t, "wait"))
        for d, waiting in enumerate(queue):
            for job in waiting:
                if t > job.requested:
                    waits.append(Interval(gpu_names[d], job.task, job.job, job.requested, t, "wait"))
        for d, held in enumerate(holder):
            if held is not None:
                holds.append(Interval(gpu_names[d], held.task, held.job, held.granted, t, "hold"))
    for job in all_jobs:
        if job.completion < 0 and job.deadline <= horizon:
            misses.append(SegmentedMiss(job.task, job.job, job.release, job.deadline, None))
    misses.sort(key=lambda x: (x.deadline, x.task, x.job))
    order = {name: k for k, name in enumerate([*core_names, *gpu_names])}
    intervals.sort(key=lambda iv: (order[iv.resource], iv.start, iv.task, iv.job))
    holds.sort(key=lambda iv: (order[iv.resource], iv.start, iv.end, iv.task, iv.job))
    waits.sort(key=lambda iv: (order[iv.resource], iv.start, iv.end, iv.task, iv.job))
    rows = [(j.task, j.job, j.release, j.deadline, j.completion) for j in all_jobs] if record else []
    return SegmentedTrace(
        taskset=taskset,
        m=m,
        protocol=protocol,
        mode=mode,
        arrivals=arrivals,
        execution=execution,
        seed=seed,
        horizon=horizon,
        jobs=jobs,
        misses=tuple(misses),
        response_times=tuple(resp),
        intervals=tuple(intervals),
        holds=tuple(holds),
        waits=tuple(waits),
        releases=frozen_rows(rows, 5),
        demands=tuple(j.demands for j in all_jobs) if record else (),
        time_slice=time_slice,
        epsilon=epsilon,
        gpu_priorities=gpu_priorities,
    )
