"""The report of a GPU analysis as a terminal table (:func:`format_gpu_report`)."""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from rtsched.result import UNKNOWN, count, show_number

__all__ = ["format_gpu_report", "verdict_word"]


def verdict_word(v: Any) -> str:
    """``SCHEDULABLE``, ``UNKNOWN`` or ``NOT PROVEN SCHEDULABLE``."""
    return "SCHEDULABLE" if v is True else ("UNKNOWN" if v == UNKNOWN else "NOT PROVEN SCHEDULABLE")


def format_gpu_report(report: Mapping[str, Any]) -> str:
    """The terminal table of a GPU analysis's report (``explain(...).evidence["report"]``).

    ``report`` has the keys of :meth:`rtsched.analyses.gpu.partitioning.GPUReport.as_evidence` (exact numbers or
    their JSON form): the workload's name, the allocation (layout, partitions, reason), the
    per-kernel rows and the baseline's verdict.
    """
    kernels = list(report["kernels"])
    labels = [row["kernel"] for row in kernels]
    verdict = report["verdict"]
    title = report.get("name") or "GPU workload"
    M = report["clusters"]
    lines = [
        f"{title}: {len(kernels)} kernels, M = {M} clusters, heuristic {report['heuristic']}: {verdict_word(verdict)}"
    ]
    if verdict is True:
        idle = report["idle_clusters"]
        lines.append(
            f"layout {'+'.join(map(str, report['layout']))}"
            + (f" (+{idle} idle)" if idle else "")
            + (f" [{report['layout_space']}]" if report.get("layout_space", "free") != "free" else "")
            + f"; each kernel contends with {count(report['contention_others'], 'other partition')}"
            + (" (co-runner-aware factors)" if report.get("interference") == "co-runner" else "")
        )
        for p_index, p in enumerate(report["partitions"]):
            u = Fraction(p["utilization"]) if not isinstance(p["utilization"], Fraction) else p["utilization"]
            lines.append(
                f"  P{p_index} [{count(p['size'], 'cluster')}] {p['test']}: {verdict_word(p['verdict'])}, "
                f"U' = {show_number(u, '.3f')}: " + ", ".join(labels[i] for i in p["kernels"])
            )
    else:
        lines.append(f"  {report['reason']}")
    columns = ("kernel", "D", "T", "preemptive", "partition", "C(s)", "f", "C'")
    lines.append("  " + " | ".join(columns))
    for row in kernels:
        lines.append("  " + " | ".join(str(row[k]) if row[k] is not None else "-" for k in columns))
    lines.append(
        f"baseline (GPU as one resource, {M} clusters, no contention): {verdict_word(report['baseline']['verdict'])}"
    )
    return "\n".join(lines)
