"""Brute-force oracles, independent of rtsched's kernels and simulator, for holding tests to.

:func:`fp_synchronous_meets_deadlines` replays one processor tick by tick; tests of the
uniprocessor and partitioned fixed-priority analyses compare their verdicts with it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

__all__ = ["fp_synchronous_meets_deadlines"]


def fp_synchronous_meets_deadlines(rows: Sequence[tuple[int, int, int]]) -> bool:
    """Whether preemptive fixed priorities (index 0 highest) meet every deadline on one processor.

    Every task is released at 0 and then periodically; the schedule is replayed one tick at a time
    over the hyperperiod.

    For constrained deadlines the synchronous release is a critical instant (Liu & Layland 1973,
    Thm. 1), so the first jobs decide the sporadic set and they are all inside the hyperperiod.
    Exponential in the periods: for small sets only.
    """
    H = math.lcm(*(t for _, _, t in rows))
    left = [0] * len(rows)  # remaining work of the current job of each task
    deadline = [0] * len(rows)
    for now in range(H + 1):
        for i, (c, d, t) in enumerate(rows):
            if left[i] and now >= deadline[i]:
                return False
            if now % t == 0 and now < H:
                left[i], deadline[i] = c, now + d
        if now == H:
            return True
        for i in range(len(rows)):
            if left[i]:
                left[i] -= 1
                if left[i] == 0 and now + 1 > deadline[i]:
                    return False
                break
    return True
