"""Exact global EDF schedulability test by state-space exploration; see papers/baker-cirinei2007.md.

Baker and Cirinei (OPODIS 2007, "Brute-force determination of multiprocessor schedulability for
sets of sporadic hard-deadline tasks") decide G-EDF schedulability of a sporadic task system in
integer time as reachability of a failure state in a finite automaton; Bonifaci and
Marchetti-Spaccamela (ESA 2010, "Feasibility analysis of sporadic real-time multiprocessor task
systems", papers/bonifaci-msp2010.md) give the same construction as a game between an adversary
that releases jobs and the scheduler; Geeraerts, Goossens and Lindström (RTS 49(2), 2013,
papers/geeraerts2013-antichains.md) prune the search with the *idle tasks simulation* relation
and antichains.

The game, tick by tick (time is integer). State per task ``i``: ``rct_i`` (remaining execution
of its current job, 0 if none) and ``nat_i`` (ticks until the next release is allowed). The
current job's time to its deadline is ``nat_i − (T_i − D_i)`` (constrained deadlines).

1. The adversary releases any subset of the tasks with ``nat_i = 0`` (a release sets
   ``rct_i = C_i``, ``nat_i = T_i``; with D ≤ T such a task has no pending job left).
2. G-EDF runs for one tick the ``m`` pending jobs with the earliest absolute deadlines; equal
   deadlines go to the lowest task index (the verdict can depend on the order; papers/simulator.md).
3. ``nat_i ← max(nat_i − 1, 0)``; a pending job whose deadline is reached with work left is a
   *failure*. The kernel stops one step earlier, at a *doomed* job (more work left than ticks
   to its deadline: it misses whatever the adversary and the scheduler do next); the reference
   waits for the deadline itself. Both decide the same reachability question.

The set is G-EDF schedulable iff no failure is reachable from the initial state (all zero).

Pruning (Geeraerts et al. 2013, idle tasks simulation; definition numbering unverified): a state
S' *simulates* S if both have the same pending jobs (same ``rct``, and same ``nat`` for every
task with a pending job) and every idle task may be released at least as early in S' as in S
(``nat'_i ≤ nat_i``). Any adversary strategy from S can be played from S' with the same effect,
so a failure reachable from S is reachable from S'; a new state simulated by a stored one is
dropped, and a stored state not yet expanded that a new state simulates is not expanded.
States are stored in a hash table keyed by their pending part; exact duplicates are the special
case of equality. Breadth-first order keeps counterexamples short (shortest in the pruned graph,
not necessarily in the full one).

Verdict codes: ACCEPT (no failure reachable), REJECT (a failure is reachable, or U > m, a
necessary condition of any scheduler), UNKNOWN (the state or transition budget ran out — never
reported as a rejection). Shortcut: n ≤ m is always schedulable (every job has a processor).

Layers: :func:`reference` (pure Python BFS over explicit (rem, time-to-deadline, time-to-release)
triples, coded independently of the kernel, no pruning), ``_explore`` (Numba kernel, int16/int32
state rows, open addressing, antichain pruning), :func:`exact_status` / :func:`exact_batch`
(sets explored one after the other: each exploration allocates its budgeted tables, so running
them in parallel would multiply the memory), :func:`explain` (counterexample release sequence).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations

import numpy as np
from numba import njit
from numpy.typing import NDArray

from rtsched.errors import InputError
from rtsched.kernels import ACCEPT, REJECT, UNKNOWN, check_processors
from rtsched.model import TaskSet, TaskSetBatch
from rtsched.registry import Analysis
from rtsched.result import UNKNOWN as UNKNOWN_VERDICT
from rtsched.result import Result, Verdict, show_number

__all__ = [
    "ANALYSES",
    "DEFAULT_MAX_STATES",
    "DEFAULT_MAX_TRANSITIONS",
    "Exploration",
    "exact_batch",
    "exact_status",
    "explain",
    "explore",
    "reference",
]

CITATION = (
    "Baker, Cirinei, 'Brute-force determination of multiprocessor schedulability for sets of "
    "sporadic hard-deadline tasks', OPODIS 2007; Bonifaci, Marchetti-Spaccamela, 'Feasibility "
    "analysis of sporadic real-time multiprocessor task systems', ESA 2010; antichain pruning "
    "(idle tasks simulation) after Geeraerts, Goossens, Lindström, Real-Time Systems 49(2), 2013"
)

#: Default budget: states stored (memory) and transitions examined (time).
DEFAULT_MAX_STATES = 1_000_000
DEFAULT_MAX_TRANSITIONS = 50_000_000
_GROW = np.int8(3)
#: How many stored states with the same pending part a new state is compared with.
CHAIN_LOOK = 64
#: Release subsets are bit masks in int64.
MAX_EXPLORED_TASKS = 62


# -- reference: plain BFS, no pruning ---------------------------------------------------------
def reference(ts: TaskSet, m: int, max_states: int = 200_000) -> Verdict:
    """Exact verdict by breadth-first search over every reachable state (no pruning).

    A state is a tuple of ``(remaining, to_deadline, to_release)`` per task. ``"unknown"`` if
    more than ``max_states`` states are reachable.
    """
    failure, _ = _reference_search(ts, m, max_states)
    return failure


def _reference_search(ts: TaskSet, m: int, max_states: int) -> tuple[Verdict, list[list[int]] | None]:
    C, D, T = (list(map(int, ts.C)), list(map(int, ts.D)), list(map(int, ts.T)))
    n = len(C)
    start = tuple((0, 0, 0) for _ in range(n))
    parent: dict[tuple, tuple | None] = {start: None}
    released_by: dict[tuple, tuple[int, ...]] = {start: ()}
    queue = deque([(start, 0)])
    while queue:
        state, now = queue.popleft()
        free = [i for i in range(n) if state[i][2] == 0]
        for size in range(len(free) + 1):
            for released in combinations(free, size):
                jobs = [list(x) for x in state]
                for i in released:
                    jobs[i] = [C[i], D[i], T[i]]
                pending = sorted((i for i in range(n) if jobs[i][0] > 0), key=lambda i: (jobs[i][1], i))
                for i in pending[:m]:
                    jobs[i][0] -= 1
                failed = False
                for job in jobs:
                    job[2] = max(job[2] - 1, 0)
                    if job[0] > 0:
                        job[1] -= 1
                        failed |= job[1] <= 0
                    else:
                        job[1] = 0
                nxt = tuple(tuple(x) for x in jobs)
                if failed:
                    return False, _reference_path(parent, released_by, state, released, now, n)
                if nxt not in parent:
                    if len(parent) >= max_states:
                        return UNKNOWN_VERDICT, None
                    parent[nxt] = state
                    released_by[nxt] = released
                    queue.append((nxt, now + 1))
    return True, None


def _reference_path(parent: dict, released_by: dict, state: tuple, last: tuple[int, ...], now: int, n: int) -> list[list[int]]:
    steps = [last]
    while parent[state] is not None:
        steps.append(released_by[state])
        state = parent[state]
    steps.reverse()  # steps[t] = tasks released at time t
    out: list[list[int]] = [[] for _ in range(n)]
    for t, released in enumerate(steps):
        for i in released:
            out[i].append(t)
    return out


# -- kernel ------------------------------------------------------------------------------------
@njit(cache=True)
def _key_hash(rct, nat, n):  # noqa: ANN001, ANN202
    """Hash of a state's pending part: rct of every task, nat of the tasks with a pending job."""
    h = np.uint64(14695981039346656037)
    prime = np.uint64(1099511628211)
    for i in range(n):
        h = (h ^ np.uint64(rct[i] + 1)) * prime
        if rct[i] > 0:
            h = (h ^ np.uint64(nat[i] + 7919)) * prime
    return h


@njit(cache=True)
def _full_hash(rct, nat, n):  # noqa: ANN001, ANN202
    """Hash of a whole state (exact-duplicate table)."""
    h = np.uint64(1469598103934665603)
    prime = np.uint64(1099511628211)
    for i in range(n):
        h = (h ^ np.uint64(rct[i] + 1)) * prime
        h = (h ^ np.uint64(nat[i] + 3)) * prime
    return h


@njit(cache=True)
def _explore(C, D, T, m, max_states, max_transitions, chain_look, grow_code, rows):  # noqa: ANN001, ANN202
    """Breadth-first search with idle-tasks-simulation pruning.

    ``rows`` is a preallocated ``(max_states + 1, 2n)`` int16/int32 array of states (rct then
    nat). Returns ``(code, n_states, transitions, fail_parent, fail_mask, parents, masks)``:
    on REJECT, the failure follows state ``fail_parent`` by releasing ``fail_mask``. When
    ``max_states`` states are stored the code is ``grow_code`` (UNKNOWN at the real budget, or
    GROW: the caller reruns with larger tables).
    """
    n = C.shape[0]
    parents = np.full(max_states + 1, -1, dtype=np.int64)
    masks = np.zeros(max_states + 1, dtype=np.int64)
    chain = np.full(max_states + 1, -1, dtype=np.int64)  # next stored state with the same pending part
    skip = np.zeros(max_states + 1, dtype=np.bool_)  # simulated by a later state: not expanded
    victims = np.empty(chain_look, dtype=np.int64)
    size = 1
    while size < 2 * (max_states + 1):
        size *= 2
    table = np.full(size, -1, dtype=np.int64)  # first stored state of each pending part
    exact = np.full(size, -1, dtype=np.int64)  # every stored state, for O(1) duplicate checks
    slack = T - D  # deadline of a pending job = nat - (T - D)
    rct = np.zeros(n, dtype=np.int64)
    nat = np.zeros(n, dtype=np.int64)
    free = np.zeros(n, dtype=np.int64)
    pending = np.zeros(n, dtype=np.int64)
    for j in range(2 * n):
        rows[0, j] = 0
    table[_key_hash(rct, nat, n) & np.uint64(size - 1)] = 0
    exact[_full_hash(rct, nat, n) & np.uint64(size - 1)] = 0
    n_states = 1
    transitions = 0
    head = 0
    while head < n_states:
        if skip[head]:
            head += 1
            continue
        n_free = 0
        for i in range(n):
            if rows[head, n + i] == 0:
                free[n_free] = i
                n_free += 1
        for sub in range(1 << n_free):
            transitions += 1
            if transitions > max_transitions:
                return UNKNOWN, n_states, transitions, -1, 0, parents, masks
            mask = 0
            for i in range(n):
                rct[i] = rows[head, i]
                nat[i] = rows[head, n + i]
            for b in range(n_free):
                if (sub >> b) & 1:
                    i = free[b]
                    rct[i] = C[i]
                    nat[i] = T[i]
                    mask |= 1 << i
            # G-EDF: the m pending jobs with the earliest deadlines (ties: lowest index) run
            n_pending = 0
            for i in range(n):
                if rct[i] > 0:
                    pending[n_pending] = i
                    n_pending += 1
            if n_pending <= m:
                for j in range(n_pending):
                    rct[pending[j]] -= 1
            else:
                for _ in range(m):
                    best = -1
                    best_j = -1
                    for j in range(n_pending):
                        i = pending[j]
                        if i < 0:
                            continue
                        if best < 0 or nat[i] - slack[i] < nat[best] - slack[best]:
                            best = i  # scanning in index order keeps the lowest index on ties
                            best_j = j
                    rct[best] -= 1
                    pending[best_j] = -1
            failed = False
            for i in range(n):
                if nat[i] > 0:
                    nat[i] -= 1
                # doomed: more work left than ticks to the deadline (a miss whatever happens next;
                # it also covers a deadline reached with work left)
                if rct[i] > 0 and rct[i] > nat[i] - slack[i]:
                    failed = True
            if failed:
                return REJECT, n_states, transitions, head, mask, parents, masks
            # exact duplicate? (the most frequent case, O(1))
            dup_slot = _full_hash(rct, nat, n) & np.uint64(size - 1)
            duplicate = False
            while exact[dup_slot] >= 0:
                s = exact[dup_slot]
                same = True
                for i in range(n):
                    if rows[s, i] != rct[i] or rows[s, n + i] != nat[i]:
                        same = False
                        break
                if same:
                    duplicate = True
                    break
                dup_slot = (dup_slot + np.uint64(1)) & np.uint64(size - 1)
            if duplicate:
                continue
            # simulated by a stored state with the same pending part? Only the first
            # CHAIN_LOOK states of the chain are compared: pruning less is still sound, and it
            # keeps the cost per transition bounded.
            slot = _key_hash(rct, nat, n) & np.uint64(size - 1)
            dominated = False
            while True:
                first = table[slot]
                if first < 0:
                    break
                same_key = True
                for i in range(n):
                    if rows[first, i] != rct[i] or (rct[i] > 0 and rows[first, n + i] != nat[i]):
                        same_key = False
                        break
                if same_key:
                    s = first
                    looked = 0
                    n_covered = 0
                    while s >= 0 and looked < chain_look:
                        covers = True  # stored s simulates the new state
                        covered = True  # the new state simulates stored s
                        for i in range(n):
                            if rct[i] == 0:
                                if rows[s, n + i] > nat[i]:
                                    covers = False
                                elif rows[s, n + i] < nat[i]:
                                    covered = False
                        if covers:
                            dominated = True
                            break
                        if covered and s > head and not skip[s]:
                            victims[n_covered] = s
                            n_covered += 1
                        s = chain[s]
                        looked += 1
                    if not dominated:
                        # stored states not yet expanded that the new one simulates need not be
                        # expanded: the new state is, and reaches every failure they reach
                        for j in range(n_covered):
                            skip[victims[j]] = True
                    break
                slot = (slot + np.uint64(1)) & np.uint64(size - 1)
            if dominated:
                continue
            if n_states > max_states - 1:
                return grow_code, n_states, transitions, -1, 0, parents, masks
            new = n_states
            for i in range(n):
                rows[new, i] = rct[i]
                rows[new, n + i] = nat[i]
            parents[new] = head
            masks[new] = mask
            exact[dup_slot] = new
            if table[slot] < 0:
                table[slot] = new
            else:
                chain[new] = chain[table[slot]]
                chain[table[slot]] = new
            n_states += 1
        head += 1
    return ACCEPT, n_states, transitions, -1, 0, parents, masks


@dataclass(frozen=True)
class Exploration:
    """Outcome of one exploration.

    ``code``: ACCEPT, REJECT or UNKNOWN; ``states``/``transitions``: work done; ``reason``:
    ``"explored"``, ``"utilization"`` (U > m), ``"n <= m"``, ``"budget"`` or ``"too large"``
    (more than 62 tasks or periods beyond int32); ``releases``: on
    a reachable failure, the release times of each task leading to it (short: breadth-first);
    ``doomed_at``: the time at which some job became doomed along it.
    """

    code: int
    states: int
    transitions: int
    reason: str
    releases: tuple[tuple[int, ...], ...] | None = None
    doomed_at: int = -1


def explore(
    ts: TaskSet,
    m: int,
    *,
    max_states: int = DEFAULT_MAX_STATES,
    max_transitions: int = DEFAULT_MAX_TRANSITIONS,
    shortcuts: bool = True,
) -> Exploration:
    """Run the exploration on one set (see the module docstring for the game).

    ``shortcuts=False`` explores even when U > m or n <= m decide the verdict (used to get a
    counterexample release sequence, and by tests).
    """
    m = check_processors(m)
    n = ts.n
    if shortcuts and n <= m:
        return Exploration(int(ACCEPT), 0, 0, "n <= m")
    if shortcuts and ts.utilization > m:
        return Exploration(int(REJECT), 0, 0, "utilization")
    if not ts.is_constrained:
        raise InputError("the exact G-EDF test handles constrained deadlines (D <= T) only")
    big = int(ts.T.max())
    if n > MAX_EXPLORED_TASKS or big >= 2**31 - 1:
        return Exploration(int(UNKNOWN), 0, 0, "too large")
    dtype = np.int16 if big < 2**15 else np.int32
    # no more states exist than Π (C_i + 1)(T_i + 1): small sets get small tables
    bound = 1
    for c, t in zip(ts.C.tolist(), ts.T.tolist(), strict=True):
        bound *= (c + 1) * (t + 1)
        if bound > max_states:
            break
    limit = int(min(max_states, bound + 1))
    # Tables grow geometrically (rerunning from scratch costs at most 1/7 extra work), so
    # small explorations do not pay for allocating the whole budget.
    capacity = min(limit, 4096)
    while True:
        rows = np.empty((capacity + 1, 2 * n), dtype=dtype)
        grow_code = UNKNOWN if capacity >= limit else _GROW
        code, states, transitions, fail_parent, fail_mask, parents, masks = _explore(
            ts.C, ts.D, ts.T, m, capacity, int(max_transitions), CHAIN_LOOK, grow_code, rows
        )
        if code != _GROW:
            break
        capacity = min(limit, 8 * capacity)
    releases = None
    if code == REJECT:
        steps = [int(fail_mask)]
        s = int(fail_parent)
        while s > 0:
            steps.append(int(masks[s]))
            s = int(parents[s])
        steps.reverse()  # steps[t] = mask of tasks released at time t
        releases = tuple(tuple(t for t, mask in enumerate(steps) if (mask >> i) & 1) for i in range(n))
    reason = "budget" if code == UNKNOWN else "explored"
    doomed_at = len(steps) if code == REJECT else -1
    return Exploration(int(code), int(states), int(transitions), reason, releases, doomed_at)


def exact_status(
    batch: TaskSetBatch,
    m: int,
    *,
    max_states: int = DEFAULT_MAX_STATES,
    max_transitions: int = DEFAULT_MAX_TRANSITIONS,
) -> NDArray[np.int8]:
    """Verdict codes per set: 1 schedulable, 0 not schedulable, -1 unknown (budget exhausted)."""
    m = check_processors(m)
    out = np.empty(batch.n_sets, dtype=np.int8)
    for s in range(batch.n_sets):
        out[s] = explore(batch[s], m, max_states=max_states, max_transitions=max_transitions).code
    return out


def exact_batch(batch: TaskSetBatch, m: int) -> NDArray[np.bool_]:
    """True where the set is proven G-EDF schedulable (unknown counts as not proven)."""
    return exact_status(batch, m) == ACCEPT


def explain(
    ts: TaskSet, m: int, *, max_states: int = DEFAULT_MAX_STATES, max_transitions: int = DEFAULT_MAX_TRANSITIONS
) -> Result:
    """Verdict with its evidence: the states explored, or the release sequence leading to a miss.

    For an unschedulable set the exploration runs even when U > m decides it, to give the
    release times per task that make G-EDF miss (replay them with
    ``rtsched.sim.simulate(ts, m, releases=...)``).
    """
    m = check_processors(m)
    from rtsched.sim import simulate  # the simulator replays sequences to their first miss

    quick = explore(ts, m, max_states=max_states, max_transitions=max_transitions)
    result = quick
    if quick.code == REJECT and quick.releases is None:
        # U > m: look for a (short) release sequence; the verdict does not depend on it
        deep = explore(ts, m, max_states=min(max_states, 100_000), max_transitions=max_transitions, shortcuts=False)
        if deep.code == REJECT:
            result = deep
        else:  # with U > m the synchronous periodic pattern misses within a hyperperiod
            trace = simulate(ts, m, horizon=min(ts.hyperperiod, 10**7), record=False)
            if trace.miss is not None:
                periodic = tuple(
                    tuple(range(0, trace.miss.time, int(t))) for t in ts.T
                )
                result = Exploration(quick.code, deep.states, deep.transitions, "utilization", periodic)
    evidence: dict[str, object] = {"states": result.states, "transitions": result.transitions, "reason": quick.reason}
    if quick.code == ACCEPT:
        verdict: Verdict = True
        if quick.reason == "n <= m":
            summary = f"n = {ts.n} <= m = {m}: every job has its own processor"
        else:
            summary = f"no deadline miss reachable ({result.states} states explored, ties to the lowest index)"
    elif quick.code == REJECT:
        verdict = False
        if result.releases is not None:
            miss = simulate(ts, m, releases=result.releases).miss
            if miss is None:  # a doomed job always misses on replay; anything else is a bug
                raise RuntimeError(f"replay of {result.releases} found no miss")
            evidence["releases"] = [list(r) for r in result.releases]
            evidence["miss_time"] = miss.time
            evidence["miss_task"] = miss.task
            shown = "; ".join(f"{ts.label(i)}: {list(r)}" for i, r in enumerate(result.releases) if r)
            summary = f"G-EDF misses {ts.label(miss.task)}'s deadline at t={miss.time} with releases {shown}"
        else:
            summary = f"U = {show_number(ts.utilization)} > m = {m} (no release sequence found within the budget)"
        if quick.reason == "utilization":
            evidence["utilization"] = Fraction(ts.utilization)
    else:
        verdict = UNKNOWN_VERDICT
        summary = (
            f"unknown: budget exhausted after {result.states} states / {result.transitions} transitions "
            f"(max_states={max_states}, max_transitions={max_transitions})"
        )
    return Result(analysis="exact", verdict=verdict, m=m, kind="exact", summary=summary, evidence=evidence)


ANALYSES = (
    Analysis(
        name="exact",
        title="Exact G-EDF (state-space exploration)",
        citation=CITATION,
        kind="exact",
        policy="global-edf",
        platform="identical",
        batch=exact_batch,
        explain=explain,
        reference=reference,
        note="papers/baker-cirinei2007.md",
        deadlines=("implicit", "constrained"),
        status=exact_status,
        featured=True,
    ),
)
