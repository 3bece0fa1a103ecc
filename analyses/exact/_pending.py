"""The exact state-space game with arbitrary deadlines (D > T): several pending jobs per task.

Private engine of ``exact``, ``exact:index`` (analyses/exact/exact_gedf.py) and ``exact-gfp``
(analyses/exact/exact_gfp.py) for sets with some ``D_i > T_i``; sets with constrained deadlines
keep the engine of analyses/exact/_state_space.py (one pending job per task, its measured speed and
its compiled kernels). papers/exact-search.md, "Arbitrary deadlines", states the game and the
proofs below at more length.

Sources. Bonifaci & Marchetti-Spaccamela (ESA 2010, "Feasibility analysis of sporadic real-time
multiprocessor task systems"; papers/bonifaci-msp2010.md) pose schedulability of a sporadic
system on m processors as a game between an adversary who releases jobs and the scheduler, over
a finite graph, for *arbitrary* deadlines (a task may have several jobs pending; their state
records, per pending job, its remaining work and time to its deadline). Baker & Cirinei (OPODIS
2007) give the integer-time automaton for constrained deadlines; Geeraerts, Goossens & Lindström
(RTS 49(2), 2013) the idle-tasks simulation pruning. The encoding, the bound on pending jobs
with the doomed-job cut, the simulation relation used here (which compares the release clocks of
*every* task, not only of idle ones) and the tie semantics (papers/gedf-ties.md) are rtsched's
own, with the proofs below.

The task model is the house's (rtsched.sim.simulate): a task's jobs run one at a time in release
order; a job becomes eligible when its predecessor completes (its *head* is the only eligible
job). Time is integer.

**The game**, tick by tick. State per task ``i``: the pending jobs in release order, each with its
time to its deadline ``d_{i,1} < d_{i,2} < …`` (relative to now), the remaining work ``r_i`` of
the head (the others have all of ``C_i`` left), and ``nat_i`` (ticks until the next release is
allowed).

1. The adversary releases any subset of the tasks with ``nat_i = 0``: a release appends a job
   with ``C_i`` work and ``d = D_i`` and sets ``nat_i = T_i``.
2. The scheduler runs, for one tick, ``m`` heads (all of them if at most ``m`` tasks have a
   pending job), chosen by the rule: ``every``/``index`` — G-EDF on the heads' deadlines (``every``:
   the adversary picks which of the jobs tied at the m-th deadline run; ``index``: the lowest
   indices); ``fp`` — the lowest task indices.
3. A head that has run its last unit leaves; every pending job's ``d`` decreases by one and
   ``nat_i ← max(nat_i − 1, 0)``. A pending job with ``d = 0`` is a miss (the reference); the
   kernel stops one step earlier at a *doomed* job: the j-th pending job of task i (j = 1 the
   head) is doomed when ``r_i + (j − 1)·C_i > d_{i,j}`` — the task runs at most one unit per tick,
   so that job cannot finish before ``r_i + (j − 1)·C_i`` ticks from now: it misses whatever
   happens next. A job with ``d = 0`` and work left is doomed, so both decide the same question.

The set is schedulable by the rule iff no miss is reachable from the initial state (no job
pending, every release allowed).

**Finite.** At most ``K_i = ⌈D_i/T_i⌉`` jobs of task i are pending in a state without a miss:
with ``K_i + 1`` pending, the newest was released at least ``K_i·T_i ≥ D_i`` after the oldest,
which then is at or past its deadline. And a release at ``nat_i = 0`` with ``K_i`` pending is
impossible without an earlier miss (the oldest was released at least ``K_i·T_i ≥ D_i`` ago).
So ``0 ≤ r_i ≤ C_i``, ``0 ≤ nat_i ≤ T_i``, ``1 ≤ d_{i,j} ≤ D_i`` for at most ``K_i`` jobs: finitely
many states.

**Encoding** (the kernel's rows, int32): ``[r_0..r_{n−1}, nat_0..nat_{n−1}, d_{0,1}..d_{0,K},
d_{1,1}..]`` with ``K = max K_i`` slots per task, empty slots 0 (a pending job has ``d ≥ 1``).
The *pending part* of a state is everything but the ``nat`` columns.

**Pruning** (rtsched's, after Geeraerts et al.'s idle tasks simulation): a state S' *simulates*
S when both have the same pending part and ``nat'_i ≤ nat_i`` for every task (idle or not).
Proof that a miss reachable from S is reachable from S': let the adversary play from S' the
moves of any play from S — the same releases at the same ticks, and under ``every`` the same tie
choices. The releases are allowed: ``nat' ≤ nat`` holds at the start, a release sets both to
``T_i``, and a tick maps both through the monotone ``max(· − 1, 0)``. The pending parts stay
equal tick by tick, because every rule decides the running set, and the set of tie choices
offered to the adversary, from the heads' deadlines and indices alone (the rules are memoryless
and ``nat`` plays no part in them), and the effect of a tick on the pending part depends only on
the pending part and the running set. So the same job misses at the same tick. The relation is
a preorder (transitive), which the antichain bookkeeping below needs. With D ≤ T the pending
part fixes ``nat`` of a task with a pending job, and the relation is the idle tasks simulation
of analyses/exact/_state_space.py.

The search (:func:`_explore_pending`): depth-first or breadth-first over stored states; a new
state equal to a stored one is dropped (exact-duplicate hash table); a new state simulated by a
stored one with the same pending part is dropped; a stored state that a new one simulates leaves
its chain and, if not yet expanded, is never expanded (the new one reaches every miss it
reaches). The first :data:`CHAIN_LOOK` states of a chain are compared (comparing fewer prunes
less, still soundly). No symmetry reduction (unlike the D ≤ T engine).

Probes (as the D ≤ T engine's, papers/exact-search.md, "Probes"): before the search, random
walks through the same game (:func:`_walk_pending`, :data:`PROBE_FIRST_TICKS` ticks in all); a
walk that reaches a doomed job is a legal path to a miss and ends the search (reason
``"probe"``); a walk without one concludes nothing, so every verdict is the search's. Unlike the
D ≤ T engine they do not run again at pauses of the search.

Sets whose rows would be wider than :data:`MAX_ROW_WIDTH` columns (many jobs pending per task, e.g.
D = 1000·T) are not explored: UNKNOWN, reason ``"too large"``.

Budget: as for the D ≤ T engine: ``budget`` stored states and at most
:data:`TRANSITIONS_PER_STATE` transitions per budgeted state; past either the code is UNKNOWN.
Result codes ACCEPT / REJECT / UNKNOWN. Shortcuts: U > m rejects (no scheduler keeps up in the
long run); n ≤ m accepts only when every ``C_i ≤ T_i`` (then each task has a processor whenever
it has a pending job, a job finishes ``C_i ≤ T_i`` after its release, before the next one's
release, and ``C_i ≤ D_i``); with some ``C_i > T_i`` and n ≤ m the search decides.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import replace
from fractions import Fraction
from itertools import combinations
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from rtsched.analyses.exact import _state_space as engine
from rtsched.analyses.exact._state_space import (
    DEFAULT_BUDGET,
    MAX_EXPLORED_TASKS,
    PROBE_FIRST_TICKS,
    PROBE_HORIZON,
    TRANSITIONS_PER_STATE,
    Exploration,
    Rule,
    _next_combination,
    _next_random,
    _run_heads,
    bits,
    check_rule,
    utilization_above,
)
from rtsched.errors import InputError
from rtsched.kernels import ACCEPT, REJECT, UNKNOWN, check_processors, insert_sorted, kernel
from rtsched.model import TaskSet, TaskSetBatch
from rtsched.result import UNKNOWN as UNKNOWN_VERDICT
from rtsched.result import Explanation, Verdict, show_number

if TYPE_CHECKING:
    from rtsched.sim.trace import DeadlineMiss

__all__ = [
    "CHAIN_LOOK",
    "MAX_ROW_WIDTH",
    "ORDERS",
    "codes",
    "explanation",
    "explore",
    "max_pending",
    "one",
    "reference",
    "search",
    "witness",
]

#: How many stored states with the same pending part a new state is compared with.
CHAIN_LOOK = 256
#: Search orders of the kernel.
BREADTH_FIRST = 0
DEPTH_FIRST = 1
ORDERS: dict[str, int] = {"breadth": BREADTH_FIRST, "depth": DEPTH_FIRST}
#: States the tables hold at first; they grow 8-fold when full (inside the kernel).
INITIAL_TABLE = 4096
#: A depth-first miss is shortened by a breadth-first search of at most this many times the
#: states the depth-first search stored (at least :data:`SHORTEN_MIN_STATES`).
SHORTEN_FACTOR = 4
SHORTEN_MIN_STATES = 4096
#: Largest time value of a state row (int32).
_MAX_TIME = 2**31 - 2
#: Widest state row (2n + n·max ⌈D_i/T_i⌉ int32 columns) explored; wider sets are "too large"
#: (UNKNOWN): the rows of a search at the default budget stay within about 200 MB.
MAX_ROW_WIDTH = 512


def max_pending(D: NDArray[np.int64] | list[int], T: NDArray[np.int64] | list[int]) -> list[int]:
    """``K_i = ⌈D_i / T_i⌉``: the most jobs of task i pending in a state without a miss."""
    return [-(-int(d) // int(t)) for d, t in zip(D, T, strict=True)]


# -- reference: plain BFS over explicit job lists, no pruning -----------------------------------
def reference(ts: TaskSet, m: int, budget: int = DEFAULT_BUDGET, rule: Rule = "every") -> Verdict:
    """Exact verdict of the D > T game by breadth-first search over every reachable state.

    A state holds, per task, the tuple of its pending jobs in release order, each as
    ``(remaining, to_deadline)``, and its ticks to the next allowed release. Each tick: the
    adversary releases any subset of the tasks allowed to release; the scheduler runs any legal
    set of *heads* (the oldest pending job of each task): ``min(m, tasks pending)`` of them —
    under G-EDF none with a later deadline than a head left waiting (``rule="every"``: every such
    set is a branch; ``"index"``: the first ``m`` in (deadline, index) order), under G-FP
    (``"fp"``) the first ``m`` in task order; a finished head leaves; a pending job whose deadline
    is reached is a miss (False). No pruning, no doomed cut, no bound on the pending jobs (a
    miss bounds them). ``"unknown"`` if more than ``budget`` states are reachable. Works for any
    deadlines (with D ≤ T it is the game of ``_state_space.reference`` in another encoding).
    """
    check_rule(rule)
    C, D, T = (list(map(int, ts.C)), list(map(int, ts.D)), list(map(int, ts.T)))
    n = len(C)
    start: tuple = tuple(((), 0) for _ in range(n))
    seen = {start}
    queue = deque([start])
    while queue:
        state = queue.popleft()
        free = [i for i in range(n) if state[i][1] == 0]
        for size in range(len(free) + 1):
            for released in combinations(free, size):
                tasks = [(list(map(list, jobs)), nat) for jobs, nat in state]
                for i in released:
                    tasks[i][0].append([C[i], D[i]])
                    tasks[i] = (tasks[i][0], T[i])
                for run in _legal_heads(tasks, m, rule):
                    nxt, failed = _tick_jobs(tasks, run)
                    if failed:
                        return False
                    if nxt not in seen:
                        if len(seen) >= budget:
                            return UNKNOWN_VERDICT
                        seen.add(nxt)
                        queue.append(nxt)
    return True


def _legal_heads(tasks: list[tuple[list[list[int]], int]], m: int, rule: str) -> list[tuple[int, ...]]:
    """The sets of tasks whose heads may run for one tick (from the definition of each rule)."""
    pending = [i for i, (jobs, _) in enumerate(tasks) if jobs]
    size = min(m, len(pending))
    if rule == "fp":
        return [tuple(pending[:size])]

    def deadline(i: int) -> int:
        return tasks[i][0][0][1]

    if rule == "index":
        return [tuple(sorted(pending, key=lambda i: (deadline(i), i))[:size])]
    legal = []
    for run in combinations(pending, size):
        waiting = [i for i in pending if i not in run]
        if all(deadline(r) <= deadline(w) for r in run for w in waiting):
            legal.append(run)
    return legal


def _tick_jobs(tasks: list[tuple[list[list[int]], int]], run: tuple[int, ...]) -> tuple[tuple, bool]:
    """Run the heads of ``run`` for one tick; the next state and whether a deadline was missed."""
    out = []
    failed = False
    for i, (jobs, nat) in enumerate(tasks):
        left = [list(job) for job in jobs]
        if i in run:
            left[0][0] -= 1
            if left[0][0] == 0:
                left.pop(0)
        for job in left:
            job[1] -= 1
            failed |= job[1] <= 0
        out.append((tuple(map(tuple, left)), max(nat - 1, 0)))
    return tuple(out), failed


# -- kernel ------------------------------------------------------------------------------------
@kernel
def _row_hash(row, lo_skip, hi_skip):
    """FNV-1a hash of ``row`` without the columns ``lo_skip:hi_skip`` (empty range: the whole row)."""
    h = np.uint64(14695981039346656037)
    prime = np.uint64(1099511628211)
    for j in range(row.shape[0]):
        if lo_skip <= j < hi_skip:
            continue
        h = (h ^ np.uint64(row[j] + 3)) * prime
    return h


@kernel
def _grown(a, keep, length, fill):
    """A copy of the 1-D ``a`` with ``length`` entries: its first ``keep`` entries, then ``fill``."""
    b = np.full(length, fill, a.dtype)
    b[:keep] = a[:keep]
    return b


@kernel
def _insert(table, row, lo_skip, hi_skip, value):
    """Put ``value`` (a stored state) into the open-addressing ``table`` at its row's hash."""
    size = table.shape[0]
    slot = _row_hash(row, lo_skip, hi_skip) & np.uint64(size - 1)
    while table[slot] >= 0:
        slot = (slot + np.uint64(1)) & np.uint64(size - 1)
    table[slot] = value


@kernel
def _explore_pending(C, D, T, m, fixed, every_tie, K, state_cap, transition_cap, frontier, chain_look, capacity):
    """Search the D > T game with simulation pruning (see the module docstring).

    ``fixed``: G-FP in task order (else G-EDF; ``every_tie``: branch on every choice among heads
    tied at the m-th deadline, else the lowest indices run). ``K``: job slots per task (at least
    ``max ⌈D_i/T_i⌉``). ``frontier``: :data:`BREADTH_FIRST` or :data:`DEPTH_FIRST`. The tables
    start at ``capacity`` states and grow 8-fold (at most to ``state_cap``).

    Returns ``(code, n_states, transitions, fail_parent, fail_mask, fail_won, fail_tied, parents,
    masks, won, tied)``: on REJECT the miss follows state ``fail_parent`` by releasing the tasks
    ``fail_mask`` and running the tied tasks ``fail_won`` of those ``fail_tied`` (0: no tie);
    ``parents``/``masks``/``won``/``tied`` give the same for every stored state (the path).
    """
    n = C.shape[0]
    width = 2 * n + n * K
    capacity = max(1, min(capacity, state_cap))
    rows = np.zeros((capacity + 1, width), dtype=np.int32)
    parents = np.full(capacity + 1, -1, dtype=np.int64)
    masks = np.zeros(capacity + 1, dtype=np.int64)
    won = np.zeros(capacity + 1, dtype=np.int64)
    tied = np.zeros(capacity + 1, dtype=np.int64)
    chain = np.full(capacity + 1, -1, dtype=np.int64)
    status = np.zeros(capacity + 1, dtype=np.int8)  # 0 waiting, 1 expanded, 2 simulated: never expanded
    stack = np.zeros(capacity + 1, dtype=np.int64)
    size = 2
    while size < 2 * (capacity + 1):
        size *= 2
    table = np.full(size, -1, dtype=np.int64)  # first state of each pending part's chain
    exact = np.full(size, -1, dtype=np.int64)  # every stored state
    lo, hi = n, 2 * n  # the nat columns: left out of the pending part
    base = np.zeros(width, dtype=np.int64)
    cur_row = np.zeros(width, dtype=np.int64)
    new = np.zeros(width, dtype=np.int64)
    free = np.zeros(n, dtype=np.int64)
    order = np.zeros(n, dtype=np.int64)
    key = np.zeros(n, dtype=np.int64)
    comb = np.zeros(n + 1, dtype=np.int64)
    _insert(table, new, lo, hi, 0)
    _insert(exact, new, 0, 0, 0)
    n_states = 1
    transitions = 0
    head = 0
    n_stack = 0
    if frontier == DEPTH_FIRST:
        stack[0] = 0
        n_stack = 1
    while True:
        if frontier == DEPTH_FIRST:
            if n_stack == 0:
                break
            n_stack -= 1
            cur = stack[n_stack]
        else:
            if head >= n_states:
                break
            cur = head
            head += 1
        if status[cur] != 0:
            continue
        status[cur] = 1
        for j in range(width):
            cur_row[j] = rows[cur, j]
        n_free = 0
        for i in range(n):
            if cur_row[n + i] == 0:
                free[n_free] = i
                n_free += 1
        for sub in range(1 << n_free):
            mask = 0
            impossible = False
            for j in range(width):
                base[j] = cur_row[j]
            for b in range(n_free):
                if (sub >> b) & 1:
                    i = free[b]
                    count = 0
                    while count < K and base[2 * n + i * K + count] > 0:
                        count += 1
                    if count == K:
                        impossible = True  # unreachable without an earlier miss (module docstring)
                        break
                    base[2 * n + i * K + count] = D[i]
                    if count == 0:
                        base[i] = C[i]
                    base[n + i] = T[i]
                    mask |= 1 << i
            if impossible:
                return REJECT, n_states, transitions, cur, mask, 0, 0, parents, masks, won, tied
            # pending heads in (key, index) order
            n_pending = 0
            for i in range(n):
                if base[i] > 0:
                    key[i] = i if fixed else base[2 * n + i * K]
                    insert_sorted(order, n_pending, key, i)
                    n_pending += 1
            n_sure = n_pending
            n_tied = 0
            k = 0
            tied_mask = 0
            if n_pending > m:
                boundary = key[order[m - 1]]
                n_sure = 0
                while key[order[n_sure]] < boundary:
                    n_sure += 1
                while n_sure + n_tied < n_pending and key[order[n_sure + n_tied]] == boundary:
                    n_tied += 1
                k = m - n_sure
                if n_tied == k:
                    n_sure = m
                    n_tied = 0
                    k = 0
                else:
                    for j in range(n_tied):
                        tied_mask |= 1 << order[n_sure + j]
            for j in range(k):
                comb[j] = j
            first_choice = True
            while True:
                if not first_choice:
                    if not every_tie or n_tied == 0 or not _next_combination(comb, k, n_tied):
                        break
                first_choice = False
                transitions += 1
                if transitions > transition_cap:
                    return UNKNOWN, n_states, transitions, -1, 0, 0, 0, parents, masks, won, tied
                for j in range(width):
                    new[j] = base[j]
                won_mask = 0
                for j in range(n_sure):
                    new[order[j]] -= 1
                for j in range(k):
                    i = order[n_sure + comb[j]]
                    new[i] -= 1
                    won_mask |= 1 << i
                failed = False
                for i in range(n):
                    slot0 = 2 * n + i * K
                    if new[i] == 0 and new[slot0] > 0:  # the head finished: the next job is the head
                        for j in range(K - 1):
                            new[slot0 + j] = new[slot0 + j + 1]
                        new[slot0 + K - 1] = 0
                        if new[slot0] > 0:
                            new[i] = C[i]
                    if new[n + i] > 0:
                        new[n + i] -= 1
                    for j in range(K):
                        if new[slot0 + j] == 0:
                            break
                        new[slot0 + j] -= 1
                        # doomed: the j-th job behind the head cannot finish by its deadline
                        if new[i] + j * C[i] > new[slot0 + j]:
                            failed = True
                if failed:
                    return REJECT, n_states, transitions, cur, mask, won_mask, tied_mask, parents, masks, won, tied
                # exact duplicate?
                cap_size = exact.shape[0]
                dup_slot = _row_hash(new, 0, 0) & np.uint64(cap_size - 1)
                duplicate = False
                while exact[dup_slot] >= 0:
                    s = exact[dup_slot]
                    same = True
                    for j in range(width):
                        if rows[s, j] != new[j]:
                            same = False
                            break
                    if same:
                        duplicate = True
                        break
                    dup_slot = (dup_slot + np.uint64(1)) & np.uint64(cap_size - 1)
                if duplicate:
                    continue
                # simulated by a stored state with the same pending part (nat_s <= nat_new)?
                slot = _row_hash(new, lo, hi) & np.uint64(cap_size - 1)
                dominated = False
                while True:
                    first = table[slot]
                    if first < 0:
                        break
                    same_key = True
                    for j in range(width):
                        if (j < lo or j >= hi) and rows[first, j] != new[j]:
                            same_key = False
                            break
                    if same_key:
                        s = first
                        prev = -1
                        looked = 0
                        while s >= 0 and looked < chain_look:
                            covers = True  # stored s simulates the new state
                            covered = True  # the new state simulates stored s
                            for i in range(n):
                                if rows[s, n + i] > new[n + i]:
                                    covers = False
                                elif rows[s, n + i] < new[n + i]:
                                    covered = False
                            if covers:
                                dominated = True
                                break
                            after = chain[s]
                            if covered:
                                if status[s] == 0:
                                    status[s] = 2
                                if prev < 0:
                                    table[slot] = after
                                else:
                                    chain[prev] = after
                            else:
                                prev = s
                            s = after
                            looked += 1
                        break
                    slot = (slot + np.uint64(1)) & np.uint64(cap_size - 1)
                if dominated:
                    continue
                if n_states > state_cap - 1:
                    return UNKNOWN, n_states, transitions, -1, 0, 0, 0, parents, masks, won, tied
                if n_states > capacity - 1:
                    # grow every table 8-fold and rehash (the chains are kept)
                    capacity = min(state_cap, 8 * capacity)
                    rows2 = np.zeros((capacity + 1, width), dtype=np.int32)
                    rows2[:n_states] = rows[:n_states]
                    rows = rows2
                    parents = _grown(parents, n_states, capacity + 1, -1)
                    masks = _grown(masks, n_states, capacity + 1, 0)
                    won = _grown(won, n_states, capacity + 1, 0)
                    tied = _grown(tied, n_states, capacity + 1, 0)
                    chain = _grown(chain, n_states, capacity + 1, -1)
                    status = _grown(status, n_states, capacity + 1, 0)
                    stack = _grown(stack, n_stack, capacity + 1, 0)
                    size = 2
                    while size < 2 * (capacity + 1):
                        size *= 2
                    old_table = table
                    table = np.full(size, -1, dtype=np.int64)
                    exact = np.full(size, -1, dtype=np.int64)
                    for s in range(n_states):
                        for j in range(width):
                            cur_row[j] = rows[s, j]
                        _insert(exact, cur_row, 0, 0, s)
                    for j2 in range(old_table.shape[0]):
                        first = old_table[j2]
                        if first >= 0:
                            for j in range(width):
                                cur_row[j] = rows[first, j]
                            _insert(table, cur_row, lo, hi, first)
                    for j in range(width):
                        cur_row[j] = rows[cur, j]
                    cap_size = size
                    dup_slot = _row_hash(new, 0, 0) & np.uint64(size - 1)
                    while exact[dup_slot] >= 0:
                        dup_slot = (dup_slot + np.uint64(1)) & np.uint64(size - 1)
                    slot = _row_hash(new, lo, hi) & np.uint64(size - 1)
                    while table[slot] >= 0:
                        first = table[slot]
                        same_key = True
                        for j in range(width):
                            if (j < lo or j >= hi) and rows[first, j] != new[j]:
                                same_key = False
                                break
                        if same_key:
                            break
                        slot = (slot + np.uint64(1)) & np.uint64(size - 1)
                s_new = n_states
                for j in range(width):
                    rows[s_new, j] = new[j]
                parents[s_new] = cur
                masks[s_new] = mask
                won[s_new] = won_mask if tied_mask else 0
                tied[s_new] = tied_mask
                exact[dup_slot] = s_new
                chain[s_new] = table[slot]
                table[slot] = s_new
                if frontier == DEPTH_FIRST:
                    stack[n_stack] = s_new
                    n_stack += 1
                n_states += 1
    return ACCEPT, n_states, transitions, -1, 0, 0, 0, parents, masks, won, tied


#: Ways a walk releases (as the D ≤ T engine's probes): 0 mostly as soon as allowed, 1 with a
#: random probability per task, 2 half the tasks as soon as allowed and the others at random.
_WALK_KINDS = 3


@kernel
def _walk_pending(C, D, T, m, fixed, every_tie, K, horizon, ticks, seed, path_mask, path_won, path_tied):
    """Random walks through the D > T game from the initial state, until a doomed job or ``ticks`` ticks.

    Each walk plays the adversary at random (a task whose next release is allowed releases with
    a probability drawn per walk and task, :data:`_WALK_KINDS`; under ``every_tie`` a random
    choice among the heads tied at the m-th deadline runs) and the scheduler by the rule, with
    the moves of :func:`_explore_pending`; it ends after at most ``horizon`` ticks (halved 0-3
    times at random). Returns ``(length, used)``: ``length`` > 0 when a walk reached a doomed job
    after ``length`` ticks, its moves in ``path_mask``/``path_won``/``path_tied[:length]`` as the
    search records them; ``used``: ticks simulated. The same inputs give the same walks.
    """
    n = C.shape[0]
    rct = np.zeros(n, dtype=np.int64)
    nat = np.zeros(n, dtype=np.int64)
    dl = np.zeros(n * K, dtype=np.int64)
    chance = np.zeros(n, dtype=np.uint64)  # a free task releases when 32 random bits < chance
    order = np.zeros(n, dtype=np.int64)
    key = np.zeros(n, dtype=np.int64)
    pick = np.zeros(n, dtype=np.int64)
    always = np.uint64(1) << np.uint64(32)
    rs = np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(1)
    used = 0
    while used < ticks:
        rs, r = _next_random(rs)
        kind = r % np.uint64(_WALK_KINDS)
        length = max(horizon >> np.int64((r >> np.uint64(8)) % np.uint64(4)), 1)
        for i in range(n):
            rct[i] = 0
            nat[i] = 0
            for j in range(K):
                dl[i * K + j] = 0
            rs, r = _next_random(rs)
            u = r >> np.uint64(32)
            if kind == 0:
                chance[i] = always - (u >> np.uint64(4))
            elif kind == 1 or (r & np.uint64(1)) == 1:
                chance[i] = u
            else:
                chance[i] = always
        for t in range(length):
            used += 1
            mask = 0
            for i in range(n):
                if nat[i] == 0:
                    rs, r = _next_random(rs)
                    if (r >> np.uint64(32)) < chance[i]:
                        count = 0
                        while count < K and dl[i * K + count] > 0:
                            count += 1
                        if count < K:  # (K pending with nat = 0 cannot occur without a doomed job)
                            dl[i * K + count] = D[i]
                            if count == 0:
                                rct[i] = C[i]
                            nat[i] = T[i]
                            mask |= 1 << i
            n_pending = 0
            for i in range(n):
                if rct[i] > 0:
                    key[i] = i if fixed else dl[i * K]
                    insert_sorted(order, n_pending, key, i)
                    n_pending += 1
            won_mask, tied_mask, rs = _run_heads(rct, key, order, pick, n_pending, m, every_tie, rs)
            path_mask[t] = mask
            path_won[t] = won_mask
            path_tied[t] = tied_mask
            failed = False
            for i in range(n):
                base = i * K
                if rct[i] == 0 and dl[base] > 0:  # the head finished: the next job is the head
                    for j in range(K - 1):
                        dl[base + j] = dl[base + j + 1]
                    dl[base + K - 1] = 0
                    if dl[base] > 0:
                        rct[i] = C[i]
                if nat[i] > 0:
                    nat[i] -= 1
                for j in range(K):
                    if dl[base + j] == 0:
                        break
                    dl[base + j] -= 1
                    if rct[i] + j * C[i] > dl[base + j]:
                        failed = True
            if failed:
                return t + 1, used
    return 0, used


# -- Python around the kernel -------------------------------------------------------------------
def _probe(
    C: NDArray[np.int64], D: NDArray[np.int64], T: NDArray[np.int64], m: int, rule: str, slots: int
) -> Exploration | None:
    """The walks before the search: the REJECT of the first walk that reached a doomed job, or None."""
    n = C.shape[0]
    horizon = PROBE_HORIZON * (int(T.max()) + int(D.max()))
    path = np.zeros((3, horizon), dtype=np.int64)
    length, used = _walk_pending(
        C, D, T, int(m), rule == "fp", rule == "every", int(slots), horizon, PROBE_FIRST_TICKS, 0, *path
    )
    if length == 0:
        return None
    steps = [(int(a), int(b), int(c)) for a, b, c in path[:, : int(length)].T.tolist()]
    releases = tuple(tuple(t for t, (mask, _, _) in enumerate(steps) if (mask >> i) & 1) for i in range(n))
    choices = tuple((t, bits(w, n), bits(tie & ~w, n)) for t, (_, w, tie) in enumerate(steps) if tie)
    return Exploration(int(REJECT), 0, 0, "probe", releases, int(length), rule, choices, int(used))


def _run(
    C: NDArray[np.int64],
    D: NDArray[np.int64],
    T: NDArray[np.int64],
    m: int,
    rule: str,
    state_cap: int,
    transition_cap: int,
    shortcuts: bool,
    frontier: int,
    probes: bool = False,
) -> Exploration:
    """One kernel run (after the probes, if ``probes``) and the release path to its miss, if any."""
    n = C.shape[0]
    if shortcuts and n <= m and bool(np.all(C <= T)):
        return Exploration(int(ACCEPT), 0, 0, "n <= m", rule=rule)
    if shortcuts and utilization_above(C, T, m):
        return Exploration(int(REJECT), 0, 0, "utilization", rule=rule)
    slots = max(max_pending(D, T))
    if n > MAX_EXPLORED_TASKS or int(max(T.max(), D.max())) > _MAX_TIME or n * (slots + 2) > MAX_ROW_WIDTH:
        return Exploration(int(UNKNOWN), 0, 0, "too large", rule=rule)
    C, D, T = C.astype(np.int64), D.astype(np.int64), T.astype(np.int64)
    if probes:
        walked = _probe(C, D, T, m, rule, slots)
        if walked is not None:
            return walked
    code, states, transitions, fail_parent, fail_mask, fail_won, fail_tied, parents, masks, won, tied = (
        _explore_pending(
            C,
            D,
            T,
            int(m),
            rule == "fp",
            rule == "every",
            int(slots),
            int(state_cap),
            int(transition_cap),
            int(frontier),
            CHAIN_LOOK,
            INITIAL_TABLE,
        )
    )
    releases = None
    choices = None
    doomed_at = -1
    if code == REJECT:
        steps = [(int(fail_mask), int(fail_won), int(fail_tied))]
        s = int(fail_parent)
        while s > 0:
            steps.append((int(masks[s]), int(won[s]), int(tied[s])))
            s = int(parents[s])
        steps.reverse()
        releases = tuple(tuple(t for t, (mask, _, _) in enumerate(steps) if (mask >> i) & 1) for i in range(n))
        choices = tuple((t, bits(w, n), bits(tie & ~w, n)) for t, (_, w, tie) in enumerate(steps) if tie)
        doomed_at = len(steps)
    reason = "budget" if code == UNKNOWN else "explored"
    return Exploration(int(code), int(states), int(transitions), reason, releases, doomed_at, rule, choices)


def search(
    C: NDArray[np.int64],
    D: NDArray[np.int64],
    T: NDArray[np.int64],
    m: int,
    rule: str,
    state_cap: int,
    transition_cap: int,
    shortcuts: bool = True,
    frontier: str = "depth",
    short_counterexample: bool = True,
    probes: bool = True,
) -> Exploration:
    """The D > T game on the arrays of one set (any deadlines), with separate caps.

    ``probes``: random walks before the search (:func:`_walk_pending`); a walk's miss ends the
    search (reason ``"probe"``, no states explored), and is shortened as a depth-first miss is.

    ``frontier``: ``"depth"`` (default: reaches misses within few states) or ``"breadth"``; the
    verdict does not depend on it. ``short_counterexample``: a depth-first miss is replaced by
    the path of a breadth-first search bounded by :data:`SHORTEN_FACTOR` times the states the
    depth-first search stored, if that finds one no longer (the verdict and work are the
    depth-first search's).
    """
    if frontier not in ORDERS:
        raise InputError(f"unknown search order {frontier!r}; choose one of {', '.join(ORDERS)}", field="frontier")
    check_rule(rule)
    found = _run(C, D, T, m, rule, state_cap, transition_cap, shortcuts, ORDERS[frontier], probes)
    if not (
        short_counterexample
        and (frontier == "depth" or found.reason == "probe")
        and found.code == REJECT
        and found.releases is not None
    ):
        return found
    cap = int(min(state_cap, max(SHORTEN_MIN_STATES, SHORTEN_FACTOR * found.states)))
    short = _run(C, D, T, m, rule, cap, TRANSITIONS_PER_STATE * cap, shortcuts, BREADTH_FIRST)
    if short.code != REJECT or short.doomed_at > found.doomed_at:
        return found
    return replace(found, releases=short.releases, doomed_at=short.doomed_at, tie_choices=short.tie_choices)


def explore(
    ts: TaskSet,
    m: int,
    *,
    rule: Rule = "every",
    budget: int = DEFAULT_BUDGET,
    shortcuts: bool = True,
    frontier: str = "depth",
    probes: bool = True,
) -> Exploration:
    """Run the D > T game on one set under ``rule`` (the module docstring); any deadlines.

    ``budget``: states stored, and at most :data:`TRANSITIONS_PER_STATE` transitions per budgeted
    state; past it the code is UNKNOWN. ``shortcuts=False`` explores even when U > m or n ≤ m
    decide the verdict. ``probes=False``: the search alone (no random walks first).
    """
    m = check_processors(m)
    check_rule(rule)
    cap = int(budget)
    return search(ts.C, ts.D, ts.T, int(m), rule, cap, TRANSITIONS_PER_STATE * cap, shortcuts, frontier, probes=probes)


def one(C: NDArray[np.int64], D: NDArray[np.int64], T: NDArray[np.int64], m: int, budget: int, rule: str) -> int:
    """The verdict code of one set: the D ≤ T engine's when every D_i ≤ T_i, else this game's."""
    if bool(np.all(D <= T)):
        return engine.one(C, D, T, m, budget, rule)
    return search(C, D, T, m, rule, budget, TRANSITIONS_PER_STATE * budget, short_counterexample=False).code


def codes(batch: TaskSetBatch, m: int, budget: int, rule: str) -> NDArray[np.int8]:
    """Verdict codes of every set: the D ≤ T engine's batch when no set has D > T, else set by set."""
    if bool(np.all(batch.D <= batch.T)):
        return engine.codes(batch, m, budget, rule)
    C, D, T, offsets = batch.C, batch.D, batch.T, batch.offsets
    out = np.empty(batch.n_sets, dtype=np.int8)
    for s in range(batch.n_sets):
        lo, hi = int(offsets[s]), int(offsets[s + 1])
        out[s] = one(C[lo:hi], D[lo:hi], T[lo:hi], m, budget, rule)
    return out


# -- explanations ------------------------------------------------------------------------------
def witness(ts: TaskSet, m: int, budget: int, quick: Exploration) -> Exploration:
    """The exploration whose release sequence explains ``quick`` (as the D ≤ T engine's ``witness``).

    ``quick`` itself unless U > m rejected without a search: then a search without the shortcuts
    (at most 100,000 states) or, if it finds no miss, the synchronous periodic pattern up to its
    first miss in the simulator.
    """
    if quick.code != REJECT or quick.releases is not None:
        return quick
    from rtsched.sim import simulate

    rule = quick.rule
    cap = min(budget, 100_000)
    deep = search(ts.C, ts.D, ts.T, m, rule, cap, TRANSITIONS_PER_STATE * cap, shortcuts=False)
    if deep.code == REJECT:
        return deep
    trace = simulate(ts, m, policy="gfp" if rule == "fp" else "gedf", record=False)
    if trace.miss is None:
        return quick
    periodic = tuple(tuple(range(0, trace.miss.time, int(t))) for t in ts.T)
    return Exploration(quick.code, deep.states, deep.transitions, "utilization", periodic, rule=rule, tie_choices=())


def explanation(
    ts: TaskSet,
    m: int,
    budget: int,
    quick: Exploration,
    *,
    head: dict[str, object],
    found: str,
    qualifier: str,
    describe_miss: Callable[[Exploration, DeadlineMiss], tuple[str, dict[str, object]]],
) -> Explanation:
    """The D > T counterpart of the D ≤ T engine's ``explanation`` (same arguments, same evidence).

    Adds ``max_pending`` (⌈D_i/T_i⌉ per task) to the evidence; a rejected set's release sequence
    (and tie choices) is replayed in :func:`rtsched.sim.simulate`, which must miss.
    """
    result = witness(ts, m, budget, quick)
    named = f" ({qualifier})" if qualifier else ""
    evidence: dict[str, object] = {
        **head,
        "states": result.states,
        "transitions": result.transitions,
        "reason": quick.reason,
        "budget": budget,
        "max_pending": tuple(max_pending(ts.D, ts.T)),
    }
    verdict: Verdict
    if quick.code == ACCEPT:
        verdict = True
        if quick.reason == "n <= m":
            summary = f"n = {ts.n} ≤ m = {m} and every C ≤ T: each task has a processor whenever it has a job{named}"
        else:
            summary = (
                f"no deadline miss reachable {found}, several jobs per task pending (D > T) "
                f"({result.states} states explored)"
            )
    elif quick.code == REJECT:
        verdict = False
        if result.releases is not None:
            summary, shown = describe_miss(result, engine.replay(ts, m, result))
            evidence.update(shown)
        else:
            summary = (
                f"U = {show_number(ts.utilization)} > m = {m}: no scheduler meets every deadline "
                f"({qualifier + '; ' if qualifier else ''}no release sequence found within the budget)"
            )
        if quick.reason == "utilization":
            evidence["utilization"] = Fraction(ts.utilization)
    else:
        verdict = UNKNOWN_VERDICT
        summary = (
            f"unknown{named}: budget exhausted after {result.states} states / {result.transitions} transitions "
            f"(budget = {budget} states)"
        )
    return Explanation(
        verdict=verdict,
        summary=summary,
        evidence=evidence,
        steps=lambda: engine.search_steps(ts, m, quick, result, found),
    )
