"""gedf-upper's verdict states the window it simulated where it is printed (issue #46).

"not refuted" means only that the synchronous release met its deadlines in the window simulated;
a reader of the table must see that window (or that the exact test ran).
"""

from __future__ import annotations

from rtsched import TaskSet, check


def test_not_refuted_names_its_window_in_the_table() -> None:
    ts = TaskSet.from_tasks([(1, 40, 40), (2, 60, 6000), (3, 120, 1200), (5, 997, 997), (7, 1009, 1013)])
    report = check(ts, 2, tests="gedf-upper")
    row = next(line for line in str(report).splitlines() if line.startswith("gedf-upper"))
    assert "not refuted" in row
    assert "no miss of the synchronous release in [0, 120000) (hyperperiod 6059766000 not reached)" in row


def test_a_full_hyperperiod_or_the_exact_test_is_said_too() -> None:
    row = next(
        line
        for line in str(
            check(TaskSet.from_tasks([(1, 4, 4), (2, 6, 6), (3, 12, 12)]), 2, tests="gedf-upper")
        ).splitlines()
        if line.startswith("gedf-upper")
    )
    assert "exact G-EDF test" in row or "one hyperperiod" in row
