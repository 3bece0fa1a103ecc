"""The analyses catalogue: every entry of :mod:`rtsched.registry`, with a worked example computed at build time."""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from rtsched import registry
from rtsched.platform import Platform

__all__ = ["catalogue_markdown", "example_input", "worked_example", "write_catalogue"]

_INPUT_TITLES = {
    "taskset": "Sporadic task sets",
    "gpu-workload": "GPU workloads",
    "dag": "Parallel DAG tasks",
    "mc": "Mixed-criticality task sets",
    "segmented": "CPU-GPU segmented tasks",
}


def example_input(entry: registry.Analysis) -> tuple[Any, Platform | int]:
    """A small input of the analysis's workload kind and the platform to ask about.

    The first item of the kind's probe (the inputs that compile every kernel of an analysis,
    :meth:`rtsched.workloads.WorkloadKind.probe`): tiny, valid for the analysis's deadline models
    and platform, and fast for the exact Python references.
    """
    batch, platform = entry.workload.probe(entry.deadlines, entry.platform)
    return next(iter(batch)), platform


def _describe(item: Any) -> str:
    kernels = getattr(item, "kernels", None)
    if kernels is not None:  # a GPU workload: its repr spells out every default field
        parts = [f"(C={tuple(k.wcet.values)}, D={k.D}, T={k.T})" for k in kernels]
        return f"GPU workload of {len(parts)} kernels (C per partition size, D, T): " + ", ".join(parts)
    return repr(item)


def worked_example(entry: registry.Analysis) -> dict[str, str]:
    """The analysis's :meth:`~rtsched.registry.Analysis.explain` on :func:`example_input`.

    Returns the input (``input``), the platform (``platform``), the verdict (``verdict``), the
    one-line summary (``summary``) and the failing term if the analysis names one (``failing``).
    """
    item, platform = example_input(entry)
    result = entry.explain(item, platform)
    failing = result.evidence.get("failing_term") if isinstance(result.evidence, dict) else None
    return {
        "input": _describe(item),
        "platform": str(platform),
        "verdict": str(result.verdict),
        "summary": result.summary,
        "failing": "" if failing is None else str(failing),
    }


_SPECIAL = re.compile(r"([\\`*_<>|\[\]$#])")


def _cell(text: object) -> str:
    """``text`` as literal Markdown on one line (every character that Markdown reads escaped)."""
    return _SPECIAL.sub(r"\\\1", str(text).replace("\n", " "))


def _entry(entry: registry.Analysis) -> list[str]:
    budget = "none (always finishes)" if entry.budget is None else f"{entry.budget} {entry.budget_unit}"
    note = Path(entry.note).stem if entry.note else ""
    rows = [
        ("title", entry.title),
        ("kind", entry.kind),
        ("policy", entry.policy),
        ("platform", entry.platform),
        ("deadline models", ", ".join(entry.deadlines)),
        ("budget", budget),
        ("workload kind", entry.input),
        ("in the default list", "yes" if entry.featured else "no"),
        ("citation", entry.citation),
    ]
    if entry.aliases:
        rows.append(("aliases", ", ".join(f"`{a}`" for a in entry.aliases)))
    if entry.calls:
        rows.append(("runs through the registry", ", ".join(f"`{c}`" for c in entry.calls)))
    lines = [f"(analysis-{_anchor(entry.name)})=", f"### `{entry.name}`", "", "| | |", "|---|---|"]
    lines += [f"| {key} | {_cell(value)} |" for key, value in rows]
    if note:
        lines.append(f"| paper note | {{doc}}`papers/{note}` |")
    example = worked_example(entry)
    lines += [
        "",
        f"Worked example, computed when this page was built: `{entry.name}` on `{example['platform']}` and",
        "",
        "```text",
        example["input"],
        "```",
        "",
        f"verdict **{example['verdict']}**: {_cell(example['summary'])}",
    ]
    if example["failing"]:
        lines.append(f" (failing term: {_cell(example['failing'])})")
    lines += [
        "",
        "```python",
        "from rtsched import registry",
        f"registry.get({entry.name!r}).explain(item, platform)  # item and platform as above",
        "```",
        "",
    ]
    return lines


def _anchor(name: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in name)


def catalogue_markdown(entries: Iterable[registry.Analysis] | None = None) -> str:
    """The catalogue page (MyST Markdown): a summary table, then one section per analysis."""
    entries = list(registry.all_entries() if entries is None else entries)
    by_input: dict[str, list[registry.Analysis]] = {}
    for entry in entries:
        by_input.setdefault(entry.input, []).append(entry)
    lines = [
        "# Analyses catalogue",
        "",
        f"Every analysis of the registry ({len(entries)} entries), generated from",
        "{py:mod}`rtsched.registry` when the site is built. `rtsched list` prints the same table;",
        "{py:func}`rtsched.check` takes these names (`tests=[...]`), and so do `rtsched check -t` and",
        "the experiment files. Parametrised families (names built from parts) are listed at the end.",
        "Each entry ends with a worked example: the analysis's `explain()` on a tiny input of its",
        "workload kind, run while the page was built.",
        "",
        "| name | title | kind | policy | platform | deadlines | input |",
        "|---|---|---|---|---|---|---|",
    ]
    for entry in entries:
        link = f"[`{entry.name}`](#analysis-{_anchor(entry.name)})"
        lines.append(
            f"| {link} | {_cell(entry.title)} | {entry.kind} | {entry.policy} | {entry.platform} "
            f"| {', '.join(entry.deadlines)} | {entry.input} |"
        )
    lines.append("")
    for kind, group in by_input.items():
        lines += [f"## {_INPUT_TITLES.get(kind, kind)} (`{kind}`)", ""]
        for entry in group:
            lines += _entry(entry)
    lines += ["## Parametrised families", ""]
    lines += [f"- {_cell(text)}" for text in registry.families()]
    return "\n".join(lines) + "\n"


def write_catalogue(path: Path) -> Path:
    """Write the catalogue page to ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(catalogue_markdown(), encoding="utf-8")
    return path
