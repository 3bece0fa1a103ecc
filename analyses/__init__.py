"""Schedulability analyses, one module per published test (installed as ``rtsched.analyses``).

Use the registry, never a module directly, from the CLI, sweeps and tests::

    from rtsched import analyses
    analyses.names()                 # ['gfb', ...]
    entry = analyses.get("gfb")      # Analysis: citation, kind, batch, explain, reference
    entry.explain(taskset, m=4)      # Result with the evidence

A module declares ``ANALYSES`` (and optionally ``FAMILIES``); see :mod:`rtsched.registry`.
"""

from rtsched.registry import Analysis, Family, all_entries, get, names, resolve_list

__all__ = ["Analysis", "Family", "all_entries", "get", "names", "resolve_list"]
