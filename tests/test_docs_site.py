"""The documentation site (issue #48).

Fast tests (the default run) check the generators without Sphinx: the analyses catalogue covers
every registry entry, the API reference every name of ``rtsched.__all__``, the CLI reference
every command. The ``docs`` tests (``pytest -m docs``, after ``python -m rtsched.docs``) read the
built site: the inventory of documented objects against ``rtsched.__all__`` and the registry,
and pages opened in headless Chromium as a reader would, with their figures, and screenshots
saved in ``docs/_build/screenshots/``.
"""

import functools
import http.server
import os
import re
import shutil
import subprocess
import threading
import zlib
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urljoin, urlparse

import pytest

import rtsched
from rtsched import registry
from rtsched.docs import api, catalogue, cliref, execute, notes

ROOT = Path(__file__).resolve().parents[1]
HTML = Path(os.environ.get("RTSCHED_DOCS_HTML", ROOT / "docs" / "_build" / "html"))
SHOTS = ROOT / "docs" / "_build" / "screenshots"


# -- fast: the generators -------------------------------------------------------------------------
def test_catalogue_covers_the_registry():
    text = catalogue.catalogue_markdown()
    for entry in registry.all_entries():
        assert f"### `{entry.name}`" in text, entry.name
        assert f"(#analysis-{''.join(c if c.isalnum() else '-' for c in entry.name)})" in text


def test_worked_example_is_the_analysis_own_verdict():
    entry = registry.get("gfb")
    example = catalogue.worked_example(entry)
    item, platform = catalogue.example_input(entry)
    assert example["verdict"] == str(entry.reference(item, platform))
    assert example["input"] == repr(item) and example["summary"]


def test_api_reference_lists_every_public_name():
    pages = api.api_pages()
    top = pages["rtsched.rst"]
    for name in rtsched.__all__:
        assert re.search(rf"^\.\. auto\w+:: {re.escape(name)}$", top, re.M), name
    for module, _ in api.MODULES:
        assert f"{module}.rst" in pages and f"   {module}\n" in pages["index.rst"]


def test_cli_reference_has_every_command():
    text = cliref.cli_markdown()
    names = cliref.command_names()
    assert {"check", "sweep", "list", "simulate"} <= set(names)
    for name in names:
        assert f"## `rtsched {name}`" in text and f"Usage: rtsched {name}" in text


def test_note_links_to_other_files_become_paths(tmp_path):
    (tmp_path / "papers").mkdir()
    note, other = tmp_path / "papers" / "a.md", tmp_path / "papers" / "b.md"
    other.write_text("# B\n")
    text = "[b](b.md), [script](../examples/x.py), [web](https://example.org), [x.py](../examples/x.py)"
    out = notes.rewrite_links(text, note, tmp_path, {other.resolve()})
    assert out == "[b](b.md), script (`examples/x.py`), [web](https://example.org), `examples/x.py`"


LAB = """# %% [markdown]
# # A tiny lab
#
# Text with $x^2$.

# %%
import os
from pathlib import Path

import matplotlib.pyplot as plt

print(1 + 1)
fig, ax = plt.subplots()
ax.plot([0, 1], [0, 1])
fig.savefig(Path(os.environ["RTSCHED_LAB_OUT"]) / "line.png")
3 * 3

# %% tags=["solution"]
print("solved")
"""


def _run_lab(tmp_path, text):
    import subprocess
    import sys

    lab, folder = tmp_path / "lab0_tiny.py", tmp_path / "run"
    lab.write_text(text, encoding="utf-8")
    folder.mkdir()
    proc = subprocess.run(
        [sys.executable, "-m", "rtsched.docs.execute", str(ROOT), str(lab), str(folder)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env=dict(os.environ, MPLBACKEND="Agg"),
    )
    return proc, folder


def test_lab_runs_cell_by_cell_with_outputs_and_figures(tmp_path):
    import json

    proc, folder = _run_lab(tmp_path, LAB)
    assert proc.returncode == 0, proc.stderr
    cells = json.loads((folder / "result.json").read_text())["cells"]
    assert [c["kind"] for c in cells] == ["markdown", "code", "code"]
    assert cells[1]["output"] == "2\n9\n" and cells[1]["figures"] == ["line.png"]
    assert (folder / "figures" / "line.png").read_bytes()[:4] == b"\x89PNG"
    assert cells[2]["tags"] == ["solution"] and cells[2]["output"] == "solved\n"


def test_a_failing_lab_cell_fails_and_is_not_cached(tmp_path):
    proc, folder = _run_lab(tmp_path, LAB.replace("3 * 3", "1 / 0"))
    assert proc.returncode == 1 and "ZeroDivisionError" in proc.stderr
    assert not (folder / "result.json").exists()


def test_every_example_script_is_in_the_gallery():
    """An example script is a gallery item, or it is not an example (issue #48)."""
    scripts = {p.stem for p in (ROOT / "examples").glob("*.py")}
    assert scripts == {name for name, _, _ in execute.GALLERY}


def test_lab_sizes_are_read_from_the_small_switch():
    source = (
        "SETS = 20 if SMALL else 300\n"
        "spec = {'points': [0.5] if SMALL else [0.1, 0.5]}\n"
        "n = f(k=3 if SMALL else 9)\n"
        "for s in range(2 if SMALL else 12):\n    pass\n"
        "rows = items[: 3 if SMALL else None]\n"
        "x = 1 if not SMALL else 2\n"
        "y = 1 if FAST else 2\n"
    )
    assert execute.lab_sizes(source) == [
        ("SETS", 1, "20", "300"),
        ("'points'", 2, "[0.5]", "[0.1, 0.5]"),
        ("k", 3, "3", "9"),
        ("for s in …", 4, "2", "12"),
        ("rows", 6, "3", "all"),
        ("x", 7, "2", "1"),
    ]


@pytest.mark.parametrize("lab", sorted((ROOT / "examples" / "labs").glob("lab*.py")), ids=lambda p: p.stem)
def test_lab_page_states_the_sizes_it_ran_with(lab):
    cells = execute._load_build(ROOT).parse(lab.read_text(encoding="utf-8"), str(lab))
    run = [{"kind": c.kind, "source": "\n".join(c.lines), "tags": c.tags, "output": "", "figures": []} for c in cells]
    page = execute._lab_page(ROOT, lab, {"lab": lab.stem, "cells": run}, lab.stem)
    assert "did not run" not in page
    sizes = execute.lab_sizes(lab.read_text(encoding="utf-8"))
    if sizes:
        assert "RTSCHED_EXAMPLE_SMALL=1" in page
        for name, line, small, full in sizes:
            assert f"| {line} | `{small}` | `{full}` |" in page, name
    else:
        assert "no size switch" in page


# -- docs: the built site ---------------------------------------------------------------------------
def _built() -> Path:
    if not (HTML / "index.html").is_file():
        pytest.fail(f"no site in {HTML}: build it first with python -m rtsched.docs")
    return HTML


def _inventory() -> set[str]:
    data = (_built() / "objects.inv").read_bytes()
    body = zlib.decompress(data.split(b"\n", 4)[4]).decode()
    return {line.split(" ", 1)[0] for line in body.splitlines()}


@pytest.mark.docs
def test_inventory_documents_every_public_name():
    names = _inventory()
    missing = [n for n in rtsched.__all__ if f"rtsched.{n}" not in names]
    assert not missing, missing
    for module, _ in api.MODULES:
        for name in api.documented_names(module):
            obj = getattr(__import__(module, fromlist=[name]), name)
            if not hasattr(obj, "__path__") and not isinstance(obj, type(os)):
                assert f"{module}.{name}" in names, f"{module}.{name}"


@pytest.mark.docs
def test_catalogue_page_has_every_analysis():
    page = (_built() / "_generated" / "analyses.html").read_text(encoding="utf-8")
    for entry in registry.all_entries():
        anchor = "analysis-" + "".join(c if c.isalnum() else "-" for c in entry.name)
        assert f'id="{anchor}"' in page, entry.name


class _Images(HTMLParser):
    def __init__(self):
        super().__init__()
        self.sources: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag == "img":
            self.sources.append(dict(attrs).get("src") or "")


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def site():
    root = _built()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(root)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/", root
    server.shutdown()
    server.server_close()


def _chromium() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path is None:
        pytest.fail("Chromium is not installed (apt-get install -y chromium); .ci/run installs it")
    return path


def _browse(url: str, tmp_path: Path, *extra: str) -> subprocess.CompletedProcess:
    args = [
        _chromium(),
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={tmp_path / 'profile'}",
        *extra,
        url,
    ]
    return subprocess.run(args, capture_output=True, text=True, timeout=120, check=False)


PAGES = [
    pytest.param("_generated/api/rtsched.html", "rtsched.check", 0, id="api-check"),
    pytest.param("_generated/analyses.html", "Analyses catalogue", 0, id="catalogue"),
    pytest.param("_generated/labs/lab1_uniprocessor.html", "Lab 1", 1, id="lab1"),
    pytest.param("_generated/labs/lab4_experiments.html", "RTSCHED_EXAMPLE_SMALL=1", 3, id="lab4"),
    pytest.param("_generated/gallery/index.html", "Gallery", len(execute.GALLERY), id="gallery"),
]


@pytest.mark.docs
@pytest.mark.parametrize(("page", "text", "figures"), PAGES)
def test_page_renders_in_a_browser(site, tmp_path, page, text, figures):
    base, root = site
    url = urljoin(base, page)
    dom = _browse(url, tmp_path, "--dump-dom")
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert text in dom.stdout and "</html>" in dom.stdout
    parser = _Images()
    parser.feed(dom.stdout)
    shown = []
    for src in parser.sources:
        target = urlparse(urljoin(url, src))
        if target.netloc != urlparse(base).netloc:
            continue
        path = root / unquote(target.path).lstrip("/")
        assert path.is_file() and path.stat().st_size > 0, src
        head = path.read_bytes()[:256]
        assert head.startswith(b"\x89PNG") or b"<svg" in head or head.startswith(b"<?xml"), src
        shown.append(path)
    assert len([p for p in shown if p.suffix == ".png"]) >= figures, shown
    SHOTS.mkdir(parents=True, exist_ok=True)
    shot = SHOTS / f"{Path(page).stem}.png"
    taken = _browse(url, tmp_path, f"--screenshot={shot}", "--window-size=1280,900")
    assert taken.returncode == 0, taken.stderr[-2000:]
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 10_000


@pytest.mark.docs
@pytest.mark.parametrize("lab", sorted((ROOT / "examples" / "labs").glob("lab*.py")), ids=lambda p: p.stem)
def test_every_lab_page_is_executed(lab):
    """Every lab is rendered with its outputs and figures, not as code only (issue #48)."""
    path = _built() / "_generated" / "labs" / f"{lab.stem}.html"
    page = path.read_text(encoding="utf-8")
    assert "computed when this site was built" in page and "did not run" not in page
    parser = _Images()
    parser.feed(page)
    figures = [path.parent / unquote(src) for src in parser.sources if src.endswith(".png")]
    assert figures and all(f.is_file() and f.stat().st_size > 0 for f in figures), lab.stem


@pytest.mark.docs
def test_api_page_documents_check(site, tmp_path):
    base, _ = site
    dom = _browse(urljoin(base, "_generated/api/rtsched.html"), tmp_path, "--dump-dom")
    assert 'id="rtsched.check"' in dom.stdout and 'id="rtsched.TaskSet"' in dom.stdout
