"""Cold start: what a user waits for the first time, and every time after (not a test).

    python benchmarks/bench_cold_start.py [--analyses gfb,bak,...] [--skip-per-analysis]
    python benchmarks/bench_cold_start.py --baseline 646a40d [--repeat 3]

``--baseline REV`` checks REV out in a temporary ``git worktree`` and times the same cold
``rtsched sweep`` (default experiment, a fresh kernel cache each) with REV's sources and with
this checkout's, side by side: wall seconds and the children's CPU seconds
(``resource.getrusage(RUSAGE_CHILDREN)``; on a shared machine CPU seconds are the fairer
ratio), with the load average before and after.

Every measurement runs in a fresh process with its own kernel cache (``RTSCHED_CACHE_DIR`` in a
new folder), so "cold" means a machine that never ran rtsched and "warm" the same command run
again. It times:

1. ``import rtsched``;
2. per analysis, the first ``decide`` on a tiny batch in a new process: cold (compiles and
   caches its kernels) and warm (loads them) — the cold column is the table
   :data:`rtsched.warmup.COMPILE_SECONDS` that the "about N s" message uses;
3. the user's commands: ``rtsched sweep`` on the built-in default experiment (README command
   1 without the install) and ``rtsched check examples/tasksets/demo.yaml -m 2``, cold then warm.

Ratios are cold / warm. Numbers depend on the machine and its load: run it on an idle one.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT = (
    "gfb",
    "bak",
    "bcl",
    "bcl-iter",
    "rta",
    "bar",
    "load",
    "ffdbf",
    "exact",
    "p-edf",
    "baruah-fisher",
    "p:wf:density:qpa",
)

PROBE = """
import sys, time
start = time.perf_counter()
import rtsched
from rtsched import registry
from rtsched.warmup import probe_batch
imported = time.perf_counter()
batch = probe_batch()
for name in sys.argv[1:]:
    entry = registry.get(name)
    t = time.perf_counter()
    entry.decide(batch, 1 if entry.platform == "uniprocessor" else 2)
    print(name, time.perf_counter() - t)
print("import", imported - start)
"""


def timed(cmd: list[str], env: dict[str, str], cwd: Path) -> tuple[float, str]:
    start = time.perf_counter()
    done = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if done.returncode not in (0, 1):
        sys.exit(f"{' '.join(cmd)} failed ({done.returncode}):\n{done.stderr}")
    return elapsed, done.stdout


def probe(names: list[str], cache: Path) -> dict[str, float]:
    env = dict(os.environ, RTSCHED_CACHE_DIR=str(cache))
    env.pop("NUMBA_CACHE_DIR", None)
    _, out = timed([sys.executable, "-c", PROBE, *names], env, ROOT)
    seconds = {name: float(value) for name, value in (line.split() for line in out.splitlines())}
    missing = [name for name in [*names, "import"] if name not in seconds]
    if missing:
        sys.exit(f"the probe did not time {', '.join(missing)}:\n{out}")
    return seconds


def child_cpu() -> float:
    """CPU seconds (user + system) of the finished children of this process so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def cold_sweep(source: Path, base: Path) -> tuple[float, float]:
    """(wall s, children's CPU s) of a cold ``rtsched sweep`` run with the sources in ``source``."""
    env = dict(os.environ, RTSCHED_CACHE_DIR=str(base / "cache"), CI="true", PYTHONPATH=str(source))
    env.pop("NUMBA_CACHE_DIR", None)
    command = [sys.executable, "-m", "rtsched", "sweep", "--out", str(base / "sweep"), "--no-plot"]
    cpu = child_cpu()
    wall, _ = timed(command, env, source)
    return wall, child_cpu() - cpu


def baseline(rev: str, repeat: int = 1) -> None:
    """Cold sweep with ``rev``'s sources and with this checkout's, side by side (``--baseline``).

    ``repeat`` > 1 alternates the two (baseline, this checkout, baseline, …) and prints each pair's
    ratios and their medians: on a shared or virtual machine the speed drifts within minutes, and
    a pair measured back to back drifts least.
    """
    rows: list[tuple[int, str, float, float]] = []
    with tempfile.TemporaryDirectory() as tmp:
        worktree = Path(tmp) / "baseline"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "-q", "--detach", str(worktree), rev], check=True)
        try:
            print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
            for run in range(repeat):
                for label, source in ((f"baseline {rev}", worktree), ("this checkout", ROOT)):
                    base = Path(tmp) / f"{label.replace(' ', '-')}-{run}"
                    base.mkdir()
                    rows.append((run, label, *cold_sweep(source, base)))
            print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(worktree)], check=False)
    print(f"\n{'cold rtsched sweep (default experiment)':<42} {'wall s':>8} {'CPU s':>8}")
    walls, cpus = [], []
    for run in range(repeat):
        (_, label0, wall0, cpu0), (_, label1, wall1, cpu1) = [r for r in rows if r[0] == run]
        print(f"{label0:<42} {wall0:8.1f} {cpu0:8.1f}")
        print(f"{label1:<42} {wall1:8.1f} {cpu1:8.1f}")
        print(f"{'ratio (this checkout / baseline)':<42} {wall1 / wall0:8.2f} {cpu1 / cpu0:8.2f}")
        walls.append(wall1 / wall0)
        cpus.append(cpu1 / cpu0)
    if repeat > 1:
        print(f"{f'median ratio of {repeat} pairs':<42} {statistics.median(walls):8.2f} {statistics.median(cpus):8.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--analyses", default=",".join(DEFAULT))
    parser.add_argument("--skip-per-analysis", action="store_true")
    parser.add_argument("--baseline", metavar="REV", help="time a cold sweep of REV's sources beside this checkout's")
    parser.add_argument("--repeat", type=int, default=1, help="with --baseline: alternate the two this many times")
    args = parser.parse_args()
    if args.baseline:
        baseline(args.baseline, args.repeat)
        return
    names = [n for n in args.analyses.split(",") if n]
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        if not args.skip_per_analysis:
            print(f"{'analysis':<18} {'cold s':>8} {'warm s':>8} {'cold/warm':>10}")
            for name in names:
                cache = base / f"cache-{name.replace(':', '_')}"
                cold = probe([name], cache)
                warm = probe([name], cache)
                print(f"{name:<18} {cold[name]:8.2f} {warm[name]:8.3f} {cold[name] / warm[name]:9.0f}x")
            print(f"{'import rtsched':<18} {cold['import']:8.2f} {warm['import']:8.2f}")
        cache = base / "cache-user"
        env = dict(os.environ, RTSCHED_CACHE_DIR=str(cache), CI="true")
        env.pop("NUMBA_CACHE_DIR", None)
        rtsched = [sys.executable, "-m", "rtsched"]
        print(f"\n{'user command':<46} {'cold s':>8} {'warm s':>8} {'cold/warm':>10}")
        for label, cmd in (
            (
                "rtsched check examples/tasksets/demo.yaml -m 2",
                [*rtsched, "check", str(ROOT / "examples/tasksets/demo.yaml"), "-m", "2"],
            ),
            ("rtsched sweep (default experiment)", [*rtsched, "sweep", "--out", str(base / "sweep"), "--no-plot"]),
        ):
            cold, _ = timed(cmd, env, base)
            shutil.rmtree(base / "sweep", ignore_errors=True)  # the warm run must redo the units
            warm, _ = timed(cmd, env, base)
            print(f"{label:<46} {cold:8.1f} {warm:8.1f} {cold / warm:9.1f}x")


if __name__ == "__main__":
    main()
