"""Build SchedCAT's C++ tests as a Python module for ``bench_vs_schedcat.py --schedcat DIR`` (issue #45).

Run (on demand, outside the test suite; nothing of SchedCAT enters this repository)::

    git clone https://github.com/brandenburg/schedcat /tmp/schedcat
    git -C /tmp/schedcat checkout 725a2dfa
    pip install swig            # SWIG from PyPI; GMP's C++ headers: apt-get install libgmp-dev
    python benchmarks/build_schedcat.py --source /tmp/schedcat --out /tmp/schedcat-native [--march haswell]
    python benchmarks/bench_vs_schedcat.py --schedcat /tmp/schedcat-native

It compiles, from the user's own checkout and unchanged, ``native/src/tasks.cpp``,
``native/src/cpu_time.cpp`` and the nine ``native/src/edf/*.cpp`` files whose tests
``bench_vs_schedcat.py`` times (:data:`SOURCES`), with the flags of upstream's Makefile (non-debug,
no LP solver) and ``-march`` as given, so that both sides of a side-by-side run can be built for
the same ISA (``--march haswell`` beside ``NUMBA_CPU_NAME=haswell NUMBA_CPU_FEATURES=""``: AVX2
code on any x86-64 host). The SWIG interface is written here: module ``schedcat_native`` (``sched``
is a standard-library module), the headers of those tests only (:data:`HEADERS`), the ``%ignore``
lines that upstream's ``native/interface/sched.i`` gives for the classes they declare, read from
the checkout, and two of our own for ``QPATest`` (its overloads with GMP arguments, which SWIG
cannot wrap). Commit 725a2dfa is the one the benchmark's figures name: later commits change
``qpa.cpp`` and ``tasks.h``. Each missing tool or file is named in one line, exit status 2.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

#: The C++ files compiled, relative to ``native/src``: the task model and the nine EDF tests.
SOURCES = ("tasks.cpp", "cpu_time.cpp") + tuple(
    f"edf/{name}.cpp" for name in ("gfb", "baker", "bcl", "bcl_iterative", "rta", "baruah", "ffdbf", "load", "qpa")
)
#: The headers wrapped, relative to ``native/include``.
HEADERS = ("tasks.h", "schedulability.h") + tuple(
    f"edf/{name}.h" for name in ("baker", "gfb", "baruah", "bcl", "bcl_iterative", "rta", "ffdbf", "load", "qpa")
)
#: Classes those headers declare whose ``%ignore`` lines are taken from upstream's interface.
IGNORED_CLASSES = ("Task", "TaskSet", "QPATest")
#: Ours: QPATest's members with GMP arguments (SWIG has no typemap for them).
OWN_IGNORES = (
    "%ignore QPATest::get_demand(integral_t interval, const TaskSet &ts);",
    "%ignore QPATest::get_max_interval(const TaskSet &ts, const fractional_t& util);",
)
#: Upstream's Makefile flags (non-debug), without -march.
FLAGS = ("--std=c++14", "-Wall", "-Wextra", "-Wno-unused-parameter", "-fPIC", "-O2")


def interface(upstream: str) -> str:
    """The SWIG interface: ``schedcat_native`` over :data:`HEADERS`, with upstream's ``%ignore``
    lines for :data:`IGNORED_CLASSES` (read from ``upstream``, the text of its ``sched.i``) and ours."""
    pattern = re.compile(r"^%ignore\s+(" + "|".join(IGNORED_CLASSES) + r")::")
    ignores = [line.strip() for line in upstream.splitlines() if pattern.match(line.strip())]
    ignores += [line for line in OWN_IGNORES if line not in ignores]
    includes = [f'#include "{header}"' for header in HEADERS]
    return "\n".join(
        ["%module schedcat_native", "%{", "#define SWIG_FILE_WITH_INIT", *includes, "%}", *ignores, *includes, ""]
    )


def fail(message: str) -> None:
    """One line on standard error, exit status 2."""
    print(f"build_schedcat: {message}", file=sys.stderr)
    raise SystemExit(2)


def run(command: list[str], cwd: Path) -> None:
    """Run ``command`` in ``cwd``; on failure, its last lines of output and exit status 2."""
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    if done.returncode != 0:
        tail = "\n".join((done.stderr or done.stdout).strip().splitlines()[-15:])
        print(tail, file=sys.stderr)
        fail(f"{command[0]} failed (exit {done.returncode}): {' '.join(command)}")


def commit(source: Path) -> str:
    """The checkout's commit, or "unknown" (not a git checkout)."""
    done = subprocess.run(["git", "-C", str(source), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    return done.stdout.strip() if done.returncode == 0 else "unknown"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--source", required=True, type=Path, help="a SchedCAT checkout (holds native/)")
    parser.add_argument("--out", required=True, type=Path, help="folder for schedcat_native.py and its .so")
    parser.add_argument("--march", default="native", help="g++ -march (native, haswell, znver3, ...)")
    parser.add_argument("--swig", default=shutil.which("swig") or "swig", help="the swig executable")
    parser.add_argument("--cxx", default=shutil.which("g++") or "g++", help="the C++ compiler")
    args = parser.parse_args(argv)

    native = args.source.resolve() / "native"
    missing = [native / "src" / name for name in SOURCES] + [native / "include" / name for name in HEADERS]
    missing.append(native / "interface" / "sched.i")
    for path in missing:
        if not path.is_file():
            fail(f"{path}: no such file (--source must be a SchedCAT checkout, e.g. at commit 725a2dfa)")
    for tool, hint in ((args.cxx, "apt-get install g++"), (args.swig, "pip install swig")):
        if shutil.which(tool) is None:
            fail(f"{tool}: not found ({hint})")
    gmp = subprocess.run([args.cxx, "-x", "c++", "-E", "-", "-o", "/dev/null"], input="#include <gmpxx.h>\n",
                         capture_output=True, text=True)  # fmt: skip
    if gmp.returncode != 0:
        fail("gmpxx.h: GMP's C++ headers are missing (apt-get install libgmp-dev)")

    out = args.out.resolve()
    objects = out / "obj"
    objects.mkdir(parents=True, exist_ok=True)
    flags = [*FLAGS, f"-march={args.march}", f"-I{native / 'include'}"]
    (objects / "sched_rt.i").write_text(interface((native / "interface" / "sched.i").read_text()))
    built = []
    for name in SOURCES:
        target = objects / (Path(name).stem + ".o")
        run([args.cxx, *flags, "-c", str(native / "src" / name), "-o", str(target)], objects)
        built.append(str(target))
    run([args.swig, "-python", "-c++", "-outdir", str(out), "-includeall", f"-I{native / 'include'}",
         "-o", str(objects / "sched_wrap.cc"), str(objects / "sched_rt.i")], objects)  # fmt: skip
    python_include = sysconfig.get_paths()["include"]
    run([args.cxx, *flags, f"-I{python_include}", "-c", str(objects / "sched_wrap.cc"), "-o",
         str(objects / "sched_wrap.o")], objects)  # fmt: skip
    built.append(str(objects / "sched_wrap.o"))
    run([args.cxx, "-shared", "-o", str(out / "_schedcat_native.so"), *built, "-lgmp", "-lgmpxx", "-lrt"], objects)
    print(f"built {out / '_schedcat_native.so'} from SchedCAT {commit(args.source)} with -march={args.march}")
    print(f"run: python benchmarks/bench_vs_schedcat.py --schedcat {out}")


if __name__ == "__main__":
    main()
