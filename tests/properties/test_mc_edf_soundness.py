"""Soundness of the EDF-based mixed-criticality analyses on generator sets with longer periods (slow).

``mc-edf-vd``, ``mc-edf-ey`` and ``mc-p-edf-vd`` have quick soundness tests next to them on sets
whose hyperperiod is at most 24 ticks. Here the sets come from the MC generator
(:func:`rtsched.generators.mc.mc_tasksets`: UUniFast, log-uniform periods 5–50, CF = 2.5), and
every accepted set is run under AMC with the virtual deadlines the analysis found: the simulator's
single-overrun search (:func:`rtsched.mc.sim.switch_search`: every HI job released in the first
300 ticks overruns alone, the HI jobs after the switch escalate to C(HI)), with synchronous
periodic and seeded sporadic arrivals, over 800 ticks. A miss found is a real miss; finding none
proves nothing beyond these runs.

Budget: RTSCHED_PROPERTY_EXAMPLES / 10 sets per (deadline model, utilization) point (at least 10);
each analysis must accept at least a tenth of what it saw, else the test fails.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

from rtsched.analyses.mixed_criticality import edf_vd2012 as vd
from rtsched.analyses.mixed_criticality import ekberg_yi2012 as ey
from rtsched.analyses.mixed_criticality import partitioned_edf_vd as pvd
from rtsched.generators.mc import mc_tasksets
from rtsched.mc.sim import switch_search

EXAMPLES = int(os.environ.get("RTSCHED_PROPERTY_EXAMPLES", "150"))
SETS = max(10, EXAMPLES // 10)
SEARCH = {"window": 300, "horizon": 800, "seed": 2}


def _search(ts, m: int = 1, **options) -> None:
    for arrivals in ("periodic", "sporadic"):
        result = switch_search(ts, m, arrivals=arrivals, **SEARCH, **options)
        assert result.failure is None, (ts, options, result.summary())


@pytest.mark.slow
@pytest.mark.parametrize("deadlines", ["implicit", "constrained"])
def test_ekberg_yi_and_edf_vd(deadlines):
    rng = np.random.default_rng(2012)
    seen = accepted_ey = accepted_vd = 0
    for u in (0.5, 0.65, 0.8):
        for ts in mc_tasksets(
            rng, n=5, utilization=u, size=SETS, deadlines=deadlines, cf=2.5, periods="log-uniform:5:50"
        ):
            seen += 1
            tu = ey.tune(ts, work=None)
            if tu.verdict is True:
                accepted_ey += 1
                _search(
                    ts,
                    scheduler="edf-vd",
                    virtual_deadlines=[tu.D_lo[i] if t.is_hi else None for i, t in enumerate(ts)],
                )
            if deadlines == "implicit" and vd.reference(ts):
                accepted_vd += 1
                _search(ts, scheduler="edf-vd", x=vd.plan(ts).x)
    assert accepted_ey >= seen // 10
    assert deadlines == "constrained" or accepted_vd >= seen // 10


@pytest.mark.slow
def test_partitioned_edf_vd_on_two_cores():
    rng = np.random.default_rng(2014)
    seen = accepted = 0
    for u in (1.2, 1.5):
        for ts in mc_tasksets(
            rng, n=6, utilization=u, size=SETS, cf=2.5, periods="log-uniform:5:50", utilizations="uunifast-discard"
        ):
            seen += 1
            pa = pvd.partition(ts, 2)
            if pa.failed is not None:
                continue
            accepted += 1
            xs = [p.x if p is not None else 1 for p in pa.plans]
            _search(ts, 2, scheduler="partitioned", partition=list(pa.core), core_scheduler="edf-vd", x=xs)
    assert accepted >= seen // 10
