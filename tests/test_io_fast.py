"""The fast path of the readers (rtsched.io.fast) returns exactly what the exact path returns, or falls back.

Generated documents of every format, valid and invalid (odd spellings of values, bad structure,
priorities, names, set columns, comments): whenever the fast path answers, its sets equal the exact
path's (values, task and set names, priority order, deadline model); whenever the exact path refuses
the text, the fast path does not answer, so ``loads`` gives the exact path's message unchanged.
Plain documents are read by the fast path (so these checks compare something).
"""

from __future__ import annotations

import json
import pickle
from typing import Any
from unittest import mock

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rtsched.io.tasksets as tasksets_module
from rtsched import TaskSet, TaskSetBatch
from rtsched.errors import InputError
from rtsched.io import dumps, loads
from rtsched.io.fast import fast_loads

FORMATS = ("json", "jsonl", "yaml", "csv", "txt")
MODELS = ("constrained", "implicit", "arbitrary")
#: Spellings the exact path reads differently or refuses: each must make the fast path fall back or agree.
ODD = [
    "0",
    "-1",
    "+5",
    " 5",
    "5.0",
    "1e3",
    "1_0",
    "true",
    "null",
    '"7"',
    "'7'",
    "2147483648",
    "99999999999999999999",
    "٣",
    "",
    "x",
    "0x10",
    "007",
    "1:30",
    "~",
]
NAMES = [None, "a", "b c", "#x", "", "--- ", "t-1", "é", "5", "true", "a,b", 'q"q', "null"]


def exact_loads(text: str, fmt: str, deadlines: str) -> list[TaskSet]:
    """``loads`` with the fast path switched off: today's exact per-value reader."""
    with mock.patch.object(tasksets_module, "fast_loads", return_value=None):
        return loads(text, fmt, deadlines=deadlines)  # type: ignore[arg-type]


def same_sets(a: list[TaskSet], b: list[TaskSet]) -> bool:
    return len(a) == len(b) and all(
        x == y
        and x.names == y.names
        and x.name == y.name
        and x.deadlines == y.deadlines
        and x.C.dtype == np.int64
        and not x.C.flags.writeable
        and x.C.flags.c_contiguous
        for x, y in zip(a, b, strict=True)
    )


value_token = st.one_of(st.integers(1, 40).map(str), st.integers(1, 40).map(str), st.sampled_from(ODD))


@st.composite
def task(draw: Any, odd: bool) -> dict[str, Any]:
    if odd:
        cdt = [draw(value_token) for _ in range(3)]
    else:
        cdt = sorted(draw(st.lists(st.integers(1, 40), min_size=3, max_size=3)))
        if draw(st.booleans()):
            cdt[1] = cdt[2]
        cdt = [str(v) for v in cdt]
    return {
        "cdt": cdt,
        "name": draw(st.sampled_from(NAMES)),
        "prio": draw(st.one_of(st.none(), st.integers(-3, 12).map(str))),
    }


@st.composite
def document(draw: Any) -> tuple[str, str]:
    fmt = draw(st.sampled_from(FORMATS))
    odd = draw(st.booleans())
    n_sets = draw(st.integers(1, 3))
    sets = []
    for _ in range(n_sets):
        tasks = draw(st.lists(task(odd), min_size=0 if odd else 1, max_size=5))
        if not draw(st.booleans()) or not odd:  # priorities all or none, unless odd
            given_prio = draw(st.booleans())
            perm = draw(st.permutations(range(len(tasks))))
            for t, p in zip(tasks, perm, strict=True):
                t["prio"] = str(p * 2 - 3) if given_prio else None
        if not odd and draw(st.booleans()):
            for t in tasks:
                t["name"] = None
        sets.append({"name": draw(st.sampled_from(NAMES)), "tasks": tasks})
    return fmt, RENDER[fmt](draw, sets, odd)


def _json_task(draw: Any, t: dict[str, Any], odd: bool) -> str:
    c, d, tt = t["cdt"]
    if t["prio"] is None and draw(st.booleans()):
        parts = [c, d, tt] + ([] if t["name"] is None else [json.dumps(t["name"])])
        return "[" + ", ".join(parts) + "]"
    items = [f'"C": {c}', f'"D": {d}', f'"T": {tt}']
    if t["name"] is not None:
        items.append(f'"name": {json.dumps(t["name"])}')
    if t["prio"] is not None:
        items.append(f'"priority": {t["prio"]}')
    if odd:
        choice = draw(st.integers(0, 9))
        if choice == 0:
            items.pop(draw(st.integers(0, 2)))
        elif choice == 1:
            items.append(items[0])  # a duplicate key
        elif choice == 2:
            items.append('"period": 3')
    items = draw(st.permutations(items))
    return "{" + ", ".join(items) + "}"


def _json_set(draw: Any, s: dict[str, Any], odd: bool) -> str:
    tasks = "[" + ", ".join(_json_task(draw, t, odd) for t in s["tasks"]) + "]"
    if s["name"] is None and draw(st.booleans()):
        return tasks
    head = "" if s["name"] is None else f'"name": {json.dumps(s["name"])}, '
    return "{" + head + '"tasks": ' + tasks + "}"


def render_json(draw: Any, sets: list[dict[str, Any]], odd: bool) -> str:
    docs = [_json_set(draw, s, odd) for s in sets]
    form = draw(st.integers(0, 2))
    if len(docs) == 1 and form == 0:
        return docs[0] + "\n"
    if form == 1:
        return '{"tasksets": [' + ",\n".join(docs) + "]}"
    return "[\n" + ",\n".join(docs) + "\n]\n"


def render_jsonl(draw: Any, sets: list[dict[str, Any]], odd: bool) -> str:
    lines = [_json_set(draw, s, odd) for s in sets]
    if odd and draw(st.booleans()):
        lines.insert(
            draw(st.integers(0, len(lines))), draw(st.sampled_from(["", "   ", '{"tasksets": []}', "[[[1,2,3]]]"]))
        )
    return "\n".join(lines) + "\n"


def render_yaml(draw: Any, sets: list[dict[str, Any]], odd: bool) -> str:
    if draw(st.booleans()):
        return render_json(draw, sets, odd)  # flow style: JSON is YAML here
    out = []
    for s in sets:
        lines = [] if s["name"] is None else [f"  name: {json.dumps(s['name']) if draw(st.booleans()) else s['name']}"]
        lines.append("  tasks:")
        for t in s["tasks"]:
            c, d, tt = (v if v else "''" for v in t["cdt"])
            if t["prio"] is None and t["name"] is None and draw(st.booleans()):
                lines.append(f"  - [{c}, {d}, {tt}]")
            else:
                lines.append(f"  - C: {c}")
                lines.append(f"    D: {d}")
                lines.append(f"    T: {tt}")
                if t["name"] is not None:
                    lines.append(f"    name: {json.dumps(t['name'])}")
                if t["prio"] is not None:
                    lines.append(f"    priority: {t['prio']}")
        if not s["tasks"]:
            lines[-1] = "  tasks: []"
        lines[0] = "-" + lines[0][1:]
        out.extend(lines)
    if odd and draw(st.booleans()):
        out.append(draw(st.sampled_from(["- &a [1, 2, 3]", "---", "- *a", "- {tasks: [[1, 2, 3]], kernels: 1}"])))
    return "\n".join(out) + "\n"


def render_csv(draw: Any, sets: list[dict[str, Any]], odd: bool) -> str:
    named = any(t["name"] is not None for s in sets for t in s["tasks"])
    prio = any(t["prio"] is not None for s in sets for t in s["tasks"])
    header = (
        ["C", "D", "T"]
        + (["name"] if named else [])
        + (["priority"] if prio else [])
        + (["set"] if len(sets) > 1 else [])
    )
    rows = []
    for k, s in enumerate(sets):
        for t in s["tasks"]:
            row = [*t["cdt"]] + ([t["name"] or ""] if named else []) + ([t["prio"] or ""] if prio else [])
            rows.append(
                row
                + (
                    [str(k) if not odd else draw(st.sampled_from([str(k), str(k), f" {k}", "x", "01"]))]
                    if len(sets) > 1
                    else []
                )
            )
    if draw(st.booleans()):
        rows = draw(st.permutations(rows))  # interleaved sets
    if odd and draw(st.booleans()):
        header = [h.lower() if draw(st.booleans()) else f" {h}" for h in header]
    if odd and rows and draw(st.booleans()):
        rows[0] = rows[0][:-1]

    def cell(x: str) -> str:
        return json.dumps(x) if any(ch in x for ch in ',"\n') else x

    return "\n".join(",".join(map(cell, r)) for r in [header, *rows]) + "\n"


def render_txt(draw: Any, sets: list[dict[str, Any]], odd: bool) -> str:
    blocks = []
    for s in sets:
        lines = []
        for t in s["tasks"]:
            name = t["name"]
            line = " ".join(t["cdt"]) + ("" if name is None or name.split() != [name] or "#" in name else f" {name}")
            if draw(st.integers(0, 4)) == 0:
                line += draw(st.sampled_from(["  # note", "\t", "\r", " #", " extra"]))
            lines.append(line)
            if draw(st.integers(0, 5)) == 0:
                lines.append(draw(st.sampled_from(["", "# comment", "   "])))
        blocks.append("\n".join(lines) + "\n")
    sep = draw(st.sampled_from(["---\n", "--- \n", "---  # next\n"] + (["- - -\n"] if odd else [])))
    return sep.join(blocks)


RENDER = {"json": render_json, "jsonl": render_jsonl, "yaml": render_yaml, "csv": render_csv, "txt": render_txt}


def check_equivalent(text: str, fmt: str, model: str) -> list[TaskSet] | None:
    """The fast path agrees with the exact path on ``text``; return the fast path's answer."""
    fast = fast_loads(text, fmt, model)  # type: ignore[arg-type]
    error: str | None = None
    try:
        exact = exact_loads(text, fmt, model)
    except InputError as err:
        error = str(err)
    if error is not None:
        assert fast is None, (text, error)
        with pytest.raises(InputError) as info:
            loads(text, fmt, deadlines=model)  # type: ignore[arg-type]
        assert str(info.value) == error
        return None
    if fast is not None:
        assert same_sets(fast, exact), (text, fast, exact)
    assert same_sets(loads(text, fmt, deadlines=model), exact)  # type: ignore[arg-type]
    return fast


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(document(), st.sampled_from(MODELS))
def test_fast_path_equals_exact_path(doc: tuple[str, str], model: str) -> None:
    fmt, text = doc
    if not text.strip():
        return
    check_equivalent(text, fmt, model)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("named", [False, True], ids=["unnamed", "named"])
def test_plain_documents_take_the_fast_path(fmt: str, named: bool) -> None:
    rng = np.random.default_rng(7)
    sets = []
    for s in range(20):
        n = int(rng.integers(1, 8))
        T = rng.integers(2, 1000, n)
        C = np.minimum(rng.integers(1, 50, n), T)
        D = C + (rng.integers(0, 1000, n) % (T - C + 1))
        names = [f"t{s}_{i}" for i in range(n)] if named else None
        sets.append(TaskSet(C, D, T, names, name=f"set {s}" if named and fmt not in ("csv", "txt") else None))
    text = dumps(sets, fmt)
    fast = check_equivalent(text, fmt, "constrained")
    assert fast is not None and same_sets(fast, sets)
    assert pickle.loads(pickle.dumps(fast[3])) == sets[3]


@pytest.mark.parametrize(
    ("fmt", "text", "order"),
    [
        pytest.param(
            "json",
            '[{"C": 1, "D": 5, "T": 5, "priority": 3}, {"C": 2, "D": 6, "T": 6, "priority": -1}]',
            [1, 0],
            id="json",
        ),
        pytest.param(
            "yaml", "- {C: 1, D: 5, T: 5, priority: 3}\n- {C: 2, D: 6, T: 6, priority: 1}\n", [1, 0], id="yaml"
        ),
        pytest.param("csv", "C,D,T,priority\n1,5,5,3\n2,6,6,-1\n3,7,7,0\n", [1, 2, 0], id="csv"),
    ],
)
def test_priorities_order_the_tasks(fmt: str, text: str, order: list[int]) -> None:
    fast = check_equivalent(text, fmt, "constrained")
    assert fast is not None
    assert fast[0].C.tolist() == [[1, 2, 3][i] for i in order]


@pytest.mark.parametrize(
    ("fmt", "text"),
    [
        pytest.param("json", "[[1, 2, 3], [1, 2, 3.0]]", id="json-float"),
        pytest.param("json", '{"tasks": [[1, 2, 3]], "tasks": [[1, 2, 4]]}', id="json-duplicate-key"),
        pytest.param("json", "[[1, 2, 3], [true, 2, 3]]", id="json-bool"),
        pytest.param("yaml", "- [1, 2, 1_0]\n", id="yaml-underscore"),
        pytest.param("yaml", "- [1, 2, 0x10]\n", id="yaml-hex"),
        pytest.param("yaml", "- [1, 2, 1:30]\n", id="yaml-sexagesimal"),
        pytest.param("csv", "C,D,T\n1,2, 3\n", id="csv-space"),
        pytest.param("csv", "C,D,T\n1,2,3\n , , \n4,5,6\n", id="csv-blank-cells-row"),
        pytest.param("txt", "1 2 3\n---\n", id="txt-empty-last-set"),
        pytest.param("txt", "1 2 3\n1 2 3 a b\n", id="txt-five-tokens"),
        pytest.param("txt", "1 2 2147483648\n", id="txt-too-large"),
        pytest.param("jsonl", '{"tasksets": [[[1, 2, 3]]]}\n', id="jsonl-tasksets"),
    ],
)
def test_unusual_input_falls_back(fmt: str, text: str) -> None:
    assert fast_loads(text, fmt, "constrained") is None
    check_equivalent(text, fmt, "arbitrary")


def test_batch_tasksets_are_views_of_a_checked_batch() -> None:
    batch = TaskSetBatch([1, 2, 3], [2, 3, 4], [2, 4, 5], [0, 1, 3], deadlines="constrained")
    sets = batch.tasksets([None, ("a", "")], ["s0", None])
    assert sets == [TaskSet([1], [2], [2], name="s0"), TaskSet([2, 3], [3, 4], [4, 5], ["a", ""])]
    assert not sets[1].C.flags.writeable
    with pytest.raises(InputError, match="names for"):
        batch.tasksets([None, ("a",)])
