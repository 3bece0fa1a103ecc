"""An analysis's implementation digest covers what it calls through the registry (issue 41).

A sweep store keys verdicts by ``Analysis.implementation``; an analysis that runs another one
through the registry (``calls=``) must see its digest change when the called analysis's code
changes, or stored verdicts would survive a change that alters them.
"""

import importlib
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from rtsched import registry
from rtsched.registry import Analysis
from rtsched.result import Explanation

MODULE = '''
import numpy as np

from rtsched import registry
from rtsched.registry import Analysis
from rtsched.result import Explanation

CALLS = {calls!r}
BOUND = {bound}


def reference(ts, m):
    if CALLS:
        return registry.get(CALLS[0]).reference(ts, m)
    return sum(int(c) for c in ts.C) <= BOUND


def explain(ts, m):
    return Explanation(verdict=reference(ts, m), summary="probe")


def codes(batch, m):
    return np.array([1 if reference(ts, m) else 0 for ts in batch], dtype=np.int8)


ENTRY = Analysis(
    name={name!r}, title="probe", kind="sufficient", policy="global-edf", citation="none", note="none",
    reference=reference, explain=explain, codes=codes, calls=tuple(CALLS),
)
'''


@pytest.fixture
def probe_package(tmp_path, monkeypatch):
    """A throw-away package ``rtsched_probe_<id>`` whose modules declare analyses, registered in a copy of the registry."""
    package = f"rtsched_probe_{id(tmp_path)}"
    folder = tmp_path / package
    folder.mkdir()
    (folder / "__init__.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(registry, "_entries", dict(registry._discover()))
    monkeypatch.setattr(registry, "_aliases", dict(registry._aliases))
    yield package, folder
    registry._source_digest.cache_clear()
    for name in [m for m in sys.modules if m.startswith(package)]:
        del sys.modules[name]


def write_module(folder: Path, module: str, *, name: str, calls: tuple[str, ...] = (), bound: int = 10) -> None:
    (folder / f"{module}.py").write_text(textwrap.dedent(MODULE.format(name=name, calls=list(calls), bound=bound)))


def test_changing_a_called_module_changes_the_callers_fingerprint(probe_package):
    package, folder = probe_package
    write_module(folder, "callee", name="probe-callee", bound=10)
    write_module(folder, "caller", name="probe-caller", calls=("probe-callee",))
    write_module(folder, "bystander", name="probe-bystander", bound=7)
    importlib.invalidate_caches()
    for module in ("callee", "caller", "bystander"):
        registry.register(importlib.import_module(f"{package}.{module}").ENTRY)
    caller, callee, bystander = (registry.get(f"probe-{n}") for n in ("caller", "callee", "bystander"))
    before = (caller.implementation, callee.implementation, bystander.implementation, caller.own_implementation)
    assert caller.implementation != caller.own_implementation  # the callee's digest is in it

    write_module(folder, "callee", name="probe-callee", bound=11)  # the callee's code changes, the caller's not
    registry._source_digest.cache_clear()
    after = (caller.implementation, callee.implementation, bystander.implementation, caller.own_implementation)
    assert after[1] != before[1], "the changed module's own digest changes"
    assert after[0] != before[0], "the caller's digest follows the callee's change"
    assert after[3] == before[3], "the caller's own source did not change"
    assert after[2] == before[2], "an analysis that calls neither keeps its digest"


def test_gedf_upper_covers_the_exact_engine(monkeypatch):
    """The bug issue 41 names: gedf-upper runs ``exact`` through the registry, so its digest covers exact's source."""
    upper, exact, gfb = registry.get("gedf-upper"), registry.get("exact"), registry.get("gfb")
    assert "exact" in upper.calls
    before = (upper.implementation, gfb.implementation)
    real = registry._source_digest
    exact_module = exact._reference.__module__

    def edited(module: str) -> str:  # the exact engine's source as if edited
        return "edited" if module == exact_module else real(module)

    monkeypatch.setattr(registry, "_source_digest", edited)
    assert upper.implementation != before[0]
    assert gfb.implementation == before[1]


def test_a_cycle_of_calls_is_an_error(monkeypatch):
    monkeypatch.setattr(registry, "_entries", dict(registry._discover()))

    def reference(ts, m):
        return True

    def explain(ts, m):
        return Explanation(verdict=True, summary="")

    def codes(batch, m):
        return np.ones(batch.n_sets, dtype=np.int8)

    common = dict(kind="sufficient", policy="global-edf", citation="-", note="-", reference=reference, explain=explain, codes=codes)
    registry.register(
        Analysis(name="probe-a", title="a", calls=("probe-b",), **common),
        Analysis(name="probe-b", title="b", calls=("probe-a",), **common),
    )
    with pytest.raises(RuntimeError, match="calls itself"):
        _ = registry.get("probe-a").implementation


def test_every_analysis_digest_hashes_its_module_partials_unwrapped():
    """An analysis whose reference is a functools.partial (the mc-* FP family registers them so) hashes the
    module of the function it wraps: a partial has no __module__, and hashing no source kept stale stored
    verdicts after the code changed (found in session 20)."""
    import functools
    import hashlib

    empty = hashlib.sha256().hexdigest()
    for entry in registry.all_entries():
        assert entry.own_implementation != empty, entry.name
    partials = [e for e in registry.all_entries() if isinstance(e._reference, functools.partial)]
    assert partials, "the mc-* FP analyses register partial references"
    for entry in partials:
        func = entry._reference
        while isinstance(func, functools.partial):
            func = func.func
        assert entry.own_implementation == registry._source_digest(func.__module__), entry.name
