"""Every relative link in the repository's Markdown files points to a file that exists."""

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


def test_relative_links_resolve():
    files = _markdown_files()
    assert any(f.name == "README.md" for f in files)
    broken = [
        f"{f.relative_to(ROOT)} -> {link}"
        for f in files
        for link in LINK.findall(f.read_text(encoding="utf-8"))
        if not link.startswith(("http://", "https://", "mailto:")) and not (f.parent / link).exists()
    ]
    assert broken == []
