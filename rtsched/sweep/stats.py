"""Statistics of acceptance-ratio experiments: Wilson intervals and weighted schedulability.

- Wilson score interval for a binomial proportion: E. B. Wilson, "Probable inference, the law
  of succession, and statistical inference", Journal of the American Statistical Association
  22(158), 209-212, 1927. With ``k`` successes in ``n`` trials, ``p = k / n`` and the normal
  quantile ``z``, the interval is

      (p + z²/(2n) ± z·sqrt(p(1 − p)/n + z²/(4n²))) / (1 + z²/n).

  Unlike the Wald interval ``p ± z·sqrt(p(1 − p)/n)`` it never leaves [0, 1] and it does not
  collapse to a point when ``k`` is 0 or ``n`` (the usual case at the ends of a sweep).
- Weighted schedulability: A. Bastoni, B. Brandenburg, J. Anderson, "Cache-related preemption
  and migration delays: empirical approximation and impact on schedulability", OSPERT 2010:
  ``W(p) = Σ_U U·S(U, p) / Σ_U U``, which collapses the utilization axis of a two-parameter
  sweep (``S(U, p)`` is the acceptance ratio at utilization ``U`` and parameter ``p``) into one
  number that weighs high-utilization sets more, as they are the hard ones.

Notes with worked examples: papers/wilson1927.md and
papers/bastoni-brandenburg-anderson2010-weighted.md.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from statistics import NormalDist

__all__ = ["weighted_schedulability", "wilson_interval", "z_value"]


def z_value(confidence: float = 0.95) -> float:
    """The two-sided standard-normal quantile for ``confidence`` (1.959963984540054 for 95%)."""
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must lie strictly between 0 and 1, got {confidence!r}")
    return NormalDist().inv_cdf(0.5 + confidence / 2.0)


def wilson_interval(successes: int, trials: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson (1927) score interval for a binomial proportion.

    Parameters
    ----------
    successes:
        Number of accepted task sets ``k`` (``0 <= k <= n``).
    trials:
        Number of task sets ``n``.
    confidence:
        Coverage of the interval (default 95%).

    Returns
    -------
    tuple of float
        ``(low, high)``, inside ``[0, 1]``; ``(0.0, 1.0)`` when ``trials`` is 0 (no information).

    Examples
    --------
    >>> [round(x, 4) for x in wilson_interval(8, 10)]
    [0.4902, 0.9433]
    """
    if trials < 0 or not 0 <= successes <= trials:
        raise ValueError(f"need 0 <= successes <= trials, got {successes} of {trials}")
    if trials == 0:
        return 0.0, 1.0
    z = z_value(confidence)
    n = float(trials)
    p = successes / n
    z2 = z * z
    denominator = 1.0 + z2 / n
    centre = (p + z2 / (2.0 * n)) / denominator
    half = z * math.sqrt(p * (1.0 - p) / n + z2 / (4.0 * n * n)) / denominator
    # The exact interval contains 0 when k = 0 and 1 when k = n; rounding must not lose that.
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == trials else min(1.0, centre + half)
    return low, high


def weighted_schedulability(utilizations: Sequence[float], ratios: Sequence[float]) -> float:
    """Bastoni, Brandenburg, Anderson (OSPERT 2010): ``W = Σ U·S(U) / Σ U``.

    Parameters
    ----------
    utilizations:
        The utilization ``U`` of each point (the weights; non-negative).
    ratios:
        The acceptance ratio ``S(U)`` at each point.

    Returns
    -------
    float
        The weighted schedulability, in ``[0, 1]``; ``nan`` if every weight is zero.
    """
    if len(utilizations) != len(ratios):
        raise ValueError(f"{len(utilizations)} utilizations for {len(ratios)} ratios")
    total = math.fsum(utilizations)
    if total <= 0.0:
        return math.nan
    return math.fsum(u * s for u, s in zip(utilizations, ratios, strict=True)) / total
