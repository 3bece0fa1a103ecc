"""Schedulability analyses, one module per published test (installed as ``rtsched.analyses``).

Use the registry, never a module directly, from the CLI, sweeps and tests::

    from rtsched import analyses
    analyses.names()                 # ['gfb', ...]
    entry = analyses.get("gfb")      # Analysis: citation, kind, batch, explain, reference
    entry.explain(taskset, m=4)      # Result with the evidence

The modules are grouped by scheduler family, one subpackage each: ``uniprocessor``,
``global_edf``, ``global_fp``, ``partitioned``, ``exact``, ``hierarchical``, ``gpu``, ``dag`` (parallel DAG tasks) and ``mixed_criticality`` (Vestal's dual-criticality tasks). The theory
that several families share (processor demand and QPA, non-preemptive demand, supply bound
functions, workload and interference bounds, fixed-priority response times) is the package
``theory``, which analyses and the core may import; a family imports the core and ``theory``,
never another family (``.importlinter`` states these layers, CI checks them). A module whose name
starts with ``_`` is private to its package.

A module declares ``ANALYSES`` (and optionally ``FAMILIES``); see :mod:`rtsched.registry`.

The flat module paths of rtsched 0.x (``rtsched.analyses.gfb``, ``rtsched.analyses.gfp``, ...)
still import, with a :class:`DeprecationWarning` naming the new path (:data:`MOVED`).
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import types
import warnings
from typing import Any

from rtsched.registry import Analysis, Family, all_entries, get, names, resolve_list

__all__ = ["FAMILY_PACKAGES", "MOVED", "Analysis", "Family", "all_entries", "get", "names", "resolve_list"]

#: The scheduler families, one subpackage each, in display order.
FAMILY_PACKAGES = ("uniprocessor", "global_edf", "global_fp", "partitioned", "exact", "hierarchical", "gpu", "dag", "mixed_criticality")

#: Old flat module name → its module(s) now. A name with several targets was split by paper; its
#: old path offers the public names of all of them.
MOVED: dict[str, tuple[str, ...]] = {
    "gfb": ("global_edf.gfb",),
    "bak": ("global_edf.bak",),
    "bcl": ("global_edf.bcl",),
    "bcl_iter": ("global_edf.bcl_iter",),
    "rta": ("global_edf.rta",),
    "bar": ("global_edf.bar",),
    "bar_int": ("global_edf.bar_int",),
    "load": ("global_edf.load",),
    "ffdbf": ("global_edf.ffdbf",),
    "gedf_upper": ("global_edf.gedf_upper",),
    "gfp": (
        "global_fp.bcl_fp",
        "global_fp.deadline_analysis",
        "global_fp.rta_fp",
        "global_fp.rta_lc",
        "global_fp.rm_us",
    ),
    "partitioned_edf": ("partitioned.partitioned_edf",),
    "partitioned_fp": ("partitioned.partitioned_fp",),
    "exact_gedf": ("exact.exact_gedf",),
    "exact_gfp": ("exact.exact_gfp",),
    "clustered": ("hierarchical.clustered",),
    "mpr": ("hierarchical.mpr",),
    "uniprocessor_edf": ("uniprocessor.uniprocessor_edf",),
    "uni_fp": ("uniprocessor.uni_fp",),
    "np_edf": ("uniprocessor.np_edf",),
}


class _MovedLoader(importlib.abc.Loader):
    """Loads an old flat path as a module that forwards to the new module(s), with a warning."""

    def __init__(self, old: str, targets: tuple[str, ...]) -> None:
        self.old, self.targets = old, targets

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        return types.ModuleType(spec.name)

    def exec_module(self, module: types.ModuleType) -> None:
        new = [f"{__name__}.{target}" for target in self.targets]
        warnings.warn(
            f"{__name__}.{self.old} moved to {' and '.join(new)}; the old path will be removed in a later release",
            DeprecationWarning,
            stacklevel=2,
        )
        modules = [importlib.import_module(name) for name in new]
        public = list(dict.fromkeys(n for m in modules for n in getattr(m, "__all__", ())))  # a name two modules share: once
        module.__all__ = public  # type: ignore[attr-defined]

        def forward(name: str) -> Any:
            for target in modules:
                if hasattr(target, name):
                    return getattr(target, name)
            raise AttributeError(f"module {module.__name__!r} has no attribute {name!r}")

        module.__getattr__ = forward  # type: ignore[method-assign]
        module.__dir__ = lambda: sorted(public)  # type: ignore[method-assign]


class _MovedFinder(importlib.abc.MetaPathFinder):
    """Finds the old flat module paths listed in :data:`MOVED`."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> importlib.machinery.ModuleSpec | None:
        package, _, old = fullname.rpartition(".")
        if package != __name__ or old not in MOVED:
            return None
        return importlib.util.spec_from_loader(fullname, _MovedLoader(old, MOVED[old]))


if not any(isinstance(finder, _MovedFinder) for finder in sys.meta_path):
    sys.meta_path.append(_MovedFinder())
