"""GPU analyses: partitioning a GPU's compute clusters among real-time kernels (``partitioning``).

Before the analyses were grouped by family, ``rtsched.analyses.gpu`` was the module that is now
``rtsched.analyses.gpu.partitioning``; its public names still resolve here, with a
:class:`DeprecationWarning`.
"""

from __future__ import annotations

import importlib
import warnings
from typing import Any


def __getattr__(name: str) -> Any:
    if name.startswith("__"):
        raise AttributeError(name)
    module = importlib.import_module(f"{__name__}.partitioning")
    if name not in getattr(module, "__all__", ()):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    warnings.warn(
        f"{__name__}.{name} moved to {__name__}.partitioning.{name}; the old path will be removed in a later release",
        DeprecationWarning,
        stacklevel=2,
    )
    return getattr(module, name)
