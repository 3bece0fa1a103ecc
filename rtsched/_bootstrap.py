r"""Start-up plumbing that must run before any kernel module is imported.

Two jobs, both done once by ``rtsched/__init__.py``:

1. **Source-tree imports.** The repository keeps ``analyses/`` and ``generators/`` beside
   ``rtsched/`` (the design card's layout); a wheel installs them as ``rtsched.analyses`` and
   ``rtsched.generators``. When ``rtsched`` is imported from the clone itself (Python started in
   the clone's folder, an editable install, or no install at all), :class:`SourceTreeFinder`
   maps those two subpackages to the sibling folders, so the package always comes from one tree
   and the clone's ``rtsched/`` never shadows an installed package with a half package.

2. **Numba's cache in a per-user folder.** Numba's default writes compiled kernels into
   ``__pycache__`` beside the source, i.e. into ``site-packages``: that fails on read-only and
   system installs and leaves files that ``pip uninstall`` does not remove (a surviving
   ``site-packages/rtsched/`` then shadows a later editable install as a namespace package).
   :func:`install_numba_cache` registers a cache locator, for rtsched's own files only, that
   writes to :func:`cache_dir` instead: ``$RTSCHED_CACHE_DIR``, else the platform's per-user cache
   folder (``$XDG_CACHE_HOME/rtsched`` or ``~/.cache/rtsched`` on Linux, ``~/Library/Caches/rtsched``
   on macOS, ``%LOCALAPPDATA%\rtsched\Cache`` on Windows), else a folder in the temporary
   directory. ``NUMBA_CACHE_DIR`` still wins, as Numba documents. The folder is keyed by a digest
   of every kernel source file, because Numba checks only the file that defines a kernel and not
   the helpers it inlines from other files: an upgrade or an edit of a shared helper then starts
   a fresh cache instead of reusing stale machine code.

   Inside that folder, entries are keyed by *what* the sources are, never by *where* they are
   (issue #46): a kernel's folder is its module's package path (``rtsched.analyses.global_edf``,
   not a hash of the absolute folder as Numba's own locators do) and its source stamp is the
   SHA-256 of the file's bytes (not its mtime). So a wheel in ``site-packages`` (README command
   1), an editable install of the clone (command 2) and a second clone of the same commit all
   load the same compiled kernels; different sources have a different digest, hence a different
   folder, and an edited file has a different stamp.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import os
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

__all__ = [
    "SourceTreeFinder",
    "cache_dir",
    "install_numba_cache",
    "install_source_tree",
    "kernel_cache_dir",
    "package_path",
    "source_stamp",
]

#: Subpackages that live beside ``rtsched/`` in the repository.
SUBPACKAGES = ("analyses", "generators")

_PACKAGE_DIR = Path(__file__).resolve().parent


def source_root() -> Path | None:
    """The repository root when ``rtsched`` is imported from a source tree, else None."""
    if all((_PACKAGE_DIR / name).is_dir() for name in SUBPACKAGES):
        return None  # installed layout: the subpackages are inside the package
    root = _PACKAGE_DIR.parent
    if all((root / name / "__init__.py").is_file() for name in SUBPACKAGES):
        return root
    return None


class SourceTreeFinder(importlib.abc.MetaPathFinder):
    """Find ``rtsched.analyses`` and ``rtsched.generators`` in the source tree's sibling folders."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> importlib.machinery.ModuleSpec | None:
        package, _, name = fullname.partition(".")
        if package != "rtsched" or name not in SUBPACKAGES:
            return None
        folder = self.root / name
        return importlib.util.spec_from_file_location(
            fullname, folder / "__init__.py", submodule_search_locations=[str(folder)]
        )


def install_source_tree() -> Path | None:
    """Put a :class:`SourceTreeFinder` first on ``sys.meta_path`` when running from a clone."""
    root = source_root()
    if root is not None and not any(isinstance(f, SourceTreeFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, SourceTreeFinder(root))
    return root


def _package_dirs() -> list[Path]:
    root = source_root()
    if root is None:
        return [_PACKAGE_DIR]
    return [_PACKAGE_DIR, *(root / name for name in SUBPACKAGES)]


def _package_roots() -> list[tuple[Path, str]]:
    """Each folder of rtsched's sources with its package path (the same in every install mode).

    An installed wheel: ``site-packages/rtsched`` is ``rtsched``. A source tree: ``rtsched/`` is
    ``rtsched``, ``analyses/`` is ``rtsched.analyses`` and ``generators/`` is ``rtsched.generators``
    (:class:`SourceTreeFinder`), so both layouts name every file alike.
    """
    dirs = _package_dirs()
    return [(dirs[0], "rtsched"), *((folder, f"rtsched.{folder.name}") for folder in dirs[1:])]


def package_path(py_file: str | Path, roots: list[tuple[Path, str]] | None = None) -> str | None:
    """``py_file``'s folder as a dotted package path (``rtsched.analyses.global_edf``), or None.

    None for a file outside rtsched's sources. The same file gets the same name whether rtsched
    runs from a wheel, an editable install or a clone in any folder.
    """
    path = Path(os.path.abspath(py_file))
    for folder, package in roots if roots is not None else _package_roots():
        try:
            parts = path.parent.relative_to(folder).parts
        except ValueError:
            continue
        return ".".join((package, *parts))
    return None


@functools.cache
def _file_sha256(path: str, mtime_ns: int, size: int) -> str:
    # (mtime and size only key the memo, as in Numba's own _hash_source_file: an edit in a
    # running process is read again; the stamp itself is the content's.)
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def source_stamp(py_file: str | Path) -> str:
    """The cache stamp of a kernel's source file: the SHA-256 of its bytes (not its mtime or path)."""
    st = os.stat(py_file)
    return _file_sha256(os.path.abspath(py_file), st.st_mtime_ns, st.st_size)


def cache_dir() -> Path:
    """Rtsched's per-user cache folder (``$RTSCHED_CACHE_DIR`` wins); not created here."""
    explicit = os.environ.get("RTSCHED_CACHE_DIR")
    if explicit:
        return Path(explicit).expanduser()
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or str(Path.home() / "AppData" / "Local")
        return Path(base) / "rtsched" / "Cache"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches" / "rtsched"
    base = os.environ.get("XDG_CACHE_HOME")
    if not base or not os.path.isabs(base):  # the XDG spec ignores relative paths
        base = str(Path.home() / ".cache")
    return Path(base) / "rtsched"


#: A source file that defines Numba kernels: ``njit`` itself, or rtsched's decorators
#: (:func:`rtsched.kernels.kernel`, :func:`~rtsched.kernels.batch_kernel`). A kernel compiled in one
#: file calls helpers of others, and Numba's cache only checks the file a kernel is written in, so
#: every such file enters the digest.
_KERNEL_SOURCE = re.compile(rb"\bnjit\b|^[ \t]*@(?:batch_)?kernel\b", re.MULTILINE)


def _python_files(folder: Path) -> list[Path]:
    """The ``*.py`` files under ``folder``, through symbolic links to folders too (each real folder once).

    ``Path.rglob`` does not follow such links: a source tree whose ``rtsched/analyses`` is a link
    to ``analyses/`` (a worktree set up by hand) had a digest blind to the kernels there, and
    loaded kernels compiled from other sources after an edit (papers/bcl2005.md, session 29).
    """
    found: list[Path] = []
    seen = set()
    for top, dirs, names in os.walk(folder, followlinks=True):
        real = os.path.realpath(top)
        if real in seen:  # a link back into the tree: walk each real folder once
            dirs[:] = []
            continue
        seen.add(real)
        found.extend(Path(top) / name for name in names if name.endswith(".py"))
    return found


def _kernel_digest() -> str:
    """Digest of every source file that defines Numba kernels (and of the Python/Numba versions)."""
    import numba

    digest = hashlib.sha256(f"{sys.version_info[:2]} numba {numba.__version__}".encode())
    # A forced operand width (RTSCHED_OPERANDS, analyses/global_edf/_slack.py) compiles other code
    # from the same sources: it must not load kernels compiled with the host's choice.
    digest.update(f"operands {os.environ.get('RTSCHED_OPERANDS', '')}".encode())
    # Files by their package path (rtsched.analyses.x), in one sorted order, so that a wheel, an
    # editable install and any clone of the same sources give the same digest.
    files = {}
    for folder, package in _package_roots():
        for path in _python_files(folder):
            files[".".join((package, *path.relative_to(folder).with_suffix("").parts))] = path
    for name in sorted(files):
        data = files[name].read_bytes()
        if _KERNEL_SOURCE.search(data):
            digest.update(name.encode() + b"\0")
            digest.update(data)
    return digest.hexdigest()[:16]


def kernel_cache_dir() -> Path:
    """Where rtsched's compiled kernels go: ``cache_dir()/numba/<digest of the kernel sources>``."""
    return cache_dir() / "numba" / _kernel_digest()


def _writable(path: Path) -> bool:
    try:
        path.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=path).close()
    except OSError:
        return False
    return True


_installed: Path | None = None


def install_numba_cache() -> Path | None:
    """Send Numba's cache of rtsched's kernels to :func:`kernel_cache_dir`.

    Returns the folder in use, or None when ``NUMBA_CACHE_DIR`` is set (Numba's own choice then
    applies) or when this Numba's cache internals are not the ones known here (Numba's default
    locators then apply; ``tests/test_packaging.py`` catches that).
    """
    global _installed
    if _installed is not None:
        return _installed
    from numba.core import caching, config

    if getattr(config, "CACHE_DIR", None):
        return None
    base = getattr(caching, "UserProvidedCacheLocator", None) or getattr(caching, "_UserProvidedCacheLocator", None)
    impl = getattr(caching, "CacheImpl", None)
    if base is None or impl is None or not isinstance(getattr(impl, "_locator_classes", None), list):
        return None
    folder = kernel_cache_dir()
    if not _writable(folder):
        fallback = Path(tempfile.gettempdir()) / f"rtsched-cache-{_user_tag()}" / "numba" / folder.name
        if not _writable(fallback):
            return None
        folder = fallback
    roots = _package_roots()
    # Per source file and per folder, once per process: every kernel (about 300 of them,
    # decorated at import) asks for its file's package path twice and checks that its folder is
    # writable by creating a file there; that was a third of importing every analysis module.
    package_of = functools.lru_cache(maxsize=None)(lambda py_file: package_path(py_file, roots))
    writable: set[str] = set()

    class RtschedCacheLocator(base):  # type: ignore[misc, valid-type]
        """Numba cache locator for rtsched's own source files: the per-user folder.

        Keyed by package path and file content, not by absolute path and mtime (module docstring),
        so every install mode of the same sources shares the compiled kernels.
        """

        def __init__(self, py_func: Any, py_file: str) -> None:
            self._py_file = py_file
            self._lineno = py_func.__code__.co_firstlineno
            self._cache_path = str(folder / (package_of(py_file) or "rtsched"))

        def get_source_stamp(self) -> str:
            return source_stamp(self._py_file)

        def ensure_cache_path(self) -> None:
            # Numba's check (make the folder, create a temporary file in it) once per folder, while
            # the folder exists (``rtsched cache --clear`` may remove it in this process).
            if self._cache_path in writable and os.path.isdir(self._cache_path):
                return
            super().ensure_cache_path()
            writable.add(self._cache_path)

        @classmethod
        def from_function(cls, py_func: Any, py_file: str) -> Any:
            if getattr(config, "CACHE_DIR", None) or package_of(py_file) is None:
                return None
            return super(base, cls).from_function(py_func, py_file)  # type: ignore[arg-type]

    impl._locator_classes.insert(0, RtschedCacheLocator)
    _installed = folder
    return folder


def _user_tag() -> str:
    getuid = getattr(os, "getuid", None)
    return str(getuid()) if getuid is not None else (os.environ.get("USERNAME") or "user")
