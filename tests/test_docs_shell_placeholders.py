"""Shell commands in the README and the guides run as written (issue #46).

``rtsched exercise --seed <student-id> ...`` is, to bash, a redirection from a file named
``student-id`` and into a file named after the next word: a reader who pastes it gets an error
or a stray file. tests/test_readme.py runs the blocks with the placeholder replaced, so it could
not see this; here the text itself is checked.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs" / "guide").glob("*.md"))]
#: ``<word>`` outside quotes in a shell line: bash reads ``<`` and ``>`` as redirections.
ANGLE_PLACEHOLDER = re.compile(r"""(?<!['"\w])<[A-Za-z][\w-]*>(?!['"])""")


def _shell_lines(path: Path) -> list[tuple[int, str]]:
    out, inside = [], False
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.startswith("```"):
            inside = line.strip() in ("```bash", "```sh", "```console", "```shell") if not inside else False
            continue
        if inside:
            out.append((number, line.split("  #", 1)[0]))
    return out


def _redirecting_placeholders() -> list[str]:
    return [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in DOCS
        for number, line in _shell_lines(path)
        if ANGLE_PLACEHOLDER.search(line)
    ]


def test_the_pattern_finds_what_bash_redirects() -> None:
    assert ANGLE_PLACEHOLDER.search("rtsched exercise --seed <student-id> --sheet s.md")
    assert not ANGLE_PLACEHOLDER.search('rtsched exercise --seed "$STUDENT_ID" --sheet s.md')
    assert not ANGLE_PLACEHOLDER.search("rtsched check set.txt -m 2 > out.txt")


def test_no_angle_bracket_placeholders_in_shell_blocks() -> None:
    found = _redirecting_placeholders()
    assert not found, "\n".join(found)
