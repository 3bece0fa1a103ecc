"""The segmented generator's optional GPU description (papers/cpu-gpu-generators.md, "GPU descriptions").

Pinned digests of the draws without the option (taken before the option was added: sets without
it are unchanged), the profile rule C(s) = ⌈G_e·((1 − p) + p·M/s)⌉ and the slowdown row
f(k) = 1 + a·k by hand, the batch equal to the sets, bad parameters.
"""

import hashlib

import numpy as np
import pytest

from rtsched.generators.segmented import segmented_batch, segmented_tasksets


def _digest(sets) -> str:
    return hashlib.sha256(repr(sets).encode()).hexdigest()[:16]


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        pytest.param({}, "021b1b42057dfc4b", id="defaults"),
        pytest.param(
            {"deadlines": "constrained", "devices": ["gpu", "g1"], "device_assignment": "random"},
            "9e674478eb0c3115",
            id="constrained-two-devices",
        ),
        pytest.param(
            {"m": 2, "epsilon_ms": 1, "time_slice_ms": 1.024, "mode": "busy"}, "731fc27918259014", id="driver"
        ),
    ],
)
def test_draws_without_the_option_are_unchanged(options, expected):
    """Digests pinned before the GPU option existed (seed 43, 20 sets)."""
    assert _digest(segmented_tasksets(np.random.default_rng(43), 20, **options)) == expected
    if not options:
        assert _digest(segmented_batch(np.random.default_rng(43), 20).tasksets()) == expected
