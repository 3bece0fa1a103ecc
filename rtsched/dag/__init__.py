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
  Bertogna, in :mod:`rtsched.dag.files`.
"""

from rtsched.dag.files import DAG_FORMATS, dumps_dag, loads_dag, read_dag_tasksets, write_dag_tasksets
from rtsched.dag.model import DEFAULT_TYPE, MAX_VERTICES, DAGBatch, DAGTask, DAGTaskSet, SPTree

__all__ = [
    "DAG_FORMATS",
    "DEFAULT_TYPE",
    "MAX_VERTICES",
    "DAGBatch",
    "DAGTask",
    "DAGTaskSet",
    "SPTree",
    "dumps_dag",
    "loads_dag",
    "read_dag_tasksets",
    "write_dag_tasksets",
]
