"""Sphinx configuration of the rtsched site; build it with ``python -m rtsched.docs``.

The pages derived from the code (API reference, analyses catalogue, CLI reference, paper notes,
labs, gallery) are written into ``_generated/`` by :mod:`rtsched.docs` before Sphinx reads the
sources; ``sphinx-build docs OUT`` alone generates them too (without running the labs and the
gallery unless RTSCHED_DOCS_EXECUTE=1). Nothing is downloaded: no intersphinx, MathJax served
from the site itself.
"""

from __future__ import annotations

import os
from pathlib import Path

import rtsched
from rtsched.docs import build as _build

HERE = Path(__file__).resolve().parent

if os.environ.get("RTSCHED_DOCS_GENERATED") != "1":
    _build.generate(HERE, execute=os.environ.get("RTSCHED_DOCS_EXECUTE") == "1")

project = "rtsched"
author = "rtsched developers"
copyright = "rtsched developers, MIT licence"
release = version = rtsched.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "numpydoc",
    "sphinx.ext.doctest",
    "sphinx.ext.mathjax",
    "myst_parser",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "README.md"]
templates_path: list[str] = []

# -- MyST: the paper notes, guides and labs are Markdown with $…$ / $$…$$ math -------------------
myst_enable_extensions = ["dollarmath", "amsmath", "deflist", "colon_fence"]
myst_heading_anchors = 3
myst_dmath_double_inline = True  # the labs and notes put $$…$$ inside paragraphs, as Jupyter allows
# The notes were written for a plain Markdown viewer: some start at level two or skip a level.
suppress_warnings = ["myst.header"]

# -- autodoc / numpydoc: numpy-style docstrings ---------------------------------------------------
numpydoc_show_class_members = False  # autodoc's :members: lists them once
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False  # the house style's "Returns" lines are prose, not types
autodoc_typehints = "none"  # signatures as written; types are said in the docstrings
autodoc_member_order = "bysource"
autosummary_generate = False
add_module_names = False

# -- nitpicky references that cannot resolve offline (no intersphinx) ----------------------------
nitpick_ignore_regex = [
    (r"py:.*", r"(numpy|np|typing|collections|pathlib|fractions|numba|matplotlib|scipy|hypothesis|typer|click)(\..*)?"),
    (r"py:.*", r"(int|float|str|bool|bytes|list|dict|tuple|set|frozenset|object|None|type|callable|Callable)"),
    (r"py:.*", r"(Fraction|Path|Sequence|Mapping|Iterable|Iterator|Any|NDArray|ndarray|Generator|PathLike)"),
    (r"py:.*", r"(os|io|json|enum|dataclasses|abc|concurrent|random|datetime|yaml)\..*"),
    (r"py:.*", r"(Exception|ValueError|TypeError|KeyError|RuntimeError|Warning|UserWarning|OSError)"),
]

# -- doctest: the guides' snippets -----------------------------------------------------------------
doctest_global_setup = "import rtsched"
# Only the guides' {testcode} and {doctest} blocks: the docstrings' examples run in pytest (in their modules).
doctest_test_doctest_blocks = ""

# -- HTML ------------------------------------------------------------------------------------------
html_theme = "furo"
html_title = f"rtsched {release}"
html_static_path = ["_generated/static"]
mathjax_path = "tex-svg.js"  # MathJax 3 from the django-static-mathjax package, copied by rtsched.docs
html_show_sourcelink = False

# -- references from docstrings to names the reference does not document ---------------------------
# Hand-written pages (guides, catalogue, notes) are nitpicky: an unresolved reference fails the
# build. The docstrings predate the site and name private helpers, module constants and prose
# ("Returns: The ...") that resolve nowhere; those references are listed, not fatal, in
# _build/unresolved-docstring-references.txt so that they can be burned down.
_UNRESOLVED: list[str] = []


def _docstring_reference(app, domain, node) -> bool:
    source = node.source or ""
    target = str(node.get("reftarget", ""))
    private = any(part.startswith("_") for part in target.split("."))
    if (
        domain is not None
        and domain.name == "py"
        and ("docstring of" in source or "<autosummary>" in source or private)
    ):
        _UNRESOLVED.append(f"{source}:{node.line}: {node.get('reftype')} {node.get('reftarget')}")
        return True
    return False


def _write_unresolved(app, exception) -> None:
    if exception is None and app.builder.name == "html":
        path = Path(app.outdir).parent / "unresolved-docstring-references.txt"
        path.write_text("".join(f"{line}\n" for line in sorted(set(_UNRESOLVED))), encoding="utf-8")
        print(f"rtsched.docs: {len(set(_UNRESOLVED))} unresolved references in docstrings, listed in {path}")


def setup(app) -> None:
    """Connect the two handlers above."""
    app.connect("warn-missing-reference", _docstring_reference)
    app.connect("build-finished", _write_unresolved)
