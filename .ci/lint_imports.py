"""Run import-linter (``lint-imports``) on rtsched as it is installed, with the contracts of .importlinter.

The repository keeps ``analyses/`` and ``generators/`` beside ``rtsched/``; pyproject.toml's
``[tool.setuptools.package-dir]`` installs them as ``rtsched.analyses`` and ``rtsched.generators``.
import-linter (through grimp) reads a package from its one folder, so in the clone it would see
``rtsched`` without them. This script builds that layout in a temporary folder, of symbolic links
to the clone's files (``rtsched/<entry>`` for every entry of ``rtsched/``, and each package-dir
subpackage at its installed place), and runs ``lint-imports`` there on the clone's .importlinter.

    python .ci/lint_imports.py [lint-imports options]    # exit status: lint-imports'

``--layout DIR`` only builds the layout in DIR (tests/test_layers.py reads it with grimp).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def build_layout(dest: Path) -> Path:
    """Make ``dest/rtsched`` the installed package, of links to the clone's files; returns ``dest``."""
    package_dir = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["package-dir"]
    package = dest / "rtsched"
    package.mkdir(parents=True)
    for entry in (ROOT / package_dir["rtsched"]).iterdir():
        os.symlink(entry, package / entry.name)
    for name, folder in package_dir.items():
        if name != "rtsched":
            os.symlink(ROOT / folder, package / name.removeprefix("rtsched.").replace(".", os.sep))
    return dest


def main(argv: list[str]) -> int:
    """Build the layout and run ``lint-imports`` in it (``--layout DIR``: only build it)."""
    if argv[:1] == ["--layout"]:
        build_layout(Path(argv[1]))
        return 0
    executable = shutil.which("lint-imports", path=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]))
    if executable is None:
        print("lint-imports not found: pip install -e '.[lint]'", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="rtsched-layout-") as tmp:
        build_layout(Path(tmp))
        # lint-imports puts its working directory first on sys.path: there, rtsched is the layout.
        env = {**os.environ, "PYTHONPATH": tmp}
        command = [executable, "--no-cache", str(ROOT / ".importlinter"), *argv]
        return subprocess.run(command, cwd=tmp, env=env, check=False).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
