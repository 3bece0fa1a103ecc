"""DAG task-set files: YAML and JSON, DOT (graphviz) and the DAG survey library's YAML.

Formats (examples in papers/dag-model.md)
------------------------------------------
``yaml`` (``.yaml``, ``.yml``) and ``json`` (``.json``)
    One task set, written as a list of tasks or as ``{name: optional, tasks: [...]}``, or several:
    ``{tasksets: [...]}`` or a list whose first element is an object with ``tasks``. A task is
    ``{name: optional, T, D, vertices: [{id, C, type: optional}, ...], edges: [[from, to], ...]}``;
    ``id`` is a string or an integer, unique in its task, and edges name vertices by id. Vertex ids
    become the vertices' names, unless they are exactly 0, 1, ..., n - 1 in order (then the
    vertices are unnamed); an unnamed vertex is written with its index as id.
``dot`` (``.dot``, ``.gv``)
    One task set per file, one ``digraph`` per task: its ID is the task's name, the graph
    attributes ``T`` and ``D`` (``T=100;`` or ``graph [T=100, D=80];``) its period and deadline, a
    node statement ``v1 [C=3, type=gpu];`` a vertex and ``v1 -> v2 -> v3;`` edges. A small strict
    parser of that subset of the DOT language: comments (``//``, ``/* */``, ``#`` lines), quoted
    IDs and optional ``;``/``,`` are accepted; undirected graphs, subgraphs, ``node``/``edge``
    default statements, ports and other attributes are refused, naming the line. The set's name
    is not kept.
``survey`` (only by name: ``format="survey"``)
    The YAML read by the DAG-scheduling library of the survey of Verucchi, Olmedo and Bertogna
    (Real-Time Systems, 2023; https://github.com/mive93/DAG-scheduling, ``demo/taskset.yaml``):
    ``{tasks: [{t, d, vertices: [{id, c, p: optional, s: optional}], edges: [{from, to}, ...]}]}``
    with integer ids. ``s``, the index of the kind of engine, is read as the type ``"cpu"`` (0)
    or ``"s<k>"`` (k ≥ 1) and written back from those types; ``p``, the core a vertex is pinned
    to, is not part of rtsched's model and is dropped. The library's earlier misspelt key
    ``vetices`` is read too. One task set per file; names are not kept.

Values follow the number rule of :mod:`rtsched.io` (integers written with the digits 0-9), and
every error is one :class:`~rtsched.errors.InputError` naming the file, the line, the task set
(when the file holds several), the task, the field and, in its message, the vertex.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, NoReturn

import yaml

from rtsched.dag.model import DEFAULT_TYPE, DAGTask, DAGTaskSet
from rtsched.errors import InputError
from rtsched.io import (
    Node,
    Scalar,
    check_keys,
    describe_node,
    node_text,
    node_to_int,
    read_text,
    scalar_to_int,
)
from rtsched.io.numbers import clip
from rtsched.io.workload_files import (
    check_format,
    doc_sets,
    in_source,
    parse_document,
    source_and_format,
    task_label,
    write_document,
)

__all__ = ["DAG_FORMATS", "dumps_dag", "loads_dag", "read_dag_tasksets", "write_dag_tasksets"]

#: The formats :func:`~rtsched.dag.loads_dag` and :func:`~rtsched.dag.dumps_dag` understand.
DAG_FORMATS = ("yaml", "json", "dot", "survey")
_EXTENSIONS = {"yaml": "yaml", "yml": "yaml", "json": "json", "dot": "dot", "gv": "dot", "survey": "survey"}
#: The formats told by a file's extension (the survey's YAML is told by ``format="survey"`` only).
_BY_EXTENSION = {ext: fmt for ext, fmt in _EXTENSIONS.items() if ext != "survey"}
_CANNOT_TELL = "DAG task sets are .yaml, .yml, .json, .dot or .gv files (format='survey' for the survey library's YAML)"
_INDEX = re.compile(r"0|[1-9][0-9]*")


def _check_format(format: str) -> str:
    return check_format(format, _EXTENSIONS, "DAG", DAG_FORMATS)


# -- YAML, JSON and the survey's YAML: documents of nodes ------------------------------------------


@dataclass(frozen=True)
class _Schema:
    """The keys of a task document: rtsched's own or the survey library's."""

    T: str
    D: str
    C: str
    vertices: tuple[str, ...]  # the accepted spellings, the first is written
    task_keys: tuple[str, ...]
    vertex_keys: tuple[str, ...]
    survey: bool


_OWN = _Schema("T", "D", "C", ("vertices",), ("name", "T", "D", "vertices", "edges"), ("id", "C", "type"), False)
_SURVEY = _Schema(
    "t", "d", "c", ("vertices", "vetices"), ("t", "d", "vertices", "vetices", "edges"), ("id", "c", "p", "s"), True
)


def _vertex_id(node: Node, survey: bool, **where: Any) -> str:
    value = node.value
    if not isinstance(value, Scalar) or value.kind in ("bool", "null") or not value.text:
        raise InputError(
            f"a vertex id must be a string or an integer, got {describe_node(node)}", line=node.line, **where
        )
    if survey:
        return str(node_to_int(node, "", **where))
    return value.text  # as written: a quoted id keeps its blanks


def _set_from_node(node: Node, schema: _Schema) -> DAGTaskSet:
    value, name = node.value, None
    if isinstance(value, dict):
        check_keys(node, ["tasks"] if schema.survey else ["name", "tasks"], ["tasks"])
        name = None if schema.survey else node_text(value.get("name"))
        tasks = value["tasks"]
        if not isinstance(tasks.value, list):
            raise InputError(f"'tasks' must be a list, got {describe_node(tasks)}", line=tasks.line, field="tasks")
        items, line = tasks.value, tasks.line
    elif isinstance(value, list) and not schema.survey:
        items, line = value, node.line
    else:
        want = "{tasks: [...]}" if schema.survey else "a list of tasks or {name: .., tasks: [...]}"
        raise InputError(f"expected a DAG task set, {want}, got {describe_node(node)}", line=node.line)
    if not items:
        raise InputError("a DAG task set needs at least one task", line=line, field="tasks")
    return DAGTaskSet([_task_from_node(t, i, schema) for i, t in enumerate(items)], name=name)


def _task_from_node(node: Node, i: int, schema: _Schema) -> DAGTask:
    if not isinstance(node.value, dict):
        raise InputError(
            f"expected a DAG task {{{schema.T}: .., {schema.D}: .., vertices: [...], edges: [...]}}, got {describe_node(node)}",
            line=node.line,
            task=i,
        )
    v = node.value
    name = node_text(v.get("name"), task=i) if not schema.survey else None
    label = task_label(i, name)
    vkey = next((k for k in schema.vertices if k in v), schema.vertices[0])
    check_keys(node, schema.task_keys, [schema.T, schema.D, vkey], task=label)
    T = node_to_int(v[schema.T], "", task=label, field=schema.T)
    D = node_to_int(v[schema.D], "", task=label, field=schema.D)
    vertices = v[vkey]
    if not isinstance(vertices.value, list) or not vertices.value:
        raise InputError(
            f"'{vkey}' must be a non-empty list of vertices, got {describe_node(vertices)}",
            line=vertices.line,
            task=label,
            field=vkey,
        )
    ids: dict[str, int] = {}
    wcets: list[int] = []
    types: list[str] = []
    c_lines: list[int | None] = []
    for j, vnode in enumerate(vertices.value):
        if not isinstance(vnode.value, dict):
            raise InputError(
                f"vertex {j}: expected {{id: .., {schema.C}: ..}}, got {describe_node(vnode)}",
                line=vnode.line,
                task=label,
                field=vkey,
            )
        check_keys(vnode, schema.vertex_keys, ["id", schema.C], task=label)
        vid = _vertex_id(vnode.value["id"], schema.survey, task=label, field="id")
        if vid in ids:
            raise InputError(
                f"vertex {clip(vid)}: the id is used twice (vertices {ids[vid]} and {j})",
                line=vnode.value["id"].line,
                task=label,
                field="id",
            )
        ids[vid] = j
        wcets.append(node_to_int(vnode.value[schema.C], f"vertex {clip(vid)}: ", task=label, field=schema.C))
        c_lines.append(vnode.value[schema.C].line)
        types.append(_vertex_type(vnode, vid, schema, label))
    edges, edge_lines = _edges_from_node(v.get("edges"), ids, schema, label)
    names = list(ids)
    try:
        return DAGTask(
            wcets,
            edges,
            T,
            D,
            types=types,
            name=name,
            vertex_names=None if names == [str(k) for k in range(len(names))] else names,
        )
    except InputError as err:
        line = _error_line(err, node, c_lines, edge_lines, schema)
        raise type(err)(err.message, line=line, task=label, field=err.field) from None


def _vertex_type(vnode: Node, vid: str, schema: _Schema, label: int | str) -> str:
    v = vnode.value
    if schema.survey:
        if "p" in v:  # the core the vertex is pinned to: checked, then dropped (not in rtsched's model)
            node_to_int(v["p"], f"vertex {clip(vid)}: ", task=label, field="p")
        if "s" not in v:
            return DEFAULT_TYPE
        s = node_to_int(v["s"], f"vertex {clip(vid)}: ", task=label, field="s")
        if s < 0:
            raise InputError(
                f"vertex {clip(vid)}: s must be an engine index ≥ 0, got {s}", line=v["s"].line, task=label, field="s"
            )
        return DEFAULT_TYPE if s == 0 else f"s{s}"
    tnode = v.get("type")
    if tnode is None:
        return DEFAULT_TYPE
    if not isinstance(tnode.value, Scalar) or tnode.value.kind not in ("str", "num") or not tnode.value.text.strip():
        raise InputError(
            f"vertex {clip(vid)}: a type must be a name, got {describe_node(tnode)}",
            line=tnode.line,
            task=label,
            field="type",
        )
    return tnode.value.text.strip()


def _edges_from_node(
    node: Node | None, ids: dict[str, int], schema: _Schema, label: int | str
) -> tuple[list[tuple[int, int]], list[int | None]]:
    if node is None or (isinstance(node.value, Scalar) and node.value.kind == "null"):
        return [], []
    if not isinstance(node.value, list):
        raise InputError(
            f"'edges' must be a list, got {describe_node(node)}", line=node.line, task=label, field="edges"
        )
    edges, lines = [], []
    for k, enode in enumerate(node.value):
        if schema.survey:
            if not isinstance(enode.value, dict):
                raise InputError(
                    f"edge {k}: expected {{from: .., to: ..}}, got {describe_node(enode)}",
                    line=enode.line,
                    task=label,
                    field="edges",
                )
            check_keys(enode, ["from", "to"], ["from", "to"], task=label)
            ends = [enode.value["from"], enode.value["to"]]
        else:
            if not isinstance(enode.value, list) or len(enode.value) != 2:
                raise InputError(
                    f"edge {k}: expected [from, to], got {describe_node(enode)}",
                    line=enode.line,
                    task=label,
                    field="edges",
                )
            ends = enode.value
        pair = []
        for end in ends:
            vid = _vertex_id(end, schema.survey, task=label, field="edges")
            if vid not in ids:
                known = ", ".join(clip(x, 12) for x in list(ids)[:8]) + (", ..." if len(ids) > 8 else "")
                raise InputError(
                    f"edge {k} names the unknown vertex {clip(vid)!r} (the vertices are {known})",
                    line=end.line,
                    task=label,
                    field="edges",
                )
            pair.append(ids[vid])
        edges.append((pair[0], pair[1]))
        lines.append(enode.line)
    return edges, lines


def _error_line(
    err: InputError, node: Node, c_lines: list[int | None], edge_lines: list[int | None], schema: _Schema
) -> int | None:
    """The line of what a model error is about: its edge, its vertex's C, or its field."""
    edge, vertex = getattr(err, "edge", None), getattr(err, "vertex", None)
    if edge is not None and edge < len(edge_lines):
        return edge_lines[edge]
    if vertex is not None and vertex < len(c_lines):
        return c_lines[vertex]
    key = {"T": schema.T, "D": schema.D, "edges": "edges"}.get(err.field or "")
    child = node.value.get(key) if key else None
    return child.line if child is not None else node.line


def _read_document(text: str, fmt: str) -> list[DAGTaskSet]:
    root = parse_document(text, fmt)
    if fmt == "survey":
        return [_set_from_node(root, _SURVEY)]
    nodes, many = doc_sets(root)
    out = []
    for s, node in enumerate(nodes):
        try:
            out.append(_set_from_node(node, _OWN))
        except InputError as err:
            raise err.located(set_index=s) if many else err from None
    return out


def _id_doc(task: DAGTask, v: int) -> int | str:
    nm = None if task.vertex_names is None else task.vertex_names[v]
    if nm is None:
        return v
    return int(nm) if _INDEX.fullmatch(nm) else nm


def _task_doc(task: DAGTask, i: int, s: int | None) -> dict[str, Any]:
    ids = [_id_doc(task, v) for v in range(task.n)]
    if len({str(x) for x in ids}) != len(ids):
        raise InputError(
            "the vertex ids collide (an unnamed vertex is written with its index as id); name every vertex",
            set_index=s,
            task=task_label(i, task.name),
            field="vertex_names",
        )
    doc: dict[str, Any] = {} if task.name is None else {"name": task.name}
    doc["T"], doc["D"] = task.T, task.D
    doc["vertices"] = [
        {"id": ids[v], "C": c} | ({} if task.vertex_type(v) == DEFAULT_TYPE else {"type": task.vertex_type(v)})
        for v, c in enumerate(task.wcets)
    ]
    doc["edges"] = [[ids[u], ids[v]] for u, v in task.edges]
    return doc


def _set_doc(ts: DAGTaskSet, s: int | None) -> dict[str, Any]:
    return ({} if ts.name is None else {"name": ts.name}) | {"tasks": [_task_doc(t, i, s) for i, t in enumerate(ts)]}


def _survey_doc(ts: DAGTaskSet) -> dict[str, Any]:
    tasks = []
    for i, task in enumerate(ts):
        vertices = []
        for v, c in enumerate(task.wcets):
            vdoc: dict[str, Any] = {"id": v, "c": c}
            ty = task.vertex_type(v)
            if ty != DEFAULT_TYPE:
                if not re.fullmatch(r"s[1-9][0-9]*", ty):
                    raise InputError(
                        f"vertex {task.vertex_label(v)}: the survey format has engine indices only; "
                        f"the type {clip(ty)!r} must be 'cpu' or s1, s2, ... to be written",
                        task=task_label(i, task.name),
                        field="types",
                    )
                vdoc["s"] = int(ty[1:])
            vertices.append(vdoc)
        tasks.append(
            {"t": task.T, "d": task.D, "vertices": vertices, "edges": [{"from": u, "to": v} for u, v in task.edges]}
        )
    return {"tasks": tasks}


def _dump_yaml(doc: Any) -> str:
    return yaml.safe_dump(doc, sort_keys=False, default_flow_style=None, allow_unicode=True, width=2**31 - 1)


# -- DOT --------------------------------------------------------------------------------------------

#: One DOT token: blanks or a comment (skipped), a quoted string, an identifier or numeral, "->",
#: "--", or one punctuation character. ``#`` lines are skipped by :func:`_dot_tokens`.
_DOT_TOKEN = re.compile(
    r"""(?P<skip>[ \t\r\n]+|//[^\n]*|/\*.*?\*/)
      |(?P<string>"(?:[^"\\]|\\.)*")
      |(?P<id>[A-Za-z_\u0080-\U0010ffff][A-Za-z_0-9\u0080-\U0010ffff]*|-?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?))
      |(?P<op>->|--)
      |(?P<punct>[{}\[\];,=:])""",
    re.S | re.X,
)
_KEYWORDS = {"strict", "graph", "digraph", "node", "edge", "subgraph"}
_PLAIN_ID = re.compile(r"[A-Za-z_][A-Za-z_0-9]*|-?[0-9]+")


@dataclass(frozen=True)
class _Token:
    kind: str  # "id" (an ID, quoted or not), "keyword", "->", "--", or the punctuation itself, "end"
    text: str
    line: int


def _dot_tokens(text: str) -> list[_Token]:
    """The tokens of a DOT document, each with its line; an InputError for a character outside DOT."""
    tokens: list[_Token] = []
    pos, line = 0, 1
    while pos < len(text):
        if text[pos] == "#" and not text[text.rfind("\n", 0, pos) + 1 : pos].strip():
            end = text.find("\n", pos)
            pos = len(text) if end < 0 else end  # a preprocessor line: skipped
            continue
        match = _DOT_TOKEN.match(text, pos)
        if match is None:
            if text.startswith("/*", pos):
                raise InputError("invalid DOT: a comment /* is not closed", line=line)
            if text[pos] == '"':
                raise InputError("invalid DOT: a quoted string is not closed", line=line)
            raise InputError(f"invalid DOT: unexpected character {text[pos]!r}", line=line)
        kind = match.lastgroup or ""
        raw = match.group()
        if kind == "string":
            tokens.append(_Token("id", raw[1:-1].replace("\\\n", "").replace('\\"', '"'), line))
        elif kind == "id":
            low = raw.lower()
            tokens.append(_Token("keyword", low, line) if low in _KEYWORDS else _Token("id", raw, line))
        elif kind in ("op", "punct"):
            tokens.append(_Token(raw, raw, line))
        line += raw.count("\n")
        pos = match.end()
    tokens.append(_Token("end", "end of file", line))
    return tokens


class _DotParser:
    """A recursive-descent parser of the DOT subset of the module docstring."""

    def __init__(self, text: str) -> None:
        self.tokens = _dot_tokens(text)
        self.pos = 0
        self.task: int | str | None = None

    def peek(self) -> _Token:
        return self.tokens[self.pos]

    def take(self) -> _Token:
        token = self.tokens[self.pos]
        self.pos += 1
        return token

    def fail(self, message: str, token: _Token, field: str | None = None) -> NoReturn:
        raise InputError(message, line=token.line, task=self.task, field=field)

    def expect(self, kind: str, what: str) -> _Token:
        token = self.take()
        if token.kind != kind:
            self.fail(f"invalid DOT: expected {what}, got {_shown(token)}", token)
        return token

    def tasks(self) -> list[DAGTask]:
        out: list[DAGTask] = []
        while self.peek().kind != "end":
            out.append(self.graph(len(out)))
        if not out:
            raise InputError("the file is empty (no digraph)", line=self.peek().line)
        return out

    def graph(self, i: int) -> DAGTask:
        self.task = i
        head = self.take()
        if head.kind == "keyword" and head.text == "strict":
            self.fail("strict graphs are not supported (duplicate edges are errors already)", head)
        if head.kind == "keyword" and head.text == "graph":
            self.fail("a DAG task is a directed graph: write 'digraph', not 'graph'", head)
        if head.kind != "keyword" or head.text != "digraph":
            self.fail(f"invalid DOT: expected 'digraph', got {_shown(head)}", head)
        name = None
        if self.peek().kind == "id":
            name = self.take().text
            self.task = task_label(i, name)
        self.expect("{", "'{'")
        attrs: dict[str, tuple[str, _Token]] = {}
        ids: dict[str, int] = {}
        first: list[_Token] = []
        vattrs: list[dict[str, tuple[str, _Token]]] = []
        edges: list[tuple[int, int]] = []
        edge_tokens: list[_Token] = []

        def vertex(token: _Token) -> int:
            if token.text not in ids:
                ids[token.text] = len(ids)
                first.append(token)
                vattrs.append({})
            return ids[token.text]

        while True:
            token = self.take()
            if token.kind == "}":
                break
            if token.kind in (";", ","):
                continue
            if token.kind == "keyword":
                if token.text == "graph":
                    self.attributes(attrs, ("T", "D"), "graph")
                    continue
                if token.text in ("node", "edge"):
                    self.fail(
                        f"'{token.text} [...]' default attributes are not supported; give C on each vertex", token
                    )
                self.fail(f"invalid DOT: {token.text!r} is not supported here (no subgraphs)", token)
            if token.kind == "{":
                self.fail("subgraphs are not supported", token)
            if token.kind != "id":
                self.fail(f"invalid DOT: expected a statement, got {_shown(token)}", token)
            if self.peek().kind == "=":
                self.take()
                value = self.expect("id", "a value")
                self.put(attrs, token, value, ("T", "D"), "graph")
                continue
            if self.peek().kind == ":":
                self.fail("ports (node:port) are not supported", self.peek())
            chain = [token]
            while self.peek().kind in ("->", "--"):
                op = self.take()
                if op.kind == "--":
                    self.fail("'--' is an undirected edge; a DAG's edges are written 'u -> v'", op)
                chain.append(self.expect("id", "a vertex after '->'"))
                if self.peek().kind == ":":
                    self.fail("ports (node:port) are not supported", self.peek())
            if len(chain) == 1:
                v = vertex(token)
                if self.peek().kind == "[":
                    self.attributes(vattrs[v], ("C", "type"), f"vertex {clip(token.text)}")
                continue
            if self.peek().kind == "[":
                self.fail("edges take no attributes", self.peek())
            for a, b in zip(chain, chain[1:], strict=False):
                edges.append((vertex(a), vertex(b)))
                edge_tokens.append(b)
        return self.build(name, head, attrs, ids, first, vattrs, edges, edge_tokens)

    def attributes(self, into: dict[str, tuple[str, _Token]], allowed: tuple[str, ...], owner: str) -> None:
        """One or more ``[key=value, ...]`` lists, into ``into``."""
        if self.peek().kind != "[":
            self.fail(f"invalid DOT: expected '[', got {_shown(self.peek())}", self.peek())
        while self.peek().kind == "[":
            self.take()
            while self.peek().kind != "]":
                key = self.expect("id", "an attribute name or ']'")
                self.expect("=", "'=' after the attribute name")
                self.put(into, key, self.expect("id", "a value"), allowed, owner)
                if self.peek().kind in (",", ";"):
                    self.take()
            self.take()

    def put(
        self, into: dict[str, tuple[str, _Token]], key: _Token, value: _Token, allowed: tuple[str, ...], owner: str
    ) -> None:
        if key.text not in allowed:
            self.fail(
                f"{owner}: unknown attribute {clip(key.text)!r} (expected {', '.join(allowed)})",
                key,
                key.text if key.text.isprintable() else None,
            )
        if key.text in into:
            self.fail(
                f"{owner}: {key.text} is given twice (lines {into[key.text][1].line} and {key.line})", key, key.text
            )
        into[key.text] = (value.text, value)

    def build(
        self,
        name: str | None,
        head: _Token,
        attrs: dict[str, tuple[str, _Token]],
        ids: dict[str, int],
        first: list[_Token],
        vattrs: list[dict[str, tuple[str, _Token]]],
        edges: list[tuple[int, int]],
        edge_tokens: list[_Token],
    ) -> DAGTask:
        def number(field: str, token: _Token, prefix: str) -> int:
            try:
                value = scalar_to_int(Scalar("num", token.text), None)
            except InputError as err:
                self.fail(prefix + err.message, token, field)
            assert isinstance(value, int)
            return value

        for key in ("T", "D"):
            if key not in attrs:
                self.fail(f"the graph has no {key} (write {key}=...; inside the digraph)", head, key)
        if not ids:
            self.fail("the digraph has no vertex", head)
        wcets, types = [], []
        for vid, v in ids.items():
            if "C" not in vattrs[v]:
                self.fail(f"vertex {clip(vid)} has no C (write {clip(vid)} [C=...];)", first[v], "C")
            wcets.append(number("C", vattrs[v]["C"][1], f"vertex {clip(vid)}: "))
            types.append(vattrs[v]["type"][0] if "type" in vattrs[v] else DEFAULT_TYPE)
        names = list(ids)
        try:
            return DAGTask(
                wcets,
                edges,
                number("T", attrs["T"][1], ""),
                number("D", attrs["D"][1], ""),
                types=types,
                name=name,
                vertex_names=None if names == [str(k) for k in range(len(names))] else names,
            )
        except InputError as err:
            edge, vertex = getattr(err, "edge", None), getattr(err, "vertex", None)
            if edge is not None:
                token = edge_tokens[edge]
            elif vertex is not None:
                token = vattrs[vertex]["C"][1] if err.field == "C" else first[vertex]
            elif err.field in ("T", "D"):
                token = attrs[err.field][1]
            else:
                token = head
            raise type(err)(err.message, line=token.line, task=self.task, field=err.field) from None


def _shown(token: _Token) -> str:
    return token.text if token.kind == "end" else repr(clip(token.text))


def _dot_id(text: str, *, task: int | str, field: str) -> str:
    if _PLAIN_ID.fullmatch(text) and text.lower() not in _KEYWORDS:
        return text
    if "\\" in text or "\n" in text or "\r" in text:
        raise InputError(
            f"{clip(text)!r} cannot be written in DOT (it holds a backslash or a line break)", task=task, field=field
        )
    return '"' + text.replace('"', '\\"') + '"'


def _dump_dot(ts: DAGTaskSet) -> str:
    blocks = []
    for i, task in enumerate(ts):
        label = task_label(i, task.name)
        ids = [str(_id_doc(task, v)) for v in range(task.n)]
        if len(set(ids)) != len(ids):
            raise InputError("the vertex ids collide; name every vertex", task=label, field="vertex_names")
        dot_ids = [_dot_id(x, task=label, field="vertex_names") for x in ids]
        head = "digraph" + ("" if task.name is None else " " + _dot_id(task.name, task=label, field="name"))
        lines = [head + " {", f"  T={task.T};", f"  D={task.D};"]
        for v, c in enumerate(task.wcets):
            ty = task.vertex_type(v)
            extra = "" if ty == DEFAULT_TYPE else f", type={_dot_id(ty, task=label, field='types')}"
            lines.append(f"  {dot_ids[v]} [C={c}{extra}];")
        lines.extend(f"  {dot_ids[u]} -> {dot_ids[v]};" for u, v in task.edges)
        lines.append("}")
        blocks.append("\n".join(lines) + "\n")
    return "\n".join(blocks)


# -- public functions ----------------------------------------------------------------------------------


def loads_dag(text: str, format: str = "yaml", *, source: str = "<string>") -> list[DAGTaskSet]:
    """Parse DAG task sets from text.

    Parameters
    ----------
    text:
        The document.
    format:
        ``"yaml"``, ``"json"``, ``"dot"`` or ``"survey"`` (or an extension such as ``"yml"``, ``"gv"``).
    source:
        The name errors give as the file.

    Returns
    -------
    list of DAGTaskSet
        The sets, in the order of the document (DOT and survey: one set).

    Raises
    ------
    InputError
        Naming the source, line, task set (when there are several), task and field of the first
        problem, and the vertex in its message.
    """

    def parse() -> list[DAGTaskSet]:
        fmt = _check_format(format)
        if not text.strip():
            raise InputError("the file is empty")
        if fmt == "dot":
            return [DAGTaskSet(_DotParser(text).tasks())]
        return _read_document(text, fmt)

    return in_source(source, parse)


def dumps_dag(sets: DAGTaskSet | Iterable[DAGTaskSet], format: str = "yaml") -> str:
    """Write DAG task sets as text that :func:`~rtsched.dag.loads_dag` reads back to equal sets.

    Parameters
    ----------
    sets:
        One :class:`DAGTaskSet` or several.
    format:
        As for :func:`~rtsched.dag.loads_dag`. DOT does not keep the set's name; the survey format keeps no
        names and only the types ``cpu``, ``s1``, ``s2``, ...; both hold one set.

    Returns
    -------
    str
        The document.

    Raises
    ------
    InputError
        For what the format cannot hold (several sets in DOT or survey, a type the survey format
        cannot write), naming the task and the vertex.
    """
    items = [sets] if isinstance(sets, DAGTaskSet) else list(sets)
    for s, ts in enumerate(items):
        if not isinstance(ts, DAGTaskSet):
            raise InputError(f"expected DAGTaskSet objects, got {type(ts).__name__}", set_index=s)
    fmt = _check_format(format)
    if fmt in ("dot", "survey"):
        if len(items) != 1:
            raise InputError(f"a {fmt} file holds exactly one task set, got {len(items)}; write one file per set")
        return _dump_dot(items[0]) if fmt == "dot" else _dump_yaml(_survey_doc(items[0]))
    many = len(items) != 1
    doc: Any = {"tasksets": [_set_doc(ts, s) for s, ts in enumerate(items)]} if many else _set_doc(items[0], None)
    if fmt == "json":
        return json.dumps(doc, indent=1, ensure_ascii=False) + "\n"
    return _dump_yaml(doc)


def _format_of(path: str | os.PathLike[str], format: str | None) -> tuple[str, str]:
    return source_and_format(path, format, _check_format, _BY_EXTENSION, _CANNOT_TELL)


def read_dag_tasksets(path: str | os.PathLike[str], format: str | None = None) -> list[DAGTaskSet]:
    """Read the DAG task sets of a file.

    Parameters
    ----------
    path:
        The file; ``"-"`` is standard input (then give ``format``).
    format:
        One of :data:`DAG_FORMATS`; by default told by the extension (``.yaml``, ``.yml``,
        ``.json``, ``.dot``, ``.gv``). The survey library's YAML needs ``format="survey"``.

    Returns
    -------
    list of DAGTaskSet
        The sets of the file.

    Raises
    ------
    InputError
        Naming the file, line, task set, task and field (and the vertex in the message).
    """
    source, fmt = _format_of(path, format)
    return loads_dag(read_text(path, source), fmt, source=source)


def write_dag_tasksets(
    path: str | os.PathLike[str], sets: DAGTaskSet | Iterable[DAGTaskSet], format: str | None = None
) -> None:
    """Write DAG task sets to a file (format as for :func:`read_dag_tasksets`).

    Parameters
    ----------
    path:
        The file, replaced if it exists.
    sets:
        One :class:`DAGTaskSet` or several.
    format:
        One of :data:`DAG_FORMATS`; by default told by the extension.

    Raises
    ------
    InputError
        As :func:`~rtsched.dag.dumps_dag`, naming the file.
    """
    source, fmt = _format_of(path, format)
    write_document(path, source, lambda: dumps_dag(sets, fmt))
