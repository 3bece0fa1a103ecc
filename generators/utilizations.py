"""Utilization vectors with a fixed sum, vectorised over many task sets at once.

Every function takes a :class:`numpy.random.Generator` first and returns an array of shape
``(size, n)`` whose rows sum to ``total`` (up to floating-point rounding, well below 1e-9).
Nothing here touches a global random state: the output is a function of the generator's state
and the arguments only.

Sources (one note per paper in ``papers/``):

- :func:`~rtsched.generators.uunifast` -- Bini & Buttazzo, "Measuring the performance of schedulability tests",
  Real-Time Systems 30(1-2), 2005; see ``papers/bini-buttazzo2005-uunifast.md``.
- :func:`~rtsched.generators.uunifast_discard` -- Davis & Burns, "Priority assignment for global fixed priority
  pre-emptive scheduling in multiprocessor real-time systems", RTSS 2009; see
  ``papers/davis-burns2009-uunifast-discard.md``.
- :func:`~rtsched.generators.randfixedsum` -- Stafford's algorithm as used by Emberson, Stafford & Davis,
  "Techniques for the synthesis of multiprocessor tasksets", WATERS 2010; see
  ``papers/emberson2010-randfixedsum.md``.
- :func:`~rtsched.generators.convolutional_fixed_sum` -- Griffin & Davis, "ConvolutionalFixedSum: uniformly
  generating random values with a fixed sum subject to arbitrary constraints", RTAS 2025
  (PyPI ``convolutionalfixedsum``, the optional extra ``rtsched[cfs]``); see
  ``papers/griffin-davis2025-cfs.md``.
"""

from __future__ import annotations

import math
import warnings
from functools import lru_cache

import numpy as np
from numpy.typing import ArrayLike, NDArray

from rtsched.errors import InputError
from rtsched.kernels import kernel

__all__ = [
    "UTILIZATION_METHODS",
    "UtilizationLossWarning",
    "uunifast_loss",
    "warn_uunifast_loss",
    "convolutional_fixed_sum",
    "randfixedsum",
    "uunifast",
    "uunifast_discard",
]

#: Names accepted by :func:`rtsched.generators.parse_utilizations` and ``--utilizations``.
UTILIZATION_METHODS = ("uunifast", "uunifast-discard", "randfixedsum", "cfs")

#: UUniFast-Discard gives up when fewer than this fraction of candidate vectors are accepted.
MIN_DISCARD_ACCEPTANCE = 1e-3
#: ... measured over at least this many candidates (so that an unlucky start does not trip it).
_DISCARD_PILOT = 20_000
#: ... and draws at most about this many values per round (bounds memory, ~256 MB).
_DISCARD_MAX_VALUES = 1 << 25


class UtilizationLossWarning(UserWarning):
    """Warning that plain UUniFast was asked for task utilizations with a sum above 1.

    It can draw ``u_i > 1``, which a task (``C <= T``) cannot have, so the task-set generator caps
    those tasks at ``C = T`` and the set's utilization falls short of the target, silently.
    """


def uunifast_loss(n: int, total: float) -> float:
    """Probability that a UUniFast vector of ``n`` values summing to ``total`` has some ``u_i > 1``.

    Each ``u_i / U`` is Beta(1, n - 1), so ``P(u_i > 1) = (1 - 1/U)^(n - 1)`` for ``U > 1``, and at most
    ``floor(U)`` values can exceed 1 together; inclusion-exclusion over ``k`` of them gives
    ``Σ_k (-1)^(k+1) C(n, k) (1 - k/U)^(n-1)`` (terms with ``k < U``). 0 when ``U <= 1``.
    """
    if total <= 1 or n < 2:
        return 0.0 if total <= 1 else 1.0
    return float(
        sum((-1) ** (k + 1) * math.comb(n, k) * (1 - k / total) ** (n - 1) for k in range(1, n + 1) if k < total)
    )


def warn_uunifast_loss(n: int, total: float, *, stacklevel: int = 2) -> str | None:
    """Warn (:class:`UtilizationLossWarning`) when plain UUniFast task utilizations sum above 1.

    Called where UUniFast utilizations become tasks (``rtsched generate``, sweep experiments);
    the function :func:`~rtsched.generators.uunifast` itself stays silent because other models (GPU kernels, whose
    one-cluster utilization may exceed 1) use it legitimately. Returns the message, or ``None``.
    """
    if not total > 1:
        return None
    share = uunifast_loss(n, total)
    message = (
        f"plain UUniFast with U = {total:g} > 1 draws task utilizations above 1 (here about "
        f"{100 * share:.2g} % of the sets of n = {n}); the generator caps them at C = T, so those sets "
        "lose utilization silently. Use uunifast-discard or randfixedsum (each u_i <= umax) for "
        "multiprocessor task sets."
    )
    warnings.warn(message, UtilizationLossWarning, stacklevel=stacklevel + 1)
    return message


def _check_common(n: int, total: float, size: int) -> None:
    if isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 1:
        raise InputError(f"the number of tasks n must be a positive integer, got {n!r}", field="--n")
    if isinstance(size, bool) or not isinstance(size, int | np.integer) or size < 0:
        raise InputError(f"size must be a non-negative integer, got {size!r}", field="--count")
    if not (isinstance(total, int | float | np.integer | np.floating) and math.isfinite(total) and total > 0):
        raise InputError(
            f"the total utilization must be a positive finite number, got {total!r}", field="--utilization"
        )


# --------------------------------------------------------------------------------------------
# UUniFast (Bini & Buttazzo 2005)
# --------------------------------------------------------------------------------------------
def _uunifast_rows(uniforms: NDArray[np.float64], total: float) -> NDArray[np.float64]:
    """UUniFast on pre-drawn uniforms of shape ``(size, n - 1)``; returns ``(size, n)``.

    Bini & Buttazzo (2005), the UUniFast listing (figure numbering unverified, see the note):
    ``nextSumU = sumU * rand ** (1 / (n - i))``, ``U_i = sumU - nextSumU`` for ``i = 1..n-1``,
    and ``U_n = sumU``. The running sums are a cumulative product, so the whole batch is a
    few array operations; the products are taken left to right exactly as in the listing.
    """
    size, n_minus_1 = uniforms.shape
    exponents = 1.0 / np.arange(n_minus_1, 0, -1, dtype=np.float64)  # 1 / (n - i), i = 1..n-1
    running = np.empty((size, n_minus_1 + 1))
    running[:, 0] = total
    np.power(uniforms, exponents, out=running[:, 1:])
    np.cumprod(running, axis=1, out=running)  # running[:, i] = sumU after task i
    out = np.empty_like(running)
    np.subtract(running[:, :-1], running[:, 1:], out=out[:, :-1])
    out[:, -1] = running[:, -1]
    return out


def uunifast(rng: np.random.Generator, n: int, total: float, size: int) -> NDArray[np.float64]:
    """Draw ``size`` utilization vectors uniformly from the simplex ``{u >= 0, sum u = total}``.

    UUniFast (Bini & Buttazzo 2005). Each individual ``u_i`` may exceed 1 when ``total > 1``
    (probability :func:`~rtsched.generators.uunifast_loss`); use :func:`~rtsched.generators.uunifast_discard` or :func:`~rtsched.generators.randfixedsum` for
    multiprocessor task sets. ``rtsched generate`` and sweep experiments warn
    (:func:`~rtsched.generators.utilizations.warn_uunifast_loss`) when plain UUniFast task utilizations sum above 1.

    Parameters
    ----------
    rng:
        Source of randomness (the only one used).
    n:
        Number of tasks per set.
    total:
        Target total utilization ``U``.
    size:
        Number of vectors.

    Returns
    -------
    numpy.ndarray
        Shape ``(size, n)``; row ``s`` sums to ``total``. Marginally, ``u_i / U`` follows
        Beta(1, n - 1).
    """
    _check_common(n, total, size)
    return _uunifast_rows(rng.random((size, n - 1)), total)


def uunifast_discard(
    rng: np.random.Generator,
    n: int,
    total: float,
    size: int,
    umax: float = 1.0,
    *,
    min_acceptance: float = MIN_DISCARD_ACCEPTANCE,
) -> NDArray[np.float64]:
    """UUniFast-Discard (Davis & Burns 2009): UUniFast vectors, discarding any with ``u_i > umax``.

    The accepted vectors are uniform on the simplex cut by the cube ``[0, umax]^n``. The
    acceptance rate falls very fast as ``total`` approaches ``n * umax`` (Emberson et al. 2010
    show it is impractical near that limit); when fewer than ``min_acceptance`` of the
    candidates are accepted (measured over at least 20 000 candidates) an :class:`~rtsched.errors.InputError`
    is raised that recommends :func:`~rtsched.generators.randfixedsum`, which samples the same distribution directly.

    Parameters
    ----------
    rng, n, total, size:
        As for :func:`~rtsched.generators.uunifast`.
    umax:
        Upper bound of every ``u_i`` (default 1: no task above one processor).
    min_acceptance:
        Acceptance rate below which generation stops with an error.

    Returns
    -------
    numpy.ndarray
        Shape ``(size, n)``, every entry in ``[0, umax]``.
    """
    _check_common(n, total, size)
    if not (math.isfinite(umax) and umax > 0):
        raise InputError(f"umax must be a positive number, got {umax!r}", field="--umax")
    if total > n * umax:
        raise InputError(
            f"no vector of {n} utilizations at most {umax} sums to {total} (n * umax = {n * umax})",
            field="--utilization",
        )
    accepted: list[NDArray[np.float64]] = []
    n_accepted = 0
    n_drawn = 0
    while n_accepted < size:
        missing = size - n_accepted
        # Draw enough for the remaining sets at the acceptance rate seen so far (plus a margin);
        # the chunk sizes depend only on the generator's output, so the result is reproducible.
        rate = max(n_accepted / n_drawn, min_acceptance) if n_drawn else 1.0
        chunk = int(min(max(1.2 * missing / rate + 64, 1024), max(1024, _DISCARD_MAX_VALUES // n)))
        candidates = _uunifast_rows(rng.random((chunk, n - 1)), total)
        keep = np.flatnonzero(candidates.max(axis=1) <= umax)
        accepted.append(candidates[keep[:missing]])
        n_accepted += min(keep.size, missing)
        n_drawn += chunk
        if n_drawn >= _DISCARD_PILOT and n_accepted < min_acceptance * n_drawn:
            raise InputError(
                f"UUniFast-Discard accepted only {n_accepted} of {n_drawn} candidate vectors for "
                f"n = {n}, U = {total}, umax = {umax}; this rejection rate is impractical. Use "
                "RandFixedSum (--utilizations randfixedsum / utilizations='randfixedsum'), which "
                "samples the same distribution without rejection.",
                field="--utilizations",
            )
    return np.concatenate(accepted, axis=0) if accepted else np.empty((0, n))


# --------------------------------------------------------------------------------------------
# RandFixedSum (Stafford 2006; Emberson, Stafford & Davis 2010)
# --------------------------------------------------------------------------------------------
@lru_cache(maxsize=64)
def _randfixedsum_table(n: int, s: float) -> tuple[NDArray[np.float64], int, float]:
    """The transition probabilities of Stafford's algorithm for ``n`` values summing to ``s``.

    Works in the unit cube ``[0, 1]^n``. The slice ``{x in [0,1]^n, sum x = s}`` is cut into
    simplices; ``w[i, j]`` is proportional to the volume of the part of the ``i``-dimensional
    slice whose integer part is ``j``, computed by the recurrence in Stafford's randfixedsum
    (the recurrence the WATERS 2010 paper publishes, Sect. 4; numbering unverified). The
    table ``t[i - 1, j]`` is the probability of staying in the same simplex layer when
    one coordinate is removed. Values are scaled by ``realmax`` so that the volumes, which
    shrink like ``1 / n!``, do not underflow.

    Returns ``(t, k, s)`` with ``k = floor(s)`` clipped to ``[0, n - 1]`` and ``s`` clipped into
    ``[k, k + 1]``.
    """
    k = max(min(math.floor(s), n - 1), 0)
    s = max(min(s, k + 1.0), float(k))
    s1 = s - np.arange(k, k - n, -1, dtype=np.float64)  # s - k, s - k + 1, ..., s - k + n - 1
    s2 = np.arange(k + n, k, -1, dtype=np.float64) - s  # k + n - s, ..., k + 1 - s
    huge = np.finfo(np.float64).max
    tiny = np.finfo(np.float64).smallest_subnormal
    w = np.zeros((n, n + 1))
    w[0, 1] = huge
    t = np.zeros((max(n - 1, 1), n))
    for i in range(2, n + 1):
        tmp1 = w[i - 2, 1 : i + 1] * s1[:i] / i
        tmp2 = w[i - 2, 0:i] * s2[n - i : n] / i
        w[i - 1, 1 : i + 1] = tmp1 + tmp2
        tmp3 = w[i - 1, 1 : i + 1] + tiny
        upper_layer = s2[n - i : n] > s1[:i]
        t[i - 2, :i] = np.where(upper_layer, tmp2 / tmp3, 1.0 - tmp1 / tmp3)
    t.setflags(write=False)
    return t, k, s


#: Rows of uniforms drawn per call in :func:`~rtsched.generators.randfixedsum` (bounds memory; the output does not
#: depend on it, because consecutive draws continue the same stream row by row).
_RFS_CHUNK = 1 << 16


@kernel
def _randfixedsum_kernel(
    t: NDArray[np.float64],
    k: int,
    s: float,
    draws: NDArray[np.float64],
    shrink: NDArray[np.float64],
    out: NDArray[np.float64],
) -> None:
    """Sampling phase of RandFixedSum in the unit cube, then a random permutation, per row.

    ``draws`` has shape ``(size, 3 (n - 1))``: per set, ``n - 1`` uniforms choose the simplex
    layer, ``n - 1`` place the point inside the simplex (their powers ``rand ** (1 / i)`` come
    precomputed in ``shrink``, which numpy vectorises better), ``n - 1`` drive a Fisher-Yates
    shuffle. Serial and free of random state: the output is a function of the draws only.
    """
    size, n = out.shape
    for row in range(size):
        remaining = s
        layer = k
        partial_sum = 0.0
        product = 1.0
        for step in range(n - 1):
            i = n - 1 - step
            stays = 1.0 if draws[row, step] <= t[i - 1, layer] else 0.0
            partial_sum += (1.0 - shrink[row, step]) * product * remaining / (i + 1)
            product *= shrink[row, step]
            out[row, step] = partial_sum + product * stays
            remaining -= stays
            layer -= int(stays)
        out[row, n - 1] = partial_sum + product * remaining
        # The walk treats coordinates asymmetrically; a uniform permutation makes them exchangeable.
        for i in range(n - 1, 0, -1):
            j = int(draws[row, 2 * (n - 1) + (n - 1 - i)] * (i + 1))
            if j > i:  # unreachable for a uniform in [0, 1); kept so that rounding can never index out
                j = i
            out[row, i], out[row, j] = out[row, j], out[row, i]


def randfixedsum(
    rng: np.random.Generator,
    n: int,
    total: float,
    size: int,
    low: float = 0.0,
    high: float = 1.0,
) -> NDArray[np.float64]:
    """Draw ``size`` vectors uniformly from ``{u in [low, high]^n : sum u = total}``.

    Stafford's RandFixedSum, as used for task-set synthesis by Emberson, Stafford & Davis
    (WATERS 2010). Unlike UUniFast-Discard it never rejects, so it stays fast when ``total`` is
    close to ``n * high``.

    The algorithm maps the problem to the unit cube, walks down one coordinate at a time
    choosing between the two neighbouring simplex layers with the precomputed probabilities of
    ``_randfixedsum_table``, places each coordinate with a ``rand ** (1 / i)`` step (the
    same inverse-CDF step as UUniFast), and finally applies a random permutation to each vector
    because the construction treats the coordinates asymmetrically.

    Parameters
    ----------
    rng, n, total, size:
        As for :func:`~rtsched.generators.uunifast`.
    low, high:
        Common bounds of every ``u_i`` (``low < high``; ``n * low <= total <= n * high``).

    Returns
    -------
    numpy.ndarray
        Shape ``(size, n)``.
    """
    _check_common(n, total, size)
    if not (math.isfinite(low) and math.isfinite(high) and low < high):
        raise InputError(f"randfixedsum needs finite bounds low < high, got [{low}, {high}]", field="--umax")
    if not n * low <= total <= n * high:
        raise InputError(
            f"no vector of {n} utilizations in [{low}, {high}] sums to {total}",
            field="--utilization",
        )
    if n == 1:
        return np.full((size, 1), float(total))
    scale = high - low
    t, k, s = _randfixedsum_table(n, (total - n * low) / scale)
    exponents = 1.0 / np.arange(n - 1, 0, -1, dtype=np.float64)  # 1 / i for i = n-1, ..., 1
    out = np.empty((size, n))
    for start in range(0, size, _RFS_CHUNK):
        stop = min(size, start + _RFS_CHUNK)
        draws = rng.random((stop - start, 3 * (n - 1)))
        shrink = np.power(draws[:, n - 1 : 2 * (n - 1)], exponents)
        _randfixedsum_kernel(t, k, s, draws, shrink, out[start:stop])
    out *= scale
    out += low
    # Rounding can put a coordinate an ulp outside the cube; the sum moves by as little.
    np.clip(out, low, high, out=out)
    return out


# --------------------------------------------------------------------------------------------
# ConvolutionalFixedSum (Griffin & Davis, RTAS 2025) -- optional dependency
# --------------------------------------------------------------------------------------------
def _import_cfs():  # returns the module
    try:
        import convolutionalfixedsum
    except ImportError:  # pragma: no cover - depends on the environment
        raise InputError(
            "per-task utilization bounds need the ConvolutionalFixedSum package: "
            "pip install 'rtsched[cfs]' (PyPI convolutionalfixedsum)",
            field="--utilizations",
        ) from None
    return convolutionalfixedsum


def convolutional_fixed_sum(
    rng: np.random.Generator,
    n: int,
    total: float,
    size: int,
    lower: ArrayLike | float = 0.0,
    upper: ArrayLike | float = 1.0,
) -> NDArray[np.float64]:
    """Draw ``size`` vectors uniformly from ``{u : lower_i <= u_i <= upper_i, sum u = total}``.

    ConvolutionalFixedSum (Griffin & Davis, RTAS 2025), through the analytical sampler
    ``convolutionalfixedsum.cfsa`` of the authors' package (optional extra ``rtsched[cfs]``).
    That sampler has its own C random generator; to keep rtsched's rule that everything is a
    function of ``rng``, one 63-bit seed is drawn from ``rng`` per call and handed to the
    package's ``CFSAConfig``. The package samples one vector per call, so this loops in
    Python: use it for per-task bounds, and :func:`~rtsched.generators.randfixedsum` when the bounds are common.

    Parameters
    ----------
    rng, n, total, size:
        As for :func:`~rtsched.generators.uunifast`.
    lower, upper:
        Per-task bounds (scalars or sequences of length ``n``).

    Returns
    -------
    numpy.ndarray
        Shape ``(size, n)``.
    """
    _check_common(n, total, size)
    lo = np.broadcast_to(np.asarray(lower, dtype=np.float64), (n,)).copy()
    hi = np.broadcast_to(np.asarray(upper, dtype=np.float64), (n,)).copy()
    if not (np.all(np.isfinite(lo)) and np.all(np.isfinite(hi)) and np.all(lo <= hi)):
        raise InputError("per-task bounds must be finite with lower <= upper", field="--umax")
    if not lo.sum() <= total <= hi.sum():
        raise InputError(
            f"no vector within the per-task bounds sums to {total} (bounds allow [{lo.sum()}, {hi.sum()}])",
            field="--utilization",
        )
    cfs = _import_cfs()
    seed = int(rng.integers(1, 2**63 - 1))
    out = np.empty((size, n))
    # Degenerate coordinates are decided here: the C sampler crashes (segfault) on n = 1, and a
    # zero-width bound or a total on the boundary leaves nothing random to draw anyway.
    free = lo < hi
    out[:, ~free] = lo[~free]
    rest = float(total) - float(lo[~free].sum())
    lo_free, hi_free = lo[free], hi[free]
    n_free = int(free.sum())
    if n_free == 0:
        return out
    # Within a relative 1e-9 of a corner (e.g. U = n − 1 ulp) the package's root finder fails
    # (CFSAError 8-33) and the polytope is a point for every practical purpose: take the corner,
    # moved along the bounds' widths so that the sum is ``rest``.
    tol = 1e-9 * max(1.0, float(hi_free.sum()))
    if n_free == 1 or rest <= lo_free.sum() + tol or rest >= hi_free.sum() - tol:
        if n_free == 1:
            point = np.array([rest])
        else:
            width = (hi_free - lo_free) / (hi_free - lo_free).sum()
            low = rest - lo_free.sum() <= hi_free.sum() - rest
            point = lo_free + (rest - lo_free.sum()) * width if low else hi_free - (hi_free.sum() - rest) * width
            point = np.clip(point, lo_free, hi_free)
        out[:, free] = point
        return out
    config = cfs.CFSAConfig(seed=seed)
    for row in range(size):
        out[row, free] = cfs.cfsa(n_free, rest, lower_constraints=lo_free, upper_constraints=hi_free, config=config)
    return out
