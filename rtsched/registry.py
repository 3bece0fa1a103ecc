"""The analysis registry.

Every analysis module in ``analyses/`` (installed as ``rtsched.analyses``) declares a module
attribute ``ANALYSES``: a sequence of :class:`Analysis` entries, and optionally ``FAMILIES``: a
sequence of :class:`Family` resolvers for parametrised names such as ``p:ff:density:qpa``.
Modules are discovered, not listed, so adding an analysis touches one file. Nothing registers at
import time: the registry collects the entries the first time it is asked.

One signature for all: ``batch(batch, m) -> bool[n_sets]`` (True = proven schedulable),
``explain(taskset, m) -> Result`` and ``reference(taskset, m) -> bool | "unknown"``. Analyses with a
work budget also give ``status(batch, m) -> int8[n_sets]`` (1 accepted, 0 rejected,
-1 unknown), so that a budget running out is never reported as a rejection.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

import numpy as np
from numpy.typing import NDArray

from rtsched.errors import InputError, UnknownVerdictError

if TYPE_CHECKING:
    from rtsched.model import TaskSet, TaskSetBatch
    from rtsched.result import Result, Verdict

__all__ = [
    "ACCEPTED",
    "REJECTED",
    "UNKNOWN_CODE",
    "Analysis",
    "Family",
    "all_entries",
    "families",
    "get",
    "names",
]

ACCEPTED = 1
REJECTED = 0
UNKNOWN_CODE = -1

Kind = Literal["exact", "sufficient", "necessary"]
#: ``identical``: m identical processors; ``uniprocessor``: m must be 1; ``clustered``/``gpu``:
#: platforms with parameters of their own.
Platform = Literal["identical", "uniprocessor", "clustered", "gpu"]


@dataclass(frozen=True)
class Analysis:
    """One registered analysis.

    Attributes
    ----------
    name:
        Registry name (``gfb``, ``bcl-iter``, ``p:ff:density:qpa``, ...).
    title:
        Short human title.
    citation:
        The paper, with the theorem or equation used.
    kind:
        ``exact``, ``sufficient`` or ``necessary``.
    policy:
        Scheduling policy: ``global-edf``, ``partitioned-edf``, ``edf`` (uniprocessor), ...
    platform:
        See :data:`Platform`.
    deadlines:
        Deadline models accepted (``implicit``, ``constrained``, ``arbitrary``).
    batch, explain, reference, status:
        The three layers (see module docstring). When ``status`` is given, ``batch`` is derived
        from it and raises :class:`~rtsched.errors.UnknownVerdictError` if a budget ran out on
        some set, rather than report "unknown" as False.
    note:
        Path of the ``papers/`` note.
    featured:
        Part of the default list of :func:`rtsched.check` and sweeps.
    """

    name: str
    title: str
    citation: str
    kind: Kind
    policy: str
    platform: Platform
    batch: Callable[[TaskSetBatch, int], NDArray[np.bool_]]
    explain: Callable[[TaskSet, int], Result]
    reference: Callable[[TaskSet, int], Verdict]
    note: str
    deadlines: tuple[str, ...] = ("implicit", "constrained")
    status: Callable[[TaskSetBatch, int], NDArray[np.int8]] | None = None
    featured: bool = True
    aliases: tuple[str, ...] = field(default=())

    def __post_init__(self) -> None:
        if self.status is not None:
            # ``batch`` answers True/False: derived from ``status`` so that a set whose budget ran
            # out raises instead of silently reading as False (``decide`` gives all three codes).
            object.__setattr__(self, "batch", _strict_batch(self.name, self.status))

    def decide(self, batch: TaskSetBatch, m: int) -> NDArray[np.int8]:
        """Verdict codes for a batch: 1 accepted, 0 rejected, -1 unknown."""
        with serial_if_single(batch):
            if self.status is not None:
                return np.asarray(self.status(batch, m), dtype=np.int8)
            return np.asarray(self.batch(batch, m), dtype=np.int8)

    def supports(self, taskset: TaskSet, m: int) -> str | None:
        """``None`` if the analysis applies to ``taskset`` on ``m`` processors, else why not."""
        if self.platform == "uniprocessor" and m != 1:
            return "uniprocessor analysis (m must be 1)"
        if self.platform in ("clustered", "gpu"):
            return f"needs a {self.platform} platform"
        if "arbitrary" not in self.deadlines and not taskset.is_constrained:
            return "needs constrained deadlines (D <= T)"
        if "constrained" not in self.deadlines and not taskset.is_implicit:
            return "needs implicit deadlines (D = T)"
        return None


@contextmanager
def serial_if_single(batch: object) -> Iterator[None]:
    """Run a one-set batch on the calling thread only.

    A ``prange`` over one set gains nothing from Numba's thread pool, and waking the pool costs
    from microseconds to milliseconds on a loaded machine (OpenMP threads spin): one set is
    decided on this thread (``numba.set_num_threads(1)``, thread-local and cheap); larger batches
    keep every thread.
    """
    if getattr(batch, "n_sets", 2) != 1:
        yield
        return
    import numba

    previous = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        yield
    finally:
        numba.set_num_threads(previous)


def _strict_batch(name: str, status: Callable[..., NDArray[np.int8]]) -> Callable[..., NDArray[np.bool_]]:
    def batch(batch: TaskSetBatch, m: int, *args: object, **kwargs: object) -> NDArray[np.bool_]:
        with serial_if_single(batch):
            codes = np.asarray(status(batch, m, *args, **kwargs))
        unknown = np.flatnonzero(codes == UNKNOWN_CODE)
        if unknown.size:
            raise UnknownVerdictError(
                f"{name}: the work budget ran out on {unknown.size} set(s) (first: set {int(unknown[0])}); "
                f"use decide() for verdict codes 1 / 0 / -1 (unknown)"
            )
        return codes == ACCEPTED

    batch.__doc__ = f"{name}: True (proven) / False per set; raises UnknownVerdictError if a budget ran out."
    return batch


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


def _discover() -> dict[str, Analysis]:
    global _entries
    if _entries is not None:
        return _entries
    package = importlib.import_module("rtsched.analyses")
    found: dict[str, Analysis] = {}
    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda i: i.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"rtsched.analyses.{info.name}")
        for entry in getattr(module, "ANALYSES", ()):
            if entry.name in found:
                raise RuntimeError(f"analysis {entry.name!r} registered twice")
            found[entry.name] = entry
            for alias in entry.aliases:
                _aliases[alias] = entry.name
        _families.extend(getattr(module, "FAMILIES", ()))
    # A stable, meaningful order: by platform then by the order modules declare.
    _entries = found
    return found


def _resolve(name: str) -> Analysis | None:
    entries = _discover()
    name = _aliases.get(name, name)
    if name in entries:
        return entries[name]
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
        known = ", ".join(names())
        fams = "; ".join(f.description for f in _families)
        raise InputError(f"unknown analysis {name!r}; known: {known}" + (f"; families: {fams}" if fams else ""))
    return entry


_PLATFORM_ORDER = {"identical": 0, "uniprocessor": 1, "clustered": 2, "gpu": 3}
_POLICY_ORDER = {"global-edf": 0, "partitioned-edf": 1, "edf": 2}


def all_entries(featured_only: bool = False) -> list[Analysis]:
    """Registered entries (not family members unless featured), in display order."""
    entries = list(_discover().values())
    if featured_only:
        entries = [e for e in entries if e.featured]
    return sorted(
        entries,
        key=lambda e: (_PLATFORM_ORDER.get(e.platform, 9), _POLICY_ORDER.get(e.policy, 9), _ORDER_HINT.get(e.name, 50)),
    )


# The order a reader expects: the global EDF tests from the simplest to the most precise.
_ORDER_HINT = {
    name: i
    for i, name in enumerate(
        ["gfb", "bak", "bcl", "bcl-iter", "rta", "bar", "load", "ffdbf", "exact", "exact:index", "p-edf", "baruah-fisher"]
    )
}


def families() -> list[str]:
    """Descriptions of the parametrised families (e.g. ``p:<fit>:<order>:<admission>``)."""
    _discover()
    return [fam.description for fam in _families]


def names(featured_only: bool = False) -> list[str]:
    """Registry names, in display order."""
    return [e.name for e in all_entries(featured_only)]


def resolve_list(
    tests: str | Sequence[str] | None, taskset: TaskSet | None = None, m: int | None = None
) -> list[Analysis]:
    """Analyses for a ``--tests`` value; ``None`` means every featured analysis that applies."""
    if tests is None:
        entries = all_entries(featured_only=True)
        if taskset is not None and m is not None:
            entries = [e for e in entries if e.supports(taskset, m) is None]
        return entries
    if isinstance(tests, str):
        tests = [t for t in tests.split(",") if t.strip()]
    if not tests:
        raise InputError("no analysis named in --tests")
    return [get(t) for t in tests]
