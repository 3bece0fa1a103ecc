"""Immutable analysis results and the report of :func:`rtsched.check`.

A :class:`Result` is one analysis's verdict on one task set with the evidence behind it: the
inequality that holds or fails, per-task response-time bounds, the interval where demand
exceeds supply, or a processor assignment. A :class:`Report` gathers the results of several
analyses for one task set, prints as a table and renders as HTML in a notebook.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import html
import json
import math
import re
import sys
import textwrap
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

if TYPE_CHECKING:
    from rtsched.model import TaskSet

__all__ = [
    "SHOW_DIGITS",
    "STEP_LIMIT",
    "TABLE_EVIDENCE_SETS",
    "TABLE_EVIDENCE_TASKS",
    "Explanation",
    "LazyResult",
    "UNKNOWN",
    "Report",
    "records_to_dataframe",
    "Result",
    "Step",
    "Steps",
    "Verdict",
    "as_steps",
    "count",
    "digit_count",
    "iterates",
    "freeze",
    "jsonable",
    "scientific",
    "exact_numbers",
    "file_evidence",
    "file_evidence_note",
    "set_exact_numbers",
    "set_table_evidence",
    "table_evidence",
    "show_number",
]

UNKNOWN: Literal["unknown"] = "unknown"

#: :meth:`Report.table` (``str(report)``, ``rtsched check``'s table) computes the evidence column
#: only for task sets of at most this many tasks, unless told otherwise (:func:`table_evidence`,
#: ``rtsched check --evidence``): each row's evidence is an exact explanation in Python, which at
#: thousands of tasks takes seconds per analysis (a 2,000-task report printed in 58 s, issue #46).
TABLE_EVIDENCE_TASKS = 100

#: ``rtsched check`` computes its tables' evidence column only for files of at most this many task
#: sets (each also under :data:`TABLE_EVIDENCE_TASKS`), unless told otherwise (``--evidence``,
#: :func:`table_evidence`): a row's explanation costs about a millisecond on a 10-task set, so the
#: tables of a 3,000-set file took 33 s to print where deciding took 1 s (issue #45). The larger
#: file's tables show the verdicts, and one line after them says how to get the evidence.
TABLE_EVIDENCE_SETS = 32

_TABLE_EVIDENCE: contextvars.ContextVar[bool | None] = contextvars.ContextVar("rtsched_table_evidence", default=None)
#: ``True`` (proven schedulable / condition holds), ``False``, or ``"unknown"`` (budget ran out).
Verdict = bool | Literal["unknown"]


def freeze(value: Any) -> Any:
    """Return a deeply read-only copy: dicts become mapping proxies, lists become tuples."""
    if isinstance(value, Mapping):
        return MappingProxyType({k: freeze(v) for k, v in value.items()})
    if isinstance(value, list | tuple):
        return tuple(freeze(v) for v in value)
    if isinstance(value, np.ndarray):
        return tuple(freeze(v) for v in value.tolist())
    return _python_scalar(value)


def _python_scalar(value: Any) -> Any:
    """Return a NumPy bool, integer or float as the Python ``bool``, ``int`` or ``float``; anything else as is."""
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    return value


#: A numerator or denominator with more decimal digits than this is shown approximately in tables
#: and explanations (:func:`show_number`); JSON keeps it exact while Python can print it.
SHOW_DIGITS = 40


def digit_count(value: int) -> int:
    """Number of decimal digits of ``|value|`` (1 for 0), without converting it to a string.

    ``str()`` of an int above ``sys.get_int_max_str_digits()`` digits (4300 by default) raises
    ``ValueError``; exact sums of thousands of Fractions reach that easily.
    """
    value = abs(int(value))
    if value < 10**18:
        return len(str(value))
    digits = int((value.bit_length() - 1) * math.log10(2)) + 1  # digits of 2**(bits − 1), ±1
    while digits > 1 and value < 10 ** (digits - 1):
        digits -= 1
    while value >= 10**digits:
        digits += 1
    return digits


def _str_limit() -> int:
    """The interpreter's limit on int → str conversion (0: none)."""
    get = getattr(sys, "get_int_max_str_digits", None)
    return 0 if get is None else int(get())


def _printable(value: int | Fraction, max_digits: int) -> bool:
    """True if numerator and denominator each have at most ``max_digits`` digits (0: any)."""
    if max_digits <= 0:
        return True
    num, den = (abs(value.numerator), value.denominator) if isinstance(value, Fraction) else (abs(int(value)), 1)
    surely = int(max_digits * 3.321928094887362)  # 2**surely ≤ 10**max_digits
    if num.bit_length() <= surely and den.bit_length() <= surely:
        return True
    bound = _power_of_ten(max_digits)
    return num < bound and den < bound


@functools.lru_cache(maxsize=8)
def _power_of_ten(digits: int) -> int:
    return 10**digits


def scientific(value: int | Fraction, significant: int = 17) -> str:
    """``value`` in scientific notation (``"1.2345e+5000"``) for any magnitude, rounded to nearest.

    Unlike ``float(value)`` it neither overflows nor underflows, and unlike ``str(value)`` it never
    hits the interpreter's limit on digits.
    """
    x = Fraction(value)
    if x == 0:
        return "0"
    sign = "-" if x < 0 else ""
    num, den = abs(x.numerator), x.denominator
    exponent = digit_count(num) - digit_count(den)  # 10**(exponent − 1) < x < 10**(exponent + 1)
    shift = significant - exponent
    if shift >= 0:
        mantissa = (2 * num * 10**shift + den) // (2 * den)
    else:
        scale = den * 10**-shift
        mantissa = (2 * num + scale) // (2 * scale)
    # mantissa ≈ x · 10**shift has significant ± 1 digits: bring it to exactly `significant`.
    while mantissa >= 10**significant:
        mantissa = (mantissa + 5) // 10
        shift -= 1
    text = str(mantissa)
    power = len(text) - 1 - shift
    head = text[0] + ("." + text[1:].rstrip("0") if text[1:].rstrip("0") else "")
    return f"{sign}{head}e{'+' if power >= 0 else '-'}{abs(power):02d}"


_STYLE: contextvars.ContextVar[str] = contextvars.ContextVar("rtsched_number_style", default="decimal")


def set_exact_numbers(enabled: bool = True) -> None:
    """Show exact fractions (``7/3 (≈2.333)``) or decimals in summaries and tables from now on.

    Decimals (``≈2.333``) are the default. JSON and ``evidence`` are exact either way.
    """
    _STYLE.set("exact" if enabled else "decimal")


def set_table_evidence(enabled: bool | None) -> None:
    """From now on, report tables compute their evidence column always (True), never (False), or by size (None).

    ``None`` (the default) is the size rule of :data:`TABLE_EVIDENCE_TASKS`.
    """
    _TABLE_EVIDENCE.set(enabled)


def file_evidence(sets: int) -> bool | None:
    """The ``evidence`` argument of :meth:`Report.table` for each report of a file of ``sets`` task sets.

    :func:`table_evidence`'s setting if one is made (``--evidence``), else ``None`` (the size rule)
    for at most :data:`TABLE_EVIDENCE_SETS` sets and ``False`` (no evidence computed) above.
    """
    chosen = _TABLE_EVIDENCE.get()
    if chosen is not None:
        return chosen
    return None if sets <= TABLE_EVIDENCE_SETS else False


def file_evidence_note(sets: int) -> str:
    """The line printed after the tables of a file whose evidence :func:`file_evidence` turned off."""
    return (
        f"(evidence not computed: {sets:,} task sets > {TABLE_EVIDENCE_SETS} in the file, where each row's exact "
        "explanation adds about a millisecond; rtsched check --evidence or --explain shows it)"
    )


@contextlib.contextmanager
def table_evidence(enabled: bool | None = True) -> Iterator[None]:
    """Within the block, report tables compute their evidence column as :func:`set_table_evidence` says."""
    token = _TABLE_EVIDENCE.set(enabled)
    try:
        yield
    finally:
        _TABLE_EVIDENCE.reset(token)


@contextlib.contextmanager
def exact_numbers(enabled: bool = True) -> Iterator[None]:
    """Within the block, :func:`show_number` shows exact fractions (``--exact-numbers``)."""
    token = _STYLE.set("exact" if enabled else "decimal")
    try:
        yield
    finally:
        _STYLE.reset(token)


#: Integers with more digits than this are shown in scientific notation in decimal style.
DECIMAL_DIGITS = 15


def count(number: int, noun: str, plural: str | None = None) -> str:
    """``1 unit``, ``2 units``, ``1 analysis``, ``3 analyses`` (``plural``: when not noun + s)."""
    return f"{number} {noun if number == 1 else plural or noun + 's'}"


def iterates(values: Sequence[int]) -> str:
    """``2 → 4 → 7`` for an iteration's values; past 12, the first and last five around ``…``."""
    shown: Sequence[object] = values if len(values) <= 12 else [*values[:5], "…", *values[-5:]]
    return " → ".join(map(str, shown))


def show_number(value: int | Fraction, approx: str = ".4g", max_digits: int = SHOW_DIGITS) -> str:
    """A number for people, bounded in length.

    Decimal style (the default): ``7``, ``0.5``, ``≈2.333`` (``approx`` is the format of the
    approximation; ``≈`` marks a rounded value), ``≈1.2346e+20`` for an integer of more than
    ``DECIMAL_DIGITS`` digits. Exact style (:func:`exact_numbers`, ``--exact-numbers``):
    ``7/3 (≈2.333)``. In both, a number whose numerator or denominator has more than
    ``max_digits`` digits is an approximation to 10 significant digits with the size of the exact
    value: ``≈0.6000001 (exact: 11234-digit numerator, 11240-digit denominator)`` or
    ``≈1.2346e+5000 (5001-digit integer)``.
    """
    x = Fraction(value)
    if _printable(x, max_digits):
        if _STYLE.get() == "exact":
            if x.denominator == 1:
                return str(x.numerator)
            text = _approx(x, approx)
            if _is_exactly(text, x):  # 41/20 (= 2.05), not (≈2.0500)
                return f"{x.numerator}/{x.denominator} (= {_strip_zeros(text)})"
            return f"{x.numerator}/{x.denominator} (≈{text})"
        if x.denominator == 1:
            if digit_count(x.numerator) <= DECIMAL_DIGITS:
                return str(x.numerator)
            return f"≈{scientific(x, 5)}"
        text = _approx(x, approx)
        if _is_exactly(text, x):  # an exact value in a fixed format: 2.0500 is 2.05
            return _strip_zeros(text)
        return f"≈{text}"
    if x.denominator == 1:
        return f"≈{scientific(x, 5)} ({digit_count(x.numerator)}-digit integer)"
    size = f"{digit_count(x.numerator)}-digit numerator, {digit_count(x.denominator)}-digit denominator"
    return f"≈{_approx(x, '.10g', 10)} (exact: {size})"  # 10 digits: such sums are often within 1e-5 of 1


def show_pair(a: int | Fraction, b: int | Fraction) -> tuple[str, str]:
    """Two sides of a comparison by :func:`show_number`, told apart.

    Four significant digits, more where four would show different values alike
    (``≈1.0001 > 1``, not ``≈1 > 1``).
    """
    for digits in range(4, 18):
        shown = show_number(a, f".{digits}g"), show_number(b, f".{digits}g")
        if a == b or shown[0].lstrip("≈") != shown[1].lstrip("≈"):  # "≈1" and "1" read alike
            return shown
    return shown


def show_comparison(left: str, a: int | Fraction, relation: str, right: str, b: int | Fraction) -> str:
    """``left = a relation right = b``, both numbers by :func:`show_pair`."""
    shown_a, shown_b = show_pair(a, b)
    return f"{left} = {shown_a} {relation} {right} = {shown_b}"


def _is_exactly(text: str, x: Fraction) -> bool:
    try:
        return Fraction(text) == x
    except ValueError:
        return False


def _strip_zeros(text: str) -> str:
    """``2.0500`` → ``2.05``, ``3.000`` → ``3`` (fixed-point text only)."""
    if "." in text and "e" not in text:
        return text.rstrip("0").rstrip(".")
    return text


def _approx(x: Fraction, spec: str, significant: int = 5) -> str:
    """``format(float(x), spec)``, or :func:`scientific` when x is outside the float range."""
    try:
        f = float(x)
    except OverflowError:
        return scientific(x, significant)
    if (f == 0.0 and x != 0) or math.isinf(f):
        return scientific(x, significant)
    return format(f, spec)


def _json_number(value: int | Fraction) -> Any:
    x = Fraction(value)
    if _printable(x, _str_limit()):
        return x.numerator if x.denominator == 1 else f"{x.numerator}/{x.denominator}"
    if x.denominator == 1:
        return {"approx": scientific(x), "digits": digit_count(x.numerator)}
    return {
        "approx": scientific(x),
        "numerator_digits": digit_count(x.numerator),
        "denominator_digits": digit_count(x.denominator),
    }


def jsonable(value: Any) -> Any:
    """Convert evidence to JSON types.

    Numbers stay exact while Python can print them: an int as a JSON integer, a Fraction that is
    not whole as the string ``"p/q"``. An int or Fraction with more digits than the interpreter
    prints (``sys.get_int_max_str_digits()``, 4300 by default) becomes an object
    ``{"approx": "1.2345678901234567e+5000", "digits": N}`` (int) or
    ``{"approx": ..., "numerator_digits": N, "denominator_digits": M}`` (Fraction): ``approx`` is
    a string with 17 significant digits because the value may lie outside the float range.
    """
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    value = _python_scalar(value)
    if isinstance(value, bool):
        return value
    if isinstance(value, Fraction | int):
        return _json_number(value)
    return value


def _fmt(value: Any) -> str:
    """A value for people: numbers by :func:`show_number`, ``yes``/``no``, ``—`` for none."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if value is None:
        return "—"
    if isinstance(value, Fraction | int):
        return show_number(value)
    return str(value)


def table(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """Rows of dicts as lines of a table with aligned columns (numbers right, text left)."""
    keys = list(dict.fromkeys(k for row in rows for k in row))
    cells = [[_fmt(row[k]) if k in row else "" for k in keys] for row in rows]
    right = [
        all(
            isinstance(row.get(k), Fraction | int) and not isinstance(row.get(k), bool)
            for row in rows
            if row.get(k) is not None
        )
        for k in keys
    ]
    widths = [max([len(k), *(len(c[j]) for c in cells)]) for j, k in enumerate(keys)]

    def line(values: Sequence[str]) -> str:
        parts = [v.rjust(w) if r else v.ljust(w) for v, w, r in zip(values, widths, right, strict=True)]
        return " | ".join(parts).rstrip()

    return [line(keys), "-+-".join("-" * w for w in widths), *(line(c) for c in cells)]


def verdict_text(verdict: Verdict, kind: str = "sufficient") -> str:
    """Human text for a verdict of an analysis of the given kind."""
    if verdict == UNKNOWN:
        return "unknown"
    if kind == "necessary":
        return "not refuted" if verdict else "NOT schedulable"
    if verdict:
        return "schedulable"
    return "NOT schedulable" if kind == "exact" else "not proven"


#: ``p/q = p/q (`` in a step shown with exact numbers: a fraction in lowest terms, then its value.
_REPEATED_FRACTION = re.compile(r"(?<![\d/])(\d+/\d+) = \1 \(")


@dataclass(frozen=True)
class Step:
    """One line of a derivation, as a lecturer writes it on the board, with its exact values.

    ``text`` is a ``str.format`` template whose fields name entries of ``values`` (exact ints
    and Fractions, kept for programs and tests); ``str(step)`` fills them in with
    :func:`show_number`, so ``--exact-numbers`` / :func:`exact_numbers` shows ``7/12 (≈0.5833)``
    and the default style ``≈0.5833``. A step without values is its text as is (braces included);
    a template with values writes a literal brace as ``{{`` or ``}}``.
    """

    text: str
    values: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "values", freeze(dict(self.values)))

    def __str__(self) -> str:
        if not self.values:
            return self.text
        text = self.text.format(**{k: _fmt(v) for k, v in self.values.items()})
        if _STYLE.get() == "exact":  # "C/D = 1/4 = 1/4 (≈0.25)" → "C/D = 1/4 (≈0.25)"
            text = _REPEATED_FRACTION.sub(r"\1 (", text)
        return text

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the line as shown and its exact values."""
        return {"text": str(self), "values": jsonable(self.values)}


#: At most this many steps are kept per result; a last step then says that more were left out.
STEP_LIMIT = 400


class Steps(Sequence[Step]):
    """The derivation behind a verdict: an immutable sequence of :class:`Step`, computed on first use.

    An analysis's ``explain`` gives its steps as a function (or an iterable); nothing runs until a
    caller reads them (``result.steps``, ``rtsched check --explain --steps``), so the verdict and
    evidence paths do not pay for them. At most ``limit`` steps are kept; the last one then says
    that the rest were left out (a derivation is for people: a set too large to read is cut).
    """

    __slots__ = ("_items", "_source", "limit")

    def __init__(
        self, source: Iterable[Step | str] | Callable[[], Iterable[Step | str]] = (), limit: int = STEP_LIMIT
    ) -> None:
        self._source: Any = source
        self._items: tuple[Step, ...] | None = None
        self.limit = limit

    def _load(self) -> tuple[Step, ...]:
        if self._items is None:
            source = self._source() if callable(self._source) else self._source
            items: list[Step] = []
            for step in source:
                if len(items) == self.limit:
                    items.append(Step("… further steps left out (the first {limit} are shown)", {"limit": self.limit}))
                    break
                items.append(step if isinstance(step, Step) else Step(str(step)))
            self._items, self._source = tuple(items), None
        return self._items

    def __getitem__(self, index: Any) -> Any:
        return self._load()[index]

    def __len__(self) -> int:
        return len(self._load())

    def __iter__(self) -> Iterator[Step]:
        return iter(self._load())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Steps):
            return self._load() == other._load()
        if isinstance(other, tuple | list):
            return list(self._load()) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def text(self, indent: str = "") -> str:
        """One line per step."""
        return "\n".join(indent + str(step) for step in self._load())

    @property
    def computed(self) -> bool:
        """Whether the steps have been computed (reading them, ``str`` or ``repr`` computes them)."""
        return self._items is not None

    def __str__(self) -> str:
        return self.text()

    def __repr__(self) -> str:  # what a REPL shows for ``report["gfb"].steps``: the steps themselves
        return f"Steps({[str(step) for step in self._load()]!r})"


def as_steps(value: Steps | Iterable[Step | str] | Callable[[], Iterable[Step | str]]) -> Steps:
    """``value`` as a :class:`~rtsched.result.Steps` (kept as is when it already is one)."""
    return value if isinstance(value, Steps) else Steps(value)


@dataclass(frozen=True)
class Explanation:
    """What an analysis module's ``explain`` returns: the verdict and why, without registry metadata.

    The registry stamps it into a :class:`Result` (name, kind, m, policy).
    """

    verdict: Verdict
    summary: str
    evidence: Mapping[str, Any] = field(default_factory=dict)
    per_task: Sequence[Mapping[str, Any]] = ()
    #: The derivation step by step (:class:`~rtsched.result.Steps`, or a function returning the steps: it runs
    #: only when someone reads them).
    steps: Steps | Iterable[Step | str] | Callable[[], Iterable[Step | str]] = ()


@dataclass(frozen=True)
class Result:
    """One analysis's verdict on one task set, with its evidence.

    Attributes
    ----------
    analysis:
        Registry name of the analysis.
    verdict:
        ``True``, ``False`` or ``"unknown"``. For a *sufficient* test ``False`` means "not
        proven"; for an *exact* test it means "not schedulable"; for a *necessary* test ``True``
        means only "not refuted".
    m:
        Number of processors the verdict is for.
    kind:
        ``"exact"``, ``"sufficient"`` or ``"necessary"``.
    summary:
        One line with the key evidence, as printed in tables.
    evidence:
        Read-only mapping of named quantities (exact Fractions where the paper has fractions).
    per_task:
        Read-only per-task evidence (one mapping per task, in input order), or empty.
    policy:
        The scheduling policy the verdict is about (``global-edf``, ``partitioned-edf``, ...).
    steps:
        The derivation a lecturer writes on the board (:class:`~rtsched.result.Steps`, computed when first read;
        empty for an analysis that gives none): the QPA iterations, the RTA iterations, both sides
        of an inequality per task, each placement and refusal of a packing, sbf values.
    """

    analysis: str
    verdict: Verdict
    m: int
    kind: str
    summary: str
    evidence: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    per_task: Sequence[Mapping[str, Any]] = ()
    policy: str = ""
    steps: Steps = field(default_factory=Steps, compare=False)

    def __post_init__(self) -> None:
        if self.verdict not in (True, False, UNKNOWN):
            raise ValueError(f"verdict must be True, False or 'unknown', got {self.verdict!r}")
        object.__setattr__(self, "verdict", self.verdict if self.verdict == UNKNOWN else bool(self.verdict))
        object.__setattr__(self, "evidence", freeze(dict(self.evidence)))
        object.__setattr__(self, "per_task", freeze(list(self.per_task)))
        object.__setattr__(self, "steps", as_steps(self.steps))

    @property
    def schedulable(self) -> bool:
        """True only if this result *proves* the set schedulable (sufficient or exact test)."""
        return self.verdict is True and self.kind in ("exact", "sufficient")

    def to_dict(self, steps: bool = False) -> dict[str, Any]:
        """A JSON-ready dict (with ``"steps"``, each ``{"text", "values"}``, when ``steps``)."""
        out = {
            "analysis": self.analysis,
            "verdict": self.verdict,
            "m": self.m,
            "kind": self.kind,
            "policy": self.policy or "other",
            "summary": self.summary,
            "evidence": jsonable(self.evidence),
            "per_task": jsonable(self.per_task),
        }
        if steps:
            out["steps"] = [step.to_dict() for step in self.steps]
        return out

    def text(self, steps: bool = False) -> str:
        """``str(result)``, followed by the derivation step by step when ``steps``."""
        if not steps:
            return str(self)
        if not self.steps:
            return str(self) + "\n  steps: (this analysis gives no step-by-step derivation)"
        return str(self) + "\n  steps:\n" + self.steps.text("    ")

    def __str__(self) -> str:
        lines = [
            f"{self.analysis} ({self.kind}, m={self.m}): {verdict_text(self.verdict, self.kind)}",
            f"  {self.summary}",
        ]
        for key, value in self.evidence.items():
            if isinstance(value, tuple | Mapping):
                continue
            lines.append(f"  {key} = {_fmt(value)}")
        if self.per_task:
            lines.extend("  " + line for line in table(self.per_task))
        return "\n".join(lines)


def _stop_reason(summary: str) -> str:
    """An "unknown" summary without its verdict words: why the explanation stopped.

    ``unknown: work budget ... exhausted after 500 evaluations`` and ``budget of 20 rounds
    exhausted (unknown)`` give ``work budget ... exhausted after 500 evaluations`` and ``budget of
    20 rounds exhausted``.
    """
    text = summary.strip()
    text = re.sub(r"^unknown\s*(?::|;|—|-)\s*", "", text)
    text = re.sub(r"\s*(?:\(unknown\)|:\s*unknown)$", "", text)
    return text or "its work budget ran out"


class LazyResult:
    """A verdict decided by an analysis's kernel, with its evidence computed when first read.

    :func:`rtsched.check` decides every analysis with its kernel (microseconds) and builds the
    explanation (the exact reference plus evidence, often milliseconds) only when a caller reads
    ``summary``, ``evidence``, ``per_task``, prints the result or asks for its dict. It reads like
    a :class:`Result` (the same attributes and methods) and :meth:`full` returns that Result.

    The verdict is the kernel's, which the test suite holds equal to the reference's on every
    integer input; if the explanation's own work budget runs out first (it reports
    ``"unknown"``), the kernel's verdict stands and the summary says the evidence is incomplete.
    """

    __slots__ = ("_explain", "_full", "_taskset", "analysis", "kind", "m", "policy", "verdict")

    def __init__(
        self, analysis: str, verdict: Verdict, m: int, kind: str, explain: Any, taskset: Any, policy: str = ""
    ) -> None:
        if verdict not in (True, False, UNKNOWN):
            raise ValueError(f"verdict must be True, False or 'unknown', got {verdict!r}")
        self.analysis, self.verdict, self.m, self.kind, self.policy = analysis, verdict, m, kind, policy
        self._explain, self._taskset = explain, taskset
        self._full: Result | None = None

    @property
    def schedulable(self) -> bool:
        """True only if this result *proves* the set schedulable (sufficient or exact test)."""
        return self.verdict is True and self.kind in ("exact", "sufficient")

    def full(self) -> Result:
        """The complete :class:`Result` (runs the explanation once)."""
        if self._full is None:
            result = self._explain(self._taskset, self.m)
            if result.verdict == UNKNOWN and self.verdict != UNKNOWN:
                # The explanation's own work budget ran out where the kernel's did not: say the
                # verdict the table shows, then why the evidence stops (not "unknown: ...").
                summary = (
                    f"{verdict_text(self.verdict, self.kind)} (the kernel decided); evidence incomplete: "
                    f"the explanation stopped, {_stop_reason(result.summary)}"
                )
                result = replace(result, verdict=self.verdict, summary=summary)
            elif result.verdict != self.verdict:
                note = f" [evidence incomplete: the explanation answered {result.verdict!r}; the kernel decided]"
                result = replace(result, verdict=self.verdict, summary=result.summary + note)
            self._full = result
        return self._full

    @property
    def computed(self) -> bool:
        """Whether the evidence has been computed (reading it computes it)."""
        return self._full is not None

    @property
    def summary(self) -> str:
        """``Result.summary`` of the full result (computes the explanation if needed)."""
        return self.full().summary

    @property
    def evidence(self) -> Mapping[str, Any]:
        """``Result.evidence`` of the full result (computes the explanation if needed)."""
        return self.full().evidence

    @property
    def per_task(self) -> Sequence[Mapping[str, Any]]:
        """``Result.per_task`` of the full result (computes the explanation if needed)."""
        return self.full().per_task

    @property
    def steps(self) -> Steps:
        """``Result.steps`` of the full result (computes the explanation if needed)."""
        return self.full().steps

    def to_dict(self, steps: bool = False) -> dict[str, Any]:
        """:meth:`Result.to_dict` of the full result (computes the explanation if needed)."""
        return self.full().to_dict(steps)

    def text(self, steps: bool = False) -> str:
        """:meth:`Result.text` of the full result (computes the explanation if needed)."""
        return self.full().text(steps)

    def __str__(self) -> str:
        return str(self.full())

    def __repr__(self) -> str:
        return f"LazyResult(analysis={self.analysis!r}, verdict={self.verdict!r}, m={self.m}, kind={self.kind!r})"


@dataclass(frozen=True)
class Report:
    """Results of several analyses on one task set (what :func:`rtsched.check` returns)."""

    taskset: TaskSet
    m: int
    results: tuple[Result | LazyResult, ...]
    skipped: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    platform: Any = None
    #: The scheduling policy of each analysis named in the report (the results carry theirs; a
    #: skipped analysis's comes from here; "other" where neither says).
    policies: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    #: The report's first line before the verdicts (its workload kind's
    #: :meth:`~rtsched.workloads.WorkloadKind.describe`); empty: the task-set form.
    heading: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "results", tuple(self.results))
        object.__setattr__(self, "skipped", MappingProxyType(dict(self.skipped)))
        object.__setattr__(self, "policies", MappingProxyType(dict(self.policies)))

    def _policy_of(self, name: str) -> str:
        return self.policies.get(name, "other")

    @property
    def schedulable(self) -> bool:
        """True if some analysis proves the set schedulable under *some* policy.

        The policies differ (global EDF, partitioned EDF, ...): ask :meth:`schedulable_under`
        for one of them; :meth:`policy_verdicts` gives each policy's answer.
        """
        return any(r.schedulable for r in self.results)

    def schedulable_under(self, policy: str) -> bool:
        """True if some analysis of ``policy`` (e.g. ``"global-edf"``) proves the set schedulable."""
        return any(r.schedulable for r in self.results if (r.policy or self._policy_of(r.analysis)) == policy)

    @property
    def verdicts(self) -> dict[str, Verdict]:
        """``{analysis name: verdict}`` in the order the analyses ran."""
        return {r.analysis: r.verdict for r in self.results}

    def __getitem__(self, name: str) -> Result | LazyResult:
        for r in self.results:
            if r.analysis == name:
                return r
        raise KeyError(name)

    def __iter__(self) -> Iterator[Result | LazyResult]:
        """The results, in the report's order (``for r in report``)."""
        return iter(self.results)

    def __len__(self) -> int:
        return len(self.results)

    def __contains__(self, name: object) -> bool:
        """Whether an analysis of that name ran (``"gfb" in report``)."""
        return any(r.analysis == name for r in self.results)

    def to_dict(self, index: int | None = None, explain: bool = False, steps: bool = False) -> dict[str, Any]:
        """A JSON-ready dict: ``{"index": i, "verdicts": {...}}`` plus details when ``explain``.

        With ``steps`` (which implies ``explain``) each result's derivation is included too.
        """
        out: dict[str, Any] = {}
        if index is not None:
            out["index"] = index
        if self.taskset.name:
            out["name"] = self.taskset.name
        out["m"] = self.m
        out["verdicts"] = dict(self.verdicts)
        out["schedulable"] = self.schedulable
        if explain or steps:
            out["results"] = [r.to_dict(steps) for r in self.results]
        if self.skipped:
            out["skipped"] = dict(self.skipped)
        return out

    def to_records(self, index: int | None = None, summary: bool = False) -> list[dict[str, Any]]:
        """Plain records, one dict per analysis (ran or skipped), for the Python data stack.

        Parameters
        ----------
        index:
            The set's index in its file, written as ``"set"`` in every record when given.
        summary:
            Also give each result's one-line evidence (computes the lazy explanations).

        Returns
        -------
        list of dict
            Keys ``set`` (when ``index`` is given), ``name``, ``n``, ``m``, ``utilization`` (a float),
            ``analysis``, ``policy``, ``kind``, ``verdict`` (True, False, ``"unknown"`` or
            ``"skipped"``), ``schedulable`` (proven by this analysis) and ``summary`` (with
            ``summary``; the reason for a skipped analysis). Every value is a str, int, float or
            bool.
        """
        head: dict[str, Any] = {} if index is None else {"set": index}
        utilization = getattr(self.taskset, "utilization", None)
        head.update(
            name=self.taskset.name,
            n=self.taskset.n,
            m=self.m,
            utilization=float("nan" if utilization is None else utilization),
        )
        out = []
        for r in self.results:
            row = {
                **head,
                "analysis": r.analysis,
                "policy": r.policy or self._policy_of(r.analysis),
                "kind": r.kind,
                "verdict": r.verdict,
                "schedulable": r.schedulable,
            }
            if summary:
                row["summary"] = r.summary
            out.append(row)
        for name, why in self.skipped.items():
            row = {**head, "analysis": name, "policy": self._policy_of(name), "kind": "-", "verdict": "skipped"}
            row["schedulable"] = False
            if summary:
                row["summary"] = why
            out.append(row)
        return out

    def to_dataframe(self, summary: bool = False) -> Any:
        """The records of :meth:`to_records` as a pandas DataFrame (``pip install rtsched[pandas]``).

        Raises
        ------
        ImportError
            If pandas is not installed, saying how to install it.
        """
        return records_to_dataframe(self.to_records(summary=summary))

    def to_json(self, index: int | None = None, explain: bool = False, steps: bool = False) -> str:
        """One JSON object on one line."""
        return json.dumps(self.to_dict(index, explain, steps), ensure_ascii=False)

    def explain(self, steps: bool = False) -> str:
        """The report, then every result with its evidence (``rtsched check --explain``).

        When ``steps``, each result's derivation follows, step by step (``--explain --steps``).
        """
        return "\n\n".join([str(self), *(r.text(steps) for r in self.results)])

    def shows_evidence(self, evidence: bool | None = None) -> bool:
        """Whether :meth:`table` computes the evidence column (``evidence``: as :meth:`table` takes it)."""
        if evidence is None:
            evidence = _TABLE_EVIDENCE.get()
        if evidence is None:
            return int(getattr(self.taskset, "n", 0)) <= TABLE_EVIDENCE_TASKS
        return evidence

    def _summary_shown(self, result: Result | LazyResult, evidence: bool) -> str:
        """A result's evidence in the table: computed if ``evidence``, else only if already known."""
        if evidence or not isinstance(result, LazyResult) or result.computed:
            return result.summary
        return ""

    def table(self, evidence: bool | None = None, width: int | None = None, note: bool = True) -> str:
        """A plain-text table: analysis, policy, kind, verdict, key evidence.

        ``evidence``: compute each result's evidence (its exact explanation) for the last column.
        By default (``None``: :func:`~rtsched.result.table_evidence`'s setting, else the size rule) only for sets
        of at most :data:`~rtsched.result.TABLE_EVIDENCE_TASKS` tasks: an explanation is exact Python arithmetic,
        seconds per analysis at thousands of tasks (the verdicts come from the kernels either
        way). A larger set's table shows the evidence already computed and a last line saying how
        to get the rest. The work is one explanation per row when computed, none otherwise.

        ``width``: wrap each evidence cell so that no line is longer (continuation lines start
        under the evidence column; at least 40 columns of evidence); ``None``: one line per row.
        ``note``: end with the line that says how to get evidence not computed (if any is missing).
        """
        show = self.shows_evidence(evidence)
        head = ("analysis", "policy", "kind", "verdict", "evidence")
        rows = [
            (
                r.analysis,
                r.policy or self._policy_of(r.analysis),
                r.kind,
                verdict_text(r.verdict, r.kind),
                self._summary_shown(r, show),
            )
            for r in self.results
        ]
        rows += [(name, self._policy_of(name), "-", "skipped", why) for name, why in self.skipped.items()]
        widths = [max(len(h), *(len(row[i]) for row in rows)) if rows else len(h) for i, h in enumerate(head)]
        widths[-1] = len(head[-1])
        fmt = "  ".join(f"{{:<{w}}}" for w in widths[:-1]) + "  {}"
        lines = [fmt.format(*head), fmt.format(*("-" * w for w in widths[:-1]), "-" * 8)]
        indent = sum(widths[:-1]) + 2 * (len(widths) - 1)
        for row in rows:
            line = fmt.format(*row).rstrip()
            if width is None or len(line) <= width:
                lines.append(line)
                continue
            cells = textwrap.wrap(row[-1], max(40, width - indent), break_on_hyphens=False) or [""]
            lines.append(fmt.format(*row[:-1], cells[0]).rstrip())
            lines += [" " * indent + cell for cell in cells[1:]]
        missing = sum(1 for row in rows if not row[-1])
        if missing and note:
            lines += textwrap.wrap(self._evidence_note(missing, evidence), min(100, width or 100))
        return "\n".join(lines)

    def _evidence_note(self, missing: int, evidence: bool | None) -> str:
        why = (
            f"n = {self.taskset.n} tasks > {TABLE_EVIDENCE_TASKS}, where an exact explanation can take seconds"
            if evidence is None and _TABLE_EVIDENCE.get() is None
            else "not asked for"
        )
        return (
            f"(evidence of {count(missing, 'analysis', 'analyses')} not computed: {why}; rtsched check --evidence or "
            "--explain shows it, in Python report.table(evidence=True) or report[name].summary)"
        )

    def policy_verdicts(self) -> dict[str, str]:
        """The verdict per scheduling policy, over every result for that policy.

        ``schedulable`` (some sufficient or exact test proves it), ``NOT schedulable`` (an exact
        or necessary test refutes it), ``unknown`` or ``not proven``.
        """
        policies: dict[str, list[Result | LazyResult]] = {}
        for r in self.results:
            policies.setdefault(r.policy or self._policy_of(r.analysis), []).append(r)
        out = {}
        for policy, results in policies.items():
            if any(r.schedulable for r in results):
                out[policy] = "schedulable"
            elif any(r.kind in ("exact", "necessary") and r.verdict is False for r in results):
                out[policy] = "NOT schedulable"
            elif any(r.verdict == UNKNOWN for r in results):
                out[policy] = "unknown"
            else:
                out[policy] = "not proven"
        return out

    def _heading(self) -> str:
        if self.heading:
            return self.heading
        title = self.taskset.name or "task set"
        return f"{title}: n={self.taskset.n}, m={self.m}, U={_fmt(self.taskset.utilization)}"

    def text(self, evidence: bool | None = None, width: int | None = None, note: bool = True) -> str:
        """``str(report)``: the heading with each policy's verdict, then :meth:`table` (its options)."""
        per_policy = "; ".join(f"{p}: {v}" for p, v in self.policy_verdicts().items())
        header = f"{self._heading()} -- {per_policy or 'no analysis ran'}"
        if width is not None:
            header = "\n".join(textwrap.wrap(header, width, subsequent_indent="  ", break_on_hyphens=False))
        return header + "\n" + self.table(evidence, width, note)

    def __str__(self) -> str:
        return self.text()

    def _repr_html_(self) -> str:
        show = self.shows_evidence()
        shown = [self._summary_shown(r, show) for r in self.results]
        rows = "".join(
            f"<tr><td>{html.escape(r.analysis)}</td><td>{r.kind}</td>"
            f"<td style='color:{'green' if r.verdict is True else ('gray' if r.verdict == UNKNOWN else 'firebrick')}'>"
            f"{verdict_text(r.verdict, r.kind)}</td><td>{html.escape(summary)}</td></tr>"
            for r, summary in zip(self.results, shown, strict=True)
        )
        missing = shown.count("")
        note = f"<p><i>{html.escape(self._evidence_note(missing, None))}</i></p>" if missing else ""
        title, _, rest = self._heading().partition(": ")
        return (
            f"<p><b>{html.escape(title)}</b>: {html.escape(rest)}</p>"
            "<table><thead><tr><th>analysis</th><th>kind</th><th>verdict</th><th>evidence</th></tr></thead>"
            f"<tbody>{rows}</tbody></table>{note}"
        )


def records_to_dataframe(records: Sequence[Mapping[str, Any]]) -> Any:
    """A pandas DataFrame of plain records (:meth:`Report.to_records`); pandas is imported lazily.

    Raises
    ------
    ImportError
        If pandas is not installed, saying how to install it.
    """
    import importlib

    try:
        pd = importlib.import_module("pandas")
    except ImportError:
        raise ImportError(
            "to_dataframe() needs pandas, an optional dependency: pip install 'rtsched[pandas]' (or pandas)"
        ) from None
    return pd.DataFrame.from_records(list(records))
