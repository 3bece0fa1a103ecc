"""The flat module paths of rtsched.analyses before the analyses were grouped by family still
import, with a DeprecationWarning naming the new path, and give the same objects."""

import importlib
import sys

import pytest

from rtsched import analyses


@pytest.mark.parametrize("old", sorted(analyses.MOVED))
def test_old_path_warns_and_forwards(old: str) -> None:
    sys.modules.pop(f"rtsched.analyses.{old}", None)
    with pytest.warns(DeprecationWarning, match=rf"rtsched\.analyses\.{old} moved to rtsched\.analyses\."):
        module = importlib.import_module(f"rtsched.analyses.{old}")
    targets = [importlib.import_module(f"rtsched.analyses.{new}") for new in analyses.MOVED[old]]
    assert module.__all__ and set(module.__all__) == {name for t in targets for name in t.__all__}
    for name in module.__all__:
        assert any(getattr(module, name) is getattr(t, name, object()) for t in targets), name
    with pytest.raises(AttributeError):
        _ = module.no_such_name


def test_from_import_of_an_old_path() -> None:
    sys.modules.pop("rtsched.analyses.gfb", None)
    with pytest.warns(DeprecationWarning, match="global_edf.gfb"):
        from rtsched.analyses.gfb import reference
    from rtsched.analyses.global_edf import gfb

    assert reference is gfb.reference


def test_the_gpu_module_became_a_package_whose_old_names_still_resolve() -> None:
    from rtsched.analyses import gpu
    from rtsched.analyses.gpu import partitioning

    with pytest.warns(DeprecationWarning, match="gpu.partitioning.allocate"):
        allocate = gpu.allocate
    assert allocate is partitioning.allocate
    with pytest.raises(AttributeError):
        _ = gpu.no_such_name


def test_every_old_name_is_gone_from_the_tree() -> None:
    """No module of the package still lives at an old path (the finder only serves moved names)."""
    from pathlib import Path

    folder = Path(analyses.__file__).parent
    assert not [old for old in analyses.MOVED if (folder / f"{old}.py").exists()]
