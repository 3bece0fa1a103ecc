"""The fast path of the task-set readers: whole columns checked and converted at once.

:func:`fast_loads` reads the common case of each format — every time value a plain ASCII integer
(at most 18 digits), every task of a set in one shape, priorities plain integers — parsing with the
C parsers (``json``, ``csv``, libyaml's composer) and checking the structure and the values with
C-level passes over whole columns (``map``, ``itertools``, regular expressions, numpy), then
validating every set at once as a :class:`~rtsched.TaskSetBatch` and building the
:class:`~rtsched.TaskSet` s without checking them again (:meth:`~rtsched.TaskSetBatch.tasksets`).

It never decides an error: on anything unusual or wrong it returns None, and the caller reads the
text again with the exact per-value path (:mod:`rtsched.io.raw`), which gives every message. So it
must return exactly what that path returns, or None (tests/test_io_fast.py checks this on generated
valid and invalid files of every format). It reads only without a time unit.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Callable, Sequence
from itertools import chain, compress
from operator import itemgetter
from typing import Any

import numpy as np
import yaml

from rtsched.errors import InputError
from rtsched.io import stream
from rtsched.model import MAX_TASKS, DeadlineModel, TaskSet, TaskSetBatch

__all__ = ["fast_loads"]


class _Fallback(Exception):
    """The text is not in the fast path's subset: read it with the exact path."""


class _Sets:
    """The sets read so far: flat values (C, D, T of each task in turn), sizes, names, priorities."""

    __slots__ = ("names", "prios", "set_names", "sizes", "values")

    def __init__(self) -> None:
        self.values: list[Any] = []
        self.sizes: list[int] = []
        self.names: list[tuple[str, ...] | None] = []
        self.set_names: list[str | None] = []
        self.prios: list[list[Any] | None] = []

    def add(self, values: Any, n: int, names: Sequence[Any] | None, name: str | None, prios: list[Any] | None) -> None:
        self.values.extend(values)
        self.sizes.append(n)
        self.names.append(None if names is None or not any(x is not None for x in names) else _clean(names))
        self.set_names.append(name)
        self.prios.append(prios)


def _clean(names: Sequence[Any]) -> tuple[str, ...]:
    """Task names as :class:`~rtsched.TaskSet` keeps them ("" for none); only strings are read here."""
    if not all(type(x) is str or x is None for x in names):
        raise _Fallback
    return tuple("" if x is None else x for x in names)


def _refuse(_: str) -> Any:
    raise _Fallback


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):  # a duplicate key: an error the exact path names
        raise _Fallback
    return out


_DECODER = json.JSONDecoder(parse_float=_refuse, parse_constant=_refuse, object_pairs_hook=_unique)
_TASK_KEYS = frozenset(("C", "D", "T", "name", "priority"))
_CDT = itemgetter("C", "D", "T")
_PRIORITY = itemgetter("priority")


def _scalar(value: Any) -> bool:
    return not isinstance(value, dict | list)


def _set_like(value: Any) -> bool:
    if isinstance(value, dict):
        return "tasks" in value
    return isinstance(value, list) and (not value or not all(map(_scalar, value)))


def _doc_sets(root: Any) -> list[Any]:
    """The sets of a decoded document, by the rule of :func:`rtsched.io.documents._doc_sets`."""
    if isinstance(root, dict) and "tasksets" in root:
        sets = root["tasksets"]
        if len(root) != 1 or not isinstance(sets, list):
            raise _Fallback
        return sets
    if isinstance(root, list) and root and _set_like(root[0]):
        return root
    if isinstance(root, dict | list):
        return [root]
    raise _Fallback


def _add_set(out: _Sets, node: Any) -> None:
    """Add a decoded set (JSON, or YAML converted by :func:`_yaml_value`): a list of tasks or {name, tasks}."""
    name = None
    if isinstance(node, dict):
        if "tasks" not in node or not node.keys() <= {"name", "tasks"}:
            raise _Fallback
        name, tasks = node.get("name"), node["tasks"]
        if not (name is None or type(name) is str) or not isinstance(tasks, list):
            raise _Fallback
    elif isinstance(node, list):
        tasks = node
    else:
        raise _Fallback
    n = len(tasks)
    kinds = set(map(type, tasks))
    if kinds == {list}:
        lengths = set(map(len, tasks))
        if lengths == {3}:
            out.add(chain.from_iterable(tasks), n, None, name, None)
        elif lengths <= {3, 4}:
            out.add(
                chain.from_iterable(t[:3] for t in tasks), n, [t[3] if len(t) == 4 else None for t in tasks], name, None
            )
        else:
            raise _Fallback
    elif kinds == {dict}:
        keys = set(map(frozenset, tasks))
        if not all(k <= _TASK_KEYS and len(k) >= 3 and "C" in k and "D" in k and "T" in k for k in keys):
            raise _Fallback
        named = any("name" in k for k in keys)
        prios = None
        if any("priority" in k for k in keys):
            if not all("priority" in k for k in keys):
                raise _Fallback
            prios = list(map(_PRIORITY, tasks))
        out.add(
            chain.from_iterable(map(_CDT, tasks)), n, [t.get("name") for t in tasks] if named else None, name, prios
        )
    else:
        raise _Fallback  # no tasks, or tasks of several shapes


def _read_json(text: str) -> _Sets:
    out = _Sets()
    for node in _doc_sets(_DECODER.decode(text)):
        _add_set(out, node)
    return out


def _read_jsonl(text: str) -> _Sets:
    out = _Sets()
    for line in text.split("\n"):
        if not line.strip():
            continue
        root = _DECODER.decode(line)
        if isinstance(root, dict) and "tasksets" in root or isinstance(root, list) and root and _set_like(root[0]):
            raise _Fallback  # the exact path says "each line must hold exactly one task set"
        _add_set(out, root)
    return out


_DIGITS = re.compile(r"[0-9]{1,18}")
_YAML_NULL = "tag:yaml.org,2002:null"
_YAML_BOOL = "tag:yaml.org,2002:bool"


class _Bool:
    """A YAML boolean: never a time value or a priority (the exact path names the error)."""


def _yaml_value(node: yaml.Node) -> Any:
    """A composed YAML node as the exact path reads it.

    A scalar is None (tagged null), a boolean marker, an int (plain ASCII digits, any other tag:
    read from its text, as the exact path reads times) or its text; keys are texts.
    """
    if isinstance(node, yaml.ScalarNode):
        tag, text = node.tag, node.value
        if tag == _YAML_NULL:
            return None
        if tag == _YAML_BOOL:
            return _Bool
        return int(text) if _DIGITS.fullmatch(text) else text
    if isinstance(node, yaml.SequenceNode):
        return list(map(_yaml_value, node.value))
    out = {}
    for key, value in node.value:
        if not isinstance(key, yaml.ScalarNode) or key.value in out:
            raise _Fallback
        out[key.value] = _yaml_value(value)
    return out


def _read_yaml(text: str) -> _Sets:
    loader = getattr(yaml, "CSafeLoader", None)
    if loader is None or "&" in text or "*" in text:  # no libyaml, or maybe aliases (the exact path refuses them)
        raise _Fallback
    root = yaml.compose(text, Loader=loader)
    if root is None:
        raise _Fallback
    out = _Sets()
    for node in _doc_sets(_yaml_value(root)):
        _add_set(out, node)  # a name written as digits is an int here: _add_set falls back
    return out


#: A txt line in the fast subset: blank, a separator, or "C D T [name]", with an optional comment.
_TXT_LINE = re.compile(
    r"^[ \t]*(?:(---)|([0-9]{1,18})[ \t]+([0-9]{1,18})[ \t]+([0-9]{1,18})(?:[ \t]+([^\s#]+))?)?[ \t\r]*(?:#[^\n]*)?$",
    re.M,
)


def _names_of(column: Sequence[str]) -> tuple[str, ...] | None:
    """A column of name cells ("" for none) as a set's names."""
    return tuple(column) if any(column) else None


def _add_columns(
    out: _Sets, C: Sequence[str], D: Sequence[str], T: Sequence[str], starts: list[int], checked: bool = False
) -> None:
    """Add the sets of the text columns C, D, T; set s starts at row ``starts[s]``.

    The cells must be plain integers: checked here unless ``checked`` (the caller's pattern did).
    """
    cells = list(chain.from_iterable(zip(C, D, T, strict=True)))
    if not checked and not _DIGIT_LIST.fullmatch(",".join(cells)):
        raise _Fallback
    out.values = list(map(int, cells))
    out.sizes = np.diff([*starts, len(C)]).tolist()


_DIGIT_LIST = re.compile(r"[0-9]{1,18}(?:,[0-9]{1,18})*")
_PRIORITY_CELL = re.compile(r"[+-]?[0-9]{1,18}")


def _read_txt(text: str) -> _Sets:
    lines = _TXT_LINE.findall(text)
    if len(lines) != text.count("\n") + 1:  # a line outside the subset
        raise _Fallback
    seps, C, D, T, names = zip(*lines, strict=True)
    is_task = np.fromiter(map(bool, C), dtype=bool, count=len(C))
    is_sep = np.fromiter(map(bool, seps), dtype=bool, count=len(C))
    set_of = np.cumsum(is_sep)[is_task]  # the set of each task: separators before it
    if np.unique(set_of).size != int(is_sep.sum()) + 1:
        raise _Fallback  # no task, or a set without tasks
    starts = np.flatnonzero(np.diff(set_of, prepend=-1)).tolist()
    out = _Sets()
    task_names = list(compress(names, is_task))
    _add_columns(
        out, list(compress(C, is_task)), list(compress(D, is_task)), list(compress(T, is_task)), starts, checked=True
    )
    bounds = [*starts, len(task_names)]
    out.names = [_names_of(task_names[a:b]) for a, b in zip(bounds, bounds[1:], strict=False)]
    out.set_names = [None] * len(starts)
    out.prios = [None] * len(starts)
    return out


_CSV_COLUMNS = {"c": "C", "d": "D", "t": "T", "name": "name", "priority": "priority", "set": "set"}


def _read_csv(text: str) -> _Sets:
    # Empty rows are dropped; a row of blank cells is not (the exact path skips it: here it falls back).
    rows = list(filter(None, csv.reader(io.StringIO(text, newline=""))))
    if len(rows) < 2:
        raise _Fallback
    header, body = rows[0], rows[1:]
    cols: dict[str, int] = {}
    for j, cell in enumerate(header):
        key = _CSV_COLUMNS.get(cell.strip().lower())
        if key is None or key in cols:
            raise _Fallback
        cols[key] = j
    if not {"C", "D", "T"} <= cols.keys() or set(map(len, body)) != {len(header)}:
        raise _Fallback
    columns: list[Sequence[str]] = list(zip(*body, strict=True))
    order: Sequence[int] = range(len(body))
    starts = [0]
    if "set" in cols:
        numbers = columns[cols["set"]]
        if not _DIGIT_LIST.fullmatch(",".join(numbers)):
            raise _Fallback
        keys = list(map(int, numbers))
        group = {k: g for g, k in enumerate(dict.fromkeys(keys))}
        ids = np.fromiter(map(group.__getitem__, keys), dtype=np.int64, count=len(keys))
        order = np.argsort(ids, kind="stable").tolist()
        starts = np.flatnonzero(np.diff(ids[order], prepend=-1)).tolist()
        columns = [[col[i] for i in order] for col in columns]
    out = _Sets()
    _add_columns(out, columns[cols["C"]], columns[cols["D"]], columns[cols["T"]], starts)
    bounds = [*starts, len(order)]
    spans = list(zip(bounds, bounds[1:], strict=False))
    names = columns[cols["name"]] if "name" in cols else None
    out.names = [None if names is None else _names_of(names[a:b]) for a, b in spans]
    out.set_names = [None] * len(spans)
    out.prios = [None] * len(spans)
    if "priority" in cols:
        cells = columns[cols["priority"]]
        for s, (a, b) in enumerate(spans):
            given = [c.strip() for c in cells[a:b]]
            if any(given):
                if not all(_PRIORITY_CELL.fullmatch(c) for c in given):
                    raise _Fallback
                out.prios[s] = list(map(int, given))
    return out


_READERS: dict[str, Callable[[str], _Sets]] = {
    "json": _read_json,
    "jsonl": _read_jsonl,
    "yaml": _read_yaml,
    "txt": _read_txt,
    "csv": _read_csv,
}


def _priority_order(prios: list[Any], n: int) -> list[int] | None:
    """The positions highest priority first, or None if already in order; refuse what is not plain."""
    if len(prios) != n or set(map(type, prios)) != {int} or len(set(prios)) != n:
        raise _Fallback
    order = sorted(range(n), key=prios.__getitem__)
    return None if order == list(range(n)) else order


def fast_loads(text: str, fmt: str, deadlines: DeadlineModel) -> list[TaskSet] | None:
    """The task sets of ``text`` (a ``fmt`` document read without a time unit), or None.

    None: the text is outside the fast path's subset (or wrong); read it with the exact path.
    """
    reader = _READERS.get(fmt)
    if reader is None:
        return None
    try:
        sets = reader(text)
        n_sets = len(sets.sizes)
        if not n_sets or n_sets > stream.MAX_SETS or set(map(type, sets.values)) != {int}:
            raise _Fallback
        sizes = np.asarray(sets.sizes, dtype=np.int64)
        if int(sizes.min()) < 1 or int(sizes.max()) > MAX_TASKS:
            raise _Fallback
        values = np.asarray(sets.values, dtype=np.int64).reshape(-1, 3)  # OverflowError past int64
        offsets = np.zeros(n_sets + 1, dtype=np.int64)
        np.cumsum(sizes, out=offsets[1:])
        if offsets[-1] != values.shape[0]:
            raise _Fallback
        names = sets.names
        if any(p is not None for p in sets.prios):
            perm = np.arange(values.shape[0])
            names = list(names)
            for s, prios in enumerate(sets.prios):
                if prios is None:
                    continue
                lo, n = int(offsets[s]), int(sizes[s])
                order = _priority_order(prios, n)
                if order is not None:
                    perm[lo : lo + n] = lo + np.asarray(order)
                    row = names[s]
                    names[s] = None if row is None else tuple(row[i] for i in order)
            values = values[perm]
        C, D, T = (np.ascontiguousarray(values[:, k]) for k in range(3))
        batch = TaskSetBatch.adopt(C, D, T, offsets, deadlines=deadlines)
        return batch.tasksets(names, sets.set_names)
    except (_Fallback, InputError, ValueError, TypeError, KeyError, IndexError, OverflowError, RecursionError):
        return None
    except yaml.YAMLError:
        return None
