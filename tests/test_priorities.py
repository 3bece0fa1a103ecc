"""Tests of rtsched/priorities.py: DM, RM, Audsley's OPA (papers/audsley-opa.md)."""

from __future__ import annotations

import itertools
import os

import pytest
from hypothesis import given, settings

from rtsched import analyses
from rtsched.errors import InputError
from rtsched.model import TaskSet
from rtsched.priorities import assign, audsley, deadline_monotonic, opa_test, rate_monotonic
from rtsched.testing import strategies as rst

EXAMPLES = int(os.environ.get("RTSCHED_PROPERTY_EXAMPLES", "150"))
RTA = analyses.get("uni-rta")


def test_dm_and_rm_are_stable_and_keep_names() -> None:
    ts = TaskSet.from_tasks([(1, 9, 10, "a"), (1, 5, 20, "b"), (1, 9, 10, "c"), (2, 4, 5, "d")])
    assert [deadline_monotonic(ts).task_name(i) for i in range(4)] == ["d", "b", "a", "c"]
    assert [rate_monotonic(ts).task_name(i) for i in range(4)] == ["d", "a", "c", "b"]
    assert deadline_monotonic(ts).rows() == [(2, 4, 5), (1, 5, 20), (1, 9, 10), (1, 9, 10)]


def test_audsley_on_a_set_dm_cannot_order_fails_like_dm() -> None:
    # Uniprocessor, constrained deadlines: DM is optimal (Leung & Whitehead 1982), so OPA with
    # the exact test succeeds exactly when DM does.
    ts = TaskSet.from_tasks([(2, 3, 6), (2, 4, 8), (3, 12, 12)])
    fits = opa_test("uni-rta", 1)
    assert RTA.verdict(deadline_monotonic(ts), 1) is True
    order = audsley(ts, fits)
    assert order is not None and RTA.verdict(order, 1) is True
    heavy = TaskSet.from_tasks([(2, 3, 4), (2, 4, 5), (1, 5, 6)])
    assert RTA.verdict(deadline_monotonic(heavy), 1) is False
    assert audsley(heavy, fits) is None


def test_audsley_with_a_test_that_depends_on_the_set_only() -> None:
    # A toy OPA-compatible test: task k fits below `higher` iff Σ C over higher ∪ {k} ≤ D_k.
    def fits(ts: TaskSet, k: int, higher: list[int]) -> bool:
        return sum(int(ts.C[i]) for i in higher) + int(ts.C[k]) <= int(ts.D[k])

    ts = TaskSet.from_tasks([(1, 6, 10), (2, 2, 10), (3, 5, 10)])
    order = audsley(ts, fits)
    assert order is not None and order.rows() == [(2, 2, 10), (3, 5, 10), (1, 6, 10)]
    calls = []

    def never(ts: TaskSet, k: int, higher: list[int]) -> bool:
        calls.append(k)
        return False

    assert audsley(ts, never) is None and len(calls) == 3  # only the lowest level is tried


def test_audsley_asks_at_most_n_n_plus_1_over_2_questions() -> None:
    calls = []

    def last_only(ts: TaskSet, k: int, higher: list[int]) -> bool:
        calls.append(k)
        return k == min(set(range(ts.n)) - set(higher))  # only the lowest index fits, each level

    ts = TaskSet.from_tasks([(1, 10, 10)] * 6)
    order = audsley(ts, last_only)
    assert order is not None and len(calls) <= 6 * 7 // 2


def test_opa_test_lookup_and_refusals() -> None:
    assert opa_test("uni-rta", 1)(TaskSet.from_tasks([(1, 2, 2)]), 0, []) is True
    with pytest.raises(InputError):
        opa_test("uni-rta", 2)  # a uniprocessor test
    with pytest.raises(InputError):
        opa_test("gfb", 2)  # no per-task OPA test declared
    with pytest.raises(InputError):
        assign(TaskSet.from_tasks([(1, 2, 2)]), "best")


def test_assign_schemes() -> None:
    ts = TaskSet.from_tasks([(1, 9, 10), (2, 4, 5)])
    assert assign(ts, "given") is ts
    assert assign(ts, "dm").rows() == [(2, 4, 5), (1, 9, 10)]
    assert assign(ts, "rm").rows() == [(2, 4, 5), (1, 9, 10)]
    assert assign(ts, "opa").rows() == [(2, 4, 5), (1, 9, 10)]
    if "gfp-da-lc" not in analyses.names():
        with pytest.raises(InputError, match="gfp-da-lc"):
            assign(ts, "opa", m=2)
    else:  # the global OPA-compatible test (analyses/global_fp/deadline_analysis.py), found through the registry
        two = TaskSet.from_tasks([(1, 9, 10), (2, 4, 5), (3, 5, 7)])
        order = assign(two, "opa", m=2)
        assert order is not None and sorted(order.rows()) == sorted(two.rows())
        assert analyses.get("gfp-da-lc").verdict(order, 2) is True


@settings(max_examples=EXAMPLES, deadline=None)
@given(rst.tasksets(max_size=8, max_period=60))
def test_opa_with_rta_succeeds_iff_dm_does(ts: TaskSet) -> None:
    order = audsley(ts, opa_test("uni-rta", 1))
    dm = RTA.verdict(deadline_monotonic(ts), 1)
    assert (order is not None) is dm
    if order is not None:
        assert RTA.verdict(order, 1) is True
        assert sorted(order.rows()) == sorted(ts.rows())


@settings(max_examples=EXAMPLES, deadline=None)
@given(rst.tasksets(max_size=5, max_period=30))
def test_opa_is_optimal_against_every_order(ts: TaskSet) -> None:
    any_order = any(RTA.verdict(ts.subset(p), 1) is True for p in itertools.permutations(range(ts.n)))
    assert (audsley(ts, opa_test("uni-rta", 1)) is not None) is any_order


@settings(max_examples=EXAMPLES, deadline=None)
@given(rst.tasksets(max_size=8, max_period=60, deadlines="implicit"))
def test_rm_is_dm_for_implicit_deadlines(ts: TaskSet) -> None:
    assert rate_monotonic(ts).rows() == deadline_monotonic(ts).rows()


def test_reorder_all_for_the_cli() -> None:
    from rtsched.priorities import reorder_all

    good = TaskSet.from_tasks([(1, 9, 10), (2, 4, 5)])
    bad = TaskSet.from_tasks([(2, 3, 4), (2, 4, 5), (1, 5, 6)])  # no FP order meets every deadline
    sets, notes = reorder_all([good, bad], "opa", 1)
    assert sets[0].rows() == [(2, 4, 5), (1, 9, 10)]
    assert sets[1].rows() == deadline_monotonic(bad).rows()
    assert notes == [
        "set 1: no priority order passes uni-rta (Audsley's algorithm); checked in deadline-monotonic order"
    ]
    assert reorder_all([good], "given", 1) == ([good], [])
    assert reorder_all([good], "rm", 3)[0][0].rows() == [(2, 4, 5), (1, 9, 10)]
    with pytest.raises(InputError):
        reorder_all([good], "edf", 1)


# -- rtsched check --priorities ------------------------------------------------------------------


def _run(capsys: pytest.CaptureFixture[str], *args: object) -> tuple[int, str, str]:
    from rtsched.cli import main

    status = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return status, out, err


def test_cli_uniprocessor_fp_tests(capsys: pytest.CaptureFixture[str], tmp_path) -> None:
    f = tmp_path / "rm.txt"
    f.write_text("1 4 4\n1 5 5\n2 6 6\n1 11 11\n")  # U ≈ 0.874: RTA yes (R = 1, 2, 4, 10), both bounds no
    status, out, _ = _run(capsys, "check", f, "-m", 1, "--tests", "uni-rta,rm-ll,rm-hb", "--json")
    assert status == 0
    assert '"verdicts": {"uni-rta": true, "rm-ll": false, "rm-hb": false}' in out


def test_cli_priorities_reorder_each_set(capsys: pytest.CaptureFixture[str], tmp_path) -> None:
    f = tmp_path / "reversed.txt"
    f.write_text("2 8 8\n1 2 2\n")  # (1.5)(1.25) ≤ 2: HB holds in RM order; as given τ1 has R = 3 > 2
    status, out, _ = _run(capsys, "check", f, "-m", 1, "--tests", "uni-rta,rm-hb", "--json")
    assert status == 1 and '"uni-rta": false, "rm-hb": false' in out
    for scheme in ("rm", "dm", "opa"):
        status, out, _ = _run(capsys, "check", f, "-m", 1, "--tests", "uni-rta,rm-hb", "--json", "--priorities", scheme)
        assert status == 0 and '"uni-rta": true, "rm-hb": true' in out, scheme


def test_cli_opa_without_an_order_checks_dm_and_says_so(capsys: pytest.CaptureFixture[str], tmp_path) -> None:
    f = tmp_path / "heavy.txt"
    f.write_text("1 5 6\n2 4 5\n2 3 4\n")
    status, out, err = _run(capsys, "check", f, "-m", 1, "--tests", "uni-rta", "--priorities", "opa")
    assert status == 1 and "NOT schedulable" in out
    assert "no priority order passes uni-rta" in err


def test_cli_priorities_errors(capsys: pytest.CaptureFixture[str], tmp_path) -> None:
    f = tmp_path / "one.txt"
    f.write_text("1 4 4\n")
    status, _, err = _run(capsys, "check", f, "-m", 1, "--tests", "uni-rta", "--priorities", "edf")
    assert status == 2 and "--priorities" in err
    if "gfp-da-lc" in analyses.names():
        status, out, _ = _run(capsys, "check", f, "-m", 2, "--tests", "gfp-da-lc", "--priorities", "opa", "--json")
        assert status == 0 and '"gfp-da-lc": true' in out
    else:
        status, _, err = _run(capsys, "check", f, "-m", 2, "--tests", "gfb", "--priorities", "opa")
        assert status == 2 and "gfp-da-lc" in err
