"""Checks shared by the tests of the segmented analyses, as session fixtures (``--import-mode=importlib``
gives test files no shared module; session scope keeps hypothesis's function-scoped-fixture check quiet)."""

from collections.abc import Callable, Mapping

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rtsched.testing.strategies as rst
from rtsched import registry
from rtsched.model import TaskSet
from rtsched.segmented.model import SegmentedTaskSet
from rtsched.segmented.sim import simulate_segmented


def shares_a_device(ts: SegmentedTaskSet) -> bool:
    """Whether two tasks of ``ts`` use one device (the contended case the bounds are about)."""
    return any(sum(1 for t in ts if d in t.devices()) >= 2 for d in ts.devices)


def uni_rta_per_core(ts: SegmentedTaskSet, m: int) -> tuple[bool, list[int | None]]:
    """uni-rta (through the registry) on each core's tasks: the verdict and each task's R (None if unbounded)."""
    uni = registry.get("uni-rta")
    ok = True
    expected: list[int | None] = [None] * ts.n
    for core in range(m):
        on = ts.on_core(core)
        if not on:
            continue
        result = uni.explain(TaskSet.from_tasks([(ts[i].C, ts[i].D, ts[i].T) for i in on]), 1)
        ok = ok and result.verdict is True
        for i, row in zip(on, result.per_task, strict=True):
            expected[i] = row["response_time"] if isinstance(row["response_time"], int) else None
    return ok, expected


#: Sets on 1..3 cores without GPU segments (the tests that a lock-based analysis reduces to uni-rta).
CPU_ONLY = st.integers(1, 3).flatmap(
    lambda m: st.tuples(st.just(m), rst.segmented_tasksets(max_size=6, m=m, max_period=40, max_gpu_segments=0))
)


@pytest.fixture(scope="session")
def check_cpu_only_is_uni_rta() -> Callable[[Mapping[str, object]], None]:
    """Run the property: with no GPU segment, each entry's verdict and bounds are uni-rta's per core."""

    def run(entries: Mapping[str, object], examples: int = 100) -> None:
        @settings(max_examples=examples, deadline=None)
        @given(case=CPU_ONLY, mode=st.sampled_from(sorted(entries)))
        def prop(case, mode):
            m, ts = case
            ok, expected = uni_rta_per_core(ts, m)
            entry = entries[mode]
            assert entry.reference(ts, m) == ok
            if ok:
                assert list(entry.explain(ts, m).evidence["response_times"]) == expected

        prop()

    return run


@pytest.fixture(scope="session")
def check_lock_soundness() -> Callable[..., None]:
    """Run the property: sets a lock-based entry accepts never miss and never exceed a bound in simulation.

    ``run(entry, protocol, mode, examples, at_least, utilization)``: contended sets (two to five tasks on
    1..4 cores, one or two devices, per-core load at most ``utilization``) under periodic/WCET and
    sporadic or periodic random runs of ``simulate_segmented(protocol=...)``; at least ``at_least``
    accepted sets must have a shared device (the case the bounds are about).
    """

    def run(entry, protocol: str, mode: str, examples: int, at_least: int, utilization: float = 0.3) -> None:
        reach = {"accepted": 0, "shared": 0}
        cases = rst.segmented_cases(min_size=2, max_size=5, max_utilization=utilization, max_period=60)

        @settings(max_examples=examples, deadline=None, derandomize=True)
        @given(case=cases, seed=st.integers(0, 2**16))
        def prop(case, seed):
            m, ts = case
            if entry.reference(ts, m) is not True:
                return
            reach["accepted"] += 1
            reach["shared"] += shares_a_device(ts)
            bounds = entry.explain(ts, m).evidence["response_times"]
            horizon = 6 * max(t.T for t in ts)
            for run in (
                dict(arrivals="periodic", execution="wcet"),
                dict(arrivals="sporadic", execution="random", seed=seed),
                dict(arrivals="sporadic", execution="random", seed=seed + 1),
                dict(arrivals="periodic", execution="random", seed=seed + 2),
            ):
                trace = simulate_segmented(ts, m, protocol=protocol, mode=mode, horizon=horizon, **run)
                assert trace.schedulable_so_far, (ts, m, run, trace.misses[:1])
                for r, b in zip(trace.response_times, bounds, strict=True):
                    assert r is None or r <= b, (ts, m, run, trace.response_times, bounds)

        prop()
        assert reach["shared"] >= at_least, reach

    return run


@pytest.fixture(scope="session")
def check_batch_equals_reference() -> Callable[[Mapping[str, object]], None]:
    """Run the check: one batch of 60 seeded sets (1..5 tasks, 0..2 segments on g0/g1, D ≤ T) decided
    by each entry's kernel on m = 1, 2, 3 equals its reference set by set."""

    def run(entries: Mapping[str, object]) -> None:
        import numpy as np

        from rtsched.segmented.model import SegmentedBatch, SegmentedTask

        rng = np.random.default_rng(7)
        sets = []
        for _ in range(60):
            m = int(rng.integers(1, 4))
            tasks = []
            for _ in range(int(rng.integers(1, 6))):
                T = int(rng.integers(10, 50))
                eta = int(rng.integers(0, 3))
                gpu = tuple(
                    (int(rng.integers(0, 3)), int(rng.integers(1, 5)), f"g{int(rng.integers(0, 2))}")
                    for _ in range(eta)
                )
                cpu = tuple(int(rng.integers(0, 4)) for _ in range(eta + 1))
                work = sum(cpu) + sum(a + b for a, b, _ in gpu)
                if work == 0:
                    cpu = (1, *cpu[1:])
                    work = 1
                D = min(T, max(work, T - int(rng.integers(0, 5))))
                tasks.append(SegmentedTask(cpu, gpu, T, D, core=int(rng.integers(0, m))))
            sets.append((SegmentedTaskSet(tasks), m))
        for mode, entry in entries.items():
            for m in (1, 2, 3):
                chosen = [ts for ts, mm in sets if mm <= m]
                got = entry.status(SegmentedBatch.from_tasksets(chosen), m).tolist()
                assert got == [int(entry.reference(ts, m)) for ts in chosen], mode

    return run
