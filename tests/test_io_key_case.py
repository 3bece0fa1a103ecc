"""Task fields in any case, as in CSV headers: JSON/YAML task objects read ``c, d, t`` as ``C, D, T`` (issue #46)."""

import pytest

from rtsched.errors import InputError
from rtsched.io import loads


@pytest.mark.parametrize(
    ("text", "fmt"),
    [
        pytest.param("tasks:\n  - {c: 1, d: 4, t: 5}\n  - {C: 2, D: 5, T: 5}\n", "yaml", id="yaml"),
        pytest.param('[{"c": 1, "d": 4, "t": 5}, {"C": 2, "D": 5, "T": 5}]', "json", id="json"),
        pytest.param("c,d,t\n1,4,5\n2,5,5\n", "csv", id="csv"),
    ],
)
def test_lower_case_fields_read_as_upper_case(text, fmt):
    (ts,) = loads(text, fmt)
    assert [(t.C, t.D, t.T) for t in ts] == [(1, 4, 5), (2, 5, 5)]


def test_one_field_in_both_cases_is_refused_with_its_line():
    with pytest.raises(InputError, match=r"C given twice \(as 'C' and 'c'\)") as err:
        loads("tasks:\n  - {C: 1, D: 4, T: 5}\n  - {c: 1, C: 2, d: 4, t: 5}\n", "yaml")
    assert err.value.line == 3 and err.value.task == 1 and err.value.field == "C"


def test_other_keys_stay_case_sensitive():
    with pytest.raises(InputError, match="unknown key 'Name'"):
        loads("tasks:\n  - {C: 1, D: 4, T: 5, Name: a}\n", "yaml")
