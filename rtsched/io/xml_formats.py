"""Other tools' XML formats: SchedCAT task sets and SimSo configurations (read and write).

Both are parsed with the standard library's expat parser (the parser under ``xml.etree``),
keeping each element's line for error messages. A document type declaration (``<!DOCTYPE``) or
an entity declaration is refused, so no entity is ever expanded.

SchedCAT (``schedcat``, ``.schedcat.xml``)
    The format of SchedCAT's ``schedcat.model.serialize`` (Brandenburg et al., github.com/
    brandenburg/schedcat): a root ``<taskset>`` (one set), ``<testpoint>`` (its ``<taskset>``
    children are the sets; its ``<config>`` is ignored) or ``<task>`` (a set of one task). A
    ``<task>`` has ``wcet`` (C), ``period`` (T), optional ``deadline`` (D; absent means D = T) and
    optional ``id`` (read as the task's name). Times are numbers without a unit, read by the
    rule of every rtsched format (whole ticks, or ``time_unit``). A set's ``<properties>`` are
    values SchedCAT derives (utilization, count, ...) and are ignored; so are a task's
    ``response_time`` (an analysis result) and ``wss`` (a working-set size: rtsched has no cache
    model). Refused, with an error naming the element: ``partition`` (a fixed assignment rtsched's
    partitioned analyses would not honour), ``<resources>`` (shared resources, not modelled) and
    any other attribute or element (e.g. self-suspensions). The writer writes a ``<taskset>``
    (a ``<testpoint>`` for several sets) with ``<properties count utilization>`` and every
    task's ``id`` (its name, when it has one), ``period``, ``wcet`` and ``deadline``.
SimSo (``simso``, ``.simso.xml``)
    SimSo's configuration file (Chéramy, Hladik, Déplanche, WATERS 2014; the reader and writer
    of github.com/MaximeCheramy/simso, ``simso/configuration``): a root ``<simulation>`` with
    ``<sched>``, ``<caches>``, ``<processors>`` and ``<tasks>``. One file holds one task set.

    *Units.* SimSo's task times (``WCET``, ``period``, ``deadline``, ``activationDate``) are in
    milliseconds; ``cycles_per_ms`` converts only cycle counts (overheads, durations). By default
    one tick is one millisecond, so ``10`` and ``10.0`` are 10 ticks and ``0.5`` is refused;
    ``time_unit=u`` (``--time-unit u``) makes one tick ``u`` ms (``0.001``: microseconds).

    *Tasks.* ``WCET`` → C, ``deadline`` → D, ``period`` → T, ``name`` → the task's name.
    ``task_type`` ``Periodic`` (the default) and ``Sporadic`` map to a sporadic task of minimum
    inter-arrival ``period``: an ``activationDate`` (offset) and the ``list_activation_dates``
    of a sporadic task are arrival patterns the sporadic model covers, so they are checked (not
    negative; listed dates at least ``period`` apart) and otherwise not kept. Refused: other task
    types (``APeriodic``), ``followed_by`` (task chains), a non-zero ``preemption_cost``.
    Attributes of SimSo's other execution-time models (``ACET``, ``et_stddev``, ``instructions``,
    ``mix``, ``base_cpi``, ``stack``), ``abort_on_miss`` and declared data fields are ignored;
    any other attribute is refused.

    *Platform.* The number of ``<processor>`` elements is m; a processor ``speed`` other than 1
    and non-zero overheads (``cs_overhead``, ``cl_overhead``, ``migration_overhead``, the
    scheduler's ``overhead*``) are refused, as is an execution-time model (``etm``) other than
    ``wcet``. Caches matter only to SimSo's cache model and are ignored.

    *Scheduler.* ``class`` maps to a policy: ``simso.schedulers.EDF`` → ``global-edf``,
    ``simso.schedulers.P_EDF`` → ``partitioned-edf``, ``simso.schedulers.EDF_mono`` → ``edf``,
    ``simso.schedulers.RM`` and ``RM_mono`` → ``global-fp`` / ``fp`` with rate-monotonic
    priorities (shorter period first; equal periods in file order), ``simso.schedulers.FP`` →
    ``global-fp`` with each task's ``priority`` data field (an integer; SimSo runs the largest
    first). With a fixed-priority scheduler the set is returned highest priority first, as the
    ``priority`` field of rtsched's own formats is. Any other scheduler, or a scheduler file
    (``className``), is refused.

    The writer writes one task set with one tick = 1 ms (``cycles_per_ms`` 1,000,000), periodic
    tasks released at 0 (the synchronous arrival pattern), ``etm="wcet"``, no overheads, the
    scheduler of ``policy`` (``global-edf`` by default; ``global-fp`` and ``fp`` write SimSo's
    ``FP`` with priorities n, ..., 1 in the set's order) and ``processors`` processors. Its
    ``duration`` (in cycles, as SimSo's ``Configuration.duration_ms`` = duration / cycles_per_ms
    says) covers the hyperperiod, at most 10⁶ ms. Unnamed tasks are written ``T1``, ``T2``, ...;
    a name SimSo's configuration check refuses (it must start with a letter and hold only
    letters, digits, spaces, ``_`` and ``-``) is refused, naming the task.
"""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any, NamedTuple
from xml.parsers import expat

from rtsched.errors import InputError
from rtsched.io.numbers import INTEGER, Scalar, clip, field_name, parse_real
from rtsched.io.raw import RawSet, RawTask
from rtsched.io.stream import XML_ROOTS
from rtsched.model import MAX_TASKS, TaskSet

__all__ = [
    "SIMSO_SCHEDULERS",
    "SimsoPlatform",
    "simso_platform",
    "sniff_xml",
    # The readers and writers, for rtsched.io.tasksets (not re-exported by rtsched.io):
    "dump_schedcat",
    "dump_simso",
    "parse_schedcat",
    "parse_simso",
]


class _Element(NamedTuple):
    tag: str
    attrs: dict[str, str]
    line: int
    children: list[_Element]


def _parse_xml(text: str) -> _Element:
    """Parse an XML document into elements that keep their lines; refuse DTDs and entities."""
    parser = expat.ParserCreate(encoding="utf-8")  # rtsched reads UTF-8; a declared encoding is not used
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    stack: list[_Element] = []
    roots: list[_Element] = []

    def refuse_dtd(*_: Any) -> None:
        raise InputError(
            "the document has a DOCTYPE or entity declaration; rtsched refuses them (no entity expansion)",
            line=parser.CurrentLineNumber,
        )

    def start(tag: str, attrs: dict[str, str]) -> None:
        element = _Element(tag, attrs, parser.CurrentLineNumber, [])
        (stack[-1].children if stack else roots).append(element)
        stack.append(element)

    def end(_tag: str) -> None:
        stack.pop()

    parser.StartDoctypeDeclHandler = refuse_dtd
    parser.EntityDeclHandler = refuse_dtd
    parser.StartElementHandler = start
    parser.EndElementHandler = end
    try:
        parser.Parse(text.encode("utf-8"), True)
    except expat.ExpatError as err:
        raise InputError(f"invalid XML: {expat.ErrorString(err.code)}", line=err.lineno) from None
    return roots[0]


def sniff_xml(text: str) -> str:
    """Tell ``"simso"`` from ``"schedcat"`` by the root element of an XML document.

    Parameters
    ----------
    text:
        The document.

    Returns
    -------
    str
        ``"simso"`` for a root ``<simulation>``, ``"schedcat"`` for ``<taskset>``, ``<testpoint>``
        or ``<task>``.

    Raises
    ------
    InputError
        If the document is not XML or its root element is neither tool's.
    """
    root = _parse_xml(text)
    if root.tag in XML_ROOTS:
        return XML_ROOTS[root.tag]
    raise InputError(
        f"root element <{clip(root.tag)}> is neither SimSo's <simulation> nor SchedCAT's <taskset>/<testpoint>",
        line=root.line,
    )


def _refuse(element: _Element, what: str, why: str, field: str | None = None) -> InputError:
    return InputError(f"{what} does not map to rtsched's model: {why}", line=element.line, field=field)


def _expect_root(root: _Element, tags: tuple[str, ...], tool: str) -> None:
    if root.tag not in tags:
        wanted = " or ".join(f"<{t}>" for t in tags)
        raise InputError(f"root element <{clip(root.tag)}> is not {tool}'s {wanted}", line=root.line)


def _check_task_count(tasks: Sequence[Any], line: int) -> None:
    if len(tasks) > MAX_TASKS:
        raise InputError(f"a task set has at most {MAX_TASKS} tasks", line=line)


# -- SchedCAT -------------------------------------------------------------------------------------

_SCHEDCAT_TASK = {"wcet", "period", "deadline", "id"}
_SCHEDCAT_IGNORED = {"response_time", "wss"}


def _schedcat_task(node: _Element, index: int) -> RawTask:
    if node.tag != "task":
        raise _refuse(node, f"element <{clip(node.tag)}>", "a SchedCAT task set holds <task> and <properties>")
    for child in node.children:
        why = "shared resources are not modelled" if child.tag == "resources" else "not a task attribute rtsched knows"
        raise _refuse(child, f"element <{clip(child.tag)}> of a task", why).located(task=index)
    for key in node.attrs:
        if key == "partition":
            raise _refuse(
                node, "a fixed partition", "rtsched's partitioned analyses choose the assignment", "partition"
            ).located(task=index)
        if key not in _SCHEDCAT_TASK and key not in _SCHEDCAT_IGNORED:
            raise _refuse(node, f"attribute {clip(key)!r}", "not a field of a sporadic task", field_name(key)).located(
                task=index
            )
    values = []
    for key in ("wcet", "deadline", "period"):  # C, D, T
        text = node.attrs.get(key, node.attrs.get("period") if key == "deadline" else None)
        if text is None:
            raise InputError(f"missing attribute {key!r}", line=node.line, task=index, field=key)
        values.append(Scalar("str", text))
    return RawTask(tuple(values), node.attrs.get("id"), node.line, (node.line,) * 3)


def _schedcat_set(node: _Element) -> RawSet:
    tasks: list[RawTask] = []
    for child in node.children:
        if child.tag != "properties":
            tasks.append(_schedcat_task(child, len(tasks)))
    _check_task_count(tasks, node.line)
    return RawSet(tasks, None, node.line)


def parse_schedcat(text: str) -> tuple[list[Any], Callable[[Any], RawSet]]:
    """A SchedCAT document's task sets and their reader."""
    root = _parse_xml(text)
    _expect_root(root, ("taskset", "testpoint", "task"), "SchedCAT")
    if root.tag == "task":
        return [RawSet([_schedcat_task(root, 0)], None, root.line)], _same
    if root.tag == "taskset":
        return [root], _schedcat_set
    sets = []
    for child in root.children:
        if child.tag == "taskset":
            sets.append(child)
        elif child.tag != "config":
            raise _refuse(child, f"element <{clip(child.tag)}>", "a testpoint holds <config> and <taskset>")
    return sets, _schedcat_set


def _same(raw: RawSet) -> RawSet:
    return raw


def _xml_text(root: ET.Element) -> str:
    ET.indent(root, space="  ")
    return "<?xml version='1.0' encoding='utf-8'?>\n" + ET.tostring(root, encoding="unicode") + "\n"


def _schedcat_element(ts: TaskSet) -> ET.Element:
    tag = ET.Element("taskset")
    ET.SubElement(tag, "properties", {"count": str(ts.n), "utilization": repr(float(ts.utilization))})
    for c, d, t, name in ts:
        attrs = {} if name is None else {"id": name}
        attrs.update({"period": str(t), "wcet": str(c), "deadline": str(d)})
        ET.SubElement(tag, "task", attrs)
    return tag


def dump_schedcat(sets: list[TaskSet]) -> str:
    """The sets as a SchedCAT document: a ``<taskset>``, or a ``<testpoint>`` for several."""
    if len(sets) == 1:
        return _xml_text(_schedcat_element(sets[0]))
    root = ET.Element("testpoint")
    ET.SubElement(root, "config")
    root.extend(_schedcat_element(ts) for ts in sets)
    return _xml_text(root)


# -- SimSo ----------------------------------------------------------------------------------------

#: SimSo scheduler classes rtsched maps to a policy, and the priority rule of the fixed-priority ones.
SIMSO_SCHEDULERS = {
    "simso.schedulers.EDF": ("global-edf", None),
    "simso.schedulers.P_EDF": ("partitioned-edf", None),
    "simso.schedulers.EDF_mono": ("edf", None),
    "simso.schedulers.RM": ("global-fp", "rm"),
    "simso.schedulers.RM_mono": ("fp", "rm"),
    "simso.schedulers.FP": ("global-fp", "priority"),
}
_POLICY_CLASS = {
    "global-edf": "simso.schedulers.EDF",
    "partitioned-edf": "simso.schedulers.P_EDF",
    "edf": "simso.schedulers.EDF_mono",
    "global-fp": "simso.schedulers.FP",
    "fp": "simso.schedulers.FP",
}
_SIMSO_TASK_USED = {
    "name",
    "id",
    "task_type",
    "WCET",
    "deadline",
    "period",
    "activationDate",
    "list_activation_dates",
    "preemption_cost",
}
_SIMSO_TASK_IGNORED = {"ACET", "et_stddev", "instructions", "mix", "base_cpi", "stack", "abort_on_miss", "priority"}


#: The task names SimSo's configuration check accepts (``Configuration.check_tasks``).
_SIMSO_NAME = re.compile(r"[a-zA-Z][a-zA-Z0-9 _-]*")


class SimsoPlatform(NamedTuple):
    """What a SimSo configuration says besides its tasks: processors and the scheduler's policy."""

    processors: int
    policy: str
    scheduler: str


def _number(element: _Element, key: str, default: str = "0") -> Fraction:
    text = element.attrs.get(key, default).strip()
    if len(text) > 100:
        raise InputError(
            f"{text[:20]!r}... is too long for a number ({len(text)} characters)", line=element.line, field=key
        )
    try:
        value = parse_real(text)
    except InputError as err:
        raise err.located(line=element.line, field=key) from None
    if value is None:
        raise InputError(f"{clip(text)!r} is not a number", line=element.line, field=key)
    return value


def _only_zero(element: _Element, keys: Sequence[str], what: str) -> None:
    for key in keys:
        if key in element.attrs and _number(element, key) != 0:
            raise _refuse(element, f"a non-zero {what} ({key})", "rtsched's analyses assume no overheads", key)


def _children(root: _Element, tag: str) -> list[_Element]:
    found = [c for c in root.children if c.tag == tag]
    if len(found) != 1:
        raise InputError(f"expected one <{tag}> element in <simulation>, found {len(found)}", line=root.line)
    return found


def _simso_platform(root: _Element) -> SimsoPlatform:
    etm = root.attrs.get("etm", "wcet" if root.attrs.get("use_wcet", "yes") in ("true", "yes") else "cache")
    if etm != "wcet":
        raise _refuse(root, f"execution-time model {clip(etm)!r}", "the analyses bound execution by WCET", "etm")
    (sched,) = _children(root, "sched")
    if "className" in sched.attrs:
        raise _refuse(sched, "a scheduler file (className)", "give one of " + ", ".join(SIMSO_SCHEDULERS), "className")
    name = sched.attrs.get("class", "")
    if name not in SIMSO_SCHEDULERS:
        raise InputError(
            f"scheduler {clip(name)!r} has no rtsched analysis; mapped: {', '.join(SIMSO_SCHEDULERS)}",
            line=sched.line,
            field="class",
        )
    _only_zero(sched, ("overhead", "overhead_activate", "overhead_terminate"), "scheduler overhead")
    (procs,) = _children(root, "processors")
    _only_zero(procs, ("migration_overhead",), "migration overhead")
    cpus = [c for c in procs.children if c.tag == "processor"]
    if not cpus:
        raise InputError("the configuration has no <processor>", line=procs.line)
    for cpu in cpus:
        if "speed" in cpu.attrs and _number(cpu, "speed") != 1:
            raise _refuse(cpu, "a processor speed other than 1", "rtsched's processors are identical", "speed")
        _only_zero(cpu, ("cs_overhead", "cl_overhead"), "processor overhead")
    return SimsoPlatform(len(cpus), SIMSO_SCHEDULERS[name][0], name)


def simso_platform(text: str) -> SimsoPlatform:
    """Read the processors and scheduler policy of a SimSo configuration.

    Parameters
    ----------
    text:
        The configuration file's text.

    Returns
    -------
    SimsoPlatform
        The number of processors, the rtsched policy and SimSo's scheduler class.

    Raises
    ------
    InputError
        If the configuration is malformed or does not map (see the module docstring).
    """
    root = _parse_xml(text)
    _expect_root(root, ("simulation",), "SimSo")
    return _simso_platform(root)


def _simso_task(node: _Element, index: int, fields: set[str], rule: str | None) -> RawTask:
    for key in node.attrs:
        if key not in _SIMSO_TASK_USED and key not in _SIMSO_TASK_IGNORED and key not in fields:
            why = "task chains are not modelled" if key == "followed_by" else "not a field of a sporadic task"
            raise _refuse(node, f"attribute {clip(key)!r}", why, field_name(key))
    _only_zero(node, ("preemption_cost",), "preemption cost")
    kind = node.attrs.get("task_type", "Periodic")
    if kind not in ("Periodic", "Sporadic"):
        raise _refuse(node, f"task type {clip(kind)!r}", "only Periodic and Sporadic tasks are", "task_type")
    values = []
    for key in ("WCET", "deadline", "period"):
        if key not in node.attrs:
            raise InputError(f"missing attribute {key!r}", line=node.line, field=key)
        values.append(Scalar("str", node.attrs[key]))
    if _number(node, "activationDate") < 0:
        raise InputError("a negative activation date", line=node.line, field="activationDate")
    dates_text = node.attrs.get("list_activation_dates", "").strip()
    if dates_text:
        dates = sorted(_number(_Element("", {"d": d}, node.line, []), "d") for d in dates_text.split(","))
        period = _number(node, "period")
        if any(b - a < period for a, b in zip(dates, dates[1:], strict=False)):
            raise InputError(
                "two activation dates are closer than the period: the task is not sporadic with this period",
                line=node.line,
                field="list_activation_dates",
            )
    priority = None
    if rule == "priority":
        text = node.attrs.get("priority", "").strip()
        if not INTEGER.fullmatch(text) or len(text) > 30:
            raise InputError(
                "simso.schedulers.FP needs an integer 'priority' on every task (larger runs first)",
                line=node.line,
                field="priority",
            )
        priority = Scalar("str", str(-int(text)))  # rtsched's priorities: smaller = higher
    return RawTask(tuple(values), node.attrs.get("name"), node.line, (node.line,) * 3, priority, node.line)


def parse_simso(text: str) -> tuple[list[Any], Callable[[Any], RawSet]]:
    """A SimSo configuration's one task set (with its scheduler's priorities) and its reader."""
    root = _parse_xml(text)
    _expect_root(root, ("simulation",), "SimSo")
    platform = _simso_platform(root)
    rule = SIMSO_SCHEDULERS[platform.scheduler][1]
    (tasks_el,) = _children(root, "tasks")
    fields = {c.attrs.get("name", "") for c in tasks_el.children if c.tag == "field"}
    tasks: list[RawTask] = []
    for node in tasks_el.children:
        if node.tag == "task":
            try:
                tasks.append(_simso_task(node, len(tasks), fields, rule))
            except InputError as err:
                raise err.located(task=len(tasks)) from None
    _check_task_count(tasks, tasks_el.line)
    if rule == "rm" and tasks:
        periods = [_number(_Element("", {"period": t.values[2].text}, t.line or 0, []), "period") for t in tasks]
        rank = sorted(range(len(tasks)), key=lambda i: (periods[i], i))
        position = {task: r for r, task in enumerate(rank)}
        tasks = [t._replace(priority=Scalar("str", str(position[i]))) for i, t in enumerate(tasks)]
    return ([RawSet(tasks, None, tasks_el.line)] if tasks else []), _same


def dump_simso(sets: list[TaskSet], processors: int | None = None, policy: str | None = None) -> str:
    """One set as a SimSo configuration for ``processors`` processors and ``policy`` (module docstring)."""
    if len(sets) != 1:
        raise InputError(f"a SimSo configuration holds one task set, not {len(sets)}")
    if processors is None or processors < 1:
        raise InputError("give the number of processors (-m) to write a SimSo configuration", field="-m")
    policy = policy or "global-edf"
    if policy not in _POLICY_CLASS:
        raise InputError(f"policy {policy!r} has no SimSo scheduler; choose {', '.join(_POLICY_CLASS)}")
    ts = sets[0]
    cycles_per_ms = 1_000_000
    horizon = min(math.lcm(*(int(t) for t in ts.T)), 10**6)
    root = ET.Element(
        "simulation", {"duration": str(horizon * cycles_per_ms), "cycles_per_ms": str(cycles_per_ms), "etm": "wcet"}
    )
    ET.SubElement(
        root,
        "sched",
        {"class": _POLICY_CLASS[policy], "overhead": "0", "overhead_activate": "0", "overhead_terminate": "0"},
    )
    ET.SubElement(root, "caches", {"memory_access_time": "100"})
    procs = ET.SubElement(root, "processors")
    for p in range(processors):
        attrs = {"name": f"CPU {p + 1}", "id": str(p + 1), "cl_overhead": "0", "cs_overhead": "0", "speed": "1.0"}
        ET.SubElement(procs, "processor", attrs)
    tasks = ET.SubElement(root, "tasks")
    fixed = policy in ("global-fp", "fp")
    if fixed:
        ET.SubElement(tasks, "field", {"name": "priority", "type": "int"})
    for i, (c, d, t, name) in enumerate(ts):
        if name is not None and not _SIMSO_NAME.fullmatch(name):
            raise InputError(
                f"task name {clip(name)!r} is not one SimSo accepts (a letter, then letters, digits, spaces, "
                "'_' or '-'); rename the task",
                task=i,
                field="name",
            )
        attrs = {"priority": str(ts.n - i)} if fixed else {}
        attrs.update(
            {
                "name": name if name is not None else f"T{i + 1}",
                "id": str(i + 1),
                "task_type": "Periodic",
                "abort_on_miss": "yes",
                "period": str(t),
                "activationDate": "0",
                "list_activation_dates": "",
                "deadline": str(d),
                "base_cpi": "1.0",
                "instructions": "0",
                "mix": "0.5",
                "WCET": str(c),
                "ACET": "0",
                "preemption_cost": "0",
                "et_stddev": "0",
            }
        )
        ET.SubElement(tasks, "task", attrs)
    return _xml_text(root)
