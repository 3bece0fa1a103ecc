"""The GPU workload model: kernels with WCET tables and contention factors, layouts, files.

rtsched's model, after Zahaf et al. (RTNS 2021) (papers/zahaf2021-gpu-partitioning.md; only the
paper's abstract was reachable, so the model and its assumptions A1–A7 are rtsched's, not the
paper's), shared by the GPU analyses (``rtsched.analyses.gpu.partitioning``, registry names
``gpu``, ``gpu:ffd``, ``gpu:bfd``, ``gpu:exhaustive``, ``gpu:single`` on the platform
:class:`~rtsched.platform.GPU` ``(M)``), the generator (:mod:`rtsched.generators.gpu`) and the CLI
(``rtsched gpu``, ``rtsched check --platform gpu:<M>``):

* :class:`GPUWorkload` of :class:`Kernel` s τ = (C(s), D, T): a WCET profile C(s) for a
  partition of s compute clusters (:class:`TableWCET`, :class:`AmdahlWCET`,
  :class:`SaturatingWCET`; non-increasing in s), a constrained deadline, the slowdown factors
  f(k) with k other active partitions (exact rationals), preemptive or not;
* :func:`inflate`, the sound inflation rule C' = ⌈C(s)·f(K − 1)⌉ (Eq. (I) of the note);
* :func:`layouts`, the integer partitions of the GPU's M clusters, and the layout spaces of
  :mod:`~rtsched.gpu.layouts` (``free``, ``tpc:<k>``, ``mig:a100``/``mig:h100``);
* interference by co-runner: memory-intensity classes and slowdown rows f(k | c)
  (:meth:`GPUWorkload.factor`, Eq. (I') of the note), or ``count-only`` (today's f(k));
* reading and writing workload files (:func:`loads_gpu`, :func:`read_gpu_workload`,
  :func:`dumps_gpu`; schema in the note), and measured profiles in CSV they reference
  (:mod:`~rtsched.gpu.profiles`: WCETs per partition size, slowdown matrices by co-runner class);
* :func:`format_gpu_report`, the terminal table of a GPU analysis's report (the ``report``
  evidence of the GPU analyses' explanations);
* :class:`GPUWorkloadBatch`, the workloads a sweep unit draws.

Modules: :mod:`~rtsched.gpu.model` (the model and the batch), :mod:`~rtsched.gpu.layouts`
(partition mechanisms), :mod:`~rtsched.gpu.files` (YAML and JSON files),
:mod:`~rtsched.gpu.profiles` (measured profiles in CSV) and :mod:`~rtsched.gpu.report` (the
terminal table).
"""

from rtsched.gpu import model
from rtsched.gpu.files import dumps_gpu, loads_gpu, read_gpu_workload
from rtsched.gpu.layouts import GPU_PRESETS, MIG_TABLES, LayoutSpace, layout_space
from rtsched.gpu.model import *  # noqa: F403  (re-exports exactly model.__all__, listed once, there)
from rtsched.gpu.report import format_gpu_report

__all__ = [
    "GPU_PRESETS",
    "MIG_TABLES",
    "LayoutSpace",
    "dumps_gpu",
    "format_gpu_report",
    "layout_space",
    "loads_gpu",
    "read_gpu_workload",
]
__all__ += model.__all__
