"""``python -m rtsched.docs [--out DIR] [--doctest] [--execute all|none] [--jobs N]``: build the site."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rtsched.errors import InputError

_EXECUTE: dict[str, bool | str] = {"all": "all", "default": "all", "none": False}


def main(argv: list[str] | None = None) -> int:
    """Build the documentation site; the exit status (0: built without a warning)."""
    parser = argparse.ArgumentParser(prog="python -m rtsched.docs", description=__doc__)
    parser.add_argument("--out", type=Path, default=None, help="HTML folder (default docs/_build/html)")
    parser.add_argument("--doctest", action="store_true", help="also run the code of the guides (doctest)")
    parser.add_argument(
        "--execute",
        choices=("all", "default", "none"),
        default="all",
        help="run every lab and gallery script at the test suite's sizes (all; default is the same), or nothing (none)",
    )
    parser.add_argument("--jobs", type=int, default=2, help="labs and scripts run at once (default 2)")
    parser.add_argument("--no-strict", action="store_true", help="warnings are not errors")
    args = parser.parse_args(argv)
    try:
        from rtsched.docs.build import build

        return build(
            args.out,
            doctest=args.doctest,
            execute=_EXECUTE[args.execute],
            jobs=args.jobs,
            strict=not args.no_strict,
        )
    except ImportError as err:
        print(f"rtsched.docs: error: {err}; install the docs extra: pip install -e '.[docs]'", file=sys.stderr)
        return 2
    except InputError as err:
        print(f"rtsched.docs: error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
