"""The counters of small files are skipped only when they could not refuse (rtsched.io.stream._may_exceed).

A regular file of at most 1 MiB is read whole; its counter (the tasks per set and sets per file
limits) runs only if a cheap bound says a collection could pass a limit. The bound must never be
below what the counter counts: on generated text of every structural character (strings, escapes,
brackets, bare words, non-ASCII and control bytes, line breaks), with the limits set small,
whenever the counter refuses, the bound says it may. And a plain file of thousands of sets is
not counted (so the skip is used), with the same result as counting it.
"""

from __future__ import annotations

import io
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rtsched.io.stream as rio
from rtsched import TaskSet
from rtsched.errors import InputError
from rtsched.io import dumps, read_tasksets

ALPHABET = list('[]{},:"\\ \n\r\t1a-é\x00\x1c\x85\xa0') + ['"x"', "[1,2,3]", "\r\n", "---\n", "1 2 3\n"]


def refuses(text: str, counter) -> bool:
    newline = "" if counter is rio._count_csv else "\n"  # as the reader opens it
    stream = io.TextIOWrapper(io.BytesIO(text.encode("utf-8", "surrogatepass")), encoding="utf-8-sig", newline=newline)
    try:
        counter(stream)
    except InputError:
        return True
    except Exception:  # the parsers report these; the reader swallows them too
        return False
    return False


@settings(max_examples=400)
@given(
    st.lists(st.sampled_from(ALPHABET), max_size=40).map("".join),
    st.sampled_from(["json", "csv", "txt"]),
    st.integers(1, 4),
)
def test_the_bound_never_hides_a_refusal(text: str, fmt: str, limit: int) -> None:
    counter = rio._COUNTERS[fmt]
    with mock.patch.object(rio, "MAX_TASKS", limit), mock.patch.object(rio, "MAX_SETS", limit):
        if refuses(text, counter):
            assert rio._may_exceed(text.encode("utf-8", "surrogatepass"), counter), text


@pytest.mark.parametrize("fmt", ["json", "csv", "txt"])
def test_plain_files_are_not_counted(fmt: str, tmp_path: Path) -> None:
    sets = [TaskSet.from_tasks([(1, 2, 3 + s), (2, 5, 9), (1, 4, 4)], name=None) for s in range(3000)]
    path = tmp_path / f"sets.{fmt}"
    path.write_text(dumps(sets, fmt), encoding="utf-8")
    assert path.stat().st_size <= rio._WHOLE_READ_BYTES
    assert not rio._may_exceed(path.read_bytes(), rio._COUNTERS[fmt])
    assert read_tasksets(path) == sets
    with mock.patch.object(rio, "MAX_SETS", 2000):  # now the counter runs and refuses, as while streaming
        assert rio._may_exceed(path.read_bytes(), rio._COUNTERS[fmt])
        with pytest.raises(InputError, match="a file may hold at most 2000 task sets"):
            read_tasksets(path)


@pytest.mark.parametrize(
    ("text", "bound"),
    [
        pytest.param('{"tasks": [[1, 2, 3], [4, 5, 6]]}', 3, id="flat-tasks"),
        pytest.param('[{"x": "[[,,]]"}, 1 2]', 3, id="string-skipped"),
        pytest.param('["a\\"b"]', None, id="escape"),
        pytest.param('["a]', None, id="odd-quotes"),
        pytest.param("]]", None, id="closes-first"),
        pytest.param("[\x00,\x01 \x1b]", 3, id="control-bytes"),
        pytest.param("[é\xa0é]", 6, id="non-ascii-bytes"),  # \xa0 is whitespace to the counter: 3 items, 6 bytes
    ],
)
def test_json_bound(text: str, bound: int | None) -> None:
    assert rio._json_items_bound(text.encode()) == bound
