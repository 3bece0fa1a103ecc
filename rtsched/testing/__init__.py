"""Testing helpers for rtsched and its users.

- :mod:`rtsched.testing.strategies`: public hypothesis strategies (tasks, task sets, batches).
- :mod:`rtsched.testing.oracles`: brute-force oracles (a tick-by-tick fixed-priority replay).
- :mod:`rtsched.testing.experiments`: small sweep experiments as TOML text (fixed line layout).
- :func:`check_sound`: search for a task set that *your* schedulability test accepts but global
  EDF cannot schedule (exact test and simulator as oracles), shrunk to a small counterexample.
"""

from rtsched.testing import experiments, oracles, strategies
from rtsched.testing.soundness import Counterexample, check_sound, refute

__all__ = ["Counterexample", "check_sound", "experiments", "oracles", "refute", "strategies"]
