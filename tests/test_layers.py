"""Import layers (issue 41): core <- shared theory <- scheduler families, no cycles, no private imports.

- The contracts of .importlinter hold (import-linter, run by .ci/lint_imports.py on the installed
  layout): the theory imports no family, no family imports another, the core reaches the families
  only through the registry, and no package's children import each other in a cycle.
- No cycle among rtsched's modules at all (grimp), which the sibling contract cannot see when it
  runs through a package's ``__init__`` (``rtsched.sweep.identity -> rtsched`` for the version).
- No private name (``_name``) is imported from another package; in rtsched.io and rtsched.sweep,
  from no other module.
"""

from __future__ import annotations

import ast
import configparser
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LINT = ROOT / ".ci" / "lint_imports.py"

#: The folders of the installed package (pyproject.toml's package-dir).
FOLDERS = {"rtsched": ROOT / "rtsched", "rtsched.analyses": ROOT / "analyses", "rtsched.generators": ROOT / "generators"}


def _lint_imports_missing() -> bool:
    return shutil.which("lint-imports", path=str(Path(sys.executable).parent)) is None and shutil.which("lint-imports") is None


@pytest.mark.skipif(_lint_imports_missing(), reason="lint-imports is not installed (pip install -e '.[lint]')")
def test_import_contracts_hold() -> None:
    done = subprocess.run(
        [sys.executable, str(LINT), "--no-logo"], capture_output=True, text=True, timeout=600, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr


def _cycle_exceptions() -> list[tuple[str, str]]:
    """The ``ignore_imports`` of the no-cycles contract: ``importer -> imported`` pairs."""
    config = configparser.ConfigParser()
    config.read(ROOT / ".importlinter", encoding="utf-8")
    raw = config["importlinter:contract:no-cycles"].get("ignore_imports", "")
    pairs = []
    for line in raw.splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            importer, imported = (part.strip() for part in line.split("->"))
            pairs.append((importer, imported))
    return pairs


_STRONG_COMPONENTS = """
import json, sys
import grimp

graph = grimp.build_graph("rtsched", include_external_packages=False, cache_dir=None)
for importer, imported in json.loads(sys.argv[1]):
    if graph.direct_import_exists(importer=importer, imported=imported):
        graph.remove_import(importer=importer, imported=imported)
modules = sorted(m for m in graph.modules if not m.startswith("rtsched.analyses."))
# Tarjan's strongly connected components, iteratively.
index, low, stack, on_stack, cycles = {}, {}, [], set(), []
for root in modules:
    if root in index:
        continue
    work = [(root, iter(sorted(graph.find_modules_directly_imported_by(root))))]
    index[root] = low[root] = len(index)
    stack.append(root)
    on_stack.add(root)
    while work:
        node, children = work[-1]
        child = next(children, None)
        if child is not None:
            if child.startswith("rtsched.analyses."):
                continue
            if child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(graph.find_modules_directly_imported_by(child)))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
            continue
        work.pop()
        if work:
            low[work[-1][0]] = min(low[work[-1][0]], low[node])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))
print(json.dumps(cycles))
"""


def test_no_import_cycle_among_rtsched_modules(tmp_path: Path) -> None:
    pytest.importorskip("grimp", reason="grimp comes with import-linter (pip install -e '.[lint]')")
    subprocess.run([sys.executable, str(LINT), "--layout", str(tmp_path)], check=True, timeout=60)
    done = subprocess.run(
        [sys.executable, "-c", _STRONG_COMPONENTS, json.dumps(_cycle_exceptions())],
        cwd=tmp_path,  # `python -c` puts it first on sys.path: rtsched is the installed layout
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    assert json.loads(done.stdout) == [], "modules importing each other (in a cycle): " + done.stdout


# -- private names -------------------------------------------------------------------------------
#: Packages whose modules share no private name at all (not even within the package).
STRICT = ("rtsched.io", "rtsched.sweep")
#: Private names still imported from another package, each with who will make it public.
KNOWN: dict[tuple[str, str], str] = {}


def _modules() -> dict[str, Path]:
    found = {}
    for package, folder in FOLDERS.items():
        for path in sorted(folder.rglob("*.py")):
            parts = path.relative_to(folder).with_suffix("").parts
            if package == "rtsched" and parts[0] in ("analyses", "generators"):
                continue
            found[".".join([package, *(p for p in parts if p != "__init__")])] = path
    return found


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _imports(module: str, path: Path) -> list[tuple[str, int]]:
    """Every rtsched name ``module`` imports, as dotted paths (``rtsched.io.raw.RawSet``), with lines."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    is_package = path.name == "__init__.py"
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")[: len(module.split(".")) + is_package - node.level]
                source = ".".join([*base, *([node.module] if node.module else [])])
            else:
                source = node.module or ""
            out.extend((f"{source}.{alias.name}", node.lineno) for alias in node.names if alias.name != "*")
        elif isinstance(node, ast.Import):
            out.extend((alias.name, node.lineno) for alias in node.names)
    return [(name, line) for name, line in out if name == "rtsched" or name.startswith("rtsched.")]


def _package_of(module: str, modules: dict[str, Path]) -> str:
    return module if modules[module].name == "__init__.py" else module.rpartition(".")[0]


def test_no_private_name_imported_from_another_package() -> None:
    modules = _modules()
    wrong = []
    for importer, path in modules.items():
        here = _package_of(importer, modules)
        for name, line in _imports(importer, path):
            parts = name.split(".")
            for i, part in enumerate(parts):
                if not _private(part):
                    continue
                owner = ".".join(parts[:i])  # the package or module that defines the private name
                if ".".join(parts[: i + 1]) in modules:  # a private module: for its package's modules
                    allowed = importer == owner or importer.startswith(owner + ".")
                else:  # a private name of module `owner`: for the modules of its package
                    package = _package_of(owner, modules) if owner in modules else owner
                    allowed = here == package and not here.startswith(STRICT)
                if not allowed and (importer, ".".join(parts[: i + 1])) not in KNOWN:
                    wrong.append(f"{path.relative_to(ROOT)}:{line}: {importer} imports {'.'.join(parts[: i + 1])}")
                break
    assert not wrong, "private names imported across packages:\n" + "\n".join(wrong)


def test_known_private_imports_are_still_there() -> None:
    """An entry of KNOWN that no longer happens is removed (the list only shrinks)."""
    modules = _modules()
    seen = {(importer, name) for importer, path in modules.items() for name, _ in _imports(importer, path)}
    assert [pair for pair in KNOWN if pair not in seen] == []
