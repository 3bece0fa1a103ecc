"""`rtsched list`: the catalogue of analyses, as a table and as JSON lines."""

import json

from rtsched import registry
from rtsched.cli import main


def test_table_names_every_analysis_and_family(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    for name in registry.names():
        assert f"\n{name} " in out
    assert "families:" in out and "p:<fit>:<order>:<admission>" in out
    # The paper note of each analysis (papers/), and a rule as wide as each column.
    lines = out.splitlines()
    assert "paper (papers/)" in lines[0] and len(lines[1]) == max(
        len(line) for line in lines[: 2 + len(registry.names())]
    )
    for entry in registry.all_entries():
        row = next(line for line in lines if line.startswith(f"{entry.name} "))
        assert entry.note.removeprefix("papers/") in row


def test_json_lines_carry_the_metadata(capsys):
    assert main(["list", "--json", "--featured"]) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["name"] for r in records] == registry.names(featured_only=True)
    gfb = next(r for r in records if r["name"] == "gfb")
    assert gfb["kind"] == "sufficient" and gfb["policy"] == "global-edf" and gfb["note"] == "papers/gfb2003.md"
    assert "arbitrary" in gfb["deadlines"] and "Goossens" in gfb["citation"]


def test_budgets_have_one_name_and_a_unit(capsys):
    assert main(["list", "--json"]) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    with_budget = [r for r in records if r["budget"] is not None]
    assert with_budget, "some analysis has a work budget"
    for r in with_budget:
        assert isinstance(r["budget"], int) and r["budget"] > 0 and r["budget_unit"], r
    assert next(r for r in records if r["name"] == "gfb")["budget"] is None


def test_a_terminal_gets_blocks_that_fit_its_width():
    """On a terminal (issue #46: tables up to 309 columns) each analysis is a block within the width."""
    from rtsched.commands.list import _aligned, _budget

    rows = [("name", "kind", "policy", "platform", "deadlines", "budget", "paper (papers/)", "title")]
    for e in registry.all_entries():
        note = e.note.removeprefix("papers/") if e.note else "-"
        rows.append(
            (
                e.name,
                e.kind,
                e.policy,
                e.platform,
                ",".join(e.deadlines),
                _budget(e.budget, e.budget_unit),
                note,
                e.title,
            )
        )
    lines = _aligned(rows, 100)
    assert max(map(len, lines)) <= 100
    text = "\n".join(lines)
    for e in registry.all_entries():
        assert f"\n{e.name}  (" in "\n" + text
    assert max(map(len, _aligned(rows, None))) > 100  # a pipe keeps one line per analysis
