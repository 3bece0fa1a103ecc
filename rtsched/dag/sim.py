"""``simulate_dag``: a node-level simulator of sporadic DAG task sets (identical or typed units).

Global EDF (``gedf``) or global fixed priorities (``gfp``, the task order, index 0 highest), at
the level of vertices: at every instant the m highest-priority *ready* vertices run, where a
vertex is ready when its job has been released, all its predecessors in that job have
completed, and it has work left. On a typed platform (:class:`~rtsched.platform.Typed`, e.g.
``{"cpu": 4, "gpu": 2}``) a vertex runs only on a unit of its type (:attr:`~rtsched.dag.DAGTask.types`): per
type s, the m_s highest-priority ready vertices *of type s* run (global EDF or FP per type,
work-conserving per type: a unit of type s idles only when no vertex of type s is ready). Units
are numbered across types in the platform's type order (``cpu`` units 0..m_cpu − 1, then the
next type's). Preemptive, work-conserving, integer time, event-driven. The
semantics follow the task simulator (:mod:`rtsched.sim`, papers/simulator.md) wherever they
apply; papers/dag-model.md, section "Simulator", states them and what a run proves.

Pure Python (heaps of ready vertices). With ``J`` jobs released in the horizon, ``V`` vertices
and ``E`` edges per job (at most), ``m`` processors and ``R`` ready vertices at a time, the run
costs ``O(J·(V + E)·log R + J·V·m)``: each vertex is pushed and popped a bounded number of times
per preemption, and each event (a release, a completion, a deadline) costs ``O(m + log R)``.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
from numpy.typing import NDArray

from rtsched.dag.model import DAGTask, DAGTaskSet
from rtsched.errors import InputError
from rtsched.kernels import check_processors
from rtsched.platform import Typed
from rtsched.result import count
from rtsched.sim.run import capped_horizon, parse_ties
from rtsched.sim.trace import DeadlineMiss

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

__all__ = [
    "DAG_MAX_HORIZON",
    "DAG_POLICIES",
    "DAGDeadlineMiss",
    "DAGTrace",
    "default_dag_horizon",
    "simulate_dag",
]

Policy = Literal["gedf", "gfp"]
Arrivals = Literal["periodic", "sporadic", "explicit"]
Execution = Literal["wcet", "random"]

#: Scheduling policies of the DAG simulator: global EDF, global fixed priorities (task order).
DAG_POLICIES: tuple[str, ...] = ("gedf", "gfp")
#: Cap on the default horizon. Lower than the task simulator's (10**9): this simulator is pure
#: Python, and a hyperperiod is often astronomically long.
DAG_MAX_HORIZON = 10**6
#: Spawn key that separates the execution-time generator from the arrivals' generator.
_EXECUTION_STREAM = 0x45584543

_NEVER = 2**62


@dataclass(frozen=True)
class DAGDeadlineMiss(DeadlineMiss):
    """A deadline miss of a DAG job: job ``job`` of ``task``, released at ``release``, missed ``deadline``.

    ``time`` (when the miss was seen) is the deadline; ``remaining`` is the execution time its
    vertices still had to run then (of the drawn execution times under ``execution="random"``).
    """

    release: int = -1
    deadline: int = -1


def _frozen(rows: Any, width: int) -> NDArray[np.int64]:
    out = np.array(rows, dtype=np.int64).reshape(-1, width)
    out.setflags(write=False)
    return out


@dataclass(frozen=True)
class DAGTrace:
    """What happened in one run of :func:`simulate_dag`.

    Attributes
    ----------
    taskset, m:
        The simulated system (``m``: processors, or all units of a typed platform together).
    policy:
        ``"gedf"`` or ``"gfp"``.
    arrivals:
        ``"periodic"``, ``"sporadic"`` or ``"explicit"``.
    execution:
        ``"wcet"`` or ``"random"``.
    ties:
        The tie rule: ``"index"``, ``"fifo"`` or ``"random:SEED"``.
    seed:
        The seed of the sporadic arrivals and of the random execution times.
    horizon:
        Jobs were released at ``t < horizon`` and deadlines ``<= horizon`` checked.
    end_time:
        Where the run stopped: the first miss (unrecorded runs) or the horizon.
    jobs:
        Number of jobs released.
    miss:
        The first deadline miss, or ``None``.
    misses:
        Every deadline miss seen (a recorded run goes on after a miss; an unrecorded run has at
        most one).
    response_times:
        Per task, the largest response time (completion − release) among its jobs that
        completed by ``end_time``, or ``None`` if none did.
    releases:
        Recorded runs: rows ``(task, job, release, deadline)``, in release order.
    segments:
        Recorded runs: rows ``(processor, start, end, task, job, vertex)``, the vertex ran on
        the processor during ``[start, end)``; in the order the segments ended.
    platform:
        The typed platform of a typed run (units numbered across types in its type order), or
        ``None`` on identical processors.
    """

    taskset: DAGTaskSet
    m: int
    policy: str
    arrivals: str
    execution: str
    ties: str
    seed: int | None
    horizon: int
    end_time: int
    jobs: int
    miss: DAGDeadlineMiss | None
    misses: tuple[DAGDeadlineMiss, ...]
    response_times: tuple[int | None, ...]
    releases: NDArray[np.int64] = field(default_factory=lambda: _frozen([], 4))
    segments: NDArray[np.int64] = field(default_factory=lambda: _frozen([], 6))
    platform: Typed | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "releases", _frozen(self.releases, 4))
        object.__setattr__(self, "segments", _frozen(self.segments, 6))

    @property
    def schedulable_so_far(self) -> bool:
        """True if no deadline was missed up to ``end_time`` (a miss *proves* unschedulability)."""
        return self.miss is None

    def release_times(self) -> list[list[int]]:
        """Release times per task (recorded runs only), e.g. to replay the run with ``releases=``."""
        out: list[list[int]] = [[] for _ in range(self.taskset.n)]
        for task, _job, release, _deadline in self.releases.tolist():
            out[task].append(release)
        return out

    def summary(self) -> str:
        """One line: the outcome of the run."""
        ties = "task-order priorities" if self.policy == "gfp" else f"{self.ties} ties"
        on = f"m={self.m}" if self.platform is None else self.platform.spec
        where = f"{self.policy} on {on}, {self.arrivals} arrivals, {self.execution} execution, {ties}"
        if self.miss is None:
            return f"no deadline miss in [0, {self.end_time}] ({count(self.jobs, 'job')}, {where})"
        miss = self.miss
        who = self.taskset.label(miss.task)
        return (
            f"deadline miss: {who} job {miss.job} (released at {miss.release}) at t={miss.time} "
            f"with {count(miss.remaining, 'tick')} left ({count(self.jobs, 'job')}, {where})"
        )

    def __str__(self) -> str:
        return self.summary()


def default_dag_horizon(
    taskset: DAGTaskSet, arrivals: Arrivals, releases: Sequence[Sequence[int]] | None = None
) -> int:
    """Horizon used when none is given (the task simulator's rules, capped at :data:`DAG_MAX_HORIZON`).

    * periodic: the hyperperiod H. With D <= T and no miss, the system is idle at H in its state
      at 0, so [0, H] decides the synchronous periodic schedule; with D > T it need not be;
    * sporadic: 200 times the largest period;
    * explicit: one tick after the last release plus the largest deadline (not capped).
    """
    return capped_horizon(taskset, arrivals, releases, DAG_MAX_HORIZON)


def _explicit(taskset: DAGTaskSet, releases: Sequence[Sequence[int]]) -> list[list[int]]:
    if len(releases) != taskset.n:
        raise InputError(f"explicit releases: {len(releases)} lists for {taskset.n} tasks", field="releases")
    out: list[list[int]] = []
    for i, times in enumerate(releases):
        clean = [int(x) for x in times]
        if clean and clean[0] < 0:
            raise InputError(f"explicit releases of task {i}: negative release time {clean[0]}", field="releases")
        for a, b in zip(clean, clean[1:], strict=False):
            if b - a < taskset[i].T:
                raise InputError(
                    f"explicit releases of task {i}: {a} and {b} are closer than its period T = {taskset[i].T}",
                    field="releases",
                )
        out.append(clean)
    return out


class _Job:
    """One released job: its vertices' remaining work and unfinished-predecessor counts."""

    __slots__ = ("task", "job", "release", "deadline", "tie", "rem", "npred", "left")

    def __init__(self, task: int, job: int, release: int, deadline: int, tie: int, rem: list[int], npred: list[int]):
        self.task = task
        self.job = job
        self.release = release
        self.deadline = deadline
        self.tie = tie
        self.rem = rem
        self.npred = npred
        self.left = len(rem)


def _typed_platform(m: Any, platform: Any, units: Any) -> Typed | None:
    """The typed platform of a call (``m`` a Typed or a mapping, ``platform=``, ``units=``), or ``None``."""
    given = [x for x in (platform, units) if x is not None]
    if isinstance(m, Typed) or (m is not None and hasattr(m, "items")):
        given.append(m)
    elif m is not None and given:
        raise InputError("give m (identical processors) or a typed platform, not both", field="platform")
    if len(given) > 1:
        raise InputError("give one typed platform (m, platform= or units=)", field="platform")
    if not given:
        return None
    value = given[0]
    if isinstance(value, Typed):
        return value
    if isinstance(value, int):
        return None
    return Typed(value)


def simulate_dag(
    taskset: DAGTaskSet | Iterable[DAGTask],
    m: int | Typed | Mapping[str, int] | None = None,
    *,
    platform: Typed | None = None,
    units: Mapping[str, int] | None = None,
    policy: Policy = "gedf",
    arrivals: Arrivals = "periodic",
    seed: int | np.random.SeedSequence = 0,
    horizon: int | None = None,
    ties: str = "index",
    execution: Execution = "wcet",
    record: bool = False,
    releases: Sequence[Sequence[int]] | None = None,
    p_delay: float = 0.5,
    max_extra: Sequence[int] | None = None,
    vertex_priorities: Sequence[Sequence[int]] | None = None,
) -> DAGTrace:
    """Simulate a DAG task set on ``m`` identical processors or a typed platform, vertex by vertex.

    Parameters
    ----------
    taskset:
        The DAG tasks (any deadlines: with D > T, jobs of one task may be pending together).
    m:
        Number of identical processors (vertex types are ignored), or a typed platform.
    platform, units:
        A typed platform (:class:`~rtsched.platform.Typed`) or its ``{type: units}`` mapping,
        instead of ``m``: a vertex runs only on a unit of its type, and per type the highest
        priority ready vertices of that type run. Every vertex type of the set needs a unit
        (else :class:`~rtsched.errors.InputError`, one line).
    policy:
        ``"gedf"``: a vertex's priority is its job's absolute deadline; ``"gfp"``: its task's
        index (task 0 highest). Equal priorities: the tie rule, then the job's release, then the
        vertex's intra-task priority (``vertex_priorities``; by default its index), so jobs of one
        task run in release order and the ready vertices of a job by intra-task priority.
    arrivals:
        ``"periodic"`` (synchronous, at k·T), ``"sporadic"`` (the task simulator's law: each gap
        is T plus, with probability ``p_delay``, an extra delay uniform in ``[1, max_extra_i]``,
        default ``max_extra_i = T_i``; the first release at such a delay from 0) or
        ``"explicit"`` (``releases``).
    seed:
        Seeds the sporadic arrivals (the same draws as :func:`rtsched.sim.simulate` with this
        seed) and, through an independent stream, the random execution times.
    horizon:
        Releases at ``t < horizon``, deadlines ``<= horizon`` checked; default
        :func:`default_dag_horizon`.
    ties:
        Between equal absolute deadlines (``gedf``): ``"index"`` (lowest task index),
        ``"fifo"`` (earlier release, then lowest index) or ``"random:SEED"`` (a priority drawn
        per job at its release, as in the task simulator). ``gfp`` takes ``"index"`` only.
    execution:
        ``"wcet"``: every vertex runs its WCET; ``"random"``: each vertex of each job runs an
        integer drawn uniformly in ``[1, WCET]`` at the job's release (seeded).
    record:
        Record the releases and the per-vertex execution segments, and go on after a deadline
        miss (the missed job keeps running) up to the horizon. ``False``: stop at the first miss.
    releases:
        Explicit release times per task (implies ``arrivals="explicit"``; gaps >= T checked).
    p_delay, max_extra:
        The sporadic law (see ``arrivals``).
    vertex_priorities:
        Intra-task (vertex-level) fixed priorities, one list per task with one distinct integer
        per vertex, lower = higher priority (He et al., TPDS 2019). Default: the vertex index.

    Returns
    -------
    DAGTrace
        What happened; ``trace.miss`` is the first deadline miss or ``None``.

    Raises
    ------
    InputError
        For an unknown policy, arrival model, execution model or tie rule, a bad ``m``,
        horizon or explicit releases.

    Examples
    --------
    >>> fj = DAGTask([1, 3, 2, 4, 1], [(0, 1), (0, 2), (0, 3), (1, 4), (2, 4), (3, 4)], T=20, D=15)
    >>> simulate_dag(DAGTaskSet([fj]), 1).response_times, simulate_dag(DAGTaskSet([fj]), 3).response_times
    ((11,), (6,))
    """
    typed = _typed_platform(m, platform, units)
    if not isinstance(taskset, DAGTaskSet):
        taskset = DAGTaskSet(taskset)
    n = taskset.n
    tasks = taskset.tasks
    if typed is None:
        if m is None:
            raise InputError("give the number of processors m or a typed platform (platform=)", field="m")
        m = check_processors(m)
        caps = [m]  # one pool: every vertex runs on any processor
        pool_of = [[0] * t.n for t in tasks]
    else:
        names = typed.types
        index = {name: k for k, name in enumerate(names)}
        missing = sorted({t.vertex_type(v) for t in tasks for v in range(t.n)} - set(names))
        if missing:
            raise InputError(
                f"the DAG tasks use vertex type{'s' if len(missing) > 1 else ''} {', '.join(missing)} "
                f"that the platform ({typed.spec}) has no unit of",
                field="platform",
            )
        caps = [typed.count(name) for name in names]
        pool_of = [[index[t.vertex_type(v)] for v in range(t.n)] for t in tasks]
        m = typed.size
    pools = len(caps)
    first_unit = [sum(caps[:k]) for k in range(pools)]
    if policy not in DAG_POLICIES:
        raise InputError(f"unknown policy {policy!r}; choose one of {', '.join(DAG_POLICIES)}", field="policy")
    if releases is not None:
        arrivals = "explicit"
    if arrivals not in ("periodic", "sporadic", "explicit"):
        raise InputError(f"unknown arrivals {arrivals!r}; choose periodic, sporadic or explicit", field="arrivals")
    if arrivals == "explicit" and releases is None:
        raise InputError("explicit arrivals need a list of release times per task", field="releases")
    if execution not in ("wcet", "random"):
        raise InputError(f"unknown execution {execution!r}; choose wcet or random", field="execution")
    if vertex_priorities is None:
        vrank = [list(range(t.n)) for t in tasks]
    else:
        vrank = [[int(x) for x in row] for row in vertex_priorities]
        if len(vrank) != n:
            raise InputError("vertex_priorities needs one list per task", field="vertex_priorities")
        for i, (row, task) in enumerate(zip(vrank, tasks, strict=True)):
            if len(row) != task.n or len(set(row)) != task.n:
                raise InputError(
                    f"task {task.name or i}: vertex_priorities needs {task.n} distinct integers, one per vertex",
                    field="vertex_priorities",
                )
    tie_rule, tie_seed = parse_ties(ties)
    if policy == "gfp" and tie_rule != "index":
        raise InputError(
            "gfp: fixed priorities are the task order, so there are no ties between tasks to break; "
            "ties= applies to gedf",
            field="ties",
        )
    tie_name = f"random:{tie_seed}" if tie_rule == "random" else tie_rule
    if horizon is None:
        horizon = default_dag_horizon(taskset, arrivals, releases)
    horizon = int(horizon)
    if not 0 < horizon <= 2**62:
        raise InputError(f"horizon must be a positive number of ticks, got {horizon}", field="horizon")
    explicit = _explicit(taskset, releases) if arrivals == "explicit" else []  # type: ignore[arg-type]
    extra = [t.T for t in taskset] if max_extra is None else [int(x) for x in max_extra]
    if len(extra) != n or any(x < 0 for x in extra):
        raise InputError("max_extra needs one non-negative value per task", field="max_extra")
    p_delay = float(p_delay)
    if not 0.0 <= p_delay <= 1.0:
        raise InputError(f"p_delay must be a probability, got {p_delay}", field="p_delay")
    seed_seq = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
    arrival_rng = np.random.default_rng(seed_seq)
    exec_rng = np.random.default_rng(
        np.random.SeedSequence(seed_seq.entropy, spawn_key=(*seed_seq.spawn_key, _EXECUTION_STREAM))
    )
    tie_rng = np.random.default_rng(tie_seed)

    period = [t.T for t in tasks]
    rel_dead = [t.D for t in tasks]
    succ = [t.successors for t in tasks]
    npred0 = [[len(p) for p in t.predecessors] for t in tasks]
    sources = [t.sources for t in tasks]
    wcets = [list(t.wcets) for t in tasks]
    wcet_arrays = [np.array(t.wcets, dtype=np.int64) for t in tasks]
    gedf = policy == "gedf"

    def next_release(i: int, t: int) -> int:
        """Task ``i``'s release after one at ``t`` (the task simulator's draws, in its order)."""
        if arrivals == "periodic":
            return t + period[i]
        if arrivals == "sporadic":
            gap = period[i]
            if extra[i] > 0 and arrival_rng.random() < p_delay:
                gap += 1 + int(arrival_rng.random() * extra[i])
            return t + gap
        j = job_count[i]
        return explicit[i][j] if j < len(explicit[i]) else _NEVER

    job_count = [0] * n
    nr = [0 if arrivals == "periodic" else next_release(i, -period[i]) for i in range(n)]
    if arrivals == "explicit":
        nr = [times[0] if times else _NEVER for times in explicit]

    # A ready vertex is (key, job, v) with key = (priority, tie, task, release, v): unique, so
    # tuples never compare jobs. Per pool k (one per type; one in all on identical processors)
    # ``waiting[k]`` is a heap and ``running[k]`` holds at most caps[k] entries.
    Entry = tuple[tuple[int, int, int, int, int], _Job, int]
    waiting: list[list[Entry]] = [[] for _ in range(pools)]
    running: list[list[Entry]] = [[] for _ in range(pools)]
    deadlines: list[tuple[int, int, int, _Job]] = []  # (deadline, task, job, job): pending-job heap
    Key = tuple[int, int, int, int, int]
    on_cpu: dict[Key, tuple[int, int, _Job, int]] = {}  # running vertex -> (processor, start, job, v)
    last_proc: dict[Key, int] = {}  # preempted vertex -> the processor it last ran on
    free = [list(range(first_unit[k], first_unit[k] + caps[k])) for k in range(pools)]  # heaps, lowest first
    seg_rows: list[tuple[int, int, int, int, int, int]] = []
    rel_rows: list[tuple[int, int, int, int]] = []
    response: list[int | None] = [None] * n
    misses: list[DAGDeadlineMiss] = []
    jobs = 0

    def make_ready(job: _Job, v: int) -> None:
        prio = job.deadline if gedf else job.task
        key = (prio, job.tie, job.task, job.release, vrank[job.task][v])
        heapq.heappush(waiting[pool_of[job.task][v]], (key, job, v))

    def close(key: Key, t: int) -> int:
        """End the running vertex's segment at ``t``, free its processor and return it."""
        p, start, job, v = on_cpu.pop(key)
        if record and t > start:
            seg_rows.append((p, start, t, job.task, job.job, v))
        heapq.heappush(free[pool_of[job.task][v]], p)
        return p

    t = 0
    next_rel = min(nr, default=_NEVER)
    while True:
        # -- releases at t --------------------------------------------------------------------
        if t < horizon and t == next_rel:
            for i in range(n):
                if nr[i] != t:
                    continue
                tie = 0
                if tie_rule == "fifo":
                    tie = t
                elif tie_rule == "random":
                    tie = int(tie_rng.random() * 9007199254740992.0)
                if execution == "random":
                    rem = [int(x) for x in exec_rng.integers(1, wcet_arrays[i] + 1)]
                else:
                    rem = list(wcets[i])
                job = _Job(i, job_count[i], t, t + rel_dead[i], tie, rem, list(npred0[i]))
                job_count[i] += 1
                jobs += 1
                if record:
                    rel_rows.append((i, job.job, t, job.deadline))
                heapq.heappush(deadlines, (job.deadline, i, job.job, job))
                for v in sources[i]:
                    make_ready(job, v)
                nr[i] = next_release(i, t)
            next_rel = min(nr)
        # -- dispatch: per pool, the caps[k] highest-priority ready vertices ------------------
        for k in range(pools):
            ready, run, cap = waiting[k], running[k], caps[k]
            while ready and (len(run) < cap or ready[0][0] < max(run)[0]):
                if len(run) == cap:
                    worst = max(run)
                    run.remove(worst)
                    heapq.heappush(ready, worst)
                run.append(heapq.heappop(ready))
        if on_cpu:
            now = {e[0] for run in running for e in run}
            for key in [k for k in on_cpu if k not in now]:  # preempted
                last_proc[key] = close(key, t)
        for k in range(pools):
            idle = free[k]
            for key, job, v in running[k]:
                if key not in on_cpu:
                    p = last_proc.pop(key, -1)
                    if p >= 0 and p in idle:
                        idle.remove(p)
                        heapq.heapify(idle)
                    else:
                        p = heapq.heappop(idle)
                    on_cpu[key] = (p, t, job, v)
        # -- the next event -------------------------------------------------------------------
        t_next = horizon if horizon > t else t
        if next_rel < t_next:
            t_next = next_rel
        while deadlines and deadlines[0][3].left == 0:
            heapq.heappop(deadlines)
        if deadlines and deadlines[0][0] < t_next:
            t_next = deadlines[0][0]
        for run in running:
            for _key, job, v in run:
                if t + job.rem[v] < t_next:
                    t_next = t + job.rem[v]
        # -- advance to t_next: completions --------------------------------------------------
        delta = t_next - t
        finished: list[Entry] = []
        for k in range(pools):
            still: list[Entry] = []
            for entry in running[k]:
                _key, job, v = entry
                job.rem[v] -= delta
                (still if job.rem[v] > 0 else finished).append(entry)
            running[k] = still
        for entry in finished:
            key, job, v = entry
            close(key, t_next)
            job.left -= 1
            if job.left == 0:
                r = t_next - job.release
                best = response[job.task]
                response[job.task] = r if best is None or r > best else best
            for w in succ[job.task][v]:
                job.npred[w] -= 1
                if job.npred[w] == 0:
                    make_ready(job, w)
        t = t_next
        # -- deadline check: pending jobs whose deadline is t ---------------------------------
        stop = False
        while deadlines and deadlines[0][0] <= t:
            deadline, i, j, job = heapq.heappop(deadlines)
            if job.left == 0:
                continue
            misses.append(DAGDeadlineMiss(deadline, i, j, sum(job.rem), job.release, deadline))
            if not record:
                stop = True
                break
        if stop or t >= horizon:
            break
    for run in running:
        for key, _job, _v in run:
            close(key, t)
    return DAGTrace(
        taskset=taskset,
        m=m,
        policy=policy,
        arrivals=arrivals,
        execution=execution,
        ties=tie_name,
        seed=seed if isinstance(seed, int) else None,
        horizon=horizon,
        end_time=t,
        jobs=jobs,
        miss=misses[0] if misses else None,
        misses=tuple(misses),
        response_times=tuple(response),
        releases=_frozen(rel_rows, 4),
        segments=_frozen(seg_rows, 6),
        platform=typed,
    )
