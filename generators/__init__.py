"""Task-set generators (installed as ``rtsched.generators``); see DESIGN §4."""

__all__: list[str] = []
