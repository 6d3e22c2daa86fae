#!/usr/bin/env python3
"""traditional: Chitarrella's and Saracino's rules for Scopone, in order of priority.

The rules, each with its source, are in engines/traditional/README.md; the
code is arena.players.traditional. It plays every game of the arena and is tuned for
Scopone. Ties left by the rules are broken by a generator seeded by the
decision, so replays are exact.

Run it as a server: ``python engines/traditional/bot.py [--listen 127.0.0.1:0]``.
"""

from arena.players.traditional import candidates
from arena.rules import Game, Move
from arena.sdk import Decision, serve


def choose(decision: Decision) -> Move:
    moves = decision.legal_moves
    if len(moves) == 1:
        return moves[0]
    left = candidates(decision.observation, moves)
    return left[int(decision.rng("traditional").random() * len(left))]


if __name__ == "__main__":
    serve(choose, name="traditional", version="1.0", author="Scopa Arena", games=tuple(Game))
