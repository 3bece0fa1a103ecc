"""Immutable analysis results and the report of :func:`rtsched.check`.

A :class:`Result` is one analysis's verdict on one task set with the evidence behind it: the
inequality that holds or fails, per-task response-time bounds, the interval where demand
exceeds supply, or a processor assignment. A :class:`Report` gathers the results of several
analyses for one task set, prints as a table and renders as HTML in a notebook.
"""

from __future__ import annotations

import html
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

if TYPE_CHECKING:
    from rtsched.model import TaskSet

__all__ = ["UNKNOWN", "Report", "Result", "Verdict", "freeze", "jsonable"]

UNKNOWN: Literal["unknown"] = "unknown"
#: ``True`` (proven schedulable / condition holds), ``False``, or ``"unknown"`` (budget ran out).
Verdict = bool | Literal["unknown"]


def freeze(value: Any) -> Any:
    """Return a deeply read-only copy: dicts become mapping proxies, lists become tuples."""
    if isinstance(value, Mapping):
        return MappingProxyType({k: freeze(v) for k, v in value.items()})
    if isinstance(value, list | tuple):
        return tuple(freeze(v) for v in value)
    if isinstance(value, np.ndarray):
        return tuple(freeze(v) for v in value.tolist())
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    if isinstance(value, np.bool_):
        return bool(value)
    return value


def jsonable(value: Any) -> Any:
    """Convert evidence to JSON types; a Fraction that is not whole becomes the string ``"p/q"``."""
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    if isinstance(value, Fraction):
        return int(value) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    if isinstance(value, np.bool_):
        return bool(value)
    return value


def _fmt(value: Any) -> str:
    if isinstance(value, Fraction):
        if value.denominator == 1:
            return str(value.numerator)
        return f"{value.numerator}/{value.denominator} (≈{float(value):.4g})"
    return str(value)


def verdict_text(verdict: Verdict, kind: str = "sufficient") -> str:
    """Human text for a verdict of an analysis of the given kind."""
    if verdict == UNKNOWN:
        return "unknown"
    if kind == "necessary":
        return "not refuted" if verdict else "NOT schedulable"
    if verdict:
        return "schedulable"
    return "NOT schedulable" if kind == "exact" else "not proven"


@dataclass(frozen=True)
class Result:
    """One analysis's verdict on one task set, with its evidence.

    Attributes
    ----------
    analysis:
        Registry name of the analysis.
    verdict:
        ``True``, ``False`` or ``"unknown"``. For a *sufficient* test ``False`` means "not
        proven"; for an *exact* test it means "not schedulable"; for a *necessary* test ``True``
        means only "not refuted".
    m:
        Number of processors the verdict is for.
    kind:
        ``"exact"``, ``"sufficient"`` or ``"necessary"``.
    summary:
        One line with the key evidence, as printed in tables.
    evidence:
        Read-only mapping of named quantities (exact Fractions where the paper has fractions).
    per_task:
        Read-only per-task evidence (one mapping per task, in input order), or empty.
    """

    analysis: str
    verdict: Verdict
    m: int
    kind: str
    summary: str
    evidence: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    per_task: Sequence[Mapping[str, Any]] = ()

    def __post_init__(self) -> None:
        if self.verdict not in (True, False, UNKNOWN):
            raise ValueError(f"verdict must be True, False or 'unknown', got {self.verdict!r}")
        object.__setattr__(self, "verdict", self.verdict if self.verdict == UNKNOWN else bool(self.verdict))
        object.__setattr__(self, "evidence", freeze(dict(self.evidence)))
        object.__setattr__(self, "per_task", freeze(list(self.per_task)))

    @property
    def schedulable(self) -> bool:
        """True only if this result *proves* the set schedulable (sufficient or exact test)."""
        return self.verdict is True and self.kind in ("exact", "sufficient")

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {
            "analysis": self.analysis,
            "verdict": self.verdict,
            "m": self.m,
            "kind": self.kind,
            "summary": self.summary,
            "evidence": jsonable(self.evidence),
            "per_task": jsonable(self.per_task),
        }

    def __str__(self) -> str:
        lines = [f"{self.analysis} ({self.kind}, m={self.m}): {verdict_text(self.verdict, self.kind)}", f"  {self.summary}"]
        for key, value in self.evidence.items():
            if isinstance(value, tuple | Mapping):
                continue
            lines.append(f"  {key} = {_fmt(value)}")
        if self.per_task:
            keys = list(dict.fromkeys(k for row in self.per_task for k in row))
            lines.append("  " + " | ".join(keys))
            for row in self.per_task:
                lines.append("  " + " | ".join(_fmt(row.get(k, "")) for k in keys))
        return "\n".join(lines)


def _policy_of(name: str) -> str:
    from rtsched.registry import get

    try:
        return get(name).policy
    except Exception:  # an analysis from outside the registry
        return "other"


@dataclass(frozen=True)
class Report:
    """Results of several analyses on one task set (what :func:`rtsched.check` returns)."""

    taskset: TaskSet
    m: int
    results: tuple[Result, ...]
    skipped: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))

    def __post_init__(self) -> None:
        object.__setattr__(self, "results", tuple(self.results))
        object.__setattr__(self, "skipped", MappingProxyType(dict(self.skipped)))

    @property
    def schedulable(self) -> bool:
        """True if some sufficient or exact analysis proves the set schedulable."""
        return any(r.schedulable for r in self.results)

    @property
    def verdicts(self) -> dict[str, Verdict]:
        """``{analysis name: verdict}`` in the order the analyses ran."""
        return {r.analysis: r.verdict for r in self.results}

    def __getitem__(self, name: str) -> Result:
        for r in self.results:
            if r.analysis == name:
                return r
        raise KeyError(name)

    def to_dict(self, index: int | None = None, explain: bool = False) -> dict[str, Any]:
        """JSON-ready: ``{"index": i, "verdicts": {...}}`` plus details when ``explain``."""
        out: dict[str, Any] = {}
        if index is not None:
            out["index"] = index
        if self.taskset.name:
            out["name"] = self.taskset.name
        out["m"] = self.m
        out["verdicts"] = dict(self.verdicts)
        out["schedulable"] = self.schedulable
        if explain:
            out["results"] = [r.to_dict() for r in self.results]
        if self.skipped:
            out["skipped"] = dict(self.skipped)
        return out

    def to_json(self, index: int | None = None, explain: bool = False) -> str:
        """One JSON object on one line."""
        return json.dumps(self.to_dict(index, explain), ensure_ascii=False)

    def table(self) -> str:
        """A plain-text table: analysis, kind, verdict, key evidence."""
        head = ("analysis", "kind", "verdict", "evidence")
        rows = [(r.analysis, r.kind, verdict_text(r.verdict, r.kind), r.summary) for r in self.results]
        rows += [(name, "-", "skipped", why) for name, why in self.skipped.items()]
        widths = [max(len(h), *(len(row[i]) for row in rows)) if rows else len(h) for i, h in enumerate(head)]
        widths[-1] = len(head[-1])
        fmt = "  ".join(f"{{:<{w}}}" for w in widths[:-1]) + "  {}"
        lines = [fmt.format(*head), fmt.format(*("-" * w for w in widths[:-1]), "-" * 8)]
        lines += [fmt.format(*row) for row in rows]
        return "\n".join(lines)

    def policy_verdicts(self) -> dict[str, str]:
        """Per scheduling policy: ``schedulable`` (some sufficient or exact test proves it),
        ``NOT schedulable`` (an exact test refutes it), ``unknown`` or ``not proven``."""
        policies: dict[str, list[Result]] = {}
        for r in self.results:
            policies.setdefault(_policy_of(r.analysis), []).append(r)
        out = {}
        for policy, results in policies.items():
            if any(r.schedulable for r in results):
                out[policy] = "schedulable"
            elif any(r.kind in ("exact", "necessary") and r.verdict is False for r in results):
                out[policy] = "NOT schedulable"
            elif any(r.verdict == UNKNOWN for r in results):
                out[policy] = "unknown"
            else:
                out[policy] = "not proven"
        return out

    def __str__(self) -> str:
        u = self.taskset.utilization
        title = self.taskset.name or "task set"
        per_policy = "; ".join(f"{p}: {v}" for p, v in self.policy_verdicts().items())
        header = f"{title}: n={self.taskset.n}, m={self.m}, U={_fmt(u)} -- {per_policy or 'no analysis ran'}"
        return header + "\n" + self.table()

    def _repr_html_(self) -> str:
        rows = "".join(
            f"<tr><td>{html.escape(r.analysis)}</td><td>{r.kind}</td>"
            f"<td style='color:{'green' if r.verdict is True else ('gray' if r.verdict == UNKNOWN else 'firebrick')}'>"
            f"{verdict_text(r.verdict, r.kind)}</td><td>{html.escape(r.summary)}</td></tr>"
            for r in self.results
        )
        return (
            f"<p><b>{html.escape(self.taskset.name or 'task set')}</b>: n={self.taskset.n}, m={self.m}, "
            f"U={html.escape(_fmt(self.taskset.utilization))}</p>"
            "<table><thead><tr><th>analysis</th><th>kind</th><th>verdict</th><th>evidence</th></tr></thead>"
            f"<tbody>{rows}</tbody></table>"
        )
