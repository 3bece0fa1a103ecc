"""The mixed-criticality task model (Vestal, RTSS 2007): :class:`MCTask`, :class:`MCTaskSet`, :class:`MCBatch`.

A mixed-criticality sporadic task has a criticality level ``L`` (``LO`` or ``HI``) and one WCET
per level up to its own, ``C(LO) <= C(HI)``: the larger the assurance asked for, the larger (more
pessimistic) the WCET. It releases jobs at least ``T`` ticks apart, each due ``D`` ticks after its
release. The system starts in LO mode; when a job runs for ``C(LO)`` without completing, the
system switches to HI mode, in which only HI tasks must meet their deadlines (Vestal 2007;
Baruah, Burns, Davis, RTSS 2011, Section II). A LO task has no HI budget: it is dropped (AMC) or
limited to ``C(LO)`` (SMC) after the switch, so :attr:`~rtsched.mc.MCTask.C_hi` of a LO task is its
``C(LO)``.

Set-level utilizations use the notation of Baruah, Bonifaci, D'Angelo, Li, Marchetti-Spaccamela,
van der Ster, Stougie (ECRTS 2012), Section 2: ``U_x^y`` is the sum of ``C(y)/T`` over the tasks of
criticality ``x``; :attr:`~rtsched.mc.MCTaskSet.U_LL`, :attr:`~rtsched.mc.MCTaskSet.U_HL` and :attr:`~rtsched.mc.MCTaskSet.U_HH`.
Definitions and the generator's rules are in papers/mc-model.md.

Time is integer ticks (every value at most :data:`rtsched.model.MAX_TIME`); every derived
quantity is an exact ``int`` or ``Fraction``. Levels are indices into :data:`LEVELS` (0 = LO,
1 = HI); the tuple ``wcets`` has one entry per level up to the task's own, so that more levels fit
the same model later.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from numbers import Integral
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from rtsched._tasksets import ObjectBatch, ObjectTaskSet
from rtsched.errors import InputError, TaskError
from rtsched.model import MAX_TIME, DeadlineModel, fraction_sum

__all__ = ["HI", "LEVELS", "LO", "MCBatch", "MCTask", "MCTaskSet", "level_index"]

#: The criticality levels, lowest first; a level is an index into this tuple.
LEVELS: tuple[str, ...] = ("LO", "HI")
#: Index of the LO level.
LO = 0
#: Index of the HI level.
HI = 1


def level_index(level: int | str, *, task: str | None = None, field: str = "level") -> int:
    """The index of ``level`` (``0``/``1`` or ``"LO"``/``"HI"``, any case), or a TaskError naming it.

    Examples
    --------
    >>> level_index("hi"), level_index(0)
    (1, 0)
    """
    if type(level) is int and 0 <= level < len(LEVELS):  # the common case, without the ABC checks
        return level
    if isinstance(level, str):
        key = level.strip().upper()
        if key in LEVELS:
            return LEVELS.index(key)
    elif isinstance(level, Integral | np.integer) and not isinstance(level, bool) and 0 <= int(level) < len(LEVELS):
        return int(level)
    raise TaskError(f"unknown criticality level {level!r} (one of {', '.join(LEVELS)})", task=task, field=field)


def _time(value: Any, task: str | None, field: str) -> int:
    """``value`` as an int in 1..MAX_TIME, or a TaskError naming the task and the field."""
    if type(value) is int and 1 <= value <= MAX_TIME:  # the common case, without the ABC checks (generators)
        return value
    if isinstance(value, bool) or not isinstance(value, Integral | np.integer):
        raise TaskError(f"{field} must be a positive integer number of ticks, got {value!r}", task=task, field=field)
    number = int(value)
    if number < 1:
        raise TaskError(f"{field} must be a positive integer, got {number}", task=task, field=field)
    if number > MAX_TIME:
        raise TaskError(
            f"{field} = {number} is too large: at most {MAX_TIME} (2**31 − 1, the largest time value); use a coarser time unit",
            task=task,
            field=field,
        )
    return number


def _wcet_field(j: int) -> str:
    return f"C_{LEVELS[j]}"


@dataclass(frozen=True)
class MCTask:
    """A mixed-criticality sporadic task: one WCET per level up to its own, period ``T``, deadline ``D``.

    Immutable, hashable and validated at construction (equality and hash by every field, the name
    included).

    Parameters
    ----------
    wcets:
        ``C(LO), ..., C(level)``: positive integers, non-decreasing. Entries above the task's own
        level are accepted only if they equal ``C(level)`` (a LO task written with ``C_HI = C_LO``)
        and are dropped, so that ``len(wcets) == level + 1``.
    T, D:
        Minimum inter-arrival time and relative deadline, integers in 1..MAX_TIME. ``D <= T``
        (constrained) is what the analyses of issue #44 need; ``D > T`` is accepted here and
        makes the set's :attr:`MCTaskSet.deadline_model` ``"arbitrary"``.
    level:
        ``0``/``"LO"`` or ``1``/``"HI"`` (stored as the index).
    name:
        Optional task name.

    Raises
    ------
    TaskError
        Naming the task (its name) and the field (``C_LO``, ``C_HI``, ``T``, ``D``, ``level``).

    Notes
    -----
    A WCET above ``D`` is allowed (as for DAG tasks): such a task can meet no deadline in that
    mode, which every analysis reports. Generators never draw one.

    Examples
    --------
    >>> tau = MCTask.hi(2, 5, T=10)
    >>> tau.C("LO"), tau.C("HI"), tau.utilization("HI"), tau.criticality
    (2, 5, Fraction(1, 2), 'HI')
    >>> MCTask.lo(3, T=10, D=8).C_hi
    3
    """

    wcets: tuple[int, ...]
    T: int
    D: int
    level: int
    name: str | None = None

    def __post_init__(self) -> None:
        name = self.name
        if name is not None and not isinstance(name, str):
            raise TaskError(f"a task name must be a string, got {name!r}", field="name")
        level = level_index(self.level, task=name)
        if isinstance(self.wcets, str | bytes) or not isinstance(self.wcets, Iterable):
            raise TaskError(f"wcets must be a sequence of integers, got {self.wcets!r}", task=name, field="C_LO")
        given = list(self.wcets)
        if not given:
            raise TaskError("a task needs its C_LO", task=name, field="C_LO")
        wcets = [_time(c, name, _wcet_field(min(j, len(LEVELS) - 1))) for j, c in enumerate(given)]
        if len(wcets) > len(LEVELS):
            raise TaskError(
                f"{len(wcets)} WCETs given, at most one per level ({', '.join(LEVELS)})", task=name, field="C_LO"
            )
        for j in range(1, len(wcets)):
            if wcets[j] < wcets[j - 1]:
                raise TaskError(
                    f"{_wcet_field(j)} {wcets[j]} < {_wcet_field(j - 1)} {wcets[j - 1]} "
                    "(a WCET never shrinks as the criticality level rises)",
                    task=name,
                    field=_wcet_field(j),
                )
        if len(wcets) <= level:
            raise TaskError(
                f"a {LEVELS[level]} task needs {_wcet_field(level)} (one WCET per level up to its own)",
                task=name,
                field=_wcet_field(level),
            )
        for j in range(level + 1, len(wcets)):
            if wcets[j] != wcets[level]:
                raise TaskError(
                    f"a {LEVELS[level]} task has no {_wcet_field(j)} budget: got {_wcet_field(j)} {wcets[j]} "
                    f"!= {_wcet_field(level)} {wcets[level]} (it is not guaranteed above its own level)",
                    task=name,
                    field=_wcet_field(j),
                )
        object.__setattr__(self, "wcets", tuple(wcets[: level + 1]))
        object.__setattr__(self, "T", _time(self.T, name, "T"))
        object.__setattr__(self, "D", _time(self.D, name, "D"))
        object.__setattr__(self, "level", level)

    # -- constructors -------------------------------------------------------------------------
    @classmethod
    def lo(cls, C: int, T: int, D: int | None = None, name: str | None = None) -> MCTask:
        """A LO task with WCET ``C`` (``D`` defaults to ``T``)."""
        return cls((C,), T, T if D is None else D, LO, name)

    @classmethod
    def hi(cls, C_lo: int, C_hi: int, T: int, D: int | None = None, name: str | None = None) -> MCTask:
        """A HI task with budgets ``C_lo <= C_hi`` (``D`` defaults to ``T``)."""
        return cls((C_lo, C_hi), T, T if D is None else D, HI, name)

    def replace(self, **changes: Any) -> MCTask:
        """A copy with the given fields replaced (validated again)."""
        return dataclasses.replace(self, **changes)

    # -- derived ------------------------------------------------------------------------------
    @property
    def C_lo(self) -> int:
        """``C(LO)``."""
        return self.wcets[0]

    @property
    def C_hi(self) -> int:
        """``C(HI)`` of a HI task; a LO task's ``C(LO)`` (its budget: it never runs in HI mode under AMC)."""
        return self.wcets[-1]

    def C(self, level: int | str) -> int:
        """The WCET at ``level``: ``wcets[min(level, self.level)]``."""
        return self.wcets[min(level_index(level), self.level)]

    @property
    def is_hi(self) -> bool:
        """Whether the task is HI-criticality."""
        return self.level == HI

    @property
    def criticality(self) -> str:
        """``"LO"`` or ``"HI"``."""
        return LEVELS[self.level]

    def utilization(self, level: int | str) -> Fraction:
        """``C(level) / T``, exactly."""
        return Fraction(self.C(level), self.T)

    def density(self, level: int | str) -> Fraction:
        """``C(level) / min(D, T)``, exactly."""
        return Fraction(self.C(level), min(self.D, self.T))

    @property
    def deadline_kind(self) -> DeadlineModel:
        """``implicit`` (D = T), ``constrained`` (D < T) or ``arbitrary`` (D > T)."""
        if self.D == self.T:
            return "implicit"
        return "constrained" if self.D < self.T else "arbitrary"

    def __repr__(self) -> str:
        extra = f", name={self.name!r}" if self.name is not None else ""
        if self.level == HI and len(self.wcets) == 2:
            return f"MCTask.hi({self.wcets[0]}, {self.wcets[1]}, T={self.T}, D={self.D}{extra})"
        if self.level == LO:
            return f"MCTask.lo({self.wcets[0]}, T={self.T}, D={self.D}{extra})"
        return f"MCTask({self.wcets!r}, T={self.T}, D={self.D}, level={self.level}{extra})"  # pragma: no cover


class MCTaskSet(ObjectTaskSet[MCTask]):
    """An immutable, hashable set of mixed-criticality tasks; the order is the priority order for FP.

    Index 0 is the highest priority under fixed-priority scheduling (EDF analyses ignore the order).

    Parameters
    ----------
    tasks:
        The :class:`MCTask` s, at least one.
    name:
        Optional name of the set (kept by the file formats).

    Examples
    --------
    >>> ts = MCTaskSet([MCTask.lo(2, T=10), MCTask.hi(1, 3, T=6)])
    >>> ts.U_LL, ts.U_HL, ts.U_HH, ts.hi_tasks()
    (Fraction(1, 5), Fraction(1, 6), Fraction(1, 2), (1,))
    """

    __slots__ = ()

    _TASK = MCTask
    _WHAT = "a mixed-criticality task set"
    _EXPECTED = "an MCTask"

    @property
    def tasks(self) -> tuple[MCTask, ...]:
        """The tasks, highest priority first."""
        return self._tasks

    def lo_tasks(self) -> tuple[int, ...]:
        """Indices of the LO tasks, increasing."""
        return tuple(i for i, t in enumerate(self._tasks) if t.level == LO)

    def hi_tasks(self) -> tuple[int, ...]:
        """Indices of the HI tasks, increasing."""
        return tuple(i for i, t in enumerate(self._tasks) if t.level == HI)

    def U(self, criticality: int | str, level: int | str) -> Fraction:
        """``U_x^y``: Σ ``C(level)/T`` over the tasks of criticality ``criticality``, exactly.

        Baruah et al. (ECRTS 2012), Section 2; ``level`` above a task's own uses its own WCET.
        """
        key = (level_index(criticality), level_index(level))
        if key not in self._cache:
            self._cache[key] = fraction_sum(t.utilization(key[1]) for t in self._tasks if t.level == key[0])
        return self._cache[key]

    @property
    def U_LL(self) -> Fraction:
        """Σ ``C(LO)/T`` over the LO tasks."""
        return self.U(LO, LO)

    @property
    def U_HL(self) -> Fraction:
        """Σ ``C(LO)/T`` over the HI tasks."""
        return self.U(HI, LO)

    @property
    def U_HH(self) -> Fraction:
        """Σ ``C(HI)/T`` over the HI tasks."""
        return self.U(HI, HI)

    @property
    def utilization_lo(self) -> Fraction:
        """LO-mode utilization of all tasks, ``U_LL + U_HL`` (the generators' target utilization)."""
        return self.U_LL + self.U_HL

    #: The tightest deadline model every task meets: ``implicit``, ``constrained`` or ``arbitrary``
    #: (``deadline_kind``, the name :class:`~rtsched.dag.DAGTaskSet` uses).
    deadline_model = ObjectTaskSet.deadline_kind

    def permuted(self, order: Sequence[int]) -> MCTaskSet:
        """The set with its tasks in ``order`` (a permutation of the indices): a new priority order."""
        if sorted(order) != list(range(self.n)):
            raise InputError(f"{list(order)!r} is not a permutation of 0..{self.n - 1}")
        return MCTaskSet((self._tasks[i] for i in order), name=self._name)

    def __setattr__(self, name: str, value: Any) -> None:
        if hasattr(self, "_cache"):  # set once in __init__
            raise AttributeError(f"MCTaskSet is immutable (cannot set {name!r})")
        object.__setattr__(self, name, value)

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild_set, (self._tasks, self._name))


def _rebuild_set(tasks: Any, name: Any) -> MCTaskSet:
    return MCTaskSet(tasks, name=name)


def _readonly(values: ArrayLike, dtype: Any = np.int64) -> NDArray[Any]:
    out = np.array(values, dtype=dtype, copy=True, order="C")
    out.setflags(write=False)
    return out


#: The arrays of an :class:`MCBatch`, in the order of its constructor.
_ARRAYS = ("C_lo", "C_hi", "T", "D", "level", "task_offsets")


class MCBatch(ObjectBatch[MCTaskSet]):
    """Many mixed-criticality task sets in flat, read-only, C-contiguous arrays: one row per task.

    Task ``k`` (over all sets) is ``C_lo[k], C_hi[k], T[k], D[k], level[k]`` (``int64``; ``level``
    ``int8``, 0 = LO, 1 = HI; a LO task's ``C_hi`` equals its ``C_lo``). Set ``s`` holds tasks
    ``task_offsets[s]:task_offsets[s + 1]``, in priority order. Names are not kept.

    Build it with :meth:`from_tasksets`; the constructor takes the arrays (``validate=True``
    rebuilds and checks every task).
    """

    __slots__ = ("_C_lo", "_C_hi", "_T", "_D", "_level", "_task_offsets")

    _SET = MCTaskSet

    _C_lo: NDArray[np.int64]
    _C_hi: NDArray[np.int64]
    _T: NDArray[np.int64]
    _D: NDArray[np.int64]
    _level: NDArray[np.int8]
    _task_offsets: NDArray[np.int64]

    def __init__(
        self,
        C_lo: ArrayLike,
        C_hi: ArrayLike,
        T: ArrayLike,
        D: ArrayLike,
        level: ArrayLike,
        task_offsets: ArrayLike,
        *,
        validate: bool = True,
    ) -> None:
        for name, values in (("C_lo", C_lo), ("C_hi", C_hi), ("T", T), ("D", D), ("task_offsets", task_offsets)):
            object.__setattr__(self, "_" + name, _readonly(values))
        object.__setattr__(self, "_level", _readonly(level, np.int8))
        self._check_shapes()
        if validate:
            for k in range(self.n_tasks):
                self._task(k)

    def _check_shapes(self) -> None:
        for name in _ARRAYS:
            if getattr(self, "_" + name).ndim != 1:
                raise InputError(f"{name} must be one-dimensional")
        n_tasks = self._T.shape[0]
        for name in ("C_lo", "C_hi", "D", "level"):
            if getattr(self, "_" + name).shape[0] != n_tasks:
                raise InputError(f"{name} must have one entry per task, as T")
        offsets = self._task_offsets
        if offsets.shape[0] < 1 or offsets[0] != 0 or offsets[-1] != n_tasks or np.any(np.diff(offsets) < 0):
            raise InputError(f"task_offsets must rise from 0 to {n_tasks}")
        if np.any(np.diff(offsets) == 0):
            raise InputError(
                "a mixed-criticality task set needs at least one task",
                set_index=int(np.flatnonzero(np.diff(offsets) == 0)[0]),
            )

    def _task(self, k: int) -> MCTask:
        try:
            level = int(self._level[k])
            wcets = (int(self._C_lo[k]), int(self._C_hi[k]))
            return MCTask(wcets, int(self._T[k]), int(self._D[k]), level)
        except InputError as err:
            s = int(np.searchsorted(self._task_offsets, k, side="right") - 1)
            raise type(err)(err.message, set_index=s, task=k - int(self._task_offsets[s]), field=err.field) from None

    # -- constructors -------------------------------------------------------------------------
    @classmethod
    def from_tasksets(cls, sets: Iterable[MCTaskSet]) -> MCBatch:
        """Pack task sets into one batch (names are not kept)."""
        sets = list(sets)
        tasks = [t for ts in sets for t in ts]
        return cls(
            [t.C_lo for t in tasks],
            [t.C_hi for t in tasks],
            [t.T for t in tasks],
            [t.D for t in tasks],
            [t.level for t in tasks],
            np.cumsum([0, *(ts.n for ts in sets)]),
            validate=False,
        )

    @classmethod
    def concatenate(cls, batches: Iterable[MCBatch]) -> MCBatch:
        """The sets of ``batches``, in order, as one batch (arrays joined, no task objects built)."""
        parts = list(batches)
        if not parts:
            return cls.from_tasksets([])
        offsets = [np.zeros(1, dtype=np.int64)]
        base = 0
        for b in parts:
            offsets.append(b.task_offsets[1:] + base)
            base += b.n_tasks
        return cls(
            np.concatenate([b.C_lo for b in parts]),
            np.concatenate([b.C_hi for b in parts]),
            np.concatenate([b.T for b in parts]),
            np.concatenate([b.D for b in parts]),
            np.concatenate([b.level for b in parts]),
            np.concatenate(offsets),
            validate=False,
        )

    # -- data ---------------------------------------------------------------------------------
    @property
    def C_lo(self) -> NDArray[np.int64]:
        """``C(LO)`` of each task."""
        return self._C_lo

    @property
    def C_hi(self) -> NDArray[np.int64]:
        """``C(HI)`` of each task (a LO task's ``C(LO)``)."""
        return self._C_hi

    @property
    def level(self) -> NDArray[np.int8]:
        """Criticality of each task: 0 = LO, 1 = HI."""
        return self._level

    def taskset(self, s: int) -> MCTaskSet:
        """Set ``s`` as an :class:`MCTaskSet`."""
        return self._set(s)

    def tasksets(self) -> list[MCTaskSet]:
        """Every set, in order."""
        return [self.taskset(s) for s in range(self.n_sets)]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, MCBatch):
            return NotImplemented
        return all(np.array_equal(getattr(self, "_" + a), getattr(other, "_" + a)) for a in _ARRAYS)

    __hash__ = None  # type: ignore[assignment]

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"MCBatch is immutable (cannot set {name!r})")

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild_batch, tuple(getattr(self, "_" + a) for a in _ARRAYS))

    def __repr__(self) -> str:
        return f"MCBatch(n_sets={self.n_sets}, tasks={self.n_tasks}, hi={int(np.count_nonzero(self._level))})"


def _rebuild_batch(*arrays: Any) -> MCBatch:
    return MCBatch(*arrays, validate=False)
