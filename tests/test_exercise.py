"""`rtsched exercise`: reproducible sheets, keys that agree with the analyses, clear errors."""

import re

import pytest

from rtsched import check
from rtsched.analyses.hierarchical.mpr import MPRInterface
from rtsched.cli import main
from rtsched.exercise import TOPICS, make_exercise, parse_tasksets, seed_number
from rtsched.result import verdict_text

SEEDS = (0, 1, 17, "s1234567")


@pytest.mark.parametrize("topic", list(TOPICS))
def test_same_seed_same_bytes_other_seed_other_sheet(topic):
    a, b = make_exercise(topic, 11), make_exercise(topic, 11)
    assert a.sheet == b.sheet and a.key == b.key
    assert make_exercise(topic, 12).sheet != a.sheet
    assert make_exercise(topic, "ab1234").sheet != make_exercise(topic, "ab1235").sheet


def test_seed_text_and_number():
    assert seed_number(42) == seed_number("42") == 42
    assert seed_number("ab1234") == seed_number(" ab1234 ") != seed_number("ab1235")


def _key_verdicts(key: str) -> dict[str, str]:
    table = key.split("## Verdicts (rtsched)", 1)[1]
    return {m.group(1): m.group(2) for m in re.finditer(r"^\| ([^ |]+) \| ([^|]+?) \|", table, re.M)} | {}


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("topic", [t for t in TOPICS if t not in ("mpr", "dag", "mc", "seg")])  # test_exercise_*.py
def test_every_key_agrees_with_the_analyses_on_the_sheets_sets(topic, seed):
    ex = make_exercise(topic, seed)
    sets = parse_tasksets(ex.sheet)
    assert [s.rows() for s in sets] == [s.rows() for s in ex.tasksets] and len(sets) == 1
    stated = _key_verdicts(ex.key)
    stated.pop("analysis", None)
    assert sorted(stated) == sorted(ex.analyses)
    report = check(sets[0], ex.m, tests=list(ex.analyses))  # the kernels, independent of the key's path
    for name in ex.analyses:
        r = report[name]
        assert stated[name] == verdict_text(r.verdict, r.kind), (topic, seed, name)
    if topic in ("gedf-tests", "partitioning"):  # instructive: the tests or heuristics disagree
        assert len({report[name].verdict for name in ex.analyses}) > 1
    if topic == "uni-edf":
        assert sets[0].utilization <= 1 and sum(c / min(d, t) for c, d, t in sets[0].rows()) > 1
    if topic == "uni-fp":
        assert report["rm-ll"].verdict is False


@pytest.mark.parametrize("seed", SEEDS)
def test_mpr_key_values_are_the_librarys(seed):
    ex = make_exercise("mpr", seed)
    Pi, Theta, mp = (int(x) for x in re.search(r"Γ = ⟨Π=(\d+), Θ=(\d+), m'=(\d+)⟩", ex.sheet).groups())
    g = MPRInterface(Pi, Theta, mp)
    assert g.beta > 0 and g.alpha >= 1
    values = re.findall(r"^  (?:q = .*|t' ≤ 0.*)sbf\((\d+)\) = (?:.* = )?(\d+)$", ex.key, re.M)
    asked = re.search(r"sbf\(t\) and lsbf\(t\) for t = ([\d, ]+)\.", ex.sheet).group(1)
    assert [int(t) for t, _ in values] == [int(x) for x in asked.split(", ")]
    assert all(g.sbf(int(t)) == int(v) for t, v in values)
    assert any(g.sbf(int(t)) == 0 for t, _ in values)  # one t inside the blackout


def test_cli_writes_identical_files_and_lists_topics(capsys, tmp_path):
    for run in ("a", "b"):
        status = main(
            [
                "exercise",
                "--topic",
                "gedf-tests",
                "--seed",
                "7",
                "--sheet",
                str(tmp_path / f"{run}-s.md"),
                "--key",
                str(tmp_path / f"{run}-k.md"),
            ]
        )
        assert status == 0
    assert (tmp_path / "a-s.md").read_bytes() == (tmp_path / "b-s.md").read_bytes()
    assert (tmp_path / "a-k.md").read_bytes() == (tmp_path / "b-k.md").read_bytes()
    assert (tmp_path / "a-s.md").read_text(encoding="utf-8") == make_exercise("gedf-tests", 7).sheet
    capsys.readouterr()
    assert main(["exercise", "--list-topics"]) == 0
    listed = [line.split()[0] for line in capsys.readouterr().out.splitlines()]
    assert listed == list(TOPICS)


@pytest.mark.parametrize(
    ("args", "field"),
    [
        (["--topic", "nope", "--seed", "1"], "--topic"),
        (["--seed", "1"], "--topic"),
        (["--topic", "mpr"], "--seed"),
        (["--topic", "mpr", "--seed", "1", "--sheet", "/nonexistent-dir/s.md"], "--sheet"),
    ],
)
def test_bad_input_exit_2_with_one_line(capsys, args, field):
    assert main(["exercise", *args]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("rtsched: error:") and field in err
    assert "Traceback" not in err
