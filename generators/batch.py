"""Integer task-set batches: the central entry point :func:`~rtsched.generators.generate_batch`.

Pipeline (one vectorised pass over all sets, no per-set Python loop):

1. utilizations ``u`` (shape ``(size, n)``, rows summing to the target ``U``) from
   :mod:`rtsched.generators.utilizations` -- UUniFast (``papers/bini-buttazzo2005-uunifast.md``),
   UUniFast-Discard (``papers/davis-burns2009-uunifast-discard.md``), RandFixedSum
   (``papers/emberson2010-randfixedsum.md``) or ConvolutionalFixedSum
   (``papers/griffin-davis2025-cfs.md``);
2. periods ``T`` from :mod:`rtsched.generators.periods`;
3. **rounding rule**: ``C = min(T, max(1, round(u * T)))`` where ``round`` is round-half-to-even
   (``numpy.rint``). So ``C`` is never 0 and never exceeds ``T``; a task whose ``u * T`` is below
   one half gets ``C = 1`` (its utilization rises to ``1 / T``), and with UUniFast a task drawn
   with ``u_i > 1`` is capped at ``C = T``;
4. deadlines ``D`` in ``[C, T]`` from :mod:`rtsched.generators.deadlines`, drawn *after*
   rounding so that ``C <= D <= T`` holds for every task;
5. the realised utilization ``sum C / T`` of each set is recomputed from the integers and
   returned next to the batch, because rounding moves it away from the target.

The sets are generated in chunks of about 2**19 tasks; per chunk the random draws happen in
exactly that order (utilizations, periods, deadlines), each as one array call on ``rng``. The
result is a function of the generator's state and the arguments only.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from rtsched.errors import InputError
from rtsched.generators.deadlines import DeadlineDistribution, parse_deadlines
from rtsched.generators.named import (
    GENERATION_METHODS,
    baker_tasks,
    named_utilization,
    parse_named_utilizations,
)
from rtsched.generators.periods import PeriodDistribution, parse_periods
from rtsched.generators.utilizations import (
    UTILIZATION_METHODS,
    convolutional_fixed_sum,
    randfixedsum,
    uunifast,
    uunifast_discard,
)
from rtsched.model import MAX_TASKS, TaskSetBatch

__all__ = ["GENERATE_DEFAULTS", "GeneratedBatch", "generate_batch", "integer_tasks", "parse_utilizations"]

#: The generator options every entry point defaults to: :func:`~rtsched.generators.generate_batch`, ``rtsched generate``
#: and ``rtsched sweep``'s default experiment (rtsched.sweep.kinds.GENERATOR_DEFAULTS, the same
#: values, written into an experiment's canonical form; a test holds the two equal). Before issue
#: #46, :func:`~rtsched.generators.generate_batch` defaulted to plain UUniFast, periods 10-1000 and implicit deadlines,
#: so ``generate_batch(rng, n=10, utilization=0.2, size=...)`` realised U = 0.32 (the rounding rule
#: C >= 1 inflates light tasks with short periods) where the CLI realised 0.20.
GENERATE_DEFAULTS: dict[str, object] = {
    "utilizations": "uunifast-discard",
    "periods": "log-uniform:1000:100000",
    "deadlines": "uniform",
    "umax": 1.0,
}

#: Tasks generated per chunk in :func:`~rtsched.generators.generate_batch` (a constant: results must not depend on it
#: varying between runs).
_CHUNK_TASKS = 1 << 19


@dataclass(frozen=True, eq=False)
class GeneratedBatch:
    """A generated batch and its utilizations.

    Attributes
    ----------
    batch:
        The integer task sets.
    target_utilization:
        The total utilization asked for (before rounding).
    realized_utilization:
        ``sum C / T`` of each set after rounding, shape ``(n_sets,)`` (read-only floats, for
        sweeps and plots; exact values come from the integers in ``batch``).

    Equality is identity (the fields hold arrays).
    """

    batch: TaskSetBatch
    target_utilization: float
    realized_utilization: NDArray[np.float64]


def parse_utilizations(name: str) -> str:
    """Check a utilization-method name; return it, or raise :class:`~rtsched.errors.InputError` naming it."""
    if isinstance(name, str) and name.strip() in UTILIZATION_METHODS:
        return name.strip()
    raise InputError(
        f"unknown utilization method {name!r}; choose one of {', '.join(UTILIZATION_METHODS)}",
        field="--utilizations",
    )


def _draw_utilizations(
    rng: np.random.Generator, method: str, n: int, total: float, size: int, umax: float
) -> NDArray[np.float64]:
    if method == "uunifast":
        return uunifast(rng, n, total, size)
    if method == "uunifast-discard":
        return uunifast_discard(rng, n, total, size, umax)
    if method == "randfixedsum":
        return randfixedsum(rng, n, total, size, 0.0, umax)
    return convolutional_fixed_sum(rng, n, total, size, 0.0, umax)


def integer_tasks(
    rng: np.random.Generator,
    utilizations: NDArray[np.float64],
    periods: PeriodDistribution | str,
    deadlines: DeadlineDistribution | str,
) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
    """Turn utilization vectors ``(size, n)`` into integer ``C, D, T`` arrays of the same shape.

    Draws the periods, applies the rounding rule of the module docstring, then draws the
    deadlines.
    """
    period_dist = parse_periods(periods)
    deadline_dist = parse_deadlines(deadlines)
    T = period_dist.draw(rng, utilizations.shape)
    exact_wcet = utilizations * T
    np.rint(exact_wcet, out=exact_wcet)
    C = exact_wcet.astype(np.int64)
    np.clip(C, 1, T, out=C)
    D = deadline_dist.draw(rng, C, T)
    return C, D, T


#: Task orders within a generated set (priorities for fixed-priority analyses).
_ORDERS = ("drawn", "deadline-monotonic", "rate-monotonic")


def generate_batch(
    rng: np.random.Generator,
    *,
    n: int,
    utilization: float,
    size: int,
    utilizations: str = "uunifast-discard",
    periods: str = "log-uniform:1000:100000",
    deadlines: str = "uniform",
    umax: float = 1.0,
    order: str = "drawn",
    method: str = "fixed",
    cap: str = "discard",
) -> GeneratedBatch:
    """Generate ``size`` integer task sets of ``n`` tasks with target total ``utilization``.

    Parameters
    ----------
    rng:
        The only source of randomness.
    n:
        Tasks per set.
    utilization:
        Target total utilization ``U`` (before rounding).
    size:
        Number of task sets.
    utilizations:
        ``"uunifast"``, ``"uunifast-discard"`` (the default), ``"randfixedsum"`` or ``"cfs"``.
    periods:
        Period spec, see :func:`rtsched.generators.parse_periods` (default
        ``"log-uniform:1000:100000"``).
    deadlines:
        ``"implicit"``, ``"uniform"`` (the default: D uniform in [C, T]) or ``"uniform:X"``, see
        :func:`rtsched.generators.parse_deadlines`.

    The defaults are :data:`GENERATE_DEFAULTS`, those of ``rtsched generate`` and of
    ``rtsched sweep``'s default experiment: the same call draws the same sets from every entry
    point.
    umax:
        Per-task utilization bound for UUniFast-Discard, RandFixedSum and CFS (ignored by
        UUniFast, whose tasks above 1 are capped at ``C = T`` by the rounding rule).
    order:
        Order of the tasks within each set, which fixed-priority analyses read as priorities
        (index 0 highest): ``"drawn"`` (as drawn, the default), ``"deadline-monotonic"`` (by D,
        ties by T then as drawn) or ``"rate-monotonic"`` (by T, ties by D then as drawn). The
        draws are the same whatever the order, so the sets differ only in their order.
    method:
        ``"fixed"`` (the default: ``n`` tasks whose utilizations split ``utilization``) or
        ``"baker"``: tasks drawn one at a time from a named per-task distribution
        (``utilizations = "uni-light"``, ``"bimod-medium"``, ``"exp-heavy"``, ...; see
        :mod:`rtsched.generators.named`) and added while the set's total stays within
        ``utilization``; ``n`` is then the largest number of tasks per set.
    cap:
        With ``method="baker"``: ``"discard"`` (the default, SchedCAT's rule: the task that would
        take the total above ``utilization`` is dropped) or ``"keep"`` (it is kept: the total
        just exceeds ``utilization``).

    Returns
    -------
    GeneratedBatch
        The batch (deadline model ``"implicit"`` or ``"constrained"``) and the realised
        utilization of every set.

    Examples
    --------
    >>> import numpy as np
    >>> out = generate_batch(np.random.default_rng(1), n=4, utilization=1.5, size=3)
    >>> out.batch.n_sets, out.realized_utilization.shape
    (3, (3,))
    """
    if method == "baker":
        return _baker_batch(
            rng, n=n, utilization=utilization, size=size, utilizations=utilizations, periods=periods,
            deadlines=deadlines, umax=umax, order=order, cap=cap,
        )  # fmt: skip
    if method != "fixed":
        raise InputError(
            f"unknown generation method {method!r}; choose one of {', '.join(GENERATION_METHODS)}", field="--method"
        )
    if named_utilization(utilizations) is not None:
        raise InputError(
            f"{utilizations!r} draws each task's utilization on its own: it needs method = baker "
            "(tasks added until the total reaches the utilization)",
            field="--utilizations",
        )
    if cap != "discard":
        raise InputError("applies to method = baker only", field="--cap")
    method = parse_utilizations(utilizations)
    period_dist = parse_periods(periods)
    deadline_dist = parse_deadlines(deadlines)
    if isinstance(n, bool) or not isinstance(n, int | np.integer) or not 1 <= n <= MAX_TASKS:
        raise InputError(f"n must be an integer between 1 and {MAX_TASKS}, got {n!r}", field="--n")
    for value, option in ((utilization, "--utilization"), (umax, "--umax")):
        if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
            raise InputError(f"must be a number, got {value!r}", field=option)
    if isinstance(size, bool) or not isinstance(size, int | np.integer) or size < 0:
        raise InputError(f"the number of task sets must be a non-negative integer, got {size!r}", field="--count")
    if order not in _ORDERS:
        raise InputError(f"unknown task order {order!r}; choose one of {', '.join(_ORDERS)}", field="--order")
    n, size = int(n), int(size)
    C = np.empty(size * n, dtype=np.int64)
    D = np.empty(size * n, dtype=np.int64)
    T = np.empty(size * n, dtype=np.int64)
    realized = np.empty(size)
    # Work in chunks of about _CHUNK_TASKS tasks: the temporaries stay a few MB and are reused
    # by the allocator instead of being page-faulted in afresh (which cost more than the
    # arithmetic). The chunk length is a constant, so the draws are a function of rng only.
    sets_per_chunk = max(1, _CHUNK_TASKS // n)
    for start in range(0, max(size, 1), sets_per_chunk):
        stop = min(size, start + sets_per_chunk)
        u = _draw_utilizations(rng, method, n, float(utilization), stop - start, float(umax))
        c, d, t = integer_tasks(rng, u, period_dist, deadline_dist)
        if order != "drawn":
            first, second = (d, t) if order == "deadline-monotonic" else (t, d)
            rank = np.lexsort((second, first), axis=1)  # stable: equal keys keep the drawn order
            c, d, t = (np.take_along_axis(x, rank, axis=1) for x in (c, d, t))
        C[start * n : stop * n] = c.ravel()
        D[start * n : stop * n] = d.ravel()
        T[start * n : stop * n] = t.ravel()
        np.divide(c, t, out=u)
        u.sum(axis=1, out=realized[start:stop])
    realized.setflags(write=False)
    offsets = np.arange(0, (size + 1) * n, n, dtype=np.int64)
    # Valid by construction (0 < C <= D <= T <= MAX_TIME), so the O(tasks) validation is skipped.
    batch = TaskSetBatch.adopt(C, D, T, offsets, deadlines=deadline_dist.model, validate=False)
    return GeneratedBatch(batch, float(utilization), realized)


def _check_common(n: object, utilization: object, size: object, umax: object, order: str) -> None:
    if isinstance(n, bool) or not isinstance(n, int | np.integer) or not 1 <= n <= MAX_TASKS:
        raise InputError(f"n must be an integer between 1 and {MAX_TASKS}, got {n!r}", field="--n")
    for value, option in ((utilization, "--utilization"), (umax, "--umax")):
        if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
            raise InputError(f"must be a number, got {value!r}", field=option)
    if isinstance(size, bool) or not isinstance(size, int | np.integer) or size < 0:
        raise InputError(f"the number of task sets must be a non-negative integer, got {size!r}", field="--count")
    if order not in _ORDERS:
        raise InputError(f"unknown task order {order!r}; choose one of {', '.join(_ORDERS)}", field="--order")


def _baker_batch(
    rng: np.random.Generator,
    *,
    n: int,
    utilization: float,
    size: int,
    utilizations: str,
    periods: str,
    deadlines: str,
    umax: float,
    order: str,
    cap: str,
) -> GeneratedBatch:
    """``generate_batch(method="baker")``: see :mod:`rtsched.generators.named`."""
    if named_utilization(utilizations) is None:
        raise InputError(
            f"method = baker draws each task's utilization from a named distribution, not {utilizations!r}; "
            "choose uni-light, uni-medium, uni-heavy, bimod-light, bimod-medium, bimod-heavy, exp-light, "
            "exp-medium or exp-heavy",
            field="--utilizations",
        )
    distribution = parse_named_utilizations(utilizations)
    period_dist = parse_periods(periods)
    deadline_dist = parse_deadlines(deadlines)
    _check_common(n, utilization, size, umax, order)
    if umax != 1.0:
        raise InputError("does not apply to method = baker (the named distribution bounds each task)", field="--umax")
    C, D, T, offsets = baker_tasks(
        rng, distribution=distribution, periods=period_dist, deadlines=deadline_dist, bound=float(utilization),
        n_max=int(n), size=int(size), rule=cap,
    )  # fmt: skip
    if order != "drawn":
        set_id = np.repeat(np.arange(int(size)), np.diff(offsets))
        first, second = (D, T) if order == "deadline-monotonic" else (T, D)
        rank = np.lexsort((second, first, set_id))  # stable: equal keys keep the drawn order
        C, D, T = C[rank], D[rank], T[rank]
    realized = np.add.reduceat(C / T, offsets[:-1]) if C.size else np.zeros(int(size))
    realized.setflags(write=False)
    batch = TaskSetBatch.adopt(C, D, T, offsets, deadlines=deadline_dist.model, validate=False)
    return GeneratedBatch(batch, float(utilization), realized)
