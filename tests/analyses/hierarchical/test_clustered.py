"""Clustered / virtual-cluster EDF end to end: specs, worked example, relations with other tests."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rtsched import TaskSet, TaskSetBatch, analyses, check
from rtsched.analyses.hierarchical import clustered, mpr
from rtsched.errors import InputError
from rtsched.platform import GPU, Clustered
from rtsched.testing import strategies as rst

DEMO = TaskSet.from_tasks([(2, 10, 10), (3, 12, 15), (4, 20, 20), (5, 16, 20), (6, 30, 30), (1, 5, 8)], name="demo")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("clustered:k=2", clustered.ClusterSpec(2), id="plain"),
        pytest.param("clustered:k=2:pi=5", clustered.ClusterSpec(2, Pi=5), id="period"),
        pytest.param("clustered:k=4:physical", clustered.ClusterSpec(4, mode="physical"), id="physical"),
        pytest.param("clustered:k=2:top=gfb", clustered.ClusterSpec(2, top="gfb"), id="top"),
        pytest.param("clustered:k=1:assign=0,0,1", clustered.ClusterSpec(1, assignment=(0, 0, 1)), id="assign"),
    ],
)
def test_parse_spec(text, expected):
    assert clustered.parse_spec(text) == expected


@pytest.mark.parametrize("bad", ["clustered", "clustered:k=0", "global:k=2", "clustered:k=2:foo", "clustered:k=x"])
def test_parse_spec_errors(bad):
    with pytest.raises(InputError):
        clustered.parse_spec(bad)


def test_worked_example_with_assignment():
    """papers/easwaran-shin-lee2009-virtual-clusters.md, worked example: two virtual clusters of
    one processor, interfaces ⟨10, 7, 1⟩ and ⟨5, 3, 1⟩, servers (7,10,10) and (3,5,5), U = 13/10."""
    report = clustered.platform_report(DEMO, 2, "clustered:k=1:assign=0,0,0,1,1,1")
    assert report.verdict is True
    assert [c.tasks for c in report.clusters] == [(0, 1, 2), (3, 4, 5)]
    assert [c.interface for c in report.clusters] == [mpr.MPRInterface(10, 7, 1), mpr.MPRInterface(5, 3, 1)]
    assert report.servers.rows() == [(7, 10, 10), (3, 5, 5)]
    assert report.server_assignment == (0, 1)
    # The interfaces are minimal: one tick less is rejected.
    assert mpr.reference_interface(DEMO.subset([0, 1, 2]), mpr.MPRInterface(10, 6, 1)) is False
    assert mpr.reference_interface(DEMO.subset([3, 4, 5]), mpr.MPRInterface(5, 2, 1)) is False
    text = str(report)
    assert "⟨Π=10, Θ=7, m'=1⟩" in text and "SCHEDULABLE" in text
    data = report.to_dict()
    json.dumps(data)
    assert data["clusters"][0]["interface"] == {"Pi": 10, "Theta": 7, "m_prime": 1, "bandwidth": "7/10"}
    # On one processor the two servers (U = 13/10) do not fit.
    assert clustered.platform_report(DEMO, 1, "clustered:k=1:assign=0,0,0,1,1,1").verdict is False


def test_worked_example_first_fit():
    report = clustered.platform_report(DEMO, 2, "clustered:k=2:pi=5")
    assert report.verdict is True
    assert len(report.clusters) == 1
    assert report.clusters[0].interface == mpr.MPRInterface(5, 8, 2)
    assert report.servers.rows() == [(4, 5, 5), (4, 5, 5)]
    top = clustered.platform_report(DEMO, 2, "clustered:k=2:pi=5:top=gfb")
    assert top.verdict is False  # GFB: Σλ = 8/5 > 2 − 4/5
    assert top.top_results[0].analysis == "gfb"


def test_family_registry():
    entry = analyses.get("clustered:k=2")
    assert entry.platform == "clustered" and entry.kind == "sufficient"
    # Identical(m) with k <= m (the scheduler's clusters), or Clustered(m, k) with the same k.
    assert entry.supports(2, DEMO) is None and entry.supports(Clustered(2, 2), DEMO) is None
    assert entry.supports(Clustered(4, 2), DEMO) is None
    assert "clusters of 1" in entry.supports(Clustered(4, 1), DEMO)
    assert entry.supports(1, DEMO) == "cluster size k = 2 exceeds m = 1"
    assert entry.supports(GPU(4)) is not None
    assert entry.explain(DEMO, 2).verdict is True
    result = entry.explain(DEMO, Clustered(4, 2))
    assert (result.analysis, result.m, result.policy) == ("clustered:k=2", 4, "clustered-edf")
    assert "clusters" in result.evidence
    assert entry.verdict(DEMO, 4) is True and entry.verdict(DEMO, Clustered(4, 2)) is True
    with pytest.raises(InputError, match="exceeds m = 1"):
        entry.verdict(DEMO, 1)
    assert analyses.get("clustered:k=2:physical").name == "clustered:k=2:physical"
    assert "clustered:k=2" not in analyses.names(featured_only=True)
    with pytest.raises(InputError):
        clustered.platform_report(DEMO, 2, "clustered:k=3")


def test_registry_codes_equal_the_report_on_identical_and_clustered_platforms():
    sets = [
        DEMO,
        TaskSet.from_tasks([(3, 3, 3)] * 3),
        TaskSet.from_tasks([(1, 9, 9), (1, 9, 9), (10, 10, 10), (2, 10, 10)]),
    ]
    batch = TaskSetBatch.from_tasksets(sets)
    for spec in ("clustered:k=1", "clustered:k=2", "clustered:k=2:physical", "clustered:k=2:pi=5"):
        entry = analyses.get(spec)
        expected = [{True: 1, False: 0, "unknown": -1}[clustered.platform_report(ts, 4, spec).verdict] for ts in sets]
        k = int(spec.split("=")[1].split(":")[0])
        for platform in (4, Clustered(4, k)):
            assert entry.status(batch, platform).tolist() == expected, (spec, platform)
            assert [entry.verdict(ts, platform) for ts in sets] == [entry.reference(ts, platform) for ts in sets]
    # check() runs the family like any analysis, on m processors or on the clusters of the platform.
    report = check(DEMO, 4, tests=["clustered:k=2"])
    assert report.verdicts == {"clustered:k=2": True} and not report.skipped
    assert check(DEMO, Clustered(4, 2)).verdicts["clustered:k=2"] is True


def test_budget_of_the_family_gives_unknown_not_false():
    entry = analyses.get("clustered:k=2")
    assert entry.budget == mpr.DEFAULT_BUDGET and entry.budget_unit
    assert entry.verdict(DEMO, 2, budget=1) == entry.reference(DEMO, 2, budget=1) == "unknown"
    assert entry.explain(DEMO, 2, budget=1).verdict == "unknown"
    assert entry.status(TaskSetBatch.from_tasksets([DEMO]), 2, budget=1).tolist() == [-1]


def test_top_level_analysis_must_apply_to_the_platform():
    gfb_top = analyses.get("clustered:k=2:pi=5:top=gfb")
    assert gfb_top.supports(2) is None
    assert "migrate" in gfb_top.supports(Clustered(4, 2))  # a global top level crosses hardware clusters
    assert gfb_top.supports(Clustered(2, 2)) is None  # one hardware cluster: nothing to cross
    assert analyses.get("clustered:k=1:top=uni-qpa").supports(Clustered(2, 1)) is None
    assert "unknown analysis" in analyses.get("clustered:k=2:top=nope").supports(4)
    assert analyses.get("clustered:k=2:top=uni-npedf").supports(4) is None  # uniprocessor: admission per processor
    assert analyses.get("clustered:k=2:physical:top=gfb").supports(Clustered(4, 2)) is None  # physical: no top level


def test_unschedulable_set_is_not_proven():
    ts = TaskSet.from_tasks([(3, 3, 3)] * 3)
    for spec in ("clustered:k=1", "clustered:k=2", "clustered:k=2:physical"):
        assert clustered.platform_report(ts, 2, spec).verdict is False


# ------------------------------------------------------------------------------------------------
# Relations with the global and partitioned tests
# ------------------------------------------------------------------------------------------------
@settings(max_examples=40)
@given(rst.tasksets(max_size=5, max_period=20), st.integers(1, 3))
def test_k_equals_m_physical_is_gedf_on_m_dedicated_processors(ts, m):
    """One cluster of m dedicated processors is global EDF on m: first-fit places every task iff
    the whole set passes (the test is sustainable under task removal)."""
    report = clustered.platform_report(ts, m, f"clustered:k={m}:physical")
    assert report.verdict == mpr.reference(ts, m)


@settings(max_examples=30)
@given(rst.tasksets(max_size=5, max_period=20), st.integers(1, 3))
def test_k_equals_m_virtual_accepts_whatever_gedf_accepts(ts, m):
    """If G-EDF on m dedicated processors is proven, so is the virtual cluster: its interface
    needs m' ≤ m servers, which always fit one per processor."""
    if mpr.reference(ts, m) is True:
        assert clustered.platform_report(ts, m, f"clustered:k={m}").verdict is True


@settings(max_examples=30)
@given(rst.tasksets(max_size=5, max_period=20), st.integers(1, 3))
def test_k_equals_m_agrees_with_bar(ts, m):
    if analyses.get("bar").reference(ts, m) is True:
        assert clustered.platform_report(ts, m, f"clustered:k={m}:physical").verdict is True


@settings(max_examples=30)
@given(rst.tasksets(max_size=6, max_period=20), st.integers(1, 3), st.sampled_from(["physical", "virtual"]))
def test_k_one_accepted_implies_partition_passes_uni_qpa(ts, m, mode):
    """Hierarchical EDF on one processor succeeds ⇒ flat EDF of the union succeeds (EDF is
    optimal on one processor) ⇒ the exact uniprocessor test accepts each processor's tasks."""
    qpa = analyses.get("uni-qpa")
    report = clustered.platform_report(ts, m, f"clustered:k=1:{mode}")
    if report.verdict is not True:
        return
    if mode == "physical":
        groups = [list(c.tasks) for c in report.clusters]
    else:
        groups = list(report.processor_of_tasks().values())
    assert len(groups) <= m
    for members in groups:
        assert qpa.reference(ts.subset(members), 1) is True


@settings(max_examples=30)
@given(rst.tasksets(max_size=6, max_period=20), st.integers(1, 3))
def test_k_one_physical_clusters_pass_uniprocessor_gedf_mpr(ts, m):
    report = clustered.platform_report(ts, m, "clustered:k=1:physical")
    if report.verdict is True:
        assert len(report.clusters) <= m
        assert sorted(i for c in report.clusters for i in c.tasks) == list(range(ts.n))
        for c in report.clusters:
            assert mpr.reference_interface(ts.subset(list(c.tasks)), mpr.dedicated(1)) is True


@settings(max_examples=30)
@given(rst.tasksets(max_size=6, max_period=20), st.integers(1, 4), st.integers(1, 3))
def test_servers_carry_the_interfaces(ts, m, k):
    if k > m:
        return
    report = clustered.platform_report(ts, m, f"clustered:k={k}")
    for c in report.clusters:
        if c.interface is not None:
            assert int(c.servers.C.sum()) == c.interface.Theta
            assert c.interface.m_prime <= k
            assert c.result.verdict is True
    if report.verdict is True:
        assert len(report.server_assignment) == report.servers.n
        loads = {}
        for (c, _, t), p in zip(report.servers.rows(), report.server_assignment, strict=True):
            loads[p] = loads.get(p, 0) + c / t
        assert all(v <= 1 + 1e-12 for v in loads.values())


def test_top_level_with_uni_qpa_matches_the_utilization_packing():
    """Servers have implicit deadlines, so uni-qpa admission (exact) packs like U ≤ 1."""
    for m, expected in ((2, True), (1, False)):
        report = clustered.platform_report(DEMO, m, "clustered:k=1:assign=0,0,0,1,1,1:top=uni-qpa")
        assert report.verdict is expected
        if expected:
            assert sorted(report.server_assignment) == [0, 1]
            assert all(r.verdict is True for r in report.top_results)
