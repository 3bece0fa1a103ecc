"""The CPU–GPU segmented task model: :class:`GPUSegment`, :class:`SegmentedTask`, :class:`SegmentedTaskSet`, :class:`SegmentedBatch`.

A task of a real-time GPU application runs on one CPU core and alternates between **CPU
segments** and **GPU segments** (Kim, Patel, Wang, Rajkumar, RTAS 2017, Section 3; Patel, Baek,
Kim, Rajkumar, RTAS 2018, Section 2; Wang, Liu, Wong, Kim, ECRTS 2024, Section 3)::

    C_1, G_1, C_2, G_2, ..., G_η, C_{η+1}

``C_j`` is the WCET of the j-th CPU segment. A GPU segment ``G_j = (G_m, G_e)`` has a
**CPU-side part** ``G_m`` (launching kernels, copying data in and out: it needs the task's CPU
core while it runs) and a **GPU part** ``G_e`` (kernel execution on the GPU, during which the
task either spins on its core, *busy* waiting, or *suspends* and lets other work run on the
core). Each GPU segment names the GPU (or GPU partition) it runs on, ``device``.

Tasks are sporadic (minimum inter-arrival ``T``, relative deadline ``D``), scheduled by
partitioned fixed priority on the CPU cores: each task names its ``core`` (``None`` until an
assignment heuristic chooses one) and the task order of a :class:`SegmentedTaskSet` is the
priority order (index 0 highest), as for every other kind of this library. ``mode`` says how the
task waits for its GPU work (``"busy"`` or ``"suspend"``); ``None`` leaves it to the analysis or
simulator, which applies its own mode to such tasks.

Time is integer ticks (every value at most :data:`rtsched.model.MAX_TIME`); derived totals are
exact ``int`` and utilizations exact ``Fraction``. The notation and the rules of the generators
are in papers/cpu-gpu-model.md (issue #43).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from numbers import Integral
from typing import Any, Literal, overload

import numpy as np
from numpy.typing import ArrayLike, NDArray

from rtsched._tasksets import ObjectBatch, ObjectTaskSet
from rtsched.errors import InputError, TaskError
from rtsched.gpu.model import (
    CLASSES,
    INTERFERENCE_MODES,
    AmdahlWCET,
    GPUWorkload,
    Kernel,
    SaturatingWCET,
    Slowdown,
    TableWCET,
    WCETProfile,
)
from rtsched.model import MAX_TIME, DeadlineModel, fraction_sum

__all__ = [
    "DEFAULT_DEVICE",
    "MODES",
    "MODE_CODES",
    "GPUDescription",
    "GPUDriver",
    "GPUSegment",
    "SegmentedBatch",
    "SegmentedTask",
    "SegmentedTaskSet",
    "WaitMode",
]

WaitMode = Literal["busy", "suspend"]
#: How a task waits for its GPU work: spinning on its core, or suspended.
MODES: tuple[str, ...] = ("busy", "suspend")
#: The device a GPU segment runs on when its file or constructor names none.
DEFAULT_DEVICE = "gpu"
_DEVICE_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.:\-]*$")
#: ``mode`` codes of :class:`SegmentedBatch` (0: none given).
MODE_CODES: dict[str | None, int] = {None: 0, "busy": 1, "suspend": 2}
_MODE_OF = {0: None, 1: "busy", 2: "suspend"}


def _ticks(value: Any, *, task: str | int | None, field: str, minimum: int) -> int:
    """``value`` as an int in ``minimum``..MAX_TIME, or a TaskError naming the task and the field."""
    if type(value) is int and minimum <= value <= MAX_TIME:  # the common case (generators), no ABC checks
        return value
    if isinstance(value, bool) or not isinstance(value, Integral | np.integer):
        what = "a positive" if minimum >= 1 else "a non-negative"
        raise TaskError(f"{field} must be {what} integer number of ticks, got {value!r}", task=task, field=field)
    number = int(value)
    if number < minimum:
        what = "positive" if minimum >= 1 else "non-negative"
        raise TaskError(f"{field} must be {what}, got {number}", task=task, field=field)
    if number > MAX_TIME:
        raise TaskError(
            f"{field} = {number} is too large: at most {MAX_TIME} (2**31 − 1, the largest time value); use a coarser time unit",
            task=task,
            field=field,
        )
    return number


def _device(value: Any, *, task: str | int | None, field: str) -> str:
    if not isinstance(value, str) or not _DEVICE_NAME.match(value):
        raise TaskError(
            f"a GPU device name is a word (letters, digits, _ . : -; not starting with a digit), got {value!r}",
            task=task,
            field=field,
        )
    return value


@dataclass(frozen=True)
class GPUSegment:
    """One GPU segment: CPU-side part ``G_m``, GPU part ``G_e``, on ``device``.

    ``G_m`` (launch and copies, on the task's CPU core) and ``G_e`` (kernel execution on the GPU)
    are non-negative integers, not both zero. Immutable and hashable.

    Examples
    --------
    >>> GPUSegment(2, 10).G, GPUSegment(2, 10, "gpc0").device
    (12, 'gpc0')
    """

    G_m: int
    G_e: int
    device: str = DEFAULT_DEVICE
    profile: WCETProfile | None = None
    klass: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "G_m", _ticks(self.G_m, task=None, field="G_m", minimum=0))
        object.__setattr__(self, "G_e", _ticks(self.G_e, task=None, field="G_e", minimum=0))
        object.__setattr__(self, "device", _device(self.device, task=None, field="device"))
        if self.profile is not None:
            _check_profile(self.profile)
        if self.klass is not None and (not isinstance(self.klass, str) or not self.klass):
            raise TaskError(f"a co-runner class is a name such as memory, got {self.klass!r}", field="class")
        if self.G_m + self.G_e == 0:
            raise TaskError("a GPU segment needs G_m + G_e >= 1", field="G_e")
        if self.G_m + self.G_e > MAX_TIME:
            raise TaskError(f"G_m + G_e = {self.G_m + self.G_e} exceeds {MAX_TIME}", field="G_e")

    @property
    def G(self) -> int:
        """``G_m + G_e``: the segment's length when nothing else delays it."""
        return self.G_m + self.G_e

    def wcet_on(self, size: int, clusters: int) -> int | None:
        """C(size): the GPU part's WCET on a partition of ``size`` of the GPU's ``clusters`` clusters, alone.

        The profile's value (papers/cpu-gpu-partitions.md, rule (P)); without a profile ``G_e`` on
        the whole GPU (``size == clusters``), 0 everywhere when ``G_e = 0``, else ``None``
        (not measured: the segment cannot run on a smaller partition).
        """
        if self.profile is not None:
            return self.profile.at(size)
        if self.G_e == 0 or size >= clusters:
            return self.G_e
        return None

    def __repr__(self) -> str:
        dev = "" if self.device == DEFAULT_DEVICE else f", {self.device!r}"
        extra = "" if self.profile is None else f", profile={self.profile!r}"
        extra += "" if self.klass is None else f", klass={self.klass!r}"
        return f"GPUSegment({self.G_m}, {self.G_e}{dev}{extra})"


def _check_profile(profile: Any) -> None:
    """A WCET profile of :mod:`rtsched.gpu.model` (A1: non-increasing), or a TaskError on ``profile``."""
    if not isinstance(profile, TableWCET | AmdahlWCET | SaturatingWCET):
        raise TaskError(
            f"a WCET profile is a TableWCET, AmdahlWCET or SaturatingWCET of rtsched.gpu, got {profile!r}",
            field="profile",
        )
    try:  # the GPU model's own validation of a kernel's WCET profile
        GPUWorkload((Kernel(profile, MAX_TIME, MAX_TIME),))
    except InputError as err:
        field = "profile" + (err.field or "C")[1:]
        raise TaskError(err.message, field=field) from None


@dataclass(frozen=True)
class GPUDriver:
    """The GPU driver's parameters of a set: context-switch cost and round-robin time slice (issue #43).

    ``epsilon`` (ε, ticks, ≥ 0): the device time every context switch costs under the preemptive
    protocols ``gcaps`` and ``tsg-rr`` (papers/cpu-gpu-model.md); ``time_slice`` (L, ticks, > 0 or
    None): the round robin's slice of ``tsg-rr``. The GCAPS and TSG analyses and
    :func:`~rtsched.segmented.simulate_segmented` use these values when their keywords are not
    given (keyword > set's driver > registered default); the lock-based protocols ignore them.

    Examples
    --------
    >>> GPUDriver(epsilon=10, time_slice=10)
    GPUDriver(epsilon=10, time_slice=10)
    >>> GPUDriver(time_slice=0)
    Traceback (most recent call last):
    ...
    rtsched.errors.InputError: field driver time_slice: driver time_slice must be positive, got 0
    """

    epsilon: int = 0
    time_slice: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilon", _driver_ticks(self.epsilon, "epsilon", 0))
        if self.time_slice is not None:
            object.__setattr__(self, "time_slice", _driver_ticks(self.time_slice, "time_slice", 1))


def _driver_ticks(value: Any, field: str, minimum: int) -> int:
    try:
        return _ticks(value, task=None, field=f"driver {field}", minimum=minimum)
    except InputError as err:
        raise InputError(err.message, field=f"driver {field}") from None


@dataclass(frozen=True)
class GPUDescription:
    """The GPU a set's segments on ``device`` run on, to be split into partitions (papers/cpu-gpu-partitions.md).

    rtsched's GPU partition model (:mod:`rtsched.gpu`, papers/zahaf2021-gpu-partitioning.md):
    ``clusters`` M compute clusters, the ``layout`` space of legal partition sizes (``free``,
    ``tpc:<k>``, ``mig:a100``, ``mig:h100``), the slowdown f(k) of a GPU part when k other
    partitions are active (``slowdown``, a :class:`~rtsched.gpu.Slowdown`; required: there is no
    default contention), co-runner rows f(k | c) (``slowdown_by``, least interfering class
    first, capped by ``slowdown``), the memory-intensity ``classes`` and the ``interference``
    model (``co-runner`` or ``count-only``). The same factors apply to every GPU segment on
    ``device`` (a segment's own class says what it does to the others). Segments on other
    devices are left as they are.

    Examples
    --------
    >>> from fractions import Fraction
    >>> GPUDescription(4, Slowdown((), Fraction(6, 5))).factor(1, None)
    Fraction(6, 5)
    """

    clusters: int
    slowdown: Slowdown
    layout: str = "free"
    device: str = DEFAULT_DEVICE
    interference: str = "co-runner"
    slowdown_by: tuple[tuple[str, Slowdown], ...] = ()
    classes: tuple[str, ...] = CLASSES

    def __post_init__(self) -> None:
        from rtsched.gpu.layouts import layout_space

        object.__setattr__(self, "slowdown_by", tuple((c, r) for c, r in self.slowdown_by))
        object.__setattr__(self, "classes", tuple(self.classes))
        object.__setattr__(self, "device", _device(self.device, task=None, field="gpu device"))
        if not isinstance(self.slowdown, Slowdown):
            raise InputError(f"slowdown must be a rtsched.gpu.Slowdown, got {self.slowdown!r}", field="gpu slowdown")
        if self.interference not in INTERFERENCE_MODES:
            raise InputError(
                f"interference must be one of {', '.join(INTERFERENCE_MODES)}, got {self.interference!r}",
                field="gpu interference",
            )
        try:
            GPUWorkload(
                (self._row_kernel(),),
                self.clusters,
                layout=self.layout,
                interference=self.interference,
                classes=self.classes,
            )
            object.__setattr__(self, "layout", layout_space(self.layout, self.clusters).spec)
        except InputError as err:
            field = {"C": "clusters"}.get(err.field or "", err.field or "layout")
            raise InputError(err.message, field=f"gpu {field}") from None

    def _row_kernel(self) -> Kernel:
        """The slowdown rows as a kernel of :mod:`rtsched.gpu.model` (its validation and factor rule)."""
        return Kernel(
            TableWCET((1,)),
            1,
            1,
            slowdown=self.slowdown.factors,
            slowdown_beyond=self.slowdown.beyond,
            slowdown_by=self.slowdown_by,
        )

    def factor(self, others: int, worst: int | None) -> Fraction | None:
        """f(others | classes[worst]) (``worst`` None or count-only: f(others)); None where not measured.

        The rule of :meth:`rtsched.gpu.Kernel.corunner_factor`: a class without a row takes the
        row of the next more interfering class that has one, and ``slowdown`` above the last.
        """
        if self.interference == "count-only":
            worst = None
        return self._row_kernel().corunner_factor(others, worst, self.classes)

    def class_index(self, klass: str | None) -> int:
        """Index of ``klass`` in ``classes`` (None: the last, the most interfering: worst case)."""
        return len(self.classes) - 1 if klass is None else self.classes.index(klass)


def _segment(value: Any, *, task: str | None, index: int) -> GPUSegment:
    """A GPU segment from a :class:`GPUSegment`, a ``(G_m, G_e[, device])`` pair or a mapping."""
    where = f"segment {index}"
    try:
        if isinstance(value, GPUSegment):
            return value
        if isinstance(value, dict):
            unknown = set(value) - {"G_m", "G_e", "device", "profile", "klass"}
            if unknown:
                raise TaskError(
                    f"unknown GPU segment fields {sorted(unknown)} (G_m, G_e, device, profile, klass)", field="G_e"
                )
            return GPUSegment(
                value.get("G_m", 0),
                value.get("G_e", 0),
                value.get("device", DEFAULT_DEVICE),
                value.get("profile"),
                value.get("klass"),
            )
        if isinstance(value, tuple | list) and len(value) in (2, 3, 4, 5):
            return GPUSegment(*value)
    except TaskError as err:
        raise TaskError(err.message, task=task, field=f"{where} {err.field}") from None
    raise TaskError(f"a GPU segment is (G_m, G_e[, device]), got {value!r}", task=task, field=where)


@dataclass(frozen=True)
class SegmentedTask:
    """A sporadic task alternating CPU and GPU segments: ``C_1, G_1, ..., G_η, C_{η+1}``.

    Immutable, hashable and validated at construction.

    Parameters
    ----------
    cpu:
        The η + 1 CPU segments' WCETs ``C_1 .. C_{η+1}`` (non-negative integers; a zero first or
        last segment is a task that starts or ends with GPU work).
    gpu:
        The η GPU segments (:class:`GPUSegment`, or ``(G_m, G_e[, device])`` pairs); may be empty
        (a plain CPU task, then ``cpu`` has one entry).
    T, D:
        Minimum inter-arrival time and relative deadline (positive integers). ``D <= T`` is what the
        analyses of issue #43 need; ``D > T`` is accepted here and makes the set ``arbitrary``.
    core:
        The CPU core (``0..m-1``) the task is assigned to, or ``None`` (not assigned yet).
    mode:
        ``"busy"``, ``"suspend"`` or ``None`` (the analysis's or the simulator's mode applies).
    name:
        Optional task name.

    Raises
    ------
    TaskError
        Naming the task and the field (``T``, ``D``, ``core``, ``mode``, ``C_2``, ``segment 1 G_e``, ...).

    Examples
    --------
    >>> tau = SegmentedTask((2, 3), ((1, 5),), T=20, core=0)
    >>> tau.C, tau.G_m, tau.G_e, tau.eta, tau.segments()
    (5, 1, 5, 1, [2, GPUSegment(1, 5), 3])
    >>> SegmentedTask.from_segments([(1, 4), 2], T=10).cpu
    (0, 2)
    """

    cpu: tuple[int, ...]
    gpu: tuple[GPUSegment, ...]
    T: int
    D: int = 0
    core: int | None = None
    mode: WaitMode | None = None
    name: str | None = None

    def __post_init__(self) -> None:
        name = self.name
        if name is not None and not isinstance(name, str):
            raise TaskError(f"a task name must be a string, got {name!r}", field="name")
        if isinstance(self.cpu, str | bytes) or not isinstance(self.cpu, Iterable):
            raise TaskError(f"cpu must be a sequence of integers, got {self.cpu!r}", task=name, field="C_1")
        if isinstance(self.gpu, str | bytes) or not isinstance(self.gpu, Iterable):
            raise TaskError(f"gpu must be a sequence of GPU segments, got {self.gpu!r}", task=name, field="segment 1")
        gpu = tuple(_segment(g, task=name, index=j + 1) for j, g in enumerate(self.gpu))
        cpu = tuple(_ticks(c, task=name, field=f"C_{j + 1}", minimum=0) for j, c in enumerate(self.cpu))
        if len(cpu) != len(gpu) + 1:
            raise TaskError(
                f"{len(gpu)} GPU segments need {len(gpu) + 1} CPU segments around them, got {len(cpu)}",
                task=name,
                field="C_1",
            )
        total = sum(cpu) + sum(g.G for g in gpu)
        if total == 0:
            raise TaskError("a task needs some work: every segment is zero", task=name, field="C_1")
        if total > MAX_TIME:
            raise TaskError(f"the segments add up to {total}, more than {MAX_TIME}", task=name, field="C_1")
        T = _ticks(self.T, task=name, field="T", minimum=1)
        D = T if isinstance(self.D, int) and not isinstance(self.D, bool) and self.D == 0 else self.D
        D = _ticks(D, task=name, field="D", minimum=1)
        core = self.core
        if core is not None:
            if isinstance(core, bool) or not isinstance(core, Integral | np.integer) or int(core) < 0:
                raise TaskError(f"core must be a core index 0, 1, ... or None, got {core!r}", task=name, field="core")
            core = int(core)
        mode = self.mode
        if mode is not None:
            if not isinstance(mode, str) or mode.strip().lower() not in MODES:
                raise TaskError(f"mode must be busy or suspend, got {mode!r}", task=name, field="mode")
            mode = mode.strip().lower()  # type: ignore[assignment]
        object.__setattr__(self, "cpu", cpu)
        object.__setattr__(self, "gpu", gpu)
        object.__setattr__(self, "T", T)
        object.__setattr__(self, "D", D)
        object.__setattr__(self, "core", core)
        object.__setattr__(self, "mode", mode)

    # -- constructors -------------------------------------------------------------------------
    @classmethod
    def from_segments(
        cls,
        segments: Sequence[Any],
        T: int,
        D: int | None = None,
        *,
        core: int | None = None,
        mode: WaitMode | None = None,
        name: str | None = None,
    ) -> SegmentedTask:
        """A task from its segments in execution order: ints are CPU segments, pairs GPU segments.

        A GPU segment at either end (or two in a row) gets a zero CPU segment beside it; two CPU
        segments in a row are an error (write their sum).
        """
        cpu: list[int] = []
        gpu: list[Any] = []
        expect_cpu = True
        for j, seg in enumerate(segments):
            is_cpu = isinstance(seg, Integral | np.integer) and not isinstance(seg, bool)
            if is_cpu:
                if not expect_cpu:
                    raise TaskError(
                        f"two CPU segments in a row at position {j + 1}: write their sum",
                        task=name,
                        field=f"C_{len(cpu)}",
                    )
                cpu.append(seg)
                expect_cpu = False
            else:
                if expect_cpu:
                    cpu.append(0)
                gpu.append(seg)
                expect_cpu = True
        if expect_cpu:
            cpu.append(0)
        return cls(tuple(cpu), tuple(gpu), T, T if D is None else D, core, mode, name)

    def replace(self, **changes: Any) -> SegmentedTask:
        """A copy with the given fields replaced (validated again)."""
        return dataclasses.replace(self, **changes)

    # -- derived ------------------------------------------------------------------------------
    def segments(self) -> list[int | GPUSegment]:
        """The segments in execution order: ``[C_1, G_1, C_2, ..., G_η, C_{η+1}]``."""
        out: list[int | GPUSegment] = [self.cpu[0]]
        for g, c in zip(self.gpu, self.cpu[1:], strict=True):
            out.extend((g, c))
        return out

    @property
    def eta(self) -> int:
        """η: the number of GPU segments."""
        return len(self.gpu)

    @property
    def C(self) -> int:
        """Σ ``C_j``: the CPU segments' total WCET."""
        return sum(self.cpu)

    @property
    def G_m(self) -> int:
        """Σ ``G_{j,m}``: CPU-side time of the GPU segments (launch, copies)."""
        return sum(g.G_m for g in self.gpu)

    @property
    def G_e(self) -> int:
        """Σ ``G_{j,e}``: GPU execution time."""
        return sum(g.G_e for g in self.gpu)

    @property
    def G(self) -> int:
        """Σ ``G_j = G_m + G_e``: the GPU segments' total length."""
        return self.G_m + self.G_e

    @property
    def uses_gpu(self) -> bool:
        """Whether the task has a GPU segment."""
        return bool(self.gpu)

    def devices(self) -> tuple[str, ...]:
        """The devices its GPU segments run on, in order of first use."""
        return tuple(dict.fromkeys(g.device for g in self.gpu))

    @property
    def utilization(self) -> Fraction:
        """``(C + G) / T``: CPU and GPU work together (a busy-waiting task's core load, without waiting)."""
        return Fraction(self.C + self.G, self.T)

    @property
    def cpu_utilization(self) -> Fraction:
        """``(C + G_m) / T``: what a suspending task needs of its core."""
        return Fraction(self.C + self.G_m, self.T)

    @property
    def gpu_utilization(self) -> Fraction:
        """``G_e / T``."""
        return Fraction(self.G_e, self.T)

    @property
    def deadline_kind(self) -> DeadlineModel:
        """``implicit`` (D = T), ``constrained`` (D < T) or ``arbitrary`` (D > T)."""
        if self.D == self.T:
            return "implicit"
        return "constrained" if self.D < self.T else "arbitrary"

    def __repr__(self) -> str:
        parts = [repr(self.cpu), repr(self.gpu), f"T={self.T}"]
        if self.D != self.T:
            parts.append(f"D={self.D}")
        if self.core is not None:
            parts.append(f"core={self.core}")
        if self.mode is not None:
            parts.append(f"mode={self.mode!r}")
        if self.name is not None:
            parts.append(f"name={self.name!r}")
        return f"SegmentedTask({', '.join(parts)})"


class SegmentedTaskSet(ObjectTaskSet[SegmentedTask]):
    """An immutable, hashable set of segmented tasks; the order is the priority order (index 0 highest).

    Parameters
    ----------
    tasks:
        The :class:`SegmentedTask` s, at least one.
    name:
        Optional name of the set (kept by the file formats).

    gpu:
        Optional :class:`~rtsched.segmented.model.GPUDescription`: the GPU that the segments on its ``device`` run on may be
        split into partitions (the ``seg-*-part`` analyses, papers/cpu-gpu-partitions.md). With it,
        every segment on that device that has a WCET profile must have ``profile.at(M) == G_e``
        (``G_e`` stays the WCET on the whole GPU), and every segment's class must be one of its
        ``classes``.
    driver:
        Optional :class:`~rtsched.segmented.model.GPUDriver`: the set's context-switch cost ε and round-robin time slice,
        used by the ``seg-gcaps-*`` and ``seg-tsg-*`` analyses and the simulator when their
        keywords are not given.

    Examples
    --------
    >>> ts = SegmentedTaskSet([
    ...     SegmentedTask((2, 2), ((1, 4),), T=20, core=0),
    ...     SegmentedTask((6,), (), T=30, core=1),
    ... ])
    >>> ts.devices, ts.cores, ts.gpu_tasks(), ts.on_core(1)
    (('gpu',), (0, 1), (0,), (1,))
    """

    __slots__ = ("_driver", "_gpu")

    _gpu: GPUDescription | None
    _driver: GPUDriver | None

    def __init__(
        self,
        tasks: Iterable[SegmentedTask],
        *,
        name: str | None = None,
        gpu: GPUDescription | None = None,
        driver: GPUDriver | None = None,
    ) -> None:
        if gpu is not None and not isinstance(gpu, GPUDescription):
            raise InputError(f"gpu must be a GPUDescription or None, got {gpu!r}", field="gpu")
        if driver is not None and not isinstance(driver, GPUDriver):
            raise InputError(f"driver must be a GPUDriver or None, got {driver!r}", field="driver")
        object.__setattr__(self, "_gpu", gpu)
        object.__setattr__(self, "_driver", driver)
        super().__init__(tasks, name=name)
        if gpu is not None:
            self._check_gpu(gpu)

    def _check_gpu(self, gpu: GPUDescription) -> None:
        for i, t in enumerate(self._tasks):
            label = t.name if t.name is not None else i
            for j, g in enumerate(t.gpu, 1):
                if g.klass is not None and g.klass not in gpu.classes:
                    raise TaskError(
                        f"unknown co-runner class {g.klass!r}; the GPU's classes are {', '.join(gpu.classes)}",
                        task=label,
                        field=f"segment {j} class",
                    )
                if g.device == gpu.device and g.profile is not None and g.profile.at(gpu.clusters) != g.G_e:
                    raise TaskError(
                        f"the profile gives C({gpu.clusters}) = {g.profile.at(gpu.clusters)} on the whole GPU "
                        f"of {gpu.clusters} clusters, but G_e = {g.G_e} (G_e is the WCET on the whole GPU)",
                        task=label,
                        field=f"segment {j} profile",
                    )

    @property
    def gpu(self) -> GPUDescription | None:
        """The partitionable GPU of the set (None: the devices are as the segments name them)."""
        return self._gpu

    def with_gpu(self, gpu: GPUDescription | None) -> SegmentedTaskSet:
        """The set with its GPU description replaced (validated again)."""
        return SegmentedTaskSet(self._tasks, name=self._name, gpu=gpu, driver=self._driver)

    @property
    def driver(self) -> GPUDriver | None:
        """The set's GPU driver parameters (None: the analyses' and simulator's defaults apply)."""
        return self._driver

    def with_driver(self, driver: GPUDriver | None) -> SegmentedTaskSet:
        """The set with its GPU driver parameters replaced."""
        return SegmentedTaskSet(self._tasks, name=self._name, gpu=self._gpu, driver=driver)

    @overload
    def __getitem__(self, i: int) -> SegmentedTask: ...
    @overload
    def __getitem__(self, i: slice) -> SegmentedTaskSet: ...
    def __getitem__(self, i: int | slice) -> SegmentedTask | SegmentedTaskSet:
        if isinstance(i, slice):
            return SegmentedTaskSet(self._tasks[i], name=self._name, gpu=self._gpu, driver=self._driver)
        return self._tasks[i]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SegmentedTaskSet):
            return NotImplemented
        return (
            self._tasks == other._tasks
            and self._name == other._name
            and self._gpu == other._gpu
            and self._driver == other._driver
        )

    def __hash__(self) -> int:
        if "hash" not in self._cache:
            key: tuple[Any, ...] = (self._tasks, self._name, self._gpu)
            self._cache["hash"] = hash(key if self._driver is None else (*key, self._driver))
        return int(self._cache["hash"])

    def __repr__(self) -> str:
        text = super().__repr__()
        if self._gpu is not None:
            text = f"{text[:-1]}, gpu={self._gpu!r})"
        return text if self._driver is None else f"{text[:-1]}, driver={self._driver!r})"

    _TASK = SegmentedTask
    _WHAT = "a segmented task set"
    _EXPECTED = "a SegmentedTask"

    @property
    def tasks(self) -> tuple[SegmentedTask, ...]:
        """The tasks, highest priority first."""
        return self._tasks

    @property
    def devices(self) -> tuple[str, ...]:
        """Every device a GPU segment names, in order of first use (task order, then segment order)."""
        if "devices" not in self._cache:
            self._cache["devices"] = tuple(dict.fromkeys(g.device for t in self._tasks for g in t.gpu))
        return self._cache["devices"]

    @property
    def assigned(self) -> bool:
        """Whether every task names its core."""
        return all(t.core is not None for t in self._tasks)

    @property
    def cores(self) -> tuple[int, ...]:
        """The cores the tasks name, increasing (unassigned tasks left out)."""
        return tuple(sorted({t.core for t in self._tasks if t.core is not None}))

    def on_core(self, core: int) -> tuple[int, ...]:
        """Indices of the tasks on ``core``, highest priority first."""
        return tuple(i for i, t in enumerate(self._tasks) if t.core == core)

    def gpu_tasks(self) -> tuple[int, ...]:
        """Indices of the tasks with a GPU segment."""
        return tuple(i for i, t in enumerate(self._tasks) if t.gpu)

    def mode_of(self, i: int, default: WaitMode) -> WaitMode:
        """Task ``i``'s waiting mode: its own, or ``default`` if it names none."""
        own = self._tasks[i].mode
        return default if own is None else own

    @property
    def utilization(self) -> Fraction:
        """Σ ``(C + G) / T``."""
        return fraction_sum(t.utilization for t in self._tasks)

    @property
    def cpu_utilization(self) -> Fraction:
        """Σ ``(C + G_m) / T``."""
        return fraction_sum(t.cpu_utilization for t in self._tasks)

    def gpu_utilization(self, device: str | None = None) -> Fraction:
        """Σ ``G_e / T`` over the GPU segments on ``device`` (every device if ``None``)."""
        return fraction_sum(
            Fraction(g.G_e, t.T) for t in self._tasks for g in t.gpu if device is None or g.device == device
        )

    #: The tightest deadline model every task meets (the name the other kinds use).
    deadline_model = ObjectTaskSet.deadline_kind

    def check_cores(self, m: int) -> None:
        """Raise a TaskError naming the first task without a core or with a core outside ``0..m-1``."""
        for i, t in enumerate(self._tasks):
            label = t.name if t.name is not None else i
            if t.core is None:
                raise TaskError(
                    "the task has no core (assign one, or use an assignment heuristic)", task=label, field="core"
                )
            if t.core >= m:
                raise TaskError(f"core {t.core} does not exist on m = {m} cores (0..{m - 1})", task=label, field="core")

    def with_cores(self, cores: Sequence[int | None]) -> SegmentedTaskSet:
        """The set with task ``i`` on ``cores[i]``."""
        if len(cores) != self.n:
            raise InputError(f"{len(cores)} cores given for {self.n} tasks")
        return SegmentedTaskSet(
            (t.replace(core=c) for t, c in zip(self._tasks, cores, strict=True)),
            name=self._name,
            gpu=self._gpu,
            driver=self._driver,
        )

    def with_mode(self, mode: WaitMode | None) -> SegmentedTaskSet:
        """The set with every task's waiting mode set to ``mode``."""
        return SegmentedTaskSet(
            (t.replace(mode=mode) for t in self._tasks), name=self._name, gpu=self._gpu, driver=self._driver
        )

    def permuted(self, order: Sequence[int]) -> SegmentedTaskSet:
        """The set with its tasks in ``order`` (a permutation of the indices): a new priority order."""
        if sorted(order) != list(range(self.n)):
            raise InputError(f"{list(order)!r} is not a permutation of 0..{self.n - 1}")
        return SegmentedTaskSet((self._tasks[i] for i in order), name=self._name, gpu=self._gpu, driver=self._driver)

    def __setattr__(self, name: str, value: Any) -> None:
        if hasattr(self, "_cache"):  # set once in __init__
            raise AttributeError(f"SegmentedTaskSet is immutable (cannot set {name!r})")
        object.__setattr__(self, name, value)

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild_set, (self._tasks, self._name, self._gpu, self._driver))


def _rebuild_set(tasks: Any, name: Any, gpu: Any = None, driver: Any = None) -> SegmentedTaskSet:
    return SegmentedTaskSet(tasks, name=name, gpu=gpu, driver=driver)


def _readonly(values: ArrayLike, dtype: Any = np.int64) -> NDArray[Any]:
    out = np.array(values, dtype=dtype, copy=True, order="C")
    if out.ndim != 1:
        out = out.reshape(-1) if out.size == 0 else out
    out.setflags(write=False)
    return out


@dataclass(frozen=True)
class _Extras:
    """What a :class:`SegmentedBatch` keeps beside its arrays for the GPU partition model (Python objects).

    ``profiles[j]`` and ``klasses[j]``: GPU segment j's WCET profile and co-runner class;
    ``gpus[s]``: set s's :class:`~rtsched.segmented.model.GPUDescription` (None where absent); ``drivers[s]``: set s's
    :class:`~rtsched.segmented.model.GPUDriver` (None where absent; ``()``: none for every set). The batch kernels ignore
    the first three; the preemptive analyses read ``drivers`` (:meth:`SegmentedBatch.drivers`);
    :meth:`SegmentedBatch.taskset` puts them back.
    """

    profiles: tuple[WCETProfile | None, ...]
    klasses: tuple[str | None, ...]
    gpus: tuple[GPUDescription | None, ...]
    drivers: tuple[GPUDriver | None, ...] = ()

    @property
    def empty(self) -> bool:
        """Whether nothing is set (the batch then keeps None, as before the partition model)."""
        return all(x is None for x in (*self.profiles, *self.klasses, *self.gpus, *self.drivers))


#: The arrays of a :class:`SegmentedBatch`, in the order of its constructor.
_ARRAYS = ("cpu", "G_m", "G_e", "device", "T", "D", "core", "mode", "gpu_offsets", "task_offsets")


class SegmentedBatch(ObjectBatch[SegmentedTaskSet]):
    """Many segmented task sets in flat, read-only, C-contiguous arrays.

    Per task ``k`` (over all sets): ``T[k]``, ``D[k]``, ``core[k]`` (``-1``: none), ``mode[k]``
    (``int8``: 0 none, 1 busy, 2 suspend), and its GPU segments ``gpu_offsets[k]:gpu_offsets[k + 1]``
    in ``G_m``, ``G_e`` and ``device`` (an index into :attr:`device_names`). Its η + 1 CPU segments
    are ``cpu[gpu_offsets[k] + k : gpu_offsets[k + 1] + k + 1]``. Set ``s`` holds tasks
    ``task_offsets[s]:task_offsets[s + 1]``, in priority order. Per-task totals (:attr:`C`,
    :attr:`G_m_total`, :attr:`G_e_total`, :attr:`eta`) are computed once. Names are not kept.

    Build it with :meth:`from_tasksets`; the constructor takes the arrays (``validate=True``
    rebuilds and checks every task).
    """

    __slots__ = (
        "_cpu",
        "_G_m",
        "_G_e",
        "_device",
        "_T",
        "_D",
        "_core",
        "_mode",
        "_gpu_offsets",
        "_task_offsets",
        "_device_names",
        "_totals",
        "_extras",
    )

    _SET = SegmentedTaskSet

    _cpu: NDArray[np.int64]
    _G_m: NDArray[np.int64]
    _G_e: NDArray[np.int64]
    _device: NDArray[np.int64]
    _core: NDArray[np.int64]
    _mode: NDArray[np.int8]
    _gpu_offsets: NDArray[np.int64]
    _device_names: tuple[str, ...]
    _totals: dict[str, NDArray[np.int64]]
    _extras: _Extras | None

    def __init__(
        self,
        cpu: ArrayLike,
        G_m: ArrayLike,
        G_e: ArrayLike,
        device: ArrayLike,
        T: ArrayLike,
        D: ArrayLike,
        core: ArrayLike,
        mode: ArrayLike,
        gpu_offsets: ArrayLike,
        task_offsets: ArrayLike,
        *,
        device_names: Sequence[str] = (DEFAULT_DEVICE,),
        validate: bool = True,
        extras: _Extras | None = None,
    ) -> None:
        for name, values in (
            ("cpu", cpu),
            ("G_m", G_m),
            ("G_e", G_e),
            ("device", device),
            ("T", T),
            ("D", D),
            ("core", core),
            ("gpu_offsets", gpu_offsets),
            ("task_offsets", task_offsets),
        ):
            object.__setattr__(self, "_" + name, _readonly(values))
        object.__setattr__(self, "_mode", _readonly(mode, np.int8))
        names = tuple(device_names)
        for nm in names:
            _device(nm, task=None, field="device")
        object.__setattr__(self, "_device_names", names)
        self._check_shapes()
        if extras is not None and extras.empty:
            extras = None
        if extras is not None and (len(extras.profiles) != self.n_gpu_segments or len(extras.gpus) != self.n_sets):
            raise InputError("extras must have one profile and class per GPU segment and one GPU per set")
        if extras is not None and len(extras.drivers) not in (0, self.n_sets):
            raise InputError("extras must have one driver per set (or none)")
        if extras is not None and extras.drivers and all(d is None for d in extras.drivers):
            extras = dataclasses.replace(extras, drivers=())
        object.__setattr__(self, "_extras", extras)
        object.__setattr__(self, "_totals", self._compute_totals())
        if validate:
            for k in range(self.n_tasks):
                self._task(k)

    def _check_shapes(self) -> None:
        for name in _ARRAYS:
            if getattr(self, "_" + name).ndim != 1:
                raise InputError(f"{name} must be one-dimensional")
        n_tasks = self._T.shape[0]
        for name in ("D", "core", "mode"):
            if getattr(self, "_" + name).shape[0] != n_tasks:
                raise InputError(f"{name} must have one entry per task, as T")
        go = self._gpu_offsets
        n_gpu = self._G_m.shape[0]
        if go.shape[0] != n_tasks + 1 or go[0] != 0 or go[-1] != n_gpu or np.any(np.diff(go) < 0):
            raise InputError(f"gpu_offsets must have {n_tasks + 1} entries rising from 0 to {n_gpu}")
        if self._G_e.shape[0] != n_gpu or self._device.shape[0] != n_gpu:
            raise InputError("G_m, G_e and device must have one entry per GPU segment")
        if self._cpu.shape[0] != n_gpu + n_tasks:
            raise InputError(f"cpu must have one entry per GPU segment plus one per task ({n_gpu + n_tasks})")
        if n_gpu and (self._device.min() < 0 or self._device.max() >= len(self._device_names)):
            raise InputError(f"device indices must be in 0..{len(self._device_names) - 1}")
        if np.any((self._mode < 0) | (self._mode > 2)):
            raise InputError("mode codes are 0 (none), 1 (busy) and 2 (suspend)")
        offsets = self._task_offsets
        if offsets.shape[0] < 1 or offsets[0] != 0 or offsets[-1] != n_tasks or np.any(np.diff(offsets) < 0):
            raise InputError(f"task_offsets must rise from 0 to {n_tasks}")
        if np.any(np.diff(offsets) == 0):
            raise InputError(
                "a segmented task set needs at least one task", set_index=int(np.flatnonzero(np.diff(offsets) == 0)[0])
            )

    def _compute_totals(self) -> dict[str, NDArray[Any]]:
        n = self.n_tasks
        go = self._gpu_offsets
        task_of_gpu = np.repeat(np.arange(n), np.diff(go))
        task_of_cpu = np.repeat(np.arange(n), np.diff(go) + 1)
        C = np.zeros(n, dtype=np.int64)
        G_m = np.zeros(n, dtype=np.int64)
        G_e = np.zeros(n, dtype=np.int64)
        np.add.at(C, task_of_cpu, self._cpu)
        np.add.at(G_m, task_of_gpu, self._G_m)
        np.add.at(G_e, task_of_gpu, self._G_e)
        totals = {"C": C, "G_m": G_m, "G_e": G_e}
        totals["eta"] = np.diff(go).astype(np.int64)
        for values in totals.values():
            values.setflags(write=False)
        return totals

    def _task(self, k: int) -> SegmentedTask:
        lo, hi = int(self._gpu_offsets[k]), int(self._gpu_offsets[k + 1])
        try:
            gpu = tuple(self._segment(j, j - lo + 1) for j in range(lo, hi))
            cpu = tuple(int(c) for c in self._cpu[lo + k : hi + k + 1])
            core = int(self._core[k])
            if int(self._D[k]) < 1:  # SegmentedTask reads D = 0 as "D = T"; an array's 0 is an error
                raise TaskError(f"D must be positive, got {int(self._D[k])}", field="D")
            if core < -1:  # -1 is "no core"; other negatives would read as None too
                raise TaskError(f"core must be a core index 0, 1, ... or -1 (none), got {core}", field="core")
            return SegmentedTask(
                cpu,
                gpu,
                int(self._T[k]),
                int(self._D[k]),
                None if core < 0 else core,
                _MODE_OF[int(self._mode[k])],  # type: ignore[arg-type]
            )
        except InputError as err:
            s = int(np.searchsorted(self._task_offsets, k, side="right") - 1)
            raise type(err)(err.message, set_index=s, task=k - int(self._task_offsets[s]), field=err.field) from None

    def _segment(self, j: int, number: int) -> GPUSegment:
        """GPU segment ``j`` of the arrays, the task's ``number``-th (its errors name ``segment number``)."""
        extra: tuple[Any, Any] = (None, None)
        if self._extras is not None:
            extra = (self._extras.profiles[j], self._extras.klasses[j])
        try:
            return GPUSegment(int(self._G_m[j]), int(self._G_e[j]), self._device_names[int(self._device[j])], *extra)
        except InputError as err:
            raise TaskError(err.message, field=f"segment {number} {err.field}") from None

    def _set(self, s: int) -> SegmentedTaskSet:
        out = super()._set(s)
        if self._extras is None:
            return out
        gpu = self._extras.gpus[s % self.n_sets]
        driver = self._extras.drivers[s % self.n_sets] if self._extras.drivers else None
        if driver is not None:
            out = out.with_driver(driver)
        try:
            return out if gpu is None else out.with_gpu(gpu)
        except InputError as err:
            raise err.located(set_index=s % self.n_sets) from None

    @property
    def extras(self) -> _Extras | None:
        """The sets' GPU descriptions and drivers, the segments' WCET profiles and classes (None: none has any)."""
        return self._extras

    def with_drivers(self, drivers: GPUDriver | None | Sequence[GPUDriver | None]) -> SegmentedBatch:
        """The batch with each set's :class:`~rtsched.segmented.model.GPUDriver` replaced (one for every set, or one per set)."""
        per_set = (drivers,) * self.n_sets if drivers is None or isinstance(drivers, GPUDriver) else tuple(drivers)
        if len(per_set) != self.n_sets or any(d is not None and not isinstance(d, GPUDriver) for d in per_set):
            raise InputError(f"drivers must be a GPUDriver, None, or one of them per set ({self.n_sets})")
        extras = self._extras or _Extras(
            (None,) * self.n_gpu_segments, (None,) * self.n_gpu_segments, (None,) * self.n_sets
        )
        return SegmentedBatch(
            *(getattr(self, "_" + a) for a in _ARRAYS),
            device_names=self._device_names,
            validate=False,
            extras=dataclasses.replace(extras, drivers=per_set),
        )

    def drivers(self) -> tuple[GPUDriver | None, ...]:
        """Each set's :class:`~rtsched.segmented.model.GPUDriver` (None where the set has none)."""
        if self._extras is None or not self._extras.drivers:
            return (None,) * self.n_sets
        return self._extras.drivers

    # -- constructors -------------------------------------------------------------------------
    @classmethod
    def from_tasksets(cls, sets: Iterable[SegmentedTaskSet]) -> SegmentedBatch:
        """Pack task sets into one batch (names are not kept; devices indexed in order of first use)."""
        sets = list(sets)
        tasks = [t for ts in sets for t in ts]
        names: dict[str, int] = {}
        for t in tasks:
            for g in t.gpu:
                names.setdefault(g.device, len(names))
        segs = [g for t in tasks for g in t.gpu]
        return cls(
            [c for t in tasks for c in t.cpu],
            [g.G_m for g in segs],
            [g.G_e for g in segs],
            [names[g.device] for g in segs],
            [t.T for t in tasks],
            [t.D for t in tasks],
            [-1 if t.core is None else t.core for t in tasks],
            [MODE_CODES[t.mode] for t in tasks],
            np.cumsum([0, *(t.eta for t in tasks)]),
            np.cumsum([0, *(ts.n for ts in sets)]),
            device_names=tuple(names) or (DEFAULT_DEVICE,),
            validate=False,
            extras=_Extras(
                tuple(g.profile for g in segs),
                tuple(g.klass for g in segs),
                tuple(ts.gpu for ts in sets),
                tuple(ts.driver for ts in sets),
            ),
        )

    @classmethod
    def concatenate(cls, batches: Iterable[SegmentedBatch]) -> SegmentedBatch:
        """The sets of ``batches``, in order, as one batch (device indices remapped by name)."""
        parts = list(batches)
        if not parts:
            return cls.from_tasksets([])
        names: dict[str, int] = {}
        for b in parts:
            for nm in b.device_names:
                names.setdefault(nm, len(names))
        task_offsets = [np.zeros(1, dtype=np.int64)]
        gpu_offsets = [np.zeros(1, dtype=np.int64)]
        devices = []
        tasks = gpus = 0
        for b in parts:
            task_offsets.append(b.task_offsets[1:] + tasks)
            gpu_offsets.append(b.gpu_offsets[1:] + gpus)
            remap = np.array([names[nm] for nm in b.device_names], dtype=np.int64)
            devices.append(remap[b.device] if b.device.shape[0] else b.device)
            tasks += b.n_tasks
            gpus += b.n_gpu_segments
        return cls(
            np.concatenate([b.cpu for b in parts]),
            np.concatenate([b.G_m for b in parts]),
            np.concatenate([b.G_e for b in parts]),
            np.concatenate(devices),
            np.concatenate([b.T for b in parts]),
            np.concatenate([b.D for b in parts]),
            np.concatenate([b.core for b in parts]),
            np.concatenate([b.mode for b in parts]),
            np.concatenate(gpu_offsets),
            np.concatenate(task_offsets),
            device_names=tuple(names),
            validate=False,
            extras=_Extras(
                tuple(x for b in parts for x in (b._extras.profiles if b._extras else (None,) * b.n_gpu_segments)),
                tuple(x for b in parts for x in (b._extras.klasses if b._extras else (None,) * b.n_gpu_segments)),
                tuple(x for b in parts for x in (b._extras.gpus if b._extras else (None,) * b.n_sets)),
                tuple(x for b in parts for x in b.drivers()),
            ),
        )

    # -- data ---------------------------------------------------------------------------------
    @property
    def cpu(self) -> NDArray[np.int64]:
        """Every CPU segment's WCET (task ``k``'s are ``cpu[gpu_offsets[k] + k : gpu_offsets[k + 1] + k + 1]``)."""
        return self._cpu

    @property
    def G_m(self) -> NDArray[np.int64]:
        """Every GPU segment's CPU-side part."""
        return self._G_m

    @property
    def G_e(self) -> NDArray[np.int64]:
        """Every GPU segment's GPU part."""
        return self._G_e

    @property
    def device(self) -> NDArray[np.int64]:
        """Every GPU segment's device, an index into :attr:`device_names`."""
        return self._device

    @property
    def device_names(self) -> tuple[str, ...]:
        """The device names the ``device`` indices refer to."""
        return self._device_names

    @property
    def core(self) -> NDArray[np.int64]:
        """Each task's core (``-1``: not assigned)."""
        return self._core

    @property
    def mode(self) -> NDArray[np.int8]:
        """Each task's waiting mode: 0 none, 1 busy, 2 suspend."""
        return self._mode

    @property
    def gpu_offsets(self) -> NDArray[np.int64]:
        """Task ``k``'s GPU segments are ``gpu_offsets[k]:gpu_offsets[k + 1]``."""
        return self._gpu_offsets

    @property
    def n_gpu_segments(self) -> int:
        """GPU segments over all tasks."""
        return int(self._G_m.shape[0])

    @property
    def C(self) -> NDArray[np.int64]:
        """Each task's Σ ``C_j``."""
        return self._totals["C"]

    @property
    def G_m_total(self) -> NDArray[np.int64]:
        """Each task's Σ ``G_{j,m}``."""
        return self._totals["G_m"]

    @property
    def G_e_total(self) -> NDArray[np.int64]:
        """Each task's Σ ``G_{j,e}``."""
        return self._totals["G_e"]

    @property
    def eta(self) -> NDArray[np.int64]:
        """Each task's number of GPU segments."""
        return self._totals["eta"]

    def taskset(self, s: int) -> SegmentedTaskSet:
        """Set ``s`` as a :class:`SegmentedTaskSet`."""
        return self._set(s)

    def tasksets(self) -> list[SegmentedTaskSet]:
        """Every set, in order."""
        return [self.taskset(s) for s in range(self.n_sets)]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SegmentedBatch):
            return NotImplemented
        return (
            self._device_names == other._device_names
            and self._extras == other._extras
            and all(np.array_equal(getattr(self, "_" + a), getattr(other, "_" + a)) for a in _ARRAYS)
        )

    __hash__ = None  # type: ignore[assignment]

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"SegmentedBatch is immutable (cannot set {name!r})")

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild_batch, (tuple(getattr(self, "_" + a) for a in _ARRAYS), self._device_names, self._extras))

    def __repr__(self) -> str:
        return f"SegmentedBatch(n_sets={self.n_sets}, tasks={self.n_tasks}, gpu_segments={self.n_gpu_segments})"


def _rebuild_batch(arrays: Any, device_names: Any, extras: Any = None) -> SegmentedBatch:
    return SegmentedBatch(*arrays, device_names=device_names, validate=False, extras=extras)
