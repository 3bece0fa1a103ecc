"""Mixed-criticality (Vestal) task sets: the model, files, generators' output and the mode-switch simulator.

Vestal's model (S. Vestal, "Preemptive scheduling of multi-criticality systems with varying degrees
of execution time assurance", RTSS 2007) with two levels, as analysed by Baruah, Burns and Davis
(RTSS 2011) and Baruah et al. (ECRTS 2012): each task has a criticality (LO or HI) and one WCET per
level up to its own, ``C(LO) <= C(HI)``. Definitions, notation and the generator's rules:
papers/mc-model.md (issue #44).

* :class:`MCTask`, :class:`MCTaskSet` (immutable, hashable; task order = FP priority order) and
  :class:`MCBatch` (flat arrays for kernels), in :mod:`rtsched.mc.model`;
* :func:`read_mc_tasksets`, :func:`write_mc_tasksets`, :func:`loads_mc`, :func:`dumps_mc`: YAML,
  JSON and CSV, in :mod:`rtsched.mc.files`;
* :func:`simulate_mc`, the mode-switch simulator (:class:`MCTrace`, :class:`MCDeadlineMiss`,
  :func:`switch_search`), in :mod:`rtsched.mc.sim` (papers/mc-simulator.md).
"""

from rtsched.mc.files import MC_FORMATS, dumps_mc, loads_mc, read_mc_tasksets, write_mc_tasksets
from rtsched.mc.model import HI, LEVELS, LO, MCBatch, MCTask, MCTaskSet, level_index
from rtsched.mc.sim import MCDeadlineMiss, MCTrace, simulate_mc, switch_search

__all__ = [
    "HI",
    "LEVELS",
    "LO",
    "MC_FORMATS",
    "MCBatch",
    "MCDeadlineMiss",
    "MCTask",
    "MCTaskSet",
    "MCTrace",
    "dumps_mc",
    "level_index",
    "loads_mc",
    "read_mc_tasksets",
    "simulate_mc",
    "switch_search",
    "write_mc_tasksets",
]
