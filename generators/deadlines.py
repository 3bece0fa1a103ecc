"""Relative deadlines for generated tasks, drawn after the integer execution times.

Spec strings (``--deadlines`` and ``generate_batch(deadlines=...)``), parsed by
:func:`~rtsched.generators.parse_deadlines`:

``implicit``
    ``D = T``.
``uniform``
    ``D`` uniform on the integers of ``[C, T]`` (constrained deadlines).
``uniform:X`` with ``0 <= X <= 1``
    ``D`` uniform on the integers of ``[C + X (T - C), T]``; the lower end is rounded up, so
    ``D >= C + X (T - C)`` holds exactly. ``uniform:0`` is ``uniform`` and ``uniform:1`` is
    ``implicit``. ``X`` moves the deadlines towards the periods (less constrained sets).
``scaled:LO:HI`` with ``0 <= LO <= HI`` (decimals or fractions, e.g. ``scaled:0.5:2``)
    ``D`` uniform on the integers of ``[max(C, ceil(LO·T)), max(C, floor(HI·T))]``: a deadline
    factor ``D/T`` between ``LO`` and ``HI`` (both ends exact; the lower end raised to ``C`` and
    the upper end capped at ``MAX_TIME``). With ``HI > 1`` deadlines may exceed periods: the
    batch's deadline model is ``arbitrary`` (issue #47), and analyses that need ``D <= T`` refuse
    it; with ``HI <= 1`` it is ``constrained``. No paper is claimed for this recipe (a uniform
    deadline factor, as in studies of arbitrary-deadline tests; rtsched's choice).

The constrained-deadline recipe "D uniform in [C, T]" is the usual one in multiprocessor
acceptance-ratio studies (used, as far as we know, by Davis & Burns, RTSS 2009 -- not verified
against the text; see ``papers/davis-burns2009-uunifast-discard.md``); no paper is claimed for
the ``X`` variant.

Drawing after rounding C is what guarantees ``C <= D <= T`` (``C <= D`` for ``scaled``) for every
generated task.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from numpy.typing import NDArray

from rtsched.errors import InputError
from rtsched.model import MAX_TIME

__all__ = ["DeadlineDistribution", "parse_deadlines"]

_OPTION = "--deadlines"


@dataclass(frozen=True)
class DeadlineDistribution:
    """Deadlines ``D`` uniform on the integers of ``[C + fraction (T - C), T]``.

    ``fraction`` is kept as an exact :class:`~fractions.Fraction` of the spec's decimal text, so
    that ``uniform:0.3`` with ``T - C = 10`` allows ``D = C + 3`` (a float ``0.3 * 10`` is
    3.0000000000000004 and would round up to 4).
    """

    implicit: bool
    fraction: Fraction = Fraction(0)
    #: ``(LO, HI)`` of ``scaled:LO:HI`` (deadline factors D/T), or None for ``uniform[:X]``.
    scaled: tuple[Fraction, Fraction] | None = None

    @property
    def model(self) -> str:
        """The deadline model of the generated sets (``"implicit"``, ``"constrained"`` or ``"arbitrary"``)."""
        if self.scaled is not None:
            return "arbitrary" if self.scaled[1] > 1 else "constrained"
        return "implicit" if self.implicit else "constrained"

    def draw(self, rng: np.random.Generator, C: NDArray[np.int64], T: NDArray[np.int64]) -> NDArray[np.int64]:
        """Draw one deadline per task (any shape; ``C <= T`` elementwise). Draws nothing if implicit."""
        if self.implicit:
            return T.copy()
        if self.scaled is not None:
            lo, hi = self.scaled
            # exact: numerators and denominators are below 2**31 (parse_deadlines) and T < 2**31
            low = (lo.numerator * T + (lo.denominator - 1)) // lo.denominator
            high = (hi.numerator * T) // hi.denominator
            np.minimum(high, MAX_TIME, out=high)
            np.maximum(low, C, out=low)
            np.maximum(high, C, out=high)
            np.minimum(low, high, out=low)
            return rng.integers(low, high, dtype=np.int64, endpoint=True)
        slack = T - C
        num, den = self.fraction.numerator, self.fraction.denominator
        if num == 0:
            low = C
        elif den <= _EXACT_DENOMINATOR:
            # ceil(num * slack / den) in integers: num <= den <= 2**31 and slack < 2**31, so the
            # product stays below 2**62.
            low = C + (num * slack + (den - 1)) // den
        else:  # a spec with more than ~9 significant decimals: float is as exact as the text
            low = C + np.ceil(float(self.fraction) * slack).astype(np.int64)
        np.minimum(low, T, out=low)
        return rng.integers(low, T, dtype=np.int64, endpoint=True)


_EXACT_DENOMINATOR = 2**31


def parse_deadlines(spec: str | DeadlineDistribution) -> DeadlineDistribution:
    """Parse ``implicit``, ``uniform``, ``uniform:X`` or ``scaled:LO:HI``; raise :class:`~rtsched.errors.InputError` naming a bad spec.

    Examples
    --------
    >>> parse_deadlines("uniform:0.5")
    DeadlineDistribution(implicit=False, fraction=Fraction(1, 2), scaled=None)
    >>> parse_deadlines("scaled:0.5:2").model
    'arbitrary'
    """
    if isinstance(spec, DeadlineDistribution):
        return spec
    if not isinstance(spec, str):
        raise InputError(f"a deadline spec must be a string, got {spec!r}", field=_OPTION)
    text = spec.strip()
    if text == "implicit":
        return DeadlineDistribution(implicit=True, fraction=Fraction(1))
    if text == "uniform":
        return DeadlineDistribution(implicit=False, fraction=Fraction(0))
    kind, sep, rest = text.partition(":")
    if kind == "uniform" and sep:
        try:
            fraction = Fraction(rest.strip())
        except (ValueError, ZeroDivisionError):
            fraction = None
        if fraction is None or not 0 <= fraction <= 1:
            raise InputError(f"bad deadline spec {spec!r}: X in uniform:X must be a number in [0, 1]", field=_OPTION)
        return DeadlineDistribution(implicit=False, fraction=fraction)
    if kind == "scaled" and sep:
        return DeadlineDistribution(implicit=False, scaled=_scaled(spec, rest))
    raise InputError(f"bad deadline spec {spec!r}: choose implicit, uniform, uniform:X or scaled:LO:HI", field=_OPTION)


def _scaled(spec: str, rest: str) -> tuple[Fraction, Fraction]:
    """``LO:HI`` of ``scaled:LO:HI`` as exact fractions (``0 <= LO <= HI``, small enough to draw exactly)."""
    parts = rest.split(":")
    values: list[Fraction] = []
    for text in parts:
        try:
            values.append(Fraction(text.strip()))
        except (ValueError, ZeroDivisionError):
            break
    if len(parts) != 2 or len(values) != 2:
        raise InputError(
            f"bad deadline spec {spec!r}: scaled:LO:HI needs two numbers, e.g. scaled:0.5:2", field=_OPTION
        )
    lo, hi = values
    if not 0 <= lo <= hi or hi == 0:
        raise InputError(f"bad deadline spec {spec!r}: scaled:LO:HI needs 0 <= LO <= HI and HI > 0", field=_OPTION)
    if max(lo.numerator, lo.denominator, hi.numerator, hi.denominator) >= 2**31:
        raise InputError(f"bad deadline spec {spec!r}: LO and HI need fewer digits (exact draws)", field=_OPTION)
    return lo, hi
