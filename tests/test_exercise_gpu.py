"""`rtsched exercise --topic seg` (CPU–GPU tasks, issue #43): the sheet's set reads back, the key's
numbers are the registry's explanations (holding times, waiting bounds per request, response-time
bounds and verdicts of seg-mpcp-busy, seg-mpcp-suspend and seg-fmlp-suspend), the numbers a
student computes first are also recomputed here by hand from the equations (one GPU: H = G_m + G_e;
the highest-priority GPU task waits for the longest lower holding under MPCP and for every other
task's holding under FMLP+), the verdicts equal the kernels', every draw is instructive over seeds
0-49, the same seed gives the same bytes, and what the key proves holds in the simulator."""

import re

import pytest

from rtsched import analyses, check
from rtsched.cli import main
from rtsched.exercise import TOPICS, make_exercise, parse_segmented_tasksets
from rtsched.result import verdict_text
from rtsched.segmented import simulate_segmented

ANALYSES = ("seg-mpcp-busy", "seg-mpcp-suspend", "seg-fmlp-suspend")
SEEDS = (0, 1, 2, 3, 17, 42, "s1234567")


def _key_verdicts(key: str) -> dict[str, str]:
    table = key.split("## Verdicts (rtsched)", 1)[1]
    found = {m.group(1): m.group(2) for m in re.finditer(r"^\| ([^ |]+) \| ([^|]+?) \|", table, re.M)}
    found.pop("analysis", None)
    return found


def _section(key: str, heading: str) -> str:
    return key.split(heading, 1)[1].split("\n### ", 1)[0]


def _rows(section: str) -> dict[str, tuple[str, str, str, str]]:
    """The per-task rows of a section's table: label → (mode, W per request, R, passes)."""
    rows = re.findall(r"^\| (τ\d+) \| \d+ \| (busy|suspend) \| ([^|]+) \| ([^|]+) \| \d+ \| (yes|no) \|", section, re.M)
    return {label: (mode, w.strip(), r.strip(), ok) for label, mode, w, r, ok in rows}


def _expected_rows(ts, result) -> dict[str, tuple[str, str, str, str]]:
    """The same rows, straight from an explanation of the registry."""
    out = {}
    for i, row in enumerate(result.per_task):
        waits = result.evidence["waiting"][i]
        w = "; ".join(f"{d}: {'> D' if v is None else v}" for d, v in waits) or "-"
        R = result.evidence["response_times"][i]
        out[ts.label(i)] = (row["mode"], w, str(R if R is not None else row["R"]), "yes" if row["ok"] else "no")
    return out


def test_topic_is_listed():
    assert "seg" in TOPICS


@pytest.mark.parametrize("seed", SEEDS)
def test_key_agrees_with_the_registry(seed):
    ex = make_exercise("seg", seed)
    sets = parse_segmented_tasksets(ex.sheet)
    assert sets == list(ex.tasksets) and len(sets) == 1
    assert parse_segmented_tasksets(ex.key) == sets
    ts = sets[0]
    assert ex.m == 2 and ex.analyses == ANALYSES
    explained = {name: analyses.get(name).explain(ts, 2) for name in ANALYSES}
    # verdicts: the key's table, the explanations, the kernels and rtsched.check agree
    stated = _key_verdicts(ex.key)
    assert sorted(stated) == sorted(ANALYSES)
    report = check(ts, 2, tests=list(ANALYSES))
    for name in ANALYSES:
        kernel = analyses.get(name).verdict(ts, 2)
        assert kernel == explained[name].verdict == report[name].verdict
        assert stated[name] == verdict_text(kernel, "sufficient"), (seed, name)
    # 1. holding times: the explanation's, and by hand H = G_m + G_e (one GPU, nothing delays the copies)
    holding = re.findall(r"^- (τ\d+), segment (\d+) on (\S+): H = (\d+)$", _section(ex.key, "### 1."), re.M)
    suspend = explained["seg-mpcp-suspend"].evidence
    assert [(a, int(s), d, int(H)) for a, s, d, H in holding] == [
        (ts.label(k) if isinstance(k, int) else k, s, d, H) for k, s, d, H in suspend["holding"]
    ]
    by_hand = [(ts.label(k), j + 1, g.device, g.G_m + g.G_e) for k, t in enumerate(ts) for j, g in enumerate(t.gpu)]
    assert [(a, int(s), d, int(H)) for a, s, d, H in holding] == by_hand
    # 2. the highest-priority GPU task's waiting bounds, by hand (W-MPCP: nothing above it uses the GPU)
    h = ts.gpu_tasks()[0]
    lower = max(ts[k].G for k in ts.gpu_tasks() if k > h)
    others = sum(ts[k].G for k in ts.gpu_tasks() if k != h)
    mpcp_w = re.search(rf"^{ts.label(h)} waits at most W = gpu: (\d+) per request", ex.key, re.M)
    assert int(mpcp_w.group(1)) == lower == suspend["waiting"][h][0][1]
    fifo = explained["seg-fmlp-suspend"].evidence["waiting"][h]
    if not fifo:  # a task above it on its core has no bound under FMLP+
        assert f"{ts.label(h)}'s waiting bound is not computed" in ex.key
    else:
        assert fifo == (("gpu", others if others <= ts[h].D else None),)  # (W-FMLP) by hand
        shown = others if others <= ts[h].D else "> D"
        assert re.search(rf"^{ts.label(h)} waits at most W = gpu: {shown}$", ex.key, re.M)
    # 2-5. every row of every table is the explanation's
    for heading, name in (
        ("### 2–3.", "seg-mpcp-suspend"),
        ("### 3–4.", "seg-mpcp-busy"),
        ("### 5.", "seg-fmlp-suspend"),
    ):
        section = _section(ex.key, heading)
        assert name in section.splitlines()[0]
        assert _rows(section) == _expected_rows(ts, explained[name]), (seed, name)
        assert "\n".join(str(step) for step in explained[name].steps) in section  # the derivation, step by step


@pytest.mark.parametrize("seed", range(50))
def test_every_draw_is_instructive(seed):
    ts = make_exercise("seg", seed).tasksets[0]
    gpu = ts.gpu_tasks()
    assert 3 <= ts.n <= 4 and len(gpu) >= 2 and len({ts[i].core for i in gpu}) == 2  # remote blocking exists
    assert all(t.D == t.T for t in ts) and [t.T for t in ts] == sorted(t.T for t in ts)  # implicit, rate monotonic
    assert any(ts[k].core == ts[i].core for i in gpu for k in range(i + 1, ts.n))  # a task below a GPU task
    h = gpu[0]
    busy = analyses.get("seg-mpcp-busy").explain(ts, 2)
    suspend = analyses.get("seg-mpcp-suspend").explain(ts, 2)
    assert suspend.evidence["waiting"][h][0][1] > 0  # it can be blocked
    assert busy.evidence["response_times"][h] is not None and suspend.evidence["response_times"][h] is not None
    assert (suspend.verdict is True and busy.verdict is False) or suspend.verdict is False


def test_both_coin_outcomes_occur():
    outcomes = {make_exercise("seg", seed).key.count("| seg-mpcp-suspend | schedulable |") for seed in range(12)}
    assert outcomes == {0, 1}


@pytest.mark.parametrize("seed", range(8))
def test_proven_verdicts_hold_in_the_simulator(seed):
    """What the key proves holds in periodic and sporadic runs, WCET and random execution (observed responses ≤ R)."""
    ts = make_exercise("seg", seed).tasksets[0]
    for name, protocol, mode in (
        ("seg-mpcp-busy", "mpcp", "busy"),
        ("seg-mpcp-suspend", "mpcp", "suspend"),
        ("seg-fmlp-suspend", "fmlp+", "suspend"),
    ):
        explained = analyses.get(name).explain(ts, 2)
        if explained.verdict is not True:
            continue
        bounds = explained.evidence["response_times"]
        for run in (
            {},
            {"arrivals": "sporadic", "seed": 1},
            {"arrivals": "sporadic", "execution": "random", "seed": 2},
        ):
            trace = simulate_segmented(ts, 2, protocol=protocol, mode=mode, horizon=20 * max(t.T for t in ts), **run)
            assert trace.schedulable_so_far, (seed, name, run)
            assert all(r is None or r <= b for r, b in zip(trace.response_times, bounds, strict=True))


@pytest.mark.parametrize("seed", [11, "ab1234"])
def test_same_seed_same_bytes(seed):
    a, b = make_exercise("seg", seed), make_exercise("seg", seed)
    assert a.sheet == b.sheet and a.key == b.key
    assert a.sheet.endswith("\n") and not a.sheet.endswith("\n\n")
    assert make_exercise("seg", 12).sheet != make_exercise("seg", 11).sheet


def test_sheet_has_no_answers():
    ex = make_exercise("seg", 5)
    assert (
        "## Answers" not in ex.sheet and "Verdicts" not in ex.sheet and "H = " not in ex.sheet.split("## Questions")[1]
    )
    assert "## Answers" in ex.key


def test_cli_writes_the_seg_sheet_and_key(tmp_path):
    sheet, key = tmp_path / "s.md", tmp_path / "k.md"
    assert main(["exercise", "--topic", "seg", "--seed", "7", "--sheet", str(sheet), "--key", str(key)]) == 0
    assert sheet.read_text(encoding="utf-8") == make_exercise("seg", 7).sheet
    assert key.read_text(encoding="utf-8") == make_exercise("seg", 7).key


def test_cli_check_reads_the_key_s_yaml_block(tmp_path, capsys):
    """The key's closing line says to run `rtsched check` on the YAML block: it reads and decides the same."""
    ex = make_exercise("seg", 3)
    block = ex.sheet.split("```yaml\n", 1)[1].split("```", 1)[0]
    path = tmp_path / "set.yaml"
    path.write_text(block, encoding="utf-8")
    status = main(["check", str(path), "-m", "2", "--tests", ",".join(ANALYSES)])
    out = capsys.readouterr().out
    for name, verdict in _key_verdicts(ex.key).items():
        assert re.search(rf"^{re.escape(name)} .* {re.escape(verdict)} ", out, re.M), (name, out)
    assert status in (0, 1)
