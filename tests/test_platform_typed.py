"""Typed platforms (rtsched.platform.Typed): construction, validation, the textual form, and how the
registry, check() and the workload kinds treat them."""

import pytest

import rtsched
from rtsched import registry
from rtsched.dag import DAGTask, DAGTaskSet
from rtsched.errors import InputError
from rtsched.platform import GPU, Identical, Typed, as_platform, parse_platform
from rtsched.workloads import DAG_TASKSETS, TASKSETS

FORK = DAGTask([1, 3, 2, 1], [(0, 1), (0, 2), (1, 3), (2, 3)], T=20, D=12, types=["cpu", "gpu", "gpu", "cpu"])


def test_typed_is_frozen_hashable_and_canonical():
    a = Typed({"gpu": 2, "cpu": 4})
    b = Typed([("cpu", 4), ("gpu", 2)])
    assert a == b and hash(a) == hash(b) and {a: 1}[b] == 1
    assert a.units == (("cpu", 4), ("gpu", 2)) and a.types == ("cpu", "gpu")
    assert a.size == 6 and a.count("gpu") == 2 and a.count("dsp") == 0 and a.as_dict() == {"cpu": 4, "gpu": 2}
    assert str(a) == "a typed platform with 4 cpu units, 2 gpu units"
    assert eval(repr(a)) == a
    with pytest.raises(AttributeError):
        a.units = ()  # type: ignore[misc]


def test_textual_form_round_trips():
    a = Typed({"cpu": 4, "gpu": 2})
    assert a.spec == "typed:cpu=4,gpu=2"
    assert parse_platform(a.spec) == a == parse_platform(" typed: gpu=2, cpu = 4 ")
    assert as_platform("typed:cpu=4,gpu=2") == a and as_platform({"cpu": 4, "gpu": 2}) == a and as_platform(a) is a
    assert parse_platform("typed:dla0=1") == Typed({"dla0": 1})


@pytest.mark.parametrize(
    ("value", "message"),
    [
        pytest.param({}, "at least one type", id="empty"),
        pytest.param({"cpu": 0}, "the number of cpu units must be a positive integer, got 0", id="zero"),
        pytest.param({"cpu": True}, "must be a positive integer", id="bool"),
        pytest.param({"cpu": 2.5}, "must be a positive integer", id="float"),
        pytest.param({"c pu": 1}, "a unit type must be a name", id="space"),
        pytest.param([("cpu", 1), ("cpu", 2)], "given twice", id="twice"),
        pytest.param(5, "takes a mapping", id="not-a-mapping"),
        pytest.param({"cpu": 10**7}, "out of range", id="too-many"),
    ],
)
def test_bad_typed_platforms_give_one_line(value, message):
    with pytest.raises(InputError, match=message) as err:
        Typed(value)
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("text", ["typed", "typed:", "typed:cpu", "typed:cpu=x", "typed:cpu=2,", "typed:=2"])
def test_bad_textual_forms(text):
    with pytest.raises(InputError, match="typed:<type>=<units>"):
        parse_platform(text)


def test_unknown_platform_message_names_the_typed_form():
    with pytest.raises(InputError, match=r"typed:<type>=<n>"):
        parse_platform("hetero:4")


def test_kinds_and_registry_refuse_or_accept_typed_platforms():
    typed = Typed({"cpu": 2, "gpu": 1})
    assert TASKSETS.refuses_platform(typed) is not None
    assert DAG_TASKSETS.refuses_platform(typed) is None and DAG_TASKSETS.refuses_platform(GPU(4)) is not None
    # identical-processor analyses refuse a typed platform; typed analyses take typed and identical ones
    assert "typed platform" in registry.get("gfb").refuses_platform(typed)
    assert registry.get("dag-federated").refuses_platform(typed) is not None
    han = registry.get("dag-typed-han2019")
    assert han.refuses_platform(typed) is None and han.refuses_platform(Identical(3)) is None
    assert han.refuses_platform(GPU(2)) is not None
    assert han.module_platform(3) == Typed({"cpu": 3}) and han.module_platform(typed) is typed


def test_a_type_the_platform_lacks_is_refused_in_one_line():
    ts = DAGTaskSet([FORK])
    assert DAG_TASKSETS.refuses_types(ts, Typed({"cpu": 2, "gpu": 1})) is None
    why = DAG_TASKSETS.refuses_types(ts, Typed({"cpu": 2}))
    assert why == "the DAG tasks use vertex type gpu that the platform (typed:cpu=2) has no unit of"
    assert DAG_TASKSETS.refuses_types(ts, Identical(2)) is None  # identical processors ignore types
    for name in ("dag-typed-han2019", "dag-typed-federated"):
        with pytest.raises(InputError, match="vertex type gpu"):
            registry.get(name).verdict(ts, Typed({"cpu": 2}))


def test_check_runs_the_typed_analyses_on_a_typed_platform():
    report = rtsched.check(DAGTaskSet([FORK]), Typed({"cpu": 2, "gpu": 2}))
    assert set(report.verdicts) == {"dag-typed-han2019", "dag-typed-federated"}
    assert report.m == 4 and "typed:cpu=2,gpu=2" in report.heading
    many = rtsched.check_many([DAGTaskSet([FORK]), DAGTaskSet([FORK, FORK])], "typed:cpu=1,gpu=1")
    assert [r.verdicts for r in many] == [
        {"dag-typed-han2019": True, "dag-typed-federated": True},
        {"dag-typed-han2019": False, "dag-typed-federated": False},
    ]
    # every identical-processor DAG analysis is left out on a typed platform (default list)
    assert all(registry.get(name).platform == "typed" for name in report.verdicts)
