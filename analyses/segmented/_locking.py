"""Lock-based GPU access (MPCP, FMLP+): the response-time analysis both protocols share (private module).

Model and run-time semantics: papers/cpu-gpu-model.md (issue #43). Every device is a mutually
exclusive resource; a job requests it for each GPU segment, waits in the device's queue (MPCP:
by base priority; FMLP+: in request order), and while it holds the device it is **boosted** on
its core (MPCP: boosted jobs ordered by base priority; FMLP+: by grant time). A busy job spins on
its core while it waits (base priority) and while ``G_e`` runs (boosted); a suspending one
suspends. Partitioned preemptive fixed priority on the cores, task order = priority.

The analysis is **rtsched's own, "after"** Patel, Baek, Kim, Rajkumar (RTAS 2018; MPCP) and
Brandenburg (ECRTS 2014; FMLP+): only the papers' abstracts could be read here, so no equation
below is the papers' own; the tags are rtsched's and the proofs are in papers/patel2018-mpcp-gpu.md
(the shared part and MPCP) and papers/brandenburg2014-fmlp-plus.md (FMLP+). Notation per task k:
core P_k, mode, GPU segments s with device d_{k,s}, G_{k,s} = G^m_{k,s} + G^e_{k,s}.

(BST)  b_{k,s} = G^m_{k,s} + [k busy]·G^e_{k,s}: the core time of k's segment s while boosted;
       β_k = Σ_s b_{k,s}; β_k^{≠d} = Σ_{s: d_{k,s} ≠ d} b_{k,s}.
(H-MPCP) H_{k,s} = least fixed point of
       H = G_{k,s} + Σ_{h<k, P_h=P_k} ⌈(H + max(0, D_h − β_h^{≠d}))/T_h⌉ · β_h^{≠d}     (d = d_{k,s})
       (higher-base-priority boosted jobs on k's core, holding other devices, delay k's CPU-side
       parts; nothing else does). Above max_j D_j it is "too long": every waiting time that
       contains it then exceeds its task's deadline.
(H-FMLP) H_{k,s} = G_{k,s} + Σ_{l≠k, P_l=P_k} max_{s': d_{l,s'} ≠ d} b_{l,s'}
       (only the holders granted before k delay it, at most one segment per other task).
(W-MPCP) W_i^d = least fixed point of
       W = max_{l>i, d_{l,s}=d} H_{l,s} + Σ_{h<i} ⌈(W + R_h)/T_h⌉ · Σ_{s: d_{h,s}=d} H_{h,s}
(W-FMLP) W_i^d = Σ_{k≠i} max_{s: d_{k,s}=d} H_{k,s}  (at most one request per other task ahead)
(WJ-MPCP) job-driven: all of τ_i's waiting in a window of length t is at most
       Σ_d [ n_i^d · max_{l>i} H_{l,s}^{(d)} + Σ_{h<i} ⌈(t + R_h)/T_h⌉ · Σ_{s: d_{h,s}=d} H_{h,s} ]
(WJ-FMLP) Σ_d Σ_{k≠i} min(n_i^d, ⌈(t + X_k)/T_k⌉ · n_k^d) · max_{s: d_{k,s}=d} H_{k,s}
       (n_k^d: k's segments on d; X_k = R_k above τ_i, D_k below it)
(OWN)  own_i(t) = C_i + G_i + min(Σ_j W_i^{d_{i,j}}, (WJ)(t))  (request-driven or job-driven,
       whichever is smaller: the "hybrid" idea of Patel et al.'s abstract, in rtsched's form)
(E)    E_h = own_h(R_h) for a task that never suspends (busy, or without GPU segments: NS), else
       C_h + G^m_h (S: suspending tasks): the core time of one job.
(RJ)   R = own_i(R) + Σ_{h<i, P_h=P_i} ⌈(R + R_h − E_h)/T_h⌉·E_h + Σ_{l>i, P_l=P_i} ⌈(R + max(0, D_l − β_l))/T_l⌉·β_l
(RQ)   R = own_i(R) + Σ_{h∈NS} ⌈R/T_h⌉·E_h + Σ_{h∈S} ⌈(R + R_h − E_h)/T_h⌉·E_h
           + Σ_{l>i, P_l=P_i} ⌈(R + max(0, D_l − β_l))/T_l⌉·β_l + ⌈(R + D_i − β_i)/T_i⌉·β_i
       (only when some higher-priority task on P_i never suspends; the window starts at the last
       instant with no such job pending, so their jobs carry no jitter, but τ_i's earlier jobs
       may run boosted in it: the last term)
(R)    R_i = min(RJ, RQ) ≤ D_i for every task, in priority order, each least fixed point iterated
       from C_i + G_i; a task with C + G > D fails at once.

Why a boosted lower-priority task is bounded per *window* and not "one section per ready
interval" (the classic MPCP argument): a job may pass a CPU segment whose execution is 0 without
being scheduled, so a lower-priority task can release one device and be granted the next while
the task under analysis stays ready (the note has the schedule).

Layers: :func:`analyse` (Python ints, the readable reference, every term kept for
:func:`explain`), :func:`explain` (per-task rows, holding and waiting bounds, failing term,
steps) and :func:`locking_codes` (the Numba kernel, ``prange`` over the sets of a
:class:`~rtsched.segmented.SegmentedBatch`; the reference's quantities, int64, exact: see the
bounds in the comments).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numba import prange
from numpy.typing import NDArray

from rtsched.analyses.segmented._common import (
    MODE_CODE,
    check_batch_cores,
    check_cores,
    effective_modes,
    mode_entry,
    task_columns,
)
from rtsched.analyses.theory.jitter_rta import JitterRow, jitter_response, jitter_response_nb
from rtsched.errors import InputError
from rtsched.kernels import ACCEPT, REJECT, batch_kernel, kernel
from rtsched.registry import Analysis
from rtsched.result import Explanation, Step, Verdict
from rtsched.segmented.model import SegmentedBatch, SegmentedTaskSet, WaitMode

__all__ = [
    "FMLP",
    "MPCP",
    "PROTOCOLS",
    "Holding",
    "LockAnalysis",
    "TaskBound",
    "Waiting",
    "analyse",
    "boosted_time",
    "entries",
    "explain",
    "locking_codes",
    "reference",
]

#: Protocol codes of the kernel.
MPCP = 0
FMLP = 1
PROTOCOLS: dict[str, int] = {"mpcp": MPCP, "fmlp+": FMLP}
_NAMES = {MPCP: "MPCP", FMLP: "FMLP+"}


def boosted_time(G_m: int, G_e: int, mode: str) -> int:
    """(BST): the core time of one GPU segment while its job is boosted (busy: it spins through G_e)."""
    return G_m + (G_e if mode == "busy" else 0)


@dataclass(frozen=True)
class Holding:
    """(H-MPCP)/(H-FMLP) for one GPU segment: ``H`` (None: above max D, "too long") = G + delay."""

    task: int
    segment: int
    device: str
    G: int
    H: int | None
    terms: str


@dataclass(frozen=True)
class Waiting:
    """(W-MPCP)/(W-FMLP) for task i's requests of one device: W (None: above D_i), requests per job, terms."""

    device: str
    requests: int
    W: int | None
    terms: str


@dataclass
class TaskBound:
    """One task's bound: waiting per device, own work, E, (RJ), (RQ) and R (None: above D / not computed)."""

    task: int
    core: int
    mode: str
    computed: bool = False
    waits: list[Waiting] = field(default_factory=list)
    own: int | None = None
    E: int | None = None
    R_jitter: int | None = None
    R_quiet: int | None = None
    R: int | None = None
    failing: str | None = None
    blocking: int | None = None
    quiet_tried: bool = False
    jitter_tried: bool = False
    sum_W: int | None = None
    job_W: int | None = None

    @property
    def ok(self) -> bool:
        """Whether the bound is computed and at most D."""
        return self.R is not None


@dataclass(frozen=True)
class LockAnalysis:
    """The whole analysis of one set: holding times, per-task bounds, verdict and the first failing task."""

    protocol: int
    modes: tuple[str, ...]
    holdings: tuple[Holding, ...]
    bounds: tuple[TaskBound, ...]
    verdict: bool
    failing_task: int | None


def _ceil(a: int, b: int) -> int:
    return -(-a // b)


def _protocol(protocol: str) -> int:
    if protocol not in PROTOCOLS:
        raise InputError(f"protocol must be one of {', '.join(PROTOCOLS)}, got {protocol!r}", field="protocol")
    return PROTOCOLS[protocol]


def _holdings(ts: SegmentedTaskSet, modes: Sequence[str], proto: int) -> list[list[Holding]]:
    """(H-MPCP) or (H-FMLP) for every segment, per task."""
    cap = max(t.D for t in ts)
    out: list[list[Holding]] = []
    for k, t in enumerate(ts):
        row: list[Holding] = []
        for s, g in enumerate(t.gpu):
            d = g.device
            if proto == FMLP:
                parts = []
                for other, u in enumerate(ts):
                    if other == k or u.core != t.core:
                        continue
                    best = max((boosted_time(x.G_m, x.G_e, modes[other]) for x in u.gpu if x.device != d), default=0)
                    if best:
                        parts.append((other, best))
                H = g.G + sum(b for _, b in parts)  # (H-FMLP)
                terms = " + ".join([str(g.G), *(f"{b} ({ts.label(x)})" for x, b in parts)])
                row.append(Holding(k, s, d, g.G, H, terms))
                continue
            rows: list[tuple[int, JitterRow]] = []
            for h in range(k):
                u = ts[h]
                if u.core != t.core:
                    continue
                x = sum(boosted_time(y.G_m, y.G_e, modes[h]) for y in u.gpu if y.device != d)
                if x:
                    rows.append((h, JitterRow(X=x, T=u.T, J=max(0, u.D - x))))
            search = jitter_response(g.G, cap, [r for _, r in rows])  # (H-MPCP)
            terms = " + ".join([str(g.G), *(f"⌈(H + {r.J})/{r.T}⌉·{r.X} ({ts.label(h)})" for h, r in rows)])
            row.append(Holding(k, s, d, g.G, search.response, terms))
        out.append(row)
    return out


def _mpcp_wait(lp: int, hp: Sequence[tuple[int, int, int]], D: int) -> int | None:
    """(W-MPCP): least fixed point of W = lp + Σ ⌈(W + R_h)/T_h⌉·X_h (rows (X, T, R_h), R_h ≥ 1), None above D."""
    W = lp + sum(X for X, _, _ in hp)  # below the least fixed point: every ceiling is ≥ 1 (R_h ≥ 1)
    while W <= D:
        value = lp + sum(_ceil(W + R, T) * X for X, T, R in hp)
        if value == W:
            return W
        W = value
    return None


def _waits(
    ts: SegmentedTaskSet, i: int, proto: int, holdings: Sequence[Sequence[Holding]], R: Sequence[int | None]
) -> list[Waiting]:
    """(W-MPCP)/(W-FMLP) for each device task i uses (in order of first use)."""
    t = ts[i]
    out: list[Waiting] = []
    for d in t.devices():
        requests = sum(1 for g in t.gpu if g.device == d)
        on_d = [[h for h in holdings[k] if h.device == d] for k in range(ts.n)]
        if proto == FMLP:
            ahead = [(k, max(h.H or 0 for h in on_d[k])) for k in range(ts.n) if k != i and on_d[k]]
            W_f = sum(H for _, H in ahead)  # (W-FMLP); (H-FMLP) is never "too long"
            terms = " + ".join(f"{H} ({ts.label(k)})" for k, H in ahead) or "0 (no other task uses it)"
            out.append(Waiting(d, requests, W_f if W_f <= t.D else None, terms))
            continue
        lower = [h for k in range(i + 1, ts.n) for h in on_d[k]]
        higher = [(k, on_d[k]) for k in range(i) if on_d[k]]
        if any(h.H is None for h in lower) or any(h.H is None for _, hs in higher for h in hs):
            out.append(Waiting(d, requests, None, "a holding time on it is above max D"))
            continue
        lp_term = max((h.H for h in lower if h.H is not None), default=0)
        hp_rows = []
        for k, hs in higher:
            R_k = R[k]
            assert R_k is not None
            hp_rows.append((sum(h.H for h in hs if h.H is not None), ts[k].T, R_k))
        W_m = _mpcp_wait(lp_term, hp_rows, t.D)
        terms = " + ".join(
            [
                str(lp_term),
                *(f"⌈(W + {Rk})/{T}⌉·{X} ({ts.label(k)})" for (X, T, Rk), (k, _) in zip(hp_rows, higher, strict=True)),
            ]
        )
        out.append(Waiting(d, requests, W_m, terms))
    return out


def _never_suspends(ts: SegmentedTaskSet, h: int, modes: Sequence[str]) -> bool:
    return modes[h] == "busy" or not ts[h].gpu


def _needs(ts: SegmentedTaskSet, i: int) -> list[int]:
    """The higher-priority tasks whose R task i's bound uses: those on its core and those sharing a device."""
    t = ts[i]
    devices = set(t.devices())
    return [h for h in range(i) if ts[h].core == t.core or devices.intersection(ts[h].devices())]


@dataclass(frozen=True)
class JobRow:
    """One term of (WJ): ``min(cap, ⌈(t + J)/T⌉·mult) · X`` (``cap`` None: no cap)."""

    X: int
    T: int
    J: int
    mult: int
    cap: int | None


def _job_rows(
    ts: SegmentedTaskSet, i: int, proto: int, holdings: Sequence[Sequence[Holding]], R: Sequence[int | None]
) -> tuple[int, list[JobRow]] | str:
    """(WJ-MPCP)/(WJ-FMLP): the constant and the terms of the job-driven waiting bound, or the device of a too-long holding."""
    t = ts[i]
    const = 0
    rows: list[JobRow] = []
    for d in t.devices():
        n_i = sum(1 for g in t.gpu if g.device == d)
        on_d = [[h.H for h in holdings[k] if h.device == d] for k in range(ts.n)]
        if any(H is None for k in range(ts.n) if k != i for H in on_d[k]):
            return d
        held = [[H for H in on_d[k] if H is not None] for k in range(ts.n)]
        for k in range(ts.n):
            if k == i or not held[k]:
                continue
            u = ts[k]
            R_k = R[k]
            if proto == MPCP:
                if k < i:
                    assert R_k is not None
                    rows.append(JobRow(sum(held[k]), u.T, R_k, 1, None))
            else:
                J = u.D if k > i or R_k is None else R_k
                rows.append(JobRow(max(held[k]), u.T, J, len(held[k]), n_i))
        if proto == MPCP:
            const += n_i * max((H for k in range(i + 1, ts.n) for H in held[k]), default=0)
    return const, rows


def _job_waiting(const: int, rows: Sequence[JobRow], t: int) -> int:
    """(WJ) at window length t."""
    total = const
    for r in rows:
        count = _ceil(t + r.J, r.T) * r.mult
        total += (count if r.cap is None else min(r.cap, count)) * r.X
    return total


def _response(
    base: int, sum_W: int | None, const: int, jrows: Sequence[JobRow], rows: Sequence[JitterRow], D: int
) -> tuple[int | None, int, int]:
    """Least fixed point of R = base + min(ΣW, (WJ)(R)) + Σ ⌈(R + J)/T⌉·X from R = base: (R or None, last value, waiting at R)."""
    t = base
    while True:
        jd = _job_waiting(const, jrows, t)
        waiting = jd if sum_W is None else min(sum_W, jd)  # (OWN)
        value = base + waiting + sum(_ceil(t + r.J, r.T) * r.X for r in rows)
        if value > D:
            return None, value, waiting
        if value == t:
            return t, value, waiting
        t = value


def analyse(ts: SegmentedTaskSet, m: int, mode: WaitMode, protocol: str, *, stop: bool = True) -> LockAnalysis:
    """Every equation of the module docstring for ``ts`` on ``m`` cores (Python ints).

    ``stop``: return at the first failing task (the verdict needs no more); otherwise tasks whose
    bound needs a failed task's R are marked not computed.
    """
    proto = _protocol(protocol)
    check_cores(ts, m)
    modes = effective_modes(ts, mode)
    bounds = [TaskBound(i, t.core, modes[i]) for i, t in enumerate(ts)]  # type: ignore[arg-type]
    too_big = [i for i, t in enumerate(ts) if t.C + t.G > t.D]
    if too_big:
        for i in too_big:
            t = ts[i]
            bounds[i].computed = True
            bounds[i].failing = f"C + G = {t.C + t.G} > D = {t.D}"
        return LockAnalysis(proto, modes, (), tuple(bounds), False, too_big[0])
    holdings = _holdings(ts, modes, proto)
    beta = [sum(boosted_time(g.G_m, g.G_e, modes[k]) for g in t.gpu) for k, t in enumerate(ts)]
    R: list[int | None] = [None] * ts.n
    E: list[int] = [0] * ts.n
    first_fail: int | None = None
    for i, t in enumerate(ts):
        b = bounds[i]
        if any(R[h] is None for h in _needs(ts, i)):
            continue  # not computed: a task it depends on has no bound
        b.computed = True
        b.waits = _waits(ts, i, proto, holdings, R)
        job = _job_rows(ts, i, proto, holdings, R)
        if isinstance(job, str):
            b.failing = f"(W) a holding time on {job} is above max D: the waiting exceeds D = {t.D}"
        else:
            const, jrows = job
            per_request = [w.requests * w.W for w in b.waits if w.W is not None]
            sum_W = sum(per_request) if len(per_request) == len(b.waits) else None
            b.sum_W = sum_W
            base = t.C + t.G
            hp = [h for h in range(i) if ts[h].core == t.core]
            lp = [x for x in range(i + 1, ts.n) if ts[x].core == t.core and beta[x]]
            lp_rows = [JitterRow(beta[x], ts[x].T, max(0, ts[x].D - beta[x])) for x in lp]
            hp_jitter = [JitterRow(E[h], ts[h].T, R[h] - E[h]) for h in hp]  # type: ignore[operator]
            rj = _response(base, sum_W, const, jrows, hp_jitter + lp_rows, t.D)  # (RJ)
            b.R_jitter = rj[0]
            b.jitter_tried = True
            b.quiet_tried = any(_never_suspends(ts, h, modes) for h in hp)
            values = [rj[1]]
            if b.quiet_tried:
                rows = [
                    JitterRow(E[h], ts[h].T, 0) if _never_suspends(ts, h, modes) else hp_jitter[n]
                    for n, h in enumerate(hp)
                ]
                rows += lp_rows
                if beta[i]:
                    rows.append(JitterRow(beta[i], t.T, t.D - beta[i]))
                rq = _response(base, sum_W, const, jrows, rows, t.D)  # (RQ)
                b.R_quiet = rq[0]
                values.append(rq[1])
            found = [x for x in (b.R_jitter, b.R_quiet) if x is not None]
            if found:
                b.R = min(found)  # (R)
                R[i] = b.R
                b.job_W = _job_waiting(const, jrows, b.R)
                waiting = b.job_W if sum_W is None else min(sum_W, b.job_W)
                b.own = base + waiting
                E[i] = b.own if _never_suspends(ts, i, modes) else t.C + t.G_m  # (E)
                b.E = E[i]
                b.blocking = sum(_ceil(b.R + r.J, r.T) * r.X for r in lp_rows)
            else:
                b.own = base + rj[2]  # at (RJ)'s last iterate
                b.failing = f"(R) response time ≥ {min(values)} > D = {t.D}"
        if b.R is None and first_fail is None:
            first_fail = i
            if stop:
                break
    flat = tuple(h for row in holdings for h in row)
    return LockAnalysis(proto, modes, flat, tuple(bounds), first_fail is None, first_fail)


def reference(ts: SegmentedTaskSet, m: int, *, mode: WaitMode, protocol: str) -> bool:
    """(R) for every task: True iff every task's bound is at most its deadline."""
    return analyse(ts, m, mode, protocol, stop=True).verdict


def _shown(value: int | None, tried: bool, D: int) -> int | str:
    if value is not None:
        return value
    return f"> {D}" if tried else "-"


def explain(ts: SegmentedTaskSet, m: int, *, mode: WaitMode, protocol: str) -> Explanation:
    """Per-task rows (core, mode, waiting per device, own work, R by (RJ)/(RQ), blocking), holding times, failing term, steps."""
    a = analyse(ts, m, mode, protocol, stop=False)
    name = _NAMES[a.protocol]
    per_task: list[dict[str, Any]] = []
    for b in a.bounds:
        t = ts[b.task]
        per_task.append(
            {
                **task_columns(ts, b),
                "waiting": "; ".join(
                    f"{w.device}: {w.W if w.W is not None else f'> {t.D}'} ×{w.requests}" for w in b.waits
                )
                or "-",
                "ΣW": "-" if not b.jitter_tried else ("> D" if b.sum_W is None else b.sum_W),
                "W_job(R)": "-" if b.job_W is None else b.job_W,
                "own": "-" if b.own is None else b.own,
                "E": "-" if b.E is None else b.E,
                "R_jitter": _shown(b.R_jitter, b.jitter_tried, t.D),
                "R_quiet": _shown(b.R_quiet, b.quiet_tried, t.D),
                "blocking": "-" if b.blocking is None else b.blocking,
                "R": b.R if b.R is not None else ("not computed" if not b.computed else f"> {t.D}"),
                "ok": b.ok,
            }
        )
    failing_term = None
    if a.failing_task is not None:
        failing_term = f"{ts.label(a.failing_task)}: {a.bounds[a.failing_task].failing}"
    evidence: dict[str, Any] = {
        "protocol": protocol,
        "mode": mode,
        "response_times": tuple(b.R for b in a.bounds),
        "waiting": tuple(tuple((w.device, w.W) for w in b.waits) for b in a.bounds),
        "holding": tuple((ts.label(h.task), h.segment + 1, h.device, h.H) for h in a.holdings),
        "failing_task": a.failing_task,
        "failing_term": failing_term,
    }
    what = f"{name} GPU locking RTA (default mode {mode})"
    verdict: Verdict = a.verdict
    summary = f"{what}: R ≤ D for every task" if verdict else f"{what}: not proven: {failing_term}"

    def steps() -> Iterator[Step | str]:
        yield Step(f"{what}: rtsched's analysis after the paper (papers/cpu-gpu-model.md semantics)")
        for h in a.holdings:
            shown = h.H if h.H is not None else "> max D"
            yield Step(f"holding {ts.label(h.task)} segment {h.segment + 1} on {h.device}: H = {h.terms} = {shown}")
        for b in a.bounds:
            t = ts[b.task]
            head = f"{ts.label(b.task)} (core {b.core}, {b.mode}, D = {t.D})"
            if not b.computed:
                yield Step(head + ": not computed (a task it depends on has no bound)")
                continue
            for w in b.waits:
                yield Step(f"  {head}: W({w.device}) = {w.terms} → {w.W if w.W is not None else f'> {t.D}'}")
            if b.R is not None:
                yield Step(
                    f"  {head}: per request ΣW = {'> D' if b.sum_W is None else b.sum_W}, job-driven (WJ)(R) = "
                    f"{b.job_W}, own = C + G + min = {b.own}; (RJ) {b.R_jitter if b.R_jitter is not None else '> D'}, "
                    f"(RQ) {'-' if b.R_quiet is None else b.R_quiet}: R = {b.R} ≤ D"
                )
            else:
                yield Step(f"  {head}: fails: {b.failing}")
        yield Step("every task passes: schedulable" if verdict else "not proven schedulable")

    return Explanation(verdict=verdict, summary=summary, evidence=evidence, per_task=per_task, steps=steps)


# ---------------------------------------------------------------------------------------------
# kernel (int64): the reference's quantities; values are abandoned as soon as they exceed a bound
# ---------------------------------------------------------------------------------------------


@kernel
def _holding_nb(k, s, C, T, D, core, md, go, sG_m, sG_e, sdev, proto, cap, rX, rT, rJ, idx):
    """(H-MPCP)/(H-FMLP) of segment s (absolute index) of task k; above cap: cap + 1."""
    n = T.shape[0]
    d = sdev[s]
    G = sG_m[s] + sG_e[s]
    if proto == 1:
        H = G
        for x in range(n):
            if x == k or core[x] != core[k]:
                continue
            best = 0
            for y in range(go[x], go[x + 1]):
                if sdev[y] != d:
                    b = sG_m[y] + (sG_e[y] if md[x] == 1 else 0)
                    if b > best:
                        best = b
            H += best
        return H
    nr = 0
    for h in range(k):
        if core[h] != core[k]:
            continue
        x = 0
        for y in range(go[h], go[h + 1]):
            if sdev[y] != d:
                x += sG_m[y] + (sG_e[y] if md[h] == 1 else 0)
        if x > 0:
            rX[nr] = x  # ≤ β_h ≤ D_h ≤ T_h (C + G ≤ D checked): each term ≤ 3·2**31
            rT[nr] = T[h]
            rJ[nr] = D[h] - x if D[h] > x else 0
            nr += 1
    v = jitter_response_nb(G, cap, rX, rT, rJ, idx, nr)
    return v if v <= cap else cap + 1


@kernel
def _request_wait_nb(i, d, T, go, sdev, H, s0, R, Di, proto, rX, rT, rJ):
    """(W-MPCP)/(W-FMLP) of a request of τ_i for device d: the bound, or a value above D_i."""
    n = T.shape[0]
    if proto == 1:
        W = 0
        for k in range(n):
            if k == i:
                continue
            best = 0
            for y in range(go[k], go[k + 1]):
                if sdev[y] == d and H[y - s0] > best:
                    best = H[y - s0]
            W += best
            if W > Di:
                return W
        return W
    lp = 0
    for k in range(i + 1, n):
        for y in range(go[k], go[k + 1]):
            if sdev[y] == d and H[y - s0] > lp:
                lp = H[y - s0]
    if lp > Di:
        return lp
    nr = 0
    W = lp
    for h in range(i):
        x = 0
        for y in range(go[h], go[h + 1]):
            if sdev[y] == d:
                x += H[y - s0]
        if x > 0:
            if x > Di:
                return x
            rX[nr] = x
            rT[nr] = T[h]
            rJ[nr] = R[h]
            nr += 1
            W += x
    # W ≤ D_i < 2**31 and R_h ≤ D_h ≤ T_h keep ⌈(W + R_h)/T_h⌉·X below 2**63 (X ≤ D_i)
    while True:
        if W > Di:
            return W
        v = lp
        for x in range(nr):
            v += ((W + rJ[x] + rT[x] - 1) // rT[x]) * rX[x]
            if v > Di:
                return v
        if v == W:
            return W
        W = v


@kernel
def _job_waiting_nb(t, jd0, jX, jT, jJ, jM, jC, nj, limit):
    """(WJ) at window length t, or a value above ``limit`` (rows with jC ≥ 0 capped: min(jC, ⌈(t + J)/T⌉·M))."""
    w = jd0
    for x in range(nj):
        q = (t + jJ[x] + jT[x] - 1) // jT[x]
        if jC[x] >= 0 and q >= (jC[x] + jM[x] - 1) // jM[x]:
            c = jC[x]
        else:
            c = q * jM[x]
        w += c * jX[x]  # c < 2**32 and X ≤ D_i < 2**31 (checked): below 2**63
        if w > limit:
            return w
    return w


@kernel
def _response_nb(base, sumW, jd0, jX, jT, jJ, jM, jC, nj, rX, rT, rJ, nr, D):
    """Least fixed point of R = base + min(ΣW, (WJ)(R)) + Σ ⌈(R + J)/T⌉·X from base, or a value above D."""
    t = base
    while True:
        w = _job_waiting_nb(t, jd0, jX, jT, jJ, jM, jC, nj, D)
        if sumW >= 0 and sumW < w:
            w = sumW
        v = base + w
        if v > D:
            return v
        for x in range(nr):
            v += ((t + rJ[x] + rT[x] - 1) // rT[x]) * rX[x]
            if v > D:
                return v
        if v == t:
            return t
        t = v


@kernel
def _set_code(C, G_m_tot, G_e_tot, T, D, core, mode, go, sG_m, sG_e, sdev, default_mode, proto):
    """ACCEPT iff every task of the set meets (R) (the arrays are the set's tasks; go indexes the segment arrays)."""
    n = T.shape[0]
    md = np.empty(n, dtype=np.int64)
    beta = np.zeros(n, dtype=np.int64)
    cap = 0
    for k in range(n):
        md[k] = mode[k] if mode[k] != 0 else default_mode
        if C[k] + G_m_tot[k] + G_e_tot[k] > D[k]:
            return REJECT
        beta[k] = G_m_tot[k] + (G_e_tot[k] if md[k] == 1 else 0)
        if D[k] > cap:
            cap = D[k]
    s0 = go[0]
    H = np.empty(go[n] - s0, dtype=np.int64)
    rX = np.empty(2 * n + 1, dtype=np.int64)
    rT = np.empty(2 * n + 1, dtype=np.int64)
    rJ = np.empty(2 * n + 1, dtype=np.int64)
    idx = np.arange(2 * n + 1)
    for k in range(n):
        for s in range(go[k], go[k + 1]):
            H[s - s0] = _holding_nb(k, s, C, T, D, core, md, go, sG_m, sG_e, sdev, proto, cap, rX, rT, rJ, idx)
    R = np.zeros(n, dtype=np.int64)
    E = np.zeros(n, dtype=np.int64)
    rows = n * (go[n] - s0 + 1) + 1  # job-driven rows: at most one per other task and device of τ_i
    jX = np.empty(rows, dtype=np.int64)
    jT = np.empty(rows, dtype=np.int64)
    jJ = np.empty(rows, dtype=np.int64)
    jM = np.empty(rows, dtype=np.int64)
    jC = np.empty(rows, dtype=np.int64)
    for i in range(n):
        Di = D[i]
        base = C[i] + G_m_tot[i] + G_e_tot[i]
        # per request (W-MPCP)/(W-FMLP): sumW = -1 when one is above D_i (then only (WJ) counts)
        sumW = 0
        for s in range(go[i], go[i + 1]):
            W = _request_wait_nb(i, sdev[s], T, go, sdev, H, s0, R, Di, proto, rX, rT, rJ)
            if sumW >= 0:
                sumW = sumW + W if W <= Di else -1
                if sumW > Di:
                    sumW = -1
        # job-driven (WJ-MPCP)/(WJ-FMLP): one row per other task and device of τ_i
        nj = 0
        jd0 = 0
        for s in range(go[i], go[i + 1]):
            d = sdev[s]
            seen = False
            for s2 in range(go[i], s):
                if sdev[s2] == d:
                    seen = True
            if seen:
                continue
            n_i = 0
            for s2 in range(go[i], go[i + 1]):
                if sdev[s2] == d:
                    n_i += 1
            lpmax = 0
            for k in range(n):
                if k == i:
                    continue
                cnt = 0
                mx = 0
                sm = 0
                for y in range(go[k], go[k + 1]):
                    if sdev[y] == d:
                        cnt += 1
                        sm += H[y - s0]
                        if H[y - s0] > mx:
                            mx = H[y - s0]
                if cnt == 0:
                    continue
                if mx > Di:  # a holding above D_i (or too long): every bound of τ_i's waiting exceeds D_i
                    return REJECT
                if proto == 0:
                    if k > i:
                        if mx > lpmax:
                            lpmax = mx
                        continue
                    if sm > Di:
                        return REJECT
                    jX[nj] = sm
                    jT[nj] = T[k]
                    jJ[nj] = R[k]
                    jM[nj] = 1
                    jC[nj] = -1
                else:
                    jX[nj] = mx
                    jT[nj] = T[k]
                    jJ[nj] = R[k] if k < i else D[k]
                    jM[nj] = cnt
                    jC[nj] = n_i
                nj += 1
            jd0 += n_i * lpmax
            if jd0 > Di:
                return REJECT
        # (RJ): every higher-priority task with jitter R_h − E_h, lower-priority boosted sections
        nr = 0
        has_ns = False
        for h in range(i):
            if core[h] == core[i]:
                rX[nr] = E[h]
                rT[nr] = T[h]
                rJ[nr] = R[h] - E[h]
                nr += 1
                if not (md[h] == 2 and go[h + 1] > go[h]):
                    has_ns = True
        for x in range(i + 1, n):
            if core[x] == core[i] and beta[x] > 0:
                rX[nr] = beta[x]
                rT[nr] = T[x]
                rJ[nr] = D[x] - beta[x]
                nr += 1
        best = _response_nb(base, sumW, jd0, jX, jT, jJ, jM, jC, nj, rX, rT, rJ, nr, Di)
        if has_ns:  # (RQ): the never-suspending ones without jitter, τ_i's earlier jobs' boosted work
            x = 0
            for h in range(i):
                if core[h] == core[i]:
                    if not (md[h] == 2 and go[h + 1] > go[h]):
                        rJ[x] = 0
                    x += 1
            if beta[i] > 0:
                rX[nr] = beta[i]
                rT[nr] = T[i]
                rJ[nr] = Di - beta[i]
                nr += 1
            q = _response_nb(base, sumW, jd0, jX, jT, jJ, jM, jC, nj, rX, rT, rJ, nr, Di)
            if q < best:
                best = q
        if best > Di:
            return REJECT
        R[i] = best
        suspends = md[i] == 2 and go[i + 1] > go[i]
        if suspends:
            E[i] = C[i] + G_m_tot[i]
        else:
            w = _job_waiting_nb(best, jd0, jX, jT, jJ, jM, jC, nj, Di)
            if sumW >= 0 and sumW < w:
                w = sumW
            E[i] = base + w
    return ACCEPT


@batch_kernel
def _locking_sets(C, G_m_tot, G_e_tot, T, D, core, mode, go, sG_m, sG_e, sdev, task_offsets, default_mode, proto, out):
    """``out[s]`` = ``_set_code`` of set s, in ``prange`` over the sets."""
    for s in prange(out.shape[0]):
        lo, hi = task_offsets[s], task_offsets[s + 1]
        out[s] = _set_code(
            C[lo:hi], G_m_tot[lo:hi], G_e_tot[lo:hi], T[lo:hi], D[lo:hi], core[lo:hi], mode[lo:hi],
            go[lo : hi + 1], sG_m, sG_e, sdev, default_mode, proto,
        )  # fmt: skip


def locking_codes(batch: SegmentedBatch, m: int, mode: WaitMode, protocol: str) -> NDArray[np.int8]:
    """Codes per set (1 accept, 0 reject): the kernel of (R) under ``protocol`` (``mpcp`` or ``fmlp+``)."""
    proto = _protocol(protocol)
    if mode not in MODE_CODE:
        raise InputError(f"mode must be busy or suspend, got {mode!r}", field="mode")
    check_batch_cores(batch, m)
    out = np.empty(batch.n_sets, dtype=np.int8)
    _locking_sets(
        batch.C, batch.G_m_total, batch.G_e_total, batch.T, batch.D, batch.core, batch.mode,
        batch.gpu_offsets, batch.G_m, batch.G_e, batch.device, batch.task_offsets, MODE_CODE[mode], proto, out,
    )  # fmt: skip
    return out


def entries(
    protocol: str,
    *,
    citation: str,
    note: str,
    reference: Callable[..., bool],
    explain: Callable[..., Explanation],
    codes: Callable[..., NDArray[np.int8]],
    order: float,
) -> tuple[Analysis, Analysis]:
    """The registry entries ``seg-<protocol>-busy`` (at ``order``) and ``-suspend`` (``order + 1``) of one protocol.

    ``reference``/``explain``/``codes`` are the protocol module's functions (keyword ``mode``);
    every entry but ``seg-mpcp-busy`` shares that entry's kernels.
    """
    label = _NAMES[_protocol(protocol)]
    slug = protocol.rstrip("+")

    def entry(mode: WaitMode, at: float) -> Analysis:
        name = f"seg-{slug}-{mode}"
        return mode_entry(
            mode,
            at,
            name=name,
            title=f"{label} for GPU access: lock-based GPU segments, response-time analysis (tasks without a mode: {mode})",
            policy=f"partitioned-fp-gpu-{protocol}",
            citation=citation,
            note=note,
            reference=reference,
            explain=explain,
            codes=codes,
            shares_kernels_with=None if name == "seg-mpcp-busy" else "seg-mpcp-busy",
        )

    return entry("busy", order), entry("suspend", order + 1)
