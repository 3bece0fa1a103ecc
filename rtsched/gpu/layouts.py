"""Partition mechanisms as data: which layouts (multisets of partition sizes) a GPU allows.

A *layout space* says which splits of a GPU's ``M`` compute clusters into partitions the hardware
can build (papers/zahaf2021-gpu-partitioning.md, "Partition mechanisms"):

``free``
    Any integer partition s_1 + … + s_K ≤ M (rtsched's original model; the default).
``tpc:<k>``
    SM masking at TPC granularity (Bakita & Anderson, "Hardware compute partitioning on NVIDIA
    GPUs", RTAS 2023, the libsmctrl library): the clusters are SMs, a partition is a set of whole
    TPCs of ``k`` SMs each (k = 2 on the GPUs of that paper), any TPC to any partition; sizes are
    multiples of k with Σ ≤ M (or the whole GPU, all M SMs, unmasked).
``mig:<table>``
    NVIDIA Multi-Instance GPU (MIG): partitions are GPU instances of fixed profiles at fixed
    placements (:data:`MIG_TABLES`: ``a100``, ``h100``), on M = 7 compute slices. Source: NVIDIA
    Multi-Instance GPU User Guide, section "Supported MIG Profiles" (profile tables: 1g, 2g, 3g,
    4g, 7g with their fractions of SMs and memory) and section "Getting Started with MIG", "List
    GPU Instance Profiles" (the placements printed by ``nvidia-smi mig -lgipp``: each profile
    occupies ``width`` of 8 memory-slice positions starting at one of its allowed starts, e.g.
    ``{0,4}:4`` for 3g; the listing as quoted by third-party pages, see the note). Instances may not overlap; so 3g + 3g is legal (one compute slice idle)
    and 4g + 3g is legal, but 3g + 3g + 1g is not.

Every space is *downward closed* (checked by the tests): removing a partition, or shrinking one
to a smaller allowed size, keeps a layout legal. With WCETs non-increasing in the size (A1) this
is what lets the exhaustive search round each block's smallest passing size up to an allowed size
and test only the multiset of those sizes (analyses/gpu/partitioning.py).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from functools import cached_property

from rtsched.errors import InputError
from rtsched.gpu.mig import (
    GPU_PRESETS,
    MIG_SOURCE,
    MIG_TABLES,
    MIGProfile,
    MIGTable,
    check_layout_spec,
    fixed_layout,
    profile_of,
)
from rtsched.gpu.model import check_clusters, layouts

__all__ = [
    "GPU_PRESETS",
    "MIG_SOURCE",
    "MIG_TABLES",
    "FixedLayout",
    "FreeLayouts",
    "LayoutSpace",
    "MIGLayouts",
    "MIGProfile",
    "MIGTable",
    "TPCLayouts",
    "check_layout_spec",
    "layout_space",
]


class LayoutSpace:
    """The legal layouts of one mechanism on ``M`` clusters (subclasses: free, TPC, MIG).

    ``additive`` spaces allow any multiset of allowed sizes with Σ ≤ M (free, TPC); the others
    list their legal multisets (MIG).
    """

    spec: str = "free"
    additive: bool = True

    def __init__(self, M: int) -> None:
        self.M = check_clusters(M)

    @cached_property
    def sizes(self) -> tuple[int, ...]:
        """The allowed partition sizes, increasing."""
        return tuple(range(1, self.M + 1))

    def round_up(self, s: int) -> int | None:
        """The smallest allowed size ≥ ``s`` (None: none)."""
        return next((a for a in self.sizes if a >= s), None)

    @property
    def capacity(self) -> int:
        """Σ of sizes an additive layout may reach."""
        return self.M

    def legal(self, sizes: tuple[int, ...]) -> bool:
        """Whether a multiset of partition sizes can be built at once (the whole GPU always can)."""
        allowed = set(self.sizes)
        return tuple(sizes) == (self.M,) or (all(s in allowed for s in sizes) and sum(sizes) <= self.capacity)

    def place(self, needs: Sequence[int]) -> tuple[int, ...] | None:
        """Partition sizes of one legal layout for blocks that need at least ``needs`` (any order).

        Returns the sizes in the order of ``needs``, or None if no legal layout holds them. Here
        (free, TPC, MIG) the legal layouts are closed under shrinking a partition to an allowed
        size, so the needs themselves are the layout if they are legal; a given layout (``FixedLayout``),
        whose partitions are given, places each need on a partition at least as large.
        """
        return tuple(needs) if self.legal(tuple(sorted(needs, reverse=True))) else None

    def maximal(self, K: int) -> Iterator[tuple[int, ...]]:
        """The legal layouts of K partitions no other K-partition layout dominates, decreasing lex."""
        return layouts(self.M, K)

    def all_legal(self) -> list[tuple[int, ...]]:
        """Every legal non-empty layout (sorted decreasing), for tests and brute force."""
        out: list[tuple[int, ...]] = []

        def grow(prefix: tuple[int, ...]) -> None:
            for s in self.sizes:
                if prefix and s > prefix[-1]:
                    break
                cand = (*prefix, s)
                if self.legal(cand):
                    out.append(cand)
                    grow(cand)

        for s in reversed(self.sizes):
            if self.legal((s,)):
                out.append((s,))
                grow((s,))
        return out

    def __str__(self) -> str:
        return self.spec


class FreeLayouts(LayoutSpace):
    """Any integer partition of M (rtsched's original model)."""


class TPCLayouts(LayoutSpace):
    """Whole TPCs of ``k`` SMs each (Bakita & Anderson, RTAS 2023): sizes k, 2k, …, Σ ≤ M."""

    def __init__(self, M: int, k: int) -> None:
        super().__init__(M)
        if not 1 <= k <= self.M:
            raise InputError(f"a TPC must hold 1..M = {self.M} clusters (SMs), got tpc:{k}", field="layout")
        self.k = k
        self.spec = f"tpc:{k}"

    @cached_property
    def sizes(self) -> tuple[int, ...]:
        """Multiples of k up to M, and M (the whole GPU, unmasked)."""
        return tuple(sorted({*range(self.k, self.M + 1, self.k), self.M}))

    @property
    def capacity(self) -> int:
        """k·⌊M/k⌋: the SMs of whole TPCs."""
        return self.k * (self.M // self.k)

    def maximal(self, K: int) -> Iterator[tuple[int, ...]]:
        """The integer partitions of ⌊M/k⌋ TPCs into K parts, times k; for K = 1 the whole GPU."""
        if K == 1:
            yield (self.M,)
            return
        for parts in layouts(self.M // self.k, K):
            yield tuple(self.k * p for p in parts)


class MIGLayouts(LayoutSpace):
    """GPU instances of a MIG profile table at their allowed placements (M = 7 compute slices)."""

    additive = False

    def __init__(self, M: int, table: str) -> None:
        super().__init__(M)
        if table not in MIG_TABLES:
            raise InputError(
                f"unknown MIG profile table {table!r}; choose one of {', '.join(MIG_TABLES)}", field="layout"
            )
        self.table = MIG_TABLES[table]
        if self.M != self.table.compute_slices:
            raise InputError(
                f"mig:{table} partitions {self.table.compute_slices} compute slices, so M must be "
                f"{self.table.compute_slices}, got {self.M}",
                field="clusters",
            )
        self.spec = f"mig:{table}"

    @cached_property
    def sizes(self) -> tuple[int, ...]:
        """The profiles' compute-slice counts."""
        return tuple(sorted({p.slices for p in self.table.profiles}))

    @cached_property
    def _legal(self) -> frozenset[tuple[int, ...]]:
        """Every multiset of slice counts of non-overlapping placed instances (the empty one too)."""
        placements = [(p.slices, ((1 << p.width) - 1) << start) for p in self.table.profiles for start in p.starts]
        found: set[tuple[int, ...]] = set()

        def place(first: int, used: int, sizes: tuple[int, ...]) -> None:
            found.add(tuple(sorted(sizes, reverse=True)))
            for j in range(first, len(placements)):
                slices, bits = placements[j]
                if not used & bits:
                    place(j + 1, used | bits, (*sizes, slices))

        place(0, 0, ())
        return frozenset(found)

    def legal(self, sizes: tuple[int, ...]) -> bool:
        """Whether instances of these slice counts fit at once at the profiles' placements."""
        return tuple(sorted(sizes, reverse=True)) in self._legal

    def maximal(self, K: int) -> Iterator[tuple[int, ...]]:
        """Legal K-instance layouts not dominated (sorted, elementwise) by another, decreasing lex."""
        same = [x for x in self._legal if len(x) == K]
        keep = [x for x in same if not any(y != x and all(a >= b for a, b in zip(y, x, strict=True)) for y in same)]
        yield from sorted(keep, reverse=True)


def _placeable(profiles: list[MIGProfile], positions: int) -> bool:
    """Whether instances of exactly these profiles fit at once at their allowed placements."""
    ordered = sorted(profiles, key=lambda p: (-p.width, len(p.starts)))

    def place(j: int, used: int) -> bool:
        if j == len(ordered):
            return True
        p = ordered[j]
        for start in p.starts:
            bits = ((1 << p.width) - 1) << start
            if start + p.width <= positions and not used & bits and place(j + 1, used | bits):
                return True
        return False

    return place(0, 0)


class FixedLayout(LayoutSpace):
    """One given layout (``4+2+1``, ``mig:a100=4g.20gb+3g.20gb``): its partitions, some left idle.

    Issue #46: evaluate a concrete layout rather than search a mechanism's layouts. The given
    layout must be legal in its space (MIG: the named profiles placed at once); the layouts this
    space allows are the given one and its sub-multisets (a partition that holds no kernel stays
    idle, and idle clusters run no other work: assumption B3 of the GPU note). Unlike the other
    spaces it is not closed under shrinking a partition (1+1 is not a layout of 2+1), so the
    exhaustive search places blocks with :meth:`place`. The searches (ffd/bfd: K largest
    partitions for K = 1, 2, …; exhaustive: any sub-multiset) only place kernels on partitions
    of the given layout.
    """

    additive = False

    def __init__(self, M: int, spec: str) -> None:
        super().__init__(M)
        given = fixed_layout(spec)
        assert given is not None
        base_spec, items = given
        base = layout_space(base_spec, self.M)
        if isinstance(base, MIGLayouts):
            profiles = [profile_of(base_spec[4:], item) for item in items]
            sizes = tuple(p.slices for p in profiles)
            ok = _placeable(profiles, base.table.positions)
        else:
            sizes = tuple(int(item) for item in items)
            ok = base.legal(tuple(sorted(sizes, reverse=True)))
        if not ok:
            raise InputError(
                f"layout {spec.partition('=')[2]} cannot be built on {base_spec} with {self.M} clusters "
                f"(its legal layouts with {len(sizes)} partitions include "
                + (", ".join("+".join(map(str, x)) for x in list(base.maximal(len(sizes)))[:4]) or "none")
                + ")",
                field="layout",
            )
        self.base, self.layout, self.spec = base, tuple(sorted(sizes, reverse=True)), spec

    @cached_property
    def sizes(self) -> tuple[int, ...]:
        """The given layout's partition sizes, increasing."""
        return tuple(sorted(set(self.layout)))

    def legal(self, sizes: tuple[int, ...]) -> bool:
        """Whether ``sizes`` is the given layout or a part of it (the rest idle)."""
        return not Counter(sizes) - Counter(self.layout)

    def place(self, needs: Sequence[int]) -> tuple[int, ...] | None:
        """The given layout's partitions for blocks needing at least ``needs``, in their order.

        A block may run on a partition larger than it needs (WCETs are non-increasing in the
        size, A1), so a sub-multiset of the layout is not required of the needs themselves: the
        largest need takes the smallest free partition that holds it, then the next (this finds
        a placement whenever one exists: a partition taken for a need could serve every smaller
        need as well). None if some need finds no partition.
        """
        free = sorted(self.layout)
        out: dict[int, int] = {}
        for i in sorted(range(len(needs)), key=lambda i: -needs[i]):
            j = next((j for j, size in enumerate(free) if size >= needs[i]), None)
            if j is None:
                return None
            out[i] = free.pop(j)
        return tuple(out[i] for i in range(len(needs)))

    def maximal(self, K: int) -> Iterator[tuple[int, ...]]:
        """The K largest partitions of the given layout (K ≤ its number of partitions)."""
        if 1 <= K <= len(self.layout):
            yield self.layout[:K]


def layout_space(spec: str | None, M: int) -> LayoutSpace:
    """The layout space named ``spec`` on ``M`` clusters.

    ``spec``: ``free``, ``tpc:<k>``, ``mig:<table>``, or one given layout ``<space>=<sizes>``
    (``FixedLayout``).
    """
    text = check_layout_spec("free" if spec is None else spec)
    if "=" in text:
        return FixedLayout(M, text)
    if text.startswith("tpc:"):
        return TPCLayouts(M, int(text[4:]))
    if text.startswith("mig:"):
        return MIGLayouts(M, text[4:])
    return FreeLayouts(M)
