"""Testing helpers for rtsched and its users: public hypothesis strategies (:mod:`.strategies`)."""

from rtsched.testing import strategies

__all__ = ["strategies"]
