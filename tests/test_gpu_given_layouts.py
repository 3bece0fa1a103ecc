"""Evaluating a given GPU layout (issue #46): ``--layout 4+2+1`` and MIG profile names, layouts side by
side, what ``exhaustive`` shows, and an aligned table with units.

Before: ``rtsched gpu FILE --layout 4+2+1`` was refused (only layout spaces were accepted);
``exhaustive`` was called "optimum" without saying of what (on ``mig_pipeline`` it shows 2+4 with a
partition at 0.99 load where ffd finds 4+3 at 0.889/0.825); ``--json`` said ``layouts_tried: 0``
for it; the kernel table was not aligned and printed no unit.
"""

from __future__ import annotations

import itertools
import json
from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rtsched import registry
from rtsched.analyses.gpu.partitioning import Allocation, Partition, recheck
from rtsched.cli import main
from rtsched.errors import InputError
from rtsched.gpu import GPUWorkload, read_gpu_workload
from rtsched.gpu.layouts import FixedLayout, layout_space
from rtsched.gpu.mig import check_layout_spec
from rtsched.gpu.model import Kernel, TableWCET
from rtsched.platform import GPU

ROOT = Path(__file__).resolve().parents[1]
PIPELINE = str(ROOT / "examples" / "gpu" / "mig_pipeline.yaml")
DEMO = str(ROOT / "examples" / "gpu" / "demo.yaml")


class Run:
    """What ``rtsched gpu ARGS`` printed (stdout and stderr) and its exit status."""

    def __init__(self, capsys, args: tuple[str, ...]) -> None:
        self.exit_code = main(["gpu", *args])
        captured = capsys.readouterr()
        self.output, self.err = captured.out, captured.err


@pytest.fixture
def run(capsys):
    return lambda *args: Run(capsys, args)


@pytest.mark.parametrize(
    ("spec", "canonical"),
    [
        pytest.param("4+2+1", "free=4+2+1", id="bare-sizes-are-free"),
        pytest.param("1+4+2", "free=4+2+1", id="sorted-decreasing"),
        pytest.param("7", "free=7", id="one-partition"),
        pytest.param("tpc:2=2+4", "tpc:2=4+2", id="tpc"),
        pytest.param("mig:a100=4+2+1", "mig:a100=4g.20gb+2g.10gb+1g.5gb", id="mig-sizes-to-profiles"),
        pytest.param("mig:a100=1g.5gb+3G.20GB", "mig:a100=3g.20gb+1g.5gb", id="mig-names-lower-case"),
        pytest.param("mig:h100=1g.20gb+2g.20gb", "mig:h100=2g.20gb+1g.20gb", id="h100-wide-1g"),
        pytest.param("mig:a100", "mig:a100", id="spaces-unchanged"),
    ],
)
def test_layout_specs_have_one_canonical_form(spec, canonical):
    assert check_layout_spec(spec) == canonical


@pytest.mark.parametrize(
    ("spec", "M", "message"),
    [
        pytest.param("4+x", 7, "unknown layout", id="not-a-number"),
        pytest.param("4++2", 7, "unknown layout '4\\+\\+2'", id="empty-part"),
        pytest.param("mig:a100=5g.20gb", 7, "no MIG profile '5g.20gb'", id="unknown-profile"),
        pytest.param("mig:a100=3g.20gb+3g.20gb+1g.5gb", 7, "cannot be built on mig:a100", id="overlapping-mig"),
        pytest.param("mig:h100=1g.20gb+1g.20gb+1g.20gb+1g.20gb+3g.40gb", 7, "cannot be built", id="h100-width"),
        pytest.param("5+3", 7, "cannot be built on free with 7 clusters", id="too-many-clusters"),
        pytest.param("tpc:2=3+2", 8, "cannot be built on tpc:2", id="not-whole-tpcs"),
    ],
)
def test_a_layout_that_cannot_be_built_is_one_clear_error(spec, M, message):
    with pytest.raises(InputError, match=message) as err:
        layout_space(spec, M)
    assert err.value.field == "layout"


def test_a_given_layout_allows_itself_and_its_parts_only():
    space = layout_space("mig:a100=4g.20gb+2g.10gb+1g.5gb", 7)
    assert isinstance(space, FixedLayout) and space.layout == (4, 2, 1) and space.sizes == (1, 2, 4)
    assert space.legal((4, 2, 1)) and space.legal((4, 1)) and space.legal(())
    assert not space.legal((4, 3)) and not space.legal((2, 2)) and not space.legal((7,))
    assert [list(space.maximal(K)) for K in (1, 2, 3, 4)] == [[(4,)], [(4, 2)], [(4, 2, 1)], []]
    # downward closed, like every space: what the searches rely on
    for layout in space.all_legal():
        for i in range(len(layout)):
            assert space.legal(layout[:i] + layout[i + 1 :])


def _pipeline() -> GPUWorkload:
    return read_gpu_workload(PIPELINE)


@pytest.mark.parametrize("heuristic", ["ffd", "bfd", "exhaustive"])
@pytest.mark.parametrize("given_layout", ["4+3", "4+2+1", "3+3", "3+2+2", "2+2+2+1", "7"])
def test_kernels_go_on_the_given_partitions_only(heuristic, given_layout):
    w = _pipeline().with_model(f"mig:a100={given_layout}", None)
    entry = registry.get(f"gpu:{heuristic}")
    report = entry.explain(w, GPU(7)).evidence["report"]
    if report["verdict"] is True:
        used = Counter(report["layout"])
        assert not used - Counter(int(x) for x in given_layout.split("+"))  # a part of the given layout
        assert report["idle_clusters"] == 7 - sum(report["layout"])
    # the given layout is one layout of the MIG space: its exhaustive optimum accepts at least as much
    whole = registry.get("gpu:exhaustive").verdict(_pipeline(), GPU(7))
    if report["verdict"] is True:
        assert whole is True
    # exhaustive on the given layout accepts whatever ffd/bfd accept there
    if report["verdict"] is True:
        assert registry.get("gpu:exhaustive").verdict(w, GPU(7)) is True


@st.composite
def small_workloads(draw, M=6):
    kernels = []
    for _ in range(draw(st.integers(1, 3))):
        T = draw(st.integers(4, 30))
        D = draw(st.integers(max(1, T // 2), T))
        table = [draw(st.integers(1, T))]
        for _ in range(M - 1):
            table.append(draw(st.integers(max(1, table[-1] // 2), table[-1])))
        steps = draw(st.lists(st.integers(0, 3), min_size=M, max_size=M))
        factors = tuple(Fraction(10 + sum(steps[: k + 1]), 10) for k in range(M))
        kernels.append(Kernel(TableWCET(tuple(table)), D, T, factors, None, draw(st.booleans())))
    return GPUWorkload(tuple(kernels))


@given(
    w=small_workloads(),
    layout=st.lists(st.integers(1, 4), min_size=1, max_size=3).filter(lambda x: sum(x) <= 6),
)
@settings(max_examples=60, deadline=None)
def test_exhaustive_on_a_given_layout_is_the_brute_force_over_its_partitions(w, layout):
    """Exhaustive on a given layout accepts iff some assignment of the kernels to its partitions
    (a partition without a kernel idle) passes the independent re-check; ffd/bfd accept less."""
    sizes = sorted(layout, reverse=True)
    spec = "free=" + "+".join(map(str, sizes))
    given_w = w.with_model(spec, None)
    brute = False
    for assign in itertools.product(range(len(sizes)), repeat=w.n):
        used = [(tuple(i for i, a in enumerate(assign) if a == p), sizes[p]) for p in range(len(sizes)) if p in assign]
        alloc = Allocation(
            True,
            "brute",
            6,
            tuple(Partition(s, m, (), True) for m, s in used),
            6 - sum(s for _, s in used),
            space=spec,
            interference="count-only",
        )
        if recheck(given_w, alloc):
            brute = True
            break
    assert registry.get("gpu:exhaustive").verdict(given_w, GPU(6)) is brute
    for h in ("ffd", "bfd"):
        if registry.get(f"gpu:{h}").verdict(given_w, GPU(6)) is True:
            assert brute


def test_exhaustive_puts_a_block_on_a_larger_partition_of_a_given_layout():
    """A randomized run found it (session 26): on free=2+1 with two active partitions, both
    kernels pass on one cluster each, so the smallest sizes are 1 and 1, which is not a part of
    the layout 2+1; the search must still place them (one on the 2-cluster partition) instead of
    reporting "no split passes" while the brute force over the partitions accepts."""
    k0 = Kernel(TableWCET((2, 2, 1, 1, 1, 1)), 2, 4, (Fraction(1),) * 6, None, False)
    k1 = Kernel(TableWCET((1, 1, 1, 1, 1, 1)), 2, 4, (Fraction(1),) * 6, None, False)
    given = GPUWorkload((k0, k1)).with_model("free=2+1", None)
    assert registry.get("gpu:exhaustive").verdict(given, GPU(6)) is True
    evidence = registry.get("gpu:exhaustive").explain(given, GPU(6)).evidence
    assert sorted(evidence["layout"]) == [1, 2] and evidence["idle"] == 3  # the given partitions
    space = layout_space("free=2+1", 6)
    assert space.place([1, 1]) in ((2, 1), (1, 2))
    assert space.place([2, 2]) is None
    assert space.place([1]) == (1,)  # the smallest partition that holds it
    assert layout_space("free", 6).place([1, 1]) == (1, 1)


def test_cli_evaluates_a_given_layout_with_mig_profile_names(run):
    result = run(PIPELINE, "--layout", "4g.20gb+3g.20gb")
    assert result.exit_code == 0, result.output
    assert "layout 4+3 [given layout 4g.20gb+3g.20gb (mig:a100)]" in result.output
    assert "0.825" in result.output and "0.889" in result.output


def test_cli_compares_given_layouts_side_by_side(run):
    result = run(PIPELINE, "--layout", "4+3", "--layout", "2+4", "--layout", "2+2+2+1")
    assert result.exit_code in (0, 1), result.output
    lines = result.output.splitlines()
    assert "3 given layouts" in lines[0]
    rows = {line.split()[0]: line for line in lines[3:]}
    assert "4: ≈0.889  3: 0.825" in rows["4g.20gb+3g.20gb"]
    assert "4: ≈0.889  2: 0.99" in rows["4g.20gb+2g.10gb"]
    assert len(lines) == 3 + 3


def test_cli_refuses_a_layout_that_cannot_be_built_in_one_line(run):
    result = run(PIPELINE, "--layout", "3+3+1")
    assert result.exit_code == 2
    message = result.err.strip()
    assert "\n" not in message and "--layout" in message and "cannot be built on mig:a100" in message


def test_exhaustive_says_what_it_shows_and_json_tells_no_layout_count(run):
    result = run(PIPELINE, "--heuristic", "exhaustive", "--json")
    report = json.loads(result.output)
    assert report["layouts_tried"] is None  # a search over kernel subsets lists no layouts
    assert "fewest clusters in use" in report["search"] and "not the least loaded" in report["search"]
    text = run(PIPELINE, "--heuristic", "exhaustive").output
    assert "search: every split of the kernels" in text
    ffd = json.loads(run(PIPELINE, "--json").output)
    assert ffd["layouts_tried"] >= 1 and "first-fit decreasing" in ffd["search"]
    help_text = " ".join(run("--help").output.split())
    assert "fewest clusters in use" in help_text


def test_tables_are_aligned_and_say_their_unit(run):
    text = run(PIPELINE).output
    lines = text.splitlines()
    assert any("in ticks" in line for line in lines)
    start = next(i for i, line in enumerate(lines) if line.strip().startswith("kernel "))
    header, rule, *rows = lines[start : start + 2 + 4]
    assert set(rule.strip()) <= {"-", " "}
    # every column of the rule starts where the header's column starts, and rows have that width
    starts = [i for i, ch in enumerate(rule) if ch == "-" and (i == 0 or rule[i - 1] == " ")]
    for column in ("kernel", "D", "T", "preemptive", "partition"):
        assert any(header.find(column, s) == s or header[s:].lstrip().startswith(column) for s in starts)
    for row in rows:
        assert len(row) <= len(rule)
    # right-aligned numbers: the periods end in the same column
    t_end = starts[2] + len(rule[starts[2] :].split()[0])
    assert all(row[t_end - 1].isdigit() for row in rows)
