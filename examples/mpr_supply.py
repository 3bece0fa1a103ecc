"""Lecture figure: supply of an MPR interface vs the demand of a cluster under G-EDF.

Run: ``python examples/mpr_supply.py [OUT.png]`` (default ``mpr_supply.png`` in the current
directory). Uses the Agg backend, so it runs without a display.

Left: the exact worst-case supply sbf(t) of ⟨Π, Θ, m'⟩ (steps), its linear bound lsbf(t), and
the brute-force worst case (dots) — they coincide. Right: for the cluster of six tasks from
papers/shin-easwaran-lee2008-mpr.md, the demand DEM(A_k + D_k) of every task k against the supply of
its minimum interface ⟨5, 8, 2⟩ (every point strictly below: accepted) and of ⟨5, 7, 2⟩ (one point
reaches the supply: not proven).
"""

from __future__ import annotations

import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

from rtsched import TaskSet
from rtsched.analyses.hierarchical import mpr


def main(out: Path) -> None:
    """Draw both panels and write the PNG."""
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5))

    # Left: sbf, lsbf and brute force of ⟨5, 3, 2⟩ (m' does not divide Θ: the tricky case).
    Pi, Theta, m_prime = 5, 3, 2
    t = np.arange(0, 31)
    left.step(t, mpr.sbf(Pi, Theta, m_prime, t), where="post", label="sbf(t) (exact)")
    left.plot(t, mpr.sbf_brute_force(Pi, Theta, m_prime, int(t[-1])), "o", ms=3, label="brute force")
    left.plot(t, [float(v) for v in mpr.lsbf(Pi, Theta, m_prime, t)], "--", label="lsbf(t)")
    left.set(title=f"MPR ⟨Π={Pi}, Θ={Theta}, m'={m_prime}⟩", xlabel="interval length t", ylabel="supply")
    left.legend()

    # Right: a cluster's demand against two interfaces.
    ts = TaskSet.from_tasks([(2, 10, 10), (3, 12, 15), (4, 20, 20), (5, 16, 20), (6, 30, 30), (1, 5, 8)])
    Pi = 5
    m_prime = 2
    theta = mpr.min_theta(ts, Pi, m_prime)
    horizon = 60
    for k in range(ts.n):
        D_k = int(ts.D[k])
        A = np.arange(0, horizon - D_k + 1)
        dem = [mpr.demand(ts, k, int(a), m_prime)[0] for a in A]
        right.plot(A + D_k, dem, ".", ms=4, label=f"DEM, k = {k}" if k < 3 else None)
    tt = np.arange(0, horizon + 1)
    for th, style in ((theta, "-"), (theta - 1, ":")):
        right.step(tt, mpr.sbf(Pi, th, m_prime, tt), style, where="post", label=f"sbf of ⟨{Pi}, {th}, {m_prime}⟩")
    right.set(title=f"cluster demand (U = {float(ts.utilization):.3f}); minimum Θ = {theta}", xlabel="t = A_k + D_k")
    right.legend(fontsize=8)

    fig.tight_layout()
    fig.savefig(out, dpi=120)
    print(f"wrote {out}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path.cwd() / "mpr_supply.png")
