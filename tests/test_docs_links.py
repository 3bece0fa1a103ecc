"""Every relative link in the repository's Markdown files points to a file that exists.

Links of the user guides into ``docs/_generated/`` (pages and copies of figures that
``python -m rtsched.docs`` writes before Sphinx runs) exist only after a build; that build checks
them, with warnings as errors (``.ci/run``'s documentation stage).
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


def _built(f: Path, link: str) -> bool:
    """A guide's link into the pages the documentation build generates."""
    generated = ROOT / "docs" / "_generated"
    return (f.parent / link).resolve().is_relative_to(generated.resolve())


def test_relative_links_resolve():
    files = _markdown_files()
    assert any(f.name == "README.md" for f in files)
    broken = [
        f"{f.relative_to(ROOT)} -> {link}"
        for f in files
        for link in LINK.findall(f.read_text(encoding="utf-8"))
        if not link.startswith(("http://", "https://", "mailto:"))
        and not (f.parent / link).exists()
        and not _built(f, link)
    ]
    assert broken == []
