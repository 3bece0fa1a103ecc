"""generate_batch(order=...): the task order within each set, read as priorities by FP analyses."""

import numpy as np
import pytest

from rtsched.errors import InputError
from rtsched.generators import generate_batch


@pytest.mark.parametrize(("order", "key"), [("deadline-monotonic", "D"), ("rate-monotonic", "T")])
def test_order_sorts_each_set_and_keeps_the_draws(order: str, key: str) -> None:
    drawn = generate_batch(np.random.default_rng(3), n=8, utilization=2.0, size=50, deadlines="uniform")
    ordered = generate_batch(np.random.default_rng(3), n=8, utilization=2.0, size=50, deadlines="uniform", order=order)
    assert np.allclose(drawn.realized_utilization, ordered.realized_utilization, rtol=1e-12, atol=0)  # summed in another order
    for s in range(50):
        a, b = drawn.batch[s], ordered.batch[s]
        assert sorted(a.rows()) == sorted(b.rows())  # the same tasks
        values = getattr(b, key).tolist()
        assert values == sorted(values)


def test_unknown_order_is_an_input_error() -> None:
    with pytest.raises(InputError, match="unknown task order"):
        generate_batch(np.random.default_rng(1), n=3, utilization=1.0, size=1, order="priority")


def test_sweep_files_take_the_order() -> None:
    from rtsched.sweep import parse_experiment

    text = """
seed = 1
[platform]
m = 2
[generator]
n = 4
deadlines = "uniform"
order = "deadline-monotonic"
[sweep]
variable = "U/m"
points = [0.5]
sets_per_point = 10
sets_per_unit = 10
[analyses]
names = ["gfp-rta"]
"""
    assert dict(parse_experiment(text).generator)["order"] == "deadline-monotonic"
