"""EDF-VD: EDF with virtual deadlines for implicit-deadline dual-criticality tasks (Baruah et al., ECRTS 2012).

Paper (note: papers/baruah2012-edf-vd.md): S. Baruah, V. Bonifaci, G. D'Angelo, H. Li,
A. Marchetti-Spaccamela, S. van der Ster, L. Stougie, "The preemptive uniprocessor scheduling of
mixed-criticality implicit-deadline sporadic task systems", ECRTS 2012, pp. 145-154 (journal
version with more levels: "Preemptive uniprocessor scheduling of mixed-criticality sporadic task
systems", J. ACM 62(2), 2015). The full text could not be read here (see the note): the conditions
below are tagged (V1)-(V3) by rtsched, and their form was checked against two independent
public implementations, not against the paper's own numbering.

With U_x^y = Σ C_i(y)/T_i over the tasks of criticality x (U_LL = U_1^1, U_HL = U_2^1,
U_HH = U_2^2 in the paper's notation), EDF-VD on one processor, D_i = T_i:

* (V1) if U_LL + U_HH ≤ 1: plain EDF with the real deadlines (x = 1) is correct in both modes;
* (V2) else the virtual-deadline factor is x = U_HL / (1 − U_LL) (LO mode: EDF on the deadlines
  x·T_i of the HI tasks and T_i of the LO tasks meets every virtual deadline iff
  U_LL + U_HL/x ≤ 1, the least such x);
* (V3) and the set is schedulable if x·U_LL + U_HH ≤ 1 (HI mode: after the switch the HI tasks
  meet their real deadlines).

Schedulable (proven) iff (V1) or [U_LL < 1 and (V3) with x of (V2)]. At run time a HI job released
at r has the virtual deadline r + x·T_i until the mode switch, then r + T_i; LO jobs are dropped at
the switch. With U_LL < 1, (V3) ⇔ U_HL·U_LL ≤ (1 − U_LL)(1 − U_HH), the form the kernel decides.
A proved consequence (the paper's utilization bound behind its speedup factor 4/3):
max(U_LL + U_HL, U_HH) ≤ 3/4 implies acceptance (the note has the two-line proof; a test holds it).

Layers: :func:`reference` (Fractions), :func:`explain` (U's, x, the two modes' inequalities,
per-task virtual deadlines) and :func:`codes` (``prange`` over an :class:`~rtsched.mc.MCBatch`,
float64 sums with a proven error margin; UNDECIDED inside it, re-decided by the registry with the
reference). The registry applies the analysis only when m == 1 (platform ``uniprocessor``).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
from numba import prange
from numpy.typing import NDArray

from rtsched.kernels import ACCEPT, EPS, REJECT, UNDECIDED, batch_kernel, kernel, margin_verdict
from rtsched.mc.model import MCBatch, MCTaskSet
from rtsched.registry import Analysis
from rtsched.result import Explanation, Step
from rtsched.workloads import MC_TASKSETS

__all__ = [
    "ANALYSES",
    "CITATION",
    "EDFVDPlan",
    "codes",
    "explain",
    "plan",
    "reference",
    "sums_code",
    "virtual_deadlines",
]

CITATION = (
    "Baruah, Bonifaci, D'Angelo, Li, Marchetti-Spaccamela, van der Ster, Stougie, 'The preemptive "
    "uniprocessor scheduling of mixed-criticality implicit-deadline sporadic task systems', ECRTS 2012: "
    "EDF-VD, U_LL + U_HH <= 1, or x = U_HL/(1 - U_LL) and x*U_LL + U_HH <= 1"
)
NOTE = "papers/baruah2012-edf-vd.md"


@dataclass(frozen=True)
class EDFVDPlan:
    """EDF-VD's decision on one set, exactly.

    ``case`` is ``"edf"`` ((V1) holds: x = 1), ``"edf-vd"`` ((V1) fails, (V3) holds with x of (V2)),
    ``"lo-full"`` (U_LL ≥ 1 with HI tasks: no x exists) or ``"hi-fails"`` ((V3) fails). ``x`` is the
    factor run (1 for plain EDF; the failing x of (V2) for ``"hi-fails"``; ``None`` for
    ``"lo-full"``); ``hi_lhs`` is x·U_LL + U_HH for the cases that computed it.
    """

    U_LL: Fraction
    U_HL: Fraction
    U_HH: Fraction
    case: str
    x: Fraction | None
    hi_lhs: Fraction | None

    @property
    def schedulable(self) -> bool:
        """(V1) or (V3)."""
        return self.case in ("edf", "edf-vd")


def plan(ts: MCTaskSet) -> EDFVDPlan:
    """(V1)-(V3) on ``ts`` with exact Fractions."""
    U_LL, U_HL, U_HH = ts.U_LL, ts.U_HL, ts.U_HH
    if U_LL + U_HH <= 1:  # (V1)
        return EDFVDPlan(U_LL, U_HL, U_HH, "edf", Fraction(1), U_LL + U_HH)
    if U_LL >= 1:  # (V2) has no x (U_HL > 0 here: U_HH ≥ U_HL and (V1) failed with U_LL ≤ 1 only if U_HH > 0)
        return EDFVDPlan(U_LL, U_HL, U_HH, "lo-full", None, None)
    x = U_HL / (1 - U_LL)  # (V2)
    lhs = x * U_LL + U_HH  # (V3)
    return EDFVDPlan(U_LL, U_HL, U_HH, "edf-vd" if lhs <= 1 else "hi-fails", x, lhs)


def reference(ts: MCTaskSet, m: int = 1) -> bool:
    """EDF-VD schedulability, exactly: (V1) U_LL + U_HH ≤ 1, or (V3) x·U_LL + U_HH ≤ 1 with (V2) x = U_HL/(1 − U_LL)."""
    return plan(ts).schedulable


def virtual_deadlines(ts: MCTaskSet, x: Fraction) -> tuple[Fraction, ...]:
    """Per task, the relative deadline EDF uses in LO mode: x·T_i for a HI task, T_i for a LO task."""
    return tuple(x * t.T if t.is_hi else Fraction(t.T) for t in ts)


def _steps(ts: MCTaskSet, p: EDFVDPlan) -> Iterator[Step | str]:
    u = {"U_LL": p.U_LL, "U_HL": p.U_HL, "U_HH": p.U_HH}
    yield Step("U_LL = Σ_LO C(LO)/T = {U_LL}, U_HL = Σ_HI C(LO)/T = {U_HL}, U_HH = Σ_HI C(HI)/T = {U_HH}", u)
    s = p.U_LL + p.U_HH
    if p.case == "edf":
        yield Step("(V1) U_LL + U_HH = {s} ≤ 1: plain EDF (x = 1) meets every deadline in both modes", {"s": s})
        return
    yield Step("(V1) U_LL + U_HH = {s} > 1: virtual deadlines are needed", {"s": s})
    if p.case == "lo-full":
        yield Step("U_LL = {U_LL} ≥ 1: no factor x < 1 leaves room for the HI tasks in LO mode: not proven", u)
        return
    assert p.x is not None and p.hi_lhs is not None
    yield Step(
        "(V2) x = U_HL/(1 − U_LL) = {U_HL}/(1 − {U_LL}) = {x}: the least x with U_LL + U_HL/x ≤ 1 (LO mode)",
        {**u, "x": p.x},
    )
    relation = "≤" if p.case == "edf-vd" else ">"
    yield Step(
        f"(V3) x·U_LL + U_HH = {{x}}·{{U_LL}} + {{U_HH}} = {{lhs}} {relation} 1 (HI mode)",
        {**u, "x": p.x, "lhs": p.hi_lhs},
    )
    if p.case == "edf-vd":
        yield Step("schedulable by EDF-VD: each HI task's LO-mode deadline is x·T = {x}·T", {"x": p.x})
    else:
        yield "not proven: after a mode switch the HI tasks may miss"


def explain(ts: MCTaskSet, m: int = 1) -> Explanation:
    """The verdict, U_LL, U_HL, U_HH, the factor x, both modes' inequalities and per-task virtual deadlines."""
    p = plan(ts)
    x = p.x if p.x is not None else None
    vds = virtual_deadlines(ts, x) if x is not None and p.case in ("edf", "edf-vd") else None
    per_task: list[dict[str, Any]] = []
    for i, t in enumerate(ts):
        per_task.append(
            {
                "task": ts.label(i),
                "level": t.criticality,
                "C_LO": t.C_lo,
                "C_HI": t.C_hi if t.is_hi else None,
                "T": t.T,
                "u_LO": t.utilization("LO"),
                "u_HI": t.utilization("HI") if t.is_hi else None,
                "virtual_D": vds[i] if vds is not None else None,
            }
        )
    if p.case == "edf":
        summary = f"U_LL + U_HH = {p.U_LL + p.U_HH} ≤ 1: plain EDF (x = 1)"
    elif p.case == "edf-vd":
        summary = f"x = {p.x}: x·U_LL + U_HH = {p.hi_lhs} ≤ 1 (U_LL + U_HH = {p.U_LL + p.U_HH} > 1)"
    elif p.case == "lo-full":
        summary = f"not proven: U_LL = {p.U_LL} ≥ 1 leaves no room for the HI tasks"
    else:
        summary = f"not proven: x = {p.x}, x·U_LL + U_HH = {p.hi_lhs} > 1"
    failing = {
        "lo-full": "U_LL ≥ 1",
        "hi-fails": "(V3) x·U_LL + U_HH > 1",
    }.get(p.case)
    evidence: dict[str, Any] = {
        "U_LL": p.U_LL,
        "U_HL": p.U_HL,
        "U_HH": p.U_HH,
        "case": p.case,
        "x": p.x,
        "hi_lhs": p.hi_lhs,
        "virtual_deadlines": vds,
        "failing": failing,
    }
    return Explanation(
        verdict=p.schedulable, summary=summary, evidence=evidence, per_task=per_task, steps=lambda: list(_steps(ts, p))
    )


@kernel
def _edf_vd_one(C_lo, C_hi, T, level):
    """One set: ACCEPT, REJECT or UNDECIDED (inside a float margin of (V1), U_LL vs 1 or (V3)).

    Rounding: each C/T is correctly rounded (relative error ≤ EPS) and a running sum of n
    non-negative terms errs by at most n·EPS relative, so |Û − U| ≤ (n + 1)·EPS·U for each of
    U_LL, U_HL, U_HH. (V1): the difference Û_LL + Û_HH − 1 errs by at most 4(n + 2)·EPS·(U_LL + U_HH + 1).
    (V3) as U_HL·U_LL − (1 − U_LL)(1 − U_HH): each of the four factors has an absolute error at most
    (n + 2)·EPS·(1 + U) and each product, sum and difference adds EPS relative; the margin
    8(n + 4)·EPS·(1 + U_LL + U_HL + U_HH)² bounds the total (to first order, with room to spare).
    """
    n = T.shape[0]
    ull = 0.0
    uhl = 0.0
    uhh = 0.0
    for i in range(n):
        if level[i] == 0:
            ull += C_lo[i] / T[i]
        else:
            uhl += C_lo[i] / T[i]
            uhh += C_hi[i] / T[i]
    return sums_code(ull, uhl, uhh, n)


@kernel
def sums_code(ull, uhl, uhh, n):
    """EDF-VD's verdict code from float64 sums U_LL, U_HL, U_HH of at most ``n`` terms each (margins of ``_edf_vd_one``)."""
    v1 = margin_verdict(ull + uhh - 1.0, 4.0 * (n + 2) * EPS * (ull + uhh + 1.0))
    if v1 == ACCEPT:
        return ACCEPT
    lo_full = margin_verdict(ull - 1.0, 4.0 * (n + 2) * EPS * (ull + 1.0))  # ACCEPT here means U_LL ≤ 1
    if lo_full == REJECT:  # U_LL > 1: (V1) fails too (U_HH ≥ 0)
        return REJECT
    if lo_full == UNDECIDED:
        return UNDECIDED
    # U_LL < 1 (strictly, outside the margin): (V3) ⇔ U_HL·U_LL ≤ (1 − U_LL)(1 − U_HH).
    scale = 1.0 + ull + uhl + uhh
    v3 = margin_verdict(uhl * ull - (1.0 - ull) * (1.0 - uhh), 8.0 * (n + 4) * EPS * scale * scale)
    if v3 == ACCEPT:
        return ACCEPT
    if v1 == UNDECIDED or v3 == UNDECIDED:
        return UNDECIDED
    return REJECT


@batch_kernel
def _edf_vd_sets(C_lo, C_hi, T, level, task_offsets, out):
    """``out[s]`` = ``_edf_vd_one`` of set ``s``, in ``prange`` over the sets."""
    for s in prange(out.shape[0]):
        lo, hi = task_offsets[s], task_offsets[s + 1]
        out[s] = _edf_vd_one(C_lo[lo:hi], C_hi[lo:hi], T[lo:hi], level[lo:hi])


def codes(batch: MCBatch, m: int = 1) -> NDArray[np.int8]:
    """Codes for every set of ``batch`` (UNDECIDED ones are re-decided by the registry with :func:`reference`)."""
    out = np.empty(batch.n_sets, dtype=np.int8)
    _edf_vd_sets(batch.C_lo, batch.C_hi, batch.T, batch.level, batch.task_offsets, out)
    return out


ANALYSES = (
    Analysis(
        name="mc-edf-vd",
        title="EDF-VD (Baruah et al. 2012): EDF with virtual deadlines x·T for HI tasks, implicit deadlines",
        citation=CITATION,
        kind="sufficient",
        policy="mc-edf-vd",
        platform="uniprocessor",
        deadlines=("implicit",),
        workload=MC_TASKSETS,
        note=NOTE,
        reference=reference,
        explain=explain,
        codes=codes,
        featured=False,
        order=10,
    ),
)
