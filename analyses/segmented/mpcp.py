"""MPCP for GPU access: lock-based GPU segments, busy and suspend (``seg-mpcp-busy``, ``seg-mpcp-suspend``).

After P. Patel, I. Baek, H. Kim, R. Rajkumar, "Analytical enhancements and practical insights for
MPCP with self-suspensions", RTAS 2018, and H. Kim, P. Patel, S. Wang, R. Rajkumar, "A server-based
approach for predictable GPU access control", RTCSA 2017 / J. Systems Architecture 88, 2018 (the
synchronization-based approach: the GPU as a global resource under MPCP). Note:
papers/patel2018-mpcp-gpu.md. Semantics: papers/cpu-gpu-model.md, protocol ``"mpcp"``: each
device's queue ordered by base priority, holders boosted on their cores and ordered by base
priority among themselves.

**rtsched's own analysis, "after" the papers**: only their abstracts could be read with this
project's tools, so no equation is the papers'; the tags are rtsched's and the note proves each.
The shared equations are in :mod:`rtsched.analyses.segmented._locking`; the MPCP-specific ones:

(H-MPCP) H_{k,s} = G_{k,s} + Σ_{h<k, P_h=P_k} ⌈(H + max(0, D_h − β_h^{≠d}))/T_h⌉ · β_h^{≠d}
(W-MPCP) W_i^d = max_{l>i} H_{l,s}^{(d)} + Σ_{h<i} ⌈(W + R_h)/T_h⌉ · Σ_{s: d_{h,s}=d} H_{h,s}

(WJ-MPCP) Σ_d [n_i^d · max_{l>i} H_l^{(d)} + Σ_{h<i} ⌈(t + R_h)/T_h⌉ · Σ_{s: d_{h,s}=d} H_{h,s}]  (job-driven)

then (OWN) own_i(t) = C_i + G_i + min(Σ_j W, (WJ)(t)), (E), (RJ), (RQ), (R) as in ``_locking``:
R_i = min((RJ), (RQ)) ≤ D_i for every task.

Per-task modes: a task with its own mode keeps it; the registered mode applies to the others
(``seg-mpcp-busy``: busy, ``seg-mpcp-suspend``: suspend).

Layers: :func:`reference` (Python ints), :func:`explain` (per-task rows: core, mode, waiting per
device, own work, (RJ), (RQ), lower-priority blocking at R, R; the holding times; the failing
term; steps) and :func:`codes` (Numba, ``prange`` over the sets of a
:class:`~rtsched.segmented.SegmentedBatch`). No work budget: every fixed point climbs to at most
a deadline.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from rtsched.analyses.segmented import _locking
from rtsched.result import Explanation
from rtsched.segmented.model import SegmentedBatch, SegmentedTaskSet, WaitMode

__all__ = ["ANALYSES", "CITATION", "NOTE", "codes", "explain", "reference"]

CITATION = (
    "rtsched's analysis after P. Patel, I. Baek, H. Kim, R. Rajkumar, 'Analytical enhancements and practical "
    "insights for MPCP with self-suspensions', RTAS 2018, and H. Kim et al., 'A server-based approach for "
    "predictable GPU access control', RTCSA 2017 / JSA 2018 (synchronization-based approach); the papers' "
    "equations could not be read: (H-MPCP), (W-MPCP), (RJ), (RQ) are rtsched's, proved in the note"
)
NOTE = "papers/patel2018-mpcp-gpu.md"


def reference(ts: SegmentedTaskSet, m: int, *, mode: WaitMode = "suspend") -> bool:
    """True iff (R) holds for every task under MPCP (Python ints)."""
    return _locking.reference(ts, m, mode=mode, protocol="mpcp")


def explain(ts: SegmentedTaskSet, m: int, *, mode: WaitMode = "suspend") -> Explanation:
    """Per-task rows, holding and waiting bounds, the failing term and the steps (MPCP)."""
    return _locking.explain(ts, m, mode=mode, protocol="mpcp")


def codes(batch: SegmentedBatch, m: int, *, mode: WaitMode = "suspend") -> NDArray[np.int8]:
    """Codes per set (1 accept, 0 reject): the Numba kernel of ``_locking`` under MPCP."""
    return _locking.locking_codes(batch, m, mode, "mpcp")


ANALYSES = _locking.entries(
    "mpcp", citation=CITATION, note=NOTE, reference=reference, explain=explain, codes=codes, order=10
)
