"""FMLP+ for GPU access: lock-based GPU segments, busy and suspend (``seg-fmlp-busy``, ``seg-fmlp-suspend``).

After B. B. Brandenburg, "The FMLP+: an asymptotically optimal real-time locking protocol for
suspension-aware analysis", ECRTS 2014, pp. 61-71 (and the partitioned FMLP+ of his 2011
dissertation), applied to GPU segments as in the GPU literature (Patel et al., RTAS 2018; Wang
et al., ECRTS 2024, compare MPCP and FMLP+). Note: papers/brandenburg2014-fmlp-plus.md.
Semantics: papers/cpu-gpu-model.md, protocol ``"fmlp+"``: each device's queue in request order
(ties by priority), holders boosted on their cores and ordered by grant time, earlier first.

**rtsched's own analysis, "after" the paper**: only its abstract could be read with this
project's tools; the tags are rtsched's and the note proves each. The shared equations are in
:mod:`rtsched.analyses.segmented._locking`; the FMLP+-specific ones:

(H-FMLP) H_{k,s} = G_{k,s} + Σ_{l≠k, P_l=P_k} max_{s': d_{l,s'} ≠ d} b_{l,s'}
(W-FMLP) W_i^d = Σ_{k≠i uses d} max_{s: d_{k,s}=d} H_{k,s}

(at most one request of every other task is ahead in the FIFO queue: with D ≤ T and no deadline
missed so far each task has at most one pending job, and a job at most one pending request), then
(WJ-FMLP) Σ_d Σ_{k≠i} min(n_i^d, ⌈(t + X_k)/T_k⌉ · n_k^d) · max_s H_{k,s}^{(d)} (job-driven; X_k = R_k
above τ_i, D_k below), then (OWN) own_i(t) = C_i + G_i + min(Σ_j W, (WJ)(t)), (E), (RJ), (RQ), (R)
as in ``_locking``.

Per-task modes: a task with its own mode keeps it; the registered mode applies to the others.

Layers: :func:`reference` (Python ints), :func:`explain` (per-task rows, holding and waiting
bounds, failing term, steps) and :func:`codes` (Numba, ``prange`` over the sets of a
:class:`~rtsched.segmented.SegmentedBatch`). No work budget.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from rtsched.analyses.segmented import _locking
from rtsched.result import Explanation
from rtsched.segmented.model import SegmentedBatch, SegmentedTaskSet, WaitMode

__all__ = ["ANALYSES", "CITATION", "NOTE", "codes", "explain", "reference"]

CITATION = (
    "rtsched's analysis after B. B. Brandenburg, 'The FMLP+: an asymptotically optimal real-time locking "
    "protocol for suspension-aware analysis', ECRTS 2014 (FIFO queues, priority boosting in grant order); the "
    "paper's equations could not be read: (H-FMLP), (W-FMLP), (RJ), (RQ) are rtsched's, proved in the note"
)
NOTE = "papers/brandenburg2014-fmlp-plus.md"


def reference(ts: SegmentedTaskSet, m: int, *, mode: WaitMode = "suspend") -> bool:
    """True iff (R) holds for every task under FMLP+ (Python ints)."""
    return _locking.reference(ts, m, mode=mode, protocol="fmlp+")


def explain(ts: SegmentedTaskSet, m: int, *, mode: WaitMode = "suspend") -> Explanation:
    """Per-task rows, holding and waiting bounds, the failing term and the steps (FMLP+)."""
    return _locking.explain(ts, m, mode=mode, protocol="fmlp+")


def codes(batch: SegmentedBatch, m: int, *, mode: WaitMode = "suspend") -> NDArray[np.int8]:
    """Codes per set (1 accept, 0 reject): the Numba kernel of ``_locking`` under FMLP+."""
    return _locking.locking_codes(batch, m, mode, "fmlp+")


ANALYSES = _locking.entries(
    "fmlp+", citation=CITATION, note=NOTE, reference=reference, explain=explain, codes=codes, order=20
)
