"""The API reference pages: one per public module, one autodoc entry per name of its ``__all__``."""

from __future__ import annotations

import importlib
import inspect
import re
import typing
from pathlib import Path
from typing import Any

__all__ = ["MODULES", "api_pages", "documented_names", "internal_modules", "write_api"]

#: The modules users import, in the order of the reference's table of contents: the package
#: itself, then the workload models, the analyses and their registry, the tools.
MODULES: tuple[tuple[str, str], ...] = (
    ("rtsched", "The package: task sets, check, reports, errors"),
    ("rtsched.model", "Sporadic task sets and batches"),
    ("rtsched.result", "Results, reports and evidence"),
    ("rtsched.errors", "Errors"),
    ("rtsched.platform", "Platforms"),
    ("rtsched.registry", "The analysis registry"),
    ("rtsched.analyses", "The analyses package"),
    ("rtsched.workloads", "Workload kinds"),
    ("rtsched.priorities", "Fixed-priority assignment"),
    ("rtsched.budget", "Work budgets"),
    ("rtsched.dag", "Parallel DAG tasks"),
    ("rtsched.mc", "Mixed-criticality tasks"),
    ("rtsched.segmented", "CPU-GPU segmented tasks"),
    ("rtsched.gpu", "GPU workloads"),
    ("rtsched.io", "Task-set files"),
    ("rtsched.generators", "Task-set generators"),
    ("rtsched.sim", "The simulator"),
    ("rtsched.sim.gantt", "Gantt charts"),
    ("rtsched.sweep", "Acceptance-ratio experiments"),
    ("rtsched.testing", "Testing helpers"),
    ("rtsched.exercise", "Exercise sheets"),
)


def internal_modules() -> list[str]:
    """Every other importable module of the package, documented whole (what the docstrings refer to).

    Private modules (a part starting with ``_``) and this package (:mod:`rtsched.docs`, which needs
    the ``docs`` extra) are left out. The generators (``generators/`` of the checkout, installed as
    ``rtsched.generators``) are walked too: their folder is not under ``rtsched/``.
    """
    import pkgutil

    import rtsched
    import rtsched.generators

    public = {module for module, _ in MODULES}
    found = []
    infos = [
        *pkgutil.walk_packages(rtsched.__path__, "rtsched."),
        *pkgutil.walk_packages(rtsched.generators.__path__, "rtsched.generators."),
    ]
    for info in infos:
        parts = info.name.split(".")
        if any(p.startswith("_") for p in parts) or info.name.startswith("rtsched.docs") or info.name in public:
            continue
        if info.name.startswith("rtsched.generators."):
            importlib.import_module(info.name)  # the package imports some of its modules only
        parent = importlib.import_module(".".join(parts[:-1]))
        if not inspect.ismodule(getattr(parent, parts[-1], None)):  # shadowed: rtsched.check is the function
            continue
        found.append(info.name)
    return sorted(set(found))


def documented_names(module: str) -> list[str]:
    """The names of ``module`` that the reference documents: its ``__all__``, in order."""
    return list(importlib.import_module(module).__all__)


def _directive(obj: Any) -> str:
    if inspect.ismodule(obj):
        return "module"
    if inspect.isclass(obj):
        return "exception" if issubclass(obj, BaseException) else "class"
    if callable(obj) and (inspect.isfunction(obj) or inspect.isbuiltin(obj) or hasattr(obj, "py_func")):
        return "function"
    return "data"


def _is_alias(obj: Any) -> bool:
    """A subscripted generic (``tuple[int, str]``): a type alias, documented as data."""
    return typing.get_origin(obj) is not None


def _comment_doc(mod: Any, name: str) -> list[str]:
    """The ``#:`` comment lines above ``name = ...`` in the source of ``mod`` (autodoc's doc-comment)."""
    lines = inspect.getsource(mod).splitlines()
    for i, line in enumerate(lines):
        if re.match(rf"{re.escape(name)}\s*[:=]", line):
            doc: list[str] = []
            while i > 0 and lines[i - 1].startswith("#:"):
                i -= 1
                doc.insert(0, lines[i][3:] if lines[i].startswith("#: ") else lines[i][2:])
            return doc
    return []


def _title(text: str, mark: str = "=") -> str:
    return f"{text}\n{mark * len(text)}\n"


def api_pages() -> dict[str, str]:
    """The reStructuredText of every API page, by file name (``rtsched.dag.rst``), and the index."""
    pages: dict[str, str] = {}
    seen: set[int] = set()
    for module, title in MODULES:
        mod = importlib.import_module(module)
        lines = [_title(f"``{module}``: {title}"), f".. automodule:: {module}", "   :no-members:", ""]
        lines += [f".. currentmodule:: {module}", "", ".. autosummary::", ""]
        names = documented_names(module)
        # Constants are left out of the table: it would show their type's docstring (int's, str's).
        lines += [f"   {name}" for name in names if _directive(getattr(mod, name)) != "data"]
        lines.append("")
        for name in names:
            obj = getattr(mod, name)
            kind = _directive(obj)
            if kind == "module":
                lines += [f"``{name}``: the submodule :mod:`{obj.__name__}`.", ""]
                continue
            lines.append(f".. auto{kind}:: {name}")
            if kind in ("class", "exception"):
                lines += ["   :members:", "   :show-inheritance:"]
            lines.append("")
            if kind != "data" or not isinstance(obj, int | str | float | tuple | frozenset):
                seen.add(id(obj))
        pages[f"{module}.rst"] = "\n".join(lines)
    internal = internal_modules()
    for module in internal:
        mod = importlib.import_module(module)
        names = getattr(mod, "__all__", None) or [n for n in vars(mod) if not n.startswith("_")]
        done = sorted(n for n in names if id(getattr(mod, n, None)) in seen)
        # A type alias (``Graph = tuple[list[int], ...]``) is data, not the class autodoc takes it for.
        exported = getattr(mod, "__all__", ())  # without an __all__, autodoc skips the imported aliases
        aliases = [n for n in exported if n not in done and _is_alias(getattr(mod, n, None))]
        lines = [_title(f"``{module}``"), f".. automodule:: {module}", "   :members:", "   :show-inheritance:"]
        if done or aliases:  # documented on a page above: once is enough (and twice is a duplicate object)
            lines.append(f"   :exclude-members: {', '.join(sorted(done + aliases))}")
        for n in aliases:  # py:data, not autodata: numpydoc fails on an alias's signature
            lines += ["", f".. py:data:: {n}", f"   :module: {module}", f"   :value: {getattr(mod, n)!r}", ""]
            lines += [f"   {line}".rstrip() for line in _comment_doc(mod, n)]
        pages[f"{module}.rst"] = "\n".join(lines).rstrip("\n") + "\n"
    toc = [_title("API reference"), "Every name of each module's ``__all__``, from its docstring.", ""]
    toc += [".. toctree::", "   :maxdepth: 1", ""] + [f"   {module}" for module, _ in MODULES]
    toc += ["", "Modules", "-------", "", "The modules behind them, for the curious and for contributors.", ""]
    toc += [".. toctree::", "   :maxdepth: 1", ""] + [f"   {module}" for module in internal]
    pages["index.rst"] = "\n".join(toc) + "\n"
    return pages


def write_api(folder: Path) -> list[Path]:
    """Write the API pages into ``folder``; the paths written."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in api_pages().items():
        path = folder / name
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written
