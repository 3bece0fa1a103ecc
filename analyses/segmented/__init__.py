"""Analyses of CPU–GPU segmented tasks (rtsched.segmented; issue #43, papers/cpu-gpu-model.md).

Partitioned fixed priority on the CPU cores; GPU segments on devices under a protocol. The family:

``seg-oblivious`` (oblivious.py)
    Suspension-oblivious baseline, protocol ``none`` (no GPU contention): per core, uniprocessor
    FP response-time analysis with every task's GPU segments counted as CPU work.
``seg-jitter-suspend``, ``seg-jitter-busy`` (jitter.py)
    Suspension-aware jitter-based analysis, protocol ``none``: suspending higher-priority tasks
    as CPU demand C + G_m with release jitter R − (C + G_m), busy ones as CPU work.
``seg-segment-suspend``, ``seg-segment-busy`` (segment_level.py)
    Segment-level analysis, protocol ``none``: a suspending task's CPU segments bounded one by
    one plus its suspensions, each higher-priority task charged the smaller of its per-segment and
    whole-job interference, and the minimum with the jitter bound (rtsched's own; its note).
``seg-oblivious-ffd``, ``seg-oblivious-wfd``, ``seg-jitter-suspend-ffd``, ``seg-jitter-suspend-wfd`` (assignment.py)
    Task-to-core assignment (first fit / worst fit by decreasing utilization) with one of the two
    analyses above as the admission test per core; the tasks' own cores are ignored.
``seg-mpcp-busy``, ``seg-mpcp-suspend``, ``seg-fmlp-busy``, ``seg-fmlp-suspend`` (mpcp.py, fmlp.py; _locking.py)
    Lock-based GPU access under MPCP (priority queue) and FMLP+ (FIFO queue), holders boosted.
``seg-gcaps-*``, ``seg-gcaps-*-gpa``, ``seg-tsg-*`` (gcaps.py, tsg.py; _preemptive.py)
    Preemptive GPU scheduling by GPU priority (GCAPS, with and without its GPU-priority
    assignment) and the vendor driver's time-sliced round robin.
``seg-{mpcp,fmlp,gcaps}-{busy,suspend}-{ffd,wfd}`` (assignment_contended.py)
    Task-to-core assignment under GPU contention: a placement is admitted only if the inner
    analysis accepts the whole partial set.
``seg-{mpcp,fmlp}-{busy,suspend}-part``, ``...-part-exhaustive`` (partitions.py)
    The lock-based analyses on a partitioned GPU (MIG/TPC layouts of rtsched's GPU model):
    heuristic or exhaustive search over layouts and task-to-partition assignments.
``seg-{gcaps,gcaps-*-gpa,tsg}-{busy,suspend}-part``, ``...-part-exhaustive`` (partitions_preemptive.py)
    The preemptive analyses on a partitioned GPU, each partition its own preemptive scheduler.

Shared math lives in rtsched.analyses.theory (e.g. theory/jitter_rta.py), never in another family.
"""
