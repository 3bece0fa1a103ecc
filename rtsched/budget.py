"""Work budgets of the exact Python references, so that they end in bounded time at any n.

The references (``reference`` and ``explain`` of every analysis) evaluate the papers' formulas
with Python ints and Fractions, one term at a time. Most are quadratic or worse in the number
of tasks n, and an exact sum of thousands of Fractions has thousands of digits, so at n in the
thousands a reference would run for minutes or hours. Each reference therefore spends a
:class:`Work` budget, counted in *terms*: one unit per evaluation of a per-task term (a β_i, a
dbf, a workload bound), plus more for Fractions with thousands of digits (an addition to such a
sum costs one unit per 4096 bits, an operation between two of them grows with the square of
their size). When the budget runs out the reference answers ``"unknown"``: never False, and
never True without a proof.

A unit is roughly a microsecond of Python (a term built from several Fractions counts as several
units), so the default, :data:`REFERENCE_WORK`, is a second or a few: about n = 1,000 tasks for
a quadratic test. It only bounds the references. The batch kernels (``Analysis.batch`` and
``Analysis.status``, used by sweeps) decide large sets exactly in int64 without it; only a set
a kernel cannot decide in int64 (a float margin or an overflow, rare) goes to the reference and
may then come out "unknown". Where an analysis has a budget of its own (QPA steps, BAR points,
...) the kernel and the reference count that one identically; this one only caps the Python
work of the reference.
"""

from __future__ import annotations

from fractions import Fraction

__all__ = ["REFERENCE_WORK", "Work", "WorkExhausted"]

#: Default work budget of a reference, in terms (see the module docstring).
REFERENCE_WORK = 1_000_000


class WorkExhausted(Exception):
    """A reference spent its work budget; its verdict is "unknown"."""


class Work:
    """A running count of terms evaluated, raising :class:`WorkExhausted` past ``limit``.

    Parameters
    ----------
    limit:
        Most terms to spend; ``None`` for no limit.

    Examples
    --------
    >>> work = Work(10)
    >>> work.spend(8)
    >>> work.spend(8)
    Traceback (most recent call last):
    ...
    rtsched.budget.WorkExhausted: work budget of 10 terms exhausted
    """

    __slots__ = ("limit", "spent")

    def __init__(self, limit: int | None = REFERENCE_WORK) -> None:
        if limit is not None and limit < 0:
            raise ValueError(f"a work budget must be >= 0, got {limit}")
        self.limit = limit
        self.spent = 0

    def spend(self, terms: int = 1) -> None:
        """Count ``terms`` more; raise :class:`WorkExhausted` once the total passes the limit."""
        self.spent += terms
        if self.limit is not None and self.spent > self.limit:
            raise WorkExhausted(f"work budget of {self.limit} terms exhausted")

    def spend_size(self, terms: int, total: Fraction | int) -> None:
        """Spend after a sum of ``terms`` Fractions equal to ``total`` (whose terms were spent already).

        One more unit per term per 4096 bits of the denominator, since big numbers cost more.
        """
        if isinstance(total, Fraction):
            self.spend(terms * (total.denominator.bit_length() >> 12))

    def spend_big(self, operations: int, value: Fraction | int) -> None:
        """Count ``operations`` operations between two numbers about as large as ``value``'s denominator.

        (For an int ``value``: the int itself.) The gcd and division cost grow with the square of the
        size.
        """
        bits = value.denominator.bit_length() if isinstance(value, Fraction) else int(value).bit_length()
        self.spend(operations * (1 + ((bits >> 10) ** 2 >> 1)))

    def describe(self) -> str:
        """``"reference work budget of N terms exhausted"``, for summaries."""
        return f"reference work budget of {self.limit} terms exhausted (rtsched.budget.REFERENCE_WORK)"
