"""Task-set generators (installed as ``rtsched.generators``); see the notes in ``papers/``.

The central entry point is :func:`generate_batch`; the building blocks are the utilization
samplers (:func:`uunifast`, :func:`uunifast_discard`, :func:`randfixedsum`,
:func:`convolutional_fixed_sum`), the period distributions (:func:`parse_periods`) and the
deadline distributions (:func:`parse_deadlines`). Everything draws from the
:class:`numpy.random.Generator` it is given, never from a global state.
"""

from rtsched.generators.batch import GeneratedBatch, generate_batch, integer_tasks, parse_utilizations
from rtsched.generators.deadlines import DeadlineDistribution, parse_deadlines
from rtsched.generators.periods import (
    AUTOMOTIVE_PERIOD_SHARES,
    ChoicePeriods,
    LogUniformPeriods,
    UniformPeriods,
    automotive_periods,
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
