"""Shared benchmark helpers: a seeded task-set sample and timing (not a test, never timed in CI)."""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numba
import numpy as np

from rtsched import TaskSetBatch


def arguments(
    description: str | None, sets: int, reference_sets: int, seed: int | None = None
) -> argparse.ArgumentParser:
    """The options every throughput benchmark takes: ``--sets`` (the batch the kernels run) and
    ``--reference-sets`` (the sample the pure-Python reference runs), with these defaults, and
    ``--seed`` when ``seed`` is given. The description (the module docstring) is shown as written."""
    parser = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sets", type=int, default=sets, help="task sets per kernel measurement")
    parser.add_argument("--reference-sets", type=int, default=reference_sets, help="sets for the pure-Python reference")
    if seed is not None:
        parser.add_argument("--seed", type=int, default=seed, help="seed of the sample")
    return parser


def uunifast_rows(rng: np.random.Generator, totals: np.ndarray, n: int) -> np.ndarray:
    """UUniFast (Bini & Buttazzo 2005), vectorised over sets: row s splits ``totals[s]`` into n
    utilizations. Draws one ``rng.random(len(totals))`` per task but the last, in this order, so
    the benchmarks' seeded samples stay the same (``rtsched.generators.uunifast`` draws in
    another order and takes one total)."""
    n_sets = totals.shape[0]
    u = np.empty((n_sets, n))
    rest = totals.copy()
    for i in range(n - 1):
        nxt = rest * rng.random(n_sets) ** (1.0 / (n - 1 - i))
        u[:, i] = rest - nxt
        rest = nxt
    u[:, n - 1] = rest
    return u


def batch_of_rows(C: np.ndarray, D: np.ndarray, T: np.ndarray) -> TaskSetBatch:
    """The batch whose set s is row s of the (sets × n) int64 matrices C, D and T."""
    n_sets, n = C.shape
    offsets = np.arange(0, n_sets * n + 1, n, dtype=np.int64)
    return TaskSetBatch(C.ravel(), D.ravel(), T.ravel(), offsets)


def sample_batch(n_sets: int, n: int, m: int, seed: int = 1, u_range: tuple[float, float] = (1.0, 3.0)) -> TaskSetBatch:
    """Integer sets: U uniform in u_range (UUniFast split), T log-uniform in [10, 1000], D uniform in [C, T]."""
    rng = np.random.default_rng(seed)
    u = uunifast_rows(rng, rng.uniform(*u_range, size=n_sets), n)
    T = np.floor(np.exp(rng.uniform(np.log(10), np.log(1000), size=(n_sets, n)))).astype(np.int64)
    C = np.clip(np.round(u * T), 1, T).astype(np.int64)
    D = C + np.floor(rng.random((n_sets, n)) * (T - C + 1)).astype(np.int64)
    return batch_of_rows(C, np.minimum(D, T), T)


def deadline_monotonic(batch: TaskSetBatch, n: int, implicit: bool = False) -> TaskSetBatch:
    """Each set's tasks sorted by deadline (stable), the batch having n tasks per set: DM order,
    which is RM order when D = T; ``implicit`` also sets D = T."""
    C, T = batch.C.reshape(-1, n), batch.T.reshape(-1, n)
    D = T if implicit else batch.D.reshape(-1, n)
    idx = np.argsort(D, axis=1, kind="stable")
    pick = np.take_along_axis
    return TaskSetBatch(pick(C, idx, 1).ravel(), pick(D, idx, 1).ravel(), pick(T, idx, 1).ravel(), batch.offsets)


def rate(
    fn: Callable[[], object], count: int, repeat: int = 3, clock: Callable[[], float] = time.perf_counter
) -> float:
    """Best-of-``repeat`` items per second of ``fn`` processing ``count`` items, timed with ``clock``
    (wall clock by default; ``time.process_time`` is robust to a busy machine on one thread)."""
    best = float("inf")
    for _ in range(repeat):
        start = clock()
        fn()
        best = min(best, clock() - start)
    return count / best


def print_header(header: str) -> None:
    """Print a table's column header and a rule under it as long as the header."""
    print(header)
    print("-" * len(header))


def thread_rates(fn: Callable[[], object], count: int, repeat: int = 3) -> tuple[float, float, int]:
    """``(rate on one Numba thread, rate on all of them, how many that is)``, as :func:`rate`."""
    threads = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        one = rate(fn, count, repeat)
    finally:
        numba.set_num_threads(threads)
    return one, rate(fn, count, repeat), threads


def u_over_m_study(
    name: str, seed: int, points: tuple[float, float, float], sets_per_point: int, sets_per_unit: int, names: list[str]
) -> dict:
    """A sweep as parsed TOML data: m = 4, n = 10, UUniFast-Discard utilizations, log-uniform
    periods in [10, 1000], implicit deadlines; U/m from ``points = (start, stop, step)``."""
    start, stop, step = points
    return {
        "name": name,
        "seed": seed,
        "platform": {"m": 4},
        "generator": {
            "n": 10,
            "utilizations": "uunifast-discard",
            "periods": "log-uniform:10:1000",
            "deadlines": "implicit",
            "umax": 1.0,
        },
        "sweep": {
            "variable": "U/m",
            "points": {"start": start, "stop": stop, "step": step},
            "sets_per_point": sets_per_point,
            "sets_per_unit": min(sets_per_unit, sets_per_point),
        },
        "analyses": {"names": names},
    }


def host_line() -> str:
    """The host as benchmark tables print it beside the ratios: CPU model, the widest x86 vector
    extension (AVX-512, AVX2 or neither, from /proc/cpuinfo's flags), Numba's thread count and the
    CPU count. Kernel speed depends on the ISA (the project's hosts differ: some have AVX-512,
    some only AVX2), so a ratio without it cannot be compared across machines."""
    import os
    import platform

    model, flags = platform.processor() or platform.machine(), set()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            for line in info:
                key, _, value = line.partition(":")
                if key.strip() == "model name":
                    model = value.strip()
                elif key.strip() == "flags":
                    flags = set(value.split())
                if model and flags:
                    break
    except OSError:
        pass
    isa = (
        "AVX-512"
        if "avx512f" in flags
        else "AVX2"
        if "avx2" in flags
        else "no AVX2/AVX-512"
        if flags
        else "ISA unknown"
    )
    line = f"host: {model}; {isa}; numba {numba.__version__}, {numba.get_num_threads()} threads of {os.cpu_count()} CPUs"
    if os.environ.get("NUMBA_CPU_NAME"):  # code built for another CPU (bench_isa.py's AVX2 builds)
        cpu, features = codegen_target()
        line += f"; kernels compiled for {cpu} ({features}), not for this host"
    return line


def codegen_target() -> tuple[str, str]:
    """The CPU Numba compiles for and its wide vector features (avx2/avx512f/avx512dq present?).

    ``NUMBA_CPU_NAME`` with ``NUMBA_CPU_FEATURES=""`` builds an AVX-512 host's kernels as an
    AVX2-only CPU gets them (bench_isa.py); without those variables, the host's own.
    """
    import llvmlite.binding as llvm
    from numba.core import config

    cpu_name, cpu_features = getattr(config, "CPU_NAME", None), getattr(config, "CPU_FEATURES", None)
    name = cpu_name or llvm.get_host_cpu_name()
    if cpu_features:
        features = cpu_features
    elif cpu_name is None:
        features = llvm.get_host_cpu_features().flatten()
    else:
        features = f"the defaults of {cpu_name}"
    wide = [f for f in ("avx2", "avx512f", "avx512dq") if f"+{f}" in features]
    return name, ",".join(wide) if wide else features
