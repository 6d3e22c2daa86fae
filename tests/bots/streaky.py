#!/usr/bin/env python3
"""A bot whose first matches go well and the rest do not, for the ladder's
tests: it plays greedy's moves in its first N matches (distinct match ids),
then random ones. Its true strength is the random bot's; a ladder that lets
a lucky start hold it up is caught by the test.

    python streaky.py [--lucky N] [--record FILE] [tag]

With --record, each lucky match's id is appended to FILE as it starts, so a
test can rate exactly the matches the bot played well.
"""

from __future__ import annotations

import argparse
import sys

from arena.players.strategies import move_value
from arena.rules import Move
from arena.sdk import Decision, serve

parser = argparse.ArgumentParser()
parser.add_argument("--lucky", type=int, default=8)
parser.add_argument("--record", help="append each lucky match's id to this file")
args, rest = parser.parse_known_args()
sys.argv[1:] = rest
seen: list[str] = []


def choose(decision: Decision) -> Move:
    if decision.match_id not in seen:
        seen.append(decision.match_id)
        if args.record and len(seen) <= args.lucky:
            with open(args.record, "a") as record:
                record.write(decision.match_id + "\n")
    if seen.index(decision.match_id) < args.lucky:
        return max(decision.legal_moves, key=lambda m: move_value(decision.observation, m))
    rng = decision.rng("streaky")
    return decision.legal_moves[int(rng.random() * len(decision.legal_moves))]


if __name__ == "__main__":
    serve(choose, name="streaky", version="1.0", author="Scopa Arena tests")
