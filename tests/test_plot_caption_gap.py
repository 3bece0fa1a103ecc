"""The caption names why the realized utilization differs from the target (issue #46).

For Baker-style sets the gap is the cap rule (tasks added while U stays within the bound, or
until it exceeds it), not rounding; the caption said "rounding" for both.
"""

from __future__ import annotations

from typing import Any

import pytest

from rtsched.sweep.plot import caption_of


def _experiment(**generator: Any) -> dict[str, Any]:
    gen = {"kind": "taskset", "utilizations": "uni-light", "periods": [1000, 2000], "deadlines": "implicit", "n": [50]}
    return {"generator": {**gen, **generator}, "platform": {"m": [4]}, "sweep": {"sets_per_point": 100}, "seed": 1}


def _rows(mean: float) -> list[dict[str, str]]:
    return [{"variable": "U/m", "value": "0.5", "target_utilization": "2.0", "mean_utilization": str(mean), "m": "4"}]


@pytest.mark.parametrize(
    ("generator", "mean", "cause"),
    [
        pytest.param({"method": "baker"}, 1.9, "(the cap rule: tasks are added while U stays within the target)",
                     id="baker-discard-default"),
        pytest.param({"method": "baker", "cap": "discard"}, 1.9,
                     "(the cap rule: tasks are added while U stays within the target)", id="baker-discard"),
        pytest.param({"method": "baker", "cap": "keep"}, 2.1,
                     "(the cap rule: tasks are added until U exceeds the target, the last one kept)", id="baker-keep"),
        pytest.param({"utilizations": "uunifast-discard", "umax": 1}, 1.9, "(rounding)", id="uunifast-rounding"),
    ],
)  # fmt: skip
def test_caption_names_the_cause_of_the_realized_gap(generator: dict[str, Any], mean: float, cause: str) -> None:
    text = caption_of(_experiment(**generator), _rows(mean))
    assert f"differs from the target by up to 5 % {cause}, so the x-axis is the mean realized U/m" in text
    if generator.get("method") == "baker":
        assert "rounding" not in text


def test_no_gap_sentence_when_realized_and_target_agree() -> None:
    text = caption_of(_experiment(method="baker"), _rows(2.0))
    assert "cap rule" not in text and "within 0 % of the target at every point (x = target)" in text
