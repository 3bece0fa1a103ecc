"""The analysis registry: one contract for every analysis.

An analysis module in ``analyses/`` (installed as ``rtsched.analyses``) declares a module attribute
``ANALYSES``, a sequence of :class:`Analysis` entries, and optionally ``FAMILIES``, resolvers
for parametrised names such as ``p:ff:density:qpa``. Modules are discovered, not listed; nothing
registers at import time.

What a module declares (see the README's development section, "Adding an analysis"):

``reference(ts, m[, budget]) -> True | False | "unknown"``
    The exact, readable reference (Python ints and Fractions), with the paper's equation tags.
``explain(ts, m[, budget]) -> Explanation``
    Verdict, one-line summary, evidence and per-task rows; no registry metadata (name, kind, m
    and policy are stamped here).
``kernel(C, D, T, offsets, m[, budget], out)``
    The ``prange`` driver over the sets of a batch, a literal module-level ``@njit`` function so
    that Numba's cache hits. It writes one code per set: ACCEPT (1), REJECT (0), UNKNOWN (-1: the
    budget ran out) or UNDECIDED (2: inside a floating-point margin; re-decided here by the
    reference, once).
``one(C, D, T, m[, budget]) -> code`` (optional)
    The serial kernel for one set; :meth:`Analysis.verdict` (what :func:`rtsched.check` calls)
    uses it, avoiding the thread pool. Without it one set runs through ``kernel``.
``codes(batch, m[, budget]) -> int8[n_sets]`` (instead of ``kernel``)
    For analyses whose batch is not one ``prange`` call (families with options, GPU workloads).
``workload``
    The :class:`~rtsched.workloads.WorkloadKind` the analysis takes (default
    :data:`~rtsched.workloads.TASKSETS`); the registry hands inputs to the module through it.
``compile_seconds`` / ``shares_kernels_with``
    Seconds to compile the module's kernels from a cold cache on a 2-core machine
    (``benchmarks/bench_cold_start.py``; what ``compiling analyses (first run only, about N s on
    this machine)`` adds up, times the machine's ratio: :func:`rtsched.warmup.machine_ratio`), or
    the analysis whose kernels these are (compiled once, counted once).
``calls``
    The registry names of the analyses this one runs through the registry; its
    :attr:`~Analysis.implementation` digest covers theirs.
``policy_order``
    Where the analysis's scheduling policy is listed (``rtsched list``, reports).
``budget`` / ``budget_unit``
    The default work budget (``None``: the analysis always finishes) and what one unit is. It is
    the one budget parameter: ``budget=`` in every call, ``check(..., budget=)``, ``--budget``
    and the sweep's ``[budget]`` table. A budget running out gives "unknown", never False.

From these the registry derives, for every analysis alike: :meth:`Analysis.status` (codes 1 / 0 /
-1), :meth:`Analysis.batch` (True / False, raising :class:`~rtsched.errors.UnknownVerdictError`
rather than reading "unknown" as False), :meth:`Analysis.verdict` (one set),
:meth:`Analysis.explain` (a stamped :class:`~rtsched.result.Result`), :meth:`Analysis.result`
(kernel verdict, evidence on first read); it validates the platform and deadline model once and
re-decides boundary codes with the reference once.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
import re
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
from numpy.typing import NDArray

from rtsched.errors import InputError, UnknownVerdictError
from rtsched.platform import GPU, Clustered, Identical, Platform, Typed, as_platform
from rtsched.result import Explanation, LazyResult, Result, Verdict, as_steps, count
from rtsched.workloads import TASKSETS, WorkloadKind, kinds

if TYPE_CHECKING:
    from rtsched.model import TaskSet

__all__ = [
    "ACCEPTED",
    "REJECTED",
    "UNKNOWN_CODE",
    "Analysis",
    "Family",
    "all_entries",
    "deadline_model",
    "entries_of",
    "families",
    "generation",
    "get",
    "closed_form_global_edf",
    "names",
    "parse_budgets",
    "register",
    "resolve_list",
]

ACCEPTED = 1
REJECTED = 0
UNKNOWN_CODE = -1
_UNDECIDED = 2

Kind = Literal["exact", "sufficient", "necessary"]
#: The platform kinds an analysis is written for: ``identical`` (any ``Identical(m)``),
#: ``uniprocessor`` (``Identical(1)``), ``clustered`` (``Clustered(m, k)`` or ``Identical(m)``,
#: refined by the analysis's ``accepts``), ``gpu`` (``GPU(M)``; the inputs are GPU workloads),
#: ``typed`` (``Typed({type: units})``, or ``Identical(m)`` read as ``Typed({"cpu": m})``; the
#: module receives the :class:`~rtsched.platform.Typed` value as its ``m``).
PlatformKind = Literal["identical", "uniprocessor", "clustered", "gpu", "typed"]

_VERDICTS: dict[int, Any] = {1: True, 0: False, -1: "unknown"}

#: A batch with fewer tasks than this runs on the calling thread: waking Numba's thread pool costs
#: more than the work (milliseconds on a loaded machine, where OpenMP threads spin). Analyses whose
#: per-set work is large set a lower ``parallel_from``.
PARALLEL_FROM = 4096
#: ``parallel_from`` of the analyses that are linear and cheap per set (gfb, bak, bcl): the thread
#: pool's wake-up costs more than it saves below millions of tasks (benchmarks/bench_threads.py).
PARALLEL_FROM_LINEAR = 1 << 22


def deadline_model(item: Any) -> str:
    """``implicit``, ``constrained`` or ``arbitrary``: the tightest model a task set or batch meets."""
    return TASKSETS.deadline_model(item)


def _positive_budget(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or int(value) < 1:
        raise InputError(f"the budget of {name} must be a positive integer, got {value!r}", field="budget")
    return int(value)


def parse_budgets(text: str | int | Mapping[str, int] | None) -> dict[str, int] | int | None:
    """A budget setting as given to ``check``/the CLI, parsed from text or passed through.

    The setting is ``None``, one integer for every analysis with a budget, or ``{name: budget}``.
    Text: ``1e6``, ``exact=1e6,bar=20000`` (``NeK`` means N·10^K).
    """
    if text is None or isinstance(text, int | Mapping):
        return text  # type: ignore[return-value]

    def number(word: str, name: str) -> int:
        match = re.fullmatch(r"([0-9]+)(?:[eE]([0-9]{1,2}))?", word.strip())
        if not match:
            raise InputError(
                f"bad budget {word!r} for {name}: a positive integer such as 20000 or 1e6", field="--budget"
            )
        value = int(match.group(1)) * 10 ** int(match.group(2) or 0)
        return _positive_budget(name, value)

    parts = [p for p in text.split(",") if p.strip()]
    if len(parts) == 1 and "=" not in parts[0]:
        return number(parts[0], "every analysis")
    out: dict[str, int] = {}
    for part in parts:
        if "=" not in part:
            raise InputError(
                f"bad budget {part!r}: use NAME=N (e.g. exact=1e6) or one number for all", field="--budget"
            )
        name, value = part.split("=", 1)
        out[get(name.strip()).name] = number(value, name.strip())
    return out


class Analysis:
    """One registered analysis: what its module declares, and everything derived from it.

    Metadata attributes: ``name``, ``title``, ``citation`` (paper and equation), ``kind``
    (``exact``/``sufficient``/``necessary``), ``policy`` (``global-edf``, ``partitioned-edf``, ...),
    ``platform`` (``PlatformKind``), ``deadlines`` (models accepted), ``note`` (the ``papers/``
    note), ``featured`` (in the default list of :func:`rtsched.check` and sweeps), ``aliases``,
    ``order`` (display order within a policy), ``policy_order``, ``deadlines_note`` (why arbitrary
    deadlines are refused, if they are: what :meth:`refuses_deadlines` says for D > T and what
    ``rtsched list`` prints), ``budget`` (default work budget
    or ``None``), ``budget_unit``, ``workload`` (its :class:`~rtsched.workloads.WorkloadKind`),
    ``compile_seconds``, ``shares_kernels_with`` and ``calls`` (see the module docstring), and
    ``quick_reference`` (for an exact or necessary analysis, ``quick_reference(item, size)`` is True
    where its reference answers as fast as a sufficient test's, so that :func:`rtsched.check` may
    decide that small input with it rather than load the kernels, as it does for sufficient ones).

    The module's functions are kept private; call the derived methods.
    """

    __slots__ = (
        "_accepts",
        "_codes",
        "_default_skip",
        "_explain",
        "_kernel",
        "_one",
        "_opa",
        "_reference",
        "aliases",
        "budget",
        "budget_unit",
        "calls",
        "citation",
        "compile_seconds",
        "deadlines",
        "deadlines_note",
        "featured",
        "kind",
        "name",
        "note",
        "order",
        "parallel_from",
        "platform",
        "policy",
        "policy_order",
        "quick_reference",
        "shares_kernels_with",
        "title",
        "workload",
    )

    def __init__(
        self,
        *,
        name: str,
        title: str,
        citation: str,
        kind: Kind,
        policy: str,
        note: str,
        reference: Callable[..., Verdict],
        explain: Callable[..., Any],
        kernel: Callable[..., None] | None = None,
        one: Callable[..., Any] | None = None,
        codes: Callable[..., NDArray[np.int8]] | None = None,
        budget: int | None = None,
        budget_unit: str = "",
        platform: PlatformKind = "identical",
        deadlines: tuple[str, ...] = ("implicit", "constrained"),
        featured: bool = True,
        aliases: tuple[str, ...] = (),
        order: float = 50,
        accepts: Callable[[Platform], str | None] | None = None,
        default_skip: Callable[[TaskSet, int], str | None] | None = None,
        parallel_from: int = PARALLEL_FROM,
        opa: Callable[[int], Callable[..., bool]] | None = None,
        workload: WorkloadKind = TASKSETS,
        policy_order: float = 99,
        compile_seconds: float | None = None,
        shares_kernels_with: str | None = None,
        calls: tuple[str, ...] = (),
        deadlines_note: str = "",
        quick_reference: Callable[[Any, int], bool] | None = None,
    ) -> None:
        if (kernel is None) == (codes is None):
            raise TypeError(f"analysis {name!r}: declare exactly one of kernel= and codes=")
        if kind not in ("exact", "sufficient", "necessary"):
            raise TypeError(f"analysis {name!r}: unknown kind {kind!r}")
        if budget is not None:
            budget = _positive_budget(name, budget)
            if not budget_unit:
                raise TypeError(f"analysis {name!r}: a budget needs its unit (budget_unit=)")
        self.name, self.title, self.citation, self.kind, self.policy = name, title, citation, kind, policy
        self.note, self.platform, self.deadlines, self.featured = note, platform, tuple(deadlines), featured
        self.aliases, self.order, self.budget, self.budget_unit = tuple(aliases), order, budget, budget_unit
        self.parallel_from, self.workload, self.policy_order = parallel_from, workload, policy_order
        self.compile_seconds, self.shares_kernels_with, self.calls = compile_seconds, shares_kernels_with, tuple(calls)
        self.deadlines_note, self.quick_reference = deadlines_note, quick_reference
        self._reference, self._explain, self._kernel, self._one, self._codes = reference, explain, kernel, one, codes
        self._accepts, self._default_skip, self._opa = accepts, default_skip, opa

    def __repr__(self) -> str:
        return f"Analysis({self.name!r}, {self.kind}, {self.policy}, platform={self.platform})"

    @property
    def input(self) -> str:
        """The name of the workload kind the analysis takes (``taskset``, ``gpu-workload``, ...)."""
        return self.workload.name

    # -- applicability ----------------------------------------------------------------------------
    def refuses_platform(self, platform: Platform | int) -> str | None:
        """``None`` if the analysis decides task sets on ``platform``, else why not."""
        p = as_platform(platform)
        kind = self.platform
        why = self.workload.refuses_platform(p)
        if why is not None:
            return why
        if kind == "uniprocessor":
            if not isinstance(p, Identical) or p.m != 1:
                return "uniprocessor analysis (m must be 1)"
        elif kind == "identical":
            if not isinstance(p, Identical):
                return f"needs identical processors under {self.policy}, not {p}"
        elif kind == "typed":
            if not isinstance(p, Typed | Identical):
                return f"needs a typed platform (typed:<type>=<units>,...) or identical processors, not {p}"
        elif isinstance(p, Typed):
            return f"needs {kind} processors under {self.policy}, not {p}"
        return self._accepts(p) if self._accepts is not None else None

    def refuses_deadlines(self, model: str | None) -> str | None:
        """``None`` if the analysis accepts sets of the deadline ``model``, else why not.

        An arbitrary-deadline set refused by an analysis with a ``deadlines_note`` gets that note.
        """
        why = self.workload.refuses_deadlines(self.deadlines, model)
        if why is not None and model == "arbitrary" and self.deadlines_note:
            return self.deadlines_note
        return why

    def supports(self, platform: Platform | int, deadlines: str | Any = "constrained") -> str | None:
        """``None`` if the analysis applies to ``platform`` and the deadline model, else why not.

        ``deadlines`` is a model name or a task set / batch (its tightest model is used).
        """
        why = self.refuses_platform(platform)
        if why is None and not isinstance(deadlines, str):
            kind = self.workload
            if not isinstance(deadlines, kind.item_type() | kind.batch_type()):
                why = f"analyses {kind.title}, not {type(deadlines).__name__}"
        if why is None:
            model = deadlines if isinstance(deadlines, str) else self.workload.deadline_model(deadlines)
            why = self.refuses_deadlines(model)
        return why

    @property
    def opa_compatible(self) -> bool:
        """True if the analysis offers a per-task test for Audsley's priority assignment."""
        return self._opa is not None

    def opa_test(self, m: Platform | int) -> Callable[..., bool]:
        """The per-task test ``fits_lowest(ts, k, higher)`` for :func:`rtsched.priorities.audsley` on platform ``m``.

        It answers whether task k of ts meets its deadline below exactly the tasks ``higher``.

        Declared by OPA-compatible analyses (``opa=``, a factory taking m); others raise InputError.
        """
        if self._opa is None:
            raise InputError(
                f"{self.name} offers no per-task test for Audsley's algorithm (not OPA-compatible)", field="priorities"
            )
        return self._opa(self._size(m))

    def default_skip(self, taskset: TaskSet, m: int) -> str | None:
        """Why the default list of :func:`rtsched.check` leaves this analysis out for ``taskset``, or ``None``.

        An example: an exact test on a set too large for its default budget.
        """
        return self._default_skip(taskset, m) if self._default_skip is not None else None

    # -- argument checks --------------------------------------------------------------------------
    def _size(self, platform: Platform | int) -> Any:
        """What the module receives as ``m``: the platform's size, or a typed analysis's :class:`~rtsched.platform.Typed`."""
        if type(platform) is int and self.platform == "identical" and self._accepts is None:
            if 1 <= platform <= 1_000_000:  # the common case, without building a platform value
                return platform
        p = as_platform(platform)
        why = self.refuses_platform(p)
        if why is not None:
            raise InputError(f"{self.name}: {why}", field="m")
        if self.platform == "typed":
            return p if isinstance(p, Typed) else Typed({"cpu": p.size})
        return p.size

    def module_platform(self, platform: Platform | int) -> Any:
        """What the analysis's module receives as ``m`` on ``platform`` (checked): an int, or a :class:`~rtsched.platform.Typed`."""
        return self._size(platform)

    def _budget_args(self, budget: int | None) -> tuple[int, ...]:
        if self.budget is None:
            if budget is not None:
                raise InputError(f"{self.name} has no work budget (it always finishes)", field="budget")
            return ()
        return (self.budget if budget is None else _positive_budget(self.name, budget),)

    def _check_model(self, item: Any) -> None:
        if "arbitrary" in self.deadlines:
            return
        why = self.refuses_deadlines(self.workload.deadline_model(item))
        if why is not None:
            raise InputError(f"{self.name}: {why}", field="deadlines")

    # -- verdicts -----------------------------------------------------------------------------------
    def status(self, batch: Any, m: Platform | int, budget: int | None = None) -> NDArray[np.int8]:
        """Verdict codes for every set of ``batch``: 1 accepted, 0 rejected, -1 unknown.

        0 means not proven for a sufficient test; -1 means the work budget ran out. ``batch`` is a
        batch of the analysis's workload kind (:class:`~rtsched.model.TaskSetBatch`, a
        :class:`~rtsched.gpu.GPUWorkloadBatch` for the GPU analyses ``gpu:ffd``, ...).
        """
        size = self._size(m)
        extra = self._budget_args(budget)
        self._check_model(batch)
        return self._decide_batch(batch, size, extra)

    def _decide_batch(self, batch: Any, size: int, extra: tuple[int, ...]) -> NDArray[np.int8]:
        """Codes for a batch whose platform and deadline model were checked."""
        workload = self.workload
        n_sets = workload.count(batch)
        if n_sets == 0:
            return np.empty(0, dtype=np.int8)
        tasks = workload.task_count(batch)
        serial = tasks is not None and tasks < self.parallel_from
        with _threads(1 if serial else None):
            if self._codes is not None:
                out = np.asarray(self._codes(batch, size, *extra), dtype=np.int8)
            else:
                out = np.empty(n_sets, dtype=np.int8)
                # On one thread, the kernel's serial twin when it has one: the prange driver then
                # compiles only when a large batch needs it (rtsched.kernels.serial, issue #46).
                run = (serial and getattr(self._kernel, "serial", None)) or self._kernel
                run(*workload.kernel_arguments(batch), size, *extra, out)  # type: ignore[misc]
        for s in np.flatnonzero(out == _UNDECIDED):
            out[s] = _code(self._reference(batch[int(s)], size, *extra))
        return out

    decide = status

    def batch(self, batch: Any, m: Platform | int, budget: int | None = None) -> NDArray[np.bool_]:
        """True (proven) / False per set of ``batch`` (as in :meth:`status`).

        Raises :class:`~rtsched.errors.UnknownVerdictError` if the budget ran out on some set (use
        :meth:`status` for the three codes).
        """
        codes = self.status(batch, m, budget)
        unknown = np.flatnonzero(codes == UNKNOWN_CODE)
        if unknown.size:
            raise UnknownVerdictError(
                f"{self.name}: the work budget ran out on {count(int(unknown.size), 'set')} (first: set {int(unknown[0])}); "
                "use status() for verdict codes 1 / 0 / -1 (unknown), or raise budget="
            )
        return codes == ACCEPTED

    def verdict(self, taskset: Any, m: Platform | int, budget: int | None = None) -> Verdict:
        """The kernel's verdict on one set: True, False or ``"unknown"`` (equal to :meth:`reference`)."""
        size = self._size(m)
        extra = self._budget_args(budget)
        self._check_model(taskset)
        return self._decide_one(taskset, size, extra)

    def _decide_one(self, taskset: Any, size: int, extra: tuple[int, ...]) -> Verdict:
        """The verdict on one set whose platform and deadline model were checked.

        It comes from the serial kernel ``one`` when declared (no thread pool, no batch), else from a
        one-set batch.
        """
        if self._one is not None:
            code = int(self._one(taskset.C, taskset.D, taskset.T, size, *extra))
            if code == _UNDECIDED:
                return self._reference(taskset, size, *extra)
            return _VERDICTS[code]
        one_set = self.workload.batch_of([taskset])
        return _VERDICTS[int(self._decide_batch(one_set, size, extra)[0])]

    def reference(self, taskset: Any, m: Platform | int, budget: int | None = None) -> Verdict:
        """The exact reference verdict (Python ints and Fractions; slow, readable)."""
        size = self._size(m)
        extra = self._budget_args(budget)
        self._check_model(taskset)
        return self._reference(taskset, size, *extra)

    def explain(self, taskset: Any, m: Platform | int, budget: int | None = None) -> Result:
        """The reference's verdict with its evidence, as a :class:`~rtsched.result.Result`."""
        size = self._size(m)
        extra = self._budget_args(budget)
        self._check_model(taskset)
        e = self._explain(taskset, size, *extra)
        if not isinstance(e, Explanation):
            raise TypeError(f"{self.name}: explain must return an Explanation, got {type(e).__name__}")
        return Result(
            self.name,
            e.verdict,
            size.size if isinstance(size, Typed) else size,
            self.kind,
            e.summary,
            e.evidence,
            e.per_task,
            policy=self.policy,
            steps=as_steps(e.steps),
        )

    def result(self, taskset: Any, m: Platform | int, budget: int | None = None) -> LazyResult:
        """The kernel's verdict now, the evidence (:meth:`explain`) when first read."""
        verdict = self.verdict(taskset, m, budget)
        size = as_platform(m).size
        return LazyResult(
            self.name, verdict, size, self.kind, lambda ts, _m: self.explain(ts, _m, budget), taskset, self.policy
        )

    @property
    def implementation(self) -> str:
        """SHA-256 (hex) of the source the verdicts come from.

        That source is the analysis's module and every rtsched module it imports, transitively
        (the shared theory, private pieces of its family, kernel helpers, the model), but not the
        presentation modules (results, registry, errors, platforms); and the implementation of
        every analysis it runs through the registry (``calls``), transitively.

        A sweep store keys stored verdicts by it, so changing an analysis's code, or the code of
        an analysis it calls, recomputes that analysis's results and no other's.
        """
        return _implementation(self)

    @property
    def own_implementation(self) -> str:
        """SHA-256 (hex) of the analysis's own module and its imports, without ``calls``.

        The module is the reference's; a reference given as a ``functools.partial`` (or a
        chain of them) is unwrapped to the function it calls, whose module it is (a partial has
        no ``__module__`` of its own, which would hash no source at all and keep stale stored
        verdicts after the analysis changed).
        """
        target = self._reference
        while isinstance(target, functools.partial):
            target = target.func
        module = getattr(target, "__module__", None) or ""
        if not module:
            raise RuntimeError(f"analysis {self.name!r}: its reference has no module, so its source cannot be hashed")
        return _source_digest(module)

    @property
    def kernels_compile_seconds(self) -> float:
        """Seconds the first run of this analysis spends compiling (of the analysis it shares kernels with)."""
        owner = get(self.shares_kernels_with) if self.shares_kernels_with else self
        return owner.compile_seconds if owner.compile_seconds is not None else DEFAULT_COMPILE_SECONDS

    def to_dict(self) -> dict[str, Any]:
        """The catalogue record (``rtsched list --json``)."""
        return {
            "name": self.name,
            "title": self.title,
            "kind": self.kind,
            "policy": self.policy,
            "platform": self.platform,
            "input": self.input,
            "deadlines": list(self.deadlines),
            "deadlines_note": self.deadlines_note or None,
            "featured": self.featured,
            "aliases": list(self.aliases),
            "budget": self.budget,
            "budget_unit": self.budget_unit or None,
            "calls": list(self.calls),
            "opa_compatible": self.opa_compatible,
            "citation": self.citation,
            "note": self.note,
        }


#: The entry of a sufficient global EDF test with a closed-form condition (gfb, bak, bcl: no
#: iteration, at most O(n²) per set), cheap enough that a batch runs on the calling thread up to
#: ``PARALLEL_FROM_LINEAR`` tasks. Their one small kernel each compiles in about 2 s
#: (``benchmarks/bench_cold_start.py``: gfb 1.2 s, bcl 2.0 s, bak 2.3 s), the default here.
closed_form_global_edf = functools.partial(
    Analysis, kind="sufficient", policy="global-edf", policy_order=0, parallel_from=PARALLEL_FROM_LINEAR,
    compile_seconds=2.0,
)  # fmt: skip


#: Modules whose text does not change verdicts (how results are shown, looked up, or refused, and
#: how the registry hands inputs over: ``rtsched.workloads``, whose kinds an analysis module names;
#: without it, a GPU analysis's digest would follow every other kind's model too).
_PRESENTATION = frozenset(
    {
        "rtsched.result",
        "rtsched.registry",
        "rtsched.errors",
        "rtsched.platform",
        "rtsched.analyses",
        "rtsched.workloads",
    }
)


#: The compile time of an analysis that does not declare one (``compile_seconds=None``).
DEFAULT_COMPILE_SECONDS = 3.0


def _implementation(entry: Analysis, seen: frozenset[str] = frozenset()) -> str:
    """:attr:`Analysis.implementation` of ``entry``: its own digest and, in order, its callees'."""
    if entry.name in seen:
        raise RuntimeError(f"analysis {entry.name!r} calls itself through {' -> '.join(sorted(seen))}")
    if not entry.calls:
        return entry.own_implementation
    import hashlib

    digest = hashlib.sha256(entry.own_implementation.encode())
    for name in entry.calls:
        callee = get(name)
        digest.update(b"\0" + callee.name.encode() + b"\0" + _implementation(callee, seen | {entry.name}).encode())
    return digest.hexdigest()


@functools.cache
def _source_digest(module: str) -> str:
    import hashlib

    digest = hashlib.sha256()
    seen: set[str] = set()
    todo = [module]
    while todo:
        name = todo.pop()
        if name in seen or name in _PRESENTATION or not name.startswith("rtsched"):
            continue
        seen.add(name)
        facts = _module_facts(name)
        if facts is None:
            continue
        source_digest, imports = facts
        digest.update(name.encode() + b"\0" + source_digest)
        todo.extend(imports)
    return digest.hexdigest()


def _module_facts(name: str) -> tuple[bytes, tuple[str, ...]] | None:
    """SHA-256 of module ``name``'s source and the names it imports (in ``ast.walk`` order).

    ``None`` when ``name`` is not a module with a ``.py`` source (``from module import name``
    names a function, say). The source is read each time (a file edited since is hashed anew);
    its imports are parsed once per content (:data:`_IMPORTS`), however many analyses' digests
    (:func:`_source_digest`) walk through it.
    """
    import hashlib

    origin = _module_origin(name)
    if origin is None:
        return None
    with open(origin, "rb") as handle:
        source = handle.read()
    digest = hashlib.sha256(source).digest()
    imports = _IMPORTS.get(digest)
    if imports is None:
        import ast

        found: list[str] = []
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                found.append(node.module)
                found.extend(f"{node.module}.{alias.name}" for alias in node.names)
            elif isinstance(node, ast.Import):
                found.extend(alias.name for alias in node.names)
        imports = _IMPORTS[digest] = tuple(found)
    return digest, imports


#: The imported names of a module source, by the SHA-256 of the source (:func:`_module_facts`).
_IMPORTS: dict[bytes, tuple[str, ...]] = {}


@functools.cache
def _module_origin(name: str) -> str | None:
    """The ``.py`` file of module ``name``, or ``None`` (not a module, or no Python source)."""
    import importlib.util

    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, AttributeError, ValueError):  # ``from module import name``: not a module
        return None
    if spec is None or spec.origin is None or not spec.origin.endswith(".py"):
        return None
    return spec.origin


def _code(verdict: Verdict) -> int:
    # rtsched.kernels.verdict_code, without importing Numba with the registry (import rtsched stays fast)
    return UNKNOWN_CODE if verdict == "unknown" else (ACCEPTED if verdict else REJECTED)


class _threads:
    """Run the body with ``count`` Numba threads (``None``: leave them), restoring them after."""

    __slots__ = ("_count", "_previous")
    _numba: Any = None

    def __init__(self, count: int | None) -> None:
        self._count = count
        self._previous = 0

    def __enter__(self) -> None:
        if self._count is None:
            return
        if _threads._numba is None:
            import numba

            _threads._numba = numba
        self._previous = _threads._numba.get_num_threads()
        if self._previous != self._count:
            _threads._numba.set_num_threads(self._count)

    def __exit__(self, *exc: object) -> None:
        if self._count is not None and self._previous != self._count:
            _threads._numba.set_num_threads(self._previous)


@dataclass(frozen=True)
class Family:
    """A parametrised family of analyses, e.g. ``p:<fit>:<order>:<admission>``.

    ``pattern`` is a regular expression matched against the whole name; ``build(match)``
    returns the :class:`Analysis` for that name (it must be deterministic).
    """

    pattern: str
    build: Callable[[re.Match[str]], Analysis]
    description: str


_entries: dict[str, Analysis] | None = None
_aliases: dict[str, str] = {}
_families: list[Family] = []
_built: dict[str, Analysis] = {}
#: True once every analysis module is imported (:func:`_discover`); before, ``_entries`` holds the
#: families imported so far (:func:`entries_of` imports only a workload kind's own).
_complete = False
#: The analysis families (subpackages of ``rtsched.analyses``) imported so far.
_imported: set[str] = set()
#: Where each parametrised family was declared (its module), so that ``_families`` keeps the
#: order of a full discovery whichever families were imported first.
_family_origin: dict[int, str] = {}


def _analysis_families() -> list[str]:
    # The family subpackages of rtsched.analyses, sorted (the shared ``theory`` package is not one).
    package = importlib.import_module("rtsched.analyses")
    return sorted(
        info.name
        for info in pkgutil.iter_modules(package.__path__)
        if info.ispkg and not info.name.startswith("_") and info.name != "theory"
    )


def _family_modules(family: str) -> list[str]:
    # The public modules of one family, sorted; modules whose name starts with ``_`` are private.
    sub = importlib.import_module(f"rtsched.analyses.{family}")
    return sorted(
        f"rtsched.analyses.{family}.{info.name}"
        for info in pkgutil.iter_modules(sub.__path__)
        if not info.name.startswith("_") and not info.ispkg
    )


def analysis_modules() -> list[str]:
    """The public analysis modules: ``rtsched.analyses.<family>.<module>``, sorted.

    A family is a subpackage of ``rtsched.analyses`` (the shared ``theory`` package is not one);
    modules and packages whose name starts with ``_`` are private and declare no analyses.
    """
    return sorted(module for family in _analysis_families() for module in _family_modules(family))


#: Held while families are imported: the table of entries grows in place, and two threads
#: importing the same family would each add its entries (re-entrant: an import may look a name up).
_DISCOVERY = threading.RLock()


def _import_families(families: Sequence[str]) -> dict[str, Analysis]:
    # Import the analysis modules of ``families`` not imported yet into the table of entries.
    global _entries, _generation
    with _DISCOVERY:
        found: dict[str, Analysis] = {} if _entries is None else _entries
        new = [family for family in families if family not in _imported]
        for family in new:
            for module_name in _family_modules(family):
                module = importlib.import_module(module_name)
                for entry in getattr(module, "ANALYSES", ()):
                    if entry.name in found:
                        raise RuntimeError(f"analysis {entry.name!r} registered twice")
                    found[entry.name] = entry
                    for alias in entry.aliases:
                        _aliases[alias] = entry.name
                for fam in getattr(module, "FAMILIES", ()):
                    _family_origin[id(fam)] = module_name
                    _families.append(fam)
            _imported.add(family)
        if new:
            _families.sort(key=lambda fam: _family_origin.get(id(fam), ""))
            _generation += 1  # the registry holds more than before (generation())
        _entries = found
        return found


def _discover() -> dict[str, Analysis]:
    global _complete
    if _complete and _entries is not None:
        return _entries
    with _DISCOVERY:
        found = _import_families(_analysis_families())
        _complete = True
        return found


def entries_of(workload: Any) -> list[Analysis]:
    """The registered analyses of ``workload`` (a :class:`~rtsched.workloads.WorkloadKind`), in display order.

    Imports only the analysis families the kind declares (``families``) when it declares them,
    so that ``rtsched check`` of a file of any built-in kind (task sets included) does not import
    every analysis module (about 0.1 s); otherwise every family, as :func:`all_entries` does.
    """
    families = getattr(workload, "families", None)
    if families is None or _complete:
        return [e for e in all_entries() if e.workload is workload]
    return _display_order([e for e in _import_families(families).values() if e.workload is workload])


#: How many times :func:`register` has added analyses in this process (see :func:`generation`).
_generation = 0


def generation() -> tuple[int, int]:
    """A value that changes whenever the registry's contents may have.

    That is: :func:`register` adds analyses, or the table of entries is replaced (tests do, to undo
    their registrations). Caches of what the registry holds (``rtsched.check``'s plan of the default list) key on it, so
    an analysis registered after a first ``check()`` is in the next one's default list.
    """
    return _generation, id(_entries)


def register(*entries: Analysis) -> None:
    """Add analyses defined outside ``rtsched.analyses`` (a script's, a notebook's, a plug-in's).

    They are then found by name like the built-in ones (:func:`get`, :func:`rtsched.check`,
    ``tests=`` and sweeps in this process); a name or alias already taken is an error.
    """
    global _generation
    _generation += 1
    found = _discover()
    for entry in entries:
        if not isinstance(entry, Analysis):
            raise TypeError(f"register takes Analysis entries, not {type(entry).__name__}")
        taken = [n for n in (entry.name, *entry.aliases) if n in found or n in _aliases]
        if taken:
            raise ValueError(f"analysis name {taken[0]!r} is registered already")
        found[entry.name] = entry
        for alias in entry.aliases:
            _aliases[alias] = entry.name


def _resolve(name: str) -> Analysis | None:
    entries = _entries if _entries is not None else _discover()
    key = _aliases.get(name, name)
    if key in entries:
        return entries[key]
    if not _complete:  # a name of a family not imported yet (entries_of imports a kind's only)
        entries = _discover()
        key = _aliases.get(name, name)
        if key in entries:
            return entries[key]
    name = key
    if name in _built:
        return _built[name]
    for fam in _families:
        match = re.fullmatch(fam.pattern, name)
        if match:
            entry = fam.build(match)
            _built[name] = entry
            return entry
    return None


def get(name: str) -> Analysis:
    """The analysis registered under ``name`` (or an alias, or a family member)."""
    entry = _resolve(name.strip())
    if entry is None:
        import difflib

        close = difflib.get_close_matches(name.strip(), [*names(), *_aliases], n=3, cutoff=0.6)
        hint = f"did you mean {' or '.join(repr(c) for c in close)}? " if close else ""
        raise InputError(
            f"unknown analysis {name!r}; {hint}rtsched list (or rtsched.analyses.names()) shows every analysis "
            "and the families of parametrised names"
        )
    return entry


_PLATFORM_ORDER = {"identical": 0, "uniprocessor": 1, "clustered": 2, "gpu": 3, "typed": 4}
_KIND_ORDER = {"sufficient": 0, "exact": 1, "necessary": 2}


def all_entries(featured_only: bool = False) -> list[Analysis]:
    """Registered entries (not family members), in display order.

    By workload kind (in the order the kinds were registered: task sets, GPU workloads, DAG task
    sets, ...), then platform, ``policy_order``, ``order`` and name.
    """
    entries = list(_discover().values())
    if featured_only:
        entries = [e for e in entries if e.featured]
    return _display_order(entries)


def _display_order(entries: list[Analysis]) -> list[Analysis]:
    # By workload kind (in the order the kinds were registered), platform, policy, order, name.
    kind_rank = {id(kind): i for i, kind in enumerate(kinds())}
    return sorted(
        entries,
        key=lambda e: (
            kind_rank.get(id(e.workload), len(kind_rank)),
            _PLATFORM_ORDER.get(e.platform, 9),
            e.policy_order,
            e.policy,
            e.order,
            e.name,
        ),
    )


def families() -> list[str]:
    """Descriptions of the parametrised families (e.g. ``p:<fit>:<order>:<admission>``)."""
    _discover()
    return [fam.description for fam in _families]


def names(featured_only: bool = False) -> list[str]:
    """Registry names, in display order."""
    return [e.name for e in all_entries(featured_only)]


def resolve_list(tests: str | Sequence[str] | None, workload: Any = None) -> list[Analysis]:
    """Analyses for a ``tests``/``--tests`` value; ``None`` means every featured analysis.

    ``workload`` (a :class:`~rtsched.workloads.WorkloadKind`, optional): the kind the names are
    expected to analyse. Its analysis families are imported first (``entries_of``), so that
    its names resolve without importing every family; a name of another kind still resolves.
    """
    if workload is not None:
        entries_of(workload)
    if tests is None:
        return all_entries(featured_only=True)
    if isinstance(tests, str):
        tests = [t for t in tests.split(",") if t.strip()]
    if not tests:
        raise InputError("no analysis named in --tests")
    return [get(t) for t in tests]


__all__ += ["GPU", "Clustered", "Identical", "Typed"]
