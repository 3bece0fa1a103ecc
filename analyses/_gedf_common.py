"""Integer workload and interference bounds shared by the global EDF analyses (private module).

Each bound exists twice: a readable Python-int version for the exact references and an
``@njit`` version for the kernels (the RTA kernel evaluates the carry-in workload inline, with
:func:`divmod_reciprocal_nb`: a multiplication by 1/T_i instead of a division; see rta.py). Both are written for *integer time* and for constrained
deadlines (``C <= D <= T``). The symbols follow the papers (see ``papers/bcl2005.md`` and
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

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from rtsched.budget import WorkExhausted
from rtsched.kernels import floor_divmod, kernel
from rtsched.result import UNKNOWN, Verdict

__all__ = [
    "TaskScan",
    "every_task_holds",
    "scan_tasks",
    "task_labels",
    "bcl_workload",
    "bcl_workload_nb",
    "carry_in_workload",
    "chunk_count",
    "divmod_reciprocal_nb",
    "edf_interference_bound",
    "edf_interference_bound_nb",
    "edf_interference_sum_nb",
    "floor_div_nb",
    "largest_set",
    "CHUNK_TASKS",
    "MAX_CHUNKS",
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
    """
    return np.int64(np.float64(a) / np.float64(b))


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

    A branch-free loop over every i, the i = k term removed afterwards (measured faster than
    skipping i = k with a branch); all values are exact int64 (each term ≤ cap ≤ 2**31,
    n ≤ 2**16).
    """
    total = 0
    for i in range(C.shape[0]):
        total += min(edf_interference_bound_nb(C[i], T[i], S[i], D_k), cap)
    return total - min(edf_interference_bound_nb(C[k], T[k], S[k], D_k), cap)


#: Most chunks a batch kernel splits its sets into: many more than threads (64 per thread up to
#: 16 threads) keeps the load balanced when set costs vary. (A fixed number: the thread count
#: read inside a kernel, ``numba.get_num_threads()``, would keep Numba from caching it.)
MAX_CHUNKS = 1024
#: Fewest tasks per chunk: a set costs at least ~0.05 µs per task, so the per-chunk scratch
#: allocations (a fraction of a µs) stay below 2 % of a chunk's work; a set with more tasks
#: than this gets a chunk of its own (up to :data:`MAX_CHUNKS`).
CHUNK_TASKS = 256


@kernel
def chunk_count(offsets):
    """How many chunks a batch kernel splits the sets of a batch with these ``offsets`` into.

    Each chunk reuses one set of scratch buffers: at least :data:`CHUNK_TASKS` tasks per chunk on
    average, at most one chunk per set and :data:`MAX_CHUNKS` in all.
    """
    n_sets = offsets.shape[0] - 1
    tasks = offsets[n_sets] - offsets[0]
    return max(1, min(n_sets, MAX_CHUNKS, tasks // CHUNK_TASKS))


@kernel
def largest_set(offsets):
    """The number of tasks of the largest set of a batch (0 for no set), from its offsets.

    It is the width of a kernel's per-chunk scratch buffers.
    """
    width = 0
    for s in range(offsets.shape[0] - 1):
        width = max(width, offsets[s + 1] - offsets[s])
    return width


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
