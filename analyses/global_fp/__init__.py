"""Sufficient tests for global fixed-priority scheduling on identical multiprocessors."""
