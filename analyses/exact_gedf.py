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

Pruning (Geeraerts et al. 2013, idle tasks simulation; definition numbering unverified): a state
S' *simulates* S if both have the same pending jobs (same ``rct``, and same ``nat`` for every
task with a pending job) and every idle task may be released at least as early in S' as in S
(``nat'_i ≤ nat_i``). Any adversary strategy from S can be played from S' with the same effect:
the releases allowed from S are allowed from S', and the tie choices offered to the adversary
depend only on the pending jobs, which are the same; so a failure reachable from S is reachable
from S' under either tie semantics (papers/gedf-ties.md has the proof). A new state simulated by
a stored one is dropped, and a stored state not yet expanded that a new state simulates is not
expanded. States are stored in a hash table keyed by their pending part; exact duplicates are
the special case of equality. Breadth-first order keeps counterexamples short (shortest in the
pruned graph, not necessarily in the full one).

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
rarely decides quickly (measured in ``benchmarks/bench_exact.py``, part ``skip``).

Layers: :func:`reference` (pure Python BFS over explicit (rem, time-to-deadline, time-to-release)
triples that enumerates the legal run sets straight from their definition, coded independently
of the kernel, no pruning), ``_explore`` (Numba kernel, int16/int32 state rows, open addressing,
antichain pruning, branching on tied choices only), :func:`explore` / ``_search`` (the tables,
grown geometrically, and the counterexample path), ``_exact_codes`` (sets explored one after the
other: each exploration allocates its budgeted tables, so running them in parallel would multiply
the memory), :func:`explain` (counterexample release sequence and tie choices, replayed in the
simulator).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations
from typing import Literal

import numpy as np
from numba import njit
from numpy.typing import NDArray

from rtsched.errors import InputError
from rtsched.kernels import ACCEPT, REJECT, UNKNOWN, check_processors
from rtsched.model import TaskSet, TaskSetBatch
from rtsched.registry import Analysis
from rtsched.result import UNKNOWN as UNKNOWN_VERDICT
from rtsched.result import Explanation, Verdict, show_number

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

#: Default budget: explored (stored) states. One state takes about 100 bytes and 1 µs.
DEFAULT_BUDGET = 100_000
#: Transitions examined per budgeted state (time bound for sets with many releases per state).
#: Random sets take 3 per stored state (median; 16 at the 90th percentile); 10 instead of 50
#: decided 2 fewer of 800 random sets at the default budget (benchmarks/bench_exact.py).
TRANSITIONS_PER_STATE = 10
#: ``exact`` stays in :func:`rtsched.check`'s default list for sets with Π T_i ≤ this · m²
#: (see :func:`default_skip`).
DEFAULT_LIST_PERIODS = 2**14
_GROW = np.int8(3)
#: How many stored states with the same pending part a new state is compared with.
CHAIN_LOOK = 64
#: Release subsets and tie choices are bit masks in int64.
MAX_EXPLORED_TASKS = 62


def _check_ties(ties: str) -> str:
    if ties not in TIES:
        raise InputError(f"unknown tie semantics {ties!r}; choose one of {', '.join(TIES)}", field="ties")
    return ties


# -- reference: plain BFS, no pruning ---------------------------------------------------------
def reference(ts: TaskSet, m: int, budget: int = DEFAULT_BUDGET, ties: Ties = "every") -> Verdict:
    """Exact verdict by breadth-first search over every reachable state (no pruning).

    A state is a tuple of ``(remaining, to_deadline, to_release)`` per task. Each tick the
    scheduler may run any *legal* set of pending jobs: ``min(m, pending)`` of them, none with a
    later deadline than a pending job left waiting. ``ties="every"`` branches on every legal set;
    ``ties="index"`` keeps only the first ``m`` in (deadline, index) order. ``"unknown"`` if
    more than ``budget`` states are reachable (the plain search stores more states than the
    pruned one of :func:`explore`, so it runs out of the same budget sooner).
    """
    _check_ties(ties)
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
                for run in _legal_run_sets(jobs, m, ties):
                    nxt, failed = _tick(jobs, run)
                    if failed:
                        return False
                    if nxt not in seen:
                        if len(seen) >= budget:
                            return UNKNOWN_VERDICT
                        seen.add(nxt)
                        queue.append(nxt)
    return True


def reference_index(ts: TaskSet, m: int, budget: int = DEFAULT_BUDGET) -> Verdict:
    """:func:`reference` with equal deadlines to the lowest task index (``exact:index``)."""
    return reference(ts, m, budget, ties="index")


def _legal_run_sets(jobs: list[list[int]], m: int, ties: str) -> list[tuple[int, ...]]:
    """The sets of pending jobs G-EDF may run for one tick (``jobs[i] = [rem, to_deadline, ...]``)."""
    pending = [i for i, job in enumerate(jobs) if job[0] > 0]
    size = min(m, len(pending))
    if ties == "index":
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
def _next_combination(comb, k, b):  # noqa: ANN001, ANN202
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


@njit(cache=True)
def _canonical(crct, cnat, members, member_offsets):  # noqa: ANN001, ANN202
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


@njit(cache=True)
def _explore(
    C, D, T, m, every_tie, members, member_offsets, state_cap, transition_cap, chain_look, grow_code, rows, canon
):  # noqa: ANN001, ANN202
    """Breadth-first search with idle-tasks-simulation pruning.

    ``every_tie``: branch on every choice among jobs tied at the m-th deadline (else the lowest
    indices run). ``rows`` is a preallocated ``(state_cap + 1, 2n)`` int16/int32 array of states
    (rct then nat) as reached, which are expanded; ``canon`` (the same shape, or ``rows`` itself
    when there is no group) holds their canonical forms (:func:`_canonical` over the groups
    ``members``/``member_offsets`` of identical tasks, given only when ``every_tie``), on which
    duplicates and simulation are decided. Returns ``(code, n_states, transitions, fail_parent, fail_mask, fail_won,
    fail_tied, parents, masks, won, tied)``: on REJECT, the failure follows state ``fail_parent``
    by releasing ``fail_mask`` and, if ``fail_tied`` is not 0, running the tasks ``fail_won`` of
    the tied tasks ``fail_tied``; ``parents``/``masks``/``won``/``tied`` give the same for every
    stored state. When ``state_cap`` states are stored the code is ``grow_code`` (UNKNOWN at the
    real budget, or GROW: the caller reruns with larger tables).
    """
    n = C.shape[0]
    parents = np.full(state_cap + 1, -1, dtype=np.int64)
    masks = np.zeros(state_cap + 1, dtype=np.int64)
    won = np.zeros(state_cap + 1, dtype=np.int64)  # tied tasks that ran on the edge into a state
    tied = np.zeros(state_cap + 1, dtype=np.int64)  # tasks tied at the boundary on that edge
    chain = np.full(state_cap + 1, -1, dtype=np.int64)  # next stored state with the same pending part
    skip = np.zeros(state_cap + 1, dtype=np.bool_)  # simulated by a later state: not expanded
    victims = np.empty(chain_look, dtype=np.int64)
    size = 1
    while size < 2 * (state_cap + 1):
        size *= 2
    table = np.full(size, -1, dtype=np.int64)  # first stored state of each pending part
    exact = np.full(size, -1, dtype=np.int64)  # every stored state, for O(1) duplicate checks
    slack = T - D  # deadline of a pending job = nat - (T - D)
    rct = np.zeros(n, dtype=np.int64)
    nat = np.zeros(n, dtype=np.int64)
    crct = np.zeros(n, dtype=np.int64)  # canonical form of (rct, nat)
    cnat = np.zeros(n, dtype=np.int64)
    symmetric = member_offsets.shape[0] > 1
    base_rct = np.zeros(n, dtype=np.int64)  # after the releases, before the tick
    base_nat = np.zeros(n, dtype=np.int64)
    free = np.zeros(n, dtype=np.int64)
    order = np.zeros(n, dtype=np.int64)  # pending tasks by (deadline, index)
    comb = np.zeros(n + 1, dtype=np.int64)  # the tied jobs chosen, as positions in the tied run
    for j in range(2 * n):
        rows[0, j] = 0
        canon[0, j] = 0
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
            mask = 0
            for i in range(n):
                base_rct[i] = rows[head, i]
                base_nat[i] = rows[head, n + i]
            for b in range(n_free):
                if (sub >> b) & 1:
                    i = free[b]
                    base_rct[i] = C[i]
                    base_nat[i] = T[i]
                    mask |= 1 << i
            # pending jobs in (deadline, index) order: scanning i upwards, insert after equals
            n_pending = 0
            for i in range(n):
                if base_rct[i] > 0:
                    d = base_nat[i] - slack[i]
                    j = n_pending
                    while j > 0 and base_nat[order[j - 1]] - slack[order[j - 1]] > d:
                        order[j] = order[j - 1]
                        j -= 1
                    order[j] = i
                    n_pending += 1
            # G-EDF runs order[:n_sure] in every choice, plus k of the n_tied jobs
            # order[n_sure:n_sure + n_tied] that share the m-th earliest deadline
            n_sure = n_pending
            n_tied = 0
            k = 0
            tied_mask = 0
            if n_pending > m:
                boundary = base_nat[order[m - 1]] - slack[order[m - 1]]
                n_sure = 0
                while base_nat[order[n_sure]] - slack[order[n_sure]] < boundary:
                    n_sure += 1
                while (
                    n_sure + n_tied < n_pending
                    and base_nat[order[n_sure + n_tied]] - slack[order[n_sure + n_tied]] == boundary
                ):
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
                    return REJECT, n_states, transitions, head, mask, won_mask, tied_mask, parents, masks, won, tied
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
                # simulated by a stored state with the same pending part? Only the first
                # CHAIN_LOOK states of the chain are compared: pruning less is still sound, and
                # it keeps the cost per transition bounded.
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
                        looked = 0
                        n_covered = 0
                        while s >= 0 and looked < chain_look:
                            covers = True  # stored s simulates the new state
                            covered = True  # the new state simulates stored s
                            for i in range(n):
                                if crct[i] == 0:
                                    if canon[s, n + i] > cnat[i]:
                                        covers = False
                                    elif canon[s, n + i] < cnat[i]:
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
                            # stored states not yet expanded that the new one simulates need
                            # not be expanded: the new state is, and reaches every failure
                            # they reach
                            for j in range(n_covered):
                                skip[victims[j]] = True
                        break
                    slot = (slot + np.uint64(1)) & np.uint64(size - 1)
                if dominated:
                    continue
                if n_states > state_cap - 1:
                    return grow_code, n_states, transitions, -1, 0, 0, 0, parents, masks, won, tied
                new = n_states
                for i in range(n):
                    rows[new, i] = rct[i]
                    rows[new, n + i] = nat[i]
                    canon[new, i] = crct[i]
                    canon[new, n + i] = cnat[i]
                parents[new] = head
                masks[new] = mask
                won[new] = won_mask if tied_mask else 0
                tied[new] = tied_mask
                exact[dup_slot] = new
                if table[slot] < 0:
                    table[slot] = new
                else:
                    chain[new] = chain[table[slot]]
                    chain[table[slot]] = new
                n_states += 1
        head += 1
    return ACCEPT, n_states, transitions, -1, 0, 0, 0, parents, masks, won, tied


#: One tie decision on a counterexample: at tick ``time`` the tasks ``winners`` ran and the
#: tasks ``losers`` waited, all with the same absolute deadline.
TieChoice = tuple[int, tuple[int, ...], tuple[int, ...]]


@dataclass(frozen=True)
class Exploration:
    """Outcome of one exploration.

    ``code``: ACCEPT, REJECT or UNKNOWN; ``states``/``transitions``: work done; ``reason``:
    ``"explored"``, ``"utilization"`` (U > m), ``"n <= m"``, ``"budget"`` or ``"too large"``
    (more than 62 tasks or periods beyond int32); ``ties``: the tie semantics (``"every"`` or
    ``"index"``); ``releases``: on a reachable failure, the release times of each task leading to
    it (short: breadth-first); ``tie_choices``: the ticks on that path where jobs tied at the
    m-th deadline competed, as ``(time, winners, losers)`` (under ``"every"`` these are the
    adversary's choices; under ``"index"`` the winners are the lowest indices); ``doomed_at``: the
    time at which some job became doomed along the path.
    """

    code: int
    states: int
    transitions: int
    reason: str
    releases: tuple[tuple[int, ...], ...] | None = None
    doomed_at: int = -1
    ties: str = "every"
    tie_choices: tuple[TieChoice, ...] | None = None


_NO_GROUPS = (np.zeros(0, dtype=np.int64), np.zeros(1, dtype=np.int64))


def _identical_groups(
    C: NDArray[np.int64], D: NDArray[np.int64], T: NDArray[np.int64]
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Groups of at least two tasks with identical (C, D, T), as flat members and offsets."""
    groups: dict[tuple[int, int, int], list[int]] = {}
    for i, row in enumerate(zip(C.tolist(), D.tolist(), T.tolist(), strict=True)):
        groups.setdefault(row, []).append(i)
    shared = [g for g in groups.values() if len(g) > 1]
    if not shared:
        return _NO_GROUPS
    members = np.array([i for g in shared for i in g], dtype=np.int64)
    offsets = np.cumsum([0] + [len(g) for g in shared], dtype=np.int64)
    return members, offsets


def _bits(mask: int, n: int) -> tuple[int, ...]:
    return tuple(i for i in range(n) if (mask >> i) & 1)


def _utilization_above(C: NDArray[np.int64], T: NDArray[np.int64], m: int) -> bool:
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
    ties: Ties = "every",
    budget: int = DEFAULT_BUDGET,
    shortcuts: bool = True,
) -> Exploration:
    """Run the exploration on one set (see the module docstring for the game).

    ``ties="every"`` lets the adversary break ties (every G-EDF implementation);
    ``ties="index"`` gives equal deadlines to the lowest task index. ``budget``: states stored
    (and at most :data:`TRANSITIONS_PER_STATE` transitions per budgeted state); past it the code
    is UNKNOWN. ``shortcuts=False`` explores even when U > m or n <= m decide the verdict (used to
    get a counterexample release sequence, and by tests).
    """
    m = check_processors(m)
    _check_ties(ties)
    if not ts.is_constrained:
        raise InputError("the exact G-EDF test handles constrained deadlines (D <= T) only")
    return _search(ts.C, ts.D, ts.T, int(m), ties, int(budget), TRANSITIONS_PER_STATE * int(budget), shortcuts)


def _search(
    C: NDArray[np.int64],
    D: NDArray[np.int64],
    T: NDArray[np.int64],
    m: int,
    ties: str,
    state_cap: int,
    transition_cap: int,
    shortcuts: bool = True,
) -> Exploration:
    """:func:`explore` on the arrays of one constrained-deadline set, with separate caps on the
    states stored and the transitions examined (the budget sets both; tests set them apart)."""
    n = C.shape[0]
    if shortcuts and n <= m:
        return Exploration(int(ACCEPT), 0, 0, "n <= m", ties=ties)
    if shortcuts and _utilization_above(C, T, m):
        return Exploration(int(REJECT), 0, 0, "utilization", ties=ties)
    big = int(T.max())
    if n > MAX_EXPLORED_TASKS or big >= 2**31 - 1:
        return Exploration(int(UNKNOWN), 0, 0, "too large", ties=ties)
    dtype = np.int16 if big < 2**15 else np.int32
    # no more states exist than Π (C_i + 1)(T_i + 1): small sets get small tables
    bound = 1
    for c, t in zip(C.tolist(), T.tolist(), strict=True):
        bound *= (c + 1) * (t + 1)
        if bound > state_cap:
            break
    limit = int(min(state_cap, bound + 1))
    members, member_offsets = _identical_groups(C, D, T) if ties == "every" else _NO_GROUPS
    # Tables grow geometrically (rerunning from scratch costs at most 1/7 extra work), so
    # small explorations do not pay for allocating the whole budget.
    capacity = min(limit, 4096)
    while True:
        rows = np.empty((capacity + 1, 2 * n), dtype=dtype)
        canon = np.empty_like(rows) if member_offsets.shape[0] > 1 else rows
        grow_code = UNKNOWN if capacity >= limit else _GROW
        code, states, transitions, fail_parent, fail_mask, fail_won, fail_tied, parents, masks, won, tied = _explore(
            C,
            D,
            T,
            m,
            ties == "every",
            members,
            member_offsets,
            capacity,
            int(transition_cap),
            CHAIN_LOOK,
            grow_code,
            rows,
            canon,
        )
        if code != _GROW:
            break
        capacity = min(limit, 8 * capacity)
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
        choices = tuple((t, _bits(w, n), _bits(tie & ~w, n)) for t, (_, w, tie) in enumerate(steps) if tie)
        doomed_at = len(steps)
    reason = "budget" if code == UNKNOWN else "explored"
    return Exploration(int(code), int(states), int(transitions), reason, releases, doomed_at, ties, choices)


def _one(C: NDArray[np.int64], D: NDArray[np.int64], T: NDArray[np.int64], m: int, budget: int, ties: str) -> int:
    return _search(C, D, T, m, ties, budget, TRANSITIONS_PER_STATE * budget).code


def _exact_one(C: NDArray[np.int64], D: NDArray[np.int64], T: NDArray[np.int64], m: int, budget: int) -> int:
    """One set under every tie rule: the verdict code. Python around the ``@njit`` search, which
    allocates its tables as it grows (so there is no serial one-set kernel to call directly)."""
    return _one(C, D, T, m, budget, "every")


def _exact_index_one(C: NDArray[np.int64], D: NDArray[np.int64], T: NDArray[np.int64], m: int, budget: int) -> int:
    """One set with lowest-index ties: the verdict code."""
    return _one(C, D, T, m, budget, "index")


def _codes(batch: TaskSetBatch, m: int, budget: int, ties: str) -> NDArray[np.int8]:
    # Sets are explored one after the other: each exploration allocates its budgeted tables, so
    # running them in parallel would multiply the memory.
    C, D, T, offsets = batch.C, batch.D, batch.T, batch.offsets
    out = np.empty(batch.n_sets, dtype=np.int8)
    for s in range(batch.n_sets):
        lo, hi = int(offsets[s]), int(offsets[s + 1])
        out[s] = _one(C[lo:hi], D[lo:hi], T[lo:hi], m, budget, ties)
    return out


def _exact_codes(batch: TaskSetBatch, m: int, budget: int) -> NDArray[np.int8]:
    """Verdict codes (1 schedulable under every tie rule, 0 not, -1 unknown) for every set."""
    return _codes(batch, m, budget, "every")


def _exact_index_codes(batch: TaskSetBatch, m: int, budget: int) -> NDArray[np.int8]:
    """Verdict codes with lowest-index ties."""
    return _codes(batch, m, budget, "index")


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
    from rtsched.sim import simulate  # the simulator replays sequences to their first miss

    rule = TIE_RULE_TEXT[ties]
    quick = explore(ts, m, ties=ties, budget=budget)
    result = quick
    if quick.code == REJECT and quick.releases is None:
        # U > m: look for a (short) release sequence; the verdict does not depend on it
        deep = _search(ts.C, ts.D, ts.T, m, ties, min(budget, 100_000), TRANSITIONS_PER_STATE * budget, shortcuts=False)
        if deep.code == REJECT:
            result = deep
        else:  # with U > m the synchronous periodic pattern misses within a hyperperiod
            trace = simulate(ts, m, horizon=min(ts.hyperperiod, 10**7), record=False)
            if trace.miss is not None:
                periodic = tuple(tuple(range(0, trace.miss.time, int(t))) for t in ts.T)
                result = Exploration(
                    quick.code, deep.states, deep.transitions, "utilization", periodic, ties=ties, tie_choices=()
                )
    evidence: dict[str, object] = {
        "ties": ties,
        "states": result.states,
        "transitions": result.transitions,
        "reason": quick.reason,
        "budget": budget,
    }
    if quick.code == ACCEPT:
        verdict: Verdict = True
        if quick.reason == "n <= m":
            summary = f"n = {ts.n} <= m = {m}: every job has its own processor ({rule})"
        else:
            summary = f"no deadline miss reachable {rule} ({result.states} states explored)"
    elif quick.code == REJECT:
        verdict = False
        if result.releases is not None:
            choices = result.tie_choices or ()
            replay_choices = [(t, list(w)) for t, w, _ in choices]
            miss = simulate(ts, m, releases=result.releases, tie_choices=replay_choices).miss
            if miss is None:  # a doomed job always misses on replay; anything else is a bug
                raise RuntimeError(f"replay of {result.releases} with tie choices {choices} found no miss")
            evidence["releases"] = result.releases
            evidence["tie_choices"] = tuple((t, w) for t, w, _ in choices)
            evidence["tie_losers"] = tuple((t, lost) for t, _, lost in choices)
            evidence["miss_time"] = miss.time
            evidence["miss_task"] = miss.task
            shown = "; ".join(f"{ts.label(i)}: {list(r)}" for i, r in enumerate(result.releases) if r)
            summary = f"G-EDF ({rule}) misses {ts.label(miss.task)}'s deadline at t={miss.time} with releases {shown}"
            if ties == "every":
                if choices:
                    summary += f" and tie choices {_show_choices(ts, choices)}"
                else:
                    summary += " (no tie on the way: every tie rule misses)"
        else:
            summary = f"U = {show_number(ts.utilization)} > m = {m}: no scheduler meets every deadline ({rule}; no release sequence found within the budget)"
        if quick.reason == "utilization":
            evidence["utilization"] = Fraction(ts.utilization)
    else:
        verdict = UNKNOWN_VERDICT
        summary = (
            f"unknown ({rule}): budget exhausted after {result.states} states / {result.transitions} transitions "
            f"(budget = {budget} states)"
        )
    return Explanation(verdict=verdict, summary=summary, evidence=evidence)


def explain_index(ts: TaskSet, m: int, budget: int = DEFAULT_BUDGET) -> Explanation:
    """:func:`explain` with lowest-index ties (registry name ``exact:index``)."""
    return explain(ts, m, budget, ties="index")


def default_skip(ts: TaskSet, m: int) -> str | None:
    """Why :func:`rtsched.check`'s default list leaves ``exact`` out for this set, or ``None``.

    The state space grows with the product of the periods; ``exact`` stays in the default list
    when Π T_i ≤ 2^14·m² (or when n ≤ m or U > m decide at once). Measured on 1,029 random sets
    (m = 2, 3, 4, 8; n = m + 1 … m + 12; periods log-uniform up to 5 … 1000; U ≤ m; 100,000
    states): the 239 sets the rule keeps were decided within 10 ms in 96 % of cases, none answered
    "unknown", the slowest took 0.24 s; of the 790 sets it leaves out, 33 % were decided within
    10 ms (mostly quick rejections, which no cheap rule predicts) and 55 % answered "unknown".
    ``benchmarks/bench_exact.py --parts skip`` repeats the measurement.
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
    if _utilization_above(ts.C, ts.T, m):
        return None  # U > m: rejected without a search
    return (
        f"n = {n} tasks, product of the periods > {limit:,} (2^14·m²): beyond what the default budget "
        "decides within milliseconds; name exact in tests= (with budget=) to run it"
    )


ANALYSES = (
    Analysis(
        name="exact",
        title="Exact G-EDF, every tie-breaking rule (state-space exploration)",
        citation=CITATION_EVERY_TIE,
        kind="exact",
        policy="global-edf",
        platform="identical",
        deadlines=("implicit", "constrained"),
        note="papers/gedf-ties.md",
        reference=reference,
        explain=explain,
        codes=_exact_codes,
        one=_exact_one,
        budget=DEFAULT_BUDGET,
        budget_unit="explored states",
        default_skip=default_skip,
        order=8,
    ),
    Analysis(
        name="exact:index",
        title="Exact G-EDF, ties to the lowest task index (state-space exploration)",
        citation=CITATION,
        kind="exact",
        # a narrower policy than global-edf: one fixed tie rule, so that a report never reads its
        # acceptance as a proof for G-EDF in general
        policy="global-edf:index",
        platform="identical",
        deadlines=("implicit", "constrained"),
        note="papers/baker-cirinei2007.md",
        reference=reference_index,
        explain=explain_index,
        codes=_exact_index_codes,
        one=_exact_index_one,
        budget=DEFAULT_BUDGET,
        budget_unit="explored states",
        featured=False,
        order=9,
    ),
)
