"""The tardiness metric of a sweep (issue #47): how late a soft real-time analysis lets jobs be.

A *soft real-time* analysis is one whose registry policy ends in ``:soft`` (``tardiness-da`` and
``tardiness-cva``, policy ``global-edf:soft``; ``lateness-gfl``, policy ``global-fl:soft``): its
verdict says whether tardiness is bounded, and its ``explain`` gives the bound,
``evidence["max_bound"]``, the largest per-task tardiness bound of the set in ticks (an exact
number; for G-FL max(0, its lateness bound)). For every set such an analysis accepts, the sweep records

    max_bound / T_max        (T_max: the set's largest period)

and ``results.csv`` reports, next to the acceptance ratio, ``tardiness_sets`` (the accepted sets
it is taken over), ``tardiness_mean`` and ``tardiness_max`` of that value; ``rtsched plot`` draws
them (``tardiness.{png,pdf,svg}``). Sets whose tardiness is not bounded are not averaged in (the
acceptance ratio counts them).

Why normalised by the largest period, not in ticks: the Devi–Anderson bound x + e_k scales with
the time unit (multiply every C and T by k and it is multiplied by k), so a value in ticks
depends on the period range of the generator (``log-uniform:1000:100000`` against
``uniform:10:100``) and on nothing the comparison is about; divided by T_max it is a number of
"longest periods", the same for any time unit, and comparable between generators and points.

Reproducibility: each set's value is the exact Fraction rounded once to a float; a unit stores
the ``math.fsum`` of its values, their maximum and their count; the tables combine the units in
unit order. A unit's values depend only on the unit (its sets), so a resumed sweep writes the same
``results.csv`` byte for byte.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

import numpy as np

__all__ = ["SOFT_SUFFIX", "combine", "is_soft", "unit_tardiness"]

#: The suffix of the registry policies of soft real-time analyses (``global-edf:soft``).
SOFT_SUFFIX = ":soft"


def is_soft(entry: Any) -> bool:
    """True for a soft real-time analysis (its policy ends in ``:soft``): the sweep records its tardiness."""
    return str(entry.policy).endswith(SOFT_SUFFIX)


def set_value(entry: Any, taskset: Any, platform: Any) -> float:
    """``max_bound / T_max`` of one set the soft analysis ``entry`` accepts (exact, then rounded once)."""
    bound = entry.explain(taskset, platform).evidence["max_bound"]
    return float(Fraction(bound) / max(int(t) for t in taskset.T))


def unit_tardiness(entry: Any, batch: Any, codes: np.ndarray, platform: Any) -> dict[str, Any]:
    """The unit's record of a soft analysis: ``{"sets": k, "sum": Σ, "max": max}`` over its accepted sets."""
    values = [set_value(entry, batch[int(s)], platform) for s in np.flatnonzero(codes == 1)]
    return {"sets": len(values), "sum": math.fsum(values), "max": max(values) if values else None}


def combine(records: Sequence[Mapping[str, Any]], name: str) -> tuple[int | None, float | None, float | None]:
    """``(sets, mean, max)`` of ``name``'s tardiness over unit records (in unit order); Nones if none recorded."""
    parts = [r["tardiness"][name] for r in records if name in r.get("tardiness", {})]
    if not parts:
        return None, None, None
    sets = sum(int(p["sets"]) for p in parts)
    if sets == 0:
        return 0, None, None
    mean = math.fsum(float(p["sum"]) for p in parts) / sets
    worst = max(float(p["max"]) for p in parts if p["max"] is not None)
    return sets, mean, worst
