"""The README's extension points run as written: "Adding an analysis" and "Adding a workload kind".

Each section's Python block runs in a fresh interpreter (its registrations must not leak into
this process's registry), from a file (Numba caches kernels of files only), and must print what
its comments say it prints.
"""

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def section_code(heading: str) -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    start = text.index(f"\n### {heading}\n")
    end = text.find("\n## ", start + 1)
    following = text.find("\n### ", start + 1)
    end = min(e for e in (end, following, len(text)) if e != -1)
    blocks = re.findall(r"```python\n(.*?)```", text[start:end], flags=re.S)
    assert len(blocks) == 1, f"{heading}: expected one Python block, found {len(blocks)}"
    return blocks[0]


def expected_prints(code: str) -> list[str]:
    """What each ``print(...)  # {...}`` line of the block says it prints (the dict the comment opens with)."""
    return [m.group(1) for m in re.finditer(r"^print\(.*?\)\s+# (\{.*?\})", code, flags=re.M)]


@pytest.mark.parametrize("heading", ["Adding an analysis", "Adding a workload kind"])
def test_readme_extension_example_runs(heading: str, tmp_path: Path) -> None:
    code = section_code(heading)
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
    code = section_code("Parallel DAG tasks")
    script = tmp_path / "dag.py"
    script.write_text(code + "\nassert len(sets) == 10 and all(s.n == 3 for s in sets)\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-W", "error", str(script)], capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["7", "5", "True"]  # what the comments say


def test_readme_mc_example_runs(tmp_path: Path) -> None:
    code = section_code("Mixed criticality")
    script = tmp_path / "mc.py"
    script.write_text(code, encoding="utf-8")
    done = subprocess.run([sys.executable, "-W", "error", str(script)], capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "True"]  # what the comments say


def test_readme_segmented_example_runs(tmp_path: Path) -> None:
    code = section_code("CPU–GPU tasks")
    script = tmp_path / "seg.py"
    script.write_text(code, encoding="utf-8")
    done = subprocess.run([sys.executable, "-W", "error", str(script)], capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "True", "True"]  # what the comments say
