"""Numba's IR inliner without its quadratic copies: a compile-time fix, same machine code.

Why
---
rtsched's kernels inline their helpers (``inline="always"``) where LLVM would leave an
uncounted call in a hot loop. Numba (0.59 to at least 0.68) inlines a callee with
``InlineWorker.inline_ir``, which deep-copies the callee's IR *block by block*, each block in
its own ``copy.deepcopy`` call. Every variable of a block refers to the function's one
:class:`numba.core.ir.Scope`, which holds every variable of the function, so each block's copy
copies the whole scope again: the cost grows with blocks × variables, and ``inline_ir`` does it
twice (once to mutate, once for an unmutated copy that Numba's callers discard). On a cold
cache this was 4 s of p-edf's ~15 s compilation and 4 s of bcl-iter's ~9 s (issue #46; the
same cost is reported upstream: numba/numba#8989, NVIDIA/numba-cuda#688).

What changes
------------
Inside one ``inline_ir`` call, the blocks copied from one scope share one ``deepcopy`` memo,
so the scope is copied once per copy of the callee, as a single ``copy.deepcopy`` of the whole
IR would do (the blocks of the copy then share one scope, as the blocks of the original do;
``inline_ir`` itself asserts that a callee has one scope). Every copy Numba makes is still
made and is still independent of its source; only the repeated copies of the scope are gone.
Nothing else in Numba is touched: the module global ``copy`` of
``numba.core.inline_closurecall`` is replaced by a stand-in for the duration of each
``inline_ir`` call (Numba compiles under one global lock, so no other compilation sees it),
and every other use of ``copy`` goes to the standard module.

Checked: the machine code of the default sweep's 57 deterministic kernel signatures is
byte-identical with and without this (``tests/test_numba_inline.py`` compares a sample in
fresh processes); two exact-search kernels whose assembly differs between two runs of
unpatched Numba anyway were compared by verdicts. Installed by :mod:`rtsched.kernels` at the
first compilation in a process (a ``numba:compile`` event listener, so ``import rtsched``
does not import Numba's inliner), only for Numba versions with the block-by-block copy
(checked in its source), and never when ``RTSCHED_FAST_INLINE=0``.
"""

from __future__ import annotations

import copy
import os
from typing import Any

__all__ = ["active", "install"]

_state = {"listening": False, "patched": False}


def active() -> bool:
    """Whether this process's Numba inliner runs with the shared-memo copies."""
    return _state["patched"]


class _Copies:
    """Stands in for the module :mod:`copy` inside one ``InlineWorker.inline_ir`` call."""

    def __init__(self, block_type: Any) -> None:
        self._block = block_type
        self._memos: dict[int, dict[int, Any]] = {}

    def deepcopy(self, x: Any, memo: dict[int, Any] | None = None) -> Any:
        if memo is None and isinstance(x, self._block):
            # One memo per source scope: the copied blocks of one function share one scope
            # copy. The memo keeps its originals alive (copy's _keep_alive), so an id() here is
            # never reused within the call.
            memo = self._memos.setdefault(id(x.scope), {})
        return copy.deepcopy(x, memo)

    def __getattr__(self, name: str) -> Any:
        return getattr(copy, name)


def _patch() -> None:
    """Wrap ``InlineWorker.inline_ir`` if this Numba copies block by block (else leave it)."""
    if _state["patched"]:
        return
    import inspect

    import numba.core.inline_closurecall as icc
    from numba.core import ir

    original = icc.InlineWorker.inline_ir
    try:
        source = inspect.getsource(original)
    except (OSError, TypeError):  # no source (frozen install): leave Numba as it is
        return
    if "copy.deepcopy(the_ir.blocks[block_label])" not in source or getattr(icc, "copy", None) is not copy:
        return  # a Numba that copies differently: nothing to fix, or not this way

    def inline_ir(self: Any, *args: Any, **kwargs: Any) -> Any:
        saved = icc.copy
        icc.copy = _Copies(ir.Block)  # type: ignore[assignment]
        try:
            return original(self, *args, **kwargs)
        finally:
            icc.copy = saved

    inline_ir.__wrapped__ = original  # type: ignore[attr-defined]
    inline_ir.__doc__ = original.__doc__
    icc.InlineWorker.inline_ir = inline_ir  # type: ignore[method-assign]
    _state["patched"] = True


def install() -> None:
    """Patch the inliner at this process's first Numba compilation (idempotent)."""
    if _state["listening"] or os.environ.get("RTSCHED_FAST_INLINE", "1") == "0":
        return
    from numba.core import event

    class _First(event.Listener):
        def on_start(self, event: Any) -> None:
            if not _state["patched"]:
                _patch()

        def on_end(self, event: Any) -> None:
            pass

    event.register("numba:compile", _First())
    _state["listening"] = True
