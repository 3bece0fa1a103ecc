"""Sphinx configuration of the rtsched site; build it with ``python -m rtsched.docs``.

The pages derived from the code (API reference, analyses catalogue, CLI reference, paper notes,
labs, gallery) are written into ``_generated/`` by :mod:`rtsched.docs` before Sphinx reads the
sources; ``sphinx-build docs OUT`` alone generates them too (without running the labs and the
gallery unless RTSCHED_DOCS_EXECUTE=1). Nothing is downloaded: no intersphinx, MathJax served
from the site itself.
"""

from __future__ import annotations

import os
import typing
from pathlib import Path

import rtsched
from rtsched.docs import build as _build
from rtsched.docs import links as _links

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
# Only the standard library's and third-party names are let through: every reference to rtsched's own
# names, in docstrings and pages alike, must resolve (-n -W; tests/test_docs_refs.py). A docstring
# names a private or undocumented object as ``literal`` text.
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


# -- class bases: a private base (rtsched.model._TaskArrays) is not documented --------------------
def _public_bases(app, name, obj, options, bases) -> None:
    """Show a class's public bases: a private base is replaced by its own (public) bases."""

    def public(base) -> list:
        cls = typing.get_origin(base) or base  # ObjectBatch[DAGTaskSet] is ObjectBatch's
        if cls is typing.Generic:  # Generic[TaskT, SetT] of a private base: its type variables are private too
            return []
        if not isinstance(cls, type) or not any(
            part.startswith("_") for part in f"{cls.__module__}.{cls.__qualname__}".split(".")
        ):
            return [base]
        parents = [typing.get_origin(p) or p for p in getattr(cls, "__orig_bases__", cls.__bases__)]
        return [b for parent in parents if parent is not object for b in public(parent)]  # no private TypeVar

    shown = []
    for base in bases:
        shown += [b for b in public(base) if b not in shown]
    bases[:] = shown


# -- the guides link the repository's files (so that the links work on GitHub too) ----------------
def _guide_links(app, docname, source) -> None:
    """Point a guide's links to ``papers/`` and ``examples/`` at the site's copies of those files."""
    if docname.startswith("guide/"):
        source[0] = _links.site_links(source[0], HERE / f"{docname}.md", HERE.parent)


def setup(app) -> None:
    """Connect the handlers above."""
    app.connect("source-read", _guide_links)
    app.connect("autodoc-process-bases", _public_bases)
