"""The operand helpers of BCL-iter's kernel (``_slack.i32``, ``f64``, ``floor_divmod_up32``, ``min_nb``; issue #45).

They must give the values of their int64 forms on the whole domain of time values
(0 ≤ a, b ≤ 2**31 − 1 = ``rtsched.model.MAX_TIME``); the kernel == reference properties cover
them in context, these check the edges of the domain directly.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from rtsched.analyses.global_edf._slack import f64, floor_divmod_up32, i32, min_nb
from rtsched.kernels import RECIPROCAL_UP
from rtsched.model import MAX_TIME

EDGES = [0, 1, 2, 3, 7, 2**16 - 1, 2**16, 2**30 - 1, 2**30, 2**30 + 1, MAX_TIME - 1, MAX_TIME]


def _divmod_up32(a: int, b: int) -> tuple[int, int]:
    inv_up = (1.0 / b) * RECIPROCAL_UP
    q, r = floor_divmod_up32(np.int64(a), np.int64(b), inv_up)
    return int(q), int(r)


@pytest.mark.parametrize("b", [b for b in EDGES if b > 0], ids=lambda b: f"b={b}")
def test_floor_divmod_up32_on_the_edges(b):
    for a in EDGES:
        assert _divmod_up32(a, b) == divmod(a, b), (a, b)


def test_floor_divmod_up32_on_random_values():
    rng = np.random.default_rng(45)
    for a, b in zip(rng.integers(0, MAX_TIME + 1, 500), rng.integers(1, MAX_TIME + 1, 500), strict=True):
        assert _divmod_up32(int(a), int(b)) == divmod(int(a), int(b))
    for a, b in zip(rng.integers(0, MAX_TIME + 1, 500), rng.integers(1, 1000, 500), strict=True):
        assert _divmod_up32(int(a), int(b)) == divmod(int(a), int(b))


@pytest.mark.parametrize("x", [-MAX_TIME, -1, *EDGES], ids=lambda x: f"x={x}")
def test_i32_and_f64_keep_the_value(x):
    assert int(i32(np.int64(x))) == x
    assert float(f64(np.int64(x))) == float(x)


#: min_nb's domain: any two int64 values whose difference fits in int64 (here |a|, |b| ≤ 2**62).
_HALF = st.integers(min_value=-(2**62), max_value=2**62 - 1)


@given(_HALF, _HALF)
@example(0, 0)
@example(-(2**62), 2**62 - 1)
@example(2**62 - 1, -(2**62))
@example(MAX_TIME, MAX_TIME + 1)
@example(-1, 0)
def test_min_nb_is_min(a, b):
    assert int(min_nb(np.int64(a), np.int64(b))) == min(a, b)


# --- Both operand widths (session 25): the host picks one (rtsched.kernels.wide_vectors), the tests run both.

def column_terms() -> list[list[int]]:
    """``_slack.column_term`` on edge and random operands, in this process's form: [D, cap, T, C, S, term]."""
    from rtsched.analyses.global_edf import _slack

    rng = np.random.default_rng(4545)
    top = 2**31 - 1
    cases = [(top, top, 1, 1, 0), (top, 1, top, top, 0), (top, top, top, 1, top - 1), (1, 1, 1, 1, 0)]
    for _ in range(400):
        T = int(rng.integers(1, top + 1)) if rng.random() < 0.5 else int(rng.integers(1, 1000))
        C = int(rng.integers(1, T + 1))
        S = int(rng.integers(0, top - C + 1)) if rng.random() < 0.5 else int(rng.integers(0, 3 * T))
        D = int(rng.integers(1, top + 1)) if rng.random() < 0.5 else int(rng.integers(1, min(10 * T, top) + 1))
        cases.append((D, int(rng.integers(1, D + 1)), T, C, min(S, top - C)))
    width = 4
    work = np.zeros((_slack.SLACK_ROWS, width), dtype=np.int64)
    out = []
    for D, cap, T, C, S in cases:
        work[_slack.W_DEADLINE, :] = D
        work[_slack.W_CAP, :] = cap
        _slack.fill_column_rows(work, width)
        deadline, caps = _slack.column_rows(work, width)
        inv_up = (1.0 / T) * RECIPROCAL_UP
        term = _slack.column_term(work, deadline, caps, 2, _slack.lane(T), inv_up, _slack.lane(C), _slack.lane(S))
        out.append([D, cap, T, C, S, int(term)])
    return out


def raise_changes() -> list[list[int]]:
    """``_slack._raise_slack`` (a raise's column update) in this process's form: [D, cap, T, C, old, new, change]."""
    from rtsched.analyses.global_edf import _slack

    rng = np.random.default_rng(4546)
    top = 2**31 - 1
    cases = [(top, top, 1, 1, 0, top - 1), (top, 1, top, top, 0, 0), (top, top, top, 1, 0, top - 1), (1, 1, 1, 1, 0, 0)]
    cases += [(top, top, top, top, 0, 0), (top - 1, 5, 2**30, 2**30, 0, 2**30 - 1), (10, 11, 4, 3, 0, 1), (10, 11, 4, 1, 1, 3)]
    for _ in range(400):
        T = int(rng.integers(1, top + 1)) if rng.random() < 0.5 else int(rng.integers(1, 1000))
        C = int(rng.integers(1, T + 1))
        D = int(rng.integers(1, top + 1)) if rng.random() < 0.5 else int(rng.integers(1, min(10 * T, top) + 1))
        most = top - C if rng.random() < 0.5 else min(3 * T, top - C)
        old, new = sorted(int(x) for x in rng.integers(0, most + 1, 2))
        cases.append((D, int(rng.integers(1, D + 1)), T, C, old, new))
    width = 4
    work = np.zeros((_slack.SLACK_ROWS, width), dtype=np.int64)
    out = []
    for D, cap, T, C, old, new in cases:
        work[_slack.W_DEADLINE, :] = D
        work[_slack.W_CAP, :] = cap
        work[_slack.W_TOTAL, :] = 0
        _slack.fill_column_rows(work, width)
        _slack._raise_slack(work, np.int64(C), np.int64(T), 1.0 / T, np.int64(old), np.int64(new), width, np.int64(1))
        out.append([D, cap, T, C, old, new, int(work[_slack.W_TOTAL, 2])])
    return out


def lower_bounds_both_ways() -> list[list[int]]:
    """S^lb (row W_SLACK) and the open rows of ``_slack.slack_lower_bounds`` with the clamped quotient and without.

    Sets with deadlines and periods up to 2**31 − 1 and heavy tasks, so that the quotient Q_k
    often exceeds 2**31 − 1 (where the clamped form caps it). Each entry: [n, open rows clamped,
    open rows exact, S^lb clamped ..., S^lb exact ...].
    """
    from rtsched.analyses.global_edf import _slack
    from rtsched.kernels import kernel

    @kernel(cache=False)
    def both(C, D, T, m, work, fwork):
        n = C.shape[0]
        _, clamped = _slack.slack_lower_bounds(C, D, T, 0, n, m, work, fwork, True)
        first = work[_slack.W_SLACK, :n].copy()
        _, exact = _slack.slack_lower_bounds(C, D, T, 0, n, m, work, fwork, False)
        return clamped, exact, first, work[_slack.W_SLACK, :n].copy()

    rng = np.random.default_rng(4547)
    top = 2**31 - 1
    out = []
    for _ in range(300):
        n = int(rng.integers(1, 14))
        big = rng.random() < 0.5
        T = rng.integers(top // 4 if big else 1, (top if big else 1000) + 1, n)
        C = np.minimum(rng.integers(1, T + 1), T)
        D = np.minimum(np.maximum(C, rng.integers(1, T + 1)), T)
        m = int(rng.integers(1, 5))
        work = np.zeros((_slack.SLACK_ROWS, _slack.padded_width.py_func(n)), dtype=np.int64)
        fwork = np.zeros((_slack.SLACK_FLOAT_ROWS, _slack.padded_width.py_func(n)))
        clamped, exact, s_clamped, s_exact = both(C.astype(np.int64), D.astype(np.int64), T.astype(np.int64), m, work, fwork)
        out.append([n, int(clamped), int(exact), *map(int, s_clamped), *map(int, s_exact)])
    return out


def assert_lower_bounds_agree(entries: list[list[int]]) -> None:
    """Each entry of :func:`lower_bounds_both_ways`: the same open rows and S^lb both ways."""
    for n, clamped, exact, *rows in entries:
        assert clamped == exact and rows[:n] == rows[n:], (n, clamped, exact, rows)


def assert_raises_are_eq17(entries: list[list[int]]) -> None:
    """Each entry of :func:`raise_changes`: the change is Eq. (17)'s term at the new slack minus at the old."""
    for D, cap, T, C, old, new, change in entries:
        assert change == _exact_term(D, cap, T, C, new) - _exact_term(D, cap, T, C, old), (D, cap, T, C, old, new)


def test_clamped_quotient_gives_the_same_lower_bounds() -> None:
    """S^lb with the quotient clamped at 2**31 − 1 (the int32 form on AVX2) equals S^lb without it."""
    assert_lower_bounds_agree(lower_bounds_both_ways())


def test_raise_change_is_eq17_in_this_form() -> None:
    """A raise's change of every sum (the raise form of _slack, int64 or 32-bit lanes) on edge values."""
    assert_raises_are_eq17(raise_changes())


def _exact_term(D: int, cap: int, T: int, C: int, S: int) -> int:
    q, r = divmod(D, T)
    return min(q * C + min(C, max(r - S, 0)), cap)


def test_column_term_is_eq17_in_this_form() -> None:
    """min(J_i^k(S_i), cap_k) of the column loops (int64 or 32-bit lanes, as this host picks) on edge values."""
    assert all(term == _exact_term(*case) for *case, term in column_terms())


OTHER_FORM = """
import json, sys
import numpy as np
from rtsched import registry
from rtsched.analyses.global_edf import _slack
from rtsched.generators import generate_batch
from rtsched.kernels import RECIPROCAL_UP, wide_vectors
sys.path.insert(0, sys.argv[1])
from test_slack_narrow import column_terms, lower_bounds_both_ways, raise_changes
rng = np.random.default_rng(2525)
out = {"wide": wide_vectors(), "codes": {}, "divmod": [], "widths": [int(_slack.padded_width(n)) for n in range(20)]}
for a, b in zip(rng.integers(0, 2**31, 300).tolist(), rng.integers(1, 2**31, 300).tolist()):
    q, r = _slack.floor_divmod_up32(np.int64(a), np.int64(b), (1.0 / b) * RECIPROCAL_UP)
    out["divmod"].append([a, b, int(q), int(r)])
for n, u, periods in ((6, 1.5, "log-uniform:10:1000"), (12, 2.0, "log-uniform:1000:100000")):
    batch = generate_batch(np.random.default_rng(n), n=n, utilization=u, size=150, periods=periods,
                           deadlines="uniform").batch
    for name in ("bcl-iter", "rta"):
        out["codes"][f"{name} {n}"] = registry.get(name).decide(batch, 4).tolist()
out["terms"] = column_terms()
out["raises"] = raise_changes()
out["lower_bounds"] = lower_bounds_both_ways()
print(json.dumps(out))
"""


def test_both_operand_widths_give_the_reference_verdicts(other_operand_width, same_codes_both_widths) -> None:
    """The form the host does not pick, compiled in a fresh process: the same values and verdicts."""
    from rtsched import registry
    from rtsched.kernels import verdict_code

    other, out = other_operand_width(OTHER_FORM, str(Path(__file__).parent))
    assert out["wide"] is (other == "64")
    assert all(term == _exact_term(*case) for *case, term in out["terms"])
    assert_raises_are_eq17(out["raises"])
    assert_lower_bounds_agree(out["lower_bounds"])
    assert out["widths"] == [-(-n // 4) * 4 for n in range(20)]  # 4 int64 lanes in both forms (vectors_256)
    assert all((q, r) == divmod(a, b) for a, b, q, r in out["divmod"])
    batches = ((6, 1.5, "log-uniform:10:1000"), (12, 2.0, "log-uniform:1000:100000"))
    same_codes_both_widths(
        out, batches, 150, 4, ("bcl-iter", "rta"), lambda name, ts: int(verdict_code(registry.get(name).verdict(ts, 4)))
    )


@pytest.mark.parametrize("top", [2**16, 2**30, MAX_TIME], ids=lambda t: f"top={t}")
def test_rta_plain_sum_is_exact_on_both_sides_of_the_32_bit_window(top: int) -> None:
    """RTA's plain pass (``rta._plain_sum``): Σ min(W_i(R), J_i, cap) exactly, whether every window
    R + E_i fits in 31 bits (floor_divmod_up32, no correction step) or not (int64 floor_divmod)."""
    from rtsched.analyses.global_edf import rta

    rng = np.random.default_rng(top)
    for _ in range(300):
        n = int(rng.integers(1, 12))
        T = rng.integers(1, top + 1, n)
        C = np.minimum(rng.integers(1, top + 1, n), T)
        E = rng.integers(0, top + 1, n)
        J = rng.integers(0, 2 * top, n)
        R = int(rng.integers(0, top + 1))
        cap = int(rng.integers(1, top + 1))
        inv_T = 1.0 / T.astype(np.float64)
        e_max = int(E.max())
        expected = 0
        for c, t, e, j in zip(C.tolist(), T.tolist(), E.tolist(), J.tolist(), strict=True):
            q, r = divmod(R + e, t)
            expected += min(q * c + min(c, r), j, cap)
        assert rta._plain_sum(C, T, inv_T, J, E, R, cap, n, e_max) == expected
