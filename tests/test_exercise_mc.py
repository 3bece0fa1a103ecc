"""`rtsched exercise --topic mc`: the sheet's set reads back, the key's numbers are the library's
(U_LL, U_HL, U_HH, the DM order, every task's R_LO and R_HI under SMC, AMC-rtb and AMC-max, AMC-max's
switch instants, EDF-VD's x and virtual deadlines, recomputed here from the equations' functions and
the closed form), its verdicts are the analyses' (through rtsched.check, the kernels), the draw is
instructive, the same seed gives the same bytes, and what the key proves holds in the simulator."""

import re
from fractions import Fraction

import pytest

from rtsched import check
from rtsched.analyses.mixed_criticality import amc2011
from rtsched.cli import main
from rtsched.exercise import TOPICS, make_exercise, parse_mc_tasksets
from rtsched.mc.sim import switch_search
from rtsched.result import verdict_text

SEEDS = (0, 1, 2, 3, 17, 42, "s1234567")
ANALYSES = ("mc-smc-dm", "mc-amc-rtb-dm", "mc-amc-max-dm", "mc-edf-vd")


def _key_verdicts(key: str) -> dict[str, str]:
    table = key.split("## Verdicts (rtsched)", 1)[1]
    found = {m.group(1): m.group(2) for m in re.finditer(r"^\| ([^ |]+) \| ([^|]+?) \|", table, re.M)}
    found.pop("analysis", None)
    return found


def _number(text: str) -> Fraction:
    """A number as the key shows it with exact numbers on: ``7``, ``39/2`` or ``39/2 (= 19.5)``."""
    return Fraction(text.split(" (")[0])


def _section(key: str, heading: str) -> str:
    return key.split(heading, 1)[1].split("\n### ", 1)[0]


def _table(section: str) -> dict[str, tuple[str, str, str]]:
    """The per-task rows of a section's table: label → (R_LO, R_HI, passes)."""
    rows = re.findall(r"^\| \d+ \| (τ\d+) \| (?:LO|HI) \| \d+ \| ([^|]+) \| ([^|]+) \| (yes|no) \|", section, re.M)
    return {label: (lo.strip(), hi.strip(), ok) for label, lo, hi, ok in rows}


def _shown(value: int, D: int) -> str:
    return str(value) if value <= D else f"> {D}"


def test_topic_is_listed():
    assert "mc" in TOPICS


@pytest.mark.parametrize("seed", SEEDS)
def test_key_agrees_with_the_library(seed):
    ex = make_exercise("mc", seed)
    sets = parse_mc_tasksets(ex.sheet)
    assert sets == list(ex.tasksets) and len(sets) == 1
    assert parse_mc_tasksets(ex.key) == sets
    ts = sets[0]
    assert ex.m == 1 and ex.analyses == ANALYSES
    stated = _key_verdicts(ex.key)
    assert sorted(stated) == sorted(ANALYSES)
    report = check(ts, 1, tests=list(ANALYSES))  # the kernels, independent of the key's path
    for name in ANALYSES:
        assert stated[name] == verdict_text(report[name].verdict, report[name].kind), (seed, name)
    # 1. utilizations and the DM order
    U = re.search(r"^U_LL = (.+?), U_HL = (.+?), U_HH = (.+?); deadline-monotonic order", ex.key, re.M).groups()
    assert tuple(_number(u) for u in U) == (ts.U_LL, ts.U_HL, ts.U_HH)
    order = sorted(range(ts.n), key=lambda i: (ts[i].D, i))
    shown_order = re.search(r"\(highest first\): (.+)\.$", ex.key, re.M).group(1)
    assert shown_order == " > ".join(ts.label(i) for i in order)
    # 2-5. every task's response times under each FP test, from the equations' functions
    for heading, test in (("### 2–3.", "amc-rtb"), ("### 4.", "smc"), ("### 5.", "amc-max")):
        rows = _table(_section(ex.key, heading))
        assert sorted(rows) == sorted(ts.label(i) for i in range(ts.n))
        for p, i in enumerate(order):
            task = ts[i]
            R_lo, _ = amc2011.lo_response(ts, i, order[:p])  # (4)
            if test == "smc":
                R_hi, ok = amc2011.smc_response(ts, i, order[:p])  # (3)
                if not task.is_hi:
                    R_lo, R_hi = R_hi, None
            elif not task.is_hi:
                R_hi, ok = None, R_lo <= task.D
            elif test == "amc-rtb":
                R_hi, ok = amc2011.amc_rtb_response(ts, i, order[:p], R_lo)  # (7)
            else:
                R_hi, ok, _ = amc2011.amc_max_response(ts, i, order[:p], R_lo)
            ok = ok and R_lo <= task.D
            expected = (_shown(R_lo, task.D), "-" if R_hi is None else _shown(R_hi, task.D), "yes" if ok else "no")
            assert rows[ts.label(i)] == expected, (seed, test, i)
    # 5. switch instants: 0 and the releases of the higher-priority LO tasks before R_LO
    instants = re.search(r"^Switch instants checked: (.+)\.$", ex.key, re.M).group(1)
    for item in instants.split("; "):
        label, r_lo, points = re.fullmatch(r"(τ\d+): R\^LO = (\d+), s ∈ \{([\d, ]+)\}", item).groups()
        i = int(label[1:])
        above = order[: order.index(i)]
        assert ts[i].is_hi and int(r_lo) == amc2011.lo_response(ts, i, above)[0]
        lo_releases = {
            a * ts[k].T for k in above if not ts[k].is_hi for a in range(1, int(r_lo)) if a * ts[k].T < int(r_lo)
        }
        assert [int(s) for s in points.split(", ")] == sorted({0} | lo_releases)
    # 6. EDF-VD's closed form (Baruah et al., ECRTS 2012)
    x = ts.U_HL / (1 - ts.U_LL)
    edf_vd = _section(ex.key, "### 6.")
    shown_x = re.search(r"^\(V2\) x = .* = (\d+(?:/\d+)?)(?: \([^)]*\))?: the least x", edf_vd, re.M).group(1)
    assert Fraction(shown_x) == x == report["mc-edf-vd"].evidence["x"]
    assert (x * ts.U_LL + ts.U_HH <= 1) == report["mc-edf-vd"].verdict
    shown = dict(re.findall(r"(τ\d+): x·T = (\d+(?:/\d+)?)", edf_vd))
    assert {label: _number(v) for label, v in shown.items()} == {
        ts.label(i): x * t.T for i, t in enumerate(ts) if t.is_hi
    }


@pytest.mark.parametrize("seed", range(8))
def test_draw_is_instructive(seed):
    ts = make_exercise("mc", seed).tasksets[0]
    order = amc2011.deadline_monotonic(ts)
    assert ts.lo_tasks() and ts.hi_tasks()
    assert ts.U_LL + ts.U_HL <= 1 < ts.U_LL + ts.U_HH  # LO mode fits; plain EDF is not enough by (V1)
    assert any(ts[i].is_hi and any(not ts[j].is_hi for j in order[:p]) for p, i in enumerate(order))
    results = [amc2011.task_test(ts, i, order[:p], "amc-rtb") for p, i in enumerate(order)]
    assert all(r.failing != "LO" for r in results)
    assert any(
        ts[i].is_hi and len(amc2011.switch_instants(ts, order[:p], results[p].R_lo)) > 1 for p, i in enumerate(order)
    )
    smc = amc2011.reference(ts, test="smc", priorities="dm")
    rtb = all(r.ok for r in results)
    assert (rtb and not smc) or not rtb


def test_both_coin_outcomes_occur():
    outcomes = {make_exercise("mc", seed).key.count("| mc-amc-rtb-dm | schedulable |") for seed in range(12)}
    assert outcomes == {0, 1}


@pytest.mark.parametrize("seed", range(6))
def test_proven_verdicts_hold_in_the_simulator(seed):
    """What the key proves (AMC-rtb/AMC-max with DM, EDF-VD with its x) meets every switch instant of the simulator."""
    ex = make_exercise("mc", seed)
    ts = ex.tasksets[0]
    report = check(ts, 1, tests=list(ANALYSES))
    if report["mc-amc-max-dm"].verdict:
        order = amc2011.deadline_monotonic(ts)
        assert switch_search(ts, policy="amc", priorities=order).failure is None
    if report["mc-edf-vd"].verdict:
        x = report["mc-edf-vd"].evidence["x"]
        assert switch_search(ts, scheduler="edf-vd", x=x).failure is None


@pytest.mark.parametrize("topic_seed", [11, "ab1234"])
def test_same_seed_same_bytes(topic_seed):
    a, b = make_exercise("mc", topic_seed), make_exercise("mc", topic_seed)
    assert a.sheet == b.sheet and a.key == b.key
    assert a.sheet.endswith("\n") and not a.sheet.endswith("\n\n")


def test_sheet_has_no_answers():
    ex = make_exercise("mc", 5)
    assert "## Answers" not in ex.sheet and "Verdicts" not in ex.sheet and "R_LO (4)" not in ex.sheet
    assert "## Answers" in ex.key


def test_cli_writes_the_mc_sheet_and_key(tmp_path):
    sheet, key = tmp_path / "s.md", tmp_path / "k.md"
    assert main(["exercise", "--topic", "mc", "--seed", "7", "--sheet", str(sheet), "--key", str(key)]) == 0
    assert sheet.read_text(encoding="utf-8") == make_exercise("mc", 7).sheet
    assert key.read_text(encoding="utf-8") == make_exercise("mc", 7).key


def test_cli_check_reads_the_key_s_yaml_block(tmp_path, capsys):
    """The key's closing line says to run `rtsched check` on the YAML block: it reads and decides the same."""
    ex = make_exercise("mc", 3)
    block = ex.sheet.split("```yaml\n", 1)[1].split("```", 1)[0]
    path = tmp_path / "set.yaml"
    path.write_text(block, encoding="utf-8")
    status = main(["check", str(path), "--tests", ",".join(ANALYSES)])
    out = capsys.readouterr().out
    for name, verdict in _key_verdicts(ex.key).items():
        assert re.search(rf"^{re.escape(name)} .* {re.escape(verdict)} ", out, re.M), (name, out)
    assert status in (0, 1)
