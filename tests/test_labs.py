"""The teaching labs (examples/labs/): each runs as a script and writes its figures; build.py
makes valid nbformat-4 notebooks whose solutions appear only in the teacher version, and the
student version (solution cells stubbed) still runs top to bottom."""

import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

LABS_DIR = Path(__file__).resolve().parents[1] / "examples" / "labs"
LABS = sorted(LABS_DIR.glob("lab*.py"))
BUILD = LABS_DIR / "build.py"


def _env(tmp_path: Path) -> dict[str, str]:
    return dict(os.environ, MPLBACKEND="Agg", RTSCHED_EXAMPLE_SMALL="1", RTSCHED_LAB_OUT=str(tmp_path / "figures"))


def _run(args: list[str], tmp_path: Path) -> subprocess.CompletedProcess:
    proc = subprocess.run(
        [sys.executable, *args], cwd=tmp_path, env=_env(tmp_path), capture_output=True, text=True, timeout=600, check=False
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-4000:]
    return proc


def _build(lab: Path, tmp_path: Path, teacher: bool) -> dict:
    out = tmp_path / "nb"
    _run([str(BUILD), str(lab), "--out", str(out), *(["--teacher"] if teacher else [])], tmp_path)
    path = out / (f"{lab.stem}-teacher.ipynb" if teacher else f"{lab.stem}.ipynb")
    return json.loads(path.read_text(encoding="utf-8"))


def test_there_are_labs():
    assert len(LABS) >= 6


@pytest.mark.parametrize("lab", LABS, ids=[p.stem for p in LABS])
def test_lab_runs_as_a_script(lab, tmp_path):
    _run([str(lab)], tmp_path)
    figures = list((tmp_path / "figures").glob("*.png"))
    assert figures and all(f.stat().st_size > 0 for f in figures)


def _check_notebook(nb: dict) -> None:
    assert nb["nbformat"] == 4 and nb["nbformat_minor"] >= 4
    assert nb["metadata"]["kernelspec"]["language"] == "python"
    ids = [cell["id"] for cell in nb["cells"]]
    assert len(set(ids)) == len(ids)
    for cell in nb["cells"]:
        assert cell["cell_type"] in ("code", "markdown")
        assert isinstance(cell["source"], list) and all(isinstance(line, str) for line in cell["source"])
        assert all(line.endswith("\n") for line in cell["source"][:-1])
        if cell["cell_type"] == "code":
            assert cell["outputs"] == [] and cell["execution_count"] is None


def _tags(cell: dict) -> list[str]:
    return cell["metadata"].get("tags", [])


@pytest.mark.parametrize("lab", LABS, ids=[p.stem for p in LABS])
def test_lab_notebooks_student_and_teacher(lab, tmp_path):
    teacher, student = _build(lab, tmp_path, True), _build(lab, tmp_path, False)
    _check_notebook(teacher)
    _check_notebook(student)
    assert len(teacher["cells"]) == len(student["cells"])
    solutions = [c for c in teacher["cells"] if "solution" in _tags(c)]
    assert any(c["cell_type"] == "code" for c in solutions) and any(c["cell_type"] == "markdown" for c in solutions)
    assert not any("solution" in _tags(c) for c in student["cells"])
    student_text = "".join("".join(c["source"]) for c in student["cells"])
    assert "from _labkit import" not in student_text  # the kit is inlined: one self-contained file
    for cell in solutions:
        body = [line for line in cell["source"] if line.strip() and not line.startswith("#")]
        body += [line for line in cell["source"] if line.startswith("**Solution")]
        assert body and not any(line in student_text for line in body if len(line) > 20), cell["source"][:2]
    stubs = [c for c in student["cells"] if "exercise" in _tags(c)]
    assert len(stubs) == len(solutions)
    # the student version still runs top to bottom: its code cells, in order, as one script
    script = tmp_path / f"{lab.stem}_student.py"
    script.write_text("\n\n".join("".join(c["source"]) for c in student["cells"] if c["cell_type"] == "code"), encoding="utf-8")
    _run([str(script)], tmp_path)


def test_build_is_deterministic(tmp_path):
    lab = LABS[0]
    first = _build(lab, tmp_path, False)
    assert _build(lab, tmp_path, False) == first


def _build_module():
    spec = importlib.util.spec_from_file_location("labs_build", BUILD)
    build = importlib.util.module_from_spec(spec)
    sys.modules["labs_build"] = build  # dataclasses look their module up there
    spec.loader.exec_module(build)
    return build


@pytest.mark.parametrize("lab", LABS, ids=[p.stem for p in LABS])
def test_students_see_every_exercise(lab):
    """Every exercise's question is in a cell students get, and each has its solution after it.

    (Lab 2's Exercise 4 once sat inside Solution 3's cell, so students never saw it.)
    """
    cells = _build_module().parse(lab.read_text(encoding="utf-8"), str(lab))
    asked: list[str] = []
    solved: list[str] = []
    for cell in cells:
        text = "\n".join(cell.lines)
        for word, found in (("Exercise", asked), ("Solution", solved)):
            for number in re.findall(rf"\*\*{word} (\w+)", text):
                found.append(number)
                assert (word == "Exercise") == ("solution" not in cell.tags), (
                    f"{lab.name}: **{word} {number}** is in a {'solution' if 'solution' in cell.tags else 'student'} cell"
                )
    assert asked, f"{lab.name} has no exercise"
    assert sorted(set(solved)) == sorted(set(asked)), f"{lab.name}: exercises {asked}, solutions {solved}"


def test_markdown_lines_must_be_comments(tmp_path):
    build = _build_module()
    cells = build.parse('# %% [markdown]\n# text\n\n# %% solution\n# Q?\nx = 1\n# %% tags=["solution", "x"]\ny = 2\n')
    assert [(c.kind, c.tags) for c in cells] == [("markdown", []), ("code", ["solution"]), ("code", ["solution", "x"])]
    assert cells[0].lines == ["text"]
    with pytest.raises(ValueError, match="must be comments"):
        build.parse("# %% [markdown]\nnot a comment\n", "t.py")


def test_notebooks_validate_against_the_nbformat_schema(tmp_path):
    import nbformat  # a test dependency (pyproject [test]): Jupyter's own schema
    for lab in LABS:
        for teacher in (False, True):
            nbformat.validate(nbformat.from_dict(_build(lab, tmp_path, teacher)))
