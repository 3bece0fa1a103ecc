"""``rtsched exercise`` fails before any output when a file cannot be written (issue #46).

It printed (or wrote) the sheet, then failed on an unwritable ``--key``: a student's sheet
without its key, and a teacher who had to rerun.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rtsched.cli import main


@pytest.mark.parametrize("to_file", [False, True], ids=["sheet-on-stdout", "sheet-to-file"])
@pytest.mark.parametrize("bad", ["missing-folder", "directory"])
def test_unwritable_key_fails_before_the_sheet(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], to_file: bool, bad: str
) -> None:
    key = tmp_path / "no" / "key.md" if bad == "missing-folder" else tmp_path
    sheet = tmp_path / "sheet.md"
    args = ["exercise", "--topic", "uni-edf", "--seed", "1", "--key", str(key)]
    assert main(args + (["--sheet", str(sheet)] if to_file else [])) == 2
    out, err = capsys.readouterr()
    assert out == "" and not sheet.exists()
    assert len(err.strip().splitlines()) == 1 and f"field --key: cannot write {key}" in err
    assert not list(tmp_path.glob(".*rtsched-tmp"))  # nothing left behind


def test_both_files_written_and_nothing_left_behind(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sheet, key = tmp_path / "sheet.md", tmp_path / "key.md"
    args = ["exercise", "--topic", "uni-edf", "--seed", "1", "--sheet", str(sheet), "--key", str(key)]
    assert main(args) == 0
    out, err = capsys.readouterr()
    assert out == "" and f"wrote {sheet}" in err and f"wrote {key}" in err
    assert sheet.read_text(encoding="utf-8").startswith("# Exercise sheet")
    assert key.read_text(encoding="utf-8").startswith("# Answer key")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["key.md", "sheet.md"]
    assert main(args[:-2]) == 0  # the sheet alone, on stdout when --sheet is not given either
    assert main(["exercise", "--topic", "uni-edf", "--seed", "1"]) == 0
    assert capsys.readouterr().out.startswith("# Exercise sheet")
