"""Throughput of the CPU–GPU segmented analyses: each batch path vs its exact reference, and the user's path, in one run.

Run: ``python benchmarks/bench_segmented.py [--sets 5000] [--reference-sets 200] [--seed 1] [--skip-cli]``.

The sample is the GCAPS setup that examples/segmented_experiment.toml follows
(rtsched.generators.segmented with its defaults, seeded: m = 4 CPUs, 3-6 tasks per CPU, per-CPU
utilization 0.4-0.6, 40-60 % GPU tasks, 1-3 GPU segments, one GPU). For every analysis of the
segmented workload kind in the registry (whatever is registered when it runs) that applies on
m = 4, the table prints its sets/s through ``status`` (the batch path: a Numba kernel over the
sets, all threads, compiled beforehand; for the ``-ffd``/``-wfd`` heuristics under contention a
loop of inner-kernel calls), through ``reference`` (exact Python ints, on the first
``--reference-sets`` sets), their ratio and whether the two agree on every one of those sets. Also
the generator's sets/s.

Then the user's path, each in a fresh process with its own kernel cache (``RTSCHED_CACHE_DIR`` in
a new folder, as benchmarks/bench_cold_start.py): ``rtsched check`` of a 4-core 16-task file (every
analysis that applies, the table with its evidence), cold (compiling every kernel) then warm; and
``rtsched sweep`` of examples/segmented_experiment.toml scaled down (3 points, 20 sets each, its
analyses), warm. The host's ISA is printed above the tables. Ratios measured side by side in one
process are comparable across runs on a loaded machine; absolute times are not.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from _common import arguments, host_line, print_header, rate

from rtsched import registry
from rtsched.generators.segmented import segmented_batch
from rtsched.segmented import SegmentedBatch
from rtsched.segmented.files import write_segmented_tasksets
from rtsched.workloads import SEGMENTED_TASKSETS

ROOT = Path(__file__).resolve().parents[1]
M = 4


def sample(n_sets: int, seed: int) -> SegmentedBatch:
    """``n_sets`` sets of the GCAPS setup (the generator's defaults: m = 4, one GPU)."""
    return segmented_batch(np.random.default_rng(np.random.SeedSequence(seed)), n_sets)


def kernels_table(batch: SegmentedBatch, reference_sets: int) -> None:
    """Kernel vs reference per registered segmented analysis."""
    sets = batch.tasksets()
    small = sets[:reference_sets]
    small_batch = SegmentedBatch.from_tasksets(small)
    print(f"{batch.n_sets} sets, m = {M}; batch paths on all threads vs references on {len(small)} sets")
    entries = [e for e in registry.all_entries() if e.workload is SEGMENTED_TASKSETS]
    print_header(f"{'analysis':<34} {'kernel sets/s':>14} {'reference sets/s':>17} {'ratio':>8}  agree  accepted")
    for entry in entries:
        if entry.supports(M, sets[0]) is not None:
            print(f"{entry.name:<34} skipped: {entry.supports(M, sets[0])}")
            continue
        fast_small = entry.status(small_batch, M)  # compiles the kernels
        slow = [entry.reference(ts, M) for ts in small]
        codes = [1 if ref is True else 0 if ref is False else -1 for ref in slow]
        agree = [int(code) for code in fast_small] == codes
        fast_rate = rate(lambda e=entry: e.status(batch, M), batch.n_sets)
        slow_rate = rate(lambda e=entry: [e.reference(ts, M) for ts in small], len(small), repeat=1)
        print(
            f"{entry.name:<34} {fast_rate:14,.0f} {slow_rate:17,.1f} {fast_rate / slow_rate:7,.0f}x  "
            f"{'yes' if agree else 'NO':<5}  {sum(codes)}/{len(codes)}"
        )


def timed(cmd: list[str], env: dict[str, str], cwd: Path) -> float:
    """Wall seconds of ``cmd`` (exit 0 or 1 expected: proven or not)."""
    start = time.perf_counter()
    done = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode not in (0, 1):
        sys.exit(f"{' '.join(cmd)} failed ({done.returncode}):\n{done.stderr}")
    return elapsed


def scaled_experiment(path: Path) -> None:
    """examples/segmented_experiment.toml with 3 points (0.3, 0.5, 0.7) of 20 sets each, written to ``path``."""
    with open(ROOT / "examples/segmented_experiment.toml", "rb") as f:
        data = tomllib.load(f)
    lines = [
        f'name = "{data["name"]}-scaled"',
        f"seed = {data['seed']}",
        "",
        "[platform]",
        f"m = {data['platform']['m']}",
    ]
    lines += ["", "[generator]"]
    for key, value in data["generator"].items():
        lines.append(f"{key} = {_toml(value)}")
    lines += ["", "[sweep]", f'variable = "{data["sweep"]["variable"]}"']
    lines += ["points = {start = 0.3, stop = 0.7, step = 0.2}", "sets_per_point = 20", "sets_per_unit = 20"]
    lines += ["", "[analyses]", f"names = {_toml(data['analyses']['names'])}", ""]
    path.write_text("\n".join(lines), encoding="utf-8")


def _toml(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k} = {_toml(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return str(value)


def user_path(seed: int) -> None:
    """``rtsched check`` of a 4-core 16-task file, cold then warm; the scaled-down example sweep, warm."""
    rng = np.random.default_rng(np.random.SeedSequence(seed))
    (ts,) = segmented_batch(rng, 1, tasks_per_cpu=4).tasksets()
    assert ts.n == 16 and len(ts.cores) == M
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        path = base / "sixteen.yaml"
        write_segmented_tasksets([ts], path)
        env = dict(os.environ, RTSCHED_CACHE_DIR=str(base / "cache"), CI="true")
        env.pop("NUMBA_CACHE_DIR", None)
        rtsched = [sys.executable, "-m", "rtsched"]
        names = [
            e.name for e in registry.all_entries() if e.workload is SEGMENTED_TASKSETS and e.supports(M, ts) is None
        ]
        print(f"\nuser's path (fresh kernel cache; {len(names)} analyses apply to the file)")
        print_header(f"{'command':<58} {'cold s':>8} {'warm s':>8} {'cold/warm':>10}")
        check = [*rtsched, "check", str(path), "-m", str(M)]
        cold = timed(check, env, base)
        warm = timed(check, env, base)
        print(
            f"{'rtsched check (4 cores, 16 tasks, every seg-* analysis)':<58} {cold:8.1f} {warm:8.1f} {cold / warm:9.1f}x"
        )
        experiment = base / "scaled.toml"
        scaled_experiment(experiment)
        sweep = [*rtsched, "sweep", str(experiment), "--out", str(base / "sweep"), "--no-plot", "-q"]
        warm_sweep = timed(sweep, env, base)
        points = 3 * 20
        print(
            f"{'rtsched sweep examples/segmented_experiment.toml, 3 x 20 sets':<58} {'':>8} {warm_sweep:8.1f}"
            f"   ({warm_sweep / points * 1e3:,.0f} ms per set, its {len(tomllib.loads(experiment.read_text())['analyses']['names'])} analyses)"
        )
        print(f"warm rtsched check / one set of the sweep: {warm / (warm_sweep / points):,.1f}x")


def main() -> None:
    """Print the host, the kernels table and the user's path."""
    parser = arguments(__doc__, sets=5_000, reference_sets=200, seed=1)
    parser.add_argument("--skip-cli", action="store_true", help="only the kernels table")
    args = parser.parse_args()
    print(host_line())
    start = time.perf_counter()
    batch = sample(args.sets, args.seed)
    generated = args.sets / (time.perf_counter() - start)
    print(f"generator (GCAPS setup, 12-24 tasks on 4 CPUs, one GPU; Python): {generated:,.0f} sets/s")
    kernels_table(batch, args.reference_sets)
    if not args.skip_cli:
        user_path(args.seed)


if __name__ == "__main__":
    main()
