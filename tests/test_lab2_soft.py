"""Lab 2's soft real-time part (worked examples 5-6, exercises 5-6), re-checked outside the lab.

tests/test_labs.py runs the lab itself (its asserts, among them bound ≥ observed on every set it
simulates) and builds its notebooks; this file reads the lab's sets from its source (``busier``,
``full``, ``over``; Dhall's set from examples/tasksets/dhall.txt), checks the numbers its text states
by hand against tardiness-da (``terms``, ``tardiness_bounds``), the observed tardiness it states
against the simulator with the lab's own runs, and the Devi–Anderson bound against more simulations
of the lab's sets than the lab runs (more seeds, fifo ties, other sporadic delays), including the
random sets of worked example 6.
"""

import ast
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

import rtsched
from rtsched.analyses.global_edf.tardiness_da import bounded, tardiness_bounds, terms
from rtsched.generators import generate_batch
from rtsched.io import read_taskset
from rtsched.sim import simulate

ROOT = Path(__file__).resolve().parents[1]
LAB = ROOT / "examples" / "labs" / "lab2_global.py"
SOURCE = LAB.read_text(encoding="utf-8")
DHALL = read_taskset(ROOT / "examples" / "tasksets" / "dhall.txt")
NAMES = ("busier", "full", "over")
RUNS = (("periodic", "wcet"), ("sporadic", "wcet"), ("periodic", "random"), ("sporadic", "random"))


def _lab_sets() -> dict[str, rtsched.TaskSet]:
    """The sets as the lab's source assigns them (their expressions evaluated, nothing else of the lab run)."""
    sets = {}
    for node in ast.walk(ast.parse(SOURCE)):
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name) and node.targets[0].id in NAMES:
            expression = compile(ast.Expression(node.value), str(LAB), "eval")
            sets[node.targets[0].id] = eval(expression, {"rtsched": rtsched, "dhall": DHALL})  # the lab's literals
    assert sorted(sets) == sorted(NAMES)
    return sets


SETS = _lab_sets()


def _observed(ts, m, arrivals, execution, seeds, periods=200, ties="index"):
    """Each task's largest observed tardiness over ``seeds``, as the lab's ``observed_tardiness``."""
    seeds = [0] if (arrivals, execution) == ("periodic", "wcet") else seeds
    worst = [0] * ts.n
    for seed in seeds:
        run = simulate(ts, m, arrivals=arrivals, execution=execution, seed=seed, after_miss="continue",
                       horizon=periods * int(ts.T.max()), record=False, ties=ties)  # fmt: skip
        worst = [max(w, late) for w, late in zip(worst, run.tardiness, strict=True)]
    return worst


def _lab_runs(ts):
    """The lab's table: every kind of run, the lab's 20 seeds (its full size; the small size uses 3 of them)."""
    return {run: _observed(ts, 2, *run, seeds=range(20)) for run in RUNS}


def test_the_sets():
    assert SETS["busier"].rows() == [*DHALL.rows(), (4, 6, 6)]
    assert SETS["full"].utilization == 2 and SETS["over"].utilization == Fraction(13, 6)
    for name in ("busier", "full"):  # hard real-time: global EDF misses; soft: bounded
        assert simulate(SETS[name], 2).miss is not None and bounded(SETS[name], 2)
    assert simulate(DHALL, 2).miss is not None and bounded(DHALL, 2)
    assert not bounded(SETS["over"], 2)
    assert rtsched.check(SETS["over"], 2, tests=["tardiness-da"])["tardiness-da"].verdict is False


def test_worked_example_5_numbers_are_the_analysis():
    t = terms(DHALL, 2)
    b = tardiness_bounds(DHALL, 2)
    assert (t["Lambda"], t["E_L"], t["U_L"], t["e_min"], t["x"]) == (1, 10, 0, 1, Fraction(9, 2))
    text = (
        f"# Λ = ⌈{str(t['U'])}⌉ − 1 = {t['Lambda']}, E_L = {t['E_L']} (the heavy task's cost), "
        f"U_L = {t['U_L']} (the sum of no utilization),\n# e_min = {t['e_min']}, "
        f"x = ({t['E_L']} − {t['e_min']})/(2 − {t['U_L']}) = {str(t['x'])}: the light tasks' bound is "
        f"{str(t['x'])} + 1 = {str(b[0])}, the heavy\n# task's {str(t['x'])} + 10 = {str(b[2])}."
    )
    assert text in SOURCE
    assert b[0] == b[1]


def test_worked_example_5_observed_as_stated():
    """The text's "Observed: the heavy task is 2 ticks late at worst, the light tasks never" (the lab's runs)."""
    seen = _lab_runs(DHALL)
    assert seen[("periodic", "wcet")] == [0, 0, 2]
    assert max(s[2] for s in seen.values()) == 2 and all(s[0] == s[1] == 0 for s in seen.values())
    assert "Observed: the heavy task is 2 ticks late at worst, the light tasks\n# never." in SOURCE


def test_exercise_5_solution_is_the_analysis_and_the_simulator():
    busier = SETS["busier"]
    t = terms(busier, 2)
    b = tardiness_bounds(busier, 2)
    assert busier.utilization == Fraction(17, 9)
    assert (t["Lambda"], t["E_L"], t["U_L"], t["e_min"], t["x"]) == (1, 10, 0, 1, Fraction(9, 2))
    assert b == [Fraction(11, 2), Fraction(11, 2), Fraction(29, 2), Fraction(17, 2)]
    assert "U = 11/9 + 2/3 = 17/9 ≤ 2, so Λ = 1" in SOURCE and "task gets 9/2 + 4 = 17/2" in SOURCE
    seen = _lab_runs(busier)
    assert seen[("periodic", "wcet")] == [0, 0, 5, 0]  # "now 5 ticks late (2 before)"
    assert all(s[0] == s[1] == s[3] == 0 and s[2] <= 5 for s in seen.values())  # "never late"
    assert "in the synchronous periodic run the heavy task is now 5 ticks\n# late (2 before" in SOURCE


def test_exercise_6_solution_is_the_analysis_and_the_simulator():
    full, over = SETS["full"], SETS["over"]
    t = terms(full, 2)
    assert (t["Lambda"], t["E_L"], t["e_min"], t["U_L"], t["x"]) == (1, 4, 2, 0, 1)
    assert tardiness_bounds(full, 2) == [3, 3, 5]
    seen = _lab_runs(full)
    assert max(s[2] for s in seen.values()) == 2 and max(max(s[0], s[1]) for s in seen.values()) == 1
    assert "(τ₂ at most 2 ticks late, τ₀ and τ₁ at most 1)" in SOURCE
    growth = [simulate(over, 2, after_miss="continue", horizon=h, record=False).tardiness[2] for h in (60, 600, 6000)]
    assert growth == [8, 53, 503]
    assert "8, 53 and 503 ticks" in SOURCE
    # the rate the solution gives: (U − m)/m = 1/12 tick of delay per tick
    assert abs(Fraction(growth[2] - growth[1], 5400) - (over.utilization - 2) / 2) < Fraction(1, 100)


@pytest.mark.parametrize("name", ["dhall", *NAMES[:2]])
def test_bound_holds_on_more_runs_of_the_lab_sets(name):
    ts = DHALL if name == "dhall" else SETS[name]
    bounds = tardiness_bounds(ts, 2)
    for arrivals, execution in RUNS[1:]:
        for ties in ("index", "fifo"):
            seen = _observed(ts, 2, arrivals, execution, seeds=range(20, 60), ties=ties)
            assert all(s <= b for s, b in zip(seen, bounds, strict=True)), (name, arrivals, execution, ties)
    for p_delay in (0.1, 0.9):  # rarely and often late releases
        for seed in range(10):
            run = simulate(ts, 2, arrivals="sporadic", p_delay=p_delay, seed=seed, after_miss="continue", record=False)
            assert all(s <= b for s, b in zip(run.tardiness, bounds, strict=True))


def _worked_example_6_sets(size):
    """Worked example 6's random sets, drawn as the lab draws them (seed 47, its points, ``size`` per point)."""
    rng = np.random.default_rng(47)
    out = []
    for share in (0.5, 0.6, 0.7, 0.8, 0.9, 1.0):
        drawn = generate_batch(rng, n=5, utilization=2 * share, size=size, utilizations="uunifast-discard",
                               periods="uniform:5:20", deadlines="implicit").batch  # fmt: skip
        out += [ts for ts in drawn if bounded(ts, 2)]
    return out


@pytest.mark.parametrize("size", [8, pytest.param(40, marks=pytest.mark.slow)], ids=["small", "full"])
def test_bound_holds_on_worked_example_6_sets(size):
    """The lab asserts bound ≥ observed with two seeds per kind of run; here five more, both tie rules."""
    sets = _worked_example_6_sets(size)
    assert len(sets) >= 5 * size  # the lab's points below U/m = 1 keep almost every set
    assert "soft_rng = np.random.default_rng(47)" in SOURCE and "SOFT_SETS = 8 if SMALL else 40" in SOURCE
    for ts in sets:
        bounds = tardiness_bounds(ts, 2)
        for arrivals, execution in RUNS:
            seen = _observed(ts, 2, arrivals, execution, seeds=range(2, 7), periods=100, ties="fifo")
            assert all(s <= b for s, b in zip(seen, bounds, strict=True)), (ts.rows(), arrivals, execution)
