"""Measured GPU profiles in CSV (issue 20): WCETs per partition size and slowdown matrices by
co-runner class, referenced from workload files (papers/zahaf2021-gpu-partitioning.md)."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from rtsched.analyses.gpu.partitioning import allocate, recheck
from rtsched.cli import main
from rtsched.errors import InputError
from rtsched.gpu import Slowdown, TableWCET, read_gpu_workload
from rtsched.gpu.profiles import loads_slowdown_csv, loads_wcet_csv

F = Fraction
EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "gpu" / "mig_pipeline.yaml"


def test_wcet_table_fills_unmeasured_sizes_from_the_next_smaller_one():
    tables = loads_wcet_csv("kernel,size,wcet\n# note\na,1,30\na,2,17\na,4,11\na,7,9\nb,1,5\n")
    assert tables == {"a": TableWCET((30, 17, 17, 11, 11, 11, 9)), "b": TableWCET((5,))}


def test_slowdown_matrix_columns_are_the_classes():
    classes, rows = loads_slowdown_csv("kernel,others,compute,memory\na,1,1.05,1.3\na,2,1.1,1.55\n")
    assert classes == ("compute", "memory")
    assert rows["a"].worst == Slowdown((F("1.3"), F("1.55")))
    assert rows["a"].rows == (("compute", Slowdown((F("1.05"), F("1.1")))),)


@pytest.mark.parametrize(
    ("text", "line", "task", "field", "message"),
    [
        ("kernel,wcet,size\na,1,2\n", 1, None, None, "expected the header kernel,size,wcet"),
        ("kernel,size,wcet\na,1,x\n", 2, "a", "wcet", "expected an integer"),
        ("kernel,size,wcet\na,1,5\na,2,7\n", 3, "a", "wcet", "non-increasing"),
        ("kernel,size,wcet\na,1,5\na,1,4\n", 3, "a", "size", "measured twice"),
        ("kernel,size,wcet\na,2,5\n", 2, "a", "size", "size 1 is not measured"),
        ("kernel,size,wcet\na,0,5\n", 2, "a", "size", "must be an integer in 1.."),
        ("kernel,size,wcet\na,1\n", 2, None, None, "expected 3 cells"),
        ("kernel,size,wcet\n,1,5\n", 2, None, "kernel", "the kernel name is empty"),
        ("# only a comment\n", None, None, None, "the file is empty"),
    ],
)
def test_wcet_errors_name_file_line_kernel_column(text, line, task, field, message):
    with pytest.raises(InputError, match=message) as info:
        loads_wcet_csv(text, source="w.csv")
    assert (info.value.file, info.value.line, info.value.task, info.value.field) == ("w.csv", line, task, field)


@pytest.mark.parametrize(
    ("text", "line", "task", "field", "message"),
    [
        ("kernel,k,compute\na,1,1\n", 1, None, None, "expected the header kernel,others,<class>"),
        ("kernel,others,c,c\na,1,1,1\n", 1, None, None, "distinct"),
        ("kernel,others,compute,memory\na,2,1,1\n", 2, "a", "others", "expected others = 1"),
        ("kernel,others,compute,memory\na,1,1,0.9\n", 2, "a", "memory", "must be >= 1"),
        ("kernel,others,compute,memory\na,1,fast,1\n", 2, "a", "compute", "expected a number"),
    ],
)
def test_slowdown_errors_name_file_line_kernel_column(text, line, task, field, message):
    with pytest.raises(InputError, match=message) as info:
        loads_slowdown_csv(text, source="s.csv")
    assert (info.value.file, info.value.line, info.value.task, info.value.field) == ("s.csv", line, task, field)


def test_example_workload_reads_its_profiles():
    w = read_gpu_workload(EXAMPLE)
    assert w.layout == "mig:a100" and w.clusters == 7 and w.classes == ("compute", "memory")
    detect = w.kernels[1]
    assert detect.name == "detect" and detect.wcet.values == (140, 72, 50, 39, 39, 39, 24)
    assert detect.slowdown == (F("1.15"), F("1.3"), F("1.4")) and detect.slowdown_beyond is None
    for h in ("ffd", "bfd", "exhaustive"):
        a = allocate(w, None, h)
        assert a.verdict is True and recheck(w, a)
    assert allocate(w, None, "single").verdict is False


def test_profile_errors_in_the_workload_file(tmp_path):
    (tmp_path / "w.csv").write_text("kernel,size,wcet\na,1,5\n")
    (tmp_path / "s.csv").write_text("kernel,others,light,heavy\na,1,1.1,1.2\n")
    good = "profiles: {wcet: w.csv, slowdown: s.csv}\nkernels:\n  - {name: a, D: 10, T: 10}\n"
    f = tmp_path / "good.yaml"
    f.write_text(good)
    assert read_gpu_workload(f).classes == ("light", "heavy")
    cases = [
        (good.replace("{name: a,", "{name: a, C: 4,"), 3, "C", "given both here and in the measured profile"),
        ("classes: [x, y]\n" + good, 1, "classes", "differ from the slowdown profile"),
        (good.replace("name: a", "name: b"), 3, None, "missing key"),
        (good.replace("w.csv", "nowhere.csv"), None, None, "nowhere.csv"),
        (good.replace("{wcet: w.csv, slowdown: s.csv}", "w.csv"), 1, "profiles", "expected {wcet"),
    ]
    for text, line, field, message in cases:
        f.write_text(text)
        with pytest.raises(InputError, match=message) as info:
            read_gpu_workload(f)
        err = info.value
        if line is not None:
            assert (err.file, err.line) == (str(f), line)
        if field is not None:
            assert err.field == field


def test_cli_on_the_example(capsys):
    assert main(["gpu", str(EXAMPLE), "--heuristic", "exhaustive", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["layout_space"] == "mig:a100" and d["interference"] == "co-runner"


def test_published_mig_timings_read_as_a_wcet_table():
    # NJIT ARCS GROMACS wall times per A100 MIG profile (see the file's header for the source).
    path = EXAMPLE.parent / "published_gromacs_wcet.csv"
    tables = loads_wcet_csv(path.read_text(), source=str(path))
    assert tables["gromacs"].values == (500, 266, 188, 188, 188, 188, 183)
