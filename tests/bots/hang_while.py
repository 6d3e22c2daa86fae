#!/usr/bin/env python3
"""A bot that hangs on its fifth decision while a file exists, for the tests
that stop the arena in the middle of a run and then resume the same run.

    python hang_while.py FILE [--tag TEXT]

It plays the first legal move; from its fifth decision made while FILE
exists (counted over the process) on, it does not answer until FILE is gone.
The file is the test's, so the bot must run unsandboxed.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from arena.rules import Move
from arena.sdk import Decision, serve

parser = argparse.ArgumentParser()
parser.add_argument("file")
parser.add_argument("--tag", default="")
ARGS, _ = parser.parse_known_args()  # --listen is the SDK's
made = {"n": 0}


def choose(decision: Decision) -> Move:
    if Path(ARGS.file).exists():
        made["n"] += 1
    while made["n"] > 4 and Path(ARGS.file).exists():
        time.sleep(0.05)
    return decision.legal_moves[0]


if __name__ == "__main__":
    serve(choose, name="hang-while", version="1")
