"""Clustered and virtual-cluster EDF, end to end (ECRTS 2008 / RTS 2009 framework).

Papers (notes: papers/easwaran-shin-lee2009-virtual-clusters.md and
papers/shin-easwaran-lee2008-mpr.md): Shin, Easwaran, Lee, ECRTS 2008 (virtual clustering with
MPR interfaces, §5: interface generation and the MPR-to-server transformation); Easwaran, Shin,
Lee, Real-Time Systems 43(1), 2009.

Pipeline for ``m`` processors and a cluster size ``k``:

1. **Clusters.** Either a given task-to-cluster assignment, or first-fit of the tasks (by
   decreasing density, ties by index) into clusters of at most ``k`` processors. A task joins a
   cluster if the cluster with it is accepted by ``gedf-mpr`` on ⟨Π, kΠ, k⟩, which is the same
   as k dedicated processors (sbf(t) = k·t).
2. **Interfaces.** Each cluster gets its minimum-bandwidth interface ⟨Π, Θ, m'⟩ with m' ≤ k
   (:func:`rtsched.analyses.theory.supply.best_interface`); Π is the ``pi=`` option, or by default the
   smallest deadline of the cluster's tasks (a documented choice; the papers leave Π to the
   designer, trading blackout against server overhead).
3. **Servers.** Each interface becomes m' periodic servers (budget, Π, Π)
   (:func:`rtsched.analyses.theory.supply.server_tasks`), so the top level is an implicit-deadline set.
4. **Top level.** The servers on ``m`` processors: partitioned EDF by first-fit decreasing
   utilization with the exact implicit-deadline condition U ≤ 1 per processor (Liu and Layland
   1973), or the registered analysis named by ``top=`` (a global test on m processors, or
   ``uni-qpa``-style uniprocessor analyses used per processor).

``physical`` mode skips 2–4: clusters are ⌊m/k⌋ groups of k dedicated processors (plus one of
m mod k), and the set is accepted if first-fit places every task.

Registry: the family ``clustered:k=<k>[:pi=<Π>][:physical|:virtual][:top=<analysis>]``
(platform "clustered"). It decides task sets on ``Identical(m)`` (the clusters are the scheduler's
choice; k ≤ m) and on ``Clustered(m, k)`` with the same k (the hardware's clusters; a ``top=``
analysis must then be a uniprocessor one, used per processor, since a global top level would
migrate servers between hardware clusters); a ``top=`` analysis must accept the servers on m
processors. Work budget ``budget``: the (k, A_k) points of each G-EDF-under-MPR evaluation.
The batch verdicts (``codes``) are a Python loop over the sets (the interface search and the
packing are Python; each G-EDF-under-MPR evaluation is an ``@njit`` kernel call).
:func:`platform_report` is the full report (see its docstring).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from rtsched.analyses.theory.supply import (
    DEFAULT_BUDGET,
    MPRInterface,
    best_interface,
    gedf_mpr,
    gedf_mpr_codes,
    server_tasks,
)
from rtsched.errors import InputError
from rtsched.kernels import ACCEPT, REJECT, UNKNOWN
from rtsched.model import TaskSet, TaskSetBatch
from rtsched.platform import Clustered, Identical, Platform
from rtsched.registry import Analysis, Family
from rtsched.result import UNKNOWN as UNKNOWN_VERDICT
from rtsched.result import Explanation, Result, Verdict, count, jsonable, show_number

__all__ = [
    "FAMILIES",
    "Cluster",
    "ClusterSpec",
    "PlatformReport",
    "first_fit_clusters",
    "parse_spec",
    "partition_servers",
    "platform_report",
]

CITATION = (
    "Shin, Easwaran, Lee, 'Hierarchical scheduling framework for virtual clustering of "
    "multiprocessors', ECRTS 2008 (§4 G-EDF under MPR, §5 interfaces and servers); Easwaran, "
    "Shin, Lee, 'Optimal virtual cluster-based multiprocessor scheduling', RTS 43(1), 2009"
)
NOTE = "papers/easwaran-shin-lee2009-virtual-clusters.md"

Mode = Literal["virtual", "physical"]

_OPTION = r"(?::(?:pi=[1-9]\d*|physical|virtual|top=[A-Za-z0-9_.\-]+))"
#: Names of the registry family (no ``assign=``: assignments are given to :func:`platform_report`).
FAMILY_PATTERN = rf"clustered:k=([1-9]\d*)({_OPTION}*)"


@dataclass(frozen=True)
class ClusterSpec:
    """A parsed platform spec ``clustered:k=<k>[:pi=<Π>][:physical|:virtual][:top=<name>][:assign=<list>]``."""

    k: int
    Pi: int | None = None
    mode: Mode = "virtual"
    top: str | None = None
    assignment: tuple[int, ...] | None = None

    @property
    def name(self) -> str:
        """The canonical registry-style name (without the assignment)."""
        parts = [f"clustered:k={self.k}"]
        if self.Pi is not None:
            parts.append(f"pi={self.Pi}")
        if self.mode == "physical":
            parts.append("physical")
        if self.top is not None:
            parts.append(f"top={self.top}")
        return ":".join(parts)


def parse_spec(spec: str | ClusterSpec) -> ClusterSpec:
    """Parse a ``clustered`` analysis name.

    Forms: ``clustered:k=2``, ``clustered:k=2:pi=10``, ``clustered:k=4:physical``,
    ``clustered:k=2:top=gfb`` or ``clustered:k=2:assign=0,0,1,1`` (cluster index per task).
    """
    if isinstance(spec, ClusterSpec):
        return spec
    text = spec.strip()
    parts = text.split(":")
    if parts[0] != "clustered" or len(parts) < 2 or not parts[1].startswith("k="):
        raise InputError(f"platform spec {spec!r} must start with 'clustered:k=<k>'", field="platform")
    values: dict[str, Any] = {}
    try:
        values["k"] = int(parts[1][2:])
        for part in parts[2:]:
            if part in ("physical", "virtual"):
                values["mode"] = part
            elif part.startswith("pi="):
                values["Pi"] = int(part[3:])
            elif part.startswith("top="):
                values["top"] = part[4:]
            elif part.startswith("assign="):
                values["assignment"] = tuple(int(x) for x in part[7:].split(",") if x.strip())
            else:
                raise ValueError(part)
    except ValueError as err:
        raise InputError(f"cannot read platform spec {spec!r} (at {err})", field="platform") from None
    if values["k"] < 1 or values.get("Pi", 1) < 1:
        raise InputError(f"k and pi must be positive in {spec!r}", field="platform")
    return ClusterSpec(**values)


@dataclass(frozen=True)
class Cluster:
    """One cluster of a ``clustered`` analysis.

    Its tasks (indices into the task set), size, interface, the G-EDF-under-MPR explanation on that
    interface (``result``) and servers.
    """

    index: int
    tasks: tuple[int, ...]
    processors: int
    interface: MPRInterface | None
    result: Explanation | None
    servers: TaskSet | None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready summary."""
        return {
            "index": self.index,
            "tasks": list(self.tasks),
            "processors": self.processors,
            "interface": None if self.interface is None else self.interface.to_dict(),
            "servers": None if self.servers is None else [list(r) for r in self.servers.rows()],
            "verdict": None if self.result is None else self.result.verdict,
        }


@dataclass(frozen=True)
class PlatformReport:
    """Outcome of clustered scheduling for one task set (what the CLI prints).

    Attributes
    ----------
    verdict:
        True (proven schedulable), False (not proven) or "unknown" (a work budget ran out).
    clusters:
        The clusters with their interfaces and servers.
    unplaced:
        Tasks no cluster admitted (first-fit only).
    server_assignment:
        Top-level processor of each server (partitioned top level), in server order; empty if
        the top level was decided otherwise.
    top_results:
        Results of registered analyses run on the servers (``top=``).
    """

    taskset: TaskSet
    m: int
    spec: ClusterSpec
    verdict: Verdict
    summary: str
    clusters: tuple[Cluster, ...] = ()
    unplaced: tuple[int, ...] = ()
    servers: TaskSet | None = None
    server_assignment: tuple[int, ...] = ()
    top_results: tuple[Result, ...] = field(default=())

    @property
    def schedulable(self) -> bool:
        """True only if the verdict proves the set schedulable."""
        return self.verdict is True

    def processor_of_tasks(self) -> dict[int, list[int]] | None:
        """Processor → task indices implied by a partitioned top level (k = 1 style), else None.

        Defined when every cluster has a single server placed on one processor.
        """
        if not self.server_assignment or any(c.servers is None or c.servers.n != 1 for c in self.clusters):
            return None
        out: dict[int, list[int]] = {}
        for cluster, proc in zip(self.clusters, self.server_assignment, strict=True):
            out.setdefault(proc, []).extend(cluster.tasks)
        return out

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict: spec, verdict, clusters (interfaces, servers), top level."""
        return jsonable(
            {
                "platform": self.spec.name,
                "m": self.m,
                "mode": self.spec.mode,
                "verdict": self.verdict,
                "summary": self.summary,
                "clusters": [c.to_dict() for c in self.clusters],
                "unplaced": list(self.unplaced),
                "servers": None if self.servers is None else [list(r) for r in self.servers.rows()],
                "server_assignment": list(self.server_assignment),
                "top_results": [r.to_dict() for r in self.top_results],
            }
        )

    def __str__(self) -> str:
        ts = self.taskset
        word = {True: "SCHEDULABLE", False: "NOT PROVEN SCHEDULABLE"}.get(self.verdict, "UNKNOWN")  # type: ignore[arg-type]
        lines = [
            f"{ts.name or 'task set'}: n={ts.n}, m={self.m}, platform {self.spec.name} ({self.spec.mode}"
            + (", given assignment" if self.spec.assignment is not None else "")
            + f"), verdict: {word}",
            f"  {self.summary}",
        ]
        for c in self.clusters:
            names = ", ".join(ts.label(i) for i in c.tasks)
            lines.append(f"  cluster {c.index} ({c.processors} processors): {names}")
            if c.interface is not None:
                bw = c.interface.bandwidth
                lines.append(f"    interface {c.interface}, bandwidth {bw} (≈{float(bw):.3f})")
            if c.servers is not None:
                lines.append("    servers (C, D, T): " + ", ".join(str(r) for r in c.servers.rows()))
        if self.unplaced:
            lines.append("  unplaced: " + ", ".join(ts.label(i) for i in self.unplaced))
        if self.server_assignment:
            lines.append("  servers → processors: " + " ".join(str(p) for p in self.server_assignment))
        for r in self.top_results:
            lines.append(f"  top level {r.analysis}: {r.verdict} — {r.summary}")
        return "\n".join(lines)


# ------------------------------------------------------------------------------------------------
# Building blocks
# ------------------------------------------------------------------------------------------------
class _Budget:
    """Remembers whether a work budget ran out anywhere (so "not proven" can become "unknown")."""

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self.hit = False

    def accepts(self, ts: TaskSet, interface: MPRInterface) -> bool:
        code = gedf_mpr_codes(
            TaskSetBatch.from_tasksets([ts]), interface.Pi, interface.Theta, interface.m_prime, self.budget
        )[0]
        self.hit |= bool(code == UNKNOWN)
        return bool(code == ACCEPT)


def _order_by_density(ts: TaskSet) -> list[int]:
    dens = [Fraction(c, d) for c, d, _ in ts.rows()]
    return sorted(range(ts.n), key=lambda i: (-dens[i], i))


def first_fit_clusters(
    ts: TaskSet, sizes: Sequence[int] | None, k: int, budget: int = DEFAULT_BUDGET
) -> tuple[list[list[int]], list[int], bool]:
    """First-fit decreasing density of tasks into clusters with G-EDF-under-MPR admission.

    ``sizes`` lists the processors of each available cluster (physical mode); ``None`` opens a
    new cluster of ``k`` processors whenever no open cluster admits a task (virtual mode). A
    cluster of size s admits a set accepted by ``gedf-mpr`` on ⟨1, s, s⟩.
    Returns (clusters as task-index lists, unplaced tasks, whether a budget ran out).
    """
    budget_state = _Budget(budget)
    clusters: list[list[int]] = []
    cluster_sizes: list[int] = []
    unplaced: list[int] = []
    for i in _order_by_density(ts):
        placed = False
        for c, members in enumerate(clusters):
            if budget_state.accepts(ts.subset([*members, i]), MPRInterface(1, cluster_sizes[c], cluster_sizes[c])):
                members.append(i)
                placed = True
                break
        if placed:
            continue
        next_size = k if sizes is None else (sizes[len(clusters)] if len(clusters) < len(sizes) else None)
        if next_size is not None and budget_state.accepts(ts.subset([i]), MPRInterface(1, next_size, next_size)):
            clusters.append([i])
            cluster_sizes.append(next_size)
        else:
            unplaced.append(i)
    return [sorted(c) for c in clusters], unplaced, budget_state.hit


def partition_servers(servers: TaskSet, m: int) -> list[int] | None:
    """First-fit decreasing utilization of implicit-deadline servers on m processors.

    A processor takes a server if its total utilization stays ≤ 1, the exact EDF condition for
    implicit deadlines (Liu and Layland 1973). Returns the processor of each server, or None.
    """
    util = [Fraction(c, t) for c, _, t in servers.rows()]
    load = [Fraction(0)] * m
    where = [-1] * servers.n
    for i in sorted(range(servers.n), key=lambda j: (-util[j], j)):
        for p in range(m):
            if load[p] + util[i] <= 1:
                load[p] += util[i]
                where[i] = p
                break
        else:
            return None
    return where


def _top_level(servers: TaskSet, m: int, top: str | None) -> tuple[Verdict, tuple[int, ...], tuple[Result, ...], str]:
    """Decide the servers on m processors (partitioned FFD by default, else a registered analysis)."""
    if top is None:
        where = partition_servers(servers, m)
        if where is None:
            return (
                False,
                (),
                (),
                f"{servers.n} servers (U = {show_number(servers.utilization)}) do not fit on {m} processors by FFD",
            )
        return True, tuple(where), (), f"{count(servers.n, 'server')} partitioned on {count(m, 'processor')} (FFD, U ≤ 1 each)"
    from rtsched import registry

    entry = registry.get(top)
    if entry.platform == "uniprocessor":
        # Partition with that analysis as the per-processor admission test.
        order = sorted(range(servers.n), key=lambda j: (-Fraction(int(servers.C[j]), int(servers.T[j])), j))
        bins: list[list[int]] = [[] for _ in range(m)]
        results: list[Result] = []
        for i in order:
            for p in range(m):
                if entry.reference(servers.subset([*bins[p], i]), 1) is True:
                    bins[p].append(i)
                    break
            else:
                return False, (), (), f"{top} admission: server {i} fits on no processor"
        where = [0] * servers.n
        for p, members in enumerate(bins):
            for i in members:
                where[i] = p
            if members:
                results.append(entry.explain(servers.subset(members), 1))
        return True, tuple(where), tuple(results), f"servers partitioned on {count(m, 'processor')} with {top} admission"
    why = entry.supports(m, servers)
    if why is not None:
        raise InputError(f"top-level analysis {top!r} does not apply: {why}", field="platform")
    result = entry.explain(servers, m)
    return result.verdict, (), (result,), f"servers checked with {top} on {m} processors"


# ------------------------------------------------------------------------------------------------
# End to end
# ------------------------------------------------------------------------------------------------
def platform_report(taskset: TaskSet, m: int, spec: str | ClusterSpec, budget: int = DEFAULT_BUDGET) -> PlatformReport:
    """Clustered EDF on m processors as described by ``spec``: the full report.

    The registry family ``clustered:k=<k>[...]`` decides and explains with it (its explanation's
    evidence holds the clusters, interfaces and servers); ``assign=`` (a given task-to-cluster
    assignment) is only available here. ``str(report)`` is a terminal summary and
    ``report.to_dict()`` is JSON-ready.

    Parameters
    ----------
    taskset:
        Constrained-deadline sporadic tasks.
    m:
        Processors of the platform.
    spec:
        ``clustered:k=<k>[:pi=<Π>][:physical|:virtual][:top=<analysis>][:assign=<c0>,<c1>,...]``;
        ``assign`` gives each task's cluster index (clusters of k processors, or fewer for the
        last one in physical mode) instead of first-fit.
    budget:
        Work budget of each G-EDF-under-MPR evaluation.
    """
    m = Identical(m).m  # a positive number of processors
    spec = parse_spec(spec)
    if not taskset.is_constrained:
        raise InputError("clustered EDF here needs constrained deadlines (D <= T)")
    if spec.k > m:
        raise InputError(f"cluster size k = {spec.k} exceeds m = {m}", field="platform")
    physical_sizes = [spec.k] * (m // spec.k) + ([m % spec.k] if m % spec.k else [])
    budget_state = _Budget(budget)

    # 1. clusters
    if spec.assignment is not None:
        if len(spec.assignment) != taskset.n or min(spec.assignment) < 0:
            raise InputError(f"assign= needs one non-negative cluster index per task ({taskset.n})", field="platform")
        n_clusters = max(spec.assignment) + 1
        groups = [[i for i, c in enumerate(spec.assignment) if c == j] for j in range(n_clusters)]
        if any(not g for g in groups):
            raise InputError("assign= leaves a cluster index without tasks", field="platform")
        if spec.mode == "physical" and n_clusters > len(physical_sizes):
            raise InputError(
                f"{n_clusters} clusters but only {len(physical_sizes)} physical clusters", field="platform"
            )
        sizes = physical_sizes[:n_clusters] if spec.mode == "physical" else [spec.k] * n_clusters
        unplaced: list[int] = []
    else:
        groups, unplaced, hit = first_fit_clusters(
            taskset, physical_sizes if spec.mode == "physical" else None, spec.k, budget
        )
        budget_state.hit |= hit
        sizes = physical_sizes[: len(groups)] if spec.mode == "physical" else [spec.k] * len(groups)

    clusters: list[Cluster] = []
    all_ok = not unplaced
    if spec.mode == "physical":
        for j, (members, size) in enumerate(zip(groups, sizes, strict=True)):
            sub = taskset.subset(members)
            dedicated_iface = MPRInterface(1, size, size)
            result = gedf_mpr(sub, dedicated_iface, budget)
            budget_state.hit |= result.verdict == UNKNOWN_VERDICT
            all_ok &= result.verdict is True
            clusters.append(Cluster(j, tuple(members), size, dedicated_iface, result, None))
        verdict: Verdict = all_ok
        summary = f"{len(clusters)} physical clusters of ≤ {spec.k} processors" + (
            f"; {len(unplaced)} tasks unplaced" if unplaced else "; every cluster passes gedf-mpr"
        )
        return _finish(taskset, m, spec, verdict, summary, clusters, unplaced, None, (), (), budget_state.hit)

    # 2.-3. interfaces and servers (virtual clusters)
    server_sets: list[TaskSet] = []
    for j, (members, size) in enumerate(zip(groups, sizes, strict=True)):
        sub = taskset.subset(members)
        period = spec.Pi if spec.Pi is not None else int(sub.D.min())
        iface = best_interface(sub, period, m_max=size, budget=budget)
        if iface is None:
            all_ok = False
            clusters.append(Cluster(j, tuple(members), size, None, None, None))
            continue
        result = gedf_mpr(sub, iface, budget)
        servers = server_tasks(iface, name=f"c{j}")
        server_sets.append(servers)
        clusters.append(Cluster(j, tuple(members), size, iface, result, servers))
    if not all_ok or not server_sets:
        why = f"{len(unplaced)} tasks unplaced" if unplaced else "a cluster has no feasible interface with m' ≤ k"
        return _finish(taskset, m, spec, False, why, clusters, unplaced, None, (), (), budget_state.hit)

    # 4. top level
    all_servers = TaskSet.from_tasks(
        [(*row, name) for s in server_sets for row, name in zip(s.rows(), s.names or [], strict=True)],
        deadlines="implicit",
    )
    verdict, where, top_results, top_summary = _top_level(all_servers, m, spec.top)
    summary = f"{count(len(clusters), 'virtual cluster')}, {count(all_servers.n, 'server')}; {top_summary}"
    return _finish(
        taskset, m, spec, verdict, summary, clusters, unplaced, all_servers, where, top_results, budget_state.hit
    )


def _finish(
    taskset: TaskSet,
    m: int,
    spec: ClusterSpec,
    verdict: Verdict,
    summary: str,
    clusters: list[Cluster],
    unplaced: list[int],
    servers: TaskSet | None,
    where: tuple[int, ...],
    top_results: tuple[Result, ...],
    budget_hit: bool,
) -> PlatformReport:
    if verdict is False and budget_hit:
        verdict = UNKNOWN_VERDICT
        summary += " (a work budget ran out: unknown)"
    return PlatformReport(
        taskset, m, spec, verdict, summary, tuple(clusters), tuple(unplaced), servers, tuple(where), tuple(top_results)
    )


# ------------------------------------------------------------------------------------------------
# Registry family clustered:k=<k>
# ------------------------------------------------------------------------------------------------
def _build(match: re.Match[str]) -> Analysis:
    spec = parse_spec(match.group(0))
    name = spec.name

    def accepts(platform: Platform) -> str | None:
        """Identical(m) with k ≤ m, or Clustered(m, k) with this k; a top= analysis that applies."""
        if isinstance(platform, Clustered) and platform.k != spec.k:
            return f"{name} schedules clusters of {spec.k} processors, not the platform's clusters of {platform.k}"
        if spec.k > platform.size:
            return f"cluster size k = {spec.k} exceeds m = {platform.size}"
        if spec.top is not None and spec.mode == "virtual":
            from rtsched import registry

            try:
                top = registry.get(spec.top)
            except InputError as err:
                return f"top={spec.top}: {err.message}"
            if top.platform == "uniprocessor":
                return None  # per-processor admission of the servers
            if isinstance(platform, Clustered) and platform.k < platform.m:
                return (
                    f"top={spec.top} schedules the servers globally on {platform.m} processors, which would "
                    f"migrate them between the hardware clusters of {platform}; use a uniprocessor top= or none"
                )
            why = top.supports(platform.size, "implicit")
            if why is not None:
                return f"top-level analysis {spec.top!r} does not apply: {why}"
        return None

    def reference(ts: TaskSet, m: int, budget: int = DEFAULT_BUDGET) -> Verdict:
        return platform_report(ts, m, spec, budget).verdict

    def explain(ts: TaskSet, m: int, budget: int = DEFAULT_BUDGET) -> Explanation:
        report = platform_report(ts, m, spec, budget)
        # Per task, in input order: its cluster and that cluster's interface and gedf-mpr verdict
        # (what `rtsched check --explain` prints); the whole derivation (every cluster's servers,
        # their placement, the top level) as the steps.
        where = {i: c for c in report.clusters for i in c.tasks}
        per_task = []
        for i in range(ts.n):
            c = where.get(i)
            per_task.append(
                {
                    "task": ts.label(i),
                    "cluster": "unplaced" if c is None else c.index,
                    "processors": "-" if c is None else c.processors,
                    "interface": "-" if c is None or c.interface is None else str(c.interface),
                    "cluster passes gedf-mpr": "-" if c is None or c.result is None else c.result.verdict,
                }
            )
        return Explanation(
            report.verdict,
            report.summary,
            evidence={
                "clusters": [c.to_dict() for c in report.clusters],
                "unplaced": list(report.unplaced),
                "server_assignment": list(report.server_assignment),
            },
            per_task=per_task,
            steps=lambda: [
                *(line.removeprefix("  ") for line in str(report).splitlines()[2:]),
                "every cluster and the top level pass: schedulable"
                if report.verdict is True
                else "not proven"
                if report.verdict is False
                else "unknown: a work budget ran out",
            ],
        )

    def codes(batch: TaskSetBatch, m: int, budget: int = DEFAULT_BUDGET) -> NDArray[np.int8]:
        """Codes per set: a Python loop over the sets (interface search and packing are Python)."""
        out = np.empty(batch.n_sets, dtype=np.int8)
        for s, ts in enumerate(batch):
            verdict = reference(ts, m, budget)
            out[s] = UNKNOWN if verdict == UNKNOWN_VERDICT else (ACCEPT if verdict else REJECT)
        return out

    mode_text = "dedicated clusters" if spec.mode == "physical" else "virtual clusters (MPR interfaces and servers)"
    return Analysis(
        name=name, title=f"clustered EDF, clusters of {spec.k} processors, {mode_text}", kind="sufficient", order=0,
        featured=False,
        policy="clustered-edf", policy_order=3, platform="clustered", accepts=accepts,
        calls=() if spec.top is None else (spec.top,),
        citation=CITATION, note=NOTE,
        reference=reference, explain=explain, codes=codes,
        budget=DEFAULT_BUDGET, budget_unit="(k, A_k) points per G-EDF-under-MPR evaluation",
    )


FAMILIES = (
    Family(
        pattern=FAMILY_PATTERN,
        build=_build,
        description="clustered:k=<k>[:pi=<Π>][:physical|:virtual][:top=<analysis>] (clustered EDF with MPR interfaces)",
    ),
)
