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


@pytest.fixture(scope="session")
def schedcat_peer(schedcat_cases: list[dict]):
    """Select SchedCAT cases by one of SchedCAT's results: ``schedcat_peer(key, at_least=N)`` is
    the list of ``(case, taskset, peer)`` for every case with tasks, m and a result under ``key``
    (``peer`` is all of SchedCAT's results; the task set is read under the arbitrary-deadline
    model), and fails unless there are at least N of them (a test cannot pass on no cases).
    ``verdicts_only`` keeps the verdict cases; ``constrained`` the constrained-deadline sets."""
    from rtsched import TaskSet

    def select(key: str, *, at_least: int, verdicts_only: bool = True, constrained: bool = False):
        selected = []
        for case in schedcat_cases:
            peer = case.get("schedcat_computed", {})
            if key not in peer or not case.get("tasks") or not case.get("m"):
                continue
            if verdicts_only and case["kind"] != "verdict":
                continue
            taskset = TaskSet.from_tasks(case["tasks"], deadlines="arbitrary")
            if constrained and not taskset.is_constrained:
                continue
            selected.append((case, taskset, peer))
        assert len(selected) >= at_least, f"{len(selected)} SchedCAT cases with {key!r}, expected at least {at_least}"
        return selected

    return select


class CountingFile:
    """A binary file that counts the bytes read through it and notes when it is closed."""

    def __init__(self, f) -> None:
        self.f, self.given, self.closed = f, 0, False

    def __enter__(self) -> "CountingFile":
        return self

    def __exit__(self, *exc: object) -> None:
        self.f.close()
        self.closed = True

    def fileno(self) -> int:
        return self.f.fileno()

    def read(self, size: int = -1) -> bytes:
        data = self.f.read(size)
        self.given += len(data)
        return data


@pytest.fixture
def opened_files(monkeypatch: pytest.MonkeyPatch) -> list[CountingFile]:
    """Every file the readers (``rtsched.io.stream``) open during the test, as a :class:`CountingFile`,
    in order: a test asserts how many bytes a reader took and that it closed the file."""
    import rtsched.io.stream as stream

    files: list[CountingFile] = []
    real_open = open

    def counting_open(file, mode="r", *args, **kw):
        files.append(CountingFile(real_open(file, mode, *args, **kw)))
        return files[-1]

    monkeypatch.setattr(stream, "open", counting_open, raising=False)
    return files


@pytest.fixture
def inline_and_pooled(tmp_path: Path):
    """``inline_and_pooled(experiment)`` runs a sweep inline and on a pool of two workers, asserts
    the same rows and byte-identical results.csv (the same seed gives the same verdicts whatever
    the number of workers), and returns both results (inline, pooled)."""
    from rtsched.sweep import run

    def run_both(experiment):
        inline = run(experiment, tmp_path / "inline", workers=0, progress="none", plot=False)
        pooled = run(experiment, tmp_path / "pool", workers=2, progress="none", plot=False)
        assert inline.rows == pooled.rows
        assert (tmp_path / "inline" / "results.csv").read_bytes() == (tmp_path / "pool" / "results.csv").read_bytes()
        return inline, pooled

    return run_both


_REACH: pytest.StashKey[dict[str, Counter]] = pytest.StashKey()


@pytest.fixture
def other_operand_width(tmp_path: Path):
    """Run a script under the operand width the host does not pick (issue #45).

    ``other_operand_width(script, *args)`` runs ``python -c script *args`` in a fresh process with
    ``RTSCHED_OPERANDS`` forced to the other form (``rtsched.kernels.wide_vectors``) and a kernel
    cache of its own, and returns ``(other, out)``: ``"32"`` or ``"64"``, and the JSON object the
    script printed on its last line. A failing script fails the test with its stderr's tail.
    """
    import subprocess
    import sys

    from rtsched.kernels import wide_vectors

    other = "32" if wide_vectors() else "64"

    def run(script: str, *args: str) -> tuple[str, dict]:
        env = dict(os.environ, RTSCHED_OPERANDS=other, RTSCHED_CACHE_DIR=str(tmp_path / "cache"))
        env.pop("NUMBA_CACHE_DIR", None)
        done = subprocess.run(
            [sys.executable, "-c", script, *args], env=env, capture_output=True, text=True, check=False
        )
        assert done.returncode == 0, done.stderr[-3000:]
        return other, json.loads(done.stdout.splitlines()[-1])

    return run


@pytest.fixture
def same_codes_both_widths():
    """Check the other width's codes (``out["codes"]``, as the script printed them) set by set.

    ``same_codes_both_widths(out, batches, size, m, names, reference)`` regenerates every
    ``(n, utilization, periods)`` batch of ``size`` seeded sets (seed n, uniform deadlines), and
    requires, per analysis name, the script's codes == this process's kernel codes == the codes of
    ``reference(name, taskset)`` on each set, and a batch with mixed verdicts.
    """
    import numpy as np

    from rtsched import registry
    from rtsched.generators import generate_batch

    def check(out: dict, batches, size: int, m: int, names, reference) -> None:
        for n, u, periods in batches:
            batch = generate_batch(
                np.random.default_rng(n), n=n, utilization=u, size=size, periods=periods, deadlines="uniform"
            ).batch
            for name in names:
                here = registry.get(name).decide(batch, m).tolist()
                assert out["codes"][f"{name} {n}"] == here, name
                assert here == [reference(name, batch[s]) for s in range(len(batch))], name
                assert len(set(here)) > 1, "the batch should mix verdicts"

    return check


@pytest.fixture
def reach(request: pytest.FixtureRequest) -> Counter:
    """A counter of the branches a property reached (e.g. "exact rejects"), printed at the end of
    the run under "property reach", so a property that never reaches its refuting branch shows."""
    table = request.config.stash.setdefault(_REACH, {})
    return table.setdefault(request.node.nodeid, Counter())


def pytest_sessionfinish(session: pytest.Session) -> None:
    """On a pytest-xdist worker (``pytest -n 2``), hand this worker's ``reach`` counters to the
    controller, which prints the summary: a worker's own terminal summary is never shown."""
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:
        table = session.config.stash.get(_REACH, {})
        workeroutput["reach"] = {nodeid: dict(counts) for nodeid, counts in table.items()}


@pytest.hookimpl(optionalhook=True)  # a pytest-xdist hook: absent (and never called) without xdist
def pytest_testnodedown(node, error) -> None:
    """On the xdist controller, merge the ``reach`` counters a worker sent when it finished."""
    table = node.config.stash.setdefault(_REACH, {})
    for nodeid, counts in getattr(node, "workeroutput", {}).get("reach", {}).items():
        table.setdefault(nodeid, Counter()).update(counts)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
    table = config.stash.get(_REACH, {})
    if table:
        terminalreporter.section("property reach (examples per branch)")
        for nodeid, counts in sorted(table.items()):  # sorted: the same order with or without -n
            shown = ", ".join(f"{k}: {v}" for k, v in sorted(counts.items()))
            terminalreporter.write_line(f"{nodeid}: {shown}")


@pytest.fixture(scope="module")
def one_numba_thread():
    """One Numba thread for a module whose batches hold one or a few sets: waking the prange
    thread pool would cost more than the work. Use with ``pytestmark = pytest.mark.usefixtures``."""
    import numba

    before = numba.get_num_threads()
    numba.set_num_threads(1)
    yield
    numba.set_num_threads(before)
