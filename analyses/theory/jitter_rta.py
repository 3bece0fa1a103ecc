"""Uniprocessor fixed-priority response times with release jitter (private module; see papers/chen2019-self-suspension-review.md).

Shared by the contention-free analyses of CPU–GPU segmented tasks (``seg-oblivious``,
``seg-jitter-*`` in analyses/segmented/) and open to any family whose higher-priority tasks are
bounded by a per-job CPU demand ``X_h``, a minimum inter-arrival time ``T_h`` and a release
jitter ``J_h``. The response time of the task under analysis is bounded by the least fixed point
of

    R = own + Σ_{h ∈ hp} ⌈(R + J_h) / T_h⌉ · X_h                                          (JRTA)

(Audsley, Burns, Richardson, Tindell, Wellings, Software Engineering Journal 8(5), 1993, release
jitter; with J_h = 0 it is the response-time equation of Joseph & Pandya, The Computer Journal
29(5), 1986, and of analyses/theory/fp_rta.py; the tag (JRTA) is rtsched's). Here ``own`` is
everything the job under analysis needs from release to completion when it runs alone (its
execution and, for a self-suspending job, its suspension).

Why ⌈(Δ + J_h)/T_h⌉ · X_h bounds a task's demand in a window of length Δ, and which jitter is
sound for a self-suspending task, is the business of the callers (their notes). The fixed point is
found by iterating R ← right side of (JRTA) from ``own + Σ X_h``, which is at most the least fixed
point when ``own ≥ 1`` (for R ≥ 1 every ceiling is at least 1); the iteration stops as soon as the
right side exceeds the deadline ``D``.

Layers: :func:`jitter_response` (Python ints, the readable reference, with the terms of the last
evaluation) and :func:`jitter_response_nb` (the same evaluations in the same order, int64). The
kernel is exact: iterates are at most ``D < 2**31``, jitters below ``2**31``, so
``⌈(R + J)/T⌉ < 2**32`` and each term below ``2**63``; a sum is abandoned as soon as it exceeds D.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rtsched.kernels import kernel

__all__ = ["JitterRow", "JitterSearch", "jitter_response", "jitter_response_nb", "jitter_terms"]


@dataclass(frozen=True)
class JitterRow:
    """One higher-priority task as (JRTA) sees it: demand ``X`` per job, period ``T``, jitter ``J`` (all ≥ 0, T ≥ 1)."""

    X: int
    T: int
    J: int


@dataclass(frozen=True)
class JitterSearch:
    """The fixed-point search of one task.

    ``response``: the least fixed point, or None when the right side exceeded D; ``last``: the last
    iterate (≤ D); ``value``: the right side there (``> D`` when the task fails, ``== last`` when it
    passes); ``evaluations``: right sides computed.
    """

    response: int | None
    last: int
    value: int
    evaluations: int


def jitter_terms(rows: Sequence[JitterRow], R: int) -> list[int]:
    """⌈(R + J_h)/T_h⌉ · X_h for each higher-priority row (the terms of (JRTA))."""
    return [-(-(R + h.J) // h.T) * h.X for h in rows]


def jitter_response(own: int, D: int, rows: Sequence[JitterRow]) -> JitterSearch:
    """The least fixed point of (JRTA) if it is ≤ D (``own ≥ 1``; Python ints)."""
    if own < 1:
        raise ValueError("own must be at least 1 (the start own + Σ X_h is then below the least fixed point)")
    R = own + sum(h.X for h in rows)
    if R > D:
        return JitterSearch(None, own, R, 0)
    evaluations = 0
    while True:
        evaluations += 1
        value = own + sum(jitter_terms(rows, R))  # (JRTA), right side
        if value > D:
            return JitterSearch(None, R, value, evaluations)
        if value == R:
            return JitterSearch(R, R, value, evaluations)
        R = value


@kernel(counted=False)
def jitter_response_nb(own, D, X, T, J, hp, nh):
    """:func:`jitter_response` for the rows ``hp[:nh]`` (indices into X, T, J): the fixed point, or a value above D.

    Uncounted (:func:`rtsched.kernels.kernel`): it allocates nothing and returns a number.
    """
    R = own
    for x in range(nh):
        R += X[hp[x]]
    if R > D:
        return R
    while True:
        value = own
        for x in range(nh):
            h = hp[x]
            value += ((R + J[h] + T[h] - 1) // T[h]) * X[h]
            if value > D:
                return value
        if value == R:
            return R
        R = value
