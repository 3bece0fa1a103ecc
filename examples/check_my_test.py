"""Validate your own global EDF schedulability test with rtsched.testing.check_sound.

Here the "test" is deliberately wrong: it believes that total utilization U <= m is enough for
global EDF. check_sound searches small task sets (hypothesis), asks the exact G-EDF test (and
the simulator where the exact test cannot decide) whether each accepted set really is
schedulable, and returns the smallest counterexample it can shrink to, with the release
sequence that makes G-EDF miss. A Gantt chart of that miss is written to argv[1] (or to
check_my_test.png in the current directory).

    MPLBACKEND=Agg python examples/check_my_test.py [out.png]
"""

from __future__ import annotations

import sys
from pathlib import Path

from rtsched import analyses
from rtsched.model import TaskSet
from rtsched.sim import simulate
from rtsched.sim.gantt import save_gantt
from rtsched.testing.soundness import check_sound


def my_test(taskset: TaskSet, m: int) -> bool:
    """A plausible-looking but wrong sufficient test: U <= m."""
    return taskset.utilization <= m


def main() -> None:
    """Find the bug, print the counterexample, draw it; then check that GFB passes."""
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("check_my_test.png")
    found = check_sound(my_test, processors=(1, 2, 3), max_examples=200, seed=0)
    if found is None:
        print("no counterexample found")
    else:
        print(found)
        trace = simulate(found.taskset, found.m, releases=found.releases)
        save_gantt(trace, out, rows="tasks")
        print(f"Gantt chart of the miss: {out}")
    gfb = analyses.get("gfb")
    verdict = check_sound(lambda ts, m: gfb.explain(ts, m).verdict is True, max_examples=100, seed=0)
    print("GFB:", "no counterexample found" if verdict is None else verdict)


if __name__ == "__main__":
    main()
