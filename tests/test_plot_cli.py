"""`rtsched plot-demand`: writes a non-empty image; clear errors on bad input."""

import numpy as np
import pytest

from rtsched import TaskSet
from rtsched.cli import main
from rtsched.commands.plot_demand import total_demand

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def test_total_demand_is_the_sum_of_dbfs():
    ts = TaskSet.from_tasks([(2, 3, 6), (3, 5, 9), (2, 6, 15)])
    t = np.arange(0, 40)
    expected = [sum(max(0, (x - d) // p + 1) * c for c, d, p in ts.rows()) for x in t]
    assert total_demand(ts, t).tolist() == expected


@pytest.mark.parametrize("extra", [["-m", "2"], ["--mpr", "5,3,2"], ["-m", "1", "--mpr", "5,3,2", "--horizon", "30"]])
def test_writes_a_png(capsys, tmp_path, extra):
    f = tmp_path / "set.txt"
    f.write_text("1 2 5\n1 3 8\n5 9 10\n")
    out = tmp_path / "dbf.png"
    assert main(["plot-demand", str(f), "-o", str(out), *extra]) == 0
    data = out.read_bytes()
    assert data.startswith(PNG_MAGIC) and len(data) > 5000
    assert f"wrote {out}" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("args", "field"),
    [
        ([], "-m"),
        (["--mpr", "5,3"], "--mpr"),
        (["--mpr", "5,11,2"], "--mpr"),  # Θ > m'Π
        (["-m", "0"], "-m"),
        (["-m", "2", "-o", "x.gif"], "--output"),
        (["-m", "2", "--index", "3"], "--index"),
    ],
)
def test_bad_input_exit_2_with_one_line(capsys, tmp_path, args, field):
    f = tmp_path / "set.txt"
    f.write_text("1 2 5\n")
    args = [a if a != "x.gif" else str(tmp_path / a) for a in args]
    assert main(["plot-demand", str(f), *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("rtsched: error:") and err.count("\n") == 1 and field in err
    assert err.count("field") == 1  # "field -m: field m: ..." once
