"""CPU–GPU segmented tasks (issue #43): the model, files, simulator and Gantt chart.

A task runs on one CPU core and alternates CPU segments and GPU segments; each GPU segment has a
CPU-side part (launch, copies) and a GPU part, and names the GPU or GPU partition it runs on.
While its GPU part runs, the task busy-waits on its core or suspends. Notation and rules:
papers/cpu-gpu-model.md.

* :class:`GPUSegment`, :class:`SegmentedTask`, :class:`SegmentedTaskSet` (immutable, hashable;
  task order = priority order) and :class:`SegmentedBatch` (flat arrays for kernels), in
  :mod:`rtsched.segmented.model`.
* :func:`read_segmented_tasksets`, :func:`write_segmented_tasksets`, :func:`loads_segmented`,
  :func:`dumps_segmented`: YAML and JSON files (:mod:`rtsched.segmented.files`).
* :func:`simulate_segmented` (partitioned FP cores, devices under MPCP, FMLP+ or no contention,
  busy or suspend) and its :class:`SegmentedTrace` and :class:`SegmentedMiss`, in
  :mod:`rtsched.segmented.sim`.
"""

from rtsched.segmented.files import (
    SEGMENTED_FORMATS,
    dumps_segmented,
    loads_segmented,
    read_segmented_tasksets,
    write_segmented_tasksets,
)
from rtsched.segmented.model import (
    DEFAULT_DEVICE,
    MODES,
    GPUSegment,
    SegmentedBatch,
    SegmentedTask,
    SegmentedTaskSet,
    WaitMode,
)
from rtsched.segmented.sim import SegmentedMiss, SegmentedTrace, simulate_segmented

__all__ = [
    "DEFAULT_DEVICE",
    "MODES",
    "GPUSegment",
    "SegmentedBatch",
    "SegmentedTask",
    "SegmentedTaskSet",
    "WaitMode",
    "SEGMENTED_FORMATS",
    "dumps_segmented",
    "loads_segmented",
    "read_segmented_tasksets",
    "write_segmented_tasksets",
    "SegmentedMiss",
    "SegmentedTrace",
    "simulate_segmented",
]
