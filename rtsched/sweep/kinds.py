"""Generator kinds of a sweep: task sets (the default) or GPU workloads (``[generator] kind``).

``taskset``
    :func:`rtsched.generators.generate_batch` draws :class:`~rtsched.model.TaskSetBatch` es;
    ``m`` is the number of identical processors; the analyses are the task-set analyses of the
    registry (whose ``supports`` decides where they apply).
``gpu``
    :func:`rtsched.generators.gpu.generate_gpu_batch` draws GPU workloads (kernels with WCET
    tables C(s) and slowdown factors; see papers/zahaf2021-gpu-partitioning.md) with
    ``clusters = m``: ``m`` is the number M of compute clusters and the swept utilization is the
    *one-cluster* utilization U1 = Σ C_i(1)/T_i (so ``U/m`` means U1/M). The analyses are the
    registry entries with ``platform == "gpu"`` (``gpu:ffd``, ``gpu:bfd``, ``gpu:exhaustive``,
    ``gpu:single``); each runs on the platform ``GPU(m)`` (:func:`platform`) where its
    ``supports`` accepts it (the GPU model takes M ≤ 64).

Both kinds return the generated batch and the sum of the realized utilizations, so the rest of
the engine (units, store, tables, plots) does not depend on the kind.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from rtsched.errors import InputError
from rtsched.platform import GPU, Identical, Platform

if TYPE_CHECKING:
    from rtsched.registry import Analysis

__all__ = [
    "DEFAULT_KIND",
    "GPU_GENERATOR_DEFAULTS",
    "GPU_RANGE_KEYS",
    "KINDS",
    "draw",
    "gpu_generator_keys",
    "gpu_refusal",
    "platform",
]

#: The generator kinds (``[generator] kind``); the first is the default.
KINDS = ("taskset", "gpu")
DEFAULT_KIND = "taskset"

#: Defaults of the GPU generator written into the canonical form (the fingerprint then does
#: not depend on :class:`rtsched.generators.gpu.GPUWorkloadSpec`'s own defaults, which may change).
GPU_GENERATOR_DEFAULTS: dict[str, Any] = {
    "periods": "log-uniform:100:10000",
    "deadlines": "implicit",
    "parallel": (0.5, 0.99),
    "contention": (0.0, 0.3),
    "nonpreemptive": 0.0,
}
#: GPU generator parameters that are ranges ``[lo, hi]`` (tuples inside the engine).
GPU_RANGE_KEYS = ("parallel", "contention")
_GPU_KNOWN_KEYS = ("n", *GPU_GENERATOR_DEFAULTS)
#: Fields of GPUWorkloadSpec the engine sets itself (from m and the swept utilization).
_GPU_ENGINE_FIELDS = ("clusters", "U1")


def gpu_generator_keys() -> tuple[str, ...]:
    """Parameters of the GPU generator a file may set (``n`` and the GPUWorkloadSpec fields but M, U1)."""
    from dataclasses import fields

    from rtsched.generators.gpu import GPUWorkloadSpec

    names = [f.name for f in fields(GPUWorkloadSpec) if f.name not in _GPU_ENGINE_FIELDS]
    return tuple(dict.fromkeys([*_GPU_KNOWN_KEYS, *names]))


def platform(kind: str, m: int) -> Platform:
    """The platform a unit's analyses run on: ``GPU(m)`` for GPU workloads, else ``Identical(m)``.

    The sweep passes it to the registry (``entry.status(batch, platform(kind, m))``): a GPU
    analysis refuses a plain processor count.
    """
    return GPU(m) if kind == "gpu" else Identical(m)


def gpu_refusal(entry: Analysis, m: int) -> str | None:
    """``None`` if ``entry`` analyses GPU workloads on a GPU of ``m`` clusters, else why not.

    Asked of the registry entry's ``supports(GPU(m))`` (the GPU model takes M in 1..64); an
    analysis of task sets is refused whatever ``m``.
    """
    if entry.platform != "gpu":
        return f"an analysis of task sets (platform {entry.platform!r}), not of GPU workloads"
    try:
        gpu = GPU(m)
    except InputError as err:
        return err.message
    return entry.supports(gpu)


def draw(
    kind: str, rng: np.random.Generator, *, n: Any, utilization: float, size: int, m: int, params: Mapping[str, Any]
) -> tuple[Any, float]:
    """Draw ``size`` sets (or workloads) of one configuration; returns the batch and Σ realized U.

    A range ``n = (lo, hi)`` draws each set's size first, then generates the sets of each size in
    increasing order of size (deterministic given ``rng``) and joins them.
    """
    if kind == "taskset":
        try:
            from rtsched.generators import generate_batch  # type: ignore[attr-defined]
        except ImportError as err:  # pragma: no cover - the generators ship with rtsched
            raise InputError(f"rtsched.generators.generate_batch is not available ({err})") from None
        from rtsched.model import TaskSetBatch

        def one(count: int, tasks: int) -> Any:
            return generate_batch(rng, n=tasks, utilization=utilization, size=count, **params)

        def join(batches: list[Any]) -> Any:
            return TaskSetBatch.concatenate(batches)

    elif kind == "gpu":
        from rtsched.generators.gpu import GPUWorkloadBatch, generate_gpu_batch

        def one(count: int, tasks: int) -> Any:
            return generate_gpu_batch(rng, n=tasks, utilization=utilization, size=count, clusters=m, **params)

        def join(batches: list[Any]) -> Any:
            models = {b.deadlines for b in batches}
            return GPUWorkloadBatch(
                [w for b in batches for w in b], "implicit" if models == {"implicit"} else "constrained"
            )

    else:
        raise InputError(f"unknown generator kind {kind!r}; choose one of {', '.join(KINDS)}", field="generator.kind")
    if not isinstance(n, tuple | list):
        out = one(size, int(n))
        return out.batch, float(np.sum(out.realized_utilization))
    sizes = rng.integers(int(n[0]), int(n[1]) + 1, size=size)
    batches = []
    total = 0.0
    for value, count in zip(*np.unique(sizes, return_counts=True), strict=True):
        out = one(int(count), int(value))
        batches.append(out.batch)
        total += float(np.sum(out.realized_utilization))
    return join(batches), total
