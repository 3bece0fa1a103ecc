"""Random CPU–GPU segmented task sets, seeded (issue #43); the rules are in ``papers/cpu-gpu-generators.md``.

The setup of the general schedulability experiment of Wang, Liu, Wong and Kim, "GCAPS: GPU
context-aware preemptive priority-based scheduling for real-time tasks", ECRTS 2024 (Section 7,
Figure 8; the parameters as issue #43 states them and as the paper's public scripts draw them):
``m = 4`` CPUs, 3–6 tasks per CPU, 40–60 % of the tasks use the GPU, periods in 30–500 ms,
per-CPU utilization 0.4–0.6 split over the CPU's tasks by UUniFast, 1–3 GPU segments per GPU
task, GPU/CPU time ratio ``G/C`` in 0.2–2, copy share ``G_m/G`` in 0.1–0.3, rate-monotonic
priorities, each task on the CPU it was drawn for. rtsched's times are integer ticks, so the
times are rounded by the rules of :func:`segmented_tasksets`, and the realized utilization is
reported (:func:`per_cpu_utilization`).

Every function draws only from the :class:`numpy.random.Generator` it is given; set ``s`` of a
call draws from the child generator ``rng.spawn(size)[s]`` (as :mod:`rtsched.generators.mc`), so
the first sets do not depend on ``size``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from rtsched.errors import InputError
from rtsched.generators.periods import PeriodDistribution, parse_periods
from rtsched.generators.utilizations import uunifast
from rtsched.model import MAX_TIME

if TYPE_CHECKING:
    from rtsched.segmented.model import SegmentedBatch, SegmentedTaskSet

__all__ = [
    "SEGMENTED_DEADLINES",
    "GPU_DESCRIPTION_DEFAULTS",
    "SEGMENTED_DEFAULTS",
    "SEGMENTED_DEVICE_ASSIGNMENTS",
    "SEGMENTED_OPTIONAL",
    "apportion",
    "amdahl_profile",
    "driver_ticks",
    "per_cpu_utilization",
    "segmented_batch",
    "segmented_tasksets",
]

#: Deadline models of :func:`segmented_tasksets` (``deadlines=``).
SEGMENTED_DEADLINES = ("implicit", "constrained")
#: How GPU segments are given devices when ``devices`` names several (``device_assignment=``).
SEGMENTED_DEVICE_ASSIGNMENTS = ("round-robin", "random")
#: The GCAPS experiment's setup (ECRTS 2024, Figure 8; issue #43 item 4), the defaults of
#: :func:`segmented_tasksets`. Periods are in milliseconds, times ``ticks`` ticks per ms.
SEGMENTED_DEFAULTS: dict[str, Any] = {
    "m": 4,
    "tasks_per_cpu": (3, 6),
    "utilization": (0.4, 0.6),
    "gpu_tasks": (0.4, 0.6),
    "periods": "uniform:30:500",
    "ticks": 10,
    "gpu_segments": (1, 3),
    "gpu_ratio": (0.2, 2.0),
    "copy_share": (0.1, 0.3),
    "devices": ("gpu",),
    "device_assignment": "round-robin",
    "deadlines": "implicit",
    "mode": None,
}
#: Optional parameters of :func:`segmented_tasksets`, kept out of :data:`SEGMENTED_DEFAULTS` (whose
#: keys the sweep kind freezes): the GPU driver every set carries (step 9) and the partitionable
#: GPU description (step 10: ``gpu_clusters``, ``gpu_layout``, ``parallel``, ``slowdown_step``),
#: none by default.
SEGMENTED_OPTIONAL: dict[str, Any] = {
    "epsilon_ms": None,
    "time_slice_ms": None,
    "gpu_clusters": None,
    "gpu_layout": None,
    "parallel": None,
    "slowdown_step": None,
}
#: Step 10's defaults when ``gpu_clusters`` is given: the layout space, the parallel fraction p of
#: a segment's kernel (Amdahl) and the slowdown step a (f(k) = 1 + a·k).
GPU_DESCRIPTION_DEFAULTS: dict[str, Any] = {"gpu_layout": "free", "parallel": (0.5, 1.0), "slowdown_step": (0.05, 0.2)}


def _round_half_up(x: Fraction) -> int:
    return (2 * x.numerator + x.denominator) // (2 * x.denominator)


def apportion(total: int, weights: Sequence[float]) -> list[int]:
    """``total`` split into non-negative integers in proportion to ``weights`` (largest remainders).

    Each part is ``floor(total·w_i/Σw)`` plus one for the ``total - Σ floors`` parts with the
    largest remainders (ties: the first). Exact: the floats are taken as their rational values.
    Equal weights of zero sum split evenly.

    Examples
    --------
    >>> apportion(10, [0.5, 0.3, 0.2]), apportion(7, [1, 1, 1]), apportion(0, [0.2, 0.8])
    ([5, 3, 2], [3, 2, 2], [0, 0])
    """
    exact = [Fraction(w) for w in weights]
    whole = sum(exact)
    if whole <= 0:
        exact, whole = [Fraction(1)] * len(exact), Fraction(len(exact))
    shares = [total * w / whole for w in exact]
    parts = [math.floor(x) for x in shares]
    left = total - sum(parts)
    order = sorted(range(len(parts)), key=lambda i: (-(shares[i] - parts[i]), i))
    for i in order[:left]:
        parts[i] += 1
    return parts


# -- parameter checks ---------------------------------------------------------------------------


def _decimal(value: object, name: str, *, positive: bool) -> Fraction:
    """A finite number of milliseconds, as the decimal it is written as (a float's shortest repr)."""
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        raise InputError(f"{name} must be a number of milliseconds, got {value!r}", field=name)
    if not math.isfinite(float(value)):
        raise InputError(f"{name} must be finite, got {value!r}", field=name)
    x = Fraction(int(value)) if isinstance(value, int | np.integer) else Fraction(repr(float(value)))
    if x < 0 or (positive and x == 0):
        raise InputError(f"{name} must be {'positive' if positive else 'non-negative'}, got {value!r}", field=name)
    return x


def driver_ticks(epsilon_ms: object, time_slice_ms: object, ticks: int) -> tuple[int | None, int | None]:
    """ε and L in ticks from milliseconds (None: not given), the rules of :func:`segmented_tasksets`.

    ``ε = ⌈epsilon_ms·ticks⌉`` (rounded up: never less than the cost given), ``L =
    round(time_slice_ms·ticks)`` (to nearest, halves up; at least 1 tick, else an error), both
    exact from the decimal value as written (a float's shortest repr: 1.024 is 1024/1000).

    Examples
    --------
    >>> driver_ticks(1, 1.024, 10), driver_ticks(0.2, None, 10), driver_ticks(0.01, 0.05, 10)
    ((10, 10), (2, None), (1, 1))
    """
    eps = None if epsilon_ms is None else math.ceil(_decimal(epsilon_ms, "epsilon_ms", positive=False) * ticks)
    L = None
    if time_slice_ms is not None:
        exact = _decimal(time_slice_ms, "time_slice_ms", positive=True) * ticks
        L = _round_half_up(exact)
        if L < 1:
            raise InputError(
                f"time_slice_ms = {time_slice_ms} ms is {float(exact):g} ticks at ticks = {ticks} per ms, "
                "less than half a tick; raise ticks",
                field="time_slice_ms",
            )
    return eps, L


def _driver(epsilon_ms: object, time_slice_ms: object, ticks: int) -> Any:
    """The GPUDriver every drawn set carries (None when neither value is given)."""
    from rtsched.segmented.model import GPUDriver

    eps, L = driver_ticks(epsilon_ms, time_slice_ms, ticks)
    if eps is None and L is None:
        return None
    try:
        return GPUDriver(epsilon=0 if eps is None else eps, time_slice=L)
    except InputError as err:  # beyond MAX_TIME
        field = "epsilon_ms" if "epsilon" in (err.field or "") else "time_slice_ms"
        raise InputError(err.message, field=field) from None


def _number(value: object, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        raise InputError(f"{name} must be a number or a range [lo, hi], got {value!r}", field=name)
    x = float(value)
    if not math.isfinite(x):
        raise InputError(f"{name} must be finite, got {value!r}", field=name)
    return x


def _range(value: object, name: str, low: float, high: float | None, *, open_low: bool = False) -> tuple[float, float]:
    """A number ``x`` (read as ``[x, x]``) or a range ``[lo, hi]`` inside ``[low, high]`` (``(low, ..`` if ``open_low``)."""
    if isinstance(value, list | tuple):
        if len(value) != 2:
            raise InputError(f"{name} must be a number or a range [lo, hi], got {list(value)!r}", field=name)
        lo, hi = _number(value[0], name), _number(value[1], name)
    else:
        lo = hi = _number(value, name)
    bad_low = lo < low or (open_low and lo == low)
    if bad_low or (high is not None and hi > high) or lo > hi:
        bounds = (
            f"{'(' if open_low else '['}{low}, {high if high is not None else 'inf'}{']' if high is not None else ')'}"
        )
        raise InputError(f"{name} must be in {bounds} with lo <= hi, got {value!r}", field=name)
    return lo, hi


def _int_range(value: object, name: str, low: int) -> tuple[int, int]:
    """An integer ``k`` (read as ``[k, k]``) or an integer range ``[lo, hi]`` with ``low <= lo <= hi``."""
    items = list(value) if isinstance(value, list | tuple) else [value, value]
    ints = [int(v) for v in items if not isinstance(v, bool) and isinstance(v, int | np.integer)]
    if len(ints) != 2 or len(items) != 2 or min(ints) < low or ints[0] > ints[1]:
        raise InputError(
            f"{name} must be an integer >= {low} or a range [lo, hi] of such integers, got {value!r}", field=name
        )
    return ints[0], ints[1]


def _int(value: object, name: str, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or int(value) < low:
        raise InputError(f"{name} must be an integer >= {low}, got {value!r}", field=name)
    return int(value)


def _choice(value: object, allowed: tuple[str, ...], name: str, what: str) -> str:
    if value not in allowed:
        raise InputError(f"unknown {what} {value!r}; choose one of {', '.join(allowed)}", field=name)
    return str(value)


class _Spec:
    """The checked parameters of one call."""

    def __init__(self, **p: Any) -> None:
        from rtsched.segmented.model import MODES, GPUSegment

        known = SEGMENTED_DEFAULTS | SEGMENTED_OPTIONAL
        unknown = sorted(set(p) - set(known))
        if unknown:
            raise InputError(
                f"unknown parameter {unknown[0]!r} of the segmented generator; known: {', '.join(known)}",
                field=unknown[0],
            )
        p = known | p
        self.m = _int(p["m"], "m", 1)
        self.tasks_per_cpu = _int_range(p["tasks_per_cpu"], "tasks_per_cpu", 1)
        self.utilization = _range(p["utilization"], "utilization", 0.0, 1.0, open_low=True)
        self.gpu_tasks = _range(p["gpu_tasks"], "gpu_tasks", 0.0, 1.0)
        self.gpu_segments = _int_range(p["gpu_segments"], "gpu_segments", 1)
        self.gpu_ratio = _range(p["gpu_ratio"], "gpu_ratio", 0.0, None, open_low=True)
        self.copy_share = _range(p["copy_share"], "copy_share", 0.0, 1.0)
        self.ticks = _int(p["ticks"], "ticks", 1)
        self.deadlines = _choice(p["deadlines"], SEGMENTED_DEADLINES, "deadlines", "deadline model")
        self.device_assignment = _choice(
            p["device_assignment"], SEGMENTED_DEVICE_ASSIGNMENTS, "device_assignment", "device assignment"
        )
        if p["mode"] is not None and p["mode"] not in MODES:
            raise InputError(f"mode must be busy, suspend or None, got {p['mode']!r}", field="mode")
        self.mode = p["mode"]
        self.driver = _driver(p["epsilon_ms"], p["time_slice_ms"], self.ticks)
        self.gpu_clusters: int | None = None
        gpu_keys = ("gpu_layout", "parallel", "slowdown_step")
        if p["gpu_clusters"] is None:
            given = [k for k in gpu_keys if p[k] is not None]
            if given:
                raise InputError(f"{given[0]} needs gpu_clusters (the GPU's number of clusters M)", field=given[0])
        else:
            from rtsched.gpu.layouts import layout_space

            self.gpu_clusters = _int(p["gpu_clusters"], "gpu_clusters", 1)
            g = {k: GPU_DESCRIPTION_DEFAULTS[k] if p[k] is None else p[k] for k in gpu_keys}
            if not isinstance(g["gpu_layout"], str):
                raise InputError(
                    f"gpu_layout must be a layout space such as free, got {g['gpu_layout']!r}", field="gpu_layout"
                )
            try:
                layout_space(g["gpu_layout"], self.gpu_clusters)
            except InputError as err:
                raise InputError(err.message, field="gpu_layout") from None
            self.gpu_layout = g["gpu_layout"]
            self.parallel = _range(g["parallel"], "parallel", 0.0, 1.0)
            self.slowdown_step = _range(g["slowdown_step"], "slowdown_step", 0.0, None)
        devices = p["devices"]
        if isinstance(devices, str):
            devices = (devices,)
        if not isinstance(devices, list | tuple) or not devices or len(set(devices)) != len(devices):
            raise InputError(
                f"devices must be a non-empty list of distinct device names, got {devices!r}", field="devices"
            )
        for d in devices:
            try:
                GPUSegment(1, 1, d)
            except InputError as err:
                raise InputError(err.message, field="devices") from None
        self.devices = tuple(devices)
        try:
            self.periods: PeriodDistribution = parse_periods(p["periods"])
        except InputError as err:
            raise InputError(err.message, field="periods") from None
        longest = int(getattr(self.periods, "high", None) or max(getattr(self.periods, "values", (1,))))
        if longest * self.ticks > MAX_TIME:
            raise InputError(
                f"periods up to {longest} ms times ticks = {self.ticks} exceed {MAX_TIME} ticks; lower ticks",
                field="ticks",
            )


def _uniform(rng: np.random.Generator, lo: float, hi: float) -> float:
    """A uniform draw in ``[lo, hi]``; no draw when ``lo == hi`` (a fixed value)."""
    return lo if lo == hi else float(rng.uniform(lo, hi))


def _integer(rng: np.random.Generator, lo: int, hi: int) -> int:
    return lo if lo == hi else int(rng.integers(lo, hi, endpoint=True))


def _simplex(rng: np.random.Generator, k: int) -> list[float]:
    """``k`` weights uniform on the simplex (UUniFast of total 1); no draw for ``k = 1``."""
    return [1.0] if k == 1 else [float(x) for x in uunifast(rng, k, 1.0, 1)[0]]


_Row = tuple[list[int], list[tuple[int, int, int]], int, int, int]  # cpu, gpu (G_m, G_e, device), T, D, core


def _task(rng: np.random.Generator, spec: _Spec, u: float, T: int, core: int, gpu: bool) -> _Row:
    """One task's segments (rules 4-6 of :func:`segmented_tasksets`); devices are filled in later (-1)."""
    u_num, u_den = u.as_integer_ratio()
    work = (2 * u_num * T + u_den) // (2 * u_den)  # round_half_up(u·T), exactly
    if not gpu:
        return [max(1, work)], [], T, T, core
    ratio = _uniform(rng, *spec.gpu_ratio)
    eta = _integer(rng, *spec.gpu_segments)
    work = max(work, eta)
    g_total = max(eta, work - _round_half_up(Fraction(work) / (1 + Fraction(ratio))))
    c_total = work - g_total
    g_parts = [g + 1 for g in apportion(g_total - eta, _simplex(rng, eta))]
    segments = []
    for g in g_parts:
        share = _uniform(rng, *spec.copy_share)
        G_m = min(g - 1, _round_half_up(Fraction(share) * g))
        segments.append((G_m, g - G_m, -1))
    cpu = apportion(c_total, _simplex(rng, eta + 1))
    if work > T:
        raise InputError(f"{eta} GPU segments need {eta} ticks, more than the period T = {T}", field="gpu_segments")
    return cpu, segments, T, T, core


def _draw_set(rng: np.random.Generator, spec: _Spec) -> list[_Row]:
    """One set's rows in priority order (the rules of :func:`segmented_tasksets`)."""
    per_cpu: list[tuple[int, list[float]]] = []
    for core in range(spec.m):
        n = _integer(rng, *spec.tasks_per_cpu)
        total = _uniform(rng, *spec.utilization)
        per_cpu.append((core, [total] if n == 1 else [float(x) for x in uunifast(rng, n, total, 1)[0]]))
    owners = [(core, u) for core, shares in per_cpu for u in shares]
    N = len(owners)
    fraction = _uniform(rng, *spec.gpu_tasks)
    k = _round_half_up(Fraction(fraction) * N)
    gpu_set = set(rng.choice(N, size=k, replace=False).tolist()) if 0 < k < N else set(range(N)) if k else set()
    periods = (spec.periods.draw(rng, N) * spec.ticks).tolist()
    rows = [
        _task(rng, spec, u, int(T), core, i in gpu_set)
        for i, ((core, u), T) in enumerate(zip(owners, periods, strict=True))
    ]
    order = sorted(range(N), key=lambda i: rows[i][2])  # rate monotonic, stable
    rows = [rows[i] for i in order]
    n_devices = len(spec.devices)
    q = 0
    for _cpu, gpu, *_ in rows:
        for j, (G_m, G_e, _) in enumerate(gpu):
            d = q % n_devices if spec.device_assignment == "round-robin" else int(rng.integers(n_devices))
            gpu[j] = (G_m, G_e, d)
            q += 1
    if spec.deadlines == "constrained":
        rows = [
            (cpu, gpu, T, int(rng.integers(sum(cpu) + sum(a + b for a, b, _ in gpu), T, endpoint=True)), core)
            for cpu, gpu, T, _, core in rows
        ]
    return rows


def _rows(rng: np.random.Generator, size: object, parameters: dict[str, Any]) -> tuple[_Spec, list[list[_Row]]]:
    spec, sets, _ = _drawn(rng, size, parameters)
    return spec, sets


def _hundredths(x: float) -> Fraction:
    """``x`` rounded to the nearest hundredth (halves up), exactly from the float."""
    return Fraction(_round_half_up(Fraction(x) * 100), 100)


def amdahl_profile(G_e: int, p: Fraction, M: int) -> tuple[int, ...]:
    """Step 10's WCET profile C(1), …, C(M): ``C(s) = ⌈G_e·((1 − p) + p·M/s)⌉`` exactly; ``C(M) = G_e``.

    Amdahl's law scaled from the whole GPU: a fraction ``p`` of the kernel's work spreads over the
    clusters, the rest does not; non-increasing in s (A1 of the GPU note).

    Examples
    --------
    >>> amdahl_profile(10, Fraction(1, 2), 4)
    (25, 15, 12, 10)
    >>> amdahl_profile(7, Fraction(0), 3), amdahl_profile(3, Fraction(1), 2)
    ((7, 7, 7), (6, 3))
    """
    out = []
    for s in range(1, M + 1):
        x = G_e * ((1 - p) + p * Fraction(M, s))
        out.append(-(-x.numerator // x.denominator))
    return tuple(out)


#: Step 10's description of one set: M, layout, the slowdown step a, the profile of each GPU
#: segment on the first device (priority order, segment order; None on other devices).
_GPUDraw = tuple[int, str, Fraction, list[list[tuple[int, ...] | None]]]


def _draw_gpu(rng: np.random.Generator, spec: _Spec, rows: list[_Row]) -> _GPUDraw:
    """Step 10 from the set's own GPU stream: a, then p per segment on the first device."""
    assert spec.gpu_clusters is not None
    M = spec.gpu_clusters
    a = _hundredths(_uniform(rng, *spec.slowdown_step))
    profiles: list[list[tuple[int, ...] | None]] = []
    for _cpu, gpu, *_ in rows:
        one: list[tuple[int, ...] | None] = []
        for _G_m, G_e, d in gpu:
            if d != 0:
                one.append(None)
                continue
            p = _hundredths(_uniform(rng, *spec.parallel))
            one.append(amdahl_profile(G_e, p, M))
        profiles.append(one)
    return M, spec.gpu_layout, a, profiles


def _drawn(
    rng: np.random.Generator, size: object, parameters: dict[str, Any]
) -> tuple[_Spec, list[list[_Row]], list[_GPUDraw | None]]:
    """The rows of every set and, with ``gpu_clusters``, step 10 from each set's own stream.

    Set ``s`` draws its rows from ``child = rng.spawn(size)[s]`` as before and its GPU description
    from ``child.spawn(1)[0]``, a stream of its own (spawning leaves ``child``'s state as it is): the
    rows are those drawn without the option.
    """
    count = _int(size, "size", 0)
    spec = _Spec(**parameters)
    sets: list[list[_Row]] = []
    gpus: list[_GPUDraw | None] = []
    for child in rng.spawn(count):
        rows = _draw_set(child, spec)
        sets.append(rows)
        gpus.append(None if spec.gpu_clusters is None else _draw_gpu(child.spawn(1)[0], spec, rows))
    return spec, sets, gpus


def _description(draw: _GPUDraw, device: str) -> Any:
    """The :class:`~rtsched.segmented.GPUDescription` of step 10 (count-only slowdown row f(k) = 1 + a·k).

    The row covers k = 1..M − 1, every count of other partitions a layout of M clusters can have
    (nothing beyond it: the files write tables without a value beyond).
    """
    from rtsched.gpu import Slowdown
    from rtsched.segmented.model import GPUDescription

    M, layout, a, _ = draw
    row = tuple(1 + a * k for k in range(1, M))
    return GPUDescription(M, Slowdown(row), layout=layout, device=device, interference="count-only")


def segmented_tasksets(rng: np.random.Generator, size: int, **parameters: Any) -> list[SegmentedTaskSet]:
    """Draw ``size`` CPU–GPU segmented task sets after the GCAPS experiment (ECRTS 2024, Figure 8).

    Per set ``s``, everything is drawn from the child generator ``rng.spawn(size)[s]``, in order:

    1. for each CPU ``c = 0..m-1``: its number of tasks ``n_c`` uniform on the integers of
       ``tasks_per_cpu``; its utilization ``U_c`` uniform in ``utilization`` (no draw for a
       number); the tasks' utilizations ``u_i`` by UUniFast summing to ``U_c`` (Bini & Buttazzo
       2005). A task's utilization is ``(C + G_m + G_e)/T``, all its work over its period;
    2. the GPU-using tasks: a fraction ``f`` uniform in ``gpu_tasks``, then ``round(f·N)`` of the
       ``N = Σ n_c`` tasks chosen uniformly without replacement (so 40–60 % of every set's tasks
       use the GPU, up to rounding);
    3. the periods: ``N`` draws (in ms) from ``periods`` (default ``uniform:30:500``: integer ms
       uniform in 30..500, as the GCAPS scripts draw them, not log-uniform), times ``ticks``;
    4. the task's work ``W = round(u_i·T)`` ticks (``round``: to nearest, halves up, exactly from
       the float ``u_i``), at least 1 tick (a CPU-only task is the one segment ``C_1 = W``);
    5. a GPU task: the ratio ``r = G/C`` uniform in ``gpu_ratio``; ``η`` uniform on the integers
       of ``gpu_segments``; ``W`` raised to ``η`` if below; ``G = max(η, W - round(W/(1+r)))``,
       ``C = W - G``; ``G`` split over the ``η`` segments as ``G_j = 1 + a_j`` with the ``a_j``
       the largest-remainder apportionment (:func:`apportion`) of ``G - η`` by weights uniform
       on the simplex; per segment a copy share ``s_j`` uniform in ``copy_share``,
       ``G_m,j = min(G_j - 1, round(s_j·G_j))``, ``G_e,j = G_j - G_m,j >= 1``; ``C`` apportioned
       over the ``η + 1`` CPU segments by weights uniform on the simplex (zeros possible);
    6. priorities: the tasks sorted by ``T`` (rate monotonic; stable, ties keep the order of
       steps 1-2: CPU by CPU); each task's ``core`` is the CPU it was drawn for;
    7. devices: the GPU segments, in priority order then segment order, get ``devices``
       round-robin (``device_assignment="round-robin"``, no draw) or each one uniformly at random
       (``"random"``, one draw per segment); by default every segment is on ``gpu``;
    8. deadlines: ``D = T`` (``implicit``) or ``D`` uniform on the integers of ``[W, T]``
       (``constrained``, one draw per task after steps 1-7, so both models give the same tasks).
       ``mode``: every task's waiting mode (``None``: none, the analysis chooses).
    9. the GPU driver (no draw): with ``epsilon_ms`` or ``time_slice_ms`` given, every set carries
       ``GPUDriver(ε, L)`` (:func:`driver_ticks`: ``ε = ⌈epsilon_ms·ticks⌉``, rounded up, 0 if
       only the slice is given; ``L = round(time_slice_ms·ticks)``, halves up, at least 1, None
       if not given), which the ``seg-gcaps-*``/``seg-tsg-*`` analyses and the simulator use;
       without them (the default) the sets have no driver.
    10. the GPU description (only with ``gpu_clusters`` M; from the set's own stream
        ``child.spawn(1)[0]``, so the draws of steps 1-8 are those without it): a slowdown step
        ``a`` uniform in ``slowdown_step`` (default 0.05–0.2), rounded to hundredths, gives the
        count-only row ``f(k) = 1 + a·k`` for k = 1..M−1; then for each GPU segment on the first
        of ``devices`` (priority order, segment order) a parallel fraction ``p`` uniform in
        ``parallel`` (default 0.5–1.0), rounded to hundredths, gives the profile
        ``C(s) = ⌈G_e·((1 − p) + p·M/s)⌉``, s = 1..M (:func:`amdahl_profile`; ``C(M) = G_e``: G_e
        stays the whole-GPU WCET, so the other analyses read the set as without it); the set
        carries ``GPUDescription(M, f, layout=gpu_layout (default free), device=devices[0],
        interference="count-only")``, for the ``seg-*-part`` analyses
        (papers/cpu-gpu-partitions.md).

    Parameters
    ----------
    rng:
        The only source of randomness (it must have a seed sequence, as ``default_rng`` gives).
    size:
        Number of sets.
    **parameters:
        ``m`` (CPUs, 4), ``tasks_per_cpu`` (an integer or ``[lo, hi]``, ``(3, 6)``),
        ``utilization`` (per-CPU utilization, a number in (0, 1] or a range, ``(0.4, 0.6)``),
        ``gpu_tasks`` (fraction of GPU tasks, ``(0.4, 0.6)``), ``periods`` (a period spec of
        :func:`rtsched.generators.parse_periods`, in ms, ``"uniform:30:500"``), ``ticks`` (ticks
        per ms, 10: periods of 300..5000 ticks), ``gpu_segments`` (``(1, 3)``), ``gpu_ratio``
        (``G/C``, ``(0.2, 2.0)``), ``copy_share`` (``G_m/G`` per segment, ``(0.1, 0.3)``),
        ``devices`` (``("gpu",)``), ``device_assignment``, ``deadlines`` (``"implicit"``),
        ``mode`` (``None``), ``epsilon_ms`` and ``time_slice_ms`` (``None``: no driver; step 9),
        ``gpu_clusters``, ``gpu_layout``, ``parallel``, ``slowdown_step`` (``None``: no GPU
        description; step 10): :data:`SEGMENTED_DEFAULTS` and :data:`SEGMENTED_OPTIONAL`. A range may be given as a number (fixed).

    Returns
    -------
    list of SegmentedTaskSet
        ``size`` sets, tasks in priority order, every task on its core.

    Raises
    ------
    InputError
        For an unknown or bad parameter (one line naming it as the field).
    """
    from rtsched.gpu import TableWCET
    from rtsched.segmented.model import GPUSegment, SegmentedTask, SegmentedTaskSet

    spec, sets, gpus = _drawn(rng, size, parameters)
    out = []
    for rows, draw in zip(sets, gpus, strict=True):
        profiles: list[list[tuple[int, ...] | None]] = (
            draw[3] if draw is not None else [[None] * len(r[1]) for r in rows]
        )
        out.append(
            SegmentedTaskSet(
                (
                    SegmentedTask(
                        tuple(cpu),
                        tuple(
                            GPUSegment(a, b, spec.devices[d], None if c is None else TableWCET(c))
                            for (a, b, d), c in zip(gpu, prof, strict=True)
                        ),
                        T,
                        D,
                        core,
                        spec.mode,
                    )
                    for (cpu, gpu, T, D, core), prof in zip(rows, profiles, strict=True)
                ),
                driver=spec.driver,
                gpu=None if draw is None else _description(draw, spec.devices[0]),
            )
        )
    return out


def segmented_batch(rng: np.random.Generator, size: int, **parameters: Any) -> SegmentedBatch:
    """The sets of :func:`segmented_tasksets` (same arguments, same draws) as one :class:`~rtsched.segmented.SegmentedBatch`.

    Built from the drawn rows without a task object per task (valid by construction: every
    segment non-negative, every GPU segment with ``G_e >= 1``, ``1 <= W <= D <= T``), so
    ``batch.tasksets()`` equals ``segmented_tasksets(rng, ...)`` for a generator in the same state.
    Its ``device_names`` are ``devices`` (all of them, in order). With ``gpu_clusters`` (step 10)
    the sets are drawn as objects and packed (:meth:`~rtsched.segmented.SegmentedBatch.from_tasksets`:
    profiles and descriptions in its extras; devices in order of first use).
    """
    from rtsched.segmented.model import MODE_CODES, SegmentedBatch

    if parameters.get("gpu_clusters") is not None:
        # profiles and descriptions ride beside the arrays (SegmentedBatch.extras): pack the sets
        return SegmentedBatch.from_tasksets(segmented_tasksets(rng, size, **parameters))
    spec, sets = _rows(rng, size, parameters)
    rows = [row for one in sets for row in one]
    cpu = [c for r in rows for c in r[0]]
    gpu = [g for r in rows for g in r[1]]
    batch = SegmentedBatch(
        cpu,
        [g[0] for g in gpu],
        [g[1] for g in gpu],
        [g[2] for g in gpu],
        [r[2] for r in rows],
        [r[3] for r in rows],
        [r[4] for r in rows],
        [MODE_CODES[spec.mode]] * len(rows),
        np.cumsum([0, *(len(r[1]) for r in rows)]),
        np.cumsum([0, *(len(one) for one in sets)]),
        device_names=spec.devices,
        validate=False,
    )
    return batch if spec.driver is None else batch.with_drivers(spec.driver)


def per_cpu_utilization(batch: SegmentedBatch, m: int) -> NDArray[np.float64]:
    """The realized utilization ``Σ (C + G_m + G_e)/T`` of each CPU ``0..m-1`` of each set: shape ``(n_sets, m)``.

    Tasks without a core (``-1``) or on a core ``>= m`` are not counted. The mean over the CPUs
    is what the sweep plots against the target per-CPU utilization.
    """
    work = (batch.C + batch.G_m_total + batch.G_e_total) / batch.T
    sets = np.repeat(np.arange(batch.n_sets), np.diff(batch.task_offsets))
    out = np.zeros((batch.n_sets, m))
    ok = (batch.core >= 0) & (batch.core < m)
    np.add.at(out, (sets[ok], batch.core[ok]), work[ok])
    return out
