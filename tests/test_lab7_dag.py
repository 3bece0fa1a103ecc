"""Lab 7's claims about its two hard-coded DAG task sets, re-checked outside the lab.

tests/test_labs.py runs the lab itself (its asserts) and builds its notebooks; this file reads the
sets SET_F and SET_G from the lab's source (so it checks the lab's actual sets), checks each claim
the lab makes about them with more simulation scenarios than the lab runs, and re-runs the seeded
search of examples/labs/_lab7_search.py to check that it still derives exactly those sets.
"""

import ast
import importlib.util
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from rtsched import analyses, check_many
from rtsched.dag import DAGTask, DAGTaskSet, simulate_dag

LABS = Path(__file__).resolve().parents[1] / "examples" / "labs"
LAB = LABS / "lab7_dag.py"
M = 3


def _lab_sets() -> dict[str, DAGTaskSet]:
    """SET_F and SET_G as the lab's source assigns them (evaluated, nothing else of the lab run)."""
    sets = {}
    for node in ast.parse(LAB.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            name = node.targets[0].id
            if name in ("SET_F", "SET_G"):
                sets[name] = eval(
                    compile(ast.Expression(node.value), str(LAB), "eval"),
                    {"DAGTask": DAGTask, "DAGTaskSet": DAGTaskSet},
                )
    assert sorted(sets) == ["SET_F", "SET_G"]
    return sets


SETS = _lab_sets()
SCENARIOS = [
    {"arrivals": "periodic", "ties": "index"},
    {"arrivals": "periodic", "ties": "fifo"},
    {"arrivals": "periodic", "ties": "random:3"},
    *({"arrivals": "sporadic", "seed": s} for s in range(30)),
    *({"arrivals": "periodic", "execution": "random", "seed": s} for s in range(30)),
    *({"arrivals": "sporadic", "execution": "random", "seed": s} for s in range(30)),
]


def _search_module():
    spec = importlib.util.spec_from_file_location("lab7_search", LABS / "_lab7_search.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["lab7_search"] = module
    spec.loader.exec_module(module)
    return module


def test_set_f_federated_proves_it_and_global_edf_misses():
    ts = SETS["SET_F"]
    federated = analyses.get("dag-federated")
    assert federated.reference(ts, M) is True
    assert check_many([ts], M, tests=["dag-federated"])[0]["dag-federated"].verdict is True  # the kernel too
    explained = federated.explain(ts, M)
    assert explained.evidence["n"] == (0, 0, 0, 2) and explained.evidence["light_processors"] == 1
    assert analyses.get("dag-gedf-cab").reference(ts, M) is False
    miss = simulate_dag(ts, M, policy="gedf").miss  # synchronous periodic, WCETs: a legal sporadic run
    assert miss is not None and (miss.task, miss.job, miss.time, miss.remaining) == (3, 0, 10, 1)


@pytest.mark.parametrize("scenario", SCENARIOS, ids=str)
def test_set_f_federated_schedule_meets(scenario):
    """The federated schedule the lab describes: τ3 alone on its 2 cores, the light tasks on one EDF core."""
    ts = SETS["SET_F"]
    heavy = simulate_dag(DAGTaskSet([ts[3]]), 2, **scenario)
    light = simulate_dag(ts[:3], 1, **scenario)
    assert heavy.miss is None and light.miss is None
    assert heavy.response_times[0] <= 9 + Fraction(11 - 9, 2)  # Graham on n = 2 cores


def test_set_g_federated_cannot_allocate_it():
    ts = SETS["SET_G"]
    federated = analyses.get("dag-federated")
    assert federated.reference(ts, M) is False
    assert federated.explain(ts, M).evidence["n"] == (0, 0, 6)
    assert min(m for m in range(1, 12) if federated.reference(ts, m) is True) == 7
    assert analyses.get("dag-gedf-cab").reference(ts, M) is False


@pytest.mark.parametrize("scenario", SCENARIOS, ids=str)
def test_set_g_global_edf_observed_to_meet(scenario):
    """Observed only (the lab says so): no global EDF run of set G on 3 cores misses."""
    assert simulate_dag(SETS["SET_G"], M, policy="gedf", **scenario).miss is None


def test_the_seeded_search_derives_the_labs_sets():
    search = _search_module()
    found = search.search(search.SEED)
    # the same tasks in the same order (the lab's sets also carry a name, which the search's do not)
    assert found["FEDERATED_ONLY"][1] == DAGTaskSet(list(SETS["SET_F"]))
    assert found["GLOBAL_ONLY"][1] == DAGTaskSet(list(SETS["SET_G"]))
    assert "seed 1" in LAB.read_text(encoding="utf-8") and search.SEED == 1
