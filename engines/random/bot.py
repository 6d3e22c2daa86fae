#!/usr/bin/env python3
"""random: plays a uniformly random legal move.

Run it as a server: ``python engines/random/bot.py [--listen 127.0.0.1:0]``.
Its choices are seeded by the match, seat and decision, so a match replayed
with the same seed is played the same way.
"""

from arena.rules import Game, Move
from arena.sdk import Decision, serve


def choose(decision: Decision) -> Move:
    moves = decision.legal_moves
    return moves[int(decision.rng("random").random() * len(moves))]


if __name__ == "__main__":
    serve(choose, name="random", version="1.0", author="Scopa Arena", games=tuple(Game))
