"""The labs and the gallery (stub)."""

from __future__ import annotations

from pathlib import Path

__all__ = ["write_labs_and_gallery"]


def write_labs_and_gallery(root: Path, out: Path, execute: bool = True, jobs: int = 2) -> None:
    """Stub."""
    (out / "labs").mkdir(parents=True, exist_ok=True)
    (out / "labs" / "index.md").write_text("# Labs\n", encoding="utf-8")
    (out / "gallery").mkdir(parents=True, exist_ok=True)
    (out / "gallery" / "index.md").write_text("# Gallery\n", encoding="utf-8")
