"""Preemptive GPU scheduling (GCAPS priorities, the driver's TSG round robin): the analysis both share (private module).

Model and run-time semantics: papers/cpu-gpu-model.md (issue #43), item "Preemptive GPU
scheduling (protocols gcaps and tsg-rr)". No lock, no queue of requests, no boosting: a job's
CPU-side parts run at its base priority on its core; its ``G_e`` part is *submitted* to its device
once ``⌈G_m/2⌉`` is done and the job spins (``busy``, base priority, preemptible) or is suspended
(``suspend``) until the device has finished it; a zero-length ``G_e`` is not submitted. A device
runs one part at a time: ``gcaps`` the submitted part of highest GPU priority, preemptively;
``tsg-rr`` round robin in submission order, at most ``L`` (``time_slice``) ticks of progress per
slice while another part waits. Every context switch (the device starts a part other than the one
it ran last) costs ``ε`` (``epsilon``) device ticks before the part progresses.

The analysis is **rtsched's own, "after"** Y. Wang, C. Liu, D. Wong, H. Kim, "GCAPS: GPU
context-aware preemptive priority-based scheduling for real-time tasks", ECRTS 2024 (LIPIcs 298,
14): the paper's Section 6 bounds the same kinds of interference (its Eq. (1)–(14): CPU
preemption, GPU direct preemption, indirect delay, interleaved execution), but for its own
overhead model (a runlist update ε = α + θ partly on the CPU, rt-mutex blocking); this module
bounds the semantics note's model, device by device and segment by segment. Tags are rtsched's;
proofs and every difference from the paper and its scripts are in papers/wang2024-gcaps.md.

Notation: task k on core P_k, GPU rank ρ_k (``gpu_priorities[k]``, 0 highest; default the task
order), segments s with ``G^e_{k,s}`` on device ``d_{k,s}``; for a device d:
``E^d_k = Σ_{s: d_{k,s}=d} G^e_{k,s}``, ``η^d_k = #{s: d_{k,s}=d, G^e_{k,s} > 0}``,
``M^d_k = max_{s: d_{k,s}=d} G^e_{k,s}``. ``R̂_h`` is R_h once computed (h before the task under
analysis in the task order), else D_h (every bound is at most its deadline in an accepted set).

(DEV-G) gcaps, segment (i, s) on d with g = G^e_{i,s} > 0: B_{i,s} = least fixed point of
        B = g + ε + Σ_{h: ρ_h < ρ_i, η^d_h > 0} ( ⌈(B + R̂_h − E^d_h)/T_h⌉·E^d_h + ⌈(B + R̂_h)/T_h⌉·2ε·η^d_h )
        (the level-ρ_i busy window of the device: the part's own work and first switch, the
        higher-GPU-priority work submitted in it, two switches per such part: its start and
        the resumption of the part it preempted).
(DEV-R) tsg-rr, the same segment: with r = ⌈g/L⌉ rounds and K the other tasks with a part on d,
        B_{i,s} = g + ε + (r − 1)·ε·[K ≠ ∅] + r·Σ_{k∈K} (ε + min(L, M^d_k))
        (at most one pending part per other task, each at most one slice and its switch per
        round; the part's own switch at each of its slices after another part ran).
        B_{i,s} = 0 when g = 0 (nothing is submitted).
(OWN-P) own_i = C_i + G^m_i + Σ_s B_{i,s}.
(X-P)   what a higher-priority task h on P_i costs the core per job: suspending
        (``suspend`` with G^e_h > 0) X_h = C_h + G^m_h, J_h = R_h − X_h; never suspending
        (``busy``, or no G^e) X_h = min(own_h, R_h), own_h = C_h + G^m_h + Σ_s B_{h,s} (busy
        spinning), J_h = 0.
(R-P)   R_i = least fixed point of R = own_i + Σ_{h<i, P_h=P_i} ⌈(R + J_h)/T_h⌉·X_h
        (JRTA of :mod:`rtsched.analyses.theory.jitter_rta`).
(W-G)   GCAPS only, the whole response window instead of one window per segment (the paper's
        shape): with I = τ_i's devices, E^I_h and η^I_h summed over them,
        R = C_i + G_i + ε·η^I_i + Σ_{h<i, P_h=P_i} ⌈(R + J_h)/T_h⌉·X_h
            + Σ_{h: ρ_h < ρ_i, η^I_h > 0} ( ⌈(R + R̂_h − E^I_h)/T_h⌉·E^I_h + ⌈(R + R̂_h)/T_h⌉·2ε·η^I_h ).
        R_i = min((R-P), (W-G)) ≤ D_i for every task, in task order (TSG: (R-P) alone); a busy
        task's X is then min(own, R).

Driver parameters (issue #43): ε and L are taken from the keywords when given, else from the
set's :class:`~rtsched.segmented.GPUDriver` (``driver=`` of the set, the ``driver`` section of its
file), else from the caller's default (ε = 0; L: the registry's time slice of :mod:`.tsg`):
:func:`driver_options`. The batch kernels take ε and L per set (arrays), so a batch may mix sets
with different drivers.

Layers: :func:`analyse` (Python ints, every term kept), :func:`explain` (per-task rows: core,
mode, per-segment device bounds, own work, R and its terms, the X and J imposed below, the
failing term; steps) and :func:`preemptive_codes` (the Numba kernel, ``prange`` over the sets of
a :class:`~rtsched.segmented.SegmentedBatch`, the reference's evaluations in int64: every value
is abandoned as soon as it exceeds a deadline below 2**31).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numba import prange
from numpy.typing import NDArray

from rtsched.analyses.segmented._common import MODE_CODE, check_batch_cores, check_cores, effective_modes
from rtsched.analyses.theory.jitter_rta import JitterRow, JitterSearch, jitter_response, jitter_response_nb
from rtsched.errors import InputError
from rtsched.kernels import ACCEPT, REJECT, batch_kernel, kernel
from rtsched.result import Explanation, Step, Verdict
from rtsched.segmented.model import GPUDriver, SegmentedBatch, SegmentedTaskSet, WaitMode

__all__ = [
    "GCAPS",
    "PROTOCOLS",
    "GPAStep",
    "TSG",
    "DeviceBound",
    "PreemptiveAnalysis",
    "TaskBound",
    "analyse",
    "batch_driver_options",
    "check_options",
    "driver_options",
    "explain",
    "gcaps_device_bound",
    "gpa_analyse",
    "gpa_codes",
    "gpa_search",
    "opa_bound",
    "preemptive_codes",
    "tsg_device_bound",
]

#: Protocol codes of the kernel.
GCAPS = 0
TSG = 1
PROTOCOLS: dict[str, int] = {"gcaps": GCAPS, "tsg-rr": TSG}
_NAMES = {GCAPS: "GCAPS", TSG: "default-driver TSG round robin (not a real-time protocol)"}


def _ceil(a: int, b: int) -> int:
    return -(-a // b)


@dataclass(frozen=True)
class DeviceBound:
    """(DEV-G)/(DEV-R) for one GPU segment: submission to completion of its ``G_e`` (None: above D_i)."""

    task: int
    segment: int
    device: str
    G_e: int
    B: int | None
    terms: str


@dataclass
class TaskBound:
    """One task's bound: device bounds, own work, (X-P) rows of the tasks above it, the (R-P) search."""

    task: int
    core: int
    mode: str
    computed: bool = False
    devices: list[DeviceBound] = field(default_factory=list)
    own: int | None = None
    hp: tuple[int, ...] = ()
    rows: tuple[JitterRow, ...] = ()
    search: JitterSearch | None = None
    window_own: int | None = None
    window_rows: tuple[JitterRow, ...] = ()
    window: JitterSearch | None = None
    failing: str | None = None

    @property
    def R(self) -> int | None:
        """The response-time bound, min of (R-P) and (W-G) (None: both above D, or not computed)."""
        found = [x.response for x in (self.search, self.window) if x is not None and x.response is not None]
        return min(found) if found else None

    @property
    def ok(self) -> bool:
        """Whether the bound is computed and at most D."""
        return self.R is not None


@dataclass(frozen=True)
class PreemptiveAnalysis:
    """The whole analysis of one set: options, modes, per-task bounds, verdict, first failing task."""

    protocol: int
    epsilon: int
    time_slice: int | None
    ranks: tuple[int, ...]
    modes: tuple[str, ...]
    bounds: tuple[TaskBound, ...]
    verdict: bool
    failing_task: int | None
    #: Where ε and L came from: "keyword", "set driver" or "default" (L: None when not used).
    epsilon_source: str = "default"
    time_slice_source: str | None = None


#: The sources :func:`driver_options` reports.
KEYWORD, SET_DRIVER, DEFAULT = "keyword", "set driver", "default"


def driver_options(
    driver: GPUDriver | None,
    epsilon: Any,
    time_slice: Any,
    *,
    default_epsilon: int = 0,
    default_time_slice: int | None = None,
) -> tuple[Any, Any, str, str]:
    """ε and L with their sources: the keyword if not None, else the set's driver, else the default.

    The values are returned unchecked (:func:`check_options` checks them); the sources are
    :data:`KEYWORD`, :data:`SET_DRIVER` or :data:`DEFAULT`.
    """
    if epsilon is not None:
        eps, eps_src = epsilon, KEYWORD
    elif driver is not None:
        eps, eps_src = driver.epsilon, SET_DRIVER
    else:
        eps, eps_src = default_epsilon, DEFAULT
    if time_slice is not None:
        L, L_src = time_slice, KEYWORD
    elif driver is not None and driver.time_slice is not None:
        L, L_src = driver.time_slice, SET_DRIVER
    else:
        L, L_src = default_time_slice, DEFAULT
    return eps, L, eps_src, L_src


def _count(value: Any, name: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or int(value) < minimum:
        what = "a positive" if minimum >= 1 else "a non-negative"
        raise InputError(f"{name} must be {what} integer number of ticks, got {value!r}", field=name)
    return int(value)


def check_options(
    n: int, protocol: str, epsilon: Any, time_slice: Any, gpu_priorities: Any
) -> tuple[int, int, int | None, tuple[int, ...]]:
    """The protocol code, ε, L and each task's GPU rank (0 highest), checked; an InputError names the option."""
    if protocol not in PROTOCOLS:
        raise InputError(f"protocol must be one of {', '.join(PROTOCOLS)}, got {protocol!r}", field="protocol")
    proto = PROTOCOLS[protocol]
    eps = _count(epsilon, "epsilon", 0)
    L: int | None = None
    if proto == TSG:
        if time_slice is None:
            raise InputError("protocol tsg-rr needs time_slice=, a positive number of ticks", field="time_slice")
        L = _count(time_slice, "time_slice", 1)
    if gpu_priorities is None:
        return proto, eps, L, tuple(range(n))
    if proto != GCAPS:
        raise InputError("gpu_priorities applies to protocol gcaps only", field="gpu_priorities")
    ranks = tuple(gpu_priorities) if isinstance(gpu_priorities, Sequence | np.ndarray) else None
    if (
        ranks is None
        or any(isinstance(r, bool) or not isinstance(r, int | np.integer) for r in ranks)
        or sorted(int(r) for r in ranks) != list(range(n))
    ):
        raise InputError(
            f"gpu_priorities must list each task's GPU rank, a permutation of 0..{n - 1} (0 highest), "
            f"got {gpu_priorities!r}",
            field="gpu_priorities",
        )
    return proto, eps, L, tuple(int(r) for r in ranks)


def _on_device(ts: SegmentedTaskSet, k: int, d: str) -> tuple[int, int, int]:
    """(E^d_k, η^d_k, M^d_k): k's G_e on d, its parts with G_e > 0 there, its largest part there."""
    parts = [g.G_e for g in ts[k].gpu if g.device == d]
    return sum(parts), sum(1 for x in parts if x > 0), max(parts, default=0)


def gcaps_device_bound(
    ts: SegmentedTaskSet, i: int, s: int, eps: int, ranks: Sequence[int], R_hat: Sequence[int], cap: int
) -> DeviceBound:
    """(DEV-G) for segment s of task i: the least fixed point, None if it exceeds ``cap`` (= D_i)."""
    g = ts[i].gpu[s]
    if g.G_e == 0:
        return DeviceBound(i, s, g.device, 0, 0, "0 (G_e = 0: nothing submitted)")
    base = g.G_e + eps
    rows: list[tuple[int, int, int, int, int]] = []  # (h, E, T, J, switch charge), with R̂_h
    for h in range(ts.n):
        if h == i or ranks[h] >= ranks[i]:
            continue
        E, eta, _ = _on_device(ts, h, g.device)
        if eta == 0:
            continue
        rows.append((h, E, ts[h].T, R_hat[h], 2 * eps * eta))
    B = base + sum(E + w for _, E, _, _, w in rows)  # every ceiling ≥ 1 at B ≥ 1: below the least fixed point
    value = B
    while B <= cap:
        value = base + sum(
            _ceil(B + max(0, Rh - E), T) * E + (_ceil(B + Rh, T) * w if w else 0) for _, E, T, Rh, w in rows
        )  # (DEV-G), right side
        if value == B:
            break
        B = value
    parts = [f"{g.G_e} + {eps}"] + [
        f"⌈(B + {max(0, Rh - E)})/{T}⌉·{E}" + (f" + ⌈(B + {Rh})/{T}⌉·{w}" if w else "") + f" ({ts.label(h)})"
        for h, E, T, Rh, w in rows
    ]
    shown = B if B <= cap else None
    return DeviceBound(i, s, g.device, g.G_e, shown, " + ".join(parts) + f" = {value}")


def tsg_device_bound(ts: SegmentedTaskSet, i: int, s: int, eps: int, L: int, cap: int) -> DeviceBound:
    """(DEV-R) for segment s of task i (closed form), None if it exceeds ``cap`` (= D_i)."""
    g = ts[i].gpu[s]
    if g.G_e == 0:
        return DeviceBound(i, s, g.device, 0, 0, "0 (G_e = 0: nothing submitted)")
    rounds = _ceil(g.G_e, L)
    others = []
    for k in range(ts.n):
        if k == i:
            continue
        _, eta, M = _on_device(ts, k, g.device)
        if eta:
            others.append((k, eps + min(L, M)))
    own_switches = eps + (rounds - 1) * eps * (1 if others else 0)
    B = g.G_e + own_switches + rounds * sum(x for _, x in others)  # (DEV-R)
    terms = (
        f"{g.G_e} + {own_switches} + {rounds}·(" + (" + ".join(f"{x} ({ts.label(k)})" for k, x in others) or "0") + ")"
    )
    return DeviceBound(i, s, g.device, g.G_e, B if B <= cap else None, terms + f" = {B}")


def _suspends(ts: SegmentedTaskSet, h: int, modes: Sequence[str]) -> bool:
    return modes[h] == "suspend" and ts[h].G_e > 0


def _row(ts: SegmentedTaskSet, h: int, modes: Sequence[str], b: TaskBound) -> JitterRow:
    """(X-P) for a higher-priority task h with a computed bound (a busy job's core time: min(own_h, R_h))."""
    t = ts[h]
    assert b.R is not None
    if _suspends(ts, h, modes):
        X = t.C + t.G_m
        return JitterRow(X=X, T=t.T, J=b.R - X)
    return JitterRow(X=b.R if b.own is None else min(b.own, b.R), T=t.T, J=0)


def _window_rows(ts: SegmentedTaskSet, i: int, eps: int, ranks: Sequence[int], R_hat: Sequence[int]) -> list[JitterRow]:
    """(W-G)'s device rows: per task of higher GPU priority on τ_i's devices, its work and its switch charge."""
    devs = set(ts[i].devices())
    out: list[JitterRow] = []
    for h in range(ts.n):
        if h == i or ranks[h] >= ranks[i]:
            continue
        parts = [g.G_e for g in ts[h].gpu if g.device in devs and g.G_e > 0]
        if not parts:
            continue
        E = sum(parts)
        out.append(JitterRow(X=E, T=ts[h].T, J=max(0, R_hat[h] - E)))
        if eps:
            out.append(JitterRow(X=2 * eps * len(parts), T=ts[h].T, J=R_hat[h]))
    return out


def analyse(
    ts: SegmentedTaskSet,
    m: int,
    mode: WaitMode,
    protocol: str,
    *,
    epsilon: int | None = None,
    time_slice: int | None = None,
    gpu_priorities: Sequence[int] | None = None,
    stop: bool = True,
    default_time_slice: int | None = None,
) -> PreemptiveAnalysis:
    """Every equation of the module docstring for ``ts`` on ``m`` cores (Python ints).

    ``stop``: return at the first failing task (the verdict needs no more); otherwise a task whose
    bound needs a failed task's R is marked not computed. ``epsilon`` and ``time_slice``: None
    takes the set's driver, else 0 and ``default_time_slice`` (:func:`driver_options`).
    """
    eps_in, L_in, eps_src, L_src = driver_options(ts.driver, epsilon, time_slice, default_time_slice=default_time_slice)
    proto, eps, L, ranks = check_options(ts.n, protocol, eps_in, L_in, gpu_priorities)
    check_cores(ts, m)
    modes = effective_modes(ts, mode)
    bounds = [TaskBound(i, t.core, modes[i]) for i, t in enumerate(ts)]  # type: ignore[arg-type]
    first_fail: int | None = None
    for i, t in enumerate(ts):
        b = bounds[i]
        hp = tuple(h for h in range(i) if ts[h].core == t.core)
        devices = set(t.devices())
        needs = set(hp)
        if proto == GCAPS:
            needs |= {h for h in range(i) if ranks[h] < ranks[i] and devices.intersection(g.device for g in ts[h].gpu)}
        if any(not bounds[h].ok for h in needs):
            continue  # not computed: a task it depends on has no bound
        b.computed = True
        b.hp = hp
        R_hat = [bounds[h].R if h < i else ts[h].D for h in range(ts.n)]
        for s in range(t.eta):
            if proto == GCAPS:
                db = gcaps_device_bound(ts, i, s, eps, ranks, R_hat, t.D)  # type: ignore[arg-type]
            else:
                assert L is not None
                db = tsg_device_bound(ts, i, s, eps, L, t.D)
            b.devices.append(db)
        failed = next((db for db in b.devices if db.B is None), None)
        if failed is not None:
            tag = "(DEV-G)" if proto == GCAPS else "(DEV-R)"
            b.failing = f"{tag} segment {failed.segment + 1} on {failed.device}: {failed.terms} > D = {t.D}"
        else:
            own = t.C + t.G_m + sum(db.B for db in b.devices if db.B is not None)  # (OWN-P)
            b.own = own
            if own > t.D:
                b.failing = f"(OWN-P) own work {own} > D = {t.D}"
            else:
                b.rows = tuple(_row(ts, h, modes, bounds[h]) for h in hp)
                b.search = jitter_response(own, t.D, b.rows)  # (R-P)
                if b.search.response is None:
                    b.failing = f"(R-P) reaches {b.search.value} > D = {t.D}"
        if proto == GCAPS and t.eta:
            core_rows = tuple(_row(ts, h, modes, bounds[h]) for h in hp)
            b.window_own = t.C + t.G + eps * sum(1 for g in t.gpu if g.G_e > 0)
            b.window_rows = core_rows + tuple(_window_rows(ts, i, eps, ranks, R_hat))  # type: ignore[arg-type]
            b.window = jitter_response(b.window_own, t.D, b.window_rows)  # (W-G)
            if b.R is None:
                b.failing = (b.failing + "; " if b.failing else "") + f"(W-G) reaches {b.window.value} > D = {t.D}"
        if b.R is None and first_fail is None:
            first_fail = i
            if stop:
                break
    return PreemptiveAnalysis(
        proto,
        eps,
        L,
        ranks,
        modes,
        tuple(bounds),
        first_fail is None,
        first_fail,
        eps_src,
        L_src if L is not None else None,
    )


_SOURCE_TEXT = {KEYWORD: "keyword", SET_DRIVER: "the set's driver", DEFAULT: "default"}


def _shown(b: TaskBound, D: int) -> int | str:
    if not b.computed:
        return "not computed"
    return b.R if b.R is not None else f"> {D}"


def explain(
    ts: SegmentedTaskSet,
    m: int,
    *,
    mode: WaitMode,
    protocol: str,
    epsilon: int | None = None,
    time_slice: int | None = None,
    gpu_priorities: Sequence[int] | None = None,
    default_time_slice: int | None = None,
) -> Explanation:
    """Per-task rows (core, mode, device bounds, own work, R and terms, X and J below), failing term, steps.

    The evidence and the summary say which ε and L were used and where they came from
    (``epsilon_source``, ``time_slice_source``: keyword, set driver or default).
    """
    a = analyse(
        ts,
        m,
        mode,
        protocol,
        epsilon=epsilon,
        time_slice=time_slice,
        gpu_priorities=gpu_priorities,
        stop=False,
        default_time_slice=default_time_slice,
    )
    name = _NAMES[a.protocol]
    per_task: list[dict[str, Any]] = []
    contrib: dict[int, JitterRow] = {b.task: _row(ts, b.task, a.modes, b) for b in a.bounds if b.ok}

    def shown_terms(own: int | None, rows: Sequence[JitterRow], search: JitterSearch | None) -> str:
        if search is None:
            return "-"
        R = search.last
        parts = [f"⌈({R} + {r.J})/{r.T}⌉·{r.X}" if r.J else f"⌈{R}/{r.T}⌉·{r.X}" for r in rows]
        return " + ".join([str(own), *parts]) + f" = {search.value}"

    def shown_search(search: JitterSearch | None, D: int) -> int | str:
        if search is None:
            return "-"
        return search.response if search.response is not None else f"> {D}"

    for b in a.bounds:
        t = ts[b.task]
        terms = shown_terms(b.own, b.rows, b.search)
        window_terms = shown_terms(b.window_own, b.window_rows, b.window)
        c = contrib.get(b.task)
        per_task.append(
            {
                "task": ts.label(b.task),
                "core": b.core,
                "mode": b.mode,
                "gpu_rank": a.ranks[b.task],
                "C": t.C,
                "G_m": t.G_m,
                "G_e": t.G_e,
                "T": t.T,
                "D": t.D,
                "device_bounds": "; ".join(
                    f"{db.device}: {db.B if db.B is not None else f'> {t.D}'}" for db in b.devices
                )
                or "-",
                "own": "-" if b.own is None else b.own,
                "hp": ", ".join(ts.label(h) for h in b.hp) or "-",
                "R_segments": shown_search(b.search, t.D),
                "R_window": shown_search(b.window, t.D),
                "R": _shown(b, t.D),
                "terms": terms,
                "window_terms": window_terms,
                "X": "-" if c is None else c.X,
                "J": "-" if c is None else c.J,
                "ok": b.ok,
            }
        )
    failing_term = None
    if a.failing_task is not None:
        failing_term = f"{ts.label(a.failing_task)}: {a.bounds[a.failing_task].failing}"
    evidence: dict[str, Any] = {
        "protocol": protocol,
        "mode": mode,
        "epsilon": a.epsilon,
        "epsilon_source": a.epsilon_source,
        "time_slice": a.time_slice,
        "time_slice_source": a.time_slice_source,
        "gpu_priorities": a.ranks,
        "response_times": tuple(b.R for b in a.bounds),
        "device_bounds": tuple(tuple(db.B for db in b.devices) for b in a.bounds),
        "own": tuple(b.own for b in a.bounds),
        "failing_task": a.failing_task,
        "failing_term": failing_term,
    }
    opts = f"ε = {a.epsilon} ({_SOURCE_TEXT[a.epsilon_source]})" + (
        f", time slice {a.time_slice} ({_SOURCE_TEXT[a.time_slice_source or DEFAULT]})"
        if a.time_slice is not None
        else ""
    )
    what = f"{name} preemptive GPU RTA (default mode {mode}, {opts})"
    verdict: Verdict = a.verdict
    summary = f"{what}: R ≤ D for every task" if verdict else f"{what}: not proven: {failing_term}"
    tag = "(DEV-G)" if a.protocol == GCAPS else "(DEV-R)"

    def steps() -> Iterator[Step | str]:
        yield Step(f"{what}: rtsched's analysis after Wang et al., ECRTS 2024 (papers/cpu-gpu-model.md semantics)")
        yield Step(
            f"each GPU segment: device bound B {tag}; own = C + G_m + Σ B (OWN-P); "
            "R = own + Σ_hp ⌈(R + J_h)/T_h⌉·X_h (R-P), X/J by (X-P)"
            + (
                "; or the whole window: R = C + G + ε·η + core rows + higher-GPU-priority work and switches "
                "on its devices (W-G); R = min"
                if a.protocol == GCAPS
                else ""
            )
        )
        for b in a.bounds:
            t = ts[b.task]
            head = f"{ts.label(b.task)} (core {b.core}, {b.mode}, GPU rank {a.ranks[b.task]}, D = {t.D})"
            if not b.computed:
                yield Step(head + ": not computed (a task it depends on has no bound)")
                continue
            for db in b.devices:
                yield Step(f"  {head}: segment {db.segment + 1} on {db.device}: B = {db.terms}")
            row = per_task[b.task]
            if b.search is not None:
                yield Step(f"  {head}: (R-P) R = {row['terms']} → {row['R_segments']}")
            if b.window is not None:
                yield Step(f"  {head}: (W-G) R = {row['window_terms']} → {row['R_window']}")
            if b.ok:
                yield Step(f"  {head}: R = {b.R} ≤ D: passes")
            else:
                yield Step(f"  {head}: fails: {b.failing}")
        yield Step("every task passes: schedulable" if verdict else "not proven schedulable")

    return Explanation(verdict=verdict, summary=summary, evidence=evidence, per_task=per_task, steps=steps)


# ---------------------------------------------------------------------------------------------
# GPU priority assignment (after the paper's Sec. 5.3 and 6.4): Audsley's search with R̂ = D
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GPAStep:
    """One level of the search: the GPU rank given, the candidates tried and their (OPA-D) bounds (None: > D)."""

    rank: int
    tried: tuple[tuple[int, int | None], ...]
    chosen: int | None


def _level_ranks(n: int, above: Sequence[int], me: int) -> list[int]:
    """Ranks that make exactly ``above`` higher than ``me`` (0 for them, 1 for ``me``, 2 for the rest)."""
    ranks = [2] * n
    for x in above:
        ranks[x] = 0
    ranks[me] = 1
    return ranks


def opa_bound(ts: SegmentedTaskSet, c: int, unassigned: Sequence[int], modes: Sequence[str], eps: int) -> int | None:
    """(OPA-D): task c's bound with every other task of ``unassigned`` above it on the GPU, R̂ = D everywhere.

    min((R-P), (W-G)) with that set above c (device bounds (DEV-G)); a busy same-core task h above c counts
    X_h = min(D_h, C_h + G^m_h + Σ_s B̂_{h,s}) with B̂ computed with ``unassigned`` ∖ {h, c} above h;
    a suspending one X_h = C_h + G^m_h, J_h = D_h − X_h. None if above D_c.
    """
    t = ts[c]
    D = [u.D for u in ts]
    others = [x for x in unassigned if x != c]
    ranks = _level_ranks(ts.n, others, c)
    rows = []
    for h in range(c):
        u = ts[h]
        if u.core != t.core:
            continue
        if _suspends(ts, h, modes):
            X = u.C + u.G_m
            rows.append(JitterRow(X=X, T=u.T, J=max(0, u.D - X)))
            continue
        ranks_h = _level_ranks(ts.n, [x for x in others if x != h], h)
        X = u.C + u.G_m
        for s in range(u.eta):
            B = gcaps_device_bound(ts, h, s, eps, ranks_h, D, u.D).B
            X += u.D if B is None else B
        rows.append(JitterRow(X=min(X, u.D), T=u.T, J=0))
    found = []
    own = t.C + t.G_m
    for s in range(t.eta):
        B = gcaps_device_bound(ts, c, s, eps, ranks, D, t.D).B
        own += t.D + 1 if B is None else B
    if own <= t.D:
        found.append(jitter_response(own, t.D, rows).response)  # (R-P) with R̂ = D
    if t.eta:
        window_own = t.C + t.G + eps * sum(1 for g in t.gpu if g.G_e > 0)
        found.append(jitter_response(window_own, t.D, rows + _window_rows(ts, c, eps, ranks, D)).response)  # (W-G)
    values = [x for x in found if x is not None]
    return min(values) if values else None


def gpa_search(
    ts: SegmentedTaskSet, m: int, mode: WaitMode, epsilon: int | None = None
) -> tuple[tuple[int, ...] | None, tuple[GPAStep, ...]]:
    """Audsley's search for GPU ranks under (OPA-D), keeping each core's CPU order; (ranks or None, steps).

    ``epsilon`` None: the set's driver's ε, else 0.
    """
    check_cores(ts, m)
    eps = _count(driver_options(ts.driver, epsilon, None)[0], "epsilon", 0)
    modes = effective_modes(ts, mode)
    unassigned = list(range(ts.n))
    ranks = [0] * ts.n
    steps: list[GPAStep] = []
    for rank in range(ts.n - 1, -1, -1):
        lowest_on_core = {ts[x].core: x for x in unassigned}  # the last (lowest CPU priority) per core
        candidates = sorted(lowest_on_core.values(), reverse=True)
        tried: list[tuple[int, int | None]] = []
        chosen = None
        for c in candidates:
            R = opa_bound(ts, c, unassigned, modes, eps)
            tried.append((c, R))
            if R is not None:
                chosen = c
                break
        steps.append(GPAStep(rank, tuple(tried), chosen))
        if chosen is None:
            return None, tuple(steps)
        ranks[chosen] = rank
        unassigned.remove(chosen)
    return tuple(ranks), tuple(steps)


def gpa_analyse(
    ts: SegmentedTaskSet, m: int, mode: WaitMode, epsilon: int | None = None
) -> tuple[PreemptiveAnalysis, tuple[GPAStep, ...]]:
    """The task order first; if it fails, the ranks :func:`gpa_search` finds (then analysed by :func:`analyse`)."""
    first = analyse(ts, m, mode, "gcaps", epsilon=epsilon, stop=False)
    if first.verdict:
        return first, ()
    ranks, steps = gpa_search(ts, m, mode, epsilon)
    if ranks is None:
        return first, steps
    return analyse(ts, m, mode, "gcaps", epsilon=epsilon, gpu_priorities=ranks, stop=False), steps


# ---------------------------------------------------------------------------------------------
# kernel (int64): the reference's evaluations; values are abandoned as soon as they exceed D_i
# ---------------------------------------------------------------------------------------------


@kernel
def _device_bound_nb(i, s, T, D, go, sG_e, sdev, ranks, R_hat, proto, eps, L, cap):
    """(DEV-G)/(DEV-R) of segment s (absolute index) of task i (set-local arrays); above cap: cap + 1."""
    n = T.shape[0]
    g = sG_e[s]
    if g == 0:
        return 0
    d = sdev[s]
    if proto == 1:
        rounds = (g + L - 1) // L
        per_round = 0
        any_other = False
        for k in range(n):
            if k == i:
                continue
            M = 0
            found = False
            for y in range(go[k], go[k + 1]):
                if sdev[y] == d and sG_e[y] > 0:
                    found = True
                    if sG_e[y] > M:
                        M = sG_e[y]
            if found:
                any_other = True
                per_round += eps + (M if M < L else L)
                if per_round > cap:
                    return cap + 1
        B = g + eps
        if any_other:
            B += (rounds - 1) * eps
        B += rounds * per_round  # rounds ≤ g ≤ cap and per_round ≤ cap: below 2**62
        return B if B <= cap else cap + 1
    base = g + eps
    B = base
    for h in range(n):
        if h == i or ranks[h] >= ranks[i]:
            continue
        for y in range(go[h], go[h + 1]):
            if sdev[y] == d and sG_e[y] > 0:
                B += sG_e[y] + 2 * eps
    if B > cap:
        return cap + 1
    while True:
        value = base
        for h in range(n):
            if h == i or ranks[h] >= ranks[i]:
                continue
            E = 0
            eta = 0
            for y in range(go[h], go[h + 1]):
                if sdev[y] == d and sG_e[y] > 0:
                    E += sG_e[y]
                    eta += 1
            if eta == 0:
                continue
            J = R_hat[h] - E
            if J < 0:
                J = 0
            c = (B + J + T[h] - 1) // T[h]  # B ≤ cap and J ≤ D_h: below 2**32
            if c > cap // E:  # c·E > cap (checked before the product: no overflow)
                return cap + 1
            value += c * E
            if eps > 0:
                w = 2 * eps * eta  # eps ≤ cap (base ≤ cap)
                c = (B + R_hat[h] + T[h] - 1) // T[h]
                if c > cap // w:
                    return cap + 1
                value += c * w
            if value > cap:
                return cap + 1
        if value == B:
            return B
        B = value


@kernel
def _window_rows_nb(i, ranks, R_hat, T, go, sG_e, sdev, eps, Di, rX, rT, rJ, nr):
    """Append (W-G)'s device rows of task i from ``rX[nr]`` on; the new count, or −1 if a term alone exceeds Di."""
    n = T.shape[0]
    for h in range(n):
        if h == i or ranks[h] >= ranks[i]:
            continue
        E = 0
        eta = 0
        for y in range(go[h], go[h + 1]):
            if sG_e[y] == 0:
                continue
            shared = False
            for z in range(go[i], go[i + 1]):
                if sdev[z] == sdev[y]:
                    shared = True
                    break
            if shared:
                E += sG_e[y]
                eta += 1
        if eta == 0:
            continue
        if E > Di or 2 * eps * eta > Di:  # the term alone exceeds D (and no product can overflow)
            return -1
        rX[nr] = E
        rT[nr] = T[h]
        rJ[nr] = R_hat[h] - E if R_hat[h] > E else 0
        nr += 1
        if eps > 0:
            rX[nr] = 2 * eps * eta
            rT[nr] = T[h]
            rJ[nr] = R_hat[h]
            nr += 1
    return nr


@kernel
def _window_response_nb(
    i, ranks, R_hat, C, G_m_tot, G_e_tot, T, go, sG_e, sdev, eps, Di, X, J, hp, nh, rX, rT, rJ, idx
):
    """(W-G) of task i (GCAPS): own work and switches, core rows of ``hp[:nh]``, window rows; above Di: Di + 1."""
    ow = C[i] + G_m_tot[i] + G_e_tot[i]
    for s in range(go[i], go[i + 1]):
        if sG_e[s] > 0:
            ow += eps
    nr = np.int64(0)  # int64, not the literal 0 (issue #46)
    for x in range(nh):
        rX[nr] = X[hp[x]]
        rT[nr] = T[hp[x]]
        rJ[nr] = J[hp[x]]
        nr += 1
    nr = _window_rows_nb(i, ranks, R_hat, T, go, sG_e, sdev, eps, Di, rX, rT, rJ, nr)
    if ow <= Di and nr >= 0:
        return jitter_response_nb(ow, Di, rX, rT, rJ, idx, nr)
    return Di + 1


@kernel
def _set_code(C, G_m_tot, G_e_tot, T, D, core, mode, go, sG_e, sdev, ranks, default_mode, proto, eps, L):
    """ACCEPT iff every task of the set meets min((R-P), (W-G)) ≤ D (set-local task arrays; go indexes the segments)."""
    n = T.shape[0]
    md = np.empty(n, dtype=np.int64)
    for k in range(n):
        md[k] = mode[k] if mode[k] != 0 else default_mode
    R_hat = D.copy()
    X = np.zeros(n, dtype=np.int64)
    J = np.zeros(n, dtype=np.int64)
    hp = np.empty(n, dtype=np.int64)
    rX = np.empty(3 * n, dtype=np.int64)
    rT = np.empty(3 * n, dtype=np.int64)
    rJ = np.empty(3 * n, dtype=np.int64)
    idx = np.arange(3 * n)
    for i in range(n):
        Di = D[i]
        best = Di + 1
        # (OWN-P) and (R-P): abandoned (o > Di) as soon as the own work exceeds D
        o = C[i] + G_m_tot[i]
        if o <= Di:
            for s in range(go[i], go[i + 1]):
                o += _device_bound_nb(i, s, T, D, go, sG_e, sdev, ranks, R_hat, proto, eps, L, Di)
                if o > Di:
                    break
        nh = np.int64(0)  # int64, not the literal 0: a literal argument compiles the callee once more (issue #46)
        for h in range(i):
            if core[h] == core[i]:
                hp[nh] = h
                nh += 1
        if o <= Di:
            best = jitter_response_nb(o, Di, X, T, J, hp, nh)
        # (W-G), GCAPS: the core rows, then per task of higher GPU priority its work and switches on i's devices
        if proto == 0 and go[i + 1] > go[i]:
            w = _window_response_nb(
                i, ranks, R_hat, C, G_m_tot, G_e_tot, T, go, sG_e, sdev, eps, Di, X, J, hp, nh, rX, rT, rJ, idx
            )
            if w < best:
                best = w
        if best > Di:
            return REJECT
        R_hat[i] = best
        if md[i] == 2 and G_e_tot[i] > 0:  # suspending: X = C + G_m, J = R − X
            X[i] = C[i] + G_m_tot[i]
            J[i] = best - X[i]
        else:  # never suspends: X = min(own, R), J = 0
            X[i] = o if o < best else best
            J[i] = 0
    return ACCEPT


@batch_kernel
def _preemptive_sets(
    C, G_m_tot, G_e_tot, T, D, core, mode, go, sG_e, sdev, ranks, task_offsets, default_mode, proto, eps, L, out
):
    """``out[s]`` = ``_set_code`` of set s with its own ``eps[s]`` and ``L[s]``, in ``prange`` over the sets."""
    for s in prange(out.shape[0]):
        lo, hi = task_offsets[s], task_offsets[s + 1]
        out[s] = _set_code(
            C[lo:hi], G_m_tot[lo:hi], G_e_tot[lo:hi], T[lo:hi], D[lo:hi], core[lo:hi], mode[lo:hi],
            go[lo : hi + 1], sG_e, sdev, ranks[lo:hi], default_mode, proto, eps[s], L[s],
        )  # fmt: skip


def batch_driver_options(
    batch: SegmentedBatch,
    protocol: str,
    epsilon: Any,
    time_slice: Any,
    *,
    default_time_slice: int | None = None,
) -> tuple[int, NDArray[np.int64], NDArray[np.int64]]:
    """The protocol code and ε and L per set (:func:`driver_options` for each set's driver; L 1 where unused).

    Values are checked by :func:`check_options`; an InputError from a set's driver names the set.
    """
    proto = check_options(
        0, protocol, 0 if epsilon is None else epsilon, 1 if time_slice is None else time_slice, None
    )[0]
    n = batch.n_sets
    eps = np.zeros(n, dtype=np.int64)
    L = np.ones(n, dtype=np.int64)
    for s, driver in enumerate(batch.drivers()):
        e, sl, _, _ = driver_options(driver, epsilon, time_slice, default_time_slice=default_time_slice)
        try:
            _, eps[s], L_s, _ = check_options(0, protocol, e, sl, None)
        except InputError as err:
            raise err.located(set_index=s) from None
        if L_s is not None:
            L[s] = L_s
    return proto, eps, L


def preemptive_codes(
    batch: SegmentedBatch,
    m: int,
    mode: WaitMode,
    protocol: str,
    *,
    epsilon: int | None = None,
    time_slice: int | None = None,
    gpu_priorities: Sequence[int] | NDArray[np.int64] | None = None,
    default_time_slice: int | None = None,
) -> NDArray[np.int8]:
    """Codes per set (1 accept, 0 reject): the kernel of (R-P) under ``protocol`` (``gcaps`` or ``tsg-rr``).

    ``gpu_priorities`` (gcaps): every task's GPU rank within its set, flat over the batch (length
    ``n_tasks``, a permutation of 0..n−1 per set); default the task order. ``epsilon``,
    ``time_slice``: None takes each set's driver, else 0 and ``default_time_slice``.
    """
    if mode not in MODE_CODE:
        raise InputError(f"mode must be busy or suspend, got {mode!r}", field="mode")
    proto, eps, L = batch_driver_options(batch, protocol, epsilon, time_slice, default_time_slice=default_time_slice)
    check_batch_cores(batch, m)
    offsets = batch.task_offsets
    if gpu_priorities is None:
        ranks = np.arange(batch.n_tasks, dtype=np.int64) - np.repeat(offsets[:-1], np.diff(offsets))
    else:
        if proto != GCAPS:
            raise InputError("gpu_priorities applies to protocol gcaps only", field="gpu_priorities")
        ranks = np.asarray(gpu_priorities, dtype=np.int64)
        if ranks.shape != (batch.n_tasks,):
            raise InputError(
                f"gpu_priorities must give one rank per task of the batch ({batch.n_tasks}), got {ranks.shape}",
                field="gpu_priorities",
            )
        for s in range(batch.n_sets):
            lo, hi = int(offsets[s]), int(offsets[s + 1])
            if sorted(ranks[lo:hi].tolist()) != list(range(hi - lo)):
                raise InputError(
                    f"gpu_priorities of set {s} must be a permutation of 0..{hi - lo - 1}", field="gpu_priorities"
                )
    out = np.empty(batch.n_sets, dtype=np.int8)
    _preemptive_sets(
        batch.C, batch.G_m_total, batch.G_e_total, batch.T, batch.D, batch.core, batch.mode,
        batch.gpu_offsets, batch.G_e, batch.device, ranks, batch.task_offsets, MODE_CODE[mode], proto, eps,
        L, out,
    )  # fmt: skip
    return out


@kernel
def _opa_bound_nb(
    c, unassigned, C, G_m_tot, G_e_tot, T, D, core, md, go, sG_e, sdev, eps, lv, X, J, hp, rX, rT, rJ, idx
):
    """(OPA-D) of task c (``unassigned[k]`` 1 for the tasks not yet given a rank); above D_c: D_c + 1."""
    n = T.shape[0]
    Dc = D[c]
    nh = np.int64(0)  # int64, not the literal 0: a literal argument compiles the callee once more (issue #46)
    for h in range(c):
        if core[h] != core[c]:
            continue
        if md[h] == 2 and G_e_tot[h] > 0:
            X[h] = C[h] + G_m_tot[h]
            J[h] = D[h] - X[h] if D[h] > X[h] else 0
        else:
            for x in range(n):
                lv[x] = 0 if (unassigned[x] == 1 and x != c and x != h) else 2
            lv[h] = 1
            x_h = C[h] + G_m_tot[h]
            for s in range(go[h], go[h + 1]):
                if x_h > D[h]:
                    break
                x_h += _device_bound_nb(h, s, T, D, go, sG_e, sdev, lv, D, 0, eps, 1, D[h])
            X[h] = x_h if x_h < D[h] else D[h]
            J[h] = 0
        hp[nh] = h
        nh += 1
    for x in range(n):
        lv[x] = 0 if (unassigned[x] == 1 and x != c) else 2
    lv[c] = 1
    best = Dc + 1
    o = C[c] + G_m_tot[c]
    if o <= Dc:
        for s in range(go[c], go[c + 1]):
            o += _device_bound_nb(c, s, T, D, go, sG_e, sdev, lv, D, 0, eps, 1, Dc)
            if o > Dc:
                break
    if o <= Dc:
        best = jitter_response_nb(o, Dc, X, T, J, hp, nh)
    if go[c + 1] > go[c]:  # (W-G) with R̂ = D
        w = _window_response_nb(
            c, lv, D, C, G_m_tot, G_e_tot, T, go, sG_e, sdev, eps, Dc, X, J, hp, nh, rX, rT, rJ, idx
        )
        if w < best:
            best = w
    return best if best <= Dc else Dc + 1


@kernel
def _gpa_set_code(C, G_m_tot, G_e_tot, T, D, core, mode, go, sG_e, sdev, ranks, default_mode, eps):
    """ACCEPT iff the task order passes (R-P) under GCAPS or Audsley's search under (OPA-D) gives every task a rank."""
    if _set_code(C, G_m_tot, G_e_tot, T, D, core, mode, go, sG_e, sdev, ranks, default_mode, 0, eps, 1) == ACCEPT:
        return ACCEPT
    n = T.shape[0]
    md = np.empty(n, dtype=np.int64)
    for k in range(n):
        md[k] = mode[k] if mode[k] != 0 else default_mode
    unassigned = np.ones(n, dtype=np.int64)
    lv = np.empty(n, dtype=np.int64)
    X = np.zeros(n, dtype=np.int64)
    J = np.zeros(n, dtype=np.int64)
    hp = np.empty(n, dtype=np.int64)
    rX = np.empty(3 * n, dtype=np.int64)
    rT = np.empty(3 * n, dtype=np.int64)
    rJ = np.empty(3 * n, dtype=np.int64)
    idx = np.arange(3 * n)
    for _ in range(n):
        chosen = -1
        for c in range(n - 1, -1, -1):  # candidates from the lowest CPU priority up
            if unassigned[c] == 0:
                continue
            lowest = True  # no unassigned task of lower CPU priority on its core
            for x in range(c + 1, n):
                if unassigned[x] == 1 and core[x] == core[c]:
                    lowest = False
                    break
            if not lowest:
                continue
            R = _opa_bound_nb(
                c, unassigned, C, G_m_tot, G_e_tot, T, D, core, md, go, sG_e, sdev, eps, lv, X, J, hp, rX, rT, rJ, idx
            )
            if R <= D[c]:
                chosen = c
                break
        if chosen < 0:
            return REJECT
        unassigned[chosen] = 0
    return ACCEPT


@batch_kernel
def _gpa_sets(C, G_m_tot, G_e_tot, T, D, core, mode, go, sG_e, sdev, ranks, task_offsets, default_mode, eps, out):
    """``out[s]`` = ``_gpa_set_code`` of set s with its own ``eps[s]``, in ``prange`` over the sets."""
    for s in prange(out.shape[0]):
        lo, hi = task_offsets[s], task_offsets[s + 1]
        out[s] = _gpa_set_code(
            C[lo:hi], G_m_tot[lo:hi], G_e_tot[lo:hi], T[lo:hi], D[lo:hi], core[lo:hi], mode[lo:hi],
            go[lo : hi + 1], sG_e, sdev, ranks[lo:hi], default_mode, eps[s],
        )  # fmt: skip


def gpa_codes(batch: SegmentedBatch, m: int, mode: WaitMode, *, epsilon: int | None = None) -> NDArray[np.int8]:
    """Codes per set (1 accept, 0 reject): the task order under GCAPS, else Audsley's search (:func:`gpa_analyse`).

    ``epsilon`` None: each set's driver's ε, else 0.
    """
    if mode not in MODE_CODE:
        raise InputError(f"mode must be busy or suspend, got {mode!r}", field="mode")
    _, eps, _ = batch_driver_options(batch, "gcaps", epsilon, None)
    check_batch_cores(batch, m)
    offsets = batch.task_offsets
    ranks = np.arange(batch.n_tasks, dtype=np.int64) - np.repeat(offsets[:-1], np.diff(offsets))
    out = np.empty(batch.n_sets, dtype=np.int8)
    _gpa_sets(
        batch.C, batch.G_m_total, batch.G_e_total, batch.T, batch.D, batch.core, batch.mode,
        batch.gpu_offsets, batch.G_e, batch.device, ranks, batch.task_offsets, MODE_CODE[mode], eps, out,
    )  # fmt: skip
    return out
