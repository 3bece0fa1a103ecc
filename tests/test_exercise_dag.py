"""`rtsched exercise --topic dag`: the sheet's DAG set reads back, the key's numbers are the library's
(volume, length, Graham's bound, the simulator's response times, federated's n) and its verdicts are
the analyses' (through rtsched.check, the kernels), the draw is instructive, the same seed gives the
same bytes."""

import re
from fractions import Fraction

import numpy as np
import pytest

from rtsched import check
from rtsched.cli import main
from rtsched.dag import DAGTask, DAGTaskSet, simulate_dag
from rtsched.exercise import TOPICS, graham_bound, make_exercise, parse_dag_tasksets
from rtsched.generators.dag import fork_join
from rtsched.result import verdict_text

SEEDS = (0, 1, 2, 3, 17, 42, "s1234567")


def _key_verdicts(key: str) -> dict[str, str]:
    table = key.split("## Verdicts (rtsched)", 1)[1]
    found = {m.group(1): m.group(2) for m in re.finditer(r"^\| ([^ |]+) \| ([^|]+?) \|", table, re.M)}
    found.pop("analysis", None)
    return found


def _number(text: str) -> Fraction:
    """A number as the key shows it with exact numbers on: ``7``, ``39/2`` or ``39/2 (= 19.5)``."""
    return Fraction(text.split(" (")[0])


def test_topic_is_listed():
    assert "dag" in TOPICS


@pytest.mark.parametrize("seed", SEEDS)
def test_key_agrees_with_the_library(seed):
    ex = make_exercise("dag", seed)
    sets = parse_dag_tasksets(ex.sheet)
    assert sets == list(ex.tasksets) and len(sets) == 1
    assert parse_dag_tasksets(ex.key) == sets
    ts, m = sets[0], ex.m
    assert ex.analyses == ("dag-federated", "dag-gedf-cab")
    stated = _key_verdicts(ex.key)
    assert sorted(stated) == sorted(ex.analyses)
    report = check(ts, m, tests=list(ex.analyses))  # the kernels, independent of the key's path
    for name in ex.analyses:
        assert stated[name] == verdict_text(report[name].verdict, report[name].kind), (seed, name)
    # 1. vol, len, a longest path
    rows = re.findall(r"^\| (τ\d+) \| (\d+) \| (\d+) \(([^)]*)\) \| (\d+) \|", ex.key, re.M)
    assert len(rows) == ts.n
    for i, (label, vol, length, path, D) in enumerate(rows):
        task = ts[i]
        assert (label, int(vol), int(length), int(D)) == (ts.label(i), task.volume, task.length, task.D)
        vertices = [int(v) for v in re.findall(r"v(\d+)", path)]
        assert sum(task.wcets[v] for v in vertices) == task.length
        assert all((u, v) in task.edges for u, v in zip(vertices, vertices[1:], strict=False))
    # 2. Graham's bound and the simulator, for the heavy task the sheet names
    h = int(re.search(r"For τ(\d+) alone, compute Graham's bound", ex.sheet).group(1))
    heavy = ts[h]
    lines = re.findall(r"^k = (\d+): .* = (\S+(?: \([^)]*\))?) ([≤>]) D = (\d+); .* gives R = (\d+)$", ex.key, re.M)
    assert [int(k) for k, *_ in lines] == list(range(1, m + 1))
    for k, bound, relation, D, R in lines:
        k = int(k)
        assert (
            _number(bound)
            == graham_bound(heavy.volume, heavy.length, k)
            == heavy.length + Fraction(heavy.volume - heavy.length, k)
        )
        assert (relation == "≤") == (graham_bound(heavy.volume, heavy.length, k) <= heavy.D) and int(D) == heavy.D
        run = simulate_dag(DAGTaskSet([heavy]), k, releases=[[0]], horizon=heavy.volume + 1, record=True)
        assert int(R) == run.response_times[0] <= graham_bound(heavy.volume, heavy.length, k)
    least = int(re.search(r"guarantees the deadline from k = (\d+) cores", ex.key).group(1))
    n = report["dag-federated"].evidence["n"][h]
    assert least == n == -((heavy.length - heavy.volume) // (heavy.D - heavy.length))
    # instructive: a heavy task that some number of cores can run, and a light task
    assert heavy.volume > heavy.D > heavy.length
    assert any(t.volume <= t.D for t in ts) and ts.utilization <= m


def test_both_federated_verdicts_occur():
    verdicts = {make_exercise("dag", seed).key.count("| dag-federated | schedulable |") for seed in range(12)}
    assert verdicts == {0, 1}


@pytest.mark.parametrize("topic_seed", [11, "ab1234"])
def test_same_seed_same_bytes(topic_seed):
    a, b = make_exercise("dag", topic_seed), make_exercise("dag", topic_seed)
    assert a.sheet == b.sheet and a.key == b.key
    assert a.sheet.endswith("\n") and not a.sheet.endswith("\n\n")


def test_sheet_has_no_answers():
    ex = make_exercise("dag", 5)
    assert "## Answers" not in ex.sheet and "Verdicts" not in ex.sheet
    assert "## Answers" in ex.key


def test_graham_bound_holds_on_random_dags():
    """graham_bound is an upper bound on every simulated response time (and max(len, vol/m) a lower one)."""
    rng = np.random.default_rng(2026)
    for _ in range(40):
        wcets, edges = fork_join(rng, max_depth=3, max_branches=4, p_par=0.7, p_term=0.3, wcet=(1, 9))
        task = DAGTask(wcets, edges, T=10**4, D=10**4)
        for m in (1, 2, 3, 5):
            for execution, seed in (("wcet", 0), ("random", 1), ("random", 2)):
                run = simulate_dag(DAGTaskSet([task]), m, releases=[[0]], execution=execution, seed=seed)
                R = run.response_times[0]
                assert R <= graham_bound(task.volume, task.length, m)
                if execution == "wcet":
                    assert R >= max(task.length, Fraction(task.volume, m))


def test_cli_writes_the_dag_sheet_and_key(tmp_path):
    sheet, key = tmp_path / "s.md", tmp_path / "k.md"
    assert main(["exercise", "--topic", "dag", "--seed", "7", "--sheet", str(sheet), "--key", str(key)]) == 0
    assert sheet.read_text(encoding="utf-8") == make_exercise("dag", 7).sheet
    assert key.read_text(encoding="utf-8") == make_exercise("dag", 7).key
