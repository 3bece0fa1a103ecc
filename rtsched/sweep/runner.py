"""Run an experiment end to end: plan, resume from the store, execute, aggregate, write, plot."""

from __future__ import annotations

import csv
import dataclasses
import io
import math
import os
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, TextIO

from rtsched.errors import InputError
from rtsched.result import count
from rtsched.sweep.executors import choose_executor, run_units, start_pool, stop_pool
from rtsched.sweep.experiment import Experiment, load_experiment, parse_experiment
from rtsched.sweep.kinds import kind_named
from rtsched.sweep.stats import weighted_schedulability, wilson_interval
from rtsched.sweep.store import Store, generator_digest
from rtsched.sweep.tardiness import combine as combine_tardiness
from rtsched.sweep.tardiness import is_soft
from rtsched.sweep.units import Plan, UnitSpec, plan, run_unit

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor

__all__ = ["RESULT_COLUMNS", "WEIGHTED_COLUMNS", "Results", "Row", "WeightedRow", "aggregate", "run"]


class _CsvRow:
    """A line of a CSV table whose columns are the dataclass fields, in order."""

    #: The columns written with six decimals; every other cell as :func:`_fmt` writes it.
    _SIX_DECIMALS: ClassVar[frozenset[str]] = frozenset()

    def cells(self) -> list[str]:
        """The row as CSV cells (fixed formatting, so reruns give identical files)."""
        values = ((f.name, getattr(self, f.name)) for f in dataclasses.fields(self))  # type: ignore[arg-type]
        return [f"{value:.6f}" if name in self._SIX_DECIMALS else _fmt(value) for name, value in values]


@dataclass(frozen=True)
class Row(_CsvRow):
    """One line of ``results.csv``: an analysis at one point (and one value of the second variable)."""

    _SIX_DECIMALS = frozenset({"ratio", "ci_low", "ci_high", "mean_utilization"})

    def cells(self) -> list[str]:
        """As ``_CsvRow.cells``; the tardiness cells with six decimals, empty when not recorded."""
        out = super().cells()
        for k, f in enumerate(dataclasses.fields(self)):
            value = getattr(self, f.name)
            if f.name in ("tardiness_mean", "tardiness_max") and value is not None:
                out[k] = f"{value:.6f}"
        return out

    variable: str
    value: Any
    by_variable: str
    by_value: Any
    m: int
    n: str
    analysis: str
    sets: int
    accepted: int
    unknown: int
    ratio: float
    ci_low: float
    ci_high: float
    target_utilization: float
    mean_utilization: float
    #: Soft real-time analyses only (empty for the others; :mod:`rtsched.sweep.tardiness`): over
    #: the sets with bounded tardiness, mean and max of max_bound / T_max.
    tardiness_sets: int | None = None
    tardiness_mean: float | None = None
    tardiness_max: float | None = None


@dataclass(frozen=True)
class WeightedRow(_CsvRow):
    """One line of ``weighted.csv``: W(p) of an analysis at one value p of the other variable."""

    _SIX_DECIMALS = frozenset({"weighted_schedulability"})

    variable: str
    value: Any
    m: int
    analysis: str
    weighted_schedulability: float
    points: int
    sets: int


RESULT_COLUMNS = tuple(f.name for f in dataclasses.fields(Row))
WEIGHTED_COLUMNS = tuple(f.name for f in dataclasses.fields(WeightedRow))


def _fmt(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return repr(round(value, 12))
    return str(value)


@dataclass
class Results:
    """What a sweep produced.

    Attributes
    ----------
    experiment:
        The experiment run.
    out_dir:
        Its result directory.
    rows, weighted:
        The tables written to ``results.csv`` and ``weighted.csv``.
    analyses:
        The analyses in the tables, in display order.
    skipped:
        ``(name, reason)`` of featured analyses that apply to no configuration.
    sets:
        Task sets generated in the whole experiment (every analysis saw each of them).
    units_total, units_run, units_reused:
        Units in the experiment, run by this call, found finished in the store.
    elapsed:
        Wall time of this call (seconds).
    seconds:
        Time spent per analysis (``decide``) and in ``generate``, summed over all units (from
        the unit files; measured, so not reproducible — kept out of the CSV tables).
    files:
        Paths of the outputs written.
    recomputed:
        Analyses whose code changed since their stored results, with the number of units in
        which they were recomputed (``"generator"``: units redrawn because the generator changed).
    damaged:
        Units whose stored file was corrupted or truncated (recomputed).
    """

    experiment: Experiment
    out_dir: Path
    rows: list[Row]
    weighted: list[WeightedRow]
    analyses: tuple[str, ...]
    skipped: tuple[tuple[str, str], ...] = ()
    sets: int = 0
    units_total: int = 0
    units_run: int = 0
    units_reused: int = 0
    elapsed: float = 0.0
    seconds: dict[str, float] = field(default_factory=dict)
    files: dict[str, Path] = field(default_factory=dict)
    recomputed: dict[str, int] = field(default_factory=dict)
    damaged: tuple[int, ...] = ()

    def rows_by_configuration(self) -> dict[tuple[Any, Any], list[Row]]:
        """Rows grouped by (value, by_value)."""
        groups: dict[tuple[Any, Any], list[Row]] = {}
        for row in self.rows:
            groups.setdefault((row.value, row.by_value), []).append(row)
        return groups

    def to_records(self) -> list[dict[str, Any]]:
        """The rows of ``results.csv`` as plain dicts (column name → value; numbers as numbers).

        ``n`` is an int where the sets have one size, and text such as ``"5-10"`` for a range.
        """
        records = [dataclasses.asdict(row) for row in self.rows]
        for record in records:
            if isinstance(record["n"], str) and record["n"].isdigit():
                record["n"] = int(record["n"])
        return records

    def weighted_records(self) -> list[dict[str, Any]]:
        """The rows of ``weighted.csv`` as plain dicts."""
        return [dataclasses.asdict(row) for row in self.weighted]

    def to_dataframe(self, table: str = "results") -> Any:
        """``results`` (or ``weighted``) as a pandas DataFrame; pandas is an optional dependency."""
        from rtsched.result import records_to_dataframe

        if table not in ("results", "weighted"):
            raise ValueError(f"table must be 'results' or 'weighted', not {table!r}")
        return records_to_dataframe(self.to_records() if table == "results" else self.weighted_records())

    def results_csv(self) -> str:
        """``results.csv`` as text."""
        return _csv(RESULT_COLUMNS, [r.cells() for r in self.rows])

    def weighted_csv(self) -> str:
        """``weighted.csv`` as text."""
        return _csv(WEIGHTED_COLUMNS, [r.cells() for r in self.weighted])

    def ratio(self, analysis: str, by_value: Any = None) -> list[tuple[Any, float]]:
        """``[(value, acceptance ratio), ...]`` of one analysis (at one value of the second variable)."""
        return [
            (r.value, r.ratio)
            for r in self.rows
            if r.analysis == analysis and (by_value is None or r.by_value == by_value)
        ]


def _csv(columns: tuple[str, ...], rows: list[list[str]]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(columns)
    writer.writerows(rows)
    return buffer.getvalue()


def _n_label(config_generator: tuple[tuple[str, Any], ...]) -> str:
    n = dict(config_generator).get("n")
    return f"{n[0]}..{n[1]}" if isinstance(n, tuple | list) else str(n)


def aggregate(
    the_plan: Plan, finished: Mapping[int, Mapping[str, Any]]
) -> tuple[list[Row], list[WeightedRow], dict[str, float]]:
    """Sum unit results into the tables (in unit order, so the sums are reproducible)."""
    experiment = the_plan.experiment
    per_config: dict[int, list[Mapping[str, Any]]] = {}
    seconds: dict[str, float] = {}
    for spec in the_plan.units:
        record = finished.get(spec.index)
        if record is None:
            continue
        if record.get("configuration") != spec.configuration:
            raise InputError(f"unit file {spec.index} belongs to another plan; use a new --out directory")
        per_config.setdefault(spec.configuration, []).append(record)
        for key, value in record.get("seconds", {}).items():
            seconds[key] = seconds.get(key, 0.0) + float(value)
    rows: list[Row] = []
    by_variable = experiment.by.variable if experiment.by is not None else ""
    for config in the_plan.configurations:
        records = per_config.get(config.index, [])
        sets = sum(int(r["sets"]) for r in records)
        util = math.fsum(float(r["utilization_sum"]) for r in records)
        values = dict(config.values)
        for name in the_plan.analyses:
            if name not in config.analyses:
                continue
            accepted = sum(int(r["accepted"][name]) for r in records)
            unknown = sum(int(r["unknown"][name]) for r in records)
            low, high = wilson_interval(accepted, sets)
            tardy_sets, tardy_mean, tardy_max = combine_tardiness(records, name)
            rows.append(
                Row(
                    variable=experiment.sweep.variable,
                    value=values[experiment.sweep.variable],
                    by_variable=by_variable,
                    by_value=values.get(by_variable) if by_variable else None,
                    m=config.m,
                    n=_n_label(config.generator),
                    analysis=name,
                    sets=sets,
                    accepted=accepted,
                    unknown=unknown,
                    ratio=accepted / sets if sets else math.nan,
                    ci_low=low,
                    ci_high=high,
                    target_utilization=config.utilization,
                    mean_utilization=util / sets if sets else math.nan,
                    tardiness_sets=tardy_sets,
                    tardiness_mean=tardy_mean,
                    tardiness_max=tardy_max,
                )
            )
    return rows, _weighted(the_plan, rows), seconds


def _weighted(the_plan: Plan, rows: list[Row]) -> list[WeightedRow]:
    """Weighted schedulability over the utilization axis, per value of the other variable."""
    experiment = the_plan.experiment
    if experiment.sweep.is_utilization:
        other = experiment.by.variable if experiment.by is not None else ""

        def group(r: Row) -> Any:
            return r.by_value

    elif experiment.by is not None and experiment.by.is_utilization:
        other = experiment.sweep.variable

        def group(r: Row) -> Any:
            return r.value

    else:
        return []
    groups: dict[tuple[Any, str], list[Row]] = {}
    for row in rows:
        groups.setdefault((group(row), row.analysis), []).append(row)
    out: list[WeightedRow] = []
    order = {name: i for i, name in enumerate(the_plan.analyses)}
    for (value, name), members in sorted(
        groups.items(), key=lambda item: (_position(experiment, other, item[0][0]), order[item[0][1]])
    ):
        members = [r for r in members if r.sets]
        if not members:
            continue
        w = weighted_schedulability([r.target_utilization for r in members], [r.ratio for r in members])
        out.append(WeightedRow(other, value, members[0].m, name, w, len(members), sum(r.sets for r in members)))
    return out


def _position(experiment: Experiment, variable: str, value: Any) -> int:
    for axis in experiment.axes:
        if axis.variable == variable:
            return axis.points.index(value)
    return 0


class _Progress:
    """A tqdm bar on a terminal; plain log lines otherwise (not a tty, or CI=true); or nothing."""

    def __init__(self, total: int, done: int, mode: str, stream: TextIO) -> None:
        self.total, self.done, self.stream = total, done, stream
        self.start = time.monotonic()
        self.started_with = done
        self.last_log = 0.0
        self.first_done_at: float | None = None  # the first unit also pays for loading the kernels
        if mode == "auto":
            ci = os.environ.get("CI", "").lower() not in ("", "0", "false")
            mode = "bar" if (stream.isatty() and not ci) else "log"
        self.mode = mode
        self.bar = None
        if mode == "bar":
            from tqdm import tqdm

            self.bar = tqdm(total=total, initial=done, unit="unit", desc="sweep", file=stream, dynamic_ncols=True)

    def update(self) -> None:
        self.done += 1
        if self.bar is not None:
            self.bar.update(1)
        elif self.mode == "log":
            now = time.monotonic()
            if self.first_done_at is None:
                self.first_done_at = now
            if now - self.last_log >= 5.0 or self.done == self.total:
                self.last_log = now
                elapsed = now - self.start
                # Rate measured after the first unit, so compilation does not inflate the estimate.
                ran = self.done - self.started_with - 1
                left = (now - self.first_done_at) / ran * (self.total - self.done) if ran > 0 else math.nan
                estimate = "estimating time left" if math.isnan(left) else f"about {left:.0f} s left"
                print(
                    f"rtsched sweep: {self.done}/{count(self.total, 'unit')} ({100 * self.done / self.total:.0f}%), "
                    f"{elapsed:.1f} s elapsed, {estimate}",
                    file=self.stream,
                    flush=True,
                )

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _as_experiment(experiment: Experiment | str | Path | Mapping[str, Any] | None) -> Experiment:
    if experiment is None:
        from rtsched.sweep.experiment import default_experiment

        return default_experiment(check_generator=True)
    if isinstance(experiment, Experiment):
        return experiment
    if isinstance(experiment, str | Path):
        return load_experiment(experiment)
    if isinstance(experiment, Mapping):
        return parse_experiment(experiment)
    raise InputError(f"an experiment is a file path, a mapping or an Experiment, got {type(experiment).__name__}")


def _compile_unit(specs: Mapping[str, UnitSpec], name: str) -> None:
    """Run one analysis (or, for ``generate-<kind>``, only the generator) on one set of its unit."""
    spec = specs[name]
    run_unit(replace(spec, sets=1, analyses=() if name.startswith("generate-") else (name,)))


def _compile_first(
    the_plan: Plan,
    todo: list[UnitSpec],
    kind: str,
    workers: int,
    progress: str,
    stream: TextIO,
    pool: ProcessPoolExecutor | None = None,
) -> None:
    """Compile the generator's and each analysis's kernels before the units, with progress.

    On a cold cache this is most of a first run: done up front it shows progress per analysis
    (:mod:`rtsched.warmup`), compiles different analyses in parallel on a pool's cores, and
    the units' workers then load the cached code instead of all compiling the same kernels.
    With ``pool``, the sweep's own pool compiles, so its workers keep what they compiled.
    """
    from rtsched.warmup import compile_analyses

    specs: dict[str, UnitSpec] = {f"generate-{todo[0].kind}": todo[0]}
    for name in the_plan.analyses:
        spec = next((u for u in todo if name in u.analyses), None)
        if spec is not None:
            specs[name] = spec
    compile_analyses(
        list(specs),
        partial(_compile_unit, specs),
        workers=workers if kind == "pool" else 0,
        progress=progress,
        stream=stream,
        pool=pool,
    )


def analysis_implementations(names: tuple[str, ...] | list[str]) -> dict[str, str]:
    """The :attr:`~rtsched.registry.Analysis.implementation` digest of each analysis, by name."""
    from rtsched import registry

    return {name: registry.get(name).implementation for name in names}


def _stale(
    the_plan: Plan,
    finished: dict[int, dict[str, Any]],
    implementations: Mapping[str, str],
    generator: str,
    stream: TextIO,
) -> tuple[list[UnitSpec], dict[int, dict[str, Any]], dict[str, int]]:
    """What to run: missing units whole, and the stale analyses of finished units.

    An analysis is stale in a finished unit when its stored results came from other code. Stored
    results of a changed generator are dropped from ``finished``.

    Returns the unit specifications to run (a partly stale unit runs its stale analyses only),
    the stored records those partial runs complete, and how many units each analysis (or
    ``"generator"``) is recomputed in; says so on ``stream``.
    """
    from rtsched import registry

    todo: list[UnitSpec] = []
    partial: dict[int, dict[str, Any]] = {}
    recomputed: dict[str, int] = {}
    soft = {name for name in the_plan.analyses if is_soft(registry.get(name))}
    for spec in the_plan.units:
        record = finished.get(spec.index)
        if record is None:
            todo.append(spec)
            continue
        if record.get("generator") != generator:
            del finished[spec.index]
            recomputed["generator"] = recomputed.get("generator", 0) + 1
            todo.append(spec)
            continue
        stored = record.get("implementations", {})
        stale = tuple(
            name
            for name in spec.analyses
            if name not in record.get("accepted", {})
            or stored.get(name) != implementations[name]
            or (name in soft and name not in record.get("tardiness", {}))  # stored before the tardiness metric
        )
        if stale:
            for name in stale:
                recomputed[name] = recomputed.get(name, 0) + 1
            del finished[spec.index]
            partial[spec.index] = record
            todo.append(replace(spec, analyses=stale))
    if recomputed.get("generator"):
        print(
            f"rtsched sweep: the generator code changed since {count(recomputed['generator'], 'unit')} "
            f"{'was' if recomputed['generator'] == 1 else 'were'} stored; "
            "recomputing them",
            file=stream,
        )
    changed = {name: count for name, count in recomputed.items() if name != "generator"}
    if changed:
        listed = ", ".join(f"{name} ({count(units, 'unit')})" for name, units in changed.items())
        print(
            f"rtsched sweep: recomputing analyses whose code changed since their results were stored: {listed}",
            file=stream,
        )
    return todo, partial, recomputed


def run(
    experiment: Experiment | str | Path | Mapping[str, Any] | None,
    out_dir: str | Path = "rtsched-sweep",
    *,
    workers: int | None = None,
    scheduler: str | None = None,
    executor: str | None = None,
    progress: str = "auto",
    plot: bool = True,
    stream: TextIO | None = None,
) -> Results:
    """Run (or resume) an experiment and write its tables and plots into ``out_dir``.

    Parameters
    ----------
    experiment:
        An :class:`Experiment`, the path of a TOML file, parsed TOML data, or ``None`` for the
        built-in default experiment.
    out_dir:
        The experiment directory. Finished units found there are not rerun; a directory of a
        different experiment is refused.
    workers:
        ``0`` runs in this process (Numba threads inside units); ``N`` a pool of ``N``
        processes; default ``os.cpu_count()``.
    scheduler:
        ``tcp://HOST:PORT`` of a Dask scheduler (needs ``rtsched[dask]``).
    executor:
        ``inline``, ``pool`` or ``dask``; normally implied by ``workers`` and ``scheduler``.
    progress:
        ``auto`` (bar on a terminal, log lines otherwise), ``bar``, ``log`` or ``none``.
    plot:
        Also write ``acceptance.{png,pdf,svg}`` (and ``weighted.*`` for two swept variables).
    stream:
        Where progress goes (default: standard error).

    Returns
    -------
    Results
        The tables, timings and output paths.
    """
    started = time.perf_counter()
    stream = sys.stderr if stream is None else stream
    exp = _as_experiment(experiment)
    kind, n_workers = choose_executor(executor, workers, scheduler)
    the_plan = plan(exp)
    store = Store.open(out_dir, exp, len(the_plan.units), list(the_plan.analyses))
    implementations = analysis_implementations(the_plan.analyses)
    generator = kind_named(exp.generator_kind).code_digest(generator_digest())
    finished = store.finished()
    for k, why in store.damaged:
        print(f"rtsched sweep: unit file {store.unit_path(k)} is {why}; recomputing unit {k}", file=stream)
    todo, partial, recomputed = _stale(the_plan, finished, implementations, generator, stream)
    redo: list[UnitSpec] = []

    def on_result(result: dict[str, Any]) -> None:
        k = int(result["unit"])
        base = partial.pop(k, None)
        if base is not None:
            if base["sets"] != result["sets"] or base["utilization_sum"] != result["utilization_sum"]:
                redo.append(the_plan.units[k])  # not the stored sets after all: redraw the whole unit
                return
            tardiness = {**base.get("tardiness", {}), **result.get("tardiness", {})}
            result = {
                **base,
                "accepted": {**base["accepted"], **result["accepted"]},
                "unknown": {**base["unknown"], **result["unknown"]},
                "seconds": {**base.get("seconds", {}), **result["seconds"]},
            }
            if tardiness:
                result["tardiness"] = tardiness
        store.commit(result, implementations, generator)
        finished[k] = result
        if reporter is not None:
            reporter.update()

    # One pool for the compile step and the units: its workers start and import once, and run
    # units with the kernels they compiled still in memory.
    pool = start_pool(max(1, min(n_workers, max(len(todo), len(the_plan.analyses) + 1)))) if kind == "pool" and todo else None
    reporter = None
    try:
        if todo:
            _compile_first(the_plan, todo, kind, n_workers, progress, stream, pool)
        done = len(the_plan.units) - len({u.index for u in todo})
        reporter = _Progress(len(the_plan.units), done, progress, stream) if progress != "none" else None
        run_units(todo, on_result, executor=kind, workers=n_workers, scheduler=scheduler, pool=pool)
        if redo:
            print(
                f"rtsched sweep: {count(len(redo), 'unit')} drew other task sets than stored; recomputing them whole",
                file=stream,
            )
            run_units(redo, on_result, executor=kind, workers=n_workers, scheduler=scheduler, pool=pool)
    except BaseException:
        if pool is not None:
            stop_pool(pool)
        raise
    finally:
        if reporter is not None:
            reporter.close()
    if pool is not None:
        # Every unit's result is back and committed, so the idle workers are stopped rather
        # than asked to exit: a worker that compiled takes about a second to free its code.
        stop_pool(pool)
    rows, weighted, seconds = aggregate(the_plan, finished)
    results = Results(
        experiment=exp,
        out_dir=Path(out_dir),
        rows=rows,
        weighted=weighted,
        analyses=the_plan.analyses,
        skipped=the_plan.skipped,
        sets=sum(int(r["sets"]) for r in finished.values()),
        units_total=len(the_plan.units),
        units_run=len(todo),
        units_reused=len(the_plan.units) - len(todo),
        seconds=seconds,
        recomputed=recomputed,
        damaged=tuple(k for k, _ in store.damaged),
    )
    results.files["results.csv"] = store.write_text("results.csv", results.results_csv())
    if weighted:
        results.files["weighted.csv"] = store.write_text("weighted.csv", results.weighted_csv())
    if plot:
        from rtsched.sweep.plot import plot_directory

        for path in plot_directory(store.root):
            results.files[path.name] = path
    results.elapsed = time.perf_counter() - started
    return results
