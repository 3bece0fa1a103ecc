"""The GPU partitioning lab, run as a script: it is now the notebook examples/labs/lab6_gpu.py.

Usage: ``python examples/gpu_lab.py [OUT.png | OUT_DIR]`` runs lab 6 top to bottom (layouts,
contention-inflated WCETs, each allocation strategy re-checked by hand, heuristics against the
optimum on random workloads, the exercises with their solutions) and writes its figures
(``lab6_*.png``) into OUT_DIR, or into the folder of OUT.png; default: the current directory.
The GPU model and its assumptions: papers/zahaf2021-gpu-partitioning.md. Student and teacher
notebooks: ``python examples/labs/build.py [--teacher] examples/labs/lab6_gpu.py``.
"""

from __future__ import annotations

import os
import runpy
import sys
from pathlib import Path

LAB = Path(__file__).resolve().parent / "labs" / "lab6_gpu.py"


def main(argv: list[str]) -> int:
    """Run lab 6 with its figures going to the folder given on the command line."""
    target = Path(argv[1]) if len(argv) > 1 else Path.cwd()
    os.environ["RTSCHED_LAB_OUT"] = str(target.parent if target.suffix.lower() == ".png" else target)
    sys.path.insert(0, str(LAB.parent))  # the lab imports its kit (_labkit.py) from its folder
    runpy.run_path(str(LAB), run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
