"""``rtsched.check`` and ``rtsched.check_many``: verdicts of analyses on task sets, with evidence on demand.

Verdicts come from the analyses' kernels (the registry's :meth:`~rtsched.registry.Analysis.verdict`
for one set, :meth:`~rtsched.registry.Analysis.status` for many); the evidence (the exact
explanation) is computed the first time a caller reads it.

First run, first call. Compiling a kernel takes 1–15 s (``benchmarks/bench_cold_start.py``), so on
a machine that never compiled them ``rtsched check`` of one small set took about 80 s for the
default list, where the exact references answer in milliseconds; and loading an analysis's
compiled kernels from the cache still costs about 0.09 s (:data:`~rtsched.warmup.LOAD_SECONDS`),
so with every kernel compiled a one-set check spent nearly all of its 2.65 s loading 25 of them.
A *sufficient* analysis therefore decides small inputs (at most
:data:`~rtsched.warmup.COLD_MAX_SETS` sets of at most :data:`~rtsched.warmup.COLD_MAX_TASKS` tasks)
with its reference (the partitioned EDF explanation likewise packs with its reference) until the
time this process has spent in that reference reaches what the kernel would cost: its load time
when compiled, its compile time (:func:`rtsched.warmup.is_compiled`: ``rtsched cache --compile`` or
a sweep's first run compiles them) when not (ski rental: a script checking many sets one by one
then pays at most twice what loading or compiling at once would have cost); then the kernel is
compiled (or loaded from the cache) and used, and a marker (``one:NAME`` for ``check``,
``batch:NAME`` for ``check_many``) sends later processes to it as soon as the load time is spent.
The reference is the judge every kernel is held
to (property tests), so the verdict is the same; a reference "unknown" is decided by the kernel
(the reference's Python work budget may have run out where the kernel's did not). Exact and
necessary analyses (state-space search, simulation: their Python references can take seconds)
use their kernels, except on the inputs their ``quick_reference`` names (``gedf-upper``: a short
simulation window and no exact test to run).
"""

from __future__ import annotations

import functools
import time
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from rtsched import warmup
from rtsched.errors import InputError
from rtsched.model import TaskSet
from rtsched.platform import Clustered, Platform, as_platform
from rtsched.registry import Analysis, all_entries, entries_of, generation, get, parse_budgets, resolve_list
from rtsched.result import UNKNOWN, LazyResult, Report, Verdict
from rtsched.workloads import TASKSETS, WorkloadKind, kind_of

__all__ = ["check", "check_many"]

Budget = int | str | Mapping[str, int] | None

#: Seconds this process has spent in each analysis's reference on the cold path, by (analysis,
#: path) with path "one" (``check``) or "batch" (``check_many``): the ski-rental account.
_COLD_SECONDS: dict[tuple[str, str], float] = {}

#: (analysis, path) whose kernel this process has used: marked once, then no more file checks.
_KERNEL_USED: set[tuple[str, str]] = set()


def _quick(entry: Analysis, sets: Sequence[Any], size: int) -> bool:
    """True if ``entry``'s reference answers ``sets`` as fast as a sufficient test's (module docstring)."""
    if entry.kind == "sufficient":
        return True
    quick = entry.quick_reference
    return quick is not None and all(quick(ts, size) for ts in sets)


def _use_reference(entry: Analysis, sets: Sequence[TaskSet], path: str, size: int) -> bool:
    """Decide ``sets`` with ``entry``'s reference rather than compile or load its kernels (module docstring).

    Not once this process has spent the analysis's compile time (:func:`rtsched.warmup.compile_seconds`,
    kernels not compiled) or load time (:data:`rtsched.warmup.LOAD_SECONDS`, kernels in the cache)
    in its reference on this path, nor once this process has used the kernel of this path.
    """
    key = (entry.name, path)
    if (
        key in _KERNEL_USED  # a set lookup, before any file is looked at
        or not entry.workload.cold_references
        or len(sets) > warmup.COLD_MAX_SETS
        or any(ts.n > warmup.COLD_MAX_TASKS for ts in sets)
        or not _quick(entry, sets, size)
    ):
        return False
    spent = _COLD_SECONDS.get(key, 0.0)
    if spent < warmup.LOAD_SECONDS:  # cheaper than loading the kernels, compiled or not
        return True
    return (
        spent < warmup.compile_seconds(entry.name)
        and not warmup.is_compiled(entry.name)
        and not warmup.is_compiled(f"{path}:{entry.name}")
    )


def _cold_reference(entry: Analysis, path: str, ts: Any, size: int, extra: tuple[int, ...]) -> Verdict:
    """``entry``'s reference verdict, its time charged to the ski-rental account."""
    start = time.perf_counter()
    try:
        return entry._reference(ts, size, *extra)
    finally:
        key = (entry.name, path)
        _COLD_SECONDS[key] = _COLD_SECONDS.get(key, 0.0) + time.perf_counter() - start


def _kernel_used(entry: Analysis, path: str) -> None:
    """Remember (marker ``path:name``) that this path's kernel of a sufficient analysis is in the cache now."""
    key = (entry.name, path)
    if key in _KERNEL_USED or not entry.workload.cold_references or (entry.kind != "sufficient" and entry.quick_reference is None):
        return
    _KERNEL_USED.add(key)
    if not warmup.is_compiled(entry.name) and not warmup.is_compiled(f"{path}:{entry.name}"):
        warmup.mark(f"{path}:{entry.name}")


def check(
    taskset: Any,
    m: int | Platform,
    tests: str | Sequence[str] | None = None,
    budget: Budget = None,
) -> Report:
    """Check ``taskset`` on a platform with the named analyses.

    Parameters
    ----------
    taskset:
        A :class:`~rtsched.TaskSet`, or ``[(C, D, T), ...]``; or an item of another workload kind
        (:mod:`rtsched.workloads`), e.g. a :class:`~rtsched.gpu.GPUWorkload` on ``GPU(M)``.
    m:
        The platform: a number of identical processors, or a platform value
        (:class:`~rtsched.platform.Identical`, :class:`~rtsched.platform.Clustered`,
        :class:`~rtsched.platform.GPU`, :class:`~rtsched.platform.Typed` for typed DAG task sets).
    tests:
        Registry names (a list, or a comma-separated string). ``None`` runs every featured
        analysis that applies to the set and platform, except those whose default budget would
        not decide a set this large (``exact`` on large sets): ``Report.skipped`` says which and
        why. A named analysis that does not apply is listed in ``Report.skipped`` with the reason.
    budget:
        Work budget of the analyses that have one (see ``rtsched list``): one integer for all,
        ``{"exact": 10**6}`` per analysis, or the CLI's text ``"exact=1e6,bar=20000"``. A budget
        running out gives the verdict ``"unknown"``, never False.

    Returns
    -------
    Report
        Verdicts per analysis and per policy; ``report.schedulable`` is True if some sufficient
        or exact analysis proves the set schedulable under *some* policy, and
        ``report.schedulable_under("global-edf")`` asks for one policy. The verdicts come from the
        kernels; each result's evidence (``report["bak"].evidence``, printing the report) is
        computed when first read.

    Examples
    --------
    >>> import rtsched
    >>> rtsched.check([(2, 3, 3), (2, 3, 3), (2, 3, 3)], m=3, tests="gfb").verdicts
    {'gfb': False}
    """
    workload, ts = kind_of(taskset)
    platform = as_platform(m)
    plan = _plan(tests, platform, parse_budgets(budget), workload)
    size = platform.size
    kind = workload.deadline_model(ts)
    results = []
    skipped: dict[str, str] = {}
    for entry, extra, explain in plan.entries:
        why = plan.refusal(entry, workload, kind)
        if why and plan.default:  # the default list is "what applies": silently without the rest
            continue
        arg = _module_m(entry, platform, size)
        why = why or (entry.default_skip(ts, arg) if plan.default else None)
        if why:
            skipped[entry.name] = why
            continue
        verdict = _cold_reference(entry, "one", ts, arg, extra) if _use_reference(entry, [ts], "one", arg) else UNKNOWN
        if verdict == UNKNOWN:  # private entry point: platform and model checked above
            verdict = entry._decide_one(ts, arg, extra)
            _kernel_used(entry, "one")
        results.append(LazyResult(entry.name, verdict, size, entry.kind, _on(explain, platform), ts, entry.policy))
    heading = workload.describe(ts, platform)
    return Report(ts, size, tuple(results), skipped, platform=platform, policies=plan.policies, heading=heading)


def check_many(
    tasksets: Sequence[Any],
    m: int | Platform,
    tests: str | Sequence[str] | None = None,
    budget: Budget = None,
) -> list[Report]:
    """:func:`check` for many sets at once: each analysis decides all of them in one batch call.

    The reports are those :func:`check` gives set by set (same verdicts, same skips), at the
    batch API's speed; evidence is still computed only when read. The items are of one workload
    kind (:mod:`rtsched.workloads`).
    """
    platform = as_platform(m)
    typed = [kind_of(item) for item in tasksets]
    workload = typed[0][0] if typed else TASKSETS
    if any(kind is not workload for kind, _item in typed):
        raise InputError(f"check_many takes {workload.title} only; analyse other kinds in a call of their own")
    plan = _plan(tests, platform, parse_budgets(budget), workload)
    size = platform.size
    sets = [item for _kind, item in typed]
    kinds = [workload.deadline_model(ts) for ts in sets]
    verdicts: list[dict[str, Verdict]] = [{} for _ in sets]
    skipped: list[dict[str, str]] = [{} for _ in sets]
    batches: dict[bytes, Any] = {}
    for entry, extra, _explain in plan.entries:
        run = np.zeros(len(sets), dtype=bool)
        arg = _module_m(entry, platform, size)
        for i, ts in enumerate(sets):
            why = plan.refusal(entry, workload, kinds[i])
            if why and plan.default:
                continue
            why = why or (entry.default_skip(ts, arg) if plan.default else None)
            if why:
                skipped[i][entry.name] = why
            else:
                run[i] = True
        chosen = np.flatnonzero(run)
        if chosen.size and _use_reference(entry, [sets[i] for i in chosen], "batch", arg):
            for i in chosen.tolist():
                verdicts[i][entry.name] = _cold_reference(entry, "batch", sets[i], arg, extra)
            run[[i for i in chosen.tolist() if verdicts[i][entry.name] != UNKNOWN]] = False
            chosen = np.flatnonzero(run)  # the kernel decides what the reference left "unknown"
        if chosen.size == 0:
            continue
        key = run.tobytes()
        if key not in batches:
            batches[key] = workload.batch_of([sets[i] for i in chosen])
        codes = entry._decide_batch(batches[key], arg, extra)  # private entry point: checked above
        _kernel_used(entry, "batch")
        for i, code in zip(chosen.tolist(), codes.tolist(), strict=True):
            verdicts[i][entry.name] = _VERDICT[code]
    reports = []
    explains = [(entry, _on(explain, platform)) for entry, _extra, explain in plan.entries]  # one each, shared
    for i, ts in enumerate(sets):
        results = tuple(
            LazyResult(entry.name, verdicts[i][entry.name], size, entry.kind, explain, ts, entry.policy)
            for entry, explain in explains
            if entry.name in verdicts[i]
        )
        # skipped in the order of the plan, as check() lists them
        heading = workload.describe(ts, platform)
        reports.append(Report(ts, size, results, skipped[i], platform=platform, policies=plan.policies, heading=heading))
    return reports


_VERDICT: dict[int, Verdict] = {1: True, 0: False, -1: UNKNOWN}


class _Plan:
    """The analyses to run on a platform, each with its budget arguments and explain function."""

    __slots__ = ("default", "entries", "platform", "policies", "refusals")

    def __init__(self, entries: list[tuple[Analysis, tuple[int, ...], Any]], platform: Platform, default: bool) -> None:
        self.entries, self.platform, self.default = entries, platform, default
        self.refusals: dict[tuple[str, str, str | None], str | None] = {}
        self.policies = {entry.name: entry.policy for entry, _extra, _explain in entries}

    def refusal(self, entry: Analysis, workload: WorkloadKind, model: str | None) -> str | None:
        """Why ``entry`` does not apply to an item of ``workload`` with deadline model ``model``, or ``None``."""
        key = (entry.name, workload.name, model)
        if key not in self.refusals:
            if entry.workload is not workload:
                why: str | None = f"analyses {entry.workload.title}, not {workload.title}"
            else:
                why = entry.refuses_platform(self.platform) or entry.refuses_deadlines(model)
            self.refusals[key] = why
        return self.refusals[key]


@functools.lru_cache(maxsize=64)
def _plan_cached(
    tests: tuple[str, ...] | None,
    platform: Platform,
    budgets: tuple[tuple[str, int], ...] | int | None,
    generation: tuple[int, int],
    scope: WorkloadKind | None = None,
) -> _Plan:
    """The plan of a ``check``, cached.

    ``generation`` (:func:`rtsched.registry.generation`) keys it to the registry's contents, so
    analyses registered later join the default list. ``scope``: the workload kind of the items
    when the default list may be limited to that kind's own analyses (:func:`_default_entries`).
    """
    default = tests is None
    entries = _default_entries(platform, scope) if default else resolve_list(list(tests or ()))
    by_name = dict(budgets) if isinstance(budgets, tuple) else {}
    unknown = set(by_name) - {e.name for e in entries}
    if unknown:
        raise InputError(f"--budget names analyses that are not run: {', '.join(sorted(unknown))}", field="budget")
    planned = []
    for entry in entries:
        value = budgets if isinstance(budgets, int) else by_name.get(entry.name)
        if entry.budget is None:
            if entry.name in by_name:
                raise InputError(f"{entry.name} has no work budget (it always finishes)", field="budget")
            value = None
        extra = entry._budget_args(value)
        explain = entry.explain if value is None else functools.partial(_explain_with, entry, value)
        planned.append((entry, extra, explain))
    return _Plan(planned, platform, default)


def _module_m(entry: Analysis, platform: Platform, size: int) -> Any:
    """What ``entry``'s module takes as ``m``: the size, or a typed analysis's :class:`~rtsched.platform.Typed`."""
    if entry.platform != "typed" or entry.refuses_platform(platform) is not None:
        return size
    return entry.module_platform(platform)


def _explain_with(entry: Analysis, budget: int, ts: Any, m: Any) -> Any:
    return entry.explain(ts, m, budget)


def _explain_on(explain: Any, platform: Platform, item: Any, _size: int) -> Any:
    return explain(item, platform)


def _on(explain: Any, platform: Platform) -> Any:
    """``explain`` on the report's platform (a result keeps only its size ``m``; GPU(M) is not Identical(M))."""
    return functools.partial(_explain_on, explain, platform)


def _default_entries(platform: Platform, scope: WorkloadKind | None = None) -> list[Analysis]:
    """The featured analyses for the platform; a clustered platform adds its cluster analyses.

    A workload kind none of whose analyses is featured (GPU workloads) gets all of its analyses.
    With ``scope`` (a kind that declares its analysis families), only that kind's part of this
    list: the rest would be refused silently anyway (they analyse other kinds), and the registry
    then imports only that kind's analysis modules (:func:`rtsched.registry.entries_of`).
    """
    if scope is not None:
        own = entries_of(scope)
        entries = [e for e in own if e.featured] or own
    else:
        everything = all_entries()
        entries = [e for e in everything if e.featured]
        featured_kinds = {id(e.workload) for e in entries}
        entries += [e for e in everything if id(e.workload) not in featured_kinds]
    if isinstance(platform, Clustered):
        entries = entries + [get(f"clustered:k={platform.k}")]
    return entries


def _plan(
    tests: str | Sequence[str] | None,
    platform: Platform,
    budgets: dict[str, int] | int | None,
    workload: WorkloadKind | None = None,
) -> _Plan:
    if isinstance(tests, str):
        key: tuple[str, ...] | None = tuple(t.strip() for t in tests.split(",") if t.strip())
        if not key:
            raise InputError("no analysis named in --tests")
    else:
        key = None if tests is None else tuple(tests)
    frozen = tuple(sorted(budgets.items())) if isinstance(budgets, dict) else budgets
    scoped = key is None and workload is not None and workload.families is not None
    return _plan_cached(key, platform, frozen, generation(), workload if scoped else None)
