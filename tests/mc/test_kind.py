"""The workload kind MC_TASKSETS (rtsched.workloads): its hooks, files, generator and simulator."""

from __future__ import annotations

import numpy as np
import pytest

from rtsched.errors import InputError
from rtsched.mc import MCBatch, MCTask, MCTaskSet
from rtsched.platform import GPU, Identical, Typed
from rtsched.workloads import DAG_TASKSETS, MC_TASKSETS, TASKSETS, kind_named, kind_of, kinds

SET = MCTaskSet([MCTask.lo(1, T=4, name="a"), MCTask.hi(1, 2, T=8, D=6, name="b")], name="s")


def test_registered_and_coerced():
    assert kind_named("mc") is MC_TASKSETS and MC_TASKSETS in kinds()
    assert MC_TASKSETS.item_type() is MCTaskSet and MC_TASKSETS.batch_type() is MCBatch
    assert kind_of(SET) == (MC_TASKSETS, SET)
    assert kind_of(SET[1]) == (MC_TASKSETS, MCTaskSet([SET[1]]))
    assert kind_of(list(SET.tasks)) == (MC_TASKSETS, MCTaskSet(SET.tasks))
    assert MC_TASKSETS.coerce([(1, 4, 4)]) is None and MC_TASKSETS.coerce([]) is None
    assert kind_of([(1, 4, 4)])[0] is TASKSETS  # plain task sets are still task sets
    assert DAG_TASKSETS.coerce(SET) is None


def test_batches_and_kernel_arguments():
    batch = MC_TASKSETS.batch_of([SET, SET[:1]])
    assert isinstance(batch, MCBatch) and MC_TASKSETS.count(batch) == 2 and MC_TASKSETS.task_count(batch) == 3
    C_lo, C_hi, T, D, level, offsets = MC_TASKSETS.kernel_arguments(batch)
    assert C_lo.tolist() == [1, 1, 1] and C_hi.tolist() == [1, 2, 1] and T.tolist() == [4, 8, 4]
    assert D.tolist() == [4, 6, 4] and level.tolist() == [0, 1, 0] and offsets.tolist() == [0, 2, 3]
    assert all(a.flags.c_contiguous and not a.flags.writeable for a in (C_lo, C_hi, T, D, level, offsets))
    assert MC_TASKSETS.deadline_model(SET) == "constrained" == MC_TASKSETS.deadline_model(batch)
    assert MC_TASKSETS.deadline_model(SET[:1]) == "implicit"
    assert MC_TASKSETS.refuses_deadlines(("implicit",), "constrained") == "needs implicit deadlines (D = T)"


def test_platforms():
    assert MC_TASKSETS.refuses_platform(Identical(1)) is None and MC_TASKSETS.refuses_platform(Identical(4)) is None
    assert "GPU" in MC_TASKSETS.refuses_platform(GPU(2))
    assert "typed" in MC_TASKSETS.refuses_platform(Typed({"cpu": 2, "gpu": 1}))


@pytest.mark.parametrize(
    ("deadlines", "model"), [(("implicit",), "implicit"), (("implicit", "constrained"), "constrained")]
)
@pytest.mark.parametrize(("platform_kind", "m"), [("uniprocessor", 1), ("identical", 2), ("partitioned", 2)])
def test_probe(deadlines, model, platform_kind, m):
    batch, platform = MC_TASKSETS.probe(deadlines, platform_kind)
    assert isinstance(batch, MCBatch) and batch.n_sets == 2 and platform == m
    assert MC_TASKSETS.deadline_model(batch) == model
    assert {int(x) for x in batch.level} == {0, 1}


@pytest.mark.parametrize("suffix", ["yaml", "json", "csv"])
def test_files_through_the_kind(tmp_path, suffix):
    path = tmp_path / f"sets.{suffix}"
    MC_TASKSETS.write([SET, SET], path)
    back = MC_TASKSETS.read(path)
    assert [s.tasks for s in back] == [SET.tasks, SET.tasks]
    (tmp_path / "bad.yaml").write_text("- {level: HI, C_LO: 3, C_HI: 2, T: 9}\n")
    with pytest.raises(InputError, match=r"bad.yaml, line 1, task 0, field C_HI: C_HI 2 < C_LO 3"):
        MC_TASKSETS.read(tmp_path / "bad.yaml")


def test_generate_is_seeded():
    first = MC_TASKSETS.generate(np.random.default_rng(4), 5, n=6, utilization=0.7, cp=0.5, cf=2.0)
    again = MC_TASKSETS.generate(np.random.default_rng(4), 5, n=6, utilization=0.7, cp=0.5, cf=2.0)
    assert isinstance(first, MCBatch) and first == again and MC_TASKSETS.count(first) == 5


def test_simulate_and_describe():
    trace = MC_TASKSETS.simulate(SET, 1)  # U_LO = 3/8, U_HH = 1/4: fits one core in both modes
    assert trace.miss is None
    overloaded = MCTaskSet([MCTask.hi(3, 4, T=4), MCTask.hi(1, 2, T=4)])
    assert MC_TASKSETS.simulate(overloaded, Identical(1)).miss is not None
    text = MC_TASKSETS.describe(SET, Identical(1))
    assert text == "s: n=2 tasks (1 HI), m=1, U_LL=0.25, U_HL=0.125, U_HH=0.25"
