"""Uniprocessor analyses: EDF processor demand and QPA, fixed-priority response times and bounds, non-preemptive EDF."""
