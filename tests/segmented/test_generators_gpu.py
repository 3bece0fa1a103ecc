"""The segmented generator's optional GPU description (papers/cpu-gpu-generators.md, "GPU descriptions").

Pinned digests of the draws without the option (taken before the option was added: sets without
it are unchanged), the profile rule C(s) = ⌈G_e·((1 − p) + p·M/s)⌉ and the slowdown row
f(k) = 1 + a·k by hand, the batch equal to the sets, bad parameters.
"""

import hashlib
from fractions import Fraction

import numpy as np
import pytest

from rtsched.cli import main
from rtsched.errors import InputError
from rtsched.generators.segmented import amdahl_profile, segmented_batch, segmented_tasksets
from rtsched.segmented import read_segmented_tasksets
from rtsched.segmented.model import GPUSegment

#: Seed 5, 10 sets, gpu_clusters 4, parallel 0.6–0.9, slowdown step 0.1, m = 2 (pinned when step 10 was added).
GPU_DIGEST = "0212a4ddb9e7ff60"


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


def _strip(ts):
    """The set without its GPU description and profiles (what steps 1-9 drew)."""
    return ts.with_gpu(None).__class__(
        [t.replace(gpu=tuple(GPUSegment(g.G_m, g.G_e, g.device) for g in t.gpu)) for t in ts],
        driver=ts.driver,
    )


@pytest.mark.parametrize(
    "options",
    [
        pytest.param({}, id="defaults"),
        pytest.param({"devices": ["gpu", "g1"], "deadlines": "constrained"}, id="two-devices"),
    ],
)
def test_the_option_leaves_the_tasks_as_they_were(options):
    """Step 10 draws from a stream of its own: the tasks are those drawn without it."""
    plain = segmented_tasksets(np.random.default_rng(43), 20, **options)
    rich = segmented_tasksets(np.random.default_rng(43), 20, gpu_clusters=7, gpu_layout="mig:a100", **options)
    assert [_strip(ts) for ts in rich] == plain
    for ts in rich:
        gpu = ts.gpu
        assert (gpu.clusters, gpu.layout, gpu.device, gpu.interference) == (7, "mig:a100", "gpu", "count-only")
        for t in ts:
            for g in t.gpu:
                if g.device == "gpu":
                    assert g.profile.at(7) == g.G_e  # G_e stays the whole-GPU WCET
                    values = g.profile.values
                    assert list(values) == sorted(values, reverse=True) and len(values) == 7
                else:
                    assert g.profile is None


def test_the_gpu_draws_are_pinned_and_the_batch_equals_the_sets():
    options = {"gpu_clusters": 4, "parallel": [0.6, 0.9], "slowdown_step": 0.1, "m": 2}
    sets = segmented_tasksets(np.random.default_rng(5), 10, **options)
    assert _digest(sets) == GPU_DIGEST
    assert segmented_batch(np.random.default_rng(5), 10, **options).tasksets() == sets
    # a fixed slowdown step: f(k) = 1 + k/10 exactly, the last value beyond
    row = sets[0].gpu.slowdown
    assert row.factors == (Fraction(11, 10), Fraction(6, 5), Fraction(13, 10))


@pytest.mark.parametrize(
    ("G_e", "p", "M", "expected"),
    [
        pytest.param(
            10, Fraction(1, 2), 4, (25, 15, 12, 10), id="half"
        ),  # 10·(1/2 + 2) = 25, 10·(1/2 + 1) = 15, ⌈11.67⌉
        pytest.param(7, Fraction(0), 3, (7, 7, 7), id="serial"),
        pytest.param(3, Fraction(1), 2, (6, 3), id="parallel"),
        pytest.param(5, Fraction(3, 4), 1, (5,), id="one-cluster"),
    ],
)
def test_amdahl_profile_by_hand(G_e, p, M, expected):
    assert amdahl_profile(G_e, p, M) == expected


@pytest.mark.parametrize(
    ("options", "field", "words"),
    [
        pytest.param({"parallel": 0.5}, "parallel", "needs gpu_clusters", id="no-clusters"),
        pytest.param({"gpu_clusters": 0}, "gpu_clusters", "integer >= 1", id="zero-clusters"),
        pytest.param({"gpu_clusters": 4, "gpu_layout": "mig:a100"}, "gpu_layout", "M must be 7", id="mig-needs-7"),
        pytest.param({"gpu_clusters": 4, "gpu_layout": 3}, "gpu_layout", "layout space", id="layout-number"),
        pytest.param({"gpu_clusters": 4, "parallel": [0.5, 1.5]}, "parallel", "[0.0, 1.0]", id="parallel-range"),
        pytest.param({"gpu_clusters": 4, "slowdown_step": -0.1}, "slowdown_step", "in [0.0", id="negative-step"),
    ],
)
def test_bad_gpu_parameters(options, field, words):
    with pytest.raises(InputError) as info:
        segmented_tasksets(np.random.default_rng(0), 1, **options)
    assert info.value.field == field
    assert words in str(info.value)


def test_generate_cli_writes_the_description_and_reads_it_back(tmp_path, capsys):
    """``rtsched generate --kind segmented --param gpu_clusters=..``: the file holds the description and profiles."""
    out = tmp_path / "g.yaml"
    args = ["generate", "--kind", "segmented", "--n", "3", "--utilization", "0.5", "-m", "2", "--count", "3"]
    gpu = ["--param", "gpu_clusters=7", "--param", "gpu_layout=mig:a100", "--param", "parallel=0.6:0.9"]
    assert main([*args, *gpu, "--seed", "4", "-o", str(out), "-q"]) == 0
    expected = segmented_tasksets(
        np.random.default_rng(4),
        3,
        m=2,
        tasks_per_cpu=3,
        utilization=0.5,
        gpu_clusters=7,
        gpu_layout="mig:a100",
        parallel=(0.6, 0.9),
    )
    assert read_segmented_tasksets(out) == expected
    assert main([*args, "--param", "parallel=0.5", "-q"]) == 2
    assert "needs gpu_clusters" in capsys.readouterr().err


def test_the_sweep_kind_draws_descriptions():
    """``[generator] gpu_clusters = ..`` reaches the generator; left out, the canonical form has no such key."""
    from rtsched.sweep.kinds import kind_named

    kind = kind_named("segmented")
    params = {"gpu_clusters": 4, "gpu_layout": "tpc:2", "parallel": (0.5, 1.0)}
    drawn = kind.generate(np.random.default_rng(1), n=(3, 3), utilization=0.4, size=3, m=2, params=params)
    sets = drawn.batch.tasksets()
    assert all(ts.gpu is not None and ts.gpu.layout == "tpc:2" for ts in sets)
    plain = kind.generate(np.random.default_rng(1), n=(3, 3), utilization=0.4, size=3, m=2, params={})
    assert [_strip(ts) for ts in sets] == plain.batch.tasksets()
