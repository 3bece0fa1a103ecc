"""Exact uniprocessor non-preemptive EDF test (George, Rivierre, Spuri 1996); see papers/.

George, Rivierre, Spuri, "Preemptive and non-preemptive real-time uniprocessor scheduling",
INRIA research report RR-2966, 1996 (papers/george-rivierre-spuri1996-npedf.md, numbering
unverified): a set of sporadic tasks (C, D, T), D ≤ T, is schedulable by *non-idling
non-preemptive EDF* on one processor iff U ≤ 1 and, at every absolute deadline t of the
synchronous pattern with t < L (L the synchronous busy period),

    h(t) + B(t) ≤ t,      B(t) = max{C_j − 1 : D_j > t}   (0 if no such task)        (NP-EDF)

with h(t) = Σ_i max(0, ⌊(t − D_i)/T_i⌋ + 1)·C_i the processor demand. B(t) is the blocking by
one job with a later deadline that started one tick before the critical interval (integer time:
every release and every scheduling decision happens on a tick).

The registered analysis ``uni-npedf`` is the case "every task non-preemptive". The machinery
(mixed preemptive/non-preemptive sets, dense-time blocking, used by the GPU model) is in the
private module :mod:`rtsched.analyses.theory.np_demand`.

Layers: :func:`reference` (Python ints, :func:`~rtsched.analyses.theory.np_demand.npedf_trace`),
``_npedf_set`` (serial ``@njit``, int64, UNDECIDED on overflow so that the registry asks the
reference), ``_npedf_kernel`` (prange over chunks of sets, one workspace per chunk; both from
``_npedf_on_workspace`` through :func:`rtsched.kernels.workspace_kernels`). Work budget (``budget``): one step is one
iteration of the busy-period function or one checked deadline; when ``budget`` steps are spent
the verdict is "unknown", never False, in both layers. Ties between equal deadlines do not
matter to this test (it is stated on demand, not on a schedule).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from rtsched.analyses.theory.np_demand import DEFAULT_BUDGET, npedf_trace, npedf_ws
from rtsched.kernels import kernel, workspace_kernels
from rtsched.model import TaskSet
from rtsched.registry import Analysis
from rtsched.result import Explanation, Step, Verdict, count, iterates, show_number

__all__ = ["ANALYSES", "DEFAULT_BUDGET", "explain", "reference"]

CITATION = (
    "George, Rivierre, Spuri, 'Preemptive and non-preemptive real-time uniprocessor scheduling', "
    "INRIA RR-2966, 1996 (non-preemptive EDF: h(t) + max{C_j - 1 : D_j > t} <= t at every deadline "
    "t < L; numbering unverified)"
)


def reference(ts: TaskSet, m: int = 1, budget: int = DEFAULT_BUDGET) -> Verdict:
    """Exact NP-EDF verdict for a task set whose tasks are all non-preemptive (one processor)."""
    return npedf_trace(ts.rows(), None, budget).verdict


def explain(ts: TaskSet, m: int = 1, budget: int = DEFAULT_BUDGET) -> Explanation:
    """The NP-EDF verdict with L and, on failure, the first t with h(t) + B(t) > t and its blocker."""
    tr = npedf_trace(ts.rows(), None, budget)
    evidence: dict[str, object] = {"utilization": tr.utilization, "L": tr.L, "steps": tr.steps, "budget": budget}
    if tr.reason == "U>1":
        summary = f"U = {show_number(tr.utilization)} > 1"
    elif tr.reason == "budget":
        summary = f"unknown: work budget of {count(budget, 'step')} exhausted"
    elif tr.reason == "work":
        summary = f"unknown: the reference work budget ran out (rtsched.budget) after {tr.steps} steps"
    elif tr.reason == "violation":
        who = "no blocking" if tr.blocker is None else f"blocked by {ts.label(tr.blocker)}"
        summary = f"h({tr.t}) + B({tr.t}) = {tr.h} + {tr.B} > {tr.t} ({who}); L = {tr.L}"
        evidence.update({"t": tr.t, "h(t)": tr.h, "B(t)": tr.B, "blocker": tr.blocker})
    else:
        summary = f"h(t) + B(t) ≤ t at every deadline t < L = {tr.L}; {count(tr.steps, 'step')}"
    return Explanation(
        tr.verdict, summary, {k: v for k, v in evidence.items() if v is not None}, steps=lambda: steps(ts, budget)
    )


def steps(ts: TaskSet, budget: int = DEFAULT_BUDGET) -> Iterator[Step]:
    """(NP-EDF) as a lecturer writes it: U, the busy period L, then h(t) + B(t) ≤ t at each deadline t < L."""
    events: list[tuple[Any, ...]] = []
    tr = npedf_trace(ts.rows(), None, budget, trace=events)
    U = {"U": tr.utilization}
    if tr.reason == "U>1":
        yield Step("U = {U} > 1: not schedulable", U)
        return
    yield Step("U = {U} ≤ 1", U)
    busy = [e[1] for e in events if e[0] == "w"]
    if busy:
        path = iterates(busy)
        yield Step(f"busy period: w = Σ C_i = {path}" + (f": L = {tr.L}" if tr.L is not None else ""))
    yield Step("at every absolute deadline t < L: h(t) + B(t) ≤ t, B(t) = max{C_j − 1 : D_j > t} (tick blocking)")
    checked = [e for e in events if e[0] == "t"]
    for _, t, h, B, who in checked:
        blocker = "" if who is None else f" ({ts.label(who)})"
        sign, verdict = (">", ": fails, not schedulable") if h + B > t else ("≤", "")
        yield Step(f"  t = {t}: h = {h}, B = {B}{blocker}: {h + B} {sign} {t}{verdict}")
    if tr.verdict is True and not checked:
        yield Step(f"no absolute deadline below L = {tr.L}, nothing to check: schedulable")
    elif tr.verdict is True:
        yield Step(f"every deadline t < L = {tr.L} holds: schedulable")
    elif tr.verdict == "unknown":
        yield Step(f"unknown: the work budget ran out after {tr.steps} steps")


@kernel(inline="always")
def _npedf_on_workspace(C, D, T, m, budget, ints, floats):
    """One set, every task non-preemptive, tick blocking (δ = 1); ``m`` is 1 (checked by the registry).

    On a caller's workspace (row 0: the flags, all 1; row 1: the deadline walk), so that the
    batch's chunk loop allocates nothing per set and runs uncounted.
    """
    n = C.shape[0]
    for i in range(n):
        ints[0, i] = 1
    return npedf_ws(C, D, T, ints[0, :n], 1, budget, ints[1])


_npedf_kernel, _npedf_set = workspace_kernels(_npedf_on_workspace, ints=2)


ANALYSES = (
    Analysis(
        name="uni-npedf", title="Non-preemptive EDF (uniprocessor, exact)", kind="exact", order=2, featured=False,
        policy="np-edf", policy_order=8, platform="uniprocessor",
        citation=CITATION, note="papers/george-rivierre-spuri1996-npedf.md",
        reference=reference, explain=explain, kernel=_npedf_kernel, one=_npedf_set,
        budget=DEFAULT_BUDGET, budget_unit="steps (busy-period iterations and checked deadlines)",
    ),
)
