"""The plumbing task sets of task objects and their batches share: :class:`ObjectTaskSet`, :class:`ObjectBatch`.

:class:`~rtsched.dag.DAGTaskSet` and :class:`~rtsched.mc.MCTaskSet` hold a tuple of task objects
(not the flat arrays of :class:`~rtsched.model.TaskSet`); what they have in common (validation of
the tuple and the name, the sequence protocol, equality, hashing, ``repr``, task labels, the set's
deadline model) is here, once. Each subclass names its task type and the wording of its errors.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any, ClassVar, Generic, Protocol, Self, TypeVar, overload

import numpy as np
from numpy.typing import NDArray

from rtsched.errors import InputError, TaskError
from rtsched.model import MAX_TASKS, DeadlineModel

__all__ = ["ObjectBatch", "ObjectTaskSet"]


class _Task(Protocol):
    @property
    def name(self) -> str | None: ...

    @property
    def deadline_kind(self) -> DeadlineModel: ...


TaskT = TypeVar("TaskT", bound=_Task)


class ObjectTaskSet(Sequence[TaskT], Generic[TaskT]):
    """An immutable, hashable, named sequence of at least one task object of type ``_TASK``.

    Subclasses set ``_TASK`` (the task class), ``_WHAT`` (``"a DAG task set"``: the subject of
    the empty-set error) and ``_EXPECTED`` (``"a DAGTask"``: what a wrong item should have been).
    ``_cache`` is a dictionary a subclass may keep derived values in (the hash is kept there).
    """

    __slots__ = ("_tasks", "_name", "_cache")

    _TASK: ClassVar[type]
    _WHAT: ClassVar[str]
    _EXPECTED: ClassVar[str]

    def __init__(self, tasks: Iterable[TaskT], *, name: str | None = None) -> None:
        items = tuple(tasks)
        if not items:
            raise InputError(f"{self._WHAT} needs at least one task")
        if len(items) > MAX_TASKS:
            raise InputError(f"a task set may have at most {MAX_TASKS} tasks, got {len(items)}")
        for i, task in enumerate(items):
            if not isinstance(task, self._TASK):
                raise TaskError(f"expected {self._EXPECTED}, got {type(task).__name__}", task=i)
        if name is not None and not isinstance(name, str):
            raise InputError(f"a task set name must be a string, got {name!r}", field="name")
        self._tasks = items
        self._name = name
        self._cache: dict[Any, Any] = {}  # last: a subclass may treat its presence as "built"

    @property
    def tasks(self) -> tuple[TaskT, ...]:
        """The tasks."""
        return self._tasks

    @property
    def name(self) -> str | None:
        """The name of the set, or ``None``."""
        return self._name

    @property
    def n(self) -> int:
        """Number of tasks."""
        return len(self._tasks)

    @property
    def names(self) -> tuple[str | None, ...] | None:
        """The task names, or ``None`` when no task is named."""
        names = tuple(t.name for t in self._tasks)
        return names if any(x is not None for x in names) else None

    def label(self, i: int) -> str:
        """How task ``i`` is shown to a person: ``τ3`` or ``τ3 (camera)``."""
        nm = self._tasks[i].name
        return f"τ{i}" if nm is None else f"τ{i} ({nm})"

    @property
    def deadline_kind(self) -> DeadlineModel:
        """The tightest deadline model every task meets: ``implicit``, ``constrained`` or ``arbitrary``."""
        kinds = {t.deadline_kind for t in self._tasks}
        if kinds == {"implicit"}:
            return "implicit"
        return "arbitrary" if "arbitrary" in kinds else "constrained"

    def __len__(self) -> int:
        return len(self._tasks)

    @overload
    def __getitem__(self, i: int) -> TaskT: ...
    @overload
    def __getitem__(self, i: slice) -> Self: ...
    def __getitem__(self, i: int | slice) -> TaskT | Self:
        if isinstance(i, slice):
            return type(self)(self._tasks[i], name=self._name)
        return self._tasks[i]

    def __iter__(self) -> Iterator[TaskT]:
        return iter(self._tasks)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, type(self)):
            return NotImplemented
        return self._tasks == other._tasks and self._name == other._name

    def __hash__(self) -> int:
        if "hash" not in self._cache:
            self._cache["hash"] = hash((self._tasks, self._name))
        return self._cache["hash"]

    def __repr__(self) -> str:
        extra = f", name={self._name!r}" if self._name is not None else ""
        return f"{type(self).__name__}({list(self._tasks)!r}{extra})"


SetT = TypeVar("SetT")


class ObjectBatch(Generic[SetT]):
    """What the batches of task-object sets share (:class:`~rtsched.dag.DAGBatch`, :class:`~rtsched.mc.MCBatch`).

    A subclass keeps one row per task in ``_T`` and ``_D``, the sets' bounds in ``_task_offsets``
    (set ``s`` is tasks ``_task_offsets[s]:_task_offsets[s + 1]``), builds task ``k`` with
    ``_task(k)`` and names its set class in ``_SET``.
    """

    __slots__ = ()

    _SET: ClassVar[type]
    _T: NDArray[np.int64]
    _D: NDArray[np.int64]
    _task_offsets: NDArray[np.int64]

    def _task(self, k: int) -> Any:
        raise NotImplementedError  # pragma: no cover

    def _set(self, s: int) -> SetT:
        """Set ``s`` (negative: from the end) as a task set, or an IndexError."""
        if not -self.n_sets <= s < self.n_sets:
            raise IndexError(f"task set {s} out of range for a batch of {self.n_sets}")
        s %= self.n_sets
        lo, hi = int(self._task_offsets[s]), int(self._task_offsets[s + 1])
        result: SetT = self._SET(self._task(k) for k in range(lo, hi))
        return result

    @property
    def T(self) -> NDArray[np.int64]:
        """Period of each task."""
        return self._T

    @property
    def D(self) -> NDArray[np.int64]:
        """Relative deadline of each task."""
        return self._D

    @property
    def task_offsets(self) -> NDArray[np.int64]:
        """Set ``s``'s tasks are ``task_offsets[s]:task_offsets[s + 1]``."""
        return self._task_offsets

    @property
    def n_sets(self) -> int:
        """Number of task sets."""
        return int(self._task_offsets.shape[0] - 1)

    @property
    def n_tasks(self) -> int:
        """Number of tasks over all sets."""
        return int(self._T.shape[0])

    @property
    def deadlines(self) -> DeadlineModel:
        """The tightest deadline model every task meets (as a sweep unit reads it)."""
        if np.all(self._D == self._T):
            return "implicit"
        return "constrained" if np.all(self._D <= self._T) else "arbitrary"

    def __len__(self) -> int:
        return self.n_sets

    def __getitem__(self, s: int) -> SetT:
        return self._set(s)

    def __iter__(self) -> Iterator[SetT]:
        for s in range(self.n_sets):
            yield self[s]
