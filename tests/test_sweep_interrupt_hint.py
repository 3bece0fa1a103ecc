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


@pytest.mark.slow
def test_sigterm_stops_a_pool_sweep_cleanly_and_it_resumes(tmp_path: Path) -> None:
    """``kill PID`` (SIGTERM) left the pool to the resource tracker ("leaked semaphore objects")
    and printed no hint; now it stops as Ctrl-C does, says how to resume, and the rerun resumes."""
    import os
    import signal
    import subprocess
    import sys
    import time

    from rtsched.testing.experiments import experiment_toml

    generator = {
        "n": "8",
        "utilizations": '"randfixedsum"',
        "periods": '"log-uniform:10:1000"',
        "deadlines": '"implicit"',
    }
    text = experiment_toml(
        name="term", seed=11, m="4", generator=generator, points="[0.1, 0.3, 0.5, 0.7]",
        sets_per_point=2000, sets_per_unit=10, names='["gfb"]',
    )  # fmt: skip
    path = tmp_path / "exp.toml"
    path.write_text(text, encoding="utf-8")
    out = tmp_path / "out"
    command = [sys.executable, "-m", "rtsched.cli", "sweep", str(path), "--out", str(out), "-j", "2", "-q", "--no-plot"]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    units = out / "units"
    try:
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline and process.poll() is None:
            if units.is_dir() and sum(1 for p in units.iterdir() if p.suffix == ".json") >= 4:
                break
            time.sleep(0.005)
        assert process.poll() is None, "sweep ended early"
        os.kill(process.pid, signal.SIGTERM)
        _, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    text_err = err.decode()
    assert process.returncode == 130, text_err[-2000:]
    assert "leaked semaphore" not in text_err and "Traceback" not in text_err, text_err[-2000:]
    assert f"kept in {out}: rerun the same command to resume" in text_err
    resumed = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
    assert resumed.returncode == 0, resumed.stderr
    assert (out / "results.csv").is_file()
