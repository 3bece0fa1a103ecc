"""Relations among the global EDF tests gfb, bar, load, ffdbf: dominance and incomparability witnesses."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rtsched import TaskSet, analyses
from rtsched.testing import strategies as rst

# Found by a seeded random search (periods ≤ 20, n ≤ 5; none was found for gfb ⇒ ffdbf, as
# expected, nor for load-not-ffdbf); each set is accepted by the first test
# and not by the second, so neither test dominates the other in that direction.
WITNESSES = [
    ("bar", "gfb", [(7, 10, 10), (5, 6, 6)], 2),
    ("bar", "load", [(7, 10, 10), (5, 6, 6)], 2),
    ("bar", "ffdbf", [(7, 10, 10), (5, 6, 6)], 2),
    ("gfb", "bar", [(2, 4, 11), (4, 14, 17), (2, 4, 6)], 2),
    ("load", "bar", [(3, 3, 4), (1, 5, 7)], 2),
    ("ffdbf", "bar", [(3, 3, 4), (1, 5, 7)], 2),
    ("load", "gfb", [(3, 3, 4), (1, 5, 7)], 2),
    ("ffdbf", "gfb", [(3, 3, 4), (1, 5, 7)], 2),
    ("gfb", "load", [(6, 13, 13), (8, 12, 12)], 2),
    ("ffdbf", "load", [(6, 13, 13), (8, 12, 12)], 2),
]


@pytest.mark.parametrize(
    ("accepts", "rejects", "tasks", "m"), [pytest.param(*w, id=f"{w[0]}-not-{w[1]}") for w in WITNESSES]
)
def test_incomparable_witnesses(accepts, rejects, tasks, m):
    ts = TaskSet.from_tasks(tasks)
    assert analyses.get(accepts).reference(ts, m) is True
    assert analyses.get(rejects).reference(ts, m) is False


@given(rst.tasksets(max_size=6, max_period=30), st.integers(1, 5))
def test_gfb_implies_ffdbf(ts, m):
    """GFB ⇒ FF-DBF (the strict form; the non-strict one holds too, papers/bbmss2010-ffdbf.md).

    For σ ≥ λi, ffdbf(τi, t, σ) ≤ λi·t (qi·Ci ≤ λi·qi·Ti and the ramp is ≤ λi·ri), so with
    σ = λmax: ffdbf(τ, t, σ) ≤ Σλ·t ≤ (m − (m − 1)λmax)·t, and U ≤ Σλ gives λmax ≤ σcap.
    """
    if analyses.get("gfb").reference(ts, m):
        assert analyses.get("ffdbf").reference(ts, m) is True


@given(rst.tasksets(max_size=6, max_period=30), st.integers(1, 5))
def test_every_test_rejects_u_above_m(ts, m):
    if ts.utilization > m:
        for name in ("bar", "load", "ffdbf"):
            assert analyses.get(name).reference(ts, m) is False


@settings(max_examples=40)
@given(rst.batches(max_sets=20, min_size=2, max_size=5, max_period=8), st.integers(2, 3))
def test_sufficient_implies_exact(batch, m):
    """Every set bar, load or ffdbf accepts is G-EDF schedulable per the exact test (when it decides)."""
    exact = analyses.get("exact").decide(batch, m)
    for name in ("bar", "load", "ffdbf"):
        accepted = analyses.get(name).decide(batch, m) == 1
        assert not np.any(accepted & (exact == 0)), name


@given(rst.tasksets(max_size=6, max_period=30))
def test_m1_implies_uniprocessor_exact(ts):
    """On one processor each test implies the exact processor-demand test."""
    exact = analyses.get("uni-pda").reference(ts, 1)
    for name in ("bar", "load", "ffdbf"):
        if analyses.get(name).reference(ts, 1) is True:
            assert exact is True, name
    # LOAD on m = 1 is β = 1, i.e. exactly the processor-demand criterion.
    assert analyses.get("load").reference(ts, 1) == exact


BIG = 2**31 - 1
#: Sets that reach the kernels' guards (U within 1e-4·m of m; products beyond 2**61; huge t).
LARGE = [
    ([(BIG - 1, BIG, BIG), (BIG - 1, BIG, BIG)], 2),
    ([(2**29, 2**30, BIG), (2**29, 2**30, BIG), (3, 2**30 + 7, BIG)], 2),
    ([(2**28, 2**30, BIG), (2**29, 2**30 + 5, BIG - 3), (2**29, 2**30 + 9, BIG)], 2),
    ([(2**29, 2**30, BIG), (2**29, 2**30 + 11, BIG - 7), (5, 7, 11)], 2),
    ([(1000, 2**30, BIG), (2**20, 2**30 + 11, BIG - 7), (5, 7, 11)], 2),
]


@pytest.mark.parametrize(("name", "budget"), [("bar", 2000), ("load", 2000), ("ffdbf", 500)])
def test_large_values_fall_back_exactly(name, budget):
    """Guards send these sets to the exact reference (UNDECIDED); verdicts still equal it."""
    import importlib

    from rtsched import TaskSetBatch
    from rtsched.kernels import UNDECIDED

    module = importlib.import_module(f"rtsched.analyses.global_edf.{name}")
    kernel = getattr(module, f"_{name}_kernel")  # the raw prange driver, before the registry re-decides
    entry = analyses.get(name)
    code = {True: 1, False: 0, "unknown": -1}
    raw_codes = []
    for tasks, m in LARGE:
        ts = TaskSet.from_tasks(tasks)
        batch = TaskSetBatch.from_tasksets([ts])
        raw = np.empty(1, dtype=np.int8)
        kernel(batch.C, batch.D, batch.T, batch.offsets, m, budget, raw)
        raw_codes.append(int(raw[0]))
        expected = code[entry.reference(ts, m, budget)]
        assert int(entry.status(batch, m, budget)[0]) == expected
        assert code[entry.verdict(ts, m, budget)] == expected
    assert UNDECIDED in raw_codes
