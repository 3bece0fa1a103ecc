"""Discovery by workload kind (``registry.entries_of``): a task-set, DAG, MC, segmented or GPU check imports its own analyses only.

Each case runs in a fresh interpreter: this test process has long discovered every analysis.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from rtsched import registry
from rtsched.workloads import kinds

ROOT = Path(__file__).resolve().parents[1]
KINDS_WITH_FAMILIES = [kind.name for kind in kinds() if kind.families is not None]

_PROBE = """
import json, sys
from rtsched import registry
from rtsched.workloads import kind_named
kind = kind_named(sys.argv[1])
own = [e.name for e in registry.entries_of(kind)]
families = sorted({m.split(".")[2] for m in sys.modules if m.startswith("rtsched.analyses.") and m.count(".") == 3
                   and not m.split(".")[3].startswith("_") and m.split(".")[2] != "theory"})
generation = registry.generation()
other = registry.get(sys.argv[2]).name  # a name of another kind: found by a full discovery
full = [e.name for e in registry.all_entries() if e.workload is kind]
print(json.dumps({"own": own, "families": families, "other": other, "full": full,
                  "generation_changed": registry.generation() != generation}))
"""


def _probe(kind: str, other: str) -> dict[str, object]:
    out = subprocess.run([sys.executable, "-c", _PROBE, kind, other], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_the_built_in_kinds_declare_their_families():
    assert set(KINDS_WITH_FAMILIES) == {"taskset", "gpu-workload", "dag", "mc", "segmented"}


#: A name of another kind than the one probed (task sets: a DAG analysis; others: a task-set one).
OTHER = {"taskset": "dag-gedf-cab"}


@pytest.mark.parametrize("kind", KINDS_WITH_FAMILIES)
def test_entries_of_a_kind_imports_its_families_only_and_finds_them_all(kind):
    other = OTHER.get(kind, "bcl-iter")
    probe = _probe(kind, other)
    declared = next(k for k in kinds() if k.name == kind).families
    assert probe["families"] == sorted(declared)  # nothing else imported (public modules of other families)
    assert probe["own"] == probe["full"]  # the same analyses, in the same order, as a full discovery
    assert probe["own"]  # and there are some
    assert probe["other"] == other
    assert probe["generation_changed"]  # the full discovery added entries: cached plans are not reused


def test_every_analysis_of_a_declared_kind_lives_in_its_families():
    # A module of another family declaring an analysis of such a kind would be missed by entries_of.
    for module_name in registry.analysis_modules():
        family = module_name.split(".")[2]
        module = __import__(module_name, fromlist=["ANALYSES"])
        for entry in getattr(module, "ANALYSES", ()):
            families = entry.workload.families
            assert families is None or family in families, (entry.name, module_name, families)


_CHECK = """
import contextlib, io, json, sys
from rtsched.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    try:
        main(sys.argv[1:])
    except SystemExit:
        pass
print(json.dumps(sorted({m.split(".")[2] for m in sys.modules if m.startswith("rtsched.analyses.")
                         and m.count(".") == 3 and not m.split(".")[3].startswith("_") and m.split(".")[2] != "theory"})))
"""

#: One file of each kind that declares its families, as ``rtsched check`` takes it.
CHECKS = {
    "taskset": ["examples/tasksets/demo.yaml", "-m", "2"],
    "dag": ["tests/data/dag_peer/fonseca_peer_overcount_4_fj_impl_31.yaml", "-m", "4"],
    "mc": ["tests/data/mc_peer/edf_vd_constrained.yaml", "-m", "1"],
    "segmented": ["examples/segmented_partitions.yaml", "-m", "2"],
    "gpu-workload": ["examples/gpu/demo.yaml", "--platform", "gpu:4"],
}


@pytest.mark.parametrize("kind", sorted(CHECKS))
def test_rtsched_check_of_a_file_imports_its_kinds_families_only(kind):
    # What entries_of saves is lost if an analysis of the kind looks up a name of another family
    # (registry.get falls back to a full discovery): declare that family too (DAG: p-edf).
    out = subprocess.run(
        [sys.executable, "-c", _CHECK, "check", *CHECKS[kind], "--explain"],
        capture_output=True, text=True, check=True, cwd=ROOT,
    )
    imported = json.loads(out.stdout.strip().splitlines()[-1])
    declared = next(k for k in kinds() if k.name == kind).families
    assert imported == sorted(declared)


def test_rtsched_check_with_named_task_set_tests_imports_the_task_set_families_only():
    # --tests names are looked up after the task-set kind's families are imported (resolve_list's
    # workload): a full discovery would import the other kinds' modules for nothing.
    out = subprocess.run(
        [sys.executable, "-c", _CHECK, "check", "examples/tasksets/demo.yaml", "-m", "2", "--tests", "bcl-iter,p-edf"],
        capture_output=True, text=True, check=True, cwd=ROOT,
    )
    imported = json.loads(out.stdout.strip().splitlines()[-1])
    assert imported == sorted(next(k for k in kinds() if k.name == "taskset").families)


_THREADS = """
import json, sys, threading
from rtsched import registry
from rtsched.workloads import kind_named
errors = []
def work(i):
    try:
        if i % 2:
            registry.entries_of(kind_named("segmented"))
        registry.names()
    except Exception as err:  # noqa: BLE001 (reported below)
        errors.append(repr(err))
threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
for t in threads: t.start()
for t in threads: t.join()
print(json.dumps({"errors": errors, "n": len(registry.names())}))
"""


def test_discovery_from_many_threads_at_once():
    # The table of entries grows in place: without the discovery lock, two threads importing the
    # same family both added its entries ("registered twice").
    out = subprocess.run([sys.executable, "-c", _THREADS], capture_output=True, text=True, check=True)
    probe = json.loads(out.stdout.strip().splitlines()[-1])
    assert probe["errors"] == [] and probe["n"] == len(registry.names())
