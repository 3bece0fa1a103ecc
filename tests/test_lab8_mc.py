"""Lab 8's claims about its hard-coded mixed-criticality sets, re-checked outside the lab.

tests/test_labs.py runs the lab itself (its asserts) and builds its notebooks; this file reads the
sets V, A, S, E, X and F from the lab's source (so it checks the lab's actual sets), checks the key
numbers the lab states by hand (response times, AMC-max's switch instants, EDF-VD's x) against the
library, the verdicts against the kernels (rtsched.check_many), and each "no failure" claim with
more simulation scenarios than the lab runs (sporadic arrivals, random demands), each "miss" claim
with the exact run the lab describes.
"""

import ast
import itertools
from fractions import Fraction
from pathlib import Path

import pytest

from rtsched import check_many
from rtsched.analyses.mixed_criticality import amc2011
from rtsched.mc import MCTask, MCTaskSet
from rtsched.mc.sim import simulate_mc, switch_search

LAB = Path(__file__).resolve().parents[1] / "examples" / "labs" / "lab8_mixed_criticality.py"
NAMES = ("V", "A", "S", "E", "X", "F")


def _lab_sets() -> dict[str, MCTaskSet]:
    """The sets as the lab's source assigns them (evaluated, nothing else of the lab run)."""
    sets = {}
    for node in ast.walk(ast.parse(LAB.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name) and node.targets[0].id in NAMES:
            value = eval(  # the lab's own literal constructors
                compile(ast.Expression(node.value), str(LAB), "eval"), {"MCTask": MCTask, "MCTaskSet": MCTaskSet}
            )
            sets[node.targets[0].id] = value
    assert sorted(sets) == sorted(NAMES)
    return sets


SETS = _lab_sets()
FP_TESTS = [f"mc-{t}-{p}" for p in ("dm", "opa") for t in amc2011.TESTS]
SCENARIOS = [
    {"arrivals": "periodic", "scenario": "hi"},
    *({"arrivals": "sporadic", "scenario": "random", "seed": s} for s in range(12)),
    *({"arrivals": "periodic", "scenario": "random", "random_lo": True, "seed": s} for s in range(12)),
    *({"arrivals": "sporadic", "scenario": "hi", "seed": s} for s in range(6)),
]


def _passes_given(ts: MCTaskSet, order: list[int], test: str) -> bool:
    return all(amc2011.task_test(ts, i, order[:p], test).ok for p, i in enumerate(order))


def _kernel_verdicts(ts: MCTaskSet) -> dict[str, bool]:
    report = check_many([ts], 1, tests=FP_TESTS)[0]
    return {name: report[name].verdict for name in FP_TESTS}


def test_vestal_set_only_audsleys_order_passes_smc():
    V = SETS["V"]
    passing = [list(o) for o in itertools.permutations(range(V.n)) if _passes_given(V, list(o), "smc")]
    assert passing == [[0, 2, 1]]  # neither DM (0, 1, 2) nor criticality-monotonic (2, 0, 1)
    verdicts = _kernel_verdicts(V)
    assert verdicts["mc-smc-dm"] is False and verdicts["mc-smc-opa"] is True
    assert verdicts["mc-amc-rtb-dm"] is True  # exercise 4
    rtb = amc2011.task_test(V, 2, [0, 1], "amc-rtb")
    assert (rtb.R_lo, rtb.R_hi) == (4, 6)
    assert switch_search(V, policy="amc", stop_at_failure=False).response_hi[2] == 6  # the bound attained


def test_vestal_set_with_c_hi_5_needs_audsleys_order_under_amc():
    V5 = MCTaskSet([SETS["V"][0], SETS["V"][1], MCTask.hi(2, 5, T=6, D=6)])
    assert [list(o) for o in itertools.permutations(range(3)) if _passes_given(V5, list(o), "amc-rtb")] == [[0, 2, 1]]
    assert not any(_passes_given(V5, list(o), "smc") for o in itertools.permutations(range(3)))
    miss = switch_search(V5, policy="amc").failure
    assert miss is not None and (miss.miss.task, miss.miss.time, miss.switch_time) == (2, 6, 4)


def test_set_a_amc_rtb_accepts_no_smc_order_does():
    A = SETS["A"]
    assert not any(_passes_given(A, list(o), "smc") for o in itertools.permutations(range(A.n)))
    verdicts = _kernel_verdicts(A)
    assert [verdicts[f"mc-{t}-dm"] for t in amc2011.TESTS] == [False, False, True, True]
    assert verdicts["mc-smc-opa"] is False
    r1, r2 = amc2011.task_test(A, 1, [0], "amc-rtb"), amc2011.task_test(A, 2, [0, 1], "amc-rtb")
    assert (r1.R_lo, r1.R_hi, r2.R_lo) == (3, 6, 6)


def test_set_a_schedules():
    A = SETS["A"]
    smc = simulate_mc(A, policy="smc", scenario="explicit", overruns=[(1, 0)], escalate=True, horizon=8, record=True)
    amc = simulate_mc(A, policy="amc", scenario="explicit", overruns=[(1, 0)], escalate=True, horizon=8, record=True)
    assert smc.switch_time == amc.switch_time == 3
    assert (smc.miss.task, smc.miss.time, smc.miss.remaining, smc.miss.mode) == (1, 6, 1, "HI")
    assert amc.miss is None and amc.response_hi[1] == 6
    assert [(d.task, d.job, d.time) for d in amc.dropped] == [(2, 0, 3)]
    assert amc.segments.tolist() == [[0, 0, 0, 0, 1], [0, 1, 0, 1, 6]]


@pytest.mark.parametrize("name", ["A", "S", "X", "V"])
@pytest.mark.parametrize("scenario", SCENARIOS, ids=str)
def test_amc_accepted_sets_never_fail_under_amc(name, scenario):
    """Observed only: the lab's AMC-accepted sets, DM priorities, more runs than the lab makes."""
    assert simulate_mc(SETS[name], policy="amc", **scenario).miss is None


def test_set_s_amc_max_against_amc_rtb():
    S = SETS["S"]
    rtb, mx = amc2011.task_test(S, 2, [0, 1], "amc-rtb"), amc2011.task_test(S, 2, [0, 1], "amc-max")
    assert (rtb.R_lo, rtb.R_hi, rtb.ok) == (12, 21, False)
    assert (mx.R_hi, mx.s, mx.ok) == (20, 5, True)
    assert amc2011.switch_instants(S, [0, 1], 12) == [0, 5, 10]
    verdicts = _kernel_verdicts(S)
    assert (verdicts["mc-amc-rtb-dm"], verdicts["mc-amc-max-dm"], verdicts["mc-amc-rtb-opa"]) == (False, True, False)
    assert amc2011.assign_opa(S, "amc-rtb") is None
    assert switch_search(S, policy="amc", stop_at_failure=False).response_hi[2] == 16


def test_set_x_exercise_1():
    X = SETS["X"]
    rtb, smc = amc2011.task_test(X, 2, [0, 1], "amc-rtb"), amc2011.task_test(X, 2, [0, 1], "smc")
    assert (rtb.R_lo, rtb.R_hi, smc.R_hi, smc.ok) == (7, 15, 16, False)
    verdicts = _kernel_verdicts(X)
    assert (verdicts["mc-smc-opa"], verdicts["mc-amc-rtb-dm"]) == (False, True)
    failure = switch_search(X, policy="smc").failure
    assert failure is not None and failure.miss.task == 2


@pytest.mark.parametrize(
    ("name", "x", "U"),
    [
        pytest.param("E", Fraction(1, 3), (Fraction(1, 5), Fraction(4, 15), Fraction(14, 15)), id="set-E"),
        pytest.param("F", Fraction(1, 2), (Fraction(1, 3), Fraction(1, 3), Fraction(5, 6)), id="set-F"),
    ],
)
def test_edf_vd_closed_form(name, x, U):
    """Baruah et al. (ECRTS 2012): x = U_HL/(1 − U_LL), x·U_LL + U_HH ≤ 1; both lab sets are tight."""
    ts = SETS[name]
    assert (ts.U_LL, ts.U_HL, ts.U_HH) == U
    assert ts.U_LL + ts.U_HH > 1  # plain EDF is not proven by (V1)
    assert ts.U_HL / (1 - ts.U_LL) == x and x * ts.U_LL + ts.U_HH == 1
    explained = check_many([ts], 1, tests=["mc-edf-vd"])[0]["mc-edf-vd"]
    assert explained.verdict is True and (explained.evidence["x"], explained.evidence["hi_lhs"]) == (x, 1)
    for scenario in SCENARIOS:
        assert simulate_mc(ts, scheduler="edf-vd", x=x, **scenario).miss is None
    assert switch_search(ts, scheduler="edf-vd", x=x).failure is None


def test_set_e_plain_edf_misses_edf_vd_drops():
    E = SETS["E"]
    edf = simulate_mc(E, scheduler="edf", scenario="explicit", overruns=[(1, 0)], escalate=True, horizon=15)
    vd = simulate_mc(
        E, scheduler="edf-vd", x="1/3", scenario="explicit", overruns=[(1, 0)], escalate=True, horizon=15, record=True
    )
    assert (edf.switch_time, edf.miss.task, edf.miss.time, edf.miss.remaining) == (6, 1, 15, 1)
    assert vd.miss is None and vd.switch_time == 4 and vd.response_hi[1] == 14
    assert [(d.task, d.time, d.remaining) for d in vd.dropped] == [(0, 4, 2)]
