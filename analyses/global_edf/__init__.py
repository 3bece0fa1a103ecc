"""Sufficient tests for global EDF on identical multiprocessors (GFB, BAK, BCL, BCL-iter, RTA, BAR, LOAD, FF-DBF) and its upper bound."""
