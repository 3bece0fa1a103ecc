"""The report of a GPU analysis as a terminal table (:func:`~rtsched.gpu.format_gpu_report`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from rtsched.result import UNKNOWN, count, show_number

__all__ = ["format_gpu_comparison", "format_gpu_report", "table", "verdict_word"]


def verdict_word(v: Any) -> str:
    """``SCHEDULABLE``, ``UNKNOWN`` or ``NOT PROVEN SCHEDULABLE``."""
    return "SCHEDULABLE" if v is True else ("UNKNOWN" if v == UNKNOWN else "NOT PROVEN SCHEDULABLE")


def table(header: list[str], rows: list[list[str]], indent: str = "  ") -> list[str]:
    """Lines of an aligned text table (numbers right-aligned, text left-aligned)."""
    widths = [max(len(header[j]), *(len(r[j]) for r in rows)) if rows else len(header[j]) for j in range(len(header))]

    def numeric(j: int) -> bool:
        return bool(rows) and all(
            r[j].replace("/", "").replace(".", "").replace("≈", "").isdigit() or r[j] == "-" for r in rows
        )

    def line(cells: list[str]) -> str:
        return (
            indent
            + "  ".join(
                c.rjust(w) if numeric(j) else c.ljust(w) for j, (c, w) in enumerate(zip(cells, widths, strict=True))
            ).rstrip()
        )

    return [line(header), indent + "  ".join("-" * w for w in widths), *(line(r) for r in rows)]


def _given(report: Mapping[str, Any]) -> str:
    """The layout space in words: ``mig:a100``, or the given layout ``4+2+1 (free)``."""
    space = str(report.get("layout_space", "free"))
    base, sep, items = space.partition("=")
    return f"given layout {items} ({base})" if sep else space


def format_gpu_report(report: Mapping[str, Any]) -> str:
    """The terminal table of a GPU analysis's report (``explain(...).evidence["report"]``).

    ``report`` has the keys of ``rtsched.analyses.gpu.partitioning.GPUReport.as_evidence`` (exact numbers or
    their JSON form): the workload's name, the allocation (layout, partitions, reason, what the
    search does), the per-kernel rows and the baseline's verdict. Times are integer ticks.
    """
    kernels = list(report["kernels"])
    labels = [row["kernel"] for row in kernels]
    verdict = report["verdict"]
    title = report.get("name") or "GPU workload"
    M = report["clusters"]
    lines = [
        f"{title}: {len(kernels)} kernels, M = {M} clusters, heuristic {report['heuristic']}: {verdict_word(verdict)}"
    ]
    if report.get("search"):
        lines.append(f"  search: {report['search']}")
    if verdict is True:
        idle = report["idle_clusters"]
        lines.append(
            f"layout {'+'.join(map(str, report['layout']))}"
            + (f" (+{idle} idle)" if idle else "")
            + (f" [{_given(report)}]" if report.get("layout_space", "free") != "free" else "")
            + f"; each kernel contends with {count(report['contention_others'], 'other partition')}"
            + (" (co-runner-aware factors)" if report.get("interference") == "co-runner" else "")
        )
        rows = []
        for p_index, p in enumerate(report["partitions"]):
            u = Fraction(p["utilization"]) if not isinstance(p["utilization"], Fraction) else p["utilization"]
            rows.append(
                [
                    f"P{p_index}",
                    str(p["size"]),
                    p["test"],
                    verdict_word(p["verdict"]),
                    show_number(u, ".3f"),
                    ", ".join(labels[i] for i in p["kernels"]),
                ]
            )
        lines += table(["partition", "clusters", "test", "verdict", "load U'", "kernels"], rows)
    else:
        lines.append(f"  {report['reason']}")
    columns = ("kernel", "D", "T", "preemptive", "partition", "C(s)", "f", "C'")
    lines.append("kernels (D, T, C(s) and C' in ticks; f the slowdown factor, C' = ⌈C(s)·f⌉):")
    lines += table(list(columns), [[str(row[k]) if row[k] is not None else "-" for k in columns] for row in kernels])
    lines.append(
        f"baseline (GPU as one resource, {M} clusters, no contention): {verdict_word(report['baseline']['verdict'])}"
    )
    return "\n".join(lines)


def format_gpu_comparison(reports: Sequence[Mapping[str, Any]]) -> str:
    """Given layouts side by side (``rtsched gpu FILE --layout 4+3 --layout 2+4``): one row each.

    Per layout: the verdict, the partitions in use with their clusters and loads U' = Σ C'/T (exact,
    shown to 3 decimals), the idle clusters and, when no allocation passes, why.
    """
    rows = []
    for r in reports:
        space = str(r.get("layout_space", "free"))
        given = space.partition("=")[2] or space
        if r["verdict"] is True:
            loads = "  ".join(
                f"{p['size']}: "
                + show_number(
                    Fraction(p["utilization"]) if not isinstance(p["utilization"], Fraction) else p["utilization"],
                    ".3f",
                )
                for p in r["partitions"]
            )
            rows.append([given, verdict_word(True), "+".join(map(str, r["layout"])), str(r["idle_clusters"]), loads])
        else:
            rows.append([given, verdict_word(r["verdict"]), "-", "-", str(r["reason"])])
    first = reports[0]
    head = (
        f"{first.get('name') or 'GPU workload'}: {len(first['kernels'])} kernels, M = {first['clusters']} clusters, "
        f"{len(reports)} given layouts, heuristic {first['heuristic']} (kernels placed on the given partitions; "
        "a partition left without a kernel is idle)"
    )
    return "\n".join(
        [head, *table(["given layout", "verdict", "in use", "idle", "clusters: load U' per partition"], rows)]
    )
