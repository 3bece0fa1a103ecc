"""Exact tests of global EDF and global FP by state-space exploration in integer time."""
