"""Fixed-priority assignment: deadline-monotonic, rate-monotonic and Audsley's optimal algorithm.

A task set's priorities are the order of its tasks, index 0 highest; each function here returns
the set reordered (highest priority first), never a separate priority array.

* :func:`deadline_monotonic` (DM: shorter relative deadline, higher priority; Leung & Whitehead,
  Performance Evaluation 2(4), 1982; optimal on one processor for constrained deadlines) and
  :func:`rate_monotonic` (RM: shorter period, higher priority; Liu & Layland, JACM 20(1), 1973;
  optimal on one processor for implicit deadlines). Ties keep the input order (stable).
* :func:`audsley`: Audsley's optimal priority assignment (OPA; Audsley, "Optimal priority
  assignment and feasibility of static priority tasks with arbitrary start times", University of
  York YCS 164, 1991; "On priority assignment in fixed priority scheduling", Information
  Processing Letters 79(1), 2001). From the lowest priority level up, it places at each level
  some unassigned task that the test deems schedulable there with all other unassigned tasks
  above it. It is optimal for any test whose verdict for a task depends only on the *set* of
  higher-priority tasks, not on their order, and is monotone in that set (a task schedulable
  below a set stays schedulable below a subset). Davis & Burns ("Improved priority assignment
  for global fixed priority pre-emptive scheduling in multiprocessor real-time systems",
  Real-Time Systems 47(1), 2011, Conditions 1-3) show that this carries over to global FP on m
  processors for OPA-compatible tests such as their DA and DA-LC deadline analyses; no exact
  global FP test is OPA-compatible (Davis, Bertogna, Bonifaci, Real-Time Systems 52(1), 2016).
  See papers/audsley-opa.md.

:func:`opa_test` finds a registered analysis's per-task test: the module registering it offers a
factory ``fits_lowest(test_name, m)`` returning ``fits_lowest(ts, k, higher)`` (``uni-rta`` in
``analyses/uniprocessor/uni_fp.py``; ``gfp-da`` and ``gfp-da-lc`` in ``analyses/global_fp/deadline_analysis.py``). :func:`assign` is
what ``rtsched check --priorities`` calls.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rtsched.errors import InputError
from rtsched.model import TaskSet

__all__ = [
    "PRIORITY_SCHEMES",
    "FitsLowest",
    "assign",
    "audsley",
    "deadline_monotonic",
    "opa_test",
    "rate_monotonic",
    "reorder_all",
]

#: ``fits_lowest(ts, k, higher)``: does task k of ts meet its deadline at a priority level below
#: exactly the tasks with indices ``higher`` (in any order)?
FitsLowest = Callable[[TaskSet, int, Sequence[int]], bool]

PRIORITY_SCHEMES = ("given", "dm", "rm", "opa")


def deadline_monotonic(ts: TaskSet) -> TaskSet:
    """The set in deadline-monotonic order: increasing D, ties in the given order."""
    return ts.subset(sorted(range(ts.n), key=lambda i: (int(ts.D[i]), i)))


def rate_monotonic(ts: TaskSet) -> TaskSet:
    """The set in rate-monotonic order: increasing T, ties in the given order."""
    return ts.subset(sorted(range(ts.n), key=lambda i: (int(ts.T[i]), i)))


def audsley(ts: TaskSet, fits_lowest: FitsLowest) -> TaskSet | None:
    """Audsley's optimal priority assignment (Audsley 1991/2001; Davis & Burns, RTS 2011 for global FP).

    The set reordered highest priority first, or None if at some level no unassigned task passes
    ``fits_lowest`` (then, for an OPA-compatible test, no order passes).

    At each level, from the lowest up, the candidates are tried in order of decreasing deadline
    (ties: the later index first), so that a set that DM order already passes tends to come back
    in DM order; for an OPA-compatible test any candidate order is optimal. At most n(n + 1)/2
    calls of ``fits_lowest``.
    """
    unassigned = sorted(range(ts.n), key=lambda i: (int(ts.D[i]), i))
    lowest_first: list[int] = []
    while unassigned:
        for k in reversed(unassigned):
            higher = [i for i in unassigned if i != k]
            if fits_lowest(ts, k, higher):
                lowest_first.append(k)
                unassigned.remove(k)
                break
        else:
            return None
    return ts.subset(lowest_first[::-1])


def opa_test(name: str, m: int) -> FitsLowest:
    """The per-task test of the registered analysis ``name`` on ``m`` processors, for :func:`audsley`.

    It is called as ``fits_lowest(ts, k, higher)``. Declared by the analysis (``opa=`` in its
    registry entry: ``uni-rta``, ``gfp-da``, ``gfp-da-lc``); an analysis without one, or one that
    does not apply to ``m`` processors, is an :class:`~rtsched.errors.InputError`.
    """
    from rtsched.registry import get

    entry = get(name)
    why = entry.refuses_platform(m)
    if why is not None:
        raise InputError(f"{entry.name}: {why}", field="--priorities")
    if not entry.opa_compatible:
        raise InputError(
            f"{entry.name} offers no per-task test for Audsley's algorithm (not OPA-compatible, or not declared)",
            field="--priorities",
        )
    return entry.opa_test(m)


def assign(ts: TaskSet, scheme: str, m: int = 1, test: str | None = None) -> TaskSet | None:
    """The set with priorities by ``scheme``: ``given`` (unchanged), ``dm``, ``rm`` or ``opa``.

    ``opa`` uses the per-task test ``test``, by default ``uni-rta`` on one processor and
    ``gfp-da-lc`` (Davis & Burns 2011) on m > 1; it returns None when no priority order passes
    that test.
    """
    if scheme == "given":
        return ts
    if scheme == "dm":
        return deadline_monotonic(ts)
    if scheme == "rm":
        return rate_monotonic(ts)
    if scheme == "opa":
        from rtsched.registry import names

        if test is None:
            test = "uni-rta" if m == 1 else "gfp-da-lc"
        if m > 1 and test == "gfp-da-lc" and "gfp-da-lc" not in names():
            raise InputError(
                "--priorities opa on m > 1 needs the OPA-compatible global FP test gfp-da-lc, which is not registered",
                field="--priorities",
            )
        return audsley(ts, opa_test(test, m))
    raise InputError(
        f"unknown priority assignment {scheme!r}; use one of {', '.join(PRIORITY_SCHEMES)}", field="--priorities"
    )


def reorder_all(sets: Sequence[TaskSet], scheme: str, m: int) -> tuple[list[TaskSet], list[str]]:
    """Every set with priorities by ``scheme`` (``rtsched check --priorities``), and notes for people.

    With ``opa``, a set for which no order passes the per-task test (``uni-rta`` on m = 1, then
    no fixed-priority order meets every deadline; ``gfp-da-lc`` on m > 1) is checked in
    deadline-monotonic order, and a note says so.
    """
    if scheme not in PRIORITY_SCHEMES:
        raise InputError(
            f"unknown priority assignment {scheme!r}; use one of {', '.join(PRIORITY_SCHEMES)}", field="--priorities"
        )
    if scheme == "given":
        return list(sets), []
    test = "uni-rta" if m == 1 else "gfp-da-lc"
    if scheme == "opa":
        assign(TaskSet.from_tasks([(1, 1, 1)]), "opa", m, test)  # a clear error before any work
    out: list[TaskSet] = []
    notes: list[str] = []
    for index, ts in enumerate(sets):
        ordered = assign(ts, scheme, m, test)
        if ordered is None:
            notes.append(
                f"set {index}: no priority order passes {test} (Audsley's algorithm); checked in deadline-monotonic order"
            )
            ordered = deadline_monotonic(ts)
        out.append(ordered)
    return out, notes
