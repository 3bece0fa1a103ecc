"""Every relative link in the repository's Markdown files points to a file that exists.

The user guides link the repository's sources (``../../papers/x.md``, ``../../examples/x.png``),
which a reader browsing the repository finds; the documentation build points those links at the
site's rendered copies (:mod:`rtsched.docs.links`). No Markdown file links into
``docs/_generated/``: those pages exist only after a build.
"""

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def _markdown_files() -> list[Path]:
    try:
        out = subprocess.run(["git", "ls-files", "*.md"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
        return [ROOT / f for f in out.split()]
    except (OSError, subprocess.CalledProcessError):  # not a git checkout (e.g. an sdist)
        return [p for p in ROOT.rglob("*.md") if ".venv" not in p.parts and "build" not in p.parts]


def _generated(f: Path, link: str) -> bool:
    """A link into the pages the documentation build writes (absent from a fresh checkout)."""
    return (f.parent / link).resolve().is_relative_to((ROOT / "docs" / "_generated").resolve())


def test_relative_links_resolve():
    files = _markdown_files()
    assert any(f.name == "README.md" for f in files)
    broken = [
        f"{f.relative_to(ROOT)} -> {link}"
        for f in files
        for link in LINK.findall(f.read_text(encoding="utf-8"))
        if not link.startswith(("http://", "https://", "mailto:"))
        and (not (f.parent / link).exists() or _generated(f, link))
    ]
    assert broken == []
