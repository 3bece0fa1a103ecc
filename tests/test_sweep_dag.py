"""DAG experiments in the sweep engine (``[generator] kind = "dag"``; papers/dag-generators.md, "Sweeps").

Tiny experiments (m = 4, a handful of sets of 3 DAG tasks per point). The runs use one cheap
analysis, dag-gedf-cab (Li et al. 2013's capacity augmentation bound, implicit deadlines): the
engine is what is tested here, the analyses are tested in tests/analyses/dag/. Which analyses a
DAG sweep takes is asked of the registry by workload kind, never by name, since DAG analyses
keep being added.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import rtsched.sweep.executors as executors
from rtsched import registry
from rtsched.dag import DAGBatch
from rtsched.errors import InputError
from rtsched.generators.dag import dag_tasksets
from rtsched.platform import Identical
from rtsched.sweep import load_experiment, parse_experiment, run
from rtsched.sweep.experiment import axis_label
from rtsched.sweep.kinds import DAG_SHAPE_DEFAULTS
from rtsched.sweep.plot import legend_label
from rtsched.sweep.units import plan, run_unit
from rtsched.testing.experiments import experiment_toml
from rtsched.workloads import DAG_TASKSETS

#: The one analysis the runs use (cheap: a closed-form bound on vol, len and T).
CAB = "dag-gedf-cab"


def tiny_dag(
    *,
    m: str = "4",
    n: str = "3",
    points: str = "[0.5, 1.5, 2.5]",
    sets: int = 12,
    per_unit: int = 4,
    names: str = f'["{CAB}"]',
    generator: dict[str, str] | None = None,
    variable: str = "utilization",
) -> str:
    """A small DAG experiment as TOML text; ``[generator]`` entries from line 8 (kind, n, then these)."""
    entries = {
        "kind": '"dag"',
        "n": n,
        "shape": '"fork-join"',
        "max_depth": "2",
        "max_branches": "4",
        "p_par": "0.7",
        "p_term": "0.3",
        "wcet": "[1, 20]",
        "deadlines": '"implicit"',
    }
    if generator is not None:
        entries = {**entries, **generator}
        entries = {k: v for k, v in entries.items() if v is not None}
    return experiment_toml(
        name="tiny-dag", seed=11, m=m, generator=entries, points=points,
        sets_per_point=sets, sets_per_unit=per_unit, names=names, variable=variable,
    )  # fmt: skip


def write(tmp_path: Path, text: str, name: str = "dag.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def dag_names() -> set[str]:
    """Every registered analysis of DAG task sets, whatever its name."""
    return {e.name for e in registry.all_entries() if e.workload is DAG_TASKSETS}


# ---------------------------------------------------------------------------------------------
# Parsing, defaults, analyses selected by workload kind
# ---------------------------------------------------------------------------------------------
def test_shape_defaults_are_written_into_the_canonical_form() -> None:
    text = tiny_dag(generator={"max_branches": None, "p_par": "0.6", "p_term": None, "wcet": None})
    gen = parse_experiment(text).canonical()["generator"]
    assert gen["kind"] == "dag" and gen["shape"] == "fork-join" and gen["n"] == 3
    assert gen["max_depth"] == 2 and gen["p_par"] == 0.6  # given
    assert gen["max_branches"] == DAG_SHAPE_DEFAULTS["fork-join"]["max_branches"]  # defaults
    assert gen["p_term"] == DAG_SHAPE_DEFAULTS["fork-join"]["p_term"]
    assert gen["wcet"] == [1, 100] and gen["utilizations"] == "uunifast" and gen["umax"] == 1.0
    assert not {"vertices", "p", "layers", "width"} & set(gen)  # other shapes' keys are not filled in
    gnp = parse_experiment(
        tiny_dag(generator={"shape": '"gnp"', "max_depth": None, "max_branches": None, "p_par": None, "p_term": None})
    )
    gen = gnp.canonical()["generator"]
    assert gen["shape"] == "gnp" and gen["vertices"] == 20 and gen["p"] == 0.1
    assert not {"max_depth", "p_par"} & set(gen)


def test_default_names_select_every_dag_analysis_by_workload_kind() -> None:
    """``names`` left out (or "all") is every analysis of DAG task sets; "featured" only featured ones."""
    exp = parse_experiment(tiny_dag().replace(f'names = ["{CAB}"]\n', ""))
    assert exp.analyses_selection == "all"
    assert set(exp.analyses) == dag_names() and CAB in exp.analyses
    assert parse_experiment(tiny_dag(names='"all"')).analyses == exp.analyses
    assert parse_experiment(exp.to_toml()).fingerprint() == exp.fingerprint()
    featured = sorted(e.name for e in registry.all_entries(featured_only=True) if e.workload is DAG_TASKSETS)
    if featured:
        assert sorted(parse_experiment(tiny_dag(names='"featured"')).analyses) == featured
    else:
        with pytest.raises(InputError, match='no featured analysis of DAG task sets.*names = "all"'):
            parse_experiment(tiny_dag(names='"featured"'))
    # A task-set experiment's selections hold no DAG analysis (and vice versa).
    taskset = parse_experiment(
        {
            "platform": {"m": 4},
            "generator": {"n": 5},
            "sweep": {"variable": "U/m", "points": [0.5], "sets_per_point": 4},
        }
    )
    assert not set(taskset.analyses) & dag_names()
    every = parse_experiment(
        {"platform": {"m": 4}, "generator": {"n": 5}, "sweep": {"variable": "U/m", "points": [0.5], "sets_per_point": 4}, "analyses": {"names": "all"}}
    )  # fmt: skip
    assert every.analyses and all(registry.get(name).workload.name == "taskset" for name in every.analyses)


def test_plan_skips_selected_analyses_that_do_not_apply() -> None:
    """Constrained deadlines: an analysis for implicit deadlines is skipped (with the reason) under "all"."""
    exp = parse_experiment(tiny_dag(names='"all"', generator={"deadlines": '"constrained"'}))
    the_plan = plan(exp)
    batch = DAGBatch.from_tasksets(
        dag_tasksets(np.random.default_rng(0), n_tasks=2, utilization=1.0, size=1, deadlines="constrained")
    )
    applies = {name for name in dag_names() if registry.get(name).supports(Identical(4), batch.deadlines) is None}
    assert set(the_plan.analyses) == applies
    assert {name for name, _ in the_plan.skipped} == dag_names() - applies
    assert (CAB, "needs implicit deadlines (D = T) (m = 4, constrained deadlines)") in the_plan.skipped


def test_shape_parameters_can_be_swept() -> None:
    text = tiny_dag(points="[1.0]", generator={"p_par": None})
    text = text.replace("[sweep]", '[sweep]\nby = "generator.p_par"\nby_points = [0.2, 0.7]')
    exp = parse_experiment(text)
    assert "p_par" not in exp.canonical()["generator"]
    assert [dict(c.generator)["p_par"] for c in plan(exp).configurations] == [0.2, 0.7]
    assert parse_experiment(exp.to_toml()).fingerprint() == exp.fingerprint()
    depth = tiny_dag(points="[1.0]", generator={"max_depth": None}).replace(
        "[sweep]", '[sweep]\nby = "generator.max_depth"\nby_points = [0, 1, 3]'
    )
    assert [dict(c.generator)["max_depth"] for c in plan(parse_experiment(depth)).configurations] == [0, 1, 3]


def test_shape_can_be_swept_each_with_its_defaults() -> None:
    fork_join_keys = {"max_depth": None, "max_branches": None, "p_par": None, "p_term": None, "shape": None}
    text = tiny_dag(points="[1.0]", sets=4, generator={**fork_join_keys, "p": "0.3"})
    text = text.replace("[sweep]", '[sweep]\nby = "generator.shape"\nby_points = ["gnp", "layered"]')
    the_plan = plan(parse_experiment(text))
    gens = [dict(c.generator) for c in the_plan.configurations]
    assert [g["shape"] for g in gens] == ["gnp", "layered"] and all(g["p"] == 0.3 for g in gens)
    results = [run_unit(u) for u in the_plan.units]
    assert [r["sets"] for r in results] == [4, 4]


def test_a_range_of_n_draws_sets_of_every_size() -> None:
    exp = parse_experiment(tiny_dag(n="{min = 1, max = 4}", points="[2.0]", sets=16, per_unit=16))
    spec = plan(exp).units[0]
    result = run_unit(spec)
    assert result["sets"] == 16 and 0 < result["utilization_sum"] <= 16 * 2.0


# ---------------------------------------------------------------------------------------------
# Bad keys: one line naming the file, the line and the key; exit status 2 from the CLI
# ---------------------------------------------------------------------------------------------
#: Edits of tiny_dag(): replaced text, its replacement, the key, its line, words of the error. The
#: [generator] lines: 8 kind, 9 n, 10 shape, 11 max_depth, 12 max_branches, 13 p_par, 14 p_term,
#: 15 wcet, 16 deadlines; line 25 is [analyses] names.
BAD_DAG_KEYS = {
    "unknown-shape": ('shape = "fork-join"', 'shape = "tree"', "generator.shape", 10, ("'tree'", "fork-join, gnp, layered")),
    "key-of-another-shape": ('shape = "fork-join"', 'shape = "gnp"', "generator.max_depth", 11, ("fork-join shape", 'shape = "gnp"')),
    "unknown-key": ("max_depth = 2", "depth = 2", "generator.depth", 11, ("unknown key 'depth'", "max_depth")),
    "negative-depth": ("max_depth = 2", "max_depth = -1", "generator.max_depth", 11, ("non-negative integer",)),
    "one-branch": ("max_branches = 4", "max_branches = 1", "generator.max_branches", 12, ("max_branches", ">= 2")),
    "p_par-above-one": ("p_par = 0.7", "p_par = 1.5", "generator.p_par", 13, ("probability",)),
    "weights-zero": ("p_par = 0.7\np_term = 0.3", "p_par = 0.0\np_term = 0.0", "generator.p_par", 13, ("p_par + p_term",)),
    "wcet-backwards": ("wcet = [1, 20]", "wcet = [20, 1]", "generator.wcet", 15, ("1 <= lo <= hi",)),
    "wcet-zero": ("wcet = [1, 20]", "wcet = [0, 20]", "generator.wcet", 15, ("1 <= lo <= hi",)),
    "wcet-float": ("wcet = [1, 20]", "wcet = [1.5, 20]", "generator.wcet", 15, ("integer",)),
    "deadline-model": ('deadlines = "implicit"', 'deadlines = "uniform"', "generator.deadlines", 16, ("implicit, constrained",)),
    "utilization-method": ('deadlines = "implicit"', 'utilizations = "dirichlet"', "generator.utilizations", 16, ("uunifast",)),
    "root-rule": ("max_depth = 2", 'max_depth = 2\nroot = "always"', "generator.root", 12, ("'always'", "drawn, fork")),
    "priority-order": ('deadlines = "implicit"', 'deadlines = "implicit"\npriorities = "rm"', "generator.priorities", 17, ("'rm'", "drawn, deadline-monotonic")),
    "n-zero": ("n = 3", "n = 0", "generator.n", 9, ("positive integer",)),
    "gnp-vertices": (
        'shape = "fork-join"\nmax_depth = 2\nmax_branches = 4\np_par = 0.7\np_term = 0.3',
        'shape = "gnp"\nvertices = 0\np = 0.5',
        "generator.vertices", 11, ("vertices must be",),
    ),
    "task-set-analysis": (f'names = ["{CAB}"]', 'names = ["gfb"]', "analyses.names", 25, ("'gfb'", 'kind = "dag"')),
}  # fmt: skip


@pytest.mark.parametrize(("old", "new", "key", "line", "words"), BAD_DAG_KEYS.values(), ids=BAD_DAG_KEYS)
def test_bad_dag_keys_name_file_line_and_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], old: str, new: str, key: str, line: int, words: tuple[str, ...]
) -> None:
    from rtsched.cli import main

    text = tiny_dag()
    assert old in text
    path = write(tmp_path, text.replace(old, new))
    with pytest.raises(InputError) as info:
        load_experiment(path)
    err = info.value
    assert (err.file, err.line, err.field) == (str(path), line, key), str(err)
    for word in words:
        assert word in err.message, err.message
    assert main(["sweep", str(path), "--out", str(tmp_path / "out"), "--workers", "0", "-q", "--no-plot"]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and f"{path}, line {line}, field {key}: " in lines[0], lines
    assert not (tmp_path / "out").exists()


def test_dag_analysis_in_a_task_set_experiment_names_the_dag_kind() -> None:
    text = experiment_toml(
        name="t", seed=1, m="4", generator={"n": "5"}, points="[0.5]", sets_per_point=4, sets_per_unit=4,
        names=f'["{CAB}"]',
    )  # fmt: skip
    with pytest.raises(InputError, match=r'analyses DAG task sets.*\[generator\] kind = "dag"') as info:
        parse_experiment(text, file="ts.toml")
    assert (info.value.field, info.value.line) == ("analyses.names", 17)


# ---------------------------------------------------------------------------------------------
# Identity: fingerprints
# ---------------------------------------------------------------------------------------------
def test_fingerprint_is_stable() -> None:
    exp = parse_experiment(tiny_dag())
    # The same in another process: test_rtsched_sweep_file_writes_a_dag_plot. The same
    # through the canonical TOML, with the keys in another order, with defaults written out or left out.
    assert parse_experiment(exp.to_toml()).fingerprint() == exp.fingerprint()
    lines = tiny_dag().splitlines()
    reordered = "\n".join(lines[:8] + list(reversed(lines[8:17])) + lines[17:]) + "\n"
    assert parse_experiment(reordered).fingerprint() == exp.fingerprint()
    explicit = tiny_dag(generator={"utilizations": '"uunifast"', "umax": "1.0"})
    assert parse_experiment(explicit).fingerprint() == exp.fingerprint()
    assert parse_experiment(tiny_dag(generator={"wcet": "[1, 20]"})).fingerprint() == exp.fingerprint()


def test_canonical_form_is_pinned() -> None:
    """The canonical form (what the fingerprint hashes, with the rtsched version) of a DAG experiment.

    A change here changes the fingerprint of every DAG experiment: stored results are then not
    reused. Change it only on purpose.
    """
    assert parse_experiment(tiny_dag()).canonical() == {
        "name": "tiny-dag",
        "description": "",
        "seed": 11,
        "platform": {"m": [4]},
        "generator": {
            "kind": "dag", "deadlines": "implicit", "max_branches": 4, "max_depth": 2, "n": 3, "p_par": 0.7,
            "p_term": 0.3, "shape": "fork-join", "umax": 1.0, "utilizations": "uunifast", "wcet": [1, 20],
        },
        "sweep": {"variable": "utilization", "points": [0.5, 1.5, 2.5], "sets_per_point": 12, "sets_per_unit": 4},
        "analyses": {"names": [CAB], "selection": "list"},
    }  # fmt: skip


@pytest.mark.parametrize(
    "change",
    [
        {"max_depth": "3"}, {"max_branches": "5"}, {"p_par": "0.6"}, {"p_term": "0.2"}, {"wcet": "[1, 21]"},
        {"deadlines": '"constrained"'}, {"utilizations": '"randfixedsum"'}, {"umax": "2.0"}, {"n": "4"},
        {"max_tries": "50"},
    ],
    ids=lambda change: next(iter(change)),
)  # fmt: skip
def test_fingerprint_covers_every_dag_parameter(change: dict[str, str]) -> None:
    assert parse_experiment(tiny_dag(generator=change)).fingerprint() != parse_experiment(tiny_dag()).fingerprint()


# ---------------------------------------------------------------------------------------------
# Seeds: a unit is a function of the experiment and its index; workers do not matter
# ---------------------------------------------------------------------------------------------
def test_unit_draws_dag_sets_from_its_seed_sequence() -> None:
    exp = parse_experiment(tiny_dag())
    the_plan = plan(exp)
    assert len(the_plan.units) == 3 * 3 and all(u.kind == "dag" and u.m == 4 for u in the_plan.units)
    spec = the_plan.units[4]  # U = 1.5, second chunk
    result = run_unit(spec)
    assert result == {**run_unit(spec), "seconds": result["seconds"]}
    rng = np.random.default_rng(np.random.SeedSequence(11, spawn_key=(4,)))
    sets = dag_tasksets(
        rng, n_tasks=3, utilization=1.5, size=4, shape="fork-join", deadlines="implicit", utilizations="uunifast",
        umax=1.0, shape_params={"max_depth": 2, "max_branches": 4, "p_par": 0.7, "p_term": 0.3, "wcet": (1, 20)},
    )  # fmt: skip
    batch = DAGBatch.from_tasksets(sets)
    assert result["utilization_sum"] == float(np.sum(batch.volume / batch.T))
    assert 1.5 * 4 * 0.75 < result["utilization_sum"] <= 1.5 * 4  # T = ceil(vol/u) rounds U down
    expected = registry.get(CAB).status(batch, Identical(4))
    assert result["accepted"][CAB] == int(np.count_nonzero(expected == 1))
    assert result["unknown"][CAB] == int(np.count_nonzero(expected == -1))


def test_same_seed_same_verdicts_with_one_and_two_workers(inline_and_pooled) -> None:
    inline, pooled = inline_and_pooled(parse_experiment(tiny_dag(points="[0.5, 1.0, 1.5, 2.0]", sets=8)))
    assert inline.sets == pooled.sets == 4 * 8 and inline.analyses == (CAB,)
    accepted = [row.accepted for row in inline.rows]
    assert accepted[0] == 8 and accepted[-1] < 8  # the bound separates the points: not a vacuous comparison


@pytest.mark.slow  # about 20 s: a LocalCluster of two processes
def test_dask_local_cluster_equals_local_run(tmp_path: Path) -> None:
    distributed = pytest.importorskip("distributed")
    exp = parse_experiment(tiny_dag())
    local = run(exp, tmp_path / "local", workers=0, progress="none", plot=False)
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None,
        # No dashboard, but the scheduler still serves HTTP (health, metrics) on 8787 unless told:
        # a free port, else a second cluster (pytest -n 2, another user) fails on "Port 8787 is in use".
        scheduler_kwargs={"dashboard_address": ":0"},
    ) as cluster:  # fmt: skip
        remote = run(exp, tmp_path / "dask", scheduler=cluster.scheduler_address, progress="none", plot=False)
    assert remote.rows == local.rows
    assert (tmp_path / "local" / "results.csv").read_bytes() == (tmp_path / "dask" / "results.csv").read_bytes()


# ---------------------------------------------------------------------------------------------
# Store: an interrupted sweep resumes to the uninterrupted results
# ---------------------------------------------------------------------------------------------
class _Interrupted(Exception):
    pass


def test_interrupted_sweep_resumes_with_identical_results(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    exp = parse_experiment(tiny_dag())
    clean = run(exp, tmp_path / "clean", workers=0, progress="none", plot=False)
    real = executors.run_unit
    done: list[int] = []

    def dies_after_four(spec):
        if len(done) == 4:
            raise _Interrupted
        done.append(spec.index)
        return real(spec)

    monkeypatch.setattr(executors, "run_unit", dies_after_four)
    out = tmp_path / "interrupted"
    with pytest.raises(_Interrupted):
        run(exp, out, workers=0, progress="none", plot=False, stream=io.StringIO())
    assert len(list((out / "units").glob("0*.json"))) == 4
    monkeypatch.setattr(executors, "run_unit", real)
    resumed = run(exp, out, workers=0, progress="none", plot=False)
    assert resumed.units_total == 9 and resumed.units_reused == 4 and resumed.units_run == 5
    assert resumed.rows == clean.rows
    assert (out / "results.csv").read_bytes() == (tmp_path / "clean" / "results.csv").read_bytes()
    record = json.loads((out / "units" / "000000.json").read_text())
    assert set(record["accepted"]) == {CAB}


def test_units_record_the_dag_model_code_and_are_redrawn_when_it_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The digest of a DAG unit covers rtsched.dag.model too (DAGBatch's volumes and lengths), not only the generators."""
    from rtsched.sweep.kinds import DAGKind, kind_named
    from rtsched.sweep.store import generator_digest

    exp = parse_experiment(tiny_dag(points="[1.0]", sets=8))
    out = tmp_path / "out"
    first = run(exp, out, workers=0, progress="none", plot=False)
    digest = json.loads((out / "units" / "000000.json").read_text())["generator"]
    assert digest == kind_named("dag").code_digest(generator_digest()) != generator_digest()
    assert kind_named("taskset").code_digest(generator_digest()) == generator_digest()  # task-set stores keep theirs
    monkeypatch.setattr(DAGKind, "code_digest", lambda self, base: "another DAG model")
    stream = io.StringIO()
    again = run(exp, out, workers=0, progress="none", plot=False, stream=stream)
    assert again.units_run == again.units_total == 2 and again.rows == first.rows
    assert "generator" in stream.getvalue()


@pytest.mark.slow  # a subprocess sweep of 90 units, killed, then resumed: tens of seconds on a loaded machine
def test_killed_cli_sweep_resumes_with_identical_results(tmp_path: Path) -> None:
    import signal
    import time

    path = write(tmp_path, tiny_dag(points="[0.5, 1.0, 1.5]", sets=60, per_unit=2))  # 90 units
    out = tmp_path / "killed"
    command = [
        sys.executable,
        "-m",
        "rtsched.cli",
        "sweep",
        str(path),
        "--out",
        str(out),
        "--workers",
        "0",
        "-q",
        "--no-plot",
    ]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    units = out / "units"
    try:
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline and process.poll() is None:
            if units.is_dir() and sum(1 for p in units.iterdir() if p.suffix == ".json") >= 5:
                break
            time.sleep(0.005)
        if process.poll() is not None:
            err = process.stderr.read().decode() if process.stderr else ""
            pytest.fail(f"the sweep ended before it could be killed: {err[-2000:]}")
        process.send_signal(signal.SIGKILL)
    finally:
        process.wait(timeout=30)
        if process.stderr:
            process.stderr.close()
    done = sum(1 for p in units.iterdir() if p.suffix == ".json" and not p.name.startswith("."))
    assert 5 <= done < 90, done
    resumed = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
    assert resumed.returncode == 0, resumed.stderr
    run(load_experiment(path), tmp_path / "clean", workers=0, progress="none", plot=False)
    assert (out / "results.csv").read_bytes() == (tmp_path / "clean" / "results.csv").read_bytes()


# ---------------------------------------------------------------------------------------------
# End to end: `rtsched sweep FILE` writes the tables and a captioned plot
# ---------------------------------------------------------------------------------------------
def test_rtsched_sweep_file_writes_a_dag_plot(tmp_path: Path) -> None:
    path = write(tmp_path, tiny_dag(sets=8, per_unit=8, variable="U/m", points="[0.15, 0.3, 0.45]"))
    out = tmp_path / "out"
    command = [sys.executable, "-m", "rtsched.cli", "sweep", str(path), "--out", str(out), "--workers", "0"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "24 DAG task sets" in done.stdout and "wrote" in done.stdout
    for name in ("results.csv", "weighted.csv", "acceptance.png", "acceptance.svg"):
        assert (out / name).stat().st_size > 0, name
    svg = (out / "acceptance.svg").read_text(encoding="utf-8")
    for words in ("U/m = Σ vol/T / m", "DAG task sets", "nested fork-join", "8 sets per point", "m = 4 processors"):
        assert words in svg, words
    assert legend_label(CAB)[0].split(":")[0] in svg  # the legend (wrapped) names the policy and the paper
    assert "Time resolution" in svg and "periods None" not in svg  # the DAG kind's sentence, not the task sets'

    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["experiment"]["generator"]["kind"] == "dag"
    # The fingerprint computed in that process equals this one's (fingerprint stability across processes).
    assert manifest["fingerprint"] == load_experiment(path).fingerprint()


def test_labels_and_legends_of_dag_sweeps() -> None:
    assert axis_label("utilization", "dag").startswith("Total utilization U = Σ vol/T")
    assert axis_label("n", "dag").startswith("Number of DAG tasks")
    assert axis_label("generator.p_par", "dag").startswith("Fork weight p_par")
    assert axis_label("utilization") != axis_label("utilization", "dag")
    for name in dag_names():
        entry = registry.get(name)
        label, policy, _ = legend_label(name)
        assert policy == entry.policy and "DAG tasks" not in label, label
        assert not label.startswith(f"{entry.policy} ·"), f"{name}: the policy {entry.policy!r} has no words: {label}"


def test_root_fork_and_deadline_monotonic_reach_the_generator():
    """``root = "fork"`` and ``priorities = "deadline-monotonic"`` in [generator] are what the
    DAG kind hands dag_tasksets: every task of every set forks at its root, tasks sorted by D."""
    import numpy as np

    from rtsched.sweep.kinds import kind_named

    params = {"shape": "fork-join", "max_depth": 2, "root": "fork", "priorities": "deadline-monotonic",
              "deadlines": "constrained"}  # fmt: skip
    drawn = kind_named("dag").generate(np.random.default_rng(3), n=4, utilization=2.0, size=30, m=4, params=params)
    sets = list(drawn.batch)
    assert len(sets) == 30
    for ts in sets:
        assert all(task.n >= 4 for task in ts)  # fork, >= 2 branches, join
        assert [task.D for task in ts] == sorted(task.D for task in ts)


# ---------------------------------------------------------------------------------------------
# Typed DAGs: [generator] types and [platform] units (a typed platform)
# ---------------------------------------------------------------------------------------------
TYPED = ("dag-typed-han2019", "dag-typed-federated")


def tiny_typed(*, units: str | None = "{gpu = 2}", types: str | None = "{cpu = 0.7, gpu = 0.3}", **options) -> str:
    """tiny_dag with vertex types and a typed platform (m = 4 cpu units plus ``units``)."""
    generator = {"types": types, "deadlines": '"constrained"', **options.pop("generator", {})}
    options.setdefault("names", json.dumps(list(TYPED)))
    text = tiny_dag(generator=generator, **options)
    if units is not None:
        text = text.replace("\n[generator]", f"units = {units}\n\n[generator]", 1)
    return text


def test_typed_experiment_canonical_form_and_round_trip() -> None:
    exp = parse_experiment(tiny_typed())
    canonical = exp.canonical()
    assert canonical["platform"] == {"m": [4], "units": {"gpu": 2}}
    assert canonical["generator"]["types"] == {"cpu": 0.7, "gpu": 0.3}
    assert exp.units == (("gpu", 2),) and dict(exp.generator)["types"] == (("cpu", 0.7), ("gpu", 0.3))
    again = parse_experiment(exp.to_toml())
    assert again.canonical() == canonical and again.fingerprint() == exp.fingerprint()
    # the order of the table does not matter; the weights are part of the identity, and so are the units
    assert parse_experiment(tiny_typed(types="{gpu = 0.3, cpu = 0.7}")).fingerprint() == exp.fingerprint()
    assert parse_experiment(tiny_typed(types="{cpu = 0.6, gpu = 0.4}")).fingerprint() != exp.fingerprint()
    assert parse_experiment(tiny_typed(units="{gpu = 3}")).fingerprint() != exp.fingerprint()
    assert "vertex types cpu 0.7, gpu 0.3 (sources and sinks cpu)" in exp.caption()
    assert "typed platform: m = 4 cpu units and 2 gpu units" in exp.caption()


def test_untyped_dag_experiments_keep_their_canonical_form() -> None:
    """Neither key is in the canonical form unless given (stored results of older experiments stay valid)."""
    canonical = parse_experiment(tiny_dag()).canonical()
    assert canonical["platform"] == {"m": [4]} and "types" not in canonical["generator"]
    for name in ("dag_experiment", "dag_smoke"):
        exp = load_experiment(Path(__file__).resolve().parents[1] / "examples" / f"{name}.toml")
        assert "units" not in exp.canonical()["platform"] and "types" not in exp.canonical()["generator"]


def test_typed_plan_runs_the_typed_analyses_on_the_typed_platform() -> None:
    """names = "all": the typed analyses apply to typed:cpu=4,gpu=2, those of identical processors are skipped."""
    from rtsched.platform import Typed
    from rtsched.sweep.kinds import platform

    exp = parse_experiment(tiny_typed(names='"all"'))
    the_plan = plan(exp)
    assert set(the_plan.analyses) == {e for e in dag_names() if registry.get(e).platform == "typed"} >= set(TYPED)
    assert all(u.units == (("gpu", 2),) for u in the_plan.units)
    assert platform("dag", 4, (("gpu", 2),)) == Typed({"cpu": 4, "gpu": 2})
    skipped = dict(the_plan.skipped)
    assert "dag-federated" in skipped and "typed:cpu=4,gpu=2" in skipped["dag-federated"]


def test_typed_unit_draws_typed_sets_and_decides_them_on_the_typed_platform() -> None:
    """A unit draws dag_tasksets(types=...) from its seed sequence and runs each analysis on Typed(cpu=4, gpu=2)."""
    from rtsched.platform import Typed

    exp = parse_experiment(tiny_typed(n="1"))
    spec = plan(exp).units[4]  # U = 1.5, second chunk
    result = run_unit(spec)
    rng = np.random.default_rng(np.random.SeedSequence(11, spawn_key=(4,)))
    sets = dag_tasksets(
        rng, n_tasks=1, utilization=1.5, size=4, shape="fork-join", deadlines="constrained", utilizations="uunifast",
        umax=1.0, shape_params={"max_depth": 2, "max_branches": 4, "p_par": 0.7, "p_term": 0.3, "wcet": (1, 20)},
        types={"cpu": 0.7, "gpu": 0.3},
    )  # fmt: skip
    assert any(t.types is not None and "gpu" in t.types for ts in sets for t in ts)
    platform = Typed({"cpu": 4, "gpu": 2})
    for name in TYPED:
        expected = sum(registry.get(name).reference(ts, platform) for ts in sets)
        assert result["accepted"][name] == expected, name
    # n = 1: one task, where typed federated and Han et al.'s bound decide alike (proved; tests/analyses/dag)
    assert result["accepted"]["dag-typed-han2019"] == result["accepted"]["dag-typed-federated"]


@pytest.mark.parametrize(
    ("text", "key", "match"),
    [
        pytest.param(tiny_typed(units=None), "generator.types", r"no units of.*units = \{gpu = 1\}", id="no-gpu-units"),
        pytest.param(tiny_typed(units="{npu = 1}"), "generator.types", "type gpu", id="other-units"),
        pytest.param(tiny_typed(units="{cpu = 2}"), "platform.units.cpu", "platform.m", id="cpu-in-units"),
        pytest.param(tiny_typed(units="{gpu = 0}"), "platform.units.gpu", "positive integer", id="zero-units"),
        pytest.param(tiny_typed(units="{}"), "platform.units", "expected a table", id="empty-units"),
        pytest.param(tiny_typed(units='{"g pu" = 1}'), "platform.units.g pu", "unit type", id="bad-unit-name"),
        pytest.param(tiny_typed(types="{cpu = -1, gpu = 1}"), "generator.types", ">= 0", id="negative-weight"),
        pytest.param(tiny_typed(types='"gpu"'), "generator.types", "expected a table", id="types-not-a-table"),
        pytest.param(
            tiny_typed(variable="U/m", points="[0.1, 0.2]"), "sweep.points", "U/m is not defined", id="u-over-m"
        ),
    ],
)
def test_bad_typed_keys_name_the_key(text: str, key: str, match: str) -> None:
    with pytest.raises(InputError, match=match) as err:
        parse_experiment(text, file="typed.toml")
    assert err.value.field == key and err.value.file == "typed.toml"


def test_types_cannot_be_swept_and_units_are_for_dag_experiments() -> None:
    swept = tiny_typed(types=None).replace(
        "[analyses]", 'by = "generator.types"\nby_points = [{cpu = 1}, {gpu = 1}]\n\n[analyses]'
    )
    with pytest.raises(InputError, match="cannot be swept") as err:
        parse_experiment(swept)
    assert err.value.field == "sweep.by_points"
    taskset = experiment_toml(
        name="t", seed=1, m="4\nunits = {gpu = 2}", generator={"n": "4"}, points="[0.5]", sets_per_point=2,
        sets_per_unit=2, names='"featured"',
    )  # fmt: skip
    with pytest.raises(InputError, match="for DAG experiments") as err:
        parse_experiment(taskset)
    assert err.value.field == "platform.units"


def test_typed_example_runs_end_to_end_at_tiny_size(tmp_path: Path) -> None:
    """examples/dag_typed_experiment.toml, 4 sets per point: both panels, both typed analyses, a plot."""
    exp = load_experiment(Path(__file__).resolve().parents[1] / "examples" / "dag_typed_experiment.toml")
    assert exp.units == (("gpu", 3),) and exp.by is not None and exp.by.points == (1, 3)
    small = exp.with_sizes(4, 4)
    results = run(small, tmp_path / "typed", workers=0, progress="none", plot=True, stream=io.StringIO())
    assert set(TYPED) <= set(results.analyses)
    rows = list(results.rows)
    accepted = {(r.by_value, r.analysis): 0 for r in rows}
    for r in rows:
        accepted[(r.by_value, r.analysis)] += r.accepted
    assert accepted[(1, "dag-typed-han2019")] == accepted[(1, "dag-typed-federated")] > 0  # one task: the same
    assert accepted[(3, "dag-typed-han2019")] == 0 < accepted[(3, "dag-typed-federated")]  # several: Han says no
    assert (tmp_path / "typed" / "acceptance.png").stat().st_size > 0


def test_m_counts_the_cpu_units_of_a_typed_platform_and_can_be_swept() -> None:
    """``m = [2, 4]`` with ``units = {gpu = 2}``: two panels, on typed:cpu=2,gpu=2 and typed:cpu=4,gpu=2."""
    from rtsched.platform import Typed
    from rtsched.sweep.kinds import platform

    exp = parse_experiment(tiny_typed(m="[2, 4]", units="{gpu = 2}"))
    assert exp.by is not None and exp.by.variable == "m"
    assert exp.canonical()["platform"] == {"m": [2, 4], "units": {"gpu": 2}}
    the_plan = plan(exp)
    platforms = {platform(u.kind, u.m, u.units) for u in the_plan.units}
    assert platforms == {Typed({"cpu": 2, "gpu": 2}), Typed({"cpu": 4, "gpu": 2})}
    assert {u.label.split(", ")[-1] for u in the_plan.units} == {"gpu units = 2"}
    assert parse_experiment(exp.to_toml()).fingerprint() == exp.fingerprint()
