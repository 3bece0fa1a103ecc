"""The version of rtsched, in one place: ``rtsched.__version__`` and the package metadata read it.

A module of its own, importing nothing, so that modules which record the version (a sweep's
fingerprint and manifest) import it without importing the package's top level.
"""

__version__ = "0.1.0"
