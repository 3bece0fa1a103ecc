"""Tests of rtsched.generators.segmented: the GCAPS experiment's CPU–GPU task sets (papers/cpu-gpu-generators.md).

Reproducibility by seed, every rule's range and invariant exactly on many drawn sets, statistics
with fixed seeds (fraction of GPU tasks, per-CPU utilization near the target, copy share, G/C),
and one clear InputError per bad parameter.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from rtsched.errors import InputError
from rtsched.generators.segmented import (
    SEGMENTED_DEFAULTS,
    apportion,
    per_cpu_utilization,
    segmented_batch,
    segmented_tasksets,
)
from rtsched.segmented import SegmentedBatch
from rtsched.workloads import SEGMENTED_TASKSETS


@pytest.fixture(scope="module")
def default_sets():
    return segmented_tasksets(np.random.default_rng(2024), 300)


def test_same_seed_same_sets_and_batch():
    a = segmented_tasksets(np.random.default_rng(7), 20)
    b = segmented_tasksets(np.random.default_rng(7), 20)
    assert a == b
    batch = segmented_batch(np.random.default_rng(7), 20)
    assert isinstance(batch, SegmentedBatch) and batch.tasksets() == a
    assert batch == SegmentedBatch(
        batch.cpu, batch.G_m, batch.G_e, batch.device, batch.T, batch.D, batch.core, batch.mode,
        batch.gpu_offsets, batch.task_offsets, device_names=batch.device_names,
    )  # fmt: skip  # valid: the checking constructor accepts the arrays
    assert segmented_tasksets(np.random.default_rng(8), 20) != a
    # set s depends on its child generator only: the first sets do not depend on size
    assert segmented_tasksets(np.random.default_rng(7), 5) == a[:5]
    # the workload kind's hook is this generator
    assert SEGMENTED_TASKSETS.generate(np.random.default_rng(7), 20) == batch


def test_every_rule_holds_exactly(default_sets):
    lo_n, hi_n = SEGMENTED_DEFAULTS["tasks_per_cpu"]
    for ts in default_sets:
        assert ts.cores == (0, 1, 2, 3)
        for core in range(4):
            assert lo_n <= len(ts.on_core(core)) <= hi_n
        periods = [t.T for t in ts]
        assert periods == sorted(periods)  # rate monotonic
        n_gpu = len(ts.gpu_tasks())
        assert Fraction(2, 5) * ts.n - Fraction(1, 2) <= n_gpu <= Fraction(3, 5) * ts.n + Fraction(1, 2)
        for t in ts:
            assert t.T % 10 == 0 and 300 <= t.T <= 5000
            assert t.D == t.T and t.mode is None
            assert 1 <= t.C + t.G <= t.T
            if t.gpu:
                assert 1 <= t.eta <= 3 and len(t.cpu) == t.eta + 1
                assert all(g.G_e >= 1 and g.G_m >= 0 and g.device == "gpu" for g in t.gpu)
                for g in t.gpu:  # G_m = min(G_j - 1, round(s·G_j)) with s in [0.1, 0.3]
                    assert g.G_m <= max(0, min(g.G - 1, (3 * g.G + 5) // 10))
                    assert g.G_m >= min(g.G - 1, (g.G + 5) // 10 - 1)
            else:
                assert t.cpu == (t.C,) and t.eta == 0


def test_gpu_ratio_follows_the_rounding_rule(default_sets):
    for ts in default_sets:
        for t in ts:
            if t.gpu and t.C + t.G > 20:
                ratio = t.G / max(t.C, 1)
                W = t.C + t.G
                # G = W - round(W/(1+r)) with r in [0.2, 2]: C within 1/2 tick of W/(1+r)
                assert W / 3 - 1 <= t.C <= W / 1.2 + 1, (t, ratio)


def test_statistics_with_a_fixed_seed(default_sets):
    fractions = [len(ts.gpu_tasks()) / ts.n for ts in default_sets]
    assert 0.47 < np.mean(fractions) < 0.53
    batch = SegmentedBatch.from_tasksets(default_sets)
    per_cpu = per_cpu_utilization(batch, 4)
    assert per_cpu.shape == (300, 4)
    # target uniform in [0.4, 0.6]; W = round(u·T) moves each task by at most 1/(2T) <= 1/600
    assert 0.49 < per_cpu.mean() < 0.51
    assert per_cpu.min() > 0.4 - 6 / 600 and per_cpu.max() < 0.6 + 6 / 600
    gpu = [g for ts in default_sets for t in ts for g in t.gpu if g.G >= 50]
    shares = [g.G_m / g.G for g in gpu]
    assert 0.19 < np.mean(shares) < 0.21
    etas = [t.eta for ts in default_sets for t in ts if t.gpu]
    assert sorted(set(etas)) == [1, 2, 3] and 1.9 < np.mean(etas) < 2.1
    periods = [t.T for ts in default_sets for t in ts]
    assert 2500 < np.mean(periods) < 2800  # uniform 300..5000: mean 2650


def test_fixed_utilization_is_met_up_to_rounding():
    batch = segmented_batch(np.random.default_rng(3), 50, utilization=0.8, ticks=100)
    per_cpu = per_cpu_utilization(batch, 4)
    # each task's W = round(u·T) with T >= 3000 ticks: at most 6 tasks x 1/(2·3000) off, unless W was raised to 1
    assert np.abs(per_cpu - 0.8).max() < 6 / 6000 + 1e-12


def test_options():
    rng = np.random.default_rng(11)
    sets = segmented_tasksets(
        rng, 30, m=2, tasks_per_cpu=4, utilization=0.5, gpu_tasks=1.0, gpu_segments=2, gpu_ratio=1.0,
        copy_share=0.0, devices=("a", "b", "c"), deadlines="constrained", mode="suspend", ticks=1,
        periods="log-uniform:100:1000",
    )  # fmt: skip
    segments = []
    for ts in sets:
        assert ts.n == 8 and len(ts.gpu_tasks()) == 8
        for t in ts:
            assert t.eta == 2 and t.mode == "suspend" and t.C + t.G <= t.D <= t.T and 100 <= t.T <= 1000
            assert all(g.G_m == 0 for g in t.gpu)
            assert abs(t.G - t.C) <= 2  # G/C = 1 up to rounding
            segments.extend(g.device for g in t.gpu)
    # round-robin in priority order, restarting with each set
    assert segments[:6] == ["a", "b", "c", "a", "b", "c"]
    rand = segmented_tasksets(
        np.random.default_rng(11), 30, gpu_tasks=1.0, devices=("a", "b"), device_assignment="random"
    )
    devices = [g.device for ts in rand for t in ts for g in t.gpu]
    assert 0.4 < devices.count("a") / len(devices) < 0.6
    none = segmented_tasksets(np.random.default_rng(1), 5, gpu_tasks=0.0)
    assert all(not t.gpu for ts in none for t in ts)
    same = segmented_tasksets(np.random.default_rng(1), 5, deadlines="constrained")
    implicit = segmented_tasksets(np.random.default_rng(1), 5)
    assert [[t.replace(D=t.T) for t in ts] for ts in same] == [list(ts) for ts in implicit]


def test_tiny_utilization_keeps_work_and_g_e():
    sets = segmented_tasksets(np.random.default_rng(5), 20, utilization=0.001, gpu_tasks=1.0, ticks=1)
    for ts in sets:
        for t in ts:
            assert t.C + t.G >= t.eta >= 1 and all(g.G_e >= 1 for g in t.gpu)


@pytest.mark.parametrize(
    ("parameters", "field", "message"),
    [
        ({"m": 0}, "m", "m must be an integer >= 1"),
        ({"tasks_per_cpu": (5, 3)}, "tasks_per_cpu", "tasks_per_cpu must be an integer >= 1 or a range"),
        ({"tasks_per_cpu": 2.5}, "tasks_per_cpu", "tasks_per_cpu"),
        ({"utilization": 1.2}, "utilization", "utilization must be in (0.0, 1.0]"),
        ({"utilization": 0}, "utilization", "utilization must be in (0.0, 1.0]"),
        ({"utilization": "high"}, "utilization", "utilization must be a number or a range"),
        ({"gpu_tasks": (0.6, 0.4)}, "gpu_tasks", "lo <= hi"),
        ({"gpu_segments": 0}, "gpu_segments", "gpu_segments must be an integer >= 1"),
        ({"gpu_ratio": -1}, "gpu_ratio", "gpu_ratio must be in (0.0, inf)"),
        ({"copy_share": (0.1, 0.2, 0.3)}, "copy_share", "a range [lo, hi]"),
        ({"ticks": 0}, "ticks", "ticks must be an integer >= 1"),
        ({"ticks": 10**18}, "ticks", "exceed"),
        ({"periods": "uniform:500:30"}, "periods", "LO = 500 exceeds HI = 30"),
        ({"devices": ()}, "devices", "non-empty list"),
        ({"devices": ("a", "a")}, "devices", "distinct"),
        ({"devices": ("9x",)}, "devices", "a GPU device name is a word"),
        ({"device_assignment": "hash"}, "device_assignment", "unknown device assignment 'hash'"),
        ({"deadlines": "arbitrary"}, "deadlines", "unknown deadline model 'arbitrary'"),
        ({"mode": "spin"}, "mode", "mode must be busy, suspend or None"),
        ({"n": 5}, "n", "unknown parameter 'n' of the segmented generator"),
    ],
)
def test_bad_parameters(parameters, field, message):
    with pytest.raises(InputError) as info:
        segmented_tasksets(np.random.default_rng(0), 1, **parameters)
    assert info.value.field == field
    assert message in str(info.value) and "\n" not in str(info.value)


def test_bad_size():
    with pytest.raises(InputError, match="size must be an integer >= 0"):
        segmented_batch(np.random.default_rng(0), -1)
    assert segmented_tasksets(np.random.default_rng(0), 0) == []


@pytest.mark.parametrize(
    ("total", "weights", "expected"),
    [
        pytest.param(10, [0.5, 0.3, 0.2], [5, 3, 2], id="exact"),
        pytest.param(7, [1, 1, 1], [3, 2, 2], id="ties-first"),
        pytest.param(5, [0.1, 0.45, 0.45], [1, 2, 2], id="remainders"),
        pytest.param(3, [0.0, 0.0], [2, 1], id="zero-weights"),
    ],
)
def test_apportion(total, weights, expected):
    assert apportion(total, weights) == expected
    assert sum(apportion(total, weights)) == total


class _Script:
    """A stand-in for numpy's Generator that returns scripted draws (the worked example of the note)."""

    def __init__(self, uniform, integers, random):
        self._uniform, self._integers, self._random = list(uniform), list(integers), list(random)

    def uniform(self, lo, hi):
        x = self._uniform.pop(0)
        assert lo <= x <= hi
        return x

    def integers(self, lo, hi, endpoint=False):
        return self._integers.pop(0)

    def random(self, shape):
        return np.array(self._random.pop(0), dtype=float).reshape(shape)


def test_worked_example_of_the_note():
    """papers/cpu-gpu-generators.md, "Worked example": one GPU task's integer segments, by hand.

    u = 0.137, T = 470 ticks: W = round(64.39) = 64; r = G/C = 1: C = round(64/2) = 32, G = 32;
    η = 2, weights (0.25, 0.75) (UUniFast uniform 0.75): G - η = 30 gives 7.5 and 22.5, floors 7
    and 22, the tick left to the first tie: (8, 22), so G_1 = 9, G_2 = 23; copy shares 0.2:
    G_m = round(1.8) = 2 and round(4.6) = 5, G_e = 7 and 18; C over weights (0.5, 0.3, 0.2)
    (uniforms 0.25, 0.4): 16, 9.6, 6.4, floors 16, 9, 6, the tick left to 9.6: (16, 10, 6).
    """
    from rtsched.generators.segmented import _Spec, _task

    rng = _Script(uniform=[1.0, 0.2, 0.2], integers=[2], random=[[0.75], [0.25, 0.4]])
    cpu, gpu, T, D, core = _task(rng, _Spec(), 0.137, 470, 3, True)  # type: ignore[arg-type]
    assert cpu == [16, 10, 6] and gpu == [(2, 7, -1), (5, 18, -1)] and (T, D, core) == (470, 470, 3)
    assert sum(cpu) + sum(a + b for a, b, _ in gpu) == 64
    assert not rng._uniform and not rng._integers and not rng._random  # every scripted draw used
    # a CPU-only task draws nothing: W = round(0.001 · 470) = 0 is raised to 1 tick
    assert _task(_Script([], [], []), _Spec(), 0.001, 470, 0, False) == ([1], [], 470, 470, 0)  # type: ignore[arg-type]
