"""Random dual-criticality task sets, seeded (issue #44); see ``papers/mc-model.md``.

The setup of the evaluation of Baruah, Burns and Davis, "Response-time analysis for mixed
criticality systems", RTSS 2011 (Section VII): per-task utilizations by UUniFast summing to the
target (the LO-mode utilization of all tasks, ``U_LL + U_HL``), periods log-uniform in
``[10, 1000]``, implicit deadlines, each task HI with probability ``CP`` and ``C(HI) = CF·C(LO)``
for a HI task. rtsched's times are integers, so the WCETs are rounded by the rules of
:func:`mc_tasksets`; a constrained-deadline option is added.

The building blocks are rtsched's own: :func:`rtsched.generators.uunifast` (and the other
samplers of :mod:`rtsched.generators.utilizations`) and :func:`rtsched.generators.parse_periods`.
Every function draws only from the :class:`numpy.random.Generator` it is given.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import TYPE_CHECKING

import numpy as np

from rtsched.errors import InputError
from rtsched.generators.periods import PeriodDistribution, parse_periods
from rtsched.generators.utilizations import randfixedsum, uunifast, uunifast_discard
from rtsched.model import MAX_TIME

if TYPE_CHECKING:
    from rtsched.mc.model import MCBatch, MCTaskSet

__all__ = [
    "MC_DEADLINES",
    "MC_DEFAULT_PERIODS",
    "MC_PRIORITY_ORDERS",
    "MC_UTILIZATION_METHODS",
    "mc_batch",
    "mc_tasksets",
    "round_half_up",
]

#: Deadline models accepted by :func:`mc_tasksets` (``deadlines=``).
MC_DEADLINES = ("implicit", "constrained")
#: Utilization samplers accepted by :func:`mc_tasksets` (``utilizations=``).
MC_UTILIZATION_METHODS = ("uunifast", "uunifast-discard", "randfixedsum")
#: Orders of the tasks in a generated set (their fixed priorities, index 0 highest).
MC_PRIORITY_ORDERS = ("drawn", "deadline-monotonic")
#: The periods of Baruah, Burns and Davis (RTSS 2011): log-uniform on 10..1000.
MC_DEFAULT_PERIODS = "log-uniform:10:1000"


def round_half_up(x: Fraction) -> int:
    """``floor(x + 1/2)``, exactly: the nearest integer, halves rounded up.

    Examples
    --------
    >>> round_half_up(Fraction(5, 2)), round_half_up(Fraction(12, 5)), round_half_up(Fraction(13, 5))
    (3, 2, 3)
    """
    return (2 * x.numerator + x.denominator) // (2 * x.denominator)


def _int(value: object, name: str, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or int(value) < low:
        raise InputError(f"{name} must be an integer >= {low}, got {value!r}", field=name)
    return int(value)


def _real(value: object, name: str, low: float, high: float | None = None, *, open_low: bool = False) -> float:
    bad = isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating)
    if not bad:
        x = float(value)  # type: ignore[arg-type]
        bad = not math.isfinite(x) or x < low or (open_low and x == low) or (high is not None and x > high)
    if bad:
        where = f"in ({low}, {high}]" if open_low else f"in [{low}, {high}]" if high is not None else f">= {low}"
        raise InputError(f"{name} must be a number {where}, got {value!r}", field=name)
    return float(value)  # type: ignore[arg-type]


def _choice(value: str, allowed: tuple[str, ...], name: str) -> str:
    if value not in allowed:
        raise InputError(f"unknown {name} {value!r}; choose one of {', '.join(allowed)}", field=name)
    return value


def _utilizations(rng: np.random.Generator, method: str, n: int, total: float, umax: float) -> list[float]:
    if method == "uunifast":
        row = uunifast(rng, n, total, 1)
    elif method == "uunifast-discard":
        row = uunifast_discard(rng, n, total, 1, umax)
    else:
        row = randfixedsum(rng, n, total, 1, 0.0, umax)
    return [float(u) for u in row[0]]


def _draw_set(
    rng: np.random.Generator,
    n: int,
    total: float,
    cp: float,
    cf: Fraction,
    period_distribution: PeriodDistribution,
    utilizations: str,
    deadlines: str,
    umax: float,
    ticks: int,
) -> list[tuple[int, int, int, int, int]] | None:
    """One set's rows ``(level, C_lo, C_hi, T, D)``, or ``None`` if some WCET exceeds its period (redraw)."""
    shares = _utilizations(rng, utilizations, n, total, umax)
    periods = period_distribution.draw(rng, n) * ticks
    hi = rng.random(n) < cp
    cf_num, cf_den = cf.numerator, cf.denominator
    rows = []
    for u, T, is_hi in zip(shares, periods.tolist(), hi.tolist(), strict=True):
        # round_half_up(Fraction(u) * T) and round_half_up(cf * C_lo), in integers (the same values)
        u_num, u_den = u.as_integer_ratio()
        C_lo = max(1, (2 * u_num * T + u_den) // (2 * u_den))
        C_hi = (2 * cf_num * C_lo + cf_den) // (2 * cf_den) if is_hi else C_lo
        if C_hi > T:
            return None
        rows.append((int(is_hi), C_lo, C_hi, T, T))
    if deadlines == "constrained":
        # drawn after the whole set is accepted, so that implicit and constrained sets of one seed
        # have the same WCETs, periods and criticalities
        rows = [(lv, lo, hi_, T, int(rng.integers(hi_, T, endpoint=True))) for lv, lo, hi_, T, _ in rows]
    return rows


def mc_tasksets(
    rng: np.random.Generator,
    *,
    n: int,
    utilization: float,
    size: int,
    cp: float = 0.5,
    cf: float = 2.0,
    periods: str | PeriodDistribution = MC_DEFAULT_PERIODS,
    deadlines: str = "implicit",
    utilizations: str = "uunifast",
    umax: float = 1.0,
    priorities: str = "drawn",
    ticks: int = 1,
    max_tries: int = 1000,
) -> list[MCTaskSet]:
    """Generate ``size`` dual-criticality sets of ``n`` tasks with LO-mode utilization close to ``utilization``.

    The setup of Baruah, Burns and Davis (RTSS 2011, Section VII), with integer times. Per set
    ``s``, everything is drawn from the set's own child generator ``rng.spawn(size)[s]`` (as
    :func:`rtsched.generators.dag.dag_tasksets` does), so the first sets do not depend on
    ``size`` and ``rng``'s own stream is not advanced. Within a set, in order:

    1. per-task utilizations ``u_1..u_n`` summing to ``utilization`` by ``utilizations``
       (``"uunifast"``, Bini & Buttazzo 2005, as in the paper; or ``"uunifast-discard"`` /
       ``"randfixedsum"`` with ``u_i <= umax``, for multiprocessor sets whose total exceeds 1).
       ``utilization`` is the LO-mode utilization of all tasks, ``U_LL + U_HL``;
    2. periods ``T_1..T_n`` from ``periods`` (default ``log-uniform:10:1000``), times ``ticks``;
    3. criticalities: task ``i`` is HI when a uniform draw is below ``cp`` (``n`` draws);
    4. WCETs, exactly from the float ``u_i`` and ``cf`` (taken as their exact rational values):
       ``C(LO) = max(1, round(u_i · T_i))`` and, for a HI task, ``C(HI) = round(cf · C(LO))``,
       ``round`` being to the nearest integer with halves rounded up (:func:`round_half_up`).
       So ``|C(LO)/T_i - u_i| <= 1/(2 T_i)`` unless ``C(LO)`` is raised to 1, and
       ``C(HI) >= C(LO)`` (``cf >= 1``); ``C(HI)/C(LO)`` is within ``1/(2 C(LO))`` of ``cf``.
       The published setup has real-valued times; with ``ticks = 1`` (periods 10..1000 ticks)
       the rounding, and above all the raise to 1 tick of every ``u_i · T_i < 1/2``, adds
       about 0.2 to a target of 0.6 at ``n = 20`` (papers/mc-model.md). ``ticks = 1000``
       (periods 10,000..1,000,000 ticks, the same distribution in units of 1000 ticks) makes
       the shift negligible, which is what a reproduction of the paper's curves needs;
    5. **redraw rule**: if some task has ``C(HI) > T`` (``C(LO) > T`` for a LO task; only when
       ``u_i · cf`` is about 1 or more), the whole set is drawn again from step 1 with the same
       child generator, up to ``max_tries`` times; then an
       :class:`~rtsched.errors.InputError` is raised. This conditions the sets on every WCET
       fitting its period (the published setup does not say what it did; see the note);
    6. deadlines: ``D = T`` (``"implicit"``, the paper's) or ``D`` uniform on the integers of
       ``[C(own level), T]`` (``"constrained"``; one draw per task after step 5, so implicit and
       constrained sets of the same seed have the same WCETs, periods and criticalities);
    7. the order of the tasks, their fixed priority: ``"drawn"`` or ``"deadline-monotonic"``
       (sorted by ``D``, stable; no draw).

    Parameters
    ----------
    rng:
        The only source of randomness (it must have a seed sequence, as ``default_rng`` gives).
    n:
        Tasks per set.
    utilization:
        Target LO-mode utilization ``U_LL + U_HL`` (positive).
    size:
        Number of sets.
    cp:
        Probability that a task is HI, in ``[0, 1]`` (the paper's default is 0.5).
    cf:
        Criticality factor ``C(HI)/C(LO)`` of HI tasks, at least 1 (the paper's default is 2).
    periods:
        A period spec of :func:`rtsched.generators.parse_periods` or a distribution object.
    deadlines:
        ``"implicit"`` or ``"constrained"``.
    utilizations, umax:
        The sampler and, for the two bounded samplers, the per-task bound.
    priorities:
        ``"drawn"`` or ``"deadline-monotonic"``.
    ticks:
        Ticks per time unit of ``periods`` (a positive integer): every drawn period is multiplied
        by it, so that integer WCETs can follow the utilizations closely (rule 4).
    max_tries:
        Draws per set before giving up (rule 5).

    Returns
    -------
    list of MCTaskSet
        ``size`` sets of ``n`` tasks each.

    Raises
    ------
    InputError
        For a bad argument, or when ``max_tries`` draws of a set all had a WCET above its period.
    """
    from rtsched.mc.model import MCTask, MCTaskSet

    rows = _rows(
        rng, n=n, utilization=utilization, size=size, cp=cp, cf=cf, periods=periods, deadlines=deadlines,
        utilizations=utilizations, umax=umax, priorities=priorities, ticks=ticks, max_tries=max_tries,
    )  # fmt: skip
    return [
        MCTaskSet(MCTask((C_lo, C_hi) if level else (C_lo,), T, D, level) for level, C_lo, C_hi, T, D in one)
        for one in rows
    ]


def _rows(
    rng: np.random.Generator,
    *,
    n: int,
    utilization: float,
    size: int,
    cp: float,
    cf: float,
    periods: str | PeriodDistribution,
    deadlines: str,
    utilizations: str,
    umax: float,
    priorities: str,
    ticks: int,
    max_tries: int,
) -> list[list[tuple[int, int, int, int, int]]]:
    """The sets of :func:`mc_tasksets` as rows ``(level, C_lo, C_hi, T, D)`` (the arguments checked here)."""
    count_n = _int(n, "n", 1)
    count = _int(size, "size", 0)
    tries = _int(max_tries, "max_tries", 1)
    total = _real(utilization, "utilization", 0.0, open_low=True)
    p_hi = _real(cp, "cp", 0.0, 1.0)
    factor = Fraction(_real(cf, "cf", 1.0))
    bound = _real(umax, "umax", 0.0, open_low=True)
    _choice(deadlines, MC_DEADLINES, "deadlines")
    _choice(utilizations, MC_UTILIZATION_METHODS, "utilizations")
    _choice(priorities, MC_PRIORITY_ORDERS, "priorities")
    scale = _int(ticks, "ticks", 1)
    if scale > MAX_TIME:
        raise InputError(f"ticks must be at most {MAX_TIME}, got {scale}", field="ticks")
    distribution = parse_periods(periods)
    longest = int(getattr(distribution, "high", None) or max(getattr(distribution, "values", (1,))))
    if longest * scale > MAX_TIME:
        raise InputError(
            f"periods up to {longest} times ticks = {scale} exceed {MAX_TIME} ticks; lower ticks", field="ticks"
        )
    out: list[list[tuple[int, int, int, int, int]]] = []
    for s, child in enumerate(rng.spawn(count)):
        for _ in range(tries):
            rows = _draw_set(child, count_n, total, p_hi, factor, distribution, utilizations, deadlines, bound, scale)
            if rows is not None:
                break
        else:
            raise InputError(
                f"set {s}: {tries} draws all had a task whose WCET exceeds its period (u_i · cf > 1); "
                f"use more tasks, a lower utilization or cf, or uunifast-discard with umax <= 1/cf",
                field="max_tries",
            )
        if priorities == "deadline-monotonic":
            rows.sort(key=lambda row: row[4])  # stable: ties keep the drawn order
        out.append(rows)
    return out


def mc_batch(
    rng: np.random.Generator,
    *,
    n: int,
    utilization: float,
    size: int,
    cp: float = 0.5,
    cf: float = 2.0,
    periods: str | PeriodDistribution = MC_DEFAULT_PERIODS,
    deadlines: str = "implicit",
    utilizations: str = "uunifast",
    umax: float = 1.0,
    priorities: str = "drawn",
    ticks: int = 1,
    max_tries: int = 1000,
) -> MCBatch:
    """The sets of :func:`mc_tasksets` (same arguments, same draws) as one :class:`~rtsched.mc.MCBatch`.

    What sweeps and kernels take, built from the drawn rows without a task object per task (the
    rows are valid by construction: 1 ≤ C(LO) ≤ C(HI) ≤ T, D in [C(HI), T]), so ``batch.tasksets()``
    equals ``mc_tasksets(rng, ...)`` for a generator in the same state.
    """
    from rtsched.mc.model import MCBatch

    rows = _rows(
        rng, n=n, utilization=utilization, size=size, cp=cp, cf=cf, periods=periods, deadlines=deadlines,
        utilizations=utilizations, umax=umax, priorities=priorities, ticks=ticks, max_tries=max_tries,
    )  # fmt: skip
    flat = np.array([row for one in rows for row in one], dtype=np.int64).reshape(-1, 5)
    offsets = np.cumsum([0, *(len(one) for one in rows)], dtype=np.int64)
    return MCBatch(flat[:, 1], flat[:, 2], flat[:, 3], flat[:, 4], flat[:, 0].astype(np.int8), offsets, validate=False)
