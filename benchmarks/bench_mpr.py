"""G-EDF under MPR throughput: batch kernel (1 thread, all threads) vs the exact reference.

Run: ``python benchmarks/bench_mpr.py [--sets 20000] [--reference-sets 200]``. Sets as in the
other benchmarks (n = 8, U in [0.5, 1.5], T log-uniform in [10, 1000]) on the interface
⟨Π = 5, Θ = 9, m' = 2⟩ (bandwidth 1.8, :func:`rtsched.analyses.hierarchical.mpr.gedf_mpr_codes`), and on the
dedicated ⟨1, 2, 2⟩ through the registry entry (``registry.get("gedf-mpr").status(batch, 2)``).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from _common import arguments, rate, sample_batch, thread_rates

from rtsched import registry
from rtsched.analyses.hierarchical import mpr


def main() -> None:
    """Print sets/s of the kernel and the reference, and their ratio."""
    parser = arguments(__doc__, sets=20_000, reference_sets=200)
    args = parser.parse_args()
    batch = sample_batch(args.sets, n=8, m=2, u_range=(0.5, 1.5))
    small = batch.select(range(args.reference_sets))
    entry = registry.get("gedf-mpr")
    for Pi, Theta, m_prime in ((5, 9, 2), (1, 2, 2)):
        interface = mpr.MPRInterface(Pi, Theta, m_prime)
        if (Pi, Theta) == (1, m_prime):  # the dedicated interface: the registry entry on m = m'

            def decide(b, m=m_prime):
                return entry.status(b, m)

        else:

            def decide(b, Pi=Pi, Theta=Theta, m_prime=m_prime):
                return mpr.gedf_mpr_codes(b, Pi, Theta, m_prime)

        codes = decide(small)  # compile
        one, many, threads = thread_rates(lambda: decide(batch), args.sets, repeat=2)
        ref = rate(lambda: [mpr.reference_interface(ts, interface) for ts in small], args.reference_sets, repeat=1)  # noqa: B023
        accepted = float(np.mean(decide(batch) == 1))
        print(
            f"gedf-mpr on {interface}, n = 8, {args.sets} sets (accepted {accepted:.1%}; sample codes {np.bincount(codes + 1)})"
        )
        print(f"  kernel, 1 thread : {one:12,.0f} sets/s")
        print(f"  kernel, {threads} threads: {many:12,.0f} sets/s")
        print(f"  reference (Python ints/Fractions): {ref:10,.1f} sets/s")
        print(f"  ratio kernel(1 thread)/reference: {one / ref:,.0f}x")


if __name__ == "__main__":
    main()
