"""The kernel toolbox: verdict codes, decorators, exact integer helpers, re-decision.

One place for what every Numba kernel shares:

* verdict codes (:data:`ACCEPT`, ``REJECT``, ``UNKNOWN``, ``UNDECIDED``) and the
  named internal sentinels (:data:`CONTINUE`, :data:`NONE`, :data:`SIGN_UNDECIDED`);
* the decorators :func:`kernel` (a serial ``@njit``: ``cache=True``, ``nogil=True``, never
  ``fastmath``; ``counted=False`` for a kernel without Numba's reference counting;
  ``noalias=True`` for one whose array arguments never share memory it writes) and
  :func:`batch_kernel` (the same with ``parallel=True``, for ``prange`` drivers over task sets);
* the drivers made from a one-set kernel: :func:`sets_kernel` (``prange`` over chunks of the
  sets of a batch, each chunk an uncounted serial loop) and :func:`workspace_kernels` (the same
  with per-chunk scratch rows, and its serial twin), with :func:`chunk_count` and :func:`largest_set`;
* exact integer helpers: :func:`floor_divmod` (⌊a/b⌋ and a mod b through a float reciprocal,
  exact under one precondition, :data:`RECIPROCAL_EXACT`), :func:`floor_divmod_any` (any a ≥ 0),
  :func:`floor_divmod_branchy` (the same with a branch for the correction, for scalar loops),
  :func:`floor_divmod_up` (a reciprocal rounded up, no correction step, for a ≤ 2**48),
  :func:`gcd`, :func:`dbf` (the demand bound function) and :func:`deadline_step` (the walk over
  the absolute deadlines D_i + k·T_i in increasing order);
* ``vectors_256`` (asks LLVM for 256-bit vectors in the calling kernel: loops padded to 4
  int64 lanes);
* :func:`margin_verdict` (a float comparison with a proven error margin: a verdict, or
  UNDECIDED inside the margin);
* :func:`redecide` and :func:`verdict_code` (from the exact reference's verdict to a code).

Exactness policy: a kernel either decides with integer arithmetic or computes in
floating point with a proven error margin and returns ``UNDECIDED`` for sets that fall
inside the margin; :func:`redecide` then settles those with the exact reference (Python ints
and Fractions). So the batch verdict equals the exact verdict on every integer input.

Numba's cache does not notice edits in other files; rtsched's cache folder is therefore keyed by
a digest of every kernel source file (``rtsched/_bootstrap.py``), so editing a shared ``@njit``
helper here starts a fresh cache by itself.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
from numba import njit, prange
from numba import types as numba_types
from numba.core.compiler import Compiler
from numba.extending import intrinsic
from numpy.typing import NDArray

from rtsched import _numba_inline
from rtsched.errors import InputError

if TYPE_CHECKING:
    from rtsched.model import TaskSet, TaskSetBatch
    from rtsched.result import Verdict

__all__ = [
    "ACCEPT",
    "CONTINUE",
    "EPS",
    "NONE",
    "RECIPROCAL_EXACT",
    "RECIPROCAL_UP",
    "REJECT",
    "SIGN_UNDECIDED",
    "UNDECIDED",
    "UNKNOWN",
    "CHUNK_TASKS",
    "MAX_CHUNKS",
    "batch_kernel",
    "chunk_count",
    "check_processors",
    "dbf",
    "deadline_step",
    "floor_divmod",
    "floor_divmod_any",
    "floor_divmod_branchy",
    "floor_divmod_up",
    "gcd",
    "insert_sorted",
    "kernel",
    "largest_set",
    "largest_set_size",
    "margin_verdict",
    "redecide",
    "redecide_by",
    "serial",
    "sets_kernel",
    "workspace_kernels",
    "top_sum",
    "vectors_256",
    "verdict_code",
    "wide_vectors",
]

_numba_inline.install()  # Numba inlines our helpers without its quadratic IR copies (same code)

#: Kernel verdict codes. UNDECIDED asks the wrapper for the exact reference; UNKNOWN is a
#: budget that ran out (reported as "unknown", never as a rejection).
ACCEPT = np.int8(1)
REJECT = np.int8(0)
UNKNOWN = np.int8(-1)
UNDECIDED = np.int8(2)
#: Internal sentinel of a kernel step that reached no verdict yet: "go on" (never returned to
#: a caller outside the kernel that produced it).
CONTINUE = np.int8(-2)
#: "No such time value" (e.g. no absolute deadline below t); time values are never negative.
NONE = -1
#: An exact sign (−1, 0, 1) that could not be computed within int64: decide elsewhere.
SIGN_UNDECIDED = 2

#: Unit roundoff of float64.
EPS = 2.0**-53


def wide_vectors() -> bool:
    """Whether Numba's target CPU has AVX-512DQ: kernels then keep int64 operands.

    On such a target int64 lanes convert to and from float64 and multiply natively. On an
    AVX2-only one (Intel Haswell, AMD Zen 3) those operations go one lane at a time or are
    emulated, so some kernels pass values that provably fit in 32 bits through int32 instead
    (bcl-iter and rta: ``analyses/global_edf/_slack.py``; the EDF demand kernels:
    ``analyses/theory/_operands.py``; issue #45). The target is Numba's: ``NUMBA_CPU_FEATURES``
    when set, else 32-bit operands for a named ``NUMBA_CPU_NAME`` (valid on any x86-64), else the
    host's features. ``RTSCHED_OPERANDS=32|64`` forces one form (the tests compile the one the
    host does not pick in a fresh process); it enters the kernel cache's key
    (``rtsched._bootstrap``), and Numba keys its cache by the target CPU, so a cached kernel is
    never loaded with the other form.

    Returns
    -------
    bool
        True for the int64 forms.
    """
    import os

    forced = os.environ.get("RTSCHED_OPERANDS", "")
    if forced in ("32", "64"):
        return forced == "64"
    from numba.core import config

    features = getattr(config, "CPU_FEATURES", None)
    if features is None:
        if getattr(config, "CPU_NAME", None) not in (None, "host"):
            return False
        import llvmlite.binding as llvm

        features = llvm.get_host_cpu_features().flatten()
    return "+avx512dq" in str(features).split(",")


#: The LLVM function attribute ``vectors_256`` adds (a key-value attribute of LLVM's x86
#: back end, which its loop vectoriser and instruction selection honour).
_PREFER_256 = '"prefer-vector-width"="256"'


@intrinsic
def vectors_256(typingctx):
    """Ask LLVM for vectors of at most 256 bits in the compiled function that calls this (issue #45).

    Emits no code: it marks the LLVM function it is lowered into (the outermost kernel, where
    ``inline="always"`` helpers call it) with ``"prefer-vector-width"="256"``. Why: loops whose
    trip count is a multiple of 4 int64 lanes (``_slack.padded_width``: n = 10 tasks padded to
    12, not 16) run as whole 256-bit vectors on every x86-64 with AVX2; with 512-bit vectors
    they would leave a scalar remainder. On AMD Zen 4, which executes a 512-bit operation as
    two 256-bit halves, 3 ymm iterations cost less than 2 zmm ones over 16 lanes; LLVM already
    prefers 256-bit vectors for Intel's AVX-512 server cores, and AVX2 targets have no wider
    ones, so elsewhere the code is the same. Verdicts cannot change (a vector width changes no
    value: integer lanes, and float lanes without fastmath). llvmlite validates attribute names
    against its list of keyword attributes, so the key-value attribute is added to the set
    directly; ``tests/test_kernels.py`` checks that a kernel using it has no 512-bit register.
    """

    def codegen(context, builder, signature, args):
        set.add(builder.function.attributes, _PREFER_256)  # (llvmlite: an AttributeSet is a set)
        return context.get_dummy_value()

    return numba_types.none(), codegen


def check_processors(m: object) -> int:
    """Validate the number of processors."""
    if isinstance(m, bool) or not isinstance(m, int | np.integer) or int(m) < 1:
        raise InputError(f"the number of processors m must be a positive integer, got {m!r}", field="m")
    if int(m) > 1_000_000:
        raise InputError(f"m = {m} is out of range (at most 1000000)", field="m")
    return int(m)


def verdict_code(verdict: Verdict) -> np.int8:
    """The kernel code of a reference verdict: True → ACCEPT, False → REJECT, "unknown" → UNKNOWN."""
    return UNKNOWN if verdict == "unknown" else (ACCEPT if verdict else REJECT)


def redecide_by(codes: NDArray[np.int8], decide: Callable[[int], Verdict]) -> NDArray[np.int8]:
    """Replace every UNDECIDED code ``codes[s]`` by ``decide(s)``'s code (in place; returns ``codes``)."""
    for s in np.flatnonzero(codes == UNDECIDED):
        codes[s] = verdict_code(decide(int(s)))
    return codes


def redecide(
    codes: NDArray[np.int8],
    batch: TaskSetBatch,
    m: int,
    reference: Callable[[TaskSet, int], Verdict],
) -> NDArray[np.int8]:
    """Replace UNDECIDED codes by the exact reference verdict (in place; returns ``codes``)."""
    return redecide_by(codes, lambda s: reference(batch[s], m))


# --- decorators ------------------------------------------------------------------------------
class _NoAliasCompiler(Compiler):
    """Numba's compiler with its ``noalias`` flag set (:func:`kernel`'s ``noalias=True``).

    The compiled function's pointer arguments (an array's data among them) carry LLVM's
    ``noalias``. Numba sets the flag itself only for the gufuncs of its ``prange`` lowering; a
    pipeline class is its documented way (``njit(pipeline_class=...)``) to compile a function
    otherwise.
    """

    def define_pipelines(self):
        """Numba's pipelines, the flag set first."""
        self.state.flags.noalias = True
        return super().define_pipelines()


def kernel(fn: Callable[..., Any] | None = None, *, counted: bool = True, noalias: bool = False, **options: Any) -> Any:
    """``@kernel`` / ``@kernel(inline="always")`` / ``@kernel(counted=False)``: a serial Numba kernel of rtsched.

    Fixes the house options in one place: ``cache=True`` (kernels compile once per cache
    folder), ``nogil=True`` (threads of a sweep run them side by side) and no ``fastmath`` (a
    verdict must not depend on reassociated float sums). Extra ``options`` go to ``njit``.

    ``counted=False``: Numba emits no reference counting in this function (its option
    ``_nrt=False``, the one place rtsched uses it). Numba counts an array's references with an
    atomic add (``NRT_incref``/``NRT_decref``) for every array argument at a call's entry and
    exit and for every view (``a[i]``, ``a[lo:hi]``), and its pruning keeps many of those in a
    large function: in the partitioned-EDF kernel they took a large share of the time
    (papers/partitioned-heuristics.md, "Performance"). Only for a function that neither
    allocates (``np.empty``: it needs the runtime; Numba refuses to compile it) nor returns or
    stores an array: every array it touches is then owned, and kept alive, by its caller, so the
    counts are pure overhead. Functions inlined into it (``inline="always"``) are part of its
    body and uncounted too; the functions it calls keep their own counting, balanced within each
    call, because every kernel states the option (a kernel left without it would inherit
    ``_nrt=False`` from the first caller it is compiled for, and keep that compilation).

    ``noalias=True``: every array argument's data is marked with LLVM's ``noalias`` (and
    ``captures(none)``), a promise that no memory this function writes through one argument is
    reached through another, and that it keeps no pointer after it returns. Then LLVM needs no
    run-time test, before each vectorised loop, that the rows the loop stores do not overlap the
    arrays it loads. Only for a function whose callers pass distinct arrays for every argument it
    writes (arrays it only reads may coincide: ``noalias`` binds only memory that is written), and
    that keeps no array (``counted=False`` functions do not). BCL-iter's chunk loop, whose
    workspace its callers allocate: 3.5 % faster on the Haswell (AVX2) build and 1.3 % on the
    AVX-512 build (papers/bcl2005.md, "No run-time overlap tests").
    """
    if "fastmath" in options:
        raise ValueError("rtsched kernels never use fastmath (verdicts are exact)")
    # Always explicit: Numba lets a callee inherit the option from the caller it is first
    # compiled for when the callee leaves it unset, and keeps that compilation for the signature.
    options = {"cache": True, "nogil": True, **options, "_nrt": counted}
    if noalias:
        options["pipeline_class"] = _NoAliasCompiler
    return njit(**options) if fn is None else njit(**options)(fn)


def batch_kernel(fn: Callable[..., Any] | None = None, **options: Any) -> Any:
    """``@batch_kernel``: a ``prange`` driver over task sets (:func:`kernel` with ``parallel=True``)."""
    return kernel(fn, parallel=True, **options)


#: Most chunks a batch kernel splits its sets into: many more than threads (64 per thread up to
#: 16 threads) keeps the load balanced when set costs vary. (A fixed number: the thread count
#: read inside a kernel, ``numba.get_num_threads()``, would keep Numba from caching it.)
MAX_CHUNKS = 1024
#: Fewest tasks per chunk: a set costs at least ~0.05 µs per task, so the per-chunk scratch
#: allocations (a fraction of a µs) stay below 2 % of a chunk's work; a set with more tasks
#: than this gets a chunk of its own (up to :data:`MAX_CHUNKS`).
CHUNK_TASKS = 256


@kernel
def chunk_count(offsets):
    """How many chunks a batch kernel splits the sets of a batch with these ``offsets`` into.

    Each chunk reuses one set of scratch buffers: at least :data:`CHUNK_TASKS` tasks per chunk on
    average, at most one chunk per set and :data:`MAX_CHUNKS` in all.
    """
    n_sets = offsets.shape[0] - 1
    tasks = offsets[n_sets] - offsets[0]
    return max(1, min(n_sets, MAX_CHUNKS, tasks // CHUNK_TASKS))


@kernel
def largest_set(offsets):
    """The number of tasks of the largest set of a batch (0 for no set), from its offsets.

    It is the width of a kernel's per-chunk scratch buffers.
    """
    width = 0
    for s in range(offsets.shape[0] - 1):
        width = max(width, offsets[s + 1] - offsets[s])
    return width


# --- drivers over the sets of a batch ----------------------------------------------------------
# The templates below are compiled once per one-set kernel: :func:`_bind` rebinds their globals
# ``_one_set`` (the one-set kernel), ``_chunk`` (the chunk loop bound to it), ``_BUDGET``
# (whether it takes a budget after m) and ``_INT_ROWS``/``_FLOAT_ROWS`` (its workspace rows).
# Numba freezes globals at compile time and prunes the ``if _BUDGET`` branch not taken, so the
# call has a fixed arity and a one-set kernel declared ``@kernel(inline="always")`` is inlined
# into the loop (a ``*args`` call would not be).
# The ``prange`` driver hands each chunk of sets to a serial chunk loop compiled with
# ``counted=False`` (:func:`kernel`): the per-set slices ``C[lo:hi]`` and the one-set call then
# cost no reference counting (a counted loop makes three atomic adds and three subtracts per
# set; see :func:`kernel`).
_one_set: Any = None
_chunk: Any = None
_BUDGET = False
_INT_ROWS = 0
_FLOAT_ROWS = 0


def _each_set(C, D, T, offsets, m, *rest):  # template of sets_kernel(one); rest: [budget,] out
    out = rest[-1]
    n_sets = out.shape[0]
    n_chunks = chunk_count(offsets)
    for c in prange(n_chunks):
        first, last = c * n_sets // n_chunks, (c + 1) * n_sets // n_chunks
        if _BUDGET:
            _chunk(C, D, T, offsets, first, last, m, rest[0], out)
        else:
            _chunk(C, D, T, offsets, first, last, m, 0, out)


def _sets_chunk(C, D, T, offsets, first, last, m, budget, out):  # template: sets first … last − 1
    for s in range(first, last):
        lo, hi = offsets[s], offsets[s + 1]
        if _BUDGET:
            out[s] = _one_set(C[lo:hi], D[lo:hi], T[lo:hi], m, budget)
        else:
            out[s] = _one_set(C[lo:hi], D[lo:hi], T[lo:hi], m)


def _each_set_ws(C, D, T, offsets, m, *rest):  # template of workspace_kernels(one)[0]
    out = rest[-1]
    n_sets = out.shape[0]
    width = max(2, largest_set(offsets) + 1)
    n_chunks = chunk_count(offsets)
    for c in prange(n_chunks):  # one workspace per chunk of sets, not per set
        ints = np.empty((_INT_ROWS, width), dtype=np.int64)
        floats = np.empty((_FLOAT_ROWS, width))
        first, last = c * n_sets // n_chunks, (c + 1) * n_sets // n_chunks
        if _BUDGET:
            _chunk(C, D, T, offsets, first, last, m, rest[0], out, ints, floats)
        else:
            _chunk(C, D, T, offsets, first, last, m, 0, out, ints, floats)


def _sets_chunk_ws(C, D, T, offsets, first, last, m, budget, out, ints, floats):  # template: on one workspace
    for s in range(first, last):
        lo, hi = offsets[s], offsets[s + 1]
        if _BUDGET:
            out[s] = _one_set(C[lo:hi], D[lo:hi], T[lo:hi], m, budget, ints, floats)
        else:
            out[s] = _one_set(C[lo:hi], D[lo:hi], T[lo:hi], m, ints, floats)


def _one_set_ws(C, D, T, m, *budget):  # template of workspace_kernels(one)[1]
    width = max(2, C.shape[0] + 1)
    ints = np.empty((_INT_ROWS, width), dtype=np.int64)
    floats = np.empty((_FLOAT_ROWS, width))
    if _BUDGET:
        return _one_set(C, D, T, m, budget[0], ints, floats)
    return _one_set(C, D, T, m, ints, floats)


def _bind(template: Any, one: Any, suffix: str, rows: dict[str, int] | None = None, chunk: Any = None) -> Any:
    """``template``'s code with ``one`` as its global ``_one_set`` (and the workspace ``rows``, the ``_chunk`` loop).

    Whether ``one`` takes a budget is read from its parameter names, which must be
    ``(C, D, T, m[, budget])``, then ``ints, floats`` when it has workspace ``rows``. The copy has
    a name of its own (after ``one``), so Numba caches it like any kernel. A closure over ``one``,
    or a driver taking ``one`` as an argument, would compile again in every process: Numba keys
    those by the pickled dispatcher, which differs from process to process (measured: a new
    compile on each run). ``tests/test_packaging.py`` checks that a second process loads a driver
    from the cache.
    """
    py_func = one.py_func
    params = py_func.__code__.co_varnames[: py_func.__code__.co_argcount]
    budget = params[4:5] == ("budget",)
    if params != ("C", "D", "T", "m", *(("budget",) if budget else ()), *(("ints", "floats") if rows else ())):
        shape = "(C, D, T, m[, budget]" + (", ints, floats)" if rows else ")")
        raise TypeError(f"{py_func.__name__}{params}: a one-set kernel takes {shape}")
    name = f"{py_func.__module__}.{py_func.__name__}.{suffix}"
    bound = {**template.__globals__, "_one_set": one, "_chunk": chunk, "_BUDGET": budget, **(rows or {})}
    fn = types.FunctionType(template.__code__, bound, name)
    fn.__qualname__ = name
    fn.__doc__ = f"``{py_func.__name__}`` through :mod:`rtsched.kernels`'s ``{template.__name__}``."
    return fn


def _takes_budget(one: Any) -> bool:
    return one.py_func.__code__.co_varnames[4:5] == ("budget",)


def serial(batch: Any) -> Any:
    """The serial twin of a batch kernel (same arguments, one thread, no ``prange``), or None.

    The registry calls it instead of ``batch`` when a batch runs on one thread anyway (fewer
    tasks than the analysis's ``parallel_from``, as every unit of a default sweep; issue #46):
    then only the serial chunk loop is compiled, not the ``prange`` driver around it, which costs
    as much again to compile (Numba's parfor passes, and LLVM over the linked chunk once more).
    The parallel driver compiles the first time a large batch needs it. Attach one to a driver of
    your own with ``driver.serial = fn``; :func:`sets_kernel` and :func:`workspace_kernels` do.

    The twin runs the chunk loop as Numba compiles it on its own; the driver's module links a copy
    that LLVM optimises once more, and the two can compile to different code (a process that
    compiled the chunk, or called the twin first, runs the twin's copy in the driver too). Judge a
    kernel change on both: ``benchmarks/bench_serial_twins.py`` (papers/bcl2005.md, "One
    compiled copy, not two"). Keep a twin's Python side O(1) per set (:func:`largest_set_size`).
    """
    return getattr(batch, "serial", None)


def largest_set_size(offsets: Any) -> int:
    """:func:`largest_set` in NumPy, for the Python side of a serial twin (its workspace width).

    Not ``largest_set.py_func``: that is a Python loop over the sets, which cost bar's serial twin
    about 75 ns per set, more than deciding most of them (session 31).
    """
    return int(np.diff(offsets).max()) if offsets.shape[0] > 1 else 0


def sets_kernel(one: Any) -> Any:
    """The batch kernel of a one-set kernel ``one(C, D, T, m[, budget])``: every set, in ``prange`` over chunks of sets.

    ``sets_kernel(one)(C, D, T, offsets, m[, budget], out)`` sets ``out[s] = one(C_s, D_s, T_s,
    m[, budget])`` for every set ``s``: the registry's kernel signature (:mod:`rtsched.registry`).
    Its :func:`serial` twin runs the chunk loop over every set on the calling thread.
    """
    chunk = kernel(_bind(_sets_chunk, one, "chunk"), counted=False)
    driver = batch_kernel(_bind(_each_set, one, "sets", chunk=chunk))
    budget = _takes_budget(one)

    def run_serial(C: Any, D: Any, T: Any, offsets: Any, m: Any, *rest: Any) -> None:
        out = rest[-1]
        chunk(C, D, T, offsets, 0, out.shape[0], m, rest[0] if budget else 0, out)

    driver.serial = run_serial
    return driver


def workspace_kernels(one: Any, *, ints: int = 0, floats: int = 0) -> tuple[Any, Any]:
    """The batch and the serial kernel of a one-set kernel ``one(C, D, T, m[, budget], ints, floats)``.

    ``ints`` is an int64 array of ``ints`` rows and ``floats`` a float64 array of ``floats``
    rows, each with at least n + 1 (and at least 2) columns, for ``one`` to use as scratch. The
    batch kernel (signature as for :func:`sets_kernel`) allocates them once per chunk of sets
    (:func:`chunk_count`), the serial one, ``(C, D, T, m[, budget])``, once per call. Declare
    ``one`` with ``@kernel(inline="always")`` to have it inlined into both.
    """
    rows = {"_INT_ROWS": ints, "_FLOAT_ROWS": floats}
    suffix = f"ws{ints}x{floats}"
    chunk = kernel(_bind(_sets_chunk_ws, one, f"chunk_{suffix}", rows), counted=False)
    batch = batch_kernel(_bind(_each_set_ws, one, f"sets_{suffix}", rows, chunk))
    budget = _takes_budget(one)

    def run_serial(C: Any, D: Any, T: Any, offsets: Any, m: Any, *rest: Any) -> None:
        # The serial twin (:func:`serial`): one workspace, as wide as the parallel driver's.
        out = rest[-1]
        width = max(2, largest_set_size(offsets) + 1)
        int_rows, float_rows = np.empty((ints, width), dtype=np.int64), np.empty((floats, width))
        chunk(C, D, T, offsets, 0, out.shape[0], m, rest[0] if budget else 0, out, int_rows, float_rows)

    batch.serial = run_serial
    return batch, kernel(_bind(_one_set_ws, one, suffix, rows))


# --- exact integer helpers -------------------------------------------------------------------
#: :func:`floor_divmod` is exact for 0 ≤ a < RECIPROCAL_EXACT and 0 < b < RECIPROCAL_EXACT.
RECIPROCAL_EXACT = 2**51


@kernel(inline="always")
def floor_divmod(a, b, inv_b):
    """(⌊a/b⌋, a mod b) exactly, for 0 ≤ a < 2**51 and 0 < b < 2**51, given inv_b = fl(1/b).

    Why: a multiplication is several times cheaper than a division, and the divisor (a period)
    is fixed for a whole set while a varies. Why exact: inv_b and the product are each rounded
    once (relative error ≤ 2**−53 each), so a·inv_b is within (a/b)·2**−51.9 < 1/2 of a/b and
    its truncation q0 is ⌊a/b⌋ − 1, ⌊a/b⌋ or ⌊a/b⌋ + 1; the remainder a − q0·b (exact in
    int64) is then < 0, in [0, b) or ≥ b, and one branch-free step corrects q0 to ⌊a/b⌋.
    (tests/test_kernels.py checks the edges of the precondition.)
    """
    q = np.int64(np.float64(a) * inv_b)
    r = a - q * b
    fix = np.int64(r >= b) - np.int64(r < 0)
    return q + fix, r - fix * b


#: fl(1/b) times this factor is a reciprocal rounded up for :func:`floor_divmod_up`.
RECIPROCAL_UP = 1.0 + 2.0**-50


@kernel(inline="always")
def floor_divmod_up(a, b, inv_up):
    """(⌊a/b⌋, a mod b) for 0 ≤ a ≤ 2**48 and 0 < b < 2**53, given inv_up = fl(fl(1/b) · (1 + 2**−50)).

    No correction step (rtsched's, papers/bcl2005.md, BCL-iter's shortcut 8): with δ1, δ2, δ3 the relative
    errors (``|δ| ≤ 2**−53``) of 1/b, of the factor's product and of a · inv_up, inv_up =
    (1/b)(1 + δ1)(1 + 2**−50)(1 + δ2) lies in ((1/b)(1 + 2**−51), (1/b)(1 + 2**−49)), and
    p = fl(a · inv_up) in (a/b, (a/b)(1 + 2**−48)) for a ≥ 1 (p = 0 for a = 0). With a = q b + r,
    0 ≤ r < b: q ≤ a/b < p < a/b + a 2**−48/b ≤ (a + 1)/b ≤ q + 1, so trunc(p) = q exactly.
    Against :func:`floor_divmod` (q0 ∈ {q − 1, q, q + 1}, then a compare-and-fix) this
    saves the whole fix (two compares and their conversions, a multiplication, three adds) per
    lane of BCL-iter's column loops, where a = D_k ≤ 2**31 − 1, and per raise of its fixed point,
    where a is a sum < 2**47 and b = m.
    """
    q = np.int64(np.float64(a) * inv_up)
    return q, a - q * b


@kernel(inline="always")
def floor_divmod_any(a, b, inv_b):
    """:func:`floor_divmod` for any 0 ≤ a (integer division from :data:`RECIPROCAL_EXACT` on)."""
    if a >= 2251799813685248:  # RECIPROCAL_EXACT (a literal: Numba freezes globals anyway)
        q = a // b
        return q, a - q * b
    return floor_divmod(a, b, inv_b)


@kernel(inline="always")
def floor_divmod_branchy(a, b, inv_b):
    """:func:`floor_divmod_any` with its correction step as a branch instead of a select.

    The same result and precondition (any 0 ≤ a, 0 < b < 2**51; integer division from
    :data:`RECIPROCAL_EXACT` on). In a scalar loop whose quotient feeds a sum and whose remainder
    is stored (ffdbf's pass over the tasks at each step point), the branch, almost never taken,
    is cheaper than the select's multiplication (papers/bbmss2010-ffdbf.md, "Performance").
    Vectorised loops want :func:`floor_divmod`'s branch-free correction (papers/bcl2005.md,
    "Performance").
    """
    if a >= 2251799813685248:  # RECIPROCAL_EXACT
        q = a // b
        return q, a - q * b
    q = np.int64(np.float64(a) * inv_b)
    r = a - q * b
    if r < 0:
        q -= 1
        r += b
    elif r >= b:
        q += 1
        r -= b
    return q, r


@kernel
def gcd(a, b):
    """Greatest common divisor of ``|a|`` and ``|b|``; gcd(0, 0) = 1, so that it can always divide."""
    a = -a if a < 0 else a
    b = -b if b < 0 else b
    while b != 0:
        a, b = b, a % b
    return a if a != 0 else 1


@kernel(inline="always")
def dbf(C, D, T, t):
    """dbf(τ, t) = max(0, ⌊(t − D)/T⌋ + 1)·C in int64 (Baruah, Mok, Rosier, RTSS 1990).

    The caller guarantees no overflow.
    """
    if t < D:
        return 0
    return ((t - D) // T + 1) * C


@kernel(inline="always")
def deadline_step(C, T, nxt):
    """One step of the walk over the absolute deadlines D_i + k·T_i in increasing order.

    ``nxt[i]`` is task i's next deadline not yet passed (start with a copy of D). Returns
    ``(t, c)``: t = min nxt, the next distinct deadline, and c = Σ C_i over the tasks with a
    deadline at t, whose ``nxt`` move on by T_i. Summing c over the steps gives the synchronous
    demand h(t) = Σ dbf(τi, t) at each t.
    """
    n = nxt.shape[0]
    t = nxt[0]
    for i in range(1, n):
        if nxt[i] < t:
            t = nxt[i]
    c = 0
    for i in range(n):
        if nxt[i] == t:
            c += C[i]
            nxt[i] += T[i]
    return t, c


@kernel(inline="always")
def margin_verdict(diff, margin):
    """The verdict of ``lhs ≤ rhs`` from the float difference ``diff = lhs − rhs``.

    ``margin`` bounds the rounding error of ``diff`` (each kernel proves its own): REJECT if
    diff > margin, ACCEPT if diff < −margin, else UNDECIDED (:func:`redecide` asks the exact
    reference).
    """
    if diff > margin:
        return REJECT
    if diff < -margin:
        return ACCEPT
    return UNDECIDED


@kernel(inline="always")
def insert_sorted(order, count, keys, i):
    """Insert index ``i`` into ``order[:count]``, kept in increasing ``keys[order[·]]``.

    After any equal key (stable), by shifting the larger ones up one place: one step of an
    insertion sort (the caller counts the new element). For the short index lists of the kernels
    (a set's tasks, the pending jobs of a state).
    """
    key = keys[i]
    x = count
    while x > 0 and keys[np.uint64(order[x - 1])] > key:  # (unsigned: no negative-index wraparound code)
        order[x] = order[x - 1]
        x -= 1
    order[x] = i


@kernel(inline="always")
def top_sum(values, count, scratch):
    """The sum of the ``count`` largest of ``values`` (non-negative; all of them if fewer).

    ``scratch`` has length ≥ min(count, len(values)). A partial insertion sort into
    ``scratch[:count]`` (descending): O(len · count) with count = m − 1 small, and no allocation.
    Used for the (m − 1) largest carry-in increments (BAR's Eq. (5), Guan et al.'s Eq. (9)-(11)).
    """
    n = values.shape[0]
    if count <= 0:
        return 0
    if count >= n:
        total = 0
        for i in range(n):
            total += values[i]
        return total
    filled = 0
    for i in range(n):
        v = values[i]
        if filled < count:
            j = filled
            filled += 1
        elif v > scratch[count - 1]:
            j = count - 1
        else:
            continue
        while j > 0 and scratch[j - 1] < v:
            scratch[j] = scratch[j - 1]
            j -= 1
        scratch[j] = v
    total = 0
    for i in range(count):
        total += scratch[i]
    return total
