"""Integer workload and interference bounds of sporadic tasks, and the per-task scans of sufficient tests.

Shared theory (``rtsched.analyses.theory``): the global EDF analyses use all of it, the global FP
tests the carry-in workload and the per-task scans, the partitioned kernels :func:`task_at` and
:func:`largest_set`, ``theory.fp_rta`` :func:`floor_div_nb`. BCL-iter's slack iteration, which
only global EDF runs, is ``analyses/global_edf/_slack.py``.

Each bound exists twice: a readable Python-int version for the exact references and an
``@njit`` version for the kernels (the RTA kernel evaluates the carry-in workload inline, with
:func:`divmod_reciprocal_nb`: a multiplication by 1/T_i instead of a division; see
``global_edf/rta.py``). Both are written for *integer time* and for constrained deadlines
(``C <= D <= T``). The symbols follow the papers (see ``papers/bcl2005.md`` and
``papers/bertogna-cirinei2007.md``):

- ``bcl_workload``: the BCL workload of τi in a window of length D_k whose last deadline
  coincides with the window end, ``N_i C_i + min(C_i, max(0, D_k − N_i T_i))`` with
  ``N_i = ⌊(D_k − D_i)/T_i⌋ + 1`` (Bertogna, Cirinei, Lipari, ECRTS 2005; the β_i of the BCL
  test is this workload divided by D_k);
- ``edf_interference_bound``: the EDF-specific bound on the interference of τi on a job of τk
  when τi's jobs finish at least S_i before their deadlines,
  ``⌊D_k/T_i⌋ C_i + min(C_i, max(0, D_k mod T_i − S_i))`` (BCL, IEEE TPDS 2009, Eq. (17);
  Bertogna & Cirinei, RTSS 2007, Eq. (5)/(9) — numbering as cited by SchedCAT);
- ``carry_in_workload``: the work-conserving workload bound of τi in a window of length L when
  its jobs finish at least S_i before their deadlines,
  ``N C_i + min(C_i, L + D_i − C_i − S_i − N T_i)`` with ``N = ⌊(L + D_i − C_i − S_i)/T_i⌋``
  (RTSS 2007, Eq. (4)/(8); TPDS 2009, Eq. (14)–(15)).

Overflow: with every time value ≤ 2**31 − 1 and 0 ≤ S_i ≤ D_i − C_i, each bound is at most
D_k + C_i ≤ 2**32 (respectively L + D_i ≤ 2**32), so one bound always fits in int64; sums over
at most 2**16 tasks of terms clipped to ≤ 2**31 stay below 2**47.

rtsched's kernel cache folder is keyed by a digest of every kernel source file
(``rtsched/_bootstrap.py``), so edits here start a fresh cache by themselves (unless
``NUMBA_CACHE_DIR`` is set: then clear it after editing this file).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from rtsched.budget import Work, WorkExhausted
from rtsched.kernels import (
    CHUNK_TASKS,
    MAX_CHUNKS,
    chunk_count,
    floor_divmod,
    kernel,
    largest_set,
)
from rtsched.result import UNKNOWN, Explanation, Step, Verdict

if TYPE_CHECKING:
    from rtsched.model import TaskSet

__all__ = [
    "CHUNK_TASKS",
    "MAX_CHUNKS",
    "TaskScan",
    "bcl_workload",
    "bcl_workload_nb",
    "carry_in_workload",
    "chunk_count",
    "divmod_reciprocal_nb",
    "edf_interference_bound",
    "edf_interference_bound_nb",
    "edf_interference_sum_nb",
    "every_task_holds",
    "floor_div_nb",
    "iteration_explanation",
    "largest_set",
    "scan_closing_steps",
    "scan_tasks",
    "task_at",
    "task_labels",
]


def bcl_workload(C_i: int, D_i: int, T_i: int, D_k: int) -> int:
    """D_k · β_i: the BCL workload of τi in a window of length D_k (ECRTS 2005, β_i)."""
    N_i = (D_k - D_i) // T_i + 1  # ≥ 0 because D_i ≤ T_i (Python floor division)
    return N_i * C_i + min(C_i, max(0, D_k - N_i * T_i))


def edf_interference_bound(C_i: int, T_i: int, S_i: int, D_k: int) -> int:
    """EDF interference bound of τi on τk with slack S_i (TPDS 2009 Eq. (17), RTSS 2007 Eq. (5))."""
    jobs = D_k // T_i
    return jobs * C_i + min(C_i, max(0, D_k - jobs * T_i - S_i))


def carry_in_workload(C_i: int, D_i: int, T_i: int, S_i: int, L: int) -> int:
    """Workload of τi in a window of length L with slack S_i (RTSS 2007 Eq. (4), TPDS Eq. (14))."""
    span = L + D_i - C_i - S_i  # ≥ L ≥ 0 because S_i ≤ D_i − C_i
    jobs = span // T_i
    return jobs * C_i + min(C_i, span - jobs * T_i)


@kernel(inline="always")
def floor_div_nb(a, b):
    """⌊a / b⌋ for 0 ≤ a, 0 < b, a + b < 2**53, through one float division (exact).

    Why exact: a and b are exact doubles; if a = q b + r with 0 ≤ r < b, the gap between a/b
    and q + 1 is (b − r)/b ≥ 1/b, larger than the rounding error (q + 1)·2**−53 of the division
    whenever b (q + 1) ≤ a + b < 2**53, so the rounded quotient never reaches q + 1; and it never
    drops below q because q is representable. Integer division (idiv) is several times slower.
    ``np.divide``, not ``/``: Python's ``/`` checks b = 0 (a branch that raises), which keeps a
    loop of these divisions scalar, and LLVM then turns the loop's min/max into branches that
    mispredict on sets the predictor has not seen (papers/bcl2005.md, "Performance"); every
    caller has b ≥ 1.
    """
    return np.int64(np.divide(np.float64(a), np.float64(b)))  # np.divide: no zero-division check


#: (⌊a/b⌋, a mod b) for 0 ≤ a < 2**51, 0 < b < 2**51 given fl(1/b): the core toolbox's
#: :func:`rtsched.kernels.floor_divmod` (one exact floor-divmod for every kernel).
divmod_reciprocal_nb = floor_divmod


@kernel(inline="always")
def bcl_workload_nb(C_i, D_i, T_i, D_k):
    """Numba twin of :func:`bcl_workload` (branch-free)."""
    # D_k − D_i > −T_i for constrained deadlines, so N_i = 0 exactly when D_k < D_i.
    N_i = floor_div_nb(max(D_k - D_i, 0), T_i) + 1
    N_i = N_i if D_k >= D_i else 0
    return N_i * C_i + min(C_i, max(D_k - N_i * T_i, 0))


@kernel(inline="always")
def edf_interference_bound_nb(C_i, T_i, S_i, D_k):
    """Numba twin of :func:`edf_interference_bound` (branch-free)."""
    jobs = floor_div_nb(D_k, T_i)
    return jobs * C_i + min(C_i, max(D_k - jobs * T_i - S_i, 0))


@kernel(inline="always")
def edf_interference_sum_nb(C, T, S, k, D_k, cap):
    """Σ_{i≠k} min(J_i^k(S_i), cap), J as in :func:`edf_interference_bound`.

    A branch-free loop over every i, the i = k term removed afterwards (cheaper than a branch
    skipping i = k); all values are exact int64 (each term ≤ cap ≤ 2**31, n ≤ 2**16).
    """
    total = 0
    for i in range(C.shape[0]):
        total += min(edf_interference_bound_nb(C[i], T[i], S[i], D_k), cap)
    return total - min(edf_interference_bound_nb(C[k], T[k], S[k], D_k), cap)


@kernel(inline="always")
def task_at(lo, i):
    """The index lo + i of a set's task in the batch arrays, as an unsigned integer (it is ≥ 0).

    Numba wraps a negative signed index around (a compare and a select on every access) unless it
    can prove the index ≥ 0, which it cannot for lo + i; the select keeps the loops over a set's
    tasks from vectorising. An unsigned index has no wrap-around, so those loops vectorise
    (papers/bcl2005.md, "Performance").
    """
    return np.uint64(lo + i)


# chunk_count, largest_set, CHUNK_TASKS and MAX_CHUNKS live in rtsched.kernels (sets_kernel uses them).


class TaskScan:
    """Per-task rows of a "for every task τk" condition, as far as the work budget reached.

    Attributes
    ----------
    rows:
        One mapping per task evaluated (tasks 0, 1, … in order), each with a ``"holds"`` key.
    failing:
        The first task whose condition fails, or None.
    exhausted:
        True if the budget ran out before every task was evaluated.
    """

    __slots__ = ("exhausted", "failing", "rows")

    def __init__(self, rows: list[Mapping[str, Any]], failing: int | None, exhausted: bool) -> None:
        self.rows = rows
        self.failing = failing
        self.exhausted = exhausted

    def coverage(self, n: int) -> str:
        """``""``, or why only some tasks have rows (for summaries)."""
        return f" (work budget: rows for the first {len(self.rows)} of {n} tasks)" if self.exhausted else ""

    def unknown(self, work: Work, n: int, work_budget: int | None) -> tuple[str, dict[str, object]]:
        """(summary, evidence) of an "unknown": the budget ran out with every evaluated task passing."""
        summary = f"unknown: {work.describe()} after {len(self.rows)} of {n} tasks, all passing"
        return summary, {"tasks_checked": len(self.rows), "work_budget": work_budget}

    def tightest(self) -> int:
        """The task with the least slack rhs − lhs (its condition is closest to failing)."""
        return min(range(len(self.rows)), key=lambda k: self.rows[k]["rhs"] - self.rows[k]["lhs"])

    def explanation(
        self,
        ts: TaskSet,
        work: Work,
        work_budget: int | None,
        passes: Callable[[str, Mapping[str, Any]], str],
        fails: Callable[[str, Mapping[str, Any]], str],
        steps: Callable[[], Iterator[Step]],
    ) -> Explanation:
        """The explanation of a per-task condition lhs ≤ rhs whose rows have ``lhs`` and ``rhs``.

        The first failing task (summary ``fails(label, row)``), else "unknown" when the budget ran
        out with every evaluated task passing (:meth:`unknown`), else the tightest task (summary
        ``passes(label, row)``); the evidence names that task with both sides.
        """
        if self.failing is None and self.exhausted:
            summary, evidence = self.unknown(work, ts.n, work_budget)
            return Explanation(verdict=UNKNOWN, summary=summary, evidence=evidence, per_task=self.rows, steps=steps)
        if self.failing is None:
            k, key, verdict = self.tightest(), "tightest_task", True
            summary = passes(ts.label(k), self.rows[k])
        else:
            k, key, verdict = self.failing, "failing_task", False
            summary = fails(ts.label(k), self.rows[k]) + self.coverage(ts.n)
        evidence = {key: k, "lhs": self.rows[k]["lhs"], "rhs": self.rows[k]["rhs"]}
        return Explanation(verdict=verdict, summary=summary, evidence=evidence, per_task=self.rows, steps=steps)


def scan_closing_steps(n: int, rows: list[Mapping[str, Any]], condition: str) -> Iterator[Step]:
    """The last step of a per-task scan's derivation.

    "Unknown" when the budget ran out with every evaluated task passing, else ``(condition)``
    holding for every task; nothing when one failed (that task's own step says so).
    """
    if not all(row["holds"] for row in rows):
        return
    if len(rows) < n:
        yield Step(
            f"the reference's work budget ran out after {{done}} {'task' if len(rows) == 1 else 'tasks'}: unknown",
            {"done": len(rows)},
        )
    else:
        yield Step(f"({condition}) holds for every task: schedulable by global EDF")


def scan_tasks(n: int, condition: Callable[[int], Mapping[str, Any]], stop_at_failure: bool = False) -> TaskScan:
    """Evaluate ``condition(k)`` for k = 0, …, n − 1 until done, a failure or no budget.

    It stops at the first failure if asked, and when the budget the condition spends runs out
    (:class:`~rtsched.budget.WorkExhausted`).
    """
    rows: list[Mapping[str, Any]] = []
    failing = None
    try:
        for k in range(n):
            row = condition(k)
            rows.append(row)
            if not row["holds"] and failing is None:
                failing = k
                if stop_at_failure:
                    break
    except WorkExhausted:
        return TaskScan(rows, failing, True)
    return TaskScan(rows, failing, False)


def every_task_holds(n: int, holds: Callable[[int], bool]) -> Verdict:
    """The verdict of a per-task sufficient test: whether ``holds(k)`` for every task.

    True if it holds for every task, False at the first that fails, ``"unknown"`` if the work
    budget ``holds`` spends runs out first.
    """
    scan = scan_tasks(n, lambda k: {"holds": holds(k)}, stop_at_failure=True)
    if scan.failing is not None:
        return False
    return UNKNOWN if scan.exhausted else True


def task_labels(ts: Any, tasks: list[int], limit: int = 10) -> str:
    """``τ3, τ7, …`` for at most ``limit`` tasks, then how many there are in all."""
    shown = ", ".join(ts.label(k) for k in tasks[:limit])
    return shown if len(tasks) <= limit else f"{shown}, … ({len(tasks)} tasks)"


def iteration_explanation(
    verdict: Verdict,
    summary: str,
    rows: list[dict[str, Any]],
    *,
    rounds: int,
    failing: list[int],
    precheck_rejected: bool,
    budget: int,
    work_budget: int | None,
    steps: int | None = None,
    derivation: Callable[[], Iterator[Step | str]] | None = None,
    extra: dict[str, Any] | None = None,
) -> Explanation:
    """The explanation of a slack iteration (BCL-iter, RTA): its rows and the evidence both report.

    The evidence keys, in order: ``rounds``, ``steps`` (RTA's response-time evaluations, when
    given), ``precheck_rejected``, ``failing_tasks``, ``budget``, ``work_budget``, then those of
    ``extra`` (RTA's ``descent_rejected``). ``derivation`` gives the steps (``--steps``), run only
    when read.
    """
    evidence: dict[str, Any] = {"rounds": rounds}
    if steps is not None:
        evidence["steps"] = steps
    evidence.update(
        precheck_rejected=precheck_rejected, failing_tasks=tuple(failing), budget=budget, work_budget=work_budget
    )
    evidence.update(extra or {})
    return Explanation(verdict=verdict, summary=summary, evidence=evidence, per_task=rows, steps=derivation or ())
