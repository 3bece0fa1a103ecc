"""``rtsched plot`` styles and options (issue #46, item 1): figures a venue accepts.

One tiny sweep per module (two values of m as panels, two utilizations, 20 sets, three
analyses incl. the dashed upper bound), then every option of ``rtsched plot`` and of
:func:`rtsched.sweep.plot.acceptance_figure` on it.
"""

from __future__ import annotations

import csv
import json
import re
import shutil
from pathlib import Path

import matplotlib
import pytest

from rtsched.cli import main
from rtsched.sweep import parse_experiment, run, wilson_interval
from rtsched.sweep.plot import acceptance_figure, caption_of, panel_title, short_label
from rtsched.sweep.style import FIXED_LOOKS, MARKERS, PALETTE, STYLES, analysis_look
from rtsched.testing.experiments import experiment_toml

NAMES = ["gfb", "p-edf", "gedf-upper"]


def _toml(m: str = "[2, 4]") -> str:
    generator = {
        "n": "5",
        "utilizations": '"randfixedsum"',
        "periods": '"log-uniform:10:100"',
        "deadlines": '"implicit"',
    }
    return experiment_toml(
        name="styletiny", seed=5, m=m, generator=generator, points="[0.3, 0.7]",
        sets_per_point=20, sets_per_unit=20, names=json.dumps(NAMES),
    )  # fmt: skip


@pytest.fixture(scope="module")
def sweep_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("styles") / "out"
    run(parse_experiment(_toml()), out, workers=0, progress="none", plot=False)
    return out


@pytest.fixture
def fresh(sweep_dir: Path, tmp_path: Path) -> Path:
    """A copy of the module's sweep directory, to write plots into."""
    return Path(shutil.copytree(sweep_dir, tmp_path / "copy"))


def _rows(directory: Path) -> list[dict[str, str]]:
    return list(csv.DictReader((directory / "results.csv").read_text(encoding="utf-8").splitlines()))


def _legend_texts(fig: matplotlib.figure.Figure) -> list[str]:
    legends = list(fig.legends) + [ax.get_legend() for ax in fig.axes if ax.get_legend() is not None]
    return [t.get_text() for lg in legends for t in lg.get_texts()]


# ---------------------------------------------------------------------------------------------
# 1. Styles: sizes in inches, fonts per style, Type 42 in PDF/PS, SVG text as text
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("style", "width"), [("paper", 3.5), ("paper2", 7.16), ("slides", 10.0)])
def test_style_widths_in_inches(sweep_dir: Path, style: str, width: float) -> None:
    fig = acceptance_figure(sweep_dir, style=style)
    assert fig.get_figwidth() == pytest.approx(width)
    assert fig.axes[0].xaxis.label.get_fontsize() == pytest.approx(STYLES[style].font_size)


def test_slides_fonts_are_larger_than_paper_fonts(sweep_dir: Path) -> None:
    paper, slides = acceptance_figure(sweep_dir, style="paper"), acceptance_figure(sweep_dir, style="slides")
    assert slides.axes[0].xaxis.label.get_fontsize() > paper.axes[0].xaxis.label.get_fontsize()


@pytest.mark.parametrize("style", ["default", "paper"])
def test_pdf_has_no_type3_font_and_svg_keeps_text(fresh: Path, style: str) -> None:
    # Even when the caller's rcParams ask for Type 3 fonts and SVG paths.
    with matplotlib.rc_context({"pdf.fonttype": 3, "svg.fonttype": "path"}):
        assert main(["plot", str(fresh), "--style", style, "--formats", "pdf,svg"]) == 0
    pdf = (fresh / "acceptance.pdf").read_bytes()
    assert b"/Subtype /Type3" not in pdf and b"/FontFile2" in pdf  # TrueType (Type 42) embedded
    svg = (fresh / "acceptance.svg").read_text(encoding="utf-8")
    assert "<text" in svg and "Acceptance ratio" in svg


def test_returned_figure_saves_type42_whatever_the_rcparams(sweep_dir: Path, tmp_path: Path) -> None:
    fig = acceptance_figure(sweep_dir, style="paper")
    with matplotlib.rc_context({"pdf.fonttype": 3, "ps.fonttype": 3}):
        fig.savefig(tmp_path / "f.pdf")
        fig.savefig(tmp_path / "f.ps")
    assert b"/Subtype /Type3" not in (tmp_path / "f.pdf").read_bytes()
    assert b"/FontType 3" not in (tmp_path / "f.ps").read_bytes()
    assert b"/FontType 42" in (tmp_path / "f.ps").read_bytes()


def test_unknown_style_is_one_line_exit_2(fresh: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plot", str(fresh), "--style", "poster"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--style" in err and "paper2" in err


# ---------------------------------------------------------------------------------------------
# 2. A colour and marker per analysis, the same in every figure
# ---------------------------------------------------------------------------------------------
def _look_of(fig: matplotlib.figure.Figure, label_start: str) -> tuple[str, str, str]:
    for line in fig.axes[0].get_lines():
        if line.get_label().startswith(label_start):
            return matplotlib.colors.to_hex(line.get_color()), str(line.get_marker()), str(line.get_linestyle())
    raise AssertionError(label_start)


def test_same_analysis_same_look_across_figures_with_different_curves(sweep_dir: Path) -> None:
    one = acceptance_figure(sweep_dir, tests="gfb,p-edf")
    two = acceptance_figure(sweep_dir, tests="p-edf")
    three = acceptance_figure(sweep_dir, tests="gedf-upper,p-edf,gfb", style="paper")
    assert _look_of(one, "P-EDF") == _look_of(two, "P-EDF") == _look_of(three, "P-EDF")
    assert _look_of(one, "G-EDF · GFB") == _look_of(three, "G-EDF · GFB")
    assert _look_of(one, "G-EDF · GFB") != _look_of(one, "P-EDF")
    assert _look_of(one, "P-EDF")[0] == FIXED_LOOKS["p-edf"][0].lower()


def test_look_is_a_function_of_the_name_only() -> None:
    assert analysis_look("gfb") == analysis_look("gfb")
    fallback = analysis_look("my-own-test")
    assert fallback == analysis_look("my-own-test") and fallback["color"] in PALETTE and fallback["marker"] in MARKERS
    assert analysis_look("gedf-upper", "necessary")["color"] == "black"
    # The hand-made table gives distinct looks.
    assert len(set(FIXED_LOOKS.values())) == len(FIXED_LOOKS)
    # The hash fallback spreads names over the palette.
    assert len({analysis_look(f"t{i}")["color"] for i in range(60)}) == len(PALETTE)


# ---------------------------------------------------------------------------------------------
# 3. Options
# ---------------------------------------------------------------------------------------------
def test_tests_select_and_order_the_curves(sweep_dir: Path) -> None:
    fig = acceptance_figure(sweep_dir, tests=["p-edf", "gfb"], legend="below")
    texts = _legend_texts(fig)
    assert [t.split(" ·")[0] for t in texts] == ["P-EDF", "G-EDF"]
    assert len(fig.axes[0].get_lines()) == 2


@pytest.mark.parametrize(
    ("args", "field"),
    [
        (["--tests", "gfb,nope"], "--tests"),
        (["--tests", "gfb,gfb"], "--tests"),
        (["--label", "nope=X"], "--label"),
        (["--label", "gfb"], "--label"),
        (["--legend", "left"], "--legend"),
        (["--title", "T", "--no-title"], "--title"),
    ],
)
def test_bad_options_one_line_exit_2(
    fresh: Path, capsys: pytest.CaptureFixture[str], args: list[str], field: str
) -> None:
    assert main(["plot", str(fresh), "--formats", "png", *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("rtsched: error:") and err.count("\n") == 1 and field in err


def test_labels_replace_legend_texts(fresh: Path) -> None:
    fig = acceptance_figure(fresh, labels=["gfb=GFB [7]", "p-edf=P-EDF [3]"], legend="inside")
    assert {"GFB [7]", "P-EDF [3]"} <= set(_legend_texts(fig))
    assert main(["plot", str(fresh), "--formats", "svg", "--label", "gfb=Goossens bound"]) == 0
    assert "Goossens bound" in (fresh / "acceptance.svg").read_text(encoding="utf-8")


@pytest.mark.parametrize("where", ["outside", "below", "inside", "off"])
def test_legend_placement(sweep_dir: Path, where: str) -> None:
    fig = acceptance_figure(sweep_dir, style="paper", legend=where)
    assert len(fig.legends) == (1 if where in ("outside", "below") else 0)
    assert (fig.axes[0].get_legend() is not None) == (where == "inside")
    if where == "below":
        fig.canvas.draw()
        legend_box = fig.legends[0].get_window_extent()
        assert legend_box.y1 <= fig.axes[0].get_window_extent().y0  # under the panels


def test_no_title_by_default_and_a_title_on_request(fresh: Path) -> None:
    for style in STYLES:
        fig = acceptance_figure(fresh, style=style)
        assert fig.get_suptitle() == ""
    assert main(["plot", str(fresh), "--formats", "svg"]) == 0
    assert "styletiny" not in (fresh / "acceptance.svg").read_text(encoding="utf-8")  # no experiment name
    assert acceptance_figure(fresh, title="Global vs partitioned EDF").get_suptitle() == "Global vs partitioned EDF"
    assert main(["plot", str(fresh), "--formats", "svg", "--title", "My title"]) == 0
    assert "My title" in (fresh / "acceptance.svg").read_text(encoding="utf-8")


def test_caption_written_next_to_the_figure_and_drawn_only_on_request_in_paper_styles(fresh: Path) -> None:
    assert main(["plot", str(fresh), "--style", "paper", "--formats", "svg"]) == 0
    text = (fresh / "CAPTION.txt").read_text(encoding="utf-8")
    assert "20 sets per point" in text and "randfixedsum" in text and "upper bound of G-EDF" in text
    svg = (fresh / "acceptance.svg").read_text(encoding="utf-8")
    assert "randfixedsum" not in svg
    assert main(["plot", str(fresh), "--style", "paper", "--formats", "svg", "--caption"]) == 0
    assert "randfixedsum" in (fresh / "acceptance.svg").read_text(encoding="utf-8")
    # The default style draws it (today's look) unless told not to.
    assert main(["plot", str(fresh), "--formats", "svg", "--no-caption"]) == 0
    assert "randfixedsum" not in (fresh / "acceptance.svg").read_text(encoding="utf-8")
    assert main(["plot", str(fresh), "--formats", "svg"]) == 0
    assert "randfixedsum" in (fresh / "acceptance.svg").read_text(encoding="utf-8")


def test_caption_says_bands_only_when_drawn(sweep_dir: Path) -> None:
    rows = _rows(sweep_dir)
    canonical = json.loads((sweep_dir / "manifest.json").read_text(encoding="utf-8"))["experiment"]
    assert "Wilson" in caption_of(canonical, rows, ci=True)
    assert "Wilson" not in caption_of(canonical, rows, ci=False)


def test_panel_titles_in_words(sweep_dir: Path) -> None:
    assert panel_title("generator.deadlines", "uniform") == "deadlines = uniform"
    assert panel_title("generator.max_branches", "3") == "max branches = 3"
    assert panel_title("m", "4") == "m = 4"
    fig = acceptance_figure(sweep_dir)
    assert [ax.get_title() for ax in fig.axes if ax.get_visible()] == ["m = 2", "m = 4"]


def test_short_labels_of_paper_styles() -> None:
    assert short_label("G-EDF · Response-time analysis (Bertogna–Cirinei)") == "G-EDF · Response-time analysis"
    assert short_label("G-EDF · Upper bound (not a test): U ≤ m, no miss") == "G-EDF · Upper bound"
    assert short_label("plain") == "plain"


def test_weighted_on_off_and_not_available(fresh: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plot", str(fresh), "--formats", "png", "--no-weighted"]) == 0
    assert not (fresh / "weighted.png").exists()
    assert main(["plot", str(fresh), "--formats", "png", "--weighted", "--style", "paper"]) == 0
    assert (fresh / "weighted.png").stat().st_size > 1000
    single = tmp_path / "single"
    run(parse_experiment(_toml(m="2")), single, workers=0, progress="none", plot=False)
    assert main(["plot", str(single), "--formats", "png"]) == 0  # no weighted figure, no complaint
    assert main(["plot", str(single), "--formats", "png", "--weighted"]) == 2
    err = capsys.readouterr().err
    assert "not available" in err and "second swept variable" in err and err.count("\n") == 1


def test_ci_bands_are_wilson_intervals_of_the_sets_per_point(sweep_dir: Path) -> None:
    rows = _rows(sweep_dir)
    fig = acceptance_figure(sweep_dir, ci=True, tests="gfb")
    ax = fig.axes[0]
    (band,) = ax.collections
    path = band.get_paths()[0].vertices
    sel = [r for r in rows if r["analysis"] == "gfb" and r["by_value"] == "2"]
    for r in sel:
        low, high = wilson_interval(int(r["accepted"]), int(r["sets"]))
        assert int(r["sets"]) == 20
        ys = list(path[:, 1])  # x may be the realized utilization; the band's y values are exact
        assert any(y == pytest.approx(low) for y in ys) and any(y == pytest.approx(high) for y in ys)
    assert not acceptance_figure(sweep_dir, ci=False).axes[0].collections
    assert not acceptance_figure(sweep_dir, style="paper").axes[0].collections  # paper default: no bands
    assert acceptance_figure(sweep_dir, style="paper", ci=True).axes[0].collections


# ---------------------------------------------------------------------------------------------
# 4. The Python function: rows instead of a directory
# ---------------------------------------------------------------------------------------------
def test_figure_from_rows_and_experiment(sweep_dir: Path) -> None:
    rows = _rows(sweep_dir)
    canonical = json.loads((sweep_dir / "manifest.json").read_text(encoding="utf-8"))["experiment"]
    fig = acceptance_figure(rows, experiment=canonical, style="paper2", caption=True)
    assert fig.get_figwidth() == pytest.approx(7.16)
    assert any("randfixedsum" in t.get_text() for t in fig.texts)
    bare = acceptance_figure(rows)  # no experiment: no caption, still a figure
    assert not bare.texts and len(bare.axes[0].get_lines()) == 3


def test_figure_from_a_pandas_frame(sweep_dir: Path) -> None:
    pd = pytest.importorskip("pandas")
    frame = pd.read_csv(sweep_dir / "results.csv")
    fig = acceptance_figure(frame, tests="gfb", legend="off")
    assert [ax.get_title() for ax in fig.axes if ax.get_visible()] == ["m = 2", "m = 4"]
    ys = fig.axes[0].get_lines()[0].get_ydata()
    assert all(0 <= y <= 1 for y in ys)


def test_sweep_writes_caption_txt(sweep_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "again"
    results = run(parse_experiment(_toml()), out, workers=0, progress="none", plot=True)
    assert (out / "CAPTION.txt").is_file() and re.search(r"\d+ sets per point", (out / "CAPTION.txt").read_text())
    assert results.files["acceptance.png"] == out / "acceptance.png"


@pytest.mark.parametrize("caption", [False, True])
@pytest.mark.parametrize("style", ["paper", "paper2", "slides"])
@pytest.mark.parametrize("where", ["outside", "below"])
def test_legend_and_labels_do_not_overlap(sweep_dir: Path, style: str, where: str, caption: bool) -> None:
    fig = acceptance_figure(sweep_dir, style=style, legend=where, caption=caption)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
    legend = fig.legends[0].get_window_extent(renderer)
    boxes = [ax.get_tightbbox(renderer) for ax in fig.axes if ax.get_visible()]
    if fig._supxlabel is not None:
        boxes.append(fig._supxlabel.get_window_extent(renderer))
    captions = [t.get_window_extent(renderer) for t in fig.texts if "randfixedsum" in t.get_text()]
    assert len(captions) == int(caption)
    for box in boxes + captions:
        assert not legend.overlaps(box), (style, where)
    for cap in captions:
        assert not any(cap.overlaps(box) for box in boxes)
    labels = [ax.get_xlabel() for ax in fig.axes if ax.get_visible()]
    sup = fig._supxlabel.get_text() if fig._supxlabel is not None else ""
    # The x axis is named once under a row of panels, or under each panel, never missing.
    assert sup or all(labels), (labels, sup)
