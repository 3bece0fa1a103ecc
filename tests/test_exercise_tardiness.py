"""`rtsched exercise --topic tardiness`: the sheet's set reads back, U ≤ m and global EDF misses a hard deadline
in simulation, the key's Λ, E_L, e_min, U_L, x and per-task bounds are the library's (``terms`` and
``tardiness_bounds`` of tardiness-da, recomputed here), its observed tardiness is the simulator's (through the
CLI for one seed, as the sheet tells the student to run it) and never above the bound, the same seed gives the
same bytes."""

import os
import re
from fractions import Fraction

import pytest

from rtsched import check
from rtsched.analyses.global_edf.tardiness_da import bounded, tardiness_bounds, terms
from rtsched.cli import main
from rtsched.exercise import TOPICS, make_exercise, parse_tasksets
from rtsched.sim import simulate

SEEDS = (0, 1, 2, 3, 5, 8, 13, 17, 42, "s1234567")
RUNS = (("periodic", "wcet"), ("sporadic", "wcet"), ("periodic", "random"), ("sporadic", "random"))


def _number(text: str) -> Fraction:
    """A number as the key shows it with exact numbers on: ``7``, ``39/2`` or ``39/2 (= 19.5)``."""
    return Fraction(text.strip().split(" (")[0])


def _sim_seed(sheet: str) -> int:
    return int(re.search(r"--arrivals sporadic --seed (\d+)`", sheet).group(1))


def _table(key: str) -> dict[str, list[str]]:
    """The rows of the key's "Bound against observed tardiness" table: label → cells after the label."""
    section = key.split("### 5. Bound against observed tardiness", 1)[1].split("## Verdicts", 1)[0]
    rows = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells and re.fullmatch(r"τ\d+", cells[0]):
            rows[cells[0]] = cells[1:]
    return rows


def test_topic_is_listed():
    assert "tardiness" in TOPICS


def test_same_seed_same_bytes():
    a, b = make_exercise("tardiness", "ab1234"), make_exercise("tardiness", "ab1234")
    assert (a.sheet, a.key) == (b.sheet, b.key)
    assert make_exercise("tardiness", "ab1235").sheet != a.sheet


@pytest.mark.parametrize("seed", SEEDS)
def test_key_agrees_with_the_library_and_the_simulator(seed):
    ex = make_exercise("tardiness", seed)
    sets = parse_tasksets(ex.sheet)
    assert [s.rows() for s in sets] == [s.rows() for s in ex.tasksets] and len(sets) == 1
    ts, m = sets[0], ex.m
    assert ex.analyses == ("tardiness-da",) and m in (2, 3)
    # the set: implicit deadlines, U ≤ m (bounded tardiness), and a hard miss of global EDF in simulation
    assert ts.is_implicit and m - 1 < ts.utilization <= m and all(c <= t for c, _, t in ts.rows())
    assert check(ts, m, tests=["tardiness-da"])["tardiness-da"].verdict is True  # the kernel
    miss = simulate(ts, m).miss
    assert miss is not None and miss.time <= 24
    stated = re.search(
        r"Job (\d+) of (τ\d+) \(counting from 0\) misses its deadline at t = (\d+), with (\d+) tick", ex.key
    )
    assert stated.groups() == (str(miss.job), ts.label(miss.task), str(miss.time), str(miss.remaining))
    # the terms and the bounds
    t = terms(ts, m)
    shown = re.search(r"^Λ = (\d+), E_L = (\d+), e_min = (\d+), U_L = (.+?), x = (.+?)\. In whole ticks", ex.key, re.M)
    lam, e_l, e_min, u_l, x = shown.groups()
    assert (int(lam), int(e_l), int(e_min), _number(u_l), _number(x)) == (
        t["Lambda"], t["E_L"], t["e_min"], t["U_L"], t["x"]
    )  # fmt: skip
    assert t["Lambda"] == m - 1
    bounds = tardiness_bounds(ts, m)
    ticks = re.search(r"at most ⌊x \+ e_k⌋\): (.+)\.$", ex.key, re.M).group(1)
    assert ticks == ", ".join(f"{ts.label(i)} {b.numerator // b.denominator}" for i, b in enumerate(bounds))
    rows = _table(ex.key)
    assert sorted(rows) == sorted(ts.label(i) for i in range(ts.n))
    sim_seed = _sim_seed(ex.sheet)
    traces = [
        simulate(ts, m, arrivals=a, execution=e, seed=sim_seed, after_miss="continue", record=False) for a, e in RUNS
    ]
    for i in range(ts.n):
        c, period, bound, *observed = rows[ts.label(i)]
        assert (int(c), int(period)) == (ts.rows()[i][0], ts.rows()[i][2])
        assert _number(bound) == bounds[i]
        assert [int(o) for o in observed] == [tr.tardiness[i] for tr in traces]
        assert all(tr.tardiness[i] <= bounds[i] for tr in traces)  # the theorem, on the sheet's runs
    # the verdict table
    assert re.search(r"^\| tardiness-da \| schedulable \|", ex.key, re.M)


@pytest.mark.parametrize("seed", SEEDS[:4])
def test_bounds_hold_on_more_runs_of_the_sheets_sets(seed):
    """Observed tardiness ≤ the Devi–Anderson bound on further seeds (sporadic, random execution, fifo ties)."""
    ex = make_exercise("tardiness", seed)
    ts, m = ex.tasksets[0], ex.m
    bounds = tardiness_bounds(ts, m)
    for s in range(6):
        for arrivals, execution in RUNS[1:]:
            for ties in ("index", "fifo"):
                tr = simulate(ts, m, arrivals=arrivals, execution=execution, seed=s, ties=ties, after_miss="continue",
                              record=False)  # fmt: skip
                assert all(o <= b for o, b in zip(tr.tardiness, bounds, strict=True)), (seed, s, arrivals, execution)


def test_the_sheets_command_lines_give_the_keys_numbers(tmp_path, capsys):
    """The student runs `rtsched simulate set.txt -m M --tardiness [...]` (question 5): the key's table is its output."""
    ex = make_exercise("tardiness", 1)
    ts, m = ex.tasksets[0], ex.m
    path = tmp_path / "set.txt"
    path.write_text("".join(f"{c} {d} {t}\n" for c, d, t in ts.rows()), encoding="utf-8")
    seed = _sim_seed(ex.sheet)
    rows = _table(ex.key)
    for column, extra in enumerate(
        ([], ["--arrivals", "sporadic", "--seed", str(seed)], ["--execution", "random", "--seed", str(seed)],
         ["--arrivals", "sporadic", "--execution", "random", "--seed", str(seed)])
    ):  # fmt: skip
        status = main(["simulate", str(path), "-m", str(m), "--tardiness", *extra])
        assert status in (0, 1)
        out = capsys.readouterr().out
        printed = dict(re.findall(r"^\s*(τ\d+): observed tardiness (\d+)", out, re.M))
        assert printed == {label: cells[3 + column] for label, cells in rows.items()}, (extra, out)


@pytest.mark.slow
def test_many_seeds_are_instructive_and_sound():
    """RTSCHED_PROPERTY_EXAMPLES seeds (default 150): U in (m − 1, m], a hard miss by t = 24, observed ≤ bound."""
    for seed in range(int(os.environ.get("RTSCHED_PROPERTY_EXAMPLES", "150"))):
        ex = make_exercise("tardiness", seed)
        ts, m = ex.tasksets[0], ex.m
        assert m - 1 < ts.utilization <= m and bounded(ts, m)
        miss = simulate(ts, m, record=False).miss
        assert miss is not None and miss.time <= 24
        bounds = tardiness_bounds(ts, m)
        for arrivals, execution in RUNS:
            for s in range(3):
                run = simulate(
                    ts, m, arrivals=arrivals, execution=execution, seed=s, after_miss="continue", record=False
                )
                assert all(o <= b for o, b in zip(run.tardiness, bounds, strict=True)), (seed, arrivals, execution, s)
