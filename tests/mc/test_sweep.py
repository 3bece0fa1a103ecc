"""Mixed-criticality experiments in the sweep engine (``[generator] kind = "mc"``; papers/mc-model.md, "Sweeps").

The engine is what is tested here (parsing, defaults, the canonical form, drawing, captions, a run);
the MC analyses are tested in tests/analyses/mixed_criticality/. The runs use a stub analysis of MC
task sets registered for the test (the necessary condition U_LO <= 1 and U_HH <= 1 on one core), so
that these tests do not depend on which MC analyses exist.
"""

from __future__ import annotations

import numpy as np
import pytest

from rtsched import registry
from rtsched.errors import InputError
from rtsched.generators.mc import mc_tasksets
from rtsched.mc import MCBatch
from rtsched.registry import Analysis
from rtsched.result import Explanation
from rtsched.sweep import parse_experiment, run
from rtsched.sweep.kinds import MC_GENERATOR_DEFAULTS, caption, draw
from rtsched.sweep.units import plan, run_unit
from rtsched.testing.experiments import experiment_toml
from rtsched.workloads import MC_TASKSETS

STUB = "mc-stub-utilization"


def _fits(ts) -> bool:
    return ts.U_LL + ts.U_HL <= 1 and ts.U_HH <= 1


def _reference(ts, m):
    return _fits(ts)


def _explain(ts, m):
    return Explanation(verdict=_fits(ts), summary="U_LO <= 1 and U_HH <= 1")


def _codes(batch, m):
    return np.array([1 if _fits(ts) else 0 for ts in batch.tasksets()], dtype=np.int8)


@pytest.fixture
def stub(monkeypatch):
    """A throw-away analysis of MC task sets, registered in a copy of the registry."""
    monkeypatch.setattr(registry, "_entries", dict(registry._discover()))
    monkeypatch.setattr(registry, "_aliases", dict(registry._aliases))
    registry.register(
        Analysis(
            name=STUB, title="stub", kind="necessary", policy="mc-stub", note="test stub", citation="none",
            reference=_reference, explain=_explain, codes=_codes, platform="uniprocessor", featured=False,
            workload=MC_TASKSETS, deadlines=("implicit", "constrained"),
        )
    )  # fmt: skip
    return STUB


def tiny_mc(
    generator: dict[str, str] | None = None,
    *,
    points: str = "[0.5, 0.9, 1.3]",
    names: str = f'["{STUB}"]',
    variable: str = "utilization",
) -> str:
    entries = {"kind": '"mc"', "n": "5", "cp": "0.5", "cf": "2.0"} | (generator or {})
    entries = {k: v for k, v in entries.items() if v is not None}
    return experiment_toml(
        name="tiny-mc", seed=44, m="1", generator=entries, points=points,
        sets_per_point=12, sets_per_unit=4, names=names, variable=variable,
    )  # fmt: skip


def test_defaults_written_into_the_canonical_form(stub):
    exp = parse_experiment(tiny_mc())
    gen = exp.canonical()["generator"]
    assert gen["kind"] == "mc" and gen["n"] == 5
    assert {k: gen[k] for k in MC_GENERATOR_DEFAULTS} == MC_GENERATOR_DEFAULTS | {"cp": 0.5, "cf": 2.0}
    assert parse_experiment(exp.to_toml()).fingerprint() == exp.fingerprint()
    other = parse_experiment(tiny_mc({"cf": "1.5"}))
    assert other.fingerprint() != exp.fingerprint()
    text = caption(exp.canonical())
    assert "CP = 0.5" in text and "CF = 2.0" in text and "U = U_LL + U_HL" in text and "m = 1" in text


def test_default_names_are_every_mc_analysis(stub):
    exp = parse_experiment(tiny_mc().replace(f'names = ["{STUB}"]\n', ""))
    assert exp.analyses_selection == "all"
    assert STUB in exp.analyses
    assert all(registry.get(name).workload is MC_TASKSETS for name in exp.analyses)


def test_draw_is_the_generator():
    params = dict(MC_GENERATOR_DEFAULTS) | {"cp": 0.5, "cf": 2.0}
    batch, total = draw("mc", np.random.default_rng(3), n=5, utilization=0.7, size=4, m=1, params=params)
    assert isinstance(batch, MCBatch) and batch.n_sets == 4
    expected = mc_tasksets(np.random.default_rng(3), n=5, utilization=0.7, size=4, **params)
    assert batch.tasksets() == expected
    assert total == pytest.approx(sum(float(ts.utilization_lo) for ts in expected))
    ranged, _ = draw("mc", np.random.default_rng(3), n=(2, 4), utilization=0.7, size=6, m=1, params=params)
    assert ranged.n_sets == 6 and {ts.n for ts in ranged.tasksets()} <= {2, 3, 4}


def test_cp_and_cf_can_be_swept(stub):
    exp = parse_experiment(
        tiny_mc({"cp": None}, variable="generator.cp", points="[0.0, 1.0]").replace("n = 5", "n = 5\nutilization = 0.6")
    )
    configs = plan(exp).configurations
    assert [dict(c.generator)["cp"] for c in configs] == [0.0, 1.0]
    cf = parse_experiment(
        tiny_mc({"cf": None}, variable="generator.cf", points="[1.0, 3.0]").replace("n = 5", "n = 5\nutilization = 0.6")
    )
    assert [dict(c.generator)["cf"] for c in plan(cf).configurations] == [1.0, 3.0]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"cf": "0.5"}, "criticality factor cf"),
        ({"cp": "1.5"}, "cp"),
        ({"deadlines": '"arbitrary"'}, "unknown deadline model 'arbitrary' for mixed-criticality"),
        ({"utilizations": '"beta"'}, "unknown utilization method"),
        ({"priorities": '"rm"'}, "unknown priority order"),
        ({"periods": '"log-uniform:100:10"'}, "LO = 100 exceeds HI = 10"),
        ({"ticks": "0"}, "ticks"),
        ({"shape": '"gnp"'}, "shape"),
    ],
)
def test_bad_keys_are_refused(stub, change, message):
    with pytest.raises(InputError, match=message):
        parse_experiment(tiny_mc(change))


def test_a_task_set_analysis_is_refused():
    with pytest.raises(InputError, match=r"analyses task sets, but this experiment draws mixed-criticality"):
        parse_experiment(tiny_mc(names='["gfb"]'))


def test_run_and_units(stub, tmp_path):
    exp = parse_experiment(tiny_mc())
    the_plan = plan(exp)
    unit = the_plan.units[0]
    result = run_unit(unit)
    assert result == {**run_unit(unit), "seconds": result["seconds"]}  # same seed, same draws and verdicts
    results = run(exp, tmp_path / "out", workers=0, progress="none", plot=False)
    curve = dict(results.ratio(STUB))
    assert set(curve) == {0.5, 0.9, 1.3}
    # At U = 1.3 every set has U_LO >= 1.3 - Σ 1/(2T) >= 1.05 (n = 5, T >= 10): the stub rejects all.
    assert curve[1.3] == 0
    assert 0 < curve[0.5] <= 1
