"""What every lab needs besides rtsched: where figures go, the small-size switch, example files,
sweeps run in their own results folder.

A lab imports it with one line, ``from _labkit import ...``. Run as a script (or opened with
jupytext from examples/labs/) the import finds this file next to the lab; ``build.py`` replaces
the line by this file's code, so each generated notebook is self-contained (a student needs the
one .ipynb file and an installed rtsched, nothing else).
"""

import os
from pathlib import Path

import matplotlib
import matplotlib.pyplot as plt

from rtsched import sweep

OUT = Path(os.environ.get("RTSCHED_LAB_OUT", "lab-figures"))  # figures for the slides
SMALL = os.environ.get("RTSCHED_EXAMPLE_SMALL") == "1"  # the test suite's quick run


def show(fig, name):
    """Lay a figure out (tight, unless it has its own layout), save it for the slides
    (OUT/name.png) and show it in the notebook."""
    if fig.get_layout_engine() is None:
        fig.tight_layout()
    OUT.mkdir(parents=True, exist_ok=True)
    fig.savefig(OUT / f"{name}.png", dpi=120)
    if "inline" in matplotlib.get_backend() or "nbagg" in matplotlib.get_backend():
        from IPython.display import display

        display(fig)
    plt.close(fig)


def results_dir(experiment):
    """OUT/<name>-<fingerprint>: a rerun of the same experiment resumes there, a changed one
    (other sizes, seed, analyses) gets its own folder instead of being refused by the store."""
    return OUT / f"{experiment.name}-{experiment.fingerprint()[:12]}"


def run_sweep(experiment, folder=None):
    """The results of a sweep run in this process, quietly (no progress, no plot), in ``folder``
    (default :func:`results_dir`)."""
    folder = results_dir(experiment) if folder is None else folder
    return sweep.run(experiment, folder, workers=0, progress="none", plot=False)


def example_file(relative):
    """examples/<relative> of the rtsched repository, looked for from the working folder up.

    Returns None when the lab runs outside a checkout (a lab then uses the file's content,
    which it states inline).
    """
    folders = [Path.cwd(), *Path.cwd().parents]
    if "__file__" in globals():  # a script: also look from its own folder up
        folders[:0] = [Path(__file__).resolve().parent, *Path(__file__).resolve().parents]
    for folder in folders:
        candidate = folder / "examples" / relative
        if candidate.is_file():
            return candidate
    return None
