"""The paper notes (``papers/*.md``) and the examples' README, copied into the site.

Links between notes stay links; a link to another file of the repository (a script, a data
file) becomes the file's path as code, since the site does not carry those files; the figures
the notes show (``examples/*.png``) are copied next to them.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

__all__ = ["note_title", "rewrite_links", "write_notes"]

_LINK = re.compile(r"(?<!!)\[(?P<text>[^\]]*)\]\((?P<target>[^)\s]+)\)")
_HEADING = re.compile(r"^#\s+(.+?)\s*$", re.MULTILINE)


def note_title(text: str, fallback: str) -> str:
    """The first level-one heading of a Markdown text, or ``fallback``."""
    match = _HEADING.search(text)
    return match.group(1) if match else fallback


def rewrite_links(text: str, source: Path, root: Path, kept: set[Path]) -> str:
    """``text`` (the Markdown file ``source``) with links to files outside ``kept`` made code spans.

    Absolute URLs and in-page anchors are kept, and so are links to files in ``kept`` (the
    pages and figures the site carries).
    """

    def replace(match: re.Match[str]) -> str:
        target = match.group("target")
        if re.match(r"^[a-z]+:", target) or target.startswith("#"):
            return match.group(0)
        path = (source.parent / target.split("#", 1)[0]).resolve()
        if path in kept:
            return match.group(0)
        try:
            shown = path.relative_to(root).as_posix()
        except ValueError:
            shown = target
        text_part = match.group("text")
        if text_part.strip("`") in (target, shown, Path(target).name):
            return f"`{shown}`"
        return f"{text_part} (`{shown}`)"

    return _LINK.sub(replace, text)


def write_notes(root: Path, out: Path) -> list[str]:
    """Copy the notes into ``out/papers``, the examples' README and figures into ``out/examples``.

    Returns the note names (file stems), sorted; ``out/papers/index.md`` lists them.
    """
    papers, examples = root / "papers", root / "examples"
    notes = sorted(papers.glob("*.md"))
    figures = sorted(examples.glob("*.png"))
    kept = {p.resolve() for p in [*notes, *figures, examples / "README.md"]}
    (out / "papers").mkdir(parents=True, exist_ok=True)
    (out / "examples").mkdir(parents=True, exist_ok=True)
    for figure in figures:
        shutil.copyfile(figure, out / "examples" / figure.name)
    rows = []
    for note in notes:
        text = note.read_text(encoding="utf-8")
        (out / "papers" / note.name).write_text(rewrite_links(text, note, root, kept), encoding="utf-8")
        rows.append((note.stem, note_title(text, note.stem)))
    readme = examples / "README.md"
    (out / "examples" / "README.md").write_text(
        rewrite_links(readme.read_text(encoding="utf-8"), readme, root, kept), encoding="utf-8"
    )
    index = [
        "# Paper notes",
        "",
        "One note per paper an analysis, a generator or the simulator rests on: the model, the",
        "equations with the paper's numbering, a worked example checked by a test, errata and how",
        "the implementation differs from peers. The {doc}`../analyses` links each analysis to its note.",
        "",
        "```{toctree}",
        ":maxdepth: 1",
        "",
    ]
    index += [stem for stem, _ in rows]
    index += ["```", ""]
    (out / "papers" / "index.md").write_text("\n".join(index), encoding="utf-8")
    return [stem for stem, _ in rows]
