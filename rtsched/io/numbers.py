"""The number rule of rtsched's readers: how a written value becomes an exact number.

Without a time unit a value is an integer number of ticks written with the ASCII digits ``0-9``
and an optional sign; with a time unit, a real number (an ASCII decimal with optional fraction
and exponent at most ±100, or ``p/q``) converted exactly. Every refusal says why (see the
package docstring, :mod:`rtsched.io`). Also priorities and the CSV ``set`` column (integers
spelled as ticks are) and the clipping of written text in messages.
"""

from __future__ import annotations

import re
from decimal import Decimal
from fractions import Fraction
from typing import Any, NamedTuple

from rtsched.errors import InputError
from rtsched.model import MAX_TIME

__all__ = [
    "Scalar",
    "scalar_to_fraction",
    "scalar_to_int",
    # The number rule's parts, for the other readers of rtsched.io (not re-exported by it):
    "INTEGER",
    "clip",
    "field_name",
    "parse_real",
    "parse_unit",
    "scalar_to_priority",
    "set_number",
]


class Scalar(NamedTuple):
    """A scalar of a JSON or YAML document: its kind and its text as written."""

    kind: str  # "num", "str", "bool" or "null"
    text: str


#: An integer as rtsched reads it: ASCII digits with an optional sign, nothing else.
INTEGER = re.compile(r"[+-]?[0-9]+")
#: A real number (with a time unit): ASCII decimal with optional fraction and exponent, or p/q.
_REAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE]([+-]?[0-9]+))?|[+-]?[0-9]+/[0-9]+")
#: Largest decimal exponent read (``1e40010`` would be a 40,011-digit number).
_MAX_EXPONENT = 100


def parse_real(text: str) -> Fraction | None:
    """The exact value of a real-number spelling (``_REAL``), or None if it is not one.

    Raises InputError for an exponent beyond ``_MAX_EXPONENT`` or a zero denominator.
    """
    match = _REAL.fullmatch(text)
    if match is None:
        return None
    exponent = match.group(1)
    if exponent is not None and (len(exponent.lstrip("+-")) > 4 or abs(int(exponent)) > _MAX_EXPONENT):
        raise InputError(f"{text!r} has an exponent beyond ±{_MAX_EXPONENT}; time values are at most {MAX_TIME}")
    try:
        return Fraction(text)
    except ZeroDivisionError:
        raise InputError(f"{text!r} divides by zero") from None


def parse_unit(time_unit: Any) -> str | None:
    """Check a time unit; return it as text (as written, for messages) or None."""
    if time_unit is None:
        return None
    text = str(time_unit).strip()
    try:
        value = None if isinstance(time_unit, bool) or len(text) > 100 else parse_real(text)
    except InputError:
        value = None
    if value is None or value <= 0:
        raise InputError(f"invalid time unit {clip(repr(time_unit))}; give a positive number such as 0.001")
    return text


def _unit_hint(denominator: int) -> str:
    exact = Decimal(1) / Decimal(denominator)
    return str(exact) if Fraction(exact) == Fraction(1, denominator) else f"1/{denominator}"


def _not_a_number(text: str) -> InputError:
    """The error for a value that is not a number rtsched reads, saying why when it can tell."""
    low = text.lower().lstrip("+-.")
    if low in ("nan", "inf", "infinity"):
        return InputError(f"{text!r} is not a finite number")
    if any(c.isdigit() for c in text) and not text.isascii():
        return InputError(f"{text!r} is not a number: write digits with the ASCII characters 0-9")
    if "_" in text and _REAL.fullmatch(text.replace("_", "")):
        return InputError(f"{text!r} is not a number: write it without '_'")
    return InputError(f"{text!r} is not a number")


def _written_text(value: Scalar, not_a: str, too_long_for: str, max_chars: int = 100) -> str:
    """The stripped text of a written value, or the InputError for a bad one.

    A boolean, a missing value (null or blank) and one longer than ``max_chars`` are refused;
    ``not_a`` and ``too_long_for`` name what the value should have been.
    """
    text = value.text.strip()
    if value.kind == "bool":
        raise InputError(f"{text} is a boolean, not {not_a}")
    if value.kind == "null" or not text:
        raise InputError("the value is missing")
    if len(text) > max_chars:
        raise InputError(f"{text[:20]!r}... is too long for {too_long_for} ({len(text)} characters)")
    return text


def scalar_to_fraction(value: Scalar, max_chars: int = 100) -> Fraction:
    """Check one written real number (a factor, a fraction of work) and return it exactly.

    The spellings are those of values with a time unit (see :func:`scalar_to_int`): an ASCII
    decimal with optional fraction and exponent (at most ±100), or ``p/q``.
    """
    text = _written_text(value, "a number", "a number", max_chars)
    number = parse_real(text)
    if number is None:
        raise _not_a_number(text)
    return number


def _not_an_integer(text: str, hint: str) -> InputError:
    return InputError(
        f"{text!r} is not an integer: without a time unit, a value is a number of ticks written "
        f"with the digits 0-9 and an optional sign{hint}"
    )


def scalar_to_int(value: Scalar, unit: str | None) -> int | str:
    """Check one written value; return it as an int (no unit) or as its text (unit given).

    Without a unit a value is an integer number of ticks, written with the ASCII digits 0-9 and
    an optional sign (``1000``, ``+7``); ``1e3``, ``1_000``, ``3.0``, ``0x10`` and other scripts'
    digits are refused, saying why. With a unit a value is a real number: an ASCII decimal with an
    optional fraction and exponent (``0.5``, ``2.5e-3``; exponent at most ±100) or ``p/q``.
    """
    text = _written_text(value, "a number", "a time value")
    number: Fraction | None
    if INTEGER.fullmatch(text):  # the common case; int() is much faster than Fraction()
        if unit is None:
            return int(text)
        number = Fraction(int(text))
    else:
        try:
            number = parse_real(text)
        except InputError:
            if unit is not None:
                raise
            number = None
            if _REAL.fullmatch(text):  # a huge exponent: a real number, but not written as an integer
                raise _not_an_integer(text, "") from None
        if number is None:
            raise _not_a_number(text)
        if unit is None:
            if number.denominator != 1:
                hint = _unit_hint(number.denominator)
                raise InputError(
                    f"{text} is not a whole number of ticks; give a time unit to convert real-valued times, "
                    f"e.g. --time-unit {hint} (in Python: time_unit={hint!r})"
                )
            raise _not_an_integer(text, f" (write {int(number)})" if abs(number) <= MAX_TIME else "")
    if abs(number) / Fraction(unit) > MAX_TIME:
        raise InputError(f"{text} is too large: at most {MAX_TIME} ticks of {unit}")
    return text


def scalar_to_priority(value: Scalar) -> int:
    """A written priority: an integer (any sign, any time unit), spelled as ticks are without a unit."""
    text = _written_text(value, "an integer priority", "a priority")
    if INTEGER.fullmatch(text):
        return int(text)
    if _REAL.fullmatch(text):
        raise InputError(
            f"{text!r} is not an integer priority: write it with the digits 0-9 and an optional sign (smaller = higher)"
        )
    raise _not_a_number(text)


def set_number(text: str) -> int | None:
    """The CSV ``set`` column's value: an integer written as for times (:data:`INTEGER`), or None."""
    text = text.strip()
    return int(text) if len(text) <= 100 and INTEGER.fullmatch(text) else None


def clip(text: str, size: int = 40) -> str:
    """``text``, cut to ``size`` characters for a message."""
    return text if len(text) <= size else text[:size] + "..."


def field_name(name: str) -> str | None:
    """A key or column named in an error's location: as written if it prints on one short line."""
    return name if name.isprintable() and len(name) <= 40 else None
