"""Figure styles and the fixed look of each analysis in rtsched's plots (issue #46).

Two things live here:

* :data:`STYLES`: the named figure styles of :func:`~rtsched.sweep.acceptance_figure` and
  ``rtsched plot --style``: ``default`` (today's wide look, caption drawn under the plot),
  ``paper`` (one column of a two-column paper, 3.5 in wide), ``paper2`` (both columns, 7.16 in)
  and ``slides`` (10 in wide, large fonts). Sizes are in inches and font sizes in points.
  Every style writes PDF and PostScript text as Type 42 (TrueType) fonts and SVG text as
  ``<text>`` elements (:data:`FONT_RC`): many venues reject the Type 3 fonts that are
  matplotlib's default.
* :func:`analysis_look`: the colour, marker and line style of an analysis, a function of its
  NAME only, so that an analysis looks the same in every figure whatever the other curves are.
  The analyses of :data:`FIXED_LOOKS` (the registry's featured analyses) have a hand-made entry
  (global tests solid, partitioned dash-dot, tests drawn together in the README's figures in
  different colours); any other name takes a colour, marker and line style from a hash of the
  name. Colours come from Paul Tol's colour-blind-safe "muted" palette (:data:`PALETTE`); upper
  bounds (registry kind ``necessary``) are black and dashed.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

__all__ = [
    "FIXED_LOOKS",
    "FONT_RC",
    "MARKERS",
    "PALETTE",
    "STYLES",
    "FigureStyle",
    "analysis_look",
    "get_style",
    "rc_params",
]

#: Paul Tol's "muted" qualitative palette (https://personal.sron.nl/~pault/, colour-blind safe):
#: indigo, cyan, teal, green, olive, sand, rose, wine, purple.
PALETTE = ("#332288", "#88CCEE", "#44AA99", "#117733", "#999933", "#DDCC77", "#CC6677", "#882255", "#AA4499")
#: Filled markers, distinguishable at 3–4 pt.
MARKERS = ("o", "s", "^", "v", "D", "P", "X", "*", "h", "<", ">", "p", "d")
#: Line styles of the hash fallback (solid, dash-dot, dotted); dashed is kept for upper bounds.
_LINESTYLES = ("-", "-.", ":")
#: rcParams that every style sets: TrueType (Type 42) fonts in PDF and PS, SVG text kept as text.
FONT_RC: dict[str, Any] = {"pdf.fonttype": 42, "ps.fonttype": 42, "svg.fonttype": "none"}

# (colour index, marker, linestyle) of the registry's featured analyses. Global tests are solid,
# partitioned ones dash-dot; within a policy the colours differ, and the analyses of the README's
# figures (default sweep, examples/fp_vs_edf.toml) get different colours where 9 colours allow.
_FIXED = {
    # global EDF (default sweep, examples/global_vs_partitioned.toml)
    "gfb": (0, "o", "-"),
    "bak": (1, "s", "-"),
    "bcl": (2, "^", "-"),
    "bcl-iter": (3, "v", "-"),
    "rta": (4, "D", "-"),
    "bar": (5, "P", "-"),
    "bar-int": (6, "X", "-"),
    "load": (7, "*", "-"),
    "ffdbf": (8, "h", "-"),
    "exact": (0, "d", "--"),
    # partitioned EDF
    "p-edf": (8, "<", "-."),
    "baruah-fisher": (0, ">", "-."),
    "p:wf:density:qpa": (1, "p", "-."),
    # global FP (examples/fp_vs_edf.toml draws them with rta, bar-int, p-fp and p-edf)
    "gfp-bcl": (0, "s", "-"),
    "gfp-da-lc": (1, "^", "-"),
    "gfp-rta": (2, "o", "-"),
    "gfp-rta-lc": (3, "P", "-"),
    "exact-gfp": (5, "d", "--"),
    # partitioned FP
    "p-fp": (7, "v", "-."),
    # uniprocessor
    "uni-qpa": (5, "o", "-"),
    "uni-pda": (6, "s", "-"),
    "uni-rta": (7, "^", "-"),
    "rm-ll": (8, "v", "-"),
    "rm-hb": (3, "D", "-"),
}
#: ``name -> (colour, marker, linestyle)`` of the analyses with a hand-made look.
FIXED_LOOKS: dict[str, tuple[str, str, str]] = {name: (PALETTE[c], mk, ls) for name, (c, mk, ls) in _FIXED.items()}


def analysis_look(name: str, kind: str = "sufficient") -> dict[str, Any]:
    """Matplotlib line keywords (``color``, ``marker``, ``linestyle``) of an analysis, from its name.

    The same name gives the same look in every figure. An upper bound (``kind == "necessary"``,
    e.g. ``gedf-upper``) is black and dashed without markers. A name outside :data:`FIXED_LOOKS`
    takes colour, marker and line style from the SHA-256 of the name (not Python's ``hash``,
    which changes between runs).
    """
    if kind == "necessary":
        return {"color": "black", "linestyle": (0, (5, 2.5)), "marker": None}
    fixed = FIXED_LOOKS.get(name)
    if fixed is not None:
        color, marker, linestyle = fixed
    else:
        digest = int.from_bytes(hashlib.sha256(name.encode("utf-8")).digest()[:8], "big")
        color = PALETTE[digest % len(PALETTE)]
        marker = MARKERS[(digest // len(PALETTE)) % len(MARKERS)]
        linestyle = _LINESTYLES[(digest // (len(PALETTE) * len(MARKERS))) % len(_LINESTYLES)]
    return {"color": color, "marker": marker, "linestyle": linestyle}


@dataclass(frozen=True)
class FigureStyle:
    """Sizes (inches), font sizes (points) and defaults of a figure style.

    ``width`` is the figure width (``None``: grows with the number of panels, today's look),
    ``panel_height`` the height of a row of panels, ``columns`` the most panels per row. The
    defaults ``legend``, ``caption`` and ``ci`` apply when the caller does not choose.
    """

    name: str
    width: float | None
    panel_height: float
    columns: int
    font_size: float
    legend_size: float
    caption_size: float
    linewidth: float
    markersize: float
    legend: str
    caption: bool
    ci: bool
    wrap: int
    long_axis_labels: bool


#: The named styles. ``default`` keeps the look of rtsched before the styles existed (minus
#: the experiment name as a title).
STYLES: dict[str, FigureStyle] = {
    "default": FigureStyle(
        "default", None, 3.9, 3, 10, 7.5, 7, 1.3, 3.8, "outside", caption=True, ci=True, wrap=48, long_axis_labels=True
    ),
    "paper": FigureStyle(
        "paper", 3.5, 2.3, 2, 8, 6, 6, 1.0, 3.0, "below", caption=False, ci=False, wrap=30, long_axis_labels=False
    ),
    "paper2": FigureStyle(
        "paper2", 7.16, 2.6, 3, 9, 7, 7, 1.1, 3.4, "below", caption=False, ci=False, wrap=40, long_axis_labels=False
    ),
    "slides": FigureStyle(
        "slides",
        10.0,
        5.0,
        3,
        16,
        11,
        10,
        2.2,
        6.5,
        "outside",
        caption=False,
        ci=False,
        wrap=36,
        long_axis_labels=False,
    ),
}


def get_style(style: str | FigureStyle) -> FigureStyle:
    """The :class:`FigureStyle` of a name (or the style itself); an unknown name is an InputError."""
    if isinstance(style, FigureStyle):
        return style
    try:
        return STYLES[style]
    except KeyError:
        from rtsched.errors import InputError

        raise InputError(f"unknown style {style!r}; choose from {', '.join(STYLES)}", field="--style") from None


def rc_params(style: str | FigureStyle) -> dict[str, Any]:
    """The rcParams of a style: its font sizes and :data:`FONT_RC` (Type 42 fonts, SVG text)."""
    s = get_style(style)
    return {
        **FONT_RC,
        "font.size": s.font_size,
        "axes.titlesize": s.font_size,
        "axes.labelsize": s.font_size,
        "xtick.labelsize": s.font_size * 0.9,
        "ytick.labelsize": s.font_size * 0.9,
        "legend.fontsize": s.legend_size,
        "legend.title_fontsize": s.legend_size,
        "lines.linewidth": s.linewidth,
        "lines.markersize": s.markersize,
        "figure.titlesize": s.font_size * 1.2,
    }
