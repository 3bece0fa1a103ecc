"""``benchmarks/build_schedcat.py``: the SWIG interface it writes from upstream's (issue #45).

The build itself needs a SchedCAT checkout, SWIG and GMP, which the suite does not have; the
interface is the one part that is ours, so it is checked here on an upstream-like text.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "build_schedcat.py"
UPSTREAM = """%module sched
%{
#include "tasks.h"
#include "sharedres.h"
%}
%ignore Task::get_utilization(fractional_t &util) const;
%ignore TaskSet::operator[](int) const;
  %ignore TaskSet::approx_load const;
%ignore ResourceSharingInfo::get_tasks;
%ignore TaskSetX::foo;
#include "tasks.h"
#include "sharedres.h"
"""


@pytest.fixture(scope="module")
def build():
    spec = importlib.util.spec_from_file_location("build_schedcat", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_interface_keeps_upstream_ignores_of_the_wrapped_classes_only(build):
    text = build.interface(UPSTREAM)
    lines = text.splitlines()
    assert lines[0] == "%module schedcat_native"
    ignores = [line for line in lines if line.startswith("%ignore")]
    assert ignores == [
        "%ignore Task::get_utilization(fractional_t &util) const;",
        "%ignore TaskSet::operator[](int) const;",
        "%ignore TaskSet::approx_load const;",
        *build.OWN_IGNORES,
    ]
    # every wrapped header twice (the %{ %} block and SWIG's own reading), nothing else included
    includes = [line for line in lines if line.startswith("#include")]
    assert includes == [f'#include "{h}"' for h in build.HEADERS] * 2
    assert '"sharedres.h"' not in text
    # the ignores come before SWIG reads the headers
    assert lines.index(ignores[-1]) == len(lines) - len(build.HEADERS) - 1


def test_interface_does_not_repeat_an_ignore_upstream_already_has(build):
    text = build.interface(UPSTREAM + build.OWN_IGNORES[0] + "\n")
    assert text.count(build.OWN_IGNORES[0]) == 1


def test_a_folder_without_schedcat_is_one_line_and_exit_2(build, tmp_path, capsys):
    with pytest.raises(SystemExit) as stop:
        build.main(["--source", str(tmp_path), "--out", str(tmp_path / "out")])
    assert stop.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no such file" in err[0] and "tasks.cpp" in err[0]
