"""Shared fixtures of the DAG analysis tests."""

from collections.abc import Callable, Sequence

import numpy as np
import pytest

from rtsched.dag import DAGTaskSet
from rtsched.generators.dag import dag_tasksets

#: The two shapes of the generated typed sets: nested fork-join and G(n, p), WCETs 1..10.
TYPED_SHAPES = (("fork-join", {"wcet": (1, 10)}), ("gnp", {"n": 8, "p": 0.3, "wcet": (1, 10)}))


def _typed_sets(
    seed: int,
    size: int,
    *,
    n_tasks: int,
    utilization: float,
    types: Sequence[str] = ("cpu", "gpu"),
    deadlines: str = "constrained",
) -> list[DAGTaskSet]:
    """``size // 2`` fork-join and ``size // 2`` G(n, p) sets of ``n_tasks`` typed DAG tasks.

    The generator's ``types=`` option draws the types (generators/dag.py, vertex_types): sources
    and sinks on cpu, every other vertex one of ``types`` with equal probability.
    """
    rng = np.random.default_rng(seed)
    weights = dict.fromkeys(types, 1.0)
    return [
        ts
        for shape, params in TYPED_SHAPES
        for ts in dag_tasksets(
            rng,
            n_tasks=n_tasks,
            utilization=utilization,
            size=size // 2,
            shape=shape,
            shape_params=params,
            deadlines=deadlines,
            types=weights,
        )  # fmt: skip
    ]


@pytest.fixture
def typed_sets() -> Callable[..., list[DAGTaskSet]]:
    """Seeded generated typed DAG task sets: ``typed_sets(seed, size, n_tasks=, utilization=, types=, deadlines=)``."""
    return _typed_sets
