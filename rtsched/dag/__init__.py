"""Sporadic parallel DAG tasks: the model and its files (issue #42).

The sporadic DAG task model (S. Baruah, V. Bonifaci, A. Marchetti-Spaccamela, L. Stougie,
A. Wiese, "A generalized parallel task model for recurrent real-time processes", RTSS 2012): a
task releases jobs at least ``T`` apart, each a directed acyclic graph of vertices with WCETs and
precedence edges, to complete within ``D`` of its release. Definitions (volume, length, the
series-parallel decomposition), the file formats and a worked example: papers/dag-model.md.

* :class:`DAGTask`, :class:`DAGTaskSet` (immutable, hashable) and :class:`DAGBatch` (flat int64
  arrays for kernels), in :mod:`rtsched.dag.model`;
* :func:`read_dag_tasksets`, :func:`write_dag_tasksets`, :func:`loads_dag`, :func:`dumps_dag`:
  YAML, JSON, DOT (graphviz) and the YAML of the DAG survey library of Verucchi, Olmedo and
  Bertogna, in :mod:`rtsched.dag.files`;
* :func:`simulate_dag`, a node-level G-EDF / G-FP simulator (:class:`DAGTrace`,
  :class:`DAGDeadlineMiss`), in :mod:`rtsched.dag.sim`;
* :func:`plot_dag_gantt`, a Gantt chart of a recorded run, in :mod:`rtsched.dag.gantt`.
"""

from rtsched.dag.files import DAG_FORMATS, dumps_dag, loads_dag, read_dag_tasksets, write_dag_tasksets
from rtsched.dag.gantt import plot_dag_gantt
from rtsched.dag.model import DEFAULT_TYPE, MAX_VERTICES, DAGBatch, DAGTask, DAGTaskSet, SPTree
from rtsched.dag.sim import DAG_MAX_HORIZON, DAG_POLICIES, DAGDeadlineMiss, DAGTrace, default_dag_horizon, simulate_dag

__all__ = [
    "DAG_FORMATS",
    "DAG_MAX_HORIZON",
    "DAG_POLICIES",
    "DEFAULT_TYPE",
    "MAX_VERTICES",
    "DAGBatch",
    "DAGDeadlineMiss",
    "DAGTask",
    "DAGTaskSet",
    "DAGTrace",
    "SPTree",
    "default_dag_horizon",
    "dumps_dag",
    "loads_dag",
    "plot_dag_gantt",
    "read_dag_tasksets",
    "simulate_dag",
    "write_dag_tasksets",
]
