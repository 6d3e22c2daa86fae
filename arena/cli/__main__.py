"""`python -m arena.cli`: the same as the `arena` command."""

import sys

from arena.cli import main

sys.exit(main())
