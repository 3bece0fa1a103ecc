"""RM versus EDF on the same three tasks: G. Lipari's lecture slides "EDF Scheduling".

Source: Giuseppe Lipari, "EDF Scheduling", Scuola Superiore Sant'Anna, Pisa, May 11, 2008, slides
4–5 ("Example: scheduling with RM", "Example: scheduling with EDF"), read as the transcription at
https://123dok.org/document/zx5x7p9v-edf-scheduling.html (the Italian course version "Sistemi in
tempo reale — Earliest Deadline First" at
https://123dok.org/document/qmj62d37-important-class-scheduling-algorithms-class-dynamic-priority-algorithms.html
has the same two slides). Textbook-style example in the tradition of Buttazzo's HRTCS, ch. 4.

Stated: τ1 = (1, 4), τ2 = (2, 6), τ3 = (3, 8) as (C, T), implicit deadlines; U = 1/4 + 2/6 + 3/8
= 23/24. Under RM "the utilization is greater than the bound: there is a deadline miss!", and it
is τ3 that misses (at time 6 the scheduler runs τ2 although τ3's deadline 8 is close). Under EDF
"no deadline miss in the hyperperiod".
"""

from fractions import Fraction

import pytest

import rtsched
from rtsched import analyses

# RM order = the order of the tasks (first = highest priority).
LIPARI = rtsched.TaskSet.from_tasks([(1, 4, 4), (2, 6, 6), (3, 8, 8)])


def test_utilization_23_24():
    assert LIPARI.utilization == Fraction(23, 24)


def test_rm_liu_layland_bound_fails():
    """Slide 4: U = 23/24 is above the Liu & Layland bound 3(2^{1/3} − 1) ≈ 0.780."""
    r = analyses.get("rm-ll").explain(LIPARI, 1)
    assert r.verdict is False
    assert r.evidence["utilization"] == Fraction(23, 24)
    assert r.evidence["n"] == 3
    assert r.evidence["bound_high"] < Fraction(23, 24)


def test_rm_deadline_miss_of_tau3():
    """Slide 4: under RM there is a deadline miss, and it is τ3's (deadline 8)."""
    r = analyses.get("uni-rta").explain(LIPARI, 1)
    assert r.verdict is False
    assert r.evidence["failing_task"] == 2
    assert r.evidence["deadline"] == 8


def test_rm_exact_state_space_agrees():
    """Slide 4 again, through the exact global-FP explorer on one processor."""
    assert analyses.get("exact-gfp").verdict(LIPARI, 1) is False


@pytest.mark.parametrize("name", ["uni-qpa", "uni-pda", "exact"])
def test_edf_no_miss(name):
    """Slide 5: "no deadline miss in the hyperperiod" under EDF (U = 23/24 ≤ 1)."""
    assert analyses.get(name).verdict(LIPARI, 1) is True
