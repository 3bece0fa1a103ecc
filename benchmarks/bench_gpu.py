"""Throughput of the non-preemptive EDF kernel and of the GPU allocation strategies.

Run: ``python benchmarks/bench_gpu.py [--sets 200000] [--workloads 200]``.

* ``uni-npedf``: batch kernel (1 thread, all threads) vs the pure-Python reference, on
  uniprocessor sets (n = 8, U in [0.5, 1], every task non-preemptive).
* GPU allocation (M = 4, n = 6 kernels, generated workloads): workloads/s of each GPU analysis
  (``gpu:<strategy>`` on ``GPU(4)``): ``status`` (``@njit`` partition tests) vs ``reference``
  (pure-Python partition tests), same run.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from _common import arguments, rate, sample_batch, thread_rates

from rtsched import registry
from rtsched.analyses.theory.np_demand import npedf_trace
from rtsched.generators.gpu import GPUWorkloadSpec, generate_gpu_workloads
from rtsched.platform import GPU


def main() -> None:
    """Print the rates."""
    parser = arguments(__doc__, sets=200_000, reference_sets=2_000)
    parser.add_argument("--workloads", type=int, default=200)
    args = parser.parse_args()

    batch = sample_batch(args.sets, n=8, m=1, u_range=(0.5, 1.0))
    small = batch.select(range(args.reference_sets))
    npedf = registry.get("uni-npedf")
    npedf.status(small, 1)  # compile
    one, many, threads = thread_rates(lambda: npedf.status(batch, 1), args.sets)
    rows = [ts.rows() for ts in small]
    ref = rate(lambda: [npedf_trace(r) for r in rows], args.reference_sets, repeat=1)
    print(f"uni-npedf, n = 8, U in [0.5, 1], {args.sets} sets")
    print(f"  kernel, 1 thread : {one:12,.0f} sets/s")
    print(f"  kernel, {threads} threads: {many:12,.0f} sets/s")
    print(f"  reference (Python ints): {ref:10,.0f} sets/s")
    print(f"  ratio kernel(1 thread)/reference: {one / ref:,.0f}x")

    rng = np.random.default_rng(np.random.SeedSequence(1))
    spec = GPUWorkloadSpec(n=6, clusters=4, U1=2.2)
    workloads = generate_gpu_workloads(rng, spec, args.workloads)
    gpu = GPU(4)
    registry.get("gpu:exhaustive").status(workloads[:1], gpu)  # compile
    print(f"GPU allocation, M = 4, n = 6, U1 = 2.2, {args.workloads} workloads (Python search, 1 thread)")
    for h in ("single", "ffd", "bfd", "exhaustive"):
        entry = registry.get(f"gpu:{h}")
        fast = rate(lambda e=entry: e.status(workloads, gpu), args.workloads, repeat=1)
        slow = rate(lambda e=entry: [e.reference(w, gpu) for w in workloads], args.workloads, repeat=1)
        print(
            f"  {h:>10}: fast {fast:8,.0f} workloads/s, reference {slow:8,.0f} workloads/s, ratio {fast / slow:5.1f}x"
        )


if __name__ == "__main__":
    main()
