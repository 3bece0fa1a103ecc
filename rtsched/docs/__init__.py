"""The documentation site: its generated pages and the build (``python -m rtsched.docs``).

The site's hand-written pages live in ``docs/`` of a checkout (Sphinx, MyST Markdown, the furo
theme; ``docs/conf.py``). This package writes the pages that are derived from the code, into
``docs/_generated/`` (not committed), before Sphinx reads the sources:

* :mod:`rtsched.docs.api`: the API reference, one page per public module, one entry per name of
  its ``__all__`` (autodoc, numpy-style docstrings through napoleon);
* :mod:`rtsched.docs.catalogue`: the analyses catalogue, from :mod:`rtsched.registry`, with a
  worked example per analysis computed at build time;
* :mod:`rtsched.docs.cliref`: the command-line reference, from each command's own ``--help``;
* :mod:`rtsched.docs.notes`: the paper notes (``papers/*.md``) and the examples' README;
* :mod:`rtsched.docs.execute`: the labs (``examples/labs/lab*.py``) run cell by cell into
  executed pages, with the student and teacher notebooks to download, and the gallery (the
  example scripts run with small sizes, their figures collected);
* :mod:`rtsched.docs.links`: the guides link the repository's files (``../../papers/x.md``, which
  work on GitHub), and ``docs/conf.py`` points those links at the rendered copies as Sphinx reads
  each guide.

Every reference resolves: ``-n -W`` fails the build on a docstring that names an undocumented
object (name it as ``literal`` text, or give it its documented target, ``~rtsched.errors.InputError``).

Only the repository's own files are read; nothing is downloaded. The Sphinx tools are the
``docs`` extra (``pip install -e ".[docs]"``); this package imports them only to build.
"""

from __future__ import annotations

from pathlib import Path

from rtsched.errors import InputError

__all__ = ["GENERATED", "checkout_root"]

#: The folder under ``docs/`` that holds the generated pages.
GENERATED = "_generated"


def checkout_root() -> Path:
    """The root of the rtsched checkout this package runs from (it holds ``docs/conf.py``).

    Raises
    ------
    InputError
        When rtsched is installed without its sources (a wheel): the site is built from a checkout.
    """
    root = Path(__file__).resolve().parents[2]
    if not (root / "docs" / "conf.py").is_file() or not (root / "papers").is_dir():
        raise InputError(f"the documentation is built from a checkout of rtsched; no docs/conf.py under {root}")
    return root
