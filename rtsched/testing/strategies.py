"""Public hypothesis strategies for tasks, task sets and batches.

Valid by construction (draw T, then C in [1, T], then D in [C, T]; no filtering of whole sets),
and they shrink toward small simple sets: fewer tasks, then small periods, C = 1 and D = C.

>>> from hypothesis import given
>>> from rtsched.testing import strategies as rst
>>> @given(rst.tasksets(max_size=5))
... def test_u_positive(ts):
...     assert ts.utilization > 0
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Literal

from hypothesis import strategies as st

from rtsched.dag.model import DAGTask, DAGTaskSet
from rtsched.mc.model import MCTask, MCTaskSet
from rtsched.model import MAX_TIME, Task, TaskSet, TaskSetBatch
from rtsched.segmented.model import GPUSegment, SegmentedTask, SegmentedTaskSet

__all__ = [
    "batches",
    "dag_tasks",
    "dag_tasksets",
    "mc_tasks",
    "mc_tasksets",
    "on_a_bound",
    "segmented_cases",
    "segmented_splits",
    "segmented_tasks",
    "segmented_tasksets",
    "tasks",
    "tasksets",
]

Deadlines = Literal["implicit", "constrained", "arbitrary"]


@st.composite
def tasks(
    draw: st.DrawFn,
    *,
    min_period: int = 1,
    max_period: int = 100,
    deadlines: Deadlines = "constrained",
    max_deadline_factor: int = 3,
) -> Task:
    """One task (C, D, T) with ``min_period <= T <= max_period``.

    ``deadlines``: ``implicit`` (D = T), ``constrained`` (C <= D <= T) or ``arbitrary``
    (C <= D <= max_deadline_factor·T, with C <= T so that utilization stays at most 1).
    """
    if not 1 <= min_period <= max_period <= MAX_TIME:
        raise ValueError("need 1 <= min_period <= max_period <= MAX_TIME")
    T = draw(st.integers(min_period, max_period))
    C = draw(st.integers(1, T))
    if deadlines == "implicit":
        D = T
    elif deadlines == "constrained":
        D = draw(st.integers(C, T))
    elif deadlines == "arbitrary":
        D = draw(st.integers(C, min(MAX_TIME, max_deadline_factor * T)))
    else:
        raise ValueError(f"unknown deadline model {deadlines!r}")
    return Task(C, D, T)


@st.composite
def tasksets(
    draw: st.DrawFn,
    *,
    min_size: int = 1,
    max_size: int = 8,
    min_period: int = 1,
    max_period: int = 100,
    deadlines: Deadlines = "constrained",
    max_utilization: float | None = None,
) -> TaskSet:
    """A task set of ``min_size..max_size`` tasks.

    ``max_utilization`` caps the total utilization by shrinking execution times (never by
    filtering): tasks are drawn, then C values are reduced, largest utilization first, until the
    cap holds (C stays at least 1, so a cap below Σ 1/T cannot be met and is ignored there).
    """
    rows = draw(
        st.lists(
            tasks(min_period=min_period, max_period=max_period, deadlines=deadlines),
            min_size=min_size,
            max_size=max_size,
        )
    )
    if max_utilization is not None:
        rows = _cap_utilization(rows, max_utilization)
    model: Literal["arbitrary", "constrained"] = "arbitrary" if deadlines == "arbitrary" else "constrained"
    return TaskSet.from_tasks([(t.C, t.D, t.T) for t in rows], deadlines=model)


def _cap_utilization(rows: list[Task], cap: float) -> list[Task]:
    from fractions import Fraction

    limit = Fraction(cap).limit_denominator(10**6)
    rows = list(rows)
    while sum(Fraction(t.C, t.T) for t in rows) > limit:
        i = max(range(len(rows)), key=lambda j: (Fraction(rows[j].C, rows[j].T), -j))
        t = rows[i]
        if t.C == 1:
            break
        C = max(1, t.C // 2)
        rows[i] = Task(C, t.D, t.T)  # D >= old C >= new C
    return rows


@st.composite
def batches(draw: st.DrawFn, *, min_sets: int = 1, max_sets: int = 20, **taskset_options: object) -> TaskSetBatch:
    """A :class:`~rtsched.model.TaskSetBatch` of ``min_sets..max_sets`` sets drawn with :func:`tasksets`."""
    sets = draw(st.lists(tasksets(**taskset_options), min_size=min_sets, max_size=max_sets))  # type: ignore[arg-type]
    return TaskSetBatch.from_tasksets(sets)


@st.composite
def on_a_bound(
    draw: st.DrawFn,
    total: Callable[[TaskSet, int], Fraction],
    *,
    processors: st.SearchStrategy[int] | None = None,
    max_deadline: int = 12,
    heavy_period_factor: int = 1,
    scale_remainder: bool = False,
    one_tick_more: bool = False,
) -> tuple[TaskSet, int]:
    """``(task set, m)`` whose total density equals ``total(heavy, m)`` exactly.

    The boundary case of a utilization- or density-bound test (GFB's m − (m − 1)·λmax, a load
    bound's β, ...).

    The set is a heavy task ``(c0, d0, T0)`` (``T0`` up to ``heavy_period_factor·d0``), copies of
    ``(c0, d0, d0)`` while the remaining gap is at least λ = c0/d0, and one implicit-deadline task
    carrying the rest (its C, D = T scaled by a drawn k in 1..7 when ``scale_remainder``), so
    λmax = λ. ``total`` gets the heavy task alone as a one-task set. With ``one_tick_more``, a
    drawn half of the sets get one more tick of execution on the last task (just above the
    bound, when that task has room).
    """
    m = draw(st.integers(1, 4) if processors is None else processors)
    d0 = draw(st.integers(2, max_deadline))
    c0 = draw(st.integers(1, d0))
    lam = Fraction(c0, d0)
    tasks = [(c0, d0, draw(st.integers(d0, heavy_period_factor * d0)))]
    gap = total(TaskSet.from_tasks(tasks), m) - lam
    while gap >= lam:
        tasks.append((c0, d0, d0))
        gap -= lam
    if gap > 0:
        k = draw(st.integers(1, 7)) if scale_remainder else 1
        tasks.append((gap.numerator * k, gap.denominator * k, gap.denominator * k))
    if one_tick_more and draw(st.booleans()):
        c, d, t = tasks[-1]
        tasks[-1] = (min(c + 1, d), d, t)
    return TaskSet.from_tasks(tasks), m


@st.composite
def dag_tasks(
    draw: st.DrawFn,
    *,
    max_vertices: int = 6,
    max_wcet: int = 6,
    edge_probability: float | None = None,
    min_period: int = 1,
    max_period: int = 40,
    deadlines: Deadlines = "constrained",
    max_deadline_factor: int = 3,
    types: tuple[str, ...] = (),
) -> DAGTask:
    """One sporadic DAG task, acyclic by construction (edges only from a lower to a higher index).

    Vertices ``1..max_vertices`` with WCETs in ``1..max_wcet``; each pair ``u < v`` is an edge
    with a drawn boolean (``edge_probability=None``) or, when given, with that probability (a
    drawn float compared to it, so it still shrinks toward no edge); ``T`` in
    ``min_period..max_period``; ``D = T`` (``implicit``), ``D`` in ``1..T`` (``constrained``) or
    ``1..max_deadline_factor·T`` (``arbitrary``). ``len > D`` and ``vol > T`` may occur (such a
    task is unschedulable, which analyses must say). ``types``: when given, each vertex's type
    is drawn from it. Shrinks toward one vertex of WCET 1, no edge and small periods.
    """
    if not 1 <= min_period <= max_period <= MAX_TIME:
        raise ValueError("need 1 <= min_period <= max_period <= MAX_TIME")
    n = draw(st.integers(1, max_vertices))
    wcets = draw(st.lists(st.integers(1, max_wcet), min_size=n, max_size=n))
    edges = []
    for v in range(1, n):
        for u in range(v):
            if edge_probability is None:
                chosen = draw(st.booleans())
            else:
                chosen = draw(st.floats(0, 1, exclude_max=True)) >= 1 - edge_probability
            if chosen:
                edges.append((u, v))
    T = draw(st.integers(min_period, max_period))
    if deadlines == "implicit":
        D = T
    elif deadlines == "constrained":
        D = draw(st.integers(1, T))
    elif deadlines == "arbitrary":
        D = draw(st.integers(1, min(MAX_TIME, max_deadline_factor * T)))
    else:
        raise ValueError(f"unknown deadline model {deadlines!r}")
    vertex_types = draw(st.lists(st.sampled_from(types), min_size=n, max_size=n)) if types else None
    return DAGTask(wcets, edges, T, D, types=vertex_types)


@st.composite
def dag_tasksets(draw: st.DrawFn, *, min_size: int = 1, max_size: int = 4, **task_options: object) -> DAGTaskSet:
    """A :class:`~rtsched.dag.DAGTaskSet` of ``min_size..max_size`` tasks drawn with :func:`dag_tasks`."""
    return DAGTaskSet(draw(st.lists(dag_tasks(**task_options), min_size=min_size, max_size=max_size)))  # type: ignore[arg-type]


@st.composite
def mc_tasks(
    draw: st.DrawFn,
    *,
    min_period: int = 1,
    max_period: int = 40,
    deadlines: Deadlines = "constrained",
    max_deadline_factor: int = 3,
    hi: bool | None = None,
) -> MCTask:
    """One dual-criticality task (:class:`~rtsched.mc.MCTask`), valid by construction.

    ``T`` in ``min_period..max_period``; ``D = T`` (``implicit``), ``D`` in ``1..T``
    (``constrained``) or ``1..max_deadline_factor·T`` (``arbitrary``); then ``C(LO)`` in
    ``1..min(D, T)`` and, for a HI task, ``C(HI)`` in ``C(LO)..min(D, T)`` (every WCET fits its
    deadline and its period). ``hi``: the criticality, drawn when ``None``. Shrinks toward a LO
    task with ``C = 1`` and small periods.
    """
    if not 1 <= min_period <= max_period <= MAX_TIME:
        raise ValueError("need 1 <= min_period <= max_period <= MAX_TIME")
    T = draw(st.integers(min_period, max_period))
    if deadlines == "implicit":
        D = T
    elif deadlines == "constrained":
        D = draw(st.integers(1, T))
    elif deadlines == "arbitrary":
        D = draw(st.integers(1, min(MAX_TIME, max_deadline_factor * T)))
    else:
        raise ValueError(f"unknown deadline model {deadlines!r}")
    room = min(D, T)
    C_lo = draw(st.integers(1, room))
    if draw(st.booleans()) if hi is None else hi:
        return MCTask.hi(C_lo, draw(st.integers(C_lo, room)), T, D)
    return MCTask.lo(C_lo, T, D)


@st.composite
def mc_tasksets(
    draw: st.DrawFn,
    *,
    min_size: int = 1,
    max_size: int = 6,
    max_utilization: float | None = None,
    **task_options: object,
) -> MCTaskSet:
    """An :class:`~rtsched.mc.MCTaskSet` of ``min_size..max_size`` tasks drawn with :func:`mc_tasks`.

    ``max_utilization`` caps both the LO-mode utilization ``U_LL + U_HL`` and the HI-mode
    utilization ``U_HH`` by shrinking WCETs (never by filtering): the task with the largest
    ``C(HI)/T`` above 1 tick has ``C(HI)`` halved (and ``C(LO)`` lowered to it if above), until both caps hold
    or every WCET is 1. The task order (the FP priority order) is the drawn order.
    """
    tasks = draw(st.lists(mc_tasks(**task_options), min_size=min_size, max_size=max_size))  # type: ignore[arg-type]
    if max_utilization is not None:
        limit = Fraction(max_utilization).limit_denominator(10**6)
        while True:
            lo_mode = sum(t.utilization("LO") for t in tasks)
            hi_mode = sum(t.utilization("HI") for t in tasks if t.is_hi)
            if max(lo_mode, hi_mode) <= limit:
                break
            shrinkable = [j for j in range(len(tasks)) if tasks[j].C_hi > 1]
            if not shrinkable:
                break
            i = max(shrinkable, key=lambda j: (tasks[j].utilization("HI"), -j))
            t = tasks[i]
            C_hi = max(1, t.C_hi // 2)
            wcets = (min(t.C_lo, C_hi), C_hi) if t.is_hi else (C_hi,)
            tasks[i] = t.replace(wcets=wcets)
    return MCTaskSet(tasks)


@st.composite
def segmented_tasks(
    draw: st.DrawFn,
    *,
    m: int = 2,
    min_period: int = 1,
    max_period: int = 40,
    max_gpu_segments: int = 3,
    devices: tuple[str, ...] = ("gpu",),
    deadlines: Deadlines = "constrained",
    modes: tuple[str | None, ...] = (None, "busy", "suspend"),
    max_deadline_factor: int = 3,
) -> SegmentedTask:
    """One CPU–GPU segmented task (:class:`~rtsched.segmented.SegmentedTask`), valid by construction.

    ``T`` in ``min_period..max_period``; ``η`` GPU segments in ``0..min(max_gpu_segments, T)``;
    the total work ``W = C + G_m + G_e`` in ``max(1, η)..T``, one tick of it given to each GPU
    segment's ``G_e`` and the rest spread over the ``3η + 1`` parts (``C_1, G_m, G_e, C_2, ...``,
    each part drawn in ``0..`` what is left, the last CPU segment taking the remainder), so every
    GPU segment has ``G_e >= 1`` and ``W <= T``; ``D = T`` (``implicit``), ``D`` in ``W..T``
    (``constrained``) or in ``W..max_deadline_factor·T`` (``arbitrary``); ``core`` in ``0..m-1``
    (``m = 0``: no core, ``None``); ``mode`` from ``modes``; each segment's device from
    ``devices``. Shrinks toward a CPU-only task with small ``T``, work on its last segment and
    ``D = W``.
    """
    if not 1 <= min_period <= max_period <= MAX_TIME:
        raise ValueError("need 1 <= min_period <= max_period <= MAX_TIME")
    if m < 0 or max_gpu_segments < 0 or not devices or not modes:
        raise ValueError("need m >= 0, max_gpu_segments >= 0 and some devices and modes")
    T = draw(st.integers(min_period, max_period))
    eta = draw(st.integers(0, min(max_gpu_segments, T)))
    work = draw(st.integers(max(1, eta), T))
    rest = work - eta
    parts = []
    for _ in range(3 * eta):
        x = draw(st.integers(0, rest))
        parts.append(x)
        rest -= x
    parts.append(rest)  # the last CPU segment
    cpu = [parts[3 * j] for j in range(eta)] + [parts[-1]]
    gpu = [GPUSegment(parts[3 * j + 1], parts[3 * j + 2] + 1, draw(st.sampled_from(devices))) for j in range(eta)]
    if deadlines == "implicit":
        D = T
    elif deadlines == "constrained":
        D = draw(st.integers(work, T))
    elif deadlines == "arbitrary":
        D = draw(st.integers(work, min(MAX_TIME, max_deadline_factor * T)))
    else:
        raise ValueError(f"unknown deadline model {deadlines!r}")
    core = draw(st.integers(0, m - 1)) if m > 0 else None
    mode = draw(st.sampled_from(modes))
    return SegmentedTask(tuple(cpu), tuple(gpu), T, D, core, mode)  # type: ignore[arg-type]


@st.composite
def segmented_tasksets(
    draw: st.DrawFn,
    *,
    min_size: int = 1,
    max_size: int = 6,
    max_utilization: float | None = None,
    **task_options: object,
) -> SegmentedTaskSet:
    """A :class:`~rtsched.segmented.SegmentedTaskSet` of ``min_size..max_size`` tasks drawn with :func:`segmented_tasks`.

    The task order (the fixed-priority order, index 0 highest) is the drawn order.
    ``max_utilization`` caps each core's load ``Σ (C + G_m + G_e)/T`` over its tasks (a busy
    waiter's load) by shrinking work, never by filtering: on the most loaded core above the cap
    where something can shrink, the largest part (CPU segment, ``G_m`` or ``G_e``) of its task
    with the largest utilization is halved (rounded down; ``G_e`` kept at least 1, the work at
    least 1), until every core meets the cap or nothing on the cores above it can shrink (tiny
    periods: a core with two tasks of ``T = 1`` stays at load 2). ``D`` is kept (it stays at
    least the work). Tasks without a core count as one core.
    """
    tasks = list(draw(st.lists(segmented_tasks(**task_options), min_size=min_size, max_size=max_size)))  # type: ignore[arg-type]
    if max_utilization is not None:
        limit = Fraction(max_utilization).limit_denominator(10**6)
        while True:
            load: dict[int | None, Fraction] = {}
            for t in tasks:
                load[t.core] = load.get(t.core, Fraction(0)) + t.utilization
            over = sorted((c for c in load if load[c] > limit), key=lambda c: -load[c])
            if not any(_shrink_one(tasks, core) for core in over):
                break
    return SegmentedTaskSet(tasks)


def segmented_cases(
    *,
    max_cores: int = 4,
    devices: tuple[tuple[str, ...], ...] = (("gpu",), ("g0", "g1")),
    **taskset_options: object,
) -> st.SearchStrategy[tuple[int, SegmentedTaskSet]]:
    """Pairs ``(m, set)``: ``m`` in ``1..max_cores`` and a :func:`segmented_tasksets` set on cores ``0..m-1``.

    The set's tasks use the devices of one of the ``devices`` tuples (drawn first, so shrinking goes
    to the first: one GPU). ``taskset_options`` go to :func:`segmented_tasksets` (``min_size``,
    ``max_size``, ``max_utilization``, ``max_period``, ...).

    >>> from hypothesis import given
    >>> @given(segmented_cases(max_cores=2, max_size=3, max_period=40))
    ... def test_cores(case):
    ...     m, ts = case
    ...     assert all(t.core is None or t.core < m for t in ts)
    """
    return st.integers(1, max_cores).flatmap(
        lambda m: st.tuples(
            st.just(m),
            st.sampled_from(devices).flatmap(
                lambda devs: segmented_tasksets(m=m, devices=devs, **taskset_options)  # type: ignore[arg-type]
            ),
        )
    )


@st.composite
def segmented_splits(
    draw: st.DrawFn,
    *,
    max_tasks: int = 5,
    max_cores: int = 2,
    max_period: int = 40,
    load: int = 2,
    max_segments: int = 2,
    modes: tuple[str | None, ...] = (None, "busy", "suspend"),
    devices: tuple[str, ...] = ("gpu", "gpu2"),
) -> tuple[SegmentedTaskSet, int]:
    """Pairs ``(set, m)`` of small segmented sets with a drawn total work split over a task's parts.

    ``m`` in ``1..max_cores``; up to ``max_tasks`` tasks, each with ``T`` in ``4..max_period``,
    ``η`` in ``0..max_segments`` GPU segments, a work in ``1..max(1, T // load)`` cut at random
    into its ``3η + 1`` parts (CPU, ``G_m``, ``G_e``, ..., CPU; a GPU segment with no work gets
    ``G_e = 1``), ``D`` in ``min(T, work)..T``, a core, a mode from ``modes`` and each segment's
    device from ``devices``. Unlike :func:`segmented_tasksets` the split makes zero-length CPU
    segments and ``G_m = 0`` common, the cases self-suspension analyses trip on.
    """
    m = draw(st.integers(1, max_cores))
    tasks = []
    for _ in range(draw(st.integers(1, max_tasks))):
        T = draw(st.integers(4, max_period))
        eta = draw(st.integers(0, max_segments))
        work = draw(st.integers(1, max(1, T // load)))
        cuts = sorted(draw(st.lists(st.integers(0, work), min_size=3 * eta, max_size=3 * eta)))
        parts = [b - a for a, b in zip([0, *cuts], [*cuts, work], strict=True)]
        gpu = []
        for j in range(eta):
            G_m, G_e = parts[3 * j + 1], parts[3 * j + 2]
            gpu.append(GPUSegment(G_m, G_e if G_m + G_e else 1, draw(st.sampled_from(devices))))
        cpu = [parts[3 * j] for j in range(eta)] + [parts[-1]]
        total = sum(cpu) + sum(g.G for g in gpu)
        D = draw(st.integers(min(T, total), T))
        core = draw(st.integers(0, m - 1))
        mode = draw(st.sampled_from(modes))
        tasks.append(SegmentedTask(tuple(cpu), tuple(gpu), T, D, core, mode))  # type: ignore[arg-type]
    return SegmentedTaskSet(tasks), m


def _shrink_one(tasks: list[SegmentedTask], core: int | None) -> bool:
    """Halve the largest shrinkable part of the heaviest task on ``core`` (in place); False if none can shrink."""
    order = sorted((i for i, t in enumerate(tasks) if t.core == core), key=lambda i: (-tasks[i].utilization, i))
    for i in order:
        t = tasks[i]
        cpu, gpu = list(t.cpu), list(t.gpu)
        # the parts that can shrink: a CPU segment or G_m above 0, G_e above 1 (every GPU segment
        # keeps G_e >= 1); the total work stays positive (checked below)
        options = [(c, "cpu", j) for j, c in enumerate(cpu) if c > 0]
        options += [(g.G_m, "G_m", j) for j, g in enumerate(gpu) if g.G_m > 0]
        options += [(g.G_e, "G_e", j) for j, g in enumerate(gpu) if g.G_e > 1]
        if not options:
            continue
        _, kind, j = max(options, key=lambda o: (o[0], o[1], -o[2]))
        if kind == "cpu":
            cpu[j] //= 2
        elif kind == "G_m":
            gpu[j] = GPUSegment(gpu[j].G_m // 2, gpu[j].G_e, gpu[j].device)
        else:
            gpu[j] = GPUSegment(gpu[j].G_m, max(1, gpu[j].G_e // 2), gpu[j].device)
        if sum(cpu) + sum(g.G for g in gpu) == 0:
            continue
        tasks[i] = t.replace(cpu=tuple(cpu), gpu=tuple(gpu))
        return True
    return False
