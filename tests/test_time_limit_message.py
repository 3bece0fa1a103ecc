"""The largest time value is stated in words a user reads, not as "int64" (issue #46).

Every model refuses a time value above MAX_TIME = 2**31 − 1 with one line naming the limit; the
message said "too large for exact int64 arithmetic", which tells a user nothing about ticks.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from rtsched import TaskSet
from rtsched.dag import DAGTask
from rtsched.errors import InputError
from rtsched.mc import MCTask
from rtsched.model import MAX_TIME
from rtsched.segmented.model import SegmentedTask

BIG = MAX_TIME + 1


@pytest.mark.parametrize(
    "make",
    [
        pytest.param(lambda: TaskSet.from_tasks([(1, 3, BIG)]), id="taskset-arrays"),
        pytest.param(lambda: TaskSet.from_tasks([(1, 3, 10**30)]), id="taskset-objects"),
        pytest.param(lambda: DAGTask([1, BIG, 1], [], T=BIG, D=BIG), id="dag-vertex"),
        pytest.param(lambda: DAGTask([MAX_TIME, MAX_TIME], [], T=10, D=10), id="dag-volume"),
        pytest.param(lambda: MCTask.lo(1, T=BIG, name="b"), id="mc"),
        pytest.param(lambda: SegmentedTask((1,), (), BIG, name="a"), id="segmented"),
    ],
)
def test_limit_named_without_int64(make: Callable[[], Any]) -> None:
    with pytest.raises(InputError) as info:
        make()
    message = str(info.value)
    assert "too large: at most 2147483647 (2**31 − 1, the largest time value)" in message
    assert "int64" not in message and "coarser time unit" in message


def test_cli_says_the_limit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from rtsched.cli import main

    path = tmp_path / "big.txt"
    path.write_text("1 3000000000 3000000000\n")
    assert main(["check", str(path), "-m", "1"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "int64" not in err
    assert "line 1, task 0, field D: 3000000000 is too large: at most 2147483647 (2**31 − 1" in err
