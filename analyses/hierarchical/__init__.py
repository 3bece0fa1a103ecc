"""Hierarchical scheduling: G-EDF under a multiprocessor periodic resource (MPR) interface, and virtual clusters."""
