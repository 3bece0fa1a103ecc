"""Partitioned EDF and FP: bin-packing heuristics with per-processor admission tests."""
