"""The worked sets of the comparison with the GCAPS authors' scripts (papers/cpu-gpu-peer-comparison.md).

Each set in tests/data/gcaps_peer/ isolates one class of disagreement between rtsched's ``seg-*``
analyses and the public analysis scripts of Wang, Liu, Wong and Kim (ECRTS 2024;
github.com/rtenlab/gcaps-super-repo, run outside this repository; none of their code is here).
Each file's header gives both sides' numbers. These tests hold rtsched's side: its verdict and
bounds, and the simulator's run that shows who is right (a miss where the scripts accept, or no
miss where only the scripts accept because rtsched is more pessimistic).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rtsched import analyses
from rtsched.analyses.segmented import _locking, _preemptive
from rtsched.segmented import SegmentedTaskSet, read_segmented_tasksets
from rtsched.segmented.sim import simulate_segmented

DATA = Path(__file__).parents[2] / "data" / "gcaps_peer"


def load(name: str) -> SegmentedTaskSet:
    sets = read_segmented_tasksets(DATA / name)
    assert len(sets) == 1
    return sets[0]


def _m(ts: SegmentedTaskSet) -> int:
    return max(t.core for t in ts) + 1


def _runs(ts: SegmentedTaskSet, **options: object) -> list:
    """Synchronous periodic with WCETs, then three sporadic runs with random execution times."""
    out = [simulate_segmented(ts, _m(ts), arrivals="periodic", execution="wcet", **options)]
    for seed in (1, 2, 3):
        out.append(simulate_segmented(ts, _m(ts), arrivals="sporadic", execution="random", seed=seed, **options))
    return out


# ---------------------------------------------------------------------------------------------
# Sets the scripts accept and that miss a deadline in simulation (the scripts are unsound)
# ---------------------------------------------------------------------------------------------


def test_tsg_busy_counts_cpu_only_higher_priority_tasks():
    """T1: the scripts' TSG busy test skips CPU-only same-core tasks (R_1 = 6); the second job of work misses."""
    ts = load("tsg_busy_cpu_only_hp_skipped.yaml")
    a = _preemptive.analyse(ts, 1, "busy", "tsg-rr", epsilon=2, time_slice=10, stop=False)
    assert a.verdict is False
    assert a.bounds[0].R == 6
    assert a.bounds[1].R is None
    assert analyses.get("seg-tsg-busy").verdict(ts, 1) is False
    trace = simulate_segmented(ts, 1, protocol="tsg-rr", mode="busy", time_slice=10, epsilon=2)
    assert [(x.task, x.job, x.release, x.deadline) for x in trace.misses][:1] == [(1, 0, 0, 10)]


def test_fmlp_suspend_counts_a_same_core_holding():
    """F1: a FIFO request waits for a same-core holder's G_e (the scripts count B_r on other CPUs only)."""
    ts = load("fmlp_suspend_same_core_holder.yaml")
    a = _locking.analyse(ts, 1, "suspend", "fmlp+", stop=False)
    assert a.verdict is False
    assert a.bounds[0].R == 11
    assert a.bounds[1].R is None
    assert analyses.get("seg-fmlp-suspend").verdict(ts, 1) is False
    trace = simulate_segmented(ts, 1, protocol="fmlp+", mode="suspend", record=True)
    assert [(x.task, x.job, x.release, x.deadline) for x in trace.misses][:1] == [(1, 0, 0, 10)]
    # task 1 runs 2-3, asks at 3 and gets the GPU when task 0 releases it at 10
    gpu = [(iv.task, iv.start, iv.end) for iv in trace.intervals if iv.resource.startswith("gpu") and iv.what == "G_e"]
    assert gpu[:2] == [(0, 2, 10), (1, 10, 11)]


def test_mpcp_busy_counts_lower_priority_boosted_spinning():
    """M1: a lower-priority holder spins boosted through G_e (the scripts charge only its G_m): task 0 misses."""
    ts = load("mpcp_busy_lower_priority_spin.yaml")
    a = _locking.analyse(ts, 1, "busy", "mpcp", stop=False)
    assert a.verdict is False
    assert analyses.get("seg-mpcp-busy").verdict(ts, 1) is False
    assert analyses.get("seg-fmlp-busy").verdict(ts, 1) is False
    trace = simulate_segmented(ts, 1, protocol="mpcp", mode="busy")
    assert trace.misses[0].task == 0
    assert trace.misses[0].deadline == 5
    assert trace.response_times[0] == 12  # task 1 boosted from 0 to 11, task 0 runs 11-12
    # under suspension the same set is schedulable and rtsched says so
    assert analyses.get("seg-mpcp-suspend").verdict(ts, 1) is True
    assert all(run.schedulable_so_far for run in _runs(ts, protocol="mpcp", mode="suspend"))


@pytest.mark.parametrize("protocol", [pytest.param("mpcp", id="mpcp"), pytest.param("fmlp+", id="fmlp")])
def test_busy_counts_a_same_core_task_spinning_behind_a_remote_holder(protocol):
    """S1: task 1 spins 0-5 behind task 0's holding (the scripts charge it C + G = 1): task 2 misses."""
    ts = load("busy_spinner_waits_remote.yaml")
    a = _locking.analyse(ts, 2, "busy", protocol, stop=False)
    assert a.verdict is False
    assert [b.R for b in a.bounds[:2]] == [5, 5]
    assert a.bounds[1].E == 5  # task 1 never suspends: its whole core time per job
    assert a.bounds[2].R is None
    trace = simulate_segmented(ts, 2, protocol=protocol, mode="busy")
    assert [(x.task, x.job, x.release, x.deadline) for x in trace.misses][:1] == [(2, 0, 0, 10)]
    assert trace.response_times[2] == 12
    suspend = _locking.analyse(ts, 2, "suspend", protocol)
    assert suspend.verdict is True
    assert suspend.bounds[2].R == 6
    assert all(run.schedulable_so_far for run in _runs(ts, protocol=protocol, mode="suspend"))


# ---------------------------------------------------------------------------------------------
# Sets only the scripts accept, without a miss: rtsched is more pessimistic
# ---------------------------------------------------------------------------------------------


def test_gcaps_busy_counts_a_same_core_spinner_twice():
    """G1: rtsched charges task 1's spinning in X_1 and task 0's device row: 13 > 12; the true worst case is 7."""
    ts = load("gcaps_busy_spin_counted_twice.yaml")
    a = _preemptive.analyse(ts, 2, "busy", "gcaps", epsilon=0, stop=False)
    assert a.verdict is False
    assert [b.R for b in a.bounds[:2]] == [5, 6]
    assert a.bounds[2].R is None
    runs = _runs(ts, protocol="gcaps", mode="busy")
    assert all(run.schedulable_so_far for run in runs)
    assert runs[0].response_times == (5, 6, 7)
    assert max(run.response_times[2] or 0 for run in runs) <= 7


# ---------------------------------------------------------------------------------------------
# Sets only rtsched accepts: the scripts are more pessimistic (or model another overhead)
# ---------------------------------------------------------------------------------------------


def test_mpcp_suspend_blocks_by_a_lower_holding_not_its_response():
    """M2: a lower-priority request blocks for H = G = 5 (the scripts: 15): R = 10, 20, 25."""
    ts = load("mpcp_suspend_lower_request.yaml")
    a = _locking.analyse(ts, 3, "suspend", "mpcp")
    assert a.verdict is True
    assert [b.R for b in a.bounds] == [10, 20, 25]
    runs = _runs(ts, protocol="mpcp", mode="suspend")
    assert all(run.schedulable_so_far for run in runs)
    assert runs[0].response_times == (5, 10, 15)
    for run in runs:
        assert all(r is None or r <= b.R for r, b in zip(run.response_times, a.bounds, strict=True))


def test_tsg_suspend_charges_a_short_part_not_a_full_slice():
    """T2: (DEV-R) charges min(L, M) + ε per round for the other task: 30 (the scripts' Eq. (3): 44)."""
    ts = load("tsg_suspend_short_parts.yaml")
    a = _preemptive.analyse(ts, 2, "suspend", "tsg-rr", epsilon=2, time_slice=10)
    assert a.verdict is True
    assert [b.R for b in a.bounds] == [15, 30]
    assert 20 + (10 + 2) * 1 * 2 > ts[1].D  # the scripts' bound for task 1
    runs = _runs(ts, protocol="tsg-rr", mode="suspend", epsilon=2, time_slice=10)
    assert all(run.schedulable_so_far for run in runs)
    for run in runs:
        assert all(r is None or r <= b.R for r, b in zip(run.response_times, a.bounds, strict=True))


@pytest.mark.parametrize("epsilon", [pytest.param(10, id="paper-1ms"), pytest.param(0, id="zero")])
def test_gcaps_epsilon_is_one_switch_per_part(epsilon):
    """G2: rtsched's ε is a device context switch: a lone part costs G_e + ε (the scripts: + ε + 3εη)."""
    ts = load("gcaps_epsilon_own.yaml")
    a = _preemptive.analyse(ts, 1, "suspend", "gcaps", epsilon=epsilon)
    assert a.verdict is True
    assert a.bounds[0].R == 5 + epsilon
    run = simulate_segmented(ts, 1, protocol="gcaps", mode="suspend", epsilon=epsilon)
    assert run.schedulable_so_far
    assert run.response_times == (5 + epsilon,)
