"""Read and write task sets: YAML, JSON, JSON lines, CSV, plain text, SimSo and SchedCAT XML.

Formats
-------
``yaml`` (``.yaml``, ``.yml``) and ``json`` (``.json``)
    The document is one task set or a list of task sets. A task set is an object
    ``{"name": optional, "tasks": [...]}`` or a bare list of tasks; a task is ``[C, D, T]``,
    ``[C, D, T, name]`` or ``{"C": .., "D": .., "T": .., "name": optional, "priority": optional}``.
    A top-level ``{"tasksets": [...]}`` is a list of task sets.

    *One set or many?* A top-level list is a list of task sets when its **first** element looks
    like a task set: an object with a ``"tasks"`` key, or a list that is empty or holds a list or
    an object. Otherwise (a list of scalars such as ``[1, 2, 3]``, an object without ``"tasks"``,
    a scalar) the first element is a task and the whole list is one task set. Every element is
    then read as that kind, so a stray element gets an error naming it.
``jsonl`` (``.jsonl``, ``.ndjson``)
    One task set per non-blank line, in any one-set JSON form.
``csv`` (``.csv``)
    A header naming the columns ``C``, ``D``, ``T`` and optionally ``name``, ``priority`` and
    ``set`` (any order, any case), then one task per row. Rows with the same integer ``set`` value
    form one task set, in order of first appearance; without a ``set`` column the file is one set.
    An empty ``priority`` cell means the task has none.
``txt`` (``.txt``)
    ``C D T [name]`` per line; ``#`` starts a comment; a line ``---`` separates task sets. A
    fourth column is the name, so text files have no priority column: their order is the
    priority order.
``simso`` (``.simso.xml``) and ``schedcat`` (``.schedcat.xml``)
    SimSo's configuration file and SchedCAT's task-set XML; a plain ``.xml`` is either, told by
    its root element. What maps and what is refused: :mod:`rtsched.io.xml_formats`. SimSo's
    times are milliseconds: by default one tick is one millisecond.

Numbers are read from their text, alike in every format. Without a time unit a value is an
integer number of ticks written with the ASCII digits ``0-9`` and an optional sign (``1000``,
``+7``); every other spelling is refused with an error naming the field and saying why: ``1e3``,
``3.0`` (write ``1000``, ``3``), ``1_000``, ``0x10``, YAML's ``1:30``, other scripts' digits
(``١``, ``１``), booleans, ``nan``/``inf``. With ``time_unit=u`` a value is a real number, an ASCII
decimal with optional fraction and exponent (``0.5``, ``2.5e-3``; exponent at most ±100) or ``p/q``;
``x`` means ``x / u`` ticks and must be exactly a whole number (``TaskSet.from_real``).

Every malformed input raises :class:`~rtsched.errors.InputError` whose message names the file,
the line, the task set (when the file holds several), the task and the field.

Priorities
----------
Fixed priority is the order of the tasks in a set, first = highest (:mod:`rtsched.priorities`).
In YAML, JSON, JSON lines and CSV a task may instead carry a ``priority``: an integer, smaller =
higher, any sign, spelled as ticks are without a time unit (whatever the time unit). Either every
task of a set has one or none does (a task without one in a set with priorities is an error
naming it), and two tasks with the same priority are an error naming both. The reader returns
such a set **reordered**, highest priority first, so that every analysis (which reads priority
from the order) applies unchanged; the ``priority`` values themselves are not kept. Task names
travel with their tasks, so name the tasks to recognise them in reports: there task ``τi`` is
the i-th in priority order, while errors found while reading (values, ``C > D``, ties) name
tasks by their position in the file. The writers never write ``priority``: a set's order is its
priority, and reading the output back gives the same set in the same order.

Limits
------
A task set has at most ``rtsched.model.MAX_TASKS`` = 65,536 tasks, a file (or standard input)
at most :data:`MAX_SETS` = 1,048,576 task sets and :data:`MAX_FILE_BYTES` = 64 MiB. All three are
checked while the input is read, before it is parsed, in every format: a larger file is refused
at once (or, from a pipe, as soon as 64 MiB have arrived), and a set or file with too many items
at its first one too many, naming the line. The JSON and YAML documents are counted as they
stream in (a token scan; YAML events, by libyaml when PyYAML has it): a list at the top holds at
most MAX_SETS sets (or MAX_TASKS tasks in the one-set form), every other list at most MAX_TASKS
items. So an oversized input costs neither the time nor the memory of parsing it. Split larger
inputs into several files.

Modules
-------
:mod:`~rtsched.io.tasksets` (the public functions), :mod:`~rtsched.io.documents` (YAML, JSON,
JSON lines, and the line-keeping nodes other readers build on), :mod:`~rtsched.io.lines` (CSV,
txt), :mod:`~rtsched.io.raw` (written values to task sets, priorities), :mod:`~rtsched.io.numbers`
(the number rule above), :mod:`~rtsched.io.stream` (the limits and the streaming reader) and
:mod:`~rtsched.io.xml_formats` (SimSo, SchedCAT); :mod:`~rtsched.io.workload_files` holds what the
readers of the DAG, mixed-criticality and GPU files share.
"""

from rtsched.io.documents import (
    LineLoader,
    Node,
    check_keys,
    describe_node,
    node_from_json,
    node_from_yaml,
    node_text,
    node_to_int,
    yaml_error,
)
from rtsched.io.numbers import Scalar, scalar_to_fraction, scalar_to_int
from rtsched.io.stream import FORMATS, MAX_FILE_BYTES, MAX_SETS, TOOL_FORMATS, detect_format, read_text
from rtsched.io.tasksets import dumps, loads, read_taskset, read_tasksets, write_tasksets
from rtsched.io.xml_formats import SIMSO_SCHEDULERS, SimsoPlatform, simso_platform, sniff_xml

__all__ = [
    "FORMATS",
    "MAX_FILE_BYTES",
    "MAX_SETS",
    "SIMSO_SCHEDULERS",
    "SimsoPlatform",
    "TOOL_FORMATS",
    # Building blocks for readers of other document formats (e.g. GPU workloads): parse YAML or
    # JSON into nodes that keep their line numbers, and convert scalars exactly.
    "LineLoader",
    "Node",
    "Scalar",
    "check_keys",
    "describe_node",
    "node_to_int",
    "yaml_error",
    "node_from_json",
    "node_from_yaml",
    "node_text",
    "read_text",
    "scalar_to_fraction",
    "scalar_to_int",
    "detect_format",
    "dumps",
    "loads",
    "read_taskset",
    "read_tasksets",
    "simso_platform",
    "sniff_xml",
    "write_tasksets",
]
