"""Shared kernel helpers: validation of ``m``, exact re-decision of float-boundary cases.

Exactness policy: a kernel either decides with integer arithmetic or computes in
floating point with a proven error margin and returns :data:`UNDECIDED` for sets that fall
inside the margin; :func:`redecide` then settles those with the exact reference (Python ints
and Fractions). So the batch verdict equals the exact verdict on every integer input.

Numba's cache does not notice edits in other files; rtsched's cache folder is therefore keyed by
a digest of every kernel source file (``rtsched/_bootstrap.py``), so editing a shared ``@njit``
helper here starts a fresh cache by itself.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np
from numba import njit
from numpy.typing import NDArray

from rtsched.errors import InputError

if TYPE_CHECKING:
    from rtsched.model import TaskSet, TaskSetBatch
    from rtsched.result import Verdict

__all__ = [
    "ACCEPT",
    "EPS",
    "REJECT",
    "UNDECIDED",
    "UNKNOWN",
    "check_processors",
    "ceil_div",
    "floor_div",
    "redecide",
]

#: Kernel verdict codes. UNDECIDED asks the wrapper for the exact reference; UNKNOWN is a
#: budget that ran out (reported as "unknown", never as a rejection).
ACCEPT = np.int8(1)
REJECT = np.int8(0)
UNKNOWN = np.int8(-1)
UNDECIDED = np.int8(2)

#: Unit roundoff of float64.
EPS = 2.0**-53


def check_processors(m: object) -> int:
    """Validate the number of processors."""
    if isinstance(m, bool) or not isinstance(m, int | np.integer) or int(m) < 1:
        raise InputError(f"the number of processors m must be a positive integer, got {m!r}", field="m")
    if int(m) > 1_000_000:
        raise InputError(f"m = {m} is out of range (at most 1000000)", field="m")
    return int(m)


def redecide(
    codes: NDArray[np.int8],
    batch: TaskSetBatch,
    m: int,
    reference: Callable[[TaskSet, int], Verdict],
) -> NDArray[np.int8]:
    """Replace UNDECIDED codes by the exact reference verdict (in place; returns ``codes``)."""
    for s in np.flatnonzero(codes == UNDECIDED):
        verdict = reference(batch[int(s)], m)
        codes[s] = UNKNOWN if verdict == "unknown" else (ACCEPT if verdict else REJECT)
    return codes


@njit(cache=True, inline="always")
def floor_div(a, b):  # noqa: ANN001, ANN201 - numba
    """Floor of a / b for int64, b > 0 (Python semantics)."""
    return a // b


@njit(cache=True, inline="always")
def ceil_div(a, b):  # noqa: ANN001, ANN201 - numba
    """Ceiling of a / b for int64, b > 0."""
    return -((-a) // b)
