"""Relative deadlines for generated tasks, drawn after the integer execution times.

Spec strings (``--deadlines`` and ``generate_batch(deadlines=...)``), parsed by
:func:`parse_deadlines`:

``implicit``
    ``D = T``.
``uniform``
    ``D`` uniform on the integers of ``[C, T]`` (constrained deadlines).
``uniform:X`` with ``0 <= X <= 1``
    ``D`` uniform on the integers of ``[C + X (T - C), T]``; the lower end is rounded up, so
    ``D >= C + X (T - C)`` holds exactly. ``uniform:0`` is ``uniform`` and ``uniform:1`` is
    ``implicit``. ``X`` moves the deadlines towards the periods (less constrained sets).

The constrained-deadline recipe "D uniform in [C, T]" is the usual one in multiprocessor
acceptance-ratio studies (used, as far as we know, by Davis & Burns, RTSS 2009 -- not verified
against the text; see ``papers/davis-burns2009-uunifast-discard.md``); no paper is claimed for
the ``X`` variant.

Drawing after rounding C is what guarantees ``C <= D <= T`` for every generated task.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from numpy.typing import NDArray

from rtsched.errors import InputError

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

    @property
    def model(self) -> str:
        """The deadline model of the generated sets (``"implicit"`` or ``"constrained"``)."""
        return "implicit" if self.implicit else "constrained"

    def draw(self, rng: np.random.Generator, C: NDArray[np.int64], T: NDArray[np.int64]) -> NDArray[np.int64]:
        """Draw one deadline per task (any shape; ``C <= T`` elementwise). Draws nothing if implicit."""
        if self.implicit:
            return T.copy()
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
    """Parse ``implicit``, ``uniform`` or ``uniform:X``; raise :class:`InputError` naming a bad spec.

    Examples
    --------
    >>> parse_deadlines("uniform:0.5")
    DeadlineDistribution(implicit=False, fraction=Fraction(1, 2))
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
    raise InputError(f"bad deadline spec {spec!r}: choose implicit, uniform or uniform:X", field=_OPTION)
