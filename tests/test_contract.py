"""The analysis contract (rtsched/registry.py): every analysis through one set of derived methods.

- the single-set path (`verdict`, what `check()` calls), the batch path (`status`), `check_many`
  and the exact `reference` agree on every set;
- budgets have one name, give "unknown" (never False), and `batch` refuses to read "unknown" as
  False;
- platforms are typed values that `supports` interprets (clustered analyses run through
  `check()`); the default list says why an analysis was left out;
- analyses define no wrapper the registry derives (the import rules: tests/test_layers.py).
"""

from __future__ import annotations

import ast
import re
import zlib
from pathlib import Path

import numba
import numpy as np
import pytest

import rtsched
from rtsched import registry
from rtsched.check import check_many
from rtsched.errors import InputError, UnknownVerdictError
from rtsched.model import TaskSet, TaskSetBatch
from rtsched.platform import GPU, Clustered, Identical

ROOT = Path(__file__).resolve().parents[1]


def small_sets(count: int, seed: int, n_max: int = 5, t_max: int = 20) -> list[TaskSet]:
    rng = np.random.default_rng(seed)
    sets = []
    for _ in range(count):
        n = int(rng.integers(1, n_max + 1))
        T = rng.integers(2, t_max + 1, size=n)
        D = np.array([rng.integers(1, t + 1) for t in T])
        C = np.array([rng.integers(1, d + 1) for d in D])
        sets.append(TaskSet(C, D, T))
    return sets


TASKSET_ANALYSES = [e.name for e in registry.all_entries() if e.input == "taskset"] + [
    "p:ff:deadline:dbfstar",
    "p:bf:utilization:density",
]


@pytest.mark.parametrize("name", TASKSET_ANALYSES)
def test_single_set_batch_and_reference_agree(name: str) -> None:
    entry = registry.get(name)
    m = 1 if entry.platform == "uniprocessor" else 2
    sets = [ts for ts in small_sets(40, seed=zlib.crc32(name.encode()) % 1000) if entry.supports(m, ts) is None]
    batch = TaskSetBatch.from_tasksets(sets)
    codes = entry.status(batch, m)
    assert codes.dtype == np.int8 and set(codes.tolist()) <= {1, 0, -1}
    as_verdict = {1: True, 0: False, -1: "unknown"}
    for ts, code in zip(sets, codes.tolist(), strict=True):
        assert entry.verdict(ts, m) == as_verdict[code], (name, ts.rows())
        reference = entry.reference(ts, m)
        if reference != "unknown" and code != -1:
            assert reference == as_verdict[code], (name, ts.rows())
    reports = check_many(sets, m, tests=[name])
    assert [r.verdicts[name] for r in reports] == [as_verdict[c] for c in codes.tolist()]


@pytest.mark.parametrize("name", TASKSET_ANALYSES[:6])
def test_explain_is_stamped_by_the_registry(name: str) -> None:
    entry = registry.get(name)
    ts = TaskSet.from_tasks([(1, 4, 5), (2, 7, 9), (3, 10, 12)])
    result = entry.explain(ts, 2)
    assert (result.analysis, result.kind, result.m, result.policy) == (entry.name, entry.kind, 2, entry.policy)
    assert result.verdict == entry.verdict(ts, 2)
    lazy = rtsched.check(ts, 2, tests=[name])[name]
    assert lazy.policy == entry.policy and lazy.to_dict()["policy"] == entry.policy


def test_check_decides_like_check_many_on_the_default_list() -> None:
    sets = small_sets(30, seed=5, n_max=6)
    many = check_many(sets, 2)
    for ts, report in zip(sets, many, strict=True):
        one = rtsched.check(ts, 2)
        assert one.verdicts == report.verdicts
        assert dict(one.skipped) == dict(report.skipped)


# -- budgets ---------------------------------------------------------------------------------------
HARD = [(2, 9, 16), (4, 5, 18), (4, 12, 20), (2, 4, 13), (1, 5, 6)]


def test_one_budget_name_gives_unknown_never_false() -> None:
    ts = TaskSet.from_tasks(HARD)
    entry = registry.get("exact")
    assert entry.budget is not None and entry.budget_unit
    assert entry.verdict(ts, 2, budget=1) == "unknown"
    assert rtsched.check(ts, 2, tests=["exact"], budget={"exact": 1}).verdicts == {"exact": "unknown"}
    assert rtsched.check(ts, 2, tests=["exact"], budget=1).verdicts == {"exact": "unknown"}
    assert rtsched.check(ts, 2, tests=["exact"], budget="exact=1").verdicts == {"exact": "unknown"}
    batch = TaskSetBatch.from_tasksets([ts])
    assert entry.status(batch, 2, budget=1).tolist() == [-1]
    with pytest.raises(UnknownVerdictError, match="budget"):
        entry.batch(batch, 2, budget=1)


def test_budget_errors_are_input_errors() -> None:
    ts = TaskSet.from_tasks(HARD)
    with pytest.raises(InputError, match="no work budget"):
        registry.get("gfb").verdict(ts, 2, budget=10)
    with pytest.raises(InputError, match="positive integer"):
        registry.get("exact").verdict(ts, 2, budget=0)
    with pytest.raises(InputError, match="not run"):
        rtsched.check(ts, 2, tests=["gfb"], budget={"exact": 10})


def test_every_budget_is_called_budget() -> None:
    """No analysis module keeps a second name for its verdict budget."""
    paths = sorted((ROOT / "analyses").rglob("*.py"))
    assert len(paths) > 30  # every module, in every family folder
    for path in paths:
        text = path.read_text(encoding="utf-8")
        for old in ("max_steps", "max_rounds", "max_states", "max_transitions", "max_layouts"):
            assert old not in text, f"{path.name} still says {old}"


def test_exact_left_out_of_the_default_list_on_large_sets_with_a_reason() -> None:
    big = TaskSet.from_tasks([(1, 10 + i, 10 + i) for i in range(30)])
    report = rtsched.check(big, 4)
    assert "exact" not in report.verdicts and "exact" in report.skipped
    assert report.skipped["exact"]
    small = TaskSet.from_tasks([(1, 3, 3), (1, 3, 3)])
    assert "exact" in rtsched.check(small, 2).verdicts
    assert "exact" in rtsched.check(big, 4, tests=["exact"], budget=10).verdicts  # named: it runs


# -- platforms --------------------------------------------------------------------------------------
def test_platforms_are_typed_values() -> None:
    gfb = registry.get("gfb")
    assert gfb.supports(Identical(4)) is None and gfb.supports(4) is None
    assert "GPU" in (gfb.supports(GPU(4)) or "")
    assert registry.get("uni-qpa").supports(Identical(2)) is not None
    assert registry.get("uni-qpa").supports(Identical(1)) is None
    with pytest.raises(InputError):
        Clustered(4, 3)
    with pytest.raises(InputError):
        Identical(0)


def test_clustered_analysis_runs_through_check() -> None:
    ts = TaskSet.from_tasks([(1, 9, 9), (1, 9, 9), (10, 10, 10), (2, 10, 10)])
    report = rtsched.check(ts, 4, tests=["clustered:k=2"])
    assert "clustered:k=2" in report.verdicts and not report.skipped
    on_clusters = rtsched.check(ts, Clustered(4, 2))
    assert "clustered:k=2" in on_clusters.verdicts
    assert on_clusters.verdicts["clustered:k=2"] == report.verdicts["clustered:k=2"]


def test_gpu_analyses_take_the_size_from_the_platform() -> None:
    names = [e.name for e in registry.all_entries() if e.platform == "gpu"]
    for name in names:
        assert not any(part.isdigit() for part in name.split(":")), name
        entry = registry.get(name)
        assert entry.supports(GPU(4)) is None and entry.supports(Identical(4)) is not None


# -- threads -----------------------------------------------------------------------------------------
def test_small_batches_run_on_the_calling_thread_and_restore_the_pool() -> None:
    before = numba.get_num_threads()
    entry = registry.get("gfb")
    sets = small_sets(10, seed=1)
    entry.status(TaskSetBatch.from_tasksets(sets), 2)
    assert numba.get_num_threads() == before


# -- structure ---------------------------------------------------------------------------------------
# The import rules (analyses do not import each other, the core reaches them only through the
# registry) are import-linter contracts: .importlinter, checked by tests/test_layers.py.
#: The analysis modules: analyses/<family>/<module>.py, but the shared theory and private modules.
PUBLIC_ANALYSES = sorted(
    f"{p.parent.name}/{p.stem}"
    for p in (ROOT / "analyses").glob("*/*.py")
    if not p.stem.startswith("_") and p.parent.name != "theory"
)


def test_modules_declare_no_wrappers_the_registry_derives() -> None:
    assert PUBLIC_ANALYSES  # the analyses are found where they are
    for name in PUBLIC_ANALYSES:
        text = (ROOT / "analyses" / f"{name}.py").read_text(encoding="utf-8")
        tree = ast.parse(text)
        defs = {node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)}
        assert not [d for d in defs if d.endswith(("_status", "_batch"))], f"{name}: {sorted(defs)}"
        for node in ast.walk(tree):  # the registry validates m for what it calls
            if isinstance(node, ast.FunctionDef) and node.name.startswith(("explain", "reference")):
                called = {c.func.id for c in ast.walk(node) if isinstance(c, ast.Call) and isinstance(c.func, ast.Name)}
                assert "check_processors" not in called, f"{name}.{node.name} validates m itself"
        assert not re.search(r"\bResult\(", text), f"{name} builds a Result (return an Explanation)"
