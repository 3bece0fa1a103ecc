"""Plot the distribution of task utilizations drawn by rtsched's generators.

Left: the marginal of one task's utilization for n = 3 tasks with total U = 2.2 and every
u_i <= 1, drawn with RandFixedSum and with UUniFast-Discard, against the exact density
(x - 0.2) / 0.32 on [0.2, 1] (derived in papers/emberson2010-randfixedsum.md); plain UUniFast is
shown too: it ignores the bound (u_i > 1 happens), which is why it is not for multiprocessors.
Right: the (u1, u2) points of RandFixedSum fill the bounded simplex uniformly.

Usage: ``python examples/utilization_distribution.py [OUTPUT.png] [--sets N] [--seed S]``
(writes ``utilization_distribution.png`` in the current directory by default).
"""

from __future__ import annotations

import argparse

import matplotlib

matplotlib.use("Agg")  # files only; works without a display

import matplotlib.pyplot as plt  # after choosing the backend
import numpy as np

from rtsched.generators import randfixedsum, uunifast, uunifast_discard

__all__ = ["main"]


def main(argv: list[str] | None = None) -> str:
    """Draw the figure and return the path written."""
    parser = argparse.ArgumentParser(description="Plot utilization distributions of the generators.")
    parser.add_argument("output", nargs="?", default="utilization_distribution.png", help="PNG file to write")
    parser.add_argument("--sets", type=int, default=5000, help="vectors per generator (default 5000)")
    parser.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    args = parser.parse_args(argv)

    n, total = 3, 2.2
    rng = np.random.default_rng(args.seed)
    samples = {
        "RandFixedSum": randfixedsum(rng, n, total, args.sets),
        "UUniFast-Discard": uunifast_discard(rng, n, total, args.sets),
        "UUniFast (no bound)": uunifast(rng, n, total, args.sets),
    }

    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4), layout="constrained")
    bins = np.linspace(0.0, total, 45)
    for label, u in samples.items():
        left.hist(u[:, 0], bins=bins, density=True, histtype="step", label=label)
    x = np.linspace(0.2, 1.0, 100)
    left.plot(x, (x - 0.2) / 0.32, "k--", label="exact density on [0,1]³")
    left.axvline(1.0, color="grey", lw=0.8)
    left.set(xlabel="u₁", ylabel="density", title=f"marginal of u₁, n = {n}, U = {total}")
    left.legend(fontsize=8)

    u = samples["RandFixedSum"]
    right.scatter(u[:, 0], u[:, 1], s=2, alpha=0.4)
    right.set(xlabel="u₁", ylabel="u₂", title="RandFixedSum: (u₁, u₂), u₃ = U − u₁ − u₂", xlim=(0, 1), ylim=(0, 1))
    right.set_aspect("equal")
    fig.savefig(args.output, dpi=100)
    plt.close(fig)
    print(f"wrote {args.output}")
    return args.output


if __name__ == "__main__":
    main()
