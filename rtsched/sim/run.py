"""``simulate``: run the global / partitioned EDF or FP simulator on one task set (papers/simulator.md).

Policies: ``gedf`` (global EDF), ``pedf`` (partitioned EDF), ``gfp`` (global fixed priorities)
and ``pfp`` (partitioned fixed priorities). Under ``gfp``/``pfp`` the priority is the order of
the tasks in the set (index 0 highest; reorder the set with :mod:`rtsched.priorities` for DM, RM
or OPA); the ``m`` highest-priority pending jobs run (global), or on each processor the
highest-priority pending job assigned to it (partitioned). Fixed priorities are distinct, so the
tie rule and tie choices below concern the EDF policies only.

Deadlines are arbitrary: with ``D > T`` a task can have several pending jobs, which run one at a
time in release order (FIFO within the task; papers/simulator.md). A deadline miss found by
the simulator *proves* the set unschedulable under the simulated policy (the release pattern is
a legal sporadic behaviour). The absence of a miss proves schedulability only for synchronous
periodic releases simulated until the schedule repeats (the default horizon for
``arrivals="periodic"``: the hyperperiod with ``D <= T``; with ``D > T`` the run stops at the
first multiple of the hyperperiod where no job is pending, ``Trace.repeats_at``), and only
for that release pattern: sporadic
systems can miss under other patterns (use the exact tests, ``rtsched.analyses.exact.exact_gedf``
and ``rtsched.analyses.exact.exact_gfp``).

Ties between equal absolute deadlines follow a rule (``ties``): ``index`` (lowest task index),
``fifo`` (earlier release first, then lowest index) or ``random:SEED`` (a priority drawn per job
at its release from its own seeded generator, then lowest index); explicit ``tie_choices``
override the rule at the listed ticks (how the exact test's counterexamples are replayed).

Execution times (``execution``): every job runs for its WCET ``C_i`` (``"wcet"``, the default),
or for a demand drawn at its release, uniform in ``[1, C_i]`` (``"random"``), from a stream of
its own (the run's seed with :data:`EXECUTION_STREAM` appended to its spawn key, as the DAG,
mixed-criticality and segmented simulators do): one draw per job in release order (by time,
then task index), so a seed gives the same demands to the same releases with or without a
trace, under every policy and tie rule, and in ``after_miss="continue"`` runs. A WCET is an
upper bound, so a run with shorter demands is a legal behaviour, and a miss in it refutes a
schedulability claim. (For independent jobs with fixed releases, preemptive job-level
fixed-priority scheduling on identical processors, which covers these four policies with
``D <= T``, is *predictable*: shorter executions never make a job complete later, Ha and Liu,
ICDCS 1994; the soundness properties try random execution anyway, also where that result does
not directly apply, ``D > T`` with FIFO jobs within a task; papers/simulator.md.)
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable, Sequence
from numbers import Integral
from typing import Any, Literal

import numpy as np

from rtsched.errors import InputError
from rtsched.kernels import check_processors
from rtsched.model import TaskSet
from rtsched.sim.engine import (
    ARRIVALS_EXPLICIT,
    ARRIVALS_PERIODIC,
    ARRIVALS_SPORADIC,
    MISS,
    OVERFLOW,
    REPEATS,
    TIES_FIFO,
    TIES_INDEX,
    TIES_RANDOM,
    fast_batch,
    fast_packed,
    seed_states,
    simulate_kernel,
)
from rtsched.sim.trace import DeadlineMiss, Trace, fast_trace

__all__ = [
    "AFTER_MISS",
    "DEFAULT_MAX_HORIZON",
    "EXECUTIONS",
    "EXECUTION_STREAM",
    "POLICIES",
    "TIE_RULES",
    "arbitrary_horizon",
    "capped_horizon",
    "check_release_gaps",
    "checked_horizon",
    "default_horizon",
    "frozen_rows",
    "parse_ties",
    "pcg64_state",
    "probability",
    "random_execution_horizon",
    "run_rngs",
    "simulate",
    "simulate_batch",
]

Arrivals = Literal["periodic", "sporadic", "explicit"]
Execution = Literal["wcet", "random"]
#: Execution-time models: every job its WCET, or each job uniform in [1, C] (seeded).
EXECUTIONS: tuple[str, ...] = ("wcet", "random")
#: Spawn key that separates the execution demands' stream from the arrivals' (``run_rngs``).
EXECUTION_STREAM = 0x53494D58
AfterMiss = Literal["stop", "continue"]
#: What a run does at a deadline miss: stop there, or keep running the late jobs (tardiness).
AFTER_MISS: tuple[str, ...] = ("stop", "continue")
Policy = Literal["gedf", "pedf", "gfp", "pfp"]
#: Scheduling policies: global / partitioned EDF, global / partitioned fixed priorities.
POLICIES: tuple[str, ...] = ("gedf", "pedf", "gfp", "pfp")
#: The policies with fixed priorities (the task order).
FIXED_PRIORITY_POLICIES = ("gfp", "pfp")
#: Cap on the default horizon (a hyperperiod can be astronomically long).
DEFAULT_MAX_HORIZON = 10**9
#: Largest trace recorded (rows per event table), about 1 GB of int64.
MAX_TRACE_ROWS = 2**24
#: Default sporadic horizon, in multiples of the largest period.
SPORADIC_PERIODS = 200
#: Periodic runs with D > T that cannot be shown to miss: hyperperiods simulated at most
#: (the run stops earlier, at the first multiple of the hyperperiod where no job is pending).
ARBITRARY_HYPERPERIODS = 10
#: Tie rules between equal absolute deadlines (``random`` takes a seed: ``random:SEED``).
TIE_RULES = ("index", "fifo", "random")
_TIE_CODES = {"index": TIES_INDEX, "fifo": TIES_FIFO, "random": TIES_RANDOM}
_ARRIVAL_CODES = {"periodic": ARRIVALS_PERIODIC, "sporadic": ARRIVALS_SPORADIC, "explicit": ARRIVALS_EXPLICIT}


def parse_ties(ties: str) -> tuple[str, int]:
    """``"index"``, ``"fifo"``, ``"random"`` or ``"random:SEED"`` → ``(rule, seed)``.

    ``random`` without a seed uses seed 0, so every run is reproducible; the seed is a
    non-negative integer. The seed is 0 (unused) for the other rules.

    >>> parse_ties("random:42"), parse_ties("fifo")
    (('random', 42), ('fifo', 0))
    """
    text = str(ties).strip()
    rule, sep, seed_text = text.partition(":")
    if rule not in TIE_RULES or (sep and rule != "random"):
        raise InputError(f"unknown tie rule {ties!r}; choose index, fifo or random[:SEED]", field="ties")
    if not sep:
        return rule, 0
    if not seed_text.isdigit():
        raise InputError(f"tie rule {ties!r}: the seed must be a non-negative integer", field="ties")
    return rule, int(seed_text)


def _tie_choice_arrays(
    taskset: TaskSet, tie_choices: Sequence[tuple[int, Sequence[int]]]
) -> tuple[tuple[tuple[int, tuple[int, ...]], ...], np.ndarray, np.ndarray, np.ndarray]:
    """Validate explicit tie choices; return them normalised and as kernel arrays."""
    rows: list[tuple[int, tuple[int, ...]]] = []
    for row in tie_choices:
        try:
            time, winners = row
            time = int(time)
            winners = tuple(sorted({int(i) for i in winners}))
        except (TypeError, ValueError) as exc:
            raise InputError(f"tie choice {row!r}: expected (time, [task, ...])", field="tie_choices") from exc
        if time < 0:
            raise InputError(f"tie choice at negative time {time}", field="tie_choices")
        bad = [i for i in winners if not 0 <= i < taskset.n]
        if bad:
            raise InputError(
                f"tie choice at t={time}: no task {bad[0]} (tasks are 0..{taskset.n - 1})", field="tie_choices"
            )
        rows.append((time, winners))
    rows.sort()
    for (a, _), (b, _) in zip(rows, rows[1:], strict=False):
        if a == b:
            raise InputError(f"two tie choices at t={a}; give one list of winners per tick", field="tie_choices")
    times = np.array([t for t, _ in rows], dtype=np.int64)
    offsets = np.cumsum([0] + [len(w) for _, w in rows], dtype=np.int64)
    tasks = np.array([i for _, w in rows for i in w], dtype=np.int64)
    return tuple(rows), times, offsets, tasks


def default_horizon(taskset: TaskSet, arrivals: Arrivals, releases: Sequence[Sequence[int]] | None = None) -> int:
    """Horizon used when none is given.

    * periodic: the hyperperiod H (capped at :data:`~rtsched.sim.run.DEFAULT_MAX_HORIZON`). With synchronous
      releases and D <= T every job released before H has its deadline at most H, so if none
      is missed the system is idle at H, in the state it had at 0: [0, H] decides the periodic
      behaviour. With D > T see :func:`~rtsched.sim.run.arbitrary_horizon` (the run also stops at the first
      multiple of H where no job is pending);
    * sporadic: 200 times the largest period;
    * explicit: one tick after the last release plus the largest deadline.
    """
    if arrivals == "periodic":
        return int(min(taskset.hyperperiod, DEFAULT_MAX_HORIZON))
    if arrivals == "sporadic":
        return SPORADIC_PERIODS * int(taskset.T.max())
    last = max((max(r) for r in (releases or []) if len(r)), default=0)
    return int(last + taskset.D.max() + 1)


def arbitrary_horizon(taskset: TaskSet, m: int, partition: Sequence[int] | None = None) -> int:
    """Default periodic horizon of a set with some ``D > T`` (papers/simulator.md, "Horizon with D > T").

    The run stops at the first multiple ``kH`` of the hyperperiod where no job is pending (the
    schedule from ``kH`` repeats the one from 0; every job released before ``kH`` completed, and
    a miss among them was seen at its deadline). The horizon bounds that search:

    * overloaded (``U > m`` globally, or ``U_p > 1`` on a core ``p`` of the partition): the
      backlog at ``kH`` is at least ``k·(U − m)·H`` (releases in ``[0, kH)`` carry ``k·U·H``
      units, at most ``m·kH`` are served), every pending job has its deadline before
      ``kH + D_max``, and at most ``m·D_max`` units are served in ``[kH, kH + D_max)``: with
      ``k = floor(m·D_max / ((U − m)·H)) + 1`` a deadline is missed by ``kH + D_max``, which is
      the horizon (the smallest over overloaded cores, with that core's ``D_max`` and ``m = 1``);
    * otherwise ``ARBITRARY_HYPERPERIODS`` hyperperiods plus ``D_max``. On one processor (and
      on each core of a partition) with ``U <= 1`` no job released before ``H`` is pending at
      ``H`` (the work released in ``[H − s, H)`` is ``Σ floor(s/T_i)·C_i <= U·s <= s``), so the
      run stops at ``H``; under global scheduling the backlog need not clear and the run may
      end at the horizon without a verdict on later hyperperiods.

    Capped at :data:`~rtsched.sim.run.DEFAULT_MAX_HORIZON`.
    """
    from fractions import Fraction

    H = int(taskset.hyperperiod)
    groups: list[tuple[int, list[int]]]
    if partition is None:
        groups = [(m, list(range(taskset.n)))]
    else:
        groups = [(1, [i for i in range(taskset.n) if int(partition[i]) == p]) for p in range(m)]
    best: int | None = None
    for procs, members in groups:
        if not members:
            continue
        u = sum((Fraction(int(taskset.C[i]), int(taskset.T[i])) for i in members), Fraction(0))
        if u > procs:
            d_max = max(int(taskset.D[i]) for i in members)
            k = (procs * d_max) // ((u - procs) * H) + 1
            h = int(k) * H + d_max
            best = h if best is None else min(best, h)
    if best is None:
        best = ARBITRARY_HYPERPERIODS * H + int(taskset.D.max())
    return int(min(best, DEFAULT_MAX_HORIZON))


def capped_horizon(tasks: Sequence[Any], arrivals: Arrivals, releases: Sequence[Sequence[int]] | None, cap: int) -> int:
    """The default horizon of task objects with ``T`` and ``D`` (the DAG and mixed-criticality simulators).

    Periodic: the hyperperiod; sporadic: ``SPORADIC_PERIODS`` times the largest period; both
    at most ``cap``. Explicit: one tick after the last release plus the largest deadline (not capped).
    """
    if arrivals == "periodic":
        return int(min(math.lcm(*(t.T for t in tasks)), cap))
    if arrivals == "sporadic":
        return int(min(SPORADIC_PERIODS * max(t.T for t in tasks), cap))
    last = max((max(r) for r in (releases or []) if len(r)), default=0)
    return int(last + max(t.D for t in tasks) + 1)


def check_release_gaps(times: Sequence[int], T: int, task: int | str) -> None:
    """Refuse explicit release times of ``task`` that start below 0 or come closer than its period ``T``."""
    if times and times[0] < 0:
        raise InputError(f"explicit releases: negative release time {times[0]}", task=task, field="releases")
    for a, b in zip(times, times[1:], strict=False):
        if b - a < T:
            raise InputError(
                f"explicit releases: {a} and {b} are closer than the period T = {T}", task=task, field="releases"
            )


def probability(value: Any, field: str) -> float:
    """``value`` as a float in [0, 1], or one InputError line naming ``field``."""
    try:
        p = float(value)
    except (TypeError, ValueError):
        p = float("nan")
    if not 0.0 <= p <= 1.0:
        raise InputError(f"{field} must be a probability, got {value!r}", field=field)
    return p


def checked_horizon(horizon: Any) -> int:
    """``horizon`` as an int in [1, 2**62], or one InputError line naming the field ``horizon``."""
    if isinstance(horizon, bool) or not isinstance(horizon, Integral | np.integer) or not 0 < int(horizon) <= 2**62:
        raise InputError(f"horizon must be a positive number of ticks, got {horizon!r}", field="horizon")
    return int(horizon)


def run_rngs(seed: Any, stream: int) -> tuple[np.random.Generator, np.random.Generator]:
    """The arrival and the execution generators of a run of ``seed`` (an int >= 0 or a SeedSequence).

    Arrivals draw from ``seed``; executions from the SeedSequence of the same entropy with
    ``stream`` appended to the spawn key. A bad seed is one InputError line naming ``seed``.
    """
    if isinstance(seed, np.random.SeedSequence):
        seed_seq = seed
    elif isinstance(seed, bool) or not isinstance(seed, Integral | np.integer) or int(seed) < 0:
        raise InputError(f"seed must be a non-negative integer or a numpy SeedSequence, got {seed!r}", field="seed")
    else:
        seed_seq = np.random.SeedSequence(int(seed))
    arrival_rng = np.random.default_rng(seed_seq)
    exec_rng = np.random.default_rng(np.random.SeedSequence(seed_seq.entropy, spawn_key=(*seed_seq.spawn_key, stream)))
    return arrival_rng, exec_rng


def _words(seed_seq: np.random.SeedSequence) -> tuple[int, int, int, int]:
    """The PCG64 state words (state high, state low, increment high, increment low) of ``seed_seq``."""
    state = np.random.PCG64(seed_seq).state["state"]
    low = (1 << 64) - 1
    return state["state"] >> 64, state["state"] & low, state["inc"] >> 64, state["inc"] & low


@functools.lru_cache(maxsize=4096)
def _cached_words(entropy: int, spawn_key: tuple[int, ...]) -> tuple[int, int, int, int]:
    """:func:`_words` of ``SeedSequence(entropy, spawn_key=spawn_key)``, cached (seeding costs ~20 µs)."""
    return _words(np.random.SeedSequence(entropy, spawn_key=spawn_key))


def pcg64_state(seed_seq: np.random.SeedSequence, stream: int | None = None) -> np.ndarray:
    """The kernels' PCG64 state (``uint64[4]``, :func:`rtsched.sim.engine.pcg64_double`) of a seed.

    The stream of ``numpy.random.default_rng(seed_seq)``, or with ``stream`` that of the
    execution generator of :func:`run_rngs` (the SeedSequence of the same entropy with
    ``stream`` appended to the spawn key). A fresh array: the kernels advance it in place.
    """
    pool = 4 if stream is not None else seed_seq.pool_size  # run_rngs' stream has the default pool
    key = tuple(seed_seq.spawn_key) if stream is None else (*seed_seq.spawn_key, stream)
    if isinstance(seed_seq.entropy, int) and pool == 4:
        words = _cached_words(seed_seq.entropy, key)
    else:
        words = _words(np.random.SeedSequence(seed_seq.entropy, spawn_key=key, pool_size=pool))
    return np.array(words, dtype=np.uint64)


#: The state passed for a stream a run does not draw from (never advanced; writable like every
#: state, so that the kernels see one array type and compile once).
_UNUSED_STREAM = np.zeros(4, dtype=np.uint64)


def frozen_rows(rows: Any, width: int) -> np.ndarray:
    """``rows`` as a read-only int64 table of ``width`` columns (a trace's event table)."""
    out = np.array(rows, dtype=np.int64).reshape(-1, width)
    out.setflags(write=False)
    return out


def _explicit_arrays(taskset: TaskSet, releases: Sequence[Sequence[int]]) -> tuple[np.ndarray, np.ndarray]:
    if len(releases) != taskset.n:
        raise InputError(f"explicit releases: {len(releases)} lists for {taskset.n} tasks")
    flat: list[int] = []
    offsets = [0]
    for i, times in enumerate(releases):
        times = [int(x) for x in times]
        for a, b in zip(times, times[1:], strict=False):
            if b - a < int(taskset.T[i]):
                raise InputError(
                    f"explicit releases of task {i}: {a} and {b} are closer than its period T = {int(taskset.T[i])}"
                )
        if times and times[0] < 0:
            raise InputError(f"explicit releases of task {i}: negative release time {times[0]}")
        flat += times
        offsets.append(len(flat))
    return np.array(flat, dtype=np.int64), np.array(offsets, dtype=np.int64)


def simulate(
    taskset: TaskSet,
    m: int,
    *,
    policy: Policy = "gedf",
    partition: Sequence[int] | None = None,
    arrivals: Arrivals = "periodic",
    releases: Sequence[Sequence[int]] | None = None,
    seed: int | np.random.SeedSequence | None = 0,
    p_delay: float = 0.5,
    max_extra: Sequence[int] | None = None,
    horizon: int | None = None,
    record: bool = True,
    ties: str = "index",
    tie_choices: Sequence[tuple[int, Sequence[int]]] | None = None,
    after_miss: AfterMiss = "stop",
    execution: Execution = "wcet",
) -> Trace:
    """Simulate ``taskset`` on ``m`` identical processors until the first miss or the horizon.

    Parameters
    ----------
    taskset:
        Sporadic tasks; arbitrary deadlines (``D > T``: a task's pending jobs run one at a time
        in release order).
    m:
        Number of processors.
    policy:
        ``"gedf"`` (global EDF), ``"pedf"`` (partitioned EDF; needs ``partition``), ``"gfp"``
        (global fixed priorities) or ``"pfp"`` (partitioned fixed priorities; needs
        ``partition``). Fixed priorities: the task order, index 0 highest. Equal absolute
        deadlines under EDF: see ``ties``.
    partition:
        Processor index (0..m-1) of each task, for ``pedf`` and ``pfp``.
    arrivals:
        ``"periodic"`` (synchronous, every T from 0), ``"sporadic"`` (each inter-arrival time is
        T plus, with probability ``p_delay``, an extra delay uniform in ``[1, max_extra_i]``;
        default ``max_extra_i = T_i``; the first release is at such a delay from 0) or
        ``"explicit"`` (``releases[i]`` lists task i's release times).
    releases:
        Explicit release times per task (implies ``arrivals="explicit"``).
    seed:
        Seed of the sporadic arrivals and of the random execution demands (an int or a
        :class:`numpy.random.SeedSequence`; the demands come from an independent stream, so
        the arrivals do not depend on ``execution``).
    horizon:
        Releases happen at ``t < horizon``; a run that stops at the first miss ends at the horizon,
        so it checks the deadlines up to it (``after_miss="continue"`` runs the jobs released
        before it to completion and checks theirs after it too); default :func:`default_horizon` (periodic with
        ``D > T``: :func:`~rtsched.sim.run.arbitrary_horizon`, and the run stops at the first multiple of the
        hyperperiod where no job is pending, ``Trace.repeats_at``; periodic with random
        execution: :func:`~rtsched.sim.run.random_execution_horizon`).
    record:
        Record the event tables (releases, segments, preemptions, migrations, tie decisions).
        ``False`` is the fast path: jobs are counted and the first miss found.
    ties:
        Rule between equal absolute deadlines: ``"index"`` (lowest task index, the default),
        ``"fifo"`` (earlier release first, then lowest index) or ``"random:SEED"`` (each job
        draws a priority at its release from a generator seeded with SEED, independent of the
        arrivals' seed; equal draws go to the lowest index; ``"random"`` is ``"random:0"``).
        EDF policies only (fixed priorities never tie): ``gfp``/``pfp`` take ``"index"`` only.
    tie_choices:
        Explicit tie decisions, ``[(time, [task, ...]), ...]``: during the tick ``[time, time + 1)``
        the listed tasks win every tie they take part in; elsewhere ``ties`` applies. The exact
        test's counterexamples give them (``Result.evidence["tie_choices"]``). EDF policies only.
    after_miss:
        ``"stop"`` (the default): the run ends at the first deadline miss. ``"continue"``: late
        jobs keep executing (soft real-time, Devi and Anderson's model: a task's jobs run one at
        a time in release order, so a late job delays its successors), every job released before
        the horizon runs to completion, and ``Trace.tardiness`` gives each task's observed
        maximum tardiness (finish − deadline, 0 if none); ``trace.miss`` is still the first miss.
        Ties ``index`` or ``fifo`` only (no ``random`` rule, no ``tie_choices``); see
        ``_run_after_misses``.
    execution:
        ``"wcet"`` (every job runs for ``C``, the default) or ``"random"`` (each job's demand
        is drawn at its release, uniform in ``[1, C]``, seeded by ``seed``; recorded runs list
        the demands in ``Trace.demands``). A miss under random execution is a legal
        behaviour of the sporadic task model (a WCET is an upper bound), so it refutes a
        schedulability claim just as a WCET run's does.

    Returns
    -------
    Trace
        What happened; ``trace.miss`` is the first deadline miss or ``None``.

    Examples
    --------
    >>> from rtsched.model import TaskSet
    >>> ts = TaskSet.from_tasks([(1, 9, 9), (1, 9, 9), (10, 10, 10)])  # Dhall's effect (examples/tasksets/dhall.txt)
    >>> simulate(ts, 2).miss
    DeadlineMiss(time=10, task=2, job=0, remaining=1)
    >>> simulate(ts, 2, policy="gfp").miss  # the heavy task last in priority, preempted at t=9
    DeadlineMiss(time=10, task=2, job=0, remaining=2)
    >>> print(simulate(TaskSet.from_tasks([(10, 10, 10), (1, 9, 9), (1, 9, 9)]), 2, policy="gfp"))
    no deadline miss in [0, 90] (29 jobs, gfp on m=2, periodic arrivals, task-order priorities)
    >>> simulate(ts, 2, execution="random", seed=1).demands[:3].tolist()  # one demand per release row
    [1, 1, 10]
    """
    if (  # the fast path: an unrecorded run of a global policy with valid common arguments
        not record
        and type(taskset) is TaskSet
        and type(m) is int
        and 0 < m <= 1_000_000
        and (policy == "gedf" or policy == "gfp")
        and (arrivals == "periodic" or arrivals == "sporadic")
        and releases is None
        and max_extra is None
        and not tie_choices
        and after_miss == "stop"
        and (execution == "wcet" or execution == "random")
        and type(seed) is int
        and seed >= 0
        and type(p_delay) is float
        and 0.0 <= p_delay <= 1.0
        and (horizon is None or (type(horizon) is int and 0 < horizon <= 2**62))
    ):
        tie = _fast_ties(ties)
        if tie is not None and (policy == "gedf" or tie[0] == TIES_INDEX):
            return _run_unrecorded(_prepared(taskset), m, policy, arrivals, seed, p_delay, horizon, tie, execution)
    m = check_processors(m)
    if not isinstance(taskset, TaskSet):
        taskset = TaskSet.from_tasks(taskset)
    n = taskset.n
    if releases is not None:
        arrivals = "explicit"
    if arrivals not in ("periodic", "sporadic", "explicit"):
        raise InputError(f"unknown arrivals {arrivals!r}; choose periodic, sporadic or explicit")
    if arrivals == "explicit" and releases is None:
        raise InputError("explicit arrivals need a list of release times per task")
    if policy in ("gedf", "gfp"):
        part = _constant(n, -1)
        part_tuple = None
    elif policy in ("pedf", "pfp"):
        if partition is None or len(partition) != n:
            kind = "EDF" if policy == "pedf" else "FP"
            raise InputError(f"partitioned {kind} needs one processor index per task ({n})")
        part = np.array([int(p) for p in partition], dtype=np.int64)
        if np.any(part < 0) or np.any(part >= m):
            raise InputError(f"processor indices must lie in 0..{m - 1}, got {list(partition)}")
        part_tuple = tuple(int(p) for p in part)
    else:
        raise InputError(f"unknown policy {policy!r}; choose one of {', '.join(POLICIES)}")
    fixed = policy in FIXED_PRIORITY_POLICIES
    tie_rule, tie_seed = parse_ties(ties)
    if execution not in EXECUTIONS:
        raise InputError(f"unknown execution {execution!r}; choose wcet or random", field="execution")
    random_exec = execution == "random"
    # periodic, D > T, default horizon: stop at the first multiple of H with no pending job
    # (a deterministic run: not under random ties, explicit tie choices or random execution)
    probe = 0
    if horizon is None:
        if arrivals == "periodic" and random_exec:
            horizon = random_execution_horizon(taskset)
        elif arrivals == "periodic" and not taskset.is_constrained:
            horizon = arbitrary_horizon(taskset, m, part_tuple)
            if tie_rule != "random" and not tie_choices and taskset.hyperperiod <= horizon:
                probe = int(taskset.hyperperiod)
        else:
            horizon = default_horizon(taskset, arrivals, releases)
    horizon = int(horizon)
    if not 0 < horizon <= 2**62:
        raise InputError(f"horizon must be a positive number of ticks, got {horizon}")
    if arrivals == "explicit":
        rel_times, rel_offsets = _explicit_arrays(taskset, releases)  # type: ignore[arg-type]
    else:
        rel_times, rel_offsets = _constant(0, 0), _constant(n + 1, 0)
    mode = _ARRIVAL_CODES[arrivals]
    if max_extra is None:
        extra = taskset.T
    else:
        extra = np.array([int(x) for x in max_extra], dtype=np.int64)
        if extra.shape != (n,) or np.any(extra < 0):
            raise InputError("max_extra needs one non-negative value per task")
    if not 0.0 <= float(p_delay) <= 1.0:
        raise InputError(f"p_delay must be a probability, got {p_delay}")
    if type(seed) is int and seed >= 0:  # the common case first (the checks below cost a short run ~1 µs)
        seed_seq = _seed_sequence(seed)
    elif isinstance(seed, np.random.SeedSequence):
        seed_seq = seed
    elif seed is None:
        seed_seq = np.random.SeedSequence()
    elif isinstance(seed, bool) or not isinstance(seed, Integral | np.integer) or int(seed) < 0:
        raise InputError(f"seed must be a non-negative integer or a numpy SeedSequence, got {seed!r}", field="seed")
    else:
        seed_seq = _seed_sequence(int(seed))
    if fixed and (tie_rule != "index" or tie_choices):
        raise InputError(
            f"{policy}: fixed priorities are distinct (the task order), so there are no ties to break; "
            "ties= and tie_choices= apply to gedf and pedf",
            field="ties",
        )
    tie_name = f"random:{tie_seed}" if tie_rule == "random" else tie_rule
    if after_miss not in AFTER_MISS:
        raise InputError(f"unknown after_miss {after_miss!r}; choose stop or continue", field="after_miss")
    if after_miss == "continue":
        if tie_rule == "random" or tie_choices:
            raise InputError(
                'after_miss="continue" takes the index or fifo tie rule (no random ties, no tie_choices)', field="ties"
            )
        return _run_after_misses(
            taskset, m, policy, part_tuple, arrivals, releases, seed_seq, float(p_delay), extra, horizon, tie_rule, record,
            seed if arrivals == "sporadic" and isinstance(seed, int) else None, random_exec,
        )  # fmt: skip
    if tie_choices:
        choices, choice_times, choice_offsets, choice_tasks = _tie_choice_arrays(taskset, tie_choices)
    else:
        choices, choice_times, choice_offsets, choice_tasks = (), _constant(0, 0), _constant(1, 0), _constant(0, 0)
    tie_code = _TIE_CODES[tie_rule]
    # the random streams a run draws from: a fresh PCG64 state each (the kernels advance them)
    arrival_state = pcg64_state(seed_seq) if mode == ARRIVALS_SPORADIC else _UNUSED_STREAM
    tie_state = pcg64_state(_seed_sequence(tie_seed)) if tie_rule == "random" else _UNUSED_STREAM
    exec_state = pcg64_state(seed_seq, EXECUTION_STREAM) if random_exec else _UNUSED_STREAM

    if not record:
        tasks = _prepared(taskset).tasks
        if part_tuple is not None or extra is not taskset.T:
            tasks = np.array([taskset.C, taskset.D, taskset.T, extra, part], dtype=np.int64)
        states = np.array([arrival_state, tie_state, exec_state], dtype=np.uint64)
        aux = np.concatenate([rel_times, rel_offsets, choice_times, choice_offsets, choice_tasks])
        status, jobs, miss_time, miss_task, end_time = fast_packed(
            tasks, m, fixed, mode, horizon, tie_code, probe, random_exec, float(p_delay), states, aux,
            rel_times.shape[0], choice_times.shape[0],
        )  # fmt: skip
        return fast_trace(
            taskset=taskset,
            m=m,
            policy=policy,
            partition=part_tuple,
            arrivals=arrivals,
            horizon=horizon,
            end_time=int(end_time),
            jobs=int(jobs),
            miss=None if status != MISS else DeadlineMiss(int(miss_time), int(miss_task)),
            seed=None if arrivals != "sporadic" else (int(seed) if isinstance(seed, int) else None),
            ties=tie_name,
            tie_choices=choices,
            repeats_at=int(end_time) if status == REPEATS else None,
            execution=execution,
        )

    # Room for the trace: about one release per period and a few segments per job; doubled
    # and rerun (same seed, so the same run) if it overflows.
    span = min(horizon, 2 * probe) if probe else horizon  # a probed run usually stops at H
    jobs_estimate = int(sum(math.ceil(min(span, 10**8) / int(t)) + 1 for t in taskset.T))
    capacity = min(max(64, jobs_estimate + n), 10**6)
    while True:
        logs = (
            np.zeros((capacity, 5), dtype=np.int64),
            np.zeros((3 * capacity + m, 5), dtype=np.int64),
            np.zeros((capacity, 4), dtype=np.int64),
            np.zeros((capacity, 5), dtype=np.int64),
            np.zeros((2 * capacity, 4), dtype=np.int64),
        )
        counts = np.zeros(5, dtype=np.int64)
        status, jobs, miss_time, miss_task, end_time = simulate_kernel(
            taskset.C, taskset.D, taskset.T, m, part, fixed, mode, arrival_state.copy(), float(p_delay), extra,
            rel_times, rel_offsets, horizon, tie_code, tie_state.copy(), choice_times, choice_offsets, choice_tasks,
            probe, random_exec, exec_state.copy(), True, *logs, counts,
        )  # fmt: skip
        if status != OVERFLOW:
            break
        capacity *= 4
        if capacity > MAX_TRACE_ROWS:
            raise InputError(
                f"the trace needs more than {MAX_TRACE_ROWS} rows; simulate a shorter horizon "
                f"(now {horizon}) or use record=False (no trace, first miss only)"
            )
    miss = None
    if status == MISS:
        miss = DeadlineMiss(int(miss_time), int(miss_task))
    released = logs[0][: counts[0]]
    trace = Trace(
        taskset=taskset,
        m=m,
        policy=policy,
        partition=part_tuple,
        arrivals=arrivals,
        horizon=horizon,
        end_time=int(end_time),
        jobs=int(jobs),
        miss=miss,
        seed=None if arrivals != "sporadic" else (seed if isinstance(seed, int) else None),
        releases=released[:, :4],
        segments=logs[1][: counts[1]],
        preemptions=logs[2][: counts[2]],
        migrations=logs[3][: counts[3]],
        ties=tie_name,
        tie_choices=choices,
        tie_decisions=logs[4][: counts[4]],
        repeats_at=int(end_time) if status == REPEATS else None,
        execution=execution,
        demands=released[:, 4] if random_exec else None,
    )
    if miss is not None:
        # the missed job is the task's oldest pending one: the one whose deadline is the miss time
        rows = trace.releases
        hit = np.flatnonzero((rows[:, 0] == miss.task) & (rows[:, 3] == miss.time))
        row = int(hit[0]) if hit.size else int(np.flatnonzero(rows[:, 0] == miss.task)[-1])
        job = int(rows[row, 1])
        remaining = int(released[row, 4]) - trace.executed(miss.task, job)
        trace = _with_miss(trace, DeadlineMiss(miss.time, miss.task, job, remaining))
    return trace


class _Prepared:
    """What the fast path needs of one task set, made once per :class:`TaskSet` object (:func:`_prepared`).

    ``tasks`` is the packed task matrix of :func:`rtsched.sim.engine.fast_packed` (rows C, D,
    T, ``max_extra = T``, partition ``-1``); ``horizons`` caches the default horizon and probe
    period per ``(arrivals, m, random execution, random ties)``; ``aux`` is the kernel's ``aux``
    of a run without explicit releases or tie choices.
    """

    __slots__ = ("aux", "horizons", "n", "taskset", "tasks")

    def __init__(self, taskset: TaskSet) -> None:
        n = taskset.n
        tasks = np.empty((5, n), dtype=np.int64)
        tasks[0], tasks[1], tasks[2], tasks[3], tasks[4] = taskset.C, taskset.D, taskset.T, taskset.T, -1
        self.taskset = taskset
        self.n = n
        self.tasks = tasks
        self.aux = _constant(n + 2, 0)  # no explicit releases, no tie choices
        self.horizons: dict[tuple[str, int, bool, bool], tuple[int, int]] = {}

    def default(self, arrivals: str, m: int, random_exec: bool, random_ties: bool) -> tuple[int, int]:
        """``(horizon, probe)`` that :func:`simulate` uses when no horizon is given (global policies)."""
        key = (arrivals, m, random_exec, random_ties)
        hit = self.horizons.get(key)
        if hit is None:
            ts = self.taskset
            probe = 0
            if arrivals == "periodic" and random_exec:
                horizon = random_execution_horizon(ts)
            elif arrivals == "periodic" and not ts.is_constrained:
                horizon = arbitrary_horizon(ts, m, None)
                if not random_ties and ts.hyperperiod <= horizon:
                    probe = int(ts.hyperperiod)
            else:
                horizon = default_horizon(ts, arrivals, None)  # type: ignore[arg-type]
            hit = self.horizons[key] = (int(horizon), probe)
        return hit


#: :class:`_Prepared` per task-set object, keyed by ``id`` (a TaskSet has ``__slots__`` and no
#: weak references); each entry keeps its set alive, so an id is not reused while it is cached.
_PREPARED: dict[int, tuple[TaskSet, _Prepared]] = {}
_PREPARED_MAX = 4096


def _prepared(taskset: TaskSet) -> _Prepared:
    """The cached :class:`_Prepared` of ``taskset`` (task sets are immutable)."""
    hit = _PREPARED.get(id(taskset))
    if hit is not None and hit[0] is taskset:
        return hit[1]
    entry = _Prepared(taskset)
    if len(_PREPARED) >= _PREPARED_MAX:
        _PREPARED.clear()
    _PREPARED[id(taskset)] = (taskset, entry)
    return entry


#: ``ties`` strings seen by the fast path: (kernel code, seed, name in the trace).
_TIES_SEEN: dict[str, tuple[int, int, str]] = {}


def _fast_ties(ties: Any) -> tuple[int, int, str] | None:
    """``(code, seed, name)`` of a valid ``ties`` string, cached; ``None`` otherwise (the full path reports it)."""
    hit = _TIES_SEEN.get(ties) if type(ties) is str else None
    if hit is None:
        try:
            rule, seed = parse_ties(ties)
        except InputError:
            return None
        hit = (_TIE_CODES[rule], seed, f"random:{seed}" if rule == "random" else rule)
        if len(_TIES_SEEN) < 1024 and type(ties) is str:
            _TIES_SEEN[ties] = hit
    return hit


#: States of three unused streams (never advanced: shared by every run that draws no random number).
_UNUSED_STATES = np.zeros((3, 4), dtype=np.uint64)


@functools.lru_cache(maxsize=1024)
def _states(seed: int, sporadic: bool, tie_seed: int, random_exec: bool) -> np.ndarray:
    """The kernels' three PCG64 states (arrivals, tie priorities, demands) of a run; read-only, copy before use.

    The rows are :func:`pcg64_state` of ``SeedSequence(seed)``, of ``SeedSequence(tie_seed)``
    (``tie_seed < 0``: random ties unused) and of the execution stream of ``seed``; an unused
    stream is zeros, as :func:`simulate`'s. Seeded by :func:`rtsched.sim.engine.seed_states`
    (~1 µs; NumPy's own seeding cost a fresh seed ~11 µs per stream), by NumPy for seeds of
    2**63 and more.
    """
    out = np.zeros((3, 4), dtype=np.uint64)
    if seed < _SEED_LIMIT and tie_seed < _SEED_LIMIT:  # NumPy's seeding, compiled (pcg64_seed)
        seed_states(np.array([seed], dtype=np.int64), sporadic, tie_seed, random_exec, EXECUTION_STREAM, out[None])
    else:
        if sporadic:
            out[0] = _cached_words(seed, ())
        if tie_seed >= 0:
            out[1] = _cached_words(tie_seed, ())
        if random_exec:
            out[2] = _cached_words(seed, (EXECUTION_STREAM,))
    out.setflags(write=False)
    return out


#: Seeds below this are seeded by the compiled :func:`rtsched.sim.engine.pcg64_seed` (int64 arguments).
_SEED_LIMIT = 2**63


def _run_states(seed: int, sporadic: bool, tie: tuple[int, int, str], random_exec: bool) -> np.ndarray:
    """A fresh (writable) state array for one run, or the shared unused one if it draws nothing."""
    random_ties = tie[0] == TIES_RANDOM
    if not (sporadic or random_ties or random_exec):
        return _UNUSED_STATES
    return _states(seed if sporadic or random_exec else 0, sporadic, tie[1] if random_ties else -1, random_exec).copy()


def _run_unrecorded(
    entry: _Prepared,
    m: int,
    policy: str,
    arrivals: str,
    seed: int,
    p_delay: float,
    horizon: int | None,
    tie: tuple[int, int, str],
    execution: str,
) -> Trace:
    """:func:`simulate`'s fast path (arguments already checked): one :func:`fast_packed` call, a Trace without tables."""
    random_exec = execution == "random"
    sporadic = arrivals == "sporadic"
    if horizon is None:
        horizon, probe = entry.default(arrivals, m, random_exec, tie[0] == TIES_RANDOM)
    else:
        probe = 0
    status, jobs, miss_time, miss_task, end_time = fast_packed(
        entry.tasks, m, policy == "gfp", ARRIVALS_SPORADIC if sporadic else ARRIVALS_PERIODIC, horizon, tie[0],
        probe, random_exec, p_delay, _run_states(seed, sporadic, tie, random_exec), entry.aux, 0, 0,
    )  # fmt: skip
    return _bare_trace(
        _bare_template(m, policy, arrivals, tie[2], execution), entry.taskset, horizon, status, jobs, miss_time,
        miss_task, end_time, seed if sporadic else None,
    )  # fmt: skip


def _bare_template(m: int, policy: str, arrivals: str, ties: str, execution: str) -> dict[str, Any]:
    """The fields of an unrecorded global run's :class:`Trace` that do not depend on the set or the outcome (cached)."""
    key = (m, policy, arrivals, ties, execution)
    hit = _TEMPLATES.get(key)
    if hit is None:
        hit = {
            "taskset": None,
            "m": m,
            "policy": policy,
            "partition": None,
            "arrivals": arrivals,
            "horizon": 0,
            "end_time": 0,
            "jobs": 0,
            "miss": None,
            "seed": None,
            "releases": _NO_ROWS4,
            "segments": _NO_ROWS5,
            "preemptions": _NO_ROWS4,
            "migrations": _NO_ROWS5,
            "ties": ties,
            "tie_choices": (),
            "tie_decisions": _NO_ROWS4,
            "repeats_at": None,
            "tardiness": None,
            "execution": execution,
            "demands": None,
        }
        if len(_TEMPLATES) < 4096:
            _TEMPLATES[key] = hit
    return hit


_TEMPLATES: dict[tuple[int, str, str, str, str], dict[str, Any]] = {}


def _bare_trace(
    template: dict[str, Any],
    taskset: TaskSet,
    horizon: int,
    status: int,
    jobs: int,
    miss_time: int,
    miss_task: int,
    end_time: int,
    seed: int | None,
) -> Trace:
    """The :class:`Trace` of an unrecorded global run from the kernel's outcome (as :func:`fast_trace`, from a template)."""
    trace: Trace = _new_object(Trace)
    values = trace.__dict__
    values.update(template)
    values["taskset"] = taskset
    values["horizon"] = horizon
    values["end_time"] = int(end_time)
    values["jobs"] = int(jobs)
    values["seed"] = seed
    if status == MISS:
        values["miss"] = DeadlineMiss(int(miss_time), int(miss_task))
    elif status == REPEATS:
        values["repeats_at"] = int(end_time)
    return trace


_new_object = object.__new__
#: The shared read-only empty event tables of an unrecorded Trace (trace.py's).
_NO_ROWS4 = fast_trace(taskset=None).releases
_NO_ROWS5 = fast_trace(taskset=None).segments


def simulate_batch(
    tasksets: Iterable[TaskSet],
    m: int,
    *,
    seeds: int | Sequence[int] = 0,
    policy: Policy = "gedf",
    arrivals: Arrivals = "periodic",
    p_delay: float = 0.5,
    horizon: int | None = None,
    ties: str = "index",
    execution: Execution = "wcet",
) -> list[Trace]:
    """Simulate many task sets in one kernel call; the same traces as unrecorded :func:`simulate` runs.

    ``simulate_batch(sets, m, seeds=seeds, ...)[s]`` equals ``simulate(sets[s], m,
    seed=seeds[s], record=False, ...)`` (the same jobs, end time, first miss, ``repeats_at``;
    tests/test_sim_batch.py checks it): the sets run one after the other in one compiled loop
    (:func:`rtsched.sim.engine.fast_batch`), which saves the per-call cost of a short run
    (papers/simulator.md, "Performance").

    Parameters
    ----------
    tasksets:
        Task sets (a list, or a :class:`~rtsched.model.TaskSetBatch`).
    m:
        Number of processors.
    seeds:
        One seed for every set, or one per set (non-negative integers): the seeds of the
        sporadic arrivals and the random demands, as ``simulate``'s ``seed``.
    policy:
        ``"gedf"`` or ``"gfp"`` (the global policies; partitioned runs go through ``simulate``).
    arrivals:
        ``"periodic"`` or ``"sporadic"``.
    p_delay, horizon, ties, execution:
        As in :func:`simulate` (one value for every set; ``horizon=None``: each set's default).

    Returns
    -------
    list of Trace
        One unrecorded trace per set, in order.

    Examples
    --------
    >>> from rtsched.model import TaskSet
    >>> sets = [TaskSet.from_tasks([(1, 9, 9), (1, 9, 9), (10, 10, 10)]), TaskSet.from_tasks([(1, 2, 2)])]
    >>> [str(t.miss) for t in simulate_batch(sets, 2)]
    ['DeadlineMiss(time=10, task=2, job=-1, remaining=-1)', 'None']
    """
    sets = [ts if isinstance(ts, TaskSet) else TaskSet.from_tasks(ts) for ts in tasksets]
    m = check_processors(m)
    if policy not in ("gedf", "gfp"):
        raise InputError(f"simulate_batch runs gedf or gfp, got {policy!r}; simulate partitioned runs one by one")
    if arrivals not in ("periodic", "sporadic"):
        raise InputError(f"simulate_batch: arrivals periodic or sporadic, got {arrivals!r}")
    p_delay = probability(p_delay, "p_delay")
    if horizon is not None:
        horizon = checked_horizon(horizon)
    rule, _ = parse_ties(ties)
    tie = _fast_ties(str(ties).strip())
    assert tie is not None
    if policy == "gfp" and rule != "index":
        raise InputError(
            "gfp: fixed priorities are distinct (the task order), so there are no ties to break", field="ties"
        )
    if execution not in EXECUTIONS:
        raise InputError(f"unknown execution {execution!r}; choose wcet or random", field="execution")
    if isinstance(seeds, bool) or not isinstance(seeds, Integral | np.integer | Iterable):
        raise InputError(f"seeds must be a non-negative integer or one per task set, got {seeds!r}", field="seeds")
    if isinstance(seeds, Integral | np.integer):
        seed_list = [int(seeds)] * len(sets)
    else:
        seed_array = np.asarray(seeds if isinstance(seeds, np.ndarray | range) else list(seeds))
        if seed_array.ndim != 1 or seed_array.shape[0] != len(sets):
            raise InputError(f"simulate_batch: {seed_array.size} seeds for {len(sets)} task sets", field="seeds")
        seed_list = seed_array.tolist()
        if seed_array.dtype.kind == "O":  # Python ints beyond int64 (seeded by NumPy)
            if not all(isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in seed_list):
                raise InputError("seeds must be non-negative integers", field="seeds")
        elif seed_array.size and (seed_array.dtype.kind not in "iu" or seed_array.min() < 0):
            raise InputError("seeds must be non-negative integers", field="seeds")
    if seed_list and seed_list[0] < 0:
        raise InputError("seeds must be non-negative integers", field="seeds")
    count_sets = len(sets)
    if count_sets == 0:
        return []
    random_exec = execution == "random"
    sporadic = arrivals == "sporadic"
    entries = [_prepared(ts) for ts in sets]
    if horizon is None:
        pairs = [e.default(arrivals, m, random_exec, tie[0] == TIES_RANDOM) for e in entries]
        horizons = np.array([h for h, _ in pairs], dtype=np.int64)
        probes = np.array([p for _, p in pairs], dtype=np.int64)
    else:
        horizons = np.full(count_sets, horizon, dtype=np.int64)
        probes = np.zeros(count_sets, dtype=np.int64)
    states = np.zeros((count_sets, 3, 4), dtype=np.uint64)
    tie_seed = tie[1] if tie[0] == TIES_RANDOM else -1
    if not (sporadic or random_exec or tie_seed >= 0):
        pass  # no stream drawn from
    elif max(seed_list) < _SEED_LIMIT and tie_seed < _SEED_LIMIT:
        seeds_used = np.array(seed_list if sporadic or random_exec else [0] * count_sets, dtype=np.int64)
        seed_states(seeds_used, sporadic, tie_seed, random_exec, EXECUTION_STREAM, states)
    else:
        states = np.stack([_run_states(s, sporadic, tie, random_exec) for s in seed_list])
    sizes = [e.n for e in entries]
    offsets = np.zeros(count_sets + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    tasks = np.concatenate([e.tasks for e in entries], axis=1)
    out = np.zeros((count_sets, 5), dtype=np.int64)
    fast_batch(
        tasks, offsets, m, policy == "gfp", ARRIVALS_SPORADIC if sporadic else ARRIVALS_PERIODIC, horizons, probes,
        tie[0], random_exec, p_delay, states, np.zeros(max(sizes) + 2, dtype=np.int64), out,
    )  # fmt: skip
    template = _bare_template(m, policy, arrivals, tie[2], execution)
    return [
        _bare_trace(template, ts, h, status, jobs, mt, mk, end, s if sporadic else None)
        for ts, h, s, (status, jobs, mt, mk, end) in zip(sets, horizons.tolist(), seed_list, out.tolist(), strict=True)
    ]


def random_execution_horizon(taskset: TaskSet) -> int:
    """Default periodic horizon under random execution (as the segmented simulator's).

    The smallest multiple of the hyperperiod ``H`` that is at least ``SPORADIC_PERIODS``
    times the largest period: whole hyperperiods, each a fresh sample of the demands (a periodic
    run under random execution does not repeat itself, so one hyperperiod decides nothing).
    Capped at :data:`~rtsched.sim.run.DEFAULT_MAX_HORIZON`.
    """
    hyper = int(taskset.hyperperiod)
    want = SPORADIC_PERIODS * int(taskset.T.max())
    return int(min(-(-want // hyper) * hyper, DEFAULT_MAX_HORIZON))


@functools.lru_cache(maxsize=1024)
def _seed_sequence(seed: int) -> np.random.SeedSequence:
    """``SeedSequence(seed)``, cached (immutable; building one costs ~10 µs)."""
    return np.random.SeedSequence(seed)


@functools.lru_cache(maxsize=256)
def _constant(length: int, value: int) -> np.ndarray:
    """A shared ``int64`` array of ``length`` times ``value`` that the kernels only read.

    For the arguments that do not depend on the set's values (the global policies' partition of
    ``-1``s, no explicit releases, no tie choices): building them took a share of a short run.
    Writable, like the arrays passed in other calls, so that the kernels see one array type.
    """
    return np.full(length, value, dtype=np.int64)


def _with_miss(trace: Trace, miss: DeadlineMiss) -> Trace:
    from dataclasses import replace

    return replace(trace, miss=miss)


def _release_lists(
    taskset: TaskSet,
    arrivals: str,
    releases: Sequence[Sequence[int]] | None,
    seed_seq: np.random.SeedSequence,
    p_delay: float,
    extra: np.ndarray,
    horizon: int,
) -> list[list[int]]:
    """Release times before ``horizon`` per task, for ``_run_after_misses``.

    Periodic: every ``T_i`` from 0. Sporadic: the law of :func:`simulate` (first release and
    each gap: ``T_i``, or with probability ``p_delay`` ``T_i`` plus an extra uniform in
    ``[1, max_extra_i]``; the first release is the extra alone), drawn task after task from one
    generator seeded with ``seed`` (the same law as the kernels, not the same draws: a hard run
    and a tardiness run with one seed see different sporadic patterns). Explicit: as given.
    """
    T = [int(t) for t in taskset.T]
    if arrivals == "periodic":
        return [list(range(0, horizon, t)) for t in T]
    if arrivals == "explicit":
        rel_times, rel_offsets = _explicit_arrays(taskset, releases)  # type: ignore[arg-type]
        flat = [int(x) for x in rel_times]
        return [[x for x in flat[rel_offsets[i] : rel_offsets[i + 1]] if x < horizon] for i in range(taskset.n)]
    rng = np.random.default_rng(seed_seq)
    out: list[list[int]] = []
    for i, period in enumerate(T):
        times: list[int] = []
        t = -period
        while True:
            gap = period
            if extra[i] > 0 and rng.random() < p_delay:
                gap += 1 + int(rng.random() * int(extra[i]))
            t += gap
            if t >= horizon:
                break
            times.append(t)
        out.append(times)
    return out


def _run_after_misses(
    taskset: TaskSet,
    m: int,
    policy: str,
    partition: tuple[int, ...] | None,
    arrivals: str,
    releases: Sequence[Sequence[int]] | None,
    seed_seq: np.random.SeedSequence,
    p_delay: float,
    extra: np.ndarray,
    horizon: int,
    tie_rule: str,
    record: bool,
    seed: int | None,
    random_exec: bool = False,
) -> Trace:
    """``simulate(..., after_miss="continue")``: run every job released before ``horizon`` to its end.

    An event-driven loop in Python (papers/devi-anderson2008-tardiness.md, "Simulator"): at each release or
    completion the ``m`` best pending heads run (global policies), or on each processor its best
    pending head (partitioned), until the next event. A task's pending jobs are a FIFO queue and
    only its head (oldest) job can run, so a late job delays its successors: the model of Devi
    and Anderson (Real-Time Systems 38(2), 2008, Sect. 2). EDF priority: the head's absolute
    deadline, then (``fifo``) its release, then the task index; fixed priorities: the index.
    Before the first miss the schedule is the kernels' (the same rules), so ``trace.miss``
    equals a ``stop`` run's on periodic and explicit arrivals. Deadlines are not events: a
    late job keeps its deadline as its priority. Random execution draws each job's demand at
    its release, in release order (time, then task index), from the kernels' execution stream
    (:data:`EXECUTION_STREAM`): the same demands as a ``stop`` run's for the same releases.

    The recorded tables are ``releases`` and ``segments`` (global policies: a job keeps its
    processor while it runs, a job that starts takes the lowest free processor); preemptions,
    migrations and tie decisions are not recorded in this mode.
    """
    from collections import deque

    n = taskset.n
    C = [int(c) for c in taskset.C]
    D = [int(d) for d in taskset.D]
    rel = _release_lists(taskset, arrivals, releases, seed_seq, p_delay, extra, horizon)
    exec_rng = run_rngs(seed_seq, EXECUTION_STREAM)[1] if random_exec else None  # the kernels' execution stream
    demand_rows: list[int] = []
    nxt = [0] * n
    jobs_of = [0] * n
    # a pending job: [job index, release, deadline, remaining, executed before its deadline, demand]
    queue: list[deque[list[int]]] = [deque() for _ in range(n)]
    tardiness = [0] * n
    first_miss: tuple[int, int, int, int] | None = None  # (deadline, task, job, remaining at the deadline)
    release_rows: list[tuple[int, int, int, int]] = []
    segment_rows: list[tuple[int, int, int, int, int]] = []
    open_seg: dict[int, list[int]] = {}  # task -> [processor, job, start]
    fixed = policy in FIXED_PRIORITY_POLICIES
    fifo = tie_rule == "fifo"

    def key(i: int) -> tuple[int, ...]:
        if fixed:
            return (i,)
        head = queue[i][0]
        return (head[2], head[1], i) if fifo else (head[2], i)

    t = 0
    end = 0
    total = 0
    while True:
        for i in range(n):
            times = rel[i]
            while nxt[i] < len(times) and times[nxt[i]] == t:
                c = C[i] if exec_rng is None else min(C[i], 1 + int(exec_rng.random() * C[i]))
                queue[i].append([jobs_of[i], t, t + D[i], c, 0, c])
                if record:
                    release_rows.append((i, jobs_of[i], t, t + D[i]))
                    demand_rows.append(c)
                jobs_of[i] += 1
                nxt[i] += 1
                total += 1
        next_rel = min((rel[i][nxt[i]] for i in range(n) if nxt[i] < len(rel[i])), default=None)
        heads = [i for i in range(n) if queue[i]]
        if partition is None:
            chosen = sorted(heads, key=key)[:m]
        else:
            best: dict[int, int] = {}
            for i in heads:
                p = partition[i]
                if p not in best or key(i) < key(best[p]):
                    best[p] = i
            chosen = sorted(best.values())
        if record:  # close the segments of jobs that stop running at t
            for i in [i for i, seg in open_seg.items() if i not in chosen or seg[1] != queue[i][0][0]]:
                p, job, start = open_seg.pop(i)
                segment_rows.append((p, i, job, start, t))
            busy = {seg[0] for seg in open_seg.values()}
            for i in chosen:
                if i not in open_seg:
                    p = partition[i] if partition is not None else min(q for q in range(m) if q not in busy)
                    busy.add(p)
                    open_seg[i] = [p, queue[i][0][0], t]
        if not chosen:
            if next_rel is None:
                break
            t = next_rel
            continue
        delta = min(queue[i][0][3] for i in chosen)
        if next_rel is not None:
            delta = min(delta, next_rel - t)
        for i in chosen:
            head = queue[i][0]
            if t < head[2]:
                head[4] += min(delta, head[2] - t)
            head[3] -= delta
            if head[3] == 0:
                finish = t + delta
                end = max(end, finish)
                late = finish - head[2]
                if late > 0:
                    tardiness[i] = max(tardiness[i], late)
                    late_job = (head[2], i, head[0], head[5] - head[4])
                    if first_miss is None or late_job[:2] < first_miss[:2]:
                        first_miss = late_job
                queue[i].popleft()
        t += delta
    if record:
        for i, (p, job, start) in open_seg.items():
            segment_rows.append((p, i, job, start, t))
        segment_rows.sort(key=lambda r: (r[3], r[0]))
    miss: DeadlineMiss | None = None
    if first_miss is not None:
        d, i, job, left = first_miss
        miss = DeadlineMiss(d, i, job, left) if record else DeadlineMiss(d, i)
    return Trace(
        taskset=taskset,
        m=m,
        policy=policy,
        partition=partition,
        arrivals=arrivals,
        horizon=horizon,
        end_time=max(end, t),
        jobs=total,
        miss=miss,
        seed=seed,
        releases=np.array(release_rows, dtype=np.int64).reshape(-1, 4),
        segments=np.array(segment_rows, dtype=np.int64).reshape(-1, 5),
        ties=tie_rule,
        tardiness=tuple(tardiness),
        execution="random" if random_exec else "wcet",
        demands=np.array(demand_rows, dtype=np.int64) if random_exec and record else None,
    )
