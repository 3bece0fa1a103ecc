"""The registry: lookup, errors, metadata of every entry."""

from pathlib import Path

import pytest

from rtsched import InputError, TaskSet, TaskSetBatch, analyses

ROOT = Path(__file__).resolve().parents[1]


def test_names_and_get():
    assert "gfb" in analyses.names()
    entry = analyses.get("gfb")
    assert entry.name == "gfb" and entry.kind == "sufficient"


def test_unknown_name_suggests_and_points_to_the_list():
    with pytest.raises(InputError, match="did you mean 'bcl-iter'"):
        analyses.get("bcl_iter")
    with pytest.raises(InputError, match="unknown analysis 'nope'; rtsched list"):
        analyses.get("nope")


@pytest.mark.parametrize("name", analyses.names())
def test_entry_metadata_and_signature(name):
    entry = analyses.get(name)
    assert entry.kind in ("exact", "sufficient", "necessary")
    assert entry.citation and entry.title
    assert (ROOT / entry.note).exists(), f"{name}: missing paper note {entry.note}"
    implicit_only = "constrained" not in entry.deadlines
    ts = TaskSet.from_tasks([(1, 4, 4), (2, 8, 8)] if implicit_only else [(1, 4, 4), (2, 6, 8)])
    m = 1 if entry.platform == "uniprocessor" else 2
    if entry.input != "taskset":  # GPU workloads, DAG task sets: not task sets
        assert entry.supports(m, ts) is not None
        return
    assert entry.supports(m, ts) is None
    result = entry.explain(ts, m)
    assert result.analysis == name and result.m == m
    codes = entry.decide(TaskSetBatch.from_tasksets([ts]), m)
    verdict = {1: True, 0: False, -1: "unknown"}[int(codes[0])]
    assert verdict == result.verdict == entry.reference(ts, m)


def test_batch_refuses_to_call_unknown_false():
    """A budget that runs out is never a rejection: batch raises, decide gives -1."""
    from rtsched import UnknownVerdictError

    entry = analyses.get("exact")
    hard = TaskSet.from_tasks([(3, 7, 7), (2, 5, 9), (4, 9, 11), (1, 3, 4), (5, 13, 13)])
    batch = TaskSetBatch.from_tasksets([hard])
    assert entry.status(batch, 2, budget=1).tolist() == [-1]
    assert entry.decide(batch, 2, budget=1).tolist() == [-1]
    with pytest.raises(UnknownVerdictError, match="use status"):
        entry.batch(batch, 2, budget=1)


def test_an_analysis_registered_after_a_check_joins_the_default_list(monkeypatch):
    """The plan of ``check()`` is cached per platform; it keys on the registry's generation, so an
    analysis registered after a first default ``check()`` runs in the next one (the documentation
    build found ``check()`` returning {} for a workload kind registered after the DAG guide's check)."""
    import numpy as np

    import rtsched
    from rtsched import registry
    from rtsched.result import Explanation

    monkeypatch.setattr(registry, "_entries", dict(registry._discover()))
    ts = rtsched.TaskSet.from_tasks([(1, 4, 5), (2, 7, 9)])
    assert "probe-late" not in rtsched.check(ts, 2).verdicts

    def codes(batch, m):
        return np.ones(batch.n_sets, dtype=np.int8)

    registry.register(
        registry.Analysis(
            name="probe-late", title="late", kind="sufficient", policy="global-edf", citation="-", note="-",
            reference=lambda ts, m: True, explain=lambda ts, m: Explanation(verdict=True, summary=""), codes=codes,
        )
    )
    assert rtsched.check(ts, 2).verdicts["probe-late"] is True
