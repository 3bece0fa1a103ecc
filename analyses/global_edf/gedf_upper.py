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
   C) misses a deadline under global EDF with ties to the lowest task index, simulated on
   ``[0, h)`` with ``h = min(H, HORIZON_PERIODS · T_max, MAX_JOBS / Σ 1/T_i)`` (H the
   hyperperiod; at least 1; see :func:`horizon`). Within ``h`` this subsumes the demand condition
   ``Σ dbf_i(t) ≤ m·t`` for every ``t ≤ h``: the synchronous release *is* the demand ``dbf(t)``,
   which no schedule fits into ``m·t``. When ``h = H`` (small hyperperiods) the simulation decides
   the synchronous periodic behaviour completely.

Every density is at most 1 by the model (C ≤ D). The horizon makes the bound looser, never
unsound: a miss found anywhere proves unschedulability; no miss within ``h`` only fails to refute.

Arbitrary deadlines (D > T, issue #47): the same three steps. Step 2's ``exact`` decides D > T
sets with its pending-jobs game (analyses/exact/_pending.py); step 3 simulates the synchronous
periodic release, over :func:`simulated_window` (up to :data:`ARBITRARY_HYPERPERIODS` hyperperiods: a
backlog carries over from one hyperperiod to the next), with the house's task model (a task's
jobs run one at a time in release order, the oldest eligible): ``_simulate_queued`` in the reference, :func:`rtsched.sim.simulate` in the
batch (``_codes``; set by set in Python, the batch kernel keeps one job per task and serves the
constrained sets only). Both are held equal by tests/analyses/global_edf/test_gedf_upper_arbitrary.py.

There is no work budget (the horizon and the job cap bound the work; nothing answers
"unknown"). Layers: :func:`reference` (Fractions and a plain event-driven simulator written
here, ``_simulate_reference``), ``_codes`` (the batch: float utilization with an exact fallback
near ``m``, ``exact`` where its rule keeps the set, then one batch kernel, ``_upper_sets``, that
computes each remaining set's window, ``_horizon_nb``, and simulates it, ``_first_miss_nb``: an
event simulation with the reference's semantics, held equal to it by tests/analyses/global_edf/test_gedf_upper.py),
:func:`explain` (the Python simulator, or :mod:`rtsched.sim` beyond its budget).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numba
import numpy as np
from numpy.typing import NDArray

from rtsched.kernels import ACCEPT, EPS, REJECT, gcd, kernel, serial, workspace_kernels
from rtsched.model import TaskSet, TaskSetBatch, fraction_sum
from rtsched.registry import ACCEPTED, REJECTED, Analysis
from rtsched.result import Explanation, Step, show_number
from rtsched.sim import simulate

__all__ = ["ANALYSES", "ARBITRARY_HYPERPERIODS", "EXACT_BUDGET", "HORIZON_PERIODS", "MAX_JOBS", "QUICK_JOBS", "explain", "horizon", "quick_reference", "reference", "simulated_window"]

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
    """The simulated window ``h = min(H, HORIZON_PERIODS·T_max, MAX_JOBS / Σ 1/T_i)``, at least 1.

    Σ 1/T_i is the float sum of the doubles 1/T_i in task order, left to right, so that the batch
    kernel (``_horizon_nb``) computes the very same h: the window is a definition, not an
    approximation to get right, and both sides must agree on it to the tick.
    """
    periods = [int(t) for t in T]
    cap = HORIZON_PERIODS * max(periods)
    inverse_sum = 0.0
    for t in periods:
        inverse_sum += 1.0 / t
    cap = min(cap, int(MAX_JOBS / inverse_sum))
    hyper = 1
    for t in periods:
        hyper = math.lcm(hyper, t)
        if hyper > cap:
            break
    return max(1, min(hyper, cap))


#: Hyperperiods in the window of a set with some D > T (a backlog carries over from one
#: hyperperiod to the next): ``h = min(ARBITRARY_HYPERPERIODS · H, the caps of`` :func:`horizon` ``)``.
ARBITRARY_HYPERPERIODS = 4


def simulated_window(ts: TaskSet) -> int:
    """The simulated window of ``ts``: :func:`horizon` for D ≤ T, longer with some D > T.

    With some D > T: up to :data:`ARBITRARY_HYPERPERIODS` hyperperiods under the caps of
    :func:`horizon` (20·T_max, MAX_JOBS job releases).
    """
    h = horizon(ts.T)
    if ts.is_constrained or h < int(ts.hyperperiod):
        return h
    periods = [int(t) for t in ts.T]
    inverse_sum = 0.0
    for t in periods:
        inverse_sum += 1.0 / t
    cap = min(HORIZON_PERIODS * max(periods), int(MAX_JOBS / inverse_sum))
    return max(1, min(ARBITRARY_HYPERPERIODS * h, max(cap, h)))


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


def _simulate_queued(ts: TaskSet, m: int, h: int) -> int | None:
    """:func:`_simulate_reference` with several pending jobs per task (any deadlines, D > T).

    Synchronous periodic releases before ``h``; a task's jobs wait in release order and only the
    oldest (the head) is eligible; G-EDF runs the m heads of earliest deadline (ties to the lowest
    index). The first missed deadline (at most ``h``) of any pending job, or ``None``.
    """
    C, D, T = [int(c) for c in ts.C], [int(d) for d in ts.D], [int(t) for t in ts.T]
    n = len(C)
    queues: list[list[list[int]]] = [[] for _ in range(n)]  # per task: [work left, deadline], oldest first
    nxt = [0] * n
    t = 0
    while True:
        for i in range(n):
            if nxt[i] == t and t < h:
                queues[i].append([C[i], t + D[i]])
                nxt[i] = t + T[i]
        heads = sorted((queues[i][0][1], i) for i in range(n) if queues[i])
        running = [i for _, i in heads[:m]]
        events = [h if h > t else t, *(nxt[i] for i in range(n) if nxt[i] < h)]
        events += [min(job[1] for queue in queues for job in queue)] if heads else []
        events += [t + queues[i][0][0] for i in running]
        t_next = min(e for e in events if e >= t)
        for i in running:
            queues[i][0][0] -= t_next - t
            if queues[i][0][0] == 0:
                queues[i].pop(0)
        t = t_next
        missed = [job[1] for queue in queues for job in queue if job[1] <= t]
        if missed:
            return min(missed)
        if t >= h:
            return None


def _first_miss(ts: TaskSet, m: int, h: int) -> int | None:
    """The reference's simulation: one job per task for D ≤ T, the queued one for D > T."""
    return _simulate_reference(ts, m, h) if ts.is_constrained else _simulate_queued(ts, m, h)


#: ``rtsched.check`` decides a set with the reference rather than load the kernels (issue #45) when
#: the window holds at most this many job releases and the exact test is not run on it.
QUICK_JOBS = 1_000


def quick_reference(ts: TaskSet, m: int) -> bool:
    """True if :func:`reference` answers ``ts`` in milliseconds: a short window and no exact test."""
    h = simulated_window(ts)
    if sum(-(-h // int(t)) for t in ts.T) > QUICK_JOBS:
        return False
    from rtsched import registry

    return registry.get("exact").default_skip(ts, m) is not None


def reference(ts: TaskSet, m: int) -> bool:
    """True unless U > m, ``exact`` refutes the set, or the synchronous release misses within h."""
    if fraction_sum(Fraction(int(c), int(t)) for c, t in zip(ts.C, ts.T, strict=True)) > m:
        return False
    exact = _exact_verdict(ts, m)
    if exact is True or exact is False:
        return exact
    return _first_miss(ts, m, simulated_window(ts)) is None


#: Job events (tasks × releases in the window) the Python reference simulates in an explanation.
_REFERENCE_EVENTS = 200_000


def explain(ts: TaskSet, m: int) -> Explanation:
    """Which condition refutes the set, or that none does (and over which window)."""
    u = fraction_sum(Fraction(int(c), int(t)) for c, t in zip(ts.C, ts.T, strict=True))
    h = simulated_window(ts)
    evidence: dict[str, object] = {"utilization": u, "m": m, "horizon": h, "hyperperiod_simulated": h >= ts.hyperperiod}
    if u > m:
        return Explanation(
            False,
            f"U = {show_number(u)} > m = {m}: no scheduler meets every deadline",
            evidence,
            steps=[Step(f"U = {{u}} > m = {m}: no scheduler meets every deadline: not schedulable", {"u": u})],
        )
    exact = _exact_verdict(ts, m)
    evidence["exact"] = "not run (too large)" if exact is None else exact
    first = Step(f"U = {{u}} ≤ m = {m}", {"u": u})
    if exact is True or exact is False:  # "unknown" (or not run) goes on to the simulation
        return Explanation(
            exact,
            "exact G-EDF test: a release sequence misses (rtsched check --tests exact --explain)"
            if exact is False
            else "exact G-EDF test: schedulable (the upper bound is exact here)",
            evidence,
            steps=[
                first,
                Step("the set is small enough for the exact test, which decides it (its steps: --tests exact --steps)"),
                Step(
                    "exact: schedulable, so not refuted"
                    if exact
                    else "exact: a release sequence misses a deadline: not schedulable"
                ),
            ],
        )
    # The Python event simulator is the reference for small windows; beyond about 10^5 job
    # events the explanation uses rtsched.sim (held equal to its own references by tests/test_sim.py)
    if ts.n * (h // int(np.min(ts.T)) + 1) <= _REFERENCE_EVENTS:
        miss = _first_miss(ts, m, h)
    else:
        found = simulate(ts, m, horizon=h, record=False).miss
        miss = None if found is None else found.time
        evidence["simulated_by"] = "rtsched.sim (the window is beyond the Python reference's budget)"
    evidence["first_miss"] = miss
    hyper = ts.hyperperiod
    window = f"[0, {show_number(h)})" + (
        " = one hyperperiod"
        if h == hyper
        else f" = {h // hyper} hyperperiods (D > T)"
        if h > hyper and h % hyper == 0
        else f" (hyperperiod {show_number(hyper)} not reached)"
    )
    why = "too large for the exact test" if exact is None else "the exact test ran out of its budget"
    steps = [
        first,
        Step(f"{why}: simulate the synchronous periodic release under G-EDF (index ties)"),
        Step(f"window {window} (at most {HORIZON_PERIODS} × max T and {MAX_JOBS:,} jobs)"),
    ]
    if miss is not None:
        steps.append(Step(f"t = {miss}: a deadline is missed: not schedulable"))
        return Explanation(
            False,
            f"synchronous release misses a deadline at t = {miss} under G-EDF (index ties)",
            evidence,
            steps=steps,
        )
    steps.append(Step("no miss in the window: not refuted (an upper bound: schedulability is not proven)"))
    return Explanation(
        True,
        f"not refuted: U = {show_number(u)} ≤ m, no miss of the synchronous release in {window}",
        evidence,
        steps=steps,
    )


#: Beyond every time value (a release time that never comes).
_NEVER = np.int64(1) << 62


@kernel(inline="always")
def _horizon_nb(T):
    # horizon(T) in int64: the same float sum in the same order, the same lcm walk (stopped, like
    # horizon's, as soon as the hyperperiod exceeds the cap; a ≤ cap // t keeps a·t ≤ cap < 2**63).
    n = T.shape[0]
    t_max = np.int64(0)
    inverse_sum = 0.0
    for i in range(n):
        t_max = max(t_max, T[i])
        inverse_sum += np.divide(1.0, np.float64(T[i]))  # (T_i ≥ 1: no zero-division branch)
    cap = min(HORIZON_PERIODS * t_max, np.int64(np.divide(np.float64(MAX_JOBS), inverse_sum)))
    hyper = np.int64(1)
    for i in range(n):
        a = hyper // gcd(hyper, T[i])
        if a > cap // T[i]:
            hyper = cap + 1
            break
        hyper = a * T[i]
        if hyper > cap:
            break
    return max(np.int64(1), min(hyper, cap))


@kernel(inline="always")
def _first_miss_nb(C, D, T, m, h, ints):
    # The first missed deadline of the synchronous periodic release under G-EDF with ties to the
    # lowest index on [0, h), or -1: ``_simulate_reference``'s semantics, event by event. Rows of
    # ``ints`` (≥ n columns): 0 the remaining work of each task's current job, 1 its absolute
    # deadline, 2 its next release, 3 the pending jobs (remaining work > 0) sorted by
    # (deadline, index) in the first k entries. With D ≤ T a task's job is done (or has
    # missed, and the run has stopped) before its next release, so one job per task suffices.
    n = C.shape[0]
    for i in range(n):
        ints[0, i] = 0
        ints[2, i] = 0
    k = 0
    t = np.int64(0)
    next_release = np.int64(0)
    while True:
        if t == next_release and t < h:
            next_release = _NEVER
            for i in range(n):
                if ints[2, i] == t:
                    d = t + D[i]
                    ints[0, i] = C[i]
                    ints[1, i] = d
                    ints[2, i] = t + T[i]
                    j = k  # insertion by (deadline, index)
                    while j > 0:
                        before = ints[3, j - 1]
                        if ints[1, before] < d or (ints[1, before] == d and before < i):
                            break
                        ints[3, j] = before
                        j -= 1
                    ints[3, j] = i
                    k += 1
                next_release = min(next_release, ints[2, i])
        # the next event: h, a release before h, the earliest pending deadline, a completion
        t_next = min(h, next_release)
        if k > 0:
            t_next = min(t_next, ints[1, ints[3, 0]])
        running = min(k, m)
        for j in range(running):
            t_next = min(t_next, t + ints[0, ints[3, j]])
        for j in range(running):
            ints[0, ints[3, j]] -= t_next - t
        kept = 0
        for j in range(k):
            if ints[0, ints[3, j]] > 0:
                ints[3, kept] = ints[3, j]
                kept += 1
        k = kept
        t = t_next
        if k > 0 and ints[1, ints[3, 0]] <= t:  # the pending job with the earliest deadline
            return ints[1, ints[3, 0]]
        if t >= h:
            return np.int64(-1)


@kernel(inline="always")
def _upper_one(C, D, T, m, ints, floats):
    # Step 3 of the bound for one set: REJECT if the synchronous release misses within horizon(T).
    return REJECT if _first_miss_nb(C, D, T, m, _horizon_nb(T), ints) >= 0 else ACCEPT


_upper_sets, _ = workspace_kernels(_upper_one, ints=4)


@kernel
def _first_miss_one(C, D, T, m, h):
    # ``_first_miss_nb`` on its own workspace (for the tests: the miss time, not only the code).
    ints = np.empty((4, max(2, C.shape[0] + 1)), dtype=np.int64)
    return _first_miss_nb(C, D, T, m, h, ints)


@kernel
def _horizon_one(T):
    # ``_horizon_nb`` from Python (for the tests: equal to :func:`horizon`).
    return _horizon_nb(T)


def _codes(batch: TaskSetBatch, m: int) -> NDArray[np.int8]:
    """The verdict codes of the batch.

    Float U with an exact fallback near m (vectorised), ``exact`` on the few sets its default-list
    rule keeps (in Python), then the synchronous-release simulation of every other set in one
    batch kernel (``_upper_sets``: the horizon and a G-EDF event simulation per set, ``prange``
    over chunks of sets).
    """
    n_sets = batch.n_sets
    out = np.full(n_sets, ACCEPTED, dtype=np.int8)
    if n_sets == 0:
        return out
    C, T, offsets = batch.C, batch.T, batch.offsets
    sizes = np.diff(offsets)
    starts = offsets[:-1]
    u = np.add.reduceat(C / T, starts)
    margin = 4.0 * (sizes + 2) * EPS * (u + m)
    over = u > m + margin
    for s in np.flatnonzero(~over & (u >= m - margin)).tolist():
        lo, hi = int(offsets[s]), int(offsets[s + 1])
        over[s] = fraction_sum(Fraction(int(a), int(b)) for a, b in zip(C[lo:hi], T[lo:hi], strict=True)) > m
    out[over] = REJECTED
    simulated = ~over
    # exact's default-list rule keeps a set with U <= m only if n <= m or Π T_i <= 2^14·m²: a
    # pre-filter through log2 (generous by 1e-6 per task; the exact product decides below), then
    # _exact_verdict asks the rule itself
    small = (sizes <= m) | (np.add.reduceat(np.log2(T), starts) <= 14 + 2 * math.log2(m) + 1e-6 * sizes)
    for s in np.flatnonzero(simulated & small).tolist():
        lo, hi = int(offsets[s]), int(offsets[s + 1])
        if hi - lo > m and math.prod(int(x) for x in T[lo:hi]) > (1 << 14) * m * m:
            continue
        exact = _exact_verdict(batch[s], m)
        if exact is True or exact is False:
            out[s] = ACCEPTED if exact else REJECTED
            simulated[s] = False
    # D > T: the simulator (several pending jobs per task), set by set
    for s in np.flatnonzero(simulated & np.logical_or.reduceat(batch.D > T, starts)).tolist():
        one = batch[s]
        out[s] = ACCEPTED if simulate(one, m, horizon=simulated_window(one), record=False).miss is None else REJECTED
        simulated[s] = False
    chosen = np.flatnonzero(simulated)
    if chosen.size:
        sub = batch.select(chosen)
        codes = np.empty(chosen.size, dtype=np.int8)
        # On one thread its serial twin: the prange driver compiles only for a large batch (#46).
        run = (numba.get_num_threads() == 1 and serial(_upper_sets)) or _upper_sets
        run(sub.C, sub.D, sub.T, sub.offsets, m, codes)
        out[chosen] = np.where(codes == REJECT, REJECTED, ACCEPTED)
    return out


ANALYSES = (
    Analysis(
        name="gedf-upper", title="Upper bound (not a test): U ≤ m, no miss in a synchronous-release simulation",
        kind="necessary", order=100, policy="global-edf", policy_order=0,
        citation=CITATION, note="papers/gedf-upper.md",
        # the exact test decides the sets its default-list rule keeps: its code is part of ours
        reference=reference, explain=explain, codes=_codes, calls=("exact",),
        compile_seconds=2.5, quick_reference=quick_reference, deadlines=("implicit", "constrained", "arbitrary"),
    ),
)
