"""The worked sets of the comparison with the DAG survey library (papers/dag-peer-comparison.md).

Each set in tests/data/dag_peer/ was found where rtsched and the survey library of Verucchi,
Olmedo and Bertogna (an oracle, built outside this repository; nothing of it is here but these
sets, which rtsched's generators drew) disagreed, or where the library is unsound. The tests hold
rtsched's side of each explanation: its verdict, its bound, and the simulator's run that shows
which side is right. The files are read in the library's YAML format, which also tests that reader.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rtsched import analyses
from rtsched.dag import DAGTaskSet, read_dag_tasksets, simulate_dag
from rtsched.platform import Typed

DATA = Path(__file__).parents[2] / "data" / "dag_peer"


def load(name: str) -> DAGTaskSet:
    path = DATA / name
    sets = read_dag_tasksets(path, format="survey" if name.endswith(".survey.yaml") else None)
    assert len(sets) == 1
    return sets[0]


@pytest.mark.parametrize("name", ["dag-gfp-melani2015", "dag-gedf-melani2015"])
def test_melani_floors_the_whole_term_in_integer_time(name):
    """a(1) → {b(2), c(1)} → d(1), D = 4, m = 2: len + ⌊(vol − len)/m⌋ = 4 + ⌊1/2⌋ = 4 ≤ D (the
    library keeps 4.5 > 4 and rejects); the simulated response is 4, so the set is schedulable."""
    ts = load("melani_integer_floor_small.survey.yaml")
    assert (ts[0].volume, ts[0].length, ts[0].D) == (5, 4, 4)
    assert analyses.get(name).verdict(ts, 2) is True
    assert simulate_dag(ts, 2, policy="gfp", record=True).response_times == (4,)


def test_melani_gfp_bound_equal_to_the_deadline_on_a_six_task_set():
    """The library's 725.75 > D = 725 for τ1; rtsched's 493 + ⌊(771 + 160)/4⌋ = 725 ≤ 725."""
    ts = load("melani_integer_floor_4_fj_impl_113.survey.yaml")
    result = analyses.get("dag-gfp-melani2015").explain(ts, 4)
    assert result.verdict is True
    assert result.per_task[1]["R"] == 725 == ts[1].D


@pytest.mark.parametrize(
    ("name", "D", "response"),
    [
        pytest.param("han2019_peer_unsound.survey.yaml", 12, 22, id="typed-volume-never-computed"),
        pytest.param("han2019_peer_int_truncation.survey.yaml", 20, 22, id="int-truncated-path-length"),
    ],
)
def test_han2019_rejects_the_sets_the_library_wrongly_accepts(name, D, response):
    """(H1) exceeds D and the job misses: the library's acceptances (Σ vol_s/m_s read as 0; the
    scaled path length truncated to an int at every vertex) are unsound, rtsched's rejection right."""
    ts = load(name)
    assert analyses.get("dag-typed-han2019").verdict(ts, Typed({"cpu": 2})) is False
    assert simulate_dag(ts, 2, policy="gfp", record=True).response_times == (response,)
    miss = simulate_dag(ts, 2, policy="gfp").miss
    assert miss is not None and miss.time == D


def test_han2019_bound_equal_to_the_deadline_is_schedulable():
    """One s1 vertex, C = D = 7: (H1) = 7/2 + 7·(1 − 1/2) = 7 ≤ 7 (the library's strict < rejects)."""
    ts = load("han2019_boundary_2_fj_typed_19.yaml")
    platform = Typed({"cpu": 2, "s1": 2})
    assert analyses.get("dag-typed-han2019").verdict(ts, platform) is True
    assert simulate_dag(ts, platform, policy="gfp").miss is None


def test_fonseca_window_holds_at_most_the_jobs_that_fit():
    """The library counts 2937 units of τ0 in a window of 1730 (more than two jobs, 2·1447) and
    rejects; rtsched's R = (626, 1775) ≤ D = (1534, 1786) accepts, and no run misses."""
    ts = load("fonseca_peer_overcount_4_fj_impl_31.yaml")
    result = analyses.get("dag-gfp-fonseca2017").explain(ts, 4)
    assert result.verdict is True
    assert [row["R"] for row in result.per_task] == [626, 1775]
    for arrivals, execution in (("periodic", "wcet"), ("sporadic", "random")):
        assert simulate_dag(ts, 4, policy="gfp", arrivals=arrivals, execution=execution).miss is None


def test_no_analysis_accepts_the_set_the_librarys_baruah2014_accepts_after_an_overflow():
    """The library's hyperperiod wraps past 2³¹ (periods 46349 and 46351), its test set is empty
    and it says schedulable; the fork-join alone needs 22 > D = 15 ticks and misses at t = 15."""
    ts = load("baruah2014_peer_unsound.survey.yaml")
    miss = simulate_dag(ts, 2, policy="gedf").miss
    assert miss is not None and miss.time == 15
    for entry in analyses.all_entries():
        if entry.workload is analyses.get("dag-federated").workload and entry.supports(2, ts) is None:
            assert entry.verdict(ts, 2) is not True, entry.name
