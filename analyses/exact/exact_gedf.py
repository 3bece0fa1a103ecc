"""Exact global EDF schedulability test by state-space exploration, under every tie-breaking rule.

See papers/baker-cirinei2007.md (the automaton), papers/bonifaci-msp2010.md (the game),
papers/geeraerts2013-antichains.md (the pruning) and papers/gedf-ties.md (the tie semantics, an
rtsched extension).

Baker and Cirinei (OPODIS 2007, "Brute-force determination of multiprocessor schedulability for
sets of sporadic hard-deadline tasks") decide G-EDF schedulability of a sporadic task system in
integer time as reachability of a failure state in a finite automaton; Bonifaci and
Marchetti-Spaccamela (ESA 2010, "Feasibility analysis of sporadic real-time multiprocessor task
systems") give the same construction as a game between an adversary that releases jobs and the
scheduler; Geeraerts, Goossens and Lindström (RTS 49(2), 2013) prune the search with the *idle
tasks simulation* relation and antichains.

Two analyses share one kernel; they differ in who breaks ties between equal absolute deadlines:

* ``exact`` (``ties="every"``, rtsched's extension, papers/gedf-ties.md): the adversary also
  breaks the ties, tick by tick. "Schedulable" means every G-EDF implementation meets every
  deadline, whatever its tie rule (task index, arrival order, PID, CPU, random, or any
  history-dependent rule); "not schedulable" comes with a release sequence and the tie choices
  that make G-EDF miss.
* ``exact:index`` (``ties="index"``): equal deadlines go to the lowest task index (a
  deterministic scheduler, the setting of the papers).

The game, tick by tick (time is integer). State per task ``i``: ``rct_i`` (remaining execution
of its current job, 0 if none) and ``nat_i`` (ticks until the next release is allowed). The
current job's time to its deadline is ``nat_i − (T_i − D_i)`` (constrained deadlines).

1. The adversary releases any subset of the tasks with ``nat_i = 0`` (a release sets
   ``rct_i = C_i``, ``nat_i = T_i``; with D ≤ T such a task has no pending job left).
2. G-EDF runs for one tick ``m`` pending jobs with the earliest absolute deadlines (all of them
   if at most ``m`` are pending). The choice is ambiguous only when the ``m``-th and the
   ``(m+1)``-th earliest deadlines are equal: then ``k`` of the ``b`` jobs tied at that boundary
   deadline run. Under ``index`` the ``k`` lowest indices run; under ``every`` each of the
   C(b, k) choices is a branch.
3. ``nat_i ← max(nat_i − 1, 0)``; a pending job whose deadline is reached with work left is a
   *failure*. The kernel stops one step earlier, at a *doomed* job (more work left than ticks
   to its deadline: it misses whatever the adversary and the scheduler do next); the reference
   waits for the deadline itself. Both decide the same reachability question.

The set is schedulable iff no failure is reachable from the initial state (all zero).

Arbitrary deadlines (D > T, issue #47): a set with some ``D_i > T_i`` is decided by the game with
several pending jobs per task, only the oldest eligible (the house's task model), in the private
module analyses/exact/_pending.py (its own reference, kernel and pruning proof;
papers/exact-search.md, "Arbitrary deadlines"; the game of Bonifaci & Marchetti-Spaccamela, ESA
2010). Constrained sets keep the engine described here.

Pruning (Geeraerts et al. 2013, idle tasks simulation; definition numbering unverified): a state
S' *simulates* S if both have the same pending jobs (same ``rct``, and same ``nat`` for every
task with a pending job) and every idle task may be released at least as early in S' as in S
(``nat'_i ≤ nat_i``). Any adversary strategy from S can be played from S' with the same effect:
the releases allowed from S are allowed from S', and the tie choices offered to the adversary
depend only on the pending jobs, which are the same; so a failure reachable from S is reachable
from S' under either tie semantics (papers/gedf-ties.md has the proof). A new state simulated by
a stored one is dropped, and a stored state not yet expanded that a new state simulates is not
expanded. States are stored in a hash table keyed by their pending part; exact duplicates are
the special case of equality. A stored state that a new state simulates also leaves its chain
(simulation is transitive). Search order (papers/exact-search.md, rtsched's): one search in
phases, each taking over the states the previous one left waiting: depth-first for 16,384 states
— it reaches most misses within a few thousand states, where breadth-first may need millions —
then best-first for 32,768 more (the most urgent state first, the order of Burmyakov's C++ test;
it reaches some misses depth-first does not), then, if undecided, breadth-first by depth to the
end of the budget;
the pruning is sound in any order, so the verdict does not depend on it. A depth-first miss is
replaced by a shortest one (in the pruned graph) when a bounded breadth-first search finds it.
Probes (papers/exact-search.md, "Probes"; issue #45): random walks through the same game before
the search and at pauses of it (at 2,048·4^j stored states, about a tenth of its time); a walk
that reaches a doomed job is a legal path to a miss and ends the search (reason ``"probe"``), a
walk without one concludes nothing, so the verdicts are the search's; they refute in
milliseconds many sets on which the search alone stores millions of states first.

Symmetry (``every`` only, papers/gedf-ties.md): when the adversary breaks ties, tasks with
identical (C, D, T) are interchangeable — permuting their states maps every move to a move and a
failure to a failure — so duplicates and simulation are decided on a canonical form (the (rct,
nat) pairs sorted within each group of identical tasks), while the states as reached are the ones
expanded (so counterexamples keep the real task indices). Under ``index`` identical tasks are not
interchangeable (the lower index wins their ties) and no symmetry is used.

Verdict codes: ACCEPT (no failure reachable), REJECT (a failure is reachable, or U > m, a
necessary condition of any scheduler), UNKNOWN (the budget ran out — never reported as a
rejection). Shortcut: n ≤ m is always schedulable (every job has a processor, so there is nothing
to tie).

Budget: ``budget`` explored (stored) states, default :data:`DEFAULT_BUDGET`; the search also gives
up after :data:`TRANSITIONS_PER_STATE` transitions per budgeted state (each release subset and
each tie choice is one transition), which bounds the time of sets with many releases per state.
Memory and time grow with the states stored, about 100 bytes and 1 µs each. :func:`default_skip`
keeps ``exact`` out of :func:`rtsched.check`'s default list for sets that the default budget
rarely decides quickly (``benchmarks/bench_exact.py --parts skip``; papers/exact-search.md,
"Performance").

Layers (the engine is shared with ``exact-gfp`` in the private module ``analyses/exact/_state_space.py``,
parametrised by the priority rule; this module keeps the G-EDF entries and explanations):
:func:`reference` (pure Python BFS over explicit (rem, time-to-deadline, time-to-release)
triples that enumerates the legal run sets straight from their definition, coded independently
of the kernel, no pruning), ``_explore`` (Numba kernel, int16/int32 state rows, open addressing,
antichain pruning, branching on tied choices only), :func:`explore` / the engine's ``search``
(the tables, grown geometrically, and the counterexample path), ``_exact_codes`` (the sets explored
side by side on Numba's threads, as many as a quarter of the memory allows for their tables: the
engine's ``codes``), :func:`explain` (counterexample release sequence and tie choices,
replayed in the simulator; the engine's ``explanation`` words the rest).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

import numpy as np
from numpy.typing import NDArray

from rtsched.analyses.exact import _pending as pending
from rtsched.analyses.exact import _state_space as engine
from rtsched.analyses.exact._state_space import (
    DEFAULT_BUDGET,
    TRANSITIONS_PER_STATE,
    Exploration,
    Frontier,
    TieChoice,
)
from rtsched.model import TaskSet, TaskSetBatch
from rtsched.registry import Analysis
from rtsched.result import Explanation, Verdict

if TYPE_CHECKING:
    from rtsched.sim.trace import DeadlineMiss

__all__ = [
    "ANALYSES",
    "DEFAULT_BUDGET",
    "TIES",
    "TRANSITIONS_PER_STATE",
    "Exploration",
    "default_skip",
    "explain",
    "explain_index",
    "explore",
    "reference",
    "reference_index",
]

CITATION = (
    "Baker, Cirinei, 'Brute-force determination of multiprocessor schedulability for sets of "
    "sporadic hard-deadline tasks', OPODIS 2007; Bonifaci, Marchetti-Spaccamela, 'Feasibility "
    "analysis of sporadic real-time multiprocessor task systems', ESA 2010; antichain pruning "
    "(idle tasks simulation) after Geeraerts, Goossens, Lindström, Real-Time Systems 49(2), 2013"
)
CITATION_EVERY_TIE = (
    "rtsched's own extension (papers/gedf-ties.md): the tie-breaking choices of G-EDF made by the "
    "adversary, on the state-space exploration of " + CITATION
)

Ties = Literal["every", "index"]
#: Tie semantics: ``every`` (the adversary breaks ties: every G-EDF implementation) and
#: ``index`` (equal deadlines to the lowest task index).
TIES: tuple[str, ...] = ("every", "index")
#: How each semantics is named in explanations.
TIE_RULE_TEXT = {"every": "under every tie-breaking rule", "index": "with ties to the lowest task index"}


def _check_ties(ties: str) -> str:
    return engine.check_rule(ties, TIES, "tie semantics")


# -- reference: plain BFS, no pruning (analyses/exact/_state_space.py) -------------------------------
def reference(ts: TaskSet, m: int, budget: int = DEFAULT_BUDGET, ties: Ties = "every") -> Verdict:
    """Exact verdict by breadth-first search over every reachable state (no pruning).

    The engine's reference (``analyses/exact/_state_space.py``) under G-EDF: ``ties="every"`` branches
    on every legal run set (``min(m, pending)`` pending jobs, none with a later deadline than a
    job left waiting), ``ties="index"`` runs the first ``m`` in (deadline, index) order.
    ``"unknown"`` past ``budget`` reachable states (sooner than :func:`explore`, which prunes).
    With some D > T it is the arbitrary-deadline game's reference (analyses/exact/_pending.py:
    several pending jobs per task, only the oldest eligible).
    """
    if not ts.is_constrained:
        return pending.reference(ts, m, budget, rule=_check_ties(ties))
    return engine.reference(ts, m, budget, rule=_check_ties(ties))


def reference_index(ts: TaskSet, m: int, budget: int = DEFAULT_BUDGET) -> Verdict:
    """:func:`reference` with equal deadlines to the lowest task index (``exact:index``)."""
    return reference(ts, m, budget, ties="index")


def explore(
    ts: TaskSet,
    m: int,
    *,
    ties: Ties = "every",
    budget: int = DEFAULT_BUDGET,
    shortcuts: bool = True,
    frontier: Frontier = "auto",
) -> Exploration:
    """Run the exploration on one set (see the module docstring for the game).

    ``ties="every"`` lets the adversary break ties (every G-EDF implementation);
    ``ties="index"`` gives equal deadlines to the lowest task index. ``budget``: states stored
    (and at most :data:`TRANSITIONS_PER_STATE` transitions per budgeted state); past it the code
    is UNKNOWN. ``shortcuts=False`` explores even when U > m or n <= m decide the verdict (used to
    get a counterexample release sequence, and by tests). ``frontier``: ``"auto"`` (the default:
    bounded depth-first and best-first phases, then breadth-first), ``"depth"``, ``"best"`` or
    ``"breadth"`` (the only order before, kept for comparison); see the module docstring. The
    verdict does not depend on it. Sets with some D > T go to the arbitrary-deadline game
    (analyses/exact/_pending.py; ``frontier`` ``"auto"`` and ``"best"`` are depth-first there).
    """
    if not ts.is_constrained:
        order = frontier if frontier in pending.ORDERS else "depth"
        return pending.explore(ts, m, rule=_check_ties(ties), budget=budget, shortcuts=shortcuts, frontier=order)
    return engine.explore(
        ts, m, rule=_check_ties(ties), budget=budget, shortcuts=shortcuts, name="the exact G-EDF test", frontier=frontier
    )


def _exact_one(C: NDArray[np.int64], D: NDArray[np.int64], T: NDArray[np.int64], m: int, budget: int) -> int:
    """One set under every tie rule: the verdict code (the engines' ``one``: D > T goes to _pending)."""
    return pending.one(C, D, T, m, budget, "every")


def _exact_index_one(C: NDArray[np.int64], D: NDArray[np.int64], T: NDArray[np.int64], m: int, budget: int) -> int:
    """One set with lowest-index ties: the verdict code."""
    return pending.one(C, D, T, m, budget, "index")


def _exact_codes(batch: TaskSetBatch, m: int, budget: int) -> NDArray[np.int8]:
    """Verdict codes (1 schedulable under every tie rule, 0 not, -1 unknown) for every set."""
    return pending.codes(batch, m, budget, "every")


def _exact_index_codes(batch: TaskSetBatch, m: int, budget: int) -> NDArray[np.int8]:
    """Verdict codes with lowest-index ties."""
    return pending.codes(batch, m, budget, "index")


def _show_choices(ts: TaskSet, choices: tuple[TieChoice, ...]) -> str:
    def names(tasks: tuple[int, ...]) -> str:
        return ", ".join(ts.label(i) for i in tasks)

    return "; ".join(f"t={t}: {names(w)} before {names(lost)}" for t, w, lost in choices)


def explain(ts: TaskSet, m: int, budget: int = DEFAULT_BUDGET, *, ties: Ties = "every") -> Explanation:
    """Verdict with its evidence: the states explored, or the release sequence leading to a miss.

    For an unschedulable set the evidence gives the release times per task (``releases``) and,
    where jobs with equal deadlines competed on the way, the tie choices (``tie_choices``:
    ``(time, winners)``, ``tie_losers``: ``(time, losers)``). Replay them with
    ``rtsched.sim.simulate(ts, m, releases=..., tie_choices=...)``. The exploration runs even
    when U > m decides the verdict, to find such a sequence. Every summary names the tie rule.
    """
    _check_ties(ties)
    rule = TIE_RULE_TEXT[ties]

    def describe_miss(result: Exploration, miss: DeadlineMiss) -> tuple[str, dict[str, object]]:
        assert result.releases is not None
        choices = result.tie_choices or ()
        evidence: dict[str, object] = {
            "releases": result.releases,
            "tie_choices": tuple((t, w) for t, w, _ in choices),
            "tie_losers": tuple((t, lost) for t, _, lost in choices),
            "miss_time": miss.time,
            "miss_task": miss.task,
        }
        summary = (
            f"G-EDF ({rule}) misses {ts.label(miss.task)}'s deadline at t={miss.time} with releases "
            f"{engine.releases_text(ts, result.releases)}"
        )
        if ties == "every":
            if choices:
                summary += f" and tie choices {_show_choices(ts, choices)}"
            else:
                summary += " (no tie on the way: every tie rule misses)"
        return summary, evidence

    quick = explore(ts, m, ties=ties, budget=budget)
    explanation = engine.explanation if ts.is_constrained else pending.explanation
    return explanation(
        ts, m, budget, quick, head={"ties": ties}, found=rule, qualifier=rule, describe_miss=describe_miss
    )


def explain_index(ts: TaskSet, m: int, budget: int = DEFAULT_BUDGET) -> Explanation:
    """:func:`explain` with lowest-index ties (registry name ``exact:index``)."""
    return explain(ts, m, budget, ties="index")


def default_skip(ts: TaskSet, m: int) -> str | None:
    """Why :func:`rtsched.check`'s default list leaves ``exact`` out for this set, or ``None``.

    The state space grows with the product of the periods; ``exact`` stays in the default list
    when Π T_i ≤ 2^14·m² (or when n ≤ m or U > m decide at once): the sets it keeps are almost
    all decided within milliseconds, while most of those it leaves out answer "unknown" or take
    long (``benchmarks/bench_exact.py --parts skip``; papers/exact-search.md, "Performance").
    """
    return engine.default_skip(ts, m, "exact")


ANALYSES = (
    Analysis(
        name="exact", title="Exact G-EDF, every tie-breaking rule (state-space exploration)",
        kind="exact", order=8, policy="global-edf", policy_order=0,
        citation=CITATION_EVERY_TIE, note="papers/gedf-ties.md",
        reference=reference, explain=explain, one=_exact_one, codes=_exact_codes, default_skip=default_skip,
        budget=DEFAULT_BUDGET, budget_unit="explored states", parallel_from=engine.PARALLEL_FROM, compile_seconds=4.6,
        deadlines=("implicit", "constrained", "arbitrary"),
    ),
    Analysis(
        name="exact:index", title="Exact G-EDF, ties to the lowest task index (state-space exploration)",
        kind="exact", order=9, featured=False,
        # a narrower policy than global-edf: one fixed tie rule, so that a report never reads its
        # acceptance as a proof for G-EDF in general
        policy="global-edf:index", policy_order=1,
        citation=CITATION, note="papers/baker-cirinei2007.md",
        reference=reference_index, explain=explain_index, one=_exact_index_one, codes=_exact_index_codes,
        budget=DEFAULT_BUDGET, budget_unit="explored states", parallel_from=engine.PARALLEL_FROM,
        shares_kernels_with="exact",
        deadlines=("implicit", "constrained", "arbitrary"),
    ),
)
