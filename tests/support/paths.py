"""Where the checkout and the commands the tests run are."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PY = sys.executable
BIN = Path(sys.executable).parent
# The `arena` command of the environment the tests run in.
ARENA = str(BIN / "arena")
RAY = str(BIN / "ray")
