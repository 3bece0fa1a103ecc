"""Task-set generators (installed as ``rtsched.generators``); see the notes in ``papers/``.

The central entry point is :func:`generate_batch`; the building blocks are the utilization
samplers (:func:`uunifast`, :func:`uunifast_discard`, :func:`randfixedsum`,
:func:`convolutional_fixed_sum`), the period distributions (:func:`parse_periods`) and the
deadline distributions (:func:`parse_deadlines`). The field's named per-task utilization
distributions (``uni-light``, ``bimod-medium``, ``exp-heavy``, ...) and Baker-style generation
(``generate_batch(method="baker")``: tasks added until the total reaches the bound) are in
:mod:`rtsched.generators.named`. Everything draws from the
:class:`numpy.random.Generator` it is given, never from a global state.
"""

from rtsched.generators.batch import GeneratedBatch, generate_batch, integer_tasks, parse_utilizations
from rtsched.generators.deadlines import DeadlineDistribution, parse_deadlines
from rtsched.generators.named import (
    BAKER_CAP_RULES,
    GENERATION_METHODS,
    NAMED_UTILIZATIONS,
    parse_named_utilizations,
)
from rtsched.generators.periods import (
    AUTOMOTIVE_PERIOD_SHARES,
    NAMED_PERIODS,
    ChoicePeriods,
    LogUniformPeriods,
    ScaledUniformPeriods,
    UniformPeriods,
    automotive_periods,
    describe_periods,
    parse_periods,
)
from rtsched.generators.utilizations import (
    UTILIZATION_METHODS,
    UtilizationLossWarning,
    convolutional_fixed_sum,
    randfixedsum,
    uunifast,
    uunifast_discard,
    uunifast_loss,
)

__all__ = [
    "AUTOMOTIVE_PERIOD_SHARES",
    "BAKER_CAP_RULES",
    "GENERATION_METHODS",
    "NAMED_PERIODS",
    "NAMED_UTILIZATIONS",
    "ScaledUniformPeriods",
    "describe_periods",
    "parse_named_utilizations",
    "UTILIZATION_METHODS",
    "ChoicePeriods",
    "DeadlineDistribution",
    "GeneratedBatch",
    "LogUniformPeriods",
    "UniformPeriods",
    "automotive_periods",
    "convolutional_fixed_sum",
    "generate_batch",
    "integer_tasks",
    "parse_deadlines",
    "parse_periods",
    "parse_utilizations",
    "randfixedsum",
    "UtilizationLossWarning",
    "uunifast",
    "uunifast_discard",
    "uunifast_loss",
]
