"""The user guides' links to repository files, mapped to the site's pages when Sphinx reads them.

The guides (``docs/guide/*.md``) link the sources in the repository (``../../papers/x.md``,
``../../examples/x.png``, ``../../examples/labs/lab1_uniprocessor.py``), so that the links work
for a reader browsing the repository on GitHub. The site carries rendered copies of those files
under ``docs/_generated/`` (written by :mod:`rtsched.docs.notes` and :mod:`rtsched.docs.execute`
before Sphinx runs); :func:`site_links`, called by ``docs/conf.py`` on each guide it reads,
points the links at those copies, and makes a link to a file the site does not carry (a script,
a data file) the file's path as code, as the paper notes do.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from rtsched.docs import GENERATED

__all__ = ["site_links", "site_target"]

_LINK = re.compile(r"(?P<bang>!?)\[(?P<text>[^\]]*)\]\((?P<target>[^)\s#]+)(?P<anchor>#[^)\s]*)?\)")


def site_target(path: str) -> str | None:
    """The page or figure of the site under ``_generated/`` that renders the repository file ``path``.

    ``path`` is relative to the repository root, with ``/``: ``papers/<note>.md``,
    ``examples/<figure>.png``, ``examples/README.md`` (the examples' README),
    ``examples/labs/README.md`` (the labs' index) and ``examples/labs/lab<…>.py`` (a lab's page).
    ``None`` for any other file: the site does not carry it.
    """
    parts = path.split("/")
    if len(parts) == 2 and parts[0] == "papers" and parts[1].endswith(".md"):
        return f"papers/{parts[1]}"
    if len(parts) == 2 and parts[0] == "examples" and (parts[1].endswith(".png") or parts[1] == "README.md"):
        return f"examples/{parts[1]}"
    if len(parts) == 3 and parts[:2] == ["examples", "labs"]:
        if parts[2] == "README.md":
            return "labs/index.md"
        if re.fullmatch(r"lab\d+_\w+\.py", parts[2]):
            return f"labs/{parts[2][:-3]}.md"
    return None


def site_links(text: str, source: Path, root: Path) -> str:
    """``text`` (the Markdown file ``source`` of the checkout ``root``) with its links for the site.

    A relative link (or image) to a repository file outside ``docs/`` becomes a link to the
    file's copy under ``docs/_generated/`` (:func:`site_target`), relative to ``source``; a link
    to a file the site does not carry becomes the file's path as code. Absolute URLs, in-page
    anchors and links within ``docs/`` are kept.
    """
    root = root.resolve()
    docs = root / "docs"

    def replace(match: re.Match[str]) -> str:
        target = match.group("target")
        if re.match(r"^[a-z]+:", target):
            return match.group(0)
        path = (source.parent / target).resolve()
        if path.is_relative_to(docs) or not path.is_relative_to(root):
            return match.group(0)
        shown = path.relative_to(root).as_posix()
        page = site_target(shown)
        if page is None:
            text_part = match.group("text")
            if match.group("bang") or text_part.strip("`") in (target, shown, Path(target).name):
                return f"`{shown}`"
            return f"{text_part} (`{shown}`)"
        relative = Path(os.path.relpath(docs / GENERATED / page, source.parent)).as_posix()
        return f"{match.group('bang')}[{match.group('text')}]({relative}{match.group('anchor') or ''})"

    return _LINK.sub(replace, text)
