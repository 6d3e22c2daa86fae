#!/usr/bin/env python3
"""ismcts: information-set Monte Carlo tree search, the arena's reference engine.

One search tree over what this seat knows; every iteration deals the unseen
cards at random, consistent with everything the seat has seen, and walks the
tree along the moves legal in that deal (arena/players/search/ismcts.py; README.md
beside this file says which ISMCTS and why). Also ``builtin:ismcts``.

Time: it thinks for at most half the decision's deadline, a share of its
bank when the clock has one, at most --think seconds (default 0.2) and at
most --iterations iterations.

    python engines/ismcts/bot.py [--think 0.2] [--iterations N] [--exploration C] [--infer S]
                                 [--listen ADDRESS]
"""

from __future__ import annotations

import sys

from arena.players.search.players import IsmctsPlayer, think_options, think_parser
from arena.rules import Declaring, Game, Move
from arena.sdk import Decision, serve

if __name__ == "__main__":
    options, rest = think_options("ismcts", sys.argv[1:], rest=True)

    def choose(decision: Decision) -> Move | Declaring:
        # A generator seeded by the decision: the same match gives the same moves
        # (with --iterations and a clock that does not cut it short).
        player = IsmctsPlayer(decision.rng("ismcts"), options)
        move = player(decision.observation, decision.legal_moves, clock=decision.clock)
        # Cirulla: a packet that declares is always declared (3 or 10 points).
        return decision.declaring(move) if decision.declaration else move

    serve(
        choose,
        name="ismcts",
        version="1.0",
        author="Scopa Arena",
        games=tuple(Game),
        argv=rest,
        parents=[think_parser("ismcts")],
    )
    sys.exit(0)
