"""The inliner fix of rtsched._numba_inline: same machine code, independent copies, opt-out."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rtsched import _numba_inline

# Compiles a few analyses whose kernels inline helpers (13 inline_ir calls) in a fresh process
# and cache, and prints the digest of each compiled signature's assembly.
ASSEMBLY = """
import hashlib, json, sys
from numba import njit
from numba.core.registry import CPUDispatcher
from rtsched import registry, _numba_inline
from rtsched.warmup import probe_batch

@njit(inline="always")
def helper(a, k):
    s = 0
    for i in range(a.size):
        if a[i] > k:
            s += a[i] - k
        elif a[i] == k:
            s += 1
        else:
            s -= 1
    return s

@njit
def outer(a):
    return helper(a, 1) + helper(a, 2) * helper(a, 3)

import numpy as np
outer(np.arange(5))
batch = probe_batch()
for name in ("bak", "bcl", "load"):
    registry.get(name).decide(batch, 2)
out = {"active": _numba_inline.active(), "outer": hashlib.sha256(outer.inspect_asm(outer.signatures[0]).encode()).hexdigest()}
import gc
for obj in gc.get_objects():
    if isinstance(obj, CPUDispatcher) and obj.py_func.__module__.startswith("rtsched"):
        for sig in obj.signatures:
            key = f"{obj.py_func.__module__}.{obj.py_func.__qualname__}{sig}"
            out[key] = hashlib.sha256(obj.inspect_asm(sig).encode()).hexdigest()
print(json.dumps(out))
"""


def _assembly(tmp_path: Path, fast: str) -> dict[str, object]:
    env = dict(os.environ, RTSCHED_FAST_INLINE=fast, RTSCHED_CACHE_DIR=str(tmp_path / f"cache-{fast}"))
    env.pop("NUMBA_CACHE_DIR", None)
    done = subprocess.run([sys.executable, "-c", ASSEMBLY], env=env, capture_output=True, text=True, check=True)
    result: dict[str, object] = json.loads(done.stdout.splitlines()[-1])
    return result


def test_same_machine_code_with_and_without_the_fix(tmp_path: Path) -> None:
    fixed = _assembly(tmp_path, "1")
    plain = _assembly(tmp_path, "0")
    assert fixed.pop("active") is True, "the fix is not installed on this Numba; update _numba_inline"
    assert plain.pop("active") is False
    assert len(fixed) >= 4  # outer and the kernels of bak, bcl and load
    assert fixed == plain


def test_copies_share_one_scope_and_are_independent() -> None:
    from numba.core import ir
    from numba.core.compiler import run_frontend

    def f(a: int) -> int:
        s = 0
        for i in range(a):
            if i % 2:
                s += i
        return s

    func_ir = run_frontend(f)
    copies = _numba_inline._Copies(ir.Block)
    blocks = {label: copies.deepcopy(block) for label, block in func_ir.blocks.items()}
    assert len(blocks) > 2
    scopes = {id(block.scope) for block in blocks.values()}
    assert len(scopes) == 1  # as in the original IR, whose blocks share one scope
    (scope,) = {block.scope for block in blocks.values()}
    assert scope is not next(iter(func_ir.blocks.values())).scope
    for label, block in blocks.items():
        assert block is not func_ir.blocks[label]
        assert [str(s) for s in block.body] == [str(s) for s in func_ir.blocks[label].body]
    # Mutating the copy leaves the original alone.
    first = min(blocks)
    before = [str(s) for s in func_ir.blocks[first].body]
    blocks[first].body.clear()
    scope.redefine("rtsched_new_name", loc=func_ir.loc)
    assert [str(s) for s in func_ir.blocks[first].body] == before
    assert "rtsched_new_name" not in func_ir.blocks[first].scope.localvars._con
    # Anything else goes to the standard copy module.
    assert copies.copy([1, 2]) == [1, 2]
    assert copies.deepcopy({"a": [1]}) == {"a": [1]}


@pytest.mark.parametrize("value", ["0"])
def test_opt_out(value: str, tmp_path: Path) -> None:
    code = "from rtsched import _numba_inline, kernels\nprint(_numba_inline._state['listening'])"
    env = dict(os.environ, RTSCHED_FAST_INLINE=value, RTSCHED_CACHE_DIR=str(tmp_path))
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"
