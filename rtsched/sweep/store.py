"""The result store of a sweep: one small JSON file per finished unit, committed atomically.

Layout of an experiment directory::

    manifest.json        fingerprint, rtsched version, the canonical experiment, the unit count
    experiment.toml      the experiment as given (or its canonical form), for people
    units/000042.json    the result of unit 42
    results.csv, weighted.csv, acceptance.{png,pdf,svg}   derived outputs (rewritten each run)

A unit file is written under a temporary name, flushed to disk, and renamed over its final
name with :func:`os.replace`, which is atomic: a process killed at any moment (SIGKILL
included) leaves either no file or a complete one, never a torn one. A rerun lists the unit
files and runs only the missing units, so at most the units in flight are lost. A directory
that holds another experiment (different fingerprint) is refused rather than mixed.

Every unit file carries the SHA-256 of its own content (``checksum``): a file truncated or
changed after it was written (a full disk, an interrupted copy, a flipped bit) is reported in
``Store.damaged`` and its unit is run again. It also records the code its numbers come from:
``implementations``, the :attr:`~rtsched.registry.Analysis.implementation` digest of each analysis
it holds, and ``generator``, a digest of the generator code (:func:`generator_digest`). The
runner recomputes an analysis whose code changed since, in every unit, and a whole unit when
the generator changed; the experiment's fingerprint still covers everything else.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from rtsched._version import __version__
from rtsched.errors import InputError

__all__ = ["Store", "checksum", "generator_digest"]

_UNIT_FILE = re.compile(r"^(\d{6,})\.json$")
_FORMAT = 2
#: Modules whose code decides which task sets a unit draws and how its verdicts are counted.
_GENERATOR_MODULES = ("rtsched.model", "rtsched.gpu.model", "rtsched.sweep.kinds", "rtsched.sweep.units")


def checksum(record: dict[str, Any]) -> str:
    """SHA-256 (hex) of a unit record without its ``checksum`` key, in canonical JSON."""
    body = {k: v for k, v in record.items() if k != "checksum"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode()).hexdigest()


def generator_digest() -> str:
    """SHA-256 (hex) of the code the task sets of a unit come from.

    Every module of ``rtsched.generators``, ``_GENERATOR_MODULES``, and the NumPy version (its
    random streams). Changing any of them changes what a unit draws, so stored units are recomputed.
    """
    import importlib.util

    import numpy as np

    digest = hashlib.sha256(f"numpy {np.__version__}".encode())
    files: list[tuple[str, str]] = []
    spec = importlib.util.find_spec("rtsched.generators")
    if spec is not None and spec.submodule_search_locations:
        for folder in spec.submodule_search_locations:
            files += [(f"rtsched.generators/{p.name}", str(p)) for p in sorted(Path(folder).glob("*.py"))]
    for name in _GENERATOR_MODULES:
        module = importlib.util.find_spec(name)
        if module is not None and module.origin is not None:
            files.append((name, module.origin))
    for name, path in files:
        digest.update(name.encode() + b"\0" + hashlib.sha256(Path(path).read_bytes()).digest())
    return digest.hexdigest()


def _write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` so that readers see the old file or the whole new one."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "w", encoding="utf-8") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)


def _flatten(data: Any, prefix: str = "") -> dict[str, Any]:
    if isinstance(data, dict):
        out: dict[str, Any] = {}
        for key, value in data.items():
            out.update(_flatten(value, f"{prefix}.{key}" if prefix else key))
        return out
    return {prefix: data}


class Store:
    """The directory of one experiment's results.

    Use :meth:`open`, which creates the directory or checks that it belongs to this experiment.
    """

    def __init__(self, root: Path, fingerprint: str, n_units: int) -> None:
        self.root = root
        self.fingerprint = fingerprint
        self.n_units = n_units
        self.units_dir = root / "units"
        self.damaged: list[tuple[int, str]] = []

    @classmethod
    def open(cls, root: str | Path, experiment: Any, n_units: int, analyses: list[str]) -> Store:
        """Create ``root`` for ``experiment``, or reopen it if it already holds this experiment.

        Raises
        ------
        InputError
            If ``root`` holds results of a different experiment (or of another rtsched
            version), or is a non-empty directory that is not an experiment directory.
        """
        root = Path(root)
        fingerprint = experiment.fingerprint()
        manifest_path = root / "manifest.json"
        if manifest_path.exists():
            try:
                manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
            except (OSError, ValueError) as err:
                raise InputError(
                    f"unreadable manifest ({err}); use a new --out directory", file=str(manifest_path)
                ) from None
            if manifest.get("fingerprint") != fingerprint:
                raise InputError(
                    f"{root} holds the results of a different experiment "
                    f"({cls._difference(manifest, experiment, __version__)}); refusing to mix them. "
                    f"Use a new --out directory, or delete {root} to start over.",
                    file=str(root),
                )
        else:
            if root.exists() and not root.is_dir():
                raise InputError("the output path exists and is not a directory", file=str(root))
            if root.is_dir() and any(not p.name.startswith(".") for p in root.iterdir()):
                raise InputError(
                    "the output directory is not empty and holds no experiment (manifest.json); "
                    "choose a new --out directory",
                    file=str(root),
                )
            root.mkdir(parents=True, exist_ok=True)
            (root / "units").mkdir(exist_ok=True)
            text = experiment.text if experiment.text is not None else experiment.to_toml()
            _write_atomic(root / "experiment.toml", text)
            manifest = {
                "format": _FORMAT,
                "fingerprint": fingerprint,
                "rtsched_version": __version__,
                "experiment": experiment.canonical(),
                "analyses": analyses,
                "units": n_units,
            }
            # The manifest is written last: a directory with a manifest is a complete setup.
            _write_atomic(manifest_path, json.dumps(manifest, indent=2, sort_keys=True) + "\n")
        store = cls(root, fingerprint, n_units)
        store.units_dir.mkdir(exist_ok=True)
        store._clean_temporaries()
        return store

    @staticmethod
    def _difference(manifest: dict[str, Any], experiment: Any, version: str) -> str:
        """Say what differs between a stored manifest and ``experiment``."""
        if manifest.get("rtsched_version") != version:
            return f"written by rtsched {manifest.get('rtsched_version')}, this is {version}"
        old = _flatten(manifest.get("experiment", {}))
        new = _flatten(experiment.canonical())
        keys = sorted(k for k in old.keys() | new.keys() if old.get(k) != new.get(k))
        if not keys and experiment.by is not None:
            return "written before the panels of the second variable shared their random streams (2026-12-02)"
        return "differs in " + ", ".join(keys) if keys else "different fingerprint"

    def _clean_temporaries(self) -> None:
        """Remove temporary files left by a killed run (they are never complete results)."""
        for path in self.units_dir.glob(".*.tmp"):
            with contextlib.suppress(OSError):
                path.unlink()

    def unit_path(self, k: int) -> Path:
        """The file of unit ``k``."""
        return self.units_dir / f"{k:06d}.json"

    def commit(
        self, result: dict[str, Any], implementations: dict[str, str] | None = None, generator: str | None = None
    ) -> None:
        """Store one unit's result atomically, with its checksum and (when given) the code it comes from.

        The code is ``implementations`` by analysis name and the ``generator`` digest.
        """
        record = dict(result)
        record["fingerprint"] = self.fingerprint
        if implementations is not None:
            record["implementations"] = {name: implementations[name] for name in record.get("accepted", {})}
        if generator is not None:
            record["generator"] = generator
        record.pop("checksum", None)
        record["checksum"] = checksum(record)
        _write_atomic(self.unit_path(int(result["unit"])), json.dumps(record, sort_keys=True) + "\n")

    def finished(self) -> dict[int, dict[str, Any]]:
        """The results of every finished unit of this experiment, by unit number.

        A unit file that cannot be read, does not parse, or whose checksum does not match its
        content is left out (its unit is run again) and listed in ``damaged``.
        """
        out: dict[int, dict[str, Any]] = {}
        self.damaged = []
        for k, path in self._unit_files():
            if k >= self.n_units:
                continue
            try:
                data = path.read_bytes()
            except OSError as err:
                self.damaged.append((k, f"unreadable ({err.strerror or err})"))
                continue
            if not data:
                self.damaged.append((k, "empty"))
                continue
            try:
                record = json.loads(data.decode("utf-8"))
            except (UnicodeDecodeError, ValueError):
                self.damaged.append((k, "truncated or corrupted (not JSON)"))
                continue
            if not isinstance(record, dict):
                self.damaged.append((k, "corrupted (not a unit record)"))
                continue
            if record.get("fingerprint") != self.fingerprint:
                continue  # cannot happen: the manifest was checked; not ours, so rerun it
            if "checksum" not in record:
                self.damaged.append((k, "written without a checksum"))
                continue
            if record["checksum"] != checksum(record) or record.get("unit") != k:
                self.damaged.append((k, "corrupted (checksum mismatch)"))
                continue
            out[k] = record
        return out

    def _unit_files(self) -> Iterator[tuple[int, Path]]:
        if not self.units_dir.is_dir():
            return
        for entry in os.scandir(self.units_dir):
            match = _UNIT_FILE.match(entry.name)
            if match:
                yield int(match.group(1)), Path(entry.path)

    def write_text(self, name: str, text: str) -> Path:
        """Write a derived output (``results.csv``, ...) atomically; returns its path."""
        path = self.root / name
        _write_atomic(path, text)
        return path
