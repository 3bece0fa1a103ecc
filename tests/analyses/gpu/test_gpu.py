"""GPU compute-cluster model (rtsched's model, after Zahaf et al., RTNS 2021; papers/zahaf2021-gpu-partitioning.md): model, files, layouts,
per-partition tests, allocation, CLI, registry, generator; properties with hypothesis."""

from __future__ import annotations

import json
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rtsched import analyses
from rtsched.analyses.gpu.partitioning import HEURISTICS, allocate, gpu_report, partition_verdict, recheck
from rtsched.analyses.theory.edf_demand import pda_trace, qpa_reference
from rtsched.analyses.theory.np_demand import npedf_trace
from rtsched.cli import main
from rtsched.errors import InputError
from rtsched.gpu import (
    AmdahlWCET,
    GPUWorkload,
    Kernel,
    SaturatingWCET,
    TableWCET,
    dumps_gpu,
    inflate,
    layouts,
    loads_gpu,
    read_gpu_workload,
)
from rtsched.model import TaskSet
from rtsched.platform import GPU

F = Fraction


# -- strategies ------------------------------------------------------------------------------------
@st.composite
def kernels(draw, max_clusters=4, max_period=40, with_contention=True, preemptive=None):
    T = draw(st.integers(4, max_period))
    D = draw(st.integers(max(1, T // 2), T))
    length = draw(st.integers(1, max_clusters + 1))
    c1 = draw(st.integers(1, T))
    table = [c1]
    for _ in range(length - 1):
        table.append(draw(st.integers(max(1, table[-1] // 2), table[-1])))
    if with_contention:
        top = draw(st.sampled_from([1, 3]))  # mild or strong contention
        steps = draw(st.lists(st.integers(0, top), min_size=max_clusters, max_size=max_clusters))
        factors = tuple(F(10 + sum(steps[: k + 1]), 10) for k in range(max_clusters))
    else:
        factors = (F(1),) * max_clusters
    np_flag = draw(st.booleans()) if preemptive is None else not preemptive
    return Kernel(TableWCET(tuple(table)), D, T, factors, None, not np_flag)


@st.composite
def workloads(draw, max_kernels=5, max_clusters=4, **kw):
    ks = draw(st.lists(kernels(max_clusters=max_clusters, **kw), min_size=1, max_size=max_kernels))
    return GPUWorkload(tuple(ks))


# -- model: inflation, profiles, validation --------------------------------------------------------
@pytest.mark.parametrize(
    ("c", "factor", "expected"),
    [
        pytest.param(10, "1.15", 12, id="ceil-11.5-up"),
        pytest.param(20, "1.15", 23, id="exact-23"),
        pytest.param(7, "1", 7, id="no-contention"),
        pytest.param(3, "4/3", 4, id="rational"),
        pytest.param(1, "1.0000001", 2, id="tiny-factor-still-rounds-up"),
    ],
)
def test_inflation_rounds_up_exactly(c, factor, expected):
    k = Kernel(TableWCET((c,)), 100, 100, (F(factor),), None)
    assert inflate(k, 1, 2) == expected
    assert inflate(k, 1, 1) == c  # alone: f(0) = 1
    assert inflate(k, 1, 3) is None  # f(2) not measured


def test_profiles():
    a = AmdahlWCET(60, F("0.95"))
    assert [a.at(s) for s in (1, 2, 3, 4)] == [60, 32, 22, 18]  # 60·(0.05 + 0.95/s), rounded up
    assert a.at(1) == 60
    s = SaturatingWCET(10, 2)
    assert [s.at(x) for x in (1, 2, 3, 8)] == [10, 5, 5, 5]
    t = TableWCET((9, 5))
    assert [t.at(x) for x in (1, 2, 3)] == [9, 5, 5]  # beyond the table: the last value (A2)


def test_validation_errors_name_the_kernel_and_field():
    with pytest.raises(InputError, match="non-increasing") as err:
        GPUWorkload((Kernel(TableWCET((5, 6)), 10, 10, (), F(1), name="x"),))
    assert err.value.field == "C"
    assert err.value.task == "0 (x)"
    with pytest.raises(InputError, match="non-decreasing"):
        GPUWorkload((Kernel(TableWCET((5,)), 10, 10, (F("1.2"), F("1.1")), None),))
    with pytest.raises(InputError, match="exceeds T"):
        GPUWorkload((Kernel(TableWCET((5,)), 11, 10, (), F(1)),))


# -- layouts -----------------------------------------------------------------------------------------
PARTITION_NUMBERS = [1, 1, 2, 3, 5, 7, 11, 15, 22, 30, 42]


@pytest.mark.parametrize("M", range(1, 11))
def test_layouts_are_the_integer_partitions(M):
    found = list(layouts(M))
    assert len(found) == PARTITION_NUMBERS[M]
    assert len(set(found)) == len(found)
    assert all(sum(x) == M and list(x) == sorted(x, reverse=True) for x in found)
    by_parts = sum(len(list(layouts(M, K))) for K in range(1, M + 1))
    assert by_parts == PARTITION_NUMBERS[M]
    assert len(list(layouts(M, exact=False))) == sum(PARTITION_NUMBERS[1 : M + 1])


def test_layouts_of_4():
    assert list(layouts(4)) == [(4,), (3, 1), (2, 2), (2, 1, 1), (1, 1, 1, 1)]
    assert list(layouts(4, 2)) == [(3, 1), (2, 2)]


# -- per-partition tests -----------------------------------------------------------------------------
def test_partition_verdict_uses_qpa_or_np_test():
    rows = [(1, 2, 4), (3, 12, 12)]
    assert partition_verdict(rows, [False, False]) is True  # preemptive: QPA
    assert partition_verdict(rows, [False, True]) is False  # τ1 non-preemptive blocks τ0
    assert partition_verdict(rows, [True, False]) is True  # τ0 non-preemptive: it has no later deadline to block
    assert partition_verdict([(11, 10, 20)], [False]) is False  # C' > D


@settings(max_examples=60)
@given(
    st.lists(st.tuples(st.integers(1, 30), st.integers(0, 30), st.integers(0, 30)), min_size=1, max_size=5), st.data()
)
def test_partition_verdict_fast_equals_references(raw, data):
    rows = []
    for c, dd, tt in raw:
        rows.append((c, c + dd, c + dd + tt))
    flags = data.draw(st.lists(st.booleans(), min_size=len(rows), max_size=len(rows)))
    fast = partition_verdict(rows, flags)
    slow = partition_verdict(rows, flags, fast=False)
    assert fast == slow
    if any(flags):
        assert slow == npedf_trace(rows, flags).verdict
    else:
        assert slow == qpa_reference(rows) == pda_trace(rows).verdict


# -- allocation: hand-worked cases ------------------------------------------------------------------
def _perfect(c1_list, T, M, factors=None, preemptive=True):
    """Kernels with C(s) = C(1)/s (exactly divisible) and contention factors (default 1)."""
    ks = []
    for c1 in c1_list:
        table = tuple(-(-c1 // s) for s in range(1, M + 2))
        fs = tuple(F(1) for _ in range(M)) if factors is None else factors
        ks.append(Kernel(TableWCET(table), T, T, fs, None, preemptive))
    return GPUWorkload(tuple(ks), M)


@pytest.mark.parametrize(
    ("c1", "T", "M", "expected"),
    [
        # Two kernels, U(1) = 1 each, M = 2, C(2) = C(1)/2: both the baseline (U = 1/2 + 1/2)
        # and two one-cluster partitions (U = 1 each) pass.
        pytest.param(
            [4, 4], 4, 2, {"single": True, "ffd": True, "bfd": True, "exhaustive": True}, id="two-full-kernels"
        ),
        # Three such kernels on M = 2: Σ C(1)/T = 3 > M, nothing can pass.
        pytest.param(
            [4, 4, 4], 4, 2, {"single": False, "ffd": False, "bfd": False, "exhaustive": False}, id="overload"
        ),
        # Σ C(1)/T = 12/12 + 6/12 + 6/12 = 2 = M: the baseline C(2) = 6, 3, 3 -> U = 1.
        pytest.param([12, 6, 6], 12, 2, {"single": True, "ffd": True, "bfd": True, "exhaustive": True}, id="exactly-M"),
    ],
)
def test_perfect_scaling_without_contention(c1, T, M, expected):
    w = _perfect(c1, T, M)
    for h, v in expected.items():
        assert allocate(w, M, h).verdict is v, h


def test_contention_makes_partitioning_lose_and_the_baseline_win():
    # Two kernels, C(1) = 6, C(2) = 3, T = D = 6. Alone on the GPU: U = 1/2 + 1/2 = 1 (passes).
    # Split 1+1: each C' = ⌈6 · 1.5⌉ = 9 > 6 = D: fails. Only K = 1 works.
    w = _perfect([6, 6], 6, 2, factors=(F("1.5"), F("1.5")))
    a = allocate(w, 2, "exhaustive")
    assert a.verdict is True and a.layout == (2,)
    assert allocate(w, 2, "ffd").layout == (2,)


def test_poor_scaling_makes_partitioning_win():
    # C(s) = [5, 5]: no speed-up. One partition: U = 5/8 · 2 > 1. Two partitions of 1 with
    # f(1) = 1.2: C' = 6 ≤ 8 and U = 3/4 each.
    ks = tuple(Kernel(TableWCET((5, 5)), 8, 8, (F("1.2"),), None) for _ in range(2))
    w = GPUWorkload(ks, 2)
    assert allocate(w, 2, "single").verdict is False
    for h in ("ffd", "bfd", "exhaustive"):
        a = allocate(w, 2, h)
        assert a.verdict is True and a.layout == (1, 1)
        assert [p.wcets for p in a.partitions] == [(6,), (6,)]
        assert recheck(w, a)


def test_demo_file_report(tmp_path):
    from pathlib import Path

    demo = Path(__file__).resolve().parents[3] / "examples" / "gpu" / "demo.yaml"
    w = read_gpu_workload(demo)
    report = gpu_report(w, None, "ffd")
    assert report.schedulable
    assert report.baseline.verdict is False
    d = report.to_dict()
    assert d["layout"] == [2, 2] and d["contention_others"] == 1
    assert [k["C'"] for k in d["kernels"]] == [27, 40, 11, 8]  # ⌈24·1.1⌉, ⌈32·1.25⌉, ⌈10·1.05⌉, ⌈5·1.5⌉
    text = str(report)
    assert "layout 2+2" in text and "np-edf" in text and "uni-qpa" in text
    json.dumps(d)


def test_empty_partitions_are_dropped_and_factors_follow_the_actual_layout():
    # One kernel on M = 3: every heuristic ends with a single active partition, so f(0) = 1.
    w = GPUWorkload((Kernel(TableWCET((9, 5, 4)), 10, 10, (F(2), F(3)), None),), 3)
    for h in ("ffd", "bfd", "exhaustive", "single"):
        a = allocate(w, 3, h)
        assert a.verdict is True and a.others == 0
        assert recheck(w, a)


def test_unknown_budget_is_not_a_rejection():
    # QPA needs 4 steps on (2, 3, 5), (3, 6, 10), (1, 4, 10); a budget of 1 cannot decide.
    rows = [(2, 3, 5), (3, 6, 10), (1, 4, 10)]
    w = GPUWorkload(tuple(Kernel(TableWCET((c,)), d, t, (), F(1)) for c, d, t in rows), 1)
    assert allocate(w, 1, "ffd").verdict is True
    assert allocate(w, 1, "ffd", budget=1).verdict == "unknown"
    assert allocate(w, 1, "exhaustive", budget=1).verdict == "unknown"
    # The registry's budget is the partition tests' budget, for every GPU analysis.
    for name in ("gpu", "gpu:ffd", "gpu:bfd", "gpu:exhaustive", "gpu:single"):
        entry = analyses.get(name)
        assert entry.verdict(w, GPU(1)) is True
        assert entry.verdict(w, GPU(1), budget=1) == entry.reference(w, GPU(1), budget=1) == "unknown"
        assert entry.status([w], GPU(1), budget=1).tolist() == [-1]
        assert entry.explain(w, GPU(1), budget=1).verdict == "unknown"


def test_layout_budget_gives_unknown():
    # Three kernels that only fit alone on one cluster each (layout 1+1+1, tried last of 3).
    ks = tuple(Kernel(TableWCET((4, 4, 4)), 5, 5, (), F(1)) for _ in range(3))
    w = GPUWorkload(ks, 3)
    assert allocate(w, 3, "ffd").layout == (1, 1, 1)
    a = allocate(w, 3, "ffd", layout_budget=2)
    assert a.verdict == "unknown" and "layout budget" in a.reason


# -- properties (hypothesis) -------------------------------------------------------------------------
@settings(max_examples=40)
@given(workloads(), st.integers(1, 4), st.sampled_from(HEURISTICS))
def test_accepted_allocation_rechecks_independently(w, M, h):
    a = allocate(w, M, h)
    if a.verdict is True:
        assert recheck(w, a)
        assert sum(a.layout) + a.idle == M
        assert sorted(i for p in a.partitions for i in p.kernels) == list(range(w.n))


@settings(max_examples=40)
@given(workloads(), st.integers(1, 4))
def test_heuristics_never_beat_the_exhaustive_optimum(w, M):
    best = allocate(w, M, "exhaustive").verdict
    for h in ("ffd", "bfd", "single"):
        if allocate(w, M, h).verdict is True:
            assert best is True, h


@settings(max_examples=40)
@given(workloads(max_kernels=4), st.integers(1, 4))
def test_one_more_cluster_never_hurts_the_exhaustive_search(w, M):
    if allocate(w, M, "exhaustive").verdict is True:
        assert allocate(w, M + 1, "exhaustive").verdict is True


@settings(max_examples=25)
@given(workloads(max_kernels=4), st.integers(1, 3), st.sampled_from(HEURISTICS))
def test_fast_path_equals_reference_path(w, M, h):
    fast = allocate(w, M, h)
    slow = allocate(w, M, h, fast=False)
    assert fast == slow


@settings(max_examples=40)
@given(st.lists(st.integers(1, 6), min_size=1, max_size=5), st.integers(1, 3), st.sampled_from([6, 12, 24]))
def test_perfect_scaling_theory(units, M, T):
    """f ≡ 1, C(s) = C(1)/s exactly, implicit deadlines, preemptive: one EDF resource of speed M.

    The baseline passes iff Σ C(1)/T ≤ M (EDF is optimal and C(M) = C(1)/M); partitioning cannot
    do better, so the exhaustive optimum agrees with the baseline.
    """
    lcm = math.lcm(*range(1, M + 2))
    c1 = [u * lcm for u in units]
    T = T * lcm
    w = _perfect(c1, T, M)
    fits = sum(F(c, T) for c in c1) <= M and all(-(-c // M) <= T for c in c1)
    assert (allocate(w, M, "single").verdict is True) == fits
    assert (allocate(w, M, "exhaustive").verdict is True) == fits


# -- files ---------------------------------------------------------------------------------------------
def test_round_trip_yaml_and_json():
    w = GPUWorkload(
        (
            Kernel(TableWCET((40, 22)), 50, 100, (F("1.1"), F("1.25")), None, True, "conv"),
            Kernel(AmdahlWCET(30, F("0.8")), 40, 40, (), F(2), False, None),
            Kernel(SaturatingWCET(24, 2), 60, 60, (F(4, 3),), None, True, "odd"),
        ),
        4,
        "demo",
        "dense",
    )
    for fmt in ("yaml", "json"):
        assert loads_gpu(dumps_gpu(w, fmt), fmt) == w


@pytest.mark.parametrize(
    ("text", "line", "task", "field", "message"),
    [
        pytest.param("kernels:\n  - {C: [5], D: 10, T: 10}\n", 2, 0, "slowdown", "missing key", id="missing-slowdown"),
        pytest.param(
            "kernels:\n  - name: k\n    C: [5, 6]\n    D: 10\n    T: 10\n    slowdown: 1\n",
            3,
            "0 (k)",
            "C",
            "non-increasing",
            id="increasing-table",
        ),
        pytest.param(
            "kernels:\n  - {C: [5], D: 10, T: 10, slowdown: [1.2, x]}\n",
            2,
            0,
            "slowdown[2]",
            "not a number",
            id="bad-factor",
        ),
        pytest.param("kernels:\n  - {C: [5], D: true, T: 10, slowdown: 1}\n", 2, 0, "D", "boolean", id="bool-deadline"),
        pytest.param(
            "kernels:\n  - {C: [5], D: 10, T: 10, slowdown: 1, period: 3}\n",
            2,
            0,
            "period",
            "unknown key",
            id="unknown-key",
        ),
        pytest.param(
            "kernels:\n  - {C: [5.5], D: 10, T: 10, slowdown: 1}\n", 2, 0, "C(1)", "whole number", id="real-wcet"
        ),
        pytest.param(
            "kernels:\n  - {C: {model: amdahl, C1: 5, parallel: 1.5}, D: 10, T: 10, slowdown: 1}\n",
            2,
            0,
            "C.parallel",
            "parallel",
            id="amdahl-fraction",
        ),
        pytest.param(
            "kernels:\n  - {C: {model: magic}, D: 10, T: 10, slowdown: 1}\n",
            2,
            0,
            "C.model",
            "unknown WCET model",
            id="unknown-model",
        ),
        pytest.param(
            "kernels:\n  - {C: [5], D: 10, T: 10, slowdown: [1.5, 1.2]}\n",
            2,
            0,
            "slowdown",
            "non-decreasing",
            id="decreasing-factors",
        ),
        pytest.param("kernels: []\n", 1, None, "kernels", "non-empty", id="no-kernels"),
        pytest.param(
            "clusters: 0\nkernels:\n  - {C: [5], D: 10, T: 10, slowdown: 1}\n",
            1,
            None,
            "clusters",
            "clusters",
            id="zero-clusters",
        ),
    ],
)
def test_file_errors_name_file_line_kernel_field(text, line, task, field, message):
    with pytest.raises(InputError, match=message) as err:
        loads_gpu(text, "yaml", source="w.yaml")
    e = err.value
    assert e.file == "w.yaml"
    assert e.line == line
    assert e.task == task
    assert e.field == field


def test_json_errors_have_lines():
    text = '{\n "kernels": [\n  {"C": [5], "D": 10,\n   "T": 0, "slowdown": 1}\n ]\n}\n'
    with pytest.raises(InputError, match="T") as err:
        loads_gpu(text, "json", source="w.json")
    assert err.value.line == 4 and err.value.field == "T"


def test_factors_are_exact_rationals_from_the_decimal_text():
    w = loads_gpu("kernels:\n  - {C: [10], D: 20, T: 20, slowdown: [1.15, 1.3333]}\n")
    assert w.kernels[0].slowdown == (F(23, 20), F(13333, 10000))


# -- CLI and registry ----------------------------------------------------------------------------------
def test_cli(tmp_path, capsys):
    from pathlib import Path

    demo = Path(__file__).resolve().parents[3] / "examples" / "gpu" / "demo.yaml"
    assert main(["gpu", str(demo)]) == 0
    out = capsys.readouterr().out
    assert "layout 2+2" in out and "baseline" in out
    assert main(["gpu", str(demo), "--heuristic", "single", "--json"]) == 1
    d = json.loads(capsys.readouterr().out)
    assert d["verdict"] is False and d["heuristic"] == "single" and d["analysis"] == "gpu:single"
    assert main(["gpu", str(demo), "--clusters", "8", "--heuristic", "exhaustive", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["clusters"] == 8
    bad = tmp_path / "bad.yaml"
    bad.write_text("kernels:\n  - {C: [5, 9], D: 10, T: 10, slowdown: 1}\n")
    assert main(["gpu", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "bad.yaml, line 2, task 0, field C" in err
    assert main(["gpu", str(demo), "--heuristic", "magic"]) == 2
    nocl = tmp_path / "n.json"
    nocl.write_text('{"kernels": [{"C": [5], "D": 10, "T": 10, "slowdown": 1}]}')
    assert main(["gpu", str(nocl)]) == 2
    assert main(["gpu", str(nocl), "-M", "1"]) == 0


def test_registry_entries():
    entry = analyses.get("gpu")  # the default heuristic, ffd
    assert entry.name == "gpu:ffd" and entry.platform == "gpu" and entry.kind == "sufficient"
    assert entry.input == "gpu-workload"
    assert analyses.get("gpu:exhaustive").kind == "sufficient"  # optimal within the model only
    assert {e.name for e in analyses.all_entries() if e.platform == "gpu"} == {f"gpu:{h}" for h in HEURISTICS}
    w = _perfect([4, 4], 4, 2)
    res = entry.explain(w, GPU(2))
    assert res.verdict is True and res.analysis == "gpu:ffd" and res.m == 2
    assert res.evidence["layout"] and res.evidence["report"]["heuristic"] == "ffd"
    assert entry.reference(w, GPU(2)) is True
    assert entry.verdict(w, GPU(2)) is True
    assert entry.batch([w, _perfect([4, 4, 4], 4, 2)], GPU(2)).tolist() == [True, False]
    # The GPU size comes from the platform: the same analysis on another M.
    assert entry.reference(w, GPU(1)) is False
    assert entry.supports(GPU(2)) is None and entry.supports(GPU(64)) is None
    assert "1..64" in entry.supports(GPU(65))
    assert entry.supports(2) is not None  # two identical processors are not a GPU
    with pytest.raises(InputError, match="GPU platform"):
        entry.reference(w, 2)
    with pytest.raises(InputError, match="GPU workload"):
        entry.explain(TaskSet.from_tasks([(1, 2, 2)]), GPU(2))
    with pytest.raises(InputError, match="1..64"):
        entry.verdict(w, GPU(65))


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("gpu:2", "gpu on platform gpu:2"),
        ("gpu:8:ffd", "gpu:ffd on platform gpu:8"),
        ("gpu:4:exhaustive", "gpu:exhaustive on platform gpu:4"),
    ],
)
def test_old_names_with_m_are_refused_with_the_new_spelling(old, new):
    with pytest.raises(InputError, match=f"{old} is now {new}"):
        analyses.get(old)
    with pytest.raises(InputError):
        analyses.get("gpu:0")


def test_registry_status_codes():
    ws = [_perfect([4, 4], 4, 2), _perfect([4, 4, 4], 4, 2)]
    assert analyses.get("gpu:ffd").status(ws, GPU(2)).tolist() == [1, 0]
    assert analyses.get("gpu:exhaustive").status(ws, GPU(2)).dtype == np.int8
    assert analyses.get("gpu:ffd").status([], GPU(2)).shape == (0,)


@settings(max_examples=25)
@given(st.lists(workloads(max_kernels=4), min_size=1, max_size=4), st.integers(1, 3), st.sampled_from(HEURISTICS))
def test_registry_codes_equal_the_reference(ws, M, h):
    entry = analyses.get(f"gpu:{h}")
    codes = entry.status(ws, GPU(M)).tolist()
    assert codes == [{True: 1, False: 0, "unknown": -1}[entry.reference(w, GPU(M))] for w in ws]
    assert [entry.explain(w, GPU(M)).verdict for w in ws] == [{1: True, 0: False, -1: "unknown"}[c] for c in codes]


def test_check_platform_gpu_through_the_registry(capsys):
    """What `rtsched check FILE --platform gpu:<M>` runs (rtsched.commands.gpu.check_gpu_platform)."""
    from pathlib import Path

    from rtsched.commands.gpu import check_gpu_platform

    demo = str(Path(__file__).resolve().parents[3] / "examples" / "gpu" / "demo.yaml")
    assert check_gpu_platform(demo, "gpu:4", None, False) == 0
    out = capsys.readouterr().out
    assert "layout 2+2" in out and "baseline" in out and "heuristic ffd" in out
    assert check_gpu_platform(demo, "gpu", "gpu:single,gpu:exhaustive", True) == 1  # M from the file
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [(d["analysis"], d["verdict"], d["clusters"]) for d in lines] == [
        ("gpu:single", False, 4),
        ("gpu:exhaustive", True, 4),
    ]
    for platform, words in (
        ("gpu:4:ffd", "--platform gpu:4 --tests gpu:ffd"),
        ("gpu:x", "gpu:<M>"),
        ("gpu:4:magic", "gpu:4"),
    ):
        with pytest.raises(InputError, match=words) as err:
            check_gpu_platform(demo, platform, None, False)
        assert err.value.field == "--platform"
    with pytest.raises(InputError, match="task sets") as err:
        check_gpu_platform(demo, "gpu:4", "gfb", False)
    assert err.value.field == "--tests"


# -- generator -------------------------------------------------------------------------------------------
def test_generator_invariants_and_reproducibility():
    from rtsched.generators.gpu import QUANTUM, GPUWorkloadSpec, generate_gpu_workloads

    spec = GPUWorkloadSpec(n=5, clusters=4, U1=2.0, deadlines="uniform", nonpreemptive=0.5)
    a = generate_gpu_workloads(np.random.default_rng(7), spec, 40)
    b = generate_gpu_workloads(np.random.default_rng(7), spec, 40)
    assert a == b
    assert a != generate_gpu_workloads(np.random.default_rng(8), spec, 40)
    sens, u1 = [], []
    for w in a:
        assert w.clusters == 4 and w.n == 5
        u1.append(sum(F(k.wcet.at(1), k.T) for k in w.kernels))
        for k in w.kernels:
            table = k.wcet.values
            assert len(table) == 4 and list(table) == sorted(table, reverse=True)
            # Amdahl: C(s) = ⌈C1((1 − p) + p/s)⌉ for one p on the 1/100 grid.
            assert any(
                all(
                    v == math.ceil(table[0] * ((1 - F(q, QUANTUM)) + F(q, QUANTUM) / s)) for s, v in enumerate(table, 1)
                )
                for q in range(QUANTUM + 1)
            )
            assert min(table[-1], k.T) <= k.D <= k.T
            a1 = k.slowdown[0] - 1
            assert all(f == 1 + a1 * j for j, f in enumerate(k.slowdown, 1))  # linear contention
            assert (a1 * QUANTUM).denominator == 1
            sens.append(float(a1))
    # C(1) = ⌈u·T⌉ rounds up: U1 is a lower bound, exceeded by less than n / min T.
    assert all(2 <= u < 2 + F(5, 100) for u in u1)
    assert 0.0 <= min(sens) and max(sens) <= 0.3
    assert abs(np.mean(sens) - 0.15) < 0.03
    assert any(not k.preemptive for w in a for k in w.kernels)
    assert any(k.preemptive for w in a for k in w.kernels)


def test_generator_rejects_bad_parameters():
    from rtsched.generators.gpu import GPUWorkloadSpec, generate_gpu_workloads

    rng = np.random.default_rng(0)
    with pytest.raises(InputError):
        generate_gpu_workloads(rng, GPUWorkloadSpec(clusters=0), 1)
    with pytest.raises(InputError):
        generate_gpu_workloads(rng, GPUWorkloadSpec(parallel=(0.5, 1.5)), 1)
    with pytest.raises(InputError):
        generate_gpu_workloads(rng, GPUWorkloadSpec(contention=(0.3, 0.1)), 1)


def test_sweep_hook_matches_the_registry_entries():
    from rtsched.generators.gpu import generate_gpu_batch

    rng = np.random.default_rng(np.random.SeedSequence(5, spawn_key=(0,)))
    out = generate_gpu_batch(rng, n=4, utilization=1.5, size=6, clusters=3, contention=(0.0, 0.1))
    assert len(out.batch) == 6 and out.realized_utilization.shape == (6,)
    assert out.batch.n_sets == 6 and out.batch.deadlines == "implicit"
    assert np.all(out.realized_utilization >= 1.5)
    codes = analyses.get("gpu:exhaustive").status(out.batch, GPU(3))
    assert codes.shape == (6,) and set(codes.tolist()) <= {0, 1}
    with pytest.raises(InputError, match="unknown GPU generator parameter"):
        generate_gpu_batch(rng, n=4, utilization=1.5, size=1, clusters=3, umax=1.0)


@pytest.mark.parametrize("nonpreemptive", [0.0, 0.5])
def test_properties_on_generated_workloads_near_the_transition(nonpreemptive):
    """Generated workloads where the strategies disagree: dominance, re-check, monotonicity in M."""
    from rtsched.generators.gpu import GPUWorkloadSpec, generate_gpu_workloads

    rng = np.random.default_rng(np.random.SeedSequence(11, spawn_key=(int(nonpreemptive * 10),)))
    spec = GPUWorkloadSpec(
        n=5, clusters=3, U1=2.1, periods="log-uniform:20:200", contention=(0.0, 0.2), nonpreemptive=nonpreemptive
    )
    outcomes = set()
    for w in generate_gpu_workloads(rng, spec, 60):
        verdicts = {h: allocate(w, 3, h) for h in HEURISTICS}
        best = verdicts["exhaustive"].verdict
        outcomes.add(tuple(v.verdict for v in verdicts.values()))
        for h, a in verdicts.items():
            if a.verdict is True:
                assert best is True, h
                assert recheck(w, a), h
        if best is True:
            assert allocate(w, 4, "exhaustive").verdict is True
    assert len(outcomes) >= 4  # the sample is not trivial: strategies disagree somewhere


@pytest.mark.parametrize("heuristic", sorted(HEURISTICS))
def test_a_kernel_too_slow_for_any_partition_is_named(heuristic):
    """A kernel whose WCET exceeds its deadline even on the largest partition without contention
    can never be placed: the refusal names it, with C(s) and D (it said only that no layout packs
    every kernel)."""
    slow = Kernel(TableWCET((50, 45)), 40, 40, (F("1.1"),), None, True, name="a")
    fine = Kernel(TableWCET((5, 4)), 40, 40, (F("1.1"),), None, True, name="b")
    a = allocate(GPUWorkload((slow, fine)), 2, heuristic)
    assert a.verdict is False
    assert "this kernel misses its deadline: κ0 (a): C(2) = 45 > D = 40" in a.reason, a.reason
    assert "κ1" not in a.reason
    busy = Kernel(TableWCET((30,)), 40, 40, name="c")  # fits alone; three of them do not
    crowded = allocate(GPUWorkload((busy, busy, busy)), 1, heuristic)
    assert crowded.verdict is False and crowded.reason and "misses" not in crowded.reason
