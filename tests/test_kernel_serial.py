"""Serial twins of the batch kernels (``rtsched.kernels.serial``, issue #46): same codes, less to compile.

A batch that runs on one thread (fewer tasks than ``parallel_from``: every unit of a default
sweep) is decided by the serial chunk loop itself, so the first run compiles no ``prange`` driver.
"""

from __future__ import annotations

import os
import subprocess
import sys

import numba
import numpy as np
import pytest

from rtsched import registry
from rtsched.generators import generate_batch
from rtsched.kernels import serial
from rtsched.warmup import probe_batch

#: Analyses of the default sweep whose batch kernel has a serial twin.
TWINS = ("gfb", "bak", "bcl", "bcl-iter", "rta", "bar", "bar-int", "load", "ffdbf")
#: Those that pick the twin inside their ``codes`` by the thread count.
BY_THREADS = ("p-edf", "baruah-fisher", "p:wf:density:qpa", "gedf-upper")


def _batches():
    yield "probe", probe_batch(), 2
    for n, u, m in ((5, 1.5, 2), (9, 3.2, 4), (14, 2.0, 4)):
        rng = np.random.default_rng(46 + n)
        batch = generate_batch(rng, n=n, utilization=u, size=150)
        yield f"n{n}-u{u}-m{m}", getattr(batch, "batch", batch), m


@pytest.mark.parametrize("name", TWINS)
def test_serial_twin_equals_the_prange_driver(name):
    entry = registry.get(name)
    kernel = entry._kernel
    assert serial(kernel) is not None, f"{name}: no serial twin"
    for label, batch, m in _batches():
        args = (batch.C, batch.D, batch.T, batch.offsets, m, *entry._budget_args(None))
        parallel, alone = np.empty(batch.n_sets, dtype=np.int8), np.empty(batch.n_sets, dtype=np.int8)
        kernel(*args, parallel)
        serial(kernel)(*args, alone)
        np.testing.assert_array_equal(alone, parallel, err_msg=f"{name} on {label}")


@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="needs two Numba threads")
@pytest.mark.parametrize("name", BY_THREADS)
def test_codes_on_one_thread_equal_codes_on_two(name):
    entry = registry.get(name)
    previous = numba.get_num_threads()
    try:
        for label, batch, m in _batches():
            numba.set_num_threads(1)
            alone = entry._codes(batch, m)
            numba.set_num_threads(2)
            parallel = entry._codes(batch, m)
            np.testing.assert_array_equal(alone, parallel, err_msg=f"{name} on {label}")
    finally:
        numba.set_num_threads(previous)


def test_a_small_batch_compiles_no_prange_driver(tmp_path):
    """In a fresh cache, deciding a small batch compiles gfb's chunk loop and not its driver."""
    code = (
        "from rtsched import registry; from rtsched.warmup import probe_batch; "
        "from rtsched.analyses.global_edf import gfb; "
        "registry.get('gfb').decide(probe_batch(), 2); "
        "print(len(gfb._gfb_kernel.signatures))"
    )
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["RTSCHED_CACHE_DIR"] = str(tmp_path)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["0"]
    assert not list(tmp_path.rglob("*gfb._gfb_one.sets-*.nbi")), "the prange driver was compiled"
    assert list(tmp_path.rglob("*gfb._gfb_one.chunk-*.nbi"))


def test_literal_arguments_compile_no_kernel_twice(tmp_path):
    """bar and bar-int share one compilation, and ffdbf compiles each helper once.

    A literal argument (``0``, ``1``, ``True``; also a variable whose first value is one, such as a
    sum started at 0) makes Numba compile the callee once per literal and once more for int64:
    bar-int compiled bar's whole chain again, ``_condition_at`` was compiled twice within bar, and
    ffdbf's ``_root_kernel`` four times (issue #46). A small batch runs the serial chunk loop, not
    the ``prange`` driver.
    """
    code = (
        "from rtsched import registry; from rtsched.warmup import probe_batch; "
        "from rtsched.analyses.global_edf import _bar_common as b, ffdbf as f; "
        "[registry.get(n).decide(probe_batch(), 2) for n in ('bar', 'bar-int', 'ffdbf')]; "
        "print(len(b._bar_set.signatures), len(b._condition_at.signatures), len(b.sets_chunk.signatures), "
        "len(b.all_sets.signatures), len(f._root_kernel.signatures), len(f._g_scaled.signatures))"
    )
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["RTSCHED_CACHE_DIR"] = str(tmp_path)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["1", "1", "1", "0", "1", "1"]


@pytest.mark.parametrize("sizes", [[], [3], [1, 7, 2], [5] * 40, [0, 4, 0]])
def test_largest_set_size_is_the_kernel_s_width(sizes):
    # The serial twins size their workspace with the NumPy form (no Python loop over the sets).
    from rtsched.kernels import largest_set, largest_set_size

    offsets = np.concatenate([[0], np.cumsum(sizes, dtype=np.int64)]).astype(np.int64)
    assert largest_set_size(offsets) == largest_set(offsets) == max(sizes, default=0)
