"""References in the documentation site resolve, strictly (issue #48).

* The guides link the repository's files (``../../papers/x.md``), which work on GitHub, and the
  build points them at the site's rendered copies (:mod:`rtsched.docs.links`).
* ``docs/conf.py`` tolerates no unresolved reference: no handler swallows Sphinx's
  missing-reference warnings, no ``nitpick_ignore`` pattern covers rtsched's own names, and a
  Sphinx build with the site's configuration (``-n -W``) fails on a docstring that names an
  undocumented object (``docs`` marker: it needs the ``docs`` extra).
"""

import re
import runpy
import shutil
import textwrap
from pathlib import Path

import pytest

from rtsched.docs import links

ROOT = Path(__file__).resolve().parents[1]
GUIDES = ROOT / "docs" / "guide"
CONF = ROOT / "docs" / "conf.py"
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


@pytest.mark.parametrize(
    ("path", "page"),
    [
        pytest.param("papers/gedf-upper.md", "papers/gedf-upper.md", id="note"),
        pytest.param("examples/fp_vs_edf.png", "examples/fp_vs_edf.png", id="figure"),
        pytest.param("examples/README.md", "examples/README.md", id="examples-readme"),
        pytest.param("examples/labs/README.md", "labs/index.md", id="labs-readme"),
        pytest.param("examples/labs/lab7_dag.py", "labs/lab7_dag.md", id="lab"),
        pytest.param("examples/labs/_labkit.py", None, id="lab-helper"),
        pytest.param("examples/fp_vs_edf.py", None, id="script"),
        pytest.param("papers/repro/default_resolution.py", None, id="repro-script"),
        pytest.param("README.md", None, id="readme"),
    ],
)
def test_site_target(path, page):
    assert links.site_target(path) == page


def test_site_links_point_at_the_generated_copies(tmp_path):
    guide = tmp_path / "docs" / "guide" / "x.md"
    text = (
        "[note](../../papers/a.md#eq-3) ![fig](../../examples/f.png) [labs](../../examples/labs/README.md) "
        "[lab](../../examples/labs/lab1_uniprocessor.py) [script](../../examples/run.py) "
        "[examples/run.py](../../examples/run.py) ![plot](../../examples/data/p.svg) "
        "[web](https://example.org/a.md) [here](#section) [guide](check.md) [home](../index.md)"
    )
    assert links.site_links(text, guide, tmp_path) == (
        "[note](../_generated/papers/a.md#eq-3) ![fig](../_generated/examples/f.png) "
        "[labs](../_generated/labs/index.md) [lab](../_generated/labs/lab1_uniprocessor.md) "
        "script (`examples/run.py`) `examples/run.py` `examples/data/p.svg` "
        "[web](https://example.org/a.md) [here](#section) [guide](check.md) [home](../index.md)"
    )


def test_guides_link_the_repository_not_the_build():
    """Each guide's relative link works on GitHub (the file exists) and on the site (a page or figure)."""
    guides = sorted(GUIDES.glob("*.md"))
    assert guides
    problems = []
    for guide in guides:
        for target in LINK.findall(guide.read_text(encoding="utf-8")):
            if re.match(r"^[a-z]+:", target):
                continue
            path = (guide.parent / target).resolve()
            if not path.exists():
                problems.append(f"{guide.name}: {target} does not exist in the repository")
            elif (
                not path.is_relative_to(ROOT / "docs") and links.site_target(path.relative_to(ROOT).as_posix()) is None
            ):
                problems.append(f"{guide.name}: {target} is not on the site (it would show as a path)")
            elif path.is_relative_to(ROOT / "docs" / "_generated"):
                problems.append(f"{guide.name}: {target} exists only after a build")
    assert problems == []


def _conf(monkeypatch) -> dict:
    monkeypatch.setenv("RTSCHED_DOCS_GENERATED", "1")  # read the configuration, generate nothing
    return runpy.run_path(str(CONF))


class _App:
    def __init__(self):
        self.events = []

    def connect(self, event, handler):
        self.events.append(event)


def test_conf_tolerates_no_unresolved_reference(monkeypatch):
    conf = _conf(monkeypatch)
    app = _App()
    conf["setup"](app)
    assert not {"warn-missing-reference", "missing-reference"} & set(app.events)
    assert not conf.get("nitpick_ignore")
    for _, pattern in conf["nitpick_ignore_regex"]:
        for name in ("rtsched", "rtsched.model.MAX_TASKS", "InputError", "TaskSet", "_private", "DAGTask.types"):
            assert not re.fullmatch(pattern, name), (pattern, name)


def test_private_bases_are_not_shown(monkeypatch):
    import rtsched
    from rtsched import dag

    conf = _conf(monkeypatch)
    bases = [rtsched.TaskSet.__bases__[0]]
    assert bases[0].__name__.startswith("_")  # _TaskArrays: the case this handles
    conf["_public_bases"](None, "rtsched.TaskSet", rtsched.TaskSet, {}, bases)
    assert all(not b.__name__.startswith("_") for b in bases)
    for cls in (dag.DAGBatch, dag.DAGTaskSet):  # ObjectBatch[DAGTaskSet]: generic private bases
        bases = list(getattr(cls, "__orig_bases__", cls.__bases__))
        assert "_tasksets" in repr(bases)
        conf["_public_bases"](None, cls.__name__, cls, {}, bases)
        assert "_tasksets" not in repr(bases) and "typing.Generic" not in repr(bases), bases


MODULE = '''
"""A module of the test project.

It names :func:`documented` and :func:`{target}`.
"""

__all__ = ["documented"]


def documented():
    """A documented function."""
'''


def _build(tmp_path: Path, target: str) -> tuple[int, str]:
    sphinx_build = pytest.importorskip("sphinx.cmd.build")
    src = tmp_path / f"src-{target}"
    (src / "_generated" / "static").mkdir(parents=True)
    (src / f"refmod_{target}.py").write_text(MODULE.format(target=target), encoding="utf-8")
    (src / "conf.py").write_text(
        textwrap.dedent(
            f"""
            import sys
            from pathlib import Path
            sys.path.insert(0, {str(src)!r})
            exec(compile(Path({str(CONF)!r}).read_text(encoding="utf-8"), {str(CONF)!r}, "exec"))
            html_theme = "basic"
            """
        ),
        encoding="utf-8",
    )
    (src / "index.rst").write_text(f"Test\n====\n\n.. automodule:: refmod_{target}\n   :members:\n", encoding="utf-8")
    warnings = tmp_path / f"warnings-{target}.txt"
    status = sphinx_build.build_main(
        ["-b", "html", "-q", "-n", "-W", "--keep-going", "-w", str(warnings), str(src), str(tmp_path / f"out-{target}")]
    )
    text = warnings.read_text(encoding="utf-8") if warnings.exists() else ""
    shutil.rmtree(src)
    return status, text


@pytest.mark.docs
def test_an_unresolved_docstring_reference_fails_the_build(tmp_path, monkeypatch):
    monkeypatch.setenv("RTSCHED_DOCS_GENERATED", "1")
    status, warnings = _build(tmp_path, "documented")
    assert status == 0, warnings
    status, warnings = _build(tmp_path, "undocumented_helper")
    assert status != 0
    assert "undocumented_helper" in warnings and "reference target not found" in warnings


def test_generators_modules_have_pages_and_aliases_are_data():
    from rtsched.docs import api

    pages = api.api_pages()
    for module in ("dag", "mc", "gpu", "segmented", "utilizations"):
        assert f"rtsched.generators.{module}.rst" in pages, module
    dag = pages["rtsched.generators.dag.rst"]
    assert ":exclude-members: Graph" in dag  # autodoc would take the alias for a class
    assert (
        ".. py:data:: Graph\n   :module: rtsched.generators.dag\n   :value: tuple[list[int], list[tuple[int, int]]]"
        in dag
    )
    assert "   A generated graph: vertex WCETs" in dag  # its #: comment
