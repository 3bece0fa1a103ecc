"""Small sweep experiments as TOML text, for tests (rtsched's own and yours).

Every value is given as TOML text (``m="[2, 4]"``, ``points="{start = 0.1, stop = 0.9, step = 0.1}"``,
generator entries such as ``"utilizations": '"randfixedsum"'``), so that a test can also write
what the parser must refuse (``points='["a"]'``, ``n="{min = 8, max = 3}"``). The layout is fixed,
line by line, so that tests can check the line numbers of parse errors: ``name`` on line 1,
``seed`` 2, ``[platform]`` 4, ``m`` 5, ``[generator]`` 7 and its entries from line 8, then
``[sweep]`` (``variable``, ``points``, ``sets_per_point``, ``sets_per_unit``) and ``[analyses]``.
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["experiment_toml"]


def experiment_toml(
    *,
    name: str,
    seed: int,
    m: str,
    generator: Mapping[str, str],
    points: str,
    sets_per_point: int,
    sets_per_unit: int,
    names: str,
    variable: str = "U/m",
) -> str:
    """The TOML text of an experiment with these values (TOML text, see the module docstring)."""
    lines = [f'name = "{name}"', f"seed = {seed}", "", "[platform]", f"m = {m}", "", "[generator]"]
    lines += [f"{key} = {value}" for key, value in generator.items()]
    lines += ["", "[sweep]", f'variable = "{variable}"', f"points = {points}"]
    lines += [f"sets_per_point = {sets_per_point}", f"sets_per_unit = {sets_per_unit}", "", "[analyses]"]
    lines += [f"names = {names}", ""]
    return "\n".join(lines)
