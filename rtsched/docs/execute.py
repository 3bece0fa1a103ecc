"""The labs and the gallery: the teaching labs run cell by cell, the example scripts run whole.

A lab (``examples/labs/lab*.py``, jupytext percent format, parsed by ``examples/labs/build.py``)
runs in its own Python process, one cell after another in one namespace, as a notebook kernel
would: each code cell's printed output and the figures it saves (the labs' ``show`` writes them
to ``$RTSCHED_LAB_OUT``) are recorded, and the page shows the cells with their outputs, the
solutions in admonitions, and the student and teacher notebooks (``build.py``) to download. An
example script (``examples/*.py``) runs with its output folder as argument; its figures make
the gallery. Both run with ``RTSCHED_EXAMPLE_SMALL=1`` (the sizes of the test suite) and
``MPLBACKEND=Agg``; every lab page says which sizes that switch reduced (:func:`lab_sizes`
reads them from the lab's source: each is one ``big if not SMALL`` expression, ``SMALL``
coming from ``_labkit.py``).

Every lab and every script of :data:`GALLERY` runs in a default build. At test sizes each takes
seconds to some tens of seconds once Numba's kernels are compiled; on a cold kernel cache the
first run of lab 4 (sweeps over five global and partitioned tests) and lab 5 (the clustered
MPR analyses) compiles for minutes. CI builds the site after the test suite, which runs every
lab and example (``tests/test_labs.py``, ``tests/test_examples.py``) with the same cache, so
its build runs them warm.

Results are cached under ``docs/_build/exec-cache/``, keyed by the script, the lab kit and the
package's sources: a rebuild with nothing changed runs nothing.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import hashlib
import importlib.util
import io
import json
import os
import shutil
import subprocess
import sys
import traceback
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import ModuleType
from typing import Any

from rtsched.docs.notes import rewrite_links

__all__ = ["GALLERY", "lab_sizes", "run_lab", "write_labs_and_gallery"]

#: The example scripts of the gallery, each with what it shows and the argument it takes: a folder
#: (``"dir"``) or the path of its figure (``"png"``).
GALLERY = (
    ("gantt_dhall", "Dhall's effect as Gantt charts under global and partitioned EDF", "dir"),
    ("mpr_supply", "An MPR interface's supply against a cluster's G-EDF demand", "png"),
    ("utilization_distribution", "The utilizations RandFixedSum, UUniFast-Discard and UUniFast draw", "png"),
    ("check_my_test", "check_sound refutes a wrong schedulability test and draws its miss", "png"),
    ("gpu_partitioning", "Partitioned-GPU allocation vs the GPU as one resource", "png"),
    ("gpu_granularity", "What a GPU's partition granularity and co-runner-aware interference cost or gain", "png"),
    (
        "global_vs_partitioned",
        "Global against partitioned EDF: an acceptance-ratio sweep through the Python API",
        "dir",
    ),
)
TIMEOUT = 1200  # per lab or script: a cold kernel cache under load took lab 2 past 600 s


def _source_key(*paths: Path) -> str:
    digest = hashlib.sha256()
    package = Path(__file__).resolve().parents[1]
    sources = sorted(p for p in package.rglob("*.py") if "docs" not in p.relative_to(package).parts[:1])
    for extra in ("analyses", "generators"):
        sources += sorted((package.parent / extra).rglob("*.py"))
    for path in [*paths, *sources]:
        digest.update(str(path.name).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def _load_build(root: Path) -> ModuleType:
    """``examples/labs/build.py`` (the labs' parser and notebook writer) as a module."""
    spec = importlib.util.spec_from_file_location("rtsched_lab_build", root / "examples" / "labs" / "build.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _run_cell(code: str, namespace: dict[str, Any], name: str) -> str:
    """Run one code cell in ``namespace``; what it printed (and its last expression's value)."""
    tree = ast.parse(code, name)
    last = tree.body[-1] if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    if last is not None:
        tree.body.pop()
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(tree, name, "exec"), namespace)
        if last is not None:
            value = eval(compile(ast.Expression(last.value), name, "eval"), namespace)
            if value is not None:
                print(repr(value))
    return out.getvalue()


def run_lab(root: Path, lab: Path, folder: Path) -> dict[str, Any]:
    """Run ``lab`` cell by cell in this process, its figures going to ``folder``; the cells and outputs."""
    build = _load_build(root)
    cells = build.parse(lab.read_text(encoding="utf-8"), str(lab))
    folder.mkdir(parents=True, exist_ok=True)
    os.environ.update(MPLBACKEND="Agg", RTSCHED_EXAMPLE_SMALL="1", RTSCHED_LAB_OUT=str(folder))
    sys.path.insert(0, str(lab.parent))
    os.chdir(folder)
    namespace: dict[str, Any] = {"__name__": "__main__"}
    seen: set[str] = set()
    records = []
    for number, cell in enumerate(cells, start=1):
        text = "\n".join(cell.lines)
        record: dict[str, Any] = {"kind": cell.kind, "source": text, "tags": cell.tags, "output": "", "figures": []}
        if cell.kind == "code":
            try:
                record["output"] = _run_cell(text, namespace, f"{lab.name}, cell {number}")
            except Exception:
                record["error"] = traceback.format_exc(limit=-3)
                records.append(record)
                break
            new = sorted(p.name for p in folder.glob("*.png") if p.name not in seen)
            seen.update(new)
            record["figures"] = new
        records.append(record)
    return {"lab": lab.stem, "cells": records}


def _size_name(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> str:
    """What a size expression sets: the dict key, keyword or assigned name around it, else ``line N``."""
    child, node_ = node, parents.get(node)
    while node_ is not None:
        if isinstance(node_, ast.Dict) and child in node_.values:
            key = node_.keys[node_.values.index(child)]
            if key is not None:
                return ast.unparse(key)
        if isinstance(node_, ast.keyword) and node_.arg is not None:
            return node_.arg
        if isinstance(node_, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = node_.targets if isinstance(node_, ast.Assign) else [node_.target]
            return " = ".join(ast.unparse(t) for t in targets)
        if isinstance(node_, ast.For):
            return f"for {ast.unparse(node_.target)} in …"
        if isinstance(node_, ast.stmt):
            break
        child, node_ = node_, parents.get(node_)
    return f"line {getattr(node, 'lineno', '?')}"


def lab_sizes(source: str) -> list[tuple[str, int, str, str]]:
    """The sizes ``RTSCHED_EXAMPLE_SMALL=1`` reduces in a lab: ``(name, line, small, full)`` each.

    A lab takes its sizes from one switch, ``SMALL`` (``_labkit.py``), as ``small if SMALL else
    full`` expressions; ``name`` is what the expression sets (an assigned name, a dict key, a
    keyword, a loop variable).
    """
    tree = ast.parse(source)
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    sizes = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.IfExp):
            continue
        test, small, full = node.test, node.body, node.orelse
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            test, small, full = test.operand, full, small
        if isinstance(test, ast.Name) and test.id == "SMALL":
            whole = isinstance(parents.get(node), ast.Slice) and ast.unparse(full) == "None"
            sizes.append(
                (_size_name(node, parents), node.lineno, ast.unparse(small), "all" if whole else ast.unparse(full))
            )
    return sorted(sizes, key=lambda size: size[1])


def _code_cell(text: str) -> str:
    """``text`` as inline code in a Markdown table cell (its pipes escaped)."""
    return "`" + text.replace("|", "\\|") + "`"


def _sizes_note(lab: Path) -> list[str]:
    """The note on an executed lab page: the reduced sizes it ran with, or that it ran whole."""
    sizes = lab_sizes(lab.read_text(encoding="utf-8"))
    lines = [":::{note}"]
    if not sizes:
        lines += [
            "The outputs below were computed when this site was built. This lab has no size switch:",
            "they are those of a full run.",
        ]
    else:
        lines += [
            "The outputs below were computed when this site was built, at the test suite's sizes",
            "(`RTSCHED_EXAMPLE_SMALL=1`): the random-set parts draw fewer sets than a full run, so their",
            "ratios are coarser and noisier than a lecture's. Run the notebook to get the full sizes:",
            "",
            f"| size (`examples/labs/{lab.name}`) | line | this page | a full run |",
            "|---|---|---|---|",
        ]
        for name, line, small, full in sizes:
            lines.append(f"| {_code_cell(name)} | {line} | {_code_cell(small)} | {_code_cell(full)} |")
    return [*lines, ":::", ""]


def _cached(cache: Path, key: str, make: Any) -> Path:
    """The cache folder for ``key``, made by ``make(folder)`` when missing (or failed before)."""
    folder = cache / key
    if (folder / "result.json").is_file():
        return folder
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    make(folder)
    return folder


def _env() -> dict[str, str]:
    return dict(os.environ, MPLBACKEND="Agg", RTSCHED_EXAMPLE_SMALL="1", PYTHONHASHSEED="0")


def _execute_lab(root: Path, lab: Path, folder: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "rtsched.docs.execute", str(root), str(lab), str(folder)],
        env=_env(),
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"{lab.name} did not run: {proc.stderr[-3000:]}")


def _execute_script(script: Path, argument: str, folder: Path) -> None:
    figures = folder / "out"
    figures.mkdir()
    target = figures if argument == "dir" else figures / f"{script.stem}.png"
    proc = subprocess.run(
        [sys.executable, str(script), str(target)],
        cwd=figures,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"examples/{script.name} failed ({proc.returncode}): {proc.stderr[-3000:]}")
    found = sorted(p.relative_to(figures).as_posix() for p in figures.rglob("*.png"))
    (folder / "result.json").write_text(json.dumps({"output": proc.stdout, "figures": found}), encoding="utf-8")


def _fence(text: str, language: str) -> list[str]:
    ticks = "````" if "```" in text else "```"
    return [f"{ticks}{language}", text.rstrip("\n"), ticks, ""]


def _lab_page(root: Path, lab: Path, result: dict[str, Any] | None, figures: str) -> str:
    lines: list[str] = []
    title_done = False
    cells = result["cells"] if result is not None else None
    if cells is None:
        build = _load_build(root)
        cells = [
            {"kind": c.kind, "source": "\n".join(c.lines), "tags": c.tags, "output": "", "figures": []}
            for c in build.parse(lab.read_text(encoding="utf-8"), str(lab))
        ]
    kept: set[Path] = set()
    for cell in cells:
        source = cell["source"]
        solution = "solution" in cell["tags"]
        block: list[str] = []
        if cell["kind"] == "markdown":
            block += [rewrite_links(source, lab, root, kept), ""]
        else:
            block += _fence(source, "python")
            if cell["output"].strip():
                block += _fence(cell["output"], "text")
            for figure in cell["figures"]:
                block += [f"![{figure}]({figures}/{figure})", ""]
            if "error" in cell:
                block += _fence(cell["error"], "text")
        if solution:
            block = [":::{admonition} Solution", ":class: tip", "", *block, ":::", ""]
        lines += block
        if not title_done and cell["kind"] == "markdown" and source.startswith("# "):
            title_done = True
            lines += [
                f"{{download}}`Student notebook <{lab.stem}.ipynb>` (solutions left to do) · "
                f"{{download}}`teacher notebook <{lab.stem}-teacher.ipynb>` · source `examples/labs/{lab.name}`",
                "",
            ]
            if result is None:
                lines += [
                    ":::{note}",
                    "This lab is shown with its code and without outputs: this build of the site did not run it",
                    "(`python -m rtsched.docs --execute none`).",
                    ":::",
                    "",
                ]
            else:
                lines += _sizes_note(lab)
    return "\n".join(lines)


def write_labs_and_gallery(root: Path, out: Path, execute: bool | str = True, jobs: int = 2) -> None:
    """Write the lab pages into ``out/labs`` and the gallery into ``out/gallery``.

    ``execute``: true (``True`` or ``"all"``) runs every lab and every script of :data:`GALLERY`
    at test sizes, ``False`` nothing (pages show the code only).
    """
    build = _load_build(root)
    cache = root / "docs" / "_build" / "exec-cache"
    labs = sorted((root / "examples" / "labs").glob("lab*.py"))
    kit = root / "examples" / "labs" / "_labkit.py"
    (out / "labs").mkdir(parents=True, exist_ok=True)
    (out / "gallery").mkdir(parents=True, exist_ok=True)
    for lab in labs:  # the notebooks to download, by build.py itself
        for teacher in (False, True):
            build.build(lab, out / "labs", teacher)

    todo = labs if execute else []
    scripts = [(root / "examples" / f"{name}.py", argument) for name, _, argument in GALLERY] if execute else []
    jobs_list: list[tuple[str, Path, Any]] = []
    for lab in todo:
        key = f"{lab.stem}-{_source_key(lab, kit)}"
        jobs_list.append((lab.stem, cache / key, lambda f, lab=lab: _run_lab_job(root, lab, f)))
    for script, argument in scripts:
        key = f"{script.stem}-{_source_key(script)}"
        make = functools.partial(_execute_script, script, argument)
        jobs_list.append((script.stem, cache / key, make))
    done: dict[str, Path] = {}
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = {name: pool.submit(_cached, folder.parent, folder.name, make) for name, folder, make in jobs_list}
        for name, future in futures.items():
            done[name] = future.result()

    index = ["# Labs", "", "Teaching labs, each a notebook with exercises; the pages show the teacher version.", ""]
    index += ["```{toctree}", ":maxdepth: 1", "", *[lab.stem for lab in labs], "```", ""]
    (out / "labs" / "index.md").write_text("\n".join(index), encoding="utf-8")
    for lab in labs:
        result = None
        if lab.stem in done:
            folder = done[lab.stem]
            result = json.loads((folder / "result.json").read_text(encoding="utf-8"))
            target = out / "labs" / lab.stem
            shutil.copytree(folder / "figures", target, dirs_exist_ok=True)
        page = _lab_page(root, lab, result, lab.stem)
        (out / "labs" / f"{lab.stem}.md").write_text(page, encoding="utf-8")

    gallery = ["# Gallery", "", "Figures drawn by the example scripts in `examples/`, run when this site was built"]
    gallery += ["(with the test suite's small sizes: `RTSCHED_EXAMPLE_SMALL=1`).", ""]
    pages = []
    for name, what, _ in GALLERY:
        script = root / "examples" / f"{name}.py"
        text = [f"# `{name}.py`", "", what + ".", ""]
        doc = ast.get_docstring(ast.parse(script.read_text(encoding="utf-8"))) or ""
        text += _fence(doc, "text")
        if name in done:
            result = json.loads((done[name] / "result.json").read_text(encoding="utf-8"))
            shutil.copytree(done[name] / "out", out / "gallery" / name, dirs_exist_ok=True)
            for figure in result["figures"]:
                text += [f"![{figure}]({name}/{figure})", ""]
            if result["output"].strip():
                text += ["What it printed:", "", *_fence(result["output"], "text")]
            if result["figures"]:
                gallery += [f"## {{doc}}`{name}`", "", what + ".", "", f"![{name}]({name}/{result['figures'][0]})", ""]
        else:
            text += ["Not run in this build.", ""]
            gallery += [f"## {{doc}}`{name}`", "", what + " (not run in this build).", ""]
        text += [
            "The script:",
            "",
            f"```{{literalinclude}} ../../../examples/{name}.py",
            ":language: python",
            "```",
            "",
        ]
        (out / "gallery" / f"{name}.md").write_text("\n".join(text), encoding="utf-8")
        pages.append(name)
    gallery += ["```{toctree}", ":hidden:", "", *pages, "```", ""]
    (out / "gallery" / "index.md").write_text("\n".join(gallery), encoding="utf-8")


def _run_lab_job(root: Path, lab: Path, folder: Path) -> None:
    _execute_lab(root, lab, folder)


def _main(argv: list[str]) -> int:
    root, lab, folder = (Path(a).resolve() for a in argv)
    figures = folder / "figures"
    result = run_lab(root, lab, figures)
    failed = [c["error"] for c in result["cells"] if "error" in c]
    if failed:  # no result.json: the cache must not keep a failed run
        print(failed[0], file=sys.stderr)
        return 1
    (folder / "result.json").write_text(json.dumps(result), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
