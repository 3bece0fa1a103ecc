"""Interference by co-runner (issue 20): memory-intensity classes and slowdown rows f(k | c), and the
``count-only`` model that reproduces rtsched's original f(k) model exactly
(papers/zahaf2021-gpu-partitioning.md, Eq. (I'), assumption A4')."""

from __future__ import annotations

import dataclasses
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rtsched.analyses.gpu.partitioning import HEURISTICS, allocate, gpu_report, recheck
from rtsched.errors import InputError
from rtsched.generators.gpu import GPUWorkloadSpec, generate_gpu_workloads
from rtsched.gpu import GPUWorkload, Kernel, Slowdown, TableWCET

F = Fraction

#: Verdicts (1 accepted, 0 not) of gpu:single, ffd, bfd, exhaustive on 60 generated workloads,
#: computed by rtsched before issue 20 (main at 5706aaa) with the script of _golden_workloads.
GOLDEN = (
    "111111111111111111111111111111111111111111111111111111111111111111111111111111110111000000000111"
    "111100001111111101110000011101110000000011110111011101111111011101110000000001110111000001110000"
    "000000000000011100000000011100000111000011110000"
)


def _golden_workloads(**extra):
    out = []
    for U1, share in ((1.5, 0.0), (2.5, 0.3), (2.9, 0.0)):
        spec = GPUWorkloadSpec(n=5, clusters=4, U1=U1, nonpreemptive=share, contention=(0.0, 0.4), **extra)
        out += generate_gpu_workloads(np.random.default_rng(20), spec, 20)
    return out


def _codes(workloads, **options):
    return "".join(
        "1" if allocate(w, 4, h, **options).verdict is True else "0"
        for w in workloads
        for h in ("single", "ffd", "bfd", "exhaustive")
    )


def test_count_only_reproduces_the_verdicts_before_issue_20():
    workloads = _golden_workloads()
    assert _codes(workloads) == GOLDEN
    assert _codes(workloads, interference="count-only") == GOLDEN


def test_count_only_ignores_classes_and_rows():
    # The same draws with classes and co-runner rows added (drawn after the rest of each workload).
    plain, rich = _golden_workloads(), _golden_workloads(memory_share=0.5)
    for a, b in zip(plain, rich, strict=True):
        assert [k.wcet for k in a.kernels] == [k.wcet for k in b.kernels]
        assert [k.slowdown for k in a.kernels] == [k.slowdown for k in b.kernels]
    assert any(k.slowdown_by for w in rich for k in w.kernels)
    assert _codes(rich, interference="count-only") == GOLDEN


def _pair(class0, class1):
    # C(1) = 8, C(2) = 6, D = T = 10; worst case f(1) = 1.5, beside compute-bound co-runners 1.1.
    rows = (("compute", Slowdown((F("1.1"),))),)
    return GPUWorkload(
        tuple(Kernel(TableWCET((8, 6)), 10, 10, (F("1.5"),), None, True, None, c, rows) for c in (class0, class1)), 2
    )


def test_co_runner_aware_factors_accept_what_the_count_only_model_rejects():
    w = _pair("compute", "compute")
    # Count-only: 1+1 gives C' = ⌈8·1.5⌉ = 12 > 10; one partition of 2: U = 12/10 > 1.
    assert allocate(w, 2, "exhaustive", interference="count-only").verdict is False
    # Co-runner: each kernel's co-runner is compute-bound: C' = ⌈8·1.1⌉ = 9 ≤ 10.
    for h in ("ffd", "bfd", "exhaustive"):
        a = allocate(w, 2, h)
        assert a.verdict is True and a.layout == (1, 1) and a.interference == "co-runner"
        assert [p.wcets for p in a.partitions] == [(9,), (9,)]
        assert recheck(w, a)
    report = gpu_report(w, 2, "ffd").to_dict()
    assert [k["f"] for k in report["kernels"]] == ["11/10", "11/10"]


@pytest.mark.parametrize("classes", [("compute", "memory"), ("compute", None)])
def test_a_memory_bound_or_unclassified_co_runner_is_the_worst_case(classes):
    # Kernel 0 runs beside kernel 1, memory-bound (or of unknown class: assumed the worst).
    w = _pair(*classes)
    assert allocate(w, 2, "exhaustive").verdict is False


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10**6), st.sampled_from(["free", "tpc:2", "mig:a100"]), st.sampled_from([0.0, 0.5, 1.0]))
def test_co_runner_aware_optimum_accepts_everything_the_count_only_optimum_does(seed, layout, share):
    spec = GPUWorkloadSpec(n=4, clusters=7, U1=3.0, contention=(0.1, 0.5), layout=layout, memory_share=share)
    (w,) = generate_gpu_workloads(np.random.default_rng(seed), spec, 1)
    aware = allocate(w, 7, "exhaustive")
    if allocate(w, 7, "exhaustive", interference="count-only").verdict is True:
        assert aware.verdict is True
    for h in HEURISTICS:
        a = allocate(w, 7, h)
        assert a.verdict is not True or recheck(w, a)


def test_generator_classes_and_rows():
    spec = GPUWorkloadSpec(n=6, clusters=4, U1=2.0, memory_share=0.5, compute_relief=(0.5, 0.5))
    ws = generate_gpu_workloads(np.random.default_rng(1), spec, 30)
    assert ws == generate_gpu_workloads(np.random.default_rng(1), spec, 30)
    kinds = [k.klass for w in ws for k in w.kernels]
    assert set(kinds) == {"compute", "memory"} and 0.3 < kinds.count("memory") / len(kinds) < 0.7
    for w in ws:
        for k in w.kernels:
            ((name, row),) = k.slowdown_by
            assert name == "compute"
            # f(k | compute) − 1 = (f(k) − 1) / 2 exactly with r = 1/2.
            assert [f - 1 for f in row.factors] == [(f - 1) / 2 for f in k.slowdown]


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"memory_share": 1.5}, "memory_share"),
        ({"compute_relief": (0.5, 2.0)}, "compute_relief"),
        ({"layout": "mig:a100"}, "clusters"),  # MIG needs M = 7
        ({"interference": "pairwise"}, "interference"),
    ],
)
def test_generator_rejects_bad_interference_parameters(change, field):
    spec = dataclasses.replace(GPUWorkloadSpec(n=3, clusters=4, memory_share=0.5), **change)
    with pytest.raises(InputError) as info:
        generate_gpu_workloads(np.random.default_rng(0), spec, 2)
    assert info.value.field == field
