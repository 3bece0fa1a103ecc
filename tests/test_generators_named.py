"""The named per-task utilization distributions, Baker-style generation and named periods (issue #46, item 2).

Sources and values: ``generators/named.py`` and ``papers/named-generators.md``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from rtsched.cli import main
from rtsched.errors import InputError
from rtsched.generators import NAMED_UTILIZATIONS, generate_batch, parse_named_utilizations, parse_periods
from rtsched.generators.named import (
    BimodalUtilizations,
    ExponentialUtilizations,
    UniformUtilizations,
    _block,
    baker_counts,
)
from rtsched.generators.periods import ScaledUniformPeriods, describe_periods
from rtsched.sweep import parse_experiment, run
from rtsched.testing.experiments import experiment_toml

P_MIN = 1e-3
SAMPLE = 200_000

#: (low, high, mean) of every named distribution: SchedCAT's NAMED_UTILIZATIONS, the exponential
#: means those of the distribution truncated to [0, 1] by redrawing (computed by hand:
#: mean - e^(-1/mean) / (1 - e^(-1/mean))).
EXPECTED = {
    "uni-light": (0.001, 0.1, 0.0505),
    "uni-medium": (0.1, 0.4, 0.25),
    "uni-heavy": (0.5, 0.9, 0.7),
    "bimod-light": (0.001, 0.9, (8 * 0.2505 + 1 * 0.7) / 9),
    "bimod-medium": (0.001, 0.9, (6 * 0.2505 + 3 * 0.7) / 9),
    "bimod-heavy": (0.001, 0.9, (4 * 0.2505 + 5 * 0.7) / 9),
    "exp-light": (0.0, 1.0, 0.1 - math.exp(-10) / (1 - math.exp(-10))),
    "exp-medium": (0.0, 1.0, 0.25 - math.exp(-4) / (1 - math.exp(-4))),
    "exp-heavy": (0.0, 1.0, 0.5 - math.exp(-2) / (1 - math.exp(-2))),
}


def chi_square_p(sample: np.ndarray, dist, bins: int = 20) -> float:
    """p-value of a chi-square fit of ``sample`` to ``dist.cdf`` over equal-width bins of its support."""
    low, high = dist.support()
    edges = np.linspace(low, high, bins + 1)
    counts, _ = np.histogram(sample, edges)
    probs = np.diff([dist.cdf(x) for x in edges])
    return stats.chisquare(counts, probs / probs.sum() * counts.sum()).pvalue


@pytest.mark.parametrize("name", list(NAMED_UTILIZATIONS))
def test_named_distribution_range_mean_and_shape(name: str) -> None:
    dist = parse_named_utilizations(name)
    low, high, mean = EXPECTED[name]
    sample = dist.draw(np.random.default_rng(46), (SAMPLE,))
    assert low <= sample.min() and sample.max() <= high
    assert math.isclose(dist.mean(), mean, rel_tol=1e-3)
    standard_error = sample.std() / math.sqrt(SAMPLE)
    assert abs(sample.mean() - mean) < 5 * standard_error
    assert chi_square_p(sample, dist) > P_MIN


def test_chi_square_rejects_a_wrong_distribution() -> None:
    """The fit above can fail: bimod-light's draws are not bimod-heavy, nor exp-light's exp-medium."""
    rng = np.random.default_rng(1)
    light = NAMED_UTILIZATIONS["bimod-light"].draw(rng, (SAMPLE,))
    assert chi_square_p(light, NAMED_UTILIZATIONS["bimod-heavy"]) < 1e-10
    exp_light = NAMED_UTILIZATIONS["exp-light"].draw(rng, (SAMPLE,))
    assert chi_square_p(exp_light, NAMED_UTILIZATIONS["exp-medium"]) < 1e-10


def test_bimodal_mode_shares() -> None:
    """SchedCAT's weights 8:1, 6:3, 4:5 of the light mode [0.001, 0.5] and the heavy mode [0.5, 0.9]."""
    for name, p_light in (("bimod-light", 8 / 9), ("bimod-medium", 6 / 9), ("bimod-heavy", 4 / 9)):
        dist = NAMED_UTILIZATIONS[name]
        assert isinstance(dist, BimodalUtilizations)
        assert dist.light == UniformUtilizations(0.001, 0.5) and dist.heavy == UniformUtilizations(0.5, 0.9)
        share = np.mean(dist.draw(np.random.default_rng(2), (SAMPLE,)) < 0.5)
        assert abs(share - p_light) < 5 * math.sqrt(p_light * (1 - p_light) / SAMPLE)


def test_schedcat_spelling_and_bad_names() -> None:
    assert parse_named_utilizations("bimo-medium") is NAMED_UTILIZATIONS["bimod-medium"]
    assert isinstance(parse_named_utilizations("exp-heavy"), ExponentialUtilizations)
    with pytest.raises(InputError, match="unknown utilization distribution 'uni-hevy'"):
        parse_named_utilizations("uni-hevy")


def test_named_periods() -> None:
    """SchedCAT's NAMED_PERIODS in ms (3-33, 10-100, 50-250) times ticks per ms."""
    assert parse_periods("uni-short") == ScaledUniformPeriods(3, 33, 1000)
    assert parse_periods("uni-moderate:10") == ScaledUniformPeriods(10, 100, 10)
    assert parse_periods("uni-long:1") == ScaledUniformPeriods(50, 250, 1)
    sample = parse_periods("uni-moderate").draw(np.random.default_rng(3), SAMPLE)
    assert set(np.unique(sample)) == set(range(10_000, 100_001, 1000))
    counts = np.bincount(sample // 1000 - 10)
    assert stats.chisquare(counts).pvalue > P_MIN
    assert describe_periods("uni-long:1") == "uni-long:1 (uniform integer 50-250 ms x 1 ticks/ms)"
    assert describe_periods("log-uniform:10:100") == "log-uniform:10:100"
    for bad in ("uni-moderate:0", "uni-moderate:x", "uni-long:1:2", "uni-long:10000000"):
        with pytest.raises(InputError, match="bad period spec"):
            parse_periods(bad)


# ---- Baker-style generation ---------------------------------------------------------------------


def test_cap_rule_by_hand() -> None:
    """Realised utilizations 0.5, 0.4, 0.3, 0.2 and U = 1: discard keeps 2 (0.9), keep keeps 3 (1.2)."""
    u = np.array([[0.5, 0.4, 0.3, 0.2], [0.2, 0.2, 0.2, 0.2], [1.1, 0.1, 0.1, 0.1]])
    assert baker_counts(u, 1.0, "discard").tolist() == [2, 4, 0]
    assert baker_counts(u, 1.0, "keep").tolist() == [3, 4, 1]


def test_baker_small_seeded_case_by_hand() -> None:
    """One set, uni-heavy, U = 2, every period 10, implicit deadlines: replay the stream by hand.

    The generator draws a block of B utilizations, then B periods (choice: one uniform each),
    rounds C = round(10 u), and keeps tasks while Σ C/10 <= 2.
    """
    dist = NAMED_UTILIZATIONS["uni-heavy"]
    block = _block(dist, 2.0, 50)
    assert block == math.ceil(1.25 * 2.0 / 0.7) + 4 == 8
    replay = np.random.default_rng(7)
    u = replay.uniform(0.5, 0.9, (1, block))[0]
    replay.random((1, block))  # the periods: choice:10 always gives 10
    C = np.rint(u * 10).astype(int)
    # By hand from the drawn values: the running totals of C/10 and the first one above 2.
    kept = []
    total = 0
    for c in C:
        if total + c > 20:
            break
        kept.append(c)
        total += c
    out = generate_batch(
        np.random.default_rng(7), n=50, utilization=2.0, size=1, utilizations="uni-heavy",
        periods="choice:10", deadlines="implicit", method="baker",
    )  # fmt: skip
    assert out.batch.C.tolist() == kept
    assert out.batch.T.tolist() == [10] * len(kept) and out.batch.D.tolist() == [10] * len(kept)
    assert math.isclose(out.realized_utilization[0], total / 10)
    assert total <= 20 < total + C[len(kept)]
    keep = generate_batch(
        np.random.default_rng(7), n=50, utilization=2.0, size=1, utilizations="uni-heavy",
        periods="choice:10", deadlines="implicit", method="baker", cap="keep",
    )  # fmt: skip
    assert keep.batch.C.tolist() == [*kept, C[len(kept)]]


@pytest.mark.parametrize("name", ["uni-light", "bimod-medium", "exp-heavy", "uni-heavy"])
@pytest.mark.parametrize("cap", ["discard", "keep"])
def test_baker_invariants(name: str, cap: str) -> None:
    """discard: Σ C/T <= U; keep: Σ C/T > U and without the last task <= U (unless n tasks were drawn)."""
    bound, n_max = 3.0, 40
    out = generate_batch(
        np.random.default_rng(11), n=n_max, utilization=bound, size=300, utilizations=name,
        periods="uniform:1000:2000", deadlines="uniform", method="baker", cap=cap,
    )  # fmt: skip
    batch = out.batch
    sizes = batch.sizes
    assert sizes.min() >= 1 and sizes.max() <= n_max
    assert batch.deadlines == "constrained"
    assert np.all((batch.C >= 1) & (batch.C <= batch.D) & (batch.D <= batch.T))
    for i in range(batch.n_sets):
        lo, hi = batch.offsets[i], batch.offsets[i + 1]
        u = batch.C[lo:hi] / batch.T[lo:hi]
        assert math.isclose(u.sum(), out.realized_utilization[i])
        if cap == "discard":
            assert u.sum() <= bound
        elif hi - lo < n_max:
            assert u.sum() > bound >= u[:-1].sum()
    # a random number of tasks per set
    assert len(np.unique(sizes)) > 1 or name == "uni-light"


def test_baker_reproducible_and_order() -> None:
    kwargs = {"n": 30, "utilization": 2.5, "size": 50, "utilizations": "bimod-light", "method": "baker"}
    a = generate_batch(np.random.default_rng(5), **kwargs).batch
    b = generate_batch(np.random.default_rng(5), **kwargs).batch
    assert np.array_equal(a.C, b.C) and np.array_equal(a.D, b.D) and np.array_equal(a.offsets, b.offsets)
    dm = generate_batch(np.random.default_rng(5), **kwargs, order="deadline-monotonic").batch
    assert np.array_equal(a.offsets, dm.offsets)
    for i in range(a.n_sets):
        lo, hi = a.offsets[i], a.offsets[i + 1]
        assert sorted(zip(a.D[lo:hi], a.T[lo:hi], a.C[lo:hi], strict=True)) == list(
            zip(dm.D[lo:hi], dm.T[lo:hi], dm.C[lo:hi], strict=True)
        )
        assert np.all(np.diff(dm.D[lo:hi]) >= 0)


@pytest.mark.parametrize(
    ("kwargs", "field", "message"),
    [
        pytest.param({"utilizations": "uunifast", "method": "baker"}, "--utilizations", "named distribution", id="method"),
        pytest.param({"utilizations": "uni-heavy"}, "--utilizations", "needs method = baker", id="named-fixed"),
        pytest.param({"method": "bakr"}, "--method", "unknown generation method", id="bad-method"),
        pytest.param({"cap": "keep"}, "--cap", "method = baker only", id="cap-fixed"),
        pytest.param({"utilizations": "uni-heavy", "method": "baker", "cap": "drop"}, "--cap", "unknown cap", id="cap"),
        pytest.param(
            {"utilizations": "uni-heavy", "method": "baker", "utilization": 0.4}, "--utilization", "no task fits",
            id="bound-below-support",
        ),
        pytest.param({"utilizations": "uni-heavy", "method": "baker", "umax": 0.5}, "--umax", "baker", id="umax"),
    ],
)  # fmt: skip
def test_bad_arguments(kwargs: dict[str, object], field: str, message: str) -> None:
    options: dict[str, object] = {"n": 10, "utilization": 2.0, "size": 3, **kwargs}
    with pytest.raises(InputError, match=message) as info:
        generate_batch(np.random.default_rng(0), **options)  # type: ignore[arg-type]
    assert info.value.field == field


def _cli(capsys, *args: object) -> tuple[int, str, str]:
    status = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return status, out, err


def test_cli_baker_and_errors(capsys, tmp_path) -> None:
    out, again = tmp_path / "sets.txt", tmp_path / "again.txt"
    args = ["generate", "--n", "30", "--utilization", "2", "--method", "baker", "--utilizations", "exp-medium"]
    args += ["--periods", "uni-moderate", "--count", "4", "--seed", "3"]
    status, _, err = _cli(capsys, *args, "-o", out)
    assert status == 0 and "at most 30 tasks" in err and "bound U = 2" in err
    assert _cli(capsys, *args, "-o", again)[0] == 0
    assert out.read_bytes() == again.read_bytes()
    for extra, text in (
        (["--utilizations", "uni-heavy"], "add --method baker"),
        (["--method", "bak"], "unknown generation method"),
        (["--cap", "keep"], "--method baker only"),
        (["--method", "baker", "--utilizations", "uunifast"], "unknown utilization distribution"),
        (["--method", "baker", "--utilizations", "uni-heavy", "--periods", "uni-mod"], "bad period spec"),
        (["--kind", "mc", "--method", "baker"], "--kind taskset only"),
    ):
        status, _, err = _cli(capsys, "generate", "--n", "5", "--utilization", "2", *extra)
        assert status == 2, (extra, err)
        assert text in err
        assert len(err.strip().splitlines()) == 1


def _baker_experiment(utilizations: str = "bimod-heavy", periods: str = "uni-moderate") -> str:
    generator = {
        "n": "40",
        "utilizations": f'"{utilizations}"',
        "method": '"baker"',
        "cap": '"discard"',
        "periods": f'"{periods}"',
        "deadlines": '"implicit"',
    }
    return experiment_toml(
        name="baker", seed=46, m="[2]", generator=generator, points="[0.4, 0.8]",
        sets_per_point=40, sets_per_unit=10, names='["gfb"]',
    )  # fmt: skip


def test_sweep_same_results_whatever_the_workers(tmp_path) -> None:
    """Baker-style sets in a sweep: the same results inline and with two worker processes."""
    experiment = parse_experiment(_baker_experiment())
    inline = run(experiment, tmp_path / "inline", workers=0, plot=False, progress="off")
    pooled = run(experiment, tmp_path / "pool", workers=2, plot=False, progress="off")
    assert (tmp_path / "inline" / "results.csv").read_text() == (tmp_path / "pool" / "results.csv").read_text()
    assert inline is not None and pooled is not None


def test_sweep_bad_name_one_line(capsys, tmp_path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(_baker_experiment(utilizations="bimod-hevy"))
    status, _, err = _cli(capsys, "sweep", path, "--out", tmp_path / "out", "-j", "0", "-q", "--no-plot")
    assert status == 2
    line = next(i for i, text in enumerate(path.read_text().splitlines(), 1) if "bimod-hevy" in text)
    assert f"bad.toml, line {line}, field generator.utilizations" in err and "bimod-hevy" in err
    assert len(err.strip().splitlines()) == 1


def test_sweep_the_cap_rule_and_fingerprint_without_new_keys() -> None:
    """``by = "generator.cap"`` sweeps discard against keep; an experiment without the keys keeps its form."""
    from rtsched.sweep.units import plan

    text = "\n".join(line for line in _baker_experiment().splitlines() if not line.startswith("cap ="))
    text = text.replace("[sweep]\n", '[sweep]\nby = "generator.cap"\nby_points = ["discard", "keep"]\n', 1)
    units = plan(parse_experiment(text)).units
    assert {dict(u.generator)["cap"] for u in units} == {"discard", "keep"}
    plain = parse_experiment(
        experiment_toml(
            name="plain",
            seed=1,
            m="[2]",
            generator={"n": "5"},
            points="[0.5]",
            sets_per_point=10,
            sets_per_unit=10,
            names='["gfb"]',
        )  # fmt: skip
    )
    assert "method" not in plain.canonical()["generator"] and "cap" not in plain.canonical()["generator"]
