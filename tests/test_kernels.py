"""Tests of the kernel toolbox (rtsched/kernels.py): exact integer helpers, decorators, re-decision."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from rtsched import kernels
from rtsched.kernels import (
    ACCEPT,
    RECIPROCAL_EXACT,
    REJECT,
    UNDECIDED,
    UNKNOWN,
    dbf,
    deadline_step,
    floor_divmod,
    floor_divmod_any,
    floor_divmod_branchy,
    gcd,
    redecide_by,
    verdict_code,
)

# The edges of floor_divmod's precondition (0 ≤ a < 2**51, 0 < b < 2**51) and the values around
# multiples of b, where a truncated float quotient is most likely off by one.
EDGES = [1, 2, 3, 7, 10, 997, 2**31 - 1, 2**40 + 1, 2**50 - 1, 2**50 + 3, RECIPROCAL_EXACT - 1]


@pytest.mark.parametrize("b", EDGES)
def test_floor_divmod_edges(b: int) -> None:
    """Exact at the ends of its range and next to multiples of b."""
    inv = 1.0 / b
    top = RECIPROCAL_EXACT - 1
    for a in {0, 1, b - 1, b, b + 1, top, top - top % b, top - top % b - 1, (top // b) * b - 1}:
        if 0 <= a <= top:
            assert floor_divmod(np.int64(a), np.int64(b), inv) == divmod(a, b), (a, b)


@given(a=st.integers(0, RECIPROCAL_EXACT - 1), b=st.integers(1, RECIPROCAL_EXACT - 1))
def test_floor_divmod_exact(a: int, b: int) -> None:
    """(⌊a/b⌋, a mod b) exactly under its precondition."""
    assert floor_divmod(np.int64(a), np.int64(b), 1.0 / b) == divmod(a, b)


@given(a=st.integers(0, 2**62), b=st.integers(1, 2**31 - 1))
def test_floor_divmod_any_exact(a: int, b: int) -> None:
    """The guarded version is exact for every non-negative a (integer division from 2**51 on)."""
    assert floor_divmod_any(np.int64(a), np.int64(b), 1.0 / b) == divmod(a, b)


@pytest.mark.parametrize("b", EDGES)
def test_floor_divmod_branchy_edges(b: int) -> None:
    """The branchy variant at the same edges, and past 2**51 (integer division)."""
    inv = 1.0 / b
    top = RECIPROCAL_EXACT - 1
    for a in {0, 1, b - 1, b, b + 1, top, top - top % b, top - top % b - 1, (top // b) * b - 1, top + 1, 2**62}:
        if a >= 0:
            assert floor_divmod_branchy(np.int64(a), np.int64(b), inv) == divmod(a, b), (a, b)


@given(a=st.integers(0, 2**62), b=st.integers(1, RECIPROCAL_EXACT - 1))
def test_floor_divmod_branchy_exact(a: int, b: int) -> None:
    """Exact for every non-negative a, as floor_divmod_any."""
    assert floor_divmod_branchy(np.int64(a), np.int64(b), 1.0 / b) == divmod(a, b)


@given(a=st.integers(-(2**40), 2**40), b=st.integers(-(2**40), 2**40))
def test_gcd(a: int, b: int) -> None:
    """gcd(|a|, |b|), with gcd(0, 0) = 1 so that it can always divide."""
    import math

    assert gcd(np.int64(a), np.int64(b)) == (math.gcd(a, b) or 1)


@given(c=st.integers(1, 50), d=st.integers(1, 60), t=st.integers(1, 80), x=st.integers(0, 400))
def test_dbf(c: int, d: int, t: int, x: int) -> None:
    """dbf(τ, x) = max(0, ⌊(x − D)/T⌋ + 1)·C (Baruah, Mok, Rosier 1990)."""
    expected = max(0, (x - d) // t + 1) * c
    assert dbf(np.int64(c), np.int64(d), np.int64(t), np.int64(x)) == expected


@given(rows=st.lists(st.tuples(st.integers(1, 5), st.integers(1, 20), st.integers(1, 20)), min_size=1, max_size=6))
def test_deadline_step_walk(rows: list[tuple[int, int, int]]) -> None:
    """The walk visits every distinct absolute deadline D_i + k·T_i in order, with h(t)."""
    C = np.array([r[0] for r in rows], dtype=np.int64)
    D = np.array([r[1] for r in rows], dtype=np.int64)
    T = np.array([r[2] for r in rows], dtype=np.int64)
    horizon = 60
    expected = sorted({d + k * p for _, d, p in rows for k in range(horizon) if d + k * p <= horizon})
    nxt = D.copy()
    h = 0
    for t in expected:
        got, c = deadline_step(C, T, nxt)
        h += c
        assert got == t
        assert h == sum(max(0, (t - d) // p + 1) * cc for cc, d, p in rows)


def test_verdict_codes_and_redecide_by() -> None:
    """Reference verdicts map to codes, and only UNDECIDED codes are re-decided."""
    assert (verdict_code(True), verdict_code(False), verdict_code("unknown")) == (ACCEPT, REJECT, UNKNOWN)
    codes = np.array([ACCEPT, UNDECIDED, REJECT, UNDECIDED, UNKNOWN], dtype=np.int8)
    asked = []

    def decide(s: int) -> bool | str:
        asked.append(s)
        return {1: False, 3: "unknown"}[s]

    redecide_by(codes, decide)
    assert asked == [1, 3]
    assert codes.tolist() == [ACCEPT, REJECT, REJECT, UNKNOWN, UNKNOWN]


def test_kernel_decorator_refuses_fastmath() -> None:
    """The decorators fix cache=True and never allow fastmath."""
    with pytest.raises(ValueError, match="fastmath"):
        kernels.kernel(fastmath=True)
    assert gcd.targetoptions["nogil"] is True
    assert "fastmath" not in gcd.targetoptions
    assert type(gcd._cache).__name__ == "FunctionCache"  # cache=True (a NullCache otherwise)


def test_set_drivers_refuse_a_one_set_kernel_of_another_signature():
    from rtsched.kernels import kernel, sets_kernel, workspace_kernels

    @kernel
    def swapped(D, C, T, m):  # pragma: no cover - never compiled
        return 1

    @kernel
    def two_extras(C, D, T, m, budget, limit):  # pragma: no cover - never compiled
        return 1

    for bad in (swapped, two_extras):
        with pytest.raises(TypeError, match="a one-set kernel takes"):
            sets_kernel(bad)
    with pytest.raises(TypeError, match="ints, floats"):
        workspace_kernels(two_extras, ints=1)


def _dispatchers() -> list:
    """Every Numba dispatcher defined in rtsched's and the analyses' modules (imported by the registry)."""
    import sys

    from numba.core.registry import CPUDispatcher

    from rtsched import analyses

    analyses.names()  # imports every analysis module
    found = {}
    for name, module in list(sys.modules.items()):
        if module is None or not name.startswith(("rtsched", "analyses")):
            continue
        for value in vars(module).values():
            if isinstance(value, CPUDispatcher):
                found[id(value)] = value
    return list(found.values())


def test_every_kernel_states_whether_it_is_counted() -> None:
    """``counted`` is explicit on every kernel (Numba's ``_nrt``): a kernel without it would inherit
    ``_nrt=False`` from the first uncounted caller it is compiled for (rtsched.kernels.kernel)."""
    dispatchers = _dispatchers()
    assert len(dispatchers) > 100
    for d in dispatchers:
        assert "_nrt" in d.targetoptions, d.py_func.__qualname__
    uncounted = [d for d in dispatchers if d.targetoptions["_nrt"] is False]
    assert len(uncounted) >= 20


_UNCOUNTED_RETURNS = """
import sys
from numba.core import types
from rtsched import analyses, warmup
sys.path.insert(0, sys.argv[1])
from test_kernels import _dispatchers

batch = warmup.probe_batch()
for name in ("gfb", "bak", "bcl", "bcl-iter", "rta", "bar", "ffdbf", "load", "p-edf", "p:wf:density:qpa", "gfp-rta-lc"):
    analyses.get(name).status(batch, 2)
analyses.get("uni-qpa").status(batch, 1)
checked = 0
for d in _dispatchers():
    if d.targetoptions["_nrt"] is False:
        for sig in d.nopython_signatures:
            returned = sig.return_type
            parts = returned.types if isinstance(returned, types.BaseTuple) else (returned,)
            assert not any(isinstance(t, types.Array) for t in parts), (d.py_func.__qualname__, sig)
            checked += 1
print(checked)
"""


@pytest.mark.slow
def test_uncounted_kernels_return_no_array(tmp_path) -> None:
    """An uncounted kernel (``counted=False``) never returns an array: its caller would count a
    reference the callee never took. Checked on every compiled signature after a probe batch
    through the analyses whose kernels call the uncounted ones, in a process with an empty kernel
    cache (a kernel loaded from the cache does not load the signatures of the kernels it calls).
    About 90 s of compilation, hence slow."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    env = {**os.environ, "RTSCHED_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("NUMBA_CACHE_DIR", None)
    run = subprocess.run(
        [sys.executable, "-c", _UNCOUNTED_RETURNS, str(Path(__file__).parent)],
        env=env, capture_output=True, text=True, timeout=900, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]
    assert int(run.stdout.split()[-1]) >= 20


@pytest.mark.parametrize("forced", ["32", "64"])
def test_wide_vectors_follows_the_override(monkeypatch, forced: str) -> None:
    """``RTSCHED_OPERANDS`` forces the operand width of the kernels that have two (issue #45)."""
    monkeypatch.setenv("RTSCHED_OPERANDS", forced)
    assert kernels.wide_vectors() is (forced == "64")



def test_vectors_256_marks_the_function_that_calls_it() -> None:
    """``vectors_256`` puts LLVM's ``"prefer-vector-width"="256"`` on its caller (issue #45).

    ``_slack.padded_width`` pads rows to 4 int64 lanes on that promise: with 512-bit vectors the
    column loops of bcl-iter and rta would end in scalar remainders. The IR check holds on any
    host; where the same loop compiled without the call uses 512-bit registers (an AVX-512
    target), the marked one must not.
    """
    from numba import njit

    from rtsched.kernels import vectors_256

    @njit(cache=False)
    def marked(a):
        vectors_256()
        for i in range(a.shape[0]):
            a[i] = a[i] * 3 + 1
        return a

    @njit(cache=False)
    def plain(a):
        for i in range(a.shape[0]):
            a[i] = a[i] * 3 + 1
        return a

    assert marked(np.arange(64, dtype=np.int64)).tolist() == plain(np.arange(64, dtype=np.int64)).tolist()
    (signature,) = marked.signatures
    assert '"prefer-vector-width"="256"' in marked.inspect_llvm(signature)
    assert '"prefer-vector-width"="256"' not in plain.inspect_llvm(plain.signatures[0])
    if "zmm" in plain.inspect_asm(plain.signatures[0]):
        assert "zmm" not in marked.inspect_asm(signature)


def _define_line(ir: str, name: str) -> str:
    """The LLVM ``define`` line of the compiled function ``name`` in ``ir`` (Numba's own ABI, with
    its return and exception pointers; the Python and C wrappers left out)."""
    (line,) = [x for x in ir.splitlines() if x.startswith("define") and name in x and "%retptr" in x]
    return line


def test_noalias_marks_the_kernel_s_arrays() -> None:
    """``kernel(noalias=True)`` marks every array argument's data ``noalias`` (issue #45).

    The mark removes LLVM's run-time overlap tests before vectorised loops (BCL-iter's chunk loop:
    papers/bcl2005.md, "No run-time overlap tests"). The flag changes no value: the same loop
    with and without it gives the same result, and without it only Numba's own return, exception
    and environment pointers are marked.
    """
    from rtsched.kernels import kernel

    def scale(out, a, b):
        for i in range(out.shape[0]):
            out[i] = a[i] * 3 + b[i]
        return out.shape[0]

    marked = kernel(noalias=True, cache=False)(scale)
    plain = kernel(cache=False)(scale)
    a, b = np.arange(40, dtype=np.int64), np.arange(40, dtype=np.int64)[::-1].copy()
    out1, out2 = np.empty(40, dtype=np.int64), np.empty(40, dtype=np.int64)
    assert marked(out1, a, b) == plain(out2, a, b) == 40
    assert out1.tolist() == out2.tolist() == (3 * a + b).tolist()
    marked_line = _define_line(marked.inspect_llvm(marked.signatures[0]), "scale")
    plain_line = _define_line(plain.inspect_llvm(plain.signatures[0]), "scale")
    assert plain_line.count("noalias") == 3  # retptr, excinfo and env: Numba's own
    assert marked_line.count("noalias") >= 3 + 3  # and the data (and meminfo) pointers of out, a, b


def test_bcl_iter_chunk_is_compiled_noalias() -> None:
    """BCL-iter's chunk loop keeps its ``noalias`` (its callers pass distinct arrays for what it writes)."""
    from rtsched.analyses.global_edf import bcl_iter

    assert bcl_iter._bcl_iter_chunk._compiler.pipeline_class is kernels._NoAliasCompiler
