"""The values of an experiment file: where an error points, and the checks of one value.

:class:`Context` makes the :class:`~rtsched.errors.InputError` of a dotted key (``sweep.points``)
with the file and, from the TOML text, the line; the functions check one value and return it
(:func:`generator_value` by the type a generator kind gives the parameter,
``rtsched.sweep.kinds.GeneratorKind.value_types``). :mod:`rtsched.sweep.parsing` reads whole
experiment files with them, and :meth:`~rtsched.sweep.Experiment.with_sizes` checks its
sizes with them.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from rtsched.errors import InputError

__all__ = [
    "Context",
    "SweptAxis",
    "generator_value",
    "integer_range_value",
    "integer_value",
    "line_of",
    "n_value",
    "no_unknown_keys",
    "positive_float",
    "positive_int",
    "probability_value",
    "range_value",
    "string_value",
    "table_value",
]


class Context:
    """Where errors point: the file name and its text (for line numbers)."""

    def __init__(self, file: str | None, text: str | None) -> None:
        self.file = file
        self.text = text

    def error(self, message: str, key: str) -> InputError:
        """An InputError at dotted key ``key`` (``sweep.points``), with its file and line."""
        return InputError(message, file=self.file, line=line_of(self.text, key), field=key)


def line_of(text: str | None, dotted: str) -> int | None:
    """Best-effort line number of a dotted key (``sweep.points``) in TOML text."""
    if not text:
        return None
    header = ""
    table_line: dict[str, int] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip() if not raw.lstrip().startswith(('"', "'")) else raw.strip()
        match = re.fullmatch(r"\[\s*([^\[\]]+?)\s*\]", line)
        if match:
            header = ".".join(part.strip().strip("\"'") for part in match.group(1).split("."))
            table_line.setdefault(header, number)
            continue
        match = re.match(r"([A-Za-z0-9_\-\"'./ ]+?)\s*=", line)
        if match:
            key = ".".join(part.strip().strip("\"'") for part in match.group(1).split("."))
            full = f"{header}.{key}" if header else key
            if full == dotted or dotted.startswith(full + "."):
                return number
    return table_line.get(dotted)


def no_unknown_keys(ctx: Context, table: Mapping[str, Any], allowed: Sequence[str], prefix: str) -> None:
    """Refuse a key of ``table`` (the table at ``prefix``) that is not ``allowed``."""
    for key in table:
        if key not in allowed:
            dotted = f"{prefix}.{key}" if prefix else key
            hint = ", ".join(allowed)
            raise ctx.error(f"unknown key {key!r}; expected one of: {hint}", dotted)


def table_value(ctx: Context, value: Any, key: str, required: bool = False) -> Mapping[str, Any]:
    """The table at ``key``; an empty one if it is absent and not ``required``."""
    if value is None:
        if required:
            raise ctx.error(f"the experiment needs a [{key}] table", key)
        return {}
    if not isinstance(value, Mapping):
        raise ctx.error(f"[{key}] must be a table, got {type(value).__name__}", key)
    return value


def string_value(ctx: Context, value: Any, key: str) -> str:
    """A string."""
    if not isinstance(value, str):
        raise ctx.error(f"expected a string, got {value!r}", key)
    return value


def positive_int(ctx: Context, value: Any, key: str, what: str) -> int:
    """A positive integer (``what`` names it in errors); required."""
    if value is None:
        raise ctx.error(f"{what} is required", key)
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ctx.error(f"{what} must be a positive integer, got {value!r}", key)
    return value


def positive_float(ctx: Context, value: Any, key: str, what: str) -> float:
    """A positive finite number, as a float."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value <= 0:
        raise ctx.error(f"{what} must be a positive number, got {value!r}", key)
    return float(value)


def range_value(ctx: Context, value: Any, key: str, what: str) -> tuple[float, float]:
    """A range ``[lo, hi]`` of non-negative numbers (a GPU generator parameter), as a tuple."""
    if (
        not isinstance(value, list | tuple)
        or len(value) != 2
        or not all(isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v) for v in value)
    ):
        raise ctx.error(f"{what} is a range [lo, hi] of two numbers, got {value!r}", key)
    lo, hi = float(value[0]), float(value[1])
    if not 0 <= lo <= hi:
        raise ctx.error(f"{what} must be a range [lo, hi] with 0 <= lo <= hi, got {list(value)}", key)
    return (lo, hi)


def integer_value(ctx: Context, value: Any, key: str, what: str) -> int:
    """A non-negative integer (a DAG generator parameter such as ``max_depth``; the generator checks its own bounds)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ctx.error(f"{what} must be a non-negative integer, got {value!r}", key)
    return value


def integer_range_value(ctx: Context, value: Any, key: str, what: str) -> tuple[int, int]:
    """An integer range ``[lo, hi]`` with ``1 <= lo <= hi``, or one positive integer ``k`` read as ``[k, k]``.

    The DAG generator's vertex WCETs (``wcet``) and layer widths (``width``), as a tuple.
    """
    if isinstance(value, int) and not isinstance(value, bool):
        value = [value, value]
    if (
        not isinstance(value, list | tuple)
        or len(value) != 2
        or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    ):
        raise ctx.error(f"{what} is an integer or a range [lo, hi] of two integers, got {value!r}", key)
    lo, hi = int(value[0]), int(value[1])
    if not 1 <= lo <= hi:
        raise ctx.error(f"{what} must be a range [lo, hi] of integers with 1 <= lo <= hi, got {list(value)}", key)
    return (lo, hi)


def probability_value(ctx: Context, value: Any, key: str, what: str) -> float:
    """A probability in [0, 1] (the GPU generator's share of non-preemptive kernels)."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        raise ctx.error(f"{what} must be a probability in [0, 1], got {value!r}", key)
    return float(value)


def n_value(ctx: Context, value: Any, key: str) -> int | tuple[int, int]:
    """A number of tasks ``n``: a positive integer, or a range ``{min, max}`` as ``(min, max)``."""
    if isinstance(value, Mapping):
        if set(value) != {"min", "max"}:
            raise ctx.error(f"a range of n is {{min = ..., max = ...}}, got keys {sorted(value)}", key)
        lo = positive_int(ctx, value["min"], f"{key}.min", "n")
        hi = positive_int(ctx, value["max"], f"{key}.max", "n")
        if lo > hi:
            raise ctx.error(f"empty range of n: min = {lo} > max = {hi}", key)
        return (lo, hi) if lo != hi else lo
    return positive_int(ctx, value, key, "n")


def generator_value(ctx: Context, value_type: str | None, value: Any, key: str, what: str) -> Any:
    """A ``[generator]`` value checked by its type (``GeneratorKind.value_types``)."""
    if value_type == "count":
        return n_value(ctx, value, key)
    if value_type == "positive":
        return positive_float(ctx, value, key, what)
    if value_type == "text":
        return string_value(ctx, value, key)
    if value_type == "range":
        return range_value(ctx, value, key, what)
    if value_type == "probability":
        return probability_value(ctx, value, key, what)
    if value_type == "integer":
        return integer_value(ctx, value, key, what)
    if value_type == "integer-range":
        return integer_range_value(ctx, value, key, what)
    if value_type == "weights":
        return weights_value(ctx, value, key)
    return value


def weights_value(ctx: Context, value: Any, key: str) -> tuple[tuple[str, float], ...]:
    """A table ``{name = weight, ...}`` (e.g. vertex types ``{cpu = 0.8, gpu = 0.2}``): ``(name, weight)`` pairs sorted by name.

    Checked by :func:`rtsched.generators.dag.type_weights` (names of letters, digits, ``_``, ``.``,
    ``-``; finite weights >= 0 with a positive sum); the weights are kept as written (floats), so
    that the canonical form writes back what the file says.
    """
    from rtsched.generators.dag import type_weights

    if not isinstance(value, Mapping):
        raise ctx.error(
            f"expected a table {{type = probability, ...}}, e.g. {{cpu = 0.8, gpu = 0.2}}, got {value!r}", key
        )
    try:
        type_weights(value)
    except InputError as err:
        raise ctx.error(err.message, key) from None
    return tuple((name, float(value[name])) for name in sorted(value))


class SweptAxis(Protocol):
    """What a generator kind reads of a swept variable: its points and the key they were given at.

    :class:`rtsched.sweep.identity.Axis` is one. A protocol here, so that the kinds need not
    import the experiment module that imports them.
    """

    @property
    def points(self) -> tuple[Any, ...]:
        """The swept values."""
        ...

    @property
    def key(self) -> str:
        """The dotted key of the points in the file."""
        ...
