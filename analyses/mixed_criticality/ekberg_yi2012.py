"""Demand-bound EDF test with tuned virtual deadlines for dual-criticality tasks (Ekberg & Yi, ECRTS 2012).

Paper (note: papers/ekberg-yi2012-mc-demand.md): P. Ekberg, W. Yi, "Bounding and shaping the demand
of mixed-criticality sporadic tasks", ECRTS 2012, pp. 135-144 (journal version: "Bounding and
shaping the demand of generalized mixed-criticality sporadic task systems", Real-Time Systems
50(1), 2014). The full text could not be read here (see the note): the tags (E1)-(E5) are
rtsched's, the formulas are as rtsched understands the paper, and the greedy tuning is
rtsched's reading of the paper's algorithm (any tuning gives a sound test: the verdict is the
final check of (E1) and (E4) with the deadlines it found).

Model: one processor, constrained deadlines D ≤ T. Each HI task τ_i runs in LO mode with a virtual
relative deadline D'_i, C_i(LO) ≤ D'_i ≤ D_i (LO tasks keep D_i); at the mode switch the HI jobs
take their real deadlines and the LO tasks are dropped (AMC). EDF schedules by those deadlines
(the simulator's ``edf-vd`` with ``virtual_deadlines``).

* (E0) rtsched's first step, not the paper's: if EDF with the real deadlines (D' = D) meets every
  deadline when every job runs its own level's WCET (C(LO) for a LO task, C(HI) for a HI task), the
  set is accepted with D' = D and no tuning: the processor-demand criterion on the rows
  (C(own level), D, T), by QPA. Proof (papers/ekberg-yi2012-mc-demand.md, "(E0)"): with D' = D the
  run-time scheduler is plain EDF in both modes; every job's demand is at most its own-level WCET,
  and dropping the LO jobs at the switch only removes work, so every job set the system can
  produce is a job-by-job reduction of one that the demand criterion proves EDF-feasible, and EDF
  is optimal on one processor. Without it, (E2)-(E4) reject every set with a HI task whose
  C(HI) > C(LO) until its D' is lowered (a carry-over job with zero slack at ℓ = 0), and the greedy
  tuning can get stuck on sets that plain EDF schedules (an all-HI set with U_HH = 23/24, and sets
  of the mc example at U = 0.2-0.6: papers/mc-experiments.md). ``tune(..., plain_edf=False)`` runs
  the paper's steps alone.
* (E1) LO mode: Σ_LO dbf(C(LO), D, T, ℓ) + Σ_HI dbf(C(LO), D', T, ℓ) ≤ ℓ for every ℓ ≥ 0: the
  processor-demand criterion on the rows (C(LO), D', T), decided by QPA (Zhang & Burns 2009;
  :mod:`rtsched.analyses.theory.edf_demand`).
* (E2) HI-mode demand of a HI task in an interval of length ℓ that starts at the switch, with
  a = D − D' and n = ℓ mod T:
  full(ℓ) = max(0, ⌊(ℓ − a)/T⌋ + 1)·C(HI), done(ℓ) = max(0, C(LO) − n + a) if a ≤ n < D, else 0,
  dbf_HI(ℓ) = full(ℓ) − done(ℓ). rtsched uses the equal form (for C(LO) ≤ D'):
  dbf_HI(ℓ) = (k + 1)·C(HI) − max(0, C(LO) − r) for ℓ ≥ a with ℓ − a = k·T + r, 0 for ℓ < a.
* (E3) LO tasks have no HI-mode demand.
* (E4) HI mode: Σ_HI dbf_HI(ℓ) ≤ ℓ for every ℓ ≥ 0.
* (E5) Tuning (greedy): start from D' = D (if (E1) fails there, nothing helps: lowering a D' only
  raises LO demand); while (E4) fails, take the least failing ℓ among the points checked and lower
  by one tick the virtual deadline of the HI task whose dbf_HI(ℓ) drops most (lowest index on
  ties; only tasks with D' > C(LO) that are not frozen), then check (E1) (QPA): if it fails, undo
  the decrement and *freeze* that task (its D' can never be lowered again: every later decrement
  only adds LO demand) and take the next best; stop "stuck" when no task lowers dbf_HI(ℓ).
  Lowering D' only lowers HI demand, so every ℓ already passed stays passed. The freezing is
  rtsched's: as far as rtsched reads the paper, its algorithm fails at the first decrement that
  breaks (E1); freezing accepts a superset (papers/ekberg-yi2012-mc-demand.md has a set it saves).

Where (E4) is checked (rtsched's, proved in the note): Σ_HI dbf_HI(ℓ) − ℓ is piecewise linear in ℓ;
it jumps at ℓ = a + k·T and its slope changes at ℓ = a + k·T + C(LO), so its maximum over
[0, L) is at one of those points; and it is negative from L = Σ_HI C(HI)(T − a)/T / (1 − U_HH) on
(each full(ℓ) ≤ C(HI)(ℓ − a + T)/T). U_HH > 1 fails (E4); U_HH = 1 exactly has no such bound and is
"not proven" here (rtsched does not walk a hyperperiod).

Work budget ``budget`` (the same in reference and kernel): each QPA run of (E1) has ``budget``
steps (QPA's own), and the tuning at most ``budget`` tried decrements; past either the verdict
is "unknown". The Python reference also spends a :class:`~rtsched.budget.Work` budget.

Layers: :func:`reference` / :func:`tune` (Python ints and Fractions), :func:`explain` (tuned
deadlines per task, the HI-mode witness, both modes' checks, each decrement) and :func:`codes`
(``prange`` over an :class:`~rtsched.mc.MCBatch`; integer arithmetic but for the bound L, which is
over-estimated in floats: points past the true L never fail, so the verdict and the decrements are
the reference's). The registry applies the analysis only when m == 1.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
from numba import prange
from numpy.typing import NDArray

from rtsched.analyses.theory.edf_demand import DemandTrace, qpa_one, qpa_trace
from rtsched.budget import REFERENCE_WORK, Work, WorkExhausted
from rtsched.kernels import ACCEPT, EPS, REJECT, UNDECIDED, UNKNOWN, batch_kernel, kernel
from rtsched.mc.model import MCBatch, MCTaskSet
from rtsched.model import fraction_sum
from rtsched.registry import Analysis
from rtsched.result import UNKNOWN as UNKNOWN_VERDICT
from rtsched.result import Explanation, Step, Verdict
from rtsched.workloads import MC_TASKSETS

__all__ = [
    "ANALYSES",
    "BUDGET",
    "CITATION",
    "Tuning",
    "codes",
    "dbf_hi",
    "explain",
    "hi_demand_bound",
    "reference",
    "tune",
]

CITATION = (
    "Ekberg, Yi, 'Bounding and shaping the demand of mixed-criticality sporadic tasks', ECRTS 2012: "
    "LO- and HI-mode demand bound functions with per-task virtual deadlines, tuned greedily; "
    "rtsched's step (E0) first: plain EDF with the real deadlines on the own-level WCETs"
)
NOTE = "papers/ekberg-yi2012-mc-demand.md"
#: Default work budget: QPA steps per LO-mode check, and deadline decrements of the tuning.
BUDGET = 10**6


def dbf_hi(C_lo: int, C_hi: int, D: int, D_lo: int, T: int, ell: int) -> int:
    """(E2) HI-mode demand of a HI task in an interval of length ``ell`` from the switch (needs C_lo ≤ D_lo ≤ D ≤ T).

    ``(k + 1)·C(HI) − max(0, C(LO) − r)`` with ``ell − a = k·T + r``, ``a = D − D_lo``; 0 for ``ell < a``
    (Ekberg & Yi's full − done, see the module docstring).
    """
    a = D - D_lo
    if ell < a:
        return 0
    k, r = divmod(ell - a, T)
    return (k + 1) * C_hi - max(0, C_lo - r)


def _next_point(C_lo: int, D: int, D_lo: int, T: int, p: int) -> int:
    """The least point a + k·T or a + k·T + C(LO) (k ≥ 0) above ``p``: where (E4) must be checked."""
    a = D - D_lo
    if p < a:
        return a
    k, r = divmod(p - a, T)
    return a + k * T + C_lo if r < C_lo else a + (k + 1) * T


def hi_demand_bound(rows: list[tuple[int, int, int, int, int]], U_HH: Fraction) -> Fraction:
    """L = Σ C(HI)·(T − a)/T / (1 − U_HH) over the HI rows ``(C_lo, C_hi, D, D_lo, T)``: (E4) holds from L on (U_HH < 1)."""
    num = fraction_sum(Fraction(c_hi * (p - (d - d_lo)), p) for _, c_hi, d, d_lo, p in rows)
    return num / (1 - U_HH)


@dataclass(frozen=True)
class Tuning:
    """The outcome of (E1)-(E5) on one set.

    ``reason``: ``"edf"`` ((E0): plain EDF with D' = D passes), ``"ok"``, ``"lo-fails"`` ((E1) fails with D' = D), ``"hi-over"`` (U_HH > 1),
    ``"hi-full"`` (U_HH = 1), ``"stuck"`` (no decrement lowers the HI demand at ``ell``),
    ``"budget"`` (decrements and frozen tasks), ``"lo-budget"`` (a QPA run out of steps),
    ``"work"`` (the reference's Python budget). ``D_lo`` the LO-mode deadlines (D for LO tasks);
    ``ell``/``demand`` the last failing point and its HI demand, ``decrements`` the list of
    (ℓ, demand at ℓ, task) per kept decrement, ``frozen`` the (ℓ, task) of each undone one,
    ``lo_start`` the QPA trace with D' = D, ``U_HH``, ``L`` the final bound; ``plain`` the QPA trace
    of (E0) (``None`` when not run).
    """

    verdict: Verdict
    reason: str
    D_lo: tuple[int, ...]
    ell: int | None
    demand: int | None
    decrements: tuple[tuple[int, int, int], ...]
    frozen: tuple[tuple[int, int], ...]
    lo_start: DemandTrace | None
    U_HH: Fraction | None
    L: Fraction | None
    plain: DemandTrace | None = None


def tune(ts: MCTaskSet, budget: int = BUDGET, work: Work | None = None, *, plain_edf: bool = True) -> Tuning:
    """(E0)-(E5) on ``ts``, exactly (Python ints and Fractions); ``plain_edf=False`` skips rtsched's (E0)."""
    work = Work() if work is None else work
    n = ts.n
    D_lo = [t.D for t in ts]
    hi = ts.hi_tasks()
    decrements: list[tuple[int, int, int]] = []
    frozen = [False] * n
    frozen_at: list[tuple[int, int]] = []  # (ℓ, task) where a decrement broke (E1)
    U_HH: Fraction | None = None
    L: Fraction | None = None

    plain: DemandTrace | None = None

    def done(verdict: Verdict, reason: str, **kw: Any) -> Tuning:
        return Tuning(
            verdict,
            reason,
            tuple(D_lo),
            kw.get("ell"),
            kw.get("demand"),
            tuple(decrements),
            tuple(frozen_at),
            kw.get("lo_start"),
            U_HH,
            L,
            kw.get("plain", plain),
        )

    try:
        lo_start = qpa_trace([(t.C_lo, t.D, t.T) for t in ts], budget, work)  # (E1) with D' = D
        if lo_start.verdict == UNKNOWN_VERDICT:
            return done(UNKNOWN_VERDICT, "work" if lo_start.reason == "work" else "lo-budget", lo_start=lo_start)
        if lo_start.verdict is False:
            return done(False, "lo-fails", lo_start=lo_start)
        plain = None
        if plain_edf:  # (E0) rtsched's: plain EDF, D' = D, every job at its own level's WCET
            plain = qpa_trace([(t.C_hi, t.D, t.T) for t in ts], budget, work)
            if plain.verdict is True:
                return done(True, "edf", lo_start=lo_start, plain=plain)
        work.spend(n)
        U_HH = ts.U_HH
        if U_HH > 1:
            return done(False, "hi-over", lo_start=lo_start)
        if U_HH == 1:
            return done(False, "hi-full", lo_start=lo_start)

        def rows() -> list[tuple[int, int, int, int, int]]:
            return [(ts[i].C_lo, ts[i].C_hi, ts[i].D, D_lo[i], ts[i].T) for i in hi]

        L = hi_demand_bound(rows(), U_HH)
        p = -1  # every ℓ ≤ p satisfies (E4) with the current D'
        while True:
            work.spend(n)
            ell = min(_next_point(ts[i].C_lo, ts[i].D, D_lo[i], ts[i].T, p) for i in hi) if hi else None
            if ell is None or ell >= L:
                break
            h = sum(dbf_hi(ts[i].C_lo, ts[i].C_hi, ts[i].D, D_lo[i], ts[i].T, ell) for i in hi)
            if h <= ell:
                p = ell
                continue
            # (E5) the HI task whose dbf_HI(ell) drops most when its D' drops by one tick, among the
            # tasks not frozen; a decrement that breaks (E1) is undone and freezes its task.
            while True:
                best, best_drop = -1, 0
                for i in hi:
                    t = ts[i]
                    if frozen[i] or D_lo[i] <= t.C_lo:
                        continue
                    drop = dbf_hi(t.C_lo, t.C_hi, t.D, D_lo[i], t.T, ell) - dbf_hi(
                        t.C_lo, t.C_hi, t.D, D_lo[i] - 1, t.T, ell
                    )
                    if drop > best_drop:
                        best, best_drop = i, drop
                if best < 0:
                    return done(False, "stuck", ell=ell, demand=h, lo_start=lo_start)
                if len(decrements) + len(frozen_at) >= budget:  # tried decrements
                    return done(UNKNOWN_VERDICT, "budget", ell=ell, demand=h, lo_start=lo_start)
                D_lo[best] -= 1
                lo = qpa_trace([(t.C_lo, D_lo[i], t.T) for i, t in enumerate(ts)], budget, work)  # (E1)
                if lo.verdict == UNKNOWN_VERDICT:
                    D_lo[best] += 1
                    reason = "work" if lo.reason == "work" else "lo-budget"
                    return done(UNKNOWN_VERDICT, reason, ell=ell, demand=h, lo_start=lo_start)
                if lo.verdict is True:
                    decrements.append((ell, h, best))
                    break
                D_lo[best] += 1
                frozen[best] = True
                frozen_at.append((ell, best))
            L = hi_demand_bound(rows(), U_HH)
        return done(True, "ok", lo_start=lo_start)
    except WorkExhausted:
        return done(UNKNOWN_VERDICT, "work")


def reference(ts: MCTaskSet, m: int = 1, budget: int = BUDGET, work_budget: int | None = REFERENCE_WORK) -> Verdict:
    """Ekberg & Yi's test with greedily tuned virtual deadlines: (E1) and (E4) after (E5)."""
    return tune(ts, budget, Work(work_budget)).verdict


_MESSAGES = {
    "edf": "(E0) plain EDF with the real deadlines: the own-level WCETs' demand fits, no virtual deadline needed",
    "ok": "tuned virtual deadlines pass both modes",
    "lo-fails": "LO mode fails even with the real deadlines (EDF on C(LO))",
    "hi-over": "U_HH > 1: the HI tasks overload the processor in HI mode",
    "hi-full": "U_HH = 1: rtsched's HI-mode check needs U_HH < 1",
    "stuck": "no virtual deadline can be lowered to cut the HI-mode demand",
    "budget": "unknown: the tuning ran out of its budget of decrements",
    "lo-budget": "unknown: QPA ran out of its steps",
    "work": "unknown: the reference's work budget ran out",
}


def _steps(ts: MCTaskSet, tu: Tuning) -> Iterator[Step | str]:
    if tu.lo_start is not None:
        yield f"(E1) LO mode with D' = D (QPA on (C(LO), D, T)): {'holds' if tu.lo_start.verdict is True else 'fails'}"
    if tu.reason == "lo-fails":
        yield "lowering virtual deadlines only adds LO-mode demand: not proven"
        return
    if tu.plain is not None:
        yield (
            "(E0) plain EDF with D' = D (QPA on (C(own level), D, T)): "
            + ("holds: accepted without virtual deadlines" if tu.plain.verdict is True else "does not hold")
        )
        if tu.reason == "edf":
            return
    if tu.U_HH is not None:
        yield Step("U_HH = {U}", {"U": tu.U_HH})
    if tu.reason in ("hi-over", "hi-full"):
        yield _MESSAGES[tu.reason] + ": not proven"
        return
    for ell, i in tu.frozen:
        yield Step(
            f"(E5) at ℓ = {{ell}}: lowering D' of {ts.label(i)} breaks (E1): undone, {ts.label(i)} frozen", {"ell": ell}
        )
    for ell, h, i in tu.decrements:
        yield Step(
            f"(E4) fails at ℓ = {{ell}}: Σ dbf_HI = {{h}} > ℓ; (E5) lower D' of {ts.label(i)} by one tick",
            {"ell": ell, "h": h},
        )
    if tu.reason == "stuck":
        yield Step(
            "(E4) fails at ℓ = {ell}: Σ dbf_HI = {h} > ℓ and " + _MESSAGES["stuck"], {"ell": tu.ell, "h": tu.demand}
        )
        return
    if tu.L is not None and tu.reason not in ("budget", "work"):
        yield Step("(E4) holds at every point a + kT and a + kT + C(LO) below L = {L}", {"L": tu.L})
    if tu.reason == "ok" and tu.decrements:
        yield "(E1) held after every kept decrement (QPA on (C(LO), D', T))"
    yield _MESSAGES[tu.reason]


def explain(ts: MCTaskSet, m: int = 1, budget: int = BUDGET, work_budget: int | None = REFERENCE_WORK) -> Explanation:
    """The verdict, the tuned virtual deadlines per task, both modes' checks and the decrements."""
    tu = tune(ts, budget, Work(work_budget))
    per_task = [
        {
            "task": ts.label(i),
            "level": t.criticality,
            "C_LO": t.C_lo,
            "C_HI": t.C_hi if t.is_hi else None,
            "D": t.D,
            "T": t.T,
            "virtual_D": tu.D_lo[i] if t.is_hi else None,
            "decrements": sum(1 for _, _, j in tu.decrements if j == i) if t.is_hi else None,
        }
        for i, t in enumerate(ts)
    ]
    if tu.reason == "edf":
        summary = _MESSAGES["edf"]
    elif tu.reason == "ok":
        shown = ", ".join(f"{ts.label(i)}: {tu.D_lo[i]}" for i in ts.hi_tasks()) or "none (no HI task)"
        summary = f"virtual deadlines {shown}; both modes pass ({len(tu.decrements)} decrements)"
    elif tu.reason == "stuck":
        summary = f"not proven: HI-mode demand {tu.demand} > ℓ = {tu.ell}; {_MESSAGES['stuck']}"
    elif tu.verdict == UNKNOWN_VERDICT:
        summary = _MESSAGES[tu.reason]
    else:
        summary = "not proven: " + _MESSAGES[tu.reason]
    evidence: dict[str, Any] = {
        "reason": tu.reason,
        "virtual_deadlines": tuple(tu.D_lo[i] if t.is_hi else None for i, t in enumerate(ts)),
        "decrements": len(tu.decrements),
        "U_HH": tu.U_HH,
        "L": tu.L,
        "ell": tu.ell,
        "demand": tu.demand,
        "frozen": tuple(i for _, i in tu.frozen),
    }
    return Explanation(
        verdict=tu.verdict, summary=summary, evidence=evidence, per_task=per_task, steps=lambda: list(_steps(ts, tu))
    )


# ----------------------------------------------------------------------------------------------
# Kernel: the same steps in int64 (the bound L over-estimated in float64).
# ----------------------------------------------------------------------------------------------

#: Points above this are not scanned in int64 (the kernel answers UNDECIDED); dbf sums stay below 2**62.
_POINT_LIMIT = 2**52


@kernel(inline="always")
def _dbf_hi_k(C_lo, C_hi, D, D_lo, T, ell):
    a = D - D_lo
    if ell < a:
        return np.int64(0)
    k = (ell - a) // T
    r = (ell - a) - k * T
    return (k + 1) * C_hi - max(np.int64(0), C_lo - r)


@kernel(inline="always")
def _next_point_k(C_lo, D, D_lo, T, p):
    a = D - D_lo
    if p < a:
        return a
    k = (p - a) // T
    r = (p - a) - k * T
    return a + k * T + C_lo if r < C_lo else a + (k + 1) * T


@kernel
def _bound_up(C_hi, D, D_lo, T, level, n, uhh):
    """A float upper bound on L (as an int64 point), or −1 when it exceeds :data:`_POINT_LIMIT`.

    num = Σ C(HI)(T − a)/T errs by at most (n + 1)·EPS·num (non-negative terms), 1 − U_HH by at most
    (n + 2)·EPS (the caller ensures 1 − U_HH > 16(n + 2)·EPS); the quotient is inflated by 2^-20
    relative and 2 ticks, far more than the error.
    """
    num = 0.0
    for i in range(n):
        if level[i] == 1:
            num += C_hi[i] * ((T[i] - (D[i] - D_lo[i])) / T[i])
    L = num / (1.0 - uhh) * (1.0 + 2.0**-20) + 2.0
    if L >= _POINT_LIMIT:
        return np.int64(-1)
    return np.int64(L)


@kernel
def _ey_one(C_lo, C_hi, D, T, level, budget, plain_edf):
    """One set: the code of :func:`tune`'s verdict (UNDECIDED for U_HH within a margin of 1 or a bound past int64)."""
    n = T.shape[0]
    Dl = D.copy()
    code = qpa_one(C_lo, D, T, budget)  # (E1) with D' = D
    if code != ACCEPT:
        return code
    if plain_edf:
        code = qpa_one(C_hi, D, T, budget)  # (E0): C_hi of a LO task is its C(LO)
        if code == ACCEPT or code == UNDECIDED:
            return code
    uhh = 0.0
    has_hi = False
    for i in range(n):
        if level[i] == 1:
            uhh += C_hi[i] / T[i]
            has_hi = True
    if has_hi:
        margin = 16.0 * (n + 2) * EPS * (uhh + 1.0)
        if uhh - 1.0 > margin:
            return REJECT  # U_HH > 1
        if uhh - 1.0 >= -margin:
            return UNDECIDED  # U_HH = 1 (REJECT) or close: exactly in the reference
        L = _bound_up(C_hi, D, Dl, T, level, n, uhh)
        if L < 0:
            return UNDECIDED
        p = np.int64(-1)
        tried = 0
        frozen = np.zeros(n, dtype=np.bool_)
        while True:
            ell = np.int64(-1)
            for i in range(n):
                if level[i] == 1:
                    q = _next_point_k(C_lo[i], D[i], Dl[i], T[i], p)
                    if ell < 0 or q < ell:
                        ell = q
            if ell >= L:
                break
            h = np.int64(0)
            for i in range(n):
                if level[i] == 1:
                    h += _dbf_hi_k(C_lo[i], C_hi[i], D[i], Dl[i], T[i], ell)
            if h <= ell:
                p = ell
                continue
            while True:
                best = -1
                best_drop = np.int64(0)
                for i in range(n):
                    if level[i] == 1 and not frozen[i] and Dl[i] > C_lo[i]:
                        drop = _dbf_hi_k(C_lo[i], C_hi[i], D[i], Dl[i], T[i], ell) - _dbf_hi_k(
                            C_lo[i], C_hi[i], D[i], Dl[i] - 1, T[i], ell
                        )
                        if drop > best_drop:
                            best = i
                            best_drop = drop
                if best < 0:
                    return REJECT
                if tried >= budget:
                    return UNKNOWN
                tried += 1
                Dl[best] -= 1
                lo = qpa_one(C_lo, Dl, T, budget)  # (E1)
                if lo == ACCEPT:
                    break
                if lo != REJECT:
                    return lo  # UNKNOWN, or UNDECIDED (the reference decides)
                Dl[best] += 1
                frozen[best] = True
            L = _bound_up(C_hi, D, Dl, T, level, n, uhh)
    return ACCEPT


@batch_kernel
def _ey_sets(C_lo, C_hi, D, T, level, task_offsets, budget, plain_edf, out):
    """``out[s]`` = ``_ey_one`` of set ``s``, in ``prange`` over the sets."""
    for s in prange(out.shape[0]):
        lo, hi = task_offsets[s], task_offsets[s + 1]
        out[s] = _ey_one(C_lo[lo:hi], C_hi[lo:hi], D[lo:hi], T[lo:hi], level[lo:hi], budget, plain_edf)


def codes(batch: MCBatch, m: int = 1, budget: int = BUDGET, *, plain_edf: bool = True) -> NDArray[np.int8]:
    """Codes for every set of ``batch`` (UNDECIDED ones are re-decided by the registry with :func:`reference`)."""
    out = np.empty(batch.n_sets, dtype=np.int8)
    _ey_sets(batch.C_lo, batch.C_hi, batch.D, batch.T, batch.level, batch.task_offsets, budget, plain_edf, out)
    return out


ANALYSES = (
    Analysis(
        name="mc-edf-ey",
        title="Ekberg & Yi 2012: EDF with greedily tuned virtual deadlines, LO/HI demand bound functions (plain EDF first)",
        citation=CITATION,
        kind="sufficient",
        policy="mc-edf-vd",
        platform="uniprocessor",
        deadlines=("implicit", "constrained"),
        workload=MC_TASKSETS,
        note=NOTE,
        reference=reference,
        explain=explain,
        codes=codes,
        budget=BUDGET,
        budget_unit="QPA steps per LO-mode check and tried virtual-deadline decrements",
        featured=False,
        order=20,
    ),
)
