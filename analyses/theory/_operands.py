"""Operand width of the EDF demand kernels by the target's vector ISA (issue #45 item 1, AVX2 hosts).

The switch is :func:`rtsched.kernels.wide_vectors`, as for bcl-iter and rta
(``analyses/global_edf/_slack.py``). On a target with AVX-512DQ, int64 lanes are converted to
and from float64 and multiplied natively, and the demand kernels keep their int64 form. On an AVX2-only target (Intel Haswell,
AMD Zen 3) those operations are done one lane at a time (vcvtsi2sd, vcvttsd2si) or emulated
(three vpmuludq per 64-bit product), so the kernels pass values that provably fit in 32 bits
through int32 (:func:`i32`, :func:`f64`): LLVM then emits vcvtdq2pd, vcvttpd2dq and vpmuldq.
Papers note: papers/zhang-burns2009-qpa.md, "AVX2 hosts".
"""

from __future__ import annotations

import numpy as np

from rtsched.kernels import kernel, wide_vectors

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
