"""The state-space engine shared by the exact global tests (private: not discovered).

Its users are ``exact``, ``exact:index`` (G-EDF, analyses/exact/exact_gedf.py) and ``exact-gfp`` (G-FP,
analyses/exact/exact_gfp.py).

Sources: Baker & Cirinei (OPODIS 2007; papers/baker-cirinei2007.md) for the integer-time automaton,
Bonifaci & Marchetti-Spaccamela (ESA 2010; papers/bonifaci-msp2010.md) for the adversary game,
Geeraerts, Goossens & Lindström (RTS 49(2), 2013; papers/geeraerts2013-antichains.md) for the
idle-tasks-simulation pruning; papers/gedf-ties.md for adversarial ties (rtsched's extension);
papers/exact-gfp.md for the fixed-priority rule.

The game, tick by tick (time is integer). State per task ``i``: ``rct_i`` (remaining execution of
its current job, 0 if none) and ``nat_i`` (ticks until the next release is allowed). The current
job's time to its deadline is ``nat_i − (T_i − D_i)`` (constrained deadlines).

1. The adversary releases any subset of the tasks with ``nat_i = 0`` (``rct_i = C_i``,
   ``nat_i = T_i``).
2. The scheduler runs for one tick the ``m`` highest-priority pending jobs (all of them if at most
   ``m`` are pending). The *priority rule* (:data:`RULES`) orders the pending jobs:

   * ``every`` and ``index`` — G-EDF: earliest absolute deadline first. The choice is ambiguous
     only when the ``m``-th and ``(m+1)``-th earliest deadlines are equal; then ``k`` of the ``b``
     jobs tied at that boundary run. ``index``: the ``k`` lowest task indices; ``every``: each of
     the C(b, k) choices is a branch (the adversary breaks ties).
   * ``fp`` — G-FP: the task order is the priority order (index 0 highest). Priorities are
     distinct, so the choice is never ambiguous.
3. ``nat_i ← max(nat_i − 1, 0)``; a pending job whose deadline is reached with work left is a
   failure (the kernel stops at a *doomed* job, one with more work left than ticks to its
   deadline; the reference waits for the deadline itself).

Both rules are *memoryless* (the decision depends only on the pending jobs of the current state),
which is what the idle tasks simulation needs: a state S' simulates S if both have the same
pending jobs (same ``rct``, same ``nat`` for every task with a pending job) and ``nat'_i ≤ nat_i``
for every idle task; any adversary strategy from S can be played from S'. Symmetry between
identical tasks (canonical forms) is used under ``every`` only: under ``index`` and ``fp`` the
index decides who runs, so identical tasks are not interchangeable.

Budget: ``budget`` explored (stored) states, default :data:`DEFAULT_BUDGET`, and at most
:data:`TRANSITIONS_PER_STATE` transitions per budgeted state; past either the code is UNKNOWN.

Probes (``auto``, rtsched's; papers/exact-search.md, "Probes"): random walks through the same
game (:func:`_probe`) before the search and at pauses of it; a walk that reaches a doomed job is a
counterexample and ends the search. They only ever add REJECTs with a replayable path, so every
verdict is the exhaustive search's; they find most misses within a few thousand ticks where a
search may store millions of states first.
"""

# One piece (about 1,170 lines): the Python automaton (the reference), the compiled search
# (``_explore``, one ~350-line kernel: phases, antichain pruning, symmetry, the heap), its growing
# tables and the counterexample witness/replay all speak the one state encoding described above
# (rct/nat rows, canonical forms, hashes), and the tests hold each to the reference in those
# terms. The explanation helpers at the end (~120 lines) could move to a module of their own.

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from fractions import Fraction
from functools import lru_cache
from itertools import combinations
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
from numpy.typing import NDArray

from rtsched.errors import InputError
from rtsched.kernels import ACCEPT, REJECT, UNKNOWN, check_processors, insert_sorted, kernel
from rtsched.model import TaskSet, TaskSetBatch
from rtsched.result import UNKNOWN as UNKNOWN_VERDICT
from rtsched.result import Explanation, Step, Verdict, show_number
from rtsched.result import count as plural

if TYPE_CHECKING:
    from rtsched.sim.trace import DeadlineMiss, Trace

__all__ = [
    "DEFAULT_BUDGET",
    "RULES",
    "TRANSITIONS_PER_STATE",
    "Exploration",
    "codes",
    "default_skip",
    "explanation",
    "explore",
    "one",
    "reference",
    "releases_text",
    "replay",
    "search",
    "witness",
]

Rule = Literal["every", "index", "fp"]
#: Priority rules: G-EDF with adversarial ties (``every``), G-EDF with ties to the lowest index
#: (``index``), global fixed priorities in task order (``fp``).
RULES: tuple[str, ...] = ("every", "index", "fp")

#: Default budget: explored (stored) states. One state takes about 100 bytes and 1 µs.
DEFAULT_BUDGET = 100_000
#: Transitions examined per budgeted state (time bound for sets with many releases per state):
#: a few times what random sets need, so it rarely turns an answer into "unknown"
#: (papers/exact-search.md, "Performance").
TRANSITIONS_PER_STATE = 10
#: ``exact`` stays in :func:`rtsched.check`'s default list for sets with Π T_i ≤ this · m²
#: (see :func:`default_skip`).
DEFAULT_LIST_PERIODS = 2**14
_GROW = np.int8(3)
#: Search orders of the kernel: which stored state not yet expanded is expanded next.
BREADTH_FIRST = 0
DEPTH_FIRST = 1
BEST_FIRST = 2
#: Breadth-first by depth (time since the start) rather than by index: a heap by depth, then
#: creation (used by ``auto`` after its first phases; ``breadth`` alone is the same order).
LEVEL_FIRST = 3
Frontier = Literal["auto", "depth", "breadth", "best"]
#: Search orders of one pass: ``depth`` (the latest stored state first, which reaches misses
#: early), ``best`` (the most urgent stored state first, by the order of Burmyakov's C++ test)
#: and ``breadth`` (shortest counterexamples in the pruned graph). ``auto`` (:func:`search`'s
#: default) is one search in three phases: depth-first, best-first, then breadth-first by depth
#: (:data:`AUTO_PASSES`).
FRONTIERS: dict[str, int] = {"depth": DEPTH_FIRST, "breadth": BREADTH_FIRST, "best": BEST_FIRST}
#: States of the depth-first phase of ``auto`` (the later phases continue the same search):
#: depth-first finds misses within few states, and proves sets schedulable with fewer states than
#: breadth-first but, on large spaces, with more transitions and time (papers/exact-search.md).
DEPTH_FIRST_PASS = 16_384
#: States of the best-first phase of ``auto`` (after the depth-first phase): best-first
#: (:data:`BEST_FIRST`) finds some misses that neither depth-first nor breadth-first reaches
#: soon, but it examines more transitions per stored state than breadth-first, so the phase is
#: kept short (papers/exact-search.md).
BEST_FIRST_PASS = 32_768
#: The phases of ``auto``: (order, states stored in the phase, or :data:`TRANSITIONS_PER_STATE`
#: times as many transitions; None: to the end). Each phase continues the previous one's search
#: (the same tables: what the first phases stored and expanded is not redone), the last by depth
#: (:data:`LEVEL_FIRST`), which after the first phases stores fewer states than index order
#: (papers/exact-search.md).
AUTO_PASSES: tuple[tuple[int, int | None], ...] = (
    (DEPTH_FIRST, DEPTH_FIRST_PASS),
    (BEST_FIRST, BEST_FIRST_PASS),
    (LEVEL_FIRST, None),
)
#: States the tables of a search hold at first; they grow 8-fold when full (the search resumes).
INITIAL_TABLE = 4096
#: A depth-first miss is shortened by a breadth-first search of at most this many times the
#: states the depth-first search stored, and at least :data:`SHORTEN_MIN_STATES`.
SHORTEN_FACTOR = 4
SHORTEN_MIN_STATES = 4096
#: How many stored states with the same pending part a new state is compared with.
CHAIN_LOOK = 256
#: Release subsets and tie choices are bit masks in int64.
MAX_EXPLORED_TASKS = 62
#: Random-walk probes of ``auto`` (:func:`_probe`; papers/exact-search.md, "Probes"): ticks
#: simulated before the search starts.
PROBE_FIRST_TICKS = 8192
#: The search pauses for a probe when it has stored ``PROBE_FIRST_PAUSE · PROBE_PAUSE_GROWTH**j``
#: states (j = 0, 1, ...); the probe simulates ``max(PROBE_FIRST_TICKS, transitions //
#: PROBE_TRANSITIONS_PER_TICK)`` ticks, so all probes together cost a bounded share of the search
#: (about a tenth of its time: a tick costs about a tenth of a transition).
PROBE_FIRST_PAUSE = 2048
PROBE_PAUSE_GROWTH = 4
PROBE_TRANSITIONS_PER_TICK = 2
#: A walk lasts at most ``PROBE_HORIZON · (max T + max D)`` ticks (halved 0-3 times at random).
PROBE_HORIZON = 4
#: Ways a walk releases: 0 mostly as soon as allowed, 1 with a random probability per task,
#: 2 half the tasks as soon as allowed and the others with a random probability.
_WALK_KINDS = 3


def check_rule(rule: str, rules: tuple[str, ...] = RULES, what: str = "priority rule") -> str:
    """``rule`` if it is one of ``rules``, else an error naming ``what`` and the choices."""
    if rule not in rules:
        raise InputError(f"unknown {what} {rule!r}; choose one of {', '.join(rules)}", field="ties")
    return rule


# -- reference: plain BFS, no pruning ---------------------------------------------------------
def reference(ts: TaskSet, m: int, budget: int = DEFAULT_BUDGET, rule: Rule = "every") -> Verdict:
    """Exact verdict by breadth-first search over every reachable state (no pruning).

    A state is a tuple of ``(remaining, to_deadline, to_release)`` per task. Each tick the
    scheduler may run any *legal* set of pending jobs: ``min(m, pending)`` of them, none with a
    later deadline than a pending job left waiting (G-EDF), or the first ``m`` pending in task
    order (G-FP, ``rule="fp"``). ``rule="every"`` branches on every legal G-EDF set;
    ``rule="index"`` keeps only the first ``m`` in (deadline, index) order. ``"unknown"`` if
    more than ``budget`` states are reachable (the plain search stores more states than the
    pruned one of :func:`explore`, so it runs out of the same budget sooner).
    """
    check_rule(rule)
    C, D, T = (list(map(int, ts.C)), list(map(int, ts.D)), list(map(int, ts.T)))
    n = len(C)
    start = tuple((0, 0, 0) for _ in range(n))
    seen = {start}
    queue = deque([start])
    while queue:
        state = queue.popleft()
        free = [i for i in range(n) if state[i][2] == 0]
        for size in range(len(free) + 1):
            for released in combinations(free, size):
                jobs = [list(x) for x in state]
                for i in released:
                    jobs[i] = [C[i], D[i], T[i]]
                for run in _legal_run_sets(jobs, m, rule):
                    nxt, failed = _tick(jobs, run)
                    if failed:
                        return False
                    if nxt not in seen:
                        if len(seen) >= budget:
                            return UNKNOWN_VERDICT
                        seen.add(nxt)
                        queue.append(nxt)
    return True


def _legal_run_sets(jobs: list[list[int]], m: int, rule: str) -> list[tuple[int, ...]]:
    """The sets of pending jobs the scheduler may run for one tick.

    ``jobs[i] = [rem, to_deadline, ...]``. G-FP runs the ``m`` lowest indices; G-EDF any set with
    no waiting job of an earlier deadline (``every``), or the first ``m`` by (deadline, index)
    (``index``).
    """
    pending = [i for i, job in enumerate(jobs) if job[0] > 0]
    size = min(m, len(pending))
    if rule == "fp":
        return [tuple(pending[:size])]  # pending is in index order: the priority order
    if rule == "index":
        return [tuple(sorted(pending, key=lambda i: (jobs[i][1], i))[:size])]
    legal = []
    for run in combinations(pending, size):
        waiting = [i for i in pending if i not in run]
        if all(jobs[r][1] <= jobs[w][1] for r in run for w in waiting):
            legal.append(run)
    return legal


def _tick(jobs: list[list[int]], run: tuple[int, ...]) -> tuple[tuple, bool]:
    """Run ``run`` for one tick; the next state and whether a deadline was missed."""
    out = [list(x) for x in jobs]
    for i in run:
        out[i][0] -= 1
    failed = False
    for job in out:
        job[2] = max(job[2] - 1, 0)
        if job[0] > 0:
            job[1] -= 1
            failed |= job[1] <= 0
        else:
            job[1] = 0
    return tuple(tuple(x) for x in out), failed


# -- kernel ------------------------------------------------------------------------------------
@kernel
def _key_hash(rct, nat, n):
    """Hash of a state's pending part: rct of every task, nat of the tasks with a pending job."""
    h = np.uint64(14695981039346656037)
    prime = np.uint64(1099511628211)
    for i in range(n):
        h = (h ^ np.uint64(rct[i] + 1)) * prime
        if rct[i] > 0:
            h = (h ^ np.uint64(nat[i] + 7919)) * prime
    return h


@kernel
def _full_hash(rct, nat, n):
    """Hash of a whole state (exact-duplicate table)."""
    h = np.uint64(1469598103934665603)
    prime = np.uint64(1099511628211)
    for i in range(n):
        h = (h ^ np.uint64(rct[i] + 1)) * prime
        h = (h ^ np.uint64(nat[i] + 3)) * prime
    return h


@kernel
def _next_combination(comb, k, b):
    """Advance ``comb[:k]`` (increasing indices in ``0..b-1``) to the next k-subset; False at the end."""
    j = k - 1
    while j >= 0 and comb[j] == b - k + j:
        j -= 1
    if j < 0:
        return False
    comb[j] += 1
    for r in range(j + 1, k):
        comb[r] = comb[r - 1] + 1
    return True


@kernel
def _canonical(crct, cnat, members, member_offsets):
    """Sort the (rct, nat) pairs within each group of identical tasks (in place).

    ``members[member_offsets[g]:member_offsets[g + 1]]`` are the indices, increasing, of the
    tasks of group g (identical C, D, T). Under adversarial ties such tasks are interchangeable,
    so states equal up to a permutation within groups have the same future.
    """
    for g in range(member_offsets.shape[0] - 1):
        lo = member_offsets[g]
        for a in range(lo + 1, member_offsets[g + 1]):
            r = crct[members[a]]
            q = cnat[members[a]]
            b = a
            while b > lo and (crct[members[b - 1]] > r or (crct[members[b - 1]] == r and cnat[members[b - 1]] > q)):
                crct[members[b]] = crct[members[b - 1]]
                cnat[members[b]] = cnat[members[b - 1]]
                b -= 1
            crct[members[b]] = r
            cnat[members[b]] = q


@kernel
def _urgency(rows, s, n):
    """Best-first key of stored state ``s``: smaller is expanded sooner.

    The order of Burmyakov's C++ test (state.h, ``operator<``): the sum over the tasks of
    (nat - rct) / nat for a pending job (the share of the time to the next release not needed by
    the remaining work; nat > 0 while a job is pending), 1 for an idle task. Only the order
    depends on it, never a verdict.
    """
    u = 0.0
    for i in range(n):
        r = rows[s, i]
        u += (rows[s, n + i] - r) / rows[s, n + i] if r > 0 else 1.0
    return u


@kernel
def _heap_key(frontier, rows, s, n, depth):
    """Heap key of stored state ``s`` under a heap order: urgency (best-first) or depth (level)."""
    if frontier == BEST_FIRST:
        return _urgency(rows, s, n)
    # level order: the depth, then the creation index (older first; exact in float64 below 2**53)
    return depth[s] * 33554432.0 + s


@kernel
def _heap_before(key_a, a, key_b, b):
    """State ``a`` leaves the best-first heap before ``b``: a smaller key, then the newer one."""
    return key_a < key_b or (key_a == key_b and a > b)


@kernel
def _heap_push(heap, keys, size, state, key):
    """Add ``state`` with ``key`` to the binary heap ``heap[:size]``/``keys[:size]``.

    The keys are kept by heap position, next to the states, for memory locality.
    """
    j = size
    while j > 0:
        parent = (j - 1) // 2
        if not _heap_before(key, state, keys[parent], heap[parent]):
            break
        heap[j] = heap[parent]
        keys[j] = keys[parent]
        j = parent
    heap[j] = state
    keys[j] = key


@kernel
def _heap_sift_down(heap, keys, size, state, key):
    """Put ``state`` with ``key`` at the root of ``heap[:size]`` (the root was removed); reheap."""
    if size == 0:
        return
    j = 0
    while True:
        child = 2 * j + 1
        if child >= size:
            break
        if child + 1 < size and _heap_before(keys[child + 1], heap[child + 1], keys[child], heap[child]):
            child += 1
        if not _heap_before(keys[child], heap[child], key, state):
            break
        heap[j] = heap[child]
        keys[j] = keys[child]
        j = child
    heap[j] = state
    keys[j] = key


@kernel
def _explore(
    C,
    D,
    T,
    m,
    fixed,
    every_tie,
    members,
    member_offsets,
    state_cap,
    transition_cap,
    chain_look,
    grow_code,
    rows,
    canon,
    orders,
    until_states,
    until_transitions,
    parents,
    masks,
    won,
    tied,
    chain,
    status,
    stack,
    urgency,
    depth,
    table,
    exact,
    regs,
):
    """Search (breadth-, depth- or best-first, by phases) with idle-tasks-simulation pruning.

    Phase ``p`` expands in the order ``orders[p]`` until ``until_states[p]`` states are stored or
    ``until_transitions[p]`` transitions examined (counted from the start), then the next phase
    continues the same search (same tables) in its order; the last phase runs to the end.

    ``fixed``: global fixed priorities, the task index being the priority (else G-EDF: the
    absolute deadline, then the tie handling). ``every_tie`` (G-EDF only): branch on every choice
    among jobs tied at the m-th deadline (else the lowest indices run). ``rows`` is a preallocated ``(state_cap + 1, 2n)`` int16/int32 array of states
    (rct then nat) as reached, which are expanded; ``canon`` (the same shape, or ``rows`` itself
    when there is no group) holds their canonical forms (:func:`_canonical` over the groups
    ``members``/``member_offsets`` of identical tasks, given only when ``every_tie``), on which
    duplicates and simulation are decided. Returns ``(code, n_states, transitions, fail_parent, fail_mask, fail_won,
    fail_tied, parents, masks, won, tied)``: on REJECT, the failure follows state ``fail_parent``
    by releasing ``fail_mask`` and, if ``fail_tied`` is not 0, running the tasks ``fail_won`` of
    the tied tasks ``fail_tied``; ``parents``/``masks``/``won``/``tied`` give the same for every
    stored state. When ``state_cap`` states are stored the code is ``grow_code``: UNKNOWN at the
    real budget, or GROW: the caller copies the tables into larger ones (:func:`_grown`) and
    calls again, and the search resumes where it stopped (the state being expanded is expanded
    again from its start: what it already stored are exact duplicates, and its transitions are
    counted once).

    The tables (``parents`` to ``exact``, allocated by :func:`_tables`) and ``regs`` (the
    counters: states, transitions, breadth-first head, waiting states in ``stack``, phase,
    resuming) carry the search from one call to the next; ``regs[0] == 0``: a new search.

    The order only chooses which waiting state (stored, not yet expanded) is expanded next
    (papers/exact-search.md: the verdict does not depend on it). Depth-first: a stack, the latest
    state on top; best-first: a binary heap by :func:`_urgency`; breadth-first: index order.
    """
    n = C.shape[0]
    n_phases = orders.shape[0]
    size = table.shape[0]
    slack = T - D  # deadline of a pending job = nat - (T - D)
    rct = np.zeros(n, dtype=np.int64)
    nat = np.zeros(n, dtype=np.int64)
    crct = np.zeros(n, dtype=np.int64)  # canonical form of (rct, nat)
    cnat = np.zeros(n, dtype=np.int64)
    symmetric = member_offsets.shape[0] > 1
    base_rct = np.zeros(n, dtype=np.int64)  # after the releases, before the tick
    base_nat = np.zeros(n, dtype=np.int64)
    free = np.zeros(n, dtype=np.int64)
    order = np.zeros(n, dtype=np.int64)  # pending tasks by (priority key, index)
    key = np.zeros(n, dtype=np.int64)  # priority key of a pending job: deadline (EDF) or index (FP)
    comb = np.zeros(n + 1, dtype=np.int64)  # the tied jobs chosen, as positions in the tied run
    if regs[0] == 0:  # a new search: the initial state
        for j in range(2 * n):
            rows[0, j] = 0
            canon[0, j] = 0
        table[_key_hash(rct, nat, n) & np.uint64(size - 1)] = 0
        exact[_full_hash(rct, nat, n) & np.uint64(size - 1)] = 0
        regs[0] = 1
        if orders[0] != BREADTH_FIRST:
            stack[0] = 0
            regs[3] = 1
            urgency[0] = _heap_key(orders[0], rows, 0, n, depth)
    n_states = regs[0]
    transitions = regs[1]
    head = regs[2]  # next state in breadth-first order
    n_stack = regs[3]
    phase = regs[4]
    resuming = regs[5] == 1  # the state on top is expanded again first, in the same phase
    frontier = orders[phase]
    while True:
        if resuming:
            resuming = False
        elif phase < n_phases - 1 and (n_states >= until_states[phase] or transitions >= until_transitions[phase]):
            # next phase: the waiting states (never expanded: status 0) carry over
            phase += 1
            previous = frontier
            frontier = orders[phase]
            if frontier == BREADTH_FIRST:
                head = 0  # index order over every stored state; expanded and skipped ones are passed
            elif previous == BREADTH_FIRST:
                n_stack = 0
                for s in range(head, n_states):
                    if frontier == DEPTH_FIRST:
                        stack[n_stack] = s
                    else:
                        _heap_push(stack, urgency, n_stack, s, _heap_key(frontier, rows, s, n, depth))
                    n_stack += 1
            elif frontier != DEPTH_FIRST:
                # a heap by the new order's key, built in place (slot j is read before written)
                waiting = n_stack
                n_stack = 0
                for j in range(waiting):
                    s = stack[j]
                    _heap_push(stack, urgency, n_stack, s, _heap_key(frontier, rows, s, n, depth))
                    n_stack += 1
            # a heap to depth-first: the heap array serves as the stack as it is
            continue
        if frontier == DEPTH_FIRST:
            if n_stack == 0:
                break
            n_stack -= 1
            cur = stack[n_stack]
        elif frontier != BREADTH_FIRST:
            if n_stack == 0:
                break
            cur = stack[0]
            n_stack -= 1
            _heap_sift_down(stack, urgency, n_stack, stack[n_stack], urgency[n_stack])
        else:
            if head >= n_states:
                break
            cur = head
            head += 1
        if status[cur] != 0:  # expanded in an earlier phase, or simulated by a later state
            continue
        status[cur] = 1
        start_transitions = transitions
        n_free = 0
        for i in range(n):
            if rows[cur, n + i] == 0:
                free[n_free] = i
                n_free += 1
        for sub in range(1 << n_free):
            mask = 0
            for i in range(n):
                base_rct[i] = rows[cur, i]
                base_nat[i] = rows[cur, n + i]
            for b in range(n_free):
                if (sub >> b) & 1:
                    i = free[b]
                    base_rct[i] = C[i]
                    base_nat[i] = T[i]
                    mask |= 1 << i
            # pending jobs in (key, index) order: scanning i upwards, insert after equals. The
            # key is the time to the deadline (G-EDF) or the index itself (G-FP: distinct keys,
            # so the boundary below never has a tie)
            n_pending = 0
            for i in range(n):
                if base_rct[i] > 0:
                    d = i if fixed else base_nat[i] - slack[i]
                    key[i] = d
                    insert_sorted(order, n_pending, key, i)
                    n_pending += 1
            # the scheduler runs order[:n_sure] in every choice, plus k of the n_tied jobs
            # order[n_sure:n_sure + n_tied] that share the m-th smallest key (G-EDF only)
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
                if n_tied == k:  # every job at the boundary runs: nothing to choose
                    n_sure = m
                    n_tied = 0
                    k = 0
                else:
                    for j in range(n_tied):
                        tied_mask |= 1 << order[n_sure + j]
            for j in range(k):
                comb[j] = j  # the first choice: the k lowest indices (the index rule)
            first_choice = True
            while True:
                if not first_choice:
                    if not every_tie or n_tied == 0 or not _next_combination(comb, k, n_tied):
                        break
                first_choice = False
                transitions += 1
                if transitions > transition_cap:
                    return UNKNOWN, n_states, transitions, -1, 0, 0, 0, parents, masks, won, tied
                for i in range(n):
                    rct[i] = base_rct[i]
                    nat[i] = base_nat[i]
                for j in range(n_sure):
                    rct[order[j]] -= 1
                won_mask = 0
                for j in range(k):
                    i = order[n_sure + comb[j]]
                    rct[i] -= 1
                    won_mask |= 1 << i
                failed = False
                for i in range(n):
                    if nat[i] > 0:
                        nat[i] -= 1
                    # doomed: more work left than ticks to the deadline (a miss whatever happens
                    # next; it also covers a deadline reached with work left)
                    if rct[i] > 0 and rct[i] > nat[i] - slack[i]:
                        failed = True
                if failed:
                    return REJECT, n_states, transitions, cur, mask, won_mask, tied_mask, parents, masks, won, tied
                for i in range(n):
                    crct[i] = rct[i]
                    cnat[i] = nat[i]
                if symmetric:
                    _canonical(crct, cnat, members, member_offsets)
                # exact duplicate? (the most frequent case, O(1))
                dup_slot = _full_hash(crct, cnat, n) & np.uint64(size - 1)
                duplicate = False
                while exact[dup_slot] >= 0:
                    s = exact[dup_slot]
                    same = True
                    for i in range(n):
                        if canon[s, i] != crct[i] or canon[s, n + i] != cnat[i]:
                            same = False
                            break
                    if same:
                        duplicate = True
                        break
                    dup_slot = (dup_slot + np.uint64(1)) & np.uint64(size - 1)
                if duplicate:
                    continue
                if grow_code == _GROW and n_states > state_cap - 1:
                    # the tables are full: stop before changing any chain, put ``cur`` back on
                    # top of the waiting states, and let the caller grow the tables
                    status[cur] = 0
                    if frontier == BREADTH_FIRST:
                        head -= 1
                    elif frontier == DEPTH_FIRST:
                        stack[n_stack] = cur
                        n_stack += 1
                    else:
                        _heap_push(stack, urgency, n_stack, cur, -np.inf)
                        n_stack += 1
                    regs[0] = n_states
                    regs[1] = start_transitions
                    regs[2] = head
                    regs[3] = n_stack
                    regs[4] = phase
                    regs[5] = 1
                    return _GROW, n_states, transitions, -1, 0, 0, 0, parents, masks, won, tied
                # simulated by a stored state with the same pending part? The states of a
                # pending part form a chain, newest first; only its first CHAIN_LOOK states are
                # compared: pruning less is still sound, and it bounds the cost per transition.
                # A stored state the new one simulates leaves the chain (the new state, or the
                # state that simulates it, simulates whatever it simulates: the relation is
                # transitive) and, if not yet expanded, is never expanded (the state simulating
                # it is, and reaches every failure it reaches). So the chain stays close to an
                # antichain and short.
                slot = _key_hash(crct, cnat, n) & np.uint64(size - 1)
                dominated = False
                while True:
                    first = table[slot]
                    if first < 0:
                        break
                    same_key = True
                    for i in range(n):
                        if canon[first, i] != crct[i] or (crct[i] > 0 and canon[first, n + i] != cnat[i]):
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
                                if crct[i] == 0:
                                    if canon[s, n + i] > cnat[i]:
                                        covers = False
                                        if not covered:
                                            break
                                    elif canon[s, n + i] < cnat[i]:
                                        covered = False
                                        if not covers:
                                            break
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
                    slot = (slot + np.uint64(1)) & np.uint64(size - 1)
                if dominated:
                    continue
                if n_states > state_cap - 1:  # the budget (growing tables stop above)
                    return UNKNOWN, n_states, transitions, -1, 0, 0, 0, parents, masks, won, tied
                new = n_states
                for i in range(n):
                    rows[new, i] = rct[i]
                    rows[new, n + i] = nat[i]
                    canon[new, i] = crct[i]
                    canon[new, n + i] = cnat[i]
                parents[new] = cur
                masks[new] = mask
                won[new] = won_mask if tied_mask else 0
                tied[new] = tied_mask
                exact[dup_slot] = new
                chain[new] = table[slot]  # -1 for a new pending part
                table[slot] = new
                depth[new] = depth[cur] + 1
                if frontier == DEPTH_FIRST:
                    stack[n_stack] = new
                    n_stack += 1
                elif frontier != BREADTH_FIRST:
                    _heap_push(stack, urgency, n_stack, new, _heap_key(frontier, rows, new, n, depth))
                    n_stack += 1
                n_states += 1
    return ACCEPT, n_states, transitions, -1, 0, 0, 0, parents, masks, won, tied


@kernel
def _next_random(state):
    """One step of splitmix64 (Steele, Lea, Flood, OOPSLA 2014): ``(next state, 64 random bits)``.

    The probes' own generator, so that a search's course depends on its inputs only (not on
    Numba's global generator, shared by the threads of a batch).
    """
    state = state + np.uint64(0x9E3779B97F4A7C15)
    z = state
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return state, z ^ (z >> np.uint64(31))


@kernel(inline="always")
def _run_heads(rct, key, order, pick, n_pending, m, every_tie, rs):
    """One tick of a probe: the ``m`` pending jobs first in ``order`` (sorted by ``key``) run.

    At a tie on the boundary (the ``m``-th and the next key equal) all jobs before it run and,
    under ``every_tie``, a random k-subset of the tied ones (a partial Fisher-Yates shuffle of
    ``pick`` drawn from ``rs``), else the first k. ``rct`` is decremented in place. Returns
    ``(won_mask, tied_mask, rs)``: the tied jobs that ran and all tied jobs (bit per task; 0 when
    there was no choice), for the path's replay. Shared by :func:`_probe` and the D > T probes
    (``_pending``): one rule, whatever the state encoding.
    """
    won_mask = 0
    tied_mask = 0
    if n_pending <= m:
        for j in range(n_pending):
            rct[order[j]] -= 1
    else:
        boundary = key[order[m - 1]]
        n_sure = 0
        while key[order[n_sure]] < boundary:
            n_sure += 1
        n_tied = 0
        while n_sure + n_tied < n_pending and key[order[n_sure + n_tied]] == boundary:
            n_tied += 1
        k = m - n_sure
        for j in range(n_sure):
            rct[order[j]] -= 1
        for j in range(n_tied):
            pick[j] = order[n_sure + j]
        if n_tied > k:
            for j in range(n_tied):
                tied_mask |= 1 << pick[j]
            if every_tie:  # a random k-subset of the tied jobs (partial Fisher-Yates)
                for j in range(k):
                    rs, r = _next_random(rs)
                    x = j + np.int64(r % np.uint64(n_tied - j))
                    swap = pick[j]
                    pick[j] = pick[x]
                    pick[x] = swap
        for j in range(k):
            rct[pick[j]] -= 1
            if tied_mask:
                won_mask |= 1 << pick[j]
    return won_mask, tied_mask, rs


@kernel
def _probe(C, D, T, m, fixed, every_tie, horizon, ticks, seed, path_mask, path_won, path_tied):
    """Random walks through the game from the initial state until a doomed job or ``ticks`` ticks.

    A *probe* of ``auto`` (papers/exact-search.md, "Probes"): each walk plays the adversary at
    random — a task whose next release is allowed releases with a probability drawn per walk and
    task (:data:`_WALK_KINDS`), and under ``every_tie`` a random choice among the jobs tied at
    the m-th deadline runs — and the scheduler by the rule (``fixed``: task order; else G-EDF,
    ties to the lowest indices unless ``every_tie``), the moves of :func:`_explore`. A walk ends
    after at most ``horizon`` ticks (halved 0-3 times at random: short walks try many early
    release patterns). Nothing is stored and nothing is concluded from a walk without a miss.

    Returns ``(length, used)``: ``length`` > 0 when a walk reached a doomed job after ``length``
    ticks, its moves in ``path_mask[:length]`` (tasks released at each tick), ``path_won`` and
    ``path_tied`` (tied tasks that ran / that competed, 0 without a tie), as the search records
    them; ``length`` = 0 otherwise. ``used``: ticks simulated. The same inputs give the same walks.
    """
    n = C.shape[0]
    slack = T - D
    rct = np.zeros(n, dtype=np.int64)
    nat = np.zeros(n, dtype=np.int64)
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
                        rct[i] = C[i]
                        nat[i] = T[i]
                        mask |= 1 << i
            n_pending = 0
            for i in range(n):
                if rct[i] > 0:
                    key[i] = i if fixed else nat[i] - slack[i]
                    insert_sorted(order, n_pending, key, i)
                    n_pending += 1
            won_mask, tied_mask, rs = _run_heads(rct, key, order, pick, n_pending, m, every_tie, rs)
            path_mask[t] = mask
            path_won[t] = won_mask
            path_tied[t] = tied_mask
            failed = False
            for i in range(n):
                if nat[i] > 0:
                    nat[i] -= 1
                if rct[i] > 0 and rct[i] > nat[i] - slack[i]:
                    failed = True
            if failed:
                return t + 1, used
    return 0, used


#: One tie decision on a counterexample: at tick ``time`` the tasks ``winners`` ran and the
#: tasks ``losers`` waited, all with the same absolute deadline.
TieChoice = tuple[int, tuple[int, ...], tuple[int, ...]]


@dataclass(frozen=True)
class Exploration:
    """Outcome of one exploration.

    ``code``: ACCEPT, REJECT or UNKNOWN; ``states``/``transitions``: work done; ``reason``:
    ``"explored"``, ``"utilization"`` (U > m), ``"n <= m"``, ``"budget"`` or ``"too large"``
    (more than 62 tasks or periods beyond int32); ``rule``: the priority rule (:data:`RULES`);
    ``releases``: on a reachable failure, the release times of each task leading to
    it (short: breadth-first); ``tie_choices``: the ticks on that path where jobs tied at the
    m-th deadline competed, as ``(time, winners, losers)`` (under ``"every"`` these are the
    adversary's choices; under ``"index"`` the winners are the lowest indices; never under
    ``"fp"``); ``doomed_at``: the
    time at which some job became doomed along the path; ``probed``: ticks simulated by the
    random-walk probes of ``auto`` (``reason`` is ``"probe"`` when one of them found the miss).
    """

    code: int
    states: int
    transitions: int
    reason: str
    releases: tuple[tuple[int, ...], ...] | None = None
    doomed_at: int = -1
    rule: str = "every"
    tie_choices: tuple[TieChoice, ...] | None = None
    probed: int = 0


NO_GROUPS = (np.zeros(0, dtype=np.int64), np.zeros(1, dtype=np.int64))


def identical_groups(
    C: NDArray[np.int64], D: NDArray[np.int64], T: NDArray[np.int64]
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Groups of at least two tasks with identical (C, D, T), as flat members and offsets."""
    groups: dict[tuple[int, int, int], list[int]] = {}
    for i, row in enumerate(zip(C.tolist(), D.tolist(), T.tolist(), strict=True)):
        groups.setdefault(row, []).append(i)
    shared = [g for g in groups.values() if len(g) > 1]
    if not shared:
        return NO_GROUPS
    members = np.array([i for g in shared for i in g], dtype=np.int64)
    offsets = np.cumsum([0] + [len(g) for g in shared], dtype=np.int64)
    return members, offsets


def bits(mask: int, n: int) -> tuple[int, ...]:
    return tuple(i for i in range(n) if (mask >> i) & 1)


def utilization_above(C: NDArray[np.int64], T: NDArray[np.int64], m: int) -> bool:
    """U > m, exactly (a float sum decides unless it is within a safe margin of m)."""
    u = float(np.sum(C / T))
    margin = 1e-9 * (m + u)
    if abs(u - m) > margin:
        return u > m
    return sum((Fraction(int(c), int(t)) for c, t in zip(C.tolist(), T.tolist(), strict=True)), Fraction(0)) > m


def explore(
    ts: TaskSet,
    m: int,
    *,
    rule: Rule = "every",
    budget: int = DEFAULT_BUDGET,
    shortcuts: bool = True,
    name: str = "exact",
    frontier: Frontier = "auto",
) -> Exploration:
    """Run the exploration on one set under the priority ``rule`` (see the module docstring).

    ``budget``: states stored (and at most :data:`TRANSITIONS_PER_STATE` transitions per
    budgeted state); past it the code is UNKNOWN. ``shortcuts=False`` explores even when U > m or
    n <= m decide the verdict (used to get a counterexample release sequence, and by tests).
    ``name``: the analysis named in error messages.
    """
    m = check_processors(m)
    check_rule(rule)
    if not ts.is_constrained:
        raise InputError(f"{name} handles constrained deadlines (D <= T) only")
    return search(ts.C, ts.D, ts.T, int(m), rule, int(budget), TRANSITIONS_PER_STATE * int(budget), shortcuts, frontier)


def search(
    C: NDArray[np.int64],
    D: NDArray[np.int64],
    T: NDArray[np.int64],
    m: int,
    rule: str,
    state_cap: int,
    transition_cap: int,
    shortcuts: bool = True,
    frontier: Frontier = "auto",
    short_counterexample: bool = True,
    probes: bool = True,
) -> Exploration:
    """:func:`explore` on the arrays of one constrained-deadline set, with two separate caps.

    The caps bound the states stored and the transitions examined (the budget sets both; tests
    set them apart).

    ``frontier``: the search order (:data:`FRONTIERS`). ``"auto"`` (the default) is one search in
    the phases :data:`AUTO_PASSES`: depth-first for :data:`DEPTH_FIRST_PASS` states (it reaches
    most misses within a few thousand states, and decides small state spaces outright), then
    best-first for :data:`BEST_FIRST_PASS` more (the most urgent waiting state first: it reaches
    some misses that depth-first does not), then breadth-first by depth to the end (it proves
    large state spaces schedulable with fewer transitions than the others). Each phase takes over
    the waiting states of the previous one, so nothing is explored twice; the caps hold for the
    whole search. With ``probes`` (``auto`` only), random walks (:func:`_probe`) run before the
    search and whenever it has stored :data:`PROBE_FIRST_PAUSE` times a power of
    :data:`PROBE_PAUSE_GROWTH` states; a walk that reaches a doomed job ends the search with its
    path (reason ``"probe"``). They never conclude anything else, so they change no verdict the
    search reaches (papers/exact-search.md, "Probes"); ``probes=False`` is the search as before.
    ``short_counterexample``: when a depth-first search finds a miss, look for a shorter path to
    one breadth-first, within :data:`SHORTEN_FACTOR` times the states the depth-first search
    stored (at least :data:`SHORTEN_MIN_STATES`, at most ``state_cap``), and keep the
    depth-first path if none is found there; the verdict, ``states`` and ``transitions`` are the
    deciding search's.
    """
    if frontier not in FRONTIERS and frontier != "auto":
        raise InputError(
            f"unknown search order {frontier!r}; choose one of auto, {', '.join(FRONTIERS)}", field="frontier"
        )
    # the phases switch at fixed numbers of states and transitions (not a share of the budget):
    # then any caps at least the work a search reports give the same answer (tests/analyses/exact/test_exact_gedf.py)
    phases = AUTO_PASSES if frontier == "auto" else ((FRONTIERS[frontier], None),)
    found = _search(C, D, T, m, rule, state_cap, transition_cap, shortcuts, phases, probes and frontier == "auto")
    if not (short_counterexample and frontier != "breadth" and found.code == REJECT and found.releases is not None):
        return found
    cap = int(min(state_cap, max(SHORTEN_MIN_STATES, SHORTEN_FACTOR * found.states)))
    short = _search(C, D, T, m, rule, cap, TRANSITIONS_PER_STATE * cap, shortcuts, ((BREADTH_FIRST, None),), False)
    if short.code != REJECT or short.doomed_at > found.doomed_at:
        return found
    return replace(found, releases=short.releases, doomed_at=short.doomed_at, tie_choices=short.tie_choices)


def _table_size(capacity: int) -> int:
    """Slots of the hash tables for ``capacity`` states: a power of two, at least twice as many."""
    size = 1
    while size < 2 * (capacity + 1):
        size *= 2
    return size


def _tables(capacity: int, width: int, dtype: type, symmetric: bool, stacked: bool) -> tuple[NDArray, ...]:
    """The empty tables of :func:`_explore` for ``capacity`` states of ``width`` columns.

    ``rows``, ``canon`` (``rows`` itself without groups of identical tasks), ``parents``,
    ``masks``, ``won``, ``tied``, ``chain`` (the next stored state with the same pending part),
    ``status`` (0 stored, not yet expanded; 1 expanded; 2 simulated by a later state, never
    expanded), ``stack`` (the waiting states: a stack depth-first, a binary heap by ``urgency``
    best-first and level order; unused breadth-first, index order), ``urgency``, ``depth``
    (ticks from the initial state), ``table`` (the first state of each chain) and ``exact``
    (every stored state, for O(1) duplicate checks).
    """
    rows: NDArray[Any] = np.empty((capacity + 1, width), dtype=dtype)
    canon = np.empty_like(rows) if symmetric else rows
    return (rows, canon, *_new_tables(capacity, _table_size(capacity), capacity + 1 if stacked else 1))


@kernel
def _new_tables(capacity, size, slots):
    """The tables of :func:`_tables` after ``rows`` and ``canon``, in one compiled call.

    Small searches would otherwise spend more on allocating them than on searching.
    """
    return (
        np.full(capacity + 1, -1, dtype=np.int64),
        np.zeros(capacity + 1, dtype=np.int64),
        np.zeros(capacity + 1, dtype=np.int64),
        np.zeros(capacity + 1, dtype=np.int64),
        np.full(capacity + 1, -1, dtype=np.int64),
        np.zeros(capacity + 1, dtype=np.int8),
        np.empty(slots, dtype=np.int64),
        np.empty(slots, dtype=np.float64),
        np.zeros(capacity + 1, dtype=np.int64),
        np.full(size, -1, dtype=np.int64),
        np.full(size, -1, dtype=np.int64),
    )


@kernel
def _rehash(canon, n_states, old_table, table, exact, n):
    """Fill the larger hash tables: every stored state in ``exact``, each chain's first in ``table``."""
    size = table.shape[0]
    half = canon.shape[1] // 2
    rct = np.zeros(n, dtype=np.int64)
    nat = np.zeros(n, dtype=np.int64)
    for s in range(n_states):
        for i in range(half):
            rct[i] = canon[s, i]
            nat[i] = canon[s, half + i]
        slot = _full_hash(rct, nat, n) & np.uint64(size - 1)
        while exact[slot] >= 0:
            slot = (slot + np.uint64(1)) & np.uint64(size - 1)
        exact[slot] = s
    for j in range(old_table.shape[0]):
        first = old_table[j]
        if first < 0:
            continue
        for i in range(half):
            rct[i] = canon[first, i]
            nat[i] = canon[first, half + i]
        slot = _key_hash(rct, nat, n) & np.uint64(size - 1)
        while table[slot] >= 0:
            slot = (slot + np.uint64(1)) & np.uint64(size - 1)
        table[slot] = first


def _grown(tables: tuple[NDArray, ...], capacity: int, n_states: int, n_stack: int) -> tuple[NDArray, ...]:
    """The tables of :func:`_tables` copied into ones for ``capacity`` states (chains kept)."""
    rows = tables[0]
    stacked = tables[8].shape[0] > 1
    out = _tables(capacity, rows.shape[1], rows.dtype.type, tables[1] is not rows, stacked)
    for j in (0, 2, 3, 4, 5, 6, 7, 10):
        out[j][:n_states] = tables[j][:n_states]
    if out[1] is not out[0]:
        out[1][:n_states] = tables[1][:n_states]
    out[8][:n_stack] = tables[8][:n_stack]
    out[9][:n_stack] = tables[9][:n_stack]
    _rehash(out[1], n_states, tables[11], out[11], out[12], rows.shape[1] // 2)
    return out


@lru_cache(maxsize=16)
def _phase_arrays(
    phases: tuple[tuple[int, int | None], ...],
) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
    """The kernel's phase arrays: orders, and the states and transitions that end each phase."""
    orders = np.array([order for order, _ in phases], dtype=np.int64)
    until_states = np.full(len(phases), np.iinfo(np.int64).max, dtype=np.int64)
    until_transitions = until_states.copy()
    total = 0
    for p, (_, count) in enumerate(phases[:-1]):
        total += int(count) if count is not None else 0
        until_states[p] = total
        until_transitions[p] = TRANSITIONS_PER_STATE * total
    return orders, until_states, until_transitions


def _search(
    C: NDArray[np.int64],
    D: NDArray[np.int64],
    T: NDArray[np.int64],
    m: int,
    rule: str,
    state_cap: int,
    transition_cap: int,
    shortcuts: bool,
    phases: tuple[tuple[int, int | None], ...],
    probes: bool = False,
) -> Exploration:
    """One run of the kernel (tables grown geometrically) and the path to its miss, if any.

    ``phases``: (order, states) pairs, as :data:`AUTO_PASSES`; each phase continues the search
    of the previous one in its order until that many more states are stored (or
    :data:`TRANSITIONS_PER_STATE` times as many more transitions examined); None: to the end.
    ``probes``: random walks (:func:`_probe`) before the search and at its pauses (at
    :data:`PROBE_FIRST_PAUSE` times a power of :data:`PROBE_PAUSE_GROWTH` stored states: the
    kernel stops there as for a growth of its tables, and resumes); a walk's miss ends the search.
    """
    orders, until_states, until_transitions = _phase_arrays(phases)
    n = C.shape[0]
    if shortcuts and n <= m:
        return Exploration(int(ACCEPT), 0, 0, "n <= m", rule=rule)
    if shortcuts and utilization_above(C, T, m):
        return Exploration(int(REJECT), 0, 0, "utilization", rule=rule)
    big = int(T.max())
    if n > MAX_EXPLORED_TASKS or big >= 2**31 - 1:
        return Exploration(int(UNKNOWN), 0, 0, "too large", rule=rule)
    dtype = np.int16 if big < 2**15 else np.int32
    # no more states exist than Π (C_i + 1)(T_i + 1): small sets get small tables
    bound = 1
    for c, t in zip(C.tolist(), T.tolist(), strict=True):
        bound *= (c + 1) * (t + 1)
        if bound > state_cap:
            break
    limit = int(min(state_cap, bound + 1))
    members, member_offsets = identical_groups(C, D, T) if rule == "every" else NO_GROUPS
    # Tables grow geometrically, so small explorations do not pay for allocating the whole
    # budget; the search resumes in the grown tables.
    capacity = min(limit, INITIAL_TABLE)
    stacked = any(order != BREADTH_FIRST for order, _ in phases)
    tables = _tables(capacity, 2 * n, dtype, member_offsets.shape[0] > 1, stacked)
    regs = np.zeros(8, dtype=np.int64)
    walk = _Walks(C, D, T, m, rule) if probes else None
    pause = PROBE_FIRST_PAUSE if probes else limit
    if walk is not None and walk.run(PROBE_FIRST_TICKS):
        return walk.found(0, 0)
    while True:
        rows, canon = tables[0], tables[1]
        stop = min(capacity, pause)  # the kernel stops there (a growth, or a pause for a probe)
        grow_code = UNKNOWN if stop >= limit else _GROW
        code, states, transitions, fail_parent, fail_mask, fail_won, fail_tied, parents, masks, won, tied = _explore(
            C,
            D,
            T,
            m,
            rule == "fp",
            rule == "every",
            members,
            member_offsets,
            stop,
            int(transition_cap),
            CHAIN_LOOK,
            grow_code,
            rows,
            canon,
            orders,
            until_states,
            until_transitions,
            *tables[2:],
            regs,
        )
        if code != _GROW:
            break
        if stop == pause:
            pause *= PROBE_PAUSE_GROWTH
            assert walk is not None
            if walk.run(max(PROBE_FIRST_TICKS, int(regs[1]) // PROBE_TRANSITIONS_PER_TICK)):
                return walk.found(int(regs[0]), int(regs[1]))
        if stop == capacity:
            new_capacity = min(limit, 8 * capacity)
            tables = _grown(tables, new_capacity, int(regs[0]), int(regs[3]))
            capacity = new_capacity
    releases = None
    choices = None
    doomed_at = -1
    if code == REJECT:
        steps = [(int(fail_mask), int(fail_won), int(fail_tied))]
        s = int(fail_parent)
        while s > 0:
            steps.append((int(masks[s]), int(won[s]), int(tied[s])))
            s = int(parents[s])
        steps.reverse()  # steps[t] = (released, tied winners, tied) at time t
        releases = tuple(tuple(t for t, (mask, _, _) in enumerate(steps) if (mask >> i) & 1) for i in range(n))
        choices = tuple((t, bits(w, n), bits(tie & ~w, n)) for t, (_, w, tie) in enumerate(steps) if tie)
        doomed_at = len(steps)
    reason = "budget" if code == UNKNOWN else "explored"
    probed = walk.used if walk is not None else 0
    return Exploration(int(code), int(states), int(transitions), reason, releases, doomed_at, rule, choices, probed)


class _Walks:
    """The probes of one search (:func:`_probe`): rounds of random walks, each round its own seed."""

    def __init__(self, C: NDArray[np.int64], D: NDArray[np.int64], T: NDArray[np.int64], m: int, rule: str) -> None:
        self.args = (C, D, T, m, rule == "fp", rule == "every")
        self.rule = rule
        self.n = C.shape[0]
        self.horizon = PROBE_HORIZON * (int(T.max()) + int(D.max()))
        self.path = np.zeros((3, self.horizon), dtype=np.int64)
        self.rounds = 0
        self.used = 0
        self.length = 0

    def run(self, ticks: int) -> bool:
        """One round of walks for about ``ticks`` ticks; True when one reached a doomed job."""
        length, used = _probe(*self.args, self.horizon, ticks, self.rounds, self.path[0], self.path[1], self.path[2])
        self.rounds += 1
        self.used += int(used)
        self.length = int(length)
        return self.length > 0

    def found(self, states: int, transitions: int) -> Exploration:
        """The REJECT of the walk that reached a doomed job (with the search's work so far)."""
        n = self.n
        steps = [(int(a), int(b), int(c)) for a, b, c in self.path[:, : self.length].T.tolist()]
        releases = tuple(tuple(t for t, (mask, _, _) in enumerate(steps) if (mask >> i) & 1) for i in range(n))
        choices = tuple((t, bits(w, n), bits(tie & ~w, n)) for t, (_, w, tie) in enumerate(steps) if tie)
        return Exploration(
            int(REJECT), states, transitions, "probe", releases, self.length, self.rule, choices, self.used
        )


def one(C: NDArray[np.int64], D: NDArray[np.int64], T: NDArray[np.int64], m: int, budget: int, rule: str) -> int:
    """One set: the verdict code.

    Python around the Numba search, which allocates its tables as it grows (so there is no serial
    one-set kernel to call directly).
    """
    return search(C, D, T, m, rule, budget, TRANSITIONS_PER_STATE * budget, short_counterexample=False).code


#: ``parallel_from`` of the exact analyses (in tasks): a batch of 8 tasks or more (two sets of 4)
#: is explored on Numba's threads (:func:`codes`): one exploration costs far more than starting
#: the threads.
PARALLEL_FROM = 8
#: Bytes per stored state besides its rows (the int64 tables, the hash tables and the heap), an
#: upper estimate from :func:`_tables`; the rows take 2n columns, twice with identical tasks.
_STATE_BYTES = 120


def _physical_memory() -> int:
    """The machine's memory in bytes (4 GiB where the platform does not say)."""
    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, OSError, ValueError):
        return 4 << 30


def explorers(batch: TaskSetBatch, budget: int, threads: int) -> int:
    """How many sets :func:`codes` explores at once.

    At most ``threads``, and few enough that their tables, each at most its budget of states
    (with a geometric growth's old copy), fit in a quarter of the machine's memory.
    """
    if batch.n_sets <= 1 or threads <= 1:
        return 1
    width = 2 * int(np.max(np.diff(batch.offsets)))
    per_set = 2 * budget * (2 * width * 4 + _STATE_BYTES)
    return max(1, min(threads, batch.n_sets, _physical_memory() // 4 // max(per_set, 1)))


def codes(batch: TaskSetBatch, m: int, budget: int, rule: str) -> NDArray[np.int8]:
    """Verdict codes (1 schedulable, 0 not, -1 unknown) for every set of ``batch``.

    The sets are explored side by side on Numba's threads (:func:`numba.get_num_threads`: every
    core unless the caller set fewer; 1 in a sweep's workers), as many at once as
    :func:`explorers` allows for memory; the search releases the GIL. Each set's verdict is its
    own, so the codes do not depend on the number of threads.
    """
    import numba  # the engine's kernels need it anyway

    C, D, T, offsets = batch.C, batch.D, batch.T, batch.offsets
    out = np.empty(batch.n_sets, dtype=np.int8)

    def decide(s: int) -> None:
        lo, hi = int(offsets[s]), int(offsets[s + 1])
        out[s] = one(C[lo:hi], D[lo:hi], T[lo:hi], m, budget, rule)

    workers = explorers(batch, budget, numba.get_num_threads())
    if workers == 1:
        for s in range(batch.n_sets):
            decide(s)
        return out
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="rtsched-explore") as pool:
        for _ in pool.map(decide, range(batch.n_sets)):  # in order; re-raises a worker's error
            pass
    return out


# -- explanations (the G-EDF and G-FP entries word them) ---------------------------------------
def witness(ts: TaskSet, m: int, budget: int, quick: Exploration) -> Exploration:
    """The exploration whose release sequence explains ``quick`` (the verdict is ``quick``'s).

    ``quick`` itself, unless U > m rejected the set without a search: then a search without the
    shortcuts (at most 100,000 states) or, if that finds no miss, the synchronous periodic
    pattern up to its first miss in the simulator (with U > m it misses within a hyperperiod).
    """
    if quick.code != REJECT or quick.releases is not None:
        return quick
    from rtsched.sim import simulate  # the simulator replays sequences to their first miss

    rule = quick.rule
    deep = search(ts.C, ts.D, ts.T, m, rule, min(budget, 100_000), TRANSITIONS_PER_STATE * budget, shortcuts=False)
    if deep.code == REJECT:
        return deep
    trace = simulate(ts, m, policy="gfp" if rule == "fp" else "gedf", horizon=min(ts.hyperperiod, 10**7), record=False)
    if trace.miss is None:
        return quick
    periodic = tuple(tuple(range(0, trace.miss.time, int(t))) for t in ts.T)
    return Exploration(quick.code, deep.states, deep.transitions, "utilization", periodic, rule=rule, tie_choices=())


def replay_trace(ts: TaskSet, m: int, result: Exploration) -> Trace:
    """``result``'s release sequence (and tie choices) run in the simulator, recorded."""
    from rtsched.sim import simulate

    assert result.releases is not None
    choices = result.tie_choices or ()
    if result.rule == "fp":
        return simulate(ts, m, policy="gfp", releases=result.releases)
    return simulate(ts, m, releases=result.releases, tie_choices=[(t, list(w)) for t, w, _ in choices])


def replay(ts: TaskSet, m: int, result: Exploration) -> DeadlineMiss:
    """The first miss of ``result``'s release sequence (and tie choices) in the simulator.

    A doomed job always misses on replay; no miss is a bug.
    """
    miss = replay_trace(ts, m, result).miss
    choices = result.tie_choices or ()
    if miss is None:
        raise RuntimeError(
            f"replay of {result.releases} under rule {result.rule} with tie choices {choices} found no miss"
        )
    return miss


def releases_text(ts: TaskSet, releases: tuple[tuple[int, ...], ...]) -> str:
    """The release times of each task that releases, as ``τ1: [0, 5]; τ3: [2]``."""
    return "; ".join(f"{ts.label(i)}: {list(r)}" for i, r in enumerate(releases) if r)


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
    """The verdict of the exploration ``quick`` with its evidence (states, or a replayed miss).

    ``head``: the rule's first evidence entries; ``found``: the words after "no deadline miss
    reachable"; ``qualifier``: the rule named in parentheses in the other summaries (``""``: none);
    ``describe_miss(result, miss)``: the summary and evidence of the :func:`witness` ``result``'s
    release sequence, whose first miss is ``miss``.
    """
    result = witness(ts, m, budget, quick)
    named = f" ({qualifier})" if qualifier else ""
    evidence: dict[str, object] = {
        **head,
        "states": result.states,
        "transitions": result.transitions,
        "reason": quick.reason,
        "budget": budget,
    }
    if quick.code == ACCEPT:
        verdict: Verdict = True
        if quick.reason == "n <= m":
            summary = f"n = {ts.n} ≤ m = {m}: every job has its own processor{named}"
        else:
            summary = f"no deadline miss reachable {found} ({result.states} states explored)"
    elif quick.code == REJECT:
        verdict = False
        if result.releases is not None:
            summary, shown = describe_miss(result, replay(ts, m, result))
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
        verdict=verdict, summary=summary, evidence=evidence, steps=lambda: search_steps(ts, m, quick, result, found)
    )


def search_steps(ts: TaskSet, m: int, quick: Exploration, result: Exploration, found: str) -> Iterator[Step]:
    """The search as a lecturer tells it: what was explored, and a miss replayed job by job in the simulator."""
    if quick.code == ACCEPT and quick.reason == "n <= m":
        yield Step(f"n = {ts.n} ≤ m = {m}: every job has a processor of its own, so no job waits: schedulable")
        return
    if result.reason == "probe":
        yield Step(
            f"play random release sequences {found} (probes of the search, {plural(result.probed, 'tick')}, "
            f"after {plural(result.states, 'state')} explored): one reaches a miss"
        )
    else:
        yield Step(
            f"explore every state the schedule can reach {found}, over every release sequence: "
            f"{plural(result.states, 'state')}, {plural(result.transitions, 'transition')} (a state dominated by "
            "one already seen is pruned)"
        )
    if quick.code == ACCEPT:
        yield Step("no reachable state has a job past its deadline: schedulable")
        return
    if quick.code != REJECT:
        yield Step(f"the budget ran out before the search ended: unknown ({quick.reason})")
        return
    if result.releases is None:
        yield Step(
            "U = {U} > m: the demand exceeds the processors in the long run: not schedulable", {"U": ts.utilization}
        )
        return
    yield Step(f"a release sequence that leads to a miss: {releases_text(ts, result.releases)}")
    choices = result.tie_choices or ()
    for t, winners, losers in choices:
        names = ", ".join(ts.label(i) for i in winners)
        yield Step(f"  tie at t = {t}: {names} run before " + ", ".join(ts.label(i) for i in losers))
    trace = replay_trace(ts, m, result)
    yield Step("the simulator replays it (processor: job over [start, end)):")
    for processor, task, job, start, end in sorted(trace.segments.tolist(), key=lambda row: (row[3], row[0])):
        yield Step(f"  P{processor}: {ts.label(task)} job {job} over [{start}, {end})")
    miss = trace.miss
    assert miss is not None  # replay() found it already
    left = f" with {plural(miss.remaining, 'tick')} left" if miss.remaining >= 0 else ""
    yield Step(f"t = {miss.time}: {ts.label(miss.task)} job {miss.job} misses its deadline{left}: not schedulable")


def default_skip(ts: TaskSet, m: int, name: str) -> str | None:
    """Why :func:`rtsched.check`'s default list leaves the exact test ``name`` out, or ``None``.

    It stays in when n <= m, U > m (decided at once) or Π T_i ≤ :data:`DEFAULT_LIST_PERIODS`·m²,
    where the default budget decides almost every set quickly (``benchmarks/bench_exact.py
    --parts skip``; papers/exact-search.md, "Performance").
    """
    n = ts.n
    if n <= m:
        return None
    limit = DEFAULT_LIST_PERIODS * m * m
    product = 1
    for t in ts.T.tolist():
        product *= t
        if product > limit:
            break
    else:
        return None
    if utilization_above(ts.C, ts.T, m):
        return None  # U > m: rejected without a search
    return (
        f"n = {n} tasks, product of the periods > {limit:,} (2^14·m²): beyond what the default budget "
        f"decides within milliseconds; to run it, name it (--tests {name}, or tests=[{name!r}] in check()) "
        "and raise its budget if it answers unknown"
    )
