"""Analyses of CPU–GPU segmented tasks (rtsched.segmented; issue #43, papers/cpu-gpu-model.md).

Partitioned fixed priority on the CPU cores; GPU segments on devices under a protocol. The family:

``seg-oblivious`` (oblivious.py)
    Suspension-oblivious baseline, protocol ``none`` (no GPU contention): per core, uniprocessor
    FP response-time analysis with every task's GPU segments counted as CPU work.
``seg-jitter-suspend``, ``seg-jitter-busy`` (jitter.py)
    Suspension-aware jitter-based analysis, protocol ``none``: suspending higher-priority tasks
    as CPU demand C + G_m with release jitter R − (C + G_m), busy ones as CPU work.
``seg-oblivious-ffd``, ``seg-oblivious-wfd``, ``seg-jitter-suspend-ffd``, ``seg-jitter-suspend-wfd`` (assignment.py)
    Task-to-core assignment (first fit / worst fit by decreasing utilization) with one of the two
    analyses above as the admission test per core; the tasks' own cores are ignored.
MPCP and FMLP+ (mpcp.py, fmlp.py)
    Lock-based GPU access (see those modules).

Shared math lives in rtsched.analyses.theory (e.g. theory/jitter_rta.py), never in another family.
"""
