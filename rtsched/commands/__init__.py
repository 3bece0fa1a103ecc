"""CLI subcommands; each module exposes ``register(app)`` (see :mod:`rtsched.cli`)."""
