"""GPU experiments in the sweep engine (``[generator] kind = "gpu"``; papers/zahaf2021-gpu-partitioning.md).

Tiny experiments (M = 2 or 4, a handful of workloads per point): the whole module runs in a
few seconds, the two-process pool included. The model and the analyses are tested in
tests/analyses/gpu/test_gpu.py; here: seeding, executors, validation, tables and plots of GPU sweeps.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from rtsched import registry
from rtsched.errors import InputError
from rtsched.generators.gpu import GPUWorkloadBatch, generate_gpu_batch
from rtsched.platform import GPU, Identical
from rtsched.sweep import load_experiment, parse_experiment, run
from rtsched.sweep.experiment import axis_label
from rtsched.sweep.kinds import gpu_refusal, platform
from rtsched.sweep.units import plan, run_unit
from rtsched.testing.experiments import experiment_toml

REPO = Path(__file__).resolve().parents[1]
HEURISTICS = ("single", "ffd", "bfd", "exhaustive")

def tiny_gpu(
    m: str = "4",
    n: str = "5",
    points: str = "[0.35, 0.5, 0.65]",
    sets: int = 24,
    per_unit: int = 8,
    names: str | None = None,
) -> str:
    """A small GPU experiment as TOML text (every GPU analysis, gpu:<heuristic>, by default)."""
    if names is None:
        names = "[" + ", ".join(f'"gpu:{h}"' for h in HEURISTICS) + "]"
    generator = {
        "kind": '"gpu"',
        "n": n,
        "periods": '"log-uniform:100:1000"',
        "deadlines": '"implicit"',
        "parallel": "[0.3, 0.95]",
        "contention": "[0.0, 0.3]",
    }
    return experiment_toml(
        name="tiny-gpu", seed=7, m=m, generator=generator, points=points,
        sets_per_point=sets, sets_per_unit=per_unit, names=names,
    )


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "gpu.toml"
    path.write_text(text, encoding="utf-8")
    return path


# ---------------------------------------------------------------------------------------------
# Seeding and executors
# ---------------------------------------------------------------------------------------------
def test_unit_draws_gpu_workloads_from_its_seed_sequence() -> None:
    exp = parse_experiment(tiny_gpu())
    the_plan = plan(exp)
    assert len(the_plan.units) == 3 * 3  # 3 points x 24 / 8 chunks
    assert all(u.kind == "gpu" and u.m == 4 for u in the_plan.units)
    spec = the_plan.units[4]
    result = run_unit(spec)
    assert result == {**run_unit(spec), "seconds": result["seconds"]}  # a function of the unit only
    # Unit k draws exactly from SeedSequence(seed, spawn_key=(k,)) with clusters = m and U1 = U/m · m.
    rng = np.random.default_rng(np.random.SeedSequence(7, spawn_key=(4,)))
    direct = generate_gpu_batch(
        rng,
        n=5,
        utilization=0.5 * 4,
        size=8,
        clusters=4,
        periods="log-uniform:100:1000",
        deadlines="implicit",
        parallel=(0.3, 0.95),
        contention=(0.0, 0.3),
        nonpreemptive=0.0,
    )
    assert spec.utilization == 2.0 and spec.sets == 8
    assert result["utilization_sum"] == float(np.sum(direct.realized_utilization))
    for h in HEURISTICS:
        expected = registry.get(f"gpu:{h}").status(direct.batch, GPU(4))
        assert result["accepted"][f"gpu:{h}"] == int(np.count_nonzero(expected == 1))
        assert result["unknown"][f"gpu:{h}"] == int(np.count_nonzero(expected == -1))


def test_gpu_sweep_inline_equals_process_pool(inline_and_pooled) -> None:
    inline, pooled = inline_and_pooled(parse_experiment(tiny_gpu()))
    assert inline.sets == pooled.sets == 3 * 24
    assert inline.analyses == tuple(f"gpu:{h}" for h in HEURISTICS)


def test_gpu_sweep_tables(tmp_path: Path) -> None:
    results = run(
        parse_experiment(tiny_gpu(sets=40, per_unit=20)), tmp_path / "out", workers=0, progress="none", plot=False
    )
    by_point = results.rows_by_configuration()
    assert len(by_point) == 3
    for rows in by_point.values():
        accepted = {row.analysis.rsplit(":", 1)[1]: row.accepted for row in rows}
        for row in rows:
            assert row.sets == 40 and 0 <= row.accepted + row.unknown <= row.sets
            assert row.m == 4 and row.target_utilization == pytest.approx(row.value * 4)  # U1 = (U1/M) · M
            assert row.mean_utilization >= row.target_utilization  # C(1) = ceil(u·T) rounds up
        # No allocation heuristic beats the optimum under the model (papers/zahaf2021-gpu-partitioning.md).
        for h in ("single", "ffd", "bfd"):
            assert accepted[h] <= accepted["exhaustive"], (h, accepted)
    # The experiment is not trivial: some point separates accepted from rejected workloads.
    assert any(0 < row.accepted < row.sets for row in results.rows)
    assert [w.analysis for w in results.weighted] == list(results.analyses)


def test_gpu_plot_labels_u1_over_m(tmp_path: Path) -> None:
    out = tmp_path / "out"
    run(parse_experiment(tiny_gpu(sets=8, per_unit=8)), out, workers=0, progress="none", plot=True)
    svg = (out / "acceptance.svg").read_text(encoding="utf-8")
    assert "U1/M" in svg and "Σ C(1)/T" in svg
    assert "GPU workloads" in svg and "8 workloads per point" in svg and "M = 4 clusters" in svg
    assert axis_label("U/m", "gpu").startswith("Normalized one-cluster utilization U1/M")
    assert axis_label("U/m") != axis_label("U/m", "gpu")


def test_processor_list_applies_each_gpu_analysis_to_every_m() -> None:
    """A GPU analysis takes its M from the platform GPU(m): one name serves every m."""
    text = tiny_gpu(m="[2, 4]", sets=8, per_unit=8, names='["gpu:ffd"]')
    the_plan = plan(parse_experiment(text))
    for config in the_plan.configurations:
        assert config.analyses == ("gpu:ffd",)
    assert {u.m for u in the_plan.units} == {2, 4}
    assert {c.m for c in the_plan.configurations} == {2, 4}


# ---------------------------------------------------------------------------------------------
# Identity
# ---------------------------------------------------------------------------------------------
def test_fingerprint_covers_generator_kind_and_parameters() -> None:
    exp = parse_experiment(tiny_gpu())
    canonical = exp.canonical()
    assert canonical["generator"]["kind"] == "gpu"
    assert canonical["generator"]["parallel"] == [0.3, 0.95] and canonical["generator"]["nonpreemptive"] == 0.0
    again = parse_experiment(exp.to_toml())
    assert again.generator_kind == "gpu" and again.canonical() == canonical and again.fingerprint() == exp.fingerprint()
    other = parse_experiment(tiny_gpu().replace("contention = [0.0, 0.3]", "contention = [0.0, 0.4]"))
    assert other.fingerprint() != exp.fingerprint()
    # The defaults are written out: omitting a default parameter is the same experiment.
    implicit = parse_experiment(tiny_gpu().replace('deadlines = "implicit"\n', ""))
    assert implicit.fingerprint() == exp.fingerprint()
    # A task-set experiment has no kind in its canonical form (fingerprints of older sweeps hold).
    taskset = parse_experiment(
        {
            "platform": {"m": 4},
            "generator": {"n": 5},
            "sweep": {"variable": "U/m", "points": [0.5], "sets_per_point": 4},
        }
    )
    assert taskset.generator_kind == "taskset" and "kind" not in taskset.canonical()["generator"]


def test_contention_can_be_swept() -> None:
    text = tiny_gpu(points="[0.5]").replace("contention = [0.0, 0.3]\n", "")
    text = text.replace("[sweep]", '[sweep]\nby = "generator.contention"\nby_points = [[0.0, 0.0], [0.2, 0.5]]')
    exp = parse_experiment(text)
    assert exp.by is not None and exp.by.points == ((0.0, 0.0), (0.2, 0.5))
    the_plan = plan(exp)
    assert [dict(c.generator)["contention"] for c in the_plan.configurations] == [(0.0, 0.0), (0.2, 0.5)]
    assert parse_experiment(exp.to_toml()).fingerprint() == exp.fingerprint()


# ---------------------------------------------------------------------------------------------
# Validation: errors name the key (and the line)
# ---------------------------------------------------------------------------------------------
#: Analyses a GPU experiment cannot run (the error is on analyses.names, line 22): platform.m,
#: analyses.names, words of the error.
BAD_ANALYSES = {
    "old-name-with-m": ("8", '["gpu:4:ffd"]', ("gpu:4:ffd is now gpu:ffd on platform gpu:4",)),
    "old-name-default-heuristic": ("[2, 8]", '["gpu:4"]', ("gpu:4 is now gpu on platform gpu:4",)),
    "gpu-analysis-no-m": ("[65, 100]", '["gpu:ffd"]', ("1..64", "platform.m = 65, 100")),
    "task-set-analysis-in-gpu": ("4", '["gpu:ffd", "gfb"]', ("'gfb'", "GPU workloads")),
    "featured-in-gpu": ("4", '"featured"', ("names its analyses",)),
    "m-too-large-for-analysis": ("100", '["gpu:ffd"]', ("1..64", "platform.m = 100", "'gpu:ffd'")),
    "m-beyond-the-gpu-model": ("65", '["gpu:single"]', ("1..64",)),
}
#: Bad generator keys, as edits of tiny_gpu(): text, its replacement, the key, its line, words of the error.
BAD_GENERATOR = {
    "unknown-kind": ('kind = "gpu"', 'kind = "fpga"', "generator.kind", 8, ("fpga", "taskset, gpu")),
    "taskset-key-in-gpu": ("n = 5", "n = 5\numax = 1.0", "generator.umax", 10, ("unknown key",)),
    "parallel-backwards": ("parallel = [0.3, 0.95]", "parallel = [0.9, 0.2]", "generator.parallel", 12, ("lo <= hi",)),
    "parallel-above-one": ("parallel = [0.3, 0.95]", "parallel = [0.3, 1.5]", "generator.parallel", 12, ("at most 1",)),
    "contention-not-range": ("contention = [0.0, 0.3]", "contention = 0.3", "generator.contention", 13, ("[lo, hi]",)),
    "nonpreemptive-not-probability": (
        "[sweep]",
        "nonpreemptive = 1.5\n\n[sweep]",
        "generator.nonpreemptive",
        15,
        ("probability",),
    ),
}


@pytest.mark.parametrize(
    ("text", "field", "line", "words"),
    [
        *(
            pytest.param(tiny_gpu(m=m, names=names), "analyses.names", 22, words, id=case)
            for case, (m, names, words) in BAD_ANALYSES.items()
        ),
        *(
            pytest.param(tiny_gpu().replace(old, new), field, line, words, id=case)
            for case, (old, new, field, line, words) in BAD_GENERATOR.items()
        ),
    ],
)
def test_gpu_validation_errors_name_the_key(
    tmp_path: Path, text: str, field: str, line: int, words: tuple[str, ...]
) -> None:
    path = write(tmp_path, text)
    with pytest.raises(InputError) as info:
        load_experiment(path)
    assert info.value.field == field
    assert info.value.line == line
    message = str(info.value)
    assert field in message and str(path) in message
    for word in words:
        assert word in message


def test_generator_errors_about_clusters_blame_m() -> None:
    # The GPU generator names its M "clusters"; in a file that is platform.m, or the sweep's m points.
    fixed = plan(parse_experiment(tiny_gpu(sets=8, per_unit=8))).configurations[0]
    assert fixed.blame_key("clusters") == "platform.m"
    text = tiny_gpu(m="[2, 4]", sets=8, per_unit=8, names='["gpu:ffd"]')
    listed = plan(parse_experiment(text)).configurations[0]
    assert listed.blame_key("clusters") == "platform.m"
    swept = tiny_gpu(sets=8, per_unit=8, names='["gpu:ffd"]').replace("[platform]\nm = 4\n", "")
    swept = swept.replace("[sweep]", '[sweep]\nby = "m"\nby_points = [2, 4]')
    assert plan(parse_experiment(swept)).configurations[0].blame_key("clusters") == "sweep.by_points"
    assert fixed.blame_key("parallel") == "generator.parallel"


def test_gpu_analysis_in_a_task_set_experiment_is_refused() -> None:
    data = {
        "platform": {"m": 4},
        "generator": {"n": 5},
        "sweep": {"variable": "U/m", "points": [0.5], "sets_per_point": 4},
        "analyses": {"names": ["gfb", "gpu:ffd"]},
    }
    with pytest.raises(InputError, match='kind = "gpu"') as info:
        parse_experiment(data)
    assert info.value.field == "analyses.names"


def test_gpu_refusal() -> None:
    assert gpu_refusal(registry.get("gpu:ffd"), 4) is None
    assert gpu_refusal(registry.get("gpu:ffd"), 2) is None
    assert "1..64" in (gpu_refusal(registry.get("gpu:ffd"), 65) or "")
    assert "task sets" in (gpu_refusal(registry.get("gfb"), 4) or "")
    assert registry.get("gpu:ffd").status(GPUWorkloadBatch(()), GPU(4)).shape == (0,)
    assert platform("gpu", 4) == GPU(4) and platform("taskset", 4) == Identical(4)


# ---------------------------------------------------------------------------------------------
# The example experiment
# ---------------------------------------------------------------------------------------------
def test_example_gpu_experiment(tmp_path: Path) -> None:
    exp = load_experiment(REPO / "examples" / "gpu_experiment.toml")
    assert exp.generator_kind == "gpu" and exp.processors == (4,)
    assert exp.sweep.variable == "U/m" and exp.analyses == tuple(f"gpu:{h}" for h in HEURISTICS)
    assert exp.sets_per_point * len(exp.sweep.points) <= 5000  # "well under a minute on 2 cores"
    quick = exp.with_sizes(4)
    results = run(quick, tmp_path / "out", workers=0, progress="none", plot=False)
    assert results.sets == 4 * len(exp.sweep.points)
    for rows in results.rows_by_configuration().values():
        accepted = {row.analysis: row.accepted for row in rows}
        assert max(accepted.values()) == accepted["gpu:exhaustive"]
