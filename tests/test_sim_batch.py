"""The simulator's fast paths (issue #45 item 4): packed kernel arguments, ``simulate_batch``, a fixed trace corpus.

* ``simulate_batch(sets, m, seeds=...)[s]`` equals ``simulate(sets[s], m, seed=seeds[s],
  record=False)`` (jobs, end time, first miss, ``repeats_at``, summary line) under both global
  policies, periodic and sporadic arrivals, WCET and random execution, every tie rule, given and
  default horizons, ``D <= T`` and ``D > T``;
* the compiled seeding (``pcg64_seed``) gives the PCG64 state NumPy's ``SeedSequence`` gives;
* a corpus of 600 runs (every policy, periodic, sporadic and explicit arrivals, WCET and random
  execution, the tie rules and explicit tie choices, recorded and unrecorded, both ``after_miss``
  modes, ``D > T``) gives the traces of commit ce3f8ec, the simulator before the fast paths:
  tests/data/sim_corpus_digests.json holds a SHA-256 of each run's ``Trace.to_dict()`` and summary
  line, made with that commit's code (papers/simulator.md, "Performance").
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from rtsched.errors import InputError
from rtsched.model import TaskSet
from rtsched.sim import Trace, simulate, simulate_batch
from rtsched.sim.engine import pcg64_seed
from rtsched.sim.run import EXECUTION_STREAM

CORPUS = Path(__file__).parent / "data" / "sim_corpus_digests.json"
CORPUS_RUNS = 600


def corpus_case(rng: np.random.Generator) -> tuple[TaskSet, int, dict[str, Any]]:
    """One generated run of the corpus: a small set, ``m`` and the keyword arguments of ``simulate``."""
    n = int(rng.integers(1, 7))
    m = int(rng.integers(1, 4))
    if rng.random() < 0.6:  # harmonic-ish periods: many equal deadlines (ties)
        T = rng.choice([4, 5, 6, 8, 10, 12, 15, 20, 24, 30], size=n)
    else:
        T = rng.integers(3, 40, size=n)
    C = np.array([int(rng.integers(1, t + 1)) for t in T])
    arbitrary = rng.random() < 0.3
    D = np.array([int(rng.integers(c, (2 * t if arbitrary else t) + 1)) for c, t in zip(C, T, strict=True)])
    ts = TaskSet(C, D, T, deadlines="arbitrary" if arbitrary else "constrained")
    policy = str(rng.choice(["gedf", "gedf", "pedf", "gfp", "pfp"]))
    kw: dict[str, Any] = {"policy": policy}
    if policy in ("pedf", "pfp"):
        kw["partition"] = [int(x) for x in rng.integers(0, m, size=n)]
    arrivals = str(rng.choice(["periodic", "sporadic", "explicit"], p=[0.5, 0.35, 0.15]))
    if arrivals == "explicit":
        releases = []
        for t in T:
            x, times = int(rng.integers(0, 5)), []
            for _ in range(int(rng.integers(0, 6))):
                times.append(x)
                x += int(t) + int(rng.integers(0, 4))
            releases.append(times)
        kw["releases"] = releases
    else:
        kw["arrivals"] = arrivals
    if arrivals == "sporadic":
        kw["p_delay"] = float(rng.choice([0.0, 0.3, 0.5, 1.0]))
        if rng.random() < 0.3:
            kw["max_extra"] = [int(x) for x in rng.integers(0, 5, size=n)]
    kw["seed"] = int(rng.integers(0, 50))
    if rng.random() < 0.5:
        kw["horizon"] = int(rng.integers(1, 300))
    kw["execution"] = "random" if rng.random() < 0.3 else "wcet"
    kw["after_miss"] = "continue" if rng.random() < 0.1 else "stop"
    if policy in ("gedf", "pedf"):
        if kw["after_miss"] == "stop":
            kw["ties"] = str(rng.choice(["index", "fifo", f"random:{int(rng.integers(0, 5))}", "random"]))
            if rng.random() < 0.1:
                times = sorted(set(rng.integers(0, 60, size=3).tolist()))
                kw["tie_choices"] = [(int(t), [int(rng.integers(0, n))]) for t in times]
        else:
            kw["ties"] = str(rng.choice(["index", "fifo"]))
    kw["record"] = bool(rng.random() < 0.5)
    return ts, m, kw


def digest(trace: Trace) -> str:
    """SHA-256 of a trace's ``to_dict()`` and summary line."""
    data = trace.to_dict()
    data["summary"] = str(trace)
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()


def corpus_digests() -> list[str]:
    """The digests of the corpus runs with the simulator under test (the recorded ones also unrecorded)."""
    rng = np.random.default_rng(2545)
    out = []
    for _ in range(CORPUS_RUNS):
        ts, m, kw = corpus_case(rng)
        out.append(digest(simulate(ts, m, **kw)))
        if kw["record"]:
            out.append(digest(simulate(ts, m, **{**kw, "record": False})))
    return out


def test_corpus_traces_unchanged() -> None:
    """Every corpus trace equals the one the simulator of ce3f8ec gave (recorded and unrecorded)."""
    expected = json.loads(CORPUS.read_text())
    got = corpus_digests()
    assert len(got) == len(expected["digests"])
    changed = [i for i, (a, b) in enumerate(zip(got, expected["digests"], strict=True)) if a != b]
    assert not changed, f"{len(changed)} corpus traces changed, first at row {changed[0]}"


def batch_sets(rng: np.random.Generator, count: int, arbitrary: bool) -> list[TaskSet]:
    """Small random sets (a quarter with ``D > T`` when ``arbitrary``), utilisation up to about m."""
    out = []
    for _ in range(count):
        n = int(rng.integers(1, 8))
        T = rng.choice([5, 6, 8, 10, 12, 15, 20, 30], size=n)
        C = np.array([int(rng.integers(1, t + 1)) for t in T])
        D = np.array(
            [
                int(rng.integers(c, (2 * t if arbitrary and rng.random() < 0.25 else t) + 1))
                for c, t in zip(C, T, strict=True)
            ]
        )
        out.append(TaskSet(C, D, T, deadlines="arbitrary"))
    return out


def same_run(a: Trace, b: Trace) -> bool:
    """Two unrecorded traces agree (outcome, counts, summary)."""
    return a.to_dict() == b.to_dict() and str(a) == str(b) and a.repeats_at == b.repeats_at


@pytest.mark.parametrize("policy", ["gedf", "gfp"])
@pytest.mark.parametrize("arrivals", ["periodic", "sporadic"])
@pytest.mark.parametrize("execution", ["wcet", "random"])
@pytest.mark.parametrize("horizon", [None, 97])
def test_batch_equals_one_call(policy: str, arrivals: str, execution: str, horizon: int | None) -> None:
    """``simulate_batch`` gives each set the trace of its own unrecorded ``simulate`` call."""
    rng = np.random.default_rng(hash((policy, arrivals, execution, horizon)) % 2**32)
    sets = batch_sets(rng, 40, arbitrary=True)
    seeds = [int(s) for s in rng.integers(0, 10**6, size=len(sets))]
    for ties in ["index"] if policy == "gfp" else ["index", "fifo", "random:3"]:
        kw: dict[str, Any] = {"policy": policy, "arrivals": arrivals, "execution": execution, "ties": ties}
        got = simulate_batch(sets, 3, seeds=seeds, horizon=horizon, p_delay=0.4, **kw)
        for ts, seed, trace in zip(sets, seeds, got, strict=True):
            one = simulate(ts, 3, seed=seed, horizon=horizon, p_delay=0.4, record=False, **kw)
            assert same_run(trace, one), (ts.rows(), seed, ties, str(trace), str(one))


def test_batch_misses_and_repeats() -> None:
    """The batch sees misses (Dhall's set) and ``repeats_at`` (a D > T set whose schedule repeats) as ``simulate``."""
    dhall = TaskSet.from_tasks([(1, 9, 9), (1, 9, 9), (10, 10, 10)])
    repeating = TaskSet.from_tasks([(2, 7, 4), (1, 3, 6)], deadlines="arbitrary")
    got = simulate_batch([dhall, repeating, dhall], 2, seeds=[0, 1, 2])
    assert got[0].miss is not None and (got[0].miss.time, got[0].miss.task) == (10, 2)
    assert got[1].miss is None and got[1].repeats_at == simulate(repeating, 2, record=False).repeats_at is not None
    assert [str(t) for t in got] == [str(simulate(ts, 2, record=False)) for ts in (dhall, repeating, dhall)]


def test_batch_one_seed_for_all_and_empty() -> None:
    """An int seed is every set's seed; no sets, no traces."""
    sets = batch_sets(np.random.default_rng(5), 6, arbitrary=False)
    got = simulate_batch(sets, 2, seeds=7, arrivals="sporadic")
    assert [t.jobs for t in got] == [simulate(ts, 2, seed=7, arrivals="sporadic", record=False).jobs for ts in sets]
    assert simulate_batch([], 2) == []


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        pytest.param({"policy": "pedf"}, "gedf or gfp", id="partitioned"),
        pytest.param({"arrivals": "explicit"}, "periodic or sporadic", id="explicit"),
        pytest.param({"seeds": [1]}, "1 seeds for 2 task sets", id="seed-count"),
        pytest.param({"seeds": [1, -2]}, "non-negative", id="negative-seed"),
        pytest.param({"seeds": -1}, "non-negative", id="negative-int-seed"),
        pytest.param({"seeds": [1, 2.5]}, "non-negative integers", id="float-seed"),
        pytest.param({"seeds": True}, "seeds must be", id="bool-seed"),
        pytest.param({"horizon": 0}, "horizon", id="horizon"),
        pytest.param({"ties": "lowest"}, "unknown tie rule", id="ties"),
        pytest.param({"policy": "gfp", "ties": "fifo"}, "no ties", id="gfp-ties"),
        pytest.param({"execution": "avg"}, "unknown execution", id="execution"),
        pytest.param({"p_delay": 2}, "p_delay", id="p_delay"),
    ],
)
def test_batch_bad_input(kwargs: dict[str, Any], match: str) -> None:
    """Bad arguments are one InputError line."""
    sets = [TaskSet.from_tasks([(1, 4, 4)]), TaskSet.from_tasks([(1, 5, 5)])]
    with pytest.raises(InputError, match=match):
        simulate_batch(sets, 2, **kwargs)


def test_fast_path_cache_follows_the_object() -> None:
    """The per-set cache of the fast path is keyed by the object: a new set with the same id is not confused."""
    for k in range(50):  # fresh sets, freed at once: CPython reuses their ids
        ts = TaskSet.from_tasks([(1 + k % 3, 5, 5), (2, 7, 7)])
        assert simulate(ts, 1, record=False, horizon=35).jobs == 12
        assert str(simulate(ts, 1, record=False)) == str(simulate(ts, 1))


@pytest.mark.parametrize("stream", [None, EXECUTION_STREAM, 0, 2**32 - 1])
def test_compiled_seeding_is_numpys(stream: int | None) -> None:
    """``pcg64_seed`` equals ``PCG64(SeedSequence(seed[, spawn_key=(stream,)]))``'s state, word for word."""
    rng = np.random.default_rng(7)
    seeds = [0, 1, 5, 2**32 - 1, 2**32, 2**33 + 9, 2**62 + 3, 2**63 - 1]
    seeds += [int(x) for x in rng.integers(0, 2**63 - 1, size=100, dtype=np.int64)]
    seeds += [int(x) for x in rng.integers(0, 1000, size=100)]
    out = np.zeros(4, dtype=np.uint64)
    for seed in seeds:
        key = () if stream is None else (stream,)
        state = np.random.PCG64(np.random.SeedSequence(seed, spawn_key=key)).state["state"]
        pcg64_seed(seed, -1 if stream is None else stream, out)
        words = [int(x) for x in out]
        assert words == [state["state"] >> 64, state["state"] % 2**64, state["inc"] >> 64, state["inc"] % 2**64], seed


def test_seeds_beyond_int64() -> None:
    """Seeds of 2**63 and more (seeded by NumPy) give the recorded run's outcome, in one call and in a batch."""
    sets = batch_sets(np.random.default_rng(11), 8, arbitrary=False)
    seeds = [2**63 + k for k in range(4)] + [2**70 + k for k in range(4)]
    kw: dict[str, Any] = {"arrivals": "sporadic", "execution": "random", "ties": "random:5", "horizon": 120}
    got = simulate_batch(sets, 2, seeds=seeds, **kw)
    for ts, seed, trace in zip(sets, seeds, got, strict=True):
        recorded = simulate(ts, 2, seed=seed, **kw)
        fast = simulate(ts, 2, seed=seed, record=False, **kw)
        assert (trace.jobs, trace.end_time, str(trace)) == (fast.jobs, fast.end_time, str(fast))
        assert (fast.jobs, fast.end_time) == (recorded.jobs, recorded.end_time)
        assert (fast.miss is None) == (recorded.miss is None)
