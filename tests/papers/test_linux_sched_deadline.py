"""Worked examples of the Linux kernel's SCHED_DEADLINE documentation.

Source: torvalds/linux, ``Documentation/scheduler/sched-deadline.rst``, §3.2 "Schedulability
Analysis for Uniprocessor Systems" and §3.3 "Schedulability Analysis for Multiprocessor Systems"
(read through the search tool's code corpus; online at
https://docs.kernel.org/scheduler/sched-deadline.html). The document cites Dhall & Liu 1978 for
the multiprocessor example and Goossens, Funk & Baruah 2003 (RTSJ 25) for the bound
``sum(WCET_i/P_i) <= M - (M - 1)·U_max``. Its task notation is (WCET, D, P) = rtsched's (C, D, T).

What the text states, and what each test asserts:

* §3.3 (Dhall's effect): on M CPUs, Task_1 = (P, P, P) and M tasks (e, P−1, P−1); released
  together, global EDF runs the M light tasks first and Task_1 finishes at t + e + P, after its
  deadline; U = M·e/(P−1) + 1. For U_max = 1 the GFB bound M − (M−1)·U_max "becomes 1". The text
  leaves P and e symbolic (e "arbitrarily small"); the tests take integer instances (P, e) =
  (10, 1) on M = 2 and (100, 1) on M = 4 — our choice of numbers, not the document's.
* §3.2: Task_1 = (50, 50, 100), Task_2 = (10, 100, 100) is EDF-schedulable although the density
  sum is 50/50 + 10/100 = 1.1 > 1; Task_2's response time "cannot be larger than 50 + 10 = 60".
"""

from fractions import Fraction

import pytest

import rtsched
from rtsched import analyses

# (M, P, e) instances of the symbolic example; see the module docstring.
DHALL_INSTANCES = [(2, 10, 1), (4, 100, 1)]


def dhall_set(m: int, p: int, e: int) -> rtsched.TaskSet:
    return rtsched.TaskSet.from_tasks([(p, p, p)] + [(e, p - 1, p - 1)] * m)


@pytest.mark.parametrize(("m", "p", "e"), DHALL_INSTANCES)
def test_dhall_utilization_as_stated(m, p, e):
    """§3.3: U = M·e/(P − 1) + P/P, just above 1."""
    ts = dhall_set(m, p, e)
    u = ts.utilization
    assert u == Fraction(m * e, p - 1) + 1


@pytest.mark.parametrize(("m", "p", "e"), DHALL_INSTANCES)
def test_dhall_global_edf_misses(m, p, e):
    """§3.3: the synchronous release makes Task_1 miss under global EDF -> `exact` says no."""
    assert analyses.get("exact").verdict(dhall_set(m, p, e), m) is False


@pytest.mark.parametrize(("m", "p", "e"), DHALL_INSTANCES)
def test_dhall_gfb_bound_is_one(m, p, e):
    """§3.3: with U_max = 1 the GFB bound M − (M − 1)·U_max is 1, so the set (U > 1) fails it."""
    r = analyses.get("gfb").explain(dhall_set(m, p, e), m)
    assert r.verdict is False
    assert r.evidence["bound"] == 1
    assert r.evidence["max_density"] == 1
    assert r.evidence["total_density"] == Fraction(m * e, p - 1) + 1


GEDF_SUFFICIENT = [
    n
    for n in analyses.names()
    if analyses.get(n).policy == "global-edf" and analyses.get(n).kind == "sufficient" and n != "gedf-mpr"
    and analyses.get(n).input == "taskset"  # the G-EDF tests of task sets (not those of DAG tasks)
]


@pytest.mark.parametrize("name", GEDF_SUFFICIENT)
@pytest.mark.parametrize(("m", "p", "e"), DHALL_INSTANCES)
def test_dhall_no_sufficient_gedf_test_accepts(name, m, p, e):
    """§3.3 says global EDF misses a deadline here, so no sound G-EDF test may accept the set."""
    assert analyses.get(name).verdict(dhall_set(m, p, e), m) is False


LINUX_32 = rtsched.TaskSet.from_tasks([(50, 50, 100), (10, 100, 100)])


@pytest.mark.parametrize("name", ["uni-qpa", "uni-pda"])
def test_density_above_one_yet_edf_schedulable(name):
    """§3.2: "EDF is clearly able to schedule the two tasks" — the exact EDF tests accept."""
    assert analyses.get(name).verdict(LINUX_32, 1) is True


def test_density_sum_is_1_1():
    """§3.2: 50/min{50,100} + 10/min{100,100} = 1.1 > 1: the density test (GFB at m = 1) fails."""
    r = analyses.get("gfb").explain(LINUX_32, 1)
    assert r.verdict is False
    assert r.evidence["total_density"] == Fraction(11, 10)
    assert r.evidence["bound"] == 1


def test_task2_response_time_at_most_60():
    """§3.2: Task_2 runs right after Task_1, so its response time is at most 50 + 10 = 60.

    With Task_1 at the higher fixed priority the schedule of the synchronous release is the one the
    text describes; `uni-rta` gives R_1 = 50 ≤ D_1 and R_2 ≤ 60.
    """
    r = analyses.get("uni-rta").explain(LINUX_32, 1)
    assert r.verdict is True
    assert r.per_task[0]["response_time"] == 50
    assert r.per_task[1]["response_time"] <= 60
