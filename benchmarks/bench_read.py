"""Task-set reading throughput, old (exact per-value) path against the fast path (not a test; issue #45 item 3).

    python benchmarks/bench_read.py [--sets 3000] [--tasks 10] [--repeat 3]

Writes ``--sets`` seeded sets of ``--tasks`` tasks in every format rtsched writes (and a JSON file
whose tasks carry priorities), then times, in this one process, best of ``--repeat``:

- ``read``: the file into text (:func:`rtsched.io.stream.read_text`: the streaming size/count checks);
- ``old``: the text into task sets by the exact per-value path (the fast path switched off);
- ``new``: the same by :func:`rtsched.io.loads` (fast path first);
- values/s from the file: task values (C, D, T, and priority when given) / (read + old or new).

For YAML it also times libyaml's composer alone (``yaml.compose`` with ``CSafeLoader``), the part
the fast path cannot avoid, to show what caps it. Target of issue #45: ≥ 10⁶ values per second.
The machine's load is printed (a shared machine: figures scale with it).
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from unittest import mock

import numpy as np
import yaml
from _common import host_line, sample_batch

import rtsched.io.tasksets as tasksets_module
from rtsched import TaskSet
from rtsched.io import loads, write_tasksets
from rtsched.io.stream import read_text


def best(repeat: int, fn: Callable[[], Any]) -> tuple[float, Any]:
    times, out = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return min(times), out


def with_priorities(sets: list[TaskSet]) -> str:
    rng = np.random.default_rng(3)
    docs = []
    for ts in sets:
        prios = rng.permutation(ts.n).tolist()
        rows = ", ".join(
            f'{{"C": {c}, "D": {d}, "T": {t}, "priority": {p}}}' for (c, d, t, _), p in zip(ts, prios, strict=True)
        )
        docs.append(f'{{"tasks": [{rows}]}}')
    return "[\n" + ",\n".join(docs) + "\n]\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sets", type=int, default=3000)
    parser.add_argument("--tasks", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    sets = list(sample_batch(args.sets, args.tasks, 4, seed=11))
    print(host_line())
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs")
    print(f"{args.sets} sets x {args.tasks} tasks; best of {args.repeat}\n")
    header = f"{'format':<14}{'values':>9}{'read s':>9}{'old s':>9}{'new s':>9}{'old values/s':>14}{'new values/s':>14}{'speed-up':>9}"
    print(header)
    print("-" * len(header))
    with tempfile.TemporaryDirectory() as tmp:
        cases = [(fmt, fmt, 3) for fmt in ("json", "jsonl", "csv", "txt", "yaml")] + [("json", "json+priority", 4)]
        for fmt, label, per_task in cases:
            path = Path(tmp) / f"sets.{fmt}"
            if label == "json+priority":
                path.write_text(with_priorities(sets), encoding="utf-8")
            else:
                write_tasksets(path, sets, format=fmt)
            values = per_task * args.sets * args.tasks
            t_read, text = best(args.repeat, lambda p=path, f=fmt: read_text(p, str(p), f))
            with mock.patch.object(tasksets_module, "fast_loads", return_value=None):
                t_old, old = best(max(1, args.repeat - 1), lambda t=text, f=fmt: loads(t, f))
            t_new, new = best(args.repeat, lambda t=text, f=fmt: loads(t, f))
            assert new == old and [s.names for s in new] == [s.names for s in old]
            v_old, v_new = values / (t_read + t_old), values / (t_read + t_new)
            print(
                f"{label:<14}{values:>9}{t_read:>9.3f}{t_old:>9.3f}{t_new:>9.3f}{v_old:>14,.0f}{v_new:>14,.0f}"
                f"{v_new / v_old:>8.1f}x"
            )
            if fmt == "yaml":
                loader = getattr(yaml, "CSafeLoader", None)
                if loader is not None:
                    t_compose, _ = best(args.repeat, lambda t=text, ld=loader: yaml.compose(t, Loader=ld))
                    print(f"{'  (libyaml compose alone)':<32}{t_compose:>9.3f}{'':>14}{values / t_compose:>14,.0f}")
    print(f"\nload average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
