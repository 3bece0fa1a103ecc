"""The partitioned family's shared scaffolding (analyses/partitioned/_packing.py): names, registry glue, packing loop."""

import re
from fractions import Fraction

import pytest

from rtsched import registry
from rtsched.analyses.partitioned import _packing
from rtsched.analyses.partitioned import partitioned_edf as pedf
from rtsched.analyses.partitioned import partitioned_fp as pfp
from rtsched.budget import Work
from rtsched.result import UNKNOWN


@pytest.mark.parametrize(
    ("module", "admissions", "description"),
    [
        pytest.param(
            pedf,
            ("density", "dbfstar", "qpa"),
            "p:<fit>:<order>:<admission> with fit ff|bf|wf|nf, order input|density|utilization|deadline, "
            "admission density|dbfstar|qpa (partitioned EDF)",
            id="p-edf",
        ),
        pytest.param(
            pfp,
            ("rta",),
            "p:<fit>:<order>:rta with fit ff|bf|wf|nf, order input|density|utilization|deadline "
            "(partitioned fixed priorities, priorities = the set's order)",
            id="p-fp",
        ),
    ],
)
def test_family_names_pattern_and_description(module, admissions, description) -> None:
    # rtsched list prints the description; the pattern takes exactly the listed names.
    (family,) = module.FAMILIES
    assert family.description == description
    assert len(module.FAMILY_NAMES) == len(_packing.FITS) * len(_packing.ORDERS) * len(admissions)
    every = {f"p:{f}:{o}:{a}" for f in _packing.FITS for o in _packing.ORDERS for a in ("density", "dbfstar", "qpa", "rta")}
    assert {name for name in every if re.fullmatch(family.pattern, name)} == set(module.FAMILY_NAMES)
    for name in module.FAMILY_NAMES[:3] + module.FAMILY_NAMES[-3:]:
        entry = registry.get(name)
        assert entry.name == name and not entry.featured


class _TwoPerProcessor(_packing.Packer):
    """A toy admission: at most two tasks per processor; ``undecided`` (task, processor) cannot be decided."""

    undecided: tuple[int, int] | None = (0, 0)

    def loads(self) -> list[Fraction]:
        self.work.spend(1)
        return [sum((Fraction(self.rows[i][0], self.rows[i][2]) for i in b), Fraction(0)) for b in self.bins]

    def admit(self, i: int, b: int) -> tuple[bool | str, str]:
        if (i, b) == self.undecided:
            return UNKNOWN, "undecided"
        return (True, "") if len(self.bins[b]) < 2 else (False, "full")

    def note(self, i: int, b: int | None) -> tuple[object, ...]:
        return ("placed",) if b is not None else ("failed",)


class _Decided(_TwoPerProcessor):
    undecided = None


ROWS = [(1, 10, 10), (2, 10, 10), (3, 10, 10), (4, 10, 10), (5, 10, 10)]


def test_packer_places_and_logs() -> None:
    log: list[tuple[object, ...]] = []
    packer = _TwoPerProcessor(ROWS[:4], 2, "ff", "input", Work(None))
    assert packer.run(log) is True
    assert packer.assignment == [1, 0, 0, 1] and packer.failed_task is None and packer.refusals == ()
    assert packer.sequence == (0, 1, 2, 3) and packer.bins == [[1, 2], [0, 3]]
    assert log[0] == (0, ((0, "undecided"),), 1, "placed") and log[1] == (1, (), 0, "placed")


@pytest.mark.parametrize(("packer", "verdict"), [(_Decided, False), (_TwoPerProcessor, UNKNOWN)])
def test_packer_failure_is_unknown_after_any_undecided_admission(packer, verdict) -> None:
    # The fifth task fits nowhere. An undecided admission earlier in the packing (task 0 on P0)
    # may have changed where later tasks went, so the failure is then "unknown", never False.
    log: list[tuple[object, ...]] = []
    run = packer(ROWS, 2, "ff", "input", Work(None))
    assert run.run(log) == verdict
    assert run.failed_task == 4 and run.refusals == ((0, "full"), (1, "full")) and not run.work_exhausted
    assert log[-1] == (4, ((0, "full"), (1, "full")), None, "failed")


def test_packer_work_budget() -> None:
    packer = _Decided(ROWS, 2, "bf", "input", Work(len(ROWS) + 2))  # best fit reads the loads: 1 term each
    assert packer.run() == UNKNOWN
    assert packer.work_exhausted and packer.refusals == () and packer.failed_task == 2
    assert packer.assignment == [0, 0, None, None, None]
