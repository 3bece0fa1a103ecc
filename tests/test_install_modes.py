"""Install modes a stranger uses: a wheel in a read-only site-packages, no install, other Pythons.

These build virtual environments and install rtsched's dependencies into them (from pip's
cache or the package index), a few minutes in all, so they carry the ``install`` marker, are
deselected by default, and run in ``.ci/run`` after the README's two commands
(``pytest -m install``). Each runs the README's Python snippet, read from README.md, so the
README cannot drift from what is tested.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.install

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "examples" / "tasksets" / "demo.yaml"


def readme_snippet() -> str:
    """The README's first ``python`` block (the snippet a newcomer pastes first)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    match = re.search(r"```python\n(.*?)```", text, re.S)
    assert match, "README.md has no ```python block"
    return match.group(1)


def run(cmd: list[str], cwd: Path, env: dict[str, str] | None = None, timeout: float = 900) -> str:
    """Run a command; on failure show its output in the assertion."""
    done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{' '.join(map(str, cmd))} -> {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done.stdout


def clean_env(**extra: str) -> dict[str, str]:
    """The environment without this venv's activation and any cache override."""
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH", "NUMBA_CACHE_DIR")}
    venv_bin = str(Path(sys.prefix) / "bin")
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if p != venv_bin)
    env.update(extra)
    return env


@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    """A folder for this module's venvs."""
    return tmp_path_factory.mktemp("install")


@pytest.fixture(scope="module")
def wheel(scratch):
    """A wheel built from this checkout (``pip wheel``), without dependencies.

    The build writes ``build/`` and ``*.egg-info`` into the checkout, so under pytest-xdist (each
    worker builds its own) the builds take turns on a lock file beside them.
    """
    import fcntl

    dist = scratch / "dist"
    with open(ROOT / "build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(dist), str(ROOT)], cwd=scratch)
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    (built,) = dist.glob("rtsched-*.whl")
    return built


def make_venv(python: str, where: Path) -> Path:
    run([python, "-m", "venv", str(where)], cwd=where.parent)
    return where / "bin" / "python"


def files_under(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*")}


def read_only_prefix(*folders: Path) -> list[str]:
    """A command prefix that runs the command with ``folders`` read-only.

    As root, permission bits do not stop writes, so the folders are bind-mounted read-only in a
    private mount namespace (``unshare``: the file system answers EROFS, as on a read-only
    system image). As another user, removing the write bits is enough.
    """
    if os.geteuid() != 0:
        for folder in folders:
            for path in [folder, *folder.rglob("*")]:
                if not path.is_symlink():
                    path.chmod(stat.S_IMODE(path.stat().st_mode) & ~0o222)
        return []
    unshare = shutil.which("unshare")
    if unshare is None:
        pytest.skip("running as root without unshare: cannot make a folder read-only")
    mounts = " && ".join(f'mount --bind "{f}" "{f}" && mount -o remount,ro,bind "{f}"' for f in folders)
    return [unshare, "--mount", "--", "sh", "-c", f'{mounts} && exec "$@"', "sh"]


BATCH = (
    "import rtsched; from rtsched import analyses, TaskSetBatch; "
    "b = TaskSetBatch.from_tasksets([rtsched.TaskSet.from_tasks([(1, 2, 4), (2, 5, 6)])]); "
    "print(analyses.get('gfb').batch(b, 2).tolist(), analyses.get('p-edf').batch(b, 2).tolist(), rtsched._bootstrap._installed)"
)


def test_wheel_in_read_only_site_packages(wheel, scratch):
    """pip wheel + a fresh venv whose site-packages is read-only: check and kernels run.

    The home folder is read-only too, so the kernels go to the temporary-folder fallback.
    """
    venv = scratch / "wheel-venv"
    python = make_venv(sys.executable, venv)
    run([str(python), "-m", "pip", "install", "-q", str(wheel)], cwd=scratch, timeout=1800)
    (site,) = venv.glob("lib/python*/site-packages")
    package = site / "rtsched"
    before = files_under(package)
    home = scratch / "home"
    home.mkdir()
    work = scratch / "work"
    work.mkdir()
    shutil.copy(DEMO, work / "demo.yaml")
    env = clean_env(HOME=str(home))
    for name in ("RTSCHED_CACHE_DIR", "XDG_CACHE_HOME"):
        env.pop(name, None)
    prefix = read_only_prefix(venv, home)
    try:
        out = run([*prefix, str(venv / "bin" / "rtsched"), "check", "demo.yaml", "-m", "2"], cwd=work, env=env)
        assert "schedulable" in out
        out = run([*prefix, str(python), "-c", BATCH], cwd=work, env=env)
        assert out.startswith("[True] [True]"), out
        assert "rtsched-cache-" in out, out  # home not writable: the temporary-folder fallback
        assert files_under(package) == before  # the installation gained no file
        assert not list(home.rglob("*"))
    finally:
        if os.geteuid() != 0:
            for path in [venv, home, *venv.rglob("*"), *home.rglob("*")]:
                if not path.is_symlink():
                    path.chmod(path.stat().st_mode | 0o200)


def test_readme_snippet_from_clone_root_with_wheel_then_without_install(wheel, scratch):
    """From the clone's folder the local ``rtsched/`` is found first: it must work, installed or not."""
    venv = scratch / "clone-root-venv"
    python = make_venv(sys.executable, venv)
    run([str(python), "-m", "pip", "install", "-q", str(wheel)], cwd=scratch, timeout=1800)
    env = clean_env()
    snippet = (
        readme_snippet() + "\nimport rtsched.analyses, rtsched.generators\nprint('OK', rtsched.analyses.__file__)\n"
    )
    out = run([str(python), "-c", snippet], cwd=ROOT, env=env)
    assert "OK" in out
    # No install at all: only the dependencies, Python started in the clone's folder.
    run([str(python), "-m", "pip", "uninstall", "-q", "-y", "rtsched"], cwd=scratch)
    out = run([str(python), "-c", snippet], cwd=ROOT, env=env)
    assert f"OK {ROOT / 'analyses' / '__init__.py'}" in out
    assert not list(ROOT.rglob("*.nbi")), "a Numba cache file was written into the source tree"


def test_readme_snippet_editable_from_clone_root_and_elsewhere(tmp_path):
    """The test venv is README command 2's editable install: the snippet works from anywhere."""
    snippet = (
        readme_snippet() + "\nimport rtsched.analyses, rtsched.generators\nprint('OK', rtsched.analyses.__file__)\n"
    )
    for cwd in (ROOT, tmp_path):
        out = run([sys.executable, "-c", snippet], cwd=cwd, env=clean_env())
        assert f"OK {ROOT / 'analyses' / '__init__.py'}" in out


#: Decides one batch with gfb; prints where rtsched came from and gfb's batch kernel's cache hits.
GFB_HITS = (
    "import rtsched; from rtsched import registry; from rtsched.warmup import probe_batch; "
    "from rtsched.analyses.global_edf import gfb; registry.get('gfb').decide(probe_batch(), 2); "
    "chunk = gfb._gfb_kernel.py_func.__globals__['_chunk']; "  # the serial loop a small batch runs
    "print(rtsched.__file__, sum(chunk.stats.cache_hits.values()))"
)


def test_a_wheel_install_and_the_editable_install_share_compiled_kernels(wheel, scratch):
    """README command 1 (``pip install .``) then command 2 (``pip install -e .``): no recompilation.

    The wheel's files (``pip install --no-deps --target``) compile gfb's kernel into a fresh
    cache; the editable install of this checkout (this venv) then loads it from that cache
    (issue #46: the cache was keyed by the source folder, so command 2's run compiled again).
    """
    target = scratch / "wheel-files"
    run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target), str(wheel)], cwd=scratch)
    cache = scratch / "shared-cache"
    elsewhere = scratch / "elsewhere"
    elsewhere.mkdir()
    first = run(
        [sys.executable, "-c", GFB_HITS],
        cwd=elsewhere,
        env=clean_env(RTSCHED_CACHE_DIR=str(cache), PYTHONPATH=str(target)),
    )
    assert first.split() == [str(target / "rtsched" / "__init__.py"), "0"]
    second = run([sys.executable, "-c", GFB_HITS], cwd=elsewhere, env=clean_env(RTSCHED_CACHE_DIR=str(cache)))
    source, hits = second.split()
    assert Path(source) != target / "rtsched" / "__init__.py"  # the editable install of the checkout
    assert hits == "1", "the editable install compiled gfb's kernel again instead of loading the wheel's"


def find_python(version: str) -> str | None:
    """An interpreter for ``version``: pyenv's install first (its shims may not be active), then PATH."""
    pyenv_root = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv"))
    candidates = sorted(pyenv_root.glob(f"versions/{version}.*/bin/python{version}"))
    if candidates:
        return str(candidates[-1])
    for folder in os.environ.get("PATH", "").split(os.pathsep):
        path = Path(folder) / f"python{version}"
        if "shims" not in path.parts and path.is_file() and os.access(path, os.X_OK):
            return str(path)
    return None


def other_pythons() -> list[object]:
    """The other Pythons to install on: $RTSCHED_OTHER_PYTHONS (comma-separated), default 3.13.

    The newest supported version by default, since each costs about two minutes of CI (a venv, the
    dependencies, a cold kernel cache); ``RTSCHED_OTHER_PYTHONS=3.12,3.13`` adds 3.12.
    """
    params = []
    for version in os.environ.get("RTSCHED_OTHER_PYTHONS", "3.13").split(","):
        version = version.strip()
        found = find_python(version)
        marks = [] if found else [pytest.mark.skip(reason=f"Python {version} is not installed on this machine")]
        params.append(pytest.param(found, id=f"python{version}", marks=marks))
    return params


@pytest.mark.parametrize("python", other_pythons())
def test_other_python_versions(python, wheel, scratch):
    """Install the checkout's wheel on another Python and run check, the snippet, kernels and core tests."""
    version = run([python, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"], cwd=scratch).strip()
    venv = scratch / f"py{version}-venv"
    venv_python = make_venv(python, venv)
    run([str(venv_python), "-m", "pip", "install", "-q", f"{wheel}[test]"], cwd=scratch, timeout=1800)
    env = clean_env(RTSCHED_CACHE_DIR=str(scratch / f"cache-{version}"))
    out = run([str(venv / "bin" / "rtsched"), "check", str(DEMO), "-m", "2"], cwd=scratch, env=env)
    assert "schedulable" in out
    assert "[True] [True]" in run([str(venv_python), "-c", BATCH], cwd=scratch, env=env)
    tests = ["tests/test_model.py", "tests/test_io.py", "tests/analyses/global_edf/test_gfb.py", "tests/test_cli_check.py"]
    # The venv's pytest script (not ``python -m pytest``, which would put the clone first on
    # sys.path) so that the tests exercise the installed package.
    out = run([str(venv / "bin" / "pytest"), "-q", "-p", "no:cacheprovider", *tests], cwd=ROOT, env=env)
    assert " passed" in out and "failed" not in out
