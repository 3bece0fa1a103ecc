"""Build Jupyter notebooks from the labs' text sources (jupytext "percent" format), no dependencies.

    python examples/labs/build.py [--teacher] [--out DIR] [LAB ...]

Each ``examples/labs/lab*.py`` is valid Python (a student can run it as a script) made of cells:

* ``# %%`` starts a code cell, ``# %% [markdown]`` a markdown cell whose lines are comments
  (``# text``); text after ``# %%`` up to the options is a cell title (ignored here).
* ``tags=["solution"]`` in the header (jupytext's own syntax, so jupytext and Jupyter keep it
  as a cell tag) marks a solution. The bare word ``solution`` (``# %% solution``) is accepted too.

A code line ``from _labkit import ...`` is replaced by the code of ``_labkit.py`` (figures folder,
``show``, ``example_file``; its module docstring dropped), so every notebook is self-contained.

The student version (default) replaces every solution cell by a stub: a markdown solution
becomes "*Your answer here.*"; a code solution keeps its leading comment lines (the question)
and then reads ``# your answer here``. The teacher version (``--teacher``) keeps the solutions,
tagged ``solution``. Output: ``<DIR>/<lab>.ipynb`` (student) or ``<DIR>/<lab>-teacher.ipynb``,
DIR defaulting to ``examples/labs/build/``. The notebooks are nbformat 4.5 JSON written with the
json module: no outputs, deterministic cell ids, so a rebuild of an unchanged source is
byte-identical.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOLUTION = "solution"
STUB_CODE = "# your answer here\n"
STUB_MARKDOWN = "*Your answer here.*"

KIT = HERE / "_labkit.py"

_HEADER = re.compile(r"^# %%(?P<rest>.*)$")
_KIT_IMPORT = re.compile(r"^from _labkit import ")
_TAGS = re.compile(r"tags\s*=\s*(\[[^\]]*\])")


@dataclass
class Cell:
    """One cell of a percent-format source."""

    kind: str  # "code" or "markdown"
    tags: list[str] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    line: int = 0  # 1-based line of the header in the source

    @property
    def solution(self) -> bool:
        return SOLUTION in self.tags


def parse_header(rest: str, where: str) -> tuple[str, list[str]]:
    """Cell kind and tags of a ``# %%`` header (``rest`` is what follows ``# %%``)."""
    kind = "markdown" if re.search(r"\[(markdown|md)\]", rest) else "code"
    tags: list[str] = []
    match = _TAGS.search(rest)
    if match:
        try:
            tags = json.loads(match.group(1))
        except json.JSONDecodeError as exc:
            raise ValueError(f"{where}: tags must be a JSON list of strings: {match.group(1)}") from exc
        if not all(isinstance(t, str) for t in tags):
            raise ValueError(f"{where}: tags must be strings: {match.group(1)}")
        rest = rest.replace(match.group(0), " ")
    words = re.sub(r"\[(markdown|md)\]", " ", rest).split()
    if SOLUTION in words and SOLUTION not in tags:
        tags.append(SOLUTION)
    return kind, tags


def parse(text: str, source: str = "<lab>") -> list[Cell]:
    """Split a percent-format source into cells (text before the first header is dropped)."""
    cells: list[Cell] = []
    for number, line in enumerate(text.splitlines(), start=1):
        header = _HEADER.match(line)
        if header:
            kind, tags = parse_header(header.group("rest"), f"{source}:{number}")
            cells.append(Cell(kind, tags, [], number))
        elif cells:
            cells[-1].lines.append(line)
    for cell in cells:
        if cell.kind == "markdown":
            cell.lines = [_uncomment(line, f"{source}:{cell.line}") for line in cell.lines]
        while cell.lines and not cell.lines[0].strip():
            cell.lines.pop(0)
        while cell.lines and not cell.lines[-1].strip():
            cell.lines.pop()
    return [c for c in cells if c.lines or c.solution]


def kit_lines() -> list[str]:
    """The code of ``_labkit.py`` without its module docstring, as inlined into notebooks."""
    text = KIT.read_text(encoding="utf-8")
    body = ast.parse(text).body
    start = body[1].lineno if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) else 1
    return text.splitlines()[start - 1 :]


def inline_kit(cells: list[Cell]) -> list[Cell]:
    """Replace each ``from _labkit import ...`` line of a code cell by the kit's code."""
    for cell in cells:
        if cell.kind == "code" and any(_KIT_IMPORT.match(line) for line in cell.lines):
            lines: list[str] = []
            for line in cell.lines:
                lines += kit_lines() if _KIT_IMPORT.match(line) else [line]
            cell.lines = lines
    return cells


def _uncomment(line: str, where: str) -> str:
    if not line.strip():
        return ""
    if line.startswith("# "):
        return line[2:]
    if line.rstrip() == "#":
        return ""
    raise ValueError(f"{where}: a markdown cell's lines must be comments ('# text'), got {line!r}")


def _stub(cell: Cell) -> tuple[str, list[str]]:
    """The student's version of a solution cell: (kind, lines)."""
    if cell.kind == "markdown":
        return "markdown", [STUB_MARKDOWN]
    question = []
    for line in cell.lines:
        if not line.startswith("#"):
            break
        question.append(line)
    return "code", [*question, STUB_CODE.rstrip("\n")]


def _source(lines: list[str]) -> list[str]:
    """nbformat's multi-line string: a list of lines, each but the last ending in a newline."""
    return [line + "\n" for line in lines[:-1]] + lines[-1:]


def notebook(cells: list[Cell], lab: str, teacher: bool) -> dict:
    """The nbformat-4 notebook (a dict ready for json.dump) of ``cells``."""
    version = "teacher version (with solutions)" if teacher else "student version"
    banner = Cell(
        "markdown",
        [],
        [f"*{lab} — {version}. Generated by `python examples/labs/build.py"
         f"{' --teacher' if teacher else ''}` from `examples/labs/{lab}.py`; edit the source, not this file.*"],
    )
    out = []
    for index, cell in enumerate([banner, *cells]):
        kind, lines, tags = cell.kind, cell.lines, list(cell.tags)
        if cell.solution and not teacher:
            kind, lines = _stub(cell)
            tags = ["exercise"]
        entry: dict = {
            "cell_type": kind,
            "id": hashlib.sha1(f"{lab}:{index}".encode()).hexdigest()[:12],
            "metadata": {"tags": tags} if tags else {},
            "source": _source(lines),
        }
        if kind == "code":
            entry["execution_count"] = None
            entry["outputs"] = []
        out.append(entry)
    return {
        "cells": out,
        "metadata": {
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
            "language_info": {"name": "python"},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def build(source: Path, out_dir: Path, teacher: bool) -> Path:
    """Write the notebook of one lab source; return its path."""
    cells = inline_kit(parse(source.read_text(encoding="utf-8"), str(source)))
    lab = source.stem
    path = out_dir / (f"{lab}-teacher.ipynb" if teacher else f"{lab}.ipynb")
    out_dir.mkdir(parents=True, exist_ok=True)
    text = json.dumps(notebook(cells, lab, teacher), indent=1, ensure_ascii=False) + "\n"
    path.write_text(text, encoding="utf-8")
    return path


def labs() -> list[Path]:
    """Every lab source, in order."""
    return sorted(HERE.glob("lab*.py"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("labs", nargs="*", type=Path, help="lab sources (default: every examples/labs/lab*.py)")
    parser.add_argument("--teacher", action="store_true", help="keep the solutions (default: student stubs)")
    parser.add_argument("--out", type=Path, default=HERE / "build", help="output folder (default: examples/labs/build)")
    args = parser.parse_args(argv)
    for source in args.labs or labs():
        print(build(source, args.out, args.teacher))
    return 0


if __name__ == "__main__":
    sys.exit(main())
