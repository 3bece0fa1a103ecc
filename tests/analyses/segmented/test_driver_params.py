"""The set's GPU driver (ε, time slice) in seg-gcaps-* and seg-tsg-*: keyword > set's driver > registered default.

An analysis of a set with ``driver=GPUDriver(ε, L)`` equals the analysis with the keywords;
``explain`` names the values and their sources; the batch kernels read each set's driver (a batch
may mix drivers) and equal the reference; a keyword overrides the driver.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rtsched.testing.strategies as rst
from rtsched import registry
from rtsched.analyses.segmented import gcaps, tsg
from rtsched.errors import InputError
from rtsched.segmented.model import GPUDriver, GPUSegment, SegmentedBatch, SegmentedTask, SegmentedTaskSet

#: The GCAPS note's worked example (ε = 1 there); with a driver of ε = 1 it must give the same bounds.
WORKED = SegmentedTaskSet(
    [
        SegmentedTask((1, 1), (GPUSegment(2, 4),), 30, core=0),
        SegmentedTask((2, 1), (GPUSegment(2, 3),), 40, core=1),
        SegmentedTask((1, 2), (GPUSegment(2, 5),), 50, core=0),
        SegmentedTask((4,), (), 60, core=1),
    ]
)


@pytest.mark.parametrize("mode", ["busy", "suspend"])
def test_worked_example_driver_equals_keyword(mode):
    with_driver = WORKED.with_driver(GPUDriver(epsilon=1))
    by_keyword = gcaps.explain(WORKED, 2, mode=mode, epsilon=1)
    by_driver = registry.get(f"seg-gcaps-{mode}").explain(with_driver, 2)
    assert by_driver.evidence["response_times"] == by_keyword.evidence["response_times"]
    assert by_driver.evidence["device_bounds"] == ((5,), (10,), (17,), ())  # the note's hand values (ε = 1)
    assert by_driver.evidence["epsilon"] == 1 and by_driver.evidence["epsilon_source"] == "set driver"
    assert "ε = 1 (the set's driver)" in by_driver.summary
    assert by_keyword.evidence["epsilon_source"] == "keyword"
    plain = registry.get(f"seg-gcaps-{mode}").explain(WORKED, 2)
    assert plain.evidence["epsilon"] == 0 and plain.evidence["epsilon_source"] == "default"
    assert "ε = 0 (default)" in plain.summary


def test_keyword_overrides_the_driver():
    ts = WORKED.with_driver(GPUDriver(epsilon=9, time_slice=2))
    ev = gcaps.explain(ts, 2, epsilon=1).evidence
    assert ev["epsilon"] == 1 and ev["epsilon_source"] == "keyword"
    assert ev["response_times"] == gcaps.explain(WORKED, 2, epsilon=1).evidence["response_times"]
    ev = tsg.explain(ts, 2, time_slice=3).evidence
    assert (ev["epsilon"], ev["epsilon_source"], ev["time_slice"], ev["time_slice_source"]) == (
        9,
        "set driver",
        3,
        "keyword",
    )
    ev = tsg.explain(ts, 2, epsilon=0).evidence
    assert (ev["epsilon_source"], ev["time_slice"], ev["time_slice_source"]) == ("keyword", 2, "set driver")


def test_tsg_sources_and_registered_default():
    ev = registry.get("seg-tsg-suspend").explain(WORKED, 2).evidence
    assert (ev["epsilon"], ev["time_slice"]) == (0, tsg.DEFAULT_TIME_SLICE)
    assert (ev["epsilon_source"], ev["time_slice_source"]) == ("default", "default")
    only_eps = WORKED.with_driver(GPUDriver(epsilon=2))  # no slice in the driver: the default slice
    result = tsg.explain(only_eps, 2)
    assert (result.evidence["time_slice"], result.evidence["time_slice_source"]) == (tsg.DEFAULT_TIME_SLICE, "default")
    assert "ε = 2 (the set's driver), time slice 10 (default)" in result.summary
    assert result.evidence["response_times"] == tsg.explain(WORKED, 2, epsilon=2).evidence["response_times"]


def test_bad_keyword_still_refused_with_a_driver():
    ts = WORKED.with_driver(GPUDriver(epsilon=1, time_slice=2))
    with pytest.raises(InputError) as err:
        tsg.reference(ts, 2, time_slice=0)
    assert err.value.field == "time_slice"
    with pytest.raises(InputError) as err:
        gcaps.codes(SegmentedBatch.from_tasksets([ts]), 2, epsilon=-1)
    assert err.value.field == "epsilon"


def _sets():
    return st.integers(1, 3).flatmap(
        lambda m: st.tuples(
            st.just(m),
            st.sampled_from([("gpu",), ("g0", "g1")]).flatmap(
                lambda devs: rst.segmented_tasksets(max_size=5, max_utilization=0.6, m=m, max_period=40, devices=devs)
            ),
            st.integers(0, 3),
            st.integers(1, 6),
        )
    )


@settings(max_examples=60, deadline=None)
@given(case=_sets(), mode=st.sampled_from(["busy", "suspend"]))
def test_set_driver_equals_keywords(case, mode):
    """reference, explain and codes with the set's driver == the same with the keywords (every layer, GPA too)."""
    m, ts, eps, L = case
    driven = ts.with_driver(GPUDriver(epsilon=eps, time_slice=L))
    batch = SegmentedBatch.from_tasksets([driven])
    expected = gcaps.reference(ts, m, mode=mode, epsilon=eps)
    assert gcaps.reference(driven, m, mode=mode) == expected
    assert int(gcaps.codes(batch, m, mode=mode)[0]) == int(expected)
    assert (
        gcaps.explain(driven, m, mode=mode).evidence["response_times"]
        == gcaps.explain(ts, m, mode=mode, epsilon=eps).evidence["response_times"]
    )
    gpa = gcaps.gpa_reference(ts, m, mode=mode, epsilon=eps)
    assert gcaps.gpa_reference(driven, m, mode=mode) == gpa
    assert int(gcaps.gpa_codes(batch, m, mode=mode)[0]) == int(gpa)
    assert gcaps.gpa_explain(driven, m, mode=mode).verdict == gpa
    rr = tsg.reference(ts, m, mode=mode, epsilon=eps, time_slice=L)
    assert tsg.reference(driven, m, mode=mode) == rr
    assert int(tsg.codes(batch, m, mode=mode)[0]) == int(rr)
    assert (
        tsg.explain(driven, m, mode=mode).evidence["response_times"]
        == tsg.explain(ts, m, mode=mode, epsilon=eps, time_slice=L).evidence["response_times"]
    )


def test_kernels_read_each_sets_driver_in_a_mixed_batch():
    """One batch, sets with different drivers (and none): codes == reference per set, for every entry."""
    rng = np.random.default_rng(43)
    sets = []
    for k in range(80):
        tasks = []
        for _ in range(int(rng.integers(1, 6))):
            eta = int(rng.integers(0, 3))
            gpu = tuple(
                GPUSegment(int(rng.integers(0, 3)), int(rng.integers(1, 6)), f"g{int(rng.integers(0, 2))}")
                for _ in range(eta)
            )
            cpu = tuple(int(rng.integers(0, 4)) for _ in range(eta + 1))
            if sum(cpu) + sum(g.G for g in gpu) == 0:
                cpu = (1, *cpu[1:])
            tasks.append(SegmentedTask(cpu, gpu, int(rng.integers(10, 60)), core=int(rng.integers(0, 2))))
        driver = (
            None if k % 4 == 0 else GPUDriver(int(rng.integers(0, 3)), None if k % 4 == 1 else int(rng.integers(1, 8)))
        )
        sets.append(SegmentedTaskSet(tasks, driver=driver))
    batch = SegmentedBatch.from_tasksets(sets)
    assert len({d for d in batch.drivers()}) > 5
    accepted = 0
    layers = [
        (gcaps.codes, gcaps.reference, "busy"),
        (gcaps.codes, gcaps.reference, "suspend"),
        (gcaps.gpa_codes, gcaps.gpa_reference, "busy"),
        (tsg.codes, tsg.reference, "busy"),
        (tsg.codes, tsg.reference, "suspend"),
    ]
    for codes, reference, mode in layers:
        got = codes(batch, 2, mode=mode).tolist()
        expected = [int(reference(ts, 2, mode=mode)) for ts in sets]
        assert got == expected, (reference, mode)
        accepted += sum(expected)
    entry = registry.get("seg-tsg-busy")  # the registry's path (status) too
    assert entry.status(batch, 2).tolist() == [int(entry.reference(ts, 2)) for ts in sets]
    assert 0 < accepted < 5 * len(sets)  # both verdicts reached
    # ... and the driver matters: ε = 0 everywhere by keyword gives the plain sets' verdicts
    plain = SegmentedBatch.from_tasksets([ts.with_driver(None) for ts in sets])
    assert gcaps.codes(batch, 2, epsilon=0).tolist() == gcaps.codes(plain, 2).tolist()


@settings(max_examples=20, deadline=None)
@given(case=_sets(), mode=st.sampled_from(["busy", "suspend"]), seed=st.integers(0, 2**16))
def test_accepted_with_a_driver_meets_every_deadline_in_simulation(case, mode, seed):
    """Soundness through the driver: what an analysis accepts with the set's driver, the simulator reading it runs."""
    from rtsched.segmented.sim import simulate_segmented

    m, ts, eps, L = case
    driven = ts.with_driver(GPUDriver(epsilon=eps, time_slice=L))
    runs = (dict(arrivals="periodic", execution="wcet"), dict(arrivals="sporadic", execution="random", seed=seed))
    for protocol, accepted in (
        ("gcaps", gcaps.reference(driven, m, mode=mode)),
        ("tsg-rr", tsg.reference(driven, m, mode=mode)),
    ):
        if not accepted:
            continue
        for run in runs:
            trace = simulate_segmented(driven, m, protocol=protocol, mode=mode, horizon=300, **run)
            assert trace.schedulable_so_far, (protocol, run, trace.misses[:1])
            assert (trace.epsilon, trace.time_slice) == (eps, L if protocol == "tsg-rr" else None)
