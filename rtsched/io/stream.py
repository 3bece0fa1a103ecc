"""Reading input within the limits: formats by extension, the size limits and the streaming counters.

:func:`~rtsched.io.detect_format` tells a format by the file's extension, and a plain ``.xml`` file by its root
element (:data:`XML_ROOTS`). :func:`~rtsched.io.read_text` reads a file or standard input in chunks, refusing
it as soon as it passes :data:`MAX_FILE_BYTES`, and counts the items of the document while it
streams in (a token scan for JSON, YAML events, lines for txt, CSV and JSON lines), so a task set
of more than ``rtsched.model.MAX_TASKS`` tasks or a file of more than :data:`MAX_SETS` sets is
refused at its first item too many, before it is parsed. The limits are read from this module when
they are checked, so one setting (``rtsched.io.stream.MAX_SETS``) governs every reader.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import stat
import sys
from collections.abc import Callable, Iterable
from typing import Any
from xml.parsers import expat

import numpy as np
import yaml

from rtsched.errors import InputError
from rtsched.io.numbers import clip, set_number
from rtsched.model import MAX_TASKS

__all__ = [
    "FORMATS",
    "TOOL_FORMATS",
    "MAX_FILE_BYTES",
    "MAX_SETS",
    "detect_format",
    "read_text",
    # For the other modules of rtsched.io (not re-exported by it):
    "XML_ROOTS",
    "check_format",
    "too_many_sets",
    "too_many_tasks",
]


#: rtsched's own formats, understood by ``loads`` and ``dumps``; each keeps every set,
#: task name and order (csv and txt: not set names).
FORMATS = ("yaml", "json", "jsonl", "csv", "txt")
#: Other tools' formats, also understood by ``loads`` and ``dumps`` (and ``"xml"``, either
#: of them told by its root element): SimSo's configuration and SchedCAT's task-set XML.
TOOL_FORMATS = ("simso", "schedcat")
#: Largest input read from a file or standard input: 64 MiB. A larger input is refused while it is
#: read (at once for a regular file), before it fills memory; split it into several files.
MAX_FILE_BYTES = 64 * 2**20
#: Most task sets in one file (or standard input): 2**20. Checked while reading, like the other limits.
MAX_SETS = 2**20
#: Bytes read at a time.
_CHUNK_BYTES = 2**20
#: The root element of each tool's XML document: SimSo's ``<simulation>``, SchedCAT's ``<taskset>``,
#: ``<testpoint>`` or ``<task>`` (what a plain ``.xml`` file is told by).
XML_ROOTS = {"simulation": "simso", "taskset": "schedcat", "testpoint": "schedcat", "task": "schedcat"}
_EXTENSIONS = {
    "yaml": "yaml",
    "yml": "yaml",
    "json": "json",
    "jsonl": "jsonl",
    "ndjson": "jsonl",
    "csv": "csv",
    "txt": "txt",
    "simso": "simso",
    "simso.xml": "simso",
    "schedcat": "schedcat",
    "schedcat.xml": "schedcat",
}


def check_format(fmt: str) -> str:
    """The canonical name of format ``fmt`` (an extension or alias such as ``yml``); InputError if unknown."""
    key = _EXTENSIONS.get(str(fmt).lower().lstrip("."))
    if key is None:
        raise InputError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS + TOOL_FORMATS)}")
    return key


def detect_format(path: str | os.PathLike[str]) -> str:
    """Tell the format of a file from its extension.

    Parameters
    ----------
    path:
        The file name; ``"-"`` (standard input) has no extension, so it is refused.

    Returns
    -------
    str
        One of :data:`FORMATS` or :data:`TOOL_FORMATS`; for a plain ``.xml`` the file's root element
        tells SimSo (``<simulation>``) from SchedCAT (``<taskset>``, ``<testpoint>``, ``<task>``).

    Raises
    ------
    InputError
        If the extension is not one of ``.yaml .yml .json .jsonl .ndjson .csv .txt .simso.xml
        .schedcat.xml .xml`` (``.xml``: SimSo or SchedCAT, told from the root element when read).
    """
    name = os.fsdecode(path)
    if name == "-":
        raise InputError(f"give the format of standard input (one of {', '.join(FORMATS)})", file="<stdin>")
    ext = os.path.splitext(name)[1].lower().lstrip(".")
    tool = os.path.splitext(os.path.splitext(name)[0])[1].lower().lstrip(".")
    if ext == "xml":
        if tool in TOOL_FORMATS:
            return tool
        return _sniff_xml_file(name)  # SimSo or SchedCAT: told by the root element
    if ext not in _EXTENSIONS:
        raise InputError(
            f"cannot tell the format from the extension {('.' + ext) if ext else '(none)'}; "
            f"give the format (one of {', '.join(FORMATS + TOOL_FORMATS)})",
            file=name,
        )
    return _EXTENSIONS[ext]


class _Root(Exception):
    def __init__(self, tag: str, line: int) -> None:
        self.tag, self.line = tag, line


def _sniff_xml_file(path: str) -> str:
    """Tell a plain ``.xml`` file's tool from its root element, reading only up to it."""
    parser = expat.ParserCreate(encoding="utf-8")  # rtsched reads UTF-8; a declared encoding is not used

    def start(tag: str, _attrs: dict[str, str]) -> None:
        raise _Root(tag, parser.CurrentLineNumber)

    def refuse_dtd(*_: Any) -> None:
        raise InputError("the document has a DOCTYPE or entity declaration; rtsched refuses them", file=path)

    parser.StartElementHandler = start
    parser.StartDoctypeDeclHandler = refuse_dtd
    parser.EntityDeclHandler = refuse_dtd
    try:
        with open(path, "rb") as f:
            while chunk := f.read(2**16):
                parser.Parse(chunk, False)
            parser.Parse(b"", True)
    except _Root as root:
        if root.tag in XML_ROOTS:
            return XML_ROOTS[root.tag]
        raise InputError(
            f"root element <{clip(root.tag)}> is neither SimSo's <simulation> nor SchedCAT's <taskset>/<testpoint>; "
            "give the format (simso or schedcat)",
            file=path,
            line=root.line,
        ) from None
    except expat.ExpatError as err:
        raise InputError(f"invalid XML: {expat.ErrorString(err.code)}", file=path, line=err.lineno) from None
    except OSError as err:
        raise InputError(f"cannot read the file: {err.strerror or err}", file=path) from None
    raise InputError("the file has no XML element", file=path)


class _LimitedReader(io.RawIOBase):
    """A binary stream that refuses to read past ``limit`` bytes and keeps what it read."""

    def __init__(self, stream: Any, source: str, limit: int) -> None:
        super().__init__()
        self._stream = stream
        self._source = source
        self._limit = limit
        self._pending = memoryview(b"")
        self.size = 0
        self.parts: list[bytes] = []

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if not self._pending:
            data = self._stream.read(min(len(buffer), _CHUNK_BYTES))
            if isinstance(data, str):  # a text stream without a buffer (e.g. io.StringIO as stdin)
                data = data.encode("utf-8", "surrogatepass")
            self.size += len(data)
            if self.size > self._limit:
                raise _too_large(self._source, self._limit)
            self.parts.append(data)
            self._pending = memoryview(data)
        n = min(len(buffer), len(self._pending))
        buffer[:n] = self._pending[:n]
        self._pending = self._pending[n:]
        return n

    def drain(self) -> None:
        while self.read(_CHUNK_BYTES):
            pass


def _too_large(source: str, limit: int) -> InputError:
    size = f"{limit // 2**20} MiB" if limit % 2**20 == 0 else f"{limit} bytes"
    return InputError(
        f"the input is larger than {size}, the limit (rtsched.io.MAX_FILE_BYTES); split it into several files",
        file=source,
    )


def too_many_tasks(line: int | None, set_index: int | None) -> InputError:
    """The error for a task set of more than ``rtsched.model.MAX_TASKS`` tasks."""
    return InputError(
        f"a task set may have at most {MAX_TASKS} tasks (rtsched.model.MAX_TASKS); this one has more",
        line=line,
        set_index=set_index,
    )


def too_many_sets(line: int | None) -> InputError:
    """The error for a file of more than :data:`MAX_SETS` task sets."""
    return InputError(
        f"a file may hold at most {MAX_SETS} task sets (rtsched.io.MAX_SETS); this one has more; split it", line=line
    )


class _Shape:
    """A counter of the items of every list (and entries of every object) of a streaming JSON or YAML document.

    It refuses a task set of more than MAX_TASKS tasks or a file of more than MAX_SETS sets at the
    item too many, in constant memory.

    The list at the top (the document, or its ``tasksets`` value) holds sets or, in the one-set
    form, tasks: which, is told from its first item as the readers do (:func:`_is_set_like`).
    Every other list or object may have at most MAX_TASKS items (a set's tasks, or a task).
    """

    def __init__(self) -> None:
        # A frame: [is_map, items, role ("top", "sets", "tasks" or "inner"), value_next, probe];
        # value_next: an object's last child was a key; probe: the top list's first item, which
        # tells what the top list holds.
        self.stack: list[list[Any]] = []
        self.key: str | None = None  # the last key seen

    def _count(self, line: int | None) -> list[Any] | None:
        """Count a child of the innermost collection; return that collection's frame."""
        if not self.stack:
            return None
        frame = self.stack[-1]
        if frame[0]:
            frame[3] = not frame[3]
            if not frame[3]:
                return frame  # a value: the entry was counted at its key
        frame[1] += 1
        if frame[2] in ("top", "sets"):
            if frame[1] > MAX_SETS:
                raise too_many_sets(line)
        elif frame[1] > MAX_TASKS:
            sets = [f for f in self.stack[:2] if f[2] == "sets"]
            raise too_many_tasks(line, sets[0][1] - 1 if sets else None)
        return frame

    def _decide(self, set_like: bool) -> None:
        for frame in self.stack[:2]:
            if frame[2] == "top":
                frame[2] = "sets" if set_like else "tasks"
                if frame[2] == "tasks" and frame[1] > MAX_TASKS:
                    raise too_many_tasks(None, None)

    def start(self, is_map: bool, line: int | None, flat: str | None = None) -> None:
        """A list or object starts; ``flat`` is its whole text when it holds no collection."""
        parent = self._count(line)
        key = self.key if parent is not None and parent[0] and parent[3] is False else None
        probe = False
        if parent is not None:
            if parent[4] and not parent[0]:  # the top list's first item is a list holding a collection
                parent[4] = False
                self._decide(True)
            elif parent[2] == "top" and parent[1] == 1:  # the top list's first item
                if flat is None:
                    probe = True
                else:  # [] is a set, [scalars] a task; an object is a set if it has "tasks"
                    self._decide(flat.strip("[] \t\r\n") == "" if not is_map else '"tasks"' in flat)
        if flat is not None:
            return
        role = "inner"
        if parent is None and not is_map:
            role = "top"
        elif parent is not None and len(self.stack) == 1 and parent[0] and key == "tasksets":
            role = "top"
        self.stack.append([is_map, 0, role, False, probe])

    def scalar(self, text: str, line: int | None) -> None:
        frame = self._count(line)
        if frame is None:
            return
        if frame[0]:
            if frame[3]:  # a key
                self.key = text
                if frame[4] and text == "tasks":  # the top list's first item: an object with tasks
                    frame[4] = False
                    self._decide(True)
        elif frame[4]:  # the top list's first item is a list holding a scalar: a task
            frame[4] = False
            self._decide(False)
        elif frame[2] == "top" and frame[1] == 1:  # a scalar first item: a task
            self._decide(False)

    def end(self) -> None:
        if self.stack:
            frame = self.stack.pop()
            if frame[4]:  # an empty list (a set), or an object without tasks (a task)
                self._decide(not frame[0])


#: A JSON token: a string, a collection holding no collection (one token: a task), a bracket, a bare word.
_JSON_SCAN = re.compile(
    r'"(?:[^"\\]|\\.)*"'
    r'|\[(?:[^\[\]{}"]|"(?:[^"\\]|\\.)*")*\]'
    r'|\{(?:[^\[\]{}"]|"(?:[^"\\]|\\.)*")*\}'
    r"|[\[\]{}]"
    r'|[^\s\[\]{},:"]+'
    r'|"'
)


def _json_key(token: str) -> str:
    """The text of a JSON string token (decoded if it has escapes and they are valid)."""
    if token[0] == '"' and "\\" in token:
        try:
            return str(json.loads(token))
        except ValueError:
            pass
    return token.strip('"')


def _count_json(stream: Any) -> None:
    """The document counter (:class:`_Shape`) over JSON text read in pieces from ``stream``."""
    shape = _Shape()
    carry, line = "", 1
    while True:
        piece = stream.read(_CHUNK_BYTES)
        final = not piece
        text = carry + piece
        if not text:
            return
        pos = len(text)
        match = None
        try:
            for match in _JSON_SCAN.finditer(text):
                token = match.group()
                if not final and (token == '"' or match.end() == len(text)):  # may go on in the next piece
                    pos = match.start()
                    break
                first = token[0]
                if first in "[{":
                    shape.start(first == "{", None, token if len(token) > 1 else None)
                elif first in "]}":
                    shape.end()
                elif token != '"':
                    shape.scalar(_json_key(token), None)
        except InputError as err:  # the line is counted only now: for every token it would cost more than the rest
            raise err.located(line=line + text.count("\n", 0, match.start() if match else 0)) from None
        line += text.count("\n", 0, pos)
        carry = text[pos:]
        if final:
            return


def _count_yaml(stream: Any) -> None:
    """The document counter (:class:`_Shape`) over YAML events, parsed from the stream in pieces.

    The parser is libyaml's when PyYAML has it.
    """
    shape = _Shape()
    loader = getattr(yaml, "CSafeLoader", None) or yaml.SafeLoader
    for event in yaml.parse(stream, Loader=loader):
        if isinstance(event, yaml.ScalarEvent | yaml.AliasEvent):
            shape.scalar(getattr(event, "value", ""), event.start_mark.line + 1)
        elif isinstance(event, yaml.SequenceStartEvent | yaml.MappingStartEvent):
            shape.start(isinstance(event, yaml.MappingStartEvent), event.start_mark.line + 1)
        elif isinstance(event, yaml.SequenceEndEvent | yaml.MappingEndEvent):
            shape.end()


def _count_txt(lines: Iterable[str]) -> None:
    """Refuse a txt task set with more than MAX_TASKS tasks at its first task too many."""
    count, set_index = 0, 0
    for number, line in enumerate(lines, 1):
        content = line.split("#", 1)[0].strip()
        if content == "---":
            count, set_index = 0, set_index + 1
            if set_index >= MAX_SETS:
                raise too_many_sets(number + 1)
        elif content:
            count += 1
            if count > MAX_TASKS:
                raise too_many_tasks(number, set_index if set_index else None)


def _count_csv(lines: Iterable[str]) -> None:
    """The same for CSV: rows per value of the ``set`` column (or per file without one)."""
    reader = csv.reader(lines)
    set_column: int | None = -1  # -1: header not seen yet
    counts: dict[object, int] = {}
    for cells in reader:
        if not any(c.strip() for c in cells):
            continue
        if set_column == -1:
            names = [c.strip().lstrip("\ufeff").lower() for c in cells]
            set_column = names.index("set") if "set" in names else None
            continue
        key: object = None
        if set_column is not None and set_column < len(cells):
            text = cells[set_column].strip()
            number = set_number(text)
            key = text if number is None else number
        counts[key] = counts.get(key, 0) + 1
        if len(counts) > MAX_SETS:
            raise too_many_sets(reader.line_num)
        if counts[key] > MAX_TASKS:
            raise too_many_tasks(reader.line_num, list(counts).index(key) if set_column is not None else None)


_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
#: Fewest characters a JSON line holding MAX_TASKS + 1 tasks can have ("[1,1,1]," per task).
_JSONL_MIN_CHARS = 8 * (MAX_TASKS + 1) - 1


def _count_jsonl(lines: Iterable[str]) -> None:
    """The same for JSON lines, counting the JSON arrays and objects of each long line.

    Each task is one JSON array or object, and a set adds at most two (``{"tasks": [...]}``), so a
    line with more than MAX_TASKS + 2 of them (outside strings) holds too many tasks or is invalid.
    Only long lines are counted.
    """
    set_index = -1
    for number, line in enumerate(lines, 1):
        set_index += bool(line.strip())
        if set_index >= MAX_SETS:
            raise too_many_sets(number)
        if len(line) < _JSONL_MIN_CHARS:
            continue
        bare = _JSON_STRING.sub("", line)
        if bare.count("[") + bare.count("{") > MAX_TASKS + 2:
            raise too_many_tasks(number, set_index)


_COUNTERS: dict[str, Callable[[Any], None]] = {
    "txt": _count_txt,
    "csv": _count_csv,
    "jsonl": _count_jsonl,
    "json": _count_json,
    "yaml": _count_yaml,
}


def read_text(
    path: str | os.PathLike[str], source: str, format: str | None = None, max_bytes: int = MAX_FILE_BYTES
) -> str:
    """Read a file (or standard input when ``source`` is ``"<stdin>"``) as UTF-8 text, streaming.

    The input is read in chunks and refused with an :class:`~rtsched.errors.InputError` as soon as it passes
    ``max_bytes`` (a regular file at once, from its size). For every format given as ``format``
    the tasks of each set and the sets of the file are counted while reading, and a set with more
    than ``rtsched.model.MAX_TASKS`` tasks or a file with more than :data:`MAX_SETS` sets is
    refused at its first item too many, naming the line. So an oversized input costs neither the
    time nor the memory of parsing it.
    """
    try:
        if source == "<stdin>":
            stream = getattr(sys.stdin, "buffer", None) or sys.stdin
            data = _read_limited(stream, source, format, max_bytes)
        else:
            with open(path, "rb") as f:
                info = os.fstat(f.fileno())
                regular = stat.S_ISREG(info.st_mode)
                if regular and info.st_size > max_bytes:
                    raise _too_large(source, max_bytes)
                data = _read_limited(f, source, format, max_bytes, info.st_size if regular else None)
        return data.decode("utf-8").removeprefix("\ufeff")
    except InputError as err:
        raise err.located(file=source) from None
    except UnicodeDecodeError as err:
        line = err.object.count(b"\n", 0, err.start) + 1
        raise InputError(
            f"the file is not UTF-8 text (byte {err.object[err.start]:#04x} at offset {err.start})",
            file=source,
            line=line,
        ) from None
    except OSError as err:
        raise InputError(f"cannot read the file: {err.strerror or err}", file=source) from None


def _read_limited(stream: Any, source: str, format: str | None, max_bytes: int, size: int | None = None) -> bytes:
    """The bytes of ``stream``, counted by the format's counter while they are read.

    A regular file of at most :data:`_WHOLE_READ_BYTES` (``size``) is read first; its counter runs
    only if :func:`_may_exceed` says the limits could be reached (it never can be otherwise, so
    the result and any error are those of counting while reading). A larger file or a stream is
    counted while it is read, refused at its first item too many.
    """
    raw = _LimitedReader(stream, source, max_bytes)
    counter = _COUNTERS.get(_EXTENSIONS.get(str(format).lower(), "")) if format else None
    if counter is not None and size is not None and size <= _WHOLE_READ_BYTES:
        raw.drain()
        data = b"".join(raw.parts)
        if _may_exceed(data, counter):
            _run_counter(counter, io.BytesIO(data))
        return data
    if counter is not None:
        _run_counter(counter, raw)
    raw.drain()
    return b"".join(raw.parts)


def _run_counter(counter: Callable[[Any], None], raw: Any) -> None:
    text = io.TextIOWrapper(
        io.BufferedReader(raw, _CHUNK_BYTES), encoding="utf-8-sig", newline="" if counter is _count_csv else "\n"
    )
    try:
        counter(text)
    except (UnicodeDecodeError, csv.Error, yaml.YAMLError, RecursionError):
        pass  # the parser reports these with their position
    text.detach()


#: Largest regular file read whole before its items are counted (only when they could pass a limit).
_WHOLE_READ_BYTES = 2**20
#: Bytes that are whitespace for the JSON counter's scan (``\s``, ASCII part).
_JSON_SPACE = np.zeros(256, dtype=bool)
_JSON_SPACE[[0x20, 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x1C, 0x1D, 0x1E, 0x1F]] = True
#: Bytes a bare JSON word continues with (printable ASCII other than structure and quotes).
_JSON_WORD = np.zeros(256, dtype=bool)
_JSON_WORD[0x21:0x7F] = True
_JSON_WORD[[ord(c) for c in '[]{},:"']] = False
_JSON_MAX_DEPTH = 32


def _json_items_bound(data: bytes) -> int | None:
    """An upper bound on the items :func:`_count_json` counts in any one collection, or None.

    Every item it counts starts a token (a string, a bracket, a bare word) directly inside that
    collection: the bound counts, per collection, the positions outside strings where such a token
    can start (each non-ASCII or control byte as its own start, so never fewer). None when strings
    cannot be told apart by quote parity (a backslash, an odd number of quotes), or the brackets
    close more than they open or nest more than :data:`_JSON_MAX_DEPTH` deep.
    """
    if not data or b"\\" in data or data.count(b'"') % 2:
        return None  # nothing to bound (an empty document: the counter and the parser decide)
    b = np.frombuffer(data, dtype=np.uint8)
    quote = b == 0x22
    # Inside a string: after an opening quote, up to and with its closing quote (quote parity).
    in_string = (np.bitwise_xor.accumulate(quote.view(np.uint8)) ^ quote.view(np.uint8)).view(bool)
    outside = ~in_string
    opens = outside & ((b == 0x5B) | (b == 0x7B))
    closes = outside & ((b == 0x5D) | (b == 0x7D))
    depth = np.cumsum(opens.view(np.int8) - closes.view(np.int8), dtype=np.int32)  # after each byte
    if depth.size and (int(depth.min()) < 0 or int(depth.max()) > _JSON_MAX_DEPTH):
        return None
    word = _JSON_WORD[b]
    merged = word.copy()
    merged[0] = False
    merged[1:] &= word[:-1]  # a word byte after a word byte continues the token
    other = ~(word | _JSON_SPACE[b] | quote | opens | closes | (b == 0x2C) | (b == 0x3A))
    starts = outside & (quote | opens | (word & ~merged) | other)
    open_at = np.flatnonzero(opens)
    start_at = np.flatnonzero(starts)
    level = (depth - opens)[start_at]  # the depth a token starts at: that of the collection holding it
    start_at, level = start_at[level > 0], level[level > 0]
    if not start_at.size:
        return 0
    # A token's collection: the last opening before it at its depth (collections of one depth are disjoint).
    stride = b.size + 1
    keys = depth[open_at].astype(np.int64) * stride + open_at  # sorted by depth, then position
    order = np.argsort(keys, kind="stable")
    owner = np.searchsorted(keys[order], level * stride + start_at, side="right") - 1
    return int(np.bincount(owner).max())


def _may_exceed(data: bytes, counter: Callable[[Any], None]) -> bool:
    """Whether the counter could refuse ``data``: False only when no collection can pass a limit."""
    limit = min(MAX_TASKS, MAX_SETS)
    if counter is _count_csv:  # rows: at least one line each (any line break of csv)
        return data.count(b"\n") + data.count(b"\r") + 1 >= limit
    if counter is _count_txt:  # tasks and separators: one line each
        return data.count(b"\n") + 1 >= limit
    if counter is _count_json:
        bound = _json_items_bound(data)
        return bound is None or bound >= limit
    return True
