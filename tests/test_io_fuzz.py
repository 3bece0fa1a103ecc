"""Mutation fuzzing of every reader: the only outcomes allowed are task sets or a located InputError.

Structure-aware: each case starts from a valid document of one format (task sets written by
:func:`rtsched.io.dumps`, plus hand-written variants: block and flow YAML, objects, names, set
columns, comments, CRLF, priorities) and applies hypothesis-drawn mutations, checking the reader
after each:

- *values*: a number replaced by an odd spelling (``1e40010``, ``1e1``, ``3.0``, ``1_000``,
  Arabic-Indic and fullwidth digits, ``nan``, booleans, huge or negative numbers, ...);
- *tokens*: a token deleted, duplicated, or a structural token (``[``, ``,``, ``:``, ``"``,
  ``#``, ``---``, a newline, ...) inserted;
- *bytes*: a byte flipped, inserted or deleted, or the document truncated (then the file is read
  through :func:`read_tasksets`, which must report non-UTF-8 text with its line).

A reader call must return task sets that satisfy the model, or raise :class:`InputError` naming
the document, on one line, with the line and task whenever a field C, D or T is named. The CLI
(``rtsched check``) turns every such error into exit status 2 and that one line, no traceback.

Budget: ``CASES`` reader calls per format in the default run (7 readers, 14,000 cases, about
20 s on one core); the ``slow`` variant runs ``RTSCHED_FUZZ_CASES`` cases in all (default 300 ×
``RTSCHED_PROPERTY_EXAMPLES`` = 45,000, about 35 s, to keep CI's slow stage short; ``RTSCHED_FUZZ_CASES=1000000 pytest -m slow
tests/test_io_fuzz.py`` for 10^6).
"""

from __future__ import annotations

import csv
import io
import os
import re
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rtsched.io.stream as rio
from rtsched import InputError, TaskSet
from rtsched.cli import main
from rtsched.gpu import GPUWorkload, dumps_gpu, loads_gpu
from rtsched.io import FORMATS, dumps, loads, read_tasksets
from rtsched.model import FIELDS, MAX_TIME

#: Reader calls per format in the default suite.
CASES = 2000
#: Mutations applied (and checked) one after the other per hypothesis example.
STEPS = 5
SLOW_CASES = int(
    os.environ.get("RTSCHED_FUZZ_CASES", str(300 * int(os.environ.get("RTSCHED_PROPERTY_EXAMPLES", "150"))))
)
SOURCE = "<fuzz>"
READERS = (*FORMATS, "gpu-yaml", "gpu-json")

# -- seeds: valid documents ----------------------------------------------------------------------
_SETS = [
    [TaskSet.from_tasks([(1, 3, 4, "camera"), (2, 5, 5), (1, 10, 20, "brake")], name="car")],
    [TaskSet.from_tasks([(1, 2, 3), (2, 7, 9)]), TaskSet.from_tasks([(3, 5, 8)], name="b")],
    [TaskSet.from_tasks([(10, 100, 100), (25, 60, 80), (1, 1, 2147483647)])],
]
_HAND = {
    "yaml": [
        "name: car\ntasks:\n  - [1, 3, 4, camera]\n  - {C: 2, D: 5, T: 5}\n",
        "tasksets:\n  - [[1, 2, 3]]\n  - {name: b, tasks: [[2, 3, 4], [1, 1, 9]]}\n",
        "- C: 1\n  D: 2\n  T: 3\n  name: x\n- C: 4\n  D: 5\n  T: 6\n",
        "# comment\n[[1, 2, 3], [1, 2, 3, 'q']]  # trailing\n",
        "tasks:\n  - {C: 1, D: 3, T: 4, name: a, priority: 2}\n  - C: 2\n    D: 5\n    T: 5\n    priority: 1\n",
    ],
    "json": [
        '{"tasksets": [[[1, 2, 3]], {"name": "b", "tasks": [{"C": 1, "D": 2, "T": 3, "name": "x"}]}]}',
        "[[1, 2, 3],\n [2, 4, 4]]\n",
        '[{"C": 1, "D": 2, "T": 3, "priority": 5},\n {"C": 1, "D": 4, "T": 4, "name": "x", "priority": -1}]\n',
    ],
    "jsonl": [
        '[[1, 2, 3]]\n\n{"name": "s", "tasks": [{"C": 2, "D": 3, "T": 4}]}\n',
        '[{"C": 1, "D": 2, "T": 3, "priority": 2}, {"C": 1, "D": 3, "T": 3, "priority": 1}]\n[[1, 2, 3]]\n',
    ],
    "csv": [
        'set,T,c,D,name\r\n0,4,1,3,a\r\n1,9,2,7,"b, c"\r\n0,5,2,5,\r\n',
        "\ufeffC,D,T\n1,2,3\n 2 , 3 , 4 \n",
        "C,D,T,priority,set\n1,2,3,2,0\n1,4,4,1,0\n2,5,5,,1\n",
    ],
    "txt": ["# two sets\n1 2 3 first\n2 4 4\n--- # next\n\n5 6 7\n", "1 2 3\r\n4 5 6\r\n"],
}
_GPU = (Path(__file__).parents[1] / "examples" / "gpu" / "demo.yaml").read_text(encoding="utf-8")
_GPU_SMALL = "clusters: 2\nkernels:\n  - {C: [4, 3], D: 10, T: 10, slowdown: 1.5}\n  - {C: {model: saturating, C1: 6, saturation: 2}, D: 20, T: 20, slowdown: [1.25]}\n"


def _seeds() -> dict[str, list[str]]:
    seeds = {fmt: [dumps(sets, fmt) for sets in _SETS] + _HAND.get(fmt, []) for fmt in FORMATS}
    seeds["gpu-yaml"] = [_GPU, _GPU_SMALL]
    seeds["gpu-json"] = [dumps_gpu(loads_gpu(text), "json") for text in seeds["gpu-yaml"]]
    return seeds


SEEDS = _seeds()

# -- mutations -----------------------------------------------------------------------------------
#: Odd spellings of a number (and non-numbers where one is expected).
ODD = [
    "1e40010",
    "1e99999999999",
    "1e1",
    "1E+3",
    "3.0",
    "2.5",
    "1/2",
    "1/0",
    ".5",
    "5.",
    "1_000",
    "0x10",
    "0o17",
    "0b11",
    "1:30",
    "\u0661\u0662",
    "\uff11\uff12",
    "\u00b2",
    "\u2167",
    "\U0001d7d9",
    "nan",
    "NaN",
    ".inf",
    "-inf",
    "Infinity",
    "true",
    "yes",
    "null",
    "~",
    "''",
    '""',
    "[]",
    "{}",
    "-",
    "+",
    "-1",
    "0",
    "-0",
    "+3",
    "007",
    "2147483647",
    "2147483648",
    "99999999999999999999",
    "9" * 101,
    "1" * 5000,
    "1 2",
    "1\t2",
    "1,2",
    "#",
    "&a",
    "*a",
    "!!int 3",
    "!!float 3",
    "!!str 3",
    "? 3",
    "|",
    ">",
    "'3'",
    '"3"',
    "3 # c",
    "\u00a03",
    "3\u200b",
]
#: Valid integers, so that a mutated document stays valid some of the time.
PLAIN = ["1", "2", "3", "5", "8", "13", "100", "1000", "+4", "06"]
#: Structural tokens inserted by token mutations.
STRUCTURE = [
    "[",
    "]",
    "{",
    "}",
    ",",
    ":",
    '"',
    "'",
    "#",
    "---",
    "\n",
    "\r\n",
    "\t",
    " ",
    "-",
    "- ",
    "tasks",
    "name",
    "C",
    "set",
    "\ufeff",
    "\x00",
    "\\",
]
_NUMBER = re.compile(r"\d+")
_TOKEN = re.compile(r"\w+|[^\w\s]|\s+")


def mutations(fmt: str) -> st.SearchStrategy[tuple]:
    """One mutation of a document of ``fmt``."""
    odd = ODD
    return st.one_of(
        st.tuples(st.just("value"), st.integers(0, 1000), st.sampled_from(odd + PLAIN) | st.text(max_size=6)),
        st.tuples(
            st.just("token"),
            st.integers(0, 1000),
            st.sampled_from(["delete", "duplicate", "insert", "swap"]),
            st.sampled_from(STRUCTURE),
        ),
        st.tuples(
            st.just("byte"),
            st.integers(0, 10**6),
            st.sampled_from(["flip", "insert", "delete", "truncate"]),
            st.integers(0, 255),
        ),
    )


def mutate(doc: bytes, step: tuple) -> bytes:
    """Apply one mutation to the UTF-8 bytes of a document (text mutations keep invalid bytes)."""
    kind = step[0]
    if kind == "byte":
        _, pos, op, byte = step
        pos %= len(doc) + 1
        if op == "flip" and pos < len(doc):
            return doc[:pos] + bytes([doc[pos] ^ (byte or 1)]) + doc[pos + 1 :]
        if op == "insert":
            return doc[:pos] + bytes([byte]) + doc[pos:]
        if op == "delete":
            return doc[:pos] + doc[pos + 1 :]
        return doc[:pos]  # truncate
    text = doc.decode("utf-8", "surrogateescape")
    if kind == "value":
        _, index, spelling = step
        numbers = list(_NUMBER.finditer(text))
        if numbers:
            match = numbers[index % len(numbers)]
            text = text[: match.start()] + spelling + text[match.end() :]
    else:
        _, index, op, token = step
        spans = [m.span() for m in _TOKEN.finditer(text)] or [(0, 0)]
        lo, hi = spans[index % len(spans)]
        if op == "delete":
            text = text[:lo] + text[hi:]
        elif op == "duplicate":
            text = text[:hi] + text[lo:hi] + text[hi:]
        elif op == "insert":
            text = text[:lo] + token + text[lo:]
        else:  # swap with the next token
            nxt = spans[(index + 1) % len(spans)]
            if nxt[0] >= hi:
                text = text[:lo] + text[nxt[0] : nxt[1]] + text[hi : nxt[0]] + text[lo:hi] + text[nxt[1] :]
    return text.encode("utf-8", "surrogateescape")


# -- the oracle ----------------------------------------------------------------------------------
def check_error(err: InputError, source: str = SOURCE, *, utf8: bool = True) -> None:
    """A reader's error names the document, is one line, and locates a named field (or, for a
    file that is not UTF-8, says so with the line)."""
    text = str(err)
    if not utf8:
        assert "not UTF-8 text" in text and err.line is not None, text
    assert err.file == source, text
    assert text.startswith(source), text
    assert "\n" not in text and "\r" not in text, text
    assert len(text) < 1000, text
    if err.field in FIELDS:
        assert err.line is not None, text


def check_sets(sets: list[TaskSet]) -> None:
    assert sets and all(isinstance(ts, TaskSet) for ts in sets)
    for ts in sets:
        for c, d, t in ts.rows():
            assert 1 <= c <= d <= t <= MAX_TIME  # constrained deadlines, the default


#: rtsched.gpu words YAML's "unacceptable character" error on several lines, without a line.


def count(fmt: str, text: str) -> bool:
    """Run the streaming limit counter of ``fmt`` (what read_tasksets does while reading): True if it
    lets the document through; it may only raise InputError (or the syntax errors the reader reports)."""
    try:
        rio._COUNTERS[fmt](io.StringIO(text, newline="" if fmt == "csv" else "\n"))
    except InputError as err:
        check_error(err.located(file=SOURCE))
        return False
    except (csv.Error, yaml.YAMLError, RecursionError):
        pass  # read_text ignores these: the parser reports them with their position
    return True


def read_case(fmt: str, doc: bytes, path: Path) -> str:
    """Read one document; return "ok" or "error", failing the test on any other outcome."""
    try:
        text = doc.decode("utf-8")
    except UnicodeDecodeError:
        text = None
    try:
        if fmt.startswith("gpu-"):
            if text is None:
                return "error"  # read_text's decoding is the same for GPU files (checked below)
            assert isinstance(loads_gpu(text, fmt.removeprefix("gpu-"), source=SOURCE), GPUWorkload)
        elif text is not None:
            counted = count(fmt, text)
            sets = loads(text, fmt, source=SOURCE)
            assert counted, "the streaming counter refused what the reader reads"
            check_sets(sets)
        else:
            path.write_bytes(doc)
            read_tasksets(path, format=fmt)
            raise AssertionError("a file that is not UTF-8 was read")
    except ValueError as err:  # InputError is a ValueError: this is any other
        if not isinstance(err, InputError):
            raise
        check_error(err, str(path) if text is None else SOURCE, utf8=text is not None)
        return "error"
    return "ok"


def fuzz(fmt: str, examples: int, path: Path) -> dict[str, int]:
    """Run ``examples`` hypothesis examples of STEPS mutations each; count the outcomes."""
    outcomes = {"ok": 0, "error": 0}

    @settings(max_examples=examples, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(st.sampled_from(SEEDS[fmt]), st.lists(mutations(fmt), min_size=STEPS, max_size=STEPS))
    def run(seed: str, steps: list[tuple]) -> None:
        doc = seed.encode()
        for step in steps:
            doc = mutate(doc, step)
            outcomes[read_case(fmt, doc, path)] += 1

    run()
    return outcomes


@pytest.mark.parametrize("fmt", READERS)
def test_fuzz_readers(fmt: str, tmp_path: Path) -> None:
    outcomes = fuzz(fmt, CASES // STEPS, tmp_path / f"case.{fmt.removeprefix('gpu-')}")
    assert sum(outcomes.values()) >= CASES
    assert outcomes["ok"] > 0 and outcomes["error"] > 0  # both kinds of outcome are exercised


@pytest.mark.slow
@pytest.mark.parametrize("fmt", READERS)
def test_fuzz_readers_long(fmt: str, tmp_path: Path) -> None:
    per_format = max(SLOW_CASES // len(READERS), STEPS)
    outcomes = fuzz(fmt, per_format // STEPS, tmp_path / f"case.{fmt.removeprefix('gpu-')}")
    assert sum(outcomes.values()) >= per_format - STEPS


def test_the_seeds_are_valid() -> None:
    for fmt, docs in SEEDS.items():
        for doc in docs:
            assert read_case(fmt, doc.encode(), Path("unused")) == "ok", (fmt, doc)


# -- the CLI: exit 2, one line, no traceback -----------------------------------------------------
def run_cli(capsys: pytest.CaptureFixture[str], *args: object) -> tuple[int, str]:
    capsys.readouterr()
    status = main([str(a) for a in args])
    return status, capsys.readouterr().err


CRASHERS = [
    ("big.yaml", "- [1e40010, 2, 3]\n"),
    ("big.csv", "C,D,T\n1,2,1e40010\n"),
    ("e.txt", "1e1 20 30\n"),
    ("arabic.txt", "\u0661 2 3\n"),
    ("wide.json", '[["\uff11", 2, 3]]'),
    ("set.csv", "C,D,T,set\n1,2,3," + "9" * 5000 + "\n"),
]


@pytest.mark.parametrize(("name", "text"), CRASHERS, ids=[n for n, _ in CRASHERS])
def test_cli_reports_odd_numbers_in_one_line(capsys, tmp_path: Path, name: str, text: str) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    status, err = run_cli(capsys, "check", path, "-m", 2)
    assert status == 2 and "Traceback" not in err
    assert err.count("\n") == 1 and str(path) in err and "line " in err


@settings(max_examples=40, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(st.sampled_from(FORMATS), st.data())
def test_cli_on_fuzzed_errors(fmt: str, data: st.DataObject) -> None:
    """Documents the reader refuses: ``rtsched check`` prints exactly that error and exits 2."""
    import contextlib
    import io
    import tempfile

    doc = data.draw(st.sampled_from(SEEDS[fmt])).encode()
    for step in data.draw(st.lists(mutations(fmt), min_size=1, max_size=3)):
        doc = mutate(doc, step)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"case.{fmt}"
        path.write_bytes(doc)
        try:
            read_tasksets(path)
        except InputError as err:
            expected = str(err)
        else:
            return  # valid: checking it would run the analyses, not the reader
        err_stream, out_stream = io.StringIO(), io.StringIO()
        with contextlib.redirect_stderr(err_stream), contextlib.redirect_stdout(out_stream):
            status = main(["check", str(path), "-m", "2"])
    assert status == 2
    assert err_stream.getvalue() == f"rtsched: error: {expected}\n"


# -- the GPU workload reader follows the same rules ----------------------------------------------------------------
@pytest.mark.parametrize("factor", ["1e40010", "\uff11.5"])
def test_gpu_factors_follow_the_number_rule(factor: str) -> None:
    with pytest.raises(InputError, match="field slowdown"):
        loads_gpu(f"kernels:\n  - {{C: [3], D: 10, T: 10, slowdown: {factor}}}\n")


def test_gpu_yaml_reader_errors_are_one_located_line() -> None:
    with pytest.raises(InputError) as info:
        loads_gpu("kernels:\n  - {C: [3], D: 10, T: 10, slowdown: \x08}\n", source=SOURCE)
    check_error(info.value)
    assert info.value.line == 2
