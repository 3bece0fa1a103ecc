"""Experiment files: parse, validate and hash an acceptance-ratio experiment.

An experiment is a TOML file (read with the standard library's ``tomllib``)::

    name = "global-vs-partitioned"     # optional
    seed = 20261129                    # root of every unit's random stream

    [platform]
    m = 4                              # or a list, e.g. [2, 4, 8] (a second swept variable)

    [generator]                        # parameters of rtsched.generators.generate_batch
    n = 10                             # tasks per set, or a range {min = 5, max = 20}
    utilizations = "uunifast-discard"  # the defaults (GENERATOR_DEFAULTS) are shown
    periods = "log-uniform:1000:100000"
    deadlines = "uniform"
    umax = 1.0
    # utilization = 2.0 or normalized_utilization = 0.5 when utilization is not swept

    [sweep]
    variable = "U/m"                   # utilization, U/m, n, m or generator.<parameter>
    points = {start = 0.05, stop = 1.0, step = 0.05}   # or a list, or {start, stop, num}
    sets_per_point = 1000
    sets_per_unit = 500                # fixed work-unit size (results depend on it, not on timing)
    # by = "n"; by_points = [5, 10, 20] # an optional second swept variable

    [analyses]
    names = "featured"                 # or "all" (every task-set analysis), or a list of registry names
    policies = ["global-edf", "partitioned-edf"]   # filters for "featured" or "all"
    kinds = ["sufficient"]
    budget = {exact = 200000}          # work budgets of analyses that have one (rtsched list)

GPU experiments (papers/zahaf2021-gpu-partitioning.md) draw GPU workloads instead of
task sets (:mod:`rtsched.sweep.kinds`)::

    [platform]
    m = 4                              # M, the number of compute clusters

    [generator]
    kind = "gpu"                       # default "taskset" (the table above)
    n = 6                              # kernels per workload
    periods = "log-uniform:100:10000"
    deadlines = "implicit"
    parallel = [0.3, 0.95]             # Amdahl's parallel fraction p, uniform in this range
    contention = [0.0, 0.3]            # slowdown f(k) = 1 + a·k, a uniform in this range
    nonpreemptive = 0.0                # share of non-preemptive kernels

    [sweep]
    variable = "U/m"                   # here U1/M: one-cluster utilization Σ C(1)/T over M

    [analyses]
    names = ["gpu:single", "gpu:ffd", "gpu:bfd", "gpu:exhaustive"]

A GPU experiment takes only GPU analyses (platform ``gpu``), which run on the platform ``GPU(m)``
for every ``m`` the GPU model accepts (1..64); a task-set experiment takes no GPU analysis.

DAG experiments (papers/dag-generators.md; e.g. examples/dag_experiment.toml) draw sets of
sporadic DAG tasks with :func:`~rtsched.generators.dag.dag_tasksets` on ``m`` identical
processors; U is Σ vol/T::

    [generator]
    kind = "dag"
    n = 10                             # DAG tasks per set (or a range {min, max})
    shape = "fork-join"                # or "gnp" (keys vertices, p) or "layered" (layers, width, p)
    max_depth = 2                      # fork-join: nesting depth, branches 2..max_branches,
    max_branches = 7                   #   weights p_par and p_term (Melani et al. 2015)
    p_par = 0.8
    p_term = 0.2
    wcet = [1, 100]                    # vertex WCETs, uniform integers (every shape)
    utilizations = "uunifast"          # or "uunifast-discard", "randfixedsum" (with umax)
    deadlines = "constrained"          # D uniform in [len, T]; or "implicit" (D = T)

    [analyses]
    names = "all"                      # the default here: every analysis of DAG task sets

Each shape's keys can be swept (``by = "generator.p_par"``); a key of another shape is refused.
A DAG experiment takes only analyses of DAG task sets, and a task-set experiment none of them.
Typed DAGs on a CPU + accelerator platform (examples/dag_typed_experiment.toml)::

    [platform]
    m = 4                              # cpu units
    units = {gpu = 2}                  # other unit types: the platform is typed:cpu=4,gpu=2

    [generator]
    kind = "dag"
    types = {cpu = 0.8, gpu = 0.2}     # vertex types (sources and sinks cpu); each needs units

The analyses that refuse a typed platform (those of identical processors) are skipped.

Every error is an :class:`~rtsched.errors.InputError` whose ``field`` is the dotted key
(``sweep.points``) and whose ``file``/``line`` say where, when they can be found.

The experiment's identity is :meth:`~rtsched.sweep.Experiment.fingerprint`: a SHA-256 of its canonical JSON
form (every default filled in, the analysis list resolved against the registry) together with
the rtsched version. A result directory remembers it, so results of two different experiments
are never mixed.

This module gathers the public names of four: :mod:`~rtsched.sweep.parsing` (reading and
validating files; the built-in experiment, rtsched/data/default_experiment.toml),
:mod:`~rtsched.sweep.identity` (:class:`~rtsched.sweep.identity.Experiment`, :class:`~rtsched.sweep.identity.Axis`, canonical form,
fingerprint, TOML writer), :mod:`~rtsched.sweep.kinds` (the generator kinds) and
:mod:`~rtsched.sweep.captions` (plot captions and axis labels).
"""

from rtsched.sweep.identity import Axis, Experiment
from rtsched.sweep.kinds import GENERATOR_DEFAULTS, axis_label, caption
from rtsched.sweep.parsing import (
    DEFAULT_EXPERIMENT_TOML,
    DEFAULT_SETS_PER_UNIT,
    MAX_SETS,
    default_experiment,
    load_experiment,
    parse_experiment,
)

__all__ = [
    "DEFAULT_EXPERIMENT_TOML",
    "DEFAULT_SETS_PER_UNIT",
    "GENERATOR_DEFAULTS",
    "MAX_SETS",
    "Axis",
    "Experiment",
    "axis_label",
    "caption",
    "default_experiment",
    "load_experiment",
    "parse_experiment",
]
