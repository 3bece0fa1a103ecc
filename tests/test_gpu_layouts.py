"""GPU layout spaces (free, TPC masking, MIG placements) and co-runner interference (issue 20).

The exhaustive allocation is held to an independent brute force over every legal layout and every
assignment of kernels to its partitions (papers/zahaf2021-gpu-partitioning.md, "Partition
mechanisms" and "Interference by co-runner").
"""

from __future__ import annotations

import itertools
import json
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rtsched.analyses.gpu.partitioning import HEURISTICS, allocate, gpu_report, partition_verdict, recheck
from rtsched.cli import main
from rtsched.errors import InputError
from rtsched.gpu import GPUWorkload, Kernel, Slowdown, TableWCET, dumps_gpu, inflate_by, layouts, loads_gpu
from rtsched.gpu.layouts import MIG_TABLES, layout_space

F = Fraction
DEMO = Path(__file__).resolve().parents[1] / "examples" / "gpu" / "demo.yaml"


# -- layout spaces ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("sizes", "legal"),
    [
        pytest.param((7,), True, id="7g-whole-gpu"),
        pytest.param((4, 3), True, id="4g-at-0+3g-at-4"),
        pytest.param((3, 3), True, id="3g+3g-one-slice-idle"),
        pytest.param((3, 3, 1), False, id="3g+3g+1g-no-memory-slice-left"),
        pytest.param((4, 2, 1), True, id="4g+2g-at-4+1g-at-6"),
        pytest.param((3, 2, 2), True, id="2g-at-0+2g-at-2+3g-at-4"),
        pytest.param((2, 2, 2, 1), True, id="three-2g+1g-at-6"),
        pytest.param((4, 4), False, id="one-4g-only"),
        pytest.param((7, 1), False, id="7g-takes-everything"),
        pytest.param((5,), False, id="no-5g-profile"),
        pytest.param((1,) * 7, True, id="seven-1g"),
        pytest.param((2, 2, 2, 2), False, id="2g-starts-0-2-4-only"),
    ],
)
@pytest.mark.parametrize("table", sorted(MIG_TABLES))
def test_mig_placements_from_the_mig_user_guide(table, sizes, legal):
    # NVIDIA MIG User Guide, "Supported MIG Profiles" and `nvidia-smi mig -lgipp` placements.
    assert layout_space(f"mig:{table}", 7).legal(sizes) is legal


def test_mig_maximal_layouts_per_count():
    space = layout_space("mig:a100", 7)
    assert list(space.maximal(1)) == [(7,)]
    assert list(space.maximal(2)) == [(4, 3)]
    assert list(space.maximal(3)) == [(4, 2, 1), (3, 2, 2)]
    assert list(space.maximal(7)) == [(1,) * 7]
    assert space.sizes == (1, 2, 3, 4, 7)


@pytest.mark.parametrize("M", range(2, 9))
def test_free_and_tpc_spaces(M):
    free = layout_space("free", M)
    for K in range(1, M + 1):
        assert list(free.maximal(K)) == list(layouts(M, K))
    tpc = layout_space("tpc:2", M)
    assert tpc.sizes == tuple(sorted({*range(2, M + 1, 2), M}))  # and the whole GPU
    for K in range(1, M + 1):
        expected = [(M,)] if K == 1 else [tuple(2 * p for p in x) for x in layouts(M // 2, K)]
        assert list(tpc.maximal(K)) == expected
    assert layout_space("tpc:1", M).all_legal() == free.all_legal()


@pytest.mark.parametrize(("spec", "M"), [("free", 6), ("tpc:2", 7), ("tpc:3", 7), ("mig:a100", 7), ("mig:h100", 7)])
def test_layout_spaces_are_downward_closed(spec, M):
    # What the exhaustive search relies on: dropping a partition or shrinking one stays legal.
    space = layout_space(spec, M)
    for layout in space.all_legal():
        for j in range(len(layout)):
            rest = layout[:j] + layout[j + 1 :]
            assert not rest or space.legal(rest)
            for smaller in space.sizes:
                if smaller < layout[j]:
                    assert space.legal(tuple(sorted((*rest, smaller), reverse=True)))


@pytest.mark.parametrize(
    ("spec", "M", "message"),
    [
        ("mig:a100", 4, "M must be 7"),
        ("mig:b100", 7, "unknown MIG profile table"),
        ("tpc:0", 4, "unknown layout"),
        ("tpc:9", 4, "a TPC must hold"),
        ("slices", 4, "unknown layout"),
    ],
)
def test_bad_layouts_are_refused(spec, M, message):
    with pytest.raises(InputError, match=message):
        layout_space(spec, M)


# -- brute force ----------------------------------------------------------------------------------
@st.composite
def kernels(draw, max_clusters):
    T = draw(st.integers(4, 40))
    D = draw(st.integers(max(1, T // 2), T))
    table = [draw(st.integers(1, T * max(1, max_clusters // 2)))]  # may need several clusters
    for _ in range(draw(st.integers(0, max_clusters - 1))):
        table.append(draw(st.integers(max(1, table[-1] // 2), table[-1])))
    steps = draw(st.lists(st.integers(0, 5), min_size=max_clusters - 1, max_size=max_clusters - 1))
    worst = tuple(F(10 + sum(steps[:k]), 10) for k in range(1, max_clusters))
    klass = draw(st.sampled_from([None, "compute", "memory"]))
    rows: tuple[tuple[str, Slowdown], ...] = ()
    if draw(st.booleans()):  # a milder row against compute-bound co-runners: f − d, at least 1
        d = F(draw(st.integers(0, 6)), 10)
        rows = (("compute", Slowdown(tuple(max(F(1), f - d) for f in worst))),)
    return Kernel(TableWCET(tuple(table)), D, T, worst, None, draw(st.booleans()), None, klass, rows)


def spaces():
    return st.sampled_from([("free", 4), ("tpc:2", 5), ("mig:a100", 7)])


@st.composite
def cases(draw, max_kernels=4):
    spec, M = draw(spaces())
    ks = draw(st.lists(kernels(M), min_size=1, max_size=max_kernels))
    mode = draw(st.sampled_from(["co-runner", "count-only"]))
    return GPUWorkload(tuple(ks), M, layout=spec, interference=mode), M


def brute_force(w: GPUWorkload, M: int) -> bool:
    """Every legal layout, every assignment of kernels onto all its partitions, references only."""
    space = layout_space(w.layout, M)
    memo: dict[tuple[frozenset[int], int, int, int | None], object] = {}
    aware = w.interference == "co-runner" and any(k.slowdown_by for k in w.kernels)

    def passes(members: frozenset[int], size: int, K: int) -> bool:
        outside = [j for j in range(w.n) if j not in members]
        worst = max((w.class_index(j) for j in outside), default=0) if aware else None
        key = (members, size, K, worst)
        if key not in memo:
            rows, flags = [], []
            for i in sorted(members):
                k = w.kernels[i]
                c = inflate_by(k, size, k.corunner_factor(K - 1, worst, w.classes))
                if c is None:
                    memo[key] = False
                    return False
                rows.append((c, k.D, k.T))
                flags.append(not k.preemptive)
            memo[key] = partition_verdict(rows, flags, blocking=w.blocking, fast=False) is True
        return memo[key] is True

    for layout in space.all_legal():
        K = len(layout)
        if K > w.n:
            continue
        for assignment in itertools.product(range(K), repeat=w.n):
            blocks = [frozenset(i for i in range(w.n) if assignment[i] == p) for p in range(K)]
            if all(blocks) and all(passes(b, s, K) for b, s in zip(blocks, layout, strict=True)):
                return True
    return False


@settings(max_examples=100, deadline=None)
@given(cases())
def test_exhaustive_equals_the_brute_force_on_every_layout_space(case):
    w, M = case
    a = allocate(w, M, "exhaustive")
    assert (a.verdict is True) == brute_force(w, M)
    if a.verdict is True:
        assert layout_space(w.layout, M).legal(a.layout)
        assert recheck(w, a)


@settings(max_examples=40, deadline=None)
@given(cases(max_kernels=5), st.sampled_from(HEURISTICS))
def test_heuristics_are_sound_and_never_beat_the_exhaustive_optimum(case, h):
    w, M = case
    a = allocate(w, M, h)
    if a.verdict is True:
        assert recheck(w, a)
        assert allocate(w, M, "exhaustive").verdict is True
        assert layout_space(w.layout, M).legal(a.layout)


@settings(max_examples=30, deadline=None)
@given(cases(max_kernels=4), st.sampled_from(HEURISTICS))
def test_fast_path_equals_reference_path(case, h):
    w, M = case
    assert allocate(w, M, h) == allocate(w, M, h, fast=False)


@settings(max_examples=30, deadline=None)
@given(cases(max_kernels=4))
def test_coarser_layouts_never_accept_more(case):
    # Legal MIG and TPC layouts are free layouts too, so the free optimum dominates them.
    w, M = case
    if allocate(w, M, "exhaustive").verdict is True:
        assert allocate(w, M, "exhaustive", layout="free").verdict is True


# -- worked examples -------------------------------------------------------------------------------
def test_mig_granularity_costs_a_workload_the_free_split_accepts():
    # Two kernels needing 5 and 2 clusters: free 5+2 passes; MIG has no 5g, and 7g leaves nothing.
    big = Kernel(TableWCET((50, 25, 17, 13, 10, 9, 8)), 10, 10, (F(1),) * 6, None)
    small = Kernel(TableWCET((20, 10, 7, 5, 4, 4, 4)), 10, 10, (F(1),) * 6, None)
    w = GPUWorkload((big, small), 7)
    free = allocate(w, 7, "exhaustive")
    assert free.verdict is True and sorted(free.layout) == [2, 5]
    assert allocate(w, 7, "exhaustive", layout="mig:a100").verdict is False
    assert allocate(w, 7, "ffd", layout="mig:a100").verdict is False
    assert allocate(w, 7, "exhaustive", layout="tpc:2").verdict is False  # 5 SMs round up to 6; 6 + 2 > 7


def test_cli_gpu_presets_and_layouts(tmp_path, capsys):
    assert main(["gpu", str(DEMO), "--gpu", "a100-mig", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["clusters"] == 7 and d["layout_space"] == "mig:a100" and d["layout"] == [4, 3]
    assert main(["gpu", str(DEMO), "--layout", "tpc:2"]) == 0
    assert "layout 2+2 [tpc:2]" in capsys.readouterr().out
    assert main(["gpu", str(DEMO), "--layout", "mig:a100"]) == 2
    assert "M must be 7" in capsys.readouterr().err
    assert main(["gpu", str(DEMO), "--gpu", "b100"]) == 2
    assert "unknown GPU" in capsys.readouterr().err
    f = tmp_path / "mig.yaml"
    f.write_text(DEMO.read_text().replace("clusters: 4", "gpu: h100-mig"))
    assert main(["gpu", str(f), "--heuristic", "exhaustive", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["layout_space"] == "mig:h100" and d["clusters"] == 7


@pytest.mark.parametrize(
    ("text", "line", "field", "message"),
    [
        ("layout: mig:z9\nkernels: [{C: 1, D: 2, T: 2, slowdown: 1}]\n", 1, "layout", "unknown MIG profile table"),
        ("gpu: a100-mig\nclusters: 4\nkernels: [{C: 1, D: 2, T: 2, slowdown: 1}]\n", 2, "clusters", "disagrees"),
        ("gpu: x\nkernels: [{C: 1, D: 2, T: 2, slowdown: 1}]\n", 1, "gpu", "unknown GPU"),
        ("interference: some\nkernels: [{C: 1, D: 2, T: 2, slowdown: 1}]\n", 1, "interference", "interference must"),
        ("kernels:\n  - {C: 1, D: 2, T: 2, slowdown: 1, class: io}\n", 2, "class", "unknown class 'io'"),
        (
            "kernels:\n  - C: 1\n    D: 2\n    T: 2\n    slowdown: 1.2\n    slowdown_by: {compute: 1.5}\n",
            6,
            "slowdown_by.compute",
            "must not exceed the worst case",
        ),
        (
            "classes: [a, b, c]\nkernels:\n  - C: 1\n    D: 2\n    T: 2\n    slowdown: 2\n"
            "    slowdown_by:\n      a: 1.5\n      b: 1.25\n",
            8,
            "slowdown_by.a",
            "more interfering class 'b'",
        ),
        ("kernels:\n  - {C: 1, D: 2, T: 2, slowdown: 1, slowdown_by: 3}\n", 2, "slowdown_by", "co-runner rows"),
    ],
)
def test_file_errors_for_layouts_and_classes(text, line, field, message):
    with pytest.raises(InputError, match=message) as info:
        loads_gpu(text, source="w.yaml")
    assert (info.value.file, info.value.line, info.value.field) == ("w.yaml", line, field)


def test_round_trip_with_layout_classes_and_rows():
    text = (
        "layout: tpc:2\ninterference: count-only\nclasses: [light, heavy]\nkernels:\n"
        "  - {C: [9, 5], D: 10, T: 10, class: light, slowdown: [1.5, 2], slowdown_by: {light: [1.1, 1.2]}}\n"
    )
    w = loads_gpu(text)
    assert w.layout == "tpc:2" and w.interference == "count-only" and w.classes == ("light", "heavy")
    assert w.kernels[0].slowdown_by == (("light", Slowdown((F("1.1"), F("1.2")))),)
    assert loads_gpu(dumps_gpu(w)) == w
    assert loads_gpu(dumps_gpu(w, "json"), "json") == w
    assert "tpc:2" in str(gpu_report(w, 2, "exhaustive"))


def test_cli_says_when_co_runner_interference_has_no_rows(capsys):
    """``rtsched gpu --interference co-runner`` on a workload without per-class rows falls back
    to the count-only factors, and says so (its output only showed the count-only factors)."""
    from rtsched.cli import main

    demo = Path(__file__).resolve().parents[1] / "examples" / "gpu" / "demo.yaml"
    assert main(["gpu", str(demo), "--interference", "co-runner"]) in (0, 1)
    assert "no kernel has per-class slowdown rows" in capsys.readouterr().err
    assert main(["gpu", str(demo)]) in (0, 1)
    assert "slowdown rows" not in capsys.readouterr().err
