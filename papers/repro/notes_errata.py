"""Verification of the errata of issue 19 in papers/shin-easwaran-lee2008-mpr.md (MPR supply bound)
and papers/baruah2007.md (an example's utilization). Exact integer arithmetic throughout.

Run: python papers/repro/notes_errata.py   (about half a minute). The output is quoted in the notes.

Three references for the worst-case supply sbf(t) of an MPR interface ⟨Π, Θ, m'⟩ (Θ units in every
period [jΠ, (j+1)Π), at most m' per tick):

* ``independent``: written here from the definition only. A window [o, o + t) meets each period in
  an interval of some length ℓ; whatever the schedule, the period's supply outside that interval is
  at most m'·(Π − ℓ), so inside it is at least max(0, Θ − m'(Π − ℓ)), and a schedule attains every
  period's minimum at once (push the period's supply out of the window, which is possible because
  the parts of a period outside one window are at its two ends). sbf(t) = min over o ∈ [0, Π) of
  the sum over periods. No closed form, no early/late argument.
* rtsched's closed form ``sbf`` and its brute force ``sbf_brute_force`` (analyses/theory/supply.py).

and the published forms as transcribed (papers/shin-easwaran-lee2008-mpr.md and
papers/easwaran-shin-lee2009-virtual-clusters.md):

* ECRTS 2008 Eq. (1): t' = t − (Π − ⌈Θ/m'⌉), x = t' − Π⌊t'/Π⌋,
  sbf = ⌊t'/Π⌋Θ + max{0, m'x − (m'Π − Θ)} for t' ≥ 0, else 0;
* RTS 2009 Def. 1 ("journal form"): the same minus [x ∉ [1, y]]·(m' − β), y = Π − α,
  α = ⌊Θ/m'⌋, β = Θ − m'α; also "clipped": max(0, journal form);
* rtsched's closed form written with x in place of y = ((t' − 1) mod Π) + 1 (the trap of the
  journal note), here called "rtsched's form without +1".
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

import numpy as np

from rtsched.analyses.theory.supply import sbf, sbf_brute_force, supply_in_period


def independent(Pi: int, Theta: int, mp: int, t_max: int) -> list[int]:
    """sbf(t) for t = 0..t_max from the definition (see the module docstring)."""
    periods = t_max // Pi + 3
    o = np.arange(Pi)[:, None, None]
    t = np.arange(t_max + 1)[None, :, None]
    j = np.arange(periods)[None, None, :]
    start, end = j * Pi, (j + 1) * Pi
    overlap = np.clip(np.minimum(o + t, end) - np.maximum(o, start), 0, None)
    least = np.maximum(0, Theta - mp * (Pi - overlap))
    return least.sum(axis=2).min(axis=0).tolist()


def eq1(Pi: int, Theta: int, mp: int, t: int) -> int:
    s = -(-Theta // mp)
    tp = t - (Pi - s)
    if tp < 0:
        return 0
    x = tp - Pi * (tp // Pi)
    return (tp // Pi) * Theta + max(0, mp * x - (mp * Pi - Theta))


def journal(Pi: int, Theta: int, mp: int, t: int) -> int:
    alpha, beta = divmod(Theta, mp)
    s = -(-Theta // mp)
    tp = t - (Pi - s)
    if tp < 0:
        return 0
    x = tp - Pi * (tp // Pi)
    y = Pi - alpha
    value = (tp // Pi) * Theta + max(0, mp * x - (mp * Pi - Theta))
    if not 1 <= x <= y:
        value -= mp - beta
    return value


def without_plus_one(Pi: int, Theta: int, mp: int, t: int) -> int:
    """rtsched's closed form with x = t' mod Π in place of y = ((t' − 1) mod Π) + 1."""
    alpha, beta = divmod(Theta, mp)
    tp = t - 2 * (Pi - alpha - (1 if beta else 0))
    if tp <= 0:
        return 0
    q, x = divmod(tp, Pi)
    return q * Theta + supply_in_period(Theta, mp, x)


def category(Pi: int, Theta: int, mp: int) -> str:
    alpha, beta = divmod(Theta, mp)
    if beta == 0:
        return "beta = 0"
    if alpha == 0:
        return "alpha = 0 (Theta < m')"
    return "alpha >= 1 and beta >= 1"


def sweep(max_pi: int, max_mp: int) -> None:
    points = 0
    tally: Counter[tuple[str, str, str]] = Counter()
    first_eq1 = None
    first_nop = None
    for Pi in range(1, max_pi + 1):
        for mp in range(1, max_mp + 1):
            for Theta in range(1, mp * Pi + 1):
                t_max = 4 * Pi + 3
                truth = independent(Pi, Theta, mp, t_max)
                assert truth == sbf_brute_force(Pi, Theta, mp, t_max).tolist(), (Pi, Theta, mp)
                cat = category(Pi, Theta, mp)
                for t in range(t_max + 1):
                    points += 1
                    w = truth[t]
                    assert sbf(Pi, Theta, mp, t) == w, (Pi, Theta, mp, t)
                    forms = {
                        "Eq. (1)": eq1(Pi, Theta, mp, t),
                        "journal": journal(Pi, Theta, mp, t),
                        "journal clipped": max(0, journal(Pi, Theta, mp, t)),
                        "without +1": without_plus_one(Pi, Theta, mp, t),
                    }
                    for name, v in forms.items():
                        if v > w:
                            tally[name, cat, "optimistic"] += 1
                        elif v < w:
                            tally[name, cat, "negative" if v < 0 else "pessimistic"] += 1
                        tally[name, cat, "points"] += 1
                    key = (Pi, t, mp, Theta)
                    if forms["Eq. (1)"] > w and (first_eq1 is None or key < first_eq1[0]):
                        first_eq1 = (key, forms["Eq. (1)"], w)
                    if forms["without +1"] != w and (first_nop is None or key < first_nop[0]):
                        first_nop = (key, forms["without +1"], w)
    print(f"Π ≤ {max_pi}, m' ≤ {max_mp}, 0 < Θ ≤ m'Π, 0 ≤ t ≤ 4Π + 3: {points} points")
    print("  rtsched sbf == sbf_brute_force == independent definition at every point")
    for name in ("Eq. (1)", "journal", "journal clipped", "without +1"):
        for cat in ("alpha >= 1 and beta >= 1", "beta = 0", "alpha = 0 (Theta < m')"):
            n = tally[name, cat, "points"]
            opt, pes, neg = (tally[name, cat, k] for k in ("optimistic", "pessimistic", "negative"))
            print(
                f"  {name:>15} | {cat:<25} | {n:>6} points: {opt:>5} optimistic, {pes:>5} pessimistic, {neg:>4} negative"
            )
        total = {
            k: sum(tally[name, c, k] for c in ("alpha >= 1 and beta >= 1", "beta = 0", "alpha = 0 (Theta < m')"))
            for k in ("optimistic", "pessimistic", "negative")
        }
        print(
            f"  {name:>15} | {'all':<25} | {points:>6} points: {total['optimistic']:>5} optimistic, {total['pessimistic']:>5} pessimistic, {total['negative']:>4} negative"
        )
    (Pi, t, mp, Theta), got, want = first_eq1
    print(f"  smallest (Π, t, m', Θ) where Eq. (1) over-estimates: ⟨{Pi}, {Theta}, {mp}⟩ at t = {t}: {got} > {want}")
    (Pi, t, mp, Theta), got, want = first_nop
    print(f"  smallest (Π, t, m', Θ) where the form without +1 errs: ⟨{Pi}, {Theta}, {mp}⟩ at t = {t}: {got} vs {want}")


def main() -> None:
    print("== MPR supply bound ==")
    for Pi, Theta, mp, t in ((2, 3, 2, 2), (5, 3, 2, 8)):
        print(
            f"⟨{Pi}, {Theta}, {mp}⟩ at t = {t}: independent",
            independent(Pi, Theta, mp, t)[t],
            "| rtsched sbf",
            sbf(Pi, Theta, mp, t),
            "| Eq. (1)",
            eq1(Pi, Theta, mp, t),
            "| journal",
            journal(Pi, Theta, mp, t),
            "| without +1",
            without_plus_one(Pi, Theta, mp, t),
        )
    sweep(12, 5)
    sweep(20, 8)
    print("== BAR note example ==")
    tasks = [(8, 15, 24), (13, 16, 17), (1, 18, 24), (19, 22, 22), (3, 19, 22)]
    U = sum((Fraction(c, t) for c, _, t in tasks), Fraction(0))
    print(f"U of {tasks} = {U} ≈ {float(U):.4f}")


if __name__ == "__main__":
    main()
