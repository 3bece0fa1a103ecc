"""The field's named per-task utilization distributions and Baker-style generation (issue #46, item 2).

Named utilization distributions
-------------------------------
Each task's utilization is drawn on its own from a named distribution, instead of splitting a
fixed total (UUniFast and its kin). The names and parameters are those of SchedCAT
(B. Brandenburg, ``schedcat/generator/tasksets.py``, ``NAMED_UTILIZATIONS``, whose comment says
they were "used in several UNC papers"; read for the values, not copied), which are the
distributions of Brandenburg's PhD thesis (UNC 2011) and of the UNC LITMUS^RT studies since
Brandenburg, Calandrino & Anderson, RTSS 2008 -- see ``papers/named-generators.md`` for which
values were checked against which text:

=================  ==================================================================
``uni-light``      uniform on [0.001, 0.1]
``uni-medium``     uniform on [0.1, 0.4]
``uni-heavy``      uniform on [0.5, 0.9]
``bimod-light``    uniform on [0.001, 0.5] with probability 8/9, on [0.5, 0.9] with 1/9
``bimod-medium``   uniform on [0.001, 0.5] with probability 6/9, on [0.5, 0.9] with 3/9
``bimod-heavy``    uniform on [0.001, 0.5] with probability 4/9, on [0.5, 0.9] with 5/9
``exp-light``      exponential with mean 0.10, values outside [0, 1] redrawn
``exp-medium``     exponential with mean 0.25, values outside [0, 1] redrawn
``exp-heavy``      exponential with mean 0.50, values outside [0, 1] redrawn
=================  ==================================================================

(SchedCAT spells the bimodal ones ``bimo-*``; both spellings are accepted.) The exponential
ones are *truncated* by redrawing, so their means are below the nominal mean: 0.09995 (light),
0.2313 (medium) and 0.3435 (heavy) -- ``mean - e^(-1/mean) / (1 - e^(-1/mean))``.

Baker-style generation (``method = "baker"``)
---------------------------------------------
Tasks are drawn one at a time -- utilization ``u`` from the named distribution, period ``T``
from the period distribution, ``C = min(T, max(1, round(u·T)))`` (the house rounding rule of
:mod:`rtsched.generators.batch`: round half to even; SchedCAT truncates instead) -- and added to
the set while the set's total utilization ``Σ C/T`` (after rounding) stays at or below the bound
``U`` (the sweep point's utilization). The **cap rule** says what happens to the task that takes
the total above ``U``:

``discard`` (the default)
    it is dropped and the set is complete, so ``Σ C/T <= U``. This is SchedCAT's
    ``TaskGenerator.tasks(max_util=U)`` without ``squeeze``.
``keep``
    it is kept and the set is complete, so the set is the shortest prefix with ``Σ C/T > U``
    (T. P. Baker's procedure as described in his 2005 comparison reports and followed by
    Bertogna, Cirinei & Lipari: tasks are added "until the total utilization exceeds" the bound;
    the texts could not be read here, see the note).

A set also ends at ``n`` tasks (SchedCAT's ``max_tasks``), so ``n`` is a maximum. With
``discard``, a set whose first task already exceeds ``U`` would be empty: such sets are drawn
again (so the first task is conditioned on ``u <= U``); a bound below every task utilization
the distribution can give is refused. Deadlines are drawn after rounding, as for every batch.

Reproducibility: the draws happen in rounds; in each round every unfinished set draws a block
of ``B`` utilizations and then ``B`` periods (``B`` depends only on the distribution, ``U`` and
``n``), then the deadlines of all kept tasks are drawn at once. So the sets are a function of
the generator's state and the arguments only (and the sweep's per-unit streams make them
independent of the worker count).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from rtsched.errors import InputError

__all__ = [
    "BAKER_CAP_RULES",
    "GENERATION_METHODS",
    "NAMED_UTILIZATIONS",
    "BimodalUtilizations",
    "ExponentialUtilizations",
    "UniformUtilizations",
    "UtilizationDistribution",
    "baker_counts",
    "parse_named_utilizations",
]

#: ``method`` values of :func:`rtsched.generators.generate_batch`.
GENERATION_METHODS = ("fixed", "baker")
#: ``cap`` values (what happens to the task that takes the total above the bound).
BAKER_CAP_RULES = ("discard", "keep")


@dataclass(frozen=True)
class UniformUtilizations:
    """Task utilizations uniform on ``[low, high]``."""

    low: float
    high: float

    def draw(self, rng: np.random.Generator, shape: tuple[int, ...]) -> NDArray[np.float64]:
        """Draw utilizations (one ``rng.uniform`` call)."""
        return rng.uniform(self.low, self.high, shape)

    def mean(self) -> float:
        """The expected utilization."""
        return (self.low + self.high) / 2

    def support(self) -> tuple[float, float]:
        """Smallest and largest utilization."""
        return self.low, self.high

    def cdf(self, x: float) -> float:
        """``P(u <= x)``."""
        return min(1.0, max(0.0, (x - self.low) / (self.high - self.low)))


@dataclass(frozen=True)
class BimodalUtilizations:
    """A light uniform mode and a heavy uniform mode, chosen with probabilities ``weights`` (normalised)."""

    light: UniformUtilizations
    heavy: UniformUtilizations
    weights: tuple[float, float]

    @property
    def p_light(self) -> float:
        """Probability of the light mode."""
        return self.weights[0] / (self.weights[0] + self.weights[1])

    def draw(self, rng: np.random.Generator, shape: tuple[int, ...]) -> NDArray[np.float64]:
        """Draw a mode selector, then both modes, and pick (three array calls, in that order)."""
        select = rng.random(shape)
        light = self.light.draw(rng, shape)
        heavy = self.heavy.draw(rng, shape)
        return np.where(select < self.p_light, light, heavy)

    def mean(self) -> float:
        """The expected utilization."""
        p = self.p_light
        return p * self.light.mean() + (1 - p) * self.heavy.mean()

    def support(self) -> tuple[float, float]:
        """Smallest and largest utilization."""
        return min(self.light.low, self.heavy.low), max(self.light.high, self.heavy.high)

    def cdf(self, x: float) -> float:
        """``P(u <= x)``."""
        p = self.p_light
        return p * self.light.cdf(x) + (1 - p) * self.heavy.cdf(x)


@dataclass(frozen=True)
class ExponentialUtilizations:
    """Exponential utilizations with nominal mean ``scale``; values outside ``[low, high]`` are redrawn."""

    scale: float
    low: float = 0.0
    high: float = 1.0

    def draw(self, rng: np.random.Generator, shape: tuple[int, ...]) -> NDArray[np.float64]:
        """Draw, then redraw the values outside the range (one call per round, until none is left)."""
        values = rng.exponential(self.scale, shape)
        bad = (values < self.low) | (values > self.high)
        while bad.any():
            values[bad] = rng.exponential(self.scale, int(bad.sum()))
            bad = (values < self.low) | (values > self.high)
        return values

    def _mass(self, x: float) -> float:
        return -math.expm1(-max(x, 0.0) / self.scale)

    def cdf(self, x: float) -> float:
        """``P(u <= x)`` of the truncated distribution."""
        x = min(max(x, self.low), self.high)
        return (self._mass(x) - self._mass(self.low)) / (self._mass(self.high) - self._mass(self.low))

    def mean(self) -> float:
        """The mean of the truncated distribution (below ``scale``)."""
        a, b, s = self.low, self.high, self.scale
        ea, eb = math.exp(-a / s), math.exp(-b / s)
        return s + (a * ea - b * eb) / (ea - eb)

    def support(self) -> tuple[float, float]:
        """Smallest and largest utilization."""
        return self.low, self.high


UtilizationDistribution = UniformUtilizations | BimodalUtilizations | ExponentialUtilizations

_LIGHT = UniformUtilizations(0.001, 0.5)
_HEAVY = UniformUtilizations(0.5, 0.9)

#: The named distributions (values from SchedCAT's ``NAMED_UTILIZATIONS``; see the module docstring).
NAMED_UTILIZATIONS: dict[str, UtilizationDistribution] = {
    "uni-light": UniformUtilizations(0.001, 0.1),
    "uni-medium": UniformUtilizations(0.1, 0.4),
    "uni-heavy": UniformUtilizations(0.5, 0.9),
    "bimod-light": BimodalUtilizations(_LIGHT, _HEAVY, (8.0, 1.0)),
    "bimod-medium": BimodalUtilizations(_LIGHT, _HEAVY, (6.0, 3.0)),
    "bimod-heavy": BimodalUtilizations(_LIGHT, _HEAVY, (4.0, 5.0)),
    "exp-light": ExponentialUtilizations(0.10),
    "exp-medium": ExponentialUtilizations(0.25),
    "exp-heavy": ExponentialUtilizations(0.50),
}
_ALIASES = {f"bimo-{w}": f"bimod-{w}" for w in ("light", "medium", "heavy")}


def named_utilization(name: str) -> str | None:
    """The canonical name of a named distribution (``bimo-*`` spelled ``bimod-*``), or None."""
    if not isinstance(name, str):
        return None
    text = name.strip()
    text = _ALIASES.get(text, text)
    return text if text in NAMED_UTILIZATIONS else None


def parse_named_utilizations(name: str | UtilizationDistribution) -> UtilizationDistribution:
    """The distribution of a name (or a distribution object as is); :class:`~rtsched.errors.InputError` naming a bad one.

    Examples
    --------
    >>> parse_named_utilizations("uni-heavy")
    UniformUtilizations(low=0.5, high=0.9)
    """
    if isinstance(name, UniformUtilizations | BimodalUtilizations | ExponentialUtilizations):
        return name
    canonical = named_utilization(name)
    if canonical is None:
        raise InputError(
            f"unknown utilization distribution {name!r}; choose one of {', '.join(NAMED_UTILIZATIONS)}",
            field="--utilizations",
        )
    return NAMED_UTILIZATIONS[canonical]


def baker_counts(u: NDArray[np.float64], bound: float, rule: str) -> NDArray[np.int64]:
    """Tasks kept per row of realised utilizations ``u`` (rows drawn in order) under the cap rule.

    ``discard``: the number of tasks whose running total is at most ``bound`` (the totals
    increase, so this is the prefix before the first task that exceeds it). ``keep``: one more,
    when some task exceeds it. Rows that never exceed keep all their tasks.

    >>> baker_counts(np.array([[0.5, 0.4, 0.3, 0.2]]), 1.0, "discard").tolist()
    [2]
    >>> baker_counts(np.array([[0.5, 0.4, 0.3, 0.2]]), 1.0, "keep").tolist()
    [3]
    """
    below = np.count_nonzero(np.cumsum(u, axis=1) <= bound, axis=1)
    if rule == "keep":
        below = np.minimum(below + 1, u.shape[1])
    return below.astype(np.int64)


def _block(dist: UtilizationDistribution, bound: float, n_max: int) -> int:
    """Tasks drawn per unfinished set and round: enough for most sets to finish in one round."""
    expected = bound / max(dist.mean(), 1e-3)
    return int(min(n_max, max(4, math.ceil(1.25 * expected) + 4)))


#: Rounds of redrawing empty sets (``discard``) before the bound is refused.
_MAX_EMPTY_ROUNDS = 1000


def baker_tasks(
    rng: np.random.Generator,
    *,
    distribution: UtilizationDistribution,
    periods: object,
    deadlines: object,
    bound: float,
    n_max: int,
    size: int,
    rule: str = "discard",
) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
    """Draw ``size`` Baker-style sets; return flat ``C, D, T`` and the set offsets.

    See the module docstring for the rule. ``periods`` and ``deadlines`` are specs or objects of
    :func:`rtsched.generators.parse_periods` / :func:`rtsched.generators.parse_deadlines`.
    """
    from rtsched.generators.deadlines import parse_deadlines
    from rtsched.generators.periods import parse_periods

    period_dist = parse_periods(periods)
    deadline_dist = parse_deadlines(deadlines)
    if rule not in BAKER_CAP_RULES:
        raise InputError(f"unknown cap rule {rule!r}; choose one of {', '.join(BAKER_CAP_RULES)}", field="--cap")
    if not (isinstance(bound, int | float) and math.isfinite(bound) and bound > 0):
        raise InputError(f"the utilization bound must be a positive number, got {bound!r}", field="--utilization")
    if rule == "discard" and distribution.cdf(bound) <= 0.0:
        low = distribution.support()[0]
        raise InputError(
            f"no task fits under the bound U = {bound}: every utilization of this distribution is at least {low} "
            "(raise the bound or use cap = keep)",
            field="--utilization",
        )
    block = _block(distribution, bound, n_max)
    # Per set: the C and T drawn so far (lists of row blocks) and whether the set is complete.
    rows_C: list[list[NDArray[np.int64]]] = [[] for _ in range(size)]
    rows_T: list[list[NDArray[np.int64]]] = [[] for _ in range(size)]
    count = np.zeros(size, dtype=np.int64)
    total = np.zeros(size)
    open_sets = np.arange(size)
    empty_rounds = 0
    while open_sets.size:
        k = open_sets.size
        u = distribution.draw(rng, (k, block))
        T = period_dist.draw(rng, (k, block))
        exact = u * T
        np.rint(exact, out=exact)
        C = exact.astype(np.int64)
        np.clip(C, 1, T, out=C)
        realised = C / T
        room = n_max - count[open_sets]
        # running totals, starting from what each open set already holds
        running = np.cumsum(realised, axis=1) + total[open_sets, None]
        exceeded = running[:, -1] > bound
        take = np.count_nonzero(running <= bound, axis=1)
        if rule == "keep":
            take = np.where(exceeded, take + 1, take)
        take = np.minimum(take, room)
        done = exceeded | (take >= room)
        # discard: a set whose first task exceeds the bound is empty -- draw it again.
        empty = done & (take == 0) & (count[open_sets] == 0)
        done &= ~empty
        for j, s in enumerate(open_sets):
            t = int(take[j])
            if t:
                rows_C[s].append(C[j, :t])
                rows_T[s].append(T[j, :t])
                count[s] += t
                total[s] = running[j, t - 1]
        open_sets = open_sets[~done]
        if empty.all() and open_sets.size:
            empty_rounds += 1
            if empty_rounds > _MAX_EMPTY_ROUNDS:
                raise InputError(
                    f"the bound U = {bound} is below almost every task utilization of this distribution",
                    field="--utilization",
                )
        else:
            empty_rounds = 0
    offsets = np.zeros(size + 1, dtype=np.int64)
    np.cumsum(count, out=offsets[1:])
    if size:
        C_flat = np.concatenate([np.concatenate(r) for r in rows_C])
        T_flat = np.concatenate([np.concatenate(r) for r in rows_T])
    else:
        C_flat = np.empty(0, dtype=np.int64)
        T_flat = np.empty(0, dtype=np.int64)
    D_flat = deadline_dist.draw(rng, C_flat, T_flat)
    return C_flat, D_flat, T_flat, offsets
