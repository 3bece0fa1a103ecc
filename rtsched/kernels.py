"""The kernel toolbox: verdict codes, decorators, exact integer helpers, re-decision.

One place for what every Numba kernel shares:

* verdict codes (:data:`ACCEPT`, :data:`REJECT`, :data:`UNKNOWN`, :data:`UNDECIDED`) and the
  named internal sentinels (:data:`CONTINUE`, :data:`NONE`, :data:`SIGN_UNDECIDED`);
* the decorators :func:`kernel` (a serial ``@njit``: ``cache=True``, ``nogil=True``, never
  ``fastmath``) and :func:`batch_kernel` (the same with ``parallel=True``, for ``prange``
  drivers over task sets), and :func:`sets_kernel` (the ``prange`` driver of a one-set kernel);
* exact integer helpers: :func:`floor_divmod` (⌊a/b⌋ and a mod b through a float reciprocal,
  exact under one precondition, :data:`RECIPROCAL_EXACT`), :func:`floor_divmod_any` (any a ≥ 0),
  :func:`gcd`, :func:`dbf` (the demand bound function) and :func:`deadline_step` (the walk over
  the absolute deadlines D_i + k·T_i in increasing order);
* :func:`margin_verdict` (a float comparison with a proven error margin: a verdict, or
  UNDECIDED inside the margin);
* :func:`redecide` and :func:`verdict_code` (from the exact reference's verdict to a code).

Exactness policy: a kernel either decides with integer arithmetic or computes in
floating point with a proven error margin and returns :data:`UNDECIDED` for sets that fall
inside the margin; :func:`redecide` then settles those with the exact reference (Python ints
and Fractions). So the batch verdict equals the exact verdict on every integer input.

Numba's cache does not notice edits in other files; rtsched's cache folder is therefore keyed by
a digest of every kernel source file (``rtsched/_bootstrap.py``), so editing a shared ``@njit``
helper here starts a fresh cache by itself.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
from numba import njit, prange
from numpy.typing import NDArray

from rtsched.errors import InputError

if TYPE_CHECKING:
    from rtsched.model import TaskSet, TaskSetBatch
    from rtsched.result import Verdict

__all__ = [
    "ACCEPT",
    "CONTINUE",
    "EPS",
    "NONE",
    "RECIPROCAL_EXACT",
    "REJECT",
    "SIGN_UNDECIDED",
    "UNDECIDED",
    "UNKNOWN",
    "batch_kernel",
    "check_processors",
    "dbf",
    "deadline_step",
    "floor_divmod",
    "floor_divmod_any",
    "gcd",
    "kernel",
    "margin_verdict",
    "redecide",
    "redecide_by",
    "sets_kernel",
    "top_sum",
    "verdict_code",
]

#: Kernel verdict codes. UNDECIDED asks the wrapper for the exact reference; UNKNOWN is a
#: budget that ran out (reported as "unknown", never as a rejection).
ACCEPT = np.int8(1)
REJECT = np.int8(0)
UNKNOWN = np.int8(-1)
UNDECIDED = np.int8(2)
#: Internal sentinel of a kernel step that reached no verdict yet: "go on" (never returned to
#: a caller outside the kernel that produced it).
CONTINUE = np.int8(-2)
#: "No such time value" (e.g. no absolute deadline below t); time values are never negative.
NONE = -1
#: An exact sign (−1, 0, 1) that could not be computed within int64: decide elsewhere.
SIGN_UNDECIDED = 2

#: Unit roundoff of float64.
EPS = 2.0**-53


def check_processors(m: object) -> int:
    """Validate the number of processors."""
    if isinstance(m, bool) or not isinstance(m, int | np.integer) or int(m) < 1:
        raise InputError(f"the number of processors m must be a positive integer, got {m!r}", field="m")
    if int(m) > 1_000_000:
        raise InputError(f"m = {m} is out of range (at most 1000000)", field="m")
    return int(m)


def verdict_code(verdict: Verdict) -> np.int8:
    """The kernel code of a reference verdict: True → ACCEPT, False → REJECT, "unknown" → UNKNOWN."""
    return UNKNOWN if verdict == "unknown" else (ACCEPT if verdict else REJECT)


def redecide_by(codes: NDArray[np.int8], decide: Callable[[int], Verdict]) -> NDArray[np.int8]:
    """Replace every UNDECIDED code ``codes[s]`` by ``decide(s)``'s code (in place; returns ``codes``)."""
    for s in np.flatnonzero(codes == UNDECIDED):
        codes[s] = verdict_code(decide(int(s)))
    return codes


def redecide(
    codes: NDArray[np.int8],
    batch: TaskSetBatch,
    m: int,
    reference: Callable[[TaskSet, int], Verdict],
) -> NDArray[np.int8]:
    """Replace UNDECIDED codes by the exact reference verdict (in place; returns ``codes``)."""
    return redecide_by(codes, lambda s: reference(batch[s], m))


# --- decorators ------------------------------------------------------------------------------
def kernel(fn: Callable[..., Any] | None = None, **options: Any) -> Any:
    """``@kernel`` / ``@kernel(inline="always")``: a serial Numba kernel of rtsched.

    Fixes the house options in one place: ``cache=True`` (kernels compile once per cache
    folder), ``nogil=True`` (threads of a sweep run them side by side) and no ``fastmath`` (a
    verdict must not depend on reassociated float sums). Extra ``options`` go to ``njit``.
    """
    if "fastmath" in options:
        raise ValueError("rtsched kernels never use fastmath (verdicts are exact)")
    options = {"cache": True, "nogil": True, **options}
    return njit(**options) if fn is None else njit(**options)(fn)


def batch_kernel(fn: Callable[..., Any] | None = None, **options: Any) -> Any:
    """``@batch_kernel``: a ``prange`` driver over task sets (:func:`kernel` with ``parallel=True``)."""
    return kernel(fn, parallel=True, **options)


#: The one-set kernel a driver made by :func:`sets_kernel` calls; each driver binds its own (the
#: templates below are never compiled with this placeholder).
_one_set: Any = None


def _each_set(C, D, T, offsets, m, out):  # template of sets_kernel(one)
    for s in prange(out.shape[0]):
        lo, hi = offsets[s], offsets[s + 1]
        out[s] = _one_set(C[lo:hi], D[lo:hi], T[lo:hi], m)


def _each_set_budget(C, D, T, offsets, m, budget, out):  # template of sets_kernel(one, budget=True)
    for s in prange(out.shape[0]):
        lo, hi = offsets[s], offsets[s + 1]
        out[s] = _one_set(C[lo:hi], D[lo:hi], T[lo:hi], m, budget)


def sets_kernel(one: Any, *, budget: bool = False) -> Any:
    """The batch kernel of a one-set kernel: ``one`` on every set of a batch, in ``prange``.

    ``sets_kernel(one)`` is ``kernel(C, D, T, offsets, m, out)`` with
    ``out[s] = one(C_s, D_s, T_s, m)``; with ``budget=True`` it is
    ``kernel(C, D, T, offsets, m, budget, out)`` with ``out[s] = one(C_s, D_s, T_s, m, budget)``
    (the registry's two kernel signatures, :mod:`rtsched.registry`). Analyses whose sets share
    per-chunk workspaces write their own driver.

    The driver is the template's code with ``one`` bound as its global ``_one_set`` and a name of
    its own, so Numba caches it like any kernel (the cache entry is named after ``one``). A
    closure over ``one``, or a driver taking ``one`` as an argument, would compile again in every
    process: Numba keys those by the pickled dispatcher, which differs from process to process
    (measured: a new compile on each run).
    """
    template = _each_set_budget if budget else _each_set
    py_func = one.py_func
    name = f"{py_func.__module__}.{py_func.__name__}.sets"
    driver = types.FunctionType(template.__code__, {**template.__globals__, "_one_set": one}, name)
    driver.__qualname__ = name
    driver.__doc__ = f"``{py_func.__name__}`` on every set of a batch (:func:`rtsched.kernels.sets_kernel`)."
    return batch_kernel(driver)


# --- exact integer helpers -------------------------------------------------------------------
#: :func:`floor_divmod` is exact for 0 ≤ a < RECIPROCAL_EXACT and 0 < b < RECIPROCAL_EXACT.
RECIPROCAL_EXACT = 2**51


@kernel(inline="always")
def floor_divmod(a, b, inv_b):
    """(⌊a/b⌋, a mod b) exactly, for 0 ≤ a < 2**51 and 0 < b < 2**51, given inv_b = fl(1/b).

    Why: a multiplication is several times cheaper than a division, and the divisor (a period)
    is fixed for a whole set while a varies. Why exact: inv_b and the product are each rounded
    once (relative error ≤ 2**−53 each), so a·inv_b is within (a/b)·2**−51.9 < 1/2 of a/b and
    its truncation q0 is ⌊a/b⌋ − 1, ⌊a/b⌋ or ⌊a/b⌋ + 1; the remainder a − q0·b (exact in
    int64) is then < 0, in [0, b) or ≥ b, and one branch-free step corrects q0 to ⌊a/b⌋.
    (tests/test_kernels.py checks the edges of the precondition.)
    """
    q = np.int64(np.float64(a) * inv_b)
    r = a - q * b
    fix = np.int64(r >= b) - np.int64(r < 0)
    return q + fix, r - fix * b


@kernel(inline="always")
def floor_divmod_any(a, b, inv_b):
    """:func:`floor_divmod` for any 0 ≤ a (integer division from :data:`RECIPROCAL_EXACT` on)."""
    if a >= 2251799813685248:  # RECIPROCAL_EXACT (a literal: Numba freezes globals anyway)
        q = a // b
        return q, a - q * b
    return floor_divmod(a, b, inv_b)


@kernel
def gcd(a, b):
    """Greatest common divisor of |a| and |b|; gcd(0, 0) = 1, so that it can always divide."""
    a = -a if a < 0 else a
    b = -b if b < 0 else b
    while b != 0:
        a, b = b, a % b
    return a if a != 0 else 1


@kernel(inline="always")
def dbf(C, D, T, t):
    """dbf(τ, t) = max(0, ⌊(t − D)/T⌋ + 1)·C in int64 (Baruah, Mok, Rosier, RTSS 1990).

    The caller guarantees no overflow.
    """
    if t < D:
        return 0
    return ((t - D) // T + 1) * C


@kernel(inline="always")
def deadline_step(C, T, nxt):
    """One step of the walk over the absolute deadlines D_i + k·T_i in increasing order.

    ``nxt[i]`` is task i's next deadline not yet passed (start with a copy of D). Returns
    ``(t, c)``: t = min nxt, the next distinct deadline, and c = Σ C_i over the tasks with a
    deadline at t, whose ``nxt`` move on by T_i. Summing c over the steps gives the synchronous
    demand h(t) = Σ dbf(τi, t) at each t.
    """
    n = nxt.shape[0]
    t = nxt[0]
    for i in range(1, n):
        if nxt[i] < t:
            t = nxt[i]
    c = 0
    for i in range(n):
        if nxt[i] == t:
            c += C[i]
            nxt[i] += T[i]
    return t, c


@kernel(inline="always")
def margin_verdict(diff, margin):
    """The verdict of ``lhs ≤ rhs`` from the float difference ``diff = lhs − rhs``.

    ``margin`` bounds the rounding error of ``diff`` (each kernel proves its own): REJECT if
    diff > margin, ACCEPT if diff < −margin, else UNDECIDED (:func:`redecide` asks the exact
    reference).
    """
    if diff > margin:
        return REJECT
    if diff < -margin:
        return ACCEPT
    return UNDECIDED


@kernel(inline="always")
def top_sum(values, count, scratch):
    """The sum of the ``count`` largest of ``values`` (non-negative; all of them if fewer).

    ``scratch`` has length ≥ min(count, len(values)). A partial insertion sort into
    ``scratch[:count]`` (descending): O(len · count) with count = m − 1 small, and no allocation.
    Used for the (m − 1) largest carry-in increments (BAR's Eq. (5), Guan et al.'s Eq. (9)-(11)).
    """
    n = values.shape[0]
    if count <= 0:
        return 0
    if count >= n:
        total = 0
        for i in range(n):
            total += values[i]
        return total
    filled = 0
    for i in range(n):
        v = values[i]
        if filled < count:
            j = filled
            filled += 1
        elif v > scratch[count - 1]:
            j = count - 1
        else:
            continue
        while j > 0 and scratch[j - 1] < v:
            scratch[j] = scratch[j - 1]
            j -= 1
        scratch[j] = v
    total = 0
    for i in range(count):
        total += scratch[i]
    return total
