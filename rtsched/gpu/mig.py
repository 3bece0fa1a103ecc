"""MIG profile tables and the names of layout spaces: the data the GPU model validates against.

The GPU model (:mod:`rtsched.gpu.model`) checks a workload's ``layout`` with
:func:`check_layout_spec`; the layout spaces built on the model (:mod:`rtsched.gpu.layouts`) read
the tables. Both import this module, which imports neither.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rtsched.errors import InputError

__all__ = [
    "GPU_PRESETS",
    "MIG_SOURCE",
    "MIG_TABLES",
    "MIGProfile",
    "MIGTable",
    "check_layout_spec",
    "fixed_layout",
    "profile_of",
]


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


def _base_spec(text: str) -> str:
    """``text`` if it names a layout space (``free``, ``tpc:<k>``, ``mig:<table>``), else an InputError."""
    if text == "free":
        return text
    if (match := re.fullmatch(r"tpc:([0-9]+)", text)) and int(match.group(1)) >= 1:
        return text
    if match := re.fullmatch(r"mig:([A-Za-z0-9_-]+)", text):
        if match.group(1) in MIG_TABLES:
            return text
        raise InputError(
            f"unknown MIG profile table {match.group(1)!r}; choose one of {', '.join(MIG_TABLES)}", field="layout"
        )
    raise InputError(
        f"unknown layout {text!r}; use free, tpc:<SMs per TPC> or mig:<{'|'.join(MIG_TABLES)}>, or a layout "
        "such as 4+2+1 (mig:a100=4g.20gb+2g.10gb+1g.5gb)",
        field="layout",
    )


def profile_of(table: str, item: str) -> MIGProfile:
    """The profile of MIG table ``table`` named ``item`` (``4g.20gb``), or the only one of ``item`` slices."""
    profiles = MIG_TABLES[table].profiles
    named = [p for p in profiles if p.name == item.lower()]
    if not named and item.isdigit():
        named = [p for p in profiles if p.slices == int(item)][:1]  # the narrowest of that size
    if not named:
        raise InputError(
            f"no MIG profile {item!r} on mig:{table}; its profiles: " + ", ".join(p.name for p in profiles),
            field="layout",
        )
    return named[0]


def fixed_layout(spec: str) -> tuple[str, tuple[str, ...]] | None:
    """``(space, items)`` of a given layout ``<space>=<item>+<item>...`` (canonical form), else None."""
    base, sep, items = spec.partition("=")
    return (base, tuple(items.split("+"))) if sep else None


def check_layout_spec(spec: object) -> str:
    """The canonical form of ``spec`` if it names a layout space or one given layout, else an InputError.

    Layout spaces: ``free``, ``tpc:<k>``, ``mig:<table>``. One given layout (issue #46: evaluate a
    concrete layout): ``[<space>=]<item>+<item>+...``, each item a partition size (clusters, SMs or
    compute slices) or, on a MIG space, a profile name (``mig:a100=4g.20gb+2g.10gb+1g.5gb``); without
    a space, ``free``. Canonical form: ``<space>=<items>``, items by decreasing size (profile names
    kept as given in lower case; plain sizes on MIG become the narrowest profile of that size).
    """
    text = spec.strip() if isinstance(spec, str) else None
    if text is None:
        raise InputError(
            f"unknown layout {spec!r}; use free, tpc:<SMs per TPC> or mig:<{'|'.join(MIG_TABLES)}>", field="layout"
        )
    base, sep, items = text.partition("=")
    if not sep and not re.fullmatch(r"[0-9]+(\+[0-9]+)*", text):
        return _base_spec(text)
    if not sep:
        base, items = "free", text
    base = _base_spec(base.strip())
    parts = [item.strip() for item in items.split("+")]
    if not parts or any(not p for p in parts):
        raise InputError(f"bad layout {text!r}: partitions are joined by '+', e.g. 4+2+1", field="layout")
    if base.startswith("mig:"):
        profiles = [profile_of(base[4:], p) for p in parts]
        ordered = sorted(profiles, key=lambda p: (-p.slices, p.width, p.name))
        return f"{base}={'+'.join(p.name for p in ordered)}"
    if not all(p.isdigit() and int(p) >= 1 for p in parts):
        raise InputError(f"bad layout {text!r}: each partition is a positive whole number of clusters", field="layout")
    return f"{base}={'+'.join(str(v) for v in sorted((int(p) for p in parts), reverse=True))}"
