"""``check`` before the kernels are compiled: small inputs are decided by the exact references.

On a machine that never compiled rtsched's kernels, ``rtsched check`` of one set spent about 80 s
compiling; the references answer in milliseconds (rtsched/check.py, "First run"). These tests
hold the cold path to the kernels' verdicts and evidence, and check that it really avoids them.
"""

from __future__ import annotations

import importlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rtsched
from rtsched import TaskSet, warmup
from rtsched.check import check_many
from rtsched.testing import strategies as rst

check_module = importlib.import_module("rtsched.check")  # the module (rtsched.check is the function)


@pytest.fixture
def cold(monkeypatch):
    """Make every analysis look not compiled (and this process's ski-rental account empty)."""
    monkeypatch.setattr(warmup, "is_compiled", lambda name: False)
    monkeypatch.setattr(check_module, "_COLD_SECONDS", {})
    monkeypatch.setattr(check_module, "_KERNEL_USED", set())


def one_set_kernel_calls(monkeypatch) -> list[str]:
    """The names of the analyses whose one-set kernel path ``check`` takes from now on, in order."""
    from rtsched.registry import Analysis

    called: list[str] = []
    real_one = Analysis._decide_one

    def one(self, *args):
        called.append(self.name)
        return real_one(self, *args)

    monkeypatch.setattr(Analysis, "_decide_one", one)
    return called


def _warm_and_cold(run):
    """``run()`` with every analysis looking compiled, then with none looking compiled."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(warmup, "is_compiled", lambda name: True)
        patch.setattr(warmup, "LOAD_SECONDS", 0.0)  # warm: the kernels, not the references
        warm = run()
        patch.setattr(warmup, "is_compiled", lambda name: False)
        patch.setattr(check_module, "_COLD_SECONDS", {})
        patch.setattr(check_module, "_KERNEL_USED", set())
        return warm, run()


@settings(max_examples=25, deadline=None)
@given(ts=rst.tasksets(max_size=6, max_period=40), m=st.integers(1, 3))
def test_cold_verdicts_and_evidence_equal_the_kernels(ts, m):
    def run():
        report = rtsched.check(ts, m)
        return report.verdicts, dict(report.skipped), [r.evidence for r in report]  # p-edf's packing included

    warm, cold = _warm_and_cold(run)
    assert cold == warm


@settings(max_examples=10, deadline=None)
@given(sets=st.lists(rst.tasksets(max_size=5, max_period=30), min_size=1, max_size=4), m=st.integers(1, 3))
def test_cold_check_many_equals_the_kernels(sets, m):
    warm, cold = _warm_and_cold(lambda: [r.verdicts for r in check_many(sets, m)])
    assert cold == warm


def test_cold_small_sets_do_not_touch_the_sufficient_kernels(cold, monkeypatch):
    from rtsched.registry import Analysis

    called: list[str] = []
    real_one, real_batch = Analysis._decide_one, Analysis._decide_batch

    def one(self, *args):
        called.append(self.name)
        return real_one(self, *args)

    def batch(self, *args):
        called.append(self.name)
        return real_batch(self, *args)

    monkeypatch.setattr(Analysis, "_decide_one", one)
    monkeypatch.setattr(Analysis, "_decide_batch", batch)
    ts = TaskSet.from_tasks([(1, 4, 5), (2, 7, 9), (3, 10, 12), (2, 9, 15)])
    report = rtsched.check(ts, 2)
    kinds = {r.analysis: r.kind for r in report}
    assert called and all(kinds[name] != "sufficient" for name in called)  # gedf-upper, exact: kernels
    assert any(kind == "sufficient" for kind in kinds.values())
    called.clear()
    check_many([ts, ts], 2)
    assert all(kinds[name] != "sufficient" for name in called)
    called.clear()
    big = TaskSet.from_tasks([(1, 40, 40)] * (warmup.COLD_MAX_TASKS + 1))
    rtsched.check(big, 2, tests="gfb")
    assert called == ["gfb"]  # beyond the size rule: the kernel


def test_a_reference_unknown_is_decided_by_the_kernel(cold, monkeypatch):
    from rtsched import analyses

    entry = analyses.get("bcl-iter")
    monkeypatch.setattr(entry, "_reference", lambda *args: "unknown")
    ts = TaskSet.from_tasks([(1, 4, 5), (2, 7, 9), (3, 10, 12)])
    assert rtsched.check(ts, 2, tests="bcl-iter").verdicts == {"bcl-iter": entry.verdict(ts, 2)}
    assert check_many([ts], 2, tests="bcl-iter")[0].verdicts == {"bcl-iter": entry.verdict(ts, 2)}


def test_ski_rental_switches_to_the_kernel_and_remembers(monkeypatch, tmp_path):
    """A script checking set after set on a cold machine: once the reference time of an analysis
    reaches its compile time, its kernel is used, and a marker tells later processes (here: an
    empty account) that the kernel only needs loading: they pay the load time, not the compile time,
    in references first; check and check_many keep separate markers."""

    monkeypatch.setattr(warmup, "_marker_dir", lambda: tmp_path / "compiled")
    monkeypatch.setattr(warmup, "compile_seconds", lambda name: 1e-9)  # any reference time exceeds it
    monkeypatch.setattr(warmup, "LOAD_SECONDS", 1e-9)
    monkeypatch.setattr(check_module, "_COLD_SECONDS", {})
    monkeypatch.setattr(check_module, "_KERNEL_USED", set())
    called = one_set_kernel_calls(monkeypatch)
    ts = TaskSet.from_tasks([(1, 4, 5), (2, 7, 9), (3, 10, 12), (2, 9, 15)])
    first = rtsched.check(ts, 2, tests="gfb")
    assert called == [] and not warmup.is_compiled("one:gfb")  # the reference, charged
    second = rtsched.check(ts, 2, tests="gfb")
    assert called == ["gfb"] and warmup.is_compiled("one:gfb") and not warmup.is_compiled("batch:gfb")
    assert first.verdicts == second.verdicts
    monkeypatch.setattr(check_module, "_COLD_SECONDS", {})  # a new process
    monkeypatch.setattr(check_module, "_KERNEL_USED", set())
    monkeypatch.setattr(warmup, "compile_seconds", lambda name: 1e9)
    rtsched.check(ts, 2, tests="gfb")
    assert called == ["gfb"]  # the reference first, charged to the load time ...
    rtsched.check(ts, 2, tests="gfb")
    assert called == ["gfb", "gfb"]  # ... which the marker made the account (not 1e9 s of compiling)
    assert not warmup.is_compiled("gfb")  # the sweep's own marker is untouched


def test_compiled_kernels_are_not_loaded_for_one_small_set(monkeypatch):
    """Issue #45: with every kernel compiled, ``rtsched check`` of one 5-task set spent 2.2 of its
    2.65 s loading 25 kernels (about 0.09 s each) whose references decide it in under 1 ms. Now the
    references decide it until this process has spent ``LOAD_SECONDS`` in one of them; the verdicts
    are the kernels'. ``gedf-upper`` (necessary: a simulation) joins them where its window is short
    and the exact test is not run (``quick_reference``)."""

    monkeypatch.setattr(warmup, "is_compiled", lambda name: True)
    monkeypatch.setattr(check_module, "_COLD_SECONDS", {})
    monkeypatch.setattr(check_module, "_KERNEL_USED", set())
    called = one_set_kernel_calls(monkeypatch)
    ts = TaskSet.from_tasks([(2, 5, 5), (1, 4, 6), (3, 9, 10), (4, 12, 15), (3, 14, 20)])
    report = rtsched.check(ts, 2)
    assert "gedf-upper" in report.verdicts and "exact" in report.skipped
    assert called == []  # no kernel loaded, gedf-upper included
    for name, verdict in report.verdicts.items():
        assert verdict == rtsched.registry.get(name).verdict(ts, 2), name
    monkeypatch.setattr(warmup, "LOAD_SECONDS", 0.0)  # a process that spent the load time already
    monkeypatch.setattr(check_module, "_COLD_SECONDS", {})
    assert rtsched.check(ts, 2).verdicts == report.verdicts
    assert "gedf-upper" in called and "gfb" in called


@given(ts=rst.tasksets(max_size=6, max_period=40), m=st.integers(1, 3))
@settings(max_examples=40, deadline=None)
def test_gedf_upper_quick_reference_equals_its_kernel(ts, m):
    """Where ``gedf-upper`` says its reference is quick, that reference is its kernel's verdict."""
    entry = rtsched.registry.get("gedf-upper")
    if entry.quick_reference(ts, m):
        assert entry.reference(ts, m) == entry.verdict(ts, m)


def test_a_used_kernel_is_not_looked_up_again(monkeypatch, tmp_path):
    """Once this process has used an analysis's kernel, ``check`` and ``check_many`` decide by it
    without looking at the cache's markers again: a file check per analysis and set tripled the
    cost of ``check()`` on warm kernels (165 µs per set against 23, ``benchmarks/bench_check.py``)."""
    monkeypatch.setattr(warmup, "_marker_dir", lambda: tmp_path / "compiled")
    monkeypatch.setattr(warmup, "LOAD_SECONDS", 0.0)  # the load time is spent: kernels are used
    monkeypatch.setattr(check_module, "_COLD_SECONDS", {})
    monkeypatch.setattr(check_module, "_KERNEL_USED", set())
    real = warmup.is_compiled
    looked: list[str] = []

    def is_compiled(name):
        looked.append(name)
        return real(name)

    monkeypatch.setattr(warmup, "is_compiled", is_compiled)
    warmup.mark("gfb")
    warmup.mark("bak")
    ts = TaskSet.from_tasks([(1, 4, 5), (2, 7, 9), (3, 10, 12), (2, 9, 15)])
    first = rtsched.check(ts, 2, tests="gfb,bak")
    check_many([ts], 2, tests="gfb,bak")
    assert looked  # the first call of each path asks the cache
    looked.clear()
    for _ in range(3):
        assert rtsched.check(ts, 2, tests="gfb,bak").verdicts == first.verdicts
        assert check_many([ts, ts], 2, tests="gfb,bak")[1].verdicts == first.verdicts
    assert looked == []


def test_partitioned_edf_explanations_of_a_small_set_do_not_load_the_packing_kernel(monkeypatch):
    """With every kernel in the cache, printing one small set's report loaded p-edf's prange
    packing kernel (0.3–0.5 s, most of ``rtsched check examples/tasksets/demo.yaml``) to explain
    p-edf, baruah-fisher and p:wf:density:qpa, which the reference packs in milliseconds. Now the
    reference packs them until the process has spent ``LOAD_SECONDS`` on it (or while the kernel
    is not compiled); the explanations are the kernel path's."""
    from rtsched.analyses.partitioned import partitioned_edf

    ts = TaskSet.from_tasks([(2, 5, 5), (1, 4, 6), (3, 9, 10), (4, 12, 15), (3, 14, 20)])
    runs: list[int] = []
    real_run = partitioned_edf._run

    def run(*args, **kwargs):
        runs.append(1)
        return real_run(*args, **kwargs)

    monkeypatch.setattr(partitioned_edf, "_run", run)
    monkeypatch.setattr(warmup, "is_compiled", lambda name: True)
    monkeypatch.setattr(partitioned_edf, "_kernel_loaded", lambda: False)
    monkeypatch.setattr(partitioned_edf, "_reference_seconds", [0.0])
    names = ["p-edf", "baruah-fisher", "p:wf:density:qpa"]
    by_reference = [rtsched.registry.get(name).explain(ts, 2) for name in names]
    assert runs == [] and partitioned_edf._reference_seconds[0] > 0.0
    monkeypatch.setattr(warmup, "LOAD_SECONDS", 0.0)  # the account spent: the kernel packs
    by_kernel = [rtsched.registry.get(name).explain(ts, 2) for name in names]
    assert len(runs) == len(names)
    for a, b in zip(by_reference, by_kernel, strict=True):
        assert (a.verdict, a.summary, a.per_task, a.evidence) == (b.verdict, b.summary, b.per_task, b.evidence)
    monkeypatch.setattr(warmup, "is_compiled", lambda name: False)  # not compiled: the reference again
    runs.clear()
    rtsched.registry.get("p-edf").explain(ts, 2)
    assert runs == []
