"""Per-student exercise sheets with answer keys (``rtsched exercise``).

A sheet poses questions on small task sets (or an MPR interface) drawn from a seed; its key gives
the answers with the derivation step by step, computed by the analyses themselves
(``rtsched.result.Result.steps``), never typed by hand. The same topic, seed and rtsched
version give byte-identical sheets and keys.

Sets are drawn so that the exercise teaches something, by rejection sampling from a
:class:`numpy.random.Generator` seeded with ``SeedSequence([seed, topic number])`` with at most
:data:`MAX_TRIES` draws: the utilization and density tests fail while QPA decides (``uni-edf``);
the Liu & Layland bound fails while response-time analysis decides (``uni-fp``); GFB, BAK and BCL
disagree (``gedf-tests``); one bin-packing heuristic packs the set and another does not
(``partitioning``); the interface has a partial unit of supply (β > 0) and a blackout, and the
times asked include the blackout and the corrected case of the supply bound (``mpr``); the DAG set
has a heavy task that fits on some number of cores and federated scheduling accepts it or not as
a coin decides (``dag``); the dual-criticality set has a LO task above a HI task, passes LO mode,
gives AMC-max more than one switch instant for some HI task, needs EDF-VD's virtual deadlines
(U_LL + U_HH > 1), and either SMC fails while AMC-rtb passes or AMC-rtb fails across the switch, as
a coin decides (``mc``); the CPU–GPU set on two cores and one GPU has two GPU tasks on different cores
(remote blocking), a task below a GPU task on its core (busy waiting matters), bounds for the
highest-priority GPU task in both modes, and either MPCP proves it with suspension but not with busy
waiting or MPCP does not prove it, as a coin decides (``seg``: 15 tries on average, at most 60 over
seeds 0-49, about 30 ms a sheet); the set on two or three processors has U in (m − 1, m], so its tardiness
under global EDF is bounded (Devi and Anderson), and global EDF misses a hard deadline under the synchronous
periodic release by t = 24 (``tardiness``: 12 tries on average, at most 120 over seeds 0-199, about 35 ms a
sheet with its simulations). Each
accepted draw needs on average 2 to 60 tries (at most 233 over seeds 0-199 of every topic but ``mc``, whose
draws need 42 on average and at most 344 over those seeds, about 45 ms a sheet). Integers stay small
(periods at most 20, supplies at most m'·Π ≤ 30) so that a student can work by hand.

Example
-------
>>> ex = make_exercise("uni-edf", 7)
>>> ex.sheet == make_exercise("uni-edf", 7).sheet
True
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Literal, TypeVar

import numpy as np

from rtsched.analyses.theory.graham import graham_bound  # re-exported: the dag topic's keys use it
from rtsched.analyses.theory.supply import MPRInterface, lsbf, sbf
from rtsched.errors import InputError
from rtsched.model import TaskSet
from rtsched.result import Result, Step, exact_numbers, show_number, verdict_text

if TYPE_CHECKING:
    from rtsched.dag import DAGTask, DAGTaskSet
    from rtsched.mc import MCTaskSet
    from rtsched.segmented import SegmentedTaskSet

__all__ = [
    "MAX_TRIES",
    "TOPICS",
    "Exercise",
    "graham_bound",
    "make_exercise",
    "parse_dag_tasksets",
    "parse_mc_tasksets",
    "parse_segmented_tasksets",
    "parse_tasksets",
    "sbf_steps",
    "seed_number",
]

#: Draws per exercise before giving up (each draw costs microseconds to a millisecond).
MAX_TRIES = 20_000

#: Periods a student can handle by hand.
_PERIODS = (4, 5, 6, 8, 10, 12, 15, 20)


@dataclass(frozen=True)
class Exercise:
    """One generated exercise.

    Attributes
    ----------
    topic, seed:
        What it was generated from (``seed`` as given, text or number).
    title:
        Heading of the sheet and the key.
    sheet, key:
        Markdown text of the student's sheet and of the answer key.
    tasksets:
        The task sets on the sheet, in order (empty for ``mpr``; DAG task sets for ``dag``;
        mixed-criticality task sets for ``mc``; CPU–GPU segmented task sets for ``seg``).
    m:
        Processors of the platform the questions are about.
    analyses:
        Registry names of the analyses whose verdicts the key states (its "Verdicts" table).
    """

    topic: str
    seed: int | str
    title: str
    sheet: str
    key: str
    tasksets: tuple[TaskSet, ...] | tuple[DAGTaskSet, ...] | tuple[MCTaskSet, ...] | tuple[SegmentedTaskSet, ...]
    m: int
    analyses: tuple[str, ...]


def seed_number(seed: int | str) -> int:
    """The integer seed of ``seed``.

    That is ``seed`` itself if it is a non-negative integer (or its decimal text), else the first
    8 bytes of the SHA-256 of its text (so a student ID such as ``ab1234`` works).
    """
    text = str(seed).strip()
    if text.isdigit():
        return int(text)
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


def _rng(topic: str, seed: int | str) -> np.random.Generator:
    topic_number = int.from_bytes(hashlib.sha256(topic.encode()).digest()[:4], "big")
    return np.random.default_rng(np.random.SeedSequence([seed_number(seed), topic_number]))


def _draw(rng: np.random.Generator, n: int, implicit: bool, max_share: Fraction = Fraction(1, 2)) -> TaskSet:
    """A set of n tasks with periods from :data:`_PERIODS`, 1 ≤ C ≤ max_share·T, C ≤ D ≤ T (D = T if implicit)."""
    tasks = []
    for _ in range(n):
        T = int(rng.choice(_PERIODS))
        C = int(rng.integers(1, max(1, int(T * max_share)) + 1))
        D = T if implicit else int(rng.integers(C, T + 1))
        tasks.append((C, D, T))
    return TaskSet.from_tasks(tasks)


Draw = TypeVar("Draw")


def _search(rng: np.random.Generator, topic: str, draw: Callable[[], Draw], keep: Callable[[Draw], bool]) -> Draw:
    for _ in range(MAX_TRIES):
        candidate = draw()
        if keep(candidate):
            return candidate
    raise RuntimeError(f"exercise {topic!r}: no instructive draw in {MAX_TRIES} tries (a bug in rtsched.exercise)")


def _explain(name: str, ts: TaskSet, m: int) -> Result:
    from rtsched.registry import get

    return get(name).explain(ts, m)


def _verdict(name: str, ts: TaskSet, m: int) -> object:
    from rtsched.registry import get

    return get(name).reference(ts, m)


# ------------------------------------------------------------------------------------------------
# Markdown pieces
# ------------------------------------------------------------------------------------------------
def _set_block(ts: TaskSet, heading: str = "Task set") -> list[str]:
    lines = [f"## {heading}", "", "| task | C | D | T |", "|---|---|---|---|"]
    lines += [f"| {ts.label(i)} | {c} | {d} | {t} |" for i, (c, d, t) in enumerate(ts.rows())]
    lines += ["", "The same set as `C D T` lines, in priority order where priorities matter:", "", "```text"]
    lines += [f"{c} {d} {t}" for c, d, t in ts.rows()]
    return [*lines, "```", ""]


def _steps_block(result: Result) -> list[str]:
    return ["```text", *(str(step) for step in result.steps), "```", ""]


def _verdict_table(rows: Iterable[tuple[str, Result]]) -> list[str]:
    lines = ["## Verdicts (rtsched)", "", "| analysis | verdict | evidence |", "|---|---|---|"]
    for name, r in rows:
        lines.append(f"| {name} | {verdict_text(r.verdict, r.kind)} | {r.summary.replace('|', '/')} |")
    return [*lines, ""]


def _header(title: str, topic: str, seed: int | str, intro: str, key: bool) -> list[str]:
    from rtsched import __version__

    head = f"# {'Answer key' if key else 'Exercise sheet'}: {title}"
    return [head, "", f"Topic `{topic}`, seed `{seed}`, rtsched {__version__}.", "", intro, ""]


def _numbered(questions: list[str]) -> list[str]:
    return ["## Questions", "", *(f"{i}. {q}" for i, q in enumerate(questions, 1)), ""]


def _frac(x: Fraction | int) -> str:
    return show_number(x)


# ------------------------------------------------------------------------------------------------
# Topics
# ------------------------------------------------------------------------------------------------
def _uni_edf(topic: str, seed: int | str) -> Exercise:
    from rtsched.analyses.theory.edf_demand import qpa_trace

    rng = _rng(topic, seed)
    want = bool(rng.integers(0, 2))  # schedulable or not: both are instructive

    def keep(ts: TaskSet) -> bool:
        rows = ts.rows()
        if ts.utilization > 1 or sum(Fraction(c, d) for c, d, _ in rows) <= 1:
            return False  # U > 1 or density ≤ 1 decide at once: nothing to practise
        tr = qpa_trace(rows)
        if tr.L is None or tr.L > 40 or tr.verdict is not want:
            return False
        return sum(1 for s in _explain("uni-qpa", ts, 1).steps if str(s).startswith("t = ")) >= 2

    ts = _search(rng, topic, lambda: _draw(rng, int(rng.integers(3, 5)), implicit=False), keep)
    rows = ts.rows()
    deadlines = sorted({d + k * t for _, d, t in rows for k in range(4)})
    points = sorted(int(x) for x in rng.choice([d for d in deadlines if d <= 30], size=3, replace=False))
    title = "uniprocessor EDF: demand bound function and QPA"
    intro = (
        "Preemptive EDF on one processor; sporadic tasks (C, D, T) with constrained deadlines. dbf_i(t) = "
        "max(0, ⌊(t − D_i)/T_i⌋ + 1)·C_i and h(t) = Σ_i dbf_i(t) (processor demand; Baruah, Rosier, Howell 1990); "
        "QPA: Zhang & Burns, IEEE TC 58(9), 2009, Thm. 5."
    )
    questions = [
        "Compute U = Σ C_i/T_i and the density Σ C_i/min(D_i, T_i). What do the utilization test (U ≤ 1, "
        "necessary) and the density test (density ≤ 1, sufficient) tell you?",
        "Compute h(t) for t = " + ", ".join(map(str, points)) + ".",
        "Compute the bound L = min(L_a, L_b) (L_a of George, Rivierre, Spuri; L_b the synchronous busy period).",
        "Run QPA from t = max{d < L}: write each t, h(t) and the next t. Is the set EDF-schedulable?",
        "Check your answer with the processor-demand criterion: h(t) ≤ t at every absolute deadline t < L.",
    ]
    qpa, pda = _explain("uni-qpa", ts, 1), _explain("uni-pda", ts, 1)
    from rtsched.analyses.theory.edf_demand import demand

    density = sum((Fraction(c, min(d, t)) for c, d, t in rows), Fraction(0))
    answers = [
        "### 1. Utilization and density",
        "",
        f"U = {_frac(ts.utilization)} ≤ 1, so the necessary condition holds; density = {_frac(density)} > 1, so the "
        "density test does not decide: an exact test is needed.",
        "",
        "### 2. Processor demand",
        "",
        "```text",
        *(
            f"h({t}) = " + " + ".join(f"{max(0, (t - d) // p + 1)}·{c}" for c, d, p in rows) + f" = {demand(rows, t)}"
            for t in points
        ),
        "```",
        "",
        "### 3–4. The bound L and QPA (uni-qpa)",
        "",
        *_steps_block(qpa),
        "### 5. Processor-demand criterion (uni-pda)",
        "",
        *_steps_block(pda),
    ]
    return _assemble(topic, seed, title, intro, [ts], 1, questions, answers, [("uni-qpa", qpa), ("uni-pda", pda)])


def _uni_fp(topic: str, seed: int | str) -> Exercise:
    rng = _rng(topic, seed)
    want = bool(rng.integers(0, 2))

    def draw() -> TaskSet:
        ts = _draw(rng, int(rng.integers(3, 5)), implicit=True)
        order = sorted(range(ts.n), key=lambda i: (int(ts.T[i]), i))  # rate-monotonic priorities
        return TaskSet.from_tasks([ts.rows()[i] for i in order])

    def keep(ts: TaskSet) -> bool:
        if ts.utilization > 1 or _verdict("rm-ll", ts, 1) is not False:
            return False  # the bound must fail, so that the exact analysis has work to do
        if _verdict("uni-rta", ts, 1) is not want:
            return False
        run = _explain("uni-rta", ts, 1)
        return all(not isinstance(r.get("response_time"), int) or r["response_time"] <= 40 for r in run.per_task)

    ts = _search(rng, topic, draw, keep)
    title = "uniprocessor fixed priority: utilization bounds and response-time analysis"
    intro = (
        "Preemptive fixed priorities on one processor, rate-monotonic order (τ0 highest), implicit deadlines. "
        "Liu & Layland, JACM 20(1), 1973, Thm. 5: U ≤ n(2^(1/n) − 1); hyperbolic bound, Bini, Buttazzo, Buttazzo, "
        "IEEE TC 52(7), 2003: Π(U_i + 1) ≤ 2; response-time analysis R = C_k + Σ_{i<k} ⌈R/T_i⌉·C_i "
        "(Joseph & Pandya 1986; Audsley et al. 1993)."
    )
    questions = [
        "Compute U and the Liu & Layland bound n(2^(1/n) − 1). What does the bound say?",
        "Compute Π(U_i + 1). What does the hyperbolic bound say?",
        "Compute the response time of every task by iterating the RTA recurrence from R⁰ = Σ_{j≤k} C_j. "
        "Is the set schedulable?",
    ]
    with exact_numbers(False):  # the bound is irrational: its exact-style text is a long decimal fraction
        ll = _explain("rm-ll", ts, 1)
    hb, rta = _explain("rm-hb", ts, 1), _explain("uni-rta", ts, 1)
    answers = [
        "### 1. Liu & Layland bound (rm-ll)",
        "",
        f"{ll.summary}: {verdict_text(ll.verdict, ll.kind)} by the bound.",
        "",
        "### 2. Hyperbolic bound (rm-hb)",
        "",
        f"{hb.summary}: {verdict_text(hb.verdict, hb.kind)} by the bound.",
        "",
        "### 3. Response-time analysis (uni-rta)",
        "",
        *_steps_block(rta),
    ]
    verdicts = [("rm-ll", ll), ("rm-hb", hb), ("uni-rta", rta)]
    return _assemble(topic, seed, title, intro, [ts], 1, questions, answers, verdicts)


_GEDF = ("gfb", "bak", "bcl")


def _gedf_tests(topic: str, seed: int | str) -> Exercise:
    rng = _rng(topic, seed)
    m = 2

    def keep(ts: TaskSet) -> bool:
        if ts.utilization > m or any(c == d for c, d, _ in ts.rows()):
            return False
        return len({_verdict(name, ts, m) for name in _GEDF}) > 1  # the tests disagree

    ts = _search(rng, topic, lambda: _draw(rng, int(rng.integers(4, 6)), implicit=False), keep)
    title = "global EDF: the GFB, BAK and BCL tests side by side"
    intro = (
        f"Global EDF on m = {m} identical processors; sporadic tasks with constrained deadlines. GFB: Goossens, "
        "Funk, Baruah, Real-Time Systems 25(2-3), 2003 (density form); BAK: Baker, RTSS 2003 (the form restated by "
        "Bertogna, Cirinei, Lipari, ECRTS 2005); BCL: Bertogna, Cirinei, Lipari, ECRTS 2005. All three are "
        "sufficient: a failed test proves nothing."
    )
    questions = [
        "GFB: compute every density λ_i = C_i/min(D_i, T_i), then both sides of Σλ_i ≤ m − (m − 1)·λmax.",
        "BAK: for every task τk compute λ_k = C_k/D_k, the β_k(i) and both sides of "
        "Σ_i min(1, β_k(i)) ≤ m(1 − λ_k) + λ_k.",
        "BCL: for every task τk compute the β_i (i ≠ k) and both sides of Σ_{i≠k} min(β_i, 1 − λ_k) < m(1 − λ_k) "
        "(or = with some β_i ≤ 1 − λ_k).",
        "Which tests prove the set schedulable? What does that tell you about the tests?",
    ]
    results = [(name, _explain(name, ts, m)) for name in _GEDF]
    answers: list[str] = []
    for number, (name, r) in enumerate(results, 1):
        answers += [f"### {number}. {name.upper()} ({name})", "", *_steps_block(r)]
    accepted = [name for name, r in results if r.verdict is True]
    answers += [
        "### 4. Comparison",
        "",
        f"Proven schedulable by: {', '.join(accepted) if accepted else 'none'}; not proven by: "
        f"{', '.join(name for name, r in results if r.verdict is not True)}. The tests are incomparable "
        "sufficient conditions: one failing says nothing while another succeeds.",
        "",
    ]
    return _assemble(topic, seed, title, intro, [ts], m, questions, answers, results)


_FITS = (("ff", "first fit"), ("bf", "best fit"), ("wf", "worst fit"))


def _partitioning(topic: str, seed: int | str) -> Exercise:
    rng = _rng(topic, seed)
    m = 2
    names = [f"p:{fit}:utilization:density" for fit, _ in _FITS]

    def keep(ts: TaskSet) -> bool:
        if ts.utilization > m:
            return False
        return len({_verdict(name, ts, m) for name in names}) > 1  # one heuristic packs, another does not

    def draw() -> TaskSet:
        return _draw(rng, int(rng.integers(5, 7)), implicit=True, max_share=Fraction(3, 4))

    ts = _search(rng, topic, draw, keep)
    title = "partitioned EDF: first fit, best fit, worst fit"
    intro = (
        f"Partitioned EDF on m = {m} identical processors; implicit deadlines, so a processor can take a task iff "
        "its utilization stays ≤ 1 (Liu & Layland 1973). Tasks are placed in decreasing order of utilization "
        "(ties: lower index first); best and worst fit compare processor utilizations, ties to the lower index."
    )
    questions = [
        "Compute every task's utilization u_i = C_i/T_i and the placement order.",
        *(
            f"Place the tasks by {text} ({fit.upper()}): for every task, the processors tried, each refusal and why, "
            "and where it goes."
            for fit, text in _FITS
        ),
        "Which heuristics succeed?",
    ]
    results = [(name, _explain(name, ts, m)) for name in names]
    rows = ts.rows()
    answers = [
        "### 1. Utilizations",
        "",
        ", ".join(f"u({ts.label(i)}) = {c}/{t} = {_frac(Fraction(c, t))}" for i, (c, _, t) in enumerate(rows))
        + f"; U = {_frac(ts.utilization)}.",
        "",
    ]
    for number, ((_, text), (name, r)) in enumerate(zip(_FITS, results, strict=True), 2):
        answers += [f"### {number}. {text.capitalize()} ({name})", "", *_steps_block(r)]
    packed = [name for name, r in results if r.verdict is True]
    answers += [
        f"### {len(_FITS) + 2}. Comparison",
        "",
        f"Packed by: {', '.join(packed) if packed else 'none'}; failed: "
        f"{', '.join(name for name, r in results if r.verdict is not True)}. A heuristic that fails proves nothing: "
        "another assignment may exist.",
        "",
    ]
    return _assemble(topic, seed, title, intro, [ts], m, questions, answers, results)


def sbf_steps(interface: MPRInterface, t: int) -> Iterator[Step]:
    """The derivation of sbf(t) and lsbf(t) for ⟨Π, Θ, m'⟩, step by step.

    sbf in the exact integer form of ``rtsched.analyses.hierarchical.mpr.sbf`` (the corrected bound of
    Easwaran, Shin, Lee, RTS 2009, in rtsched's integer-time form:
    papers/shin-easwaran-lee2008-mpr.md) and ECRTS 2008, Eq. (2) for lsbf.

    The sbf value shown is the library's ``rtsched.analyses.hierarchical.mpr.sbf`` itself; the
    intermediate quantities (s, t', q, y) are those of its closed form.
    """
    Pi, Theta, mp = interface.Pi, interface.Theta, interface.m_prime
    alpha, beta = interface.alpha, interface.beta
    share = alpha + (1 if beta else 0)
    value = sbf(Pi, Theta, mp, t)
    shifted = t - 2 * (Pi - share)
    yield Step(
        f"sbf({t}) on {interface}: α = ⌊Θ/m'⌋ = {alpha}, β = Θ − m'α = {beta}, s = ⌈Θ/m'⌉ = {share}, "
        f"t' = t − 2(Π − s) = {t} − 2·({Pi} − {share}) = {shifted}"
    )
    if shifted <= 0:
        yield Step(f"  t' ≤ 0: t lies in the longest blackout, sbf({t}) = " + "{sbf}", {"sbf": value})
    else:
        q, r = divmod(shifted - 1, Pi)
        y = r + 1
        head = f"  q = ⌊(t' − 1)/Π⌋ = {q}, y = t' − qΠ = {y}; "
        if beta == 0:
            formula = f"qΘ + m'·min(y, α) = {q}·{Theta} + {mp}·{min(y, alpha)}"
        else:
            flag = int(2 <= y <= share)
            formula = (
                f"qΘ + β + m'·min(y − 1, α) − [2 ≤ y ≤ s]·(m' − β) = "
                f"{q}·{Theta} + {beta} + {mp}·{min(y - 1, alpha)} − {flag}·{mp - beta}"
            )
        yield Step(head + f"sbf({t}) = {formula} = " + "{sbf}", {"sbf": value})
    yield Step(
        f"  lsbf({t}) = (Θ/Π)·(t − 2(Π − Θ/m')) = ({Theta}/{Pi})·({t} − 2·({Pi} − {Theta}/{mp})) = " + "{lsbf}",
        {"lsbf": lsbf(Pi, Theta, mp, t)},
    )


def _mpr(topic: str, seed: int | str) -> Exercise:
    rng = _rng(topic, seed)

    def draw() -> tuple[int, int, int]:
        mp = int(rng.integers(2, 4))
        Pi = int(rng.integers(4, 11))
        return Pi, int(rng.integers(mp + 1, min(mp * Pi, 30))), mp

    def keep(candidate: tuple[int, int, int]) -> bool:
        Pi, Theta, mp = candidate
        # β > 0 and α ≥ 1 (the corrected case exists) and ⌈Θ/m'⌉ < Π (there is a blackout)
        return Theta % mp != 0 and -(-Theta // mp) < Pi

    Pi, Theta, mp = _search(rng, topic, draw, keep)
    g = MPRInterface(Pi, Theta, mp)
    share = g.alpha + 1
    blackout_end = 2 * (Pi - share)
    inside = int(rng.integers(max(1, blackout_end - 2), blackout_end + 1))
    corrected = blackout_end + Pi * int(rng.integers(0, 2)) + int(rng.integers(2, share + 1))
    others = [int(x) for x in rng.choice(np.arange(blackout_end + 1, blackout_end + 3 * Pi + 1), size=2, replace=False)]
    times = sorted({inside, corrected, *others})
    title = "MPR interfaces: supply bound function and its linear bound"
    intro = (
        "A multiprocessor periodic resource Γ = ⟨Π, Θ, m'⟩ supplies Θ units every Π time units on at most m' "
        "processors at a time (Shin, Easwaran, Lee, ECRTS 2008). Its worst-case supply sbf(t) in integer time "
        "uses α = ⌊Θ/m'⌋ and β = Θ − m'α (Easwaran, Shin, Lee, Real-Time Systems 43(1), 2009); its linear bound "
        "is lsbf(t) = (Θ/Π)·(t − 2(Π − Θ/m')) (ECRTS 2008, Eq. (2))."
    )
    questions = [
        f"For Γ = {g}: compute the bandwidth Θ/Π, α, β and the longest interval with no supply.",
        "Compute sbf(t) and lsbf(t) for t = " + ", ".join(map(str, times)) + ".",
        "For which of these t is lsbf(t) < sbf(t)? Why can lsbf be negative?",
    ]
    derivations = [str(step) for t in times for step in sbf_steps(g, t)]
    strict = [t for t in times if g.lsbf(t) < g.sbf(t)]
    answers = [
        "### 1. The interface",
        "",
        f"Θ/Π = {_frac(g.bandwidth)}, α = {g.alpha}, β = {g.beta}, longest blackout 2(Π − ⌈Θ/m'⌉) = {g.blackout}.",
        "",
        "### 2. sbf and lsbf",
        "",
        "```text",
        *derivations,
        "```",
        "",
        "### 3. Comparison",
        "",
        f"lsbf(t) < sbf(t) at t = {', '.join(map(str, strict)) if strict else 'none of them'}; lsbf ≤ sbf always "
        "(a lower bound). lsbf is negative for t < 2(Π − Θ/m'), where the line crosses zero: a straight line "
        "through the worst-case supply must start below the blackout.",
        "",
    ]
    sheet = [*_header(title, topic, seed, intro, key=False), f"Interface: Γ = {g}.", "", *_numbered(questions)]
    key = [*_header(title, topic, seed, intro, key=True), f"Interface: Γ = {g}.", "", "## Answers", "", *answers]
    return Exercise(topic, seed, title, _text(sheet), _text(key), (), mp, ())


#: Periods (= deadlines) of the ``dag`` topic's tasks.
_DAG_PERIODS = (6, 8, 10, 12, 15, 16, 20)
#: The analyses whose verdicts the ``dag`` key states.
_DAG_ANALYSES = ("dag-federated", "dag-gedf-cab")


def _one_job_response(task: DAGTask, m: int) -> int:
    """The simulator's response time of one job of ``task`` alone on ``m`` cores (vertices by index)."""
    from rtsched.dag import DAGTaskSet, simulate_dag

    trace = simulate_dag(DAGTaskSet([task]), m, releases=[[0]], horizon=task.volume + 1, record=True)
    response = trace.response_times[0]
    assert response is not None  # the horizon is past the volume: the job completes
    return response


def _dag_block(ts: DAGTaskSet) -> list[str]:
    """The set as tables of vertices (C, successors) and as a YAML block (rtsched's DAG format)."""
    from rtsched.dag import dumps_dag

    lines = ["## DAG task set", ""]
    for i, task in enumerate(ts):
        lines += [
            f"### {ts.label(i)}: T = D = {task.T}"
            if task.T == task.D
            else f"### {ts.label(i)}: T = {task.T}, D = {task.D}"
        ]
        lines += ["", "| vertex | C | successors |", "|---|---|---|"]
        for v in range(task.n):
            successors = ", ".join(f"v{w}" for w in task.successors[v]) or "—"
            lines.append(f"| v{v} | {task.wcets[v]} | {successors} |")
        lines.append("")
    lines += ["The same set in rtsched's DAG format (`rtsched.dag.loads_dag(text)`):", "", "```yaml"]
    return [*lines, *dumps_dag(ts).rstrip("\n").splitlines(), "```", ""]


def _dag(topic: str, seed: int | str) -> Exercise:
    from rtsched.dag import DAGTask, DAGTaskSet
    from rtsched.generators.dag import fork_join
    from rtsched.registry import get

    rng = _rng(topic, seed)
    m = int(rng.integers(3, 5))
    want = bool(rng.integers(0, 2))  # federated scheduling proves the set or not: both are instructive

    def task() -> DAGTask:
        while True:
            wcets, edges = fork_join(rng, max_depth=2, max_branches=3, p_par=0.7, p_term=0.3, wcet=(1, 5))
            period = int(rng.choice(_DAG_PERIODS))
            if len(wcets) <= 7 and critical(wcets, edges) <= period:
                return DAGTask(wcets, edges, T=period, D=period)

    def critical(wcets: list[int], edges: list[tuple[int, int]]) -> int:
        finish = list(wcets)
        for u, v in sorted(edges):  # u < v: index order is a topological order
            finish[v] = max(finish[v], finish[u] + wcets[v])
        return max(finish)

    def keep(ts: DAGTaskSet) -> bool:
        heavy = [t for t in ts if t.volume > t.D]
        if not heavy or any(t.length >= t.D for t in heavy) or len(heavy) == ts.n or ts.utilization > m:
            return False  # heavy tasks that some number of cores can run, and a light task to place
        return get("dag-federated").reference(ts, m) is want

    ts = _search(rng, topic, lambda: DAGTaskSet([task() for _ in range(int(rng.integers(2, 4)))]), keep)
    h = next(i for i, t in enumerate(ts) if t.volume > t.D)
    heavy = ts[h]
    title = "parallel DAG tasks: volume, length, Graham's bound, federated and global EDF"
    intro = (
        f"Sporadic DAG tasks (Baruah et al., RTSS 2012) with implicit deadlines on m = {m} identical cores. "
        "vol = Σ C_v (the volume), len = the WCET sum of a longest path (the length, or critical path). Graham's bound "
        "(Graham, SIAM J. Appl. Math. 17(2), 1969): one job alone on k cores, under any work-conserving scheduler, "
        "completes within len + (vol − len)/k. Federated scheduling (Li et al., ECRTS 2014): a task with vol > D is "
        "heavy and gets n = ⌈(vol − len)/(D − len)⌉ cores of its own; the light tasks run sequentially (C = vol) "
        "under partitioned EDF (rtsched's p-edf: first fit, decreasing density, exact admission) on the other cores. "
        "Global EDF's capacity augmentation bound (Li, Agrawal, Lu, Gill, ECRTS 2013): with b = 4 − 2/m, "
        "Σ vol/T ≤ m/b and len ≤ D/b for every task."
    )
    questions = [
        "For every task compute vol, len (give a longest path) and the utilization vol/T. Which tasks can no "
        "single core run (vol > D)? Is Σ vol/T ≤ m (a necessary condition)?",
        f"For {ts.label(h)} alone, compute Graham's bound on k = 1, …, {m} cores. On how many cores does the bound "
        "guarantee its deadline?",
        f"Federated scheduling on m = {m}: classify each task, compute n for the heavy ones and Σ n, then place the "
        "light tasks on the remaining cores with first fit in decreasing density. Is the set schedulable?",
        "Global EDF: compute b and check both conditions of the capacity augmentation bound.",
        "Which analyses prove the set schedulable? Does a failed test prove that the set misses deadlines?",
    ]
    federated, cab = get("dag-federated").explain(ts, m), get("dag-gedf-cab").explain(ts, m)
    rows = []
    for i, t in enumerate(ts):
        path = " → ".join(f"v{v}" for v in t.critical_path())
        rows.append(
            f"| {ts.label(i)} | {t.volume} | {t.length} ({path}) | {t.D} | {_frac(t.utilization)} | "
            f"{'yes' if t.volume > t.D else 'no'} |"
        )
    least = next(k for k in range(1, heavy.volume + 1) if graham_bound(heavy.volume, heavy.length, k) <= heavy.D)
    n_heavy = federated.evidence["n"][h]
    assert least == n_heavy  # (F2) is the least k with Graham's bound ≤ D
    simulated = {k: _one_job_response(heavy, k) for k in range(1, max(m, least) + 1)}
    graham = [
        f"k = {k}: {heavy.length} + ({heavy.volume} − {heavy.length})/{k} = "
        f"{_frac(graham_bound(heavy.volume, heavy.length, k))} "
        f"{'≤' if graham_bound(heavy.volume, heavy.length, k) <= heavy.D else '>'} D = {heavy.D}; "
        f"the simulator (vertices by index) gives R = {simulated[k]}"
        for k in range(1, m + 1)
    ]
    fewer = [k for k in range(1, least) if simulated[k] <= heavy.D]
    if fewer:
        order = (
            f"The simulated schedule (one order of the vertices) meets the deadline already on k = {fewer[0]}: "
            "Graham's bound holds for every work-conserving order, so it asks for more."
        )
    else:
        order = f"The simulated schedule needs {least} cores too (R > D on fewer)."
    proven = [name for name, r in (("dag-federated", federated), ("dag-gedf-cab", cab)) if r.verdict is True]
    answers = [
        "### 1. Volume, length, utilization",
        "",
        "| task | vol | len (a longest path) | D | vol/T | vol > D |",
        "|---|---|---|---|---|---|",
        *rows,
        "",
        f"Σ vol/T = {_frac(ts.utilization)} {'≤' if ts.utilization <= m else '>'} m = {m}.",
        "",
        f"### 2. Graham's bound for {ts.label(h)} (vol = {heavy.volume}, len = {heavy.length}, D = {heavy.D})",
        "",
        "```text",
        *graham,
        "```",
        "",
        f"The bound guarantees the deadline from k = {least} cores on: exactly federated scheduling's "
        f"n = ⌈({heavy.volume} − {heavy.length})/({heavy.D} − {heavy.length})⌉ = {n_heavy}. {order}",
        "",
        "### 3. Federated scheduling (dag-federated)",
        "",
        *_steps_block(federated),
        "### 4. Global EDF, capacity augmentation bound (dag-gedf-cab)",
        "",
        *_steps_block(cab),
        "### 5. Comparison",
        "",
        f"Proven schedulable by: {', '.join(proven) if proven else 'none'}. Both tests are sufficient: a failed test "
        "proves nothing (a deadline miss in a legal run would).",
        "",
    ]
    platform = [f"Platform: m = {m} identical cores.", ""]
    verdicts = [("dag-federated", federated), ("dag-gedf-cab", cab)]
    sheet = [*_header(title, topic, seed, intro, key=False), *_dag_block(ts), *platform, *_numbered(questions)]
    key = [
        *_header(title, topic, seed, intro, key=True),
        *_dag_block(ts),
        *platform,
        "## Answers",
        "",
        *answers,
        *_verdict_table(verdicts),
        "Check: `rtsched.check(rtsched.dag.loads_dag(text)[0], "
        + str(m)
        + ", tests=["
        + ", ".join(f'"{n}"' for n, _ in verdicts)
        + "]).explain(steps=True)` with the YAML block as text.",
        "",
    ]
    return Exercise(topic, seed, title, _text(sheet), _text(key), (ts,), m, _DAG_ANALYSES)


def parse_dag_tasksets(sheet: str) -> list[DAGTaskSet]:
    """The DAG task sets of a ``dag`` sheet, read back from its fenced ``yaml`` blocks."""
    from rtsched.dag import loads_dag

    sets: list[DAGTaskSet] = []
    block: list[str] | None = None
    for line in sheet.splitlines():
        if line.strip() == "```yaml":
            block = []
        elif line.strip() == "```" and block is not None:
            sets += loads_dag("\n".join(block), "yaml", source="exercise sheet")
            block = None
        elif block is not None:
            block.append(line)
    return sets


#: The analyses whose verdicts the ``mc`` key states: the three FP tests with DM priorities, then EDF-VD.
_MC_FP = ("mc-smc-dm", "mc-amc-rtb-dm", "mc-amc-max-dm")
_MC_ANALYSES = (*_MC_FP, "mc-edf-vd")


def _mc_block(ts: MCTaskSet) -> list[str]:
    """The set as a table (level, C(LO), C(HI), D, T) and as a YAML block (rtsched's MC format)."""
    from rtsched.mc import dumps_mc

    lines = [
        "## Mixed-criticality task set",
        "",
        "| task | level | C(LO) | C(HI) | D | T |",
        "|---|---|---|---|---|---|",
    ]
    for i, t in enumerate(ts):
        lines.append(f"| {ts.label(i)} | {t.criticality} | {t.C_lo} | {t.C_hi if t.is_hi else '—'} | {t.D} | {t.T} |")
    lines += ["", "The same set in rtsched's MC format (`rtsched.mc.loads_mc(text)`):", "", "```yaml"]
    return [*lines, *dumps_mc(ts).rstrip("\n").splitlines(), "```", ""]


def _mc_rows(ts: MCTaskSet, result: Result) -> list[str]:
    """The per-task table of an FP MC analysis's explanation, in priority order.

    R_HI is the HI-criticality bound the test decides by: SMC's (3), AMC-rtb's mode-switch bound (7),
    AMC-max's maximum over the switch instants (the explanation's ``R_switch``; its ``R_HI`` under
    AMC is the stable HI-mode bound (5)).
    """
    rows = sorted(result.per_task, key=lambda row: row["priority"])
    worst = any("worst_s" in row for row in rows)
    head = "| priority | task | level | D | R_LO (4) | R_HI | passes |" + (" worst s |" if worst else "")
    lines = [head, "|---|---|---|---|---|---|---|" + ("---|" if worst else "")]
    for row in rows:
        line = (
            f"| {row['priority']} | {ts.label(row['task'])} | {row['level']} | {row['D']} | {row['R_LO']} | "
            f"{row.get('R_switch', row['R_HI'])} | {'yes' if row['ok'] else 'no'} |"
        )
        lines.append(line + (f" {row.get('worst_s', '-')} |" if worst else ""))
    return [*lines, ""]


def _mc_switch_instants(ts: MCTaskSet, order: list[int], i: int, r_lo: int) -> list[int]:
    """AMC-max's switch instants of τi (Baruah, Burns, Davis 2011): 0 and every release a·T_k (a ≥ 1) of a LO task above it before R_i^LO."""
    points = {0}
    for k in order[: order.index(i)]:
        if not ts[k].is_hi:
            points.update(range(ts[k].T, r_lo, ts[k].T))
    return sorted(points)


def _mc(topic: str, seed: int | str) -> Exercise:
    # The analyses are reached through the registry (rtsched's layers: the core imports no family).
    from rtsched.mc import MCTask, MCTaskSet
    from rtsched.registry import get

    rng = _rng(topic, seed)
    want = bool(rng.integers(0, 2))  # SMC fails and AMC-rtb passes, or AMC-rtb fails across the switch

    def task() -> MCTask:
        T = int(rng.choice(_PERIODS))  # implicit deadlines: EDF-VD applies
        c_lo = int(rng.integers(1, max(1, T // 3) + 1))
        if rng.random() < 0.5:
            return MCTask.hi(c_lo, int(rng.integers(c_lo + 1, min(T, 3 * c_lo) + 1)), T)
        return MCTask.lo(c_lo, T)

    def keep(ts: MCTaskSet) -> bool:
        if not ts.lo_tasks() or not ts.hi_tasks() or ts.U_LL + ts.U_HL > 1 or ts.U_LL + ts.U_HH <= 1:
            return False  # both criticalities, LO-mode utilization ≤ 1, and plain EDF not enough (EDF-VD's x matters)
        rtb = get("mc-amc-rtb-dm").explain(ts, 1)
        order = list(rtb.evidence["order"])  # deadline-monotonic: increasing D, ties in the given order
        if not any(ts[i].is_hi and any(not ts[j].is_hi for j in order[:p]) for p, i in enumerate(order)):
            return False  # a LO task above a HI task: what SMC and AMC treat differently
        rows = {row["task"]: row for row in rtb.per_task}
        if any(not isinstance(rows[i]["R_LO"], int) for i in order):
            return False  # LO mode passes (R^LO ≤ D for every task): the switch is what the exercise is about
        if not any(
            ts[i].is_hi and len(_mc_switch_instants(ts, order, i, int(rows[i]["R_LO"]))) > 1
            for i in order
        ):
            return False  # AMC-max has more than one switch instant to try for some HI task
        if want:
            return rtb.verdict is True and get("mc-smc-dm").reference(ts, 1) is False
        return rtb.verdict is not True

    ts = _search(rng, topic, lambda: MCTaskSet([task() for _ in range(int(rng.integers(3, 5)))]), keep)
    fp = {name: get(name).explain(ts, 1) for name in _MC_FP}
    order = list(fp["mc-amc-rtb-dm"].evidence["order"])
    lo_rows = {row["task"]: row for row in fp["mc-amc-rtb-dm"].per_task}
    edf_vd = get("mc-edf-vd").explain(ts, 1)
    title = "mixed criticality: SMC, AMC-rtb and AMC-max response times, EDF-VD's virtual deadlines"
    intro = (
        "Dual-criticality sporadic tasks (Vestal, RTSS 2007) with implicit deadlines on one processor. The system "
        "starts in LO mode; when a job runs for its C(LO) without completing, it switches to HI mode, where only the "
        "HI tasks must meet their deadlines (with C(HI)). Fixed priorities, deadline-monotonic (ties: lower index "
        "first); Baruah, Burns, Davis, RTSS 2011: SMC (3) R_i = C_i(L_i) + Σ_{hp(i)} ⌈R_i/T_j⌉·C_j(min(L_i, L_j)) "
        "(LO jobs keep running after the switch); AMC (LO jobs dropped at the switch): LO mode (4) "
        "R_i^LO = C_i(LO) + Σ_{hp(i)} ⌈R_i^LO/T_j⌉·C_j(LO) for every task, and for every HI task AMC-rtb (7) "
        "R_i* = C_i(HI) + Σ_{hpH(i)} ⌈R_i*/T_j⌉·C_j(HI) + Σ_{hpL(i)} ⌈R_i^LO/T_k⌉·C_k(LO), or AMC-max, the maximum "
        "over the switch instants s ∈ {0} ∪ {releases of the LO tasks above τi before R_i^LO}. EDF-VD (Baruah et al., "
        "ECRTS 2012): with U_LL = Σ_LO C(LO)/T, U_HL = Σ_HI C(LO)/T, U_HH = Σ_HI C(HI)/T, plain EDF if "
        "U_LL + U_HH ≤ 1, else x = U_HL/(1 − U_LL), HI jobs get the LO-mode deadline r + x·T, and the set is "
        "schedulable if x·U_LL + U_HH ≤ 1."
    )
    questions = [
        "Compute U_LL, U_HL and U_HH, and the deadline-monotonic priority order.",
        "AMC, LO mode: compute the response time R^LO (4) of every task by iterating the recurrence. Does every "
        "task meet its deadline in LO mode?",
        "AMC-rtb: compute R* (7) of every HI task. Which HI tasks meet their deadlines across the switch?",
        "SMC: compute R (3) of every HI task. Does SMC accept the set? Why can AMC-rtb accept sets SMC cannot?",
        "AMC-max: for every HI task, list the switch instants s it checks. Which of SMC, AMC-rtb and AMC-max "
        "accept the set with these priorities?",
        "EDF-VD: does plain EDF suffice by U_LL + U_HH ≤ 1? Compute x, the condition x·U_LL + U_HH ≤ 1 and the "
        "virtual deadlines x·T of the HI tasks. Is the set EDF-VD-schedulable?",
    ]
    instants = []
    for i in order:
        if ts[i].is_hi:
            r_lo = int(lo_rows[i]["R_LO"])
            points = _mc_switch_instants(ts, order, i, r_lo)
            instants.append(f"{ts.label(i)}: R^LO = {r_lo}, s ∈ {{{', '.join(map(str, points))}}}")
    x = edf_vd.evidence["x"]  # EDF-VD's factor (V2), None if U_LL ≥ 1
    virtual = [f"{ts.label(i)}: x·T = {_frac(x * t.T)}" for i, t in enumerate(ts) if t.is_hi] if x is not None else []
    if edf_vd.verdict is True:
        virtual_text = f"Virtual deadlines (LO mode) of the HI tasks: {'; '.join(virtual)}."
    elif virtual:
        virtual_text = (
            f"The virtual deadlines would be {'; '.join(virtual)}, but the HI-mode condition fails: EDF-VD does not "
            "prove the set."
        )
    else:
        virtual_text = "No factor x exists (U_LL ≥ 1): EDF-VD does not prove the set."
    accepted = [name for name in _MC_ANALYSES if (fp[name] if name in fp else edf_vd).verdict is True]
    answers = [
        "### 1. Utilizations and priorities",
        "",
        f"U_LL = {_frac(ts.U_LL)}, U_HL = {_frac(ts.U_HL)}, U_HH = {_frac(ts.U_HH)}; deadline-monotonic order "
        "(highest first): " + " > ".join(ts.label(i) for i in order) + ".",
        "",
        "### 2–3. AMC: LO mode (4) and AMC-rtb (7) (mc-amc-rtb-dm)",
        "",
        *_mc_rows(ts, fp["mc-amc-rtb-dm"]),
        *_steps_block(fp["mc-amc-rtb-dm"]),
        "### 4. SMC (3) (mc-smc-dm)",
        "",
        *_mc_rows(ts, fp["mc-smc-dm"]),
        *_steps_block(fp["mc-smc-dm"]),
        "A HI task under SMC suffers every LO job released while it is pending, after the switch too; under AMC "
        "the LO jobs are dropped at the switch, which happens before R^LO, so AMC-rtb charges the LO tasks only "
        "⌈R^LO/T⌉ jobs.",
        "",
        "### 5. AMC-max (mc-amc-max-dm)",
        "",
        "Switch instants checked: " + "; ".join(instants) + ".",
        "",
        *_mc_rows(ts, fp["mc-amc-max-dm"]),
        *_steps_block(fp["mc-amc-max-dm"]),
        "Accepted with deadline-monotonic priorities by: "
        + (", ".join(n for n in _MC_FP if fp[n].verdict is True) or "none")
        + ". On the same priorities SMC ⇒ AMC-rtb ⇒ AMC-max (Baruah, Burns, Davis 2011): each accepts whatever "
        "the one before it accepts.",
        "",
        "### 6. EDF-VD (mc-edf-vd)",
        "",
        *_steps_block(edf_vd),
        virtual_text,
        "",
        f"Proven schedulable by: {', '.join(accepted) if accepted else 'none'}. Every test is sufficient: a failed "
        "test proves nothing (a deadline miss in a legal run would; see `rtsched.mc.switch_search`).",
        "",
    ]
    verdicts = [*((name, fp[name]) for name in _MC_FP), ("mc-edf-vd", edf_vd)]
    sheet = [*_header(title, topic, seed, intro, key=False), *_mc_block(ts), "Platform: one processor.", ""]
    sheet += _numbered(questions)
    key = [
        *_header(title, topic, seed, intro, key=True),
        *_mc_block(ts),
        "Platform: one processor.",
        "",
        "## Answers",
        "",
        *answers,
        *_verdict_table(verdicts),
        "Check: `rtsched check set.yaml --tests " + ",".join(_MC_ANALYSES) + " --explain --steps --exact-numbers` "
        "with the YAML block in set.yaml.",
        "",
    ]
    return Exercise(topic, seed, title, _text(sheet), _text(key), (ts,), 1, _MC_ANALYSES)


def parse_mc_tasksets(sheet: str) -> list[MCTaskSet]:
    """The mixed-criticality task sets of an ``mc`` sheet, read back from its fenced ``yaml`` blocks."""
    from rtsched.mc import loads_mc

    sets: list[MCTaskSet] = []
    block: list[str] | None = None
    for line in sheet.splitlines():
        if line.strip() == "```yaml":
            block = []
        elif line.strip() == "```" and block is not None:
            sets += loads_mc("\n".join(block), "yaml", source="exercise sheet")
            block = None
        elif block is not None:
            block.append(line)
    return sets


#: The analyses whose verdicts the ``seg`` key states: MPCP busy and suspend, FMLP+ suspend (the FIFO question).
_SEG_ANALYSES = ("seg-mpcp-busy", "seg-mpcp-suspend", "seg-fmlp-suspend")
#: Periods (= deadlines) of the ``seg`` topic's tasks.
_SEG_PERIODS = (10, 12, 15, 20, 24, 30, 40)


def _seg_block(ts: SegmentedTaskSet) -> list[str]:
    """The set as a table (core, segments, T = D) and as a YAML block (rtsched's segmented format)."""
    from rtsched.segmented import dumps_segmented

    lines = [
        "## CPU–GPU task set (priority order: τ0 highest)",
        "",
        "| task | core | segments C, (G_m, G_e), C | C | G_m | G_e | T = D |",
        "|---|---|---|---|---|---|---|",
    ]
    for i, t in enumerate(ts):
        segments = ", ".join(str(s) if isinstance(s, int) else f"({s.G_m}, {s.G_e})" for s in t.segments())
        lines.append(f"| {ts.label(i)} | {t.core} | {segments} | {t.C} | {t.G_m} | {t.G_e} | {t.T} |")
    lines += ["", "The same set in rtsched's segmented format (`rtsched.segmented.loads_segmented(text)`):", ""]
    return [*lines, "```yaml", *dumps_segmented(ts).rstrip("\n").splitlines(), "```", ""]


def _seg_rows(ts: SegmentedTaskSet, result: Result) -> list[str]:
    """Per task: the waiting bound W per request and the response-time bound R of a locking analysis's explanation."""
    waits, bounds = result.evidence["waiting"], result.evidence["response_times"]
    lines = ["| task | core | mode | W per request | R | D | passes |", "|---|---|---|---|---|---|---|"]
    for i, row in enumerate(result.per_task):
        w = "; ".join(f"{d}: {'> D' if v is None else v}" for d, v in waits[i]) if i < len(waits) else ""
        r = bounds[i]
        lines.append(
            f"| {ts.label(i)} | {row['core']} | {row['mode']} | {w or '-'} | {r if r is not None else row['R']} | "
            f"{ts[i].D} | {'yes' if row['ok'] else 'no'} |"
        )
    return [*lines, ""]


def _seg(topic: str, seed: int | str) -> Exercise:
    # The analyses are reached through the registry (rtsched's layers: the core imports no family).
    from rtsched.registry import get
    from rtsched.segmented import GPUSegment, SegmentedTask, SegmentedTaskSet

    rng = _rng(topic, seed)
    m = 2
    want = bool(rng.integers(0, 2))  # suspend proven while busy is not, or neither proven: both are instructive

    def task() -> SegmentedTask:
        T = int(rng.choice(_SEG_PERIODS))
        core = int(rng.integers(0, m))
        if rng.random() < 0.6:
            c1, c2 = int(rng.integers(0, 3)), int(rng.integers(0, 3))
            g_m, g_e = int(rng.integers(0, 3)), int(rng.integers(1, max(2, T // 4) + 1))
            return SegmentedTask((c1, c2), (GPUSegment(g_m, g_e),), T=T, core=core)
        return SegmentedTask((int(rng.integers(1, max(2, T // 4) + 1)),), (), T=T, core=core)

    def draw() -> SegmentedTaskSet:
        tasks = [task() for _ in range(int(rng.integers(3, 5)))]
        order = sorted(range(len(tasks)), key=lambda i: (tasks[i].T, i))  # rate monotonic, ties by draw order
        return SegmentedTaskSet(tasks[i] for i in order)

    def keep(ts: SegmentedTaskSet) -> bool:
        gpu = ts.gpu_tasks()
        if len(gpu) < 2 or len({ts[i].core for i in gpu}) < 2 or len(set(ts.cores)) < 2:
            return False  # two GPU tasks on different cores: remote blocking
        h = gpu[0]
        if not any(ts[k].core == ts[i].core for i in gpu for k in range(i + 1, ts.n)):
            return False  # a task below a GPU task on its core: busy and suspend differ
        suspend = get("seg-mpcp-suspend").explain(ts, m)
        if (
            suspend.evidence["response_times"][h] is None
            or get("seg-mpcp-busy").explain(ts, m).evidence["response_times"][h] is None
        ):
            return False  # the highest-priority GPU task's bounds exist in both modes (questions 2-3)
        if want:
            return suspend.verdict is True and get("seg-mpcp-busy").reference(ts, m) is False
        return suspend.verdict is not True

    ts = _search(rng, topic, draw, keep)
    h = ts.gpu_tasks()[0]
    results = {name: get(name).explain(ts, m) for name in _SEG_ANALYSES}
    busy, suspend, fifo = (results[name] for name in _SEG_ANALYSES)
    title = "CPU–GPU tasks: the GPU lock under MPCP, busy waiting against suspension"
    intro = (
        f"Sporadic CPU–GPU tasks on m = {m} cores (partitioned fixed priority, the table's order, τ0 highest) and one "
        "GPU (papers/cpu-gpu-model.md). A task runs C_1, (G_m, G_e), C_2: a GPU segment runs ⌈G_m/2⌉ on its core, "
        "G_e on the GPU, ⌊G_m/2⌋ on its core, and holds the GPU from grant to end, boosted on its core. While G_e "
        "runs a busy task spins on its core, a suspending one leaves it. MPCP (Patel, Baek, Kim, Rajkumar, RTAS 2018): "
        "the GPU queue is ordered by priority; FMLP+ (Brandenburg, ECRTS 2014): in request order. rtsched's analysis "
        "after these papers (papers/patel2018-mpcp-gpu.md): holding time H = G_m + G_e here (one GPU: no other "
        "holder on the core can delay the copies); waiting (W-MPCP) W_i = max_{l lower} H_l + Σ_{h higher} "
        "⌈(W_i + R_h)/T_h⌉·H_h, (W-FMLP) W_i = Σ_{k ≠ i} H_k; own_i = C_i + G_i + W_i (or a smaller bound on a "
        "job's total wait, where the analysis has one: see its steps); then the response time "
        "R_i = own_i + Σ_{h higher on the core} ⌈(R_i + R_h − E_h)/T_h⌉·E_h + (boosted work of lower tasks on the "
        "core), with E_h = C_h + G_m,h for a suspending task and its own work for a busy one (a tighter variant "
        "from a quiet instant is also tried)."
    )
    questions = [
        "Compute the holding time H of every GPU segment.",
        f"MPCP: compute the waiting bound W of {ts.label(h)}, the highest-priority task that uses the GPU. Which task "
        "can block it, and why only one of the lower-priority ones?",
        f"MPCP, suspend mode: compute {ts.label(h)}'s own work and its response-time bound R. Then in busy mode.",
        "Is the set proven schedulable under MPCP with every task busy-waiting? With every task suspending? Which "
        "task fails where, and why does busy waiting hurt the tasks below a GPU task on its core?",
        f"FMLP+ (FIFO queue), suspend mode: what is {ts.label(h)}'s waiting bound now? Is the set proven schedulable?",
    ]
    holding = suspend.evidence["holding"]
    w_h = suspend.evidence["waiting"][h]
    answers = [
        "### 1. Holding times",
        "",
        *(f"- {label}, segment {s} on {d}: H = {H}" for label, s, d, H in holding),
        "",
        f"### 2–3. MPCP, suspend mode ({_SEG_ANALYSES[1]})",
        "",
        f"{ts.label(h)} waits at most W = " + "; ".join(f"{d}: {v}" for d, v in w_h) + " per request: a lower-priority "
        "request is served ahead of it only if it holds the GPU when it asks (the queue is by priority), so one lower "
        "holding counts, plus every higher-priority request that can get ahead.",
        "",
        *_seg_rows(ts, suspend),
        *_steps_block(suspend),
        f"### 3–4. MPCP, busy mode ({_SEG_ANALYSES[0]}), and the verdicts",
        "",
        *_seg_rows(ts, busy),
        *_steps_block(busy),
        "A busy task occupies its core for C + G_m + G_e (spinning while it waits and while G_e runs), a suspending "
        "one for C + G_m only: the tasks below it on its core see the difference.",
        "",
        f"### 5. FMLP+, suspend mode ({_SEG_ANALYSES[2]})",
        "",
        f"{ts.label(h)} waits at most W = " + "; ".join(f"{d}: {v}" for d, v in fifo.evidence["waiting"][h])
        if fifo.evidence["waiting"][h]
        else f"{ts.label(h)}'s waiting bound is not computed (a task it depends on has no bound).",
        "",
        *_seg_rows(ts, fifo),
        *_steps_block(fifo),
        "Proven schedulable by: "
        + (", ".join(name for name in _SEG_ANALYSES if results[name].verdict is True) or "none")
        + ". Every test is sufficient: a failed test proves nothing; a deadline miss in a legal run would "
        "(`rtsched.segmented.simulate_segmented`).",
        "",
    ]
    platform = [f"Platform: m = {m} cores, one GPU (device `gpu`).", ""]
    sheet = [*_header(title, topic, seed, intro, key=False), *_seg_block(ts), *platform, *_numbered(questions)]
    key = [
        *_header(title, topic, seed, intro, key=True),
        *_seg_block(ts),
        *platform,
        "## Answers",
        "",
        *answers,
        *_verdict_table((name, results[name]) for name in _SEG_ANALYSES),
        f"Check: `rtsched check set.yaml -m {m} --tests {','.join(_SEG_ANALYSES)} --explain --steps` with the YAML "
        "block in set.yaml.",
        "",
    ]
    return Exercise(topic, seed, title, _text(sheet), _text(key), (ts,), m, _SEG_ANALYSES)


def parse_segmented_tasksets(sheet: str) -> list[SegmentedTaskSet]:
    """The CPU–GPU task sets of a ``seg`` sheet, read back from its fenced ``yaml`` blocks."""
    from rtsched.segmented import loads_segmented

    sets: list[SegmentedTaskSet] = []
    block: list[str] | None = None
    for line in sheet.splitlines():
        if line.strip() == "```yaml":
            block = []
        elif line.strip() == "```" and block is not None:
            sets += loads_segmented("\n".join(block), "yaml", source="exercise sheet")
            block = None
        elif block is not None:
            block.append(line)
    return sets


#: The simulation runs of the ``tardiness`` key: (arrivals, execution), each with the sheet's seed.
_TARDINESS_RUNS: tuple[tuple[Literal["periodic", "sporadic"], Literal["wcet", "random"]], ...] = (
    ("periodic", "wcet"),
    ("sporadic", "wcet"),
    ("periodic", "random"),
    ("sporadic", "random"),
)
#: The ``tardiness`` set's first hard miss (synchronous periodic release) is at most this tick.
_TARDINESS_DRAW_UNTIL = 24


def _tardiness(topic: str, seed: int | str) -> Exercise:
    from rtsched.registry import get
    from rtsched.sim import simulate

    rng = _rng(topic, seed)
    m = int(rng.integers(2, 4))
    da = get("tardiness-da")

    def keep(ts: TaskSet) -> bool:
        # U in (m − 1, m] (Λ = m − 1 ≥ 1: E_L and, for m = 3, U_L are not trivial), bounded tardiness, and a hard
        # deadline miss of global EDF under the synchronous periodic release (a legal behaviour: a proof)
        if not m - 1 < ts.utilization <= m or da.reference(ts, m) is not True:
            return False
        first = simulate(ts, m, record=False).miss
        return first is not None and first.time <= _TARDINESS_DRAW_UNTIL  # a schedule a student can draw

    ts = _search(rng, topic, lambda: _draw(rng, int(rng.integers(m + 1, m + 4)), True, Fraction(1)), keep)
    sim_seed = int(rng.integers(1, 1000))
    result = da.explain(ts, m)
    ev = result.evidence
    miss = simulate(ts, m).miss  # recorded: the job and its remaining work
    assert miss is not None
    observed = [
        simulate(
            ts, m, arrivals=arrivals, execution=execution, seed=sim_seed, after_miss="continue", record=False
        ).tardiness
        for arrivals, execution in _TARDINESS_RUNS
    ]
    seen = [max(int(run[i]) for run in observed if run is not None) for i in range(ts.n)]
    bounds = [Fraction(row["bound"]) for row in result.per_task]
    title = "soft real-time: tardiness under global EDF, the Devi–Anderson bound against the simulation"
    intro = (
        f"Global EDF on m = {m} identical processors; sporadic tasks with implicit deadlines (D = T). A task's jobs "
        "run one at a time in release order, and a late job keeps running until it completes (soft real-time); the "
        "tardiness of a job is max(0, finish − deadline). Devi and Anderson (RTSS 2005; Real-Time Systems 38(2), "
        "2008): if U ≤ m and every u_i ≤ 1, every job of τk finishes at most x + e_k after its deadline (e_k = C_k), "
        "with Λ = ⌈U⌉ − 1 (DA-Λ), E_L = the sum of the Λ largest C_i (DA-E), U_L = the sum of the Λ − 1 largest u_i "
        "(DA-U), e_min = the smallest C_i and x = max(0, (E_L − e_min)/(m − U_L)) (DA-x); rtsched's analysis "
        "`tardiness-da`, papers/devi-anderson2008-tardiness.md."
    )
    runs = " | ".join(f"{a}, {e}" for a, e in _TARDINESS_RUNS)
    questions = [
        "Compute U = Σ C_i/T_i and u_max. Does U ≤ m guarantee the hard deadlines under global EDF? "
        "Is the tardiness of every task bounded?",
        "Draw the global EDF schedule of the synchronous periodic release (every task released at 0, then every "
        "T_i; equal deadlines: lowest index first) until the first deadline miss. Which job misses, and when?",
        "Compute Λ, E_L, e_min, U_L and x.",
        "Compute every task's tardiness bound x + e_k. Finish times are whole ticks here (integer releases and "
        "costs): what is each bound in whole ticks?",
        f"Run `rtsched simulate set.txt -m {m} --tardiness` with the set's `C D T` lines in set.txt, then with "
        f"`--arrivals sporadic --seed {sim_seed}`, with `--execution random --seed {sim_seed}` and with both. Put each "
        "task's observed maximum tardiness next to its bound. Which task comes closest to its bound? Could a "
        "simulation show that the bound is wrong? That it is tight?",
    ]
    answers = [
        "### 1. The condition",
        "",
        f"U = {_frac(Fraction(ev['U']))}, u_max = {_frac(Fraction(ev['u_max']))}: U ≤ m = {m} and u_max ≤ 1, so "
        "tardiness is bounded (Devi and Anderson's condition, necessary and sufficient for bounded tardiness "
        "under global EDF on this model). U ≤ m does not guarantee hard deadlines under global EDF (Dhall's effect): "
        "question 2 shows a miss.",
        "",
        "### 2. The first hard deadline miss",
        "",
        f"Job {miss.job} of {ts.label(miss.task)} (counting from 0) misses its deadline at t = {miss.time}, with "
        f"{miss.remaining} tick{'' if miss.remaining == 1 else 's'} of work left (rtsched's simulator; a synchronous "
        "periodic release is a legal sporadic behaviour, so the miss proves that global EDF cannot meet every "
        "deadline of this set).",
        "",
        "### 3–4. Λ, E_L, e_min, U_L, x and the bounds (tardiness-da, step by step)",
        "",
        *_steps_block(result),
        f"Λ = {ev['Lambda']}, E_L = {ev['E_L']}, e_min = {ev['e_min']}, U_L = {_frac(Fraction(ev['U_L']))}, "
        f"x = {_frac(Fraction(ev['x']))}. In whole ticks (a tardiness is an integer, at most ⌊x + e_k⌋): "
        + ", ".join(f"{ts.label(i)} {b.numerator // b.denominator}" for i, b in enumerate(bounds))
        + ".",
        "",
        "### 5. Bound against observed tardiness",
        "",
        f'Observed maximum tardiness per task (`simulate(..., after_miss="continue", seed={sim_seed})`, the default '
        "horizons of `rtsched simulate`; periodic arrivals are synchronous):",
        "",
        f"| task | C | T | bound x + e_k | {runs} |",
        "|---|---|---|---|" + "---|" * len(_TARDINESS_RUNS),
    ]
    for i, (c, _, t) in enumerate(ts.rows()):
        cells = " | ".join(str(run[i]) if run is not None else "-" for run in observed)
        answers.append(f"| {ts.label(i)} | {c} | {t} | {_frac(bounds[i])} | {cells} |")
    closest = max(range(ts.n), key=lambda i: (Fraction(seen[i]) / bounds[i], -i))
    answers += [
        "",
        f"Every observed value is at most its bound, as the theorem says. Closest to its bound: {ts.label(closest)}, "
        f"{seen[closest]} of {_frac(bounds[closest])}. A simulation that exceeded a bound would refute the theorem "
        "(or rtsched); a simulation cannot show that a bound is tight: it sees some behaviours only, so the worst "
        "tardiness over all sporadic behaviours lies somewhere between the largest observed value and the bound.",
        "",
    ]
    return _assemble(topic, seed, title, intro, [ts], m, questions, answers, [("tardiness-da", result)])


def _assemble(
    topic: str,
    seed: int | str,
    title: str,
    intro: str,
    sets: list[TaskSet],
    m: int,
    questions: list[str],
    answers: list[str],
    verdicts: list[tuple[str, Result]],
) -> Exercise:
    blocks = [line for ts in sets for line in _set_block(ts)]
    platform = [f"Platform: m = {m} identical processor{'s' if m > 1 else ''}.", ""]
    sheet = [*_header(title, topic, seed, intro, key=False), *blocks, *platform, *_numbered(questions)]
    key = [
        *_header(title, topic, seed, intro, key=True),
        *blocks,
        *platform,
        "## Answers",
        "",
        *answers,
        *_verdict_table(verdicts),
        "Check: `rtsched check set.txt -m "
        + str(m)
        + " --tests "
        + ",".join(n for n, _ in verdicts)
        + " --explain --steps --exact-numbers` with the set's `C D T` lines in set.txt.",
        "",
    ]
    return Exercise(topic, seed, title, _text(sheet), _text(key), tuple(sets), m, tuple(name for name, _ in verdicts))


#: Topic name → (one-line description, generator).
TOPICS: dict[str, tuple[str, Callable[[str, int | str], Exercise]]] = {
    "uni-edf": ("uniprocessor EDF: U, density, h(t), the bound L, QPA and the processor-demand criterion", _uni_edf),
    "uni-fp": ("uniprocessor fixed priority: Liu & Layland and hyperbolic bounds, response-time analysis", _uni_fp),
    "gedf-tests": ("global EDF on 2 processors: GFB, BAK and BCL on a set where they disagree", _gedf_tests),
    "partitioning": (
        "partitioned EDF: first, best and worst fit on a set that some pack and some do not",
        _partitioning,
    ),
    "mpr": ("MPR interfaces: sbf and lsbf values, blackout and the partial supply β", _mpr),
    "dag": (
        "parallel DAG tasks: volume, length, Graham's bound, federated allocation and global EDF's bound",
        _dag,
    ),
    "mc": (
        "mixed criticality: LO/HI-mode response times under SMC, AMC-rtb, AMC-max; EDF-VD's x and virtual deadlines",
        _mc,
    ),
    "seg": (
        "CPU–GPU tasks: MPCP holding and waiting bounds, response times busy against suspend, FMLP+'s FIFO wait",
        _seg,
    ),
    "tardiness": (
        "soft real-time: global EDF's hard miss, Devi and Anderson's tardiness bound x + e_k against the simulation",
        _tardiness,
    ),
}


def _text(lines: list[str]) -> str:
    """Markdown lines as one text that ends with exactly one newline (a well-formed text file)."""
    return "\n".join(lines).rstrip("\n") + "\n"


def make_exercise(topic: str, seed: int | str) -> Exercise:
    """The exercise of ``topic`` (see :data:`TOPICS`) for ``seed`` (an integer or any text, e.g. a student ID).

    The same topic, seed and rtsched version give the same sheet and key, byte for byte.
    """
    if topic not in TOPICS:
        raise InputError(f"unknown topic {topic!r}; topics: {', '.join(TOPICS)}", field="--topic")
    if not str(seed).strip():
        raise InputError("the seed is empty", field="--seed")
    with exact_numbers(True):
        return TOPICS[topic][1](topic, seed)


def parse_tasksets(sheet: str) -> list[TaskSet]:
    """The task sets of a sheet, read back from its fenced ``text`` blocks of ``C D T`` lines."""
    sets: list[TaskSet] = []
    block: list[tuple[int, int, int]] | None = None
    for line in sheet.splitlines():
        if line.strip() == "```text":
            block = []
        elif line.strip() == "```" and block is not None:
            sets.append(TaskSet.from_tasks(block))
            block = None
        elif block is not None:
            c, d, t = (int(x) for x in line.split())
            block.append((c, d, t))
    return sets
