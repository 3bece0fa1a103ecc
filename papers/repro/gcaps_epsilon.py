"""GCAPS and TSG round robin with the GCAPS paper's overheads, on the setup of examples/segmented_experiment.toml.

Run: python papers/repro/gcaps_epsilon.py [--sets 1000] [--seed 20261206] [--panel b|e]
(about a minute for 1000 sets per point; papers/cpu-gpu-experiments.md, "The paper's ε").
Panel b (default): the utilization per CPU 0.1..0.7 (examples/segmented_experiment.toml); panel e:
G/C 0.2, 0.4, 0.6, 1.0, 2.0 with the per-CPU utilization uniform in [0.4, 0.6]
(examples/segmented_gpu_ratio_experiment.toml).

The registry entries seg-gcaps-* and seg-tsg-* use a context-switch cost ε = 0 (a sweep cannot
pass keywords). Wang, Liu, Wong, Kim (ECRTS 2024, Sec. 7.1 and Table 3) set the runlist-update
cost ε = 1 ms for GCAPS and the TSG context switch θ = 200 µs with the driver's 1024 µs time slice
for the default round robin, and zero overhead for MPCP and FMLP+. At the generator's 10 ticks per
ms these are ε = 10 ticks (GCAPS), ε = 2 ticks and L = 10 ticks (TSG round robin). The keywords
``epsilon`` and ``time_slice`` of analyses/segmented/gcaps.py and tsg.py take them.

Sets: the example's generator (rtsched.generators.segmented, the GCAPS setup: m = 4 CPUs, 3..6
tasks per CPU, per-CPU utilization U, one GPU, 10 ticks per ms), one seeded stream for all points.
Columns: acceptance ratios with ε = 0 (the registry's) and with the paper's overheads, on the same
sets.
"""

from __future__ import annotations

import argparse

import numpy as np

from rtsched.analyses.segmented import gcaps, tsg
from rtsched.generators.segmented import segmented_batch
from rtsched.segmented.model import SegmentedBatch

M = 4
TICKS = 10  # ticks per ms (the example's)
EPS_GCAPS = 1 * TICKS  # 1 ms (Table 3)
EPS_TSG = 2  # θ = 200 µs = 2 ticks (Sec. 7.1)
SLICE = 10  # 1024 µs rounded to whole ticks (tsg.DEFAULT_TIME_SLICE)
POINTS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7)
RATIOS = (0.2, 0.4, 0.6, 1.0, 2.0)


def columns(batch: SegmentedBatch) -> dict[str, float]:
    """Acceptance ratios of the ten columns on one batch."""
    out: dict[str, float] = {}
    for mode in ("busy", "suspend"):
        for eps in (0, EPS_GCAPS):
            codes = gcaps.gpa_codes(batch, M, mode=mode, epsilon=eps)
            out[f"gcaps-{mode}-gpa ε={eps}"] = float(np.mean(codes == 1))
        codes = gcaps.codes(batch, M, mode=mode, epsilon=EPS_GCAPS)
        out[f"gcaps-{mode} ε={EPS_GCAPS}"] = float(np.mean(codes == 1))
        for eps in (0, EPS_TSG):
            codes = tsg.codes(batch, M, mode=mode, time_slice=SLICE, epsilon=eps)
            out[f"tsg-{mode} ε={eps}"] = float(np.mean(codes == 1))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=20261206)
    parser.add_argument("--panel", choices=("b", "e"), default="b")
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    header: list[str] | None = None
    for x in POINTS if args.panel == "b" else RATIOS:
        if args.panel == "b":
            batch = segmented_batch(rng, size=args.sets, m=M, utilization=x, ticks=TICKS)
        else:
            batch = segmented_batch(rng, size=args.sets, m=M, utilization=(0.4, 0.6), gpu_ratio=x, ticks=TICKS)
        row = columns(batch)
        if header is None:
            header = list(row)
            print(("| U per CPU | " if args.panel == "b" else "| G/C | ") + " | ".join(header) + " |")
            print("|---|" + "---|" * len(header))
        print(f"| {x} | " + " | ".join(f"{row[h]:.3f}" for h in header) + " |")


if __name__ == "__main__":
    main()
