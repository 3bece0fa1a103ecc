"""Run examples/global_vs_partitioned.toml through the Python API, with few sets.

    python examples/global_vs_partitioned.py [OUTPUT] [--sets 100] [--workers 0]

OUTPUT is a result directory, or an image path (``plot.png``): then the plot is written there
and the results next to it (``plot-results/``). Without OUTPUT the results and the plots go to
``global-vs-partitioned-<sets>sets/`` in the current directory (kept: rerunning resumes there);
the README's figure, examples/global_vs_partitioned.png, is never overwritten by default.
Prints the weighted schedulability of each analysis (Bastoni et al., OSPERT 2010) and the
utilization where its acceptance ratio first drops below one half.
``RTSCHED_EXAMPLE_SMALL=1`` (the example tests) uses 30 sets per point.
"""

from __future__ import annotations

import argparse
import os
import shutil
from pathlib import Path

from rtsched import sweep

HERE = Path(__file__).resolve().parent
IMAGE_SUFFIXES = (".png", ".pdf", ".svg")


def main(argv: list[str] | None = None) -> None:
    """Run the example experiment with ``--sets`` sets per point and summarise it."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("output", nargs="?", type=Path, default=None, help="result directory or image path")
    small = os.environ.get("RTSCHED_EXAMPLE_SMALL") == "1"
    parser.add_argument("--sets", type=int, default=30 if small else 100, help="task sets per point (the file: 2000)")
    parser.add_argument("--workers", type=int, default=0, help="0 = in this process, N = N processes")
    args = parser.parse_args(argv)

    experiment = sweep.load_experiment(HERE / "global_vs_partitioned.toml").with_sizes(args.sets)
    image = args.output if args.output is not None and args.output.suffix.lower() in IMAGE_SUFFIXES else None
    if image is not None:
        out = image.with_name(f"{image.stem}-results")
    else:
        out = args.output if args.output is not None else Path.cwd() / f"global-vs-partitioned-{args.sets}sets"
    results = sweep.run(experiment, out, workers=args.workers, progress="none", plot=True)
    print(f"{results.sets} task sets, {len(results.analyses)} analyses, {results.elapsed:.1f} s")
    print(f"{'analysis':<20} {'weighted':>9}  {'U/m at 50%':>10}")
    for row in results.weighted:
        curve = results.ratio(row.analysis)
        half = next((u for u, ratio in curve if ratio < 0.5), None)
        print(f"{row.analysis:<20} {row.weighted_schedulability:9.3f}  {half if half is not None else '-':>10}")
    if image is not None:
        shutil.copyfile(out / f"acceptance{image.suffix.lower()}", image)
        print(f"plot: {image}; results: {out}")
    else:
        print(f"plots: {out / 'acceptance.png'} (also .pdf, .svg); results: {out}")


if __name__ == "__main__":
    main()
