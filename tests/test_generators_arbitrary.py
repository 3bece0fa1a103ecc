"""The ``scaled:LO:HI`` deadline spec (generators/deadlines.py; issue #47): deadlines beyond the periods.

D is uniform on the integers of [max(C, ceil(LO·T)), max(C, floor(HI·T))]; with HI > 1 the batch's
deadline model is ``arbitrary``, the sweeps generate such sets, the analyses that take D > T run
on them and the others are refused with a clear reason.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from rtsched import registry
from rtsched.errors import InputError
from rtsched.generators import generate_batch, parse_deadlines
from rtsched.model import MAX_TIME, TaskSet
from rtsched.sweep import parse_experiment, run
from rtsched.sweep.units import plan
from rtsched.testing.experiments import experiment_toml


def rng(seed: int = 0) -> np.random.Generator:
    return np.random.default_rng(seed)


@pytest.mark.parametrize(
    ("spec", "C", "T", "support"),
    [
        pytest.param("scaled:0.5:2", 2, 10, range(5, 21), id="half-to-twice-T"),
        pytest.param("scaled:1:1.5", 3, 4, range(4, 7), id="T-to-1.5T: 4, 5, 6"),
        pytest.param("scaled:0:0.5", 4, 10, range(4, 6), id="lower-end-raised-to-C"),
        pytest.param("scaled:0.3:0.3", 1, 10, range(3, 4), id="exact-0.3T"),
        pytest.param("scaled:1/3:2/3", 1, 9, range(3, 7), id="fractions"),
        pytest.param("scaled:0.1:0.2", 5, 10, range(5, 6), id="both-ends-below-C"),
    ],
)
def test_scaled_draws_every_integer_of_its_range_uniformly(spec, C, T, support) -> None:
    size = 20_000
    D = parse_deadlines(spec).draw(rng(), np.full(size, C, dtype=np.int64), np.full(size, T, dtype=np.int64))
    counts = Counter(D.tolist())
    assert set(counts) == set(support)
    expected = size / len(support)
    assert all(abs(c - expected) < 6 * expected**0.5 for c in counts.values())  # ~6 sigma


def test_scaled_model_and_cap() -> None:
    assert parse_deadlines("scaled:0.5:2").model == "arbitrary"
    assert parse_deadlines("scaled:0.5:1").model == "constrained"
    big = np.full(100, MAX_TIME, dtype=np.int64)
    D = parse_deadlines("scaled:1:3").draw(rng(), big // 2, big)
    assert D.max() <= MAX_TIME and D.min() >= MAX_TIME


@pytest.mark.parametrize(
    "spec",
    ["scaled:", "scaled:1", "scaled:2:1", "scaled:-1:2", "scaled:0:0", "scaled:a:2", "scaled:1:2:3", "scaled:1:1e-40"],
)
def test_bad_scaled_specs(spec) -> None:
    with pytest.raises(InputError) as err:
        parse_deadlines(spec)
    assert repr(spec) in str(err.value) and "--deadlines" in str(err.value)


def test_generate_batch_beyond_the_periods() -> None:
    g = generate_batch(rng(3), n=5, utilization=2.0, size=500, periods="uniform:10:100", deadlines="scaled:0.5:2")
    b = g.batch
    assert b.deadlines == "arbitrary"
    assert (b.D >= b.C).all() and (2 * b.D >= b.T).all() and (b.D <= 2 * b.T).all()
    assert (b.D > b.T).mean() > 0.5  # factor uniform in [0.5, 2]: about 2/3 beyond T


def test_analyses_that_need_constrained_deadlines_refuse_clearly() -> None:
    ts = TaskSet.from_tasks([(1, 5, 2), (1, 3, 4)], deadlines="arbitrary")
    assert registry.get("uni-rta").verdict(ts, 1) is True
    assert registry.get("p-fp").verdict(ts, 2) is True
    for name in ("bak", "rm-ll"):
        with pytest.raises(InputError, match=rf"{name}: needs .*deadlines"):
            registry.get(name).verdict(ts, 2 if name == "bak" else 1)


def scaled_experiment(names: str, m: str = "[1, 2]") -> str:
    generator = {
        "n": "4",
        "utilizations": '"randfixedsum"',
        "periods": '"uniform:5:40"',
        "deadlines": '"scaled:0.5:2"',
    }
    return experiment_toml(
        name="arbitrary", seed=5, m=m, generator=generator, points="[0.3, 0.6]",
        sets_per_point=20, sets_per_unit=10, names=names,
    )  # fmt: skip


def test_sweep_generates_arbitrary_deadlines_and_runs_the_analyses_that_take_them(tmp_path) -> None:
    experiment = parse_experiment(scaled_experiment('["uni-rta", "p-fp"]', m="[1]"))
    p = plan(experiment)
    assert set(p.analyses) == {"uni-rta", "p-fp"}
    results = run(experiment, tmp_path / "sweep", workers=0, plot=False, progress="off")
    assert results is not None
    with pytest.raises(InputError, match="bak.*arbitrary deadlines"):
        plan(parse_experiment(scaled_experiment('["p-fp", "bak"]')))
