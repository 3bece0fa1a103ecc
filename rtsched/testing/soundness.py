"""``check_sound``: search for a task set that a user's G-EDF test accepts but G-EDF misses.

A sufficient G-EDF test claims that *every* G-EDF implementation meets every deadline, whatever
its rule between equal deadlines (task index, arrival order, PID, CPU, random, ...). The oracle is
therefore the exact G-EDF test under every tie-breaking rule (registry name ``exact``, reached
through the registry; papers/gedf-ties.md) on sets it can decide within its budget:
its counterexamples are a release sequence plus the tie choices that make G-EDF miss. Where it
says "unknown", the simulator (papers/simulator.md) tries synchronous periodic and seeded sporadic
releases under the index, FIFO and seeded random tie rules, with WCET and with seeded random
execution times (each job uniform in ``[1, C]``). Hypothesis drives the search with the
public strategies (:mod:`rtsched.testing.strategies`) and shrinks what it finds to a small
counterexample: fewer tasks, smaller periods, C = 1, D = C.

>>> from rtsched.testing.soundness import check_sound
>>> def too_optimistic(taskset, m):          # "U <= m is enough" -- wrong for global EDF
...     return taskset.utilization <= m
>>> found = check_sound(too_optimistic, max_examples=100)
>>> found is not None
True
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from hypothesis import HealthCheck, find, settings
from hypothesis import strategies as st
from hypothesis.errors import NoSuchExample

from rtsched.model import TaskSet
from rtsched.sim.trace import DeadlineMiss, Trace
from rtsched.testing.strategies import tasksets

__all__ = ["Counterexample", "check_sound", "refute"]

#: Budget of the exact test per candidate (explored states); beyond it the simulator is the oracle.
EXACT_BUDGET = 200_000
#: Sporadic simulation runs per candidate when the exact test cannot decide.
SPORADIC_RUNS = 3


@dataclass(frozen=True)
class Counterexample:
    """A set the test accepts on ``m`` processors although global EDF misses a deadline.

    Attributes
    ----------
    taskset, m:
        The (shrunk) counterexample.
    releases:
        Release times per task that make global EDF miss.
    miss:
        The first deadline miss of the replay (:meth:`replay`).
    oracle:
        ``"exact"`` (found by the exact test) or ``"simulation"``.
    ties:
        The simulator's tie rule for the replay (``"index"``, ``"fifo"`` or ``"random:SEED"``).
    tie_choices:
        ``(time, winners)``: at these ticks the listed tasks win the ties between equal
        deadlines (the exact test's choices; empty when no tie was on the way or the simulator's
        rule decided them).
    execution, seed:
        The execution model of the replay: ``"wcet"``, or ``"random"`` with the seed whose
        execution stream drew the demands (the same releases replayed with the same seed draw
        the same demands, one per release in release order).
    """

    taskset: TaskSet
    m: int
    releases: tuple[tuple[int, ...], ...]
    miss: DeadlineMiss
    oracle: str
    ties: str = "index"
    tie_choices: tuple[tuple[int, tuple[int, ...]], ...] = ()
    execution: str = "wcet"
    seed: int = 0

    def replay(self) -> Trace:
        """Simulate the counterexample again (releases, tie rule, tie choices, demands) to its miss."""
        from rtsched.sim import simulate

        return simulate(
            self.taskset, self.m, releases=self.releases, ties=self.ties, tie_choices=self.tie_choices,
            execution=self.execution, seed=self.seed,  # type: ignore[arg-type]
        )  # fmt: skip

    def __str__(self) -> str:
        rows = ", ".join(f"({c}, {d}, {t})" for c, d, t in self.taskset.rows())
        shown = "; ".join(f"{self.taskset.label(i)} at {list(r)}" for i, r in enumerate(self.releases) if r)
        labels = self.taskset.label
        if self.tie_choices:
            ties = "tie choices " + "; ".join(
                f"t={t}: {', '.join(labels(i) for i in w)} win" for t, w in self.tie_choices
            )
        else:
            ties = f"{self.ties} ties"
        if self.execution != "wcet":
            ties += f", {self.execution} execution (seed {self.seed})"
        return (
            f"accepted on m={self.m} but not schedulable: [{rows}]\n"
            f"  releases {shown}, {ties} -> {labels(self.miss.task)} misses its deadline at t={self.miss.time} "
            f"({self.oracle})"
        )


def refute(taskset: TaskSet, m: int, *, budget: int = EXACT_BUDGET, seed: int = 0) -> Counterexample | None:
    """Releases (and tie choices) making global EDF miss on ``taskset``, or ``None`` if none is found.

    The exact test under every tie-breaking rule decides when its budget allows (a ``None`` is
    then a proof that every G-EDF implementation meets every deadline); otherwise the simulator
    tries synchronous periodic releases under the index, FIFO and seeded random tie rules, and a
    few seeded sporadic patterns with seeded random ties, each with WCET execution and then with
    seeded random execution times (a ``None`` then proves nothing).
    ``budget`` is the exact test's (explored states). Sets with ``D > T`` (which the exact
    test does not take) go to the simulator directly; its periodic runs then stop where the
    schedule repeats (papers/simulator.md), so a ``None`` still proves nothing about sporadic
    releases.
    """
    from rtsched import registry
    from rtsched.sim import simulate

    result = registry.get("exact").explain(taskset, m, budget) if taskset.is_constrained else None
    if result is not None and result.verdict is True:
        return None
    if result is not None and result.verdict is False and "releases" in result.evidence:
        releases = tuple(tuple(int(x) for x in r) for r in result.evidence["releases"])
        choices = tuple((int(t), tuple(int(i) for i in w)) for t, w in result.evidence.get("tie_choices", ()))
        miss = simulate(taskset, m, releases=releases, tie_choices=choices).miss
        if miss is not None:
            return Counterexample(taskset, m, releases, miss, "exact", "index", choices)
    # unknown (or U > m without a sequence within the budget): simulate
    periodic_horizon: int | None = min(taskset.hyperperiod, 100_000)
    if not taskset.is_constrained and taskset.hyperperiod <= 100_000:
        periodic_horizon = None  # D > T: the default horizon (until the schedule repeats)
    runs: list[tuple[str, int | None, str]] = [("periodic", None, "index"), ("periodic", None, "fifo"), ("periodic", None, f"random:{seed}")]
    runs += [("sporadic", seed + k, "index" if k == 0 else f"random:{seed + k}") for k in range(SPORADIC_RUNS)]
    for execution in ("wcet", "random"):
        for arrivals, run_seed, ties in runs:
            horizon = periodic_horizon if arrivals == "periodic" else None
            exec_seed = seed if run_seed is None else run_seed
            trace = simulate(
                taskset, m, arrivals=arrivals, seed=exec_seed, horizon=horizon, ties=ties,  # type: ignore[arg-type]
                execution=execution,
            )  # fmt: skip
            if trace.miss is not None:
                releases = tuple(tuple(r) for r in trace.release_times())
                return Counterexample(taskset, m, releases, trace.miss, "simulation", trace.ties, (), execution, exec_seed)
    return None


def check_sound(
    test: Callable[[TaskSet, int], bool],
    *,
    processors: Sequence[int] = (1, 2, 3),
    max_examples: int = 200,
    seed: int = 0,
    max_tasks: int = 5,
    max_period: int = 10,
    deadlines: Literal["constrained", "arbitrary"] = "constrained",
) -> Counterexample | None:
    """Search for a set that ``test`` accepts but global EDF cannot schedule.

    Parameters
    ----------
    test:
        The user's sufficient G-EDF schedulability test, ``(TaskSet, m) -> bool``. True means
        "schedulable by global EDF" whatever the rule between equal deadlines, so the test is
        judged against the exact test under every tie-breaking rule (papers/gedf-ties.md).
    processors:
        Values of ``m`` to try.
    max_examples:
        How many candidate sets hypothesis tries before giving up.
    seed:
        Makes the search reproducible.
    max_tasks, max_period:
        Size of the candidate sets (small sets let the exact test decide).
    deadlines:
        ``"constrained"`` (D <= T) or ``"arbitrary"`` (D up to 3T; the simulator is then the
        only oracle, the exact test taking D <= T only).

    Returns
    -------
    Counterexample or None
        The shrunk counterexample (task set, m, the release sequence, the tie choices and the
        miss; ``.replay()`` simulates it again), or ``None`` if none was found (which is
        evidence, not a proof, that the test is sound).
    """
    if not processors:
        raise ValueError("processors must name at least one m")
    candidates = st.tuples(
        tasksets(max_size=max_tasks, max_period=max_period, deadlines=deadlines), st.sampled_from(sorted(processors))
    )

    def unsound(case: tuple[TaskSet, int]) -> bool:
        taskset, m = case
        return bool(test(taskset, m)) and refute(taskset, m, seed=seed) is not None

    search = settings(
        max_examples=max_examples,
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    try:
        taskset, m = find(candidates, unsound, settings=search, random=random.Random(seed))
    except NoSuchExample:
        return None
    return refute(taskset, m, seed=seed)
