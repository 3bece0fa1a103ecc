"""Upper bound of global EDF schedulability for acceptance-ratio plots; see papers/gedf-upper.md.

This is **not a schedulability test**. It is a *necessary* analysis (``kind = "necessary"``):
``False`` proves that the set misses a deadline under global EDF (for the sporadic task model,
because the pattern it finds is a legal sporadic behaviour), ``True`` means only "not refuted".
The share of sets it does not refute is an upper bound of the share that is G-EDF schedulable,
so a sweep plots it as a dashed ceiling above the sufficient tests: the gap between the two is
what no sufficient test in the plot proves, some of it schedulable and some not.

A set is refuted when one of these holds (checked in this order):

1. ``U = Σ C_i/T_i > m`` (no scheduler meets every deadline; exact, in rationals);
2. the exact test ``exact`` (every tie-breaking rule, state-space exploration; reached through
   the registry) runs on the set — only where ``exact``'s own default-list rule keeps it (n ≤ m,
   U > m or Π T_i ≤ 2^14·m²), with a budget of :data:`EXACT_BUDGET` states — and says
   "not schedulable"; if it says "schedulable" the set is accepted at once (the bound is exact
   there); if the budget runs out, step 3 decides;
3. the synchronous periodic release (every task releases at 0, T, 2T, ...; each job runs its full
   C) misses a deadline under global EDF with ties to the lowest task index, simulated by
   :mod:`rtsched.sim` on ``[0, h)`` with ``h = min(H, HORIZON_PERIODS · T_max, MAX_JOBS / Σ 1/T_i)``
   (H the hyperperiod; at least 1). Within ``h`` this subsumes the demand condition
   ``Σ dbf_i(t) ≤ m·t`` for every ``t ≤ h``: the synchronous release *is* the demand ``dbf(t)``,
   which no schedule fits into ``m·t``. When ``h = H`` (small hyperperiods) the simulation decides
   the synchronous periodic behaviour completely.

Every density is at most 1 by the model (C ≤ D). The horizon makes the bound looser, never
unsound: a miss found anywhere proves unschedulability; no miss within ``h`` only fails to refute.

There is no work budget (the horizon and the job cap bound the work; nothing answers
"unknown"). Layers: :func:`reference` (Fractions and a plain event-driven simulator written
here), ``_codes`` (the batch: float utilization with an exact fallback near ``m``, the
simulator's Numba fast path).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from numpy.typing import NDArray

from rtsched.kernels import EPS
from rtsched.model import TaskSet, TaskSetBatch, fraction_sum
from rtsched.registry import ACCEPTED, REJECTED, Analysis
from rtsched.result import Explanation, show_number
from rtsched.sim import simulate

__all__ = ["ANALYSES", "EXACT_BUDGET", "HORIZON_PERIODS", "MAX_JOBS", "explain", "horizon", "reference"]

CITATION = (
    "rtsched's upper bound of global EDF schedulability (not a test): U ≤ m, the exact G-EDF "
    "test where small (papers/gedf-ties.md) and a synchronous-release G-EDF simulation "
    "(papers/simulator.md); see papers/gedf-upper.md"
)

#: The simulated window is at most this many largest periods ...
HORIZON_PERIODS = 20
#: ... and holds at most about this many job releases (Σ h / T_i).
MAX_JOBS = 100_000
#: States the exact test may explore on the sets its default-list rule keeps.
EXACT_BUDGET = 20_000


def horizon(T: NDArray[np.int64] | list[int]) -> int:
    """The simulated window ``h = min(H, HORIZON_PERIODS·T_max, MAX_JOBS / Σ 1/T_i)``, at least 1."""
    periods = [int(t) for t in T]
    cap = HORIZON_PERIODS * max(periods)
    cap = min(cap, int(MAX_JOBS / math.fsum(1.0 / t for t in periods)))
    hyper = 1
    for t in periods:
        hyper = math.lcm(hyper, t)
        if hyper > cap:
            break
    return max(1, min(hyper, cap))


def _exact_verdict(ts: TaskSet, m: int) -> object:
    """``exact``'s verdict where its default-list rule keeps the set, else ``None`` (not run)."""
    from rtsched import registry

    entry = registry.get("exact")
    if entry.default_skip(ts, m) is not None:
        return None
    return entry.verdict(ts, m, budget=EXACT_BUDGET)


def _simulate_reference(ts: TaskSet, m: int, h: int) -> int | None:
    """The first missed deadline (at most ``h``) of plain event-driven G-EDF, or ``None``.

    Synchronous periodic releases before ``h``, ties to the lowest index. Same semantics as
    :func:`rtsched.sim.engine.fast_kernel`, written independently of it.
    """
    C, D, T = [int(c) for c in ts.C], [int(d) for d in ts.D], [int(t) for t in ts.T]
    n = len(C)
    rem, dl, nxt = [0] * n, [0] * n, [0] * n
    t = 0
    while True:
        for i in range(n):
            if nxt[i] == t and t < h:
                rem[i], dl[i], nxt[i] = C[i], t + D[i], t + T[i]
        pending = sorted((dl[i], i) for i in range(n) if rem[i] > 0)
        running = [i for _, i in pending[:m]]
        events = [h if h > t else t, *(nxt[i] for i in range(n) if nxt[i] < h)]
        events += [dl[i] for _, i in pending[:1]] + [t + rem[i] for i in running]
        t_next = min(e for e in events if e >= t)
        for i in running:
            rem[i] -= t_next - t
        t = t_next
        missed = [dl[i] for i in range(n) if rem[i] > 0 and dl[i] <= t]
        if missed:
            return min(missed)
        if t >= h:
            return None


def reference(ts: TaskSet, m: int) -> bool:
    """True unless U > m, ``exact`` refutes the set, or the synchronous release misses within h."""
    if fraction_sum(Fraction(int(c), int(t)) for c, t in zip(ts.C, ts.T, strict=True)) > m:
        return False
    exact = _exact_verdict(ts, m)
    if exact is True or exact is False:
        return exact
    return _simulate_reference(ts, m, horizon(ts.T)) is None


#: Job events (tasks × releases in the window) the Python reference simulates in an explanation.
_REFERENCE_EVENTS = 200_000


def explain(ts: TaskSet, m: int) -> Explanation:
    """Which condition refutes the set, or that none does (and over which window)."""
    u = fraction_sum(Fraction(int(c), int(t)) for c, t in zip(ts.C, ts.T, strict=True))
    h = horizon(ts.T)
    evidence: dict[str, object] = {"utilization": u, "m": m, "horizon": h, "hyperperiod_simulated": h == ts.hyperperiod}
    if u > m:
        return Explanation(False, f"U = {show_number(u)} > m = {m}: no scheduler meets every deadline", evidence)
    exact = _exact_verdict(ts, m)
    evidence["exact"] = "not run (too large)" if exact is None else exact
    if exact is False:
        return Explanation(False, "exact G-EDF test: a release sequence misses (rtsched check --tests exact --explain)", evidence)
    if exact is True:
        return Explanation(True, "exact G-EDF test: schedulable (the upper bound is exact here)", evidence)
    # The Python event simulator is the reference for small windows; beyond about 10^5 job
    # events the explanation uses rtsched.sim (held equal to its own references by tests/test_sim.py)
    if ts.n * (h // int(np.min(ts.T)) + 1) <= _REFERENCE_EVENTS:
        miss = _simulate_reference(ts, m, h)
    else:
        found = simulate(ts, m, horizon=h, record=False).miss
        miss = None if found is None else found.time
        evidence["simulated_by"] = "rtsched.sim (the window is beyond the Python reference's budget)"
    evidence["first_miss"] = miss
    hyper = ts.hyperperiod
    window = f"[0, {show_number(h)})" + (
        " = one hyperperiod" if h == hyper else f" (hyperperiod {show_number(hyper)} not reached)"
    )
    if miss is not None:
        return Explanation(False, f"synchronous release misses a deadline at t = {miss} under G-EDF (index ties)", evidence)
    return Explanation(
        True, f"not refuted: U = {show_number(u)} ≤ m, no miss of the synchronous release in {window}", evidence
    )


def _codes(batch: TaskSetBatch, m: int) -> NDArray[np.int8]:
    """The verdict codes of the batch.

    Float U with an exact fallback near m, exact where small, then :func:`rtsched.sim.simulate` (its
    Numba fast path, ``record=False``).
    """
    n_sets = batch.n_sets
    out = np.full(n_sets, ACCEPTED, dtype=np.int8)
    C, T, offsets = batch.C, batch.T, batch.offsets
    for s in range(n_sets):
        lo, hi = int(offsets[s]), int(offsets[s + 1])
        c, t = C[lo:hi], T[lo:hi]
        n = hi - lo
        u = float(np.sum(c / t))
        margin = 4.0 * (n + 2) * EPS * (u + m)
        if u > m + margin or (u >= m - margin and fraction_sum(Fraction(int(a), int(b)) for a, b in zip(c, t, strict=True)) > m):
            out[s] = REJECTED
            continue
        ts = batch[s]
        # exact's default-list rule keeps a set with U <= m only if n <= m or Π T_i <= 2^14·m²
        # (a cheap pre-filter; _exact_verdict asks the rule itself)
        if n <= m or math.prod(int(x) for x in t) <= (1 << 14) * m * m:
            exact = _exact_verdict(ts, m)
            if exact is True or exact is False:
                out[s] = ACCEPTED if exact else REJECTED
                continue
        if simulate(ts, m, horizon=horizon(t), record=False).miss is not None:
            out[s] = REJECTED
    return out


ANALYSES = (
    Analysis(
        name="gedf-upper", title="Upper bound (not a test): U ≤ m, no miss in a synchronous-release simulation",
        kind="necessary", order=100, policy="global-edf",
        citation=CITATION, note="papers/gedf-upper.md",
        reference=reference, explain=explain, codes=_codes,
    ),
)
