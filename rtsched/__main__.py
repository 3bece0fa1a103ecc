"""``python -m rtsched``: the same command line as the ``rtsched`` script."""

import sys

from rtsched.cli import main

sys.exit(main())
