"""Size limits enforced while reading, in every format: tasks per set, sets per file, bytes.

The counters run over the input as it streams in (JSON and YAML documents included), so a file
breaking a limit is refused at the item too many, without reading the rest or parsing it.
(``tests/test_large_inputs.py`` has the byte limit and the line formats' task limit.)
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest

import rtsched.io.stream as rio
from rtsched.errors import InputError
from rtsched.io import MAX_SETS, loads, read_tasksets
from rtsched.model import MAX_TASKS

N = MAX_TASKS
ROW = "[1,2,3],"


def counted(text: str, counter) -> str:
    try:
        counter(io.StringIO(text))
    except InputError as err:
        return str(err)
    return "ok"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"tasks": [' + ROW * N + "[1,2,3]]}", "line 1: a task set may have at most"),
        ('{"tasks": [' + ROW * (N - 1) + "[1,2,3]]}", "ok"),
        ("[" + ROW * N + "[1,2,3]]", "line 1: a task set may have at most"),  # one set, top-level list
        ("[" + "[[1,2,3]]," * N + "[[1,2,3]]]", "ok"),  # N + 1 sets of one task
        ("[" + '{"C":1,"D":2,"T":3},' * N + '{"C":1,"D":2,"T":3}]', "line 1: a task set may"),
        ("[" + '{"tasks":[[1,2,3]]},' * N + '{"tasks":[[1,2,3]]}]', "ok"),
        ('[{"name": "a", "tasks": [[1,2,3]]}, {"tasks": [' + ROW * N + "[1,2,3]]}]", "line 1, task set 1: a task set"),
        ('{"tasksets": [[[1,2,3]], [\n' + "[1,2,3],\n" * N + "[1,2,3]]]}", f"line {N + 2}, task set 1: a task set"),
        (
            '{"x": "[[[{{", "tasks": [' + '[1,2,"a]"],' * N + "[1,2,3]]}",
            "a task set may have at most",
        ),  # strings skipped
        ("[" + "[]," * MAX_SETS + "[]]", f"a file may hold at most {MAX_SETS} task sets"),
        ("[" + "[]," * (MAX_SETS - 1) + "[]]", "ok"),
    ],
)
def test_json_counter(text: str, expected: str) -> None:
    assert expected in counted(text, rio._count_json)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("tasks:\n" + "- [1, 2, 3]\n" * (N + 1), f"line {N + 2}: a task set may have at most"),
        ("tasks:\n" + "- [1, 2, 3]\n" * N, "ok"),
        ("- name: a\n  tasks: [[1,2,3]]\n- tasks:\n" + "  - {C: 1, D: 2, T: 3}\n" * (N + 1), "task set 1: a task set"),
        ("- [[1,2,3]]\n" * (N + 1), "ok"),
        ("- [1,2,3]\n" * (N + 1), f"line {N + 1}: a task set may have"),
        ("? [a, b]\n: [1, 2]\ntasks: [[1,2,3]]\n", "ok"),  # a complex key does not confuse the count
    ],
)
def test_yaml_counter(text: str, expected: str) -> None:
    assert expected in counted(text, rio._count_yaml)


def test_json_counter_across_pieces(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tokens cut by the piece boundaries (strings, flat tasks) are carried to the next piece."""
    monkeypatch.setattr(rio, "_CHUNK_BYTES", 7)
    text = '{"name": "a \\" [", "tasks": [\n' + '[1, 2, "t,]"],\n' * N + "[1,2,3]]}"
    assert f"line {N + 2}: a task set may have at most" in counted(text, rio._count_json)
    assert counted('{"tasks": [[1, 2, 3], {"C": 1, "D": 2, "T": 3}]}', rio._count_json) == "ok"


@pytest.mark.parametrize(
    ("name", "head", "row", "tail"),
    [
        ("big.json", '{"tasks": [\n', "[1,2,3],\n", "[1,2,3]]}\n"),
        ("big.yaml", "tasks:\n", "- [1, 2, 3]\n", ""),
        ("sets.txt", "", "1 2 3\n---\n", ""),
        ("sets.jsonl", "", "[[1,2,3]]\n", ""),
        ("sets.csv", "C,D,T,set\n", None, ""),
    ],
)
def test_large_documents_are_refused_while_streaming(
    monkeypatch: pytest.MonkeyPatch,
    opened_files: list,
    tmp_path: Path,
    name: str,
    head: str,
    row: str | None,
    tail: str,
) -> None:
    """A 12+ MB file over a limit: refused with the line of the item too many, after reading a part."""
    path = tmp_path / name
    sets = name.startswith("sets")
    monkeypatch.setattr(rio, "MAX_SETS", 2000)  # the same code path as 2**20 sets, in less time
    if row is None:
        body = "".join(f"1,2,3,{k}\n" for k in range(2001)) + "1,2,3,0\n" * (2 * N)
    else:
        body = row * (4 * N if not sets else 2001 + 2 * N)
    path.write_text(head + body + tail, encoding="utf-8")
    what = "a file may hold at most 2000 task sets" if sets else f"a task set may have at most {MAX_TASKS} tasks"
    with pytest.raises(InputError, match=rf"{name}, line \d+(, task set \d+)?: {what}"):
        read_tasksets(path)
    assert len(opened_files) == 1 and opened_files[0].closed
    assert opened_files[0].given < path.stat().st_size // 2  # stopped reading early


def test_loads_refuses_too_many_sets(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rio, "MAX_SETS", 3)
    assert len(loads("---\n".join(["1 2 3\n"] * 3), "txt")) == 3
    with pytest.raises(InputError, match="<string>: a file may hold at most 3 task sets"):
        loads("---\n".join(["1 2 3\n"] * 4), "txt")
