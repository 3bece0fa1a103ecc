"""Event-driven Numba kernel of the global / partitioned EDF and FP simulator; see papers/simulator.md.

Semantics (the same as the exact tests', ``rtsched.analyses.exact.exact_gedf`` and
``rtsched.analyses.exact.exact_gfp``):

* Time is integer ticks. A job of task ``i`` released at ``r`` needs ``C_i`` ticks of one
  processor before its absolute deadline ``r + D_i``. Deadlines are arbitrary: with ``D > T`` a
  task may have several pending jobs; they run one at a time in release order (FIFO within the
  task: a job becomes eligible when its predecessor completes, the usual assumption of the
  arbitrary-deadline FP and EDF analyses). Only the oldest pending job of a task (its *head*)
  competes for processors; the later ones wait in a per-task queue. With ``D <= T`` the queue is
  never used (a release finds the previous job completed, or its deadline already missed).
* At every instant the ``m`` pending jobs with the earliest absolute deadlines run (global EDF),
  or, per processor, the earliest-deadline pending job assigned to it (partitioned EDF). Under
  fixed priorities (``fixed=True``: global or partitioned FP) the task index is the priority
  (index 0 highest) in place of the deadline: the ``m`` pending jobs of the lowest indices run
  (global FP), or per processor the lowest-index pending job assigned to it (partitioned FP);
  priorities are distinct, so tie rules and tie choices never apply. Ties
  between equal absolute deadlines follow the tie rule (papers/simulator.md): ``TIES_INDEX``
  (lowest task index), ``TIES_FIFO`` (earlier release first, then lowest index) or
  ``TIES_RANDOM`` (a priority drawn for each job at its release from its own seeded generator,
  then lowest index). Explicit *tie choices* override the rule for one tick: at a listed time
  ``t`` the listed tasks win every tie they take part in during ``[t, t + 1)`` (how the exact
  test's counterexamples are replayed).
* At an instant ``t`` the simulator first retires jobs that completed at ``t``, then checks
  deadlines (a job with ``r + D <= t`` still pending is a miss at its deadline), then releases
  jobs at ``t``, then chooses who runs in ``[t, next event)``.
* Releases: synchronous periodic (every ``T_i`` from 0), sporadic (each inter-arrival time is
  ``T_i`` plus, with probability ``p``, an extra delay drawn uniformly in ``[1, max_extra_i]``;
  the first release is at such an extra delay from 0), or an explicit list of release times
  per task (how the exact test's counterexamples are replayed).
* Execution: every job runs for ``C_i`` (WCET), or (``random_exec``) for a demand drawn at its
  release, uniform in ``[1, C_i]`` (``1 + floor(u·C_i)`` from one double ``u`` of the execution
  stream; one draw per release, in release order: by time, then task index). A job queued
  behind its task's head keeps the demand drawn at its release.

Random numbers: the three streams (sporadic arrivals, random tie priorities, random demands) are
NumPy's PCG64 generator reimplemented here (:func:`pcg64_double`, the same doubles as
``numpy.random.Generator(PCG64).random()``: tests/test_sim_random_execution.py checks it), its
128-bit state passed as a ``uint64[4]`` array (state high, state low, increment high, increment
low) and advanced in place. A ``Generator`` argument would cost a Numba call about 10 µs to
unbox (three ``ctypes.cast`` per generator, papers/simulator.md "Performance"); a state array
costs what any array does.

The kernel is event-driven: between two events (release, completion, deadline of the pending job
with the earliest deadline, the next probe time) nothing changes, so it jumps from one to the next.
A head's deadline is earlier than those of the jobs queued behind it, so the earliest pending
deadline is a head's. With a probe period ``P > 0`` the run also stops at the first multiple of
``P`` at which no job is pending (status ``REPEATS``: from there a synchronous periodic schedule
repeats the one from 0; see papers/simulator.md). Pending jobs are
kept in an array sorted by (key, tie priority, task index), the key being the absolute deadline
(EDF) or the task index (FP); the running set is its prefix
(global) or the first job of each processor (partitioned). With ``record=False`` the kernel only
counts jobs and finds the first miss (the fast path); with ``record=True`` it also logs releases,
execution segments per processor, preemptions, migrations and tie decisions into caller-sized
arrays.
"""

from __future__ import annotations

import numpy as np

from rtsched.kernels import kernel

__all__ = [
    "ARRIVALS_EXPLICIT",
    "ARRIVALS_PERIODIC",
    "ARRIVALS_SPORADIC",
    "NO_MISS",
    "OVERFLOW",
    "REPEATS",
    "TIES_FIFO",
    "TIES_INDEX",
    "TIES_RANDOM",
    "ROW_C",
    "ROW_D",
    "ROW_EXTRA",
    "ROW_PARTITION",
    "ROW_T",
    "fast_batch",
    "fast_kernel",
    "fast_packed",
    "pcg64_double",
    "pcg64_seed",
    "queue_cap",
    "seed_states",
    "simulate_kernel",
    "work_size",
]

ARRIVALS_PERIODIC = 0
ARRIVALS_SPORADIC = 1
ARRIVALS_EXPLICIT = 2

TIES_INDEX = 0
TIES_FIFO = 1
TIES_RANDOM = 2

#: ``status`` values returned by the kernel.
NO_MISS = 0
MISS = 1
#: A trace array ran out of room; the caller enlarges it and runs again (same seed, same run).
OVERFLOW = 2
#: No job pending at a multiple of the probe period (no miss before): the run stopped there.
REPEATS = 3

_NEVER = np.int64(2**62)

# PCG64 (XSL-RR 128/64, NumPy's ``PCG64``): the 128-bit LCG multiplier, high and low words
_PCG_MUL_HI = np.uint64(0x2360ED051FC65DA4)
_PCG_MUL_LO = np.uint64(0x4385DF649FCCF645)
_LOW32 = np.uint64(0xFFFFFFFF)
_U32 = np.uint64(32)
_U64 = np.uint64(64)
_U63 = np.uint64(63)
_U58 = np.uint64(58)
_U11 = np.uint64(11)
_U1 = np.uint64(1)
_U0 = np.uint64(0)
_TWO_M53 = 1.0 / 9007199254740992.0


@kernel(counted=False)
def _mulhi64(a, b):
    """The high 64 bits of the 128-bit product of the ``uint64`` values ``a`` and ``b`` (32-bit limbs)."""
    a_lo = a & _LOW32
    a_hi = a >> _U32
    b_lo = b & _LOW32
    b_hi = b >> _U32
    lo_lo = a_lo * b_lo
    hi_lo = a_hi * b_lo
    lo_hi = a_lo * b_hi
    cross = (lo_lo >> _U32) + (hi_lo & _LOW32) + lo_hi
    return (hi_lo >> _U32) + (cross >> _U32) + a_hi * b_hi


@kernel(counted=False)
def pcg64_double(state):
    """The next double in ``[0, 1)`` of the PCG64 stream ``state`` (``uint64[4]``, advanced in place).

    NumPy's ``PCG64.random_raw``: the 128-bit LCG step ``s = s·M + inc (mod 2**128)``, then the
    XSL-RR output ``rotr64(hi(s) ^ lo(s), s >> 122)``; ``random()`` keeps its top 53 bits,
    ``(x >> 11) · 2**-53`` (numpy/random/src/pcg64/pcg64.h). ``state`` is (state high, state
    low, increment high, increment low); :func:`rtsched.sim.run.pcg64_state` makes it.
    """
    hi = state[0]
    lo = state[1]
    new_lo = lo * _PCG_MUL_LO
    new_hi = hi * _PCG_MUL_LO + lo * _PCG_MUL_HI + _mulhi64(lo, _PCG_MUL_LO)
    lo2 = new_lo + state[3]
    carry = _U1 if lo2 < new_lo else _U0
    hi2 = new_hi + state[2] + carry
    state[0] = hi2
    state[1] = lo2
    x = hi2 ^ lo2
    rot = hi2 >> _U58
    out = (x >> rot) | (x << ((_U64 - rot) & _U63))
    return np.float64(out >> _U11) * _TWO_M53


@kernel(counted=False, inline="always")
def _demand(i, C, random_exec, exec_rng):
    """The execution demand of a job of task ``i`` released now: ``C_i``, or uniform in ``[1, C_i]``."""
    if not random_exec:
        return C[i]
    c = 1 + np.int64(pcg64_double(exec_rng) * C[i])
    return c if c < C[i] else C[i]  # u < 1, so floor(u·C) < C; kept as a guard


@kernel(counted=False)
def _next_release(i, t, T, mode, rng, p_delay, max_extra, rel_times, rel_next, rel_end):
    """Time of task ``i``'s release after one at ``t`` (``_NEVER`` when there is none)."""
    if mode == 0:
        return t + T[i]
    if mode == 1:
        gap = T[i]
        if max_extra[i] > 0 and pcg64_double(rng) < p_delay:
            # uniform in [1, max_extra] from one double (floor(u·k) < k); the fast kernel
            # draws the same way, so a seed gives the same run with or without a trace
            gap += 1 + np.int64(pcg64_double(rng) * max_extra[i])
        return t + gap
    j = rel_next[i]
    if j < rel_end[i]:
        rel_next[i] = j + 1
        return rel_times[j]
    return _NEVER


@kernel(counted=False, inline="always")
def _tie_priority(t, tie_rule, tie_rng):
    """Tie priority of a job released at ``t`` (smaller first; equal priorities: lowest index)."""
    if tie_rule == TIES_FIFO:
        return t
    if tie_rule == TIES_RANDOM:
        return np.int64(pcg64_double(tie_rng) * 9007199254740992.0)  # 2**53 equally likely values
    return np.int64(0)


@kernel(counted=False, inline="always")
def _before(a, b, key, prio):
    """True if task ``a``'s job precedes task ``b``'s.

    The order is by key (deadline, or fixed priority), then tie priority, then index.
    """
    if key[a] != key[b]:
        return key[a] < key[b]
    if prio[a] != prio[b]:
        return prio[a] < prio[b]
    return a < b


@kernel(counted=False, inline="always")
def _insert(order, k, i, dl, prio):
    """Insert task ``i`` into the sorted ``order[:k]``."""
    j = k
    while j > 0 and _before(i, order[j - 1], dl, prio):
        order[j] = order[j - 1]
        j -= 1
    order[j] = i


@kernel(counted=False)
def _resort(order, k, dl, prio):
    """Sort ``order[:k]`` again after tie priorities changed (insertion sort: k is small)."""
    for a in range(1, k):
        _insert(order, a, order[a], dl, prio)


@kernel(counted=False)
def _enqueue(i, t, p, c, qrel, qprio, qdem, qhead, qlen):
    """Queue a job of task ``i`` released at ``t`` with tie priority ``p`` and demand ``c`` behind its pending ones."""
    cap = qrel.shape[1]
    slot = (qhead[i] + qlen[i]) % cap
    qrel[i, slot] = t
    qprio[i, slot] = p
    qdem[i, slot] = c
    qlen[i] += 1


@kernel(counted=False)
def _promote(order, k, D, key, dl, rem, prio, base, qrel, qprio, qdem, qhead, qlen, head_no, cpu_last):
    """Make the oldest queued job of each task whose head completed its new head; return the new ``k``.

    Called after ``_advance`` only when some job is queued (``D > T``). A task whose head
    completed has ``rem == 0``; its next job (FIFO within the task) enters ``order`` with the
    deadline, tie priority and demand it got at its release.
    """
    n = D.shape[0]
    cap = qrel.shape[1]
    for i in range(n):
        if qlen[i] > 0 and rem[i] == 0:
            h = qhead[i]
            dl[i] = qrel[i, h] + D[i]
            base[i] = qprio[i, h]
            prio[i] = base[i]
            rem[i] = qdem[i, h]
            qhead[i] = (h + 1) % cap
            qlen[i] -= 1
            head_no[i] += 1
            cpu_last[i] = -1
            _insert(order, k, i, key, prio)
            k += 1
    return k


@kernel
def _queues(D, T):
    """Empty per-task FIFO queues ``(release, tie priority, demand, head, length)`` for the jobs behind a head.

    A task has at most ``ceil(D_i / T_i)`` pending jobs before one misses its deadline (their
    releases are ``T_i`` apart and all lie in the window ``(t - D_i, t]`` of the pending oldest
    one's deadline), so each queue holds ``max_i ceil(D_i / T_i)`` entries (at least 1).
    """
    n = D.shape[0]
    cap = 1
    for i in range(n):
        c = (D[i] + T[i] - 1) // T[i]
        if c > cap:
            cap = c
    qrel = np.zeros((n, cap), dtype=np.int64)
    qprio = np.zeros((n, cap), dtype=np.int64)
    qdem = np.zeros((n, cap), dtype=np.int64)
    return qrel, qprio, qdem, np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64)


@kernel
def _log_row(log, counts, slot, a, b, c, d, e):
    """Append a row to ``log``, whose row count is ``counts[slot]``; False if the log is full.

    The row is ``(a, b, c, d)``, or ``(a, b, c, d, e)`` in a log of five columns.
    """
    r = counts[slot]
    if r >= log.shape[0]:
        return False
    log[r, 0] = a
    log[r, 1] = b
    log[r, 2] = c
    log[r, 3] = d
    if log.shape[1] > 4:
        log[r, 4] = e
    counts[slot] = r + 1
    return True


@kernel(counted=False)
def _apply_tie_choices(
    t, order, k, dl, prio, base, c_next, choice_times, choice_offsets, choice_tasks, winner, overriding
):
    """At ``t``: apply the explicit tie choice listed for ``t``, or end the one of the last tick.

    Returns ``(c_next, overriding)``: the next choice to apply and whether one is in force
    during ``[t, t + 1)`` (the caller then makes ``t + 1`` an event).
    """
    if c_next < choice_times.shape[0] and choice_times[c_next] == t:
        for q in range(choice_offsets[c_next], choice_offsets[c_next + 1]):
            winner[choice_tasks[q]] = True
        for j in range(k):
            i = order[j]
            prio[i] = -1 if winner[i] else base[i]
        for q in range(choice_offsets[c_next], choice_offsets[c_next + 1]):
            winner[choice_tasks[q]] = False
        _resort(order, k, dl, prio)
        return c_next + 1, True
    if overriding:
        for j in range(k):
            prio[order[j]] = base[order[j]]
        _resort(order, k, dl, prio)
    return c_next, False


@kernel(counted=False)
def _first_missed(order, k, dl, d):
    """Among the pending jobs with the earliest deadline ``d``, the lowest task index (the reported miss)."""
    best = -1
    for j in range(k):
        i = order[j]
        if dl[i] == d and (best < 0 or i < best):
            best = i
    return best


@kernel(counted=False, inline="always")
def _earliest_deadline(order, k, dl, fixed):
    """The earliest absolute deadline of the ``k > 0`` pending jobs.

    The first one's under EDF (sorted by deadline), a scan under FP (sorted by priority).
    """
    if not fixed:
        return dl[order[0]]
    d = dl[order[0]]
    for j in range(1, k):
        if dl[order[j]] < d:
            d = dl[order[j]]
    return d


@kernel(inline="always")  # in the hot loop of fast_kernel: a call measured 20 % slower
def _dispatch_partitioned(t, t_next, order, k, partition, rem, taken, running):
    """Dispatch the ``k`` pending jobs of a partitioned policy at ``t``; return the next event time.

    On each processor the first of its pending jobs in ``order`` runs (``running``), the others
    wait; ``taken`` (one flag per processor) is scratch. Returns ``t_next`` lowered to the
    earliest completion of a running job. Shared by the recording and the fast kernel.
    """
    for p in range(taken.shape[0]):
        taken[p] = False
    for j in range(k):
        i = order[j]
        p = partition[i]
        running[i] = not taken[p]
        if running[i]:
            taken[p] = True
            if t + rem[i] < t_next:
                t_next = t + rem[i]
    return t_next


@kernel(inline="always")  # in the hot loop of fast_kernel, as _dispatch_partitioned
def _advance(order, k, running, rem, delta):
    """Run the running jobs among the ``k`` pending ones for ``delta`` ticks; return how many stay pending.

    A job that completes (no work left) stops running and leaves ``order``, whose first entries
    keep the others in their order. Shared by the recording kernel (every policy) and the fast
    kernel (partitioned policies; its global one keeps the running jobs as a prefix instead).
    """
    j_out = 0
    for j in range(k):
        i = order[j]
        if running[i]:
            rem[i] -= delta
            if rem[i] == 0:
                running[i] = False
                continue
        order[j_out] = i
        j_out += 1
    return j_out


@kernel
def simulate_kernel(  # one flat kernel is what makes it fast
    C,
    D,
    T,
    m,
    partition,
    fixed,
    mode,
    rng,
    p_delay,
    max_extra,
    rel_times,
    rel_offsets,
    horizon,
    tie_rule,
    tie_rng,
    choice_times,
    choice_offsets,
    choice_tasks,
    probe,
    random_exec,
    exec_rng,
    record,
    release_log,
    segment_log,
    preempt_log,
    migrate_log,
    tie_log,
    counts,
):
    """Simulate one task set; return ``(status, jobs, miss_time, miss_task, end_time)``.

    ``status`` is ``NO_MISS``, ``MISS``, ``OVERFLOW`` or ``REPEATS`` (see ``probe``).

    Parameters
    ----------
    C, D, T : int64[n]
        The tasks.
    m : int
        Number of processors.
    partition : int64[n]
        Processor of each task (partitioned), or all ``-1`` (global).
    fixed : bool
        Fixed priorities (the task index; FP) instead of absolute deadlines (EDF).
    mode : int
        ``ARRIVALS_PERIODIC``, ``ARRIVALS_SPORADIC`` or ``ARRIVALS_EXPLICIT``.
    rng : uint64[4]
        PCG64 state of the sporadic arrivals (:func:`pcg64_double`; advanced in place).
    p_delay, max_extra : float, int64[n]
        Sporadic law: extra delay with probability ``p_delay``, uniform in ``[1, max_extra_i]``.
    rel_times, rel_offsets : int64[k], int64[n + 1]
        Explicit releases: task ``i``'s sorted release times are
        ``rel_times[rel_offsets[i]:rel_offsets[i + 1]]`` (gaps must be at least ``T_i``).
    horizon : int
        Jobs are released at ``t < horizon``; deadlines ``<= horizon`` are checked.
    tie_rule : int
        ``TIES_INDEX``, ``TIES_FIFO`` or ``TIES_RANDOM``.
    tie_rng : uint64[4]
        PCG64 state of the job priorities of ``TIES_RANDOM`` (its own stream: the arrivals do not change).
    choice_times, choice_offsets, choice_tasks : int64[c], int64[c + 1], int64[...]
        Explicit tie choices: at the strictly increasing times ``choice_times[c]``, the tasks
        ``choice_tasks[choice_offsets[c]:choice_offsets[c + 1]]`` win their ties for one tick.
    probe : int
        Probe period ``P`` (0: none): at every multiple of ``P`` (after the completions and the
        deadline check, before the releases) the run stops with status ``REPEATS`` if no job is
        pending (how periodic runs of arbitrary-deadline sets detect that the schedule repeats).
    random_exec, exec_rng : bool, uint64[4]
        Random execution: each job's demand is drawn at its release, uniform in ``[1, C_i]``
        (``_demand``), from the PCG64 state ``exec_rng``; otherwise every job needs ``C_i``.
    record : bool
        Log the trace into the five ``*_log`` arrays (rows: see :mod:`rtsched.sim.trace`; the
        release log has a fifth column, the job's demand); ``counts`` receives the number of
        rows written to each.
    """
    n = C.shape[0]
    global_policy = partition[0] < 0
    rem = np.zeros(n, dtype=np.int64)  # remaining execution of the pending job (0: none)
    dl = np.zeros(n, dtype=np.int64)  # its absolute deadline
    # the sort key: the deadline itself (EDF; the same array) or the fixed priority (FP)
    key = np.arange(n) if fixed else dl
    prio = np.zeros(n, dtype=np.int64)  # its tie priority now
    base = np.zeros(n, dtype=np.int64)  # its tie priority under the tie rule
    winner = np.zeros(n, dtype=np.bool_)
    nr = np.zeros(n, dtype=np.int64)  # next release time
    order = np.empty(n, dtype=np.int64)  # pending tasks sorted by (key, tie priority, index)
    running = np.zeros(n, dtype=np.bool_)
    taken = np.zeros(m, dtype=np.bool_)
    rel_next = rel_offsets[:-1].copy()
    rel_end = rel_offsets[1:].copy()
    # trace state
    cpu_now = np.full(n, -1, dtype=np.int64)  # processor the task's job runs on now
    cpu_last = np.full(n, -1, dtype=np.int64)  # processor the current job last ran on
    seg_start = np.zeros(n, dtype=np.int64)
    job_no = np.zeros(n, dtype=np.int64)
    cpu_free = np.ones(m, dtype=np.bool_)
    tie_state = np.zeros(n, dtype=np.int64)  # 1: won a tie at the last dispatch, 2: lost one
    tie_now = np.zeros(n, dtype=np.int64)
    tie_job = np.full(n, -1, dtype=np.int64)
    top_task = np.full(m, -1, dtype=np.int64)
    counts[:] = 0
    # jobs queued behind the head of their task (D > T), FIFO; head_no: head's job index + 1
    qrel, qprio, qdem, qhead, qlen = _queues(D, T)
    head_no = np.zeros(n, dtype=np.int64)
    queued = 0
    next_probe = probe if probe > 0 else _NEVER

    for i in range(n):
        if mode == 0:
            nr[i] = 0
        elif mode == 1:
            nr[i] = _next_release(i, -T[i], T, mode, rng, p_delay, max_extra, rel_times, rel_next, rel_end)
        else:
            nr[i] = _next_release(i, 0, T, mode, rng, p_delay, max_extra, rel_times, rel_next, rel_end)

    next_rel = _NEVER
    for i in range(n):
        if nr[i] < next_rel:
            next_rel = nr[i]
    k = 0  # number of pending jobs
    jobs = 0
    t = 0
    c_next = 0
    overriding = False
    status = NO_MISS
    miss_time = -1
    miss_task = -1
    while True:
        # -- releases at t (nr changes only here, so its minimum is cached) ------------------
        if t < horizon and t == next_rel:
            next_rel = _NEVER
            for i in range(n):
                if nr[i] == t:
                    c = _demand(i, C, random_exec, exec_rng)
                    if rem[i] > 0:  # its previous job is still pending (D > T): queue this one
                        _enqueue(i, t, _tie_priority(t, tie_rule, tie_rng), c, qrel, qprio, qdem, qhead, qlen)
                        queued += 1
                    else:
                        rem[i] = c
                        dl[i] = t + D[i]
                        base[i] = _tie_priority(t, tie_rule, tie_rng)
                        prio[i] = base[i]
                        cpu_last[i] = -1
                        _insert(order, k, i, key, prio)
                        k += 1
                        head_no[i] = job_no[i] + 1
                    jobs += 1
                    job_no[i] += 1
                    if record:
                        if not _log_row(release_log, counts, 0, i, job_no[i] - 1, t, t + D[i], c):
                            status = OVERFLOW
                            break
                    nr[i] = _next_release(i, t, T, mode, rng, p_delay, max_extra, rel_times, rel_next, rel_end)
                if nr[i] < next_rel:
                    next_rel = nr[i]
            if status == OVERFLOW:
                break
        c_next, overriding = _apply_tie_choices(
            t, order, k, key, prio, base, c_next, choice_times, choice_offsets, choice_tasks, winner, overriding
        )
        # -- who runs in [t, next event) ------------------------------------------------------
        t_next = horizon if horizon > t else t
        if k > 0:
            earliest = _earliest_deadline(order, k, dl, fixed)
            if earliest < t_next:
                t_next = earliest
        if overriding and t + 1 < t_next:
            t_next = t + 1
        if c_next < choice_times.shape[0] and choice_times[c_next] < t_next:
            t_next = choice_times[c_next]
        if next_probe < t_next:
            t_next = next_probe
        if global_policy:
            top = k if k < m else m
            for j in range(top):
                i = order[j]
                running[i] = True
                if t + rem[i] < t_next:
                    t_next = t + rem[i]
            for j in range(top, k):
                running[order[j]] = False
        else:
            t_next = _dispatch_partitioned(t, t_next, order, k, partition, rem, taken, running)
        if next_rel < t_next:
            t_next = next_rel
        if record:
            ok = _record_dispatch(
                t,
                n,
                m,
                rem,
                running,
                partition,
                global_policy,
                cpu_now,
                cpu_last,
                seg_start,
                head_no,
                cpu_free,
                segment_log,
                preempt_log,
                migrate_log,
                counts,
            )
            if ok:
                ok = _record_ties(
                    t,
                    m,
                    k,
                    order,
                    key,
                    running,
                    partition,
                    global_policy,
                    head_no,
                    tie_state,
                    tie_now,
                    tie_job,
                    top_task,
                    tie_log,
                    counts,
                )
            if not ok:
                status = OVERFLOW
                break
        # -- advance to t_next ----------------------------------------------------------------
        delta = t_next - t
        if record:  # the jobs that complete at t_next end their segments there
            for j in range(k):
                i = order[j]
                if running[i] and rem[i] == delta:
                    if not _close_segment(i, t_next, cpu_now, seg_start, head_no, cpu_free, segment_log, counts):
                        status = OVERFLOW
                        break
            if status == OVERFLOW:
                break
        k = _advance(order, k, running, rem, delta)
        if queued > 0:  # the next job of a task whose head completed becomes its head
            k_before = k
            k = _promote(order, k, D, key, dl, rem, prio, base, qrel, qprio, qdem, qhead, qlen, head_no, cpu_last)
            queued -= k - k_before
        t = t_next
        # -- deadline check: the pending job with the earliest deadline -----------------------
        if k > 0:
            earliest = _earliest_deadline(order, k, dl, fixed)
            if earliest <= t:
                status = MISS
                miss_time = earliest
                miss_task = _first_missed(order, k, dl, earliest)
                break
        if t == next_probe:
            if k == 0:
                status = REPEATS
                break
            next_probe += probe
        if t >= horizon:
            break
    if record and status != OVERFLOW:
        for i in range(n):
            if cpu_now[i] >= 0:
                if not _close_segment(i, t, cpu_now, seg_start, head_no, cpu_free, segment_log, counts):
                    status = OVERFLOW
                    break
    return status, jobs, miss_time, miss_task, t


@kernel
def _close_segment(i, t, cpu_now, seg_start, job_no, cpu_free, segment_log, counts):
    """End task ``i``'s running segment at ``t``; False if the log is full."""
    p = cpu_now[i]
    if p < 0:
        return True
    if t > seg_start[i] and not _log_row(segment_log, counts, 1, p, i, job_no[i] - 1, seg_start[i], t):
        return False
    cpu_now[i] = -1
    cpu_free[p] = True
    return True


@kernel
def _record_ties(
    t,
    m,
    k,
    order,
    dl,
    running,
    partition,
    global_policy,
    job_no,
    tie_state,
    tie_now,
    tie_job,
    top_task,
    tie_log,
    counts,
):
    """Log the tie decisions of the dispatch at ``t``; False if the log is full.

    A tie is decided when a running job and a waiting one have the same deadline and compete
    for the same processors (all of them under G-EDF, one under P-EDF). ``dl`` is the sort key:
    under fixed priorities the keys are distinct and no tie is ever logged. Each decision is logged
    as one row per job involved, ``(time, task, job, won)``, when it differs from the decision of
    the previous dispatch (a tie that persists across events is logged once).
    """
    tie_now[:] = 0
    if global_policy:
        if k > m and dl[order[m - 1]] == dl[order[m]]:
            boundary = dl[order[m - 1]]
            for j in range(k):
                i = order[j]
                if dl[i] == boundary:
                    tie_now[i] = 1 if running[i] else 2
    else:
        for p in range(m):
            top_task[p] = -1
        for j in range(k):
            i = order[j]
            if running[i]:
                top_task[partition[i]] = i
        for j in range(k):
            i = order[j]
            top = top_task[partition[i]]
            if not running[i] and top >= 0 and dl[i] == dl[top]:
                tie_now[i] = 2
                tie_now[top] = 1
    changed = False
    any_tie = False
    n = tie_state.shape[0]
    for i in range(n):
        now = tie_now[i]
        if now != 0:
            any_tie = True
        if now != tie_state[i] or (now != 0 and tie_job[i] != job_no[i]):
            changed = True
    if changed and any_tie:
        for i in range(n):
            won = 1 if tie_now[i] == 1 else 0
            if tie_now[i] != 0 and not _log_row(tie_log, counts, 4, t, i, job_no[i] - 1, won, 0):
                return False
    for i in range(n):
        tie_state[i] = tie_now[i]
        tie_job[i] = job_no[i]
    return True


@kernel
def _record_dispatch(
    t,
    n,
    m,
    rem,
    running,
    partition,
    global_policy,
    cpu_now,
    cpu_last,
    seg_start,
    job_no,
    cpu_free,
    segment_log,
    preempt_log,
    migrate_log,
    counts,
):
    """Give processors to the running jobs and log preemptions and migrations at ``t``.

    A job that keeps running keeps its processor; a job that starts takes its last processor if
    free, else the lowest free one (global), or its own (partitioned). False if a log is full.
    """
    # stop the jobs that lose their processor (preempted)
    for i in range(n):
        if cpu_now[i] >= 0 and not running[i]:
            p = cpu_now[i]
            if not _close_segment(i, t, cpu_now, seg_start, job_no, cpu_free, segment_log, counts):
                return False
            if rem[i] > 0 and not _log_row(preempt_log, counts, 2, t, i, job_no[i] - 1, p, 0):
                return False
    # start the jobs that gain one, lowest task index first
    for i in range(n):
        if running[i] and cpu_now[i] < 0:
            if global_policy:
                p = -1
                if cpu_last[i] >= 0 and cpu_free[cpu_last[i]]:
                    p = cpu_last[i]  # resume where it was, when possible (no needless migration)
                else:
                    for q in range(m):
                        if cpu_free[q]:
                            p = q
                            break
            else:
                p = partition[i]
            cpu_free[p] = False
            cpu_now[i] = p
            seg_start[i] = t
            moved = cpu_last[i] >= 0 and cpu_last[i] != p
            if moved and not _log_row(migrate_log, counts, 3, t, i, job_no[i] - 1, cpu_last[i], p):
                return False
            cpu_last[i] = p
    return True


@kernel(counted=False)
def queue_cap(D, T):
    """Length of each task's queue of jobs behind its head: ``max_i ceil(D_i / T_i)``, at least 1 (as ``_queues``)."""
    cap = 1
    for i in range(D.shape[0]):
        c = (D[i] + T[i] - 1) // T[i]
        if c > cap:
            cap = c
    return cap


@kernel(counted=False)
def work_size(n, m, cap):
    """Length of the ``int64`` scratch array of ``_fast_run`` for ``n`` tasks, ``m`` processors, queues of ``cap``."""
    return 15 * n + m + 3 * n * cap


@kernel
def fast_kernel(
    C,
    D,
    T,
    m,
    partition,
    fixed,
    mode,
    rng,
    p_delay,
    max_extra,
    rel_times,
    rel_offsets,
    horizon,
    tie_rule,
    tie_rng,
    choice_times,
    choice_offsets,
    choice_tasks,
    probe,
    random_exec,
    exec_rng,
):
    """The fast path of :func:`simulate_kernel` (same semantics, same return value, no trace).

    Kept separate so that the hot loop carries no trace bookkeeping: the running set is the
    prefix of ``order`` (global) or one flag per processor (partitioned). It draws the same
    random numbers in the same order, so a seed gives the same run as the recording kernel.
    The loop is ``_fast_run``; this allocates its scratch array.
    """
    cap = queue_cap(D, T)
    work = np.zeros(work_size(C.shape[0], m, cap), dtype=np.int64)
    return _fast_run(
        C,
        D,
        T,
        m,
        partition,
        fixed,
        mode,
        rng,
        p_delay,
        max_extra,
        rel_times,
        rel_offsets,
        horizon,
        tie_rule,
        tie_rng,
        choice_times,
        choice_offsets,
        choice_tasks,
        probe,
        random_exec,
        exec_rng,
        work,
        cap,
    )


@kernel(counted=False)
def _fast_run(
    C,
    D,
    T,
    m,
    partition,
    fixed,
    mode,
    rng,
    p_delay,
    max_extra,
    rel_times,
    rel_offsets,
    horizon,
    tie_rule,
    tie_rng,
    choice_times,
    choice_offsets,
    choice_tasks,
    probe,
    random_exec,
    exec_rng,
    work,
    cap,
):
    """The body of :func:`fast_kernel`, its scratch arrays carved out of ``work``; no reference counting.

    ``work`` is ``int64``, all zeros, at least :func:`work_size` ``(n, m, cap)`` long, ``cap``
    the queue length of :func:`queue_cap`. Every array it touches is owned by the caller and it
    allocates nothing, so it runs without Numba's reference counting (``counted=False``, see
    :func:`rtsched.kernels.kernel`): the counts of the arrays passed to the helpers of the hot
    loop were a large share of a short run, and the ~20 allocations of the scratch arrays
    another (papers/simulator.md, "Performance"). The flags (``winner``, ``running``,
    ``taken``) are 0/1 integers here, booleans in the recording kernel.
    """
    n = C.shape[0]
    global_policy = partition[0] < 0
    rem = work[0:n]
    dl = work[n : 2 * n]
    prio = work[2 * n : 3 * n]
    base = work[3 * n : 4 * n]
    winner = work[4 * n : 5 * n]
    nr = work[5 * n : 6 * n]
    order = work[6 * n : 7 * n]
    running = work[7 * n : 8 * n]
    rel_next = work[8 * n : 9 * n]
    rel_end = work[9 * n : 10 * n]
    qhead = work[10 * n : 11 * n]
    qlen = work[11 * n : 12 * n]
    head_no = work[12 * n : 13 * n]  # unused without a trace (_promote's signature)
    cpu_last = work[13 * n : 14 * n]
    key = work[14 * n : 15 * n] if fixed else dl  # EDF: the deadline (the same array); FP: the index
    if fixed:
        for i in range(n):
            key[i] = i
    q = 15 * n
    taken = work[q : q + m]
    q += m
    qrel = work[q : q + n * cap].reshape((n, cap))
    q += n * cap
    qprio = work[q : q + n * cap].reshape((n, cap))
    q += n * cap
    qdem = work[q : q + n * cap].reshape((n, cap))
    for i in range(n):
        rel_next[i] = rel_offsets[i]
        rel_end[i] = rel_offsets[i + 1]
    queued = 0
    next_probe = probe if probe > 0 else _NEVER
    next_rel = _NEVER
    for i in range(n):
        if mode == 1:
            nr[i] = _next_release(i, -T[i], T, mode, rng, p_delay, max_extra, rel_times, rel_next, rel_end)
        elif mode == 2:
            nr[i] = _next_release(i, 0, T, mode, rng, p_delay, max_extra, rel_times, rel_next, rel_end)
        if nr[i] < next_rel:
            next_rel = nr[i]
    k = 0
    jobs = 0
    t = 0
    c_next = 0
    overriding = False
    n_choices = choice_times.shape[0]
    while True:
        if t == next_rel and t < horizon:
            next_rel = _NEVER
            for i in range(n):
                if nr[i] == t:
                    c = _demand(i, C, random_exec, exec_rng)
                    if rem[i] > 0:  # previous job still pending (D > T): queue this one
                        _enqueue(i, t, _tie_priority(t, tie_rule, tie_rng), c, qrel, qprio, qdem, qhead, qlen)
                        queued += 1
                    else:
                        rem[i] = c
                        dl[i] = t + D[i]
                        base[i] = _tie_priority(t, tie_rule, tie_rng)
                        prio[i] = base[i]
                        _insert(order, k, i, key, prio)
                        k += 1
                    jobs += 1
                    if mode == 0:
                        nr[i] = t + T[i]
                    elif mode == 1:
                        gap = T[i]
                        if max_extra[i] > 0 and pcg64_double(rng) < p_delay:
                            gap += 1 + np.int64(pcg64_double(rng) * max_extra[i])
                        nr[i] = t + gap
                    else:
                        nr[i] = _next_release(i, t, T, mode, rng, p_delay, max_extra, rel_times, rel_next, rel_end)
                if nr[i] < next_rel:
                    next_rel = nr[i]
        t_next = horizon if horizon > t else t
        if n_choices > 0 or overriding:
            c_next, overriding = _apply_tie_choices(
                t, order, k, key, prio, base, c_next, choice_times, choice_offsets, choice_tasks, winner, overriding
            )
            if overriding and t + 1 < t_next:
                t_next = t + 1
            if c_next < n_choices and choice_times[c_next] < t_next:
                t_next = choice_times[c_next]
        if next_rel < t_next:
            t_next = next_rel
        if next_probe < t_next:
            t_next = next_probe
        if k > 0:
            earliest = _earliest_deadline(order, k, dl, fixed)
            if earliest < t_next:
                t_next = earliest
        if global_policy:
            top = k if k < m else m
            for j in range(top):
                end = t + rem[order[j]]
                if end < t_next:
                    t_next = end
            delta = t_next - t
            removed = 0  # completed jobs leave the prefix; the tail moves only if one did
            for j in range(top):
                i = order[j]
                rem[i] -= delta
                if rem[i] == 0:
                    removed += 1
                else:
                    order[j - removed] = i
            if removed:
                for j in range(top, k):
                    order[j - removed] = order[j]
            j_out = k - removed
        else:
            t_next = _dispatch_partitioned(t, t_next, order, k, partition, rem, taken, running)
            j_out = _advance(order, k, running, rem, t_next - t)
        k = j_out
        if queued > 0:
            k = _promote(order, k, D, key, dl, rem, prio, base, qrel, qprio, qdem, qhead, qlen, head_no, cpu_last)
            queued = 0
            for i in range(n):
                queued += qlen[i]
        t = t_next
        if k > 0:
            earliest = _earliest_deadline(order, k, dl, fixed)
            if earliest <= t:
                return MISS, jobs, earliest, _first_missed(order, k, dl, earliest), t
        if t == next_probe:
            if k == 0:
                return REPEATS, jobs, -1, -1, t
            next_probe += probe
        if t >= horizon:
            return NO_MISS, jobs, -1, -1, t


#: Rows of the task matrix of :func:`fast_packed` and :func:`fast_batch` (``int64[5, n]``).
ROW_C, ROW_D, ROW_T, ROW_EXTRA, ROW_PARTITION = 0, 1, 2, 3, 4


@kernel
def fast_packed(tasks, m, fixed, mode, horizon, tie_rule, probe, random_exec, p_delay, states, aux, n_rel, n_choices):
    """:func:`fast_kernel` with its arrays packed into three (papers/simulator.md, "Performance").

    Numba's dispatcher unboxes every array argument of a call from Python (~0.2 µs each); a
    short run paid for thirteen. Here ``tasks`` is ``int64[5, n]`` (rows :data:`ROW_C`,
    ``ROW_D``, ``ROW_T``, ``ROW_EXTRA``: the sporadic ``max_extra``, ``ROW_PARTITION``: the
    processor of each task, or ``-1`` under a global policy), ``states`` is ``uint64[3, 4]`` (the
    PCG64 states of the arrivals, the tie priorities and the demands, advanced in place) and
    ``aux`` holds the explicit releases and tie choices one after the other: ``rel_times``
    (``n_rel`` values), ``rel_offsets`` (``n + 1``), ``choice_times`` (``n_choices``),
    ``choice_offsets`` (``n_choices + 1``) and ``choice_tasks`` (the rest). The views are
    passed to :func:`fast_kernel` unchanged: the same run, the same return value.
    """
    n = tasks.shape[1]
    a = n_rel + n + 1
    b = a + n_choices
    return fast_kernel(
        tasks[0],
        tasks[1],
        tasks[2],
        m,
        tasks[4],
        fixed,
        mode,
        states[0],
        p_delay,
        tasks[3],
        aux[:n_rel],
        aux[n_rel:a],
        horizon,
        tie_rule,
        states[1],
        aux[a:b],
        aux[b : b + n_choices + 1],
        aux[b + n_choices + 1 :],
        probe,
        random_exec,
        states[2],
    )


@kernel
def fast_batch(tasks, offsets, m, fixed, mode, horizons, probes, tie_rule, random_exec, p_delay, states, aux, out):
    """Run :func:`fast_kernel` on every set of a batch, one after the other, in one call from Python.

    Set ``s`` is the columns ``offsets[s]:offsets[s + 1]`` of ``tasks`` (``int64[5, N]``, rows
    as in :func:`fast_packed`), with horizon ``horizons[s]``, probe period ``probes[s]`` and the
    PCG64 states ``states[s]`` (``uint64[S, 3, 4]``); ``aux`` is ``max n + 2`` zeros (no explicit
    releases, no tie choices). ``out[s]`` receives ``(status, jobs, miss_time, miss_task,
    end_time)``: what :func:`fast_packed` returns for that set alone.
    """
    work = np.zeros(0, dtype=np.int64)
    for s in range(offsets.shape[0] - 1):
        lo = offsets[s]
        hi = offsets[s + 1]
        n = hi - lo
        cap = queue_cap(tasks[1, lo:hi], tasks[2, lo:hi])
        size = work_size(n, m, cap)
        if size > work.shape[0]:
            work = np.zeros(2 * size, dtype=np.int64)
        else:
            work[:size] = 0
        status, jobs, miss_time, miss_task, end_time = _fast_run(
            tasks[0, lo:hi],
            tasks[1, lo:hi],
            tasks[2, lo:hi],
            m,
            tasks[4, lo:hi],
            fixed,
            mode,
            states[s, 0],
            p_delay,
            tasks[3, lo:hi],
            aux[:0],
            aux[0 : n + 1],
            horizons[s],
            tie_rule,
            states[s, 1],
            aux[n + 1 : n + 1],
            aux[n + 1 : n + 2],
            aux[n + 2 : n + 2],
            probes[s],
            random_exec,
            states[s, 2],
            work,
            cap,
        )
        out[s, 0] = status
        out[s, 1] = jobs
        out[s, 2] = miss_time
        out[s, 3] = miss_task
        out[s, 4] = end_time


# NumPy's SeedSequence (numpy/random/bit_generator.pyx: hashmix, mix, mix_entropy, generate_state)
_SS_INIT_A = np.uint64(0x43B0D7E5)
_SS_MULT_A = np.uint64(0x931E8875)
_SS_INIT_B = np.uint64(0x8B51F9DD)
_SS_MULT_B = np.uint64(0x58F38DED)
_SS_MIX_L = np.uint64(0xCA01F9DD)
_SS_MIX_R = np.uint64(0x4973F715)
_U16 = np.uint64(16)
_TWO_32 = np.int64(2**32)


@kernel(counted=False, inline="always")
def _hashmix(value, hash_const):
    """SeedSequence's ``hashmix``: ``(mixed value, next hash constant)``, 32-bit words in ``uint64``."""
    value = (value ^ hash_const) & _LOW32
    hash_const = (hash_const * _SS_MULT_A) & _LOW32
    value = (value * hash_const) & _LOW32
    return value ^ (value >> _U16), hash_const


@kernel(counted=False, inline="always")
def _mix(x, y):
    """SeedSequence's ``mix`` of two 32-bit words."""
    result = (_SS_MIX_L * x - _SS_MIX_R * y) & _LOW32
    return result ^ (result >> _U16)


@kernel(counted=False, inline="always")
def _generated(value, hash_const):
    """One word of SeedSequence's ``generate_state``: ``(word, next hash constant)``."""
    value = (value ^ hash_const) & _LOW32
    hash_const = (hash_const * _SS_MULT_B) & _LOW32
    value = (value * hash_const) & _LOW32
    return value ^ (value >> _U16), hash_const


@kernel(counted=False, inline="always")
def _entropy_word(j, seed, stream):
    """Word ``j`` of the assembled entropy of ``SeedSequence(seed, spawn_key=(stream,) or ())``.

    The seed's little-endian 32-bit words; with a spawn key, padded with zeros to the pool size
    (4 words) and followed by the key's word (``0 <= stream < 2**32``).
    """
    if j == 0:
        return np.uint64(seed) & _LOW32
    if j == 1:
        return np.uint64(seed) >> _U32
    if j < 4:
        return _U0
    return np.uint64(stream)


@kernel(counted=False)
def pcg64_seed(seed, stream, out):
    """Write into ``out`` (``uint64[4]``) the kernels' PCG64 state of ``default_rng(SeedSequence(seed))``.

    With ``stream >= 0`` the seed sequence is ``SeedSequence(seed, spawn_key=(stream,))`` (the
    execution stream of :func:`rtsched.sim.run.run_rngs`). ``0 <= seed < 2**63``,
    ``-1 <= stream < 2**32``. NumPy's algorithm, step by step (numpy/random/bit_generator.pyx:
    the entropy is mixed into a pool of 4 words by ``hashmix`` and ``mix``, ``generate_state(4,
    uint64)`` hashes the pool into 8 words; numpy/random/src/pcg64/pcg64.h ``pcg64_set_seed``:
    the first two 64-bit words are the initial state, the last two the sequence, ``inc =
    2·seq + 1``, ``state = ((0·M + inc) + initial)·M + inc``); tests/test_sim_batch.py checks
    it against ``numpy.random.PCG64(SeedSequence(...)).state`` on many seeds. Seeding through
    NumPy cost a fresh seed ~11 µs (~13 µs the execution stream), longer than a short run.
    """
    length = 2 if seed >= _TWO_32 else 1
    if stream >= 0:
        length = 5
    hash_const = _SS_INIT_A
    for i in range(4):
        word = _entropy_word(i, seed, stream) if i < length else _U0
        out[i], hash_const = _hashmix(word, hash_const)
    for i_src in range(4):
        for i_dst in range(4):
            if i_src != i_dst:
                value, hash_const = _hashmix(out[i_src], hash_const)
                out[i_dst] = _mix(out[i_dst], value)
    for i_src in range(4, length):
        for i_dst in range(4):
            value, hash_const = _hashmix(_entropy_word(i_src, seed, stream), hash_const)
            out[i_dst] = _mix(out[i_dst], value)
    p0, p1, p2, p3 = out[0], out[1], out[2], out[3]
    h = _SS_INIT_B
    w0, h = _generated(p0, h)
    w1, h = _generated(p1, h)
    w2, h = _generated(p2, h)
    w3, h = _generated(p3, h)
    w4, h = _generated(p0, h)
    w5, h = _generated(p1, h)
    w6, h = _generated(p2, h)
    w7, h = _generated(p3, h)
    init_hi = w0 | (w1 << _U32)
    init_lo = w2 | (w3 << _U32)
    seq_hi = w4 | (w5 << _U32)
    seq_lo = w6 | (w7 << _U32)
    out[0] = _U0
    out[1] = _U0
    out[2] = (seq_hi << _U1) | (seq_lo >> _U63)
    out[3] = (seq_lo << _U1) | _U1
    pcg64_double(out)  # one LCG step (its output unused)
    low = out[1] + init_lo
    carry = _U1 if low < out[1] else _U0
    out[0] = out[0] + init_hi + carry
    out[1] = low
    pcg64_double(out)


@kernel(counted=False)
def seed_states(seeds, sporadic, tie_seed, random_exec, stream, out):
    """Fill ``out[s]`` (``uint64[S, 3, 4]``) with the three PCG64 states of a run of seed ``seeds[s]``.

    Row 0: the arrivals (``SeedSequence(seed)``, when ``sporadic``), row 1: the random tie
    priorities (``SeedSequence(tie_seed)``, when ``tie_seed >= 0``), row 2: the demands
    (``SeedSequence(seed, spawn_key=(stream,))``, when ``random_exec``); unused rows are left
    as they are (zeros). The states :func:`rtsched.sim.run.pcg64_state` gives, without NumPy's seeding.
    """
    for s in range(seeds.shape[0]):
        if sporadic:
            pcg64_seed(seeds[s], -1, out[s, 0])
        if tie_seed >= 0:
            pcg64_seed(tie_seed, -1, out[s, 1])
        if random_exec:
            pcg64_seed(seeds[s], stream, out[s, 2])
