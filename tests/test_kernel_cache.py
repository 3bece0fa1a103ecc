"""The kernel cache is keyed by what the sources are, not where they are (issue #46, item 4).

A wheel in ``site-packages`` (README command 1), an editable install (command 2) and a second
clone of the same commit must load each other's compiled kernels; an edited kernel source must
never load stale machine code.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from rtsched import _bootstrap

ROOT = Path(__file__).resolve().parents[1]


def _tree(base: Path, layout: str, files: dict[str, str]) -> list[Path]:
    """Write ``files`` (package-relative names under rtsched/) in the clone or the installed layout."""
    for name, text in files.items():
        parts = name.split("/")
        if layout == "clone" and parts[0] in _bootstrap.SUBPACKAGES:
            path = base.joinpath(*parts)
        else:
            path = base.joinpath("rtsched", *parts)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    if layout == "clone":
        return [base / "rtsched", *(base / name for name in _bootstrap.SUBPACKAGES)]
    return [base / "rtsched"]


FILES = {
    "kernels.py": "from numba import njit\n@njit\ndef f(x):\n    return x\n",
    "cli.py": "print('no kernels here')\n",
    "analyses/global_edf/gfb.py": "from rtsched.kernels import kernel\n\n\n@kernel\ndef g(x):\n    return x\n",
    "generators/uunifast.py": "from numba import njit\n",
}


def test_package_path_and_digest_agree_across_layouts(monkeypatch, tmp_path):
    """The same files in a clone's layout and a wheel's give the same names and the same digest."""
    clone = _tree(tmp_path / "clone", "clone", FILES)
    wheel = _tree(tmp_path / "site-packages", "wheel", FILES)
    monkeypatch.setattr(_bootstrap, "_package_dirs", lambda: clone)
    clone_digest = _bootstrap._kernel_digest()
    assert _bootstrap.package_path(tmp_path / "clone" / "analyses" / "global_edf" / "gfb.py") == (
        "rtsched.analyses.global_edf"
    )
    assert _bootstrap.package_path(tmp_path / "clone" / "rtsched" / "kernels.py") == "rtsched"
    assert _bootstrap.package_path(tmp_path / "elsewhere.py") is None
    monkeypatch.setattr(_bootstrap, "_package_dirs", lambda: wheel)
    assert _bootstrap._kernel_digest() == clone_digest
    assert _bootstrap.package_path(tmp_path / "site-packages" / "rtsched" / "analyses" / "global_edf" / "gfb.py") == (
        "rtsched.analyses.global_edf"
    )
    # Different sources, different digest (the layout-independent names must not lose that).
    (tmp_path / "site-packages" / "rtsched" / "analyses" / "global_edf" / "gfb.py").write_text(
        FILES["analyses/global_edf/gfb.py"].replace("return x", "return -x")
    )
    assert _bootstrap._kernel_digest() != clone_digest


def test_digest_follows_a_linked_subpackage(monkeypatch, tmp_path):
    """A tree whose ``rtsched/analyses`` is a symbolic link to ``analyses/`` digests the linked kernels too."""
    clone = _tree(tmp_path / "clone", "clone", FILES)
    monkeypatch.setattr(_bootstrap, "_package_dirs", lambda: clone)
    clone_digest = _bootstrap._kernel_digest()
    linked = tmp_path / "linked"
    _tree(linked, "clone", FILES)
    for name in _bootstrap.SUBPACKAGES:
        (linked / "rtsched" / name).symlink_to(linked / name, target_is_directory=True)
    monkeypatch.setattr(_bootstrap, "_package_dirs", lambda: [linked / "rtsched"])
    assert _bootstrap._kernel_digest() == clone_digest
    (linked / "analyses" / "global_edf" / "gfb.py").write_text(FILES["analyses/global_edf/gfb.py"].replace("x\n", "-x\n"))
    assert _bootstrap._kernel_digest() != clone_digest


def test_source_stamp_is_the_content(tmp_path):
    """The stamp follows the bytes (an edit), not the mtime (a copy, a checkout) or the folder."""
    first = tmp_path / "a" / "k.py"
    first.parent.mkdir()
    first.write_text("x = 1\n")
    stamp = _bootstrap.source_stamp(first)
    copy = tmp_path / "b" / "k.py"
    copy.parent.mkdir()
    shutil.copy(first, copy)
    os.utime(copy, ns=(10**9, 10**9))
    assert _bootstrap.source_stamp(copy) == stamp
    first.write_text("x = 2\n")
    assert _bootstrap.source_stamp(first) != stamp


def _copy_sources(dest: Path, layout: str) -> Path:
    """A copy of rtsched's sources in the clone layout (rtsched/, analyses/, generators/ side by
    side) or the wheel layout (analyses and generators inside rtsched/); returns the import root."""
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(ROOT / "rtsched", dest / "rtsched", ignore=ignore)
    for name in _bootstrap.SUBPACKAGES:
        target = dest / name if layout == "clone" else dest / "rtsched" / name
        shutil.copytree(ROOT / name, target, ignore=ignore)
    return dest


#: Runs gfb on a small batch; prints the kernel folder, the package's layout and the cache hits of
#: the kernel that ran: a small batch runs the serial chunk loop (``rtsched.kernels.serial``), not
#: the ``prange`` driver.
RUN = (
    "import rtsched; from rtsched import analyses, TaskSetBatch, _bootstrap; "
    "b = TaskSetBatch.from_tasksets([rtsched.TaskSet.from_tasks([(1, 2, 4), (2, 5, 6)])]); "
    "assert analyses.get('gfb').batch(b, 2).tolist() == [True]; "
    "from rtsched.analyses.global_edf import gfb; chunk = gfb._gfb_kernel.py_func.__globals__['_chunk']; "
    "print(_bootstrap._installed, _bootstrap.source_root() is None, sum(chunk.stats.cache_hits.values()))"
)


def _run(root: Path, cache: Path) -> tuple[Path, bool, int]:
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "RTSCHED_CACHE_DIR", "PYTHONPATH")}
    env.update(RTSCHED_CACHE_DIR=str(cache), PYTHONPATH=str(root))
    done = subprocess.run([sys.executable, "-c", RUN], capture_output=True, text=True, env=env, cwd=root, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    folder, installed, hits = done.stdout.split()
    return Path(folder), installed == "True", int(hits)


def test_a_wheel_layout_and_a_clone_elsewhere_share_compiled_kernels(tmp_path):
    """Two copies of the same sources in two folders and two layouts, one cache: the second loads.

    The first process compiles gfb's kernel in a wheel-like tree (command 1's layout), the second
    runs a clone-like tree in another folder (command 2's) and loads it: no new index is written.
    Touching every file keeps the kernels (the stamp is the content); an edit of a kernel file
    gets a new cache folder and compiles again.
    """
    cache = tmp_path / "cache"
    wheel = _copy_sources(tmp_path / "site-packages", "wheel")
    clone = _copy_sources(tmp_path / "elsewhere" / "clone", "clone")
    folder, installed, hits = _run(wheel, cache)
    assert installed and hits == 0
    indexes = {p: p.stat().st_mtime_ns for p in folder.rglob("*.nbi")}
    assert indexes and all(p.parent.name.startswith("rtsched") for p in indexes)
    again, installed, hits = _run(clone, cache)
    assert not installed and again == folder
    assert hits == 1, "the clone compiled again instead of loading the wheel's kernel"
    assert {p: p.stat().st_mtime_ns for p in folder.rglob("*.nbi")} == indexes, "an index was rewritten"
    for path in (wheel / "rtsched").rglob("*.py"):  # a new mtime (a checkout, a copy): still loads
        os.utime(path, ns=(10**9, 10**9))
    assert _run(wheel, cache) == (folder, True, 1)
    source = clone / "analyses" / "global_edf" / "gfb.py"
    source.write_text(source.read_text() + "\n# edited\n")
    edited, _, hits = _run(clone, cache)
    assert edited != folder and hits == 0
