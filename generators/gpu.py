"""Random GPU workloads for the compute-cluster model (papers/zahaf2021-gpu-partitioning.md).

Recipe (every step vectorised over the whole batch; one :class:`numpy.random.Generator`):

1. *One-cluster utilizations* u_i = C_i(1)/T_i by UUniFast (Bini & Buttazzo 2005) with total
   ``U1`` (the workload's demand in cluster-time per time; U1 ≤ M is necessary for any layout
   when kernels scale perfectly). Individual u_i may exceed 1: such a kernel needs several clusters.
2. *Periods* from a period spec of :func:`rtsched.generators.parse_periods` (default
   ``log-uniform:100:10000``).
3. *WCET tables* by Amdahl's law: C_i(1) = ⌈u_i·T_i⌉ (rounded up: pessimistic), parallel
   fraction p_i uniform in ``parallel`` and quantised to 1/100, C_i(s) = ⌈C_i(1)·((1 − p_i) + p_i/s)⌉
   for s = 1..M, computed exactly in integers.
4. *Deadlines* from a deadline spec of :func:`rtsched.generators.parse_deadlines`, drawn in
   [C_i(M), T_i] (``implicit``: D = T); a kernel whose C_i(M) exceeds T_i gets D = T.
5. *Contention*: a linear model f_i(k) = 1 + a_i·k for k = 1..M−1 other active partitions, with
   the sensitivity a_i uniform in ``contention`` and quantised to 1/100 (so factors are exact
   rationals). This is our assumption, not the paper's measured data (see the note).
6. *Preemption*: each kernel is non-preemptive with probability ``nonpreemptive``.
7. *Co-runner classes* (only if ``memory_share`` is set; drawn after everything above, so the
   workloads of steps 1–6 are the same with or without it): each kernel is memory-bound with
   probability ``memory_share``, else compute-bound, and gets a co-runner row against
   compute-bound co-runners f(k | compute) = 1 + r·a·k with r uniform in ``compute_relief``
   (quantised to 1/100; the worst case f(k) = 1 + a·k of step 5 stays the row against
   memory-bound co-runners). Synthetic: r stands in for measured slowdown matrices.

``layout`` and ``interference`` are written into every workload (the layout space its
allocation searches, and the interference model; papers/zahaf2021-gpu-partitioning.md).

The rounding rules are applied before anything else is derived, so every drawn value is exact.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from numpy.typing import NDArray

from rtsched.errors import InputError
from rtsched.generators.deadlines import parse_deadlines
from rtsched.generators.periods import parse_periods
from rtsched.generators.utilizations import uunifast
from rtsched.gpu import CLASSES, MAX_CLUSTERS, GPUWorkload, GPUWorkloadBatch, Kernel, Slowdown, TableWCET, layout_space
from rtsched.model import MAX_TIME

__all__ = ["GPUWorkloadBatch", "GPUWorkloadSpec", "GeneratedGPUBatch", "generate_gpu_batch", "generate_gpu_workloads"]

#: Quantum of the parallel fraction and of the contention sensitivity (exact rationals).
QUANTUM = 100


@dataclass(frozen=True)
class GPUWorkloadSpec:
    """Parameters of :func:`generate_gpu_workloads` (a sweep engine can vary any of them).

    Attributes
    ----------
    n:
        Kernels per workload.
    clusters:
        M, the number of compute clusters (sets the length of the WCET and slowdown tables).
    U1:
        Σ C_i(1)/T_i, the total one-cluster utilization.
    periods, deadlines:
        Spec strings of :func:`rtsched.generators.parse_periods` / ``parse_deadlines``.
    parallel:
        Range of Amdahl's parallel fraction p.
    contention:
        Range of the per-other-partition slowdown a in f(k) = 1 + a·k.
    nonpreemptive:
        Probability that a kernel is non-preemptive.
    layout:
        The workloads' layout space (``free``, ``tpc:<k>``, ``mig:a100``, ``mig:h100``).
    interference:
        ``co-runner`` or ``count-only``.
    memory_share:
        Probability that a kernel is memory-bound (None: no classes, no co-runner rows).
    compute_relief:
        Range of r, the share of the worst-case excess slowdown a kernel suffers beside
        compute-bound co-runners.
    """

    n: int = 5
    clusters: int = 4
    U1: float = 2.0
    periods: str = "log-uniform:100:10000"
    deadlines: str = "implicit"
    parallel: tuple[float, float] = (0.5, 0.99)
    contention: tuple[float, float] = (0.0, 0.3)
    nonpreemptive: float = 0.0
    layout: str = "free"
    interference: str = "co-runner"
    memory_share: float | None = None
    compute_relief: tuple[float, float] = (0.2, 0.6)


def _quantised(
    rng: np.random.Generator, bounds: tuple[float, float], size: tuple[int, int], name: str
) -> NDArray[np.int64]:
    lo, hi = bounds
    if not 0 <= lo <= hi:
        raise InputError(f"{name} must be a range lo <= hi of non-negative numbers, got {bounds}", field=name)
    return np.rint(rng.uniform(lo, hi, size) * QUANTUM).astype(np.int64)


def generate_gpu_workloads(rng: np.random.Generator, spec: GPUWorkloadSpec, count: int) -> list[GPUWorkload]:
    """Draw ``count`` GPU workloads following ``spec`` (recipe in the module docstring).

    Parameters
    ----------
    rng:
        The only source of randomness.
    spec:
        The parameters.
    count:
        Number of workloads.

    Returns
    -------
    list of GPUWorkload
        Each with ``clusters = spec.clusters``.
    """
    n, M = spec.n, spec.clusters
    if not 1 <= M <= MAX_CLUSTERS:
        raise InputError(f"clusters must be in 1..{MAX_CLUSTERS}, got {M}", field="clusters")
    if not 0 <= spec.nonpreemptive <= 1:
        raise InputError(f"nonpreemptive must be a probability, got {spec.nonpreemptive}", field="nonpreemptive")
    if spec.parallel[1] > 1:
        raise InputError(f"the parallel fraction must be at most 1, got {spec.parallel}", field="parallel")
    layout_space(spec.layout, M)  # the layout must fit M (MIG: M = 7)
    shape = (count, n)
    u = uunifast(rng, n, float(spec.U1), count)
    T = parse_periods(spec.periods).draw(rng, shape)
    C1 = np.maximum(1, np.ceil(u * T)).astype(np.int64)
    if np.any(C1 > MAX_TIME):
        raise InputError("a drawn WCET exceeds the int64-safe range; use shorter periods", field="periods")
    p = _quantised(rng, spec.parallel, shape, "parallel")  # p_i = p / QUANTUM
    s = np.arange(1, M + 1, dtype=np.int64)
    # C(s) = ⌈C1 · ((Q − p)·s + p) / (Q·s)⌉ exactly, shape (count, n, M).
    num = C1[..., None] * ((QUANTUM - p)[..., None] * s + p[..., None])
    den = QUANTUM * s
    table = -(-num // den)
    fastest = np.minimum(table[..., -1], T)
    D = parse_deadlines(spec.deadlines).draw(rng, fastest, T)
    a = _quantised(rng, spec.contention, shape, "contention")
    k = np.arange(1, M, dtype=np.int64)
    factor_num = QUANTUM + a[..., None] * k  # f(k) = factor_num / QUANTUM, shape (count, n, M − 1)
    nonpre = rng.random(shape) < spec.nonpreemptive
    classes, relief = _co_runner_draws(rng, spec, shape)
    out = []
    for w in range(count):
        kernels = tuple(
            Kernel(
                TableWCET(tuple(int(x) for x in table[w, i])),
                int(D[w, i]),
                int(T[w, i]),
                tuple(Fraction(int(x), QUANTUM) for x in factor_num[w, i]),
                None,
                not bool(nonpre[w, i]),
                klass=None if classes is None else CLASSES[int(classes[w, i])],
                slowdown_by=() if relief is None else _compute_row(int(relief[w, i]), int(a[w, i]), M),
            )
            for i in range(n)
        )
        out.append(GPUWorkload(kernels, M, layout=spec.layout, interference=spec.interference))
    return out


def _compute_row(relief: int, a: int, M: int) -> tuple[tuple[str, Slowdown]]:
    """The row against compute-bound co-runners: f(k | compute) = 1 + (relief/Q)·(a/Q)·k, exactly."""
    scale = QUANTUM * QUANTUM
    return (("compute", Slowdown(tuple(Fraction(scale + relief * a * k, scale) for k in range(1, M)))),)


def _co_runner_draws(
    rng: np.random.Generator, spec: GPUWorkloadSpec, shape: tuple[int, int]
) -> tuple[NDArray[np.int64] | None, NDArray[np.int64] | None]:
    """Class indices (0 compute, 1 memory) and relief r·QUANTUM per kernel; None, None without classes."""
    if spec.memory_share is None:
        return None, None
    if not 0 <= spec.memory_share <= 1:
        raise InputError(f"memory_share must be a probability, got {spec.memory_share}", field="memory_share")
    if spec.compute_relief[1] > 1:
        raise InputError(f"compute_relief must be at most 1, got {spec.compute_relief}", field="compute_relief")
    memory = (rng.random(shape) < spec.memory_share).astype(np.int64)
    return memory, _quantised(rng, spec.compute_relief, shape, "compute_relief")


@dataclass(frozen=True)
class GeneratedGPUBatch:
    """What :func:`generate_gpu_batch` returns (the shape of ``generate_batch``'s result).

    ``batch`` holds the workloads (what the GPU registry entries' ``status`` and ``batch`` take,
    with the platform ``GPU(M)``); ``realized_utilization`` is Σ C_i(1)/T_i of each workload, as floats.
    """

    batch: GPUWorkloadBatch
    realized_utilization: NDArray[np.float64]


def generate_gpu_batch(
    rng: np.random.Generator, *, n: int, utilization: float, size: int, clusters: int, **params: object
) -> GeneratedGPUBatch:
    """Sweep-engine hook: ``size`` workloads with ``n`` kernels and U1 = ``utilization`` on ``clusters``.

    Mirrors :func:`rtsched.generators.generate_batch` (same keyword names for n, utilization and
    size); the other :class:`GPUWorkloadSpec` fields come as ``params`` (``periods``,
    ``deadlines``, ``parallel``, ``contention``, ``nonpreemptive``).
    """
    try:
        spec = GPUWorkloadSpec(n=int(n), clusters=int(clusters), U1=float(utilization), **params)  # type: ignore[arg-type]
    except TypeError as err:
        raise InputError(f"unknown GPU generator parameter: {err}", field="generator") from None
    workloads = generate_gpu_workloads(rng, spec, size)
    realized = np.array([sum(k.wcet.at(1) / k.T for k in w.kernels) for w in workloads], dtype=np.float64)
    model = "implicit" if parse_deadlines(spec.deadlines).implicit else "constrained"
    return GeneratedGPUBatch(GPUWorkloadBatch(workloads, model), realized)
