"""Compliant-vector tardiness and lateness bounds of G-EDF and G-FL (soft real-time, GEL schedulers).

See papers/erickson-devi-baruah2010-cva.md and papers/erickson-anderson-ward2014-gfl.md.

J. P. Erickson, U. Devi, S. K. Baruah, "Improved tardiness bounds for global EDF", ECRTS 2010
(compliant vectors, G-EDF, implicit deadlines), generalised to *G-EDF-like* (GEL) schedulers by
J. P. Erickson, J. H. Anderson, B. C. Ward, "Fair lateness scheduling: reducing maximum lateness
in G-EDF-like scheduling", Real-Time Systems 50(1), 2014 (ECRTS 2012 version; also Erickson's
dissertation, UNC 2014). A GEL scheduler is global EDF run on *priority points*: job j of τ_i,
released at r_{i,j}, has priority point r_{i,j} + Y_i (Y_i ≥ 0 per task) instead of its deadline.
G-EDF is Y_i = D_i; G-FL (global fair lateness) is Y_i = D_i − ((m − 1)/m)·C_i.

Sporadic tasks (C_i, D_i, T_i), any deadlines (the proof never uses D_i: it bounds response
times from the Y_i; D_i only turns them into lateness), U_i = C_i/T_i, U = Σ U_i, m identical
processors, a task's jobs run one at a time in release order. With U⁺ = ⌈U⌉ (tags are rtsched's;
the papers' equation numbers could not be read, see the notes):

    U ≤ m and U_i ≤ 1 for every i                                          (GEL-cond)
    S_i(Y_i) = C_i · max(0, 1 − Y_i/T_i),   S(Y) = Σ_i S_i(Y_i)             (GEL-S)
    G(x, Y)  = the sum of the U⁺ − 1 largest values x_i·U_i + C_i − S_i(Y_i)  (GEL-G)
    x is compliant iff  x_i = (G(x, Y) + S(Y) − C_i)/m  for every i          (GEL-x)
    a job of τ_i finishes at most Y_i + x_i + C_i after its release         (GEL-R)
    lateness ≤ L_i = Y_i + x_i + C_i − D_i;  tardiness ≤ max(0, L_i)        (GEL-L)

Erickson's dissertation (Chapter 3) states the same as a linear program, constraint sets
(3.1)–(3.5) (as transcribed by RealTimeScheduling.jl; the dissertation's text could not be read):
x_i = (s̃ − C_i)/m (3.1), S_i ≥ C_i(1 − Y_i/T_i), S_i ≥ 0 (3.2), G = b·(U⁺ − 1) + Σ z_i with
z_i ≥ x_i·U_i + C_i − S_i − b, z_i ≥ 0 (3.3, the sum of the U⁺ − 1 largest), S = Σ S_i (3.4),
s̃ ≥ G + S (3.5), minimise s̃. Its optimum is s̃ = m·s for the s below (S_i at its lower bound,
the smallest s̃ with F(s̃/m) ≤ 0).

Solving (GEL-x). Put s = (G + S)/m; then x_i = s − C_i/m and s is the root of

    F(s) = S + (sum of the U⁺ − 1 largest  U_i·s + b_i) − m·s,   b_i = C_i − S_i − C_i·U_i/m   (GEL-s)

The sum of the k largest of n linear functions is convex and piecewise linear with slope at most
the sum of the k largest U_i ≤ U⁺ − 1 ≤ m − 1 (each U_i ≤ 1), so F is convex and strictly
decreasing: the root is unique. F(0) ≥ 0 (each of the k chosen tasks has S_i + b_i =
C_i(1 − U_i/m) ≥ 0, and the others add S_i ≥ 0), so s ≥ 0. :func:`solve_s` finds it exactly by
Newton's method on the pieces, in Fractions: at s_j take the k lines that are largest on
[s_j, s_j + ε) (value, then slope), solve that piece's linear equation for s_{j+1}. Convexity
puts that line below F, so s_{j+1} ≤ root, and if the root is not on the piece s_{j+1} lies
beyond the piece's end: the iterates rise through distinct pieces and stop, exactly, at the root
(F(s) = 0 checked on the true k largest values). No float decides anything.

Analysis priority points. A GEL scheduler only compares priority points, so lowering every Y_i by
the same δ changes no decision; the analysis uses Y'_i = Y_i − min_j Y_j (Erickson and Anderson
2012 do, as the SchedCAT implementation comments; the text could not be read). rtsched proves it
never loosens the bound: lowering all Y by δ raises each S_i by at most U_i·δ, and then
F'(s + δ) ≤ F(s) + δ·(U − m) ≤ 0 at the old root s, so the new root s' ≤ s + δ and
Y'_i + s' ≤ Y_i + s for every i (property-tested in tests/analyses/global_edf/test_tardiness_cva.py).

G-FL's closed form. With Y_i = D_i − ((m − 1)/m)·C_i, (GEL-L) gives for every task

    L_i = Y'_i + s − C_i/m + C_i − D_i = s − min_j Y_j                       (GFL-L)

the same lateness bound for all tasks (the "fair" in fair lateness); Y_i ≥ C_i/m > 0 as C ≤ D.

The verdict of both registered analyses is whether lateness is bounded: exactly (GEL-cond), as
for ``tardiness-da`` (sufficient by the theorem; necessary for any scheduler that runs a task's
jobs one at a time: U > m makes the backlog grow each hyperperiod, U_i > 1 makes τ_i fall behind
itself). The kernels are ``tardiness-da``'s (the same condition, decided on integers or outside a
proven float margin), shared through ``shares_kernels_with``.

Bounds are exact Fractions; with integer releases and costs every finish time is an integer, so
the observed tardiness is at most ⌊bound⌋ (``bound_ticks``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from fractions import Fraction
from math import gcd
from typing import Any

# (GEL-cond) is tardiness-da's (DA-cond): the same exact check and the same kernels.
from rtsched.analyses.global_edf.tardiness_da import _da_kernel, _da_one, bounded, utilizations
from rtsched.errors import InputError
from rtsched.model import TaskSet, fraction_sum
from rtsched.registry import Analysis
from rtsched.result import Explanation, Step, show_number

__all__ = [
    "ANALYSES",
    "GELBounds",
    "explain_gedf",
    "explain_gfl",
    "gedf_priority_points",
    "gel_bounds",
    "gfl_priority_points",
    "gel_as_gedf",
    "lateness_bounds",
    "observed_lateness",
    "reference",
    "solve_s",
    "tardiness_bounds",
]

CITATION_CVA = (
    "Erickson, Devi, Baruah, 'Improved tardiness bounds for global EDF', ECRTS 2010 (compliant vectors), "
    "in the GEL form of Erickson, Anderson, Ward, Real-Time Systems 50(1), 2014 with Y_i = D_i: response time "
    "≤ Y_i + x_i + C_i, x_i = (G(x, Y) + S(Y) − C_i)/m"
)
CITATION_GFL = (
    "Erickson, Anderson, Ward, 'Fair lateness scheduling: reducing maximum lateness in G-EDF-like "
    "scheduling', Real-Time Systems 50(1), 2014 (ECRTS 2012): G-FL, Y_i = D_i − ((m − 1)/m)·C_i, the same "
    "lateness bound s − min Y for every task"
)


def reference(ts: TaskSet, m: int) -> bool:
    """Exact: is lateness bounded under the GEL scheduler (G-EDF or G-FL)?  (GEL-cond)."""
    return bounded(ts, m)


def gedf_priority_points(ts: TaskSet, m: int) -> list[Fraction]:
    """G-EDF as a GEL scheduler: Y_i = D_i."""
    return [Fraction(int(d)) for d in ts.D]


def gfl_priority_points(ts: TaskSet, m: int) -> list[Fraction]:
    """G-FL: Y_i = D_i − ((m − 1)/m)·C_i (Erickson, Anderson, Ward 2014), exactly."""
    return [int(d) - Fraction((m - 1) * int(c), m) for c, d in zip(ts.C, ts.D, strict=True)]


def _top_k(values: list[tuple[Fraction, Fraction, int]], k: int) -> list[tuple[Fraction, Fraction, int]]:
    """The k largest (value, slope, index): the lines largest just right of the point (value, then slope)."""
    return sorted(values, key=lambda v: (v[0], v[1], -v[2]), reverse=True)[:k]


def solve_s(S: Fraction, slopes: list[Fraction], intercepts: list[Fraction], k: int, m: int) -> tuple[Fraction, int]:
    """The root s of (GEL-s), exactly, and the number of Newton steps taken (module docstring).

    ``F(s) = S + (sum of the k largest slopes[i]·s + intercepts[i]) − m·s``; needs the sum of the k
    largest slopes below m and F(0) ≥ 0.

    >>> solve_s(Fraction(11), [Fraction(1, 9), Fraction(1, 9), Fraction(1)], [Fraction(-1, 18), Fraction(-1, 18), Fraction(-4)], 1, 2)
    (Fraction(7, 1), 2)
    """
    s = Fraction(0)
    for step in range(1, len(slopes) * len(slopes) + 3):  # at most one step per piece (≤ n² breakpoints + 1)
        top = _top_k([(a * s + b, a, i) for i, (a, b) in enumerate(zip(slopes, intercepts, strict=True))], k)
        slope = sum((a for _, a, _ in top), Fraction(0)) - m
        const = S + sum((intercepts[i] for _, _, i in top), Fraction(0))
        nxt = const / -slope  # root of this piece's line
        check = S + sum((v for v, _, _ in _top_k([(a * nxt + b, a, i) for i, (a, b) in enumerate(zip(slopes, intercepts, strict=True))], k)), Fraction(0)) - m * nxt  # fmt: skip
        if check == 0:
            return nxt, step
        if check < 0 or nxt <= s:  # cannot happen for a convex decreasing F with F(s) ≥ 0
            raise AssertionError(f"compliant-vector solve did not converge at s = {nxt} (F = {check})")
        s = nxt
    raise AssertionError("compliant-vector solve took more steps than F has pieces")


@dataclass(frozen=True)
class GELBounds:
    """Every term of (GEL-S)..(GEL-L) for one set and one choice of priority points, exact."""

    U: Fraction
    k: int  #: U⁺ − 1 = ⌈U⌉ − 1, how many values G adds up
    Y: tuple[Fraction, ...]  #: the scheduler's priority points
    Y_min: Fraction
    Y_analysis: tuple[Fraction, ...]  #: Y_i − Y_min
    S_i: tuple[Fraction, ...]
    S: Fraction
    s: Fraction  #: (G + S)/m
    G: Fraction
    newton_steps: int
    x: tuple[Fraction, ...]
    response: tuple[Fraction, ...]  #: (GEL-R)
    lateness: tuple[Fraction, ...]  #: (GEL-L)
    tardiness: tuple[Fraction, ...]  #: max(0, lateness)
    in_G: tuple[int, ...]  #: the tasks whose values G adds at the root


def gel_bounds(ts: TaskSet, m: int, Y: list[Fraction], *, shift: bool = True) -> GELBounds:
    """(GEL-S)..(GEL-L) for priority points ``Y``; ``shift=False`` analyses Y itself (no Y − min Y).

    An InputError if lateness is not bounded, (GEL-cond).
    """
    if not isinstance(ts, TaskSet):
        ts = TaskSet.from_tasks(ts, deadlines="arbitrary")
    if not bounded(ts, m):
        raise InputError(
            f"lateness under a GEL scheduler (G-EDF, G-FL) is not bounded on m={m}: it needs U ≤ m and every "
            "U_i ≤ 1 (Erickson, Anderson, Ward 2014)",
            field="taskset",
        )
    if len(Y) != ts.n or min(Y) < 0:
        raise InputError("GEL priority points: one Y_i ≥ 0 per task", field="Y")
    u = utilizations(ts)
    total = fraction_sum(u)
    k = (total.numerator + total.denominator - 1) // total.denominator - 1  # U⁺ − 1
    C = [int(c) for c in ts.C]
    T = [int(t) for t in ts.T]
    D = [int(d) for d in ts.D]
    y_min = min(Y) if shift else Fraction(0)
    ya = [y - y_min for y in Y]
    s_i = [c * max(Fraction(0), 1 - y / t) for c, y, t in zip(C, ya, T, strict=True)]  # (GEL-S)
    S = fraction_sum(s_i)
    b = [c - si - c * ui / m for c, si, ui in zip(C, s_i, u, strict=True)]
    s, steps = solve_s(S, u, b, k, m)  # (GEL-s)
    x = [s - Fraction(c, m) for c in C]  # (GEL-x)
    g_values = [xi * ui + c - si for xi, ui, c, si in zip(x, u, C, s_i, strict=True)]
    top = _top_k([(v, ui, i) for i, (v, ui) in enumerate(zip(g_values, u, strict=True))], k)
    G = sum((v for v, _, _ in top), Fraction(0))  # (GEL-G); m·s = G + S
    response = [y + xi + c for y, xi, c in zip(ya, x, C, strict=True)]  # (GEL-R)
    lateness = [r - d for r, d in zip(response, D, strict=True)]  # (GEL-L)
    return GELBounds(
        U=total, k=k, Y=tuple(Y), Y_min=y_min, Y_analysis=tuple(ya), S_i=tuple(s_i), S=S, s=s, G=G,
        newton_steps=steps, x=tuple(x), response=tuple(response), lateness=tuple(lateness),
        tardiness=tuple(max(Fraction(0), lat) for lat in lateness), in_G=tuple(sorted(i for _, _, i in top)),
    )  # fmt: skip


def _points(scheduler: str) -> Callable[[TaskSet, int], list[Fraction]]:
    if scheduler not in ("gedf", "gfl"):
        raise InputError(f"unknown GEL scheduler {scheduler!r}: gedf or gfl", field="scheduler")
    return gedf_priority_points if scheduler == "gedf" else gfl_priority_points


def tardiness_bounds(ts: TaskSet, m: int, scheduler: str = "gedf") -> list[Fraction]:
    """max(0, L_i) for every task, exact (G-EDF by default, or ``scheduler="gfl"``).

    >>> from rtsched.model import TaskSet
    >>> [str(b) for b in tardiness_bounds(TaskSet.from_tasks([(1, 9, 9), (1, 9, 9), (10, 10, 10)]), 2)]
    ['0', '0', '3']
    """
    if not isinstance(ts, TaskSet):
        ts = TaskSet.from_tasks(ts, deadlines="arbitrary")
    return list(gel_bounds(ts, m, _points(scheduler)(ts, m)).tardiness)


def lateness_bounds(ts: TaskSet, m: int, scheduler: str = "gfl") -> list[Fraction]:
    """L_i for every task, exact (G-FL by default: all equal, (GFL-L); or ``scheduler="gedf"``).

    >>> from rtsched.model import TaskSet
    >>> [str(b) for b in lateness_bounds(TaskSet.from_tasks([(1, 9, 9), (1, 9, 9), (10, 10, 10)]), 2)]
    ['11/9', '11/9', '11/9']
    """
    if not isinstance(ts, TaskSet):
        ts = TaskSet.from_tasks(ts, deadlines="arbitrary")
    return list(gel_bounds(ts, m, _points(scheduler)(ts, m)).lateness)


def gel_as_gedf(ts: TaskSet, m: int, Y: list[Fraction]) -> tuple[TaskSet, int, list[int]]:
    """A G-EDF set that the GEL scheduler with points ``Y`` schedules alike, in time scaled by ``scale``.

    Returns ``(scaled, scale, deadlines)``: ``scale`` is the least common denominator of the Y_i
    (m for G-FL at most), ``scaled`` has C' = scale·C, T' = scale·T and relative deadline
    D' = scale·Y_i + K with K = max(0, max_i (C'_i − scale·Y_i)) (G-FL on Dhall's set: points 17, 17, 10, K = 10) (a TaskSet needs C ≤ D; adding
    the same K to every priority point changes no decision of the scheduler), and ``deadlines``
    are the real relative deadlines scale·D_i. Simulating ``scaled`` under G-EDF (ties by index or
    FIFO, as G-EDF's) is the GEL schedule in scaled time; :func:`observed_lateness` then measures
    lateness against ``deadlines`` (in scaled ticks: divide by ``scale``).

    >>> from rtsched.model import TaskSet
    >>> ts = TaskSet.from_tasks([(1, 9, 9), (1, 9, 9), (10, 10, 10)])
    >>> scaled, scale, deadlines = gel_as_gedf(ts, 2, gfl_priority_points(ts, 2))
    >>> scaled.rows(), scale, deadlines
    ([(2, 27, 18), (2, 27, 18), (20, 20, 20)], 2, [18, 18, 20])
    """
    scale = 1
    for y in Y:
        scale = scale * y.denominator // gcd(scale, y.denominator)
    ys = [int(y * scale) for y in Y]
    cs = [scale * int(c) for c in ts.C]
    shift = max(0, max(c - y for c, y in zip(cs, ys, strict=True)))
    rows = [(c, y + shift, scale * int(t)) for c, y, t in zip(cs, ys, ts.T, strict=True)]
    return TaskSet.from_tasks(rows, deadlines="arbitrary"), scale, [scale * int(d) for d in ts.D]


def observed_lateness(trace: Any, deadlines: list[int]) -> list[int | None]:
    """Each task's largest finish − (release + deadlines[i]) in a recorded run (None: no job).

    Reads ``trace.releases`` (task, job, release, ·) and ``trace.segments`` (·, task, job, start,
    end); the run must have been recorded (``record=True``) with ``after_miss="continue"``.
    """
    finish: dict[tuple[int, int], int] = {}
    for _, task, job, _, end in trace.segments.tolist():
        finish[(task, job)] = max(finish.get((task, job), end), end)
    worst: list[int | None] = [None] * len(deadlines)
    for task, job, release, _ in trace.releases.tolist():
        late = finish[(task, job)] - (release + deadlines[task])
        old = worst[task]
        worst[task] = late if old is None else max(old, late)
    return worst


def _floor(q: Fraction) -> int:
    return q.numerator // q.denominator


def _explain(ts: TaskSet, m: int, scheduler: str) -> Explanation:
    name = "G-EDF" if scheduler == "gedf" else "G-FL"
    u = utilizations(ts)
    total = fraction_sum(u)
    u_max = max(u)
    heavy = u.index(u_max)
    steps = lambda: _steps(ts, m, scheduler)  # noqa: E731
    if not bounded(ts, m):
        why = (
            f"U_max = {show_number(u_max)} > 1 ({ts.label(heavy)})"
            if u_max > 1
            else f"U = {show_number(total)} > m = {m}"
        )
        return Explanation(
            verdict=False,
            summary=f"lateness not bounded under {name}: {why}",
            evidence={"U": total, "u_max": u_max, "u_max_task": heavy},
            per_task=[{"task": i, "u": ui} for i, ui in enumerate(u)],
            steps=steps,
        )
    g = gel_bounds(ts, m, _points(scheduler)(ts, m))
    worst = max(g.tardiness)
    worst_late = max(g.lateness)
    at = g.lateness.index(worst_late)
    summary = (
        f"tardiness bounded under {name}: U = {show_number(total)} ≤ m = {m}, U_max = {show_number(u_max)} ≤ 1; "
        f"s = {show_number(g.s)}, largest lateness bound {show_number(worst_late)} ({ts.label(at)}), "
        f"largest tardiness bound {show_number(worst)}"
    )
    return Explanation(
        verdict=True,
        summary=summary,
        evidence={
            "U": total, "u_max": u_max, "k": g.k, "S": g.S, "G": g.G, "s": g.s, "Y_min": g.Y_min,
            "max_bound": worst, "max_lateness": worst_late, "newton_steps": g.newton_steps,
        },
        per_task=[
            {
                "task": i, "u": u[i], "Y": g.Y[i], "S_i": g.S_i[i], "x": g.x[i], "response": g.response[i],
                "lateness": g.lateness[i], "bound": g.tardiness[i], "bound_ticks": _floor(g.tardiness[i]),
                "in_G": i in g.in_G,
            }
            for i in range(ts.n)
        ],
        steps=steps,
    )  # fmt: skip


def explain_gedf(ts: TaskSet, m: int) -> Explanation:
    """(GEL-cond) with U and U_max; if it holds, s, G, S and each task's x_i, response, lateness, tardiness."""
    return _explain(ts, m, "gedf")


def explain_gfl(ts: TaskSet, m: int) -> Explanation:
    """As :func:`explain_gedf`, for G-FL's priority points; every lateness bound is s − min Y (GFL-L)."""
    return _explain(ts, m, "gfl")


def _steps(ts: TaskSet, m: int, scheduler: str) -> Iterator[Step]:
    u = utilizations(ts)
    total = fraction_sum(u)
    yield Step("U = Σ C_i/T_i = {U}, U_max = {u_max}", {"U": total, "u_max": max(u)})
    if not bounded(ts, m):
        yield Step(f"(GEL-cond) fails: U ≤ m = {m} and U_max ≤ 1 are both needed: lateness grows without bound")
        return
    Y = _points(scheduler)(ts, m)
    g = gel_bounds(ts, m, Y)
    yield Step(f"(GEL-cond) holds: U ≤ m = {m} and U_max ≤ 1: tardiness is bounded")
    if scheduler == "gedf":
        yield Step("G-EDF priority points Y_i = D_i; analysis points Y_i − min Y, min Y = {y}", {"y": g.Y_min})
    else:
        yield Step(f"G-FL priority points Y_i = D_i − ({m - 1}/{m})·C_i; analysis points Y_i − min Y, min Y = " + "{y}", {"y": g.Y_min})  # fmt: skip
    for i in range(ts.n):
        yield Step(
            f"{ts.label(i)}: Y = " + "{y}, S_i = C_i·max(0, 1 − (Y − min Y)/T_i) = {si} (GEL-S)",
            {"y": g.Y[i], "si": g.S_i[i]},
        )
    yield Step(f"S = {{S}}; G adds the U⁺ − 1 = {g.k} largest x_i·U_i + C_i − S_i (GEL-G)", {"S": g.S})
    yield Step(
        f"m·s = G + S solved exactly ({g.newton_steps} Newton steps on the pieces): s = " + "{s}, G = {G} (GEL-s)",
        {"s": g.s, "G": g.G},
    )
    for i in range(ts.n):
        yield Step(
            f"{ts.label(i)}: x = s − C/m = " + "{x}; response ≤ (Y − min Y) + x + C = {r}; lateness ≤ {lat}; "
            "tardiness ≤ {t} (GEL-R, GEL-L)",
            {"x": g.x[i], "r": g.response[i], "lat": g.lateness[i], "t": g.tardiness[i]},
        )


#: Both analyses share ``tardiness-da``'s kernels: the verdict is the same condition (module docstring).
ANALYSES = (
    Analysis(
        name="tardiness-cva", title="Bounded tardiness under G-EDF: compliant-vector bounds",
        kind="exact", policy="global-edf:soft", policy_order=0.5, order=1, featured=False,
        deadlines=("implicit", "constrained", "arbitrary"),
        citation=CITATION_CVA, note="papers/erickson-devi-baruah2010-cva.md",
        reference=reference, explain=explain_gedf, kernel=_da_kernel, one=_da_one,
        parallel_from=1 << 22, shares_kernels_with="tardiness-da",
    ),
    Analysis(
        name="lateness-gfl", title="Bounded lateness under G-FL: the fair-lateness bound",
        kind="exact", policy="global-fl:soft", policy_order=0.6, order=0, featured=False,
        deadlines=("implicit", "constrained", "arbitrary"),
        citation=CITATION_GFL, note="papers/erickson-anderson-ward2014-gfl.md",
        reference=reference, explain=explain_gfl, kernel=_da_kernel, one=_da_one,
        parallel_from=1 << 22, shares_kernels_with="tardiness-da",
    ),
)  # fmt: skip
