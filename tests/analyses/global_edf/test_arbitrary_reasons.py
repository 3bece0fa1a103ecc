"""Analyses that refuse arbitrary deadlines (D > T) say why (issue #47): ``deadlines_note``.

The registry returns the note from ``supports``/``refuses_deadlines`` for an arbitrary-deadline
set, ``verdict``/``check`` raise it as one InputError line, ``to_dict`` carries it, and
``rtsched list`` prints it in its "why not arbitrary deadlines" section. Implicit and constrained
sets are not affected. papers/arbitrary-deadlines-reductions.md, "Global EDF" and "Exact tests".
"""

from __future__ import annotations

import pytest

from rtsched import TaskSet, analyses
from rtsched.cli import main
from rtsched.errors import InputError

ARBITRARY = TaskSet.from_tasks([(1, 5, 2), (1, 3, 4)], deadlines="arbitrary")
CONSTRAINED = TaskSet.from_tasks([(1, 2, 2), (1, 3, 4)])
#: name -> a phrase of its reason (the paper the reason names, or the model it needs)
REFUSING = {
    "bak": "Baker 2005",
    "bcl": "Bertogna, Cirinei, Lipari",
    "bcl-iter": "Bertogna, Cirinei, Lipari",
    "rta": "Bertogna & Cirinei",
    "bar": "Baker & Baruah",
    "bar-int": "Baker & Baruah",
    "ffdbf": "Baruah, Bonifaci, Marchetti-Spaccamela, Stiller",
    "tardiness-da": "implicit deadlines only",
    "rm-us": "implicit deadlines only",
}


@pytest.mark.parametrize("name", list(REFUSING))
def test_refusal_names_its_reason(name):
    entry = analyses.get(name)
    assert "arbitrary" not in entry.deadlines
    why = entry.supports(2, ARBITRARY)
    assert why == entry.deadlines_note and REFUSING[name] in why
    assert entry.to_dict()["deadlines_note"] == why
    with pytest.raises(InputError, match="needs (constrained|implicit) deadlines|implicit deadlines only"):
        entry.verdict(ARBITRARY, 2)


@pytest.mark.parametrize("name", [n for n in REFUSING if n not in ("tardiness-da", "rm-us")])
def test_constrained_sets_are_not_refused(name):
    assert analyses.get(name).supports(2, CONSTRAINED) is None


def test_analyses_taking_arbitrary_deadlines_have_no_note():
    for entry in analyses.all_entries():
        if "arbitrary" in entry.deadlines:
            assert not entry.deadlines_note, entry.name


def test_list_prints_the_reasons(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    section = out.split("why not arbitrary deadlines (D > T):", 1)[1]
    for name in REFUSING:
        assert f"\n  {name}: {analyses.get(name).deadlines_note}" in section
