"""rtsched against SchedCAT's C++ (issue 15): µs per set, the growth with n, and n = 5,000.

Run (on demand; never part of the test suite)::

    python benchmarks/bench_vs_schedcat.py [--sets 2000] [--fresh-sets 40000] [--rounds 5]
        [--names rta,bar] [--reference-sets 20] [--large-timeout 120] [--skip-growth] [--skip-large]
        [--schedcat /tmp/schedcat-native] [--twin]

What it prints
--------------
1. **Per-set table** for every row of the issue's table (gfb, bak, bcl, bcl-iter, rta, bar,
   ffdbf, load, p-edf, uni-qpa): rtsched µs per set on ``--sets`` seeded sets, SchedCAT's C++
   µs per set as measured for the issue (constants below, :data:`SCHEDCAT_US`; without ``--schedcat``
   SchedCAT is not run), their ratio, the acceptance ratio, and the pure-Python reference's µs per set on
   the first ``--reference-sets`` of the same sets with the kernel/reference ratio (the same run).
   Beside it, the **fresh** column: the same recipe on ``--fresh-sets`` (40,000) other sets, each
   decided once per timed call, and its ratio to the same SchedCAT figure. The issue's protocol
   (2,000 sets decided again in every call) lets the branch predictor learn every set's path:
   measured on 2026-12-01 (bcl-iter, n = 10, m = 4), 200–4,000 repeated sets took 76–90 ns per set,
   8,000–50,000 took 132–134 ns; 20,000 sets made of the 2,000 repeated ten times took 76 ns like
   the 2,000 (so it is the repetition, not the memory footprint). A sweep decides every set once:
   the fresh column is the user's path. (Side by side, below, SchedCAT's C++ takes the same time
   on fresh and repeated sets.)
   With ``--schedcat DIR``, SchedCAT's own native tests run **side by side**: the same sets as
   SchedCAT TaskSets, each SchedCAT test timed right after rtsched's row in every round, in this
   process (column "SchedCAT here" and its ratio), on the first of the fresh sets ("SchedCAT
   fresh", to which the fresh ratio then refers), and
   the verdicts compared set by set (SchedCAT's RTA stops after 25 rounds, its FF-DBF and LOAD
   search with a float grain and its BAR gives up after 5 s, so they may accept fewer sets; any
   set SchedCAT alone accepts is worth a look). The host's speed moves from day to day by more
   than some rows' margins (papers/bcl2005.md); the side-by-side ratio does not depend on the
   day. The issue's constants stay for reference. p-edf has no native SchedCAT test: it is
   composed as a SchedCAT user would (:func:`schedcat_pedf_call`: Python first fit in decreasing
   density, SchedCAT's native QPA admitting each processor).
   The table ends with issue 15's criterion: with ``--schedcat``, on the issue's protocol (every
   row ≥ 100× side by side, and the lowest row), then the rows below 100× on fresh sets; without
   it, the lowest ratio to the issue's constants, which move with the host's speed.
2. **Growth table**: µs per set for n = 5, 10, 20, 40, 80 on accepting paths, and n = 80 over
   n = 5.
3. **n = 5,000**: one set per analysis, its verdict (True / False / "unknown") and the wall time,
   each in a child process stopped after ``--large-timeout`` seconds ("no answer").

rtsched's side is each analysis's ``prange`` driver on one thread, or with ``--twin`` its serial
twin, which every sweep unit runs (``rtsched.kernels.serial``). The twin calls the chunk loop as
Numba compiled it on its own, the driver a copy LLVM optimised once more, and until session 31
the two differed (bcl-iter's fixed point 2.9x, bar's twin 1.9x): ``bench_serial_twins.py`` compares
them for every analysis, and papers/bcl2005.md ("One compiled copy, not two") tells the story.

Sets (every draw from ``numpy.random.default_rng(--seed)``, one generator per table)
-------------------------------------------------------------------------------------
- Per-set table: n = 10 tasks, m = 4 (m = 1 for uni-qpa). Per set, U/m uniform over (0, 1]
  (``U = m·(1 − r)``, r uniform in [0, 1)); task utilizations by UUniFast
  (:func:`rtsched.generators.uunifast` for total 1, scaled by U: UUniFast is uniform on the
  simplex, so scaling is exact); periods ``log-uniform:10:1000`` (the generators' default);
  constrained deadlines ``uniform`` (D uniform on the integers of [C, T]); integer rounding by
  :func:`rtsched.generators.integer_tasks` (C = min(T, max(1, rint(u·T))), so a task drawn with
  u > 1 gets C = T).
- Growth table: the same recipe with implicit deadlines (D = T), U/m uniform over (0, 1/2] and
  periods ``log-uniform:1000:100000`` (with 10..1000, rounding C up to 1 inflates U by about
  n/47 at n = 80, and almost no uniprocessor set stays schedulable);
  each analysis is timed on the sets it accepts (its accepting path: no early rejection), so the
  sample differs per analysis; the table prints how many of the ``--growth-sets`` it accepted.
- n = 5,000: the same recipe, implicit deadlines, U/m = 1/2 exactly, periods
  ``log-uniform:10000:10000000`` (so that rounding C up to 1 barely moves U; the realised U is
  printed), m = 4 (m = 1 for uni-qpa), the analysis's default budget.

SchedCAT's native module (``--schedcat``; never vendored, built outside the repository)
-------------------------------------------------------------------------------------
From https://github.com/brandenburg/schedcat at commit 725a2dfa (the figures below; later commits
change ``qpa.cpp`` and ``tasks.h``), ``native/``: ``include/`` and ``src/tasks.cpp``,
``src/cpu_time.cpp``, ``src/edf/{gfb,baker,bcl,bcl_iterative,rta,baruah,ffdbf,load,qpa}.cpp``,
unchanged, with upstream's Makefile flags (non-debug, no LP solver), SWIG from PyPI (``pip install
swig``) and GMP's C++ headers, by ``build_schedcat.py`` beside this file (it writes the SWIG
interface: module ``schedcat_native``, only ``tasks.h``, ``schedulability.h`` and the nine
``edf/*.h`` above, upstream's ``%ignore`` lines for their classes)::

    git clone https://github.com/brandenburg/schedcat /tmp/schedcat && git -C /tmp/schedcat checkout 725a2dfa
    python benchmarks/build_schedcat.py --source /tmp/schedcat --out DIR [--march haswell]

Measured on this machine kind on 2026-12-02 with
SchedCAT at commit 725a2dfa (its ``edf/*.cpp``), g++ 12 (``-march=native``: znver3). Its
constructors take m and their defaults (``RTAGedf``: 25 rounds; ``QPATest`` only m = 1).

A side-by-side run (2026-12-02, after RTA's descent, defaults, ``--schedcat``; µs per set)::

    test       SchedCAT µs  rtsched µs    ratio SchedCAT here   ratio  fresh µs SchedCAT fresh   ratio
    gfb               4.36       0.015     289x          5.72    380x     0.020           6.10    303x
    bak               7.91       0.044     179x         13.97    316x     0.062          14.95    239x
    bcl               5.27       0.028     187x          7.87    279x     0.055           8.43    154x
    bcl-iter          7.67       0.078      99x          8.34    107x     0.138           9.60     70x
    rta             139.00       0.813     171x        110.06    135x     0.837         127.39    152x
    bar              40.40       0.194     208x         44.49    230x     0.273          54.88    201x
    ffdbf           474.00       0.774     613x        587.08    759x     0.728         607.52    835x
    load            514.00       0.113    4544x        534.56   4725x     0.137         592.59   4337x
    p-edf           118.00       1.069     110x        152.17    142x     1.162         176.03    152x
    uni-qpa          16.50       0.124     133x         16.52    133x     0.220          16.52     75x
    Verdicts against SchedCAT on these sets: ffdbf: SchedCAT alone accepts 0, rtsched alone 28;
    load: SchedCAT alone accepts 0, rtsched alone 6

The run ends with issue 15's criterion on its own protocol (every row ≥ 100× side by side:
yes, lowest bcl-iter: 107× and 109× in two runs that day, 104–106× in three the day before) and the rows below 100× on fresh sets
(bcl-iter 68–70×, uni-qpa 75–77×). The host's speed moved by 1.5× within that day (SchedCAT's
bcl-iter took 7.8–11.0 µs), so the ratio to the issue's constants moves with it; the
side-by-side ratio does not.

SchedCAT's time does not depend on whether the sets repeat (its tests spend their time in GMP
rationals and the heap); rtsched's branchy kernels (bcl-iter, uni-qpa, bcl) are 1.6–1.9× slower
on fresh sets. SchedCAT's rows differ from the issue's constants by row, not by one factor (bak
1.74× slower here, rta 0.74×), so the issue's figures came from another build or version.

AVX2 code on an AVX-512 host (issue #45)
----------------------------------------
Both sides built for an AVX2-only CPU, run on this host: Numba's code for Haswell
(``NUMBA_CPU_NAME=haswell NUMBA_CPU_FEATURES="" RTSCHED_CACHE_DIR=<a folder of its own>``; the
first line then names the CPU the kernels were compiled for) and SchedCAT built as above with
``-march=haswell``. The same instructions as an AVX2 host runs, on this host's core and branch
predictor: a proxy for an AVX2 machine, not a measurement of one. Session 27 (2026-12-07, this
machine otherwise idle, 3 rounds; ratios to SchedCAT here, repeated / fresh sets): gfb 387× /
276×, bak 374× / 201×, bcl 218× / 133×, **bcl-iter 71× / 50×**, rta 115–117× / 112–113× (after
its 32-bit plain pass and scan), bar 164× / 141×, ffdbf 573× / 578×, load 3,596× / 3,467×, p-edf 139× /
130×, uni-qpa 131–133× / 104–105× (after its branch-free deadline sort). Session 28 (2026-12-07,
after bcl-iter's branch-free minimums, ``_slack.min_nb``; papers/bcl2005.md, "Fresh sets"):
Haswell build gfb 390× / 297×, bak 368× / 198×, bcl 218× / 128×, **bcl-iter 69× / 53×**, rta
115× / 116×, bar 165× / 138×, ffdbf 572× / 587×, load 3,554× / 3,356×, p-edf 140× / 134×,
uni-qpa 130× / 105×; host build (AVX-512) gfb 380× / 295×, bak 318× / 238×, bcl 279× / 151×,
**bcl-iter 93× / 64×**, rta 137× / 135×, bar 227× / 155×, ffdbf 711× / 699×, load 4,627× /
4,198×, p-edf 136× / 130×, uni-qpa 125× / 100×. Session 29 (2026-12-07, after 256-bit vectors and rows of 4
lanes, ``rtsched.kernels.vectors_256``, and 32-bit column lanes on AVX2 targets; papers/bcl2005.md,
"Vectors of 256 bits"): Haswell build gfb 384× / 301×, bak 374× / 201×, bcl 218× / 128×,
**bcl-iter 83× / 63×**, rta 123× / 119×, bar 177× / 147×, ffdbf 563× / 569×, load 3,577× /
3,369×, p-edf 139× / 135×, uni-qpa 131× / 106×; host build (AVX-512, Zen 4) gfb 385× / 300×, bak
315× / 238×, bcl 282× / 154×, **bcl-iter 105× / 71×**, rta 142× / 137×, bar 233× / 159×, ffdbf
751× / 744×, load 4,720× / 4,299×, p-edf 137× / 130×, uni-qpa 137× / 109×.
Session 30 (2026-12-07; bcl-iter's two passes per block of 64 sets, the fixed point's first
sweep without a branch per row, which RTA shares, and τh as one vectorised maximum;
papers/bcl2005.md, "Two passes per block"; A/B against the session's start, 2 runs, 3 rounds):
host build **bcl-iter 100–101× / 88–92×** (before: 105–106× / 71–72×; µs 0.074–0.077 / 0.112 →
0.077–0.078 / 0.088–0.089), rta 143–144× / 138–139× (unchanged); Haswell build **bcl-iter
78–79× / 72–76×** (before: 83–85× / 62–64×; µs 0.092–0.094 / 0.125–0.126 → 0.099–0.101 /
0.108–0.110), rta 120× / 117× (unchanged).
The same day, a proxy closer to the issue's host (an AMD Zen 3, AVX2): both sides built for
``znver3`` (``NUMBA_CPU_NAME=znver3 NUMBA_CPU_FEATURES=""``, SchedCAT with ``-march=znver3``), on
this host, all rows, 2 runs: gfb 384–385× / 289–294×, bak 364× / 196–200×, bcl 210–213× /
127–128×, **bcl-iter 79–80× / 73×**, rta 123–124× / 118–121×, bar 165–169× / 131–134×, ffdbf
563–578× / 575–580×, load 3,199–3,229× / 3,065–3,071×, p-edf 134–136× / 128–131×, uni-qpa 129× /
103–105×.
Session 31 (2026-12-07): session 30's figures are the ``prange`` driver's. The serial twin, which
sweep units run, ran bcl-iter's fixed point 2.9× slower (its own compiled copy of the chunk;
papers/bcl2005.md, "One compiled copy, not two"): about 48× SchedCAT on fresh sets on the host
build. After the fix, one run each, ratio here repeated / fresh: host build, drivers: gfb 389× /
297×, bak 316× / 238×, bcl 283× / 153×, **bcl-iter 99× / 91×**, rta 144× / 140×, bar 226× /
157×, ffdbf 713× / 700×, load 4,686× / 4,283×, p-edf 137× / 131×, uni-qpa 138× / 110×; the same
with ``--twin``: gfb 408× / 300×, bak 310× / 239×, bcl 300× / 152×, **bcl-iter 100× / 90×**,
rta 140× / 136×, bar 216× / 156×, ffdbf 676× / 678×, load 4,595× / 4,225×, p-edf 136× / 132×,
uni-qpa 136× / 114×. Haswell build (bcl-iter, rta, uni-qpa, bar), drivers: **bcl-iter 79× /
74×**, rta 119× / 118×, uni-qpa 139× / 112×, bar 199× / 164×; twins: **bcl-iter 78× / 73×**,
rta 120× / 117×, uni-qpa 126× / 103×, bar 158× / 136×.
Session 32 (2026-12-07): BCL-iter's chunk loop compiled with Numba's ``noalias`` flag
(``rtsched.kernels.kernel(noalias=True)``; papers/bcl2005.md, "No run-time overlap tests"; A/B:
Haswell build −3.5 %, host build −1 to −1.5 %). Drivers, two runs each, ratio here repeated /
fresh: host build **bcl-iter 102× / 91–92×**, rta 140–145× / 138–140×, uni-qpa 138–140× /
110–111×; Haswell build **bcl-iter 82–83× / 74–76×**, rta 119–121× / 117–118×, uni-qpa
129–131× / 105–107×.
Session 33 (2026-12-07): the raises' column terms in the raise form and, on AVX2 targets, S^lb's
quotient through int32 (papers/bcl2005.md, "The raise's chain"; A/B: about 1 % each on the
fixed-point sets, the second on the Haswell build only). Drivers, ratio here repeated / fresh:
host build (4 runs) **bcl-iter 103–104× / 91–92×** (and 97× / 88× in one slow process), rta
141–143× / 137–139×, uni-qpa 138–147× / 109–117×; Haswell build (2 runs) **bcl-iter 83–84× /
76–77×**, rta 119–120× / 117–118×, uni-qpa 130–131× / 105–106×.
Session 34 (2026-12-07): rtsched's rejection from above for sets whose τh pre-check row is heavy
(papers/bcl2005.md, shortcut 11 and "The rejection from above, for heavy rows"; A/B: fresh sets
−4 % host build, −2 % Haswell build; fixed-point sets −13 % / −9 %). Ratio here repeated / fresh:
host build (3 runs) **bcl-iter 104–106× / 95–99×** (twin 105× / 97×), rta 133–141× /
138–140×, uni-qpa 135–138× / 93–111× (unchanged code; the 93× run's fresh figure 0.167 µs against
0.138–0.140 in the others); Haswell build (2 runs) **bcl-iter 85× / 79×**, rta 121–123× /
118–119×, uni-qpa 128–130× / 104×; znver3 build (1 run) **bcl-iter 85× / 78×**, rta 121× / 119×,
uni-qpa 130× / 105×.
Session 35 (2026-12-07, no kernel change; SchedCAT rebuilt at 725a2dfa; a noisy day): host build
(2 runs) **bcl-iter 102–103× / 95×**, rta 141–145× / 136–138×, uni-qpa 136–148× / 109×; Haswell
build (2 runs) **bcl-iter 85–86× / 72–77×**, rta 120–122× / 120–123×, uni-qpa 130–132× / 99–105×
(uni-qpa's fresh column at the threshold). SchedCAT's later commits (86211bc) change ``qpa.cpp``
and ``tasks.h`` but not ``bcl_iterative.cpp`` or ``rta.cpp``; built from 86211bc the same day, bcl-iter
measured 96–107× / 93–102× (host) and 80–84× / 73–76× (Haswell).
Session 36 (2026-12-08; a very noisy host: a pure-Python loop moved by ±25 % from second to
second): uni-qpa's shortcut search stops below the least deadline where dbf* may exceed
(papers/zhang-burns2009-qpa.md, shortcut 5; bcl-iter unchanged); SchedCAT built by
``build_schedcat.py``. All rows, one run each, ratio here repeated / fresh: Haswell build
gfb 385× / 405×, bak 363× / 296×, bcl 217× / 151×, **bcl-iter 78× / 74×**, rta 119× / 146×,
bar 168× / 168×, ffdbf 612× / 651×, load 3533× / 4611×, p-edf 143× / 162×, uni-qpa 152× / 120×;
host build gfb 428× / 339×, bak 301× / 252×, bcl 272× / 164×, **bcl-iter 98× / 98×**, rta
175× / 147×, bar 237× / 216×, ffdbf 812× / 871×, load 6158× / 5427×, p-edf 191× / 137×, uni-qpa
172× / 120×. Haswell build, uni-qpa alone, two more runs: 131–132× / 115–133×; bcl-iter alone,
three runs before the change: 75–85× / 75–94×.

Timing
------
One thread (``numba.set_num_threads(1)``). A timed call is the analysis's batch kernel over all
sets (``Analysis._kernel(C, D, T, offsets, m, [budget,] out)``; for analyses declared with
``codes=`` such as p-edf, ``Analysis.status(batch, m)``), repeated so that one sample lasts
about 50 ms; the rounds alternate between the analyses, and the figure is the median over
``--rounds`` rounds of process CPU time (robust to other processes on a shared machine; wall
time is inflated by their load). UNDECIDED codes (float margins) are re-decided by the registry
only inside ``status``; the kernel timing excludes those rare re-decisions.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numba
import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from _common import host_line, print_header

from rtsched import analyses
from rtsched.generators import integer_tasks, uunifast
from rtsched.model import TaskSetBatch

#: SchedCAT C++ µs per set measured for issue 15 (2,000 sets, n = 10, m = 4, one thread,
#: medians of alternating rounds; SchedCAT built from source; uni-qpa with m = 1).
SCHEDCAT_US = {
    "gfb": 4.36,
    "bak": 7.91,
    "bcl": 5.27,
    "bcl-iter": 7.67,
    "rta": 139.0,
    "bar": 40.4,
    "ffdbf": 474.0,
    "load": 514.0,
    "p-edf": 118.0,
    "uni-qpa": 16.5,
}
NAMES = tuple(SCHEDCAT_US)
#: SchedCAT's native test class (``native/include/edf/*.h``) behind each row, constructed with
#: its defaults and m; p-edf (SchedCAT's FFD is Python code, not native) has none.
SCHEDCAT_CLASSES = {
    "gfb": "GFBGedf",
    "bak": "BakerGedf",
    "bcl": "BCLGedf",
    "bcl-iter": "BCLIterativeGedf",
    "rta": "RTAGedf",
    "bar": "BaruahGedf",
    "ffdbf": "FFDBFGedf",
    "load": "LoadGedf",
    "uni-qpa": "QPATest",
}
SIZES = (5, 10, 20, 40, 80)
M = 4
PERIODS = "log-uniform:10:1000"
#: Periods of the growth table: long enough that rounding C up to 1 barely moves U at n = 80.
GROWTH_PERIODS = "log-uniform:1000:100000"
LARGE_N = 5000
LARGE_PERIODS = "log-uniform:10000:10000000"
#: Seconds one timed sample should last (the call is repeated to reach it).
SAMPLE_SECONDS = 0.05
#: SchedCAT's fresh column: the first of the fresh sets, as many as one call decides in about
#: this many seconds (the slow rows would take minutes on all 40,000), but at least
#: FRESH_MIN_SETS (from about 8,000 distinct sets the branch predictor no longer learns them).
FRESH_CALL_SECONDS = 4.0
FRESH_MIN_SETS = 10_000


def processors(name: str) -> int:
    """m of the issue's table: 1 for the uniprocessor test, else 4."""
    return 1 if name.startswith("uni-") else M


def draw_sets(
    rng: np.random.Generator, n_sets: int, n: int, m: int, deadlines: str, u_high: float = 1.0, periods: str = PERIODS
) -> TaskSetBatch:
    """``n_sets`` sets of n tasks: U/m uniform over (0, u_high], UUniFast, the given periods/deadlines."""
    total = m * u_high * (1.0 - rng.random(n_sets))  # (0, m·u_high]
    u = uunifast(rng, n, 1.0, n_sets) * total[:, None]
    C, D, T = integer_tasks(rng, u, periods, deadlines)
    offsets = np.arange(0, n_sets * n + 1, n, dtype=np.int64)
    return TaskSetBatch(C.ravel(), D.ravel(), T.ravel(), offsets)


#: Set by ``--twin``: :func:`runner` times each analysis's serial twin, not its ``prange`` driver.
TWIN = False


def runner(entry: analyses.Analysis, batch: TaskSetBatch, m: int):
    """A no-argument call deciding every set of ``batch`` on the batch kernel (its serial twin with ``--twin``)."""
    extra = () if entry.budget is None else (entry.budget,)
    kernel = entry._kernel
    if kernel is None:
        return lambda: entry.status(batch, m)
    if TWIN and getattr(kernel, "serial", None) is not None:
        kernel = kernel.serial
    out = np.empty(batch.n_sets, dtype=np.int8)
    C, D, T, offsets = batch.C, batch.D, batch.T, batch.offsets
    return lambda: kernel(C, D, T, offsets, m, *extra, out)


def cpu_sample(fn, repeat: int) -> float:
    """Process CPU seconds of ``repeat`` calls of ``fn``."""
    start = time.process_time()
    for _ in range(repeat):
        fn()
    return time.process_time() - start


def median_us_per_set(calls: dict[str, tuple[object, int]], rounds: int) -> dict[str, float]:
    """Median over alternating rounds of CPU µs per set, for every named (call, n_sets)."""
    repeats = {}
    for name, (fn, _) in calls.items():
        fn()  # compile or load the cache
        once = max(cpu_sample(fn, 1), 1e-6)
        repeats[name] = max(1, int(SAMPLE_SECONDS / once))
    samples: dict[str, list[float]] = {name: [] for name in calls}
    for _ in range(rounds):
        for name, (fn, n_sets) in calls.items():
            samples[name].append(1e6 * cpu_sample(fn, repeats[name]) / (repeats[name] * n_sets))
    return {name: statistics.median(values) for name, values in samples.items()}


def reference_us(entry: analyses.Analysis, batch: TaskSetBatch, m: int, count: int) -> float:
    """CPU µs per set of the pure-Python reference on the first ``count`` sets."""
    sets = [batch[i] for i in range(min(count, batch.n_sets))]
    start = time.process_time()
    for ts in sets:
        entry.reference(ts, m)
    return 1e6 * (time.process_time() - start) / len(sets)


def load_schedcat(folder: str):
    """SchedCAT's native module, built as described in the module docstring, from ``folder``."""
    sys.path.insert(0, str(Path(folder).resolve()))
    try:
        return importlib.import_module("schedcat_native")
    except ImportError as error:
        raise SystemExit(f"--schedcat {folder}: cannot import schedcat_native there ({error})") from None


def schedcat_sets(native, batch: TaskSetBatch) -> list:
    """The sets of ``batch`` as SchedCAT TaskSets (``add_task(cost, period, deadline)``)."""
    out = []
    for i in range(batch.n_sets):
        ts = batch[i]
        native_set = native.TaskSet()
        for c, d, t in zip(ts.C.tolist(), ts.D.tolist(), ts.T.tolist(), strict=True):
            native_set.add_task(c, t, d)
        out.append(native_set)
    return out


def schedcat_call(test, sets: list):
    """A no-argument call deciding every SchedCAT set with ``test`` (its verdicts in a list)."""
    return lambda: [test.is_schedulable(ts) for ts in sets]


def schedcat_tests(
    native, names: list[str], batches: dict[int, TaskSetBatch], sizes: dict[str, int] | None = None
) -> dict:
    """name → a no-argument call deciding the first ``sizes[name]`` sets (default: all) of
    ``batches[m]`` with SchedCAT's test; each batch is converted to SchedCAT TaskSets once."""
    names = [name for name in names if name in SCHEDCAT_CLASSES or name == "p-edf"]
    size = {name: (sizes or {}).get(name, batches[processors(name)].n_sets) for name in names}
    needed = {m: max((size[x] for x in names if processors(x) == m), default=0) for m in batches}
    native_sets = {m: schedcat_sets(native, batches[m].select(np.arange(k))) for m, k in needed.items() if k}
    tests = {}
    for name in names:
        m = processors(name)
        if name == "p-edf":
            tests[name] = schedcat_pedf_call(native, batches[m].select(np.arange(size[name])), m)
        else:
            test = getattr(native, SCHEDCAT_CLASSES[name])(m)
            tests[name] = schedcat_call(test, native_sets[m][: size[name]])
    return tests


def schedcat_pedf_call(native, batch: TaskSetBatch, m: int):
    """p-edf as a SchedCAT user composes it: first fit in decreasing density (the order of
    ``schedcat.mapping.binpack``'s decreasing heuristics, Python's stable sort), each candidate
    processor admitted by the native ``QPATest(1)`` on a TaskSet of its tasks plus the new one,
    as ``schedcat.sched.edf.is_schedulable(1, tasks)`` builds and tests it. SchedCAT has no
    native partitioning, so the loop is Python, as it is there."""
    qpa = native.QPATest(1)
    sets = []
    for i in range(batch.n_sets):
        ts = batch[i]
        tasks = list(zip(ts.C.tolist(), ts.D.tolist(), ts.T.tolist(), strict=True))
        tasks.sort(key=lambda task: task[0] / task[1], reverse=True)
        sets.append(tasks)

    def admits(placed: list, task: tuple) -> bool:
        native_set = native.TaskSet()
        for c, d, t in (*placed, task):
            native_set.add_task(c, t, d)
        return qpa.is_schedulable(native_set)

    def partition(tasks: list) -> bool:
        bins: list[list] = [[] for _ in range(m)]
        for task in tasks:
            for placed in bins:
                if admits(placed, task):
                    placed.append(task)
                    break
            else:
                return False
        return True

    return lambda: [partition(tasks) for tasks in sets]


@contextlib.contextmanager
def quiet_stdout():
    """File descriptor 1 to /dev/null: SchedCAT's LoadGedf prints a line to std::cout on most
    sets (``TaskSet::approx_load``); its cost stays in its time, as it did for the issue."""
    sys.stdout.flush()
    saved = os.dup(1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.close(devnull)
    try:
        yield
    finally:
        os.dup2(saved, 1)
        os.close(saved)


def per_set_table(names: list[str], args: argparse.Namespace) -> None:
    """Table 1: µs per set beside SchedCAT's figures, on the issue's repeated sets and on fresh ones."""
    batches = {m: draw_sets(np.random.default_rng(args.seed), args.sets, 10, m, "uniform") for m in (1, M)}
    fresh_rng = np.random.default_rng([args.seed, 1])
    fresh = {m: draw_sets(fresh_rng, args.fresh_sets, 10, m, "uniform") for m in (1, M)} if args.fresh_sets else {}
    entries = {name: analyses.get(name) for name in names}
    native = load_schedcat(args.schedcat) if args.schedcat else None
    tests = schedcat_tests(native, names, batches) if native is not None else {}
    calls = {}
    for name, e in entries.items():  # each SchedCAT test right after rtsched's, in every round
        calls[name] = (runner(e, batches[processors(name)], processors(name)), args.sets)
        if name in tests:
            calls[f"{name} schedcat"] = (tests[name], args.sets)
    with quiet_stdout() if tests else contextlib.nullcontext():
        us = median_us_per_set(calls, args.rounds)
        schedcat_verdicts = {name: call() for name, call in tests.items()}
    # The fresh sets in rounds of their own: between two calls on the repeated sets, a call on
    # fresh ones would wipe what the predictor learned and slow the column down.
    if fresh:
        calls = {
            f"{name} fresh": (runner(e, fresh[processors(name)], processors(name)), args.fresh_sets)
            for name, e in entries.items()
        }
        if tests:  # SchedCAT on the first of the same fresh sets: one call of about FRESH_CALL_SECONDS
            sizes = {
                name: min(args.fresh_sets, max(FRESH_MIN_SETS, int(FRESH_CALL_SECONDS * 1e6 / us[f"{name} schedcat"])))
                for name in tests
            }
            fresh_tests = schedcat_tests(native, list(tests), fresh, sizes)
            for name, call in fresh_tests.items():
                calls[f"{name} schedcat fresh"] = (call, sizes[name])
        with quiet_stdout() if tests else contextlib.nullcontext():
            us.update(median_us_per_set(calls, args.rounds))
    print(f"Per set: {args.sets} sets, n = 10, m = {M} (uni-qpa: m = 1), U/m uniform over (0, 1], {PERIODS},")
    print(f"constrained deadlines; one thread; median CPU µs over {args.rounds} alternating rounds")
    if fresh:
        print(
            f"'fresh': {args.fresh_sets} other sets of the same recipe, each decided once per call (the path of a"
            " sweep; the repeated sets train the branch predictor)"
        )
    if tests:
        print(
            "'SchedCAT here': its native tests (--schedcat) in this process on the same sets, each right after"
            " rtsched's in every round; 'SchedCAT fresh': on the first of the fresh sets (as many as one call"
            f" decides in about {FRESH_CALL_SECONDS:g} s, at least {FRESH_MIN_SETS:,}); each ratio divides the"
            " SchedCAT figure just before it by rtsched's"
        )
    here = f" {'SchedCAT here':>13} {'ratio':>7}" if tests else ""
    fresh_here = f" {'SchedCAT fresh':>14}" if tests else ""
    print_header(
        f"{'test':10} {'SchedCAT µs':>11} {'rtsched µs':>11} {'ratio':>8}{here} {'fresh µs':>9}{fresh_here} {'ratio':>7} "
        f"{'accept':>7} {'reference µs':>13} {'vs reference':>13}"
    )
    disagreements = []
    side_by_side: dict[str, float] = {}  # rtsched's ratio to SchedCAT here, repeated sets
    side_by_side_fresh: dict[str, float] = {}
    for name, entry in entries.items():
        m = processors(name)
        codes = entry.status(batches[m], m)
        accept = float(np.mean(codes == 1))
        ref = reference_us(entry, batches[m], m, args.reference_sets) if args.reference_sets else float("nan")
        fresh_us = us.get(f"{name} fresh", float("nan"))
        measured = us.get(f"{name} schedcat")
        cells = ""
        if tests:
            cells = f" {measured:13.2f} {measured / us[name]:6.0f}x" if measured is not None else f" {'—':>13} {'':>7}"
        if measured is not None:
            side_by_side[name] = measured / us[name]
        # the fresh ratio: against SchedCAT on fresh sets when it ran, else against the figure
        fresh_schedcat = us.get(f"{name} schedcat fresh")
        fresh_baseline = fresh_schedcat if fresh_schedcat is not None else SCHEDCAT_US[name]
        fresh_cell = ""
        if tests:
            fresh_cell = f" {fresh_schedcat:14.2f}" if fresh_schedcat is not None else f" {'—':>14}"
        if fresh_schedcat is not None:
            side_by_side_fresh[name] = fresh_schedcat / fresh_us
        print(
            f"{name:10} {SCHEDCAT_US[name]:11.2f} {us[name]:11.3f} {SCHEDCAT_US[name] / us[name]:7.0f}x{cells} "
            f"{fresh_us:9.3f}{fresh_cell} {fresh_baseline / fresh_us:6.0f}x {accept:7.2f} {ref:13.1f} "
            f"{ref / us[name]:12.0f}x"
        )
        if name in schedcat_verdicts:
            theirs = np.array(schedcat_verdicts[name], dtype=bool)
            only_theirs = int(np.sum(theirs & (codes != 1)))
            only_ours = int(np.sum(~theirs & (codes == 1)))
            if only_theirs or only_ours:
                disagreements.append(f"{name}: SchedCAT alone accepts {only_theirs}, rtsched alone {only_ours}")
    if tests:
        print(
            "Verdicts against SchedCAT on these sets: "
            + ("the same on every set" if not disagreements else "; ".join(disagreements))
        )
    if not side_by_side and names:  # no SchedCAT here: only the constants to compare with
        ratios = {name: SCHEDCAT_US[name] / us[name] for name in names}
        low = min(ratios, key=ratios.__getitem__)
        print(
            f"Against the issue's constants (another build, another day): lowest {low} {ratios[low]:.0f}x. "
            "The host's speed moves these ratios by up to 1.5x within a day; issue 15's protocol times "
            "SchedCAT side by side: --schedcat DIR (build recipe in this file's docstring)"
        )
    if side_by_side:  # issue 15's criterion, on its own protocol: SchedCAT built here, the same sets
        low = min(side_by_side, key=side_by_side.__getitem__)
        verdict = "yes" if side_by_side[low] >= 100 else "no"
        print(
            f"Issue 15 (side by side, the issue's protocol): every row >= 100x: {verdict} "
            f"(lowest: {low} {side_by_side[low]:.0f}x)"
        )
        if side_by_side_fresh:
            low = min(side_by_side_fresh, key=side_by_side_fresh.__getitem__)
            below = [name for name, ratio in side_by_side_fresh.items() if ratio < 100]
            print(
                f"On fresh sets (a sweep's path, beyond the issue's protocol): lowest {low} "
                f"{side_by_side_fresh[low]:.0f}x; below 100x: {', '.join(below) or 'none'}"
            )


def growth_table(names: list[str], args: argparse.Namespace) -> None:
    """Table 2: µs per set by n on each analysis's accepting sets (implicit deadlines)."""
    rng = np.random.default_rng(args.seed + 1)
    drawn = {
        (m, n): draw_sets(rng, args.growth_sets, n, m, "implicit", 0.5, GROWTH_PERIODS) for m in (1, M) for n in SIZES
    }
    calls = {}
    accepted = {}
    for name in names:
        entry = analyses.get(name)
        m = processors(name)
        for n in SIZES:
            batch = drawn[m, n]
            keep = np.flatnonzero(entry.status(batch, m) == 1)
            accepted[name, n] = keep.size
            if keep.size:
                calls[f"{name}@{n}"] = (runner(entry, batch.select(keep), m), int(keep.size))
    us = median_us_per_set(calls, args.rounds)
    print()
    print(
        f"Growth: µs per set on accepting paths, implicit deadlines, U/m uniform over (0, 1/2], {GROWTH_PERIODS}; "
        f"accepted of {args.growth_sets} in brackets"
    )
    print(f"{'test':10} " + " ".join(f"{f'n={n}':>16}" for n in SIZES) + f" {'n=80/n=5':>9}")
    for name in names:
        cells = []
        for n in SIZES:
            key = f"{name}@{n}"
            cells.append(f"{us[key]:9.3f} ({accepted[name, n]:4d})" if key in us else f"{'—':>16}")
        first, last = us.get(f"{name}@{SIZES[0]}"), us.get(f"{name}@{SIZES[-1]}")
        growth = f"{last / first:8.1f}x" if first and last else f"{'—':>9}"
        print(f"{name:10} " + " ".join(cells) + f" {growth}")


def large_one(name: str, seed: int) -> None:
    """Child process: decide one n = 5,000 set and print a JSON line (verdict, seconds, U)."""
    numba.set_num_threads(1)
    entry = analyses.get(name)
    m = processors(name)
    rng = np.random.default_rng(seed)
    total = m / 2
    u = uunifast(rng, LARGE_N, total, 1)
    C, D, T = integer_tasks(rng, u, LARGE_PERIODS, "implicit")
    batch = TaskSetBatch(C.ravel(), D.ravel(), T.ravel(), np.array([0, LARGE_N], dtype=np.int64))
    entry.status(draw_sets(rng, 4, 10, m, "implicit"), m)  # compile or load the cache first
    start = time.perf_counter()
    code = int(entry.status(batch, m)[0])
    seconds = time.perf_counter() - start
    realised = float(np.sum(C / T))
    print(json.dumps({"code": code, "seconds": seconds, "U": realised, "m": m}))


def large_table(names: list[str], args: argparse.Namespace) -> None:
    """Table 3: n = 5,000, one set per analysis, each in a child process with a timeout."""
    print()
    print(
        f"n = {LARGE_N}: one set, implicit deadlines, U/m = 1/2 (target), {LARGE_PERIODS}, default budget, "
        f"one thread, wall time; no answer after {args.large_timeout:g} s is reported as such"
    )
    print(f"{'test':10} {'m':>2} {'realised U':>10} {'verdict':>9} {'seconds':>9}")
    words = {1: "True", 0: "False", -1: "unknown"}
    for name in names:
        command = [sys.executable, __file__, "--large-one", name, "--seed", str(args.seed + 2)]
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=args.large_timeout, check=True)
        except subprocess.TimeoutExpired:
            print(f"{name:10} {processors(name):2d} {'':>10} {'no answer':>9} {f'>{args.large_timeout:g}':>9}")
            continue
        except subprocess.CalledProcessError as error:
            print(f"{name:10} failed: {error.stderr.strip().splitlines()[-1]}")
            continue
        row = json.loads(done.stdout.strip().splitlines()[-1])
        print(f"{name:10} {row['m']:2d} {row['U']:10.3f} {words[row['code']]:>9} {row['seconds']:9.3f}")


def main() -> None:
    """Parse the options and print the three tables."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sets", type=int, default=2000, help="sets of the per-set table")
    parser.add_argument("--growth-sets", type=int, default=2000, help="sets drawn per n for the growth table")
    parser.add_argument(
        "--fresh-sets", type=int, default=40000, help="sets of the per-set table's fresh column (0: skip it)"
    )
    parser.add_argument("--rounds", type=int, default=5, help="alternating rounds (the median is reported)")
    parser.add_argument("--reference-sets", type=int, default=20, help="sets for the reference (0: skip)")
    parser.add_argument("--large-timeout", type=float, default=120.0, help="seconds per n = 5,000 row")
    parser.add_argument("--names", default=",".join(NAMES), help="rows to measure (comma-separated)")
    parser.add_argument("--seed", type=int, default=15)
    parser.add_argument("--skip-growth", action="store_true")
    parser.add_argument("--skip-large", action="store_true")
    parser.add_argument(
        "--schedcat",
        metavar="DIR",
        help="folder holding SchedCAT's native module schedcat_native (built as the docstring says): time it "
        "side by side on the same sets",
    )
    parser.add_argument(
        "--twin",
        action="store_true",
        help="time each analysis's serial twin (what a sweep unit runs; benchmarks/bench_serial_twins.py) instead "
        "of its prange driver",
    )
    parser.add_argument("--large-one", help=argparse.SUPPRESS)
    args = parser.parse_args()
    global TWIN
    TWIN = args.twin
    if args.large_one:
        large_one(args.large_one, args.seed)
        return
    names = [x.strip() for x in args.names.split(",") if x.strip()]
    print(host_line())  # the vector ISA beside the ratios (and the CPU the kernels were built for)
    print("rtsched's kernels: " + ("the serial twins (--twin)" if args.twin else "the prange drivers, one thread"))
    unknown = [x for x in names if x not in SCHEDCAT_US]
    if unknown:
        parser.error(f"no SchedCAT figure for {', '.join(unknown)}; choose among {', '.join(NAMES)}")
    numba.set_num_threads(1)
    per_set_table(names, args)
    if not args.skip_growth:
        growth_table(names, args)
    if not args.skip_large:
        large_table(names, args)


if __name__ == "__main__":
    main()
