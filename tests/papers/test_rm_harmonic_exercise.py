"""A textbook exercise: three harmonic tasks with U = 1 are RM-schedulable.

Source: the exercise reproduced at
https://quesba.com/questions/show-example-earliest-deadline-fi-rst-algorithm-longer-optimal-scheduling-978699
("Give two different explanations why the following three periodic tasks are schedulable by the
rate-monotonic algorithm: τ1 ≡ {0.8, 2}, τ2 ≡ {1.4, 4}, and τ3 ≡ {2, 8}", notation {e_i, p_i}).
The page does not name the book; the notation is J. W. S. Liu's (*Real-Time Systems*, 2000).
The exercise states the verdict (schedulable by RM); no numbers beyond the parameters.

rtsched works in integer time: the set is scaled by 5, (4, 10), (7, 20), (10, 40) — scaling
every parameter by the same factor does not change schedulability. U = 0.4 + 0.35 + 0.25 = 1, so
the Liu & Layland and hyperbolic bounds cannot prove it (harmonic periods are why it holds).
"""

from fractions import Fraction

import rtsched
from rtsched import analyses

HARMONIC = rtsched.TaskSet.from_tasks([(4, 10, 10), (7, 20, 20), (10, 40, 40)])


def test_utilization_is_one():
    assert HARMONIC.utilization == 1


def test_rm_schedulable_by_rta():
    """Stated verdict: schedulable by RM. The exact RTA agrees, with τ3 finishing at its deadline."""
    r = analyses.get("uni-rta").explain(HARMONIC, 1)
    assert r.verdict is True
    assert all(row["response_time"] <= row["D"] for row in r.per_task)


def test_rm_schedulable_by_state_space():
    assert analyses.get("exact-gfp").verdict(HARMONIC, 1) is True


def test_utilization_bounds_cannot_prove_it():
    """U = 1 exceeds n(2^{1/n} − 1) and Π(U_i + 1) = 1.4·1.35·1.25 > 2: both sufficient tests say no."""
    assert analyses.get("rm-ll").verdict(HARMONIC, 1) is False
    r = analyses.get("rm-hb").explain(HARMONIC, 1)
    assert r.verdict is False
    assert r.evidence["product"] == Fraction(14, 10) * Fraction(135, 100) * Fraction(125, 100)
