"""Digests of today's ``generate_batch`` draws, pinned before the named generators (issue #46, item 2).

Adding the named utilization distributions, Baker-style generation and named periods must leave every
existing draw bit-identical: the same seed and options give the same C, D, T and offsets.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from rtsched.generators import generate_batch


def _digest(seed: int, **options: object) -> str:
    batch = generate_batch(np.random.default_rng(seed), **options).batch  # type: ignore[arg-type]
    h = hashlib.sha256()
    for array in (batch.C, batch.D, batch.T, batch.offsets):
        h.update(np.ascontiguousarray(array, dtype=np.int64).tobytes())
    return h.hexdigest()[:16]


@pytest.mark.parametrize(
    ("seed", "options", "expected"),
    [
        pytest.param(1, {"n": 5, "utilization": 2.0, "size": 50}, "06a02a3729dcd7db", id="defaults"),
        pytest.param(
            2,
            {"n": 8, "utilization": 3.0, "size": 40, "utilizations": "uunifast", "periods": "uniform:10:1000",
             "deadlines": "implicit"},
            "da01f2a7954da412",
            id="uunifast-uniform-implicit",
        ),
        pytest.param(
            3,
            {"n": 6, "utilization": 2.5, "size": 40, "utilizations": "randfixedsum",
             "periods": "log-uniform:10:1000:10", "deadlines": "uniform:0.5", "umax": 0.8},
            "575c23d298eca1b3",
            id="randfixedsum-granular",
        ),
        pytest.param(
            4,
            {"n": 10, "utilization": 1.5, "size": 30, "periods": "automotive", "order": "deadline-monotonic"},
            "d9e78a1d98537c4e",
            id="automotive-dm",
        ),
        pytest.param(
            5,
            {"n": 4, "utilization": 1.0, "size": 30, "periods": "choice:10,20,50:1,2,3", "deadlines": "scaled:0.5:2",
             "order": "rate-monotonic"},
            "7f077d0cf311a8c1",
            id="choice-scaled-rm",
        ),
    ],
)  # fmt: skip
def test_existing_draws_are_unchanged(seed: int, options: dict[str, object], expected: str) -> None:
    assert _digest(seed, **options) == expected
