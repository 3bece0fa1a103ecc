"""Baker-style sets against the simulator: what the G-EDF tests accept does not miss (issue #46, item 2).

The example examples/bertogna_cirinei2007.toml runs rta, bcl-iter, bcl, gfb and bak on Baker-style
sets (few, heavy tasks; a random number of tasks), a regime the analyses' own soundness tests draw
less often. Every accepted set is simulated under global EDF with synchronous periodic arrivals and
with sporadic arrivals (three seeds), every job at its WCET; none may miss.
"""

from __future__ import annotations

import numpy as np
import pytest

from rtsched import registry
from rtsched.generators import generate_batch
from rtsched.sim import simulate

TESTS = ("rta", "bcl-iter", "bcl", "gfb", "bak")


@pytest.mark.parametrize("utilizations", ["uni-medium", "bimod-medium", "uni-heavy", "exp-heavy"])
@pytest.mark.parametrize("cap", ["discard", "keep"])
def test_accepted_baker_sets_do_not_miss(utilizations: str, cap: str) -> None:
    m = 3
    rng = np.random.default_rng(2007)
    accepted = dict.fromkeys(TESTS, 0)
    for bound in (1.0, 1.5, 2.0, 2.5):
        batch = generate_batch(
            rng, n=12, utilization=bound, size=40, utilizations=utilizations, method="baker", cap=cap,
            periods="uniform:5:30", deadlines="uniform",
        ).batch  # fmt: skip
        for ts in batch:
            verdicts = {name: registry.get(name).verdict(ts, m) for name in TESTS}
            if not any(v is True for v in verdicts.values()):
                continue
            for name, v in verdicts.items():
                accepted[name] += v is True
            assert simulate(ts, m, policy="gedf", arrivals="periodic", record=False).miss is None, ts.rows()
            for seed in range(3):
                trace = simulate(ts, m, policy="gedf", arrivals="sporadic", seed=seed, record=False)
                assert trace.miss is None, (ts.rows(), seed)
    assert accepted["rta"] > 0, "the check would be empty"
