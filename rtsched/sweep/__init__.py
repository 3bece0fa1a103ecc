"""Acceptance-ratio experiments: experiment files, work units, store, executors.

>>> from rtsched import sweep
>>> results = sweep.run("examples/global_vs_partitioned.toml", "out", workers=2)  # doctest: +SKIP
>>> results.rows[0].ratio  # doctest: +SKIP

Modules: :mod:`~rtsched.sweep.experiment` (the file format; its public names come from
:mod:`~rtsched.sweep.parsing` (parse, validate), :mod:`~rtsched.sweep.identity` (canonical
form, fingerprint, TOML writer) and :mod:`~rtsched.sweep.captions` (plot captions, axis labels)),
:mod:`~rtsched.sweep.units` (unit list, seeding, ``run_unit``), :mod:`~rtsched.sweep.kinds`
(what a unit draws: task sets, GPU workloads with ``[generator] kind = "gpu"``, e.g.
examples/gpu_experiment.toml, or DAG task sets with ``kind = "dag"``, e.g.
examples/dag_experiment.toml), :mod:`~rtsched.sweep.store`
(atomic per-unit files, resume), :mod:`~rtsched.sweep.executors` (inline, process pool,
Dask), :mod:`~rtsched.sweep.stats` (Wilson intervals, weighted schedulability) and
:mod:`~rtsched.sweep.plot` (:func:`acceptance_figure` returns a figure to restyle; styles
and per-analysis colours in :mod:`~rtsched.sweep.style`).
"""

from rtsched.sweep.experiment import (
    DEFAULT_EXPERIMENT_TOML,
    Axis,
    Experiment,
    default_experiment,
    load_experiment,
    parse_experiment,
)
from rtsched.sweep.plot import acceptance_figure, plot_directory
from rtsched.sweep.runner import Results, Row, WeightedRow, aggregate, run
from rtsched.sweep.stats import weighted_schedulability, wilson_interval

__all__ = [
    "DEFAULT_EXPERIMENT_TOML",
    "Axis",
    "Experiment",
    "Results",
    "Row",
    "WeightedRow",
    "acceptance_figure",
    "aggregate",
    "default_experiment",
    "load_experiment",
    "parse_experiment",
    "plot_directory",
    "run",
    "weighted_schedulability",
    "wilson_interval",
]
