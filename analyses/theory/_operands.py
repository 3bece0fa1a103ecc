"""Operand width of the EDF demand kernels by the target's vector ISA (issue #45 item 1, AVX2 hosts).

The same switch as ``analyses/global_edf/_slack.py: wide_vectors()`` (families may not import each
other, so it is written again here; it should move to one shared place in ``rtsched.kernels``
later). On a target with AVX-512DQ, int64 lanes are converted to and from float64 and multiplied
natively, and the demand kernels keep their int64 form. On an AVX2-only target (Intel Haswell,
AMD Zen 3) those operations are done one lane at a time (vcvtsi2sd, vcvttsd2si) or emulated
(three vpmuludq per 64-bit product), so the kernels pass values that provably fit in 32 bits
through int32 (:func:`i32`, :func:`f64`): LLVM then emits vcvtdq2pd, vcvttpd2dq and vpmuldq.
Papers note: papers/zhang-burns2009-qpa.md, "AVX2 hosts".
"""

from __future__ import annotations

import os

import numpy as np

from rtsched.kernels import kernel


def wide_vectors() -> bool:
    """Whether Numba's target has AVX-512DQ: then the demand kernels keep int64 operands.

    ``RTSCHED_OPERANDS=32|64`` forces one form (the tests compile the other one in a fresh
    process); it enters the kernel cache's key (``rtsched._bootstrap``), and Numba keys its cache
    by the target CPU. Else ``NUMBA_CPU_FEATURES`` when set, a named ``NUMBA_CPU_NAME`` without
    features takes the 32-bit form (valid on any x86-64), and the host's features otherwise.
    """
    forced = os.environ.get("RTSCHED_OPERANDS", "")
    if forced in ("32", "64"):
        return forced == "64"
    from numba.core import config

    features = getattr(config, "CPU_FEATURES", None)
    if features is None:
        if getattr(config, "CPU_NAME", None) not in (None, "host"):
            return False
        import llvmlite.binding as llvm

        features = llvm.get_host_cpu_features().flatten()
    return "+avx512dq" in str(features).split(",")


#: True when the kernels use their 32-bit operand forms (chosen once, at import).
NARROW = not wide_vectors()

#: The largest value the 32-bit forms take: rtsched.model.MAX_TIME = 2**31 − 1.
NARROW_MAX = 2**31 - 1


@kernel(inline="always")
def i32(x):
    """An int64 0 ≤ |x| ≤ 2**31 − 1 passed through int32: the same value, as int64.

    The round trip tells LLVM that the upper half is a sign extension, so that a conversion to
    float64 and a product of two such values compile to 32-bit vector instructions (vcvtdq2pd,
    vpmuldq). The caller proves the range; products are still taken in int64.
    """
    return np.int64(np.int32(x))


@kernel(inline="always")
def f64(x):
    """float64 of an int64 |x| ≤ 2**31 − 1, through int32 (exact; see :func:`i32`)."""
    return np.float64(np.int32(x))


@kernel(inline="always")
def trunc32(p):
    """trunc(p) of a float64 0 ≤ p < 2**31 as int64, through int32 (vcvttpd2dq on AVX2)."""
    return np.int64(np.int32(p))
