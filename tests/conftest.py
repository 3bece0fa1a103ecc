"""Hypothesis profiles: ``dev`` (default) and ``ci`` (derandomized, no deadline); the SchedCAT cases;
the ``reach`` counters that property tests fill and the run prints at its end."""

import json
import os
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("dev", max_examples=100, deadline=None)
settings.register_profile(
    "ci",
    max_examples=100,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
    print_blob=True,
)
settings.register_profile("long", max_examples=5000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))

# The SchedCAT cases vendored with the tests (see data/README.md). Modules that parametrize over
# them at collection time build the same path themselves (conftest is not importable under
# --import-mode=importlib); every other test takes the ``schedcat_cases`` fixture.
SCHEDCAT_CASES = Path(__file__).parent / "data" / "schedcat_cases.jsonl"


@pytest.fixture(scope="session")
def schedcat_cases() -> list[dict]:
    """Every case of data/schedcat_cases.jsonl, one dict per line, in file order."""
    return [json.loads(line) for line in SCHEDCAT_CASES.read_text().splitlines()]


_REACH: pytest.StashKey[dict[str, Counter]] = pytest.StashKey()


@pytest.fixture
def reach(request: pytest.FixtureRequest) -> Counter:
    """A counter of the branches a property reached (e.g. "exact rejects"), printed at the end of
    the run under "property reach", so a property that never reaches its refuting branch shows."""
    table = request.config.stash.setdefault(_REACH, {})
    return table.setdefault(request.node.nodeid, Counter())


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
    table = config.stash.get(_REACH, {})
    if table:
        terminalreporter.section("property reach (examples per branch)")
        for nodeid, counts in table.items():
            shown = ", ".join(f"{k}: {v}" for k, v in sorted(counts.items()))
            terminalreporter.write_line(f"{nodeid}: {shown}")
