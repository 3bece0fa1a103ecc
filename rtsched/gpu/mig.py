"""MIG profile tables and the names of layout spaces: the data the GPU model validates against.

The GPU model (:mod:`rtsched.gpu.model`) checks a workload's ``layout`` with
:func:`check_layout_spec`; the layout spaces built on the model (:mod:`rtsched.gpu.layouts`) read
the tables. Both import this module, which imports neither.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rtsched.errors import InputError

__all__ = ["GPU_PRESETS", "MIG_SOURCE", "MIG_TABLES", "MIGProfile", "MIGTable", "check_layout_spec"]


@dataclass(frozen=True)
class MIGProfile:
    """One GPU-instance profile: compute slices, memory-slice positions it occupies, allowed starts."""

    name: str
    slices: int
    width: int
    starts: tuple[int, ...]


@dataclass(frozen=True)
class MIGTable:
    """The MIG profiles of one GPU (placements as printed by ``nvidia-smi mig -lgipp``)."""

    gpu: str
    compute_slices: int
    positions: int
    profiles: tuple[MIGProfile, ...]


#: Where the MIG tables come from (cited in reports and the note).
MIG_SOURCE = (
    "NVIDIA Multi-Instance GPU User Guide, sections 'Supported MIG Profiles' and "
    "'Getting Started with MIG: List GPU Instance Profiles' (nvidia-smi mig -lgipp)"
)

#: MIG profile tables (compute-slice profiles only; the '+me' media variants have the same
#: placements as their base profile). A100-SXM4-40GB names; 80GB parts differ in memory only.
MIG_TABLES: dict[str, MIGTable] = {
    "a100": MIGTable(
        "A100",
        7,
        8,
        (
            MIGProfile("1g.5gb", 1, 1, (0, 1, 2, 3, 4, 5, 6)),
            MIGProfile("2g.10gb", 2, 2, (0, 2, 4)),
            MIGProfile("3g.20gb", 3, 4, (0, 4)),
            MIGProfile("4g.20gb", 4, 4, (0,)),
            MIGProfile("7g.40gb", 7, 8, (0,)),
        ),
    ),
    "h100": MIGTable(
        "H100",
        7,
        8,
        (
            MIGProfile("1g.10gb", 1, 1, (0, 1, 2, 3, 4, 5, 6)),
            MIGProfile("1g.20gb", 1, 2, (0, 2, 4, 6)),
            MIGProfile("2g.20gb", 2, 2, (0, 2, 4)),
            MIGProfile("3g.40gb", 3, 4, (0, 4)),
            MIGProfile("4g.40gb", 4, 4, (0,)),
            MIGProfile("7g.80gb", 7, 8, (0,)),
        ),
    ),
}

#: ``--gpu`` names: (M, layout).
GPU_PRESETS: dict[str, tuple[int, str]] = {"a100-mig": (7, "mig:a100"), "h100-mig": (7, "mig:h100")}


def check_layout_spec(spec: object) -> str:
    """``spec`` if it names a layout space (``free``, ``tpc:<k>``, ``mig:<table>``), else an InputError."""
    text = spec.strip() if isinstance(spec, str) else None
    if text == "free":
        return text
    if text is not None and (match := re.fullmatch(r"tpc:([0-9]+)", text)) and int(match.group(1)) >= 1:
        return text
    if text is not None and (match := re.fullmatch(r"mig:([A-Za-z0-9_-]+)", text)):
        if match.group(1) in MIG_TABLES:
            return text
        raise InputError(
            f"unknown MIG profile table {match.group(1)!r}; choose one of {', '.join(MIG_TABLES)}", field="layout"
        )
    raise InputError(
        f"unknown layout {spec!r}; use free, tpc:<SMs per TPC> or mig:<{'|'.join(MIG_TABLES)}>", field="layout"
    )
