"""Theory shared by several families of analyses, and by the core's teaching tools.

``edf_demand``
    Processor demand dbf, the demand bound's testing set, QPA (uniprocessor and partitioned EDF,
    GPU partitions).
``np_demand``
    Non-preemptive EDF demand with blocking (uniprocessor non-preemptive EDF, GPU partitions).
``supply``
    Supply bound functions of the multiprocessor periodic resource model (hierarchical analyses,
    exercises and demand plots).
``workload``
    Workload and interference bounds of sporadic tasks in a window, and the per-task scans that
    explain a test task by task (global EDF, global FP, partitioned tests).
``fp_rta``
    Fixed-priority response times on one processor (uniprocessor and partitioned FP).
``jitter_rta``
    Fixed-priority response times with release jitter on one processor (the contention-free
    analyses of CPU–GPU segmented tasks).
``graham``
    Graham's bound on the response time of one DAG job on m processors, and its integer-time
    form with interference (the DAG analyses).

These modules import the core only, never a family of analyses.
"""
