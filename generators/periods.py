"""Period distributions (integer ticks) and the spec strings that name them.

A spec string, as used by ``rtsched generate --periods`` and
:func:`rtsched.generators.generate_batch`, is parsed by :func:`~rtsched.generators.parse_periods` into a small
frozen object with a vectorised ``draw(rng, size)`` method returning ``int64`` periods:

``log-uniform:LO:HI[:G]``
    Log-uniform with granularity ``G`` (default 1 tick), as in Emberson, Stafford & Davis,
    WATERS 2010 (its section on period generation; numbering unverified; see
    ``papers/emberson2010-randfixedsum.md``): ``r ~ U[ln LO, ln(HI + G))`` and
    ``T = floor(exp(r) / G) * G``, so ``T`` takes the values ``LO, LO + G, ..., HI`` with
    ``P(T = t) = ln((t + G) / t) / ln((HI + G) / LO)``. ``LO`` and ``HI`` must be multiples of ``G``.
``uniform:LO:HI``
    Integer uniform on ``{LO, ..., HI}``.
``choice:V1,V2,...[:W1,W2,...]``
    One of the listed periods, with the given weights (default equal; normalised).
``automotive[:TICKS_PER_MS]``
    The period shares of the automotive engine-control application of Kramer, Ziegenbein &
    Hamann, "Real world automotive benchmarks for free", WATERS 2015 (Table III); see
    ``papers/kramer2015-automotive.md``. One millisecond is ``TICKS_PER_MS`` ticks (default
    1000, i.e. microsecond ticks, so that short periods leave room for integer execution
    times). Angle-synchronous tasks have no fixed period (it depends on engine speed); they are
    left out and the remaining shares renormalised, as is customary when the benchmark is used
    to draw periodic tasks.
``uni-short[:TICKS_PER_MS]``, ``uni-moderate[:TICKS_PER_MS]``, ``uni-long[:TICKS_PER_MS]``
    SchedCAT's named period distributions (``schedcat/generator/tasksets.py``, ``NAMED_PERIODS``,
    "used in several UNC papers", in milliseconds): an integer number of milliseconds uniform on
    {3, ..., 33}, {10, ..., 100} or {50, ..., 250}, times ``TICKS_PER_MS`` ticks (default 1000,
    microsecond ticks; see ``papers/named-generators.md``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from rtsched.errors import InputError
from rtsched.model import MAX_TIME

__all__ = [
    "AUTOMOTIVE_ANGLE_SYNCHRONOUS_SHARE",
    "AUTOMOTIVE_PERIOD_SHARES",
    "NAMED_PERIODS",
    "ChoicePeriods",
    "LogUniformPeriods",
    "ScaledUniformPeriods",
    "describe_periods",
    "PeriodDistribution",
    "UniformPeriods",
    "parse_periods",
]

#: Share of runnables per period (in ms) in Kramer, Ziegenbein & Hamann (WATERS 2015), Table III.
AUTOMOTIVE_PERIOD_SHARES: dict[int, float] = {
    1: 0.03,
    2: 0.02,
    5: 0.02,
    10: 0.25,
    20: 0.25,
    50: 0.03,
    100: 0.20,
    200: 0.01,
    1000: 0.04,
}
#: Share of angle-synchronous runnables in the same table (left out, see the module docstring).
AUTOMOTIVE_ANGLE_SYNCHRONOUS_SHARE = 0.15

_OPTION = "--periods"


def _bad(spec: str, why: str) -> InputError:
    return InputError(f"bad period spec {spec!r}: {why}", field=_OPTION)


def _positive_int(text: str, spec: str, what: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise _bad(spec, f"{what} must be a positive integer number of ticks, got {text!r}") from None
    if not 0 < value <= MAX_TIME:
        raise _bad(spec, f"{what} must be between 1 and {MAX_TIME}, got {value}")
    return value


@dataclass(frozen=True)
class LogUniformPeriods:
    """Log-uniform periods on ``{low, low + granularity, ..., high}`` (Emberson et al. 2010)."""

    low: int
    high: int
    granularity: int = 1

    def draw(self, rng: np.random.Generator, size: int | tuple[int, ...]) -> NDArray[np.int64]:
        """Draw periods; ``r ~ U[ln low, ln(high + g))``, ``T = floor(e^r / g) * g``."""
        g = self.granularity
        values = rng.uniform(math.log(self.low), math.log(self.high + g), size)
        np.exp(values, out=values)  # in place: one temporary instead of four
        if g != 1:
            values /= g
        np.floor(values, out=values)
        periods = values.astype(np.int64)
        if g != 1:
            periods *= g
        # exp(log(x)) can land one ulp either side of x: keep the ends inside the support.
        np.clip(periods, self.low, self.high, out=periods)
        return periods

    def probabilities(self) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
        """Support and exact probability of each value (used by the tests and the notes)."""
        values = np.arange(self.low, self.high + 1, self.granularity, dtype=np.int64)
        g = self.granularity
        probs = np.log1p(g / values) / math.log((self.high + g) / self.low)
        return values, probs


@dataclass(frozen=True)
class UniformPeriods:
    """Integer periods uniform on ``{low, ..., high}``."""

    low: int
    high: int

    def draw(self, rng: np.random.Generator, size: int | tuple[int, ...]) -> NDArray[np.int64]:
        """Draw periods."""
        return rng.integers(self.low, self.high, size, dtype=np.int64, endpoint=True)


@dataclass(frozen=True)
class ChoicePeriods:
    """Periods drawn from a finite set with weights (normalised to probabilities)."""

    values: tuple[int, ...]
    weights: tuple[float, ...]

    def draw(self, rng: np.random.Generator, size: int | tuple[int, ...]) -> NDArray[np.int64]:
        """Draw periods by inverting the cumulative weights (one uniform per period)."""
        cumulative = np.cumsum(np.asarray(self.weights, dtype=np.float64))
        cumulative /= cumulative[-1]
        index = np.searchsorted(cumulative, rng.random(size), side="right")
        # A uniform in [0, 1) never reaches the last cumulative value 1.0 exactly, but rounding in
        # the normalisation could leave it a hair below; clip so the index is always valid.
        np.minimum(index, len(self.values) - 1, out=index)
        return np.asarray(self.values, dtype=np.int64)[index]

    def probabilities(self) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
        """Support and probability of each value."""
        w = np.asarray(self.weights, dtype=np.float64)
        return np.asarray(self.values, dtype=np.int64), w / w.sum()


@dataclass(frozen=True)
class ScaledUniformPeriods:
    """Periods ``scale · k`` with ``k`` an integer uniform on ``{low, ..., high}`` (SchedCAT's named periods)."""

    low: int
    high: int
    scale: int

    def draw(self, rng: np.random.Generator, size: int | tuple[int, ...]) -> NDArray[np.int64]:
        """Draw periods (one ``rng.integers`` call)."""
        return rng.integers(self.low, self.high, size, dtype=np.int64, endpoint=True) * self.scale


PeriodDistribution = LogUniformPeriods | UniformPeriods | ChoicePeriods | ScaledUniformPeriods

#: SchedCAT's named period ranges in milliseconds (``NAMED_PERIODS``), drawn as integers of ms.
NAMED_PERIODS: dict[str, tuple[int, int]] = {"uni-short": (3, 33), "uni-moderate": (10, 100), "uni-long": (50, 250)}


def describe_periods(spec: object) -> str:
    """A period spec in words for captions: named ones get their range (``uni-moderate (10-100 ms ...)``).

    Other specs are returned as written (they state their range themselves).

    >>> describe_periods("uni-moderate")
    'uni-moderate (uniform integer 10-100 ms x 1000 ticks/ms)'
    """
    text = str(spec)
    kind, _, rest = text.strip().partition(":")
    if kind in NAMED_PERIODS:
        low, high = NAMED_PERIODS[kind]
        ticks = rest or "1000"
        return f"{text} (uniform integer {low}-{high} ms x {ticks} ticks/ms)"
    return text


def automotive_periods(ticks_per_ms: int = 1000) -> ChoicePeriods:
    """The Kramer et al. (WATERS 2015) period shares in ticks, angle-synchronous tasks left out."""
    values = tuple(ms * ticks_per_ms for ms in AUTOMOTIVE_PERIOD_SHARES)
    if values[-1] > MAX_TIME:
        raise InputError(f"automotive periods up to 1000 ms do not fit at {ticks_per_ms} ticks per ms", field=_OPTION)
    return ChoicePeriods(values, tuple(AUTOMOTIVE_PERIOD_SHARES.values()))


def parse_periods(spec: str | PeriodDistribution) -> PeriodDistribution:
    """Parse a period spec string (see the module docstring); raise :class:`~rtsched.errors.InputError` naming it.

    Examples
    --------
    >>> parse_periods("log-uniform:10:1000:10")
    LogUniformPeriods(low=10, high=1000, granularity=10)
    >>> parse_periods("choice:10,20:3,1").weights
    (3.0, 1.0)
    """
    if isinstance(spec, LogUniformPeriods | UniformPeriods | ChoicePeriods | ScaledUniformPeriods):
        return spec
    if not isinstance(spec, str):
        raise InputError(f"a period spec must be a string, got {spec!r}", field=_OPTION)
    kind, _, rest = spec.strip().partition(":")
    parts = rest.split(":") if rest else []
    if kind == "log-uniform":
        if len(parts) not in (2, 3):
            raise _bad(spec, "expected log-uniform:LO:HI or log-uniform:LO:HI:GRANULARITY")
        low = _positive_int(parts[0], spec, "LO")
        high = _positive_int(parts[1], spec, "HI")
        g = _positive_int(parts[2], spec, "GRANULARITY") if len(parts) == 3 else 1
        if low > high:
            raise _bad(spec, f"LO = {low} exceeds HI = {high}")
        if low % g or high % g:
            raise _bad(spec, f"LO and HI must be multiples of the granularity {g}")
        if high + g > MAX_TIME:
            raise _bad(spec, f"HI + GRANULARITY must be at most {MAX_TIME}")
        return LogUniformPeriods(low, high, g)
    if kind == "uniform":
        if len(parts) != 2:
            raise _bad(spec, "expected uniform:LO:HI")
        low = _positive_int(parts[0], spec, "LO")
        high = _positive_int(parts[1], spec, "HI")
        if low > high:
            raise _bad(spec, f"LO = {low} exceeds HI = {high}")
        return UniformPeriods(low, high)
    if kind == "choice":
        if len(parts) not in (1, 2) or not parts[0]:
            raise _bad(spec, "expected choice:V1,V2,... or choice:V1,V2,...:W1,W2,...")
        values = tuple(_positive_int(v, spec, "a period") for v in parts[0].split(","))
        if len(parts) == 2:
            try:
                weights = tuple(float(w) for w in parts[1].split(","))
            except ValueError:
                raise _bad(spec, f"weights must be numbers, got {parts[1]!r}") from None
            if len(weights) != len(values):
                raise _bad(spec, f"{len(weights)} weights for {len(values)} periods")
            if not all(math.isfinite(w) and w >= 0 for w in weights) or sum(weights) <= 0:
                raise _bad(spec, "weights must be non-negative and not all zero")
        else:
            weights = (1.0,) * len(values)
        return ChoicePeriods(values, weights)
    if kind == "automotive":
        if len(parts) > 1:
            raise _bad(spec, "expected automotive or automotive:TICKS_PER_MS")
        ticks = _positive_int(parts[0], spec, "TICKS_PER_MS") if parts else 1000
        if 1000 * ticks > MAX_TIME:
            raise _bad(spec, f"the 1000 ms period does not fit in {MAX_TIME} ticks at {ticks} ticks per ms")
        return automotive_periods(ticks)
    if kind in NAMED_PERIODS:
        if len(parts) > 1:
            raise _bad(spec, f"expected {kind} or {kind}:TICKS_PER_MS")
        ticks = _positive_int(parts[0], spec, "TICKS_PER_MS") if parts else 1000
        low, high = NAMED_PERIODS[kind]
        if high * ticks > MAX_TIME:
            raise _bad(spec, f"{high} ms does not fit in {MAX_TIME} ticks at {ticks} ticks per ms")
        return ScaledUniformPeriods(low, high, ticks)
    raise _bad(
        spec,
        "choose log-uniform:LO:HI[:G], uniform:LO:HI, choice:V1,V2,...[:W1,...], automotive[:TICKS_PER_MS] "
        "or uni-short/uni-moderate/uni-long[:TICKS_PER_MS]",
    )
