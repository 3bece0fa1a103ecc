"""Generate the derived pages and run Sphinx: what ``python -m rtsched.docs`` does."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

from rtsched.docs import GENERATED, checkout_root

__all__ = ["build", "generate", "mathjax_script"]


def mathjax_script() -> Path | None:
    """MathJax 3's single-file SVG renderer from the ``django-static-mathjax`` package, if installed.

    The site serves it itself (no CDN): the pages render their formulas offline.
    """
    try:
        import mathjax  # the django-static-mathjax distribution: MathJax's static files only
    except ImportError:
        return None
    path = Path(mathjax.__file__).parent / "static" / "mathjax" / "es5" / "tex-svg.js"
    return path if path.is_file() else None


def generate(docs: Path, execute: bool | str = True, jobs: int = 2) -> Path:
    """Write every generated page under ``docs/_generated``; the folder.

    ``execute``: true (``True`` or ``"all"``) runs every lab and the gallery at the test suite's
    sizes, ``False`` nothing (the pages then show code only and say so).
    """
    from rtsched.docs import api, catalogue, cliref, notes
    from rtsched.docs import execute as runner

    root = docs.parent
    out = docs / GENERATED
    if out.is_dir():
        shutil.rmtree(out)  # pages of modules or notes that no longer exist must not linger
    out.mkdir(parents=True)
    started = time.perf_counter()
    api.write_api(out / "api")
    catalogue.write_catalogue(out / "analyses.md")
    cliref.write_cli(out / "cli.md")
    notes.write_notes(root, out)
    static = out / "static"
    static.mkdir(exist_ok=True)
    script = mathjax_script()
    if script is not None:
        shutil.copyfile(script, static / "tex-svg.js")
    runner.write_labs_and_gallery(root, out, execute=execute, jobs=jobs)
    print(f"rtsched.docs: generated pages in {time.perf_counter() - started:.1f} s", flush=True)
    return out


def build(
    out: Path | None = None,
    *,
    doctest: bool = False,
    execute: bool | str = True,
    jobs: int = 2,
    strict: bool = True,
) -> int:
    """Build the HTML site (and with ``doctest=True`` run the guides' snippets); Sphinx's status.

    The site goes to ``out`` (default ``docs/_build/html``). ``strict``: warnings are errors
    (``-W --keep-going``) and references are nitpicky (``-n``). ``jobs``: labs and scripts run at
    once, and Sphinx's processes (``-j``).
    """
    from sphinx.cmd.build import build_main

    root = checkout_root()
    docs = root / "docs"
    target = Path(out) if out is not None else docs / "_build" / "html"
    generate(docs, execute=execute, jobs=jobs)
    os.environ["RTSCHED_DOCS_GENERATED"] = "1"  # conf.py: the pages are fresh, do not regenerate
    flags = ["-W", "--keep-going", "-n"] if strict else []
    doctrees = docs / "_build" / "doctrees"
    started = time.perf_counter()
    parallel = ["-j", str(jobs)] if jobs > 1 else []
    status = build_main(["-b", "html", "-q", *parallel, "-d", str(doctrees), *flags, str(docs), str(target)])
    print(f"rtsched.docs: html in {time.perf_counter() - started:.1f} s -> {target}", flush=True)
    if status == 0 and doctest:
        started = time.perf_counter()
        status = build_main(
            ["-b", "doctest", "-q", "-d", str(doctrees), *flags, str(docs), str(docs / "_build" / "doctest")]
        )
        print(f"rtsched.docs: doctest in {time.perf_counter() - started:.1f} s", flush=True)
    return status
