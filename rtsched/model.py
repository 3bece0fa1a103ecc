"""The task model: :class:`TaskSet` and :class:`TaskSetBatch`.

Time is integer ticks. A sporadic task is ``(C, D, T)``: worst-case execution time ``C``,
relative deadline ``D`` and minimum inter-arrival time ``T``. The default model is
*constrained deadlines*, ``0 < C <= D <= T``; arbitrary deadlines (``D > T`` allowed) must be
asked for with ``deadlines="arbitrary"``.

Domain. Every time value must be at most :data:`MAX_TIME` = 2**31 - 1 so that the product of
any two values fits in ``int64``; kernels rely on that to decide verdicts exactly. Larger
values are refused with an error that says so (rescale the time unit). Real-valued input is
accepted only through :meth:`TaskSet.from_real`, which takes an explicit time unit.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from fractions import Fraction
from numbers import Integral, Real
from typing import Any, Literal, NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray

from rtsched.errors import InputError, TaskError

__all__ = [
    "MAX_TIME",
    "DeadlineModel",
    "Task",
    "TaskSet",
    "TaskSetBatch",
    "check_model",
    "fraction_sum",
]

#: Largest time value accepted (C, D or T), so that products of two values fit in int64.
MAX_TIME = 2**31 - 1
#: Largest number of tasks in one set.
MAX_TASKS = 2**16


def tightest_model(D: NDArray[np.int64], T: NDArray[np.int64]) -> DeadlineModel:
    """``implicit`` if every D equals its T, else ``constrained`` if every D ≤ T, else ``arbitrary``.

    The one definition behind :attr:`TaskSet.deadline_kind`, :attr:`TaskSetBatch.deadline_kind`
    and :meth:`rtsched.workloads.TaskSets.deadline_model`.
    """
    if np.array_equal(D, T):
        return "implicit"
    return "constrained" if bool(np.all(D <= T)) else "arbitrary"


def fraction_sum(terms: Iterable[Fraction | int]) -> Fraction:
    """Σ terms, exactly, adding in pairs (a balanced tree) rather than left to right.

    Left to right, each addition costs the size of the running sum, whose denominator grows to
    the lcm of all denominators (thousands of digits for thousands of periods), so n terms cost
    O(n²) digit operations: 15 s for 65,536 utilizations. In pairs most additions are between
    small numbers: about five times faster there, and the same value.
    """
    return _pair_sum([(x.numerator, x.denominator) for x in map(Fraction, terms)])


def ratio_sum(numerators: Iterable[int], denominators: Iterable[int]) -> Fraction:
    """Σ a_i/b_i exactly, for integers a_i and b_i ≥ 1 (:func:`fraction_sum` without a Fraction per term)."""
    return _pair_sum(list(zip(numerators, denominators, strict=True)))


def _pair_sum(pairs: list[tuple[int, int]]) -> Fraction:
    """Σ a/b over ``pairs`` (b ≥ 1, not necessarily in lowest terms), in a balanced tree; the result reduced."""
    if not pairs:
        return Fraction(0)
    while len(pairs) > 1:
        merged = []
        for j in range(0, len(pairs) - 1, 2):
            (a, b), (c, d) = pairs[j], pairs[j + 1]
            g = math.gcd(b, d)  # as Fraction.__add__ (Knuth 4.5.1): reduce by gcd(num, g) only
            num, den = a * (d // g) + c * (b // g), b // g * d
            g = math.gcd(num, g)
            merged.append((num // g, den // g) if g > 1 else (num, den))
        if len(pairs) % 2:
            merged.append(pairs[-1])
        pairs = merged
    return Fraction(*pairs[0])


DeadlineModel = Literal["implicit", "constrained", "arbitrary"]
_MODELS = ("implicit", "constrained", "arbitrary")
FIELDS = ("C", "D", "T")


class Task(NamedTuple):
    """One sporadic task (C, D, T) with an optional name."""

    C: int
    D: int
    T: int
    name: str | None = None


def _readonly_int64(values: ArrayLike, copy: bool = True) -> NDArray[np.int64]:
    """A read-only C-contiguous int64 array; ``copy=False`` adopts a suitable array as it is."""
    if copy:
        out = np.array(values, dtype=np.int64, copy=True, order="C")
    else:
        out = np.ascontiguousarray(values, dtype=np.int64)
    out.setflags(write=False)
    return out


def _as_int(value: Any, task: int | str, field: str) -> int:
    """Convert one user value to ``int`` exactly, or raise an error naming task and field."""
    if isinstance(value, bool):
        raise TaskError(f"{value!r} is not a number", task=task, field=field)
    if isinstance(value, Integral):
        return int(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, Fraction) and value.denominator == 1:  # exact: never through a float
        return int(value)
    if isinstance(value, float | np.floating):
        if not math.isfinite(float(value)):
            raise TaskError(f"{value!r} is not a finite number", task=task, field=field)
        if float(value).is_integer() and abs(float(value)) < 2**53:
            return int(value)
    if isinstance(value, float | np.floating | Fraction):
        raise TaskError(
            f"{value!r} is not an integer number of ticks; give a time unit "
            "(TaskSet.from_real(..., unit=...) or --time-unit) to convert real-valued times",
            task=task,
            field=field,
        )
    if isinstance(value, str):
        text = value.strip()
        try:
            return int(text)
        except ValueError:
            pass
        try:
            frac = Fraction(text)
        except (ValueError, ZeroDivisionError):
            raise TaskError(f"{value!r} is not a number", task=task, field=field) from None
        return _as_int(frac, task, field)
    raise TaskError(f"{value!r} is not a number", task=task, field=field)


def validate_values(
    C: NDArray[np.int64],
    D: NDArray[np.int64],
    T: NDArray[np.int64],
    deadlines: DeadlineModel,
    names: Sequence[str] | None = None,
    first_task: int = 0,
) -> None:
    """Check ``0 < C <= D`` (and ``D <= T`` or ``D == T`` by model); raise naming the first bad task."""

    def label(i: int) -> int | str:
        if names is not None and names[i]:
            return f"{i + first_task} ({names[i]})"
        return i + first_task

    def refuse_first(bad: NDArray[np.bool_], field: str, message: Callable[[int], str]) -> None:
        where = np.flatnonzero(bad)
        if where.size:
            i = int(where[0])
            raise TaskError(message(i), task=label(i), field=field)

    for field, arr in zip(FIELDS, (C, D, T), strict=True):
        # (each message is built at once, inside refuse_first, so the loop variable is current)
        refuse_first(arr <= 0, field, lambda i: f"must be a positive integer, got {int(arr[i])}")  # noqa: B023
        refuse_first(
            arr > MAX_TIME,
            field,
            lambda i: (
                f"{int(arr[i])} is too large: "  # noqa: B023
                f"at most {MAX_TIME} (2**31 − 1, the largest time value); use a coarser time unit"
            ),
        )
    refuse_first(
        C > D, "C", lambda i: f"C = {int(C[i])} exceeds D = {int(D[i])} (the task could never meet its deadline)"
    )
    if deadlines == "constrained":
        refuse_first(
            D > T,
            "D",
            lambda i: (
                f"D = {int(D[i])} exceeds T = {int(T[i])}, which the constrained-deadline model "
                "forbids (arbitrary deadlines: deadlines='arbitrary' in Python, --deadlines arbitrary for "
                "rtsched check, convert and simulate)"
            ),
        )
    elif deadlines == "implicit":
        refuse_first(
            D != T, "D", lambda i: f"D = {int(D[i])} differs from T = {int(T[i])} under the implicit-deadline model"
        )


def check_model(deadlines: str) -> DeadlineModel:
    """``deadlines`` if it names a deadline model (``implicit``, ``constrained``, ``arbitrary``), else an InputError."""
    if deadlines not in _MODELS:
        raise InputError(f"unknown deadline model {deadlines!r}; choose one of {', '.join(_MODELS)}")
    return deadlines  # type: ignore[return-value]


class _TaskArrays:
    """The read-only int64 arrays ``C``, ``D``, ``T`` of a :class:`TaskSet` or a :class:`TaskSetBatch`.

    A batch's hold every set's tasks, set after set.
    """

    __slots__ = ()
    _C: NDArray[np.int64]
    _D: NDArray[np.int64]
    _T: NDArray[np.int64]

    @property
    def C(self) -> NDArray[np.int64]:
        """Worst-case execution times (read-only int64 array; a batch's: of all sets, flat)."""
        return self._C

    @property
    def D(self) -> NDArray[np.int64]:
        """Relative deadlines (read-only int64 array; a batch's: of all sets, flat)."""
        return self._D

    @property
    def T(self) -> NDArray[np.int64]:
        """Minimum inter-arrival times (read-only int64 array; a batch's: of all sets, flat)."""
        return self._T


class TaskSet(_TaskArrays):
    """An immutable set of sporadic tasks with integer parameters.

    Parameters
    ----------
    C, D, T:
        Sequences of positive integers (execution time, relative deadline, period).
    names:
        Optional task names.
    name:
        Optional name of the set (kept by the file formats).
    deadlines:
        ``"constrained"`` (default, ``C <= D <= T``), ``"implicit"`` (``D == T``) or
        ``"arbitrary"`` (``D > T`` allowed).

    Examples
    --------
    >>> ts = TaskSet.from_tasks([(1, 3, 4), (2, 5, 5)])
    >>> ts.utilization
    Fraction(13, 20)
    """

    __slots__ = ("_C", "_D", "_T", "_names", "_name", "_deadlines", "_hash", "_kind")

    def __init__(
        self,
        C: ArrayLike,
        D: ArrayLike,
        T: ArrayLike,
        names: Sequence[str | None] | None = None,
        *,
        name: str | None = None,
        deadlines: DeadlineModel = "constrained",
    ) -> None:
        deadlines = check_model(deadlines)
        cols = []
        lengths = set()
        for field, values in zip(FIELDS, (C, D, T), strict=True):
            if isinstance(values, np.ndarray) and values.dtype == np.int64:
                arr = values
            else:
                seq = list(np.asarray(values, dtype=object).ravel()) if not isinstance(values, list) else values
                arr = np.array([_as_int(v, i, field) for i, v in enumerate(seq)], dtype=object)
                too_big = [i for i, v in enumerate(arr) if abs(v) > MAX_TIME]
                if too_big:
                    i = too_big[0]
                    raise TaskError(
                        f"{arr[i]} is too large: at most {MAX_TIME} (2**31 − 1, the largest time value); "
                        "use a coarser time unit",
                        task=i,
                        field=field,
                    )
                arr = arr.astype(np.int64) if arr.size else np.zeros(0, dtype=np.int64)
            if arr.ndim != 1:
                raise InputError(f"{field} must be one-dimensional, got shape {arr.shape}")
            cols.append(arr)
            lengths.add(arr.shape[0])
        if len(lengths) != 1:
            raise InputError(f"C, D and T have different lengths: {[c.shape[0] for c in cols]}")
        n = lengths.pop()
        if n == 0:
            raise InputError("a task set needs at least one task")
        if n > MAX_TASKS:
            raise InputError(f"a task set may have at most {MAX_TASKS} tasks, got {n}")
        clean_names: tuple[str, ...] | None = None
        if names is not None:
            names = list(names)
            if len(names) != n:
                raise InputError(f"{len(names)} names for {n} tasks")
            if any(x is not None for x in names):
                clean_names = tuple("" if x is None else str(x) for x in names)
        validate_values(cols[0], cols[1], cols[2], deadlines, clean_names)
        self._C, self._D, self._T = (_readonly_int64(c) for c in cols)
        self._names = clean_names
        self._name = name
        self._deadlines: DeadlineModel = deadlines
        self._hash: int | None = None
        self._kind: DeadlineModel | None = None

    # -- constructors -------------------------------------------------------------------------
    @classmethod
    def from_tasks(
        cls,
        tasks: Iterable[Sequence[Any] | Task],
        *,
        name: str | None = None,
        deadlines: DeadlineModel = "constrained",
    ) -> TaskSet:
        """Build from ``[(C, D, T), ...]`` or ``[(C, D, T, name), ...]``."""
        C: list[int] = []
        D: list[int] = []
        T: list[int] = []
        names: list[str | None] = []
        for i, task in enumerate(tasks):
            if isinstance(task, str | bytes) or not isinstance(task, Sequence):
                raise TaskError(f"expected (C, D, T), got {task!r}", task=i)
            if len(task) not in (3, 4):
                raise TaskError(f"expected (C, D, T) or (C, D, T, name), got {len(task)} values", task=i)
            C.append(_as_int(task[0], i, "C"))
            D.append(_as_int(task[1], i, "D"))
            T.append(_as_int(task[2], i, "T"))
            names.append(task[3] if len(task) == 4 else None)
        return cls(C, D, T, names, name=name, deadlines=deadlines)

    @classmethod
    def from_arrays(
        cls,
        C: ArrayLike,
        D: ArrayLike,
        T: ArrayLike,
        names: Sequence[str | None] | None = None,
        *,
        name: str | None = None,
        deadlines: DeadlineModel = "constrained",
    ) -> TaskSet:
        """Build from three arrays (copied; the originals are never referenced)."""
        return cls(C, D, T, names, name=name, deadlines=deadlines)

    @classmethod
    def implicit(cls, tasks: Iterable[tuple[Any, Any]], *, name: str | None = None) -> TaskSet:
        """Build an implicit-deadline set from ``[(C, T), ...]`` (D = T)."""
        rows = [(c, t, t) for c, t in tasks]
        return cls.from_tasks(rows, name=name)

    @classmethod
    def from_real(
        cls,
        tasks: Iterable[Sequence[Any]],
        unit: Real | str,
        *,
        rounding: Literal["exact", "safe"] = "exact",
        name: str | None = None,
        deadlines: DeadlineModel = "constrained",
    ) -> TaskSet:
        """Convert real-valued times with an explicit time unit (one tick = ``unit``).

        ``rounding="exact"`` refuses a value that is not a whole number of ticks;
        ``rounding="safe"`` rounds pessimistically (C up, D and T down), so that a set proven
        schedulable in ticks is schedulable in real time.
        """
        unit_frac = Fraction(str(unit)) if not isinstance(unit, Fraction) else unit
        if unit_frac <= 0:
            raise InputError(f"time unit must be positive, got {unit}")
        rows = []
        for i, task in enumerate(tasks):
            row: list[Any] = []
            for j, field in enumerate(FIELDS):
                try:
                    value = Fraction(str(task[j])) / unit_frac
                except (ValueError, ZeroDivisionError, IndexError):
                    raise TaskError(f"{task!r} has no valid {field}", task=i, field=field) from None
                if value.denominator != 1:
                    if rounding == "exact":
                        raise TaskError(
                            f"{task[j]} is not a whole number of ticks of {unit}: give a shorter time unit "
                            "(in Python, TaskSet.from_real(..., rounding='safe') rounds pessimistically instead)",
                            task=i,
                            field=field,
                        )
                    value = Fraction(math.ceil(value)) if field == "C" else Fraction(math.floor(value))
                row.append(int(value))
            if len(task) > 3:
                row.append(task[3])
            rows.append(row)
        return cls.from_tasks(rows, name=name, deadlines=deadlines)

    # -- data (C, D, T: see _TaskArrays) -------------------------------------------------------
    @property
    def names(self) -> tuple[str, ...] | None:
        """Task names, or ``None`` when no task is named."""
        return self._names

    @property
    def name(self) -> str | None:
        """Name of the set, if any."""
        return self._name

    @property
    def deadlines(self) -> DeadlineModel:
        """The deadline model the set was validated under."""
        return self._deadlines

    @property
    def n(self) -> int:
        """Number of tasks."""
        return int(self._C.shape[0])

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int) -> Task:
        return Task(int(self._C[i]), int(self._D[i]), int(self._T[i]), self.task_name(i))

    def __iter__(self) -> Iterator[Task]:
        for i in range(self.n):
            yield self[i]

    def task_name(self, i: int) -> str | None:
        """The name of task ``i`` or ``None``."""
        if self._names is None or not self._names[i]:
            return None
        return self._names[i]

    def label(self, i: int) -> str:
        """How task ``i`` is shown to a person: ``τ3`` or ``τ3 (camera)``."""
        nm = self.task_name(i)
        return f"τ{i}" if nm is None else f"τ{i} ({nm})"

    def rows(self) -> list[tuple[int, int, int]]:
        """The tasks as ``[(C, D, T), ...]`` of Python ints."""
        return [(int(c), int(d), int(t)) for c, d, t in zip(self._C, self._D, self._T, strict=True)]

    # -- derived quantities (exact) -----------------------------------------------------------
    @property
    def utilization(self) -> Fraction:
        """Total utilization Σ C/T, exactly."""
        return ratio_sum(self._C.tolist(), self._T.tolist())

    U = utilization

    @property
    def density(self) -> Fraction:
        """Total density Σ C/min(D, T), exactly."""
        return ratio_sum(self._C.tolist(), np.minimum(self._D, self._T).tolist())

    @property
    def max_density(self) -> Fraction:
        """Largest task density C/min(D, T), exactly."""
        return max(Fraction(int(c), int(min(d, t))) for c, d, t in zip(self._C, self._D, self._T, strict=True))

    @property
    def max_utilization(self) -> Fraction:
        """Largest task utilization C/T, exactly."""
        return max(Fraction(int(c), int(t)) for c, t in zip(self._C, self._T, strict=True))

    @property
    def utilizations(self) -> NDArray[np.float64]:
        """Per-task utilizations as floats (for display and heuristics, never for verdicts)."""
        return self._C / self._T

    @property
    def densities(self) -> NDArray[np.float64]:
        """Per-task densities as floats (for display and heuristics, never for verdicts)."""
        return self._C / np.minimum(self._D, self._T)

    @property
    def hyperperiod(self) -> int:
        """Least common multiple of the periods, as an exact Python int (it can be huge)."""
        return math.lcm(*(int(t) for t in self._T))

    def hyperperiod_int64(self) -> int:
        """The hyperperiod, raising :class:`OverflowError` if it does not fit in int64."""
        h = self.hyperperiod
        if h > np.iinfo(np.int64).max:
            raise OverflowError(f"hyperperiod {h} does not fit in int64")
        return h

    @property
    def is_implicit(self) -> bool:
        """True if every D equals T."""
        return bool(np.all(self._D == self._T))

    @property
    def is_constrained(self) -> bool:
        """True if every D is at most T."""
        return bool(np.all(self._D <= self._T))

    @property
    def deadline_kind(self) -> DeadlineModel:
        """The tightest deadline model the set meets: ``implicit``, ``constrained`` or ``arbitrary``.

        Unlike :attr:`deadlines`, which is the model it was validated under.
        """
        if self._kind is None:
            self._kind = tightest_model(self._D, self._T)
        return self._kind

    # -- derived sets -------------------------------------------------------------------------
    def without(self, i: int) -> TaskSet:
        """The set with task ``i`` removed."""
        keep = [j for j in range(self.n) if j != i]
        return self.subset(keep)

    def subset(self, indices: Sequence[int]) -> TaskSet:
        """The set restricted to ``indices`` (in that order)."""
        idx = np.asarray(indices, dtype=np.int64)
        names = None if self._names is None else [self._names[int(i)] for i in idx]
        return TaskSet(self._C[idx], self._D[idx], self._T[idx], names, name=self._name, deadlines=self._deadlines)

    def scaled(self, k: int) -> TaskSet:
        """Every time value multiplied by the positive integer ``k``."""
        return TaskSet(self._C * k, self._D * k, self._T * k, self._names, name=self._name, deadlines=self._deadlines)

    # -- comparisons --------------------------------------------------------------------------
    def _key(self) -> tuple[Any, ...]:
        return (self.rows(), self._names, self._name, self._deadlines)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TaskSet):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash((tuple(self.rows()), self._names, self._name, self._deadlines))
        return self._hash

    def __repr__(self) -> str:
        rows = self.rows()
        shown = ", ".join(f"({c}, {d}, {t})" for c, d, t in rows[:8])
        more = f", ... {len(rows) - 8} more" if len(rows) > 8 else ""
        extra = f", name={self._name!r}" if self._name else ""
        return f"TaskSet([{shown}{more}]{extra})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (
            _rebuild_taskset,
            (self._C, self._D, self._T, self._names, self._name, self._deadlines),
        )


def _rebuild_taskset(C: Any, D: Any, T: Any, names: Any, name: Any, deadlines: Any) -> TaskSet:
    return TaskSet(C, D, T, names, name=name, deadlines=deadlines)


class TaskSetBatch(_TaskArrays):
    """Many task sets in one structure of arrays: flat ``C``, ``D``, ``T`` plus ``offsets``.

    Set ``s`` holds tasks ``offsets[s]:offsets[s + 1]`` of the flat arrays (ragged layout: sets
    may differ in size). All arrays are C-contiguous read-only ``int64``, which is what every
    kernel takes, so each kernel compiles once.
    """

    __slots__ = ("_C", "_D", "_T", "_offsets", "_deadlines", "_kind")

    def __init__(
        self,
        C: ArrayLike,
        D: ArrayLike,
        T: ArrayLike,
        offsets: ArrayLike,
        *,
        deadlines: DeadlineModel = "constrained",
        validate: bool = True,
        copy: bool = True,
    ) -> None:
        deadlines = check_model(deadlines)
        self._C = _readonly_int64(C, copy)
        self._D = _readonly_int64(D, copy)
        self._T = _readonly_int64(T, copy)
        self._offsets = _readonly_int64(offsets, copy)
        self._deadlines: DeadlineModel = deadlines
        self._kind: DeadlineModel | None = None
        if validate:
            self._validate()

    def _validate(self) -> None:
        off = self._offsets
        n_flat = self._C.shape[0]
        if self._C.ndim != 1 or self._D.shape != self._C.shape or self._T.shape != self._C.shape:
            raise InputError("C, D and T must be 1-D arrays of one length")
        if off.ndim != 1 or off.shape[0] < 1 or off[0] != 0 or off[-1] != n_flat:
            raise InputError("offsets must start at 0 and end at the number of tasks")
        sizes = np.diff(off)
        if np.any(sizes <= 0):
            s = int(np.flatnonzero(sizes <= 0)[0])
            raise InputError("a task set needs at least one task", set_index=s)
        try:
            validate_values(self._C, self._D, self._T, self._deadlines)
        except TaskError as err:
            flat = int(str(err.task).split()[0])
            s = int(np.searchsorted(off, flat, side="right") - 1)
            raise TaskError(err.message, set_index=s, task=flat - int(off[s]), field=err.field) from None

    # -- constructors -------------------------------------------------------------------------
    @classmethod
    def adopt(
        cls,
        C: NDArray[np.int64],
        D: NDArray[np.int64],
        T: NDArray[np.int64],
        offsets: NDArray[np.int64],
        *,
        deadlines: DeadlineModel = "constrained",
        validate: bool = True,
    ) -> TaskSetBatch:
        """Build a batch that takes ownership of freshly made arrays without copying them.

        C-contiguous int64 arrays are used as they are and made read-only (others are converted).
        The caller must not keep writable views of them. Generators use this to avoid copying
        hundreds of megabytes per million sets.
        """
        return cls(C, D, T, offsets, deadlines=deadlines, validate=validate, copy=False)

    @classmethod
    def from_tasksets(cls, tasksets: Iterable[TaskSet], *, deadlines: DeadlineModel | None = None) -> TaskSetBatch:
        """Pack task sets into one batch (names are not kept)."""
        sets = list(tasksets)
        if not sets:
            return cls.empty(deadlines or "constrained")
        if deadlines is None:
            models = {ts.deadlines for ts in sets}
            deadlines = "arbitrary" if "arbitrary" in models else "constrained"
        sizes = np.array([ts.n for ts in sets], dtype=np.int64)
        offsets = np.zeros(len(sets) + 1, dtype=np.int64)
        np.cumsum(sizes, out=offsets[1:])
        C = np.concatenate([ts.C for ts in sets])
        D = np.concatenate([ts.D for ts in sets])
        T = np.concatenate([ts.T for ts in sets])
        # The sets are valid already; only the combined model could differ (checked cheaply).
        return cls(C, D, T, offsets, deadlines=deadlines, validate=deadlines != "arbitrary")

    @classmethod
    def from_padded(
        cls,
        C: ArrayLike,
        D: ArrayLike,
        T: ArrayLike,
        counts: ArrayLike | None = None,
        *,
        deadlines: DeadlineModel = "constrained",
    ) -> TaskSetBatch:
        """Build from 2-D ``(n_sets, n_max)`` arrays; row ``s`` uses its first ``counts[s]`` columns."""
        C2, D2, T2 = (np.asarray(a, dtype=np.int64) for a in (C, D, T))
        if C2.ndim != 2 or C2.shape != D2.shape or C2.shape != T2.shape:
            raise InputError("padded arrays must be 2-D and of one shape")
        n_sets, width = C2.shape
        cnt = np.full(n_sets, width, dtype=np.int64) if counts is None else np.asarray(counts, dtype=np.int64)
        if cnt.shape != (n_sets,) or np.any(cnt > width) or np.any(cnt <= 0):
            raise InputError("counts must give, per row, a size between 1 and the row width")
        mask = np.arange(width)[None, :] < cnt[:, None]
        offsets = np.zeros(n_sets + 1, dtype=np.int64)
        np.cumsum(cnt, out=offsets[1:])
        return cls(C2[mask], D2[mask], T2[mask], offsets, deadlines=deadlines)

    @classmethod
    def empty(cls, deadlines: DeadlineModel = "constrained") -> TaskSetBatch:
        """A batch with no task sets."""
        z = np.zeros(0, dtype=np.int64)
        return cls(z, z, z, np.zeros(1, dtype=np.int64), deadlines=deadlines)

    # -- data (C, D, T: see _TaskArrays) -------------------------------------------------------
    @property
    def offsets(self) -> NDArray[np.int64]:
        """Set ``s`` is ``offsets[s]:offsets[s+1]`` of the flat arrays."""
        return self._offsets

    @property
    def deadlines(self) -> DeadlineModel:
        """The deadline model of the batch."""
        return self._deadlines

    @property
    def deadline_kind(self) -> DeadlineModel:
        """The tightest deadline model every set meets: ``implicit``, ``constrained`` or ``arbitrary``.

        As :attr:`TaskSet.deadline_kind`; computed once (the arrays are read-only). Every
        analysis's ``status`` reads it to refuse a model it does not handle, so a sweep unit that
        runs k analyses on one batch scans the batch once, not k times (session 31).
        """
        if self._kind is None:
            self._kind = tightest_model(self._D, self._T)
        return self._kind

    @property
    def n_sets(self) -> int:
        """Number of task sets."""
        return int(self._offsets.shape[0] - 1)

    @property
    def sizes(self) -> NDArray[np.int64]:
        """Number of tasks of each set."""
        return np.diff(self._offsets)

    def __len__(self) -> int:
        return self.n_sets

    def __getitem__(self, s: int) -> TaskSet:
        if not -self.n_sets <= s < self.n_sets:
            raise IndexError(f"task set {s} out of range for a batch of {self.n_sets}")
        s %= self.n_sets
        lo, hi = int(self._offsets[s]), int(self._offsets[s + 1])
        model: DeadlineModel = "arbitrary" if self._deadlines == "arbitrary" else "constrained"
        return TaskSet(self._C[lo:hi], self._D[lo:hi], self._T[lo:hi], deadlines=model)

    def __iter__(self) -> Iterator[TaskSet]:
        for s in range(self.n_sets):
            yield self[s]

    def tasksets(
        self,
        names: Sequence[tuple[str, ...] | None] | None = None,
        set_names: Sequence[str | None] | None = None,
    ) -> list[TaskSet]:
        """Every set as a :class:`TaskSet` of the batch's deadline model, without checking values again.

        The batch's values were checked when it was built (``validate=True``), so this costs a few
        attribute stores per set, not a validation: the readers of :mod:`rtsched.io` build their
        sets this way. Each set's arrays are read-only views of the batch's. ``names``: per set,
        its task names (a tuple of ``n`` strings, ``""`` for an unnamed task) or None;
        ``set_names``: per set, its name or None. A set of more than ``MAX_TASKS`` tasks is an
        :class:`~rtsched.errors.InputError`, as for :class:`TaskSet`.
        """
        n_sets = self.n_sets
        off = self._offsets.tolist()
        sizes = self.sizes
        if n_sets and int(sizes.max()) > MAX_TASKS:
            s = int(np.flatnonzero(sizes > MAX_TASKS)[0])
            raise InputError(f"a task set may have at most {MAX_TASKS} tasks, got {int(sizes[s])}", set_index=s)
        if names is not None and len(names) != n_sets or set_names is not None and len(set_names) != n_sets:
            raise InputError(f"names and set names must be given for each of the {n_sets} sets")
        out: list[TaskSet] = []
        new = object.__new__
        C, D, T, model = self._C, self._D, self._T, self._deadlines
        for s in range(n_sets):
            lo, hi = off[s], off[s + 1]
            task_names = None if names is None else names[s]
            if task_names is not None and len(task_names) != hi - lo:
                raise InputError(f"{len(task_names)} names for {hi - lo} tasks", set_index=s)
            ts = new(TaskSet)
            ts._C, ts._D, ts._T = C[lo:hi], D[lo:hi], T[lo:hi]
            ts._names = task_names
            ts._name = None if set_names is None else set_names[s]
            ts._deadlines = model
            ts._hash = None
            ts._kind = None
            out.append(ts)
        return out

    def select(self, indices: ArrayLike) -> TaskSetBatch:
        """A new batch holding the sets at ``indices`` (in that order)."""
        idx = np.asarray(indices, dtype=np.int64).ravel()
        sizes = self.sizes[idx]
        offsets = np.zeros(idx.shape[0] + 1, dtype=np.int64)
        np.cumsum(sizes, out=offsets[1:])
        if idx.size:
            starts = self._offsets[idx]
            flat = np.repeat(starts - offsets[:-1], sizes) + np.arange(offsets[-1])
        else:
            flat = np.zeros(0, dtype=np.int64)
        return TaskSetBatch(
            self._C[flat], self._D[flat], self._T[flat], offsets, deadlines=self._deadlines, validate=False
        )

    def to_padded(
        self, fill: int = 0
    ) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
        """Return ``(C, D, T, counts)`` as 2-D arrays padded with ``fill``."""
        sizes = self.sizes
        width = int(sizes.max()) if sizes.size else 0
        out = [np.full((self.n_sets, width), fill, dtype=np.int64) for _ in range(3)]
        mask = np.arange(width)[None, :] < sizes[:, None]
        for arr, flat in zip(out, (self._C, self._D, self._T), strict=True):
            arr[mask] = flat
        return out[0], out[1], out[2], sizes

    def utilizations(self) -> NDArray[np.float64]:
        """Total utilization of each set, as floats (for sweeps and plots, not verdicts)."""
        u = self._C / self._T
        return np.add.reduceat(u, self._offsets[:-1]) if self.n_sets else np.zeros(0)

    @staticmethod
    def concatenate(batches: Sequence[TaskSetBatch]) -> TaskSetBatch:
        """Join batches end to end."""
        if not batches:
            return TaskSetBatch.empty()
        models = {b.deadlines for b in batches}
        model: DeadlineModel = (
            "arbitrary" if "arbitrary" in models else ("implicit" if models == {"implicit"} else "constrained")
        )
        offsets = [np.zeros(1, dtype=np.int64)]
        base = 0
        for b in batches:
            offsets.append(b.offsets[1:] + base)
            base += int(b.offsets[-1])
        return TaskSetBatch(
            np.concatenate([b.C for b in batches]),
            np.concatenate([b.D for b in batches]),
            np.concatenate([b.T for b in batches]),
            np.concatenate(offsets),
            deadlines=model,
            validate=False,
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TaskSetBatch):
            return NotImplemented
        return all(
            np.array_equal(a, b)
            for a, b in zip(
                (self._C, self._D, self._T, self._offsets), (other._C, other._D, other._T, other._offsets), strict=True
            )
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"TaskSetBatch(n_sets={self.n_sets}, tasks={self._C.shape[0]}, deadlines={self._deadlines!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild_batch, (self._C, self._D, self._T, self._offsets, self._deadlines))


def _rebuild_batch(C: Any, D: Any, T: Any, offsets: Any, deadlines: Any) -> TaskSetBatch:
    return TaskSetBatch(C, D, T, offsets, deadlines=deadlines, validate=False)
