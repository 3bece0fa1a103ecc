"""Throughput of the CPU–GPU segmented analyses: each batch path vs its exact reference, and the user's path, in one run.

Run: ``python benchmarks/bench_segmented.py [--sets 5000] [--reference-sets 200] [--seed 1] [--skip-cli | --skip-kernels]``.

The sample is the GCAPS setup that examples/segmented_experiment.toml follows
(rtsched.generators.segmented with its defaults, seeded: m = 4 CPUs, 3-6 tasks per CPU, per-CPU
utilization 0.4-0.6, 40-60 % GPU tasks, 1-3 GPU segments, one GPU). For every analysis of the
segmented workload kind in the registry (whatever is registered when it runs) that applies on
m = 4, the table prints its sets/s through ``status`` (the batch path: a Numba kernel over the
sets, all threads, compiled beforehand; for the ``-ffd``/``-wfd`` heuristics under contention a
loop of inner-kernel calls), through ``reference`` (exact Python ints, on the first
``--reference-sets`` sets), their ratio and whether the two agree on every one of those sets. Also
the generator's sets/s.

Then the user's path, each command a fresh process on a new kernel cache folder
(``RTSCHED_CACHE_DIR``, as benchmarks/bench_cold_start.py): ``rtsched check`` of a 4-core 16-task
file (every analysis that applies, the table with its evidence) cold, again (rtsched/check.py
decides a set this small with the exact references while an analysis's kernels are not compiled,
so "again" is not faster), the compilation of the seg-* kernels in one process (what ``rtsched
cache --compile`` does for them) and the check after it (now through the kernels); and ``rtsched
sweep`` of examples/segmented_experiment.toml scaled down (3 points, 20 sets each, its analyses)
in another new cache, cold (its workers compile) then warm. The host's ISA is printed above the tables. Ratios measured side by side in one
process are comparable across runs on a loaded machine; absolute times are not.
"""

from __future__ import annotations

import os
import shutil
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


COMPILE = """
import sys
import numpy as np
from rtsched import registry, warmup
from rtsched.generators.segmented import segmented_batch
batch = segmented_batch(np.random.default_rng(0), 2, tasks_per_cpu=2)
for name in sys.argv[1:]:
    registry.get(name).status(batch, 4)
    warmup.mark(name)
"""


def user_path(seed: int) -> None:
    """The CLI in fresh kernel caches: check cold, warm, after compiling the seg-* kernels; the example sweep cold, warm."""
    rng = np.random.default_rng(np.random.SeedSequence(seed))
    (ts,) = segmented_batch(rng, 1, tasks_per_cpu=4).tasksets()
    assert ts.n == 16 and len(ts.cores) == M
    names = [e.name for e in registry.all_entries() if e.workload is SEGMENTED_TASKSETS and e.supports(M, ts) is None]
    rtsched = [sys.executable, "-m", "rtsched"]
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        path = base / "sixteen.yaml"
        write_segmented_tasksets([ts], path)

        def env(cache: str) -> dict[str, str]:
            out = dict(os.environ, RTSCHED_CACHE_DIR=str(base / cache), CI="true")
            out.pop("NUMBA_CACHE_DIR", None)
            return out

        print(f"\nuser's path (fresh kernel caches; {len(names)} analyses apply to the file)")
        print_header(f"{'command':<66} {'seconds':>8}")
        check = [*rtsched, "check", str(path), "-m", str(M)]
        first = timed(check, env("cache-check"), base)
        again = timed(check, env("cache-check"), base)
        compiled = timed([sys.executable, "-c", COMPILE, *names], env("cache-check"), base)
        kernels = timed(check, env("cache-check"), base)
        print(f"{'rtsched check, 4 cores, 16 tasks, every seg-* analysis: cold':<66} {first:8.1f}")
        print(f"{'  the same again (small set: still the exact references)':<66} {again:8.1f}")
        print(f"{'  compiling the seg-* kernels (what rtsched cache --compile does)':<66} {compiled:8.1f}")
        print(f"{'  rtsched check after it (the kernels)':<66} {kernels:8.1f}")
        experiment = base / "scaled.toml"
        scaled_experiment(experiment)
        count = len(tomllib.loads(experiment.read_text(encoding="utf-8"))["analyses"]["names"])
        sweep = [*rtsched, "sweep", str(experiment), "--out", str(base / "sweep"), "--no-plot", "-q"]
        cold = timed(sweep, env("cache-sweep"), base)
        shutil.rmtree(base / "sweep")  # the warm run must redo the units
        warm = timed(sweep, env("cache-sweep"), base)
        label = f"rtsched sweep examples/segmented_experiment.toml, 3 x 20 sets, {count} analyses"
        print(f"{label + ': cold':<66} {cold:8.1f}")
        print(f"{'  warm':<66} {warm:8.1f}   ({warm / 60 * 1e3:,.0f} ms per set)")
        print(f"ratios: check cold / with kernels {first / kernels:.2f}x; sweep cold / warm {cold / warm:.1f}x")


def main() -> None:
    """Print the host, the kernels table and the user's path."""
    parser = arguments(__doc__, sets=5_000, reference_sets=200, seed=1)
    parser.add_argument("--skip-cli", action="store_true", help="only the kernels table")
    parser.add_argument("--skip-kernels", action="store_true", help="only the user's path")
    args = parser.parse_args()
    print(host_line())
    if not args.skip_kernels:
        start = time.perf_counter()
        batch = sample(args.sets, args.seed)
        generated = args.sets / (time.perf_counter() - start)
        print(f"generator (GCAPS setup, 12-24 tasks on 4 CPUs, one GPU; Python): {generated:,.0f} sets/s")
        kernels_table(batch, args.reference_sets)
    if not args.skip_cli:
        user_path(args.seed)


if __name__ == "__main__":
    main()
