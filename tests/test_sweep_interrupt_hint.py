"""An interrupted ``rtsched sweep`` says how to go on (issue #46): it printed only "interrupted"."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import rtsched.sweep
from rtsched.cli import main


def test_interrupted_sweep_says_the_rerun_resumes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def interrupted(*args: Any, **kwargs: Any) -> Any:
        raise KeyboardInterrupt

    monkeypatch.setattr(rtsched.sweep, "run", interrupted)
    out = tmp_path / "exp"
    assert main(["sweep", "--out", str(out), "-q"]) == 130
    err = capsys.readouterr().err
    assert f"rtsched sweep: interrupted; the finished units are kept in {out}: rerun the same command to resume" in err
