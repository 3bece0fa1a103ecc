"""Hypothesis profiles: ``dev`` (default) and ``ci`` (derandomized, no deadline); the SchedCAT cases."""

import json
import os
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
