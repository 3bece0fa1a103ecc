"""Both operand widths of the EDF demand kernels (analyses/theory/_operands.py; issue #45, AVX2 hosts).

The host picks one form (``rtsched.kernels.wide_vectors``: int64 operands on AVX-512DQ targets, 32-bit
operands otherwise); the other one is compiled here in a fresh process with ``RTSCHED_OPERANDS``
forced and a kernel cache of its own. Both must give the reference's values: h(t), max{d < t}
and W(w) on the edges of the 32-bit domain (t, w, C, D, T up to 2**31 − 1), and the uni-qpa and
uni-pda codes on mixed batches (small, large and near-2**31 periods).
"""

from __future__ import annotations

import json

import numpy as np

from rtsched.analyses.theory import edf_demand as dm
from rtsched.kernels import verdict_code, wide_vectors
from rtsched.model import MAX_TIME

EDGES = [1, 2, 3, 7, 2**16, 2**30 - 1, 2**30, MAX_TIME - 1, MAX_TIME]

#: Rows whose values hit the edges of the 32-bit domain (U ≤ 1 each, as the kernels assume).
EDGE_ROWS = [
    [(1, 1, 1)],
    [(1, 1, 2), (1, 2, 3)],
    [(1, MAX_TIME, MAX_TIME)],
    [(1, 1, MAX_TIME), (2**29, 2**30, 2**31 - 2)],
    [(3, 7, 2**16), (2**15, 2**16, 2**17), (1, MAX_TIME - 1, MAX_TIME)],
    [(2**30, 2**30, MAX_TIME), (1, 3, 7)],
]

BATCHES = (  # (n, utilization, periods): mixed verdicts on one processor
    (6, 0.97, "log-uniform:10:1000"),
    (10, 0.99, "log-uniform:1000:1000000"),
    (4, 0.995, "log-uniform:100000000:2147480000"),
)

OTHER_FORM = """
import json, sys
import numpy as np
from rtsched import registry
from rtsched.analyses.theory import _operands, edf_demand as dm
from rtsched.generators import generate_batch
from rtsched.kernels import wide_vectors
cases = json.loads(sys.argv[1])
out = {"wide": wide_vectors(), "narrow": _operands.NARROW, "h": [], "w": [], "codes": {}}
for rows, ts_, ws_ in cases:
    C, D, T = (np.array(col, dtype=np.int64) for col in zip(*rows))
    inv_T = 1.0 / T
    fits = bool(dm.fit32(C, D, T, len(rows)))
    for t in ts_:
        h, prev = dm._h_prev(C, D, T, inv_T, len(rows), np.int64(t), fits)
        out["h"].append([int(h), int(prev), fits])
    for w in ws_:
        out["w"].append(int(dm._busy_period_step(C, T, inv_T, len(rows), np.int64(w), fits)))
for n, u, periods in json.loads(sys.argv[2]):
    batch = generate_batch(np.random.default_rng(n), n=n, utilization=u, size=120, periods=periods,
                           deadlines="uniform").batch
    for name in ("uni-qpa", "uni-pda"):
        out["codes"][f"{name} {n}"] = registry.get(name).decide(batch, 1).tolist()
print(json.dumps(out))
"""


def _cases() -> list[tuple[list[tuple[int, int, int]], list[int], list[int]]]:
    cases = []
    for rows in EDGE_ROWS:
        ts = sorted({0, *EDGES, *(d for _, d, _ in rows), *(d + 1 for _, d, _ in rows if d < MAX_TIME)})
        ws = sorted({0, sum(c for c, _, _ in rows), *(e for e in EDGES if e <= MAX_TIME - 1)})
        cases.append((rows, ts, ws))
    return cases


def test_other_operand_width_gives_the_reference_values(other_operand_width, same_codes_both_widths) -> None:
    """The form the host does not pick, in a fresh process: h(t), max{d < t}, W(w) and the codes."""
    cases = _cases()
    other, out = other_operand_width(OTHER_FORM, json.dumps(cases), json.dumps(BATCHES))
    assert out["wide"] is (other == "64")
    assert out["narrow"] is (other == "32")
    expected_h = []
    expected_w: list[int] = []
    for rows, ts, ws in cases:
        for t in ts:
            prev = dm.prev_deadline(rows, t)
            expected_h.append([dm.demand(rows, t), -1 if prev is None else prev, other == "32"])
        expected_w.extend(dm.busy_period_function(rows, w) for w in ws)
    assert out["h"] == expected_h
    assert out["w"] == expected_w

    def reference(name: str, ts) -> int:
        trace = dm.qpa_trace if name == "uni-qpa" else dm.pda_trace
        return int(verdict_code(trace(ts.rows()).verdict))

    same_codes_both_widths(out, BATCHES, 120, 1, ("uni-qpa", "uni-pda"), reference)


def test_fit32_refuses_values_past_the_32_bit_domain() -> None:
    """Scaled rows (DAG tasks) may exceed 2**31 − 1: the 32-bit form must not take them."""
    C = np.array([1, 2], dtype=np.int64)
    D = np.array([5, 2**31], dtype=np.int64)
    T = np.array([9, 2**32], dtype=np.int64)
    assert not dm.fit32(C, D, T, 2)
    assert bool(dm.fit32(C[:1], D[:1], T[:1], 1)) is (not wide_vectors())
