"""Dhall's effect as a Gantt chart: a set with U ≈ 1.22 that global EDF cannot schedule on 2 CPUs.

The project's Dhall set (examples/tasksets/dhall.txt, used by the labs and the README too): two
light tasks (C=1, D=T=9) and one heavy task (C=10, D=T=10). At t = 0 the light jobs have the
earlier deadlines, so they take both processors; the heavy job starts at t = 1 and needs 10
ticks before t = 10: it misses. Partitioned EDF (lights on P0, heavy on P1) meets every deadline,
and so does global EDF on 3 processors. Writes dhall_gedf.png and dhall_pedf.png to the folder
given as argv[1] (or the current directory).

    MPLBACKEND=Agg python examples/gantt_dhall.py [out_dir]
"""

from __future__ import annotations

import sys
from pathlib import Path

from rtsched import analyses
from rtsched.io import read_taskset
from rtsched.sim import simulate
from rtsched.sim.gantt import save_gantt


def main() -> None:
    """Simulate Dhall's example under G-EDF and P-EDF and draw both."""
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(".")
    if out.suffix:  # a file name was given: use its folder
        out = out.parent
    out.mkdir(parents=True, exist_ok=True)
    dhall = read_taskset(Path(__file__).resolve().parent / "tasksets" / "dhall.txt")
    gedf = simulate(dhall, 2)
    pedf = simulate(dhall, 2, policy="pedf", partition=[0, 0, 1], horizon=20)
    exact = analyses.get("exact")
    print("global EDF:     ", gedf)
    print("partitioned EDF:", pedf)
    print("exact G-EDF test:", exact.explain(dhall, 2).summary)
    print("on 3 processors: ", exact.explain(dhall, 3).summary)
    for name, trace in (("dhall_gedf.png", gedf), ("dhall_pedf.png", pedf)):
        path = save_gantt(trace, out / name, rows="processors")
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
