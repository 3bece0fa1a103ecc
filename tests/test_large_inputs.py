"""Large inputs: n = 5,000 tasks end in a verdict or "unknown", every output prints, and
oversized files are refused while they are read.

Cost: about 25-40 s on two cores. One default ``check`` of a 5,000-task set is shared by the
table, --explain and --json tests through a cached ``check``, so its explanations (each exact
reference stops at its work budget, rtsched.budget) run once; the not-schedulable case runs four
analyses, since the point there is the exit status.
"""

import io
import json
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rtsched.commands.check as check_command
from rtsched import TaskSet, check
from rtsched.analyses.partitioned.partitioned_edf import FAMILY_NAMES, _parse, _run, pack
from rtsched.check import check_many
from rtsched.cli import main
from rtsched.errors import InputError
from rtsched.generators import generate_batch
from rtsched.io import MAX_FILE_BYTES, read_tasksets, write_tasksets
from rtsched.model import MAX_TASKS, TaskSetBatch
from rtsched.result import SHOW_DIGITS, Result, digit_count, exact_numbers, jsonable, scientific, show_number
from rtsched.testing import strategies as rst

N = 5000
M = 4


def _large_set(utilization: float, seed: int) -> TaskSet:
    """5,000 tasks, constrained deadlines, periods up to 10**9: exact sums have ~18,000 digits."""
    out = generate_batch(
        np.random.default_rng(seed),
        n=N,
        utilization=utilization,
        size=1,
        periods="log-uniform:100000:1000000000",
        deadlines="uniform:0.5",
    )
    return out.batch[0]


@pytest.fixture(scope="module")
def plausible() -> TaskSet:
    """U = 2.4 on m = 4 (partitioned EDF places every task)."""
    return _large_set(0.6 * M, seed=4)


@pytest.fixture(scope="module")
def plausible_file(plausible: TaskSet, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("large") / "n5000.txt"
    write_tasksets(path, plausible)
    return path


@pytest.fixture(scope="module")
def report(plausible: TaskSet):
    return check(plausible, M)


@pytest.fixture
def cached_check(monkeypatch: pytest.MonkeyPatch, plausible: TaskSet, report):
    """The CLI's check_many(), answering the module's report for the large set (computed once)."""
    from rtsched.platform import as_platform

    def fake(sets, m, tests=None, budget=None):
        if len(sets) == 1 and sets[0] == plausible and as_platform(m).size == M and tests is None and budget is None:
            return [report]
        return check_many(sets, m, tests, budget)

    monkeypatch.setattr(check_command, "check_many", fake)


def run(capsys: pytest.CaptureFixture[str], *args: object) -> tuple[int, str, str]:
    status = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return status, out, err


# -- check at n = 5,000 ------------------------------------------------------------------------


def test_every_default_analysis_answers_true_false_or_unknown(report, plausible: TaskSet) -> None:
    assert plausible.n == N
    assert report.results, "no analysis ran"
    for result in report.results:
        assert result.verdict in (True, False, "unknown"), result.analysis
    # The verdicts come from the kernels, which decide n = 5,000 in milliseconds: they equal the
    # batch API's.
    from rtsched import analyses

    batch = TaskSetBatch.from_tasksets([plausible])
    codes = {1: True, 0: False, -1: "unknown"}
    assert report.verdicts == {
        r.analysis: codes[int(analyses.get(r.analysis).status(batch, M)[0])] for r in report.results
    }


def test_budgeted_explanation_keeps_the_kernel_verdict(report) -> None:
    """The exact references stop at their work budget instead of running for minutes; a quadratic
    one cannot finish n = 5,000 within it. The kernel's verdict stands and the summary says the
    evidence is incomplete."""
    result = report["bcl-iter"]
    assert result.verdict is True
    assert "evidence incomplete" in result.summary and result.full().verdict is True


def test_p_edf_decides_5000_tasks(report, plausible: TaskSet) -> None:
    """p-edf answered nothing in 600 s; now its kernel packs the set (and agrees with explain)."""
    assert report["p-edf"].verdict is True
    assert report["p-edf"].evidence["assignment"].count(None) == 0
    from rtsched import analyses

    status = analyses.get("p-edf").status(TaskSetBatch.from_tasksets([plausible]), M)
    assert status.tolist() == [1]
    assert analyses.get("p-edf").verdict(plausible, M) is True  # the serial one-set kernel


def test_table_prints_and_exit_status_follows_the_verdicts(capsys, cached_check, plausible_file, report) -> None:
    status, out, err = run(capsys, "check", plausible_file, "-m", M)
    assert status == (0 if report.schedulable else 1)
    assert "Traceback" not in err
    assert f"n={N}" in out and "≈" in out  # U is a huge exact Fraction, shown approximately
    for name in report.verdicts:
        assert name in out


def test_explain_prints(capsys, cached_check, plausible_file, report) -> None:
    status, out, _ = run(capsys, "check", plausible_file, "-m", M, "--explain")
    assert status == (0 if report.schedulable else 1)
    for name in report.verdicts:
        assert f"{name} (" in out
    assert max(len(line) for line in out.splitlines()) < 20_000  # no 18,000-digit numbers


@pytest.mark.parametrize("explain", [False, True])
def test_json_prints(capsys, cached_check, plausible_file, report, explain: bool) -> None:
    args = ["check", plausible_file, "-m", M, "--json"] + (["--explain"] if explain else [])
    status, out, _ = run(capsys, *args)
    assert status == (0 if report.schedulable else 1)
    obj = json.loads(out)
    assert obj["verdicts"] == report.verdicts
    if explain:
        results = {r["analysis"]: r for r in obj["results"]}
        assert set(results) == set(report.verdicts)
        utilization = results["load"]["evidence"]["utilization"]  # Σ C/T: ~18,000 digits
        assert set(utilization) == {"approx", "numerator_digits", "denominator_digits"}
        assert float(utilization["approx"]) == pytest.approx(float(report.taskset.utilization))


def test_not_schedulable_set_exits_1(capsys, tmp_path: Path) -> None:
    overloaded = _large_set(5.0, seed=5)  # U = 5 > m = 4: nothing can prove it
    path = tmp_path / "overloaded.txt"
    write_tasksets(path, overloaded)
    status, out, _ = run(capsys, "check", path, "-m", M, "--tests", "gfb,bcl,load,p-edf", "--json", "--explain")
    obj = json.loads(out)
    assert status == 1
    assert obj["schedulable"] is False
    assert set(obj["verdicts"].values()) <= {False, "unknown"}


# -- printing huge numbers ---------------------------------------------------------------------

HUGE = Fraction(3 * 10**5000 + 7, 5 * 10**5000 + 1)  # ≈ 0.6, numerator and denominator of 5,001 digits


def test_show_number_is_bounded_and_says_how_big() -> None:
    text = show_number(HUGE)
    assert text == "≈0.6 (exact: 5001-digit numerator, 5001-digit denominator)"
    assert show_number(10**6000) == "≈1e+6000 (6001-digit integer)"
    with exact_numbers():  # --exact-numbers: small values stay exact
        assert show_number(Fraction(7, 3)) == "7/3 (≈2.333)"
        assert show_number(10**SHOW_DIGITS - 1) == str(10**SHOW_DIGITS - 1)
    assert show_number(Fraction(7, 3)) == "≈2.333"  # decimals for people by default
    assert show_number(Fraction(10**500, 3)).startswith("≈3.333333333e+499")  # outside the float range


def test_scientific_and_digit_count_never_build_the_decimal_string() -> None:
    assert digit_count(10**4999) == 5000 and digit_count(10**5000 - 1) == 5000 and digit_count(0) == 1
    assert scientific(HUGE) == "6e-01"
    assert scientific(Fraction(-(10**5000), 7), 5) == "-1.4286e+4999"
    assert scientific(Fraction(1, 10**5000)) == "1e-5000"


def test_json_keeps_exact_values_while_python_can_print_them() -> None:
    assert jsonable(Fraction(10**100 + 1, 3)) == f"{10**100 + 1}/3"
    assert jsonable({"u": HUGE}) == {"u": {"approx": "6e-01", "numerator_digits": 5001, "denominator_digits": 5001}}
    assert jsonable([10**5000]) == [{"approx": "1e+5000", "digits": 5001}]
    assert jsonable(True) is True


def test_result_with_huge_evidence_prints_in_every_form() -> None:
    r = Result(
        "x", True, 2, "sufficient", f"U = {show_number(HUGE)}", {"U": HUGE, "L": 10**6000}, [{"task": 0, "u": HUGE}]
    )
    text = str(r)
    assert "U = ≈0.6 (exact" in text and len(text) < 1000
    assert json.loads(json.dumps(r.to_dict()))["evidence"]["L"]["digits"] == 6001


# -- streaming size limits -----------------------------------------------------------------------


class Endless(io.RawIOBase):
    """A binary stream repeating ``chunk`` forever, counting the bytes handed out."""

    def __init__(self, chunk: bytes) -> None:
        self.chunk = chunk
        self.given = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        n = min(len(buffer), len(self.chunk))
        buffer[:n] = self.chunk[:n]
        self.given += n
        return n

    def read(self, size: int = -1) -> bytes:
        data = self.chunk if size < 0 else self.chunk[: max(size, 0)]
        self.given += len(data)
        return data


class FakeStdin:
    def __init__(self, buffer: Endless) -> None:
        self.buffer = buffer


def test_endless_stdin_is_refused_at_the_byte_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    stream = Endless(b"# " + b"x" * (2**20 - 3) + b"\n")
    monkeypatch.setattr(sys, "stdin", FakeStdin(stream))
    with pytest.raises(InputError, match=r"<stdin>: the input is larger than 64 MiB"):
        read_tasksets("-", format="yaml")
    assert stream.given <= MAX_FILE_BYTES + 2**20


def test_a_set_over_max_tasks_is_refused_at_its_first_task_too_many(monkeypatch: pytest.MonkeyPatch) -> None:
    """An endless one-set txt stream: refused at line MAX_TASKS + 1, after about 1 MiB, not 64."""
    stream = Endless(b"1 2 3\n" * 10_000)
    monkeypatch.setattr(sys, "stdin", FakeStdin(stream))
    with pytest.raises(
        InputError, match=rf"<stdin>, line {MAX_TASKS + 1}: a task set may have at most {MAX_TASKS} tasks"
    ):
        read_tasksets("-", format="txt")
    assert stream.given < 4 * 2**20


@pytest.mark.parametrize(
    ("name", "head", "row"),
    [
        ("big.txt", b"", b"1 2 3\n"),
        ("big.csv", b"C,D,T,set\n", b"1,2,3,0\n"),
        ("big.jsonl", b'[[1, 2, 3]]\n{"tasks": [', b"[1,2,3],"),
    ],
)
def test_large_files_are_refused_without_reading_them_whole(
    opened_files: list, tmp_path: Path, name: str, head: bytes, row: bytes
) -> None:
    path = tmp_path / name
    path.write_bytes(head + row * (16 * MAX_TASKS) + (b"[1,2,3]]}\n" if name.endswith("jsonl") else b""))
    size = path.stat().st_size
    with pytest.raises(
        InputError, match=rf"{name}, line \d+(, task set \d+)?: a task set may have at most {MAX_TASKS}"
    ):
        read_tasksets(path)
    assert len(opened_files) == 1 and opened_files[0].closed
    if not name.endswith("jsonl"):  # a jsonl line is counted once it is complete (here: the file)
        assert opened_files[0].given < size // 2


def test_a_file_over_the_byte_limit_is_refused_from_its_size(capsys, tmp_path: Path) -> None:
    path = tmp_path / "sparse.txt"
    with open(path, "wb") as f:
        f.truncate(MAX_FILE_BYTES + 1)  # sparse: no disk space, no data to read
    with pytest.raises(InputError, match=r"sparse\.txt: the input is larger than 64 MiB"):
        read_tasksets(path)
    status, _, err = run(capsys, "check", path, "-m", 2)
    assert status == 2 and "larger than 64 MiB" in err and "Traceback" not in err


def test_check_help_states_the_limits(capsys) -> None:
    status, out, _ = run(capsys, "check", "--help")
    text = " ".join(out.split())
    assert status == 0
    assert f"{MAX_TASKS:,} tasks per set" in text and f"{MAX_FILE_BYTES // 2**20} MiB per file" in text


# -- the partitioned packing budget: kernel == reference ----------------------------------------


@settings(max_examples=60)
@given(
    sets=st.lists(rst.tasksets(max_size=10, max_period=500), min_size=1, max_size=4),
    m=st.integers(1, 3),
    qpa_steps=st.integers(0, 40),
    budget=st.integers(0, 300),
    name=st.sampled_from([n for n in FAMILY_NAMES if n.endswith(":qpa")]),
)
def test_packing_budget_is_counted_alike_in_kernel_and_reference(sets, m, qpa_steps, budget, name) -> None:
    """Small budgets so that they bind: verdicts, assignments and the budget left all agree."""
    fit, order, admission = _parse(name)
    batch = TaskSetBatch.from_tasksets(sets)
    codes, assign, left = _run(batch, m, fit, order, admission, budget, qpa_steps)
    for s, ts in enumerate(sets):
        res = pack(ts.rows(), m, fit, order, admission, budget, qpa_steps=qpa_steps)
        lo, hi = int(batch.offsets[s]), int(batch.offsets[s + 1])
        assert codes[s] == (-1 if res.verdict == "unknown" else int(res.verdict)), (name, ts)
        assert assign[lo:hi].tolist() == [-1 if a is None else a for a in res.assignment]
        assert left[s] == res.left
