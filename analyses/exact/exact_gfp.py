"""Exact global fixed-priority schedulability test by state-space exploration (``exact-gfp``).

See papers/exact-gfp.md (this analysis), papers/baker-cirinei2007.md (the automaton),
papers/bonifaci-msp2010.md (the game) and papers/geeraerts2013-antichains.md (the pruning).

Model: sporadic tasks τi = (C_i, D_i, T_i), integer time, constrained deadlines (D ≤ T; sets with
some D > T go to the pending-jobs game of analyses/exact/_pending.py, several jobs per task
pending, the oldest eligible; papers/exact-gfp.md, "Arbitrary deadlines"), m
identical processors, preemptive global fixed priorities: at every tick the m highest-priority
pending jobs run (all of them if at most m are pending). **Priority is the order of the tasks in
the set: task 0 has the highest priority** (reorder the set with :mod:`rtsched.priorities` for
DM, RM or OPA). Priorities are distinct, so there is no tie rule: the schedule is a function of
the release sequence alone.

Baker and Cirinei (OPODIS 2007) decide schedulability of a sporadic task system in integer time as
reachability of a failure state in a finite automaton whose states record, per task, the
remaining execution of the current job and the time until the next release is allowed; the
scheduler's choice in each state must depend on that state only. Bonifaci and
Marchetti-Spaccamela (ESA 2010) give the construction as a game between an adversary that
releases jobs and the scheduler; Geeraerts, Goossens and Lindström (RTS 49(2), 2013) prune it
with the *idle tasks simulation* relation, which holds for every memoryless deterministic
scheduler. Global FP is one: in a state the running set is the m lowest indices among the pending
jobs. The engine (analyses/exact/_state_space.py) is the one of ``exact`` and ``exact:index``
(analyses/exact/exact_gedf.py) with the task index in place of the absolute deadline as the priority
key. Burmyakov, Bini and Tovar (the exact global FP test by state-space pruning cited in the
issue; papers/exact-gfp.md says what could and could not be reached of it) decide the same
question with their own pruning rules; rtsched does not implement those rules.

The game, tick by tick: (1) the adversary releases any subset of the tasks whose next release is
allowed; (2) the m pending jobs of the lowest task indices run for one tick; (3) the clocks
advance; a pending job with more work left than ticks to its deadline is doomed (a miss). The set
is schedulable iff no miss is reachable from the initial state (no job pending, every release
allowed).

Verdict codes: ACCEPT (no miss reachable), REJECT (a miss is reachable, or U > m, necessary for
any scheduler), UNKNOWN (the budget ran out — never reported as a rejection). Shortcut: n ≤ m is
always schedulable (every job has a processor).

Budget: ``budget`` explored (stored) states, default :data:`DEFAULT_BUDGET` (with at most
:data:`TRANSITIONS_PER_STATE` transitions per budgeted state), as for ``exact``.
:func:`default_skip` keeps ``exact-gfp`` out of :func:`rtsched.check`'s default list by the
rule of ``exact`` (Π T_i > 2^14·m², unless n ≤ m or U > m).

Layers: :func:`reference` (the engine's pure-Python BFS over explicit (remaining,
time-to-deadline, time-to-release) triples, no pruning; the legal run set under G-FP is the first
m pending jobs in index order), the engine's Numba kernel (pruned search: bounded depth-first and best-first phases, then breadth-first, with
random-walk probes beside it that can only add a replayable miss; papers/exact-search.md), :func:`explore`,
:func:`explain` (the counterexample release sequence, replayed in the simulator under
``policy="gfp"``).
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from rtsched.analyses.exact import _pending as pending
from rtsched.analyses.exact import _state_space as engine
from rtsched.analyses.exact._state_space import DEFAULT_BUDGET, TRANSITIONS_PER_STATE, Exploration
from rtsched.model import TaskSet, TaskSetBatch
from rtsched.registry import Analysis
from rtsched.result import Explanation, Verdict, count

if TYPE_CHECKING:
    from rtsched.sim.trace import DeadlineMiss

__all__ = [
    "ANALYSES",
    "DEFAULT_BUDGET",
    "TRANSITIONS_PER_STATE",
    "default_skip",
    "explain",
    "explore",
    "reference",
]

CITATION = (
    "state-space exploration of Baker, Cirinei, 'Brute-force determination of multiprocessor "
    "schedulability for sets of sporadic hard-deadline tasks', OPODIS 2007, and Bonifaci, "
    "Marchetti-Spaccamela, 'Feasibility analysis of sporadic real-time multiprocessor task systems', "
    "ESA 2010, with the global fixed-priority scheduler (priority = task order); antichain pruning "
    "(idle tasks simulation) after Geeraerts, Goossens, Lindström, Real-Time Systems 49(2), 2013; "
    "the exact global FP question as posed by Burmyakov, Bini, Tovar (state-space pruning for "
    "global FP; see papers/exact-gfp.md)"
)


def reference(ts: TaskSet, m: int, budget: int = DEFAULT_BUDGET) -> Verdict:
    """Exact verdict by breadth-first search over every reachable state (no pruning).

    A state is a tuple of ``(remaining, to_deadline, to_release)`` per task; each tick the
    adversary releases any subset of the tasks allowed to release, then the first ``m`` pending
    jobs in task order run. ``"unknown"`` if more than ``budget`` states are reachable.
    With some D > T: the arbitrary-deadline game's reference (analyses/exact/_pending.py).
    """
    if not ts.is_constrained:
        return pending.reference(ts, m, budget, rule="fp")
    return engine.reference(ts, m, budget, rule="fp")


def explore(ts: TaskSet, m: int, *, budget: int = DEFAULT_BUDGET, shortcuts: bool = True) -> Exploration:
    """Run the pruned exploration on one set (see the module docstring for the game).

    ``budget`` and ``shortcuts`` as for ``exact`` (:func:`rtsched.analyses.exact.exact_gedf.explore`).
    Sets with some D > T go to the arbitrary-deadline game (analyses/exact/_pending.py).
    """
    if not ts.is_constrained:
        return pending.explore(ts, m, rule="fp", budget=budget, shortcuts=shortcuts)
    return engine.explore(ts, m, rule="fp", budget=budget, shortcuts=shortcuts, name="exact-gfp")


def _one(C: NDArray[np.int64], D: NDArray[np.int64], T: NDArray[np.int64], m: int, budget: int) -> int:
    """The verdict code of one set (the engine's ``one``)."""
    return pending.one(C, D, T, m, budget, "fp")


def _codes(batch: TaskSetBatch, m: int, budget: int) -> NDArray[np.int8]:
    """Verdict codes (1 schedulable, 0 not, -1 unknown), the sets explored side by side (the engine's ``codes``)."""
    return pending.codes(batch, m, budget, "fp")


def _describe_miss(ts: TaskSet, result: Exploration, miss: DeadlineMiss) -> tuple[str, dict[str, object]]:
    assert result.releases is not None
    evidence: dict[str, object] = {
        "releases": result.releases,
        "miss_time": miss.time,
        "miss_task": miss.task,
        "miss_remaining": miss.remaining,
    }
    summary = (
        f"G-FP (task-order priorities) misses {ts.label(miss.task)}'s deadline at t={miss.time} "
        f"with {count(miss.remaining, 'tick')} left, with releases {engine.releases_text(ts, result.releases)}"
    )
    return summary, evidence


def explain(ts: TaskSet, m: int, budget: int = DEFAULT_BUDGET) -> Explanation:
    """Verdict with its evidence: the states explored, or the release sequence leading to a miss.

    For an unschedulable set the evidence gives the release times per task (``releases``), the
    missed job's task (``miss_task``) and deadline (``miss_time``), as replayed by
    ``rtsched.sim.simulate(ts, m, policy="gfp", releases=...)``. The exploration runs even when
    U > m decides the verdict, to find such a sequence.
    """
    quick = explore(ts, m, budget=budget)
    explanation = engine.explanation if ts.is_constrained else pending.explanation
    return explanation(
        ts,
        m,
        budget,
        quick,
        head={"priorities": "task order (index 0 highest)"},
        found="under global FP in task order",
        qualifier="",
        describe_miss=functools.partial(_describe_miss, ts),
    )


def default_skip(ts: TaskSet, m: int) -> str | None:
    """Why :func:`rtsched.check`'s default list leaves ``exact-gfp`` out for this set, or ``None``.

    The rule is that of ``exact`` (analyses/exact/exact_gedf.py); ``benchmarks/bench_exact.py
    --parts skip`` measures it for both (papers/exact-gfp.md, "Budget and default list").
    """
    return engine.default_skip(ts, m, "exact-gfp")


ANALYSES = (
    Analysis(
        name="exact-gfp", title="Exact global FP, priorities in task order (state-space exploration)", kind="exact",
        order=8, policy="global-fp", policy_order=4,
        citation=CITATION, note="papers/exact-gfp.md",
        reference=reference, explain=explain, one=_one, codes=_codes, default_skip=default_skip,
        budget=DEFAULT_BUDGET, budget_unit="explored states", parallel_from=engine.PARALLEL_FROM,
        deadlines=("implicit", "constrained", "arbitrary"),
    ),
)
