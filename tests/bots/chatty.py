"""A bot that writes a line to stdout at every decision, without flushing, as
a bot written with print() does: Python buffers a pipe's output (whatever
PYTHONUNBUFFERED says, this bot does), so those lines reach the arena only when
the bot exits and flushes, after its match.

    python chatty.py
"""

import io
import sys

from arena.rules import Move
from arena.sdk import Decision, serve


def choose(decision: Decision) -> Move:
    print(f"chatty: decision {decision.decision}: {decision.legal_moves[0]}")
    return decision.legal_moves[0]


if __name__ == "__main__":
    sys.stdout = io.TextIOWrapper(io.BufferedWriter(io.FileIO(1, "w", closefd=False), 1 << 16))
    serve(choose, name="chatty", version="1.0", author="Scopa Arena tests")
