"""The user guides' examples run as written (they were the README's until it slimmed down, issue #48).

"Adding an analysis" and "Adding a workload kind" (docs/guide/development.md) and the DAG, mixed-
criticality and CPU–GPU guides' examples: each Python block runs in a fresh interpreter (its
registrations must not leak into this process's registry), from a file (Numba caches kernels of
files only), and must print what its comments say it prints. The documentation build runs the
guides' blocks too (``python -m rtsched.docs --doctest``); these tests keep them in the default run.
"""

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


GUIDES = ROOT / "docs" / "guide"


def section_code(guide: str, heading: str | None = None) -> str:
    """The one Python block of ``guide`` (a file of docs/guide/), or of its section ``## heading``."""
    text = (GUIDES / guide).read_text(encoding="utf-8")
    if heading is not None:
        start = text.index(f"\n## {heading}\n")
        end = text.find("\n## ", start + 1)
        text = text[start : end if end != -1 else len(text)]
    blocks = re.findall(r"```(?:python|\{testcode\})\n(.*?)```", text, flags=re.S)
    assert len(blocks) == 1, f"{guide} {heading or ''}: expected one Python block, found {len(blocks)}"
    return blocks[0]


def expected_prints(code: str) -> list[str]:
    """What each ``print(...)  # {...}`` line of the block says it prints (the dict the comment opens with)."""
    return [m.group(1) for m in re.finditer(r"^print\(.*?\)\s+# (\{.*?\})", code, flags=re.M)]


@pytest.mark.parametrize("heading", ["Adding an analysis", "Adding a workload kind"])
def test_readme_extension_example_runs(heading: str, tmp_path: Path) -> None:
    code = section_code("development.md", heading)
    script = tmp_path / "example.py"
    script.write_text(code, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-W", "error", str(script)], capture_output=True, text=True, cwd=tmp_path, timeout=600
    )
    assert done.returncode == 0, done.stderr
    printed = [line.strip() for line in done.stdout.splitlines()]
    expected = expected_prints(code)
    assert expected and printed == expected


def test_readme_dag_example_runs(tmp_path: Path) -> None:
    code = section_code("dag.md")
    script = tmp_path / "dag.py"
    script.write_text(code + "\nassert len(sets) == 10 and all(s.n == 3 for s in sets)\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-W", "error", str(script)], capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["7", "5", "True"]  # what the comments say


def test_readme_mc_example_runs(tmp_path: Path) -> None:
    code = section_code("mc.md")
    script = tmp_path / "mc.py"
    script.write_text(code, encoding="utf-8")
    done = subprocess.run([sys.executable, "-W", "error", str(script)], capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "True"]  # what the comments say


def test_readme_segmented_example_runs(tmp_path: Path) -> None:
    code = section_code("cpu-gpu.md")
    script = tmp_path / "seg.py"
    script.write_text(code, encoding="utf-8")
    done = subprocess.run([sys.executable, "-W", "error", str(script)], capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "True", "True"]  # what the comments say
