"""bcl-iter, uni-qpa and rta per set, compiled for the host and for AVX2-only CPUs (issue #45, item 1).

Run (on demand; never part of the test suite)::

    python benchmarks/bench_isa.py [--cpus host haswell znver3] [--old DIR] [--callgrind]
                                   [--sets 2000] [--rounds 7] [--seed 15]

Numba generates code for the CPU named by ``NUMBA_CPU_NAME`` with the features of
``NUMBA_CPU_FEATURES`` (empty: the named CPU's own), so an AVX-512 machine can build and run the
code an AVX2-only host (Intel Haswell, AMD Zen 3) gets. Each build runs in a child process of
this script with those variables and a kernel cache of its own (``RTSCHED_CACHE_DIR`` under
the system temporary folder, so the user's cache is not touched). ``host`` is llvmlite's host
CPU and features (what a user gets).

Sets: ``bench_vs_schedcat.py``'s per-set recipe (n = 10, m = 4 for bcl-iter and rta, m = 1 for
uni-qpa, U/m uniform over (0, 1], periods log-uniform in [10, 1000], D uniform in [C, T]; the
same seed gives the same sets), one Numba thread.

Two measures:

* default: CPU ns per set, medians of alternating rounds (``bench_vs_schedcat.median_us_per_set``)
  in each child. Children are separate processes, so compare builds only roughly on a loaded
  machine; ``--rounds`` more rounds help.
* ``--callgrind``: instructions per set under Valgrind's callgrind, counted between two markers
  around ``--reps`` calls of the batch kernel (``--zero-before=getppid --dump-before=getuid``;
  the instrumentation is switched on just before, so that importing costs little). Repeatable
  under load. Valgrind does not run AVX-512 code, so ``host`` is skipped there on an AVX-512
  machine.

``--functions`` (with ``--callgrind``): also the instructions per set of each compiled function
(callgrind's ``--dump-instr=yes`` counts per instruction address, attributed to the JIT symbol
at or below it within its memory mapping; the child looks the symbols up in Numba's execution
engine by the names in the kernel cache's object files). Functions marked
``inline="always"`` count in their caller. Session 26 found uni-qpa's and bcl-iter's AVX2
hot spots this way (papers/zhang-burns2009-qpa.md, papers/bcl2005.md).

``--old DIR``: the same children also on another checkout (e.g. ``git worktree add /tmp/old
<rev>``; this script links ``DIR/rtsched/analyses`` and ``DIR/rtsched/generators`` to the
checkout's folders so that ``DIR`` imports without installing), for before/after tables.
The table is printed with :func:`_common.host_line` and, per row, the CPU name and vector
features used for codegen.
"""

from __future__ import annotations

import argparse
import glob
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
#: (registry name, m) of the rows.
ROWS = (("bcl-iter", 4), ("uni-qpa", 1), ("rta", 4))


def child(args: argparse.Namespace) -> None:
    """Measure in this process (the parent set the environment) and print one JSON line."""
    if args.root != str(ROOT):
        sys.path.insert(0, args.root)
    sys.path.insert(0, str(HERE))
    import numba
    import numpy as np
    from bench_vs_schedcat import draw_sets, median_us_per_set, runner

    import rtsched
    from rtsched import analyses

    numba.set_num_threads(1)
    calls = {}
    for name, m in ROWS:
        batch = draw_sets(np.random.default_rng(args.seed), args.sets, 10, m, "uniform")
        fn = runner(analyses.get(name), batch, m)
        fn()  # compile or load the cache
        calls[name] = (fn, batch.n_sets)
    from _common import codegen_target

    cpu, features = codegen_target()
    result: dict[str, object] = {"cpu": cpu, "features": features, "rtsched": str(Path(rtsched.__file__).parent.parent)}
    if args.child_callgrind:
        if args.symbols:
            _write_symbols(args.symbols)
        os.system(f"callgrind_control -i on {os.getpid()} > /dev/null")  # instrument from here on
        for fn, _ in calls.values():
            fn()  # once instrumented (translations made)
            os.getppid()  # --zero-before=getppid
            for _ in range(args.reps):
                fn()
            os.getuid()  # --dump-before=getuid
    else:
        us = median_us_per_set(calls, args.rounds)
        result.update({name: 1000 * us[name] for name in us})
    print("RESULT " + json.dumps(result), flush=True)


def _write_symbols(path: str) -> None:
    """Write ``{address: [symbol, end of its memory mapping]}`` of every compiled kernel function."""
    import re

    from numba.core.registry import cpu_target

    engine = cpu_target.target_context.codegen()._engine._ee
    names: set[str] = set()
    for cached in glob.glob(os.path.join(os.environ["RTSCHED_CACHE_DIR"], "**", "*.nbc"), recursive=True):
        with open(cached, "rb") as f:
            names.update(x.decode() for x in re.findall(rb"_ZN[0-9A-Za-z_$.]+", f.read()))
    with open("/proc/self/maps", encoding="utf-8") as f:
        spans = [tuple(int(v, 16) for v in line.split()[0].split("-")) for line in f]
    symbols = {}
    for name in names:
        try:
            address = engine.get_function_address(name)
        except Exception:  # (a name of another module in the cache file)
            continue
        end = next((hi for lo, hi in spans if lo <= address < hi), 0)
        if address and end:
            symbols[address] = [name, end]
    with open(path, "w", encoding="utf-8") as f:
        json.dump(symbols, f)


def _short_symbol(name: str) -> str:
    """``rtsched.analyses.theory.edf_demand._qpa_shortcuts`` from its mangled name (``_ZN<len><part>…``)."""
    import re

    out, rest = [], name[3:]
    while (m := re.match(r"\d+", rest)) is not None:
        k, digits = int(m.group()), len(m.group())
        out.append(rest[digits : digits + k])
        rest = rest[digits + k :]
    return ".".join(out) or name


def _callgrind_functions(path: str, symbols_path: str, per: int) -> list[tuple[str, float]]:
    """Instructions per set of each JIT function in one callgrind dump (``--dump-instr=yes``)."""
    import bisect
    import re

    with open(symbols_path, encoding="utf-8") as f:
        table = sorted((int(a), name, end) for a, (name, end) in json.load(f).items())
    starts = [a for a, _, _ in table]
    totals: dict[str, float] = {}
    npos, address, after_call = 1, 0, False
    with open(path, encoding="utf-8") as dump:
        for line in dump:
            if line.startswith("positions:"):
                npos = len(line.split()) - 1
                continue
            if line.startswith("calls="):
                after_call = True  # the next cost line is the call's inclusive cost
                continue
            m = re.match(r"^(0x[0-9a-f]+|[+-][0-9]+|\*)\s+(.*)$", line)
            if not m:
                continue
            token, rest = m.groups()
            if token.startswith("0x"):
                address = int(token, 16)
            elif token[0] in "+-":
                address += int(token)
            values = rest.split()[npos - 1 :]
            if after_call:
                after_call = False
                continue
            if not values or values[0] == "*":
                continue
            i = bisect.bisect_right(starts, address) - 1
            if i >= 0 and address < table[i][2]:
                name = _short_symbol(table[i][1])
                totals[name] = totals.get(name, 0.0) + int(values[0]) / per
    return sorted(totals.items(), key=lambda kv: -kv[1])


def _callgrind_counts(out_prefix: str) -> list[int]:
    """Ir of every dump of a callgrind run, in dump order (the dumps after each marker)."""
    counts = []
    for path in sorted(glob.glob(out_prefix + ".*"), key=lambda p: int(p.rsplit(".", 1)[1] or 0)):
        with open(path, encoding="utf-8") as dump:
            for line in dump:
                if line.startswith("summary:") or line.startswith("totals:"):
                    counts.append(int(line.split()[1]))
                    break
    return counts


def run_child(root: str, cpu: str, args: argparse.Namespace) -> dict:
    """One build (checkout ``root``, codegen ``cpu``) in a child process; its result."""
    env = dict(os.environ, NUMBA_NUM_THREADS="1")
    env.pop("NUMBA_CACHE_DIR", None)
    tag = f"{hashlib.sha1(root.encode()).hexdigest()[:8]}-{cpu}"
    env["RTSCHED_CACHE_DIR"] = os.path.join(tempfile.gettempdir(), f"rtsched-isa-cache-{tag}")
    if cpu != "host":
        env["NUMBA_CPU_NAME"] = cpu
        env["NUMBA_CPU_FEATURES"] = ""
    cmd = [sys.executable, __file__, "--child", "--root", root, "--sets", str(args.sets)]
    cmd += ["--rounds", str(args.rounds), "--seed", str(args.seed), "--reps", str(args.reps)]
    prefix = None
    if args.callgrind:
        # compile (or load) natively first: compiling under Valgrind would take hours
        subprocess.run([*cmd, "--rounds", "1", "--sets", "50"], env=env, check=True, capture_output=True)
        prefix = os.path.join(tempfile.mkdtemp(prefix="rtsched-isa-cg-"), "cg")
        extra = ["--dump-instr=yes"] if args.functions else []
        cmd = [
            "valgrind", "--tool=callgrind", "--instr-atstart=no", "--zero-before=getppid",
            "--dump-before=getuid", *extra, f"--callgrind-out-file={prefix}.%p", *cmd, "--child-callgrind",
        ]  # fmt: skip
        if args.functions:
            cmd += ["--symbols", prefix + "-symbols.json"]
    done = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True)
    line = next(x for x in done.stdout.splitlines() if x.startswith("RESULT "))
    result = json.loads(line[len("RESULT ") :])
    if prefix is not None:
        counts = _callgrind_counts(prefix)
        # the dumps: one per marker (one per row), then the final one at exit
        for (name, _), ir in zip(ROWS, counts[: len(ROWS)], strict=True):
            result[name] = ir / (args.reps * args.sets)
        if args.functions:
            dumps = sorted(glob.glob(prefix + ".*[0-9]"), key=lambda p: int(p.rsplit(".", 1)[1] or 0))
            for (name, _), dump in zip(ROWS, dumps, strict=False):
                per = args.reps * args.sets
                result[name + " functions"] = _callgrind_functions(dump, prefix + "-symbols.json", per)
    return result


def main() -> None:
    """Run every (checkout, CPU) child and print the table."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cpus", nargs="+", default=["host", "haswell"], help="codegen CPUs (LLVM names, or host)")
    parser.add_argument("--old", help="another checkout to measure beside this one (before/after)")
    parser.add_argument("--callgrind", action="store_true", help="instructions per set under callgrind")
    parser.add_argument("--functions", action="store_true", help="with --callgrind: per compiled function too")
    parser.add_argument("--symbols", help=argparse.SUPPRESS)
    parser.add_argument("--sets", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=7, help="alternating rounds per child (timing)")
    parser.add_argument("--reps", type=int, default=2, help="kernel calls counted per row (callgrind)")
    parser.add_argument("--seed", type=int, default=15)
    parser.add_argument("--root", default=str(ROOT), help=argparse.SUPPRESS)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--child-callgrind", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args)
        return
    sys.path.insert(0, str(HERE))
    from _common import host_line

    roots = [("this checkout", str(ROOT))]
    if args.old:
        old = Path(args.old).resolve()
        for package in ("analyses", "generators"):
            link = old / "rtsched" / package
            if not link.exists():
                link.symlink_to(Path("..") / package)
        roots.insert(0, ("--old " + str(old), str(old)))
    print(host_line())
    unit = "instructions per set (callgrind)" if args.callgrind else "CPU ns per set (median of rounds)"
    print(f"{args.sets} sets, n = 10, seed {args.seed}; {unit}")
    header = f"{'checkout':34} {'codegen CPU':16} {'vector features':26} " + " ".join(f"{n:>10}" for n, _ in ROWS)
    print(header)
    print("-" * len(header))
    for label, root in roots:
        for cpu in args.cpus:
            if args.callgrind and cpu == "host" and "+avx512f" in _host_features():
                print(f"{label:34} {'host':16} {'AVX-512: not under Valgrind':26}")
                continue
            r = run_child(root, cpu, args)
            values = " ".join(f"{r[n]:10.1f}" for n, _ in ROWS)
            print(f"{label:34} {r['cpu'] + ('' if cpu != 'host' else ' (host)'):16} {r['features']:26} {values}")
            for n, _ in ROWS:
                for function, ir in r.get(n + " functions", [])[:8]:
                    print(f"    {n:10} {ir:10.1f}  {function}")


def _host_features() -> str:
    import llvmlite.binding as llvm

    return llvm.get_host_cpu_features().flatten()


if __name__ == "__main__":
    main()
